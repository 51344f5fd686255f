/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the image descriptions: a docker manifest.json or an OCI
 * index.json, with the manifests and nested indexes it leads to.  The
 * input is split at NUL bytes (which JSON text cannot hold): the first
 * byte chooses docker (odd) or OCI and the image asked for (a tag, a
 * digest, an index, a platform, or verified digests; by default digests
 * are trusted, which no real input can forge), the first part is manifest.json or
 * index.json, and every blob asked for gets the next part in turn, so
 * that chains of indexes, loops and mismatched documents are all reached.
 * Every layer name returned must be a normalised relative path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "09-scan-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (64u << 10)

struct parts {
        const char *p[64];
        size_t len[64];
        size_t n, next;
};

static int get(void *u, const char *name, void **data, size_t *len) {
        struct parts *x = u;
        size_t i = 0;
        if (strcmp(name, "manifest.json") != 0 && strcmp(name, "index.json") != 0) {
                if (x->n < 2)
                        return pn_error(-ENOENT, "%s: missing", name);
                i = 1 + x->next++ % (x->n - 1);
        }
        if (!(*data = malloc(x->len[i] ? x->len[i] : 1)))
                return pn_error(-ENOMEM, "out of memory");
        memcpy(*data, x->p[i], x->len[i]);
        *len = x->len[i];
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1 || size > MAX_INPUT)
                return 0;
        /* The first byte: docker or OCI, and which image to ask for. */
        bool docker = data[0] & 1;
        struct pn_image_sel sel = {.index = -1, .trust_digests = true, .path = "fuzz"};
        static const char *const tags[] = {"v1", "v2", "a:1", "docker.io/library/b:2"};
        static const char *const platforms[][3] = {{"linux", "arm64", "v8"}, {"linux", "amd64", NULL}};
        switch ((data[0] >> 1) & 7) {
        case 1: sel.tag = tags[(data[0] >> 4) & 3]; break;
        case 2: sel.digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"; break;
        case 3: sel.index = (data[0] >> 4) & 3; break;
        case 4:
                sel.os = platforms[(data[0] >> 4) & 1][0];
                sel.arch = platforms[(data[0] >> 4) & 1][1];
                sel.variant = platforms[(data[0] >> 4) & 1][2];
                break;
        case 5: sel.trust_digests = false; break;
        default: break;
        }
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
        struct pn_image_pick *picks = NULL;
        size_t n = 0;
        if (pn_image_list(s, 0, "fuzz", &sel, docker ? PN_IMAGE_DOCKER_ARCHIVE : PN_IMAGE_OCI, get, &x, &picks, &n) >= 0) {
                if (n == 0 || n > PKGNOTE_MAX_SCAN_LAYERS)
                        abort();
                for (size_t k = 0; k < n; k++) {
                        const struct pkgnote_scan_image *im = picks[k].img;
                        if (!im || !im->reference || picks[k].n_layers > PKGNOTE_MAX_SCAN_LAYERS ||
                            im->n_layers != picks[k].n_layers)
                                abort();
                        for (size_t t = 0; t < im->n_tags; t++)
                                if (strlen(im->tags[t]) > MAX_INPUT)
                                        abort();
                        for (size_t i = 0; i < picks[k].n_layers; i++) {
                                char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                                const char *l = picks[k].layers[i];
                                if (pn_path_normalize(l, norm, sizeof norm) <= 0 || strcmp(norm, l) != 0)
                                        abort();
                        }
                }
                pn_image_picks_free(picks, n);
        } else if (!pkgnote_last_error())
                abort();
        pkgnote_scan_free(s);
        return 0;
}
