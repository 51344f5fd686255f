/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-file metadata for pkgnote stamp: the owner of each file from a
 * root's dpkg or rpm database (--from-dpkg, --from-rpmdb), or the lines
 * PATH<TAB>JSON of a map file (--metadata-map).  Each file's JSON is
 * composed by the one precedence rule (tools/metaopts.c, lib/05-gen-compose.c),
 * once per package or map line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stampmap.h"
#include "fileio.h"

/* What a map line or package composed to, once needed. */
struct entry {
        char *json;
        int err; /* composing failed (the reason printed once) */
};

struct stamp_map {
        struct meta_opts *meta;
        pkgnote_pkgdb *db;     /* --from-dpkg, --from-rpmdb */
        pkgnote_filemap *map;  /* --metadata-map */
        char *root;       /* the database's root, resolved */
        size_t root_len;
        int rootfd;       /* open, for files given by name (resolved inside it) */
        struct entry *v;  /* one per map line or package */
        size_t n;
        char skip[PATH_MAX * 2 + 128];
};

void stamp_map_free(struct stamp_map *m) {
        if (!m)
                return;
        for (size_t i = 0; i < m->n; i++)
                free(m->v[i].json);
        free(m->v);
        pkgnote_pkgdb_free(m->db);
        pkgnote_filemap_free(m->map);
        free(m->root);
        if (m->rootfd >= 0)
                close(m->rootfd);
        free(m);
}

/* Reads the map FILE ("-": standard input). */
static int read_map(struct stamp_map *m, const char *file) {
        int fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO;
        char *text = NULL;
        size_t len;
        int r = fd < 0 ? -errno : pn_read_all(fd, 1u << 30, &text, &len);
        if (fd > STDIN_FILENO)
                close(fd);
        if (r < 0)
                return tool_fail("stamp: --metadata-map: cannot read '%s': %s", file, strerror(-r));
        r = pkgnote_filemap_parse(text, len, strcmp(file, "-") ? file : "standard input", &m->map);
        free(text);
        if (r < 0)
                return tool_fail("stamp: --metadata-map: %s", pkgnote_last_error());
        m->n = pkgnote_filemap_count(m->map);
        if (!(m->v = calloc(m->n + 1, sizeof *m->v)))
                return tool_oom("stamp");
        return EXIT_OK;
}

/* ROOT's rpm database: rpmdb.sqlite read into memory, never rpm itself
 * (which would open, and create, its files under ROOT as this user). */
static int open_rpmdb(struct stamp_map *m, const char *arg) {
        const char *where = NULL;
        int e = pkgnote_pkgdb_open(m->root, "rpm", &where, &m->db);
        if (e < 0)
                return tool_fail("stamp: --from-rpmdb: '%s/%s': %s", arg, where, pkgnote_last_error());
        if (e == 0)
                return tool_fail("stamp: --from-rpmdb: no rpm database in '%s' (usr/lib/sysimage/rpm/rpmdb.sqlite or var/lib/rpm/rpmdb.sqlite; "
                                 "the Berkeley DB and ndb formats of older rpm are not read)", arg);
        if (pkgnote_pkgdb_damaged(m->db))
                tool_fail("stamp: --from-rpmdb: '%s/%s': %zu packages are not readable headers, ignoring", arg, where,
                          pkgnote_pkgdb_damaged(m->db));
        return EXIT_OK;
}

int stamp_map_open(struct stamp_map **ret, struct meta_opts *meta, int source, const char *arg) {
        struct stamp_map *m = calloc(1, sizeof *m);
        if (!m)
                return tool_oom("stamp");
        m->meta = meta;
        m->rootfd = -1;
        int r = EXIT_OK;
        const char *option = source == STAMP_MAP_DPKG ? "--from-dpkg" : "--from-rpmdb";
        if (source == STAMP_MAP_FILE)
                r = read_map(m, arg);
        else if (!(m->root = realpath(arg, NULL)) ||
                 (m->rootfd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = tool_fail("stamp: %s: cannot open '%s': %s", option, arg, strerror(errno));
        else {
                m->root_len = strcmp(m->root, "/") ? strlen(m->root) : 0;
                if (source == STAMP_MAP_RPM)
                        r = open_rpmdb(m, arg);
                else if (pkgnote_pkgdb_open(m->root, "deb", NULL, &m->db) < 0)
                        r = tool_fail("stamp: %s: %s", option, pkgnote_last_error());
                if (r == EXIT_OK && !(m->v = calloc(pkgnote_pkgdb_count(m->db) + 1, sizeof *m->v)))
                        r = tool_oom("stamp");
                else if (r == EXIT_OK)
                        m->n = pkgnote_pkgdb_count(m->db);
        }
        if (r != EXIT_OK) {
                stamp_map_free(m);
                return r;
        }
        *ret = m;
        return EXIT_OK;
}

int stamp_map_root_fd(const struct stamp_map *m) {
        return m->db ? m->rootfd : -1;
}

int stamp_map_resolve(struct stamp_map *m, const char *path, pkgnote_root_file **ret) {
        /* The directory as the host resolves it must lie inside the root
         * (a link out of it is not followed there); the rest, the last
         * name above all, is resolved inside the root by the kernel, as
         * a chroot would. */
        char dir[PATH_MAX], given[PATH_MAX * 2 + 2];
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? (slash == path ? "/" : path) : ".");
        char *d = realpath(dir, NULL);
        if (d && (!strncmp(d, m->root, m->root_len) && (d[m->root_len] == '/' || !d[m->root_len])))
                snprintf(given, sizeof given, "%s/%s", d[m->root_len] ? d + m->root_len + 1 : ".", slash ? slash + 1 : path);
        else {
                free(d);
                return tool_fail("stamp: '%s': outside the root %s of the package database", path, m->root);
        }
        free(d);
        if (pkgnote_root_file_resolve(m->rootfd, given, ret) < 0)
                return tool_fail("stamp: '%s': %s", path, pkgnote_last_error());
        return EXIT_OK;
}

/* The composed JSON of entry E (package P of the database, or a map
 * line), made once. */
static const char *entry_json(struct stamp_map *m, size_t i, int *err) {
        struct entry *e = &m->v[i];
        pkgnote_db_package pkg = {.size = sizeof pkg}, *p = m->db && pkgnote_pkgdb_package(m->db, i, &pkg) > 0 ? &pkg : NULL;
        if (e->json || e->err) {
                *err = e->err ? -EINVAL : 0;
                return e->json;
        }
        struct meta_file f = {.root = m->root};
        char what[PATH_MAX + 64];
        if (p) {
                snprintf(what, sizeof what, "package %s", p->binary);
                f.value[META_OPT_TYPE - META_OPT_TYPE] = pkgnote_pkgdb_type(m->db);
                f.value[META_OPT_NAME - META_OPT_TYPE] = p->name;
                f.value[META_OPT_VERSION - META_OPT_TYPE] = p->version;
                f.value[META_OPT_ARCH - META_OPT_TYPE] = p->architecture;
        } else {
                snprintf(what, sizeof what, "--metadata-map: '%s'", pkgnote_filemap_path(m->map, i));
                f.document = pkgnote_filemap_document(m->map, i);
        }
        f.what = what;
        if (meta_opts_build_json_for(m->meta, &f, &e->json) != EXIT_OK) {
                e->err = 1;
                *err = -EINVAL;
                return NULL;
        }
        *err = 0;
        return e->json;
}

const char *stamp_map_json(struct stamp_map *m, const char *tree, const char *path, const char **skip, int *err) {
        *err = 0;
        if (m->map) {
                size_t i;
                if (pkgnote_filemap_find(m->map, path, &i) <= 0) {
                        *skip = "not in the metadata map";
                        return NULL;
                }
                return entry_json(m, i, err);
        }
        /* The file's path in the database's root: a FILE given by name
         * is there already (stamp_map_resolve()). */
        char full[PATH_MAX * 2 + 2], *abs = NULL;
        size_t skip_root = m->root_len;
        if (tree) {
                char *t = realpath(tree, NULL);
                if (t)
                        snprintf(full, sizeof full, "%s/%s", t, pkgnote_filemap_tree_path(path));
                free(t);
                abs = t ? full : NULL;
        } else {
                snprintf(full, sizeof full, "/%s", path);
                abs = full;
                skip_root = 0;
        }
        if (!abs || (tree && (strncmp(abs, m->root, m->root_len) || (m->root_len && abs[m->root_len] != '/')))) {
                snprintf(m->skip, sizeof m->skip, "outside the root %s of the package database", m->root);
                *skip = m->skip;
                return NULL;
        }
        size_t i;
        if (pkgnote_pkgdb_owner(m->db, abs + skip_root, &i) <= 0) {
                snprintf(m->skip, sizeof m->skip, "no package of the %s database owns %s",
                         !strcmp(pkgnote_pkgdb_type(m->db), "deb") ? "dpkg" : "rpm", abs + skip_root);
                *skip = m->skip;
                return NULL;
        }
        return entry_json(m, i, err);
}
