/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the ELF view, the note walker and the object summary: bytes ->
 * pkgnote_object_from_memory -> headers, notes, build-id -> pkgnote_info_read
 * -> every package and dlopen accessor, serialization and check, and the
 * file's JSON reports, pkgnote's and systemd's shape (parsed back).
 * The same bytes go by once through what a stream keeps of a large ELF
 * member (09-scan-capture.c), in chunks of a size the input chooses: the
 * notes read from what was kept are those of the whole object, unless a
 * range asked for was not kept (-ENODATA).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "02-elf-view.h"
#include "pkgnote.h"
#include "09-scan-private.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Large enough for a first page plus section headers; hostile header
 * tables beyond this only slow the fuzzer down. */
#define MAX_INPUT (1u << 20)

/* Whether the notes of X and Y are the same. */
static bool same_notes(pkgnote_object *x, pkgnote_object *y) {
        const pkgnote_note *a, *b;
        int na = pn_object_notes(x, &a), nb = pn_object_notes(y, &b);
        if (na != nb)
                return false;
        for (int i = 0; i < na; i++)
                if (a[i].offset != b[i].offset || a[i].type != b[i].type || a[i].namesz != b[i].namesz ||
                    a[i].descsz != b[i].descsz || a[i].where != b[i].where || memcmp(a[i].name, b[i].name, a[i].namesz) ||
                    memcmp(a[i].desc, b[i].desc, a[i].descsz))
                        return false;
        return true;
}

/* What a stream keeps of BUF (SIZE bytes), fed in chunks of STEP, read
 * as the whole object WHOLE is. */
static void check_capture(const uint8_t *buf, size_t size, size_t step, pkgnote_object *whole) {
        struct pn_capture c;
        if (pn_capture_init(&c, size, true) < 0)
                return;
        for (size_t at = 0; at < size; at += step)
                if (pn_capture_feed(&c, buf + at, size - at < step ? size - at : step) < 0) {
                        pn_capture_clear(&c);
                        return;
                }
        /* Kept: increasing, disjoint, inside the object and the bytes. */
        for (size_t i = 0; i < c.n_spans; i++)
                if (c.spans[i].off + c.spans[i].len > size || c.spans[i].at + c.spans[i].len > c.len ||
                    memcmp(c.buf + c.spans[i].at, buf + c.spans[i].off, c.spans[i].len) ||
                    (i && c.spans[i].off < c.spans[i - 1].off + c.spans[i - 1].len))
                        abort();
        if (c.len > PN_CAPTURE_MAX)
                abort();
        pkgnote_object *e;
        if (pn_elf_from_spans(c.spans, c.n_spans, c.buf, size, false, &e) == 0) {
                const pkgnote_note *n;
                int k = pn_object_notes(e, &n);
                if (k >= 0 && !e->span_missed && whole && !same_notes(e, whole))
                        abort();
                pkgnote_object_free(e);
        }
        pn_capture_clear(&c);
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
        sink += (size_t)pkgnote_object_class(e) + (size_t)pkgnote_object_big_endian(e);
        touch_str(pkgnote_object_type_name(pkgnote_object_type(e)));
        touch_str(pkgnote_machine_name(pkgnote_object_machine(e), pkgnote_object_class(e)));
        sink += (size_t)pkgnote_object_size(e);

        const pkgnote_phdr *ph;
        int nph = pn_object_phdrs(e, &ph);
        for (int i = 0; i < nph; i++)
                sink += ph[i].type + ph[i].offset + ph[i].filesz + ph[i].memsz;

        const pkgnote_shdr *sh;
        int nsh = pn_object_shdrs(e, &sh);
        for (int i = 0; i < nsh; i++) {
                touch_str(sh[i].name);
                sink += sh[i].type + sh[i].offset + sh[i].size;
        }

        const pkgnote_note *notes;
        int nn = pn_object_notes(e, &notes);
        for (int i = 0; i < nn; i++) {
                touch_note(&notes[i]);
                sink += (size_t)pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA);
        }

        const uint8_t *id;
        size_t id_len;
        if (pkgnote_object_build_id(e, &id, &id_len) > 0)
                touch(id, id_len);

        /* The dynamic section: names that are not empty, a bounded count,
         * and an error with a reason or nothing at all. */
        char *soname, **needed;
        size_t n_needed;
        int dr = pn_elf_dynamic(e, &soname, &needed, &n_needed);
        if (dr < 0 ? (soname || needed || n_needed || !pkgnote_last_error() || !*pkgnote_last_error())
                   : n_needed > 1024 || (soname && !*soname))
                abort();
        for (size_t i = 0; i < n_needed; i++) {
                if (!needed[i] || !*needed[i])
                        abort();
                touch_str(needed[i]);
        }
        if (soname)
                touch_str(soname);
        free(soname);
        pn_free_strv(needed, n_needed);

        /* The summary must not depend on the view: it is read after the
         * view is gone. */
        pkgnote_info *info = NULL;
        int r = pkgnote_info_read(e, &info);
        for (size_t i = 0; i < pkgnote_object_problem_count(e); i++)
                touch_problem(pkgnote_object_problem(e, i), true);
        char *j;
        if (r >= 0)
                touch_json(pkgnote_info_to_json(info, e, "fuzz", &j), &j);
        /* systemd's shape, under a name that is not UTF-8. */
        if (r >= 0)
                touch_json(pkgnote_info_to_systemd_json(info, e, "fuzz\xff\x01", &j), &j);
        check_capture(buf, size, size ? 1 + buf[size - 1] % 8192u : 1, e);
        pkgnote_object_free(e);
        if (r >= 0)
                touch_info_and_copy(info);
        pkgnote_info_free(info);
        free(buf);
        return 0;
}
