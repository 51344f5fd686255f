/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public API the pkgnote command is built on, through include/pkgnote.h
 * (and shared/fileio.h to read files back): package-database owners, metadata maps,
 * stamping trees and files resolved inside a root, the crash store's
 * writer side, and the size field of caller-allocated results; each with
 * empty and hostile inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "pkgnote.h"
#include "testlib.h"

static char dir[] = "/tmp/pkgnote-public.XXXXXX";

static void put(const char *rel, const char *text) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, rel);
        FILE *f = fopen(p, "w");
        CHECK(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

static void mkdirs(const char *rel) {
        char p[4096], *s;
        snprintf(p, sizeof p, "%s/%s", dir, rel);
        for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                mkdir(p, 0755);
                *s = '/';
        }
        mkdir(p, 0755);
}

/* ------------------------------------------------------------ pkgdb */

static const char status[] = "Package: libfoo1\n"
                             "Status: install ok installed\n"
                             "Architecture: amd64\n"
                             "Source: foo (1.2-3)\n"
                             "Version: 1.2-3+b1\n"
                             "\n"
                             "Package: sh\n"
                             "Status: install ok installed\n"
                             "Architecture: amd64\n"
                             "Source: dash\n"
                             "Version: 0.5.12-2\n"
                             "\n"
                             "Package: evil\x1b]0;x\x07\n"
                             "Status: install ok installed\n"
                             "Architecture: amd64\n"
                             "Version: 1\n";

static void test_pkgdb(void) {
        char root[4096];
        snprintf(root, sizeof root, "%s/root", dir);
        mkdirs("root/var/lib/dpkg/info");
        put("root/var/lib/dpkg/status", status);
        put("root/var/lib/dpkg/info/libfoo1:amd64.list", "/.\n/usr/lib/libfoo.so.1\n");
        put("root/var/lib/dpkg/info/sh.list", "/bin/sh\n");
        pkgnote_pkgdb *db = NULL;
        const char *where = "unset";
        CHECK_INT(pkgnote_pkgdb_open(root, "deb", &where, &db), 1);
        CHECK_STR(where, "var/lib/dpkg/status");
        if (!db)
                return;
        CHECK_STR(pkgnote_pkgdb_type(db), "deb");
        CHECK_INT(pkgnote_pkgdb_damaged(db), 0);
        size_t n = pkgnote_pkgdb_count(db), i = 99;
        CHECK(n >= 2);
        CHECK_INT(pkgnote_pkgdb_owner(db, "/usr/lib/libfoo.so.1", &i), 1);
        pkgnote_db_package p = {.size = sizeof p};
        CHECK_INT(pkgnote_pkgdb_package(db, i, &p), 1);
        CHECK_STR(p.name, "foo");
        CHECK_STR(p.version, "1.2-3");
        CHECK_STR(p.architecture, "amd64");
        CHECK_STR(p.binary, "libfoo1:amd64");
        CHECK_STR(p.binary_name, "libfoo1");
        CHECK_STR(p.binary_version, "1.2-3+b1");
        /* merged /usr: /bin/sh is listed, /usr/bin/sh is the same file. */
        CHECK_INT(pkgnote_pkgdb_owner(db, "/usr/bin/sh", &i), 1);
        CHECK_INT(pkgnote_pkgdb_package(db, i, &p), 1);
        CHECK_STR(p.name, "dash");
        /* Not owned, not absolute, past the end, no size. */
        i = 77;
        CHECK_INT(pkgnote_pkgdb_owner(db, "/etc/passwd", &i), 0);
        CHECK_INT(i, 77);
        CHECK_INT(pkgnote_pkgdb_owner(db, "usr/bin/sh", &i), -EINVAL);
        CHECK_INT(pkgnote_pkgdb_owner(db, "", &i), -EINVAL);
        CHECK_INT(pkgnote_pkgdb_package(db, n, &p), 0);
        pkgnote_db_package unsized = {0};
        CHECK_INT(pkgnote_pkgdb_package(db, 0, &unsized), -EINVAL);
        /* A struct shorter than 1.0's is refused, nothing written: the
         * library never writes part of a field. */
        pkgnote_db_package old;
        const size_t old_size = offsetof(pkgnote_db_package, binary);
        test_short_struct(&old, sizeof old, old_size);
        CHECK_INT(pkgnote_pkgdb_package(db, 0, &old), -EINVAL);
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        /* A package name with control characters is given as the
         * database has it (the caller escapes it to show it); one that
         * spans lines ends at the line. */
        bool evil = false;
        for (size_t k = 0; k < n; k++)
                evil |= pkgnote_pkgdb_package(db, k, &p) == 1 && !strcmp(p.binary_name, "evil\x1b]0;x\x07");
        CHECK(evil);
        pkgnote_pkgdb_free(db);
        pkgnote_pkgdb_free(NULL);
        CHECK_INT(pkgnote_pkgdb_count(NULL), 0);
        CHECK(pkgnote_pkgdb_type(NULL) == NULL);

        /* No rpm database: 0, and WHERE still says where it was sought. */
        where = NULL;
        db = NULL;
        CHECK_INT(pkgnote_pkgdb_open(root, "rpm", &where, &db), 0);
        CHECK(db == NULL && where && *where);
        CHECK_INT(pkgnote_pkgdb_open(root, "pacman", &where, &db), -EINVAL);
        CHECK_INT(pkgnote_pkgdb_open(root, NULL, &where, &db), -EINVAL);
        /* An empty root has no dpkg database. */
        mkdirs("empty");
        char empty[4096];
        snprintf(empty, sizeof empty, "%s/empty", dir);
        CHECK(pkgnote_pkgdb_open(empty, "deb", NULL, &db) < 0 && db == NULL);
        /* The status file a symbolic link out of the root: resolved
         * inside it (where nothing is), never the host's file. */
        mkdirs("evilroot/var/lib/dpkg/info");
        char link[4096];
        snprintf(link, sizeof link, "%s/evilroot/var/lib/dpkg/status", dir);
        CHECK_INT(symlink("/var/lib/dpkg/status", link), 0);
        snprintf(link, sizeof link, "%s/evilroot", dir);
        int r = pkgnote_pkgdb_open(link, "deb", NULL, &db);
        CHECK(r < 0);
        if (r > 0)
                pkgnote_pkgdb_free(db);
        /* An empty status file: a database without packages. */
        mkdirs("bare/var/lib/dpkg/info");
        put("bare/var/lib/dpkg/status", "");
        snprintf(link, sizeof link, "%s/bare", dir);
        CHECK_INT(pkgnote_pkgdb_open(link, "deb", NULL, &db), 1);
        CHECK_INT(pkgnote_pkgdb_count(db), 0);
        CHECK_INT(pkgnote_pkgdb_owner(db, "/bin/sh", &i), 0);
        pkgnote_pkgdb_free(db);
}

/* ------------------------------------------------------------ filemap */

static void test_filemap(void) {
        static const char text[] = "# a comment\n"
                                   "\n"
                                   "./usr/bin/b\t{\"name\":\"b\"}\n"
                                   "/usr/bin/a\t{\"name\":\"a\"}\n"
                                   "usr/lib/c.so\t{\"name\":\"c\"}\n";
        pkgnote_filemap *m = NULL;
        CHECK_INT(pkgnote_filemap_parse(text, sizeof text - 1, "map", &m), 1);
        if (!m)
                return;
        CHECK_INT(pkgnote_filemap_count(m), 3);
        /* In byte order of the tree paths. */
        CHECK_STR(pkgnote_filemap_path(m, 0), "usr/bin/a");
        CHECK_STR(pkgnote_filemap_path(m, 1), "usr/bin/b");
        CHECK_STR(pkgnote_filemap_document(m, 1), "{\"name\":\"b\"}");
        CHECK(pkgnote_filemap_path(m, 3) == NULL && pkgnote_filemap_document(m, 3) == NULL);
        size_t i = 9;
        CHECK_INT(pkgnote_filemap_find(m, "./usr/lib/c.so", &i), 1);
        CHECK_INT(i, 2);
        CHECK_INT(pkgnote_filemap_find(m, "/usr/bin/b", &i), 1);
        CHECK_INT(i, 1);
        CHECK_INT(pkgnote_filemap_find(m, "usr/bin", &i), 0);
        CHECK_INT(pkgnote_filemap_find(m, "", &i), 0);
        CHECK_INT(pkgnote_filemap_find(m, NULL, &i), -EINVAL);
        pkgnote_filemap_free(m);
        pkgnote_filemap_free(NULL);
        CHECK_STR(pkgnote_filemap_tree_path("././/a/b"), "a/b");
        CHECK_STR(pkgnote_filemap_tree_path(""), "");
        CHECK(pkgnote_filemap_tree_path(NULL) == NULL);

        /* Empty: a map without entries. */
        CHECK_INT(pkgnote_filemap_parse("", 0, "map", &m), 1);
        CHECK_INT(pkgnote_filemap_count(m), 0);
        CHECK_INT(pkgnote_filemap_find(m, "a", &i), 0);
        pkgnote_filemap_free(m);
        CHECK_INT(pkgnote_filemap_parse(NULL, 0, NULL, &m), 1);
        pkgnote_filemap_free(m);
        /* Hostile: no TAB, a path naming no file, a path twice, NULL text. */
        m = NULL;
        CHECK_INT(pkgnote_filemap_parse("usr/bin/a {}\n", 13, "map", &m), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "map:1") != NULL);
        CHECK_INT(pkgnote_filemap_parse("./\t{}\n", 6, "map", &m), -EINVAL);
        CHECK_INT(pkgnote_filemap_parse("a\t{}\n./a\t{}\n", 12, "map", &m), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "listed twice") != NULL);
        CHECK_INT(pkgnote_filemap_parse(NULL, 3, "map", &m), -EINVAL);
        CHECK(m == NULL);
}

/* ------------------------------------------------------------ stamping */

static int copy_self(const char *rel) {
        size_t len = 0;
        char *self = NULL, p[4096];
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || pn_read_all(fd, 64u << 20, &self, &len) < 0)
                return -1;
        close(fd);
        snprintf(p, sizeof p, "%s/%s", dir, rel);
        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        int r = fd < 0 ? -1 : pn_write_full(fd, self, len);
        if (fd >= 0)
                close(fd);
        free(self);
        return r;
}

/* The name of the first package note of PATH into BUF, or "" without
 * one; NULL when PATH cannot be read. */
static const char *note_name(const char *path, char *buf, size_t len) {
        pkgnote_object *e;
        pkgnote_info *info = NULL;
        if (pkgnote_object_open(path, &e) < 0)
                return NULL;
        int r = pkgnote_info_read(e, &info);
        const char *name = r >= 0 && pkgnote_info_package_count(info) ? pkgnote_metadata_name(pkgnote_info_package(info, 0))
                                                                      : "";
        snprintf(buf, len, "%s", name ? name : "");
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return r < 0 ? NULL : buf;
}

struct seen {
        unsigned stamped, skipped, failed;
        size_t result_size;
};

static void on_file(const pkgnote_stamp_tree_file *f, void *userdata) {
        struct seen *s = userdata;
        CHECK(f->size >= sizeof *f && f->path != NULL);
        if (f->skipped)
                s->skipped++;
        else if (f->error < 0)
                s->failed++;
        else {
                s->stamped++;
                s->result_size = f->results ? f->results[0].size : 0;
                CHECK(f->results && f->results[0].placement != PKGNOTE_PLACE_NONE);
        }
}

static const char *json_for(const char *rel, const char **skip, int *err, void *userdata) {
        (void)userdata;
        *err = 0;
        if (strstr(rel, "skip")) {
                *skip = "named skip";
                return NULL;
        }
        return "{\"type\":\"deb\",\"name\":\"t\",\"version\":\"1\"}";
}

static void test_stamp_tree(void) {
        mkdirs("tree/bin");
        if (copy_self("tree/bin/prog") < 0 || copy_self("tree/bin/skipme") < 0) {
                CHECK(!"cannot copy the test program");
                return;
        }
        put("tree/bin/text", "not ELF\n");
        char tree[4096];
        snprintf(tree, sizeof tree, "%s/tree", dir);
        /* JSON_FN gives each file the package note in place of this one. */
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, "{\"type\":\"deb\",\"name\":\"default\"}");
        struct seen s = {0};
        CHECK_INT(pkgnote_stamp_tree(tree, &spec, 1, json_for, NULL, 0, on_file, &s), 0);
        CHECK_INT(s.stamped, 1);
        CHECK(s.skipped >= 1);
        CHECK_INT(s.failed, 0);
        CHECK_INT(s.result_size, sizeof(pkgnote_stamp_result));
        snprintf(tree, sizeof tree, "%s/tree/bin/prog", dir);
        char name[64];
        CHECK_STR(note_name(tree, name, sizeof name), "t");
        snprintf(tree, sizeof tree, "%s/tree/bin/skipme", dir);
        CHECK_STR(note_name(tree, name, sizeof name), "");
        /* Not a directory, missing, no callback, internal flags. */
        CHECK_INT(pkgnote_stamp_tree(tree, &spec, 1, json_for, NULL, 0, on_file, &s), -ENOTDIR);
        snprintf(tree, sizeof tree, "%s/none", dir);
        CHECK(pkgnote_stamp_tree(tree, &spec, 1, json_for, NULL, 0, on_file, &s) < 0);
        CHECK_INT(pkgnote_stamp_tree(dir, &spec, 1, json_for, NULL, 0, NULL, &s), -EINVAL);
        CHECK_INT(pkgnote_stamp_tree(dir, &spec, 1, json_for, NULL, 1u << 16, on_file, &s), -EINVAL);
        CHECK_INT(pkgnote_stamp_tree(dir, NULL, 0, json_for, NULL, 0, on_file, &s), -EINVAL);
}

static const char *prog_path(char *buf, size_t len) {
        snprintf(buf, len, "%s/sysroot/usr/bin/prog", dir);
        return buf;
}

static void test_root_file(void) {
        mkdirs("sysroot/usr/bin");
        if (copy_self("sysroot/usr/bin/prog") < 0)
                return;
        char p[4096];
        snprintf(p, sizeof p, "%s/sysroot/bin", dir);
        CHECK_INT(symlink("usr/bin", p), 0);
        snprintf(p, sizeof p, "%s/sysroot/usr/bin/out", dir);
        CHECK_INT(symlink("/../../../../etc/passwd", p), 0);
        snprintf(p, sizeof p, "%s/sysroot", dir);
        int rootfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        pkgnote_root_file *f = NULL;
        /* An absolute link inside the root resolves inside it. */
        CHECK_INT(pkgnote_root_file_resolve(rootfd, "/bin/prog", &f), 1);
        CHECK_STR(pkgnote_root_file_path(f), "usr/bin/prog");
        /* A link climbing out stays in: /etc/passwd of the root, absent. */
        pkgnote_root_file *g = NULL;
        CHECK(pkgnote_root_file_resolve(rootfd, "usr/bin/out", &g) < 0 && g == NULL);
        CHECK(pkgnote_root_file_resolve(rootfd, "usr/bin", &g) < 0 && g == NULL);
        CHECK_INT(pkgnote_root_file_resolve(rootfd, "", &g), -EINVAL);
        CHECK_INT(pkgnote_root_file_resolve(-1, "x", &g), -EINVAL);
        /* Stamped into a new file: the file in the root is only read. */
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, "{\"type\":\"deb\",\"name\":\"r\",\"version\":\"2\"}");
        pkgnote_stamp_result r[2] = {{.size = sizeof r[0]}, {.size = sizeof r[0]}};
        char out[4096];
        snprintf(out, sizeof out, "%s/stamped", dir);
        CHECK_INT(pkgnote_stamp_root_file(f, out, &spec, 1, 0, r), 0);
        CHECK(r[0].placement != PKGNOTE_PLACE_NONE && r[0].result_size > 0);
        CHECK_INT(r[0].size, sizeof r[0]);
        char name[64];
        CHECK_STR(note_name(out, name, sizeof name), "r");
        CHECK_STR(note_name(prog_path(p, sizeof p), name, sizeof name), "");
        /* A result without its size is refused before anything is done. */
        pkgnote_stamp_result unsized = {0};
        CHECK_INT(pkgnote_stamp_root_file(f, out, &spec, 1, 0, &unsized), -EINVAL);
        /* Replaced by another file since it was resolved: refused. */
        snprintf(p, sizeof p, "%s/sysroot/usr/bin/prog2", dir);
        CHECK(copy_self("sysroot/usr/bin/prog2") == 0);
        char prog[4096];
        snprintf(prog, sizeof prog, "%s/sysroot/usr/bin/prog", dir);
        CHECK_INT(rename(p, prog), 0);
        CHECK_INT(pkgnote_stamp_root_file(f, NULL, &spec, 1, 0, r), -ESTALE);
        CHECK_INT(pkgnote_stamp_root_file(NULL, NULL, &spec, 1, 0, r), -EINVAL);
        pkgnote_root_file_free(f);
        pkgnote_root_file_free(NULL);
        CHECK(pkgnote_root_file_path(NULL) == NULL);
        close(rootfd);
}

/* Results of a struct of another size: the first element's size is the
 * stride; the library writes only within it. */
static void test_stamp_result_size(void) {
        size_t len = 0;
        char *self = NULL;
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || pn_read_all(fd, 64u << 20, &self, &len) < 0)
                return;
        close(fd);
        const char *json = "{\"type\":\"deb\",\"name\":\"s\",\"version\":\"3\"}";
        uint8_t *out = NULL;
        size_t out_len = 0;
        pkgnote_stamp_result unsized = {0};
        CHECK_INT(pkgnote_stamp_memory(self, len, json, 0, &out, &out_len, &unsized), -EINVAL);
        CHECK(out == NULL);
        /* A newer caller's struct, 16 bytes longer: two of them. */
        struct newer {
                pkgnote_stamp_result r;
                unsigned char future[16];
        } two[2];
        memset(two, 0xa5, sizeof two);
        two[0].r.size = sizeof two[0];
        pkgnote_note_spec specs[2] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json),
                                      PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, "[{\"feature\":\"f\",\"soname\":[\"libf.so.1\"]}]")};
        CHECK_INT(pkgnote_stamp_notes_memory(self, len, specs, 2, 0, &out, &out_len, &two[0].r), 0);
        CHECK_INT(two[0].r.size, sizeof two[0]);
        CHECK_INT(two[1].r.size, sizeof two[0]);
        CHECK_INT(two[0].r.result_size, out_len);
        CHECK_INT(two[1].r.result_size, out_len);
        CHECK(two[1].r.placement != PKGNOTE_PLACE_NONE);
        CHECK_INT(two[0].future[0], 0xa5);
        CHECK_INT(two[1].future[15], 0xa5);
        free(out);
        /* One shorter than 1.0's is refused before any work, and nothing
         * of it is written; nor is it read back. */
        pkgnote_stamp_result old;
        const size_t old_size = offsetof(pkgnote_stamp_result, note_offset);
        test_short_struct(&old, sizeof old, old_size);
        out = NULL;
        CHECK_INT(pkgnote_stamp_memory(self, len, json, 0, &out, &out_len, &old), -EINVAL);
        CHECK(out == NULL);
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        char *j = NULL;
        CHECK_INT(pkgnote_stamp_result_to_json(&old, "p", NULL, &j), -EINVAL);
        CHECK(j == NULL);
        free(out);
        free(self);
}

/* ------------------------------------------------------------ crash store */

static void test_crash_writer(void) {
        char name[128];
        /* The command name reduced to [A-Za-z0-9_-], and cut. */
        CHECK(pkgnote_crash_entry_name(name, sizeof name, "../..\n\x1b[x y", 1000, 42, 1700000000) > 0);
        CHECK_STR(name, "core.________x_y.1000.42.1700000000");
        CHECK(pkgnote_crash_entry_name(name, sizeof name, "", -1, -1, -1) > 0);
        CHECK_STR(name, "core._.-1.-1.-1");
        char longcomm[300];
        memset(longcomm, 'a', sizeof longcomm - 1);
        longcomm[sizeof longcomm - 1] = 0;
        int n = pkgnote_crash_entry_name(name, sizeof name, longcomm, 0, 1, 2);
        CHECK_INT(n, (int)strlen(name));
        CHECK_INT(n, 5 + 31 + 6);
        CHECK_INT(pkgnote_crash_entry_name(name, 10, "prog", 0, 1, 2), -ENAMETOOLONG);
        CHECK_STR(name, "");
        CHECK_INT(pkgnote_crash_entry_name(name, sizeof name, NULL, 0, 1, 2), -EINVAL);
        /* The store's directory: the override, else the environment. */
        CHECK_STR(pkgnote_crash_store_dir("/x"), "/x");
        setenv("PKGNOTE_COREDUMP_DIR", "/from/env", 1);
        CHECK_STR(pkgnote_crash_store_dir(NULL), "/from/env");
        unsetenv("PKGNOTE_COREDUMP_DIR");
        CHECK_STR(pkgnote_crash_store_dir(NULL), PKGNOTE_CRASH_DEFAULT_DIR);
        const char *suffix = pkgnote_crash_core_suffix();
        CHECK(suffix && (!strcmp(suffix, ".zst") || !*suffix));
        char *report = (char *)"unset";
        CHECK_INT(pkgnote_crash_report(NULL, NULL, 0, "h", "/c", &report), -EINVAL);
        CHECK_STR(report, "unset");

        /* Vacuum: the oldest whole entries go, never KEEP. */
        mkdirs("store");
        char store[4096], e[256];
        snprintf(store, sizeof store, "%s/store", dir);
        int dfd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK_INT(pkgnote_crash_store_vacuum(dfd, 0, NULL, SIZE_MAX), 0);
        const char *entries[] = {"core.a.0.1.100", "core.b.0.2.200", "core.c.0.3.300"};
        for (size_t k = 0; k < 3; k++) {
                snprintf(e, sizeof e, "store/%s%s", entries[k], suffix);
                put(e, "core bytes");
                snprintf(e, sizeof e, "store/%s%s", entries[k], PKGNOTE_CRASH_REPORT_SUFFIX);
                put(e, "{}\n");
        }
        CHECK_INT(pkgnote_crash_store_vacuum(dfd, 0, entries[0], 1), 1);
        snprintf(e, sizeof e, "%s%s", entries[0], PKGNOTE_CRASH_REPORT_SUFFIX);
        CHECK_INT(faccessat(dfd, e, F_OK, 0), 0);
        snprintf(e, sizeof e, "%s%s", entries[1], PKGNOTE_CRASH_REPORT_SUFFIX);
        CHECK(faccessat(dfd, e, F_OK, 0) < 0);
        CHECK_INT(pkgnote_crash_store_vacuum(dfd, 0, NULL, SIZE_MAX), 2);
        CHECK_INT(pkgnote_crash_store_vacuum(-1, 0, NULL, 1), -EINVAL);
        close(dfd);
}

/* The SBOM of a running process keeps copies: the core is freed before
 * the document is written (under ASan, a kept pointer into it fails). */
static void test_process_sbom(void) {
        pkgnote_process_sbom *b;
        CHECK_INT(pkgnote_process_sbom_new(&b), 0);
        CHECK_INT(pkgnote_process_sbom_add(b, NULL), -EINVAL);
        pkgnote_core *c;
        CHECK_INT(pkgnote_process_open(getpid(), &c), 0);
        CHECK_INT(pkgnote_process_sbom_add(b, c), 0);
        pkgnote_core_free(c);
        char *doc = NULL, want[64];
        CHECK_INT(pkgnote_process_sbom_write(b, 99, NULL, &doc), -EINVAL);
        /* The CycloneDX versions of pkgnote_sbom_write(): 1.6 unless 1.5
         * or 1.7 is asked for (PKGNOTE_SBOM_CYCLONEDX stays 1.6). */
        static const struct {
                int format;
                const char *version;
        } cdx[] = {
                {PKGNOTE_SBOM_CYCLONEDX, "\"specVersion\": \"1.6\""},
                {PKGNOTE_SBOM_CYCLONEDX_1_6, "\"specVersion\": \"1.6\""},
                {PKGNOTE_SBOM_CYCLONEDX_1_5, "\"specVersion\": \"1.5\""},
                {PKGNOTE_SBOM_CYCLONEDX_1_7, "\"specVersion\": \"1.7\""},
        };
        snprintf(want, sizeof want, "\"pkgnote-process-%d\"", (int)getpid());
        for (size_t i = 0; i < sizeof cdx / sizeof *cdx; i++) {
                CHECK_INT(pkgnote_process_sbom_write(b, cdx[i].format, NULL, &doc), 0);
                CHECK(doc && strstr(doc, want) && strstr(doc, cdx[i].version));
                free(doc);
                doc = NULL;
        }
        pkgnote_sbom_options o = PKGNOTE_SBOM_OPTIONS_INIT;
        o.created = 0;
        o.reproducible = 1;
        CHECK_INT(pkgnote_process_sbom_write(b, PKGNOTE_SBOM_SPDX, &o, &doc), 0);
        snprintf(want, sizeof want, "\"SPDXRef-Process-%d\"", (int)getpid());
        CHECK(doc && strstr(doc, want) && strstr(doc, "\"created\": \"1970-01-01T00:00:00Z\""));
        free(doc);
        /* SPDX 3.0.1: the process an element below the document's
         * namespace, reproducible. */
        char *doc2 = NULL;
        CHECK_INT(pkgnote_process_sbom_write(b, PKGNOTE_SBOM_SPDX_3, &o, &doc), 0);
        CHECK_INT(pkgnote_process_sbom_write(b, PKGNOTE_SBOM_SPDX_3, &o, &doc2), 0);
        snprintf(want, sizeof want, "#SPDXRef-Process-%d\"", (int)getpid());
        CHECK(doc && strstr(doc, want) && strstr(doc, "\"@context\": \"https://spdx.org/rdf/3.0.1/spdx-context.jsonld\"") &&
              strstr(doc, "\"specVersion\": \"3.0.1\"") && strstr(doc, "\"created\": \"1970-01-01T00:00:00Z\""));
        CHECK(doc && doc2 && !strcmp(doc, doc2));
        free(doc), free(doc2);
        pkgnote_process_sbom_free(b);
        pkgnote_process_sbom_free(NULL);
}

int main(void) {
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 99;
        }
        RUN(test_pkgdb);
        RUN(test_filemap);
        RUN(test_stamp_tree);
        RUN(test_root_file);
        RUN(test_stamp_result_size);
        RUN(test_crash_writer);
        RUN(test_process_sbom);
        char cmd[sizeof dir + 16];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        return test_summary();
}
