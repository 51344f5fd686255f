/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPE names and package URLs (lib/03-model-purl.c); pkgnote_cpe_check() and
 * pkgnote_purl() are public (include/pkgnote.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Component I (from 0: part, vendor, product, version) of the CPE name
 * CPE (2.3 formatted string or 2.2 URI), unquoted or %-decoded and
 * lowercased into BUF (SIZE bytes): false when it has none, it is ANY or
 * NA, or it does not fit. */
bool pn_cpe_component(const char *cpe, size_t i, char *buf, size_t size);
/* CPE as SBOM consumers expect it (malloc()ed): a CPE 2.3 formatted
 * string completed to its 11 components with "*", anything else as
 * given, and *IS23 whether it is CPE 2.3; NULL for what
 * pkgnote_cpe_check() refuses (and for NULL), or without memory. */
char *pn_cpe_full(const char *cpe, bool *is23);

struct pkgnote_metadata;
/* pkgnote_purl() for a note found in a root whose os-release says ROOT_OS
 * and ROOT_VERSION (ID and VERSION_ID; either may be NULL): a note of that
 * OS that names no version of it gets the root's in its distro qualifier. */
int pn_purl_in_root(const struct pkgnote_metadata *m, const char *root_os, const char *root_version, char **ret);

/* S percent-encoded as purl-spec "Character encoding" says (all but
 * ALPHA, DIGIT, "-._~" and ":"; UTF-8 bytes, uppercase hex), lowercased
 * first with LOWER. */
void pn_purl_pct(FILE *f, const char *s, bool lower);
