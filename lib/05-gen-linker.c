/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Linkers: which one a build runs and whether it takes --package-metadata
 * (and decodes it), and the compiler-driver flags that pass the package
 * note to it, quoted for a shell or a make variable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "05-gen-emit.h"

static const char *const linker_names[] = {
        [PKGNOTE_LINKER_UNKNOWN] = "unknown",
        [PKGNOTE_LINKER_BFD] = "bfd",
        [PKGNOTE_LINKER_GOLD] = "gold",
        [PKGNOTE_LINKER_LLD] = "lld",
        [PKGNOTE_LINKER_MOLD] = "mold",
};

PKGNOTE_PUBLIC int pkgnote_linker_kind_from_name(const char *name) {
        if (!name)
                return PKGNOTE_LINKER_UNKNOWN;
        if (!strcmp(name, "ld") || !strcmp(name, "ld.bfd"))
                return PKGNOTE_LINKER_BFD;
        if (!strcmp(name, "ld.gold"))
                return PKGNOTE_LINKER_GOLD;
        if (!strcmp(name, "ld.lld"))
                return PKGNOTE_LINKER_LLD;
        for (int k = PKGNOTE_LINKER_BFD; k <= PKGNOTE_LINKER_MOLD; k++)
                if (!strcmp(name, linker_names[k]))
                        return k;
        return PKGNOTE_LINKER_UNKNOWN;
}

PKGNOTE_PUBLIC const char *pkgnote_linker_kind_name(int kind) {
        if (kind < 0 || kind > PKGNOTE_LINKER_MOLD)
                return NULL;
        return linker_names[kind];
}

/* Reads MAJOR.MINOR at P (which must start with a digit). */
static bool read_version(const char *p, const char *end, unsigned *major, unsigned *minor) {
        if (p >= end || *p < '0' || *p > '9')
                return false;
        unsigned long a = 0, b = 0;
        while (p < end && *p >= '0' && *p <= '9' && a < 100000)
                a = a * 10 + (unsigned long)(*p++ - '0');
        if (p < end && *p == '.')
                for (p++; p < end && *p >= '0' && *p <= '9' && b < 100000; p++)
                        b = b * 10 + (unsigned long)(*p - '0');
        *major = (unsigned)a;
        *minor = (unsigned)b;
        return true;
}

/* The last blank-separated word in [p, end) that starts with a digit. */
static const char *last_number(const char *p, const char *end) {
        const char *found = NULL;
        for (const char *q = p; q < end; q++)
                if (*q >= '0' && *q <= '9' && (q == p || *(q - 1) == ' ' || *(q - 1) == '('))
                        found = q;
        return found;
}

static const char *find_in(const char *s, const char *end, const char *word) {
        size_t n = strlen(word);
        for (const char *p = s; p + n <= end; p++)
                if (!memcmp(p, word, n))
                        return p;
        return NULL;
}

PKGNOTE_PUBLIC int pkgnote_linker_identify(const char *out, size_t len, pkgnote_linker *ret) {
        /* Only the first line matters; it names the linker and version:
         *   GNU ld (GNU Binutils for Debian) 2.40
         *   GNU ld version 2.41-37.fc40
         *   GNU gold (GNU Binutils for Debian 2.40) 1.16
         *   Debian LLD 16.0.6 (compatible with GNU linkers)
         *   mold 1.10.1 (compatible with GNU ld)  */
        const char *nl = memchr(out, '\n', len);
        const char *end = nl ? nl : out + len;
        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        const char *p, *v = NULL;
        /* mold and lld say "compatible with GNU ld(...)": test them first. */
        if (len >= 5 && !memcmp(out, "mold ", 5)) {
                l.kind = PKGNOTE_LINKER_MOLD;
                v = out + 5;
        } else if ((p = find_in(out, end, "LLD "))) {
                l.kind = PKGNOTE_LINKER_LLD;
                v = p + 4;
        } else if ((p = find_in(out, end, "GNU gold"))) {
                l.kind = PKGNOTE_LINKER_GOLD;
                /* gold's own number (1.16) says nothing; binutils' is in the
                 * parentheses. */
                const char *open = memchr(p, '(', (size_t)(end - p));
                const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
                if (open && close)
                        v = last_number(open, close);
        } else if ((p = find_in(out, end, "GNU ld"))) {
                l.kind = PKGNOTE_LINKER_BFD;
                const char *close = memchr(p, ')', (size_t)(end - p));
                v = last_number(close ? close : p, end);
        } else
                return pn_error(-EINVAL, "not the version of ld.bfd, gold, lld or mold: \"%.*s\"",
                                (int)(end - out > 80 ? 80 : end - out), out);
        if (v)
                read_version(v, end, &l.major, &l.minor);
        return pn_result_copy(ret, &l, sizeof l, PN_SIZE_1_0(pkgnote_linker), "pkgnote_linker");
}

/* The caller's linker L, read by the rule for structs that grow. */
static int linker_read(const pkgnote_linker *l, pkgnote_linker *ret) {
        if (!l)
                return pn_error(-EINVAL, "no linker given");
        return pn_struct_read(ret, sizeof *ret, l, PN_SIZE_1_0(pkgnote_linker), "pkgnote_linker");
}

static bool at_least(const pkgnote_linker *l, unsigned major, unsigned minor) {
        return l->major > major || (l->major == major && l->minor >= minor);
}

PKGNOTE_PUBLIC int pkgnote_linker_has_package_metadata(const pkgnote_linker *linker) {
        pkgnote_linker copy;
        int r = linker_read(linker, &copy);
        if (r < 0)
                return r;
        const pkgnote_linker *l = &copy;
        switch (l->kind) {
        case PKGNOTE_LINKER_BFD:
        case PKGNOTE_LINKER_GOLD:
                return at_least(l, 2, 39);
        case PKGNOTE_LINKER_LLD:
                return at_least(l, 15, 0);
        case PKGNOTE_LINKER_MOLD:
                return at_least(l, 1, 3);
        default:
                return 0;
        }
}

PKGNOTE_PUBLIC int pkgnote_linker_decodes_package_metadata(const pkgnote_linker *linker) {
        pkgnote_linker copy;
        int r = linker_read(linker, &copy);
        if (r < 0)
                return r;
        const pkgnote_linker *l = &copy;
        switch (l->kind) {
        case PKGNOTE_LINKER_BFD:
                return at_least(l, 2, 44); /* binutils commit b0cc81e8, PR ld/32003 */
        case PKGNOTE_LINKER_LLD:
                return at_least(l, 21, 0);
        case PKGNOTE_LINKER_MOLD:
                return at_least(l, 2, 36); /* mold 7ddc8f46: --encoded-package-metadata renamed */
        default:
                return 0; /* gold takes the argument as it is */
        }
}

/* Bytes that stay as they are: no decoder treats them specially, no
 * shell or make quotes them and -Wl, does not split at them. */
static bool percent_plain(unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("-._~:/@+=", c));
}

int pn_percent_encode(const char *s, char **ret) {
        size_t n = 0;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                n += percent_plain(*p) ? 1 : 3;
        char *out = malloc(n + 1), *o = out;
        if (!out)
                return pn_oom();
        static const char hex[] = "0123456789ABCDEF";
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (percent_plain(*p))
                        *o++ = (char)*p;
                else {
                        *o++ = '%';
                        *o++ = hex[*p >> 4];
                        *o++ = hex[*p & 15];
                }
        *o = 0;
        *ret = out;
        return 0;
}

static bool shell_safe(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("+,-./:=@_%^", c);
}

PKGNOTE_PUBLIC int pkgnote_ldflags_quote(const char *arg, int style, char **ret) {
        if (style != PKGNOTE_LDFLAGS_SHELL && style != PKGNOTE_LDFLAGS_MAKE)
                return pn_error(-EINVAL, "unknown quoting style %d", style);
        int r = pn_check_string(arg, "argument");
        if (r < 0)
                return r;
        bool plain = *arg != 0;
        for (const char *p = arg; *p && plain; p++)
                plain = shell_safe(*p);
        struct pn_text t = {0};
        if (!plain)
                pn_text_add(&t, "'");
        for (const char *p = arg; *p; p++) {
                if (*p == '\'')
                        pn_text_add(&t, "'\\''");
                else if (style == PKGNOTE_LDFLAGS_MAKE && *p == '$')
                        pn_text_add(&t, "$$");
                else if (style == PKGNOTE_LDFLAGS_MAKE && *p == '#')
                        pn_text_add(&t, "\\#");
                else
                        pn_text_add(&t, "%c", *p);
        }
        if (!plain)
                pn_text_add(&t, "'");
        if (!t.s)
                pn_text_add(&t, "%s", "");
        return pn_text_finish(&t, ret);
}

/* Refuses what no note may hold, as every other generator does. */
static int check_json(const char *json) {
        uint8_t *note;
        size_t note_len;
        int r = pn_package_note_checked(json, 0, &note, &note_len);
        if (r >= 0)
                free(note);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata(const char *json, int style, char **ret) {
        int r = check_json(json);
        if (r < 0)
                return r;
        size_t n = strlen(json);
        char *arg = malloc(sizeof "--package-metadata=" + n);
        if (!arg)
                return pn_oom();
        memcpy(arg, "--package-metadata=", sizeof "--package-metadata=" - 1);
        memcpy(arg + sizeof "--package-metadata=" - 1, json, n + 1);
        char *q;
        r = pkgnote_ldflags_quote(arg, style, &q);
        free(arg);
        if (r < 0)
                return r;
        struct pn_text t = {0};
        pn_text_add(&t, "-Xlinker %s", q);
        free(q);
        return pn_text_finish(&t, ret);
}

PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata_for(const char *json, const pkgnote_linker *l, int style,
                                                        char **ret) {
        int d = l ? pkgnote_linker_decodes_package_metadata(l) : 0;
        if (d < 0)
                return d;
        if (!d)
                return pkgnote_ldflags_package_metadata(json, style, ret);
        char *enc;
        int r = check_json(json);
        if (r < 0 || (r = pn_percent_encode(json, &enc)) < 0)
                return r;
        struct pn_text t = {0};
        pn_text_add(&t, "-Wl,--package-metadata=%s", enc);
        free(enc);
        return pn_text_finish(&t, ret);
}
