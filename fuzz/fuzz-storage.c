/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of local container stores (containers-storage:).
 * The input is split at NUL bytes: images.json, layers.json, then the
 * content given to every image's manifest and configuration.  The first
 * byte chooses the driver (vfs or overlay), what to ask for (every image,
 * a name, a short id, a digest) and whether only to list.  The store is
 * written to a temporary directory, with the image and layer directories
 * the lists name (empty layers), and scanned; every image recorded must
 * have a reference naming the store.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "09-scan-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (64u << 10)

static char root[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void)st, (void)flag, (void)ftw;
        remove(path);
        return 0;
}

static void cleanup(void) {
        if (root[0])
                nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *rel, const void *data, size_t len) {
        char p[640];
        snprintf(p, sizeof p, "%s/%s", root, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return;
        if (write(fd, data, len) < 0) {
                /* the reader then sees a short file */
        }
        close(fd);
}

static void dir(const char *rel) {
        char p[640];
        snprintf(p, sizeof p, "%s/%s", root, rel);
        mkdir(p, 0755);
}

static bool hex64(const char *s) {
        return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static void b64(const char *in, char *out) {
        static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t n = strlen(in), o = 0;
        for (size_t i = 0; i < n; i += 3) {
                unsigned v = (unsigned char)in[i] << 16 | (i + 1 < n ? (unsigned char)in[i + 1] << 8 : 0) |
                             (i + 2 < n ? (unsigned char)in[i + 2] : 0);
                out[o++] = t[v >> 18 & 63];
                out[o++] = t[v >> 12 & 63];
                out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
                out[o++] = i + 2 < n ? t[v & 63] : '=';
        }
        out[o] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1 || size > MAX_INPUT)
                return 0;
        if (!root[0]) {
                snprintf(root, sizeof root, "/tmp/pkgnote-fuzz-storage-XXXXXX");
                if (!mkdtemp(root)) {
                        root[0] = 0;
                        return 0;
                }
                atexit(cleanup);
        }
        cleanup();
        mkdir(root, 0755);
        const char *driver = data[0] & 1 ? "overlay" : "vfs";
        const char *part[3] = {"", "", ""};
        size_t len[3] = {0, 0, 0}, n = 0;
        const char *p = (const char *)data + 1, *end = (const char *)data + size;
        while (n < 3) {
                const char *z = memchr(p, 0, (size_t)(end - p));
                part[n] = p;
                len[n++] = (size_t)((z ? z : end) - p);
                if (!z)
                        break;
                p = z + 1;
        }
        char rel[512];
        snprintf(rel, sizeof rel, "%s-images", driver);
        dir(rel);
        snprintf(rel, sizeof rel, "%s-layers", driver);
        dir(rel);
        dir(data[0] & 1 ? "overlay" : "vfs");
        dir("vfs/dir");
        snprintf(rel, sizeof rel, "%s-images/images.json", driver);
        put(rel, part[0], len[0]);
        snprintf(rel, sizeof rel, "%s-layers/layers.json", driver);
        put(rel, part[1], len[1]);
        /* The directories the lists name. */
        json_t *images = json_loadb(part[0], len[0], 0, NULL), *layers = json_loadb(part[1], len[1], 0, NULL);
        for (size_t i = 0; i < json_array_size(images) && i < 64; i++) {
                const char *id = json_string_value(json_object_get(json_array_get(images, i), "id"));
                if (!hex64(id))
                        continue;
                char key[80], enc[128];
                snprintf(rel, sizeof rel, "%s-images/%s", driver, id);
                dir(rel);
                snprintf(rel, sizeof rel, "%s-images/%s/manifest", driver, id);
                put(rel, part[2], len[2]);
                snprintf(key, sizeof key, "sha256:%s", id);
                b64(key, enc);
                snprintf(rel, sizeof rel, "%s-images/%s/=%s", driver, id, enc);
                put(rel, part[2], len[2]);
        }
        for (size_t i = 0; i < json_array_size(layers) && i < 64; i++) {
                const char *id = json_string_value(json_object_get(json_array_get(layers, i), "id"));
                if (!hex64(id))
                        continue;
                snprintf(rel, sizeof rel, data[0] & 1 ? "overlay/%s" : "vfs/dir/%s", id);
                dir(rel);
                if (data[0] & 1) {
                        snprintf(rel, sizeof rel, "overlay/%s/diff", id);
                        dir(rel);
                }
        }
        json_decref(images);
        json_decref(layers);

        static const char *const names[] = {"", "img:v1", "localhost/img", "abc", "@sha256:0000000000000000000000000000000000000000000000000000000000000000"};
        char ref[600];
        snprintf(ref, sizeof ref, "containers-storage:[%s@%s]%s", driver, root, names[(data[0] >> 1) % 5]);
        pkgnote_scan_options o = {.threads = 1, .flags = data[0] & 0x80 ? PKGNOTE_SCAN_LIST_IMAGES : 0};
        pkgnote_scan *s;
        if (pkgnote_scan_new(&o, &s) < 0)
                return 0;
        int r = pkgnote_scan_add(s, ref);
        if (r < 0 && !pkgnote_last_error())
                abort();
        if (r >= 0 && r != PKGNOTE_SCAN_INPUT_STORAGE)
                abort();
        for (size_t i = 0; i < pkgnote_scan_image_count(s); i++) {
                const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                const char *rf = pkgnote_scan_image_reference(im);
                if (!rf || strncmp(rf, "containers-storage:[", 20) != 0 || !pkgnote_scan_image_id(im) ||
                    pkgnote_scan_image_layer_count(im) > PKGNOTE_MAX_SCAN_LAYERS)
                        abort();
                for (size_t t = 0; t < pkgnote_scan_image_tag_count(im); t++)
                        if (!pkgnote_scan_image_tag(im, t))
                                abort();
        }
        pkgnote_scan_free(s);
        return 0;
}
