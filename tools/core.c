/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote core: which packages were involved in a crash, from the core. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"
#include "tool.h"

struct core_opts {
        bool json, all_threads, stats, no_stack;
        pkgnote_core_options lib;
        struct stack_opts stack;
};

/* "deb systemd-252.38-1~deb12u1 (amd64)" from a package note. */
static void print_package_words(FILE *out, const pkgnote_metadata *m) {
        const char *type = pkgnote_metadata_type(m), *name = pkgnote_metadata_name(m);
        const char *version = pkgnote_metadata_version(m), *arch = pkgnote_metadata_architecture(m);
        if (type) {
                tool_print_escaped(out, type);
                fputc(' ', out);
        }
        tool_print_escaped(out, name ? name : "(unnamed)");
        if (version) {
                fputc('-', out);
                tool_print_escaped(out, version);
        }
        if (arch) {
                fputs(" (", out);
                tool_print_escaped(out, arch);
                fputc(')', out);
        }
}

static void print_module_text(FILE *out, const pkgnote_module *m) {
        const pkgnote_info *info = pkgnote_module_info(m);
        const char *id = pkgnote_module_build_id(m);
        fputs("Module ", out);
        tool_print_escaped(out, pkgnote_module_path(m));
        if (pkgnote_module_deleted(m))
                fputs(" (deleted)", out);
        if (pkgnote_module_replaced(m))
                fputs(" (replaced on disk)", out);
        if (info && pkgnote_info_package_count(info) > 0) {
                fputs(" from ", out);
                for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                        if (i)
                                fputs(" and ", out);
                        print_package_words(out, pkgnote_info_package(info, i));
                }
        } else if (info)
                fputs(" without package note", out);
        else
                fputs(" with package metadata not available", out);
        if (id)
                fprintf(out, ", build-id %s", id);
        if (pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK)
                fputs(" (note read from disk, build-id verified)", out);
        fputc('\n', out);
        const char *why = pkgnote_module_reason(m);
        if (why && (!info || pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK_MISMATCH ||
                    pkgnote_info_package_count(info) == 0)) {
                fputs("        ", out);
                tool_print_escaped(out, why);
                fputc('\n', out);
        }
}

static const char *arch_name(const pkgnote_process_info *p, char *buf, size_t len) {
        const char *n = pkgnote_machine_name(p->machine, p->elf_class);
        if (n)
                return n;
        snprintf(buf, len, "machine-%u", p->machine);
        return buf;
}

static void print_text(FILE *out, const pkgnote_core *c, const pkgnote_stack *st) {
        pkgnote_process_info p;
        char buf[32];
        pkgnote_core_process(c, &p);
        if (p.pid >= 0) {
                fprintf(out, "           PID: %d", p.pid);
                if (p.command) {
                        fputs(" (", out);
                        tool_print_escaped(out, p.command);
                        fputc(')', out);
                }
                fputc('\n', out);
        }
        if (p.tid >= 0 && p.tid != p.pid)
                fprintf(out, "           TID: %d (the thread that crashed)\n", p.tid);
        if (p.uid >= 0)
                fprintf(out, "           UID: %d\n           GID: %d\n", p.uid, p.gid);
        if (p.signal > 0) {
                const char *sn = pkgnote_signal_name(p.signal);
                fprintf(out, "        Signal: %d (%s)\n", p.signal, sn ? sn : "unknown");
        }
        if (p.has_fault_address)
                fprintf(out, " Fault address: 0x%" PRIx64 "\n", p.fault_address);
        if (p.arguments) {
                fputs("  Command Line: ", out);
                tool_print_escaped(out, p.arguments);
                fputc('\n', out);
        }
        if (p.executable) {
                fputs("    Executable: ", out);
                tool_print_escaped(out, p.executable);
                fputc('\n', out);
        }
        fprintf(out, "  Architecture: %s (ELF%d, %s-endian)\n", arch_name(&p, buf, sizeof buf), p.elf_class,
               p.big_endian ? "big" : "little");
        const pkgnote_module *main = pkgnote_core_main_module(c);
        const pkgnote_info *mi = main ? pkgnote_module_info(main) : NULL;
        fputs("       Package: ", out);
        if (mi && pkgnote_info_package_count(mi) > 0) {
                const pkgnote_metadata *m = pkgnote_info_package(mi, 0);
                const char *name = pkgnote_metadata_name(m), *version = pkgnote_metadata_version(m);
                tool_print_escaped(out, name ? name : "(unnamed)");
                if (version) {
                        fputc('/', out);
                        tool_print_escaped(out, version);
                }
                fputc('\n', out);
        } else
                fputs("n/a\n", out);
        fprintf(out, "       Modules: %zu\n", pkgnote_core_module_count(c));
        fputc('\n', out);
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                print_module_text(out, pkgnote_core_module(c, i));
        if (st)
                stack_print_text(st, out);
}

static void core_help(void) {
        printf("Usage: pkgnote core [OPTIONS] CORE\n"
               "\n"
               "Tell which program and which packages were involved in a crash, from a\n"
               "core dump alone: plain, '-' for standard input, or compressed with zstd,\n"
               "xz or lz4 (as systemd-coredump stores them).\n"
               "\n"
               "  -j, --json         one JSON object\n"
               "  -r, --root DIR     resolve module paths inside DIR (a container's root)\n"
               "  -n, --no-disk      never read module files from disk\n"
               "  -a, --all-threads  stack traces of every thread, not just the crashing one\n"
               "  -S, --no-stack     no stack traces: packages and modules only (faster)\n"
               STACK_HELP
               "      --stats        print bytes read from the core on standard error\n"
               "  -h, --help         show this help\n"
               "\n"
               "A module's notes come from the page the kernel dumped; where that lacks\n"
               "them, from the file on disk, used only when its build-id matches.\n"
               "Frames show their source file and line, and inlined calls, where the\n"
               "module's debug info is found: in the module itself, under\n"
               "/usr/lib/debug, or (with --debuginfod) fetched into the debuginfod cache\n"
               "($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).\n");
}

/* The core of the newest crash of the stores that WHAT names (a PID, a
 * command, an entry): 1 with its path in BUF, 0 when none. */
static int find_crash(const char *what, char *buf, size_t len) {
        pkgnote_crash_options o = {.size = sizeof o, .stores = PKGNOTE_CRASH_STORE_PKGNOTE, .match = what};
        pkgnote_crashes *l;
        if (pkgnote_crashes_load(&o, &l) < 0)
                return 0;
        size_t n = pkgnote_crashes_count(l);
        const char *core = n ? pkgnote_crash_core_path(pkgnote_crashes_get(l, n - 1)) : NULL;
        int found = core && strlen(core) < len;
        if (found)
                memcpy(buf, core, strlen(core) + 1);
        pkgnote_crashes_free(l);
        return found;
}

int cmd_core(int argc, char **argv) {
        enum { OPT_STATS = 256 };
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"root", required_argument, NULL, 'r'},
                {"no-disk", no_argument, NULL, 'n'},
                {"all-threads", no_argument, NULL, 'a'},
                {"no-stack", no_argument, NULL, 'S'},
                {"stats", no_argument, NULL, OPT_STATS},
                {"help", no_argument, NULL, 'h'},
                STACK_LONGOPTS,
                {0},
        };
        struct core_opts o = {.lib = PKGNOTE_CORE_OPTIONS_INIT, .stack.lib = PKGNOTE_STACK_OPTIONS_INIT};
        int ch, s;
        while ((ch = tool_getopt(argc, argv, "jr:naSh", longopts)) >= 0) {
                if ((s = stack_option(&o.stack, ch, optarg)) != 0) {
                        if (s < 0)
                                return EXIT_FAILURE_;
                        continue;
                }
                switch (ch) {
                case 'j': o.json = true; break;
                case 'r': o.lib.root = optarg; break;
                case 'n': o.lib.no_disk = 1; break;
                case 'a': o.all_threads = true; break;
                case 'S': o.no_stack = true; break;
                case OPT_STATS: o.stats = true; break;
                case 'h': core_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        }
        if (optind + 1 != argc)
                return tool_fail("core: expected exactly one CORE (see 'pkgnote core --help')");
        if (o.no_stack && o.stack.wanted)
                return tool_fail("core: --no-stack and the --debuginfod options exclude each other");
        const char *path = argv[optind];
        /* Not a file: an entry of 'pkgnote list' (a PID or command name). */
        char entry[4096];
        if (strcmp(path, "-") && access(path, F_OK) < 0 && errno == ENOENT && find_crash(path, entry, sizeof entry) > 0)
                path = entry;
        /* A compressed core is then decompressed once, for the reader and
         * the unwinder both. */
        if (!o.no_stack)
                o.lib.flags |= PKGNOTE_CORE_DECOMPRESS_ONCE;
        pkgnote_core *c;
        int r = pkgnote_core_open(path, &o.lib, &c);
        if (r < 0)
                return tool_error(path, "cannot read core", r);
        /* The unwinder reads the core already open, never PATH again. */
        pkgnote_stack *st = NULL;
        o.stack.lib.flags |= (o.all_threads ? PKGNOTE_STACK_ALL_THREADS : 0) | PKGNOTE_STACK_PROGRESS;
        if (!o.no_stack && (r = pkgnote_core_stack_with(c, &o.stack.lib, &st)) < 0) {
                pkgnote_core_free(c);
                return tool_error(path, "cannot unwind", r);
        }
        int ret = EXIT_OK;
        if (o.json) {
                char *j;
                if ((r = tool_put_json(stdout, pkgnote_core_to_json(c, st, NULL, 0, &j), &j)) < 0)
                        ret = tool_error(path, "cannot write the report", r);
        } else
                print_text(stdout, c, st);
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                tool_warn_ignoring(path, pkgnote_core_problem(c, i)->message);
        if (o.stats)
                fprintf(stderr, "bytes read from core: %" PRIu64 "\n", pkgnote_core_bytes_read(c));
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}

static void pid_help(void) {
        printf("Usage: pkgnote pid [OPTIONS] PID\n"
               "\n"
               "The module report of a running process: every mapped ELF file with its\n"
               "build-id and package notes, read from the files as mapped\n"
               "(/proc/PID/map_files), so a library deleted or replaced on disk since it\n"
               "was loaded shows what is really in memory, and is flagged.\n"
               "\n"
               "  -j, --json         one JSON object\n"
               "  -s, --stack        add the stack trace of the main thread (ptrace: the\n"
               "                     process stops while its threads are unwound)\n"
               "  -a, --all-threads  stack traces of every thread (implies --stack)\n"
               STACK_HELP
               "                     (the --debuginfod options imply --stack)\n"
               "  -h, --help         show this help\n");
}

int cmd_pid(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"stack", no_argument, NULL, 's'},
                {"all-threads", no_argument, NULL, 'a'},
                {"help", no_argument, NULL, 'h'},
                STACK_LONGOPTS,
                {0},
        };
        bool json = false, stack = false;
        struct stack_opts so = {.lib = PKGNOTE_STACK_OPTIONS_INIT};
        int ch, s;
        while ((ch = tool_getopt(argc, argv, "jsah", longopts)) >= 0) {
                if ((s = stack_option(&so, ch, optarg)) != 0) {
                        if (s < 0)
                                return EXIT_FAILURE_;
                        stack = true;
                        continue;
                }
                switch (ch) {
                case 'j': json = true; break;
                case 's': stack = true; break;
                case 'a': stack = true; so.lib.flags |= PKGNOTE_STACK_ALL_THREADS; break;
                case 'h': pid_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        }
        if (optind + 1 != argc)
                return tool_fail("pid: expected exactly one PID (see 'pkgnote pid --help')");
        char *end;
        errno = 0;
        long pid = strtol(argv[optind], &end, 10);
        if (errno || *end || end == argv[optind] || pid <= 0 || pid > INT32_MAX)
                return tool_fail("pid: '%s' is not a process ID", argv[optind]);
        pkgnote_core *c;
        int r = pkgnote_process_open((int)pid, &c);
        if (r < 0)
                return tool_error(argv[optind], "cannot read process", r);
        pkgnote_stack *st = NULL;
        so.lib.flags |= PKGNOTE_STACK_PROGRESS;
        if (stack && (r = pkgnote_core_stack_with(c, &so.lib, &st)) < 0) {
                pkgnote_core_free(c);
                return tool_error(argv[optind], "cannot unwind", r);
        }
        int ret = EXIT_OK;
        if (json) {
                char *j;
                if ((r = tool_put_json(stdout, pkgnote_core_to_json(c, st, NULL, 0, &j), &j)) < 0)
                        ret = tool_error(argv[optind], "cannot write the report", r);
        } else
                print_text(stdout, c, st);
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
