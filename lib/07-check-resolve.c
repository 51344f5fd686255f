/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which file the dynamic loader finds for a library name inside a root:
 * the rules of glibc's loader (elf/dl-load.c) in one place, for
 * `deps --closure` and for scan's dependency edges (07-check-resolve.h).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-root.h"
#include "01-base-dir.h"
#include "01-base.h"
#include "02-elf-view.h"
#include "07-check-resolve.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

/* ------------------------------------------------------------------ */
/* A string map */

static size_t smap_hash(const char *s) {
        size_t h = 14695981039346656037ull & SIZE_MAX;
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
        return h;
}

bool pn_smap_get(const struct pn_smap *m, const char *key, size_t *val) {
        if (!m->cap)
                return false;
        for (size_t i = smap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
                if (!m->v[i].key)
                        return false;
                if (!strcmp(m->v[i].key, key)) {
                        *val = m->v[i].val;
                        return true;
                }
        }
}

int pn_smap_put(struct pn_smap *m, const char *key, size_t val) {
        if (2 * (m->n + 1) > m->cap) {
                size_t cap = m->cap ? 2 * m->cap : 16;
                struct pn_sent *v = calloc(cap, sizeof *v);
                if (!v)
                        return -ENOMEM;
                for (size_t k = 0; k < m->cap; k++)
                        if (m->v[k].key) {
                                size_t i = smap_hash(m->v[k].key) & (cap - 1);
                                while (v[i].key)
                                        i = (i + 1) & (cap - 1);
                                v[i] = m->v[k];
                        }
                free(m->v);
                m->v = v, m->cap = cap;
        }
        size_t i = smap_hash(key) & (m->cap - 1);
        while (m->v[i].key)
                i = (i + 1) & (m->cap - 1);
        if (!(m->v[i].key = strdup(key)))
                return -ENOMEM;
        m->v[i].val = val;
        m->n++;
        return 0;
}

void pn_smap_done(struct pn_smap *m) {
        for (size_t i = 0; i < m->cap; i++)
                free(m->v[i].key);
        free(m->v);
        *m = (struct pn_smap){0};
}

/* ------------------------------------------------------------------ */
/* ABIs */

#define EF_ARM_EABI_MASK_ 0xff000000u
#define EF_ARM_EABI_VER5_ 0x05000000u
#define EF_ARM_ABI_FLOAT_SOFT_ 0x200u
#define EF_ARM_ABI_FLOAT_HARD_ 0x400u

struct pn_abi pn_abi_make(int elf_class, int big_endian, unsigned machine, uint32_t e_flags) {
        struct pn_abi a = {elf_class, big_endian, machine, PN_FLOAT_ANY};
        /* glibc's VALID_FLOAT_ABI (sysdeps/unix/sysv/linux/arm/ldsodefs.h):
         * only EABI version 5 objects say which float ABI they use. */
        if (machine == EM_ARM && (e_flags & EF_ARM_EABI_MASK_) == EF_ARM_EABI_VER5_) {
                if (e_flags & EF_ARM_ABI_FLOAT_HARD_)
                        a.float_abi = PN_FLOAT_HARD;
                else if (e_flags & EF_ARM_ABI_FLOAT_SOFT_)
                        a.float_abi = PN_FLOAT_SOFT;
        }
        return a;
}

struct pn_abi pn_elf_abi(const pkgnote_object *e) {
        return pn_abi_make(pkgnote_object_class(e), pkgnote_object_big_endian(e), pkgnote_object_machine(e), pn_elf_eflags(e));
}

bool pn_abi_accepts(const struct pn_abi *want, const struct pn_abi *got) {
        if (want->elf_class != got->elf_class || want->machine != got->machine || want->big_endian != got->big_endian)
                return false;
        /* A hard-float loader refuses soft-float objects and the other way
         * round; an object that says neither goes with both. */
        return want->float_abi == PN_FLOAT_ANY || got->float_abi == PN_FLOAT_ANY || want->float_abi == got->float_abi;
}

int pn_abi_cmp(const struct pn_abi *x, const struct pn_abi *y) {
        if (x->machine != y->machine)
                return x->machine < y->machine ? -1 : 1;
        if (x->elf_class != y->elf_class)
                return x->elf_class < y->elf_class ? -1 : 1;
        if (x->big_endian != y->big_endian)
                return x->big_endian < y->big_endian ? -1 : 1;
        if (x->float_abi != y->float_abi)
                return x->float_abi < y->float_abi ? -1 : 1;
        return 0;
}

static const struct pn_debian_abi debian_abis[] = {
        {EM_X86_64, 64, 0, PN_FLOAT_ANY, "amd64", "x86_64-linux-gnu"},
        {EM_X86_64, 32, 0, PN_FLOAT_ANY, "x32", "x86_64-linux-gnux32"},
        {EM_386, 32, 0, PN_FLOAT_ANY, "i386", "i386-linux-gnu"},
        {EM_AARCH64, 64, 0, PN_FLOAT_ANY, "arm64", "aarch64-linux-gnu"},
        {EM_ARM, 32, 0, PN_FLOAT_HARD, "armhf", "arm-linux-gnueabihf"},
        {EM_ARM, 32, 0, PN_FLOAT_SOFT, "armel", "arm-linux-gnueabi"},
        {EM_S390, 64, 1, PN_FLOAT_ANY, "s390x", "s390x-linux-gnu"},
        {EM_PPC64, 64, 0, PN_FLOAT_ANY, "ppc64el", "powerpc64le-linux-gnu"},
        {EM_PPC64, 64, 1, PN_FLOAT_ANY, "ppc64", "powerpc64-linux-gnu"},
        {EM_RISCV, 64, 0, PN_FLOAT_ANY, "riscv64", "riscv64-linux-gnu"},
        {EM_MIPS, 64, 0, PN_FLOAT_ANY, "mips64el", "mips64el-linux-gnuabi64"},
        {EM_MIPS, 32, 0, PN_FLOAT_ANY, "mipsel", "mipsel-linux-gnu"},
        {EM_LOONGARCH, 64, 0, PN_FLOAT_ANY, "loong64", "loongarch64-linux-gnu"},
};

const struct pn_debian_abi *pn_debian_abi(size_t i) {
        return i < ELEMENTSOF(debian_abis) ? &debian_abis[i] : NULL;
}

const char *pn_abi_triplet(const struct pn_abi *a, size_t i) {
        for (size_t k = 0; k < ELEMENTSOF(debian_abis); k++) {
                const struct pn_debian_abi *d = &debian_abis[k];
                if (d->machine == a->machine && d->elf_class == a->elf_class && d->big_endian == a->big_endian &&
                    (a->float_abi == PN_FLOAT_ANY || d->float_abi == PN_FLOAT_ANY || d->float_abi == a->float_abi) &&
                    i-- == 0)
                        return d->triplet;
        }
        return NULL;
}

bool pn_abi_default_dir(const struct pn_abi *a, size_t i, char *buf, size_t size) {
        for (size_t k = 0;; k++) {
                const char *t = pn_abi_triplet(a, k);
                if (!t)
                        break;
                if (i < 2) {
                        snprintf(buf, size, "%s/lib/%s", i ? "/usr" : "", t);
                        return true;
                }
                i -= 2;
        }
        const char *sub = a->elf_class == 64 ? "lib64" : a->machine == EM_X86_64 ? "libx32" : NULL;
        if (sub && i < 2) {
                snprintf(buf, size, "%s/%s", i ? "/usr" : "", sub);
                return true;
        }
        i -= sub ? 2 : 0;
        if (i < 2) {
                snprintf(buf, size, "%s/lib", i ? "/usr" : "");
                return true;
        }
        return false;
}

const char *const *pn_abi_hwcaps(const struct pn_abi *a) {
        static const char *const x86_64[] = {"x86-64-v4", "x86-64-v3", "x86-64-v2", NULL};
        static const char *const power[] = {"power10", "power9", NULL};
        static const char *const z[] = {"z16", "z15", "z14", "z13", NULL};
        static const char *const none[] = {NULL};
        if (a->machine == EM_X86_64 && a->elf_class == 64)
                return x86_64;
        if (a->machine == EM_PPC64 && !a->big_endian)
                return power;
        if (a->machine == EM_S390 && a->elf_class == 64)
                return z;
        return none;
}

static const char *platform_of(const struct pn_abi *a) {
        switch (a->machine) {
        case EM_X86_64: return a->elf_class == 64 ? "x86_64" : NULL;
        case EM_386: return "i686";
        case EM_AARCH64: return a->big_endian ? "aarch64_be" : "aarch64";
        case EM_S390: return "s390x";
        case EM_RISCV: return "riscv64";
        default: return NULL;
        }
}

/* ------------------------------------------------------------------ */
/* A tree on disk as a root */

static int tree_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                    void (*each)(void *cu, const char *name), void *cu) {
        int fd = pn_open_dir_in_root(*(int *)u, abs);
        pn_error_clear();
        if (fd < 0)
                return fd;
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int err = -errno;
                close(fd);
                return err;
        }
        if (!want(cu, (const uint64_t[2]){st.st_dev, st.st_ino})) {
                close(fd);
                return 0;
        }
        struct pn_dir it;
        int r = pn_dir_open(&it, fd, NULL, 0, 0);
        close(fd);
        if (r < 0)
                return -ENOMEM;
        struct pn_dirent e;
        while (pn_dir_next(&it, &e) > 0)
                each(cu, e.name);
        pn_dir_close(&it);
        return 0;
}

static int tree_read(void *u, const char *abs, size_t max, void **data, size_t *len) {
        int r = pn_read_in_root(*(int *)u, abs, max, data, len);
        pn_error_clear();
        return r == -EINVAL ? -ENOENT : r; /* not a regular file */
}

void pn_resolve_root_tree(struct pn_resolve_root *r, int *rootfd) {
        *r = (struct pn_resolve_root){tree_dir, tree_read, rootfd};
}

/* ------------------------------------------------------------------ */
/* Directories, each looked at once */

/* A directory is its parent's number and its own name, not its whole
 * path: each costs its name alone, however deep (a path is put together
 * only to be read). */
struct rdir {
        size_t parent;  /* SIZE_MAX for the top */
        char *name;     /* its last component; "" for the top */
        int state;      /* 0 not looked at yet, 1 there, -1 not (rtld's "nonexisting") */
        int err;        /* when not there: why (-ENOENT, -ENOTDIR, -EACCES...) */
        size_t listing; /* when there: its listing, shared by every path to it */
};

struct listing {
        struct pn_smap names;
        bool partial;  /* more entries than kept: look names up by opening them */
        unsigned seen; /* the search that last went through it */
};

struct sysdirs {
        struct pn_abi abi;
        bool nodeflib;
        struct pn_dirlist l;
};

struct pn_resolver {
        struct pn_resolve_root root;
        pn_resolve_problem_fn problem;
        void *pu;
        struct rdir *dirs;
        size_t n_dirs, cap_dirs;
        struct pn_smap by_child; /* "PARENT/NAME" -> dirs index */
        size_t bytes;            /* what the directories cost, all told */
        bool over;               /* a limit hit (said once) */
        struct listing *lists;
        size_t n_lists, cap_lists;
        struct pn_smap by_id; /* identity -> lists index */
        /* ld.so.conf: its directories, in order */
        bool conf_read;
        char **conf;
        size_t n_conf, cap_conf;
        struct pn_smap conf_dirs, conf_seen;
        size_t conf_files;
        struct sysdirs *sys;
        size_t n_sys, cap_sys;
        unsigned search;
        struct pn_resolve_stats stats;
};

int pn_resolver_new(const struct pn_resolve_root *root, pn_resolve_problem_fn problem, void *pu, pn_resolver **ret) {
        pn_resolver *r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        r->root = *root;
        r->problem = problem;
        r->pu = pu;
        /* The top, directory 0. */
        if (!(r->dirs = calloc(1, sizeof *r->dirs)) || !(r->dirs[0].name = strdup(""))) {
                free(r->dirs);
                free(r);
                return -ENOMEM;
        }
        r->dirs[0] = (struct rdir){SIZE_MAX, r->dirs[0].name, 0, 0, SIZE_MAX};
        r->n_dirs = r->cap_dirs = 1;
        r->stats.dirs = 1;
        *ret = r;
        return 0;
}

void pn_dirlist_done(struct pn_dirlist *l) {
        free(l->v);
        *l = (struct pn_dirlist){0};
}

void pn_resolver_free(pn_resolver *r) {
        if (!r)
                return;
        for (size_t i = 0; i < r->n_dirs; i++)
                free(r->dirs[i].name);
        free(r->dirs);
        for (size_t i = 0; i < r->n_lists; i++)
                pn_smap_done(&r->lists[i].names);
        free(r->lists);
        pn_smap_done(&r->by_child);
        pn_smap_done(&r->by_id);
        pn_free_strv(r->conf, r->n_conf);
        pn_smap_done(&r->conf_dirs);
        pn_smap_done(&r->conf_seen);
        for (size_t i = 0; i < r->n_sys; i++)
                pn_dirlist_done(&r->sys[i].l);
        free(r->sys);
        free(r);
}

const struct pn_resolve_stats *pn_resolver_stats(const pn_resolver *r) {
        return &r->stats;
}

static void problem(pn_resolver *r, int err, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void problem(pn_resolver *r, int err, const char *path, const char *fmt, ...) {
        if (!r->problem)
                return;
        char msg[PATH_MAX + 256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        r->problem(r->pu, err, path, msg);
}

/* The path of directory DI into BUF: false when it is longer than SIZE. */
static bool path_of(const pn_resolver *r, size_t di, char *buf, size_t size) {
        size_t len = 0;
        for (size_t i = di; i != 0; i = r->dirs[i].parent)
                len += 1 + strlen(r->dirs[i].name);
        if (len == 0)
                return snprintf(buf, size, "/") < (int)size;
        if (len >= size)
                return false;
        buf[len] = '\0';
        for (size_t i = di, at = len; i != 0; i = r->dirs[i].parent) {
                size_t nl = strlen(r->dirs[i].name);
                at -= nl;
                memcpy(buf + at, r->dirs[i].name, nl);
                buf[--at] = '/';
        }
        return true;
}

/* The directory NAME (NL bytes, a name) in directory PARENT: 1 with its
 * number in *RET (made when new), 0 past PN_RESOLVE_MAX_DIRS or
 * PN_RESOLVE_MAX_BYTES (said once: the rest are taken as missing),
 * -ENOMEM. */
static int child(pn_resolver *r, size_t parent, const char *name, size_t nl, size_t *ret) {
        char key[NAME_MAX + 32];
        if (nl > NAME_MAX)
                return 0; /* no directory has that name (ENAMETOOLONG) */
        int kl = snprintf(key, sizeof key, "%zx/%.*s", parent, (int)nl, name);
        if (pn_smap_get(&r->by_child, key, ret))
                return 1;
        /* The entry, its name, its key, and their share of the map. */
        size_t cost = sizeof(struct rdir) + nl + 1 + (size_t)kl + 1 + 2 * sizeof(struct pn_sent);
        if (r->n_dirs >= PN_RESOLVE_MAX_DIRS || r->bytes + cost > PN_RESOLVE_MAX_BYTES) {
                if (!r->over)
                        problem(r, -E2BIG, "/", "more than %u directories or %u MiB of directory names looked at; the rest are taken as missing",
                                PN_RESOLVE_MAX_DIRS, PN_RESOLVE_MAX_BYTES >> 20);
                r->over = r->stats.limited = true;
                return 0;
        }
        if (PN_GROW(r->dirs, r->cap_dirs, r->n_dirs + 1) < 0)
                return -ENOMEM;
        char *n = strndup(name, nl);
        if (!n || pn_smap_put(&r->by_child, key, r->n_dirs) < 0) {
                free(n);
                return -ENOMEM;
        }
        r->dirs[r->n_dirs] = (struct rdir){parent, n, 0, 0, SIZE_MAX};
        r->bytes += cost;
        r->stats.dirs++;
        *ret = r->n_dirs++;
        return 1;
}

struct look {
        pn_resolver *r;
        size_t listing;
        int err;
};

static bool look_want(void *u, const uint64_t id[2]) {
        struct look *x = u;
        pn_resolver *r = x->r;
        char key[48];
        snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)id[0], (unsigned long long)id[1]);
        if (pn_smap_get(&r->by_id, key, &x->listing))
                return false; /* listed already, under another path */
        if (PN_GROW(r->lists, r->cap_lists, r->n_lists + 1) < 0 || pn_smap_put(&r->by_id, key, r->n_lists) < 0) {
                x->err = -ENOMEM;
                return false;
        }
        r->lists[r->n_lists] = (struct listing){0};
        x->listing = r->n_lists++;
        return true;
}

static void look_each(void *u, const char *name) {
        struct look *x = u;
        struct listing *l = &x->r->lists[x->listing];
        size_t v;
        if (x->err || !strcmp(name, ".") || !strcmp(name, "..") || pn_smap_get(&l->names, name, &v))
                return;
        if (l->names.n >= PN_RESOLVE_MAX_ENTRIES)
                l->partial = true;
        else if (pn_smap_put(&l->names, name, 0) < 0)
                x->err = -ENOMEM;
}

/* Looks at directory DI once (its parent there, and listed with its
 * name, or of a name a listing cannot tell: ".." or one past a partial
 * listing): 0 or -ENOMEM, its state set. */
static int probe_one(pn_resolver *r, size_t di) {
        struct rdir *d = &r->dirs[di];
        if (d->state)
                return 0;
        char path[PATH_MAX];
        if (!path_of(r, di, path, sizeof path)) {
                d->state = -1;
                d->err = -ENAMETOOLONG;
                return 0;
        }
        struct look x = {r, SIZE_MAX, 0};
        r->stats.dir_reads++;
        int e = r->root.dir(r->root.u, path, look_want, look_each, &x);
        d = &r->dirs[di];
        if (e == -ENOMEM || x.err == -ENOMEM)
                return -ENOMEM;
        if (e < 0 || x.listing == SIZE_MAX) {
                d->state = -1;
                d->err = e < 0 ? e : -ENOENT;
                return 0;
        }
        d->state = 1;
        d->listing = x.listing;
        return 0;
}

/* The directory REL below directory FROM (which is there): 1 with its
 * number in *RET when it is there, 0 when not, -ENOMEM.  Top down, one
 * component at a time, each looked at once (rtld's "nonexisting"); the
 * walk ends at the first component that is not there, and one that its
 * parent's listing lacks is not even recorded, so that a hostile search
 * path of deep directories that are not there costs neither a system
 * call nor memory per component.  "." is skipped; ".." is a directory of
 * its own, looked at (a symbolic link before it decides where it is). */
static int walk(pn_resolver *r, size_t from, const char *rel, size_t *ret) {
        size_t cur = from;
        int e = probe_one(r, cur);
        if (e < 0 || r->dirs[cur].state < 0)
                return e < 0 ? e : 0;
        for (const char *p = rel;;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *name = p;
                size_t nl = strcspn(p, "/"), v;
                p += nl;
                if (nl == 1 && name[0] == '.')
                        continue;
                if (nl > NAME_MAX)
                        return 0;
                if (!(nl == 2 && !memcmp(name, "..", 2))) {
                        const struct listing *l = &r->lists[r->dirs[cur].listing];
                        char nm[NAME_MAX + 1];
                        memcpy(nm, name, nl);
                        nm[nl] = '\0';
                        r->stats.name_lookups++;
                        if (!l->partial && !pn_smap_get(&l->names, nm, &v))
                                return 0;
                }
                size_t ci;
                if ((e = child(r, cur, name, nl, &ci)) <= 0 || (e = probe_one(r, ci)) < 0)
                        return e;
                if (r->dirs[ci].state < 0)
                        return 0;
                cur = ci;
        }
        *ret = cur;
        return 1;
}

int pn_resolver_dir_exists(pn_resolver *r, const char *abs) {
        size_t di;
        return walk(r, 0, abs, &di);
}

/* Whether NAME may be in directory DI (there). */
static bool has(pn_resolver *r, size_t di, const char *name) {
        const struct listing *l = &r->lists[r->dirs[di].listing];
        size_t v;
        r->stats.name_lookups++;
        return l->partial || pn_smap_get(&l->names, name, &v);
}

static int join(char *buf, size_t size, const char *dir, const char *name) {
        return snprintf(buf, size, "%s/%s", strcmp(dir, "/") ? dir : "", name) < (int)size;
}

/* Adds directory PATH to L unless it is not there or is there already
 * (the same directory by identity: a later entry can find nothing the
 * earlier did not).  0 or -ENOMEM. */
static int list_add(pn_resolver *r, struct pn_dirlist *l, const char *path, size_t *cap) {
        size_t di;
        int e = walk(r, 0, path, &di);
        if (e <= 0)
                return e;
        struct listing *li = &r->lists[r->dirs[di].listing];
        if (li->seen == r->search)
                return 0;
        li->seen = r->search;
        if (PN_GROW(l->v, *cap, l->n + 1) < 0)
                return -ENOMEM;
        l->v[l->n++] = di;
        return 0;
}

/* $LIB as the root's glibc has it: the multiarch directory on Debian,
 * lib64 (64-bit, where it exists) or lib elsewhere. */
static int lib_of(pn_resolver *r, const struct pn_abi *a, char *buf, size_t size) {
        for (size_t i = 0;; i++) {
                const char *t = pn_abi_triplet(a, i);
                if (!t)
                        break;
                snprintf(buf, size, "/usr/lib/%s", t);
                int e = pn_resolver_dir_exists(r, buf);
                if (e < 0)
                        return e;
                if (e) {
                        snprintf(buf, size, "lib/%s", t);
                        return 0;
                }
        }
        int e = a->elf_class == 64 ? pn_resolver_dir_exists(r, "/usr/lib64") : 0;
        if (e < 0)
                return e;
        snprintf(buf, size, "%s", e ? "lib64" : "lib");
        return 0;
}

/* The directory ELEM (LEN bytes) of a DT_RPATH or DT_RUNPATH with its
 * tokens replaced, into OUT, as glibc's fillin_rpath() and
 * _dl_dst_substitute() (elf/dl-load.c) have it: 1, 2 when it is relative
 * to the working directory (an empty entry is the working directory
 * itself), which is taken as the root's top; 0 when it names a token
 * whose value is not known here ($PLATFORM of an ABI not in the table:
 * glibc drops an entry whose token has no value) or is too long;
 * -ENOMEM.  A '$' that starts no token the loader knows ($FOO, ${FOO},
 * $ORIGINX) stays as it is, as glibc keeps it. */
static int expand(pn_resolver *r, const char *origin, const struct pn_abi *a, const char *elem, size_t len, char *out,
                  size_t size) {
        size_t n = 0;
        bool relative = len == 0 || elem[0] != '/';
        if (relative)
                out[n++] = '/'; /* the working directory: the root's top */
        for (size_t i = 0; i < len;) {
                const char *val = NULL;
                char lib[64];
                if (elem[i] != '$') {
                        if (n + 1 >= size)
                                return 0;
                        out[n++] = elem[i++];
                        continue;
                }
                /* glibc's is_dst(): NAME or {NAME}, not followed by a
                 * character of an identifier. */
                static const char *const names[] = {"ORIGIN", "LIB", "PLATFORM"};
                size_t k, nl = 0;
                bool brace = i + 1 < len && elem[i + 1] == '{';
                for (k = 0; k < ELEMENTSOF(names); k++) {
                        nl = strlen(names[k]);
                        size_t at = i + 1 + brace;
                        if (at + nl + brace <= len && !memcmp(elem + at, names[k], nl) && (!brace || elem[at + nl] == '}') &&
                            (brace || at + nl == len || !(pn_ascii_alnum(elem[at + nl]) || elem[at + nl] == '_')))
                                break;
                }
                if (k == ELEMENTSOF(names)) {
                        if (n + 1 >= size)
                                return 0;
                        out[n++] = elem[i++]; /* no token: the '$' kept */
                        continue;
                }
                if (k == 0)
                        val = origin;
                else if (k == 1) {
                        int e = lib_of(r, a, lib, sizeof lib);
                        if (e < 0)
                                return e;
                        val = lib;
                } else
                        val = platform_of(a);
                if (!val)
                        return 0;
                i += 1 + 2 * brace + nl;
                size_t vl = strlen(val);
                if (n + vl + 1 >= size)
                        return 0;
                /* $ORIGIN is absolute: drop the '/' put before it */
                if (val[0] == '/' && n == 1 && relative) {
                        n = 0;
                        relative = false;
                }
                memcpy(out + n, val, vl);
                n += vl;
        }
        out[n] = '\0';
        return relative ? 2 : 1;
}

int pn_resolver_expand(pn_resolver *r, const char *list, const char *origin, const struct pn_abi *a, const char *who,
                       struct pn_dirlist *out) {
        *out = (struct pn_dirlist){0};
        size_t cap = 0, relative = 0;
        const char *first = NULL;
        size_t first_len = 0;
        r->search++;
        /* An empty list is none (glibc's decompose_rpath()). */
        for (const char *p = *list ? list : NULL; p;) {
                const char *colon = strchr(p, ':');
                size_t len = colon ? (size_t)(colon - p) : strlen(p);
                char dir[PATH_MAX];
                int e = expand(r, origin ? origin : "/", a, p, len, dir, sizeof dir);
                if (e == 2 && !relative++)
                        first = p, first_len = len;
                if (e > 0)
                        e = list_add(r, out, dir, &cap);
                if (e < 0) {
                        pn_dirlist_done(out);
                        return e;
                }
                p = colon ? colon + 1 : NULL;
        }
        if (relative && who)
                problem(r, 0, who,
                        "DT_RPATH or DT_RUNPATH entries relative to the working directory at run time (%zu, the first '%.*s'; an empty one is the working directory itself): searched from the root's top, as for a program started in /",
                        relative, first_len > 200 ? 200 : (int)first_len, first);
        return 0;
}

/* ------------------------------------------------------------------ */
/* ld.so.conf, read once */

static int read_conf(pn_resolver *r, const char *path, unsigned depth);

struct conf_ctx {
        pn_resolver *r;
        const char *path; /* the file being read */
        unsigned depth;
};

struct names {
        char **v;
        size_t n, cap;
        const char *pattern;
};

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files PATTERN names (a glob in its last component only, as
 * ld.so.conf.d/ *.conf), in the sorted order glob() gives them; the
 * directory's listing is the resolver's, read once however many include
 * lines name it. */
static int conf_include(struct conf_ctx *x, const char *pattern) {
        pn_resolver *r = x->r;
        char full[PATH_MAX];
        if (pattern[0] == '/')
                snprintf(full, sizeof full, "%s", pattern);
        else {
                const char *slash = strrchr(x->path, '/');
                snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - x->path) : 0, x->path, pattern);
        }
        char *base = strrchr(full, '/');
        *base++ = '\0';
        if (strpbrk(full, "*?[")) {
                problem(r, -EINVAL, x->path, "include '%s': a pattern in a directory name is not supported", pattern);
                return 0;
        }
        if (!strpbrk(base, "*?[")) {
                char one[PATH_MAX];
                return snprintf(one, sizeof one, "%s/%s", full, base) < (int)sizeof one ? read_conf(r, one, x->depth + 1) : 0;
        }
        size_t di;
        int e = walk(r, 0, full, &di);
        if (e <= 0)
                return e; /* glob() matching nothing */
        const struct listing *l = &r->lists[r->dirs[di].listing];
        char **names = NULL;
        size_t n = 0, cap = 0;
        for (size_t i = 0; i < l->names.cap; i++) {
                const char *nm = l->names.v[i].key;
                if (!nm || nm[0] == '.' || fnmatch(base, nm, FNM_PERIOD) != 0)
                        continue;
                if (PN_GROW(names, cap, n + 1) < 0) {
                        free(names);
                        return -ENOMEM;
                }
                names[n++] = (char *)nm;
        }
        if (n > 1)
                qsort(names, n, sizeof *names, cmp_str);
        if (n > PN_LDCONF_MAX_FILES)
                n = PN_LDCONF_MAX_FILES;
        int rr = 0;
        /* The names stay valid: a listing is never changed once read. */
        for (size_t i = 0; rr == 0 && i < n; i++) {
                char one[PATH_MAX];
                if (snprintf(one, sizeof one, "%s/%s", full, names[i]) < (int)sizeof one)
                        rr = read_conf(r, one, x->depth + 1);
        }
        free(names);
        return rr;
}

static int conf_entry(void *u, int kind, const char *value) {
        struct conf_ctx *x = u;
        pn_resolver *r = x->r;
        if (kind == PN_LDCONF_INCLUDE)
                return conf_include(x, value);
        if (value[0] != '/')
                return 0; /* ldconfig refuses relative directories */
        size_t v;
        if (pn_smap_get(&r->conf_dirs, value, &v))
                return 0;
        if (r->n_conf >= PN_LDCONF_MAX_DIRS) {
                problem(r, -E2BIG, x->path, "more than %u library directories; the rest are left out", PN_LDCONF_MAX_DIRS);
                return 0;
        }
        if (PN_GROW(r->conf, r->cap_conf, r->n_conf + 1) < 0 || !(r->conf[r->n_conf] = strdup(value)))
                return -ENOMEM;
        r->n_conf++;
        return pn_smap_put(&r->conf_dirs, value, 0);
}

static int read_conf(pn_resolver *r, const char *path, unsigned depth) {
        size_t seen;
        if (pn_smap_get(&r->conf_seen, path, &seen)) {
                problem(r, -ELOOP, path, "included again (a loop of includes)");
                return 0;
        }
        if (depth > PN_LDCONF_MAX_DEPTH || r->conf_files >= PN_LDCONF_MAX_FILES) {
                problem(r, -E2BIG, path, "includes nest deeper than %u or name more than %u files", PN_LDCONF_MAX_DEPTH,
                        PN_LDCONF_MAX_FILES);
                return 0;
        }
        if (pn_smap_put(&r->conf_seen, path, 0) < 0)
                return -ENOMEM;
        r->conf_files++;
        r->stats.conf_reads++;
        void *text;
        size_t len;
        int e = r->root.read(r->root.u, path, PN_LDCONF_MAX_SIZE, &text, &len);
        if (e == -ENOMEM)
                return e;
        if (e < 0) {
                if (e != -ENOENT || depth > 0)
                        problem(r, e, path, "cannot read: %s", strerror(-e));
                return 0;
        }
        struct conf_ctx x = {r, path, depth};
        e = pn_ldconf_parse(text, len, conf_entry, &x);
        free(text);
        return e;
}

/* Is DIR one of the system directories of ABI A, or below one?  glibc
 * compares a cache entry's path with each as a prefix. */
static bool in_default_dir(const struct pn_abi *a, const char *dir) {
        char d[PATH_MAX];
        for (size_t i = 0; pn_abi_default_dir(a, i, d, sizeof d); i++) {
                size_t n = strlen(d);
                if (!strncmp(dir, d, n) && (dir[n] == '\0' || dir[n] == '/'))
                        return true;
        }
        return false;
}

/* The directories of ld.so.conf, then the system ones, of ABI A (without
 * the system ones, and the ld.so.conf ones among them, for NODEFLIB):
 * worked out once per ABI. */
static int system_dirs(pn_resolver *r, const struct pn_abi *a, bool nodeflib, const struct pn_dirlist **ret) {
        for (size_t i = 0; i < r->n_sys; i++)
                if (r->sys[i].nodeflib == nodeflib && !pn_abi_cmp(&r->sys[i].abi, a)) {
                        *ret = &r->sys[i].l;
                        return 0;
                }
        if (!r->conf_read) {
                r->conf_read = true;
                int e = read_conf(r, "/etc/ld.so.conf", 0);
                if (e < 0)
                        return e;
        }
        if (PN_GROW(r->sys, r->cap_sys, r->n_sys + 1) < 0)
                return -ENOMEM;
        struct sysdirs *s = &r->sys[r->n_sys];
        *s = (struct sysdirs){*a, nodeflib, {0}};
        size_t cap = 0;
        int e = 0;
        r->search++;
        for (size_t i = 0; e == 0 && i < r->n_conf; i++)
                if (!nodeflib || !in_default_dir(a, r->conf[i]))
                        e = list_add(r, &s->l, r->conf[i], &cap);
        char d[PATH_MAX];
        for (size_t i = 0; e == 0 && !nodeflib && pn_abi_default_dir(a, i, d, sizeof d); i++)
                e = list_add(r, &s->l, d, &cap);
        if (e < 0) {
                pn_dirlist_done(&s->l);
                return e;
        }
        r->n_sys++;
        *ret = &s->l;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Searching */

/* Q->name in directory DI (there, listed): its glibc-hwcaps
 * subdirectories first, each candidate handed to Q->candidate; 1 when
 * the directory itself gives it. */
static int search_dir(pn_resolver *r, struct pn_lookup *q, size_t di) {
        struct listing *li = &r->lists[r->dirs[di].listing];
        if (li->seen == r->search)
                return 0; /* the same directory by another path: nothing new */
        li->seen = r->search;
        char dir[PATH_MAX], path[PATH_MAX];
        const char *const *hw = pn_abi_hwcaps(&q->abi);
        size_t gi = 0;
        int e = *hw ? walk(r, di, "glibc-hwcaps", &gi) : 0;
        if (e < 0)
                return e;
        for (; e > 0 && *hw; hw++) {
                size_t si, obj;
                int h = walk(r, gi, *hw, &si);
                if (h < 0)
                        return h;
                if (h == 0 || !has(r, si, q->name) || !path_of(r, si, dir, sizeof dir) || !join(path, sizeof path, dir, q->name))
                        continue;
                r->stats.candidates++;
                if ((h = q->candidate(q->u, path, *hw, &obj)) < 0)
                        return h;
                if (h > 0 && q->variant == SIZE_MAX)
                        q->variant = obj, q->variant_sub = *hw;
        }
        if (!has(r, di, q->name) || !path_of(r, di, dir, sizeof dir) || !join(path, sizeof path, dir, q->name))
                return 0;
        r->stats.candidates++;
        return q->candidate(q->u, path, NULL, &q->found);
}

static int search_list(pn_resolver *r, struct pn_lookup *q, const struct pn_dirlist *l) {
        /* Read once: the candidate callback adds objects, and the list
         * is not the resolver's to watch. */
        const struct pn_dirlist dl = l ? *l : (struct pn_dirlist){0};
        for (size_t i = 0; i < dl.n; i++) {
                int e = search_dir(r, q, dl.v[i]);
                if (e != 0)
                        return e;
        }
        return 0;
}

int pn_resolver_lookup(pn_resolver *r, struct pn_lookup *q) {
        q->found = 0;
        q->variant = SIZE_MAX;
        q->variant_sub = NULL;
        const struct pn_dirlist *sys;
        int e = system_dirs(r, &q->abi, q->nodeflib, &sys);
        if (e < 0)
                return e;
        r->search++;
        for (size_t i = 0; e == 0 && i < q->n_rpath; i++)
                e = search_list(r, q, q->rpath[i]);
        if (e == 0)
                e = search_list(r, q, q->runpath);
        if (e == 0)
                e = search_list(r, q, sys);
        return e;
}

/* ------------------------------------------------------------------ */

int pn_dlopen_select_add(struct pn_dlopen_select *s, const char *feature, int priority, bool all) {
        if (feature) {
                char **f = realloc(s->features, (s->n_features + 1) * sizeof *f);
                if (!f)
                        return pn_oom();
                s->features = f;
                if (!(f[s->n_features] = strdup(feature)))
                        return pn_oom();
                s->n_features++;
        }
        if (priority && (!s->priority || priority < s->priority))
                s->priority = priority;
        if (all)
                s->all_features = true;
        return 0;
}

bool pn_dlopen_selected(const struct pn_dlopen_select *s, const pkgnote_dlopen *n, size_t i) {
        if ((s->priority && pkgnote_dlopen_priority(n, i) >= s->priority) || s->all_features)
                return true;
        const char *f = pkgnote_dlopen_get(n, i, "feature");
        for (size_t k = 0; f && k < s->n_features; k++)
                if (!strcmp(s->features[k], f))
                        return true;
        return false;
}

void pn_dlopen_select_free(struct pn_dlopen_select *s) {
        pn_free_strv(s->features, s->n_features);
        *s = (struct pn_dlopen_select){0};
}
