/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote deps --closure: every file programs need in a root, as a list
 * of paths, as JSON saying why each is there, or as package names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure.h"
#include "depgraph.h"
#include "tool.h"

/* Opens the root's package database: dpkg's, else rpm's. */
static int open_db(const char *root, pkgnote_pkgdb **db, bool need) {
        const char *where;
        int r = pkgnote_pkgdb_open(root, "deb", &where, db);
        if (r > 0)
                return 0;
        r = pkgnote_pkgdb_open(root, "rpm", &where, db);
        if (r > 0)
                return 0;
        *db = NULL;
        return need ? tool_error(root ? root : "/", "no package database (dpkg or rpm) to name packages by", r < 0 ? r : -ENOENT) : 1;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The packages of the closure's regular files, sorted, each once; files
 * no package ships are named on standard error. */
static int print_packages(const pkgnote_closure *c, const pkgnote_pkgdb *db) {
        size_t n = pkgnote_closure_count(c), k = 0;
        const char **names = calloc(n ? n : 1, sizeof *names);
        if (!names)
                return tool_oom("deps");
        for (size_t i = 0; i < n; i++) {
                size_t pi;
                /* The packages of the files: a link to a directory (/lib
                 * of a merged /usr) is listed by many, and the link to a
                 * library comes with it. */
                if (pkgnote_closure_target(c, i))
                        continue;
                pkgnote_db_package p = {.size = sizeof p};
                if (pkgnote_pkgdb_owner(db, pkgnote_closure_path(c, i), &pi) > 0 && pkgnote_pkgdb_package(db, pi, &p) > 0)
                        names[k++] = p.binary_name;
                else
                        tool_warn_ignoring(pkgnote_closure_path(c, i), "no installed package ships it");
        }
        qsort(names, k, sizeof *names, cmp_str);
        for (size_t i = 0; i < k; i++)
                if (i == 0 || strcmp(names[i], names[i - 1])) {
                        tool_print_escaped(stdout, names[i]);
                        putchar('\n');
                }
        free(names);
        return EXIT_OK;
}

/* The graph's nodes: the objects, the files that are no symbolic link. */
static const char *closure_node(const void *u, size_t i) {
        const pkgnote_closure *c = u;
        return pkgnote_closure_target(c, i) ? NULL : pkgnote_closure_path(c, i);
}
static int closure_edge(const void *u, size_t i, pkgnote_dep_edge *e) {
        return pkgnote_closure_edge(u, i, e);
}

int deps_closure(const struct closure_opts *o, char **files, int n) {
        pkgnote_closure *c;
        int r = pkgnote_closure_new(o->root, &c);
        if (r < 0)
                return tool_error(o->root ? o->root : "/", "cannot open the root", r);
        for (size_t i = 0; r == 0 && i < o->n_features; i++)
                r = pkgnote_closure_select(c, o->features[i], 0, 0);
        if (r == 0)
                r = pkgnote_closure_select(c, NULL, o->priority, o->all_features ? PKGNOTE_CLOSURE_ALL_FEATURES : 0);
        int ret = r < 0 ? tool_error("-", "cannot select dlopen entries", r) : EXIT_OK;
        for (int i = 0; ret == EXIT_OK && i < n; i++) {
                r = pkgnote_closure_add(c, files[i]);
                if (r < 0)
                        ret = tool_error(files[i], r == -E2BIG || r == -ENOMEM ? "cannot work out the closure" : "cannot read in the root", r);
        }
        for (size_t i = 0; ret == EXIT_OK && i < pkgnote_closure_problem_count(c); i++) {
                const pkgnote_problem *p = pkgnote_closure_problem(c, i);
                tool_warn_ignoring(p->path ? p->path : "-", p->message);
        }
        /* Missing files: each named, an error unless asked to go on. */
        for (size_t i = 0; ret == EXIT_OK && i < pkgnote_closure_missing_count(c); i++) {
                const char *by = NULL, *name = pkgnote_closure_missing(c, i, &by);
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, by ? by : "-");
                fputs("': ", stderr);
                tool_print_escaped(stderr, name ? name : "?");
                fputs(o->ignore_missing ? ": not found in the root, ignoring\n" : ": not found in the root\n", stderr);
        }
        if (ret == EXIT_OK && pkgnote_closure_missing_count(c) && !o->ignore_missing)
                ret = EXIT_NOTFOUND;
        pkgnote_pkgdb *db = NULL;
        if (ret != EXIT_FAILURE_ && o->packages && open_db(o->root, &db, true) != 0)
                ret = EXIT_FAILURE_;
        /* JSON names packages where the root has a database. */
        if (ret != EXIT_FAILURE_ && o->json)
                (void)open_db(o->root, &db, false);
        if (ret != EXIT_FAILURE_) {
                if (o->json) {
                        char *text = NULL;
                        if (tool_put_json(stdout, pkgnote_closure_to_json(c, db, &text), &text) != 0)
                                ret = EXIT_FAILURE_;
                } else if (o->dot) {
                        struct depgraph_source s = {c, pkgnote_closure_count(c), pkgnote_closure_edge_count(c),
                                                    closure_node, closure_edge};
                        depgraph_begin(stdout);
                        if (depgraph_add(stdout, 0, NULL, &s) < 0)
                                ret = tool_oom("deps");
                        depgraph_end(stdout);
                } else if (o->packages)
                        ret = print_packages(c, db) ? EXIT_FAILURE_ : ret;
                else
                        for (size_t i = 0; i < pkgnote_closure_count(c); i++) {
                                const char *p = pkgnote_closure_path(c, i);
                                tool_print_escaped(stdout, o->relative ? p + 1 : p);
                                putchar('\n');
                        }
        }
        pkgnote_pkgdb_free(db);
        pkgnote_closure_free(c);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
