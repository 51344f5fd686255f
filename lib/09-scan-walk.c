/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory trees: the walk of a scan.
 *
 * Directories are walked by the calling thread without following symbolic
 * links (openat() with O_NOFOLLOW from the parent's descriptor, so a
 * renamed or replaced component cannot lead outside the tree); regular
 * files go through a bounded queue to a pool of workers, which open each
 * one, read its first bytes and hand ELF files to the ELF view.  What
 * the format table (09-scan-format.c) takes for a package or an archive is
 * opened through it once the walk is done.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-dir.h"
#include "02-elf-const.h"
#include "02-elf-view.h"
#include "09-scan-private.h"

#define CHUNK 64u /* files per job: one queue operation for many files */

/* ------------------------------------------------------------------ */
/* Files of a directory, run by a worker                                */

/* A directory of a tree walk.  The walker alone creates, closes and
 * frees them (REFS counts its uses: the children and pending
 * subdirectories naming it, and the list of open directories); workers
 * only pin one while a job reads files through its descriptor, which is
 * never closed while pinned. */
struct dirref {
        int fd;               /* -1 while closed: reopened from the parent by name */
        atomic_uint pins;
        unsigned refs, depth;
        struct dirref *parent;
        char *name; /* inside parent */
        dev_t dev;
        ino_t ino; /* a reopened directory must be the one listed */
};

/* A regular file of a directory tree. */
static void file_problem(struct pool *p, const char *dir, const char *name, int err, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
static void file_problem(struct pool *p, const char *dir, const char *name, int err, const char *fmt, ...) {
        char *path = pn_scan_join(dir, name), *msg = NULL;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        pn_scan_add_problem(p->s, p->input, path ? path : name, err, "%s", msg ? msg : pn_out_of_memory);
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
        /* Enough to tell ELF and packages (.deb, .rpm); with
         * PKGNOTE_SCAN_OPEN_ARCHIVES, any archive (tar's magic is at 257,
         * a compressed file is told by what it decompresses to). */
        uint8_t head[PN_SCAN_HEAD];
        bool all = s->opts.flags & PKGNOTE_SCAN_OPEN_ARCHIVES;
        ssize_t n = pread(fd, head, all ? sizeof head : 32, 0);
        if (n < 0) {
                atomic_fetch_add(&s->c.unreadable, 1);
                file_problem(p, dirpath, name, -errno, "cannot read: %s", strerror(errno));
                goto out;
        }
        const struct pn_scan_format *f = pn_scan_format_bid(head, (size_t)n, PN_AT_TREE, all);
        if (!pn_scan_format_is_elf(f)) {
                /* The common case: one small read.  An archive is opened
                 * once the walk is done. */
                if (f) {
                        char *path = pn_scan_join(dirpath, name);
                        pthread_mutex_lock(&p->lock);
                        if (!path || PN_GROW(p->archives, p->cap_archives, p->n_archives + 1) < 0) {
                                pthread_mutex_unlock(&p->lock);
                                free(path);
                                file_problem(p, dirpath, name, -ENOMEM, "%s", pn_out_of_memory);
                                goto out;
                        }
                        p->archives[p->n_archives++] = (struct pn_tree_archive){path, f};
                        pthread_mutex_unlock(&p->lock);
                }
                goto out;
        }
        pkgnote_object *e;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r == -ENOEXEC)
                goto out; /* "MZ" without a PE header: a DOS program, not an object */
        if (r < 0) {
                file_problem(p, dirpath, name, r, "cannot read: %s", pkgnote_last_error());
                goto out;
        }
        char *path = pn_scan_join(dirpath, name);
        struct pkgnote_scan_object *o = path ? pn_scan_object_new(path, p->input) : NULL;
        free(path);
        if (!o || (r = pn_scan_object_fill(o, e, s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES)) < 0) {
                file_problem(p, dirpath, name, o ? r : -ENOMEM, "cannot read notes: %s",
                            o ? pkgnote_last_error() : pn_out_of_memory);
                pn_scan_object_free(o);
                pkgnote_object_free(e);
                goto out;
        }
        o->size = pkgnote_object_size(e);
        o->image = p->image;
        pkgnote_object_free(e);
        /* Every object's: one without a note is in the SBOM too when a
         * package database owns it, which is known after the walk. */
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && (r = pn_scan_sum_fd(fd, io, o)) < 0)
                file_problem(p, dirpath, name, r, "cannot read: %s", strerror(-r));
        pn_scan_add_object(s, o);
out:
        close(fd);
}
/* A chunk of a directory's files (a JOB_FILE job). */
static void run_chunk(struct pool *p, struct job *j, uint8_t *io) {
        for (size_t i = 0; i < j->n_names; i++)
                if (io || !(p->s->opts.flags & PKGNOTE_SCAN_CHECKSUMS))
                        do_file(p, j->dir, j->path, j->names[i], io);
                else
                        file_problem(p, j->path, j->names[i], -ENOMEM, "%s", pn_out_of_memory);
        atomic_fetch_sub(&j->dir->pins, 1);
        j->dir = NULL;
}

/* ------------------------------------------------------------------ */
/* Directory trees                                                     */

struct pending {
        struct dirref *parent;
        char *name; /* inside parent */
        char *path;
};

/* A walk keeps at most BUDGET directories open, however deep the tree:
 * a directory waiting for its subdirectories to be visited may be closed
 * and is then reopened from its nearest open ancestor, one component at
 * a time, without following symlinks, and checked to be the directory
 * first listed (device and inode). */
struct walk {
        pkgnote_scan *s;
        struct pool *p;
        struct dirref *root;
        struct dirref **open; /* every directory with a descriptor, but the root */
        size_t n_open, budget;
        struct pending *stack;
        size_t n, cap;
};

/* Drops one use of D, freeing it (and then its parent) when unused. */
static void walk_put(struct dirref *d) {
        while (d && --d->refs == 0) {
                struct dirref *up = d->parent;
                free(d->name);
                free(d);
                d = up;
        }
}

static void walk_close(struct walk *w, size_t i) {
        struct dirref *d = w->open[i];
        w->open[i] = w->open[--w->n_open];
        close(d->fd);
        d->fd = -1;
        walk_put(d);
}

/* Closes directories until one more may be opened: first every unpinned
 * one that nothing waits for, else the shallowest unpinned one (the walk
 * goes deep first, so it needs those last).  When the workers pin them
 * all, waits for the workers. */
static void walk_make_room(struct walk *w) {
        while (w->n_open >= w->budget) {
                size_t best = SIZE_MAX, before = w->n_open;
                for (size_t i = w->n_open; i-- > 0;) {
                        const struct dirref *d = w->open[i];
                        if (atomic_load(&d->pins) > 0)
                                continue;
                        if (d->refs == 1)
                                walk_close(w, i);
                        else if (best == SIZE_MAX || d->depth < w->open[best]->depth)
                                best = i;
                }
                if (w->n_open < before)
                        continue; /* BEST may have moved; room was made anyway */
                if (best != SIZE_MAX) {
                        walk_close(w, best);
                        continue;
                }
                pn_pool_drain(w->p);
                size_t pinned = 0;
                for (size_t i = 0; i < w->n_open; i++)
                        pinned += atomic_load(&w->open[i]->pins) > 0;
                if (pinned == w->n_open)
                        return; /* only the walk's own: the caller goes over by one */
        }
}

/* Opens the directory NAME below the open directory PARENT, making room
 * for it first, and fills *ST; a descriptor or a negative errno. */
static int walk_openat(struct walk *w, struct dirref *parent, const char *name, struct stat *st) {
        atomic_fetch_add(&parent->pins, 1); /* kept open while making room */
        walk_make_room(w);
        atomic_fetch_sub(&parent->pins, 1);
        return pn_dir_open_sub(parent->fd, name, NULL, st);
}

/* Lists D, which has just been given descriptor FD, among the open
 * directories (going over the budget by one when the walk's own pins
 * left no room); -ENOMEM. */
static int walk_track(struct walk *w, struct dirref *d, int fd) {
        if (w->n_open == w->budget) {
                struct dirref **x = realloc(w->open, (w->budget + 1) * sizeof *x);
                if (!x)
                        return -ENOMEM;
                w->open = x, w->budget++;
        }
        d->fd = fd;
        d->refs++;
        w->open[w->n_open++] = d;
        return 0;
}

/* Opens NAME below the open directory PARENT as a new directory of the
 * walk, taking PARENT's use and NAME; on failure a negative errno, NAME
 * freed and PARENT's use dropped. */
static int walk_enter(struct walk *w, struct dirref *parent, char *name, struct dirref **ret) {
        struct stat st;
        int fd = walk_openat(w, parent, name, &st);
        struct dirref *d = fd >= 0 ? malloc(sizeof *d) : NULL;
        if (d) {
                *d = (struct dirref){.fd = -1, .depth = parent->depth + 1, .parent = parent, .name = name,
                                     .dev = st.st_dev, .ino = st.st_ino};
                atomic_init(&d->pins, 0);
                if (walk_track(w, d, fd) == 0) {
                        *ret = d;
                        return 0;
                }
                free(d);
        }
        if (fd >= 0)
                close(fd);
        free(name);
        walk_put(parent);
        return fd < 0 ? fd : -ENOMEM;
}

/* Makes sure D has a descriptor, reopening it and the closed directories
 * above it from the nearest open one.  -ESTALE when a directory on the
 * way is no longer the one listed (renamed or replaced meanwhile). */
static int walk_reopen(struct walk *w, struct dirref *d) {
        while (d->fd < 0) {
                struct dirref *up = d;
                while (up->parent->fd < 0)
                        up = up->parent;
                /* UP is closed, its parent open: reopen UP in place. */
                struct stat st;
                int fd = walk_openat(w, up->parent, up->name, &st);
                if (fd < 0)
                        return fd;
                if (st.st_dev != up->dev || st.st_ino != up->ino) {
                        close(fd);
                        return -ESTALE;
                }
                if (walk_track(w, up, fd) < 0) {
                        close(fd);
                        return -ENOMEM;
                }
        }
        return 0;
}

/* Queues the files collected in CHUNK, which starts over empty. */
static int submit_chunk(struct pool *p, struct job *chunk, struct dirref *ref, const char *path) {
        struct job j = {.kind = JOB_FILE, .run = run_chunk, .names = chunk->names, .n_names = chunk->n_names};
        if (!(j.path = strdup(path)))
                return -ENOMEM;
        atomic_fetch_add(&ref->pins, 1);
        j.dir = ref;
        chunk->names = NULL;
        chunk->n_names = 0;
        pn_pool_submit(p, &j);
        return 0;
}

/* Lists the open directory REF: regular files to the pool, directories
 * onto the stack, the rest counted. */
static int list_dir(struct walk *w, struct dirref *ref, const char *path) {
        pkgnote_scan *s = w->s;
        struct pool *p = w->p;
        struct pn_dir d;
        int r = pn_dir_open(&d, ref->fd, NULL, PN_DIR_TYPES, 0);
        if (r < 0) {
                atomic_fetch_add(&s->c.unreadable, 1);
                pn_scan_add_problem(s, p->input, path, r, "cannot read directory: %s", strerror(-r));
                return 0;
        }
        atomic_fetch_add(&s->c.directories, 1);
        size_t plen = strlen(path);
        struct job chunk = {.kind = JOB_FILE};
        for (;;) {
                struct pn_dirent de;
                r = pn_dir_next(&d, &de);
                if (r <= 0) {
                        if (r < 0) {
                                atomic_fetch_add(&s->c.unreadable, 1);
                                pn_scan_add_problem(s, p->input, path, r, "cannot read directory: %s", strerror(-r));
                        }
                        break;
                }
                const char *nm = de.name;
                /* A type the directory did not give, nor lstat: the
                 * worker opening it reports why. */
                unsigned char type = de.type == DT_UNKNOWN ? DT_REG : de.type;
                if (type == DT_LNK) {
                        atomic_fetch_add(&s->c.symlinks, 1);
                        continue;
                }
                if (type != DT_DIR && type != DT_REG) {
                        atomic_fetch_add(&s->c.special, 1);
                        continue;
                }
                char *full = pn_scan_join(path, nm);
                if (!full) {
                        goto oom;
                }
                if (plen + 1 + strlen(nm) > PKGNOTE_MAX_SCAN_PATH) {
                        pn_scan_add_problem(s, p->input, full, -E2BIG, "path longer than %u bytes, skipped",
                                    PKGNOTE_MAX_SCAN_PATH);
                        atomic_fetch_add(&s->c.unreadable, 1);
                        free(full);
                        continue;
                }
                if (type == DT_DIR) {
                        if (PN_GROW(w->stack, w->cap, w->n + 1) < 0) {
                                free(full);
                                goto oom;
                        }
                        char *name = strdup(nm);
                        if (!name) {
                                free(full);
                                goto oom;
                        }
                        ref->refs++;
                        w->stack[w->n++] = (struct pending){ref, name, full};
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
        pn_dir_close(&d);
        r = chunk.n_names ? submit_chunk(p, &chunk, ref, path) : 0;
        pn_job_clear(p, &chunk);
        return r < 0 ? pn_oom() : 0;
oom:
        pn_dir_close(&d);
        pn_job_clear(p, &chunk);
        return pn_oom();
}

/* Directories the walk may hold open: half of what the process may open
 * beyond a reserve for the workers' files, the output and the rest. */
static size_t walk_budget(const pkgnote_scan *s) {
        struct rlimit rl;
        uint64_t lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : 1024;
        uint64_t reserve = 16 + s->opts.threads;
        uint64_t b = lim > reserve ? (lim - reserve) / 2 : 0;
        return b < 2 ? 2 : b > 1024 ? 1024 : (size_t)b;
}

/* The archive FD, the file PATH of the tree, of format F. */
static int read_archive(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int fd,
                        const char *path, const struct pn_scan_format *f) {
        struct pn_scan_place pl = {.at = PN_AT_TREE, .path = path, .display = path, .image = image};
        int r = pn_scan_format_read(s, f, input, fd, &pl);
        if (r == -EOPNOTSUPP) {
                /* One file of the tree: named, and the scan goes on. */
                pn_scan_add_problem(s, input, path, r, "%s", pkgnote_last_error());
                return 0;
        }
        return r < 0 ? r : 0;
}

static int cmp_archive(const void *a, const void *b) {
        return strcmp(((const struct pn_tree_archive *)a)->path, ((const struct pn_tree_archive *)b)->path);
}

int pn_scan_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                 const char *path) {
        struct pool p;
        struct stat st;
        if (fstat(rootfd, &st) < 0) {
                close(rootfd);
                return pn_error(-errno, "cannot stat: %s", strerror(errno));
        }
        struct walk w = {.s = s, .p = &p, .budget = walk_budget(s)};
        w.open = malloc(w.budget * sizeof *w.open);
        w.root = calloc(1, sizeof *w.root);
        if (!w.open || !w.root) {
                free(w.open);
                free(w.root);
                close(rootfd);
                return pn_oom();
        }
        /* The root is never closed nor freed before the end: the walk holds a use. */
        *w.root = (struct dirref){.fd = rootfd, .refs = 1, .dev = st.st_dev, .ino = st.st_ino};
        atomic_init(&w.root->pins, 0);
        int r = pn_pool_start(&p, s, input);
        if (r < 0) {
                close(rootfd);
                free(w.root);
                free(w.open);
                return r;
        }
        p.dev = st.st_dev;
        p.image = image;
        pthread_mutex_lock(&s->lock);
        size_t first = s->n_objects;
        pthread_mutex_unlock(&s->lock);
        r = list_dir(&w, w.root, path);
        while (r >= 0 && w.n > 0) {
                struct pending it = w.stack[--w.n];
                struct dirref *d = NULL;
                int err = walk_reopen(&w, it.parent);
                if (err < 0 && err != -ENOMEM)
                        err = -ESTALE; /* renamed, removed or replaced: the path no longer leads there */
                if (err == 0)
                        err = walk_enter(&w, it.parent, it.name, &d);
                else {
                        free(it.name);
                        walk_put(it.parent);
                }
                if (err < 0) {
                        if (err == -ELOOP || err == -ENOTDIR)
                                atomic_fetch_add(&s->c.symlinks, err == -ELOOP);
                        else if (err == -ENOMEM)
                                r = pn_oom();
                        else {
                                atomic_fetch_add(&s->c.unreadable, 1);
                                pn_scan_add_problem(s, input, it.path, err, "cannot open directory: %s",
                                                    err == -ESTALE ? "a directory above it changed during the scan"
                                                                   : strerror(-err));
                        }
                        free(it.path);
                        continue;
                }
                if ((s->opts.flags & PKGNOTE_SCAN_ONE_FILE_SYSTEM) && d->dev != p.dev)
                        atomic_fetch_add(&s->c.other_fs, 1);
                else
                        r = list_dir(&w, d, it.path);
                free(it.path);
        }
        while (w.n > 0) {
                walk_put(w.stack[--w.n].parent);
                free(w.stack[w.n].name);
                free(w.stack[w.n].path);
        }
        free(w.stack);
        pn_pool_finish(&p);
        while (w.n_open > 0) {
                struct dirref *d = w.open[--w.n_open];
                close(d->fd);
                d->fd = -1;
                walk_put(d);
        }
        free(w.open);
        if (r >= 0)
                pn_scan_attribute_tree(s, input, image, rootfd, path, first);
        if (r >= 0)
                r = pn_scan_resolve_libs(s, input, image, rootfd, path, first);
        /* The archives among the files, in path order, each with its
         * own objects (and package databases). */
        if (p.n_archives > 1)
                qsort(p.archives, p.n_archives, sizeof *p.archives, cmp_archive);
        size_t prefix = strcmp(path, "/") ? strlen(path) : 0;
        for (size_t i = 0; i < p.n_archives; i++) {
                if (r >= 0) {
                        const struct pn_tree_archive *a = &p.archives[i];
                        int fd = pn_open_below(rootfd, a->path + prefix, false);
                        if (fd < 0) {
                                atomic_fetch_add(&s->c.unreadable, 1);
                                pn_scan_add_problem(s, input, a->path, fd, "cannot open: %s", strerror(-fd));
                        } else {
                                r = read_archive(s, input, image, fd, a->path, a->format);
                                close(fd);
                        }
                }
                free(p.archives[i].path);
        }
        free(p.archives);
        close(rootfd);
        free(w.root);
        return r;
}

