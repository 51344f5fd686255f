/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stack traces of a core's threads, with elfutils libdwfl when built in. */
#ifndef PKGNOTE_STACK_H
#define PKGNOTE_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkgnote.h"

/* The same limits as systemd-coredump. */
#define STACK_MAX_THREADS 64
#define STACK_MAX_FRAMES 64

struct stack_frame {
        uint64_t pc;
        char *function;     /* or NULL */
        char *module;       /* or NULL */
        uint64_t module_offset;
};

struct stack_thread {
        int tid;
        struct stack_frame frames[STACK_MAX_FRAMES];
        size_t n_frames;
};

struct stack_report {
        char *unavailable;  /* why there is no trace, or NULL */
        struct stack_thread *threads;
        size_t n_threads;
};

/* Unwinds in a child process, so that a hostile core crashing the
 * unwinder cannot take pkgnote down with it. */
void stack_collect(struct stack_report *st, const char *path, const pkgnote_core *c, bool all_threads);
void stack_print_text(const struct stack_report *st, FILE *f);
/* The "threads" array of the JSON report. */
void stack_print_json(const struct stack_report *st, const pkgnote_core *c, FILE *f);
void stack_free(struct stack_report *st);

#endif
