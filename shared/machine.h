/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* This machine and boot, as journald names them (shared/machine.c): for
 * the reports the library and pkgnote-coredump write. */
#ifndef PN_SHARED_MACHINE_H
#define PN_SHARED_MACHINE_H

#include <stdbool.h>

/* This boot's id as journald writes _BOOT_ID (32 lowercase hexadecimal
 * digits, no dashes) into BUF: false (BUF "") when the kernel gives none. */
bool pn_boot_id(char buf[static 33]);
/* This machine's id as journald writes _MACHINE_ID (/etc/machine-id:
 * 32 lowercase hexadecimal digits) into BUF, or "". */
void pn_read_machine_id(char buf[static 33]);

#endif
