/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one escaping of text that came from input (file names, JSON values,
 * arguments) before it is shown (escape.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

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
