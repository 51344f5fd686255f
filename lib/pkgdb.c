/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who owns a file, by a root's own package database: dpkg's status file
 * and info/PACKAGE.list, or rpm's rpmdb.sqlite (lib/rpmdb.c, found in
 * the root by lib/scan-db.c).  Each owner
 * is given as the package note names it: the source package's name and
 * version (dpkg's Source: field, rpm's source rpm), the binary package's
 * architecture.  Files are looked up by their path in the root, with the
 * merged-/usr aliases (/bin is /usr/bin, /lib is /usr/lib, ...) tried too.
 */
#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "internal.h"
#include "output.h"
#include "pkgdb.h"

struct pn_pkgdb {
        const char *type; /* "deb" or "rpm" */
        struct pn_pkg *pkgs;
        size_t npkgs, cappkgs;
        struct file {
                char *path;
                size_t pkg;
        } *files;
        size_t nfiles, capfiles;
        size_t damaged; /* records left out as unreadable */
};

void pn_pkgdb_free(pn_pkgdb *db) {
        if (!db)
                return;
        for (size_t i = 0; i < db->npkgs; i++) {
                free(db->pkgs[i].name);
                free(db->pkgs[i].version);
                free(db->pkgs[i].arch);
                free(db->pkgs[i].binary);
                free(db->pkgs[i].bin_name);
                free(db->pkgs[i].bin_version);
        }
        for (size_t i = 0; i < db->nfiles; i++)
                free(db->files[i].path);
        free(db->pkgs);
        free(db->files);
        free(db);
}

pn_pkgdb *pn_pkgdb_new(const char *type) {
        pn_pkgdb *db = calloc(1, sizeof *db);
        if (db)
                db->type = type;
        return db;
}

/* A string of LEN bytes at S: not empty, no NUL, no line break. */
static bool plain(const char *s, size_t len) {
        return len > 0 && !memchr(s, 0, len) && !memchr(s, '\n', len) && !memchr(s, '\r', len);
}

/* A string and its length. */
struct str {
        const char *s;
        size_t len;
};
#define STR(p, n) ((struct str){(p), (n)})

/* Adds a package: BINARY (the binary package as the database names it),
 * source NAME and VERSION, ARCH, and the binary package's own BIN_NAME
 * and BIN_VERSION.  One with an empty or multi-line part is left out (0). */
static int add_pkg(pn_pkgdb *db, struct str binary, struct str name, struct str version, struct str arch,
                   struct str bin_name, struct str bin_version) {
        const struct str *parts[] = {&binary, &name, &version, &arch, &bin_name, &bin_version};
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                if (!plain(parts[i]->s, parts[i]->len))
                        return 0;
        if (PN_GROW(db->pkgs, db->cappkgs, db->npkgs + 1) < 0)
                return -ENOMEM;
        struct pn_pkg *p = &db->pkgs[db->npkgs];
        *p = (struct pn_pkg){strndup(name.s, name.len),         strndup(version.s, version.len),
                             strndup(arch.s, arch.len),         strndup(binary.s, binary.len),
                             strndup(bin_name.s, bin_name.len), strndup(bin_version.s, bin_version.len)};
        if (!p->name || !p->version || !p->arch || !p->binary || !p->bin_name || !p->bin_version) {
                free(p->name);
                free(p->version);
                free(p->arch);
                free(p->binary);
                free(p->bin_name);
                free(p->bin_version);
                return -ENOMEM;
        }
        db->npkgs++;
        return 1;
}

void pn_pkgdb_set_damaged(pn_pkgdb *db, size_t n) {
        db->damaged = n;
}

size_t pn_pkgdb_damaged(const pn_pkgdb *db) {
        return db->damaged;
}

/* Adds the absolute path of LEN bytes at PATH, owned by package PKG. */
int pn_pkgdb_add_file(pn_pkgdb *db, const char *path, size_t len, size_t pkg) {
        if (len == 0 || path[0] != '/' || memchr(path, 0, len))
                return 0;
        if (PN_GROW(db->files, db->capfiles, db->nfiles + 1) < 0)
                return -ENOMEM;
        char *p = strndup(path, len);
        if (!p)
                return -ENOMEM;
        db->files[db->nfiles++] = (struct file){p, pkg};
        return 0;
}

static int cmp_file(const void *a, const void *b) {
        const struct file *x = a, *y = b;
        int c = strcmp(x->path, y->path);
        return c ? c : (x->pkg < y->pkg ? -1 : x->pkg > y->pkg);
}

int pn_pkgdb_seal(pn_pkgdb *db, int r, pn_pkgdb **ret) {
        if (r < 0) {
                if (r == -ENOMEM)
                        pn_error(r, "out of memory");
                pn_pkgdb_free(db);
                return r;
        }
        if (db->nfiles > 1)
                qsort(db->files, db->nfiles, sizeof *db->files, cmp_file);
        *ret = db;
        return 0;
}

/* The end of the line at LINE: its '\n', or END. */
static const char *line_end(const char *line, const char *end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        return eol ? eol : end;
}

/* ------------------------------------------------------------ dpkg */

/* The value of FIELD in the paragraph [p, end), or NULL; *len its length. */
static const char *field(const char *p, const char *end, const char *name, size_t *len) {
        size_t nl = strlen(name);
        for (const char *line = p, *eol; line < end; line = eol + 1) {
                eol = line_end(line, end);
                if ((size_t)(eol - line) > nl && !memcmp(line, name, nl) && line[nl] == ':') {
                        const char *v = line + nl + 1;
                        while (v < eol && (*v == ' ' || *v == '\t'))
                                v++;
                        const char *e = eol;
                        while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                                e--;
                        *len = (size_t)(e - v);
                        return v;
                }
        }
        return NULL;
}

/* Adds the installed package of the status paragraph [p, end). */
static int status_paragraph(pn_pkgdb *db, const char *p, const char *end) {
        size_t pl, sl, al, vl, srcl;
        const char *pkg = field(p, end, "Package", &pl), *st = field(p, end, "Status", &sl),
                   *arch = field(p, end, "Architecture", &al), *ver = field(p, end, "Version", &vl),
                   *src = field(p, end, "Source", &srcl);
        if (!pkg || !st || !ver || !arch || sl < 10 || memcmp(st + sl - 10, " installed", 10) || pl > 256 ||
            al > 64)
                return 0;
        char binary[256 + 64 + 2];
        int bl = snprintf(binary, sizeof binary, "%.*s:%.*s", (int)pl, pkg, (int)al, arch);
        /* Source: NAME [(VERSION)]; without one, the binary's. */
        const char *name = pkg, *version = ver;
        size_t name_len = pl, version_len = vl;
        if (src && srcl) {
                name = src;
                name_len = 0;
                while (name_len < srcl && src[name_len] != ' ' && src[name_len] != '(')
                        name_len++;
                const char *open = memchr(src, '(', srcl),
                           *close = open ? memchr(open, ')', srcl - (size_t)(open - src)) : NULL;
                if (open && close && close > open + 1) {
                        version = open + 1;
                        version_len = (size_t)(close - open - 1);
                }
        }
        int r = add_pkg(db, STR(binary, (size_t)bl), STR(name, name_len), STR(version, version_len), STR(arch, al),
                        STR(pkg, pl), STR(ver, vl));
        return r < 0 ? r : 0;
}

int pn_pkgdb_add_status(pn_pkgdb *db, const char *text, size_t len) {
        const char *end = text + len;
        for (const char *p = text; p < end;) {
                const char *q = memmem(p, (size_t)(end - p), "\n\n", 2);
                const char *pe = q ? q + 1 : end;
                int r = status_paragraph(db, p, pe);
                if (r < 0)
                        return r;
                p = q ? q + 2 : end;
        }
        return 0;
}

/* The package of the .list file NAME ("pkg.list" or "pkg:arch.list"). */
static ssize_t list_owner(const pn_pkgdb *db, const char *name) {
        size_t nl = strlen(name);
        if (nl <= 5 || strcmp(name + nl - 5, ".list"))
                return -1;
        nl -= 5;
        const char *colon = memchr(name, ':', nl);
        size_t pl = colon ? (size_t)(colon - name) : nl;
        for (size_t i = 0; i < db->npkgs; i++) {
                const char *b = db->pkgs[i].binary, *bc = strchr(b, ':');
                if (!bc || (size_t)(bc - b) != pl || memcmp(b, name, pl))
                        continue;
                if (colon && (strlen(bc + 1) != nl - pl - 1 || memcmp(bc + 1, colon + 1, nl - pl - 1)))
                        continue;
                return (ssize_t)i;
        }
        return -1;
}

int pn_pkgdb_add_list(pn_pkgdb *db, const char *list_name, const char *text, size_t len) {
        ssize_t pkg = list_owner(db, list_name);
        if (pkg < 0)
                return 0;
        for (const char *line = text, *eol; line < text + len; line = eol + 1) {
                eol = line_end(line, text + len);
                int r = pn_pkgdb_add_file(db, line, (size_t)(eol - line), (size_t)pkg);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------------- rpm */

/* NAME-VERSION-RELEASE.src.rpm: the name and VERSION-RELEASE. */
static bool split_srpm(const char *s, size_t len, size_t *name_len, const char **vr, size_t *vr_len) {
        static const char *const suffixes[] = {".src.rpm", ".nosrc.rpm"};
        for (size_t k = 0; k < ELEMENTSOF(suffixes); k++) {
                size_t sl = strlen(suffixes[k]);
                if (len > sl && !memcmp(s + len - sl, suffixes[k], sl)) {
                        len -= sl;
                        break;
                }
        }
        const char *rel = NULL, *ver = NULL;
        for (const char *p = s + len; p > s; p--)
                if (p[-1] == '-') {
                        if (!rel)
                                rel = p - 1;
                        else {
                                ver = p - 1;
                                break;
                        }
                }
        if (!ver || ver == s)
                return false;
        *name_len = (size_t)(ver - s);
        *vr = ver + 1;
        *vr_len = (size_t)(s + len - *vr);
        return true;
}

int pn_pkgdb_add_rpm_package(pn_pkgdb *db, const char *nevra, const char *name, const char *evr, const char *srpm,
                             const char *arch) {
        const char *vr;
        size_t src_len, vr_len;
        if (!split_srpm(srpm, strlen(srpm), &src_len, &vr, &vr_len)) {
                /* No usable source rpm: the package is its own source. */
                const char *colon = strchr(evr, ':');
                srpm = name, src_len = strlen(name);
                vr = colon ? colon + 1 : evr, vr_len = strlen(vr);
        }
        return add_pkg(db, STR(nevra, strlen(nevra)), STR(srpm, src_len), STR(vr, vr_len), STR(arch, strlen(arch)),
                       STR(name, strlen(name)), STR(evr, strlen(evr)));
}

/* ---------------------------------------------------------- lookup */

static ssize_t find(const pn_pkgdb *db, const char *path) {
        size_t lo = 0, hi = db->nfiles;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(db->files[mid].path, path);
                if (c == 0) {
                        while (mid > 0 && !strcmp(db->files[mid - 1].path, path))
                                mid--;
                        return (ssize_t)db->files[mid].pkg;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return -1;
}

const char *pn_pkgdb_type(const pn_pkgdb *db) {
        return db->type;
}

size_t pn_pkgdb_file_count(const pn_pkgdb *db) {
        return db->nfiles;
}

const char *pn_pkgdb_file(const pn_pkgdb *db, size_t i, size_t *pkg) {
        if (i >= db->nfiles)
                return NULL;
        if (pkg)
                *pkg = db->files[i].pkg;
        return db->files[i].path;
}

ssize_t pn_pkgdb_owner(const pn_pkgdb *db, const char *path) {
        if (*path != '/')
                return -1;
        ssize_t p = find(db, path);
        if (p >= 0)
                return p;
        /* merged /usr: a package may list /bin/sh for /usr/bin/sh or the
         * other way round. */
        static const char *const aliased[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
        char alt[PATH_MAX + 8];
        for (size_t k = 0; k < ELEMENTSOF(aliased); k++) {
                size_t al = strlen(aliased[k]);
                if (!strncmp(path, "/usr", 4) && !strncmp(path + 4, aliased[k], al)) {
                        if (strlen(path + 4) < sizeof alt)
                                return find(db, strcpy(alt, path + 4));
                } else if (!strncmp(path, aliased[k], al) && strlen(path) + 4 < sizeof alt) {
                        snprintf(alt, sizeof alt, "/usr%s", path);
                        return find(db, alt);
                }
        }
        return -1;
}

size_t pn_pkgdb_count(const pn_pkgdb *db) {
        return db->npkgs;
}

const struct pn_pkg *pn_pkgdb_pkg(const pn_pkgdb *db, size_t i) {
        return i < db->npkgs ? &db->pkgs[i] : NULL;
}
