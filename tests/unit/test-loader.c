/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The loader of optional libraries (lib/01-base-loader.c) over test tables: a
 * library that is not installed, one that lacks a symbol, sonames tried
 * in order, a symbol whose field is named otherwise, and one load shared
 * by threads racing to it.  libc.so.6 stands for an installed library.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "01-base-loader.h"
#include "testlib.h"

struct c_api {
        size_t (*strlen)(const char *);
        int (*compare)(const char *, const char *);
};

static void test_not_installed(void) {
        static struct c_api api;
        static const struct pn_lib_symbol symbols[] = {PN_LIB_SYMBOL(struct c_api, strlen)};
        static struct pn_lib lib = {
                PN_LIB_NOTE(ALWAYS, "test", "suggested", "a library that is nowhere", "libpkgnote-no-such-library.so.7"),
                .not_installed = "the test library (libpkgnote-no-such-library.so.7) is not installed",
                .name = "libpkgnote-no-such-library",
                PN_LIB_SYMBOLS(symbols, api),
        };
        CHECK_INT(pn_lib_load(&lib), -EOPNOTSUPP);
        CHECK_STR(pkgnote_last_error(), "the test library (libpkgnote-no-such-library.so.7) is not installed");
        CHECK_STR(pn_lib_error(&lib), "the test library (libpkgnote-no-such-library.so.7) is not installed");
        CHECK(api.strlen == NULL);
        /* Tried once: the second call says the same. */
        pn_error_clear();
        CHECK_INT(pn_lib_load(&lib), -EOPNOTSUPP);
        CHECK_STR(pkgnote_last_error(), "the test library (libpkgnote-no-such-library.so.7) is not installed");
}

static void test_missing_symbol(void) {
        static struct c_api api;
        static const struct pn_lib_symbol symbols[] = {
                PN_LIB_SYMBOL(struct c_api, strlen)
                PN_LIB_SYMBOL_AS(struct c_api, compare, "pkgnote_no_such_symbol")
        };
        static struct pn_lib lib = {
                PN_LIB_NOTE(ALWAYS, "test", "suggested", "libc without a symbol", "libc.so.6"),
                .not_installed = "libc.so.6 is not installed",
                .name = "libc.so.6",
                PN_LIB_SYMBOLS(symbols, api),
        };
        CHECK_INT(pn_lib_load(&lib), -EOPNOTSUPP);
        CHECK_STR(pkgnote_last_error(), "libc.so.6 lacks pkgnote_no_such_symbol");
        CHECK_STR(pn_lib_error(&lib), "libc.so.6 lacks pkgnote_no_such_symbol");
        /* Nothing of a library that lacks a symbol is left to call. */
        CHECK(api.strlen == NULL);
        CHECK(api.compare == NULL);
}

static void test_missing_symbol_message(void) {
        static struct c_api api;
        static const struct pn_lib_symbol symbols[] = {PN_LIB_SYMBOL_AS(struct c_api, compare, "pkgnote_no_such_symbol")};
        static struct pn_lib lib = {
                PN_LIB_NOTE(ALWAYS, "test", "suggested", "libc without a symbol", "libc.so.6"),
                .not_installed = "libc.so.6 is not installed",
                .lacks = "libc lacks the test functions",
                PN_LIB_SYMBOLS(symbols, api),
        };
        CHECK_INT(pn_lib_load(&lib), -EOPNOTSUPP);
        CHECK_STR(pkgnote_last_error(), "libc lacks the test functions");
}

static void test_loaded(void) {
        static struct c_api api;
        static const struct pn_lib_symbol symbols[] = {
                PN_LIB_SYMBOL(struct c_api, strlen)
                PN_LIB_SYMBOL_AS(struct c_api, compare, "strcmp")
        };
        /* The first soname is missing: the next one is tried. */
        static struct pn_lib lib = {
                PN_LIB_NOTE(ALWAYS, "test", "suggested", "libc", "libpkgnote-no-such-library.so.7", "libc.so.6"),
                .not_installed = "libc.so.6 is not installed",
                .name = "libc.so.6",
                PN_LIB_SYMBOLS(symbols, api),
        };
        CHECK_INT(pn_lib_load(&lib), 0);
        CHECK(pn_lib_error(&lib) == NULL);
        CHECK(api.strlen && api.compare);
        if (api.strlen && api.compare) {
                CHECK_INT(api.strlen("loader"), 6);
                CHECK_INT(api.compare("a", "a"), 0);
                CHECK(api.compare("a", "b") < 0);
        }
        CHECK_STR(lib.sonames[1], "libc.so.6");
        CHECK(lib.sonames[2] == NULL);
        CHECK_STR(lib.feature, "test");
        CHECK_STR(lib.priority, "suggested");
}

static struct c_api race_api;
static const struct pn_lib_symbol race_symbols[] = {PN_LIB_SYMBOL(struct c_api, strlen)};
static struct pn_lib race_lib = {
        PN_LIB_NOTE(ALWAYS, "test", "suggested", "libc", "libc.so.6"),
        .not_installed = "libc.so.6 is not installed",
        .name = "libc.so.6",
        PN_LIB_SYMBOLS(race_symbols, race_api),
};

static void *race(void *arg) {
        (void)arg;
        /* Whichever thread loads it, each sees the table filled. */
        if (pn_lib_load(&race_lib) < 0 || !race_api.strlen || race_api.strlen("xy") != 2)
                return (void *)1;
        return NULL;
}

static void test_threads(void) {
        enum { N = 16 };
        pthread_t t[N];
        int started = 0;
        for (int i = 0; i < N; i++)
                if (pthread_create(&t[i], NULL, race, NULL) == 0)
                        started++;
        CHECK_INT(started, N);
        int bad = 0;
        for (int i = 0; i < started; i++) {
                void *r;
                pthread_join(t[i], &r);
                bad += r != NULL;
        }
        CHECK_INT(bad, 0);
        CHECK_INT(race_lib.state, 1);
}

int main(void) {
        RUN(test_not_installed);
        RUN(test_missing_symbol);
        RUN(test_missing_symbol_message);
        RUN(test_loaded);
        RUN(test_threads);
        return test_summary();
}
