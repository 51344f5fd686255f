/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One pass over an object's notes: build-id, package and dlopen notes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct package {
        pkgnote_metadata *meta;
        const pkgnote_note *note;
        char *json;
};

struct problem {
        int err;
        char *message;
};

struct pkgnote_info {
        char build_id[2 * 64 + 1];
        bool has_build_id;
        struct package *packages;
        size_t n_packages, n_package_notes;
        pkgnote_dlopen **dlopen;
        size_t n_dlopen;
        struct problem *problems;
        size_t n_problems;
};

static int add_problem(pkgnote_info *info, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int add_problem(pkgnote_info *info, int err, const char *fmt, ...) {
        struct problem *p = realloc(info->problems, (info->n_problems + 1) * sizeof *p);
        if (!p)
                return -ENOMEM;
        info->problems = p;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&p[info->n_problems].message, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        p[info->n_problems++].err = err;
        return 0;
}

static int add_package(pkgnote_info *info, const pkgnote_note *n) {
        const char *json;
        size_t len;
        int r;
        info->n_package_notes++;
        if ((r = pkgnote_note_json(n, &json, &len)) < 0)
                return add_problem(info, r, "package note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        for (size_t i = 0; i < info->n_packages; i++)
                if (strlen(info->packages[i].json) == len && memcmp(info->packages[i].json, json, len) == 0)
                        return 0; /* identical notes are one package */
        pkgnote_metadata *m;
        if ((r = pkgnote_metadata_parse(json, len, &m)) < 0)
                return add_problem(info, r, "package note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        struct package *p = realloc(info->packages, (info->n_packages + 1) * sizeof *p);
        char *copy = strndup(json, len);
        if (!p || !copy) {
                free(copy);
                pkgnote_metadata_free(m);
                if (p)
                        info->packages = p;
                return -ENOMEM;
        }
        info->packages = p;
        p[info->n_packages++] = (struct package){m, n, copy};
        return 0;
}

static int add_dlopen(pkgnote_info *info, const pkgnote_note *n) {
        const char *json;
        size_t len;
        pkgnote_dlopen *d;
        int r;
        if ((r = pkgnote_note_json(n, &json, &len)) < 0 || (r = pkgnote_dlopen_parse(json, len, &d)) < 0)
                return add_problem(info, r, "dlopen note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        pkgnote_dlopen **a = realloc(info->dlopen, (info->n_dlopen + 1) * sizeof *a);
        if (!a) {
                pkgnote_dlopen_free(d);
                return -ENOMEM;
        }
        info->dlopen = a;
        a[info->n_dlopen++] = d;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_info_read(pkgnote_elf *e, pkgnote_info **ret) {
        const pkgnote_note *notes;
        int c = pkgnote_elf_notes(e, &notes);
        if (c < 0)
                return c;
        pkgnote_info *info = calloc(1, sizeof *info);
        if (!info)
                return pn_error(-ENOMEM, "out of memory");
        int r = 0;
        for (size_t i = 0; i < pkgnote_elf_problem_count(e) && r >= 0; i++) {
                int err;
                const char *msg = pkgnote_elf_problem(e, i, &err);
                r = add_problem(info, err, "%s", msg);
        }
        const uint8_t *id;
        size_t id_len;
        if (r >= 0 && pkgnote_elf_build_id(e, &id, &id_len) > 0) {
                for (size_t i = 0; i < id_len; i++)
                        snprintf(info->build_id + 2 * i, 3, "%02x", id[i]);
                info->has_build_id = true;
        }
        for (int i = 0; i < c && r >= 0; i++) {
                if (pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA))
                        r = add_package(info, &notes[i]);
                else if (pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA))
                        r = add_dlopen(info, &notes[i]);
        }
        if (r < 0) {
                pkgnote_info_free(info);
                return pn_error(-ENOMEM, "out of memory");
        }
        *ret = info;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_info_free(pkgnote_info *info) {
        if (!info)
                return;
        for (size_t i = 0; i < info->n_packages; i++) {
                pkgnote_metadata_free(info->packages[i].meta);
                free(info->packages[i].json);
        }
        for (size_t i = 0; i < info->n_dlopen; i++)
                pkgnote_dlopen_free(info->dlopen[i]);
        for (size_t i = 0; i < info->n_problems; i++)
                free(info->problems[i].message);
        free(info->packages);
        free(info->dlopen);
        free(info->problems);
        free(info);
}

PKGNOTE_PUBLIC size_t pkgnote_info_package_count(const pkgnote_info *info) {
        return info->n_packages;
}
PKGNOTE_PUBLIC size_t pkgnote_info_package_note_count(const pkgnote_info *info) {
        return info->n_package_notes;
}
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_info_package(const pkgnote_info *info, size_t i) {
        return i < info->n_packages ? info->packages[i].meta : NULL;
}
PKGNOTE_PUBLIC const pkgnote_note *pkgnote_info_package_note(const pkgnote_info *info, size_t i) {
        return i < info->n_packages ? info->packages[i].note : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_info_package_json(const pkgnote_info *info, size_t i) {
        return i < info->n_packages ? info->packages[i].json : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_info_dlopen_count(const pkgnote_info *info) {
        return info->n_dlopen;
}
PKGNOTE_PUBLIC const pkgnote_dlopen *pkgnote_info_dlopen(const pkgnote_info *info, size_t i) {
        return i < info->n_dlopen ? info->dlopen[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_info_build_id(const pkgnote_info *info) {
        return info->has_build_id ? info->build_id : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_info_problem_count(const pkgnote_info *info) {
        return info->n_problems;
}
PKGNOTE_PUBLIC const char *pkgnote_info_problem(const pkgnote_info *info, size_t i, int *error) {
        if (i >= info->n_problems)
                return NULL;
        if (error)
                *error = info->problems[i].err;
        return info->problems[i].message;
}
