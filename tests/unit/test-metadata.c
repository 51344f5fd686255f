/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The metadata object: parsing rules, accessors, building, serialization. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkgnote.h"
#include "testlib.h"

static const char *debian =
        "{\"type\":\"deb\",\"os\":\"Debian\",\"name\":\"systemd\",\"version\":\"252.38-1~deb12u1\","
        "\"architecture\":\"amd64\",\"debugInfoUrl\":\"https://debuginfod.debian.net\"}";

static int parse(const char *s, pkgnote_metadata **m) {
        return pkgnote_metadata_parse(s, strlen(s), m);
}

static void test_accessors(void) {
        pkgnote_metadata *m;
        CHECK_INT(parse(debian, &m), 0);
        CHECK_STR(pkgnote_metadata_type(m), "deb");
        CHECK_STR(pkgnote_metadata_os(m), "Debian");
        CHECK_STR(pkgnote_metadata_name(m), "systemd");
        CHECK_STR(pkgnote_metadata_version(m), "252.38-1~deb12u1");
        CHECK_STR(pkgnote_metadata_architecture(m), "amd64");
        CHECK_STR(pkgnote_metadata_debug_info_url(m), "https://debuginfod.debian.net");
        CHECK(pkgnote_metadata_os_version(m) == NULL);
        CHECK(pkgnote_metadata_os_cpe(m) == NULL);
        CHECK(pkgnote_metadata_app_cpe(m) == NULL);
        CHECK_INT(pkgnote_metadata_count(m), 6);
        CHECK_STR(pkgnote_metadata_key(m, 0), "type");
        CHECK_STR(pkgnote_metadata_key(m, 5), "debugInfoUrl");
        CHECK(pkgnote_metadata_key(m, 6) == NULL);
        /* Serialization keeps the stored order and compact form. */
        char *s;
        CHECK_INT(pkgnote_metadata_to_json(m, &s), 0);
        CHECK_STR(s, debian);
        free(s);
        CHECK_INT(pkgnote_metadata_check(m, debian, strlen(debian), NULL, NULL), 0);
        pkgnote_metadata_free(m);
        const char *const *k = pkgnote_metadata_known_keys();
        CHECK_STR(k[0], "type");
        CHECK_STR(k[8], "debugInfoUrl");
        CHECK(k[9] == NULL);
}

static void test_unknown_keys_kept(void) {
        const char *j = "{\"name\":\"x\",\"extra\":{\"n\":[1,true,null]},\"count\":3}";
        pkgnote_metadata *m;
        CHECK_INT(parse(j, &m), 0);
        CHECK_INT(pkgnote_metadata_count(m), 3);
        CHECK(pkgnote_metadata_get(m, "extra") == NULL); /* not a string */
        char *v;
        CHECK_INT(pkgnote_metadata_value_json(m, 1, &v), 0);
        CHECK_STR(v, "{\"n\":[1,true,null]}");
        free(v);
        CHECK_INT(pkgnote_metadata_to_json(m, &v), 0);
        CHECK_STR(v, j);
        free(v);
        pkgnote_metadata_free(m);
}

static void test_build(void) {
        pkgnote_metadata *m;
        CHECK_INT(pkgnote_metadata_new(&m), 0);
        CHECK_INT(pkgnote_metadata_set(m, "type", "rpm"), 0);
        CHECK_INT(pkgnote_metadata_set(m, "name", "Ελληνικά-名前-😀"), 0);
        CHECK_INT(pkgnote_metadata_set(m, "version", "1\"2\\3/4"), 0);
        CHECK_INT(pkgnote_metadata_set(m, "type", "deb"), 0); /* replaced in place */
        char *s;
        CHECK_INT(pkgnote_metadata_to_json(m, &s), 0);
        /* Raw UTF-8, never \u escapes; only " and \ escaped; / left alone. */
        CHECK_STR(s, "{\"type\":\"deb\",\"name\":\"Ελληνικά-名前-😀\",\"version\":\"1\\\"2\\\\3/4\"}");
        free(s);
        CHECK_INT(pkgnote_metadata_set(m, "name", "a\nb"), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "control character") != NULL);
        CHECK_INT(pkgnote_metadata_set(m, "name", "tab\there"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set(m, "name", "del\x7f"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set(m, "name", "c1\xc2\x85"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set(m, "name", "bad\xff"), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "UTF-8") != NULL);
        CHECK_INT(pkgnote_metadata_set(m, "", "x"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set(m, "k\x01", "x"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set_json(m, "extra", "[1,{\"a\":\"b\"}]"), 0);
        CHECK_INT(pkgnote_metadata_set_json(m, "extra2", "\"a\\u0001\""), -EINVAL);
        CHECK_INT(pkgnote_metadata_set_json(m, "extra3", "{\"a\":1,\"a\":2}"), -EINVAL);
        CHECK_INT(pkgnote_metadata_set_json(m, "extra4", "[1,"), -EINVAL);
        CHECK_INT(pkgnote_metadata_remove(m, "version"), 1);
        CHECK_INT(pkgnote_metadata_remove(m, "version"), 0);
        CHECK_INT(pkgnote_metadata_to_json(m, &s), 0);
        CHECK_STR(s, "{\"type\":\"deb\",\"name\":\"Ελληνικά-名前-😀\",\"extra\":[1,{\"a\":\"b\"}]}");
        free(s);
        pkgnote_metadata_free(m);
}

struct findings {
        int n;
        char text[1024];
};

static void collect(void *u, int err, const char *msg) {
        struct findings *f = u;
        f->n++;
        strncat(f->text, msg, sizeof f->text - strlen(f->text) - 2);
        strcat(f->text, "|");
}

static void test_check(void) {
        /* Parsing tolerates what the spec forbids but a reader must show:
         * check() names each problem. */
        const char *j = "{\"name\":\"a\\nb\",\"version\":2,\"os\":\"\",\"x\":\"\\u00e9\"}";
        pkgnote_metadata *m;
        CHECK_INT(parse(j, &m), 0);
        struct findings f = {0};
        CHECK_INT(pkgnote_metadata_check(m, j, strlen(j), collect, &f), 4);
        CHECK(strstr(f.text, "\"version\" is not a string") != NULL);
        CHECK(strstr(f.text, "\"os\" is empty") != NULL);
        CHECK(strstr(f.text, "control character") != NULL);
        CHECK(strstr(f.text, "\\u escape") != NULL);
        char *s;
        CHECK_INT(pkgnote_metadata_to_json(m, &s), -EINVAL); /* cannot be written */
        pkgnote_metadata_free(m);
        /* An escaped backslash followed by u is not a \u escape. */
        j = "{\"name\":\"a\\\\u\"}";
        CHECK_INT(parse(j, &m), 0);
        CHECK_INT(pkgnote_metadata_check(m, j, strlen(j), NULL, NULL), 0);
        pkgnote_metadata_free(m);
}

static void test_parse_errors(void) {
        pkgnote_metadata *m;
        CHECK_INT(parse("", &m), -EBADMSG);
        CHECK_INT(parse("[]", &m), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "not an object") != NULL);
        CHECK_INT(parse("\"str\"", &m), -EBADMSG);
        CHECK_INT(parse("{\"a\":1}x", &m), -EBADMSG);
        CHECK_INT(parse("{\"a\":\"\\u0000\"}", &m), -EBADMSG);
        CHECK_INT(pkgnote_metadata_parse("{\"a\":\"b\0\"}", 9, &m), -EBADMSG);
        CHECK(strstr(pkgnote_last_error(), "NUL") != NULL);
        CHECK_INT(parse("{\"a\":\"\xed\xa0\x80\"}", &m), -EBADMSG); /* UTF-8 surrogate */
        CHECK_INT(parse("{\"a\":\"\xc0\xaf\"}", &m), -EBADMSG);     /* overlong */
        CHECK_INT(parse("{\"a\":1,\"a\":1}", &m), -EBADMSG);
        /* Exactly at the depth limit parses; one more does not. */
        char deep[256] = "{\"a\":";
        for (unsigned i = 1; i < PKGNOTE_MAX_JSON_DEPTH; i++)
                strcat(deep, "[");
        for (unsigned i = 1; i < PKGNOTE_MAX_JSON_DEPTH; i++)
                strcat(deep, "]");
        strcat(deep, "}");
        CHECK_INT(parse(deep, &m), 0);
        pkgnote_metadata_free(m);
        deep[4] = '[';
        memmove(deep + 5, deep + 4, strlen(deep + 4) + 1);
        deep[4] = ':';
        size_t l = strlen(deep);
        memmove(deep + l - 1, "]}", 3);
        CHECK_INT(parse(deep, &m), -E2BIG);
        /* Size limit. */
        char *big = malloc(PKGNOTE_MAX_JSON + 16);
        strcpy(big, "{\"a\":\"");
        memset(big + 6, 'x', PKGNOTE_MAX_JSON);
        strcpy(big + 6 + PKGNOTE_MAX_JSON, "\"}");
        CHECK_INT(parse(big, &m), -E2BIG);
        free(big);
}

/* Every truncated prefix of a valid document is an error, not a crash. */
static void test_truncated_prefixes(void) {
        size_t len = strlen(debian);
        for (size_t cut = 0; cut < len; cut++) {
                char *p = malloc(cut ? cut : 1);
                memcpy(p, debian, cut);
                pkgnote_metadata *m;
                CHECK_INT(pkgnote_metadata_parse(p, cut, &m), -EBADMSG);
                free(p);
        }
}

static void test_dlopen(void) {
        pkgnote_dlopen *d;
        const char *j = "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"compression\",\"priority\":\"suggested\"},{\"soname\":[]}]";
        CHECK_INT(pkgnote_dlopen_parse(j, strlen(j), &d), 0);
        CHECK_INT(pkgnote_dlopen_count(d), 2);
        CHECK_STR(pkgnote_dlopen_get(d, 0, "feature"), "zlib");
        CHECK_INT(pkgnote_dlopen_soname_count(d, 1), 0);
        char *s;
        CHECK_INT(pkgnote_dlopen_to_json(d, &s), 0);
        CHECK_STR(s, j);
        free(s);
        pkgnote_dlopen_free(d);
        CHECK_INT(pkgnote_dlopen_parse("{}", 2, &d), -EBADMSG);
        CHECK_INT(pkgnote_dlopen_parse("[1]", 3, &d), -EBADMSG);
        CHECK_INT(pkgnote_dlopen_parse("[{\"soname\":[1]}]", 16, &d), -EBADMSG);
        pkgnote_dlopen_free(NULL);
        pkgnote_metadata_free(NULL);
        pkgnote_object_free(NULL);
        pkgnote_info_free(NULL);
}

/* Composes metadata with the os-release OSR (a root directory, or with a
 * leading '@' a file) from a document (may be NULL), an rpm NEVRA (may be
 * NULL) and fields given as key, value pairs; returns the JSON or NULL. */
static char *compose(const char *osr, const char *doc, const char *nevra, ...) {
        pkgnote_compose *c;
        char *json = NULL;
        if (pkgnote_compose_new(&c) < 0)
                return NULL;
        int r = doc ? pkgnote_compose_document(c, doc, strlen(doc)) : 0;
        if (r >= 0 && nevra)
                r = pkgnote_compose_rpm(c, nevra);
        va_list ap;
        va_start(ap, nevra);
        for (const char *k; r >= 0 && (k = va_arg(ap, const char *));)
                r = pkgnote_compose_set(c, k, va_arg(ap, const char *));
        va_end(ap);
        if (r >= 0)
                r = osr && osr[0] == '@' ? pkgnote_compose_os_release_file(c, osr + 1)
                                         : pkgnote_compose_os_release(c, osr, 1);
        if (r >= 0)
                r = pkgnote_compose_json(c, &json);
        pkgnote_compose_free(c);
        return r < 0 ? NULL : json;
}

#define CHECK_COMPOSE(want, ...)                                                       \
        do {                                                                           \
                char *_j = compose(__VA_ARGS__, NULL);                                 \
                CHECK_STR(_j, want);                                                   \
                free(_j);                                                              \
        } while (0)

/* Writes TEXT to DIR/NAME; returns the path in BUF. */
static const char *write_file(char *buf, size_t size, const char *dir, const char *name, const char *text) {
        snprintf(buf, size, "%s/%s", dir, name);
        FILE *f = fopen(buf, "w");
        CHECK(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
        return buf;
}

static void test_compose_precedence(void) {
        char dir[] = "/tmp/test-metadata.XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        char path[256];
        snprintf(path, sizeof path, "%s/etc", dir);
        CHECK_INT(mkdir(path, 0755), 0);
        write_file(path, sizeof path, dir, "etc/os-release",
                   "ID=debian\nVERSION_ID=\"12\"\nCPE_NAME=cpe:/o:debian:debian_linux:12\n");

        const char *fedora = "{\"type\":\"rpm\",\"os\":\"fedora\",\"name\":\"hello\",\"version\":\"1.0-1.fc40\"}";
        CHECK_COMPOSE(fedora, dir, fedora, NULL);
        CHECK_COMPOSE("{\"type\":\"rpm\",\"os\":\"fedora\",\"name\":\"a\"}", dir, NULL, NULL, "type", "rpm", "os",
                      "fedora", "name", "a");
        /* A stated os takes no osVersion, not even from its own os-release. */
        CHECK_COMPOSE("{\"os\":\"debian\"}", dir, NULL, NULL, "os", "debian");
        CHECK_COMPOSE("{\"type\":\"deb\",\"os\":\"debian\",\"osVersion\":\"12\",\"name\":\"a\"}", dir, NULL, NULL,
                      "type", "deb", "name", "a");
        /* Without a type, or of a type not Debian's, nothing is filled. */
        CHECK_COMPOSE("{\"name\":\"a\"}", dir, NULL, NULL, "name", "a");
        CHECK_COMPOSE("{\"type\":\"rpm\",\"name\":\"a\"}", dir, NULL, NULL, "type", "rpm", "name", "a");
        CHECK_COMPOSE("{\"type\":\"generic\",\"name\":\"a\"}", dir, NULL, NULL, "type", "generic", "name", "a");
        CHECK_COMPOSE("{\"type\":\"rpm\",\"name\":\"n\",\"version\":\"1-2\",\"architecture\":\"noarch\"}", dir, NULL,
                      "n-1-2.noarch");
        /* A document gets nothing added: not even with a matching type. */
        CHECK_COMPOSE("{\"n\":1}", dir, "{\"n\":1}", NULL);
        CHECK_COMPOSE("{\"name\":\"a\",\"type\":\"deb\"}", dir, "{\"name\":\"a\",\"type\":\"deb\"}", NULL);
        CHECK_COMPOSE("{\"name\":\"a\",\"type\":\"deb\"}", dir, "{\"name\":\"a\"}", NULL, "type", "deb");
        CHECK_COMPOSE("{\"type\":\"deb\",\"os\":\"debian\",\"osVersion\":\"12\",\"osCpe\":\"cpe:/o:debian:debian_linux:12\"}",
                      dir, NULL, NULL, "type", "deb", "osCpe", "auto");
        CHECK_COMPOSE("{\"os\":\"debian\",\"osCpe\":\"cpe:/o:debian:debian_linux:12\"}", dir, NULL, NULL, "os",
                      "debian", "osCpe", "auto");
        CHECK(compose(dir, NULL, NULL, "os", "fedora", "osCpe", "auto", NULL) == NULL);
        CHECK(strstr(pkgnote_last_error(), "not for os 'fedora'") != NULL);
        CHECK(compose(dir, NULL, NULL, "type", "rpm", "osCpe", "auto", NULL) == NULL);
        CHECK(strstr(pkgnote_last_error(), "whose packages are deb") != NULL);
        CHECK_COMPOSE("{\"name\":\"cli\",\"os\":\"x\",\"type\":\"rpm\",\"version\":\"1-2\",\"architecture\":\"noarch\"}",
                      dir, "{\"name\":\"doc\",\"os\":\"x\"}", "n-1-2.noarch", "name", "cli");
        CHECK(compose(dir, "{\"name\":1}", NULL, NULL) == NULL);
        CHECK(compose(dir, NULL, NULL, "name", "", NULL) == NULL);
        CHECK(compose(dir, NULL, NULL, "nme", "x", NULL) == NULL);

        /* A file named instead of a root. */
        char alpine[300], file[320];
        write_file(alpine, sizeof alpine, dir, "alpine", "ID=alpine\nVERSION_ID=3.20.1\n");
        snprintf(file, sizeof file, "@%s", alpine);
        CHECK_COMPOSE("{\"type\":\"apk\",\"os\":\"alpine\",\"osVersion\":\"3.20.1\"}", file, NULL, NULL, "type", "apk");
        CHECK_COMPOSE("{\"type\":\"deb\"}", file, NULL, NULL, "type", "deb");
        snprintf(file, sizeof file, "@%s/missing", dir);
        CHECK(compose(file, NULL, NULL, "type", "apk", NULL) == NULL);
        CHECK(strstr(pkgnote_last_error(), "missing") != NULL);
        unlink(alpine);

        snprintf(path, sizeof path, "%s/etc/os-release", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/etc", dir);
        rmdir(path);
        /* An explicit root must have one, when the rule reads it. */
        CHECK(compose(dir, NULL, NULL, "type", "deb", NULL) == NULL);
        CHECK_COMPOSE("{\"type\":\"generic\"}", dir, NULL, NULL, "type", "generic");
        rmdir(dir);
}

/* Each distribution's package format, by ID or ID_LIKE. */
static void test_os_release_package_type(void) {
        static const struct {
                const char *text, *type;
        } cases[] = {
                {"ID=debian\n", "deb"},
                {"ID=ubuntu\nID_LIKE=debian\n", "deb"},
                {"ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "deb"},
                {"ID=kali\nID_LIKE=debian\n", "deb"},
                {"ID=fedora\n", "rpm"},
                {"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", "rpm"},
                {"ID=\"almalinux\"\n", "rpm"},
                {"ID=\"opensuse-tumbleweed\"\nID_LIKE=\"opensuse suse\"\n", "rpm"},
                {"ID=\"sles\"\nID_LIKE=\"suse\"\n", "rpm"},
                {"ID=azurelinux\n", "rpm"},
                {"ID=mariner\n", "rpm"},
                {"ID=\"amzn\"\nID_LIKE=\"fedora\"\n", "rpm"},
                {"ID=alpine\n", "apk"},
                {"ID=postmarketos\nID_LIKE=alpine\n", "apk"},
                {"ID=arch\n", "alpm"},
                {"ID=manjaro\nID_LIKE=arch\n", "alpm"},
                /* ID decides over ID_LIKE; unknown words are skipped. */
                {"ID=fedora\nID_LIKE=debian\n", "rpm"},
                {"ID=mydistro\nID_LIKE=\"  nosuch  ubuntu \"\n", "deb"},
                {"ID=gentoo\n", NULL},
                {"ID=nixos\n", NULL},
                {"ID_LIKE=debian-ish\n", NULL},
                {"NAME=x\n", NULL},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                pkgnote_os_release *o = NULL;
                CHECK_INT(pkgnote_os_release_parse(cases[i].text, strlen(cases[i].text), &o), 0);
                const char *t = pkgnote_os_release_package_type(o);
                if (cases[i].type)
                        CHECK_STR(t, cases[i].type);
                else
                        CHECK(t == NULL);
                pkgnote_os_release_free(o);
        }
        CHECK(pkgnote_os_release_package_type(NULL) == NULL);
}

/* A --metadata document comes out as written when it is compact: the
 * numbers too (0.1 is not 0.10000000000000001), strings in raw UTF-8. */
static void test_document_exact(void) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                {"{\"type\":\"generic\",\"name\":\"esbuild\",\"version\":\"0.28.2\"}",
                 "{\"type\":\"generic\",\"name\":\"esbuild\",\"version\":\"0.28.2\"}"},
                {"{\"z\":1,\"a\":0.1,\"m\":[2.5,-3,1.5e300,-1e-7],\"b\":100000.0,\"c\":true,\"d\":null}",
                 "{\"z\":1,\"a\":0.1,\"m\":[2.5,-3,1.5e300,-1e-7],\"b\":100000.0,\"c\":true,\"d\":null}"},
                /* Canonical form: no whitespace, no \u escapes or "\/". */
                {"{ \"name\" : \"caf\\u00e9\\/x\",\n \"n\": 2.50 }", "{\"name\":\"café/x\",\"n\":2.5}"},
                /* The same value, in 17 digits when one real needs them. */
                {"{\"a\":0.30000000000000004}", "{\"a\":0.30000000000000004}"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                pkgnote_compose *c = NULL;
                char *json = NULL;
                CHECK_INT(pkgnote_compose_new(&c), 0);
                CHECK_INT(pkgnote_compose_document(c, cases[i].in, strlen(cases[i].in)), 0);
                CHECK_INT(pkgnote_compose_json(c, &json), 0);
                CHECK_STR(json, cases[i].out);
                free(json);
                pkgnote_compose_free(c);
        }
}

int main(void) {
        RUN(test_accessors);
        RUN(test_unknown_keys_kept);
        RUN(test_build);
        RUN(test_check);
        RUN(test_parse_errors);
        RUN(test_truncated_prefixes);
        RUN(test_dlopen);
        RUN(test_compose_precedence);
        RUN(test_os_release_package_type);
        RUN(test_document_exact);
        return test_summary();
}
