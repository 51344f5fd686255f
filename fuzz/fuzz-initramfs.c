/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the initramfs reader (lib/01-base-cpio.c) and the tree deps
 * --verify builds of it (lib/07-check-artefact.c): every entry handed
 * out has a NUL-terminated name of at most PN_CPIO_MAX_NAME bytes and
 * data inside the input or a decoded buffer (ASan watches); the tree
 * keeps no name with ".." and every path resolves in bounded steps
 * (loops of links end in -ELOOP); the resolver lists each directory of
 * it once while looking a library up.  An input beginning "MZ" is read
 * as a unified kernel image (lib/07-check-uki.c): its .initrd section's
 * initramfs, and a kernel release that is printable ASCII of at most
 * PN_UKI_MAX_RELEASE bytes or none (the corpus' uki-* seeds come from
 * fuzz/make-seeds-uki.py --corpus).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-cpio.h"
#include "07-check-artefact.h"
#include "07-check-resolve.h"
#include "07-check-uki.h"
#include "fuzz-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)
/* Decoded bytes allowed: a small input must not become gigabytes. */
#define MAX_DECODED (64u << 20)

/* Bytes touched, so that ASan sees every entry's first and last. */
static volatile unsigned sink;

static int each(void *u, const struct pn_cpio_entry *e) {
        size_t *n = u, len = strlen(e->name);
        if (len >= PN_CPIO_MAX_NAME)
                abort();
        if (e->size)
                sink += e->data[0] + e->data[e->size - 1];
        (*n)++;
        return 0;
}

static int candidate(void *u, const char *path, const char *hwcaps, size_t *obj) {
        (void)hwcaps;
        struct pn_artefact *a = u;
        size_t n;
        if (path[0] != '/')
                abort();
        if (pn_artefact_resolve(a, path, true, &n) == 0 && pn_artefact_type(a, n) == PN_NODE_FILE) {
                *obj = n;
                return 1;
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *copy = (uint8_t *)fuzz_copy(data, size, MAX_INPUT);
        if (!copy)
                return 0;
        size_t n = 0;
        struct pn_initramfs ir;
        (void)pn_initramfs_each(copy, size, MAX_DECODED, each, &n, &ir);
        pn_initramfs_done(&ir);
        struct pn_problems problems = {0};
        struct pn_artefact *a;
        bool uki = size >= 2 && copy[0] == 'M' && copy[1] == 'Z';
        int opened = uki ? pn_artefact_from_uki(copy, size, MAX_DECODED, &problems, &a)
                    : pn_artefact_from_initramfs(copy, size, MAX_DECODED, &problems, &a);
        if (opened == 0) {
                const char *from, *rel = pn_artefact_release(a, &from);
                if (rel && (!uki || !from || strlen(rel) > PN_UKI_MAX_RELEASE))
                        abort();
                for (const char *c = rel; c && *c; c++)
                        if (*c <= ' ' || *c >= 0x7f)
                                abort();
                char path[4096];
                for (size_t i = 0; i < pn_artefact_count(a); i++) {
                        size_t back;
                        if (!pn_artefact_path(a, i, path, sizeof path))
                                continue;
                        for (const char *c = path; (c = strstr(c, "/..")); c++)
                                if (c[3] == '/' || c[3] == '\0')
                                        abort();
                        int e = pn_artefact_resolve(a, path, false, &back);
                        if (e == 0 && back != i)
                                abort(); /* a path without following its last link is itself */
                        (void)pn_artefact_resolve(a, path, true, &back);
                        if (pn_artefact_type(a, i) == PN_NODE_FILE) {
                                const uint8_t *b;
                                size_t l;
                                if (pn_artefact_bytes(a, i, &b, &l) == 0 && l)
                                        sink += b[0] + b[l - 1];
                        }
                }
                struct pn_resolve_root root;
                pn_artefact_root(a, &root);
                pn_resolver *r;
                if (pn_resolver_new(&root, NULL, NULL, &r) == 0) {
                        struct pn_lookup q = {.name = "libc.so.6", .abi = pn_abi_make(64, 0, 62 /* EM_X86_64 */, 0),
                                              .candidate = candidate, .u = a};
                        (void)pn_resolver_lookup(r, &q);
                        if (pn_resolver_stats(r)->dir_reads > pn_resolver_stats(r)->dirs)
                                abort(); /* each directory read once */
                        pn_resolver_free(r);
                }
                pn_artefact_free(a);
        }
        pn_problems_clear(&problems);
        free(copy);
        return 0;
}
