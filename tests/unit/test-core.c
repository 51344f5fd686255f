/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The core reader over cores built in memory in the kernel's layouts
 * (tests/read/core/corebuild.c): a valid core in each class and byte order,
 * every truncated prefix of it, and hostile variants of each part:
 * NT_FILE, the process notes, the program headers of the core and of the
 * modules' dumped pages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "11-crash-private.h"
#include "11-crash-systemd.h"
#include "08-core-private.h"
#include "pkgnote.h"
#include "testlib.h"

#if HAVE_ZSTD
#include <zstd.h>
#endif

#include "read/core/corebuild.c"
#include "read/core/layouts.h"

#define JSON_EXE "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"prog\",\"version\":\"1.0-1\",\"architecture\":\"amd64\"}"
#define JSON_LIB "{\"type\":\"rpm\",\"name\":\"libthing\",\"version\":\"2.3-4.fc40\",\"architecture\":\"x86_64\"}"

static const uint8_t id_exe[20] = {0xe0, 0xe1, 0xe2, 0xe3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t id_lib[20] = {0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
#define ID_EXE "e0e1e2e30102030405060708090a0b0c0d0e0f10"
#define ID_LIB "112233440102030405060708090a0b0c0d0e0f10"

static uint8_t page_exe[4096], page_lib[4096], page_stack[4096];
static uint8_t region[8192];

/* The first page of a linked object: ELF header, PT_LOAD, PT_NOTE with a
 * build-id and (when JSON) a package note. */
static void module_page(uint8_t *page, bool is64, bool be, uint16_t machine, const uint8_t id[20], const char *json) {
        size_t n = mk_note(region, be, "GNU", 4, 3, id, 20, 20, 4);
        if (json)
                n += mk_package_note(region + n, be, json, false);
        struct mk_spec s = {.is64 = is64, .be = be, .type = 3, .machine = machine, .no_sections = true};
        s.blobs[0] = (struct mk_blob){region, n, 4, true, false, NULL};
        s.n_blobs = 1;
        memset(page, 0, 4096);
        CHECK(mk_elf(&s, page, 4096) > 0);
}

#define EXE_BASE 0x08048000u
#define LIB_BASE 0x40000000u
#define STACK 0x7ffe0000u
#define EXECFN_AT 3000u
#define EXE_PATH "/usr/bin/prog"
#define LIB_PATH "/usr/lib/libthing.so.1"

/* A small valid core: executable (2 mappings), library (2 mappings), an
 * anonymous stack page holding the AT_EXECFN string, two threads. */
static void base_spec(struct cb_spec *s, bool is64, bool be) {
        uint16_t machine = be ? 22 : is64 ? 62 : 3;
        memset(s, 0, sizeof *s);
        s->is64 = is64;
        s->be = be;
        s->machine = machine;
        s->tids[0] = 100;
        s->tids[1] = 101;
        s->n_threads = 2;
        s->ppid = 1;
        s->uid = 1000;
        s->gid = 1001;
        s->signal = 11;
        s->si_code = 1;
        s->fault_addr = 0x10;
        s->comm = "prog";
        s->args = "prog --flag";
        s->prpsinfo_size = is64 ? 136 : 124;
        module_page(page_exe, is64, be, machine, id_exe, JSON_EXE);
        module_page(page_lib, is64, be, machine, id_lib, JSON_LIB);
        memset(page_stack, 0, sizeof page_stack);
        strcpy((char *)page_stack + EXECFN_AT, EXE_PATH);
        s->maps[0] = (struct cb_map){EXE_BASE, EXE_BASE + 0x1000, 0, EXE_PATH, page_exe, 4096};
        s->maps[1] = (struct cb_map){EXE_BASE + 0x1000, EXE_BASE + 0x3000, 1, EXE_PATH, NULL, 0};
        s->maps[2] = (struct cb_map){LIB_BASE, LIB_BASE + 0x1000, 0, LIB_PATH, page_lib, 4096};
        s->maps[3] = (struct cb_map){LIB_BASE + 0x1000, LIB_BASE + 0x5000, 1, LIB_PATH, NULL, 0};
        s->maps[4] = (struct cb_map){STACK, STACK + 0x1000, 0, NULL, page_stack, 4096};
        s->n_maps = 5;
        s->auxv[0][0] = CB_AT_PHDR;
        s->auxv[0][1] = EXE_BASE + (is64 ? 64 : 52);
        s->auxv[1][0] = CB_AT_ENTRY;
        s->auxv[1][1] = EXE_BASE + 0x1000;
        s->auxv[2][0] = CB_AT_EXECFN;
        s->auxv[2][1] = STACK + EXECFN_AT;
        s->n_auxv = 3;
}

static volatile size_t sink;
static void touch_str(const char *s) {
        if (s)
                sink += strlen(s);
}

/* Calls every accessor, as a caller would. */
static void touch_core(const pkgnote_core *c) {
        pkgnote_process_info p = {.size = sizeof p};
        CHECK_INT(pkgnote_core_process(c, &p), 0);
        /* The caller's size: 0 (never set) refused; a struct shorter
         * than 1.0's refused too, nothing of it written. */
        pkgnote_process_info unsized = {0};
        CHECK_INT(pkgnote_core_process(c, &unsized), -EINVAL);
        pkgnote_process_info old;
        const size_t old_size = offsetof(pkgnote_process_info, command);
        test_short_struct(&old, sizeof old, old_size);
        CHECK_INT(pkgnote_core_process(c, &old), -EINVAL);
        CHECK_INT(old.size, old_size);
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        CHECK(test_short_struct_kept(&old, sizeof old, old_size));
        touch_str(p.command);
        touch_str(p.arguments);
        touch_str(p.executable);
        for (size_t i = 0; i < pkgnote_core_thread_count(c); i++)
                sink += (size_t)pkgnote_core_thread(c, i)->tid + (size_t)pkgnote_core_thread(c, i)->signal;
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                touch_str(pkgnote_module_path(m));
                touch_str(pkgnote_module_build_id(m));
                touch_str(pkgnote_module_disk_build_id(m));
                touch_str(pkgnote_module_reason(m));
                touch_str(pkgnote_source_name(pkgnote_module_source(m)));
                sink += pkgnote_module_start(m) + pkgnote_module_end(m) + (size_t)pkgnote_module_is_vdso(m) +
                        (size_t)pkgnote_module_deleted(m);
                const pkgnote_info *info = pkgnote_module_info(m);
                for (size_t k = 0; info && k < pkgnote_info_package_count(info); k++) {
                        touch_str(pkgnote_info_package_json(info, k));
                        touch_str(pkgnote_metadata_name(pkgnote_info_package(info, k)));
                }
        }
        CHECK(pkgnote_core_module(c, pkgnote_core_module_count(c)) == NULL);
        const pkgnote_module *main = pkgnote_core_main_module(c);
        if (main)
                touch_str(pkgnote_module_path(main));
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                CHECK(pkgnote_core_problem(c, i) && pkgnote_core_problem(c, i)->message[0] &&
                      pkgnote_core_problem(c, i)->error < 0);
        CHECK(pkgnote_core_problem(c, pkgnote_core_problem_count(c)) == NULL);
        sink += pkgnote_core_bytes_read(c);
}

static const pkgnote_core_options no_disk = {.no_disk = 1};

static uint8_t *core_buf;
static size_t core_len;

/* Builds S into core_buf, freeing the previous one. */
static void build(const struct cb_spec *s) {
        free(core_buf);
        core_buf = NULL;
        core_len = cb_build(s, &core_buf);
}

static pkgnote_core *open_spec(const struct cb_spec *s, int expect) {
        build(s);
        CHECK(core_len > 0);
        pkgnote_core *c = NULL;
        int r = pkgnote_core_from_memory(core_buf, core_len, &no_disk, &c);
        CHECK_INT(r, expect);
        if (r < 0) {
                CHECK(pkgnote_last_error() && pkgnote_last_error()[0]);
                return NULL;
        }
        touch_core(c);
        return c;
}

static const pkgnote_module *find(const pkgnote_core *c, const char *path) {
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                if (!strcmp(pkgnote_module_path(pkgnote_core_module(c, i)), path))
                        return pkgnote_core_module(c, i);
        return NULL;
}

static bool has_problem(const pkgnote_core *c, const char *needle) {
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                if (strstr(pkgnote_core_problem(c, i)->message, needle))
                        return true;
        fprintf(stderr, "no problem containing \"%s\" among %zu:\n", needle, pkgnote_core_problem_count(c));
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                fprintf(stderr, "  %s\n", pkgnote_core_problem(c, i)->message);
        return false;
}

static const char *package_name(const pkgnote_module *m) {
        const pkgnote_info *info = m ? pkgnote_module_info(m) : NULL;
        return info && pkgnote_info_package_count(info) ? pkgnote_metadata_name(pkgnote_info_package(info, 0)) : NULL;
}

/* systemd's shape of a base_spec() core of layout V (the object
 * systemd-analyze inspect-elf prints and systemd-coredump logs):
 * elfutils' machine names, the notes with the modules' build-ids, the
 * executable named by path or by base name, the library by base name;
 * unknown flags refused. */
static void check_systemd_json(pkgnote_core *c, int v) {
        static const char *const arch[4] = {"Intel 80386", "AMD x86-64", "IBM S/390", "IBM S/390"};
        char want[1024], *j = NULL;
        const char *lib = ",\"libthing.so.1\":{\"type\":\"rpm\",\"name\":\"libthing\",\"version\":\"2.3-4.fc40\","
                          "\"architecture\":\"x86_64\",\"buildId\":\"" ID_LIB "\"}}";
        for (int coredump = 0; coredump < 2; coredump++) {
                snprintf(want, sizeof want,
                         "{\"elfType\":\"coredump\",\"elfArchitecture\":\"%s\",\"%s\":{\"type\":\"deb\",\"os\":\"debian\","
                         "\"name\":\"prog\",\"version\":\"1.0-1\",\"architecture\":\"amd64\",\"buildId\":\"" ID_EXE "\"}%s",
                         arch[v], coredump ? "prog" : EXE_PATH, lib);
                CHECK_INT(pkgnote_core_to_systemd_json(c, coredump ? PKGNOTE_SYSTEMD_COREDUMP : 0, &j), 0);
                CHECK_STR(j, want);
                free(j);
                j = NULL;
        }
        CHECK_INT(pkgnote_core_to_systemd_json(c, 0x2, &j), -EINVAL);
        CHECK(j == NULL);
}

static void test_systemd_json_refusals(void) {
        char *j = NULL;
        CHECK_INT(pkgnote_core_to_systemd_json(NULL, 0, &j), -EINVAL);
        CHECK_INT(pkgnote_info_to_systemd_json(NULL, NULL, "x", &j), -EINVAL);
        CHECK(j == NULL);
}

static void test_valid_all_layouts(void) {
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                struct cb_spec s;
                base_spec(&s, is64, be);
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.pid, 100);
                CHECK_INT(p.ppid, 1);
                CHECK_INT(p.uid, 1000);
                CHECK_INT(p.gid, 1001);
                CHECK_INT(p.signal, 11);
                CHECK_INT(p.has_fault_address, 1);
                CHECK_INT(p.fault_address, 0x10);
                CHECK_STR(p.command, "prog");
                CHECK_STR(p.arguments, "prog --flag");
                CHECK_STR(p.executable, EXE_PATH);
                CHECK_INT(p.elf_class, is64 ? 64 : 32);
                CHECK_INT(p.big_endian, be);
                CHECK_INT(pkgnote_core_thread_count(c), 2);
                CHECK_INT(pkgnote_core_thread(c, 0)->tid, 100);
                CHECK_INT(pkgnote_core_thread(c, 0)->signal, 11);
                CHECK_INT(pkgnote_core_thread(c, 1)->tid, 101);
                CHECK_INT(pkgnote_core_module_count(c), 2);
                const pkgnote_module *exe = pkgnote_core_module(c, 0), *lib = pkgnote_core_module(c, 1);
                CHECK_STR(pkgnote_module_path(exe), EXE_PATH);
                CHECK_INT(pkgnote_module_start(exe), EXE_BASE);
                CHECK_INT(pkgnote_module_end(exe), EXE_BASE + 0x3000);
                CHECK_STR(pkgnote_module_build_id(exe), ID_EXE);
                CHECK_INT(pkgnote_module_source(exe), PKGNOTE_SOURCE_CORE);
                CHECK_STR(package_name(exe), "prog");
                CHECK(pkgnote_core_main_module(c) == exe);
                CHECK_STR(pkgnote_module_path(lib), LIB_PATH);
                CHECK_INT(pkgnote_module_end(lib), LIB_BASE + 0x5000);
                CHECK_STR(pkgnote_module_build_id(lib), ID_LIB);
                CHECK_STR(package_name(lib), "libthing");
                CHECK_INT(pkgnote_core_problem_count(c), 0);
                check_systemd_json(c, v);
                pkgnote_core_free(c);
        }
}

/* Every strict prefix: an error with a reason, or a core with problems. */
static void test_truncated_prefixes(void) {
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                struct cb_spec s;
                base_spec(&s, is64, be);
                uint8_t *full;
                size_t len = cb_build(&s, &full);
                CHECK(len > 0);
                size_t silent = 0, first_silent = 0;
                for (size_t n = 0; n < len; n++) {
                        /* A fresh allocation of exactly N bytes, so the
                         * sanitizers catch any read past the end. */
                        uint8_t *b = malloc(n ? n : 1);
                        memcpy(b, full, n);
                        pkgnote_core *c = NULL;
                        int r = pkgnote_core_from_memory(b, n, &no_disk, &c);
                        if (r < 0) {
                                CHECK(r == -ENOEXEC || r == -EBADMSG || r == -EINVAL || r == -ENODATA || r == -E2BIG);
                                CHECK(pkgnote_last_error() && pkgnote_last_error()[0]);
                        } else {
                                touch_core(c);
                                if (pkgnote_core_problem_count(c) == 0 && !silent++)
                                        first_silent = n;
                                pkgnote_core_free(c);
                        }
                        free(b);
                }
                if (silent)
                        fprintf(stderr, "class %d %s: %zu prefixes (first %zu of %zu) read without any problem\n",
                                is64 ? 64 : 32, be ? "BE" : "LE", silent, first_silent, len);
                CHECK_INT(silent, 0);
                free(full);
        }
}

/* NT_FILE descriptor by hand: count, page, entries, names. */
static size_t file_note(uint8_t *d, bool is64, bool be, uint64_t count, uint64_t page, size_t entries,
                        const uint64_t (*e)[3], const char *names, size_t names_len) {
        unsigned w = is64 ? 8 : 4;
        cb_put(d, count, w, be);
        cb_put(d + w, page, w, be);
        for (size_t i = 0; i < entries; i++)
                for (int k = 0; k < 3; k++)
                        cb_put(d + 2 * w + (i * 3 + (size_t)k) * w, e[i][k], w, be);
        memcpy(d + 2 * w + entries * 3 * w, names, names_len);
        return 2 * w + entries * 3 * w + names_len;
}

static uint8_t fdesc[1 << 16];

static void expect_file_problem(bool is64, size_t len, const char *needle) {
        struct cb_spec s;
        base_spec(&s, is64, false);
        s.file_note = fdesc;
        s.file_note_len = len;
        pkgnote_core *c = open_spec(&s, 0);
        if (!c)
                return;
        CHECK(has_problem(c, needle));
        CHECK_INT(pkgnote_core_module_count(c), 0);
        pkgnote_process_info p = {.size = sizeof p};
        pkgnote_core_process(c, &p);
        CHECK_INT(p.pid, 100); /* the process facts survive */
        CHECK_STR(p.executable, EXE_PATH);
        pkgnote_core_free(c);
}

static void test_file_note_hostile(void) {
        static const uint64_t one[1][3] = {{EXE_BASE, EXE_BASE + 0x1000, 0}};
        static const uint64_t two[2][3] = {{EXE_BASE, EXE_BASE + 0x1000, 0}, {LIB_BASE, LIB_BASE + 0x1000, 0}};
        for (int v = 0; v < 2; v++) {
                bool is64 = v;
                size_t n;
                n = file_note(fdesc, is64, false, is64 ? (1ull << 40) : 0xffffffffu, 4096, 1, one, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "more than the limit");
                n = file_note(fdesc, is64, false, PKGNOTE_MAX_MAPPINGS, 4096, 1, one, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "room for fewer");
                /* One entry more than the descriptor holds (names included). */
                n = file_note(fdesc, is64, false, 2, 4096, 1, one, "", 0);
                expect_file_problem(is64, n, "room for fewer");
                n = file_note(fdesc, is64, false, 1, 0, 1, one, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "page size");
                n = file_note(fdesc, is64, false, 1, 4097, 1, one, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "page size");
                n = file_note(fdesc, is64, false, 1, 1u << 20, 1, one, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "page size");
                /* The last path runs to the end of the descriptor. */
                n = file_note(fdesc, is64, false, 1, 4096, 1, one, EXE_PATH, strlen(EXE_PATH));
                expect_file_problem(is64, n, "not NUL-terminated");
                n = file_note(fdesc, is64, false, 2, 4096, 2, two, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "fewer paths");
                static const uint64_t backwards[1][3] = {{EXE_BASE + 0x1000, EXE_BASE, 0}};
                n = file_note(fdesc, is64, false, 1, 4096, 1, backwards, EXE_PATH, sizeof EXE_PATH);
                expect_file_problem(is64, n, "ends before it starts");
                n = file_note(fdesc, is64, false, 0, 4096, 0, one, "", 0);
                expect_file_problem(is64, 2 * (is64 ? 8 : 4) - 1, "too short");
        }
}

/* Paths an attacker controls: "..", control characters, a huge page
 * offset.  They are reported as they are; nothing is read outside the
 * root. */
static void test_file_note_hostile_paths(void) {
        static const char names[] = "/../../../../etc/passwd\0/lib/\033[31mred\a\n.so\0/usr/lib/x.so";
        static const uint64_t e[3][3] = {
                {EXE_BASE, EXE_BASE + 0x1000, 0},
                {LIB_BASE, LIB_BASE + 0x1000, 0},
                {0x50000000u, 0x50001000u, UINT64_MAX / 2}, /* page offset overflows when scaled */
        };
        char root[] = "/tmp/pkgnote-test-core.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        size_t n = file_note(fdesc, true, false, 3, 4096, 3, e, names, sizeof names);
        struct cb_spec s;
        base_spec(&s, true, false);
        s.file_note = fdesc;
        s.file_note_len = n;
        build(&s);
        pkgnote_core_options o = {.root = root};
        pkgnote_core *c = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &o, &c), 0);
        if (c) {
                touch_core(c);
                const pkgnote_module *up = find(c, "/../../../../etc/passwd");
                const pkgnote_module *ctl = find(c, "/lib/\033[31mred\a\n.so");
                CHECK(up != NULL);
                CHECK(ctl != NULL);
                CHECK(find(c, "/usr/lib/x.so") == NULL); /* not at file offset 0 */
                if (up) {
                        /* The dumped page is the executable's: its notes are used. */
                        CHECK_STR(pkgnote_module_build_id(up), ID_EXE);
                        CHECK_INT(pkgnote_module_source(up), PKGNOTE_SOURCE_CORE);
                }
                if (ctl)
                        CHECK_STR(package_name(ctl), "libthing");
                pkgnote_core_free(c);
        }
        /* No page dumped for them: disk inside an empty root finds nothing. */
        static const uint64_t undumped[2][3] = {{0x60000000u, 0x60001000u, 0}, {0x61000000u, 0x61001000u, 0}};
        n = file_note(fdesc, true, false, 2, 4096, 2, undumped, names, sizeof "/../../../../etc/passwd" + sizeof "/lib/\033[31mred\a\n.so");
        base_spec(&s, true, false);
        s.file_note = fdesc;
        s.file_note_len = n;
        build(&s);
        c = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &o, &c), 0);
        if (c) {
                touch_core(c);
                /* Neither is an ELF file inside the root: not modules. */
                CHECK(find(c, "/../../../../etc/passwd") == NULL);
                pkgnote_core_free(c);
        }
        c = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &no_disk, &c), 0);
        if (c) {
                const pkgnote_module *up = find(c, "/../../../../etc/passwd");
                CHECK(up != NULL);
                if (up) {
                        CHECK_INT(pkgnote_module_source(up), PKGNOTE_SOURCE_NONE);
                        CHECK(pkgnote_module_reason(up) && strstr(pkgnote_module_reason(up), "disk reading is off"));
                }
                pkgnote_core_free(c);
        }
        rmdir(root);
}

/* 2^18 mappings at file offset 0 (a quarter of the NT_FILE limit), with
 * distinct start addresses and with 4000 start addresses repeated: the
 * reader must stay fast whatever the count.  Checking each mapping against
 * every module found so far is quadratic: about a second here, five at
 * the limit (and minutes under AddressSanitizer); sorting makes it
 * milliseconds. */
static void test_bug_nt_file_quadratic_module_dedup(void) {
        size_t count = PKGNOTE_MAX_MAPPINGS / 4;
        size_t len = 16 + count * 24 + count * 2;
        uint8_t *d = calloc(1, len);
        for (int v = 0; v < 2; v++) {
                cb_put(d, count, 8, false);
                cb_put(d + 8, 4096, 8, false);
                for (size_t i = 0; i < count; i++) {
                        uint64_t start = 0x100000000ull + (v ? i % 4000 : i) * 0x2000;
                        cb_put(d + 16 + i * 24, start, 8, false);
                        cb_put(d + 16 + i * 24 + 8, start + 0x1000, 8, false);
                }
                for (size_t i = 0; i < count; i++)
                        d[16 + count * 24 + 2 * i] = (uint8_t)('a' + i % 26);
                struct cb_spec s;
                base_spec(&s, true, false);
                s.file_note = d;
                s.file_note_len = len;
                struct timespec t0, t1;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                pkgnote_core *c = open_spec(&s, 0);
                clock_gettime(CLOCK_MONOTONIC, &t1);
                double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
                if (c) {
                        if (v == 0) { /* 26 names: each keeps 16 places */
                                CHECK(has_problem(c, "a mapped at more than 16 places"));
                                CHECK_INT(pkgnote_core_module_count(c), 26 * 16);
                        } else /* no page dumped and disk off: kept, unread */
                                CHECK_INT(pkgnote_core_module_count(c), 4000);
                        pkgnote_core_free(c);
                }
                /* Reported, not asserted: speed belongs to benchmarks, and a
                 * quadratic walk shows here as minutes (and a test timeout). */
                fprintf(stderr, "%s start addresses: %zu mappings read in %.2f s\n", v ? "4000 repeated" : "distinct",
                        count, secs);
        }
        free(d);
}

/* The module's dumped page is hostile: program headers outside the page,
 * a PT_NOTE outside it or overflowing, absurd counts. */
static void test_module_headers_hostile(void) {
        for (int v = 0; v < 6; v++) {
                struct cb_spec s;
                base_spec(&s, true, false);
                uint8_t *note = page_lib + 64 + 56;
                switch (v) {
                case 0: cb_put(page_lib + 32, 0x10000, 8, false); break;             /* e_phoff beyond the page */
                case 1: cb_put(page_lib + 32, UINT64_MAX - 8, 8, false); break;      /* e_phoff overflowing */
                case 2: cb_put(page_lib + 56, 0xfff0, 2, false); break;              /* e_phnum huge */
                case 3: cb_put(note + 8, 0x7000, 8, false); break;                   /* PT_NOTE beyond the page */
                case 4: cb_put(note + 8, UINT64_MAX - 16, 8, false);                 /* p_offset + p_filesz wraps */
                        cb_put(note + 32, 64, 8, false);
                        break;
                case 5: cb_put(note + 32, UINT64_MAX, 8, false); break;              /* p_filesz huge */
                }
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                const pkgnote_module *lib = find(c, LIB_PATH), *exe = find(c, EXE_PATH);
                CHECK(exe && pkgnote_module_source(exe) == PKGNOTE_SOURCE_CORE);
                CHECK_STR(package_name(exe), "prog");
                CHECK(lib != NULL);
                if (lib) {
                        /* No package from a page that cannot be read; a
                         * PT_NOTE that only claims too much (v 5) still
                         * yields the notes wholly inside the page. */
                        if (v != 5)
                                CHECK(package_name(lib) == NULL);
                        else
                                CHECK_STR(package_name(lib), "libthing");
                        if (v == 3)
                                CHECK(pkgnote_module_reason(lib) && strstr(pkgnote_module_reason(lib), "beyond"));
                }
                pkgnote_core_free(c);
        }
}

/* A PT_NOTE that runs past the end of the dumped page, its first note
 * (the build-id) wholly inside: that note must still be read, and the rest
 * reported as beyond the page, so the disk copy can be verified. */
static void test_bug_straddling_pt_note_loses_build_id(void) {
        for (int v = 0; v < 2; v++) {
                bool is64 = v;
                struct cb_spec s;
                base_spec(&s, is64, false);
                /* The library's PT_NOTE (second program header) grows to 6000 bytes. */
                uint8_t *note = page_lib + (is64 ? 64 + 56 : 52 + 32);
                if (is64) {
                        cb_put(note + 32, 6000, 8, false);
                        cb_put(note + 40, 6000, 8, false);
                } else {
                        cb_put(note + 16, 6000, 4, false);
                        cb_put(note + 20, 6000, 4, false);
                }
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                const pkgnote_module *lib = find(c, LIB_PATH);
                CHECK(lib != NULL);
                if (lib) {
                        CHECK_STR(pkgnote_module_build_id(lib), ID_LIB);
                        /* The package note inside the page is found too. */
                        CHECK_STR(package_name(lib), "libthing");
                }
                pkgnote_core_free(c);
        }
}

/* Without separate code the loader maps the RW segment from file offset 0
 * as well, so NT_FILE lists two offset-0 mappings of one file (real cores
 * of s390x, ppc64, arm programs, and x86-64 with -z noseparate-code).  One
 * file, one module, ending at its last mapping. */
static void test_bug_noseparate_code_module_listed_twice(void) {
        for (int v = 0; v < 2; v++) {
                bool be = v;
                struct cb_spec s;
                base_spec(&s, true, be);
                /* exe: r-x at offset 0, rw- at offset 0 (first page again). */
                s.maps[1] = (struct cb_map){EXE_BASE + 0x1000, EXE_BASE + 0x2000, 0, EXE_PATH, page_exe, 4096};
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                CHECK_INT(pkgnote_core_module_count(c), 2);
                const pkgnote_module *exe = find(c, EXE_PATH);
                CHECK(exe != NULL);
                if (exe) {
                        CHECK_INT(pkgnote_module_start(exe), EXE_BASE);
                        CHECK_INT(pkgnote_module_end(exe), EXE_BASE + 0x2000);
                }
                pkgnote_core_free(c);
        }
}

/* Regression: a module's header page was looked for only at its first
 * mapping.  When that one was not dumped but a later mapping of the same
 * file at offset 0 was (64 KiB-page systems, -z noseparate-code), the
 * module had no build-id and no notes. */
static void test_bug_header_page_from_later_mapping(void) {
        for (int v = 0; v < 4; v++) {
                struct cb_spec s;
                base_spec(&s, v & 1, v & 2);
                s.maps[0].data = NULL;
                s.maps[0].data_len = 0;
                s.maps[1] = (struct cb_map){EXE_BASE + 0x1000, EXE_BASE + 0x2000, 0, EXE_PATH, page_exe, 4096};
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                const pkgnote_module *exe = find(c, EXE_PATH);
                CHECK(exe != NULL);
                if (exe) {
                        CHECK_INT(pkgnote_module_start(exe), EXE_BASE);
                        CHECK_STR(pkgnote_module_build_id(exe), ID_EXE);
                        CHECK_INT(pkgnote_module_source(exe), PKGNOTE_SOURCE_CORE);
                        const pkgnote_info *info = pkgnote_module_info(exe);
                        CHECK(info && pkgnote_info_package_count(info) == 1);
                }
                pkgnote_core_free(c);
        }
}

/* Regression: a core without NT_FILE (kernels before 3.7, other dumpers)
 * listed no module.  Modules are now found as eu-unstrip finds them: ELF
 * headers in dumped memory, named through the dynamic linker's r_debug
 * and link_map chain (here: a chain that loops back on itself, and a
 * library whose header page was not dumped). */
static void test_bug_no_nt_file_lists_no_modules(void) {
        static uint8_t data[4096];
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                unsigned w = is64 ? 8 : 4, pe = is64 ? 56 : 32;
                const uint64_t D = 0x50000000u;
                struct cb_spec s;
                base_spec(&s, is64, be);
                s.no_file_note = true;
                memset(data, 0, sizeof data);
                /* The executable's program headers, as AT_PHDR shows them:
                 * PT_PHDR at vaddr 0 (bias D), PT_DYNAMIC at 0x100. */
                cb_put(data, 6, 4, be);
                cb_put(data + pe, 2, 4, be);
                cb_put(data + pe + (is64 ? 16 : 8), 0x100, w, be);
                cb_put(data + 0x100, 21, w, be); /* DT_DEBUG */
                cb_put(data + 0x100 + w, D + 0x200, w, be);
                cb_put(data + 0x200, 1, 4, be); /* r_version */
                cb_put(data + 0x200 + w, D + 0x300, w, be);
                static const struct { uint64_t addr; unsigned name; unsigned next; } lm[] = {
                        {0, 0x800, 0x340}, {LIB_BASE, 0x810, 0x380}, {0x60000000u, 0x840, 0x300},
                };
                for (size_t i = 0; i < 3; i++) {
                        uint8_t *l = data + (i == 0 ? 0x300 : i == 1 ? 0x340 : 0x380);
                        cb_put(l, lm[i].addr, w, be);
                        cb_put(l + w, D + lm[i].name, w, be);
                        cb_put(l + 3 * w, D + lm[i].next, w, be); /* the last links back: a loop */
                }
                strcpy((char *)data + 0x810, LIB_PATH);
                strcpy((char *)data + 0x840, "/usr/lib/notdumped.so");
                s.maps[5] = (struct cb_map){D, D + 0x1000, 0, NULL, data, sizeof data};
                s.n_maps = 6;
                s.auxv[0][1] = D;
                s.auxv[1][1] = EXE_BASE + 0x40; /* AT_ENTRY, inside the page's PT_LOAD */
                s.auxv[3][0] = 5; /* AT_PHNUM */
                s.auxv[3][1] = 2;
                s.n_auxv = 4;
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                CHECK(has_problem(c, "no NT_FILE"));
                CHECK_INT(pkgnote_core_module_count(c), 3);
                /* make-seeds: the fuzzer's seed for this path. */
                const char *seed = getenv("PKGNOTE_CORE_SEED");
                FILE *f = seed && v == 1 ? fopen(seed, "wbe") : NULL;
                if (f) {
                        fwrite(core_buf, 1, core_len, f);
                        fclose(f);
                }
                const pkgnote_module *exe = find(c, EXE_PATH), *lib = find(c, LIB_PATH), *nd = find(c, "/usr/lib/notdumped.so");
                CHECK(exe && lib && nd);
                if (exe && lib && nd) {
                        CHECK_STR(pkgnote_module_found_by(exe), "elf-header");
                        CHECK_STR(pkgnote_module_build_id(exe), ID_EXE);
                        CHECK_INT(pkgnote_module_start(exe), EXE_BASE);
                        CHECK(pkgnote_core_main_module(c) == exe);
                        CHECK_STR(pkgnote_module_found_by(lib), "link-map");
                        CHECK_STR(pkgnote_module_build_id(lib), ID_LIB);
                        CHECK(pkgnote_module_info(lib) && pkgnote_info_package_count(pkgnote_module_info(lib)) == 1);
                        CHECK_STR(pkgnote_module_found_by(nd), "link-map");
                        CHECK_INT(pkgnote_module_start(nd), 0x60000000u);
                }
                pkgnote_core_free(c);
        }
}

/* The unwinder's image of a module without its file (stack-image.c):
 * the module's bytes as the core holds them, laid out at their file
 * offsets, ending at the first byte the core did not dump; nothing when
 * the header page is absent. */
static void test_module_image_from_dumped_pages(void) {
        for (int v = 0; v < 4; v++) {
                bool is64 = v & 1, be = v & 2;
                struct cb_spec s;
                base_spec(&s, is64, be);
                size_t full = 0;
                for (int dumped = 0; dumped < 3; dumped++) {
                        /* The whole page; all but the last 8 bytes of the
                         * module's PT_LOAD (its notes' end); none of it. */
                        s.maps[0].data = dumped == 2 ? NULL : page_exe;
                        s.maps[0].data_len = dumped == 0 ? 4096 : dumped == 1 ? full - 8 : 0;
                        pkgnote_core *c = open_spec(&s, 0);
                        if (!c)
                                continue;
                        uint8_t *img = NULL;
                        size_t len = 0;
                        int r = pn_core_module_image(c, core_buf, core_len, EXE_BASE, &img, &len);
                        if (dumped == 2)
                                CHECK_INT(r, 0);
                        else {
                                CHECK_INT(r, 1);
                                if (dumped == 0)
                                        full = len;
                                CHECK(len > (is64 ? 64u + 8 : 52u + 8) && len <= 4096);
                                if (dumped == 1)
                                        CHECK_INT(len, full - 8);
                                CHECK(img && memcmp(img, page_exe, len) == 0);
                        }
                        free(img);
                        pkgnote_core_free(c);
                }
        }
}

/* A file mapped at offset 0 whose PT_LOAD holds nothing: the kernel dumps
 * the first page of every readable offset-0 file mapping that starts with
 * an ELF header (coredump_filter bit 4, evidently on since the other
 * modules' pages are there), so this file is not ELF: not a module, with
 * disk reading off as with it on. */
static void test_bug_no_disk_lists_non_elf_mappings(void) {
        struct cb_spec s;
        base_spec(&s, true, false);
        s.maps[s.n_maps++] = (struct cb_map){0x50000000u, 0x50001000u, 0, "/usr/lib/locale/C.utf8/LC_CTYPE", NULL, 0};
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                CHECK(find(c, "/usr/lib/locale/C.utf8/LC_CTYPE") == NULL);
                CHECK_INT(pkgnote_core_module_count(c), 2);
                pkgnote_core_free(c);
        }
}

/* Overlapping and unordered PT_LOADs: the modules still come out in
 * address order, each read from its own bytes. */
static void test_loads_unordered_overlapping(void) {
        struct cb_spec s;
        base_spec(&s, true, false);
        struct cb_map tmp = s.maps[0];
        s.maps[0] = s.maps[4];
        s.maps[4] = tmp;
        tmp = s.maps[1];
        s.maps[1] = s.maps[2];
        s.maps[2] = tmp;
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                CHECK_INT(pkgnote_core_module_count(c), 2);
                CHECK_STR(pkgnote_module_path(pkgnote_core_module(c, 0)), EXE_PATH);
                CHECK_STR(package_name(pkgnote_core_module(c, 1)), "libthing");
                CHECK_INT(pkgnote_core_problem_count(c), 0);
                pkgnote_core_free(c);
        }
        /* Two PT_LOADs over the same file bytes and overlapping addresses. */
        base_spec(&s, true, false);
        build(&s);
        uint8_t *exe_ph = core_buf + cb_phdr_offset(&s, 1), *lib_ph = core_buf + cb_phdr_offset(&s, 3);
        memcpy(lib_ph + 8, exe_ph + 8, 8);                       /* same p_offset */
        cb_put(exe_ph + 40, LIB_BASE - EXE_BASE + 0x2000, 8, false); /* exe's memsz covers the library */
        pkgnote_core *c2 = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &no_disk, &c2), 0);
        if (c2) {
                touch_core(c2);
                CHECK(find(c2, EXE_PATH) != NULL);
                pkgnote_core_free(c2);
        }
        /* A PT_LOAD whose data lies beyond the core, and one at offset ~0. */
        base_spec(&s, true, false);
        build(&s);
        cb_put(core_buf + cb_phdr_offset(&s, 3) + 8, core_len + 4096, 8, false);
        cb_put(core_buf + cb_phdr_offset(&s, 1) + 8, UINT64_MAX - 100, 8, false);
        c2 = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &no_disk, &c2), 0);
        if (c2) {
                touch_core(c2);
                CHECK(has_problem(c2, "offset"));
                pkgnote_core_free(c2);
        }
}

/* The core's own PT_NOTE is hostile. */
static void test_core_note_segment_hostile(void) {
        for (int v = 0; v < 4; v++) {
                struct cb_spec s;
                base_spec(&s, true, false);
                build(&s);
                uint8_t *ph = core_buf + cb_phdr_offset(&s, 0);
                switch (v) {
                case 0: cb_put(ph + 32, 1ull << 62, 8, false); break;       /* p_filesz huge */
                case 1: cb_put(ph + 8, core_len + 1, 8, false); break;      /* beyond the file */
                case 2: cb_put(ph + 8, UINT64_MAX - 3, 8, false); break;    /* wraps */
                case 3: /* the first note's descsz */
                        cb_put(core_buf + cb_phdr_offset(&s, 1 + s.n_maps) + 4, 0xfffffff0u, 4, false);
                        break;
                }
                pkgnote_core *c = NULL;
                int r = pkgnote_core_from_memory(core_buf, core_len, &no_disk, &c);
                if (r < 0)
                        CHECK(pkgnote_last_error() && pkgnote_last_error()[0]);
                else {
                        touch_core(c);
                        CHECK(pkgnote_core_problem_count(c) > 0);
                        pkgnote_core_free(c);
                }
        }
}

/* NT_PRPSINFO of a machine no port is known for: 136 bytes (64-bit), 128
 * (32-bit ids), 124 (16-bit ids), in both byte orders; others refused. */
static void test_prpsinfo_layouts(void) {
        static const struct {
                bool is64;
                unsigned size;
                int uid, gid;
        } cases[] = {
                {true, 136, 70000, 70001},
                {false, 128, 70000, 70001},
                {false, 124, 65534, 1234},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
                for (int be = 0; be < 2; be++) {
                        struct cb_spec s;
                        base_spec(&s, cases[i].is64, be);
                        s.machine = 0x7777; /* no known port: the size decides */
                        s.prpsinfo_size = cases[i].size;
                        s.uid = cases[i].uid;
                        s.gid = cases[i].gid;
                        s.comm = "fifteen-chars-x";
                        s.args = "a very long command line that goes on and on, more than eighty bytes in all, yes indeed";
                        pkgnote_core *c = open_spec(&s, 0);
                        if (!c)
                                continue;
                        pkgnote_process_info p = {.size = sizeof p};
                        pkgnote_core_process(c, &p);
                        CHECK_INT(p.uid, cases[i].uid);
                        CHECK_INT(p.gid, cases[i].gid);
                        CHECK_STR(p.command, "fifteen-chars-x");
                        CHECK(p.arguments && strlen(p.arguments) == 79);
                        CHECK(p.arguments && !strncmp(p.arguments, s.args, 79));
                        CHECK_INT(pkgnote_core_problem_count(c), 0);
                        pkgnote_core_free(c);
                }
        struct cb_spec s;
        base_spec(&s, true, false);
        s.prpsinfo_size = 100;
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                CHECK(has_problem(c, "unknown layout"));
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.uid, -1);
                CHECK(p.command == NULL);
                pkgnote_core_free(c);
        }
        /* A 16-byte command with no NUL and psargs padded with spaces. */
        base_spec(&s, true, true);
        s.comm = "sixteen-chars-xy";
        s.args = "prog arg      ";
        c = open_spec(&s, 0);
        if (c) {
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_STR(p.command, "sixteen-chars-xy");
                CHECK_STR(p.arguments, "prog arg");
                pkgnote_core_free(c);
        }
}

static void test_process_notes_hostile(void) {
        /* NT_PRSTATUS too short, no siginfo: no thread id, signal from
         * nowhere; the process id still comes from NT_PRPSINFO. */
        struct cb_spec s;
        base_spec(&s, true, false);
        s.prstatus_size = 20;
        s.no_siginfo = true;
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                CHECK(has_problem(c, "NT_PRSTATUS of 20 bytes is too short"));
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.tid, -1);
                CHECK_INT(p.pid, 100);
                CHECK_INT(p.signal, 0);
                CHECK_INT(p.has_fault_address, 0);
                pkgnote_core_free(c);
        }
        /* kill(2): si_code SI_USER, si_addr is not an address. */
        base_spec(&s, true, false);
        s.si_code = 0;
        s.fault_addr = 0x1234;
        c = open_spec(&s, 0);
        if (c) {
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.signal, 11);
                CHECK_INT(p.has_fault_address, 0);
                pkgnote_core_free(c);
        }
        /* No NT_FILE, no auxv, no prpsinfo: still a core, with a problem.
         * Two threads: the crashing one's id is not the process's. */
        base_spec(&s, false, true);
        s.no_file_note = s.no_auxv = s.no_prpsinfo = true;
        c = open_spec(&s, 0);
        if (c) {
                CHECK(has_problem(c, "no NT_FILE"));
                /* No auxv, no dynamic linker's list: the dumped ELF headers. */
                CHECK_INT(pkgnote_core_module_count(c), 2);
                for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                        CHECK_STR(pkgnote_module_found_by(pkgnote_core_module(c, i)), "elf-header");
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK(p.executable == NULL);
                CHECK_INT(p.pid, -1);
                CHECK_INT(p.tid, 100);
                CHECK_INT(p.ppid, 1);
                pkgnote_core_free(c);
        }
        /* The same with one thread: that thread is the process. */
        s.n_threads = 1;
        c = open_spec(&s, 0);
        if (c) {
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.pid, 100);
                CHECK_INT(p.tid, 100);
                pkgnote_core_free(c);
        }
        /* AT_EXECFN at a page without a NUL, then at an address not dumped:
         * the executable's module path is used instead. */
        for (int v = 0; v < 2; v++) {
                base_spec(&s, true, false);
                if (v == 0) {
                        memset(page_stack, 'A', sizeof page_stack);
                        s.maps[4].data = page_stack;
                } else
                        s.auxv[2][1] = 0xdead0000u;
                c = open_spec(&s, 0);
                if (c) {
                        pkgnote_process_info p = {.size = sizeof p};
                        pkgnote_core_process(c, &p);
                        CHECK_STR(p.executable, EXE_PATH);
                        pkgnote_core_free(c);
                }
        }
        /* More threads than the limits: the note count per object
         * (PKGNOTE_MAX_NOTES) is met first, and said. */
        base_spec(&s, true, false);
        s.more_threads = PKGNOTE_MAX_THREADS + 10;
        c = open_spec(&s, 0);
        if (c) {
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK(pkgnote_core_thread_count(c) > 4000 && pkgnote_core_thread_count(c) <= PKGNOTE_MAX_THREADS);
                CHECK(has_problem(c, "notes, ignoring the rest"));
                CHECK_INT(p.pid, 100);
                CHECK_INT(pkgnote_core_thread(c, 0)->tid, 100);
                CHECK_INT(pkgnote_core_thread(c, 2)->tid, 10000);
                CHECK_INT(pkgnote_core_module_count(c), 2);
                pkgnote_core_free(c);
        }
}

/* Regression: the process id was the first NT_PRSTATUS's pr_pid, which is
 * the crashing thread; when another thread than the main one crashed, it
 * is not the process (eu-stack: "PID 100 - core", "TID 104").  The process
 * id is NT_PRPSINFO's, the crashing thread's reported apart. */
static void test_bug_pid_is_crashing_thread(void) {
        for (int v = 0; v < 4; v++) {
                struct cb_spec s;
                base_spec(&s, v & 1, v & 2);
                s.pid = 100;
                s.tids[0] = 104;
                s.tids[1] = 100;
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.pid, 100);
                CHECK_INT(p.tid, 104);
                CHECK_INT(p.ppid, 1);
                CHECK_INT(pkgnote_core_thread(c, 0)->tid, 104);
                CHECK_INT(pkgnote_core_thread_count(c), 2);
                pkgnote_core_free(c);
        }
}

/* Regression: NT_PRSTATUS and NT_PRPSINFO offsets were assumed from the
 * class alone; on m68k (longs aligned to 2 bytes) pid and ppid were read
 * 2 bytes off.  Each Linux port's layout (layouts.h, checked against the
 * port's compiler by cmd-core-cross): the reader's offsets, then a core
 * in that layout read back field by field. */
static void test_bug_process_note_layouts_per_architecture(void) {
#define ROW(row, cc, machine_, class_, be_, uid_type, st_pid, ps_uid, ps_pid, ps_fname, ps_size)                   \
        {machine_, class_ == 64, be_, sizeof(uid_type), {st_pid, ps_uid, sizeof(uid_type), ps_pid, ps_fname, ps_size}},
        static const struct {
                unsigned machine;
                bool is64, be;
                size_t uid_size;
                struct cb_layout l;
        } rows[] = {PN_LAYOUTS(ROW)};
#undef ROW
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                struct pn_core_layout l;
                CHECK(pn_core_layout(rows[i].machine, rows[i].is64, &l));
                CHECK_INT(l.prstatus_pid, rows[i].l.prstatus_pid);
                CHECK_INT(l.prpsinfo_uid, rows[i].l.prpsinfo_uid);
                CHECK_INT(l.id_size, rows[i].uid_size);
                CHECK_INT(l.prpsinfo_pid, rows[i].l.prpsinfo_pid);
                CHECK_INT(l.prpsinfo_fname, rows[i].l.prpsinfo_fname);
                CHECK_INT(l.prpsinfo_size, rows[i].l.prpsinfo_size);

                struct cb_spec s;
                base_spec(&s, rows[i].is64, rows[i].be);
                s.machine = (uint16_t)rows[i].machine;
                s.layout = &rows[i].l;
                s.prpsinfo_size = 0;
                s.pid = 4321;
                s.tids[0] = 4325;
                s.tids[1] = 4321;
                s.ppid = 77;
                s.uid = rows[i].uid_size == 2 ? 65000 : 70000;
                s.gid = rows[i].uid_size == 2 ? 1234 : 70001;
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.pid, 4321);
                CHECK_INT(p.tid, 4325);
                CHECK_INT(p.ppid, 77);
                CHECK_INT(p.uid, s.uid);
                CHECK_INT(p.gid, s.gid);
                CHECK_STR(p.command, "prog");
                CHECK_STR(p.arguments, "prog --flag");
                CHECK_INT(pkgnote_core_thread(c, 1)->tid, 4321);
                CHECK_INT(pkgnote_core_problem_count(c), 0);
                pkgnote_core_free(c);
        }
        /* A known port with another port's NT_PRPSINFO size: read by its
         * size, and said. */
        struct cb_spec s;
        base_spec(&s, false, false);
        s.prpsinfo_size = 128; /* i386's is 124 */
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                CHECK(has_problem(c, "does not have this architecture's layout (124 bytes)"));
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                CHECK_INT(p.uid, 1000);
                CHECK_STR(p.command, "prog");
                pkgnote_core_free(c);
        }
}

/* Regression: AT_EXECFN pointing at zeros with no NT_FILE gave the
 * executable "" (eu-unstrip -n --core names no main module either).  An
 * empty name is no name: the main module, then pr_fname, else NULL. */
static void test_bug_empty_executable_name(void) {
        for (int v = 0; v < 3; v++) {
                struct cb_spec s;
                base_spec(&s, true, false);
                memset(page_stack, 0, sizeof page_stack);
                s.maps[4].data = page_stack;
                if (v >= 1)
                        s.no_file_note = true;
                if (v == 2)
                        s.no_prpsinfo = true;
                pkgnote_core *c = open_spec(&s, 0);
                if (!c)
                        continue;
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                if (v == 0)
                        CHECK_STR(p.executable, EXE_PATH);
                else if (v == 1)
                        CHECK_STR(p.executable, "prog");
                else
                        CHECK(p.executable == NULL);
                pkgnote_core_free(c);
        }
}

static void test_not_a_core(void) {
        pkgnote_core *c = NULL;
        CHECK_INT(pkgnote_core_from_memory("hello, world", 12, &no_disk, &c), -ENOEXEC);
        CHECK(pkgnote_last_error() && pkgnote_last_error()[0]);
        CHECK_INT(pkgnote_core_from_memory(page_exe, 0, &no_disk, &c), -ENOEXEC);
        struct cb_spec s;
        base_spec(&s, true, false);
        CHECK_INT(pkgnote_core_from_memory(page_exe, sizeof page_exe, &no_disk, &c), -EINVAL);
        CHECK(strstr(pkgnote_last_error(), "not a core file") != NULL);
        CHECK(c == NULL);
        pkgnote_core_free(NULL);
}

/* More modules than the limit: the first 4096 kept, the rest reported. */
static void test_module_limit(void) {
        size_t count = PKGNOTE_MAX_MODULES + 100;
        size_t len = 16 + count * 24 + count * 2;
        uint8_t *d = calloc(1, len);
        cb_put(d, count, 8, false);
        cb_put(d + 8, 4096, 8, false);
        for (size_t i = 0; i < count; i++) {
                /* Every mapping starts at the library's dumped page. */
                cb_put(d + 16 + i * 24, LIB_BASE, 8, false);
                cb_put(d + 16 + i * 24 + 8, LIB_BASE + 0x1000 + i, 8, false);
        }
        for (size_t i = 0; i < count; i++)
                /* Alternating paths: an offset-0 mapping right after one of
                 * the same file would continue that module. */
                d[16 + count * 24 + 2 * i] = i % 2 ? 'y' : 'x';
        struct cb_spec s;
        base_spec(&s, true, false);
        s.file_note = d;
        s.file_note_len = len;
        pkgnote_core *c = open_spec(&s, 0);
        if (c) {
                /* One start address: one module. */
                CHECK_INT(pkgnote_core_module_count(c), 1);
                pkgnote_core_free(c);
        }
        for (size_t i = 0; i < count; i++) {
                cb_put(d + 16 + i * 24, LIB_BASE + i * 0x10000, 8, false);
                cb_put(d + 16 + i * 24 + 8, LIB_BASE + i * 0x10000 + 0x1000, 8, false);
        }
        c = open_spec(&s, 0);
        if (c) {
                /* Two files at 4,196 places: past the limit, each keeps 16
                 * places, said, and the limit is not reached. */
                CHECK(has_problem(c, "x mapped at more than 16 places"));
                CHECK(has_problem(c, "y mapped at more than 16 places"));
                CHECK(!has_problem(c, "more than 4096 modules"));
                CHECK_INT(pkgnote_core_module_count(c), 32);
                pkgnote_core_free(c);
        }
        free(d);
        /* 4,196 files, a place each: the limit, said. */
        len = 16 + count * 24 + count * 6;
        d = calloc(1, len);
        cb_put(d, count, 8, false);
        cb_put(d + 8, 4096, 8, false);
        for (size_t i = 0; i < count; i++) {
                cb_put(d + 16 + i * 24, LIB_BASE + i * 0x10000, 8, false);
                cb_put(d + 16 + i * 24 + 8, LIB_BASE + i * 0x10000 + 0x1000, 8, false);
                snprintf((char *)d + 16 + count * 24 + 6 * i, 6, "%05zu", i);
        }
        s.file_note = d;
        s.file_note_len = len;
        c = open_spec(&s, 0);
        if (c) {
                CHECK(has_problem(c, "more than 4096 modules"));
                CHECK(!has_problem(c, "places"));
                CHECK_INT(pkgnote_core_module_count(c), PKGNOTE_MAX_MODULES);
                pkgnote_core_free(c);
        }
        free(d);
}

/* The reader finds the PT_LOAD of an address by binary search over spans
 * built once (08-core-base.c); its answers must be those of the walk over the
 * loads in header order that it does when the spans cannot be built (and
 * did always before), whatever the loads: overlapping, unordered, empty,
 * reaching the end of the address space, with file offsets whose sum with
 * an address overflows.  Compared at every edge of every load and at
 * random addresses, over random sets of loads. */
static uint64_t rnd64(uint64_t *state) { /* xorshift64 */
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        return *state;
}

/* A value of one of the sizes that matter: small, page-sized, huge, or
 * just below the end of the address space. */
static uint64_t rnd_edge(uint64_t *st) {
        switch (rnd64(st) % 6) {
        case 0: return 0;
        case 1: return rnd64(st) % 64;
        case 2: return (rnd64(st) % 16) * 0x1000;
        case 3: return UINT64_MAX - rnd64(st) % 0x3000;
        case 4: return rnd64(st);
        default: return 0x400000 + (rnd64(st) % 32) * 0x800;
        }
}

static void test_load_lookup_matches_walk(void) {
        uint64_t st = 0x9e3779b97f4a7c15ull;
        size_t mismatches = 0, queries = 0;
        for (int round = 0; round < 300; round++) {
                int n = 1 + (int)(rnd64(&st) % 40);
                size_t len = 64 + (size_t)n * 56;
                uint8_t *d = calloc(1, len);
                memcpy(d, "\177ELF\2\1\1", 7);
                cb_put(d + 16, 4, 2, false);
                cb_put(d + 18, 62, 2, false);
                cb_put(d + 32, 64, 8, false);
                cb_put(d + 54, 56, 2, false);
                cb_put(d + 56, (uint64_t)n, 2, false);
                for (int i = 0; i < n; i++) {
                        uint8_t *p = d + 64 + 56 * (size_t)i;
                        cb_put(p, rnd64(&st) % 5 ? 1 : 4, 4, false); /* PT_LOAD, sometimes PT_NOTE */
                        cb_put(p + 8, rnd_edge(&st), 8, false);       /* p_offset */
                        cb_put(p + 16, rnd_edge(&st), 8, false);      /* p_vaddr */
                        cb_put(p + 32, rnd_edge(&st), 8, false);      /* p_filesz */
                        cb_put(p + 40, rnd_edge(&st), 8, false);      /* p_memsz */
                }
                pkgnote_core c = {0};
                CHECK_INT(pkgnote_object_from_memory(d, len, &c.view), 0);
                if (!c.view) {
                        free(d);
                        continue;
                }
                pkgnote_core walk = {.view = c.view, .loads_failed = true}; /* the same loads, walked */
                const pkgnote_phdr *ph;
                int nph = pn_object_phdrs(c.view, &ph);
                for (int i = 0; i < nph * 8 + 64; i++) {
                        uint64_t addr;
                        if (i < nph * 8) {
                                /* Each edge and the byte before it: start, end of the
                                 * dumped bytes, end of the memory, and the first
                                 * address whose file offset would pass UINT64_MAX. */
                                const pkgnote_phdr *q = &ph[i / 8];
                                uint64_t base[] = {q->vaddr, q->vaddr + q->filesz, q->vaddr + q->memsz,
                                                   q->vaddr + (UINT64_MAX - q->offset) + 1};
                                addr = base[(i % 8) / 2] - (uint64_t)(i % 2);
                        } else
                                addr = i % 3 ? rnd_edge(&st) : rnd64(&st);
                        uint64_t off = 0, avail = 0, woff = 0, wavail = 0;
                        bool got = pn_core_dumped_at(&c, addr, &off, &avail),
                             want = pn_core_dumped_at(&walk, addr, &woff, &wavail);
                        queries++;
                        if (got != want || (got && (off != woff || avail != wavail)) ||
                            pn_core_mapped_at(&c, addr) != pn_core_mapped_at(&walk, addr))
                                mismatches++;
                }
                CHECK(c.loads != NULL && walk.loads == NULL); /* the index answered, and the walk */
                pn_core_loads_free(c.loads);
                pkgnote_object_free(c.view);
                free(d);
        }
        CHECK_INT(mismatches, 0);
        CHECK(queries > 10000);
}


/* systemd-coredump's store names: a valid one parses to its parts, a
 * truncated one is refused, and values are bounded, NUL-free and made valid UTF-8. */
static void test_systemd_store_names_and_values(void) {
        const char *name = "core.a\\x2eb.1000.af33c844f3034db4ba0e9bf31df11b33.18821.1796529037000000.zst";
        struct pn_sd_name n;
        CHECK_INT(pn_sd_parse_name(name, &n), 0);
        CHECK_STR(n.comm, "a.b");
        CHECK_INT((long long)n.uid, 1000);
        CHECK_INT((long long)n.pid, 18821);
        CHECK(n.usec == 1796529037000000ull);
        CHECK_STR(n.boot_id, "af33c844f3034db4ba0e9bf31df11b33");
        CHECK_STR(n.compression, "zst");
        /* A prefix parses only where it ends inside the time's digits
         * (a shorter time is still a time), never elsewhere. */
        char buf[256];
        size_t len = strlen(name), usec_end = len - 4, usec_start = usec_end - 16;
        for (size_t i = 0; i < len; i++) {
                memcpy(buf, name, i);
                buf[i] = 0;
                int r = pn_sd_parse_name(buf, &n);
                if (i > usec_start && i <= usec_end)
                        CHECK_INT(r, 0);
                else
                        CHECK_INT(r, -EBADMSG);
        }
        CHECK(pn_sd_parse_name("core.x.0.AF33C844F3034DB4BA0E9BF31DF11B33.1.2", &n) < 0);
        CHECK(pn_sd_parse_name("core.x\\x00.0.af33c844f3034db4ba0e9bf31df11b33.1.2", &n) < 0);
        CHECK(pn_sd_parse_name("core.x.0.af33c844f3034db4ba0e9bf31df11b33.0.2", &n) < 0);
        CHECK(pn_sd_parse_name("core.x.0.af33c844f3034db4ba0e9bf31df11b33.1.2.gz", &n) < 0);
        CHECK(pn_sd_parse_name("core.x.01.af33c844f3034db4ba0e9bf31df11b33.1.2", &n) < 0);
        char *v;
        CHECK_INT(pn_sd_value("a\xff\x1b" "b", 4, &v), 0);
        CHECK_STR(v, "a\\xff\x1b" "b");
        free(v);
        CHECK_INT(pn_sd_value("a\0b", 3, &v), -EBADMSG);
        static char big[PKGNOTE_MAX_CRASH_FIELD + 1];
        CHECK_INT(pn_sd_value(big, sizeof big, &v), -E2BIG);
        uint64_t u;
        CHECK_INT(pn_crash_parse_number("18446744073709551616", 20, UINT64_MAX, &u), -EBADMSG);
        CHECK_INT(pn_crash_parse_number("18446744073709551615", 20, UINT64_MAX, &u), 0);
        CHECK(u == UINT64_MAX);
}

/* ---- packages from the package database ---- */

/* Writes LEN bytes at DATA to DIR/REL, its directories made; with DATA
 * NULL, removes it. */
static void put_file(const char *dir, const char *rel, const void *data, size_t len) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (!data) {
                unlink(path);
                return;
        }
        for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
                *p = 0;
                mkdir(path, 0755);
                *p = '/';
        }
        FILE *f = fopen(path, "w");
        CHECK(f && fwrite(data, 1, len, f) == len);
        if (f)
                fclose(f);
}

static pkgnote_core *open_in_root(const struct cb_spec *s, const char *root, int no_database) {
        build(s);
        pkgnote_core_options o = {.size = sizeof o, .root = root, .no_database = no_database};
        pkgnote_core *c = NULL;
        CHECK_INT(pkgnote_core_from_memory(core_buf, core_len, &o, &c), 0);
        if (c)
                touch_core(c);
        return c;
}

/* A library without a package note gets the package dpkg says owns its
 * path (under dpkg's /lib spelling of /usr/lib), only when the file at
 * the path has the core's build-id: another build there is "replaced",
 * none "deleted", a core without build-id "unverified", and none of these
 * claims the package.  The executable's note wins over the database,
 * which disagrees with it. */
static void test_database_build_id_match(void) {
        char dir[] = "/tmp/test-core-db.XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        static const char status[] = "Package: libthing1\nStatus: install ok installed\nArchitecture: amd64\n"
                                     "Source: thing (2.3-4)\nVersion: 2.3-4\n\n"
                                     "Package: prog\nStatus: install ok installed\nArchitecture: amd64\nVersion: 0.9-1\n";
        put_file(dir, "var/lib/dpkg/status", status, strlen(status));
        put_file(dir, "var/lib/dpkg/info/libthing1:amd64.list", "/lib/libthing.so.1\n", 19);
        put_file(dir, "var/lib/dpkg/info/prog.list", "/usr/bin/prog\n", 14);
        struct cb_spec s;
        base_spec(&s, true, false);
        module_page(page_lib, true, false, 62, id_lib, NULL);
        static uint8_t same[4096], other[4096];
        memcpy(same, page_lib, sizeof same);
        module_page(other, true, false, 62, id_exe, NULL);
        put_file(dir, "usr/bin/prog", page_exe, sizeof page_exe);

        put_file(dir, "usr/lib/libthing.so.1", same, sizeof same);
        pkgnote_core *c = open_in_root(&s, dir, 0);
        const pkgnote_module *lib = c ? find(c, LIB_PATH) : NULL, *exe = c ? find(c, EXE_PATH) : NULL;
        CHECK(lib && exe);
        if (lib && exe) {
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_OWNED);
                CHECK_INT(pkgnote_module_package_origin(lib), PKGNOTE_ORIGIN_DATABASE);
                CHECK_STR(pkgnote_module_db_name(lib), "libthing1");
                CHECK_STR(pkgnote_module_db_version(lib), "2.3-4");
                CHECK_STR(pkgnote_module_db_source(lib), "thing");
                CHECK_STR(pkgnote_module_db_type(lib), "deb");
                CHECK_INT(pkgnote_module_db_mismatch(lib), 0);
                CHECK_INT(pkgnote_module_package_origin(exe), PKGNOTE_ORIGIN_CORE_NOTE);
                CHECK_INT(pkgnote_module_db_state(exe), PKGNOTE_DB_OWNED);
                CHECK_INT(pkgnote_module_db_mismatch(exe), 1);
                CHECK_STR(pkgnote_origin_name(pkgnote_module_package_origin(lib)), "database");
        }
        pkgnote_core_free(c);

        put_file(dir, "usr/lib/libthing.so.1", other, sizeof other);
        c = open_in_root(&s, dir, 0);
        lib = c ? find(c, LIB_PATH) : NULL;
        if (lib) {
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_REPLACED);
                CHECK_INT(pkgnote_module_package_origin(lib), PKGNOTE_ORIGIN_NONE);
                CHECK_STR(pkgnote_module_db_name(lib), "libthing1"); /* installed now, not claimed */
        }
        pkgnote_core_free(c);

        put_file(dir, "usr/lib/libthing.so.1", NULL, 0);
        c = open_in_root(&s, dir, 0);
        lib = c ? find(c, LIB_PATH) : NULL;
        if (lib) {
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_DELETED);
                CHECK_INT(pkgnote_module_package_origin(lib), PKGNOTE_ORIGIN_NONE);
        }
        pkgnote_core_free(c);

        /* A library page with no build-id: the file there cannot be told. */
        put_file(dir, "usr/lib/libthing.so.1", same, sizeof same);
        static const uint8_t abi[16] = {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
        size_t n = mk_note(region, false, "GNU", 4, 1, abi, 16, 16, 4);
        struct mk_spec ms = {.is64 = true, .type = 3, .machine = 62, .no_sections = true};
        ms.blobs[0] = (struct mk_blob){region, n, 4, true, false, NULL};
        ms.n_blobs = 1;
        memset(page_lib, 0, sizeof page_lib);
        CHECK(mk_elf(&ms, page_lib, sizeof page_lib) > 0);
        c = open_in_root(&s, dir, 0);
        lib = c ? find(c, LIB_PATH) : NULL;
        if (lib) {
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_UNVERIFIED);
                CHECK_INT(pkgnote_module_package_origin(lib), PKGNOTE_ORIGIN_NONE);
        }
        pkgnote_core_free(c);

        /* Not asked: when told so, and when every module has a note. */
        c = open_in_root(&s, dir, 1);
        lib = c ? find(c, LIB_PATH) : NULL;
        if (lib)
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_NOT_ASKED);
        pkgnote_core_free(c);
        base_spec(&s, true, false);
        c = open_in_root(&s, dir, 0);
        lib = c ? find(c, LIB_PATH) : NULL;
        if (lib) {
                CHECK_INT(pkgnote_module_db_state(lib), PKGNOTE_DB_NOT_ASKED);
                CHECK_INT(pkgnote_module_package_origin(lib), PKGNOTE_ORIGIN_CORE_NOTE);
                CHECK(pkgnote_module_db_name(lib) == NULL);
        }
        pkgnote_core_free(c);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK_INT(system(cmd), 0);
}

/* The table of crash stores: each row a store of its own bit and the
 * name the public API gives it, with the operations every store has. */
static void test_crash_store_table(void) {
        const struct pn_crash_store *rows[] = {&pn_crash_store_pkgnote, &pn_crash_store_journal, &pn_crash_store_systemd};
        unsigned seen = 0;
        for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
                CHECK(rows[i]->load && rows[i]->open);
                CHECK((seen & rows[i]->bit) == 0);
                seen |= rows[i]->bit;
                CHECK_STR(pkgnote_crash_store_name((int)rows[i]->bit), rows[i]->name);
        }
        CHECK_INT(seen, PKGNOTE_CRASH_STORE_PKGNOTE | PKGNOTE_CRASH_STORE_SYSTEMD | PKGNOTE_CRASH_STORE_JOURNAL);
        CHECK(pkgnote_crash_store_name(1 << 20) == NULL);
        /* pkgnote's store takes in the journal's copies of its crashes. */
        CHECK_INT(pn_crash_store_pkgnote.copies_in, PKGNOTE_CRASH_STORE_JOURNAL);
}

/* pkgnote-coredump's store names (lib/11-crash.c): core.COMM.UID.PID.TIME
 * and the report's or the core's suffix; every truncated prefix of a name
 * is refused, as are signs, leading zeros, a '.' in COMM and numbers out
 * of range. */
static void test_crash_store_names(void) {
        char name[128], buf[128];
        struct pn_crash_name n;
        snprintf(name, sizeof name, "core.a-b_1.1000.18821.1700000000%s", PN_CRASH_CORE_SUFFIX);
        CHECK_INT(pn_crash_parse_name(name, &n), 0);
        CHECK_STR(n.entry, "core.a-b_1.1000.18821.1700000000");
        CHECK_INT((long long)n.uid, 1000);
        CHECK_INT((long long)n.pid, 18821);
        CHECK_INT((long long)n.time, 1700000000);
        CHECK(!n.report);
        CHECK_INT(pn_crash_parse_name("core.x.0.1.2.json", &n), 0);
        CHECK(n.report);
        /* Prefixes: none parses, but where the core has no suffix (a
         * build without zstd) and the prefix ends inside the time. */
        size_t len = strlen(name), time_end = len - strlen(PN_CRASH_CORE_SUFFIX), time_start = time_end - 10;
        for (size_t i = 0; i < len; i++) {
                memcpy(buf, name, i);
                buf[i] = 0;
                int r = pn_crash_parse_name(buf, &n);
                if (!*PN_CRASH_CORE_SUFFIX && i > time_start && i <= time_end)
                        CHECK_INT(r, 0);
                else
                        CHECK_INT(r, -EBADMSG);
        }
        static const char *const bad[] = {
                "core..0.1.2.json",          "core.a.b.0.1.2.json",  "core.a.01.1.2.json",   "core.a.-1.1.2.json",
                "core.a.4294967296.1.2.json", "core.a.0.2147483648.2.json", "core.a.0.1.json", "core.a.0.1.2.3.json",
                "core.a/b.0.1.2.json",       "core.a.0.1.2.json.json", "xore.a.0.1.2.json",  "core.a.0.1.+2.json",
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
                if (pn_crash_parse_name(bad[i], &n) != -EBADMSG) {
                        fprintf(stderr, "accepted: %s\n", bad[i]);
                        CHECK(false);
                }
        /* Longer than any entry: refused whatever its end. */
        char long_name[400];
        memset(long_name, 'a', sizeof long_name);
        memcpy(long_name, "core.", 5);
        snprintf(long_name + 300, 100, ".0.1.2.json");
        CHECK_INT(pn_crash_parse_name(long_name, &n), -EBADMSG);
}

/* A journal entry is merged into an entry of pkgnote's store only when it
 * is pkgnote-coredump's (logged by it as root) and names the store's core
 * by its file name with the same PID, UID, time and boot. */
static void test_crash_journal_names(void) {
        char core[256], file[256];
        snprintf(core, sizeof core, "/var/lib/pkgnote/coredump/core.crasher.0.4242.1700000000%s", PN_CRASH_CORE_SUFFIX);
        snprintf(file, sizeof file, "/elsewhere/core.crasher.0.4242.1700000000%s", PN_CRASH_CORE_SUFFIX);
        struct pkgnote_crash s = {.store = PKGNOTE_CRASH_STORE_PKGNOTE, .core = core,
                                  .j = json_pack("{s:s}", "bootId", "af33c844f3034db4ba0e9bf31df11b33")};
        struct pkgnote_crash j = {.store = PKGNOTE_CRASH_STORE_JOURNAL, .pkgnote_handler = true,
                                  .j = json_pack("{s:s,s:s,s:s,s:s,s:s}", "COREDUMP_FILENAME", file, "COREDUMP_PID", "4242",
                                                 "COREDUMP_UID", "0", "COREDUMP_TIMESTAMP", "1700000000000000", "_BOOT_ID",
                                                 "af33c844f3034db4ba0e9bf31df11b33")};
        CHECK(s.j && j.j);
        CHECK(pn_crash_journal_names(&s, &j));
        /* Not logged by pkgnote-coredump as root. */
        j.pkgnote_handler = false;
        CHECK(!pn_crash_journal_names(&s, &j));
        j.pkgnote_handler = true;
        /* Each fact that differs. */
        static const char *const other[][2] = {
                {"COREDUMP_PID", "4243"},
                {"COREDUMP_PID", "04242"},
                {"COREDUMP_UID", "1000"},
                {"COREDUMP_TIMESTAMP", "1700000000000001"},
                {"COREDUMP_TIMESTAMP", "1700000001000000"},
                {"_BOOT_ID", "00000000000000000000000000000000"},
                {"COREDUMP_FILENAME", "/var/lib/pkgnote/coredump/core.crasher.0.4242.1700000000.json"},
                {"COREDUMP_FILENAME", "core.crasher.0.4242.1700000000"},
        };
        for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
                json_t *keep = json_incref(json_object_get(j.j, other[i][0]));
                json_object_set_new(j.j, other[i][0], json_string(other[i][1]));
                if (pn_crash_journal_names(&s, &j)) {
                        fprintf(stderr, "merged with %s=%s\n", other[i][0], other[i][1]);
                        CHECK(false);
                }
                json_object_set_new(j.j, other[i][0], keep);
        }
        json_object_del(j.j, "_BOOT_ID");
        CHECK(!pn_crash_journal_names(&s, &j));
        /* A report without a boot (an older one): PID, UID and time. */
        json_object_del(s.j, "bootId");
        CHECK(pn_crash_journal_names(&s, &j));
        /* Only a journal entry into a pkgnote entry. */
        s.store = PKGNOTE_CRASH_STORE_SYSTEMD;
        CHECK(!pn_crash_journal_names(&s, &j));
        json_decref(s.j);
        json_decref(j.j);
}

/* Regression: a compressed core decompressed for a stack trace was held
 * in memory whatever its size (up to half of the machine's).  Past the
 * bound it goes on in an unlinked temporary file in $TMPDIR, read-only,
 * the same bytes, its zero blocks holes, nothing left in $TMPDIR; where
 * $TMPDIR cannot hold one, the core stays in memory and WHY says so. */
static void test_bug_decompressed_core_in_memory(void) {
#if HAVE_ZSTD
        enum { SIZE = 3 << 20, BOUND = 64 << 10 };
        uint8_t *plain = malloc(SIZE), *back = malloc(SIZE);
        size_t cap = ZSTD_compressBound(SIZE);
        uint8_t *z = malloc(cap);
        CHECK(plain && back && z);
        if (!plain || !back || !z)
                return;
        /* Non-zero bytes but every fifth 64 KiB block, which stays a hole. */
        for (size_t i = 0; i < SIZE; i++)
                plain[i] = (i >> 16) % 5 == 3 ? 0 : (uint8_t)((i * 7) | 1);
        memcpy(plain, "\x7f" "ELF", 4);
        size_t zl = ZSTD_compress(z, cap, plain, SIZE, 1);
        CHECK(!ZSTD_isError(zl));
        char dir[] = "/tmp/test-core-spill.XXXXXX", tmp[64], zpath[64];
        CHECK(mkdtemp(dir) != NULL);
        snprintf(tmp, sizeof tmp, "%s/tmp", dir);
        snprintf(zpath, sizeof zpath, "%s/core.zst", dir);
        CHECK_INT(mkdir(tmp, 0700), 0);
        FILE *f = fopen(zpath, "w");
        CHECK(f && fwrite(z, 1, zl, f) == zl);
        if (f)
                fclose(f);
        char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
        /* 0: all in memory; 1: past the bound, a temporary file; 2: past
         * it, $TMPDIR a file, so in memory and said. */
        for (int mode = 0; mode < 3; mode++) {
                setenv("TMPDIR", mode == 2 ? zpath : tmp, 1);
                int fd = open(zpath, O_RDONLY | O_CLOEXEC), out = -1;
                struct pn_core_source *src = NULL;
                char why[512] = "unset";
                CHECK_INT(pn_core_source_open(fd, &src), 0);
                CHECK_INT(pn_core_source_decompress(src, UINT64_MAX, mode ? BOUND : UINT64_MAX, &out, why, sizeof why), 0);
                struct stat st = {0};
                CHECK_INT(fstat(out, &st), 0);
                CHECK_INT((long long)st.st_size, SIZE);
                CHECK(pread(out, back, SIZE, 0) == SIZE && !memcmp(back, plain, SIZE));
                int seals = fcntl(out, F_GET_SEALS);
                if (mode == 1) {
                        /* No memfd but a file of $TMPDIR's file system: a
                         * tmpfs file answers F_GET_SEALS too (F_SEAL_SEAL,
                         * never sealed for writing). */
                        struct stat dst = {0};
                        CHECK_INT(stat(tmp, &dst), 0);
                        CHECK(st.st_dev == dst.st_dev);
                        CHECK(seals < 0 || !(seals & F_SEAL_WRITE));
                        CHECK_INT((int)st.st_nlink, 0);
                        CHECK_INT(fcntl(out, F_GETFL) & O_ACCMODE, O_RDONLY);
                        CHECK_STR(why, "");
                        /* Holes where the zero blocks were. */
                        CHECK((uint64_t)st.st_blocks * 512 < (uint64_t)SIZE);
                } else {
                        CHECK(seals >= 0 && (seals & F_SEAL_WRITE));
                        if (mode == 0)
                                CHECK_STR(why, "");
                        else
                                CHECK(strstr(why, "cannot make a temporary file in '") &&
                                      strstr(why, "(Not a directory): the decompressed core is kept in memory"));
                }
                close(out);
                pn_core_source_free(src);
                close(fd);
                /* Nothing left behind in $TMPDIR. */
                DIR *d = opendir(tmp);
                int left = 0;
                for (struct dirent *de; d && (de = readdir(d));)
                        left += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
                if (d)
                        closedir(d);
                CHECK_INT(left, 0);
        }
        if (old)
                setenv("TMPDIR", old, 1);
        else
                unsetenv("TMPDIR");
        free(old);
        unlink(zpath);
        rmdir(tmp);
        rmdir(dir);
        free(plain);
        free(back);
        free(z);
#endif
}

/* Every truncated prefix of a compressed core, decompressed past the
 * bound into a temporary file: an error, or at most the whole core's
 * bytes, each byte the core's; never a file left in $TMPDIR. */
static void test_decompressed_core_truncated_prefixes(void) {
#if HAVE_ZSTD
        enum { SIZE = 256 << 10, BOUND = 16 << 10 };
        uint8_t *plain = malloc(SIZE), *back = malloc(SIZE);
        size_t cap = ZSTD_compressBound(SIZE);
        uint8_t *z = malloc(cap);
        CHECK(plain && back && z);
        if (!plain || !back || !z)
                return;
        uint32_t x = 1;
        for (size_t i = 0; i < SIZE; i++) {
                /* Some noise, so that the stream has many blocks. */
                x = x * 1103515245u + 12345u;
                plain[i] = (i >> 14) % 3 == 1 ? 0 : (i & 0xff) < 8 ? (uint8_t)(x >> 24) : (uint8_t)i;
        }
        size_t zl = ZSTD_compress(z, cap, plain, SIZE, 1);
        CHECK(!ZSTD_isError(zl));
        char tmp[] = "/tmp/test-core-prefix.XXXXXX";
        CHECK(mkdtemp(tmp) != NULL);
        char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
        setenv("TMPDIR", tmp, 1);
        size_t whole = 0;
        for (size_t len = 0; len <= zl; len++) {
                int fd = memfd_create("prefix", MFD_CLOEXEC), out = -1;
                CHECK(fd >= 0 && write(fd, z, len) == (ssize_t)len && lseek(fd, 0, SEEK_SET) == 0);
                struct pn_core_source *src = NULL;
                char why[256];
                if (pn_core_source_open(fd, &src) == 0 && src &&
                    pn_core_source_decompress(src, UINT64_MAX, BOUND, &out, why, sizeof why) == 0) {
                        struct stat st = {0};
                        CHECK_INT(fstat(out, &st), 0);
                        CHECK(st.st_size <= SIZE);
                        size_t n = (size_t)st.st_size;
                        CHECK(pread(out, back, n, 0) == (ssize_t)n && !memcmp(back, plain, n));
                        whole += n == SIZE;
                        close(out);
                }
                pn_core_source_free(src);
                close(fd);
                DIR *d = opendir(tmp);
                int left = 0;
                for (struct dirent *de; d && (de = readdir(d));)
                        left += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
                if (d)
                        closedir(d);
                if (left) {
                        fprintf(stderr, "prefix of %zu bytes: %d files left\n", len, left);
                        CHECK_INT(left, 0);
                        break;
                }
        }
        /* The whole stream, at least, gives the whole core. */
        CHECK(whole >= 1);
        if (old)
                setenv("TMPDIR", old, 1);
        else
                unsetenv("TMPDIR");
        free(old);
        rmdir(tmp);
        free(plain);
        free(back);
        free(z);
#endif
}

int main(void) {
        RUN(test_valid_all_layouts);
        RUN(test_systemd_store_names_and_values);
        RUN(test_crash_store_names);
        RUN(test_crash_store_table);
        RUN(test_crash_journal_names);
        RUN(test_bug_decompressed_core_in_memory);
        RUN(test_decompressed_core_truncated_prefixes);
        RUN(test_systemd_json_refusals);
        RUN(test_database_build_id_match);
        RUN(test_truncated_prefixes);
        RUN(test_file_note_hostile);
        RUN(test_file_note_hostile_paths);
        RUN(test_module_headers_hostile);
        RUN(test_module_image_from_dumped_pages);
        RUN(test_loads_unordered_overlapping);
        RUN(test_load_lookup_matches_walk);
        RUN(test_core_note_segment_hostile);
        RUN(test_prpsinfo_layouts);
        RUN(test_process_notes_hostile);
        RUN(test_not_a_core);
        RUN(test_module_limit);
        RUN(test_bug_straddling_pt_note_loses_build_id);
        RUN(test_bug_noseparate_code_module_listed_twice);
        RUN(test_bug_no_disk_lists_non_elf_mappings);
        RUN(test_bug_nt_file_quadratic_module_dedup);
        RUN(test_bug_pid_is_crashing_thread);
        RUN(test_bug_empty_executable_name);
        RUN(test_bug_header_page_from_later_mapping);
        RUN(test_bug_no_nt_file_lists_no_modules);
        RUN(test_bug_process_note_layouts_per_architecture);
        free(core_buf);
        return test_summary();
}
