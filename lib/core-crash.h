/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote-coredump's store (lib/core-crash.c): how its writer names and
 * vacuums entries.  Readers use the public pkgnote_crashes_* API. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "pkgnote.h"

#define PN_CRASH_DEFAULT_DIR "/var/lib/pkgnote/coredump"
#if HAVE_ZSTD
#define PN_CRASH_CORE_SUFFIX ".zst"
#else
#define PN_CRASH_CORE_SUFFIX ""
#endif
#define PN_CRASH_REPORT_SUFFIX ".json"

/* OVERRIDE when given, else $PKGNOTE_COREDUMP_DIR, else the default. */
const char *pn_crash_dir(const char *override);
/* "core.COMM.UID.PID.TIME" with COMM reduced to [A-Za-z0-9_-]. */
void pn_crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time);
/* The report: pkgnote core --json with "time", "hostname", "coreFile",
 * and the stack trace when ST is not NULL.  Returns 0 or a negative errno. */
int pn_crash_write_report(FILE *f, const pkgnote_core *c, const pkgnote_stack *st, int64_t time, const char *host,
                          const char *core_path);
/* Under the store's lock: removes stale temporaries and half-made
 * entries of killed handlers, reports without their core, then whole
 * entries, oldest first, until the directory DIRFD holds at most MAX_USE
 * bytes or MAX_REMOVE entries went; never the entry named KEEP, nor one
 * still being written.  Returns the number of whole entries removed. */
int pn_crash_enforce_limits(int dirfd, uint64_t max_use, const char *keep, size_t max_remove);
