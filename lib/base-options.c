/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Option structs that can grow: each starts with its size (see
 * include/pkgnote.h), so a caller built against an older or newer header
 * keeps working. */
#include <string.h>

#include "internal.h"

int pn_options_read(void *out, size_t out_size, const void *in, size_t v0_size, const char *what) {
        memset(out, 0, out_size);
        if (in) {
                size_t size;
                memcpy(&size, in, sizeof size);
                if (size == 0)
                        size = v0_size; /* callers that leave it zero know version 0's fields */
                if (size < sizeof size)
                        return pn_error(-EINVAL, "%s options: size %zu is too small", what, size);
                /* A newer caller's fields this library lacks must be unset:
                 * an option that cannot be honoured is an error, not ignored. */
                const unsigned char *b = in;
                for (size_t i = out_size; i < size; i++)
                        if (b[i])
                                return pn_error(-EINVAL, "%s options: set fields unknown to this library", what);
                memcpy(out, in, size < out_size ? size : out_size);
        }
        memcpy(out, &out_size, sizeof out_size);
        return 0;
}

int pn_result_size(const void *dst, size_t full, size_t *ret, const char *what) {
        size_t size;
        memcpy(&size, dst, sizeof size);
        /* Too small to hold even its size: a caller that did not set it. */
        if (size < sizeof size)
                return pn_error(-EINVAL, "%s: size %zu is too small (set it to sizeof the struct)", what, size);
        *ret = size < full ? size : full;
        return 0;
}

int pn_result_copy(void *dst, const void *src, size_t full, const char *what) {
        size_t n = 0;
        int r = pn_result_size(dst, full, &n, what);
        if (r < 0)
                return r;
        /* An older caller's struct ends earlier: nothing past its end is
         * written; its size field stays as the caller set it. */
        memcpy((unsigned char *)dst + sizeof n, (const unsigned char *)src + sizeof n, n - sizeof n);
        return 0;
}
