/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the os-release parser (shell quoting, no expansion) and what
 * generate builds from it: every value it returns must be a NUL-terminated
 * string of no more bytes than the input, lookups of the keys pkgnote
 * uses must not crash, and the package format read from ID and ID_LIKE
 * must be one the table knows, or none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* os-release files are small; the reader refuses more than 64 KiB. */
#define MAX_INPUT (80u << 10)

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        pkgnote_os_release *o = NULL;
        if (pkgnote_os_release_parse(text, size, &o) == 0) {
                static const char *const keys[] = {"ID", "VERSION_ID", "CPE_NAME", "NAME", "ID_LIKE", "", "=", NULL};
                for (size_t i = 0; keys[i]; i++) {
                        const char *v = pkgnote_os_release_get(o, keys[i]);
                        if (v && strlen(v) > size)
                                abort(); /* a value longer than its input */
                        if (v)
                                sink += strlen(v);
                }
                sink += pkgnote_os_release_problem_count(o);
                /* The package format is one of the table's, or none. */
                const char *t = pkgnote_os_release_package_type(o);
                if (t && strcmp(t, "deb") && strcmp(t, "rpm") && strcmp(t, "apk") && strcmp(t, "alpm"))
                        abort();
                if (pkgnote_os_release_path(o) != NULL)
                        abort(); /* parsed, not read from a file */
                pkgnote_os_release_free(o);
        }
        free(text);
        return 0;
}
