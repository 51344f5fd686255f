/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the /proc/PID/maps reader (lib/08-core-process.c): the input is fed
 * whole and again in pieces whose sizes its first byte picks, and both
 * must give the same lines; every mapping it hands out has a path no
 * longer than the input and without a newline escape left in it, and the
 * lines it counts cover those handed out, the malformed and the long.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "fuzz-input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Several lines over PKGNOTE_MAX_MAPS_LINE fit. */
#define MAX_INPUT (4u * PKGNOTE_MAX_MAPS_LINE)

struct seen {
        size_t n, input;
        uint64_t sum; /* of every field, to compare the two feeds */
};

static int each(const struct pn_maps_entry *e, void *u) {
        struct seen *s = u;
        size_t len = strlen(e->path);
        if (len > s->input || len > PKGNOTE_MAX_MAPS_LINE || strstr(e->path, "\\012"))
                abort();
        s->n++;
        s->sum += e->start ^ e->end ^ e->offset ^ e->inode ^ e->major ^ e->minor ^ len;
        return 0;
}

static struct pn_maps_stats feed(const char *text, size_t size, size_t step, struct seen *s) {
        struct pn_maps_reader r;
        *s = (struct seen){.input = size};
        if (pn_maps_reader_init(&r, each, s) < 0)
                abort();
        int x = 0;
        for (size_t off = 0; off < size && x == 0;) {
                size_t n = step && size - off > step ? step : size - off;
                x = pn_maps_feed(&r, text + off, n);
                off += n;
        }
        if (x == 0)
                x = pn_maps_finish(&r);
        if (x != 0)
                abort(); /* FN never stops it, and no input here reaches PKGNOTE_MAX_MAPPINGS lines */
        struct pn_maps_stats st = r.stats;
        pn_maps_reader_free(&r);
        if (st.lines != s->n + st.malformed + st.long_lines)
                abort();
        return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = size ? fuzz_copy(data, size, MAX_INPUT) : NULL;
        if (!text)
                return 0; /* the empty input is test-core's first prefix */
        struct seen a, b;
        struct pn_maps_stats sa = feed(text, size, 0, &a);
        struct pn_maps_stats sb = feed(text, size, (size_t)data[0] % 97 + 1, &b);
        if (a.n != b.n || a.sum != b.sum || sa.lines != sb.lines || sa.malformed != sb.malformed ||
            sa.long_lines != sb.long_lines || sa.unterminated != sb.unterminated)
                abort();
        free(text);
        return 0;
}
