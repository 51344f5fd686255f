/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* deps --verify's internals, for tests (lib/07-check-verify.c). */
#pragma once

#include "07-check-resolve.h"
#include "pkgnote.h"

/* The work of V's resolver so far (bounds on work are checked by counting). */
const struct pn_resolve_stats *pn_verify_stats(const pkgnote_verify *v);

struct pn_artefact;
struct pn_problems;
/* Reads the artefact PATH into *RET, its problems into PROBLEMS: 0, or a
 * negative errno with pn_error set. */
typedef int (*pn_verify_open_fn)(void *u, const char *path, struct pn_problems *problems, struct pn_artefact **ret);
/* pkgnote_verify_new() with the artefact read by OPEN (NULL:
 * pn_artefact_open(), a directory or an initramfs). */
int pn_verify_new_with(const char *path, pn_verify_open_fn open, void *u, pkgnote_verify **ret);
/* The JSON name of a PKGNOTE_VERIFY_* kind. */
const char *pn_verify_kind_name(int kind);
