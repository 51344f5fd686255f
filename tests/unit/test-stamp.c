/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for lib/06-stamp.c over images built in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "01-base.h"
#include "testlib.h"

static const char json1[] = "{\"type\":\"deb\",\"name\":\"hello\",\"version\":\"1.0-1\"}";
static const char json_short[] = "{\"name\":\"h\"}";
static const char json_long[] =
        "{\"type\":\"deb\",\"os\":\"debian\",\"osVersion\":\"12\",\"name\":\"hello-world-with-a-long-name\","
        "\"version\":\"1.0.0-1+deb12u1\",\"architecture\":\"amd64\",\"debugInfoUrl\":\"https://debuginfod.debian.net\"}";

static const uint8_t build_id_desc[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

/* The primary package note's JSON of an image, or NULL; with DLOPEN the
 * compact JSON of its only dlopen list instead. */
static char *info_json(const uint8_t *d, size_t n, unsigned *where, bool dlopen) {
        pkgnote_object *e;
        pkgnote_info *info;
        char *ret = NULL;
        if (pkgnote_object_from_memory(d, n, &e) < 0)
                return NULL;
        if (pkgnote_info_read(e, &info) == 0) {
                if (dlopen) {
                        if (pkgnote_info_dlopen_count(info) == 1 &&
                            pkgnote_dlopen_to_json(pkgnote_info_dlopen(info, 0), &ret) < 0)
                                ret = NULL;
                } else if (pkgnote_info_package_count(info) > 0) {
                        ret = strdup(pkgnote_info_package_json(info, 0));
                        if (where)
                                *where = pkgnote_info_package_note(info, 0)->where;
                }
                pkgnote_info_free(info);
        }
        pkgnote_object_free(e);
        return ret;
}

static char *primary_json(const uint8_t *d, size_t n, unsigned *where) {
        return info_json(d, n, where, false);
}

static bool has_build_id(const uint8_t *d, size_t n) {
        pkgnote_object *e;
        const uint8_t *id;
        size_t len;
        bool ok = false;
        if (pkgnote_object_from_memory(d, n, &e) < 0)
                return false;
        ok = pkgnote_object_build_id(e, &id, &len) == 1 && len == 20 && !memcmp(id, build_id_desc, 20);
        pkgnote_object_free(e);
        return ok;
}

/* Shrinks the PT_NOTE (entry 1) and the section (1) of an image of
 * mk_elf() to the NOTES bytes of notes, leaving the room after them
 * uncovered. */
static void shrink_to_notes(uint8_t *out, bool is64, bool be, size_t notes, bool sections) {
        size_t phent = is64 ? 56 : 32, ph = (is64 ? 64 : 52) + phent;
        if (is64) {
                pn_wr64(out + ph + 32, notes, be);
                pn_wr64(out + ph + 40, notes, be);
        } else {
                pn_wr32(out + ph + 16, (uint32_t)notes, be);
                pn_wr32(out + ph + 20, (uint32_t)notes, be);
        }
        if (sections) {
                uint64_t shoff = is64 ? pn_rd64(out + 40, be) : pn_rd32(out + 32, be);
                size_t shent = is64 ? 64 : 40;
                if (is64)
                        pn_wr64(out + shoff + shent + 32, notes, be);
                else
                        pn_wr32(out + shoff + shent + 20, (uint32_t)notes, be);
        }
}

/* An ET_DYN image: PT_LOAD, a 4-aligned PT_NOTE with the build-id (and
 * EXTRA, a package note, when given), zero bytes after them (ROOM) that
 * no section covers, then the section name table and headers. */
static size_t mk_linked_aligned(uint8_t *out, size_t cap, bool is64, bool be, size_t room, const char *extra,
                                bool sections, size_t pad_before, unsigned align) {
        static uint8_t blob[4096];
        size_t n = mk_note(blob, be, "GNU", 4, 3, build_id_desc, 20, 20, 4);
        if (extra)
                n += mk_package_note(blob + n, be, extra, false);
        size_t notes = n;
        memset(blob + n, 0, room);
        struct mk_spec s = {.is64 = is64, .be = be, .type = 3, .machine = is64 ? 62 : 3, .n_blobs = 1,
                            .no_sections = !sections, .pad_before = pad_before};
        s.blobs[0] = (struct mk_blob){.data = blob, .len = notes + room, .align = align, .segment = true,
                                      .section = true, .name = ".note.gnu.build-id"};
        size_t len = mk_elf(&s, out, cap);
        if (len && room)
                shrink_to_notes(out, is64, be, notes, sections);
        return len;
}

static size_t mk_linked(uint8_t *out, size_t cap, bool is64, bool be, size_t room, const char *extra, bool sections,
                        size_t pad_before) {
        return mk_linked_aligned(out, cap, is64, be, room, extra, sections, pad_before, 4);
}

static int stamp(const uint8_t *in, size_t n, const char *json, unsigned flags, uint8_t **out, size_t *out_len,
                 pkgnote_stamp_result *r) {
        return pkgnote_stamp_memory(in, n, json, flags, out, out_len, r);
}

/* Removal leaves no package note, the build-id stays. */
static void check_removed(const uint8_t *in, size_t n, uint8_t **out, size_t *out_len) {
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(stamp(in, n, NULL, PKGNOTE_STAMP_REMOVE, out, out_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        char *j = *out ? primary_json(*out, *out_len, NULL) : NULL;
        CHECK(j == NULL);
        free(j);
        CHECK(*out && has_build_id(*out, *out_len));
}

static void check_cycle(const uint8_t *img, size_t n, int want_placement, bool want_first_page) {
        uint8_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        size_t na = 0, nb = 0, nc = 0, nd = 0;
        pkgnote_stamp_result r = {.size = sizeof r};
        unsigned where = 0;
        CHECK_INT(stamp(img, n, json1, 0, &a, &na, &r), 0);
        if (!a)
                return;
        CHECK_INT(r.placement, want_placement);
        CHECK_INT(r.first_page, want_first_page);
        CHECK_INT(r.result_size, na);
        CHECK_INT(r.bytes_added, (int64_t)na - (int64_t)n);
        char *j = primary_json(a, na, &where);
        CHECK_STR(j, json1);
        free(j);
        CHECK(where & PKGNOTE_NOTE_LOADED);
        CHECK_INT(!!(where & PKGNOTE_NOTE_FIRST_PAGE), want_first_page);
        CHECK(has_build_id(a, na));

        /* Again with the same metadata: the very same bytes. */
        CHECK_INT(stamp(a, na, json1, 0, &b, &nb, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
        CHECK(nb == na && !memcmp(a, b, na));

        /* A shorter note takes the old one's room. */
        free(b);
        b = NULL;
        CHECK_INT(stamp(a, na, json_short, 0, &b, &nb, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REPLACED);
        CHECK_INT(nb, na);
        j = primary_json(b, nb, NULL);
        CHECK_STR(j, json_short);
        free(j);

        /* A longer one goes elsewhere; the old one is gone. */
        CHECK_INT(stamp(b, nb, json_long, 0, &c, &nc, &r), 0);
        j = primary_json(c, nc, NULL);
        CHECK_STR(j, json_long);
        free(j);
        CHECK(has_build_id(c, nc));

        check_removed(c, nc, &d, &nd);
        if (!d)
                return;
        free(c);
        c = NULL;
        /* Removing again changes nothing; stamping again works. */
        CHECK_INT(stamp(d, nd, NULL, PKGNOTE_STAMP_REMOVE, &c, &nc, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_NONE);
        free(c);
        c = NULL;
        CHECK_INT(stamp(d, nd, json1, 0, &c, &nc, &r), 0);
        j = primary_json(c, nc, NULL);
        CHECK_STR(j, json1);
        free(j);
        free(a);
        free(b);
        free(c);
        free(d);
}

static void test_merged(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 4; v++) {
                size_t n = mk_linked(img, sizeof img, v & 1, v & 2, 0, NULL, true, 512);
                CHECK(n > 0);
                check_cycle(img, n, PKGNOTE_PLACE_MERGED, true);
        }
}

static void test_after_notes(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                size_t n = mk_linked(img, sizeof img, is64, be, 256, NULL, true, 0);
                CHECK(n > 0);
                check_cycle(img, n, PKGNOTE_PLACE_AFTER_NOTES, true);
        }
}

static void test_moved_phdrs(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                /* Room only before the notes, none after them, and the
                 * notes 8-aligned: nothing to merge with. */
                size_t n = mk_linked_aligned(img, sizeof img, is64, be, 0, NULL, true, 512, 8);
                CHECK(n > 0);
                check_cycle(img, n, PKGNOTE_PLACE_MOVED_PHDRS, true);
        }
}

/* No room in the first page and no free program header: the program
 * headers must not leave the first page (they did, with a new segment
 * at the end); the note goes into a section that is not loaded, and
 * without section headers stamping refuses. */
static void test_never_degrade(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 8; v++) {
                bool is64 = v & 1, be = v & 2, sections = !(v & 4);
                size_t n = mk_linked(img, sizeof img, is64, be, 0, NULL, sections, 0);
                CHECK(n > 0);
                uint8_t *a = NULL, *b = NULL, *c = NULL;
                size_t na, nb, nc;
                pkgnote_stamp_result r = {.size = sizeof r};
                CHECK_INT(stamp(img, n, json1, PKGNOTE_STAMP_REQUIRE_FIRST_PAGE, &a, &na, &r), -ENOSPC);
                int ret = stamp(img, n, json1, 0, &a, &na, &r);
                if (!sections) {
                        CHECK_INT(ret, -ENOSPC);
                        continue;
                }
                CHECK_INT(ret, 0);
                if (ret < 0)
                        continue;
                CHECK_INT(r.placement, PKGNOTE_PLACE_SECTION);
                CHECK_INT(r.phdrs_moved, 0);
                CHECK_INT(r.phdrs_first_page, 1);
                CHECK_INT(r.first_page, 0);
                uint64_t phoff = is64 ? pn_rd64(a + 32, be) : pn_rd32(a + 28, be);
                CHECK_INT(phoff, is64 ? pn_rd64(img + 32, be) : pn_rd32(img + 28, be));
                CHECK(!memcmp(a, img, 4096 < n ? 4096 : n) || phoff < 4096);
                unsigned where = 0;
                char *j = primary_json(a, na, &where);
                CHECK_STR(j, json1);
                free(j);
                CHECK(where & PKGNOTE_NOTE_IN_SECTION);
                CHECK(!(where & PKGNOTE_NOTE_LOADED));
                CHECK(has_build_id(a, na));
                /* Again: the same bytes; a shorter note takes its room. */
                CHECK_INT(stamp(a, na, json1, 0, &b, &nb, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
                CHECK(nb == na && b && !memcmp(a, b, na));
                free(b);
                CHECK_INT(stamp(a, na, json_short, 0, &b, &nb, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_REPLACED);
                j = primary_json(b, nb, NULL);
                CHECK_STR(j, json_short);
                free(j);
                check_removed(b, nb, &c, &nc);
                free(a);
                free(b);
                free(c);
        }
}

/* A package note put there by the linker, beside the build-id. */
static void test_linker_note(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 2; v++) {
                size_t n = mk_linked(img, sizeof img, true, v, 128, json_short, true, 0);
                uint8_t *out = NULL;
                size_t len;
                pkgnote_stamp_result r = {.size = sizeof r};
                CHECK_INT(stamp(img, n, json1, 0, &out, &len, &r), 0);
                char *j = primary_json(out, len, NULL);
                CHECK_STR(j, json1);
                free(j);
                CHECK(has_build_id(out, len));
                /* Only one package note is left. */
                pkgnote_object *e;
                pkgnote_info *info;
                CHECK_INT(pkgnote_object_from_memory(out, len, &e), 0);
                CHECK_INT(pkgnote_info_read(e, &info), 0);
                CHECK_INT(pkgnote_info_package_note_count(info), 1);
                pkgnote_info_free(info);
                pkgnote_object_free(e);
                free(out);
        }
}

static void test_refusals(void) {
        static uint8_t img[8192];
        uint8_t *out = NULL;
        size_t len;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(stamp((const uint8_t *)"hello, world", 12, json1, 0, &out, &len, &r), -ENOEXEC);
        size_t n = mk_linked(img, sizeof img, true, false, 256, NULL, true, 0);
        CHECK_INT(stamp(img, n, "[1,2]", 0, &out, &len, &r), -EINVAL);
        CHECK_INT(stamp(img, n, "{\"a\":\"\\u0001\"}", 0, &out, &len, &r), -EINVAL);
        CHECK_INT(stamp(img, n, NULL, 0, &out, &len, &r), -EINVAL);
        img[16] = 4; /* ET_CORE */
        CHECK_INT(stamp(img, n, json1, 0, &out, &len, &r), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "core") != NULL);
        CHECK(out == NULL);
}

/* Relocatable objects: a section, replaced in place, removed; signed
 * kernel modules refused unless forced. */
static void test_relocatable(void) {
        static const char *const targets[] = {"x86_64", "s390x", "i686", "ppc"};
        for (size_t t = 0; t < ELEMENTSOF(targets); t++) {
                pkgnote_target tg = PKGNOTE_TARGET_INIT;
                uint8_t *obj, *a = NULL, *b = NULL, *c = NULL;
                size_t n, na, nb, nc;
                pkgnote_stamp_result r = {.size = sizeof r};
                CHECK_INT(pkgnote_target_parse(targets[t], &tg), 0);
                CHECK_INT(pkgnote_emit_object(json_short, &tg, &obj, &n), 0);
                CHECK_INT(stamp(obj, n, NULL, PKGNOTE_STAMP_REMOVE, &a, &na, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
                CHECK(primary_json(a, na, NULL) == NULL);
                CHECK_INT(stamp(a, na, json_long, 0, &b, &nb, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_SECTION);
                CHECK_INT(r.relocatable, 1);
                unsigned where = 0;
                char *j = primary_json(b, nb, &where);
                CHECK_STR(j, json_long);
                free(j);
                CHECK(where & PKGNOTE_NOTE_IN_SECTION);
                CHECK_INT(stamp(b, nb, json_long, 0, &c, &nc, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
                CHECK(nc == nb && !memcmp(b, c, nb));
                free(c);
                c = NULL;
                CHECK_INT(stamp(obj, n, json1, 0, &c, &nc, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_SECTION); /* bigger than the old one */
                free(c);

                /* A signed module: "~Module signature appended~\n" trailer. */
                size_t sig = 16, total = n + sig + 12 + 28;
                uint8_t *signed_obj = calloc(1, total);
                memcpy(signed_obj, obj, n);
                memset(signed_obj + n, 0x5a, sig);
                uint8_t *ms = signed_obj + n + sig;
                ms[2] = 2; /* PKEY_ID_PKCS7 */
                pn_wr32(ms + 8, (uint32_t)sig, true);
                memcpy(ms + 12, "~Module signature appended~\n", 28);
                c = NULL;
                CHECK_INT(stamp(signed_obj, total, json1, 0, &c, &nc, &r), -EPERM);
                CHECK_INT(stamp(signed_obj, total, json1, PKGNOTE_STAMP_FORCE, &c, &nc, &r), 0);
                CHECK_INT(r.signature_removed, 1);
                j = primary_json(c, nc, NULL);
                CHECK_STR(j, json1);
                free(j);
                CHECK(nc >= 28 && memcmp(c + nc - 28, "~Module signature appended~\n", 28) != 0);
                free(c);
                /* The trailer's text is no signature where what it would
                 * cut off is no whole relocatable object: an executable's
                 * last bytes, or a "signature" reaching into the section
                 * header table.  Stamping then keeps every byte. */
                bool be = signed_obj[EI_DATA] == ELFDATA2MSB;
                pn_wr16(signed_obj + 16, ET_EXEC, be);
                c = NULL;
                r = (pkgnote_stamp_result){.size = sizeof r};
                CHECK(stamp(signed_obj, total, json1, 0, &c, &nc, &r) != -EPERM);
                CHECK_INT(r.signature_removed, 0);
                free(c);
                pn_wr16(signed_obj + 16, ET_REL, be);
                pn_wr32(ms + 8, (uint32_t)(sig + 8), true);
                c = NULL;
                r = (pkgnote_stamp_result){.size = sizeof r};
                CHECK_INT(stamp(signed_obj, total, json1, 0, &c, &nc, &r), 0);
                CHECK_INT(r.signature_removed, 0);
                CHECK(nc > total && memmem(c, nc, "~Module signature appended~\n", 28) != NULL);
                free(c);
                free(signed_obj);
                free(obj);
                free(a);
                free(b);
        }
}

/* Every prefix of a stamped image is handled without a crash: an error,
 * or (rarely) a result that parses. */
static void test_truncated(void) {
        static uint8_t img[8192];
        size_t n = mk_linked(img, sizeof img, true, false, 256, NULL, true, 0);
        uint8_t *full;
        size_t nf;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(stamp(img, n, json1, 0, &full, &nf, &r), 0);
        for (size_t len = 0; len < nf; len++) {
                uint8_t *copy = malloc(len ? len : 1), *out = NULL;
                size_t nout;
                memcpy(copy, full, len);
                int ret = stamp(copy, len, json_long, 0, &out, &nout, &r);
                if (ret == 0) {
                        char *j = primary_json(out, nout, NULL);
                        CHECK_STR(j, json_long);
                        free(j);
                }
                free(out);
                free(copy);
        }
        free(full);
}

/* ------------------------------------------------------------------ */
/* dlopen notes: pkgnote_stamp_notes_memory()                          */

static const char dl_a[] = "[{\"feature\":\"a\",\"soname\":[\"liba.so.1\"]}]";
static const char dl_b[] = "[{\"feature\":\"b\",\"priority\":\"suggested\",\"soname\":[\"libb.so.2\"]}]";
/* With white space outside strings, which the note does not keep. */
static const char dl_new[] = "[ {\"feature\": \"z\", \"soname\": [\"libz.so.1\"]} ]";
static const char dl_new_compact[] = "[{\"feature\":\"z\",\"soname\":[\"libz.so.1\"]}]";
static const char dl_big[] =
        "[{\"feature\":\"f1\",\"description\":\"the first of several entries\",\"soname\":[\"libf1.so.1\"]},"
        "{\"feature\":\"f2\",\"description\":\"the second of several entries\",\"soname\":[\"libf2.so.2\"]},"
        "{\"feature\":\"f3\",\"description\":\"the third of several entries\",\"soname\":[\"libf3.so.3\"]}]";

/* The notes of TYPE that a reader finds (segment or section); the first
 * one's offset and flags in *OFF, *WHERE. */
static int count_notes(const uint8_t *d, size_t n, uint32_t type, uint64_t *off, unsigned *where) {
        pkgnote_object *e;
        const pkgnote_note *notes;
        int c = 0;
        if (pkgnote_object_from_memory(d, n, &e) < 0)
                return -1;
        int nn = pn_object_notes(e, &notes);
        for (int i = 0; i < nn; i++)
                if (pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, type) &&
                    (notes[i].where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION))) {
                        if (c++ == 0) {
                                if (off)
                                        *off = notes[i].offset;
                                if (where)
                                        *where = notes[i].where;
                        }
                }
        pkgnote_object_free(e);
        return c;
}


/* A linked image whose PT_NOTE holds the build-id and two dlopen notes
 * (as two objects' C structs make them), ROOM zero bytes after that no
 * section covers.  One section .note.dlopen covers all three notes, so
 * that stamping must not point it at the new note alone. */
static size_t mk_two_dlopen(uint8_t *out, size_t cap, bool is64, bool be, size_t room) {
        static uint8_t blob[4096];
        size_t n = mk_note(blob, be, "GNU", 4, 3, build_id_desc, 20, 20, 4);
        n += mk_note(blob + n, be, "FDO", 4, PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_a, sizeof dl_a, sizeof dl_a, 4);
        n += mk_note(blob + n, be, "FDO", 4, PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_b, sizeof dl_b, sizeof dl_b, 4);
        memset(blob + n, 0, room);
        struct mk_spec s = {.is64 = is64, .be = be, .type = 3, .machine = is64 ? 62 : 3, .n_blobs = 1};
        s.blobs[0] = (struct mk_blob){.data = blob, .len = n + room, .align = 4, .segment = true, .section = true,
                                      .name = ".note.dlopen"};
        size_t len = mk_elf(&s, out, cap);
        if (len && room)
                shrink_to_notes(out, is64, be, n, true);
        return len;
}

static int stamp_dl(const uint8_t *in, size_t n, const char *json, uint8_t **out, size_t *out_len,
                    pkgnote_stamp_result *r) {
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, json);
        *out = NULL;
        return pkgnote_stamp_notes_memory(in, n, &spec, 1, 0, out, out_len, r);
}

/* A with its dlopen note JSON: stamping it again gives the same bytes,
 * and removing leaves no dlopen note: that result in *C. */
static void check_dl_again_removed(const uint8_t *a, size_t na, const char *json, uint8_t **c, size_t *nc) {
        uint8_t *b;
        size_t nb;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(stamp_dl(a, na, json, &b, &nb, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
        CHECK(b && nb == na && !memcmp(a, b, na));
        free(b);
        CHECK_INT(stamp_dl(a, na, NULL, c, nc, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        CHECK_INT(r.note_offset, 0);
        CHECK_INT(count_notes(*c, *nc, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 0);
}

static void test_dlopen(void) {
        static uint8_t img[8192];
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                size_t n = mk_two_dlopen(img, sizeof img, is64, be, 512), na, nb, nc, nd;
                uint8_t *a, *b, *c, *d;
                pkgnote_stamp_result r = {.size = sizeof r};
                unsigned where = 0;
                uint64_t off = 0;
                CHECK(n > 0);
                CHECK_INT(count_notes(img, n, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 2);

                /* The two notes' room holds the new one: one note now. */
                CHECK_INT(stamp_dl(img, n, dl_new, &a, &na, &r), 0);
                if (!a)
                        continue;
                CHECK_INT(r.placement, PKGNOTE_PLACE_REPLACED);
                CHECK_INT(r.first_page, 1);
                CHECK_INT(count_notes(a, na, PKGNOTE_NT_FDO_DLOPEN_METADATA, &off, &where), 1);
                CHECK_INT(off, r.note_offset);
                CHECK((where & PKGNOTE_NOTE_IN_SEGMENT) && (where & PKGNOTE_NOTE_FIRST_PAGE));
                char *j = info_json(a, na, NULL, true);
                CHECK_STR(j, dl_new_compact);
                free(j);
                CHECK(has_build_id(a, na));
                CHECK(primary_json(a, na, NULL) == NULL); /* no package note appears */

                /* Again: the same bytes; the compact JSON is the same note. */
                CHECK_INT(stamp_dl(a, na, dl_new, &b, &nb, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
                CHECK(b && nb == na && !memcmp(a, b, na));
                free(b);
                CHECK_INT(stamp_dl(a, na, dl_new_compact, &b, &nb, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_UNCHANGED);
                free(b);

                /* Larger than the room: the old note goes, the new one is placed after the notes. */
                CHECK_INT(stamp_dl(img, n, dl_big, &b, &nb, &r), 0);
                if (!b)
                        fprintf(stderr, "# %s\n", pkgnote_last_error());
                CHECK(r.placement != PKGNOTE_PLACE_REPLACED && r.placement != PKGNOTE_PLACE_SECTION);
                CHECK_INT(r.first_page, 1);
                CHECK_INT(count_notes(b, nb, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 1);
                CHECK(b && has_build_id(b, nb));

                /* Again: unchanged; removal: none left; twice: nothing to do. */
                check_dl_again_removed(b, nb, dl_big, &c, &nc);
                CHECK(c && has_build_id(c, nc));
                CHECK_INT(stamp_dl(c, nc, NULL, &d, &nd, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_NONE);
                CHECK(d && nd == nc && !memcmp(c, d, nc));
                free(d);
                /* The removal flag takes the kinds given out too. */
                pkgnote_note_spec sp = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_a);
                d = NULL;
                CHECK_INT(pkgnote_stamp_notes_memory(img, n, &sp, 1, PKGNOTE_STAMP_REMOVE, &d, &nd, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
                CHECK_INT(count_notes(d, nd, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 0);
                free(d);

                /* Both kinds at once, then again: unchanged, same bytes. */
                pkgnote_note_spec both[2] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json1),
                                             PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_big)};
                pkgnote_stamp_result rs[2] = {{.size = sizeof rs[0]}, {.size = sizeof rs[0]}};
                d = NULL;
                CHECK_INT(pkgnote_stamp_notes_memory(img, n, both, 2, 0, &d, &nd, rs), 0);
                if (d) {
                        j = primary_json(d, nd, NULL);
                        CHECK_STR(j, json1);
                        free(j);
                        CHECK_INT(count_notes(d, nd, PKGNOTE_NT_FDO_DLOPEN_METADATA, &off, NULL), 1);
                        CHECK_INT(off, rs[1].note_offset);
                        CHECK_INT(count_notes(d, nd, PKGNOTE_NT_FDO_PACKAGING_METADATA, &off, NULL), 1);
                        CHECK_INT(off, rs[0].note_offset);
                        CHECK_INT(rs[0].result_size, nd);
                        CHECK_INT(rs[1].bytes_added, (int64_t)nd - (int64_t)n);
                        CHECK(has_build_id(d, nd));
                        uint8_t *e2 = NULL;
                        size_t ne2;
                        CHECK_INT(pkgnote_stamp_notes_memory(d, nd, both, 2, 0, &e2, &ne2, rs), 0);
                        CHECK_INT(rs[0].placement, PKGNOTE_PLACE_UNCHANGED);
                        CHECK_INT(rs[1].placement, PKGNOTE_PLACE_UNCHANGED);
                        CHECK(e2 && ne2 == nd && !memcmp(d, e2, nd));
                        free(e2);
                        /* The package note out, the dlopen note stays. */
                        pkgnote_note_spec rm = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, NULL);
                        e2 = NULL;
                        CHECK_INT(pkgnote_stamp_notes_memory(d, nd, &rm, 1, 0, &e2, &ne2, rs), 0);
                        CHECK(e2 && primary_json(e2, ne2, NULL) == NULL);
                        CHECK_INT(count_notes(e2, ne2, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 1);
                        free(e2);
                }
                free(d);
                free(a);
                free(b);
                free(c);
        }
}

static void test_dlopen_refusals(void) {
        static uint8_t img[8192];
        size_t n = mk_two_dlopen(img, sizeof img, true, false, 256), nb;
        uint8_t *b = NULL;
        pkgnote_stamp_result r = {.size = sizeof r};
        static const char *const bad[] = {"not json", "{}", "[{\"feature\":1}]", "[{\"feature\":\"x\"}]", "[]x"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                CHECK_INT(stamp_dl(img, n, bad[i], &b, &nb, &r), -EINVAL);
                CHECK(b == NULL);
        }
        pkgnote_note_spec twice[2] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_a), PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_b)};
        CHECK_INT(pkgnote_stamp_notes_memory(img, n, twice, 2, 0, &b, &nb, NULL), -EINVAL);
        pkgnote_note_spec unknown = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA + 1, dl_a);
        CHECK_INT(pkgnote_stamp_notes_memory(img, n, &unknown, 1, 0, &b, &nb, NULL), -EINVAL);
        CHECK_INT(pkgnote_stamp_notes_memory(img, n, twice, 0, 0, &b, &nb, NULL), -EINVAL);
        /* The second kind's bad JSON fails the whole call. */
        pkgnote_note_spec mixed[2] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json1), PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, "[1]")};
        CHECK_INT(pkgnote_stamp_notes_memory(img, n, mixed, 2, 0, &b, &nb, NULL), -EINVAL);
        CHECK(b == NULL);
        CHECK_INT(pkgnote_stamp_notes_file(NULL, NULL, twice, 1, 0, NULL), -EINVAL);
        CHECK_INT(pkgnote_stamp_notes_file("/nonexistent/x", NULL, twice, 2, 0, NULL), -EINVAL);
}

/* A relocatable object with two dlopen notes, as pkgnote_emit() makes one. */
static void test_dlopen_relocatable(void) {
        static const char *const targets[] = {"x86_64", "s390x", "i686"};
        for (size_t t = 0; t < ELEMENTSOF(targets); t++) {
                pkgnote_target tg = PKGNOTE_TARGET_INIT;
                pkgnote_note_spec specs[3] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json1),
                                              PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_a),
                                              PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl_b)};
                uint8_t *obj = NULL, *a = NULL, *b = NULL;
                size_t n, na, nb;
                pkgnote_stamp_result r = {.size = sizeof r};
                CHECK_INT(pkgnote_target_parse(targets[t], &tg), 0);
                CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_OBJECT, specs, 3, &tg, &obj, &n), 0);
                if (!obj)
                        continue;
                CHECK_INT(count_notes(obj, n, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 2);
                CHECK_INT(stamp_dl(obj, n, dl_big, &a, &na, &r), 0);
                CHECK_INT(r.relocatable, 1);
                CHECK_INT(count_notes(a, na, PKGNOTE_NT_FDO_DLOPEN_METADATA, NULL, NULL), 1);
                char *j = a ? primary_json(a, na, NULL) : NULL;
                CHECK_STR(j, json1); /* the package note is kept */
                free(j);
                check_dl_again_removed(a, na, dl_big, &b, &nb);
                j = b ? primary_json(b, nb, NULL) : NULL;
                CHECK_STR(j, json1);
                free(j);
                free(b);
                free(a);
                free(obj);
        }
}

int main(void) {
        RUN(test_after_notes);
        RUN(test_merged);
        RUN(test_moved_phdrs);
        RUN(test_never_degrade);
        RUN(test_linker_note);
        RUN(test_refusals);
        RUN(test_relocatable);
        RUN(test_truncated);
        RUN(test_dlopen);
        RUN(test_dlopen_refusals);
        RUN(test_dlopen_relocatable);
        return test_summary();
}
