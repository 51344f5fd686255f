/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one decompressor (01-base-decompress.h): a table of formats, one step. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-decompress.h"

#if HAVE_ZLIB
#include <zlib.h>
#endif
#if HAVE_LZMA
#include <lzma.h>
#endif
#if HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>
#endif
#if HAVE_LZ4
#include <lz4.h>
#include <lz4frame.h>
#endif

struct pn_decoder {
        const struct codec *c;
        unsigned flags;
        uint64_t limit, total;
        enum pn_decode_error error;
        const char *detail;
        int code;
        bool member_end; /* gzip: a member ended */
        size_t hint;     /* zstd, lz4: 0 when a frame has ended */
        bool frame_done; /* zstd, lz4: the last call ended a frame */
#if HAVE_ZLIB
        z_stream gz;
        bool gz_init;
#endif
#if HAVE_LZMA
        lzma_stream xz;
        bool xz_init;
#endif
#if HAVE_ZSTD
        ZSTD_DStream *zstd;
#endif
#if HAVE_LZ4
        LZ4F_dctx *lz4;
        /* lz4's legacy format: where the stream is, the header or block
         * being gathered, the block decoded and what of it is handed out */
        struct {
                int phase; /* 0 magic, 1 block size, 2 block, 3 output */
                uint8_t hdr[4];
                size_t hdr_n, size, got, out_len, out_pos;
                uint8_t *in, *out;
        } legacy;
#endif
};

/* One step of a format: as pn_decoder_step(), on the slices given. */
typedef int (*step_fn)(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n,
                       bool in_end);

struct codec {
        const char *name;
        const char *magic;
        size_t magic_len;
        int (*init)(struct pn_decoder *d, unsigned threads);
        step_fn step;
        void (*end)(struct pn_decoder *d);
};

#if HAVE_ZLIB || HAVE_LZMA || HAVE_ZSTD || HAVE_LZ4
static int damaged(struct pn_decoder *d, const char *detail, int code) {
        d->error = PN_DECODE_DAMAGED, d->detail = detail, d->code = code;
        return -EBADMSG;
}
static int truncated(struct pn_decoder *d) {
        d->error = PN_DECODE_TRUNCATED, d->detail = NULL;
        return -EBADMSG;
}
#endif

#if HAVE_ZLIB
static int gz_init(struct pn_decoder *d, unsigned threads) {
        (void)threads;
        if (inflateInit2(&d->gz, 16 + MAX_WBITS) != Z_OK)
                return -ENOMEM;
        d->gz_init = true;
        return 0;
}
static int gz_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n, bool in_end) {
        size_t avail = *in_n, room = *out_n;
        *in_n = *out_n = 0;
        if (d->member_end) {
                if (avail == 0)
                        return in_end ? 1 : 0;
                /* Concatenated members (an .apk), as gzip -d reads them. */
                if (in[0] != 0x1f) {
                        if (d->flags & PN_DECODE_STOP_AT_TRAILING)
                                return 1;
                        return damaged(d, "trailing data after the last member", 0);
                }
                inflateReset(&d->gz);
                d->member_end = false;
        }
        if (avail == 0 && !in_end)
                return 0;
        d->gz.next_in = (Bytef *)(uintptr_t)in, d->gz.avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
        d->gz.next_out = out, d->gz.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
        uInt ai = d->gz.avail_in, ao = d->gz.avail_out;
        int r = inflate(&d->gz, Z_NO_FLUSH);
        *in_n = ai - d->gz.avail_in, *out_n = ao - d->gz.avail_out;
        if (r == Z_STREAM_END) {
                d->member_end = true;
                return 0;
        }
        if (r == Z_MEM_ERROR)
                return -ENOMEM;
        if (r != Z_OK && r != Z_BUF_ERROR)
                return damaged(d, d->gz.msg ? d->gz.msg : "inflate failed", r);
        if (in_end && *in_n == avail && *out_n == 0 && room > 0)
                return truncated(d);
        return 0;
}
/* One zlib stream (RFC 1950): zlib checks its header and Adler-32; what
 * follows the stream's end is trailing data. */
static int zl_init(struct pn_decoder *d, unsigned threads) {
        (void)threads;
        if (inflateInit2(&d->gz, MAX_WBITS) != Z_OK)
                return -ENOMEM;
        d->gz_init = true;
        return 0;
}
static int zl_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n, bool in_end) {
        size_t avail = *in_n, room = *out_n;
        *in_n = *out_n = 0;
        if (d->member_end) {
                if (avail == 0 || (d->flags & PN_DECODE_STOP_AT_TRAILING))
                        return avail == 0 && !in_end ? 0 : 1;
                return damaged(d, "trailing data after the end of the stream", 0);
        }
        if (avail == 0 && !in_end)
                return 0;
        d->gz.next_in = (Bytef *)(uintptr_t)in, d->gz.avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
        d->gz.next_out = out, d->gz.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
        uInt ai = d->gz.avail_in, ao = d->gz.avail_out;
        int r = inflate(&d->gz, Z_NO_FLUSH);
        *in_n = ai - d->gz.avail_in, *out_n = ao - d->gz.avail_out;
        if (r == Z_STREAM_END) {
                d->member_end = true;
                if (*in_n < avail && !(d->flags & PN_DECODE_STOP_AT_TRAILING))
                        return damaged(d, "trailing data after the end of the stream", 0);
                return *in_n == avail && in_end ? 1 : 0;
        }
        if (r == Z_MEM_ERROR)
                return -ENOMEM;
        if (r != Z_OK && r != Z_BUF_ERROR)
                return damaged(d, d->gz.msg ? d->gz.msg : "inflate failed", r);
        if (in_end && *in_n == avail && *out_n == 0 && room > 0)
                return truncated(d);
        return 0;
}
static void gz_end(struct pn_decoder *d) {
        if (d->gz_init)
                inflateEnd(&d->gz);
}
#endif

#if HAVE_LZMA
static int xz_init(struct pn_decoder *d, unsigned threads) {
        lzma_stream init = LZMA_STREAM_INIT;
        d->xz = init;
        lzma_ret r;
#if LZMA_VERSION >= 50040000
        if (threads) {
                /* xz's blocks decoded on every core, where the file allows. */
                lzma_mt mt = {.threads = threads,
                              .flags = LZMA_CONCATENATED,
                              .memlimit_threading = 1024u << 20,
                              .memlimit_stop = UINT64_MAX};
                r = lzma_stream_decoder_mt(&d->xz, &mt);
        } else
#endif
                r = lzma_stream_decoder(&d->xz, UINT64_MAX, LZMA_CONCATENATED);
        (void)threads;
        if (r != LZMA_OK)
                return -ENOMEM;
        d->xz_init = true;
        return 0;
}
static int xz_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n, bool in_end) {
        size_t avail = *in_n, room = *out_n;
        d->xz.next_in = in, d->xz.avail_in = avail;
        d->xz.next_out = out, d->xz.avail_out = room;
        lzma_ret r = lzma_code(&d->xz, in_end ? LZMA_FINISH : LZMA_RUN);
        *in_n = avail - d->xz.avail_in, *out_n = room - d->xz.avail_out;
        if (r == LZMA_STREAM_END)
                return 1;
        if (r == LZMA_BUF_ERROR)
                return in_end ? truncated(d) : 0;
        if (r == LZMA_MEM_ERROR)
                return -ENOMEM;
        if (r != LZMA_OK)
                return damaged(d, NULL, (int)r);
        /* Told the input ends, with room left, and nothing came out. */
        if (in_end && *out_n == 0 && *in_n == avail && room > 0)
                return truncated(d);
        return 0;
}
static void xz_end(struct pn_decoder *d) {
        if (d->xz_init)
                lzma_end(&d->xz);
}
#endif

#if HAVE_ZSTD
static int zstd_init(struct pn_decoder *d, unsigned threads) {
        (void)threads;
        d->zstd = ZSTD_createDStream();
        return d->zstd && !ZSTD_isError(ZSTD_initDStream(d->zstd)) ? 0 : -ENOMEM;
}
static int zstd_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n,
                     bool in_end) {
        size_t avail = *in_n, room = *out_n;
        *in_n = *out_n = 0;
        if ((d->flags & PN_DECODE_STOP_AT_TRAILING) && d->hint == 0 && avail >= 4 && d->total > 0) {
                /* A frame ended: another, a skippable one, or the end of
                 * the data (padding after it). */
                uint32_t m = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
                if (m != 0xFD2FB528u && (m & 0xFFFFFFF0u) != 0x184D2A50u)
                        return 1;
        }
        /* A frame ended, and no input follows: the end.  Called again,
         * the library would wait for the next frame's header. */
        if (in_end && avail == 0 && d->frame_done)
                return 1;
        ZSTD_inBuffer ib = {in, avail, 0};
        ZSTD_outBuffer ob = {out, room, 0};
        size_t z = ZSTD_decompressStream(d->zstd, &ob, &ib);
        if (ZSTD_isError(z) && ZSTD_getErrorCode(z) == ZSTD_error_memory_allocation)
                return -ENOMEM;
        if (ZSTD_isError(z))
                return damaged(d, ZSTD_getErrorName(z), 0);
        d->hint = z, d->frame_done = z == 0;
        *in_n = ib.pos, *out_n = ob.pos;
        /* All input taken and room left over: nothing more will come. */
        if (in_end && ib.pos == avail && ob.pos < room)
                return z == 0 ? 1 : ob.pos ? 0 : truncated(d);
        return 0;
}
static void zstd_end(struct pn_decoder *d) {
        ZSTD_freeDStream(d->zstd);
}
#endif

#if HAVE_LZ4
static int lz4_init(struct pn_decoder *d, unsigned threads) {
        (void)threads;
        return LZ4F_isError(LZ4F_createDecompressionContext(&d->lz4, LZ4F_VERSION)) ? -ENOMEM : 0;
}
static int lz4_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n, bool in_end) {
        size_t avail = *in_n, room = *out_n;
        if (in_end && avail == 0 && d->frame_done) {
                *out_n = 0;
                return 1;
        }
        size_t z = LZ4F_decompress(d->lz4, out, out_n, in, in_n, NULL);
        if (LZ4F_isError(z))
                return damaged(d, LZ4F_getErrorName(z), 0);
        d->hint = z, d->frame_done = z == 0;
        if (in_end && *in_n == avail && *out_n < room)
                return z == 0 ? 1 : *out_n ? 0 : truncated(d);
        return 0;
}
static void lz4_end(struct pn_decoder *d) {
        if (d->lz4)
                LZ4F_freeDecompressionContext(d->lz4);
}

/* lz4's legacy format, as the kernel's decompress_unlz4.c reads it: the
 * magic, then blocks, each its compressed size (32-bit little-endian) and
 * an lz4 block of at most 8 MiB decoded; the magic again begins another
 * stream.  It has no end mark: the stream ends with the input, or, with
 * PN_DECODE_STOP_AT_TRAILING, at a block size of 0 (padding). */
#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_BLOCK (8u << 20)
static int lz4l_init(struct pn_decoder *d, unsigned threads) {
        (void)threads;
        d->legacy.phase = 0;
        return 0;
}
static int lz4l_step(struct pn_decoder *d, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n, bool in_end) {
        size_t avail = *in_n, room = *out_n, ip = 0, op = 0;
        for (;;) {
                if (d->legacy.phase == 3) {
                        size_t k = d->legacy.out_len - d->legacy.out_pos;
                        if (k > room - op)
                                k = room - op;
                        memcpy(out + op, d->legacy.out + d->legacy.out_pos, k);
                        op += k, d->legacy.out_pos += k;
                        if (d->legacy.out_pos < d->legacy.out_len)
                                break; /* no room */
                        d->legacy.phase = 1;
                        continue;
                }
                if (ip == avail)
                        break;
                if (d->legacy.phase <= 1) {
                        while (d->legacy.hdr_n < 4 && ip < avail)
                                d->legacy.hdr[d->legacy.hdr_n++] = in[ip++];
                        if (d->legacy.hdr_n < 4)
                                break;
                        uint32_t v = (uint32_t)d->legacy.hdr[0] | (uint32_t)d->legacy.hdr[1] << 8 |
                                     (uint32_t)d->legacy.hdr[2] << 16 | (uint32_t)d->legacy.hdr[3] << 24;
                        d->legacy.hdr_n = 0;
                        if (d->legacy.phase == 0) {
                                if (v != LZ4_LEGACY_MAGIC)
                                        return damaged(d, "not an lz4 legacy stream", 0);
                                d->legacy.phase = 1;
                                continue;
                        }
                        if (v == LZ4_LEGACY_MAGIC)
                                continue; /* another stream */
                        if (v == 0 && (d->flags & PN_DECODE_STOP_AT_TRAILING)) {
                                if (ip >= 4)
                                        ip -= 4; /* the padding is not the stream's */
                                *in_n = ip, *out_n = op;
                                return 1;
                        }
                        if (v == 0 || v > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
                                return damaged(d, "lz4 legacy block size out of range", (int)v);
                        if (!d->legacy.in && !(d->legacy.in = malloc((size_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))))
                                return -ENOMEM;
                        d->legacy.size = v, d->legacy.got = 0, d->legacy.phase = 2;
                        continue;
                }
                /* phase 2: the block */
                size_t k = d->legacy.size - d->legacy.got;
                if (k > avail - ip)
                        k = avail - ip;
                memcpy(d->legacy.in + d->legacy.got, in + ip, k);
                ip += k, d->legacy.got += k;
                if (d->legacy.got < d->legacy.size)
                        break;
                if (!d->legacy.out && !(d->legacy.out = malloc(LZ4_LEGACY_BLOCK)))
                        return -ENOMEM;
                int n = LZ4_decompress_safe((const char *)d->legacy.in, (char *)d->legacy.out, (int)d->legacy.size,
                                            (int)LZ4_LEGACY_BLOCK);
                if (n < 0)
                        return damaged(d, "lz4 legacy block damaged", n);
                d->legacy.out_len = (size_t)n, d->legacy.out_pos = 0, d->legacy.phase = 3;
        }
        *in_n = ip, *out_n = op;
        if (in_end && ip == avail && !(d->legacy.phase == 3 && d->legacy.out_pos < d->legacy.out_len)) {
                /* All input read and handed out: the end between blocks,
                 * truncated anywhere else. */
                if (d->legacy.phase == 1 && d->legacy.hdr_n == 0)
                        return 1;
                return truncated(d);
        }
        return 0;
}
static void lz4l_end(struct pn_decoder *d) {
        free(d->legacy.in);
        free(d->legacy.out);
}
#endif

/* The formats, by enum pn_codec; a format without its library has a name
 * and a magic number only, so that it can be named in errors. */
static const struct codec codecs[] = {
        [PN_CODEC_GZIP] = {"gzip", "\x1f\x8b", 2,
#if HAVE_ZLIB
                           gz_init, gz_step, gz_end
#endif
        },
        [PN_CODEC_XZ] = {"xz", "\xfd" "7zXZ\0", 6,
#if HAVE_LZMA
                         xz_init, xz_step, xz_end
#endif
        },
        [PN_CODEC_ZSTD] = {"zstd", "\x28\xb5\x2f\xfd", 4,
#if HAVE_ZSTD
                           zstd_init, zstd_step, zstd_end
#endif
        },
        [PN_CODEC_LZ4] = {"lz4", "\x04\x22\x4d\x18", 4,
#if HAVE_LZ4
                          lz4_init, lz4_step, lz4_end
#endif
        },
        [PN_CODEC_LZ4_LEGACY] = {"lz4-legacy", "\x02\x21\x4c\x18", 4,
#if HAVE_LZ4
                                 lz4l_init, lz4l_step, lz4l_end
#endif
        },
        [PN_CODEC_ZLIB] = {"zlib", "", 0,
#if HAVE_ZLIB
                           zl_init, zl_step, gz_end
#endif
        },
};
#define N_CODECS (sizeof codecs / sizeof codecs[0])

int pn_codec_detect(const uint8_t *p, size_t n, unsigned mask) {
        for (int c = 1; c < (int)N_CODECS; c++)
                if ((mask & PN_CODEC_BIT(c)) && codecs[c].magic_len && n >= codecs[c].magic_len && !memcmp(p, codecs[c].magic, codecs[c].magic_len))
                        return c;
        return PN_CODEC_NONE;
}

const char *pn_codec_name(int codec) {
        return codec > 0 && codec < (int)N_CODECS ? codecs[codec].name : "unknown";
}

bool pn_codec_built(int codec) {
        return codec > 0 && codec < (int)N_CODECS && codecs[codec].step;
}

int pn_decoder_new(int codec, unsigned flags, unsigned threads, uint64_t limit, struct pn_decoder **ret) {
        if (!pn_codec_built(codec))
                return -EOPNOTSUPP;
        struct pn_decoder *d = calloc(1, sizeof *d);
        if (!d)
                return -ENOMEM;
        d->c = &codecs[codec], d->flags = flags, d->limit = limit;
        int r = d->c->init(d, threads);
        if (r < 0) {
                pn_decoder_free(d);
                return r;
        }
        *ret = d;
        return 0;
}

void pn_decoder_free(struct pn_decoder *d) {
        if (!d)
                return;
        if (d->c->end)
                d->c->end(d);
        free(d);
}

int pn_decoder_step(struct pn_decoder *d, const uint8_t *in, size_t in_len, size_t *in_pos, uint8_t *out,
                    size_t out_len, size_t *out_pos, bool in_end) {
        if (d->error)
                return d->error == PN_DECODE_NO_MEMORY ? -ENOMEM : -EBADMSG;
        size_t in_n = in_len - *in_pos, out_n = out_len - *out_pos;
        /* Never past the limit: the room is cut to what is left of it. */
        if (d->limit - d->total < out_n)
                out_n = (size_t)(d->limit - d->total);
        size_t room = out_n;
        int r = d->c->step(d, in + *in_pos, &in_n, out + *out_pos, &out_n, in_end);
        if (r == -ENOMEM) /* the decoder's own memory: no verdict on the data */
                d->error = PN_DECODE_NO_MEMORY, d->detail = NULL;
        *in_pos += in_n, *out_pos += out_n;
        d->total += out_n;
        if (r == 0 && room == 0 && d->total == d->limit && out_len > *out_pos) {
                /* More is asked for than the limit allows; whether the
                 * stream has more is found by decoding one byte more. */
                uint8_t probe;
                size_t pi = in_len - *in_pos, po = 1;
                int k = d->c->step(d, in + *in_pos, &pi, &probe, &po, in_end);
                if (k == -ENOMEM)
                        d->error = PN_DECODE_NO_MEMORY, d->detail = NULL;
                *in_pos += pi;
                if (po) {
                        d->error = PN_DECODE_OVER_LIMIT, d->detail = NULL;
                        return -E2BIG;
                }
                return k;
        }
        return r;
}

enum pn_decode_error pn_decoder_error(const struct pn_decoder *d, const char **detail, int *code) {
        if (detail)
                *detail = d->detail;
        if (code)
                *code = d->code;
        return d->error;
}

uint64_t pn_decoder_total(const struct pn_decoder *d) {
        return d->total;
}

ssize_t pn_decode_prefix(int codec, const uint8_t *p, size_t n, uint8_t *out, size_t size) {
        struct pn_decoder *d;
        if (pn_decoder_new(codec, PN_DECODE_STOP_AT_TRAILING, 0, UINT64_MAX, &d) < 0)
                return -1;
        size_t in_pos = 0, out_pos = 0;
        int r = 0;
        while (r == 0 && out_pos < size && in_pos < n) {
                size_t i0 = in_pos, o0 = out_pos;
                r = pn_decoder_step(d, p, n, &in_pos, out, size, &out_pos, false);
                if (r == 0 && in_pos == i0 && out_pos == o0)
                        break; /* needs more input than there is */
        }
        pn_decoder_free(d);
        return r < 0 ? -1 : (ssize_t)out_pos;
}
