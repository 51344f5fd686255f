/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stack traces of a core's threads, as text (the library unwinds). */
#ifndef PKGNOTE_STACK_H
#define PKGNOTE_STACK_H

#include <stdio.h>

#include "pkgnote.h"

void stack_print_text(const pkgnote_stack *st, FILE *f);

#endif
