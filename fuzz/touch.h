/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reads the bytes behind every pointer the public API hands out, so a
 * sanitizer sees a pointer that outlived its owner or points past its
 * end; checking pointers for NULL alone sees neither.  Shared by the
 * harnesses; each includes it once.
 */
#ifndef PKGNOTE_FUZZ_TOUCH_H
#define PKGNOTE_FUZZ_TOUCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pkgnote.h"

static volatile size_t sink;

static inline void touch(const void *p, size_t len) {
        const volatile uint8_t *b = p;
        for (size_t i = 0; i < len; i++)
                sink += b[i];
}

static inline void touch_str(const char *s) {
        if (s)
                touch(s, strlen(s) + 1);
}

/* A problem of any list; ERROR: it must carry a negative errno. */
static inline void touch_problem(const pkgnote_problem *p, bool error) {
        if (!p || !p->message || (error && p->error >= 0))
                abort();
        touch_str(p->message);
        touch_str(p->path);
}

/* The JSON a serializer stored in *J (R its return value): one valid
 * JSON object, or abort(); freed. */
static inline void touch_json(int r, char **j) {
        if (r == -ENOMEM)
                return;
        if (r < 0)
                abort();
        json_error_t err;
        json_t *v = json_loads(*j, 0, &err);
        if (!json_is_object(v))
                abort();
        json_decref(v);
        free(*j);
        *j = NULL;
}

static inline void touch_note(const pkgnote_note *n) {
        touch(n->name, n->namesz);
        touch(n->desc, n->descsz);
        touch_str(n->section);
        sink += n->type + n->align + n->where + n->size + n->offset;
        const char *json;
        size_t len;
        if (pkgnote_note_json(n, &json, &len) >= 0)
                touch(json, len + 1);
}

static inline void count_report(void *userdata, int error, const char *message) {
        if (error >= 0)
                abort(); /* every problem carries a negative errno */
        *(size_t *)userdata += 1;
        touch_str(message);
}

/* Every accessor of M, parsed from LEN bytes at JSON. */
static inline void touch_metadata(const pkgnote_metadata *m, const char *json, size_t len) {
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
        size_t n = pkgnote_metadata_count(m);
        for (size_t k = 0; k < n; k++) {
                const char *key = pkgnote_metadata_key(m, k);
                if (!key)
                        abort();
                touch_str(key);
                touch_str(pkgnote_metadata_get(m, key));
                char *v = NULL;
                if (pkgnote_metadata_value_json(m, k, &v) < 0)
                        abort();
                touch_str(v);
                free(v);
        }
        if (pkgnote_metadata_key(m, n))
                abort();
        char *out = NULL;
        if (pkgnote_metadata_to_json(m, &out) >= 0)
                touch_str(out);
        free(out);
        size_t reports = 0;
        int c = pkgnote_metadata_check(m, json, len, count_report, &reports);
        if (c < 0 || (size_t)c != reports || pkgnote_metadata_check(m, NULL, 0, NULL, NULL) < 0)
                abort();
}

static inline void touch_dlopen(const pkgnote_dlopen *d) {
        for (size_t k = 0; k < pkgnote_dlopen_count(d); k++) {
                for (size_t j = 0; j < pkgnote_dlopen_soname_count(d, k); j++) {
                        const char *so = pkgnote_dlopen_soname(d, k, j);
                        if (!so)
                                abort(); /* the parser promised strings */
                        touch_str(so);
                }
                touch_str(pkgnote_dlopen_get(d, k, "feature"));
                touch_str(pkgnote_dlopen_get(d, k, "description"));
                touch_str(pkgnote_dlopen_get(d, k, "priority"));
        }
        char *out = NULL;
        if (pkgnote_dlopen_to_json(d, &out) >= 0)
                touch_str(out);
        free(out);
}

/* Every accessor of a summary; abort()s where the header promises more
 * than what was found. */
static inline void touch_info(const pkgnote_info *info) {
        touch_str(pkgnote_info_build_id(info));
        if (pkgnote_info_package_note_count(info) < pkgnote_info_package_count(info))
                abort();
        for (size_t i = 0; i < pkgnote_info_package_count(info); i++) {
                const pkgnote_metadata *m = pkgnote_info_package(info, i);
                const pkgnote_note *n = pkgnote_info_package_note(info, i);
                const char *json = pkgnote_info_package_json(info, i);
                if (!m || !n || !json)
                        abort();
                touch_note(n);
                touch(n->name, (size_t)n->namesz + 1); /* one NUL beyond namesz */
                touch_str(json);
                touch_metadata(m, json, strlen(json));
        }
        for (size_t i = 0; i < pkgnote_info_dlopen_count(info); i++) {
                const pkgnote_dlopen *d = pkgnote_info_dlopen(info, i);
                if (!d)
                        abort();
                touch_dlopen(d);
        }
        for (size_t i = 0; i < pkgnote_info_problem_count(info); i++)
                touch_problem(pkgnote_info_problem(info, i), true);
        if (pkgnote_info_problem(info, pkgnote_info_problem_count(info)))
                abort();
}

/* The summary, then a copy of it read after the original is freed. */
static inline void touch_info_and_copy(const pkgnote_info *info) {
        touch_info(info);
        pkgnote_info *copy;
        if (pkgnote_info_dup(info, &copy) < 0)
                return; /* only memory can fail */
        touch_info(copy);
        pkgnote_info_free(copy);
}

#endif
