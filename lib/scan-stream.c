/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decompression ahead of the archive reader.  A gzip, xz or zstd stream
 * is decompressed by a thread of its own into a ring of chunks that the
 * archive reader (libarchive, which then sees a plain tar, cpio or ar)
 * takes one after the other: decompressing the next megabytes overlaps
 * reading the members of the last ones, and xz's blocks are decoded on
 * every core (liblzma's multi-threaded decoder), where the format allows.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-private.h"

#if HAVE_ZLIB
#include <zlib.h>
#endif
#if HAVE_LZMA
#include <lzma.h>
#endif
#if HAVE_ZSTD
#include <zstd.h>
#endif

#define SLOTS 4u
#define SLOT_SIZE (1u << 20)

struct slot {
        uint8_t *buf;
        size_t len;
};

struct pn_stream {
        int kind;
        pn_stream_up_fn up;
        void *u;
        unsigned threads;
        pthread_t thread;
        bool started;
        pthread_mutex_t lock;
        pthread_cond_t filled, freed;
        struct slot slot[SLOTS];
        size_t head, count; /* filled slots, the oldest at HEAD */
        bool held;          /* the consumer holds the slot at HEAD */
        bool end, stop;
        int err;
        char msg[256];
        /* the producer's input */
        const uint8_t *in;
        size_t in_len;
        bool in_end;
        uint64_t out_total;
};

int pn_stream_kind(const uint8_t *p, size_t n) {
#if HAVE_ZLIB
        if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
                return PN_STREAM_GZIP;
#endif
#if HAVE_LZMA
        if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
                return PN_STREAM_XZ;
#endif
#if HAVE_ZSTD
        if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
                return PN_STREAM_ZSTD;
#endif
        (void)p, (void)n;
        return PN_STREAM_NONE;
}

static void fail(struct pn_stream *st, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct pn_stream *st, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
        st->err = err;
}

#if HAVE_ZLIB || HAVE_LZMA || HAVE_ZSTD
/* More input for the decoder: false at its end or on an error. */
static bool refill(struct pn_stream *st) {
        if (st->in_end)
                return false;
        const void *b;
        ssize_t n = st->up(st->u, &b, st->msg, sizeof st->msg);
        if (n < 0) {
                st->err = -EIO;
                st->in_end = true;
                return false;
        }
        if (n == 0) {
                st->in_end = true;
                return false;
        }
        st->in = b, st->in_len = (size_t)n;
        return true;
}

/* Waits for a free slot: its buffer, or NULL when told to stop. */
static struct slot *slot_get(struct pn_stream *st) {
        pthread_mutex_lock(&st->lock);
        while (st->count == SLOTS && !st->stop)
                pthread_cond_wait(&st->freed, &st->lock);
        struct slot *s = st->stop ? NULL : &st->slot[(st->head + st->count) % SLOTS];
        pthread_mutex_unlock(&st->lock);
        return s;
}

static void slot_put(struct pn_stream *st, bool end) {
        pthread_mutex_lock(&st->lock);
        if (!end || st->slot[(st->head + st->count) % SLOTS].len)
                st->count++;
        if (end)
                st->end = true;
        pthread_cond_broadcast(&st->filled);
        pthread_mutex_unlock(&st->lock);
}

#endif

/* Each decoder fills slots until its input ends: 0, or an error in ERR. */
#if HAVE_ZLIB
static void run_gzip(struct pn_stream *st) {
        z_stream z = {0};
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
                fail(st, -ENOMEM, "out of memory");
                return;
        }
        bool member_end = false;
        for (struct slot *s; !st->err && (s = slot_get(st));) {
                s->len = 0;
                bool done = false;
                while (s->len < SLOT_SIZE && !st->err) {
                        if (z.avail_in == 0) {
                                if (!refill(st)) {
                                        done = true;
                                        break;
                                }
                                z.next_in = (Bytef *)st->in, z.avail_in = (uInt)st->in_len;
                        }
                        if (member_end) {
                                /* Concatenated members (an .apk), as gzip -d reads
                                 * them; what follows the last one, if it is no
                                 * member (zero padding), is ignored as gzip does. */
                                if (z.next_in[0] != 0x1f) {
                                        done = true;
                                        break;
                                }
                                inflateReset(&z);
                                member_end = false;
                        }
                        z.next_out = s->buf + s->len, z.avail_out = (uInt)(SLOT_SIZE - s->len);
                        int r = inflate(&z, Z_NO_FLUSH);
                        s->len = SLOT_SIZE - z.avail_out;
                        if (r == Z_STREAM_END)
                                member_end = true;
                        else if (r != Z_OK && r != Z_BUF_ERROR)
                                fail(st, -EBADMSG, "gzip data is damaged: %s", z.msg ? z.msg : "inflate failed");
                }
                if (done && !st->err && !member_end && st->out_total + s->len > 0)
                        fail(st, -EBADMSG, "gzip data ends early (truncated)");
                st->out_total += s->len;
                slot_put(st, done || st->err);
                if (done)
                        break;
        }
        inflateEnd(&z);
}
#endif

#if HAVE_LZMA
static void run_xz(struct pn_stream *st) {
        lzma_stream z = LZMA_STREAM_INIT;
        lzma_ret ir;
#if LZMA_VERSION >= 50040000
        lzma_mt mt = {.threads = st->threads ? st->threads : 1,
                      .flags = LZMA_CONCATENATED,
                      .memlimit_threading = 1024u << 20,
                      .memlimit_stop = UINT64_MAX};
        ir = lzma_stream_decoder_mt(&z, &mt);
#else
        ir = lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED);
#endif
        if (ir != LZMA_OK) {
                fail(st, -ENOMEM, "cannot start the xz decoder");
                return;
        }
        for (struct slot *s; !st->err && (s = slot_get(st));) {
                s->len = 0;
                bool done = false;
                while (s->len < SLOT_SIZE && !st->err) {
                        lzma_action act = LZMA_RUN;
                        if (z.avail_in == 0) {
                                if (refill(st))
                                        z.next_in = st->in, z.avail_in = st->in_len;
                                else
                                        act = LZMA_FINISH;
                        }
                        z.next_out = s->buf + s->len, z.avail_out = SLOT_SIZE - s->len;
                        lzma_ret r = lzma_code(&z, act);
                        s->len = SLOT_SIZE - z.avail_out;
                        if (r == LZMA_STREAM_END) {
                                done = true;
                                break;
                        }
                        if (r != LZMA_OK)
                                fail(st, -EBADMSG, "xz data is damaged (liblzma error %d)", (int)r);
                        else if (act == LZMA_FINISH && z.avail_out > 0)
                                fail(st, -EBADMSG, "xz data ends early (truncated)");
                }
                st->out_total += s->len;
                slot_put(st, done || st->err);
                if (done)
                        break;
        }
        lzma_end(&z);
}
#endif

#if HAVE_ZSTD
static void run_zstd(struct pn_stream *st) {
        ZSTD_DStream *z = ZSTD_createDStream();
        if (!z || ZSTD_isError(ZSTD_initDStream(z))) {
                ZSTD_freeDStream(z);
                fail(st, -ENOMEM, "out of memory");
                return;
        }
        ZSTD_inBuffer in = {NULL, 0, 0};
        size_t last = 0; /* 0 when a frame has ended */
        for (struct slot *s; !st->err && (s = slot_get(st));) {
                s->len = 0;
                bool done = false;
                while (s->len < SLOT_SIZE && !st->err) {
                        if (in.pos == in.size) {
                                if (!refill(st)) {
                                        done = true;
                                        break;
                                }
                                in = (ZSTD_inBuffer){st->in, st->in_len, 0};
                        }
                        if (last == 0 && in.size - in.pos >= 4 && st->out_total + s->len > 0) {
                                /* A frame ended: another, a skippable one, or
                                 * the end of the data (padding after it). */
                                const uint8_t *q = (const uint8_t *)in.src + in.pos;
                                uint32_t m = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
                                if (m != 0xFD2FB528u && (m & 0xFFFFFFF0u) != 0x184D2A50u) {
                                        done = true;
                                        break;
                                }
                        }
                        ZSTD_outBuffer o = {s->buf, SLOT_SIZE, s->len};
                        last = ZSTD_decompressStream(z, &o, &in);
                        s->len = o.pos;
                        if (ZSTD_isError(last))
                                fail(st, -EBADMSG, "zstd data is damaged: %s", ZSTD_getErrorName(last));
                }
                if (done && !st->err && last != 0)
                        fail(st, -EBADMSG, "zstd data ends early (truncated)");
                st->out_total += s->len;
                slot_put(st, done || st->err);
                if (done)
                        break;
        }
        ZSTD_freeDStream(z);
}
#endif

static void *producer(void *arg) {
        struct pn_stream *st = arg;
        switch (st->kind) {
#if HAVE_ZLIB
        case PN_STREAM_GZIP: run_gzip(st); break;
#endif
#if HAVE_LZMA
        case PN_STREAM_XZ: run_xz(st); break;
#endif
#if HAVE_ZSTD
        case PN_STREAM_ZSTD: run_zstd(st); break;
#endif
        default: fail(st, -EINVAL, "no decoder"); break;
        }
        pthread_mutex_lock(&st->lock);
        st->end = true;
        pthread_cond_broadcast(&st->filled);
        pthread_mutex_unlock(&st->lock);
        return NULL;
}

struct pn_stream *pn_stream_new(int kind, pn_stream_up_fn up, void *u, unsigned threads) {
        if (kind == PN_STREAM_NONE)
                return NULL;
        struct pn_stream *st = calloc(1, sizeof *st);
        if (!st)
                return NULL;
        st->kind = kind, st->up = up, st->u = u, st->threads = threads;
        pthread_mutex_init(&st->lock, NULL);
        pthread_cond_init(&st->filled, NULL);
        pthread_cond_init(&st->freed, NULL);
        for (size_t i = 0; i < SLOTS; i++)
                if (!(st->slot[i].buf = malloc(SLOT_SIZE))) {
                        pn_stream_free(st);
                        return NULL;
                }
        if (pthread_create(&st->thread, NULL, producer, st) != 0) {
                pn_stream_free(st);
                return NULL;
        }
        st->started = true;
        return st;
}

ssize_t pn_stream_read(struct pn_stream *st, const void **out, const char **why) {
        pthread_mutex_lock(&st->lock);
        if (st->held) {
                /* The consumer is done with the slot it had. */
                st->held = false;
                st->slot[st->head].len = 0;
                st->head = (st->head + 1) % SLOTS;
                st->count--;
                pthread_cond_broadcast(&st->freed);
        }
        while (st->count == 0 && !st->end)
                pthread_cond_wait(&st->filled, &st->lock);
        ssize_t n;
        if (st->count > 0) {
                /* Data first, even when an error follows it. */
                st->held = true;
                *out = st->slot[st->head].buf;
                n = (ssize_t)st->slot[st->head].len;
        } else if (st->err) {
                *why = st->msg;
                n = st->err;
        } else
                n = 0;
        pthread_mutex_unlock(&st->lock);
        return n;
}

void pn_stream_free(struct pn_stream *st) {
        if (!st)
                return;
        if (st->started) {
                pthread_mutex_lock(&st->lock);
                st->stop = true;
                pthread_cond_broadcast(&st->freed);
                pthread_mutex_unlock(&st->lock);
                pthread_join(st->thread, NULL);
        }
        for (size_t i = 0; i < SLOTS; i++)
                free(st->slot[i].buf);
        pthread_mutex_destroy(&st->lock);
        pthread_cond_destroy(&st->filled);
        pthread_cond_destroy(&st->freed);
        free(st);
}
