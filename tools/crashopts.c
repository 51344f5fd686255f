/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The crash-store options of pkgnote list and pkgnote core. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crashopts.h"
#include "tool.h"

/* TIME as coredumpctl's common forms take it: @EPOCH, "today",
 * "yesterday", "now", YYYY-MM-DD [HH:MM[:SS]] in local time. */
static int parse_time(const char *s, int64_t *ret) {
        char *end;
        if (s[0] == '@') {
                errno = 0;
                long long v = strtoll(s + 1, &end, 10);
                if (errno || end == s + 1 || *end || v < 0)
                        return -EINVAL;
                *ret = v;
                return 0;
        }
        time_t now = time(NULL);
        struct tm tm;
        if (!localtime_r(&now, &tm))
                return -EINVAL;
        if (!strcmp(s, "now")) {
                *ret = now;
                return 0;
        }
        if (!strcmp(s, "today") || !strcmp(s, "yesterday")) {
                tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
                tm.tm_mday -= !strcmp(s, "yesterday");
        } else {
                static const char *const fmts[] = {"%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"};
                const char *e = NULL;
                for (size_t i = 0; i < sizeof fmts / sizeof *fmts && !(e && !*e); i++) {
                        memset(&tm, 0, sizeof tm);
                        e = strptime(s, fmts[i], &tm);
                }
                if (!e || *e)
                        return -EINVAL;
        }
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        if (t == (time_t)-1)
                return -EINVAL;
        *ret = t;
        return 0;
}

int crash_option(struct crash_opts *o, int ch, const char *arg) {
        switch (ch) {
        case 'D': o->lib.journal_dir = arg; return 1;
        case 'd': o->lib.pkgnote_dir = arg; return 1;
        case CRASH_OPT_SYSTEMD_DIR: o->lib.systemd_dir = arg; return 1;
        case CRASH_OPT_FILE: {
                const char **f = realloc(o->files, (o->n_files + 2) * sizeof *f);
                if (!f) {
                        tool_oom(NULL);
                        return -1;
                }
                f[o->n_files++] = arg;
                f[o->n_files] = NULL;
                o->files = f;
                return 1;
        }
        case CRASH_OPT_SINCE:
        case CRASH_OPT_UNTIL:
                if (parse_time(arg, ch == CRASH_OPT_SINCE ? &o->lib.since : &o->lib.until) < 0) {
                        fputs("pkgnote: '", stderr);
                        tool_print_escaped(stderr, arg);
                        fputs("': not a time (@EPOCH, YYYY-MM-DD [HH:MM[:SS]], today, yesterday, now)\n", stderr);
                        return -1;
                }
                return 1;
        default: return 0;
        }
}

void crash_options_done(struct crash_opts *o, const char *match) {
        o->lib.size = sizeof o->lib;
        o->lib.match = match;
        o->lib.journal_files = o->files;
        /* pkgnote-coredump's store named by the environment must exist,
         * as one named by --state-dir. */
        const char *e = getenv("PKGNOTE_COREDUMP_DIR");
        if (!o->lib.pkgnote_dir && e && *e)
                o->lib.pkgnote_dir = e;
        /* A journal named by -D or --file is the only store read, as in
         * coredumpctl; so is a store directory named alone. */
        if (o->lib.journal_dir || o->files)
                o->lib.stores = PKGNOTE_CRASH_STORE_JOURNAL | (o->lib.systemd_dir ? PKGNOTE_CRASH_STORE_SYSTEMD : 0);
}

void crash_options_free(struct crash_opts *o) {
        free(o->files);
}
