/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one decompressor: gzip, xz, zstd and lz4 streams, each format an
 * entry of a table (its magic, and a decoder when the build has its
 * library), behind one streaming step.  Cores (08-core-source.c), scans'
 * decompression ahead of libarchive (09-scan-stream.c) and the peek into a
 * compressed file (09-scan-bid.c) all decode through it; each says in its own
 * words what went wrong, from the kind of error and the library's detail.
 */
#ifndef PKGNOTE_DECOMPRESS_H
#define PKGNOTE_DECOMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* PN_CODEC_LZ4_LEGACY: lz4's legacy format (magic 0x184c2102, blocks of
 * at most 8 MiB each after its size), the one the kernel's lz4 initramfs
 * and kernel images use (lib/decompress_unlz4.c).  PN_CODEC_ZLIB: one
 * zlib stream (RFC 1950: a two-byte header, deflate data, an Adler-32),
 * as cargo-auditable's .dep-v0 section holds; it has no magic number, so
 * pn_codec_detect() never answers it: the caller knows it is one. */
enum pn_codec { PN_CODEC_NONE = 0, PN_CODEC_GZIP, PN_CODEC_XZ, PN_CODEC_ZSTD, PN_CODEC_LZ4, PN_CODEC_LZ4_LEGACY, PN_CODEC_ZLIB };
#define PN_CODEC_BIT(c) (1u << (c))

/* The format the N bytes at P begin with, among those in MASK
 * (PN_CODEC_BIT()s), whether or not this build decodes it: PN_CODEC_NONE
 * when none.  Formats are told by their magic numbers only. */
int pn_codec_detect(const uint8_t *p, size_t n, unsigned mask);
/* "gzip", "xz", "zstd", "lz4", "lz4-legacy", "zlib". */
const char *pn_codec_name(int codec);
/* Whether this build has the format's library. */
bool pn_codec_built(int codec);

/* Data after the last member or frame that begins no other one ends the
 * stream, as gzip -d and zstd -d take padding, instead of being an error. */
#define PN_DECODE_STOP_AT_TRAILING 1u

enum pn_decode_error { PN_DECODE_DAMAGED = 1, PN_DECODE_TRUNCATED, PN_DECODE_OVER_LIMIT, PN_DECODE_NO_MEMORY };

struct pn_decoder;
/* A decoder of CODEC: THREADS for xz's multi-threaded decoder (0: one);
 * at most LIMIT bytes of output in all (-E2BIG past them, error
 * PN_DECODE_OVER_LIMIT).  -EOPNOTSUPP when the build lacks the format,
 * -ENOMEM; nothing is reported through pn_error(). */
int pn_decoder_new(int codec, unsigned flags, unsigned threads, uint64_t limit, struct pn_decoder **ret);
void pn_decoder_free(struct pn_decoder *d);
/* Decodes from IN[*IN_POS..IN_LEN) into OUT[*OUT_POS..OUT_LEN), advancing
 * both; IN_END says no input follows this.  1 at the end of the stream
 * (every member or frame), 0 for more (room or input), or a negative
 * errno once the data is bad or memory ran out (-ENOMEM; then
 * pn_decoder_error() tells which). */
int pn_decoder_step(struct pn_decoder *d, const uint8_t *in, size_t in_len, size_t *in_pos, uint8_t *out,
                    size_t out_len, size_t *out_pos, bool in_end);
/* The last error: its kind, and the library's words (a zstd or lz4 error
 * name, zlib's message) or NULL; *CODE the library's code (liblzma's). */
enum pn_decode_error pn_decoder_error(const struct pn_decoder *d, const char **detail, int *code);
/* Output so far. */
uint64_t pn_decoder_total(const struct pn_decoder *d);

/* The first bytes the N compressed bytes at P decompress to, up to SIZE
 * into OUT, however the data goes on: the count, or -1 when the build
 * cannot decode it or it is damaged that early. */
ssize_t pn_decode_prefix(int codec, const uint8_t *p, size_t n, uint8_t *out, size_t size);

#endif
