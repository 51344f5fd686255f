/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ld.so.conf reader and the closure of a root (lib/check-closure.c,
 * lib/check-ldconf.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-closure.h"
#include "check-resolve.h"
#include "pkgnote.h"
#include "testlib.h"

struct seen {
        char text[4096];
};

static int record(void *u, int kind, const char *value) {
        struct seen *s = u;
        size_t l = strlen(s->text);
        snprintf(s->text + l, sizeof s->text - l, "%s%s;", kind == PN_LDCONF_DIR ? "D:" : "I:", value);
        return 0;
}

static const char conf[] = "# comment\n"
                           "include /etc/ld.so.conf.d/*.conf\n"
                           "include\ta.conf  b.conf\n"
                           "  /usr/local/lib  # trailing\n"
                           "/opt/x = libc6\n"
                           "/opt/y///\n"
                           "hwcap 1 nosegneg\n"
                           "include\n"
                           "/\n"
                           "/last";

static void test_ldconf(void) {
        struct seen s = {""};
        CHECK_INT(pn_ldconf_parse(conf, sizeof conf - 1, record, &s), 0);
        CHECK_STR(s.text, "I:/etc/ld.so.conf.d/*.conf;I:a.conf;I:b.conf;D:/usr/local/lib;D:/opt/x;D:/opt/y;D:include;D:/;D:/last;");
        /* A NUL ends its line; CR is blank. */
        static const char nul[] = "/a\0/b\n/c\r\n";
        s.text[0] = 0;
        CHECK_INT(pn_ldconf_parse(nul, sizeof nul - 1, record, &s), 0);
        CHECK_STR(s.text, "D:/a;D:/c;");
}

/* Every truncated prefix parses, giving no more than the whole. */
static size_t count_calls;
static int count(void *u, int kind, const char *value) {
        (void)u, (void)kind;
        CHECK(strlen(value) > 0);
        count_calls++;
        return 0;
}

static void test_ldconf_prefixes(void) {
        size_t whole;
        count_calls = 0;
        pn_ldconf_parse(conf, sizeof conf - 1, count, NULL);
        whole = count_calls;
        for (size_t n = 0; n < sizeof conf; n++) {
                char *copy = malloc(n ? n : 1);
                memcpy(copy, conf, n);
                count_calls = 0;
                CHECK_INT(pn_ldconf_parse(copy, n, count, NULL), 0);
                CHECK(count_calls <= whole);
                free(copy);
        }
}

/* A stop asked for by the callback ends the parse with its value. */
static int stop(void *u, int kind, const char *value) {
        (void)u, (void)kind, (void)value;
        return -ECANCELED;
}
static void test_ldconf_stop(void) {
        CHECK_INT(pn_ldconf_parse(conf, sizeof conf - 1, stop, NULL), -ECANCELED);
}

/* The closure of /bin/sh on this machine: the program first, every
 * string the accessors hand out valid while the closure lives, JSON
 * that names it; a program that is not there or not ELF fails. */
static void test_closure_api(void) {
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(NULL, &c), 0);
        CHECK_INT(pkgnote_closure_select(c, NULL, 99, 0), -EINVAL);
        CHECK_INT(pkgnote_closure_select(c, NULL, 0, 0x80), -EINVAL);
        CHECK_INT(pkgnote_closure_select(c, "zstd", PKGNOTE_DLOPEN_REQUIRED, 0), 0);
        CHECK_INT(pkgnote_closure_add(c, "/nonexistent/program"), -ENOENT);
        CHECK_INT(pkgnote_closure_add(c, "/etc/passwd"), -ENOEXEC);
        CHECK_INT(pkgnote_closure_add(c, "/etc"), -EINVAL);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 1);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 0);
        size_t n = pkgnote_closure_count(c);
        CHECK(n >= 3);
        bool have_libc = false;
        for (size_t i = 0; i < n; i++) {
                const char *p = pkgnote_closure_path(c, i);
                CHECK(p && p[0] == '/');
                if (strstr(p, "/libc.so.6") && !pkgnote_closure_target(c, i))
                        have_libc = true;
        }
        CHECK(have_libc);
        CHECK(pkgnote_closure_path(c, n) == NULL);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        CHECK(pkgnote_closure_missing(c, 0, NULL) == NULL);
        char *json;
        CHECK_INT(pkgnote_closure_to_json(c, NULL, &json), 0);
        CHECK(strstr(json, "\"kind\":\"program\"") != NULL);
        CHECK(strstr(json, "\"kind\":\"interpreter\"") != NULL);
        free(json);
        pkgnote_closure_free(c);
        pkgnote_closure_free(NULL);
        CHECK_INT(pkgnote_closure_new("/nonexistent-root", &c), -ENOENT);
}

#if defined(__x86_64__)
/* mkdir -p of PATH's parent directories. */
static void make_parents(const char *path) {
        char d[4096];
        snprintf(d, sizeof d, "%s", path);
        for (char *p = d + 1; (p = strchr(p, '/')); p++) {
                *p = '\0';
                mkdir(d, 0755);
                *p = '/';
        }
}

static void copy_file(const char *from, const char *to) {
        make_parents(to);
        int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        CHECK(in >= 0 && out >= 0);
        char buf[65536];
        for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;)
                CHECK(write(out, buf, (size_t)n) == n);
        close(in);
        close(out);
}

/* glibc-hwcaps in a system directory: a root made of /bin/sh's closure,
 * with a second libc.so.6 in glibc-hwcaps/x86-64-v3 beside the first.
 * Both are listed (the CPU that runs the root is unknown), the variant's
 * reason naming its level, the baseline's not. */
static void test_closure_hwcaps(void) {
        pkgnote_closure *host;
        CHECK_INT(pkgnote_closure_new(NULL, &host), 0);
        CHECK_INT(pkgnote_closure_add(host, "/bin/sh"), 1);
        char root[] = "/tmp/test-closure.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char libc[4096] = "", at[4096], variant[4096] = "";
        for (size_t i = 0; i < pkgnote_closure_count(host); i++) {
                const char *p = pkgnote_closure_path(host, i), *t = pkgnote_closure_target(host, i);
                snprintf(at, sizeof at, "%s%s", root, p);
                if (t) {
                        make_parents(at);
                        CHECK_INT(symlink(t, at), 0);
                        continue;
                }
                copy_file(p, at);
                const char *slash = strrchr(p, '/');
                if (!strcmp(slash, "/libc.so.6") && !*libc) {
                        snprintf(libc, sizeof libc, "%s", p);
                        snprintf(variant, sizeof variant, "%.*s/glibc-hwcaps/x86-64-v3/libc.so.6", (int)(slash - p), p);
                        snprintf(at, sizeof at, "%s%s", root, variant);
                        copy_file(p, at);
                }
        }
        pkgnote_closure_free(host);
        CHECK(*libc);
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(root, &c), 0);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 1);
        bool base = false, v3 = false;
        for (size_t i = 0; i < pkgnote_closure_count(c); i++) {
                base |= !strcmp(pkgnote_closure_path(c, i), libc);
                v3 |= !strcmp(pkgnote_closure_path(c, i), variant);
        }
        CHECK(base);
        CHECK(v3);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        CHECK_INT((int)pkgnote_closure_problem_count(c), 0);
        char *json, want[4200];
        CHECK_INT(pkgnote_closure_to_json(c, NULL, &json), 0);
        CHECK(strstr(json, "\"hwcaps\":\"x86-64-v3\"") != NULL);
        snprintf(want, sizeof want, "\"path\":\"%s\",\"type\":\"file\",\"why\":[{", variant);
        CHECK(strstr(json, want) != NULL);
        snprintf(want, sizeof want, "\"path\":\"%s\",\"type\":\"file\",\"why\":[{", libc);
        const char *b = strstr(json, want), *end = b ? strchr(b, ']') : NULL;
        CHECK(b && end);
        CHECK(b && end && !memmem(b, (size_t)(end - b), "hwcaps", 6));
        free(json);
        pkgnote_closure_free(c);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        CHECK_INT(system(cmd), 0);
}
#endif

int main(void) {
        RUN(test_ldconf);
        RUN(test_ldconf_prefixes);
        RUN(test_ldconf_stop);
        RUN(test_closure_api);
#if defined(__x86_64__)
        RUN(test_closure_hwcaps);
#endif
        return test_summary();
}
