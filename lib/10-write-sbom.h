/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two SBOM writers share: the scan's (lib/10-write-sbom-scan.c, files at
 * rest) and the processes' (lib/10-write-sbom-core.c, what is running).  Both build
 * jansson trees the same way (allocation failures remembered in an *ERR,
 * checked once at the end), write the same headers, and name a document
 * by a UUID of its own text when it must be reproducible.
 */
#ifndef PKGNOTE_REPORT_SBOM_H
#define PKGNOTE_REPORT_SBOM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "01-base.h"

/* A JSON string of S; bytes that are not UTF-8 (possible in paths) as the
 * text \xNN, as the command's text output shows them; NULL without memory. */
json_t *pn_sbom_jstr(const char *s);
/* Adds KEY: V to O (or V to the array A); V may be NULL after a failed
 * allocation, which is remembered in *ERR. */
void pn_sbom_put(json_t *o, const char *key, json_t *v, int *err);
void pn_sbom_push(json_t *a, json_t *v, int *err);

/* T (seconds since the epoch; negative: now) as ISO 8601 UTC. */
void pn_sbom_timestamp(int64_t t, char buf[32]);
/* A version 4 UUID (RFC 4122 4.4): random, or with REPRODUCIBLE derived
 * from TEXT.  0, or a negative errno with pn_error set. */
int pn_sbom_uuid(const char *text, int reproducible, char out[37]);

/* Ends DOC, which it takes: out of memory if building it failed (ERR),
 * else KEY set to PREFIX and a UUID of the document's text, written to
 * *RET with the reports' escaping. */
int pn_sbom_finish(json_t *doc, int err, const pkgnote_sbom_options *o, const char *key, const char *prefix,
                   char **ret);

/* Ends the SPDX 2.3 document DOC2 (which it takes; out of memory if
 * building it failed, ERR) as SPDX 3.0.1 JSON-LD instead, in *RET
 * (lib/10-write-sbom-spdx3.c); KIND ("scan", "ps") names its namespace. */
int pn_sbom_spdx3_finish(json_t *doc2, int err, const pkgnote_sbom_options *o, const char *kind, char **ret);

/* The specVersion a CycloneDX format (PKGNOTE_SBOM_CYCLONEDX*) writes,
 * or NULL for any other format. */
const char *pn_sbom_cdx_version(int format);
/* An SPDX 2.3 document's fixed fields, NAME (else DEFAULT_NAME) and its
 * creation info. */
void pn_sbom_spdx_header(json_t *doc, const pkgnote_sbom_options *o, const char *default_name, int *err);
/* A CycloneDX document's fixed fields of SPEC_VERSION and its metadata:
 * the time, the tool and what was looked at. */
void pn_sbom_cdx_header(json_t *doc, const pkgnote_sbom_options *o, const char *spec_version, int *err);
json_t *pn_sbom_cdx_property(const char *name, const char *value);
/* An SPDX relationship; COMMENT may be NULL. */
json_t *pn_sbom_spdx_relationship(const char *from, const char *type, const char *to, const char *comment);

/* LICENSE, what the package database of TYPE ("deb", "rpm", "apk") gives
 * (NULL: none), as an SPDX expression (malloc()ed), or NULL: Debian's,
 * from its copyright file, is one already; rpm's License tag and apk's L:
 * are mapped (pn_license_tag_spdx()), *EXACT false when some name of the
 * tag had no exact SPDX identifier.  NULL with *ERR set without memory. */
char *pn_sbom_license_spdx(const char *type, const char *license, bool *exact, int *err);
/* A CycloneDX component's "licenses" from LICENSE of TYPE: the SPDX
 * expression when it is exact, else the packager's words as a name. */
void pn_sbom_cdx_licenses(json_t *c, const char *type, const char *license, int *err);
/* SPDX 2.3 (10.1): every LicenseRef- a package of PKGS names in its
 * licenseDeclared is declared in DOC's hasExtractedLicensingInfos, once. */
void pn_sbom_spdx_license_refs(json_t *doc, json_t *pkgs, int *err);

/* One package of an SBOM, as every writer gives it: `pkgnote scan`'s
 * (lib/10-write-sbom-scan.c, a package of files at rest) and `pkgnote ps`'s
 * (lib/10-write-sbom-core.c, a package in memory) fill one of these and hand it
 * to pn_sbom_spdx_package() or pn_sbom_cdx_component(), so a field is
 * added in one place for both.  Strings and arrays are owned
 * (pn_sbom_package_done()); the locations' strings are borrowed. */
struct pn_sbom_property {
        char *name, *value;
};

struct pn_sbom_package {
        char id[80];       /* SPDXID or bom-ref */
        char *name;        /* NULL: the writer's UNNAMED */
        char *version;     /* or NULL */
        bool database;     /* from a package database's record, not a note */
        char *record;      /* the note as stored, or the database's record as a note */
        char *type;        /* the package type, which says how to read LICENSE */
        char *architecture;
        char *license;     /* the database's, as it gives it, or NULL */
        char *purl;        /* or NULL */
        char *cpe[2];      /* the application's, then the OS's */
        bool cpe23[2];
        size_t n_cpe;
        const char *unnamed;     /* the name written when there is none */
        /* SPDX only */
        const char *purpose;     /* primaryPackagePurpose, or NULL */
        char *source_info;       /* sourceInfo: where it was found */
        char *annotation;        /* an annotation of type OTHER, or NULL */
        bool locations_in_comment; /* the comment lists the locations ("mapped: ") */
        /* CycloneDX only: its properties, in order */
        struct pn_sbom_property *props;
        size_t n_props, cap_props;
        /* Where it was found: CycloneDX evidence occurrences */
        const char **locations;
        size_t n_locations, cap_locations;
};

/* Fills E (zeroed first) from the metadata M of a note or (DATABASE) a
 * package database's record RECORD: name, version, type, architecture,
 * license (a database's only: "license" is no key of the note format),
 * CPEs and the package URL, whose distro is ROOT_OS and ROOT_VERSION
 * when the note is of the root's OS and names no version of it (either
 * may be NULL; pn_purl_in_root()).  0 or -ENOMEM. */
int pn_sbom_package_from_metadata(struct pn_sbom_package *e, const pkgnote_metadata *m, bool database,
                                  const char *record, const char *root_os, const char *root_version);
/* Appends the property NAME = VALUE (copied), unless UNIQUE and it is
 * there already; errors in *ERR. */
void pn_sbom_package_property(struct pn_sbom_package *e, const char *name, const char *value, bool unique, int *err);
/* Appends LOCATION (borrowed) to E's locations; errors in *ERR. */
void pn_sbom_package_location(struct pn_sbom_package *e, const char *location, int *err);
void pn_sbom_package_done(struct pn_sbom_package *e);

/* What tells component C from another in an SBOM, malloc()ed (NULL: out
 * of memory): its ecosystem, name, version and replacement exactly, each
 * after its length.  Not its purl: golang purls are lowercased, and
 * github.com/Sirupsen/logrus and github.com/sirupsen/logrus are two
 * modules. */
char *pn_sbom_component_key(const pkgnote_component *c);
/* Component C of what the object at PATH says is inside it
 * (pkgnote_embedded) as the element E named ID: name, version, purl,
 * purpose (APPLICATION for a main module), its other fields as
 * pkgnote:embedded:* properties, PATH its location.  0 or -ENOMEM (E to
 * be released with pn_sbom_package_done() all the same). */
int pn_sbom_package_from_component(const pkgnote_component *c, const char *id, const char *path,
                                   struct pn_sbom_package *e);
/* SPDX 2.3's comment for such an element (malloc()ed; NULL without
 * memory): what its properties and locations say. */
char *pn_sbom_component_comment(const struct pn_sbom_package *e);

/* E as an SPDX 2.3 package (CREATED and CREATOR date and sign its
 * annotation), or as a CycloneDX component; NULL without memory. */
json_t *pn_sbom_spdx_package(const struct pn_sbom_package *e, const char *created, const char *creator, int *err);
json_t *pn_sbom_cdx_component(const struct pn_sbom_package *e, int *err);

#endif
