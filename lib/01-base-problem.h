/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lists of problems (pkgnote_problem), one shape for the ELF view, the
 * object summary, cores, scans and scanned objects. */
#ifndef PKGNOTE_PROBLEM_H
#define PKGNOTE_PROBLEM_H

#include <stdarg.h>

#include "01-base.h"

struct pn_problem {
        pkgnote_problem pub; /* what the accessors hand out; points into the fields below */
        char *message, *path;
        size_t input; /* a scan's input, for sorting */
};

struct pn_problems {
        struct pn_problem *v;
        size_t n, cap;
        size_t dropped;
};

/* Appends a problem (PATH may be NULL) unless the list holds LIMIT;
 * -ENOMEM when memory ran out, or when ERR is -ENOMEM (kept all the same,
 * when it can be: a caller that goes on has said so). */
int pn_problems_add(struct pn_problems *l, size_t limit, int err, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
int pn_problems_addv(struct pn_problems *l, size_t limit, int err, const char *path, size_t input, const char *fmt,
                     va_list ap) __attribute__((format(printf, 6, 0)));
/* Appends copies of every problem of SRC. */
int pn_problems_append(struct pn_problems *dst, size_t limit, const struct pn_problems *src);
const pkgnote_problem *pn_problems_get(const struct pn_problems *l, size_t i);
void pn_problems_clear(struct pn_problems *l);

#endif
