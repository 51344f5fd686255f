/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dependency graph of deps --closure and deps --verify as graphviz
 * "dot" (tools/depgraph.c): one writer for both. */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "pkgnote.h"

/* A graph's nodes and edges, read through its handle U. */
struct depgraph_source {
        const void *u;
        size_t n_nodes, n_edges;
        const char *(*node)(const void *u, size_t i);                /* an object's path */
        int (*edge)(const void *u, size_t i, pkgnote_dep_edge *e); /* 1, or negative */
};

/* "digraph ... {" and the defaults, on F. */
void depgraph_begin(FILE *f);
/* Graph K of the run (its node names start "gK"): objects as boxes
 * labelled with their paths, missing names as dashed red boxes, one per
 * name; DT_NEEDED edges plain, the interpreter's bold, dlopen edges
 * dashed and labelled "feature (priority)", edges to a missing name red.
 * In a cluster labelled CLUSTER when not NULL.  0, or -ENOMEM. */
int depgraph_add(FILE *f, size_t k, const char *cluster, const struct depgraph_source *s);
/* The closing brace. */
void depgraph_end(FILE *f);
