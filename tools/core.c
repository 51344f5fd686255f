/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote core: which packages were involved in a crash, from the core. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stack.h"
#include "tool.h"

struct core_opts {
        bool json, all_threads, stats;
        pkgnote_core_options lib;
};

/* "deb systemd-252.38-1~deb12u1 (amd64)" from a package note. */
static void print_package_words(const pkgnote_metadata *m) {
        const char *type = pkgnote_metadata_type(m), *name = pkgnote_metadata_name(m);
        const char *version = pkgnote_metadata_version(m), *arch = pkgnote_metadata_architecture(m);
        if (type) {
                tool_print_escaped(stdout, type);
                fputc(' ', stdout);
        }
        tool_print_escaped(stdout, name ? name : "(unnamed)");
        if (version) {
                fputc('-', stdout);
                tool_print_escaped(stdout, version);
        }
        if (arch) {
                fputs(" (", stdout);
                tool_print_escaped(stdout, arch);
                fputc(')', stdout);
        }
}

static void print_module_text(const pkgnote_module *m) {
        const pkgnote_info *info = pkgnote_module_info(m);
        const char *id = pkgnote_module_build_id(m);
        fputs("Module ", stdout);
        tool_print_escaped(stdout, pkgnote_module_path(m));
        if (pkgnote_module_deleted(m))
                fputs(" (deleted)", stdout);
        if (pkgnote_module_replaced(m))
                fputs(" (replaced on disk)", stdout);
        if (info && pkgnote_info_package_count(info) > 0) {
                fputs(" from ", stdout);
                for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                        if (i)
                                fputs(" and ", stdout);
                        print_package_words(pkgnote_info_package(info, i));
                }
        } else if (info)
                fputs(" without package note", stdout);
        else
                fputs(" with package metadata not available", stdout);
        if (id)
                printf(", build-id %s", id);
        if (pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK)
                fputs(" (note read from disk, build-id verified)", stdout);
        fputc('\n', stdout);
        const char *why = pkgnote_module_reason(m);
        if (why && (!info || pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK_MISMATCH ||
                    pkgnote_info_package_count(info) == 0)) {
                fputs("        ", stdout);
                tool_print_escaped(stdout, why);
                fputc('\n', stdout);
        }
}

static const char *arch_name(const pkgnote_process_info *p, char *buf, size_t len) {
        const char *n = pkgnote_machine_name(p->machine, p->elf_class);
        if (n)
                return n;
        snprintf(buf, len, "machine-%u", p->machine);
        return buf;
}

static void print_text(const pkgnote_core *c, const struct stack_report *st) {
        pkgnote_process_info p;
        char buf[32];
        pkgnote_core_process(c, &p);
        if (p.pid >= 0) {
                printf("           PID: %d", p.pid);
                if (p.command) {
                        fputs(" (", stdout);
                        tool_print_escaped(stdout, p.command);
                        fputc(')', stdout);
                }
                fputc('\n', stdout);
        }
        if (p.uid >= 0)
                printf("           UID: %d\n           GID: %d\n", p.uid, p.gid);
        if (p.signal > 0) {
                const char *sn = pkgnote_signal_name(p.signal);
                printf("        Signal: %d (%s)\n", p.signal, sn ? sn : "unknown");
        }
        if (p.has_fault_address)
                printf(" Fault address: 0x%" PRIx64 "\n", p.fault_address);
        if (p.arguments) {
                fputs("  Command Line: ", stdout);
                tool_print_escaped(stdout, p.arguments);
                fputc('\n', stdout);
        }
        if (p.executable) {
                fputs("    Executable: ", stdout);
                tool_print_escaped(stdout, p.executable);
                fputc('\n', stdout);
        }
        printf("  Architecture: %s (ELF%d, %s-endian)\n", arch_name(&p, buf, sizeof buf), p.elf_class,
               p.big_endian ? "big" : "little");
        const pkgnote_module *main = pkgnote_core_main_module(c);
        const pkgnote_info *mi = main ? pkgnote_module_info(main) : NULL;
        fputs("       Package: ", stdout);
        if (mi && pkgnote_info_package_count(mi) > 0) {
                const pkgnote_metadata *m = pkgnote_info_package(mi, 0);
                const char *name = pkgnote_metadata_name(m), *version = pkgnote_metadata_version(m);
                tool_print_escaped(stdout, name ? name : "(unnamed)");
                if (version) {
                        fputc('/', stdout);
                        tool_print_escaped(stdout, version);
                }
                fputc('\n', stdout);
        } else
                fputs("n/a\n", stdout);
        printf("       Modules: %zu\n", pkgnote_core_module_count(c));
        fputc('\n', stdout);
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                print_module_text(pkgnote_core_module(c, i));
        if (st)
                stack_print_text(st, stdout);
}

static void print_packages_json(const pkgnote_info *info) {
        fputc('[', stdout);
        for (size_t i = 0; info && i < pkgnote_info_package_count(info); i++)
                printf("%s%s", i ? "," : "", pkgnote_info_package_json(info, i));
        fputc(']', stdout);
}

static void json_opt_string(const char *key, const char *v) {
        printf(",\"%s\":", key);
        if (v)
                tool_print_json_string(stdout, v);
        else
                fputs("null", stdout);
}

static void json_opt_int(const char *key, int v) {
        if (v >= 0)
                printf(",\"%s\":%d", key, v);
        else
                printf(",\"%s\":null", key);
}

static void print_json(const pkgnote_core *c, const struct stack_report *st) {
        pkgnote_process_info p;
        char buf[32];
        pkgnote_core_process(c, &p);
        printf("{\"pid\":");
        if (p.pid >= 0)
                printf("%d", p.pid);
        else
                fputs("null", stdout);
        json_opt_int("ppid", p.ppid);
        json_opt_int("uid", p.uid);
        json_opt_int("gid", p.gid);
        json_opt_int("signal", p.signal > 0 ? p.signal : -1);
        json_opt_string("signalName", pkgnote_signal_name(p.signal));
        if (p.has_fault_address)
                printf(",\"faultAddress\":\"0x%" PRIx64 "\"", p.fault_address);
        json_opt_string("command", p.command);
        json_opt_string("commandLine", p.arguments);
        json_opt_string("executable", p.executable);
        printf(",\"architecture\":\"%s\",\"elfClass\":%d,\"byteOrder\":\"%s\"", arch_name(&p, buf, sizeof buf),
               p.elf_class, p.big_endian ? "big" : "little");
        const pkgnote_module *main = pkgnote_core_main_module(c);
        const pkgnote_info *mi = main ? pkgnote_module_info(main) : NULL;
        fputs(",\"package\":", stdout);
        if (mi && pkgnote_info_package_count(mi) > 0)
                fputs(pkgnote_info_package_json(mi, 0), stdout);
        else
                fputs("null", stdout);
        fputs(",\"modules\":[", stdout);
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                fputs(i ? ",{\"path\":" : "{\"path\":", stdout);
                tool_print_json_string(stdout, pkgnote_module_path(m));
                printf(",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\"", pkgnote_module_start(m),
                       pkgnote_module_end(m));
                json_opt_string("buildId", pkgnote_module_build_id(m));
                fputs(",\"packages\":", stdout);
                print_packages_json(pkgnote_module_info(m));
                printf(",\"source\":\"%s\"", pkgnote_source_name(pkgnote_module_source(m)));
                if (pkgnote_module_source(m) == PKGNOTE_SOURCE_DISK_MISMATCH)
                        json_opt_string("diskBuildId", pkgnote_module_disk_build_id(m));
                if (pkgnote_module_deleted(m))
                        fputs(",\"deleted\":true", stdout);
                if (pkgnote_module_replaced(m))
                        fputs(",\"replaced\":true", stdout);
                if (pkgnote_module_is_vdso(m))
                        fputs(",\"vdso\":true", stdout);
                if (pkgnote_module_reason(m))
                        json_opt_string("reason", pkgnote_module_reason(m));
                fputc('}', stdout);
        }
        fputs("]", stdout);
        if (st) {
                fputs(",\"threads\":", stdout);
                stack_print_json(st, c, stdout);
        }
        fputs("}\n", stdout);
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
               "      --stats        print bytes read from the core on standard error\n"
               "  -h, --help         show this help\n"
               "\n"
               "A module's notes come from the page the kernel dumped; where that lacks\n"
               "them, from the file on disk, used only when its build-id matches.\n");
}

int cmd_core(int argc, char **argv) {
        enum { OPT_STATS = 256 };
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"root", required_argument, NULL, 'r'},
                {"no-disk", no_argument, NULL, 'n'},
                {"all-threads", no_argument, NULL, 'a'},
                {"stats", no_argument, NULL, OPT_STATS},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct core_opts o = {0};
        int ch;
        while ((ch = getopt_long(argc, argv, "jr:nah", longopts, NULL)) >= 0)
                switch (ch) {
                case 'j': o.json = true; break;
                case 'r': o.lib.root = optarg; break;
                case 'n': o.lib.no_disk = 1; break;
                case 'a': o.all_threads = true; break;
                case OPT_STATS: o.stats = true; break;
                case 'h': core_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (optind + 1 != argc)
                return tool_fail("core: expected exactly one CORE (see 'pkgnote core --help')");
        const char *path = argv[optind];
        pkgnote_core *c;
        int r = pkgnote_core_open(path, &o.lib, &c);
        if (r < 0)
                return tool_error(path, "cannot read core", r);
        struct stack_report st;
        stack_collect(&st, path, c, o.all_threads);
        if (o.json)
                print_json(c, &st);
        else
                print_text(c, &st);
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++) {
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fputs("': ", stderr);
                tool_print_escaped(stderr, pkgnote_core_problem(c, i));
                fputs(", ignoring\n", stderr);
        }
        if (o.stats)
                fprintf(stderr, "bytes read from core: %" PRIu64 "\n", pkgnote_core_bytes_read(c));
        stack_free(&st);
        pkgnote_core_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return EXIT_OK;
}

static void pid_help(void) {
        printf("Usage: pkgnote pid [--json] PID\n"
               "\n"
               "The module report of a running process: every mapped ELF file with its\n"
               "build-id and package notes, read from the files as mapped\n"
               "(/proc/PID/map_files), so a library deleted or replaced on disk since it\n"
               "was loaded shows what is really in memory, and is flagged.\n"
               "\n"
               "  -j, --json   one JSON object\n"
               "  -h, --help   show this help\n");
}

int cmd_pid(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        bool json = false;
        int ch;
        while ((ch = getopt_long(argc, argv, "jh", longopts, NULL)) >= 0)
                switch (ch) {
                case 'j': json = true; break;
                case 'h': pid_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
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
        if (json)
                print_json(c, NULL);
        else
                print_text(c, NULL);
        pkgnote_core_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return EXIT_OK;
}
