/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the ld.so.conf reader: every directory and include pattern it
 * hands out is a non-empty string of at most PN_LDCONF_MAX_LINE bytes
 * without a newline, no longer than the input; a directory has no "#"
 * and no "=".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-resolve.h"
#include "fuzz-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The closure reads at most PN_LDCONF_MAX_SIZE of a file. */
#define MAX_INPUT (PN_LDCONF_MAX_SIZE + 1024)

static size_t input_size;

static int each(void *u, int kind, const char *value) {
        size_t *n = u, len = strlen(value);
        if (len == 0 || len > PN_LDCONF_MAX_LINE || len > input_size || strchr(value, '\n') || strchr(value, '#'))
                abort();
        if (kind == PN_LDCONF_DIR && strchr(value, '='))
                abort();
        if (kind != PN_LDCONF_DIR && kind != PN_LDCONF_INCLUDE)
                abort();
        (*n)++;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        size_t n = 0;
        input_size = size;
        if (pn_ldconf_parse(text, size, each, &n) != 0)
                abort();
        free(text);
        return 0;
}
