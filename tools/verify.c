/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote deps --verify: whether built artefacts (a directory, an
 * initramfs, a UKI, a tar archive, an image, a SquashFS image) hold
 * everything their programs need, one finding a line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure.h"
#include "depgraph.h"
#include "tool.h"

static const char *verify_node(const void *u, size_t i) {
        return pkgnote_verify_object(u, i);
}
static int verify_edge(const void *u, size_t i, pkgnote_dep_edge *e) {
        return pkgnote_verify_edge(u, i, e);
}

static const char *kind_name(int kind) {
        switch (kind) {
        case PKGNOTE_VERIFY_DIRECTORY: return "directory";
        case PKGNOTE_VERIFY_UKI: return "UKI";
        case PKGNOTE_VERIFY_TAR: return "tar archive";
        case PKGNOTE_VERIFY_IMAGE: return "image";
        case PKGNOTE_VERIFY_SQUASHFS: return "SquashFS image";
        default: return "initramfs";
        }
}

/* One artefact: its findings printed (its JSON an element of the array,
 * *PRINTED counting them); 0, 1 (something required is missing) or 2 (it
 * cannot be read). */
static int verify_one(const struct closure_opts *o, const char *path, size_t *printed) {
        pkgnote_verify *v;
        int r = pkgnote_verify_new(path, &v);
        if (r < 0)
                return tool_error(path, "cannot read the artefact", r);
        for (size_t i = 0; r == 0 && i < o->n_features; i++)
                r = pkgnote_verify_select(v, o->features[i], 0, 0);
        if (r == 0 && (o->priority || o->all_features || o->n_features))
                r = pkgnote_verify_select(v, NULL, o->priority, o->all_features ? PKGNOTE_VERIFY_ALL_FEATURES : 0);
        if (r == 0)
                r = pkgnote_verify_run(v);
        if (r < 0) {
                int e = tool_error(path, "cannot verify the artefact", r);
                pkgnote_verify_free(v);
                return e;
        }
        int ret = r > 0 ? EXIT_NOTFOUND : EXIT_OK;
        for (size_t i = 0; i < pkgnote_verify_problem_count(v); i++) {
                const pkgnote_problem *p = pkgnote_verify_problem(v, i);
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fputs("': ", stderr);
                tool_print_escaped(stderr, p->path ? p->path : "-");
                fputs(": ", stderr);
                tool_print_escaped(stderr, p->message);
                fputs(", ignoring\n", stderr);
        }
        if (o->dot) {
                /* A cluster of the run's one graph, named by the artefact. */
                struct depgraph_source s = {v, pkgnote_verify_object_count(v), pkgnote_verify_edge_count(v), verify_node,
                                            verify_edge};
                if (depgraph_add(stdout, *printed, path, &s) < 0) {
                        pkgnote_verify_free(v);
                        return tool_oom("deps");
                }
                ++*printed;
        } else if (o->json) {
                char *text = NULL;
                if (pkgnote_verify_to_json(v, &text) < 0) {
                        pkgnote_verify_free(v);
                        return tool_oom("deps");
                }
                fputs(*printed ? ",\n" : "", stdout);
                fputs(text, stdout);
                ++*printed;
                free(text);
        } else {
                size_t n = pkgnote_verify_count(v);
                for (size_t i = 0; i < n; i++) {
                        pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
                        if (pkgnote_verify_get(v, i, &f) <= 0)
                                continue;
                        tool_print_escaped(stdout, path);
                        fputs(": ", stdout);
                        tool_print_escaped(stdout, f.object);
                        printf(": %s ", f.kind);
                        tool_print_escaped(stdout, f.sonames);
                        fputs(" (", stdout);
                        if (f.feature) {
                                fputs("feature ", stdout);
                                tool_print_escaped(stdout, f.feature);
                                fputs(", ", stdout);
                        }
                        printf("%s): missing\n", pkgnote_dlopen_priority_name(f.priority));
                }
                size_t req = (size_t)r;
                fprintf(stderr, "%s: '", program_name);
                tool_print_escaped(stderr, path);
                fprintf(stderr, "': %s", kind_name(pkgnote_verify_kind(v)));
                if (pkgnote_verify_release(v)) {
                        fputs(" (kernel ", stderr);
                        tool_print_escaped(stderr, pkgnote_verify_release(v));
                        fputc(')', stderr);
                }
                fprintf(stderr, ", %zu ELF objects, %zu findings, %zu of them required\n", pkgnote_verify_object_count(v), n, req);
        }
        pkgnote_verify_free(v);
        return ret;
}

int deps_verify(const struct closure_opts *o, char **artefacts, int n) {
        int ret = EXIT_OK;
        size_t printed = 0;
        if (o->dot)
                depgraph_begin(stdout);
        else if (o->json)
                fputs("[", stdout);
        for (int i = 0; i < n; i++) {
                int r = verify_one(o, artefacts[i], &printed);
                if (r == EXIT_FAILURE_ || (r == EXIT_NOTFOUND && ret == EXIT_OK))
                        ret = r;
        }
        if (o->dot)
                depgraph_end(stdout);
        else if (o->json)
                fputs("]\n", stdout);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
