/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote deps --closure (tools/closure.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct closure_opts {
        const char *root;
        const char **features;
        size_t n_features;
        bool all_features, ignore_missing, json, dot, packages, relative;
        int priority;
};

/* The closure of the N FILES: an exit status. */
int deps_closure(const struct closure_opts *o, char **files, int n);

/* pkgnote deps --verify (tools/verify.c): whether each of the N
 * artefacts holds what its programs need; an exit status. */
int deps_verify(const struct closure_opts *o, char **artefacts, int n);
