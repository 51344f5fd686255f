/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The last error's message, and the one escaping of text that came from
 * input (file names, JSON values, arguments) before it is shown. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local char last_error[256];

PKGNOTE_PUBLIC const char *pkgnote_last_error(void) {
        return last_error;
}

void pn_error_clear(void) {
        last_error[0] = 0;
}

/* The public boundary (lib/base-api.py wraps every exported function that
 * can fail in these): the message is cleared when the call starts, and
 * after it is "" on success or about this call's failure, never an older
 * one.  A failure that said nothing gets the function's name and the
 * errno's text. */
void pn_api_begin(void) {
        last_error[0] = 0;
}

int64_t pn_api_int64(int64_t r, const char *function) {
        if (r >= 0)
                last_error[0] = 0;
        else if (!last_error[0] && r == -ENOMEM)
                pn_oom(); /* one text for every allocation failure */
        else if (!last_error[0])
                pn_error((int)r, "%s: %s", function, strerror((int)-r));
        return r;
}

int pn_api_int(int r, const char *function) {
        return (int)pn_api_int64(r, function);
}

void *pn_api_ptr(void *p) {
        if (p)
                last_error[0] = 0;
        return p;
}

/* The one out-of-memory message of the library. */
const char pn_out_of_memory[] = "out of memory";

int pn_oom(void) {
        return pn_error(-ENOMEM, "%s", pn_out_of_memory);
}

int pn_error(int err, const char *fmt, ...) {
        char raw[sizeof last_error];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* Messages quote input: a hostile value must not reach a terminal
         * or a log as control characters. */
        pn_escape(last_error, sizeof last_error, raw, strlen(raw), false);
        return err;
}

size_t pn_utf8_char(const char *s, size_t avail) {
        const unsigned char *p = (const unsigned char *)s;
        unsigned n;
        uint32_t cp;
        if (avail == 0)
                return 0;
        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                n = 1, cp = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                n = 2, cp = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                n = 3, cp = p[0] & 0x07;
        else
                return 0;
        if (avail <= n)
                return 0;
        for (unsigned i = 1; i <= n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
                return 0; /* overlong, out of range, or a surrogate */
        return n + 1;
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

size_t pn_escape(char *dst, size_t cap, const char *s, size_t len, bool backslash) {
        const unsigned char *p = (const unsigned char *)s;
        size_t i = 0, o = 0;
        while (i < len) {
                size_t n = p[i] < 0x20 || p[i] == 0x7f ? 0 : pn_utf8_char(s + i, len - i);
                if (n == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f)
                        n = 0; /* a C1 control character */
                char esc[8];
                size_t el = n ? n : 4;
                if (n == 0)
                        snprintf(esc, sizeof esc, "\\x%02x", p[i]);
                else if (backslash && p[i] == '\\')
                        memcpy(esc, "\\\\", el = 2);
                if (o + el >= cap)
                        break;
                memcpy(dst + o, n == 0 || (backslash && p[i] == '\\') ? esc : s + i, el);
                o += el;
                i += n ? n : 1;
        }
        if (cap)
                dst[o] = 0;
        return i;
}
