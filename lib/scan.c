/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inventories: every ELF object of a file tree, a single file, a tar of
 * a root filesystem, a "docker save" archive or an OCI image layout.
 *
 * Directories are walked by the calling thread without following symbolic
 * links (openat() with O_NOFOLLOW from the parent's descriptor, so a
 * renamed or replaced component cannot lead outside the tree); regular
 * files go through a bounded queue to a pool of workers, which open each
 * one, read its first 4 KiB and hand ELF files to the ELF view.
 *
 * Archives are streams (libarchive).  An ELF member is read whole into
 * memory up to a size cap (the notes may be found only through the section
 * headers at its end) and handed to the workers; the in-flight bytes are
 * bounded.  Larger members are read as a prefix only.  Every member of a
 * layer becomes an entry; image layers are merged at the end, bottom to
 * top, with whiteouts applied (the OCI image spec, "Representing Changes
 * ... Whiteouts"), since the manifest giving the order often comes last.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include "elfview.h"

#define HEAD 4096u
#define QUEUE_CAP 256u
#define MAX_THREADS 64u
#define IO_CHUNK (256u << 10)

/* ------------------------------------------------------------------ */
/* SHA-1 (FIPS 180-4 6.1) and SHA-256 (6.2), for SPDX file checksums.   */

struct sums {
        uint32_t h1[5], h2[8];
        uint8_t buf[64];
        size_t n;
        uint64_t len;
};

static uint32_t rol(uint32_t x, int n) {
        return x << n | x >> (32 - n);
}
static uint32_t ror(uint32_t x, int n) {
        return x >> n | x << (32 - n);
}

static void sha1_block(uint32_t h[5], const uint8_t *p) {
        uint32_t w[80];
        for (int i = 0; i < 16; i++)
                w[i] = pn_rd32(p + 4 * i, true);
        for (int i = 16; i < 80; i++)
                w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; i++) {
                uint32_t f, k;
                if (i < 20)
                        f = (b & c) | (~b & d), k = 0x5a827999;
                else if (i < 40)
                        f = b ^ c ^ d, k = 0x6ed9eba1;
                else if (i < 60)
                        f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
                else
                        f = b ^ c ^ d, k = 0xca62c1d6;
                uint32_t t = rol(a, 5) + f + e + k + w[i];
                e = d, d = c, c = rol(b, 30), b = a, a = t;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

static const uint32_t K256[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_block(uint32_t h[8], const uint8_t *p) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++)
                w[i] = pn_rd32(p + 4 * i, true);
        for (int i = 16; i < 64; i++) {
                uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int i = 0; i < 64; i++) {
                uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
                uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
                k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

static void sums_init(struct sums *s) {
        static const uint32_t i1[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
        static const uint32_t i2[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        memcpy(s->h1, i1, sizeof i1);
        memcpy(s->h2, i2, sizeof i2);
        s->n = 0;
        s->len = 0;
}

static void sums_update(struct sums *s, const void *data, size_t len) {
        const uint8_t *p = data;
        s->len += len;
        while (len > 0) {
                if (s->n == 0 && len >= 64) {
                        sha1_block(s->h1, p);
                        sha256_block(s->h2, p);
                        p += 64, len -= 64;
                        continue;
                }
                size_t k = 64 - s->n < len ? 64 - s->n : len;
                memcpy(s->buf + s->n, p, k);
                s->n += k, p += k, len -= k;
                if (s->n == 64) {
                        sha1_block(s->h1, s->buf);
                        sha256_block(s->h2, s->buf);
                        s->n = 0;
                }
        }
}

static void sums_final(struct sums *s, char sha1[41], char sha256[65]) {
        uint64_t bits = s->len * 8;
        uint8_t pad[72] = {0x80};
        size_t padlen = (s->n < 56 ? 56 : 120) - s->n;
        pn_wr64(pad + padlen, bits, true);
        sums_update(s, pad, padlen + 8);
        for (int i = 0; i < 5; i++)
                snprintf(sha1 + 8 * i, 9, "%08x", s->h1[i]);
        for (int i = 0; i < 8; i++)
                snprintf(sha256 + 8 * i, 9, "%08x", s->h2[i]);
}

/* ------------------------------------------------------------------ */
/* Objects                                                             */

struct pkgnote_scan_object {
        char *path;
        size_t input;
        uint64_t size;
        unsigned type, machine;
        int elf_class;
        bool be, interp, elf, has_sums;
        char *build_id;
        size_t n_packages;
        char **package_json;
        pkgnote_metadata **packages;
        size_t n_dlopen;
        char **dlopen_json;
        size_t n_problems;
        char **problems;
        char sha1[41], sha256[65];
};

static void object_free(struct pkgnote_scan_object *o) {
        if (!o)
                return;
        for (size_t i = 0; i < o->n_packages; i++) {
                free(o->package_json[i]);
                pkgnote_metadata_free(o->packages[i]);
        }
        for (size_t i = 0; i < o->n_dlopen; i++)
                free(o->dlopen_json[i]);
        for (size_t i = 0; i < o->n_problems; i++)
                free(o->problems[i]);
        free(o->package_json);
        free(o->packages);
        free(o->dlopen_json);
        free(o->problems);
        free(o->build_id);
        free(o->path);
        free(o);
}

static struct pkgnote_scan_object *object_new(const char *path, size_t input) {
        struct pkgnote_scan_object *o = calloc(1, sizeof *o);
        if (!o || !(o->path = strdup(path))) {
                free(o);
                return NULL;
        }
        o->input = input;
        return o;
}

static int object_add_problem(struct pkgnote_scan_object *o, const char *msg) {
        char **p = realloc(o->problems, (o->n_problems + 1) * sizeof *p);
        if (!p)
                return -ENOMEM;
        o->problems = p;
        if (!(p[o->n_problems] = strdup(msg)))
                return -ENOMEM;
        o->n_problems++;
        return 0;
}

/* Copies what the scan keeps of E: the view and its info are freed right
 * after, so nothing may point into them. */
static int object_fill(struct pkgnote_scan_object *o, pkgnote_elf *e) {
        pkgnote_info *info;
        int r = pkgnote_info_read(e, &info);
        if (r < 0)
                return r;
        o->elf = true;
        o->type = pkgnote_elf_type(e);
        o->machine = pkgnote_elf_machine(e);
        o->elf_class = pkgnote_elf_class(e);
        o->be = pkgnote_elf_big_endian(e);
        const pkgnote_phdr *ph;
        int n = pkgnote_elf_phdrs(e, &ph);
        for (int i = 0; i < n; i++)
                if (ph[i].type == 3 /* PT_INTERP */)
                        o->interp = true;
        r = -ENOMEM;
        const char *id = pkgnote_info_build_id(info);
        if (id && !(o->build_id = strdup(id)))
                goto out;
        size_t np = pkgnote_info_package_count(info);
        if (np) {
                o->package_json = calloc(np, sizeof *o->package_json);
                o->packages = calloc(np, sizeof *o->packages);
                if (!o->package_json || !o->packages)
                        goto out;
        }
        for (size_t i = 0; i < np; i++) {
                const char *j = pkgnote_info_package_json(info, i);
                if (!(o->package_json[i] = strdup(j)))
                        goto out;
                o->n_packages++;
                int q = pkgnote_metadata_parse(j, strlen(j), &o->packages[i]);
                if (q < 0) {
                        r = q;
                        goto out;
                }
        }
        size_t nd = pkgnote_info_dlopen_count(info);
        if (nd && !(o->dlopen_json = calloc(nd, sizeof *o->dlopen_json)))
                goto out;
        for (size_t i = 0; i < nd; i++) {
                int q = pkgnote_dlopen_to_json(pkgnote_info_dlopen(info, i), &o->dlopen_json[o->n_dlopen]);
                if (q < 0) {
                        r = q;
                        goto out;
                }
                o->n_dlopen++;
        }
        for (size_t i = 0; i < pkgnote_info_problem_count(info); i++)
                if (object_add_problem(o, pkgnote_info_problem(info, i, NULL)) < 0)
                        goto out;
        r = 0;
out:
        pkgnote_info_free(info);
        return r;
}

static struct pkgnote_scan_object *object_clone(const struct pkgnote_scan_object *src, const char *path) {
        struct pkgnote_scan_object *o = object_new(path, src->input);
        if (!o)
                return NULL;
        o->size = src->size, o->type = src->type, o->machine = src->machine;
        o->elf_class = src->elf_class, o->be = src->be, o->interp = src->interp, o->elf = src->elf;
        o->has_sums = src->has_sums;
        memcpy(o->sha1, src->sha1, sizeof o->sha1);
        memcpy(o->sha256, src->sha256, sizeof o->sha256);
        if (src->build_id && !(o->build_id = strdup(src->build_id)))
                goto fail;
        if (src->n_packages && (!(o->package_json = calloc(src->n_packages, sizeof(char *))) ||
                                !(o->packages = calloc(src->n_packages, sizeof(pkgnote_metadata *)))))
                goto fail;
        for (size_t i = 0; i < src->n_packages; i++) {
                if (!(o->package_json[i] = strdup(src->package_json[i])))
                        goto fail;
                o->n_packages++;
                if (pkgnote_metadata_parse(o->package_json[i], strlen(o->package_json[i]), &o->packages[i]) < 0)
                        goto fail;
        }
        if (src->n_dlopen && !(o->dlopen_json = calloc(src->n_dlopen, sizeof(char *))))
                goto fail;
        for (size_t i = 0; i < src->n_dlopen; i++) {
                if (!(o->dlopen_json[i] = strdup(src->dlopen_json[i])))
                        goto fail;
                o->n_dlopen++;
        }
        for (size_t i = 0; i < src->n_problems; i++)
                if (object_add_problem(o, src->problems[i]) < 0)
                        goto fail;
        return o;
fail:
        object_free(o);
        return NULL;
}

/* ------------------------------------------------------------------ */
/* The scan                                                            */

struct problem {
        char *path;
        char *message;
        int err;
        size_t input;
};

struct package {
        const char *json;
        const pkgnote_metadata *meta;
        const pkgnote_scan_object **objects;
        size_t n_objects;
};

struct counters {
        _Atomic uint64_t files, bytes, directories, symlinks, special, unreadable, other_fs;
};

struct pkgnote_scan {
        pkgnote_scan_options opts;
        size_t n_inputs;
        uint64_t inputs_ok;
        pthread_mutex_t lock; /* objects and problems, while workers run */
        struct pkgnote_scan_object **objects;
        size_t n_objects, cap_objects;
        struct problem *problems;
        size_t n_problems, cap_problems;
        struct counters c;
        uint64_t whited_out;
        /* progress */
        _Atomic uint64_t prog_files, prog_bytes;
        uint64_t last_progress;
        /* package index, built on first use */
        struct package *packages;
        size_t n_packages;
        bool packages_valid;
};

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void progress(pkgnote_scan *s, bool force) {
        if (!s->opts.progress)
                return;
        uint64_t t = now_ms();
        if (!force && t - s->last_progress < 100)
                return;
        s->last_progress = t;
        s->opts.progress(s->opts.userdata, atomic_load(&s->prog_files), atomic_load(&s->prog_bytes));
}

/* Records a problem; safe from workers. */
static void add_problem(pkgnote_scan *s, size_t input, const char *path, int err, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
static void add_problem(pkgnote_scan *s, size_t input, const char *path, int err, const char *fmt, ...) {
        char *msg = NULL, *p = strdup(path);
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        pthread_mutex_lock(&s->lock);
        if (msg && p && s->n_problems == s->cap_problems) {
                size_t cap = s->cap_problems ? 2 * s->cap_problems : 16;
                struct problem *n = realloc(s->problems, cap * sizeof *n);
                if (n) {
                        s->problems = n;
                        s->cap_problems = cap;
                }
        }
        if (msg && p && s->n_problems < s->cap_problems) {
                s->problems[s->n_problems++] = (struct problem){p, msg, err, input};
                p = msg = NULL;
        }
        pthread_mutex_unlock(&s->lock);
        free(p);
        free(msg);
}

static int add_object(pkgnote_scan *s, struct pkgnote_scan_object *o) {
        int r = 0;
        pthread_mutex_lock(&s->lock);
        if (s->n_objects == s->cap_objects) {
                size_t cap = s->cap_objects ? 2 * s->cap_objects : 256;
                struct pkgnote_scan_object **n = realloc(s->objects, cap * sizeof *n);
                if (n) {
                        s->objects = n;
                        s->cap_objects = cap;
                } else
                        r = -ENOMEM;
        }
        if (r == 0)
                s->objects[s->n_objects++] = o;
        pthread_mutex_unlock(&s->lock);
        if (r < 0)
                object_free(o);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_scan_new(const pkgnote_scan_options *options, pkgnote_scan **ret) {
        pkgnote_scan *s = calloc(1, sizeof *s);
        if (!s)
                return pn_error(-ENOMEM, "out of memory");
        if (options)
                s->opts = *options;
        if (s->opts.max_member == 0)
                s->opts.max_member = PKGNOTE_MAX_SCAN_MEMBER;
        if (s->opts.threads == 0) {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                s->opts.threads = n > 0 ? (unsigned)n : 1;
        }
        if (s->opts.threads > MAX_THREADS)
                s->opts.threads = MAX_THREADS;
        pthread_mutex_init(&s->lock, NULL);
        *ret = s;
        return 0;
}

static void packages_clear(pkgnote_scan *s) {
        for (size_t i = 0; i < s->n_packages; i++)
                free(s->packages[i].objects);
        free(s->packages);
        s->packages = NULL;
        s->n_packages = 0;
        s->packages_valid = false;
}

PKGNOTE_PUBLIC void pkgnote_scan_free(pkgnote_scan *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_objects; i++)
                object_free(s->objects[i]);
        for (size_t i = 0; i < s->n_problems; i++) {
                free(s->problems[i].path);
                free(s->problems[i].message);
        }
        packages_clear(s);
        free(s->objects);
        free(s->problems);
        pthread_mutex_destroy(&s->lock);
        free(s);
}

/* ------------------------------------------------------------------ */
/* The worker pool                                                     */

static char *join(const char *dir, const char *name) {
        size_t a = strlen(dir), b = strlen(name);
        bool slash = a > 0 && dir[a - 1] != '/';
        char *p = malloc(a + slash + b + 1);
        if (!p)
                return NULL;
        memcpy(p, dir, a);
        if (slash)
                p[a] = '/';
        memcpy(p + a + slash, name, b + 1);
        return p;
}

struct dirref {
        int fd;
        atomic_uint refs;
};

static struct dirref *dirref_get(struct dirref *d) {
        atomic_fetch_add(&d->refs, 1);
        return d;
}

static void dirref_put(struct dirref *d) {
        if (d && atomic_fetch_sub(&d->refs, 1) == 1) {
                close(d->fd);
                free(d);
        }
}

enum { JOB_FILE = 1, JOB_MEMBER };

struct job {
        int kind;
        char *path;
        /* JOB_FILE: N_NAMES files of the directory DIR, whose path is PATH */
        struct dirref *dir;
        char **names;
        size_t n_names;
        /* JOB_MEMBER: LEN bytes at BUF (the whole member unless PARTIAL),
         * results into OBJ, owned by the layer's entry */
        uint8_t *buf;
        size_t len;
        bool partial;
        struct pkgnote_scan_object *obj;
};

struct pool {
        pkgnote_scan *s;
        size_t input;
        dev_t dev; /* for PKGNOTE_SCAN_ONE_FILE_SYSTEM */
        pthread_mutex_t lock;
        pthread_cond_t more, room;
        struct job ring[QUEUE_CAP];
        size_t head, count;
        uint64_t inflight, inflight_limit;
        bool done;
        pthread_t threads[MAX_THREADS];
        unsigned n_threads;
};

#define CHUNK 64u /* files per job: one queue operation for many files */

static void job_clear(struct job *j) {
        for (size_t i = 0; i < j->n_names; i++)
                free(j->names[i]);
        free(j->names);
        free(j->path);
        dirref_put(j->dir);
        free(j->buf);
}

/* A regular file of a directory tree. */
static void file_problem(struct pool *p, const char *dir, const char *name, int err, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
static void file_problem(struct pool *p, const char *dir, const char *name, int err, const char *fmt, ...) {
        char *path = join(dir, name), *msg = NULL;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        add_problem(p->s, p->input, path ? path : name, err, "%s", msg ? msg : "out of memory");
        free(path);
        free(msg);
}

static void do_file(struct pool *p, struct dirref *dir, const char *dirpath, const char *name, uint8_t *io) {
        pkgnote_scan *s = p->s;
        int fd = openat(dir->fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd < 0) {
                if (errno == ELOOP) { /* replaced by a symlink since it was listed */
                        atomic_fetch_add(&s->c.symlinks, 1);
                        return;
                }
                atomic_fetch_add(&s->c.unreadable, 1);
                file_problem(p, dirpath, name, -errno, "cannot open: %s", strerror(errno));
                return;
        }
        struct stat st;
        if (fstat(fd, &st) < 0) {
                atomic_fetch_add(&s->c.unreadable, 1);
                file_problem(p, dirpath, name, -errno, "cannot stat: %s", strerror(errno));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                atomic_fetch_add(&s->c.special, 1);
                goto out;
        }
        if ((s->opts.flags & PKGNOTE_SCAN_ONE_FILE_SYSTEM) && st.st_dev != p->dev) {
                atomic_fetch_add(&s->c.other_fs, 1); /* a file mounted over another */
                goto out;
        }
        atomic_fetch_add(&s->c.files, 1);
        atomic_fetch_add(&s->c.bytes, (uint64_t)st.st_size);
        atomic_fetch_add(&s->prog_files, 1);
        atomic_fetch_add(&s->prog_bytes, (uint64_t)st.st_size);
        uint8_t head[4];
        ssize_t n = pread(fd, head, sizeof head, 0);
        if (n < 0) {
                atomic_fetch_add(&s->c.unreadable, 1);
                file_problem(p, dirpath, name, -errno, "cannot read: %s", strerror(errno));
                goto out;
        }
        if (n < 4 || memcmp(head, "\177ELF", 4) != 0)
                goto out; /* the common case: one small read */
        pkgnote_elf *e;
        int r = pkgnote_elf_open_fd(fd, &e);
        if (r < 0) {
                file_problem(p, dirpath, name, r, "cannot read: %s", pkgnote_last_error());
                goto out;
        }
        char *path = join(dirpath, name);
        struct pkgnote_scan_object *o = path ? object_new(path, p->input) : NULL;
        free(path);
        if (!o || (r = object_fill(o, e)) < 0) {
                file_problem(p, dirpath, name, o ? r : -ENOMEM, "cannot read notes: %s",
                            o ? pkgnote_last_error() : "out of memory");
                object_free(o);
                pkgnote_elf_free(e);
                goto out;
        }
        o->size = pkgnote_elf_size(e);
        pkgnote_elf_free(e);
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && o->n_packages > 0) {
                struct sums sum;
                sums_init(&sum);
                uint64_t off = 0;
                for (;;) {
                        ssize_t k = pread(fd, io, IO_CHUNK, (off_t)off);
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k <= 0) {
                                if (k < 0)
                                        file_problem(p, dirpath, name, -errno, "cannot read: %s", strerror(errno));
                                else {
                                        sums_final(&sum, o->sha1, o->sha256);
                                        o->has_sums = true;
                                }
                                break;
                        }
                        sums_update(&sum, io, (size_t)k);
                        off += (uint64_t)k;
                }
        }
        add_object(s, o);
out:
        close(fd);
}

/* An ELF member of an archive, in memory. */
static void do_member(struct pool *p, struct job *j) {
        pkgnote_elf *e;
        int r = j->partial ? pn_elf_from_prefix(j->buf, j->len, &e) : pkgnote_elf_from_memory(j->buf, j->len, &e);
        if (r < 0) {
                object_add_problem(j->obj, pkgnote_last_error());
                return;
        }
        if ((r = object_fill(j->obj, e)) < 0)
                object_add_problem(j->obj, pkgnote_last_error());
        if (j->partial)
                object_add_problem(j->obj, "only the first part of the member was read (larger than the member size limit)");
        pkgnote_elf_free(e);
}

static void *worker(void *arg) {
        struct pool *p = arg;
        uint8_t *io = (p->s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) ? malloc(IO_CHUNK) : NULL;
        for (;;) {
                pthread_mutex_lock(&p->lock);
                while (p->count == 0 && !p->done)
                        pthread_cond_wait(&p->more, &p->lock);
                if (p->count == 0) {
                        pthread_mutex_unlock(&p->lock);
                        break;
                }
                struct job j = p->ring[p->head];
                p->head = (p->head + 1) % QUEUE_CAP;
                p->count--;
                pthread_mutex_unlock(&p->lock);
                if (j.kind == JOB_FILE) {
                        for (size_t i = 0; i < j.n_names; i++)
                                if (io || !(p->s->opts.flags & PKGNOTE_SCAN_CHECKSUMS))
                                        do_file(p, j.dir, j.path, j.names[i], io);
                                else
                                        file_problem(p, j.path, j.names[i], -ENOMEM, "out of memory");
                } else
                        do_member(p, &j);
                size_t len = j.kind == JOB_MEMBER ? j.len : 0;
                job_clear(&j);
                pthread_mutex_lock(&p->lock);
                p->inflight -= len;
                pthread_cond_broadcast(&p->room);
                pthread_mutex_unlock(&p->lock);
        }
        free(io);
        return NULL;
}

static int pool_start(struct pool *p, pkgnote_scan *s, size_t input) {
        memset(p, 0, sizeof *p);
        p->s = s;
        p->input = input;
        p->inflight_limit = 2 * s->opts.max_member;
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->more, NULL);
        pthread_cond_init(&p->room, NULL);
        for (unsigned i = 0; i < s->opts.threads; i++) {
                if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
                        break;
                p->n_threads++;
        }
        if (p->n_threads == 0) {
                pthread_mutex_destroy(&p->lock);
                pthread_cond_destroy(&p->more);
                pthread_cond_destroy(&p->room);
                return pn_error(-EAGAIN, "cannot start worker threads");
        }
        return 0;
}

/* Queues J (taking its resources); waits while the queue is full or too
 * many bytes are in flight. */
static void pool_submit(struct pool *p, struct job *j) {
        size_t len = j->kind == JOB_MEMBER ? j->len : 0;
        pthread_mutex_lock(&p->lock);
        while (p->count == QUEUE_CAP || (p->inflight > 0 && p->inflight + len > p->inflight_limit))
                pthread_cond_wait(&p->room, &p->lock);
        p->ring[(p->head + p->count) % QUEUE_CAP] = *j;
        p->count++;
        p->inflight += len;
        pthread_cond_signal(&p->more);
        pthread_mutex_unlock(&p->lock);
        progress(p->s, false);
}

/* Waits for every queued job and stops the workers. */
static void pool_finish(struct pool *p) {
        pthread_mutex_lock(&p->lock);
        p->done = true;
        pthread_cond_broadcast(&p->more);
        pthread_mutex_unlock(&p->lock);
        for (unsigned i = 0; i < p->n_threads; i++)
                pthread_join(p->threads[i], NULL);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->more);
        pthread_cond_destroy(&p->room);
}

/* ------------------------------------------------------------------ */
/* Directory trees                                                     */

struct pending {
        struct dirref *parent;
        char *name; /* inside parent */
        char *path;
};


/* Queues the files collected in CHUNK, which starts over empty. */
static int submit_chunk(struct pool *p, struct job *chunk, struct dirref *ref, const char *path) {
        struct job j = {.kind = JOB_FILE, .names = chunk->names, .n_names = chunk->n_names};
        if (!(j.path = strdup(path)))
                return -ENOMEM;
        j.dir = dirref_get(ref);
        chunk->names = NULL;
        chunk->n_names = 0;
        pool_submit(p, &j);
        return 0;
}

/* Lists one directory: regular files to the pool, directories onto the
 * stack, the rest counted. */
static int list_dir(pkgnote_scan *s, struct pool *p, int fd, const char *path, struct pending **stack,
                    size_t *n, size_t *cap) {
        int dfd = dup(fd);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
                if (dfd >= 0)
                        close(dfd);
                atomic_fetch_add(&s->c.unreadable, 1);
                add_problem(s, p->input, path, -errno, "cannot read directory: %s", strerror(errno));
                close(fd);
                return 0;
        }
        struct dirref *ref = malloc(sizeof *ref);
        if (!ref) {
                closedir(d);
                close(fd);
                return pn_error(-ENOMEM, "out of memory");
        }
        ref->fd = fd;
        atomic_init(&ref->refs, 1);
        atomic_fetch_add(&s->c.directories, 1);
        size_t plen = strlen(path);
        struct job chunk = {.kind = JOB_FILE};
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        if (errno != 0) {
                                atomic_fetch_add(&s->c.unreadable, 1);
                                add_problem(s, p->input, path, -errno, "cannot read directory: %s", strerror(errno));
                        }
                        break;
                }
                const char *nm = de->d_name;
                if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0)))
                        continue;
                unsigned char type = de->d_type;
                if (type == DT_UNKNOWN) {
                        struct stat st;
                        if (fstatat(fd, nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
                                type = DT_REG; /* let the worker report it */
                        else
                                type = S_ISDIR(st.st_mode)   ? DT_DIR
                                       : S_ISREG(st.st_mode) ? DT_REG
                                       : S_ISLNK(st.st_mode) ? DT_LNK
                                                             : DT_FIFO;
                }
                if (type == DT_LNK) {
                        atomic_fetch_add(&s->c.symlinks, 1);
                        continue;
                }
                if (type != DT_DIR && type != DT_REG) {
                        atomic_fetch_add(&s->c.special, 1);
                        continue;
                }
                char *full = join(path, nm);
                if (!full) {
                        goto oom;
                }
                if (plen + 1 + strlen(nm) > PKGNOTE_MAX_SCAN_PATH) {
                        add_problem(s, p->input, full, -E2BIG, "path longer than %u bytes, skipped",
                                    PKGNOTE_MAX_SCAN_PATH);
                        atomic_fetch_add(&s->c.unreadable, 1);
                        free(full);
                        continue;
                }
                if (type == DT_DIR) {
                        if (*n == *cap) {
                                size_t nc = *cap ? 2 * *cap : 64;
                                struct pending *x = realloc(*stack, nc * sizeof *x);
                                if (!x) {
                                        free(full);
                                        goto oom;
                                }
                                *stack = x;
                                *cap = nc;
                        }
                        char *name = strdup(nm);
                        if (!name) {
                                free(full);
                                goto oom;
                        }
                        (*stack)[(*n)++] = (struct pending){dirref_get(ref), name, full};
                } else {
                        free(full);
                        if (!chunk.names && !(chunk.names = malloc(CHUNK * sizeof *chunk.names)))
                                goto oom;
                        if (!(chunk.names[chunk.n_names] = strdup(nm)))
                                goto oom;
                        if (++chunk.n_names == CHUNK && submit_chunk(p, &chunk, ref, path) < 0)
                                goto oom;
                }
        }
        closedir(d);
        int r = chunk.n_names ? submit_chunk(p, &chunk, ref, path) : 0;
        job_clear(&chunk);
        dirref_put(ref);
        return r < 0 ? pn_error(-ENOMEM, "out of memory") : 0;
oom:
        closedir(d);
        job_clear(&chunk);
        dirref_put(ref);
        return pn_error(-ENOMEM, "out of memory");
}

static int scan_tree(pkgnote_scan *s, size_t input, int rootfd, const char *path) {
        struct pool p;
        struct stat st;
        if (fstat(rootfd, &st) < 0) {
                close(rootfd);
                return pn_error(-errno, "cannot stat: %s", strerror(errno));
        }
        int r = pool_start(&p, s, input);
        if (r < 0) {
                close(rootfd);
                return r;
        }
        p.dev = st.st_dev;
        struct pending *stack = NULL;
        size_t n = 0, cap = 0;
        r = list_dir(s, &p, rootfd, path, &stack, &n, &cap);
        while (r >= 0 && n > 0) {
                struct pending it = stack[--n];
                int fd = openat(it.parent->fd, it.name,
                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                int err = errno;
                dirref_put(it.parent);
                free(it.name);
                if (fd < 0) {
                        if (err == ELOOP || err == ENOTDIR)
                                atomic_fetch_add(&s->c.symlinks, err == ELOOP);
                        else {
                                atomic_fetch_add(&s->c.unreadable, 1);
                                add_problem(s, input, it.path, -err, "cannot open directory: %s", strerror(err));
                        }
                        free(it.path);
                        continue;
                }
                if (s->opts.flags & PKGNOTE_SCAN_ONE_FILE_SYSTEM) {
                        struct stat ds;
                        if (fstat(fd, &ds) < 0 || ds.st_dev != p.dev) {
                                atomic_fetch_add(&s->c.other_fs, 1);
                                close(fd);
                                free(it.path);
                                continue;
                        }
                }
                r = list_dir(s, &p, fd, it.path, &stack, &n, &cap);
                free(it.path);
        }
        while (n > 0) {
                dirref_put(stack[--n].parent);
                free(stack[n].name);
                free(stack[n].path);
        }
        free(stack);
        pool_finish(&p);
        return r;
}

/* ------------------------------------------------------------------ */
/* Archive entries, layers and their merge                             */

/* Normalises a path from an archive: no leading "/" or "./", no empty or
 * "." components; refuses ".." (it could only point outside the root)
 * and over-long paths.  Returns the length ("" is the root itself). */
int pn_scan_normalize_path(const char *in, char *out, size_t size);
int pn_scan_normalize_path(const char *in, char *out, size_t size) {
        size_t o = 0;
        const char *p = in;
        while (*p) {
                while (*p == '/')
                        p++;
                const char *c = p;
                while (*p && *p != '/')
                        p++;
                size_t len = (size_t)(p - c);
                if (len == 0 || (len == 1 && c[0] == '.'))
                        continue;
                if (len == 2 && c[0] == '.' && c[1] == '.')
                        return pn_error(-EXDEV, "path has a \"..\" component");
                if (o + (o > 0) + len + 1 > size || o + (o > 0) + len > PKGNOTE_MAX_SCAN_PATH)
                        return pn_error(-E2BIG, "path longer than %u bytes", PKGNOTE_MAX_SCAN_PATH);
                if (o > 0)
                        out[o++] = '/';
                memcpy(out + o, c, len);
                o += len;
        }
        out[o] = 0;
        return (int)o;
}

enum { E_FILE = 1, E_DIR, E_SYMLINK, E_SPECIAL, E_HARDLINK, E_WHITEOUT, E_OPAQUE };

struct entry {
        char *path; /* normalised, without leading "/" */
        char *target; /* E_HARDLINK: normalised target */
        uint8_t kind;
        bool taken;
        uint64_t size;
        struct pkgnote_scan_object *obj; /* ELF members */
        const struct entry *resolved;   /* E_HARDLINK: the file it names */
};

struct layer {
        char *name;
        bool not_archive; /* an image member named like a layer that is none */
        struct entry *e;
        size_t n, cap;
};

static void layer_clear(struct layer *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->e[i].path);
                free(l->e[i].target);
                if (!l->e[i].taken)
                        object_free(l->e[i].obj);
        }
        free(l->e);
        free(l->name);
        memset(l, 0, sizeof *l);
}

static struct entry *layer_add(struct layer *l, const char *path, int kind) {
        if (l->n >= PKGNOTE_MAX_SCAN_ENTRIES) {
                pn_error(-E2BIG, "more than %u archive members", PKGNOTE_MAX_SCAN_ENTRIES);
                return NULL;
        }
        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 256;
                struct entry *x = realloc(l->e, cap * sizeof *x);
                if (!x)
                        return NULL;
                l->e = x;
                l->cap = cap;
        }
        struct entry *e = &l->e[l->n];
        memset(e, 0, sizeof *e);
        if (!(e->path = strdup(path))) {
                pn_error(-ENOMEM, "out of memory");
                return NULL;
        }
        e->kind = (uint8_t)kind;
        l->n++;
        return e;
}

/* Path -> entry, open addressing; a removed path keeps its slot with a
 * NULL entry. */
struct map {
        const char **keys;
        const struct entry **vals;
        size_t cap, used;
};

static uint64_t hash_str(const char *s) {
        uint64_t h = 0xcbf29ce484222325ULL;
        for (; *s; s++)
                h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
        return h;
}

static size_t map_slot(const struct map *m, const char *key) {
        size_t i = (size_t)hash_str(key) & (m->cap - 1);
        while (m->keys[i] && strcmp(m->keys[i], key) != 0)
                i = (i + 1) & (m->cap - 1);
        return i;
}

static int map_set(struct map *m, const char *key, const struct entry *v) {
        if ((m->used + 1) * 2 > m->cap) {
                struct map n = {.cap = m->cap ? 2 * m->cap : 1024};
                n.keys = calloc(n.cap, sizeof *n.keys);
                n.vals = calloc(n.cap, sizeof *n.vals);
                if (!n.keys || !n.vals) {
                        free(n.keys);
                        free(n.vals);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < m->cap; i++)
                        if (m->keys[i] && m->vals[i]) {
                                size_t k = map_slot(&n, m->keys[i]);
                                n.keys[k] = m->keys[i];
                                n.vals[k] = m->vals[i];
                                n.used++;
                        }
                free(m->keys);
                free(m->vals);
                *m = n;
        }
        size_t i = map_slot(m, key);
        if (!m->keys[i]) {
                m->keys[i] = key;
                m->used++;
        }
        m->vals[i] = v;
        return 0;
}

static const struct entry *map_get(const struct map *m, const char *key) {
        if (m->cap == 0)
                return NULL;
        size_t i = map_slot(m, key);
        return m->keys[i] ? m->vals[i] : NULL;
}

/* Removes everything strictly below DIR; returns the number removed. */
static uint64_t map_del_under(struct map *m, const char *dir) {
        size_t len = strlen(dir);
        uint64_t n = 0;
        for (size_t i = 0; i < m->cap; i++)
                if (m->vals[i] && strncmp(m->keys[i], dir, len) == 0 && m->keys[i][len] == '/') {
                        m->vals[i] = NULL;
                        n++;
                }
        return n;
}

static uint64_t map_del(struct map *m, const char *key) {
        if (m->cap == 0)
                return 0;
        size_t i = map_slot(m, key);
        if (!m->keys[i] || !m->vals[i])
                return 0;
        m->vals[i] = NULL;
        return 1;
}

static int cmp_objects(const void *a, const void *b) {
        const struct pkgnote_scan_object *x = *(const struct pkgnote_scan_object *const *)a;
        const struct pkgnote_scan_object *y = *(const struct pkgnote_scan_object *const *)b;
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        return strcmp(x->path, y->path);
}

/* Applies LAYERS bottom to top and adds what is left to the scan. */
static int merge_layers(pkgnote_scan *s, size_t input, struct layer **layers, size_t n) {
        struct map m = {0};
        int r = 0;
        for (size_t li = 0; li < n && r >= 0; li++) {
                struct layer *l = layers[li];
                /* Whiteouts hide lower layers only, wherever they lie in
                 * this layer's stream: apply them before its entries. */
                for (size_t i = 0; i < l->n; i++) {
                        const struct entry *e = &l->e[i];
                        if (e->kind == E_WHITEOUT)
                                s->whited_out += map_del(&m, e->path) + map_del_under(&m, e->path);
                        else if (e->kind == E_OPAQUE)
                                s->whited_out += map_del_under(&m, e->path);
                }
                for (size_t i = 0; i < l->n && r >= 0; i++) {
                        struct entry *e = &l->e[i];
                        if (e->kind == E_WHITEOUT || e->kind == E_OPAQUE)
                                continue;
                        const struct entry *old = map_get(&m, e->path);
                        if (old && old->kind == E_DIR && e->kind != E_DIR)
                                map_del_under(&m, e->path); /* a directory replaced by a file */
                        if (e->kind == E_HARDLINK) {
                                const struct entry *t = map_get(&m, e->target);
                                if (t && t->kind == E_HARDLINK)
                                        t = t->resolved;
                                if (!t || t->kind != E_FILE) {
                                        add_problem(s, input, e->path, -ENOENT,
                                                    "hard link to a missing file, counted as an empty file");
                                        t = NULL;
                                }
                                e->resolved = t;
                        }
                        r = map_set(&m, e->path, e);
                }
        }
        if (r < 0) {
                free(m.keys);
                free(m.vals);
                return pn_error(-ENOMEM, "out of memory");
        }
        /* Hard links first: their copies read objects that a plain entry
         * hands over below. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < m.cap; i++) {
                        struct entry *e = (struct entry *)m.vals[i];
                        if (!e)
                                continue;
                        if (pass == 0) {
                                switch (e->kind) {
                                case E_FILE: atomic_fetch_add(&s->c.files, 1); atomic_fetch_add(&s->c.bytes, e->size); break;
                                case E_HARDLINK:
                                        atomic_fetch_add(&s->c.files, 1);
                                        atomic_fetch_add(&s->c.bytes, e->resolved ? e->resolved->size : 0);
                                        break;
                                case E_DIR: atomic_fetch_add(&s->c.directories, 1); break;
                                case E_SYMLINK: atomic_fetch_add(&s->c.symlinks, 1); break;
                                default: atomic_fetch_add(&s->c.special, 1); break;
                                }
                        }
                        char *abs = NULL;
                        if (pass == 0 && e->kind == E_HARDLINK && e->resolved && e->resolved->obj &&
                            e->resolved->obj->elf && (abs = join("/", e->path))) {
                                struct pkgnote_scan_object *o = object_clone(e->resolved->obj, abs);
                                if (o)
                                        add_object(s, o);
                        } else if (pass == 1 && e->kind == E_FILE && e->obj && e->obj->elf) {
                                e->taken = true;
                                add_object(s, e->obj);
                        }
                        free(abs);
                }
        free(m.keys);
        free(m.vals);
        return 0;
}

#if HAVE_LIBARCHIVE

/* Where an inner archive (an image layer) reads from: a byte range of a
 * file, which can be skipped without reading, or the current member of
 * the outer archive, after the bytes already peeked at. */
struct source {
        int fd;
        uint64_t off, len, pos;
        struct archive *outer;
        const uint8_t *peek;
        size_t peek_len;
        uint8_t *buf;
};

static la_ssize_t source_read(struct archive *a, void *data, const void **out) {
        struct source *src = data;
        if (src->peek_len) {
                *out = src->peek;
                la_ssize_t n = (la_ssize_t)src->peek_len;
                src->peek_len = 0;
                return n;
        }
        if (src->outer) {
                la_ssize_t n = archive_read_data(src->outer, src->buf, IO_CHUNK);
                if (n < 0)
                        archive_set_error(a, EIO, "%s", archive_error_string(src->outer));
                *out = src->buf;
                return n < 0 ? -1 : n;
        }
        uint64_t want = src->len - src->pos < IO_CHUNK ? src->len - src->pos : IO_CHUNK;
        if (want == 0)
                return 0;
        ssize_t n;
        do
                n = pread(src->fd, src->buf, want, (off_t)(src->off + src->pos));
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                archive_set_error(a, errno, "read failed: %s", strerror(errno));
                return -1;
        }
        src->pos += (uint64_t)n;
        *out = src->buf;
        return n;
}

static la_int64_t source_skip(struct archive *a, void *data, la_int64_t request) {
        struct source *src = data;
        if (src->outer || src->peek_len || request <= 0)
                return 0;
        uint64_t k = src->len - src->pos < (uint64_t)request ? src->len - src->pos : (uint64_t)request;
        src->pos += k;
        return (la_int64_t)k;
}

struct actx {
        pkgnote_scan *s;
        struct pool *pool;
        size_t input;
        const char *display; /* the input, for problems about the archive itself */
        uint8_t head[HEAD];
        /* small JSON members of an image archive, by path */
        char **meta_names;
        char **meta_data;
        size_t *meta_len;
        size_t n_meta;
        struct layer *layers;
        size_t n_layers;
};

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

static void member_problem(struct actx *c, const char *norm, int err, const char *what) {
        char *abs = join("/", norm);
        add_problem(c->s, c->input, abs ? abs : norm, err, "%s", what);
        free(abs);
}

/* A regular file member: only its first bytes unless it is ELF. */
static int member_file(struct actx *c, struct archive *a, struct archive_entry *ent, struct entry *e) {
        pkgnote_scan *s = c->s;
        int64_t size = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
        e->size = size > 0 ? (uint64_t)size : 0;
        atomic_fetch_add(&s->prog_files, 1);
        if (size == 0)
                return 0;
        la_ssize_t n = read_fully(a, c->head, HEAD);
        if (n < 0) {
                member_problem(c, e->path, -EIO, archive_error_string(a));
                atomic_fetch_add(&s->c.unreadable, 1);
                return n == ARCHIVE_FATAL ? pn_error(-EIO, "%s", archive_error_string(a)) : 0;
        }
        if (n < 4 || memcmp(c->head, "\177ELF", 4) != 0)
                return 0;
        if (size < 0)
                size = (int64_t)s->opts.max_member + 1; /* unknown: read up to the cap */
        uint64_t want = (uint64_t)size < s->opts.max_member ? (uint64_t)size : s->opts.max_member;
        if (want < (uint64_t)n)
                want = (uint64_t)n;
        char *abs = join("/", e->path);
        struct pkgnote_scan_object *o = abs ? object_new(abs, c->input) : NULL;
        free(abs);
        uint8_t *buf = o ? malloc(want) : NULL;
        if (!buf) {
                object_free(o);
                return pn_error(-ENOMEM, "out of memory");
        }
        memcpy(buf, c->head, (size_t)n);
        la_ssize_t m = (uint64_t)n < want ? read_fully(a, buf + n, want - (uint64_t)n) : 0;
        if (m < 0) {
                member_problem(c, e->path, -EIO, archive_error_string(a));
                atomic_fetch_add(&s->c.unreadable, 1);
                free(buf);
                object_free(o);
                return 0;
        }
        size_t got = (size_t)n + (size_t)m;
        bool partial = got < (uint64_t)size && got == want;
        if (s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) {
                /* Checksums need every byte, also past the cap; only
                 * objects with a note keep them, which the worker
                 * decides later, so all ELF members are summed. */
                struct sums sum;
                sums_init(&sum);
                sums_update(&sum, buf, got);
                uint8_t tmp[16384];
                for (;;) {
                        la_ssize_t k = archive_read_data(a, tmp, sizeof tmp);
                        if (k <= 0) {
                                if (k == 0) {
                                        sums_final(&sum, o->sha1, o->sha256);
                                        o->has_sums = true;
                                }
                                break;
                        }
                        sums_update(&sum, tmp, (size_t)k);
                }
        }
        o->size = size >= 0 && !partial ? got : (uint64_t)size;
        e->obj = o;
        struct job j = {.kind = JOB_MEMBER, .buf = buf, .len = got, .partial = partial, .obj = o};
        pool_submit(c->pool, &j);
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
                                return layer_add(l, path, E_OPAQUE) ? 0 : -ENOMEM;
                        }
                        if (!strncmp(base, ".wh..wh.", 8))
                                return 0; /* aufs bookkeeping, not a file */
                        snprintf(path, sizeof path, "%.*s%s%s", (int)dlen, norm, dlen ? "/" : "", base + 4);
                        return layer_add(l, path, E_WHITEOUT) ? 0 : -ENOMEM;
                }
        }
        const char *hard = archive_entry_hardlink(ent);
        if (hard) {
                char t[PKGNOTE_MAX_SCAN_PATH + 1];
                if (pn_scan_normalize_path(hard, t, sizeof t) <= 0) {
                        member_problem(c, norm, -EXDEV, "hard link target outside the archive, ignored");
                        return 0;
                }
                struct entry *e = layer_add(l, norm, E_HARDLINK);
                if (!e || !(e->target = strdup(t)))
                        return -ENOMEM;
                return 0;
        }
        switch (archive_entry_filetype(ent)) {
        case AE_IFREG: {
                struct entry *e = layer_add(l, norm, E_FILE);
                return e ? member_file(c, a, ent, e) : -ENOMEM;
        }
        case AE_IFDIR: return layer_add(l, norm, E_DIR) ? 0 : -ENOMEM;
        case AE_IFLNK: return layer_add(l, norm, E_SYMLINK) ? 0 : -ENOMEM;
        default: return layer_add(l, norm, E_SPECIAL) ? 0 : -ENOMEM;
        }
}

static struct archive *archive_new(bool outer) {
        struct archive *a = archive_read_new();
        if (!a)
                return NULL;
        archive_read_support_filter_all(a);
        archive_read_support_format_tar(a);
        if (outer)
                archive_read_support_format_cpio(a);
        return a;
}

/* Reads every member of A into L.  Returns 0, -ENOEXEC when A is not an
 * archive at all (nothing read), or another negative errno. */
static int read_members(struct actx *c, struct archive *a, struct layer *l, bool image) {
        struct archive_entry *ent;
        bool first = true;
        for (;;) {
                int r = archive_read_next_header(a, &ent);
                if (r == ARCHIVE_EOF)
                        return 0;
                if (r == ARCHIVE_FATAL) {
                        if (first)
                                return pn_error(-ENOEXEC, "%s", archive_error_string(a));
                        return pn_error(-EBADMSG, "%s", archive_error_string(a));
                }
                first = false;
                if (r == ARCHIVE_RETRY) {
                        member_problem(c, l->name ? l->name : "", -EBADMSG, archive_error_string(a));
                        continue;
                }
                const char *name = archive_entry_pathname(ent);
                char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                int k = name ? pn_scan_normalize_path(name, norm, sizeof norm) : -EBADMSG;
                if (k < 0) {
                        char msg[PKGNOTE_MAX_SCAN_PATH + 64];
                        snprintf(msg, sizeof msg, "unsafe member name, skipped: %s",
                                 name ? pkgnote_last_error() : "no name");
                        add_problem(c->s, c->input, name ? name : "", k, "%s", msg);
                        atomic_fetch_add(&c->s->c.unreadable, 1);
                        continue;
                }
                if ((k = member(c, a, ent, l, norm, image)) < 0)
                        return k;
                atomic_store(&c->s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
                progress(c->s, false);
        }
}

/* Scans an image layer from SRC into a new layer named NAME.  A member
 * that is not an archive is dropped silently (an image archive holds
 * configs and manifests too). */
static int scan_layer(struct actx *c, struct source *src, const char *name) {
        if (c->n_layers >= PKGNOTE_MAX_SCAN_LAYERS)
                return pn_error(-E2BIG, "more than %u layers", PKGNOTE_MAX_SCAN_LAYERS);
        struct layer *x = realloc(c->layers, (c->n_layers + 1) * sizeof *x);
        if (!x)
                return pn_error(-ENOMEM, "out of memory");
        c->layers = x;
        struct layer *l = &c->layers[c->n_layers];
        memset(l, 0, sizeof *l);
        if (!(l->name = strdup(name)))
                return pn_error(-ENOMEM, "out of memory");
        c->n_layers++;
        struct archive *a = archive_new(false);
        if (!a || !(src->buf = malloc(IO_CHUNK))) {
                archive_read_free(a);
                return pn_error(-ENOMEM, "out of memory");
        }
        int r = ARCHIVE_OK;
        r = archive_read_open2(a, src, NULL, source_read, source_skip, NULL);
        if (r == ARCHIVE_OK)
                r = read_members(c, a, l, true);
        else
                r = -ENOEXEC;
        if (r == -ENOEXEC) {
                /* Kept empty: an image archive holds configs too, and a
                 * manifest naming it as a layer is told below. */
                l->not_archive = true;
                r = 0;
        } else if (r < 0) {
                char *abs = join("/", name);
                add_problem(c->s, c->input, abs ? abs : name, r, "layer: %s", pkgnote_last_error());
                free(abs);
                atomic_fetch_add(&c->s->c.unreadable, 1);
                r = 0;
        }
        archive_read_free(a);
        free(src->buf);
        src->buf = NULL;
        return r;
}

/* ---- image manifests ---- */

static bool is_hex(const char *s, size_t min) {
        size_t n = strspn(s, "0123456789abcdef");
        return n >= min && s[n] == 0;
}

/* "blobs/ALG/HEX" for DIGEST "ALG:HEX" (OCI image spec "Digests"). */
static char *digest_path(const char *digest) {
        const char *colon = digest ? strchr(digest, ':') : NULL;
        if (!colon || colon == digest || (size_t)(colon - digest) > 32 || !is_hex(colon + 1, 32))
                return NULL;
        for (const char *p = digest; p < colon; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789+._-", *p))
                        return NULL;
        char *r;
        if (asprintf(&r, "blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1) < 0)
                return NULL;
        return r;
}

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
        return !strchr(slash + 1, '/') && is_hex(slash + 1, 32);
}

static bool meta_name(const char *p) {
        return !strcmp(p, "manifest.json") || !strcmp(p, "index.json") || !strcmp(p, "oci-layout");
}

typedef int (*blob_fn)(void *u, const char *name, json_t **ret);

static int meta_json(struct actx *c, const char *name, json_t **ret) {
        for (size_t i = 0; i < c->n_meta; i++)
                if (!strcmp(c->meta_names[i], name)) {
                        json_error_t jerr;
                        json_t *v = json_loadb(c->meta_data[i], c->meta_len[i], JSON_REJECT_DUPLICATES, &jerr);
                        if (!v)
                                return pn_error(-EBADMSG, "%s: invalid JSON: %s", name, jerr.text);
                        *ret = v;
                        return 0;
                }
        return pn_error(-ENOENT, "%s: missing", name);
}

static int archive_blob(void *u, const char *name, json_t **ret) {
        return meta_json(u, name, ret);
}

/* The layer paths of the image, bottom first: from a docker
 * manifest.json or an OCI index.json (following nested indexes). */
static int image_layers(pkgnote_scan *s, size_t input, const char *display, bool docker, blob_fn get, void *u,
                        char ***ret, size_t *ret_n) {
        json_t *root = NULL, *layers = NULL;
        int r;
        char **names = NULL;
        size_t n = 0;
        json_t *owned[6] = {0};
        size_t n_owned = 0;
        if (docker) {
                if ((r = get(u, "manifest.json", &root)) < 0)
                        return r;
                owned[n_owned++] = root;
                json_t *img = json_array_get(root, 0);
                if (!json_is_object(img)) {
                        r = pn_error(-EBADMSG, "manifest.json: not an array of images");
                        goto out;
                }
                if (json_array_size(root) > 1)
                        add_problem(s, input, display, 0, "holds %zu images; reporting the first",
                                    json_array_size(root));
                layers = json_object_get(img, "Layers");
        } else {
                if ((r = get(u, "index.json", &root)) < 0)
                        return r;
                owned[n_owned++] = root;
                json_t *cur = root;
                for (;;) {
                        json_t *ms = json_object_get(cur, "manifests");
                        if (!json_is_array(ms)) {
                                layers = json_object_get(cur, "layers");
                                break;
                        }
                        if (cur == root && json_array_size(ms) > 1)
                                add_problem(s, input, display, 0, "holds %zu manifests; reporting the first",
                                            json_array_size(ms));
                        char *path = digest_path(json_string_value(json_object_get(json_array_get(ms, 0), "digest")));
                        if (!path || n_owned == ELEMENTSOF(owned)) {
                                free(path);
                                r = pn_error(-EBADMSG, "index.json: no usable manifest digest");
                                goto out;
                        }
                        r = get(u, path, &cur);
                        free(path);
                        if (r < 0)
                                goto out;
                        owned[n_owned++] = cur;
                }
        }
        if (!json_is_array(layers)) {
                r = pn_error(-EBADMSG, "image manifest lists no layers");
                goto out;
        }
        if (json_array_size(layers) > PKGNOTE_MAX_SCAN_LAYERS) {
                r = pn_error(-E2BIG, "more than %u layers", PKGNOTE_MAX_SCAN_LAYERS);
                goto out;
        }
        names = calloc(json_array_size(layers) + 1, sizeof *names);
        if (!names) {
                r = pn_error(-ENOMEM, "out of memory");
                goto out;
        }
        for (size_t i = 0; i < json_array_size(layers); i++) {
                json_t *v = json_array_get(layers, i);
                char *p;
                if (docker) {
                        char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                        const char *str = json_string_value(v);
                        p = str && pn_scan_normalize_path(str, norm, sizeof norm) > 0 ? strdup(norm) : NULL;
                } else
                        p = digest_path(json_string_value(json_object_get(v, "digest")));
                if (!p) {
                        r = pn_error(-EBADMSG, "layer %zu: bad name or digest", i);
                        goto out;
                }
                names[n++] = p;
        }
        *ret = names;
        *ret_n = n;
        names = NULL;
        r = 0;
out:
        for (size_t i = 0; names && i < n; i++)
                free(names[i]);
        free(names);
        for (size_t i = 0; i < n_owned; i++)
                json_decref(owned[i]);
        return r;
}

static int keep_meta(struct actx *c, const char *name, struct archive *a, const uint8_t *head, size_t head_len,
                     int64_t size) {
        if (size < 0 || (uint64_t)size > PKGNOTE_MAX_SCAN_METADATA)
                return 0;
        char *data = malloc((size_t)size + 1), *nm = strdup(name);
        char **n1 = realloc(c->meta_names, (c->n_meta + 1) * sizeof *n1);
        if (n1)
                c->meta_names = n1;
        char **n2 = realloc(c->meta_data, (c->n_meta + 1) * sizeof *n2);
        if (n2)
                c->meta_data = n2;
        size_t *n3 = realloc(c->meta_len, (c->n_meta + 1) * sizeof *n3);
        if (n3)
                c->meta_len = n3;
        if (!data || !nm || !n1 || !n2 || !n3) {
                free(data);
                free(nm);
                return pn_error(-ENOMEM, "out of memory");
        }
        size_t k = head_len < (size_t)size ? head_len : (size_t)size;
        memcpy(data, head, k);
        la_ssize_t m = k < (size_t)size ? read_fully(a, data + k, (size_t)size - k) : 0;
        if (m < 0) {
                free(data);
                free(nm);
                return 0;
        }
        c->meta_names[c->n_meta] = nm;
        c->meta_data[c->n_meta] = data;
        c->meta_len[c->n_meta] = k + (size_t)m;
        c->n_meta++;
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
                free(c->meta_names[i]);
                free(c->meta_data[i]);
        }
        free(c->meta_names);
        free(c->meta_data);
        free(c->meta_len);
        for (size_t i = 0; i < c->n_layers; i++)
                layer_clear(&c->layers[i]);
        free(c->layers);
}

/* Merges the layers named NAMES (in order) or, when there are none, ROOT. */
static int finish_image(struct actx *c, char **names, size_t n) {
        struct layer **order = calloc(n ? n : 1, sizeof *order);
        if (!order)
                return pn_error(-ENOMEM, "out of memory");
        int r = 0;
        for (size_t i = 0; i < n && r >= 0; i++) {
                for (size_t k = 0; k < c->n_layers && !order[i]; k++)
                        if (!strcmp(c->layers[k].name, names[i]))
                                order[i] = &c->layers[k];
                if (!order[i])
                        r = pn_error(-EBADMSG, "layer %s: missing", names[i]);
                else if (order[i]->not_archive)
                        add_problem(c->s, c->input, names[i], -ENOEXEC, "layer is not a tar archive, ignored");
        }
        if (r >= 0)
                r = merge_layers(c->s, c->input, order, n);
        free(order);
        return r;
}

/* An archive on FD: a root filesystem, or a docker/OCI image. */
static int scan_archive(pkgnote_scan *s, size_t input, int fd, const char *display) {
        struct archive *a = archive_new(true);
        if (!a)
                return pn_error(-ENOMEM, "out of memory");
        struct stat st;
        bool seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (archive_read_open_fd(a, fd, IO_CHUNK) != ARCHIVE_OK) {
                int r = pn_error(-ENOEXEC, "%s", archive_error_string(a));
                archive_read_free(a);
                return r;
        }
        struct pool p;
        int r = pool_start(&p, s, input);
        if (r < 0) {
                archive_read_free(a);
                return r;
        }
        struct actx *c = calloc(1, sizeof *c);
        struct layer root = {0};
        if (!c) {
                pool_finish(&p);
                archive_read_free(a);
                return pn_error(-ENOMEM, "out of memory");
        }
        c->s = s, c->pool = &p, c->input = input, c->display = display;
        bool first = true, has_manifest = false, has_index = false, has_layout = false;
        struct archive_entry *ent;
        for (;;) {
                r = archive_read_next_header(a, &ent);
                if (r == ARCHIVE_EOF) {
                        r = 0;
                        break;
                }
                if (r == ARCHIVE_FATAL) {
                        r = pn_error(first ? -ENOEXEC : -EBADMSG, "%s", archive_error_string(a));
                        break;
                }
                first = false;
                if (r == ARCHIVE_RETRY) {
                        add_problem(s, input, display, -EBADMSG, "%s", archive_error_string(a));
                        continue;
                }
                const char *name = archive_entry_pathname(ent);
                char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                int k = name ? pn_scan_normalize_path(name, norm, sizeof norm) : -EBADMSG;
                if (k < 0) {
                        add_problem(s, input, name ? name : "", k, "unsafe member name, skipped: %s",
                                    name ? pkgnote_last_error() : "no name");
                        atomic_fetch_add(&s->c.unreadable, 1);
                        continue;
                }
                bool reg = archive_entry_filetype(ent) == AE_IFREG && !archive_entry_hardlink(ent);
                int64_t size = archive_entry_size_is_set(ent) ? archive_entry_size(ent) : -1;
                if (reg && (layer_name(norm) || meta_name(norm))) {
                        /* Kept for the image view; in a root filesystem
                         * these are plain non-ELF files. */
                        struct entry *e = layer_add(&root, norm, E_FILE);
                        if (!e) {
                                r = -ENOMEM;
                                break;
                        }
                        e->size = size > 0 ? (uint64_t)size : 0;
                        uint64_t data_off = (uint64_t)archive_filter_bytes(a, 0);
                        la_ssize_t n = read_fully(a, c->head, HEAD);
                        if (n < 0) {
                                member_problem(c, norm, -EIO, archive_error_string(a));
                                continue;
                        }
                        has_manifest |= !strcmp(norm, "manifest.json");
                        has_index |= !strcmp(norm, "index.json");
                        has_layout |= !strcmp(norm, "oci-layout");
                        if (meta_name(norm) || looks_like_json(c->head, (size_t)n)) {
                                r = keep_meta(c, norm, a, c->head, (size_t)n, size);
                        } else {
                                /* A plain outer archive on a file: the layer is a
                                 * byte range of it, read (and skipped) directly. */
                                struct source src = {.fd = -1};
                                uint8_t check[HEAD];
                                if (seekable && archive_filter_count(a) == 1 &&
                                    archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE && size >= n &&
                                    archive_entry_sparse_count(ent) == 0 &&
                                    pread(fd, check, (size_t)n, (off_t)data_off) == n &&
                                    memcmp(check, c->head, (size_t)n) == 0) {
                                        src.fd = fd, src.off = data_off, src.len = (uint64_t)size;
                                } else {
                                        src.outer = a, src.peek = c->head, src.peek_len = (size_t)n;
                                }
                                r = scan_layer(c, &src, norm);
                        }
                        if (r < 0)
                                break;
                        continue;
                }
                if ((r = member(c, a, ent, &root, norm, false)) < 0)
                        break;
                atomic_store(&s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
                progress(s, false);
        }
        pool_finish(&p);
        int kind = PKGNOTE_SCAN_INPUT_ARCHIVE;
        if (r >= 0) {
                char **names = NULL;
                size_t n = 0;
                if (has_manifest || (has_index && has_layout)) {
                        kind = has_manifest ? PKGNOTE_SCAN_INPUT_DOCKER : PKGNOTE_SCAN_INPUT_OCI;
                        r = image_layers(s, input, display, has_manifest, archive_blob, c, &names, &n);
                        if (r >= 0)
                                r = finish_image(c, names, n);
                } else {
                        struct layer *one = &root;
                        r = merge_layers(s, input, &one, 1);
                }
                for (size_t i = 0; i < n; i++)
                        free(names[i]);
                free(names);
        }
        atomic_store(&s->prog_bytes, (uint64_t)archive_filter_bytes(a, -1));
        layer_clear(&root);
        actx_clear(c);
        free(c);
        archive_read_free(a);
        return r < 0 ? r : kind;
}

/* ---- OCI image layout directories ---- */

struct oci_dir {
        int dirfd;
};

static int open_below(int dirfd, const char *rel) {
        /* Components are opened one by one without following symlinks. */
        char buf[PKGNOTE_MAX_SCAN_PATH + 1];
        if (pn_scan_normalize_path(rel, buf, sizeof buf) <= 0)
                return -EXDEV;
        int cur = dup(dirfd);
        char *save = NULL;
        for (char *t = strtok_r(buf, "/", &save); t && cur >= 0;) {
                char *next = strtok_r(NULL, "/", &save);
                int fd = openat(cur, t, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
                                                (next ? O_DIRECTORY : 0));
                int err = errno;
                close(cur);
                cur = fd < 0 ? -err : fd;
                t = next;
        }
        if (cur < 0)
                return cur;
        struct stat st;
        if (fstat(cur, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(cur);
                return -EINVAL;
        }
        return cur;
}

static int oci_blob(void *u, const char *name, json_t **ret) {
        struct oci_dir *o = u;
        int fd = open_below(o->dirfd, name);
        if (fd < 0)
                return pn_error(fd, "%s: cannot open: %s", name, strerror(-fd));
        json_error_t jerr;
        FILE *f = fdopen(fd, "r");
        struct stat st;
        if (!f || fstat(fd, &st) < 0 || st.st_size > (off_t)PKGNOTE_MAX_SCAN_METADATA) {
                if (f)
                        fclose(f);
                else
                        close(fd);
                return pn_error(-E2BIG, "%s: larger than %u bytes", name, PKGNOTE_MAX_SCAN_METADATA);
        }
        json_t *v = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
        fclose(f);
        if (!v)
                return pn_error(-EBADMSG, "%s: invalid JSON: %s", name, jerr.text);
        *ret = v;
        return 0;
}

static int scan_oci_dir(pkgnote_scan *s, size_t input, int dirfd, const char *display) {
        struct oci_dir od = {dirfd};
        char **names = NULL;
        size_t n = 0;
        int r = image_layers(s, input, display, false, oci_blob, &od, &names, &n);
        if (r < 0)
                return r;
        struct pool p;
        struct actx *c = calloc(1, sizeof *c);
        if (!c || (r = pool_start(&p, s, input)) < 0) {
                free(c);
                for (size_t i = 0; i < n; i++)
                        free(names[i]);
                free(names);
                return c ? r : pn_error(-ENOMEM, "out of memory");
        }
        c->s = s, c->pool = &p, c->input = input, c->display = display;
        for (size_t i = 0; i < n && r >= 0; i++) {
                int fd = open_below(dirfd, names[i]);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0) {
                        r = pn_error(fd < 0 ? fd : -errno, "layer %s: cannot open: %s", names[i],
                                     strerror(fd < 0 ? -fd : errno));
                        if (fd >= 0)
                                close(fd);
                        break;
                }
                struct source src = {.fd = fd, .len = (uint64_t)st.st_size};
                r = scan_layer(c, &src, names[i]);
                close(fd);
        }
        pool_finish(&p);
        if (r >= 0)
                r = finish_image(c, names, n);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        actx_clear(c);
        free(c);
        return r < 0 ? r : PKGNOTE_SCAN_INPUT_OCI;
}
#endif /* HAVE_LIBARCHIVE */

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

/* A single regular file that is not an archive: one ELF object or none. */
static int scan_file(pkgnote_scan *s, size_t input, int fd, const char *path, const struct stat *st) {
        atomic_fetch_add(&s->c.files, 1);
        atomic_fetch_add(&s->c.bytes, (uint64_t)st->st_size);
        pkgnote_elf *e;
        int r = pkgnote_elf_open_fd(fd, &e);
        if (r == -ENOEXEC)
                return PKGNOTE_SCAN_INPUT_FILE;
        if (r < 0) {
                add_problem(s, input, path, r, "cannot read: %s", pkgnote_last_error());
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        struct pkgnote_scan_object *o = object_new(path, input);
        if (!o || (r = object_fill(o, e)) < 0) {
                add_problem(s, input, path, o ? r : -ENOMEM, "cannot read notes: %s", pkgnote_last_error());
                object_free(o);
                pkgnote_elf_free(e);
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        o->size = pkgnote_elf_size(e);
        pkgnote_elf_free(e);
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && o->n_packages > 0) {
                uint8_t *io = malloc(IO_CHUNK);
                struct sums sum;
                sums_init(&sum);
                uint64_t off = 0;
                ssize_t k = -1;
                while (io && (k = pread(fd, io, IO_CHUNK, (off_t)off)) > 0) {
                        sums_update(&sum, io, (size_t)k);
                        off += (uint64_t)k;
                }
                if (k == 0) {
                        sums_final(&sum, o->sha1, o->sha256);
                        o->has_sums = true;
                }
                free(io);
        }
        add_object(s, o);
        return PKGNOTE_SCAN_INPUT_FILE;
}

static int cmp_problems(const void *a, const void *b) {
        const struct problem *x = a, *y = b;
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        int c = strcmp(x->path, y->path);
        return c ? c : strcmp(x->message, y->message);
}

static int add_input(pkgnote_scan *s, size_t input, const char *path) {
        int fd;
        struct stat st;
        if (!strcmp(path, "-")) {
                fd = dup(STDIN_FILENO);
                if (fd < 0)
                        return pn_error(-errno, "cannot read standard input: %s", strerror(errno));
        } else {
                if (lstat(path, &st) < 0)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
                if (S_ISLNK(st.st_mode))
                        return pn_error(-ELOOP, "is a symbolic link, which scan never follows (name its target)");
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? O_NONBLOCK : 0));
                if (fd < 0)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
        }
        if (fstat(fd, &st) < 0) {
                int r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                close(fd);
                return r;
        }
        if (S_ISDIR(st.st_mode)) {
#if HAVE_LIBARCHIVE
                struct stat l1, l2;
                if (fstatat(fd, "oci-layout", &l1, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l1.st_mode) &&
                    fstatat(fd, "index.json", &l2, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l2.st_mode)) {
                        int r = scan_oci_dir(s, input, fd, path);
                        close(fd);
                        return r;
                }
#endif
                /* The path as given, without trailing slashes. */
                char *p = strdup(path);
                if (!p) {
                        close(fd);
                        return pn_error(-ENOMEM, "out of memory");
                }
                for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
                        p[n - 1] = 0;
                int r = scan_tree(s, input, fd, p);
                free(p);
                return r < 0 ? r : PKGNOTE_SCAN_INPUT_DIRECTORY;
        }
        if (S_ISREG(st.st_mode)) {
                uint8_t magic[4];
                ssize_t n = pread(fd, magic, sizeof magic, 0);
                if (n < 0) {
                        int r = pn_error(-errno, "cannot read: %s", strerror(errno));
                        close(fd);
                        return r;
                }
                if (n < 4 || memcmp(magic, "\177ELF", 4) != 0) {
#if HAVE_LIBARCHIVE
                        int r = scan_archive(s, input, fd, path);
                        if (r != -ENOEXEC) {
                                close(fd);
                                if (r >= 0) {
                                        /* the archive itself was read */
                                }
                                return r;
                        }
#endif
                }
                int r = scan_file(s, input, fd, path, &st);
                close(fd);
                return r;
        }
#if HAVE_LIBARCHIVE
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
                /* A stream ("-", a pipe): only an archive makes sense. */
                int fl = fcntl(fd, F_GETFL);
                if (fl >= 0)
                        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
                int r = scan_archive(s, input, fd, path);
                close(fd);
                if (r == -ENOEXEC)
                        return pn_error(-ENOEXEC, "not an archive");
                return r;
        }
#endif
        close(fd);
        return pn_error(-EINVAL, "not a file, directory or archive");
}

PKGNOTE_PUBLIC int pkgnote_scan_add(pkgnote_scan *s, const char *path) {
        if (!s || !path)
                return pn_error(-EINVAL, "no path");
        size_t input = s->n_inputs++;
        size_t first_object = s->n_objects, first_problem = s->n_problems;
        packages_clear(s);
        pn_error_clear();
        int r = add_input(s, input, path);
        /* Results arrive in completion order; sort this input's. */
        if (s->n_objects > first_object)
                qsort(s->objects + first_object, s->n_objects - first_object, sizeof *s->objects, cmp_objects);
        if (s->n_problems > first_problem)
                qsort(s->problems + first_problem, s->n_problems - first_problem, sizeof *s->problems, cmp_problems);
        progress(s, true);
        if (r >= 0)
                s->inputs_ok++;
        return r;
}

/* ------------------------------------------------------------------ */
/* Results                                                             */

PKGNOTE_PUBLIC void pkgnote_scan_get_stats(const pkgnote_scan *s, pkgnote_scan_stats *ret) {
        pkgnote_scan_stats st = {0};
        st.inputs = s->inputs_ok;
        st.files = atomic_load(&s->c.files);
        st.bytes = atomic_load(&s->c.bytes);
        st.directories = atomic_load(&s->c.directories);
        st.symlinks = atomic_load(&s->c.symlinks);
        st.special = atomic_load(&s->c.special);
        st.unreadable = atomic_load(&s->c.unreadable);
        st.other_fs = atomic_load(&s->c.other_fs);
        st.whited_out = s->whited_out;
        st.objects = s->n_objects;
        for (size_t i = 0; i < s->n_objects; i++) {
                if (s->objects[i]->n_packages)
                        st.with_note++;
                else
                        st.without_note++;
                if (s->objects[i]->n_problems)
                        st.malformed++;
        }
        st.packages = pkgnote_scan_package_count(s);
        *ret = st;
}

PKGNOTE_PUBLIC size_t pkgnote_scan_problem_count(const pkgnote_scan *s) {
        return s->n_problems;
}

PKGNOTE_PUBLIC const char *pkgnote_scan_problem(const pkgnote_scan *s, size_t i, const char **path, int *error) {
        if (i >= s->n_problems)
                return NULL;
        if (path)
                *path = s->problems[i].path;
        if (error)
                *error = s->problems[i].err;
        return s->problems[i].message;
}

PKGNOTE_PUBLIC size_t pkgnote_scan_object_count(const pkgnote_scan *s) {
        return s->n_objects;
}
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_object_get(const pkgnote_scan *s, size_t i) {
        return i < s->n_objects ? s->objects[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_path(const pkgnote_scan_object *o) {
        return o->path;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_input(const pkgnote_scan_object *o) {
        return o->input;
}
PKGNOTE_PUBLIC uint64_t pkgnote_scan_object_size(const pkgnote_scan_object *o) {
        return o->size;
}
PKGNOTE_PUBLIC unsigned pkgnote_scan_object_elf_type(const pkgnote_scan_object *o) {
        return o->type;
}
PKGNOTE_PUBLIC unsigned pkgnote_scan_object_machine(const pkgnote_scan_object *o) {
        return o->machine;
}
PKGNOTE_PUBLIC int pkgnote_scan_object_class(const pkgnote_scan_object *o) {
        return o->elf_class;
}
PKGNOTE_PUBLIC int pkgnote_scan_object_big_endian(const pkgnote_scan_object *o) {
        return o->be;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_kind(const pkgnote_scan_object *o) {
        switch (o->type) {
        case 1: return "relocatable";
        case 2: return "executable";
        case 3: return o->interp ? "executable" : "shared object";
        case 4: return "core";
        default: return "unknown";
        }
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_build_id(const pkgnote_scan_object *o) {
        return o->build_id;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_package_count(const pkgnote_scan_object *o) {
        return o->n_packages;
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_object_package(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_packages ? o->packages[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_package_json(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_packages ? o->package_json[i] : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_dlopen_count(const pkgnote_scan_object *o) {
        return o->n_dlopen;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_dlopen_json(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_dlopen ? o->dlopen_json[i] : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_problem_count(const pkgnote_scan_object *o) {
        return o->n_problems;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_problem(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_problems ? o->problems[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha1(const pkgnote_scan_object *o) {
        return o->has_sums && o->n_packages ? o->sha1 : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha256(const pkgnote_scan_object *o) {
        return o->has_sums && o->n_packages ? o->sha256 : NULL;
}

/* ---- the package index ---- */

struct pkgref {
        const char *json;
        const pkgnote_metadata *meta;
        const pkgnote_scan_object *obj;
        size_t order;
};

static int cmp_field(const pkgnote_metadata *a, const pkgnote_metadata *b, const char *key) {
        const char *x = pkgnote_metadata_get(a, key), *y = pkgnote_metadata_get(b, key);
        return strcmp(x ? x : "", y ? y : "");
}

static int cmp_pkgref(const void *pa, const void *pb) {
        const struct pkgref *a = pa, *b = pb;
        static const char *const keys[] = {PKGNOTE_KEY_TYPE, PKGNOTE_KEY_OS, PKGNOTE_KEY_NAME, PKGNOTE_KEY_VERSION,
                                           PKGNOTE_KEY_ARCHITECTURE};
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                int c = cmp_field(a->meta, b->meta, keys[i]);
                if (c)
                        return c;
        }
        int c = strcmp(a->json, b->json);
        if (c)
                return c;
        return a->order < b->order ? -1 : a->order > b->order;
}

static int build_packages(pkgnote_scan *s) {
        size_t n = 0;
        for (size_t i = 0; i < s->n_objects; i++)
                n += s->objects[i]->n_packages;
        struct pkgref *refs = calloc(n ? n : 1, sizeof *refs);
        if (!refs)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < s->n_objects; i++)
                for (size_t j = 0; j < s->objects[i]->n_packages; j++, k++)
                        refs[k] = (struct pkgref){s->objects[i]->package_json[j], s->objects[i]->packages[j],
                                                  s->objects[i], k};
        qsort(refs, n, sizeof *refs, cmp_pkgref);
        int r = 0;
        for (size_t i = 0; i < n && r == 0;) {
                size_t e = i + 1;
                while (e < n && !strcmp(refs[e].json, refs[i].json))
                        e++;
                struct package *x = realloc(s->packages, (s->n_packages + 1) * sizeof *x);
                const pkgnote_scan_object **objs = calloc(e - i, sizeof *objs);
                if (x)
                        s->packages = x;
                if (!x || !objs) {
                        free(objs);
                        r = -ENOMEM;
                        break;
                }
                for (size_t q = i; q < e; q++)
                        objs[q - i] = refs[q].obj;
                s->packages[s->n_packages++] = (struct package){refs[i].json, refs[i].meta, objs, e - i};
                i = e;
        }
        free(refs);
        if (r < 0)
                packages_clear(s);
        else
                s->packages_valid = true;
        return r;
}

static const struct package *package_at(const pkgnote_scan *s, size_t i) {
        /* The index is a cache of the objects: logically const. */
        pkgnote_scan *m = (pkgnote_scan *)s;
        if (!m->packages_valid && build_packages(m) < 0)
                return NULL;
        return i < m->n_packages ? &m->packages[i] : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_scan_package_count(const pkgnote_scan *s) {
        package_at(s, 0);
        return s->n_packages;
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_package(const pkgnote_scan *s, size_t i) {
        const struct package *p = package_at(s, i);
        return p ? p->meta : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_package_json(const pkgnote_scan *s, size_t i) {
        const struct package *p = package_at(s, i);
        return p ? p->json : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_package_object_count(const pkgnote_scan *s, size_t i) {
        const struct package *p = package_at(s, i);
        return p ? p->n_objects : 0;
}
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_package_object(const pkgnote_scan *s, size_t i, size_t j) {
        const struct package *p = package_at(s, i);
        return p && j < p->n_objects ? p->objects[j] : NULL;
}
