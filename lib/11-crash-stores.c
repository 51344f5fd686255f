/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The table of crash stores and the public reading API over it: every
 * store is one row of operations (struct pn_crash_store, lib/11-crash-private.h)
 * that loads its crashes into one list, opens their cores and says how
 * its crash handler named a PID; this file knows the rows, never a
 * store's files.  Rows: pkgnote-coredump's store (11-crash.c),
 * systemd-coredump's journal and store (11-crash-systemd.c).
 */
#include "03-model-json.h"
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "11-crash-private.h"
#include "01-base.h"
#include "11-crash-journal-dl.h"

/* The stores, in the order they load: systemd-coredump's journal names
 * the files of its store, which are then listed once (struct
 * pn_crash_load). */
static const struct pn_crash_store *const stores[] = {
        &pn_crash_store_pkgnote,
        &pn_crash_store_journal,
        &pn_crash_store_systemd,
};

static const struct pn_crash_store *store_of(int bit) {
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                if ((int)stores[i]->bit == bit)
                        return stores[i];
        return NULL;
}

/* ------------------------------------------------------------ reading */

static const char *str(const json_t *j, const char *key) {
        return json_string_value(json_object_get(j, key));
}

static int cmp_crash(const void *a, const void *b) {
        const struct pkgnote_crash *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->id, y->id);
}

static pkgnote_crashes *list_new(void) {
        pkgnote_crashes *l = calloc(1, sizeof *l);
        if (l)
                l->store_dfd = -1;
        return l;
}

/* The caller's options O into *OPTS, checked; *KNOWN the stores this
 * build reads. */
static int read_options(const pkgnote_crash_options *o, pkgnote_crash_options *opts, unsigned *known) {
        int r = pn_options_read(opts, sizeof *opts, o, PN_SIZE_1_0(pkgnote_crash_options), "crash");
        if (r < 0)
                return r;
        *known = 0;
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                *known |= stores[i]->bit;
        if (opts->stores & ~*known)
                return pn_error(-EOPNOTSUPP, "unknown crash stores 0x%x", opts->stores & ~*known);
        if (opts->flags & ~PKGNOTE_CRASH_WHOLE_RECORDS)
                return pn_error(-EINVAL, "unknown crash list flags 0x%x", opts->flags & ~PKGNOTE_CRASH_WHOLE_RECORDS);
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_crashes_load(const pkgnote_crash_options *o, pkgnote_crashes **ret) {
        pkgnote_crash_options opts;
        unsigned known;
        int r0 = read_options(o, &opts, &known);
        if (r0 < 0)
                return r0;
        pkgnote_crashes *l = list_new();
        if (!l)
                return pn_oom();
        int r = 0;
        /* A store asked for by name must be there; of all stores, those
         * this machine has. */
        unsigned want = opts.stores ? opts.stores : known;
        /* A store and one logging copies of its crashes: every entry
         * first, the copies merged, then the match and the time range (a
         * match on a field of the copy finds the merged entry too). */
        bool merge = false;
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                merge |= stores[i]->merge && (want & stores[i]->bit) && (want & stores[i]->copies_in);
        pkgnote_crash_options all = opts;
        if (merge)
                all.match = NULL, all.since = all.until = 0;
        struct pn_crash_load ld = {0};
        for (size_t i = 0; i < ELEMENTSOF(stores) && r >= 0; i++) {
                const struct pn_crash_store *st = stores[i];
                if (want & st->bit)
                        r = st->load(l, &all, (opts.stores & st->bit) || (st->located && st->located(&opts)), &ld);
        }
        for (size_t i = 0; i < ELEMENTSOF(stores) && r >= 0; i++) {
                const struct pn_crash_store *st = stores[i];
                if (st->merge && (want & st->bit) && (want & st->copies_in))
                        r = st->merge(l);
        }
        for (size_t i = 0; i < ld.n_claimed; i++)
                free(ld.claimed[i]);
        free(ld.claimed);
        if (r >= 0 && merge) {
                size_t n = 0;
                for (size_t i = 0; i < l->n; i++)
                        if (pn_crash_wanted(&l->c[i], &opts))
                                l->c[n++] = l->c[i];
                        else
                                pn_crash_clear(&l->c[i]);
                l->n = n;
        }
        if (r < 0) {
                pkgnote_crashes_free(l);
                return r;
        }
        if (l->n > 1)
                qsort(l->c, l->n, sizeof *l->c, cmp_crash);
        *ret = l;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_crashes_free(pkgnote_crashes *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                pn_crash_clear(&l->c[i]);
        free(l->c);
        pn_problems_clear(&l->problems);
        free(l->systemd_dir);
        free(l->journal_dir);
        for (size_t i = 0; l->journal_files && l->journal_files[i]; i++)
                free(l->journal_files[i]);
        free(l->journal_files);
        if (l->jr)
                pn_journal_api.sd_journal_close(l->jr);
        if (l->store_dfd >= 0)
                close(l->store_dfd);
        pn_crash_clear(&l->s.cur);
        for (size_t i = 0; i < l->s.ld.n_claimed; i++)
                free(l->s.ld.claimed[i]);
        free(l->s.ld.claimed);
        free(l->s.match);
        free(l->s.pkgnote_dir);
        free(l->s.systemd_dir);
        free(l->s.journal_dir);
        for (size_t i = 0; l->s.journal_files && l->s.journal_files[i]; i++)
                free(l->s.journal_files[i]);
        free(l->s.journal_files);
        free(l);
}

PKGNOTE_PUBLIC size_t pkgnote_crashes_count(const pkgnote_crashes *l) {
        return l && !l->s.on ? l->n : 0;
}

PKGNOTE_PUBLIC const pkgnote_crash *pkgnote_crashes_get(const pkgnote_crashes *l, size_t i) {
        return l && !l->s.on && i < l->n ? &l->c[i] : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_crashes_problem_count(const pkgnote_crashes *l) {
        return l ? l->problems.n : 0;
}

PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_crashes_problem(const pkgnote_crashes *l, size_t i) {
        return l ? pn_problems_get(&l->problems, i) : NULL;
}

PKGNOTE_PUBLIC int pkgnote_crash_store(const pkgnote_crash *c) {
        return c ? c->store : 0;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_id(const pkgnote_crash *c) {
        return c ? c->id : NULL;
}

PKGNOTE_PUBLIC int64_t pkgnote_crash_time(const pkgnote_crash *c) {
        return c ? c->time : 0;
}

PKGNOTE_PUBLIC int64_t pkgnote_crash_pid(const pkgnote_crash *c) {
        json_t *v = c ? json_object_get(c->j, "pid") : NULL;
        return json_is_integer(v) ? json_integer_value(v) : -1;
}

PKGNOTE_PUBLIC int64_t pkgnote_crash_uid(const pkgnote_crash *c) {
        json_t *v = c ? json_object_get(c->j, "uid") : NULL;
        return json_is_integer(v) ? json_integer_value(v) : -1;
}

PKGNOTE_PUBLIC int pkgnote_crash_signal(const pkgnote_crash *c) {
        json_t *v = c ? json_object_get(c->j, "signal") : NULL;
        return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 256 ? (int)json_integer_value(v)
                                                                                               : 0;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_field(const pkgnote_crash *c, const char *name) {
        return c && name ? pn_crash_string(c, name) : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_package_name(const pkgnote_crash *c) {
        return c ? str(json_object_get(c->j, "package"), "name") : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_package_version(const pkgnote_crash *c) {
        return c ? str(json_object_get(c->j, "package"), "version") : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_core_path(const pkgnote_crash *c) {
        return c ? c->core : NULL;
}

PKGNOTE_PUBLIC int pkgnote_crash_to_json(const pkgnote_crash *c, char **ret) {
        if (!c)
                return pn_error(-EINVAL, "no crash");
        json_t *j = pn_crash_record(c);
        json_t *o = json_pack("{s:I,s:O?,s:O?,s:O?,s:O?,s:O?,s:s?,s:s?,s:s?}", "time", (json_int_t)c->time, "pid",
                              json_object_get(j, "pid"), "uid", json_object_get(j, "uid"), "signal",
                              json_object_get(j, "signal"), "executable", json_object_get(j, "executable"), "package",
                              json_object_get(j, "package"), "coreFile", c->core, "store",
                              pkgnote_crash_store_name(c->store), "core",
                              c->core_state == PKGNOTE_CRASH_CORE_FILE       ? "file"
                              : c->core_state == PKGNOTE_CRASH_CORE_JOURNAL  ? "journal"
                              : c->core_state == PKGNOTE_CRASH_CORE_REJECTED ? "rejected"
                                                                             : "gone");
        /* A metadata-only entry: why its core was refused (1.2). */
        const char *why = c->core_state == PKGNOTE_CRASH_CORE_REJECTED ? json_string_value(json_object_get(j, "reason")) : NULL;
        if (o && c->core_state == PKGNOTE_CRASH_CORE_REJECTED &&
            json_object_set_new(o, "coreRejected", json_string(why ? why : "over quota")) < 0) {
                json_decref(o);
                o = NULL;
        }
        /* What a journal entry adds, where it has it. */
        static const char *const more[] = {"command", "commandLine", "signalName", "hostname", "unit", "userUnit",
                                           "slice", "cgroup", "bootId", "machineId", "timestamp",
                                           "kernelRelease", "kernelBuildId"};
        for (size_t i = 0; o && i < sizeof more / sizeof *more; i++) {
                json_t *v = json_object_get(j, more[i]);
                if (json_is_string(v) && json_object_set(o, more[i], v) < 0) {
                        json_decref(o);
                        o = NULL;
                }
        }
        /* Its signature, from what the store recorded (1.1). */
        pkgnote_signature *sig = NULL;
        if (o && pkgnote_crash_signature(c, &sig) == 0 &&
            (json_object_set_new(o, "signature", json_string(pkgnote_signature_text(sig))) < 0 ||
             json_object_set_new(o, "signatureHash", json_string(pkgnote_signature_hash(sig))) < 0 ||
             json_object_set_new(o, "signatureSource",
                                 json_string(pkgnote_signature_source_name(pkgnote_signature_source(sig)))) < 0)) {
                json_decref(o);
                o = NULL;
        }
        pkgnote_signature_free(sig);
        char *s = o ? pn_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(o);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_crash_open(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret) {
        if (!c)
                return pn_error(-EINVAL, "no crash");
        const struct pn_crash_store *st = store_of(c->store);
        if (!st)
                return pn_error(-EINVAL, "a crash of no known store");
        return st->open(c, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_crash_core_state(const pkgnote_crash *c) {
        return c ? c->core_state : PKGNOTE_CRASH_CORE_GONE;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_store_name(int store) {
        const struct pn_crash_store *st = store_of(store);
        return st ? st->name : NULL;
}

/* ---------------------------------------------------------- streaming */

static int strdup_opt(const char *s, char **ret) {
        *ret = NULL;
        return s && !(*ret = strdup(s)) ? pn_oom() : 0;
}

PKGNOTE_PUBLIC int pkgnote_crashes_open(const pkgnote_crash_options *o, pkgnote_crashes **ret) {
        pkgnote_crash_options opts;
        unsigned known;
        int r = read_options(o, &opts, &known);
        if (r < 0)
                return r;
        if (!ret)
                return pn_error(-EINVAL, "pkgnote_crashes_open: no list to return");
        pkgnote_crashes *l = list_new();
        if (!l)
                return pn_oom();
        struct pn_crash_stream *s = &l->s;
        s->on = true;
        s->want = opts.stores ? opts.stores : known;
        for (size_t i = 0; i < ELEMENTSOF(stores); i++)
                s->merge |= stores[i]->merge_one && (s->want & stores[i]->bit) && (s->want & stores[i]->copies_in);
        /* The strings the stream reads later are its own copies; the
         * journal's and systemd's directories are kept by the stores. */
        size_t nf = 0;
        while (opts.journal_files && opts.journal_files[nf])
                nf++;
        if ((r = strdup_opt(opts.match, &s->match)) < 0 || (r = strdup_opt(opts.pkgnote_dir, &s->pkgnote_dir)) < 0 ||
            (r = strdup_opt(opts.systemd_dir, &s->systemd_dir)) < 0 ||
            (r = strdup_opt(opts.journal_dir, &s->journal_dir)) < 0 ||
            (opts.journal_files && !(s->journal_files = calloc(nf + 1, sizeof *s->journal_files)) && (r = pn_oom()) < 0)) {
                pkgnote_crashes_free(l);
                return r;
        }
        for (size_t i = 0; i < nf; i++)
                if ((r = strdup_opt(opts.journal_files[i], &s->journal_files[i])) < 0) {
                        pkgnote_crashes_free(l);
                        return r;
                }
        opts.match = s->match;
        opts.pkgnote_dir = s->pkgnote_dir;
        opts.systemd_dir = s->systemd_dir;
        opts.journal_dir = s->journal_dir;
        opts.journal_files = (const char *const *)s->journal_files;
        s->o = opts;
        s->all = opts;
        if (s->merge)
                s->all.match = NULL, s->all.since = s->all.until = 0;
        *ret = l;
        return 0;
}

/* Whether the store ST is read, and whether it must exist. */
static bool stream_reads(const pkgnote_crashes *l, const struct pn_crash_store *st, bool *named) {
        *named = (l->s.o.stores & st->bit) || (st->located && st->located(&l->s.o));
        return l->s.want & st->bit;
}

/* Lets go of the loaded entries of c[], after they were handed out. */
static void stream_drop(pkgnote_crashes *l) {
        for (size_t i = 0; i < l->n; i++)
                pn_crash_clear(&l->c[i]);
        l->n = 0;
        l->s.pos = 0;
}

PKGNOTE_PUBLIC int pkgnote_crashes_next(pkgnote_crashes *l, const pkgnote_crash **ret) {
        if (!l || !ret || !l->s.on)
                return pn_error(-EINVAL, "pkgnote_crashes_next: no list of pkgnote_crashes_open()");
        struct pn_crash_stream *s = &l->s;
        pn_crash_clear(&s->cur);
        int r;
        bool named;
        for (;;)
                switch (s->phase) {
                case 0: /* pkgnote's store, whole (its copies merge into it), in time order */
                        s->phase = 1;
                        if (stream_reads(l, &pn_crash_store_pkgnote, &named)) {
                                if ((r = pn_crash_store_pkgnote.load(l, &s->all, named, &s->ld)) < 0)
                                        return r;
                                if (l->n > 1)
                                        qsort(l->c, l->n, sizeof *l->c, cmp_crash);
                        }
                        break;
                case 1: /* the journal, one entry at a time */
                        if (!stream_reads(l, &pn_crash_store_journal, &named)) {
                                s->phase = 2;
                                break;
                        }
                        r = pn_crash_store_journal.next(l, &s->all, named, &s->ld, &s->cur);
                        if (r < 0)
                                return r;
                        if (r == 0) {
                                s->phase = 2;
                                break;
                        }
                        if (s->merge && (r = pn_crash_store_pkgnote.merge_one(l, &s->cur)) != 0) {
                                if (r < 0)
                                        return r;
                                break; /* merged: no crash of its own */
                        }
                        if (!pn_crash_wanted(&s->cur, &s->o)) {
                                pn_crash_clear(&s->cur);
                                break;
                        }
                        *ret = &s->cur;
                        return 1;
                case 2: /* pkgnote's entries, with what the journal added */
                case 3: /* systemd's store files no journal entry names */
                        while (s->pos < l->n) {
                                const struct pkgnote_crash *c = &l->c[s->pos++];
                                if (pn_crash_wanted(c, &s->o)) {
                                        *ret = c;
                                        return 1;
                                }
                        }
                        stream_drop(l);
                        if (s->phase++ == 3)
                                break;
                        if (stream_reads(l, &pn_crash_store_systemd, &named)) {
                                if ((r = pn_crash_store_systemd.load(l, &s->all, named, &s->ld)) < 0)
                                        return r;
                                if (l->n > 1)
                                        qsort(l->c, l->n, sizeof *l->c, cmp_crash);
                        }
                        break;
                default:
                        return 0;
                }
}
