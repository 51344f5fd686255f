/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the ELF view, the note walker and the object summary: bytes ->
 * pkgnote_elf_from_memory -> headers, notes, build-id -> pkgnote_info_read
 * -> every package and dlopen accessor, serialization and check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Large enough for a first page plus section headers; hostile header
 * tables beyond this only slow the fuzzer down. */
#define MAX_INPUT (1u << 20)

static volatile size_t sink;

static void touch(const void *p, size_t len) {
        const volatile uint8_t *b = p;
        for (size_t i = 0; i < len; i++)
                sink += b[i];
}

static void touch_str(const char *s) {
        if (s)
                sink += strlen(s);
}

static void count_report(void *userdata, int error, const char *message) {
        (void)error;
        *(size_t *)userdata += 1;
        touch_str(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        /* A private copy so ASan catches reads past the end exactly. */
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        if (size)
                memcpy(buf, data, size);

        pkgnote_elf *e = NULL;
        if (pkgnote_elf_from_memory(buf, size, &e) < 0) {
                touch_str(pkgnote_last_error());
                free(buf);
                return 0;
        }
        sink += (size_t)pkgnote_elf_class(e) + (size_t)pkgnote_elf_big_endian(e);
        touch_str(pkgnote_elf_type_name(pkgnote_elf_type(e)));
        touch_str(pkgnote_machine_name(pkgnote_elf_machine(e), pkgnote_elf_class(e)));
        sink += (size_t)pkgnote_elf_size(e);

        const pkgnote_phdr *ph;
        int nph = pkgnote_elf_phdrs(e, &ph);
        for (int i = 0; i < nph; i++)
                sink += ph[i].type + ph[i].offset + ph[i].filesz + ph[i].memsz;

        const pkgnote_shdr *sh;
        int nsh = pkgnote_elf_shdrs(e, &sh);
        for (int i = 0; i < nsh; i++) {
                touch_str(sh[i].name);
                sink += sh[i].type + sh[i].offset + sh[i].size;
        }

        const pkgnote_note *notes;
        int nn = pkgnote_elf_notes(e, &notes);
        for (int i = 0; i < nn; i++) {
                const pkgnote_note *n = &notes[i];
                touch(n->name, n->namesz);
                touch(n->desc, n->descsz);
                touch_str(n->section);
                sink += n->where + n->size + n->offset;
                const char *json;
                size_t len;
                if (pkgnote_note_json(n, &json, &len) >= 0)
                        touch(json, len);
                sink += (size_t)pkgnote_note_is(n, PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA);
        }

        const uint8_t *id;
        size_t id_len;
        if (pkgnote_elf_build_id(e, &id, &id_len) > 0)
                touch(id, id_len);

        pkgnote_info *info = NULL;
        if (pkgnote_info_read(e, &info) >= 0) {
                touch_str(pkgnote_info_build_id(info));
                sink += pkgnote_info_package_note_count(info);
                for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                        const pkgnote_metadata *m = pkgnote_info_package(info, i);
                        const pkgnote_note *n = pkgnote_info_package_note(info, i);
                        const char *json = pkgnote_info_package_json(info, i);
                        if (!m || !n || !json)
                                abort();
                        touch_str(json);
                        touch_str(n->section);
                        for (const char *const *k = pkgnote_metadata_known_keys(); *k; k++)
                                touch_str(pkgnote_metadata_get(m, *k));
                        touch_str(pkgnote_metadata_type(m));
                        touch_str(pkgnote_metadata_os(m));
                        touch_str(pkgnote_metadata_os_version(m));
                        touch_str(pkgnote_metadata_name(m));
                        touch_str(pkgnote_metadata_version(m));
                        touch_str(pkgnote_metadata_architecture(m));
                        touch_str(pkgnote_metadata_os_cpe(m));
                        touch_str(pkgnote_metadata_app_cpe(m));
                        touch_str(pkgnote_metadata_debug_info_url(m));
                        for (size_t k = 0; k < pkgnote_metadata_count(m); k++) {
                                const char *key = pkgnote_metadata_key(m, k);
                                touch_str(key);
                                char *v = NULL;
                                if (pkgnote_metadata_value_json(m, k, &v) >= 0)
                                        touch_str(v);
                                free(v);
                        }
                        char *out = NULL;
                        if (pkgnote_metadata_to_json(m, &out) >= 0)
                                touch_str(out);
                        free(out);
                        size_t reports = 0;
                        int c = pkgnote_metadata_check(m, json, strlen(json), count_report, &reports);
                        if (c < 0 || (size_t)c != reports)
                                abort();
                }
                for (size_t i = 0; i < pkgnote_info_dlopen_count(info); i++) {
                        const pkgnote_dlopen *d = pkgnote_info_dlopen(info, i);
                        if (!d)
                                abort();
                        for (size_t k = 0; k < pkgnote_dlopen_count(d); k++) {
                                for (size_t j = 0; j < pkgnote_dlopen_soname_count(d, k); j++)
                                        touch_str(pkgnote_dlopen_soname(d, k, j));
                                touch_str(pkgnote_dlopen_get(d, k, "feature"));
                                touch_str(pkgnote_dlopen_get(d, k, "description"));
                                touch_str(pkgnote_dlopen_get(d, k, "priority"));
                        }
                        char *out = NULL;
                        if (pkgnote_dlopen_to_json(d, &out) >= 0)
                                touch_str(out);
                        free(out);
                }
                for (size_t i = 0; i < pkgnote_info_problem_count(info); i++) {
                        int err = 0;
                        touch_str(pkgnote_info_problem(info, i, &err));
                        if (err >= 0)
                                abort(); /* every problem carries a negative errno */
                }
                pkgnote_info_free(info);
        }
        for (size_t i = 0; i < pkgnote_elf_problem_count(e); i++)
                touch_str(pkgnote_elf_problem(e, i, NULL));

        pkgnote_elf_free(e);
        free(buf);
        return 0;
}
