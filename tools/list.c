/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes of every crash store, like coredumpctl list. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crashopts.h"
#include "list-html.h"
#include "output.h"
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
               "      --format FMT      text (the default), json (as --json), or html with\n"
               "                        --group: one self-contained page of the groups, a\n"
               "                        chart of each group's crashes per day and version,\n"
               "                        its machines and its example crash\n"
               "  -o, --output FILE     write the page to FILE (replaced whole or not at all)\n"
               CRASH_HELP
               "  -h, --help            show this help\n");
}

static const char *core_word(const pkgnote_crash *c) {
        switch (pkgnote_crash_core_state(c)) {
        case PKGNOTE_CRASH_CORE_FILE: return "present";
        case PKGNOTE_CRASH_CORE_JOURNAL: return "journal";
        case PKGNOTE_CRASH_CORE_REJECTED: return "rejected (quota)";
        default: return "missing";
        }
}

enum { OPT_GROUP = 400, OPT_TOP, OPT_FORMAT };

static void when_text(int64_t when, char *buf, size_t len) {
        time_t t = (time_t)when;
        struct tm tm;
        snprintf(buf, len, "?");
        if (gmtime_r(&t, &tm))
                strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* The crashes the options select, one at a time into G, streamed
 * (pkgnote_crashes_open()): what is held grows with the groups, never
 * with the journal's entries. */
static int feed_groups(const pkgnote_crash_options *o, pkgnote_crash_groups *g) {
        pkgnote_crashes *l;
        int r = pkgnote_crashes_open(o, &l);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        bool full = false;
        const pkgnote_crash *c;
        while ((r = pkgnote_crashes_next(l, &c)) > 0) {
                r = pkgnote_crash_groups_add(g, c);
                if (r == -E2BIG) {
                        /* said once: the crashes of groups past the limit */
                        if (!full)
                                tool_warn_ignoring(pkgnote_crash_id(c), pkgnote_last_error());
                        full = true;
                } else if (r < 0)
                        break;
        }
        int ret = r < 0 ? tool_fail("list: %s", pkgnote_last_error()) : 0;
        /* the problems met, after the crashes (a journal entry's fields
         * are read when a group needs them) */
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        pkgnote_crashes_free(l);
        return ret;
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
        /* one crash of each group, by the id pkgnote core takes */
        printf("\nAn example of each group (pkgnote core, with the same store options, opens it by its ID):\n");
        for (size_t i = 0; i < n; i++) {
                const char *id = pkgnote_crash_group_example_id(pkgnote_crash_groups_get(g, i));
                printf("%6zu ", i + 1);
                tool_print_escaped(stdout, id && *id ? id : "-");
                fputc('\n', stdout);
        }
        return EXIT_OK;
}

/* The page lists the modules of the example crash's core, while the store
 * has it, for this many of the largest groups: each is one core to read. */
#define LIST_HTML_CORES 5

/* The core reports (pkgnote_core_to_json()) of the examples of the first
 * N groups of G into CORES[0..N-1], NULL where the core is gone or does
 * not open (said, ", ignoring"): the stores are read once more, as a
 * stream, for the examples by their ids.  0 or -ENOMEM. */
static int example_cores(const pkgnote_crash_options *o, pkgnote_crash_groups *g, size_t n, char **cores) {
        pkgnote_crashes *l;
        if (pkgnote_crashes_open(o, &l) < 0)
                return 0; /* read a moment ago: the page goes without modules */
        const pkgnote_crash *c;
        size_t found = 0;
        int r = 0;
        while (found < n && pkgnote_crashes_next(l, &c) > 0) {
                if (pkgnote_crash_core_state(c) == PKGNOTE_CRASH_CORE_GONE)
                        continue;
                for (size_t j = 0; j < n; j++) {
                        const char *id = pkgnote_crash_group_example_id(pkgnote_crash_groups_get(g, j));
                        if (cores[j] || !id || strcmp(id, pkgnote_crash_id(c)) != 0)
                                continue;
                        pkgnote_core_options co = PKGNOTE_CORE_OPTIONS_INIT;
                        pkgnote_core *core;
                        found++;
                        r = pkgnote_crash_open(c, &co, &core);
                        if (r >= 0) {
                                r = pkgnote_core_to_json(core, NULL, NULL, 0, &cores[j]);
                                pkgnote_core_free(core);
                        }
                        if (r == -ENOMEM)
                                goto out;
                        if (r < 0)
                                tool_warn_ignoring(id, pkgnote_last_error());
                        r = 0;
                }
        }
out:
        pkgnote_crashes_free(l);
        return r;
}

/* The group document G as a page (list-html.h) into OUTPUT. */
static int write_groups_html(const pkgnote_crash_options *o, pkgnote_crash_groups *g, size_t top,
                             const char *output) {
        char *doc = NULL, *page = NULL;
        size_t len = 0;
        char why[256] = "";
        int r = pkgnote_crash_groups_to_json(g, top, &doc);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        pkgnote_crash_groups_stats st = PKGNOTE_CRASH_GROUPS_STATS_INIT;
        pkgnote_crash_groups_get_stats(g, &st);
        size_t n = top && top < st.groups ? top : st.groups;
        char *cores[LIST_HTML_CORES] = {0};
        if (n > LIST_HTML_CORES)
                n = LIST_HTML_CORES;
        r = example_cores(o, g, n, cores);
        if (r == 0)
                r = list_html_render(doc, strlen(doc), (const char *const *)cores, n, &page, &len, why, sizeof why);
        free(doc);
        for (size_t i = 0; i < n; i++)
                free(cores[i]);
        if (r == -ENOMEM)
                return tool_oom("list");
        if (r < 0)
                /* The library's document, which the page cannot read. */
                return tool_fail("list: cannot make the page: %s", why);
        r = tool_write_output(output, PN_OUT_STDIO, page, len, "cannot write the page");
        free(page);
        return r;
}

static int list_groups(const pkgnote_crash_options *o, int by, bool json, bool html, const char *output, size_t top) {
        pkgnote_crash_groups *g;
        if (pkgnote_crash_groups_new(by, &g) < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        int r = feed_groups(o, g);
        if (r != 0) {
                pkgnote_crash_groups_free(g);
                return r;
        }
        if (html)
                r = write_groups_html(o, g, top, output);
        else if (json) {
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

/* One crash's line, kept until the crashes are sorted: HEAD up to the
 * MACHINE column, TAIL after it (or HEAD the JSON line). */
struct row {
        int64_t time;
        char *id, *head, *tail, *machine_id;
        char machine[MACHINE_WIDTH + 1];
        int width;
};

static int cmp_row(const void *a, const void *b) {
        const struct row *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->id, y->id);
}

static int make_row(const pkgnote_crash *c, bool json, struct row *ret) {
        struct row w = {.time = pkgnote_crash_time(c)};
        w.id = strdup(pkgnote_crash_id(c));
        const char *m = pkgnote_crash_field(c, "machineId");
        w.machine_id = m ? strdup(m) : NULL;
        if (!w.id || (m && !w.machine_id))
                goto oom;
        if (json) {
                char *s;
                if (pkgnote_crash_to_json(c, &s) < 0)
                        goto oom;
                w.head = s;
                w.tail = strdup("\n");
                if (!w.tail)
                        goto oom;
                *ret = w;
                return 0;
        }
        w.width = machine_text(c, w.machine, sizeof w.machine);
        size_t len;
        FILE *f = open_memstream(&w.head, &len);
        if (!f)
                goto oom;
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
        fprintf(f, "%-23s %7" PRId64 " %5" PRId64 " %4s %-8s %-7s ", when, pkgnote_crash_pid(c), pkgnote_crash_uid(c),
                sig ? sig : "-", core_word(c), pkgnote_crash_store_name(pkgnote_crash_store(c)));
        if (fclose(f) != 0 || !w.head)
                goto oom;
        f = open_memstream(&w.tail, &len);
        if (!f)
                goto oom;
        const char *exe = pkgnote_crash_field(c, "executable") ? pkgnote_crash_field(c, "executable") : "n/a";
        tool_print_escaped(f, exe);
        fprintf(f, "%*s ", strlen(exe) < 32 ? (int)(32 - strlen(exe)) : 0, "");
        tool_print_escaped(f, pkg);
        fputc('\n', f);
        if (fclose(f) != 0 || !w.tail)
                goto oom;
        *ret = w;
        return 0;
oom:
        free(w.id);
        free(w.head);
        free(w.tail);
        free(w.machine_id);
        return -ENOMEM;
}

int cmd_list(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"group", optional_argument, NULL, OPT_GROUP},
                {"top", required_argument, NULL, OPT_TOP},
                {"format", required_argument, NULL, OPT_FORMAT},
                {"output", required_argument, NULL, 'o'},
                {"help", no_argument, NULL, 'h'},
                CRASH_LONGOPTS,
                {0},
        };
        bool json = false, html = false;
        const char *output = NULL;
        int by = 0;
        size_t top = 0;
        bool top_given = false;
        struct crash_opts co = {0};
        int ch, k;
        while ((ch = tool_getopt(argc, argv, "jho:" CRASH_SHORTOPTS, longopts)) >= 0) {
                if ((k = crash_option(&co, ch, optarg)) != 0) {
                        if (k < 0) {
                                crash_options_free(&co);
                                return EXIT_FAILURE_;
                        }
                        continue;
                }
                switch (ch) {
                case 'j': json = true; html = false; break;
                case OPT_FORMAT:
                        json = !strcmp(optarg, "json");
                        html = !strcmp(optarg, "html");
                        if (!json && !html && strcmp(optarg, "text") != 0) {
                                crash_options_free(&co);
                                return tool_fail("list: --format takes text, json or html, not '%s'", optarg);
                        }
                        break;
                case 'o': output = optarg; break;
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
        if (html && !by) {
                crash_options_free(&co);
                return tool_fail("list: --format html needs --group (the page shows crash groups)");
        }
        if (output && !html) {
                crash_options_free(&co);
                return tool_fail("list: --output needs --format html (the other formats go to standard output)");
        }
        crash_options_done(&co, optind < argc ? argv[optind] : NULL);
        /* groups and JSON read every crash's record: in one pass */
        if (by || json)
                co.lib.flags |= PKGNOTE_CRASH_WHOLE_RECORDS;
        if (by) {
                int r = list_groups(&co.lib, by, json, html, output, top);
                crash_options_free(&co);
                return r;
        }
        /* The crashes are read one at a time and only their lines kept,
         * sorted by time as pkgnote_crashes_load() sorts: memory grows with
         * the crashes listed, never with the journal's entries. */
        pkgnote_crashes *l;
        int r = pkgnote_crashes_open(&co.lib, &l);
        crash_options_free(&co);
        if (r < 0)
                return tool_fail("list: %s", pkgnote_last_error());
        struct row *rows = NULL;
        size_t n = 0, cap = 0;
        const pkgnote_crash *c;
        while ((r = pkgnote_crashes_next(l, &c)) > 0) {
                if (n == cap) {
                        size_t ncap = cap ? cap * 2 : 256;
                        struct row *nr = realloc(rows, ncap * sizeof *rows);
                        if (!nr) {
                                r = -ENOMEM;
                                break;
                        }
                        rows = nr;
                        cap = ncap;
                }
                if ((r = make_row(c, json, &rows[n])) < 0)
                        break;
                n++;
        }
        int status = EXIT_OK;
        if (r < 0)
                status = r == -ENOMEM ? tool_oom("list") : tool_fail("list: %s", pkgnote_last_error());
        if (n > 1)
                qsort(rows, n, sizeof *rows, cmp_row);
        /* A MACHINE column when the crashes come from more than one. */
        const char *first = NULL;
        bool machines = false;
        int mw = 7;
        for (size_t i = 0; !json && i < n; i++) {
                const char *m = rows[i].machine_id;
                if (m && !first)
                        first = m;
                else if (m && strcmp(m, first))
                        machines = true;
                mw = rows[i].width > mw ? rows[i].width : mw;
        }
        if (status == EXIT_OK && !json && n > 0) {
                printf("%-23s %7s %5s %4s %-8s %-7s ", "TIME", "PID", "UID", "SIG", "COREFILE", "STORE");
                if (machines)
                        printf("%-*s ", mw, "MACHINE");
                printf("%-32s %s\n", "EXE", "PACKAGE");
        }
        for (size_t i = 0; i < n; i++) {
                if (status == EXIT_OK) {
                        fputs(rows[i].head, stdout);
                        if (machines) {
                                tool_print_escaped(stdout, rows[i].machine);
                                printf("%*s ", mw - rows[i].width, "");
                        }
                        fputs(rows[i].tail ? rows[i].tail : "", stdout);
                }
                free(rows[i].id);
                free(rows[i].head);
                free(rows[i].tail);
                free(rows[i].machine_id);
        }
        free(rows);
        /* After the listing: reading a crash's whole record (--json) may
         * meet problems of its own. */
        for (size_t i = 0; i < pkgnote_crashes_problem_count(l); i++) {
                const pkgnote_problem *p = pkgnote_crashes_problem(l, i);
                tool_warn_ignoring(p->path ? p->path : "", p->message);
        }
        if (status == EXIT_OK && !json && n == 0)
                fputs("No crashes.\n", stderr);
        pkgnote_crashes_free(l);
        return status;
}
