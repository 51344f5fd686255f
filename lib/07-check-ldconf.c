/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ld.so.conf, as ldconfig reads it: one library directory per line,
 * "include PATTERN..." naming more files (glob patterns, relative ones
 * from the including file's directory), "hwcap" lines (long obsolete)
 * ignored, '#' starting a comment.  A directory may carry "=TYPE" after
 * it (libc5 days); that is dropped.  Only the text is read here: the
 * resolver (lib/07-check-resolve.c) opens the files inside a root.
 */
#include <string.h>

#include "07-check-resolve.h"

static bool blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Hands the LEN bytes at S (a word or a line) to FN as a string: words
 * over PATH_MAX-ish are not paths the loader could use, and are dropped. */
static int emit(pn_ldconf_fn fn, void *u, int kind, const char *s, size_t len) {
        char buf[PN_LDCONF_MAX_LINE + 1];
        if (len == 0 || len > PN_LDCONF_MAX_LINE)
                return 0;
        memcpy(buf, s, len);
        buf[len] = '\0';
        return fn(u, kind, buf);
}

int pn_ldconf_parse(const char *text, size_t len, pn_ldconf_fn fn, void *u) {
        int r = 0;
        for (size_t pos = 0; r == 0 && pos < len;) {
                const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
                size_t ll = nl ? (size_t)(nl - line) : len - pos;
                pos += ll + 1;
                /* A NUL ends the line as it ends ldconfig's getline() text. */
                const char *nul = memchr(line, '\0', ll);
                if (nul)
                        ll = (size_t)(nul - line);
                const char *hash = memchr(line, '#', ll);
                if (hash)
                        ll = (size_t)(hash - line);
                while (ll && blank(*line))
                        line++, ll--;
                while (ll && blank(line[ll - 1]))
                        ll--;
                if (ll == 0)
                        continue;
                if (ll > 7 && !memcmp(line, "include", 7) && blank(line[7])) {
                        for (size_t i = 8; r == 0 && i < ll;) {
                                while (i < ll && blank(line[i]))
                                        i++;
                                size_t start = i;
                                while (i < ll && !blank(line[i]))
                                        i++;
                                r = emit(fn, u, PN_LDCONF_INCLUDE, line + start, i - start);
                        }
                        continue;
                }
                if (ll > 5 && !memcmp(line, "hwcap", 5) && blank(line[5]))
                        continue;
                const char *eq = memchr(line, '=', ll);
                if (eq)
                        ll = (size_t)(eq - line);
                while (ll > 1 && (blank(line[ll - 1]) || line[ll - 1] == '/'))
                        ll--;
                r = emit(fn, u, PN_LDCONF_DIR, line, ll);
        }
        return r;
}
