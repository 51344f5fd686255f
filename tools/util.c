/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
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
        /* Messages quote arguments and input: escaped like the library's. */
        char raw[2048], esc[8192];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        pn_escape(esc, sizeof esc, raw, strlen(raw), false);
        fprintf(stderr, "%s: %s\n", program_name, esc);
        return EXIT_FAILURE_;
}

int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts) {
        /* getopt's own messages would quote the argument raw. */
        opterr = 0;
        int c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c != '?')
                return c;
        const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
        if (strncmp(arg, "--", 2) && optopt)
                tool_fail("%s: %s -- '%c'", argv[0], strchr(shortopts, optopt) ? "option requires an argument" : "invalid option",
                          optopt);
        else if (optopt)
                tool_fail("%s: option '%s' is missing its argument, or takes none", argv[0], arg);
        else
                tool_fail("%s: unrecognized option '%s'", argv[0], arg);
        return c;
}

void tool_print_escaped_n(FILE *f, const char *s, size_t len) {
        char buf[4096];
        while (len > 0) {
                size_t n = pn_escape(buf, sizeof buf, s, len, true);
                if (n == 0)
                        break;
                fputs(buf, f);
                s += n;
                len -= n;
        }
}

void tool_print_escaped(FILE *f, const char *s) {
        tool_print_escaped_n(f, s, strlen(s));
}

void tool_print_json_string(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
        fputc('"', f);
        while (p < end) {
                size_t n = *p < 0x20 || *p == 0x7f ? 1 : pn_utf8_char((const char *)p, (size_t)(end - p));
                if (n == 2 && *p == 0xc2 && p[1] <= 0x9f)
                        n = 0; /* a C1 control character */
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
