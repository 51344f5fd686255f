/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Package databases beside the notes.  A root file system the scan reads
 * (a directory tree, the merged layers of an image, an archive of a root
 * file system) may hold its own package database: dpkg's status file and
 * info lists, rpm's rpmdb.sqlite, or apk's lib/apk/db/installed.  Each ELF object of that root is
 * then given the package the database says owns its path, and the two
 * sources are compared: a note naming another package or version marks a
 * replaced or foreign file.
 *
 * The database is read through a small view of the root (struct
 * pn_rootfs), so that a tree on disk, a layer merge in memory and an
 * overlay store share this code.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "04-pkgdb-private.h"
#include "07-check-resolve.h"
#include "09-scan-private.h"

#define MAX_OSRELEASE (64u << 10)

static const char *const osrelease_paths[] = {"etc/os-release", "usr/lib/os-release"};

/* ld.so.conf and the files of ld.so.conf.d, which the library names of
 * an archive or image resolve by (09-scan-libpath.c): kept as the
 * databases are. */
static bool ldconf_path(const char *p) {
        return !strcmp(p, "etc/ld.so.conf") ||
               (!strncmp(p, "etc/ld.so.conf.d/", 17) && p[17] && !strchr(p + 17, '/'));
}

bool pn_scan_db_path(const char *p) {
        if (!strncmp(p, "var/lib/dpkg/", 13)) {
                const char *q = p + 13;
                if (!strcmp(q, "status"))
                        return true;
                size_t n = strlen(q);
                return !strncmp(q, "info/", 5) && !strchr(q + 5, '/') && n > 10 && !strcmp(q + n - 5, ".list");
        }
        if (pn_pkgdb_rpm_path(p) || pn_pkgdb_apk_path(p) || pn_copyright_path(p))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(osrelease_paths); i++)
                if (!strcmp(p, osrelease_paths[i]))
                        return true;
        return ldconf_path(p);
}

size_t pn_scan_db_max(const char *p) {
        if (ldconf_path(p))
                return PN_LDCONF_MAX_SIZE;
        if (!strcmp(p, "var/lib/dpkg/status"))
                return PN_DPKG_MAX_STATUS;
        if (!strncmp(p, "var/lib/dpkg/", 13))
                return PN_DPKG_MAX_LIST;
        for (size_t i = 0; i < ELEMENTSOF(osrelease_paths); i++)
                if (!strcmp(p, osrelease_paths[i]))
                        return MAX_OSRELEASE;
        if (pn_pkgdb_apk_path(p))
                return PN_APK_MAX_INSTALLED;
        if (pn_copyright_path(p))
                return PN_COPYRIGHT_MAX;
        return PN_RPMDB_MAX;
}

void pn_dbroot_free(struct pn_dbroot *r) {
        if (!r)
                return;
        pn_pkgdb_free(r->dpkg);
        pn_pkgdb_free(r->rpm);
        pn_pkgdb_free(r->apk);
        free(r->os_id);
        free(r->os_version_id);
        free(r);
}

/* ---- os-release, for the SBOM's names of packages without a note ---- */

static int load_osrelease(const struct pn_rootfs *fs, struct pn_dbroot *root) {
        for (size_t i = 0; i < ELEMENTSOF(osrelease_paths); i++) {
                void *text;
                size_t len;
                int r = fs->read(fs->u, osrelease_paths[i], MAX_OSRELEASE, &text, &len);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* etc/os-release is usually a link to the other */
                pkgnote_os_release *o = NULL;
                r = pkgnote_os_release_parse(text, len, &o);
                free(text);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                const char *id = pkgnote_os_release_get(o, "ID"), *v = pkgnote_os_release_get(o, "VERSION_ID");
                if (id && !(root->os_id = strdup(id)))
                        r = -ENOMEM;
                if (v && !(root->os_version_id = strdup(v)))
                        r = -ENOMEM;
                pkgnote_os_release_free(o);
                return r < 0 ? r : 0;
        }
        return 0;
}

/* ---- attribution ---- */

static void attribute(struct pn_dbroot *root, struct pkgnote_scan_object *o, size_t prefix_len) {
        o->dbroot = root;
        if (strlen(o->path) < prefix_len)
                return;
        const char *rel = o->path + prefix_len;
        if (*rel != '/')
                return;
        pn_pkgdb *dbs[] = {root->dpkg, root->rpm, root->apk};
        for (size_t i = 0; i < ELEMENTSOF(dbs); i++) {
                ssize_t p = dbs[i] ? pn_pkgdb_owner(dbs[i], rel) : -1;
                if (p >= 0) {
                        o->dbpkg = pn_pkgdb_pkg(dbs[i], (size_t)p);
                        o->dbtype = pn_pkgdb_type(dbs[i]);
                        return;
                }
        }
}

void pn_scan_attribute(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image,
                       const struct pn_rootfs *fs, size_t first, size_t prefix_len) {
        if (s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES)
                return;
        struct pn_dbroot *root = calloc(1, sizeof *root);
        if (!root) {
                pn_scan_add_problem(s, input, NULL, -ENOMEM, "%s", pn_out_of_memory);
                return;
        }
        root->input = input;
        root->image = image;
        const char *where = "var/lib/rpm/rpmdb.sqlite";
        int rd = pn_pkgdb_dpkg_read(fs, &root->dpkg);
        if (rd < 0)
                pn_scan_add_problem(s, input, "/var/lib/dpkg", rd, "%s", pkgnote_last_error());
        int rr = rd == -ENOMEM ? 0 : pn_pkgdb_rpm_read(fs, &root->rpm, &where);
        if (rr < 0) {
                char abs[64];
                snprintf(abs, sizeof abs, "/%s", where);
                pn_scan_add_problem(s, input, abs, rr, "%s", pkgnote_last_error());
        } else if (rr > 0 && pn_pkgdb_damaged(root->rpm)) {
                char abs[64];
                snprintf(abs, sizeof abs, "/%s", where);
                pn_scan_add_problem(s, input, abs, -EBADMSG, "%zu packages of the rpm database are not readable headers, left out",
                                    pn_pkgdb_damaged(root->rpm));
        }
        int ra = rd == -ENOMEM || rr == -ENOMEM ? 0 : pn_pkgdb_apk_read(fs, &root->apk);
        if (ra < 0)
                pn_scan_add_problem(s, input, "/lib/apk/db/installed", ra, "%s", pkgnote_last_error());
        else if (ra > 0 && pn_pkgdb_damaged(root->apk))
                pn_scan_add_problem(s, input, "/lib/apk/db/installed", -EBADMSG,
                                    "%zu packages of the apk database are malformed, left out", pn_pkgdb_damaged(root->apk));
        /* Debian's licenses are in each package's copyright file. */
        if (root->dpkg && pn_pkgdb_dpkg_licenses(root->dpkg, fs) < 0) {
                pn_dbroot_free(root);
                pn_scan_add_problem(s, input, NULL, -ENOMEM, "%s", pn_out_of_memory);
                return;
        }
        if (!root->dpkg && !root->rpm && !root->apk) {
                pn_dbroot_free(root);
                return;
        }
        if (load_osrelease(fs, root) < 0 || PN_GROW(s->dbroots, s->cap_dbroots, s->n_dbroots + 1) < 0) {
                pn_dbroot_free(root);
                pn_scan_add_problem(s, input, NULL, -ENOMEM, "%s", pn_out_of_memory);
                return;
        }
        s->dbroots[s->n_dbroots++] = root;
        for (size_t i = first; i < s->n_objects; i++)
                attribute(root, s->objects[i], prefix_len);
}

/* ---- a tree on disk ---- */

void pn_scan_attribute_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                            const char *path, size_t first) {
        int fd = rootfd;
        struct pn_rootfs fs;
        pn_rootfs_below(&fs, &fd);
        pn_scan_attribute(s, input, image, &fs, first, strcmp(path, "/") ? strlen(path) : 0);
}

/* ---- comparison with the notes ---- */

bool pn_scan_object_db_mismatch(const struct pkgnote_scan_object *o) {
        return pn_pkgdb_disagrees(o->info, o->dbtype, o->dbpkg);
}

PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_type(const pkgnote_scan_object *o) {
        if (!o || !o->dbroot)
                return NULL;
        return o->dbtype ? o->dbtype : o->dbroot->dpkg ? "deb" : o->dbroot->rpm ? "rpm" : "apk";
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_name(const pkgnote_scan_object *o) {
        return o && o->dbpkg ? o->dbpkg->bin_name : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_version(const pkgnote_scan_object *o) {
        return o && o->dbpkg ? o->dbpkg->bin_version : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_architecture(const pkgnote_scan_object *o) {
        return o && o->dbpkg ? o->dbpkg->arch : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_source(const pkgnote_scan_object *o) {
        return o && o->dbpkg ? o->dbpkg->name : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_source_version(const pkgnote_scan_object *o) {
        return o && o->dbpkg ? o->dbpkg->version : NULL;
}
PKGNOTE_PUBLIC int pkgnote_scan_object_db_mismatch(const pkgnote_scan_object *o) {
        return o && pn_scan_object_db_mismatch(o);
}
