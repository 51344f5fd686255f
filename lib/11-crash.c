/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote-coredump's crash store, one row of the table of crash stores
 * (lib/11-crash-list.c lists and opens the crashes of every store the
 * same way, whichever collector stored them).  The store is a
 * directory: one compressed core and one JSON report per crash, named
 * core.COMM.UID.PID.TIME (.zst where the build has zstd, and .json).  An entry exists for readers once its report does, which is
 * written after its core and removed before it.
 *
 * The store is written by root, but a listing never trusts it further
 * than it must: files are opened below the directory's descriptor without
 * following links, reports are bounded and parsed by jansson, and a
 * crash's core is the file its entry's name gives, never a path a report
 * names.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "11-crash-private.h"
#include "11-crash-systemd.h"
#include "01-base.h"
#include "output.h"
#include "01-base-problem.h"
#include "01-base-root.h"
#include "machine.h"

/* A report larger than this is no report pkgnote-coredump wrote (a
 * thousand modules with their notes are well under a megabyte). */
#define MAX_REPORT (16u << 20)

const char *pn_crash_dir(const char *override) {
        if (override)
                return override;
        const char *e = getenv("PKGNOTE_COREDUMP_DIR");
        return e && *e ? e : PN_CRASH_DEFAULT_DIR;
}

void pn_crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time) {
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

int pn_crash_report_text(const pkgnote_core *c, const pkgnote_stack *st, int64_t time, const char *host,
                         const char *core_path, char **ret) {
        char boot[33], machine[33];
        /* The boot tells this crash from one of the same PID and second
         * of another boot, as the journal entry's _BOOT_ID does; the
         * machine stays with the report when the store is read elsewhere. */
        pn_read_machine_id(machine);
        /* The kernel the process ran on is this one: its own notes, read
         * where the crash is (no modules, image or package database: a
         * crash under memory pressure is no time to decompress the
         * installed image).  One that cannot be read is left out; memory
         * is not. */
        char *kernel = NULL;
        pkgnote_kernel *k = NULL;
        pkgnote_kernel_options ko = PKGNOTE_KERNEL_OPTIONS_INIT;
        ko.flags = PKGNOTE_KERNEL_NO_MODULES | PKGNOTE_KERNEL_NO_DATABASE | PKGNOTE_KERNEL_NO_IMAGE;
        int r = pkgnote_kernel_read(&ko, &k);
        if (r >= 0)
                r = pkgnote_kernel_to_json(k, &kernel);
        pkgnote_kernel_free(k);
        if (r == -ENOMEM)
                return r;
        const pkgnote_json_member extra[] = {
                {.size = sizeof(pkgnote_json_member), .key = "time", .number = time},
                {.size = sizeof(pkgnote_json_member), .key = "hostname", .string = host},
                {.size = sizeof(pkgnote_json_member), .key = "coreFile", .string = core_path},
                {.size = sizeof(pkgnote_json_member), .key = "bootId", .string = pn_boot_id(boot) ? boot : NULL},
                {.size = sizeof(pkgnote_json_member), .key = "machineId", .string = machine[0] ? machine : NULL},
                PKGNOTE_JSON_VALUE("kernel", kernel),
        };
        size_t n = sizeof extra / sizeof *extra - (kernel ? 0 : 1);
        char *j;
        r = pkgnote_core_to_json(c, st, extra, n, &j);
        /* a kernel over the report's limits (its note may be 64 KiB) is
         * left out, not the report */
        if (r < 0 && r != -ENOMEM && kernel)
                r = pkgnote_core_to_json(c, st, extra, n - 1, &j);
        free(kernel);
        if (r < 0)
                return r;
        /* A line: the text and its newline. */
        size_t len = strlen(j);
        char *line = realloc(j, len + 2);
        if (!line) {
                free(j);
                return pn_oom();
        }
        memcpy(line + len, "\n", 2);
        *ret = line;
        return 0;
}

/* Temporaries (of pkgnote's naming, or ".tmp" of older versions) and
 * half-made entries (a core whose handler died before its report) older
 * than this are a killed handler's leftovers. */
#define STALE_AGE (60 * 60)

/* The metadata-only entries of a crash over quota, whose core was
 * refused (socket mode: COREDUMP_REJECT before any byte) or dropped (pipe
 * mode): pkgnote-coredump's rejected/ below the store, a report each. */
#define PN_CRASH_REJECTED_DIR "rejected"

struct entry {
        char *name; /* core.COMM.UID.PID.TIME, without suffix */
        int64_t time;
        uint64_t bytes;
        bool core, report;
        bool rejected; /* a report alone, in rejected/ */
        time_t mtime;
};

static int cmp_entry(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->name, y->name);
}

/* The entry NAME belongs to, its time and which part it is. */
static bool entry_of(const char *name, char *entry, size_t len, int64_t *time, bool *report) {
        struct pn_crash_name n;
        if (pn_crash_parse_name(name, &n) < 0 || strlen(n.entry) >= len)
                return false;
        strcpy(entry, n.entry);
        *time = (int64_t)n.time;
        *report = n.report;
        return true;
}

/* Whether NAME is a temporary: pkgnote's ".NAME.pkgnote-XXXXXX" or an
 * older version's "NAME.tmp". */
static bool is_temporary(const char *name) {
        size_t l = strlen(name);
        return (name[0] == '.' && strstr(name, ".pkgnote-")) || (l > 4 && !strcmp(name + l - 4, ".tmp"));
}

static void remove_entry(int dirfd, const struct entry *e) {
        char path[600];
        if (e->rejected) {
                snprintf(path, sizeof path, "%s/%s%s", PN_CRASH_REJECTED_DIR, e->name, PN_CRASH_REPORT_SUFFIX);
                (void)unlinkat(dirfd, path, 0);
                return;
        }
        /* The report first: readers only see entries with a report, and
         * a report's core is then always there. */
        snprintf(path, sizeof path, "%s%s", e->name, PN_CRASH_REPORT_SUFFIX);
        (void)unlinkat(dirfd, path, 0);
        snprintf(path, sizeof path, "%s%s", e->name, PN_CRASH_CORE_SUFFIX);
        (void)unlinkat(dirfd, path, 0);
}

int pn_crash_enforce_limits(int dirfd, uint64_t max_use, const char *keep, size_t max_remove) {
        int lfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (lfd < 0)
                return 0;
        /* One handler vacuums at a time; others wait for the lock. */
        (void)flock(lfd, LOCK_EX);
        struct pn_dir d;
        if (pn_dir_open(&d, lfd, NULL, 0, 0) < 0) {
                close(lfd);
                return 0;
        }
        struct entry *e = NULL;
        size_t n = 0, cap = 0, removed = 0;
        uint64_t total = 0;
        time_t now = time(NULL);
        struct pn_dirent de;
        while (pn_dir_next(&d, &de) > 0) {
                struct stat st;
                char name[600];
                int64_t t = 0;
                bool report = false;
                if (fstatat(dirfd, de.name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (is_temporary(de.name)) {
                        /* Never an entry; a writer alive holds its lock. */
                        if (now - st.st_mtime > STALE_AGE && (pn_output_remove_stale(dirfd, de.name) ||
                                                              unlinkat(dirfd, de.name, 0) == 0))
                                continue;
                        total += (uint64_t)st.st_size;
                        continue;
                }
                if (!entry_of(de.name, name, sizeof name, &t, &report))
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
                        e[n++] = (struct entry){copy, t, 0, false, false, false, 0};
                }
                e[i].bytes += (uint64_t)st.st_size;
                e[i].core |= !report;
                e[i].report |= report;
                if (st.st_mtime > e[i].mtime)
                        e[i].mtime = st.st_mtime;
        }
        pn_dir_close(&d);
        /* The metadata-only entries count too (each a few KiB, at most
         * pkgnote-coredump's thousand), removed by age with the rest:
         * a directory of its own, never a link. */
        int rfd = openat(dirfd, PN_CRASH_REJECTED_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rfd >= 0 && pn_dir_open(&d, rfd, NULL, 0, 0) >= 0) {
                while (pn_dir_next(&d, &de) > 0) {
                        struct stat st;
                        char name[600];
                        int64_t t = 0;
                        bool report = false;
                        if (fstatat(rfd, de.name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                                continue;
                        total += (uint64_t)st.st_size;
                        if (!entry_of(de.name, name, sizeof name, &t, &report) || !report)
                                continue;
                        char *copy = strdup(name);
                        if (!copy || PN_GROW(e, cap, n + 1) < 0) {
                                free(copy);
                                break;
                        }
                        e[n++] = (struct entry){copy, t, (uint64_t)st.st_size, false, true, true, st.st_mtime};
                }
                pn_dir_close(&d);
        }
        if (rfd >= 0)
                close(rfd);
        /* A report whose core is gone, and a core whose handler died
         * before writing its report, are no entries: removed. */
        for (size_t i = 0; i < n; i++)
                if (!e[i].rejected && strcmp(e[i].name, keep) &&
                    ((e[i].report && !e[i].core) || (!e[i].report && now - e[i].mtime > STALE_AGE))) {
                        remove_entry(dirfd, &e[i]);
                        total -= e[i].bytes;
                        e[i].bytes = 0;
                }
        if (n)
                qsort(e, n, sizeof *e, cmp_entry);
        for (size_t i = 0; i < n && total > max_use && removed < max_remove; i++) {
                /* Only whole entries; one being written is not ours. */
                if (!e[i].rejected && (!strcmp(e[i].name, keep) || !e[i].core || !e[i].report))
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

/* The reports of directory D (DFD, its path DIR) into L: an entry of the
 * store with its core, or under rejected/ (REJECTED) a report alone, its
 * id "rejected/NAME". */
static int load_reports(pkgnote_crashes *l, const pkgnote_crash_options *o, const char *dir, int dfd, struct pn_dir *d,
                        bool rejected) {
        int r = 0;
        struct pn_dirent de;
        while (r == 0 && pn_dir_next(d, &de) > 0) {
                char id[600];
                int64_t t = 0;
                bool report = false;
                if (!entry_of(de.name, id, sizeof id, &t, &report) || !report)
                        continue;
                /* An entry exists while its report and its core do: a
                 * report alone is one being removed. */
                char core[sizeof id + 8];
                struct stat st;
                snprintf(core, sizeof core, "%s%s", id, PN_CRASH_CORE_SUFFIX);
                if (!rejected && (fstatat(dfd, core, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)))
                        continue;
                if (rejected && (fstatat(dfd, de.name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)))
                        continue;
                char *path = NULL, *core_path = NULL;
                void *data = NULL;
                size_t len = 0;
                json_t *j = NULL;
                if (asprintf(&path, "%s/%s", dir, de.name) < 0 ||
                    (!rejected && asprintf(&core_path, "%s/%s", dir, core) < 0)) {
                        free(path);
                        r = pn_oom();
                        break;
                }
                json_error_t err;
                int k = pn_read_below(dfd, de.name, MAX_REPORT, &data, &len);
                if (k == 0)
                        j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
                free(data);
                if (!json_is_object(j)) {
                        json_decref(j);
                        pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, k < 0 ? k : -EBADMSG, path, "%s",
                                        k < 0 ? pkgnote_last_error() : "unreadable report");
                        free(path);
                        free(core_path);
                        continue;
                }
                free(path);
                char *cid = NULL;
                if (rejected ? asprintf(&cid, "%s/%s", PN_CRASH_REJECTED_DIR, id) < 0 : !(cid = strdup(id)))
                        cid = NULL;
                struct pkgnote_crash c = {PKGNOTE_CRASH_STORE_PKGNOTE, cid, core_path, j, t,
                                          rejected ? PKGNOTE_CRASH_CORE_REJECTED : PKGNOTE_CRASH_CORE_FILE, l, false,
                                          &pn_crash_store_pkgnote, false, false};
                json_t *jt = json_object_get(j, "time");
                if (json_is_integer(jt))
                        c.time = json_integer_value(jt);
                /* A metadata-only entry describes the process from /proc
                 * before its dump: its signal is the handler's (dumpSignal),
                 * its PID and UID, where /proc gave none, the entry name's. */
                struct pn_crash_name pn;
                bool fill_ok = true;
                if (rejected && pn_crash_parse_name(de.name, &pn) == 0) {
                        json_t *ds = json_object_get(j, "dumpSignal");
                        if (!json_is_integer(json_object_get(j, "signal")) && json_is_integer(ds))
                                fill_ok = json_object_set(j, "signal", ds) == 0;
                        if (fill_ok && !json_is_integer(json_object_get(j, "pid")))
                                fill_ok = json_object_set_new(j, "pid", json_integer((json_int_t)pn.pid)) == 0;
                        if (fill_ok && !json_is_integer(json_object_get(j, "uid")))
                                fill_ok = json_object_set_new(j, "uid", json_integer((json_int_t)pn.uid)) == 0;
                }
                /* The running kernel the report recorded, as fields of their
                 * own (pkgnote_crash_field()) beside bootId and machineId. */
                static const char *const kernel_fields[][2] = {{"kernelRelease", "release"}, {"kernelBuildId", "buildId"}};
                json_t *kj = json_object_get(j, "kernel");
                for (size_t f = 0; fill_ok && json_is_object(kj) && f < 2; f++) {
                        json_t *v = json_object_get(kj, kernel_fields[f][1]);
                        if (json_is_string(v) && !json_object_get(j, kernel_fields[f][0]))
                                fill_ok = json_object_set(j, kernel_fields[f][0], v) == 0;
                }
                if (!c.id || !fill_ok || pn_crash_this_machine(l, j) < 0) {
                        pn_crash_clear(&c);
                        r = pn_oom();
                        break;
                }
                r = pn_crashes_add(l, &c, o);
        }
        return r;
}

/* The entries of pkgnote-coredump's directory into L, then those of its
 * rejected/ (when it is a directory of its own, not a link). */
static int load_pkgnote(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named, struct pn_crash_load *ld) {
        (void)ld;
        const char *dir = pn_crash_dir(o->pkgnote_dir);
        int dfd;
        struct pn_dir d;
        int r = pn_crash_dir_open(dir, named, &dfd, &d);
        if (r < 0 || dfd < 0)
                return r;
        r = load_reports(l, o, dir, dfd, &d, false);
        pn_dir_close(&d);
        int rfd = r < 0 ? -1 : openat(dfd, PN_CRASH_REJECTED_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dfd);
        if (rfd < 0)
                return r;
        char *rdir = NULL;
        if (asprintf(&rdir, "%s/%s", dir, PN_CRASH_REJECTED_DIR) < 0) {
                close(rfd);
                return pn_oom();
        }
        int k = pn_dir_open(&d, rfd, NULL, 0, 0);
        if (k < 0)
                pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, k, rdir, "cannot read: %s", strerror(-k));
        else {
                r = load_reports(l, o, rdir, rfd, &d, true);
                pn_dir_close(&d);
        }
        free(rdir);
        close(rfd);
        return r;
}

/* pkgnote-coredump logs each crash it stores to the journal as well, in
 * systemd-coredump's fields with COREDUMP_FILENAME naming its core in
 * pkgnote's store: one crash, one entry.  The store's entry stays what it
 * is (its record, core and id) and gains only the journal's fields it
 * lacks (unit, cgroup, command line...); the journal entry goes.  The
 * journal's path is compared, never opened, and only an entry logged by
 * pkgnote-coredump as root is merged (pn_crash_journal_names()), each
 * into one store entry: no other can hide or change a store's entry. */
/* A journal entry pkgnote-coredump logged, by the file name its
 * COREDUMP_FILENAME ends in, and its place in the list. */
struct named {
        const char *base; /* into the entry's record: kept until the end */
        size_t at;
        bool taken;
};

static int cmp_named(const void *a, const void *b) {
        const struct named *x = a, *y = b;
        int c = strcmp(x->base, y->base);
        return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

static const char *core_base(const char *path) {
        const char *b = path ? strrchr(path, '/') : NULL;
        return b ? b + 1 : path;
}

/* Each crash of pkgnote's store takes in the first journal entry, in
 * list order, that pn_crash_journal_names() says is its own, and that
 * entry goes: one crash, one entry.  The journal's entries are looked up
 * by the file name they name (sorted once), not compared with every store
 * entry. */
static int merge_journal(pkgnote_crashes *l) {
        struct named *v = NULL;
        size_t n = 0, cap = 0;
        for (size_t k = 0; k < l->n; k++) {
                const struct pkgnote_crash *j = &l->c[k];
                const char *f = j->store == PKGNOTE_CRASH_STORE_JOURNAL && j->pkgnote_handler
                                        ? json_string_value(json_object_get(j->j, "COREDUMP_FILENAME"))
                                        : NULL;
                if (!f || !strchr(f, '/'))
                        continue;
                if (PN_GROW(v, cap, n + 1) < 0) {
                        free(v);
                        return pn_oom();
                }
                v[n++] = (struct named){core_base(f), k, false};
        }
        if (n == 0) {
                free(v);
                return 0;
        }
        qsort(v, n, sizeof *v, cmp_named);
        bool merged = false;
        for (size_t i = 0; i < l->n; i++) {
                struct pkgnote_crash *s = &l->c[i];
                if (s->store != PKGNOTE_CRASH_STORE_PKGNOTE || !s->core)
                        continue;
                /* The first of the entries naming this file. */
                const char *own = core_base(s->core);
                size_t lo = 0, hi = n;
                while (lo < hi) {
                        size_t mid = lo + (hi - lo) / 2;
                        if (strcmp(v[mid].base, own) < 0)
                                lo = mid + 1;
                        else
                                hi = mid;
                }
                for (; lo < n && !strcmp(v[lo].base, own); lo++) {
                        if (v[lo].taken || !pn_crash_journal_names(s, &l->c[v[lo].at]))
                                continue;
                        if (json_object_update_missing(s->j, pn_crash_record(&l->c[v[lo].at])) < 0) {
                                free(v);
                                return pn_oom();
                        }
                        v[lo].taken = merged = true;
                        break;
                }
        }
        for (size_t k = 0; k < n; k++)
                if (v[k].taken)
                        pn_crash_clear(&l->c[v[k].at]); /* its id NULL: gone */
        free(v);
        size_t kept = 0;
        for (size_t i = 0; merged && i < l->n; i++)
                if (l->c[i].id)
                        l->c[kept++] = l->c[i];
        if (merged)
                l->n = kept;
        return 0;
}

/* The journal entry J, read one at a time, into the first of L's
 * entries of pkgnote's store that pn_crash_journal_names() says is its
 * own and that took in none yet (struct pkgnote_crash's pkgnote_handler
 * then marks it): as merge_journal() does for a whole list. */
static int merge_one(pkgnote_crashes *l, struct pkgnote_crash *j) {
        if (j->store != PKGNOTE_CRASH_STORE_JOURNAL || !j->pkgnote_handler)
                return 0;
        for (size_t i = 0; i < l->n; i++) {
                struct pkgnote_crash *s = &l->c[i];
                if (s->pkgnote_handler || !pn_crash_journal_names(s, j))
                        continue;
                if (json_object_update_missing(s->j, pn_crash_record(j)) < 0)
                        return pn_oom();
                s->pkgnote_handler = true;
                pn_crash_clear(j);
                return 1;
        }
        return 0;
}

/* The core of C, by its entry's name below the store. */
static int open_pkgnote(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret) {
        if (c->core_state == PKGNOTE_CRASH_CORE_REJECTED)
                return pn_error(-ENODATA, "the core of %s was refused (over quota): only its metadata was kept", c->id);
        if (!c->core)
                return pn_error(-ENODATA, "the core of %s is gone", c->id);
        return pkgnote_core_open(c->core, o, ret);
}

/* The PID the crash handler was given (%P, of the initial PID
 * namespace; a container's core holds its own): the entry's name. */
static bool names_pid(const struct pkgnote_crash *c, long long pid) {
        struct pn_crash_name n;
        const char *base = c->core ? strrchr(c->core, '/') : NULL;
        char name[PN_CRASH_MAX_NAME + 16];
        /* A metadata-only entry: by its id, "rejected/NAME". */
        if (!base && c->core_state == PKGNOTE_CRASH_CORE_REJECTED && c->id && (base = strrchr(c->id, '/'))) {
                snprintf(name, sizeof name, "%s%s", base + 1, PN_CRASH_REPORT_SUFFIX);
                return pn_crash_parse_name(name, &n) == 0 && (long long)n.pid == pid;
        }
        return base && pn_crash_parse_name(base + 1, &n) == 0 && (long long)n.pid == pid;
}

static bool located(const pkgnote_crash_options *o) {
        return o->pkgnote_dir;
}

const struct pn_crash_store pn_crash_store_pkgnote = {
        .bit = PKGNOTE_CRASH_STORE_PKGNOTE,
        .name = "pkgnote",
        .located = located,
        .load = load_pkgnote,
        .open = open_pkgnote,
        .names_pid = names_pid,
        .copies_in = PKGNOTE_CRASH_STORE_JOURNAL,
        .merge = merge_journal,
        .merge_one = merge_one,
};
