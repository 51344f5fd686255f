/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ELF view, note walking and the object summary, over images built here. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pkgnote.h"
#include "01-base-problem.h"
#include "testlib.h"

#define JSON_DEB "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"hello\",\"version\":\"1.0-1\",\"architecture\":\"amd64\"}"
#define JSON_RPM "{\"type\":\"rpm\",\"name\":\"hello\",\"version\":\"2.0-3.fc40\",\"architecture\":\"x86_64\",\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\"}"

static uint8_t image[1 << 21];
static uint8_t blob_a[1 << 21], blob_b[4096];

static const uint8_t build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* A note region like a linker's: build-id then package note. */
static size_t std_region(uint8_t *out, bool be, const char *json, bool unpadded) {
        size_t n = mk_note(out, be, "GNU", 4, 3, build_id, sizeof build_id, sizeof build_id, 4);
        return n + mk_package_note(out + n, be, json, unpadded);
}

static size_t std_image(bool is64, bool be, bool no_sections, bool unpadded) {
        struct mk_spec s = {.is64 = is64, .be = be, .type = 3, .machine = is64 ? 62 : 3, .no_sections = no_sections};
        s.blobs[0] = (struct mk_blob){blob_a, std_region(blob_a, be, JSON_DEB, unpadded), 4, true, true, ".note.package"};
        s.n_blobs = 1;
        return mk_elf(&s, image, sizeof image);
}

static void test_classes_and_orders(void) {
        for (int v = 0; v < 8; v++) {
                bool is64 = v & 1, be = v & 2, unpadded = v & 4;
                size_t len = std_image(is64, be, false, unpadded);
                CHECK(len > 0);
                pkgnote_object *e;
                CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
                CHECK_INT(pkgnote_object_class(e), is64 ? 64 : 32);
                CHECK_INT(pkgnote_object_big_endian(e), be);
                CHECK_INT(pkgnote_object_type(e), 3);
                CHECK_INT(pkgnote_object_machine(e), is64 ? 62 : 3);
                /* Segment and section cover the same two notes: each once. */
                CHECK_INT(pkgnote_object_note_count(e), 2);
                CHECK(pkgnote_object_note(e, 0)->where & PKGNOTE_NOTE_IN_SEGMENT);
                CHECK(pkgnote_object_note(e, 0)->where & PKGNOTE_NOTE_IN_SECTION);
                CHECK(pkgnote_object_note(e, 1)->where & PKGNOTE_NOTE_FIRST_PAGE);
                CHECK_STR(pkgnote_object_note(e, 1)->section, ".note.package");
                CHECK(pkgnote_note_is(pkgnote_object_note(e, 1), "FDO", PKGNOTE_NT_FDO_PACKAGING_METADATA));
                CHECK(!pkgnote_note_is(pkgnote_object_note(e, 1), "FD", PKGNOTE_NT_FDO_PACKAGING_METADATA));
                const char *json;
                size_t jl;
                CHECK_INT(pkgnote_note_json(pkgnote_object_note(e, 1), &json, &jl), 0);
                CHECK_INT(jl, strlen(JSON_DEB));
                pkgnote_info *info;
                CHECK_INT(pkgnote_info_read(e, &info), 0);
                CHECK_STR(pkgnote_info_build_id(info), "deadbeef0102030405060708090a0b0c0d0e0f10");
                CHECK_INT(pkgnote_info_package_count(info), 1);
                CHECK_STR(pkgnote_info_package_json(info, 0), JSON_DEB);
                CHECK_STR(pkgnote_metadata_version(pkgnote_info_package(info, 0)), "1.0-1");
                CHECK_INT(pkgnote_info_problem_count(info), 0);
                pkgnote_info_free(info);
                pkgnote_object_free(e);
        }
}

static void test_stripped_sections(void) {
        size_t len = std_image(true, false, true, false);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
        CHECK_INT(pkgnote_object_shdr_count(e), 0);
        CHECK_INT(pkgnote_object_note_count(e), 2);
        CHECK(pkgnote_object_note(e, 1)->section == NULL);
        CHECK_INT(pkgnote_object_note(e, 1)->where & PKGNOTE_NOTE_IN_SECTION, 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_STR(pkgnote_metadata_name(pkgnote_info_package(info, 0)), "hello");
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

static void test_section_only(void) {
        /* A relocatable object: notes only in sections, no segments. */
        struct mk_spec s = {.is64 = true, .type = 1, .machine = 183, .no_load = true};
        s.blobs[0] = (struct mk_blob){blob_a, mk_package_note(blob_a, false, JSON_RPM, false), 4, false, true, ".note.package"};
        s.n_blobs = 1;
        size_t len = mk_elf(&s, image, sizeof image);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
        CHECK_INT(pkgnote_object_note_count(e), 1);
        CHECK_INT(pkgnote_object_note(e, 0)->where, PKGNOTE_NOTE_IN_SECTION);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_STR(pkgnote_metadata_os_cpe(pkgnote_info_package(info, 0)), "cpe:/o:fedoraproject:fedora:40");
        CHECK(pkgnote_info_build_id(info) == NULL);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

static void test_align8(void) {
        /* An 8-aligned region (as GNU property notes use): the name and
         * descriptor are padded to 8. */
        uint8_t prop[16] = {2, 0, 0, 0xc0, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
        size_t n1 = mk_note(blob_a, false, "GNU", 4, 5, prop, sizeof prop, sizeof prop, 8);
        const char *json = "{\"name\":\"eight\"}"; /* 16 bytes + NUL: padding differs */
        size_t n2 = mk_note(blob_a + n1, false, "FDO", 4, 0xcafe1a7e, json, strlen(json) + 1,
                            (uint32_t)strlen(json) + 1, 8);
        struct mk_spec s = {.is64 = true, .type = 2, .machine = 62};
        s.blobs[0] = (struct mk_blob){blob_a, n1 + n2, 8, true, true, ".note.gnu.property"};
        s.n_blobs = 1;
        size_t len = mk_elf(&s, image, sizeof image);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
        CHECK_INT(pkgnote_object_note_count(e), 2);
        CHECK_INT(pkgnote_object_note(e, 0)->align, 8);
        CHECK_INT(pkgnote_object_note(e, 1)->type, 0xcafe1a7e);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_STR(pkgnote_metadata_name(pkgnote_info_package(info, 0)), "eight");
        CHECK_INT(pkgnote_object_problem_count(e), 0);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

/* Regression: an 8-aligned PT_NOTE whose last note ends 4 bytes short of
 * an 8-byte boundary made the alignment probe read past the segment (the
 * fuzzer found it; the sanitizer build catches the over-read here, as the
 * segment ends the buffer). */
static void test_align8_short_end(void) {
        size_t n = mk_note(blob_a, false, "FDO", 4, 0xcafe1a7e, "{}\0", 4, 4, 4); /* 20 bytes */
        struct mk_spec s = {.is64 = true, .type = 2, .machine = 62, .no_sections = true};
        s.blobs[0] = (struct mk_blob){blob_a, n, 8, true, false, NULL};
        s.n_blobs = 1;
        size_t len = mk_elf(&s, image, sizeof image);
        uint8_t *exact = malloc(len);
        memcpy(exact, image, len);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(exact, len, &e), 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_INT(pkgnote_info_package_count(info), 1);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        free(exact);
}

static void test_xnum(void) {
        for (int stripped = 0; stripped < 2; stripped++) {
                struct mk_spec s = {.is64 = true, .type = 2, .machine = 62, .xnum = true, .no_sections = stripped};
                s.blobs[0] = (struct mk_blob){blob_a, mk_package_note(blob_a, false, JSON_DEB, false), 4, true, true, ".note.package"};
                s.n_blobs = 1;
                size_t len = mk_elf(&s, image, sizeof image);
                pkgnote_object *e;
                CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
                CHECK_INT(pkgnote_object_phdr_count(e), 2);
                CHECK_INT(pkgnote_object_note_count(e), 1);
                CHECK(pkgnote_object_note(e, 0)->where & PKGNOTE_NOTE_LOADED);
                pkgnote_object_free(e);
        }
}

/* An x86-64 shared object of two note blobs: blob_a (A bytes, in a
 * PT_NOTE and section NAME_A) and blob_b (B bytes, section NAME_B, in a
 * PT_NOTE when B_SEGMENT); its summary, and its view in *E. */
static pkgnote_info *read_two_blobs(size_t a, const char *name_a, size_t b, bool b_segment, const char *name_b,
                                    pkgnote_object **e) {
        struct mk_spec s = {.is64 = true, .type = 3, .machine = 62};
        s.blobs[0] = (struct mk_blob){blob_a, a, 4, true, true, name_a};
        s.blobs[1] = (struct mk_blob){blob_b, b, 4, b_segment, true, name_b};
        s.n_blobs = 2;
        size_t len = mk_elf(&s, image, sizeof image);
        pkgnote_info *info = NULL;
        CHECK_INT(pkgnote_object_from_memory(image, len, e), 0);
        CHECK_INT(pkgnote_info_read(*e, &info), 0);
        return info;
}

static void test_several_notes(void) {
        /* Two identical notes are one package; a different third is another,
         * after the primary (first in file order). */
        size_t a = mk_package_note(blob_a, false, JSON_DEB, false);
        a += mk_package_note(blob_a + a, false, JSON_DEB, true);
        size_t b = mk_package_note(blob_b, false, JSON_RPM, false);
        pkgnote_object *e;
        pkgnote_info *info = read_two_blobs(a, ".note.package", b, false, ".note.package.extra", &e);
        CHECK_INT(pkgnote_info_package_note_count(info), 3);
        CHECK_INT(pkgnote_info_package_count(info), 2);
        CHECK_STR(pkgnote_metadata_type(pkgnote_info_package(info, 0)), "deb");
        CHECK_STR(pkgnote_metadata_type(pkgnote_info_package(info, 1)), "rpm");
        CHECK_INT(pkgnote_info_package_note(info, 1)->where, PKGNOTE_NOTE_IN_SECTION);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

static void test_dlopen(void) {
        const char *j = "[{\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"],\"feature\":\"foo\",\"priority\":\"recommended\"}]";
        size_t n = mk_note(blob_a, true, "FDO", 4, 0x407c0c0a, j, strlen(j) + 1, (uint32_t)strlen(j) + 1, 4);
        struct mk_spec s = {.is64 = false, .be = true, .type = 3, .machine = 22};
        s.blobs[0] = (struct mk_blob){blob_a, n, 4, true, true, ".note.dlopen"};
        s.n_blobs = 1;
        size_t len = mk_elf(&s, image, sizeof image);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(image, len, &e), 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_INT(pkgnote_info_package_count(info), 0);
        CHECK_INT(pkgnote_info_dlopen_count(info), 1);
        const pkgnote_dlopen *d = pkgnote_info_dlopen(info, 0);
        CHECK_INT(pkgnote_dlopen_count(d), 1);
        CHECK_INT(pkgnote_dlopen_soname_count(d, 0), 2);
        CHECK_STR(pkgnote_dlopen_soname(d, 0, 1), "libfoo.so.0");
        CHECK_STR(pkgnote_dlopen_get(d, 0, "priority"), "recommended");
        CHECK(pkgnote_dlopen_get(d, 0, "description") == NULL);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

/* The file's JSON report: the package note as stored (escapes and all),
 * the dlopen entries, the path written as the pkgnote command writes it. */
static void test_json(void) {
        const char *pkg = "{\"name\":\"caf\\u00e9\\/x\",\"k\":\"a\\u001B\\n\"}";
        const char *dl = "[{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\",\"priority\":\"suggested\"}]";
        size_t n = std_region(blob_a, false, pkg, false);
        size_t m = mk_note(blob_b, false, "FDO", 4, 0x407c0c0a, dl, strlen(dl) + 1, (uint32_t)strlen(dl) + 1, 4);
        pkgnote_object *e;
        pkgnote_info *info = read_two_blobs(n, ".note.package", m, true, ".note.dlopen", &e);
        char *j = NULL;
        CHECK_INT(pkgnote_info_to_json(info, e, "d/p\x1b\xff\xc2\x9b\t\"", &j), 0);
        CHECK_STR(j, "{\"path\":\"d/p\\u001b\\\\xff\\u009b\\u0009\\\"\",\"elfType\":\"shared object\",\"elfClass\":64,"
                     "\"byteOrder\":\"little\",\"architecture\":\"x86-64\",\"machine\":62,"
                     "\"buildId\":\"deadbeef0102030405060708090a0b0c0d0e0f10\",\"packages\":[{\"name\":\"caf\\u00e9\\/x\","
                     "\"k\":\"a\\u001B\\n\"}],\"dlopen\":[{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\","
                     "\"priority\":\"suggested\"}]}");
        free(j);
        j = NULL;
        CHECK_INT(pkgnote_info_to_json(info, NULL, "p", &j), 0);
        CHECK(j && !strncmp(j, "{\"path\":\"p\",\"buildId\":", 21));
        free(j);
        CHECK_STR(pkgnote_object_kind(e), "shared object");
        pkgnote_info_free(info);
        pkgnote_object_free(e);
}

/* Builds an image whose only note region is REGION, reads it, and returns
 * the first problem's errno with its message in MSG. */
static int problem_of(const uint8_t *region, size_t len, char *msg, size_t msg_len) {
        struct mk_spec s = {.is64 = true, .type = 2, .machine = 62};
        s.blobs[0] = (struct mk_blob){region, len, 4, true, true, ".note.package"};
        s.n_blobs = 1;
        size_t total = mk_elf(&s, image, sizeof image);
        pkgnote_object *e;
        int r = pkgnote_object_from_memory(image, total, &e);
        if (r < 0)
                return r;
        pkgnote_info *info;
        r = pkgnote_info_read(e, &info);
        if (r >= 0) {
                const pkgnote_problem *p = pkgnote_info_problem(info, 0);
                snprintf(msg, msg_len, "%s", p ? p->message : "");
                r = p ? p->error : 0;
                pkgnote_info_free(info);
        }
        pkgnote_object_free(e);
        return r;
}

#define CHECK_PROBLEM(region, len, err, needle)                                          \
        do {                                                                              \
                char _m[256] = "";                                                        \
                CHECK_INT(problem_of(region, len, _m, sizeof _m), err);                   \
                if (!strstr(_m, needle)) {                                                \
                        test_failures++;                                                  \
                        fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, _m, needle); \
                }                                                                         \
        } while (0)

static void test_malformed(void) {
        uint8_t *b = blob_a;
        size_t n;
        const char *j = "{\"a\":\"b\"}";

        /* descsz past the end of the region */
        n = mk_note(b, false, "FDO", 4, 0xcafe1a7e, j, strlen(j) + 1, 4000, 4);
        CHECK_PROBLEM(b, n, -EBADMSG, "descriptor size 4000 runs past");
        /* namesz huge */
        n = mk_note(b, false, "FDO", 0xfffffff0u, 0xcafe1a7e, j, 0, 0, 4);
        CHECK_PROBLEM(b, 16, -EBADMSG, "name size 4294967280 runs past");
        /* stray bytes after the last note (misaligned region) */
        n = mk_package_note(b, false, j, false);
        b[n] = 1, b[n + 1] = 2, b[n + 2] = 3;
        CHECK_PROBLEM(b, n + 3, -EBADMSG, "stray bytes");
        /* unterminated descriptor */
        n = mk_note(b, false, "FDO", 4, 0xcafe1a7e, j, strlen(j), (uint32_t)strlen(j), 4);
        CHECK_PROBLEM(b, n, -EBADMSG, "not NUL-terminated");
        /* bytes after the NUL */
        n = mk_note(b, false, "FDO", 4, 0xcafe1a7e, "{}\0x", 4, 4, 4);
        CHECK_PROBLEM(b, n, -EBADMSG, "after its terminating NUL");
        /* invalid UTF-8 */
        n = mk_package_note(b, false, "{\"name\":\"caf\xe9\"}", false);
        CHECK_PROBLEM(b, n, -EBADMSG, "UTF-8");
        /* over-deep nesting */
        char deep[200] = "{\"a\":";
        for (int i = 0; i < 40; i++)
                strcat(deep, "[");
        for (int i = 0; i < 40; i++)
                strcat(deep, "]");
        strcat(deep, "}");
        n = mk_package_note(b, false, deep, false);
        CHECK_PROBLEM(b, n, -E2BIG, "nested 41 levels");
        /* duplicate keys */
        n = mk_package_note(b, false, "{\"name\":\"a\",\"name\":\"b\"}", false);
        CHECK_PROBLEM(b, n, -EBADMSG, "duplicate");
        /* an array where an object belongs */
        n = mk_package_note(b, false, "[\"name\"]", false);
        CHECK_PROBLEM(b, n, -EBADMSG, "not an object");
        /* not JSON */
        n = mk_package_note(b, false, "name=hello", false);
        CHECK_PROBLEM(b, n, -EBADMSG, "invalid JSON");
        /* 1 MiB of JSON */
        static char big[(1 << 20) + 64];
        strcpy(big, "{\"name\":\"");
        memset(big + 9, 'x', 1 << 20);
        strcpy(big + 9 + (1 << 20), "\"}");
        n = mk_package_note(b, false, big, false);
        CHECK_PROBLEM(b, n, -E2BIG, "more than the limit");
}

/* Every truncated prefix of every fixture must fail to open or report a
 * problem; none may crash (the sanitizer build checks the reads). */
static void test_truncated_prefixes(void) {
        for (int v = 0; v < 8; v++) {
                size_t len = std_image(v & 1, v & 2, v & 4, false);
                uint8_t *copy = malloc(len);
                memcpy(copy, image, len);
                for (size_t cut = 0; cut < len; cut++) {
                        /* A fresh allocation of exactly CUT bytes, so that any
                         * read past it is caught by the address sanitizer. */
                        uint8_t *p = malloc(cut ? cut : 1);
                        memcpy(p, copy, cut);
                        pkgnote_object *e;
                        int r = pkgnote_object_from_memory(p, cut, &e);
                        if (r >= 0) {
                                pkgnote_info *info;
                                r = pkgnote_info_read(e, &info);
                                if (r >= 0) {
                                        bool bad = pkgnote_info_problem_count(info) > 0;
                                        if (!bad)
                                                fprintf(stderr, "variant %d cut at %zu: no error\n", v, cut);
                                        CHECK(bad);
                                        pkgnote_info_free(info);
                                }
                                pkgnote_object_free(e);
                        } else
                                CHECK(r == -ENOEXEC || r == -EBADMSG);
                        free(p);
                }
                free(copy);
        }
}

static void test_files(void) {
        size_t len = std_image(true, false, false, false);
        char path[] = "/tmp/pkgnote-test-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        CHECK_INT(write(fd, image, len), (long long)len);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_open(path, &e), 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_STR(pkgnote_metadata_name(pkgnote_info_package(info, 0)), "hello");
        pkgnote_info_free(info);
        pkgnote_object_free(e);

        /* Through a pipe: read whole, same result. */
        int p[2];
        CHECK_INT(pipe(p), 0);
        CHECK_INT(write(p[1], image, len), (long long)len);
        close(p[1]);
        CHECK_INT(pkgnote_object_open_fd(p[0], &e), 0);
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_STR(pkgnote_info_build_id(info), "deadbeef0102030405060708090a0b0c0d0e0f10");
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        close(p[0]);

        CHECK_INT(pkgnote_object_open("/nonexistent/pkgnote", &e), -ENOENT);
        CHECK_INT(pkgnote_object_open("/tmp", &e), -EISDIR);
        CHECK_INT(ftruncate(fd, 10), 0);
        CHECK_INT(pkgnote_object_open(path, &e), -ENOEXEC);
        CHECK_STR(pkgnote_last_error(), "not an ELF file");
        close(fd);
        unlink(path);
}

static void test_encode(void) {
        uint8_t *b;
        size_t n;
        CHECK_INT(pkgnote_package_note_encode("{\"a\":\"b\"}", 0, &b, &n), 0);
        /* 12 header + "FDO\0" + 9 bytes JSON + NUL padded to 12 */
        CHECK_INT(n, 12 + 4 + 12);
        CHECK_INT(b[4], 12); /* descsz: padded, as ld.bfd writes it */
        CHECK_INT(b[8], 0x7e);
        CHECK(memcmp(b + 12, "FDO", 4) == 0);
        free(b);
        CHECK_INT(pkgnote_package_note_encode("{}", 1, &b, &n), 0);
        CHECK_INT(b[7], 4);
        CHECK_INT(b[8], 0xca);
        free(b);
}

/* Every problem list (views, summaries, cores, scans) is one bounded
 * shape: past its limit nothing grows, and the last entry says that more
 * were met (-E2BIG), once. */
static void test_problem_list_bounded(void) {
        struct pn_problems l = {0};
        for (int i = 0; i < 3 * (int)PKGNOTE_MAX_PROBLEMS; i++)
                CHECK_INT(pn_problems_add(&l, PKGNOTE_MAX_PROBLEMS, -EBADMSG, i % 2 ? "p" : NULL, "bad %d", i), 0);
        CHECK_INT(l.n, PKGNOTE_MAX_PROBLEMS);
        const pkgnote_problem *first = pn_problems_get(&l, 0);
        const pkgnote_problem *last = pn_problems_get(&l, PKGNOTE_MAX_PROBLEMS - 1);
        CHECK(first && !first->path && first->error == -EBADMSG);
        CHECK_STR(first ? first->message : NULL, "bad 0");
        CHECK(pn_problems_get(&l, 1) && pn_problems_get(&l, 1)->path && !strcmp(pn_problems_get(&l, 1)->path, "p"));
        CHECK(last && last->error == -E2BIG && !last->path);
        CHECK_STR(last ? last->message : NULL, "more problems, not listed");
        CHECK(pn_problems_get(&l, PKGNOTE_MAX_PROBLEMS) == NULL);
        struct pn_problems copy = {0};
        CHECK_INT(pn_problems_append(&copy, PKGNOTE_MAX_PROBLEMS, &l), 0);
        CHECK_INT(copy.n, l.n);
        pn_problems_clear(&l);
        CHECK_STR(pn_problems_get(&copy, 0)->message, "bad 0"); /* the copy owns its strings */
        pn_problems_clear(&copy);
}

/* A sparse file whose PT_NOTE, inside the file, spans 64 GiB: refused as
 * over PKGNOTE_MAX_RANGE, a problem of the object, which is otherwise read
 * (it made a whole scan fail for want of memory). */
static void test_huge_note_region(void) {
        char path[] = "/tmp/pkgnote-test-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        uint8_t h[64 + 56] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
        const uint64_t size = 64ull << 30;
        h[16] = 3, h[18] = 62, h[20] = 1;             /* ET_DYN, x86-64, EV_CURRENT */
        h[32] = 64;                                    /* e_phoff */
        h[52] = 64, h[54] = 56, h[56] = 1;             /* e_ehsize, e_phentsize, e_phnum */
        uint8_t *ph = h + 64;
        ph[0] = 4, ph[4] = 4;                          /* PT_NOTE, PF_R */
        for (int i = 0; i < 8; i++) {
                ph[8 + i] = (uint8_t)(0x1000ull >> (8 * i));            /* p_offset */
                ph[32 + i] = (uint8_t)((size - 0x1000) >> (8 * i));     /* p_filesz */
                ph[40 + i] = (uint8_t)((size - 0x1000) >> (8 * i));     /* p_memsz */
        }
        ph[48] = 4;                                    /* p_align */
        CHECK_INT(write(fd, h, sizeof h), (long long)sizeof h);
        if (ftruncate(fd, (off_t)size) < 0) {
                printf("# cannot make a sparse file of 64 GiB here: %s\n", strerror(errno));
                close(fd);
                unlink(path);
                return;
        }
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_open(path, &e), 0);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK_INT(pkgnote_info_package_count(info), 0);
        CHECK_INT(pkgnote_info_problem_count(info), 1);
        if (pkgnote_info_problem_count(info) == 1) {
                CHECK_INT(pkgnote_info_problem(info, 0)->error, -E2BIG);
                CHECK(strstr(pkgnote_info_problem(info, 0)->message, "read at once") != NULL);
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        close(fd);
        unlink(path);
}

int main(void) {
        RUN(test_classes_and_orders);
        RUN(test_stripped_sections);
        RUN(test_section_only);
        RUN(test_align8);
        RUN(test_align8_short_end);
        RUN(test_xnum);
        RUN(test_several_notes);
        RUN(test_dlopen);
        RUN(test_json);
        RUN(test_malformed);
        RUN(test_truncated_prefixes);
        RUN(test_files);
        RUN(test_encode);
        RUN(test_problem_list_bounded);
        RUN(test_huge_note_region);
        return test_summary();
}
