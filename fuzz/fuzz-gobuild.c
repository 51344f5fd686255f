/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the reader of Go build information (lib/02-elf-gobuild.c): the
 * bytes as an ELF object whose ".go.buildinfo" section or writable
 * segment holds the blob (either layout, pointers followed through the
 * segments), and the same bytes as module text; what is read is
 * formatted back and parsed again, which must give the same text; and
 * turned into the public component list (lib/03-model-embedded.c), whose
 * JSON a copy must give again and whose purls must be golang's.  The
 * object's summary (pkgnote_info_read(), which reads the list when a Go
 * build-id note is there) is read too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-gobuild.h"
#include "03-model-embedded.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

/* B as components: every purl there is golang's (a name no purl can
 * carry, such as "", "./local" or "a//b", has none, by design), a copy's
 * JSON the same. */
static void components(const struct pn_go_build *b) {
        pkgnote_embedded *m = NULL;
        if (pn_embedded_from_go(b, &m) < 0)
                return;
        for (size_t i = 0; i < pkgnote_embedded_component_count(m); i++) {
                pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                if (pkgnote_embedded_component(m, i, &c) != 1 || (c.purl && strncmp(c.purl, "pkg:golang/", 11) != 0))
                        abort();
                if (!c.purl && pn_embedded_purl_name_ok("golang", c.replacement_name ? c.replacement_name : c.name) &&
                    !c.replacement_name)
                        abort(); /* a name a purl can carry, left without one */
        }
        char *j = NULL, *k = NULL;
        pkgnote_embedded *d = pn_embedded_dup(m);
        if (d && pkgnote_embedded_to_json(m, &j) == 0 && pkgnote_embedded_to_json(d, &k) == 0 && strcmp(j, k) != 0)
                abort();
        free(j);
        free(k);
        pkgnote_embedded_free(d);
        pkgnote_embedded_free(m);
}

/* Formats B, parses the text again and checks that it gives the same text. */
static void round_trip(const struct pn_go_build *b) {
        components(b);
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
                pkgnote_info *info;
                if (pkgnote_info_read(e, &info) == 0) {
                        char *j = NULL;
                        if (pkgnote_info_to_json(info, e, "x", &j) == 0)
                                free(j);
                        pkgnote_info_free(info);
                }
                pkgnote_object_free(e);
        }
        struct pn_go_build m = {0};
        if (pn_go_modinfo_parse((const char *)data, size, &m) == 0)
                round_trip(&m);
        pn_go_build_done(&m);
        return 0;
}
