/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two SBOM writers share: the scan's (lib/scan-sbom.c, files at
 * rest) and the processes' (lib/core-sbom.c, what is running).  Both build
 * jansson trees the same way (allocation failures remembered in an *ERR,
 * checked once at the end), write the same headers, and name a document
 * by a UUID of its own text when it must be reproducible.
 */
#ifndef PKGNOTE_REPORT_SBOM_H
#define PKGNOTE_REPORT_SBOM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

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

#endif
