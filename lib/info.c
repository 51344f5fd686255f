/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One pass over an object's notes: build-id, package and dlopen notes.
 * The summary owns copies of everything it hands out, so it outlives the
 * ELF view it was read from (a core's modules keep it after the view of
 * the module's page or file is gone) and can be copied. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A note whose name, descriptor and section name point into BYTES. */
struct owned_note {
        pkgnote_note note;
        uint8_t *bytes;
};

struct package {
        pkgnote_metadata *meta;
        struct owned_note note;
        char *json;
};

struct dlopen_note {
        pkgnote_dlopen *parsed;
        char *json; /* as stored, for copies */
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
        struct dlopen_note *dlopen;
        size_t n_dlopen;
        struct problem *problems;
        size_t n_problems;
};

/* Copies N with its name (NUL-terminated beyond namesz, so a reader
 * stopping at a NUL stays inside), descriptor and section name into one
 * allocation. */
static int note_copy(const pkgnote_note *n, struct owned_note *ret) {
        size_t sect = n->section ? strlen(n->section) + 1 : 0;
        size_t size = (size_t)n->namesz + 1 + n->descsz + sect;
        uint8_t *b = malloc(size);
        if (!b)
                return -ENOMEM;
        uint8_t *name = b, *desc = b + n->namesz + 1, *section = desc + n->descsz;
        if (n->namesz)
                memcpy(name, n->name, n->namesz);
        name[n->namesz] = 0;
        if (n->descsz)
                memcpy(desc, n->desc, n->descsz);
        if (sect)
                memcpy(section, n->section, sect);
        ret->note = *n;
        ret->note.name = (const char *)name;
        ret->note.desc = desc;
        ret->note.section = sect ? (const char *)section : NULL;
        ret->bytes = b;
        return 0;
}

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
        if (p)
                info->packages = p;
        struct owned_note copy;
        if (!p || note_copy(n, &copy) < 0) {
                pkgnote_metadata_free(m);
                return -ENOMEM;
        }
        /* The JSON is the copied descriptor's text, NUL-terminated there. */
        p[info->n_packages++] = (struct package){m, copy, (char *)copy.note.desc};
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
        struct dlopen_note *a = realloc(info->dlopen, (info->n_dlopen + 1) * sizeof *a);
        if (a)
                info->dlopen = a;
        char *copy = a ? strndup(json, len) : NULL;
        if (!copy) {
                pkgnote_dlopen_free(d);
                return -ENOMEM;
        }
        a[info->n_dlopen++] = (struct dlopen_note){d, copy};
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

/* Copies are built from the stored text: parsing it again gives the
 * same objects, and the metadata object has no copy operation of its own. */
static int info_copy(const pkgnote_info *src, pkgnote_info *dst) {
        memcpy(dst->build_id, src->build_id, sizeof dst->build_id);
        dst->has_build_id = src->has_build_id;
        dst->n_package_notes = src->n_package_notes;
        if (src->n_packages && !(dst->packages = calloc(src->n_packages, sizeof *dst->packages)))
                return -ENOMEM;
        for (size_t i = 0; i < src->n_packages; i++) {
                const struct package *p = &src->packages[i];
                struct package *q = &dst->packages[i];
                if (pkgnote_metadata_parse(p->json, strlen(p->json), &q->meta) < 0)
                        return -ENOMEM; /* it parsed before: only memory can fail */
                dst->n_packages++;
                if (note_copy(&p->note.note, &q->note) < 0)
                        return -ENOMEM;
                q->json = (char *)q->note.note.desc;
        }
        if (src->n_dlopen && !(dst->dlopen = calloc(src->n_dlopen, sizeof *dst->dlopen)))
                return -ENOMEM;
        for (size_t i = 0; i < src->n_dlopen; i++) {
                const struct dlopen_note *d = &src->dlopen[i];
                if (pkgnote_dlopen_parse(d->json, strlen(d->json), &dst->dlopen[i].parsed) < 0)
                        return -ENOMEM;
                dst->n_dlopen++;
                if (!(dst->dlopen[i].json = strdup(d->json)))
                        return -ENOMEM;
        }
        if (src->n_problems && !(dst->problems = calloc(src->n_problems, sizeof *dst->problems)))
                return -ENOMEM;
        for (size_t i = 0; i < src->n_problems; i++) {
                if (!(dst->problems[i].message = strdup(src->problems[i].message)))
                        return -ENOMEM;
                dst->problems[i].err = src->problems[i].err;
                dst->n_problems++;
        }
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_info_dup(const pkgnote_info *info, pkgnote_info **ret) {
        if (!info)
                return pn_error(-EINVAL, "no summary to copy");
        pkgnote_info *copy = calloc(1, sizeof *copy);
        if (!copy || info_copy(info, copy) < 0) {
                pkgnote_info_free(copy);
                return pn_error(-ENOMEM, "out of memory");
        }
        *ret = copy;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_info_free(pkgnote_info *info) {
        if (!info)
                return;
        for (size_t i = 0; i < info->n_packages; i++) {
                pkgnote_metadata_free(info->packages[i].meta);
                free(info->packages[i].note.bytes);
        }
        for (size_t i = 0; i < info->n_dlopen; i++) {
                pkgnote_dlopen_free(info->dlopen[i].parsed);
                free(info->dlopen[i].json);
        }
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
        return i < info->n_packages ? &info->packages[i].note.note : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_info_package_json(const pkgnote_info *info, size_t i) {
        return i < info->n_packages ? info->packages[i].json : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_info_dlopen_count(const pkgnote_info *info) {
        return info->n_dlopen;
}
PKGNOTE_PUBLIC const pkgnote_dlopen *pkgnote_info_dlopen(const pkgnote_info *info, size_t i) {
        return i < info->n_dlopen ? info->dlopen[i].parsed : NULL;
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
