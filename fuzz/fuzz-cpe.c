/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the CPE checker (CPE 2.3 formatted strings and 2.2 URIs): it
 * returns a PKGNOTE_CPE_* kind or -EINVAL with a reason, never anything
 * else, and gives the same answer twice.
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
        free(s);
        return 0;
}
