/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd-coredump's crashes (lib/11-crash-systemd.c): the parsers of its
 * store's file names, its extended attributes and journal field values,
 * apart for the fuzzers and unit tests. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "01-base-problem.h"

#define PN_SD_STORE_DIR "/var/lib/systemd/coredump"
#define PN_SD_MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"
/* A store file name longer than this is none systemd-coredump made
 * (COMM is 15 bytes, each at most 4 escaped). */
#define PN_SD_MAX_NAME 255u
/* A core the journal holds inline is read into memory: at most this. */
#define PN_SD_MAX_INLINE_CORE (4ull << 30)

/* What a store file's name says: core.COMM.UID.BOOTID.PID.USEC[.zst|.xz|.lz4]. */
struct pn_sd_name {
        char comm[PN_SD_MAX_NAME + 1]; /* unescaped (\xNN), NUL-free */
        uint64_t uid, pid, usec;
        char boot_id[33];
        const char *compression; /* "zst", "xz", "lz4" or NULL */
};

/* Parses NAME strictly: 0, or -EBADMSG with pn_error set saying why. */
int pn_sd_parse_name(const char *name, struct pn_sd_name *ret);
/* VALUE (LEN bytes, from a journal field or an extended attribute) as a
 * string fit to keep: at most PKGNOTE_MAX_CRASH_FIELD bytes (-E2BIG), no
 * NUL (-EBADMSG), invalid UTF-8 bytes as "\xNN".  malloc()ed into *RET. */
int pn_sd_value(const void *value, size_t len, char **ret);
/* Records FIELD (systemd's name: "COREDUMP_PID", "_BOOT_ID") = VALUE into
 * the record J: the value under FIELD, and under its report name
 * ("pid" as a number, "executable", "package": {"name"}...).  A number
 * that does not parse is a problem in P about PATH; 0 or -ENOMEM. */
int pn_sd_record(json_t *j, const char *field, const char *value, struct pn_problems *p, const char *path);
/* A journal entry's data "FIELD=VALUE" (LEN bytes) split: the name into
 * NAME (at most SIZE bytes with its NUL) and the value's offset; 0 or
 * -EBADMSG. */
int pn_sd_split_field(const void *data, size_t len, char *name, size_t size, size_t *value_off);
