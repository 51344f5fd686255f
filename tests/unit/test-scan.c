/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Scans: archive path normalisation, purls, trees and archives built here
 * (libarchive's writer), the image merge, and the SBOM writers. */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "pkgnote.h"
#include "01-base-dir.h"
#include "09-scan-private.h"
#include "testlib.h"

#if HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

int pn_path_normalize(const char *in, char *out, size_t size);

#define JSON_A "{\"type\":\"deb\",\"os\":\"Debian\",\"osVersion\":\"12\",\"name\":\"Alpha\",\"version\":\"1:1.0+dfsg-1\",\"architecture\":\"amd64\"}"
#define JSON_B "{\"type\":\"rpm\",\"os\":\"fedora\",\"name\":\"beta\",\"version\":\"2.0-1.fc40\",\"architecture\":\"x86_64\"}"

static uint8_t image[1 << 16], blob[4096];
static char dir[] = "/tmp/test-scan.XXXXXX";

static size_t elf_with(const char *json) {
        struct mk_spec s = {.is64 = true, .type = 3, .machine = 62};
        if (json) {
                s.blobs[0] = (struct mk_blob){blob, mk_package_note(blob, false, json, false), 4, true, true,
                                              ".note.package"};
                s.n_blobs = 1;
        }
        return mk_elf(&s, image, sizeof image);
}

static void write_file(const char *path, const void *data, size_t len) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0);
        CHECK_INT(write(fd, data, len), (long long)len);
        close(fd);
}

static void test_normalize(void) {
        static const struct {
                const char *in, *out;
        } ok[] = {
                {"usr/bin/ls", "usr/bin/ls"}, {"./usr/bin/ls", "usr/bin/ls"}, {"/usr//bin/./ls/", "usr/bin/ls"},
                {"./", ""},                   {"/", ""},                      {"a/.../b", "a/.../b"},
                {".wh..wh..opq", ".wh..wh..opq"},
        };
        char buf[PKGNOTE_MAX_SCAN_PATH + 1];
        for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
                CHECK_INT(pn_path_normalize(ok[i].in, buf, sizeof buf), (long long)strlen(ok[i].out));
                CHECK_STR(buf, ok[i].out);
        }
        CHECK_INT(pn_path_normalize("../etc/passwd", buf, sizeof buf), -EXDEV);
        CHECK_INT(pn_path_normalize("a/../../b", buf, sizeof buf), -EXDEV);
        CHECK_INT(pn_path_normalize("a/..", buf, sizeof buf), -EXDEV);
        char *longp = malloc(PKGNOTE_MAX_SCAN_PATH + 10);
        memset(longp, 'a', PKGNOTE_MAX_SCAN_PATH + 9);
        longp[PKGNOTE_MAX_SCAN_PATH + 9] = 0;
        CHECK_INT(pn_path_normalize(longp, buf, sizeof buf), -E2BIG);
        free(longp);
}

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

static void test_purl(void) {
        /* deb: namespace and name lowercased, epoch stays, '+' encoded. */
        check_purl(JSON_A, "pkg:deb/debian/alpha@1:1.0%2Bdfsg-1?arch=amd64&distro=debian-12");
        check_purl(JSON_B, "pkg:rpm/fedora/beta@2.0-1.fc40?arch=x86_64&distro=fedora");
        /* rpm: the epoch becomes a qualifier, the name keeps its case. */
        check_purl("{\"type\":\"rpm\",\"os\":\"fedora\",\"osVersion\":\"40\",\"name\":\"NetworkManager\",\"version\":\"1:1.46-1.fc40\"}",
                   "pkg:rpm/fedora/NetworkManager@1.46-1.fc40?distro=fedora-40&epoch=1");
        check_purl("{\"type\":\"apk\",\"os\":\"alpine\",\"name\":\"Musl\",\"version\":\"1.2.4-r2\",\"architecture\":\"x86_64\"}",
                   "pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&distro=alpine");
        /* Other types: generic, no namespace. */
        check_purl("{\"type\":\"alpm\",\"os\":\"arch\",\"name\":\"a b/c?d#e@f\",\"version\":\"1\"}",
                   "pkg:generic/a%20b%2Fc%3Fd%23e%40f@1?distro=arch");
        /* The OS from the CPE when the note gives it no other way. */
        check_purl("{\"type\":\"rpm\",\"name\":\"systemd\",\"version\":\"256.7-1.fc41\",\"architecture\":\"x86_64\","
                   "\"osCpe\":\"cpe:/o:fedoraproject:fedora:41\"}",
                   "pkg:rpm/fedora/systemd@256.7-1.fc41?arch=x86_64&distro=fedora-41");
        check_purl("{\"type\":\"deb\",\"os\":\"Debian\",\"name\":\"systemd\",\"version\":\"252.38-1~deb12u1\",\"architecture\":\"amd64\"}",
                   "pkg:deb/debian/systemd@252.38-1~deb12u1?arch=amd64&distro=debian");
        check_purl("{\"type\":\"deb\",\"name\":\"systemd\",\"version\":\"252.38-1~deb12u1\",\"architecture\":\"amd64\","
                   "\"osCpe\":\"cpe:/o:debian:debian_linux:12\"}",
                   "pkg:deb/debian/systemd@252.38-1~deb12u1?arch=amd64&distro=debian-12");
        check_purl("{\"type\":\"apk\",\"name\":\"musl\",\"version\":\"1.2.5-r0\",\"architecture\":\"x86_64\","
                   "\"osCpe\":\"cpe:2.3:o:alpinelinux:alpine_linux:3.20:*:*:*:*:*:*:*\"}",
                   "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64&distro=alpine-3.20");
        check_purl("{\"type\":\"rpm\",\"name\":\"glibc\",\"version\":\"2.35-7.cm2\",\"osCpe\":\"cpe:/o:microsoft:cbl-mariner:2\"}",
                   "pkg:rpm/mariner/glibc@2.35-7.cm2?distro=mariner-2");
        check_purl("{\"type\":\"rpm\",\"name\":\"bash\",\"version\":\"5.1-1.el9\",\"osCpe\":\"cpe:/o:redhat:enterprise_linux:9::baseos\"}",
                   "pkg:rpm/redhat/bash@5.1-1.el9?distro=rhel-9");
        /* os given: kept; osVersion from the CPE when the note lacks it */
        check_purl("{\"type\":\"rpm\",\"os\":\"fedora\",\"name\":\"x\",\"version\":\"1-1\",\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\"}",
                   "pkg:rpm/fedora/x@1-1?distro=fedora-40");
        /* an application CPE, a CPE of any version, an unknown vendor */
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\"1\",\"osCpe\":\"cpe:/a:gnu:bash:5\"}", "pkg:rpm/x@1");
        check_purl("{\"type\":\"rpm\",\"name\":\"x\",\"version\":\"1\",\"osCpe\":\"cpe:2.3:o:fedoraproject:fedora:*:*:*:*:*:*:*:*\"}",
                   "pkg:rpm/fedora/x@1?distro=fedora");
        check_purl("{\"type\":\"deb\",\"name\":\"x\",\"version\":\"1\",\"osCpe\":\"cpe:/o:example:my_linux:7\"}",
                   "pkg:deb/my/x@1?distro=my-7");
        check_purl("{\"name\":\"x\"}", "pkg:generic/x");
        check_purl("{\"name\":\"caf\xc3\xa9\"}", "pkg:generic/caf%C3%A9");
        check_purl("{\"version\":\"1\"}", NULL);
}

static const pkgnote_scan_object *find(const pkgnote_scan *s, const char *path) {
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++)
                if (!strcmp(pkgnote_scan_object_path(pkgnote_scan_object_get(s, i)), path))
                        return pkgnote_scan_object_get(s, i);
        return NULL;
}

static void test_tree(void) {
        char p[256];
        snprintf(p, sizeof p, "%s/tree", dir);
        CHECK_INT(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/tree/sub", dir);
        CHECK_INT(mkdir(p, 0755), 0);
        size_t len = elf_with(JSON_A);
        snprintf(p, sizeof p, "%s/tree/sub/a", dir);
        write_file(p, image, len);
        snprintf(p, sizeof p, "%s/tree/b", dir);
        write_file(p, image, len);
        len = elf_with(NULL);
        snprintf(p, sizeof p, "%s/tree/plain", dir);
        write_file(p, image, len);
        snprintf(p, sizeof p, "%s/tree/text", dir);
        write_file(p, "hello\n", 6);
        snprintf(p, sizeof p, "%s/tree/link", dir);
        CHECK_INT(symlink("sub", p), 0);

        pkgnote_scan_options o = {.threads = 3, .flags = PKGNOTE_SCAN_CHECKSUMS};
        pkgnote_scan *s;
        CHECK_INT(pkgnote_scan_new(&o, &s), 0);
        snprintf(p, sizeof p, "%s/tree/", dir);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DIRECTORY);
        CHECK_INT(pkgnote_scan_object_count(s), 3);
        snprintf(p, sizeof p, "%s/tree/b", dir);
        CHECK_STR(pkgnote_scan_object_path(pkgnote_scan_object_get(s, 0)), p);
        const pkgnote_scan_object *ob = find(s, p);
        CHECK(ob != NULL);
        if (ob) {
                CHECK_INT(pkgnote_scan_object_package_count(ob), 1);
                CHECK_STR(pkgnote_scan_object_package_json(ob, 0), JSON_A);
                CHECK_STR(pkgnote_scan_object_kind(ob), "shared object");
                CHECK(pkgnote_scan_object_sha256(ob) && strlen(pkgnote_scan_object_sha256(ob)) == 64);
        }
        snprintf(p, sizeof p, "%s/tree/plain", dir);
        ob = find(s, p);
        CHECK(ob && pkgnote_scan_object_package_count(ob) == 0 && !pkgnote_scan_object_sha1(ob));
        pkgnote_scan_stats st = {.size = sizeof st};
        CHECK_INT(pkgnote_scan_get_stats(s, &st), 0);
        CHECK_INT(st.files, 4);
        /* The caller's size: 0 refused; a struct shorter than 1.0's
         * (up to objects) refused too, nothing of it written. */
        pkgnote_scan_stats unsized = {0};
        CHECK_INT(pkgnote_scan_get_stats(s, &unsized), -EINVAL);
        pkgnote_scan_stats old;
        const size_t old_size = offsetof(pkgnote_scan_stats, objects);
        test_short_struct(&old, sizeof old, old_size);
        CHECK_INT(pkgnote_scan_get_stats(s, &old), -EINVAL);
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        CHECK_INT(st.directories, 2);
        CHECK_INT(st.symlinks, 1);
        CHECK_INT(st.objects, 3);
        CHECK_INT(st.with_note, 2);
        CHECK_INT(st.packages, 1);
        CHECK_INT(pkgnote_scan_package_count(s), 1);
        CHECK_INT(pkgnote_scan_package_object_count(s, 0), 2);

        /* A symlink as PATH is followed, named as given; a missing
         * PATH fails and the scan stays usable. */
        snprintf(p, sizeof p, "%s/tree/link", dir);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DIRECTORY);
        CHECK_INT(pkgnote_scan_object_count(s), 4);
        snprintf(p, sizeof p, "%s/tree/link/a", dir);
        CHECK(find(s, p) != NULL);
        snprintf(p, sizeof p, "%s/tree/missing", dir);
        CHECK_INT(pkgnote_scan_add(s, p), -ENOENT);
        snprintf(p, sizeof p, "%s/tree/sub/a", dir);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_FILE);
        CHECK_INT(pkgnote_scan_object_count(s), 5);
        CHECK_INT(pkgnote_scan_object_input(pkgnote_scan_object_get(s, 4)), 3);

        /* Reproducible SBOMs. */
        pkgnote_sbom_options so = {.created = 0, .reproducible = 1, .name = "tree"};
        char *a = NULL, *b = NULL;
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX, &so, &a), 0);
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX, &so, &b), 0);
        CHECK(a && b && !strcmp(a, b));
        CHECK(a && strstr(a, "\"created\": \"1970-01-01T00:00:00Z\""));
        CHECK(a && strstr(a, "pkg:deb/debian/alpha@1:1.0%2Bdfsg-1?arch=amd64&distro=debian-12"));
        free(a), free(b);
        a = b = NULL;
        /* SPDX 3.0.1: as reproducible, the purl as software_packageUrl,
         * every id below the document's namespace. */
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX_3, &so, &a), 0);
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX_3, &so, &b), 0);
        CHECK(a && b && !strcmp(a, b));
        CHECK(a && strstr(a, "\"software_packageUrl\": \"pkg:deb/debian/alpha@1:1.0%2Bdfsg-1?arch=amd64&distro=debian-12\""));
        CHECK(a && strstr(a, "\"created\": \"1970-01-01T00:00:00Z\"") && strstr(a, "\"specVersion\": \"3.0.1\""));
        CHECK(a && !strstr(a, "pkgnote-scan-#")); /* no placeholder left */
        free(a), free(b);
        a = b = NULL;
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_CYCLONEDX_1_7, &so, &a), 0);
        CHECK(a && strstr(a, "\"specVersion\": \"1.7\""));
        free(a);
        a = NULL;
        so.reproducible = 0;
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_CYCLONEDX, &so, &a), 0);
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_CYCLONEDX, &so, &b), 0);
        CHECK(a && b && strcmp(a, b) != 0); /* random serial numbers */
        CHECK(a && strstr(a, "\"urn:uuid:"));
        free(a), free(b);
        a = b = NULL;
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX_3, &so, &a), 0);
        CHECK_INT(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX_3, &so, &b), 0);
        CHECK(a && b && strcmp(a, b) != 0); /* random namespaces */
        free(a), free(b);
        a = NULL;
        CHECK_INT(pkgnote_sbom_write(s, 7, NULL, &a), -EINVAL);
        pkgnote_scan_free(s);
}

#if HAVE_LIBARCHIVE
struct member {
        const char *name;
        int type; /* AE_IFREG, AE_IFDIR, AE_IFLNK, 0 for a hard link */
        const void *data;
        size_t len;
        const char *link;
};

static void write_tar(const char *path, const struct member *m, size_t n) {
        struct archive *a = archive_write_new();
        archive_write_set_format_pax_restricted(a);
        CHECK_INT(archive_write_open_filename(a, path), ARCHIVE_OK);
        for (size_t i = 0; i < n; i++) {
                struct archive_entry *e = archive_entry_new();
                archive_entry_set_pathname(e, m[i].name);
                archive_entry_set_perm(e, 0755);
                if (m[i].type == 0) {
                        archive_entry_set_filetype(e, AE_IFREG);
                        archive_entry_set_hardlink(e, m[i].link);
                } else {
                        archive_entry_set_filetype(e, (unsigned)m[i].type);
                        if (m[i].type == AE_IFLNK)
                                archive_entry_set_symlink(e, m[i].link);
                        archive_entry_set_size(e, (la_int64_t)m[i].len);
                }
                CHECK_INT(archive_write_header(a, e), ARCHIVE_OK);
                if (m[i].len)
                        CHECK_INT(archive_write_data(a, m[i].data, m[i].len), (long long)m[i].len);
                archive_entry_free(e);
        }
        archive_write_close(a);
        archive_write_free(a);
}

static void test_archive(void) {
        static uint8_t elf_a[1 << 16], elf_b[1 << 16];
        size_t la = elf_with(JSON_A);
        memcpy(elf_a, image, la);
        size_t lb = elf_with(JSON_B);
        memcpy(elf_b, image, lb);
        /* A root filesystem: hard link to an ELF file, a duplicate member
         * (the later one wins), ".wh." names are plain files here. */
        const struct member root[] = {
                {"./usr/", AE_IFDIR, NULL, 0, NULL},
                {"./usr/bin/a", AE_IFREG, elf_a, la, NULL},
                {"./usr/bin/hard", 0, NULL, 0, "./usr/bin/a"},
                {"usr/bin/dup", AE_IFREG, elf_a, la, NULL},
                {"usr/bin/dup", AE_IFREG, elf_b, lb, NULL},
                {"usr/bin/.wh.x", AE_IFREG, "", 0, NULL},
                {"usr/bin/sym", AE_IFLNK, NULL, 0, "a"},
        };
        char p[256];
        snprintf(p, sizeof p, "%s/root.tar", dir);
        write_tar(p, root, sizeof root / sizeof root[0]);
        pkgnote_scan *s;
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_ARCHIVE);
        CHECK_INT(pkgnote_scan_object_count(s), 3);
        const pkgnote_scan_object *ob = find(s, "/usr/bin/hard");
        CHECK(ob && pkgnote_scan_object_package_count(ob) == 1);
        ob = find(s, "/usr/bin/dup");
        CHECK(ob && ob && !strcmp(pkgnote_scan_object_package_json(ob, 0), JSON_B));
        pkgnote_scan_stats st = {.size = sizeof st};
        pkgnote_scan_get_stats(s, &st);
        CHECK_INT(st.files, 4);
        CHECK_INT(st.symlinks, 1);
        CHECK_INT(st.directories, 1);
        pkgnote_scan_free(s);

        /* A member over the size limit is read as a prefix (at least the
         * first 4 KiB): the note in the first page is still found, with a
         * problem telling so. */
        static uint8_t big[(1 << 16) + 8192];
        memcpy(big, elf_a, la);
        const struct member large[] = {{"usr/bin/big", AE_IFREG, big, la + 8192, NULL}};
        snprintf(p, sizeof p, "%s/large.tar", dir);
        write_tar(p, large, 1);
        pkgnote_scan_options o = {.max_member = 1024};
        CHECK_INT(pkgnote_scan_new(&o, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_ARCHIVE);
        ob = find(s, "/usr/bin/big");
        CHECK(ob && pkgnote_scan_object_package_count(ob) == 1);
        CHECK(ob && pkgnote_scan_object_problem_count(ob) >= 1);
        pkgnote_scan_free(s);

        /* A docker save archive: two layers, the upper stored first,
         * whiteout and opaque directory in the upper one. */
        const struct member lower[] = {
                {"usr/bin/a", AE_IFREG, elf_a, la, NULL},
                {"usr/bin/gone", AE_IFREG, elf_a, la, NULL},
                {"opt/x/old", AE_IFREG, elf_b, lb, NULL},
                {"opt/x/sub/deeper", AE_IFREG, elf_b, lb, NULL},
        };
        const struct member upper[] = {
                {"opt/x/.wh..wh..opq", AE_IFREG, "", 0, NULL},
                {"opt/x/new", AE_IFREG, elf_b, lb, NULL},
                {"usr/bin/.wh.gone", AE_IFREG, "", 0, NULL},
                {"usr/bin/late", 0, NULL, 0, "usr/bin/a"}, /* hard link into the lower layer */
        };
        char l1[256], l2[256];
        snprintf(l1, sizeof l1, "%s/l1.tar", dir);
        snprintf(l2, sizeof l2, "%s/l2.tar", dir);
        write_tar(l1, lower, 4);
        write_tar(l2, upper, 4);
        size_t n1, n2;
        uint8_t *d1 = read_file(l1, &n1), *d2 = read_file(l2, &n2);
        CHECK(d1 && d2);
        const char *id1 = "1111111111111111111111111111111111111111111111111111111111111111";
        const char *id2 = "2222222222222222222222222222222222222222222222222222222222222222";
        char n1s[100], n2s[100], manifest[400];
        snprintf(n1s, sizeof n1s, "%s/layer.tar", id1);
        snprintf(n2s, sizeof n2s, "%s/layer.tar", id2);
        snprintf(manifest, sizeof manifest, "[{\"Config\":\"c.json\",\"Layers\":[\"%s\",\"%s\"]}]", n1s, n2s);
        const struct member img[] = {
                {n2s, AE_IFREG, d2, n2, NULL},
                {n1s, AE_IFREG, d1, n1, NULL},
                {"manifest.json", AE_IFREG, manifest, strlen(manifest), NULL},
        };
        snprintf(p, sizeof p, "%s/img.tar", dir);
        write_tar(p, img, 3);
        free(d1), free(d2);
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DOCKER);
        static const char *const want[] = {"/opt/x/new", "/usr/bin/a", "/usr/bin/late"};
        CHECK_INT(pkgnote_scan_object_count(s), 3);
        for (size_t i = 0; i < 3 && i < pkgnote_scan_object_count(s); i++)
                CHECK_STR(pkgnote_scan_object_path(pkgnote_scan_object_get(s, i)), want[i]);
        pkgnote_scan_get_stats(s, &st);
        CHECK_INT(st.whited_out, 3);
        pkgnote_scan_free(s);

        /* Merge rules beyond plain whiteouts: an opaque whiteout at the
         * root of a layer hides the whole lower tree; a non-directory
         * replaces a directory only implied by the paths below it; a
         * whiteout of no name (".wh.") removes nothing. */
        const struct member lower2[] = {
                {"usr/bin/a", AE_IFREG, elf_a, la, NULL},
                {"opt/y/deep", AE_IFREG, elf_b, lb, NULL},
                {"srv/kept", AE_IFREG, elf_b, lb, NULL},
        };
        const struct member mid[] = {
                {"opt/y", AE_IFLNK, NULL, 0, "/tmp"},
                {"srv/.wh.", AE_IFREG, "", 0, NULL},
        };
        const struct member top[] = {
                {".wh..wh..opq", AE_IFREG, "", 0, NULL},
                {"usr/bin/b", AE_IFREG, elf_b, lb, NULL},
        };
        char l3[256];
        snprintf(l3, sizeof l3, "%s/l3.tar", dir);
        write_tar(l1, lower2, 3);
        write_tar(l2, mid, 2);
        write_tar(l3, top, 2);
        size_t n3;
        uint8_t *d3;
        d1 = read_file(l1, &n1), d2 = read_file(l2, &n2), d3 = read_file(l3, &n3);
        CHECK(d1 && d2 && d3);
        const char *id3 = "3333333333333333333333333333333333333333333333333333333333333333";
        char n3s[100];
        snprintf(n3s, sizeof n3s, "%s/layer.tar", id3);
        snprintf(manifest, sizeof manifest, "[{\"Config\":\"c.json\",\"Layers\":[\"%s\",\"%s\"]}]", n1s, n2s);
        const struct member img2[] = {
                {n1s, AE_IFREG, d1, n1, NULL},
                {n2s, AE_IFREG, d2, n2, NULL},
                {n3s, AE_IFREG, d3, n3, NULL},
                {"manifest.json", AE_IFREG, manifest, strlen(manifest), NULL},
        };
        snprintf(p, sizeof p, "%s/img2.tar", dir);
        write_tar(p, img2, 4);
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DOCKER);
        static const char *const want2[] = {"/srv/kept", "/usr/bin/a"};
        CHECK_INT(pkgnote_scan_object_count(s), 2);
        for (size_t i = 0; i < 2 && i < pkgnote_scan_object_count(s); i++)
                CHECK_STR(pkgnote_scan_object_path(pkgnote_scan_object_get(s, i)), want2[i]);
        pkgnote_scan_free(s);
        snprintf(manifest, sizeof manifest, "[{\"Config\":\"c.json\",\"Layers\":[\"%s\",\"%s\",\"%s\"]}]", n1s,
                 n2s, n3s);
        const struct member img3[] = {
                img2[0], img2[1], img2[2], {"manifest.json", AE_IFREG, manifest, strlen(manifest), NULL},
        };
        write_tar(p, img3, 4);
        free(d1), free(d2), free(d3);
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DOCKER);
        CHECK_INT(pkgnote_scan_object_count(s), 1);
        if (pkgnote_scan_object_count(s) == 1)
                CHECK_STR(pkgnote_scan_object_path(pkgnote_scan_object_get(s, 0)), "/usr/bin/b");
        pkgnote_scan_get_stats(s, &st);
        CHECK_INT(st.whited_out, 3); /* usr/bin/a, the symlink opt/y and srv/kept (opt/y/deep went before) */
        pkgnote_scan_free(s);

        /* A manifest naming a missing layer fails the input. */
        snprintf(manifest, sizeof manifest, "[{\"Layers\":[\"%s\",\"33333333333333333333333333333333/layer.tar\"]}]", n1s);
        const struct member bad[] = {
                {n1s, AE_IFREG, elf_a, 0, NULL},
                {"manifest.json", AE_IFREG, manifest, strlen(manifest), NULL},
        };
        snprintf(p, sizeof p, "%s/bad.tar", dir);
        write_tar(p, bad, 2);
        CHECK_INT(pkgnote_scan_new(NULL, &s), 0);
        CHECK_INT(pkgnote_scan_add(s, p), -EBADMSG);
        pkgnote_scan_free(s);
}
#endif

/* Regression (UBSan, bsearch on a NULL array): a scan whose root resolves
 * no library name at all (a program needing libc.so.6 in a tree without
 * one) has an empty table of resolved names; asking it for a name must
 * not hand bsearch() a NULL base, which the sanitizer build reports. */
static void test_lib_object_empty_table(void) {
        char p[256];
        snprintf(p, sizeof p, "%s/nolibs", dir);
        CHECK_INT(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/nolibs/prog", dir);
        size_t len;
        uint8_t *bin = read_file("/bin/true", &len);
        CHECK(bin != NULL);
        if (!bin)
                return;
        write_file(p, bin, len);
        free(bin);
        pkgnote_scan_options o = {.threads = 1, .flags = PKGNOTE_SCAN_DEPENDENCIES};
        pkgnote_scan *s;
        CHECK_INT(pkgnote_scan_new(&o, &s), 0);
        snprintf(p, sizeof p, "%s/nolibs", dir);
        CHECK_INT(pkgnote_scan_add(s, p), PKGNOTE_SCAN_INPUT_DIRECTORY);
        CHECK_INT(pkgnote_scan_object_count(s), 1);
        const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, 0);
        CHECK(ob && ob->n_needed > 0);
        CHECK_INT(s->n_libpaths, 0);
        CHECK(pn_scan_lib_object(s, ob, NULL, false, "libc.so.6") == NULL);
        CHECK(pn_scan_lib_object(s, NULL, NULL, true, "libc.so.6") == NULL);
        pkgnote_scan_free(s);
}

/* The one directory walker (lib/01-base-dir.c): no "." or "..", a link's
 * own type (never its target's), the bound on entries, a listing that
 * starts over on a descriptor listed before, sorted names, and a
 * subdirectory opened only through no link and only if unchanged. */
static void test_dir_walker(void) {
        char top[400];
        snprintf(top, sizeof top, "%s/walker", dir);
        CHECK(mkdir(top, 0755) == 0);
        int dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(dfd >= 0);
        CHECK(mkdirat(dfd, "sub", 0755) == 0);
        CHECK(symlinkat("sub", dfd, "link") == 0);
        int f = openat(dfd, "b-file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        CHECK(f >= 0);
        close(f);
        for (int pass = 0; pass < 2; pass++) {
                struct pn_dir it;
                CHECK_INT(pn_dir_open(&it, dfd, NULL, PN_DIR_TYPES, 0), 0);
                struct pn_dirent e;
                int n = 0, seen = 0;
                while (pn_dir_next(&it, &e) > 0) {
                        n++;
                        if (!strcmp(e.name, "sub"))
                                seen |= (e.type == DT_DIR) << 0;
                        else if (!strcmp(e.name, "link"))
                                seen |= (e.type == DT_LNK) << 1;
                        else if (!strcmp(e.name, "b-file"))
                                seen |= (e.type == DT_REG) << 2;
                }
                pn_dir_close(&it);
                CHECK_INT(n, 3);
                CHECK_INT(seen, 7);
        }
        struct pn_dir it;
        struct pn_dirent e;
        CHECK_INT(pn_dir_open(&it, dfd, NULL, 0, 2), 0);
        CHECK_INT(pn_dir_next(&it, &e), 1);
        CHECK_INT(pn_dir_next(&it, &e), 1);
        CHECK_INT(pn_dir_next(&it, &e), -E2BIG);
        pn_dir_close(&it);
        CHECK(pn_dir_open(&it, dfd, "link", 0, 0) < 0); /* -ENOTDIR: O_DIRECTORY | O_NOFOLLOW */
        CHECK(pn_dir_open_sub(dfd, "link", NULL, NULL) < 0);
        struct stat st, other;
        CHECK(fstatat(dfd, "sub", &st, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK(fstatat(dfd, "b-file", &other, AT_SYMLINK_NOFOLLOW) == 0);
        int sub = pn_dir_open_sub(dfd, "sub", &st, NULL);
        CHECK(sub >= 0);
        if (sub >= 0)
                close(sub);
        CHECK_INT(pn_dir_open_sub(dfd, "sub", &other, NULL), -ESTALE);
        char **names;
        size_t nn;
        CHECK_INT(pn_dir_names(dfd, &names, &nn), 0);
        CHECK_INT(nn, 3);
        if (nn == 3) {
                CHECK_STR(names[0], "b-file");
                CHECK_STR(names[1], "link");
                CHECK_STR(names[2], "sub");
        }
        for (size_t i = 0; i < nn; i++)
                free(names[i]);
        free(names);
        close(dfd);
}

int main(void) {
        CHECK(mkdtemp(dir) != NULL);
        RUN(test_lib_object_empty_table);
        RUN(test_normalize);
        RUN(test_purl);
        RUN(test_tree);
        RUN(test_dir_walker);
#if HAVE_LIBARCHIVE
        RUN(test_archive);
#endif
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        return test_summary();
}
