/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "tool.h"

const char *program_name = "pkgnote";

int tool_error(const char *path, const char *what, int err) {
        const char *detail = pkgnote_last_error();
        fprintf(stderr, "%s: '", program_name);
        tool_print_escaped(stderr, path);
        fprintf(stderr, "': %s: %s\n", what, detail && *detail ? detail : strerror(err < 0 ? -err : err));
        return EXIT_FAILURE_;
}

int tool_fail(const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "%s: ", program_name);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return EXIT_FAILURE_;
}

/* Length of the valid UTF-8 sequence at P (at most END), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
        unsigned n;
        uint32_t cp;
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
        if ((size_t)(end - p) <= n)
                return 0;
        for (unsigned i = 1; i <= n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
                return 0; /* overlong, out of range, surrogate, or C1 control */
        return n + 1;
}

void tool_print_escaped_n(FILE *f, const char *s, size_t len) {
        const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
        while (p < end) {
                size_t n = *p < 0x20 || *p == 0x7f ? 0 : utf8_len(p, end);
                if (n != 0 && *p != '\\') {
                        p += n; /* part of a run written in one go */
                        continue;
                }
                fwrite(run, 1, (size_t)(p - run), f);
                if (n == 0)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputs("\\\\", f);
                run = ++p;
        }
        fwrite(run, 1, (size_t)(p - run), f);
}

void tool_print_escaped(FILE *f, const char *s) {
        tool_print_escaped_n(f, s, strlen(s));
}

void tool_print_json_string(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
        fputc('"', f);
        while (p < end) {
                size_t n = *p < 0x20 || *p == 0x7f ? 1 : utf8_len(p, end);
                if (n == 0) {
                        /* Not UTF-8 (possible in paths) or a C1 control:
                         * the text \xNN, as the text output shows it, so
                         * the output stays valid JSON. */
                        if (*p == 0xc2 && p + 1 < end && p[1] >= 0x80 && p[1] <= 0x9f) {
                                fprintf(f, "\\u%04x", p[1]);
                                p += 2;
                        } else
                                fprintf(f, "\\\\x%02x", *p++);
                        continue;
                }
                if (*p == '"' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\u%04x", *p);
                else
                        fwrite(p, 1, n, f);
                p += n;
        }
        fputc('"', f);
}
