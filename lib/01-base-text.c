/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable text buffer for the generators (lib/05-gen-emit.c, lib/05-gen-linker.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "01-base.h"

void pn_text_add(struct pn_text *t, const char *fmt, ...) {
        if (t->oom)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                t->oom = true;
                return;
        }
        if (t->len + (size_t)n + 1 > t->cap) {
                size_t cap = (t->cap ? t->cap * 2 : 1024) + (size_t)n;
                char *s = realloc(t->s, cap);
                if (!s) {
                        t->oom = true;
                        return;
                }
                t->s = s;
                t->cap = cap;
        }
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        t->len += (size_t)n;
}

int pn_text_finish(struct pn_text *t, char **ret) {
        if (t->oom || !t->s) {
                free(t->s);
                *t = (struct pn_text){0};
                return pn_oom();
        }
        *ret = t->s;
        *t = (struct pn_text){0};
        return 0;
}
