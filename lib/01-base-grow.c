/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one growable array: room for at least N elements, doubling. */
#include <stdlib.h>
#include <string.h>

#include "01-base.h"

int pn_grow(void *array, size_t *cap, size_t n, size_t size) {
        if (n <= *cap)
                return 0;
        size_t want = *cap ? *cap : 8;
        while (want < n) {
                if (want > SIZE_MAX / 2)
                        return -ENOMEM;
                want *= 2;
        }
        if (size == 0 || want > SIZE_MAX / size)
                return -ENOMEM;
        void *p;
        memcpy(&p, array, sizeof p);
        p = realloc(p, want * size);
        if (!p)
                return -ENOMEM;
        memcpy(array, &p, sizeof p);
        *cap = want;
        return 0;
}
