/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the rpm NEVRA splitter and the metadata --rpm makes from it: a
 * split must give non-empty parts that, put back together, are the input
 * (NAME-[EPOCH:]VERSION-RELEASE.ARCH, or yum's EPOCH:NAME-...), and the
 * composed metadata must be valid JSON naming the same name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-input.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 4096u

static void check_split(const char *s, const pkgnote_nevra *n) {
        if (!n->name || !*n->name || !n->version || !*n->version || !n->release || !*n->release || !n->arch ||
            !*n->arch || (n->epoch && !*n->epoch))
                abort();
        size_t len = strlen(s) + 8;
        char *a = malloc(len), *b = malloc(len);
        if (!a || !b)
                abort();
        snprintf(a, len, "%s-%s%s%s-%s.%s", n->name, n->epoch ? n->epoch : "", n->epoch ? ":" : "", n->version,
                 n->release, n->arch);
        snprintf(b, len, "%s%s%s-%s-%s.%s", n->epoch ? n->epoch : "", n->epoch ? ":" : "", n->name, n->version,
                 n->release, n->arch);
        if (strcmp(a, s) && strcmp(b, s))
                abort(); /* the parts are not the input */
        free(a);
        free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = size > MAX_INPUT ? NULL : fuzz_string(data, size);
        if (!s)
                return 0;
        pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
        if (pkgnote_nevra_parse(s, &n) == 0) {
                check_split(s, &n);
                pkgnote_compose *c = NULL;
                char *json = NULL;
                if (pkgnote_compose_new(&c) == 0 && pkgnote_compose_rpm(c, s) == 0 &&
                    pkgnote_compose_os_release(c, NULL, 0) == 0 && pkgnote_compose_json(c, &json) == 0) {
                        pkgnote_metadata *m = NULL;
                        if (pkgnote_metadata_parse(json, strlen(json), &m) < 0 ||
                            strcmp(pkgnote_metadata_name(m), n.name) || strcmp(pkgnote_metadata_type(m), "rpm"))
                                abort();
                        pkgnote_metadata_free(m);
                }
                free(json);
                pkgnote_compose_free(c);
                pkgnote_nevra_clear(&n);
        }
        free(s);
        return 0;
}
