/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stamp results as callers hand them in (lib/06-stamp-files.h): arrays whose
 * first element's size field is the stride, read and written only within
 * it, so a caller built against an older header keeps working. */
#include <errno.h>
#include <string.h>

#include "01-base.h"
#include "06-stamp-files.h"

static size_t stride_of(const pkgnote_stamp_result *results) {
        size_t size;
        memcpy(&size, results, sizeof size);
        return size;
}

int pn_stamp_results_ok(const pkgnote_stamp_result *results, size_t n) {
        if (!results)
                return 0;
        if (n > PN_STAMP_RESULTS_MAX)
                return pn_error(-EINVAL, "too many notes");
        size_t k;
        return n ? pn_result_size(results, sizeof *results, PN_SIZE_1_0(pkgnote_stamp_result), &k, "pkgnote_stamp_result") : 0;
}

void pn_stamp_results_out(pkgnote_stamp_result *results, const pkgnote_stamp_result *full, size_t n) {
        if (!results || n == 0)
                return;
        size_t stride = stride_of(results);
        for (size_t i = 0; i < n; i++) {
                unsigned char *dst = (unsigned char *)results + i * stride;
                pkgnote_stamp_result f = full[i];
                f.size = sizeof f;
                /* Each element says its size, as the first one does. */
                memcpy(dst, &stride, sizeof stride);
                (void)pn_result_copy(dst, &f, sizeof f, PN_SIZE_1_0(pkgnote_stamp_result), "pkgnote_stamp_result");
        }
}

int pn_stamp_results_in(const pkgnote_stamp_result *results, size_t n, pkgnote_stamp_result *full) {
        int r = pn_stamp_results_ok(results, n);
        if (r < 0)
                return r;
        size_t stride = stride_of(results), k = stride < sizeof *full ? stride : sizeof *full;
        for (size_t i = 0; i < n; i++) {
                full[i] = (pkgnote_stamp_result){0};
                memcpy(&full[i], (const unsigned char *)results + i * stride, k);
                full[i].size = sizeof full[i];
        }
        return 0;
}
