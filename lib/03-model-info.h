/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The report model's private side (lib/03-model-info.c). */
#pragma once

#include <stddef.h>

#include "pkgnote.h"

/* An empty summary, for objects whose notes could not be read. */
pkgnote_info *pn_info_new(void);
/* Adds a problem to INFO (bounded like every problem list). */
int pn_info_add_problem(pkgnote_info *info, int err, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Gives INFO the list M (taken; the one it had freed), read from other
 * bytes than the object's view (a Go module's dumped pages in a core). */
void pn_info_set_embedded(pkgnote_info *info, pkgnote_embedded *m);
/* The I-th dlopen note's array as compact JSON, or NULL. */
const char *pn_info_dlopen_json(const pkgnote_info *info, size_t i);
