/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The FDO dlopen note (type 0x407c0c0a): a JSON array of objects, each
 * {"soname": [...], "feature": str, "description": str, "priority": str}
 * naming libraries a program may dlopen() (UAPI "dlopen Metadata").
 */
#include <stdlib.h>

#include "pnjson.h"

struct pkgnote_dlopen {
        json_t *arr;
};

PKGNOTE_PUBLIC int pkgnote_dlopen_parse(const char *json, size_t len, pkgnote_dlopen **ret) {
        json_t *v;
        int r = pn_json_load(json, len, &v);
        if (r < 0)
                return r;
        if (!json_is_array(v)) {
                json_decref(v);
                return pn_error(-EBADMSG, "dlopen metadata is not a JSON array");
        }
        for (size_t i = 0; i < json_array_size(v); i++) {
                json_t *o = json_array_get(v, i);
                json_t *s = json_object_get(o, "soname");
                if (!json_is_object(o) || !json_is_array(s)) {
                        json_decref(v);
                        return pn_error(-EBADMSG, "dlopen entry %zu is not an object with a \"soname\" array", i);
                }
                for (size_t j = 0; j < json_array_size(s); j++)
                        if (!json_is_string(json_array_get(s, j))) {
                                json_decref(v);
                                return pn_error(-EBADMSG, "dlopen entry %zu: soname %zu is not a string", i, j);
                        }
        }
        pkgnote_dlopen *d = malloc(sizeof *d);
        if (!d) {
                json_decref(v);
                return pn_error(-ENOMEM, "out of memory");
        }
        d->arr = v;
        *ret = d;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_dlopen_free(pkgnote_dlopen *d) {
        if (!d)
                return;
        json_decref(d->arr);
        free(d);
}

PKGNOTE_PUBLIC size_t pkgnote_dlopen_count(const pkgnote_dlopen *d) {
        return json_array_size(d->arr);
}

PKGNOTE_PUBLIC size_t pkgnote_dlopen_soname_count(const pkgnote_dlopen *d, size_t i) {
        return json_array_size(json_object_get(json_array_get(d->arr, i), "soname"));
}

PKGNOTE_PUBLIC const char *pkgnote_dlopen_soname(const pkgnote_dlopen *d, size_t i, size_t j) {
        return json_string_value(json_array_get(json_object_get(json_array_get(d->arr, i), "soname"), j));
}

PKGNOTE_PUBLIC const char *pkgnote_dlopen_get(const pkgnote_dlopen *d, size_t i, const char *key) {
        return json_string_value(json_object_get(json_array_get(d->arr, i), key));
}

PKGNOTE_PUBLIC int pkgnote_dlopen_to_json(const pkgnote_dlopen *d, char **ret) {
        /* A reader's rendering: control characters come out \u-escaped
         * rather than refused, so the output is always valid JSON. */
        char *s = json_dumps(d->arr, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (!s)
                return pn_error(-ENOMEM, "out of memory");
        *ret = s;
        return 0;
}
