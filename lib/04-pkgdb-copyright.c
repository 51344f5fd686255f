/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The licenses of Debian packages: dpkg's database names none, but a
 * package whose usr/share/doc/PKG/copyright follows the machine-readable
 * format (DEP-5, "copyright-format/1.0") names them in License: fields,
 * by Debian's short names (section "License specification": GPL-2+,
 * LGPL-2.1+, Expat, BSD-3-clause, public-domain, ...), combined with
 * "or" and "and" and qualified by "with ... exception".  They are turned
 * into one SPDX expression: the names that have an SPDX identifier get it,
 * the others a LicenseRef- of their own name.  A file in any other form
 * gives nothing: guessing licenses from prose is not what this is for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "01-base.h"
#include "04-pkgdb-private.h"

/* Debian's short names whose SPDX identifier is not the same text. */
static const struct {
        const char *debian, *spdx;
} renamed[] = {
        {"Expat", "MIT"},
        {"Artistic", "Artistic-1.0"},
        {"Artistic-1", "Artistic-1.0"},
        {"BSD-2-clause", "BSD-2-Clause"},
        {"BSD-3-clause", "BSD-3-Clause"},
        {"BSD-4-clause", "BSD-4-Clause"},
        {"PSF-2", "PSF-2.0"},
        {"Python-2", "Python-2.0"},
        {"MPL-1.1", "MPL-1.1"},
        {"MPL-2.0", "MPL-2.0"},
        {"Apache-2", "Apache-2.0"},
        {"Apache-1.1", "Apache-1.1"},
        {"Zlib", "Zlib"},
        {"zlib", "Zlib"},
        {"ISC", "ISC"},
        {"MIT", "MIT"},
        {"CC0", "CC0-1.0"},
        {"CC0-1.0", "CC0-1.0"},
        {"Unicode-DFS-2016", "Unicode-DFS-2016"},
        {"OpenSSL", "OpenSSL"},
        {"curl", "curl"},
        {"X11", "X11"},
        {"FSFAP", "FSFAP"},
        {"FSFUL", "FSFUL"},
        {"FSFULLR", "FSFULLR"},
        {"WTFPL", "WTFPL"},
        {"BSL-1.0", "BSL-1.0"},
        {"Apache-2.0", "Apache-2.0"},
        {"Artistic-2.0", "Artistic-2.0"},
};

/* The GNU families, whose Debian names are FAMILY-N[.M][+]. */
static const char *const gnu[] = {"GPL", "LGPL", "AGPL", "GFDL"};

/* NAME-N[.M][+] of a GNU family as GPL-2.0-or-later, GPL-2.0-only. */
static bool gnu_id(const char *name, size_t len, char *buf, size_t size) {
        for (size_t i = 0; i < ELEMENTSOF(gnu); i++) {
                size_t fl = strlen(gnu[i]);
                if (len < fl + 2 || memcmp(name, gnu[i], fl) || name[fl] != '-')
                        continue;
                const char *v = name + fl + 1, *e = name + len;
                bool later = e[-1] == '+';
                if (later)
                        e--;
                /* N or N.M, digits only. */
                size_t dots = 0, n = (size_t)(e - v);
                if (n == 0 || n > 5 || *v == '.' || e[-1] == '.')
                        continue;
                bool ok = true;
                for (const char *p = v; p < e; p++)
                        if (*p == '.')
                                dots++;
                        else if (*p < '0' || *p > '9')
                                ok = false;
                if (!ok || dots > 1)
                        continue;
                int w = snprintf(buf, size, "%s-%.*s%s-%s", gnu[i], (int)n, v, dots ? "" : ".0", later ? "or-later" : "only");
                return w > 0 && (size_t)w < size;
        }
        return false;
}

bool pn_dep5_spdx_id(const char *name, size_t len, char *buf, size_t size) {
        for (size_t i = 0; i < ELEMENTSOF(renamed); i++)
                if (strlen(renamed[i].debian) == len && !strncasecmp(renamed[i].debian, name, len)) {
                        int w = snprintf(buf, size, "%s", renamed[i].spdx);
                        return w > 0 && (size_t)w < size;
                }
        if (gnu_id(name, len, buf, size))
                return true;
        return pn_license_ref(name, len, buf, size);
}

bool pn_license_ref(const char *name, size_t len, char *buf, size_t size) {
        /* SPDX 2.3 (Annex D) idstring: letters, digits, '.' and '-'; a
         * final '+' ("or any later version") spelt out. */
        bool later = len > 1 && name[len - 1] == '+';
        if (later)
                len--;
        if (size < sizeof "LicenseRef-" + len + (later ? 9 : 0))
                return false;
        size_t o = (size_t)snprintf(buf, size, "LicenseRef-");
        for (size_t i = 0; i < len; i++) {
                char c = name[i];
                buf[o++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ? c : '-';
        }
        buf[o] = 0;
        if (later)
                memcpy(buf + o, "-or-later", 10);
        return true;
}

/* Whether the LEN bytes at W are the word WORD, in any case. */
static bool word_is(const char *w, size_t len, const char *word) {
        return strlen(word) == len && !strncasecmp(w, word, len);
}

/* The next word of a License: field at *P (before E): its start, length
 * in *LEN (0 at the end), and whether it names anything (a letter or a
 * digit: punctuation alone, "-", names no license). */
static const char *next_word(const char **p, const char *e, size_t *len, bool *named) {
        while (*p < e && (**p == ' ' || **p == '\t' || **p == ','))
                (*p)++;
        const char *w = *p;
        while (*p < e && **p != ' ' && **p != '\t' && **p != ',')
                (*p)++;
        *len = (size_t)(*p - w);
        *named = false;
        for (size_t k = 0; k < *len && !*named; k++)
                *named = (w[k] >= 'a' && w[k] <= 'z') || (w[k] >= 'A' && w[k] <= 'Z') || (w[k] >= '0' && w[k] <= '9');
        return w;
}

/* Whether the field [s, e) reads as names joined by "or" and "and": no
 * operator first, last or after another, no parenthesis (Debian's format
 * has none; SPDX's would need them balanced and around operands).
 * *NAMES whether it has a word that is no operator. */
static bool well_formed(const char *s, const char *e, bool *names) {
        bool paren = false;
        for (const char *q = s; q < e; q++)
                paren |= *q == '(' || *q == ')';
        bool want_name = true, ok = !paren;
        *names = false;
        for (const char *p = s; p < e;) {
                size_t wl;
                bool named;
                const char *w = next_word(&p, e, &wl, &named);
                if (wl == 0)
                        break;
                if (!named)
                        continue;
                bool op = word_is(w, wl, "or") || word_is(w, wl, "and");
                if (op && want_name)
                        ok = false;
                *names |= !op;
                want_name = op;
        }
        return ok && !want_name;
}

/* The first line of one License: field, [s, e), as an SPDX expression
 * appended to F: names joined by OR and AND.  "NAME with X exception" (and
 * anything else with "with") is one LicenseRef- of the whole text, since
 * Debian's exception names have no table to map them by, and so is a
 * field that is not names joined by operators ("MIT or", "GPL-2+ and",
 * "or MIT", "(GPL-2+ and) and MIT"): an operator without both operands
 * cannot be written in SPDX, and dropping it would claim a license or a
 * choice the packager did not write (the field cut short by "and" may
 * have meant more licenses, all to be met), so the text is kept as the
 * name of a license of its own, as rpm tags that are no expression are
 * (lib/04-pkgdb-license.c).  False when it names nothing. */
static bool field_expression(FILE *f, const char *s, const char *e) {
        char id[PN_LICENSE_MAX / 4];
        const char *p = s;
        size_t words = 0;
        bool whole = false;
        for (const char *q = s; q < e && !whole; q++)
                whole = (q == s || q[-1] == ' ' || q[-1] == '\t') && e - q >= 4 && !strncasecmp(q, "with", 4) &&
                        (q + 4 == e || q[4] == ' ' || q[4] == '\t');
        bool names, formed = well_formed(s, e, &names);
        if (!formed && !names && !whole)
                return false; /* operators alone ("and") name nothing */
        if (whole || !formed) {
                if (!pn_dep5_spdx_id(s, (size_t)(e - s), id, sizeof id))
                        return false;
                fputs(id, f);
                return true;
        }
        bool open = false;
        while (p < e) {
                size_t wl;
                bool named;
                const char *w = next_word(&p, e, &wl, &named);
                if (wl == 0)
                        break;
                if (!named)
                        continue; /* punctuation alone ("(", "-") names no license */
                if (word_is(w, wl, "or") || word_is(w, wl, "and")) {
                        if (open)
                                fprintf(f, " %s ", word_is(w, wl, "or") ? "OR" : "AND");
                        open = false;
                        continue;
                }
                if (open)
                        fputs(" OR ", f); /* "GPL-2+, LGPL-2+": the old list form, a choice */
                if (!pn_dep5_spdx_id(w, wl, id, sizeof id))
                        return false;
                fputs(id, f);
                open = true;
                words++;
        }
        return words > 0;
}

int pn_dep5_license(const char *text, size_t len, char **ret) {
        const char *end = text + len;
        if (len == 0 || memchr(text, 0, len))
                return 0;
        /* The header paragraph's first field: Format: ...copyright-format/1.0 */
        const char *eol = memchr(text, '\n', len);
        if (!eol)
                eol = end;
        if ((size_t)(eol - text) < 8 || strncasecmp(text, "Format:", 7) ||
            !memmem(text, (size_t)(eol - text), "copyright-format/1.0", 20))
                return 0;
        /* The distinct expressions, in order of first appearance. */
        char **exprs = NULL;
        size_t n = 0, cap = 0;
        int r = 0;
        for (const char *s = text, *e; s < end && r == 0; s = e + 1) {
                e = memchr(s, '\n', (size_t)(end - s));
                if (!e)
                        e = end;
                if (e - s < 8 || strncasecmp(s, "License:", 8))
                        continue;
                const char *v = s + 8, *ve = e;
                while (v < ve && (*v == ' ' || *v == '\t'))
                        v++;
                while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
                        ve--;
                if (v == ve || (size_t)(ve - v) > PN_LICENSE_MAX / 4)
                        continue;
                char *x = NULL;
                size_t xl = 0;
                FILE *f = open_memstream(&x, &xl);
                if (!f) {
                        r = -ENOMEM;
                        break;
                }
                bool ok = field_expression(f, v, ve);
                if (fclose(f) != 0 || !x) {
                        free(x);
                        r = -ENOMEM;
                        break;
                }
                bool seen = !ok;
                for (size_t i = 0; i < n && !seen; i++)
                        seen = !strcmp(exprs[i], x);
                if (seen) {
                        free(x);
                        continue;
                }
                if (PN_GROW(exprs, cap, n + 1) < 0) {
                        free(x);
                        r = -ENOMEM;
                        break;
                }
                exprs[n++] = x;
        }
        char *out = NULL;
        size_t ol = 0;
        FILE *f = r == 0 && n ? open_memstream(&out, &ol) : NULL;
        if (r == 0 && n && !f)
                r = -ENOMEM;
        for (size_t i = 0; f && i < n; i++) {
                bool compound = n > 1 && (strstr(exprs[i], " OR ") || strstr(exprs[i], " AND "));
                fprintf(f, "%s%s%s%s", i ? " AND " : "", compound ? "(" : "", exprs[i], compound ? ")" : "");
        }
        if (f && (fclose(f) != 0 || !out))
                r = -ENOMEM;
        for (size_t i = 0; i < n; i++)
                free(exprs[i]);
        free(exprs);
        if (r < 0 || !n || ol > PN_LICENSE_MAX) {
                free(out);
                return r < 0 ? r : 0;
        }
        *ret = out;
        return 1;
}

bool pn_copyright_path(const char *rel) {
        if (strncmp(rel, "usr/share/doc/", 14))
                return false;
        const char *pkg = rel + 14, *slash = strchr(pkg, '/');
        return slash && slash > pkg && !strcmp(slash, "/copyright");
}

int pn_dpkg_package_license(const struct pn_rootfs *fs, const char *bin_name, char **ret) {
        char rel[512];
        if ((size_t)snprintf(rel, sizeof rel, "usr/share/doc/%s/copyright", bin_name) >= sizeof rel ||
            strchr(bin_name, '/') || !strcmp(bin_name, "..") || !strcmp(bin_name, "."))
                return 0;
        void *text;
        size_t len;
        int r = fs->read(fs->u, rel, PN_COPYRIGHT_MAX, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* none, a link to another package's, too long: no license */
        r = pn_dep5_license(text, len, ret);
        free(text);
        return r;
}

int pn_pkgdb_dpkg_licenses(pn_pkgdb *db, const struct pn_rootfs *fs) {
        for (size_t i = 0; i < pn_pkgdb_count(db); i++) {
                char *expr = NULL;
                int r = pn_dpkg_package_license(fs, pn_pkgdb_pkg(db, i)->bin_name, &expr);
                if (r > 0)
                        r = pn_pkgdb_set_license(db, i, expr, strlen(expr));
                free(expr);
                if (r < 0)
                        return r;
        }
        return 0;
}
