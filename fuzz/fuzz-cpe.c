/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the CPE checker (CPE 2.3 formatted strings and 2.2 URIs): it
 * returns a PKGNOTE_CPE_* kind or -EINVAL with a reason, never anything
 * else, and gives the same answer twice.  The same string as a note's
 * osCpe (the note having no os): the purl made from it is one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 4096u

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = size > MAX_INPUT ? NULL : fuzz_string(data, size);
        if (!s)
                return 0;
        int r = pkgnote_cpe_check(s);
        if (r >= 0 && r != PKGNOTE_CPE_FS && r != PKGNOTE_CPE_FS_SHORT && r != PKGNOTE_CPE_URI)
                abort();
        if (r < 0) {
                const char *why = pkgnote_last_error();
                if (r != -EINVAL || !why || !*why)
                        abort();
                sink += strlen(why);
        }
        if (pkgnote_cpe_check(s) != r)
                abort();
        pkgnote_metadata *m = NULL;
        char *purl = NULL;
        if (pkgnote_metadata_new(&m) == 0 && pkgnote_metadata_set(m, PKGNOTE_KEY_TYPE, "rpm") == 0 &&
            pkgnote_metadata_set(m, PKGNOTE_KEY_NAME, "x") == 0 && pkgnote_metadata_set(m, PKGNOTE_KEY_OS_CPE, s) == 0 &&
            pkgnote_purl(m, &purl) == 0) {
                /* pkg:rpm/[NAMESPACE/]x[?distro=...]: no raw separator or
                 * space from the CPE gets in. */
                if (strncmp(purl, "pkg:rpm/", 8) || strchr(purl, ' ') || strchr(purl, '#'))
                        abort();
                const char *path = purl + 8, *q = strchr(path, '?');
                size_t n = q ? (size_t)(q - path) : strlen(path);
                const char *slash = memchr(path, '/', n);
                if (slash ? slash == path || memchr(slash + 1, '/', n - (size_t)(slash + 1 - path)) ||
                                    (size_t)(path + n - slash) != 2 || slash[1] != 'x'
                          : n != 1 || path[0] != 'x')
                        abort();
        }
        free(purl);
        pkgnote_metadata_free(m);
        free(s);
        return 0;
}
