/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of cargo-auditable's crate lists
 * (lib/03-model-crates.c): the bytes as an ELF object whose ".dep-v0"
 * section is read, as the section's zlib stream, and as its JSON.  What
 * is read must hold what the reader promises: indices in range, no
 * package depending on itself, at most one root, and the root where the
 * list says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "03-model-crates.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

static void check(const struct pn_crates *c) {
        size_t roots = 0;
        for (size_t i = 0; i < c->n_crates; i++) {
                const struct pn_crate *cr = &c->crates[i];
                if (!cr->name || !*cr->name || !cr->version || !cr->source)
                        abort();
                if (cr->root && (roots++ || c->root != i))
                        abort();
                for (size_t k = 0; k < cr->n_deps; k++)
                        if (cr->deps[k] >= c->n_crates || cr->deps[k] == i)
                                abort();
        }
        if (!roots && c->root != SIZE_MAX)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        struct pn_crates c;
        pkgnote_object *e;
        if (pkgnote_object_from_memory(data, size, &e) == 0) {
                if (pn_crates_read(e, &c) > 0)
                        check(&c);
                pn_crates_done(&c);
                pkgnote_object_free(e);
        }
        if (pn_crates_decode(data, size, &c) == 0)
                check(&c);
        pn_crates_done(&c);
        if (pn_crates_parse(data, size, &c) == 0)
                check(&c);
        pn_crates_done(&c);
        return 0;
}
