/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote-coredump's journal entry: each stored crash logged as
 * systemd-coredump logs one, where a journal runs. */
#ifndef PKGNOTE_COREDUMP_JOURNAL_H
#define PKGNOTE_COREDUMP_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "journal-send.h"
#include "pkgnote.h"

struct crash_journal {
        bool wanted;              /* a journal socket exists */
        struct journal_msg proc;  /* what /proc/PID told while the process waited */
        char *package_json;       /* systemd's object (COREDUMP_PACKAGE_JSON) */
        char *package_name, *package_version;
        char *modules;            /* "Module ... from ..." lines for MESSAGE */
};

/* What the kernel told (the handler's arguments, as given). */
struct crash_facts {
        int pid, uid, gid, sig;
        const char *time, *rlimit, *hostname, *comm;
        const char *core_file; /* the stored core, or NULL */
        bool truncated;
};

/* Reads /proc/PID while the crashed process still waits for its core to
 * be taken; nothing when no journal socket exists. */
void crash_journal_collect(struct crash_journal *j, int pid);
/* The packages of the stored core C (systemd's object, the executable's
 * package and the module lines), and the crashing thread's stack text
 * from ST (may be NULL) as systemd-coredump writes it. */
void crash_journal_core(struct crash_journal *j, pkgnote_core *c, const pkgnote_stack *st);
/* Logs the crash; 0, or a negative errno (the crash stays stored). */
int crash_journal_log(struct crash_journal *j, const struct crash_facts *f);

#endif
