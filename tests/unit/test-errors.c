/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote_last_error() after every exported function (the contract in the
 * conventions of include/pkgnote.h): one row per function of
 * lib/libpkgnote.sym, either a call that makes it fail or the reason it
 * cannot.  Before each failing call a stale message is planted (a failed
 * pkgnote_target_parse() of STALE); after it the result must say failure and the message
 * must be non-empty and not the stale one.  Where a row also has a
 * successful call, the message must be "" after it.  A function that
 * cannot fail must leave the planted message alone.  The names of the
 * table and of the map file (argv[1]) must be the same: a function added
 * without a row fails this test; and the rows that can fail must be the
 * functions lib/01-base-api.py wraps (argv[2], its api-rename.h).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "03-model-embedded.h"
#include "pkgnote.h"
#include "testlib.h"

#define STALE "STALE-SENTINEL"
#define NOPE "/nonexistent/pkgnote-test-errors"
#define JSON_OK "{\"type\":\"rpm\",\"name\":\"hello\",\"version\":\"1.0-1\",\"architecture\":\"x86_64\"}"
#define DLOPEN_OK "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"recommended\"}]"

/* A row's fixture could not be made; NO_PROC: this process could not
 * be read through /proc (a sandbox), and the row is skipped. */
#define NO_FIXTURE (-999)
#define NO_PROC (-998)

static char dir[] = "/tmp/pkgnote-errors.XXXXXX";
static char elf_path[4096];
static uint8_t img[8192];
static size_t img_len;
static pkgnote_object *obj;      /* an ELF view of img */
static pkgnote_metadata *meta;   /* JSON_OK */
static pkgnote_metadata *empty;  /* {} */
static pkgnote_dlopen *dl;       /* DLOPEN_OK */
static pkgnote_dlopen *bad_dl;   /* a priority that is none of the three, a soname that is none */
static pkgnote_deps *deps;       /* one object with DLOPEN_OK, never resolved */
static pkgnote_compose *comp;    /* nothing set */
static pkgnote_scan *scan;       /* nothing added */
static pkgnote_core *self;       /* this process, or NULL when /proc cannot be read */
static pkgnote_info *info;       /* of obj */
static pkgnote_process_sbom *psbom;
static pkgnote_closure *closure; /* below dir */
static pkgnote_verify *verify;   /* of dir */
static pkgnote_filemap *fmap;
static pkgnote_embedded *emb;     /* one Go module, no edges, no settings */
static const pkgnote_target target = {.size = sizeof(pkgnote_target), .name = "x86_64", .elf_class = 64, .machine = 62};

static const pkgnote_note_spec ok_spec[] = {{.size = sizeof(pkgnote_note_spec), .type = PKGNOTE_NT_FDO_PACKAGING_METADATA, .json = JSON_OK}};
static const pkgnote_linker bfd = {.size = sizeof(pkgnote_linker), .kind = PKGNOTE_LINKER_BFD, .major = 2, .minor = 40};

static void report_none(void *u, int error, const char *message) {
        (void)u, (void)error, (void)message;
}

static void lint_none(void *u, const pkgnote_lint_finding *f) {
        (void)u, (void)f;
}

static void tree_none(const pkgnote_stamp_tree_file *f, void *u) {
        (void)f, (void)u;
}

/* Frees the result at P (a char ** or uint8_t **, read after the call
 * wrote it) when the call R succeeded; returns R. */
static long long freed(long long r, void *p) {
        if (r >= 0)
                free(*(void **)p);
        return r;
}

/* ---- calls that fail ------------------------------------------------ */

#define FAIL(fn, ...) static long long fail_##fn(void) __VA_ARGS__
#define OK(fn, ...) static long long ok_##fn(void) __VA_ARGS__

FAIL(pkgnote_object_open, { pkgnote_object *e = NULL; return pkgnote_object_open(NOPE, &e); })
OK(pkgnote_object_open, {
        pkgnote_object *e = NULL;
        int r = pkgnote_object_open(elf_path, &e);
        pkgnote_object_free(e);
        return r;
})
FAIL(pkgnote_object_open_fd, { pkgnote_object *e = NULL; return pkgnote_object_open_fd(-1, &e); })
FAIL(pkgnote_object_from_memory, { pkgnote_object *e = NULL; return pkgnote_object_from_memory(img, 10, &e); })
OK(pkgnote_object_from_memory, {
        pkgnote_object *e = NULL;
        int r = pkgnote_object_from_memory(img, img_len, &e);
        pkgnote_object_free(e);
        return r;
})
/* A view that opens but whose section headers do not: e_shoff points
 * past the end of the bytes (the program headers are checked when it
 * opens, the section headers when first asked for). */
static uint8_t bad_tables[8192];
static pkgnote_object *bad_view(void) {
        static pkgnote_object *e;
        if (!e) {
                memcpy(bad_tables, img, img_len);
                memset(bad_tables + 0x28, 0xff, 8); /* e_shoff */
                if (pkgnote_object_from_memory(bad_tables, img_len, &e) < 0)
                        e = NULL;
        }
        return e;
}
FAIL(pkgnote_object_shdr_count, { return bad_view() ? pkgnote_object_shdr_count(bad_view()) : NO_FIXTURE; })
OK(pkgnote_object_note_count, { return pkgnote_object_note_count(obj); })
/* The second note of img is a build-id note, not JSON. */
FAIL(pkgnote_note_json, {
        const pkgnote_note *n = pkgnote_object_note(obj, 1);
        const char *j;
        size_t len;
        return !n ? NO_FIXTURE : pkgnote_note_json(n, &j, &len);
})
OK(pkgnote_object_build_id, {
        const uint8_t *id;
        size_t len;
        return pkgnote_object_build_id(obj, &id, &len);
})
FAIL(pkgnote_note_encode, {
        uint8_t *b = NULL;
        size_t n;
        char owner[300];
        memset(owner, 'o', sizeof owner - 1);
        owner[sizeof owner - 1] = 0;
        return pkgnote_note_encode(owner, 1, "x", 1, 0, &b, &n);
})
FAIL(pkgnote_package_note_encode, {
        uint8_t *b = NULL;
        size_t n;
        static char big[PKGNOTE_MAX_JSON + 2];
        memset(big, ' ', sizeof big - 1);
        return pkgnote_package_note_encode(big, 0, &b, &n);
})
OK(pkgnote_package_note_encode, {
        uint8_t *b = NULL;
        size_t n;
        return freed(pkgnote_package_note_encode(JSON_OK, 0, &b, &n), &b);
})
OK(pkgnote_metadata_new, {
        pkgnote_metadata *m = NULL;
        int r = pkgnote_metadata_new(&m);
        pkgnote_metadata_free(m);
        return r;
})
FAIL(pkgnote_metadata_parse, { pkgnote_metadata *m = NULL; return pkgnote_metadata_parse("{", 1, &m); })
OK(pkgnote_metadata_parse, {
        pkgnote_metadata *m = NULL;
        int r = pkgnote_metadata_parse(JSON_OK, strlen(JSON_OK), &m);
        pkgnote_metadata_free(m);
        return r;
})
FAIL(pkgnote_metadata_value_json, { char *s = NULL; return pkgnote_metadata_value_json(meta, 99, &s); })
OK(pkgnote_metadata_value_json, { char *s = NULL; return freed(pkgnote_metadata_value_json(meta, 0, &s), &s); })
FAIL(pkgnote_metadata_set, { return pkgnote_metadata_set(empty, "name", "\xff"); })
FAIL(pkgnote_metadata_set_json, { return pkgnote_metadata_set_json(empty, "name", "{"); })
OK(pkgnote_metadata_to_json, { char *s = NULL; return freed(pkgnote_metadata_to_json(meta, &s), &s); })
FAIL(pkgnote_dlopen_parse, { pkgnote_dlopen *d = NULL; return pkgnote_dlopen_parse("[", 1, &d); })
OK(pkgnote_dlopen_to_json, { char *s = NULL; return freed(pkgnote_dlopen_to_json(dl, &s), &s); })
FAIL(pkgnote_dlopen_priority, { return bad_dl ? pkgnote_dlopen_priority(bad_dl, 0) : NO_FIXTURE; })
OK(pkgnote_dlopen_priority, { return pkgnote_dlopen_priority(dl, 0); })
OK(pkgnote_deps_new, {
        pkgnote_deps *d = NULL;
        int r = pkgnote_deps_new(&d);
        pkgnote_deps_free(d);
        return r;
})
FAIL(pkgnote_deps_add, { return bad_dl ? pkgnote_deps_add(deps, "/x", 64, 62, 0, bad_dl) : NO_FIXTURE; })
FAIL(pkgnote_deps_resolve_dpkg, { return pkgnote_deps_resolve_dpkg(deps, NOPE); })
FAIL(pkgnote_deps_priority, { return pkgnote_deps_priority(deps, 99); })
FAIL(pkgnote_deps_resolved, { return pkgnote_deps_resolved(deps, 0); })
FAIL(pkgnote_deps_format, { char *s = NULL; return pkgnote_deps_format(deps, 99, &s); })
OK(pkgnote_info_read, {
        pkgnote_info *i = NULL;
        int r = pkgnote_info_read(obj, &i);
        pkgnote_info_free(i);
        return r;
})
OK(pkgnote_info_dup, {
        pkgnote_info *i = NULL;
        int r = pkgnote_info_dup(info, &i);
        pkgnote_info_free(i);
        return r;
})
FAIL(pkgnote_core_open, { pkgnote_core *c = NULL; return pkgnote_core_open(NOPE, NULL, &c); })
FAIL(pkgnote_core_open_fd, { pkgnote_core *c = NULL; return pkgnote_core_open_fd(-1, NULL, &c); })
FAIL(pkgnote_core_from_memory, { pkgnote_core *c = NULL; return pkgnote_core_from_memory(img, img_len, NULL, &c); })
FAIL(pkgnote_core_process, {
        pkgnote_process_info p = {.size = 1};
        return self ? pkgnote_core_process(self, &p) : NO_PROC;
})
OK(pkgnote_core_process, {
        pkgnote_process_info p = {.size = sizeof p};
        return self ? pkgnote_core_process(self, &p) : 0;
})
FAIL(pkgnote_process_open, { pkgnote_core *c = NULL; return pkgnote_process_open(-1, &c); })
FAIL(pkgnote_process_open_with, { pkgnote_core *c = NULL; return pkgnote_process_open_with(-1, NULL, &c); })
OK(pkgnote_dbcache_new, {
        pkgnote_dbcache *d = NULL;
        int r = pkgnote_dbcache_new(&d);
        pkgnote_dbcache_free(d);
        return r;
})
FAIL(pkgnote_process_open_cached, { pkgnote_core *c = NULL; return pkgnote_process_open_cached(-1, NULL, NULL, &c); })
FAIL(pkgnote_core_stack_with, {
        pkgnote_stack_options o = {.size = 1};
        pkgnote_stack *s = NULL;
        return self ? pkgnote_core_stack_with(self, &o, &s) : NO_PROC;
})
FAIL(pkgnote_crashes_load, {
        pkgnote_crash_options o = {.size = 1};
        pkgnote_crashes *l = NULL;
        return pkgnote_crashes_load(&o, &l);
})
FAIL(pkgnote_os_release_parse, {
        pkgnote_os_release *o = NULL;
        static char big[(64u << 10) + 1];
        memset(big, '\n', sizeof big);
        return pkgnote_os_release_parse(big, sizeof big, &o);
})
FAIL(pkgnote_os_release_read, { pkgnote_os_release *o = NULL; return pkgnote_os_release_read(NOPE, &o); })
FAIL(pkgnote_os_release_read_file, { pkgnote_os_release *o = NULL; return pkgnote_os_release_read_file(NOPE, &o); })
FAIL(pkgnote_nevra_parse, { pkgnote_nevra n = PKGNOTE_NEVRA_INIT; return pkgnote_nevra_parse("", &n); })
OK(pkgnote_nevra_parse, {
        pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
        int r = pkgnote_nevra_parse("hello-1.0-1.x86_64", &n);
        if (r >= 0)
                pkgnote_nevra_clear(&n);
        return r;
})
OK(pkgnote_compose_new, {
        pkgnote_compose *c = NULL;
        int r = pkgnote_compose_new(&c);
        pkgnote_compose_free(c);
        return r;
})
FAIL(pkgnote_compose_set, { return pkgnote_compose_set(comp, "", "x"); })
FAIL(pkgnote_compose_rpm, { return pkgnote_compose_rpm(comp, ""); })
FAIL(pkgnote_compose_document, { return pkgnote_compose_document(comp, "{", 1); })
OK(pkgnote_compose_os_release_file, { return pkgnote_compose_os_release_file(comp, NOPE); })
/* An rpm note from key fields reads os-release for its defaults, and
 * both a root and a file are named for it. */
FAIL(pkgnote_compose_json, {
        pkgnote_compose *c = NULL;
        char *s = NULL;
        if (pkgnote_compose_new(&c) < 0 || pkgnote_compose_set(c, "type", "rpm") < 0 ||
            pkgnote_compose_set(c, "name", "hello") < 0 || pkgnote_compose_os_release(c, dir, 1) < 0 ||
            pkgnote_compose_os_release_file(c, NOPE) < 0) {
                pkgnote_compose_free(c);
                return NO_FIXTURE;
        }
        long long r = freed(pkgnote_compose_json(c, &s), &s);
        pkgnote_compose_free(c);
        return r;
})
FAIL(pkgnote_target_parse, { pkgnote_target t = PKGNOTE_TARGET_INIT; return pkgnote_target_parse("no-such-target", &t); })
OK(pkgnote_target_parse, { pkgnote_target t = PKGNOTE_TARGET_INIT; return pkgnote_target_parse("x86_64", &t); })
FAIL(pkgnote_emit_object, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_emit_object("{", &target, &b, &n);
})
OK(pkgnote_emit_object, {
        uint8_t *b = NULL;
        size_t n;
        return freed(pkgnote_emit_object(JSON_OK, &target, &b, &n), &b);
})
FAIL(pkgnote_emit_asm_target, { char *s = NULL; return pkgnote_emit_asm_target("{", &target, &s); })
FAIL(pkgnote_emit_asm, { char *s = NULL; return pkgnote_emit_asm("{", &s); })
OK(pkgnote_emit_asm, { char *s = NULL; return freed(pkgnote_emit_asm(JSON_OK, &s), &s); })
FAIL(pkgnote_emit_linker_script, { char *s = NULL; return pkgnote_emit_linker_script("{", &s); })
FAIL(pkgnote_dlopen_note_encode, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_dlopen_note_encode("[", 0, &b, &n);
})
FAIL(pkgnote_emit, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_emit(99, ok_spec, 1, &target, &b, &n);
})
FAIL(pkgnote_linker_has_package_metadata, { pkgnote_linker l = {.size = 0}; return pkgnote_linker_has_package_metadata(&l); })
FAIL(pkgnote_linker_decodes_package_metadata, { pkgnote_linker l = {.size = 0}; return pkgnote_linker_decodes_package_metadata(&l); })
FAIL(pkgnote_linker_identify, { pkgnote_linker l = PKGNOTE_LINKER_INIT; return pkgnote_linker_identify("no linker", 9, &l); })
OK(pkgnote_linker_identify, {
        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        static const char v[] = "GNU ld (GNU Binutils) 2.40\n";
        return pkgnote_linker_identify(v, sizeof v - 1, &l);
})
FAIL(pkgnote_ldflags_quote, { char *s = NULL; return freed(pkgnote_ldflags_quote("x", 99, &s), &s); })
FAIL(pkgnote_ldflags_package_metadata, { char *s = NULL; return pkgnote_ldflags_package_metadata("{", 0, &s); })
FAIL(pkgnote_ldflags_package_metadata_for, {
        char *s = NULL;
        return pkgnote_ldflags_package_metadata_for("{", &bfd, 0, &s);
})
FAIL(pkgnote_route_text, { char *s = NULL; return pkgnote_route_text(99, JSON_OK, &bfd, NULL, 0, &s); })
FAIL(pkgnote_cpe_check, { return pkgnote_cpe_check("not a cpe"); })
OK(pkgnote_cpe_check, { return pkgnote_cpe_check("cpe:/o:fedoraproject:fedora:33"); })
OK(pkgnote_lint, { return pkgnote_lint(bad_view() ? bad_view() : obj, lint_none, NULL); })
FAIL(pkgnote_stamp_memory, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_stamp_memory(img, 10, JSON_OK, 0, &b, &n, NULL);
})
FAIL(pkgnote_stamp_file, { return pkgnote_stamp_file(NOPE, NULL, JSON_OK, 0, NULL); })
FAIL(pkgnote_stamp_notes_memory, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_stamp_notes_memory(img, 10, ok_spec, 1, 0, &b, &n, NULL);
})
FAIL(pkgnote_stamp_notes_file, { return pkgnote_stamp_notes_file(NOPE, NULL, ok_spec, 1, 0, NULL); })
FAIL(pkgnote_scan_new, {
        pkgnote_scan_options o = {.size = 1};
        pkgnote_scan *s = NULL;
        return pkgnote_scan_new(&o, &s);
})
OK(pkgnote_scan_new, {
        pkgnote_scan *s = NULL;
        int r = pkgnote_scan_new(NULL, &s);
        pkgnote_scan_free(s);
        return r;
})
FAIL(pkgnote_scan_add, { return pkgnote_scan_add(scan, NOPE); })
FAIL(pkgnote_scan_add_image, { return pkgnote_scan_add_image(scan, NOPE, NULL); })
FAIL(pkgnote_scan_set_platform, { return pkgnote_scan_set_platform(scan, "//"); })
OK(pkgnote_scan_set_platform, { return pkgnote_scan_set_platform(scan, NULL); })
FAIL(pkgnote_scan_get_stats, { pkgnote_scan_stats st = {.size = 1}; return pkgnote_scan_get_stats(scan, &st); })
OK(pkgnote_scan_get_stats, { pkgnote_scan_stats st = {.size = sizeof st}; return pkgnote_scan_get_stats(scan, &st); })
FAIL(pkgnote_scan_db_package_to_json, { char *s = NULL; return pkgnote_scan_db_package_to_json(scan, 99, &s); })
FAIL(pkgnote_purl, { char *s = NULL; return freed(pkgnote_purl(empty, &s), &s); })
OK(pkgnote_purl, { char *s = NULL; return freed(pkgnote_purl(meta, &s), &s); })
FAIL(pkgnote_sbom_write, { char *s = NULL; return pkgnote_sbom_write(scan, 99, NULL, &s); })
OK(pkgnote_process_sbom_new, {
        pkgnote_process_sbom *b = NULL;
        int r = pkgnote_process_sbom_new(&b);
        pkgnote_process_sbom_free(b);
        return r;
})
FAIL(pkgnote_process_sbom_write, { char *s = NULL; return pkgnote_process_sbom_write(psbom, 99, NULL, &s); })
/* The kernel of the fixture tree (kernel_opts(), defined below) added
 * once, then again: the second is refused. */
static pkgnote_kernel_options kernel_opts(void);
static long long add_kernel(int times) {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        pkgnote_process_sbom *b = NULL;
        if (pkgnote_kernel_read(&o, &k) < 0 || pkgnote_process_sbom_new(&b) < 0) {
                pkgnote_kernel_free(k);
                return NO_FIXTURE;
        }
        int r = 0;
        for (int i = 0; i < times && r >= 0; i++)
                r = pkgnote_process_sbom_add_kernel(b, k);
        pkgnote_kernel_free(k);
        pkgnote_process_sbom_free(b);
        return r;
}
FAIL(pkgnote_process_sbom_add_kernel, { return add_kernel(2); })
OK(pkgnote_process_sbom_add_kernel, { return add_kernel(1); })
OK(pkgnote_info_to_json, { char *s = NULL; return freed(pkgnote_info_to_json(info, obj, "x", &s), &s); })
FAIL(pkgnote_core_to_json, {
        static const pkgnote_json_member extra[] = {{.size = sizeof(pkgnote_json_member), .key = NULL, .string = "x"}};
        char *s = NULL;
        return self ? freed(pkgnote_core_to_json(self, NULL, extra, 1, &s), &s) : NO_PROC;
})
OK(pkgnote_lint_finding_to_json, {
        pkgnote_lint_finding f = {.check = pkgnote_lint_check_get(0), .message = "x"};
        char *s = NULL;
        return freed(pkgnote_lint_finding_to_json(&f, "x", &s), &s);
})
FAIL(pkgnote_stamp_notes_result_to_json, {
        pkgnote_stamp_result r = {.size = sizeof r};
        char *s = NULL;
        return freed(pkgnote_stamp_notes_result_to_json(&r, ok_spec, 0, "x", &s), &s);
})
FAIL(pkgnote_pkgdb_open, {
        pkgnote_pkgdb *db = NULL;
        const char *where = NULL;
        return pkgnote_pkgdb_open(NOPE, "deb", &where, &db);
})
FAIL(pkgnote_closure_new, { pkgnote_closure *c = NULL; return pkgnote_closure_new(NOPE, &c); })
FAIL(pkgnote_closure_select, { return pkgnote_closure_select(closure, "x", 99, 0); })
FAIL(pkgnote_closure_add, { return pkgnote_closure_add(closure, "/no-such-file"); })
FAIL(pkgnote_closure_edge, {
        pkgnote_dep_edge e = PKGNOTE_DEP_EDGE_INIT;
        return pkgnote_closure_edge(closure, 99999, &e);
})
OK(pkgnote_closure_to_json, { char *s = NULL; return freed(pkgnote_closure_to_json(closure, NULL, &s), &s); })
FAIL(pkgnote_verify_new, { pkgnote_verify *v = NULL; return pkgnote_verify_new(NOPE, &v); })
FAIL(pkgnote_verify_select, { return pkgnote_verify_select(verify, "x", 99, 0); })
OK(pkgnote_verify_run, { return pkgnote_verify_run(verify); })
FAIL(pkgnote_verify_get, {
        pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
        return pkgnote_verify_get(verify, 99999, &f);
})
FAIL(pkgnote_verify_edge, {
        pkgnote_dep_edge e = {.size = 1};
        return pkgnote_verify_edge(verify, 0, &e);
})
OK(pkgnote_verify_to_json, { char *s = NULL; return freed(pkgnote_verify_to_json(verify, &s), &s); })
FAIL(pkgnote_filemap_parse, {
        pkgnote_filemap *m = NULL;
        return pkgnote_filemap_parse("/x {\n", 5, "map", &m);
})
FAIL(pkgnote_filemap_find, { size_t i; return fmap ? pkgnote_filemap_find(fmap, NULL, &i) : NO_FIXTURE; })
OK(pkgnote_filemap_find, { size_t i; return fmap ? pkgnote_filemap_find(fmap, "usr/bin/x", &i) : NO_FIXTURE; })
FAIL(pkgnote_stamp_tree, { return pkgnote_stamp_tree(NOPE, ok_spec, 1, NULL, NULL, 0, tree_none, NULL); })
FAIL(pkgnote_root_file_resolve, { pkgnote_root_file *f = NULL; return pkgnote_root_file_resolve(-1, "x", &f); })
FAIL(pkgnote_crash_entry_name, { char b[4]; return pkgnote_crash_entry_name(b, sizeof b, "comm", 0, 1, 0); })
OK(pkgnote_crash_entry_name, { char b[256]; return pkgnote_crash_entry_name(b, sizeof b, "comm", 0, 1, 0); })
FAIL(pkgnote_crash_store_vacuum, { return pkgnote_crash_store_vacuum(-1, 0, NULL, 1); })
FAIL(pkgnote_emit_coff_section, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_emit_coff_section("{", &b, &n);
})
FAIL(pkgnote_emit_coff_object, {
        uint8_t *b = NULL;
        size_t n;
        return pkgnote_emit_coff_object("{", &target, &b, &n);
})
FAIL(pkgnote_pe_section_count, { return pkgnote_pe_section_count(obj); })
FAIL(pkgnote_pe_section, {
        const char *name;
        uint64_t off, size;
        uint32_t fl;
        return pkgnote_pe_section(obj, 0, &name, &off, &size, &fl);
})
FAIL(pkgnote_pe_section_find, {
        uint64_t off, size;
        uint32_t fl;
        return pkgnote_pe_section_find(obj, ".text", &off, &size, &fl);
})
OK(pkgnote_pe_uki_os_release, { pkgnote_os_release *o = NULL; return pkgnote_pe_uki_os_release(obj, &o); })
FAIL(pkgnote_pe_section_data, {
        const uint8_t *d;
        size_t len;
        return pkgnote_pe_section_data(obj, ".text", 16, &d, &len);
})
/* The ELF file below dir, stamped into an output whose directory is
 * missing. */
FAIL(pkgnote_stamp_root_file, {
        int rootfd = open(dir, O_RDONLY | O_DIRECTORY);
        pkgnote_root_file *f = NULL;
        if (rootfd < 0 || pkgnote_root_file_resolve(rootfd, "elf", &f) < 0) {
                if (rootfd >= 0)
                        close(rootfd);
                return NO_FIXTURE;
        }
        pkgnote_stamp_result res[1] = {{.size = sizeof res[0]}};
        long long r = pkgnote_stamp_root_file(f, NOPE, ok_spec, 1, 0, res);
        pkgnote_root_file_free(f);
        close(rootfd);
        return r;
})
/* A dpkg database of one package below dir/db. */
static pkgnote_pkgdb *db(void) {
        static pkgnote_pkgdb *d;
        if (!d) {
                char p[4200];
                static const char *const parts[] = {"/db", "/db/var", "/db/var/lib", "/db/var/lib/dpkg",
                                                    "/db/var/lib/dpkg/info"};
                for (size_t i = 0; i < 5; i++) {
                        snprintf(p, sizeof p, "%s%s", dir, parts[i]);
                        mkdir(p, 0755);
                }
                snprintf(p, sizeof p, "%s/db/var/lib/dpkg/status", dir);
                FILE *f = fopen(p, "w");
                if (!f)
                        return NULL;
                fputs("Package: hello\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1.0-1\n\n", f);
                fclose(f);
                snprintf(p, sizeof p, "%s/db", dir);
                if (pkgnote_pkgdb_open(p, "deb", NULL, &d) < 0)
                        d = NULL;
        }
        return d;
}
FAIL(pkgnote_pkgdb_package, {
        pkgnote_db_package p = {.size = 1};
        return db() ? pkgnote_pkgdb_package(db(), 0, &p) : NO_FIXTURE;
})
OK(pkgnote_pkgdb_package, {
        pkgnote_db_package p = {.size = sizeof p};
        return db() ? pkgnote_pkgdb_package(db(), 0, &p) : NO_FIXTURE;
})
FAIL(pkgnote_pkgdb_owner, {
        size_t i;
        return db() ? pkgnote_pkgdb_owner(db(), NULL, &i) : NO_FIXTURE;
})

/* NULL is "none": it fails only when memory runs out. */
OK(pkgnote_pe_uki_uname, {
        char *s = pkgnote_pe_uki_uname(obj);
        free(s);
        return 0;
})

/* ---- the table -------------------------------------------------------- */

enum kind {
        FAILS,    /* fail() makes it fail */
        UNFORCED, /* it can fail, short of memory or in ways a test cannot make (why) */
        NEVER,    /* it cannot fail and never touches the message (why) */
};

struct row {
        const char *name;
        enum kind kind;
        long long (*fail)(void);
        long long (*ok)(void);
        const char *why;
};

/* Crash signatures (1.1). */
#define STACK_TEXT "Stack trace of thread 7:\n#0  0x00007f0000001000 crash_here (prog + 0x1000)\n"
FAIL(pkgnote_signature_from_message, {
        pkgnote_signature *g = NULL;
        return pkgnote_signature_from_message("Stack trace of thread 7:\n#1 bad\n", 32, NULL, &g);
})
OK(pkgnote_signature_from_message, {
        pkgnote_signature *g = NULL;
        int r = pkgnote_signature_from_message(STACK_TEXT, strlen(STACK_TEXT), NULL, &g);
        pkgnote_signature_free(g);
        return r;
})
FAIL(pkgnote_signature_from_stack, { pkgnote_signature *g = NULL; return pkgnote_signature_from_stack(NULL, NULL, &g); })
FAIL(pkgnote_signature_to_json, { char *j = NULL; return pkgnote_signature_to_json(NULL, &j); })
OK(pkgnote_signature_to_json, {
        pkgnote_signature *g = NULL;
        char *j = NULL;
        if (pkgnote_signature_from_message(STACK_TEXT, strlen(STACK_TEXT), NULL, &g) < 0)
                return NO_FIXTURE;
        int r = pkgnote_signature_to_json(g, &j);
        pkgnote_signature_free(g);
        return freed(r, &j);
})
FAIL(pkgnote_crash_signature, { pkgnote_signature *g = NULL; return pkgnote_crash_signature(NULL, &g); })
FAIL(pkgnote_crash_group_by_from_name, { return pkgnote_crash_group_by_from_name("bogus"); })
OK(pkgnote_crash_group_by_from_name, { return pkgnote_crash_group_by_from_name("package") == PKGNOTE_GROUP_PACKAGE ? 0 : -1; })
FAIL(pkgnote_crash_groups_new, { pkgnote_crash_groups *g = NULL; return pkgnote_crash_groups_new(0, &g); })
OK(pkgnote_crash_groups_new, {
        pkgnote_crash_groups *g = NULL;
        int r = pkgnote_crash_groups_new(PKGNOTE_GROUP_SIGNATURE, &g);
        pkgnote_crash_groups_free(g);
        return r;
})
FAIL(pkgnote_crash_groups_add, { return pkgnote_crash_groups_add(NULL, NULL); })
FAIL(pkgnote_crash_groups_get_stats, {
        pkgnote_crash_groups_stats st = {.size = 0};
        return pkgnote_crash_groups_get_stats(NULL, &st);
})
FAIL(pkgnote_crash_group_machine, {
        pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
        return pkgnote_crash_group_machine(NULL, 0, &it);
})
FAIL(pkgnote_crash_group_version, {
        pkgnote_crash_group_item it = PKGNOTE_CRASH_GROUP_ITEM_INIT;
        return pkgnote_crash_group_version(NULL, 0, &it);
})
FAIL(pkgnote_crash_groups_to_json, { char *j = NULL; return pkgnote_crash_groups_to_json(NULL, 0, &j); })
OK(pkgnote_crash_groups_to_json, {
        pkgnote_crash_groups *g = NULL;
        char *j = NULL;
        int r = pkgnote_crash_groups_new(PKGNOTE_GROUP_EXECUTABLE, &g);
        if (r == 0)
                r = pkgnote_crash_groups_to_json(g, 0, &j);
        pkgnote_crash_groups_free(g);
        return freed(r, &j);
})
FAIL(pkgnote_embedded_read, { pkgnote_embedded *m = NULL; return pkgnote_embedded_read(NULL, &m); })
OK(pkgnote_embedded_read, {
        pkgnote_embedded *m = NULL;
        int r = pkgnote_embedded_read(obj, &m); /* not Go: 0 */
        pkgnote_embedded_free(m);
        return r;
})
FAIL(pkgnote_embedded_component, {
        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
        return pkgnote_embedded_component(emb, 99, &c);
})
OK(pkgnote_embedded_component, {
        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
        return pkgnote_embedded_component(emb, 0, &c);
})
FAIL(pkgnote_embedded_edge, { size_t a, b; return pkgnote_embedded_edge(emb, 0, &a, &b); })
FAIL(pkgnote_embedded_setting, { const char *k, *v; return pkgnote_embedded_setting(emb, 0, &k, &v); })
OK(pkgnote_embedded_to_json, { char *s = NULL; return freed(pkgnote_embedded_to_json(emb, &s), &s); })
/* A sysfs tree holding only kernel/notes (one GNU build-id note) and an
 * osrelease file, below dir; the root is dir too (no image there). */
static pkgnote_kernel_options kernel_opts(void) {
        static char sys[4200], rel[4200];
        if (!*sys) {
                static const uint8_t note[] = {4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef};
                snprintf(sys, sizeof sys, "%s/sys", dir);
                snprintf(rel, sizeof rel, "%s/osrelease", dir);
                char p[4300];
                mkdir(sys, 0755);
                snprintf(p, sizeof p, "%s/kernel", sys);
                mkdir(p, 0755);
                snprintf(p, sizeof p, "%s/kernel/notes", sys);
                FILE *f = fopen(p, "w");
                if (f) {
                        fwrite(note, 1, sizeof note, f);
                        fclose(f);
                }
                if ((f = fopen(rel, "w"))) {
                        fputs("6.1.0-test\n", f);
                        fclose(f);
                }
        }
        pkgnote_kernel_options o = PKGNOTE_KERNEL_OPTIONS_INIT;
        o.sysfs = sys;
        o.osrelease = rel;
        o.root = dir;
        o.flags = PKGNOTE_KERNEL_NO_DATABASE;
        return o;
}
FAIL(pkgnote_kernel_read, {
        pkgnote_kernel_options o = PKGNOTE_KERNEL_OPTIONS_INIT;
        o.sysfs = NOPE;
        pkgnote_kernel *k = NULL;
        return pkgnote_kernel_read(&o, &k);
})
OK(pkgnote_kernel_read, {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        int r = pkgnote_kernel_read(&o, &k);
        pkgnote_kernel_free(k);
        return r;
})
FAIL(pkgnote_kernel_get, {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        int r = pkgnote_kernel_read(&o, &k);
        if (r < 0)
                return NO_FIXTURE;
        pkgnote_kernel_info i = {.size = 1};
        r = pkgnote_kernel_get(k, &i);
        pkgnote_kernel_free(k);
        return r;
})
OK(pkgnote_kernel_get, {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        int r = pkgnote_kernel_read(&o, &k);
        if (r < 0)
                return NO_FIXTURE;
        pkgnote_kernel_info i = PKGNOTE_KERNEL_INFO_INIT;
        r = pkgnote_kernel_get(k, &i);
        pkgnote_kernel_free(k);
        return r;
})
FAIL(pkgnote_kernel_module_get, {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        int r = pkgnote_kernel_read(&o, &k);
        if (r < 0)
                return NO_FIXTURE;
        pkgnote_kernel_module m = {.size = 0};
        r = pkgnote_kernel_module_get(k, 0, &m);
        pkgnote_kernel_free(k);
        return r;
})
OK(pkgnote_kernel_to_json, {
        pkgnote_kernel_options o = kernel_opts();
        pkgnote_kernel *k = NULL;
        char *s = NULL;
        int r = pkgnote_kernel_read(&o, &k);
        if (r < 0)
                return NO_FIXTURE;
        r = pkgnote_kernel_to_json(k, &s);
        pkgnote_kernel_free(k);
        return freed(r, &s);
})
FAIL(pkgnote_kernel_image_build_id, {
        char *s = NULL;
        return freed(pkgnote_kernel_image_build_id("not a kernel", 12, &s), &s);
})
OK(pkgnote_kernel_image_build_id, {
        char *s = NULL;
        return freed(pkgnote_kernel_image_build_id(img, img_len, &s), &s);
})
FAIL(pkgnote_crashes_open, {
        pkgnote_crash_options o = {.size = 1};
        pkgnote_crashes *l = NULL;
        return pkgnote_crashes_open(&o, &l);
})
FAIL(pkgnote_crashes_next, {
        const pkgnote_crash *c = NULL;
        return pkgnote_crashes_next(NULL, &c);
})

#define F(fn) {#fn, FAILS, fail_##fn, NULL, NULL}
#define FO(fn) {#fn, FAILS, fail_##fn, ok_##fn, NULL}
#define U(fn, why) {#fn, UNFORCED, NULL, NULL, why}
#define UO(fn, why) {#fn, UNFORCED, NULL, ok_##fn, why}
#define N(fn, why) {#fn, NEVER, NULL, NULL, why}

#define ACCESSOR "an accessor of a built object"
#define FREE "a destructor: it accepts NULL and returns nothing"
#define NAME "the name of a constant, or NULL"
#define OOM "it fails only when memory runs out"

static const struct row rows[] = {
        N(pkgnote_last_error, "the message itself"),
        FO(pkgnote_object_open),
        F(pkgnote_object_open_fd),
        FO(pkgnote_object_from_memory),
        N(pkgnote_object_free, FREE),
        N(pkgnote_object_class, ACCESSOR),
        N(pkgnote_object_big_endian, ACCESSOR),
        N(pkgnote_object_type, ACCESSOR),
        N(pkgnote_object_machine, ACCESSOR),
        N(pkgnote_object_size, ACCESSOR),
        N(pkgnote_object_type_name, NAME),
        N(pkgnote_object_kind, ACCESSOR),
        N(pkgnote_machine_name, NAME),
        N(pkgnote_object_phdr_count, "the table checked when the view was made"),
        N(pkgnote_object_phdr, ACCESSOR),
        F(pkgnote_object_shdr_count),
        N(pkgnote_object_shdr, ACCESSOR),
        N(pkgnote_object_notes_warning, ACCESSOR),
        N(pkgnote_object_problem_count, ACCESSOR),
        N(pkgnote_object_problem, ACCESSOR),
        UO(pkgnote_object_note_count, OOM ": what it cannot read are problems of the view"),
        N(pkgnote_object_note, ACCESSOR),
        N(pkgnote_core_thread_count, "a count of what the core lists"),
        N(pkgnote_core_thread, ACCESSOR),
        N(pkgnote_note_is, "a comparison"),
        F(pkgnote_note_json),
        UO(pkgnote_object_build_id, OOM " (pkgnote_object_note_count())"),
        F(pkgnote_note_encode),
        FO(pkgnote_package_note_encode),
        N(pkgnote_metadata_known_keys, "a static list"),
        UO(pkgnote_metadata_new, OOM),
        FO(pkgnote_metadata_parse),
        N(pkgnote_metadata_free, FREE),
        N(pkgnote_metadata_get, ACCESSOR),
        N(pkgnote_metadata_type, ACCESSOR),
        N(pkgnote_metadata_os, ACCESSOR),
        N(pkgnote_metadata_os_version, ACCESSOR),
        N(pkgnote_metadata_name, ACCESSOR),
        N(pkgnote_metadata_version, ACCESSOR),
        N(pkgnote_metadata_architecture, ACCESSOR),
        N(pkgnote_metadata_os_cpe, ACCESSOR),
        N(pkgnote_metadata_app_cpe, ACCESSOR),
        N(pkgnote_metadata_debug_info_url, ACCESSOR),
        N(pkgnote_metadata_count, ACCESSOR),
        N(pkgnote_metadata_key, ACCESSOR),
        FO(pkgnote_metadata_value_json),
        F(pkgnote_metadata_set),
        F(pkgnote_metadata_set_json),
        N(pkgnote_metadata_remove, "1 when the key was there, else 0"),
        UO(pkgnote_metadata_to_json, OOM),
        N(pkgnote_metadata_check, "a count of the problems it reports"),
        F(pkgnote_dlopen_parse),
        N(pkgnote_dlopen_free, FREE),
        N(pkgnote_dlopen_count, ACCESSOR),
        N(pkgnote_dlopen_soname_count, ACCESSOR),
        N(pkgnote_dlopen_soname, ACCESSOR),
        N(pkgnote_dlopen_get, ACCESSOR),
        UO(pkgnote_dlopen_to_json, OOM),
        FO(pkgnote_dlopen_priority),
        N(pkgnote_dlopen_priority_name, NAME),
        N(pkgnote_dlopen_check, "a count of the problems it reports"),
        UO(pkgnote_deps_new, OOM),
        N(pkgnote_deps_free, FREE),
        F(pkgnote_deps_add),
        F(pkgnote_deps_resolve_dpkg),
        N(pkgnote_deps_count, ACCESSOR),
        F(pkgnote_deps_priority),
        N(pkgnote_deps_sonames, ACCESSOR),
        F(pkgnote_deps_resolved),
        N(pkgnote_deps_soname_count, ACCESSOR),
        N(pkgnote_deps_soname, ACCESSOR),
        N(pkgnote_deps_feature_count, ACCESSOR),
        N(pkgnote_deps_feature, ACCESSOR),
        F(pkgnote_deps_format),
        UO(pkgnote_info_read, OOM ": what it cannot read are problems of the summary"),
        UO(pkgnote_info_dup, OOM),
        N(pkgnote_info_free, FREE),
        N(pkgnote_info_package_count, ACCESSOR),
        N(pkgnote_info_package, ACCESSOR),
        N(pkgnote_info_package_note, ACCESSOR),
        N(pkgnote_info_package_json, ACCESSOR),
        N(pkgnote_info_package_note_count, ACCESSOR),
        N(pkgnote_info_dlopen_count, ACCESSOR),
        N(pkgnote_info_dlopen, ACCESSOR),
        N(pkgnote_info_build_id, ACCESSOR),
        N(pkgnote_info_problem_count, ACCESSOR),
        N(pkgnote_info_problem, ACCESSOR),
        F(pkgnote_core_open),
        F(pkgnote_core_open_fd),
        F(pkgnote_core_from_memory),
        N(pkgnote_core_free, FREE),
        FO(pkgnote_core_process),
        N(pkgnote_core_module_count, ACCESSOR),
        N(pkgnote_core_module, ACCESSOR),
        N(pkgnote_core_main_module, ACCESSOR),
        N(pkgnote_core_problem_count, ACCESSOR),
        N(pkgnote_core_problem, ACCESSOR),
        N(pkgnote_core_bytes_read, ACCESSOR),
        N(pkgnote_module_path, ACCESSOR),
        N(pkgnote_module_start, ACCESSOR),
        N(pkgnote_module_end, ACCESSOR),
        N(pkgnote_module_build_id, ACCESSOR),
        N(pkgnote_module_disk_build_id, ACCESSOR),
        N(pkgnote_module_info, ACCESSOR),
        N(pkgnote_module_source, ACCESSOR),
        N(pkgnote_module_reason, ACCESSOR),
        N(pkgnote_module_found_by, ACCESSOR),
        N(pkgnote_module_is_vdso, ACCESSOR),
        N(pkgnote_module_deleted, ACCESSOR),
        N(pkgnote_module_replaced, ACCESSOR),
        F(pkgnote_process_open),
        N(pkgnote_source_name, NAME),
        N(pkgnote_signal_name, NAME),
        F(pkgnote_process_open_with),
        N(pkgnote_module_package_origin, ACCESSOR),
        N(pkgnote_origin_name, NAME),
        N(pkgnote_module_db_state, ACCESSOR),
        N(pkgnote_db_state_name, NAME),
        N(pkgnote_module_db_type, ACCESSOR),
        N(pkgnote_module_db_name, ACCESSOR),
        N(pkgnote_module_db_version, ACCESSOR),
        N(pkgnote_module_db_architecture, ACCESSOR),
        N(pkgnote_module_db_source, ACCESSOR),
        N(pkgnote_module_db_source_version, ACCESSOR),
        N(pkgnote_module_db_mismatch, ACCESSOR),
        UO(pkgnote_dbcache_new, OOM),
        N(pkgnote_dbcache_free, FREE),
        N(pkgnote_dbcache_count, ACCESSOR),
        F(pkgnote_process_open_cached),
        N(pkgnote_module_installed_info, ACCESSOR),
        N(pkgnote_module_needs_restart, ACCESSOR),
        U(pkgnote_core_stack, "pkgnote_core_stack_with() with the flags it knows (others are ignored)"),
        N(pkgnote_stack_free, FREE),
        N(pkgnote_stack_unavailable, ACCESSOR),
        N(pkgnote_stack_thread_count, ACCESSOR),
        N(pkgnote_stack_thread_tid, ACCESSOR),
        N(pkgnote_stack_frame_count, ACCESSOR),
        N(pkgnote_stack_frame_pc, ACCESSOR),
        N(pkgnote_stack_frame_module, ACCESSOR),
        N(pkgnote_stack_frame_module_offset, ACCESSOR),
        N(pkgnote_stack_frame_function, ACCESSOR),
        N(pkgnote_stack_frame_source, ACCESSOR),
        N(pkgnote_stack_frame_inlined, ACCESSOR),
        F(pkgnote_core_stack_with),
        N(pkgnote_stack_debuginfo_count, ACCESSOR),
        N(pkgnote_stack_debuginfo, ACCESSOR),
        N(pkgnote_debuginfo_status_name, NAME),
        F(pkgnote_crashes_load),
        N(pkgnote_crashes_free, FREE),
        N(pkgnote_crashes_count, ACCESSOR),
        N(pkgnote_crashes_get, ACCESSOR),
        N(pkgnote_crashes_problem_count, ACCESSOR),
        N(pkgnote_crashes_problem, ACCESSOR),
        N(pkgnote_crash_store, ACCESSOR),
        N(pkgnote_crash_id, ACCESSOR),
        N(pkgnote_crash_time, ACCESSOR),
        N(pkgnote_crash_pid, ACCESSOR),
        N(pkgnote_crash_uid, ACCESSOR),
        N(pkgnote_crash_signal, ACCESSOR),
        N(pkgnote_crash_field, ACCESSOR),
        N(pkgnote_crash_package_name, ACCESSOR),
        N(pkgnote_crash_package_version, ACCESSOR),
        N(pkgnote_crash_core_path, ACCESSOR),
        U(pkgnote_crash_to_json, OOM),
        U(pkgnote_crash_open, "it needs a crash of a store (tests/read/cmd-coredump.sh)"),
        N(pkgnote_crash_core_state, ACCESSOR),
        N(pkgnote_crash_store_name, NAME),
        F(pkgnote_crash_signature),
        N(pkgnote_crash_group_by_name, NAME),
        FO(pkgnote_crash_group_by_from_name),
        FO(pkgnote_crash_groups_new),
        N(pkgnote_crash_groups_free, FREE),
        F(pkgnote_crash_groups_add),
        F(pkgnote_crash_groups_get_stats),
        N(pkgnote_crash_groups_get, ACCESSOR),
        N(pkgnote_crash_group_key, ACCESSOR),
        N(pkgnote_crash_group_hash, ACCESSOR),
        N(pkgnote_crash_group_package, ACCESSOR),
        N(pkgnote_crash_group_count, ACCESSOR),
        N(pkgnote_crash_group_first, ACCESSOR),
        N(pkgnote_crash_group_last, ACCESSOR),
        N(pkgnote_crash_group_boots, ACCESSOR),
        N(pkgnote_crash_group_not_seen_since, ACCESSOR),
        N(pkgnote_crash_group_example_id, ACCESSOR),
        N(pkgnote_crash_group_machine_count, ACCESSOR),
        F(pkgnote_crash_group_machine),
        N(pkgnote_crash_group_version_count, ACCESSOR),
        F(pkgnote_crash_group_version),
        FO(pkgnote_crash_groups_to_json),
        F(pkgnote_crashes_open),
        F(pkgnote_crashes_next),
        FO(pkgnote_signature_from_message),
        F(pkgnote_signature_from_stack),
        N(pkgnote_signature_free, FREE),
        N(pkgnote_signature_text, ACCESSOR),
        N(pkgnote_signature_hash, ACCESSOR),
        N(pkgnote_signature_package, ACCESSOR),
        N(pkgnote_signature_version, ACCESSOR),
        N(pkgnote_signature_frame_count, ACCESSOR),
        N(pkgnote_signature_frame, ACCESSOR),
        N(pkgnote_signature_source, ACCESSOR),
        N(pkgnote_signature_source_name, NAME),
        FO(pkgnote_signature_to_json),
        F(pkgnote_os_release_parse),
        F(pkgnote_os_release_read),
        F(pkgnote_os_release_read_file),
        N(pkgnote_os_release_free, FREE),
        N(pkgnote_os_release_get, ACCESSOR),
        N(pkgnote_os_release_path, ACCESSOR),
        N(pkgnote_os_release_problem_count, ACCESSOR),
        N(pkgnote_os_release_package_type, ACCESSOR),
        FO(pkgnote_nevra_parse),
        N(pkgnote_nevra_clear, FREE),
        UO(pkgnote_compose_new, OOM),
        N(pkgnote_compose_free, FREE),
        F(pkgnote_compose_set),
        F(pkgnote_compose_rpm),
        F(pkgnote_compose_document),
        U(pkgnote_compose_os_release, OOM ": the os-release is read by pkgnote_compose_json()"),
        UO(pkgnote_compose_os_release_file, OOM ": the os-release is read by pkgnote_compose_json()"),
        F(pkgnote_compose_json),
        N(pkgnote_compose_warning, ACCESSOR),
        FO(pkgnote_target_parse),
        N(pkgnote_target_host, "fills a struct from constants of the build"),
        FO(pkgnote_emit_object),
        F(pkgnote_emit_asm_target),
        FO(pkgnote_emit_asm),
        F(pkgnote_emit_linker_script),
        F(pkgnote_dlopen_note_encode),
        F(pkgnote_emit),
        N(pkgnote_linker_kind_from_name, "a lookup: 0 for an unknown name"),
        N(pkgnote_linker_kind_name, NAME),
        FO(pkgnote_linker_identify),
        F(pkgnote_linker_has_package_metadata),
        F(pkgnote_linker_decodes_package_metadata),
        F(pkgnote_ldflags_quote),
        F(pkgnote_ldflags_package_metadata),
        F(pkgnote_ldflags_package_metadata_for),
        F(pkgnote_route_text),
        FO(pkgnote_cpe_check),
        N(pkgnote_lint_severity_name, NAME),
        N(pkgnote_lint_check_get, "an entry of a static table, or NULL"),
        UO(pkgnote_lint, OOM ": what it finds goes to its callback"),
        U(pkgnote_lint_os_release, OOM ": what it finds goes to its callback"),
        F(pkgnote_stamp_memory),
        F(pkgnote_stamp_file),
        F(pkgnote_stamp_notes_memory),
        F(pkgnote_stamp_notes_file),
        N(pkgnote_stamp_placement_name, NAME),
        FO(pkgnote_scan_new),
        N(pkgnote_scan_free, FREE),
        F(pkgnote_scan_add),
        F(pkgnote_scan_add_image),
        FO(pkgnote_scan_set_platform),
        FO(pkgnote_scan_get_stats),
        N(pkgnote_scan_problem_count, ACCESSOR),
        N(pkgnote_scan_problem, ACCESSOR),
        N(pkgnote_scan_object_count, ACCESSOR),
        N(pkgnote_scan_object_get, ACCESSOR),
        N(pkgnote_scan_object_path, ACCESSOR),
        N(pkgnote_scan_object_input, ACCESSOR),
        N(pkgnote_scan_object_size, ACCESSOR),
        N(pkgnote_scan_object_elf_type, ACCESSOR),
        N(pkgnote_scan_object_machine, ACCESSOR),
        N(pkgnote_scan_object_class, ACCESSOR),
        N(pkgnote_scan_object_big_endian, ACCESSOR),
        N(pkgnote_scan_object_kind, ACCESSOR),
        N(pkgnote_scan_object_info, ACCESSOR),
        N(pkgnote_scan_object_image, ACCESSOR),
        N(pkgnote_scan_object_container_count, ACCESSOR),
        N(pkgnote_scan_object_container, ACCESSOR),
        N(pkgnote_scan_object_build_id, ACCESSOR),
        N(pkgnote_scan_object_package_count, ACCESSOR),
        N(pkgnote_scan_object_package, ACCESSOR),
        N(pkgnote_scan_object_package_json, ACCESSOR),
        N(pkgnote_scan_object_dlopen_count, ACCESSOR),
        N(pkgnote_scan_object_dlopen_json, ACCESSOR),
        N(pkgnote_scan_object_problem_count, ACCESSOR),
        N(pkgnote_scan_object_problem, ACCESSOR),
        N(pkgnote_scan_object_sha1, ACCESSOR),
        N(pkgnote_scan_object_sha256, ACCESSOR),
        N(pkgnote_scan_object_soname, ACCESSOR),
        N(pkgnote_scan_object_needed_count, ACCESSOR),
        N(pkgnote_scan_object_needed, ACCESSOR),
        N(pkgnote_scan_object_db_type, ACCESSOR),
        N(pkgnote_scan_object_db_name, ACCESSOR),
        N(pkgnote_scan_object_db_version, ACCESSOR),
        N(pkgnote_scan_object_db_architecture, ACCESSOR),
        N(pkgnote_scan_object_db_source, ACCESSOR),
        N(pkgnote_scan_object_db_source_version, ACCESSOR),
        N(pkgnote_scan_object_db_mismatch, ACCESSOR),
        N(pkgnote_scan_image_count, ACCESSOR),
        N(pkgnote_scan_image_get, ACCESSOR),
        N(pkgnote_scan_image_input, ACCESSOR),
        N(pkgnote_scan_image_reference, ACCESSOR),
        N(pkgnote_scan_image_digest, ACCESSOR),
        N(pkgnote_scan_image_id, ACCESSOR),
        N(pkgnote_scan_image_tag_count, ACCESSOR),
        N(pkgnote_scan_image_tag, ACCESSOR),
        N(pkgnote_scan_image_platform, ACCESSOR),
        N(pkgnote_scan_image_size, ACCESSOR),
        N(pkgnote_scan_image_layer_count, ACCESSOR),
        U(pkgnote_scan_image_to_json, OOM "; it needs a scanned image (tests/scan/cmd-scan-image.sh)"),
        N(pkgnote_scan_package_count, ACCESSOR),
        N(pkgnote_scan_package, ACCESSOR),
        N(pkgnote_scan_package_json, ACCESSOR),
        N(pkgnote_scan_package_object_count, ACCESSOR),
        N(pkgnote_scan_package_object, ACCESSOR),
        N(pkgnote_scan_db_package_count, ACCESSOR),
        N(pkgnote_scan_db_package, ACCESSOR),
        N(pkgnote_scan_db_package_json, ACCESSOR),
        N(pkgnote_scan_db_package_object_count, ACCESSOR),
        N(pkgnote_scan_db_package_object, ACCESSOR),
        N(pkgnote_scan_db_package_image, ACCESSOR),
        F(pkgnote_scan_db_package_to_json),
        FO(pkgnote_purl),
        F(pkgnote_sbom_write),
        UO(pkgnote_process_sbom_new, OOM),
        N(pkgnote_process_sbom_free, FREE),
        U(pkgnote_process_sbom_add, OOM "; it needs a core, its cores are checked by tests/read/cmd-ps.sh"),
        F(pkgnote_process_sbom_write),
        FO(pkgnote_process_sbom_add_kernel),
        UO(pkgnote_info_to_json, OOM),
        U(pkgnote_stack_to_json, OOM),
        F(pkgnote_core_to_json),
        U(pkgnote_scan_object_to_json, OOM),
        U(pkgnote_scan_summary_to_json, OOM),
        UO(pkgnote_lint_finding_to_json, OOM),
        U(pkgnote_stamp_result_to_json, OOM),
        F(pkgnote_stamp_notes_result_to_json),
        U(pkgnote_info_to_systemd_json, OOM),
        U(pkgnote_core_to_systemd_json, OOM),
        F(pkgnote_pkgdb_open),
        N(pkgnote_pkgdb_free, FREE),
        N(pkgnote_pkgdb_type, ACCESSOR),
        N(pkgnote_pkgdb_count, ACCESSOR),
        N(pkgnote_pkgdb_damaged, ACCESSOR),
        FO(pkgnote_pkgdb_package),
        F(pkgnote_pkgdb_owner),
        F(pkgnote_closure_new),
        N(pkgnote_closure_free, FREE),
        F(pkgnote_closure_select),
        F(pkgnote_closure_add),
        N(pkgnote_closure_count, ACCESSOR),
        N(pkgnote_closure_path, ACCESSOR),
        N(pkgnote_closure_target, ACCESSOR),
        N(pkgnote_closure_missing_count, ACCESSOR),
        N(pkgnote_closure_missing, ACCESSOR),
        N(pkgnote_closure_problem_count, ACCESSOR),
        N(pkgnote_closure_problem, ACCESSOR),
        N(pkgnote_closure_edge_count, ACCESSOR),
        F(pkgnote_closure_edge),
        UO(pkgnote_closure_to_json, OOM),
        F(pkgnote_verify_new),
        N(pkgnote_verify_free, FREE),
        F(pkgnote_verify_select),
        UO(pkgnote_verify_run, OOM),
        N(pkgnote_verify_kind, ACCESSOR),
        N(pkgnote_verify_object_count, ACCESSOR),
        N(pkgnote_verify_count, ACCESSOR),
        F(pkgnote_verify_get),
        N(pkgnote_verify_object, ACCESSOR),
        N(pkgnote_verify_edge_count, ACCESSOR),
        F(pkgnote_verify_edge),
        N(pkgnote_verify_problem_count, ACCESSOR),
        N(pkgnote_verify_problem, ACCESSOR),
        N(pkgnote_verify_release, ACCESSOR),
        UO(pkgnote_verify_to_json, OOM),
        FO(pkgnote_embedded_read),
        N(pkgnote_embedded_free, FREE),
        N(pkgnote_embedded_toolchain, ACCESSOR),
        N(pkgnote_embedded_package_path, ACCESSOR),
        N(pkgnote_embedded_component_count, ACCESSOR),
        FO(pkgnote_embedded_component),
        N(pkgnote_embedded_edge_count, ACCESSOR),
        F(pkgnote_embedded_edge),
        N(pkgnote_embedded_setting_count, ACCESSOR),
        F(pkgnote_embedded_setting),
        UO(pkgnote_embedded_to_json, OOM),
        N(pkgnote_info_embedded, ACCESSOR),
        FO(pkgnote_kernel_read),
        N(pkgnote_kernel_free, FREE),
        FO(pkgnote_kernel_get),
        F(pkgnote_kernel_module_get),
        N(pkgnote_kernel_reboot_name, NAME),
        N(pkgnote_kernel_reboot_text, ACCESSOR),
        UO(pkgnote_kernel_to_json, OOM),
        FO(pkgnote_kernel_image_build_id),
        F(pkgnote_filemap_parse),
        N(pkgnote_filemap_free, FREE),
        N(pkgnote_filemap_count, ACCESSOR),
        N(pkgnote_filemap_path, ACCESSOR),
        N(pkgnote_filemap_document, ACCESSOR),
        FO(pkgnote_filemap_find),
        N(pkgnote_filemap_tree_path, "a pointer into its argument"),
        F(pkgnote_stamp_tree),
        F(pkgnote_root_file_resolve),
        N(pkgnote_root_file_path, ACCESSOR),
        N(pkgnote_root_file_free, FREE),
        F(pkgnote_stamp_root_file),
        N(pkgnote_crash_store_dir, "its argument, the environment's or the default"),
        N(pkgnote_crash_core_suffix, "a constant of the build"),
        FO(pkgnote_crash_entry_name),
        U(pkgnote_crash_report, OOM),
        F(pkgnote_crash_store_vacuum),
        F(pkgnote_emit_coff_section),
        F(pkgnote_emit_coff_object),
        N(pkgnote_object_is_pe, ACCESSOR),
        N(pkgnote_pe_machine, ACCESSOR),
        N(pkgnote_pe_subsystem, ACCESSOR),
        N(pkgnote_pe_subsystem_name, NAME),
        N(pkgnote_pe_signed, ACCESSOR),
        F(pkgnote_pe_section_count),
        F(pkgnote_pe_section),
        N(pkgnote_pe_dll, ACCESSOR),
        F(pkgnote_pe_section_find),
        UO(pkgnote_pe_uki_uname, "NULL is \"none\"; " OOM),
        UO(pkgnote_pe_uki_os_release, "it needs a PE image whose .osrel is malformed (tests/unit/test-pe.c); 0 for ELF"),
        F(pkgnote_pe_section_data),
};

/* A failure whose message quotes its argument: STALE stands out. */
static void plant(void) {
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        CHECK(pkgnote_target_parse(STALE, &t) < 0);
        CHECK(strstr(pkgnote_last_error(), "STALE-SENTINEL") != NULL);
}

static void setup(void) {
        CHECK(mkdtemp(dir) != NULL);
        uint8_t n1[512], n2[64];
        static const uint8_t id[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
        struct mk_spec s = {.is64 = true, .type = 3, .machine = 62, .n_blobs = 2};
        s.blobs[0] = (struct mk_blob){.data = n1, .len = mk_package_note(n1, false, JSON_OK, false), .align = 4,
                                      .segment = true, .section = true, .name = ".note.package"};
        s.blobs[1] = (struct mk_blob){.data = n2, .len = mk_note(n2, false, "GNU", 4, 3, id, sizeof id, sizeof id, 4),
                                      .align = 4, .segment = true, .section = true, .name = ".note.gnu.build-id"};
        img_len = mk_elf(&s, img, sizeof img);
        CHECK(img_len > 0);
        snprintf(elf_path, sizeof elf_path, "%s/elf", dir);
        FILE *f = fopen(elf_path, "wb");
        CHECK(f && fwrite(img, 1, img_len, f) == img_len);
        if (f)
                fclose(f);
        CHECK_INT(pkgnote_object_from_memory(img, img_len, &obj), 0);
        CHECK_INT(pkgnote_metadata_parse(JSON_OK, strlen(JSON_OK), &meta), 0);
        CHECK_INT(pkgnote_metadata_parse("{}", 2, &empty), 0);
        CHECK_INT(pkgnote_dlopen_parse(DLOPEN_OK, strlen(DLOPEN_OK), &dl), 0);
        static const char bad[] = "[{\"soname\":[\"not a soname\"],\"priority\":\"sometimes\"}]";
        if (pkgnote_dlopen_parse(bad, sizeof bad - 1, &bad_dl) < 0)
                bad_dl = NULL;
        CHECK_INT(pkgnote_deps_new(&deps), 0);
        CHECK_INT(pkgnote_deps_add(deps, "/usr/bin/x", 64, 62, 0, dl), 0);
        CHECK_INT(pkgnote_compose_new(&comp), 0);
        CHECK_INT(pkgnote_scan_new(NULL, &scan), 0);
        CHECK_INT(pkgnote_info_read(obj, &info), 0);
        CHECK_INT(pkgnote_process_sbom_new(&psbom), 0);
        CHECK(pkgnote_closure_new(dir, &closure) >= 0);
        CHECK(pkgnote_verify_new(dir, &verify) >= 0);
        static const char map[] = "/usr/bin/x\t" JSON_OK "\n";
        CHECK(pkgnote_filemap_parse(map, sizeof map - 1, "map", &fmap) >= 0);
        static const pkgnote_component go = {.size = sizeof go, .ecosystem = "golang", .name = "example.com/m",
                                             .version = "v1.0.0", .kind = "runtime", .main = 1};
        CHECK((emb = pn_embedded_new()) != NULL);
        CHECK_INT(pn_embedded_add_component(emb, &go, NULL), 0);
        if (pkgnote_process_open(getpid(), &self) < 0)
                self = NULL;
}

static const struct row *find_row(const char *name) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
                if (strcmp(rows[i].name, name) == 0)
                        return &rows[i];
        return NULL;
}

/* Each row that fails: after a planted stale message, the call fails and
 * leaves a message of its own. */
static void test_failures_speak(void) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                const struct row *w = &rows[i];
                if (w->kind != FAILS)
                        continue;
                plant();
                long long r = w->fail();
                const char *m = pkgnote_last_error();
                test_checks++;
                if (r == NO_PROC) {
                        printf("# %s skipped: this process cannot be read through /proc\n", w->name);
                        continue;
                }
                if (r == NO_FIXTURE) {
                        test_failures++;
                        fprintf(stderr, "%s: its fixture could not be made (message \"%s\")\n", w->name, m);
                } else if (r >= 0) {
                        test_failures++;
                        fprintf(stderr, "%s: the call meant to fail returned %lld (message \"%s\")\n", w->name, r, m);
                } else if (!m || !*m || strstr(m, "STALE-SENTINEL")) {
                        test_failures++;
                        fprintf(stderr, "%s: returned %lld (%s) with the message \"%s\"\n", w->name, r,
                                strerror((int)-r), m ? m : "(null)");
                } else
                        printf("# %s: %lld \"%s\"\n", w->name, r, m);
        }
}

/* Each row with a successful call: after it the message is "". */
static void test_successes_clear(void) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
                const struct row *w = &rows[i];
                if (!w->ok)
                        continue;
                plant();
                long long r = w->ok();
                const char *m = pkgnote_last_error();
                test_checks++;
                if (r < 0 || !m || *m) {
                        test_failures++;
                        fprintf(stderr, "%s: the call meant to succeed returned %lld with the message \"%s\"\n",
                                w->name, r, m ? m : "(null)");
                }
        }
}

/* Functions that cannot fail leave the message alone: a sample of each
 * kind (accessor, name, destructor, lookup, escaping). */
static void test_others_keep(void) {
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        plant();
        CHECK_INT(pkgnote_object_class(obj), 64);
        CHECK_INT(pkgnote_object_type(obj), 3);
        CHECK(pkgnote_object_kind(obj) != NULL);
        CHECK_STR(pkgnote_metadata_name(meta), "hello");
        CHECK(pkgnote_metadata_get(meta, "no-such-key") == NULL);
        CHECK_INT(pkgnote_dlopen_count(dl), 1);
        /* A count of problems: a bad priority among them is reported, not
         * left behind as the message. */
        CHECK(bad_dl != NULL && pkgnote_dlopen_check(bad_dl, report_none, NULL) > 0);
        CHECK(pkgnote_object_type_name(3) != NULL);
        CHECK(pkgnote_machine_name(62, 64) != NULL);
        CHECK_INT(pkgnote_linker_kind_from_name("no-such-linker"), 0);
        CHECK_INT(pkgnote_metadata_remove(empty, "absent"), 0);
        CHECK_INT(pkgnote_metadata_check(meta, JSON_OK, sizeof JSON_OK, report_none, NULL), 0);
        pkgnote_target_host(&t);
        pkgnote_object_free(NULL);
        pkgnote_metadata_free(NULL);
        pkgnote_scan_free(NULL);
        CHECK(pkgnote_scan_object_get(scan, 99) == NULL);
        CHECK(pkgnote_last_error() && strstr(pkgnote_last_error(), "STALE-SENTINEL"));
}

/* The issue's own case: after a failed open, a call that fails for
 * another reason says so, and the next success says nothing. */
static void test_stale_after_open(void) {
        pkgnote_object *o = NULL;
        plant();
        CHECK_INT(pkgnote_object_open_fd(-1, &o), -EBADF);
        CHECK(strstr(pkgnote_last_error(), "STALE-SENTINEL") == NULL);
        CHECK(strstr(pkgnote_last_error(), "Bad file descriptor") != NULL);
        plant();
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        CHECK_INT(pkgnote_target_parse("x86_64", &t), 0);
        CHECK_STR(pkgnote_last_error(), "");
}

/* The table holds every exported function, and nothing else. */
static void test_table_is_complete(const char *mapfile) {
        FILE *f = fopen(mapfile, "r");
        CHECK(f != NULL);
        if (!f)
                return;
        char line[512], name[256];
        size_t n_map = 0;
        while (fgets(line, sizeof line, f)) {
                if (sscanf(line, " %255[a-z0-9_];", name) != 1 || strncmp(name, "pkgnote_", 8) != 0)
                        continue;
                n_map++;
                if (!find_row(name)) {
                        test_checks++, test_failures++;
                        fprintf(stderr, "%s is exported (%s) but has no row in tests/unit/test-errors.c\n", name, mapfile);
                }
        }
        fclose(f);
        size_t n_rows = sizeof rows / sizeof rows[0];
        for (size_t i = 0; i < n_rows; i++)
                for (size_t j = i + 1; j < n_rows; j++)
                        if (strcmp(rows[i].name, rows[j].name) == 0) {
                                test_checks++, test_failures++;
                                fprintf(stderr, "%s has two rows\n", rows[i].name);
                        }
        /* Every row names an exported function: with the rows unique and
         * each name of the map found, the counts are equal. */
        CHECK_INT(n_rows, n_map);
        size_t fails = 0, unforced = 0, never = 0;
        for (size_t i = 0; i < n_rows; i++)
                rows[i].kind == FAILS ? fails++ : rows[i].kind == UNFORCED ? unforced++ : never++;
        printf("# %zu functions: %zu made to fail, %zu that fail only in ways not made here, %zu that cannot fail\n",
               n_rows, fails, unforced, never);
}

/* The rows agree with the boundary lib/01-base-api.py generated (its
 * renaming header, RENAME_H): a function is wrapped, so clears the
 * message, exactly when its row says it can fail. */
static void test_table_matches_boundary(const char *rename_h) {
        FILE *f = fopen(rename_h, "r");
        CHECK(f != NULL);
        if (!f)
                return;
        char line[512], name[256];
        size_t n_wrapped = 0, n_can_fail = 0;
        while (fgets(line, sizeof line, f)) {
                if (sscanf(line, "#define %255s", name) != 1 || strncmp(name, "pkgnote_", 8) != 0)
                        continue;
                n_wrapped++;
                const struct row *w = find_row(name);
                if (w && w->kind == NEVER) {
                        test_checks++, test_failures++;
                        fprintf(stderr, "%s: its row says it cannot fail, but lib/01-base-api.py wraps it\n", name);
                }
        }
        fclose(f);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
                n_can_fail += rows[i].kind != NEVER;
        /* No NEVER row among the wrapped: equal counts mean every row that
         * can fail is wrapped. */
        CHECK_INT(n_wrapped, n_can_fail);
}

static const char *mapfile_arg, *rename_arg;
static void test_table(void) {
        test_table_is_complete(mapfile_arg);
        test_table_matches_boundary(rename_arg);
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: test-errors lib/libpkgnote.sym BUILDDIR/api-rename.h\n");
                return 2;
        }
        setup();
        mapfile_arg = argv[1];
        rename_arg = argv[2];
        RUN(test_failures_speak);
        RUN(test_successes_clear);
        RUN(test_others_keep);
        RUN(test_stale_after_open);
        RUN(test_table);
        pkgnote_object_free(obj);
        pkgnote_metadata_free(meta);
        pkgnote_metadata_free(empty);
        pkgnote_dlopen_free(dl);
        pkgnote_dlopen_free(bad_dl);
        pkgnote_deps_free(deps);
        pkgnote_compose_free(comp);
        pkgnote_scan_free(scan);
        pkgnote_core_free(self);
        pkgnote_info_free(info);
        pkgnote_process_sbom_free(psbom);
        pkgnote_closure_free(closure);
        pkgnote_verify_free(verify);
        pkgnote_filemap_free(fmap);
        pkgnote_embedded_free(emb);
        pkgnote_pkgdb_free(db());
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        return test_summary();
}
