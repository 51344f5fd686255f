/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reading of systemd-coredump's stack text (the journal's
 * MESSAGE, which any local user can log under the crash MESSAGE_ID) into
 * a crash signature.  The input is the text, optionally followed by a NUL
 * and COREDUMP_PACKAGE_JSON (up to 4 KiB).  A signature made must hold at most
 * PKGNOTE_SIGNATURE_FRAMES frames, no control character, a 16-digit hash,
 * and JSON that parses back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > PKGNOTE_MAX_STACK_TEXT + 4096)
                return 0;
        const uint8_t *nul = memchr(data, 0, size);
        size_t tlen = nul ? (size_t)(nul - data) : size;
        char *text = fuzz_copy(data, tlen, PKGNOTE_MAX_STACK_TEXT + 4096);
        size_t rest = nul ? size - tlen - 1 : 0;
        char *packages = nul && rest <= 4096 ? fuzz_string(nul + 1, rest) : NULL;
        if (!text) {
                free(packages);
                return 0;
        }
        pkgnote_signature *s;
        if (pkgnote_signature_from_message(text, tlen, packages, &s) == 0) {
                const char *t = pkgnote_signature_text(s), *h = pkgnote_signature_hash(s);
                if (!t || !h || strlen(h) != 16 || !pkgnote_signature_package(s))
                        abort();
                for (const char *p = t; *p; p++)
                        if ((unsigned char)*p < 0x20 || *p == 0x7f)
                                abort();
                size_t n = pkgnote_signature_frame_count(s);
                if (n == 0 || n > PKGNOTE_SIGNATURE_FRAMES || pkgnote_signature_frame(s, n))
                        abort();
                for (size_t i = 0; i < n; i++)
                        touch_str(pkgnote_signature_frame(s, i));
                if (pkgnote_signature_source(s) != PKGNOTE_SIGNATURE_MESSAGE)
                        abort();
                char *j;
                if (pkgnote_signature_to_json(s, &j) == 0) {
                        json_t *v = json_loads(j, 0, NULL);
                        if (!v || json_array_size(json_object_get(v, "frames")) != n)
                                abort();
                        json_decref(v);
                        free(j);
                }
                pkgnote_signature_free(s);
        }
        free(text);
        free(packages);
        return 0;
}
