/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who owns a file, by a root's own package database: dpkg's status file
 * and info/PACKAGE.list, or rpm's rpmdb.sqlite (lib/04-pkgdb-rpm.c, found in
 * the root by lib/09-scan-db.c).  Each owner
 * is given as the package note names it: the source package's name and
 * version (dpkg's Source: field, rpm's source rpm), the binary package's
 * architecture.  Files are looked up by their path in the root, with the
 * merged-/usr aliases (/bin is /usr/bin, /lib is /usr/lib, ...) tried too.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "01-base.h"
#include "output.h"
#include "04-pkgdb-private.h"

struct pn_pkgdb {
        const char *type; /* "deb", "rpm" or "apk" */
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
                free(db->pkgs[i].license);
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
                             strndup(bin_name.s, bin_name.len), strndup(bin_version.s, bin_version.len), NULL};
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

int pn_pkgdb_set_license(pn_pkgdb *db, size_t pkg, const char *s, size_t len) {
        if (pkg >= db->npkgs || len > PN_LICENSE_MAX || !plain(s, len))
                return 0;
        char *l = strndup(s, len);
        if (!l)
                return -ENOMEM;
        free(db->pkgs[pkg].license);
        db->pkgs[pkg].license = l;
        return 0;
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
                        pn_oom();
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

/* The fields of a status paragraph that are read, by name. */
enum { F_PACKAGE, F_STATUS, F_ARCH, F_VERSION, F_SOURCE, F_COUNT };
static const char *const field_names[F_COUNT] = {"Package", "Status", "Architecture", "Version", "Source"};

struct fields {
        const char *v[F_COUNT]; /* the first value of each, or NULL */
        size_t len[F_COUNT];
};

/* Keeps the value of the line [line, eol) when it is the first of a wanted
 * field: "Name:" at the start, the value without the blanks around it. */
static void take_field(struct fields *f, const char *line, const char *eol) {
        for (size_t k = 0; k < F_COUNT; k++) {
                size_t nl = strlen(field_names[k]);
                if (f->v[k] || (size_t)(eol - line) <= nl || memcmp(line, field_names[k], nl) || line[nl] != ':')
                        continue;
                const char *v = line + nl + 1;
                while (v < eol && (*v == ' ' || *v == '\t'))
                        v++;
                const char *e = eol;
                while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                        e--;
                f->v[k] = v;
                f->len[k] = (size_t)(e - v);
                return;
        }
}

/* Adds the installed package of a status paragraph's fields F. */
static int status_paragraph(pn_pkgdb *db, const struct fields *f) {
        size_t pl = f->len[F_PACKAGE], sl = f->len[F_STATUS], al = f->len[F_ARCH], vl = f->len[F_VERSION],
               srcl = f->len[F_SOURCE];
        const char *pkg = f->v[F_PACKAGE], *st = f->v[F_STATUS], *arch = f->v[F_ARCH], *ver = f->v[F_VERSION],
                   *src = f->v[F_SOURCE];
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
        /* Paragraphs end at an empty line ("\n\n"); each line is looked at
         * once, for the fields wanted (a status file of a thousand
         * packages is a megabyte, read on every lookup). */
        const char *end = text + len;
        for (const char *p = text; p < end;) {
                struct fields f = {{NULL}, {0}};
                const char *line = p, *next = end;
                while (line < end) {
                        const char *eol = line_end(line, end);
                        take_field(&f, line, eol);
                        if (eol >= end)
                                break;
                        if (eol + 1 < end && eol[1] == '\n') {
                                next = eol + 2;
                                break;
                        }
                        line = eol + 1;
                }
                int r = status_paragraph(db, &f);
                if (r < 0)
                        return r;
                p = next;
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

/* ------------------------------------------------------------- apk */

int pn_pkgdb_add_apk_package(pn_pkgdb *db, const char *name, size_t name_len, const char *origin, size_t origin_len,
                             const char *version, size_t version_len, const char *arch, size_t arch_len) {
        /* apk has no source version of its own: an origin is built at the
         * version of the packages it makes. */
        return add_pkg(db, STR(name, name_len), STR(origin, origin_len), STR(version, version_len), STR(arch, arch_len),
                       STR(name, name_len), STR(version, version_len));
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

/* PATH under its merged-/usr alias (/usr/bin/x for /bin/x and back) into
 * ALT (SIZE bytes): a package may list /bin/sh for /usr/bin/sh, and dpkg
 * records paths as the package shipped them, while the kernel names a
 * mapped file by its resolved path. */
static bool usr_alias(const char *path, char *alt, size_t size) {
        static const char *const aliased[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"};
        for (size_t k = 0; k < ELEMENTSOF(aliased); k++) {
                size_t al = strlen(aliased[k]);
                if (!strncmp(path, "/usr", 4) && !strncmp(path + 4, aliased[k], al))
                        return (size_t)snprintf(alt, size, "%s", path + 4) < size;
                if (!strncmp(path, aliased[k], al))
                        return (size_t)snprintf(alt, size, "/usr%s", path) < size;
        }
        return false;
}

ssize_t pn_pkgdb_owner(const pn_pkgdb *db, const char *path) {
        if (*path != '/')
                return -1;
        ssize_t p = find(db, path);
        if (p >= 0)
                return p;
        char alt[PATH_MAX + 8];
        return usr_alias(path, alt, sizeof alt) ? find(db, alt) : -1;
}

size_t pn_pkgdb_count(const pn_pkgdb *db) {
        return db->npkgs;
}

const struct pn_pkg *pn_pkgdb_pkg(const pn_pkgdb *db, size_t i) {
        return i < db->npkgs ? &db->pkgs[i] : NULL;
}

/* ------------------------------------------- dpkg, for a few paths */

/* The owners of a handful of files (a process's modules): every list
 * file must still be read, since dpkg keeps no index by path, but only
 * lines naming a wanted path are kept, so nothing is allocated or sorted
 * per file of the whole system.  A line is first told from the wanted
 * ones by a filter on its length and last bytes (a bitmap), which rejects
 * nearly all of the system's lines without comparing them. */
#define WANT_FILTER_BITS 4096u
#define MAX_LIST_NAME 512u /* longer than any "NAME:ARCH" status_paragraph() keeps */

/* The installed packages by their "NAME:ARCH", so that a list file's
 * package is found without a walk over all of them per list. */
struct binary {
        const char *binary;
        size_t pkg;
};

struct pn_dpkg_wanted {
        char **paths; /* sorted, each wanted path and its merged-/usr alias */
        size_t n, cap;
        uint64_t filter[WANT_FILTER_BITS / 64];
        struct binary *by; /* the database's packages, sorted */
        size_t nby;
};

/* The filter's bit for a line of LEN bytes at P (LEN > 0). */
static unsigned filter_bit(const char *p, size_t len) {
        uint64_t tail = 0;
        size_t k = len < 8 ? len : 8;
        memcpy(&tail, p + len - k, k);
        uint64_t h = (tail ^ len) * UINT64_C(0x9e3779b97f4a7c15);
        return (unsigned)(h >> 52) % WANT_FILTER_BITS;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_binary(const void *a, const void *b) {
        const struct binary *x = a, *y = b;
        int c = strcmp(x->binary, y->binary);
        return c ? c : (x->pkg > y->pkg) - (x->pkg < y->pkg);
}

static int want(pn_dpkg_wanted *w, const char *path) {
        if (PN_GROW(w->paths, w->cap, w->n + 1) < 0 || !(w->paths[w->n] = strdup(path)))
                return -ENOMEM;
        unsigned bit = filter_bit(path, strlen(path));
        w->filter[bit / 64] |= UINT64_C(1) << (bit % 64);
        w->n++;
        return 0;
}

void pn_dpkg_wanted_free(pn_dpkg_wanted *w) {
        if (!w)
                return;
        for (size_t i = 0; i < w->n; i++)
                free(w->paths[i]);
        free(w->paths);
        free(w->by);
        free(w);
}

int pn_dpkg_wanted_new(const pn_pkgdb *db, const char *const *paths, size_t n, pn_dpkg_wanted **ret) {
        pn_dpkg_wanted *w = calloc(1, sizeof *w);
        int r = w ? 0 : -ENOMEM;
        char alt[PATH_MAX + 8];
        for (size_t i = 0; r == 0 && i < n; i++) {
                if (paths[i][0] != '/')
                        continue;
                r = want(w, paths[i]);
                if (r == 0 && usr_alias(paths[i], alt, sizeof alt))
                        r = want(w, alt);
        }
        if (r == 0 && !(w->by = malloc((db->npkgs ? db->npkgs : 1) * sizeof *w->by)))
                r = -ENOMEM;
        if (r < 0) {
                pn_dpkg_wanted_free(w);
                return -ENOMEM;
        }
        if (w->n > 1)
                qsort(w->paths, w->n, sizeof *w->paths, cmp_str);
        for (size_t i = 0; i < db->npkgs; i++)
                w->by[i] = (struct binary){db->pkgs[i].binary, i};
        w->nby = db->npkgs;
        qsort(w->by, w->nby, sizeof *w->by, cmp_binary);
        *ret = w;
        return 0;
}

/* strcmp() of the string S with the LEN bytes at P. */
static int cmp_n(const char *s, const char *p, size_t len) {
        int c = strncmp(s, p, len);
        return c ? c : s[len] != 0;
}

/* Whether the line of LEN bytes at P is a wanted path. */
static bool wanted_line(const pn_dpkg_wanted *w, const char *p, size_t len) {
        unsigned bit = filter_bit(p, len);
        if (!(w->filter[bit / 64] & (UINT64_C(1) << (bit % 64))))
                return false;
        size_t lo = 0, hi = w->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = cmp_n(w->paths[mid], p, len);
                if (c == 0)
                        return true;
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
}

/* The package of the list file NAME ("pkg.list", "pkg:arch.list"), the
 * same as list_owner() finds: of those named so, the first in the status
 * file. */
static ssize_t sorted_list_owner(const pn_dpkg_wanted *w, const char *name) {
        size_t nl = strlen(name);
        if (nl <= 5 || nl - 5 >= MAX_LIST_NAME - 1 || strcmp(name + nl - 5, ".list"))
                return -1;
        char key[MAX_LIST_NAME + 1];
        memcpy(key, name, nl - 5);
        key[nl - 5] = 0;
        bool qualified = strchr(key, ':') != NULL;
        if (!qualified)
                strcat(key, ":");
        size_t kl = strlen(key);
        /* The first binary not below KEY: "PKG:ARCH" itself, or the first
         * of "PKG:" (all binaries of that name follow it). */
        size_t lo = 0, hi = w->nby;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(w->by[mid].binary, key) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        ssize_t best = -1;
        for (size_t i = lo; i < w->nby; i++) {
                const char *b = w->by[i].binary;
                if (qualified ? strcmp(b, key) != 0 : strncmp(b, key, kl) != 0)
                        break;
                if (best < 0 || w->by[i].pkg < (size_t)best)
                        best = (ssize_t)w->by[i].pkg;
        }
        return best;
}

int pn_dpkg_wanted_add_list(const pn_dpkg_wanted *w, pn_pkgdb *db, const char *list_name, const char *text,
                            size_t len) {
        ssize_t pkg = sorted_list_owner(w, list_name);
        int r = 0;
        for (const char *p = text, *eol; pkg >= 0 && r == 0 && p < text + len; p = eol + 1) {
                eol = line_end(p, text + len);
                size_t n = (size_t)(eol - p);
                if (n > 0 && *p == '/' && wanted_line(w, p, n))
                        r = pn_pkgdb_add_file(db, p, n, (size_t)pkg);
        }
        return r;
}

size_t pn_dpkg_wanted_count(const pn_dpkg_wanted *w) {
        return w->n;
}

const char *pn_dpkg_wanted_path(const pn_dpkg_wanted *w, size_t i) {
        return i < w->n ? w->paths[i] : NULL;
}

bool pn_dpkg_wanted_list(const pn_dpkg_wanted *w, const char *list_name) {
        return sorted_list_owner(w, list_name) >= 0;
}

/* ------------------------------------------ comparison with notes */

static bool same(const char *a, const char *b) {
        return a && b && !strcmp(a, b);
}

bool pn_pkgdb_note_agrees(const pkgnote_metadata *m, const char *type, const struct pn_pkg *p) {
        /* rpm's binary version without its epoch, as notes give it */
        const char *bv = p->bin_version, *colon = strchr(bv, ':');
        if (colon && !strcmp(type, "rpm"))
                bv = colon + 1;
        const char *t = pkgnote_metadata_get(m, PKGNOTE_KEY_TYPE), *name = pkgnote_metadata_get(m, PKGNOTE_KEY_NAME),
                   *version = pkgnote_metadata_get(m, PKGNOTE_KEY_VERSION);
        if (t && strcmp(t, type))
                return false;
        if (!same(name, p->name) && !same(name, p->bin_name))
                return false;
        return same(version, p->version) || same(version, p->bin_version) || same(version, bv);
}

bool pn_pkgdb_disagrees(const pkgnote_info *info, const char *type, const struct pn_pkg *p) {
        size_t n = info ? pkgnote_info_package_count(info) : 0;
        if (!p || n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (pn_pkgdb_note_agrees(pkgnote_info_package(info, i), type, p))
                        return false;
        return true;
}
