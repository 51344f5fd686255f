/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's side of the last error's message (pn_error(),
 * shared/message.c): the public boundary that clears and fills it, the one
 * out-of-memory message, and UTF-8 helpers over the escaping of
 * shared/escape.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"

PKGNOTE_PUBLIC const char *pkgnote_last_error(void) {
        return pn_last_error();
}

/* The public boundary (lib/01-base-api.py wraps every exported function that
 * can fail in these).  A success clears the message only when the call
 * returns, so the arguments may point into it; after a failure it is the
 * call's own reason or, when the call recorded none (GEN, pn_api_begin()'s
 * count, unmoved), the function's name and the errno's text; never an
 * older message. */
unsigned pn_api_begin(void) {
        return pn_error_generation();
}

int64_t pn_api_int64(int64_t r, unsigned gen, const char *function) {
        if (r >= 0)
                pn_error_clear();
        else if (gen != pn_error_generation() && pn_last_error()[0])
                ; /* the call said why */
        else if (r == -ENOMEM)
                pn_oom(); /* one text for every allocation failure */
        else
                pn_error((int)r, "%s: %s", function, strerror((int)-r));
        return r;
}

int pn_api_int(int r, unsigned gen, const char *function) {
        return (int)pn_api_int64(r, gen, function);
}

/* NULL is "none" for the functions returning a string, or a failure when
 * the call recorded its reason (out of memory). */
void *pn_api_ptr(void *p, unsigned gen) {
        if (p || gen == pn_error_generation())
                pn_error_clear();
        return p;
}

char *pn_utf8_or_hex(const char *s, size_t len, size_t *ret_len) {
        size_t extra = 0;
        for (size_t i = 0; i < len;) {
                size_t n = pn_utf8_char(s + i, len - i);
                extra += n ? 0 : 3;
                i += n ? n : 1;
        }
        char *buf = malloc(len + extra + 1), *q = buf;
        if (!buf)
                return NULL;
        for (size_t i = 0; i < len;) {
                size_t n = pn_utf8_char(s + i, len - i);
                if (n) {
                        memcpy(q, s + i, n);
                        q += n;
                        i += n;
                } else
                        q += sprintf(q, "\\x%02x", (unsigned char)s[i++]);
        }
        *q = 0;
        *ret_len = (size_t)(q - buf);
        return buf;
}

size_t pn_utf8_invalid_at(const char *s, size_t len) {
        size_t i = 0, n;
        while (i < len && (n = pn_utf8_char(s + i, len - i)) > 0)
                i += n;
        return i;
}

void pn_hex(char *out, const uint8_t *b, size_t n) {
        static const char digits[] = "0123456789abcdef";
        for (size_t i = 0; i < n; i++) {
                out[2 * i] = digits[b[i] >> 4];
                out[2 * i + 1] = digits[b[i] & 15];
        }
        out[2 * n] = 0;
}
