/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The crash directory shared by pkgnote-coredump (writer) and
 * pkgnote list / core (readers): one compressed core and one JSON report
 * per crash, named core.COMM.UID.PID.TIME. */
#ifndef PKGNOTE_CRASHDIR_H
#define PKGNOTE_CRASHDIR_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "pkgnote.h"
#include "stack.h"

#define CRASH_DEFAULT_DIR "/var/lib/pkgnote/coredump"
#if HAVE_ZSTD
#define CRASH_CORE_SUFFIX ".zst"
#else
#define CRASH_CORE_SUFFIX ""
#endif
#define CRASH_REPORT_SUFFIX ".json"

/* OVERRIDE when given, else $PKGNOTE_COREDUMP_DIR, else the default. */
const char *crash_state_dir(const char *override);
/* "core.COMM.UID.PID.TIME" with COMM reduced to [A-Za-z0-9_.-]. */
void crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time);
/* The report: pkgnote core --json with "time", "hostname", "coreFile",
 * and the stack trace when ST is not NULL.  Returns 0 or a negative errno. */
int crash_write_report(FILE *f, const pkgnote_core *c, const pkgnote_stack *st, int64_t time, const char *host,
                       const char *core_path);
/* Under the store's lock: removes stale temporaries and half-made
 * entries of killed handlers, reports without their core, then whole
 * entries, oldest first, until the directory DIRFD holds at most MAX_USE
 * bytes or MAX_REMOVE entries went; never the entry named KEEP, nor one
 * still being written.  Returns the number of whole entries removed.
 * An entry exists for readers once its report does, which is written
 * after its core and removed before it. */
int crash_enforce_limits(int dirfd, uint64_t max_use, const char *keep, size_t max_remove);

/* An entry of the store, as its report tells. */
struct crash {
        char *report; /* path of the JSON report */
        json_t *j;    /* the report */
        int64_t time;
};
/* Every entry of DIR (a report whose core exists), oldest first; an
 * unreadable report is said on standard error and skipped.  0 or -errno. */
int crash_load(const char *dir, struct crash **ret, size_t *ret_n);
void crash_unload(struct crash *c, size_t n);

/* The core file of the newest entry of DIR whose PID (WHAT numeric) or
 * command or entry name is WHAT: 1 and its path, 0 when none. */
int crash_find(const char *dir, const char *what, char *core_path, size_t len);

#endif
