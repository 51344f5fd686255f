/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cargo-auditable's crate lists (lib/03-model-crates.c): zlib streams
 * made here with zlib itself, parsed as auditable-serde parses them, in
 * ELF objects made here; and hostile input (wrong types, indices out of
 * range, cycles, several roots, over-long strings, too many packages, a
 * zlib bomb, truncated and damaged streams), which must fail cleanly with
 * the error the header names.
 *
 * Given files as arguments, it prints each one's list, one package a line
 * (tests/read/cmd-crates.sh compares that with the section's JSON decoded
 * by Python's zlib and json). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if HAVE_ZLIB
#include <zlib.h>
#endif

#include "01-base-decompress.h"
#include "03-model-crates.h"
#include "pkgnote.h"
#include "testlib.h"

#define REAL                                                                                                           \
        "{\"packages\":[{\"name\":\"autocfg\",\"version\":\"1.5.1\",\"source\":\"crates.io\",\"kind\":\"build\"},"     \
        "{\"name\":\"cfg-if\",\"version\":\"1.0.5\",\"source\":\"crates.io\"},"                                        \
        "{\"name\":\"demo\",\"version\":\"0.3.1\",\"source\":\"local\",\"dependencies\":[0,1,3,4],\"root\":true},"     \
        "{\"name\":\"helper\",\"version\":\"0.1.0\",\"source\":\"local\"},"                                            \
        "{\"name\":\"itoa\",\"version\":\"1.0.18\",\"source\":\"crates.io\"}],\"format\":1}"

static int parse(const char *json, struct pn_crates *c) {
        return pn_crates_parse((const uint8_t *)json, strlen(json), c);
}

static void test_parse(void) {
        struct pn_crates c;
        CHECK_INT(parse(REAL, &c), 0);
        CHECK_INT(c.n_crates, 5);
        CHECK_INT(c.format, 1);
        CHECK_INT(c.root, 2);
        CHECK_STR(c.crates[0].name, "autocfg");
        CHECK_INT(c.crates[0].kind, PN_CRATE_BUILD);
        CHECK_STR(c.crates[0].source, "crates.io");
        CHECK_INT(c.crates[0].source_kind, PN_CRATE_SOURCE_CRATES_IO);
        CHECK_INT(c.crates[1].kind, PN_CRATE_RUNTIME);
        CHECK_STR(c.crates[2].version, "0.3.1");
        CHECK_INT(c.crates[2].source_kind, PN_CRATE_SOURCE_LOCAL);
        CHECK(c.crates[2].root && !c.crates[0].root);
        CHECK_INT(c.crates[2].n_deps, 4);
        CHECK_INT(c.crates[2].deps[2], 3);
        CHECK_INT(c.crates[4].n_deps, 0);
        CHECK_STR(c.crates[4].version, "1.0.18");
        pn_crates_done(&c);

        /* other sources, no format, no root, unknown keys, pre-release and build metadata */
        CHECK_INT(parse("{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0-rc.1+g1.x\",\"source\":\"git\",\"x\":[1]},"
                        "{\"name\":\"b\",\"version\":\"0.0.0\",\"source\":\"registry\",\"dependencies\":[]},"
                        "{\"name\":\"c\",\"version\":\"2.1.0+b\",\"source\":\"svn\",\"kind\":\"runtime\",\"root\":false,"
                        "\"dependencies\":[0,1,0]}],\"future\":{}}",
                        &c),
                  0);
        CHECK_INT(c.format, 0);
        CHECK(c.root == SIZE_MAX);
        CHECK_INT(c.crates[0].source_kind, PN_CRATE_SOURCE_GIT);
        CHECK_INT(c.crates[1].source_kind, PN_CRATE_SOURCE_REGISTRY);
        CHECK_INT(c.crates[2].source_kind, PN_CRATE_SOURCE_OTHER);
        CHECK_STR(c.crates[2].source, "svn");
        CHECK_INT(c.crates[2].n_deps, 3);
        pn_crates_done(&c);

        CHECK_INT(parse("{\"packages\":[]}", &c), 0);
        CHECK_INT(c.n_crates, 0);
        pn_crates_done(&c);
        CHECK_STR(pn_crate_kind_name(PN_CRATE_BUILD), "build");
        CHECK_STR(pn_crate_kind_name(PN_CRATE_RUNTIME), "runtime");
}

#define P(x) "{\"packages\":[" x "]}"
#define A "{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"crates.io\""

static void test_hostile_json(void) {
        static const struct {
                const char *json;
                int err;
                const char *words;
        } cases[] = {
                {"[]", -EBADMSG, "not an object"},
                {"{}", -EBADMSG, "no \"packages\""},
                {"{\"packages\":{}}", -EBADMSG, "\"packages\" is not an array"},
                {P("1"), -EBADMSG, "package 0 is not an object"},
                {P("{\"version\":\"1.0.0\",\"source\":\"local\"}"), -EBADMSG, "has no \"name\""},
                {P("{\"name\":\"a\",\"source\":\"local\"}"), -EBADMSG, "has no \"version\""},
                {P("{\"name\":\"a\",\"version\":\"1.0.0\"}"), -EBADMSG, "has no \"source\""},
                {P("{\"name\":7,\"version\":\"1.0.0\",\"source\":\"local\"}"), -EBADMSG, "\"name\" is not a string"},
                {P("{\"name\":\"\",\"version\":\"1.0.0\",\"source\":\"local\"}"), -EBADMSG, "\"name\" is empty"},
                {P("{\"name\":\"a\\u0007\",\"version\":\"1.0.0\",\"source\":\"local\"}"), -EBADMSG, "control character"},
                {P("{\"name\":\"a\",\"version\":\"1.0\",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P("{\"name\":\"a\",\"version\":\"01.0.0\",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P("{\"name\":\"a\",\"version\":\"1.0.0-\",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P("{\"name\":\"a\",\"version\":\"1.0.0-01\",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P("{\"name\":\"a\",\"version\":\"1.0.0+a..b\",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P("{\"name\":\"a\",\"version\":\"1.0.0 \",\"source\":\"local\"}"), -EBADMSG, "not a semantic version"},
                {P(A ",\"kind\":\"dev\"}"), -EBADMSG, "unknown \"kind\""},
                {P(A ",\"kind\":1}"), -EBADMSG, "\"kind\" is not a string"},
                {P(A ",\"root\":1}"), -EBADMSG, "\"root\" is not a boolean"},
                {P(A ",\"dependencies\":0}"), -EBADMSG, "\"dependencies\" is not an array"},
                {P(A ",\"dependencies\":[\"1\"]}," A "}"), -EBADMSG, "dependency 0 is not an integer"},
                {P(A ",\"dependencies\":[1.0]}," A "}"), -EBADMSG, "dependency 0 is not an integer"},
                {P(A ",\"dependencies\":[-1]}"), -EBADMSG, "not the index of a package"},
                {P(A ",\"dependencies\":[1]}"), -EBADMSG, "not the index of a package (0 to 0)"},
                {P(A ",\"dependencies\":[18446744073709551615]}"), -EBADMSG, "invalid JSON"},
                {P(A ",\"dependencies\":[0]}"), -EBADMSG, "depends on itself"},
                {P(A ",\"dependencies\":[1]}," A ",\"dependencies\":[2]}," A ",\"dependencies\":[0]}"), -EBADMSG,
                 "form a cycle"},
                {P(A ",\"root\":true}," A ",\"root\":true}"), -EBADMSG, "more than one root package (0 and 1)"},
                {"{\"format\":-1,\"packages\":[]}", -EBADMSG, "\"format\" is not"},
                {"{\"format\":4294967296,\"packages\":[]}", -EBADMSG, "\"format\" is not"},
                {"{\"format\":\"1\",\"packages\":[]}", -EBADMSG, "\"format\" is not"},
                {"{\"packages\":[],\"packages\":[]}", -EBADMSG, "duplicate"},
                {P(A ",\"name\":\"b\"}"), -EBADMSG, "duplicate"},
                {"{\"packages\":[", -EBADMSG, "invalid JSON"},
                {"", -EBADMSG, "invalid JSON"},
                {"{\"packages\":[]} x", -EBADMSG, "invalid JSON"},
                {"{\"packages\":[\xff]}", -EBADMSG, "not valid UTF-8 at byte 13"},
                {"{\"a\":[[[[[[[[[[]]]]]]]]]],\"packages\":[]}", -EBADMSG, "nested 11 levels"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct pn_crates c;
                int r = parse(cases[i].json, &c);
                if (r != cases[i].err)
                        fprintf(stderr, "case %zu: %s\n", i, cases[i].json);
                CHECK_INT(r, cases[i].err);
                CHECK(strstr(pkgnote_last_error(), cases[i].words) != NULL);
                if (!strstr(pkgnote_last_error(), cases[i].words))
                        fprintf(stderr, "case %zu: error \"%s\", wanted \"%s\"\n", i, pkgnote_last_error(), cases[i].words);
                CHECK(c.n_crates == 0 && c.crates == NULL);
        }
        /* a NUL inside */
        struct pn_crates c;
        CHECK_INT(pn_crates_parse((const uint8_t *)"{\"packages\":[]}\0", 16, &c), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "NUL") != NULL);
}

/* A list of N packages, each depending on the one before it, or of one
 * package with a string of LEN bytes. */
static char *chain(size_t n) {
        size_t cap = 64 + n * 96;
        char *s = malloc(cap), *p = s;
        p += sprintf(p, "{\"packages\":[");
        for (size_t i = 0; i < n; i++) {
                p += sprintf(p, "%s{\"name\":\"c%zu\",\"version\":\"1.0.%zu\",\"source\":\"crates.io\"", i ? "," : "", i, i);
                if (i)
                        p += sprintf(p, ",\"dependencies\":[%zu]", i - 1);
                p += sprintf(p, "%s}", i + 1 == n ? ",\"root\":true" : "");
        }
        sprintf(p, "]}");
        return s;
}

static void test_limits(void) {
        struct pn_crates c;
        char *s = chain(PN_CRATES_MAX_CRATES);
        CHECK_INT(parse(s, &c), 0);
        CHECK_INT(c.n_crates, PN_CRATES_MAX_CRATES);
        CHECK_INT(c.root, PN_CRATES_MAX_CRATES - 1);
        pn_crates_done(&c);
        free(s);
        s = chain(PN_CRATES_MAX_CRATES + 1);
        CHECK_INT(parse(s, &c), -E2BIG);
        CHECK(strstr(pkgnote_last_error(), "65537 packages") != NULL);
        free(s);

        /* a string one byte over the limit, and one at it */
        size_t n = PN_CRATES_MAX_STRING;
        s = malloc(n + 128);
        for (int over = 0; over < 2; over++) {
                char *p = s + sprintf(s, "{\"packages\":[{\"name\":\"");
                memset(p, 'x', n + (size_t)over);
                sprintf(p + n + over, "\",\"version\":\"1.0.0\",\"source\":\"local\"}]}");
                CHECK_INT(parse(s, &c), over ? -E2BIG : 0);
                pn_crates_done(&c);
        }
        free(s);

        /* more dependency indices in all than the limit: 2 packages, the
         * first listing the second PN_CRATES_MAX_DEPS + 1 times */
        n = PN_CRATES_MAX_DEPS + 1;
        s = malloc(n * 2 + 256);
        char *p = s + sprintf(s, "{\"packages\":[" A ",\"dependencies\":[");
        for (size_t i = 0; i < n; i++)
                *p++ = '1', *p++ = i + 1 < n ? ',' : ']';
        sprintf(p, "}," A "}]}");
        CHECK_INT(parse(s, &c), -E2BIG);
        CHECK(strstr(pkgnote_last_error(), "dependencies in all") != NULL);
        free(s);

        CHECK_INT(pn_crates_parse((const uint8_t *)"{}", PN_CRATES_MAX_JSON + 1u, &c), -E2BIG);
}

#if HAVE_ZLIB
static uint8_t *deflate_all(const void *in, size_t n, size_t *zn) {
        uLongf cap = compressBound((uLong)n);
        uint8_t *z = malloc(cap);
        CHECK_INT(compress2(z, &cap, in, (uLong)n, 7), Z_OK);
        *zn = cap;
        return z;
}

/* {"packages":[]} with spaces before its last brace, to TOTAL bytes,
 * compressed as a stream without holding it whole. */
static uint8_t *spaces(uint64_t total, size_t *zn) {
        z_stream s = {0};
        CHECK_INT(deflateInit(&s, 9), Z_OK);
        size_t cap = (size_t)(total / 512) + 4096, got = 0;
        uint8_t *z = malloc(cap), chunk[1 << 16];
        memset(chunk, ' ', sizeof chunk);
        const char *head = "{\"packages\":[]";
        uint64_t left = total - strlen(head) - 1;
        int phase = 0;
        for (;;) {
                const uint8_t *in;
                size_t n;
                int flush = Z_NO_FLUSH;
                if (phase == 0)
                        in = (const uint8_t *)head, n = strlen(head), phase = 1;
                else if (left)
                        in = chunk, n = left < sizeof chunk ? (size_t)left : sizeof chunk, left -= n;
                else
                        in = (const uint8_t *)"}", n = 1, flush = Z_FINISH;
                s.next_in = (Bytef *)(uintptr_t)in, s.avail_in = (uInt)n;
                int r;
                do {
                        s.next_out = z + got, s.avail_out = (uInt)(cap - got);
                        r = deflate(&s, flush);
                        got = cap - s.avail_out;
                        CHECK(got < cap);
                } while (s.avail_in && r == Z_OK);
                if (flush == Z_FINISH) {
                        CHECK_INT(r, Z_STREAM_END);
                        break;
                }
        }
        deflateEnd(&s);
        *zn = got;
        return z;
}

static void test_zlib(void) {
        struct pn_crates c;
        size_t zn;
        uint8_t *z = deflate_all(REAL, strlen(REAL), &zn);
        CHECK_INT(pn_crates_decode(z, zn, &c), 0);
        CHECK_INT(c.n_crates, 5);
        CHECK_STR(c.crates[4].name, "itoa");
        pn_crates_done(&c);

        /* every truncated prefix fails as damaged, never as a list */
        for (size_t k = 0; k < zn; k++) {
                CHECK_INT(pn_crates_decode(z, k, &c), -EBADMSG);
                CHECK(c.crates == NULL);
        }
        CHECK(strstr(pkgnote_last_error(), "truncated") != NULL);
        /* a wrong checksum, a wrong header, trailing bytes */
        uint8_t *bad = malloc(zn + 4);
        memcpy(bad, z, zn);
        bad[zn - 1] ^= 1;
        CHECK_INT(pn_crates_decode(bad, zn, &c), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "damaged zlib stream") != NULL);
        memcpy(bad, z, zn);
        bad[0] = 0x1f, bad[1] = 0x8b; /* gzip is not zlib */
        CHECK_INT(pn_crates_decode(bad, zn, &c), -EBADMSG);
        memcpy(bad, z, zn);
        memcpy(bad + zn, "junk", 4);
        CHECK_INT(pn_crates_decode(bad, zn + 4, &c), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "trailing data") != NULL);
        free(bad);
        /* valid zlib, invalid JSON inside */
        free(z);
        z = deflate_all("{\"packages\":[}", 14, &zn);
        CHECK_INT(pn_crates_decode(z, zn, &c), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "invalid JSON") != NULL);
        free(z);
        CHECK_INT(pn_crates_decode((const uint8_t *)"", 0, &c), -EBADMSG);

        /* exactly the limit decompresses; one byte more does not */
        z = spaces(PN_CRATES_MAX_JSON, &zn);
        CHECK_INT(pn_crates_decode(z, zn, &c), 0);
        pn_crates_done(&c);
        free(z);
        z = spaces(PN_CRATES_MAX_JSON + 1u, &zn);
        CHECK_INT(pn_crates_decode(z, zn, &c), -E2BIG);
        CHECK(strstr(pkgnote_last_error(), "decompresses to more than") != NULL);
        free(z);
        /* a bomb: 1 GiB of spaces in about 1 MiB, stopped at the limit */
        z = spaces(1ull << 30, &zn);
        CHECK(zn < PN_CRATES_MAX_SECTION);
        uint8_t *json = NULL;
        size_t len = 0;
        CHECK_INT(pn_crates_inflate(z, zn, &json, &len), -E2BIG);
        CHECK(json == NULL);
        free(z);
        /* a section over its own limit is refused before inflating */
        CHECK_INT(pn_crates_inflate((const uint8_t *)"", PN_CRATES_MAX_SECTION + 1u, &json, &len), -E2BIG);
}

/* The list in a ".dep-v0" section of an ELF object. */
static void test_elf(void) {
        static uint8_t img[1 << 16];
        size_t zn;
        uint8_t *z = deflate_all(REAL, strlen(REAL), &zn);
        for (int shape = 0; shape < 4; shape++) {
                struct mk_spec s = {.is64 = shape != 1, .be = shape == 2, .type = 2, .machine = 62};
                s.blobs[0] = (struct mk_blob){.data = z, .len = zn, .align = 4, .section = true,
                                              .name = shape == 3 ? ".dep-v1" : PN_CRATES_SECTION};
                s.n_blobs = 1;
                size_t n = mk_elf(&s, img, sizeof img);
                CHECK(n > 0);
                pkgnote_object *e;
                CHECK_INT(pkgnote_object_from_memory(img, n, &e), 0);
                struct pn_crates c;
                CHECK_INT(pn_crates_read(e, &c), shape == 3 ? 0 : 1);
                CHECK_INT(c.n_crates, shape == 3 ? 0 : 5);
                pn_crates_done(&c);
                pkgnote_object_free(e);
        }
        /* stripped section headers: the section (in no segment) is gone */
        struct mk_spec s = {.is64 = true, .type = 2, .machine = 62, .no_sections = true};
        s.blobs[0] = (struct mk_blob){.data = z, .len = zn, .align = 4, .section = true, .name = PN_CRATES_SECTION};
        s.n_blobs = 1;
        size_t n = mk_elf(&s, img, sizeof img);
        pkgnote_object *e;
        CHECK_INT(pkgnote_object_from_memory(img, n, &e), 0);
        struct pn_crates c;
        CHECK_INT(pn_crates_read(e, &c), 0);
        pkgnote_object_free(e);
        /* a damaged stream in the section */
        z[zn / 2] ^= 0x55;
        s.no_sections = false;
        n = mk_elf(&s, img, sizeof img);
        CHECK_INT(pkgnote_object_from_memory(img, n, &e), 0);
        int r = pn_crates_read(e, &c);
        CHECK(r == -EBADMSG);
        CHECK(c.crates == NULL);
        pkgnote_object_free(e);
        free(z);
}
#endif

static void print_crates(const struct pn_crates *c) {
        printf("format %u\n", c->format);
        for (size_t i = 0; i < c->n_crates; i++) {
                const struct pn_crate *cr = &c->crates[i];
                printf("%zu\t%s\t%s\t%s\t%s\t%s\t", i, cr->name, cr->version, cr->source, pn_crate_kind_name(cr->kind),
                       cr->root ? "root" : "-");
                for (size_t k = 0; k < cr->n_deps; k++)
                        printf("%s%u", k ? "," : "", cr->deps[k]);
                printf("\n");
        }
}

/* Prints each file's crate list: "format N", then per package its index,
 * name, version, source, kind, "root" or "-", and its dependencies'
 * indices, tab-separated. */
static int print_files(int argc, char **argv) {
        int ret = 0;
        for (int i = 1; i < argc; i++) {
                pkgnote_object *e;
                int r = pkgnote_object_open(argv[i], &e);
                if (r < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], pkgnote_last_error());
                        ret = 1;
                        continue;
                }
                struct pn_crates c;
                r = pn_crates_read(e, &c);
                pkgnote_object_free(e);
                if (r <= 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], r == 0 ? "no crate list" : pkgnote_last_error());
                        ret = r == 0 ? 3 : 1;
                        continue;
                }
                print_crates(&c);
                pn_crates_done(&c);
        }
        return ret;
}

int main(int argc, char **argv) {
        if (argc > 1)
                return print_files(argc, argv);
        RUN(test_parse);
        RUN(test_hostile_json);
        RUN(test_limits);
#if HAVE_ZLIB
        RUN(test_zlib);
        RUN(test_elf);
#else
        struct pn_crates c;
        CHECK_INT(pn_crates_decode((const uint8_t *)"x\x9c", 2, &c), -EOPNOTSUPP);
#endif
        return test_summary();
}
