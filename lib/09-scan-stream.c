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

#include "01-base-decompress.h"
#include "09-scan-private.h"

_Static_assert((int)PN_STREAM_GZIP == (int)PN_CODEC_GZIP && (int)PN_STREAM_XZ == (int)PN_CODEC_XZ &&
                       (int)PN_STREAM_ZSTD == (int)PN_CODEC_ZSTD,
               "the stream kinds are the decompressor's formats");

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
        size_t in_len, in_pos;
        bool in_end;
        uint64_t out_total;
};

int pn_stream_kind(const uint8_t *p, size_t n) {
        int codec = pn_codec_detect(p, n, PN_CODEC_BIT(PN_CODEC_GZIP) | PN_CODEC_BIT(PN_CODEC_XZ) | PN_CODEC_BIT(PN_CODEC_ZSTD));
        return pn_codec_built(codec) ? codec : PN_STREAM_NONE;
}

static void fail(struct pn_stream *st, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct pn_stream *st, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->msg, sizeof st->msg, fmt, ap);
        va_end(ap);
        st->err = err;
}

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
        st->in = b, st->in_len = (size_t)n, st->in_pos = 0;
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

/* The decoder's error in the words of a scan. */
static void decode_failed(struct pn_stream *st, struct pn_decoder *d, int err, size_t slot_len) {
        const char *detail, *name = pn_codec_name(st->kind);
        int code;
        switch (pn_decoder_error(d, &detail, &code)) {
        case PN_DECODE_NO_MEMORY:
                fail(st, -ENOMEM, "%s", pn_out_of_memory);
                return;
        case PN_DECODE_TRUNCATED:
                /* A gzip stream that gave nothing yet just ends, as before. */
                if (st->kind == PN_STREAM_GZIP && st->out_total + slot_len == 0)
                        return;
                fail(st, -EBADMSG, "%s data ends early (truncated)", name);
                return;
        case PN_DECODE_DAMAGED:
                if (st->kind == PN_STREAM_XZ)
                        fail(st, -EBADMSG, "xz data is damaged (liblzma error %d)", code);
                else
                        fail(st, -EBADMSG, "%s data is damaged: %s", name, detail ? detail : "decoding failed");
                return;
        default:
                fail(st, err, "%s data cannot be decoded", name);
        }
}

/* Fills slots until the input ends, an error, or a stop. */
static void run(struct pn_stream *st) {
        struct pn_decoder *d;
        unsigned threads = st->kind == PN_STREAM_XZ ? (st->threads ? st->threads : 1) : 0;
        if (pn_decoder_new(st->kind, PN_DECODE_STOP_AT_TRAILING, threads, UINT64_MAX, &d) < 0) {
                fail(st, -ENOMEM, "%s", st->kind == PN_STREAM_XZ ? "cannot start the xz decoder" : pn_out_of_memory);
                return;
        }
        for (struct slot *s; !st->err && (s = slot_get(st));) {
                s->len = 0;
                bool done = false;
                while (s->len < SLOT_SIZE && !st->err) {
                        if (st->in_pos == st->in_len && !st->in_end && !refill(st) && st->err)
                                break;
                        int r = pn_decoder_step(d, st->in, st->in_len, &st->in_pos, s->buf, SLOT_SIZE, &s->len,
                                                st->in_end);
                        if (r < 0)
                                decode_failed(st, d, r, s->len);
                        if (r > 0 || (r < 0 && !st->err)) {
                                done = true;
                                break;
                        }
                }
                st->out_total += s->len;
                slot_put(st, done || st->err);
                if (done)
                        break;
        }
        pn_decoder_free(d);
}

static void *producer(void *arg) {
        struct pn_stream *st = arg;
        if (pn_codec_built(st->kind))
                run(st);
        else
                fail(st, -EINVAL, "no decoder");
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
