/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes pkgnote-coredump collected, like coredumpctl list. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool.h"

static void package_text(const pkgnote_crash *c, char *buf, size_t len) {
        const char *name = pkgnote_crash_package_name(c), *version = pkgnote_crash_package_version(c);
        if (name)
                snprintf(buf, len, "%s%s%s", name, version ? "/" : "", version ? version : "");
        else
                snprintf(buf, len, "n/a");
}

static void list_help(void) {
        printf("Usage: pkgnote list [--json] [--state-dir DIR]\n"
               "\n"
               "The crashes collected by pkgnote-coredump, oldest first: TIME, PID, UID,\n"
               "SIG, EXE and the executable's PACKAGE.  'pkgnote core PID' or\n"
               "'pkgnote core COMM' then reads the newest matching entry.\n"
               "\n"
               "  -j, --json            one JSON object per crash and line\n"
               "  -d, --state-dir DIR   default $PKGNOTE_COREDUMP_DIR, else %s\n"
               "  -h, --help            show this help\n",
               "/var/lib/pkgnote/coredump");
}

int cmd_list(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"state-dir", required_argument, NULL, 'd'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        bool json = false;
        const char *dir = NULL;
        int ch;
        while ((ch = tool_getopt(argc, argv, "jd:h", longopts)) >= 0)
                switch (ch) {
                case 'j': json = true; break;
                case 'd': dir = optarg; break;
                case 'h': list_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (optind != argc)
                return tool_fail("list: unexpected argument '%s'", argv[optind]);
        pkgnote_crash_options o = {.size = sizeof o, .stores = PKGNOTE_CRASH_STORE_PKGNOTE, .pkgnote_dir = dir};
        pkgnote_crashes *l;
        int r = pkgnote_crashes_load(&o, &l);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        size_t n = pkgnote_crashes_count(l);
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        if (!json && n > 0)
                printf("%-23s %7s %5s %4s %-32s %s\n", "TIME", "PID", "UID", "SIG", "EXE", "PACKAGE");
        for (size_t i = 0; i < n; i++) {
                const pkgnote_crash *c = pkgnote_crashes_get(l, i);
                if (json) {
                        char *s;
                        if (pkgnote_crash_to_json(c, &s) == 0)
                                puts(s);
                        free(s);
                        continue;
                }
                char pkg[256];
                package_text(c, pkg, sizeof pkg);
                char when[64] = "?";
                time_t t = (time_t)pkgnote_crash_time(c);
                struct tm tm;
                if (gmtime_r(&t, &tm))
                        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
                const char *sig = pkgnote_crash_field(c, "signalName");
                printf("%-23s %7" PRId64 " %5" PRId64 " %4s ", when, pkgnote_crash_pid(c), pkgnote_crash_uid(c),
                       sig ? sig : "-");
                const char *exe = pkgnote_crash_field(c, "executable") ? pkgnote_crash_field(c, "executable") : "n/a";
                tool_print_escaped(stdout, exe);
                printf("%*s ", strlen(exe) < 32 ? (int)(32 - strlen(exe)) : 0, "");
                tool_print_escaped(stdout, pkg);
                fputc('\n', stdout);
        }
        if (!json && n == 0) {
                const char *shown = dir ? dir : getenv("PKGNOTE_COREDUMP_DIR");
                fputs("No crashes in ", stderr);
                tool_print_escaped(stderr, shown && *shown ? shown : "/var/lib/pkgnote/coredump");
                fputs(".\n", stderr);
        }
        pkgnote_crashes_free(l);
        return EXIT_OK;
}
