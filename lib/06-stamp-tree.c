/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pn_stamp_tree(): pkgnote stamp --tree.  The tree is walked and written
 * relative to directory descriptors, each opened from its parent with
 * O_NOFOLLOW|O_DIRECTORY, never by path: someone who can write inside the
 * tree and swaps a directory for a symbolic link while the walk runs
 * cannot lead it outside.  Each file is checked with fstatat(AT_SYMLINK_
 * NOFOLLOW), opened O_NOFOLLOW, and replaced only while its name still
 * holds the file that was read (pn_stamp_at()).
 *
 * A file with several names (hard links) is stamped once, after the walk,
 * when every one of its names is inside the tree: the first name gets the
 * stamped file and each other name is then linked to that same file.  A
 * file with names outside the tree is left alone (unless forced), since
 * those names would keep the old contents.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "01-base-dir.h"
#include "02-elf-const.h"
#include "01-base.h"
#include "output.h"
#include "02-pe-view.h"
#include "06-stamp-files.h"

struct link {
        dev_t dev;
        ino_t ino;
        nlink_t nlink;
        struct stat st;
        char *rel; /* path in the tree */
};

struct walk {
        const char *top;
        int rootfd;
        const pkgnote_note_spec *specs; /* the notes; a package note's JSON ... */
        size_t nspecs;
        pn_tree_json_fn json_fn; /* ... or per-file metadata for it, when not NULL */
        void *json_ud;
        unsigned flags;
        pn_tree_fn fn;
        void *userdata;
        struct link *links;
        size_t nlinks, caplinks;
        char rel[PATH_MAX];
};

static void report(struct walk *w, const char *rel, int err, const char *skipped, const pkgnote_stamp_result *res,
                   size_t names) {
        char path[PATH_MAX + 256];
        size_t tl = strlen(w->top);
        snprintf(path, sizeof path, "%s%s%s", w->top, tl && w->top[tl - 1] == '/' ? "" : "/", rel);
        pn_tree_file f = {.path = path, .err = err, .skipped = skipped, .result = res, .names = names};
        w->fn(&f, w->userdata);
}

/* Separate debug information (/usr/lib/debug, *.debug) has the same ELF
 * type as its binary but no code: a note there means nothing. */
static bool is_debug_file(const struct walk *w, const char *rel) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "/%s/%s", w->top, rel);
        size_t l = strlen(path);
        return strstr(path, "/usr/lib/debug/") || (l > 6 && !strcmp(path + l - 6, ".debug"));
}

/* What the tree stamps: ELF executables, shared objects and relocatable
 * objects, and PE images (programs, DLLs, EFI binaries), which
 * pn_stamp_run() gives their .pkgnote section. */
enum object_kind { OBJ_NONE, OBJ_ELF, OBJ_PE };

/* What NAME is, by its head (for a PE image, the signature where the
 * DOS header points, as pn_pe_magic() checks it in a scan's bid). */
static enum object_kind object_kind(int dirfd, const char *name) {
        uint8_t h[PN_PE_DOS_LFANEW + 4];
        int fd = pn_openat_regular(dirfd, name);
        if (fd < 0)
                return OBJ_NONE;
        ssize_t n = pn_pread_full(fd, h, sizeof h, 0);
        enum object_kind k = OBJ_NONE;
        if (n >= 18 && !memcmp(h, ELFMAG, SELFMAG) &&
            (h[EI_DATA] == ELFDATA2LSB || h[EI_DATA] == ELFDATA2MSB)) {
                unsigned type = pn_rd16(h + 16, h[EI_DATA] == ELFDATA2MSB);
                k = type >= ET_REL && type <= ET_DYN ? OBJ_ELF : OBJ_NONE;
        } else if (n == (ssize_t)sizeof h && h[0] == 'M' && h[1] == 'Z') {
                uint8_t sig[4];
                uint32_t off = pn_rd32(h + PN_PE_DOS_LFANEW, false);
                if (pn_pread_full(fd, sig, sizeof sig, off) == (ssize_t)sizeof sig && !memcmp(sig, "PE\0\0", 4))
                        k = OBJ_PE;
        }
        close(fd);
        return k;
}

/* A PE image carries the package note alone (doc/pe.md): it is stamped
 * when that is the one note asked for, and named as skipped otherwise. */
static const char *pe_skip_reason(const struct walk *w) {
        if (w->nspecs == 1 && w->specs[0].type == PKGNOTE_NT_FDO_PACKAGING_METADATA)
                return NULL;
        return "a PE image carries the package note only, no dlopen note";
}

static int add_link(struct walk *w, const struct stat *st, const char *rel) {
        if (PN_GROW(w->links, w->caplinks, w->nlinks + 1) < 0)
                return -ENOMEM;
        char *r = strdup(rel);
        if (!r)
                return -ENOMEM;
        w->links[w->nlinks++] = (struct link){st->st_dev, st->st_ino, st->st_nlink, *st, r};
        return 0;
}

static void walk_dir(struct walk *w, int dfd, size_t rlen);

/* The notes for the file REL into SPECS (w->nspecs of them): the
 * package note's metadata from w->json_fn when there is one.  false
 * after reporting why the file has none (removal needs none). */
static bool specs_for(struct walk *w, const char *rel, size_t names, pkgnote_note_spec *specs) {
        memcpy(specs, w->specs, w->nspecs * sizeof *specs);
        if (!w->json_fn || (w->flags & PKGNOTE_STAMP_REMOVE))
                return true;
        for (size_t i = 0; i < w->nspecs; i++) {
                if (specs[i].type != PKGNOTE_NT_FDO_PACKAGING_METADATA || !specs[i].json)
                        continue;
                const char *skip = NULL;
                int err = 0;
                specs[i].json = w->json_fn(rel, &skip, &err, w->json_ud);
                if (!specs[i].json) {
                        report(w, rel, err, err ? NULL : skip ? skip : "no metadata for this file", NULL, names);
                        return false;
                }
        }
        return true;
}

/* One entry NAME of DFD; w->rel holds its path in the tree. */
static bool visit(struct walk *w, int dfd, const char *name, size_t rlen) {
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        if (S_ISDIR(st.st_mode)) {
                int sub = pn_dir_open_sub(dfd, name, &st, NULL);
                if (sub == -ESTALE)
                        report(w, w->rel, pn_error(-ESTALE, "changed while being walked; left alone"), NULL, NULL, 0);
                else if (sub < 0)
                        report(w, w->rel, pn_error(sub, "cannot read directory: %s", strerror(-sub)), NULL, NULL, 0);
                else
                        walk_dir(w, sub, rlen);
                if (sub >= 0)
                        close(sub);
                return false;
        }
        if (!S_ISREG(st.st_mode) || pn_output_remove_stale(dfd, name) || st.st_size < 52 ||
            is_debug_file(w, w->rel))
                return false;
        enum object_kind kind = object_kind(dfd, name);
        if (kind == OBJ_NONE)
                return false;
        if (kind == OBJ_PE && pe_skip_reason(w)) {
                report(w, w->rel, 0, pe_skip_reason(w), NULL, 1);
                return false;
        }
        if (st.st_nlink > 1) {
                if (add_link(w, &st, w->rel) < 0)
                        report(w, w->rel, pn_oom(), NULL, NULL, 0);
                return false;
        }
        pkgnote_note_spec specs[2];
        if (!specs_for(w, w->rel, 1, specs))
                return false;
        pkgnote_stamp_result res[2] = {{.size = sizeof res[0]}, {.size = sizeof res[0]}};
        int r = pn_stamp_at(dfd, name, &st, specs, w->nspecs, w->flags | PN_STAMP_NO_DIRSYNC, res, NULL);
        report(w, w->rel, r, NULL, r < 0 ? NULL : res, 1);
        return r == 0;
}

static void walk_dir(struct walk *w, int dfd, size_t rlen) {
        char **names = NULL;
        size_t n = 0;
        int r = pn_dir_names(dfd, &names, &n); /* sorted: a stable order of work and messages */
        if (r < 0)
                report(w, rlen ? w->rel : ".", pn_error(r, "cannot read directory: %s", strerror(-r)), NULL, NULL, 0);
        bool wrote = false;
        for (size_t i = 0; i < n; i++) {
                int l = snprintf(w->rel + rlen, sizeof w->rel - rlen, "%s%s", rlen ? "/" : "", names[i]);
                if (l < 0 || (size_t)l >= sizeof w->rel - rlen)
                        report(w, names[i], pn_error(-ENAMETOOLONG, "path too long"), NULL, NULL, 0);
                else
                        wrote |= visit(w, dfd, names[i], rlen + (size_t)l);
                w->rel[rlen] = 0;
                free(names[i]);
        }
        free(names);
        /* One sync for the renames of the whole directory. */
        if (wrote)
                (void)fsync(dfd);
}

/* Opens the directory of REL (a path in the tree) component by component,
 * never following a symbolic link; *base is REL's last component. */
static int open_parent(struct walk *w, const char *rel, const char **base) {
        int fd = openat(w->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *p = rel, *slash;
        while (fd >= 0 && (slash = strchr(p, '/'))) {
                char part[NAME_MAX + 1];
                snprintf(part, sizeof part, "%.*s", (int)(slash - p), p);
                int sub = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(fd);
                fd = sub;
                p = slash + 1;
        }
        *base = p;
        return fd < 0 ? pn_error(-errno, "cannot open its directory: %s", strerror(errno)) : fd;
}

static int cmp_link(const void *a, const void *b) {
        const struct link *x = a, *y = b;
        if (x->dev != y->dev)
                return x->dev < y->dev ? -1 : 1;
        if (x->ino != y->ino)
                return x->ino < y->ino ? -1 : 1;
        return strcmp(x->rel, y->rel);
}

/* The names L[0..N) of one file: stamped once, every name then linked
 * to the stamped file. */
static void stamp_links(struct walk *w, const struct link *l, size_t n) {
        if (n < l->nlink && !(w->flags & PKGNOTE_STAMP_FORCE)) {
                for (size_t i = 0; i < n; i++)
                        report(w, l[i].rel, 0,
                               "has hard links outside the tree, which would keep the old contents (--force to stamp anyway)",
                               NULL, n);
                return;
        }
        /* One file, one note: the metadata of its first name. */
        pkgnote_note_spec specs[2];
        if (!specs_for(w, l[0].rel, n, specs)) {
                for (size_t i = 1; i < n; i++)
                        report(w, l[i].rel, 0, "another name of this file has no metadata", NULL, n);
                return;
        }
        const char *base0;
        int d0 = open_parent(w, l[0].rel, &base0), r = d0 < 0 ? d0 : 0;
        pkgnote_stamp_result res[2] = {{.size = sizeof res[0]}, {.size = sizeof res[0]}};
        struct stat written;
        if (r == 0)
                r = pn_stamp_at(d0, base0, &l[0].st, specs, w->nspecs, w->flags | PN_STAMP_LINKS_OK | PN_STAMP_NO_DIRSYNC,
                                res, &written);
        if (r == 0)
                (void)fsync(d0);
        report(w, l[0].rel, r, NULL, r < 0 ? NULL : res, n);
        for (size_t i = 1; i < n; i++) {
                const char *base;
                int d = r < 0 ? -1 : open_parent(w, l[i].rel, &base), e = r < 0 ? r : d < 0 ? d : 0;
                if (e == 0 && (written.st_dev != l[i].dev || written.st_ino != l[i].ino) &&
                    (e = pn_output_relink(d0, base0, &written, d, base, &l[i].st)) == 0)
                        (void)fsync(d);
                if (r < 0)
                        e = pn_error(r, "another name of this file could not be stamped");
                report(w, l[i].rel, e, NULL, e < 0 ? NULL : res, n);
                if (d >= 0)
                        close(d);
        }
        if (d0 >= 0)
                close(d0);
}

int pn_stamp_tree(const char *dir, const pkgnote_note_spec *specs, size_t n, unsigned flags, pn_tree_fn fn,
                  void *userdata) {
        return pn_stamp_tree_each(dir, specs, n, NULL, NULL, flags, fn, userdata);
}

int pn_stamp_tree_each(const char *dir, const pkgnote_note_spec *specs, size_t n, pn_tree_json_fn json_fn, void *json_ud,
                       unsigned flags, pn_tree_fn fn, void *userdata) {
        int r = pn_stamp_specs_ok(specs, n);
        if (r < 0)
                return r;
        if (n > 2)
                return pn_error(-EINVAL, "too many notes");
        struct walk w = {.top = dir, .specs = specs, .nspecs = n, .json_fn = json_fn, .json_ud = json_ud, .fn = fn,
                         .userdata = userdata};
        w.flags = flags & ~(unsigned)(PN_STAMP_FOLLOW | PN_STAMP_LINKS_OK | PN_STAMP_NO_DIRSYNC);
        w.rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (w.rootfd < 0)
                return pn_error(errno == ENOTDIR || errno == ELOOP ? -ENOTDIR : -errno, "%s",
                                errno == ENOTDIR || errno == ELOOP ? "is not a directory" : strerror(errno));
        walk_dir(&w, w.rootfd, 0);
        if (w.nlinks)
                qsort(w.links, w.nlinks, sizeof *w.links, cmp_link);
        for (size_t i = 0, j; i < w.nlinks; i = j) {
                for (j = i + 1; j < w.nlinks && w.links[j].dev == w.links[i].dev && w.links[j].ino == w.links[i].ino; j++)
                        ;
                stamp_links(&w, w.links + i, j - i);
        }
        for (size_t i = 0; i < w.nlinks; i++)
                free(w.links[i].rel);
        free(w.links);
        close(w.rootfd);
        return 0;
}
