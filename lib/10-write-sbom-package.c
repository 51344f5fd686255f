/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one SBOM package element (lib/10-write-sbom.h): what `pkgnote scan`
 * and `pkgnote ps` say of a package, filled from its metadata in one
 * place and written as an SPDX 2.3 package or a CycloneDX 1.5/1.6
 * component in one place each, so the two documents cannot drift apart.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "10-write-sbom.h"
#include "03-model-purl.h"

static const char *field(const pkgnote_metadata *m, const char *key) {
        const char *v = pkgnote_metadata_get(m, key);
        return v && *v ? v : NULL;
}

/* A copy of S (NULL stays NULL); a failed copy is remembered in *ERR. */
static char *dup_field(const char *s, int *err) {
        char *c = s ? strdup(s) : NULL;
        if (s && !c)
                *err = -ENOMEM;
        return c;
}

int pn_sbom_package_from_metadata(struct pn_sbom_package *e, const pkgnote_metadata *m, bool database,
                                  const char *record, const char *root_os, const char *root_version) {
        int err = 0;
        *e = (struct pn_sbom_package){.database = database};
        e->record = dup_field(record, &err);
        e->name = dup_field(field(m, PKGNOTE_KEY_NAME), &err);
        e->version = dup_field(field(m, PKGNOTE_KEY_VERSION), &err);
        e->type = dup_field(field(m, PKGNOTE_KEY_TYPE), &err);
        e->architecture = dup_field(field(m, PKGNOTE_KEY_ARCHITECTURE), &err);
        /* A note's "license" is no key of the format: only a database's
         * record has one. */
        if (database)
                e->license = dup_field(field(m, "license"), &err);
        static const char *const cpe_keys[] = {PKGNOTE_KEY_APP_CPE, PKGNOTE_KEY_OS_CPE};
        for (size_t k = 0; k < ELEMENTSOF(cpe_keys); k++) {
                char *cpe = pn_cpe_full(field(m, cpe_keys[k]), &e->cpe23[e->n_cpe]);
                if (cpe)
                        e->cpe[e->n_cpe++] = cpe;
        }
        int k = pn_purl_in_root(m, root_os, root_version, &e->purl);
        if (k == -ENOMEM)
                err = k;
        if (k < 0)
                e->purl = NULL; /* a note without a name has none */
        return err;
}

void pn_sbom_package_property(struct pn_sbom_package *e, const char *name, const char *value, bool unique, int *err) {
        for (size_t k = 0; unique && k < e->n_props; k++)
                if (!strcmp(e->props[k].name, name) && !strcmp(e->props[k].value, value))
                        return;
        char *n = strdup(name), *v = strdup(value);
        if (!n || !v || PN_GROW(e->props, e->cap_props, e->n_props + 1) < 0) {
                free(n), free(v);
                *err = -ENOMEM;
                return;
        }
        e->props[e->n_props++] = (struct pn_sbom_property){n, v};
}

void pn_sbom_package_location(struct pn_sbom_package *e, const char *location, int *err) {
        if (PN_GROW(e->locations, e->cap_locations, e->n_locations + 1) < 0)
                *err = -ENOMEM;
        else
                e->locations[e->n_locations++] = location;
}

void pn_sbom_package_done(struct pn_sbom_package *e) {
        free(e->name), free(e->version), free(e->record), free(e->type), free(e->architecture);
        free(e->license), free(e->purl), free(e->source_info), free(e->annotation);
        for (size_t k = 0; k < e->n_cpe; k++)
                free(e->cpe[k]);
        for (size_t k = 0; k < e->n_props; k++)
                free(e->props[k].name), free(e->props[k].value);
        free(e->props);
        free(e->locations);
        *e = (struct pn_sbom_package){0};
}

static const char *name_of(const struct pn_sbom_package *e) {
        return e->name ? e->name : e->unnamed ? e->unnamed : "unknown";
}

static json_t *spdx_ref(const char *category, const char *type, const char *locator) {
        return json_pack("{s:s, s:s, s:s}", "referenceCategory", category, "referenceType", type,
                         "referenceLocator", locator);
}

/* "package note: RECORD", and with LOCATIONS_IN_COMMENT "; mapped: " and
 * the locations; NULL without memory. */
static char *spdx_comment(const struct pn_sbom_package *e) {
        char *c = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&c, &len);
        if (!f)
                return NULL;
        fprintf(f, "%s: %s", e->database ? "package database" : "package note", e->record ? e->record : "");
        if (e->locations_in_comment) {
                fputs("; mapped: ", f);
                for (size_t k = 0; k < e->n_locations; k++)
                        fprintf(f, "%s%s", k ? ", " : "", e->locations[k]);
        }
        if (fclose(f) != 0) {
                free(c);
                return NULL;
        }
        return c;
}

json_t *pn_sbom_spdx_package(const struct pn_sbom_package *e, const char *created, const char *creator, int *err) {
        json_t *p = json_object();
        if (!p)
                return NULL;
        pn_sbom_put(p, "SPDXID", json_string(e->id), err);
        pn_sbom_put(p, "name", pn_sbom_jstr(name_of(e)), err);
        if (e->version)
                pn_sbom_put(p, "versionInfo", pn_sbom_jstr(e->version), err);
        pn_sbom_put(p, "downloadLocation", json_string("NOASSERTION"), err);
        pn_sbom_put(p, "filesAnalyzed", json_false(), err);
        pn_sbom_put(p, "licenseConcluded", json_string("NOASSERTION"), err);
        bool exact;
        char *license = pn_sbom_license_spdx(e->type, e->license, &exact, err);
        pn_sbom_put(p, "licenseDeclared", pn_sbom_jstr(license ? license : "NOASSERTION"), err);
        free(license);
        pn_sbom_put(p, "copyrightText", json_string("NOASSERTION"), err);
        if (e->purpose)
                pn_sbom_put(p, "primaryPackagePurpose", json_string(e->purpose), err);
        /* The purl, then every CPE (SPDX 2.3 F.2: as many SECURITY
         * references as there are). */
        json_t *refs = json_array();
        if (!refs)
                *err = -ENOMEM;
        if (refs && e->purl)
                pn_sbom_push(refs, spdx_ref("PACKAGE-MANAGER", "purl", e->purl), err);
        for (size_t k = 0; refs && k < e->n_cpe; k++)
                pn_sbom_push(refs, spdx_ref("SECURITY", e->cpe23[k] ? "cpe23Type" : "cpe22Type", e->cpe[k]), err);
        if (json_array_size(refs))
                pn_sbom_put(p, "externalRefs", refs, err);
        else
                json_decref(refs);
        if (e->source_info)
                pn_sbom_put(p, "sourceInfo", pn_sbom_jstr(e->source_info), err);
        /* SPDX 2.3 has no field for what the element's own fields cannot
         * say (a version no longer the one on disk): an annotation. */
        if (e->annotation)
                pn_sbom_put(p, "annotations",
                            json_pack("[{s:s, s:s, s:s, s:o}]", "annotationDate", created, "annotationType", "OTHER",
                                      "annotator", creator, "comment", pn_sbom_jstr(e->annotation)),
                            err);
        char *c = spdx_comment(e);
        pn_sbom_put(p, "comment", c ? pn_sbom_jstr(c) : NULL, err);
        free(c);
        return p;
}

json_t *pn_sbom_cdx_component(const struct pn_sbom_package *e, int *err) {
        json_t *c = json_object();
        if (!c)
                return NULL;
        pn_sbom_put(c, "type", json_string("library"), err);
        pn_sbom_put(c, "bom-ref", json_string(e->id), err);
        pn_sbom_put(c, "name", pn_sbom_jstr(name_of(e)), err);
        if (e->version)
                pn_sbom_put(c, "version", pn_sbom_jstr(e->version), err);
        /* One CPE per component (CycloneDX 1.5 component.cpe): the
         * application's, else the OS's. */
        if (e->n_cpe)
                pn_sbom_put(c, "cpe", json_string(e->cpe[0]), err);
        if (e->purl)
                pn_sbom_put(c, "purl", json_string(e->purl), err);
        pn_sbom_cdx_licenses(c, e->type, e->license, err);
        if (e->n_props) {
                json_t *props = json_array();
                for (size_t k = 0; props && k < e->n_props; k++)
                        pn_sbom_push(props, pn_sbom_cdx_property(e->props[k].name, e->props[k].value), err);
                pn_sbom_put(c, "properties", props, err);
        }
        if (e->n_locations) {
                json_t *occ = json_array();
                for (size_t k = 0; occ && k < e->n_locations; k++)
                        pn_sbom_push(occ, json_pack("{s:o}", "location", pn_sbom_jstr(e->locations[k])), err);
                pn_sbom_put(c, "evidence", occ ? json_pack("{s:o}", "occurrences", occ) : NULL, err);
        }
        return c;
}

char *pn_sbom_component_key(const pkgnote_component *c) {
        const char *f[] = {c->ecosystem, c->name, c->version, c->replacement_name, c->replacement_version};
        char *key = NULL;
        if (asprintf(&key, "%c%zu:%s%c%zu:%s%c%zu:%s%c%zu:%s%c%zu:%s", f[0] ? '+' : '-', f[0] ? strlen(f[0]) : 0,
                     f[0] ? f[0] : "", f[1] ? '+' : '-', f[1] ? strlen(f[1]) : 0, f[1] ? f[1] : "", f[2] ? '+' : '-',
                     f[2] ? strlen(f[2]) : 0, f[2] ? f[2] : "", f[3] ? '+' : '-', f[3] ? strlen(f[3]) : 0,
                     f[3] ? f[3] : "", f[4] ? '+' : '-', f[4] ? strlen(f[4]) : 0, f[4] ? f[4] : "") < 0)
                return NULL;
        return key;
}

/* Component C of the list of the object at PATH as an SBOM element named
 * ID: its name, version and purl, and as properties its ecosystem,
 * checksum, source, kind and replacement. */
int pn_sbom_package_from_component(const pkgnote_component *c, const char *id, const char *path,
                                   struct pn_sbom_package *e) {
        int err = 0;
        *e = (struct pn_sbom_package){0};
        snprintf(e->id, sizeof e->id, "%s", id);
        e->unnamed = "unknown";
        if (!(e->name = strdup(c->name)) || (c->version && !(e->version = strdup(c->version))) ||
            (c->purl && !(e->purl = strdup(c->purl))))
                return -ENOMEM;
        e->purpose = c->main ? "APPLICATION" : "LIBRARY";
        pn_sbom_package_property(e, "pkgnote:embedded:ecosystem", c->ecosystem, false, &err);
        const char *const names[] = {"pkgnote:embedded:checksum", "pkgnote:embedded:source", "pkgnote:embedded:kind",
                                     "pkgnote:embedded:replacement:name", "pkgnote:embedded:replacement:version",
                                     "pkgnote:embedded:replacement:checksum"};
        const char *const values[] = {c->checksum, c->source, c->kind, c->replacement_name, c->replacement_version,
                                      c->replacement_checksum};
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
                if (values[k])
                        pn_sbom_package_property(e, names[k], values[k], false, &err);
        pn_sbom_package_location(e, path, &err);
        return err;
}

/* The words SPDX 2.3 has no field for: where the component was found and
 * what its properties say. */
char *pn_sbom_component_comment(const struct pn_sbom_package *e) {
        char *c = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&c, &len);
        if (!f)
                return NULL;
        fputs("what the binary says is inside it", f);
        for (size_t k = 0; k < e->n_props; k++)
                fprintf(f, "; %s: %s", e->props[k].name + strlen("pkgnote:embedded:"), e->props[k].value);
        for (size_t k = 0; k < e->n_locations; k++)
                fprintf(f, "%s%s", k ? ", " : "; found in: ", e->locations[k]);
        if (fclose(f) != 0) {
                free(c);
                return NULL;
        }
        return c;
}
