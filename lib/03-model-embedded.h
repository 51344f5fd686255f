/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a binary says is inside it (lib/03-model-embedded.c): the private
 * side of pkgnote_embedded, through which every reader of a component
 * list (Go's build information, cargo-auditable's crate list) fills the
 * one public shape.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pkgnote.h"

/* An empty list, or NULL without memory. */
pkgnote_embedded *pn_embedded_new(void);
/* Adds C (its strings copied; its purl made here from ecosystem, name and
 * version, or the replacement's, when C->purl is NULL): 0, -E2BIG past
 * PKGNOTE_MAX_COMPONENTS, -ENOMEM; pn_error set.  *INDEX (may be NULL)
 * gets the new component's index. */
int pn_embedded_add_component(pkgnote_embedded *m, const pkgnote_component *c, size_t *index);
/* Adds the edge FROM depends on TO (both existing indices, else
 * -EINVAL): 0, -E2BIG past PKGNOTE_MAX_COMPONENT_EDGES, -ENOMEM. */
int pn_embedded_add_edge(pkgnote_embedded *m, size_t from, size_t to);
int pn_embedded_add_setting(pkgnote_embedded *m, const char *key, const char *value);
/* Sets the toolchain and the main package path (copied; NULL keeps none). */
int pn_embedded_set_toolchain(pkgnote_embedded *m, const char *toolchain, const char *package_path);
/* A deep copy, or NULL without memory. */
pkgnote_embedded *pn_embedded_dup(const pkgnote_embedded *m);

/* The purl of a component of ECOSYSTEM ("golang", "cargo") named NAME at
 * VERSION (may be NULL), malloc()ed, or NULL without memory. */
/* Whether NAME can be named by a purl of ECOSYSTEM: not empty, and for
 * golang no empty, "." or ".." segment. */
bool pn_embedded_purl_name_ok(const char *ecosystem, const char *name);
char *pn_embedded_purl(const char *ecosystem, const char *name, const char *version);

struct pn_go_build;
/* The components of Go build information B: the main module (when the
 * program was built in one) first, then the dependencies; the toolchain,
 * main package path and build settings.  0 with *RET, or -ENOMEM / -E2BIG
 * with pn_error set. */
int pn_embedded_from_go(const struct pn_go_build *b, pkgnote_embedded **ret);

struct pn_crates;
/* Adds the crates of C to M: each once (name, version and source tell
 * them apart), the root crate first, then the others in the list's
 * order; its dependency indices as edges (each once, none from a crate
 * to itself).  0, or -ENOMEM / -E2BIG with pn_error set (M then holds
 * part of them). */
int pn_embedded_add_crates(pkgnote_embedded *m, const struct pn_crates *c);
/* The components of crate list C alone: 0 with *RET, or a negative errno. */
int pn_embedded_from_crates(const struct pn_crates *c, pkgnote_embedded **ret);

/* 1 when E carries Go's build-id note (owner "Go", type 4) in a PT_NOTE,
 * 0 when not, or the error of reading its notes. */
int pn_embedded_is_go(pkgnote_object *e);
/* Go's build information of E (looked for only when pn_embedded_is_go()):
 * 1 with *RET, 0, or a negative errno. */
int pn_embedded_read_go(pkgnote_object *e, pkgnote_embedded **ret);
/* E's crate list, added to *INTO (a new list when *INTO is NULL): 1, 0
 * when E has none, or a negative errno with *INTO as it was. */
int pn_embedded_read_crates(pkgnote_object *e, pkgnote_embedded **into);
/* pkgnote_embedded_read() of an object whose notes were already walked:
 * the same results (Go's build information, then the crate list). */
int pn_embedded_read(pkgnote_object *e, pkgnote_embedded **ret);
