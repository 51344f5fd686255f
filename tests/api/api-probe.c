/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * API probe: uses the public API exactly as include/pkgnote.h documents
 * it, linked with the installed-style shared library, and reads the bytes
 * behind every pointer it is handed, at the last moment the header says
 * the pointer is valid (after freeing what the header says it does not
 * depend on).  Under AddressSanitizer any pointer that outlives its owner
 * is a failure.
 *
 *   api-probe [--core FILE]...
 *
 * Always: this program's own file (it carries a package note and a dlopen
 * note), this running process, and a scan of this file; with --core, each
 * core file as well (a real kernel core, see tests/api/cmd-api-probe.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pkgnote.h"
#include "touch.h" /* the readers of every pointer, shared with the fuzzers */

/* A dlopen note, as systemd's ELF_NOTE_DLOPEN makes it (gcc and clang give
 * sections named .note* the type SHT_NOTE). */
#define DLOPEN_JSON "[{\"feature\":\"probe\",\"description\":\"API probe\",\"priority\":\"suggested\",\"soname\":[\"libprobe.so.1\"]}]"
static const struct {
        uint32_t namesz, descsz, type;
        char name[4];
        char desc[(sizeof(DLOPEN_JSON) + 3) & ~(size_t)3];
} dlopen_note __attribute__((used, section(".note.dlopen"), aligned(4))) = {
        4, (sizeof(DLOPEN_JSON) + 3) & ~(size_t)3, PKGNOTE_NT_FDO_DLOPEN_METADATA, "FDO", DLOPEN_JSON,
};

static int failures, checks;

#define CHECK(cond)                                                                             \
        do {                                                                                    \
                checks++;                                                                       \
                if (!(cond)) {                                                                  \
                        failures++;                                                             \
                        fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                                pkgnote_last_error());                                          \
                }                                                                               \
        } while (0)

/* The JSON of one of the serializers (R its return value, *J its text):
 * parsed back with jansson, of type TYPE; returns the value, or NULL. */
static json_t *parse_json(int r, char **j, json_type type) {
        CHECK(r == 0);
        if (r != 0)
                return NULL;
        json_error_t err;
        json_t *v = json_loads(*j, JSON_REJECT_DUPLICATES, &err);
        if (!v)
                fprintf(stderr, "api-probe: not JSON (%s): %s\n", err.text, *j);
        CHECK(v && json_typeof(v) == type);
        CHECK(!strchr(*j, '\n'));
        free(*j);
        *j = NULL;
        return v;
}

/* The number of elements of the array KEY of object V, or -1. */
static long array_size(const json_t *v, const char *key) {
        const json_t *a = json_object_get(v, key);
        return json_is_array(a) ? (long)json_array_size(a) : -1;
}

/* Metadata: every accessor (fuzz/touch.h), and its package URL. */
static void probe_metadata(const pkgnote_metadata *m, const char *json) {
        touch_metadata(m, json, strlen(json));
        char *purl = NULL;
        if (pkgnote_purl(m, &purl) >= 0)
                touch_str(purl);
        free(purl);
}

/* Every accessor of a summary (fuzz/touch.h abort()s where the header
 * is not kept), the package URLs; returns how many packages are NAME. */
static size_t probe_info(const pkgnote_info *info, const char *name) {
        touch_info(info);
        size_t found = 0;
        for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                const pkgnote_metadata *m = pkgnote_info_package(info, i);
                probe_metadata(m, pkgnote_info_package_json(info, i));
                const char *nm = pkgnote_metadata_name(m);
                found += nm && name && strcmp(nm, name) == 0;
        }
        CHECK(!pkgnote_info_package(info, pkgnote_info_package_count(info)));
        return found;
}

static void lint_finding(void *userdata, const pkgnote_lint_finding *f) {
        char *j;
        json_t *v = parse_json(pkgnote_lint_finding_to_json(f, "probe", &j), &j, JSON_OBJECT);
        CHECK(v && json_string_value(json_object_get(v, "check")) &&
              !strcmp(json_string_value(json_object_get(v, "check")), f->check->id));
        json_decref(v);
        touch_str(f->message);
        touch_str(f->check->id);
        touch_str(f->check->summary);
        touch_str(pkgnote_lint_severity_name(f->check->severity));
        ++*(size_t *)userdata;
}

/* A file: the view, its tables and notes, then a summary that must
 * outlive the view, and a copy that must outlive the summary. */
static void probe_file(const char *path) {
        pkgnote_object *e;
        CHECK(pkgnote_object_open(path, &e) == 0);
        if (failures)
                return;
        sink += (unsigned long)pkgnote_object_class(e) + (unsigned long)pkgnote_object_big_endian(e) + pkgnote_object_size(e);
        touch_str(pkgnote_object_type_name(pkgnote_object_type(e)));
        touch_str(pkgnote_machine_name(pkgnote_object_machine(e), pkgnote_object_class(e)));
        int n = pkgnote_object_phdr_count(e);
        CHECK(n > 0);
        for (int i = 0; i < n; i++)
                touch(pkgnote_object_phdr(e, (size_t)i), sizeof(pkgnote_phdr));
        CHECK(pkgnote_object_phdr(e, (size_t)n) == NULL);
        n = pkgnote_object_shdr_count(e);
        CHECK(n > 0);
        for (int i = 0; i < n; i++)
                touch_str(pkgnote_object_shdr(e, (size_t)i)->name);
        CHECK(pkgnote_object_shdr(e, (size_t)n) == NULL);
        n = pkgnote_object_note_count(e);
        CHECK(n >= 3); /* build-id, package, dlopen */
        for (int i = 0; i < n; i++)
                touch_note(pkgnote_object_note(e, (size_t)i));
        CHECK(pkgnote_object_note(e, (size_t)n) == NULL);
        const uint8_t *id;
        size_t id_len;
        CHECK(pkgnote_object_build_id(e, &id, &id_len) == 1);
        touch(id, id_len);
        for (size_t i = 0; i < pkgnote_object_problem_count(e); i++)
                touch_problem(pkgnote_object_problem(e, i), true);
        size_t findings = 0;
        CHECK(pkgnote_lint(e, lint_finding, &findings) >= 0);

        pkgnote_info *info, *copy = NULL;
        CHECK(pkgnote_info_read(e, &info) == 0);
        if (failures) {
                pkgnote_object_free(e);
                return;
        }
        char *j;
        json_t *v = parse_json(pkgnote_info_to_systemd_json(info, e, "\x01probe\xff", &j), &j, JSON_OBJECT);
        CHECK(v && json_object_get(json_object_get(v, "\x01probe\\xff"), "buildId"));
        json_decref(v);
        v = parse_json(pkgnote_info_to_json(info, e, path, &j), &j, JSON_OBJECT);
        CHECK(array_size(v, "packages") == 1 && array_size(v, "dlopen") == 1);
        CHECK(json_integer_value(json_object_get(v, "elfClass")) == pkgnote_object_class(e));
        CHECK(!strcmp(json_string_value(json_object_get(v, "elfType")) ?: "", pkgnote_object_kind(e)));
        json_decref(v);
        pkgnote_object_free(e); /* documented: the summary does not refer to the view */
        CHECK(probe_info(info, "regress-uaf") == 1);
        CHECK(pkgnote_info_dlopen_count(info) == 1);
        CHECK(pkgnote_info_dup(info, &copy) == 0);
        pkgnote_info_free(info); /* documented: the copy is independent */
        if (copy) {
                CHECK(probe_info(copy, "regress-uaf") == 1);
                CHECK(pkgnote_info_dlopen_count(copy) == 1);
                /* Without the view: no ELF header keys. */
                v = parse_json(pkgnote_info_to_json(copy, NULL, "\x01probe\xff", &j), &j, JSON_OBJECT);
                CHECK(v && !json_object_get(v, "elfType") && array_size(v, "packages") == 1);
                CHECK(v && !strcmp(json_string_value(json_object_get(v, "path")) ?: "", "\x01probe\\xff"));
                json_decref(v);
        }
        pkgnote_info_free(copy);
}

/* A core's or process's report, with ST's threads when not NULL. */
static void probe_core_json(const pkgnote_core *c, const pkgnote_stack *st) {
        const pkgnote_json_member extra[] = {{.size = sizeof(pkgnote_json_member), .key = "time", .number = 42}, {.size = sizeof(pkgnote_json_member), .key = "hostname", .string = "h\tx"}};
        char *j;
        json_t *v = parse_json(pkgnote_core_to_json(c, st, extra, 2, &j), &j, JSON_OBJECT);
        CHECK(array_size(v, "modules") == (long)pkgnote_core_module_count(c));
        CHECK(st ? array_size(v, "threads") == (long)pkgnote_stack_thread_count(st) : !json_object_get(v, "threads"));
        CHECK(json_integer_value(json_object_get(v, "time")) == 42);
        CHECK(!strcmp(json_string_value(json_object_get(v, "hostname")) ?: "", "h\tx"));
        json_decref(v);
        const pkgnote_json_member dup = {.size = sizeof(pkgnote_json_member), .key = "pid", .number = 1};
        CHECK(pkgnote_core_to_json(c, st, &dup, 1, &j) == -EINVAL);
        /* Without a core: the members alone; a key given twice is refused. */
        const pkgnote_json_member alone[] = {{.size = sizeof(pkgnote_json_member), .key = "pid", .number = 7}, {.size = sizeof(pkgnote_json_member), .key = "command", .string = "a\377"},
                                             {.size = sizeof(pkgnote_json_member), .key = "pid", .number = 8}};
        v = parse_json(pkgnote_core_to_json(NULL, NULL, alone, 2, &j), &j, JSON_OBJECT);
        CHECK(json_object_size(v) == 2 && json_integer_value(json_object_get(v, "pid")) == 7);
        CHECK(!strcmp(json_string_value(json_object_get(v, "command")) ?: "", "a\\xff"));
        json_decref(v);
        CHECK(pkgnote_core_to_json(NULL, NULL, alone, 3, &j) == -EINVAL);
        /* A JSON value (since 1.2): written as it is; text that is no JSON
         * object or array, or over the depth limit, is refused. */
        const pkgnote_json_member value[] = {PKGNOTE_JSON_VALUE("kernel", "{\"release\":\"6.1\",\"reboot\":[1,{\"a\":null}]}")};
        v = parse_json(pkgnote_core_to_json(NULL, NULL, value, 1, &j), &j, JSON_OBJECT);
        json_t *kv = json_object_get(v, "kernel");
        CHECK(json_object_size(v) == 1 && !strcmp(json_string_value(json_object_get(kv, "release")) ?: "", "6.1") &&
              json_array_size(json_object_get(kv, "reboot")) == 2);
        json_decref(v);
        static const char *const bad[] = {"{\"a\":", "\"text\"", "{\"a\":1,\"a\":2}", "{\"a\":1} x", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"};
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                const pkgnote_json_member b1[] = {PKGNOTE_JSON_VALUE("kernel", bad[i])};
                j = NULL;
                CHECK(pkgnote_core_to_json(NULL, NULL, b1, 1, &j) == -EINVAL && !j);
        }
        if (st) {
                v = parse_json(pkgnote_stack_to_json(st, &j), &j, JSON_ARRAY);
                CHECK(v && json_array_size(v) == pkgnote_stack_thread_count(st));
                json_decref(v);
        }
}

/* Every frame and debug info entry of ST, read; past the end, nothing. */
static void probe_stack(const pkgnote_stack *st) {
        touch_str(pkgnote_stack_unavailable(st));
        size_t nt = pkgnote_stack_thread_count(st);
        for (size_t t = 0; t <= nt; t++) {
                sink += (unsigned long)pkgnote_stack_thread_tid(st, t);
                size_t nf = pkgnote_stack_frame_count(st, t);
                CHECK(t < nt || nf == 0);
                for (size_t i = 0; i <= nf; i++) {
                        unsigned line = 1, column = 1;
                        const char *file = pkgnote_stack_frame_source(st, t, i, &line, &column);
                        touch_str(file);
                        touch_str(pkgnote_stack_frame_module(st, t, i));
                        touch_str(pkgnote_stack_frame_function(st, t, i));
                        sink += pkgnote_stack_frame_pc(st, t, i) + pkgnote_stack_frame_module_offset(st, t, i) + line +
                                column + (unsigned)pkgnote_stack_frame_inlined(st, t, i);
                        CHECK(i < nf || (!file && line == 0 && column == 0 && !pkgnote_stack_frame_inlined(st, t, i)));
                        CHECK(pkgnote_stack_frame_source(st, t, i, NULL, NULL) == file);
                }
        }
        size_t nd = pkgnote_stack_debuginfo_count(st);
        for (size_t i = 0; i < nd; i++) {
                const pkgnote_debuginfo *d = pkgnote_stack_debuginfo(st, i);
                CHECK(d && d->module && pkgnote_debuginfo_status_name(d->status));
                if (!d)
                        continue;
                touch_str(d->module);
                touch_str(d->build_id);
                touch_str(d->servers);
                touch_str(d->file);
                touch_str(d->message);
        }
        CHECK(!pkgnote_stack_debuginfo(st, nd));
}

/* The signature of ST (1.1): every string it hands out, read while it
 * lives; past the last frame, nothing; its JSON parses. */
static void probe_signature(const pkgnote_core *c, const pkgnote_stack *st) {
        pkgnote_signature *sig;
        int r = pkgnote_signature_from_stack(c, st, &sig);
        CHECK(r == 0 || r == -ENODATA);
        if (r < 0)
                return;
        touch_str(pkgnote_signature_text(sig));
        touch_str(pkgnote_signature_package(sig));
        CHECK(pkgnote_signature_hash(sig) && strlen(pkgnote_signature_hash(sig)) == 16);
        size_t n = pkgnote_signature_frame_count(sig);
        CHECK(n >= 1 && n <= PKGNOTE_SIGNATURE_FRAMES);
        for (size_t i = 0; i < n; i++)
                touch_str(pkgnote_signature_frame(sig, i));
        CHECK(!pkgnote_signature_frame(sig, n));
        CHECK(pkgnote_signature_source(sig) == PKGNOTE_SIGNATURE_STACK);
        CHECK(!strcmp(pkgnote_signature_source_name(pkgnote_signature_source(sig)) ?: "", "stack"));
        CHECK(!pkgnote_signature_source_name(0));
        char *j;
        json_t *v = parse_json(pkgnote_signature_to_json(sig, &j), &j, JSON_OBJECT);
        CHECK(v && json_array_size(json_object_get(v, "frames")) == n);
        json_decref(v);
        pkgnote_signature_free(sig);
        pkgnote_signature_free(NULL);
}

/* Stacks with options: a dry run (debug info entries, no connection), and
 * options this library must refuse. */
static void probe_stack_options(const pkgnote_core *c) {
        pkgnote_stack_options o = PKGNOTE_STACK_OPTIONS_INIT;
        o.flags = PKGNOTE_STACK_DEBUGINFOD_DRY_RUN;
        o.debuginfod_urls = "http://127.0.0.1:9/ http://127.0.0.1:9/x";
        pkgnote_stack *st;
        if (pkgnote_core_stack_with(c, &o, &st) >= 0) {
                probe_stack(st);
                probe_core_json(c, st);
                pkgnote_stack_free(st);
        }
        o.flags = 1u << 30;
        st = (pkgnote_stack *)&o; /* out-parameters are written on success only */
        CHECK(pkgnote_core_stack_with(c, &o, &st) == -EINVAL && st == (pkgnote_stack *)&o);
        struct {
                pkgnote_stack_options o;
                unsigned future;
        } big = {.o = PKGNOTE_STACK_OPTIONS_INIT, .future = 1};
        big.o.size = sizeof big;
        CHECK(pkgnote_core_stack_with(c, &big.o, &st) == -EINVAL);
        CHECK(pkgnote_core_stack_with(c, NULL, &st) == 0 && st);
        pkgnote_stack_free(st);
        CHECK(!pkgnote_debuginfo_status_name(-1) && !pkgnote_debuginfo_status_name(1000));
}

/* A core or a process; returns how many modules carry NAME's package. */
static size_t probe_core(pkgnote_core *c, const char *name) {
        pkgnote_process_info p = {.size = sizeof p};
        CHECK(pkgnote_core_process(c, &p) == 0);
        touch_str(p.command);
        touch_str(p.arguments);
        touch_str(p.executable);
        touch_str(pkgnote_signal_name(p.signal));
        touch_str(pkgnote_machine_name(p.machine, p.elf_class));
        sink += (unsigned long)(p.pid + p.ppid + p.uid + p.gid) + p.fault_address;
        for (size_t i = 0; i < pkgnote_core_thread_count(c); i++)
                touch(pkgnote_core_thread(c, i), sizeof(pkgnote_thread_info));
        CHECK(pkgnote_core_thread(c, pkgnote_core_thread_count(c)) == NULL);
        size_t found = 0, n = pkgnote_core_module_count(c);
        CHECK(n > 0);
        pkgnote_info **copies = calloc(n ? n : 1, sizeof *copies);
        CHECK(copies);
        if (!copies)
                return 0;
        for (size_t i = 0; i < n; i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                CHECK(m);
                if (!m)
                        continue;
                touch_str(pkgnote_module_path(m));
                sink += pkgnote_module_start(m) + pkgnote_module_end(m);
                touch_str(pkgnote_module_build_id(m));
                touch_str(pkgnote_module_disk_build_id(m));
                touch_str(pkgnote_module_reason(m));
                touch_str(pkgnote_source_name(pkgnote_module_source(m)));
                sink += (unsigned long)(pkgnote_module_is_vdso(m) + pkgnote_module_deleted(m) +
                                        pkgnote_module_replaced(m));
                /* A replaced module's installed notes, owned by the core. */
                if (pkgnote_module_installed_info(m))
                        (void)probe_info(pkgnote_module_installed_info(m), NULL);
                /* The package database's answer, owned by the core. */
                touch_str(pkgnote_origin_name(pkgnote_module_package_origin(m)));
                touch_str(pkgnote_db_state_name(pkgnote_module_db_state(m)));
                touch_str(pkgnote_module_db_type(m));
                touch_str(pkgnote_module_db_name(m));
                touch_str(pkgnote_module_db_version(m));
                touch_str(pkgnote_module_db_architecture(m));
                touch_str(pkgnote_module_db_source(m));
                touch_str(pkgnote_module_db_source_version(m));
                sink += (unsigned long)pkgnote_module_db_mismatch(m);
                const pkgnote_info *info = pkgnote_module_info(m);
                if (info) {
                        found += probe_info(info, name);
                        CHECK(pkgnote_info_dup(info, &copies[i]) == 0);
                }
        }
        CHECK(!pkgnote_core_module(c, n));
        const pkgnote_module *main_module = pkgnote_core_main_module(c);
        if (main_module)
                touch_str(pkgnote_module_path(main_module));
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                touch_problem(pkgnote_core_problem(c, i), true);
        sink += pkgnote_core_bytes_read(c);
        probe_core_json(c, NULL);
        /* systemd's shape: the modules with a package note, and only they. */
        char *sj;
        json_t *sv = parse_json(pkgnote_core_to_systemd_json(c, PKGNOTE_SYSTEMD_COREDUMP, &sj), &sj, JSON_OBJECT);
        CHECK(sv && !strcmp(json_string_value(json_object_get(sv, "elfType")) ?: "", "coredump"));
        CHECK(sv && json_object_size(sv) >= 2 + (size_t)(found > 0));
        json_decref(sv);
        CHECK(pkgnote_core_to_systemd_json(c, 0x80, &sj) == -EINVAL);
        pkgnote_stack *st;
        if (pkgnote_core_stack(c, 0, &st) >= 0) {
                probe_stack(st);
                probe_signature(c, st);
                probe_core_json(c, st);
                pkgnote_stack_free(st);
        }
        probe_stack_options(c);
        pkgnote_core_free(c);
        /* Copies outlive the core they were taken from. */
        size_t again = 0;
        for (size_t i = 0; i < n; i++)
                if (copies[i]) {
                        again += probe_info(copies[i], name);
                        pkgnote_info_free(copies[i]);
                }
        free(copies);
        CHECK(again == found);
        return found;
}

static void progress(void *userdata, uint64_t files, uint64_t bytes) {
        sink += files + bytes;
        (void)userdata;
}

static void touch_object(const pkgnote_scan_object *o) {
        touch_str(pkgnote_scan_object_path(o));
        sink += pkgnote_scan_object_input(o) + pkgnote_scan_object_size(o) + pkgnote_scan_object_elf_type(o) +
                pkgnote_scan_object_machine(o);
        sink += (unsigned long)(pkgnote_scan_object_class(o) + pkgnote_scan_object_big_endian(o));
        touch_str(pkgnote_scan_object_kind(o));
        touch_str(pkgnote_scan_object_build_id(o));
        for (size_t i = 0; i < pkgnote_scan_object_package_count(o); i++) {
                const pkgnote_metadata *m = pkgnote_scan_object_package(o, i);
                const char *json = pkgnote_scan_object_package_json(o, i);
                CHECK(m && json);
                touch_str(json);
                if (m)
                        probe_metadata(m, json);
        }
        for (size_t i = 0; i < pkgnote_scan_object_dlopen_count(o); i++)
                touch_str(pkgnote_scan_object_dlopen_json(o, i));
        CHECK(pkgnote_scan_object_info(o) != NULL);
        if (pkgnote_scan_object_info(o))
                probe_info(pkgnote_scan_object_info(o), NULL);
        for (size_t i = 0; i < pkgnote_scan_object_problem_count(o); i++)
                touch_problem(pkgnote_scan_object_problem(o, i), true);
        for (size_t i = 0; i < pkgnote_scan_object_container_count(o); i++)
                touch_str(pkgnote_scan_object_container(o, i));
        CHECK(pkgnote_scan_object_container(o, pkgnote_scan_object_container_count(o)) == NULL);
        touch_str(pkgnote_scan_object_sha1(o));
        touch_str(pkgnote_scan_object_sha256(o));
        char *j;
        json_t *v = parse_json(pkgnote_scan_object_to_json(o, "input", &j), &j, JSON_OBJECT);
        CHECK(array_size(v, "packages") == (long)pkgnote_scan_object_package_count(o));
        json_decref(v);
}

static void probe_scan(const char *path) {
        pkgnote_scan_options o = {.flags = PKGNOTE_SCAN_CHECKSUMS, .threads = 2, .progress = progress};
        pkgnote_scan *s;
        CHECK(pkgnote_scan_new(&o, &s) == 0);
        if (failures)
                return;
        CHECK(pkgnote_scan_add(s, path) == PKGNOTE_SCAN_INPUT_FILE);
        CHECK(pkgnote_scan_add(s, "/nonexistent/api-probe") < 0);
        pkgnote_scan_stats st = {.size = sizeof st};
        pkgnote_scan_get_stats(s, &st);
        CHECK(st.objects == 1 && st.with_note == 1);
        for (size_t i = 0; i < pkgnote_scan_problem_count(s); i++)
                touch_problem(pkgnote_scan_problem(s, i), false); /* notices carry 0 */
        CHECK(pkgnote_scan_object_count(s) == 1);
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++)
                touch_object(pkgnote_scan_object_get(s, i));
        CHECK(pkgnote_scan_object_count(s) == 0 || pkgnote_scan_object_dlopen_count(pkgnote_scan_object_get(s, 0)) == 1);
        CHECK(pkgnote_scan_package_count(s) == 1);
        for (size_t i = 0; i < pkgnote_scan_package_count(s); i++) {
                const pkgnote_metadata *m = pkgnote_scan_package(s, i);
                const char *json = pkgnote_scan_package_json(s, i);
                CHECK(m && json);
                touch_str(json);
                if (m)
                        probe_metadata(m, json);
                for (size_t j = 0; j < pkgnote_scan_package_object_count(s, i); j++)
                        touch_object(pkgnote_scan_package_object(s, i, j));
        }
        char *j;
        json_t *v = parse_json(pkgnote_scan_summary_to_json(s, &j), &j, JSON_OBJECT);
        CHECK(json_integer_value(json_object_get(json_object_get(v, "summary"), "objects")) == 1);
        json_decref(v);
        for (int format = PKGNOTE_SBOM_SPDX; format <= PKGNOTE_SBOM_CYCLONEDX; format++) {
                pkgnote_sbom_options so = {.name = "probe", .created = 0, .reproducible = 1};
                char *doc = NULL;
                CHECK(pkgnote_sbom_write(s, format, &so, &doc) >= 0);
                touch_str(doc);
                free(doc);
        }
        pkgnote_scan_free(s);
}

/* Both SBOMs of S, with the default options. */
static void probe_sboms(const pkgnote_scan *s) {
        for (int format = PKGNOTE_SBOM_SPDX; format <= PKGNOTE_SBOM_CYCLONEDX; format++) {
                char *doc = NULL;
                CHECK(pkgnote_sbom_write(s, format, NULL, &doc) >= 0);
                touch_str(doc);
                free(doc);
        }
}

/* An image layout holding several images: every image accessor, every
 * object's image among them, both SBOMs; then the images listed alone. */
static void probe_images(const char *layout) {
        for (int list = 0; list < 2; list++) {
                pkgnote_scan_options o = {.flags = list ? PKGNOTE_SCAN_LIST_IMAGES : 0, .threads = 2};
                pkgnote_scan *s;
                CHECK(pkgnote_scan_new(&o, &s) == 0);
                if (failures)
                        return;
                CHECK(pkgnote_scan_add(s, layout) == PKGNOTE_SCAN_INPUT_OCI);
                size_t n = pkgnote_scan_image_count(s);
                CHECK(n >= 2);
                CHECK(pkgnote_scan_image_get(s, n) == NULL);
                for (size_t i = 0; i < n; i++) {
                        const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                        CHECK(im != NULL);
                        if (!im)
                                continue;
                        touch_str(pkgnote_scan_image_reference(im));
                        CHECK(pkgnote_scan_image_reference(im) != NULL);
                        touch_str(pkgnote_scan_image_digest(im));
                        touch_str(pkgnote_scan_image_id(im));
                        touch_str(pkgnote_scan_image_platform(im));
                        for (size_t t = 0; t < pkgnote_scan_image_tag_count(im); t++)
                                touch_str(pkgnote_scan_image_tag(im, t));
                        CHECK(pkgnote_scan_image_tag(im, pkgnote_scan_image_tag_count(im)) == NULL);
                        sink += pkgnote_scan_image_input(im) + pkgnote_scan_image_size(im) +
                                pkgnote_scan_image_layer_count(im);
                        char *j;
                        json_t *v = parse_json(pkgnote_scan_image_to_json(im, i ? NULL : "input", &j), &j, JSON_OBJECT);
                        CHECK(array_size(v, "tags") == (long)pkgnote_scan_image_tag_count(im));
                        json_decref(v);
                }
                CHECK(list ? pkgnote_scan_object_count(s) == 0 : pkgnote_scan_object_count(s) > 0);
                for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                        const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                        const pkgnote_scan_image *im = pkgnote_scan_object_image(ob);
                        bool known = false;
                        for (size_t k = 0; k < n; k++)
                                known |= pkgnote_scan_image_get(s, k) == im;
                        CHECK(known);
                        touch_object(ob);
                }
                probe_sboms(s);
                pkgnote_scan_free(s);
        }
}

/* Any input (an artefact: its objects inside archives inside it): every
 * object, its chain of containers, both SBOMs; NESTED: some object must
 * be inside an archive. */
static void probe_any(const char *path, bool nested) {
        pkgnote_scan_options o = {.flags = PKGNOTE_SCAN_CHECKSUMS, .threads = 2};
        pkgnote_scan *s;
        CHECK(pkgnote_scan_new(&o, &s) == 0);
        if (failures)
                return;
        CHECK(pkgnote_scan_add(s, path) > 0);
        CHECK(pkgnote_scan_object_count(s) > 0);
        size_t in_archive = 0;
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                touch_object(pkgnote_scan_object_get(s, i));
                in_archive += pkgnote_scan_object_container_count(pkgnote_scan_object_get(s, i)) > 0;
        }
        CHECK(!nested || in_archive > 0);
        probe_sboms(s);
        pkgnote_scan_free(s);
}

/* A stamp result and a failure, as JSON; control characters and bytes
 * that are not UTF-8 written as the pkgnote command always wrote them. */
static void probe_stamp_json(void) {
        pkgnote_stamp_result r = {.size = sizeof r, .placement = PKGNOTE_PLACE_REMOVED, .first_page = 1,
                                  .note_size = 1ull << 40, .bytes_added = -8};
        char *j = NULL;
        /* A result whose size the caller did not set is refused, and so
         * is one shorter than the struct of 1.0 (never half a field). */
        pkgnote_stamp_result unsized = r;
        unsized.size = 0;
        CHECK(pkgnote_stamp_result_to_json(&unsized, "f", NULL, &j) == -EINVAL && !j);
        pkgnote_stamp_result shorter = r;
        shorter.size = offsetof(pkgnote_stamp_result, note_offset);
        CHECK(pkgnote_stamp_result_to_json(&shorter, "f", NULL, &j) == -EINVAL && !j);
        json_t *v = parse_json(pkgnote_stamp_result_to_json(&r, "f", NULL, &j), &j, JSON_OBJECT);
        CHECK(json_is_true(json_object_get(v, "firstPage")) && json_is_false(json_object_get(v, "relocatable")));
        CHECK(json_integer_value(json_object_get(v, "bytesAdded")) == -8);
        json_decref(v);
        /* Past INT64_MAX (which jansson does not read back): exact. */
        r.note_offset = UINT64_MAX;
        CHECK(pkgnote_stamp_result_to_json(&r, "f", NULL, &j) == 0);
        CHECK(j && strstr(j, ",\"noteOffset\":18446744073709551615,\"noteSize\":1099511627776,"));
        free(j);
        CHECK(pkgnote_stamp_result_to_json(NULL, "p\x1b\xff\xc2\x85\x7f\n", "e\"/", &j) == 0);
        CHECK(!strcmp(j, "{\"path\":\"p\\u001b\\\\xff\\u0085\\u007f\\u000a\",\"error\":\"e\\\"/\"}"));
        v = parse_json(0, &j, JSON_OBJECT);
        json_decref(v);
}

/* Option structs grow: size 0 is the first version, sizeof the current
 * one; a newer caller's larger struct works while its new fields are
 * unset, and is refused when they are set. */
static void probe_options(void) {
        pkgnote_scan *s = NULL;
        pkgnote_scan_options cur = PKGNOTE_SCAN_OPTIONS_INIT;
        CHECK(pkgnote_scan_new(&cur, &s) == 0);
        pkgnote_scan_free(s);
        struct {
                pkgnote_scan_options o;
                uint64_t future;
        } newer = {.o = {.size = sizeof newer, .threads = 1}};
        CHECK(pkgnote_scan_new(&newer.o, &s) == 0);
        pkgnote_scan_free(s);
        newer.future = 1;
        s = NULL;
        CHECK(pkgnote_scan_new(&newer.o, &s) == -EINVAL && !s);
        pkgnote_scan_options tiny = {.size = 1};
        CHECK(pkgnote_scan_new(&tiny, &s) == -EINVAL && !s);

        struct {
                pkgnote_core_options o;
                uint64_t future;
        } core_newer = {.o = {.size = sizeof core_newer, .no_disk = 1}, .future = 1};
        pkgnote_core *c = NULL;
        CHECK(pkgnote_core_from_memory("", 0, &core_newer.o, &c) == -EINVAL && !c);
        CHECK(pkgnote_core_open("/dev/null", &core_newer.o, &c) == -EINVAL && !c);

        CHECK(pkgnote_scan_new(NULL, &s) == 0);
        struct {
                pkgnote_sbom_options o;
                uint64_t future;
        } sbom_newer = {.o = {.size = sizeof sbom_newer}, .future = 1};
        char *doc = NULL;
        CHECK(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX, &sbom_newer.o, &doc) == -EINVAL && !doc);
        pkgnote_sbom_options sbom_cur = PKGNOTE_SBOM_OPTIONS_INIT;
        CHECK(pkgnote_sbom_write(s, PKGNOTE_SBOM_SPDX, &sbom_cur, &doc) >= 0 && doc);
        free(doc);
        pkgnote_scan_free(s);
}

/* The closure of this program in "/", its dlopen note selected (its
 * libprobe.so.1 is nowhere: one missing): every path, link target,
 * missing name and problem read before the closure is freed; its JSON
 * parses, and names this program. */
static void probe_closure(const char *self) {
        pkgnote_closure *c;
        CHECK(pkgnote_closure_new(NULL, &c) == 0);
        if (!c)
                return;
        CHECK(pkgnote_closure_select(c, NULL, 0, PKGNOTE_CLOSURE_ALL_FEATURES) == 0);
        CHECK(pkgnote_closure_add(c, self) == 1);
        CHECK(pkgnote_closure_count(c) >= 2);
        CHECK(pkgnote_closure_missing_count(c) >= 1);
        char *j = NULL;
        json_t *v = parse_json(pkgnote_closure_to_json(c, NULL, &j), &j, JSON_OBJECT);
        CHECK(v && json_array_size(json_object_get(v, "files")) == pkgnote_closure_count(c));
        json_decref(v);
        bool seen_probe = false;
        for (size_t i = 0; i < pkgnote_closure_missing_count(c); i++) {
                const char *by = NULL, *name = pkgnote_closure_missing(c, i, &by);
                CHECK(name != NULL);
                if (name && strstr(name, "libprobe.so.1"))
                        seen_probe = true;
                touch_str(name);
                touch_str(by);
        }
        CHECK(seen_probe);
        for (size_t i = 0; i < pkgnote_closure_problem_count(c); i++)
                touch_problem(pkgnote_closure_problem(c, i), true);
        for (size_t i = 0; i < pkgnote_closure_count(c); i++) {
                touch_str(pkgnote_closure_path(c, i));
                if (pkgnote_closure_target(c, i))
                        touch_str(pkgnote_closure_target(c, i));
        }
        CHECK(pkgnote_closure_path(c, pkgnote_closure_count(c)) == NULL);
        pkgnote_closure_free(c);
        pkgnote_closure_free(NULL);
}

/* The running kernel: every string of the info and of each module read
 * while the kernel object lives, its JSON an object. */
static void probe_kernel(void) {
        pkgnote_kernel *k = NULL;
        int r = pkgnote_kernel_read(NULL, &k);
        if (r == -ENOENT || r == -EACCES) /* no /sys/kernel/notes here */
                return;
        CHECK(r == 1);
        if (r != 1)
                return;
        pkgnote_kernel_info ki = PKGNOTE_KERNEL_INFO_INIT;
        CHECK(pkgnote_kernel_get(k, &ki) == 1);
        touch_str(ki.release);
        touch_str(ki.build_id);
        touch_str(ki.build_salt);
        touch_str(ki.image);
        touch_str(ki.image_build_id);
        touch_str(ki.image_error);
        touch_str(ki.db_type);
        touch_str(ki.db_name);
        touch_str(ki.db_version);
        touch_str(ki.db_binary);
        for (unsigned bit = 1; bit <= PKGNOTE_REBOOT_NEWER_PACKAGE; bit <<= 1) {
                touch_str(pkgnote_kernel_reboot_name(bit));
                touch_str(pkgnote_kernel_reboot_text(k, bit));
        }
        for (size_t i = 0; i <= ki.module_count; i++) {
                pkgnote_kernel_module m = PKGNOTE_KERNEL_MODULE_INIT;
                r = pkgnote_kernel_module_get(k, i, &m);
                CHECK(r == (i < ki.module_count));
                if (r != 1)
                        continue;
                touch_str(m.name);
                touch_str(m.build_id);
                touch_str(m.file);
                touch_str(m.file_build_id);
                touch_str(m.file_error);
                touch_str(m.db_type);
                touch_str(m.db_name);
                touch_str(m.db_version);
                touch_str(m.db_binary);
        }
        char *j;
        json_t *v = parse_json(pkgnote_kernel_to_json(k, &j), &j, JSON_OBJECT);
        json_decref(v);
        pkgnote_kernel_free(k);
        pkgnote_kernel_free(NULL);
}

int main(int argc, char **argv) {
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
                perror("api-probe: /proc/self/exe");
                return 2;
        }
        self[len] = 0;
        touch(&dlopen_note, sizeof dlopen_note);

        probe_file(self);
        printf("%s - file: every accessor, summary after its view, copy after its summary\n",
               failures ? "not ok" : "ok");

        int kernel_before = failures;
        probe_kernel();
        printf("%s - the running kernel: every string while it lives, its JSON\n",
               failures == kernel_before ? "ok" : "not ok");

        int before = failures;
        pkgnote_core *c;
        CHECK(pkgnote_process_open(getpid(), &c) == 0);
        if (failures == before)
                CHECK(probe_core(c, "regress-uaf") == 1);
        printf("%s - process: every accessor of every module, copies after the process object\n",
               failures == before ? "ok" : "not ok");

        /* Processes through a database cache: the cores borrow its
         * databases and are freed first; the same root is read once. */
        before = failures;
        pkgnote_dbcache *cache = NULL;
        CHECK(pkgnote_dbcache_new(&cache) == 0);
        CHECK(pkgnote_process_open_cached(getpid(), NULL, NULL, &c) == -EINVAL);
        for (int round = 0; cache && round < 2; round++) {
                if (pkgnote_process_open_cached(getpid(), NULL, cache, &c) != 0) {
                        CHECK(!"pkgnote_process_open_cached");
                        break;
                }
                CHECK(probe_core(c, "regress-uaf") == 1);
                CHECK(pkgnote_dbcache_count(cache) <= 1);
        }
        pkgnote_dbcache_free(cache);
        pkgnote_dbcache_free(NULL);
        printf("%s - processes through a database cache: every accessor, one database per root\n",
               failures == before ? "ok" : "not ok");

        before = failures;
        probe_options();
        printf("%s - option structs: version 0, current, a newer caller's with and without new fields\n",
               failures == before ? "ok" : "not ok");

        before = failures;
        probe_stamp_json();
        printf("%s - stamp results as JSON\n", failures == before ? "ok" : "not ok");

        before = failures;
        probe_closure(self);
        printf("%s - closure: every path, target, missing name and problem, its JSON\n",
               failures == before ? "ok" : "not ok");

        before = failures;
        probe_scan(self);
        printf("%s - scan: every accessor of objects, packages and problems, both SBOMs\n",
               failures == before ? "ok" : "not ok");

        for (int i = 1; i + 1 < argc; i += 2) {
                if (!strcmp(argv[i], "--nested")) {
                        before = failures;
                        probe_any(argv[i + 1], true);
                        printf("%s - objects inside archives inside %s: every accessor, their containers, both SBOMs\n",
                               failures == before ? "ok" : "not ok", argv[i + 1]);
                        continue;
                }
                if (!strcmp(argv[i], "--image")) {
                        before = failures;
                        probe_images(argv[i + 1]);
                        printf("%s - images of %s: every accessor of every image, objects' images, both SBOMs, "
                               "the list alone\n", failures == before ? "ok" : "not ok", argv[i + 1]);
                        continue;
                }
                if (strcmp(argv[i], "--core") != 0) {
                        fprintf(stderr, "usage: api-probe [--core FILE | --image LAYOUT | --nested ARTEFACT]...\n");
                        return 2;
                }
                before = failures;
                CHECK(pkgnote_core_open(argv[i + 1], NULL, &c) == 0);
                if (failures == before)
                        CHECK(probe_core(c, "api-probe-core") == 1);
                printf("%s - core %s: every accessor of every module, copies after the core object\n",
                       failures == before ? "ok" : "not ok", argv[i + 1]);
        }
        printf("# %d checks, %d failed\n", checks, failures);
        return failures ? 1 : 0;
}
