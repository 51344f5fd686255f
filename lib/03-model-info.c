/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One pass over an object's notes: build-id, package and dlopen notes.
 * The summary owns copies of everything it hands out, so it outlives the
 * ELF view it was read from (a core's modules keep it after the view of
 * the module's page or file is gone) and can be copied. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "03-model-embedded.h"
#include "03-model-info.h"
#include "01-base-problem.h"

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
        char *json; /* compact, for scans and copies */
};

struct pkgnote_info {
        char build_id[2 * 64 + 1];
        bool has_build_id;
        struct package *packages;
        size_t n_packages, cap_packages, n_package_notes;
        struct dlopen_note *dlopen;
        size_t n_dlopen, cap_dlopen;
        struct pn_problems problems;
        pkgnote_embedded *embedded; /* what the object says is inside it, or NULL */
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

int pn_info_add_problem(pkgnote_info *info, int err, const char *path, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = pn_problems_addv(&info->problems, PKGNOTE_MAX_PROBLEMS, err, path, 0, fmt, ap);
        va_end(ap);
        return r;
}

static int add_package(pkgnote_info *info, const pkgnote_note *n) {
        const char *json;
        size_t len;
        int r;
        info->n_package_notes++;
        if ((r = pkgnote_note_json(n, &json, &len)) < 0)
                return pn_info_add_problem(info, r, NULL, "package note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        for (size_t i = 0; i < info->n_packages; i++)
                if (strlen(info->packages[i].json) == len && memcmp(info->packages[i].json, json, len) == 0)
                        return 0; /* identical notes are one package */
        pkgnote_metadata *m;
        if ((r = pkgnote_metadata_parse(json, len, &m)) < 0)
                return pn_info_add_problem(info, r, NULL, "package note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        struct owned_note copy;
        if (PN_GROW(info->packages, info->cap_packages, info->n_packages + 1) < 0 || note_copy(n, &copy) < 0) {
                pkgnote_metadata_free(m);
                return -ENOMEM;
        }
        /* The JSON is the copied descriptor's text, NUL-terminated there. */
        info->packages[info->n_packages++] = (struct package){m, copy, (char *)copy.note.desc};
        return 0;
}

static int add_dlopen(pkgnote_info *info, const pkgnote_note *n) {
        const char *json;
        size_t len;
        pkgnote_dlopen *d;
        int r;
        if ((r = pkgnote_note_json(n, &json, &len)) < 0 || (r = pkgnote_dlopen_parse(json, len, &d)) < 0)
                return pn_info_add_problem(info, r, NULL, "dlopen note at offset 0x%llx: %s", (unsigned long long)n->offset,
                                   pkgnote_last_error());
        char *copy = NULL;
        if (PN_GROW(info->dlopen, info->cap_dlopen, info->n_dlopen + 1) < 0 || pkgnote_dlopen_to_json(d, &copy) < 0) {
                pkgnote_dlopen_free(d);
                return -ENOMEM;
        }
        info->dlopen[info->n_dlopen++] = (struct dlopen_note){d, copy};
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_info_read(pkgnote_object *e, pkgnote_info **ret) {
        const pkgnote_note *notes;
        int c = pn_object_notes(e, &notes);
        if (c < 0)
                return c;
        pkgnote_info *info = pn_info_new();
        if (!info)
                return pn_oom();
        int r = 0;
        for (size_t i = 0; i < pkgnote_object_problem_count(e) && r >= 0; i++) {
                const pkgnote_problem *p = pkgnote_object_problem(e, i);
                r = pn_info_add_problem(info, p->error, p->path, "%s", p->message);
        }
        const uint8_t *id;
        size_t id_len;
        if (r >= 0 && pkgnote_object_build_id(e, &id, &id_len) > 0) {
                pn_hex(info->build_id, id, id_len);
                info->has_build_id = true;
        }
        for (int i = 0; i < c && r >= 0; i++) {
                if (pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA))
                        r = add_package(info, &notes[i]);
                else if (pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA))
                        r = add_dlopen(info, &notes[i]);
        }
        if (r >= 0) {
                /* A list that cannot be read is a problem of the object, not
                 * of the reading; bytes that are not there (a module's page
                 * in a core) are no problem at all.  The two lists are read
                 * apart: a damaged crate list leaves Go's modules, and the
                 * other way round. */
                int k = pn_embedded_read_go(e, &info->embedded);
                if (k == -ENOMEM)
                        r = k;
                else if (k < 0 && k != -ENODATA)
                        r = pn_info_add_problem(info, k, NULL, "%s", pkgnote_last_error());
                if (r >= 0 && (k = pn_embedded_read_crates(e, &info->embedded)) == -ENOMEM)
                        r = k;
                else if (r >= 0 && k < 0 && k != -ENODATA)
                        r = pn_info_add_problem(info, k, NULL, "%s", pkgnote_last_error());
        }
        if (r < 0) {
                pkgnote_info_free(info);
                return pn_oom();
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
        dst->cap_packages = src->n_packages;
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
        dst->cap_dlopen = src->n_dlopen;
        for (size_t i = 0; i < src->n_dlopen; i++) {
                const struct dlopen_note *d = &src->dlopen[i];
                if (pkgnote_dlopen_parse(d->json, strlen(d->json), &dst->dlopen[i].parsed) < 0)
                        return -ENOMEM;
                dst->n_dlopen++;
                if (!(dst->dlopen[i].json = strdup(d->json)))
                        return -ENOMEM;
        }
        if (src->embedded && !(dst->embedded = pn_embedded_dup(src->embedded)))
                return -ENOMEM;
        return pn_problems_append(&dst->problems, PKGNOTE_MAX_PROBLEMS, &src->problems);
}

PKGNOTE_PUBLIC int pkgnote_info_dup(const pkgnote_info *info, pkgnote_info **ret) {
        if (!info)
                return pn_error(-EINVAL, "no summary to copy");
        pkgnote_info *copy = pn_info_new();
        if (!copy || info_copy(info, copy) < 0) {
                pkgnote_info_free(copy);
                return pn_oom();
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
        pn_problems_clear(&info->problems);
        pkgnote_embedded_free(info->embedded);
        free(info->packages);
        free(info->dlopen);
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
        return info->problems.n;
}
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_info_problem(const pkgnote_info *info, size_t i) {
        return pn_problems_get(&info->problems, i);
}
void pn_info_set_embedded(pkgnote_info *info, pkgnote_embedded *m) {
        pkgnote_embedded_free(info->embedded);
        info->embedded = m;
}

PKGNOTE_PUBLIC const pkgnote_embedded *pkgnote_info_embedded(const pkgnote_info *info) {
        return info->embedded;
}
const char *pn_info_dlopen_json(const pkgnote_info *info, size_t i) {
        return i < info->n_dlopen ? info->dlopen[i].json : NULL;
}

pkgnote_info *pn_info_new(void) {
        return calloc(1, sizeof(pkgnote_info));
}
