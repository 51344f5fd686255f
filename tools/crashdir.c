/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crashdir.h"
#include "internal.h"
#include "output.h"
#include "tool.h"

const char *crash_state_dir(const char *override) {
        if (override)
                return override;
        const char *e = getenv("PKGNOTE_COREDUMP_DIR");
        return e && *e ? e : CRASH_DEFAULT_DIR;
}

void crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time) {
        char c[32];
        size_t i = 0;
        for (; comm[i] && i + 1 < sizeof c; i++) {
                char x = comm[i];
                c[i] = (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '_' || x == '-'
                               ? x
                               : '_';
        }
        c[i] = 0;
        snprintf(buf, len, "core.%s.%d.%d.%" PRId64, i ? c : "_", uid, pid, time);
}

int crash_write_report(FILE *f, const pkgnote_core *c, const pkgnote_stack *st, int64_t time, const char *host,
                       const char *core_path) {
        const pkgnote_json_member extra[] = {
                {.key = "time", .number = time},
                {.key = "hostname", .string = host},
                {.key = "coreFile", .string = core_path},
        };
        char *j;
        return tool_put_json(f, pkgnote_core_to_json(c, st, extra, sizeof extra / sizeof *extra, &j), &j);
}

/* Temporaries (of pkgnote's naming, or ".tmp" of older versions) and
 * half-made entries (a core whose handler died before its report) older
 * than this are a killed handler's leftovers. */
#define STALE_AGE (60 * 60)

struct entry {
        char *name; /* core.COMM.UID.PID.TIME, without suffix */
        int64_t time;
        uint64_t bytes;
        bool core, report;
        time_t mtime;
};

static int cmp_entry(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->name, y->name);
}

/* The entry NAME belongs to (core.COMM.UID.PID.TIME followed by the core
 * or report suffix, nothing else), its time and which part it is. */
static bool entry_of(const char *name, char *entry, size_t len, int64_t *time, bool *report) {
        size_t l = strlen(name), rl = strlen(CRASH_REPORT_SUFFIX), cl = strlen(CRASH_CORE_SUFFIX);
        if (strncmp(name, "core.", 5))
                return false;
        if (l > rl && !strcmp(name + l - rl, CRASH_REPORT_SUFFIX))
                *report = true, l -= rl;
        else if (l > cl && !strcmp(name + l - cl, CRASH_CORE_SUFFIX))
                *report = false, l -= cl;
        else
                return false;
        if (l >= len)
                return false;
        memcpy(entry, name, l);
        entry[l] = 0;
        /* COMM.UID.PID.TIME: three numbers at the end. */
        const char *p = entry + l;
        for (int i = 0; i < 3; i++) {
                const char *q = p;
                while (q > entry + 5 && q[-1] >= '0' && q[-1] <= '9')
                        q--;
                if (q == p || q <= entry + 6 || q[-1] != '.')
                        return false;
                if (i == 0)
                        *time = strtoll(q, NULL, 10);
                p = q - 1;
        }
        return strspn(entry + 5, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == (size_t)(p - entry - 5);
}

/* Whether NAME is a temporary: pkgnote's ".NAME.pkgnote-XXXXXX" or an
 * older version's "NAME.tmp". */
static bool is_temporary(const char *name) {
        size_t l = strlen(name);
        return (name[0] == '.' && strstr(name, ".pkgnote-")) || (l > 4 && !strcmp(name + l - 4, ".tmp"));
}

static void remove_entry(int dirfd, const struct entry *e) {
        char path[600];
        /* The report first: readers only see entries with a report, and
         * a report's core is then always there. */
        snprintf(path, sizeof path, "%s%s", e->name, CRASH_REPORT_SUFFIX);
        (void)unlinkat(dirfd, path, 0);
        snprintf(path, sizeof path, "%s%s", e->name, CRASH_CORE_SUFFIX);
        (void)unlinkat(dirfd, path, 0);
}

int crash_enforce_limits(int dirfd, uint64_t max_use, const char *keep, size_t max_remove) {
        int lfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lfd < 0)
                return 0;
        /* One handler vacuums at a time; others wait for the lock. */
        (void)flock(lfd, LOCK_EX);
        int dfd = dup(lfd);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
                if (dfd >= 0)
                        close(dfd);
                close(lfd);
                return 0;
        }
        struct entry *e = NULL;
        size_t n = 0, cap = 0, removed = 0;
        uint64_t total = 0;
        time_t now = time(NULL);
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                char name[600];
                int64_t t = 0;
                bool report = false;
                if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (is_temporary(de->d_name)) {
                        /* Never an entry; a writer alive holds its lock. */
                        if (now - st.st_mtime > STALE_AGE && (pn_output_remove_stale(dirfd, de->d_name) ||
                                                              unlinkat(dirfd, de->d_name, 0) == 0))
                                continue;
                        total += (uint64_t)st.st_size;
                        continue;
                }
                if (!entry_of(de->d_name, name, sizeof name, &t, &report))
                        continue;
                total += (uint64_t)st.st_size;
                size_t i = 0;
                while (i < n && strcmp(e[i].name, name))
                        i++;
                if (i == n) {
                        char *copy = strdup(name);
                        if (!copy || PN_GROW(e, cap, n + 1) < 0) {
                                free(copy);
                                break;
                        }
                        e[n++] = (struct entry){copy, t, 0, false, false, 0};
                }
                e[i].bytes += (uint64_t)st.st_size;
                e[i].core |= !report;
                e[i].report |= report;
                if (st.st_mtime > e[i].mtime)
                        e[i].mtime = st.st_mtime;
        }
        closedir(d);
        /* A report whose core is gone, and a core whose handler died
         * before writing its report, are no entries: removed. */
        for (size_t i = 0; i < n; i++)
                if (strcmp(e[i].name, keep) &&
                    ((e[i].report && !e[i].core) || (!e[i].report && now - e[i].mtime > STALE_AGE))) {
                        remove_entry(dirfd, &e[i]);
                        total -= e[i].bytes;
                        e[i].bytes = 0;
                }
        if (n)
                qsort(e, n, sizeof *e, cmp_entry);
        for (size_t i = 0; i < n && total > max_use && removed < max_remove; i++) {
                /* Only whole entries; one being written is not ours. */
                if (!strcmp(e[i].name, keep) || !e[i].core || !e[i].report)
                        continue;
                remove_entry(dirfd, &e[i]);
                total -= e[i].bytes;
                removed++;
        }
        for (size_t i = 0; i < n; i++)
                free(e[i].name);
        free(e);
        close(lfd); /* releases the lock */
        return (int)removed;
}

/* ------------------------------------------------------------ reading */

static const char *str(json_t *j, const char *key) {
        return json_string_value(json_object_get(j, key));
}

static int cmp_crash(const void *a, const void *b) {
        const struct crash *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->report, y->report);
}

int crash_load(const char *dir, struct crash **ret, size_t *ret_n) {
        DIR *d = opendir(dir);
        if (!d)
                return -errno;
        struct crash *c = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t l = strlen(de->d_name), sl = strlen(CRASH_REPORT_SUFFIX);
                if (strncmp(de->d_name, "core.", 5) || l <= sl || strcmp(de->d_name + l - sl, CRASH_REPORT_SUFFIX))
                        continue;
                /* An entry exists while its report and its core do: a
                 * report alone is one being removed. */
                char core[600];
                struct stat st;
                snprintf(core, sizeof core, "%.*s%s", (int)(l - sl), de->d_name, CRASH_CORE_SUFFIX);
                if (fstatat(dirfd(d), core, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                json_error_t err;
                json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
                if (!json_is_object(j)) {
                        json_decref(j);
                        fprintf(stderr, "%s: '", program_name);
                        tool_print_escaped(stderr, path);
                        fprintf(stderr, "': unreadable report, ignoring\n");
                        continue;
                }
                if (PN_GROW(c, cap, n + 1) < 0) {
                        json_decref(j);
                        break;
                }
                c[n++] = (struct crash){strdup(path), j, json_integer_value(json_object_get(j, "time"))};
        }
        closedir(d);
        qsort(c, n, sizeof *c, cmp_crash);
        *ret = c;
        *ret_n = n;
        return 0;
}

void crash_unload(struct crash *c, size_t n) {
        for (size_t i = 0; i < n; i++) {
                json_decref(c[i].j);
                free(c[i].report);
        }
        free(c);
}

int crash_find(const char *dir, const char *what, char *core_path, size_t len) {
        struct crash *c;
        size_t n;
        int r = crash_load(dir, &c, &n);
        if (r < 0)
                return r;
        char *end;
        long pid = strtol(what, &end, 10);
        bool numeric = *what && !*end;
        size_t found = SIZE_MAX;
        for (size_t i = n; i-- > 0 && found == SIZE_MAX;) {
                const char *core = str(c[i].j, "coreFile"), *cmd = str(c[i].j, "command");
                const char *base = core ? strrchr(core, '/') : NULL;
                if ((numeric && json_integer_value(json_object_get(c[i].j, "pid")) == pid) ||
                    (!numeric && ((cmd && !strcmp(cmd, what)) || (base && !strcmp(base + 1, what)))))
                        found = i;
        }
        if (found != SIZE_MAX)
                snprintf(core_path, len, "%s", str(c[found].j, "coreFile"));
        crash_unload(c, n);
        return found != SIZE_MAX;
}
