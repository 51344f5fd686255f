/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dependency closures (lib/check-closure.c) and the ld.so.conf reader
 * they use (lib/check-ldconf.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* The work the closure's searches did (lib/check-resolve.c), for tests. */
struct pn_resolve_stats;
const struct pn_resolve_stats *pn_closure_stats(const pkgnote_closure *c);
