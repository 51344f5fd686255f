/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SPDX 3.0.1 JSON-LD, for `pkgnote scan` and `pkgnote ps` alike: the SPDX
 * 2.3 document their writers build (lib/10-write-sbom-scan.c,
 * lib/10-write-sbom-core.c), said again in SPDX 3's vocabulary, so that
 * both formats carry the same facts and a field is added in one place.
 *
 * SPDX 3.0.1 (Core, Software, SimpleLicensing, ExpandedLicensing
 * profiles; JSON-LD serialization, https://spdx.org/rdf/3.0.1/spdx-context.jsonld):
 *   - the document is one object: "@context" and "@graph", the list of
 *     every element;
 *   - every element has an IRI "spdxId" and a "creationInfo", here the
 *     one blank node "_:creationinfo" (created, specVersion, createdBy an
 *     Agent, createdUsing a Tool);
 *   - SPDX 2.3's relationship types become the 3.0 ones: CONTAINS
 *     contains, DEPENDS_ON dependsOn (hasDynamicLink for a DT_NEEDED
 *     library), X OPTIONAL_DEPENDENCY_OF Y: Y hasOptionalDependency X,
 *     OTHER "evident-by" hasEvidence; DESCRIBES becomes the rootElement of
 *     the software_Sbom;
 *   - a package's declared license is a simplelicensing_LicenseExpression
 *     it hasDeclaredLicense; a LicenseRef- it names is an
 *     expandedlicensing_CustomLicense carrying the extracted text, which
 *     the expression maps with simplelicensing_customIdToUri;
 *   - checksums are Hash integrity methods (verifiedUsing); CPEs external
 *     identifiers (cpe23, cpe22); the purl software_packageUrl; 2.3's
 *     sourceInfo software_sourceInfo; annotations Annotation elements.
 * The element ids are the 2.3 SPDXIDs below the document's namespace,
 * https://spdx.org/spdxdocs/pkgnote-KIND-UUID#, whose UUID is chosen as
 * 2.3's namespace is (pn_sbom_uuid(): with reproducible ids, of the
 * document's text written with the UUID left out).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "10-write-sbom.h"
#include "03-model-json.h"

#define SPDX3_CONTEXT "https://spdx.org/rdf/3.0.1/spdx-context.jsonld"
#define CREATION_INFO "_:creationinfo"

struct spdx3 {
        json_t *graph, *elements; /* the @graph; the ids of the elements of the document */
        json_t *licenses;         /* expression -> its element's id */
        json_t *custom;           /* LicenseRef-X -> its CustomLicense's id */
        const char *base;         /* the namespace, ending in '#' */
        size_t n_rel, n_lic, n_ann;
        int *err;
};

/* BASE followed by LOCAL, a JSON string; NULL without memory. */
static json_t *iri(const struct spdx3 *x, const char *local) {
        char *s = NULL;
        if (asprintf(&s, "%s%s", x->base, local) < 0)
                return NULL;
        json_t *j = pn_sbom_jstr(s);
        free(s);
        return j;
}

/* A new element of TYPE named LOCAL in the graph and the document's list. */
static json_t *element(struct spdx3 *x, const char *type, const char *local) {
        json_t *e = json_object();
        if (!e) {
                *x->err = -ENOMEM;
                return NULL;
        }
        pn_sbom_put(e, "type", json_string(type), x->err);
        pn_sbom_put(e, "spdxId", iri(x, local), x->err);
        pn_sbom_put(e, "creationInfo", json_string(CREATION_INFO), x->err);
        pn_sbom_push(x->elements, iri(x, local), x->err);
        pn_sbom_push(x->graph, e, x->err);
        return e;
}

static const char *str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

/* Copies the string KEY of FROM, unless absent or NOASSERTION, as NEW_KEY. */
static void copy(json_t *to, const char *new_key, json_t *from, const char *key, int *err) {
        const char *v = str(from, key);
        if (v && strcmp(v, "NOASSERTION") != 0)
                pn_sbom_put(to, new_key, pn_sbom_jstr(v), err);
}

static void relationship(struct spdx3 *x, const char *from, const char *type, const char *to, const char *comment) {
        char id[64];
        snprintf(id, sizeof id, "SPDXRef-Relationship-%zu", ++x->n_rel);
        json_t *r = element(x, "Relationship", id);
        if (!r)
                return;
        pn_sbom_put(r, "from", iri(x, from), x->err);
        pn_sbom_put(r, "relationshipType", json_string(type), x->err);
        json_t *tos = json_array();
        pn_sbom_push(tos, iri(x, to), x->err);
        pn_sbom_put(r, "to", tos, x->err);
        if (comment)
                pn_sbom_put(r, "comment", pn_sbom_jstr(comment), x->err);
}

/* SPDX 2.3 primaryPackagePurpose (7.24) as 3.0's software_SoftwarePurpose;
 * the 2.3 JSON schema spells OPERATING-SYSTEM with an underscore. */
static const char *purpose(const char *p) {
        static const char *const map[][2] = {
                {"APPLICATION", "application"}, {"FRAMEWORK", "framework"}, {"LIBRARY", "library"},
                {"CONTAINER", "container"},     {"OPERATING-SYSTEM", "operatingSystem"},
                {"OPERATING_SYSTEM", "operatingSystem"},
                {"DEVICE", "device"},           {"FIRMWARE", "firmware"},   {"SOURCE", "source"},
                {"ARCHIVE", "archive"},         {"FILE", "file"},           {"INSTALL", "install"},
                {"OTHER", "other"},
        };
        for (size_t i = 0; p && i < sizeof map / sizeof *map; i++)
                if (!strcmp(p, map[i][0]))
                        return map[i][1];
        return NULL;
}

/* The id of the CustomLicense of LicenseRef-X REF, made from 2.3's
 * extracted licensing info DOC2 lists for it; NULL when it lists none. */
static const char *custom_license(struct spdx3 *x, json_t *doc2, const char *ref) {
        const char *known = str(x->custom, ref);
        if (known)
                return known;
        json_t *infos = json_object_get(doc2, "hasExtractedLicensingInfos"), *info = NULL;
        for (size_t i = 0; i < json_array_size(infos) && !info; i++)
                if (str(json_array_get(infos, i), "licenseId") && !strcmp(str(json_array_get(infos, i), "licenseId"), ref))
                        info = json_array_get(infos, i);
        if (!info)
                return NULL;
        char id[300];
        snprintf(id, sizeof id, "SPDXRef-%s", ref); /* a LicenseRef- is idstring characters only */
        json_t *l = element(x, "expandedlicensing_CustomLicense", id);
        if (!l)
                return NULL;
        copy(l, "name", info, "name", x->err);
        copy(l, "simplelicensing_licenseText", info, "extractedText", x->err);
        json_t *full = iri(x, id);
        pn_sbom_put(x->custom, ref, full, x->err);
        return json_string_value(full);
}

/* The id of the LicenseExpression of EXPR, one element per expression,
 * mapping each LicenseRef- it names to its CustomLicense. */
static const char *license(struct spdx3 *x, json_t *doc2, const char *expr) {
        const char *known = str(x->licenses, expr);
        if (known)
                return known + strlen(x->base);
        char id[64];
        snprintf(id, sizeof id, "SPDXRef-License-%zu", ++x->n_lic);
        json_t *l = element(x, "simplelicensing_LicenseExpression", id);
        if (!l)
                return NULL;
        pn_sbom_put(l, "simplelicensing_licenseExpression", pn_sbom_jstr(expr), x->err);
        json_t *map = json_array();
        for (const char *p = strstr(expr, "LicenseRef-"); p && map && !*x->err; p = strstr(p, "LicenseRef-")) {
                size_t n = strspn(p, "LicenseRef-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.");
                char *ref = strndup(p, n);
                p += n;
                const char *to = ref ? custom_license(x, doc2, ref) : NULL;
                bool seen = false;
                for (size_t k = 0; ref && k < json_array_size(map) && !seen; k++)
                        seen = !strcmp(str(json_array_get(map, k), "key"), ref);
                if (!ref)
                        *x->err = -ENOMEM;
                else if (to && !seen)
                        pn_sbom_push(map, json_pack("{s:s, s:s, s:s}", "type", "DictionaryEntry", "key", ref, "value", to),
                                     x->err);
                free(ref);
        }
        if (json_array_size(map))
                pn_sbom_put(l, "simplelicensing_customIdToUri", map, x->err);
        else
                json_decref(map);
        pn_sbom_put(x->licenses, expr, iri(x, id), x->err);
        return str(x->licenses, expr) ? str(x->licenses, expr) + strlen(x->base) : NULL;
}

static void annotation(struct spdx3 *x, const char *subject, const char *statement) {
        char id[64];
        snprintf(id, sizeof id, "SPDXRef-Annotation-%zu", ++x->n_ann);
        json_t *a = element(x, "Annotation", id);
        if (!a)
                return;
        pn_sbom_put(a, "annotationType", json_string("other"), x->err);
        pn_sbom_put(a, "subject", iri(x, subject), x->err);
        pn_sbom_put(a, "statement", pn_sbom_jstr(statement), x->err);
}

static void package(struct spdx3 *x, json_t *doc2, json_t *p) {
        const char *id = str(p, "SPDXID");
        json_t *e = id ? element(x, "software_Package", id) : NULL;
        if (!e)
                return;
        copy(e, "name", p, "name", x->err);
        copy(e, "software_packageVersion", p, "versionInfo", x->err);
        const char *pp = purpose(str(p, "primaryPackagePurpose"));
        if (pp)
                pn_sbom_put(e, "software_primaryPurpose", json_string(pp), x->err);
        json_t *refs = json_object_get(p, "externalRefs"), *ids = json_array();
        for (size_t i = 0; i < json_array_size(refs) && ids; i++) {
                json_t *r = json_array_get(refs, i);
                const char *type = str(r, "referenceType"), *loc = str(r, "referenceLocator");
                if (!type || !loc)
                        continue;
                if (!strcmp(type, "purl"))
                        pn_sbom_put(e, "software_packageUrl", pn_sbom_jstr(loc), x->err);
                else if (!strcmp(type, "cpe23Type") || !strcmp(type, "cpe22Type"))
                        pn_sbom_push(ids, json_pack("{s:s, s:s, s:o}", "type", "ExternalIdentifier", "externalIdentifierType",
                                                    type[3] == '2' && type[4] == '3' ? "cpe23" : "cpe22", "identifier",
                                                    pn_sbom_jstr(loc)),
                                     x->err);
        }
        if (json_array_size(ids))
                pn_sbom_put(e, "externalIdentifier", ids, x->err);
        else if (ids)
                json_decref(ids);
        else
                *x->err = -ENOMEM;
        copy(e, "software_sourceInfo", p, "sourceInfo", x->err);
        copy(e, "comment", p, "comment", x->err);
        const char *decl = str(p, "licenseDeclared");
        if (decl && strcmp(decl, "NOASSERTION") && strcmp(decl, "NONE")) {
                const char *l = license(x, doc2, decl);
                if (l)
                        relationship(x, id, "hasDeclaredLicense", l, NULL);
        }
        json_t *anns = json_object_get(p, "annotations");
        for (size_t i = 0; i < json_array_size(anns); i++) {
                const char *c = str(json_array_get(anns, i), "comment");
                if (c)
                        annotation(x, id, c);
        }
}

static void file(struct spdx3 *x, json_t *f) {
        const char *id = str(f, "SPDXID");
        json_t *e = id ? element(x, "software_File", id) : NULL;
        if (!e)
                return;
        copy(e, "name", f, "fileName", x->err);
        pn_sbom_put(e, "software_fileKind", json_string("file"), x->err);
        json_t *sums = json_object_get(f, "checksums"), *hashes = json_array();
        for (size_t i = 0; i < json_array_size(sums) && hashes; i++) {
                const char *alg = str(json_array_get(sums, i), "algorithm"),
                           *v = str(json_array_get(sums, i), "checksumValue");
                const char *a3 = !alg ? NULL : !strcmp(alg, "SHA1") ? "sha1" : !strcmp(alg, "SHA256") ? "sha256" : NULL;
                if (a3 && v)
                        pn_sbom_push(hashes, json_pack("{s:s, s:s, s:s}", "type", "Hash", "algorithm", a3, "hashValue", v),
                                     x->err);
        }
        if (json_array_size(hashes))
                pn_sbom_put(e, "verifiedUsing", hashes, x->err);
        else if (hashes)
                json_decref(hashes);
        else
                *x->err = -ENOMEM;
        copy(e, "comment", f, "comment", x->err);
}

/* 2.3 relationship R; DESCRIBES adds to ROOTS instead. */
static void relation(struct spdx3 *x, json_t *r, json_t *roots) {
        const char *from = str(r, "spdxElementId"), *type = str(r, "relationshipType"),
                   *to = str(r, "relatedSpdxElement"), *c = str(r, "comment");
        if (!from || !type || !to)
                return;
        if (!strcmp(type, "DESCRIBES")) {
                pn_sbom_push(roots, iri(x, to), x->err);
                return;
        }
        if (!strcmp(type, "CONTAINS"))
                relationship(x, from, "contains", to, c);
        else if (!strcmp(type, "DEPENDS_ON"))
                relationship(x, from, c && !strncmp(c, "DT_NEEDED ", 10) ? "hasDynamicLink" : "dependsOn", to, c);
        else if (!strcmp(type, "OPTIONAL_DEPENDENCY_OF"))
                relationship(x, to, "hasOptionalDependency", from, c);
        else if (!strcmp(type, "OTHER") && c && !strncmp(c, "evident-by", 10))
                relationship(x, from, "hasEvidence", to, c);
        else
                relationship(x, from, "other", to, c);
}

/* The SPDX 3 document of DOC2 below namespace BASE. */
static json_t *convert(json_t *doc2, const pkgnote_sbom_options *o, const char *kind, const char *base, int *err) {
        struct spdx3 x = {.graph = json_array(), .elements = json_array(), .licenses = json_object(),
                          .custom = json_object(), .base = base, .err = err};
        json_t *doc = json_object(), *roots = json_array(), *sbom_elements = NULL;
        if (!x.graph || !x.elements || !x.licenses || !x.custom || !doc || !roots) {
                *err = -ENOMEM;
                goto out;
        }
        pn_sbom_put(doc, "@context", json_string(SPDX3_CONTEXT), err);
        char created[32], tool[96];
        pn_sbom_timestamp(o->created, created);
        snprintf(tool, sizeof tool, "pkgnote-%s", o->tool_version ? o->tool_version : PACKAGE_VERSION);
        json_t *ci = json_object();
        pn_sbom_put(ci, "type", json_string("CreationInfo"), err);
        pn_sbom_put(ci, "@id", json_string(CREATION_INFO), err);
        pn_sbom_put(ci, "specVersion", json_string("3.0.1"), err);
        pn_sbom_put(ci, "created", json_string(created), err);
        json_t *by = json_array(), *using = json_array();
        pn_sbom_push(by, iri(&x, "SPDXRef-Agent-pkgnote"), err);
        pn_sbom_push(using, iri(&x, "SPDXRef-Tool-pkgnote"), err);
        pn_sbom_put(ci, "createdBy", by, err);
        pn_sbom_put(ci, "createdUsing", using, err);
        pn_sbom_push(x.graph, ci, err);

        /* The document, then the SBOM it holds; their lists are filled last. */
        json_t *d = element(&x, "SpdxDocument", "SPDXRef-DOCUMENT");
        json_array_clear(x.elements); /* the document is no element of its own */
        json_t *sbom = element(&x, "software_Sbom", "SPDXRef-Sbom");
        char name[64];
        snprintf(name, sizeof name, "pkgnote-%s", kind);
        json_t *a = element(&x, "SoftwareAgent", "SPDXRef-Agent-pkgnote");
        pn_sbom_put(a, "name", json_string("pkgnote"), err);
        json_t *t = element(&x, "Tool", "SPDXRef-Tool-pkgnote");
        pn_sbom_put(t, "name", pn_sbom_jstr(tool), err);
        json_t *dl = element(&x, "simplelicensing_LicenseExpression", "SPDXRef-DataLicense");
        pn_sbom_put(dl, "simplelicensing_licenseExpression", json_string("CC0-1.0"), err);
        if (*err)
                goto out;

        json_t *v = json_object_get(doc2, "packages");
        for (size_t i = 0; i < json_array_size(v) && !*err; i++)
                package(&x, doc2, json_array_get(v, i));
        v = json_object_get(doc2, "files");
        for (size_t i = 0; i < json_array_size(v) && !*err; i++)
                file(&x, json_array_get(v, i));
        v = json_object_get(doc2, "relationships");
        for (size_t i = 0; i < json_array_size(v) && !*err; i++)
                relation(&x, json_array_get(v, i), roots);

        pn_sbom_put(d, "name", pn_sbom_jstr(str(doc2, "name") ? str(doc2, "name") : name), err);
        pn_sbom_put(d, "dataLicense", iri(&x, "SPDXRef-DataLicense"), err);
        pn_sbom_put(d, "profileConformance",
                    json_pack("[s, s, s, s]", "core", "software", "simpleLicensing", "expandedLicensing"), err);
        json_t *droot = json_array();
        pn_sbom_push(droot, iri(&x, "SPDXRef-Sbom"), err);
        pn_sbom_put(d, "rootElement", droot, err);
        pn_sbom_put(d, "element", json_deep_copy(x.elements), err);
        /* A scan is of what is at rest (analyzed); ps of what runs. */
        pn_sbom_put(sbom, "software_sbomType", json_pack("[s]", strcmp(kind, "ps") ? "analyzed" : "runtime"), err);
        if (json_array_size(roots)) /* nothing described: no root */
                pn_sbom_put(sbom, "rootElement", roots, err);
        else
                json_decref(roots);
        roots = NULL;
        sbom_elements = json_deep_copy(x.elements);
        if (sbom_elements)
                json_array_remove(sbom_elements, 0); /* the SBOM itself */
        pn_sbom_put(sbom, "element", sbom_elements, err);
        pn_sbom_put(doc, "@graph", x.graph, err);
        x.graph = NULL;
out:
        json_decref(x.graph), json_decref(x.elements), json_decref(x.licenses), json_decref(x.custom);
        json_decref(roots);
        if (*err) {
                json_decref(doc);
                return NULL;
        }
        return doc;
}

/* Replaces FROM at the start of every string of J by TO. */
static int rebase(json_t *j, const char *from, const char *to) {
        size_t n = strlen(from);
        if (json_is_object(j)) {
                const char *k;
                json_t *v;
                json_object_foreach(j, k, v)
                        if (rebase(v, from, to) < 0)
                                return -ENOMEM;
        } else if (json_is_array(j)) {
                for (size_t i = 0; i < json_array_size(j); i++)
                        if (rebase(json_array_get(j, i), from, to) < 0)
                                return -ENOMEM;
        } else if (json_is_string(j) && !strncmp(json_string_value(j), from, n)) {
                char *s = NULL;
                if (asprintf(&s, "%s%s", to, json_string_value(j) + n) < 0)
                        return -ENOMEM;
                int r = json_string_set(j, s);
                free(s);
                if (r < 0)
                        return -ENOMEM;
        }
        return 0;
}

int pn_sbom_spdx3_finish(json_t *doc2, int err, const pkgnote_sbom_options *o, const char *kind, char **ret) {
        char placeholder[96], base[160], uuid[37];
        snprintf(placeholder, sizeof placeholder, "https://spdx.org/spdxdocs/pkgnote-%s-#", kind);
        json_t *doc = err ? NULL : convert(doc2, o, kind, placeholder, &err);
        json_decref(doc2);
        if (err)
                return pn_oom();
        char *text = NULL;
        int r = pn_json_dump_report(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, &text);
        if (r >= 0) {
                r = pn_sbom_uuid(text, o->reproducible, uuid);
                free(text);
        }
        if (r >= 0) {
                snprintf(base, sizeof base, "https://spdx.org/spdxdocs/pkgnote-%s-%s#", kind, uuid);
                r = rebase(doc, placeholder, base) < 0 ? pn_oom() : 0;
        }
        if (r >= 0)
                r = pn_json_dump_report(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, ret);
        json_decref(doc);
        return r;
}
