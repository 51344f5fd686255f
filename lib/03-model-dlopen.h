/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen notes (lib/03-model-dlopen.c). */
#pragma once

#include <stdbool.h>

/* Does S look like a soname dlopen() is given: a file name without blank
 * or control characters, with a ".so" that ends it or starts its version
 * (libfoo.so.1, libfoo-2.4.so)? */
bool pn_soname_shaped(const char *s);
