/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The edges of a dependency graph: who asked for what and what the
 * loader found (07-check-edges.h).  An object reached again and again
 * (by every program of an artefact, through every chain of DT_NEEDED)
 * asks the same again: a map of the edges seen keeps each once, so that
 * the graph grows with the distinct edges, not with the walks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "03-model-json.h"
#include "07-check-edges.h"

const char *pn_edge_kind_name(int kind) {
        return kind == PKGNOTE_DEP_INTERP ? "interpreter" : kind == PKGNOTE_DEP_DLOPEN ? "dlopen" : "needed";
}

int pn_edges_add(struct pn_edges *g, size_t from, size_t to, int kind, const char *name, const char *feature,
                 int priority) {
        /* The key: the numbers, then the two strings, NAME after its
         * length (names may hold any byte but NUL, so no separator could
         * tell where NAME ends and FEATURE begins), FEATURE marked present
         * or absent. */
        char *key = NULL;
        if (asprintf(&key, "%zx %zx %d %d %c%zu:%s%s", from, to, kind, priority, feature ? 'f' : '-', strlen(name),
                     name, feature ? feature : "") < 0)
                return pn_oom();
        size_t old;
        int r = 0;
        if (pn_smap_get(&g->seen, key, &old))
                goto out;
        if (PN_GROW(g->v, g->cap, g->n + 1) < 0) {
                r = pn_oom();
                goto out;
        }
        struct pn_edge *e = &g->v[g->n];
        *e = (struct pn_edge){.from = from, .to = to, .kind = kind, .priority = priority,
                              .name = strdup(name), .feature = feature ? strdup(feature) : NULL};
        if (!e->name || (feature && !e->feature) || pn_smap_put(&g->seen, key, g->n) < 0) {
                free(e->name);
                free(e->feature);
                r = pn_oom();
                goto out;
        }
        g->n++;
out:
        free(key);
        return r;
}

static int cmp_from(const void *x, const void *y) {
        const struct pn_edge *a = *(const struct pn_edge *const *)x, *b = *(const struct pn_edge *const *)y;
        /* Equal FROM: the order recorded, the place in the array. */
        return a->from != b->from ? (a->from < b->from ? -1 : 1) : a < b ? -1 : a > b;
}

int pn_edges_sort_by_from(struct pn_edges *g) {
        if (g->n < 2)
                return 0;
        struct pn_edge **p = malloc(g->n * sizeof *p), *sorted = malloc(g->n * sizeof *sorted);
        if (!p || !sorted) {
                free(p);
                free(sorted);
                return pn_oom();
        }
        for (size_t i = 0; i < g->n; i++)
                p[i] = &g->v[i];
        qsort(p, g->n, sizeof *p, cmp_from);
        for (size_t i = 0; i < g->n; i++)
                sorted[i] = *p[i];
        free(p);
        free(g->v);
        g->v = sorted;
        g->cap = g->n;
        return 0;
}

void pn_edges_done(struct pn_edges *g) {
        for (size_t i = 0; i < g->n; i++) {
                free(g->v[i].name);
                free(g->v[i].feature);
        }
        free(g->v);
        pn_smap_done(&g->seen);
        *g = (struct pn_edges){0};
}

int pn_edges_get(const struct pn_edges *g, size_t i, pn_edge_path_fn *path, const void *u, pkgnote_dep_edge *e) {
        if (!e || e->size < offsetof(pkgnote_dep_edge, priority) + sizeof e->priority)
                return pn_error(-EINVAL, "pkgnote_dep_edge without its size");
        if (i >= g->n)
                return pn_error(-ENOENT, "no edge %zu (there are %zu)", i, g->n);
        const struct pn_edge *x = &g->v[i];
        pkgnote_dep_edge t = {.size = e->size, .from = path(u, x->from),
                              .to = x->to == PN_EDGE_NONE ? NULL : path(u, x->to), .name = x->name,
                              .feature = x->feature, .kind = x->kind, .priority = x->priority};
        memcpy(e, &t, e->size < sizeof t ? e->size : sizeof t);
        return 1;
}

json_t *pn_edges_json(const struct pn_edges *g, pn_edge_path_fn *path, const void *u) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < g->n; i++) {
                const struct pn_edge *x = &g->v[i];
                json_t *o = json_pack("{s:o}", "from", pn_json_bytes(path(u, x->from)));
                bool ok = o != NULL;
                if (ok && x->to != PN_EDGE_NONE)
                        ok = json_object_set_new(o, "to", pn_json_bytes(path(u, x->to))) == 0;
                ok = ok && json_object_set_new(o, "name", pn_json_bytes(x->name)) == 0 &&
                     json_object_set_new(o, "kind", json_string(pn_edge_kind_name(x->kind))) == 0;
                if (ok && x->kind == PKGNOTE_DEP_DLOPEN) {
                        if (x->feature)
                                ok = json_object_set_new(o, "feature", pn_json_bytes(x->feature)) == 0;
                        ok = ok && json_object_set_new(o, "priority",
                                                       json_string(pkgnote_dlopen_priority_name(x->priority))) == 0;
                }
                if (!ok)
                        json_decref(o);
                if (!ok || json_array_append_new(a, o) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}
