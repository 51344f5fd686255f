/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The FDO dlopen note (type 0x407c0c0a): a JSON array of objects, each
 * {"soname": [...], "feature": str, "description": str, "priority": str}
 * naming libraries a program may dlopen() (UAPI "dlopen Metadata").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "03-model-json.h"
#include "03-model-dlopen.h"

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
                return pn_oom();
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
        char *s = pn_json_dumps(d->arr, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

static const char *const priority_names[] = {
        [PKGNOTE_DLOPEN_SUGGESTED] = "suggested",
        [PKGNOTE_DLOPEN_RECOMMENDED] = "recommended",
        [PKGNOTE_DLOPEN_REQUIRED] = "required",
};

PKGNOTE_PUBLIC const char *pkgnote_dlopen_priority_name(int priority) {
        if (priority < PKGNOTE_DLOPEN_SUGGESTED || priority > PKGNOTE_DLOPEN_REQUIRED)
                return NULL;
        return priority_names[priority];
}

/* The priority of entry I, or -1: pkgnote_dlopen_check() asks without
 * touching the message (it cannot fail). */
static int priority_of(const pkgnote_dlopen *d, size_t i) {
        json_t *p = json_object_get(json_array_get(d->arr, i), "priority");
        if (!p)
                return PKGNOTE_DLOPEN_RECOMMENDED; /* the spec's default */
        const char *s = json_string_value(p);
        for (int k = PKGNOTE_DLOPEN_SUGGESTED; s && k <= PKGNOTE_DLOPEN_REQUIRED; k++)
                if (!strcmp(s, priority_names[k]))
                        return k;
        return -1;
}

PKGNOTE_PUBLIC int pkgnote_dlopen_priority(const pkgnote_dlopen *d, size_t i) {
        int k = priority_of(d, i);
        if (k < 0)
                return pn_error(-EBADMSG, "dlopen entry %zu: priority is not \"required\", \"recommended\" or \"suggested\"", i);
        return k;
}

/* A soname as dlopen() is handed one: a file name (no '/', no blank or
 * control character) with a ".so" that ends it or starts its version:
 * libfoo.so.1, libfoo-2.4.so. */
bool pn_soname_shaped(const char *s) {
        if (!*s || strchr(s, '/'))
                return false;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p <= ' ' || *p == 0x7f)
                        return false;
        for (const char *p = strstr(s, ".so"); p; p = strstr(p + 1, ".so"))
                if (p > s && (p[3] == '\0' || p[3] == '.'))
                        return true;
        return false;
}

static int problem(pkgnote_report_fn report, void *u, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int problem(pkgnote_report_fn report, void *u, const char *fmt, ...) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (report)
                report(u, -EBADMSG, msg);
        return 1;
}

static bool same_string_array(const json_t *a, const json_t *b) {
        if (json_array_size(a) != json_array_size(b))
                return false;
        for (size_t k = 0; k < json_array_size(a); k++)
                if (!json_equal(json_array_get(a, k), json_array_get(b, k)))
                        return false;
        return true;
}

static int string_has_control(const char *s, const char *key, void *u) {
        return pn_has_control(s);
}

PKGNOTE_PUBLIC int pkgnote_dlopen_check(const pkgnote_dlopen *d, pkgnote_report_fn report, void *u) {
        int n = 0;
        size_t count = json_array_size(d->arr);
        if (count == 0)
                n += problem(report, u, "the dlopen note lists no entry");
        for (size_t i = 0; i < count; i++) {
                json_t *o = json_array_get(d->arr, i), *s = json_object_get(o, "soname");
                size_t ns = json_array_size(s);
                if (ns == 0)
                        n += problem(report, u, "dlopen entry %zu: the \"soname\" list is empty", i);
                for (size_t j = 0; j < ns; j++) {
                        const char *name = json_string_value(json_array_get(s, j));
                        if (!pn_soname_shaped(name))
                                n += problem(report, u, "dlopen entry %zu: \"%s\" does not look like a soname (lib*.so.N)", i, name);
                        for (size_t k = 0; k < j; k++)
                                if (!strcmp(name, json_string_value(json_array_get(s, k)))) {
                                        n += problem(report, u, "dlopen entry %zu: soname \"%s\" is listed twice", i, name);
                                        break;
                                }
                }
                static const char *const strings[] = {"feature", "description", "priority"};
                for (size_t k = 0; k < ELEMENTSOF(strings); k++) {
                        json_t *v = json_object_get(o, strings[k]);
                        if (v && !json_is_string(v))
                                n += problem(report, u, "dlopen entry %zu: \"%s\" is not a string", i, strings[k]);
                }
                if (json_is_string(json_object_get(o, "priority")) && priority_of(d, i) < 0)
                        n += problem(report, u, "dlopen entry %zu: priority \"%s\" is not \"required\", \"recommended\" or \"suggested\"",
                                     i, json_string_value(json_object_get(o, "priority")));
                if (pn_json_each_string(o, string_has_control, NULL))
                        n += problem(report, u, "dlopen entry %zu: a key or value contains a control character", i);
                for (size_t k = 0; k < i && ns > 0; k++)
                        if (same_string_array(s, json_object_get(json_array_get(d->arr, k), "soname"))) {
                                n += problem(report, u, "dlopen entry %zu repeats the sonames of entry %zu", i, k);
                                break;
                        }
        }
        return n;
}
