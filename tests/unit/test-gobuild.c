/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The build information of Go programs (lib/02-elf-gobuild.c), on ELF
 * objects made here: both layouts (strings inline, Go 1.18 and later;
 * through pointers, Go 1.13 to 1.17), both byte orders and word sizes,
 * with and without section headers; the module text's grammar as Go's
 * runtime/debug parses it; and hostile blobs (lengths past the blob,
 * pointers to nowhere, absurd counts), which must fail cleanly.
 *
 * Given files as arguments, it prints what it read of each as
 * `go version -m` prints it (tests/read/cmd-gobuild.sh compares the two
 * on real Go programs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-gobuild.h"
#include "pkgnote.h"
#include "testlib.h"

/* ---- objects made here ---- */

struct img {
        unsigned char b[1 << 16];
        size_t n;
        bool be, is64;
};

static void wr(struct img *m, size_t off, uint64_t v, int size) {
        for (int i = 0; i < size; i++)
                m->b[off + (size_t)i] = (unsigned char)(v >> (8 * (m->be ? size - 1 - i : i)));
}

#define BASE 0x400000u
#define DATA 0x1000u /* file offset of the writable segment */

/* An executable with one writable PT_LOAD of LEN bytes at DATA (address
 * BASE + DATA) holding BLOB, and, with SECTION, a section table naming
 * it ".go.buildinfo" (else none at all). */
static void make(struct img *m, bool is64, bool be, const void *blob, size_t len, bool section) {
        memset(m, 0, sizeof *m);
        m->be = be, m->is64 = is64;
        memcpy(m->b, "\177ELF", 4);
        m->b[4] = is64 ? 2 : 1;
        m->b[5] = be ? 2 : 1;
        m->b[6] = 1;
        wr(m, 16, 2, 2);                  /* ET_EXEC */
        wr(m, 18, is64 ? 62 : 3, 2);      /* x86-64 / i386 */
        wr(m, 20, 1, 4);
        size_t ph = is64 ? 64 : 52, phsz = is64 ? 56 : 32, shsz = is64 ? 64 : 40;
        memcpy(m->b + DATA, blob, len);
        size_t end = DATA + len;
        if (is64) {
                wr(m, 32, ph, 8);
                wr(m, 52, 64, 2);
                wr(m, 54, phsz, 2);
                wr(m, 56, 1, 2);
                wr(m, 58, shsz, 2);
                wr(m, ph, 1, 4);        /* PT_LOAD */
                wr(m, ph + 4, 6, 4);    /* PF_R | PF_W */
                wr(m, ph + 8, DATA, 8);
                wr(m, ph + 16, BASE + DATA, 8);
                wr(m, ph + 24, BASE + DATA, 8);
                wr(m, ph + 32, len, 8);
                wr(m, ph + 40, len, 8);
                wr(m, ph + 48, 0x1000, 8);
        } else {
                wr(m, 28, ph, 4);
                wr(m, 40, 52, 2);
                wr(m, 42, phsz, 2);
                wr(m, 44, 1, 2);
                wr(m, 46, shsz, 2);
                wr(m, ph, 1, 4);
                wr(m, ph + 4, DATA, 4);
                wr(m, ph + 8, BASE + DATA, 4);
                wr(m, ph + 12, BASE + DATA, 4);
                wr(m, ph + 16, len, 4);
                wr(m, ph + 20, len, 4);
                wr(m, ph + 24, 6, 4);
                wr(m, ph + 28, 0x1000, 4);
        }
        if (!section) {
                m->n = end;
                return;
        }
        static const char names[] = "\0.go.buildinfo\0.shstrtab";
        size_t str = (end + 7) & ~(size_t)7;
        memcpy(m->b + str, names, sizeof names);
        size_t sh = (str + sizeof names + 7) & ~(size_t)7;
        /* [0] null, [1] .go.buildinfo, [2] .shstrtab */
        size_t s1 = sh + shsz, s2 = sh + 2 * shsz;
        if (is64) {
                wr(m, 40, sh, 8);
                wr(m, 60, 3, 2);
                wr(m, 62, 2, 2);
                wr(m, s1, 1, 4), wr(m, s1 + 4, 1, 4), wr(m, s1 + 8, 3, 8), wr(m, s1 + 16, BASE + DATA, 8);
                wr(m, s1 + 24, DATA, 8), wr(m, s1 + 32, len, 8);
                wr(m, s2, 15, 4), wr(m, s2 + 4, 3, 4), wr(m, s2 + 24, str, 8), wr(m, s2 + 32, sizeof names, 8);
        } else {
                wr(m, 32, sh, 4);
                wr(m, 48, 3, 2);
                wr(m, 50, 2, 2);
                wr(m, s1, 1, 4), wr(m, s1 + 4, 1, 4), wr(m, s1 + 8, 3, 4), wr(m, s1 + 12, BASE + DATA, 4);
                wr(m, s1 + 16, DATA, 4), wr(m, s1 + 20, len, 4);
                wr(m, s2, 15, 4), wr(m, s2 + 4, 3, 4), wr(m, s2 + 16, str, 4), wr(m, s2 + 20, sizeof names, 4);
        }
        m->n = s2 + shsz;
}

static int read_img(const struct img *m, struct pn_go_build *b) {
        pkgnote_object *e;
        int r = pkgnote_object_from_memory(m->b, m->n, &e);
        CHECK_INT(r, 0);
        if (r < 0)
                return r;
        r = pn_go_build_read(e, b);
        pkgnote_object_free(e);
        return r;
}

/* cmd/go's framing of the module text (its bytes do not matter here) */
static const unsigned char SENTINEL_START[16] = {0x30, 0x77, 0xaf, 0x0c, 0x92, 0x74, 0x08, 0x02,
                                                 0x41, 0xe1, 0xc1, 0x07, 0xe6, 0xd6, 0x18, 0xe6};
static const unsigned char SENTINEL_END[16] = {0xf9, 0x32, 0x43, 0x31, 0x86, 0x18, 0x20, 0x72,
                                               0x00, 0x82, 0x42, 0x10, 0x41, 0x16, 0xd8, 0xf2};

static const char MOD[] = "path\texample.com/app\n"
                          "mod\texample.com/app\t(devel)\t\n"
                          "dep\texample.com/lib\tv1.2.3\th1:abc=\n"
                          "dep\texample.com/local\tv0.0.0-00010101000000-000000000000\n"
                          "=>\t../local\t\t\n"
                          "build\t-compiler=gc\n"
                          "build\tCGO_ENABLED=0\n"
                          "build\t-ldflags=\"-s -w\"\n"
                          "build\tGOARCH=amd64\n";

/* The framed module text into BUF: its length. */
static size_t framed(char *buf) {
        size_t n = 0;
        memcpy(buf, SENTINEL_START, 16), n = 16;
        memcpy(buf + n, MOD, sizeof MOD - 1), n += sizeof MOD - 1;
        memcpy(buf + n, SENTINEL_END, 16), n += 16;
        return n;
}

static size_t uvarint(unsigned char *p, uint64_t v) {
        size_t n = 0;
        do {
                p[n++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
                v >>= 7;
        } while (v);
        return n;
}

/* A blob of the inline layout. */
static size_t blob_inline(unsigned char *p, int ptr, bool be, const char *vers) {
        char mod[1024];
        size_t ml = framed(mod), n = 32;
        memset(p, 0, 32);
        memcpy(p, "\xff Go buildinf:", 14);
        p[14] = (unsigned char)ptr;
        p[15] = (unsigned char)(2 | (be ? 1 : 0));
        n += uvarint(p + n, strlen(vers));
        memcpy(p + n, vers, strlen(vers)), n += strlen(vers);
        n += uvarint(p + n, ml);
        memcpy(p + n, mod, ml), n += ml;
        return n;
}

static void check_build(const struct pn_go_build *b, const char *vers) {
        CHECK_STR(b->go_version, vers);
        CHECK_STR(b->path, "example.com/app");
        CHECK_STR(b->main.path, "example.com/app");
        CHECK_STR(b->main.version, "(devel)");
        CHECK_INT(b->n_deps, 2);
        if (b->n_deps == 2) {
                CHECK_STR(b->deps[0].sum, "h1:abc=");
                CHECK(b->deps[0].replace == NULL);
                CHECK(b->deps[1].replace != NULL);
                if (b->deps[1].replace)
                        CHECK_STR(b->deps[1].replace->path, "../local");
        }
        CHECK_INT(b->n_settings, 4);
        if (b->n_settings == 4) {
                CHECK_STR(b->settings[2].key, "-ldflags");
                CHECK_STR(b->settings[2].value, "-s -w");
        }
        char *text = pn_go_build_format(b);
        CHECK_STR(text, MOD);
        free(text);
}

static void test_inline(void) {
        for (int k = 0; k < 8; k++) {
                bool is64 = k & 1, be = k & 2, section = k & 4;
                unsigned char blob[2048];
                size_t n = blob_inline(blob, is64 ? 8 : 4, be, "go1.19.8");
                struct img m;
                make(&m, is64, be, blob, n, section);
                struct pn_go_build b;
                CHECK_INT(read_img(&m, &b), 1);
                CHECK(b.inline_layout);
                check_build(&b, "go1.19.8");
                pn_go_build_done(&b);
        }
}

/* The pointer layout: header, two pointers to string headers, the
 * headers, then the strings, all in the one segment, into TMP's bytes:
 * the blob's length. */
#define HDR1 64u
#define HDR2 96u
#define S1 128u
#define S2 160u
static size_t blob_pointers(struct img *tmp, bool is64, bool be) {
        int ptr = is64 ? 8 : 4;
        memset(tmp, 0, sizeof *tmp);
        tmp->be = be; /* so that wr() orders bytes */
        memcpy(tmp->b, "\xff Go buildinf:", 14);
        tmp->b[14] = (unsigned char)ptr;
        tmp->b[15] = be ? 1 : 0;
        char mod[1024];
        size_t ml = framed(mod);
        const char *vers = "go1.16.15";
        memcpy(tmp->b + S1, vers, strlen(vers));
        memcpy(tmp->b + S2, mod, ml);
        wr(tmp, 16, BASE + DATA + HDR1, ptr);
        wr(tmp, 16 + (size_t)ptr, BASE + DATA + HDR2, ptr);
        wr(tmp, HDR1, BASE + DATA + S1, ptr);
        wr(tmp, HDR1 + (size_t)ptr, strlen(vers), ptr);
        wr(tmp, HDR2, BASE + DATA + S2, ptr);
        wr(tmp, HDR2 + (size_t)ptr, ml, ptr);
        return S2 + ml;
}

static void test_pointers(void) {
        for (int k = 0; k < 8; k++) {
                bool is64 = k & 1, be = k & 2, section = k & 4;
                int ptr = is64 ? 8 : 4;
                static struct img tmp;
                size_t n = blob_pointers(&tmp, is64, be);
                size_t hdr2 = HDR2, s2 = S2, ml = n - S2;
                struct img m;
                make(&m, is64, be, tmp.b, s2 + ml, section);
                struct pn_go_build b;
                CHECK_INT(read_img(&m, &b), 1);
                CHECK(!b.inline_layout);
                check_build(&b, "go1.16.15");
                pn_go_build_done(&b);

                /* a string pointer to nowhere, and a length past the segment */
                struct img bad = tmp;
                wr(&bad, hdr2, 0x7fff0000, ptr);
                make(&m, is64, be, bad.b, s2 + ml, section);
                CHECK_INT(read_img(&m, &b), -EBADMSG);
                bad = tmp;
                wr(&bad, hdr2 + (size_t)ptr, ml + 4096, ptr);
                make(&m, is64, be, bad.b, s2 + ml, section);
                CHECK_INT(read_img(&m, &b), -EBADMSG);
                bad = tmp;
                wr(&bad, hdr2 + (size_t)ptr, is64 ? (uint64_t)1 << 40 : 0xffffffffu, ptr);
                make(&m, is64, be, bad.b, s2 + ml, section);
                CHECK_INT(read_img(&m, &b), -E2BIG);
                /* the header's byte order is not the object's */
                bad = tmp;
                bad.b[15] ^= 1;
                make(&m, is64, be, bad.b, s2 + ml, section);
                CHECK_INT(read_img(&m, &b), -EBADMSG);
        }
}

static void test_not_go(void) {
        unsigned char blob[256] = "plain data, no magic";
        struct img m;
        make(&m, true, false, blob, sizeof blob, false);
        struct pn_go_build b;
        CHECK_INT(read_img(&m, &b), 0);
        CHECK(b.go_version == NULL);
        /* the magic not on a 16-byte boundary is not found */
        memcpy(blob + 8, "\xff Go buildinf:", 14);
        make(&m, true, false, blob, sizeof blob, false);
        CHECK_INT(read_img(&m, &b), 0);
        /* a program without module text (built outside a module): only the version */
        unsigned char p[256] = {0};
        memcpy(p, "\xff Go buildinf:", 14);
        p[14] = 8, p[15] = 2;
        size_t n = 32;
        n += uvarint(p + n, 8);
        memcpy(p + n, "go1.20.1", 8), n += 8;
        n += uvarint(p + n, 0);
        make(&m, true, false, p, n, true);
        CHECK_INT(read_img(&m, &b), 1);
        CHECK_STR(b.go_version, "go1.20.1");
        CHECK(b.main.path == NULL && b.n_deps == 0 && b.n_settings == 0);
        pn_go_build_done(&b);
}

static void test_hostile_inline(void) {
        unsigned char p[2048];
        size_t n = blob_inline(p, 8, false, "go1.21.0");
        struct img m;
        struct pn_go_build b;
        /* cut inside the module text */
        make(&m, true, false, p, n - 40, true);
        CHECK_INT(read_img(&m, &b), -EBADMSG);
        /* a varint that never ends */
        unsigned char q[64] = {0};
        memcpy(q, p, 32);
        memset(q + 32, 0xff, 32);
        make(&m, true, false, q, sizeof q, true);
        CHECK_INT(read_img(&m, &b), -EBADMSG);
        /* a version over its limit */
        memcpy(q, p, 32);
        size_t k = 32 + uvarint(q + 32, 100000);
        make(&m, true, false, q, k + 8, true);
        CHECK_INT(read_img(&m, &b), -E2BIG);
        /* an empty version */
        memcpy(q, p, 32);
        q[32] = 0, q[33] = 0;
        make(&m, true, false, q, 34, true);
        CHECK_INT(read_img(&m, &b), -EBADMSG);
        /* a header cut short */
        make(&m, true, false, p, 20, true);
        CHECK_INT(read_img(&m, &b), 0);
}

static int parse(const char *text) {
        struct pn_go_build b = {0};
        int r = pn_go_modinfo_parse(text, strlen(text), &b);
        pn_go_build_done(&b);
        return r;
}

static void test_grammar(void) {
        CHECK_INT(parse(MOD), 0);
        CHECK_INT(parse("=>\ta\tb\tc\n"), -EBADMSG);                 /* replacement of nothing */
        CHECK_INT(parse("dep\ta\tv1\th1:x\n=>\tb\tv2\n"), -EBADMSG); /* 2 columns */
        CHECK_INT(parse("dep\ta\n"), -EBADMSG);
        CHECK_INT(parse("dep\ta\tb\tc\td\n"), -EBADMSG);
        CHECK_INT(parse("dep\ta\tv1\th1:x\n=>\tb\tv2\th1:y\n=>\tc\tv3\th1:z\n"), -EBADMSG); /* twice */
        CHECK_INT(parse("build\t=x\n"), -EBADMSG);
        CHECK_INT(parse("build\tnoequals\n"), -EBADMSG);
        CHECK_INT(parse("build\t\"k\"x\n"), -EBADMSG);
        CHECK_INT(parse("build\t\"open=1\n"), -EBADMSG);
        CHECK_INT(parse("build\tk=\"v\"tail\n"), -EBADMSG);
        CHECK_INT(parse("unknown line\nbuild\tk=v\n"), 0);
        /* a NUL escaped would cut the value short; \' is no string escape */
        CHECK_INT(parse("build\tz=\"\\x00tail\"\n"), -EBADMSG);
        CHECK_INT(parse("build\tz=\"\\000tail\"\n"), -EBADMSG);
        CHECK_INT(parse("build\tz=\"\\u0000tail\"\n"), -EBADMSG);
        CHECK_INT(parse("build\tz=\"a\\'b\"\n"), -EBADMSG);
        /* quoted keys and values, and their escapes, both ways */
        const char *q = "build\t\"a b=c\"=\"x\\ty \\\"q\\\" \\u00e9\\x01\"\nbuild\tk=`raw\\n`\n";
        struct pn_go_build b = {0};
        CHECK_INT(pn_go_modinfo_parse(q, strlen(q), &b), 0);
        CHECK_INT(b.n_settings, 2);
        if (b.n_settings == 2) {
                CHECK_STR(b.settings[0].key, "a b=c");
                CHECK_STR(b.settings[0].value, "x\ty \"q\" \xc3\xa9\x01");
                CHECK_STR(b.settings[1].value, "raw\\n");
        }
        char *t = pn_go_build_format(&b);
        CHECK_STR(t, "build\t\"a b=c\"=\"x\\ty \\\"q\\\" \xc3\xa9\\x01\"\nbuild\tk=raw\\n\n");
        free(t);
        /* bytes that begin no UTF-8 sequence are escaped, as Go quotes them */
        free(b.settings[1].value);
        b.settings[1].value = strdup("a b\xff\xf8\x8f");
        t = pn_go_build_format(&b);
        CHECK(t && strstr(t, "k=\"a b\\xff\\xf8\\x8f\"\n") != NULL);
        free(t);
        pn_go_build_done(&b);
        /* counts past the limits */
        size_t line = strlen("dep\tm\tv1\th1:x\n"), n = (PN_GO_MAX_MODULES + 1) * line;
        char *many = malloc(n + 1);
        for (size_t i = 0; i <= PN_GO_MAX_MODULES; i++)
                memcpy(many + i * line, "dep\tm\tv1\th1:x\n", line);
        many[n] = 0;
        CHECK_INT(pn_go_modinfo_parse(many, n, &b), -E2BIG);
        pn_go_build_done(&b);
        free(many);
        CHECK_INT(pn_go_modinfo_parse("x", PN_GO_MAX_MODINFO + 1u, &b), -E2BIG);
        pn_go_build_done(&b);
}

/* pn_go_modinfo_parse() and pn_go_build_format() of TEXT: the text
 * BuildInfo.String() would write (malloc()ed), or NULL when parsing fails. */
static char *reparse(const char *text) {
        struct pn_go_build b = {0};
        char *t = NULL;
        if (pn_go_modinfo_parse(text, strlen(text), &b) == 0)
                t = pn_go_build_format(&b);
        pn_go_build_done(&b);
        return t;
}

#define SAME_AS_GO(text, want)                                                                                       \
        do {                                                                                                         \
                char *t_ = reparse(text);                                                                            \
                CHECK_STR(t_, want);                                                                                 \
                free(t_);                                                                                            \
        } while (0)
#define REFUSED_AS_GO(text) CHECK_INT(parse(text), -EBADMSG)

/* Where the reader differed from Go's runtime/debug.ParseBuildInfo() and
 * BuildInfo.String() (Go 1.19 and 1.27 agree on each of these; found by
 * running both on the same module texts). */
static void test_go_differences(void) {
        /* a key or value BuildInfo.String() would have quoted, unquoted:
         * Go refuses the whole build information */
        REFUSED_AS_GO("build\tfoo bar=1\n");
        REFUSED_AS_GO("build\tk\"=v\n");
        REFUSED_AS_GO("build\tk=a b\n");
        REFUSED_AS_GO("build\tk=a\tb\n");
        REFUSED_AS_GO("build\tk=a\"b\n");
        REFUSED_AS_GO("build\tk=a`b\n");
        REFUSED_AS_GO("build\tk=v\r\n");
        SAME_AS_GO("build\tk=\xff\n", "build\tk=\xff\n"); /* not among the bytes that are quoted */
        /* a raw string drops its carriage returns */
        SAME_AS_GO("build\tk=`a\rb`\n", "build\tk=ab\n");
        SAME_AS_GO("build\t`k\r`=v\n", "build\tk=v\n");
        /* in a "..." string a byte that begins no UTF-8 sequence is U+FFFD;
         * an escaped one stays a byte */
        SAME_AS_GO("build\tk=\"a\xff" "b\"\n", "build\tk=a\xef\xbf\xbd" "b\n");
        SAME_AS_GO("build\tk=\"\xed\xa0\x80\"\n", "build\tk=\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
        SAME_AS_GO("build\tk=\"\\xff\"\n", "build\tk=\xff\n");
        SAME_AS_GO("build\tk=\"\xc3\xa9\"\n", "build\tk=\xc3\xa9\n");
        /* a main module of empty fields, an empty path: none, not printed */
        SAME_AS_GO("mod\t\t\n", "");
        SAME_AS_GO("path\t\n", "");
        SAME_AS_GO("dep\t\t\t\n", "dep\t\t\t\n");
        /* a last line without its newline is not read */
        SAME_AS_GO("dep\ta\tv1\th1:x", "");
        SAME_AS_GO("build\tk=v\ndep\ta", "build\tk=v\n");
        SAME_AS_GO("build\tk=v\nbuild\tbroken", "build\tk=v\n");
        /* a NUL in a line passed over does no harm; in a kept one it is
         * refused (Go keeps it; a C string cannot) */
        struct pn_go_build b = {0};
        static const char nul_skipped[] = "x\0y\nbuild\tk=v\n";
        CHECK_INT(pn_go_modinfo_parse(nul_skipped, sizeof nul_skipped - 1, &b), 0);
        CHECK_INT(b.n_settings, 1);
        pn_go_build_done(&b);
        static const char nul_kept[] = "path\tx\0y\n";
        CHECK_INT(pn_go_modinfo_parse(nul_kept, sizeof nul_kept - 1, &b), -EBADMSG);
        pn_go_build_done(&b);
}

/* The blob cut at every length, and the whole object cut at every
 * length, in both layouts, byte orders and word sizes, with and without
 * section headers: each reading is the whole result (only when nothing
 * it needs was cut), none, or a clear error; never part of one, never a
 * read outside the bytes (run under ASan too). */
static void check_cut(const struct img *m, bool whole, unsigned *results) {
        pkgnote_object *e;
        if (pkgnote_object_from_memory(m->b, m->n, &e) < 0) {
                results[3]++;
                return;
        }
        struct pn_go_build b;
        int r = pn_go_build_read(e, &b);
        pkgnote_object_free(e);
        if (r == 1) {
                char *t = pn_go_build_format(&b);
                CHECK_STR(t, MOD);
                free(t);
                if (!whole)
                        CHECK(b.go_version && (!strcmp(b.go_version, "go1.19.8") || !strcmp(b.go_version, "go1.16.15")));
                results[1]++;
        } else if (r == 0) {
                CHECK(b.go_version == NULL && b.n_deps == 0 && b.n_settings == 0 && b.path == NULL);
                results[0]++;
        } else {
                CHECK(b.go_version == NULL && b.n_deps == 0 && b.n_settings == 0 && b.path == NULL);
                const char *msg = pkgnote_last_error();
                CHECK(msg && *msg);
                if (getenv("GOBUILD_CUT_MESSAGES"))
                        fprintf(stderr, "%d %s\n", r, msg);
                CHECK(r == -EBADMSG || r == -ENODATA || r == -E2BIG);
                results[2]++;
        }
        pn_go_build_done(&b);
}

static void test_truncated(void) {
        static struct img tmp, m, cut;
        for (int k = 0; k < 16; k++) {
                bool is64 = k & 1, be = k & 2, section = k & 4, pointers = k & 8;
                size_t n;
                if (pointers)
                        n = blob_pointers(&tmp, is64, be);
                else
                        n = blob_inline(tmp.b, is64 ? 8 : 4, be, "go1.19.8");
                unsigned results[4] = {0};
                /* the blob (segment and section) cut at every length */
                for (size_t len = 0; len <= n; len++) {
                        make(&m, is64, be, tmp.b, len, section);
                        unsigned before = results[1];
                        check_cut(&m, len == n, results);
                        /* only the whole blob reads whole */
                        if (results[1] != before && len != n)
                                CHECK_INT(len, n);
                }
                CHECK_INT(results[1], 1);
                CHECK(results[0] > 0 && results[2] > 0);
                /* the object cut at every length */
                make(&m, is64, be, tmp.b, n, section);
                unsigned whole = 0;
                for (size_t len = 0; len <= m.n; len++) {
                        memcpy(&cut, &m, sizeof cut);
                        cut.n = len;
                        unsigned before = results[1];
                        check_cut(&cut, len == m.n, results);
                        whole += results[1] != before;
                }
                CHECK(whole >= 1);
        }
}

/* Prints each file's build information as `go version -m` does. */
static int print_files(int argc, char **argv) {
        int ret = 0;
        for (int i = 1; i < argc; i++) {
                pkgnote_object *e;
                struct pn_go_build b;
                int r = pkgnote_object_open(argv[i], &e);
                if (r < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], pkgnote_last_error());
                        ret = 1;
                        continue;
                }
                r = pn_go_build_read(e, &b);
                pkgnote_object_free(e);
                if (r <= 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], r == 0 ? "no Go build information" : pkgnote_last_error());
                        ret = 1;
                        continue;
                }
                printf("%s: %s\n", argv[i], b.go_version);
                char *t = pn_go_build_format(&b);
                for (char *line = t, *nl; line && *line; line = nl + 1) {
                        nl = strchr(line, '\n');
                        printf("\t%.*s\n", (int)(nl - line), line);
                }
                free(t);
                pn_go_build_done(&b);
        }
        return ret;
}

/* --parse FILE...: each FILE's module text parsed and written back as
 * BuildInfo.String() would, one line each, in hex (Go's fmt %x), or
 * "ERROR": for comparing the grammar with Go's runtime/debug
 * (tests/read/go-matrix.sh builds the Go side). */
static int print_parsed(int argc, char **argv) {
        static char text[1 << 16];
        for (int i = 2; i < argc; i++) {
                FILE *f = fopen(argv[i], "rb");
                if (!f) {
                        fprintf(stderr, "%s: cannot open\n", argv[i]);
                        return 2;
                }
                size_t n = fread(text, 1, sizeof text, f);
                fclose(f);
                struct pn_go_build b = {0};
                if (pn_go_modinfo_parse(text, n, &b) < 0) {
                        puts("ERROR");
                        pn_go_build_done(&b); /* what was parsed before the error */
                        continue;
                }
                char *t = pn_go_build_format(&b);
                for (const unsigned char *p = (const unsigned char *)t; p && *p; p++)
                        printf("%02x", *p);
                putchar('\n');
                free(t);
                pn_go_build_done(&b);
        }
        return 0;
}

int main(int argc, char **argv) {
        if (argc > 1 && !strcmp(argv[1], "--parse"))
                return print_parsed(argc, argv);
        if (argc > 1)
                return print_files(argc, argv);
        RUN(test_inline);
        RUN(test_pointers);
        RUN(test_not_go);
        RUN(test_hostile_inline);
        RUN(test_grammar);
        RUN(test_go_differences);
        RUN(test_truncated);
        return test_summary();
}
