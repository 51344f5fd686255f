/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Graphviz "dot" for the dependency graph of deps --closure and --verify.
 * Every name comes from the input and may hold any bytes, so every string
 * is written as a quoted ID of dot's grammar: shown as the text commands
 * print (control characters and bytes that are not UTF-8 as \xNN, which
 * is what the JSON holds for the latter), then '\' doubled (labels are
 * graphviz escStrings, where \N, \G, \n, \l ... mean something) and '"'
 * escaped.  No newline is ever written inside a string.  Node names are
 * made here ("g0o12", "g0m3"), never taken from the input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "depgraph.h"

/* S as a dot quoted string. */
static void put_quoted(FILE *f, const char *s) {
        char buf[4096];
        size_t len = strlen(s);
        fputc('"', f);
        while (len > 0) {
                size_t n = pn_escape(buf, sizeof buf, s, len, false);
                if (n == 0)
                        break;
                for (const char *p = buf; *p; p++)
                        if (*p == '\\')
                                fputs("\\\\", f);
                        else if (*p == '"')
                                fputs("\\\"", f);
                        else if (*p == '&') /* graphviz reads HTML entities in strings */
                                fputs("&amp;", f);
                        else
                                fputc(*p, f);
                s += n;
                len -= n;
        }
        fputc('"', f);
}

void depgraph_begin(FILE *f) {
        fputs("digraph \"pkgnote deps\" {\n"
              "\trankdir=\"LR\";\n"
              "\tnode [shape=\"box\"];\n",
              f);
}

void depgraph_end(FILE *f) {
        fputs("}\n", f);
}

/* A node: an object (by path) or a missing name. */
struct gnode {
        const char *s;
        bool missing;
        size_t first; /* order of first appearance */
        size_t id;    /* its number among nodes of its sort */
};

static int cmp_node(const void *x, const void *y) {
        const struct gnode *a = x, *b = y;
        if (a->missing != b->missing)
                return a->missing ? 1 : -1;
        int c = strcmp(a->s, b->s);
        return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

static int cmp_first(const void *x, const void *y) {
        const struct gnode *a = x, *b = y;
        return a->first < b->first ? -1 : a->first > b->first;
}

/* The node S (missing or not) of the N sorted unique nodes V. */
static const struct gnode *find(const struct gnode *v, size_t n, const char *s, bool missing) {
        struct gnode key = {.s = s, .missing = missing, .first = 0};
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = v[mid].missing != missing ? (v[mid].missing ? 1 : -1) : strcmp(v[mid].s, key.s);
                if (c == 0)
                        return &v[mid];
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

static void put_id(FILE *f, size_t k, const struct gnode *g) {
        fprintf(f, "\"g%zu%c%zu\"", k, g->missing ? 'm' : 'o', g->id);
}

int depgraph_add(FILE *f, size_t k, const char *cluster, const struct depgraph_source *s) {
        pkgnote_dep_edge *e = calloc(s->n_edges ? s->n_edges : 1, sizeof *e);
        struct gnode *v = NULL;
        size_t n = 0;
        if (!e)
                return -ENOMEM;
        /* The nodes: the objects given, then the ends of the edges (an
         * object no list named, a missing name), each once. */
        size_t cap = s->n_nodes + 2 * s->n_edges;
        if (!(v = calloc(cap ? cap : 1, sizeof *v))) {
                free(e);
                return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_nodes; i++) {
                const char *p = s->node(s->u, i);
                if (p)
                        v[n] = (struct gnode){.s = p, .first = n}, n++;
        }
        size_t ne = 0;
        for (size_t i = 0; i < s->n_edges; i++) {
                e[ne] = (pkgnote_dep_edge)PKGNOTE_DEP_EDGE_INIT;
                if (s->edge(s->u, i, &e[ne]) <= 0 || !e[ne].from || !e[ne].name)
                        continue;
                v[n] = (struct gnode){.s = e[ne].from, .first = n}, n++;
                v[n] = (struct gnode){.s = e[ne].to ? e[ne].to : e[ne].name, .missing = !e[ne].to, .first = n}, n++;
                ne++;
        }
        qsort(v, n, sizeof *v, cmp_node);
        size_t u = 0, objs = 0, missing = 0;
        for (size_t i = 0; i < n; i++)
                if (u == 0 || v[i].missing != v[u - 1].missing || strcmp(v[i].s, v[u - 1].s)) {
                        v[u] = v[i];
                        v[u].id = v[u].missing ? missing++ : objs++;
                        u++;
                }
        n = u;
        if (cluster) {
                fprintf(f, "\tsubgraph \"cluster_%zu\" {\n\t\tlabel=", k);
                put_quoted(f, cluster);
                fputs(";\n", f);
        }
        const char *in = cluster ? "\t\t" : "\t";
        /* Nodes in the order they came, numbered in sorted order: both
         * stable for the same input. */
        struct gnode *w = malloc((n ? n : 1) * sizeof *w);
        if (!w) {
                free(v);
                free(e);
                return -ENOMEM;
        }
        memcpy(w, v, n * sizeof *w);
        qsort(w, n, sizeof *w, cmp_first);
        for (size_t i = 0; i < n; i++) {
                fputs(in, f);
                put_id(f, k, &w[i]);
                fputs(" [label=", f);
                put_quoted(f, w[i].s);
                fputs(w[i].missing ? ", class=\"missing\", style=\"dashed\", color=\"red\", fontcolor=\"red\"];\n"
                                   : ", class=\"object\"];\n",
                      f);
        }
        free(w);
        for (size_t i = 0; i < ne; i++) {
                const pkgnote_dep_edge *x = &e[i];
                fputs(in, f);
                put_id(f, k, find(v, n, x->from, false));
                fputs(" -> ", f);
                put_id(f, k, find(v, n, x->to ? x->to : x->name, !x->to));
                fputs(" [class=", f);
                if (x->kind == PKGNOTE_DEP_DLOPEN) {
                        fputs("\"dlopen\", style=\"dashed\", label=", f);
                        /* "feature (priority)" */
                        size_t fl = x->feature ? strlen(x->feature) : 0;
                        const char *pn = pkgnote_dlopen_priority_name(x->priority);
                        pn = pn ? pn : "?";
                        char *label = malloc(fl + strlen(pn) + 4);
                        if (!label) {
                                free(v);
                                free(e);
                                return -ENOMEM;
                        }
                        sprintf(label, "%s%s(%s)", x->feature ? x->feature : "", x->feature ? " " : "", pn);
                        put_quoted(f, label);
                        free(label);
                } else if (x->kind == PKGNOTE_DEP_INTERP)
                        fputs("\"interpreter\", style=\"bold\"", f);
                else
                        fputs("\"needed\"", f);
                if (!x->to || x->kind == PKGNOTE_DEP_INTERP)
                        fprintf(f, ", color=\"%s\"", x->to ? "blue" : "red");
                fputs(", tooltip=", f);
                put_quoted(f, x->name);
                fputs("];\n", f);
        }
        if (cluster)
                fputs("\t}\n", f);
        free(v);
        free(e);
        return 0;
}
