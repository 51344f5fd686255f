/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A running process's reader (lib/08-core-process.c): /proc/PID/maps read
 * line by line, fed whole and in pieces, every truncated prefix, lines
 * over the limit, malformed ones, the cut at PKGNOTE_MAX_MAPPINGS; and the
 * restart rule, pkgnote_module_needs_restart(), over its cases.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "pkgnote.h"
#include "testlib.h"

#define MAPS_TEXT                                                                                            \
        "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1234                       /usr/bin/prog\n"           \
        "55d0c0a02000-55d0c0a08000 r-xp 00002000 08:01 1234                       /usr/bin/prog\n"           \
        "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"                                                 \
        "7f1000000000-7f1000028000 r--p 00000000 fd:02 99                         /lib/a\\012b.so (deleted)\n" \
        "7fff00000000-7fff00002000 r-xp 00000000 00:00 0                          [vdso]\n"

struct maps_seen {
        size_t n, stop_at;
        char paths[8][64];
        uint64_t start[8], offset[8], inode[8];
        unsigned major[8], minor[8];
};

static int maps_collect(const struct pn_maps_entry *e, void *u) {
        struct maps_seen *s = u;
        if (s->n < 8) {
                snprintf(s->paths[s->n], sizeof s->paths[0], "%s", e->path);
                s->start[s->n] = e->start, s->offset[s->n] = e->offset, s->inode[s->n] = e->inode;
                s->major[s->n] = e->major, s->minor[s->n] = e->minor;
        }
        s->n++;
        return s->stop_at && s->n == s->stop_at ? 1 : 0;
}

/* TEXT fed in pieces of STEP bytes (0: whole), then finished. */
static int maps_run(const char *text, size_t len, size_t step, struct maps_seen *s, struct pn_maps_stats *st) {
        struct pn_maps_reader r;
        memset(s, 0, sizeof *s);
        if (pn_maps_reader_init(&r, maps_collect, s) < 0)
                return -ENOMEM;
        int x = 0;
        for (size_t off = 0; off < len && x == 0;) {
                size_t n = step && len - off > step ? step : len - off;
                x = pn_maps_feed(&r, text + off, n);
                off += n;
        }
        if (x == 0)
                x = pn_maps_finish(&r);
        *st = r.stats;
        pn_maps_reader_free(&r);
        return x;
}

static void test_maps_lines(void) {
        static const char text[] = MAPS_TEXT;
        static const size_t steps[] = {0, 1, 2, 3, 7, 64, 4096};
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                struct maps_seen s;
                struct pn_maps_stats st;
                CHECK_INT(maps_run(text, sizeof text - 1, steps[k], &s, &st), 0);
                CHECK_INT(s.n, 5);
                CHECK_INT(st.lines, 5);
                CHECK_INT(st.malformed + st.long_lines + st.cut + st.unterminated, 0);
                CHECK_STR(s.paths[0], "/usr/bin/prog");
                CHECK_INT(s.start[0], 0x55d0c0a00000);
                CHECK_INT(s.offset[1], 0x2000);
                CHECK_INT(s.inode[1], 1234);
                CHECK_INT(s.major[1], 8);
                CHECK_INT(s.minor[1], 1);
                CHECK_STR(s.paths[2], "");
                CHECK_STR(s.paths[3], "/lib/a\nb.so (deleted)");
                CHECK_INT(s.major[3], 0xfd);
                CHECK_STR(s.paths[4], "[vdso]");
        }
}

/* Every truncated prefix: the whole lines before the cut, then the cut
 * line as far as it parses, never a read past the prefix (ASan). */
static void test_maps_truncated_prefixes(void) {
        static const char text[] = MAPS_TEXT;
        size_t len = sizeof text - 1;
        for (size_t n = 0; n <= len; n++) {
                char *copy = malloc(n ? n : 1); /* exact size: ASan sees any overread */
                memcpy(copy, text, n);
                size_t whole = 0;
                for (size_t i = 0; i < n; i++)
                        whole += copy[i] == '\n';
                struct maps_seen s;
                struct pn_maps_stats st;
                CHECK_INT(maps_run(copy, n, n % 5, &s, &st), 0);
                bool partial = n > 0 && copy[n - 1] != '\n';
                CHECK_INT(st.lines, whole + partial);
                CHECK_INT(st.unterminated, partial);
                CHECK_INT(s.n + st.malformed, st.lines);
                CHECK(s.n >= whole);
                free(copy);
        }
}

/* A line over PKGNOTE_MAX_MAPS_LINE is passed over and counted, and the
 * lines after it are read; malformed lines are counted. */
static void test_maps_long_and_malformed_lines(void) {
        size_t big = PKGNOTE_MAX_MAPS_LINE + 100;
        const char *head = "7f0000000000-7f0000001000 r--p 00000000 08:01 7 /";
        const char *tail = "\nnot a mapping\n7f2000000000-7f2000001000 r--p 00000000 08:01 8 /after.so\n";
        size_t hl = strlen(head), tl = strlen(tail);
        char *text = malloc(hl + big + tl);
        memcpy(text, head, hl);
        memset(text + hl, 'x', big);
        memcpy(text + hl + big, tail, tl);
        size_t len = hl + big + tl;
        static const size_t steps[] = {0, 1000, 65536, 65537};
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
                struct maps_seen s;
                struct pn_maps_stats st;
                CHECK_INT(maps_run(text, len, steps[k], &s, &st), 0);
                CHECK_INT(st.lines, 3);
                CHECK_INT(st.long_lines, 1);
                CHECK_INT(st.malformed, 1);
                CHECK_INT(s.n, 1);
                CHECK_STR(s.paths[0], "/after.so");
        }
        /* A line of exactly the limit is read. */
        size_t fit = PKGNOTE_MAX_MAPS_LINE - hl;
        memset(text + hl, 'y', fit);
        text[hl + fit] = '\n';
        struct maps_seen s;
        struct pn_maps_stats st;
        CHECK_INT(maps_run(text, hl + fit + 1, 4096, &s, &st), 0);
        CHECK_INT(st.long_lines, 0);
        CHECK_INT(s.n, 1);
        free(text);
}

/* Past PKGNOTE_MAX_MAPPINGS lines the reader stops and says it cut; a
 * callback's stop is returned as is. */
static void test_maps_limits(void) {
        static const char line[] = "1000-2000 r--p 00000000 00:00 0\n";
        size_t ll = sizeof line - 1, n = (size_t)PKGNOTE_MAX_MAPPINGS + 2;
        char *text = malloc(n * ll);
        for (size_t i = 0; i < n; i++)
                memcpy(text + i * ll, line, ll);
        struct maps_seen s;
        struct pn_maps_stats st;
        CHECK_INT(maps_run(text, n * ll, 1u << 16, &s, &st), 1);
        CHECK(st.cut);
        CHECK_INT(st.lines, PKGNOTE_MAX_MAPPINGS);
        CHECK_INT(s.n, PKGNOTE_MAX_MAPPINGS);
        /* Exactly the limit, no more: nothing cut. */
        CHECK_INT(maps_run(text, (n - 2) * ll, 1u << 16, &s, &st), 0);
        CHECK(!st.cut);
        free(text);
        struct pn_maps_reader r;
        memset(&s, 0, sizeof s);
        s.stop_at = 2;
        CHECK_INT(pn_maps_reader_init(&r, maps_collect, &s), 0);
        CHECK_INT(pn_maps_feed(&r, MAPS_TEXT, sizeof MAPS_TEXT - 1), 1);
        CHECK_INT(pn_maps_feed(&r, MAPS_TEXT, sizeof MAPS_TEXT - 1), 1);
        CHECK_INT(pn_maps_finish(&r), 1);
        CHECK_INT(s.n, 2);
        pn_maps_reader_free(&r);
}

/* The restart rule, pkgnote_module_needs_restart(), over its cases. */
static void test_module_needs_restart(void) {
        static const struct {
                const char *path;
                bool replaced, deleted;
                int want;
        } cases[] = {
                {"/usr/lib/x86_64-linux-gnu/libc.so.6", false, false, 0},
                {"/usr/lib/x86_64-linux-gnu/libc.so.6", true, false, 1},
                {"/usr/lib/x86_64-linux-gnu/libc.so.6", false, true, 1},
                {"/usr/lib/x86_64-linux-gnu/libc.so.6", true, true, 1},
                {"/memfd:wayland-shm", false, true, 0},
                {"/memfd:x", true, false, 0},
                {"/dev/shm/pulse-shm-1", false, true, 0},
                {"/dev/zero", false, true, 0},
                {"/SYSV00000000", false, true, 0},
                {"/anon_hugepage", false, true, 0},
                {"/[aio]", false, true, 0},
                {"/drm mm object", false, true, 0},
                {"/drm", false, true, 0},
                {"/drmlib/libdrm_helper.so", false, true, 1}, /* only the whole name /drm */
                {"/devel/lib.so", false, true, 1},           /* /dev/ with its slash */
                {"/opt/memfd:x.so", false, true, 1},          /* a prefix, not anywhere */
                {"/usr/lib/libssl.so.3", false, false, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                pkgnote_module m = {.path = (char *)cases[i].path, .replaced = cases[i].replaced,
                                    .deleted = cases[i].deleted};
                int got = pkgnote_module_needs_restart(&m);
                if (got != cases[i].want)
                        fprintf(stderr, "case %zu: %s\n", i, cases[i].path);
                CHECK_INT(got, cases[i].want);
        }
        CHECK_INT(pkgnote_module_needs_restart(NULL), 0);
}

int main(void) {
        RUN(test_maps_lines);
        RUN(test_maps_truncated_prefixes);
        RUN(test_maps_long_and_malformed_lines);
        RUN(test_maps_limits);
        RUN(test_module_needs_restart);
        return test_summary();
}
