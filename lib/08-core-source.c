/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a core forward, as a stream: from a pipe, or decompressing a
 * core stored by systemd-coredump (zstd, xz or lz4, told apart by their
 * magic numbers, never by the file name).  Nothing is written anywhere:
 * bytes between the ranges wanted are decompressed and dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "08-core-private.h"
#include "01-base-decompress.h"
#include "02-elf-const.h"
#include "output.h"


#define IN_SIZE (128u << 10)
#define MAX_PREFIX (64u << 20)
#define SCRATCH_SIZE (256u << 10)

/* The formats a core may be stored in, as systemd-coredump stores them. */
#define CORE_CODECS (PN_CODEC_BIT(PN_CODEC_ZSTD) | PN_CODEC_BIT(PN_CODEC_XZ) | PN_CODEC_BIT(PN_CODEC_LZ4))

struct pn_core_source {
        int fd;
        int codec; /* PN_CODEC_NONE: an uncompressed pipe */
        struct pn_decoder *dec;
        uint8_t *in;            /* compressed input buffer */
        uint8_t *scratch;       /* where skipped bytes are decompressed to */
        size_t in_pos, in_len;
        bool in_eof;
        uint64_t pos;           /* decompressed bytes delivered so far */
        uint64_t bytes_read;
        bool finished;
};

static const char *kind_name(int codec) {
        return codec == PN_CODEC_NONE ? "uncompressed" : pn_codec_name(codec);
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

/* The decoder's error in the words of the core reader.  A zstd or lz4
 * stream that stops short just ends (the core is then short, which the
 * reader names); a short xz stream is an error, as liblzma says. */
static int decode_failed(struct pn_core_source *s) {
        const char *detail;
        int code;
        switch (pn_decoder_error(s->dec, &detail, &code)) {
        case PN_DECODE_NO_MEMORY:
                return pn_oom();
        case PN_DECODE_TRUNCATED:
                if (s->codec != PN_CODEC_XZ) {
                        s->finished = true;
                        return 0;
                }
                return pn_error(-EBADMSG, "xz: truncated stream");
        case PN_DECODE_DAMAGED:
                if (s->codec == PN_CODEC_XZ)
                        return pn_error(-EBADMSG, "xz: decoding failed (error %d)", code);
                return pn_error(-EBADMSG, "%s: %s", pn_codec_name(s->codec), detail ? detail : "decoding failed");
        default:
                return pn_error(-EBADMSG, "%s: decoding failed", pn_codec_name(s->codec));
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
                if (s->codec == PN_CODEC_NONE) {
                        size_t n = avail < len ? avail : len;
                        memcpy(out, src, n);
                        s->in_pos += n;
                        *got = n;
                } else {
                        size_t out_pos = 0;
                        r = pn_decoder_step(s->dec, s->in, s->in_len, &s->in_pos, out, len, &out_pos, s->in_eof);
                        *got = out_pos;
                        if (r > 0)
                                s->finished = true;
                        else if (r < 0)
                                return decode_failed(s);
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
                return pn_oom();
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

static int detect(const uint8_t *m, size_t n, int *codec) {
        if ((*codec = pn_codec_detect(m, n, CORE_CODECS)) != PN_CODEC_NONE)
                return 0;
        if (n >= SELFMAG && !memcmp(m, ELFMAG, SELFMAG))
                return 0;
        return pn_error(-ENOEXEC, "not an ELF core, nor a zstd, xz or lz4 compressed one");
}

static int init_decoder(struct pn_core_source *s) {
        if (s->codec == PN_CODEC_NONE)
                return 0;
        int r = pn_decoder_new(s->codec, 0, 0, UINT64_MAX, &s->dec);
        if (r == -EOPNOTSUPP)
                return pn_error(-EOPNOTSUPP, "%s-compressed cores are not supported by this build", kind_name(s->codec));
        if (r < 0)
                return s->codec == PN_CODEC_ZSTD ? pn_oom()
                                                 : pn_error(-ENOMEM, "%s: cannot set up the decoder", kind_name(s->codec));
        return 0;
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
                return pn_oom();
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
        int r = detect(s->in, s->in_len, &s->codec);
        if (r >= 0 && s->codec == PN_CODEC_NONE && S_ISREG(st.st_mode)) {
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

/* The ELF header fields a stream reader needs, from its first 52 (ELF32)
 * or 64 bytes P (LEN of them): false when they are no ELF's. */
struct ehdr {
        bool is64, be;
        uint16_t type;
        uint64_t phoff;
        unsigned phentsize, phnum;
};
static bool read_ehdr(const uint8_t *p, uint64_t len, struct ehdr *h) {
        if (len < 52 || memcmp(p, ELFMAG, SELFMAG) != 0 || (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64))
                return false;
        h->is64 = p[EI_CLASS] == ELFCLASS64;
        h->be = p[EI_DATA] == ELFDATA2MSB;
        if (h->is64 && len < 64)
                return false;
        h->type = pn_rd16(p + 16, h->be);
        h->phoff = h->is64 ? pn_rd64(p + 32, h->be) : pn_rd32(p + 28, h->be);
        h->phentsize = pn_rd16(p + (h->is64 ? 54 : 42), h->be);
        h->phnum = pn_rd16(p + (h->is64 ? 56 : 44), h->be);
        return true;
}

int pn_core_source_prefix(struct pn_core_source *s, uint8_t **ret, uint64_t *len) {
        uint8_t *buf = malloc(64);
        uint64_t got;
        if (!buf)
                return pn_oom();
        int r = pn_core_source_read(s, 0, buf, 64, &got);
        struct ehdr h;
        if (r < 0 || !read_ehdr(buf, got, &h)) {
                free(buf);
                return r < 0 ? r : pn_error(-ENOEXEC, "the %s stream does not hold an ELF core", kind_name(s->codec));
        }
        bool is64 = h.is64, be = h.be;
        uint64_t phoff = h.phoff;
        unsigned phentsize = h.phentsize, phnum = h.phnum;
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
                                return pn_oom();
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

uint64_t pn_core_memory_bound(void) {
        /* For tests only: a lower bound, never a higher one. */
        const char *e = getenv("PKGNOTE_TEST_CORE_IN_MEMORY");
        char *end;
        if (e && *e >= '0' && *e <= '9') {
                errno = 0;
                unsigned long long v = strtoull(e, &end, 10);
                if (!errno && !*end && v < PKGNOTE_MAX_CORE_IN_MEMORY)
                        return v;
        }
        return PKGNOTE_MAX_CORE_IN_MEMORY;
}

const char *pn_core_temporary_dir(void) {
        const char *e = getenv("TMPDIR");
        return e && *e ? e : "/var/tmp";
}

/* An unlinked temporary file in DIR, open for reading and writing: an
 * O_TMPFILE file that can never be linked, else (a file system without
 * O_TMPFILE) one made by mkstemp() and unlinked at once.  The descriptor,
 * or a negative errno. */
static int temporary_file(const char *dir) {
        int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
                return fd >= 0 ? fd : -errno;
        char *path;
        if (asprintf(&path, "%s/.pkgnote-core-XXXXXX", dir) < 0)
                return -ENOMEM;
        fd = mkostemp(path, O_CLOEXEC);
        int r = fd >= 0 ? 0 : -errno;
        if (fd >= 0 && unlink(path) < 0) {
                r = -errno;
                close(fd);
                fd = -1;
        }
        free(path);
        return fd >= 0 ? fd : r;
}

/* Copies the LEN bytes of FROM into TO, whose zero blocks stay holes. */
static int copy_sparse(int from, int to, uint64_t len, uint8_t *buf, size_t size) {
        for (uint64_t off = 0; off < len;) {
                /* shmem and most file systems tell where data is. */
                off_t data = lseek(from, (off_t)off, SEEK_DATA);
                if (data < 0)
                        return errno == ENXIO ? 0 : -errno;
                off_t hole = lseek(from, data, SEEK_HOLE);
                if (hole < 0)
                        return -errno;
                for (uint64_t at = (uint64_t)data; at < (uint64_t)hole;) {
                        size_t n = (uint64_t)hole - at < size ? (size_t)((uint64_t)hole - at) : size;
                        ssize_t got = pread(from, buf, n, (off_t)at);
                        if (got <= 0)
                                return got < 0 ? -errno : -EIO;
                        if (lseek(to, (off_t)at, SEEK_SET) < 0)
                                return -errno;
                        int r = pn_write_full(to, buf, (size_t)got);
                        if (r < 0)
                                return r;
                        at += (uint64_t)got;
                }
                off = (uint64_t)hole;
        }
        return 0;
}

/* The end of the last segment that the ELF header and program headers
 * at the start of a core (the first LEN bytes of it, P) declare: what a
 * decompressed core can hold that matters, plus DECOMPRESS_SLACK.
 * UINT64_MAX when the headers are not all there (extended numbering, a
 * table past LEN), or are no core's. */
static uint64_t declared_end(const uint8_t *p, uint64_t len) {
        struct ehdr h;
        if (!read_ehdr(p, len, &h))
                return UINT64_MAX;
        bool is64 = h.is64, be = h.be;
        uint64_t phoff = h.phoff;
        unsigned entsize = h.phentsize, phnum = h.phnum;
        if (h.type != ET_CORE || entsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum == 0 ||
            phnum == PN_XNUM || phoff > len || (uint64_t)phnum * entsize > len - phoff)
                return UINT64_MAX;
        uint64_t end = phoff + (uint64_t)phnum * entsize;
        for (unsigned i = 0; i < phnum; i++) {
                const uint8_t *ph = p + phoff + (uint64_t)i * entsize;
                uint64_t off = is64 ? pn_rd64(ph + 8, be) : pn_rd32(ph + 4, be);
                uint64_t size = is64 ? pn_rd64(ph + 32, be) : pn_rd32(ph + 16, be), e;
                if (__builtin_add_overflow(off, size, &e))
                        return UINT64_MAX;
                end = e > end ? e : end;
        }
        return end > UINT64_MAX - DECOMPRESS_SLACK ? UINT64_MAX : end + DECOMPRESS_SLACK;
}

int pn_core_source_decompress(struct pn_core_source *s, uint64_t limit, uint64_t in_memory, int *ret, char *why,
                              size_t why_len) {
        if (s->pos != 0)
                return pn_error(-ESPIPE, "the core stream was read already");
        enum { CHUNK = 1 << 20, BLOCK = 4096 };
        static const uint8_t zero[BLOCK];
        if (why_len)
                why[0] = 0;
        int fd = memfd_create("core", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        bool in_file = false, spill = true;
        uint8_t *buf = malloc(CHUNK);
        int r = 0;
        if (fd < 0 || !buf) {
                r = pn_oom();
                goto out;
        }
        uint64_t off = 0, written = 0, got, declared = UINT64_MAX;
        for (;;) {
                if ((r = pn_core_source_read(s, off, buf, CHUNK, &got)) < 0)
                        goto out;
                /* A stream that goes on past the end its own headers
                 * declare (a bomb behind a valid core) is not worth the
                 * memory or the disk it would fill. */
                if (off == 0)
                        declared = declared_end(buf, got);
                /* Zeros past that end too: they would cost no memory but
                 * all the time a bomb of them takes to decompress. */
                if (declared != UINT64_MAX && got > declared - off) {
                        r = pn_error(-E2BIG, "the stream goes on past the %llu bytes the core's headers declare",
                                     (unsigned long long)(declared - DECOMPRESS_SLACK));
                        goto out;
                }
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
                        if (!in_file && spill && written > in_memory) {
                                /* Past the bound, the core goes on in an
                                 * unlinked file, what memory held so far
                                 * copied over; where none can be made, it
                                 * stays in memory, and WHY says so. */
                                const char *dir = pn_core_temporary_dir();
                                int tfd = temporary_file(dir);
                                if (tfd >= 0) {
                                        /* Everything before this run. */
                                        uint8_t *copy = malloc(CHUNK);
                                        int k = copy ? copy_sparse(fd, tfd, off + b, copy, CHUNK) : -ENOMEM;
                                        free(copy);
                                        if (k < 0) {
                                                close(tfd);
                                                tfd = k;
                                        }
                                }
                                if (tfd >= 0) {
                                        close(fd);
                                        fd = tfd;
                                        in_file = true;
                                } else {
                                        spill = false;
                                        if (why_len)
                                                snprintf(why, why_len,
                                                         "cannot make a temporary file in '%s' (%s): the decompressed core is kept in memory",
                                                         dir, strerror(-tfd));
                                }
                        }
                        if (lseek(fd, (off_t)(off + b), SEEK_SET) < 0 || (r = pn_write_full(fd, buf + b, (size_t)(e - b))) < 0) {
                                r = in_file ? pn_error(r < 0 ? r : -errno, "cannot write the decompressed core to '%s': %s",
                                                       pn_core_temporary_dir(), strerror(r < 0 ? -r : errno))
                                            : pn_oom();
                                goto out;
                        }
                        b = e;
                }
                off += got;
                if (got < CHUNK)
                        break;
        }
        if (ftruncate(fd, (off_t)off) < 0) {
                r = in_file ? pn_error(-errno, "cannot write the decompressed core to '%s': %s", pn_core_temporary_dir(),
                                       strerror(errno))
                            : pn_oom();
                goto out;
        }
        if (in_file) {
                /* Read-only from now on: a descriptor of its own that can
                 * only read (mapped read-only by whoever maps it); the
                 * file goes with its last descriptor. */
                char self[64];
                snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
                int ro = open(self, O_RDONLY | O_CLOEXEC);
                if (ro >= 0) {
                        close(fd);
                        fd = ro;
                }
        } else if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
                /* Sealed, so that whoever maps it may trust it stays as read. */
                r = pn_oom();
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
        return s->codec != PN_CODEC_NONE;
}

uint64_t pn_core_source_bytes_read(const struct pn_core_source *s) {
        return s->bytes_read;
}

void pn_core_source_free(struct pn_core_source *s) {
        if (!s)
                return;
        pn_decoder_free(s->dec);
        free(s->in);
        free(s->scratch);
        free(s);
}
