/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what pkgnote reads of systemd-coredump's crashes (lib/11-crash-systemd.c)
 * and the names of pkgnote-coredump's store (lib/11-crash.c): the first
 * byte picks the parser, the rest is its input.
 *   'n': a store file name (core.COMM.UID.BOOTID.PID.USEC[.zst|.xz|.lz4]);
 *   'p': a name of pkgnote's store (core.COMM.UID.PID.TIME, .json or the
 *        core's suffix);
 *   'f': a journal entry's data, FIELD=VALUE, as sd_journal_get_data() gives it;
 *   else: an extended attribute's value, recorded as each user.coredump.* field.
 * A value kept must be a valid UTF-8 string without NUL (jansson takes it)
 * of at most four bytes per input byte; a parsed name's parts must be sane.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "11-crash-private.h"
#include "11-crash-systemd.h"
#include "fuzz-input.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One field is at most PKGNOTE_MAX_CRASH_FIELD bytes; a little more tells
 * the limit is kept. */
#define MAX_FUZZ_INPUT (PKGNOTE_MAX_CRASH_FIELD + 256)

static void value(const char *field, const uint8_t *v, size_t len) {
        char *s;
        int r = pn_sd_value(v, len, &s);
        if (r < 0) {
                if (len <= PKGNOTE_MAX_CRASH_FIELD && !memchr(v, 0, len))
                        abort(); /* refused a value it must keep */
                return;
        }
        if (strlen(s) > len * 4)
                abort();
        json_t *t = json_string(s);
        if (!t)
                abort(); /* not valid UTF-8 */
        json_decref(t);
        json_t *j = json_object();
        struct pn_problems p = {0};
        if (j && pn_sd_record(j, field, s, &p, "fuzz") == 0) {
                json_t *pid = json_object_get(j, "pid");
                if (pid && (!json_is_integer(pid) || json_integer_value(pid) < 0 || json_integer_value(pid) > INT32_MAX))
                        abort();
        }
        pn_problems_clear(&p);
        json_decref(j);
        free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1 || size > MAX_FUZZ_INPUT)
                return 0;
        const uint8_t *in = data + 1;
        size_t n = size - 1;
        if (data[0] == 'n') {
                char *name = fuzz_string(in, n);
                struct pn_sd_name r;
                if (name && pn_sd_parse_name(name, &r) == 0) {
                        if (strlen(r.boot_id) != 32 || r.pid == 0 || r.pid > INT32_MAX || r.uid > UINT32_MAX ||
                            strlen(r.comm) > strlen(name))
                                abort();
                }
                free(name);
        } else if (data[0] == 'p') {
                char *name = fuzz_string(in, n);
                struct pn_crash_name r;
                if (name && pn_crash_parse_name(name, &r) == 0) {
                        size_t el = strlen(r.entry);
                        if (el > PN_CRASH_MAX_NAME || el >= strlen(name) + 1 || strncmp(r.entry, name, el) ||
                            strncmp(name, "core.", 5) || r.uid > UINT32_MAX || r.pid > INT32_MAX || r.time > INT64_MAX)
                                abort();
                }
                free(name);
        } else if (data[0] == 'f') {
                char *copy = fuzz_copy(in, n, MAX_FUZZ_INPUT);
                char field[64];
                size_t off;
                if (copy && pn_sd_split_field(copy, n, field, sizeof field, &off) == 0) {
                        if (off > n || strlen(field) + 1 != off)
                                abort();
                        value(field, (const uint8_t *)copy + off, n - off);
                }
                free(copy);
        } else {
                static const char *const fields[] = {"COREDUMP_PID", "COREDUMP_UID", "COREDUMP_SIGNAL", "COREDUMP_EXE",
                                                     "COREDUMP_PACKAGE_NAME", "COREDUMP_TIMESTAMP"};
                char *copy = fuzz_copy(in, n, MAX_FUZZ_INPUT);
                for (size_t i = 0; copy && i < sizeof fields / sizeof *fields; i++)
                        value(fields[i], (const uint8_t *)copy, n);
                free(copy);
        }
        return 0;
}
