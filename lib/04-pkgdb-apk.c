/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Alpine's package database, lib/apk/db/installed: one paragraph per
 * installed package, separated by an empty line, each line a one-letter
 * key, ':' and a value (apk-tools' "installed database" format, the same
 * keys as its APKINDEX).  Read here: P: name, V: version, A: architecture,
 * o: origin (the package built from the same APKBUILD, the source), L:
 * license, F: a directory (relative to the root), R: a file of the last
 * F: (a file of the root itself when no F: came before it).  Other keys
 * (checksums, sizes, dependencies, file modes) are passed over.
 *
 * The file is untrusted (it comes from the image being scanned), so every
 * line is bounded and must have exactly that form; a paragraph that does
 * not is left out whole and counted, rather than half read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "04-pkgdb-private.h"

/* One paragraph's fields, pointers into the text. */
struct apk_para {
        const char *name, *version, *arch, *origin, *license;
        size_t name_len, version_len, arch_len, origin_len, license_len;
};

static bool key_ok(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether the line [s, e) is "K:value" with a one-letter K, no NUL or
 * carriage return, and at most PN_APK_MAX_LINE bytes. */
static bool line_ok(const char *s, const char *e) {
        size_t n = (size_t)(e - s);
        return n >= 2 && n <= PN_APK_MAX_LINE && key_ok(s[0]) && s[1] == ':' && !memchr(s, 0, n) &&
               !memchr(s, '\r', n);
}

/* Sets *V, *VLEN to the value of the line unless already set (a second
 * P:, V:, A: is a malformed paragraph). */
static bool take(const char **v, size_t *vlen, const char *s, const char *e) {
        if (*v)
                return false;
        *v = s + 2;
        *vlen = (size_t)(e - s - 2);
        return true;
}

/* The paragraph [p, end): its fields into *F; false when malformed. */
static bool read_para(const char *p, const char *end, struct apk_para *f) {
        *f = (struct apk_para){0};
        for (const char *s = p, *e; s < end; s = e + 1) {
                e = memchr(s, '\n', (size_t)(end - s));
                if (!e)
                        e = end;
                if (!line_ok(s, e))
                        return false;
                bool ok = true;
                switch (s[0]) {
                case 'P': ok = take(&f->name, &f->name_len, s, e); break;
                case 'V': ok = take(&f->version, &f->version_len, s, e); break;
                case 'A': ok = take(&f->arch, &f->arch_len, s, e); break;
                case 'o': ok = take(&f->origin, &f->origin_len, s, e); break;
                case 'L': ok = take(&f->license, &f->license_len, s, e); break;
                default: break;
                }
                if (!ok)
                        return false;
        }
        return f->name && f->version && f->arch && f->name_len && f->version_len && f->arch_len;
}

/* Adds the files of the paragraph [p, end) to package PKG. */
static int para_files(pn_pkgdb *db, const char *p, const char *end, size_t pkg) {
        const char *dir = NULL;
        size_t dir_len = 0;
        char path[2 * PN_APK_MAX_LINE + 3];
        for (const char *s = p, *e; s < end; s = e + 1) {
                e = memchr(s, '\n', (size_t)(end - s));
                if (!e)
                        e = end;
                size_t vl = (size_t)(e - s - 2);
                if (s[0] == 'F') {
                        dir = s + 2;
                        dir_len = vl;
                } else if (s[0] == 'R' && vl > 0) {
                        int n = dir_len ? snprintf(path, sizeof path, "/%.*s/%.*s", (int)dir_len, dir, (int)vl, s + 2)
                                        : snprintf(path, sizeof path, "/%.*s", (int)vl, s + 2);
                        int r = pn_pkgdb_add_file(db, path, (size_t)n, pkg);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int pn_pkgdb_add_apk(pn_pkgdb *db, const char *text, size_t len) {
        const char *end = text + len;
        size_t damaged = pn_pkgdb_damaged(db);
        for (const char *p = text; p < end;) {
                while (p < end && *p == '\n')
                        p++; /* blank lines between paragraphs */
                if (p >= end)
                        break;
                const char *q = memmem(p, (size_t)(end - p), "\n\n", 2);
                const char *pe = q ? q : end;
                if (pe > p && pe[-1] == '\n')
                        pe--;
                struct apk_para f;
                if (!read_para(p, pe, &f)) {
                        damaged++;
                } else {
                        size_t pkg = pn_pkgdb_count(db);
                        const char *src = f.origin && f.origin_len ? f.origin : f.name;
                        size_t src_len = f.origin && f.origin_len ? f.origin_len : f.name_len;
                        int r = pn_pkgdb_add_apk_package(db, f.name, f.name_len, src, src_len, f.version,
                                                         f.version_len, f.arch, f.arch_len);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                damaged++;
                        else if ((f.license && (r = pn_pkgdb_set_license(db, pkg, f.license, f.license_len)) < 0) ||
                                 (r = para_files(db, p, pe, pkg)) < 0)
                                return r;
                }
                p = q ? q + 2 : end;
        }
        pn_pkgdb_set_damaged(db, damaged);
        return 0;
}

bool pn_pkgdb_apk_path(const char *rel) {
        return !strcmp(rel, "lib/apk/db/installed");
}

int pn_pkgdb_apk_read(const struct pn_rootfs *fs, pn_pkgdb **ret) {
        void *text;
        size_t len;
        int r = fs->read(fs->u, "lib/apk/db/installed", PN_APK_MAX_INSTALLED, &text, &len);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return pn_error(r, "the apk database (lib/apk/db/installed) cannot be read: %s", strerror(-r));
        pn_pkgdb *db = pn_pkgdb_new("apk");
        r = db ? pn_pkgdb_add_apk(db, text, len) : -ENOMEM;
        free(text);
        r = pn_pkgdb_seal(db, r, ret);
        return r < 0 ? r : 1;
}
