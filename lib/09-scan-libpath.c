/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Library names resolved inside a scanned root: what the dynamic loader
 * would find for a DT_NEEDED entry or a dlopen note's soname
 * ("libzstd.so.1", usually a symbolic link to "libzstd.so.1.5.4") in the
 * root's library directories, so that the SBOMs point a dependency at
 * the package that ships the file, not at a component of the name alone.
 *
 * The links resolve inside the root as if it were "/" (01-base-root.c,
 * openat2 RESOLVE_IN_ROOT, for a tree; the merged layers of an archive or
 * image, 09-scan-layers.c): a link never leads out of it.
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "07-check-resolve.h"
#include "01-base.h"
#include "09-scan-private.h"

/* A name to resolve, for objects of an ABI: those whose own DT_RPATH,
 * DT_RUNPATH or DF_1_NODEFLIB changes the search each have theirs (BY). */
struct want {
        const char *name;
        struct pn_abi abi;
        const struct pkgnote_scan_object *by;
};

static int cmp_want(const void *a, const void *b) {
        const struct want *x = a, *y = b;
        int c = pn_abi_cmp(&x->abi, &y->abi);
        if (c)
                return c;
        if (x->by != y->by)
                return (uintptr_t)x->by < (uintptr_t)y->by ? -1 : 1;
        return strcmp(x->name, y->name);
}

static struct pn_abi object_abi(const struct pkgnote_scan_object *o) {
        return pn_abi_make(o->elf_class, o->be, o->machine, o->eflags);
}

/* Whether O's own search differs from its root's. */
static bool own_search(const struct pkgnote_scan_object *o) {
        return o->rpath || o->runpath || o->nodeflib;
}

/* Whether NAME is one file name a loader looks up in its directories. */
static bool plain_name(const char *name) {
        return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
               strlen(name) < PN_LIBPATH_MAX_NAME;
}

/* A root's objects by path, and how its paths are found. */
struct lookroot {
        pn_libroot_find find;
        void *u;
        const char *path; /* the root's path, before its objects' paths in it */
        struct pkgnote_scan_object **byp;
        size_t no;
};

static int cmp_object_path(const void *a, const void *b) {
        return strcmp((*(struct pkgnote_scan_object *const *)a)->path, (*(struct pkgnote_scan_object *const *)b)->path);
}

struct cand {
        const struct lookroot *lr;
        const struct pn_abi *abi;
};

/* A file the loader's search meets (lib/07-check-resolve.c): the scanned
 * object there, when it is one of the ABI. */
static int candidate(void *u, const char *abs, const char *hwcaps, size_t *obj) {
        const struct cand *x = u;
        const struct lookroot *lr = x->lr;
        (void)hwcaps;
        char *rel = NULL;
        int r = lr->find(lr->u, abs, &rel);
        if (r <= 0)
                return r;
        char *file = *lr->path ? pn_scan_join(lr->path, rel) : strdup(rel);
        free(rel);
        if (!file)
                return -ENOMEM;
        struct pkgnote_scan_object key = {.path = file}, *kp = &key;
        struct pkgnote_scan_object **hit = lr->no ? bsearch(&kp, lr->byp, lr->no, sizeof *lr->byp, cmp_object_path) : NULL;
        free(file);
        if (!hit)
                return 0; /* no ELF object, or one not read */
        struct pn_abi got = object_abi(*hit);
        if (!pn_abi_accepts(x->abi, &got))
                return 0;
        *obj = (size_t)(hit - lr->byp);
        return 1;
}

/* The directory of object O in its root: $ORIGIN. */
static char *origin_of(const struct lookroot *lr, const struct pkgnote_scan_object *o) {
        const char *p = o->path;
        size_t pl = strlen(lr->path);
        if (pl && !strncmp(p, lr->path, pl))
                p += pl;
        if (pl && lr->path[pl - 1] == '/')
                p--; /* the root "/": its objects' paths start with it */
        const char *slash = strrchr(p, '/');
        char *o2;
        if (asprintf(&o2, "%s%.*s", *p == '/' ? "" : "/", slash ? (int)(slash - p) : 0, p) < 0)
                return NULL;
        if (!*o2) {
                free(o2);
                return strdup("/");
        }
        return o2;
}

/* The search path of one object, kept for its names (sorted together). */
struct ownpath {
        const struct pkgnote_scan_object *by;
        struct pn_dirlist rpath, runpath;
};

/* The object the loader of W finds: 1 with it in *RET, 0 none, -ENOMEM. */
static int resolve(pn_resolver *res, const struct lookroot *lr, const struct want *w, struct ownpath *own,
                   const struct pkgnote_scan_object **ret) {
        struct cand x = {lr, &w->abi};
        struct pn_lookup q = {.name = w->name, .abi = w->abi, .candidate = candidate, .u = &x};
        const struct pn_dirlist *rp = &own->rpath;
        int r = 0;
        if (w->by && own->by != w->by) {
                /* As the loader searches for the object loaded first: its
                 * DT_RPATH unless it has DT_RUNPATH (no loader's before
                 * it: which program loads a library is not known). */
                pn_dirlist_done(&own->rpath);
                pn_dirlist_done(&own->runpath);
                own->by = w->by;
                char *origin = origin_of(lr, w->by);
                if (!origin)
                        return -ENOMEM;
                if (w->by->runpath)
                        r = pn_resolver_expand(res, w->by->runpath, origin, &w->abi, NULL, &own->runpath);
                else if (w->by->rpath)
                        r = pn_resolver_expand(res, w->by->rpath, origin, &w->abi, NULL, &own->rpath);
                free(origin);
        }
        if (w->by) {
                q.rpath = &rp, q.n_rpath = 1;
                q.runpath = &own->runpath;
                q.nodeflib = w->by->nodeflib;
        }
        if (r == 0)
                r = pn_resolver_lookup(res, &q);
        if (r < 0)
                return r;
        if (r == 0 && q.variant == SIZE_MAX)
                return 0;
        /* Only in a glibc-hwcaps subdirectory: that one, as the closure
         * lists it. */
        *ret = lr->byp[r ? q.found : q.variant];
        return 1;
}

/* A tree on disk below ROOTFD, its links resolved by the kernel inside it. */
static int find_in_tree(void *u, const char *abs, char **ret) {
        struct stat st;
        int r = pn_resolve_in_root(*(int *)u, abs, ret, &st);
        pn_error_clear();
        return r == -ENOMEM ? r : r == 0;
}

/* The order of the resolved names, for pn_scan_lib_object()'s search. */
static int cmp_libpath(const void *a, const void *b) {
        const struct pn_libpath *x = a, *y = b;
        /* The root alone: an archive inside a tree is another root of
         * the same input and image. */
        if (x->root != y->root)
                return x->root < y->root ? -1 : 1;
        int c = pn_abi_cmp(&x->abi, &y->abi);
        if (c)
                return c;
        if (x->by != y->by)
                return (uintptr_t)x->by < (uintptr_t)y->by ? -1 : 1;
        return strcmp(x->name, y->name);
}

int pn_scan_resolve_libs(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                         const char *path, size_t first) {
        struct pn_resolve_root root;
        pn_resolve_root_tree(&root, &rootfd);
        return pn_scan_resolve_libs_in(s, input, image, &root, find_in_tree, &rootfd, path, first);
}

int pn_scan_resolve_libs_in(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image,
                            const struct pn_resolve_root *rroot, pn_libroot_find find, void *u, const char *path,
                            size_t first) {
        if (!(s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES) || first >= s->n_objects)
                return 0;
        size_t root = ++s->n_libroots;
        for (size_t i = first; i < s->n_objects; i++)
                s->objects[i]->libroot = root;
        struct want *v = NULL;
        size_t n = 0, cap = 0, no = s->n_objects - first;
        /* The tree's objects by path, to find the file a name resolves to. */
        struct pkgnote_scan_object **byp = malloc(no * sizeof *byp);
        int r = byp ? 0 : -ENOMEM;
        if (byp) {
                memcpy(byp, s->objects + first, no * sizeof *byp);
                qsort(byp, no, sizeof *byp, cmp_object_path);
        }
        for (size_t i = first; r == 0 && i < s->n_objects; i++) {
                const struct pkgnote_scan_object *o = s->objects[i];
                struct pn_abi abi = object_abi(o);
                const struct pkgnote_scan_object *by = own_search(o) ? o : NULL;
                for (size_t k = 0; r == 0 && k < o->n_needed; k++)
                        if (plain_name(o->needed[k]) && (r = PN_GROW(v, cap, n + 1)) == 0)
                                v[n++] = (struct want){o->needed[k], abi, by};
                for (size_t k = 0; r == 0 && k < pkgnote_info_dlopen_count(o->info); k++) {
                        const pkgnote_dlopen *d = pkgnote_info_dlopen(o->info, k);
                        for (size_t e = 0; d && r == 0 && e < pkgnote_dlopen_count(d); e++)
                                for (size_t a = 0; r == 0 && a < pkgnote_dlopen_soname_count(d, e); a++) {
                                        const char *so = pkgnote_dlopen_soname(d, e, a);
                                        if (so && plain_name(so) && (r = PN_GROW(v, cap, n + 1)) == 0)
                                                v[n++] = (struct want){so, abi, by};
                                }
                }
        }
        if (n)
                qsort(v, n, sizeof *v, cmp_want);
        size_t before = s->n_libpaths;
        struct lookroot lr = {find, u, path, byp, no};
        pn_resolver *res = NULL;
        struct ownpath own = {0};
        /* ld.so.conf's problems are the closure's to tell (deps --closure
         * reads the same files): a scan lists what it finds. */
        if (r == 0 && n && pn_resolver_new(rroot, NULL, NULL, &res) < 0)
                r = -ENOMEM;
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (i && !cmp_want(&v[i - 1], &v[i]))
                        continue;
                if (s->n_libpaths >= PN_LIBPATH_MAX) {
                        pn_scan_add_problem(s, input, path, -E2BIG, "more than %u library names to resolve, the rest left unresolved",
                                            PN_LIBPATH_MAX);
                        break;
                }
                const struct pkgnote_scan_object *hit;
                int q = resolve(res, &lr, &v[i], &own, &hit);
                if (q <= 0) {
                        r = q;
                        continue;
                }
                char *name = strdup(v[i].name);
                if (!name || PN_GROW(s->libpaths, s->cap_libpaths, s->n_libpaths + 1) < 0) {
                        free(name);
                        r = -ENOMEM;
                        break;
                }
                s->libpaths[s->n_libpaths++] = (struct pn_libpath){root, input, image, v[i].abi, v[i].by, name, hit};
        }
        /* The resolver's own limits are the scan's to tell (its other
         * problems, ld.so.conf's, are left to the closure, above). */
        if (res && pn_resolver_stats(res)->limited)
                pn_scan_add_problem(s, input, path, -E2BIG,
                                    "more than %u directories or %u MiB of directory names looked at resolving library names; the rest were taken as missing",
                                    PN_RESOLVE_MAX_DIRS, PN_RESOLVE_MAX_BYTES >> 20);
        pn_dirlist_done(&own.rpath);
        pn_dirlist_done(&own.runpath);
        pn_resolver_free(res);
        if (s->n_libpaths > before)
                qsort(s->libpaths, s->n_libpaths, sizeof *s->libpaths, cmp_libpath);
        free(byp);
        free(v);
        return r == -ENOMEM ? pn_oom() : r < 0 ? r : 0;
}

const struct pkgnote_scan_object *pn_scan_lib_object(const pkgnote_scan *s, const struct pkgnote_scan_object *from,
                                                      const struct pkgnote_scan_image *image, bool any_image,
                                                      const char *name) {
        if (!s->n_libpaths) /* bsearch() wants a base even for no elements */
                return NULL;
        if (from) {
                struct pn_libpath key = {from->libroot, from->input, from->image, object_abi(from), own_search(from) ? from : NULL,
                                         (char *)name, NULL};
                const struct pn_libpath *hit = bsearch(&key, s->libpaths, s->n_libpaths, sizeof *s->libpaths, cmp_libpath);
                return hit ? hit->obj : NULL;
        }
        for (size_t i = 0; i < s->n_libpaths; i++) {
                const struct pn_libpath *l = &s->libpaths[i];
                if (!strcmp(l->name, name) && (any_image || l->image == image))
                        return l->obj;
        }
        return NULL;
}

bool pn_scan_object_loads(const struct pkgnote_scan_object *from, const struct pkgnote_scan_object *lib) {
        struct pn_abi a = object_abi(from), b = object_abi(lib);
        return pn_abi_accepts(&a, &b);
}

bool pn_scan_same_search(const struct pkgnote_scan_object *x, const struct pkgnote_scan_object *y) {
        struct pn_abi a = object_abi(x), b = object_abi(y);
        return !pn_abi_cmp(&a, &b) && (own_search(x) || own_search(y) ? x == y : true);
}

void pn_scan_libpaths_clear(pkgnote_scan *s) {
        for (size_t i = 0; i < s->n_libpaths; i++)
                free(s->libpaths[i].name);
        free(s->libpaths);
        s->libpaths = NULL;
        s->n_libpaths = s->cap_libpaths = 0;
}
