/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The License tags of rpm (and apk's L:) as SPDX expressions.  Fedora
 * and many rpm distributions wrote their own short names before they
 * moved to SPDX ("GPLv2+", "ASL 2.0", "BSD", "Public Domain"), joined by
 * "and" and "or"; an SBOM must not carry them in a field that holds SPDX
 * expressions.  A name whose SPDX identifier is exactly known (Fedora's
 * own migration table says one, not a choice) is mapped, a name that is an
 * SPDX identifier already stays, and any other becomes LicenseRef- of its
 * own text, so that no license is claimed that the packager did not name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "01-base.h"
#include "04-pkgdb-private.h"

/* Fedora's legacy short names with exactly one SPDX identifier.  "BSD",
 * "MIT", "LGPLv2", "Python", "PHP" and the like covered several licenses
 * and have none: they become LicenseRef-. */
static const struct {
        const char *fedora, *spdx;
} fedora[] = {
        {"GPL+", "GPL-1.0-or-later"},      {"GPLv1", "GPL-1.0-only"},
        {"GPLv2", "GPL-2.0-only"},         {"GPLv2+", "GPL-2.0-or-later"},
        {"GPLv3", "GPL-3.0-only"},         {"GPLv3+", "GPL-3.0-or-later"},
        {"LGPLv2.1", "LGPL-2.1-only"},     {"LGPLv2.1+", "LGPL-2.1-or-later"},
        {"LGPLv3", "LGPL-3.0-only"},       {"LGPLv3+", "LGPL-3.0-or-later"},
        {"AGPLv3", "AGPL-3.0-only"},       {"AGPLv3+", "AGPL-3.0-or-later"},
        {"GFDL", "GFDL-1.1-or-later"},     {"ASL 1.0", "Apache-1.0"},
        {"ASL 1.1", "Apache-1.1"},         {"ASL 2.0", "Apache-2.0"},
        {"MPLv1.0", "MPL-1.0"},            {"MPLv1.1", "MPL-1.1"},
        {"MPLv2.0", "MPL-2.0"},            {"Boost", "BSL-1.0"},
        {"zlib", "Zlib"},                  {"Artistic 2.0", "Artistic-2.0"},
        {"Artistic clarified", "ClArtistic"}, {"CC0", "CC0-1.0"},
        {"EPL", "EPL-1.0"},                {"EPL-2.0", "EPL-2.0"},
        {"OpenLDAP", "OLDAP-2.8"},         {"PostgreSQL", "PostgreSQL"},
        {"Sleepycat", "Sleepycat"},        {"Vim", "Vim"},
        {"WTFPL", "WTFPL"},                {"Unlicense", "Unlicense"},
        {"OFL", "OFL-1.1"},                {"IJG", "IJG"},
        {"libtiff", "libtiff"},            {"ISC", "ISC"},
        {"OpenSSL", "OpenSSL"},            {"Ruby", "Ruby"},
        {"TCL", "TCL"},                    {"UCD", "Unicode-DFS-2016"},
        {"CDDL", "CDDL-1.0"},              {"BSD with advertising", "BSD-4-Clause"},
};

/* SPDX license list identifiers rpm tags commonly name as they are. */
static const char *const spdx_ids[] = {
        "0BSD", "AFL-2.1", "AFL-3.0", "Apache-1.0", "Apache-1.1", "Apache-2.0", "Artistic-1.0", "Artistic-1.0-Perl",
        "Artistic-2.0", "Beerware", "blessing", "BSD-1-Clause", "BSD-2-Clause", "BSD-3-Clause", "BSD-4-Clause",
        "BSD-Source-Code", "BSL-1.0", "bzip2-1.0.6", "CC-BY-3.0", "CC-BY-4.0", "CC-BY-SA-3.0", "CC-BY-SA-4.0",
        "CC0-1.0", "CDDL-1.0", "CDDL-1.1", "ClArtistic", "curl", "EPL-1.0", "EPL-2.0", "FSFAP", "FSFUL", "FSFULLR",
        "FTL", "HPND", "ICU", "IJG", "ISC", "libpng-2.0", "libtiff", "LPPL-1.3c", "MIT", "MIT-0", "MIT-CMU",
        "MPL-1.0", "MPL-1.1", "MPL-2.0", "NCSA", "OFL-1.1", "OLDAP-2.8", "OpenSSL", "PHP-3.0", "PHP-3.01",
        "PostgreSQL", "PSF-2.0", "Python-2.0", "Ruby", "Sleepycat", "TCL", "Unicode-3.0", "Unicode-DFS-2016",
        "Unlicense", "UPL-1.0", "Vim", "W3C", "WTFPL", "X11", "Zlib", "ZPL-2.1",
};

/* SPDX exceptions, for NAME WITH EXCEPTION. */
static const char *const spdx_exceptions[] = {
        "Autoconf-exception-2.0", "Autoconf-exception-3.0", "Bison-exception-2.2", "Classpath-exception-2.0",
        "Font-exception-2.0", "GCC-exception-2.0", "GCC-exception-3.1", "Libtool-exception", "Linux-syscall-note",
        "LLVM-exception", "OpenSSL-exception", "Qt-LGPL-exception-1.1", "u-boot-exception-2.0",
};

static bool in_list(const char *const *list, size_t n, const char *w, size_t len) {
        for (size_t i = 0; i < n; i++)
                if (strlen(list[i]) == len && !memcmp(list[i], w, len))
                        return true;
        return false;
}

/* The GNU families' SPDX identifiers: FAMILY-N.N-only, -or-later (and the
 * deprecated FAMILY-N.N and FAMILY-N.N+, still on the list). */
static bool gnu_spdx(const char *w, size_t len) {
        static const char *const fam[] = {"GPL-", "LGPL-", "AGPL-", "GFDL-"};
        for (size_t i = 0; i < ELEMENTSOF(fam); i++) {
                size_t fl = strlen(fam[i]);
                if (len < fl + 3 || memcmp(w, fam[i], fl))
                        continue;
                const char *v = w + fl, *e = w + len;
                if (v[0] < '0' || v[0] > '9' || v[1] != '.' || v[2] < '0' || v[2] > '9')
                        continue;
                const char *rest = v + 3;
                size_t rl = (size_t)(e - rest);
                return rl == 0 || (rl == 1 && *rest == '+') || (rl == 5 && !memcmp(rest, "-only", 5)) ||
                       (rl == 9 && !memcmp(rest, "-or-later", 9));
        }
        return false;
}

/* Whether the LEN bytes at W are the word WORD, in any case. */
static bool is_word(const char *w, size_t len, const char *word) {
        return strlen(word) == len && !strncasecmp(w, word, len);
}

/* The SPDX identifier of the license named by LEN bytes at NAME (already
 * one, or a Fedora name mapped exactly) into BUF: true; false when none. */
static bool known_id(const char *name, size_t len, char *buf, size_t size) {
        for (size_t i = 0; i < ELEMENTSOF(fedora); i++)
                if (strlen(fedora[i].fedora) == len && !memcmp(fedora[i].fedora, name, len)) {
                        snprintf(buf, size, "%s", fedora[i].spdx);
                        return true;
                }
        if ((in_list(spdx_ids, ELEMENTSOF(spdx_ids), name, len) || gnu_spdx(name, len)) && len < size) {
                memcpy(buf, name, len);
                buf[len] = 0;
                return true;
        }
        return false;
}

/* One operand, LEN bytes at S (words, no operator, no parenthesis), as an
 * SPDX license or "LICENSE WITH EXCEPTION" to F: true when exact, false
 * when it became a LicenseRef-. */
static bool operand(FILE *f, const char *s, size_t len) {
        char id[PN_LICENSE_MAX / 4], exc[128];
        if (known_id(s, len, id, sizeof id)) {
                fputs(id, f);
                return true;
        }
        /* A LicenseRef- the packager wrote (Fedora's own
         * LicenseRef-Fedora-Public-Domain): kept, not exact. */
        if (len > 11 && !memcmp(s, "LicenseRef-", 11) && strspn(s, "LicenseRef-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.") >= len) {
                fprintf(f, "%.*s", (int)len, s);
                return false;
        }
        for (const char *w = s; w + 6 < s + len; w++)
                if (w > s && w[-1] == ' ' && is_word(w, 4, "with") && w[4] == ' ') {
                        size_t ll = (size_t)(w - 1 - s), el = len - (size_t)(w + 5 - s);
                        if (known_id(s, ll, id, sizeof id) && el < sizeof exc &&
                            in_list(spdx_exceptions, ELEMENTSOF(spdx_exceptions), w + 5, el)) {
                                fprintf(f, "%s WITH %.*s", id, (int)el, w + 5);
                                return true;
                        }
                        break;
                }
        if (pn_license_ref(s, len, id, sizeof id))
                fputs(id, f);
        else
                fputs("LicenseRef-unknown", f); /* over PN_LICENSE_MAX / 4: a LicenseRef- still */
        return false;
}

/* TAG as an expression to F: the operands between "and", "or" and
 * parentheses, each mapped; true when every one was exact.  *OK false
 * when the tag is not a well-formed expression. */
static bool expression(FILE *f, const char *tag, bool *ok) {
        const char *p = tag;
        bool exact = true, want_operand = true;
        int depth = 0;
        *ok = true;
        while (*p && *ok) {
                while (*p == ' ' || *p == '\t' || *p == ',')
                        p++;
                if (!*p)
                        break;
                if (*p == '(' || *p == ')') {
                        bool open = *p == '(';
                        if (open ? !want_operand : want_operand || depth == 0)
                                *ok = false;
                        depth += open ? 1 : -1;
                        fputc(*p++, f);
                        continue;
                }
                const char *w = p;
                while (*p && *p != ' ' && *p != '\t' && *p != '(' && *p != ')')
                        p++;
                size_t wl = (size_t)(p - w);
                if (is_word(w, wl, "and") || is_word(w, wl, "or")) {
                        if (want_operand)
                                *ok = false;
                        fprintf(f, " %s ", is_word(w, wl, "and") ? "AND" : "OR");
                        want_operand = true;
                        continue;
                }
                if (!want_operand) {
                        *ok = false;
                        break;
                }
                /* The operand runs to the next operator or parenthesis. */
                const char *e = p;
                for (;;) {
                        const char *q = e;
                        while (*q == ' ' || *q == '\t')
                                q++;
                        const char *qe = q;
                        while (*qe && *qe != ' ' && *qe != '\t' && *qe != '(' && *qe != ')')
                                qe++;
                        if (qe == q || is_word(q, (size_t)(qe - q), "and") || is_word(q, (size_t)(qe - q), "or"))
                                break;
                        e = qe;
                }
                exact &= operand(f, w, (size_t)(e - w));
                p = e;
                want_operand = false;
        }
        if (want_operand || depth != 0)
                *ok = false;
        return exact;
}

int pn_license_tag_spdx(const char *tag, char **ret) {
        size_t len = tag ? strlen(tag) : 0;
        if (len == 0)
                return -ENODATA;
        if (len > PN_LICENSE_MAX)
                return -E2BIG;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)tag[i] < 0x20 && tag[i] != '\t')
                        return -EBADMSG;
        char *out = NULL;
        size_t ol = 0;
        FILE *f = open_memstream(&out, &ol);
        if (!f)
                return -ENOMEM;
        bool ok, exact = expression(f, tag, &ok);
        if (fclose(f) != 0 || !out) {
                free(out);
                return -ENOMEM;
        }
        if (ok && ol > PN_LICENSE_MAX) {
                /* Names grow when mapped ("GPLv2+" is GPL-2.0-or-later):
                 * the expression is bounded as the tag is. */
                free(out);
                return -E2BIG;
        }
        if (!ok) {
                /* Not an expression at all: the whole tag is one name. */
                free(out);
                out = malloc(PN_LICENSE_MAX / 4);
                if (!out)
                        return -ENOMEM;
                if (!pn_license_ref(tag, len, out, PN_LICENSE_MAX / 4))
                        snprintf(out, PN_LICENSE_MAX / 4, "LicenseRef-unknown");
                exact = false;
        }
        *ret = out;
        return exact;
}
