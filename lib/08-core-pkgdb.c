/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Packages from the package database for the modules of a core or a
 * process that carry no package note.  Most binaries of today's
 * distributions have no note, while the root the program ran in knows
 * which package installed each file: dpkg's status and info lists, or
 * rpm's rpmdb.sqlite (lib/04-pkgdb.c, lib/04-pkgdb-rpm.c, the readers scan uses).
 *
 * The database only knows paths, and a path names whatever is there now:
 * an upgrade since the crash or since the library was loaded puts another
 * file there, of another version.  So the database's answer is given only
 * when the file at the path is provably the one that was mapped: for a
 * core, it has the build-id the core's page holds; for a running process,
 * it has the device and inode of the mapping (/proc/PID/maps).  Else the
 * package now installed there is named beside the module, never as its.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "08-core-private.h"
#include "04-pkgdb-private.h"

/* A module the database can be asked about: a file, by its absolute
 * path (not the vDSO, not a module a core names by its address). */
static bool askable(const pkgnote_module *m) {
        return !m->is_vdso && m->path && m->path[0] == '/';
}

static bool has_note(const pkgnote_module *m) {
        const pkgnote_info *info = pn_module_info(m);
        return info && pkgnote_info_package_count(info) > 0;
}

/* The module's path inside the process's root, where its database names
 * it (/proc/PID/maps names files as the reader sees them: a chrooted
 * process's /usr/lib/x is $PREFIX/usr/lib/x here); NULL when it is no
 * file of that root (mapped from outside it) or not one to ask about. */
static const char *db_path(const pkgnote_core *c, const pkgnote_module *m) {
        size_t n = c->root_prefix ? strlen(c->root_prefix) : 0;
        if (!askable(m) || (n && (strncmp(m->path, c->root_prefix, n) || m->path[n] != '/')))
                return NULL;
        return m->path + n;
}

/* Whether the file at the module's path in ROOTFD is the one mapped: a
 * PKGNOTE_DB_* state (OWNED standing for "the mapped one"). */
static int same_file(const pkgnote_core *c, const pkgnote_module *m, int rootfd, const char *path) {
        if (!c->live && m->disk_build_id && m->build_id)
                return strcmp(m->disk_build_id, m->build_id) ? PKGNOTE_DB_REPLACED : PKGNOTE_DB_OWNED;
        int fd = pn_open_in_root(rootfd, path);
        if (fd < 0)
                return fd == -ENOENT || fd == -ENOTDIR ? PKGNOTE_DB_DELETED : PKGNOTE_DB_REPLACED;
        int state = PKGNOTE_DB_REPLACED;
        struct stat st;
        if (c->live) {
                if (fstat(fd, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino)
                        state = PKGNOTE_DB_OWNED;
        } else if (!m->build_id) {
                state = PKGNOTE_DB_UNVERIFIED;
        } else {
                pkgnote_object *e;
                pkgnote_info *info;
                if (pkgnote_object_open_fd(fd, &e) >= 0) {
                        if (pkgnote_info_read(e, &info) >= 0) {
                                const char *id = pkgnote_info_build_id(info);
                                if (id && !strcmp(id, m->build_id))
                                        state = PKGNOTE_DB_OWNED;
                                pkgnote_info_free(info);
                        }
                        pkgnote_object_free(e);
                }
        }
        close(fd);
        return state;
}

/* The root's database: dpkg's (asked for the modules' paths alone), else
 * rpm's.  1 with *RET, 0 when the root has neither. */
static int load(pkgnote_core *c, int rootfd, pn_pkgdb **ret) {
        const char **paths = calloc(c->n_modules ? c->n_modules : 1, sizeof *paths);
        if (!paths)
                return pn_oom();
        size_t n = 0;
        for (size_t i = 0; i < c->n_modules; i++)
                if ((paths[n] = db_path(c, &c->modules[i])))
                        n++;
        int r = pn_pkgdb_dpkg_paths(rootfd, paths, n, ret);
        free(paths);
        if (r == 0)
                r = pn_pkgdb_rpm_root(rootfd, ret, NULL);
        return r;
}

const char *pn_module_path_in_root(const pkgnote_core *c, const pkgnote_module *m) {
        size_t n = c->root_prefix ? strlen(c->root_prefix) : 0;
        if (n && !strncmp(m->path, c->root_prefix, n) && m->path[n] == '/')
                return m->path + n;
        return m->path;
}

/* Whether the database is wanted at all: some module lacks a note. */
static bool wanted(const pkgnote_core *c) {
        bool w = false;
        for (size_t i = 0; i < c->n_modules; i++)
                w |= askable(&c->modules[i]) && !has_note(&c->modules[i]);
        return w;
}

/* The answer for each module, from DB of the root ROOTFD. */
static void annotate(pkgnote_core *c, int rootfd, pn_pkgdb *db) {
        for (size_t i = 0; i < c->n_modules; i++) {
                pkgnote_module *m = &c->modules[i];
                const char *path = db_path(c, m);
                if (!path)
                        continue;
                ssize_t owner = pn_pkgdb_owner(db, path);
                m->dbpkg = owner >= 0 ? pn_pkgdb_pkg(db, (size_t)owner) : NULL;
                m->dbtype = pn_pkgdb_type(db);
                m->db_state = same_file(c, m, rootfd, path);
                if (m->db_state == PKGNOTE_DB_OWNED && !m->dbpkg)
                        m->db_state = PKGNOTE_DB_UNOWNED;
                m->db_mismatch = m->db_state == PKGNOTE_DB_OWNED &&
                                 pn_pkgdb_disagrees(pn_module_info(m), pn_pkgdb_type(db), m->dbpkg);
        }
}

void pn_core_ask_database(pkgnote_core *c, const pkgnote_core_options *o) {
        if (!wanted(c) || (o && (o->no_database || (o->no_disk && !c->live))))
                return;
        /* A running process: the database of the root it runs in, its
         * files checked there, unless the caller names a root. */
        char proc_root[64];
        const char *root = o && o->root ? o->root : "/";
        if (!(o && o->root) && c->live && c->have_pid) {
                snprintf(proc_root, sizeof proc_root, "/proc/%d/root", c->pid);
                char target[PATH_MAX];
                ssize_t n = readlink(proc_root, target, sizeof target - 1);
                if (n < 0 || (size_t)n >= sizeof target - 1) {
                        int r = n < 0 ? -errno : -ENAMETOOLONG;
                        pn_core_problem_err(c, r, "cannot tell the root of process %d for its package database: %s",
                                            c->pid, strerror(-r));
                        return;
                }
                target[n] = 0;
                free(c->root_prefix);
                c->root_prefix = strcmp(target, "/") ? strdup(target) : NULL;
                if (strcmp(target, "/") && !c->root_prefix) {
                        pn_core_problem_err(c, -ENOMEM, "%s", pn_out_of_memory);
                        return;
                }
                root = proc_root;
        }
        int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
                pn_core_problem_err(c, -errno, "cannot open root directory '%s' for its package database: %s", root,
                                    strerror(errno));
                return;
        }
        pn_pkgdb *db = NULL;
        int r = load(c, rootfd, &db);
        if (r < 0)
                pn_core_problem_err(c, r, "the package database cannot be read: %s", pkgnote_last_error());
        if (r > 0) {
                c->pkgdb = db;
                annotate(c, rootfd, db);
        }
        close(rootfd);
}

/* ---- one database per root for many processes ---- */

#define MAX_CACHED_ROOTS 4096u /* distinct roots (containers) a cache holds */

struct pkgnote_dbcache {
        struct cached_root {
                dev_t dev;
                ino_t ino;
                int r;        /* load()'s result: 1 with db, 0 none, < 0 error */
                char *error;  /* its message when r < 0 */
                pn_pkgdb *db;
        } *roots;
        size_t n, cap;
};

PKGNOTE_PUBLIC int pkgnote_dbcache_new(pkgnote_dbcache **ret) {
        pkgnote_dbcache *cache = calloc(1, sizeof *cache);
        if (!cache)
                return pn_oom();
        *ret = cache;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_dbcache_free(pkgnote_dbcache *cache) {
        if (!cache)
                return;
        for (size_t i = 0; i < cache->n; i++) {
                pn_pkgdb_free(cache->roots[i].db);
                free(cache->roots[i].error);
        }
        free(cache->roots);
        free(cache);
}

PKGNOTE_PUBLIC size_t pkgnote_dbcache_count(const pkgnote_dbcache *cache) {
        size_t n = 0;
        for (size_t i = 0; cache && i < cache->n; i++)
                n += cache->roots[i].r > 0;
        return n;
}

/* The whole database of the root ROOTFD (every package's files, since
 * other processes of the root will ask for other paths): dpkg's, else
 * rpm's.  1 with *RET, 0 when the root has neither. */
static int load_whole(int rootfd, pn_pkgdb **ret) {
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &rootfd);
        int r = pn_pkgdb_dpkg_read(&fs, ret);
        if (r == 0)
                r = pn_pkgdb_rpm_root(rootfd, ret, NULL);
        return r;
}

/* The entry of the root ROOTFD, loaded on first use; NULL on -ENOMEM or
 * over MAX_CACHED_ROOTS. */
static struct cached_root *cached(pkgnote_dbcache *cache, int rootfd) {
        struct stat st;
        if (fstat(rootfd, &st) < 0)
                return NULL;
        for (size_t i = 0; i < cache->n; i++)
                if (cache->roots[i].dev == st.st_dev && cache->roots[i].ino == st.st_ino)
                        return &cache->roots[i];
        if (cache->n == MAX_CACHED_ROOTS)
                return NULL;
        if (cache->n == cache->cap) {
                size_t cap = cache->cap ? cache->cap * 2 : 4;
                void *p = realloc(cache->roots, cap * sizeof *cache->roots);
                if (!p)
                        return NULL;
                cache->roots = p;
                cache->cap = cap;
        }
        struct cached_root *e = &cache->roots[cache->n];
        *e = (struct cached_root){.dev = st.st_dev, .ino = st.st_ino};
        e->r = load_whole(rootfd, &e->db);
        if (e->r < 0 && !(e->error = strdup(pkgnote_last_error())))
                return NULL;
        cache->n++;
        return e;
}

void pn_core_ask_database_in(pkgnote_core *c, int rootfd, pkgnote_dbcache *cache) {
        if (!wanted(c))
                return;
        struct cached_root *e = cached(cache, rootfd);
        if (!e) {
                pn_core_problem_err(c, -ENOMEM, "the package database cannot be read: out of memory or too many roots");
                return;
        }
        if (e->r < 0)
                pn_core_problem_err(c, e->r, "the package database cannot be read: %s", e->error);
        if (e->r <= 0)
                return;
        c->pkgdb = e->db;
        c->pkgdb_borrowed = true;
        annotate(c, rootfd, e->db);
}

PKGNOTE_PUBLIC const pkgnote_info *pkgnote_module_installed_info(const pkgnote_module *m) {
        return m->now_info;
}

PKGNOTE_PUBLIC int pkgnote_module_package_origin(const pkgnote_module *m) {
        if (has_note(m))
                return m->source == PKGNOTE_SOURCE_CORE ? PKGNOTE_ORIGIN_CORE_NOTE : PKGNOTE_ORIGIN_DISK_NOTE;
        return m->db_state == PKGNOTE_DB_OWNED ? PKGNOTE_ORIGIN_DATABASE : PKGNOTE_ORIGIN_NONE;
}

PKGNOTE_PUBLIC const char *pkgnote_origin_name(int origin) {
        switch (origin) {
        case PKGNOTE_ORIGIN_CORE_NOTE: return "core-note";
        case PKGNOTE_ORIGIN_DISK_NOTE: return "disk-note";
        case PKGNOTE_ORIGIN_DATABASE: return "database";
        default: return "none";
        }
}

PKGNOTE_PUBLIC int pkgnote_module_db_state(const pkgnote_module *m) {
        return m->db_state;
}

PKGNOTE_PUBLIC const char *pkgnote_db_state_name(int state) {
        switch (state) {
        case PKGNOTE_DB_OWNED: return "owned";
        case PKGNOTE_DB_UNOWNED: return "unowned";
        case PKGNOTE_DB_REPLACED: return "replaced";
        case PKGNOTE_DB_DELETED: return "deleted";
        case PKGNOTE_DB_UNVERIFIED: return "unverified";
        default: return "not-asked";
        }
}

PKGNOTE_PUBLIC const char *pkgnote_module_db_type(const pkgnote_module *m) {
        return m->dbpkg ? m->dbtype : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_module_db_name(const pkgnote_module *m) {
        return m->dbpkg ? m->dbpkg->bin_name : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_module_db_version(const pkgnote_module *m) {
        return m->dbpkg ? m->dbpkg->bin_version : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_module_db_architecture(const pkgnote_module *m) {
        return m->dbpkg ? m->dbpkg->arch : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_module_db_source(const pkgnote_module *m) {
        return m->dbpkg ? m->dbpkg->name : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_module_db_source_version(const pkgnote_module *m) {
        return m->dbpkg ? m->dbpkg->version : NULL;
}
PKGNOTE_PUBLIC int pkgnote_module_db_mismatch(const pkgnote_module *m) {
        return m->db_mismatch;
}
