/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The readers of per-file package metadata: dpkg's status and .list
 * files, rpm's query output, metadata maps (lib/04-pkgdb.c, lib/06-stamp-filemap.c). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "06-stamp-filemap.h"
#include "04-pkgdb-private.h"
#include "pkgnote.h"
#include "01-base-root.h"
#include "testlib.h"
#include "../fuzz/spdx-check.h"

static const char status[] = "Package: libfoo1\n"
                             "Status: install ok installed\n"
                             "Architecture: amd64\n"
                             "Source: foo (1.2-3)\n"
                             "Version: 1.2-3+b1\n"
                             "Description: x\n"
                             " Package: not-a-field\n"
                             "\n"
                             "Package: bar\n"
                             "Status: deinstall ok config-files\n"
                             "Architecture: all\n"
                             "Version: 1\n"
                             "\n"
                             "Package: sh\n"
                             "Status: hold ok installed\n"
                             "Architecture: amd64\n"
                             "Source: dash\n"
                             "Version: 0.5.12-2\n"
                             "\n"
                             "Package: empty\n"
                             "Status: install ok installed\n"
                             "Architecture: amd64\n"
                             "Version: \n";

static pn_pkgdb *dpkg(void) {
        pn_pkgdb *db = pn_pkgdb_new("deb"), *sealed = NULL;
        int r = db ? pn_pkgdb_add_status(db, status, strlen(status)) : -ENOMEM;
        static const char foo[] = "/.\n/usr/lib/libfoo.so.1\n/usr/share/doc/libfoo1", sh[] = "/bin/sh\n",
                          bar[] = "/etc/bar\n";
        if (r == 0)
                r = pn_pkgdb_add_list(db, "libfoo1:amd64.list", foo, strlen(foo));
        if (r == 0)
                r = pn_pkgdb_add_list(db, "sh.list", sh, strlen(sh));
        if (r == 0)
                r = pn_pkgdb_add_list(db, "bar.list", bar, strlen(bar));
        if (r == 0)
                r = pn_pkgdb_add_list(db, "libfoo1:i386.list", bar, strlen(bar));
        CHECK_INT(pn_pkgdb_seal(db, r, &sealed), 0);
        return sealed;
}

static void test_dpkg_status(void) {
        pn_pkgdb *db = dpkg();
        if (!db)
                return;
        /* bar is not installed; empty has no version. */
        CHECK_INT(pn_pkgdb_count(db), 2);
        const struct pn_pkg *p = pn_pkgdb_pkg(db, 0), *q = pn_pkgdb_pkg(db, 1);
        CHECK_STR(p->name, "foo");
        CHECK_STR(p->version, "1.2-3");
        CHECK_STR(p->arch, "amd64");
        CHECK_STR(p->binary, "libfoo1:amd64");
        CHECK_STR(q->name, "dash");
        CHECK_STR(q->version, "0.5.12-2");
        CHECK(pn_pkgdb_pkg(db, 2) == NULL);
        pn_pkgdb_free(db);
}

static void test_dpkg_lists(void) {
        pn_pkgdb *db = dpkg();
        if (!db)
                return;
        /* Files of the two installed packages only, /. included, the last
         * line without its newline too. */
        CHECK_INT(pn_pkgdb_file_count(db), 4);
        CHECK_INT(pn_pkgdb_owner(db, "/usr/lib/libfoo.so.1"), 0);
        CHECK_INT(pn_pkgdb_owner(db, "/usr/share/doc/libfoo1"), 0);
        CHECK_INT(pn_pkgdb_owner(db, "/etc/bar"), -1);
        CHECK_INT(pn_pkgdb_owner(db, "usr/lib/libfoo.so.1"), -1);
        /* merged /usr, both ways */
        CHECK_INT(pn_pkgdb_owner(db, "/bin/sh"), 1);
        CHECK_INT(pn_pkgdb_owner(db, "/usr/bin/sh"), 1);
        CHECK_INT(pn_pkgdb_owner(db, "/lib/libfoo.so.1"), 0);
        size_t pkg = 9;
        CHECK_STR(pn_pkgdb_file(db, 0, &pkg), "/.");
        CHECK_INT(pkg, 0);
        CHECK(pn_pkgdb_file(db, 4, NULL) == NULL);
        CHECK_STR(pn_pkgdb_type(db), "deb");
        pn_pkgdb_free(db);
}

/* rpm packages as the rpmdb.sqlite reader adds them: the source rpm's
 * name and VERSION-RELEASE split off its file name (names with dashes,
 * .nosrc.rpm), the package its own source without a usable one, and a
 * part spanning lines left out. */
static void test_rpm_package(void) {
        pn_pkgdb *db = pn_pkgdb_new("rpm"), *sealed = NULL;
        if (!db)
                return;
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "bash-5.2.26-6.fc41.x86_64", "bash", "5.2.26-6.fc41",
                                           "bash-5.2.26-6.fc41.src.rpm", "x86_64"), 1);
        CHECK_INT(pn_pkgdb_add_file(db, "/usr/bin/bash", 13, 0), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "libm-2.40-1.fc41.x86_64", "libm", "2.40-1.fc41", "glibc-2.40-1.fc41.src.rpm",
                                           "x86_64"), 1);
        CHECK_INT(pn_pkgdb_add_file(db, "/usr/lib64/libm.so.6", 20, 1), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "odd-1-2.x86_64", "odd", "1-2", "name-with-dash-1-2.src.rpm", "x86_64"), 1);
        CHECK_INT(pn_pkgdb_add_file(db, "/usr/bin/odd", 12, 2), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "last-3-4.noarch", "last", "1:3-4", "last-3-4.nosrc.rpm", "noarch"), 1);
        CHECK_INT(pn_pkgdb_add_file(db, "/usr/bin/last", 13, 3), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "own-1:7-8.noarch", "own", "1:7-8", "(none)", "noarch"), 1);
        CHECK_INT(pn_pkgdb_add_file(db, "/usr/bin/own", 12, 4), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "bad-1-1.x86_64", "bad", "1-1", "bad-1-1.src.rpm", "x86\n64"), 0);
        CHECK_INT(pn_pkgdb_add_rpm_package(db, "bad-1-1.x86_64", "bad", "1-1\n", "bad-1-1.src.rpm", "x86_64"), 0);
        CHECK_INT(pn_pkgdb_add_file(db, "relative", 8, 0), 0);
        CHECK_INT(pn_pkgdb_seal(db, 0, &sealed), 0);
        CHECK_INT(pn_pkgdb_count(sealed), 5);
        CHECK_INT(pn_pkgdb_file_count(sealed), 5);
        const struct pn_pkg *p = pn_pkgdb_pkg(sealed, (size_t)pn_pkgdb_owner(sealed, "/usr/lib64/libm.so.6"));
        CHECK_STR(p->name, "glibc");
        CHECK_STR(p->version, "2.40-1.fc41");
        CHECK_STR(p->binary, "libm-2.40-1.fc41.x86_64");
        CHECK_STR(p->bin_name, "libm");
        p = pn_pkgdb_pkg(sealed, (size_t)pn_pkgdb_owner(sealed, "/usr/bin/odd"));
        CHECK_STR(p->name, "name-with-dash");
        CHECK_STR(p->version, "1-2");
        p = pn_pkgdb_pkg(sealed, (size_t)pn_pkgdb_owner(sealed, "/usr/bin/last"));
        CHECK_STR(p->name, "last");
        CHECK_STR(p->version, "3-4");
        CHECK_STR(p->arch, "noarch");
        p = pn_pkgdb_pkg(sealed, (size_t)pn_pkgdb_owner(sealed, "/usr/bin/own"));
        CHECK_STR(p->name, "own");
        CHECK_STR(p->version, "7-8");
        CHECK_STR(p->bin_version, "1:7-8");
        pn_pkgdb_free(sealed);
}


/* Writes TEXT to DIR/REL (its directories made). */
static void put(const char *dir, const char *rel, const char *text) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
                *p = 0;
                mkdir(path, 0755);
                *p = '/';
        }
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

/* Only the paths asked for are kept, found under dpkg's spelling of the
 * merged-/usr alias (dpkg -S knows /lib/x86_64-linux-gnu/libc.so.6, the
 * kernel maps /usr/lib/x86_64-linux-gnu/libc.so.6), and a path asked for
 * as dpkg spells it is found as well. */
static void test_dpkg_paths(void) {
        char dir[] = "/tmp/test-pkgdb.XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        put(dir, "var/lib/dpkg/status", status);
        put(dir, "var/lib/dpkg/info/libfoo1:amd64.list", "/.\n/lib/x86_64/libfoo.so.1\n/usr/share/doc/libfoo1\n");
        put(dir, "var/lib/dpkg/info/sh.list", "/bin\n/usr/bin/sh\n");
        put(dir, "var/lib/dpkg/info/gone.list", "/usr/bin/gone\n");
        int rootfd = open(dir, O_RDONLY | O_DIRECTORY);
        CHECK(rootfd >= 0);
        const char *paths[] = {"/usr/lib/x86_64/libfoo.so.1", "/bin/sh", "/usr/bin/gone", "/usr/share/none", "relative"};
        pn_pkgdb *db = NULL;
        CHECK_INT(pn_pkgdb_dpkg_paths(rootfd, paths, sizeof paths / sizeof *paths, &db), 1);
        if (db) {
                /* Two of the status file's packages are installed; the
                 * list of one that is not (gone) is not read; only the
                 * two files asked for are kept. */
                CHECK_INT(pn_pkgdb_count(db), 2);
                CHECK_INT(pn_pkgdb_file_count(db), 2);
                ssize_t foo = pn_pkgdb_owner(db, "/usr/lib/x86_64/libfoo.so.1");
                CHECK(foo >= 0);
                if (foo >= 0)
                        CHECK_STR(pn_pkgdb_pkg(db, (size_t)foo)->bin_name, "libfoo1");
                ssize_t sh = pn_pkgdb_owner(db, "/bin/sh");
                CHECK(sh >= 0);
                if (sh >= 0)
                        CHECK_STR(pn_pkgdb_pkg(db, (size_t)sh)->name, "dash");
                CHECK_INT(pn_pkgdb_owner(db, "/usr/share/doc/libfoo1"), -1);
                CHECK_INT(pn_pkgdb_owner(db, "/usr/bin/gone"), -1);
        }
        pn_pkgdb_free(db);
        /* A root without a dpkg database: none, no error. */
        char empty[600];
        snprintf(empty, sizeof empty, "%s/var/lib/dpkg/info", dir);
        int efd = open(empty, O_RDONLY | O_DIRECTORY);
        db = NULL;
        CHECK_INT(pn_pkgdb_dpkg_paths(efd, paths, 1, &db), 0);
        CHECK(db == NULL);
        close(efd);
        close(rootfd);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK_INT(system(cmd), 0);
}


/* ---- the index of dpkg's lists (lib/04-pkgdb-index.c) ---- */

static int collect_list(void *u, size_t list) {
        char *seen = u;
        size_t n = strlen(seen);
        if (n < 30) {
                seen[n] = (char)('a' + list);
                seen[n + 1] = 0;
        }
        return 0;
}

/* The lists an index gives for PATH, as letters ("a" the first list);
 * "!" when the lookup fails. */
static const char *index_lists(const pn_dpkg_index *x, const char *path) {
        static char seen[32];
        seen[0] = 0;
        if (pn_dpkg_index_lists(x, path, strlen(path), collect_list, seen) < 0)
                strcpy(seen, "!");
        return seen;
}

/* Built, written, read back: every path gives the lists that hold it; a
 * stamp of other times is stale; every truncated prefix and a damaged
 * table or entry is refused, never read past. */
static void test_dpkg_index_format(void) {
        pn_dpkg_index *b = pn_dpkg_index_new();
        CHECK(b != NULL);
        if (!b)
                return;
        static const char a_list[] = "/.\n/usr\n/usr/lib/libx.so.1\n/usr/bin/dup\n/usr/bin/dup\n";
        static const char b_list[] = "/.\n/usr\n/usr/bin/dup\n\nrelative\n/usr/bin/b";
        CHECK_INT(pn_dpkg_index_add_list(b, "liba1:amd64.list", a_list, strlen(a_list)), 0);
        CHECK_INT(pn_dpkg_index_add_list(b, "b.list", b_list, strlen(b_list)), 0);
        CHECK_INT(pn_dpkg_index_add_list(b, "not-a-list", a_list, strlen(a_list)), 0);
        CHECK_INT(pn_dpkg_index_add_list(b, "empty.list", "", 0), 0);
        CHECK_INT(pn_dpkg_index_list_count(b), 3);
        struct pn_dpkg_stamp st = {1, 2, 3, 4, 5, 6}, other = {1, 2, 3, 4, 5, 7};
        void *data = NULL;
        size_t len = 0;
        CHECK_INT(pn_dpkg_index_serialize(b, &st, &data, &len), 0);
        pn_dpkg_index_free(b);
        pn_dpkg_index *x = NULL;
        CHECK_INT(pn_dpkg_index_parse(data, len, &other, &x), -ESTALE);
        CHECK_INT(pn_dpkg_index_parse(data, len, &st, &x), 0);
        if (x) {
                CHECK_STR(pn_dpkg_index_list_name(x, 0), "liba1:amd64.list");
                CHECK_STR(pn_dpkg_index_list_name(x, 2), "empty.list");
                CHECK(pn_dpkg_index_list_name(x, 3) == NULL);
                CHECK_STR(index_lists(x, "/usr/bin/dup"), "ab");
                CHECK_STR(index_lists(x, "/usr"), "ab");
                CHECK_STR(index_lists(x, "/usr/lib/libx.so.1"), "a");
                CHECK_STR(index_lists(x, "/usr/bin/b"), "b");
                CHECK_STR(index_lists(x, "relative"), "");
                CHECK_STR(index_lists(x, "/usr/bin/none"), "");
                pn_dpkg_index_free(x);
        }
        /* Every proper prefix, and one byte more, is refused whole. */
        unsigned char *copy = malloc(len + 1);
        CHECK(copy != NULL);
        for (size_t n = 0; copy && n <= len + 1; n++) {
                if (n == len)
                        continue;
                memcpy(copy, data, n <= len ? n : len);
                if (n > len)
                        copy[len] = 0;
                x = NULL;
                int r = pn_dpkg_index_parse(copy, n, NULL, &x);
                if (r != -EBADMSG) {
                        fprintf(stderr, "prefix of %zu of %zu bytes: %d\n", n, len, r);
                        CHECK_INT(r, -EBADMSG);
                }
                pn_dpkg_index_free(x);
        }
        /* A damaged bucket table or entry: the lookup fails (the caller
         * then reads every list), it never reads outside the file. */
        size_t names = 0;
        for (size_t i = 0; i < 4; i++)
                names |= (size_t)((unsigned char *)data)[64 + i] << (8 * i);
        size_t table = 72 + names, entries = table + 4 * ((1u << 4) + 1);
        if (copy) {
                memcpy(copy, data, len);
                size_t k = (size_t)(pn_dpkg_path_hash("/usr", 4) >> 60); /* "/usr"'s bucket of 16 */
                memset(copy + table + 4 * (k + 1), 0xff, 4);          /* its end */
                CHECK_INT(pn_dpkg_index_parse(copy, len, NULL, &x), 0);
                if (x) {
                        bool failed = false;
                        const char *probe[] = {"/.", "/usr", "/usr/bin/dup", "/usr/bin/b", "/usr/lib/libx.so.1"};
                        for (size_t i = 0; i < 5; i++)
                                failed |= !strcmp(index_lists(x, probe[i]), "!");
                        CHECK(failed);
                        pn_dpkg_index_free(x);
                }
                memcpy(copy, data, len);
                memset(copy + entries + 8, 0x7f, 4); /* the first entry's list */
                CHECK_INT(pn_dpkg_index_parse(copy, len, NULL, &x), 0);
                if (x) {
                        bool failed = false;
                        const char *probe[] = {"/.", "/usr", "/usr/bin/dup", "/usr/bin/b", "/usr/lib/libx.so.1"};
                        for (size_t i = 0; i < 5; i++)
                                failed |= !strcmp(index_lists(x, probe[i]), "!");
                        CHECK(failed);
                        pn_dpkg_index_free(x);
                }
                memcpy(copy, data, len);
                copy[72] = '/'; /* a list's name with a slash */
                CHECK_INT(pn_dpkg_index_parse(copy, len, NULL, &x), -EBADMSG);
        }
        free(copy);
        free(data);
}

/* The owners of PATHS by the full scan of ROOTFD's database and by the
 * lookup: the same package (or none) for each; the lists the lookup read
 * into *READ. */
static void same_owners(int rootfd, const char *const *paths, size_t n, unsigned long *read) {
        int fd = rootfd;
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &fd);
        pn_pkgdb *full = NULL, *few = NULL;
        CHECK_INT(pn_pkgdb_dpkg_read(&fs, &full), 1);
        unsigned long before = pn_dpkg_lists_read();
        CHECK_INT(pn_pkgdb_dpkg_paths(rootfd, paths, n, &few), 1);
        *read = pn_dpkg_lists_read() - before;
        for (size_t i = 0; full && few && i < n; i++) {
                ssize_t a = pn_pkgdb_owner(full, paths[i]), b = pn_pkgdb_owner(few, paths[i]);
                const char *x = a >= 0 ? pn_pkgdb_pkg(full, (size_t)a)->binary : "(none)";
                const char *y = b >= 0 ? pn_pkgdb_pkg(few, (size_t)b)->binary : "(none)";
                if (strcmp(x, y)) {
                        fprintf(stderr, "%s: full scan %s, lookup %s\n", paths[i], x, y);
                        CHECK_STR(y, x);
                }
        }
        pn_pkgdb_free(full);
        pn_pkgdb_free(few);
}

static char cache_dir[] = "/tmp/test-pkgdb-cache.XXXXXX";

/* A root of our own: the lookup by the index gives the full scan's
 * owners (two packages listing one file: the first in the status file),
 * reads only the lists that hold a wanted path once the index is there,
 * and sees a list dpkg replaced (a rename in the info directory). */
static void test_dpkg_index_root(void) {
        char dir[] = "/tmp/test-pkgdb.XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        put(dir, "var/lib/dpkg/status", status);
        put(dir, "var/lib/dpkg/info/libfoo1:amd64.list", "/.\n/lib/x86_64/libfoo.so.1\n/usr/bin/dup\n");
        put(dir, "var/lib/dpkg/info/sh.list", "/.\n/bin\n/usr/bin/sh\n/usr/bin/dup\n");
        put(dir, "var/lib/dpkg/info/gone.list", "/usr/bin/gone\n");
        int rootfd = open(dir, O_RDONLY | O_DIRECTORY);
        CHECK(rootfd >= 0);
        const char *paths[] = {"/usr/lib/x86_64/libfoo.so.1", "/bin/sh", "/usr/bin/dup", "/usr/bin/gone", "/none", "/."};
        unsigned long read;
        pn_dpkg_index_settle = 0;
        same_owners(rootfd, paths, 6, &read);
        CHECK_INT(read, 3); /* the full scan: every list, for the index */
        same_owners(rootfd, paths, 6, &read);
        CHECK_INT(read, 2); /* the two installed lists that hold wanted paths */
        const char *lib[] = {"/usr/lib/x86_64/libfoo.so.1"};
        same_owners(rootfd, lib, 1, &read);
        CHECK_INT(read, 1);
        const char *none[] = {"/usr/lib/x86_64/libnone.so.1"};
        same_owners(rootfd, none, 1, &read);
        CHECK_INT(read, 0);
        /* dpkg replaces a list by a rename: the index is not used, and the
         * new file is found. */
        put(dir, "var/lib/dpkg/info/sh.list-new", "/.\n/bin\n/usr/bin/sh\n/usr/bin/dup\n/usr/lib/x86_64/libnone.so.1\n");
        char from[600], to[600];
        snprintf(from, sizeof from, "%s/var/lib/dpkg/info/sh.list-new", dir);
        snprintf(to, sizeof to, "%s/var/lib/dpkg/info/sh.list", dir);
        CHECK_INT(rename(from, to), 0);
        pn_pkgdb *db = NULL;
        CHECK_INT(pn_pkgdb_dpkg_paths(rootfd, none, 1, &db), 1);
        if (db) {
                ssize_t o = pn_pkgdb_owner(db, none[0]);
                CHECK(o >= 0);
                if (o >= 0)
                        CHECK_STR(pn_pkgdb_pkg(db, (size_t)o)->bin_name, "sh");
        }
        pn_pkgdb_free(db);
        same_owners(rootfd, none, 1, &read);
        CHECK_INT(read, 1);
        /* An index others may write is not trusted: the full scan. */
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "chmod 0666 %s/pkgnote/dpkg-*.index", cache_dir);
        CHECK_INT(system(cmd), 0);
        same_owners(rootfd, lib, 1, &read);
        CHECK_INT(read, 3);
        pn_dpkg_index_settle = 2;
        close(rootfd);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' %s/pkgnote", dir, cache_dir);
        CHECK_INT(system(cmd), 0);
}

/* The paths of the list file NAME of this machine's dpkg database, each
 * also under its merged-/usr alias, appended to *PATHS. */
static void real_list_paths(const char *name, char ***paths, size_t *n, size_t *cap) {
        char path[512];
        snprintf(path, sizeof path, "/var/lib/dpkg/info/%s", name);
        size_t len;
        char *text = (char *)read_file(path, &len);
        if (!text)
                return;
        for (char *p = text, *eol; p < text + len; p = eol + 1) {
                eol = memchr(p, '\n', (size_t)(text + len - p));
                if (!eol)
                        eol = text + len;
                *eol = 0;
                if (*p != '/')
                        continue;
                char *forms[2] = {strdup(p), NULL};
                static const char *const aliased[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
                for (size_t k = 0; k < 6; k++) {
                        size_t al = strlen(aliased[k]);
                        if (!strncmp(p, "/usr", 4) && !strncmp(p + 4, aliased[k], al))
                                forms[1] = strdup(p + 4);
                        else if (!strncmp(p, aliased[k], al) && asprintf(&forms[1], "/usr%s", p) < 0)
                                forms[1] = NULL;
                }
                for (size_t k = 0; k < 2; k++) {
                        if (!forms[k])
                                continue;
                        if (*n == *cap) {
                                *cap = *cap ? *cap * 2 : 256;
                                *paths = realloc(*paths, *cap * sizeof **paths);
                        }
                        (*paths)[(*n)++] = forms[k];
                }
        }
        free(text);
}

/* This machine's own dpkg database: for every file of a few installed
 * packages, under both merged-/usr spellings, and for a file of no
 * package, the lookup by the index answers what the full scan answers
 * (libpq-dev and postgresql-common both list the diverted
 * /usr/bin/pg_config where they are installed); and once the index is
 * kept, the lookup of a library of a real package opens a list or two,
 * not the ~1,200 of every package (main read them all on every call). */
static void test_dpkg_index_real(void) {
        if (access("/var/lib/dpkg/status", R_OK) < 0 || access("/var/lib/dpkg/info/libc6:amd64.list", R_OK) < 0) {
                printf("# SKIP no dpkg database with libc6:amd64 on this machine\n");
                return;
        }
        static const char *const lists[] = {"libc6:amd64.list", "coreutils.list", "dash.list", "base-files.list",
                                            "libpq-dev.list", "postgresql-common.list", "dpkg.list"};
        char **paths = NULL;
        size_t n = 0, cap = 0;
        for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
                real_list_paths(lists[i], &paths, &n, &cap);
        real_list_paths("libc6:amd64.list", &paths, &n, &cap); /* (room for two more) */
        paths[n++] = strdup("/usr/lib/x86_64-linux-gnu/libowned-by-no-package.so.1");
        paths[n++] = strdup("/usr/lib/x86_64-linux-gnu/libc.so.6");
        printf("# %zu paths of %zu packages\n", n, sizeof lists / sizeof *lists);
        int rootfd = open("/", O_RDONLY | O_DIRECTORY);
        CHECK(rootfd >= 0);
        unsigned long read;
        same_owners(rootfd, (const char *const *)paths, n, &read); /* builds the index */
        same_owners(rootfd, (const char *const *)paths, n, &read); /* by the index */
        const char *libc[] = {"/usr/lib/x86_64-linux-gnu/libc.so.6"};
        same_owners(rootfd, libc, 1, &read);
        printf("# lists read for libc.so.6: %lu\n", read);
        CHECK(read >= 1 && read <= 2);
        const char *nobody[] = {"/usr/lib/x86_64-linux-gnu/libowned-by-no-package.so.1"};
        same_owners(rootfd, nobody, 1, &read);
        CHECK(read <= 1);
        close(rootfd);
        for (size_t i = 0; i < n; i++)
                free(paths[i]);
        free(paths);
}

/* The notes of a small ELF image carrying the package note JSON. */
static pkgnote_info *noted(const char *json) {
        static uint8_t note[1024], image[8192];
        struct mk_spec s = {.is64 = true, .type = 3, .machine = 62, .n_blobs = 1};
        s.blobs[0] = (struct mk_blob){note, mk_package_note(note, false, json, false), 4, true, true, ".note.package"};
        size_t n = mk_elf(&s, image, sizeof image);
        pkgnote_object *e = NULL;
        pkgnote_info *info = NULL;
        CHECK(n > 0 && pkgnote_object_from_memory(image, n, &e) == 0);
        if (e)
                CHECK_INT(pkgnote_info_read(e, &info), 0);
        pkgnote_object_free(e);
        return info;
}

/* A note agrees with the database when it names the package by its
 * source or binary name with either version (rpm's without an epoch);
 * a note of another type is no disagreement; no note, none either. */
static void test_disagrees(void) {
        pn_pkgdb *db = dpkg();
        if (!db)
                return;
        const struct pn_pkg *foo = pn_pkgdb_pkg(db, 0);
        static const struct {
                const char *json;
                bool disagrees;
        } cases[] = {
                {"{\"type\":\"deb\",\"name\":\"foo\",\"version\":\"1.2-3\"}", false},
                {"{\"type\":\"deb\",\"name\":\"libfoo1\",\"version\":\"1.2-3+b1\"}", false},
                {"{\"type\":\"deb\",\"name\":\"foo\",\"version\":\"1.2-4\"}", true},
                {"{\"type\":\"deb\",\"name\":\"other\",\"version\":\"1.2-3\"}", true},
                {"{\"type\":\"rpm\",\"name\":\"other\",\"version\":\"9\"}", true},
                {"{\"name\":\"foo\",\"version\":\"1.2-3\"}", false},
        };
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
                pkgnote_info *info = noted(cases[k].json);
                CHECK(info != NULL);
                if (info)
                        CHECK_INT(pn_pkgdb_disagrees(info, "deb", foo), cases[k].disagrees);
                CHECK_INT(pn_pkgdb_disagrees(info, "deb", NULL), false);
                pkgnote_info_free(info);
        }
        /* A module whose file could not be read has no summary. */
        CHECK_INT(pn_pkgdb_disagrees(NULL, "deb", foo), false);
        pn_pkgdb_free(db);
        pn_pkgdb *r = pn_pkgdb_new("rpm"), *rs = NULL;
        CHECK_INT(pn_pkgdb_add_rpm_package(r, "bar-1:2.0-3.x86_64", "bar", "1:2.0-3", "bar-2.0-3.src.rpm", "x86_64"), 1);
        CHECK_INT(pn_pkgdb_seal(r, 0, &rs), 0);
        pkgnote_info *info = noted("{\"type\":\"rpm\",\"name\":\"bar\",\"version\":\"2.0-3\"}");
        if (info && rs)
                CHECK_INT(pn_pkgdb_disagrees(info, "rpm", pn_pkgdb_pkg(rs, 0)), false);
        pkgnote_info_free(info);
        pn_pkgdb_free(rs);
}

static void test_filemap(void) {
        static const char map[] = "# comment\n"
                                  "./usr/bin/a\t{\"name\":\"a\"}\n"
                                  "\n"
                                  "/usr/lib/liba.so.1\t{\"name\":\"liba\"}\n"
                                  "usr/sbin/b\t{\"name\":\"b\"}";
        pn_filemap *m = NULL;
        CHECK_INT(pn_filemap_parse(map, strlen(map), "m", &m), 0);
        if (!m)
                return;
        CHECK_INT(pn_filemap_count(m), 3);
        CHECK_STR(pn_filemap_path(m, 0), "usr/bin/a");
        CHECK_INT(pn_filemap_find(m, "usr/bin/a"), 0);
        CHECK_INT(pn_filemap_find(m, "/usr/bin/a"), 0);
        CHECK_INT(pn_filemap_find(m, "././/usr/bin/a"), 0);
        ssize_t i = pn_filemap_find(m, "./usr/sbin/b");
        CHECK_INT(i, 2);
        CHECK_STR(pn_filemap_document(m, (size_t)(i < 0 ? 0 : i)), "{\"name\":\"b\"}");
        CHECK_INT(pn_filemap_find(m, "usr/bin"), -1);
        CHECK(pn_filemap_path(m, 3) == NULL);
        pn_filemap_free(m);
}

static void test_filemap_errors(void) {
        static const struct {
                const char *text, *error;
        } bad[] = {
                {"a\t{}\n\nno-tab\n", "m:3: not PATH<TAB>JSON"},
                {"\t{}\n", "m:1: not PATH<TAB>JSON"},
                {"./\t{}\n", "m:1: the path names no file of the tree"},
                {"a/b\t{}\n./a/b\t{}\n", "m: 'a/b' is listed twice"},
        };
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
                pn_filemap *m = NULL;
                CHECK_INT(pn_filemap_parse(bad[k].text, strlen(bad[k].text), "m", &m), -EINVAL);
                CHECK(m == NULL);
                CHECK_STR(pkgnote_last_error(), bad[k].error);
        }
        /* A NUL inside a line is no line of a map. */
        static const char nul[] = "a\t{}\0x\n";
        pn_filemap *m = NULL;
        CHECK_INT(pn_filemap_parse(nul, sizeof nul - 1, "m", &m), -EINVAL);
}

static void read_dpkg(void *root) {
        pn_pkgdb *db = NULL;
        CHECK_INT(pn_pkgdb_dpkg(root, &db), 0);
        CHECK(db && pn_pkgdb_owner(db, "/usr/bin/foo") >= 0);
        pn_pkgdb_free(db);
}

struct below {
        int dirfd;
        const char *rel;
};

static void read_below(void *u) {
        struct below *b = u;
        void *data;
        size_t len;
        CHECK_INT(pn_read_below(b->dirfd, b->rel, 1024, &data, &len), -EINVAL);
}

/* A file system that gives no entry types (XFS made without ftype, ext2
 * without filetype): while this is set, readdir() reports every entry of
 * every directory as DT_UNKNOWN, so that a reader must look at a list
 * itself before it opens it. */
static bool no_entry_types;

/* The header renames readdir() to readdir64() under _FILE_OFFSET_BITS=64;
 * this definition takes the name the library's calls go to. */
struct dirent *readdir(DIR *d) {
        static struct dirent *(*real)(DIR *);
#if defined(_FILE_OFFSET_BITS) && _FILE_OFFSET_BITS == 64 && defined(__GLIBC__)
        static const char name[] = "readdir64";
#else
        static const char name[] = "readdir";
#endif
        if (!real)
                *(void **)&real = dlsym(RTLD_NEXT, name);
        struct dirent *de = real(d);
        if (de && no_entry_types)
                de->d_type = DT_UNKNOWN;
        return de;
}

static void read_dpkg_paths(void *root) {
        int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *paths[] = {"/usr/bin/foo", "/usr/bin/bar"};
        pn_pkgdb *db = NULL;
        CHECK_INT(pn_pkgdb_dpkg_paths(rootfd, paths, 2, &db), 1);
        CHECK(db && pn_pkgdb_owner(db, "/usr/bin/foo") >= 0);
        pn_pkgdb_free(db);
        close(rootfd);
}

/* A FIFO where dpkg's database has a .list (a writer waiting on it), or
 * where a tree has a file, is not opened: opening it let the writer go,
 * and a device in its place would have been opened too. */
static void test_fifo_not_opened(void) {
        char root[] = "/tmp/test-pkgdb.XXXXXX", p[512];
        CHECK(mkdtemp(root) != NULL);
        snprintf(p, sizeof p, "mkdir -p %s/var/lib/dpkg/info", root);
        CHECK_INT(system(p), 0);
        snprintf(p, sizeof p, "%s/var/lib/dpkg/status", root);
        FILE *f = fopen(p, "w");
        CHECK(f != NULL);
        if (f) {
                fputs("Package: foo\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0\n\n"
                      "Package: bar\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.0\n",
                      f);
                fclose(f);
        }
        snprintf(p, sizeof p, "%s/var/lib/dpkg/info/foo.list", root);
        f = fopen(p, "w");
        CHECK(f != NULL);
        if (f) {
                fputs("/usr/bin/foo\n", f);
                fclose(f);
        }
        snprintf(p, sizeof p, "%s/var/lib/dpkg/info/bar.list", root);
        CHECK_INT(mkfifo(p, 0644), 0);
        CHECK(!test_fifo_opened_by(p, read_dpkg, root));
        /* The lookup of a few paths (pkgnote pid, core) reads the same
         * lists: not the FIFO either, also where the directory does not
         * tell a FIFO from a file. */
        CHECK(!test_fifo_opened_by(p, read_dpkg_paths, root));
        no_entry_types = true;
        CHECK(!test_fifo_opened_by(p, read_dpkg_paths, root));
        CHECK(!test_fifo_opened_by(p, read_dpkg, root));
        no_entry_types = false;

        struct below b = {open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), "var/lib/dpkg/info/bar.list"};
        CHECK(b.dirfd >= 0);
        CHECK(!test_fifo_opened_by(p, read_below, &b));
        close(b.dirfd);
        snprintf(p, sizeof p, "rm -rf %s", root);
        CHECK_INT(system(p), 0);
}

/* Alpine's installed database: fields, origin as the source, files under
 * their F: directory (a file before any F: in the root), licenses, and a
 * malformed paragraph left out and counted. */
static const char apk_db[] = "C:Q1x=\nP:musl\nV:1.2.4-r4\nA:x86_64\nL:MIT\no:musl\nR:rootfile\nF:lib\n"
                             "R:ld-musl-x86_64.so.1\na:0:0:755\n\n"
                             "P:alpine-baselayout-data\nV:3.4.3-r2\nA:x86_64\no:alpine-baselayout\nF:etc\nR:fstab\n\n"
                             "P:bad\nP:twice\nV:1\nA:x86_64\n\n"
                             "P:nokey\nV:1\nA:x86_64\nnot a field\n\n"
                             "P:last\nV:2-r0\nA:noarch\n";

static void test_apk(void) {
        pn_pkgdb *db = pn_pkgdb_new("apk"), *sealed = NULL;
        int r = db ? pn_pkgdb_add_apk(db, apk_db, strlen(apk_db)) : -ENOMEM;
        CHECK_INT(pn_pkgdb_seal(db, r, &sealed), 0);
        if (!sealed)
                return;
        CHECK_INT(pn_pkgdb_count(sealed), 3);
        CHECK_INT(pn_pkgdb_damaged(sealed), 2);
        const struct pn_pkg *m = pn_pkgdb_pkg(sealed, 0), *b = pn_pkgdb_pkg(sealed, 1), *l = pn_pkgdb_pkg(sealed, 2);
        CHECK_STR(m->bin_name, "musl");
        CHECK_STR(m->bin_version, "1.2.4-r4");
        CHECK_STR(m->arch, "x86_64");
        CHECK_STR(m->license, "MIT");
        CHECK_STR(b->name, "alpine-baselayout");
        CHECK_STR(b->version, "3.4.3-r2");
        CHECK(b->license == NULL);
        CHECK_STR(l->bin_name, "last");
        CHECK_INT(pn_pkgdb_owner(sealed, "/lib/ld-musl-x86_64.so.1"), 0);
        CHECK_INT(pn_pkgdb_owner(sealed, "/rootfile"), 0);
        CHECK_INT(pn_pkgdb_owner(sealed, "/etc/fstab"), 1);
        CHECK_INT(pn_pkgdb_file_count(sealed), 3);
        pn_pkgdb_free(sealed);
}

/* Every truncated prefix of the database reads without harm, never into
 * more packages than the whole has. */
static void test_apk_prefixes(void) {
        size_t n = strlen(apk_db), bad = 0;
        for (size_t k = 0; k <= n; k++) {
                char *copy = malloc(k ? k : 1);
                if (!copy)
                        return;
                memcpy(copy, apk_db, k);
                pn_pkgdb *db = pn_pkgdb_new("apk"), *sealed = NULL;
                int r = db ? pn_pkgdb_add_apk(db, copy, k) : -ENOMEM;
                if (pn_pkgdb_seal(db, r, &sealed) < 0 || pn_pkgdb_count(sealed) > 3)
                        bad++;
                pn_pkgdb_free(sealed);
                free(copy);
        }
        CHECK_INT(bad, 0);
}

/* Debian's license names as SPDX, by the copyright file's License: fields. */
/* rpm License tags: Fedora's old short names mapped where exact, SPDX
 * kept, the rest LicenseRef-; every prefix of a tag reads without harm. */
static void test_rpm_license(void) {
        static const struct {
                const char *tag, *spdx;
                int exact;
        } cases[] = {
                {"GPLv2+", "GPL-2.0-or-later", 1},
                {"MIT AND GPL-2.0-or-later", "MIT AND GPL-2.0-or-later", 1},
                {"(GPLv2+ or ASL 2.0) and BSD", "(GPL-2.0-or-later OR Apache-2.0) AND LicenseRef-BSD", 0},
                {"LGPLv2+ with exceptions", "LicenseRef-LGPLv2--with-exceptions", 0},
                {"GPL-2.0-or-later WITH Linux-syscall-note", "GPL-2.0-or-later WITH Linux-syscall-note", 1},
                {"Public Domain", "LicenseRef-Public-Domain", 0},
                {"LicenseRef-Fedora-Public-Domain", "LicenseRef-Fedora-Public-Domain", 0},
                {"MIT or", "LicenseRef-MIT-or", 0},
                {"(MIT", "LicenseRef--MIT", 0},
                {"BSD with advertising", "BSD-4-Clause", 1},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                char *x = NULL;
                CHECK_INT(pn_license_tag_spdx(cases[i].tag, &x), cases[i].exact);
                CHECK_STR(x, cases[i].spdx);
                free(x);
        }
        char *x = NULL;
        CHECK_INT(pn_license_tag_spdx("", &x), -ENODATA);
        CHECK_INT(pn_license_tag_spdx("GPL\nv2", &x), -EBADMSG);
        /* Mapped names grow: an expression over PN_LICENSE_MAX is refused
         * even when the tag is not (a fuzzer's find). */
        char *many = malloc(PN_LICENSE_MAX);
        CHECK(many != NULL);
        size_t at = 0;
        while (at + 11 < PN_LICENSE_MAX - 1)
                at += (size_t)sprintf(many + at, "%sGPLv2+", at ? " or " : "");
        CHECK_INT(pn_license_tag_spdx(many, &x), -E2BIG);
        free(many);
        CHECK(x == NULL);
        static const char tag[] = "(GPLv2+ or ASL 2.0) and BSD with advertising and LGPL-2.1-only WITH GCC-exception-3.1";
        size_t bad = 0;
        for (size_t n = 1; n < sizeof tag - 1; n++) {
                char *p = strndup(tag, n), *e = NULL;
                int r = p ? pn_license_tag_spdx(p, &e) : -ENOMEM;
                bad += r < 0 || !e || !*e;
                free(e);
                free(p);
        }
        CHECK_INT((int)bad, 0);
}

static void test_dep5(void) {
        static const char dep5[] = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
                                   "Upstream-Name: x\n\nFiles: *\nCopyright: 2020 A\nLicense: GPL-2+\n\n"
                                   "Files: lib/*\nLicense: LGPL-2.1+ or BSD-3-clause\n\n"
                                   "Files: c/*\nLicense: Expat\n\nFiles: d/*\nLicense: public-domain\n\n"
                                   "Files: e/*\nLicense: GPL-3 with OpenSSL exception\n\n"
                                   "License: GPL-2+\n Full text.\n";
        char *e = NULL;
        CHECK_INT(pn_dep5_license(dep5, strlen(dep5), &e), 1);
        CHECK_STR(e, "GPL-2.0-or-later AND (LGPL-2.1-or-later OR BSD-3-Clause) AND MIT AND LicenseRef-public-domain AND "
                     "LicenseRef-GPL-3-with-OpenSSL-exception");
        free(e);
        static const char prose[] = "This package was debianized.\nLicense: GPL-2+\n";
        e = NULL;
        CHECK_INT(pn_dep5_license(prose, strlen(prose), &e), 0);
        CHECK(e == NULL);
        static const struct {
                const char *debian, *spdx;
        } ids[] = {{"GPL-2", "GPL-2.0-only"},        {"LGPL-3+", "LGPL-3.0-or-later"}, {"Apache-2.0", "Apache-2.0"},
                   {"BSD-2-clause", "BSD-2-Clause"}, {"GFDL-1.3+", "GFDL-1.3-or-later"}, {"Foo bar", "LicenseRef-Foo-bar"},
                   {"GFDL-NIV-1.3+", "LicenseRef-GFDL-NIV-1.3-or-later"}, {"BSD-3-Clause", "BSD-3-Clause"}};
        for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
                char buf[64];
                CHECK(pn_dep5_spdx_id(ids[i].debian, strlen(ids[i].debian), buf, sizeof buf));
                CHECK_STR(buf, ids[i].spdx);
        }
        char tiny[8];
        CHECK(!pn_dep5_spdx_id("Unknown-License", 15, tiny, sizeof tiny));
        /* Every truncated prefix of the file reads without harm: no
         * license, or a non-empty expression. */
        size_t n = strlen(dep5), bad = 0;
        for (size_t k = 0; k <= n; k++) {
                char *copy = malloc(k ? k : 1);
                if (!copy)
                        return;
                memcpy(copy, dep5, k);
                e = NULL;
                int r = pn_dep5_license(copy, k, &e);
                if (r < 0 || r > 1 || (r == 1 && (!e || !*e)) || (r == 0 && e))
                        bad++;
                free(e);
                free(copy);
        }
        CHECK_INT(bad, 0);
}


/* A License: line ending in "or" or "and" (or beginning with one, or
 * with parentheses Debian's format does not have) gave "MIT OR " and
 * "(GPL-2.0-or-later AND ) AND MIT", which SBOM validators reject: such a
 * field is now one LicenseRef- of its text, and every expression is valid
 * SPDX by the independent checker (fuzz/spdx-check.h). */
static void test_dep5_dangling_operator(void) {
        static const struct {
                const char *fields, *want;
        } cases[] = {
                {"License: MIT or\n", "LicenseRef-MIT-or"},
                {"License: GPL-2+ and\n", "LicenseRef-GPL-2--and"},
                {"License: GPL-2+ and\n\nFiles: b/*\nLicense: MIT\n", "LicenseRef-GPL-2--and AND MIT"},
                {"License: (GPL-2+ and) and MIT\n", "LicenseRef--GPL-2--and--and-MIT"},
                {"License: or MIT\n", "LicenseRef-or-MIT"},
                {"License: MIT or or Expat\n", "LicenseRef-MIT-or-or-Expat"},
                {"License: MIT, or\n", "LicenseRef-MIT--or"},
                {"License: GPL-2+ or\n\nFiles: b/*\nLicense: LGPL-2+ or BSD-3-clause\n",
                 "LicenseRef-GPL-2--or AND (LGPL-2.0-or-later OR BSD-3-Clause)"},
                {"License: GPL-2+ or Artistic, and BSD-3-clause\n", "GPL-2.0-or-later OR Artistic-1.0 AND BSD-3-Clause"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                char text[512];
                snprintf(text, sizeof text,
                         "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\n%s",
                         cases[i].fields);
                char *e = NULL;
                CHECK_INT(pn_dep5_license(text, strlen(text), &e), 1);
                if (!e)
                        continue;
                CHECK_STR(e, cases[i].want);
                if (!spdx_valid(e)) {
                        fprintf(stderr, "not an SPDX expression: '%s'\n", e);
                        CHECK(spdx_valid(e));
                }
                free(e);
        }
        /* A field of operators alone names nothing, as before. */
        static const char ops[] = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                                  "Files: *\nLicense: and\n\nFiles: b/*\nLicense: or, and\n";
        char *none = NULL;
        CHECK_INT(pn_dep5_license(ops, strlen(ops), &none), 0);
        free(none);
        /* rpm tags of the same forms: one LicenseRef- of the tag. */
        static const char *const tags[] = {"MIT or", "GPLv2+ and", "(GPLv2+ and) and MIT", "and MIT", "MIT or and BSD"};
        for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
                char *e = NULL;
                CHECK_INT(pn_license_tag_spdx(tags[i], &e), 0);
                if (e && !spdx_valid(e)) {
                        fprintf(stderr, "rpm tag '%s': not an SPDX expression: '%s'\n", tags[i], e);
                        CHECK(spdx_valid(e));
                }
                free(e);
        }
        /* Every truncated prefix of a file whose License: lines end in
         * operators gives no license or a valid expression. */
        static const char dep5[] = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
                                   "Files: *\nLicense: GPL-2+ and\n\nFiles: a/*\nLicense: MIT or Expat and\n\n"
                                   "Files: b/*\nLicense: LGPL-2.1+ or BSD-3-clause\n";
        size_t n = strlen(dep5), bad = 0;
        for (size_t k = 0; k <= n; k++) {
                char *copy = malloc(k ? k : 1), *e = NULL;
                if (!copy)
                        return;
                memcpy(copy, dep5, k);
                int r = pn_dep5_license(copy, k, &e);
                if (r < 0 || (r == 1 && !spdx_valid(e))) {
                        fprintf(stderr, "prefix of %zu bytes: %d '%s'\n", k, r, e ? e : "");
                        bad++;
                }
                free(e);
                free(copy);
        }
        CHECK_INT(bad, 0);
}

int main(void) {
        /* The index of dpkg's lists is kept in a cache of the test's own. */
        if (!mkdtemp(cache_dir) || setenv("XDG_CACHE_HOME", cache_dir, 1) < 0)
                return 99;
        RUN(test_apk);
        RUN(test_apk_prefixes);
        RUN(test_dep5);
        RUN(test_dep5_dangling_operator);
        RUN(test_rpm_license);
        RUN(test_dpkg_status);
        RUN(test_dpkg_lists);
        RUN(test_rpm_package);
        RUN(test_dpkg_paths);
        RUN(test_dpkg_index_format);
        RUN(test_dpkg_index_root);
        RUN(test_dpkg_index_real);
        RUN(test_disagrees);
        RUN(test_filemap);
        RUN(test_filemap_errors);
        RUN(test_fifo_not_opened);
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
        if (system(cmd) != 0)
                return 99;
        return test_summary();
}
