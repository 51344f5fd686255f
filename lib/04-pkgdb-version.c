/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which of two package versions is newer, as the package manager decides:
 * dpkg's order (deb-version(7): epoch, then upstream version and revision,
 * each compared in runs of non-digits, where '~' sorts before everything
 * and letters before other characters, and runs of digits by value) and
 * rpm's (rpmvercmp: epoch, then version and release, each split into runs
 * of letters or digits, separators ignored, '~' before and '^' after
 * everything, digit runs newer than letter runs).
 */
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "04-pkgdb-private.h"

static int dpkg_order(char c) {
        if (pn_ascii_digit(c))
                return 0;
        if (pn_ascii_alpha(c))
                return (unsigned char)c;
        if (c == '~')
                return -1;
        if (c)
                return (unsigned char)c + 256;
        return 0;
}

/* dpkg's verrevcmp() over [A, A_END) and [B, B_END). */
static int dpkg_part(const char *a, const char *ae, const char *b, const char *be) {
        while (a < ae || b < be) {
                int first_diff = 0;
                while ((a < ae && !pn_ascii_digit(*a)) || (b < be && !pn_ascii_digit(*b))) {
                        int ac = a < ae ? dpkg_order(*a) : 0, bc = b < be ? dpkg_order(*b) : 0;
                        if (ac != bc)
                                return ac < bc ? -1 : 1;
                        a++, b++;
                }
                while (a < ae && *a == '0')
                        a++;
                while (b < be && *b == '0')
                        b++;
                while (a < ae && pn_ascii_digit(*a) && b < be && pn_ascii_digit(*b)) {
                        if (!first_diff)
                                first_diff = *a - *b;
                        a++, b++;
                }
                if (a < ae && pn_ascii_digit(*a))
                        return 1;
                if (b < be && pn_ascii_digit(*b))
                        return -1;
                if (first_diff)
                        return first_diff < 0 ? -1 : 1;
        }
        return 0;
}

/* Splits [EPOCH:]UPSTREAM[-REVISION]: the epoch's value (0 when none or
 * unreadable), the upstream part and the revision (empty when none). */
static void split(const char *v, unsigned long *epoch, const char **up, const char **up_end, const char **rev,
                  const char **rev_end) {
        const char *colon = strchr(v, ':'), *end = v + strlen(v);
        *epoch = 0;
        if (colon) {
                char *e;
                *epoch = strtoul(v, &e, 10);
                if (e != colon)
                        *epoch = 0;
                v = colon + 1;
        }
        const char *dash = strrchr(v, '-');
        *up = v;
        *up_end = dash ? dash : end;
        *rev = dash ? dash + 1 : end;
        *rev_end = end;
}

static int rpm_part(const char *a, const char *ae, const char *b, const char *be) {
        for (;;) {
                while (a < ae && !pn_ascii_alnum(*a) && *a != '~' && *a != '^')
                        a++;
                while (b < be && !pn_ascii_alnum(*b) && *b != '~' && *b != '^')
                        b++;
                if ((a < ae && *a == '~') || (b < be && *b == '~')) {
                        if (!(a < ae && *a == '~'))
                                return 1;
                        if (!(b < be && *b == '~'))
                                return -1;
                        a++, b++;
                        continue;
                }
                if ((a < ae && *a == '^') || (b < be && *b == '^')) {
                        if (a >= ae)
                                return -1;
                        if (b >= be)
                                return 1;
                        if (*a != '^')
                                return 1;
                        if (*b != '^')
                                return -1;
                        a++, b++;
                        continue;
                }
                if (a >= ae || b >= be)
                        break;
                const char *sa = a, *sb = b;
                bool num = pn_ascii_digit(*a);
                while (a < ae && (num ? pn_ascii_digit(*a) : pn_ascii_alpha(*a)))
                        a++;
                while (b < be && (num ? pn_ascii_digit(*b) : pn_ascii_alpha(*b)))
                        b++;
                if (sb == b)
                        return num ? 1 : -1;
                if (num) {
                        while (sa < a && *sa == '0')
                                sa++;
                        while (sb < b && *sb == '0')
                                sb++;
                        if (a - sa != b - sb)
                                return a - sa > b - sb ? 1 : -1;
                }
                size_t la = (size_t)(a - sa), lb = (size_t)(b - sb);
                int c = memcmp(sa, sb, la < lb ? la : lb);
                if (c)
                        return c < 0 ? -1 : 1;
                if (la != lb)
                        return la < lb ? -1 : 1;
        }
        if (a >= ae && b >= be)
                return 0;
        return a < ae ? 1 : -1;
}

int pn_version_compare(const char *type, const char *a, const char *b) {
        unsigned long ea, eb;
        const char *ua, *uae, *ra, *rae, *ub, *ube, *rb, *rbe;
        split(a, &ea, &ua, &uae, &ra, &rae);
        split(b, &eb, &ub, &ube, &rb, &rbe);
        if (ea != eb)
                return ea < eb ? -1 : 1;
        bool rpm = type && !strcmp(type, "rpm");
        int (*part)(const char *, const char *, const char *, const char *) = rpm ? rpm_part : dpkg_part;
        int c = part(ua, uae, ub, ube);
        return c ? c : part(ra, rae, rb, rbe);
}
