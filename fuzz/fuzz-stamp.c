/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes stamping's input path: bytes -> pkgnote_stamp_memory() for the
 * package note, pkgnote_stamp_notes_memory() for the dlopen note and for
 * both at once.  Any success must hold up: the result parses and carries
 * exactly the new note (the only dlopen note), stamping it again with the
 * same note gives the same bytes ("unchanged"), another note replaces
 * it, and removing works and is final (removing again changes nothing).
 * Any failure of these aborts.
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
/* dlopen arrays, compact as the note keeps them. */
static const char dl_json[] = "[{\"feature\":\"fuzz\",\"description\":\"fuzzing\",\"priority\":\"recommended\","
                              "\"soname\":[\"libfuzz.so.1\",\"libfuzz.so.0\"]}]";
static const char dl_short[] = "[{\"soname\":[\"libf.so.1\"]}]";

/* The kinds of note stamped, each through its own entry point. */
struct kind {
        uint32_t type;
        const char *json, *json_short, *name;
};
static const struct kind kinds[] = {
        {PKGNOTE_NT_FDO_PACKAGING_METADATA, json, json_short, "package"},
        {PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_json, dl_short, "dlopen"},
};

static void die(const char *what) {
        fprintf(stderr, "fuzz-stamp: %s (%s)\n", what, pkgnote_last_error() ? pkgnote_last_error() : "");
        abort();
}

static int stamp(const struct kind *k, const uint8_t *in, size_t n, const char *j, unsigned flags, uint8_t **out,
                 size_t *out_len, pkgnote_stamp_result *r) {
        if (k->type == PKGNOTE_NT_FDO_PACKAGING_METADATA)
                return pkgnote_stamp_memory(in, n, j, flags, out, out_len, r);
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(k->type, j);
        return pkgnote_stamp_notes_memory(in, n, &spec, 1, flags, out, out_len, r);
}

/* The JSON of the primary package note, or of the dlopen note (which
 * must be the only one), or NULL. */
static char *note_json(const struct kind *k, const uint8_t *d, size_t n) {
        pkgnote_object *e;
        pkgnote_info *info;
        char *ret = NULL;
        if (pkgnote_object_from_memory(d, n, &e) < 0)
                die("the result does not parse");
        if (pkgnote_info_read(e, &info) < 0)
                die("the result's notes do not read");
        if (k->type == PKGNOTE_NT_FDO_PACKAGING_METADATA) {
                if (pkgnote_info_package_count(info) > 0)
                        ret = strdup(pkgnote_info_package_json(info, 0));
        } else {
                int nn = pkgnote_object_note_count(e);
                for (int i = 0; i < nn; i++) {
                        const pkgnote_note *note = pkgnote_object_note(e, (size_t)i);
                        if (!pkgnote_note_is(note, PKGNOTE_OWNER_FDO, k->type) ||
                            !(note->where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION)))
                                continue;
                        if (ret)
                                die("more than one dlopen note in the result");
                        ret = strndup((const char *)note->desc, note->descsz);
                }
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return ret;
}

static void expect_json(const struct kind *k, const uint8_t *d, size_t n, const char *want) {
        char *j = note_json(k, d, n);
        if ((want == NULL) != (j == NULL) || (want && strcmp(j, want)))
                die(want ? "the result does not carry the new note" : "a note is left after removal");
        free(j);
}

/* The result of stamping IN: again with the same note, with a shorter
 * one, and removed. */
static void check_result(const struct kind *k, const uint8_t *in, size_t n) {
        uint8_t *a = NULL, *b = NULL, *c = NULL;
        size_t na, nb, nc;
        pkgnote_stamp_result r = {.size = sizeof r};
        expect_json(k, in, n, k->json);
        if (stamp(k, in, n, k->json, 0, &a, &na, &r) < 0)
                die("stamping a stamped file again fails");
        if (r.placement != PKGNOTE_PLACE_UNCHANGED || na != n || memcmp(a, in, n))
                die("stamping again with the same note changes the file");
        if (stamp(k, in, n, k->json_short, 0, &b, &nb, &r) < 0)
                die("a shorter note does not replace the note");
        expect_json(k, b, nb, k->json_short);
        if (stamp(k, in, n, NULL, PKGNOTE_STAMP_REMOVE, &c, &nc, &r) < 0) {
                /* A refusal that says why is fine on hostile input (a
                 * note sharing its section, a check of the result that
                 * fails); a failure inside is not. */
                if (strstr(pkgnote_last_error(), "internal"))
                        die("removing the note fails inside");
                free(a);
                free(b);
                return;
        }
        expect_json(k, c, nc, NULL);
        free(a);
        if (stamp(k, c, nc, NULL, PKGNOTE_STAMP_REMOVE, &a, &na, &r) < 0)
                die("removing the note again fails");
        if (na != nc || memcmp(a, c, nc))
                die("removing the note again changes the file");
        free(a);
        free(b);
        free(c);
}

/* Both notes at once: both there, and stamping both again changes nothing. */
static void check_both(const uint8_t *in, size_t n) {
        pkgnote_note_spec specs[2] = {PKGNOTE_NOTE_SPEC(kinds[0].type, kinds[0].json), PKGNOTE_NOTE_SPEC(kinds[1].type, kinds[1].json)};
        pkgnote_stamp_result r[2] = {{.size = sizeof r[0]}, {.size = sizeof r[0]}};
        uint8_t *a = NULL, *b = NULL;
        size_t na, nb;
        if (pkgnote_stamp_notes_memory(in, n, specs, 2, 0, &a, &na, r) < 0) {
                if (pkgnote_last_error() && strstr(pkgnote_last_error(), "internal"))
                        die("stamping both notes fails inside");
                return;
        }
        if (r[0].result_size != na || r[1].result_size != na)
                die("the result's size is not the one reported");
        expect_json(&kinds[0], a, na, kinds[0].json);
        expect_json(&kinds[1], a, na, kinds[1].json);
        if (pkgnote_stamp_notes_memory(a, na, specs, 2, 0, &b, &nb, r) < 0)
                die("stamping both notes again fails");
        if (r[0].placement != PKGNOTE_PLACE_UNCHANGED || r[1].placement != PKGNOTE_PLACE_UNCHANGED || nb != na ||
            memcmp(a, b, na))
                die("stamping both notes again changes the file");
        free(a);
        free(b);
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
        pkgnote_stamp_result r = {.size = sizeof r};
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
                if (stamp(&kinds[k], buf, size, kinds[k].json, 0, &out, &len, &r) == 0) {
                        if (r.result_size != len)
                                die("the result's size is not the one reported");
                        check_result(&kinds[k], out, len);
                        free(out);
                }
                /* Removal from the input as it is must not fail inside. */
                if (stamp(&kinds[k], buf, size, NULL, PKGNOTE_STAMP_REMOVE, &out, &len, &r) == 0)
                        free(out);
                else if (pkgnote_last_error() && strstr(pkgnote_last_error(), "internal"))
                        die("removal fails with an internal error");
        }
        check_both(buf, size);
        free(buf);
        return 0;
}
