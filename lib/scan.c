/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inventories: every ELF object of a file tree, a single file, a tar of
 * a root filesystem, a "docker save" archive or an OCI image layout.
 *
 * This file holds the scan itself: its objects (what is kept of each ELF
 * file once its view is freed), the problems met, the dispatch of an
 * input to its reader, and the results with the package index.  The
 * readers are scan-walk.c (directory trees, single files and the worker
 * pool all of them feed) and scan-archive.c (archives and images, whose
 * layers scan-layers.c merges).
 */
#include "config.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scan-private.h"

/* ------------------------------------------------------------------ */
/* Objects                                                             */

void pn_scan_object_free(struct pkgnote_scan_object *o) {
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

struct pkgnote_scan_object *pn_scan_object_new(const char *path, size_t input) {
        struct pkgnote_scan_object *o = calloc(1, sizeof *o);
        if (!o || !(o->path = strdup(path))) {
                free(o);
                return NULL;
        }
        o->input = input;
        return o;
}

int pn_scan_object_add_problem(struct pkgnote_scan_object *o, const char *msg) {
        char **p = realloc(o->problems, (o->n_problems + 1) * sizeof *p);
        if (!p)
                return -ENOMEM;
        o->problems = p;
        if (!(p[o->n_problems] = strdup(msg)))
                return -ENOMEM;
        o->n_problems++;
        return 0;
}

/* Room for N packages in O, which has none yet. */
static int object_alloc_packages(struct pkgnote_scan_object *o, size_t n) {
        if (n == 0)
                return 0;
        o->package_json = calloc(n, sizeof *o->package_json);
        o->packages = calloc(n, sizeof *o->packages);
        return o->package_json && o->packages ? 0 : -ENOMEM;
}

/* Adds the package note JSON to O, copied (the text it came from is freed
 * before O) and parsed; counted before parsing so that a failure leaves
 * nothing for pn_scan_object_free() to miss. */
static int object_add_package(struct pkgnote_scan_object *o, const char *json) {
        char *j = strdup(json);
        if (!j)
                return -ENOMEM;
        o->package_json[o->n_packages++] = j;
        return pkgnote_metadata_parse(j, strlen(j), &o->packages[o->n_packages - 1]);
}

/* Copies what the scan keeps of E: the view and its info are freed right
 * after, so nothing may point into them. */
int pn_scan_object_fill(struct pkgnote_scan_object *o, pkgnote_elf *e) {
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
        if (object_alloc_packages(o, np) < 0)
                goto out;
        for (size_t i = 0; i < np; i++) {
                int q = object_add_package(o, pkgnote_info_package_json(info, i));
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
                if (pn_scan_object_add_problem(o, pkgnote_info_problem(info, i, NULL)) < 0)
                        goto out;
        r = 0;
out:
        pkgnote_info_free(info);
        return r;
}

struct pkgnote_scan_object *pn_scan_object_clone(const struct pkgnote_scan_object *src, const char *path) {
        struct pkgnote_scan_object *o = pn_scan_object_new(path, src->input);
        if (!o)
                return NULL;
        o->size = src->size, o->type = src->type, o->machine = src->machine;
        o->elf_class = src->elf_class, o->be = src->be, o->interp = src->interp, o->elf = src->elf;
        o->has_sums = src->has_sums;
        memcpy(o->sha1, src->sha1, sizeof o->sha1);
        memcpy(o->sha256, src->sha256, sizeof o->sha256);
        if (src->build_id && !(o->build_id = strdup(src->build_id)))
                goto fail;
        if (object_alloc_packages(o, src->n_packages) < 0)
                goto fail;
        for (size_t i = 0; i < src->n_packages; i++)
                if (object_add_package(o, src->package_json[i]) < 0)
                        goto fail;
        if (src->n_dlopen && !(o->dlopen_json = calloc(src->n_dlopen, sizeof(char *))))
                goto fail;
        for (size_t i = 0; i < src->n_dlopen; i++) {
                if (!(o->dlopen_json[i] = strdup(src->dlopen_json[i])))
                        goto fail;
                o->n_dlopen++;
        }
        for (size_t i = 0; i < src->n_problems; i++)
                if (pn_scan_object_add_problem(o, src->problems[i]) < 0)
                        goto fail;
        return o;
fail:
        pn_scan_object_free(o);
        return NULL;
}

/* ------------------------------------------------------------------ */
/* The scan                                                            */

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

int pn_scan_add_object(pkgnote_scan *s, struct pkgnote_scan_object *o) {
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
                pn_scan_object_free(o);
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
        s->sel.index = -1;
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
                pn_scan_object_free(s->objects[i]);
        for (size_t i = 0; i < s->n_problems; i++) {
                free(s->problems[i].path);
                free(s->problems[i].message);
        }
        packages_clear(s);
        free(s->objects);
        free(s->problems);
        free(s->platform);
        pthread_mutex_destroy(&s->lock);
        free(s);
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

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

static int cmp_objects(const void *a, const void *b) {
        const struct pkgnote_scan_object *x = *(const struct pkgnote_scan_object *const *)a;
        const struct pkgnote_scan_object *y = *(const struct pkgnote_scan_object *const *)b;
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        return strcmp(x->path, y->path);
}

static int cmp_problems(const void *a, const void *b) {
        const struct problem *x = a, *y = b;
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        int c = strcmp(x->path, y->path);
        return c ? c : strcmp(x->message, y->message);
}

/* Scans PATH, named DISPLAY in problems (an image reference). */
static int add_input(pkgnote_scan *s, size_t input, const char *path, const char *display) {
        int fd;
        struct stat st;
        if (!strcmp(path, "-")) {
                fd = dup(STDIN_FILENO);
                if (fd < 0)
                        return pn_error(-errno, "cannot read standard input: %s", strerror(errno));
        } else {
                /* A symbolic link named as the input is followed (as
                 * find -H does): the user chose it.  Links inside it
                 * never are. */
                if (stat(path, &st) < 0)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ? O_NONBLOCK : 0));
                if (fd < 0)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
        }
        if (fstat(fd, &st) < 0) {
                int r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                close(fd);
                return r;
        }
        const struct pn_image_sel *sel = &s->sel;
        bool image = sel->transport || sel->tag || sel->digest || sel->index >= 0;
        if (S_ISDIR(st.st_mode)) {
#if HAVE_LIBARCHIVE
                struct stat l1, l2;
                if (fstatat(fd, "oci-layout", &l1, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l1.st_mode) &&
                    fstatat(fd, "index.json", &l2, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l2.st_mode)) {
                        int r = pn_scan_oci_dir(s, input, fd, display);
                        close(fd);
                        return r;
                }
#endif
                if (image) {
                        close(fd);
                        return pn_error(-EINVAL, "not an OCI image layout (no oci-layout and index.json)");
                }
                /* The path as given, without trailing slashes. */
                char *p = strdup(path);
                if (!p) {
                        close(fd);
                        return pn_error(-ENOMEM, "out of memory");
                }
                for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
                        p[n - 1] = 0;
                int r = pn_scan_tree(s, input, fd, p);
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
                if (sel->transport == PN_IMAGE_OCI) {
                        close(fd);
                        return pn_error(-EINVAL, "not a directory: oci: names an image layout directory (oci-archive: its tar)");
                }
                if (n < 4 || memcmp(magic, "\177ELF", 4) != 0) {
#if HAVE_LIBARCHIVE
                        int r = pn_scan_archive(s, input, fd, display);
                        if (r != -ENOEXEC) {
                                close(fd);
                                if (r >= 0) {
                                        /* the archive itself was read */
                                }
                                return r;
                        }
#endif
                }
                if (image) {
                        close(fd);
                        return pn_error(-EINVAL, "not an image archive");
                }
                int r = pn_scan_file(s, input, fd, path, &st);
                close(fd);
                return r;
        }
#if HAVE_LIBARCHIVE
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
                /* A stream ("-", a pipe): only an archive makes sense. */
                int fl = fcntl(fd, F_GETFL);
                if (fl >= 0)
                        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
                int r = sel->transport == PN_IMAGE_OCI ? pn_error(-EINVAL, "not an image layout directory")
                                                       : pn_scan_archive(s, input, fd, display);
                close(fd);
                if (r == -ENOEXEC)
                        return pn_error(-ENOEXEC, "not an archive");
                return r;
        }
#endif
        close(fd);
        return pn_error(-EINVAL, "not a file, directory or archive");
}

/* PATH, or the file of the image reference it is, with the image chosen
 * by the reference or IMAGE (not both) in s->sel; *FILE is malloc()ed. */
static int image_of(pkgnote_scan *s, const char *path, const char *image, char **file) {
        struct pn_image_sel *sel = &s->sel;
        const char *os = sel->os, *arch = sel->arch, *variant = sel->variant;
        *sel = (struct pn_image_sel){.index = -1};
        int r = strcmp(path, "-") ? pn_image_ref_parse(path, file, sel) : 0;
        sel->os = os, sel->arch = arch, sel->variant = variant;
        if (r < 0 || !image)
                return r;
        if (sel->tag || sel->digest || sel->index >= 0)
                return pn_error(-EINVAL, "the image is named twice, in the reference and by --image");
        return pn_image_select(image, sel->transport, sel);
}

PKGNOTE_PUBLIC int pkgnote_scan_add(pkgnote_scan *s, const char *path) {
        return pkgnote_scan_add_image(s, path, NULL);
}

PKGNOTE_PUBLIC int pkgnote_scan_set_platform(pkgnote_scan *s, const char *platform) {
        if (!s)
                return pn_error(-EINVAL, "no scan");
        char *p = NULL;
        if (platform) {
                const char *a = strchr(platform, '/'), *b = a ? strchr(a + 1, '/') : NULL;
                if (!a || a == platform || !a[1] || a[1] == '/' || (b && (!b[1] || strchr(b + 1, '/'))))
                        return pn_error(-EINVAL, "'%s': not OS/ARCH[/VARIANT]", platform);
                if (!(p = strdup(platform)))
                        return pn_error(-ENOMEM, "out of memory");
        }
        free(s->platform);
        s->platform = p;
        s->sel.os = s->sel.arch = s->sel.variant = NULL;
        if (p) {
                char *a = strchr(p, '/'), *b = strchr(a + 1, '/');
                *a = 0;
                if (b)
                        *b = 0;
                s->sel.os = p, s->sel.arch = a + 1, s->sel.variant = b ? b + 1 : NULL;
        }
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_scan_add_image(pkgnote_scan *s, const char *path, const char *image) {
        if (!s || !path)
                return pn_error(-EINVAL, "no path");
        size_t input = s->n_inputs++;
        size_t first_object = s->n_objects, first_problem = s->n_problems;
        packages_clear(s);
        pn_error_clear();
        char *file = NULL;
        int r = image_of(s, path, image, &file);
        if (r >= 0)
                r = add_input(s, input, file ? file : path, path);
        free(file);
        /* Results arrive in completion order; sort this input's. */
        if (s->n_objects > first_object)
                qsort(s->objects + first_object, s->n_objects - first_object, sizeof *s->objects, cmp_objects);
        if (s->n_problems > first_problem)
                qsort(s->problems + first_problem, s->n_problems - first_problem, sizeof *s->problems, cmp_problems);
        pn_scan_progress(s, true);
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
