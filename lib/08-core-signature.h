/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Crash signatures (lib/08-core-signature.c): the frames every source
 * gives, before the rules of the signature are applied to them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "pkgnote.h"

/* One frame of the crashing thread, innermost first, as a source gives
 * it.  The strings are the caller's, read during pn_signature_build()
 * only. */
struct pn_sig_frame {
        const char *function; /* symbol name, or NULL where not symbolized */
        const char *module;   /* the module's file name (a path is cut to its last part), or NULL: pc in no module */
        const char *build_id; /* the module's build-id in hex, or NULL */
        const char *package;  /* the module's package name, or NULL: the file name stands for it */
        const char *version;  /* that package's version, or NULL (counted by, never part of the signature) */
        uint64_t pc, offset;  /* the address, and its offset from the module's start */
};

/* Applies the rules (include/pkgnote.h, pkgnote-core(1)) to the N frames
 * of F and makes the signature of source SOURCE (PKGNOTE_SIGNATURE_*).
 * 0, -ENODATA when no frame is left, -ENOMEM; pn_error set. */
int pn_signature_build(const struct pn_sig_frame *f, size_t n, int source, pkgnote_signature **ret);
