/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's readers (lib/02-elf-kernel.c) and the version order of
 * package databases (lib/04-pkgdb-version.c).  With arguments
 * "vercmp TYPE A B ..." it prints, for each pair, -1, 0 or 1 on a line,
 * for tests/read/cmd-kernel.sh to hold against dpkg --compare-versions
 * and rpm's own rpm.vercmp().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-kernel.h"
#include "04-pkgdb-private.h"
#include "testlib.h"

static int sign(int x) {
        return x < 0 ? -1 : x > 0;
}

static void test_versions(void) {
        CHECK(pn_version_compare("deb", "6.1.10-1", "6.1.7-1") > 0);
        CHECK(pn_version_compare("deb", "1:1.0-1", "2.0-1") > 0);
        CHECK(pn_version_compare("deb", "1.0~rc1-1", "1.0-1") < 0);
        CHECK(pn_version_compare("deb", "1.0-1", "1.0-1") == 0);
        CHECK(pn_version_compare("deb", "1.0a", "1.0+") < 0);
        CHECK(pn_version_compare("rpm", "6.5.1-300.fc39", "6.10.2-100.fc39") < 0);
        CHECK(pn_version_compare("rpm", "1.0~rc1-1", "1.0-1") < 0);
        CHECK(pn_version_compare("rpm", "1.0^git1-1", "1.0-1") > 0);
        CHECK(pn_version_compare("rpm", "1.0a-1", "1.0-1") > 0);
        CHECK(pn_version_compare("rpm", "1.0.1-1", "1.0a-1") > 0);
}

/* A note stream: GNU build-id, a salt, a package note. */
static const uint8_t stream[] = {
        4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef,
        6, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 'L', 'i', 'n', 'u', 'x', 0, 0, 0, '6', '.', '1', 0,
        4, 0, 0, 0, 3, 0, 0, 0, 0x7e, 0x1a, 0xfe, 0xca, 'F', 'D', 'O', 0, '{', '}', 0, 0,
};

static void test_notes(void) {
        struct pn_knotes k;
        CHECK_INT(pn_knotes_parse(stream, sizeof stream, false, "t", &k), 0);
        CHECK_INT((int)k.build_id_len, 4);
        CHECK_INT((int)k.n_notes, 3);
        CHECK_STR(k.salt, "6.1");
        CHECK_STR(k.package, "{}");
        pn_knotes_done(&k);
        /* Every prefix: whole notes or a clear refusal, never a read past it. */
        for (size_t n = 0; n < sizeof stream; n++) {
                int r = pn_knotes_parse(stream, n, false, "t", &k);
                /* Note ends, and the last descriptor without its padding. */
                bool boundary = n == 0 || n == 20 || n == 43 || n == 44 || n == 63;
                if (r != (boundary ? 0 : -EBADMSG))
                        printf("# prefix %zu\n", n);
                CHECK_INT(r, boundary ? 0 : -EBADMSG);
                if (r == 0)
                        pn_knotes_done(&k);
        }
        /* Big-endian sizes read little-endian run past the end. */
        CHECK_INT(pn_knotes_parse(stream, sizeof stream, true, "t", &k), -EBADMSG);
}

int main(int argc, char **argv) {
        if (argc > 1) {
                if (argc < 5 || strcmp(argv[1], "vercmp") || (argc - 3) % 2) {
                        fprintf(stderr, "usage: %s vercmp TYPE A B [A B...]\n", argv[0]);
                        return 2;
                }
                for (int i = 3; i + 1 < argc; i += 2)
                        printf("%d\n", sign(pn_version_compare(argv[2], argv[i], argv[i + 1])));
                return 0;
        }
        RUN(test_versions);
        RUN(test_notes);
        return test_summary();
}
