/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A built artefact as a tree in memory (07-check-artefact.h), for
 * `deps --verify`.  An initramfs is unpacked the way the kernel unpacks
 * it (init/initramfs.c): every archive into the one root, in order; an
 * entry replaces one of the same name unless both are directories; a
 * file whose directory is not there is not made (the kernel's open
 * fails); entries of one archive with a link count above one and the
 * same (device, inode, mode) are one file, its bytes those of the entry that carries
 * them (newc stores them once, with the last name).  Names with ".."
 * are left out and said: the kernel resolves them against its own root,
 * which a tree read here must never stand for.  A UKI is the initramfs
 * of its `.initrd` section, read where it lies in the mapped file
 * (lib/07-check-uki.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-cpio.h"
#include "01-base-root.h"
#include "01-base.h"
#include "07-check-artefact.h"
#include "07-check-uki.h"

struct node {
        size_t parent;
        char *name;
        int type;
        char *target;         /* a link's text */
        size_t inode;         /* a file's */
        struct pn_smap kids;  /* a directory's: name -> node */
};

struct inode {
        const uint8_t *data;
        size_t size;
        char *disk;   /* a directory artefact's file: its path below the top */
        uint8_t *own; /* bytes read from disk */
        bool read;
        int elf;      /* 0 not looked at, 1 starts as ELF, -1 not */
};

struct pn_artefact {
        int kind;
        struct node *v;
        size_t n, cap;
        struct inode *ino;
        size_t n_ino, cap_ino;
        uint64_t kept; /* bytes handed over by a builder */
        struct pn_smap links; /* "major:minor:ino:mode" -> inode, of an initramfs */
        struct pn_initramfs ir;
        const uint8_t *map;
        size_t map_len;
        int topfd;
        struct pn_problems *problems;
        struct pn_uki uki; /* a UKI's */
};

void pn_artefact_free(struct pn_artefact *a) {
        if (!a)
                return;
        for (size_t i = 0; i < a->n; i++) {
                free(a->v[i].name);
                free(a->v[i].target);
                pn_smap_done(&a->v[i].kids);
        }
        free(a->v);
        for (size_t i = 0; i < a->n_ino; i++) {
                free(a->ino[i].disk);
                free(a->ino[i].own);
        }
        free(a->ino);
        pn_smap_done(&a->links);
        pn_initramfs_done(&a->ir);
        if (a->map)
                munmap((void *)a->map, a->map_len);
        if (a->topfd >= 0)
                close(a->topfd);
        free(a);
}

int pn_artefact_kind(const struct pn_artefact *a) {
        return a->kind;
}
const char *pn_artefact_release(const struct pn_artefact *a, const char **from) {
        if (from)
                *from = a->uki.release_from;
        return a->uki.release[0] ? a->uki.release : NULL;
}
size_t pn_artefact_count(const struct pn_artefact *a) {
        return a->n;
}
int pn_artefact_type(const struct pn_artefact *a, size_t node) {
        return a->v[node].type;
}
size_t pn_artefact_inode(const struct pn_artefact *a, size_t node) {
        return a->v[node].inode;
}

bool pn_artefact_path(const struct pn_artefact *a, size_t node, char *buf, size_t size) {
        size_t len = 0;
        for (size_t i = node; i != 0; i = a->v[i].parent)
                len += 1 + strlen(a->v[i].name);
        if (len == 0)
                return snprintf(buf, size, "/") < (int)size;
        if (len >= size)
                return false;
        buf[len] = '\0';
        for (size_t i = node, at = len; i != 0; i = a->v[i].parent) {
                size_t nl = strlen(a->v[i].name);
                at -= nl;
                memcpy(buf + at, a->v[i].name, nl);
                buf[--at] = '/';
        }
        return true;
}

/* A new node NAME of TYPE in directory PARENT: its number, or -1. */
static int add_node(struct pn_artefact *a, size_t parent, const char *name, int type, size_t *ret) {
        if (a->n >= PN_ARTEFACT_MAX_NODES)
                return pn_error(-E2BIG, "more than %u entries in the artefact", PN_ARTEFACT_MAX_NODES);
        if (PN_GROW(a->v, a->cap, a->n + 1) < 0)
                return pn_oom();
        struct node *d = &a->v[a->n];
        *d = (struct node){.parent = parent, .type = type, .inode = SIZE_MAX};
        if (!(d->name = strdup(name)) || (a->n > 0 && pn_smap_put(&a->v[parent].kids, name, a->n) < 0)) {
                free(d->name);
                return pn_oom();
        }
        *ret = a->n++;
        return 0;
}

static int add_inode(struct pn_artefact *a, size_t *ret) {
        if (PN_GROW(a->ino, a->cap_ino, a->n_ino + 1) < 0)
                return pn_oom();
        a->ino[a->n_ino] = (struct inode){0};
        *ret = a->n_ino++;
        return 0;
}

/* Resolution inside the tree: the path still to walk is kept as text,
 * a link's target put before the rest. */
int pn_artefact_resolve(const struct pn_artefact *a, const char *abs, bool last, size_t *ret) {
        char todo[PATH_MAX], tmp[PATH_MAX];
        if (snprintf(todo, sizeof todo, "%s", abs) >= (int)sizeof todo)
                return -ENAMETOOLONG;
        size_t cur = 0, pos = 0;
        unsigned links = 0;
        for (;;) {
                while (todo[pos] == '/')
                        pos++;
                if (!todo[pos])
                        break;
                size_t nl = strcspn(todo + pos, "/");
                const char *name = todo + pos;
                bool is_last = name[nl] == '\0' || !name[nl + strspn(name + nl, "/")];
                if (a->v[cur].type != PN_NODE_DIR)
                        return -ENOTDIR;
                if (nl > NAME_MAX)
                        return -ENAMETOOLONG;
                if (nl == 1 && name[0] == '.') {
                        pos += nl;
                        continue;
                }
                if (nl == 2 && name[0] == '.' && name[1] == '.') {
                        cur = a->v[cur].parent; /* the top's parent is the top */
                        pos += nl;
                        continue;
                }
                char nm[NAME_MAX + 1];
                memcpy(nm, name, nl);
                nm[nl] = '\0';
                size_t next;
                if (!pn_smap_get(&a->v[cur].kids, nm, &next))
                        return -ENOENT;
                pos += nl;
                if (a->v[next].type == PN_NODE_LINK && (!is_last || last)) {
                        if (++links > PN_MAX_SYMLINKS)
                                return -ELOOP;
                        const char *t = a->v[next].target;
                        if (snprintf(tmp, sizeof tmp, "%s/%s", t, todo + pos) >= (int)sizeof tmp)
                                return -ENAMETOOLONG;
                        memcpy(todo, tmp, strlen(tmp) + 1);
                        pos = 0;
                        if (t[0] == '/')
                                cur = 0;
                        continue;
                }
                cur = next;
        }
        *ret = cur;
        return 0;
}

/* The node for the normalised path REL, made as TYPE: its directory
 * resolved through links, an existing entry replaced unless both are
 * directories.  1 with *RET, 0 when it cannot be made (said), or a
 * negative errno. */
static int make(struct pn_artefact *a, const char *rel, int type, size_t *ret) {
        char dir[PATH_MAX];
        const char *slash = strrchr(rel, '/');
        const char *base = slash ? slash + 1 : rel;
        snprintf(dir, sizeof dir, "/%.*s", slash ? (int)(slash - rel) : 0, rel);
        size_t parent;
        int e = pn_artefact_resolve(a, dir, true, &parent);
        if (e == 0 && a->v[parent].type != PN_NODE_DIR)
                e = -ENOTDIR;
        if (e < 0) {
                pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, e, rel,
                                "its directory is not in the archive before it (%s): the kernel does not make it, left out",
                                strerror(-e));
                return 0;
        }
        size_t old;
        if (pn_smap_get(&a->v[parent].kids, base, &old)) {
                struct node *o = &a->v[old];
                if (o->type == PN_NODE_DIR && type == PN_NODE_DIR) {
                        *ret = old;
                        return 1;
                }
                /* Replaced: a directory's entries go with it (the kernel
                 * removes an empty one only; a full one stays, and the new
                 * entry is not made). */
                if (o->type == PN_NODE_DIR && o->kids.n) {
                        pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, -EEXIST, rel,
                                        "a directory that is not empty is there already: left out");
                        return 0;
                }
                pn_smap_done(&o->kids);
                free(o->target);
                o->target = NULL;
                o->type = type;
                o->inode = SIZE_MAX;
                *ret = old;
                return 1;
        }
        e = add_node(a, parent, base, type, ret);
        return e < 0 ? e : 1;
}

static int cpio_entry(void *u, const struct pn_cpio_entry *e) {
        struct pn_artefact *a = u;
        char rel[PATH_MAX];
        int l = pn_path_normalize(e->name, rel, sizeof rel);
        if (l < 0) {
                pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, l, e->name,
                                l == -EXDEV ? "a name leading out of the archive (\"..\"): left out" : "a name too long: left out");
                return 0;
        }
        if (l == 0)
                return 0; /* "." itself */
        unsigned fmt = e->mode & S_IFMT;
        int type = fmt == S_IFDIR ? PN_NODE_DIR : fmt == S_IFREG ? PN_NODE_FILE : fmt == S_IFLNK ? PN_NODE_LINK : PN_NODE_OTHER;
        if (type == PN_NODE_LINK && (e->size == 0 || e->size >= PATH_MAX || memchr(e->data, 0, e->size))) {
                pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, rel, "a symbolic link with no usable target: left out");
                return 0;
        }
        size_t n;
        int r = make(a, rel, type, &n);
        if (r <= 0)
                return r;
        struct node *d = &a->v[n];
        if (type == PN_NODE_LINK) {
                if (!(d->target = strndup((const char *)e->data, e->size)))
                        return pn_oom();
        } else if (type == PN_NODE_FILE) {
                size_t in = SIZE_MAX;
                /* The kernel forgets its links at each trailer (free_hash()):
                 * archives number their inodes each from its own start. */
                char key[96];
                snprintf(key, sizeof key, "%x:%x:%x:%x:%x", e->archive, e->devmajor, e->devminor, e->ino, e->mode);
                if (e->nlink >= 2 && pn_smap_get(&a->links, key, &in)) {
                        if (e->size)
                                a->ino[in].data = e->data, a->ino[in].size = e->size;
                } else {
                        if ((r = add_inode(a, &in)) < 0)
                                return r;
                        a->ino[in].data = e->data, a->ino[in].size = e->size, a->ino[in].read = true;
                        if (e->nlink >= 2 && pn_smap_put(&a->links, key, in) < 0)
                                return pn_oom();
                }
                a->v[n].inode = in;
        }
        return 0;
}

/* The directory open at FD (taken over), node N, below the top at REL. */
static int walk_dir(struct pn_artefact *a, int fd, size_t n, const char *rel, unsigned depth) {
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return pn_error(-errno, "cannot list '%s': %m", rel);
        }
        int r = 0;
        struct dirent *de;
        while (r == 0 && (errno = 0, de = readdir(d))) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                        continue;
                struct stat st;
                char sub[PATH_MAX];
                if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) >= (int)sizeof sub ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, -errno, sub, "cannot look at it: left out");
                        continue;
                }
                int type = S_ISDIR(st.st_mode) ? PN_NODE_DIR : S_ISREG(st.st_mode) ? PN_NODE_FILE
                         : S_ISLNK(st.st_mode) ? PN_NODE_LINK : PN_NODE_OTHER;
                size_t c;
                if ((r = add_node(a, n, de->d_name, type, &c)) < 0)
                        break;
                if (type == PN_NODE_LINK) {
                        char t[PATH_MAX];
                        ssize_t tl = readlinkat(dirfd(d), de->d_name, t, sizeof t - 1);
                        if (tl <= 0) {
                                a->v[c].type = PN_NODE_OTHER;
                                continue;
                        }
                        t[tl] = '\0';
                        if (!(a->v[c].target = strdup(t)))
                                r = pn_oom();
                } else if (type == PN_NODE_FILE) {
                        /* One inode per (device, inode): hard links share it. */
                        char key[64];
                        size_t in;
                        snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
                        if (!pn_smap_get(&a->links, key, &in)) {
                                if ((r = add_inode(a, &in)) < 0)
                                        break;
                                a->ino[in].size = (size_t)st.st_size;
                                if (!(a->ino[in].disk = strdup(sub)) || pn_smap_put(&a->links, key, in) < 0)
                                        r = pn_oom();
                        }
                        a->v[c].inode = in;
                } else if (type == PN_NODE_DIR) {
                        if (depth >= PN_ARTEFACT_MAX_DEPTH) {
                                r = pn_error(-E2BIG, "'%s': directories nested deeper than %u", sub, PN_ARTEFACT_MAX_DEPTH);
                                break;
                        }
                        int sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sfd < 0) {
                                pn_problems_add(a->problems, PKGNOTE_MAX_PROBLEMS, -errno, sub, "cannot open the directory: left out");
                                continue;
                        }
                        r = walk_dir(a, sfd, c, sub, depth + 1);
                }
        }
        if (r == 0 && errno)
                r = pn_error(-errno, "cannot list '%s': %m", rel);
        closedir(d);
        return r;
}

static int artefact_new(struct pn_problems *problems, struct pn_artefact **ret) {
        struct pn_artefact *a = calloc(1, sizeof *a);
        if (!a)
                return pn_oom();
        a->topfd = -1;
        a->problems = problems;
        size_t top;
        int r = add_node(a, 0, "", PN_NODE_DIR, &top);
        if (r < 0) {
                pn_artefact_free(a);
                return r;
        }
        *ret = a;
        return 0;
}

int pn_artefact_new(int kind, struct pn_problems *problems, struct pn_artefact **ret) {
        int r = artefact_new(problems, ret);
        if (r == 0)
                (*ret)->kind = kind;
        return r;
}

void pn_artefact_set_kind(struct pn_artefact *a, int kind) {
        a->kind = kind;
}

int pn_artefact_add(struct pn_artefact *a, size_t parent, const char *name, int type, size_t *ret) {
        size_t old;
        if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > NAME_MAX)
                return pn_error(-EINVAL, "'%s': not a name of a directory entry", name);
        if (parent >= a->n || a->v[parent].type != PN_NODE_DIR)
                return pn_error(-ENOTDIR, "'%s': its directory is none", name);
        if (pn_smap_get(&a->v[parent].kids, name, &old))
                return pn_error(-EEXIST, "'%s': there twice", name);
        return add_node(a, parent, name, type, ret);
}

int pn_artefact_set_target(struct pn_artefact *a, size_t node, const char *target) {
        if (!*target || strlen(target) >= PATH_MAX)
                return pn_error(-EINVAL, "a symbolic link with no usable target");
        free(a->v[node].target);
        if (!(a->v[node].target = strdup(target)))
                return pn_oom();
        return 0;
}

int pn_artefact_add_content(struct pn_artefact *a, uint8_t *data, size_t len, size_t *ret) {
        if (!data)
                len = 0;
        if (len > PN_ARTEFACT_MAX_DECODED - a->kept) {
                free(data);
                return pn_error(-E2BIG, "the files kept of the artefact are larger than %llu bytes",
                                (unsigned long long)PN_ARTEFACT_MAX_DECODED);
        }
        int r = add_inode(a, ret);
        if (r < 0) {
                free(data);
                return r;
        }
        struct inode *in = &a->ino[*ret];
        in->own = data, in->data = data, in->size = len, in->read = true;
        a->kept += len;
        return 0;
}

void pn_artefact_set_inode(struct pn_artefact *a, size_t node, size_t inode) {
        a->v[node].inode = inode;
}

int pn_artefact_from_initramfs(const uint8_t *data, size_t len, uint64_t limit, struct pn_problems *problems,
                               struct pn_artefact **ret) {
        struct pn_artefact *a;
        int r = artefact_new(problems, &a);
        if (r < 0)
                return r;
        a->kind = PN_ARTEFACT_INITRAMFS;
        if ((r = pn_initramfs_each(data, len, limit, cpio_entry, a, &a->ir)) < 0) {
                pn_artefact_free(a);
                return r;
        }
        *ret = a;
        return 0;
}

/* The initramfs of the UKI of LEN bytes at DATA into A. */
static int read_uki(struct pn_artefact *a, const uint8_t *data, size_t len, uint64_t limit) {
        a->kind = PN_ARTEFACT_UKI;
        int r = pn_uki_read(data, len, a->problems, &a->uki);
        if (r < 0)
                return r;
        r = pn_initramfs_each(a->uki.initrd, a->uki.initrd_len, limit, cpio_entry, a, &a->ir);
        return r < 0 && r != -ENOMEM ? pn_error(r, "the .initrd section: %s", pkgnote_last_error()) : r;
}

int pn_artefact_from_uki(const uint8_t *data, size_t len, uint64_t limit, struct pn_problems *problems,
                         struct pn_artefact **ret) {
        struct pn_artefact *a;
        int r = artefact_new(problems, &a);
        if (r < 0)
                return r;
        if ((r = read_uki(a, data, len, limit)) < 0) {
                pn_artefact_free(a);
                return r;
        }
        *ret = a;
        return 0;
}

int pn_artefact_open(const char *path, struct pn_problems *problems, struct pn_artefact **ret) {
        struct pn_artefact *a;
        int r = artefact_new(problems, &a);
        if (r < 0)
                return r;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                r = pn_error(-errno, "cannot open: %m");
                if (fd >= 0)
                        close(fd);
                goto fail;
        }
        if (S_ISDIR(st.st_mode)) {
                a->kind = PN_ARTEFACT_DIRECTORY;
                if ((a->topfd = dup(fd)) < 0) {
                        r = pn_error(-errno, "cannot open: %m");
                        close(fd);
                        goto fail;
                }
                r = walk_dir(a, fd, 0, "", 0);
        } else if (S_ISREG(st.st_mode)) {
                a->kind = PN_ARTEFACT_INITRAMFS;
                if (st.st_size == 0) {
                        close(fd);
                        r = pn_error(-EBADMSG, "an empty file is no initramfs");
                        goto fail;
                }
                a->map_len = (size_t)st.st_size;
                void *m = mmap(NULL, a->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
                close(fd);
                if (m == MAP_FAILED) {
                        r = pn_error(-errno, "cannot map: %m");
                        goto fail;
                }
                a->map = m;
                if (a->map_len >= 2 && !memcmp(a->map, "MZ", 2))
                        r = read_uki(a, a->map, a->map_len, PN_ARTEFACT_MAX_DECODED);
                else
                        r = pn_initramfs_each(a->map, a->map_len, PN_ARTEFACT_MAX_DECODED, cpio_entry, a, &a->ir);
        } else {
                close(fd);
                r = pn_error(-EINVAL, "neither a directory nor a regular file");
        }
        if (r < 0)
                goto fail;
        *ret = a;
        return 0;
fail:
        pn_artefact_free(a);
        return r;
}

int pn_artefact_bytes(struct pn_artefact *a, size_t node, const uint8_t **data, size_t *len) {
        struct inode *in = &a->ino[a->v[node].inode];
        if (!in->read) {
                void *buf;
                size_t l;
                int r = pn_read_below(a->topfd, in->disk, SIZE_MAX / 2, &buf, &l);
                if (r < 0)
                        return r;
                in->own = buf, in->data = buf, in->size = l, in->read = true;
        }
        *data = in->data;
        *len = in->size;
        return 0;
}

int pn_artefact_open_file(struct pn_artefact *a, size_t node) {
        const struct inode *in = &a->ino[a->v[node].inode];
        if (in->read)
                return -ENODATA;
        int fd = pn_open_below(a->topfd, in->disk, false);
        return fd >= 0 ? fd : pn_error(fd, "cannot open '%s': %s", in->disk, strerror(-fd));
}

bool pn_artefact_is_elf(struct pn_artefact *a, size_t node) {
        struct inode *in = &a->ino[a->v[node].inode];
        if (!in->elf) {
                uint8_t m[4] = {0};
                if (in->read)
                        in->elf = in->size >= 4 && !memcmp(in->data, "\177ELF", 4) ? 1 : -1;
                else {
                        int fd = pn_open_below(a->topfd, in->disk, false);
                        in->elf = fd >= 0 && pread(fd, m, 4, 0) == 4 && !memcmp(m, "\177ELF", 4) ? 1 : -1;
                        if (fd >= 0)
                                close(fd);
                }
        }
        return in->elf > 0;
}

size_t pn_artefact_subdirs(const struct pn_artefact *a, size_t node) {
        const struct pn_smap *k = &a->v[node].kids;
        char path[PATH_MAX];
        size_t n = 0, m;
        for (size_t i = 0; i < k->cap; i++) {
                if (!k->v[i].key)
                        continue;
                size_t c = k->v[i].val;
                if (a->v[c].type == PN_NODE_LINK && pn_artefact_path(a, c, path, sizeof path) &&
                    pn_artefact_resolve(a, path, true, &m) == 0)
                        c = m;
                n += a->v[c].type == PN_NODE_DIR;
        }
        return n;
}

/* ---- the resolver's view ---- */

static int root_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                    void (*each)(void *cu, const char *name), void *cu) {
        struct pn_artefact *a = u;
        size_t n;
        int e = pn_artefact_resolve(a, abs, true, &n);
        if (e < 0)
                return e;
        if (a->v[n].type != PN_NODE_DIR)
                return -ENOTDIR;
        const uint64_t id[2] = {0, n};
        if (!want(cu, id))
                return 0;
        const struct pn_smap *k = &a->v[n].kids;
        for (size_t i = 0; i < k->cap; i++)
                if (k->v[i].key)
                        each(cu, k->v[i].key);
        return 0;
}

static int root_read(void *u, const char *abs, size_t max, void **data, size_t *len) {
        struct pn_artefact *a = u;
        size_t n;
        int e = pn_artefact_resolve(a, abs, true, &n);
        if (e < 0)
                return e;
        if (a->v[n].type != PN_NODE_FILE)
                return -EINVAL;
        const uint8_t *b;
        size_t l;
        if ((e = pn_artefact_bytes(a, n, &b, &l)) < 0)
                return e;
        if (l > max)
                l = max;
        char *c = malloc(l + 1);
        if (!c)
                return -ENOMEM;
        memcpy(c, b, l);
        c[l] = '\0';
        *data = c;
        *len = l;
        return 0;
}

void pn_artefact_root(struct pn_artefact *a, struct pn_resolve_root *r) {
        *r = (struct pn_resolve_root){root_dir, root_read, a};
}
