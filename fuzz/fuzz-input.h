/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copies of a fuzz input for the harnesses (fuzz/fuzz-*.c). */
#ifndef PKGNOTE_FUZZ_INPUT_H
#define PKGNOTE_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An exact-size copy (at least one byte allocated), so that ASan sees any
 * read past the SIZE bytes a length-taking parser was given; NULL for an
 * input over MAX bytes. */
static inline char *fuzz_copy(const uint8_t *data, size_t size, size_t max) {
        if (size > max)
                return NULL;
        char *p = malloc(size ? size : 1);
        if (p && size)
                memcpy(p, data, size);
        return p;
}

/* The input as a C string, or NULL when it holds a NUL byte. */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
        if (memchr(data, 0, size))
                return NULL;
        char *s = malloc(size + 1);
        if (s) {
                memcpy(s, data, size);
                s[size] = 0;
        }
        return s;
}

#endif
