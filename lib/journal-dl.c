/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loads libsystemd's sd-journal functions on first use (lib/journal-dl.h);
 * its dlopen note is in meson.build's dlopen_notes, feature "journal". */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "internal.h"
#include "journal-dl.h"

struct pn_journal_api pn_journal_api;
static const char *load_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
        void *h = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                load_error = "libsystemd (libsystemd.so.0) is not installed: the journal cannot be read";
                return;
        }
#define LOAD(ret, name, args)                                                      \
        if (!(*(void **)&pn_journal_api.name = dlsym(h, #name))) {                 \
                load_error = "libsystemd lacks " #name;                            \
                return;                                                            \
        }
        PN_JOURNAL_FUNCS(LOAD)
#undef LOAD
}

int pn_journal_load(void) {
        pthread_once(&once, load);
        return load_error ? pn_error(-EOPNOTSUPP, "%s", load_error) : 0;
}
