/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stack traces of a core's or a process's threads: the options that
 * pkgnote core and pkgnote pid share, and the text form (the library
 * unwinds and writes JSON). */
#ifndef PKGNOTE_STACK_H
#define PKGNOTE_STACK_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "pkgnote.h"

enum {
        STACK_OPT_DEBUGINFOD = 0x200,
        STACK_OPT_DRY_RUN,
        STACK_OPT_TIMEOUT,
        STACK_OPT_BUDGET,
};
#define STACK_LONGOPTS                                                            \
        {"debuginfod", optional_argument, NULL, STACK_OPT_DEBUGINFOD},             \
        {"debuginfod-dry-run", optional_argument, NULL, STACK_OPT_DRY_RUN},        \
        {"debuginfod-timeout", required_argument, NULL, STACK_OPT_TIMEOUT},        \
        {"debuginfod-budget", required_argument, NULL, STACK_OPT_BUDGET}
#define STACK_HELP                                                                              \
        "      --debuginfod[=URLS]  fetch the debug info of the trace's modules that\n"         \
        "                           lack it here, by build-id: from URLS (space-separated)\n"   \
        "                           if given, else each module's own note debugInfoUrl,\n"      \
        "                           else $DEBUGINFOD_URLS; nothing is asked without it\n"       \
        "      --debuginfod-dry-run[=URLS]  say which build-ids would go to which\n"            \
        "                           server, without connecting\n"                               \
        "      --debuginfod-timeout SECONDS  per module (default 5)\n"                          \
        "      --debuginfod-budget SECONDS   for all downloads of the report (default 30)\n"

struct stack_opts {
        pkgnote_stack_options lib;
        bool wanted; /* a stack option was given */
};

/* Handles CH when it is a stack option: 1 when it was (0 when not one), or
 * -1 after printing why ARG is wrong. */
int stack_option(struct stack_opts *o, int ch, const char *arg);
void stack_print_text(const pkgnote_stack *st, FILE *f);
/* Shows slow debuginfod downloads on standard error, when it is a
 * terminal, as one line rewritten in place. */
void stack_show_progress(struct stack_opts *o);

#endif
