/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inventories: every ELF object of a file tree, a single file, a tar of
 * a root filesystem, a "docker save" archive or an OCI image layout.
 *
 * This file holds the scan itself: the dispatch of an input to its
 * reader, and the results with the package index.  The readers are
 * 09-scan-walk.c (directory trees, single files and the worker pool all of
 * them feed) and 09-scan-archive.c (archives and images, whose layers
 * 09-scan-layers.c merges); they write into the store of 09-scan-store.c.
 */
#include "03-model-json.h"
#include "config.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "02-elf-const.h"
#include "04-pkgdb-private.h"
#include "09-scan-private.h"
#include "03-model-info.h"

PKGNOTE_PUBLIC int pkgnote_scan_new(const pkgnote_scan_options *options, pkgnote_scan **ret) {
        pkgnote_scan_options opts;
        int r = pn_options_read(&opts, sizeof opts, options, PN_SIZE_1_0(pkgnote_scan_options), "scan");
        if (r < 0)
                return r;
        pkgnote_scan *s = calloc(1, sizeof *s);
        if (!s)
                return pn_oom();
        s->opts = opts;
        if (s->opts.max_member == 0)
                s->opts.max_member = PKGNOTE_MAX_SCAN_MEMBER;
        if (s->opts.max_bytes == 0)
                s->opts.max_bytes = PKGNOTE_MAX_SCAN_BYTES;
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
        for (size_t i = 0; i < s->n_packages; i++) {
                free(s->packages[i].objects);
                free(s->packages[i].db_json);
                pkgnote_metadata_free(s->packages[i].db_meta);
        }
        free(s->packages);
        s->packages = NULL;
        s->n_packages = s->cap_packages = s->n_note_packages = 0;
        s->packages_valid = false;
}

PKGNOTE_PUBLIC void pkgnote_scan_free(pkgnote_scan *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_objects; i++)
                pn_scan_object_free(s->objects[i]);
        pn_problems_clear(&s->problems);
        packages_clear(s);
        free(s->objects);
        for (size_t i = 0; i < s->n_images; i++)
                pn_scan_image_free(s->images[i]);
        free(s->images);
        for (size_t i = 0; i < s->n_dbroots; i++)
                pn_dbroot_free(s->dbroots[i]);
        free(s->dbroots);
        pn_scan_libpaths_clear(s);
        free(s->platform);
        pthread_mutex_destroy(&s->lock);
        free(s);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

static int cmp_objects(const void *a, const void *b) {
        const struct pkgnote_scan_object *x = *(const struct pkgnote_scan_object *const *)a;
        const struct pkgnote_scan_object *y = *(const struct pkgnote_scan_object *const *)b;
        return pn_scan_object_cmp(x, y);
}

static int cmp_problems(const void *a, const void *b) {
        const struct pn_problem *x = a, *y = b;
        if (x->input != y->input)
                return x->input < y->input ? -1 : 1;
        int c = strcmp(x->path ? x->path : "", y->path ? y->path : "");
        return c ? c : strcmp(x->message, y->message);
}

/* Scans PATH, named DISPLAY in problems (an image reference). */
static int add_input(pkgnote_scan *s, size_t input, const char *path, const char *display) {
        int fd;
        struct stat st;
        if (s->sel.transport == PN_IMAGE_STORAGE)
                return pn_scan_storage(s, input, path, display);
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
                if (s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES) {
                        close(fd);
                        return PKGNOTE_SCAN_INPUT_DIRECTORY; /* no image in it */
                }
                /* The path as given, without trailing slashes. */
                char *p = strdup(path);
                if (!p) {
                        close(fd);
                        return pn_oom();
                }
                for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
                        p[n - 1] = 0;
                int r = pn_scan_tree(s, input, NULL, fd, p);
                free(p);
                return r < 0 ? r : PKGNOTE_SCAN_INPUT_DIRECTORY;
        }
        if (S_ISREG(st.st_mode)) {
                uint8_t head[PN_SCAN_HEAD];
                ssize_t n = pread(fd, head, sizeof head, 0);
                if (n < 0) {
                        int r = pn_error(-errno, "cannot read: %s", strerror(errno));
                        close(fd);
                        return r;
                }
                if (sel->transport == PN_IMAGE_OCI) {
                        close(fd);
                        return pn_error(-EINVAL, "not a directory: oci: names an image layout directory (oci-archive: its tar)");
                }
                const struct pn_scan_format *f = pn_scan_format_bid(head, (size_t)n, PN_AT_INPUT, false);
                struct pn_scan_place pl = {.at = PN_AT_INPUT, .path = path, .display = display, .st = &st};
                if (f && !pn_scan_format_is_elf(f)) {
                        int r = pn_scan_format_read(s, f, input, fd, &pl);
                        if (r != -ENOEXEC) {
                                close(fd);
                                return r;
                        }
                }
                if (image) {
                        close(fd);
                        return pn_error(-EINVAL, "not an image archive");
                }
                if (s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES) {
                        close(fd);
                        return PKGNOTE_SCAN_INPUT_FILE;
                }
                int r = pn_scan_format_read(s, NULL, input, fd, &pl);
                close(fd);
                return r;
        }
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
                /* A stream ("-", a pipe): only an archive makes sense. */
                int fl = fcntl(fd, F_GETFL);
                if (fl >= 0)
                        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
                int r = sel->transport == PN_IMAGE_OCI ? pn_error(-EINVAL, "not an image layout directory")
                                                       : pn_scan_format_stream(s, input, fd, display);
                close(fd);
                return r;
        }
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
        sel->path = *file ? *file : path;
        if (sel->transport == PN_IMAGE_STORAGE && image && (sel->tag || sel->digest))
                return pn_error(-EINVAL, "the image is named twice, in the reference and by --image");
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
                        return pn_oom();
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
        size_t first_object = s->n_objects, first_problem = s->problems.n;
        packages_clear(s);
        s->input_inflated = 0;
        atomic_store(&s->oom, 0);
        pn_error_clear();
        char *file = NULL;
        int r = image_of(s, path, image, &file);
        if (r >= 0)
                r = add_input(s, input, file ? file : path, path);
        free(file);
        /* Results arrive in completion order; sort this input's. */
        if (s->n_objects > first_object)
                qsort(s->objects + first_object, s->n_objects - first_object, sizeof *s->objects, cmp_objects);
        if (s->problems.n > first_problem)
                qsort(s->problems.v + first_problem, s->problems.n - first_problem, sizeof *s->problems.v,
                      cmp_problems);
        pn_scan_progress(s, true);
        if (r >= 0 && atomic_load(&s->oom))
                r = pn_oom();
        if (r >= 0)
                s->inputs_ok++;
        return r;
}

/* ------------------------------------------------------------------ */
/* Results                                                             */

PKGNOTE_PUBLIC int pkgnote_scan_get_stats(const pkgnote_scan *s, pkgnote_scan_stats *ret) {
        pkgnote_scan_stats st = {.size = sizeof st};
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
                const pkgnote_info *info = s->objects[i]->info;
                if (pkgnote_info_package_count(info))
                        st.with_note++;
                else
                        st.without_note++;
                if (pkgnote_info_problem_count(info))
                        st.malformed++;
                if (s->objects[i]->pe_kind)
                        st.pe_images++;
        }
        st.packages = pkgnote_scan_package_count(s);
        return pn_result_copy(ret, &st, sizeof st, PN_SIZE_1_0(pkgnote_scan_stats), "pkgnote_scan_stats");
}

PKGNOTE_PUBLIC size_t pkgnote_scan_problem_count(const pkgnote_scan *s) {
        return s->problems.n;
}

PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_scan_problem(const pkgnote_scan *s, size_t i) {
        return pn_problems_get(&s->problems, i);
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
        if (o->pe_kind)
                return o->pe_kind;
        switch (o->type) {
        case ET_REL: return "relocatable";
        case ET_EXEC: return "executable";
        case ET_DYN: return o->interp ? "executable" : "shared object";
        case ET_CORE: return "core";
        default: return "unknown";
        }
}
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_object_image(const pkgnote_scan_object *o) {
        return o->image;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_container_count(const pkgnote_scan_object *o) {
        return o->n_containers;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_container(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_containers ? o->containers[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_soname(const pkgnote_scan_object *o) {
        return o->soname;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_needed_count(const pkgnote_scan_object *o) {
        return o->n_needed;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_needed(const pkgnote_scan_object *o, size_t i) {
        return i < o->n_needed ? o->needed[i] : NULL;
}
PKGNOTE_PUBLIC const pkgnote_info *pkgnote_scan_object_info(const pkgnote_scan_object *o) {
        return o->info;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_build_id(const pkgnote_scan_object *o) {
        return pkgnote_info_build_id(o->info);
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_package_count(const pkgnote_scan_object *o) {
        return pkgnote_info_package_count(o->info);
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_object_package(const pkgnote_scan_object *o, size_t i) {
        return pkgnote_info_package(o->info, i);
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_package_json(const pkgnote_scan_object *o, size_t i) {
        return pkgnote_info_package_json(o->info, i);
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_dlopen_count(const pkgnote_scan_object *o) {
        return pkgnote_info_dlopen_count(o->info);
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_dlopen_json(const pkgnote_scan_object *o, size_t i) {
        return pn_info_dlopen_json(o->info, i);
}
PKGNOTE_PUBLIC size_t pkgnote_scan_object_problem_count(const pkgnote_scan_object *o) {
        return pkgnote_info_problem_count(o->info);
}
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_scan_object_problem(const pkgnote_scan_object *o, size_t i) {
        return pkgnote_info_problem(o->info, i);
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha1(const pkgnote_scan_object *o) {
        return o->has_sums && (pkgnote_info_package_count(o->info) || o->dbpkg) ? o->sha1 : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha256(const pkgnote_scan_object *o) {
        return o->has_sums && (pkgnote_info_package_count(o->info) || o->dbpkg) ? o->sha256 : NULL;
}

/* ---- images ---- */

PKGNOTE_PUBLIC size_t pkgnote_scan_image_count(const pkgnote_scan *s) {
        return s->n_images;
}
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_image_get(const pkgnote_scan *s, size_t i) {
        return i < s->n_images ? s->images[i] : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_image_input(const pkgnote_scan_image *im) {
        return im->input;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_image_reference(const pkgnote_scan_image *im) {
        return im->reference;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_image_digest(const pkgnote_scan_image *im) {
        return im->digest;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_image_id(const pkgnote_scan_image *im) {
        return im->id;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_image_tag_count(const pkgnote_scan_image *im) {
        return im->n_tags;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_image_tag(const pkgnote_scan_image *im, size_t i) {
        return i < im->n_tags ? im->tags[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_image_platform(const pkgnote_scan_image *im) {
        return im->platform;
}
PKGNOTE_PUBLIC uint64_t pkgnote_scan_image_size(const pkgnote_scan_image *im) {
        return im->size;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_image_layer_count(const pkgnote_scan_image *im) {
        return im->n_layers;
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

/* One installed package of a root's database. */
struct dbentry {
        const struct pn_dbroot *root;
        const char *type;
        const struct pn_pkg *p;
};

/* Database packages, one per installed package of a root, those of
 * roots alike (type, name, version, architecture, OS and image) one. */
static int cmp_dbentry(const void *pa, const void *pb) {
        const struct dbentry *x = pa, *y = pb;
        size_t ix = x->root->image ? x->root->image->ordinal + 1 : 0, iy = y->root->image ? y->root->image->ordinal + 1 : 0;
        if (ix != iy)
                return ix < iy ? -1 : 1;
        const char *kx[] = {x->type, x->p->bin_name, x->p->bin_version, x->p->arch, x->root->os_id, x->root->os_version_id};
        const char *ky[] = {y->type, y->p->bin_name, y->p->bin_version, y->p->arch, y->root->os_id, y->root->os_version_id};
        for (size_t i = 0; i < ELEMENTSOF(kx); i++) {
                int c = strcmp(kx[i] ? kx[i] : "", ky[i] ? ky[i] : "");
                if (c)
                        return c;
        }
        return 0;
}

/* The JSON and metadata of database package E, as a note would give
 * them (type, os and osVersion from the root's os-release, the binary
 * package's name, version and architecture), with its source package,
 * the source's version and its license. */
static int db_package(const struct dbentry *e, struct package *p) {
        json_t *j = json_object();
        const char *kv[][2] = {{PKGNOTE_KEY_TYPE, e->type},
                               {PKGNOTE_KEY_OS, e->root->os_id},
                               {PKGNOTE_KEY_OS_VERSION, e->root->os_version_id},
                               {PKGNOTE_KEY_NAME, e->p->bin_name},
                               {PKGNOTE_KEY_VERSION, e->p->bin_version},
                               {PKGNOTE_KEY_ARCHITECTURE, e->p->arch},
                               {"source", e->p->name},
                               {"sourceVersion", e->p->version},
                               {"license", e->p->license}};
        int r = j ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < ELEMENTSOF(kv); i++) {
                /* A database is untrusted: a value that is not UTF-8 (a
                 * License tag in Latin-1) is left out, not fatal. */
                if (!kv[i][1] || pn_utf8_invalid_at(kv[i][1], strlen(kv[i][1])) != strlen(kv[i][1]))
                        continue;
                if (json_object_set_new(j, kv[i][0], json_string(kv[i][1])) < 0)
                        r = -ENOMEM;
        }
        if (r == 0 && !(p->db_json = pn_json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER)))
                r = -ENOMEM;
        json_decref(j);
        if (r == 0 && pkgnote_metadata_parse(p->db_json, strlen(p->db_json), &p->db_meta) < 0)
                r = -ENOMEM; /* strings from the database are valid; only memory can fail */
        p->json = p->db_json;
        p->meta = p->db_meta;
        p->db = true;
        p->dbroot = e->root;
        p->dbpkg = e->p;
        return r;
}

/* Every package of every root's database, in key order, after the notes'
 * packages; each object owned by one is its evidence, and a note's
 * package is folded into them when every object carrying it is owned by
 * a package it agrees with. */
static int build_db_packages(pkgnote_scan *s) {
        size_t n = 0;
        for (size_t i = 0; i < s->n_dbroots; i++) {
                const struct pn_dbroot *r = s->dbroots[i];
                n += (r->dpkg ? pn_pkgdb_count(r->dpkg) : 0) + (r->rpm ? pn_pkgdb_count(r->rpm) : 0) +
                     (r->apk ? pn_pkgdb_count(r->apk) : 0);
        }
        if (n == 0)
                return 0;
        struct dbentry *v = malloc(n * sizeof *v);
        size_t *group = malloc(n * sizeof *group), *count = calloc(n, sizeof *count);
        int r = v && group && count ? 0 : -ENOMEM;
        n = 0;
        for (size_t i = 0; r == 0 && i < s->n_dbroots; i++) {
                const struct pn_dbroot *root = s->dbroots[i];
                pn_pkgdb *dbs[] = {root->dpkg, root->rpm, root->apk};
                for (size_t d = 0; d < ELEMENTSOF(dbs); d++)
                        for (size_t k = 0; dbs[d] && k < pn_pkgdb_count(dbs[d]); k++)
                                v[n++] = (struct dbentry){root, pn_pkgdb_type(dbs[d]), pn_pkgdb_pkg(dbs[d], k)};
        }
        if (r == 0)
                qsort(v, n, sizeof *v, cmp_dbentry);
        size_t first = s->n_packages, ng = 0;
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (i == 0 || cmp_dbentry(&v[i - 1], &v[i]))
                        ng++;
                group[i] = first + ng - 1;
        }
        /* The objects of each, counted, then placed in scan order. */
        for (size_t i = 0; r == 0 && i < s->n_objects; i++) {
                struct pkgnote_scan_object *o = s->objects[i];
                o->db_package = SIZE_MAX;
                if (!o->dbpkg)
                        continue;
                struct dbentry key = {o->dbroot, o->dbtype, o->dbpkg};
                const struct dbentry *hit = bsearch(&key, v, n, sizeof *v, cmp_dbentry);
                if (hit) {
                        o->db_package = group[hit - v];
                        count[o->db_package - first]++;
                }
        }
        if (r == 0 && PN_GROW(s->packages, s->cap_packages, s->n_packages + ng) < 0)
                r = -ENOMEM;
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (i && group[i] == group[i - 1])
                        continue;
                struct package *p = &s->packages[s->n_packages++];
                *p = (struct package){0};
                size_t c = count[group[i] - first];
                if (c && !(p->objects = calloc(c, sizeof *p->objects)))
                        r = -ENOMEM;
                else
                        r = db_package(&v[i], p);
        }
        for (size_t i = 0; r == 0 && i < s->n_objects; i++) {
                const struct pkgnote_scan_object *o = s->objects[i];
                if (o->db_package != SIZE_MAX) {
                        struct package *p = &s->packages[o->db_package];
                        p->objects[p->n_objects++] = o;
                }
        }
        /* What the notes' packages are beside the databases. */
        for (size_t i = 0; r == 0 && i < s->n_note_packages; i++) {
                struct package *p = &s->packages[i];
                bool owned = p->n_objects > 0;
                for (size_t j = 0; j < p->n_objects; j++) {
                        const struct pkgnote_scan_object *o = p->objects[j];
                        if (!o->dbroot)
                                owned = false;
                        else if (!o->dbpkg)
                                owned = false, p->absent = true;
                        else if (!pn_pkgdb_note_agrees(p->meta, o->dbtype, o->dbpkg))
                                /* Beside a note that agrees, another note is
                                 * of a part linked into the file (SBOMs: a
                                 * part it contains), not a disagreement. */
                                owned = false, p->mismatch |= pn_scan_object_db_mismatch(o);
                }
                p->folded = owned;
        }
        free(v);
        free(group);
        free(count);
        return r;
}

static int build_packages(pkgnote_scan *s) {
        size_t n = 0;
        for (size_t i = 0; i < s->n_objects; i++)
                n += pkgnote_info_package_count(s->objects[i]->info);
        struct pkgref *refs = calloc(n ? n : 1, sizeof *refs);
        if (!refs)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < s->n_objects; i++)
                for (size_t j = 0; j < pkgnote_info_package_count(s->objects[i]->info); j++, k++)
                        refs[k] = (struct pkgref){pkgnote_info_package_json(s->objects[i]->info, j),
                                                  pkgnote_info_package(s->objects[i]->info, j), s->objects[i], k};
        qsort(refs, n, sizeof *refs, cmp_pkgref);
        int r = 0;
        for (size_t i = 0; i < n && r == 0;) {
                size_t e = i + 1;
                while (e < n && !strcmp(refs[e].json, refs[i].json))
                        e++;
                const pkgnote_scan_object **objs = calloc(e - i, sizeof *objs);
                if (!objs || PN_GROW(s->packages, s->cap_packages, s->n_packages + 1) < 0) {
                        free(objs);
                        r = -ENOMEM;
                        break;
                }
                for (size_t q = i; q < e; q++)
                        objs[q - i] = refs[q].obj;
                s->packages[s->n_packages++] = (struct package){.json = refs[i].json, .meta = refs[i].meta, .objects = objs, .n_objects = e - i};
                i = e;
        }
        free(refs);
        s->n_note_packages = s->n_packages;
        if (r == 0)
                r = build_db_packages(s);
        if (r < 0)
                packages_clear(s);
        else
                s->packages_valid = true;
        return r;
}

int pn_scan_packages_ready(const pkgnote_scan *s) {
        /* The index is a cache of the objects: logically const, built once
         * under the lock, since const accessors may run in several threads. */
        pkgnote_scan *m = (pkgnote_scan *)s;
        pthread_mutex_lock(&m->lock);
        int r = m->packages_valid ? 0 : build_packages(m);
        pthread_mutex_unlock(&m->lock);
        return r < 0 ? pn_oom() : 0;
}

static const struct package *package_at(const pkgnote_scan *s, size_t i) {
        return pn_scan_packages_ready(s) == 0 && i < s->n_packages ? &s->packages[i] : NULL;
}

size_t pn_scan_all_package_count(const pkgnote_scan *s) {
        return package_at(s, 0) ? s->n_packages : 0;
}

const struct package *pn_scan_all_package(const pkgnote_scan *s, size_t i) {
        return package_at(s, i);
}

/* A package of a note: the first n_note_packages of the index. */
static const struct package *note_package_at(const pkgnote_scan *s, size_t i) {
        const struct package *p = package_at(s, i);
        return p && !p->db ? p : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_scan_package_count(const pkgnote_scan *s) {
        return package_at(s, 0) ? s->n_note_packages : 0;
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_package(const pkgnote_scan *s, size_t i) {
        const struct package *p = note_package_at(s, i);
        return p ? p->meta : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_package_json(const pkgnote_scan *s, size_t i) {
        const struct package *p = note_package_at(s, i);
        return p ? p->json : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_package_object_count(const pkgnote_scan *s, size_t i) {
        const struct package *p = note_package_at(s, i);
        return p ? p->n_objects : 0;
}
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_package_object(const pkgnote_scan *s, size_t i, size_t j) {
        const struct package *p = note_package_at(s, i);
        return p && j < p->n_objects ? p->objects[j] : NULL;
}

/* A package of a database: those after the notes' in the index. */
static const struct package *db_package_at(const pkgnote_scan *s, size_t i) {
        const struct package *p = package_at(s, 0) && i < s->n_packages - s->n_note_packages
                                          ? package_at(s, s->n_note_packages + i)
                                          : NULL;
        return p && p->db ? p : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_scan_db_package_count(const pkgnote_scan *s) {
        return package_at(s, 0) ? s->n_packages - s->n_note_packages : 0;
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_db_package(const pkgnote_scan *s, size_t i) {
        const struct package *p = db_package_at(s, i);
        return p ? p->meta : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_db_package_json(const pkgnote_scan *s, size_t i) {
        const struct package *p = db_package_at(s, i);
        return p ? p->json : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_scan_db_package_object_count(const pkgnote_scan *s, size_t i) {
        const struct package *p = db_package_at(s, i);
        return p ? p->n_objects : 0;
}
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_db_package_object(const pkgnote_scan *s, size_t i, size_t j) {
        const struct package *p = db_package_at(s, i);
        return p && j < p->n_objects ? p->objects[j] : NULL;
}
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_db_package_image(const pkgnote_scan *s, size_t i) {
        const struct package *p = db_package_at(s, i);
        return p ? p->dbroot->image : NULL;
}
