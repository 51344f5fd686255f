/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* deps --verify's internals, for tests (lib/07-check-verify.c). */
#pragma once

#include "07-check-resolve.h"
#include "pkgnote.h"

/* The work of V's resolver so far (bounds on work are checked by counting). */
const struct pn_resolve_stats *pn_verify_stats(const pkgnote_verify *v);
