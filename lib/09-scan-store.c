/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The store a scan's readers write into: scanned objects (each holding
 * the pkgnote_info of its file, which owns its data, so the file's view
 * can go right after), the scan's problems, its objects and progress.
 * The readers (09-scan-walk.c, 09-scan-archive.c, 09-scan-layers.c) and their
 * workers call only this file; 09-scan.c dispatches inputs to them and
 * answers for the results, so no two files call each other.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "02-elf-const.h"
#include "09-scan-private.h"
#include "03-model-info.h"
#include "02-elf-view.h"

/* ------------------------------------------------------------------ */
/* Objects                                                             */

void pn_scan_object_free(struct pkgnote_scan_object *o) {
        if (!o)
                return;
        pkgnote_info_free(o->info);
        free(o->soname);
        free(o->rpath);
        free(o->runpath);
        pn_free_strv(o->needed, o->n_needed);
        for (size_t i = 0; i < o->n_containers; i++)
                free(o->containers[i]);
        free(o->containers);
        free(o->path);
        free(o);
}

int pn_scan_object_cmp(const struct pkgnote_scan_object *x, const struct pkgnote_scan_object *y) {
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        size_t xi = x->image ? x->image->ordinal + 1 : 0, yi = y->image ? y->image->ordinal + 1 : 0;
        if (xi != yi)
                return xi < yi ? -1 : 1;
        int c = strcmp(x->path, y->path);
        for (size_t i = 0; !c && i < x->n_containers && i < y->n_containers; i++)
                c = strcmp(x->containers[i], y->containers[i]);
        if (!c && x->n_containers != y->n_containers)
                c = x->n_containers < y->n_containers ? -1 : 1;
        return c;
}

int pn_scan_object_set_containers(struct pkgnote_scan_object *o, char *const *chain, size_t n) {
        if (n == 0)
                return 0;
        if (!(o->containers = calloc(n, sizeof *o->containers)))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!(o->containers[i] = strdup(chain[i])))
                        return -ENOMEM;
                o->n_containers = i + 1;
        }
        return 0;
}

struct pkgnote_scan_object *pn_scan_object_new(const char *path, size_t input) {
        struct pkgnote_scan_object *o = calloc(1, sizeof *o);
        if (!o || !(o->path = strdup(path)) || !(o->info = pn_info_new())) {
                if (o)
                        free(o->path);
                free(o);
                return NULL;
        }
        o->input = input;
        o->db_package = SIZE_MAX; /* none, until a database's owns it */
        return o;
}

int pn_scan_object_add_problem(struct pkgnote_scan_object *o, int err, const char *msg) {
        return pn_info_add_problem(o->info, err, NULL, "%s", msg);
}

/* Keeps what the scan needs of E: its header fields and its summary,
 * which owns copies of all it holds, so E may be freed right after. */
int pn_scan_object_fill(struct pkgnote_scan_object *o, pkgnote_object *e, bool deps) {
        pkgnote_info *info;
        int r = pkgnote_info_read(e, &info);
        if (r < 0)
                return r;
        pkgnote_info_free(o->info);
        o->info = info;
        o->elf = true;
        o->type = pkgnote_object_type(e);
        o->machine = pkgnote_object_machine(e);
        o->elf_class = pkgnote_object_class(e);
        o->be = pkgnote_object_big_endian(e);
        o->eflags = pn_elf_eflags(e);
        o->pe_kind = pkgnote_object_is_pe(e) ? pkgnote_object_kind(e) : NULL;
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(e, &ph);
        for (int i = 0; i < n; i++)
                if (ph[i].type == PT_INTERP)
                        o->interp = true;
        if (deps) {
                struct pn_dynamic d;
                int k = pn_elf_dynamic_read(e, &d);
                if (k == -ENOMEM)
                        return k;
                if (k < 0)
                        pn_scan_object_add_problem(o, k, pkgnote_last_error());
                else {
                        o->soname = d.soname, o->needed = d.needed, o->n_needed = d.n_needed;
                        o->rpath = d.rpath, o->runpath = d.runpath;
                        o->nodeflib = d.flags_1 & DF_1_NODEFLIB;
                }
        }
        return 0;
}

struct pkgnote_scan_object *pn_scan_object_clone(const struct pkgnote_scan_object *src, const char *path) {
        struct pkgnote_scan_object *o = calloc(1, sizeof *o);
        if (!o)
                return NULL;
        *o = *src;
        o->path = strdup(path);
        o->info = NULL;
        o->containers = NULL;
        o->n_containers = 0;
        o->soname = NULL;
        o->needed = NULL;
        o->n_needed = 0;
        o->rpath = o->runpath = NULL;
        if ((src->soname && !(o->soname = strdup(src->soname))) || (src->rpath && !(o->rpath = strdup(src->rpath))) ||
            (src->runpath && !(o->runpath = strdup(src->runpath)))) {
                pn_scan_object_free(o);
                return NULL;
        }
        if (src->n_needed) {
                if (!(o->needed = calloc(src->n_needed, sizeof *o->needed))) {
                        pn_scan_object_free(o);
                        return NULL;
                }
                for (; o->n_needed < src->n_needed; o->n_needed++)
                        if (!(o->needed[o->n_needed] = strdup(src->needed[o->n_needed]))) {
                                pn_scan_object_free(o);
                                return NULL;
                        }
        }
        if (!o->path || pkgnote_info_dup(src->info, &o->info) < 0 ||
            pn_scan_object_set_containers(o, src->containers, src->n_containers) < 0) {
                pn_scan_object_free(o);
                return NULL;
        }
        return o;
}

/* ------------------------------------------------------------------ */
/* The store                                                           */

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void pn_scan_progress(pkgnote_scan *s, bool force) {
        if (!s->opts.progress)
                return;
        uint64_t t = now_ms();
        if (!force && t - s->last_progress < 100)
                return;
        s->last_progress = t;
        s->opts.progress(s->opts.userdata, atomic_load(&s->prog_files), atomic_load(&s->prog_bytes));
}

void pn_scan_add_problem(pkgnote_scan *s, size_t input, const char *path, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        pthread_mutex_lock(&s->lock);
        if (pn_problems_addv(&s->problems, PKGNOTE_MAX_SCAN_PROBLEMS, err, path, input, fmt, ap) < 0)
                atomic_store(&s->oom, 1);
        pthread_mutex_unlock(&s->lock);
        va_end(ap);
}

int pn_scan_add_image_record(pkgnote_scan *s, struct pkgnote_scan_image *im) {
        pthread_mutex_lock(&s->lock);
        int r = PN_GROW(s->images, s->cap_images, s->n_images + 1);
        if (r == 0) {
                im->ordinal = s->n_images;
                s->images[s->n_images++] = im;
        }
        pthread_mutex_unlock(&s->lock);
        if (r < 0) {
                pn_scan_image_free(im);
                return pn_oom();
        }
        return 0;
}

int pn_scan_add_object(pkgnote_scan *s, struct pkgnote_scan_object *o) {
        int r = 0;
        pthread_mutex_lock(&s->lock);
        if ((r = PN_GROW(s->objects, s->cap_objects, s->n_objects + 1)) == 0)
                s->objects[s->n_objects++] = o;
        pthread_mutex_unlock(&s->lock);
        if (r < 0) {
                pn_scan_object_free(o);
                atomic_store(&s->oom, 1); /* the input's results are short */
        }
        return r;
}

char *pn_scan_join(const char *dir, const char *name) {
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

void pn_free_names(char **names, size_t n) {
        for (size_t i = 0; names && i < n; i++)
                free(names[i]);
        free(names);
}

void pn_scan_image_free(struct pkgnote_scan_image *im) {
        if (!im)
                return;
        free(im->reference);
        free(im->digest);
        free(im->id);
        pn_free_names(im->tags, im->n_tags);
        free(im->platform);
        free(im);
}
