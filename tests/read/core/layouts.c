/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compiled (never run) by a port's own compiler with -DROW=N: the kernel's
 * process-note structs in that ABI must have the offsets row N of
 * layouts.h gives.  A wrong row fails to compile.
 */
#include "layouts.h"

#define CHECK_ROW(row, cc, machine, class, be, uid_type, st_pid, ps_uid, ps_pid, ps_fname, ps_size)        \
        struct prstatus_##row {                                                                            \
                int si_signo, si_code, si_errno;                                                           \
                short pr_cursig;                                                                           \
                unsigned long pr_sigpend, pr_sighold;                                                      \
                int pr_pid, pr_ppid, pr_pgrp, pr_sid;                                                      \
        };                                                                                                 \
        struct prpsinfo_##row {                                                                            \
                char pr_state, pr_sname, pr_zomb, pr_nice;                                                 \
                unsigned long pr_flag;                                                                     \
                uid_type pr_uid, pr_gid;                                                                   \
                int pr_pid, pr_ppid, pr_pgrp, pr_sid;                                                      \
                char pr_fname[16], pr_psargs[80];                                                          \
        };                                                                                                 \
        _Static_assert(ROW != row || sizeof(long) * 8 == class, "row " #row ": ELF class");                \
        _Static_assert(ROW != row || __builtin_offsetof(struct prstatus_##row, pr_pid) == st_pid,          \
                       "row " #row ": prstatus pr_pid");                                                   \
        _Static_assert(ROW != row || __builtin_offsetof(struct prpsinfo_##row, pr_uid) == ps_uid,          \
                       "row " #row ": prpsinfo pr_uid");                                                   \
        _Static_assert(ROW != row || __builtin_offsetof(struct prpsinfo_##row, pr_pid) == ps_pid,          \
                       "row " #row ": prpsinfo pr_pid");                                                   \
        _Static_assert(ROW != row || __builtin_offsetof(struct prpsinfo_##row, pr_fname) == ps_fname,      \
                       "row " #row ": prpsinfo pr_fname");                                                 \
        _Static_assert(ROW != row || sizeof(struct prpsinfo_##row) == ps_size, "row " #row ": prpsinfo size");

PN_LAYOUTS(CHECK_ROW)

int layouts_checked;
