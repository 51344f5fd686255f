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

#include "03-model-json.h"
#include "09-scan-private.h"

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
        if (image[0] == '@' && transport == PN_IMAGE_STORAGE)
                return pn_error(-EINVAL, "'%s': a store names its images by NAME[:TAG], ID or @DIGEST", image);
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

/* "containers-storage:[STORE]NAME": the store into *PATH ("" for the
 * user's own), NAME (may be empty: every image) into SEL. */
static int storage_ref_parse(const char *body, char **path, struct pn_image_sel *sel) {
        const char *name = body;
        size_t plen = 0;
        if (*body == '[') {
                const char *end = strchr(body, ']');
                if (!end)
                        return pn_error(-EINVAL, "no ']' after the store in the image reference");
                body++;
                plen = (size_t)(end - body);
                name = end + 1;
        }
        if (!(*path = strndup(body, plen)))
                return pn_oom();
        int r = *name ? pn_image_select(name, PN_IMAGE_STORAGE, sel) : 0;
        if (r < 0) {
                free(*path);
                *path = NULL;
                return r;
        }
        return 1;
}

int pn_image_ref_parse(const char *ref, char **path, struct pn_image_sel *sel) {
        if (!strncmp(ref, "containers-storage:", 19)) {
                *sel = (struct pn_image_sel){.transport = PN_IMAGE_STORAGE, .index = -1};
                return storage_ref_parse(ref + 19, path, sel);
        }
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
                return pn_oom();
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
                bool same = pn_sha256_is(data, len, digest);
                if (!same || (size >= 0 && (uint64_t)size != len)) {
                        free(data);
                        return pn_error(-EBADMSG, "%s: content does not match its digest%s", name,
                                        same ? " (size differs)" : "");
                }
        }
        json_error_t jerr;
        json_t *v = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
        free(data);
        if (!v)
                return pn_json_oom(&jerr) ? pn_oom() : pn_error(-EBADMSG, "%s: invalid JSON: %s", name, jerr.text);
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

/* The descriptor to follow among MS, the "manifests" of a nested index:
 * the platform SEL asks for (this machine's by default) when they name
 * platforms, else the first. */
static int by_platform(const struct pn_image_sel *sel, json_t *ms, json_t **ret) {
        size_t n = json_array_size(ms), objects = 0;
        bool platforms = false;
        for (size_t i = 0; i < n; i++) {
                json_t *d = json_array_get(ms, i);
                objects += json_is_object(d);
                platforms |= json_is_object(d) && json_object_get(d, "platform") != NULL;
        }
        if (objects == 0)
                return pn_error(-EBADMSG, "index lists no manifest descriptors");
        if (objects > 1 && platforms) {
                const char *os = sel->os ? sel->os : "linux", *arch = sel->arch, *variant = sel->variant;
                if (!arch)
                        host_platform(&arch, &variant);
                /* An exact match first; then, for this machine's variant
                 * an index may not name, any variant. */
                for (int loose = 0; loose < 2; loose++) {
                        if (loose && (sel->arch || !variant))
                                break;
                        for (size_t i = 0; i < n; i++) {
                                json_t *d = json_array_get(ms, i);
                                if (json_is_object(d) && platform_matches(d, os, arch, loose ? NULL : variant)) {
                                        *ret = d;
                                        return 0;
                                }
                        }
                }
                char *list = NULL, buf[128];
                size_t list_len = 0;
                for (size_t i = 0; i < n; i++)
                        if (json_is_object(json_array_get(ms, i)))
                                list_add(&list, &list_len, platform_name(json_array_get(ms, i), buf, sizeof buf));
                int r = pn_error(-ENOENT, "no image for platform %s/%s%s%s (platforms: %s)", os, arch,
                                 variant ? "/" : "", variant ? variant : "", list ? list : "none");
                free(list);
                return r;
        }
        for (size_t i = 0; i < n; i++)
                if (json_is_object(json_array_get(ms, i))) {
                        *ret = json_array_get(ms, i);
                        return 0;
                }
        return pn_error(-EBADMSG, "index lists no manifest descriptors");
}

struct walk {
        pkgnote_scan *s;
        const struct pn_image_sel *sel;
        pn_blob_fn get;
        void *u;
        int kind; /* PN_IMAGE_OCI, _OCI_ARCHIVE or _DOCKER_ARCHIVE */
};

/* Loads the document descriptor D names, verified against its digest
 * and size; WHAT names it in errors. */
static int load_desc(const struct walk *w, json_t *d, const char *what, json_t **ret) {
        const char *digest = json_string_value(json_object_get(d, "digest"));
        json_t *size = json_object_get(d, "size");
        char *path = digest_path(digest);
        if (!path)
                return pn_error(-EBADMSG, "%s: no usable digest", what);
        int r = load(w->sel, w->get, w->u, path, digest, json_is_integer(size) ? json_integer_value(size) : -1, ret);
        free(path);
        return r;
}

/* The manifest that descriptor D leads to (the caller owns it), through
 * nested indexes to a bounded depth. */
static int to_manifest(const struct walk *w, json_t *d, json_t **ret) {
        json_t *cur = NULL;
        for (int depth = 0;; depth++) {
                json_t *next;
                int r = load_desc(w, d, depth ? "index" : "image", &next);
                json_decref(cur); /* D pointed into it */
                if (r < 0)
                        return r;
                cur = next;
                json_t *ms = json_object_get(cur, "manifests");
                if (!json_is_array(ms)) {
                        *ret = cur;
                        return 0;
                }
                if (depth + 2 > MAX_INDEX_DEPTH)
                        r = pn_error(-ELOOP, "image indexes nested deeper than %d (an index naming itself?)",
                                     MAX_INDEX_DEPTH);
                else
                        r = by_platform(w->sel, ms, &d);
                if (r < 0) {
                        json_decref(cur);
                        return r;
                }
        }
}

void pn_image_picks_free(struct pn_image_pick *p, size_t n) {
        for (size_t i = 0; p && i < n; i++) {
                pn_scan_image_free(p[i].img);
                pn_free_names(p[i].layers, p[i].n_layers);
        }
        free(p);
}

int pn_image_platform(json_t *config, char **ret) {
        const char *os = json_string_value(json_object_get(config, "os"));
        const char *arch = json_string_value(json_object_get(config, "architecture"));
        const char *variant = json_string_value(json_object_get(config, "variant"));
        *ret = NULL;
        if (os && arch && asprintf(ret, "%s/%s%s%s", os, arch, variant ? "/" : "", variant ? variant : "") < 0) {
                *ret = NULL;
                return pn_oom();
        }
        return 0;
}

/* Sets the platform and id of IM from its configuration CONFIG. */
static int config_fields(struct pkgnote_scan_image *im, json_t *config, const char *id) {
        if (!json_is_object(config))
                return pn_error(-EBADMSG, "image configuration: not a JSON object");
        if (id && !(im->id = strdup(id)))
                return pn_oom();
        return pn_image_platform(config, &im->platform);
}

int pn_image_add_tag(struct pkgnote_scan_image *im, const char *tag) {
        if (!tag)
                return 0;
        /* A bound, since each tag is compared with those before it. */
        if (im->n_tags >= PKGNOTE_MAX_SCAN_LAYERS)
                return pn_error(-E2BIG, "more than %u tags", PKGNOTE_MAX_SCAN_LAYERS);
        for (size_t i = 0; i < im->n_tags; i++)
                if (!strcmp(im->tags[i], tag))
                        return 0;
        char **t = realloc(im->tags, (im->n_tags + 1) * sizeof *t);
        if (!t)
                return pn_oom();
        im->tags = t;
        if (!(t[im->n_tags] = strdup(tag)))
                return pn_oom();
        im->n_tags++;
        return 0;
}

/* The layer names of LAYERS (a docker "Layers" list of paths, or an OCI
 * "layers" list of descriptors) into PICK, adding OCI sizes to its image. */
static int pick_layers(struct pn_image_pick *pick, json_t *layers, bool docker) {
        if (!json_is_array(layers))
                return pn_error(-EBADMSG, "image manifest lists no layers");
        size_t n = json_array_size(layers);
        if (n > PKGNOTE_MAX_SCAN_LAYERS)
                return pn_error(-E2BIG, "more than %u layers", PKGNOTE_MAX_SCAN_LAYERS);
        if (!(pick->layers = calloc(n + 1, sizeof *pick->layers)))
                return pn_oom();
        for (size_t i = 0; i < n; i++) {
                json_t *v = json_array_get(layers, i);
                char *p;
                if (docker) {
                        char norm[PKGNOTE_MAX_SCAN_PATH + 1];
                        const char *str = json_string_value(v);
                        p = str && pn_path_normalize(str, norm, sizeof norm) > 0 ? strdup(norm) : NULL;
                } else {
                        p = digest_path(json_string_value(json_object_get(v, "digest")));
                        json_t *size = json_object_get(v, "size");
                        if (json_is_integer(size) && json_integer_value(size) > 0)
                                pick->img->size += (uint64_t)json_integer_value(size);
                }
                if (!p)
                        return pn_error(-EBADMSG, "layer %zu: bad name or digest", i);
                pick->layers[pick->n_layers++] = p;
        }
        pick->img->n_layers = pick->n_layers;
        return 0;
}

static const char *const prefixes[] = {
        [PN_IMAGE_OCI] = "oci:",
        [PN_IMAGE_OCI_ARCHIVE] = "oci-archive:",
        [PN_IMAGE_DOCKER_ARCHIVE] = "docker-archive:",
};

/* The image an OCI top-level descriptor D names (its tags: every
 * reference name of a descriptor of the same digest in MS). */
static int oci_image(const struct walk *w, json_t *ms, json_t *d, struct pn_image_pick *pick) {
        const char *digest = json_string_value(json_object_get(d, "digest"));
        for (size_t i = 0; i < json_array_size(ms); i++) {
                json_t *x = json_array_get(ms, i);
                const char *xd = json_string_value(json_object_get(x, "digest"));
                int r = xd && digest && !strcmp(xd, digest) ? pn_image_add_tag(pick->img, ref_name(x)) : 0;
                if (r < 0)
                        return r;
        }
        if (digest && !(pick->img->digest = strdup(digest)))
                return pn_oom();
        bool archive = w->kind == PN_IMAGE_OCI_ARCHIVE;
        int r;
        if (pick->img->n_tags)
                r = asprintf(&pick->img->reference, "%s%s:%s", prefixes[w->kind], w->sel->path, pick->img->tags[0]);
        else
                r = asprintf(&pick->img->reference, "%s%s%s%s", prefixes[w->kind], w->sel->path, archive ? ":@" : "@",
                             digest ? digest : "");
        if (r < 0) {
                pick->img->reference = NULL;
                return pn_oom();
        }
        json_t *m;
        if ((r = to_manifest(w, d, &m)) < 0)
                return r;
        r = pick_layers(pick, json_object_get(m, "layers"), false);
        json_t *cd = json_object_get(m, "config"), *config = NULL;
        if (r >= 0 && json_is_object(cd) && (r = load_desc(w, cd, "image configuration", &config)) >= 0) {
                r = config_fields(pick->img, config, json_string_value(json_object_get(cd, "digest")));
                json_t *size = json_object_get(cd, "size");
                if (json_is_integer(size) && json_integer_value(size) > 0)
                        pick->img->size += (uint64_t)json_integer_value(size);
        }
        json_decref(config);
        json_decref(m);
        return r;
}

/* The image of entry NO of a docker manifest.json, IMG. */
static int docker_image(const struct walk *w, json_t *img, size_t no, struct pn_image_pick *pick) {
        json_t *tags = json_object_get(img, "RepoTags");
        int r = 0;
        for (size_t k = 0; k < json_array_size(tags) && r >= 0; k++)
                r = pn_image_add_tag(pick->img, json_string_value(json_array_get(tags, k)));
        if (r < 0)
                return r;
        if (pick->img->n_tags)
                r = asprintf(&pick->img->reference, "%s%s:%s", prefixes[w->kind], w->sel->path, pick->img->tags[0]);
        else
                r = asprintf(&pick->img->reference, "%s%s:@%zu", prefixes[w->kind], w->sel->path, no);
        if (r < 0) {
                pick->img->reference = NULL;
                return pn_oom();
        }
        if ((r = pick_layers(pick, json_object_get(img, "Layers"), true)) < 0)
                return r;
        /* The configuration, "HEX.json" or "blobs/sha256/HEX": its name
         * is its digest (the image's id). */
        const char *cname = json_string_value(json_object_get(img, "Config"));
        char norm[PKGNOTE_MAX_SCAN_PATH + 1], digest[7 + 65];
        if (!cname || pn_path_normalize(cname, norm, sizeof norm) <= 0)
                return pn_error(-EBADMSG, "image %zu: no configuration named", no);
        const char *base = strncmp(norm, "blobs/sha256/", 13) ? norm : norm + 13;
        size_t hex = strspn(base, "0123456789abcdef");
        bool named = hex == 64 && (!base[hex] || (base == norm && !strcmp(base + hex, ".json")));
        snprintf(digest, sizeof digest, "sha256:%.64s", base);
        json_t *config;
        if ((r = load(w->sel, w->get, w->u, norm, named ? digest : NULL, -1, &config)) == -ENOENT) {
                /* Its files are all there is to report: told, not fatal. */
                pn_scan_add_problem(w->s, pick->img->input, pick->img->reference, r,
                                    "image configuration %s is missing", norm);
                return 0;
        }
        if (r < 0)
                return r;
        r = config_fields(pick->img, config, named ? digest : NULL);
        json_decref(config);
        return r;
}

/* Lists what is present, for an error about a name that is not: the
 * tags (or digests) of an OCI index, the tags of a docker archive. */
static char *present(json_t *root, bool docker, bool digests) {
        char *list = NULL;
        size_t len = 0;
        for (size_t i = 0; i < json_array_size(docker ? root : json_object_get(root, "manifests")); i++) {
                json_t *d = json_array_get(docker ? root : json_object_get(root, "manifests"), i);
                if (!docker) {
                        list_add(&list, &len, digests ? json_string_value(json_object_get(d, "digest")) : ref_name(d));
                        continue;
                }
                json_t *tags = json_object_get(d, "RepoTags");
                for (size_t k = 0; k < json_array_size(tags); k++)
                        list_add(&list, &len, json_string_value(json_array_get(tags, k)));
                if (json_array_size(tags) == 0)
                        list_add(&list, &len, "(untagged)");
        }
        return list;
}

/* Whether the top-level entry I of ROOT is one SEL asks for; the first
 * of several naming the same OCI digest stands for them all. */
static bool wanted(const struct pn_image_sel *sel, json_t *root, bool docker, size_t i) {
        if (docker) {
                json_t *img = json_array_get(root, i);
                if (!json_is_object(img))
                        return false;
                if (sel->index >= 0)
                        return (size_t)sel->index == i;
                if (!sel->tag)
                        return true;
                json_t *tags = json_object_get(img, "RepoTags");
                for (size_t k = 0; k < json_array_size(tags); k++) {
                        const char *t = json_string_value(json_array_get(tags, k));
                        if (t && docker_tag_matches(t, sel->tag))
                                return true;
                }
                return false;
        }
        json_t *ms = json_object_get(root, "manifests"), *d = json_array_get(ms, i);
        const char *digest = json_string_value(json_object_get(d, "digest"));
        if (!json_is_object(d) || !digest)
                return false;
        if (sel->digest && strcmp(digest, sel->digest) != 0)
                return false;
        if (sel->tag && strcmp(str_or(ref_name(d), ""), sel->tag) != 0)
                return false;
        for (size_t k = 0; k < i && !sel->tag; k++)
                if (!strcmp(str_or(json_string_value(json_object_get(json_array_get(ms, k), "digest")), ""), digest))
                        return false; /* told with the first */
        return true;
}

int pn_image_list(pkgnote_scan *s, size_t input, const char *display, const struct pn_image_sel *sel, int kind,
                  pn_blob_fn get, void *u, struct pn_image_pick **ret, size_t *ret_n) {
        struct walk w = {s, sel, get, u, kind};
        bool docker = kind == PN_IMAGE_DOCKER_ARCHIVE;
        json_t *root;
        bool named = sel->tag || sel->digest || sel->index >= 0;
        if (docker && sel->digest)
                return pn_error(-EINVAL, "a docker archive names its images by REPO:TAG or @N, not by digest");
        if (!docker && sel->index >= 0)
                return pn_error(-EINVAL, "an OCI layout names its images by TAG or @DIGEST, not by @N");
        int r = load(sel, get, u, docker ? "manifest.json" : "index.json", NULL, -1, &root);
        if (r < 0)
                return r;
        size_t n = 0;
        if (docker && (!json_is_array(root) || json_array_size(root) == 0))
                r = pn_error(-EBADMSG, "manifest.json: not an array of images");
        else if (!docker && !json_is_array(json_object_get(root, "manifests")))
                r = pn_error(-EBADMSG, "index.json: no manifests");
        else if ((n = json_array_size(docker ? root : json_object_get(root, "manifests"))) == 0)
                r = pn_error(-EBADMSG, "%s lists no images", docker ? "manifest.json" : "index.json");
        if (r < 0) {
                json_decref(root);
                return r;
        }
        if (n > PKGNOTE_MAX_SCAN_LAYERS) {
                json_decref(root);
                return pn_error(-E2BIG, "more than %u images", PKGNOTE_MAX_SCAN_LAYERS);
        }
        struct pn_image_pick *picks = calloc(n, sizeof *picks);
        size_t k = 0, failed = 0;
        int first_err = 0;
        char *first_msg = NULL;
        if (!picks)
                r = pn_oom();
        for (size_t i = 0; r >= 0 && i < n && !(named && k); i++) {
                if (!wanted(sel, root, docker, i))
                        continue;
                struct pn_image_pick *p = &picks[k];
                if (!(p->img = calloc(1, sizeof *p->img))) {
                        r = pn_oom();
                        break;
                }
                p->img->input = input;
                int q = docker ? docker_image(&w, json_array_get(root, i), i, p)
                               : oci_image(&w, json_object_get(root, "manifests"), json_array_get(json_object_get(root, "manifests"), i), p);
                if (q >= 0) {
                        k++;
                        continue;
                }
                if (named || q == -ENOMEM) {
                        r = q;
                        break;
                }
                /* Every image asked for: one that cannot be read is told,
                 * the others are reported. */
                pn_scan_add_problem(s, input, display, q, "image %s: %s",
                                    p->img->reference ? p->img->reference : "?", pkgnote_last_error());
                if (!failed++) {
                        first_err = q;
                        first_msg = strdup(pkgnote_last_error());
                }
                pn_scan_image_free(p->img);
                pn_free_names(p->layers, p->n_layers);
                *p = (struct pn_image_pick){0};
        }
        if (r >= 0 && k == 0 && named) {
                char *list = present(root, docker, sel->digest != NULL);
                if (sel->index >= 0)
                        r = pn_error(-ENOENT, "no image @%ld: the archive holds %zu (@0 to @%zu)", sel->index, n, n - 1);
                else
                        r = pn_error(-ENOENT, "no image %s '%s' (%s: %s)", sel->tag ? "tagged" : "with digest",
                                     sel->tag ? sel->tag : sel->digest, sel->tag ? "tags" : "digests", list ? list : "none");
                free(list);
        } else if (r >= 0 && k == 0)
                r = failed ? pn_error(first_err, "%s", first_msg ? first_msg : "no image can be read")
                           : pn_error(-EBADMSG, "%s lists no images", docker ? "manifest.json" : "index.json");
        free(first_msg);
        json_decref(root);
        if (r < 0) {
                pn_image_picks_free(picks, k + 1);
                return r;
        }
        *ret = picks;
        *ret_n = k;
        return 0;
}
