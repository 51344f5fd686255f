/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a core forward, as a stream: from a pipe, or decompressing a
 * core stored by systemd-coredump (zstd, xz or lz4, told apart by their
 * magic numbers, never by the file name).  Nothing is written anywhere:
 * bytes between the ranges wanted are decompressed and dropped.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "core.h"
#include "elfconst.h"
#include "output.h"

#if HAVE_ZSTD
#include <zstd.h>
#endif
#if HAVE_LZMA
#include <lzma.h>
#endif
#if HAVE_LZ4
#include <lz4frame.h>
#endif

#define IN_SIZE (128u << 10)
#define MAX_PREFIX (64u << 20)
#define SCRATCH_SIZE (256u << 10)

enum kind { RAW, ZSTD, XZ, LZ4 };

struct pn_core_source {
        int fd;
        enum kind kind;
        uint8_t *in;            /* compressed input buffer */
        uint8_t *scratch;       /* where skipped bytes are decompressed to */
        size_t in_pos, in_len;
        bool in_eof;
        uint64_t pos;           /* decompressed bytes delivered so far */
        uint64_t bytes_read;
        bool finished;
#if HAVE_ZSTD
        ZSTD_DStream *zstd;
#endif
#if HAVE_LZMA
        lzma_stream xz;
        bool xz_init;
#endif
#if HAVE_LZ4
        LZ4F_dctx *lz4;
#endif
};

static const char *kind_name(enum kind k) {
        static const char *const n[] = {"uncompressed", "zstd", "xz", "lz4"};
        return (unsigned)k < 4 ? n[k] : "unknown";
}

static int fill_input(struct pn_core_source *s) {
        if (s->in_pos < s->in_len || s->in_eof)
                return 0;
        for (;;) {
                ssize_t n = read(s->fd, s->in, IN_SIZE);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return pn_error(-errno, "read failed: %s", strerror(errno));
                s->in_pos = 0;
                s->in_len = (size_t)n;
                s->bytes_read += (uint64_t)n;
                if (n == 0)
                        s->in_eof = true;
                return 0;
        }
}

/* Produces up to LEN decompressed bytes into OUT; *got 0 means the end. */
static int produce(struct pn_core_source *s, uint8_t *out, size_t len, size_t *got) {
        *got = 0;
        while (*got == 0 && !s->finished) {
                int r = fill_input(s);
                if (r < 0)
                        return r;
                size_t avail = s->in_len - s->in_pos;
                const uint8_t *src = s->in + s->in_pos;
                switch (s->kind) {
                case RAW: {
                        size_t n = avail < len ? avail : len;
                        memcpy(out, src, n);
                        s->in_pos += n;
                        *got = n;
                        break;
                }
#if HAVE_ZSTD
                case ZSTD: {
                        ZSTD_inBuffer ib = {src, avail, 0};
                        ZSTD_outBuffer ob = {out, len, 0};
                        size_t z = ZSTD_decompressStream(s->zstd, &ob, &ib);
                        if (ZSTD_isError(z))
                                return pn_error(-EBADMSG, "zstd: %s", ZSTD_getErrorName(z));
                        s->in_pos += ib.pos;
                        *got = ob.pos;
                        if (z == 0 && s->in_eof && ob.pos == 0)
                                s->finished = true;
                        break;
                }
#endif
#if HAVE_LZMA
                case XZ: {
                        s->xz.next_in = src;
                        s->xz.avail_in = avail;
                        s->xz.next_out = out;
                        s->xz.avail_out = len;
                        lzma_ret x = lzma_code(&s->xz, s->in_eof ? LZMA_FINISH : LZMA_RUN);
                        s->in_pos += avail - s->xz.avail_in;
                        *got = len - s->xz.avail_out;
                        if (x == LZMA_STREAM_END)
                                s->finished = true;
                        else if (x != LZMA_OK && x != LZMA_BUF_ERROR)
                                return pn_error(-EBADMSG, "xz: decoding failed (error %d)", (int)x);
                        else if (x == LZMA_BUF_ERROR && s->in_eof)
                                return pn_error(-EBADMSG, "xz: truncated stream");
                        break;
                }
#endif
#if HAVE_LZ4
                case LZ4: {
                        size_t in_n = avail, out_n = len;
                        size_t z = LZ4F_decompress(s->lz4, out, &out_n, src, &in_n, NULL);
                        if (LZ4F_isError(z))
                                return pn_error(-EBADMSG, "lz4: %s", LZ4F_getErrorName(z));
                        s->in_pos += in_n;
                        *got = out_n;
                        if (z == 0 && out_n == 0 && in_n == 0 && s->in_eof)
                                s->finished = true;
                        break;
                }
#endif
                default:
                        return pn_error(-EOPNOTSUPP, "%s cores are not supported by this build", kind_name(s->kind));
                }
                if (*got == 0 && s->in_eof && s->in_pos >= s->in_len)
                        s->finished = true;
        }
        return 0;
}

int pn_core_source_read(struct pn_core_source *s, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *got) {
        if (off < s->pos)
                return pn_error(-ESPIPE, "core parts are out of order for a stream (offset 0x%llx after 0x%llx); decompress it to a file first",
                                (unsigned long long)off, (unsigned long long)s->pos);
        if (s->pos < off && !s->scratch && !(s->scratch = malloc(SCRATCH_SIZE)))
                return pn_error(-ENOMEM, "out of memory");
        uint8_t *scratch = s->scratch;
        while (s->pos < off) {
                uint64_t skip = off - s->pos;
                size_t n;
                int r = produce(s, scratch, skip < SCRATCH_SIZE ? (size_t)skip : SCRATCH_SIZE, &n);
                if (r < 0)
                        return r;
                if (n == 0) {
                        *got = 0;
                        return 0;
                }
                s->pos += n;
        }
        uint64_t done = 0;
        while (done < len) {
                size_t want = len - done > (64u << 20) ? (64u << 20) : (size_t)(len - done), n;
                int r = produce(s, buf + done, want, &n);
                if (r < 0)
                        return r;
                if (n == 0)
                        break;
                done += n;
                s->pos += n;
        }
        *got = done;
        return 0;
}

static int detect(const uint8_t *m, size_t n, enum kind *k) {
        if (n >= 4 && !memcmp(m, "\x28\xb5\x2f\xfd", 4))
                *k = ZSTD;
        else if (n >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6))
                *k = XZ;
        else if (n >= 4 && !memcmp(m, "\x04\x22\x4d\x18", 4))
                *k = LZ4;
        else if (n >= SELFMAG && !memcmp(m, ELFMAG, SELFMAG))
                *k = RAW;
        else
                return pn_error(-ENOEXEC, "not an ELF core, nor a zstd, xz or lz4 compressed one");
        return 0;
}

static int init_decoder(struct pn_core_source *s) {
        switch (s->kind) {
        case RAW:
                return 0;
#if HAVE_ZSTD
        case ZSTD:
                s->zstd = ZSTD_createDStream();
                return s->zstd ? 0 : pn_error(-ENOMEM, "out of memory");
#endif
#if HAVE_LZMA
        case XZ: {
                lzma_stream init = LZMA_STREAM_INIT;
                s->xz = init;
                if (lzma_stream_decoder(&s->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
                        return pn_error(-ENOMEM, "xz: cannot set up the decoder");
                s->xz_init = true;
                return 0;
        }
#endif
#if HAVE_LZ4
        case LZ4:
                return LZ4F_isError(LZ4F_createDecompressionContext(&s->lz4, LZ4F_VERSION))
                               ? pn_error(-ENOMEM, "lz4: cannot set up the decoder")
                               : 0;
#endif
        default:
                return pn_error(-EOPNOTSUPP, "%s-compressed cores are not supported by this build", kind_name(s->kind));
        }
}

int pn_core_source_open(int fd, struct pn_core_source **ret) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return pn_error(-errno, "cannot stat: %s", strerror(errno));
        if (S_ISDIR(st.st_mode))
                return pn_error(-EISDIR, "is a directory");
        struct pn_core_source *s = calloc(1, sizeof *s);
        if (!s || !(s->in = malloc(IN_SIZE))) {
                free(s);
                return pn_error(-ENOMEM, "out of memory");
        }
        s->fd = fd;
        /* Peek by reading into the input buffer: a pipe cannot rewind. */
        while (s->in_len < 6 && !s->in_eof) {
                ssize_t n = read(fd, s->in + s->in_len, IN_SIZE - s->in_len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = pn_error(-errno, "read failed: %s", strerror(errno));
                        pn_core_source_free(s);
                        return r;
                }
                if (n == 0)
                        s->in_eof = true;
                s->in_len += (size_t)n;
                s->bytes_read += (uint64_t)n;
        }
        int r = detect(s->in, s->in_len, &s->kind);
        if (r >= 0 && s->kind == RAW && S_ISREG(st.st_mode)) {
                /* A plain file: read it in place, from the start. */
                pn_core_source_free(s);
                *ret = NULL;
                return 0;
        }
        if (r >= 0)
                r = init_decoder(s);
        if (r < 0) {
                pn_core_source_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int pn_core_source_prefix(struct pn_core_source *s, uint8_t **ret, uint64_t *len) {
        uint8_t *buf = malloc(64);
        uint64_t got;
        if (!buf)
                return pn_error(-ENOMEM, "out of memory");
        int r = pn_core_source_read(s, 0, buf, 64, &got);
        if (r < 0 || got < 52 || memcmp(buf, ELFMAG, SELFMAG) != 0 ||
            (buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64)) {
                free(buf);
                return r < 0 ? r : pn_error(-ENOEXEC, "the %s stream does not hold an ELF core", kind_name(s->kind));
        }
        bool is64 = buf[EI_CLASS] == ELFCLASS64, be = buf[EI_DATA] == ELFDATA2MSB;
        uint64_t phoff = is64 ? pn_rd64(buf + 32, be) : pn_rd32(buf + 28, be);
        unsigned phentsize = pn_rd16(buf + (is64 ? 54 : 42), be), phnum = pn_rd16(buf + (is64 ? 56 : 44), be);
        if (phnum == PN_XNUM) {
                free(buf);
                return pn_error(-EOPNOTSUPP, "core with more than 65534 program headers cannot be streamed; decompress it to a file first");
        }
        uint64_t end = phoff + (uint64_t)phnum * phentsize;
        if (phoff > MAX_PREFIX || end > MAX_PREFIX || phentsize < (is64 ? 56u : 32u)) {
                free(buf);
                return pn_error(-EBADMSG, "program headers out of range for a core");
        }
        uint64_t have = got;
        /* Grow to cover the program headers, then the note segments. */
        for (int pass = 0; pass < 2; pass++) {
                if (end > have) {
                        uint8_t *n = realloc(buf, end);
                        if (!n) {
                                free(buf);
                                return pn_error(-ENOMEM, "out of memory");
                        }
                        buf = n;
                        r = pn_core_source_read(s, have, buf + have, end - have, &got);
                        if (r < 0 || got < end - have) {
                                free(buf);
                                return r < 0 ? r : pn_error(-EBADMSG, "core ends inside its headers");
                        }
                        have = end;
                }
                if (pass == 1)
                        break;
                for (unsigned i = 0; i < phnum; i++) {
                        const uint8_t *p = buf + phoff + (uint64_t)i * phentsize;
                        if (pn_rd32(p, be) != PT_NOTE)
                                continue;
                        uint64_t off = is64 ? pn_rd64(p + 8, be) : pn_rd32(p + 4, be);
                        uint64_t sz = is64 ? pn_rd64(p + 32, be) : pn_rd32(p + 16, be);
                        if (off > MAX_PREFIX || sz > MAX_PREFIX - off) {
                                free(buf);
                                return pn_error(-E2BIG, "note segment beyond the %u MiB a stream may buffer", MAX_PREFIX >> 20);
                        }
                        if (off + sz > end)
                                end = off + sz;
                }
        }
        *ret = buf;
        *len = have;
        return 0;
}

int pn_core_source_to_memfd(struct pn_core_source *s, uint64_t limit, int *ret) {
        if (s->pos != 0)
                return pn_error(-ESPIPE, "the core stream was read already");
        enum { CHUNK = 1 << 20, BLOCK = 4096 };
        static const uint8_t zero[BLOCK];
        int fd = memfd_create("core", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        uint8_t *buf = malloc(CHUNK);
        int r = 0;
        if (fd < 0 || !buf) {
                r = pn_error(-ENOMEM, "out of memory");
                goto out;
        }
        uint64_t off = 0, written = 0, got;
        for (;;) {
                if ((r = pn_core_source_read(s, off, buf, CHUNK, &got)) < 0)
                        goto out;
                /* Runs of non-zero blocks are written in one call; zero
                 * blocks stay holes, which cost no memory. */
                for (uint64_t b = 0; b < got;) {
                        size_t n = got - b < BLOCK ? (size_t)(got - b) : BLOCK;
                        if (!memcmp(buf + b, zero, n)) {
                                b += n;
                                continue;
                        }
                        uint64_t e = b + n;
                        while (e < got) {
                                size_t m = got - e < BLOCK ? (size_t)(got - e) : BLOCK;
                                if (!memcmp(buf + e, zero, m))
                                        break;
                                e += m;
                        }
                        if ((written += e - b) > limit) {
                                r = pn_error(-E2BIG, "the core decompresses to more than %llu MiB",
                                             (unsigned long long)(limit >> 20));
                                goto out;
                        }
                        if (lseek(fd, (off_t)(off + b), SEEK_SET) < 0 || pn_write_full(fd, buf + b, (size_t)(e - b)) < 0) {
                                r = pn_error(-ENOMEM, "out of memory");
                                goto out;
                        }
                        b = e;
                }
                off += got;
                if (got < CHUNK)
                        break;
        }
        /* Sealed, so that whoever maps it may trust it stays as read. */
        if (ftruncate(fd, (off_t)off) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
                r = pn_error(-ENOMEM, "out of memory");
                goto out;
        }
out:
        free(buf);
        if (r < 0) {
                if (fd >= 0)
                        close(fd);
                return r;
        }
        *ret = fd;
        return 0;
}

bool pn_core_source_compressed(const struct pn_core_source *s) {
        return s->kind != RAW;
}

uint64_t pn_core_source_bytes_read(const struct pn_core_source *s) {
        return s->bytes_read;
}

void pn_core_source_free(struct pn_core_source *s) {
        if (!s)
                return;
#if HAVE_ZSTD
        ZSTD_freeDStream(s->zstd);
#endif
#if HAVE_LZMA
        if (s->xz_init)
                lzma_end(&s->xz);
#endif
#if HAVE_LZ4
        if (s->lz4)
                LZ4F_freeDecompressionContext(s->lz4);
#endif
        free(s->in);
        free(s->scratch);
        free(s);
}
