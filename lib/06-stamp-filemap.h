/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A metadata map: one package note's JSON per file of a tree (lib/06-stamp-filemap.c). */
#ifndef PKGNOTE_FILEMAP_H
#define PKGNOTE_FILEMAP_H

#include <stddef.h>
#include <sys/types.h>

typedef struct pn_filemap pn_filemap;

/* Parses the LEN bytes at TEXT (the file NAME, for messages): lines
 * PATH<TAB>JSON; empty lines and lines that start with '#' are ignored.
 * PATH names a file of the tree ("./a/b", "/a/b" and "a/b" are one file)
 * and is listed once.  0, or -EINVAL (-ENOMEM) with the reason and the
 * line's number in pkgnote_last_error(). */
int pn_filemap_parse(const char *text, size_t len, const char *name, pn_filemap **ret);
void pn_filemap_free(pn_filemap *m);
size_t pn_filemap_count(const pn_filemap *m);
/* The I-th entry's path (as pn_filemap_tree_path() gives it; in byte
 * order) and JSON, NUL-terminated. */
const char *pn_filemap_path(const pn_filemap *m, size_t i);
const char *pn_filemap_document(const pn_filemap *m, size_t i);
/* The index of the entry for PATH (any of the spellings above), or -1. */
ssize_t pn_filemap_find(const pn_filemap *m, const char *path);
/* PATH with its leading "./" and '/' taken off. */
const char *pn_filemap_tree_path(const char *path);

#endif
