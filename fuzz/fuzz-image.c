/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the image descriptions: a docker manifest.json or an OCI
 * index.json, with the manifests and nested indexes it leads to.  The
 * input is split at NUL bytes (which JSON text cannot hold): the first
 * byte chooses docker (odd) or OCI, the first part is manifest.json or
 * index.json, and every blob asked for gets the next part in turn, so
 * that chains of indexes, loops and mismatched documents are all reached.
 * Every layer name returned must be a normalised relative path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scan-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (64u << 10)

struct parts {
        const char *p[64];
        size_t len[64];
        size_t n, next;
};

static int get(void *u, const char *name, json_t **ret) {
        struct parts *x = u;
        size_t i = 0;
        if (strcmp(name, "manifest.json") != 0 && strcmp(name, "index.json") != 0) {
                if (x->n < 2)
                        return pn_error(-ENOENT, "%s: missing", name);
                i = 1 + x->next++ % (x->n - 1);
        }
        json_error_t jerr;
        json_t *v = json_loadb(x->p[i], x->len[i], JSON_REJECT_DUPLICATES, &jerr);
        if (!v)
                return pn_error(-EBADMSG, "%s: invalid JSON: %s", name, jerr.text);
        *ret = v;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1 || size > MAX_INPUT)
                return 0;
        bool docker = data[0] & 1;
        struct parts x = {.n = 0};
        const char *p = (const char *)data + 1, *end = (const char *)data + size;
        while (x.n < 64) {
                const char *z = memchr(p, 0, (size_t)(end - p));
                x.p[x.n] = p;
                x.len[x.n++] = (size_t)((z ? z : end) - p);
                if (!z)
                        break;
                p = z + 1;
        }
        pkgnote_scan *s;
        pkgnote_scan_options o = {.threads = 1};
        if (pkgnote_scan_new(&o, &s) < 0)
                return 0;
        char **names = NULL;
        size_t n = 0;
        if (pn_image_layers(s, 0, "fuzz", docker, get, &x, &names, &n) >= 0) {
                if (n > PKGNOTE_MAX_SCAN_LAYERS)
                        abort();
                for (size_t i = 0; i < n; i++) {
                        char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                        if (pn_scan_normalize_path(names[i], norm, sizeof norm) <= 0 || strcmp(norm, names[i]) != 0)
                                abort();
                }
                pn_free_names(names, n);
        } else if (!pkgnote_last_error())
                abort();
        pkgnote_scan_free(s);
        return 0;
}
