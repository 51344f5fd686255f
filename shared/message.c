/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The last failure's message (message.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "message.h"

static _Thread_local char last_error[256];
/* Counts the messages recorded: the library's boundary tells by it
 * whether a failing call said anything of its own. */
static _Thread_local unsigned generation;

unsigned pn_error_generation(void) {
        return generation;
}

const char *pn_last_error(void) {
        return last_error;
}

void pn_error_clear(void) {
        last_error[0] = 0;
}

int pn_error(int err, const char *fmt, ...) {
        char raw[sizeof last_error];
        va_list ap;
        generation++;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* Messages quote input: a hostile value must not reach a terminal
         * or a log as control characters. */
        pn_escape(last_error, sizeof last_error, raw, strlen(raw), false);
        return err;
}

/* The one out-of-memory message: every allocation failure of the library,
 * of these helpers and of the commands is said with it
 * (tests/arch/cmd-lib-cycles.sh counts the text). */
const char pn_out_of_memory[] = "out of memory";

int pn_oom(void) {
        return pn_error(-ENOMEM, "%s", pn_out_of_memory);
}
