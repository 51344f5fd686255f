/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the JSON layer: the same bytes go to the package metadata parser
 * and to the dlopen parser; whatever parses must serialize, and the
 * serialization must parse back and serialize to the very same text.  The
 * bytes are also used as a value for pkgnote_metadata_set_json() and
 * pkgnote_metadata_set(), whose results must round-trip as well.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "pkgnote.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Twice the library's JSON limit, so the limit itself is exercised. */
#define MAX_INPUT (128u << 10)

/* TEXT came out of pkgnote_metadata_to_json(): it must parse again, unless
 * it outgrew the size limit, and serialize to itself. */
static void metadata_round_trip(const char *text) {
        size_t len = strlen(text);
        pkgnote_metadata *m = NULL;
        int r = pkgnote_metadata_parse(text, len, &m);
        if (r == -E2BIG && len > PKGNOTE_MAX_JSON)
                return;
        if (r < 0)
                abort();
        char *again = NULL;
        if (pkgnote_metadata_to_json(m, &again) < 0 || strcmp(again, text) != 0)
                abort();
        free(again);
        pkgnote_metadata_free(m);
}

static void dlopen_round_trip(const char *text) {
        size_t len = strlen(text);
        pkgnote_dlopen *d = NULL;
        int r = pkgnote_dlopen_parse(text, len, &d);
        if (r == -E2BIG && len > PKGNOTE_MAX_JSON)
                return;
        if (r < 0)
                abort();
        char *again = NULL;
        if (pkgnote_dlopen_to_json(d, &again) < 0 || strcmp(again, text) != 0)
                abort();
        free(again);
        pkgnote_dlopen_free(d);
}

static void fuzz_metadata(const char *text, size_t len) {
        pkgnote_metadata *m = NULL;
        if (pkgnote_metadata_parse(text, len, &m) < 0) {
                touch_str(pkgnote_last_error());
                return;
        }
        touch_metadata(m, text, len);
        size_t n = pkgnote_metadata_count(m);

        char *out = NULL;
        if (pkgnote_metadata_to_json(m, &out) >= 0) {
                metadata_round_trip(out);
                free(out);
        }

        /* Editing keeps the key cache and the serialization consistent. */
        if (n > 0) {
                char *first = strdup(pkgnote_metadata_key(m, 0));
                if (!first || pkgnote_metadata_remove(m, first) != 1 ||
                    pkgnote_metadata_count(m) != n - 1 || pkgnote_metadata_get(m, first))
                        abort();
                free(first);
                if (pkgnote_metadata_to_json(m, &out) >= 0) {
                        metadata_round_trip(out);
                        free(out);
                }
        }
        pkgnote_metadata_free(m);
}

static void fuzz_dlopen(const char *text, size_t len) {
        pkgnote_dlopen *d = NULL;
        if (pkgnote_dlopen_parse(text, len, &d) < 0) {
                touch_str(pkgnote_last_error());
                return;
        }
        touch_dlopen(d);
        size_t problems = 0;
        if ((size_t)pkgnote_dlopen_check(d, count_report, &problems) != problems)
                abort();
        for (size_t i = 0; i < pkgnote_dlopen_count(d); i++)
                touch_str(pkgnote_dlopen_priority_name(pkgnote_dlopen_priority(d, i)));
        /* Dependencies from the note in every format; what is added
         * must come out in each. */
        pkgnote_deps *deps = NULL;
        if (pkgnote_deps_new(&deps) == 0 && pkgnote_deps_add(deps, "f", len & 1 ? 64 : 32, 62, 0, d) == 0) {
                for (size_t i = 0; i < pkgnote_deps_count(deps); i++)
                        touch_str(pkgnote_deps_sonames(deps, i));
                for (int f = PKGNOTE_DEPS_RPM; f <= PKGNOTE_DEPS_JSON; f += 2) {
                        char *formatted = NULL;
                        if (pkgnote_deps_format(deps, f, &formatted) < 0)
                                abort();
                        touch_str(formatted);
                        free(formatted);
                }
        }
        pkgnote_deps_free(deps);
        char *out = NULL;
        if (pkgnote_dlopen_to_json(d, &out) < 0)
                abort();
        dlopen_round_trip(out);
        free(out);
        pkgnote_dlopen_free(d);
}

/* The input as a value set on a fresh object, both as JSON and as a
 * plain string. */
static void fuzz_set(const char *cstr) {
        pkgnote_metadata *m = NULL;
        if (pkgnote_metadata_new(&m) < 0)
                return;
        if (pkgnote_metadata_set_json(m, "value", cstr) >= 0) {
                char *v = NULL;
                if (pkgnote_metadata_count(m) != 1 || pkgnote_metadata_value_json(m, 0, &v) < 0)
                        abort();
                free(v);
        }
        if (pkgnote_metadata_set(m, "name", cstr) >= 0 &&
            strcmp(pkgnote_metadata_name(m), cstr) != 0)
                abort();
        char *out = NULL;
        if (pkgnote_metadata_to_json(m, &out) >= 0) {
                metadata_round_trip(out);
                free(out);
        }
        pkgnote_metadata_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_copy(data, size, MAX_INPUT);
        if (!text)
                return 0;
        fuzz_metadata(text, size);
        fuzz_dlopen(text, size);
        free(text);

        char *cstr = fuzz_string(data, size);
        if (cstr) {
                fuzz_set(cstr);
                free(cstr);
        }
        return 0;
}
