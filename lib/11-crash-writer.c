/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer's side of pkgnote-coredump's store (lib/11-crash.c) for
 * programs of the public API: where the store is, how entries are named,
 * what a report holds, and how the store is kept under its limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "11-crash-private.h"
#include "01-base.h"

PKGNOTE_PUBLIC const char *pkgnote_crash_store_dir(const char *override) {
        return pn_crash_dir(override);
}

PKGNOTE_PUBLIC const char *pkgnote_crash_core_suffix(void) {
        return PN_CRASH_CORE_SUFFIX;
}

PKGNOTE_PUBLIC int pkgnote_crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid,
                                            int64_t time) {
        if (!buf || !comm)
                return pn_error(-EINVAL, "no buffer or no command name given");
        /* The longest name: "core." COMM(31) and three numbers. */
        char name[5 + 31 + 3 * 21 + 1];
        pn_crash_entry_name(name, sizeof name, comm, uid, pid, time);
        size_t n = strlen(name);
        if (n >= len) {
                if (len > 0)
                        buf[0] = 0;
                return pn_error(-ENAMETOOLONG, "the entry name needs %zu bytes", n + 1);
        }
        memcpy(buf, name, n + 1);
        return (int)n;
}

PKGNOTE_PUBLIC int pkgnote_crash_report(const pkgnote_core *c, const pkgnote_stack *st, int64_t time,
                                        const char *host, const char *core_path, char **ret) {
        if (!c || !ret)
                return pn_error(-EINVAL, "no core given");
        return pn_crash_report_text(c, st, time, host, core_path, ret);
}

PKGNOTE_PUBLIC int pkgnote_crash_store_vacuum(int dirfd, uint64_t max_use, const char *keep, size_t max_remove) {
        if (dirfd < 0)
                return pn_error(-EINVAL, "no store directory given");
        /* No entry is named "": NULL keeps none. */
        return pn_crash_enforce_limits(dirfd, max_use, keep ? keep : "", max_remove);
}
