/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote show: the package notes of ELF files, as text, JSON or one field. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

struct show_opts {
        bool json, systemd;
        const char *field;
        bool with_path;
};

static void architecture(pkgnote_object *e, char *buf, size_t len) {
        const char *m = pkgnote_machine_name(pkgnote_object_machine(e), pkgnote_object_class(e));
        if (m)
                snprintf(buf, len, "%s", m);
        else
                snprintf(buf, len, "machine-%u", pkgnote_object_machine(e));
}

/* A PE image's kind and, for a unified kernel image, what it boots. */
static void print_pe(pkgnote_object *e, const char *arch) {
        printf("\n  peType: %s\n  architecture: %s (%s)\n", pkgnote_object_kind(e), arch,
               pkgnote_object_class(e) == 64 ? "PE32+" : "PE32");
        const char *sub = pkgnote_pe_subsystem_name(pkgnote_pe_subsystem(e));
        if (sub)
                printf("  subsystem: %s\n", sub);
        else
                printf("  subsystem: %u\n", pkgnote_pe_subsystem(e));
        if (pkgnote_pe_signed(e))
                printf("  signed: yes (Authenticode)\n");
        uint64_t size;
        if (pkgnote_pe_section_find(e, ".linux", NULL, &size, NULL) > 0) {
                char *uname = pkgnote_pe_uki_uname(e);
                printf("  kernel: section .linux, %" PRIu64 " bytes", size);
                if (uname) {
                        fputs(", release ", stdout);
                        tool_print_escaped(stdout, uname);
                }
                fputc('\n', stdout);
                free(uname);
        }
        pkgnote_os_release *os;
        if (pkgnote_pe_uki_os_release(e, &os) > 0) {
                const char *name = pkgnote_os_release_get(os, "PRETTY_NAME");
                if (!name)
                        name = pkgnote_os_release_get(os, "ID");
                fputs("  osRelease: section .osrel", stdout);
                if (name) {
                        fputs(", ", stdout);
                        tool_print_escaped(stdout, name);
                }
                fputc('\n', stdout);
                pkgnote_os_release_free(os);
        }
}

/* What the object says is inside it: the toolchain and main package,
 * then one line per component (its version, checksum and purl) with its
 * replacement, then the build settings. */
static void print_embedded(const pkgnote_embedded *m) {
        const char *tc = pkgnote_embedded_toolchain(m), *path = pkgnote_embedded_package_path(m);
        fputs("  embedded:", stdout);
        if (tc) {
                fputs(" toolchain ", stdout);
                tool_print_escaped(stdout, tc);
        }
        if (path) {
                fputs(tc ? ", path " : " path ", stdout);
                tool_print_escaped(stdout, path);
        }
        fputc('\n', stdout);
        for (size_t i = 0; i < pkgnote_embedded_component_count(m); i++) {
                pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                if (pkgnote_embedded_component(m, i, &c) < 0)
                        continue;
                printf("    %s: ", c.main ? "main" : "dependency");
                tool_print_escaped(stdout, c.name);
                const char *const more[] = {c.version, c.checksum};
                for (size_t k = 0; k < 2; k++)
                        if (more[k]) {
                                fputc(' ', stdout);
                                tool_print_escaped(stdout, more[k]);
                        }
                if (c.purl) {
                        fputs(" (", stdout);
                        tool_print_escaped(stdout, c.purl);
                        fputc(')', stdout);
                }
                if (strcmp(c.ecosystem, "golang") != 0) {
                        /* a crate's source and kind: where it came from, and
                         * whether only its build used it */
                        const char *const what[] = {c.source, c.kind};
                        const char *sep = " [";
                        for (size_t k = 0; k < 2; k++)
                                if (what[k]) {
                                        fputs(sep, stdout);
                                        tool_print_escaped(stdout, what[k]);
                                        sep = ", ";
                                }
                        if (strcmp(sep, " [") != 0)
                                fputc(']', stdout);
                }
                fputc('\n', stdout);
                if (c.replacement_name) {
                        fputs("      replaced by: ", stdout);
                        tool_print_escaped(stdout, c.replacement_name);
                        const char *const r[] = {c.replacement_version, c.replacement_checksum};
                        for (size_t k = 0; k < 2; k++)
                                if (r[k]) {
                                        fputc(' ', stdout);
                                        tool_print_escaped(stdout, r[k]);
                                }
                        fputc('\n', stdout);
                }
        }
        for (size_t i = 0; i < pkgnote_embedded_edge_count(m); i++) {
                size_t from, to;
                pkgnote_component a = PKGNOTE_COMPONENT_INIT, b = PKGNOTE_COMPONENT_INIT;
                if (pkgnote_embedded_edge(m, i, &from, &to) <= 0 || pkgnote_embedded_component(m, from, &a) <= 0 ||
                    pkgnote_embedded_component(m, to, &b) <= 0)
                        continue;
                /* by name and version: two crates of one name may be there */
                fputs("    depends: ", stdout);
                tool_print_escaped(stdout, a.name);
                if (a.version) {
                        fputc(' ', stdout);
                        tool_print_escaped(stdout, a.version);
                }
                fputs(" -> ", stdout);
                tool_print_escaped(stdout, b.name);
                if (b.version) {
                        fputc(' ', stdout);
                        tool_print_escaped(stdout, b.version);
                }
                fputc('\n', stdout);
        }
        for (size_t i = 0; i < pkgnote_embedded_setting_count(m); i++) {
                const char *k, *v;
                if (pkgnote_embedded_setting(m, i, &k, &v) <= 0)
                        continue;
                fputs("    setting: ", stdout);
                tool_print_escaped(stdout, k);
                fputc('=', stdout);
                tool_print_escaped(stdout, v);
                fputc('\n', stdout);
        }
}

static void print_text(const char *path, pkgnote_object *e, const pkgnote_info *info) {
        char arch[32];
        architecture(e, arch, sizeof arch);
        fputs("path: ", stdout);
        tool_print_escaped(stdout, path);
        if (pkgnote_object_is_pe(e))
                print_pe(e, arch);
        else
                printf("\n  elfType: %s\n  architecture: %s (ELF%d, %s-endian)\n", pkgnote_object_kind(e), arch,
                       pkgnote_object_class(e), pkgnote_object_big_endian(e) ? "big" : "little");
        const char *id = pkgnote_info_build_id(info);
        printf("  buildId: %s\n", id ? id : "(none)");
        size_t np = pkgnote_info_package_count(info);
        if (np == 0)
                printf("  package: (no package note)\n");
        for (size_t i = 0; i < np; i++) {
                const pkgnote_metadata *m = pkgnote_info_package(info, i);
                const pkgnote_note *n = pkgnote_info_package_note(info, i);
                printf("  package%s:", np > 1 ? (i == 0 ? " (primary)" : " (additional)") : "");
                if (n->section) {
                        fputs(" section ", stdout);
                        tool_print_escaped(stdout, n->section);
                }
                fputc('\n', stdout);
                for (size_t k = 0; k < pkgnote_metadata_count(m); k++) {
                        const char *key = pkgnote_metadata_key(m, k);
                        if (!key) /* below the count: only memory can fail */
                                exit(tool_oom("show"));
                        const char *v = pkgnote_metadata_get(m, key);
                        fputs("    ", stdout);
                        tool_print_escaped(stdout, key);
                        fputs(": ", stdout);
                        char *j = NULL;
                        if (v)
                                tool_print_escaped(stdout, v);
                        else if (pkgnote_metadata_value_json(m, k, &j) >= 0)
                                tool_print_escaped(stdout, j);
                        free(j);
                        fputc('\n', stdout);
                }
        }
        for (size_t i = 0; i < pkgnote_info_dlopen_count(info); i++) {
                const pkgnote_dlopen *d = pkgnote_info_dlopen(info, i);
                for (size_t k = 0; k < pkgnote_dlopen_count(d); k++) {
                        fputs("  dlopen:", stdout);
                        for (size_t j = 0; j < pkgnote_dlopen_soname_count(d, k); j++) {
                                fputs(j ? " | " : " ", stdout);
                                tool_print_escaped(stdout, pkgnote_dlopen_soname(d, k, j));
                        }
                        /* " (feature: F, priority: P, description: D)" with
                         * whichever of them the entry has. */
                        static const char *const keys[] = {"feature", "priority", "description"};
                        bool open = false;
                        for (size_t j = 0; j < 3; j++) {
                                const char *v = pkgnote_dlopen_get(d, k, keys[j]);
                                if (v) {
                                        printf("%s%s: ", open ? ", " : " (", keys[j]);
                                        tool_print_escaped(stdout, v);
                                        open = true;
                                }
                        }
                        if (open)
                                fputc(')', stdout);
                        fputc('\n', stdout);
                }
        }
        if (pkgnote_info_embedded(info))
                print_embedded(pkgnote_info_embedded(info));
}

static bool print_field(const char *path, const char *field, pkgnote_object *e, const pkgnote_info *info,
                        bool with_path) {
        char buf[32];
        const char *v = NULL;
        char *j = NULL;
        if (!strcmp(field, "buildId"))
                v = pkgnote_info_build_id(info);
        else if (!strcmp(field, "elfType") || !strcmp(field, "peType"))
                v = pkgnote_object_kind(e);
        else if (!strcmp(field, "architecture") && pkgnote_info_package_count(info) == 0) {
                architecture(e, buf, sizeof buf);
                v = buf;
        } else if (pkgnote_info_package_count(info) > 0) {
                const pkgnote_metadata *m = pkgnote_info_package(info, 0);
                v = pkgnote_metadata_get(m, field);
                for (size_t k = 0; !v && k < pkgnote_metadata_count(m); k++)
                        if (!pkgnote_metadata_key(m, k))
                                exit(tool_oom("show"));
                        else if (!strcmp(pkgnote_metadata_key(m, k), field) && pkgnote_metadata_value_json(m, k, &j) >= 0)
                                v = j;
        }
        if (!v)
                return false;
        if (with_path) {
                tool_print_escaped(stdout, path);
                fputs(": ", stdout);
        }
        tool_print_escaped(stdout, v);
        fputc('\n', stdout);
        free(j);
        return true;
}

/* The name systemd-analyze inspect-elf gives PATH: absolute from the
 * working directory, "." components and repeated slashes dropped, ".."
 * kept (symbolic links are not resolved).  NULL when out of memory. */
static char *systemd_name(const char *path) {
        /* $PWD where it is the working directory, as systemd takes it. */
        char *cwd = path[0] == '/' ? NULL : get_current_dir_name();
        size_t len = (cwd ? strlen(cwd) + 1 : 0) + strlen(path) + 2;
        char *joined = malloc(len), *out = malloc(len);
        if (!joined || !out || (path[0] != '/' && !cwd)) {
                free(cwd);
                free(joined);
                free(out);
                return NULL;
        }
        snprintf(joined, len, "%s/%s", cwd ? cwd : "", path);
        free(cwd);
        char *q = out;
        for (const char *p = joined; *p;) {
                while (*p == '/')
                        p++;
                size_t n = strcspn(p, "/");
                if (n && !(n == 1 && p[0] == '.')) {
                        *q++ = '/';
                        memcpy(q, p, n);
                        q += n;
                }
                p += n;
        }
        if (q == out)
                *q++ = '/';
        *q = 0;
        free(joined);
        return out;
}

/* Returns 0, 1 (no package note / field) or 2 (error). */
static int show_one(const char *path, const struct show_opts *o) {
        pkgnote_object *e;
        int r = !strcmp(path, "-") ? pkgnote_object_open_fd(STDIN_FILENO, &e) : pkgnote_object_open(path, &e);
        if (r < 0)
                return tool_error(path, "cannot read", r);
        pkgnote_info *info;
        r = pkgnote_info_read(e, &info);
        if (r < 0) {
                pkgnote_object_free(e);
                return tool_error(path, "cannot read notes", r);
        }
        int ret = pkgnote_info_package_count(info) > 0 ? EXIT_OK : EXIT_NOTFOUND;
        if (o->field) {
                if (!print_field(path, o->field, e, info, o->with_path))
                        ret = EXIT_NOTFOUND;
        } else if (o->json || o->systemd) {
                char *j, *name = o->systemd && strcmp(path, "-") ? systemd_name(path) : NULL;
                r = o->systemd && strcmp(path, "-") && !name ? -ENOMEM
                    : o->systemd                             ? pkgnote_info_to_systemd_json(info, e, name, &j)
                                                             : pkgnote_info_to_json(info, e, path, &j);
                free(name);
                r = tool_put_json(stdout, r, &j);
                if (r < 0)
                        ret = tool_error(path, "cannot write the report", r);
        } else
                print_text(path, e, info);
        const char *warning = pkgnote_object_notes_warning(e);
        if (warning) { /* the notes read are right: not an error */
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fputs("': warning: ", stderr);
                tool_print_escaped(stderr, warning);
                fputc('\n', stderr);
        }
        for (size_t i = 0; i < pkgnote_info_problem_count(info); i++) {
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fputs("': ", stderr);
                tool_print_escaped(stderr, pkgnote_info_problem(info, i)->message);
                fputc('\n', stderr);
                ret = EXIT_FAILURE_;
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return ret;
}

static void show_help(void) {
        printf("Usage: pkgnote show [--json|--format FORMAT] [--field KEY] FILE...\n"
               "\n"
               "Print the package notes of ELF files and the .pkgnote section of PE/COFF\n"
               "files: EFI binaries, unified kernel images, Windows programs ('-' reads\n"
               "standard input); and what a program says is inside it: a Go program's\n"
               "toolchain, modules and build settings.\n"
               "\n"
               "  -j, --json       one JSON object per file and line\n"
               "      --format F   text, json (as --json) or systemd: one object per\n"
               "                   file and line as systemd-analyze inspect-elf --json\n"
               "  -f, --field KEY  print only KEY of the primary package note\n"
               "                   (also buildId, elfType, architecture)\n"
               "  -h, --help       show this help\n"
               "\n"
               "Exit status: 0 every file has a package note, 1 some file has none\n"
               "(or lacks KEY), 2 an error.\n");
}

int cmd_show(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"format", required_argument, NULL, 'F'},
                {"field", required_argument, NULL, 'f'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct show_opts o = {0};
        int c;
        while ((c = tool_getopt(argc, argv, "jf:h", longopts)) >= 0)
                switch (c) {
                case 'j': o.json = true; break;
                case 'F':
                        if (tool_parse_format(optarg, &o.json, &o.systemd) < 0)
                                return EXIT_FAILURE_;
                        break;
                case 'f': o.field = optarg; break;
                case 'h': show_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (optind >= argc)
                return tool_fail("show: no FILE given (see 'pkgnote show --help')");
        o.with_path = argc - optind > 1;
        int ret = EXIT_OK;
        for (int i = optind; i < argc; i++) {
                int r = show_one(argv[i], &o);
                if (r > ret)
                        ret = r;
        }
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
