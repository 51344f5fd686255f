/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of Alpine's package database (lib/apk/db/installed,
 * pn_pkgdb_add_apk()).  Checked: every package kept has a non-empty
 * single-line name, version, architecture and source; a license, when
 * there is one, is a single line of at most PN_LICENSE_MAX bytes; every
 * file is absolute, sorted and found again by the owner lookup; the kept
 * and the left-out paragraphs together are no more than the input has.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "04-pkgdb-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

static void check_line(const char *s) {
        if (!s || !*s || strchr(s, '\n'))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        pn_pkgdb *db = pn_pkgdb_new("apk"), *sealed = NULL;
        int r = db ? pn_pkgdb_add_apk(db, text, size) : -12;
        if (pn_pkgdb_seal(db, r, &sealed) == 0) {
                /* A paragraph takes at least "P:x" and a line break. */
                if (pn_pkgdb_count(sealed) + pn_pkgdb_damaged(sealed) > size / 2 + 1)
                        abort();
                for (size_t i = 0; i < pn_pkgdb_count(sealed); i++) {
                        const struct pn_pkg *p = pn_pkgdb_pkg(sealed, i);
                        check_line(p->name);
                        check_line(p->version);
                        check_line(p->arch);
                        check_line(p->bin_name);
                        check_line(p->bin_version);
                        if (p->license && (strchr(p->license, '\n') || strlen(p->license) > PN_LICENSE_MAX))
                                abort();
                }
                const char *prev = NULL;
                for (size_t i = 0; i < pn_pkgdb_file_count(sealed); i++) {
                        size_t pkg;
                        const char *f = pn_pkgdb_file(sealed, i, &pkg);
                        if (!f || f[0] != '/' || pkg >= pn_pkgdb_count(sealed) || (prev && strcmp(prev, f) > 0) ||
                            pn_pkgdb_owner(sealed, f) < 0)
                                abort();
                        prev = f;
                }
                pn_pkgdb_free(sealed);
        }
        free(text);
        return 0;
}
