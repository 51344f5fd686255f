/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes of every crash store, like coredumpctl list. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crashopts.h"
#include "tool.h"

static void package_text(const pkgnote_crash *c, char *buf, size_t len) {
        const char *name = pkgnote_crash_package_name(c), *version = pkgnote_crash_package_version(c);
        if (name)
                snprintf(buf, len, "%s%s%s", name, version ? "/" : "", version ? version : "");
        else
                snprintf(buf, len, "n/a");
}

static void list_help(void) {
        printf("Usage: pkgnote list [OPTIONS] [MATCH]\n"
               "\n"
               "The crashes of every crash store, newest last: pkgnote-coredump's store\n"
               "(a crash it also logged to the journal is listed once, as the store's),\n"
               "systemd-coredump's journal entries, and files of systemd-coredump's store\n"
               "no journal entry names.  Columns: TIME, PID, UID, SIG, COREFILE (present,\n"
               "journal: held inline, missing), STORE (pkgnote, journal, systemd), EXE\n"
               "and the executable's PACKAGE.  MATCH: a PID, an executable's path or a\n"
               "command name, or FIELD=VALUE of a journal field (COREDUMP_UNIT=x.service).\n"
               "'pkgnote core MATCH' then reads the newest match.\n"
               "\n"
               "  -j, --json            one JSON object per crash and line\n"
               CRASH_HELP
               "  -h, --help            show this help\n");
}

static const char *core_word(const pkgnote_crash *c) {
        switch (pkgnote_crash_core_state(c)) {
        case PKGNOTE_CRASH_CORE_FILE: return "present";
        case PKGNOTE_CRASH_CORE_JOURNAL: return "journal";
        default: return "missing";
        }
}

int cmd_list(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"help", no_argument, NULL, 'h'},
                CRASH_LONGOPTS,
                {0},
        };
        bool json = false;
        struct crash_opts co = {0};
        int ch, k;
        while ((ch = tool_getopt(argc, argv, "jh" CRASH_SHORTOPTS, longopts)) >= 0) {
                if ((k = crash_option(&co, ch, optarg)) != 0) {
                        if (k < 0) {
                                crash_options_free(&co);
                                return EXIT_FAILURE_;
                        }
                        continue;
                }
                switch (ch) {
                case 'j': json = true; break;
                case 'h': list_help(); crash_options_free(&co); return EXIT_OK;
                default: crash_options_free(&co); return EXIT_FAILURE_;
                }
        }
        if (optind + 1 < argc) {
                crash_options_free(&co);
                return tool_fail("list: unexpected argument '%s'", argv[optind + 1]);
        }
        crash_options_done(&co, optind < argc ? argv[optind] : NULL);
        pkgnote_crashes *l;
        int r = pkgnote_crashes_load(&co.lib, &l);
        crash_options_free(&co);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        size_t n = pkgnote_crashes_count(l);
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        if (!json && n > 0)
                printf("%-23s %7s %5s %4s %-8s %-7s %-32s %s\n", "TIME", "PID", "UID", "SIG", "COREFILE", "STORE", "EXE",
                       "PACKAGE");
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
                const char *sig = pkgnote_crash_signal(c) > 0 ? pkgnote_signal_name(pkgnote_crash_signal(c)) : NULL;
                if (!sig)
                        sig = pkgnote_crash_field(c, "signalName");
                printf("%-23s %7" PRId64 " %5" PRId64 " %4s %-8s %-7s ", when, pkgnote_crash_pid(c), pkgnote_crash_uid(c),
                       sig ? sig : "-", core_word(c), pkgnote_crash_store_name(pkgnote_crash_store(c)));
                const char *exe = pkgnote_crash_field(c, "executable") ? pkgnote_crash_field(c, "executable") : "n/a";
                tool_print_escaped(stdout, exe);
                printf("%*s ", strlen(exe) < 32 ? (int)(32 - strlen(exe)) : 0, "");
                tool_print_escaped(stdout, pkg);
                fputc('\n', stdout);
        }
        if (!json && n == 0)
                fputs("No crashes.\n", stderr);
        pkgnote_crashes_free(l);
        return EXIT_OK;
}
