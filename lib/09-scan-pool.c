/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker pool of a scan: a bounded queue of jobs and the threads that
 * run them.  A job is a chunk of a directory's files (run by the tree
 * walk's own function, 09-scan-walk.c), an ELF member of an archive in
 * memory, or an ELF file already open (a container store's layer file).
 * The bytes in flight are bounded, and member buffers are kept for reuse.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "02-elf-view.h"
#include "output.h"
#include "09-scan-private.h"

/* Members in memory are bounded whatever the input's size: an ELF member
 * larger than PN_MEMBER_WHOLE is kept in part only (09-scan-capture.c), so a
 * few megabytes in flight keep every worker busy. */
#define SPARE_MAX PN_MEMBER_WHOLE   /* the largest buffer kept */
#define HUGE_PAGE (2u << 20)
#define SPARE_BYTES (8u << 20)      /* what all kept buffers may hold */
#define INFLIGHT (8u << 20)         /* member bytes queued or being read */

uint8_t *pn_pool_buf(struct pool *p, size_t want, size_t *cap) {
        pthread_mutex_lock(&p->lock);
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < p->n_spare; i++)
                if (p->spare[i].cap >= want && (best == SIZE_MAX || p->spare[i].cap < p->spare[best].cap))
                        best = i;
        if (best != SIZE_MAX) {
                uint8_t *b = p->spare[best].buf;
                *cap = p->spare[best].cap;
                p->spare_bytes -= *cap;
                p->spare[best] = p->spare[--p->n_spare];
                pthread_mutex_unlock(&p->lock);
                return b;
        }
        pthread_mutex_unlock(&p->lock);
        /* Rounded up, so that a buffer fits more members later. */
        size_t c = 64u << 10;
        while (c < want && c < SPARE_MAX)
                c <<= 1;
        if (c < want)
                c = want;
        *cap = c;
        if (c < HUGE_PAGE)
                return malloc(c);
        /* Large members are copied in at memory speed: on 2 MiB pages,
         * their first touch costs 512 times fewer faults.  Mapped of
         * their own, so that freeing one gives its memory back at once
         * (the allocator would keep it for later). */
        c = (c + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        *cap = c;
        void *b = mmap(NULL, c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
                return NULL;
        (void)madvise(b, c, MADV_HUGEPAGE);
        return b;
}

void pn_pool_buf_free(uint8_t *buf, size_t cap) {
        if (buf && cap >= HUGE_PAGE)
                munmap(buf, cap);
        else
                free(buf);
}

/* Keeps BUF (CAP bytes) for another member, or frees it. */
static void buf_release(struct pool *p, uint8_t *buf, size_t cap) {
        if (!buf)
                return;
        pthread_mutex_lock(&p->lock);
        if (cap <= SPARE_MAX && p->n_spare < ELEMENTSOF(p->spare) && p->spare_bytes + cap <= SPARE_BYTES) {
                p->spare[p->n_spare].buf = buf;
                p->spare[p->n_spare++].cap = cap;
                p->spare_bytes += cap;
                buf = NULL;
        }
        pthread_mutex_unlock(&p->lock);
        pn_pool_buf_free(buf, cap);
}

void pn_job_clear(struct pool *p, struct job *j) {
        for (size_t i = 0; i < j->n_names; i++)
                free(j->names[i]);
        free(j->names);
        free(j->path);
        free(j->spans);
        if (j->cap)
                buf_release(p, j->buf, j->cap);
        else
                free(j->buf);
        if (j->kind == JOB_FD && j->fd >= 0)
                close(j->fd);
}

/* Sets the checksums of O from the whole of FD, read through IO
 * (IO_CHUNK bytes); 0, or a negative errno with O left without them. */
int pn_scan_sum_fd(int fd, uint8_t *io, struct pkgnote_scan_object *o) {
        struct pn_sums sum;
        pn_sums_init(&sum);
        for (uint64_t off = 0;;) {
                ssize_t k = pn_pread_full(fd, io, IO_CHUNK, off);
                if (k < 0)
                        return (int)k;
                if (k == 0)
                        break;
                pn_sums_update(&sum, io, (size_t)k);
                off += (uint64_t)k;
        }
        pn_sums_final(&sum, o->sha1, o->sha256);
        o->has_sums = true;
        return 0;
}

/* An ELF member of an archive, in memory. */
static void do_member(struct pool *p, struct job *j) {
        pkgnote_object *e;
        int r = j->spans ? pn_elf_from_spans(j->spans, j->n_spans, j->buf, j->span_size, j->partial, &e)
                : j->partial ? pn_elf_from_prefix(j->buf, j->len, &e) : pkgnote_object_from_memory(j->buf, j->len, &e);
        if (r < 0) {
                pn_scan_object_add_problem(j->obj, r, pkgnote_last_error());
                return;
        }
        if ((r = pn_scan_object_fill(j->obj, e, p->s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES)) < 0)
                pn_scan_object_add_problem(j->obj, r, pkgnote_last_error());
        if (j->partial)
                pn_scan_object_add_problem(j->obj, -E2BIG, "only the first part of the member was read (larger than the member size limit)");
        if (e->span_missed)
                pn_scan_object_add_problem(j->obj, -ENODATA,
                                           "its notes point to bytes that were not kept as the member went by (only headers, notes and unmapped bytes are kept of a large member read from a stream)");
        pkgnote_object_free(e);
}

/* An ELF file already open (a layer's file in a container store): read
 * as files of a tree are, only what the notes need. */
static void do_fd(struct pool *p, struct job *j, uint8_t *io) {
        pkgnote_object *e;
        int r = pkgnote_object_open_fd(j->fd, &e);
        if (r < 0) {
                pn_scan_object_add_problem(j->obj, r, pkgnote_last_error());
                return;
        }
        if ((r = pn_scan_object_fill(j->obj, e, p->s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES)) < 0)
                pn_scan_object_add_problem(j->obj, r, pkgnote_last_error());
        else
                j->obj->size = pkgnote_object_size(e);
        pkgnote_object_free(e);
        if (r >= 0 && (p->s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) &&
            (r = io ? pn_scan_sum_fd(j->fd, io, j->obj) : -ENOMEM) < 0)
                pn_scan_object_add_problem(j->obj, r, r == -ENOMEM ? pn_out_of_memory : strerror(-r));
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
                p->busy++;
                pthread_mutex_unlock(&p->lock);
                if (j.kind == JOB_FILE)
                        j.run(p, &j, io); /* IO: NULL without checksums, or without memory for them */
                else if (j.kind == JOB_FD)
                        do_fd(p, &j, io);
                else
                        do_member(p, &j);
                size_t len = j.kind == JOB_MEMBER ? j.len : 0;
                pn_job_clear(p, &j);
                pthread_mutex_lock(&p->lock);
                p->inflight -= len;
                p->busy--;
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
        p->inflight_limit = INFLIGHT;
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

/* Waits until every queued job is done, the workers still running. */
void pn_pool_drain(struct pool *p) {
        pthread_mutex_lock(&p->lock);
        while (p->count > 0 || p->busy > 0)
                pthread_cond_wait(&p->room, &p->lock);
        pthread_mutex_unlock(&p->lock);
}

/* Waits for every queued job and stops the workers. */
void pn_pool_finish(struct pool *p) {
        pthread_mutex_lock(&p->lock);
        p->done = true;
        pthread_cond_broadcast(&p->more);
        pthread_mutex_unlock(&p->lock);
        for (unsigned i = 0; i < p->n_threads; i++)
                pthread_join(p->threads[i], NULL);
        for (size_t i = 0; i < p->n_spare; i++)
                pn_pool_buf_free(p->spare[i].buf, p->spare[i].cap);
        p->n_spare = p->spare_bytes = 0;
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->more);
        pthread_cond_destroy(&p->room);
}
