/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crash groups: the crashes of the stores counted by signature, package or
 * executable, fed one crash at a time (the rules: include/pkgnote.h
 * "Crash groups", pkgnote-list(1)).
 *
 * A journal of a million crashes must not need a million records: each
 * group keeps counts and bounded sets (machines, boots as 64-bit hashes,
 * versions, per-day counts) and one example crash, so what is held grows
 * with the number of groups.  The string-keyed sets are jansson objects
 * (its hash table), mapping a key to its item's index; sorting for output
 * rewrites those indices in place, so output allocates nothing that a
 * later pkgnote_crash_groups_add() depends on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <jansson.h>

#include "03-model-json.h"
#include "01-base.h"
#include "11-crash-private.h"

struct item {
        char *key;  /* the set's key: "m:ID" or "h:HOST" for a machine, the version */
        char *name; /* machine ID (NULL when unknown) or version */
        char *host; /* a machine's host name, or NULL */
        uint64_t count;
        int64_t first, last;
};

struct items {
        json_t *index; /* key -> index into v */
        struct item *v;
        size_t n, cap;
};

struct day {
        int64_t day;         /* days since the epoch, UTC */
        const char *version; /* a version item's name (stable while the group lives), or NULL */
        uint64_t count;
        size_t rank;         /* for sorting: the version's place in the group's list, 0 for none */
};

/* The example crash: what pkgnote_crash_to_json() reads of it. */
struct example {
        int store, core_state;
        int64_t time;
        char *id, *core;
        json_t *j; /* the store's record, shared: a crash's record is never changed once listed */
};

struct pkgnote_crash_group {
        char *key, *package;
        char hash[17]; /* "" without a signature */
        uint64_t count, boots;
        int64_t first, last;
        struct items machines, versions;
        struct items kernels; /* the running kernels' releases the reports name */
        uint64_t *boot_set; /* open addressing, 0 free; cap a power of two */
        size_t boot_cap;
        struct day *days;
        size_t n_days, cap_days;
        struct example ex;
        const char *not_seen_since; /* a key of the releases map */
};

struct pkgnote_crash_groups {
        int by;
        json_t *index; /* key -> index into g */
        struct pkgnote_crash_group **g;
        size_t n, cap;
        uint64_t crashes;
        int64_t first, last;
        json_t *machines; /* machine key -> true */
        json_t *releases; /* package -> {version -> first time} */
        size_t n_releases;
        bool sorted;
        uint64_t seed; /* of the boot sets' slots: boot IDs come from other machines */
};

static void items_clear(struct items *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->v[i].key);
                free(s->v[i].name);
                free(s->v[i].host);
        }
        free(s->v);
        json_decref(s->index);
}

static void group_free(struct pkgnote_crash_group *grp) {
        if (!grp)
                return;
        free(grp->key);
        free(grp->package);
        items_clear(&grp->machines);
        items_clear(&grp->versions);
        items_clear(&grp->kernels);
        free(grp->boot_set);
        free(grp->days);
        free(grp->ex.id);
        free(grp->ex.core);
        json_decref(grp->ex.j);
        free(grp);
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_by_name(int by) {
        switch (by) {
        case PKGNOTE_GROUP_SIGNATURE: return "signature";
        case PKGNOTE_GROUP_PACKAGE: return "package";
        case PKGNOTE_GROUP_EXECUTABLE: return "executable";
        default: return NULL;
        }
}

PKGNOTE_PUBLIC int pkgnote_crash_group_by_from_name(const char *name) {
        for (int by = PKGNOTE_GROUP_SIGNATURE; by <= PKGNOTE_GROUP_EXECUTABLE; by++)
                if (name && !strcmp(name, pkgnote_crash_group_by_name(by)))
                        return by;
        return pn_error(-EINVAL, "crashes are grouped by signature, package or executable, not '%s'",
                        name ? name : "");
}

PKGNOTE_PUBLIC int pkgnote_crash_groups_new(int by, pkgnote_crash_groups **ret) {
        if (!ret || !pkgnote_crash_group_by_name(by))
                return pn_error(-EINVAL, "pkgnote_crash_groups_new: no grouping %d", by);
        pkgnote_crash_groups *g = calloc(1, sizeof *g);
        if (!g)
                return pn_oom();
        g->by = by;
        /* a secret basis for the boot sets' hashes; without the kernel's
         * randomness, one that differs from run to run */
        if (getrandom(&g->seed, sizeof g->seed, GRND_NONBLOCK) != (ssize_t)sizeof g->seed)
                g->seed = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)g ^ ((uint64_t)clock() << 32);
        g->index = json_object();
        g->machines = json_object();
        g->releases = json_object();
        if (!g->index || !g->machines || !g->releases) {
                pkgnote_crash_groups_free(g);
                return pn_oom();
        }
        *ret = g;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_crash_groups_free(pkgnote_crash_groups *g) {
        if (!g)
                return;
        for (size_t i = 0; i < g->n; i++)
                group_free(g->g[i]);
        free(g->g);
        json_decref(g->index);
        json_decref(g->machines);
        json_decref(g->releases);
        free(g);
}

/* ------------------------------------------------------------- the sets */

/* The item of KEY in S, added with NAME and HOST when new and S holds
 * fewer than MAX; NULL when S is full (*OOM false) or out of memory. */
static struct item *item_get(struct items *s, const char *key, const char *name, const char *host, size_t max,
                             bool *oom) {
        *oom = false;
        if (!s->index && !(s->index = json_object()))
                return *oom = true, NULL;
        json_t *at = json_object_get(s->index, key);
        if (at)
                return &s->v[json_integer_value(at)];
        if (s->n >= max)
                return NULL;
        if (PN_GROW(s->v, s->cap, s->n + 1) < 0)
                return *oom = true, NULL;
        struct item it = {.key = strdup(key), .name = name ? strdup(name) : NULL, .host = host ? strdup(host) : NULL};
        if (!it.key || (name && !it.name) || (host && !it.host) ||
            json_object_set_new(s->index, key, json_integer((json_int_t)s->n)) < 0) {
                free(it.key);
                free(it.name);
                free(it.host);
                return *oom = true, NULL;
        }
        s->v[s->n] = it;
        return &s->v[s->n++];
}

static void item_count(struct item *it, int64_t t) {
        if (it->count == 0 || t < it->first)
                it->first = t;
        if (it->count == 0 || t > it->last)
                it->last = t;
        it->count++;
}

/* FNV-1a from SEED's basis, never 0 (the set's free slot). */
static uint64_t hash64(const char *s, uint64_t seed) {
        uint64_t h = 0xcbf29ce484222325ull ^ seed;
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
        return h ? h : 1;
}

/* The slot of H in a set of CAP (a power of 2): its bits mixed (the
 * finalizer of splitmix64), so that IDs a machine chose cannot pile up
 * in one run of slots. */
static size_t boot_slot(uint64_t h, size_t cap) {
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
        return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static int boot_add(struct pkgnote_crash_group *grp, const char *boot, uint64_t seed) {
        if (grp->boots >= PKGNOTE_MAX_GROUP_BOOTS)
                return 0;
        if ((grp->boots + 1) * 2 > grp->boot_cap) {
                size_t cap = grp->boot_cap ? grp->boot_cap * 2 : 16;
                uint64_t *set = calloc(cap, sizeof *set);
                if (!set)
                        return pn_oom();
                for (size_t i = 0; i < grp->boot_cap; i++)
                        if (grp->boot_set[i])
                                for (size_t k = boot_slot(grp->boot_set[i], cap);; k = (k + 1) & (cap - 1))
                                        if (!set[k]) {
                                                set[k] = grp->boot_set[i];
                                                break;
                                        }
                free(grp->boot_set);
                grp->boot_set = set;
                grp->boot_cap = cap;
        }
        uint64_t h = hash64(boot, seed);
        for (size_t k = boot_slot(h, grp->boot_cap);; k = (k + 1) & (grp->boot_cap - 1)) {
                if (grp->boot_set[k] == h)
                        return 0;
                if (!grp->boot_set[k]) {
                        grp->boot_set[k] = h;
                        grp->boots++;
                        return 0;
                }
        }
}

static int64_t day_of(int64_t t) {
        /* no overflow at the ends of the range a report may give */
        return t >= 0 ? t / 86400 : -1 - (-(t + 1) / 86400);
}

static int day_add(struct pkgnote_crash_group *grp, int64_t t, const char *version) {
        int64_t d = day_of(t);
        /* crashes come mostly in time order: the day is near the end */
        for (size_t i = grp->n_days; i-- > 0;)
                if (grp->days[i].day == d && grp->days[i].version == version) {
                        grp->days[i].count++;
                        return 0;
                }
        if (grp->n_days >= PKGNOTE_MAX_GROUP_DAYS)
                return 0;
        if (PN_GROW(grp->days, grp->cap_days, grp->n_days + 1) < 0)
                return pn_oom();
        grp->days[grp->n_days++] = (struct day){d, version, 1, 0};
        return 0;
}

/* That PACKAGE's VERSION was seen at T: its first time. */
static int release_add(pkgnote_crash_groups *g, const char *package, const char *version, int64_t t) {
        if (!package || !version)
                return 0;
        json_t *p = json_object_get(g->releases, package);
        json_t *v = p ? json_object_get(p, version) : NULL;
        if (v) {
                if (t < json_integer_value(v))
                        json_integer_set(v, t);
                return 0;
        }
        if (g->n_releases >= PKGNOTE_MAX_GROUPS_RELEASES)
                return 0;
        if (!p && json_object_set_new(g->releases, package, p = json_object()) < 0)
                return pn_oom();
        if (json_object_set_new(p, version, json_integer(t)) < 0)
                return pn_oom();
        g->n_releases++;
        return 0;
}

/* ------------------------------------------------------------ a crash */

static const char *base_name(const char *path) {
        const char *s = path ? strrchr(path, '/') : NULL;
        return s && s[1] ? s + 1 : path;
}

/* What C is grouped by: its key, hash, package and version. */
struct what {
        char *key; /* malloc()ed */
        const char *hash, *package, *version;
};

static int what_of(int by, const pkgnote_crash *c, const pkgnote_signature *sig, struct what *w) {
        const char *exe = pkgnote_crash_field(c, "executable");
        const char *exe_pkg = pkgnote_crash_package_name(c), *exe_ver = pkgnote_crash_package_version(c);
        *w = (struct what){0};
        if (by == PKGNOTE_GROUP_EXECUTABLE) {
                w->key = strdup(exe ? exe : "?");
                w->package = exe_pkg;
                w->version = exe_pkg ? exe_ver : NULL;
                return w->key ? 0 : pn_oom();
        }
        const char *sig_pkg = pkgnote_signature_package(sig);
        w->package = sig ? sig_pkg : exe_pkg;
        if (sig && pkgnote_signature_version(sig))
                w->version = pkgnote_signature_version(sig);
        else if (!sig || (exe_pkg && !strcmp(exe_pkg, sig_pkg)))
                w->version = exe_pkg ? exe_ver : NULL;
        if (by == PKGNOTE_GROUP_PACKAGE) {
                const char *k = w->package ? w->package : exe ? base_name(exe) : "?";
                w->key = strdup(k);
        } else if (sig) {
                w->key = strdup(pkgnote_signature_text(sig));
                w->hash = pkgnote_signature_hash(sig);
        } else {
                /* no stack anywhere: "NAME: ?" */
                const char *name = exe_pkg ? exe_pkg : exe ? base_name(exe) : "?";
                size_t len = strlen(name);
                if ((w->key = malloc(len + 4)))
                        memcpy(w->key, name, len), memcpy(w->key + len, ": ?", 4);
        }
        return w->key ? 0 : pn_oom();
}

/* The group of W, new when there is none yet. */
static int group_of(pkgnote_crash_groups *g, const struct what *w, struct pkgnote_crash_group **ret) {
        json_t *at = json_object_get(g->index, w->key);
        if (at) {
                *ret = g->g[json_integer_value(at)];
                return 0;
        }
        if (g->n >= PKGNOTE_MAX_CRASH_GROUPS)
                return pn_error(-E2BIG, "more than %u crash groups", PKGNOTE_MAX_CRASH_GROUPS);
        if (PN_GROW(g->g, g->cap, g->n + 1) < 0)
                return pn_oom();
        struct pkgnote_crash_group *grp = calloc(1, sizeof *grp);
        if (!grp || !(grp->key = strdup(w->key)) || (w->package && !(grp->package = strdup(w->package))) ||
            json_object_set_new(g->index, w->key, json_integer((json_int_t)g->n)) < 0) {
                group_free(grp);
                return pn_oom();
        }
        if (w->hash)
                snprintf(grp->hash, sizeof grp->hash, "%s", w->hash);
        g->g[g->n++] = grp;
        *ret = grp;
        return 0;
}

/* Keeps C as GRP's example when it is a better one: a core still there
 * first, then the latest. */
static int example_offer(struct pkgnote_crash_group *grp, const pkgnote_crash *c) {
        bool has = c->core_state == PKGNOTE_CRASH_CORE_FILE || c->core_state == PKGNOTE_CRASH_CORE_JOURNAL,
             had = grp->ex.core_state == PKGNOTE_CRASH_CORE_FILE || grp->ex.core_state == PKGNOTE_CRASH_CORE_JOURNAL;
        if (grp->ex.j && (had > has || (had == has && c->time < grp->ex.time)))
                return 0;
        char *id = strdup(c->id ? c->id : ""), *core = c->core ? strdup(c->core) : NULL;
        if (!id || (c->core && !core)) {
                free(id);
                free(core);
                return pn_oom();
        }
        /* the whole record (a journal entry's listing holds only some of
         * its fields until asked), kept by reference: a store lets its
         * record go, never changes it */
        json_t *j = pn_crash_record(c);
        free(grp->ex.id);
        free(grp->ex.core);
        json_decref(grp->ex.j);
        grp->ex = (struct example){c->store, c->core_state, c->time, id, core, json_incref(j)};
        return 0;
}

static int machine_add(pkgnote_crash_groups *g, struct pkgnote_crash_group *grp, const pkgnote_crash *c) {
        const char *id = pkgnote_crash_field(c, "machineId"), *host = pkgnote_crash_field(c, "hostname");
        struct pn_text t = {0};
        pn_text_add(&t, "%s%s", id ? "m:" : host ? "h:" : "", id ? id : host ? host : "");
        char *key;
        if (pn_text_finish(&t, &key) < 0)
                return pn_oom();
        bool oom;
        struct item *it = item_get(&grp->machines, key, id, host, PKGNOTE_MAX_GROUP_MACHINES, &oom);
        if (it)
                item_count(it, c->time);
        int r = oom ? pn_oom() : 0;
        if (r == 0 && !json_object_get(g->machines, key) && json_object_size(g->machines) < PKGNOTE_MAX_GROUPS_MACHINES &&
            json_object_set_new(g->machines, key, json_true()) < 0)
                r = pn_oom();
        free(key);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_crash_groups_add(pkgnote_crash_groups *g, const pkgnote_crash *c) {
        if (!g || !c)
                return pn_error(-EINVAL, "pkgnote_crash_groups_add: no groups or crash");
        pkgnote_signature *sig = NULL;
        /* A stack text that cannot be read leaves the crash without a
         * signature, as one whose store has none. */
        if (g->by != PKGNOTE_GROUP_EXECUTABLE && pkgnote_crash_signature(c, &sig) < 0)
                sig = NULL;
        struct what w;
        struct pkgnote_crash_group *grp = NULL;
        int r = what_of(g->by, c, sig, &w);
        if (r >= 0)
                r = group_of(g, &w, &grp);
        if (r >= 0) {
                g->sorted = false;
                /* what is known of when versions shipped: the group's
                 * package and the executable's */
                r = release_add(g, w.package, w.version, c->time);
                if (r >= 0)
                        r = release_add(g, pkgnote_crash_package_name(c), pkgnote_crash_package_version(c), c->time);
        }
        const char *version = NULL;
        if (r >= 0 && w.version) {
                bool oom;
                struct item *it = item_get(&grp->versions, w.version, w.version, NULL, PKGNOTE_MAX_GROUP_VERSIONS, &oom);
                if (it) {
                        item_count(it, c->time);
                        version = it->name;
                }
                r = oom ? pn_oom() : 0;
        }
        const char *kernel = pkgnote_crash_field(c, "kernelRelease");
        if (r >= 0 && kernel) {
                bool oom;
                struct item *it = item_get(&grp->kernels, kernel, kernel, NULL, PKGNOTE_MAX_GROUP_VERSIONS, &oom);
                if (it)
                        item_count(it, c->time);
                r = oom ? pn_oom() : 0;
        }
        if (r >= 0)
                r = machine_add(g, grp, c);
        const char *boot = pkgnote_crash_field(c, "bootId");
        if (r >= 0 && boot)
                r = boot_add(grp, boot, g->seed);
        if (r >= 0)
                r = day_add(grp, c->time, version);
        if (r >= 0)
                r = example_offer(grp, c);
        if (r >= 0) {
                if (grp->count == 0 || c->time < grp->first)
                        grp->first = c->time;
                if (grp->count == 0 || c->time > grp->last)
                        grp->last = c->time;
                grp->count++;
                if (g->crashes == 0 || c->time < g->first)
                        g->first = c->time;
                if (g->crashes == 0 || c->time > g->last)
                        g->last = c->time;
                g->crashes++;
        }
        free(w.key);
        pkgnote_signature_free(sig);
        return r < 0 ? r : 0;
}

/* --------------------------------------------------------------- output */

static int cmp_group(const void *a, const void *b) {
        const struct pkgnote_crash_group *x = *(struct pkgnote_crash_group *const *)a,
                                         *y = *(struct pkgnote_crash_group *const *)b;
        if (x->count != y->count)
                return x->count > y->count ? -1 : 1;
        if (x->last != y->last)
                return x->last > y->last ? -1 : 1;
        return strcmp(x->key, y->key);
}

static int cmp_machine(const void *a, const void *b) {
        const struct item *x = a, *y = b;
        if (x->count != y->count)
                return x->count > y->count ? -1 : 1;
        return strcmp(x->key, y->key);
}

static int cmp_version(const void *a, const void *b) {
        const struct item *x = a, *y = b;
        if (x->first != y->first)
                return x->first < y->first ? -1 : 1;
        return strcmp(x->key, y->key);
}

/* The order of the versions as GRP lists them; NULL (no version) first. */
static size_t version_rank(const struct pkgnote_crash_group *grp, const char *version) {
        if (!version)
                return 0;
        json_t *at = json_object_get(grp->versions.index, version);
        return at ? (size_t)json_integer_value(at) + 1 : 0;
}

static int cmp_day(const void *a, const void *b) {
        const struct day *x = a, *y = b;
        if (x->day != y->day)
                return x->day < y->day ? -1 : 1;
        return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Sorts S with CMP and points its index at the new places (no allocation). */
static void items_sort(struct items *s, int (*cmp)(const void *, const void *)) {
        if (s->n > 1)
                qsort(s->v, s->n, sizeof *s->v, cmp);
        for (size_t i = 0; i < s->n; i++)
                json_integer_set(json_object_get(s->index, s->v[i].key), (json_int_t)i);
}

/* The version of GRP's package first seen after its last crash, or NULL. */
static const char *not_seen_since(const pkgnote_crash_groups *g, const struct pkgnote_crash_group *grp) {
        json_t *p = grp->package ? json_object_get(g->releases, grp->package) : NULL;
        const char *best = NULL, *v;
        json_int_t best_t = 0;
        json_t *t;
        json_object_foreach(p, v, t) {
                json_int_t x = json_integer_value(t);
                if (x > grp->last && (!best || x < best_t || (x == best_t && strcmp(v, best) < 0)))
                        best = v, best_t = x;
        }
        return best;
}

/* Sorts what output lists; it allocates nothing, so it cannot fail. */
static void settle(pkgnote_crash_groups *g) {
        if (g->sorted)
                return;
        if (g->n > 1)
                qsort(g->g, g->n, sizeof *g->g, cmp_group);
        for (size_t i = 0; i < g->n; i++) {
                struct pkgnote_crash_group *grp = g->g[i];
                json_integer_set(json_object_get(g->index, grp->key), (json_int_t)i);
                items_sort(&grp->machines, cmp_machine);
                items_sort(&grp->versions, cmp_version);
                items_sort(&grp->kernels, cmp_version);
                for (size_t k = 0; k < grp->n_days; k++)
                        grp->days[k].rank = version_rank(grp, grp->days[k].version);
                if (grp->n_days > 1)
                        qsort(grp->days, grp->n_days, sizeof *grp->days, cmp_day);
                grp->not_seen_since = not_seen_since(g, grp);
        }
        g->sorted = true;
}

PKGNOTE_PUBLIC int pkgnote_crash_groups_get_stats(const pkgnote_crash_groups *g, pkgnote_crash_groups_stats *ret) {
        if (!g || !ret || ret->size < sizeof(size_t))
                return pn_error(-EINVAL, "pkgnote_crash_groups_get_stats: no groups or a stats struct of size %zu",
                                ret ? ret->size : 0);
        pkgnote_crash_groups_stats st = {
                .size = ret->size,
                .by = g->by,
                .crashes = g->crashes,
                .groups = g->n,
                .machines = json_object_size(g->machines),
                .first = g->first,
                .last = g->last,
        };
        memcpy((char *)ret + sizeof(size_t), (char *)&st + sizeof(size_t),
               (ret->size < sizeof st ? ret->size : sizeof st) - sizeof(size_t));
        return 0;
}

PKGNOTE_PUBLIC const pkgnote_crash_group *pkgnote_crash_groups_get(pkgnote_crash_groups *g, size_t i) {
        if (!g || i >= g->n)
                return NULL;
        settle(g);
        return g->g[i];
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_key(const pkgnote_crash_group *grp) {
        return grp ? grp->key : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_hash(const pkgnote_crash_group *grp) {
        return grp && grp->hash[0] ? grp->hash : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_package(const pkgnote_crash_group *grp) {
        return grp ? grp->package : NULL;
}

PKGNOTE_PUBLIC uint64_t pkgnote_crash_group_count(const pkgnote_crash_group *grp) {
        return grp ? grp->count : 0;
}

PKGNOTE_PUBLIC int64_t pkgnote_crash_group_first(const pkgnote_crash_group *grp) {
        return grp ? grp->first : 0;
}

PKGNOTE_PUBLIC int64_t pkgnote_crash_group_last(const pkgnote_crash_group *grp) {
        return grp ? grp->last : 0;
}

PKGNOTE_PUBLIC uint64_t pkgnote_crash_group_boots(const pkgnote_crash_group *grp) {
        return grp ? grp->boots : 0;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_not_seen_since(const pkgnote_crash_group *grp) {
        return grp ? grp->not_seen_since : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_crash_group_example_id(const pkgnote_crash_group *grp) {
        return grp ? grp->ex.id : NULL;
}

static int item_out(const struct items *s, size_t i, pkgnote_crash_group_item *ret) {
        if (!ret || ret->size < sizeof(size_t))
                return pn_error(-EINVAL, "a crash group item struct of size %zu", ret ? ret->size : 0);
        if (i >= s->n)
                return 0;
        const struct item *it = &s->v[i];
        pkgnote_crash_group_item o = {ret->size, it->name, it->host, it->count, it->first, it->last};
        memcpy((char *)ret + sizeof(size_t), (char *)&o + sizeof(size_t),
               (ret->size < sizeof o ? ret->size : sizeof o) - sizeof(size_t));
        return 1;
}

PKGNOTE_PUBLIC size_t pkgnote_crash_group_machine_count(const pkgnote_crash_group *grp) {
        return grp ? grp->machines.n : 0;
}

PKGNOTE_PUBLIC int pkgnote_crash_group_machine(const pkgnote_crash_group *grp, size_t i, pkgnote_crash_group_item *ret) {
        if (!grp)
                return pn_error(-EINVAL, "pkgnote_crash_group_machine: no group");
        return item_out(&grp->machines, i, ret);
}

PKGNOTE_PUBLIC size_t pkgnote_crash_group_version_count(const pkgnote_crash_group *grp) {
        return grp ? grp->versions.n : 0;
}

PKGNOTE_PUBLIC int pkgnote_crash_group_version(const pkgnote_crash_group *grp, size_t i, pkgnote_crash_group_item *ret) {
        if (!grp)
                return pn_error(-EINVAL, "pkgnote_crash_group_version: no group");
        return item_out(&grp->versions, i, ret);
}

/* ----------------------------------------------------------------- JSON */

static json_t *time_json(bool known, int64_t t) {
        return known ? json_integer((json_int_t)t) : json_null();
}

static json_t *group_json(const struct pkgnote_crash_group *grp) {
        json_t *machines = json_array(), *versions = json_array(), *days = json_array();
        json_t *o = json_pack("{s:s, s:s?, s:s?, s:I, s:I, s:I, s:I, s:o, s:o}", "key", grp->key, "hash",
                              grp->hash[0] ? grp->hash : NULL, "package", grp->package, "count", (json_int_t)grp->count,
                              "first", (json_int_t)grp->first, "last", (json_int_t)grp->last, "boots",
                              (json_int_t)grp->boots, "machines", machines, "versions", versions);
        bool ok = o != NULL;
        if (!ok)
                json_decref(days);
        /* "hash" is present for signature groups only */
        if (ok && !grp->hash[0])
                json_object_del(o, "hash");
        for (size_t i = 0; ok && i < grp->machines.n; i++) {
                const struct item *it = &grp->machines.v[i];
                ok = json_array_append_new(machines, json_pack("{s:s?, s:s?, s:I, s:I}", "machineId", it->name,
                                                               "hostname", it->host, "count", (json_int_t)it->count,
                                                               "last", (json_int_t)it->last)) == 0;
        }
        for (size_t i = 0; ok && i < grp->versions.n; i++) {
                const struct item *it = &grp->versions.v[i];
                ok = json_array_append_new(versions, json_pack("{s:s, s:I, s:I, s:I}", "version", it->name, "count",
                                                               (json_int_t)it->count, "first", (json_int_t)it->first,
                                                               "last", (json_int_t)it->last)) == 0;
        }
        if (ok && grp->not_seen_since)
                ok = json_object_set_new(o, "notSeenSince", json_string(grp->not_seen_since)) == 0;
        /* the running kernels, where the reports name them (pkgnote's store) */
        json_t *kernels = ok && grp->kernels.n ? json_array() : NULL;
        for (size_t i = 0; kernels && i < grp->kernels.n; i++) {
                const struct item *it = &grp->kernels.v[i];
                if (json_array_append_new(kernels, json_pack("{s:s, s:I, s:I, s:I}", "release", it->name, "count",
                                                             (json_int_t)it->count, "first", (json_int_t)it->first,
                                                             "last", (json_int_t)it->last)) < 0) {
                        json_decref(kernels);
                        kernels = NULL;
                }
        }
        if (ok && grp->kernels.n)
                ok = kernels && json_object_set_new(o, "kernels", kernels) == 0;
        for (size_t i = 0; ok && i < grp->n_days; i++) {
                const struct day *d = &grp->days[i];
                time_t t = (time_t)(d->day * 86400);
                struct tm tm;
                char day[32] = "?";
                if (gmtime_r(&t, &tm))
                        strftime(day, sizeof day, "%Y-%m-%d", &tm);
                ok = json_array_append_new(days, json_pack("{s:s, s:s?, s:I}", "day", day, "version", d->version,
                                                           "count", (json_int_t)d->count)) == 0;
        }
        if (ok)
                ok = json_object_set_new(o, "days", days) == 0;
        /* the example, as pkgnote list --json gives it */
        char *ex = NULL;
        if (ok) {
                struct pkgnote_crash c = {.store = grp->ex.store,
                                          .id = grp->ex.id,
                                          .core = grp->ex.core,
                                          .j = grp->ex.j,
                                          .time = grp->ex.time,
                                          .core_state = grp->ex.core_state};
                ok = pkgnote_crash_to_json(&c, &ex) == 0;
        }
        json_t *exj = ex ? json_loads(ex, 0, NULL) : NULL;
        free(ex);
        /* and its id, which pkgnote core takes as MATCH (a store's name
         * that is no UTF-8 is left out) */
        json_t *idj = exj && grp->ex.id ? json_string(grp->ex.id) : NULL;
        if (idj && json_object_set_new(exj, "id", idj) < 0)
                ok = false;
        if (ok)
                ok = exj && json_object_set_new(o, "example", exj) == 0;
        else
                json_decref(exj);
        if (!ok) {
                json_decref(o);
                return NULL;
        }
        return o;
}

PKGNOTE_PUBLIC int pkgnote_crash_groups_to_json(pkgnote_crash_groups *g, size_t top, char **ret) {
        if (!g || !ret)
                return pn_error(-EINVAL, "pkgnote_crash_groups_to_json: no groups");
        settle(g);
        json_t *groups = json_array();
        json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:o, s:o, s:o}", "groupBy", pkgnote_crash_group_by_name(g->by),
                              "crashes", (json_int_t)g->crashes, "groupCount", (json_int_t)g->n, "machineCount",
                              (json_int_t)json_object_size(g->machines), "first", time_json(g->crashes, g->first),
                              "last", time_json(g->crashes, g->last), "groups", groups);
        bool ok = o != NULL;
        size_t n = top && top < g->n ? top : g->n;
        for (size_t i = 0; ok && i < n; i++)
                ok = json_array_append_new(groups, group_json(g->g[i])) == 0;
        char *s = ok ? pn_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(o);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}
