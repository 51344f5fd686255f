/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote stamp: add, replace or remove the package note and the dlopen
 * note of linked binaries and relocatable objects, in place and
 * atomically. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaopts.h"
#include "stampmap.h"
#include "tool.h"

struct stamp_opts {
        struct meta_opts meta;
        const char *output;
        bool remove, remove_dlopen, force, drop_signature, json, quiet, tree, require_first_page;
        struct stamp_map *map; /* per-file metadata */
        pkgnote_note_spec specs[2]; /* the package note first, when stamped or removed; with map,
                                     * the package note's JSON is each file's */
        size_t nspecs;
};

static void stamp_help(void) {
        printf("Usage: pkgnote stamp [METADATA OPTIONS] [-o OUT] [--remove] [--tree] FILE...\n"
               "       pkgnote stamp [METADATA OPTIONS] --dlopen JSON|@FILE [...] FILE...\n"
               "       pkgnote stamp --remove-dlopen [...] FILE...\n"
               "\n"
               "Give already linked executables, shared objects and relocatable objects\n"
               "(.o, kernel modules .ko) their package note (FDO_PACKAGING_METADATA) or\n"
               "dlopen note (FDO_DLOPEN_METADATA), or replace or remove it.  Each FILE is\n"
               "replaced atomically (a temporary file beside it, synced, read back and\n"
               "checked, then renamed over it) keeping its mode, owner, timestamps and\n"
               "extended attributes.  Stamping again with the same notes leaves a file\n"
               "byte for byte the same.\n"
               "\n"
               "%s"
               "Stamping:\n"
               "  -o, --output OUT            write the result to OUT (a new file there, or\n"
               "                              a device, FIFO, '-' for standard output) and\n"
               "                              leave FILE as it is (one FILE only)\n"
               "      --remove                take the package note out (no metadata options)\n"
               "      --dlopen JSON|@FILE     the dlopen note: a JSON array of {\"feature\",\n"
               "                              \"description\", \"priority\", \"soname\": [...]},\n"
               "                              checked as generate --dlopen checks it (@- reads\n"
               "                              standard input).  The file then holds exactly\n"
               "                              this one dlopen note: the others it had (one per\n"
               "                              object that declared some) are taken out.\n"
               "                              Without metadata options the package note is\n"
               "                              left as it is; with them both are stamped and\n"
               "                              the file is written once\n"
               "      --remove-dlopen         take every dlopen note out (not with --dlopen)\n"
               "      --force                 stamp hard-linked files (only this name gets the\n"
               "                              note), read-only files, and kernel modules with\n"
               "                              an appended signature (the signature is dropped:\n"
               "                              sign the module again)\n"
               "      --drop-signature        stamp a signed PE file (EFI binary, Windows\n"
               "                              program): its Authenticode signature, which\n"
               "                              stamping invalidates, is dropped (sign again)\n"
               "      --require-first-page    fail rather than put the note of an executable or\n"
               "                              shared object where core dumps do not carry it\n"
               "  -t, --tree                  each FILE is a directory (a staging tree): every\n"
               "                              executable, shared object, kernel module and PE\n"
               "                              image in it, never following symbolic links;\n"
               "                              separate debug files and files neither ELF nor\n"
               "                              PE are left alone; hard links in the tree share\n"
               "                              one stamped file\n"
               "Metadata of each file (instead of one for all; the options above still\n"
               "apply, above the file's own):\n"
               "      --from-dpkg ROOT        the package of ROOT's dpkg database that ships\n"
               "                              the file (FILEs and trees inside ROOT): type deb,\n"
               "                              its source package's name and version (Source:),\n"
               "                              its architecture; os and osVersion from ROOT's\n"
               "                              os-release when it is a deb distribution's.  A\n"
               "                              FILE is resolved inside ROOT, as in a chroot: a\n"
               "                              link stamps its target in ROOT, never the host's\n"
               "      --from-rpmdb ROOT       the same from ROOT's rpm database (rpmdb.sqlite,\n"
               "                              read, never written; rpm is not run): name and\n"
               "                              VERSION-RELEASE of the source rpm\n"
               "      --metadata-map FILE     lines PATH<TAB>JSON: PATH is the file's path in\n"
               "                              the tree (with --tree) or as given; JSON a\n"
               "                              document as for --metadata ('-': stdin)\n"
               "                              Files without metadata are left alone (named on\n"
               "                              standard error; an error for a FILE given)\n"
               "\n"
               "Output:\n"
               "  -j, --json                  one JSON object per file and line\n"
               "  -q, --quiet                 print only problems\n"
               "  -h, --help                  show this help\n"
               "\n"
               "The note goes into the first page of the file, with the program headers,\n"
               "so that kernel core dumps carry it; tables of dynamic linking may move\n"
               "within their segment to make room.  Otherwise it goes into padding after a\n"
               "segment or, when no padding keeps the first page as it was, into a section\n"
               "that is not loaded, and a warning says that kernel core dumps will not\n"
               "carry it (pkgnote core then reads it from the file on disk, build-id\n"
               "verified).  The program headers, the build-id and other notes never leave\n"
               "the first page, existing notes never move, and code and data\n"
               "addresses never change.  The dlopen note is placed by the same rules, in\n"
               "a section .note.dlopen.\n"
               "\n"
               "Exit status: 0 every file was stamped, 2 an error (the file is untouched).\n",
               meta_opts_help);
}

static bool is_dlopen(uint32_t type) {
        return type == PKGNOTE_NT_FDO_DLOPEN_METADATA;
}

static const char *placement_text(const pkgnote_stamp_result *r, uint32_t type) {
        switch (r->placement) {
        case PKGNOTE_PLACE_NONE: return is_dlopen(type) ? "no dlopen note to remove" : "no package note to remove";
        case PKGNOTE_PLACE_UNCHANGED: return "already carries this note, unchanged";
        case PKGNOTE_PLACE_REPLACED: return "note replaced in its place";
        case PKGNOTE_PLACE_AFTER_NOTES:
                return r->tables_moved ? "note added in the first page, after the existing notes (tables of dynamic linking moved to make room)"
                                     : "note added in the first page, after the existing notes";
        case PKGNOTE_PLACE_MERGED: return "note added in the first page, beside a copy of the existing notes";
        case PKGNOTE_PLACE_FREE_SLOT: return "note added in the first page, in a free program header";
        case PKGNOTE_PLACE_MOVED_PHDRS: return "note added in the first page, program headers moved within it";
        case PKGNOTE_PLACE_PADDING:
                return "note added in padding after a segment";
        case PKGNOTE_PLACE_APPENDED: return "note added in a new segment at the end";
        case PKGNOTE_PLACE_SECTION:
                if (is_dlopen(type))
                        return r->relocatable ? "note added in section .note.dlopen"
                                              : "note added in section .note.dlopen, not loaded: no room keeps the first page as it was";
                return r->relocatable ? "note added in section .note.package"
                                      : "note added in section .note.package, not loaded: no room keeps the first page as it was";
        case PKGNOTE_PLACE_REMOVED: return "note removed";
        case PKGNOTE_PLACE_PE_SECTION: return "note added in a new section .pkgnote, last in the image";
        default: return "done";
        }
}

static void print_warning(const char *path, const char *what) {
        fprintf(stderr, "%s: '", program_name);
        tool_print_escaped(stderr, path);
        fprintf(stderr, "': %s\n", what);
}

/* One object a file (pkgnote_stamp_notes_result_to_json()), or its error. */
static void print_json(const char *path, const pkgnote_stamp_result *r, const char *error, const struct stamp_opts *o) {
        char *j;
        int e = r ? pkgnote_stamp_notes_result_to_json(r, o->specs, o->nspecs, path, &j)
                  : pkgnote_stamp_result_to_json(NULL, path, error, &j);
        if (tool_put_json(stdout, e, &j) < 0)
                tool_error(path, "cannot write the report", -ENOMEM);
}

/* "the note", or which one when it may be either. */
static const char *note_words(const struct stamp_opts *o, size_t i) {
        if (o->nspecs == 1 && !is_dlopen(o->specs[i].type))
                return "the note";
        return is_dlopen(o->specs[i].type) ? "the dlopen note" : "the package note";
}

/* The warnings for result R of note I. */
static void print_warnings(const char *path, const pkgnote_stamp_result *r, const struct stamp_opts *o, size_t i) {
        char buf[512];
        const char *note = note_words(o, i);
        bool placed = r->placement != PKGNOTE_PLACE_NONE && r->placement != PKGNOTE_PLACE_REMOVED && !r->pe_image;
        if (placed && !r->relocatable && r->placement == PKGNOTE_PLACE_SECTION) {
                snprintf(buf, sizeof buf, "%s is in a section that is not loaded: kernel core dumps and running processes will not carry it (show and scan read it from the file)", note);
                print_warning(path, buf);
        } else if (placed && !r->relocatable && !r->first_page) {
                snprintf(buf, sizeof buf, "%s is not in the first page: kernel core dumps will not carry it (pkgnote core reads it from disk, build-id verified)", note);
                print_warning(path, buf);
        }
}

/* Reports one file: its error, or what happened and the warnings. */
static bool removing_only(const struct stamp_opts *o) {
        for (size_t i = 0; i < o->nspecs; i++)
                if (o->specs[i].json)
                        return false;
        return true;
}

static int report(const char *path, int err, const pkgnote_stamp_result *r, const struct stamp_opts *o) {
        if (err < 0) {
                /* Copied first: writing the JSON line is a call of the
                 * library, whose success clears the message. */
                char why[512];
                const char *d = pkgnote_last_error();
                snprintf(why, sizeof why, "%s", d && *d ? d : strerror(-err));
                if (o->json)
                        print_json(path, NULL, why, o);
                return tool_error_reason(path, removing_only(o) ? (o->nspecs > 1 || is_dlopen(o->specs[0].type) ? "cannot remove the notes" : "cannot remove the note") : "cannot stamp", why);
        }
        if (o->json)
                print_json(path, r, NULL, o);
        else if (!o->quiet) {
                tool_print_escaped(stdout, o->output ? o->output : path);
                for (size_t i = 0; i < o->nspecs; i++) {
                        const char *t = placement_text(&r[i], o->specs[i].type);
                        const char *kind = o->nspecs > 1 || is_dlopen(o->specs[i].type) ? (is_dlopen(o->specs[i].type) ? "dlopen " : "package ") : "";
                        fputs(i ? "; " : ": ", stdout);
                        if (!strncmp(t, "note ", 5) || !strncmp(t, "already carries this note", 25))
                                /* "note added ...": "dlopen note added ..." */
                                printf("%.*s%s%s", !strncmp(t, "note ", 5) ? 0 : 21, t, kind, t + (!strncmp(t, "note ", 5) ? 0 : 21));
                        else
                                fputs(t, stdout);
                }
                if (r->bytes_added)
                        printf(", %+" PRId64 " bytes", r->bytes_added);
                fputc('\n', stdout);
        }
        bool placed = false;
        for (size_t i = 0; i < o->nspecs; i++) {
                print_warnings(path, &r[i], o, i);
                placed |= r[i].placement != PKGNOTE_PLACE_NONE && r[i].placement != PKGNOTE_PLACE_REMOVED;
        }
        if (placed && !r->relocatable && !r->pe_image && !r->phdrs_first_page)
                print_warning(path, "the program headers are no longer in the first page: kernel core dumps of this file lose its build-id and notes");
        if (r->signature_removed)
                print_warning(path, r->pe_image ? "the Authenticode signature was dropped: sign the file again (sbsign)"
                                                : "the appended module signature was dropped: sign the module again");
        return EXIT_OK;
}

/* Removal is a note specification without JSON (o->specs). */
static unsigned stamp_flags(const struct stamp_opts *o) {
        return (o->force ? PKGNOTE_STAMP_FORCE : 0) | (o->drop_signature ? PKGNOTE_STAMP_DROP_SIGNATURE : 0) | (o->require_first_page ? PKGNOTE_STAMP_REQUIRE_FIRST_PAGE : 0);
}

static int stamp_one(const char *path, const struct stamp_opts *o) {
        unsigned flags = stamp_flags(o);
        pkgnote_note_spec specs[2];
        memcpy(specs, o->specs, sizeof specs);
        pkgnote_stamp_result r[2] = {{.size = sizeof r[0]}, {.size = sizeof r[0]}};
        if (o->map) {
                /* With a root's package database, PATH is resolved and
                 * stamped inside that root: a symbolic link there is
                 * followed as in a chroot, never out to the host. */
                int rootfd = stamp_map_root_fd(o->map), ret;
                pkgnote_root_file *rf = NULL;
                if (rootfd >= 0 && (ret = stamp_map_resolve(o->map, path, &rf)) != EXIT_OK)
                        return ret;
                const char *skip = NULL;
                int err;
                /* The package note comes first (cmd_stamp). */
                if (!(specs[0].json = stamp_map_json(o->map, NULL, rf ? pkgnote_root_file_path(rf) : path, &skip, &err))) {
                        pkgnote_root_file_free(rf);
                        return err < 0 ? EXIT_FAILURE_ : tool_fail("stamp: '%s': %s", path, skip);
                }
                if (rf) {
                        err = pkgnote_stamp_root_file(rf, o->output, specs, o->nspecs, flags, r);
                        pkgnote_root_file_free(rf);
                        return report(path, err, r, o);
                }
        }
        int err = pkgnote_stamp_notes_file(path, o->output, specs, o->nspecs, flags, r);
        return report(path, err, r, o);
}

/* --tree: the walk is the library's (lib/06-stamp-tree.c); this counts and
 * reports. */
struct tree {
        const struct stamp_opts *o;
        int ret;
        unsigned stamped, stamped_pe, skipped;
};

static void tree_file(const pkgnote_stamp_tree_file *f, void *userdata) {
        struct tree *t = userdata;
        if (f->skipped) {
                /* The reason may quote the path (no package owns it). */
                tool_warn_ignoring(f->path, f->skipped);
                t->skipped++;
                return;
        }
        int r = report(f->path, f->error, f->results, t->o);
        if (r > t->ret)
                t->ret = r;
        if (r == EXIT_OK && f->results && f->results[0].pe_image)
                t->stamped_pe++;
        else if (r == EXIT_OK)
                t->stamped++;
}

struct tree_map {
        const struct stamp_opts *o;
        const char *dir;
        bool failed;
};

static const char *tree_json(const char *rel, const char **skip, int *err, void *userdata) {
        struct tree_map *tm = userdata;
        const char *json = stamp_map_json(tm->o->map, tm->dir, rel, skip, err);
        if (*err < 0) {
                /* Printed already: the file is named as skipped. */
                tm->failed = true;
                *err = 0;
                *skip = "its metadata is not valid (see above)";
        }
        return json;
}

static int stamp_tree(const char *dir, const struct stamp_opts *o) {
        unsigned flags = stamp_flags(o);
        struct tree t = {.o = o, .ret = EXIT_OK};
        struct tree_map tm = {.o = o, .dir = dir};
        int r = pkgnote_stamp_tree(dir, o->specs, o->nspecs, o->map ? tree_json : NULL, &tm, flags, tree_file, &t);
        if (tm.failed)
                t.ret = EXIT_FAILURE_;
        if (r == -ENOTDIR)
                return tool_fail("stamp: --tree: '%s' is not a directory", dir);
        if (r < 0)
                return tool_error(dir, "cannot walk", r);
        if (!o->quiet && !o->json) {
                fprintf(stderr, "%s: ", program_name);
                tool_print_escaped(stderr, dir);
                const char *what = !removing_only(o) ? (o->nspecs > 1 ? "carry the notes" : "carry the note")
                                   : o->nspecs > 1                ? "without package and dlopen notes now"
                                   : is_dlopen(o->specs[0].type)  ? "without a dlopen note now"
                                                                  : "without a package note now";
                if (t.stamped_pe)
                        fprintf(stderr, ": %u ELF files and %u PE images %s, %u skipped\n", t.stamped, t.stamped_pe, what,
                                t.skipped);
                else
                        fprintf(stderr, ": %u ELF files %s, %u skipped\n", t.stamped, what, t.skipped);
        }
        return t.ret;
}

int cmd_stamp(int argc, char **argv) {
        enum { OPT_REMOVE = META_OPT_END, OPT_FORCE, OPT_REQUIRE_FIRST_PAGE, OPT_FROM_DPKG, OPT_FROM_RPMDB,
               OPT_METADATA_MAP, OPT_DLOPEN, OPT_REMOVE_DLOPEN, OPT_DROP_SIGNATURE };
        static const struct option longopts[] = {
                META_LONG_OPTIONS,
                {"output", required_argument, NULL, 'o'},
                {"remove", no_argument, NULL, OPT_REMOVE},
                {"dlopen", required_argument, NULL, OPT_DLOPEN},
                {"remove-dlopen", no_argument, NULL, OPT_REMOVE_DLOPEN},
                {"force", no_argument, NULL, OPT_FORCE},
                {"drop-signature", no_argument, NULL, OPT_DROP_SIGNATURE},
                {"require-first-page", no_argument, NULL, OPT_REQUIRE_FIRST_PAGE},
                {"json", no_argument, NULL, 'j'},
                {"quiet", no_argument, NULL, 'q'},
                {"tree", no_argument, NULL, 't'},
                {"from-dpkg", required_argument, NULL, OPT_FROM_DPKG},
                {"from-rpmdb", required_argument, NULL, OPT_FROM_RPMDB},
                {"metadata-map", required_argument, NULL, OPT_METADATA_MAP},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct stamp_opts o = {0};
        int c, ret = EXIT_FAILURE_;
        bool any_meta = false;
        int map_source = 0;
        const char *map_arg = NULL, *map_option = NULL;
        const char *dlopen_arg = NULL;
        char *json = NULL, *dlopen_json = NULL;
        if (meta_opts_init(&o.meta, "stamp", argc) < 0)
                return tool_oom("stamp");
        while ((c = tool_getopt(argc, argv, "o:jqth", longopts)) >= 0) {
                if (meta_opts_handle(&o.meta, c, optarg)) {
                        any_meta = true;
                        continue;
                }
                switch (c) {
                case 'o': o.output = optarg; break;
                case OPT_REMOVE: o.remove = true; break;
                case OPT_DLOPEN:
                        if (dlopen_arg) {
                                tool_fail("stamp: --dlopen is given once: one dlopen note's array holds every entry");
                                goto out;
                        }
                        dlopen_arg = optarg;
                        break;
                case OPT_REMOVE_DLOPEN: o.remove_dlopen = true; break;
                case OPT_FORCE: o.force = true; break;
                case OPT_DROP_SIGNATURE: o.drop_signature = true; break;
                case OPT_REQUIRE_FIRST_PAGE: o.require_first_page = true; break;
                case 'j': o.json = true; break;
                case 'q': o.quiet = true; break;
                case 't': o.tree = true; break;
                case OPT_FROM_DPKG:
                case OPT_FROM_RPMDB:
                case OPT_METADATA_MAP: {
                        const char *name = c == OPT_FROM_DPKG ? "--from-dpkg" : c == OPT_FROM_RPMDB ? "--from-rpmdb" : "--metadata-map";
                        if (map_option) {
                                tool_fail("stamp: %s and %s do not go together", map_option, name);
                                goto out;
                        }
                        map_option = name;
                        map_arg = optarg;
                        map_source = c == OPT_FROM_DPKG ? STAMP_MAP_DPKG : c == OPT_FROM_RPMDB ? STAMP_MAP_RPM : STAMP_MAP_FILE;
                        break;
                }
                case 'h':
                        stamp_help();
                        ret = EXIT_OK;
                        goto out;
                default: goto out;
                }
        }
        if (optind >= argc) {
                tool_fail("stamp: no FILE given (see 'pkgnote stamp --help')");
                goto out;
        }
        if (o.output && argc - optind > 1) {
                tool_fail("stamp: -o takes one FILE, %d given", argc - optind);
                goto out;
        }
        if (o.output && o.tree) {
                tool_fail("stamp: -o and --tree do not go together");
                goto out;
        }
        if (o.remove && any_meta) {
                tool_fail("stamp: --remove takes no metadata options");
                goto out;
        }
        if (o.remove && map_option) {
                tool_fail("stamp: --remove takes no %s", map_option);
                goto out;
        }
        if (dlopen_arg && o.remove_dlopen) {
                tool_fail("stamp: --dlopen and --remove-dlopen do not go together");
                goto out;
        }
        if (dlopen_arg) {
                uint8_t *note = NULL;
                size_t note_len;
                if ((ret = meta_opts_read_json_arg("stamp", "--dlopen", dlopen_arg, &dlopen_json)) != EXIT_OK)
                        goto out;
                /* Checked once here, so a bad array is one clear message. */
                int r = pkgnote_dlopen_note_encode(dlopen_json, 0, &note, &note_len);
                free(note);
                if (r < 0) {
                        const char *d = pkgnote_last_error();
                        ret = tool_fail("stamp: --dlopen: %s", d && *d ? d : strerror(-r));
                        goto out;
                }
        }
        /* The package note: stamped unless only dlopen notes are asked
         * for and no metadata option or map says what it holds. */
        bool dlopen_only = (dlopen_arg || o.remove_dlopen) && !meta_opts_any(&o.meta) && !map_option;
        if (map_option && (ret = stamp_map_open(&o.map, &o.meta, map_source, map_arg)) != EXIT_OK)
                goto out;
        if (o.remove)
                o.specs[o.nspecs++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, NULL);
        else if (o.map) /* each file's own, filled in as it is stamped */
                o.specs[o.nspecs++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, "");
        else if (!dlopen_only) {
                if ((ret = meta_opts_build_json(&o.meta, &json)) != EXIT_OK)
                        goto out;
                o.specs[o.nspecs++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
        }
        if (dlopen_arg || o.remove_dlopen)
                o.specs[o.nspecs++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dlopen_json);
        /* A full disk or a file size limit must give an error to clean
         * up after, not kill us with the temporary file left behind. */
        signal(SIGXFSZ, SIG_IGN);
        ret = EXIT_OK;
        for (int i = optind; i < argc; i++) {
                int r = o.tree ? stamp_tree(argv[i], &o) : stamp_one(argv[i], &o);
                if (r > ret)
                        ret = r;
        }
        if (fflush(stdout) != 0)
                ret = tool_fail("cannot write output: %s", strerror(errno));
out:
        stamp_map_free(o.map);
        free(json);
        free(dlopen_json);
        meta_opts_done(&o.meta);
        return ret;
}
