/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who owns a file, by a root's package database (lib/04-pkgdb.c). */
#ifndef PKGNOTE_PKGDB_H
#define PKGNOTE_PKGDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "pkgnote.h"

/* A package as the package note names it. */
struct pn_pkg {
        char *name;    /* the source package's name */
        char *version; /* its version (rpm: VERSION-RELEASE) */
        char *arch;    /* the binary package's architecture */
        char *binary;  /* the binary package: "NAME:ARCH" (dpkg), NEVRA (rpm) */
        char *bin_name;    /* the binary package's name */
        char *bin_version; /* its version: dpkg's Version:, rpm's [EPOCH:]VERSION-RELEASE */
        char *license;     /* rpm's License tag, apk's L:, Debian's copyright file (SPDX); or NULL */
};

typedef struct pn_pkgdb pn_pkgdb;

/* What the package databases of a root are read through: a tree, an
 * image's layers, an archive, a root directory. */
struct pn_rootfs {
        /* The regular file REL (normalised, relative) of the root, at most
         * MAX bytes, into *DATA (malloc()ed, NUL-terminated) and *LEN: 0,
         * -ENOENT when there is none, or another negative errno. */
        int (*read)(void *u, const char *rel, size_t max, void **data, size_t *len);
        /* Calls EACH with the name of every file of the directory REL
         * until it returns non-zero: that, 0, or a negative errno.  When
         * the view lists a directory on disk, DIRFD is its descriptor, by
         * which EACH may read NAME (pn_read_at(): a regular file only,
         * no link followed) rather than look up REL/NAME again from the
         * root; else -1, and NAME is read through READ. */
        int (*list)(void *u, const char *rel, int (*each)(void *cu, int dirfd, const char *name), void *cu);
        void *u;
};

/* ---- a root's databases (lib/04-pkgdb-root.c) ---- */

#define PN_DPKG_MAX_STATUS (256u << 20) /* bytes of var/lib/dpkg/status */
#define PN_DPKG_MAX_LIST (64u << 20)    /* bytes of one info/PACKAGE.list */
#define PN_RPMDB_MAX (1024u << 20)      /* bytes of rpmdb.sqlite */

/* A root directory ROOTFD (which must outlive FS) as a struct pn_rootfs:
 * links resolve inside it, only regular files are read.  The files of a
 * listed directory (the lists of dpkg's info directory) are read by the directory's
 * descriptor: one of them that is a link is passed over, as in a tree. */
void pn_rootfs_in_root(struct pn_rootfs *fs, int *rootfd);
/* A tree below the directory DIRFD (which must outlive FS): no link is
 * followed, only regular files are read. */
void pn_rootfs_below(struct pn_rootfs *fs, int *dirfd);
/* Calls EACH with the name and text (LEN bytes, NUL-terminated, EACH may
 * change it) of every readable info/PACKAGE.list file of FS's dpkg database
 * until it returns non-zero: that, 0, or a negative errno (-ENOENT: no
 * info directory).  Lists that cannot be read are passed over.  PICK
 * (may be NULL: every list) is asked first, with the list's name: a list
 * it refuses is not opened at all. */
int pn_dpkg_each_list(const struct pn_rootfs *fs, bool (*pick)(void *u, const char *name),
                      int (*each)(void *u, const char *name, char *text, size_t len), void *u);
/* The installed packages and their files of FS's dpkg database: 1 with
 * *RET, 0 when FS has no status file, or a negative errno with pn_error
 * set.  A missing info directory means packages without files. */
int pn_pkgdb_dpkg_read(const struct pn_rootfs *fs, pn_pkgdb **ret);
/* The same with only the files among the N absolute PATHS (and their
 * merged-/usr aliases), read by the same reader: every installed
 * package, but no list of a package not installed is opened and only
 * the lines naming a wanted path are kept (pn_dpkg_wanted_*). */
int pn_pkgdb_dpkg_read_paths(const struct pn_rootfs *fs, const char *const *paths, size_t n, pn_pkgdb **ret);
/* Whether REL (normalised, relative) is where rpm keeps its database. */
bool pn_pkgdb_rpm_path(const char *rel);
/* The packages and files of FS's rpmdb.sqlite (pn_pkgdb_rpm_sqlite()): 1
 * with *RET, 0 when FS has none, or a negative errno with pn_error set;
 * *WHERE the database's path in FS when there is one. */
int pn_pkgdb_rpm_read(const struct pn_rootfs *fs, pn_pkgdb **ret, const char **where);

/* The installed packages and their files, from ROOT's (NULL: "/") dpkg
 * database, read inside ROOT (no symlink leads out of it): 0 with *RET,
 * or a negative errno with pn_error set ("no dpkg database" when ROOT has
 * no status file or info directory).  (lib/04-pkgdb-root.c) */
int pn_pkgdb_dpkg(const char *root, pn_pkgdb **ret);
/* The same from the rpm database of the root directory ROOTFD: its
 * rpmdb.sqlite where rpm keeps it (usr/lib/sysimage/rpm, var/lib/rpm),
 * opened below ROOTFD without following a symbolic link, read into memory
 * and never written (pn_pkgdb_rpm_sqlite()).  1 with *RET, 0 when the
 * root has none, or a negative errno with pn_error set; *WHERE (may be
 * NULL) the database's path in the root, or the first one tried.
 * (lib/04-pkgdb-root.c) */
int pn_pkgdb_rpm_root(int rootfd, pn_pkgdb **ret, const char **where);
void pn_pkgdb_free(pn_pkgdb *db);

/* The steps the two above take, for other sources of the same text: an
 * empty database of TYPE ("deb", "rpm"), or NULL. */
pn_pkgdb *pn_pkgdb_new(const char *type);
/* Adds the installed packages of a dpkg status file (LEN bytes at TEXT,
 * not NUL-terminated).  A package whose name, version or architecture is
 * empty or spans lines is left out.  0 or -ENOMEM. */
int pn_pkgdb_add_status(pn_pkgdb *db, const char *text, size_t len);
/* Adds the paths of dpkg's info file LIST_NAME ("PKG.list",
 * "PKG:ARCH.list") to its package; a list no package has is ignored. */
int pn_pkgdb_add_list(pn_pkgdb *db, const char *list_name, const char *text, size_t len);
/* Adds the rpm package NEVRA (its NAME, [EPOCH:]VERSION-RELEASE EVR
 * and ARCH), built from the source rpm SRPM ("NAME-V-R.src.rpm"; without
 * one, the package is its own source): 1, 0 when a part is empty or
 * spans lines (left out), -ENOMEM. */
int pn_pkgdb_add_rpm_package(pn_pkgdb *db, const char *nevra, const char *name, const char *evr, const char *srpm,
                             const char *arch);
/* Adds the absolute PATH (LEN bytes) to package PKG; a path that is not
 * absolute is ignored.  0 or -ENOMEM. */
int pn_pkgdb_add_file(pn_pkgdb *db, const char *path, size_t len, size_t pkg);
/* Adds the package and files of an rpm header blob (an rpmdb.sqlite
 * Packages row: the header without its magic, LEN bytes): 0 (also for a
 * pseudo-package like gpg-pubkey, which has no files), -EBADMSG when it
 * is malformed, -ENOMEM. */
int pn_pkgdb_add_rpm_header(pn_pkgdb *db, const void *blob, size_t len);
/* The packages and files of the rpm database rpmdb.sqlite, LEN bytes at
 * DATA (changed: its WAL marks are cleared), read through SQLite loaded
 * on first use: 0 with *RET, or a negative errno with pn_error set
 * (-EOPNOTSUPP without libsqlite3.so.0).  Rows that are not readable
 * headers are counted in pn_pkgdb_damaged(). */
int pn_pkgdb_rpm_sqlite(void *data, size_t len, pn_pkgdb **ret);
void pn_pkgdb_set_damaged(pn_pkgdb *db, size_t n);
/* Sets the license of package PKG to the LEN bytes at S (one line, at
 * most PN_LICENSE_MAX bytes; anything else is left out): 0 or -ENOMEM. */
#define PN_LICENSE_MAX 4096u
int pn_pkgdb_set_license(pn_pkgdb *db, size_t pkg, const char *s, size_t len);
/* How many of the database's records were left out as unreadable. */
size_t pn_pkgdb_damaged(const pn_pkgdb *db);
/* Ends reading: frees DB when R < 0 (and returns R), else sorts it
 * for lookups and hands it to *RET. */
int pn_pkgdb_seal(pn_pkgdb *db, int r, pn_pkgdb **ret);

/* ---- Alpine's apk database (lib/04-pkgdb-apk.c) ---- */

#define PN_APK_MAX_INSTALLED (256u << 20) /* bytes of lib/apk/db/installed */
#define PN_APK_MAX_LINE 4096u             /* bytes of one of its lines */
/* Adds the packages and files of apk's installed database (LEN bytes at
 * TEXT, not NUL-terminated): paragraphs of "K:value" lines, P: name, V:
 * version, A: architecture, o: origin (the source package), L: license,
 * F: a directory and R: a file of the last F:.  A paragraph with a line of
 * another form (no single-letter key, a NUL, a line over PN_APK_MAX_LINE),
 * a second P:, V: or A:, or a file before any package is left out and
 * counted in pn_pkgdb_damaged().  0 or -ENOMEM. */
int pn_pkgdb_add_apk(pn_pkgdb *db, const char *text, size_t len);
/* Adds the apk package NAME built from ORIGIN at VERSION for ARCH
 * (lengths beside them): 1, 0 when a part is empty or spans lines (left
 * out), -ENOMEM. */
int pn_pkgdb_add_apk_package(pn_pkgdb *db, const char *name, size_t name_len, const char *origin, size_t origin_len,
                             const char *version, size_t version_len, const char *arch, size_t arch_len);
/* The packages and files of FS's lib/apk/db/installed: 1 with *RET, 0
 * when FS has none, or a negative errno with pn_error set. */
int pn_pkgdb_apk_read(const struct pn_rootfs *fs, pn_pkgdb **ret);
/* Whether REL (normalised, relative) is apk's database. */
bool pn_pkgdb_apk_path(const char *rel);

/* ---- Debian's machine-readable copyright files (lib/04-pkgdb-copyright.c) ---- */

#define PN_COPYRIGHT_MAX (1u << 20) /* bytes of one usr/share/doc/PKG/copyright read */
/* The licenses a machine-readable (DEP-5, copyright-format 1.0) copyright
 * file of LEN bytes at TEXT names in its License: fields, as one SPDX
 * expression (malloc()ed into *RET): each field's short names mapped to
 * SPDX identifiers where Debian's names have one (GPL-2+ ->
 * GPL-2.0-or-later, Expat -> MIT), else "LicenseRef-" and the name; the
 * fields' distinct expressions joined by AND.  1 with *RET, 0 when TEXT is
 * not such a file or names no license, -ENOMEM. */
int pn_dep5_license(const char *text, size_t len, char **ret);
/* The SPDX identifier of the Debian short license name NAME (LEN bytes)
 * into BUF (SIZE bytes): "LicenseRef-NAME" (characters other than
 * letters, digits, '.' and '-' as '-') when none maps.  False when BUF is
 * too small. */
bool pn_dep5_spdx_id(const char *name, size_t len, char *buf, size_t size);
/* LicenseRef- of the LEN bytes at NAME, as an SPDX idstring (other bytes
 * '-', a final '+' "-or-later"), into BUF: false when it does not fit. */
bool pn_license_ref(const char *name, size_t len, char *buf, size_t size);

/* ---- rpm License tags, apk L: (lib/04-pkgdb-license.c) ---- */

/* TAG as an SPDX expression into *RET (malloc()ed): old Fedora short
 * names mapped where the SPDX identifier is exact, SPDX identifiers kept,
 * other names LicenseRef- of their text, "and"/"or" as AND/OR.  1 when
 * every name is an SPDX identifier (exact), 0 when some became or were a
 * LicenseRef-; -ENODATA (empty), -E2BIG (TAG or the expression over
 * PN_LICENSE_MAX), -EBADMSG
 * (control characters), -ENOMEM. */
int pn_license_tag_spdx(const char *tag, char **ret);
/* Gives every package of the dpkg database DB the license its
 * usr/share/doc/PKG/copyright in FS names (pn_dep5_license()); packages
 * without a readable machine-readable file get none.  0 or -ENOMEM. */
int pn_pkgdb_dpkg_licenses(pn_pkgdb *db, const struct pn_rootfs *fs);
/* The license the copyright file of the dpkg package BIN_NAME in FS
 * names (pn_dep5_license()): 1 with *RET (malloc()ed), 0 when there is
 * none (no file, not machine-readable, a link), -ENOMEM. */
int pn_dpkg_package_license(const struct pn_rootfs *fs, const char *bin_name, char **ret);
/* Whether REL is a usr/share/doc/PKG/copyright file. */
bool pn_copyright_path(const char *rel);

/* "deb", "rpm" or "apk". */
const char *pn_pkgdb_type(const pn_pkgdb *db);
size_t pn_pkgdb_file_count(const pn_pkgdb *db);
/* The I-th path, in byte order, and its package's index in *PKG. */
const char *pn_pkgdb_file(const pn_pkgdb *db, size_t i, size_t *pkg);
/* The index of the package that ships PATH (absolute, as in the root),
 * also under its merged-/usr alias (/bin/x for /usr/bin/x and back);
 * -1 if none. */
ssize_t pn_pkgdb_owner(const pn_pkgdb *db, const char *path);
size_t pn_pkgdb_count(const pn_pkgdb *db);

/* The owners of the N absolute PATHS (and their merged-/usr aliases) by
 * the dpkg database of the root directory ROOTFD, read inside it
 * (pn_rootfs_in_root(), pn_pkgdb_dpkg_read_paths()): every
 * installed package, and only the files asked for, so looking up a
 * process's modules costs one pass over the list files and no index of
 * the whole system.  1 with *RET, 0 when the root has no dpkg database,
 * or a negative errno with pn_error set. */
int pn_pkgdb_dpkg_paths(int rootfd, const char *const *paths, size_t n, pn_pkgdb **ret);
/* Its steps, for other sources of the same text: the N PATHS wanted from
 * the database DB, which holds the status file's packages (and must not
 * gain packages while the result lives); 0 or -ENOMEM. */
typedef struct pn_dpkg_wanted pn_dpkg_wanted;
int pn_dpkg_wanted_new(const pn_pkgdb *db, const char *const *paths, size_t n, pn_dpkg_wanted **ret);
/* Whether the list file LIST_NAME belongs to an installed package (a
 * list of none is not worth opening). */
bool pn_dpkg_wanted_list(const pn_dpkg_wanted *w, const char *list_name);
/* As pn_pkgdb_add_list(), keeping only the lines that are wanted paths. */
int pn_dpkg_wanted_add_list(const pn_dpkg_wanted *w, pn_pkgdb *db, const char *list_name, const char *text,
                            size_t len);
void pn_dpkg_wanted_free(pn_dpkg_wanted *w);

/* Every path the lookup wants (those asked for and their merged-/usr
 * aliases): their count, and the I-th. */
size_t pn_dpkg_wanted_count(const pn_dpkg_wanted *w);
const char *pn_dpkg_wanted_path(const pn_dpkg_wanted *w, size_t i);

/* ---- an index of dpkg's lists, kept in the user's cache (lib/04-pkgdb-index.c) ---- */

#define PN_DPKG_INDEX_MAX (512u << 20)        /* bytes of an index file */
#define PN_DPKG_INDEX_MAX_LISTS (1u << 20)    /* lists it names */
#define PN_DPKG_INDEX_MAX_ENTRIES (1u << 26)  /* (path hash, list) entries */

/* What the index was built from: the info directory's identity and times. */
struct pn_dpkg_stamp {
        uint64_t dev, ino, mtime_s, mtime_ns, ctime_s, ctime_ns;
};
void pn_dpkg_stamp_of(const struct stat *st, struct pn_dpkg_stamp *s);
uint64_t pn_dpkg_path_hash(const char *p, size_t len);
typedef struct pn_dpkg_index pn_dpkg_index;
pn_dpkg_index *pn_dpkg_index_new(void);
void pn_dpkg_index_free(pn_dpkg_index *x);
/* Adds the list file NAME and its text (LEN bytes): 0, -E2BIG over a
 * PN_DPKG_INDEX_MAX_* limit, -ENOMEM.  A name that is not "X.list" is
 * passed over. */
int pn_dpkg_index_add_list(pn_dpkg_index *x, const char *name, const char *text, size_t len);
/* The index as the file's bytes (malloc()ed into *RET, *LEN), stamped S. */
int pn_dpkg_index_serialize(pn_dpkg_index *x, const struct pn_dpkg_stamp *s, void **ret, size_t *len);
/* The index of the LEN bytes at DATA (which must outlive it), when
 * stamped WANT (NULL: any stamp): 0 with *RET, -ESTALE (another stamp),
 * -EBADMSG (malformed: a size that is not the counts', a name that is
 * not a list's, entries out of order or naming no list), -ENOMEM. */
int pn_dpkg_index_parse(const void *data, size_t len, const struct pn_dpkg_stamp *want, pn_dpkg_index **ret);
size_t pn_dpkg_index_list_count(const pn_dpkg_index *x);
const char *pn_dpkg_index_list_name(const pn_dpkg_index *x, size_t i);
/* Calls EACH with every list that has a line of PATH's (LEN bytes) hash,
 * in order, until it returns non-zero: that, or 0. */
int pn_dpkg_index_lists(const pn_dpkg_index *x, const char *path, size_t len, int (*each)(void *u, size_t list),
                        void *u);
/* The user's cached index stamped S: 1 with *RET, 0 when there is none
 * to trust (missing, stale, not ours alone, malformed), -ENOMEM. */
int pn_dpkg_index_load(const struct pn_dpkg_stamp *s, pn_dpkg_index **ret);
/* Keeps X, built from the lists of ROOTFD's info directory as stamped
 * BEFORE, in the user's cache, when the directory still has that stamp
 * and has not changed within two seconds; nothing is said when it
 * cannot be kept. */
void pn_dpkg_index_save(pn_dpkg_index *x, const struct pn_dpkg_stamp *before, int rootfd);
/* Those two seconds (tests set 0, for roots they have just made). */
extern unsigned pn_dpkg_index_settle;
/* The list files the dpkg readers have opened in this process (for the
 * tests, which bound the work of a lookup by it). */
unsigned long pn_dpkg_lists_read(void);
void pn_dpkg_count_list_read(void);

/* Whether INFO (may be NULL) has package notes and none names the database package P
 * of TYPE ("deb", "rpm"): its source or binary name with the source or
 * binary version (rpm's without its epoch, as notes give it); a note of
 * another type does not count. */
bool pn_pkgdb_disagrees(const pkgnote_info *info, const char *type, const struct pn_pkg *p);
/* Whether the note M names the database package P of TYPE, as above. */
bool pn_pkgdb_note_agrees(const pkgnote_metadata *m, const char *type, const struct pn_pkg *p);
const struct pn_pkg *pn_pkgdb_pkg(const pn_pkgdb *db, size_t i);

/* Which of the versions A and B of the package database of TYPE ("deb",
 * "rpm", others as "deb") is newer: dpkg's or rpm's order, with epochs.
 * Negative, 0 or positive as strcmp().  (lib/04-pkgdb-version.c) */
int pn_version_compare(const char *type, const char *a, const char *b);

#endif
