/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostile-core: writes a core that is legal by every limit of the reader
 * and costs it the most: LOADS PT_LOAD headers of one page each, none
 * dumped, and an NT_FILE note of MAPS mappings of one file, each at file
 * offset 0 over one of those pages.  No first page is dumped, so the
 * reader looks for the file's header page in every later mapping of the
 * same file (the data segment of a -z noseparate-code layout may hold it),
 * each time among all the PT_LOADs.
 *
 *   hostile-core OUT [LOADS [MAPS]]
 *
 * The defaults are the largest the reader accepts: PKGNOTE_MAX_PHDRS
 * program headers (the PT_NOTE and LOADS = PKGNOTE_MAX_PHDRS - 1 loads,
 * beyond 65535 counted in section header 0 as gABI's extended numbering
 * says) and PKGNOTE_MAX_MAPPINGS mappings.  ELF64, little endian, x86-64.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"

#define PAGE 4096u
#define BASE 0x10000000000ull
#define PATH "/x.so" /* one file, named by every mapping (short: the core stays small) */
#define PN_XNUM 0xffffu

static void put(uint8_t *p, uint64_t v, unsigned width) {
        for (unsigned i = 0; i < width; i++)
                p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv) {
        if (argc < 2 || argc > 4) {
                fprintf(stderr, "usage: hostile-core OUT [LOADS [MAPS]]\n");
                return 2;
        }
        uint64_t loads = argc > 2 ? strtoull(argv[2], NULL, 0) : PKGNOTE_MAX_PHDRS - 1;
        uint64_t maps = argc > 3 ? strtoull(argv[3], NULL, 0) : PKGNOTE_MAX_MAPPINGS;
        if (loads + 1 > PKGNOTE_MAX_PHDRS || maps > PKGNOTE_MAX_MAPPINGS || maps == 0) {
                fprintf(stderr, "hostile-core: at most %u program headers and %u mappings\n", PKGNOTE_MAX_PHDRS,
                        PKGNOTE_MAX_MAPPINGS);
                return 2;
        }
        uint64_t phnum = loads + 1;
        uint64_t desc = 16 + maps * 24 + maps * sizeof PATH;
        uint64_t note = 12 + 8 + ((desc + 3) & ~3ull);
        uint64_t phoff = 64, noteoff = phoff + phnum * 56, shoff = noteoff + note, size = shoff + 64;
        uint8_t *d = calloc(1, size);
        if (!d) {
                perror("hostile-core");
                return 1;
        }
        /* ELF header: ET_CORE, EM_X86_64. */
        memcpy(d, "\177ELF\2\1\1", 7);
        put(d + 16, 4, 2);
        put(d + 18, 62, 2);
        put(d + 20, 1, 4);
        put(d + 32, phoff, 8);
        put(d + 40, phnum < PN_XNUM ? 0 : shoff, 8);
        put(d + 52, 64, 2);
        put(d + 54, 56, 2);
        put(d + 56, phnum < PN_XNUM ? phnum : PN_XNUM, 2);
        put(d + 58, 64, 2);
        put(d + 60, phnum < PN_XNUM ? 0 : 1, 2);
        /* Section header 0 holds the real count (sh_info). */
        put(d + shoff + 44, phnum, 4);
        /* PT_NOTE, then the loads: one page of memory each, none dumped. */
        uint8_t *ph = d + phoff;
        put(ph, 4, 4);
        put(ph + 8, noteoff, 8);
        put(ph + 32, note, 8);
        put(ph + 48, 4, 8);
        for (uint64_t i = 0; i < loads; i++) {
                uint8_t *p = ph + 56 * (i + 1);
                put(p, 1, 4);
                put(p + 4, 4, 4); /* PF_R */
                put(p + 8, size, 8);
                put(p + 16, BASE + i * PAGE, 8);
                put(p + 40, PAGE, 8);
                put(p + 48, PAGE, 8);
        }
        /* NT_FILE: count, page size, (start, end, page offset 0) each, then the paths. */
        uint8_t *n = d + noteoff;
        put(n, 5, 4);
        put(n + 4, desc, 4);
        put(n + 8, 0x46494c45, 4);
        memcpy(n + 12, "CORE", 5);
        uint8_t *e = n + 20;
        put(e, maps, 8);
        put(e + 8, PAGE, 8);
        for (uint64_t i = 0; i < maps; i++) {
                uint64_t start = BASE + (i % (loads ? loads : 1)) * PAGE;
                put(e + 16 + 24 * i, start, 8);
                put(e + 16 + 24 * i + 8, start + PAGE, 8);
        }
        for (uint64_t i = 0; i < maps; i++)
                memcpy(e + 16 + 24 * maps + i * sizeof PATH, PATH, sizeof PATH);
        FILE *f = fopen(argv[1], "wb");
        if (!f || fwrite(d, 1, size, f) != size || fclose(f) != 0) {
                perror(argv[1]);
                return 1;
        }
        free(d);
        return 0;
}
