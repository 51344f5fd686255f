/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker pool, and the inputs it reads from the file system: directory
 * trees and single files.
 *
 * Directories are walked by the calling thread without following symbolic
 * links (openat() with O_NOFOLLOW from the parent's descriptor, so a
 * renamed or replaced component cannot lead outside the tree); regular
 * files go through a bounded queue to a pool of workers, which open each
 * one, read its first bytes and hand ELF files to the ELF view.  Archive
 * readers (scan-archive.c) queue their ELF members, in memory, to the
 * same pool.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfview.h"
#include "scan-private.h"

#define CHUNK 64u /* files per job: one queue operation for many files */

/* ------------------------------------------------------------------ */
/* The worker pool                                                     */

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

static void job_clear(struct job *j) {
        for (size_t i = 0; i < j->n_names; i++)
                free(j->names[i]);
        free(j->names);
        free(j->path);
        dirref_put(j->dir);
        free(j->buf);
}

/* Sets the checksums of O from the whole of FD, read through IO
 * (IO_CHUNK bytes); 0, or a negative errno with O left without them. */
static int sum_fd(int fd, uint8_t *io, struct pkgnote_scan_object *o) {
        struct pn_sums sum;
        pn_sums_init(&sum);
        uint64_t off = 0;
        for (;;) {
                ssize_t k = pread(fd, io, IO_CHUNK, (off_t)off);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                pn_sums_update(&sum, io, (size_t)k);
                off += (uint64_t)k;
        }
        pn_sums_final(&sum, o->sha1, o->sha256);
        o->has_sums = true;
        return 0;
}

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
        pn_scan_add_problem(p->s, p->input, path ? path : name, err, "%s", msg ? msg : "out of memory");
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
        char *path = pn_scan_join(dirpath, name);
        struct pkgnote_scan_object *o = path ? pn_scan_object_new(path, p->input) : NULL;
        free(path);
        if (!o || (r = pn_scan_object_fill(o, e)) < 0) {
                file_problem(p, dirpath, name, o ? r : -ENOMEM, "cannot read notes: %s",
                            o ? pkgnote_last_error() : "out of memory");
                pn_scan_object_free(o);
                pkgnote_elf_free(e);
                goto out;
        }
        o->size = pkgnote_elf_size(e);
        pkgnote_elf_free(e);
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && o->n_packages > 0 && (r = sum_fd(fd, io, o)) < 0)
                file_problem(p, dirpath, name, r, "cannot read: %s", strerror(-r));
        pn_scan_add_object(s, o);
out:
        close(fd);
}

/* An ELF member of an archive, in memory. */
static void do_member(struct pool *p, struct job *j) {
        pkgnote_elf *e;
        int r = j->partial ? pn_elf_from_prefix(j->buf, j->len, &e) : pkgnote_elf_from_memory(j->buf, j->len, &e);
        if (r < 0) {
                pn_scan_object_add_problem(j->obj, pkgnote_last_error());
                return;
        }
        if ((r = pn_scan_object_fill(j->obj, e)) < 0)
                pn_scan_object_add_problem(j->obj, pkgnote_last_error());
        if (j->partial)
                pn_scan_object_add_problem(j->obj, "only the first part of the member was read (larger than the member size limit)");
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

int pn_pool_start(struct pool *p, pkgnote_scan *s, size_t input) {
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
void pn_pool_submit(struct pool *p, struct job *j) {
        size_t len = j->kind == JOB_MEMBER ? j->len : 0;
        pthread_mutex_lock(&p->lock);
        while (p->count == QUEUE_CAP || (p->inflight > 0 && p->inflight + len > p->inflight_limit))
                pthread_cond_wait(&p->room, &p->lock);
        p->ring[(p->head + p->count) % QUEUE_CAP] = *j;
        p->count++;
        p->inflight += len;
        pthread_cond_signal(&p->more);
        pthread_mutex_unlock(&p->lock);
        pn_scan_progress(p->s, false);
}

/* Waits for every queued job and stops the workers. */
void pn_pool_finish(struct pool *p) {
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
        pn_pool_submit(p, &j);
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
                pn_scan_add_problem(s, p->input, path, -errno, "cannot read directory: %s", strerror(errno));
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
                                pn_scan_add_problem(s, p->input, path, -errno, "cannot read directory: %s", strerror(errno));
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

int pn_scan_tree(pkgnote_scan *s, size_t input, int rootfd, const char *path) {
        struct pool p;
        struct stat st;
        if (fstat(rootfd, &st) < 0) {
                close(rootfd);
                return pn_error(-errno, "cannot stat: %s", strerror(errno));
        }
        int r = pn_pool_start(&p, s, input);
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
                                pn_scan_add_problem(s, input, it.path, -err, "cannot open directory: %s", strerror(err));
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
        pn_pool_finish(&p);
        return r;
}

/* ------------------------------------------------------------------ */
/* Single files                                                        */

int pn_scan_file(pkgnote_scan *s, size_t input, int fd, const char *path, const struct stat *st) {
        atomic_fetch_add(&s->c.files, 1);
        atomic_fetch_add(&s->c.bytes, (uint64_t)st->st_size);
        pkgnote_elf *e;
        int r = pkgnote_elf_open_fd(fd, &e);
        if (r == -ENOEXEC)
                return PKGNOTE_SCAN_INPUT_FILE;
        if (r < 0) {
                pn_scan_add_problem(s, input, path, r, "cannot read: %s", pkgnote_last_error());
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        struct pkgnote_scan_object *o = pn_scan_object_new(path, input);
        if (!o || (r = pn_scan_object_fill(o, e)) < 0) {
                pn_scan_add_problem(s, input, path, o ? r : -ENOMEM, "cannot read notes: %s", pkgnote_last_error());
                pn_scan_object_free(o);
                pkgnote_elf_free(e);
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        o->size = pkgnote_elf_size(e);
        pkgnote_elf_free(e);
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && o->n_packages > 0) {
                /* Without memory or on a read error the object has no
                 * checksums, and no problem is recorded for it. */
                uint8_t *io = malloc(IO_CHUNK);
                if (io)
                        (void)sum_fd(fd, io, o);
                free(io);
        }
        pn_scan_add_object(s, o);
        return PKGNOTE_SCAN_INPUT_FILE;
}
