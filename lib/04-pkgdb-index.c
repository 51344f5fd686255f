/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An index of dpkg's file lists, so that asking who owns a process's or
 * a core's modules does not read every package's list on every call
 * (1,263 lists, 10.9 MB on a desktop).  dpkg keeps no index by path: its
 * own `dpkg -S` reads them all.  This one is kept in the user's cache
 * ($XDG_CACHE_HOME/pkgnote, else ~/.cache/pkgnote) and answers one
 * question only: which lists hold a line with the same hash as a path.
 * The answer is then read from those lists themselves, through the same
 * reader as the full scan, so the owners found are the full scan's: every
 * package that lists the path (a directory, a diverted or overwritten
 * file, a Multi-Arch: same file) is read, and the first of them in the
 * status file stays the owner.  The index only has to be complete, never
 * exact: a hash shared with another path costs one more list read.
 *
 * Complete means built from the lists as they are now.  dpkg never
 * changes a list in place: it writes PKG.list-new and renames it over
 * PKG.list (and unlinks the lists of purged packages), so any change to
 * any list changes the info directory's modification and change times.
 * The index carries the directory's identity and those times as it saw
 * them before and after reading the lists, and is used only while they
 * are the same; one built within two seconds of the directory's last
 * change is not kept (a change within the same clock tick would not move
 * the times).  Which packages are installed is read from the status file
 * on every call, so the index holds every list, whatever its package's
 * state.
 *
 * The cache is trusted only when it is ours: the directory and the file
 * owned by the effective user and writable by no one else, the file a
 * regular one reached without following a link, written by the one safe
 * writer (a temporary, fsync(), rename()).  Without a usable cache the
 * lookup reads every list, as before; nothing here is ever an error.
 *
 * The file (all integers little-endian, read by offset and width):
 *   0   8  magic "PNDPKGI1"
 *   8  48  the info directory: st_dev, st_ino, mtime s, ns, ctime s, ns (u64)
 *   56  4  number of lists          60  4  number of entries
 *   64  4  bytes of names           68  4  B: 2^B buckets (4 to 24)
 *   72     the lists' names, each NUL-terminated ("PKG[:ARCH].list"),
 *          then 2^B + 1 entry indices (u32): bucket K's entries are
 *          [table[K], table[K + 1]), a bucket being a hash's top B bits,
 *          then the entries, 12 bytes each: a path's hash (u64) and the
 *          index of a list holding it (u32), sorted by hash, then list.
 * A lookup reads the header and names, then one bucket: a few hundred
 * bytes of the file, each checked as it is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "01-base-root.h"
#include "01-base.h"
#include "04-pkgdb-private.h"

#define MAGIC "PNDPKGI1"
#define HEADER 72u
#define ENTRY 12u
#define CACHE_SLOTS 16u /* index files kept: roots are given a slot by their identity */
#define MIN_BUCKET_BITS 4u
#define MAX_BUCKET_BITS 24u
#define MAX_BUCKET (1u << 20) /* entries of one bucket: more is a malformed file */

struct entry {
        uint64_t hash;
        uint32_t list;
};

struct pn_dpkg_index {
        /* built: names appended; parsed: the file's bytes */
        char *names;
        size_t names_len, names_cap;
        size_t *name_at; /* offset of each list's name in names */
        size_t nlists, name_at_cap;
        struct entry *entries; /* built only */
        size_t nentries, entries_cap;
        bool parsed;               /* read from a file (fd) or bytes (file) */
        int fd;                    /* the index file, read as looked up; or -1 */
        const unsigned char *file; /* or its bytes */
        size_t file_len, table_at, entries_at;
        unsigned bits; /* 2^bits buckets */
};

static _Atomic unsigned long lists_read;
unsigned pn_dpkg_index_settle = 2;

unsigned long pn_dpkg_lists_read(void) {
        return atomic_load_explicit(&lists_read, memory_order_relaxed);
}

void pn_dpkg_count_list_read(void) {
        atomic_fetch_add_explicit(&lists_read, 1, memory_order_relaxed);
}

static uint64_t get_le(const unsigned char *p, unsigned width);

uint64_t pn_dpkg_path_hash(const char *p, size_t len) {
        /* Eight bytes at a time (little-endian, whatever the machine's
         * order), each word mixed in by a multiply, the whole finished as
         * splitmix64 does: the index hashes every line of every list
         * (10 MB on a desktop) when it is built. */
        const unsigned char *b = (const unsigned char *)p;
        uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)len;
        for (; len >= 8; b += 8, len -= 8)
                h = ((h ^ get_le(b, 8)) * UINT64_C(0xbf58476d1ce4e5b9)) ^ (h >> 29);
        if (len)
                h = ((h ^ get_le(b, (unsigned)len)) * UINT64_C(0x94d049bb133111eb)) ^ (h >> 29);
        h ^= h >> 30;
        h *= UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 27;
        h *= UINT64_C(0x94d049bb133111eb);
        return h ^ (h >> 31);
}

void pn_dpkg_stamp_of(const struct stat *st, struct pn_dpkg_stamp *s) {
        *s = (struct pn_dpkg_stamp){(uint64_t)st->st_dev,         (uint64_t)st->st_ino,
                                    (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
                                    (uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec};
}

static bool same_stamp(const struct pn_dpkg_stamp *a, const struct pn_dpkg_stamp *b) {
        return a->dev == b->dev && a->ino == b->ino && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
               a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

void pn_dpkg_index_free(pn_dpkg_index *x) {
        if (!x)
                return;
        if (x->fd >= 0)
                close(x->fd);
        free(x->names);
        free(x->name_at);
        free(x->entries);
        free(x);
}

pn_dpkg_index *pn_dpkg_index_new(void) {
        pn_dpkg_index *x = calloc(1, sizeof *x);
        if (x)
                x->fd = -1;
        return x;
}

size_t pn_dpkg_index_list_count(const pn_dpkg_index *x) {
        return x->nlists;
}

const char *pn_dpkg_index_list_name(const pn_dpkg_index *x, size_t i) {
        return i < x->nlists ? x->names + x->name_at[i] : NULL;
}

/* Whether NAME (LEN bytes) may be a list's name: "X.list", one component. */
static bool list_name(const char *name, size_t len) {
        return len > 5 && len < 512 && !memcmp(name + len - 5, ".list", 5) && !memchr(name, '/', len) &&
               !memchr(name, 0, len);
}

int pn_dpkg_index_add_list(pn_dpkg_index *x, const char *name, const char *text, size_t len) {
        size_t nl = strlen(name);
        if (!list_name(name, nl))
                return 0;
        if (x->nlists >= PN_DPKG_INDEX_MAX_LISTS)
                return -E2BIG;
        if (PN_GROW(x->name_at, x->name_at_cap, x->nlists + 1) < 0 ||
            PN_GROW(x->names, x->names_cap, x->names_len + nl + 1) < 0)
                return -ENOMEM;
        x->name_at[x->nlists] = x->names_len;
        memcpy(x->names + x->names_len, name, nl + 1);
        x->names_len += nl + 1;
        uint32_t list = (uint32_t)x->nlists++;
        for (const char *p = text, *end = text + len, *eol; p < end; p = eol + 1) {
                eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        eol = end;
                if (eol == p || *p != '/')
                        continue; /* as pn_pkgdb_add_file() ignores it */
                if (x->nentries >= PN_DPKG_INDEX_MAX_ENTRIES)
                        return -E2BIG;
                if (PN_GROW(x->entries, x->entries_cap, x->nentries + 1) < 0)
                        return -ENOMEM;
                x->entries[x->nentries++] = (struct entry){pn_dpkg_path_hash(p, (size_t)(eol - p)), list};
        }
        return 0;
}

static int cmp_entry(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        if (x->hash != y->hash)
                return x->hash < y->hash ? -1 : 1;
        return (x->list > y->list) - (x->list < y->list);
}

static void put_le(unsigned char *p, uint64_t v, unsigned width) {
        for (unsigned i = 0; i < width; i++)
                p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned width) {
        uint64_t v = 0;
        for (unsigned i = 0; i < width; i++)
                v |= (uint64_t)p[i] << (8 * i);
        return v;
}

/* The bucket of hash H among 2^BITS: its top bits. */
static size_t bucket_of(uint64_t h, unsigned bits) {
        return (size_t)(h >> (64 - bits));
}

int pn_dpkg_index_serialize(pn_dpkg_index *x, const struct pn_dpkg_stamp *s, void **ret, size_t *ret_len) {
        if (x->names_len > UINT32_MAX)
                return -E2BIG;
        /* About four entries a bucket. */
        unsigned bits = MIN_BUCKET_BITS;
        while (bits < MAX_BUCKET_BITS && ((size_t)4 << bits) < x->nentries)
                bits++;
        size_t nb = (size_t)1 << bits, n = x->nentries;
        /* Sorted by bucket (counting), then within each bucket by hash
         * and list (insertion: the entries of one hash, a directory most
         * lists name, come in list order already), repeats dropped (a
         * list naming a path twice): sorted by hash, then list. */
        size_t *start = calloc(nb + 1, sizeof *start);
        struct entry *e = malloc((n ? n : 1) * sizeof *e);
        if (!start || !e) {
                free(start);
                free(e);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                start[bucket_of(x->entries[i].hash, bits) + 1]++;
        for (size_t k = 0; k < nb; k++)
                start[k + 1] += start[k];
        for (size_t i = 0; i < n; i++)
                e[start[bucket_of(x->entries[i].hash, bits)]++] = x->entries[i];
        /* start[k] is now the end of bucket k */
        size_t m = 0, from = 0;
        for (size_t k = 0; k < nb; k++) {
                size_t to = start[k];
                for (size_t i = from + 1; i < to; i++) {
                        struct entry v = e[i];
                        size_t j = i;
                        for (; j > from && cmp_entry(&e[j - 1], &v) > 0; j--)
                                e[j] = e[j - 1];
                        e[j] = v;
                }
                start[k] = m; /* the bucket's first entry, repeats dropped */
                for (size_t i = from; i < to; i++)
                        if (i == from || cmp_entry(&e[i - 1], &e[i]))
                                e[m++] = e[i];
                from = to;
        }
        start[nb] = m;
        size_t len = HEADER + x->names_len + 4 * (nb + 1) + ENTRY * m;
        unsigned char *b = calloc(1, len);
        if (!b) {
                free(start);
                free(e);
                return -ENOMEM;
        }
        memcpy(b, MAGIC, 8);
        const uint64_t st[6] = {s->dev, s->ino, s->mtime_s, s->mtime_ns, s->ctime_s, s->ctime_ns};
        for (unsigned i = 0; i < 6; i++)
                put_le(b + 8 + 8 * i, st[i], 8);
        put_le(b + 56, x->nlists, 4);
        put_le(b + 60, m, 4);
        put_le(b + 64, x->names_len, 4);
        put_le(b + 68, bits, 4);
        if (x->names_len)
                memcpy(b + HEADER, x->names, x->names_len);
        unsigned char *t = b + HEADER + x->names_len, *o = t + 4 * (nb + 1);
        for (size_t k = 0; k <= nb; k++)
                put_le(t + 4 * k, start[k], 4);
        for (size_t i = 0; i < m; i++, o += ENTRY) {
                put_le(o, e[i].hash, 8);
                put_le(o + 8, e[i].list, 4);
        }
        /* The built index answers lookups in this order too. */
        free(x->entries);
        x->entries = e;
        x->nentries = m;
        x->entries_cap = n;
        free(start);
        *ret = b;
        *ret_len = len;
        return 0;
}

/* LEN bytes at offset OFF of the index's file (or bytes), bounds-checked:
 * 0 or -EBADMSG. */
static int src_read(const pn_dpkg_index *x, uint64_t off, size_t len, void *buf) {
        if (off > x->file_len || len > x->file_len - off)
                return -EBADMSG;
        if (x->file) {
                memcpy(buf, x->file + off, len);
                return 0;
        }
        ssize_t r = pn_pread_full(x->fd, buf, len, off);
        return r < 0 ? (int)r : (size_t)r == len ? 0 : -EBADMSG;
}

/* The header and names of the index in X's source (its file or bytes). */
static int parse_head(pn_dpkg_index *x, const struct pn_dpkg_stamp *want) {
        unsigned char b[HEADER];
        if (src_read(x, 0, HEADER, b) < 0 || memcmp(b, MAGIC, 8))
                return -EBADMSG;
        struct pn_dpkg_stamp s = {get_le(b + 8, 8),  get_le(b + 16, 8), get_le(b + 24, 8),
                                  get_le(b + 32, 8), get_le(b + 40, 8), get_le(b + 48, 8)};
        if (want && !same_stamp(&s, want))
                return -ESTALE;
        uint64_t nlists = get_le(b + 56, 4), nentries = get_le(b + 60, 4), names_len = get_le(b + 64, 4),
                 bits = get_le(b + 68, 4);
        /* Exactly the size the counts give (64-bit sums of 32-bit counts:
         * no overflow), every list named once, nothing after. */
        if (nlists > PN_DPKG_INDEX_MAX_LISTS || nentries > PN_DPKG_INDEX_MAX_ENTRIES ||
            bits < MIN_BUCKET_BITS || bits > MAX_BUCKET_BITS ||
            HEADER + names_len + 4 * ((UINT64_C(1) << bits) + 1) + ENTRY * nentries != x->file_len)
                return -EBADMSG;
        if (!(x->name_at = malloc((nlists ? nlists : 1) * sizeof *x->name_at)) || !(x->names = malloc(names_len + 1)))
                return -ENOMEM;
        if (src_read(x, HEADER, names_len, x->names) < 0)
                return -EBADMSG;
        size_t at = 0;
        for (; x->nlists < nlists && at < names_len; x->nlists++) {
                const char *nul = memchr(x->names + at, 0, names_len - at);
                if (!nul || !list_name(x->names + at, (size_t)(nul - x->names - at)))
                        return -EBADMSG;
                x->name_at[x->nlists] = at;
                at = (size_t)(nul - x->names) + 1;
        }
        if (x->nlists != nlists || at != names_len)
                return -EBADMSG;
        x->names_len = names_len;
        x->bits = (unsigned)bits;
        x->table_at = HEADER + names_len;
        x->entries_at = x->table_at + 4 * (((size_t)1 << bits) + 1);
        x->nentries = nentries;
        return 0;
}

/* An index read from FD (which it takes over) or the LEN bytes at DATA. */
static int parse(int fd, const void *data, size_t len, const struct pn_dpkg_stamp *want, pn_dpkg_index **ret) {
        pn_dpkg_index *x = pn_dpkg_index_new();
        if (!x) {
                if (fd >= 0)
                        close(fd);
                return -ENOMEM;
        }
        x->parsed = true;
        x->fd = fd;
        x->file = data;
        x->file_len = len;
        int r = parse_head(x, want);
        if (r < 0) {
                pn_dpkg_index_free(x);
                return r;
        }
        *ret = x;
        return 0;
}

int pn_dpkg_index_parse(const void *data, size_t len, const struct pn_dpkg_stamp *want, pn_dpkg_index **ret) {
        return parse(-1, data, len, want, ret);
}

int pn_dpkg_index_lists(const pn_dpkg_index *x, const char *path, size_t len, int (*each)(void *u, size_t list),
                        void *u) {
        uint64_t h = pn_dpkg_path_hash(path, len);
        if (!x->parsed) {
                /* built: sorted by serialize(), or not yet: every entry */
                for (size_t i = 0; i < x->nentries; i++)
                        if (x->entries[i].hash == h) {
                                int r = each(u, x->entries[i].list);
                                if (r)
                                        return r;
                        }
                return 0;
        }
        /* The bucket's bounds, then its entries, each checked: in the
         * bucket, naming a list.  Every entry of the bucket is looked at,
         * so their order within it does not matter. */
        size_t k = bucket_of(h, x->bits);
        unsigned char t[8];
        int r = src_read(x, x->table_at + 4 * (uint64_t)k, 8, t);
        if (r < 0)
                return r;
        uint64_t from = get_le(t, 4), to = get_le(t + 4, 4);
        if (from > to || to > x->nentries || to - from > MAX_BUCKET)
                return -EBADMSG;
        unsigned char e[ENTRY * 64];
        for (uint64_t i = from; i < to;) {
                size_t m = to - i < 64 ? (size_t)(to - i) : 64;
                if ((r = src_read(x, x->entries_at + ENTRY * i, ENTRY * m, e)) < 0)
                        return r;
                for (size_t j = 0; j < m; j++) {
                        uint64_t eh = get_le(e + ENTRY * j, 8), list = get_le(e + ENTRY * j + 8, 4);
                        if (bucket_of(eh, x->bits) != k || list >= x->nlists)
                                return -EBADMSG;
                        if (eh == h && (r = each(u, (size_t)list)))
                                return r;
                }
                i += m;
        }
        return 0;
}

/* ---- the cache ---- */

/* Whether the file or directory ST is ours alone. */
static bool ours(const struct stat *st) {
        return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The cache directory, $XDG_CACHE_HOME/pkgnote or ~/.cache/pkgnote (not
 * with HOME=/, a service's or helper's stand-in for none), created (0700)
 * when missing: a descriptor, or a negative errno. */
static int cache_dir(void) {
        const char *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
        char *base = NULL;
        if (xdg && *xdg == '/')
                base = strdup(xdg);
        else if (home && *home == '/' && home[1] && asprintf(&base, "%s/.cache", home) < 0) /* HOME=/: none */
                base = NULL;
        if (!base)
                return -ENOENT;
        int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (bfd < 0 && errno == ENOENT && mkdir(base, 0700) == 0)
                bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        free(base);
        if (bfd < 0)
                return -errno;
        int fd = openat(bfd, "pkgnote", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && mkdirat(bfd, "pkgnote", 0700) == 0)
                fd = openat(bfd, "pkgnote", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r = fd < 0 ? -errno : 0;
        close(bfd);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || !ours(&st))) {
                close(fd);
                return -EPERM;
        }
        return r < 0 ? r : fd;
}

static void index_name(const struct pn_dpkg_stamp *s, char *buf, size_t size) {
        uint64_t h = pn_dpkg_path_hash((const char *)&s->dev, sizeof s->dev) ^ s->ino * UINT64_C(0x9e3779b97f4a7c15);
        snprintf(buf, size, "dpkg-%02x.index", (unsigned)(h % CACHE_SLOTS));
}

int pn_dpkg_index_load(const struct pn_dpkg_stamp *s, pn_dpkg_index **ret) {
        int dfd = cache_dir();
        if (dfd < 0)
                return 0;
        char name[32];
        index_name(s, name, sizeof name);
        int fd = pn_openat_regular(dfd, name);
        close(dfd);
        if (fd < 0)
                return 0;
        struct stat st;
        if (fstat(fd, &st) < 0 || !ours(&st) || st.st_nlink != 1 || (uint64_t)st.st_size > PN_DPKG_INDEX_MAX) {
                close(fd);
                return 0;
        }
        int r = parse(fd, NULL, (size_t)st.st_size, s, ret);
        return r == 0 ? 1 : r == -ENOMEM ? r : 0;
}

void pn_dpkg_index_save(pn_dpkg_index *x, const struct pn_dpkg_stamp *before, int rootfd) {
        /* The directory as it is now (looked up again: it may have been
         * replaced): the same as before the lists were read, and not
         * changed within the last two seconds. */
        struct stat st;
        struct pn_dpkg_stamp after;
        struct timespec now;
        int infofd = pn_open_dir_in_root(rootfd, "var/lib/dpkg/info");
        if (infofd < 0)
                return;
        int r = fstat(infofd, &st);
        close(infofd);
        if (r < 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
                return;
        pn_dpkg_stamp_of(&st, &after);
        int64_t settled = (int64_t)now.tv_sec - (int64_t)pn_dpkg_index_settle;
        if (!same_stamp(before, &after) || (int64_t)after.mtime_s > settled || (int64_t)after.ctime_s > settled)
                return;
        void *data;
        size_t len;
        if (pn_dpkg_index_serialize(x, before, &data, &len) < 0)
                return;
        int dfd = cache_dir();
        if (dfd >= 0) {
                char name[32];
                index_name(before, name, sizeof name);
                pn_output o;
                if (pn_output_open(&o, dfd, name, 0) == 0) {
                        o.mode = 0600;
                        if (pn_write_full(o.fd, data, len) == 0 && pn_output_verify(&o, data, len) == 0)
                                (void)pn_output_commit(&o);
                        else
                                pn_output_abort(&o);
                }
                close(dfd);
        }
        free(data);
}
