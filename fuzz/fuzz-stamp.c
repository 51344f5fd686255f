/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes stamping's input path: bytes -> pkgnote_stamp_memory().  Any
 * success must hold up: the result parses and carries exactly the new
 * note, stamping it again with the same metadata gives the same bytes
 * ("unchanged"), another note replaces it, and removing works and is
 * final (removing again changes nothing).  Any failure of these aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

static const char json[] = "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"fuzz\",\"version\":\"1.0-1\",\"architecture\":\"amd64\"}";
static const char json_short[] = "{\"name\":\"f\"}";

static void die(const char *what) {
        fprintf(stderr, "fuzz-stamp: %s (%s)\n", what, pkgnote_last_error() ? pkgnote_last_error() : "");
        abort();
}

/* The JSON of the primary package note, or NULL. */
static char *note_json(const uint8_t *d, size_t n) {
        pkgnote_elf *e;
        pkgnote_info *info;
        char *ret = NULL;
        if (pkgnote_elf_from_memory(d, n, &e) < 0)
                die("the result does not parse");
        if (pkgnote_info_read(e, &info) < 0)
                die("the result's notes do not read");
        if (pkgnote_info_package_count(info) > 0)
                ret = strdup(pkgnote_info_package_json(info, 0));
        pkgnote_info_free(info);
        pkgnote_elf_free(e);
        return ret;
}

static void expect_json(const uint8_t *d, size_t n, const char *want) {
        char *j = note_json(d, n);
        if ((want == NULL) != (j == NULL) || (want && strcmp(j, want)))
                die(want ? "the result does not carry the new note" : "a package note is left after removal");
        free(j);
}

/* The result of stamping IN: again with the same note, with a shorter
 * one, and removed. */
static void check_result(const uint8_t *in, size_t n) {
        uint8_t *a = NULL, *b = NULL, *c = NULL;
        size_t na, nb, nc;
        pkgnote_stamp_result r;
        expect_json(in, n, json);
        if (pkgnote_stamp_memory(in, n, json, 0, &a, &na, &r) < 0)
                die("stamping a stamped file again fails");
        if (r.placement != PKGNOTE_PLACE_UNCHANGED || na != n || memcmp(a, in, n))
                die("stamping again with the same note changes the file");
        if (pkgnote_stamp_memory(in, n, json_short, 0, &b, &nb, &r) < 0)
                die("a shorter note does not replace the note");
        expect_json(b, nb, json_short);
        if (pkgnote_stamp_memory(in, n, NULL, PKGNOTE_STAMP_REMOVE, &c, &nc, &r) < 0) {
                /* A refusal that says why is fine on hostile input (a
                 * note sharing its section, a check of the result that
                 * fails); a failure inside is not. */
                if (strstr(pkgnote_last_error(), "internal"))
                        die("removing the note fails inside");
                free(a);
                free(b);
                return;
        }
        expect_json(c, nc, NULL);
        free(a);
        if (pkgnote_stamp_memory(c, nc, NULL, PKGNOTE_STAMP_REMOVE, &a, &na, &r) < 0)
                die("removing the note again fails");
        if (na != nc || memcmp(a, c, nc))
                die("removing the note again changes the file");
        free(a);
        free(b);
        free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        uint8_t *buf = malloc(size ? size : 1), *out = NULL;
        if (!buf)
                return 0;
        if (size)
                memcpy(buf, data, size);
        size_t len;
        pkgnote_stamp_result r;
        if (pkgnote_stamp_memory(buf, size, json, 0, &out, &len, &r) == 0) {
                if (r.size != len)
                        die("the result's size is not the one reported");
                check_result(out, len);
                free(out);
        }
        /* Removal from the input as it is must not fail inside. */
        if (pkgnote_stamp_memory(buf, size, NULL, PKGNOTE_STAMP_REMOVE, &out, &len, &r) == 0)
                free(out);
        else if (pkgnote_last_error() && strstr(pkgnote_last_error(), "internal"))
                die("removal fails with an internal error");
        free(buf);
        return 0;
}
