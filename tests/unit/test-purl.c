/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lib/03-model-purl.c: package URLs (purl-spec) and CPE names at their edges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"
#include "03-model-purl.h"
#include "testlib.h"

static void check_purl(const char *json, const char *want) {
        pkgnote_metadata *m;
        char *p = NULL;
        CHECK_INT(pkgnote_metadata_parse(json, strlen(json), &m), 0);
        int r = pkgnote_purl(m, &p);
        if (want) {
                CHECK_INT(r, 0);
                CHECK_STR(p, want);
        } else
                CHECK_INT(r, -ENODATA);
        free(p);
        pkgnote_metadata_free(m);
}

static void check_root_purl(const char *json, const char *os, const char *version, const char *want) {
        pkgnote_metadata *m;
        char *p = NULL;
        CHECK_INT(pkgnote_metadata_parse(json, strlen(json), &m), 0);
        CHECK_INT(pn_purl_in_root(m, os, version, &p), 0);
        CHECK_STR(p, want);
        free(p);
        pkgnote_metadata_free(m);
}

/* A note of the root's OS without osVersion takes the root's version; one
 * that names a version, or another OS, keeps its own. */
static void test_purl_root_distro(void) {
        check_root_purl("{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"x\",\"version\":\"1\"}", "debian", "12",
                        "pkg:deb/debian/x@1?distro=debian-12");
        check_root_purl("{\"type\":\"deb\",\"os\":\"debian\",\"osVersion\":\"13\",\"name\":\"x\",\"version\":\"1\"}",
                        "debian", "12", "pkg:deb/debian/x@1?distro=debian-13");
        check_root_purl("{\"type\":\"deb\",\"os\":\"ubuntu\",\"name\":\"x\",\"version\":\"1\"}", "debian", "12",
                        "pkg:deb/ubuntu/x@1?distro=ubuntu");
        check_root_purl("{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"x\",\"version\":\"1\"}", NULL, NULL,
                        "pkg:deb/debian/x@1?distro=debian");
        check_root_purl("{\"type\":\"rpm\",\"osCpe\":\"cpe:/o:fedoraproject:fedora\",\"name\":\"x\",\"version\":\"1-1\"}",
                        "fedora", "40", "pkg:rpm/fedora/x@1-1?distro=fedora-40");
}

/* purl-spec "Character encoding": only ALPHA, DIGIT, "-._~" and ":" stay;
 * every other byte, UTF-8 ones included, is %XX in upper-case hex. */
static void test_purl_escaping(void) {
        check_purl("{\"type\":\"generic\",\"name\":\"100%+x\",\"version\":\"1.0~rc1:a\"}",
                   "pkg:generic/100%25%2Bx@1.0~rc1:a");
        check_purl("{\"type\":\"generic\",\"name\":\"caf\xc3\xa9\",\"version\":\"1\"}", "pkg:generic/caf%C3%A9@1");
        check_purl("{\"type\":\"generic\",\"name\":\"a&b=c\",\"architecture\":\"x 86\"}", "pkg:generic/a%26b%3Dc?arch=x%2086");
        /* The generic type keeps the name's case; deb lowercases it. */
        check_purl("{\"type\":\"generic\",\"name\":\"MiXed\"}", "pkg:generic/MiXed");
        check_purl("{\"type\":\"DEB\",\"os\":\"Debian\",\"name\":\"MiXed\"}", "pkg:deb/debian/mixed?distro=debian");
        /* The distro qualifier: namespace lowercased, version escaped. */
        check_purl("{\"type\":\"rpm\",\"os\":\"Fedora\",\"osVersion\":\"41 beta\",\"name\":\"x\"}",
                   "pkg:rpm/fedora/x?distro=fedora-41%20beta");
        /* No name: no purl. */
        check_purl("{\"type\":\"rpm\",\"os\":\"fedora\",\"version\":\"1\"}", NULL);
        check_purl("{\"type\":\"rpm\",\"name\":\"\"}", NULL);
}

/* rpm moves an epoch to the epoch qualifier (sorted last of the three);
 * only digits then ':' then a version are an epoch.  deb keeps it in the
 * version, where ':' needs no escaping. */
static void test_purl_epochs(void) {
        check_purl("{\"type\":\"rpm\",\"os\":\"fedora\",\"name\":\"x\",\"version\":\"0:1.0-1\",\"architecture\":\"noarch\"}",
                   "pkg:rpm/fedora/x@1.0-1?arch=noarch&distro=fedora&epoch=0");
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\"12:2-3\"}", "pkg:rpm/x@2-3?epoch=12");
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\"a1:2-3\"}", "pkg:rpm/x@a1:2-3");
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\"1:\"}", "pkg:rpm/x@1:");
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\":1\"}", "pkg:rpm/x@:1");
        check_purl("{\"type\":\"deb\",\"name\":\"x\",\"version\":\"2:1.0-1\"}", "pkg:deb/x@2:1.0-1");
        check_purl("{\"type\":\"apk\",\"name\":\"x\",\"version\":\"1:2\"}", "pkg:apk/x@1:2");
}

static void check_component(const char *cpe, size_t i, const char *want) {
        char buf[24];
        bool got = pn_cpe_component(cpe, i, buf, sizeof buf);
        if (got != (want != NULL))
                fprintf(stderr, "pn_cpe_component(\"%s\", %zu)\n", cpe, i);
        CHECK_INT(got, want != NULL);
        if (want && got)
                CHECK_STR(buf, want);
}

/* CPE 2.3 quoting ('\' before punctuation, NISTIR 7695 6.2.2) and CPE
 * 2.2 %-encoding, undone per component; ANY and NA are no value. */
static void test_cpe_components(void) {
        check_component("cpe:2.3:o:red\\:hat:enterprise_linux:9", 1, "red:hat");
        check_component("cpe:2.3:o:red\\:hat:enterprise_linux:9", 2, "enterprise_linux");
        check_component("cpe:2.3:o:red\\:hat:enterprise_linux:9", 3, "9");
        check_component("cpe:2.3:o:red\\:hat:enterprise_linux:9", 4, NULL);
        check_component("cpe:2.3:a:vendor:*:1", 2, NULL);
        check_component("cpe:2.3:a:vendor:-:1", 2, NULL);
        check_component("cpe:/o:Fedora%2Dproject:fedora:41", 1, "fedora-project");
        check_component("cpe:/o:a\\:b", 1, "a\\");                   /* no '\' quoting in a URI */
        check_component("cpe:2.3:a:v:p%2D", 2, "p%2d");              /* nor %-encoding in 2.3 */
        check_component("cpe:2.3:a:v:abcdefghijklmnopqrstuvwx", 2, NULL); /* longer than the buffer */
        check_component("cpe:2.3:a:v:abcdefghijklmnopqrstuvw", 2, "abcdefghijklmnopqrstuvw");
        check_component("cpe:2.2:a:v:p", 1, NULL);
}

static void check_full(const char *cpe, const char *want, bool want23) {
        bool is23 = !want23;
        char *got = pn_cpe_full(cpe, &is23);
        if (!want) {
                CHECK(got == NULL);
        } else {
                CHECK_STR(got, want);
                CHECK_INT(is23, want23);
        }
        free(got);
}

/* SBOMs get CPE 2.3 names completed to 11 components; a quoted ':' is
 * part of a value, not a separator. */
static void test_cpe_full(void) {
        check_full("cpe:2.3:a:vendor:prod\\:uct", "cpe:2.3:a:vendor:prod\\:uct:*:*:*:*:*:*:*:*", true);
        check_full("cpe:2.3:a:v:p:1.0\\:2", "cpe:2.3:a:v:p:1.0\\:2:*:*:*:*:*:*:*", true);
        check_full("cpe:2.3:o:v:p:1:*:*:*:*:*:*:*", "cpe:2.3:o:v:p:1:*:*:*:*:*:*:*", true);
        check_full("cpe:/o:fedoraproject:fedora:41", "cpe:/o:fedoraproject:fedora:41", false);
        check_full("cpe:2.3:a:v:p:1:*:*:*:*:*:*:*:extra", NULL, false);
        check_full("cpe:2.3:a:v:p:a b", NULL, false);
        check_full("cpe:2.3:a:v:p:\\a", NULL, false); /* '\' quotes punctuation only */
        check_full("cpe:2.3:a:v:p:a\\", NULL, false);  /* '\' quotes nothing */
        check_full("cpe:2.3:a:v:p:a\\!b", "cpe:2.3:a:v:p:a\\!b:*:*:*:*:*:*:*", true);
        check_full("cpe:2.3:a:v:p:a!b", NULL, false);
        check_full(NULL, NULL, false);
}

int main(void) {
        RUN(test_purl_escaping);
        RUN(test_purl_epochs);
        RUN(test_purl_root_distro);
        RUN(test_cpe_components);
        RUN(test_cpe_full);
        return test_summary();
}
