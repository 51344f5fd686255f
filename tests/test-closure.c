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

int main(void) {
        RUN(test_ldconf);
        RUN(test_ldconf_prefixes);
        RUN(test_ldconf_stop);
        RUN(test_closure_api);
        return test_summary();
}
