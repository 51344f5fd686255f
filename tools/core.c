/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote core: which packages were involved in a crash, from the core. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crashopts.h"
#include "stack.h"
#include "tool.h"

struct core_opts {
        bool json, systemd, all_threads, stats, no_stack;
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

/* "deb zlib1g-1:1.2.13.dfsg-1 (amd64)": the package the database names. */
static void print_db_words(FILE *out, const pkgnote_module *m) {
        tool_print_escaped(out, pkgnote_module_db_type(m));
        fputc(' ', out);
        tool_print_escaped(out, pkgnote_module_db_name(m));
        fputc('-', out);
        tool_print_escaped(out, pkgnote_module_db_version(m));
        fputs(" (", out);
        tool_print_escaped(out, pkgnote_module_db_architecture(m));
        fputc(')', out);
}

/* What the package database said, when it is not the module's package
 * line: the owner of a file other than the one mapped, or a package the
 * note contradicts. */
static void print_db_line(FILE *out, const pkgnote_module *m) {
        int state = pkgnote_module_db_state(m);
        if (pkgnote_module_db_mismatch(m)) {
                fputs("        the package database says ", out);
                print_db_words(out, m);
                fputs("; the note is used\n", out);
                return;
        }
        if (state != PKGNOTE_DB_REPLACED && state != PKGNOTE_DB_DELETED && state != PKGNOTE_DB_UNVERIFIED)
                return;
        fputs(state == PKGNOTE_DB_REPLACED   ? "        replaced on disk since it was loaded"
              : state == PKGNOTE_DB_DELETED  ? "        deleted from disk since it was loaded"
                                             : "        the file on disk cannot be verified (no build-id)",
              out);
        if (pkgnote_module_db_name(m)) {
                fputs("; installed there now: ", out);
                print_db_words(out, m);
                fputs(", not claimed for this module", out);
        }
        fputc('\n', out);
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
        } else if (pkgnote_module_package_origin(m) == PKGNOTE_ORIGIN_DATABASE) {
                fputs(" from ", out);
                print_db_words(out, m);
                fputs(" (package database)", out);
        } else if (info)
                fputs(" without package note", out);
        else
                fputs(" with package metadata not available", out);
        if (id)
                fprintf(out, ", build-id %s", id);
        if (pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK && pkgnote_module_package_origin(m) != PKGNOTE_ORIGIN_DATABASE)
                fputs(" (note read from disk, build-id verified)", out);
        fputc('\n', out);
        const char *why = pkgnote_module_reason(m);
        if (why && pkgnote_module_package_origin(m) != PKGNOTE_ORIGIN_DATABASE &&
            (!info || pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK_MISMATCH || pkgnote_info_package_count(info) == 0)) {
                fputs("        ", out);
                tool_print_escaped(out, why);
                fputc('\n', out);
        }
        print_db_line(out, m);
}

static const char *arch_name(const pkgnote_process_info *p, char *buf, size_t len) {
        const char *n = pkgnote_machine_name(p->machine, p->elf_class);
        if (n)
                return n;
        snprintf(buf, len, "machine-%u", p->machine);
        return buf;
}

static void print_text(FILE *out, const pkgnote_core *c, const pkgnote_stack *st) {
        pkgnote_process_info p = {.size = sizeof p};
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
        } else if (main && pkgnote_module_package_origin(main) == PKGNOTE_ORIGIN_DATABASE) {
                tool_print_escaped(out, pkgnote_module_db_name(main));
                fputc('/', out);
                tool_print_escaped(out, pkgnote_module_db_version(main));
                fputs(" (package database)\n", out);
        } else
                fputs("n/a\n", out);
        fprintf(out, "       Modules: %zu\n", pkgnote_core_module_count(c));
        fputc('\n', out);
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                print_module_text(out, pkgnote_core_module(c, i));
        if (st) {
                stack_print_text(st, out);
                pkgnote_signature *sig;
                if (pkgnote_signature_from_stack(c, st, &sig) == 0) {
                        fputs("\nSignature: ", out);
                        tool_print_escaped(out, pkgnote_signature_text(sig));
                        fprintf(out, " [%s]\n", pkgnote_signature_hash(sig));
                        pkgnote_signature_free(sig);
                }
        }
}

static void core_help(void) {
        printf("Usage: pkgnote core [OPTIONS] CORE|MATCH\n"
               "\n"
               "Tell which program and which packages were involved in a crash, from a\n"
               "core dump alone: plain, '-' for standard input, or compressed with zstd,\n"
               "xz or lz4 (as systemd-coredump stores them).  MATCH (a PID, command or\n"
               "executable path; with -D or --file always) opens the newest matching\n"
               "crash of the crash stores ('pkgnote list'), adding what the store knows;\n"
               "when its core is gone, that alone is reported and the exit status is 1.\n"
               "\n"
               "  -j, --json         one JSON object\n"
               "      --format F     text, json (as --json) or systemd: the object\n"
               "                     systemd-coredump logs as COREDUMP_PACKAGE_JSON\n"
               "                     (implies --no-stack)\n"
               "  -r, --root DIR     resolve module paths inside DIR (a container's root)\n"
               "  -n, --no-disk      never read module files from disk (nor the package database)\n"
               "      --no-database  never ask the package database about modules without a note\n"
               "  -a, --all-threads  stack traces of every thread, not just the crashing one\n"
               "  -S, --no-stack     no stack traces: packages and modules only (faster)\n"
               STACK_HELP
               "      --stats        print bytes read from the core on standard error\n"
               "Crash stores, for MATCH:\n"
               CRASH_HELP
               "  -h, --help         show this help\n"
               "\n"
               "A module's notes come from the page the kernel dumped; where that lacks\n"
               "them, from the file on disk, used only when its build-id matches.  A module\n"
               "without a package note gets the package that owns its file in the package\n"
               "database of the root (dpkg, rpm), only when the file there has the core's\n"
               "build-id; each module says where its package came from.\n"
               "Frames show their source file and line, and inlined calls, where the\n"
               "module's debug info is found: in the module itself, under\n"
               "/usr/lib/debug, or (with --debuginfod) fetched into the debuginfod cache\n"
               "($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).\n");
}

static void print_field(FILE *out, const char *label, const char *value) {
        if (!value)
                return;
        fprintf(out, "%14s: ", label);
        tool_print_escaped(out, value);
        fputc('\n', out);
}

/* What the store knows of CRASH beyond its core; all of it when the core
 * C is gone (NULL). */
static void print_crash_text(FILE *out, const pkgnote_crash *crash, const pkgnote_core *c) {
        print_field(out, "Store", pkgnote_crash_store_name(pkgnote_crash_store(crash)));
        const char *file = pkgnote_crash_field(crash, "coreFile");
        switch (pkgnote_crash_core_state(crash)) {
        case PKGNOTE_CRASH_CORE_FILE: print_field(out, "Core", pkgnote_crash_core_path(crash)); break;
        case PKGNOTE_CRASH_CORE_JOURNAL: print_field(out, "Core", "in the journal entry"); break;
        case PKGNOTE_CRASH_CORE_REJECTED:
                fputs("          Core: rejected (", out);
                tool_print_escaped(out, pkgnote_crash_field(crash, "reason") ? pkgnote_crash_field(crash, "reason") : "over quota");
                fputs("): only its metadata was kept\n", out);
                break;
        default:
                fputs("          Core: gone", out);
                if (file) {
                        fputs(" (", out);
                        tool_print_escaped(out, file);
                        fputs(" no longer exists)", out);
                }
                fputc('\n', out);
        }
        char when[64] = "?";
        time_t t = (time_t)pkgnote_crash_time(crash);
        struct tm tm;
        if (gmtime_r(&t, &tm))
                strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        print_field(out, "Time", when);
        print_field(out, "Boot ID", pkgnote_crash_field(crash, "bootId"));
        print_field(out, "Hostname", pkgnote_crash_field(crash, "hostname"));
        const char *krel = pkgnote_crash_field(crash, "kernelRelease"), *kid = pkgnote_crash_field(crash, "kernelBuildId");
        if (krel || kid) {
                fputs("        Kernel: ", out);
                tool_print_escaped(out, krel ? krel : "?");
                if (kid) {
                        fputs(" (build-id ", out);
                        tool_print_escaped(out, kid);
                        fputc(')', out);
                }
                fputc('\n', out);
        }
        print_field(out, "Unit", pkgnote_crash_field(crash, "unit"));
        print_field(out, "User Unit", pkgnote_crash_field(crash, "userUnit"));
        print_field(out, "Slice", pkgnote_crash_field(crash, "slice"));
        print_field(out, "Cgroup", pkgnote_crash_field(crash, "cgroup"));
        if (c)
                return;
        if (pkgnote_crash_pid(crash) >= 0) {
                fprintf(out, "           PID: %" PRId64, pkgnote_crash_pid(crash));
                if (pkgnote_crash_field(crash, "command")) {
                        fputs(" (", out);
                        tool_print_escaped(out, pkgnote_crash_field(crash, "command"));
                        fputc(')', out);
                }
                fputc('\n', out);
        }
        if (pkgnote_crash_uid(crash) >= 0)
                fprintf(out, "           UID: %" PRId64 "\n", pkgnote_crash_uid(crash));
        if (pkgnote_crash_signal(crash) > 0) {
                const char *sn = pkgnote_signal_name(pkgnote_crash_signal(crash));
                fprintf(out, "        Signal: %d (%s)\n", pkgnote_crash_signal(crash), sn ? sn : "unknown");
        }
        print_field(out, "Command Line", pkgnote_crash_field(crash, "commandLine"));
        print_field(out, "Executable", pkgnote_crash_field(crash, "executable"));
        const char *name = pkgnote_crash_package_name(crash), *version = pkgnote_crash_package_version(crash);
        fputs("       Package: ", out);
        tool_print_escaped(out, name ? name : "n/a");
        if (name && version) {
                fputc('/', out);
                tool_print_escaped(out, version);
        }
        fputs(" (as the store recorded it)\n", out);
}

/* The store's fields of CRASH as members of the core's JSON report. */
static size_t crash_members(const pkgnote_crash *crash, pkgnote_json_member *m) {
        static const char *const keys[] = {"bootId",  "hostname", "unit",          "userUnit",
                                           "slice",   "cgroup",   "kernelRelease", "kernelBuildId"};
        size_t n = 0;
        int state = pkgnote_crash_core_state(crash);
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "store", .string = pkgnote_crash_store_name(pkgnote_crash_store(crash))};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "core", .string = state == PKGNOTE_CRASH_CORE_FILE ? "file" : "journal"};
        if (pkgnote_crash_core_path(crash))
                m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "coreFile", .string = pkgnote_crash_core_path(crash)};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "time", .number = pkgnote_crash_time(crash)};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
                if (pkgnote_crash_field(crash, keys[i]))
                        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = keys[i], .string = pkgnote_crash_field(crash, keys[i])};
        return n;
}

int cmd_core(int argc, char **argv) {
        enum { OPT_STATS = 256, OPT_FORMAT, OPT_NO_DATABASE };
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"root", required_argument, NULL, 'r'},
                {"no-disk", no_argument, NULL, 'n'},
                {"all-threads", no_argument, NULL, 'a'},
                {"no-stack", no_argument, NULL, 'S'},
                {"stats", no_argument, NULL, OPT_STATS},
                {"format", required_argument, NULL, OPT_FORMAT},
                {"no-database", no_argument, NULL, OPT_NO_DATABASE},
                {"help", no_argument, NULL, 'h'},
                STACK_LONGOPTS,
                CRASH_LONGOPTS,
                {0},
        };
        struct core_opts o = {.lib = PKGNOTE_CORE_OPTIONS_INIT, .stack.lib = PKGNOTE_STACK_OPTIONS_INIT};
        struct crash_opts co = {0};
        int ch, s;
        while ((ch = tool_getopt(argc, argv, "jr:naSh" CRASH_SHORTOPTS, longopts)) >= 0) {
                if ((s = stack_option(&o.stack, ch, optarg)) != 0 || (s = crash_option(&co, ch, optarg)) != 0) {
                        if (s < 0) {
                                crash_options_free(&co);
                                return EXIT_FAILURE_;
                        }
                        continue;
                }
                switch (ch) {
                case 'j': o.json = true; break;
                case 'r': o.lib.root = optarg; break;
                case 'n': o.lib.no_disk = 1; break;
                case 'a': o.all_threads = true; break;
                case 'S': o.no_stack = true; break;
                case OPT_STATS: o.stats = true; break;
                case OPT_FORMAT:
                        if (tool_parse_format(optarg, &o.json, &o.systemd) < 0) {
                                crash_options_free(&co);
                                return EXIT_FAILURE_;
                        }
                        break;
                case OPT_NO_DATABASE: o.lib.no_database = 1; break;
                case 'h': core_help(); crash_options_free(&co); return EXIT_OK;
                default: crash_options_free(&co); return EXIT_FAILURE_;
                }
        }
        if (optind + 1 != argc) {
                crash_options_free(&co);
                return tool_fail("core: expected exactly one CORE (see 'pkgnote core --help')");
        }
        if ((o.no_stack || o.systemd) && o.stack.wanted) {
                crash_options_free(&co);
                return tool_fail("core: --no-stack (or --format systemd) and the --debuginfod options exclude each other");
        }
        o.no_stack |= o.systemd; /* systemd's object holds no stack */
        const char *path = argv[optind];
        /* Not a file (or a journal named): the newest crash of the stores
         * that MATCH names, a PID, command or executable path. */
        pkgnote_crashes *l = NULL;
        const pkgnote_crash *crash = NULL;
        int r;
        if (strcmp(path, "-") && ((co.lib.journal_dir || co.files) || (access(path, F_OK) < 0 && errno == ENOENT))) {
                crash_options_done(&co, path);
                r = pkgnote_crashes_load(&co.lib, &l);
                if (r < 0) {
                        crash_options_free(&co);
                        return tool_fail("core: %s", pkgnote_last_error());
                }
                for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                        const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                        tool_warn_ignoring(p->path ? p->path : "", p->message);
                }
                size_t n = pkgnote_crashes_count(l);
                crash = n ? pkgnote_crashes_get(l, n - 1) : NULL;
        }
        bool journal_named = co.lib.journal_dir || co.files;
        crash_options_free(&co);
        if (!crash && journal_named) {
                pkgnote_crashes_free(l);
                return tool_fail("core: no crash matches '%s'", path);
        }
        /* A compressed core is then decompressed once, for the reader and
         * the unwinder both. */
        if (!o.no_stack)
                o.lib.flags |= PKGNOTE_CORE_DECOMPRESS_ONCE;
        pkgnote_core *c;
        r = crash ? pkgnote_crash_open(crash, &o.lib, &c) : pkgnote_core_open(path, &o.lib, &c);
        if (r == -ENODATA && crash) {
                /* The store still knows the crash: its report, without
                 * modules; exit 1 says the core was not read. */
                int ret = EXIT_NOTFOUND;
                /* Taken now: the report's own calls clear it. */
                char why[512];
                snprintf(why, sizeof why, "%s", pkgnote_last_error());
                if (o.json) {
                        char *j;
                        if ((r = tool_put_json(stdout, pkgnote_crash_to_json(crash, &j), &j)) < 0)
                                ret = tool_error(path, "cannot write the report", r);
                } else
                        print_crash_text(stdout, crash, NULL);
                fputs("pkgnote: '", stderr);
                tool_print_escaped(stderr, path);
                fputs("': ", stderr);
                tool_print_escaped(stderr, why);
                fputs("; the report holds what the store recorded\n", stderr);
                pkgnote_crashes_free(l);
                if (fflush(stdout) != 0)
                        return tool_fail("cannot write output: %s", strerror(errno));
                return ret;
        }
        if (r < 0) {
                pkgnote_crashes_free(l);
                return tool_error(path, "cannot read core", r);
        }
        /* The unwinder reads the core already open, never PATH again. */
        pkgnote_stack *st = NULL;
        o.stack.lib.flags |= o.all_threads ? PKGNOTE_STACK_ALL_THREADS : 0;
        stack_show_progress(&o.stack);
        if (!o.no_stack && (r = pkgnote_core_stack_with(c, &o.stack.lib, &st)) < 0) {
                pkgnote_core_free(c);
                pkgnote_crashes_free(l);
                return tool_error(path, "cannot unwind", r);
        }
        int ret = EXIT_OK;
        if (o.json || o.systemd) {
                char *j;
                pkgnote_json_member m[16];
                size_t nm = crash && !o.systemd ? crash_members(crash, m) : 0;
                r = o.systemd ? pkgnote_core_to_systemd_json(c, 0, &j) : pkgnote_core_to_json(c, st, nm ? m : NULL, nm, &j);
                if ((r = tool_put_json(stdout, r, &j)) < 0)
                        ret = tool_error(path, "cannot write the report", r);
        } else {
                if (crash)
                        print_crash_text(stdout, crash, c);
                print_text(stdout, c, st);
        }
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                tool_warn_ignoring(path, pkgnote_core_problem(c, i)->message);
        if (o.stats)
                fprintf(stderr, "bytes read from core: %" PRIu64 "\n", pkgnote_core_bytes_read(c));
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
        pkgnote_crashes_free(l);
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
               "was loaded shows what is really in memory, and is flagged.  A module\n"
               "without a package note gets the package that owns its file in the package\n"
               "database (dpkg, rpm) of the root the process runs in (/proc/PID/root: '/'\n"
               "for a process of the host, the chroot or container root otherwise), only\n"
               "while the file at its path there is the one mapped (same device and inode).\n"
               "\n"
               "  -j, --json         one JSON object, with the running kernel (\"kernel\":\n"
               "                     release, build-id, package, needs-reboot, as 'pkgnote\n"
               "                     ps --kernel --json' gives it, without the modules)\n"
               "  -r, --root DIR     the package database of DIR, not of the process's root\n"
               "      --no-database  never ask the package database\n"
               "  -s, --stack        add the stack trace of the main thread (ptrace: the\n"
               "                     process stops while its threads are unwound)\n"
               "  -a, --all-threads  stack traces of every thread (implies --stack)\n"
               STACK_HELP
               "                     (the --debuginfod options imply --stack)\n"
               "  -h, --help         show this help\n");
}

int cmd_pid(int argc, char **argv) {
        enum { OPT_NO_DATABASE = 256 };
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"root", required_argument, NULL, 'r'},
                {"no-database", no_argument, NULL, OPT_NO_DATABASE},
                {"stack", no_argument, NULL, 's'},
                {"all-threads", no_argument, NULL, 'a'},
                {"help", no_argument, NULL, 'h'},
                STACK_LONGOPTS,
                {0},
        };
        bool json = false, stack = false;
        struct stack_opts so = {.lib = PKGNOTE_STACK_OPTIONS_INIT};
        pkgnote_core_options co = PKGNOTE_CORE_OPTIONS_INIT;
        int ch, s;
        while ((ch = tool_getopt(argc, argv, "jr:sah", longopts)) >= 0) {
                if ((s = stack_option(&so, ch, optarg)) != 0) {
                        if (s < 0)
                                return EXIT_FAILURE_;
                        stack = true;
                        continue;
                }
                switch (ch) {
                case 'j': json = true; break;
                case 'r': co.root = optarg; break;
                case OPT_NO_DATABASE: co.no_database = 1; break;
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
        int r = pkgnote_process_open_with((int)pid, &co, &c);
        if (r < 0)
                return tool_error(argv[optind], "cannot read process", r);
        pkgnote_stack *st = NULL;
        stack_show_progress(&so);
        if (stack && (r = pkgnote_core_stack_with(c, &so.lib, &st)) < 0) {
                pkgnote_core_free(c);
                return tool_error(argv[optind], "cannot unwind", r);
        }
        int ret = EXIT_OK;
        if (json) {
                /* A live process's report is made on its machine: the
                 * kernel it runs on is this one's (a core's may not be). */
                char *kj, *j;
                r = tool_kernel_json(0, &kj);
                if (r == -ENOMEM) {
                        pkgnote_stack_free(st);
                        pkgnote_core_free(c);
                        return tool_oom("pid");
                }
                if (r < 0)
                        tool_warn_ignoring("/sys/kernel", pkgnote_last_error());
                pkgnote_json_member kernel[] = {PKGNOTE_JSON_VALUE("kernel", kj)};
                r = pkgnote_core_to_json(c, st, kernel, kj ? 1 : 0, &j);
                if (r < 0 && r != -ENOMEM && kj) {
                        /* a kernel over the report's limits is left out, not the report */
                        tool_warn_ignoring("/sys/kernel", pkgnote_last_error());
                        r = pkgnote_core_to_json(c, st, NULL, 0, &j);
                }
                if ((r = tool_put_json(stdout, r, &j)) < 0)
                        ret = tool_error(argv[optind], "cannot write the report", r);
                free(kj);
        } else
                print_text(stdout, c, st);
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                tool_warn_ignoring(argv[optind], pkgnote_core_problem(c, i)->message);
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
