/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Optional libraries loaded on first use, from their tables (01-base-loader.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "01-base-loader.h"

static void load(struct pn_lib *l) {
        for (size_t i = 0; !l->handle && i < PN_LIB_MAX_SONAMES && l->sonames[i]; i++)
                l->handle = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!l->handle) {
                snprintf(l->error, sizeof l->error, "%s", l->not_installed);
                __atomic_store_n(&l->state, -1, __ATOMIC_RELEASE);
                return;
        }
        for (size_t i = 0; i < l->n_symbols; i++) {
                void *p = dlsym(l->handle, l->symbols[i].name);
                if (!p) {
                        if (l->lacks)
                                snprintf(l->error, sizeof l->error, "%s", l->lacks);
                        else
                                snprintf(l->error, sizeof l->error, "%s lacks %s", l->name, l->symbols[i].name);
                        /* Nothing of a library missing a symbol is used:
                         * the pointers found so far are cleared. */
                        for (size_t k = 0; k < i; k++)
                                memset((char *)l->api + l->symbols[k].offset, 0, sizeof p);
                        dlclose(l->handle);
                        l->handle = NULL;
                        __atomic_store_n(&l->state, -1, __ATOMIC_RELEASE);
                        return;
                }
                /* A function pointer stored from dlsym()'s object pointer,
                 * as POSIX allows: through memcpy, not a cast. */
                memcpy((char *)l->api + l->symbols[i].offset, &p, sizeof p);
        }
        __atomic_store_n(&l->state, 1, __ATOMIC_RELEASE);
}

int pn_lib_load(struct pn_lib *l) {
        int state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
        if (state == 0) {
                pthread_mutex_lock(&l->lock);
                if (l->state == 0) {
                        load(l);
                }
                state = l->state;
                pthread_mutex_unlock(&l->lock);
        }
        return state > 0 ? 0 : pn_error(-EOPNOTSUPP, "%s", l->error);
}

const char *pn_lib_error(const struct pn_lib *l) {
        return __atomic_load_n(&l->state, __ATOMIC_ACQUIRE) < 0 ? l->error : NULL;
}
