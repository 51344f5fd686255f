/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#if HAVE_LIBARCHIVE
#include <dlfcn.h>
#include <pthread.h>

#include "internal.h"

#include "archive-dl.h"

struct pn_archive_api pn_archive_api;
static const char *load_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
        void *h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                load_error = "libarchive (libarchive.so.13) is not installed";
                return;
        }
        /* Each name is a macro for its table entry now; #f is the symbol. */
#define LOAD(f)                                                                    \
        if (!(*(void **)&(f) = dlsym(h, #f))) {                                    \
                load_error = "libarchive lacks " #f;                               \
                return;                                                            \
        }
        PN_ARCHIVE_FUNCS(LOAD)
#undef LOAD
}

int pn_archive_load(void) {
        pthread_once(&once, load);
        return load_error ? pn_error(-EOPNOTSUPP, "%s", load_error) : 0;
}
#endif
