/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Library names resolved inside a scanned root: what the dynamic loader
 * would find for a DT_NEEDED entry or a dlopen note's soname
 * ("libzstd.so.1", usually a symbolic link to "libzstd.so.1.5.4") in the
 * root's library directories, so that the SBOMs point a dependency at
 * the package that ships the file, not at a component of the name alone.
 *
 * The links resolve inside the root as if it were "/" (base-root.c,
 * openat2 RESOLVE_IN_ROOT, for a tree; the merged layers of an archive or
 * image, scan-layers.c): a link never leads out of it.
 */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "scan-private.h"

/* The multiarch triplet of MACHINE as Debian and Ubuntu name their
 * library directories (lib/TRIPLET), or NULL. */
static const char *triplet(unsigned machine, int elf_class) {
        switch (machine) {
        case EM_X86_64: return "x86_64-linux-gnu";
        case EM_386: return "i386-linux-gnu";
        case EM_AARCH64: return "aarch64-linux-gnu";
        case EM_ARM: return "arm-linux-gnueabihf";
        case EM_PPC64: return "powerpc64le-linux-gnu";
        case EM_S390: return "s390x-linux-gnu";
        case EM_RISCV: return elf_class == 64 ? "riscv64-linux-gnu" : NULL;
        default: return NULL;
        }
}

/* A name to resolve: of an object of class (32 or 64, as
 * pkgnote_elf_class() gives it, not ELFCLASS*) and machine. */
struct want {
        const char *name;
        unsigned machine;
        int elf_class;
};

static int cmp_want(const void *a, const void *b) {
        const struct want *x = a, *y = b;
        if (x->machine != y->machine)
                return x->machine < y->machine ? -1 : 1;
        if (x->elf_class != y->elf_class)
                return x->elf_class < y->elf_class ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* Whether NAME is one file name a loader looks up in its directories. */
static bool plain_name(const char *name) {
        return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
               strlen(name) < PN_LIBPATH_MAX_NAME;
}

/* The file the loader of W finds in a root (FIND and U), as an object
 * path (PATH, the root's, then its path in the root) into *RET: 1, 0
 * when none, -ENOMEM. */
static int resolve(pn_libroot_find find, void *u, const char *path, const struct want *w, char **ret) {
        const char *t = triplet(w->machine, w->elf_class);
        char lib64[16], tlib[64], tusr[80];
        const char *dirs[6];
        size_t n = 0;
        if (t) {
                snprintf(tlib, sizeof tlib, "/lib/%s", t);
                snprintf(tusr, sizeof tusr, "/usr/lib/%s", t);
                dirs[n++] = tlib, dirs[n++] = tusr;
        }
        /* The other distributions' directories: lib64 for 64-bit objects. */
        snprintf(lib64, sizeof lib64, "%s", w->elf_class == 64 ? "/lib64" : "/lib32");
        dirs[n++] = lib64;
        dirs[n++] = w->elf_class == 64 ? "/usr/lib64" : "/usr/lib32";
        dirs[n++] = "/lib";
        dirs[n++] = "/usr/lib";
        for (size_t i = 0; i < n; i++) {
                char full[PN_LIBPATH_MAX_NAME + 96], *rel = NULL;
                snprintf(full, sizeof full, "%s/%s", dirs[i], w->name);
                int r = find(u, full, &rel);
                if (r <= 0) {
                        if (r < 0)
                                return r;
                        continue;
                }
                *ret = *path ? pn_scan_join(path, rel) : strdup(rel);
                free(rel);
                return *ret ? 1 : -ENOMEM;
        }
        return 0;
}

/* A tree on disk below ROOTFD, its links resolved by the kernel inside it. */
static int find_in_tree(void *u, const char *abs, char **ret) {
        struct stat st;
        int r = pn_resolve_in_root(*(int *)u, abs, ret, &st);
        pn_error_clear();
        return r == -ENOMEM ? r : r == 0;
}

static int cmp_object_path(const void *a, const void *b) {
        return strcmp((*(struct pkgnote_scan_object *const *)a)->path, (*(struct pkgnote_scan_object *const *)b)->path);
}

/* The order of the resolved names, for pn_scan_lib_object()'s search. */
static int cmp_libpath(const void *a, const void *b) {
        const struct pn_libpath *x = a, *y = b;
        /* The root alone: an archive inside a tree is another root of
         * the same input and image. */
        if (x->root != y->root)
                return x->root < y->root ? -1 : 1;
        if (x->machine != y->machine)
                return x->machine < y->machine ? -1 : 1;
        if (x->elf_class != y->elf_class)
                return x->elf_class < y->elf_class ? -1 : 1;
        return strcmp(x->name, y->name);
}

int pn_scan_resolve_libs(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                         const char *path, size_t first) {
        return pn_scan_resolve_libs_in(s, input, image, find_in_tree, &rootfd, path, first);
}

int pn_scan_resolve_libs_in(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image,
                            pn_libroot_find find, void *u, const char *path, size_t first) {
        if (!(s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES) || first >= s->n_objects)
                return 0;
        size_t root = ++s->n_libroots;
        for (size_t i = first; i < s->n_objects; i++)
                s->objects[i]->libroot = root;
        struct want *v = NULL;
        size_t n = 0, cap = 0, no = s->n_objects - first;
        /* The tree's objects by path, to find the file a name resolves to. */
        struct pkgnote_scan_object **byp = malloc(no * sizeof *byp);
        int r = byp ? 0 : -ENOMEM;
        if (byp) {
                memcpy(byp, s->objects + first, no * sizeof *byp);
                qsort(byp, no, sizeof *byp, cmp_object_path);
        }
        for (size_t i = first; r == 0 && i < s->n_objects; i++) {
                const struct pkgnote_scan_object *o = s->objects[i];
                for (size_t k = 0; r == 0 && k < o->n_needed; k++)
                        if (plain_name(o->needed[k]) && (r = PN_GROW(v, cap, n + 1)) == 0)
                                v[n++] = (struct want){o->needed[k], o->machine, o->elf_class};
                for (size_t k = 0; r == 0 && k < pkgnote_info_dlopen_count(o->info); k++) {
                        const pkgnote_dlopen *d = pkgnote_info_dlopen(o->info, k);
                        for (size_t e = 0; d && r == 0 && e < pkgnote_dlopen_count(d); e++)
                                for (size_t a = 0; r == 0 && a < pkgnote_dlopen_soname_count(d, e); a++) {
                                        const char *so = pkgnote_dlopen_soname(d, e, a);
                                        if (so && plain_name(so) && (r = PN_GROW(v, cap, n + 1)) == 0)
                                                v[n++] = (struct want){so, o->machine, o->elf_class};
                                }
                }
        }
        if (n)
                qsort(v, n, sizeof *v, cmp_want);
        size_t before = s->n_libpaths;
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (i && !cmp_want(&v[i - 1], &v[i]))
                        continue;
                if (s->n_libpaths >= PN_LIBPATH_MAX) {
                        pn_scan_add_problem(s, input, path, -E2BIG, "more than %u library names to resolve, the rest left unresolved",
                                            PN_LIBPATH_MAX);
                        break;
                }
                char *file = NULL;
                int q = resolve(find, u, path, &v[i], &file);
                if (q <= 0) {
                        r = q;
                        continue;
                }
                struct pkgnote_scan_object key = {.path = file}, *kp = &key, **hit = bsearch(&kp, byp, no, sizeof *byp, cmp_object_path);
                free(file);
                if (!hit)
                        continue; /* a file that is no ELF object, or was not read */
                char *name = strdup(v[i].name);
                if (!name || PN_GROW(s->libpaths, s->cap_libpaths, s->n_libpaths + 1) < 0) {
                        free(name);
                        r = -ENOMEM;
                        break;
                }
                s->libpaths[s->n_libpaths++] = (struct pn_libpath){root, input, image, v[i].machine, v[i].elf_class, name, *hit};
        }
        if (s->n_libpaths > before)
                qsort(s->libpaths, s->n_libpaths, sizeof *s->libpaths, cmp_libpath);
        free(byp);
        free(v);
        return r < 0 ? pn_error(r, "out of memory") : 0;
}

const struct pkgnote_scan_object *pn_scan_lib_object(const pkgnote_scan *s, const struct pkgnote_scan_object *from,
                                                      const struct pkgnote_scan_image *image, bool any_image,
                                                      const char *name) {
        if (!s->n_libpaths) /* bsearch() wants a base even for no elements */
                return NULL;
        if (from) {
                struct pn_libpath key = {from->libroot, from->input, from->image, from->machine, from->elf_class, (char *)name, NULL};
                const struct pn_libpath *hit = bsearch(&key, s->libpaths, s->n_libpaths, sizeof *s->libpaths, cmp_libpath);
                return hit ? hit->obj : NULL;
        }
        for (size_t i = 0; i < s->n_libpaths; i++) {
                const struct pn_libpath *l = &s->libpaths[i];
                if (!strcmp(l->name, name) && (any_image || l->image == image))
                        return l->obj;
        }
        return NULL;
}

void pn_scan_libpaths_clear(pkgnote_scan *s) {
        for (size_t i = 0; i < s->n_libpaths; i++)
                free(s->libpaths[i].name);
        free(s->libpaths);
        s->libpaths = NULL;
        s->n_libpaths = s->cap_libpaths = 0;
}
