/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the PE/COFF side of the object view and the PE stamper: bytes ->
 * pkgnote_object_from_memory -> DOS, COFF and optional headers, the section
 * table and its long names, .pkgnote notes, a UKI's .uname and .osrel ->
 * pkgnote_info_read and the JSON report; then pkgnote_stamp_memory(),
 * whose every success must hold up: the result reads back with the new
 * note alone, stamping it again changes nothing, and removal, when it is
 * not refused for a reason, leaves no note and, for an input without a
 * note or signature, gives back the input byte for byte (issue 42, item
 * 8; the checksum aside when the input's was stale and happens to be
 * right for the stamped file).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Headers and a few sections; larger inputs only slow the fuzzer. */
#define MAX_INPUT (1u << 20)

static const char json[] = "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"fuzz\",\"version\":\"1.0-1\"}";

static void die(const char *what) {
        fprintf(stderr, "fuzz-pe: %s (%s)\n", what, pkgnote_last_error());
        abort();
}

/* The primary package note's JSON of the D (N bytes), or NULL. */
static char *note_json(const uint8_t *d, size_t n) {
        pkgnote_object *e;
        pkgnote_info *info;
        char *ret = NULL;
        if (pkgnote_object_from_memory(d, n, &e) < 0)
                die("the result does not parse");
        if (pkgnote_info_read(e, &info) < 0)
                die("the result's notes do not read");
        if (pkgnote_info_package_count(info) > 0)
                ret = strdup(pkgnote_info_package_json(info, 0));
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return ret;
}

/* Whether A and B (N bytes each) differ only in the optional header's
 * CheckSum field. */
static bool same_but_checksum(const uint8_t *a, const uint8_t *b, size_t n) {
        if (n < 0x40)
                return !memcmp(a, b, n);
        uint64_t at = (uint64_t)(a[0x3c] | a[0x3d] << 8 | a[0x3e] << 16 | (uint32_t)a[0x3f] << 24) + 24 + 64;
        for (size_t i = 0; i < n; i++)
                if (a[i] != b[i] && (i < at || i >= at + 4))
                        return false;
        return true;
}

static void check_stamp(const uint8_t *buf, size_t size) {
        uint8_t *a = NULL, *b = NULL, *c = NULL;
        size_t na, nb, nc;
        pkgnote_stamp_result r = {.size = sizeof r};
        /* An input without any .pkgnote section (nor a signature, known
         * below) must come back as it was. */
        bool fresh = false;
        pkgnote_object *in;
        if (pkgnote_object_from_memory(buf, size, &in) == 0) {
                fresh = pkgnote_object_note_count(in) == 0 && pkgnote_object_problem_count(in) == 0;
                pkgnote_object_free(in);
        }
        if (pkgnote_stamp_memory(buf, size, json, PKGNOTE_STAMP_DROP_SIGNATURE, &a, &na, &r) < 0) {
                if (strstr(pkgnote_last_error(), "internal"))
                        die("stamping fails inside");
                return;
        }
        char *j = note_json(a, na);
        if (!j || strcmp(j, json))
                die("the result does not carry the new note");
        free(j);
        if (r.signature_removed)
                fresh = false;
        if (pkgnote_stamp_memory(a, na, json, 0, &b, &nb, &r) < 0 || r.placement != PKGNOTE_PLACE_UNCHANGED ||
            nb != na || memcmp(a, b, na))
                die("stamping again with the same note changes the file");
        if (pkgnote_stamp_memory(a, na, NULL, PKGNOTE_STAMP_REMOVE, &c, &nc, &r) < 0) {
                if (strstr(pkgnote_last_error(), "internal"))
                        die("removing the note fails inside");
        } else {
                j = note_json(c, nc);
                if (j)
                        die("a note is left after removal");
                if (fresh && (nc != size || !same_but_checksum(buf, c, size)))
                        die("stamping then removing does not give back the input");
        }
        free(a);
        free(b);
        free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        /* A private copy so ASan catches reads past the end exactly. */
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        if (size)
                memcpy(buf, data, size);
        pkgnote_object *e = NULL;
        if (pkgnote_object_from_memory(buf, size, &e) < 0) {
                touch_str(pkgnote_last_error());
                free(buf);
                return 0;
        }
        sink += (size_t)pkgnote_object_is_pe(e) + pkgnote_pe_machine(e) + pkgnote_pe_subsystem(e) +
                (size_t)pkgnote_pe_signed(e) + (size_t)pkgnote_pe_dll(e);
        touch_str(pkgnote_pe_subsystem_name(pkgnote_pe_subsystem(e)));
        touch_str(pkgnote_object_kind(e));
        int ns = pkgnote_pe_section_count(e);
        for (int i = 0; i < ns; i++) {
                const char *name;
                uint64_t off, sz;
                uint32_t flags;
                if (pkgnote_pe_section(e, (size_t)i, &name, &off, &sz, &flags) != 1)
                        die("a section within the count is missing");
                touch_str(name);
                sink += off + sz + flags;
        }
        const uint8_t *d;
        size_t len;
        if (pkgnote_pe_section_data(e, ".sbat", 4096, &d, &len) > 0)
                touch(d, len);
        char *uname = pkgnote_pe_uki_uname(e);
        if (uname)
                touch_str(uname);
        free(uname);
        pkgnote_os_release *os;
        if (pkgnote_pe_uki_os_release(e, &os) > 0) {
                touch_str(pkgnote_os_release_get(os, "ID"));
                pkgnote_os_release_free(os);
        }
        int nn = pkgnote_object_note_count(e);
        for (int i = 0; i < nn; i++)
                touch_note(pkgnote_object_note(e, (size_t)i));
        pkgnote_info *info = NULL;
        int r = pkgnote_info_read(e, &info);
        for (size_t i = 0; i < pkgnote_object_problem_count(e); i++)
                touch_problem(pkgnote_object_problem(e, i), true);
        char *j;
        if (r >= 0)
                touch_json(pkgnote_info_to_json(info, e, "fuzz", &j), &j);
        int pe = pkgnote_object_is_pe(e);
        pkgnote_object_free(e);
        pkgnote_info_free(info);
        if (pe)
                check_stamp(buf, size);
        free(buf);
        return 0;
}
