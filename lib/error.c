/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static _Thread_local char last_error[256];

PKGNOTE_PUBLIC const char *pkgnote_last_error(void) {
        return last_error;
}

void pn_error_clear(void) {
        last_error[0] = 0;
}

int pn_error(int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(last_error, sizeof last_error, fmt, ap);
        va_end(ap);
        return err;
}
