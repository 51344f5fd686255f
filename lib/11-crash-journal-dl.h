/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsystemd's sd-journal API, loaded with dlopen() on first use
 * through the one loader (lib/11-crash-journal-dl.c, lib/01-base-loader.h): the build needs no libsystemd headers, and a machine
 * without libsystemd still lists the other crash stores.  The prototypes
 * are sd-journal(3)'s; only the functions pkgnote calls are declared.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct sd_journal sd_journal;

/* sd_journal_open() flags (sd-journal.h) */
#define PN_SD_JOURNAL_LOCAL_ONLY (1 << 0)

#define PN_JOURNAL_FUNCS(X)                                                                                          \
        X(int, sd_journal_open, (sd_journal **, int))                                                                \
        X(int, sd_journal_open_directory, (sd_journal **, const char *, int))                                        \
        X(int, sd_journal_open_files, (sd_journal **, const char **, int))                                           \
        X(void, sd_journal_close, (sd_journal *))                                                                    \
        X(int, sd_journal_add_match, (sd_journal *, const void *, size_t))                                           \
        X(int, sd_journal_next, (sd_journal *))                                                                      \
        X(int, sd_journal_get_data, (sd_journal *, const char *, const void **, size_t *))                           \
        X(int, sd_journal_enumerate_data, (sd_journal *, const void **, size_t *))                                   \
        X(void, sd_journal_restart_data, (sd_journal *))                                                             \
        X(int, sd_journal_set_data_threshold, (sd_journal *, size_t))                                                \
        X(int, sd_journal_get_realtime_usec, (sd_journal *, uint64_t *))                                             \
        X(int, sd_journal_get_cursor, (sd_journal *, char **))                                                       \
        X(int, sd_journal_seek_cursor, (sd_journal *, const char *))                                                 \
        X(int, sd_journal_test_cursor, (sd_journal *, const char *))

#define PN_JOURNAL_DECLARE(ret, name, args) ret(*name) args;
struct pn_journal_api {
        PN_JOURNAL_FUNCS(PN_JOURNAL_DECLARE)
};
#undef PN_JOURNAL_DECLARE

/* The table, filled by pn_journal_load(). */
extern struct pn_journal_api pn_journal_api;

/* Loads libsystemd.so.0 once per process: 0, or -EOPNOTSUPP with
 * pn_error set when it or one of its functions is missing. */
int pn_journal_load(void);
