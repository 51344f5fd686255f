/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Image references and the choice of an image.
 *
 * An input may name an image the way skopeo and podman users write it:
 * "oci:DIR[:TAG|@DIGEST]", "oci-archive:FILE[:TAG]" and
 * "docker-archive:FILE[:REPO:TAG|:@N]".  The description of the chosen
 * image (a docker manifest.json, or an OCI index.json and the indexes and
 * manifest it leads to) gives its layers, bottom first.  Every document
 * reached by digest is checked against it (OCI image spec, "Descriptors":
 * "the content ... MUST be verified against the digest"); nested indexes
 * are followed to a bounded depth, choosing the platform of this machine
 * unless told otherwise.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-private.h"

/* Indexes below index.json: a multi-platform image is one level. */
#define MAX_INDEX_DEPTH 4
#define REF_NAME "org.opencontainers.image.ref.name"

bool pn_is_hex(const char *s, size_t min) {
        size_t n = strspn(s, "0123456789abcdef");
        return n >= min && s[n] == 0;
}

/* Whether D is "ALG:HEX" as the OCI image spec ("Digests") allows. */
static bool is_digest(const char *d) {
        const char *colon = d ? strchr(d, ':') : NULL;
        if (!colon || colon == d || (size_t)(colon - d) > 32 || !pn_is_hex(colon + 1, 32))
                return false;
        for (const char *p = d; p < colon; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789+._-", *p))
                        return false;
        return true;
}

/* "blobs/ALG/HEX" for DIGEST "ALG:HEX", or NULL. */
static char *digest_path(const char *digest) {
        if (!is_digest(digest))
                return NULL;
        const char *colon = strchr(digest, ':');
        char *r;
        if (asprintf(&r, "blobs/%.*s/%s", (int)(colon - digest), digest, colon + 1) < 0)
                return NULL;
        return r;
}

void pn_free_names(char **names, size_t n) {
        for (size_t i = 0; names && i < n; i++)
                free(names[i]);
        free(names);
}

/* ---- references ---- */

static const struct {
        const char *prefix;
        int transport;
} transports[] = {
        {"oci:", PN_IMAGE_OCI},
        {"oci-archive:", PN_IMAGE_OCI_ARCHIVE},
        {"docker-archive:", PN_IMAGE_DOCKER_ARCHIVE},
};

int pn_image_select(const char *image, int transport, struct pn_image_sel *sel) {
        if (!*image)
                return pn_error(-EINVAL, "empty image name");
        if (image[0] == '@' && is_digest(image + 1)) {
                if (transport == PN_IMAGE_DOCKER_ARCHIVE)
                        return pn_error(-EINVAL, "a docker archive names its images by REPO:TAG or @N, not by digest");
                sel->digest = image + 1;
                return 0;
        }
        if (image[0] == '@') {
                char *end;
                unsigned long n = strtoul(image + 1, &end, 10);
                if (image[1] < '0' || image[1] > '9' || *end || n > PKGNOTE_MAX_SCAN_LAYERS)
                        return pn_error(-EINVAL, "'%s': neither @DIGEST nor @N", image);
                if (transport == PN_IMAGE_OCI || transport == PN_IMAGE_OCI_ARCHIVE)
                        return pn_error(-EINVAL, "an OCI layout names its images by TAG or @DIGEST, not by @N");
                sel->index = (long)n;
                return 0;
        }
        sel->tag = image;
        return 0;
}

int pn_image_ref_parse(const char *ref, char **path, struct pn_image_sel *sel) {
        size_t k = 0;
        while (k < ELEMENTSOF(transports) && strncmp(ref, transports[k].prefix, strlen(transports[k].prefix)) != 0)
                k++;
        if (k == ELEMENTSOF(transports))
                return 0;
        *sel = (struct pn_image_sel){.transport = transports[k].transport, .index = -1};
        const char *body = ref + strlen(transports[k].prefix);
        /* As containers/image splits them: the path ends at the first ':'
         * (so "oci:DIR:TAG"); "oci:DIR@ALG:HEX" names a digest. */
        const char *at = strrchr(body, '@'), *colon = strchr(body, ':');
        size_t plen = colon ? (size_t)(colon - body) : strlen(body);
        const char *image = colon ? colon + 1 : NULL;
        if (sel->transport == PN_IMAGE_OCI && at && is_digest(at + 1) && (!colon || colon > at)) {
                plen = (size_t)(at - body);
                image = at;
        }
        if (plen == 0)
                return pn_error(-EINVAL, "no path in the image reference");
        if (!(*path = strndup(body, plen)))
                return pn_error(-ENOMEM, "out of memory");
        int r = image ? pn_image_select(image, sel->transport, sel) : 0;
        if (r < 0) {
                free(*path);
                *path = NULL;
                return r;
        }
        return 1;
}

/* A docker reference in its full form ("alpine" is
 * "docker.io/library/alpine:latest"), malloc()ed. */
static char *docker_normalize(const char *ref) {
        const char *slash = strchr(ref, '/');
        bool domain = slash && (memchr(ref, '.', (size_t)(slash - ref)) || memchr(ref, ':', (size_t)(slash - ref)) ||
                                !strncmp(ref, "localhost/", 10));
        const char *last = strrchr(ref, '/'), *colon = strrchr(ref, ':');
        bool tagged = colon && (!last || colon > last);
        char *r;
        if (asprintf(&r, "%s%s%s%s", domain ? "" : "docker.io/", !domain && !slash ? "library/" : "", ref,
                     tagged ? "" : ":latest") < 0)
                return NULL;
        return r;
}

static bool docker_tag_matches(const char *have, const char *want) {
        if (!strcmp(have, want))
                return true;
        char *a = docker_normalize(have), *b = docker_normalize(want);
        bool same = a && b && !strcmp(a, b);
        free(a);
        free(b);
        return same;
}

/* ---- documents ---- */

/* The JSON document NAME, whose digest must be DIGEST (unless NULL, or the
 * caller trusts digests) and size SIZE (unless negative). */
static int load(const struct pn_image_sel *sel, pn_blob_fn get, void *u, const char *name, const char *digest,
                json_int_t size, json_t **ret) {
        void *data;
        size_t len;
        int r = get(u, name, &data, &len);
        if (r < 0)
                return r;
        if (digest && !sel->trust_digests) {
                if (strncmp(digest, "sha256:", 7) != 0) {
                        free(data);
                        return pn_error(-EOPNOTSUPP, "%s: cannot verify a digest of another algorithm than sha256", name);
                }
                struct pn_sums sum;
                char sha1[41], sha256[65];
                pn_sums_init(&sum);
                pn_sums_update(&sum, data, len);
                pn_sums_final(&sum, sha1, sha256);
                if (strcmp(sha256, digest + 7) != 0 || (size >= 0 && (uint64_t)size != len)) {
                        free(data);
                        return pn_error(-EBADMSG, "%s: content does not match its digest%s", name,
                                        strcmp(sha256, digest + 7) ? "" : " (size differs)");
                }
        }
        json_error_t jerr;
        json_t *v = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
        free(data);
        if (!v)
                return pn_error(-EBADMSG, "%s: invalid JSON: %s", name, jerr.text);
        *ret = v;
        return 0;
}

/* Appends ", " and S (or "-" for NULL) to the list *BUF of *LEN bytes. */
static void list_add(char **buf, size_t *len, const char *s) {
        if (*len > 1024)
                return; /* long enough to tell what is there */
        size_t k = strlen(s ? s : "-");
        char *x = realloc(*buf, *len + k + 3);
        if (!x)
                return;
        if (*len)
                memcpy(x + *len, ", ", 2), *len += 2;
        memcpy(x + *len, s ? s : "-", k + 1);
        *len += k;
        *buf = x;
}

static const char *str_or(const char *s, const char *dflt) {
        return s ? s : dflt;
}

static const char *ref_name(json_t *desc) {
        return json_string_value(json_object_get(json_object_get(desc, "annotations"), REF_NAME));
}

/* The platform of this build, as the OCI image spec names them (the
 * values of Go's GOOS and GOARCH). */
static void host_platform(const char **arch, const char **variant) {
        *variant = NULL;
#if defined(__x86_64__)
        *arch = "amd64";
#elif defined(__aarch64__)
        *arch = "arm64";
#elif defined(__i386__)
        *arch = "386";
#elif defined(__arm__)
        *arch = "arm";
#if defined(__ARM_ARCH) && __ARM_ARCH >= 7
        *variant = "v7";
#elif defined(__ARM_ARCH)
        *variant = "v6";
#endif
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        *arch = "ppc64le";
#elif defined(__s390x__)
        *arch = "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
        *arch = "riscv64";
#elif defined(__loongarch64)
        *arch = "loong64";
#else
        *arch = "unknown";
#endif
}

static bool platform_matches(json_t *desc, const char *os, const char *arch, const char *variant) {
        json_t *p = json_object_get(desc, "platform");
        const char *v = json_string_value(json_object_get(p, "variant"));
        return !strcmp(str_or(json_string_value(json_object_get(p, "os")), ""), os) &&
               !strcmp(str_or(json_string_value(json_object_get(p, "architecture")), ""), arch) &&
               (!variant || (v && !strcmp(v, variant)));
}

/* "OS/ARCH[/VARIANT]" of DESC into BUF. */
static const char *platform_name(json_t *desc, char *buf, size_t size) {
        json_t *p = json_object_get(desc, "platform");
        const char *v = json_string_value(json_object_get(p, "variant"));
        snprintf(buf, size, "%s/%s%s%s", str_or(json_string_value(json_object_get(p, "os")), "?"),
                 str_or(json_string_value(json_object_get(p, "architecture")), "?"), v ? "/" : "", v ? v : "");
        return buf;
}

/* The descriptor of MS (an index's "manifests") to follow: by the tag or
 * digest asked for at the top, then by platform; several left at the top
 * are told as a problem and the first is taken. */
static int choose(pkgnote_scan *s, size_t input, const char *display, const struct pn_image_sel *sel, json_t *ms,
                  bool top, json_t **ret) {
        size_t n = json_array_size(ms);
        if (n == 0)
                return pn_error(-EBADMSG, "index lists no manifests");
        bool *keep = calloc(n, sizeof *keep);
        if (!keep)
                return pn_error(-ENOMEM, "out of memory");
        char *list = NULL;
        size_t list_len = 0, left = 0;
        bool platforms = false;
        int r = 0;
        for (size_t i = 0; i < n; i++) {
                json_t *d = json_array_get(ms, i);
                keep[i] = json_is_object(d);
                if (top && sel->digest)
                        keep[i] = keep[i] && !strcmp(str_or(json_string_value(json_object_get(d, "digest")), ""), sel->digest);
                if (top && sel->tag)
                        keep[i] = keep[i] && !strcmp(str_or(ref_name(d), ""), sel->tag);
                platforms |= keep[i] && json_object_get(d, "platform") != NULL;
                left += keep[i];
        }
        if (left == 0 && !(top && (sel->tag || sel->digest))) {
                r = pn_error(-EBADMSG, "index lists no manifest descriptors");
                goto out;
        }
        if (left == 0) {
                for (size_t i = 0; i < n; i++)
                        list_add(&list, &list_len,
                                 sel->tag ? ref_name(json_array_get(ms, i))
                                          : json_string_value(json_object_get(json_array_get(ms, i), "digest")));
                r = pn_error(-ENOENT, "no image %s '%s' (%s: %s)", sel->tag ? "tagged" : "with digest",
                             sel->tag ? sel->tag : sel->digest, sel->tag ? "tags" : "digests", list ? list : "none");
                goto out;
        }
        if (left > 1 && platforms) {
                const char *os = sel->os ? sel->os : "linux", *arch = sel->arch, *variant = sel->variant;
                if (!arch)
                        host_platform(&arch, &variant);
                size_t matched = 0;
                for (size_t i = 0; i < n; i++)
                        if (keep[i] && platform_matches(json_array_get(ms, i), os, arch, variant))
                                matched++;
                if (matched == 0 && !sel->arch && variant) /* a host variant the index does not name */
                        for (size_t i = 0; i < n; i++)
                                matched += keep[i] && platform_matches(json_array_get(ms, i), os, arch, NULL);
                if (matched == 0) {
                        char buf[128];
                        for (size_t i = 0; i < n; i++)
                                if (keep[i])
                                        list_add(&list, &list_len, platform_name(json_array_get(ms, i), buf, sizeof buf));
                        r = pn_error(-ENOENT, "no image for platform %s/%s%s%s (platforms: %s)", os, arch,
                                     variant ? "/" : "", variant ? variant : "", list ? list : "none");
                        goto out;
                }
                left = 0;
                for (size_t i = 0; i < n; i++) {
                        json_t *d = json_array_get(ms, i);
                        keep[i] = keep[i] && (platform_matches(d, os, arch, variant) ||
                                              (!sel->arch && variant && platform_matches(d, os, arch, NULL)));
                        left += keep[i];
                }
        }
        size_t first = 0;
        while (!keep[first])
                first++;
        if (left > 1 && top) {
                for (size_t i = 0; i < n; i++)
                        if (keep[i])
                                list_add(&list, &list_len, ref_name(json_array_get(ms, i)));
                pn_scan_add_problem(s, input, display, 0,
                                    "holds %zu images (tags: %s); reporting the first (name one as oci:PATH:TAG or with --image)",
                                    left, list ? list : "none");
        }
        *ret = json_array_get(ms, first);
out:
        free(list);
        free(keep);
        return r;
}

/* The image of a docker manifest.json: by index, by tag, or the first. */
static int choose_docker(pkgnote_scan *s, size_t input, const char *display, const struct pn_image_sel *sel,
                         json_t *root, json_t **ret) {
        size_t n = json_array_size(root);
        if (!json_is_array(root) || n == 0 || !json_is_object(json_array_get(root, 0)))
                return pn_error(-EBADMSG, "manifest.json: not an array of images");
        char *list = NULL;
        size_t list_len = 0;
        if (sel->index >= 0) {
                if ((size_t)sel->index >= n)
                        return pn_error(-ENOENT, "no image @%ld: the archive holds %zu (@0 to @%zu)", sel->index, n, n - 1);
                *ret = json_array_get(root, (size_t)sel->index);
                return json_is_object(*ret) ? 0 : pn_error(-EBADMSG, "manifest.json: image %ld is no object", sel->index);
        }
        for (size_t i = 0; i < n; i++) {
                json_t *tags = json_object_get(json_array_get(root, i), "RepoTags");
                for (size_t k = 0; k < json_array_size(tags); k++) {
                        const char *t = json_string_value(json_array_get(tags, k));
                        if (sel->tag && t && docker_tag_matches(t, sel->tag)) {
                                free(list);
                                *ret = json_array_get(root, i);
                                return 0;
                        }
                        list_add(&list, &list_len, t);
                }
                if (json_array_size(tags) == 0)
                        list_add(&list, &list_len, "(untagged)");
        }
        int r = 0;
        if (sel->tag)
                r = pn_error(-ENOENT, "no image tagged '%s' (tags: %s)", sel->tag, list ? list : "none");
        else if (n > 1)
                pn_scan_add_problem(s, input, display, 0,
                                    "holds %zu images (tags: %s); reporting the first (name one as docker-archive:PATH:REPO:TAG, :@N or with --image)",
                                    n, list ? list : "none");
        free(list);
        *ret = json_array_get(root, 0);
        return r;
}

int pn_image_layers(pkgnote_scan *s, size_t input, const char *display, const struct pn_image_sel *sel, bool docker,
                    pn_blob_fn get, void *u, char ***ret, size_t *ret_n) {
        json_t *owned[MAX_INDEX_DEPTH + 3] = {0}, *layers = NULL, *cur;
        size_t n_owned = 0, n = 0;
        char **names = NULL;
        int r;
        if (docker) {
                if (sel->digest)
                        return pn_error(-EINVAL, "a docker archive names its images by REPO:TAG or @N, not by digest");
                if ((r = load(sel, get, u, "manifest.json", NULL, -1, &owned[n_owned++])) < 0)
                        return r;
                json_t *img = NULL;
                if ((r = choose_docker(s, input, display, sel, owned[0], &img)) < 0)
                        goto out;
                layers = json_object_get(img, "Layers");
        } else {
                if (sel->index >= 0)
                        return pn_error(-EINVAL, "an OCI layout names its images by TAG or @DIGEST, not by @N");
                if ((r = load(sel, get, u, "index.json", NULL, -1, &owned[n_owned++])) < 0)
                        return r;
                cur = owned[0];
                for (;;) {
                        json_t *ms = json_object_get(cur, "manifests"), *d = NULL;
                        if (!json_is_array(ms)) {
                                layers = json_object_get(cur, "layers");
                                break;
                        }
                        if (n_owned > MAX_INDEX_DEPTH) {
                                r = pn_error(-ELOOP, "image indexes nested deeper than %d (an index naming itself?)",
                                             MAX_INDEX_DEPTH);
                                goto out;
                        }
                        if ((r = choose(s, input, display, sel, ms, n_owned == 1, &d)) < 0)
                                goto out;
                        const char *digest = json_string_value(json_object_get(d, "digest"));
                        json_t *size = json_object_get(d, "size");
                        char *path = digest_path(digest);
                        if (!path) {
                                r = pn_error(-EBADMSG, "index: no usable manifest digest");
                                goto out;
                        }
                        r = load(sel, get, u, path, digest, json_is_integer(size) ? json_integer_value(size) : -1,
                                 &owned[n_owned]);
                        free(path);
                        if (r < 0)
                                goto out;
                        cur = owned[n_owned++];
                }
        }
        if (!json_is_array(layers)) {
                r = pn_error(-EBADMSG, "image manifest lists no layers");
                goto out;
        }
        if (json_array_size(layers) > PKGNOTE_MAX_SCAN_LAYERS) {
                r = pn_error(-E2BIG, "more than %u layers", PKGNOTE_MAX_SCAN_LAYERS);
                goto out;
        }
        if (!(names = calloc(json_array_size(layers) + 1, sizeof *names))) {
                r = pn_error(-ENOMEM, "out of memory");
                goto out;
        }
        for (size_t i = 0; i < json_array_size(layers); i++) {
                json_t *v = json_array_get(layers, i);
                char *p;
                if (docker) {
                        char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                        const char *str = json_string_value(v);
                        p = str && pn_scan_normalize_path(str, norm, sizeof norm) > 0 ? strdup(norm) : NULL;
                } else
                        p = digest_path(json_string_value(json_object_get(v, "digest")));
                if (!p) {
                        r = pn_error(-EBADMSG, "layer %zu: bad name or digest", i);
                        goto out;
                }
                names[n++] = p;
        }
        *ret = names;
        *ret_n = n;
        names = NULL;
        r = 0;
out:
        pn_free_names(names, n);
        for (size_t i = 0; i < n_owned; i++)
                json_decref(owned[i]);
        return r;
}
