/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small SPDX license expression checker, independent of the library's
 * translation (lib/04-pkgdb-copyright.c, lib/04-pkgdb-license.c), for the fuzz
 * harnesses and the unit tests: the grammar of SPDX 2.3 Annex D,
 *
 *   compound   = and-expr *( "OR" and-expr )
 *   and-expr   = primary *( "AND" primary )
 *   primary    = "(" compound ")" / simple [ "WITH" exception ]
 *   simple     = idstring [ "+" ] / "LicenseRef-" idstring
 *                / "DocumentRef-" idstring ":LicenseRef-" idstring
 *   idstring   = 1*( ALPHA / DIGIT / "-" / "." )
 *
 * with the operators in upper case and single spaces between tokens, as
 * pkgnote writes them; parentheses stand next to what they enclose.
 */
#ifndef PKGNOTE_SPDX_CHECK_H
#define PKGNOTE_SPDX_CHECK_H

#include <stdbool.h>
#include <string.h>

struct spdx_scan {
        const char *p;
        int depth;
};

static inline size_t spdx_idstring(const char *p) {
        size_t n = 0;
        while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9') ||
               p[n] == '-' || p[n] == '.')
                n++;
        return n;
}

/* Whether the text at S->p begins with the operator OP, followed by a
 * space: consumed when it does. */
static inline bool spdx_op(struct spdx_scan *s, const char *op) {
        size_t n = strlen(op);
        if (s->p[0] != ' ' || strncmp(s->p + 1, op, n) || s->p[1 + n] != ' ')
                return false;
        s->p += n + 2;
        return true;
}

static inline bool spdx_compound(struct spdx_scan *s);

static inline bool spdx_simple(struct spdx_scan *s) {
        size_t n;
        if (!strncmp(s->p, "DocumentRef-", 12)) {
                n = spdx_idstring(s->p + 12);
                if (!n || strncmp(s->p + 12 + n, ":LicenseRef-", 12))
                        return false;
                s->p += 24 + n;
                n = spdx_idstring(s->p);
                s->p += n;
                return n > 0;
        }
        if (!strncmp(s->p, "LicenseRef-", 11)) {
                n = spdx_idstring(s->p + 11);
                s->p += 11 + n;
                return n > 0;
        }
        n = spdx_idstring(s->p);
        if (!n)
                return false;
        /* an operator is no license */
        if ((n == 3 && !strncmp(s->p, "AND", 3)) || (n == 2 && !strncmp(s->p, "OR", 2)) ||
            (n == 4 && !strncmp(s->p, "WITH", 4)))
                return false;
        s->p += n;
        if (*s->p == '+')
                s->p++;
        return true;
}

static inline bool spdx_primary(struct spdx_scan *s) {
        if (*s->p == '(') {
                s->p++;
                if (++s->depth > 64 || !spdx_compound(s) || *s->p != ')')
                        return false;
                s->p++;
                s->depth--;
                return true;
        }
        if (!spdx_simple(s))
                return false;
        if (spdx_op(s, "WITH")) {
                size_t n = spdx_idstring(s->p);
                if (!n)
                        return false;
                s->p += n;
        }
        return true;
}

static inline bool spdx_and(struct spdx_scan *s) {
        if (!spdx_primary(s))
                return false;
        while (spdx_op(s, "AND"))
                if (!spdx_primary(s))
                        return false;
        return true;
}

static inline bool spdx_compound(struct spdx_scan *s) {
        if (!spdx_and(s))
                return false;
        while (spdx_op(s, "OR"))
                if (!spdx_and(s))
                        return false;
        return true;
}

/* Whether EXPR is one valid SPDX license expression, and nothing more. */
static inline bool spdx_valid(const char *expr) {
        struct spdx_scan s = {expr, 0};
        return spdx_compound(&s) && *s.p == 0;
}

#endif
