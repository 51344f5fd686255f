/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metadata map of pkgnote stamp --metadata-map: which package note
 * each file of a tree gets, one line PATH<TAB>JSON per file.  The JSON is
 * kept as written; composing and checking it is the caller's (it goes
 * through the same precedence rule as --metadata).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "06-stamp-filemap.h"
#include "01-base.h"

struct entry {
        char *path;
        char *document;
};

struct pn_filemap {
        struct entry *v;
        size_t n, cap;
};

void pn_filemap_free(pn_filemap *m) {
        if (!m)
                return;
        for (size_t i = 0; i < m->n; i++) {
                free(m->v[i].path);
                free(m->v[i].document);
        }
        free(m->v);
        free(m);
}

const char *pn_filemap_tree_path(const char *p) {
        for (;;) {
                if (p[0] == '.' && p[1] == '/')
                        p += 2;
                else if (*p == '/')
                        p++;
                else
                        return p;
        }
}

static int cmp_entry(const void *a, const void *b) {
        return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* Adds the line [line, eol), numbered LINENO, of the map NAME. */
static int add_line(pn_filemap *m, const char *line, const char *eol, const char *name, size_t lineno) {
        if (line == eol || *line == '#')
                return 0;
        size_t len = (size_t)(eol - line);
        const char *tab = memchr(line, '\t', len);
        if (!tab || tab == line || memchr(line, 0, len))
                return pn_error(-EINVAL, "%s:%zu: not PATH<TAB>JSON", name, lineno);
        char *path = strndup(line, (size_t)(tab - line));
        if (!path)
                return pn_oom();
        const char *tp = pn_filemap_tree_path(path);
        if (!*tp) {
                free(path);
                return pn_error(-EINVAL, "%s:%zu: the path names no file of the tree", name, lineno);
        }
        memmove(path, tp, strlen(tp) + 1);
        if (PN_GROW(m->v, m->cap, m->n + 1) < 0) {
                free(path);
                return pn_oom();
        }
        char *document = strndup(tab + 1, (size_t)(eol - tab - 1));
        if (!document) {
                free(path);
                return pn_oom();
        }
        m->v[m->n++] = (struct entry){path, document};
        return 0;
}

int pn_filemap_parse(const char *text, size_t len, const char *name, pn_filemap **ret) {
        pn_filemap *m = calloc(1, sizeof *m);
        int r = m ? 0 : pn_oom();
        size_t lineno = 0;
        for (const char *line = text, *end = text + len, *eol; r == 0 && line < end; line = eol + 1) {
                eol = memchr(line, '\n', (size_t)(end - line));
                if (!eol)
                        eol = end;
                r = add_line(m, line, eol, name, ++lineno);
        }
        if (r == 0) {
                if (m->n > 1)
                        qsort(m->v, m->n, sizeof *m->v, cmp_entry);
                for (size_t i = 1; i < m->n && r == 0; i++)
                        if (!strcmp(m->v[i].path, m->v[i - 1].path))
                                r = pn_error(-EINVAL, "%s: '%s' is listed twice", name, m->v[i].path);
        }
        if (r < 0) {
                pn_filemap_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

size_t pn_filemap_count(const pn_filemap *m) {
        return m->n;
}

const char *pn_filemap_path(const pn_filemap *m, size_t i) {
        return i < m->n ? m->v[i].path : NULL;
}

const char *pn_filemap_document(const pn_filemap *m, size_t i) {
        return i < m->n ? m->v[i].document : NULL;
}

ssize_t pn_filemap_find(const pn_filemap *m, const char *path) {
        struct entry k = {.path = (char *)pn_filemap_tree_path(path)};
        const struct entry *e = m->n ? bsearch(&k, m->v, m->n, sizeof *m->v, cmp_entry) : NULL;
        return e ? e - m->v : -1;
}

/* ---------------------------------------------------------- public API */

/* The public handle is the internal map itself. */
PKGNOTE_PUBLIC int pkgnote_filemap_parse(const char *text, size_t len, const char *name, pkgnote_filemap **ret) {
        if (!ret || (!text && len))
                return pn_error(-EINVAL, "no metadata map given");
        pn_filemap *m;
        int r = pn_filemap_parse(text ? text : "", len, name ? name : "metadata map", &m);
        if (r < 0)
                return r;
        *ret = (pkgnote_filemap *)m;
        return 1;
}

PKGNOTE_PUBLIC void pkgnote_filemap_free(pkgnote_filemap *m) {
        pn_filemap_free((pn_filemap *)m);
}

PKGNOTE_PUBLIC size_t pkgnote_filemap_count(const pkgnote_filemap *m) {
        return m ? pn_filemap_count((const pn_filemap *)m) : 0;
}

PKGNOTE_PUBLIC const char *pkgnote_filemap_path(const pkgnote_filemap *m, size_t i) {
        return m ? pn_filemap_path((const pn_filemap *)m, i) : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_filemap_document(const pkgnote_filemap *m, size_t i) {
        return m ? pn_filemap_document((const pn_filemap *)m, i) : NULL;
}

PKGNOTE_PUBLIC int pkgnote_filemap_find(const pkgnote_filemap *m, const char *path, size_t *ret) {
        if (!m || !path || !ret)
                return -EINVAL;
        ssize_t i = pn_filemap_find((const pn_filemap *)m, path);
        if (i < 0)
                return 0;
        *ret = (size_t)i;
        return 1;
}

PKGNOTE_PUBLIC const char *pkgnote_filemap_tree_path(const char *path) {
        return path ? pn_filemap_tree_path(path) : NULL;
}
