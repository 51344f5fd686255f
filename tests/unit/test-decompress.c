/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The decompressor (lib/01-base-decompress.c), each format this build has: data
 * compressed here by the format's own library decodes back whole through
 * small steps; every cut of it is truncated, a damaged header is damaged,
 * a bomb stops at the limit, padding after the data ends it when asked
 * to, and the prefix peek gives the first bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "01-base-decompress.h"
#include "testlib.h"

#if HAVE_ZLIB
#include <zlib.h>
#endif
#if HAVE_LZMA
#include <lzma.h>
#endif
#if HAVE_ZSTD
#include <zstd.h>
#endif
#if HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#endif

/* DATA (N bytes) compressed in CODEC into a malloc()ed buffer. */
#if HAVE_ZLIB || HAVE_LZMA || HAVE_ZSTD || HAVE_LZ4
static uint8_t *compress_with(int codec, const uint8_t *data, size_t n, size_t *len) {
        size_t cap = n + n / 2 + 4096;
        uint8_t *out = malloc(cap);
        *len = 0;
        switch (codec) {
#if HAVE_ZLIB
        case PN_CODEC_GZIP: {
                z_stream z = {0};
                if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                        break;
                z.next_in = (Bytef *)(uintptr_t)data, z.avail_in = (uInt)n, z.next_out = out, z.avail_out = (uInt)cap;
                if (deflate(&z, Z_FINISH) == Z_STREAM_END)
                        *len = cap - z.avail_out;
                deflateEnd(&z);
                break;
        }
        case PN_CODEC_ZLIB: {
                uLongf zl = (uLongf)cap;
                if (compress2(out, &zl, data, (uLong)n, 6) == Z_OK)
                        *len = zl;
                break;
        }
#endif
#if HAVE_LZMA
        case PN_CODEC_XZ:
                if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, data, n, out, len, cap) != LZMA_OK)
                        *len = 0;
                break;
#endif
#if HAVE_ZSTD
        case PN_CODEC_ZSTD: {
                size_t r = ZSTD_compress(out, cap, data, n, 3);
                *len = ZSTD_isError(r) ? 0 : r;
                break;
        }
#endif
#if HAVE_LZ4
        case PN_CODEC_LZ4: {
                size_t r = LZ4F_compressFrame(out, cap, data, n, NULL);
                *len = LZ4F_isError(r) ? 0 : r;
                break;
        }
#endif
        default: break;
        }
        return out;
}

/* Decodes IN through steps of at most STEP input and output bytes: 1 at
 * the end of the stream, or the negative errno; *OUT_LEN what came out. */
static int decode(int codec, unsigned flags, uint64_t limit, const uint8_t *in, size_t n, size_t step, uint8_t *out,
                  size_t cap, size_t *out_len, enum pn_decode_error *err) {
        struct pn_decoder *d;
        int r = pn_decoder_new(codec, flags, 0, limit, &d);
        if (r < 0)
                return r;
        size_t in_pos = 0, out_pos = 0;
        r = 0;
        for (int rounds = 0; r == 0 && rounds < 10000000; rounds++) {
                size_t in_end = in_pos + step < n ? in_pos + step : n;
                size_t out_end = out_pos + step < cap ? out_pos + step : cap;
                if (out_end == out_pos)
                        break;
                r = pn_decoder_step(d, in, in_end, &in_pos, out, out_end, &out_pos, in_end == n);
        }
        *out_len = out_pos;
        *err = pn_decoder_error(d, NULL, NULL);
        pn_decoder_free(d);
        return r;
}

static uint8_t *sample(size_t n) {
        uint8_t *p = malloc(n);
        uint32_t x = 12345;
        for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                p[i] = (uint8_t)(i % 97 < 50 ? 'a' + (x >> 16) % 4 : 0); /* compressible, not trivially */
        }
        return p;
}

static void check_codec(int codec) {
        enum { N = 300000 };
        uint8_t *data = sample(N), *out = malloc(2 * N);
        size_t clen, got;
        enum pn_decode_error err;
        uint8_t *c = compress_with(codec, data, N, &clen);
        CHECK(clen > 16);
        if (clen <= 16)
                goto out;

        /* Good: whole, through steps of several sizes. */
        size_t steps[] = {1, 7, 4096, 1 << 20};
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                if (steps[k] == 1 && codec == PN_CODEC_XZ)
                        continue; /* byte by byte through xz takes long; 7 covers it */
                int r = decode(codec, 0, UINT64_MAX, c, clen, steps[k], out, 2 * N, &got, &err);
                CHECK_INT(r, 1);
                CHECK_INT(got, N);
                CHECK(got == N && !memcmp(out, data, N));
        }
        CHECK_STR(pn_codec_name(codec), codec == PN_CODEC_GZIP ? "gzip" : codec == PN_CODEC_XZ ? "xz" : codec == PN_CODEC_ZSTD ? "zstd" : codec == PN_CODEC_ZLIB ? "zlib" : "lz4");
        /* zlib has no magic number: never detected, only named by the caller */
        CHECK_INT(pn_codec_detect(c, clen, ~0u), codec == PN_CODEC_ZLIB ? PN_CODEC_NONE : codec);
        CHECK_INT(pn_codec_detect(c, clen, ~0u & ~PN_CODEC_BIT(codec)), PN_CODEC_NONE);

        /* Truncated: cut anywhere before the end, the stream ends early
         * (or, cut inside the header, is found damaged). */
        size_t cuts[] = {1, 5, 11, clen / 3, clen / 2, clen - 9, clen - 1};
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
                int r = decode(codec, 0, UINT64_MAX, c, cuts[k], 4096, out, 2 * N, &got, &err);
                CHECK_INT(r, -EBADMSG);
                CHECK(err == PN_DECODE_TRUNCATED || (cuts[k] < 20 && err == PN_DECODE_DAMAGED));
                if (r != -EBADMSG)
                        fprintf(stderr, "  %s cut at %zu of %zu: %d\n", pn_codec_name(codec), cuts[k], clen, r);
        }

        /* Damaged: a header field no decoder accepts. */
        uint8_t *bad = malloc(clen);
        memcpy(bad, c, clen);
        if (codec == PN_CODEC_GZIP)
                bad[2] = 7; /* compression method: only 8 (deflate) exists */
        else if (codec == PN_CODEC_ZLIB)
                bad[0] ^= 0x01; /* CM 9: only 8 (deflate) exists, and the header check fails */
        else if (codec == PN_CODEC_XZ)
                bad[7] ^= 0x01; /* stream flags: the header's CRC32 no longer matches */
        else if (codec == PN_CODEC_ZSTD)
                bad[4] |= 0x08; /* frame header descriptor: the reserved bit */
        else
                bad[4] |= 0x02; /* FLG: a reserved bit */
        int r = decode(codec, 0, UINT64_MAX, bad, clen, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, -EBADMSG);
        CHECK_INT(err, PN_DECODE_DAMAGED);
        /* Damaged in the middle: never the data unchanged. */
        memcpy(bad, c, clen);
        for (size_t i = clen / 2; i < clen / 2 + 16; i++)
                bad[i] ^= 0x5a;
        r = decode(codec, 0, UINT64_MAX, bad, clen, 4096, out, 2 * N, &got, &err);
        CHECK(r < 0 || got != N || memcmp(out, data, N) != 0);
        if (codec != PN_CODEC_LZ4) /* lz4 frames carry no content checksum by default */
                CHECK(r < 0);
        free(bad);

        /* A bomb: 64 MiB of one byte, decoded under a limit of 1 MiB. */
        size_t big = 64u << 20, blen;
        uint8_t *ones = malloc(big);
        memset(ones, 'x', big);
        uint8_t *bomb = compress_with(codec, ones, big, &blen);
        free(ones);
        CHECK(blen > 0 && blen < big / 64);
        uint8_t *room = malloc(4u << 20);
        r = decode(codec, 0, 1u << 20, bomb, blen, 1 << 16, room, 4u << 20, &got, &err);
        CHECK_INT(r, -E2BIG);
        CHECK_INT(err, PN_DECODE_OVER_LIMIT);
        CHECK_INT(got, 1u << 20);
        /* Exactly at the limit is no error. */
        r = decode(codec, 0, N, c, clen, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, 1);
        CHECK_INT(got, N);
        free(room);
        free(bomb);

        /* Padding after the data: the end when asked, else damaged (gzip,
         * zstd: their tools take padding; xz's own format allows it). */
        if (codec == PN_CODEC_GZIP || codec == PN_CODEC_ZSTD || codec == PN_CODEC_ZLIB) {
                uint8_t *pad = calloc(1, clen + 512);
                memcpy(pad, c, clen);
                r = decode(codec, PN_DECODE_STOP_AT_TRAILING, UINT64_MAX, pad, clen + 512, 4096, out, 2 * N, &got, &err);
                CHECK_INT(r, 1);
                CHECK_INT(got, N);
                r = decode(codec, 0, UINT64_MAX, pad, clen + 512, 4096, out, 2 * N, &got, &err);
                CHECK(r < 0);
                /* Two members or frames in a row are one stream; a
                 * second zlib stream is trailing data. */
                memcpy(pad, c, clen);
                uint8_t *two = malloc(2 * clen);
                memcpy(two, c, clen);
                memcpy(two + clen, c, clen);
                uint8_t *twice = malloc(2 * N + 16);
                r = decode(codec, PN_DECODE_STOP_AT_TRAILING, UINT64_MAX, two, 2 * clen, 4096, twice, 2 * N + 16, &got,
                           &err);
                CHECK_INT(r, 1);
                CHECK_INT(got, codec == PN_CODEC_ZLIB ? N : 2 * N);
                if (codec == PN_CODEC_ZLIB) {
                        r = decode(codec, 0, UINT64_MAX, two, 2 * clen, 4096, twice, 2 * N + 16, &got, &err);
                        CHECK_INT(r, -EBADMSG);
                        CHECK_INT(err, PN_DECODE_DAMAGED);
                }
                free(twice);
                free(two);
                free(pad);
        }

        /* The peek: the first bytes, from the first part of the data. */
        if (codec != PN_CODEC_LZ4) {
                uint8_t head[512];
                ssize_t k = pn_decode_prefix(codec, c, clen, head, sizeof head);
                CHECK_INT(k, sizeof head);
                CHECK(k == (ssize_t)sizeof head && !memcmp(head, data, sizeof head));
                bad = malloc(clen);
                memcpy(bad, c, clen);
                bad[codec == PN_CODEC_GZIP ? 2 : codec == PN_CODEC_XZ ? 7 : codec == PN_CODEC_ZLIB ? 0 : 4] ^= codec == PN_CODEC_ZSTD ? 0x08 : codec == PN_CODEC_GZIP ? 0x0f : 0x01;
                CHECK_INT(pn_decode_prefix(codec, bad, clen, head, sizeof head), -1);
                free(bad);
        }
out:
        free(c);
        free(out);
        free(data);
}
#endif

static void test_gzip(void) {
#if HAVE_ZLIB
        check_codec(PN_CODEC_GZIP);
#else
        CHECK(!pn_codec_built(PN_CODEC_GZIP));
#endif
}
static void test_zlib(void) {
#if HAVE_ZLIB
        check_codec(PN_CODEC_ZLIB);
#else
        CHECK(!pn_codec_built(PN_CODEC_ZLIB));
#endif
}
static void test_xz(void) {
#if HAVE_LZMA
        check_codec(PN_CODEC_XZ);
#else
        CHECK(!pn_codec_built(PN_CODEC_XZ));
#endif
}
static void test_zstd(void) {
#if HAVE_ZSTD
        check_codec(PN_CODEC_ZSTD);
#else
        CHECK(!pn_codec_built(PN_CODEC_ZSTD));
#endif
}
static void test_lz4(void) {
#if HAVE_LZ4
        check_codec(PN_CODEC_LZ4);
#else
        CHECK(!pn_codec_built(PN_CODEC_LZ4));
#endif
}

#if HAVE_LZ4
/* N bytes at DATA in lz4's legacy format, in blocks of BLOCK bytes (lz4
 * -l makes 8 MiB ones; smaller are as valid), into *LEN. */
static uint8_t *legacy_compress(const uint8_t *data, size_t n, size_t block, size_t *len) {
        size_t cap = 4 + (n / block + 1) * (4 + (size_t)LZ4_compressBound((int)block));
        uint8_t *out = malloc(cap);
        memcpy(out, "\x02\x21\x4c\x18", 4);
        size_t at = 4;
        for (size_t i = 0; i < n; i += block) {
                size_t k = n - i < block ? n - i : block;
                int z = LZ4_compress_default((const char *)data + i, (char *)out + at + 4, (int)k,
                                             LZ4_compressBound((int)block));
                CHECK(z > 0);
                for (int b = 0; b < 4; b++)
                        out[at + (size_t)b] = (uint8_t)((uint32_t)z >> (8 * b));
                at += 4 + (size_t)z;
        }
        *len = at;
        return out;
}
#endif

/* lz4's legacy format, the kernel's lz4 initramfs: blocks after the
 * magic, no end mark (the input's end between blocks is the end; inside
 * one, truncated), the magic again another stream, a block size of 0
 * padding with PN_DECODE_STOP_AT_TRAILING. */
static void test_lz4_legacy(void) {
#if HAVE_LZ4
        enum { N = 300000, BLOCK = 100000 };
        uint8_t *data = sample(N), *out = malloc(2 * N + 16);
        size_t clen, got;
        enum pn_decode_error err;
        uint8_t *c = legacy_compress(data, N, BLOCK, &clen);
        CHECK_STR(pn_codec_name(PN_CODEC_LZ4_LEGACY), "lz4-legacy");
        CHECK_INT(pn_codec_detect(c, clen, ~0u), PN_CODEC_LZ4_LEGACY);
        CHECK_INT(pn_codec_detect(c, clen, ~0u & ~PN_CODEC_BIT(PN_CODEC_LZ4_LEGACY)), PN_CODEC_NONE);
        size_t steps[] = {1, 7, 4096, 1 << 20};
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                int r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, c, clen, steps[k], out, 2 * N, &got, &err);
                CHECK_INT(r, 1);
                CHECK_INT(got, N);
                CHECK(got == N && !memcmp(out, data, N));
        }
        /* Cut inside the magic, a block size or a block: truncated. */
        size_t first = 4 + 4 + ((size_t)c[4] | (size_t)c[5] << 8 | (size_t)c[6] << 16 | (size_t)c[7] << 24);
        size_t cuts[] = {2, 6, 100, first - 1, first + 2, clen - 1};
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
                int r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, c, cuts[k], 4096, out, 2 * N, &got, &err);
                CHECK_INT(r, -EBADMSG);
                CHECK_INT(err, PN_DECODE_TRUNCATED);
        }
        /* Cut between blocks: the end, as the format has no other. */
        int r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, c, first, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, 1);
        CHECK_INT(got, BLOCK);
        /* Damaged: a block size past any block, a block's bytes. */
        uint8_t *bad = malloc(clen + 512);
        memcpy(bad, c, clen);
        bad[7] = 0x7f;
        r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, bad, clen, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, -EBADMSG);
        CHECK_INT(err, PN_DECODE_DAMAGED);
        memcpy(bad, c, clen);
        bad[0] = 0x03;
        CHECK_INT(pn_codec_detect(bad, clen, ~0u), PN_CODEC_NONE);
        /* Padding: the end when asked, else a block size out of range. */
        memcpy(bad, c, clen);
        memset(bad + clen, 0, 512);
        r = decode(PN_CODEC_LZ4_LEGACY, PN_DECODE_STOP_AT_TRAILING, UINT64_MAX, bad, clen + 512, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, 1);
        CHECK_INT(got, N);
        r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, bad, clen + 512, 4096, out, 2 * N, &got, &err);
        CHECK_INT(r, -EBADMSG);
        free(bad);
        /* Two streams in a row are one. */
        uint8_t *two = malloc(2 * clen);
        memcpy(two, c, clen);
        memcpy(two + clen, c, clen);
        r = decode(PN_CODEC_LZ4_LEGACY, 0, UINT64_MAX, two, 2 * clen, 4096, out, 2 * N + 16, &got, &err);
        CHECK_INT(r, 1);
        CHECK_INT(got, 2 * N);
        free(two);
        /* A bomb under a limit. */
        size_t big = 64u << 20, blen;
        uint8_t *ones = malloc(big);
        memset(ones, 'x', big);
        uint8_t *bomb = legacy_compress(ones, big, 8u << 20, &blen);
        free(ones);
        uint8_t *room = malloc(4u << 20);
        r = decode(PN_CODEC_LZ4_LEGACY, 0, 1u << 20, bomb, blen, 1 << 16, room, 4u << 20, &got, &err);
        CHECK_INT(r, -E2BIG);
        CHECK_INT(err, PN_DECODE_OVER_LIMIT);
        free(room);
        free(bomb);
        free(c);
        free(out);
        free(data);
#else
        CHECK(!pn_codec_built(PN_CODEC_LZ4_LEGACY));
#endif
}

static void test_not_built_or_unknown(void) {
        struct pn_decoder *d = NULL;
        CHECK_INT(pn_decoder_new(PN_CODEC_NONE, 0, 0, UINT64_MAX, &d), -EOPNOTSUPP);
        CHECK_INT(pn_decoder_new(99, 0, 0, UINT64_MAX, &d), -EOPNOTSUPP);
        CHECK(d == NULL);
        CHECK_STR(pn_codec_name(99), "unknown");
        /* Formats a build lacks are still told by their magic. */
        CHECK_INT(pn_codec_detect((const uint8_t *)"\x04\x22\x4d\x18xx", 6, ~0u), PN_CODEC_LZ4);
        CHECK_INT(pn_codec_detect((const uint8_t *)"\x1f", 1, ~0u), PN_CODEC_NONE);
        CHECK_INT(pn_decode_prefix(PN_CODEC_NONE, (const uint8_t *)"abc", 3, (uint8_t[4]){0}, 4), -1);
}

int main(void) {
        RUN(test_gzip);
        RUN(test_zlib);
        RUN(test_xz);
        RUN(test_zstd);
        RUN(test_lz4);
        RUN(test_lz4_legacy);
        RUN(test_not_built_or_unknown);
        return test_summary();
}
