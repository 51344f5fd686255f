/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names of a package for other tools: CPE names (NISTIR 7695 formatted
 * strings, CPE 2.2 URIs), checked for lint and completed for SBOMs, and
 * the package URL (purl-spec) of a note, which the SBOMs write.  One
 * file, so that what lint accepts is what the SBOM writes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "01-base.h"
#include "03-model-purl.h"

/* ------------------------------------------------------------------ */
/* CPE names                                                           */

/* NISTIR 7695 6.2.2: the attributes of a formatted string, in order. */
static const char *const fs_attrs[] = {
        "part",     "vendor", "product",    "version",   "update",    "edition",
        "language", "sw_edition", "target_sw", "target_hw", "other",
};


/* NISTIR 7695 6.2.2 "avstring": unquoted alphanumerics, '-', '.', '_';
 * other printable ASCII quoted with '\'; one '*' or any number of '?'
 * only at either end; at least one character between them.  "*" (ANY)
 * and "-" (NA) alone are the logical values. */
static int check_fs_value(const char *s, size_t len, const char *attr) {
        if (len == 0)
                return pn_error(-EINVAL, "%s is empty (use '*' for any value)", attr);
        if (len == 1 && (s[0] == '*' || s[0] == '-'))
                return 0;
        size_t i = 0, body = 0;
        if (s[0] == '*')
                i = 1;
        else
                while (i < len && s[i] == '?')
                        i++;
        while (i < len) {
                char c = s[i];
                if (c == '\\') {
                        char q = i + 1 < len ? s[i + 1] : 0;
                        if (q < 0x21 || q > 0x7e || pn_ascii_alnum(q))
                                return pn_error(-EINVAL, "%s has a '\\' that quotes no punctuation character", attr);
                        i += 2;
                } else if (pn_ascii_alnum(c) || c == '-' || c == '.' || c == '_')
                        i++;
                else if (c == '*' || c == '?')
                        break;
                else if (c > 0x20 && c < 0x7f)
                        return pn_error(-EINVAL, "%s has '%c', which a formatted string must quote as '\\%c'", attr, c, c);
                else
                        return pn_error(-EINVAL, "%s has a space, control or non-ASCII character", attr);
                body++;
        }
        if (body == 0)
                return pn_error(-EINVAL, "%s has only wildcards", attr);
        if (i < len && s[i] == '*')
                i++;
        else
                while (i < len && s[i] == '?')
                        i++;
        if (i < len)
                return pn_error(-EINVAL, "%s has '*' or '?' inside it; unquoted wildcards may only begin or end a value", attr);
        return 0;
}

/* RFC 5646 language tag as CPE 2.3 restricts it: 2-3 letters, then an
 * optional region of 2 letters or 3 digits. */
static int check_fs_language(const char *s, size_t len) {
        if (len == 1 && (s[0] == '*' || s[0] == '-'))
                return 0;
        size_t i = 0;
        while (i < len && pn_ascii_alpha(s[i]))
                i++;
        if (i < 2 || i > 3)
                return pn_error(-EINVAL, "language is not a language tag (2 or 3 letters, e.g. \"en\" or \"en-us\")");
        if (i == len)
                return 0;
        const char *r = s + i + 1;
        size_t rl = len - i - 1;
        if (s[i] == '-' && ((rl == 2 && pn_ascii_alpha(r[0]) && pn_ascii_alpha(r[1])) ||
                            (rl == 3 && pn_ascii_digit(r[0]) && pn_ascii_digit(r[1]) && pn_ascii_digit(r[2]))))
                return 0;
        return pn_error(-EINVAL, "language has a bad region (2 letters or 3 digits after '-')");
}

static int check_fs(const char *s) {
        size_t n = 0;
        const char *p = s;
        for (;;) {
                /* Split at the next unquoted ':'. */
                const char *q = p;
                while (*q && *q != ':') {
                        if (*q == '\\' && q[1])
                                q++;
                        q++;
                }
                size_t len = (size_t)(q - p);
                if (n >= ELEMENTSOF(fs_attrs))
                        return pn_error(-EINVAL, "more than the 11 components of a CPE 2.3 formatted string");
                int r;
                if (n == 0) {
                        if (len != 1 || !strchr("aoh*-", p[0]))
                                return pn_error(-EINVAL, "part is not 'a', 'o', 'h', '*' or '-'");
                } else if (n == 6) {
                        if ((r = check_fs_language(p, len)) < 0)
                                return r;
                } else if ((r = check_fs_value(p, len, fs_attrs[n])) < 0)
                        return r;
                n++;
                if (!*q)
                        break;
                p = q + 1;
        }
        if (n < 3)
                return pn_error(-EINVAL, "names no product: part, vendor and product are needed");
        return n == ELEMENTSOF(fs_attrs) ? PKGNOTE_CPE_FS : PKGNOTE_CPE_FS_SHORT;
}

/* CPE 2.2 (5.3) URI: "cpe:/" part [":" vendor [":" product ... [":"
 * language]]] with part "a", "o", "h" or empty and components of
 * unreserved characters and %-encoding; empty components mean ANY. */
static int check_uri(const char *s) {
        static const char *const attrs[] = {"part", "vendor", "product", "version", "update", "edition", "language"};
        if (!*s)
                return pn_error(-EINVAL, "names nothing after \"cpe:/\"");
        size_t n = 0;
        for (const char *p = s;; n++) {
                size_t len = strcspn(p, ":");
                if (n >= ELEMENTSOF(attrs))
                        return pn_error(-EINVAL, "more than the 7 components of a CPE URI");
                if (n == 0) {
                        if (len > 1 || (len == 1 && !strchr("aohAOH", p[0])))
                                return pn_error(-EINVAL, "part is not 'a', 'o' or 'h'");
                } else
                        for (size_t i = 0; i < len; i++) {
                                char c = p[i];
                                if (c == '%') {
                                        if (i + 2 >= len || !pn_ascii_xdigit(p[i + 1]) || !pn_ascii_xdigit(p[i + 2]))
                                                return pn_error(-EINVAL, "%s has a '%%' not followed by two hex digits", attrs[n]);
                                        i += 2;
                                } else if (!pn_ascii_alnum(c) && !strchr("-._~", c))
                                        return pn_error(-EINVAL, c > 0x20 && c < 0x7f
                                                        ? "%s has a character a CPE URI must %%-encode"
                                                        : "%s has a space, control or non-ASCII character", attrs[n]);
                        }
                if (!p[len])
                        break;
                p += len + 1;
        }
        return PKGNOTE_CPE_URI;
}

PKGNOTE_PUBLIC int pkgnote_cpe_check(const char *cpe) {
        if (!cpe)
                return pn_error(-EINVAL, "no CPE name");
        if (!strncmp(cpe, "cpe:2.3:", 8))
                return check_fs(cpe + 8);
        if (!strncmp(cpe, "cpe:/", 5))
                return check_uri(cpe + 5);
        return pn_error(-EINVAL, "does not start with \"cpe:2.3:\" (CPE 2.3) or \"cpe:/\" (CPE 2.2)");
}

/* A CPE as SBOM consumers expect it: CPE 2.3 formatted strings completed
 * to 11 components; anything pkgnote_cpe_check() refuses is left out. */
char *pn_cpe_full(const char *cpe, bool *is23) {
        int k = cpe ? pkgnote_cpe_check(cpe) : -EINVAL;
        if (k < 0)
                return NULL;
        *is23 = k != PKGNOTE_CPE_URI;
        if (k != PKGNOTE_CPE_FS_SHORT)
                return strdup(cpe);
        /* Count unescaped colons: "cpe:2.3:" plus 11 components has 12. */
        size_t colons = 0;
        for (const char *p = cpe; *p; p++) {
                if (*p == '\\' && p[1])
                        p++;
                else if (*p == ':')
                        colons++;
        }
        size_t len = strlen(cpe);
        size_t add = colons < 12 ? 12 - colons : 0;
        char *r = malloc(len + 2 * add + 1);
        if (!r)
                return NULL;
        memcpy(r, cpe, len);
        for (size_t i = 0; i < add; i++)
                memcpy(r + len + 2 * i, ":*", 2);
        r[len + 2 * add] = 0;
        return r;
}

/* ------------------------------------------------------------------ */
/* purl                                                                */

/* purl-spec "Character encoding": everything but ALPHA, DIGIT, "-._~"
 * and ":" is percent-encoded (UTF-8 bytes, uppercase hex). */
void pn_purl_pct(FILE *f, const char *s, bool lower) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                unsigned char c = *p;
                if (lower && c >= 'A' && c <= 'Z')
                        c = (unsigned char)(c - 'A' + 'a');
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~:", c))
                        fputc(c, f);
                else
                        fprintf(f, "%%%02X", c);
        }
}

static bool nonempty(const char *s) {
        return s && *s;
}

/* Component I (from 0: part, vendor, product, version) of a CPE name,
 * decoded and lowercased into BUF; false when it has none or it is ANY
 * or NA. */
bool pn_cpe_component(const char *cpe, size_t i, char *buf, size_t size) {
        bool fs = !strncmp(cpe, "cpe:2.3:", 8);
        const char *p = fs ? cpe + 8 : !strncmp(cpe, "cpe:/", 5) ? cpe + 5 : NULL;
        if (!p)
                return false;
        for (size_t k = 0; k < i; k++) {
                while (*p && *p != ':')
                        p += fs && *p == '\\' && p[1] ? 2 : 1;
                if (!*p)
                        return false;
                p++;
        }
        size_t n = 0;
        while (*p && *p != ':' && n + 1 < size) {
                char c = *p++;
                if (fs && c == '\\' && *p)
                        c = *p++;
                else if (!fs && c == '%' && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
                        char hex[3] = {p[0], p[1], 0};
                        c = (char)strtol(hex, NULL, 16);
                        p += 2;
                }
                buf[n++] = (char)tolower((unsigned char)c);
        }
        buf[n] = 0;
        if (*p && *p != ':')
                return false; /* too long for BUF */
        return n > 0 && strcmp(buf, "*") && strcmp(buf, "-");
}

/* The purl namespace and distro name of the operating system CPE names
 * (as SBOM tools name the distributions), and its version: false when
 * CPE names no operating system. */
static bool cpe_distro(const char *cpe, char ns[64], char distro[64], char version[64]) {
        static const struct {
                const char *vendor, *product, *ns, *distro;
        } known[] = {
                {"fedoraproject", "fedora", "fedora", "fedora"},
                {"redhat", "enterprise_linux", "redhat", "rhel"},
                {"centos", "centos", "centos", "centos"},
                {"debian", "debian_linux", "debian", "debian"},
                {"canonical", "ubuntu_linux", "ubuntu", "ubuntu"},
                {"alpinelinux", "alpine_linux", "alpine", "alpine"},
                {"microsoft", "cbl-mariner", "mariner", "mariner"},
                {"microsoft", "azure_linux", "azurelinux", "azurelinux"},
                {"microsoft", "azurelinux", "azurelinux", "azurelinux"},
                {"amazon", "amazon_linux", "amazon", "amzn"},
                {"opensuse", "leap", "opensuse", "opensuse-leap"},
                {"opensuse", "tumbleweed", "opensuse", "opensuse-tumbleweed"},
                {"suse", "linux_enterprise_server", "suse", "sles"},
                {"rocky", "rocky", "rocky", "rocky"},
                {"almalinux", "almalinux", "almalinux", "almalinux"},
                {"oracle", "linux", "oracle", "ol"},
        };
        char part[8], vendor[64], product[64];
        if (!cpe || !pn_cpe_component(cpe, 0, part, sizeof part) || strcmp(part, "o") ||
            !pn_cpe_component(cpe, 1, vendor, sizeof vendor) || !pn_cpe_component(cpe, 2, product, sizeof product))
                return false;
        if (!pn_cpe_component(cpe, 3, version, 64))
                version[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (!strcmp(vendor, known[i].vendor) && !strcmp(product, known[i].product)) {
                        snprintf(ns, 64, "%s", known[i].ns);
                        snprintf(distro, 64, "%s", known[i].distro);
                        return true;
                }
        /* Otherwise the product, without a "_linux" ending. */
        size_t n = strlen(product);
        if (n > 6 && !strcmp(product + n - 6, "_linux"))
                product[n - 6] = 0;
        snprintf(ns, 64, "%s", product);
        snprintf(distro, 64, "%s", product);
        return true;
}

int pn_purl_in_root(const pkgnote_metadata *m, const char *root_os, const char *root_version, char **ret) {
        const char *type = pkgnote_metadata_type(m), *os = pkgnote_metadata_os(m);
        const char *osv = pkgnote_metadata_os_version(m), *name = pkgnote_metadata_name(m);
        /* Notes that give the OS only as a CPE (Fedora's give osCpe alone):
         * the namespace and distro from it, as other SBOM tools do. */
        char cns[64], cdistro[64], cver[64];
        const char *distro = os;
        if (cpe_distro(pkgnote_metadata_os_cpe(m), cns, cdistro, cver)) {
                if (!nonempty(os))
                        os = cns, distro = cdistro;
                if (!nonempty(osv) && cver[0])
                        osv = cver;
        }
        /* A note of the root's own OS without its version (Debian's give
         * none): the root's, so that a matcher sees one distribution. */
        if (!nonempty(osv) && nonempty(root_version) && nonempty(distro) && nonempty(root_os) &&
            !strcasecmp(distro, root_os))
                osv = root_version;
        const char *version = pkgnote_metadata_version(m), *arch = pkgnote_metadata_architecture(m);
        if (!nonempty(name))
                return pn_error(-ENODATA, "the note has no name");
        /* The purl types whose namespace is the distribution; their rules
         * (purl-spec PURL-TYPES): rpm keeps the name's case, deb and apk
         * lowercase it; all three lowercase the namespace. */
        const char *ptype = "generic";
        if (type && (!strcasecmp(type, "rpm") || !strcasecmp(type, "deb") || !strcasecmp(type, "apk")))
                ptype = !strcasecmp(type, "rpm") ? "rpm" : !strcasecmp(type, "deb") ? "deb" : "apk";
        bool distro_type = strcmp(ptype, "generic") != 0;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return pn_oom();
        fprintf(f, "pkg:%s/", ptype);
        if (distro_type && nonempty(os)) {
                pn_purl_pct(f, os, true);
                fputc('/', f);
        }
        pn_purl_pct(f, name, distro_type && strcmp(ptype, "rpm") != 0);
        /* rpm carries the epoch as a qualifier (E:V-R -> V-R, epoch=E);
         * deb keeps it in the version, as dpkg writes it. */
        const char *ver = version, *epoch = NULL;
        size_t elen = 0;
        if (!strcmp(ptype, "rpm") && nonempty(version)) {
                elen = strspn(version, "0123456789");
                if (elen > 0 && version[elen] == ':' && version[elen + 1]) {
                        epoch = version;
                        ver = version + elen + 1;
                }
        }
        if (nonempty(ver)) {
                fputc('@', f);
                pn_purl_pct(f, ver, false);
        }
        /* Qualifiers, sorted by key. */
        char sep = '?';
        if (nonempty(arch)) {
                fprintf(f, "%carch=", sep);
                pn_purl_pct(f, arch, false);
                sep = '&';
        }
        if (nonempty(distro)) {
                fprintf(f, "%cdistro=", sep);
                pn_purl_pct(f, distro, true);
                if (nonempty(osv)) {
                        fputc('-', f);
                        pn_purl_pct(f, osv, false);
                }
                sep = '&';
        }
        if (epoch)
                fprintf(f, "%cepoch=%.*s", sep, (int)elen, epoch);
        if (fclose(f) != 0 || !buf) {
                free(buf);
                return pn_oom();
        }
        *ret = buf;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_purl(const pkgnote_metadata *m, char **ret) {
        return pn_purl_in_root(m, NULL, NULL, ret);
}
