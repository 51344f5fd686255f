/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of Go build information (lib/02-elf-gobuild.c): the
 * bytes as an ELF object whose ".go.buildinfo" section or writable
 * segment holds the blob (either layout, pointers followed through the
 * segments), and the same bytes as module text; what is read is
 * formatted back and parsed again, which must give the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-gobuild.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

/* Formats B, parses the text again and checks that it gives the same text. */
static void round_trip(const struct pn_go_build *b) {
        char *t = pn_go_build_format(b);
        if (!t)
                return;
        struct pn_go_build again = {0};
        if (pn_go_modinfo_parse(t, strlen(t), &again) == 0) {
                char *u = pn_go_build_format(&again);
                if (u && strcmp(t, u) != 0)
                        abort();
                free(u);
        }
        pn_go_build_done(&again);
        free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        pkgnote_object *e;
        if (pkgnote_object_from_memory(data, size, &e) == 0) {
                struct pn_go_build b;
                if (pn_go_build_read(e, &b) > 0) {
                        if (!b.go_version || !*b.go_version)
                                abort();
                        round_trip(&b);
                }
                pn_go_build_done(&b);
                pkgnote_object_free(e);
        }
        struct pn_go_build m = {0};
        if (pn_go_modinfo_parse((const char *)data, size, &m) == 0)
                round_trip(&m);
        pn_go_build_done(&m);
        return 0;
}
