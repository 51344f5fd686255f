/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote list --group --format html (tools/list-html.c): the crash-group
 * document of `pkgnote list --group --json` as one self-contained page.
 * Static HTML, inline CSS and inline SVG: no script, nothing fetched (a
 * Content-Security-Policy of default-src 'none' says so to the browser
 * too).  Every string of the document is untrusted (it comes from crash
 * reports): it reaches the page only through list_html_escape().
 *
 * Every number of the document is marked for a reader that compares the
 * page with the JSON: data-field="NAME" (the document's member name) on
 * the element holding it, with data-group="I" (index in "groups"),
 * data-machine="J" or data-version="J" (index in that group's
 * "machines" or "versions") where it belongs to one, and its value in
 * data-value (times their epoch seconds, shown as UTC dates; counts from
 * five digits on shown in groups of three).  The chart's
 * bars carry data-day, data-version (the version's text) and
 * data-count.
 */
#ifndef PKGNOTE_TOOLS_LIST_HTML_H
#define PKGNOTE_TOOLS_LIST_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Bounds of the page, so that a document of a large fleet still makes a
 * page a browser opens: groups in the overview table and shown in
 * detail, rows of a group's machines and versions tables, bars of a chart
 * (longer periods are binned into several days per bar), modules of an
 * example's core, bytes of one shown value. */
#define LIST_HTML_MAX_OVERVIEW 1000
#define LIST_HTML_MAX_DETAIL 50
#define LIST_HTML_MAX_ROWS 100
#define LIST_HTML_MAX_BARS 90
#define LIST_HTML_MAX_MODULES 200
#define LIST_HTML_MAX_VALUE 4096

/* Writes the LEN bytes at S to F escaped for HTML text and for attribute
 * values in double or single quotes: & < > " ' as character references,
 * C0, DEL and C1 control characters and bytes that are not UTF-8 as the
 * visible text \xNN (pn_escape()). */
void list_html_escape(FILE *f, const char *s, size_t len);

/* Renders the group document DOC (LEN bytes of JSON) into a page,
 * malloc()ed into *RET (NUL-terminated, *RET_LEN bytes).  CORES, when not
 * NULL, holds N_CORES core reports (pkgnote_core_to_json()), CORES[I]
 * that of group I's example crash or NULL: the page lists its modules
 * and their packages.  0; -EBADMSG when DOC is no group document (WHY,
 * WHY_LEN bytes, says why); -ENOMEM. */
int list_html_render(const char *doc, size_t len, const char *const *cores, size_t n_cores, char **ret,
                     size_t *ret_len, char *why, size_t why_len);

#endif
