/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a binary says is inside it (lib/03-model-embedded.c): Go's module
 * text turned into components, their purls as purl-spec's golang and
 * cargo types write them (case, percent-encoding, "+incompatible",
 * pseudo-versions, one-segment paths, replacements), the caller-sized
 * component struct, edges, copies and the JSON form. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-gobuild.h"
#include "03-model-crates.h"
#include "03-model-embedded.h"
#include "pkgnote.h"
#include "testlib.h"

static void purl(const char *eco, const char *name, const char *version, const char *want) {
        char *p = pn_embedded_purl(eco, name, version);
        CHECK_STR(p, want);
        free(p);
}

static void test_purls(void) {
        purl("golang", "github.com/BurntSushi/toml", "v1.2.1", "pkg:golang/github.com/burntsushi/toml@v1.2.1");
        purl("golang", "github.com/docker/docker", "v20.10.24+incompatible",
             "pkg:golang/github.com/docker/docker@v20.10.24%2Bincompatible");
        purl("golang", "golang.org/x/sys", "v0.0.0-20230321023759-10a507213a29",
             "pkg:golang/golang.org/x/sys@v0.0.0-20230321023759-10a507213a29");
        purl("golang", "gopkg.in/yaml.v3", "v3.0.1", "pkg:golang/gopkg.in/yaml.v3@v3.0.1");
        purl("golang", "hello", "v1.0.0", "pkg:golang/hello@v1.0.0");
        purl("golang", "example.com/App", "(devel)", "pkg:golang/example.com/app");
        purl("golang", "example.com/App", NULL, "pkg:golang/example.com/app");
        purl("golang", "example.com/~me/a b", "v1.0.0-rc.1+meta", "pkg:golang/example.com/~me/a%20b@v1.0.0-rc.1%2Bmeta");
        purl("golang", "example.com/caf\xc3\xa9", "v1", "pkg:golang/example.com/caf%C3%A9@v1");
        purl("cargo", "serde_json", "1.0.96", "pkg:cargo/serde_json@1.0.96");
        purl("cargo", "Inflector", "0.11.4", "pkg:cargo/Inflector@0.11.4");
        /* names no purl can carry: none */
        CHECK(!pn_embedded_purl_name_ok("golang", ""));
        CHECK(!pn_embedded_purl_name_ok("golang", "/abs//x"));
        CHECK(!pn_embedded_purl_name_ok("golang", "example.com/../x"));
        CHECK(!pn_embedded_purl_name_ok("golang", "example.com/."));
        CHECK(!pn_embedded_purl_name_ok("golang", "example.com/"));
        CHECK(!pn_embedded_purl_name_ok("cargo", ""));
        CHECK(pn_embedded_purl_name_ok("golang", "example.com/.well/x.."));
        CHECK(pn_embedded_purl_name_ok("golang", "hello"));
}

static const char MODINFO[] = "path\texample.com/App/cmd/app\n"
                              "mod\texample.com/App\t(devel)\t\n"
                              "dep\tgithub.com/BurntSushi/toml\tv1.2.1\th1:9F2/+DoOYIOksmaJFPw1tGFy1eDnIJXg+UHjuD8lTak=\n"
                              "dep\texample.com/old\tv1.0.0\n"
                              "=>\texample.com/New\tv1.1.0\th1:abc=\n"
                              "dep\texample.com/lib\tv1.2.3\n"
                              "=>\t../lib\t(devel)\t\n"
                              "build\t-compiler=gc\n"
                              "build\tCGO_ENABLED=0\n"
                              "build\tvcs.revision=0123abcd\n";

static pkgnote_embedded *from_text(const char *text) {
        struct pn_go_build b = {0};
        CHECK_INT(pn_go_modinfo_parse(text, strlen(text), &b), 0);
        b.go_version = strdup("go1.19.8");
        pkgnote_embedded *m = NULL;
        CHECK_INT(pn_embedded_from_go(&b, &m), 0);
        pn_go_build_done(&b);
        return m;
}

static void component(const pkgnote_embedded *m, size_t i, pkgnote_component *c) {
        *c = (pkgnote_component)PKGNOTE_COMPONENT_INIT;
        CHECK_INT(pkgnote_embedded_component(m, i, c), 1);
}

static void test_go(void) {
        pkgnote_embedded *m = from_text(MODINFO);
        if (!m)
                return;
        CHECK_STR(pkgnote_embedded_toolchain(m), "go1.19.8");
        CHECK_STR(pkgnote_embedded_package_path(m), "example.com/App/cmd/app");
        CHECK_INT(pkgnote_embedded_component_count(m), 4);
        pkgnote_component c;
        component(m, 0, &c);
        CHECK_STR(c.ecosystem, "golang");
        CHECK_STR(c.name, "example.com/App");
        CHECK_STR(c.version, "(devel)");
        CHECK(c.checksum == NULL);
        CHECK_INT(c.main, 1);
        CHECK_STR(c.kind, "runtime");
        CHECK_STR(c.purl, "pkg:golang/example.com/app");
        component(m, 1, &c);
        CHECK_STR(c.name, "github.com/BurntSushi/toml");
        CHECK_STR(c.checksum, "h1:9F2/+DoOYIOksmaJFPw1tGFy1eDnIJXg+UHjuD8lTak=");
        CHECK_STR(c.purl, "pkg:golang/github.com/burntsushi/toml@v1.2.1");
        CHECK_INT(c.main, 0);
        CHECK(c.replacement_name == NULL && c.source == NULL);
        /* replaced by a module version: that version's purl */
        component(m, 2, &c);
        CHECK_STR(c.name, "example.com/old");
        CHECK_STR(c.version, "v1.0.0");
        CHECK_STR(c.replacement_name, "example.com/New");
        CHECK_STR(c.replacement_version, "v1.1.0");
        CHECK_STR(c.replacement_checksum, "h1:abc=");
        CHECK_STR(c.purl, "pkg:golang/example.com/new@v1.1.0");
        CHECK(c.source == NULL);
        /* replaced by a directory: local, its own purl */
        component(m, 3, &c);
        CHECK_STR(c.replacement_name, "../lib");
        CHECK_STR(c.replacement_version, "(devel)");
        CHECK(c.replacement_checksum == NULL);
        CHECK_STR(c.source, "local");
        CHECK_STR(c.purl, "pkg:golang/example.com/lib@v1.2.3");
        CHECK_INT(pkgnote_embedded_component(m, 4, &c), -ENOENT);
        CHECK(strstr(pkgnote_last_error(), "no component 4") != NULL);

        CHECK_INT(pkgnote_embedded_setting_count(m), 3);
        const char *k = NULL, *v = NULL;
        CHECK_INT(pkgnote_embedded_setting(m, 2, &k, &v), 1);
        CHECK_STR(k, "vcs.revision");
        CHECK_STR(v, "0123abcd");
        CHECK_INT(pkgnote_embedded_setting(m, 3, &k, &v), -ENOENT);
        CHECK_INT(pkgnote_embedded_edge_count(m), 0);
        size_t a, b;
        CHECK_INT(pkgnote_embedded_edge(m, 0, &a, &b), -ENOENT);

        /* a caller built against a smaller struct: nothing past its size */
        struct {
                pkgnote_component c;
                char guard[8];
        } small;
        memset(&small, 0x5a, sizeof small);
        small.c.size = offsetof(pkgnote_component, purl);
        CHECK_INT(pkgnote_embedded_component(m, 1, &small.c), 1);
        CHECK_STR(small.c.name, "github.com/BurntSushi/toml");
        const unsigned char *tail = (const unsigned char *)&small.c + offsetof(pkgnote_component, purl);
        bool untouched = true;
        for (size_t i = 0; i < sizeof small - offsetof(pkgnote_component, purl); i++)
                untouched = untouched && tail[i] == 0x5a;
        CHECK(untouched);
        pkgnote_component bad = {.size = 1};
        CHECK_INT(pkgnote_embedded_component(m, 0, &bad), -EINVAL);
        CHECK_INT(pkgnote_embedded_component(m, 0, NULL), -EINVAL);

        /* the JSON form, and a copy that says the same */
        char *j = NULL, *j2 = NULL;
        CHECK_INT(pkgnote_embedded_to_json(m, &j), 0);
        CHECK(j && strstr(j, "\"purl\":\"pkg:golang/example.com/new@v1.1.0\"") &&
              strstr(j, "\"replacement\":{\"name\":\"../lib\",\"version\":\"(devel)\"}") &&
              strstr(j, "{\"key\":\"CGO_ENABLED\",\"value\":\"0\"}") && strstr(j, "\"dependencies\":[]"));
        pkgnote_embedded *d = pn_embedded_dup(m);
        CHECK(d != NULL);
        if (d) {
                CHECK_INT(pkgnote_embedded_to_json(d, &j2), 0);
                CHECK_STR(j2, j);
        }
        free(j);
        free(j2);
        pkgnote_embedded_free(d);
        pkgnote_embedded_free(m);
}

/* Built outside a module: no main component. */
static void test_no_module(void) {
        pkgnote_embedded *m = from_text("path\tcommand-line-arguments\nbuild\t-compiler=gc\n");
        if (!m)
                return;
        CHECK_INT(pkgnote_embedded_component_count(m), 0);
        CHECK_STR(pkgnote_embedded_package_path(m), "command-line-arguments");
        pkgnote_embedded_free(m);
}

/* The builder a crate list fills: edges by index, bounded. */
static void test_edges(void) {
        pkgnote_embedded *m = pn_embedded_new();
        CHECK(m != NULL);
        if (!m)
                return;
        pkgnote_component root = {.size = sizeof root, .ecosystem = "cargo", .name = "app", .version = "0.1.0",
                                  .source = "local", .kind = "runtime", .main = 1},
                          dep = {.size = sizeof dep, .ecosystem = "cargo", .name = "serde", .version = "1.0.160",
                                 .source = "crates.io", .kind = "runtime"};
        size_t i0, i1;
        CHECK_INT(pn_embedded_add_component(m, &root, &i0), 0);
        CHECK_INT(pn_embedded_add_component(m, &dep, &i1), 0);
        CHECK_INT(pn_embedded_add_edge(m, i0, i1), 0);
        CHECK_INT(pn_embedded_add_edge(m, i0, 7), -EINVAL);
        CHECK_INT(pkgnote_embedded_edge_count(m), 1);
        size_t a = 9, b = 9;
        CHECK_INT(pkgnote_embedded_edge(m, 0, &a, &b), 1);
        CHECK_INT(a, 0);
        CHECK_INT(b, 1);
        pkgnote_component c;
        component(m, 1, &c);
        CHECK_STR(c.purl, "pkg:cargo/serde@1.0.160");
        CHECK_STR(c.source, "crates.io");
        pkgnote_component noname = {.size = sizeof noname, .ecosystem = "cargo"};
        CHECK_INT(pn_embedded_add_component(m, &noname, NULL), -EINVAL);
        char *j = NULL;
        CHECK_INT(pkgnote_embedded_to_json(m, &j), 0);
        CHECK(j && strstr(j, "\"dependencies\":[[0,1]]"));
        free(j);
        pkgnote_embedded_free(m);
}

/* A crate list's JSON TEXT into components: the root crate first, each
 * crate once (a second "a 1.0.0 crates.io" counts as the first, its
 * dependencies too), edges each once, none from a crate to itself. */
static void test_crates(void) {
        static const char text[] =
                "{\"format\":1,\"packages\":["
                "{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"crates.io\"},"
                "{\"name\":\"b\",\"version\":\"2.0.0+x\",\"source\":\"git\",\"kind\":\"build\",\"dependencies\":[0,3]},"
                "{\"name\":\"app\",\"version\":\"0.1.0\",\"source\":\"local\",\"dependencies\":[0,1,3],\"root\":true},"
                "{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"crates.io\"}]}";
        struct pn_crates c;
        CHECK_INT(pn_crates_parse((const uint8_t *)text, sizeof text - 1, &c), 0);
        pkgnote_embedded *m = NULL;
        CHECK_INT(pn_embedded_from_crates(&c, &m), 0);
        if (!m) {
                pn_crates_done(&c);
                return;
        }
        CHECK_INT(pkgnote_embedded_component_count(m), 3);
        pkgnote_component x;
        component(m, 0, &x);
        CHECK_STR(x.name, "app");
        CHECK_INT(x.main, 1);
        CHECK_STR(x.purl, "pkg:cargo/app@0.1.0");
        component(m, 1, &x);
        CHECK_STR(x.name, "a");
        CHECK_STR(x.kind, "runtime");
        CHECK_INT(x.main, 0);
        component(m, 2, &x);
        CHECK_STR(x.name, "b");
        CHECK_STR(x.kind, "build");
        CHECK_STR(x.source, "git");
        CHECK_STR(x.purl, "pkg:cargo/b@2.0.0%2Bx");
        CHECK(pkgnote_embedded_toolchain(m) == NULL);
        /* app->a, app->b, b->a: app's two "a"s are one edge */
        CHECK_INT(pkgnote_embedded_edge_count(m), 3);
        char *j = NULL;
        CHECK_INT(pkgnote_embedded_to_json(m, &j), 0);
        CHECK(j && strstr(j, "\"dependencies\":[[0,1],[0,2],[2,1]]"));
        free(j);

        /* after Go's modules: the indices moved, Go's toolchain kept */
        pkgnote_embedded *g = from_text("path\texample.com/app\nmod\texample.com/app\t(devel)\t\n");
        if (g) {
                CHECK_INT(pn_embedded_add_crates(g, &c), 0);
                CHECK_INT(pkgnote_embedded_component_count(g), 4);
                component(g, 0, &x);
                CHECK_STR(x.ecosystem, "golang");
                component(g, 1, &x);
                CHECK_STR(x.ecosystem, "cargo");
                CHECK_STR(x.name, "app");
                CHECK_STR(pkgnote_embedded_toolchain(g), "go1.19.8");
                size_t a = 0, b = 0;
                CHECK_INT(pkgnote_embedded_edge(g, 2, &a, &b), 1);
                CHECK_INT(a, 3);
                CHECK_INT(b, 2);
                pkgnote_embedded_free(g);
        }
        pkgnote_embedded_free(m);
        pn_crates_done(&c);

        /* the root crate listed twice, first without its flag: one
         * component, first, main */
        static const char twice[] =
                "{\"packages\":[{\"name\":\"app\",\"version\":\"0.1.0\",\"source\":\"local\"},"
                "{\"name\":\"z\",\"version\":\"1.0.0\",\"source\":\"crates.io\"},"
                "{\"name\":\"app\",\"version\":\"0.1.0\",\"source\":\"local\",\"dependencies\":[1],\"root\":true}]}";
        CHECK_INT(pn_crates_parse((const uint8_t *)twice, sizeof twice - 1, &c), 0);
        m = NULL;
        CHECK_INT(pn_embedded_from_crates(&c, &m), 0);
        if (m) {
                CHECK_INT(pkgnote_embedded_component_count(m), 2);
                component(m, 0, &x);
                CHECK_STR(x.name, "app");
                CHECK_INT(x.main, 1);
                component(m, 1, &x);
                CHECK_INT(x.main, 0);
                CHECK_INT(pkgnote_embedded_edge_count(m), 1);
                pkgnote_embedded_free(m);
        }
        pn_crates_done(&c);
}

/* Not a Go program (no Go build-id note): nothing said, nothing read. */
static void test_not_go(void) {
        pkgnote_object *e;
        if (pkgnote_object_open("/proc/self/exe", &e) < 0) {
                CHECK(!"this test program opens");
                return;
        }
        pkgnote_embedded *m = NULL;
        CHECK_INT(pkgnote_embedded_read(e, &m), 0);
        CHECK(m == NULL);
        pkgnote_info *info;
        CHECK_INT(pkgnote_info_read(e, &info), 0);
        CHECK(pkgnote_info_embedded(info) == NULL);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        CHECK_INT(pkgnote_embedded_read(NULL, &m), -EINVAL);
}

int main(void) {
        RUN(test_purls);
        RUN(test_go);
        RUN(test_no_module);
        RUN(test_edges);
        RUN(test_crates);
        RUN(test_not_go);
        return test_summary();
}
