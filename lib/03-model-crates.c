/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cargo-auditable's crate list (03-model-crates.h).  cargo-auditable
 * (rust-secure-code/cargo-auditable, PARSING.md and
 * cargo-auditable.schema.json) puts into every program it builds a section
 * ".dep-v0": a zlib stream (RFC 1950) of JSON, an object whose "packages"
 * lists the build's packages.  Its section is written with no flags
 * (object_file.rs: not SHF_ALLOC), so it lies in no segment: only the
 * section headers find it, and strip(1) keeps it (it is neither debugging
 * information nor a symbol table) unless told to remove it.
 *
 * Every size is bounded before anything is allocated for it: the section,
 * the decompressed JSON (the decoder stops at the limit, so a zlib bomb
 * costs at most PN_CRATES_MAX_JSON bytes of inflating), the nesting, the
 * packages, the dependency indices and each string.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-decompress.h"
#include "02-elf-const.h"
#include "02-elf-view.h"
#include "03-model-crates.h"
#include "03-model-json.h"

#define WHAT "Rust crate list (.dep-v0)"
/* {"packages":[{"dependencies":[0]}]} is three levels deep. */
#define MAX_DEPTH 8u

const char *pn_crate_kind_name(enum pn_crate_kind k) {
        return k == PN_CRATE_BUILD ? "build" : "runtime";
}

void pn_crates_done(struct pn_crates *c) {
        for (size_t i = 0; i < c->n_crates; i++) {
                free(c->crates[i].name);
                free(c->crates[i].version);
                free(c->crates[i].source);
                free(c->crates[i].deps);
        }
        free(c->crates);
        *c = (struct pn_crates){.root = SIZE_MAX};
}

/* ------------------------------------------------------------------ */
/* The zlib stream                                                     */

int pn_crates_inflate(const uint8_t *z, size_t zlen, uint8_t **json, size_t *len) {
        if (zlen > PN_CRATES_MAX_SECTION)
                return pn_error(-E2BIG, WHAT ": %zu compressed bytes, more than the limit of %u", zlen,
                                PN_CRATES_MAX_SECTION);
        if (zlen == 0)
                return pn_error(-EBADMSG, WHAT ": the section is empty");
        struct pn_decoder *d = NULL;
        int r = pn_decoder_new(PN_CODEC_ZLIB, 0, 0, PN_CRATES_MAX_JSON, &d);
        if (r == -EOPNOTSUPP)
                return pn_error(r, WHAT ": this build of pkgnote cannot decompress zlib streams");
        if (r < 0)
                return pn_error(r, WHAT ": cannot start decompressing");
        /* Room grows by doubling up to one byte past the limit, the byte
         * the decoder needs to tell "exactly the limit" from "more". */
        size_t cap = zlen < (1u << 10) ? (4u << 10) : (zlen > PN_CRATES_MAX_JSON / 4 ? PN_CRATES_MAX_JSON : zlen * 4);
        size_t pos = 0, in_pos = 0;
        uint8_t *buf = malloc(cap);
        if (!buf) {
                pn_decoder_free(d);
                return pn_oom();
        }
        for (;;) {
                if (pos == cap) {
                        size_t ncap = cap > PN_CRATES_MAX_JSON / 2 ? (size_t)PN_CRATES_MAX_JSON + 1 : cap * 2;
                        uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
                        if (!nb) {
                                r = ncap > cap ? pn_oom()
                                               : pn_error(-E2BIG, WHAT ": decompresses to more than %u bytes",
                                                          PN_CRATES_MAX_JSON);
                                break;
                        }
                        buf = nb, cap = ncap;
                }
                size_t i0 = in_pos, o0 = pos;
                r = pn_decoder_step(d, z, zlen, &in_pos, buf, cap, &pos, true);
                if (r == 1) {
                        r = 0;
                        break;
                }
                if (r == -E2BIG) {
                        r = pn_error(-E2BIG, WHAT ": decompresses to more than %u bytes", PN_CRATES_MAX_JSON);
                        break;
                }
                if (r < 0) {
                        const char *detail = NULL;
                        enum pn_decode_error k = pn_decoder_error(d, &detail, NULL);
                        if (k == PN_DECODE_TRUNCATED)
                                r = pn_error(-EBADMSG, WHAT ": the zlib stream is truncated");
                        else if (k == PN_DECODE_NO_MEMORY)
                                r = pn_oom();
                        else
                                r = pn_error(-EBADMSG, WHAT ": damaged zlib stream: %s", detail ? detail : "bad data");
                        break;
                }
                if (in_pos == i0 && pos == o0 && pos < cap) {
                        /* No step forward with all the input given: the
                         * stream cannot end. */
                        r = pn_error(-EBADMSG, WHAT ": the zlib stream is truncated");
                        break;
                }
        }
        pn_decoder_free(d);
        if (r < 0) {
                free(buf);
                return r;
        }
        *json = buf, *len = pos;
        return 0;
}

/* ------------------------------------------------------------------ */
/* The JSON                                                            */

/* A version as the semver crate parses it (semver.org 2.0.0):
 * MAJOR.MINOR.PATCH, numbers without leading zeros, then optionally
 * "-" and dot-separated pre-release identifiers (numeric ones without
 * leading zeros) and "+" and dot-separated build identifiers, each
 * identifier non-empty [0-9A-Za-z-]. */
static bool ident_char(char ch) {
        return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-';
}

static bool semver_valid(const char *s) {
        for (int part = 0; part < 3; part++) {
                const char *st = s;
                while (*s >= '0' && *s <= '9')
                        s++;
                if (s == st || (s - st > 1 && *st == '0') || s - st > 20)
                        return false;
                if (part < 2 && *s++ != '.')
                        return false;
        }
        for (char sep = '-'; *s; sep = '+') {
                if (*s != sep) {
                        if (sep == '-' && *s == '+') {
                                sep = '+';
                        } else
                                return false;
                }
                s++;
                for (;;) {
                        const char *st = s;
                        bool numeric = true;
                        while (ident_char(*s)) {
                                if (*s < '0' || *s > '9')
                                        numeric = false;
                                s++;
                        }
                        if (s == st || (sep == '-' && numeric && s - st > 1 && *st == '0'))
                                return false;
                        if (*s != '.')
                                break;
                        s++;
                }
                if (sep == '+' && *s)
                        return false;
        }
        return true;
}

static int get_string(json_t *pkg, size_t i, const char *key, bool need, char **ret) {
        json_t *v = json_object_get(pkg, key);
        if (!v) {
                if (!need)
                        return 0;
                return pn_error(-EBADMSG, WHAT ": package %zu has no \"%s\"", i, key);
        }
        if (!json_is_string(v))
                return pn_error(-EBADMSG, WHAT ": package %zu: \"%s\" is not a string", i, key);
        size_t len = json_string_length(v);
        const char *s = json_string_value(v);
        if (len > PN_CRATES_MAX_STRING)
                return pn_error(-E2BIG, WHAT ": package %zu: \"%s\" of %zu bytes, more than the limit of %u", i, key,
                                len, PN_CRATES_MAX_STRING);
        if (len == 0)
                return pn_error(-EBADMSG, WHAT ": package %zu: \"%s\" is empty", i, key);
        if (memchr(s, 0, len) || pn_has_control(s))
                return pn_error(-EBADMSG, WHAT ": package %zu: \"%s\" holds a control character", i, key);
        if (!(*ret = strdup(s)))
                return pn_oom();
        return 1;
}

static enum pn_crate_source source_kind(const char *s) {
        static const char *const names[] = {
                [PN_CRATE_SOURCE_CRATES_IO] = "crates.io",
                [PN_CRATE_SOURCE_GIT] = "git",
                [PN_CRATE_SOURCE_LOCAL] = "local",
                [PN_CRATE_SOURCE_REGISTRY] = "registry",
        };
        for (size_t k = 0; k < ELEMENTSOF(names); k++)
                if (strcmp(s, names[k]) == 0)
                        return (enum pn_crate_source)k;
        return PN_CRATE_SOURCE_OTHER;
}

static int parse_package(json_t *pkg, size_t i, size_t n, size_t *edges, struct pn_crate *cr) {
        if (!json_is_object(pkg))
                return pn_error(-EBADMSG, WHAT ": package %zu is not an object", i);
        int r = get_string(pkg, i, "name", true, &cr->name);
        if (r >= 0)
                r = get_string(pkg, i, "version", true, &cr->version);
        if (r >= 0)
                r = get_string(pkg, i, "source", true, &cr->source);
        if (r < 0)
                return r;
        if (!semver_valid(cr->version))
                return pn_error(-EBADMSG, WHAT ": package %zu: version \"%s\" is not a semantic version", i,
                                cr->version);
        cr->source_kind = source_kind(cr->source);

        json_t *v = json_object_get(pkg, "kind");
        if (v) {
                const char *k = json_string_value(v);
                if (!k)
                        return pn_error(-EBADMSG, WHAT ": package %zu: \"kind\" is not a string", i);
                if (strcmp(k, "runtime") == 0)
                        cr->kind = PN_CRATE_RUNTIME;
                else if (strcmp(k, "build") == 0)
                        cr->kind = PN_CRATE_BUILD;
                else
                        return pn_error(-EBADMSG, WHAT ": package %zu: unknown \"kind\" (neither \"runtime\" nor \"build\")", i);
        }
        v = json_object_get(pkg, "root");
        if (v) {
                if (!json_is_boolean(v))
                        return pn_error(-EBADMSG, WHAT ": package %zu: \"root\" is not a boolean", i);
                cr->root = json_is_true(v);
        }
        v = json_object_get(pkg, "dependencies");
        if (!v)
                return 0;
        if (!json_is_array(v))
                return pn_error(-EBADMSG, WHAT ": package %zu: \"dependencies\" is not an array", i);
        size_t nd = json_array_size(v);
        if (nd > PN_CRATES_MAX_DEPS - *edges)
                return pn_error(-E2BIG, WHAT ": more than %u dependencies in all", PN_CRATES_MAX_DEPS);
        *edges += nd;
        if (nd == 0)
                return 0;
        if (!(cr->deps = malloc(nd * sizeof *cr->deps)))
                return pn_oom();
        for (size_t k = 0; k < nd; k++) {
                json_t *d = json_array_get(v, k);
                if (!json_is_integer(d))
                        return pn_error(-EBADMSG, WHAT ": package %zu: dependency %zu is not an integer", i, k);
                json_int_t x = json_integer_value(d);
                if (x < 0 || (uint64_t)x >= n)
                        return pn_error(-EBADMSG, WHAT ": package %zu: dependency %zu is %lld, not the index of a package (0 to %zu)",
                                        i, k, (long long)x, n - 1);
                if ((size_t)x == i)
                        return pn_error(-EBADMSG, WHAT ": package %zu depends on itself", i);
                cr->deps[cr->n_deps++] = (uint32_t)x;
        }
        return 0;
}

/* Kahn's algorithm, O(packages + edges), no recursion: whatever cannot be
 * taken off once nothing depends on it any more lies on a cycle. */
static int check_acyclic(const struct pn_crates *c) {
        size_t n = c->n_crates;
        uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg), *queue = malloc((n ? n : 1) * sizeof *queue);
        if (!indeg || !queue) {
                free(indeg);
                free(queue);
                return pn_oom();
        }
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < c->crates[i].n_deps; k++)
                        indeg[c->crates[i].deps[k]]++;
        size_t head = 0, tail = 0;
        for (size_t i = 0; i < n; i++)
                if (!indeg[i])
                        queue[tail++] = (uint32_t)i;
        while (head < tail) {
                const struct pn_crate *cr = &c->crates[queue[head++]];
                for (size_t k = 0; k < cr->n_deps; k++)
                        if (--indeg[cr->deps[k]] == 0)
                                queue[tail++] = cr->deps[k];
        }
        size_t on_cycle = SIZE_MAX;
        for (size_t i = 0; i < n && on_cycle == SIZE_MAX; i++)
                if (indeg[i])
                        on_cycle = i;
        free(indeg);
        free(queue);
        if (on_cycle != SIZE_MAX)
                return pn_error(-EBADMSG, WHAT ": the dependencies form a cycle (package %zu, \"%s\", is on one)",
                                on_cycle, c->crates[on_cycle].name);
        return 0;
}

static int parse_doc(json_t *doc, struct pn_crates *c) {
        if (!json_is_object(doc))
                return pn_error(-EBADMSG, WHAT ": the JSON is not an object");
        json_t *f = json_object_get(doc, "format");
        if (f) {
                if (!json_is_integer(f) || json_integer_value(f) < 0 || json_integer_value(f) > UINT32_MAX)
                        return pn_error(-EBADMSG, WHAT ": \"format\" is not an unsigned 32-bit integer");
                c->format = (uint32_t)json_integer_value(f);
        }
        json_t *pkgs = json_object_get(doc, "packages");
        if (!pkgs)
                return pn_error(-EBADMSG, WHAT ": no \"packages\"");
        if (!json_is_array(pkgs))
                return pn_error(-EBADMSG, WHAT ": \"packages\" is not an array");
        size_t n = json_array_size(pkgs);
        if (n > PN_CRATES_MAX_CRATES)
                return pn_error(-E2BIG, WHAT ": %zu packages, more than the limit of %u", n, PN_CRATES_MAX_CRATES);
        if (n && !(c->crates = calloc(n, sizeof *c->crates)))
                return pn_oom();
        size_t edges = 0;
        for (size_t i = 0; i < n; i++) {
                c->n_crates = i + 1;
                int r = parse_package(json_array_get(pkgs, i), i, n, &edges, &c->crates[i]);
                if (r < 0)
                        return r;
                if (c->crates[i].root) {
                        if (c->root != SIZE_MAX)
                                return pn_error(-EBADMSG, WHAT ": more than one root package (%zu and %zu)", c->root, i);
                        c->root = i;
                }
        }
        return check_acyclic(c);
}

int pn_crates_parse(const uint8_t *json, size_t len, struct pn_crates *c) {
        *c = (struct pn_crates){.root = SIZE_MAX};
        const char *text = (const char *)json;
        if (len > PN_CRATES_MAX_JSON)
                return pn_error(-E2BIG, WHAT ": %zu bytes of JSON, more than the limit of %u", len, PN_CRATES_MAX_JSON);
        if (memchr(text, 0, len))
                return pn_error(-EBADMSG, WHAT ": the JSON contains a NUL byte");
        size_t bad = pn_utf8_invalid_at(text, len);
        if (bad < len)
                return pn_error(-EBADMSG, WHAT ": the JSON is not valid UTF-8 at byte %zu", bad);
        unsigned depth = pn_json_depth(text, len);
        if (depth > MAX_DEPTH)
                return pn_error(-EBADMSG, WHAT ": JSON nested %u levels deep, more than the format's %u", depth, MAX_DEPTH);
        json_error_t jerr;
        json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
                return pn_json_oom(&jerr) ? pn_oom()
                                          : pn_error(-EBADMSG, WHAT ": invalid JSON at byte %d: %s", jerr.position, jerr.text);
        int r = parse_doc(doc, c);
        json_decref(doc);
        if (r < 0)
                pn_crates_done(c);
        return r;
}

int pn_crates_decode(const uint8_t *z, size_t zlen, struct pn_crates *c) {
        *c = (struct pn_crates){.root = SIZE_MAX};
        uint8_t *json = NULL;
        size_t len = 0;
        int r = pn_crates_inflate(z, zlen, &json, &len);
        if (r < 0)
                return r;
        r = pn_crates_parse(json, len, c);
        free(json);
        return r;
}

/* ------------------------------------------------------------------ */
/* The section                                                         */

int pn_crates_read(pkgnote_object *e, struct pn_crates *c) {
        *c = (struct pn_crates){.root = SIZE_MAX};
        int n = pkgnote_object_shdr_count(e);
        if (n < 0)
                return n;
        for (int i = 0; i < n; i++) {
                const pkgnote_shdr *s = pkgnote_object_shdr(e, (size_t)i);
                if (!s || strcmp(s->name, PN_CRATES_SECTION) != 0)
                        continue;
                if (s->type == SHT_NOBITS || s->offset > e->size || s->size > e->size - s->offset)
                        return pn_error(-EBADMSG, WHAT ": the section lies outside the file");
                if (s->size > PN_CRATES_MAX_SECTION)
                        return pn_error(-E2BIG, WHAT ": a section of %" PRIu64 " bytes, more than the limit of %u",
                                        s->size, PN_CRATES_MAX_SECTION);
                int err = 0;
                const uint8_t *z = pn_elf_bytes(e, s->offset, s->size, &err);
                if (!z)
                        return err;
                int r = pn_crates_decode(z, (size_t)s->size, c);
                return r < 0 ? r : 1;
        }
        return 0;
}
