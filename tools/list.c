/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes of every crash store, like coredumpctl list. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
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

/* The MACHINE column: the crash's hostname, else its machine ID's first
 * 12 digits, else "-", cut to MACHINE_WIDTH bytes (at a UTF-8 character);
 * its width. */
#define MACHINE_WIDTH 20
static int machine_text(const pkgnote_crash *c, char *buf, size_t len) {
        const char *h = pkgnote_crash_field(c, "hostname"), *m = pkgnote_crash_field(c, "machineId");
        if (h && *h)
                snprintf(buf, len, "%s", h);
        else if (m)
                snprintf(buf, len, "%.12s", m);
        else
                snprintf(buf, len, "-");
        /* No character cut in two: a last lead byte without all its
         * continuation bytes goes. */
        size_t n = strlen(buf), i = n;
        while (i > 0 && ((unsigned char)buf[i - 1] & 0xc0) == 0x80)
                i--;
        if (i > 0 && (unsigned char)buf[i - 1] >= 0xc0) {
                unsigned char b = (unsigned char)buf[i - 1];
                size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
                if (n - (i - 1) < need)
                        buf[i - 1] = 0;
        }
        int w = 0;
        for (size_t k = 0; buf[k]; k++)
                w += ((unsigned char)buf[k] & 0xc0) != 0x80;
        return w;
}

static void list_help(void) {
        printf("Usage: pkgnote list [OPTIONS] [MATCH]\n"
               "\n"
               "The crashes of every crash store, newest last: pkgnote-coredump's store\n"
               "(a crash it also logged to the journal is listed once, as the store's),\n"
               "systemd-coredump's journal entries, and files of systemd-coredump's store\n"
               "no journal entry names.  Columns: TIME, PID, UID, SIG, COREFILE (present,\n"
               "journal: held inline, missing), STORE (pkgnote, journal, systemd),\n"
               "MACHINE (when the crashes come from more than one: the hostname, else\n"
               "the machine ID's start), EXE and the executable's PACKAGE.  MATCH: a PID,\n"
               "an executable's path or a command name, or FIELD=VALUE of a journal field\n"
               "(COREDUMP_UNIT=x.service).\n"
               "'pkgnote core MATCH' then reads the newest match.\n"
               "\n"
               "  -j, --json            one JSON object per crash and line\n"
               "      --group[=BY]      count the crashes by signature (the default), package\n"
               "                        or executable: per group its crashes, machines, last\n"
               "                        crash and the versions seen (--json: one document\n"
               "                        with an example crash of each group)\n"
               "      --top N           with --group, only the N largest groups\n"
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

enum { OPT_GROUP = 400, OPT_TOP };

static void when_text(int64_t when, char *buf, size_t len) {
        time_t t = (time_t)when;
        struct tm tm;
        snprintf(buf, len, "?");
        if (gmtime_r(&t, &tm))
                strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* The crashes the options select, one by one into G: the one place that
 * reads the stores, so that a streaming reader can take over the loop. */
static int feed_groups(const pkgnote_crash_options *o, pkgnote_crash_groups *g) {
        pkgnote_crashes *l;
        int r = pkgnote_crashes_load(o, &l);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        bool full = false;
        for (size_t i = 0; i < pkgnote_crashes_count(l); i++) {
                const pkgnote_crash *c = pkgnote_crashes_get(l, i);
                r = pkgnote_crash_groups_add(g, c);
                if (r == -E2BIG) {
                        /* said once: the crashes of groups past the limit */
                        if (!full)
                                tool_warn_ignoring(pkgnote_crash_id(c), pkgnote_last_error());
                        full = true;
                } else if (r < 0) {
                        pkgnote_crashes_free(l);
                        return tool_fail("list: %s", pkgnote_last_error());
                }
        }
        pkgnote_crashes_free(l);
        return 0;
}

/* "1.0-1 x30, 1.1-1 x10; not seen since 1.2-1", escaped. */
static char *versions_text(const pkgnote_crash_group *grp) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        size_t n = pkgnote_crash_group_version_count(grp);
        for (size_t i = 0; i < n; i++) {
                pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
                if (pkgnote_crash_group_version(grp, i, &it) <= 0)
                        break;
                fputs(i ? ", " : "", f);
                tool_print_escaped(f, it.name);
                fprintf(f, " x%" PRIu64, it.count);
        }
        if (n == 0)
                fputs("-", f);
        if (pkgnote_crash_group_not_seen_since(grp)) {
                fputs("; not seen since ", f);
                tool_print_escaped(f, pkgnote_crash_group_not_seen_since(grp));
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

static int print_groups_text(pkgnote_crash_groups *g, size_t top) {
        pkgnote_crash_groups_stats st = PKGNOTE_CRASH_GROUPS_STATS_INIT;
        pkgnote_crash_groups_get_stats(g, &st);
        if (st.crashes == 0) {
                fputs("No crashes.\n", stderr);
                return EXIT_OK;
        }
        size_t n = top && top < st.groups ? top : st.groups;
        char **vt = calloc(n, sizeof *vt);
        if (!vt)
                return tool_oom("list");
        int width = 8;
        for (size_t i = 0; i < n; i++) {
                if (!(vt[i] = versions_text(pkgnote_crash_groups_get(g, i)))) {
                        for (size_t k = 0; k < i; k++)
                                free(vt[k]);
                        free(vt);
                        return tool_oom("list");
                }
                int w = (int)strlen(vt[i]);
                if (w > width)
                        width = w < 48 ? w : 48;
        }
        char first[64], last[64];
        when_text(st.first, first, sizeof first);
        when_text(st.last, last, sizeof last);
        printf("%" PRIu64 " crash%s in %zu group%s by %s, on %zu machine%s, %s to %s%s\n", st.crashes,
               st.crashes == 1 ? "" : "es", st.groups, st.groups == 1 ? "" : "s", pkgnote_crash_group_by_name(st.by),
               st.machines, st.machines == 1 ? "" : "s", first, last,
               n < st.groups ? " (the largest groups shown)" : "");
        printf("%6s %8s %5s %-23s %-*s %s\n", "COUNT", "MACHINES", "BOOTS", "LAST SEEN", width, "VERSIONS",
               st.by == PKGNOTE_GROUP_SIGNATURE ? "SIGNATURE" : st.by == PKGNOTE_GROUP_PACKAGE ? "PACKAGE" : "EXECUTABLE");
        for (size_t i = 0; i < n; i++) {
                const pkgnote_crash_group *grp = pkgnote_crash_groups_get(g, i);
                when_text(pkgnote_crash_group_last(grp), last, sizeof last);
                printf("%6" PRIu64 " %8zu %5" PRIu64 " %-23s %-*s ", pkgnote_crash_group_count(grp),
                       pkgnote_crash_group_machine_count(grp), pkgnote_crash_group_boots(grp), last, width, vt[i]);
                tool_print_escaped(stdout, pkgnote_crash_group_key(grp));
                fputc('\n', stdout);
                free(vt[i]);
        }
        free(vt);
        return EXIT_OK;
}

static int list_groups(const pkgnote_crash_options *o, int by, bool json, size_t top) {
        pkgnote_crash_groups *g;
        if (pkgnote_crash_groups_new(by, &g) < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        int r = feed_groups(o, g);
        if (r != 0) {
                pkgnote_crash_groups_free(g);
                return r;
        }
        if (json) {
                char *s = NULL;
                r = pkgnote_crash_groups_to_json(g, top, &s);
                if (r < 0)
                        r = tool_fail("list: %s", pkgnote_last_error());
                else {
                        puts(s);
                        r = EXIT_OK;
                }
                free(s);
        } else
                r = print_groups_text(g, top);
        pkgnote_crash_groups_free(g);
        return r;
}

int cmd_list(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"group", optional_argument, NULL, OPT_GROUP},
                {"top", required_argument, NULL, OPT_TOP},
                {"help", no_argument, NULL, 'h'},
                CRASH_LONGOPTS,
                {0},
        };
        bool json = false;
        int by = 0;
        size_t top = 0;
        bool top_given = false;
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
                case OPT_GROUP:
                        if (!optarg)
                                by = PKGNOTE_GROUP_SIGNATURE;
                        else if ((by = pkgnote_crash_group_by_from_name(optarg)) < 0) {
                                crash_options_free(&co);
                                return tool_fail("list: --group: %s", pkgnote_last_error());
                        }
                        break;
                case OPT_TOP: {
                        char *end;
                        errno = 0;
                        unsigned long long v = optarg[0] >= '0' && optarg[0] <= '9' ? strtoull(optarg, &end, 10) : 0;
                        if (optarg[0] < '0' || optarg[0] > '9' || errno || *end || v == 0 || v > SIZE_MAX) {
                                crash_options_free(&co);
                                return tool_fail("list: --top takes a number of groups, at least 1, not '%s'", optarg);
                        }
                        top = (size_t)v;
                        top_given = true;
                        break;
                }
                case 'h': list_help(); crash_options_free(&co); return EXIT_OK;
                default: crash_options_free(&co); return EXIT_FAILURE_;
                }
        }
        if (optind + 1 < argc) {
                crash_options_free(&co);
                return tool_fail("list: unexpected argument '%s'", argv[optind + 1]);
        }
        if (top_given && !by) {
                crash_options_free(&co);
                return tool_fail("list: --top needs --group");
        }
        crash_options_done(&co, optind < argc ? argv[optind] : NULL);
        if (by) {
                int r = list_groups(&co.lib, by, json, top);
                crash_options_free(&co);
                return r;
        }
        pkgnote_crashes *l;
        int r = pkgnote_crashes_load(&co.lib, &l);
        crash_options_free(&co);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        size_t n = pkgnote_crashes_count(l);
        /* A MACHINE column when the crashes come from more than one. */
        const char *first = NULL;
        bool machines = false;
        int mw = 7;
        for (size_t i = 0; !json && i < n; i++) {
                const char *m = pkgnote_crash_field(pkgnote_crashes_get(l, i), "machineId");
                if (m && !first)
                        first = m;
                else if (m && strcmp(m, first))
                        machines = true;
        }
        for (size_t i = 0; machines && i < n; i++) {
                char name[MACHINE_WIDTH + 1];
                int w = machine_text(pkgnote_crashes_get(l, i), name, sizeof name);
                mw = w > mw ? w : mw;
        }
        if (!json && n > 0) {
                printf("%-23s %7s %5s %4s %-8s %-7s ", "TIME", "PID", "UID", "SIG", "COREFILE", "STORE");
                if (machines)
                        printf("%-*s ", mw, "MACHINE");
                printf("%-32s %s\n", "EXE", "PACKAGE");
        }
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
                if (machines) {
                        char name[MACHINE_WIDTH + 1];
                        int w = machine_text(c, name, sizeof name);
                        tool_print_escaped(stdout, name);
                        printf("%*s ", mw - w, "");
                }
                const char *exe = pkgnote_crash_field(c, "executable") ? pkgnote_crash_field(c, "executable") : "n/a";
                tool_print_escaped(stdout, exe);
                printf("%*s ", strlen(exe) < 32 ? (int)(32 - strlen(exe)) : 0, "");
                tool_print_escaped(stdout, pkg);
                fputc('\n', stdout);
        }
        /* After the listing: reading a crash's whole record (--json) may
         * meet problems of its own. */
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        if (!json && n == 0)
                fputs("No crashes.\n", stderr);
        pkgnote_crashes_free(l);
        return EXIT_OK;
}
