/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "escape.h"
#include "message.h"
#include "output.h"

const char *program_name = "pkgnote";

int tool_error(const char *path, const char *what, int err) {
        const char *detail = pkgnote_last_error();
        return tool_error_reason(path, what, detail && *detail ? detail : strerror(err < 0 ? -err : err));
}

int tool_error_shared(const char *path, const char *what, int err) {
        const char *detail = pn_last_error();
        int r = tool_error_reason(path, what, *detail ? detail : strerror(err < 0 ? -err : err));
        pn_error_clear();
        return r;
}

int tool_error_reason(const char *path, const char *what, const char *reason) {
        fprintf(stderr, "%s: '", program_name);
        tool_print_escaped(stderr, path);
        fprintf(stderr, "': %s: %s\n", what, reason);
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

int tool_oom(const char *cmd) {
        return cmd ? tool_fail("%s: %s", cmd, pn_out_of_memory) : tool_fail("%s", pn_out_of_memory);
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

void tool_warn_ignoring(const char *path, const char *message) {
        fprintf(stderr, "%s: '", program_name);
        tool_print_escaped(stderr, path);
        fputs("': ", stderr);
        tool_print_escaped(stderr, message);
        fputs(", ignoring\n", stderr);
}

int tool_put_json(FILE *f, int r, char **json) {
        if (r >= 0) {
                fputs(*json, f);
                fputc('\n', f);
                free(*json);
        }
        return r;
}

int tool_parse_size(const char *s, uint64_t *ret) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        uint64_t mul = 1;
        if (*end == 'K' || *end == 'k')
                mul = 1ull << 10, end++;
        else if (*end == 'M')
                mul = 1ull << 20, end++;
        else if (*end == 'G')
                mul = 1ull << 30, end++;
        else if (*end == 'T')
                mul = 1ull << 40, end++;
        if (errno || end == s || *end || s[0] == '-' || v > UINT64_MAX / mul)
                return -EINVAL;
        *ret = v * mul;
        return 0;
}

int tool_parse_format(const char *f, bool *json, bool *systemd) {
        *json = !strcmp(f, "json");
        *systemd = !strcmp(f, "systemd");
        if (*json || *systemd || !strcmp(f, "text"))
                return 0;
        tool_fail("--format: '%s' is none of text, json, systemd", f);
        return -1;
}

int tool_parse_cyclonedx_version(const char *command, const char *v, int *ret) {
        if (!strcmp(v, "1.6"))
                *ret = PKGNOTE_SBOM_CYCLONEDX_1_6;
        else if (!strcmp(v, "1.7"))
                *ret = PKGNOTE_SBOM_CYCLONEDX_1_7;
        else if (!strcmp(v, "1.5"))
                *ret = PKGNOTE_SBOM_CYCLONEDX_1_5;
        else
                return tool_fail("%s: unknown CycloneDX version '%s' (1.6, 1.7, 1.5)", command, v), -1;
        return 0;
}

int tool_sbom_options(const char *command, const char *name, pkgnote_sbom_options *ret) {
        *ret = (pkgnote_sbom_options)PKGNOTE_SBOM_OPTIONS_INIT;
        ret->name = name;
        const char *sde = getenv("SOURCE_DATE_EPOCH");
        if (sde && *sde) {
                char *end;
                errno = 0;
                long long t = strtoll(sde, &end, 10);
                if (errno || *end || t < 0)
                        return tool_fail("%s: SOURCE_DATE_EPOCH '%s' is not a number of seconds", command, sde);
                ret->created = t;
                ret->reproducible = 1;
        }
        return 0;
}

int tool_write_output(const char *path, unsigned flags, const void *data, size_t len, const char *what) {
        const char *name = path ? path : "-";
        pn_output o;
        char why[128] = "";
        int r = pn_output_open(&o, AT_FDCWD, name, flags | PN_OUT_FOLLOW);
        if (r < 0)
                return tool_error_shared(name, what, r);
        if ((r = pn_write_full(o.fd, data, len)) < 0)
                snprintf(why, sizeof why, "cannot write: %s", strerror(-r));
        if (r == 0 && !o.direct && !o.borrowed && (r = pn_output_verify(&o, data, len)) < 0)
                snprintf(why, sizeof why, "written data does not read back");
        if (r == 0)
                r = pn_output_commit(&o);
        else
                pn_output_abort(&o);
        if (r < 0 && why[0])
                return tool_error_reason(name, what, why);
        return r < 0 ? tool_error_shared(name, what, r) : EXIT_OK;
}

int tool_kernel_json(unsigned flags, char **ret) {
        pkgnote_kernel *k = NULL;
        pkgnote_kernel_options ko = PKGNOTE_KERNEL_OPTIONS_INIT;
        /* Not its package database: reading it whole for the kernel's
         * package would cost a process's report more than the process's
         * own lookups (ps --kernel has it). */
        ko.flags = PKGNOTE_KERNEL_NO_MODULES | PKGNOTE_KERNEL_NO_DATABASE | flags;
        *ret = NULL;
        int r = pkgnote_kernel_read(&ko, &k);
        if (r >= 0)
                r = pkgnote_kernel_to_json(k, ret);
        pkgnote_kernel_free(k);
        return r < 0 ? r : 0;
}
