/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The package metadata object (UAPI.8): one JSON object, names unique,
 * UTF-8, strings without control characters and written without \u
 * escapes.  All JSON is parsed and written by jansson; this file adds the
 * note's rules on top.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "03-model-json.h"

struct pkgnote_metadata {
        json_t *obj;
        const char **keys; /* stored order, rebuilt after changes */
        size_t n_keys;
        bool keys_valid;
};

static const char *const known_keys[] = {
        PKGNOTE_KEY_TYPE,    PKGNOTE_KEY_OS,           PKGNOTE_KEY_OS_VERSION,
        PKGNOTE_KEY_NAME,    PKGNOTE_KEY_VERSION,      PKGNOTE_KEY_ARCHITECTURE,
        PKGNOTE_KEY_OS_CPE,  PKGNOTE_KEY_APP_CPE,      PKGNOTE_KEY_DEBUG_INFO_URL,
        NULL,
};

PKGNOTE_PUBLIC const char *const *pkgnote_metadata_known_keys(void) {
        return known_keys;
}

/* 03-model-json.h */
json_t *pn_json_bytes(const char *s) {
        size_t len;
        char *t = pn_utf8_or_hex(s, strlen(s), &len);
        json_t *v = t ? json_stringn(t, len) : NULL;
        free(t);
        return v;
}

unsigned pn_json_depth(const char *s, size_t len) {
        unsigned depth = 0, max = 0;
        bool in_string = false;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (in_string) {
                        if (c == '\\')
                                i++;
                        else if (c == '"')
                                in_string = false;
                } else if (c == '"')
                        in_string = true;
                else if (c == '[' || c == '{') {
                        if (++depth > max)
                                max = depth;
                } else if ((c == ']' || c == '}') && depth > 0)
                        depth--;
        }
        return max;
}

int pn_json_load(const char *text, size_t len, json_t **ret) {
        if (len > PKGNOTE_MAX_JSON)
                return pn_error(-E2BIG, "JSON of %zu bytes, more than the limit of %u", len, PKGNOTE_MAX_JSON);
        if (memchr(text, 0, len))
                return pn_error(-EBADMSG, "JSON contains a NUL byte");
        size_t bad = pn_utf8_invalid_at(text, len);
        if (bad < len)
                return pn_error(-EBADMSG, "JSON is not valid UTF-8 at byte %zu", bad);
        unsigned depth = pn_json_depth(text, len);
        if (depth > PKGNOTE_MAX_JSON_DEPTH)
                return pn_error(-E2BIG, "JSON nested %u levels deep, more than the limit of %u", depth,
                                PKGNOTE_MAX_JSON_DEPTH);
        json_error_t jerr;
        json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!v)
                return pn_json_oom(&jerr) ? pn_oom() : pn_error(-EBADMSG, "invalid JSON at byte %d: %s", jerr.position, jerr.text);
        *ret = v;
        return 0;
}

/* C0, DEL, and C1 (U+0080..U+009F, encoded C2 80..C2 9F). */
static bool is_control(const unsigned char *s, size_t *skip) {
        *skip = 1;
        if (s[0] < 0x20 || s[0] == 0x7f)
                return true;
        if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
                *skip = 2;
                return true;
        }
        return false;
}

bool pn_has_control(const char *s) {
        for (const unsigned char *p = (const unsigned char *)s; *p;) {
                size_t skip;
                if (is_control(p, &skip))
                        return true;
                p += skip;
        }
        return false;
}

static bool valid_utf8(const char *s) {
        size_t len = strlen(s);
        return pn_utf8_invalid_at(s, len) == len;
}

int pn_check_string(const char *s, const char *what) {
        if (!valid_utf8(s))
                return pn_error(-EINVAL, "%s is not valid UTF-8", what);
        if (pn_has_control(s))
                return pn_error(-EINVAL, "%s contains a control character, which the package note format forbids", what);
        return 0;
}

int pn_json_each_string(const json_t *v, int (*fn)(const char *s, const char *key, void *u), void *u) {
        int r;
        if (json_is_string(v))
                return fn(json_string_value(v), NULL, u);
        if (json_is_array(v)) {
                for (size_t i = 0; i < json_array_size(v); i++)
                        if ((r = pn_json_each_string(json_array_get(v, i), fn, u)))
                                return r;
        } else if (json_is_object(v)) {
                const char *k;
                json_t *x;
                json_object_foreach((json_t *)v, k, x) {
                        if ((r = fn(k, k, u)) || (r = pn_json_each_string(x, fn, u)))
                                return r;
                }
        }
        return 0;
}

static int refuse_control(const char *s, const char *key, void *u) {
        (void)key, (void)u;
        return pn_has_control(s) ? pn_error(-EINVAL, "string \"%.40s\" contains a control character, which the package note format forbids", s) : 0;
}

/* The fewest significant digits, 1 to 17, with which every real number in
 * V prints as text that reads back as the same double.  jansson prints
 * every real of a dump with one precision, and 17 turns a document's 0.1
 * into 0.10000000000000001: the same value, but not what was written.
 * So 0.1 stays 0.1, 2.50 becomes 2.5 and 1e5 100000.0; one real that
 * needs all 17 digits gives them to every real of V.  The depth was
 * bounded when V was parsed. */
static int real_digits(const json_t *v) {
        int digits = 1;
        if (json_is_real(v)) {
                double d = json_real_value(v);
                char buf[64];
                /* At least the digits before the point below 1e15, so that
                 * 100000.0 stays that rather than becoming 1e5. */
                double a = d < 0 ? -d : d;
                for (; a >= 10 && a < 1e15; a /= 10)
                        digits++;
                /* The locale's decimal point is used both ways. */
                for (; digits < 17; digits++) {
                        snprintf(buf, sizeof buf, "%.*g", digits, d);
                        if (strtod(buf, NULL) == d)
                                break;
                }
        } else if (json_is_array(v)) {
                for (size_t i = 0; i < json_array_size(v); i++) {
                        int n = real_digits(json_array_get(v, i));
                        digits = n > digits ? n : digits;
                }
        } else if (json_is_object(v)) {
                const char *k;
                json_t *x;
                json_object_foreach((json_t *)v, k, x) {
                        int n = real_digits(x);
                        digits = n > digits ? n : digits;
                }
        }
        return digits;
}

struct dump_buf {
        char *p;
        size_t n, cap;
        bool failed;
};

static int dump_part(const char *buf, size_t size, void *u) {
        struct dump_buf *b = u;
        if (b->failed)
                return -1;
        if (size >= b->cap - b->n) {
                size_t cap = b->cap ? b->cap : 256;
                while (size >= cap - b->n) {
                        if (cap > SIZE_MAX / 2) {
                                b->failed = true;
                                return -1;
                        }
                        cap *= 2;
                }
                char *p = realloc(b->p, cap);
                if (!p) {
                        b->failed = true;
                        return -1;
                }
                b->p = p;
                b->cap = cap;
        }
        memcpy(b->p + b->n, buf, size);
        b->n += size;
        b->p[b->n] = 0;
        return 0;
}

char *pn_json_dumps(const json_t *v, size_t flags) {
        struct dump_buf b = {0};
        if (json_dump_callback(v, dump_part, &b, flags) < 0 || b.failed || (!b.p && !(b.p = calloc(1, 1)))) {
                free(b.p);
                return NULL;
        }
        return b.p;
}

int pn_json_dump(const json_t *v, char **ret) {
        int r = pn_json_each_string(v, refuse_control, NULL);
        if (r < 0)
                return r;
        char *s = pn_json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(real_digits(v)));
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_metadata_new(pkgnote_metadata **ret) {
        pkgnote_metadata *m = calloc(1, sizeof *m);
        if (!m || !(m->obj = json_object())) {
                free(m);
                return pn_oom();
        }
        *ret = m;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_metadata_parse(const char *json, size_t len, pkgnote_metadata **ret) {
        json_t *v;
        int r = pn_json_load(json, len, &v);
        if (r < 0)
                return r;
        if (!json_is_object(v)) {
                json_decref(v);
                return pn_error(-EBADMSG, "package metadata is a JSON array, not an object");
        }
        pkgnote_metadata *m = calloc(1, sizeof *m);
        if (!m) {
                json_decref(v);
                return pn_oom();
        }
        m->obj = v;
        *ret = m;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_metadata_free(pkgnote_metadata *m) {
        if (!m)
                return;
        json_decref(m->obj);
        free(m->keys);
        free(m);
}

PKGNOTE_PUBLIC const char *pkgnote_metadata_get(const pkgnote_metadata *m, const char *key) {
        return json_string_value(json_object_get(m->obj, key));
}

#define ACCESSOR(fn, key)                                                             \
        PKGNOTE_PUBLIC const char *pkgnote_metadata_##fn(const pkgnote_metadata *m) { \
                return pkgnote_metadata_get(m, key);                                  \
        }
ACCESSOR(type, PKGNOTE_KEY_TYPE)
ACCESSOR(os, PKGNOTE_KEY_OS)
ACCESSOR(os_version, PKGNOTE_KEY_OS_VERSION)
ACCESSOR(name, PKGNOTE_KEY_NAME)
ACCESSOR(version, PKGNOTE_KEY_VERSION)
ACCESSOR(architecture, PKGNOTE_KEY_ARCHITECTURE)
ACCESSOR(os_cpe, PKGNOTE_KEY_OS_CPE)
ACCESSOR(app_cpe, PKGNOTE_KEY_APP_CPE)
ACCESSOR(debug_info_url, PKGNOTE_KEY_DEBUG_INFO_URL)

static int build_keys(pkgnote_metadata *m) {
        if (m->keys_valid)
                return 0;
        size_t n = json_object_size(m->obj);
        const char **k = calloc(n ? n : 1, sizeof *k);
        if (!k)
                return -ENOMEM;
        size_t i = 0;
        const char *key;
        json_t *v;
        json_object_foreach(m->obj, key, v) k[i++] = key;
        free(m->keys);
        m->keys = k;
        m->n_keys = i;
        m->keys_valid = true;
        return 0;
}

PKGNOTE_PUBLIC size_t pkgnote_metadata_count(const pkgnote_metadata *m) {
        return json_object_size(m->obj);
}

PKGNOTE_PUBLIC const char *pkgnote_metadata_key(const pkgnote_metadata *m, size_t i) {
        /* The key cache is logically const: it only mirrors the object. */
        pkgnote_metadata *mm = (pkgnote_metadata *)m;
        if (build_keys(mm) < 0 || i >= mm->n_keys)
                return NULL;
        return mm->keys[i];
}

PKGNOTE_PUBLIC int pkgnote_metadata_value_json(const pkgnote_metadata *m, size_t i, char **ret) {
        const char *k = pkgnote_metadata_key(m, i);
        if (!k && i < pkgnote_metadata_count(m))
                return pn_oom(); /* the key cache could not be made */
        if (!k)
                return pn_error(-EINVAL, "no key %zu", i);
        char *s = pn_json_dumps(json_object_get(m->obj, k),
                             JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

static int set_value(pkgnote_metadata *m, const char *key, json_t *v) {
        int r = pn_check_string(key, "key");
        if (r < 0) {
                json_decref(v);
                return r;
        }
        if (!*key) {
                json_decref(v);
                return pn_error(-EINVAL, "empty key");
        }
        if (json_object_set_new(m->obj, key, v) < 0)
                return pn_oom();
        m->keys_valid = false;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_metadata_set(pkgnote_metadata *m, const char *key, const char *value) {
        int r = pn_check_string(value, key);
        if (r < 0)
                return r;
        json_t *v = json_string(value);
        if (!v)
                return pn_oom();
        return set_value(m, key, v);
}

PKGNOTE_PUBLIC int pkgnote_metadata_set_json(pkgnote_metadata *m, const char *key,
                                             const char *value_json) {
        size_t len = strlen(value_json);
        if (len > PKGNOTE_MAX_JSON)
                return pn_error(-E2BIG, "value of %zu bytes, more than the limit of %u", len, PKGNOTE_MAX_JSON);
        /* The value sits one level below the top object. */
        if (pn_json_depth(value_json, len) > PKGNOTE_MAX_JSON_DEPTH - 1)
                return pn_error(-E2BIG, "value nested deeper than %u levels", PKGNOTE_MAX_JSON_DEPTH - 1);
        json_error_t jerr;
        json_t *v = json_loadb(value_json, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (!v)
                return pn_error(-EINVAL, "value of \"%s\" is not valid JSON: %s", key, jerr.text);
        int r = pn_json_each_string(v, refuse_control, NULL);
        if (r < 0) {
                json_decref(v);
                return r;
        }
        return set_value(m, key, v);
}

PKGNOTE_PUBLIC int pkgnote_metadata_remove(pkgnote_metadata *m, const char *key) {
        if (json_object_del(m->obj, key) < 0)
                return 0;
        m->keys_valid = false;
        return 1;
}

PKGNOTE_PUBLIC int pkgnote_metadata_to_json(const pkgnote_metadata *m, char **ret) {
        char *s = NULL;
        int r = pn_json_dump(m->obj, &s);
        if (r < 0)
                return r;
        /* Never write what a reader would refuse. */
        size_t len = strlen(s);
        if (len > PKGNOTE_MAX_JSON) {
                free(s);
                return pn_error(-E2BIG, "JSON of %zu bytes, more than the limit of %u", len, PKGNOTE_MAX_JSON);
        }
        *ret = s;
        return 0;
}

struct check_ctx {
        pkgnote_report_fn report;
        void *userdata;
        int count;
};

static void report(struct check_ctx *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(struct check_ctx *c, int err, const char *fmt, ...) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        c->count++;
        if (c->report)
                c->report(c->userdata, err, buf);
}

static int check_control(const char *s, const char *key, void *u) {
        if (pn_has_control(s))
                report(u, -EBADMSG, key ? "key contains a control character" : "a string value contains a control character");
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_metadata_check(const pkgnote_metadata *m, const char *source,
                                          size_t source_len, pkgnote_report_fn fn, void *userdata) {
        struct check_ctx c = {fn, userdata, 0};
        for (const char *const *k = known_keys; *k; k++) {
                json_t *v = json_object_get(m->obj, *k);
                if (v && !json_is_string(v))
                        report(&c, -EBADMSG, "well-known key \"%s\" is not a string", *k);
                else if (v && !*json_string_value(v))
                        report(&c, -EBADMSG, "well-known key \"%s\" is empty", *k);
        }
        pn_json_each_string(m->obj, check_control, &c);
        for (size_t i = 0; source && i + 1 < source_len; i++)
                if (source[i] == '\\') {
                        if (source[i + 1] == 'u') {
                                report(&c, -EBADMSG, "uses a \\u escape at byte %zu; the format requires raw UTF-8", i);
                                break;
                        }
                        i++;
                }
        return c.count;
}
