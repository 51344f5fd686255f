/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the ld.so.conf reader: every directory and include pattern it
 * hands out is a non-empty string of at most PN_LDCONF_MAX_LINE bytes
 * without a newline, no longer than the input; a directory has no "#"
 * and no "=".  Then the resolver reads it as a root's ld.so.conf
 * (lib/07-check-resolve.c), every file of the root holding the same text and
 * ld.so.conf.d three names, so that includes, globs and loops are
 * followed: at most PN_LDCONF_MAX_FILES files read, each directory
 * listed once, and a search through the directories found ends.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "07-check-resolve.h"
#include "fuzz-input.h"
#include "01-base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The closure reads at most PN_LDCONF_MAX_SIZE of a file. */
#define MAX_INPUT (PN_LDCONF_MAX_SIZE + 1024)

static size_t input_size;

static int each(void *u, int kind, const char *value) {
        size_t *n = u, len = strlen(value);
        if (len == 0 || len > PN_LDCONF_MAX_LINE || len > input_size || strchr(value, '\n') || strchr(value, '#'))
                abort();
        if (kind == PN_LDCONF_DIR && strchr(value, '='))
                abort();
        if (kind != PN_LDCONF_DIR && kind != PN_LDCONF_INCLUDE)
                abort();
        (*n)++;
        return 0;
}

static const char *root_text;
static size_t root_len;
static unsigned dir_reads[5];

static int root_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                    void (*each_name)(void *cu, const char *name), void *cu) {
        static const char *const dirs[][4] = {
                {"/", "etc", "usr", NULL},
                {"/etc", "ld.so.conf", "ld.so.conf.d", "a.conf"},
                {"/etc/ld.so.conf.d", "a.conf", "b.conf", "libx.so.1"},
                {"/usr", "lib", NULL, NULL},
                {"/usr/lib", "libx.so.1", "b.conf", NULL},
        };
        (void)u;
        for (uint64_t i = 0; i < ELEMENTSOF(dirs); i++)
                if (!strcmp(abs, dirs[i][0])) {
                        if (++dir_reads[i] > 1)
                                abort(); /* a directory is read once */
                        if (want(cu, (const uint64_t[2]){i, 0}))
                                for (size_t k = 1; k < 4 && dirs[i][k]; k++)
                                        each_name(cu, dirs[i][k]);
                        return 0;
                }
        return -ENOENT;
}

static int root_read(void *u, const char *abs, size_t max, void **ret, size_t *len) {
        (void)u;
        if (abs[0] != '/' || root_len > max)
                abort();
        char *p = malloc(root_len + 1);
        if (!p)
                return -ENOMEM;
        memcpy(p, root_text, root_len);
        p[root_len] = 0;
        *ret = p;
        *len = root_len;
        return 0;
}

static int candidate(void *u, const char *path, const char *hwcaps, size_t *obj) {
        (void)u, (void)hwcaps;
        if (path[0] != '/')
                abort();
        *obj = 0;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        size_t n = 0;
        input_size = size;
        if (pn_ldconf_parse(text, size, each, &n) != 0)
                abort();
        root_text = text, root_len = size;
        memset(dir_reads, 0, sizeof dir_reads);
        struct pn_resolve_root root = {root_dir, root_read, NULL};
        pn_resolver *r;
        if (pn_resolver_new(&root, NULL, NULL, &r) == 0) {
                struct pn_lookup q = {.name = "libx.so.1", .abi = pn_abi_make(64, 0, 62 /* EM_X86_64 */, 0),
                                      .candidate = candidate};
                int e = pn_resolver_lookup(r, &q);
                if (e != 0 && e != -ENOMEM)
                        abort(); /* the candidate takes nothing */
                if (pn_resolver_stats(r)->conf_reads > PN_LDCONF_MAX_FILES + 1)
                        abort();
                pn_resolver_free(r);
        }
        free(text);
        return 0;
}
