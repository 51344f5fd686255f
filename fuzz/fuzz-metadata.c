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

static uint32_t le32(const uint8_t *p) {
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* TEXT parsed as dlopen metadata with PROBLEMS complaints and renders as
 * RENDERED: a note is made exactly when there are none, and its
 * descriptor (the JSON without whitespace outside strings, then NUL,
 * then padding) means the same. */
static void dlopen_note(const char *text, size_t problems, const char *rendered) {
        uint8_t *note = NULL;
        size_t len = 0;
        int r = pkgnote_dlopen_note_encode(text, 0, &note, &len);
        if (r == -E2BIG)
                return;
        if ((r == 0) != (problems == 0))
                abort();
        if (r < 0) {
                touch_str(pkgnote_last_error());
                return;
        }
        uint32_t descsz = le32(note + 4);
        const char *desc = (const char *)note + 16;
        if (le32(note) != 4 || le32(note + 8) != PKGNOTE_NT_FDO_DLOPEN_METADATA || memcmp(note + 12, "FDO", 4) ||
            descsz == 0 || len != 16 + ((descsz + 3) & ~3u) || strnlen(desc, descsz) != descsz - 1 ||
            descsz - 1 > strlen(text))
                abort();
        for (size_t i = 16 + descsz; i < len; i++)
                if (note[i])
                        abort();
        pkgnote_dlopen *again = NULL;
        char *out = NULL;
        if (pkgnote_dlopen_parse(desc, descsz - 1, &again) < 0 || pkgnote_dlopen_to_json(again, &out) < 0 ||
            strcmp(out, rendered) != 0)
                abort();
        free(out);
        pkgnote_dlopen_free(again);
        free(note);
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
        /* TEXT is not NUL-terminated: a C string of it, when it has no NUL. */
        char *cstr = memchr(text, 0, len) ? NULL : strndup(text, len);
        if (cstr)
                dlopen_note(cstr, problems, out);
        free(cstr);
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
