/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests for lib/05-gen-emit.c and lib/03-model-osrelease.c. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkgnote.h"
#include "01-base-root.h"
#include "05-gen-emit.h"
#include "01-base.h"

static int failures, checks;

static void fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(const char *file, int line, const char *fmt, ...) {
        va_list ap;
        fprintf(stderr, "%s:%d: FAIL: ", file, line);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        failures++;
}

#define CHECK(cond)                                                                       \
        do {                                                                              \
                checks++;                                                                 \
                if (!(cond))                                                              \
                        fail(__FILE__, __LINE__, "%s (last error: %s)", #cond, pkgnote_last_error()); \
        } while (0)

#define CHECK_INT(a, b)                                                                   \
        do {                                                                              \
                long long _a = (long long)(a), _b = (long long)(b);                       \
                checks++;                                                                 \
                if (_a != _b)                                                             \
                        fail(__FILE__, __LINE__, "%s == %s: got %lld, want %lld (last error: %s)", #a, #b, \
                             _a, _b, pkgnote_last_error());                               \
        } while (0)

#define CHECK_STR(a, b)                                                                   \
        do {                                                                              \
                const char *_a = (a), *_b = (b);                                          \
                checks++;                                                                 \
                if (!_a || !_b ? _a != _b : strcmp(_a, _b) != 0)                          \
                        fail(__FILE__, __LINE__, "%s == %s: got \"%s\", want \"%s\"", #a, #b, \
                             _a ? _a : "(null)", _b ? _b : "(null)");                     \
        } while (0)

/* ------------------------------------------------------------------ */

static pkgnote_os_release *osr(const char *text) {
        pkgnote_os_release *o = NULL;
        int r = pkgnote_os_release_parse(text, strlen(text), &o);
        CHECK_INT(r, 0);
        return o;
}

static void test_os_release_quoting(void) {
        pkgnote_os_release *o = osr(
                "# comment line\n"
                "\n"
                "   \t\n"
                "ID=fedora\n"
                "VERSION_ID=\"40\"\n"
                "NAME='Fedora Linux'\n"
                "PRETTY=\"a \\\"quoted\\\" \\$HOME \\\\ \\` x\"\n"
                "KEEP=\"back\\slash \\n stays\"\n"
                "SINGLE='no \\\"escapes\\\" $HOME'\n"
                "UNQ=plain\\ word\n"
                "JOIN=\"a\"'b'c\n"
                "  INDENTED=yes   # trailing comment\n"
                "HASH=a#b\n"
                "EMPTY=\n"
                "EMPTYQ=\"\"\n"
                "UTF8=\"Ωμέγα 漢字 🎉\"\n"
                "MULTI=\"line1\\\nline2\"\n"
                "ID=override\n"
                "CRLF=\"v\"\r\n"
                "NOEQ\n"
                "A B=c\n"
                "SPACE = x\n"
                "CMD=$(rm -rf /)\n"
                "TRAIL=\"x\" junk\n"
                "OPEN=\"unterminated\n"
                "AFTER=ok\n");
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "override");
        CHECK_STR(pkgnote_os_release_get(o, "VERSION_ID"), "40");
        CHECK_STR(pkgnote_os_release_get(o, "NAME"), "Fedora Linux");
        CHECK_STR(pkgnote_os_release_get(o, "PRETTY"), "a \"quoted\" $HOME \\ ` x");
        CHECK_STR(pkgnote_os_release_get(o, "KEEP"), "back\\slash \\n stays");
        CHECK_STR(pkgnote_os_release_get(o, "SINGLE"), "no \\\"escapes\\\" $HOME");
        CHECK_STR(pkgnote_os_release_get(o, "UNQ"), "plain word");
        CHECK_STR(pkgnote_os_release_get(o, "JOIN"), "abc");
        CHECK_STR(pkgnote_os_release_get(o, "INDENTED"), "yes");
        CHECK_STR(pkgnote_os_release_get(o, "HASH"), "a#b");
        CHECK_STR(pkgnote_os_release_get(o, "EMPTY"), "");
        CHECK_STR(pkgnote_os_release_get(o, "EMPTYQ"), "");
        CHECK_STR(pkgnote_os_release_get(o, "UTF8"), "Ωμέγα 漢字 🎉");
        CHECK_STR(pkgnote_os_release_get(o, "MULTI"), "line1line2");
        CHECK_STR(pkgnote_os_release_get(o, "CRLF"), "v");
        CHECK_STR(pkgnote_os_release_get(o, "SPACE"), NULL);
        CHECK_STR(pkgnote_os_release_get(o, "CMD"), NULL);
        CHECK_STR(pkgnote_os_release_get(o, "TRAIL"), NULL);
        CHECK_STR(pkgnote_os_release_get(o, "OPEN"), NULL);
        CHECK_STR(pkgnote_os_release_get(o, "AFTER"), "ok");
        CHECK_STR(pkgnote_os_release_get(o, "NOPE"), NULL);
        /* NOEQ, "A B=c", SPACE, CMD, TRAIL, OPEN */
        CHECK_INT(pkgnote_os_release_problem_count(o), 6);
        CHECK_STR(pkgnote_os_release_path(o), NULL);
        pkgnote_os_release_free(o);

        o = osr("");
        CHECK_STR(pkgnote_os_release_get(o, "ID"), NULL);
        pkgnote_os_release_free(o);
        o = osr("ID=x"); /* no final newline */
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "x");
        pkgnote_os_release_free(o);
        o = osr("ID=\"x\\"); /* backslash at the very end, quote open */
        CHECK_STR(pkgnote_os_release_get(o, "ID"), NULL);
        pkgnote_os_release_free(o);
        pkgnote_os_release_free(NULL);

        /* Every prefix of a tricky file parses without crashing. */
        static const char tricky[] = "A=\"x\\\"y\" B='z' C=d\\\ne\n#c\nD=\"\\\\\"\n";
        for (size_t n = 0; n <= sizeof tricky - 1; n++) {
                pkgnote_os_release *p = NULL;
                CHECK_INT(pkgnote_os_release_parse(tricky, n, &p), 0);
                pkgnote_os_release_free(p);
        }
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}


/* Renames a file of DIR back and forth until told to stop: each rename
 * moves the machine's rename sequence counter. */
struct renamer {
        const char *dir;
        atomic_bool stop;
        long renames;
};
static void *rename_loop(void *u) {
        struct renamer *rn = u;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/ra", rn->dir);
        snprintf(b, sizeof b, "%s/rb", rn->dir);
        int fd = open(a, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0)
                close(fd);
        while (!atomic_load(&rn->stop)) {
                if (rename(a, b) == 0 && rename(b, a) == 0)
                        rn->renames += 2;
        }
        unlink(a);
        unlink(b);
        return NULL;
}

static void test_os_release_root(void) {
        char root[] = "/tmp/test-emit-root.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char p[512], q[512];
        pkgnote_os_release *o = NULL;

        /* Neither file: -ENOENT. */
        CHECK_INT(pkgnote_os_release_read(root, &o), -ENOENT);

        snprintf(p, sizeof p, "%s/usr", root);
        CHECK_INT(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/usr/lib", root);
        CHECK_INT(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/etc", root);
        CHECK_INT(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/usr/lib/os-release", root);
        write_text(p, "ID=inroot\nVERSION_ID=\"1.0\"\n");

        /* Fallback to usr/lib. */
        CHECK_INT(pkgnote_os_release_read(root, &o), 0);
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "inroot");
        snprintf(q, sizeof q, "%s/usr/lib/os-release", root);
        CHECK_STR(pkgnote_os_release_path(o), q);
        pkgnote_os_release_free(o);

        /* An absolute symlink resolves inside the root, not on the host. */
        snprintf(p, sizeof p, "%s/etc/os-release", root);
        CHECK_INT(symlink("/usr/lib/os-release", p), 0);
        CHECK_INT(pkgnote_os_release_read(root, &o), 0);
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "inroot");
        snprintf(q, sizeof q, "%s/etc/os-release", root);
        CHECK_STR(pkgnote_os_release_path(o), q);
        pkgnote_os_release_free(o);

        /* A relative one climbing above the root stays inside it too. */
        unlink(p);
        CHECK_INT(symlink("../../../../../../usr/lib/os-release", p), 0);
        CHECK_INT(pkgnote_os_release_read(root, &o), 0);
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "inroot");
        pkgnote_os_release_free(o);

        /* etc wins over usr/lib. */
        unlink(p);
        write_text(p, "ID=etc\n");
        CHECK_INT(pkgnote_os_release_read(root, &o), 0);
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "etc");
        pkgnote_os_release_free(o);

        /* A symlink loop is an error, not a hang. */
        unlink(p);
        CHECK_INT(symlink("os-release", p), 0);
        CHECK_INT(pkgnote_os_release_read(root, &o), -ELOOP);
        unlink(p);

        /* os_release_fifo_in_root: a FIFO as etc/os-release, directly or
         * behind a link, is refused, not opened: opening it blocked until
         * a writer came (SIGALRM ends the test if it hangs). */
        CHECK_INT(mkfifo(p, 0644), 0);
        alarm(20);
        CHECK_INT(pkgnote_os_release_read(root, &o), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "not a regular file") != NULL);
        unlink(p);
        snprintf(q, sizeof q, "%s/etc/fifo", root);
        CHECK_INT(mkfifo(q, 0644), 0);
        CHECK_INT(symlink("/etc/fifo", p), 0);
        CHECK_INT(pkgnote_os_release_read(root, &o), -EINVAL);
        alarm(0);
        unlink(p);
        unlink(q);

        /* os_release_root_under_renames: renames elsewhere on the machine
         * make openat2() give up a ".." it walks with EAGAIN, which asks
         * for a retry, never an error: the read of a link climbing out
         * of etc/ succeeds every time while another thread renames. */
        CHECK_INT(symlink("../usr/lib/os-release", p), 0);
        {
                struct renamer rn = {.dir = root};
                pthread_t th;
                CHECK_INT(pthread_create(&th, NULL, rename_loop, &rn), 0);
                int failed = 0, first = 0;
                for (int i = 0; i < 20000; i++) {
                        int r = pkgnote_os_release_read(root, &o);
                        if (r < 0) {
                                failed++;
                                first = first ? first : r;
                        } else
                                pkgnote_os_release_free(o);
                }
                atomic_store(&rn.stop, true);
                pthread_join(th, NULL);
                if (failed)
                        fprintf(stderr, "%d of 20000 reads failed, the first with %s\n", failed, strerror(-first));
                CHECK_INT(failed, 0);
                CHECK(rn.renames > 0);
        }
        unlink(p);

        /* A link through a directory that is itself a link, and ".."
         * out of it, both resolved inside the root. */
        snprintf(q, sizeof q, "%s/etc/lib", root);
        CHECK_INT(symlink("../usr/lib", q), 0);
        CHECK_INT(symlink("lib/../lib/os-release", p), 0);
        CHECK_INT(pkgnote_os_release_read(root, &o), 0);
        CHECK_STR(pkgnote_os_release_get(o, "ID"), "inroot");
        pkgnote_os_release_free(o);
        unlink(p);
        unlink(q);

        snprintf(p, sizeof p, "%s/usr/lib/os-release", root);
        unlink(p);
        snprintf(p, sizeof p, "%s/usr/lib", root);
        rmdir(p);
        snprintf(p, sizeof p, "%s/usr", root);
        rmdir(p);
        snprintf(p, sizeof p, "%s/etc", root);
        rmdir(p);
        rmdir(root);

        CHECK(pkgnote_os_release_read("/nonexistent/root/dir", &o) < 0);
}

/* ------------------------------------------------------------------ */

static void check_nevra(const char *s, const char *name, const char *epoch, const char *version,
                        const char *release, const char *arch) {
        pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
        int r = pkgnote_nevra_parse(s, &n);
        CHECK_INT(r, 0);
        if (r < 0)
                return;
        CHECK_STR(n.name, name);
        CHECK_STR(n.epoch, epoch);
        CHECK_STR(n.version, version);
        CHECK_STR(n.release, release);
        CHECK_STR(n.arch, arch);
        pkgnote_nevra_clear(&n);
        CHECK(n.buffer_ == NULL);
}

/* Growable structs at 1.0: an option struct's size 0 stands for all the
 * fields of 1.0; a size below 1.0's is refused (never half a field); a
 * NEVRA keeps its size when cleared, so it can be parsed into again. */
static void test_sizes_of_1_0(void) {
        struct opts {
                size_t size;
                const char *a;
                unsigned b;
        } in = {.size = 0, .a = "x", .b = 7}, out;
        CHECK_INT(pn_options_read(&out, sizeof out, &in, PN_END(struct opts, b), "test"), 0);
        CHECK(out.a == in.a && out.b == 7 && out.size == sizeof out);
        in.size = offsetof(struct opts, a) + 4; /* half of the pointer */
        CHECK_INT(pn_options_read(&out, sizeof out, &in, PN_END(struct opts, b), "test"), -EINVAL);
        in.size = sizeof in;
        CHECK_INT(pn_struct_read(&out, sizeof out, &in, PN_END(struct opts, b), "test"), 0);
        in.size = sizeof(size_t) + 4;
        CHECK_INT(pn_struct_read(&out, sizeof out, &in, PN_END(struct opts, b), "test"), -EINVAL);
        pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
        CHECK_INT(pkgnote_nevra_parse("foo-1.2-3.fc40.x86_64", &n), 0);
        pkgnote_nevra_clear(&n);
        CHECK_INT(n.size, sizeof n);
        CHECK(n.name == NULL && n.buffer_ == NULL);
        CHECK_INT(pkgnote_nevra_parse("bar-1-1.noarch", &n), 0);
        CHECK_STR(n.name, "bar");
        pkgnote_nevra_clear(&n);
        pkgnote_nevra small = {.size = offsetof(pkgnote_nevra, buffer_)};
        CHECK_INT(pkgnote_nevra_parse("bar-1-1.noarch", &small), -EINVAL);
        CHECK(small.name == NULL);
}

static void test_nevra(void) {
        check_nevra("foo-1.2-3.fc40.x86_64", "foo", NULL, "1.2", "3.fc40", "x86_64");
        check_nevra("foo-2:1.2-3.fc40.x86_64", "foo", "2", "1.2", "3.fc40", "x86_64");
        check_nevra("2:foo-1.2-3.fc40.x86_64", "foo", "2", "1.2", "3.fc40", "x86_64");
        check_nevra("python3-foo-bar-0.9.1-0.rc1.el9.noarch", "python3-foo-bar", NULL, "0.9.1", "0.rc1.el9",
                    "noarch");
        check_nevra("glibc-2.39-17.fc40.i686", "glibc", NULL, "2.39", "17.fc40", "i686");
        check_nevra("kernel-6.8.5-301.fc40.src", "kernel", NULL, "6.8.5", "301.fc40", "src");
        check_nevra("perl-4:5.38.2-506.fc40.aarch64", "perl", "4", "5.38.2", "506.fc40", "aarch64");
        check_nevra("x-1-1.s390x", "x", NULL, "1", "1", "s390x");

        static const char *const bad[] = {
                "foo-1.2-3.fc40",          /* no architecture: fc40 is a dist tag */
                "foo-1.2.x86_64",          /* no release */
                "foo.x86_64",              /* nothing */
                "-1.2-3.x86_64",           /* no name */
                "foo-a:1.2-3.x86_64",      /* epoch not a number */
                "foo-2:-3.x86_64",         /* empty version */
                "1:foo-2:1.2-3.x86_64",    /* two epochs */
                "foo-1.2-3.",              /* empty arch */
                "",
                "foo-1\t.2-3.x86_64",      /* control character */
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
                int r = pkgnote_nevra_parse(bad[i], &n);
                checks++;
                if (r != -EINVAL)
                        fail(__FILE__, __LINE__, "nevra \"%s\": got %d, want -EINVAL", bad[i], r);
                CHECK(n.buffer_ == NULL);
        }
        pkgnote_nevra_clear(NULL);
}

/* ------------------------------------------------------------------ */

static void check_target(const char *spec, const char *name, int cls, int be, unsigned machine, uint32_t flags) {
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        int r = pkgnote_target_parse(spec, &t);
        checks++;
        if (r < 0) {
                fail(__FILE__, __LINE__, "target \"%s\": %s", spec, pkgnote_last_error());
                return;
        }
        CHECK_STR(t.name, name);
        CHECK_INT(t.elf_class, cls);
        CHECK_INT(t.big_endian, be);
        CHECK_INT(t.machine, machine);
        CHECK_INT(t.flags, flags);
}

static void test_targets(void) {
        check_target("x86_64", "x86_64", 64, 0, 62, 0);
        check_target("amd64", "x86_64", 64, 0, 62, 0);
        check_target("x86_64-linux-gnu", "x86_64", 64, 0, 62, 0);
        check_target("x86_64-pc-linux-gnu", "x86_64", 64, 0, 62, 0);
        check_target("i686", "i386", 32, 0, 3, 0);
        check_target("i686-linux-gnu", "i386", 32, 0, 3, 0);
        check_target("i386", "i386", 32, 0, 3, 0);
        check_target("aarch64", "aarch64", 64, 0, 183, 0);
        check_target("arm64", "aarch64", 64, 0, 183, 0);
        check_target("aarch64-linux-gnu", "aarch64", 64, 0, 183, 0);
        check_target("aarch64_be-linux-gnu", "aarch64_be", 64, 1, 183, 0);
        check_target("s390x", "s390x", 64, 1, 22, 0);
        check_target("s390x-linux-gnu", "s390x", 64, 1, 22, 0);
        check_target("S390X-IBM-LINUX-GNU", "s390x", 64, 1, 22, 0);
        check_target("elf64-s390", "s390x", 64, 1, 22, 0);
        check_target("elf64-x86-64", "x86_64", 64, 0, 62, 0);
        check_target("ppc64le", "ppc64le", 64, 0, 21, 2);
        check_target("powerpc64le-linux-gnu", "ppc64le", 64, 0, 21, 2);
        check_target("ppc64el", "ppc64le", 64, 0, 21, 2);
        check_target("riscv64-linux-gnu", "riscv64", 64, 0, 243, 4);
        check_target("arm-linux-gnueabihf", "armhf", 32, 0, 40, 0x05000400);
        check_target("arm-linux-gnueabi", "armel", 32, 0, 40, 0x05000200);
        check_target("armhf", "armhf", 32, 0, 40, 0x05000400);
        check_target("loongarch64-linux-gnu", "loongarch64", 64, 0, 258, 0x43);
        check_target("ELF32LE", "ELF32LE", 32, 0, 0, 0);
        check_target("elf32be", "ELF32BE", 32, 1, 0, 0);
        check_target("ELF64LE", "ELF64LE", 64, 0, 0, 0);
        check_target("ELF64BE", "ELF64BE", 64, 1, 0, 0);

        static const char *const bad[] = {"", "vax", "x86_65", "elf65-big", "-linux-gnu", "mips-linux-gnu"};
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                pkgnote_target t = PKGNOTE_TARGET_INIT;
                int r = pkgnote_target_parse(bad[i], &t);
                checks++;
                if (r != -EINVAL)
                        fail(__FILE__, __LINE__, "target \"%s\": got %d, want -EINVAL", bad[i], r);
        }
        CHECK(pkgnote_target_parse(NULL, &(pkgnote_target){0}) == -EINVAL);

        pkgnote_target host = PKGNOTE_TARGET_INIT;
        pkgnote_target_host(&host);
        CHECK(host.name != NULL);
        CHECK(host.elf_class == (int)(8 * sizeof(void *)) || host.elf_class == 32);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        CHECK_INT(host.big_endian, 1);
#else
        CHECK_INT(host.big_endian, 0);
#endif
}

/* ------------------------------------------------------------------ */

static const char *const test_json[] = {
        "{}",
        "{\"type\":\"deb\",\"name\":\"x\"}",
        ("{\"type\":\"rpm\",\"os\":\"fedora\",\"osVersion\":\"40\",\"name\":\"coreutils\",\"version\":\"9.4-7.fc40\","
         "\"architecture\":\"x86_64\",\"osCpe\":\"cpe:2.3:o:fedoraproject:fedora:40\"}"),
        "{\"name\":\"Ωμέγα 漢字 🎉\",\"q\":\"\\\"\\\\ '*/\",\"n\":[1,{\"a\":null}]}",
        "{\"a\":\"123\"}", /* JSON + NUL is 12 bytes: no padding */
};

/* Parses an emitted object back and checks its one package note. */
static void check_object(const char *target_name, const uint8_t *obj, size_t len, const char *json,
                         const pkgnote_target *t) {
        pkgnote_object *e;
        int r = pkgnote_object_from_memory(obj, len, &e);
        checks++;
        if (r < 0) {
                fail(__FILE__, __LINE__, "%s: object does not parse: %s", target_name, pkgnote_last_error());
                return;
        }
        CHECK_INT(pkgnote_object_class(e), t->elf_class);
        CHECK_INT(pkgnote_object_big_endian(e), t->big_endian);
        CHECK_INT(pkgnote_object_machine(e), t->machine);
        CHECK_INT(pkgnote_object_type(e), 1);
        CHECK_INT(pkgnote_object_size(e), len);
        CHECK_INT(pkgnote_object_problem_count(e), 0);

        /* x86 and aarch64 objects carry the AND-neutral GNU property note:
         * NT_GNU_PROPERTY_TYPE_0, one FEATURE_1_AND property claiming every
         * bit binutils defines, padded to the ELF class's word. */
        bool want_prop = t->machine == 62 || t->machine == 3 || t->machine == 183;
        uint32_t prop_type = t->machine == 183 ? 0xc0000000u : 0xc0000002u;
        uint32_t prop_bits = t->machine == 183 ? 0x7u : 0xfu;
        size_t word = t->elf_class == 64 ? 8 : 4;
        int ns = pkgnote_object_shdr_count(e);
        CHECK_INT(ns, want_prop ? 8 : 7);
        bool stack = false, note = false, prop = false, group = false;
        for (int i = 0; i < ns; i++) {
                if (!strcmp(pkgnote_object_shdr(e, (size_t)i)->name, ".note.gnu.property")) {
                        prop = true;
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->type, 7);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->flags, 2);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->align, word);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->offset % word, 0);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->size, 16 + (word == 8 ? 16 : 12));
                        const uint8_t *p = obj + pkgnote_object_shdr(e, (size_t)i)->offset;
                        bool be = t->big_endian;
                        uint32_t w[7];
                        for (int k = 0; k < 7; k++)
                                w[k] = be ? (uint32_t)p[4 * k] << 24 | (uint32_t)p[4 * k + 1] << 16 |
                                                    (uint32_t)p[4 * k + 2] << 8 | p[4 * k + 3]
                                          : (uint32_t)p[4 * k + 3] << 24 | (uint32_t)p[4 * k + 2] << 16 |
                                                    (uint32_t)p[4 * k + 1] << 8 | p[4 * k];
                        CHECK_INT(w[0], 4);
                        CHECK_INT(w[1], word == 8 ? 16 : 12);
                        CHECK_INT(w[2], 5);
                        CHECK(!memcmp(p + 12, "GNU", 4));
                        CHECK_INT(w[4], prop_type);
                        CHECK_INT(w[5], 4);
                        CHECK_INT(w[6], prop_bits);
                        if (word == 8)
                                CHECK(!memcmp(p + 28, "\0\0\0\0", 4));
                }
                if (!strcmp(pkgnote_object_shdr(e, (size_t)i)->name, ".note.GNU-stack")) {
                        stack = true;
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->size, 0);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->flags, 0);
                }
                if (!strcmp(pkgnote_object_shdr(e, (size_t)i)->name, ".note.package")) {
                        note = true;
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->type, 7);
                        /* SHF_ALLOC | SHF_GROUP | SHF_GNU_RETAIN */
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->flags, 0x200202);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->align, 4);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->offset % 4, 0);
                }
                if (!strcmp(pkgnote_object_shdr(e, (size_t)i)->name, ".group")) {
                        /* A COMDAT group (GRP_COMDAT, then the member's index)
                         * ahead of its one member, the package note. */
                        group = true;
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->type, 17);
                        CHECK_INT(pkgnote_object_shdr(e, (size_t)i)->size, 8);
                        bool be = t->big_endian;
                        const uint8_t *g = obj + pkgnote_object_shdr(e, (size_t)i)->offset;
                        uint32_t flag = be ? (uint32_t)g[3] | (uint32_t)g[2] << 8 : (uint32_t)g[0] | (uint32_t)g[1] << 8;
                        uint32_t member = be ? (uint32_t)g[7] | (uint32_t)g[6] << 8 : (uint32_t)g[4] | (uint32_t)g[5] << 8;
                        CHECK_INT(flag, 1);
                        CHECK((int)member > i && (int)member < ns && !strcmp(pkgnote_object_shdr(e, member)->name, ".note.package"));
                }
        }
        CHECK(stack);
        CHECK(note);
        CHECK(group);
        CHECK(prop == want_prop);

        int nn = pkgnote_object_note_count(e);
        CHECK_INT(nn, want_prop ? 2 : 1);
        if (nn >= 1) {
                CHECK(pkgnote_note_is(pkgnote_object_note(e, (size_t)0), PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA));
                CHECK_STR(pkgnote_object_note(e, (size_t)0)->section, ".note.package");
                const char *j;
                size_t jl;
                CHECK_INT(pkgnote_note_json(pkgnote_object_note(e, (size_t)0), &j, &jl), 0);
                CHECK_INT(jl, strlen(json));
                CHECK(jl == strlen(json) && !memcmp(j, json, jl));
                /* descsz is the padded size, as ld.bfd writes it. */
                CHECK_INT(pkgnote_object_note(e, (size_t)0)->descsz, (strlen(json) + 1 + 3) / 4 * 4);

                /* Byte-identical to the raw note of the same byte order. */
                uint8_t *raw;
                size_t raw_len;
                CHECK_INT(pkgnote_package_note_encode(json, t->big_endian, &raw, &raw_len), 0);
                CHECK_INT(pkgnote_object_note(e, (size_t)0)->size, raw_len);
                CHECK(pkgnote_object_note(e, (size_t)0)->offset + raw_len <= len && !memcmp(obj + pkgnote_object_note(e, (size_t)0)->offset, raw, raw_len));
                free(raw);
        }
        pkgnote_object_free(e);

        /* Every truncated prefix: an error or fewer notes, never a crash
         * (run under ASan/valgrind to make "never" strict). */
        for (size_t cut = 0; cut < len; cut++) {
                uint8_t *copy = malloc(cut ? cut : 1);
                memcpy(copy, obj, cut);
                pkgnote_object *p;
                if (pkgnote_object_from_memory(copy, cut, &p) >= 0) {
                        int c = pkgnote_object_note_count(p);
                        checks++;
                        if (c >= 1)
                                fail(__FILE__, __LINE__, "%s: prefix of %zu/%zu bytes still has %d note(s)",
                                     target_name, cut, len, c);
                        pkgnote_object_free(p);
                }
                free(copy);
        }
}

static void test_objects(void) {
        static const char *const target_names[] = {
                "x86_64", "i686", "aarch64", "aarch64_be", "armhf", "armel", "s390x",
                "ppc64le", "ppc64", "ppc", "riscv64", "loongarch64",
        };
        for (size_t ti = 0; ti < sizeof target_names / sizeof *target_names; ti++) {
                pkgnote_target t = PKGNOTE_TARGET_INIT;
                CHECK_INT(pkgnote_target_parse(target_names[ti], &t), 0);
                for (size_t ji = 0; ji < sizeof test_json / sizeof *test_json; ji++) {
                        uint8_t *obj;
                        size_t len;
                        int r = pkgnote_emit_object(test_json[ji], &t, &obj, &len);
                        CHECK_INT(r, 0);
                        if (r < 0)
                                continue;
                        /* e_flags as the linkers want them. */
                        uint32_t flags = t.big_endian
                                ? (uint32_t)obj[t.elf_class == 64 ? 48 : 36] << 24 |
                                          (uint32_t)obj[t.elf_class == 64 ? 49 : 37] << 16 |
                                          (uint32_t)obj[t.elf_class == 64 ? 50 : 38] << 8 |
                                          obj[t.elf_class == 64 ? 51 : 39]
                                : (uint32_t)obj[t.elf_class == 64 ? 51 : 39] << 24 |
                                          (uint32_t)obj[t.elf_class == 64 ? 50 : 38] << 16 |
                                          (uint32_t)obj[t.elf_class == 64 ? 49 : 37] << 8 |
                                          obj[t.elf_class == 64 ? 48 : 36];
                        CHECK_INT(flags, t.flags);
                        check_object(target_names[ti], obj, len, test_json[ji], &t);
                        free(obj);
                }
        }

        /* No machine, no object. */
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        uint8_t *obj = NULL;
        size_t len;
        CHECK_INT(pkgnote_target_parse("ELF64BE", &t), 0);
        CHECK_INT(pkgnote_emit_object("{}", &t, &obj, &len), -EINVAL);
        CHECK(obj == NULL);
}

static void test_invalid_json(void) {
        static const char *const bad[] = {
                "", "[]", "{", "\"x\"", "{\"a\":1,\"a\":2}", "{\"a\":\"b\tc\"}", "{\"a\":\"\\u0001\"}",
        };
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        pkgnote_target_host(&t);
        if (t.machine == 0)
                CHECK_INT(pkgnote_target_parse("x86_64", &t), 0);
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                uint8_t *obj;
                size_t len;
                char *s;
                int r;
                checks += 4;
                if ((r = pkgnote_emit_object(bad[i], &t, &obj, &len)) != -EINVAL)
                        fail(__FILE__, __LINE__, "object of '%s': %d", bad[i], r);
                if ((r = pkgnote_emit_asm(bad[i], &s)) != -EINVAL)
                        fail(__FILE__, __LINE__, "asm of '%s': %d", bad[i], r);
                if ((r = pkgnote_emit_linker_script(bad[i], &s)) != -EINVAL)
                        fail(__FILE__, __LINE__, "linker script of '%s': %d", bad[i], r);
                if ((r = pkgnote_ldflags_package_metadata(bad[i], PKGNOTE_LDFLAGS_SHELL, &s)) != -EINVAL)
                        fail(__FILE__, __LINE__, "ldflags of '%s': %d", bad[i], r);
        }
}

static void test_text_forms(void) {
        char *s;
        const char *json = "{\"name\":\"a*/b\"}";
        CHECK_INT(pkgnote_emit_asm(json, &s), 0);
        /* A COMDAT group named after the note's SHA-256. */
        CHECK(strstr(s, ".section .note.package,\"aGR\",%note,pkgnote.note.") != NULL);
        CHECK(strstr(s, ",comdat\n") != NULL);
        CHECK(strstr(s, ".section .note.GNU-stack,\"\",%progbits\n") != NULL);
        CHECK(strstr(s, ".long 0xcafe1a7e") != NULL);
        CHECK(strstr(s, ".long 16\t") != NULL); /* 15 bytes + NUL */
        CHECK(strstr(s, "*\\/b") != NULL);      /* the comment cannot end early */
        CHECK(strstr(s, "a*/b") == NULL);
        free(s);

        /* The GNU property note follows the target, not this machine. */
        static const struct {
                const char *target, *has, *lacks;
        } prop[] = {
                {"x86_64", "\t.balign 8\n\t.long 0x4\n\t.long 0x10\n\t.long 0x5\n", ".long 0xc0000000"},
                {"i686", "\t.balign 4\n\t.long 0x4\n\t.long 0xc\n\t.long 0x5\n", ".long 0xc0000000"},
                {"x32", "\t.long 0xc0000002\n\t.long 0x4\n\t.long 0xf\n", "0x10\n"},
                {"aarch64", "\t.long 0xc0000000\n\t.long 0x4\n\t.long 0x7\n", ".long 0xc0000002"},
                {"s390x", ".note.GNU-stack", ".note.gnu.property"},
                {"ELF64LE", ".note.GNU-stack", ".note.gnu.property"},
        };
        for (size_t i = 0; i < sizeof prop / sizeof *prop; i++) {
                pkgnote_target t = PKGNOTE_TARGET_INIT;
                CHECK_INT(pkgnote_target_parse(prop[i].target, &t), 0);
                CHECK_INT(pkgnote_emit_asm_target(json, &t, &s), 0);
                checks += 2;
                if (!strstr(s, prop[i].has))
                        fail(__FILE__, __LINE__, "asm for %s lacks '%s'", prop[i].target, prop[i].has);
                if (strstr(s, prop[i].lacks))
                        fail(__FILE__, __LINE__, "asm for %s has '%s'", prop[i].target, prop[i].lacks);
                free(s);
        }

        CHECK_INT(pkgnote_emit_linker_script(json, &s), 0);
        CHECK(strstr(s, ".note.package (TYPE = SHT_NOTE) : ALIGN(4)") != NULL);
        CHECK(strstr(s, "LONG(0x00000010) /* descsz */") != NULL);
        CHECK(strstr(s, "INSERT AFTER .note.gnu.build-id;") != NULL);
        CHECK(strstr(s, "a*/b") == NULL);
        free(s);
}

static void check_linker(const char *out, int kind, unsigned major, unsigned minor, int has) {
        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        int r = pkgnote_linker_identify(out, strlen(out), &l);
        checks++;
        if (r < 0) {
                fail(__FILE__, __LINE__, "linker \"%s\": %s", out, pkgnote_last_error());
                return;
        }
        CHECK_INT(l.kind, kind);
        CHECK_INT(l.major, major);
        CHECK_INT(l.minor, minor);
        CHECK_INT(pkgnote_linker_has_package_metadata(&l), has);
}

static void test_linkers(void) {
        check_linker("GNU ld (GNU Binutils for Debian) 2.40\nCopyright (C) 2023\n", PKGNOTE_LINKER_BFD, 2, 40, 1);
        check_linker("GNU ld (GNU Binutils for Ubuntu) 2.38\n", PKGNOTE_LINKER_BFD, 2, 38, 0);
        check_linker("GNU ld version 2.41-37.fc40\n", PKGNOTE_LINKER_BFD, 2, 41, 1);
        check_linker("GNU ld (GNU Binutils) 2.39.50.20221125\n", PKGNOTE_LINKER_BFD, 2, 39, 1);
        check_linker("GNU gold (GNU Binutils for Debian 2.40) 1.16\n", PKGNOTE_LINKER_GOLD, 2, 40, 1);
        check_linker("GNU gold (version 2.37-36.fc36) 1.16\n", PKGNOTE_LINKER_GOLD, 2, 37, 0);
        check_linker("Debian LLD 16.0.6 (compatible with GNU linkers)\n", PKGNOTE_LINKER_LLD, 16, 0, 1);
        check_linker("Debian LLD 14.0.6 (compatible with GNU linkers)\n", PKGNOTE_LINKER_LLD, 14, 0, 0);
        check_linker("LLD 15.0.0 (compatible with GNU linkers)", PKGNOTE_LINKER_LLD, 15, 0, 1);
        check_linker("mold 1.10.1 (compatible with GNU ld)\n", PKGNOTE_LINKER_MOLD, 1, 10, 1);
        check_linker("mold 1.2.1 (compatible with GNU ld)\n", PKGNOTE_LINKER_MOLD, 1, 2, 0);
        check_linker("mold 2.4.0 (9b5e8e8; compatible with GNU ld)\n", PKGNOTE_LINKER_MOLD, 2, 4, 1);

        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        CHECK_INT(pkgnote_linker_identify("Apple ld64\n", 11, &l), -EINVAL);
        CHECK_INT(pkgnote_linker_identify("", 0, &l), -EINVAL);
        CHECK_INT(pkgnote_linker_kind_from_name("bfd"), PKGNOTE_LINKER_BFD);
        CHECK_INT(pkgnote_linker_kind_from_name("ld"), PKGNOTE_LINKER_BFD);
        CHECK_INT(pkgnote_linker_kind_from_name("gold"), PKGNOTE_LINKER_GOLD);
        CHECK_INT(pkgnote_linker_kind_from_name("lld"), PKGNOTE_LINKER_LLD);
        CHECK_INT(pkgnote_linker_kind_from_name("mold"), PKGNOTE_LINKER_MOLD);
        CHECK_INT(pkgnote_linker_kind_from_name("ld64"), PKGNOTE_LINKER_UNKNOWN);
        CHECK_STR(pkgnote_linker_kind_name(PKGNOTE_LINKER_LLD), "lld");
        CHECK_STR(pkgnote_linker_kind_name(42), NULL);
}

static void check_quote(const char *arg, int style, const char *want) {
        char *s;
        int r = pkgnote_ldflags_quote(arg, style, &s);
        CHECK_INT(r, 0);
        if (r >= 0) {
                CHECK_STR(s, want);
                free(s);
        }
}

static void test_ldflags(void) {
        check_quote("plain", PKGNOTE_LDFLAGS_SHELL, "plain");
        check_quote("-Wl,-dT,/tmp/a.ld", PKGNOTE_LDFLAGS_SHELL, "-Wl,-dT,/tmp/a.ld");
        check_quote("", PKGNOTE_LDFLAGS_SHELL, "''");
        check_quote("a b", PKGNOTE_LDFLAGS_SHELL, "'a b'");
        check_quote("O'Brien", PKGNOTE_LDFLAGS_SHELL, "'O'\\''Brien'");
        check_quote("$x #y", PKGNOTE_LDFLAGS_SHELL, "'$x #y'");
        check_quote("$x #y", PKGNOTE_LDFLAGS_MAKE, "'$$x \\#y'");
        char *s;
        CHECK_INT(pkgnote_ldflags_quote("x", 7, &s), -EINVAL);

        CHECK_INT(pkgnote_ldflags_package_metadata("{\"type\":\"deb\",\"name\":\"a b\"}", PKGNOTE_LDFLAGS_SHELL, &s), 0);
        CHECK_STR(s, "-Xlinker '--package-metadata={\"type\":\"deb\",\"name\":\"a b\"}'");
        free(s);
        CHECK_INT(pkgnote_ldflags_package_metadata("{\"v\":\"$1\"}", PKGNOTE_LDFLAGS_MAKE, &s), 0);
        CHECK_STR(s, "-Xlinker '--package-metadata={\"v\":\"$$1\"}'");
        free(s);
}

/* ------------------------------------------------------------------ */
/* Percent-encoding, checked against each linker's own decoding rules  */

static int hexval(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* ld.bfd >= 2.44 (ld/lexsup.c): %XX, %[name] for a few names, and any
 * other '%' kept as it is. */
static char *decode_bfd(const char *s) {
        static const struct {
                const char *name;
                char c;
        } names[] = {{"comma", ','}, {"lbrace", '{'}, {"rbrace", '}'}, {"quot", '"'}, {"space", ' '}};
        char *out = malloc(strlen(s) + 1), *o = out;
        while (*s) {
                if (s[0] == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
                        *o++ = (char)(hexval(s[1]) << 4 | hexval(s[2]));
                        s += 3;
                        continue;
                }
                bool named = false;
                for (size_t i = 0; s[0] == '%' && s[1] == '[' && i < sizeof names / sizeof *names && !named; i++) {
                        size_t n = strlen(names[i].name);
                        if (!strncmp(s + 2, names[i].name, n) && s[2 + n] == ']') {
                                *o++ = names[i].c;
                                s += 3 + n;
                                named = true;
                        }
                }
                if (!named)
                        *o++ = *s++;
        }
        *o = 0;
        return out;
}

/* lld >= 21 and mold >= 2.36: %XX only; any other '%' is an error (NULL). */
static char *decode_strict(const char *s) {
        char *out = malloc(strlen(s) + 1), *o = out;
        while (*s) {
                if (*s != '%') {
                        *o++ = *s++;
                        continue;
                }
                if (hexval(s[1]) < 0 || hexval(s[2]) < 0) {
                        free(out);
                        return NULL;
                }
                *o++ = (char)(hexval(s[1]) << 4 | hexval(s[2]));
                s += 3;
        }
        *o = 0;
        return out;
}

static void test_percent_encoding(void) {
        static const char *const inputs[] = {
                "{\"type\":\"deb\",\"name\":\"a,b\"}",
                "{\"v\":\"100%\"}",
                "{\"v\":\"%25 stays %25\"}",
                "{\"v\":\"%[comma] is not a comma\"}",
                "{\"v\":\"%%41%\"}",
                "{\"name\":\"Ωμέγα 漢字 🎉\",\"q\":\"a\\\"b\\\\c'd $HOME #x\"}",
                "{\"u\":\"https://debuginfod.example.org/~x:1@h+y=z\"}",
        };
        for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
                char *enc;
                CHECK_INT(pn_percent_encode(inputs[i], &enc), 0);
                /* Nothing a shell, make, -Wl, or a decoder treats specially. */
                checks++;
                if (strspn(enc, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/@+=%") != strlen(enc))
                        fail(__FILE__, __LINE__, "encoding of '%s' has unsafe bytes: %s", inputs[i], enc);
                char *bfd = decode_bfd(enc), *strict = decode_strict(enc);
                CHECK_STR(bfd, inputs[i]);
                CHECK_STR(strict, inputs[i]);
                free(bfd);
                free(strict);
                free(enc);
        }
        char *enc;
        CHECK_INT(pn_percent_encode("a,%b{", &enc), 0);
        CHECK_STR(enc, "a%2C%25b%7B");
        free(enc);

        /* The rules the decoders above model: a raw '%' is mangled by bfd
         * (%41 -> A) or refused by lld and mold, hence always %25. */
        char *d = decode_bfd("x%41%[comma]%q");
        CHECK_STR(d, "xA,%q");
        free(d);
        CHECK(decode_strict("100%") == NULL);

        /* Which linkers decode: ld.bfd 2.44, lld 21, mold 2.36; never gold. */
        static const struct {
                int kind;
                unsigned major, minor;
                int decodes;
        } lk[] = {
                {PKGNOTE_LINKER_BFD, 2, 43, 0},  {PKGNOTE_LINKER_BFD, 2, 44, 1},  {PKGNOTE_LINKER_BFD, 3, 0, 1},
                {PKGNOTE_LINKER_GOLD, 2, 44, 0}, {PKGNOTE_LINKER_LLD, 20, 1, 0}, {PKGNOTE_LINKER_LLD, 21, 0, 1},
                {PKGNOTE_LINKER_MOLD, 2, 35, 0}, {PKGNOTE_LINKER_MOLD, 2, 36, 1}, {PKGNOTE_LINKER_MOLD, 1, 10, 0},
        };
        for (size_t i = 0; i < sizeof lk / sizeof *lk; i++) {
                pkgnote_linker l = {.size = sizeof(pkgnote_linker), .kind = lk[i].kind, .major = lk[i].major, .minor = lk[i].minor};
                checks++;
                if (pkgnote_linker_decodes_package_metadata(&l) != lk[i].decodes)
                        fail(__FILE__, __LINE__, "%s %u.%u: decodes should be %d", pkgnote_linker_kind_name(l.kind),
                             l.major, l.minor, lk[i].decodes);
        }

        /* ldflags: encoded for a decoding linker, quoted JSON otherwise. */
        const char *json = "{\"name\":\"a,b\",\"v\":\"5%\"}";
        pkgnote_linker mold236 = {.size = sizeof(pkgnote_linker), .kind = PKGNOTE_LINKER_MOLD, .major = 2, .minor = 36};
        pkgnote_linker bfd240 = {.size = sizeof(pkgnote_linker), .kind = PKGNOTE_LINKER_BFD, .major = 2, .minor = 40};
        char *line;
        CHECK_INT(pkgnote_ldflags_package_metadata_for(json, &mold236, PKGNOTE_LDFLAGS_MAKE, &line), 0);
        CHECK_STR(line, "-Wl,--package-metadata=%7B%22name%22:%22a%2Cb%22%2C%22v%22:%225%25%22%7D");
        free(line);
        CHECK_INT(pkgnote_ldflags_package_metadata_for(json, &bfd240, PKGNOTE_LDFLAGS_SHELL, &line), 0);
        CHECK_STR(line, "-Xlinker '--package-metadata={\"name\":\"a,b\",\"v\":\"5%\"}'");
        free(line);
        CHECK_INT(pkgnote_ldflags_package_metadata_for("{\"a\":\"\\u0007\"}", &mold236, PKGNOTE_LDFLAGS_SHELL, &line),
                  -EINVAL);
}

/* Package and dlopen notes together: order, layout, groups, refusals. */
static void test_dlopen_notes(void) {
        static const char dl1[] = "[{\"feature\":\"a\",\"priority\":\"suggested\",\"soname\":[\"liba.so.1\"]}]";
        static const char dl2[] = " [ {\"soname\" : [\"libb.so.2\", \"libc.so.3\"]} ]\n";
        static const char dl2_compact[] = "[{\"soname\":[\"libb.so.2\",\"libc.so.3\"]}]";
        static const char pkg[] = "{\"type\":\"deb\",\"name\":\"x\",\"version\":\"1\"}";
        /* The package note comes first whatever its place in the list. */
        const pkgnote_note_spec specs[] = {
                PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl1),
                PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, pkg),
                PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl2),
        };
        const char *const want_json[] = {pkg, dl1, dl2_compact};
        const uint32_t want_type[] = {PKGNOTE_NT_FDO_PACKAGING_METADATA, PKGNOTE_NT_FDO_DLOPEN_METADATA,
                                      PKGNOTE_NT_FDO_DLOPEN_METADATA};
        static const char *const targets[] = {"x86_64", "i686", "s390x", "ppc", "aarch64", "riscv64"};
        for (size_t ti = 0; ti < sizeof targets / sizeof *targets; ti++) {
                pkgnote_target t = PKGNOTE_TARGET_INIT;
                CHECK_INT(pkgnote_target_parse(targets[ti], &t), 0);
                uint8_t *b = NULL;
                size_t len = 0;
                CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_OBJECT, specs, 3, &t, &b, &len), 0);
                pkgnote_object *e;
                if (!b || pkgnote_object_from_memory(b, len, &e) < 0) {
                        fail(__FILE__, __LINE__, "%s: object does not parse", targets[ti]);
                        free(b);
                        continue;
                }
                CHECK_INT(pkgnote_object_problem_count(e), 0);
                int nn = pkgnote_object_note_count(e), k = 0;
                for (int i = 0; i < nn; i++) {
                        if (strcmp(pkgnote_object_note(e, (size_t)i)->name, "FDO"))
                                continue;
                        CHECK(k < 3);
                        if (k >= 3)
                                break;
                        CHECK_INT(pkgnote_object_note(e, (size_t)i)->type, want_type[k]);
                        CHECK_STR(pkgnote_object_note(e, (size_t)i)->section, k == 0 ? ".note.package" : ".note.dlopen");
                        size_t wl = strlen(want_json[k]);
                        CHECK(pkgnote_object_note(e, (size_t)i)->descsz >= wl && !memcmp(pkgnote_object_note(e, (size_t)i)->desc, want_json[k], wl));
                        /* dlopen: descsz counts the NUL, not the padding. */
                        CHECK_INT(pkgnote_object_note(e, (size_t)i)->descsz, k == 0 ? (wl + 1 + 3) / 4 * 4 : wl + 1);
                        k++;
                }
                CHECK_INT(k, 3);
                int ns = pkgnote_object_shdr_count(e), groups = 0;
                for (int i = 0; i < ns; i++)
                        groups += pkgnote_object_shdr(e, (size_t)i)->type == 17;
                CHECK_INT(groups, 3);
                pkgnote_object_free(e);
                free(b);

                /* The raw form is the notes back to back. */
                uint8_t *raw;
                size_t raw_len, off = 0;
                CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, specs, 3, &t, &raw, &raw_len), 0);
                uint8_t *one;
                size_t one_len;
                CHECK_INT(pkgnote_package_note_encode(pkg, t.big_endian, &one, &one_len), 0);
                CHECK(one_len <= raw_len && !memcmp(raw, one, one_len));
                off += one_len;
                free(one);
                CHECK_INT(pkgnote_dlopen_note_encode(dl1, t.big_endian, &one, &one_len), 0);
                CHECK(off + one_len <= raw_len && !memcmp(raw + off, one, one_len));
                off += one_len;
                free(one);
                CHECK_INT(pkgnote_dlopen_note_encode(dl2, t.big_endian, &one, &one_len), 0);
                CHECK(off + one_len == raw_len && !memcmp(raw + off, one, one_len));
                free(one);
                free(raw);
        }

        /* Text forms: one section, group and comment per note. */
        uint8_t *text;
        size_t text_len;
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_ASM, specs, 3, NULL, &text, &text_len), 0);
        CHECK_INT(text_len, strlen((char *)text));
        CHECK(strstr((char *)text, ".section .note.dlopen,\"aGR\",%note,pkgnote.dlopen.") != NULL);
        CHECK(strstr((char *)text, "/* dlopen note (FDO_DLOPEN_METADATA): [{\"soname\":[\"libb.so.2\"") != NULL);
        CHECK(strstr((char *)text, dl1) != NULL);
        free(text);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_LINKER_SCRIPT, specs, 3, NULL, &text, &text_len), 0);
        CHECK(strstr((char *)text, ".note.package (TYPE = SHT_NOTE)") < strstr((char *)text, ".note.dlopen (TYPE = SHT_NOTE)"));
        CHECK(strstr((char *)text, "LONG(0x407c0c0a)") != NULL);
        free(text);

        /* Refusals: nothing, two package notes, the same dlopen note
         * twice, another note type, a bad dlopen note, an unknown form. */
        uint8_t *x = NULL;
        size_t xl;
        const pkgnote_note_spec two_pkg[] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, pkg), PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, pkg)};
        const pkgnote_note_spec same[] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl2), PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl2_compact)};
        const pkgnote_note_spec other[] = {PKGNOTE_NOTE_SPEC(3, pkg)};
        const pkgnote_note_spec bad[] = {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, "[{\"soname\":[\"liba.so.1\"],\"priority\":\"maybe\"}]")};
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, specs, 0, NULL, &x, &xl), -EINVAL);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, two_pkg, 2, NULL, &x, &xl), -EINVAL);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, same, 2, NULL, &x, &xl), -EINVAL);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, other, 1, NULL, &x, &xl), -EINVAL);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_OBJECT, bad, 1, NULL, &x, &xl), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "maybe") != NULL);
        CHECK_INT(pkgnote_emit(0, specs, 3, NULL, &x, &xl), -EINVAL);
        CHECK(x == NULL);
        CHECK_INT(pkgnote_dlopen_note_encode("[]", 0, &x, &xl), -EINVAL);
        CHECK_INT(pkgnote_dlopen_note_encode("{}", 0, &x, &xl), -EINVAL);
        CHECK(x == NULL);

        /* Structs that grow: a spec without its size is refused; an array
         * of a newer, larger spec is read with the first element's size as
         * its stride, as long as the fields unknown here are zero. */
        pkgnote_note_spec unsized = {.type = PKGNOTE_NT_FDO_PACKAGING_METADATA, .json = pkg};
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, &unsized, 1, NULL, &x, &xl), -EINVAL);
        struct newer_spec {
                pkgnote_note_spec s;
                uint64_t later;
        } newer[2] = {{PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, pkg), 0},
                      {PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, dl1), 0}};
        newer[0].s.size = newer[1].s.size = sizeof newer[0];
        uint8_t *y = NULL;
        size_t yl;
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, &newer[0].s, 2, NULL, &y, &yl), 0);
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, specs, 2, NULL, &x, &xl), 0);
        CHECK(y && x && yl == xl && !memcmp(x, y, xl));
        free(x);
        free(y);
        x = NULL;
        newer[1].later = 1;
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_NOTES, &newer[0].s, 2, NULL, &x, &xl), -EINVAL);
        pkgnote_target small = {.size = 0};
        CHECK_INT(pkgnote_target_parse("x86_64", &small), -EINVAL);
        pkgnote_nevra nv = {.size = sizeof(size_t)};
        CHECK_INT(pkgnote_nevra_parse("a-1-2.x86_64", &nv), -EINVAL);
        pkgnote_linker lk = {.kind = PKGNOTE_LINKER_BFD, .major = 2, .minor = 44};
        CHECK_INT(pkgnote_linker_decodes_package_metadata(&lk), -EINVAL);
}

/* The routes' texts: each byte a reader treats specially escaped, the
 * JSON percent-encoded for a decoding linker, '#' refused in a specs file,
 * objects named by absolute path only; the C header wraps the asm. */
static void test_routes(void) {
        const char *json = "{\"name\":\"a b'\\\"%{}|:\\\\\",\"x\":\"Ω\"}";
        pkgnote_linker bfd240 = {sizeof(pkgnote_linker), PKGNOTE_LINKER_BFD, 2, 40}, bfd244 = {sizeof(pkgnote_linker), PKGNOTE_LINKER_BFD, 2, 44};
        char *s;
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_RESPONSE_FILE, json, &bfd240, NULL, 0, &s), 0);
        CHECK(!strcmp(s, "--package-metadata=\\{\\\"name\\\"\\:\\\"a\\ b\\'\\\\\\\"\\%\\{\\}\\|\\:\\\\\\\\\\\",\\\"x\\\"\\:\\\"Ω\\\"\\}\n"));
        free(s);
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_RESPONSE_FILE, json, &bfd244, NULL, 0, &s), 0);
        CHECK(!strncmp(s, "--package-metadata=\\%7B\\%22name\\%22", strlen("--package-metadata=\\%7B\\%22name\\%22")));
        free(s);
        const char *obj[] = {"/tmp/dl notes.o"};
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_GCC_SPECS, "{\"name\":\"a\"}", NULL, obj, 1, &s), 0);
        CHECK(strstr(s, "*pkgnote_link:\n--package-metadata=\\{\\\"name\\\"\\:\\\"a\\\"\\} /tmp/dl\\ notes.o\n\n") != NULL);
        CHECK(strstr(s, "*link:\n+ %{!r:%(pkgnote_link)}\n") != NULL);
        free(s);
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_CLANG_CONFIG, NULL, NULL, obj, 1, &s), 0);
        CHECK(strstr(s, "\n-Xlinker /tmp/dl\\ notes.o\n") != NULL && !strstr(s, "package-metadata"));
        free(s);
        s = NULL;
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_GCC_SPECS, "{\"name\":\"a#b\"}", NULL, NULL, 0, &s), -EINVAL);
        CHECK(s == NULL && strstr(pkgnote_last_error(), "'#'") != NULL);
        const char *rel[] = {"dl.o"};
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_RESPONSE_FILE, NULL, NULL, rel, 1, &s), -EINVAL);
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_RESPONSE_FILE, NULL, NULL, NULL, 0, &s), -EINVAL);
        CHECK_INT(pkgnote_route_text(0, json, NULL, NULL, 0, &s), -EINVAL);
        CHECK_INT(pkgnote_route_text(PKGNOTE_ROUTE_RESPONSE_FILE, "{\"name\":\"a\001\"}", NULL, NULL, 0, &s), -EINVAL);

        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, "{\"name\":\"q\\\"*/\"}");
        uint8_t *h;
        size_t len;
        CHECK_INT(pkgnote_emit(PKGNOTE_EMIT_C_HEADER, &spec, 1, NULL, &h, &len), 0);
        CHECK(len == strlen((char *)h));
        CHECK(strstr((char *)h, "\"\\t.pushsection .note.package,\\\"aGR\\\",%note,pkgnote.note.") != NULL);
        CHECK(strstr((char *)h, "\"\\t.popsection\\n\"\n);\n#endif\n#endif\n") != NULL);
        CHECK(strstr((char *)h, "*\\/") != NULL && !strstr((char *)h, "q\\\"*/"));
        CHECK(!strstr((char *)h, ".note.gnu.property"));
        free(h);
}

int main(void) {
        test_sizes_of_1_0();
        test_os_release_quoting();
        test_os_release_root();
        /* The same where the kernel has no openat2: links resolved by
         * pn_open_in_root()'s own walk, inside the root alike. */
        pn_root_without_openat2 = true;
        test_os_release_root();
        pn_root_without_openat2 = false;
        test_nevra();
        test_targets();
        test_objects();
        test_invalid_json();
        test_text_forms();
        test_linkers();
        test_ldflags();
        test_percent_encoding();
        test_dlopen_notes();
        test_routes();
        if (failures) {
                fprintf(stderr, "test-emit: %d of %d checks failed\n", failures, checks);
                return 1;
        }
        printf("test-emit: %d checks passed\n", checks);
        return 0;
}
