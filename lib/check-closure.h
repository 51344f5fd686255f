/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dependency closures (lib/check-closure.c) and the ld.so.conf reader
 * they use (lib/check-ldconf.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* A line of ld.so.conf longer than this names no usable directory. */
#define PN_LDCONF_MAX_LINE 4095u
/* Bytes of one ld.so.conf file read. */
#define PN_LDCONF_MAX_SIZE (1u << 20)
/* Files read through "include", all told, and how deep includes nest:
 * a loop of includes ends at either. */
#define PN_LDCONF_MAX_FILES 256u
#define PN_LDCONF_MAX_DEPTH 16u
/* Library directories kept from ld.so.conf. */
#define PN_LDCONF_MAX_DIRS 1024u

enum { PN_LDCONF_DIR = 1, PN_LDCONF_INCLUDE = 2 };
/* Called with each directory or include pattern, in file order; a
 * negative errno stops the parse and is returned. */
typedef int (*pn_ldconf_fn)(void *u, int kind, const char *value);
/* Parses the LEN bytes of ld.so.conf text at TEXT (any bytes). */
int pn_ldconf_parse(const char *text, size_t len, pn_ldconf_fn fn, void *u);

/* The I-th Debian multiarch triplet of the ABI (class, machine, byte
 * order), NULL past the last (lib/check-deps.c's table). */
const char *pn_multiarch_triplet(int elf_class, unsigned machine, int big_endian, size_t i);
