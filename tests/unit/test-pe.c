/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PE/COFF reader and stamper (lib/02-pe.c, lib/06-stamp-pe.c) over an image
 * built here byte by byte: headers, long names, the .pkgnote note, UKI
 * sections, stamping round trips, and every truncated prefix. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "02-elf-const.h"
#include "01-base.h"
#include "02-pe-view.h"
#include "pkgnote.h"
#include "testlib.h"

#define JSON "{\"type\":\"deb\",\"name\":\"efi\",\"version\":\"1\"}"
#define OSREL "ID=debian\nPRETTY_NAME=\"Debian 12\"\n"

static uint8_t img[0x1000];
static size_t img_len;

static void section(uint8_t *h, const char *name, uint32_t vsize, uint32_t va, uint32_t raw_size, uint32_t raw,
                    uint32_t flags) {
        memcpy(h, name, strlen(name) < 8 ? strlen(name) : 8);
        pn_wr32(h + 8, vsize, false);
        pn_wr32(h + 12, va, false);
        pn_wr32(h + 16, raw_size, false);
        pn_wr32(h + 20, raw, false);
        pn_wr32(h + 36, flags, false);
}

/* A PE32+ EFI application: .text, a section with a long name through the
 * string table, .osrel; no .pkgnote. */
static void build(void) {
        memset(img, 0, sizeof img);
        img[0] = 'M', img[1] = 'Z';
        pn_wr32(img + 0x3c, 0x40, false);
        memcpy(img + 0x40, "PE\0\0", 4);
        uint8_t *c = img + 0x44, *o = img + 0x58;
        unsigned n = 3;
        pn_wr16(c, 0x8664, false);
        pn_wr16(c + 2, (uint16_t)n, false);
        pn_wr32(c + 8, 0x800, false); /* the string table follows an empty symbol table */
        pn_wr16(c + 16, 240, false);
        pn_wr16(c + 18, 0x22, false);
        pn_wr16(o, PN_PE_MAGIC_PE32PLUS, false);
        pn_wr32(o + 32, 0x1000, false);
        pn_wr32(o + 36, 0x200, false);
        pn_wr32(o + 56, 0x4000, false);
        pn_wr32(o + 60, 0x200, false);
        pn_wr16(o + 68, 10, false);
        pn_wr32(o + 108, 16, false);
        uint8_t *t = o + 240;
        section(t, ".text", 0x10, 0x1000, 0x200, 0x200, PN_SCN_CNT_CODE | PN_SCN_MEM_EXECUTE | PN_SCN_MEM_READ);
        section(t + 40, "/4", 0x20, 0x2000, 0x200, 0x400, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ);
        section(t + 80, ".osrel", sizeof OSREL - 1, 0x3000, 0x200, 0x600, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ);
        memcpy(img + 0x600, OSREL, sizeof OSREL - 1);
        img_len = 0x814; /* ends with the string table */
        memcpy(img + 0x804, ".debug_longname", 16);
        pn_wr32(img + 0x800, 4 + 16, false);
}

/* The stamped form, made by the stamper itself from build(). */
static uint8_t *stamped(size_t *len) {
        build();
        uint8_t *out;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(img, img_len, JSON, 0, &out, len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_PE_SECTION);
        CHECK_INT(r.pe_image, 1);
        return out;
}

static void test_headers(void) {
        size_t len;
        uint8_t *b = stamped(&len);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(b, len, &e), 0);
        CHECK_INT(pkgnote_object_is_pe(e), 1);
        CHECK_INT(pkgnote_object_class(e), 64);
        CHECK_INT(pkgnote_pe_machine(e), 0x8664);
        CHECK_STR(pkgnote_machine_name(pkgnote_object_machine(e), 64), "x86-64");
        CHECK_STR(pkgnote_pe_subsystem_name(pkgnote_pe_subsystem(e)), "EFI application");
        CHECK_STR(pkgnote_object_kind(e), "EFI application");
        CHECK_INT(pkgnote_pe_section_count(e), 4);
        const char *name;
        uint32_t flags;
        CHECK_INT(pkgnote_pe_section(e, 1, &name, NULL, NULL, NULL), 1);
        CHECK_STR(name, ".debug_longname"); /* "/4" through the string table */
        CHECK_INT(pkgnote_pe_section(e, 3, &name, NULL, NULL, &flags), 1);
        CHECK_STR(name, ".pkgnote");
        CHECK_INT(flags, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ);
        CHECK_INT(pkgnote_pe_section(e, 4, &name, NULL, NULL, NULL), 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_INT((int)pkgnote_info_package_count(info), 1);
        CHECK_STR(pkgnote_info_package_json(info, 0), JSON);
        CHECK_STR(pkgnote_info_package_note(info, 0)->section, ".pkgnote");
        CHECK(pkgnote_info_package_note(info, 0)->where & PKGNOTE_NOTE_PE_SECTION);
        pkgnote_os_release *os;
        CHECK_INT(pkgnote_pe_uki_os_release(e, &os), 1);
        CHECK_STR(pkgnote_os_release_get(os, "PRETTY_NAME"), "Debian 12");
        pkgnote_os_release_free(os);
        CHECK(pkgnote_pe_uki_uname(e) == NULL);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        free(b);
}

/* Adding then removing gives back the input; removing again nothing. */
static void test_round_trip(void) {
        size_t len, back_len, again_len;
        uint8_t *b = stamped(&len), *back, *again;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(b, len, NULL, PKGNOTE_STAMP_REMOVE, &back, &back_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        build();
        CHECK_INT((int)back_len, (int)img_len);
        CHECK(!memcmp(back, img, img_len));
        CHECK_INT(pkgnote_stamp_memory(back, back_len, NULL, PKGNOTE_STAMP_REMOVE, &again, &again_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_NONE);
        free(again);
        free(back);
        free(b);
}

/* A certificate table: refused, or dropped when asked. */
static void test_signed(void) {
        build();
        uint8_t s[sizeof img + 16];
        memcpy(s, img, img_len);
        size_t len = img_len + (-img_len & 7u);
        memset(s + img_len, 0, len - img_len);
        pn_wr32(s + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY, (uint32_t)len, false);
        pn_wr32(s + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY + 4, 16, false);
        memset(s + len, 0x30, 16);
        len += 16;
        uint8_t *out;
        size_t out_len;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(s, len, JSON, 0, &out, &out_len, &r), -EPERM);
        CHECK_INT(pkgnote_stamp_memory(s, len, JSON, PKGNOTE_STAMP_DROP_SIGNATURE, &out, &out_len, &r), 0);
        CHECK_INT(r.signature_removed, 1);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(out, out_len, &e), 0);
        CHECK_INT(pkgnote_pe_signed(e), 0);
        pkgnote_object_free(e);
        /* Signed after stamping, then a note replaced in its place with
         * the signature dropped: the check of the kept bytes knows the
         * certificate entry goes (it once called that a changed byte). */
        uint8_t *signed_st = malloc(out_len + 24), *again;
        size_t st_len = out_len + (-out_len & 7u), again_len;
        memcpy(signed_st, out, out_len);
        memset(signed_st + out_len, 0, st_len - out_len);
        pn_wr32(signed_st + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY, (uint32_t)st_len, false);
        pn_wr32(signed_st + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY + 4, 16, false);
        memset(signed_st + st_len, 0x30, 16);
        st_len += 16;
        CHECK_INT(pkgnote_stamp_memory(signed_st, st_len, "{\"name\":\"x\"}", PKGNOTE_STAMP_DROP_SIGNATURE, &again,
                                       &again_len, &r),
                  0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REPLACED);
        CHECK_INT(r.signature_removed, 1);
        CHECK_INT((int)again_len, (int)out_len + (int)(-out_len & 7u));
        free(again);
        free(signed_st);
        free(out);
}

/* Every prefix of the stamped image: read without harm (a fresh
 * allocation of exactly that size, for the sanitizer), the note found
 * only when its bytes are all there, and stamping fails cleanly or
 * yields an image that reads back with the note. */
static void test_truncated_prefixes(void) {
        size_t len;
        uint8_t *b = stamped(&len);
        for (size_t cut = 0; cut < len; cut++) {
                uint8_t *p = malloc(cut ? cut : 1);
                memcpy(p, b, cut);
                pkgnote_object *e;
                int r = pkgnote_object_from_memory(p, cut, &e);
                if (r == 0) {
                        pkgnote_info *info;
                        if (pkgnote_info_read(e, &info) == 0) {
                                size_t n = pkgnote_info_package_count(info);
                                CHECK(n == 0 || (n == 1 && pkgnote_info_package_note(info, 0)->offset +
                                                                   pkgnote_info_package_note(info, 0)->descsz <= cut));
                                pkgnote_info_free(info);
                        }
                        pkgnote_object_free(e);
                } else
                        CHECK(r == -ENOEXEC || r == -EBADMSG);
                uint8_t *out;
                size_t out_len;
                pkgnote_stamp_result res = {.size = sizeof res};
                if (pkgnote_stamp_memory(p, cut, "{\"name\":\"x\"}", 0, &out, &out_len, &res) == 0) {
                        CHECK_INT(pkgnote_object_from_memory(out, out_len, &e), 0);
                        pkgnote_object_free(e);
                        free(out);
                }
                free(p);
        }
        free(b);
}

/* The checksum of CheckSumMappedFile: 16-bit one's-complement-style sum
 * with carries folded, the field itself as zero, plus the length. */
static void test_checksum(void) {
        uint8_t b[6] = {0xff, 0xff, 0xaa, 0xbb, 0x01, 0x00};
        /* 0xffff + 0x0001 = 0x10000 -> 0x0001; field (bytes 2..5) skipped. */
        CHECK_INT(pn_pe_checksum(b, 6, 2), 0xffff + 6);
        uint8_t c[3] = {0x01, 0x02, 0x03};
        CHECK_INT(pn_pe_checksum(c, 3, 100), 0x0201 + 0x0003 + 3);
}

/* "MZ" without a PE signature is no object; a PE signature with a
 * truncated COFF header is a malformed one. */
static void test_not_pe(void) {
        uint8_t dos[64] = {'M', 'Z'};
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(dos, sizeof dos, &e), -ENOEXEC);
        uint8_t bad[0x48] = {'M', 'Z'};
        pn_wr32(bad + 0x3c, 0x40, false);
        memcpy(bad + 0x40, "PE\0\0", 4);
        CHECK_INT(pkgnote_object_from_memory(bad, sizeof bad, &e), -EBADMSG);
        CHECK(pn_pe_magic(img, img_len) || !img_len);
}

/* A scan's stats count the PE image apart (pe_images) within objects,
 * beside an ELF object; a caller of the struct without pe_images gets
 * the fields it knows and nothing past them. */
static void test_scan_stats(void) {
        char dir[] = "/tmp/test-pe-scan.XXXXXX", p[64];
        CHECK(mkdtemp(dir) != NULL);
        size_t len;
        uint8_t *b = stamped(&len);
        uint8_t elf[4096];
        struct mk_spec spec = {.is64 = true, .type = ET_DYN, .machine = EM_X86_64};
        size_t elf_len = mk_elf(&spec, elf, sizeof elf);
        CHECK(elf_len > 0);
        const struct {
                const char *name;
                const void *data;
                size_t len;
        } files[] = {{"app.efi", b, len}, {"prog", elf, elf_len}};
        for (size_t i = 0; i < 2; i++) {
                snprintf(p, sizeof p, "%s/%s", dir, files[i].name);
                int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                CHECK(fd >= 0 && write(fd, files[i].data, files[i].len) == (ssize_t)files[i].len);
                if (fd >= 0)
                        close(fd);
        }
        pkgnote_scan *s;
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, dir), PKGNOTE_SCAN_INPUT_DIRECTORY);
        pkgnote_scan_stats st = {.size = sizeof st};
        CHECK_INT(pkgnote_scan_get_stats(s, &st), 0);
        CHECK_INT((int)st.objects, 2);
        CHECK_INT((int)st.pe_images, 1);
        /* A struct that ends before pe_images is shorter than 1.0's:
         * refused, nothing of it written. */
        pkgnote_scan_stats old;
        const size_t old_size = offsetof(pkgnote_scan_stats, pe_images);
        test_short_struct(&old, sizeof old, old_size);
        CHECK_INT(pkgnote_scan_get_stats(s, &old), -EINVAL);
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        char *json;
        CHECK_INT(pkgnote_scan_summary_to_json(s, &json), 0);
        CHECK(json && strstr(json, "\"objects\":2") && strstr(json, "\"peImages\":1"));
        free(json);
        pkgnote_scan_free(s);
        for (size_t i = 0; i < 2; i++) {
                snprintf(p, sizeof p, "%s/%s", dir, files[i].name);
                unlink(p);
        }
        rmdir(dir);
        free(b);
}

/* The placement arithmetic (pn_pe_place): past the sections and the
 * declared SizeOfImage, raw data directly after the sections, and every
 * edge near 4 GiB refused rather than wrapped. */
static void test_place(void) {
        struct pn_pe_place p;
        CHECK_INT(pn_pe_place(0x4000, 0x3010, 0x1000, 0x800, 0x200, 0x48, 0, &p), 0);
        CHECK_INT(p.vaddr, 0x4000);
        CHECK_INT(p.size_image, 0x5000);
        CHECK_INT(p.raw_off, 0x800);
        CHECK_INT(p.raw_size, 0x200);
        CHECK_INT((int)p.shift, 0x200);
        /* syslinux.efi: SizeOfImage (unaligned) far past its one section. */
        CHECK_INT(pn_pe_place(0x245308, 0x29dc0, 0x1000, 0x29dc0, 0x200, 0x48, 16, &p), 0);
        CHECK_INT(p.vaddr, 0x246000);
        CHECK_INT(p.size_image, 0x247000);
        CHECK_INT(p.raw_off, 0x29dc0); /* directly after, though not aligned */
        CHECK_INT(p.raw_size, 0x200);
        /* A SizeOfImage below the sections' end: past the sections. */
        CHECK_INT(pn_pe_place(0x1000, 0x3010, 0x1000, 0x800, 0x200, 0x48, 0, &p), 0);
        CHECK_INT(p.vaddr, 0x4000);
        /* The record makes the raw data grow by one FileAlignment when
         * the note fills it. */
        CHECK_INT(pn_pe_place(0x4000, 0x4000, 0x1000, 0x800, 0x200, 0x1f8, 16, &p), 0);
        CHECK_INT(p.raw_size, 0x400);
        CHECK_INT((int)p.shift, 0x400);
        /* Near 2^32: the last page fits, one more does not. */
        CHECK_INT(pn_pe_place(0xffffe000, 0x1000, 0x1000, 0x800, 0x200, 0x48, 0, &p), 0);
        CHECK_INT(p.vaddr, 0xffffe000);
        CHECK_INT(p.size_image, 0xfffff000);
        CHECK_INT(pn_pe_place(0xfffff000, 0x1000, 0x1000, 0x800, 0x200, 0x48, 0, &p), -E2BIG);
        CHECK_INT(pn_pe_place(0xfffff001, 0x1000, 0x1000, 0x800, 0x200, 0x48, 0, &p), -E2BIG);
        CHECK_INT(pn_pe_place(0x1000, 0xffffffffull + 1, 0x1000, 0x800, 0x200, 0x48, 0, &p), -E2BIG);
        CHECK_INT(pn_pe_place(0x1000, 0x1000, 0x1000, 0xfffffe00, 0x200, 0x48, 0, &p), -E2BIG);
        CHECK_INT(pn_pe_place(0x1000, 0x1000, 0x1000, 0xfffffc00, 0x200, 0x48, 0, &p), 0);
        CHECK_INT(p.raw_off, 0xfffffc00);
        CHECK_INT(pn_pe_place(0x1000, 0x1000, 0x1000, 0x800, 0x200, 0xffffffffull + 1, 0, &p), -E2BIG);
        CHECK_INT(pn_pe_place(0x1000, 0x1000, 0x1000, 0x800, 0x200, 0, 0, &p), -E2BIG);
}

static uint32_t rd_opt(const uint8_t *b, unsigned off) {
        return pn_rd32(b + 0x58 + off, false);
}

/* .pkgnote's entry: the fourth of the built image. */
static uint32_t rd_note(const uint8_t *b, unsigned off) {
        return pn_rd32(b + 0x58 + 240 + 3 * 40 + off, false);
}

/* Stamps IN (LEN bytes) into the result returned, removes the note
 * from that again and wants the input back byte for byte. */
static uint8_t *round_trip(const uint8_t *in, size_t len, size_t *out_len) {
        uint8_t *out, *back;
        size_t back_len;
        pkgnote_stamp_result r = {.size = sizeof r};
        static uint8_t none[0x1000];
        CHECK_INT(pkgnote_stamp_memory(in, len, JSON, 0, &out, out_len, &r), 0);
        if (r.placement != PKGNOTE_PLACE_PE_SECTION) { /* failed: said above */
                *out_len = sizeof none;
                return memcpy(malloc(sizeof none), none, sizeof none);
        }
        CHECK_INT(pkgnote_stamp_memory(out, *out_len, NULL, PKGNOTE_STAMP_REMOVE, &back, &back_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        if (r.placement != PKGNOTE_PLACE_REMOVED)
                return out;
        CHECK_INT((int)back_len, (int)len);
        CHECK(back_len == len && !memcmp(back, in, len));
        free(back);
        return out;
}

/* Regression (issue 42, item 6): the COFF string table after the
 * sections moved after the new section, with PointerToSymbolTable, so
 * the sections' data stays contiguous (it was left in a gap before). */
static void test_moves_symbol_table(void) {
        size_t len;
        build();
        uint8_t *b = round_trip(img, img_len, &len);
        CHECK_INT(rd_note(b, 20), 0x800);                  /* PointerToRawData: where the table was */
        CHECK_INT(pn_rd32(b + 0x44 + 8, false), 0xa00);    /* PointerToSymbolTable: after it */
        CHECK_INT((int)len, 0xa14);
        CHECK(!memcmp(b + 0xa00, img + 0x800, 0x14));
        free(b);
}

/* Regression (issue 42, item 6): the new section's address at or past
 * the declared SizeOfImage, which is never cut; removal gives it back,
 * unaligned ones (systemd-boot 252, syslinux.efi) too. */
static void test_keeps_size_of_image(void) {
        static const uint32_t sizes[] = {0x4000, 0x10000, 0x9308, 0x3100};
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                size_t len;
                build();
                pn_wr32(img + 0x58 + 56, sizes[i], false);
                uint8_t *b = round_trip(img, img_len, &len);
                uint32_t va = rd_note(b, 12), want = (sizes[i] + 0xfff) & ~0xfffu;
                CHECK_INT(va, want);
                CHECK_INT(rd_opt(b, 56), want + 0x1000);
                free(b);
        }
}

/* Regression (issue 42, item 8): trailing zeros after the string table
 * (an overlay's padding) and a stale or right checksum come back as
 * they were; other data after the sections is refused, not moved. */
static void test_round_trip_kept(void) {
        size_t len;
        build();
        memset(img + img_len, 0, 0x300);
        uint8_t *b = round_trip(img, img_len + 0x300, &len);
        CHECK_INT((int)len, 0xa14 + 0x300);
        free(b);
        build();
        pn_wr32(img + 0x58 + 64, 0x12345678, false); /* stale */
        b = round_trip(img, img_len, &len);
        CHECK_INT(rd_opt(b, 64), 0x12345678);
        free(b);
        build();
        pn_wr32(img + 0x58 + 64, pn_pe_checksum(img, img_len, 0x58 + 64), false);
        b = round_trip(img, img_len, &len);
        CHECK_INT(rd_opt(b, 64), pn_pe_checksum(b, len, 0x58 + 64));
        free(b);
        build();
        memcpy(img + img_len, "PK\3\4", 4);
        uint8_t *out;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(img, img_len + 4, JSON, 0, &out, &len, &r), -ENOTSUP);
        CHECK(strstr(pkgnote_last_error(), "not the COFF symbol table") != NULL);
}

/* Regression (issue 42, item 7): a certificate table that starts inside
 * a section's data is refused with --drop-signature, never cut out. */
static void test_drop_signature_inside(void) {
        build();
        pn_wr32(img + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY, 0x610, false);
        pn_wr32(img + 0x58 + 112 + 8 * PN_PE_DIR_SECURITY + 4, (uint32_t)img_len - 0x610, false);
        uint8_t *out;
        size_t len;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(img, img_len, JSON, PKGNOTE_STAMP_DROP_SIGNATURE, &out, &len, &r), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "starts inside the headers, a section's data or the symbol table") != NULL);
        CHECK_INT(pkgnote_stamp_memory(img, img_len, NULL, PKGNOTE_STAMP_REMOVE | PKGNOTE_STAMP_DROP_SIGNATURE, &out,
                                       &len, &r),
                  -EBADMSG);
}


/* The last 16 bytes of the note's raw data in B: the PNSTAMP1 record. */
static uint8_t *record_of(uint8_t *b) {
        return b + rd_note(b, 20) + rd_note(b, 16) - 16;
}

/* Regression: a crafted PNSTAMP1 record was believed on removal, which
 * wrote a SizeOfImage below the sections' end and a SizeOfHeaders of 0;
 * a record that does not fit the image is ignored now, the values
 * computed instead.  An input whose own values could not be recorded
 * (SizeOfHeaders short of the section table) is refused. */
static void test_crafted_record_ignored(void) {
        static const uint32_t bad[][2] = {{0x1000, 0}, {0x3000, 0x200}, {0x4001, 0x100}, {0x4001, 0x400}};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                build();
                pn_wr32(img + 0x58 + 56, 0x4001, false); /* unaligned: a record is written */
                uint8_t *out, *back;
                size_t len, back_len;
                pkgnote_stamp_result r = {.size = sizeof r};
                CHECK_INT(pkgnote_stamp_memory(img, img_len, JSON, 0, &out, &len, &r), 0);
                uint8_t *rec = record_of(out);
                CHECK(!memcmp(rec, "PNSTAMP1", 8));
                CHECK_INT(pn_rd32(rec + 8, false), 0x4001);
                pn_wr32(rec + 8, bad[i][0], false);
                pn_wr32(rec + 12, bad[i][1], false);
                CHECK_INT(pkgnote_stamp_memory(out, len, NULL, PKGNOTE_STAMP_REMOVE, &back, &back_len, &r), 0);
                CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
                CHECK_INT(rd_opt(back, 56), 0x5000); /* the note's address, not the record's */
                CHECK_INT(rd_opt(back, 60), 0x200);
                CHECK_INT((int)back_len, (int)img_len);
                free(back);
                free(out);
        }
        build();
        pn_wr32(img + 0x58 + 60, 0x100, false); /* the table ends at 0x1e8 */
        uint8_t *out;
        size_t len;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(img, img_len, JSON, 0, &out, &len, &r), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "does not cover the section table") != NULL);
}

/* Regression: removal moved an overlay appended after stamping (a zip's
 * end record) back over the note, though stamping never moves such data
 * (its offsets are unknown); the note's bytes become zeros in place now,
 * every other byte and the file's length kept. */
static void test_remove_keeps_overlay(void) {
        size_t len, back_len;
        uint8_t *b = stamped(&len), *back;
        uint8_t *o = malloc(len + 22);
        memcpy(o, b, len);
        memset(o + len, 0, 22);
        memcpy(o + len, "PK\5\6", 4);
        uint32_t raw = rd_note(o, 20), raw_size = rd_note(o, 16);
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(o, len + 22, NULL, PKGNOTE_STAMP_REMOVE, &back, &back_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        CHECK_INT((int)back_len, (int)len + 22);
        CHECK(!memcmp(back + len, "PK\5\6", 4));
        CHECK_INT(pn_rd16(back + 0x44 + 2, false), 3);
        CHECK_INT(rd_opt(back, 56), 0x4000);
        for (size_t i = 0; i < back_len; i++) {
                bool note = i >= raw && i < raw + raw_size, entry = i >= 0x58 + 240 + 120 && i < 0x58 + 240 + 160;
                bool field = (i >= 0x44 + 2 && i < 0x44 + 4) || (i >= 0x58 + 56 && i < 0x58 + 60);
                if (note || entry)
                        CHECK(back[i] == 0);
                else if (!field && back[i] != o[i]) {
                        CHECK_INT((int)i, -1);
                        break;
                }
        }
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(back, back_len, &e), 0);
        CHECK_INT(pn_object_notes(e, &(const pkgnote_note *){NULL}), 0);
        pkgnote_object_free(e);
        /* Stamping it again moves nothing either: refused. */
        uint8_t *again;
        size_t again_len;
        CHECK_INT(pkgnote_stamp_memory(back, back_len, JSON, 0, &again, &again_len, &r), -ENOTSUP);
        free(back);
        free(o);
        free(b);
}

/* The layout of the previous release: .pkgnote at the end of the file,
 * after the symbol and string tables (at 0xa00, after build()'s table
 * at 0x800). */
static uint8_t *old_layout(size_t *len) {
        size_t st_len;
        uint8_t *st = stamped(&st_len), *o = calloc(1, 0xc00);
        memcpy(o, img, img_len);
        memcpy(o + 0xa00, st + 0x800, 0x200);
        memcpy(o + 0x58 + 240 + 120, st + 0x58 + 240 + 120, 40);
        pn_wr32(o + 0x58 + 240 + 120 + 20, 0xa00, false);
        pn_wr16(o + 0x44 + 2, 4, false);
        pn_wr32(o + 0x58 + 56, 0x5000, false);
        free(st);
        *len = 0xc00;
        return o;
}

/* Regression: a file stamped by the previous release (its note after
 * the symbol table) could not take a larger note: the check of the kept
 * bytes failed ("changes byte 0x800").  The new note goes directly after
 * the sections now, the symbol table after it; a smaller note replaces
 * the old one in place; removal takes the note off the end. */
static void test_old_layout_restamp(void) {
        size_t len, out_len;
        uint8_t *o = old_layout(&len), *out;
        char big[700];
        snprintf(big, sizeof big, "{\"type\":\"deb\",\"name\":\"%0600d\",\"version\":\"1\"}", 0);
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(o, len, big, 0, &out, &out_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_PE_SECTION);
        if (r.placement != PKGNOTE_PLACE_PE_SECTION) {
                free(o);
                return;
        }
        CHECK_INT(rd_note(out, 20), 0x800);
        CHECK_INT(rd_note(out, 16), 0x400);
        CHECK_INT(rd_note(out, 12), 0x4000);
        CHECK_INT(pn_rd32(out + 0x44 + 8, false), 0xc00); /* the symbol table right after it */
        CHECK(!memcmp(out + 0xc00, img + 0x800, 0x14));
        CHECK_INT((int)out_len, 0xe00); /* the old padding after it kept, the old note gone */
        CHECK_INT(rd_opt(out, 56), 0x5000);
        free(out);
        CHECK_INT(pkgnote_stamp_memory(o, len, "{\"name\":\"x\"}", 0, &out, &out_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REPLACED);
        CHECK_INT(rd_note(out, 20), 0xa00);
        CHECK_INT((int)out_len, 0xc00);
        free(out);
        CHECK_INT(pkgnote_stamp_memory(o, len, NULL, PKGNOTE_STAMP_REMOVE, &out, &out_len, &r), 0);
        CHECK_INT(r.placement, PKGNOTE_PLACE_REMOVED);
        CHECK_INT((int)out_len, 0xa00);
        build();
        CHECK(!memcmp(out, img, img_len));
        CHECK_INT(rd_opt(out, 56), 0x4000);
        free(out);
        free(o);
}

/* Regression: with a FileAlignment of 1 or 2 the buffer had no room for
 * the PNSTAMP1 record, and stamping an image that needs one (an
 * unaligned SizeOfImage) failed with "would grow past 4 GiB". */
static void test_record_small_file_align(void) {
        static const uint32_t aligns[] = {1, 2};
        for (size_t i = 0; i < ELEMENTSOF(aligns); i++) {
                size_t len;
                build();
                pn_wr32(img + 0x58 + 36, aligns[i], false);
                pn_wr32(img + 0x58 + 56, 0x6001, false);
                uint8_t *b = round_trip(img, img_len, &len);
                CHECK(!memcmp(record_of(b), "PNSTAMP1", 8));
                CHECK_INT(rd_note(b, 12), 0x7000);
                free(b);
        }
        struct pn_pe_place p;
        CHECK_INT(pn_pe_place(0x6001, 0x3010, 0x1000, 0x814, 1, 0x48, 16, &p), 0);
        CHECK_INT(p.raw_size, 0x58);
        CHECK_INT((int)p.shift, 0x58);
}


/* Regression (found by fuzz-pe): a symbol table that begins inside the
 * last section's data and runs on past it was cut in two by stamping,
 * the part after the sections moved and the pointer not.  Refused. */
static void test_symtab_straddles_sections(void) {
        build();
        pn_wr32(img + 0x44 + 8, 0x7ee, false); /* one symbol in .osrel's data, the string table after it */
        pn_wr32(img + 0x44 + 12, 1, false);
        uint8_t *out;
        size_t len;
        pkgnote_stamp_result r = {.size = sizeof r};
        CHECK_INT(pkgnote_stamp_memory(img, img_len, JSON, 0, &out, &len, &r), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "begins inside the sections' data") != NULL);
}

int main(void) {
        RUN(test_place);
        RUN(test_moves_symbol_table);
        RUN(test_keeps_size_of_image);
        RUN(test_round_trip_kept);
        RUN(test_drop_signature_inside);
        RUN(test_crafted_record_ignored);
        RUN(test_remove_keeps_overlay);
        RUN(test_old_layout_restamp);
        RUN(test_record_small_file_align);
        RUN(test_symtab_straddles_sections);
        RUN(test_headers);
        RUN(test_round_trip);
        RUN(test_signed);
        RUN(test_truncated_prefixes);
        RUN(test_checksum);
        RUN(test_not_pe);
        RUN(test_scan_stats);
        return test_summary();
}
