/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The crash-store options list and core share (tools/crashopts.c). */
#pragma once

#include <getopt.h>

#include "pkgnote.h"

enum { CRASH_OPT_FILE = 300, CRASH_OPT_SINCE, CRASH_OPT_UNTIL, CRASH_OPT_SYSTEMD_DIR };
#define CRASH_LONGOPTS                                                       \
        {"directory", required_argument, NULL, 'D'},                         \
        {"file", required_argument, NULL, CRASH_OPT_FILE},                   \
        {"since", required_argument, NULL, CRASH_OPT_SINCE},                 \
        {"until", required_argument, NULL, CRASH_OPT_UNTIL},                 \
        {"systemd-dir", required_argument, NULL, CRASH_OPT_SYSTEMD_DIR},     \
        {"state-dir", required_argument, NULL, 'd'}
#define CRASH_SHORTOPTS "D:d:"
#define CRASH_HELP                                                                            \
        "  -D, --directory DIR   systemd-coredump's crashes from the journal in DIR\n"       \
        "      --file FILE       ... from the journal file FILE (repeatable)\n"              \
        "      --since TIME      only crashes at or after TIME (@EPOCH, YYYY-MM-DD\n"        \
        "                        [HH:MM[:SS]] in local time, 'today', 'yesterday')\n"        \
        "      --until TIME      only crashes at or before TIME\n"                           \
        "      --systemd-dir DIR systemd-coredump's store (default /var/lib/systemd/coredump)\n" \
        "  -d, --state-dir DIR   pkgnote-coredump's store (default $PKGNOTE_COREDUMP_DIR,\n" \
        "                        else /var/lib/pkgnote/coredump)\n"

struct crash_opts {
        pkgnote_crash_options lib;
        const char **files; /* NULL-terminated */
        size_t n_files;
};

/* Takes option CH (of CRASH_LONGOPTS) into O: 1 when it was one, 0 when
 * not, -1 on a bad value (reported). */
int crash_option(struct crash_opts *o, int ch, const char *arg);
/* Fills what the options imply (the stores named); call after parsing. */
void crash_options_done(struct crash_opts *o, const char *match);
void crash_options_free(struct crash_opts *o);
