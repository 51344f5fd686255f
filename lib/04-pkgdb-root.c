/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A root's package databases, each read by one reader for every caller:
 * dpkg's status file and info/PACKAGE[:ARCH].list files, and rpm's
 * rpmdb.sqlite where rpm keeps it.  The callers differ only in how the
 * root is reached (struct pn_rootfs): scan reads a tree below a
 * directory without following any link (pn_rootfs_below()), or an
 * image's layers, or an archive; stamp --from-dpkg and deps read a root
 * directory where links resolve inside it (pn_rootfs_in_root()).  Either
 * way nothing but regular files is opened, and every file is read whole
 * up to a named limit.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-root.h"
#include "01-base.h"
#include "04-pkgdb-private.h"

struct lists {
        const struct pn_rootfs *fs;
        bool (*pick)(void *u, const char *name);
        int (*each)(void *u, const char *name, char *text, size_t len);
        void *u;
};

static int one_list(void *u, int dirfd, const char *name) {
        struct lists *l = u;
        size_t n = strlen(name);
        if (n <= 5 || strcmp(name + n - 5, ".list") || (l->pick && !l->pick(l->u, name)))
                return 0;
        void *text;
        size_t len;
        int r;
        /* By the listed directory when the view has one: a thousand lists
         * are not each looked up again from the root. */
        if (dirfd >= 0)
                r = pn_read_at(dirfd, name, PN_DPKG_MAX_LIST, &text, &len);
        else {
                char rel[sizeof "var/lib/dpkg/info/" + 256];
                if (snprintf(rel, sizeof rel, "var/lib/dpkg/info/%s", name) >= (int)sizeof rel)
                        return 0;
                r = l->fs->read(l->fs->u, rel, PN_DPKG_MAX_LIST, &text, &len);
        }
        if (r < 0)
                return r == -ENOMEM ? r : 0; /* a list that cannot be read: its files are unowned */
        pn_dpkg_count_list_read();
        r = l->each(l->u, name, text, len);
        free(text);
        return r;
}

int pn_dpkg_each_list(const struct pn_rootfs *fs, bool (*pick)(void *u, const char *name),
                      int (*each)(void *u, const char *name, char *text, size_t len), void *u) {
        struct lists l = {fs, pick, each, u};
        return fs->list(fs->u, "var/lib/dpkg/info", one_list, &l);
}

/* The status file's packages into a new *DB: 1, 0 when FS has no status
 * file, or a negative errno with pn_error set. */
static int read_status(const struct pn_rootfs *fs, pn_pkgdb **db) {
        void *text;
        size_t len;
        int r = fs->read(fs->u, "var/lib/dpkg/status", PN_DPKG_MAX_STATUS, &text, &len);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return pn_error(r, "the dpkg database (var/lib/dpkg/status) cannot be read: %s", strerror(-r));
        *db = pn_pkgdb_new("deb");
        r = *db ? pn_pkgdb_add_status(*db, text, len) : -ENOMEM;
        free(text);
        return r < 0 ? r : 1;
}

/* Ends reading the lists (R from pn_dpkg_each_list()) and DB. */
static int seal_lists(pn_pkgdb *db, int r, pn_pkgdb **ret) {
        if (r == -ENOENT || r == -ENOTDIR)
                r = 0; /* packages without files */
        else if (r < 0 && r != -ENOMEM)
                r = pn_error(r, "the dpkg database (var/lib/dpkg/info) cannot be read: %s", strerror(-r));
        r = pn_pkgdb_seal(db, r, ret);
        return r < 0 ? r : 1;
}

static int add_list(void *u, const char *name, char *text, size_t len) {
        return pn_pkgdb_add_list(u, name, text, len);
}

int pn_pkgdb_dpkg_read(const struct pn_rootfs *fs, pn_pkgdb **ret) {
        pn_pkgdb *db = NULL;
        int r = read_status(fs, &db);
        if (r <= 0)
                return r < 0 ? pn_pkgdb_seal(db, r, ret) : 0;
        return seal_lists(db, pn_dpkg_each_list(fs, NULL, add_list, db), ret);
}

struct wanted_lists {
        pn_dpkg_wanted *w;
        pn_pkgdb *db;
};

static bool pick_wanted(void *u, const char *name) {
        return pn_dpkg_wanted_list(((struct wanted_lists *)u)->w, name);
}

static int add_wanted(void *u, const char *name, char *text, size_t len) {
        struct wanted_lists *l = u;
        return pn_dpkg_wanted_add_list(l->w, l->db, name, text, len);
}

int pn_pkgdb_dpkg_read_paths(const struct pn_rootfs *fs, const char *const *paths, size_t n, pn_pkgdb **ret) {
        struct wanted_lists l = {NULL, NULL};
        int r = read_status(fs, &l.db);
        if (r <= 0)
                return r < 0 ? pn_pkgdb_seal(l.db, r, ret) : 0;
        r = pn_dpkg_wanted_new(l.db, paths, n, &l.w);
        if (r == 0)
                r = pn_dpkg_each_list(fs, pick_wanted, add_wanted, &l);
        pn_dpkg_wanted_free(l.w);
        return seal_lists(l.db, r, ret);
}

/* ---- rpm ---- */

static const char *const rpmdb_paths[] = {
        "usr/lib/sysimage/rpm/rpmdb.sqlite", /* rpm 4.17+, Fedora 36+; /var/lib/rpm links there */
        "var/lib/rpm/rpmdb.sqlite",
};

bool pn_pkgdb_rpm_path(const char *rel) {
        for (size_t i = 0; i < ELEMENTSOF(rpmdb_paths); i++)
                if (!strcmp(rel, rpmdb_paths[i]))
                        return true;
        return false;
}

int pn_pkgdb_rpm_read(const struct pn_rootfs *fs, pn_pkgdb **ret, const char **where) {
        for (size_t i = 0; i < ELEMENTSOF(rpmdb_paths); i++) {
                void *data;
                size_t len;
                int r = fs->read(fs->u, rpmdb_paths[i], PN_RPMDB_MAX, &data, &len);
                if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP)
                        continue; /* /var/lib/rpm is often a link to the other */
                *where = rpmdb_paths[i];
                if (r < 0)
                        return pn_error(r, "the rpm database (%s) cannot be read: %s", rpmdb_paths[i], strerror(-r));
                r = pn_pkgdb_rpm_sqlite(data, len, ret);
                free(data);
                return r < 0 ? r : 1;
        }
        return 0;
}

/* ---- a tree below a directory, no link followed ---- */

static int below_read(void *u, const char *rel, size_t max, void **data, size_t *len) {
        int r = pn_read_below(*(int *)u, rel, max, data, len);
        return r == -EINVAL ? -ENOENT : r; /* not a regular file */
}

static int below_list(void *u, const char *rel, int (*each)(void *cu, int dirfd, const char *name), void *cu) {
        int fd = pn_open_below(*(int *)u, rel, true);
        return fd < 0 ? fd : pn_dir_each_file(fd, each, cu);
}

void pn_rootfs_below(struct pn_rootfs *fs, int *dirfd) {
        *fs = (struct pn_rootfs){below_read, below_list, dirfd};
}

int pn_pkgdb_rpm_root(int rootfd, pn_pkgdb **ret, const char **where) {
        int fd = rootfd;
        struct pn_rootfs fs;
        pn_rootfs_below(&fs, &fd);
        const char *w = rpmdb_paths[0];
        int r = pn_pkgdb_rpm_read(&fs, ret, &w);
        if (where)
                *where = w;
        return r;
}

/* ---- a root directory, links resolved inside it ---- */

static int root_read(void *u, const char *rel, size_t max, void **data, size_t *len) {
        int r = pn_read_in_root(*(int *)u, rel, max, data, len);
        return r == -EINVAL ? -ENOENT : r; /* not a regular file */
}

static int root_list(void *u, const char *rel, int (*each)(void *cu, int dirfd, const char *name), void *cu) {
        int fd = pn_open_dir_in_root(*(int *)u, rel);
        return fd < 0 ? fd : pn_dir_each_file(fd, each, cu);
}

void pn_rootfs_in_root(struct pn_rootfs *fs, int *rootfd) {
        *fs = (struct pn_rootfs){root_read, root_list, rootfd};
}

/* ---- a root directory's dpkg database, for a few paths, by the index ---- */

struct indexed {
        pn_dpkg_wanted *w;
        pn_pkgdb *db;
        pn_dpkg_index *x;      /* the index read (lookup) or being built (full scan) */
        unsigned char *marked; /* lookup: the index's lists to read */
};

static int mark_list(void *u, size_t list) {
        ((struct indexed *)u)->marked[list] = 1;
        return 0;
}

/* The full scan, every list read (the index wants them all, whatever
 * their package's state), the wanted lines of installed packages kept. */
static int add_and_index(void *u, const char *name, char *text, size_t len) {
        struct indexed *l = u;
        if (l->x) {
                int r = pn_dpkg_index_add_list(l->x, name, text, len);
                if (r == -E2BIG) {
                        pn_dpkg_index_free(l->x); /* too big to keep: the lookup goes on */
                        l->x = NULL;
                } else if (r < 0)
                        return r;
        }
        return pn_dpkg_wanted_list(l->w, name) ? pn_dpkg_wanted_add_list(l->w, l->db, name, text, len) : 0;
}

/* By the index X: only the lists that may hold a wanted path are read,
 * by the same reader as the full scan (pn_read_at() in the info
 * directory INFOFD, a list that cannot be read passed over). */
static int read_indexed(struct indexed *l, int infofd) {
        size_t nl = pn_dpkg_index_list_count(l->x);
        if (!(l->marked = calloc(nl ? nl : 1, 1)))
                return -ENOMEM;
        int r = 0;
        for (size_t i = 0; r == 0 && i < pn_dpkg_wanted_count(l->w); i++) {
                const char *p = pn_dpkg_wanted_path(l->w, i);
                r = pn_dpkg_index_lists(l->x, p, strlen(p), mark_list, l);
        }
        if (r < 0)
                return r == -ENOMEM ? r : -ESTALE; /* a damaged index: the full scan */
        for (size_t i = 0; r == 0 && i < nl; i++) {
                const char *name = pn_dpkg_index_list_name(l->x, i);
                if (!l->marked[i] || !pn_dpkg_wanted_list(l->w, name))
                        continue;
                void *text;
                size_t len;
                r = pn_read_at(infofd, name, PN_DPKG_MAX_LIST, &text, &len);
                if (r < 0) {
                        r = r == -ENOMEM ? r : 0;
                        continue;
                }
                pn_dpkg_count_list_read();
                r = pn_dpkg_wanted_add_list(l->w, l->db, name, text, len);
                free(text);
        }
        return r;
}

int pn_pkgdb_dpkg_paths(int rootfd, const char *const *paths, size_t n, pn_pkgdb **ret) {
        int fd = rootfd;
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &fd);
        struct indexed l = {NULL, NULL, NULL, NULL};
        int r = read_status(&fs, &l.db);
        if (r <= 0)
                return r < 0 ? pn_pkgdb_seal(l.db, r, ret) : 0;
        r = pn_dpkg_wanted_new(l.db, paths, n, &l.w);
        int infofd = r < 0 ? r : pn_open_dir_in_root(rootfd, "var/lib/dpkg/info");
        struct stat st;
        struct pn_dpkg_stamp stamp;
        if (infofd >= 0 && fstat(infofd, &st) < 0) {
                close(infofd);
                infofd = -errno;
        }
        if (infofd < 0)
                r = infofd; /* no info directory: packages without files */
        else {
                pn_dpkg_stamp_of(&st, &stamp);
                r = pn_dpkg_index_load(&stamp, &l.x);
                if (r > 0)
                        r = read_indexed(&l, infofd);
                if (r == -ESTALE) {
                        pn_dpkg_index_free(l.x);
                        l.x = NULL;
                        r = 0;
                }
                if (r == 0 && !l.x) {
                        l.x = pn_dpkg_index_new();
                        r = pn_dpkg_each_list(&fs, NULL, add_and_index, &l);
                        if (r == 0 && l.x)
                                pn_dpkg_index_save(l.x, &stamp, rootfd);
                }
                close(infofd);
        }
        pn_dpkg_index_free(l.x);
        free(l.marked);
        pn_dpkg_wanted_free(l.w);
        return seal_lists(l.db, r, ret);
}

int pn_pkgdb_dpkg(const char *root, pn_pkgdb **ret) {
        const char *r0 = root ? root : "/";
        int rootfd = open(r0, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return pn_error(-errno, "cannot open the root directory '%s': %s", r0, strerror(errno));
        /* stamp --from-dpkg wants the files: a root without the info
         * directory has no database to take them from. */
        int r = pn_open_dir_in_root(rootfd, "var/lib/dpkg/info");
        if (r < 0) {
                close(rootfd);
                return pn_error(r, "no dpkg database in '%s' (var/lib/dpkg/info): %s", r0, strerror(-r));
        }
        close(r);
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &rootfd);
        r = pn_pkgdb_dpkg_read(&fs, ret);
        close(rootfd);
        if (r == 0)
                return pn_error(-ENOENT, "no dpkg database in '%s' (var/lib/dpkg/status): %s", r0, strerror(ENOENT));
        return r < 0 ? r : 0;
}
