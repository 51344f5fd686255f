/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of Debian's machine-readable copyright files
 * (pn_dep5_license()) and the mapping of short license names to SPDX
 * identifiers, and of rpm License tags (pn_license_tag_spdx()).  Checked: an expression is found only in a file whose
 * first line is a copyright-format 1.0 Format: field; it is one line of
 * at most PN_LICENSE_MAX bytes, made only of SPDX identifier characters,
 * spaces and parentheses (so it cannot break an SBOM), with balanced
 * parentheses; every LicenseRef- that begins a name is followed by more;
 * and it parses as one SPDX license expression by a checker of its own
 * (fuzz/spdx-check.h), so no dangling operator ("MIT OR ") gets out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz-input.h"
#include "04-pkgdb-private.h"
#include "spdx-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

/* EXPR (freed) is safe in an SBOM: see above. */
static void check_expression(char *expr) {
        if (!*expr || strlen(expr) > PN_LICENSE_MAX)
                abort();
        int depth = 0;
        for (const char *p = expr; *p; p++) {
                if (*p == '(')
                        depth++;
                else if (*p == ')') {
                        if (--depth < 0)
                                abort();
                } else if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-+ ", *p))
                        abort();
        }
        if (depth)
                abort();
        /* (inside a name, "LicenseRef-" is only more of the name) */
        for (const char *p = strstr(expr, "LicenseRef-"); p; p = strstr(p + 1, "LicenseRef-"))
                if ((p == expr || p[-1] == ' ' || p[-1] == '(') && (!p[11] || p[11] == ' ' || p[11] == ')'))
                        abort();
        if (!spdx_valid(expr))
                abort();
        free(expr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        char *expr = NULL;
        if (pn_dep5_license(text, size, &expr) > 0) {
                if (size < 8 || strncasecmp(text, "Format:", 7))
                        abort();
                check_expression(expr);
        }
        /* The same text as an rpm License tag (pn_license_tag_spdx()):
         * always an expression, unless refused as a whole. */
        char *tag = fuzz_string(data, size);
        expr = NULL;
        if (tag && pn_license_tag_spdx(tag, &expr) >= 0)
                check_expression(expr);
        free(tag);
        /* The mapping alone, on the first bytes of the input as a name. */
        char id[64];
        size_t n = size < 40 ? size : 40;
        if (pn_dep5_spdx_id(text, n, id, sizeof id) && (!*id || strlen(id) >= sizeof id))
                abort();
        free(text);
        return 0;
}
