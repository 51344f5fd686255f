/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lists of problems, one shape for every object that keeps them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-problem.h"

/* Appends (ERR, PATH, MESSAGE), taking MESSAGE; at the list's limit the
 * last entry becomes a note that more were dropped, so a hostile input
 * cannot grow the list but the reader still learns the list is short. */
static int add_owned(struct pn_problems *l, size_t limit, int err, const char *path, size_t input, char *message) {
        /* Memory running out is the reading's failure, not a problem of
         * what was read: it is kept (when it can be) for a caller that
         * goes on, and goes back as -ENOMEM, so that a caller that checks
         * fails rather than give a result that is short. */
        int ret = err == -ENOMEM ? -ENOMEM : 0;
        if (l->n >= limit) {
                free(message);
                if (l->n == 0 || l->dropped++)
                        return ret;
                struct pn_problem *last = &l->v[l->n - 1];
                char *m = strdup("more problems, not listed");
                if (!m)
                        return -ENOMEM;
                free(last->message);
                free(last->path);
                *last = (struct pn_problem){{-E2BIG, NULL, m}, m, NULL, 0};
                return ret;
        }
        char *p = path ? strdup(path) : NULL;
        if (!message || (path && !p)) {
                free(message);
                free(p);
                return -ENOMEM;
        }
        if (PN_GROW(l->v, l->cap, l->n + 1) < 0) {
                free(message);
                free(p);
                return -ENOMEM;
        }
        l->v[l->n++] = (struct pn_problem){{err, p, message}, message, p, input};
        return ret;
}

int pn_problems_addv(struct pn_problems *l, size_t limit, int err, const char *path, size_t input, const char *fmt,
                     va_list ap) {
        char *m;
        if (vasprintf(&m, fmt, ap) < 0)
                m = NULL;
        return add_owned(l, limit, err, path, input, m);
}

int pn_problems_add(struct pn_problems *l, size_t limit, int err, const char *path, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = pn_problems_addv(l, limit, err, path, 0, fmt, ap);
        va_end(ap);
        return r;
}

int pn_problems_append(struct pn_problems *dst, size_t limit, const struct pn_problems *src) {
        for (size_t i = 0; i < src->n; i++) {
                const pkgnote_problem *p = &src->v[i].pub;
                int r = add_owned(dst, limit, p->error, p->path, src->v[i].input, strdup(p->message));
                if (r < 0)
                        return r;
        }
        return 0;
}

const pkgnote_problem *pn_problems_get(const struct pn_problems *l, size_t i) {
        return i < l->n ? &l->v[i].pub : NULL;
}

void pn_problems_clear(struct pn_problems *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].message);
                free(l->v[i].path);
        }
        free(l->v);
        *l = (struct pn_problems){0};
}
