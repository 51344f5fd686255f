/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Option structs that can grow: each starts with its size (see
 * include/pkgnote.h), so a caller built against an older or newer header
 * keeps working. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"

/* One caller's struct of STRIDE bytes at IN into OUT (OUT_SIZE bytes, its
 * size set to OUT_SIZE); WHAT and KIND name it in a message. */
static int struct_read(void *out, size_t out_size, const unsigned char *in, size_t stride, const char *what,
                       const char *kind) {
        memset(out, 0, out_size);
        for (size_t i = out_size; i < stride; i++)
                if (in[i])
                        return pn_error(-EINVAL, "%s%s: set fields unknown to this library", what, kind);
        memcpy(out, in, stride < out_size ? stride : out_size);
        memcpy(out, &out_size, sizeof out_size);
        return 0;
}

int pn_options_read(void *out, size_t out_size, const void *in, size_t min, const char *what) {
        if (!in) {
                memset(out, 0, out_size);
                memcpy(out, &out_size, sizeof out_size);
                return 0;
        }
        size_t size;
        memcpy(&size, in, sizeof size);
        if (size == 0)
                size = min; /* callers that leave it zero know the fields of 1.0 */
        if (size < min)
                return pn_error(-EINVAL, "%s options: size %zu is too small (set it to sizeof the struct)", what, size);
        /* A newer caller's fields this library lacks must be unset: an
         * option that cannot be honoured is an error, not ignored. */
        return struct_read(out, out_size, in, size, what, " options");
}

int pn_result_size(const void *dst, size_t full, size_t min, size_t *ret, const char *what) {
        size_t size;
        memcpy(&size, dst, sizeof size);
        /* Smaller than 1.0's: a caller that did not set it. */
        if (size < min)
                return pn_error(-EINVAL, "%s: size %zu is too small (set it to sizeof the struct)", what, size);
        *ret = size < full ? size : full;
        return 0;
}

int pn_result_copy(void *dst, const void *src, size_t full, size_t min, const char *what) {
        size_t n = 0;
        int r = pn_result_size(dst, full, min, &n, what);
        if (r < 0)
                return r;
        /* An older caller's struct ends earlier: nothing past its end is
         * written; its size field stays as the caller set it. */
        memcpy((unsigned char *)dst + sizeof n, (const unsigned char *)src + sizeof n, n - sizeof n);
        return 0;
}

int pn_struct_read(void *out, size_t out_size, const void *in, size_t min, const char *what) {
        size_t size;
        memcpy(&size, in, sizeof size);
        if (size < min)
                return pn_error(-EINVAL, "%s: size %zu is too small (set it to sizeof the struct)", what, size);
        return struct_read(out, out_size, in, size, what, "");
}

int pn_array_read(void **ret, size_t elem, const void *in, size_t n, size_t min, const char *what) {
        *ret = NULL;
        if (!in || n == 0)
                return 0;
        size_t stride;
        memcpy(&stride, in, sizeof stride);
        if (stride < min)
                return pn_error(-EINVAL, "%s: size %zu is too small (set it to sizeof the struct)", what, stride);
        if (n > SIZE_MAX / stride || n > SIZE_MAX / elem)
                return pn_error(-EINVAL, "%s: %zu elements are too many", what, n);
        unsigned char *out = calloc(n, elem);
        if (!out)
                return pn_oom();
        for (size_t i = 0; i < n; i++) {
                int r = struct_read(out + i * elem, elem, (const unsigned char *)in + i * stride, stride, what, "");
                if (r < 0) {
                        free(out);
                        return r;
                }
        }
        *ret = out;
        return 0;
}
