/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The edges of a dependency graph (lib/07-check-edges.c), as `deps
 * --closure` (lib/07-check-closure.c) and `deps --verify`
 * (lib/07-check-verify.c) record them while they resolve: each once,
 * in the order recorded, between objects named by the caller's indices
 * (their paths asked of the caller when the edges are read).
 */
#pragma once

#include <stddef.h>

#include "03-model-json.h"
#include "07-check-resolve.h"
#include "pkgnote.h"

#define PN_EDGE_NONE ((size_t)-1) /* no object: missing */

struct pn_edge {
        size_t from, to; /* object indices of the caller; TO may be PN_EDGE_NONE */
        char *name, *feature;
        int kind, priority;
};

struct pn_edges {
        struct pn_edge *v;
        size_t n, cap;
        struct pn_smap seen; /* the edges recorded, as a key */
};

/* Records an edge unless the same (FROM, TO, KIND, NAME, FEATURE,
 * PRIORITY) is there already: 0, or -ENOMEM (said). */
int pn_edges_add(struct pn_edges *g, size_t from, size_t to, int kind, const char *name, const char *feature,
                 int priority);
void pn_edges_done(struct pn_edges *g);
/* Orders the edges by FROM, those of one object as recorded (the map of
 * edges seen keeps only whether one was): 0 or -ENOMEM (said). */
int pn_edges_sort_by_from(struct pn_edges *g);

/* The path of object I of the caller U. */
typedef const char *pn_edge_path_fn(const void *u, size_t i);

/* Edge I into *E (the public struct, its size checked): 1, -ENOENT,
 * -EINVAL (said). */
int pn_edges_get(const struct pn_edges *g, size_t i, pn_edge_path_fn *path, const void *u, pkgnote_dep_edge *e);
/* The edges as a JSON array of {"from", "to", "name", "kind", "feature",
 * "priority"}, or NULL (out of memory). */
json_t *pn_edges_json(const struct pn_edges *g, pn_edge_path_fn *path, const void *u);
/* "needed", "interpreter", "dlopen". */
const char *pn_edge_kind_name(int kind);
