/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lint: dlopen() of libraries no dlopen note declares (lib/07-check-lint-dlopen.c). */
#pragma once

#include <stddef.h>

#include "01-base.h"

/* Library names quoted as evidence, at most. */
#define PN_LINT_MAX_EVIDENCE 16u

/* When E (an executable or shared object) imports dlopen or dlmopen: the
 * library names (lib*.so.N) its data holds that neither a dlopen note nor
 * DT_NEEDED names, in file order, into *RET (N_RET of them, malloc()ed;
 * free with pn_free_strv()).  1 when there are some, 0, or -ENOMEM. */
int pn_undeclared_dlopen(pkgnote_object *e, char ***ret, size_t *n_ret);
