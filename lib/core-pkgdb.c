/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Packages from the package database for the modules of a core or a
 * process that carry no package note.  Most binaries of today's
 * distributions have no note, while the root the program ran in knows
 * which package installed each file: dpkg's status and info lists, or
 * rpm's rpmdb.sqlite (lib/pkgdb.c, lib/pkgdb-rpm.c, the readers scan uses).
 *
 * The database only knows paths, and a path names whatever is there now:
 * an upgrade since the crash or since the library was loaded puts another
 * file there, of another version.  So the database's answer is given only
 * when the file at the path is provably the one that was mapped: for a
 * core, it has the build-id the core's page holds; for a running process,
 * it has the device and inode of the mapping (/proc/PID/maps).  Else the
 * package now installed there is named beside the module, never as its.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "pkgdb.h"

/* A module the database can be asked about: a file, by its absolute
 * path (not the vDSO, not a module a core names by its address). */
static bool askable(const pkgnote_module *m) {
        return !m->is_vdso && m->path && m->path[0] == '/';
}

static bool has_note(const pkgnote_module *m) {
        const pkgnote_info *info = pn_module_info(m);
        return info && pkgnote_info_package_count(info) > 0;
}

/* Whether the file at PATH (the module's path in the root) in ROOTFD is
 * the one mapped: a PKGNOTE_DB_* state (OWNED standing for "the mapped
 * one"). */
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
                pkgnote_elf *e;
                pkgnote_info *info;
                if (pkgnote_elf_open_fd(fd, &e) >= 0) {
                        if (pkgnote_info_read(e, &info) >= 0) {
                                const char *id = pkgnote_info_build_id(info);
                                if (id && !strcmp(id, m->build_id))
                                        state = PKGNOTE_DB_OWNED;
                                pkgnote_info_free(info);
                        }
                        pkgnote_elf_free(e);
                }
        }
        close(fd);
        return state;
}

/* The root's database: dpkg's (asked for the N PATHS alone), else
 * rpm's.  1 with *RET, 0 when the root has neither. */
static int load(int rootfd, const char *const *paths, size_t n, pn_pkgdb **ret) {
        const char **asked = calloc(n ? n : 1, sizeof *asked);
        if (!asked)
                return pn_error(-ENOMEM, "out of memory");
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (paths[i])
                        asked[k++] = paths[i];
        int r = pn_pkgdb_dpkg_paths(rootfd, asked, k, ret);
        free(asked);
        if (r == 0)
                r = pn_pkgdb_rpm_root(rootfd, ret, NULL);
        return r;
}

/* The root a running process sees as "/" (/proc/PID/root) into ROOT, and
 * where it lies in ours into PREFIX ("" when it is ours, or lies in
 * another mount namespace): /proc/PID/maps names files as the reader
 * sees them, so a chrooted process's /usr/lib/x is $PREFIX/usr/lib/x
 * there, while its database knows /usr/lib/x.  0 or a negative errno. */
static int process_root(const pkgnote_core *c, char *root, size_t root_size, char *prefix, size_t prefix_size) {
        snprintf(root, root_size, "/proc/%d/root", c->pid);
        ssize_t n = readlink(root, prefix, prefix_size - 1);
        if (n < 0)
                return -errno;
        if ((size_t)n >= prefix_size - 1)
                return -ENAMETOOLONG;
        prefix[n] = 0;
        if (!strcmp(prefix, "/"))
                prefix[0] = 0;
        return 0;
}

/* The module's path inside the root whose place in ours is PREFIX: NULL
 * when the module is no file of that root (mapped from outside it). */
static const char *path_in_root(const pkgnote_module *m, const char *prefix) {
        size_t pl = strlen(prefix);
        if (!askable(m) || strncmp(m->path, prefix, pl) || m->path[pl] != '/')
                return NULL;
        return m->path + pl;
}

void pn_core_ask_database(pkgnote_core *c, const pkgnote_core_options *o) {
        bool wanted = false;
        for (size_t i = 0; i < c->n_modules; i++)
                wanted |= askable(&c->modules[i]) && !has_note(&c->modules[i]);
        if (!wanted || (o && (o->no_database || (o->no_disk && !c->live))))
                return;
        /* A running process: the database of the root it runs in, its
         * files checked there, unless the caller names a root. */
        char proc_root[64], prefix[PATH_MAX] = "";
        const char *root = o && o->root ? o->root : "/";
        if (!(o && o->root) && c->live && c->have_pid) {
                int r = process_root(c, proc_root, sizeof proc_root, prefix, sizeof prefix);
                if (r < 0) {
                        pn_core_problem_err(c, r, "cannot tell the root of process %d for its package database: %s",
                                            c->pid, strerror(-r));
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
        const char **paths = calloc(c->n_modules ? c->n_modules : 1, sizeof *paths);
        if (!paths) {
                close(rootfd);
                pn_core_problem_err(c, -ENOMEM, "out of memory");
                return;
        }
        for (size_t i = 0; i < c->n_modules; i++)
                paths[i] = path_in_root(&c->modules[i], prefix);
        pn_pkgdb *db = NULL;
        int r = load(rootfd, paths, c->n_modules, &db);
        if (r < 0)
                pn_core_problem_err(c, r, "the package database cannot be read: %s", pkgnote_last_error());
        if (r > 0) {
                c->pkgdb = db;
                for (size_t i = 0; i < c->n_modules; i++) {
                        pkgnote_module *m = &c->modules[i];
                        if (!paths[i])
                                continue;
                        ssize_t owner = pn_pkgdb_owner(db, paths[i]);
                        m->dbpkg = owner >= 0 ? pn_pkgdb_pkg(db, (size_t)owner) : NULL;
                        m->dbtype = pn_pkgdb_type(db);
                        m->db_state = same_file(c, m, rootfd, paths[i]);
                        if (m->db_state == PKGNOTE_DB_OWNED && !m->dbpkg)
                                m->db_state = PKGNOTE_DB_UNOWNED;
                        m->db_mismatch = m->db_state == PKGNOTE_DB_OWNED &&
                                         pn_pkgdb_disagrees(pn_module_info(m), pn_pkgdb_type(db), m->dbpkg);
                }
        }
        free(paths);
        close(rootfd);
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
