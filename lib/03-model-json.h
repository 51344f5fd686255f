/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON helpers over jansson shared by 03-model-metadata.c, 03-model-dlopen.c, the reports and the SBOMs. */
#ifndef PKGNOTE_PNJSON_H
#define PKGNOTE_PNJSON_H

#include <jansson.h>
#include <stdbool.h>

#include "01-base.h"

/* Parses LEN bytes as one JSON array or object with the note's rules:
 * size and depth limits, unique names, valid UTF-8, no NUL.  -E2BIG over a
 * limit, -EBADMSG otherwise, with pn_error set. */
int pn_json_load(const char *text, size_t len, json_t **ret);

/* Whether jansson's parse failed for want of memory (then -ENOMEM is the
 * answer, not a verdict on the text): it says so, or, when it could not
 * even set up its reader, leaves the message empty (every verdict on the
 * text has one). */
static inline bool pn_json_oom(const json_error_t *e) {
        return !e->text[0] || json_error_code(e) == json_error_out_of_memory; /* jansson >= 2.11 */
}

/* The deepest nesting of arrays and objects in the LEN bytes of JSON at S,
 * found without recursion on the raw text, so that an over-deep document
 * is refused before any parser descends into it. */
unsigned pn_json_depth(const char *s, size_t len);

/* S (a name from a file: any bytes but NUL) as a JSON string, the bytes
 * that are not UTF-8 as the text \xNN; NULL when out of memory. */
json_t *pn_json_bytes(const char *s);

/* json_dumps(V, FLAGS), but NULL whenever a byte of the text could not be
 * kept: jansson (2.14) goes on after a failed write of an object's key,
 * so its own buffer may come back short.  The text goes through a buffer
 * of the library's whose every growth is checked. */
char *pn_json_dumps(const json_t *v, size_t flags);

/* Compact, raw UTF-8, stored key order; -EINVAL (pn_error set) when a
 * string or key holds a control character. */
int pn_json_dump(const json_t *v, char **ret);

/* V dumped with jansson's FLAGS and the escaping of every JSON report
 * (lib/10-write-json.c): control characters, C1 and DEL included, as
 * \u00xx, so that no report drives a terminal.  0 or -ENOMEM. */
int pn_json_dump_report(const json_t *v, size_t flags, char **ret);

/* Calls FN for every string (keys included) in V; stops at the first
 * non-zero return and returns it. */
int pn_json_each_string(const json_t *v, int (*fn)(const char *s, const char *key, void *u), void *u);

#endif
