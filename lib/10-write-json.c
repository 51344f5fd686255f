/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON reports: a file's, a core's or process's (with its stack), a
 * scanned object's line and the scan's summary, a lint finding, a stamp
 * result.  Built as jansson values and dumped by jansson, then written
 * with the escaping pkgnote's output has always had: control characters
 * as \u00xx (C0, DEL and C1 alike), other text as raw UTF-8, bytes that
 * are not UTF-8 (possible in paths) as the text \xNN.  Package notes are
 * copied through as stored, but for DEL and C1 controls written as
 * \u00xx (the same JSON string, harmless to a terminal).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "03-model-json.h"
#include "06-stamp-files.h"

/* A report being built: text spliced in as is where a marker stands.  A
 * marker is a string starting with NUL, which no C string and no note
 * (the parser refuses \u0000) can hold. */
typedef struct jw {
        char **raw;
        size_t n_raw, cap_raw;
        bool failed;
} jw;

static json_t *jw_check(jw *w, json_t *v) {
        if (!v)
                w->failed = true;
        return v;
}


/* S as a JSON string (NULL: null); bytes that are not UTF-8 become the
 * text \xNN, so the result is valid JSON whatever S holds. */
static json_t *jw_string(jw *w, const char *s) {
        if (!s)
                return jw_check(w, json_null());
        /* Most strings are ASCII or valid UTF-8: those go as they are. */
        size_t len = strlen(s), i = 0;
        while (i < len && (unsigned char)s[i] < 0x80)
                i++;
        if (i == len || pn_utf8_invalid_at(s + i, len - i) == len - i)
                return jw_check(w, json_stringn_nocheck(s, len));
        char *buf = pn_utf8_or_hex(s, len, &len);
        if (!buf)
                return jw_check(w, NULL);
        json_t *v = json_stringn_nocheck(buf, len);
        free(buf);
        return jw_check(w, v);
}

/* LEN bytes of JSON text, written as they are. */
static json_t *jw_raw(jw *w, const char *text, size_t len) {
        char marker[24];
        if (PN_GROW(w->raw, w->cap_raw, w->n_raw + 1) < 0 || !(w->raw[w->n_raw] = strndup(text, len)))
                return jw_check(w, NULL);
        int n = snprintf(marker, sizeof marker, "%c%zu", 0, w->n_raw++);
        return jw_check(w, json_stringn_nocheck(marker, (size_t)n));
}

static json_t *jw_int(jw *w, int64_t v) {
        return jw_check(w, json_integer((json_int_t)v));
}

static json_t *jw_u64(jw *w, uint64_t v) {
        char buf[24];
        if (v <= INT64_MAX)
                return jw_int(w, (int64_t)v);
        int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
        return jw_raw(w, buf, (size_t)n);
}

/* -1 (or any negative number) is null. */
static json_t *jw_opt_int(jw *w, int v) {
        return v >= 0 ? jw_int(w, v) : jw_check(w, json_null());
}

static json_t *jw_hex(jw *w, uint64_t v) {
        char buf[24];
        snprintf(buf, sizeof buf, "0x%" PRIx64, v);
        return jw_check(w, json_string(buf));
}

static json_t *jw_bool(jw *w, bool v) {
        return jw_check(w, json_boolean(v));
}

/* jansson takes V whatever happens, also when OBJ or ARR is NULL (it then
 * fails and frees V). */
static void jw_set(jw *w, json_t *obj, const char *key, json_t *v) {
        if (!v || json_object_set_new(obj, key, v) < 0)
                w->failed = true;
}

static void jw_append(jw *w, json_t *arr, json_t *v) {
        if (!v || json_array_append_new(arr, v) < 0)
                w->failed = true;
}

static void jw_free(jw *w) {
        for (size_t i = 0; i < w->n_raw; i++)
                free(w->raw[i]);
        free(w->raw);
        w->raw = NULL;
        w->n_raw = w->cap_raw = 0;
}

static const char hexdigits[] = "0123456789abcdef";

/* Writes the byte at P to F, a DEL or C1 control (which JSON allows raw
 * in strings) as \u00xx; the bytes of P used. */
static size_t put_byte(const unsigned char *p, FILE *f) {
        if (*p == 0x7f)
                fputs("\\u007f", f);
        else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
                fprintf(f, "\\u00%c%c", hexdigits[p[1] >> 4], hexdigits[p[1] & 0xf]);
                return 2;
        } else
                fputc(*p, f);
        return 1;
}

/* Writes the JSON text S (a note, valid JSON) to F as it is, but for DEL
 * and C1 controls, which cannot stand outside its strings: as \u00xx,
 * the same string to a JSON reader, and nothing that drives a terminal. */
static void put_raw(const char *s, FILE *f) {
        for (const unsigned char *p = (const unsigned char *)s; *p;)
                p += put_byte(p, f);
}

/* Writes jansson's dump D to F with pkgnote's escaping and the markers
 * replaced by their text. */
static void jw_rewrite(const jw *w, const char *d, FILE *f) {
        bool in_string = false;
        for (const unsigned char *p = (const unsigned char *)d; *p; p++) {
                if (!in_string) {
                        if (*p == '"' && !strncmp((const char *)p + 1, "\\u0000", 6)) {
                                char *end;
                                unsigned long long i = strtoull((const char *)p + 7, &end, 10);
                                if (i < w->n_raw)
                                        put_raw(w->raw[i], f);
                                p = (const unsigned char *)end; /* the closing quote */
                                continue;
                        }
                        in_string = *p == '"';
                        fputc(*p, f);
                        continue;
                }
                if (*p == '"') {
                        in_string = false;
                        fputc(*p, f);
                } else if (*p == '\\') {
                        const char *short_forms = "b\bf\fn\nr\rt\t", *s;
                        p++;
                        if (*p == 'u') {
                                fputs("\\u", f);
                                for (int k = 0; k < 4 && p[1]; k++, p++)
                                        fputc(p[1] >= 'A' && p[1] <= 'F' ? p[1] - 'A' + 'a' : p[1], f);
                        } else if ((s = strchr(short_forms, *p)) && (s - short_forms) % 2 == 0)
                                fprintf(f, "\\u%04x", (unsigned)s[1]);
                        else {
                                fputc('\\', f);
                                fputc(*p, f);
                        }
                } else
                        p += put_byte(p, f) - 1;
        }
}

/* ROOT dumped with jansson's FLAGS, then rewritten (jw_rewrite()). */
static char *jw_dump(const jw *w, const json_t *root, size_t flags) {
        char *d = pn_json_dumps(root, flags), *out = NULL;
        size_t len = 0;
        FILE *f = d ? open_memstream(&out, &len) : NULL;
        if (f) {
                jw_rewrite(w, d, f);
                if (fclose(f) != 0) {
                        free(out);
                        out = NULL;
                }
        }
        free(d);
        return out;
}

/* Dumps ROOT (consumed) into *RET and frees W. */
static int jw_finish(jw *w, json_t *root, char **ret) {
        char *out = !w->failed && root ? jw_dump(w, root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
        json_decref(root);
        jw_free(w);
        if (!out)
                return pn_oom();
        *ret = out;
        return 0;
}

int pn_json_dump_report(const json_t *root, size_t flags, char **ret) {
        jw w = {0};
        char *out = jw_dump(&w, root, flags);
        if (!out)
                return pn_oom();
        *ret = out;
        return 0;
}

static json_t *jw_architecture(jw *w, unsigned machine, int elf_class) {
        char buf[32];
        const char *m = pkgnote_machine_name(machine, elf_class);
        if (!m)
                snprintf(buf, sizeof buf, "machine-%u", machine);
        return jw_string(w, m ? m : buf);
}

/* The packages of INFO, their notes as stored. */
static json_t *jw_packages(jw *w, const pkgnote_info *info) {
        json_t *a = jw_check(w, json_array());
        for (size_t i = 0; info && i < pkgnote_info_package_count(info); i++) {
                const char *j = pkgnote_info_package_json(info, i);
                jw_append(w, a, jw_raw(w, j, strlen(j)));
        }
        return a;
}

/* Adds the elements of the JSON array text J (a dlopen note) to A. */
static void jw_splice_array(jw *w, json_t *a, const char *j) {
        size_t len = strlen(j);
        if (len > 2)
                jw_append(w, a, jw_raw(w, j + 1, len - 2));
}

/* What a binary says is inside it (pkgnote_embedded_to_json()). */
static json_t *jw_embedded(jw *w, const pkgnote_embedded *m) {
        json_t *o = jw_check(w, json_object()), *cs = jw_check(w, json_array()), *ds = jw_check(w, json_array()),
               *ss = jw_check(w, json_array());
        if (pkgnote_embedded_toolchain(m))
                jw_set(w, o, "toolchain", jw_string(w, pkgnote_embedded_toolchain(m)));
        if (pkgnote_embedded_package_path(m))
                jw_set(w, o, "path", jw_string(w, pkgnote_embedded_package_path(m)));
        for (size_t i = 0; i < pkgnote_embedded_component_count(m); i++) {
                pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                if (pkgnote_embedded_component(m, i, &c) < 0)
                        continue;
                json_t *x = jw_check(w, json_object());
                const char *const keys[] = {"ecosystem", "name", "version", "checksum", "source", "kind", "purl"};
                const char *const vals[] = {c.ecosystem, c.name, c.version, c.checksum, c.source, c.kind, c.purl};
                for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
                        if (vals[k])
                                jw_set(w, x, keys[k], jw_string(w, vals[k]));
                jw_set(w, x, "main", jw_bool(w, c.main));
                if (c.replacement_name) {
                        json_t *r = jw_check(w, json_object());
                        jw_set(w, r, "name", jw_string(w, c.replacement_name));
                        if (c.replacement_version)
                                jw_set(w, r, "version", jw_string(w, c.replacement_version));
                        if (c.replacement_checksum)
                                jw_set(w, r, "checksum", jw_string(w, c.replacement_checksum));
                        jw_set(w, x, "replacement", r);
                }
                jw_append(w, cs, x);
        }
        jw_set(w, o, "components", cs);
        for (size_t i = 0; i < pkgnote_embedded_edge_count(m); i++) {
                size_t from, to;
                if (pkgnote_embedded_edge(m, i, &from, &to) < 0)
                        continue;
                json_t *e = jw_check(w, json_array());
                jw_append(w, e, jw_u64(w, from));
                jw_append(w, e, jw_u64(w, to));
                jw_append(w, ds, e);
        }
        jw_set(w, o, "dependencies", ds);
        for (size_t i = 0; i < pkgnote_embedded_setting_count(m); i++) {
                const char *k, *v;
                if (pkgnote_embedded_setting(m, i, &k, &v) < 0)
                        continue;
                json_t *x = jw_check(w, json_object());
                jw_set(w, x, "key", jw_string(w, k));
                jw_set(w, x, "value", jw_string(w, v));
                jw_append(w, ss, x);
        }
        jw_set(w, o, "settings", ss);
        return o;
}

PKGNOTE_PUBLIC int pkgnote_embedded_to_json(const pkgnote_embedded *m, char **ret) {
        jw w = {0};
        return jw_finish(&w, jw_embedded(&w, m), ret);
}

/* ------------------------------------------------------------------ */

/* What a PE image is beyond its notes: its format, machine, subsystem
 * and, for a unified kernel image, what it boots (UAPI.5: .linux the
 * kernel, .uname its release, .osrel the os-release of the OS). */
static json_t *jw_pe(jw *w, pkgnote_object *e) {
        json_t *o = jw_check(w, json_object());
        jw_set(w, o, "format", jw_string(w, pkgnote_object_class(e) == 64 ? "PE32+" : "PE32"));
        jw_set(w, o, "machine", jw_int(w, pkgnote_pe_machine(e)));
        jw_set(w, o, "subsystem", jw_int(w, pkgnote_pe_subsystem(e)));
        jw_set(w, o, "subsystemName", jw_string(w, pkgnote_pe_subsystem_name(pkgnote_pe_subsystem(e))));
        jw_set(w, o, "signed", jw_bool(w, pkgnote_pe_signed(e)));
        uint64_t linux_size;
        pkgnote_os_release *os = NULL;
        int has_linux = pkgnote_pe_section_find(e, ".linux", NULL, &linux_size, NULL);
        int has_osrel = pkgnote_pe_uki_os_release(e, &os);
        if (has_linux > 0 || has_osrel > 0) {
                json_t *u = jw_check(w, json_object());
                jw_set(w, u, "linuxSize", has_linux > 0 ? jw_u64(w, linux_size) : jw_check(w, json_null()));
                char *uname = pkgnote_pe_uki_uname(e);
                jw_set(w, u, "uname", jw_string(w, uname));
                free(uname);
                static const char *const keys[] = {"ID", "VERSION_ID", "PRETTY_NAME"};
                json_t *r = has_osrel > 0 ? jw_check(w, json_object()) : jw_check(w, json_null());
                for (size_t i = 0; has_osrel > 0 && i < ELEMENTSOF(keys); i++)
                        if (pkgnote_os_release_get(os, keys[i]))
                                jw_set(w, r, keys[i], jw_string(w, pkgnote_os_release_get(os, keys[i])));
                jw_set(w, u, "osRelease", r);
                jw_set(w, o, "uki", u);
        }
        pkgnote_os_release_free(os);
        return o;
}

PKGNOTE_PUBLIC int pkgnote_info_to_json(const pkgnote_info *info, pkgnote_object *e, const char *path, char **ret) {
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "path", jw_string(&w, path));
        if (e) {
                jw_set(&w, o, "elfType", jw_string(&w, pkgnote_object_kind(e)));
                jw_set(&w, o, "elfClass", jw_int(&w, pkgnote_object_class(e)));
                jw_set(&w, o, "byteOrder", jw_string(&w, pkgnote_object_big_endian(e) ? "big" : "little"));
                jw_set(&w, o, "architecture", jw_architecture(&w, pkgnote_object_machine(e), pkgnote_object_class(e)));
                jw_set(&w, o, "machine", jw_int(&w, pkgnote_object_machine(e)));
                if (pkgnote_object_is_pe(e))
                        jw_set(&w, o, "pe", jw_pe(&w, e));
        }
        jw_set(&w, o, "buildId", jw_string(&w, pkgnote_info_build_id(info)));
        jw_set(&w, o, "packages", jw_packages(&w, info));
        json_t *d = jw_check(&w, json_array());
        for (size_t i = 0; i < pkgnote_info_dlopen_count(info); i++) {
                char *j;
                if (pkgnote_dlopen_to_json(pkgnote_info_dlopen(info, i), &j) < 0)
                        continue;
                jw_splice_array(&w, d, j);
                free(j);
        }
        jw_set(&w, o, "dlopen", d);
        if (pkgnote_info_embedded(info))
                jw_set(&w, o, "embedded", jw_embedded(&w, pkgnote_info_embedded(info)));
        return jw_finish(&w, o, ret);
}

static json_t *jw_stack(jw *w, const pkgnote_stack *st) {
        json_t *threads = jw_check(w, json_array());
        for (size_t t = 0; t < pkgnote_stack_thread_count(st); t++) {
                json_t *th = jw_check(w, json_object()), *frames = jw_check(w, json_array());
                jw_set(w, th, "tid", jw_int(w, pkgnote_stack_thread_tid(st, t)));
                for (size_t k = 0; k < pkgnote_stack_frame_count(st, t); k++) {
                        json_t *fr = jw_check(w, json_object());
                        jw_set(w, fr, "pc", jw_hex(w, pkgnote_stack_frame_pc(st, t, k)));
                        jw_set(w, fr, "function", jw_string(w, pkgnote_stack_frame_function(st, t, k)));
                        jw_set(w, fr, "module", jw_string(w, pkgnote_stack_frame_module(st, t, k)));
                        jw_set(w, fr, "moduleOffset", jw_hex(w, pkgnote_stack_frame_module_offset(st, t, k)));
                        unsigned line, column;
                        const char *file = pkgnote_stack_frame_source(st, t, k, &line, &column);
                        if (file)
                                jw_set(w, fr, "file", jw_string(w, file));
                        if (line)
                                jw_set(w, fr, "line", jw_int(w, line));
                        if (column)
                                jw_set(w, fr, "column", jw_int(w, column));
                        if (pkgnote_stack_frame_inlined(st, t, k))
                                jw_set(w, fr, "inlined", jw_bool(w, true));
                        jw_append(w, frames, fr);
                }
                jw_set(w, th, "frames", frames);
                jw_append(w, threads, th);
        }
        return threads;
}

/* What became of each module's debug info: [{module, buildId, status,
 * servers: [...], file, message}]. */
static json_t *jw_debuginfo(jw *w, const pkgnote_stack *st) {
        json_t *a = jw_check(w, json_array());
        for (size_t i = 0; i < pkgnote_stack_debuginfo_count(st); i++) {
                const pkgnote_debuginfo *d = pkgnote_stack_debuginfo(st, i);
                json_t *o = jw_check(w, json_object());
                jw_set(w, o, "module", jw_string(w, d->module));
                jw_set(w, o, "buildId", jw_string(w, d->build_id));
                jw_set(w, o, "status", jw_string(w, pkgnote_debuginfo_status_name(d->status)));
                if (d->servers) {
                        json_t *servers = jw_check(w, json_array());
                        for (const char *p = d->servers; *p;) {
                                size_t n = strcspn(p, " ");
                                if (n) {
                                        char *one = strndup(p, n);
                                        jw_append(w, servers, jw_string(w, one));
                                        free(one);
                                }
                                p += n + (p[n] == ' ');
                        }
                        jw_set(w, o, "servers", servers);
                }
                if (d->file)
                        jw_set(w, o, "file", jw_string(w, d->file));
                if (d->message)
                        jw_set(w, o, "message", jw_string(w, d->message));
                jw_append(w, a, o);
        }
        return a;
}

PKGNOTE_PUBLIC int pkgnote_stack_to_json(const pkgnote_stack *st, char **ret) {
        jw w = {0};
        return jw_finish(&w, jw_stack(&w, st), ret);
}

/* A package database's owner of a file, {type, name, version,
 * architecture, source, sourceVersion} from DB[] in that order, or null
 * when DB[1] (the name) is NULL. */
static json_t *jw_db_package(jw *w, const char *const db[6]) {
        static const char *const keys[] = {"type", "name", "version", "architecture", "source", "sourceVersion"};
        if (!db[1])
                return jw_check(w, json_null());
        json_t *o = jw_check(w, json_object());
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                jw_set(w, o, keys[i], jw_string(w, db[i]));
        return o;
}

static void module_db(const pkgnote_module *m, const char *db[6]) {
        db[0] = pkgnote_module_db_type(m), db[1] = pkgnote_module_db_name(m), db[2] = pkgnote_module_db_version(m);
        db[3] = pkgnote_module_db_architecture(m), db[4] = pkgnote_module_db_source(m);
        db[5] = pkgnote_module_db_source_version(m);
}

static json_t *jw_module(jw *w, const pkgnote_module *m) {
        json_t *o = jw_check(w, json_object());
        int source = pkgnote_module_source(m);
        jw_set(w, o, "path", jw_string(w, pkgnote_module_path(m)));
        jw_set(w, o, "start", jw_hex(w, pkgnote_module_start(m)));
        jw_set(w, o, "end", jw_hex(w, pkgnote_module_end(m)));
        jw_set(w, o, "buildId", jw_string(w, pkgnote_module_build_id(m)));
        jw_set(w, o, "packages", jw_packages(w, pkgnote_module_info(m)));
        if (pkgnote_module_info(m) && pkgnote_info_embedded(pkgnote_module_info(m)))
                jw_set(w, o, "embedded", jw_embedded(w, pkgnote_info_embedded(pkgnote_module_info(m))));
        jw_set(w, o, "source", jw_string(w, pkgnote_source_name(source)));
        jw_set(w, o, "foundBy", jw_string(w, pkgnote_module_found_by(m)));
        if (source == PKGNOTE_SOURCE_DISK_MISMATCH)
                jw_set(w, o, "diskBuildId", jw_string(w, pkgnote_module_disk_build_id(m)));
        if (pkgnote_module_deleted(m))
                jw_set(w, o, "deleted", jw_bool(w, true));
        if (pkgnote_module_replaced(m)) {
                jw_set(w, o, "replaced", jw_bool(w, true));
                if (pkgnote_module_installed_info(m))
                        jw_set(w, o, "installedPackages", jw_packages(w, pkgnote_module_installed_info(m)));
        }
        if (pkgnote_module_is_vdso(m))
                jw_set(w, o, "vdso", jw_bool(w, true));
        if (pkgnote_module_reason(m))
                jw_set(w, o, "reason", jw_string(w, pkgnote_module_reason(m)));
        jw_set(w, o, "packageFrom", jw_string(w, pkgnote_origin_name(pkgnote_module_package_origin(m))));
        int state = pkgnote_module_db_state(m);
        if (state != PKGNOTE_DB_NOT_ASKED) {
                const char *db[6];
                module_db(m, db);
                jw_set(w, o, "dbState", jw_string(w, pkgnote_db_state_name(state)));
                jw_set(w, o, "dbPackage", jw_db_package(w, db));
                if (pkgnote_module_db_mismatch(m))
                        jw_set(w, o, "dbMismatch", jw_bool(w, true));
        }
        return o;
}

/* The members of C's report, with the threads of ST when not NULL. */
static void core_members(jw *w, json_t *o, const pkgnote_core *c, const pkgnote_stack *st) {
        pkgnote_process_info p = {.size = sizeof p};
        pkgnote_core_process(c, &p);
        jw_set(w, o, "pid", jw_opt_int(w, p.pid));
        jw_set(w, o, "tid", jw_opt_int(w, p.tid));
        jw_set(w, o, "ppid", jw_opt_int(w, p.ppid));
        jw_set(w, o, "uid", jw_opt_int(w, p.uid));
        jw_set(w, o, "gid", jw_opt_int(w, p.gid));
        jw_set(w, o, "signal", jw_opt_int(w, p.signal > 0 ? p.signal : -1));
        jw_set(w, o, "signalName", jw_string(w, pkgnote_signal_name(p.signal)));
        if (p.has_fault_address)
                jw_set(w, o, "faultAddress", jw_hex(w, p.fault_address));
        jw_set(w, o, "command", jw_string(w, p.command));
        jw_set(w, o, "commandLine", jw_string(w, p.arguments));
        jw_set(w, o, "executable", jw_string(w, p.executable));
        jw_set(w, o, "architecture", jw_architecture(w, p.machine, p.elf_class));
        jw_set(w, o, "elfClass", jw_int(w, p.elf_class));
        jw_set(w, o, "byteOrder", jw_string(w, p.big_endian ? "big" : "little"));
        const pkgnote_module *main = pkgnote_core_main_module(c);
        const pkgnote_info *mi = main ? pkgnote_module_info(main) : NULL;
        int origin = main ? pkgnote_module_package_origin(main) : PKGNOTE_ORIGIN_NONE;
        if (mi && pkgnote_info_package_count(mi) > 0) {
                const char *j = pkgnote_info_package_json(mi, 0);
                jw_set(w, o, "package", jw_raw(w, j, strlen(j)));
        } else if (origin == PKGNOTE_ORIGIN_DATABASE) {
                const char *db[6];
                module_db(main, db);
                jw_set(w, o, "package", jw_db_package(w, db));
        } else
                jw_set(w, o, "package", jw_check(w, json_null()));
        jw_set(w, o, "packageFrom", jw_string(w, pkgnote_origin_name(origin)));
        json_t *mods = jw_check(w, json_array());
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++)
                jw_append(w, mods, jw_module(w, pkgnote_core_module(c, i)));
        jw_set(w, o, "modules", mods);
        /* What was passed over or cut (a limit, an unreadable part): in
         * the report, not only on standard error. */
        if (pkgnote_core_problem_count(c) > 0) {
                json_t *pr = jw_check(w, json_array());
                for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                        jw_append(w, pr, jw_string(w, pkgnote_core_problem(c, i)->message));
                jw_set(w, o, "problems", pr);
        }
        if (st)
                jw_set(w, o, "threads", jw_stack(w, st));
        /* The crash's signature where the trace leaves one (1.1). */
        pkgnote_signature *sig = NULL;
        if (st && pkgnote_signature_from_stack(c, st, &sig) == 0) {
                jw_set(w, o, "signature", jw_string(w, pkgnote_signature_text(sig)));
                jw_set(w, o, "signatureHash", jw_string(w, pkgnote_signature_hash(sig)));
                jw_set(w, o, "signatureSource", jw_string(w, pkgnote_signature_source_name(pkgnote_signature_source(sig))));
        }
        pkgnote_signature_free(sig);
        if (st && pkgnote_stack_unavailable(st))
                jw_set(w, o, "stackUnavailable", jw_string(w, pkgnote_stack_unavailable(st)));
        if (st && pkgnote_stack_debuginfo_count(st) > 0)
                jw_set(w, o, "debugInfo", jw_debuginfo(w, st));
}

static int core_json_with(const pkgnote_core *c, const pkgnote_stack *st, const pkgnote_json_member *extra,
                          size_t n_extra, char **ret);

PKGNOTE_PUBLIC int pkgnote_core_to_json(const pkgnote_core *c, const pkgnote_stack *st,
                                        const pkgnote_json_member *members, size_t n_extra, char **ret) {
        /* The caller's array, its first element's size the stride of all. */
        pkgnote_json_member *extra;
        int rr = pn_array_read((void **)&extra, sizeof *extra, members, n_extra, PN_SIZE_1_0(pkgnote_json_member), "pkgnote_json_member");
        if (rr < 0)
                return rr;
        if (!extra)
                n_extra = 0;
        rr = core_json_with(c, st, extra, n_extra, ret);
        free(extra);
        return rr;
}

static int core_json_with(const pkgnote_core *c, const pkgnote_stack *st, const pkgnote_json_member *extra,
                          size_t n_extra, char **ret) {
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        if (c)
                core_members(&w, o, c, st);
        for (size_t i = 0; i < n_extra; i++) {
                if (!extra[i].key || json_object_get(o, extra[i].key)) {
                        json_decref(o);
                        jw_free(&w);
                        return pn_error(-EINVAL, "extra member %zu: %s", i,
                                        extra[i].key ? "its key is the report's own" : "no key");
                }
                if (extra[i].json) {
                        /* checked before it is written as it is */
                        json_t *v = NULL;
                        size_t len = strlen(extra[i].json);
                        int r = pn_json_load(extra[i].json, len, &v);
                        json_decref(v);
                        if (r < 0) {
                                json_decref(o);
                                jw_free(&w);
                                return r == -ENOMEM ? r
                                                    : pn_error(-EINVAL, "extra member %zu (%s): %s", i, extra[i].key,
                                                               pkgnote_last_error());
                        }
                        jw_set(&w, o, extra[i].key, jw_raw(&w, extra[i].json, len));
                } else
                        jw_set(&w, o, extra[i].key,
                               extra[i].string ? jw_string(&w, extra[i].string) : jw_int(&w, extra[i].number));
        }
        return jw_finish(&w, o, ret);
}

/* What names an image: reference, digest, id and tags. */
static json_t *jw_image_names(jw *w, const pkgnote_scan_image *im) {
        json_t *o = jw_check(w, json_object()), *tags = jw_check(w, json_array());
        jw_set(w, o, "reference", jw_string(w, pkgnote_scan_image_reference(im)));
        jw_set(w, o, "digest", jw_string(w, pkgnote_scan_image_digest(im)));
        jw_set(w, o, "id", jw_string(w, pkgnote_scan_image_id(im)));
        for (size_t i = 0; i < pkgnote_scan_image_tag_count(im); i++)
                jw_append(w, tags, jw_string(w, pkgnote_scan_image_tag(im, i)));
        jw_set(w, o, "tags", tags);
        return o;
}

PKGNOTE_PUBLIC int pkgnote_scan_image_to_json(const pkgnote_scan_image *im, const char *input, char **ret) {
        jw w = {0};
        json_t *o = jw_image_names(&w, im);
        if (input)
                jw_set(&w, o, "input", jw_string(&w, input));
        jw_set(&w, o, "platform", jw_string(&w, pkgnote_scan_image_platform(im)));
        jw_set(&w, o, "size", jw_u64(&w, pkgnote_scan_image_size(im)));
        jw_set(&w, o, "layers", jw_u64(&w, pkgnote_scan_image_layer_count(im)));
        return jw_finish(&w, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_scan_object_to_json(const pkgnote_scan_object *ob, const char *input, char **ret) {
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "path", jw_string(&w, pkgnote_scan_object_path(ob)));
        jw_set(&w, o, "input", jw_string(&w, input));
        if (pkgnote_scan_object_image(ob))
                jw_set(&w, o, "image", jw_image_names(&w, pkgnote_scan_object_image(ob)));
        if (pkgnote_scan_object_container_count(ob)) {
                json_t *ch = jw_check(&w, json_array());
                for (size_t k = 0; k < pkgnote_scan_object_container_count(ob); k++)
                        jw_append(&w, ch, jw_string(&w, pkgnote_scan_object_container(ob, k)));
                jw_set(&w, o, "containers", ch);
        }
        jw_set(&w, o, "elfType", jw_string(&w, pkgnote_scan_object_kind(ob)));
        jw_set(&w, o, "elfClass", jw_int(&w, pkgnote_scan_object_class(ob)));
        jw_set(&w, o, "byteOrder", jw_string(&w, pkgnote_scan_object_big_endian(ob) ? "big" : "little"));
        jw_set(&w, o, "architecture",
               jw_architecture(&w, pkgnote_scan_object_machine(ob), pkgnote_scan_object_class(ob)));
        jw_set(&w, o, "machine", jw_int(&w, pkgnote_scan_object_machine(ob)));
        jw_set(&w, o, "buildId", jw_string(&w, pkgnote_scan_object_build_id(ob)));
        jw_set(&w, o, "packages", jw_packages(&w, pkgnote_scan_object_info(ob)));
        if (pkgnote_scan_object_db_type(ob)) {
                /* The root has a package database: the owner, or null. */
                const char *db[] = {pkgnote_scan_object_db_type(ob),         pkgnote_scan_object_db_name(ob),
                                    pkgnote_scan_object_db_version(ob),      pkgnote_scan_object_db_architecture(ob),
                                    pkgnote_scan_object_db_source(ob),       pkgnote_scan_object_db_source_version(ob)};
                jw_set(&w, o, "dbPackage", jw_db_package(&w, db));
                if (pkgnote_scan_object_db_name(ob) && pkgnote_scan_object_package_count(ob))
                        jw_set(&w, o, "dbMismatch", jw_check(&w, json_boolean(pkgnote_scan_object_db_mismatch(ob))));
        }
        json_t *d = jw_check(&w, json_array());
        for (size_t k = 0; k < pkgnote_scan_object_dlopen_count(ob); k++)
                jw_splice_array(&w, d, pkgnote_scan_object_dlopen_json(ob, k));
        jw_set(&w, o, "dlopen", d);
        const pkgnote_info *info = pkgnote_scan_object_info(ob);
        if (info && pkgnote_info_embedded(info))
                jw_set(&w, o, "embedded", jw_embedded(&w, pkgnote_info_embedded(info)));
        if (pkgnote_scan_object_problem_count(ob)) {
                json_t *pr = jw_check(&w, json_array());
                for (size_t k = 0; k < pkgnote_scan_object_problem_count(ob); k++)
                        jw_append(&w, pr, jw_string(&w, pkgnote_scan_object_problem(ob, k)->message));
                jw_set(&w, o, "problems", pr);
        }
        return jw_finish(&w, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_scan_db_package_to_json(const pkgnote_scan *s, size_t i, char **ret) {
        const char *text = pkgnote_scan_db_package_json(s, i);
        if (!text)
                return pn_error(-EINVAL, "no installed package %zu", i);
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "installedPackage", jw_check(&w, json_loads(text, 0, NULL)));
        if (pkgnote_scan_db_package_image(s, i))
                jw_set(&w, o, "image", jw_image_names(&w, pkgnote_scan_db_package_image(s, i)));
        json_t *objs = jw_check(&w, json_array());
        for (size_t k = 0; k < pkgnote_scan_db_package_object_count(s, i); k++)
                jw_append(&w, objs, jw_string(&w, pkgnote_scan_object_path(pkgnote_scan_db_package_object(s, i, k))));
        jw_set(&w, o, "objects", objs);
        return jw_finish(&w, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_scan_summary_to_json(const pkgnote_scan *s, char **ret) {
        jw w = {0};
        pkgnote_scan_stats st = {.size = sizeof st};
        pkgnote_scan_get_stats(s, &st);
        json_t *o = jw_check(&w, json_object()), *sum = jw_check(&w, json_object());
        const struct {
                const char *key;
                uint64_t v;
        } n[] = {
                {"inputs", st.inputs},           {"images", pkgnote_scan_image_count(s)},
                {"objects", st.objects},         {"peImages", st.pe_images},
                {"withNote", st.with_note},      {"withoutNote", st.without_note},
                {"malformed", st.malformed},     {"packages", st.packages},
                {"files", st.files},             {"bytes", st.bytes},
                {"directories", st.directories}, {"symlinks", st.symlinks},
                {"special", st.special},         {"unreadable", st.unreadable},
                {"otherFileSystems", st.other_fs}, {"whitedOut", st.whited_out},
                {"problems", pkgnote_scan_problem_count(s)},
        };
        for (size_t i = 0; i < sizeof n / sizeof *n; i++)
                jw_set(&w, sum, n[i].key, jw_u64(&w, n[i].v));
        /* Objects of roots with a package database. */
        uint64_t in_db = 0, owned = 0, mismatch = 0, missing = 0;
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                if (!pkgnote_scan_object_db_type(ob))
                        continue;
                in_db++;
                if (!pkgnote_scan_object_db_name(ob))
                        continue;
                owned++;
                mismatch += pkgnote_scan_object_db_mismatch(ob) != 0;
                missing += pkgnote_scan_object_package_count(ob) == 0;
        }
        if (in_db) {
                jw_set(&w, sum, "dbObjects", jw_u64(&w, in_db));
                jw_set(&w, sum, "dbOwned", jw_u64(&w, owned));
                jw_set(&w, sum, "dbMismatch", jw_u64(&w, mismatch));
                jw_set(&w, sum, "dbMissingNote", jw_u64(&w, missing));
        }
        jw_set(&w, o, "summary", sum);
        return jw_finish(&w, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_lint_finding_to_json(const pkgnote_lint_finding *f, const char *path, char **ret) {
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "path", jw_string(&w, path));
        jw_set(&w, o, "severity", jw_string(&w, pkgnote_lint_severity_name(f->check->severity)));
        jw_set(&w, o, "check", jw_string(&w, f->check->id));
        jw_set(&w, o, "message", jw_string(&w, f->message));
        jw_set(&w, o, "offset",
               f->offset == PKGNOTE_LINT_NO_OFFSET ? jw_check(&w, json_null()) : jw_u64(&w, f->offset));
        return jw_finish(&w, o, ret);
}

/* The members of one stamp result. */
static void stamp_fields(jw *w, json_t *o, const pkgnote_stamp_result *r) {
        jw_set(w, o, "placement", jw_string(w, pkgnote_stamp_placement_name(r->placement)));
        jw_set(w, o, "relocatable", jw_bool(w, r->relocatable));
        jw_set(w, o, "firstPage", jw_bool(w, r->first_page));
        jw_set(w, o, "phdrsFirstPage", jw_bool(w, r->phdrs_first_page));
        jw_set(w, o, "phdrsMoved", jw_bool(w, r->phdrs_moved));
        jw_set(w, o, "tablesMoved", jw_bool(w, r->tables_moved));
        jw_set(w, o, "notesMoved", jw_bool(w, r->notes_moved));
        jw_set(w, o, "signatureRemoved", jw_bool(w, r->signature_removed));
        if (r->pe_image) /* only then: the reports of ELF files stay as they were */
                jw_set(w, o, "peImage", jw_bool(w, r->pe_image));
        jw_set(w, o, "noteOffset", jw_u64(w, r->note_offset));
        jw_set(w, o, "noteSize", jw_u64(w, r->note_size));
        jw_set(w, o, "size", jw_u64(w, r->result_size));
        jw_set(w, o, "bytesAdded", jw_int(w, r->bytes_added));
}

PKGNOTE_PUBLIC int pkgnote_stamp_result_to_json(const pkgnote_stamp_result *r, const char *path, const char *error,
                                                char **ret) {
        pkgnote_stamp_result full;
        int e = r ? pn_stamp_results_in(r, 1, &full) : 0;
        if (e < 0)
                return e;
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "path", jw_string(&w, path));
        if (!r) {
                jw_set(&w, o, "error", jw_string(&w, error ? error : "unknown error"));
                return jw_finish(&w, o, ret);
        }
        stamp_fields(&w, o, &full);
        return jw_finish(&w, o, ret);
}

PKGNOTE_PUBLIC int pkgnote_stamp_notes_result_to_json(const pkgnote_stamp_result *r, const pkgnote_note_spec *notes,
                                                      size_t n, const char *path, char **ret) {
        if (!r || !notes || n == 0 || n > 2)
                return pn_error(-EINVAL, "no stamp results, or more than two");
        pkgnote_note_spec spec0;
        int e0 = pn_struct_read(&spec0, sizeof spec0, notes, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (e0 < 0)
                return e0;
        pkgnote_stamp_result full[PN_STAMP_RESULTS_MAX];
        int e = pn_stamp_results_in(r, n, full);
        if (e < 0)
                return e;
        r = full;
        jw w = {0};
        json_t *o = jw_check(&w, json_object());
        jw_set(&w, o, "path", jw_string(&w, path));
        if (spec0.type == PKGNOTE_NT_FDO_DLOPEN_METADATA)
                jw_set(&w, o, "note", jw_string(&w, "dlopen"));
        stamp_fields(&w, o, &r[0]);
        if (n > 1) {
                json_t *d = jw_check(&w, json_object());
                stamp_fields(&w, d, &r[1]);
                jw_set(&w, o, "dlopen", d);
        }
        return jw_finish(&w, o, ret);
}
