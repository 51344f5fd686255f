/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen note validation and the dependencies made from the notes. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "pkgnote.h"

static pkgnote_dlopen *parse(const char *j) {
        pkgnote_dlopen *d = NULL;
        CHECK_INT(pkgnote_dlopen_parse(j, strlen(j), &d), 0);
        return d;
}

struct problems {
        int n;
        char last[512];
};
static void collect(void *u, int error, const char *message) {
        struct problems *p = u;
        CHECK_INT(error, -EBADMSG);
        p->n++;
        snprintf(p->last, sizeof p->last, "%s", message);
}

/* JSON must give exactly N problems, the last one containing WANT. */
static void expect_problems(const char *json, int n, const char *want) {
        pkgnote_dlopen *d = parse(json);
        if (!d)
                return;
        struct problems p = {0};
        CHECK_INT(pkgnote_dlopen_check(d, collect, &p), n);
        CHECK_INT(p.n, n);
        if (want && !strstr(p.last, want)) {
                test_failures++;
                fprintf(stderr, "%s: problem \"%s\" lacks \"%s\"\n", json, p.last, want);
        }
        pkgnote_dlopen_free(d);
}

static void test_check(void) {
        expect_problems("[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"description\":\"d\",\"priority\":\"required\"}]", 0, NULL);
        expect_problems("[{\"soname\":[\"libdb-5.3.so\"]}]", 0, NULL);
        expect_problems("[]", 1, "no entry");
        expect_problems("[{\"soname\":[]}]", 1, "is empty");
        expect_problems("[{\"soname\":[\"/usr/lib/libz.so.1\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\"libz\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\"\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\"lib z.so.1\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\".so.1\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\"libz.sox\"]}]", 1, "does not look like a soname");
        expect_problems("[{\"soname\":[\"libz.so.1\",\"libz.so.1\"]}]", 1, "listed twice");
        expect_problems("[{\"soname\":[\"libz.so.1\"],\"priority\":\"optional\"}]", 1, "priority \"optional\"");
        expect_problems("[{\"soname\":[\"libz.so.1\"],\"priority\":3}]", 1, "\"priority\" is not a string");
        expect_problems("[{\"soname\":[\"libz.so.1\"],\"feature\":[]}]", 1, "\"feature\" is not a string");
        expect_problems("[{\"soname\":[\"libz.so.1\"]},{\"soname\":[\"libz.so.1\"],\"feature\":\"again\"}]", 1,
                        "entry 1 repeats the sonames of entry 0");
        /* Reporting is optional. */
        pkgnote_dlopen *d = parse("[{\"soname\":[]}]");
        CHECK_INT(pkgnote_dlopen_check(d, NULL, NULL), 1);
        pkgnote_dlopen_free(d);
}

static void test_priority(void) {
        pkgnote_dlopen *d = parse("[{\"soname\":[\"a.so.1\"]},{\"soname\":[\"b.so.1\"],\"priority\":\"suggested\"},"
                                  "{\"soname\":[\"c.so.1\"],\"priority\":\"required\"},{\"soname\":[\"d.so.1\"],\"priority\":\"maybe\"}]");
        CHECK_INT(pkgnote_dlopen_priority(d, 0), PKGNOTE_DLOPEN_RECOMMENDED); /* the spec's default */
        CHECK_INT(pkgnote_dlopen_priority(d, 1), PKGNOTE_DLOPEN_SUGGESTED);
        CHECK_INT(pkgnote_dlopen_priority(d, 2), PKGNOTE_DLOPEN_REQUIRED);
        CHECK_INT(pkgnote_dlopen_priority(d, 3), -EBADMSG);
        CHECK_STR(pkgnote_dlopen_priority_name(PKGNOTE_DLOPEN_REQUIRED), "required");
        CHECK(pkgnote_dlopen_priority_name(0) == NULL);
        CHECK(pkgnote_dlopen_priority_name(4) == NULL);
        pkgnote_dlopen_free(d);
}

static char *format(const pkgnote_deps *d, int f) {
        char *s = NULL;
        CHECK_INT(pkgnote_deps_format(d, f, &s), 0);
        return s;
}

static void test_merge_rpm(void) {
        pkgnote_deps *d;
        CHECK_INT(pkgnote_deps_new(&d), 0);
        pkgnote_dlopen *a = parse("[{\"feature\":\"z\",\"priority\":\"suggested\",\"soname\":[\"libz.so.1\"]},"
                                  "{\"feature\":\"lz4\",\"soname\":[\"liblz4.so.1\",\"liblz4.so.2\"]}]");
        pkgnote_dlopen *b = parse("[{\"feature\":\"zlib\",\"priority\":\"required\",\"soname\":[\"libz.so.1\"]},"
                                  "{\"soname\":[\"liblz4.so.2\",\"liblz4.so.1\"],\"priority\":\"suggested\"}]");
        CHECK_INT(pkgnote_deps_add(d, "a", 64, EM_X86_64, 0, a), 0);
        CHECK_INT(pkgnote_deps_add(d, "b", 64, EM_X86_64, 0, b), 0);
        /* The same list, merged with the strongest priority; the same
         * sonames in another order are another preference, kept apart. */
        CHECK_INT(pkgnote_deps_count(d), 3);
        char *s = format(d, PKGNOTE_DEPS_RPM);
        CHECK_STR(s, "Requires: libz.so.1()(64bit)\n"
                     "Recommends: (liblz4.so.1()(64bit) or liblz4.so.2()(64bit))\n"
                     "Suggests: (liblz4.so.2()(64bit) or liblz4.so.1()(64bit))\n");
        free(s);
        CHECK_INT(pkgnote_deps_priority(d, 0), PKGNOTE_DLOPEN_REQUIRED);
        CHECK_STR(pkgnote_deps_sonames(d, 1), "liblz4.so.1 or liblz4.so.2");
        CHECK_INT(pkgnote_deps_resolved(d, 0), -ENODATA);
        s = format(d, PKGNOTE_DEPS_JSON);
        CHECK(s && strstr(s, "{\"priority\":\"required\",\"soname\":[\"libz.so.1\"],\"features\":[\"z\",\"zlib\"],"
                             "\"files\":[\"a\",\"b\"],\"rpm\":\"libz.so.1()(64bit)\",\"deb\":null}"));
        free(s);
        /* deb needs the database. */
        s = NULL;
        CHECK_INT(pkgnote_deps_format(d, PKGNOTE_DEPS_DEB, &s), -EINVAL);
        CHECK(s == NULL);
        CHECK_INT(pkgnote_deps_format(d, 9, &s), -EINVAL);
        pkgnote_deps_free(d);

        /* rpm's ABI marker: 64-bit but Alpha; none for 32-bit. */
        CHECK_INT(pkgnote_deps_new(&d), 0);
        CHECK_INT(pkgnote_deps_add(d, "x", 32, EM_386, 0, a), 0);
        CHECK_INT(pkgnote_deps_add(d, "y", 64, EM_S390, 1, a), 0);
        CHECK_INT(pkgnote_deps_add(d, "z", 64, EM_ALPHA, 0, a), 0);
        s = format(d, PKGNOTE_DEPS_RPM);
        CHECK_STR(s, "Recommends: (liblz4.so.1 or liblz4.so.2)\n"
                     "Recommends: (liblz4.so.1()(64bit) or liblz4.so.2()(64bit))\n"
                     "Suggests: libz.so.1\n"
                     "Suggests: libz.so.1()(64bit)\n");
        free(s);
        pkgnote_deps_free(d);

        /* All or nothing: a note with an unusable entry adds nothing. */
        pkgnote_dlopen *bad = parse("[{\"soname\":[\"libok.so.1\"]},{\"soname\":[\"libz.so.1\"],\"priority\":\"sometimes\"}]");
        CHECK_INT(pkgnote_deps_new(&d), 0);
        CHECK_INT(pkgnote_deps_add(d, "bad", 64, EM_X86_64, 0, bad), -EBADMSG);
        CHECK_INT(pkgnote_deps_count(d), 0);
        pkgnote_dlopen_free(bad);
        bad = parse("[{\"soname\":[]}]");
        CHECK_INT(pkgnote_deps_add(d, "bad", 64, EM_X86_64, 0, bad), -EBADMSG);
        pkgnote_dlopen_free(bad);
        pkgnote_deps_free(d);
        pkgnote_deps_free(NULL);
        pkgnote_dlopen_free(a);
        pkgnote_dlopen_free(b);
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

struct resolve {
        pkgnote_deps *d;
        const char *root;
};

static void resolve_dpkg(void *u) {
        struct resolve *r = u;
        CHECK_INT(pkgnote_deps_resolve_dpkg(r->d, r->root), 3);
}

static void test_dpkg(void) {
        char root[] = "/tmp/test-deps.XXXXXX", path[512];
        CHECK(mkdtemp(root) != NULL);
        snprintf(path, sizeof path, "mkdir -p %s/var/lib/dpkg/info", root);
        CHECK_INT(system(path), 0);
#define LIST(name, text) (snprintf(path, sizeof path, "%s/var/lib/dpkg/info/" name, root), write_file(path, text))
        LIST("libfoo1:amd64.list", "/.\n/usr\n/usr/lib\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libfoo.so.1\n");
        LIST("libfoo1:i386.list", "/usr/lib/i386-linux-gnu/libfoo.so.1\n");
        LIST("libfoo-dev:amd64.list", "/usr/lib/x86_64-linux-gnu/libfoo.so\n");
        LIST("foo-plugins.list", "/usr/lib/foo/libfoo.so.1\n/usr/share/doc/libbar.so.2\n");
        LIST("libbar2.list", "/lib/libbar.so.2\n");
        LIST("libbaz0.list", "/usr/lib/x86_64-linux-gnu/libbaz.so.0\n");
        LIST("libbaz-alt.list", "/lib/x86_64-linux-gnu/libbaz.so.0\n");
        LIST("notalist.txt", "/usr/lib/x86_64-linux-gnu/libnone.so.9\n");
        pkgnote_dlopen *n = parse("[{\"priority\":\"required\",\"soname\":[\"libfoo.so.1\"]},"
                                  "{\"soname\":[\"libnone.so.9\",\"libbar.so.2\"]},"
                                  "{\"priority\":\"suggested\",\"soname\":[\"libbaz.so.0\"]},"
                                  "{\"priority\":\"suggested\",\"soname\":[\"libnone.so.9\"]}]");
        pkgnote_deps *d;
        CHECK_INT(pkgnote_deps_new(&d), 0);
        CHECK_INT(pkgnote_deps_add(d, "p64", 64, EM_X86_64, 0, n), 0);
        CHECK_INT(pkgnote_deps_add(d, "p32", 32, EM_386, 0, n), 0);
        /* libnone.so.9 (both ABIs) and 32-bit libbaz.so.0 have no package.
         * deps_fifo_list_not_opened: a FIFO among the lists is not opened
         * (a writer waiting on it stays blocked). */
        snprintf(path, sizeof path, "%s/var/lib/dpkg/info/fifo.list", root);
        CHECK_INT(mkfifo(path, 0644), 0);
        struct resolve res = {d, root};
        CHECK(!test_fifo_opened_by(path, resolve_dpkg, &res));
        unlink(path);
        char *s = format(d, PKGNOTE_DEPS_DEB);
        CHECK_STR(s, "dlopen:Depends=libfoo1\n"
                     "dlopen:Recommends=libbar2\n"
                     "dlopen:Suggests=libbaz-alt | libbaz0\n"); /* sorted, whatever the directory order */
        free(s);
        CHECK_INT(pkgnote_deps_resolved(d, 0), 1);
        pkgnote_deps_free(d);

        /* A database reached through a symlink out of the root is not read:
         * the link resolves inside the root. */
        snprintf(path, sizeof path, "rm -rf %s/var && ln -s /var %s/var", root, root);
        CHECK_INT(system(path), 0);
        CHECK_INT(pkgnote_deps_new(&d), 0);
        CHECK_INT(pkgnote_deps_add(d, "p64", 64, EM_X86_64, 0, n), 0);
        CHECK(pkgnote_deps_resolve_dpkg(d, root) < 0);
        CHECK(strstr(pkgnote_last_error(), "no dpkg database") != NULL);
        pkgnote_deps_free(d);
        pkgnote_dlopen_free(n);
        snprintf(path, sizeof path, "rm -rf %s", root);
        CHECK_INT(system(path), 0);
}

int main(void) {
        RUN(test_check);
        RUN(test_priority);
        RUN(test_merge_rpm);
        RUN(test_dpkg);
        return test_summary();
}
