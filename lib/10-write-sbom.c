/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pieces the SBOM writers share (lib/10-write-sbom.h): one place for
 * the document identity, the headers and the license mapping, so that
 * `pkgnote scan` and `pkgnote ps` write documents of one shape.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "10-write-sbom.h"
#include "03-model-json.h"
#include "04-pkgdb-private.h"

json_t *pn_sbom_jstr(const char *s) {
        return pn_json_bytes(s);
}

void pn_sbom_put(json_t *o, const char *key, json_t *v, int *err) {
        if (!v || json_object_set_new(o, key, v) < 0)
                *err = -ENOMEM;
}

void pn_sbom_push(json_t *a, json_t *v, int *err) {
        if (!v || json_array_append_new(a, v) < 0)
                *err = -ENOMEM;
}

void pn_sbom_timestamp(int64_t t, char buf[32]) {
        time_t tt = t < 0 ? time(NULL) : (time_t)t;
        struct tm tm;
        gmtime_r(&tt, &tm);
        strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Reproducible: two FNV-1a passes with different offsets over TEXT (not
 * cryptographic, only stable and well spread). */
int pn_sbom_uuid(const char *text, int reproducible, char out[37]) {
        uint8_t b[16];
        if (reproducible) {
                uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
                for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
                        h1 = (h1 ^ *p) * 0x100000001b3ULL;
                        h2 = (h2 ^ *p) * 0x100000001b3ULL;
                        h2 ^= h2 >> 29;
                }
                pn_wr64(b, h1, true);
                pn_wr64(b + 8, h2, true);
        } else {
                size_t got = 0;
                while (got < sizeof b) {
                        ssize_t n = getrandom(b + got, sizeof b - got, 0);
                        if (n < 0) {
                                if (errno == EINTR)
                                        continue;
                                return pn_error(-errno, "cannot get random bytes: %s", strerror(errno));
                        }
                        got += (size_t)n;
                }
        }
        b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
        b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
        snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
        return 0;
}

/* With the reports' escaping: a file name or note value holding a C1
 * control (raw UTF-8 to jansson) must not reach a terminal as one. */
static int dump(json_t *doc, char **ret) {
        return pn_json_dump_report(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, ret);
}

int pn_sbom_finish(json_t *doc, int err, const pkgnote_sbom_options *o, const char *key, const char *prefix,
                   char **ret) {
        if (err) {
                json_decref(doc);
                return pn_oom();
        }
        char *text = NULL, uuid[37], id[128];
        int r = dump(doc, &text);
        if (r >= 0) {
                r = pn_sbom_uuid(text, o->reproducible, uuid);
                free(text);
        }
        if (r >= 0) {
                snprintf(id, sizeof id, "%s%s", prefix, uuid);
                pn_sbom_put(doc, key, json_string(id), &err);
                r = err ? pn_oom() : dump(doc, ret);
        }
        json_decref(doc);
        return r;
}

/* What pkgnote writes reads the same in all three versions: 1.6 only adds
 * to 1.5, and 1.7 to 1.6 (component isExternal, versionRange and
 * patentAssertions, metadata distributionConstraints, the BOM's
 * citations; nothing pkgnote writes changed, nothing became required),
 * so only specVersion differs. */
const char *pn_sbom_cdx_version(int format) {
        switch (format) {
        case PKGNOTE_SBOM_CYCLONEDX_1_7: return "1.7";
        case PKGNOTE_SBOM_CYCLONEDX:
        case PKGNOTE_SBOM_CYCLONEDX_1_6: return "1.6";
        case PKGNOTE_SBOM_CYCLONEDX_1_5: return "1.5";
        default: return NULL;
        }
}

void pn_sbom_spdx_header(json_t *doc, const pkgnote_sbom_options *o, const char *default_name, int *err) {
        char created[32];
        pn_sbom_timestamp(o->created, created);
        pn_sbom_put(doc, "spdxVersion", json_string("SPDX-2.3"), err);
        pn_sbom_put(doc, "dataLicense", json_string("CC0-1.0"), err);
        pn_sbom_put(doc, "SPDXID", json_string("SPDXRef-DOCUMENT"), err);
        pn_sbom_put(doc, "name", pn_sbom_jstr(o->name ? o->name : default_name), err);
        pn_sbom_put(doc, "documentNamespace", json_string(""), err); /* set last */
        char creator[96];
        snprintf(creator, sizeof creator, "Tool: pkgnote-%s", o->tool_version ? o->tool_version : PACKAGE_VERSION);
        pn_sbom_put(doc, "creationInfo", json_pack("{s:s, s:[s]}", "created", created, "creators", creator), err);
}

json_t *pn_sbom_cdx_property(const char *name, const char *value) {
        json_t *p = json_object();
        int err = 0;
        if (!p)
                return NULL;
        pn_sbom_put(p, "name", json_string(name), &err);
        pn_sbom_put(p, "value", pn_sbom_jstr(value), &err);
        if (err) {
                json_decref(p);
                return NULL;
        }
        return p;
}

void pn_sbom_cdx_header(json_t *doc, const pkgnote_sbom_options *o, const char *spec_version, int *err) {
        char created[32];
        pn_sbom_timestamp(o->created, created);
        pn_sbom_put(doc, "bomFormat", json_string("CycloneDX"), err);
        pn_sbom_put(doc, "specVersion", json_string(spec_version), err);
        pn_sbom_put(doc, "serialNumber", json_string(""), err); /* set last */
        pn_sbom_put(doc, "version", json_integer(1), err);
        json_t *tool = json_pack("{s:s, s:s, s:s}", "type", "application", "name", "pkgnote", "version",
                                 o->tool_version ? o->tool_version : PACKAGE_VERSION);
        json_t *meta = json_pack("{s:s, s:{s:[o]}}", "timestamp", created, "tools", "components", tool);
        if (meta && o->name)
                pn_sbom_put(meta, "properties", json_pack("[o]", pn_sbom_cdx_property("pkgnote:scanned", o->name)), err);
        pn_sbom_put(doc, "metadata", meta, err);
}

json_t *pn_sbom_spdx_relationship(const char *from, const char *type, const char *to, const char *comment) {
        json_t *r = json_pack("{s:s, s:s, s:s}", "spdxElementId", from, "relationshipType", type,
                              "relatedSpdxElement", to);
        if (r && comment && json_object_set_new(r, "comment", json_string(comment)) < 0) {
                json_decref(r);
                return NULL;
        }
        return r;
}

char *pn_sbom_license_spdx(const char *type, const char *license, bool *exact, int *err) {
        *exact = true;
        if (!license || !*license)
                return NULL;
        char *x = NULL;
        if (type && strcmp(type, "deb")) {
                int r = pn_license_tag_spdx(license, &x);
                if (r == -ENOMEM)
                        *err = r;
                *exact = r > 0;
                return r >= 0 ? x : NULL;
        }
        if (!(x = strdup(license)))
                *err = -ENOMEM;
        return x;
}

void pn_sbom_cdx_licenses(json_t *c, const char *type, const char *license, int *err) {
        bool exact;
        char *x = pn_sbom_license_spdx(type, license, &exact, err);
        if (x && exact)
                pn_sbom_put(c, "licenses", json_pack("[{s:o}]", "expression", pn_sbom_jstr(x)), err);
        else if (x) /* names that are no SPDX identifier: the packager's words */
                pn_sbom_put(c, "licenses", json_pack("[{s:{s:o}}]", "license", "name", pn_sbom_jstr(license)), err);
        free(x);
}

void pn_sbom_spdx_license_refs(json_t *doc, json_t *pkgs, int *err) {
        json_t *refs = json_array();
        if (!refs) {
                *err = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < json_array_size(pkgs) && !*err; i++) {
                const char *l = json_string_value(json_object_get(json_array_get(pkgs, i), "licenseDeclared"));
                for (const char *p = l ? strstr(l, "LicenseRef-") : NULL; p; p = strstr(p, "LicenseRef-")) {
                        size_t n = strspn(p, "LicenseRef-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.");
                        char *id = strndup(p, n);
                        p += n;
                        if (!id) {
                                *err = -ENOMEM;
                                break;
                        }
                        bool seen = false;
                        for (size_t k = 0; k < json_array_size(refs) && !seen; k++)
                                seen = !strcmp(json_string_value(json_object_get(json_array_get(refs, k), "licenseId")), id);
                        if (!seen) {
                                char *text = NULL;
                                if (asprintf(&text, "The license the package's metadata names \"%s\" (its copyright file, License tag or L: field); no SPDX identifier stands for it exactly.", id + 11) < 0)
                                        *err = -ENOMEM;
                                else
                                        pn_sbom_push(refs, json_pack("{s:s, s:s, s:s}", "licenseId", id, "name", id + 11, "extractedText", text), err);
                                free(text);
                        }
                        free(id);
                }
        }
        if (json_array_size(refs))
                pn_sbom_put(doc, "hasExtractedLicensingInfos", refs, err);
        else
                json_decref(refs);
}
