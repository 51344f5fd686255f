/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Archives: a tar (or cpio) of a root filesystem, a "docker save"
 * archive, and OCI image layouts, as an archive or a directory.
 *
 * Archives are streams (libarchive), read once, and their bytes are taken
 * from libarchive's own blocks, not copied.  A small ELF member is read
 * whole into memory; of a larger one only what its notes are read from is
 * kept as it goes by (09-scan-capture.c), so that memory is bounded whatever
 * the input's size; either is handed to the workers, the bytes in flight
 * bounded.  Past the member size cap only a prefix is read.  Every member of a
 * layer becomes an entry (09-scan-layers.c merges them), and the image's
 * manifest, which gives the order of its layers, is kept when met.
 */
#include "config.h"

#if HAVE_LIBARCHIVE

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "09-scan-archive-dl.h"
#include "02-elf-const.h"
#include "09-scan-private.h"


#define HEAD PN_SCAN_HEAD
/* A pipe is read in pieces of the size of its buffer (Linux's default,
 * left as it is): each read drains it, and the bytes land in a buffer
 * that stays in the cache for the archive reader after it.  Reading a
 * megabyte at a time from a pipe grown to match cost more CPU time per
 * byte (copies into a buffer larger than the cache, and the reader
 * spinning on the pipe's lock while its writer filled the rest), and the
 * stream came through slower (bench/stream.sh). */
#define PIPE_CHUNK (64u << 10)

/* Where an inner archive (an image layer) reads from: a byte range of a
 * file, which can be skipped without reading, or the current member of
 * the outer archive, after the bytes already peeked at. */
struct source {
        int fd;
        uint64_t off, len, pos;
        struct archive *outer;
        const uint8_t *peek;
        size_t peek_len;
        /* then the rest of the outer archive's block the peeked bytes
         * came from, and its next blocks as libarchive has them (BLOCKS),
         * not copied; or else its data copied into BUF */
        const uint8_t *rest;
        size_t rest_len;
        bool blocks;
        uint8_t *buf;
        struct pn_sums *sum; /* of every byte handed out, when verifying */
        bool pipe;           /* FD is read on, not by offset */
        size_t chunk;        /* BUF's size when not IO_CHUNK */
};

/* The next bytes of SRC: their number, 0 at its end, or -1 with the
 * reason in WHY (SIZE bytes). */
static la_ssize_t source_bytes(struct source *src, const void **out, char *why, size_t size) {
        if (src->peek_len) {
                *out = src->peek;
                la_ssize_t n = (la_ssize_t)src->peek_len;
                src->peek_len = 0;
                return n;
        }
        if (src->rest_len) {
                *out = src->rest;
                la_ssize_t n = (la_ssize_t)src->rest_len;
                src->rest_len = 0;
                return n;
        }
        if (src->outer && src->blocks) {
                for (;;) {
                        const void *p;
                        size_t len;
                        la_int64_t at;
                        int r = archive_read_data_block(src->outer, &p, &len, &at);
                        if (r == ARCHIVE_EOF)
                                return 0;
                        if (r != ARCHIVE_OK) {
                                snprintf(why, size, "%s", archive_error_string(src->outer));
                                return -1;
                        }
                        if (len > 0) {
                                *out = p;
                                return (la_ssize_t)len;
                        }
                }
        }
        if (src->outer) {
                la_ssize_t n = archive_read_data(src->outer, src->buf, IO_CHUNK);
                if (n < 0)
                        snprintf(why, size, "%s", archive_error_string(src->outer));
                *out = src->buf;
                return n < 0 ? -1 : n;
        }
        size_t chunk = src->chunk ? src->chunk : IO_CHUNK;
        uint64_t want = src->len - src->pos < chunk ? src->len - src->pos : chunk;
        if (want == 0)
                return 0;
        ssize_t n;
        do
                n = src->pipe ? read(src->fd, src->buf, want) : pread(src->fd, src->buf, want, (off_t)(src->off + src->pos));
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                snprintf(why, size, "read failed: %s", strerror(errno));
                return -1;
        }
        src->pos += (uint64_t)n;
        *out = src->buf;
        return n;
}

static la_ssize_t source_read(struct archive *a, void *data, const void **out) {
        struct source *src = data;
        char why[256];
        la_ssize_t n = source_bytes(src, out, why, sizeof why);
        if (n < 0)
                archive_set_error(a, EIO, "%s", why);
        if (n > 0 && src->sum)
                pn_sums_update(src->sum, *out, (size_t)n);
        return n;
}

/* SRC as the input of a decompressing thread (pn_stream_up_fn). */
static ssize_t source_up(void *u, const void **out, char *why, size_t size) {
        return source_bytes(u, out, why, size);
}

/* What a decompressing thread gives libarchive. */
static la_ssize_t stream_read(struct archive *a, void *data, const void **out) {
        const char *why = NULL;
        ssize_t n = pn_stream_read(data, out, &why);
        if (n < 0) {
                archive_set_error(a, EIO, "%s", why ? why : "read failed");
                return -1;
        }
        return n;
}

static la_int64_t source_skip(struct archive *a, void *data, la_int64_t request) {
        struct source *src = data;
        if (src->outer || src->pipe || src->peek_len || src->sum || request <= 0)
                return 0; /* a digest needs every byte read */
        uint64_t k = src->len - src->pos < (uint64_t)request ? src->len - src->pos : (uint64_t)request;
        src->pos += k;
        return (la_int64_t)k;
}

/* Opens A over SRC: through a thread that decompresses ahead when SRC
 * begins with gzip, xz or zstd (not when its digest is being taken, which
 * must cover every byte up to its end), else directly.  *ST gets that
 * thread's stream, to free after A. */
static int open_source(pkgnote_scan *s, struct archive *a, struct source *src, struct pn_stream **st) {
        *st = NULL;
        uint8_t m[8];
        size_t n = 0;
        if (src->peek_len) {
                n = src->peek_len < sizeof m ? src->peek_len : sizeof m;
                memcpy(m, src->peek, n);
        } else if (!src->outer && !src->pipe && src->len > src->pos) {
                ssize_t k = pread(src->fd, m, sizeof m, (off_t)(src->off + src->pos));
                n = k > 0 ? (size_t)k : 0;
                if (n > src->len - src->pos)
                        n = (size_t)(src->len - src->pos);
        }
        int kind = src->sum ? PN_STREAM_NONE : pn_stream_kind(m, n);
        if (kind != PN_STREAM_NONE && (*st = pn_stream_new(kind, source_up, src, s->opts.threads)))
                return archive_read_open2(a, *st, NULL, stream_read, NULL, NULL);
        return archive_read_open2(a, src, NULL, source_read, source_skip, NULL);
}

struct actx {
        pkgnote_scan *s;
        struct pool *pool;
        size_t input;
        const char *display; /* the input, for problems about the archive itself */
        int fd;              /* the outer archive */
        bool seekable;       /* fd is a regular file */
        uint8_t head[HEAD];
        /* The member being read: after its first bytes in HEAD, the rest
         * of the block of libarchive's they came from (valid until the
         * archive is read again), which its reader takes first; SPARSE:
         * it has holes, and is read through copies. */
        const uint8_t *rest;
        size_t rest_len;
        bool sparse;
        /* small JSON members of an image archive, by path */
        struct meta {
                char *name, *data;
                size_t len;
        } *meta;
        size_t n_meta, cap_meta;
        struct layer *layers;
        size_t n_layers, cap_layers;
        bool has_manifest, has_index, has_layout; /* image descriptions met */
        /* Archives inside the input (a .deb's data.tar.xz, a .deb in a
         * tar, a wheel in an image): the chain of those being read, and
         * the layers read from each, merged apart at the end. */
        char *chain[PKGNOTE_MAX_SCAN_DEPTH];
        size_t depth;
        struct layer **nested;
        size_t n_nested, cap_nested;
        uint64_t done_bytes; /* decompressed by archives read to the end */
        const struct pkgnote_scan_image *image; /* of the tree the archive is in, or NULL */
        bool in_tree;        /* a file of a directory tree: chain[0] names it */
        long cur_layer;      /* the image layer being read, or -1 */
        /* archives read through a decompressing thread: compressed,
         * although libarchive sees no filter */
        struct archive *streamed[PKGNOTE_MAX_SCAN_DEPTH + 2];
        size_t n_streamed;
        uint8_t *scratch;    /* IO_CHUNK bytes for drain() */
        uint8_t *nbuf[PKGNOTE_MAX_SCAN_DEPTH]; /* IO_CHUNK bytes for each level of nesting, kept */
};

/* Whether A is read through a decompressing thread. */
static bool streamed(const struct actx *c, const struct archive *a) {
        for (size_t i = 0; i < c->n_streamed; i++)
                if (c->streamed[i] == a)
                        return true;
        return false;
}

/* Records A as read through a decompressing thread (ST not NULL). */
static void stream_push(struct actx *c, struct archive *a, const struct pn_stream *st) {
        if (st && c->n_streamed < ELEMENTSOF(c->streamed))
                c->streamed[c->n_streamed++] = a;
}

static void stream_pop(struct actx *c, const struct pn_stream *st) {
        if (st && c->n_streamed > 0)
                c->n_streamed--;
}

static la_ssize_t read_fully(struct archive *a, void *buf, size_t len) {
        size_t done = 0;
        while (done < len) {
                la_ssize_t n = archive_read_data(a, (uint8_t *)buf + done, len - done);
                if (n < 0)
                        return n;
                if (n == 0)
                        break;
                done += (size_t)n;
        }
        return (la_ssize_t)done;
}

/* Reads the first bytes of the current member of A (up to HEAD) into
 * c->head, through libarchive's own blocks: the rest of the last block is
 * left in c->rest for the member's reader, so that the bytes after the
 * head are not copied (most are passed over).  Returns their number or a
 * negative libarchive status. */
static la_ssize_t read_head(struct actx *c, struct archive *a, struct archive_entry *ent) {
        c->rest_len = 0;
        c->sparse = archive_entry_sparse_count(ent) > 0;
        if (c->sparse)
                return read_fully(a, c->head, HEAD);
        size_t got = 0;
        while (got < HEAD) {
                const void *p;
                size_t len;
                la_int64_t at;
                int r = archive_read_data_block(a, &p, &len, &at);
                if (r == ARCHIVE_EOF)
                        break;
                if (r != ARCHIVE_OK)
                        return r < 0 ? r : ARCHIVE_FATAL;
                size_t k = len < HEAD - got ? len : HEAD - got;
                if (k) /* an empty block may come without bytes */
                        memcpy(c->head + got, p, k);
                got += k;
                c->rest = (const uint8_t *)p + k, c->rest_len = len - k;
        }
        return (la_ssize_t)got;
}

/* The next bytes of the current member of A after read_head(): the rest
 * of its block first, then libarchive's blocks as they are.  Their
 * number, 0 at the member's end, or a negative libarchive status. */
static la_ssize_t member_block(struct actx *c, struct archive *a, const void **out) {
        if (c->rest_len) {
                *out = c->rest;
                size_t n = c->rest_len;
                c->rest_len = 0;
                return (la_ssize_t)n;
        }
        if (c->sparse) {
                *out = c->scratch;
                return archive_read_data(a, c->scratch, IO_CHUNK);
        }
        for (;;) {
                size_t len;
                la_int64_t at;
                int r = archive_read_data_block(a, out, &len, &at);
                if (r == ARCHIVE_EOF)
                        return 0;
                if (r != ARCHIVE_OK)
                        return r < 0 ? r : ARCHIVE_FATAL;
                if (len > 0)
                        return (la_ssize_t)len;
        }
}

/* Up to LEN bytes of the current member of A after read_head() into BUF
 * (fewer at its end): their number or a negative libarchive status.
 * Through member_block() only: archive_read_data() after blocks taken
 * would take the bytes before them for a hole. */
static la_ssize_t member_read(struct actx *c, struct archive *a, uint8_t *buf, size_t len) {
        size_t done = 0;
        while (done < len) {
                if (!c->rest_len) {
                        const void *p;
                        la_ssize_t n = member_block(c, a, &p);
                        if (n < 0)
                                return n;
                        if (n == 0)
                                break;
                        c->rest = p, c->rest_len = (size_t)n;
                }
                size_t k = c->rest_len < len - done ? c->rest_len : len - done;
                memcpy(buf + done, c->rest, k);
                c->rest += k, c->rest_len -= k, done += k;
        }
        return (la_ssize_t)done;
}

static void member_problem(struct actx *c, const char *norm, int err, const char *what) {
        char *abs = pn_scan_join("/", norm);
        pn_scan_add_problem(c->s, c->input, abs ? abs : norm, err, "%s", what);
        free(abs);
}

static int scan_nested(struct actx *c, struct archive *outer, const char *path, size_t n);

/* Bytes archive A has decompressed so far. */
static uint64_t inflated(struct archive *a) {
        int64_t n = archive_filter_bytes(a, 0);
        return n > 0 ? (uint64_t)n : 0;
}

/* Counts what archive A, read to its end, decompressed. */
static void count_done(struct actx *c, struct archive *a) {
        c->done_bytes += inflated(a);
}

/* -EFBIG when the input, with A being read, decompressed more than the
 * limit; else 0. */
static int over_limit(struct actx *c, struct archive *a) {
        if (c->done_bytes + inflated(a) <= c->s->opts.max_bytes)
                return 0;
        return pn_error(-EFBIG, "decompresses to more than %llu bytes, the limit of one input (max_bytes)",
                        (unsigned long long)c->s->opts.max_bytes);
}

/* A file the package databases are read from (pn_scan_db_path()): kept
 * whole for the merge, unless it is larger than they may be. */
static int keep_db_file(struct actx *c, struct archive *a, struct entry *e, int64_t size) {
        size_t max = pn_scan_db_max(e->path), cap = size >= 0 ? (size_t)size : 65536, len = 0;
        if (size > (int64_t)max)
                return 0; /* too large to be read; the merge says so */
        char *buf = malloc(cap + 1);
        if (!buf)
                return pn_oom();
        for (;;) {
                if (len == cap) {
                        if (cap >= max) {
                                e->size = (uint64_t)max + 1;
                                free(buf);
                                return 0;
                        }
                        size_t ncap = cap * 2 < max ? cap * 2 : max;
                        char *nb = realloc(buf, ncap + 1);
                        if (!nb) {
                                free(buf);
                                return pn_oom();
                        }
                        buf = nb, cap = ncap;
                }
                la_ssize_t k = archive_read_data(a, buf + len, cap - len);
                if (k < 0) {
                        member_problem(c, e->path, -EIO, archive_error_string(a));
                        free(buf);
                        return k == ARCHIVE_FATAL ? pn_error(-EIO, "%s", archive_error_string(a)) : 0;
                }
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = 0;
        e->data = buf;
        e->len = len;
        e->size = len;
        return 0;
}

/* An ELF member E of SIZE bytes too large to be read whole, its first N
 * bytes in c->head: what its notes are read from is kept (as far as its
 * first WANT bytes, the size limit of a member), the rest passed over;
 * its checksums, when asked for, are of every byte.  Its object O is
 * taken. */
static int member_capture(struct actx *c, struct archive *a, struct entry *e, struct pkgnote_scan_object *o,
                          uint64_t size, uint64_t want, size_t n) {
        pkgnote_scan *s = c->s;
        struct pn_capture cap;
        struct pn_sums sum;
        bool sums = s->opts.flags & PKGNOTE_SCAN_CHECKSUMS;
        if (sums) {
                pn_sums_init(&sum);
                pn_sums_update(&sum, c->head, n);
        }
        int r = pn_capture_init(&cap, want, s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES);
        if (r == 0)
                r = pn_capture_feed(&cap, c->head, n);
        uint64_t got = n;
        la_ssize_t k = 0;
        const void *p;
        while (r == 0 && (k = member_block(c, a, &p)) > 0) {
                got += (uint64_t)k;
                if (sums)
                        pn_sums_update(&sum, p, (size_t)k);
                r = pn_capture_feed(&cap, p, (size_t)k);
                if (r == 0)
                        r = over_limit(c, a);
        }
        if (r < 0 || k < 0) {
                pn_capture_clear(&cap);
                pn_scan_object_free(o);
                if (r < 0)
                        return r == -ENOMEM ? pn_oom() : r;
                member_problem(c, e->path, -EIO, archive_error_string(a));
                atomic_fetch_add(&s->c.unreadable, 1);
                return k == ARCHIVE_FATAL ? pn_error(-EIO, "%s", archive_error_string(a)) : 0;
        }
        if (sums) {
                pn_sums_final(&sum, o->sha1, o->sha256);
                o->has_sums = true;
        }
        /* As a member read whole would be: its size, or the part read
         * when the size limit cut it. */
        bool partial = got >= want && size > want;
        o->size = partial ? size : got;
        e->obj = o;
        struct job j = {.kind = JOB_MEMBER, .buf = cap.buf, .len = cap.len, .spans = cap.spans, .n_spans = cap.n_spans,
                        .span_size = got < want ? got : want, .partial = partial, .obj = o};
        cap.buf = NULL, cap.spans = NULL;
        pn_capture_clear(&cap);
        pn_pool_submit(c->pool, &j);
        return 0;
}

/* deps --verify: an ELF member E of SIZE bytes (-1: not known), whose
 * first N bytes are in c->head, kept whole in E's data. */
static int member_keep(struct actx *c, struct archive *a, struct entry *e, int64_t size, size_t n) {
        uint64_t max = c->s->opts.max_bytes;
        /* A size said is believed up to 64 MiB at first: a header may lie. */
        size_t cap = size >= 0 && (uint64_t)size >= n ? (size_t)size : n + (1u << 20), len = n;
        if (cap > (64u << 20) && n < (64u << 20))
                cap = 64u << 20;
        uint8_t *buf = malloc(cap ? cap : 1);
        if (!buf)
                return pn_oom();
        memcpy(buf, c->head, n);
        for (;;) {
                if (len == cap) {
                        /* Longer than it said (or it did not say). */
                        if (cap >= max) {
                                free(buf);
                                return pn_error(-EFBIG, "'%s': an ELF file larger than %llu bytes", e->path,
                                                (unsigned long long)max);
                        }
                        size_t ncap = cap > max / 2 ? (size_t)max : cap * 2;
                        uint8_t *nb = realloc(buf, ncap);
                        if (!nb) {
                                free(buf);
                                return pn_oom();
                        }
                        buf = nb, cap = ncap;
                }
                size_t want = cap - len;
                la_ssize_t k = member_read(c, a, buf + len, want);
                if (k < 0) {
                        free(buf);
                        member_problem(c, e->path, -EIO, archive_error_string(a));
                        return k == ARCHIVE_FATAL ? pn_error(-EIO, "%s", archive_error_string(a)) : 0;
                }
                len += (size_t)k;
                if ((size_t)k < want || (size >= 0 && len == (uint64_t)size))
                        break;
                int r = over_limit(c, a);
                if (r < 0) {
                        free(buf);
                        return r;
                }
        }
        e->data = (char *)buf, e->len = len, e->size = len;
        return 0;
}

/* A regular file member: only its first bytes unless it is ELF, or an
 * archive, which is opened. */
static int member_file(struct actx *c, struct archive *a, struct archive_entry *ent, struct entry *e) {
        pkgnote_scan *s = c->s;
        int64_t size = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
        e->size = size > 0 ? (uint64_t)size : 0;
        atomic_fetch_add(&s->prog_files, 1);
        if (s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES)
                return 0; /* listing images reads no files */
        if (pn_scan_db_path(e->path))
                return keep_db_file(c, a, e, size);
        if (size == 0)
                return 0;
        la_ssize_t n = read_head(c, a, ent);
        if (n < 0) {
                member_problem(c, e->path, -EIO, archive_error_string(a));
                atomic_fetch_add(&s->c.unreadable, 1);
                return n == ARCHIVE_FATAL ? pn_error(-EIO, "%s", archive_error_string(a)) : 0;
        }
        if (s->artefact) {
                /* deps --verify: ELF files whole, nothing else; archives
                 * inside are not the artefact's files. */
                int k = pn_scan_verify_keep(s, c->head, (size_t)n, size > 0 ? (uint64_t)size : 0);
                return k <= 0 ? k : member_keep(c, a, e, size, (size_t)n);
        }
        if (n < SELFMAG || !pn_scan_object_magic(c->head, (size_t)n))
                return n > 0 && pn_scan_format_bid(c->head, (size_t)n, PN_AT_MEMBER, false)
                               ? scan_nested(c, a, e->path, (size_t)n)
                               : 0;
        if (size < 0)
                size = (int64_t)s->opts.max_member + 1; /* unknown: read up to the cap */
        uint64_t want = (uint64_t)size < s->opts.max_member ? (uint64_t)size : s->opts.max_member;
        if (want < (uint64_t)n)
                want = (uint64_t)n;
        char *abs = pn_scan_join("/", e->path);
        struct pkgnote_scan_object *o = abs ? pn_scan_object_new(abs, c->input) : NULL;
        free(abs);
        if (o && pn_scan_object_set_containers(o, c->chain, c->depth) < 0) {
                pn_scan_object_free(o);
                o = NULL;
        }
        if (o && size > (int64_t)PN_MEMBER_WHOLE && archive_entry_size_is_set(ent))
                return member_capture(c, a, e, o, (uint64_t)size, want, (size_t)n);
        size_t cap = 0;
        uint8_t *buf = o ? pn_pool_buf(c->pool, want, &cap) : NULL;
        if (!buf) {
                pn_scan_object_free(o);
                return pn_oom();
        }
        memcpy(buf, c->head, (size_t)n);
        la_ssize_t m = (uint64_t)n < want ? member_read(c, a, buf + n, want - (uint64_t)n) : 0;
        if (m < 0) {
                member_problem(c, e->path, -EIO, archive_error_string(a));
                atomic_fetch_add(&s->c.unreadable, 1);
                pn_pool_buf_free(buf, cap);
                pn_scan_object_free(o);
                return 0;
        }
        size_t got = (size_t)n + (size_t)m;
        bool partial = got < (uint64_t)size && got == want;
        if (s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) {
                /* Checksums need every byte, also past the cap; only
                 * objects with a note keep them, which the worker
                 * decides later, so all ELF members are summed. */
                struct pn_sums sum;
                pn_sums_init(&sum);
                pn_sums_update(&sum, buf, got);
                for (;;) {
                        const void *p;
                        la_ssize_t k = member_block(c, a, &p);
                        if (k <= 0) {
                                if (k == 0) {
                                        pn_sums_final(&sum, o->sha1, o->sha256);
                                        o->has_sums = true;
                                }
                                break;
                        }
                        pn_sums_update(&sum, p, (size_t)k);
                }
        }
        o->size = size >= 0 && !partial ? got : (uint64_t)size;
        e->obj = o;
        struct job j = {.kind = JOB_MEMBER, .buf = buf, .len = got, .cap = cap, .partial = partial, .obj = o};
        pn_pool_submit(c->pool, &j);
        return 0;
}

/* Adds one member to L.  IMAGE: the layer of an image, where ".wh."
 * names are whiteouts. */
static int member(struct actx *c, struct archive *a, struct archive_entry *ent, struct layer *l, const char *norm,
                  bool image) {
        if (!*norm)
                return 0; /* the root directory */
        if (image) {
                const char *slash = strrchr(norm, '/');
                const char *base = slash ? slash + 1 : norm;
                if (strncmp(base, ".wh.", 4) == 0) {
                        size_t dlen = slash ? (size_t)(slash - norm) : 0;
                        char path[PKGNOTE_MAX_SCAN_PATH + 1];
                        if (!strcmp(base, ".wh..wh..opq")) {
                                memcpy(path, norm, dlen);
                                path[dlen] = 0;
                                return pn_layer_add(l, path, E_OPAQUE) ? 0 : -ENOMEM;
                        }
                        if (!strncmp(base, ".wh..wh.", 8) || !base[4])
                                return 0; /* aufs bookkeeping, or a whiteout of no name */
                        snprintf(path, sizeof path, "%.*s%s%s", (int)dlen, norm, dlen ? "/" : "", base + 4);
                        return pn_layer_add(l, path, E_WHITEOUT) ? 0 : -ENOMEM;
                }
        }
        const char *hard = archive_entry_hardlink(ent);
        if (hard) {
                char t[PKGNOTE_MAX_SCAN_PATH + 1];
                if (pn_path_normalize(hard, t, sizeof t) <= 0) {
                        member_problem(c, norm, -EXDEV, "hard link target outside the archive, ignored");
                        return 0;
                }
                struct entry *e = pn_layer_add(l, norm, E_HARDLINK);
                if (!e || !(e->target = strdup(t)))
                        return -ENOMEM;
                return 0;
        }
        switch (archive_entry_filetype(ent)) {
        case AE_IFREG: {
                struct entry *e = pn_layer_add(l, norm, E_FILE);
                return e ? member_file(c, a, ent, e) : -ENOMEM;
        }
        case AE_IFDIR: return pn_layer_add(l, norm, E_DIR) ? 0 : -ENOMEM;
        case AE_IFLNK:
                return pn_layer_add_symlink(l, norm, archive_entry_symlink(ent),
                                            c->s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES);
        default: return pn_layer_add(l, norm, E_SPECIAL) ? 0 : -ENOMEM;
        }
}

enum { READ_LAYER, READ_NESTED, READ_OUTER };

/* A reader of image layers (tar), of archives inside others (tar, cpio,
 * ar as in .deb, zip as in wheels and .conda) or of the input itself
 * (those and ISO 9660), any compression.  Tar segments may follow each
 * other (an Alpine .apk: gzip members of tar without their end). */
static struct archive *archive_new(int kind) {
        struct archive *a = archive_read_new();
        if (!a)
                return NULL;
        archive_read_support_filter_all(a);
        archive_read_support_format_tar(a);
        if (kind != READ_LAYER) {
                archive_read_support_format_cpio(a);
                archive_read_support_format_ar(a);
                archive_read_support_format_zip(a);
                (void)archive_read_set_options(a, "tar:read_concatenated_archives");
        }
        if (kind == READ_OUTER)
                archive_read_support_format_iso9660(a);
        return a;
}

enum { MEMBER_END = 0, MEMBER_OK, MEMBER_DAMAGED, MEMBER_SKIPPED };

/* Reads the next header of A into ENT (the caller's: libarchive's own,
 * which archive_read_next_header() fills, is made without a check by
 * archive_read_new(), and a failed allocation there crashes in the first
 * header read) and the member's normalised name into NORM.  Returns MEMBER_OK; MEMBER_END; MEMBER_DAMAGED, a header
 * libarchive can read past, for the caller to report where it belongs;
 * MEMBER_SKIPPED, an unsafe name, reported here; -ENOEXEC when the first
 * header fails (A is no archive at all), or -EBADMSG. */
static int next_member(struct actx *c, struct archive *a, bool *first, struct archive_entry *ent,
                       char norm[PKGNOTE_MAX_SCAN_PATH + 1]) {
        c->rest_len = 0; /* of the member before, if it was not read */
        int r = over_limit(c, a);
        if (r < 0)
                return r;
        r = archive_read_next_header2(a, ent);
        if (r == ARCHIVE_EOF)
                return MEMBER_END;
        if (r == ARCHIVE_FATAL)
                return pn_error(*first ? -ENOEXEC : -EBADMSG, "%s", archive_error_string(a));
        *first = false;
        if (r == ARCHIVE_RETRY)
                return MEMBER_DAMAGED;
        const char *name = archive_entry_pathname(ent);
        int k = name ? pn_path_normalize(name, norm, PKGNOTE_MAX_SCAN_PATH + 1) : -EBADMSG;
        if (k < 0) {
                pn_scan_add_problem(c->s, c->input, name ? name : "", k, "unsafe member name, skipped: %s",
                                    name ? pkgnote_last_error() : "no name");
                atomic_fetch_add(&c->s->c.unreadable, 1);
                return MEMBER_SKIPPED;
        }
        return MEMBER_OK;
}

/* Reads what is left of the current member of a compressed archive A,
 * so that what it decompresses to counts against the limit as it goes
 * (skipping it, libarchive would decompress it all at once). */
static int drain(struct actx *c, struct archive *a) {
        if (archive_filter_count(a) < 2 && !streamed(c, a))
                return 0;
        for (;;) {
                const void *p;
                la_ssize_t k = member_block(c, a, &p);
                if (k <= 0)
                        return 0; /* an error shows at the next header */
                if ((k = over_limit(c, a)) < 0)
                        return (int)k;
        }
}

/* Reads every member of A into L.  Returns 0, -ENOEXEC when A is not an
 * archive at all (nothing read), or another negative errno. */
static int read_members_into(struct actx *c, struct archive *a, struct layer *l, bool image,
                             struct archive_entry *ent) {
        bool first = true;
        for (;;) {
                char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                int k = next_member(c, a, &first, ent, norm);
                if (k <= 0)
                        return k;
                if (k == MEMBER_DAMAGED) {
                        member_problem(c, l->name ? l->name : "", -EBADMSG, archive_error_string(a));
                        continue;
                }
                if (k == MEMBER_SKIPPED)
                        continue;
                if ((k = member(c, a, ent, l, norm, image)) < 0 || (k = drain(c, a)) < 0)
                        return k;
                atomic_store(&c->s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
                pn_scan_progress(c->s, false);
        }
}

static int read_members(struct actx *c, struct archive *a, struct layer *l, bool image) {
        struct archive_entry *ent = archive_entry_new();
        if (!ent)
                return pn_oom();
        int r = read_members_into(c, a, l, image, ent);
        archive_entry_free(ent);
        return r;
}

/* Scans an image layer from SRC into a new layer named NAME.  A member
 * that is not an archive is dropped silently (an image archive holds
 * configs and manifests too). */
static int scan_layer(struct actx *c, struct source *src, const char *name) {
        if (c->n_layers >= PKGNOTE_MAX_SCAN_LAYERS)
                return pn_error(-E2BIG, "more than %u layers", PKGNOTE_MAX_SCAN_LAYERS);
        if (PN_GROW(c->layers, c->cap_layers, c->n_layers + 1) < 0)
                return pn_oom();
        struct layer *l = &c->layers[c->n_layers];
        memset(l, 0, sizeof *l);
        if (!(l->name = strdup(name)))
                return pn_oom();
        c->n_layers++;
        struct archive *a = archive_new(READ_LAYER);
        if (!a || !(src->buf = malloc(IO_CHUNK))) {
                archive_read_free(a);
                return pn_oom();
        }
        if (src->peek_len) {
                /* The bytes peeked at sit in c->head, which this layer's
                 * own members are read into while libarchive may still
                 * copy from the block handed to it: give it a copy. */
                memcpy(src->buf, src->peek, src->peek_len);
                src->peek = src->buf;
        }
        /* The digest a layer's name carries: "blobs/sha256/HEX", or a
         * docker archive's "HEX.tar" (the digest of the tar it is). */
        char want[65] = "";
        struct pn_sums sum;
        if (c->s->opts.flags & PKGNOTE_SCAN_VERIFY_LAYERS) {
                const char *hex = !strncmp(name, "blobs/sha256/", 13) ? name + 13 : name;
                size_t k = strspn(hex, "0123456789abcdef");
                if (k == 64 && (!strcmp(hex + k, "") ? hex != name : !strcmp(hex + k, ".tar")))
                        memcpy(want, hex, 65), want[64] = 0;
                pn_sums_init(&sum);
                src->sum = want[0] ? &sum : NULL;
        }
        struct pn_stream *st;
        int r = open_source(c->s, a, src, &st);
        stream_push(c, a, st);
        c->cur_layer = (long)(c->n_layers - 1);
        if (r == ARCHIVE_OK)
                r = read_members(c, a, l, true);
        else
                r = -ENOEXEC;
        c->cur_layer = -1;
        if (src->sum) {
                /* The bytes after the archive's end (padding) count too. */
                const void *out;
                la_ssize_t k;
                while ((k = source_read(a, src, &out)) > 0)
                        ;
                char sha1[41], sha256[65];
                pn_sums_final(&sum, sha1, sha256);
                l->verified = k == 0 && !strcmp(sha256, want) ? 1 : -1;
                src->sum = NULL;
        }
        if (r == -ENOEXEC) {
                /* Kept empty: an image archive holds configs too, and a
                 * manifest naming it as a layer is told below. */
                l->not_archive = true;
                r = 0;
        } else if (r == -EFBIG || r == -ENOMEM) {
                /* a limit of the whole input */
        } else if (r < 0 && c->s->artefact) {
                /* deps --verify: what a layer cut short leaves out cannot be told. */
                r = pn_error(r, "layer %s: %s", name, pkgnote_last_error());
        } else if (r < 0) {
                char *abs = pn_scan_join("/", name);
                pn_scan_add_problem(c->s, c->input, abs ? abs : name, r, "layer: %s", pkgnote_last_error());
                free(abs);
                atomic_fetch_add(&c->s->c.unreadable, 1);
                r = 0;
        }
        count_done(c, a);
        stream_pop(c, st);
        archive_read_free(a);
        pn_stream_free(st);
        free(src->buf);
        src->buf = NULL;
        return r;
}

/* Opens the member PATH of the archive OUTER, whose first N bytes are in
 * c->head, as an archive of its own: its members go to a new nested
 * layer, merged apart at the end.  What turns out to be no archive (a
 * gzip-compressed text) is dropped silently. */
static int scan_nested(struct actx *c, struct archive *outer, const char *path, size_t n) {
        if (c->depth >= PKGNOTE_MAX_SCAN_DEPTH) {
                char what[128];
                snprintf(what, sizeof what, "an archive inside archives %u deep (PKGNOTE_MAX_SCAN_DEPTH), not opened",
                         PKGNOTE_MAX_SCAN_DEPTH);
                member_problem(c, path, -ELOOP, what);
                return 0;
        }
        struct layer *l = calloc(1, sizeof *l);
        struct source src = {.fd = -1, .outer = outer, .peek_len = n, .rest = c->rest, .rest_len = c->rest_len,
                             .blocks = !c->sparse};
        c->rest_len = 0; /* the source's now */
        struct archive *a = archive_new(READ_NESTED);
        /* Many members are opened (every .gz of a root filesystem): the
         * buffer of each level is kept for the next. */
        if (!c->nbuf[c->depth])
                c->nbuf[c->depth] = malloc(IO_CHUNK);
        src.buf = c->nbuf[c->depth];
        if (!l || !a || !src.buf || !(l->name = pn_scan_join("/", path)) ||
            PN_GROW(c->nested, c->cap_nested, c->n_nested + 1) < 0) {
                if (l)
                        free(l->name);
                free(l);
                archive_read_free(a);
                return pn_oom();
        }
        /* c->head is read into by the members below: libarchive gets a copy. */
        memcpy(src.buf, c->head, n);
        src.peek = src.buf;
        l->in_layer = c->cur_layer;
        c->nested[c->n_nested++] = l;
        c->chain[c->depth++] = l->name;
        struct pn_stream *st;
        int r = open_source(c->s, a, &src, &st);
        stream_push(c, a, st);
        r = r == ARCHIVE_OK ? read_members(c, a, l, false) : -ENOEXEC;
        stream_pop(c, st);
        c->depth--;
        count_done(c, a);
        if (r == -ENOEXEC)
                r = 0;
        else if (r < 0 && r != -EFBIG && r != -ENOMEM) {
                member_problem(c, path, r, pkgnote_last_error() ? pkgnote_last_error() : "damaged archive");
                atomic_fetch_add(&c->s->c.unreadable, 1);
                r = 0;
        }
        archive_read_free(a);
        pn_stream_free(st); /* before the outer archive is read on */
        if (l->n == 0 && c->nested[c->n_nested - 1] == l) { /* nothing in it: not kept */
                c->n_nested--;
                pn_layer_clear(l);
                free(l);
        }
        return r;
}

/* Merges each nested layer apart: the objects of an archive inside the
 * input, labelled with the chain of archives they are in, and with each
 * image of PICKS (N of them) whose layers hold that archive. */
static int merge_nested(struct actx *c, const struct pn_image_pick *picks, size_t n) {
        int r = 0;
        if (c->s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES)
                return 0;
        for (size_t i = 0; i < c->n_nested && r >= 0; i++) {
                struct layer *l = c->nested[i];
                if (l->in_layer < 0 || (size_t)l->in_layer >= c->n_layers) {
                        r = pn_merge_layers(c->s, c->input, c->image, &c->nested[i], 1, NULL);
                        continue;
                }
                const char *in = c->layers[l->in_layer].name;
                for (size_t k = 0; k < n && r >= 0; k++) {
                        bool holds = false;
                        for (size_t j = 0; j < picks[k].n_layers && !holds; j++)
                                holds = !strcmp(picks[k].layers[j], in);
                        if (holds && picks[k].rec)
                                r = pn_merge_layers(c->s, c->input, picks[k].rec, &c->nested[i], 1, NULL);
                }
        }
        return r;
}

/* ---- image manifests ---- */

/* Member names that can be image layers: "ID/layer.tar", "ID.tar"
 * (docker save) and "blobs/ALG/HEX" (OCI). */
static bool layer_name(const char *p) {
        const char *slash = strchr(p, '/');
        if (slash && !strcmp(slash, "/layer.tar"))
                return (size_t)(slash - p) >= 32 && strspn(p, "0123456789abcdef") == (size_t)(slash - p);
        size_t n = strspn(p, "0123456789abcdef");
        if (n >= 32 && !strcmp(p + n, ".tar"))
                return true;
        if (strncmp(p, "blobs/", 6) != 0 || !(slash = strchr(p + 6, '/')))
                return false;
        return !strchr(slash + 1, '/') && pn_is_hex(slash + 1, 32);
}

/* The descriptions of an image, and a docker archive's configurations
 * ("HEX.json"). */
static bool meta_name(const char *p) {
        size_t hex = strspn(p, "0123456789abcdef");
        return !strcmp(p, "manifest.json") || !strcmp(p, "index.json") || !strcmp(p, "oci-layout") ||
               (hex == 64 && !strcmp(p + hex, ".json"));
}

static int archive_blob(void *u, const char *name, void **data, size_t *len) {
        const struct actx *c = u;
        for (size_t i = 0; i < c->n_meta; i++)
                if (!strcmp(c->meta[i].name, name)) {
                        if (!(*data = malloc(c->meta[i].len ? c->meta[i].len : 1)))
                                return pn_oom();
                        memcpy(*data, c->meta[i].data, c->meta[i].len);
                        *len = c->meta[i].len;
                        return 0;
                }
        return pn_error(-ENOENT, "%s: missing", name);
}

static int keep_meta(struct actx *c, const char *name, struct archive *a, const uint8_t *head, size_t head_len,
                     int64_t size) {
        if (size < 0 || (uint64_t)size > PKGNOTE_MAX_SCAN_METADATA)
                return 0;
        char *data = malloc((size_t)size + 1), *nm = strdup(name);
        if (!data || !nm || PN_GROW(c->meta, c->cap_meta, c->n_meta + 1) < 0) {
                free(data);
                free(nm);
                return pn_oom();
        }
        size_t k = head_len < (size_t)size ? head_len : (size_t)size;
        memcpy(data, head, k);
        la_ssize_t m = k < (size_t)size ? member_read(c, a, (uint8_t *)data + k, (size_t)size - k) : 0;
        if (m < 0) {
                free(data);
                free(nm);
                return 0;
        }
        c->meta[c->n_meta++] = (struct meta){nm, data, k + (size_t)m};
        return 0;
}

static bool looks_like_json(const uint8_t *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!strchr(" \t\r\n", p[i]))
                        return p[i] == '{' || p[i] == '[';
        return false;
}

static void actx_clear(struct actx *c) {
        for (size_t i = 0; i < c->n_meta; i++) {
                free(c->meta[i].name);
                free(c->meta[i].data);
        }
        free(c->meta);
        for (size_t i = 0; i < c->n_layers; i++)
                pn_layer_clear(&c->layers[i]);
        free(c->layers);
        for (size_t i = 0; i < c->n_nested; i++) {
                pn_layer_clear(c->nested[i]);
                free(c->nested[i]);
        }
        free(c->nested);
        free(c->scratch);
        for (size_t i = 0; i < PKGNOTE_MAX_SCAN_DEPTH; i++)
                free(c->nbuf[i]);
        if (c->in_tree)
                free(c->chain[0]);
}

/* The layer of C named NAME, or NULL. */
static struct layer *layer_named(struct actx *c, const char *name) {
        for (size_t k = 0; k < c->n_layers; k++)
                if (!strcmp(c->layers[k].name, name))
                        return &c->layers[k];
        return NULL;
}

/* Records the images PICKS (taking their records) and merges the layers
 * of each into the inventory; ROOT (the outer archive's members) gives
 * the stored sizes of a docker archive's layers. */
static int finish_images(struct actx *c, struct pn_image_pick *picks, size_t n, const struct layer *root) {
        int r = 0;
        for (size_t i = 0; i < n && r >= 0; i++) {
                struct pn_image_pick *p = &picks[i];
                struct layer **order = calloc(p->n_layers ? p->n_layers : 1, sizeof *order);
                if (!order)
                        return pn_oom();
                for (size_t k = 0; k < p->n_layers && r >= 0; k++) {
                        if (!(order[k] = layer_named(c, p->layers[k])) && !(c->s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES))
                                r = pn_error(-EBADMSG, "layer %s: missing", p->layers[k]);
                        else if (order[k] && order[k]->not_archive)
                                pn_scan_add_problem(c->s, c->input, p->layers[k], -ENOEXEC,
                                                    "layer is not a tar archive, ignored");
                        else if (order[k] && order[k]->verified < 0)
                                r = pn_error(-EBADMSG, "layer %s: content does not match its digest", p->layers[k]);
                        else if (order[k] && (c->s->opts.flags & PKGNOTE_SCAN_VERIFY_LAYERS) && !order[k]->verified)
                                pn_scan_add_problem(c->s, c->input, p->layers[k], -EOPNOTSUPP,
                                                    "layer not verified: its name carries no digest");
                        for (size_t e = 0; root && !p->img->digest && e < root->n; e++)
                                if (!strcmp(root->e[e].path, p->layers[k]))
                                        p->img->size += root->e[e].size;
                }
                const struct pkgnote_scan_image *im = p->img;
                if (r >= 0) {
                        r = pn_scan_add_image_record(c->s, p->img);
                        p->img = NULL; /* the scan's now, or freed */
                        p->rec = r >= 0 ? im : NULL;
                }
                if (r >= 0 && !(c->s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES))
                        r = pn_merge_layers(c->s, c->input, im, order, p->n_layers, NULL);
                free(order);
        }
        return r;
}

/* Where the layer in member ENT is read from, its first N bytes in
 * c->head: a byte range of a plain outer archive on a file, read (and
 * skipped) directly; else the outer archive's stream, after those bytes. */
static struct source layer_source(struct actx *c, struct archive *a, struct archive_entry *ent, uint64_t data_off,
                                  int64_t size, la_ssize_t n) {
        struct source src = {.fd = -1};
        uint8_t check[HEAD];
        if (c->seekable && !streamed(c, a) && archive_filter_count(a) == 1 && archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE &&
            size >= n && archive_entry_sparse_count(ent) == 0 &&
            pread(c->fd, check, (size_t)n, (off_t)data_off) == n && memcmp(check, c->head, (size_t)n) == 0) {
                src.fd = c->fd, src.off = data_off, src.len = (uint64_t)size;
        } else {
                src.outer = a, src.peek = c->head, src.peek_len = (size_t)n;
                src.rest = c->rest, src.rest_len = c->rest_len, src.blocks = !c->sparse;
        }
        c->rest_len = 0; /* the source's now */
        return src;
}

/* A member of the outer archive A that an image holds (a layer or a
 * description): an entry of ROOT, as a root filesystem lists it, and
 * kept as image metadata or scanned as a layer. */
static int image_member(struct actx *c, struct archive *a, struct archive_entry *ent, struct layer *root,
                        const char *norm) {
        int64_t size = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
        struct entry *e = pn_layer_add(root, norm, E_FILE);
        if (!e)
                return -ENOMEM;
        e->size = size > 0 ? (uint64_t)size : 0;
        uint64_t data_off = (uint64_t)archive_filter_bytes(a, 0);
        la_ssize_t n = read_head(c, a, ent);
        if (n < 0) {
                member_problem(c, norm, -EIO, archive_error_string(a));
                return 0;
        }
        c->has_manifest |= !strcmp(norm, "manifest.json");
        c->has_index |= !strcmp(norm, "index.json");
        c->has_layout |= !strcmp(norm, "oci-layout");
        if (meta_name(norm) || looks_like_json(c->head, (size_t)n))
                return keep_meta(c, norm, a, c->head, (size_t)n, size);
        if (c->s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES)
                return 0; /* only the descriptions are wanted */
        struct source src = layer_source(c, a, ent, data_off, size, n);
        return scan_layer(c, &src, norm);
}

/* Reads every member of the outer archive A: those an image holds as
 * image_member(), the others as entries of ROOT. */
static int read_outer_members_into(struct actx *c, struct archive *a, struct layer *root, struct archive_entry *ent) {
        bool first = true;
        int r;
        for (;;) {
                char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                r = next_member(c, a, &first, ent, norm);
                if (r <= 0)
                        break;
                if (r == MEMBER_DAMAGED) {
                        pn_scan_add_problem(c->s, c->input, c->display, -EBADMSG, "%s", archive_error_string(a));
                        continue;
                }
                if (r == MEMBER_SKIPPED)
                        continue;
                bool reg = archive_entry_filetype(ent) == AE_IFREG && !archive_entry_hardlink(ent);
                if (reg && (layer_name(norm) || meta_name(norm))) {
                        /* Kept for the image view; in a root filesystem
                         * these are plain non-ELF files. */
                        if ((r = image_member(c, a, ent, root, norm)) < 0)
                                break;
                        continue;
                }
                if ((r = member(c, a, ent, root, norm, false)) < 0 || (r = drain(c, a)) < 0)
                        break;
                atomic_store(&c->s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
                pn_scan_progress(c->s, false);
        }
        return r;
}

static int read_outer_members(struct actx *c, struct archive *a, struct layer *root) {
        struct archive_entry *ent = archive_entry_new();
        if (!ent)
                return pn_oom();
        int r = read_outer_members_into(c, a, root, ent);
        archive_entry_free(ent);
        return r;
}

/* Merges what was read into the inventory: the image the archive holds,
 * as its descriptions (and the reference) say, or else the root
 * filesystem it is.  Returns the kind of input. */
static int merge_archive(struct actx *c, struct layer *root) {
        pkgnote_scan *s = c->s;
        int kind = PKGNOTE_SCAN_INPUT_ARCHIVE, r = 0;
        struct pn_image_pick *picks = NULL;
        size_t n = 0;
        /* A docker 25 save holds both descriptions; the reference
         * may say which to read. */
        bool oci = c->has_index && c->has_layout, docker = c->has_manifest;
        int t = s->sel.transport;
        if (t == PN_IMAGE_DOCKER_ARCHIVE && !docker)
                r = pn_error(-EINVAL, "not a docker archive (no manifest.json)");
        else if (t == PN_IMAGE_OCI_ARCHIVE && !oci)
                r = pn_error(-EINVAL, "not an OCI image layout archive (no oci-layout and index.json)");
        else if (!docker && !oci && (s->sel.tag || s->sel.digest || s->sel.index >= 0))
                r = pn_error(-EINVAL, "not an image, so there is no image to choose in it");
        else if (c->in_tree && (docker || oci)) {
                /* Its layers merged would be an image of its own: it is
                 * not taken apart as a plain archive. */
                pn_scan_add_problem(s, c->input, c->chain[0], -EOPNOTSUPP,
                                    "holds a container image, not read inside the tree: scan it as an input of its own");
                return kind;
        } else if (docker || oci) {
                if (docker && oci) /* a digest names an OCI manifest */
                        docker = t == PN_IMAGE_DOCKER_ARCHIVE || (t != PN_IMAGE_OCI_ARCHIVE && !s->sel.digest);
                kind = docker ? PKGNOTE_SCAN_INPUT_DOCKER : PKGNOTE_SCAN_INPUT_OCI;
                r = pn_image_list(s, c->input, c->display, &s->sel,
                                  docker ? PN_IMAGE_DOCKER_ARCHIVE : PN_IMAGE_OCI_ARCHIVE, archive_blob, c, &picks, &n);
                if (r >= 0)
                        r = finish_images(c, picks, n, docker ? root : NULL);
        } else if (!(s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES)) {
                struct layer *one = root;
                r = pn_merge_layers(s, c->input, c->image, &one, 1, NULL);
        }
        if (r >= 0)
                r = merge_nested(c, picks, n);
        pn_image_picks_free(picks, n);
        return r < 0 ? r : kind;
}

/* The hex number of 8 digits at P, or -1. */
static int64_t hex8(const char *p) {
        int64_t v = 0;
        for (int i = 0; i < 8; i++) {
                int d = p[i] >= '0' && p[i] <= '9' ? p[i] - '0' : p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10
                        : p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10 : -1;
                if (d < 0)
                        return -1;
                v = v * 16 + d;
        }
        return v;
}

/* Where the "newc" cpio archive at OFF of FD (SIZE bytes) ends: after the
 * member named TRAILER!!!, its data padded to 4 bytes; -1 when what is
 * there is no such archive. */
static int64_t cpio_end(int fd, uint64_t off, uint64_t size) {
        for (uint64_t n = 0; n <= PKGNOTE_MAX_SCAN_ENTRIES; n++) {
                char h[110 + 11];
                if (off + 110 > size || pread(fd, h, sizeof h, (off_t)off) < 110 || memcmp(h, "07070", 5) != 0 ||
                    (h[5] != '1' && h[5] != '2'))
                        return -1;
                int64_t namesize = hex8(h + 94), filesize = hex8(h + 54);
                if (namesize < 0 || filesize < 0)
                        return -1;
                bool trailer = namesize == 11 && off + sizeof h <= size && !memcmp(h + 110, "TRAILER!!!", 11);
                off = ((off + 110 + (uint64_t)namesize + 3) & ~(uint64_t)3) + (uint64_t)filesize;
                off = (off + 3) & ~(uint64_t)3;
                if (off > size)
                        return -1;
                if (trailer)
                        return (int64_t)off;
        }
        return -1;
}

/* An initramfs: cpio archives one after the other, each compressed or
 * not (the early microcode first, uncompressed; the root filesystem
 * compressed), with zeros between.  The first was read; the others are
 * read into ROOT too, later members over earlier ones as the kernel
 * unpacks them.  Only an uncompressed segment tells where it ends: one
 * compressed is read to the end of the file. */
static int read_segments(struct actx *c, struct layer *root, uint64_t size) {
        int64_t end = cpio_end(c->fd, 0, size);
        for (int n = 1; end > 0 && (uint64_t)end < size; n++) {
                uint64_t off = (uint64_t)end;
                /* Zeros pad between segments. */
                uint8_t z[4096];
                ssize_t k = 0;
                while (off < size && (k = pread(c->fd, z, sizeof z, (off_t)off)) > 0) {
                        ssize_t i = 0;
                        while (i < k && z[i] == 0)
                                i++;
                        off += (uint64_t)i;
                        if (i < k)
                                break;
                }
                if (off >= size || k <= 0)
                        return 0;
                struct source src = {.fd = c->fd, .off = off, .len = size - off};
                struct archive *a = archive_new(READ_OUTER);
                if (!a || !(src.buf = malloc(IO_CHUNK))) {
                        archive_read_free(a);
                        return pn_oom();
                }
                struct pn_stream *st;
                int r = open_source(c->s, a, &src, &st);
                stream_push(c, a, st);
                r = r == ARCHIVE_OK ? read_outer_members(c, a, root) : -ENOEXEC;
                stream_pop(c, st);
                bool plain = !st && archive_filter_count(a) == 1;
                count_done(c, a);
                archive_read_free(a);
                pn_stream_free(st);
                free(src.buf);
                if (r == -ENOEXEC) {
                        pn_scan_add_problem(c->s, c->input, c->display, -EBADMSG,
                                            "segment %d (at byte %llu) is no archive, ignored", n + 1,
                                            (unsigned long long)off);
                        return 0;
                }
                if (r < 0)
                        return r;
                end = plain ? cpio_end(c->fd, off, size) : -1;
        }
        return 0;
}

/* An archive on FD: a root filesystem, or a docker/OCI image. */
/* A copy of the pipe FD, whose first LEN bytes were read into HEAD, in
 * memory: a descriptor of it, or a negative errno. */
static int spool(pkgnote_scan *s, int fd, const uint8_t *head, size_t len) {
        int m = memfd_create("pkgnote-spool", MFD_CLOEXEC);
        if (m < 0)
                return pn_error(-errno, "cannot keep the stream: %s", strerror(errno));
        uint8_t *buf = malloc(IO_CHUNK);
        uint64_t total = 0;
        int r = buf ? 0 : pn_oom();
        for (const uint8_t *p = head; r == 0;) {
                while (len > 0 && r == 0) {
                        ssize_t n = write(m, p, len);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0)
                                r = pn_error(-errno, "cannot keep the stream: %s", strerror(errno));
                        else
                                p += n, len -= (size_t)n, total += (uint64_t)n;
                }
                if (r < 0)
                        break;
                if (total > s->opts.max_bytes) {
                        r = pn_error(-EFBIG, "decompresses to more than %llu bytes, the limit of one input (max_bytes)",
                                     (unsigned long long)s->opts.max_bytes);
                        break;
                }
                ssize_t n = read(fd, buf, IO_CHUNK);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        r = pn_error(-errno, "cannot read: %s", strerror(errno));
                if (n <= 0)
                        break;
                p = buf, len = (size_t)n;
        }
        free(buf);
        if (r < 0) {
                close(m);
                return r;
        }
        return m;
}

/* The archive on FD: an input (CONTAINER NULL), or the file CONTAINER of
 * a directory tree whose objects are of IMAGE. */
static int scan_archive_fd(pkgnote_scan *s, size_t input, int fd, const char *display,
                           const struct pkgnote_scan_image *image, const char *container) {
        int lr = pn_archive_load();
        if (lr < 0)
                return lr;
        struct archive *a = archive_new(READ_OUTER);
        if (!a)
                return pn_oom();
        struct stat st;
        bool seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        /* A file is read by offset, a pipe on from its first bytes; either
         * is decompressed ahead by a thread when it is compressed. */
        struct source top = {.fd = fd, .len = seekable ? (uint64_t)st.st_size : UINT64_MAX, .pipe = !seekable,
                             .chunk = seekable ? IO_CHUNK : PIPE_CHUNK};
        uint8_t *first = NULL;
        struct pn_stream *zs = NULL;
        int r = 0;
        if (!(top.buf = malloc(top.chunk)) || (!seekable && !(first = malloc(IO_CHUNK))))
                r = pn_oom();
        if (r == 0 && !seekable) {
                size_t got = 0;
                while (got < 512) {
                        ssize_t n = read(fd, first + got, IO_CHUNK - got);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                r = pn_error(-errno, "cannot read: %s", strerror(errno));
                        if (n <= 0)
                                break;
                        got += (size_t)n;
                }
                top.peek = first, top.peek_len = got;
                if (r == 0 && got >= 6 && !memcmp(first, "07070", 5)) {
                        /* An initramfs: its segments are found by offset. */
                        archive_read_free(a);
                        free(top.buf);
                        r = spool(s, fd, first, got);
                        free(first);
                        if (r < 0)
                                return r;
                        int k = scan_archive_fd(s, input, r, display, image, container);
                        close(r);
                        return k;
                }
        }
        int opened = r == 0 ? open_source(s, a, &top, &zs) : ARCHIVE_FATAL;
        if (opened != ARCHIVE_OK) {
                if (r == 0)
                        r = pn_error(-ENOEXEC, "%s", archive_error_string(a));
                archive_read_free(a);
                pn_stream_free(zs);
                free(top.buf);
                free(first);
                return r;
        }
        struct pool p;
        r = pn_pool_start(&p, s, input);
        if (r < 0) {
                archive_read_free(a);
                pn_stream_free(zs);
                free(top.buf);
                free(first);
                return r;
        }
        struct actx *c = calloc(1, sizeof *c);
        struct layer root = {0};
        if (!c || !(c->scratch = malloc(IO_CHUNK))) {
                free(c);
                pn_pool_finish(&p);
                archive_read_free(a);
                pn_stream_free(zs);
                free(top.buf);
                free(first);
                return pn_oom();
        }
        c->s = s, c->pool = &p, c->input = input, c->display = display, c->cur_layer = -1;
        c->fd = fd, c->seekable = seekable;
        c->image = image;
        c->done_bytes = s->input_inflated;
        stream_push(c, a, zs);
        if (container) {
                if (!(c->chain[0] = strdup(container)))
                        r = pn_oom();
                c->depth = 1;
                c->in_tree = true;
        }
        if (r >= 0)
                r = read_outer_members(c, a, &root);
        if (r >= 0 && s->artefact && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR)
                r = pn_error(-ENOEXEC, "not a tar archive"); /* deps --verify reads cpio itself */
        if (r >= 0 && seekable && !zs && archive_filter_count(a) == 1 &&
            (archive_format(a) == ARCHIVE_FORMAT_CPIO_SVR4_NOCRC || archive_format(a) == ARCHIVE_FORMAT_CPIO_SVR4_CRC))
                r = read_segments(c, &root, (uint64_t)st.st_size);
        pn_pool_finish(&p);
        if (r >= 0)
                r = merge_archive(c, &root);
        s->input_inflated = c->done_bytes + inflated(a);
        if (!container)
                atomic_store(&s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
        pn_layer_clear(&root);
        actx_clear(c);
        free(c);
        archive_read_free(a);
        pn_stream_free(zs);
        free(top.buf);
        free(first);
        return r;
}

int pn_scan_archive(pkgnote_scan *s, size_t input, int fd, const char *display) {
        return scan_archive_fd(s, input, fd, display, NULL, NULL);
}

int pn_scan_archive_in_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int fd,
                            const char *path, bool guess) {
        int r = scan_archive_fd(s, input, fd, path, image, path);
        if (r == -ENOEXEC && guess)
                return 0; /* a compressed file that holds no archive */
        if (r < 0 && r != -ENOMEM) {
                /* One file of the tree: named, and the scan goes on. */
                pn_scan_add_problem(s, input, path, r, "cannot read the archive: %s", pkgnote_last_error());
                return r == -EFBIG ? r : 0;
        }
        return r;
}

/* ---- OCI image layout directories ---- */

struct oci_dir {
        int dirfd;
};

static int oci_blob(void *u, const char *name, void **data, size_t *len) {
        const struct oci_dir *o = u;
        return pn_read_below(o->dirfd, name, PKGNOTE_MAX_SCAN_METADATA, data, len);
}

int pn_scan_oci_dir(pkgnote_scan *s, size_t input, int dirfd, const char *display) {
        int lr = pn_archive_load();
        if (lr < 0)
                return lr;
        struct oci_dir od = {dirfd};
        struct pn_image_pick *picks = NULL;
        size_t n = 0;
        if (s->sel.transport == PN_IMAGE_OCI_ARCHIVE || s->sel.transport == PN_IMAGE_DOCKER_ARCHIVE)
                return pn_error(-EINVAL, "a directory, not an archive");
        int r = pn_image_list(s, input, display, &s->sel, PN_IMAGE_OCI, oci_blob, &od, &picks, &n);
        if (r < 0)
                return r;
        struct pool p;
        struct actx *c = calloc(1, sizeof *c);
        if (c && !(c->scratch = malloc(IO_CHUNK))) {
                free(c);
                c = NULL;
        }
        if (!c || (r = pn_pool_start(&p, s, input)) < 0) {
                if (c)
                        free(c->scratch);
                free(c);
                pn_image_picks_free(picks, n);
                return c ? r : pn_oom();
        }
        c->s = s, c->pool = &p, c->input = input, c->display = display, c->cur_layer = -1;
        /* Each layer once, however many of the images share it. */
        for (size_t i = 0; i < n && r >= 0 && !(s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES); i++)
                for (size_t k = 0; k < picks[i].n_layers && r >= 0; k++) {
                        const char *name = picks[i].layers[k];
                        if (layer_named(c, name))
                                continue;
                        int fd = pn_open_below(dirfd, name, false);
                        struct stat st;
                        if (fd < 0 || fstat(fd, &st) < 0) {
                                r = pn_error(fd < 0 ? fd : -errno, "layer %s: cannot open: %s", name,
                                             strerror(fd < 0 ? -fd : errno));
                                if (fd >= 0)
                                        close(fd);
                                break;
                        }
                        struct source src = {.fd = fd, .len = (uint64_t)st.st_size};
                        r = scan_layer(c, &src, name);
                        close(fd);
                }
        pn_pool_finish(&p);
        if (r >= 0)
                r = finish_images(c, picks, n, NULL);
        if (r >= 0)
                r = merge_nested(c, picks, n);
        pn_image_picks_free(picks, n);
        actx_clear(c);
        free(c);
        return r < 0 ? r : PKGNOTE_SCAN_INPUT_OCI;
}
#endif /* HAVE_LIBARCHIVE */
