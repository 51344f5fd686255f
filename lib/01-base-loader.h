/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one loader of optional libraries: each library is a table (the
 * sonames to try, the symbols to look up and where each goes, the
 * messages when it is missing) and its dlopen note, declared together
 * with PN_LIB_NOTE() beside the code that uses it.  The build makes the
 * binaries' dlopen notes from those declarations (lib/01-base-loader-notes.py
 * reads them from the sources), so a note never lists a library the code
 * does not load, nor misses one it does.
 *
 * A library is loaded with dlopen() on first use, once (thread-safe); a
 * library that is missing, or lacks a symbol, stays unloaded and every
 * call says why.  Adding a library: a struct of function pointers, a
 * PN_LIB_SYMBOLS table, a struct pn_lib with PN_LIB_NOTE(), pn_lib_load()
 * before the first call, and the file in the build's loader_sources list.
 */
#ifndef PKGNOTE_LOADER_H
#define PKGNOTE_LOADER_H

#include <pthread.h>
#include <stddef.h>

#include "01-base.h"

#define PN_LIB_MAX_SONAMES 4

/* One symbol: its name, and the offset of its function pointer in the
 * library's struct of pointers. */
struct pn_lib_symbol {
        const char *name;
        size_t offset;
};
/* An entry of a table of symbols whose field in struct TYPE has the
 * symbol's name. */
#define PN_LIB_SYMBOL(type, f) {#f, offsetof(type, f)},
/* One whose field is named otherwise. */
#define PN_LIB_SYMBOL_AS(type, field, name) {name, offsetof(type, field)},

struct pn_lib {
        /* The dlopen note (FDO_DLOPEN_METADATA, UAPI "dlopen Metadata"):
         * set by PN_LIB_NOTE(), whose arguments the build reads too. */
        const char *feature, *priority, *description;
        const char *sonames[PN_LIB_MAX_SONAMES + 1]; /* tried in order; NULL-terminated */
        /* Why it cannot be used, when no soname loads: the whole message. */
        const char *not_installed;
        /* When a symbol is missing: "NAME lacks SYMBOL", or LACKS as it
         * stands when set. */
        const char *name, *lacks;
        const struct pn_lib_symbol *symbols;
        size_t n_symbols;
        void *api; /* the struct of function pointers the symbols fill */

        /* Set once, by pn_lib_load(). */
        pthread_mutex_t lock;
        int state; /* 0 not tried, 1 loaded, -1 unusable (error says why) */
        void *handle;
        char error[160];
};

/* The dlopen note of a library, and the build's condition for it: COND
 * is the config.h macro that says whether the library is used at all
 * (HAVE_LIBDW, ...), or ALWAYS.  Then feature, priority ("required",
 * "recommended", "suggested"), description and one or more sonames, all
 * string literals: the build reads them from the source as they stand. */
#define PN_LIB_NOTE(cond, feature_, priority_, description_, ...)                             \
        .feature = feature_, .priority = priority_, .description = description_,             \
        .sonames = {__VA_ARGS__, NULL}
/* The table of symbols TABLE (an array of struct pn_lib_symbol) filling API. */
#define PN_LIB_SYMBOLS(table, api_)                                                            \
        .symbols = table, .n_symbols = sizeof(table) / sizeof((table)[0]), .api = &(api_),      \
        .lock = PTHREAD_MUTEX_INITIALIZER

/* Loads LIB once: 0 when every symbol was found (the struct of pointers
 * is filled), else -EOPNOTSUPP with pn_error() set to why (as every later
 * call says again). */
int pn_lib_load(struct pn_lib *lib);
/* Why LIB cannot be used, after pn_lib_load() failed; NULL when it loaded. */
const char *pn_lib_error(const struct pn_lib *lib);

#endif
