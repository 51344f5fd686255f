/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The package databases of lib/04-pkgdb.c for programs of the public API:
 * which installed package ships a file of a root.  The library's own
 * readers (scan, core reports) use the internal pn_pkgdb directly.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "01-base.h"
#include "04-pkgdb-private.h"

/* The public handle is the internal database itself. */
struct pkgnote_pkgdb;

static const pn_pkgdb *in(const pkgnote_pkgdb *db) {
        return (const pn_pkgdb *)db;
}

PKGNOTE_PUBLIC int pkgnote_pkgdb_open(const char *root, const char *type, const char **where, pkgnote_pkgdb **ret) {
        const char *r0 = root ? root : "/";
        pn_pkgdb *db = NULL;
        int r;
        if (where)
                *where = NULL;
        if (!ret || !type)
                return pn_error(-EINVAL, "no package database type given");
        if (!strcmp(type, "deb")) {
                if (where)
                        *where = "var/lib/dpkg/status";
                r = pn_pkgdb_dpkg(r0, &db);
                if (r >= 0)
                        r = 1;
        } else if (!strcmp(type, "rpm")) {
                int rootfd = open(r0, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (rootfd < 0)
                        return pn_error(-errno, "cannot open the root directory '%s': %s", r0, strerror(errno));
                r = pn_pkgdb_rpm_root(rootfd, &db, where);
                close(rootfd);
        } else
                return pn_error(-EINVAL, "unknown package database type '%s' (deb or rpm)", type);
        if (r > 0)
                *ret = (pkgnote_pkgdb *)db;
        return r;
}

PKGNOTE_PUBLIC void pkgnote_pkgdb_free(pkgnote_pkgdb *db) {
        pn_pkgdb_free((pn_pkgdb *)db);
}

PKGNOTE_PUBLIC const char *pkgnote_pkgdb_type(const pkgnote_pkgdb *db) {
        return db ? pn_pkgdb_type(in(db)) : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_pkgdb_count(const pkgnote_pkgdb *db) {
        return db ? pn_pkgdb_count(in(db)) : 0;
}

PKGNOTE_PUBLIC size_t pkgnote_pkgdb_damaged(const pkgnote_pkgdb *db) {
        return db ? pn_pkgdb_damaged(in(db)) : 0;
}

PKGNOTE_PUBLIC int pkgnote_pkgdb_package(const pkgnote_pkgdb *db, size_t i, pkgnote_db_package *ret) {
        if (!ret)
                return pn_error(-EINVAL, "no package struct given");
        size_t n = 0;
        int r = pn_result_size(ret, sizeof *ret, PN_SIZE_1_0(pkgnote_db_package), &n, "pkgnote_db_package");
        if (r < 0)
                return r;
        const struct pn_pkg *p = db ? pn_pkgdb_pkg(in(db), i) : NULL;
        if (!p)
                return 0;
        pkgnote_db_package full = {
                .size = sizeof full,
                .name = p->name,
                .version = p->version,
                .architecture = p->arch,
                .binary = p->binary,
                .binary_name = p->bin_name,
                .binary_version = p->bin_version,
        };
        (void)pn_result_copy(ret, &full, sizeof full, PN_SIZE_1_0(pkgnote_db_package), "pkgnote_db_package");
        return 1;
}

PKGNOTE_PUBLIC int pkgnote_pkgdb_owner(const pkgnote_pkgdb *db, const char *path, size_t *ret) {
        if (!db || !path || !ret)
                return pn_error(-EINVAL, "no database or path given");
        if (*path != '/')
                return pn_error(-EINVAL, "'%s' is not an absolute path", path);
        ssize_t i = pn_pkgdb_owner(in(db), path);
        if (i < 0)
                return 0;
        *ret = (size_t)i;
        return 1;
}
