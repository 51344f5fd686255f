/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of lib/07-check-lint.c: the CPE validator and pkgnote_lint() over ELF
 * images built here in memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"

static int failures, checks_run;

#define CHECK(cond, ...)                                                        \
        do {                                                                    \
                checks_run++;                                                   \
                if (!(cond)) {                                                  \
                        failures++;                                             \
                        fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
                        fprintf(stderr, __VA_ARGS__);                           \
                        fputc('\n', stderr);                                    \
                }                                                               \
        } while (0)

/* ------------------------------------------------------------------ */
/* CPE names                                                           */

static void cpe_is(const char *cpe, int want, int line) {
        int got = pkgnote_cpe_check(cpe);
        checks_run++;
        if (got != want) {
                failures++;
                fprintf(stderr, "%s:%d: pkgnote_cpe_check(\"%s\") = %d, want %d (%s)\n", __FILE__, line, cpe, got,
                        want, got < 0 ? pkgnote_last_error() : "accepted");
        }
}
#define CPE_IS(cpe, want) cpe_is(cpe, want, __LINE__)

static void test_cpe(void) {
        /* NISTIR 7695 formatted strings, complete. */
        static const char *const fs[] = {
                "cpe:2.3:a:microsoft:internet_explorer:8.0.6001:beta:*:*:*:*:*:*",
                "cpe:2.3:a:microsoft:internet_explorer:8.*:sp?:*:*:*:*:*:*",
                "cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*",
                "cpe:2.3:a:hp:openview_network_manager:7.51:*:*:*:*:linux:*:*",
                "cpe:2.3:a:foo\\\\bar:big\\$money_2010:*:*:*:*:special:ipod_touch:80gb:*",
                "cpe:2.3:a:foo\\\\bar:big\\$money_manager_2010:*:*:*:*:*:*:*:*",
                "cpe:2.3:o:fedoraproject:fedora:40:*:*:*:*:*:*:*",
                "cpe:2.3:a:gnu:coreutils:9.4:*:*:en-us:*:*:*:*",
                "cpe:2.3:a:gnu:coreutils:9.4:*:*:de:*:*:*:*",
                "cpe:2.3:a:gnu:coreutils:9.4:*:*:es-419:*:*:*:*",
                "cpe:2.3:a:jquery:jquery:1.2.3:*:*:*:*:node.js:*:*",
                "cpe:2.3:a:apache:http_server:2.4.\\*:*:*:*:*:*:*:*",
                "cpe:2.3:*:*:*:*:*:*:*:*:*:*:*",
                "cpe:2.3:-:-:-:-:-:-:-:-:-:-:-",
                "cpe:2.3:h:*vendor:product?:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:??vendor:product*:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:ab\\:cd:ef:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:vendor:product\\!\\(x\\):1.0:*:*:*:*:*:*:*",
                "cpe:2.3:a:Vendor_Name:Product-Name:1.0-rc1:*:*:*:*:*:*:*",
        };
        for (size_t i = 0; i < ELEMENTSOF(fs); i++)
                CPE_IS(fs[i], PKGNOTE_CPE_FS);

        /* Formatted strings with trailing components left out, as the
         * spec's examples and Amazon Linux's CPE_NAME have them. */
        CPE_IS("cpe:2.3:o:fedoraproject:fedora:33", PKGNOTE_CPE_FS_SHORT);
        CPE_IS("cpe:2.3:o:amazon:amazon_linux:2023", PKGNOTE_CPE_FS_SHORT);
        CPE_IS("cpe:2.3:a:gnu:coreutils:5.0", PKGNOTE_CPE_FS_SHORT);
        CPE_IS("cpe:2.3:a:gnu:coreutils", PKGNOTE_CPE_FS_SHORT);

        /* CPE 2.2 URIs (and the 2.3 URI binding). */
        static const char *const uri[] = {
                "cpe:/o:fedoraproject:fedora:40",
                "cpe:/a:microsoft:internet_explorer:8.0.6001:beta",
                "cpe:/a:hp:insight_diagnostics:7.4.0.1570::~~online~win2003~x64~",
                "cpe:/a:foo%5cbar:big%24money_manager_2010",
                "cpe:/o:redhat:enterprise_linux:9::baseos",
                "cpe:/h:cisco:router:1.0:::en",
                "cpe:/a",
                "cpe:/:vendor",
                "cpe:/O:Debian:Debian_Linux:12",
        };
        for (size_t i = 0; i < ELEMENTSOF(uri); i++)
                CPE_IS(uri[i], PKGNOTE_CPE_URI);

        static const char *const bad[] = {
                "",
                "cpe",
                "cpe:2.3",
                "cpe:2.3:",
                "CPE:2.3:a:vendor:product",
                "cpe:2.2:a:vendor:product",
                "cpe:2.3:x:vendor:product",
                "cpe:2.3:ao:vendor:product",
                "cpe:2.3:a:vendor",
                "cpe:2.3:a",
                "cpe:2.3:a:v:p:1:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:v:p:1:*:*:*:*:*:*:*:",
                "cpe:2.3:a:ven dor:product",
                "cpe:2.3:a:vendor:product ",
                "cpe:2.3:a:vendor:pro/duct:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:vendor:product!:*:*:*:*:*:*:*:*",
                "cpe:2.3:a:vendor::*:*:*:*:*:*:*:*",
                "cpe:2.3:a::product",
                "cpe:2.3:a:ven*dor:product",
                "cpe:2.3:a:ven?dor:product",
                "cpe:2.3:a:**:product",
                "cpe:2.3:a:*?vendor:product",
                "cpe:2.3:a:?:product",
                "cpe:2.3:a:vendor\\a:product",
                "cpe:2.3:a:vendor:product\\",
                "cpe:2.3:a:vendor:pr\xc3\xb6" "duct",
                "cpe:2.3:a:vendor:pro\tduct",
                "cpe:2.3:a:v:p:1:*:*:english:*:*:*:*",
                "cpe:2.3:a:v:p:1:*:*:e:*:*:*:*",
                "cpe:2.3:a:v:p:1:*:*:en-u:*:*:*:*",
                "cpe:2.3:a:v:p:1:*:*:en-1234:*:*:*:*",
                "cpe:2.3:a:v:p:1:*:*:en_us:*:*:*:*",
                "cpe:/",
                "cpe:/x:vendor",
                "cpe:/ao:vendor",
                "cpe:/a:vendor:pro duct",
                "cpe:/a:v:p:1:2:3:4:5",
                "cpe:/a:v:p%2",
                "cpe:/a:v:p%zz",
                "cpe:/a:vendor:*",
                "cpe:/a:vendor:product!",
                "cpe:/a:vendor:product\\:x",
                "cpe:/a:vendor:pr\xc3\xb6" "duct",
                "cpe:/o:fedoraproject:fedora:40 ",
                " cpe:/o:fedoraproject:fedora:40",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int r = pkgnote_cpe_check(bad[i]);
                CHECK(r == -EINVAL, "pkgnote_cpe_check(\"%s\") = %d, want -EINVAL", bad[i], r);
                CHECK(r >= 0 || *pkgnote_last_error(), "no reason given for \"%s\"", bad[i]);
        }
        CHECK(pkgnote_cpe_check(NULL) == -EINVAL, "NULL accepted");
}

/* ------------------------------------------------------------------ */
/* ELF images                                                          */

enum { ET_REL = 1, ET_EXEC = 2, ET_DYN = 3, ET_CORE = 4 };
enum { PT_LOAD = 1, PT_NOTE = 4, SHT_PROGBITS = 1, SHT_STRTAB = 3, SHT_NOTE = 7, SHF_ALLOC = 2 };

struct image_spec {
        unsigned type;
        bool be, is32;
        const uint8_t *notes; /* note bytes, placed at notes_off */
        size_t notes_len;
        uint64_t notes_off;   /* default 0x100 */
        size_t split;         /* the first SPLIT bytes of notes form .note.gnu.build-id */
        bool no_pt_note, no_load, no_shdrs;
        uint64_t note_align;  /* PT_NOTE and section alignment, default 4 */
        uint64_t seg_align;   /* PT_NOTE alignment when it differs */
        uint64_t load_filesz; /* default: the whole file */
        uint32_t sec_type;    /* default SHT_NOTE */
        uint64_t sec_flags;   /* default SHF_ALLOC */
        const char *sec_name; /* default ".note.package" */
        unsigned machine;     /* default x86-64 (i386 for is32) */
};

struct image {
        uint8_t *data;
        size_t len;
};

static void wr(uint8_t *p, uint64_t v, int width, bool be) {
        for (int i = 0; i < width; i++)
                p[be ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* An object of the given shape: ELF header, program headers (PT_LOAD over
 * the file, PT_NOTE over the notes), the notes, a section name table and
 * four section headers (null, .note.gnu.build-id over the first SPLIT
 * bytes of notes, the package note section over the rest, the name
 * table). */
static struct image build_image(const struct image_spec *s) {
        bool be = s->be, is64 = !s->is32;
        unsigned ehsize = is64 ? 64 : 52, phent = is64 ? 56 : 32, shent = is64 ? 64 : 40;
        unsigned type = s->type ? s->type : ET_DYN;
        bool phdrs = type != ET_REL;
        unsigned phnum = phdrs ? 2 : 0;
        uint64_t notes_off = s->notes_off ? s->notes_off : 0x100;
        uint64_t align = s->note_align ? s->note_align : 4;
        const char *name = s->sec_name ? s->sec_name : ".note.package";
        uint64_t strtab_off = notes_off + s->notes_len;
        static const char id_name[] = ".note.gnu.build-id";
        size_t strtab_len = 1 + strlen(name) + 1 + strlen(".shstrtab") + 1 + sizeof id_name;
        uint64_t shoff = ALIGN_UP(strtab_off + strtab_len, 8);
        size_t len = s->no_shdrs ? (size_t)strtab_off : (size_t)(shoff + 4 * shent);
        uint8_t *d = calloc(1, len);
        if (!d)
                abort();

        memcpy(d, "\177ELF", 4);
        d[4] = is64 ? 2 : 1;
        d[5] = be ? 2 : 1;
        d[6] = 1;
        wr(d + 16, type, 2, be);
        wr(d + 18, s->machine ? s->machine : is64 ? 62 : 3, 2, be);
        wr(d + 20, 1, 4, be);
        uint8_t *t = d + (is64 ? 54 : 42);
        if (is64) {
                wr(d + 32, phdrs ? ehsize : 0, 8, be);
                wr(d + 40, s->no_shdrs ? 0 : shoff, 8, be);
        } else {
                wr(d + 28, phdrs ? ehsize : 0, 4, be);
                wr(d + 32, s->no_shdrs ? 0 : shoff, 4, be);
        }
        wr(t - 2, ehsize, 2, be);
        wr(t, phent, 2, be);
        wr(t + 2, phnum, 2, be);
        wr(t + 4, shent, 2, be);
        wr(t + 6, s->no_shdrs ? 0 : 4, 2, be);
        wr(t + 8, s->no_shdrs ? 0 : 3, 2, be);

        for (unsigned i = 0; i < phnum; i++) {
                uint8_t *p = d + ehsize + i * phent;
                uint32_t ptype = i == 0 ? (s->no_load ? 6 /* PT_PHDR */ : PT_LOAD) : (s->no_pt_note ? 0 : PT_NOTE);
                uint64_t off = i == 0 ? 0 : notes_off;
                uint64_t filesz = i == 0 ? (s->load_filesz ? s->load_filesz : len) : s->notes_len;
                uint64_t al = i == 0 ? 0x1000 : s->seg_align ? s->seg_align : align;
                wr(p, ptype, 4, be);
                if (is64) {
                        wr(p + 4, 4 /* PF_R */, 4, be);
                        wr(p + 8, off, 8, be);
                        wr(p + 16, off, 8, be);
                        wr(p + 24, off, 8, be);
                        wr(p + 32, filesz, 8, be);
                        wr(p + 40, filesz, 8, be);
                        wr(p + 48, al, 8, be);
                } else {
                        wr(p + 4, off, 4, be);
                        wr(p + 8, off, 4, be);
                        wr(p + 12, off, 4, be);
                        wr(p + 16, filesz, 4, be);
                        wr(p + 20, filesz, 4, be);
                        wr(p + 24, 4, 4, be);
                        wr(p + 28, al, 4, be);
                }
        }
        if (s->notes_len)
                memcpy(d + notes_off, s->notes, s->notes_len);
        if (s->no_shdrs)
                return (struct image){d, len};

        char *st = (char *)d + strtab_off;
        strcpy(st + 1, name);
        strcpy(st + 2 + strlen(name), ".shstrtab");
        uint32_t id_at = (uint32_t)(2 + strlen(name) + sizeof ".shstrtab");
        strcpy(st + id_at, id_name);
        struct {
                uint32_t name, type;
                uint64_t flags, off, size, align;
        } sh[4] = {
                {0, 0, 0, 0, 0, 0},
                {id_at, SHT_NOTE, SHF_ALLOC, notes_off, s->split, align},
                {1, s->sec_type ? s->sec_type : SHT_NOTE, s->sec_flags ? s->sec_flags : SHF_ALLOC,
                 notes_off + s->split, s->notes_len - s->split, align},
                {(uint32_t)(2 + strlen(name)), SHT_STRTAB, 0, strtab_off, strtab_len, 1},
        };
        if (s->sec_flags == (uint64_t)-1)
                sh[2].flags = 0;
        for (int i = 0; i < 4; i++) {
                uint8_t *p = d + shoff + (size_t)i * shent;
                wr(p, sh[i].name, 4, be);
                wr(p + 4, sh[i].type, 4, be);
                if (is64) {
                        wr(p + 8, sh[i].flags, 8, be);
                        wr(p + 16, sh[i].flags & SHF_ALLOC ? sh[i].off : 0, 8, be);
                        wr(p + 24, sh[i].off, 8, be);
                        wr(p + 32, sh[i].size, 8, be);
                        wr(p + 48, sh[i].align, 8, be);
                } else {
                        wr(p + 8, sh[i].flags, 4, be);
                        wr(p + 12, sh[i].flags & SHF_ALLOC ? sh[i].off : 0, 4, be);
                        wr(p + 16, sh[i].off, 4, be);
                        wr(p + 20, sh[i].size, 4, be);
                        wr(p + 32, sh[i].align, 4, be);
                }
        }
        return (struct image){d, len};
}

/* Appends one note (4-byte padding, DESCSZ as given) to BUF. */
static size_t add_note(uint8_t *buf, size_t at, const char *owner, size_t namesz, uint32_t type, const void *desc,
                       size_t descsz, bool be) {
        wr(buf + at, namesz, 4, be);
        wr(buf + at + 4, descsz, 4, be);
        wr(buf + at + 8, type, 4, be);
        memcpy(buf + at + 12, owner, namesz);
        at += 12 + ALIGN_UP(namesz, 4);
        memcpy(buf + at, desc, descsz);
        return at + ALIGN_UP(descsz, 4);
}

#define ID_LEN 36 /* bytes of the build-id note below */
static size_t add_build_id(uint8_t *buf, size_t at, bool be) {
        static const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        return add_note(buf, at, "GNU", 4, PKGNOTE_NT_GNU_BUILD_ID, id, sizeof id, be);
}

/* A package note for JSON, padded descsz as ld.bfd writes it. */
static size_t add_package(uint8_t *buf, size_t at, const char *json, bool be) {
        size_t len = strlen(json) + 1, padded = ALIGN_UP(len, 4);
        char *desc = calloc(1, padded);
        if (!desc)
                abort();
        memcpy(desc, json, len);
        at = add_note(buf, at, "FDO", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, desc, padded, be);
        free(desc);
        return at;
}

/* ------------------------------------------------------------------ */
/* Collecting findings                                                 */

struct findings {
        char ids[64][32];
        size_t n, errors, warnings;
        char all[2048];
};

static void collect(void *userdata, const pkgnote_lint_finding *f) {
        struct findings *fs = userdata;
        const pkgnote_lint_check *c;
        bool known = false;
        for (size_t i = 0; (c = pkgnote_lint_check_get(i)); i++)
                known |= c == f->check;
        CHECK(known, "finding with a check not in the table");
        CHECK(f->message && *f->message && !strchr(f->message, '\n'), "bad message for %s", f->check->id);
        if (f->check->severity == PKGNOTE_LINT_ERROR)
                fs->errors++;
        else
                fs->warnings++;
        if (fs->n < ELEMENTSOF(fs->ids))
                snprintf(fs->ids[fs->n++], sizeof fs->ids[0], "%s", f->check->id);
        size_t used = strlen(fs->all);
        snprintf(fs->all + used, sizeof fs->all - used, "  %s: %s\n", f->check->id, f->message);
}

static bool has(const struct findings *fs, const char *id) {
        for (size_t i = 0; i < fs->n; i++)
                if (!strcmp(fs->ids[i], id))
                        return true;
        return false;
}

static int lint_image(const struct image *im, struct findings *fs) {
        memset(fs, 0, sizeof *fs);
        pkgnote_object *e;
        int r = pkgnote_object_from_memory(im->data, im->len, &e);
        CHECK(r == 0, "pkgnote_object_from_memory: %d %s", r, pkgnote_last_error());
        if (r < 0)
                return r;
        r = pkgnote_lint(e, collect, fs);
        pkgnote_object_free(e);
        CHECK(r < 0 || (size_t)r == fs->errors, "returned %d but reported %zu errors", r, fs->errors);
        return r;
}

/* Lints SPEC and checks that exactly the IDS (NULL-terminated) are found. */
static void expect_ids(const struct image_spec *spec, const char *what, int line, ...) {
        struct image im = build_image(spec);
        struct findings fs;
        int r = lint_image(&im, &fs);
        va_list ap;
        size_t want = 0;
        va_start(ap, line);
        for (const char *id; (id = va_arg(ap, const char *)); want++) {
                checks_run++;
                if (!has(&fs, id)) {
                        failures++;
                        fprintf(stderr, "%s:%d: %s: want %s, got:\n%s", __FILE__, line, what, id, fs.all);
                }
        }
        va_end(ap);
        checks_run++;
        if (r < 0 || fs.n != want) {
                failures++;
                fprintf(stderr, "%s:%d: %s: lint returned %d with %zu findings, want %zu:\n%s", __FILE__, line, what, r,
                        fs.n, want, fs.all);
        }
        free(im.data);
}
#define EXPECT(spec, what, ...) expect_ids(spec, what, __LINE__, __VA_ARGS__, (const char *)NULL)
#define EXPECT_CLEAN(spec, what) expect_ids(spec, what, __LINE__, (const char *)NULL)

static const char good_json[] =
        "{\"type\":\"rpm\",\"os\":\"fedora\",\"osVersion\":\"40\",\"name\":\"coreutils\","
        "\"version\":\"9.4-7.fc40\",\"architecture\":\"x86_64\","
        "\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\","
        "\"appCpe\":\"cpe:2.3:a:gnu:coreutils:9.4:*:*:*:*:*:*:*\","
        "\"debugInfoUrl\":\"https://debuginfod.fedoraproject.org/\"}";

/* A build-id and a package note holding JSON, in the given byte order. */
static struct image_spec with_json(uint8_t *buf, const char *json, bool be) {
        size_t id = add_build_id(buf, 0, be);
        size_t n = add_package(buf, id, json, be);
        return (struct image_spec){.be = be, .notes = buf, .notes_len = n, .split = id};
}

static void test_clean(void) {
        static uint8_t buf[4096];
        for (int be = 0; be <= 1; be++)
                for (int is32 = 0; is32 <= 1; is32++) {
                        struct image_spec s = with_json(buf, good_json, be);
                        s.is32 = is32;
                        EXPECT_CLEAN(&s, "clean shared object");
                        s.type = ET_EXEC;
                        EXPECT_CLEAN(&s, "clean executable");
                        s.no_shdrs = true;
                        EXPECT_CLEAN(&s, "clean, no section headers");
                }

        /* lld's descsz (strlen + 1, padding outside the descriptor) is fine. */
        size_t n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, "{\"type\":\"deb\"}", 15, false);
        struct image_spec s = {.notes = buf, .notes_len = n, .split = ID_LEN};
        EXPECT_CLEAN(&s, "descsz strlen+1");

        /* Unknown keys of any type are allowed. */
        s = with_json(buf, "{\"type\":\"deb\",\"x-vendor\":{\"a\":[1,true,null]},\"n\":1.5}", false);
        EXPECT_CLEAN(&s, "unknown keys");

        /* \" and \\ are not \u escapes. */
        s = with_json(buf, "{\"name\":\"a\\\"b\\\\u0041\"}", false);
        EXPECT_CLEAN(&s, "escaped quote and backslash");

        /* A relocatable object with an allocated, 4-aligned note section
         * (riscv64: no GNU property note is needed there). */
        n = add_package(buf, 0, good_json, false);
        s = (struct image_spec){.type = ET_REL, .notes = buf, .notes_len = n, .machine = 243};
        EXPECT_CLEAN(&s, "relocatable object");
        /* For x86-64 it must claim IBT and SHSTK, or linking it strips them. */
        s = (struct image_spec){.type = ET_REL, .notes = buf, .notes_len = n};
        EXPECT(&s, "x86-64 note object without GNU property", "drops-hardening");
}

static void test_layout(void) {
        static uint8_t buf[4096];
        struct image_spec s = with_json(buf, good_json, false);
        s.no_pt_note = true;
        EXPECT(&s, "no PT_NOTE", "not-in-pt-note");

        s = with_json(buf, good_json, false);
        s.no_load = true;
        EXPECT(&s, "no PT_LOAD", "not-loaded");

        s = with_json(buf, good_json, false);
        s.load_filesz = 0x100; /* ends where the notes begin */
        EXPECT(&s, "PT_LOAD short of the notes", "not-loaded");

        s = with_json(buf, good_json, false);
        s.notes_off = 0x1000;
        EXPECT(&s, "notes past the first page", "not-in-first-page");

        s = with_json(buf, good_json, false);
        s.notes_off = 0xf00; /* starts in the first page, ends past it */
        EXPECT(&s, "note across the page end", "not-in-first-page");

        /* 8-byte alignment: a reader padding to 8 would walk the package
         * note behind a 20-byte build-id from the wrong offset.  pkgnote
         * falls back to 4 (the region walks cleanly only so) but others
         * do not, so it stays an error. */
        s = with_json(buf, good_json, false);
        s.seg_align = 8;
        EXPECT(&s, "PT_NOTE aligned to 8", "misaligned");
        s.note_align = 8;
        EXPECT(&s, "PT_NOTE and section aligned to 8", "misaligned", "misaligned");

        s = with_json(buf, good_json, false);
        s.note_align = 16;
        EXPECT(&s, "PT_NOTE aligned to 16", "misaligned", "misaligned");

        s = with_json(buf, good_json, false);
        s.notes_off = 0x102;
        s.note_align = 1;
        EXPECT(&s, "note at an odd offset", "misaligned");

        size_t n = add_package(buf, 0, good_json, false);
        s = (struct image_spec){.type = ET_REL, .notes = buf, .notes_len = n, .sec_flags = (uint64_t)-1, .machine = 243};
        EXPECT(&s, "relocatable, not SHF_ALLOC", "not-loaded");
        s = (struct image_spec){.type = ET_REL, .notes = buf, .notes_len = n, .note_align = 1, .machine = 243};
        EXPECT(&s, "relocatable, section aligned to 1", "misaligned");

        s = (struct image_spec){.type = ET_REL, .notes = buf, .notes_len = n, .sec_type = SHT_PROGBITS};
        EXPECT(&s, "PROGBITS .note.package", "section-not-note", "no-package-note");

        s = (struct image_spec){.type = ET_CORE, .notes = buf, .notes_len = n};
        EXPECT(&s, "core file", "unsupported-type");

        /* No build-id in a linked object. */
        n = add_package(buf, 0, good_json, false);
        s = (struct image_spec){.notes = buf, .notes_len = n};
        EXPECT(&s, "no build-id", "no-build-id");
}

static void test_owner_type(void) {
        static uint8_t buf[4096];
        static const char json[16] = "{\"type\":\"deb\"}"; /* NUL-padded to 16 */
        size_t n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "XYZ", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, json, 16, false);
        struct image_spec s = {.notes = buf, .notes_len = n, .split = ID_LEN};
        EXPECT(&s, "owner XYZ", "bad-owner", "no-package-note");

        n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 3, PKGNOTE_NT_FDO_PACKAGING_METADATA, json, 16, false);
        s.notes_len = n;
        EXPECT(&s, "owner without NUL", "bad-owner", "no-package-note");

        n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 4, 0xcafe1a7f, json, 16, false);
        s.notes_len = n;
        EXPECT(&s, "FDO, unknown type", "bad-type", "no-package-note");

        n = add_build_id(buf, 0, false);
        s.notes_len = n;
        s.split = 0;
        EXPECT(&s, "only a build-id in .note.package", "unexpected-note", "no-package-note");
        s.split = ID_LEN;

        n = add_build_id(buf, 0, false);
        n = add_package(buf, n, good_json, false);
        n = add_package(buf, n, good_json, false);
        s.notes_len = n;
        EXPECT(&s, "identical notes", "duplicate-note");

        n = add_build_id(buf, 0, false);
        n = add_package(buf, n, good_json, false);
        n = add_package(buf, n, "{\"type\":\"deb\",\"name\":\"other\"}", false);
        s.notes_len = n;
        EXPECT(&s, "differing notes", "multiple-notes");

        /* The second, differing note is checked too. */
        n = add_build_id(buf, 0, false);
        n = add_package(buf, n, good_json, false);
        n = add_package(buf, n, "{\"type\":1}", false);
        s.notes_len = n;
        EXPECT(&s, "differing notes, second bad", "multiple-notes", "not-string");

        /* A descriptor size that runs past the region. */
        n = add_build_id(buf, 0, false);
        size_t at = n;
        n = add_package(buf, n, good_json, false);
        wr(buf + at + 4, 0x10000, 4, false);
        s.notes_len = n;
        EXPECT(&s, "descsz past the end", "malformed-note", "malformed-note", "no-package-note");
}

static void test_descriptor(void) {
        static uint8_t buf[8192];
        static const struct {
                const char *json;
                const char *ids[4];
        } cases[] = {
                {"{\"type\":\"deb\",}", {"bad-json"}},
                {"", {"bad-json"}},
                {"[{\"type\":\"deb\"}]", {"json-not-object"}},
                {"\"deb\"", {"json-not-object"}},
                {"42", {"json-not-object"}},
                {"{\"name\":\"a\",\"name\":\"b\"}", {"duplicate-key"}},
                {"{\"x\":{\"a\":1,\"a\":2}}", {"duplicate-key"}},
                {"{\"name\":\"a\x01\"}", {"control-character"}},
                {"{\"name\":\"a\x7f\"}", {"control-character"}},
                {"{\"name\":\"a\xc2\x85\"}", {"control-character"}},
                {"{\"name\":\"a\\u0001\"}", {"unicode-escape", "control-character"}},
                {"{\"na\\u0001me\":\"x\"}", {"unicode-escape", "control-character"}},
                {"{\"x\":[\"\\u0007\"]}", {"unicode-escape", "control-character"}},
                {"{\"name\":\"caf\\u00e9\"}", {"unicode-escape"}},
                {"{\"name\":\"caf\xc3\xa9\"}", {NULL}},
                {"{\"name\":\"\xff\"}", {"bad-utf8"}},
                {"{\"name\":\"\xc3\"}", {"bad-utf8"}},
                {"{\"name\":\"\xed\xa0\x80\"}", {"bad-utf8"}},
                {"{\"name\":1}", {"not-string"}},
                {"{\"version\":[\"1\"]}", {"not-string"}},
                {"{\"osCpe\":null}", {"not-string"}},
                {"{\"name\":\"\"}", {"empty-value"}},
                {"{\"osCpe\":\"cpe:/o:fedora project:fedora:40\"}", {"bad-cpe"}},
                {"{\"appCpe\":\"cpe:2.3:a:gnu:coreutils:9.4:*:*:*:*:*:*:*:*\"}", {"bad-cpe"}},
                {"{\"appCpe\":\"gnu coreutils\"}", {"bad-cpe"}},
                {"{\"osCpe\":\"cpe:2.3:o:fedoraproject:fedora:33\"}", {"short-cpe"}},
                {"{\"osCpe\":\"cpe:2.3:a:gnu:coreutils:9.4:*:*:*:*:*:*:*\"}", {"cpe-part"}},
                {"{\"appCpe\":\"cpe:/o:fedoraproject:fedora:40\"}", {"cpe-part"}},
                {"{\"appCpe\":\"cpe:2.3:*:gnu:coreutils:9.4:*:*:*:*:*:*:*\"}", {NULL}},
                {"{\"type\":\"RPM\"}", {"unknown-type"}},
                {"{\"type\":\"debian\"}", {"unknown-type"}},
                {"{\"os\":\"Debian\"}", {"bad-os-release"}},
                {"{\"os\":\"red hat\"}", {"bad-os-release"}},
                {"{\"osVersion\":\"12 (bookworm)\"}", {"bad-os-release"}},
                {"{\"osVersion\":\"24.04\",\"os\":\"ubuntu\"}", {NULL}},
                {"{\"debugInfoUrl\":\"debuginfod.example.org\"}", {"bad-url"}},
                {"{\"debugInfoUrl\":\"https://\"}", {"bad-url"}},
                {"{\"debugInfoUrl\":\"http://debuginfod.example.org\"}", {NULL}},
                {"{\"os_version\":\"40\"}", {"misspelled-key"}},
                {"{\"OSCPE\":\"cpe:/o:a:b\"}", {"misspelled-key"}},
                {"{\"debuginfo-url\":\"x\"}", {"misspelled-key"}},
                {"{\"Name\":\"x\",\"name\":\"x\"}", {"misspelled-key"}},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                size_t n = add_build_id(buf, 0, false);
                n = add_package(buf, n, cases[i].json, false);
                struct image_spec s = {.notes = buf, .notes_len = n, .split = ID_LEN};
                struct image im = build_image(&s);
                struct findings fs;
                int r = lint_image(&im, &fs);
                size_t want = 0;
                for (; want < ELEMENTSOF(cases[i].ids) && cases[i].ids[want]; want++)
                        CHECK(has(&fs, cases[i].ids[want]), "%s: want %s, got:\n%s", cases[i].json, cases[i].ids[want],
                              fs.all);
                CHECK(fs.n == want, "%s: %zu findings, want %zu:\n%s", cases[i].json, fs.n, want, fs.all);
                CHECK(r >= 0, "%s: lint failed: %d", cases[i].json, r);
                free(im.data);
        }

        /* No NUL: descsz covers the text only. */
        static const char text[] = "{\"type\":\"deb\"}";
        size_t n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, text, strlen(text), false);
        struct image_spec s = {.notes = buf, .notes_len = n, .split = ID_LEN};
        EXPECT(&s, "no NUL", "no-nul");

        n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, "", 0, false);
        s.notes_len = n;
        EXPECT(&s, "empty descriptor", "no-nul");

        n = add_build_id(buf, 0, false);
        n = add_note(buf, n, "FDO", 4, PKGNOTE_NT_FDO_PACKAGING_METADATA, "{}\0x", 4, false);
        s.notes_len = n;
        EXPECT(&s, "bytes after the NUL", "trailing-data");

        /* Over 1 KiB, still within the first page. */
        char big[1600];
        snprintf(big, sizeof big, "{\"type\":\"deb\",\"description\":\"%01500d\"}", 0);
        n = add_build_id(buf, 0, false);
        n = add_package(buf, n, big, false);
        s.notes_len = n;
        EXPECT(&s, "large note", "large-note");

        /* Deeper than the reader's nesting limit. */
        char deep[256];
        size_t d = 0;
        deep[d++] = '{';
        memcpy(deep + d, "\"a\":", 4), d += 4;
        for (unsigned i = 0; i < PKGNOTE_MAX_JSON_DEPTH + 2; i++)
                deep[d++] = '[';
        for (unsigned i = 0; i < PKGNOTE_MAX_JSON_DEPTH + 2; i++)
                deep[d++] = ']';
        deep[d++] = '}';
        deep[d] = 0;
        n = add_build_id(buf, 0, false);
        n = add_package(buf, n, deep, false);
        s.notes_len = n;
        EXPECT(&s, "too deep", "too-large");
}

/* Every prefix of a valid object: lint must fail cleanly or report, never
 * read out of bounds (run under the sanitizers). */
static void test_truncated(void) {
        static uint8_t buf[4096];
        struct image_spec s = with_json(buf, good_json, false);
        struct image im = build_image(&s);
        for (size_t len = 0; len <= im.len; len++) {
                uint8_t *copy = malloc(len ? len : 1);
                if (!copy)
                        abort();
                memcpy(copy, im.data, len);
                pkgnote_object *e;
                if (pkgnote_object_from_memory(copy, len, &e) == 0) {
                        int r = pkgnote_lint(e, NULL, NULL);
                        CHECK(r >= 0, "prefix of %zu bytes: lint returned %d", len, r);
                        CHECK(len == im.len || r > 0, "prefix of %zu bytes of %zu: no error found", len, im.len);
                        pkgnote_object_free(e);
                }
                free(copy);
        }
        free(im.data);
}

static void test_table(void) {
        const pkgnote_lint_check *c, *d;
        size_t n = 0;
        for (size_t i = 0; (c = pkgnote_lint_check_get(i)); i++, n++) {
                CHECK(c->id && *c->id && strspn(c->id, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(c->id),
                      "check %zu has a bad id", i);
                CHECK(pkgnote_lint_severity_name(c->severity), "check %s has a bad severity", c->id);
                CHECK(c->summary && *c->summary, "check %s has no summary", c->id);
                for (size_t j = 0; j < i; j++) {
                        d = pkgnote_lint_check_get(j);
                        CHECK(strcmp(c->id, d->id), "id %s twice", c->id);
                }
        }
        CHECK(n >= 30, "only %zu checks", n);
        CHECK(!strcmp(pkgnote_lint_severity_name(PKGNOTE_LINT_ERROR), "error"), "error name");
        CHECK(!strcmp(pkgnote_lint_severity_name(PKGNOTE_LINT_WARNING), "warning"), "warning name");
        CHECK(pkgnote_lint_severity_name(0) == NULL, "severity 0 has a name");
}

int main(void) {
        test_cpe();
        test_table();
        test_clean();
        test_layout();
        test_owner_type();
        test_descriptor();
        test_truncated();
        if (failures) {
                fprintf(stderr, "%d of %d checks failed\n", failures, checks_run);
                return 1;
        }
        printf("all %d checks passed\n", checks_run);
        return 0;
}
