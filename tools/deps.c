/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote deps: the dlopen notes of ELF files as package dependencies. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "closure.h"
#include "tool.h"

static void deps_help(void) {
        printf("Usage: pkgnote deps [--format rpm|deb|json] [--root DIR] FILE...\n"
               "       pkgnote deps [--format rpm|deb|json] [--root DIR] --tree DIR\n"
               "       pkgnote deps --rpm-generator requires|recommends|suggests [--rpm-multifile]\n"
               "       pkgnote deps --closure [--root DIR] [--feature NAME]... [--all-features]\n"
               "                    [--priority P] [--ignore-missing] [--format text|json|dot]\n"
               "                    [--json|--packages] FILE...\n"
               "       pkgnote deps --verify [--feature NAME]... [--all-features] [--priority P]\n"
               "                    [--format text|json|dot] [--json] ARTEFACT...\n"
               "\n"
               "Turn the dlopen notes of ELF files into package dependencies: one per\n"
               "entry, entries naming the same sonames merged, the strongest priority\n"
               "winning (required > recommended > suggested; recommended when unnamed).\n"
               "\n"
               "  -f, --format rpm   Requires:/Recommends:/Suggests: lines, sonames as rpm\n"
               "                     names them (libfoo.so.1()(64bit) for 64-bit objects),\n"
               "                     alternatives as (a or b) (the default)\n"
               "  -f, --format deb   dlopen:Depends=, dlopen:Recommends=, dlopen:Suggests=\n"
               "                     substvars: the Debian packages that ship each soname,\n"
               "                     found in the dpkg database; alternatives as a | b\n"
               "  -f, --format json  the merged list with rpm and Debian names\n"
               "  -r, --root DIR     read the dpkg database of DIR instead of /\n"
               "  -t, --tree DIR     every ELF file under DIR (a package's staging\n"
               "                     directory; symlinks and usr/lib/debug are skipped)\n"
               "      --rpm-generator KIND\n"
               "                     run as rpm's file attribute dependency generator:\n"
               "                     file names on standard input, the KIND dependencies\n"
               "                     of the files on standard output\n"
               "      --rpm-multifile  rpm's multifile protocol: ';FILE' before each\n"
               "                     file's dependencies\n"
               "      --closure      every file FILE... (paths in the root) need to run there,\n"
               "                     found as the dynamic loader finds it: the interpreter,\n"
               "                     DT_NEEDED, DT_RPATH/DT_RUNPATH, ld.so.conf, the system\n"
               "                     directories; symbolic links with their targets; one\n"
               "                     absolute path a line\n"
               "      --feature NAME add the libraries of the dlopen entries of feature NAME\n"
               "                     (and what they need); may be given again\n"
               "      --all-features add those of every dlopen entry\n"
               "      --priority P   add those of every dlopen entry of priority P or\n"
               "                     stronger (required, recommended, suggested)\n"
               "      --ignore-missing  what is not found is named, but no error\n"
               "      --json         why each file is there, and what is missing (and the\n"
               "                     graph: \"nodes\", \"edges\"); the same as --format json\n"
               "  -f, --format dot   with --closure or --verify: the dependency graph for\n"
               "                     graphviz (pkgnote deps ... --format dot | dot -Tsvg):\n"
               "                     objects, what they need, dlopen edges dashed and\n"
               "                     labelled with feature and priority, missing names red\n"
               "      --packages     the packages that ship the files, by the root's dpkg\n"
               "                     or rpm database\n"
               "      --relative     paths without their leading '/' (tar -C DIR -T)\n"
               "      --verify       whether each ARTEFACT (a directory, an initramfs: cpio\n"
               "                     archives, each plain or compressed) holds what its ELF\n"
               "                     programs and libraries need: each interpreter and\n"
               "                     DT_NEEDED found as the loader finds it there, and one\n"
               "                     soname of each dlopen entry selected (by default those\n"
               "                     required and recommended); one missing thing a line\n"
               "  -h, --help         show this help\n"
               "\n"
               "Exit status: 0 done, 1 a soname no installed package ships (deb, json;\n"
               "the rest is still printed), 2 a file could not be read, is not ELF or\n"
               "holds a malformed dlopen note (then nothing is printed).  With --closure:\n"
               "1 something needed was not found (all else is printed), 2 a FILE is not\n"
               "in the root or not ELF.  With --verify: 1 something required (an interpreter,\n"
               "a DT_NEEDED, a required dlopen entry) is missing, 2 an ARTEFACT cannot be read.\n");
}

/* Warns about each problem of a dlopen note that still gives dependencies. */
struct warn_ctx {
        const char *path;
};
static void warn_problem(void *u, int error, const char *message) {
        (void)error;
        struct warn_ctx *w = u;
        fprintf(stderr, "%s: '", program_name);
        tool_print_escaped(stderr, w->path);
        fputs("': warning: ", stderr);
        tool_print_escaped(stderr, message);
        fputc('\n', stderr);
}

/* Adds the dlopen notes of PATH to D.  Returns 0 or EXIT_FAILURE_; a file
 * that is not ELF is skipped when SKIP_NON_ELF. */
static int add_file(pkgnote_deps *d, const char *path, bool warn, bool skip_non_elf) {
        pkgnote_object *e;
        pkgnote_info *info = NULL;
        int r = pkgnote_object_open(path, &e);
        if (r == -ENOEXEC && skip_non_elf)
                return 0;
        if (r < 0)
                return tool_error(path, r == -ENOEXEC ? "not ELF" : "cannot read", r);
        /* The object view opens PE images too; their .pkgnote section is a
         * package note, but there is no dlopen note nor a soname to depend
         * on: they go as other non-ELF files do. */
        if (pkgnote_object_is_pe(e)) {
                pkgnote_object_free(e);
                return skip_non_elf ? 0 : tool_error_reason(path, "not ELF", "a PE image has no ELF dependencies (dlopen notes)");
        }
        r = pkgnote_info_read(e, &info);
        if (r < 0) {
                pkgnote_object_free(e);
                return tool_error(path, "cannot read notes", r);
        }
        int ret = 0;
        for (size_t i = 0; i < pkgnote_info_problem_count(info); i++) {
                const char *msg = pkgnote_info_problem(info, i)->message;
                if (strstr(msg, "dlopen")) {
                        fprintf(stderr, "%s: '", program_name);
                        tool_print_escaped(stderr, path);
                        fputs("': malformed dlopen note: ", stderr);
                        tool_print_escaped(stderr, msg);
                        fputc('\n', stderr);
                        ret = EXIT_FAILURE_;
                }
        }
        for (size_t i = 0; ret == 0 && i < pkgnote_info_dlopen_count(info); i++) {
                const pkgnote_dlopen *n = pkgnote_info_dlopen(info, i);
                struct warn_ctx w = {path};
                if (warn)
                        pkgnote_dlopen_check(n, warn_problem, &w);
                r = pkgnote_deps_add(d, path, pkgnote_object_class(e), pkgnote_object_machine(e), pkgnote_object_big_endian(e), n);
                if (r < 0)
                        ret = tool_error(path, "unusable dlopen note", r);
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return ret;
}

/* The tree walk's state: nftw() passes none. */
static struct {
        pkgnote_deps *d;
        size_t root_len;
        int ret;
} tree;

static int tree_visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void)st, (void)ftw;
        /* Separate debug files carry the notes of the programs they
         * belong to; they are not programs of the package. */
        const char *rel = path + tree.root_len;
        while (*rel == '/')
                rel++;
        if (type == FTW_D && !strcmp(rel, "usr/lib/debug"))
                return FTW_SKIP_SUBTREE;
        if (type == FTW_DNR || type == FTW_NS) {
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fprintf(stderr, "': cannot read: %s\n", strerror(errno));
                tree.ret = EXIT_FAILURE_;
        } else if (type == FTW_F && S_ISREG(st->st_mode) && add_file(tree.d, path, true, true) != 0)
                tree.ret = EXIT_FAILURE_;
        return FTW_CONTINUE;
}

static int add_tree(pkgnote_deps *d, const char *dir) {
        struct stat st;
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
                return tool_fail("deps: --tree: '%s' is not a directory", dir);
        tree.d = d, tree.root_len = strlen(dir), tree.ret = 0;
        if (nftw(dir, tree_visit, 64, FTW_PHYS | FTW_ACTIONRETVAL) < 0)
                return tool_fail("deps: cannot walk '%s': %s", dir, strerror(errno));
        return tree.ret;
}

/* rpm's file attribute generator: for each file name on standard input,
 * its dependencies of one kind, bare; with MULTIFILE (rpm 4.19's
 * multifile protocol) after a line ";FILE". */
static int rpm_generator(const char *kind, bool multifile) {
        static const char *const kinds[] = {[PKGNOTE_DLOPEN_SUGGESTED] = "suggests",
                                            [PKGNOTE_DLOPEN_RECOMMENDED] = "recommends",
                                            [PKGNOTE_DLOPEN_REQUIRED] = "requires"};
        int want = 0;
        for (int p = PKGNOTE_DLOPEN_SUGGESTED; p <= PKGNOTE_DLOPEN_REQUIRED; p++)
                if (!strcasecmp(kind, kinds[p]))
                        want = p;
        if (!want)
                return tool_fail("deps: --rpm-generator: '%s' is not requires, recommends or suggests", kind);
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        int ret = EXIT_OK;
        while ((len = getline(&line, &cap, stdin)) > 0) {
                if (line[len - 1] == '\n')
                        line[--len] = '\0';
                if (!*line)
                        continue;
                pkgnote_deps *d;
                if (pkgnote_deps_new(&d) < 0) {
                        ret = tool_oom("deps");
                        break;
                }
                char *text = NULL;
                int r = add_file(d, line, false, false);
                if (r == 0 && pkgnote_deps_format(d, PKGNOTE_DEPS_RPM, &text) < 0)
                        r = tool_error(line, "cannot list dependencies", -ENOMEM);
                if (r != 0)
                        ret = r;
                else {
                        /* "Requires: x" lines of the wanted kind, bare. */
                        if (multifile)
                                printf(";%s\n", line);
                        size_t tl = strlen(kinds[want]);
                        for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL) {
                                nl = strchr(l, '\n');
                                if (nl)
                                        *nl = '\0';
                                if (!strncasecmp(l, kinds[want], tl) && l[tl] == ':')
                                        printf("%s\n", l + tl + 2);
                        }
                }
                free(text);
                pkgnote_deps_free(d);
        }
        free(line);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}

int cmd_deps(int argc, char **argv) {
        enum { OPT_GENERATOR = 0x100, OPT_MULTIFILE, OPT_CLOSURE, OPT_FEATURE, OPT_ALL_FEATURES, OPT_PRIORITY,
               OPT_IGNORE_MISSING, OPT_JSON, OPT_PACKAGES, OPT_RELATIVE, OPT_VERIFY };
        static const struct option longopts[] = {
                {"format", required_argument, NULL, 'f'},
                {"root", required_argument, NULL, 'r'},
                {"tree", required_argument, NULL, 't'},
                {"rpm-generator", required_argument, NULL, OPT_GENERATOR},
                {"rpm-multifile", no_argument, NULL, OPT_MULTIFILE},
                {"closure", no_argument, NULL, OPT_CLOSURE},
                {"verify", no_argument, NULL, OPT_VERIFY},
                {"feature", required_argument, NULL, OPT_FEATURE},
                {"all-features", no_argument, NULL, OPT_ALL_FEATURES},
                {"priority", required_argument, NULL, OPT_PRIORITY},
                {"ignore-missing", no_argument, NULL, OPT_IGNORE_MISSING},
                {"json", no_argument, NULL, OPT_JSON},
                {"packages", no_argument, NULL, OPT_PACKAGES},
                {"relative", no_argument, NULL, OPT_RELATIVE},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        int format = PKGNOTE_DEPS_RPM, c;
        const char *format_arg = NULL;
        const char *root = NULL, *generator = NULL, *tree_dir = NULL;
        bool multifile = false, closure = false, closure_only = false, verify = false;
        struct closure_opts co = {0};
        const char **features = calloc((size_t)argc + 1, sizeof *features);
        if (!features)
                return tool_oom("deps");
        co.features = features;
        while ((c = tool_getopt(argc, argv, "f:r:t:h", longopts)) >= 0)
                switch (c) {
                case 'f': format_arg = optarg; break;
                case 'r': root = optarg; break;
                case 't': tree_dir = optarg; break;
                case OPT_GENERATOR: generator = optarg; break;
                case OPT_MULTIFILE: multifile = true; break;
                case OPT_CLOSURE: closure = true; break;
                case OPT_VERIFY: verify = true; break;
                case OPT_FEATURE: features[co.n_features++] = optarg, closure_only = true; break;
                case OPT_ALL_FEATURES: co.all_features = closure_only = true; break;
                case OPT_PRIORITY:
                        closure_only = true;
                        for (int p = PKGNOTE_DLOPEN_SUGGESTED; p <= PKGNOTE_DLOPEN_REQUIRED; p++)
                                if (!strcmp(optarg, pkgnote_dlopen_priority_name(p)))
                                        co.priority = p;
                        if (!co.priority) {
                                free(features);
                                return tool_fail("deps: --priority: '%s' is not required, recommended or suggested", optarg);
                        }
                        break;
                case OPT_IGNORE_MISSING: co.ignore_missing = closure_only = true; break;
                case OPT_JSON: co.json = closure_only = true; break;
                case OPT_PACKAGES: co.packages = closure_only = true; break;
                case OPT_RELATIVE: co.relative = closure_only = true; break;
                case 'h': free(features); deps_help(); return EXIT_OK;
                default: free(features); return EXIT_FAILURE_;
                }
        /* --format: rpm, deb or json for dependencies; text, json or dot
         * for --closure and --verify. */
        if (format_arg && (closure || verify)) {
                if (!strcmp(format_arg, "json"))
                        co.json = true;
                else if (!strcmp(format_arg, "dot"))
                        co.dot = true;
                else if (strcmp(format_arg, "text")) {
                        free(features);
                        return tool_fail("deps: --format: '%s' is not text, json or dot (with --%s)", format_arg,
                                         verify ? "verify" : "closure");
                }
                if (co.dot && co.json) {
                        free(features);
                        return tool_fail("deps: --json and --format dot exclude each other");
                }
                if (co.json && !strcmp(format_arg, "text")) {
                        free(features);
                        return tool_fail("deps: --json and --format text exclude each other");
                }
        } else if (format_arg) {
                if (!strcmp(format_arg, "rpm"))
                        format = PKGNOTE_DEPS_RPM;
                else if (!strcmp(format_arg, "deb"))
                        format = PKGNOTE_DEPS_DEB;
                else if (!strcmp(format_arg, "json"))
                        format = PKGNOTE_DEPS_JSON;
                else {
                        free(features);
                        return tool_fail("deps: --format: '%s' is not rpm, deb or json", format_arg);
                }
        }
        if (verify) {
                int r;
                if (closure || generator || tree_dir || root || format != PKGNOTE_DEPS_RPM || co.ignore_missing ||
                    co.packages || co.relative)
                        r = tool_fail("deps: --verify takes only --feature, --all-features, --priority, --format and --json");
                else if (optind >= argc)
                        r = tool_fail("deps: --verify: no ARTEFACT given (see 'pkgnote deps --help')");
                else
                        r = deps_verify(&co, argv + optind, argc - optind);
                free(features);
                return r;
        }
        if (closure_only && !closure) {
                free(features);
                return tool_fail("deps: --feature, --all-features, --priority, --ignore-missing, --json, --packages and --relative go with --closure (--feature, --all-features, --priority and --json with --verify too)");
        }
        if (closure) {
                int r;
                co.root = root;
                if (generator || tree_dir || format != PKGNOTE_DEPS_RPM)
                        r = tool_fail("deps: --closure takes neither --rpm-generator nor --tree");
                else if (co.json && co.packages)
                        r = tool_fail("deps: --json and --packages exclude each other (--json names the packages too)");
                else if ((co.dot && (co.packages || co.relative)))
                        r = tool_fail("deps: --packages and --relative go with the text format only (not --format dot)");
                else if (optind >= argc)
                        r = tool_fail("deps: --closure: no FILE given (see 'pkgnote deps --help')");
                else
                        r = deps_closure(&co, argv + optind, argc - optind);
                free(features);
                return r;
        }
        free(features);
        if (generator) {
                if (optind < argc)
                        return tool_fail("deps: --rpm-generator reads file names from standard input, not arguments");
                return rpm_generator(generator, multifile);
        }
        if (optind >= argc && !tree_dir)
                return tool_fail("deps: no FILE given (see 'pkgnote deps --help')");
        pkgnote_deps *d;
        if (pkgnote_deps_new(&d) < 0)
                return tool_oom("deps");
        int ret = EXIT_OK;
        for (int i = optind; i < argc; i++)
                if (add_file(d, argv[i], true, false) != 0)
                        ret = EXIT_FAILURE_;
        if (tree_dir && add_tree(d, tree_dir) != 0)
                ret = EXIT_FAILURE_;
        if (ret == EXIT_OK && format != PKGNOTE_DEPS_RPM) {
                /* JSON names Debian packages where a dpkg database exists;
                 * deb needs one. */
                bool need = format == PKGNOTE_DEPS_DEB || root;
                if (need || access("/var/lib/dpkg/info", F_OK) == 0) {
                        int r = pkgnote_deps_resolve_dpkg(d, root);
                        if (r < 0)
                                ret = tool_error(root ? root : "/", "cannot read the dpkg database", r);
                        for (size_t i = 0; r > 0 && i < pkgnote_deps_count(d); i++)
                                if (pkgnote_deps_resolved(d, i) == 0) {
                                        fprintf(stderr, "%s: deps: no installed package ships ", program_name);
                                        tool_print_escaped(stderr, pkgnote_deps_sonames(d, i));
                                        fprintf(stderr, " (%s)\n", pkgnote_dlopen_priority_name(pkgnote_deps_priority(d, i)));
                                        ret = EXIT_NOTFOUND;
                                }
                }
        }
        char *text = NULL;
        if (ret != EXIT_FAILURE_) {
                int r = pkgnote_deps_format(d, format, &text);
                if (r < 0)
                        ret = tool_error("-", "cannot list dependencies", r);
                else
                        fputs(text, stdout);
        }
        free(text);
        pkgnote_deps_free(d);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
