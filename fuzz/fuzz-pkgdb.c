/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the readers of per-file package metadata (stamp --from-dpkg,
 * --from-rpmdb, --metadata-map).  The first byte picks the reader:
 *   0: a dpkg status file, then NUL-separated pairs of a .list file's name
 *      and its text;
 *   1, 2: a metadata map (1 was the text of an rpm query, read no more);
 *   3: an rpm header blob (a row of rpmdb.sqlite's Packages table);
 *   4: a whole rpmdb.sqlite;
 *   5: as 0, with a block of wanted paths (one a line) after the status
 *      file: the lookup of a few paths (pn_pkgdb_dpkg_read_paths(), what
 *      pkgnote pid and core use) must find, through the same reader, for
 *      each wanted path the owner that the whole database finds, and keep
 *      no other path;
 *   6: an index of dpkg's lists as pkgnote keeps it in the user's cache
 *      (lib/04-pkgdb-index.c): read, and looked up, never past its bytes.
 * And for 0: the index built from the lists, written and read back,
 * gives for every line of every list that list.
 * Checked: every package has a non-empty single-line name, version,
 * architecture and binary name; every file is absolute, sorted, and found
 * again by its owner lookup (and through the merged-/usr alias); every map
 * entry is a tree path, listed once, found again under each spelling.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "06-stamp-filemap.h"
#include "fuzz-input.h"
#include "04-pkgdb-private.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

static void check_line(const char *s) {
        if (!s || !*s || strchr(s, '\n'))
                abort();
}

static void check_pkgdb(const pn_pkgdb *db) {
        for (size_t i = 0; i < pn_pkgdb_count(db); i++) {
                const struct pn_pkg *p = pn_pkgdb_pkg(db, i);
                check_line(p->name);
                check_line(p->version);
                check_line(p->arch);
                check_line(p->binary);
                check_line(p->bin_name);
                check_line(p->bin_version);
        }
        const char *prev = NULL;
        for (size_t i = 0; i < pn_pkgdb_file_count(db); i++) {
                size_t pkg;
                const char *f = pn_pkgdb_file(db, i, &pkg);
                if (!f || f[0] != '/' || pkg >= pn_pkgdb_count(db) || (prev && strcmp(prev, f) > 0))
                        abort();
                prev = f;
                ssize_t o = pn_pkgdb_owner(db, f);
                if (o < 0 || (size_t)o >= pn_pkgdb_count(db))
                        abort();
                /* The alias of a merged-/usr path finds an owner too. */
                char alt[4096];
                if (!strncmp(f, "/usr/bin/", 9) && strlen(f) < sizeof alt) {
                        strcpy(alt, f + 4);
                        if (pn_pkgdb_owner(db, alt) < 0)
                                abort();
                }
        }
        if (pn_pkgdb_file(db, pn_pkgdb_file_count(db), NULL) || pn_pkgdb_pkg(db, pn_pkgdb_count(db)))
                abort();
}

/* The next NUL-separated list name and text at *P (before END): false
 * when none is left. */
static bool next_list(const char **p, const char *end, const char **name, const char **body, size_t *body_len) {
        if (*p >= end)
                return false;
        const char *name_end = memchr(*p, 0, (size_t)(end - *p));
        if (!name_end)
                return false;
        const char *b = name_end + 1, *body_end = memchr(b, 0, (size_t)(end - b));
        if (!body_end)
                body_end = end;
        *name = *p, *body = b, *body_len = (size_t)(body_end - b);
        *p = body_end + 1;
        return true;
}

/* Status text, then NUL-separated list names and texts, as a root's
 * files read by the one dpkg reader (pn_pkgdb_dpkg_read()). */
#define MAX_LISTS 64
struct memroot {
        const char *status;
        size_t status_len, n;
        const char *name[MAX_LISTS], *body[MAX_LISTS];
        size_t body_len[MAX_LISTS];
};

static int mem_copy(const char *text, size_t len, size_t max, void **data, size_t *ret) {
        if (len > max)
                return -E2BIG;
        char *c = malloc(len + 1);
        if (!c)
                return -ENOMEM;
        memcpy(c, text, len);
        c[len] = 0;
        *data = c;
        *ret = len;
        return 0;
}

static int mem_read(void *u, const char *rel, size_t max, void **data, size_t *len) {
        const struct memroot *m = u;
        if (!strcmp(rel, "var/lib/dpkg/status"))
                return mem_copy(m->status, m->status_len, max, data, len);
        for (size_t i = 0; i < m->n; i++)
                if (!strncmp(rel, "var/lib/dpkg/info/", 18) && !strcmp(rel + 18, m->name[i]))
                        return mem_copy(m->body[i], m->body_len[i], max, data, len);
        return -ENOENT;
}

static int mem_list(void *u, const char *rel, int (*each)(void *cu, int dirfd, const char *name), void *cu) {
        const struct memroot *m = u;
        if (strcmp(rel, "var/lib/dpkg/info"))
                return -ENOENT;
        int r = 0;
        for (size_t i = 0; r == 0 && i < m->n; i++)
                r = each(cu, -1, m->name[i]);
        return r;
}

struct found {
        const pn_dpkg_index *x;
        size_t want; /* the list a lookup must give */
        bool seen;
};

static int found_list(void *u, size_t list) {
        struct found *f = u;
        if (list >= pn_dpkg_index_list_count(f->x))
                abort();
        f->seen |= list == f->want;
        return 0;
}

/* The index of M's lists, written and read back: every line of a list
 * that the index names (an absolute path) gives that list. */
static void check_index_roundtrip(const struct memroot *m) {
        pn_dpkg_index *b = pn_dpkg_index_new();
        ssize_t at[MAX_LISTS];
        if (!b)
                return;
        char name[600];
        for (size_t i = 0; i < m->n; i++) {
                size_t before = pn_dpkg_index_list_count(b);
                at[i] = -1;
                if (strlen(m->name[i]) >= sizeof name)
                        continue;
                strcpy(name, m->name[i]);
                int r = pn_dpkg_index_add_list(b, name, m->body[i], m->body_len[i]);
                if (r == -ENOMEM) {
                        pn_dpkg_index_free(b);
                        return;
                }
                if (r < 0)
                        abort();
                if (pn_dpkg_index_list_count(b) > before)
                        at[i] = (ssize_t)before;
        }
        struct pn_dpkg_stamp st = {1, 2, 3, 4, 5, 6};
        void *data = NULL;
        size_t len = 0;
        pn_dpkg_index *x = NULL;
        int r = pn_dpkg_index_serialize(b, &st, &data, &len);
        pn_dpkg_index_free(b);
        if (r == 0)
                r = pn_dpkg_index_parse(data, len, &st, &x);
        if (r < 0) {
                free(data);
                if (r != -ENOMEM)
                        abort();
                return;
        }
        for (size_t i = 0; i < m->n; i++) {
                if (at[i] < 0)
                        continue;
                const char *p = m->body[i], *end = p + m->body_len[i];
                for (const char *eol; p < end; p = eol + 1) {
                        eol = memchr(p, '\n', (size_t)(end - p));
                        if (!eol)
                                eol = end;
                        if (eol == p || *p != '/')
                                continue;
                        struct found f = {x, (size_t)at[i], false};
                        if (pn_dpkg_index_lists(x, p, (size_t)(eol - p), found_list, &f) != 0 || !f.seen)
                                abort();
                }
        }
        pn_dpkg_index_free(x);
        free(data);
}

static void fuzz_dpkg(const char *text, size_t len) {
        struct memroot m = {.status = text};
        const char *end = text + len, *nul = memchr(text, 0, len);
        m.status_len = nul ? (size_t)(nul - text) : len;
        for (const char *p = nul ? nul + 1 : end; m.n < MAX_LISTS && p < end;) {
                const char *name_end = memchr(p, 0, (size_t)(end - p));
                if (!name_end)
                        break;
                const char *body = name_end + 1, *body_end = memchr(body, 0, (size_t)(end - body));
                if (!body_end)
                        body_end = end;
                m.name[m.n] = p;
                m.body[m.n] = body;
                m.body_len[m.n++] = (size_t)(body_end - body);
                p = body_end + 1;
        }
        struct pn_rootfs fs = {mem_read, mem_list, &m};
        pn_pkgdb *db = NULL;
        int r = pn_pkgdb_dpkg_read(&fs, &db);
        if (r == 1) {
                check_pkgdb(db);
                pn_pkgdb_free(db);
        } else if (r != -ENOMEM)
                abort(); /* the status file is always there */
        check_index_roundtrip(&m);
}

/* An index of dpkg's lists read from the LEN bytes at DATA: each lookup
 * gives lists it names, or fails as malformed. */
static void fuzz_dpkg_index(const char *data, size_t len) {
        pn_dpkg_index *x = NULL;
        int r = pn_dpkg_index_parse(data, len, NULL, &x);
        if (r < 0) {
                if (r != -EBADMSG && r != -ENOMEM)
                        abort();
                return;
        }
        static const char *const probe[] = {"/", "/.", "/usr", "/usr/bin/sh", "/lib/x86_64-linux-gnu/libc.so.6"};
        struct found f = {x, 0, 0};
        for (size_t i = 0; i < sizeof probe / sizeof *probe; i++) {
                r = pn_dpkg_index_lists(x, probe[i], strlen(probe[i]), found_list, &f);
                if (r != 0 && r != -EBADMSG)
                        abort();
        }
        for (size_t i = 0; i < pn_dpkg_index_list_count(x); i++) {
                const char *name = pn_dpkg_index_list_name(x, i);
                if (!name || strlen(name) <= 5 || strchr(name, '/'))
                        abort();
                r = pn_dpkg_index_lists(x, name, strlen(name), found_list, &f);
                if (r != 0 && r != -EBADMSG)
                        abort();
        }
        pn_dpkg_index_free(x);
}

/* Whether PATH is one of the N WANTED or their merged-/usr aliases. */
static bool is_wanted(const char *path, const char *const *wanted, size_t n) {
        for (size_t i = 0; i < n; i++) {
                size_t wl = strlen(wanted[i]);
                if (!strcmp(path, wanted[i]) || (!strncmp(path, "/usr", 4) && !strcmp(path + 4, wanted[i])) ||
                    (!strncmp(wanted[i], "/usr", 4) && !strcmp(wanted[i] + 4, path)) || (wl == 0 && !*path))
                        return true;
        }
        return false;
}

/* Status text, NUL, wanted paths (one a line), NUL, then list names and
 * texts as for fuzz_dpkg(). */
static void fuzz_dpkg_wanted(char *text, size_t len) {
        char *end = text + len, *nul = memchr(text, 0, len);
        if (!nul)
                return;
        char *paths = nul + 1, *paths_end = memchr(paths, 0, (size_t)(end - paths));
        if (!paths_end)
                return;
        const char *wanted[64];
        size_t n = 0;
        for (char *p = paths; p < paths_end && n < 64;) {
                char *eol = memchr(p, '\n', (size_t)(paths_end - p));
                if (!eol)
                        eol = paths_end;
                *eol = 0;
                wanted[n++] = p;
                p = eol + 1;
        }
        struct memroot m = {.status = text, .status_len = (size_t)(nul - text)};
        for (const char *p = paths_end + 1; m.n < MAX_LISTS &&
                                            next_list(&p, end, &m.name[m.n], &m.body[m.n], &m.body_len[m.n]);)
                m.n++;
        /* Both through the one reader, over the same root. */
        struct pn_rootfs fs = {mem_read, mem_list, &m};
        pn_pkgdb *full = NULL, *few = NULL;
        int r = pn_pkgdb_dpkg_read(&fs, &full), q = pn_pkgdb_dpkg_read_paths(&fs, wanted, n, &few);
        if ((r != 1 && r != -ENOMEM) || (q != 1 && q != -ENOMEM))
                abort(); /* the status file is always there */
        if (r == 1 && q == 1) {
                check_pkgdb(few);
                if (pn_pkgdb_count(few) != pn_pkgdb_count(full))
                        abort();
                for (size_t i = 0; i < pn_pkgdb_file_count(few); i++)
                        if (!is_wanted(pn_pkgdb_file(few, i, NULL), wanted, n))
                                abort();
                for (size_t i = 0; i < n; i++)
                        if (wanted[i][0] == '/' && pn_pkgdb_owner(full, wanted[i]) != pn_pkgdb_owner(few, wanted[i]))
                                abort();
        }
        pn_pkgdb_free(full);
        pn_pkgdb_free(few);
}

static void fuzz_rpm_header(const char *blob, size_t len) {
        pn_pkgdb *db = pn_pkgdb_new("rpm"), *sealed = NULL;
        if (!db)
                return;
        int r = pn_pkgdb_add_rpm_header(db, blob, len);
        if (r != 0 && r != -EBADMSG && r != -ENOMEM)
                abort();
        if (pn_pkgdb_seal(db, r == -EBADMSG ? 0 : r, &sealed) == 0) {
                check_pkgdb(sealed);
                pn_pkgdb_free(sealed);
        }
}

static void fuzz_rpm_sqlite(char *data, size_t len) {
        pn_pkgdb *db = NULL;
        if (pn_pkgdb_rpm_sqlite(data, len, &db) < 0) {
                if (!pkgnote_last_error() || !*pkgnote_last_error())
                        abort();
                return;
        }
        check_pkgdb(db);
        pn_pkgdb_free(db);
}

static void fuzz_map(const char *text, size_t len) {
        pn_filemap *m = NULL;
        if (pn_filemap_parse(text, len, "map", &m) < 0) {
                if (!pkgnote_last_error() || !*pkgnote_last_error())
                        abort();
                return;
        }
        for (size_t i = 0; i < pn_filemap_count(m); i++) {
                const char *p = pn_filemap_path(m, i), *d = pn_filemap_document(m, i);
                if (!p || !*p || !d || p != pn_filemap_tree_path(p) || (i && strcmp(pn_filemap_path(m, i - 1), p) >= 0))
                        abort();
                (void)strlen(d);
                char spelled[4096];
                if (strlen(p) + 3 > sizeof spelled)
                        continue;
                snprintf(spelled, sizeof spelled, "./%s", p);
                if (pn_filemap_find(m, p) != (ssize_t)i || pn_filemap_find(m, spelled) != (ssize_t)i ||
                    pn_filemap_find(m, spelled + 1) != (ssize_t)i)
                        abort();
        }
        pn_filemap_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        char *text = fuzz_copy(data + 1, size - 1, MAX_INPUT);
        if (!text)
                return 0;
        switch (data[0] % 7) {
        case 0: fuzz_dpkg(text, size - 1); break;
        case 6: fuzz_dpkg_index(text, size - 1); break;
        case 5: fuzz_dpkg_wanted(text, size - 1); break;
        case 3: fuzz_rpm_header(text, size - 1); break;
        case 4: fuzz_rpm_sqlite(text, size - 1); break;
        default: fuzz_map(text, size - 1); break;
        }
        free(text);
        return 0;
}
