/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A module's file image, rebuilt from the pages of it that a core holds,
 * for the unwinder when the module's file is not read (--no-disk, a file
 * missing or changed since the crash) and for the vDSO, which has no file.
 *
 * Without an ELF for a module, libdwfl has no CFI for its frames and falls
 * back to the frame pointer, which skips every function built without one
 * (the vDSO's __kernel_vsyscall, then glibc's raise: a frame lost), or
 * gives up.  Yet a core often holds what CFI needs: the vDSO whole, and a
 * small program's or library's text segment, .eh_frame_hdr and .eh_frame
 * with it, whenever the kernel dumped all of it (coredump_filter, or a
 * segment written to, as old cores and text relocations have).  eu-stack
 * reads such modules from the core's memory too.
 *
 * The image is laid out as the file was: each PT_LOAD of the module's own
 * program headers (from its dumped ELF header page) has its p_filesz bytes
 * at p_offset, copied from where the module was loaded.  It ends at the
 * first byte the core did not dump, so libdwfl finds absent bytes absent
 * (PT_GNU_EH_FRAME or PT_DYNAMIC beyond the end: no CFI, no symbols, the
 * frame pointer as before) and never reads zeros in place of CFI.  Section
 * headers are kept only when they lie inside the image (the vDSO's do);
 * libdwfl then finds CFI through PT_GNU_EH_FRAME and symbols through
 * PT_DYNAMIC, as for any module without sections.
 *
 * RAW is the whole core in memory (what libelf maps); every read of it is
 * bounds-checked against RAW_SIZE, every header field against the bytes
 * that hold it, every sum for overflow.
 */
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "02-elf-const.h"

#define MAX_IMAGE_BYTES (256u << 20) /* a module's image rebuilt from a core */
#define MAX_IMAGE_PHNUM 1024u        /* program headers of such a module */

/* Copies up to LEN dumped bytes from ADDR to DST: as many as the core
 * holds contiguously from ADDR. */
static uint64_t copy_dumped(const pkgnote_core *c, const uint8_t *raw, uint64_t raw_size, uint64_t addr, uint8_t *dst,
                            uint64_t len) {
        uint64_t done = 0;
        while (done < len && addr <= UINT64_MAX - done) {
                uint64_t off, avail;
                /* pn_core_dumped_at only reads the core. */
                if (!pn_core_dumped_at((pkgnote_core *)(uintptr_t)c, addr + done, &off, &avail) || avail == 0)
                        break;
                uint64_t n = len - done < avail ? len - done : avail;
                if (!pn_range_ok(off, n, raw_size))
                        n = off < raw_size ? raw_size - off : 0;
                if (n == 0)
                        break;
                memcpy(dst + done, raw + off, (size_t)n);
                done += n;
        }
        return done;
}

struct load {
        uint64_t off, vaddr, filesz;
};

static int cmp_load(const void *a, const void *b) {
        const struct load *x = a, *y = b;
        return x->off < y->off ? -1 : x->off > y->off;
}

int pn_core_module_image(const pkgnote_core *c, const uint8_t *raw, uint64_t raw_size, uint64_t start, uint8_t **ret,
                         size_t *ret_len) {
        bool be = c->be, is64 = c->is64;
        uint8_t eh[64];
        size_t eh_size = is64 ? 64 : 52;
        if (copy_dumped(c, raw, raw_size, start, eh, eh_size) != eh_size || memcmp(eh, ELFMAG, SELFMAG) ||
            eh[EI_CLASS] != (is64 ? ELFCLASS64 : ELFCLASS32) || eh[EI_DATA] != (be ? ELFDATA2MSB : ELFDATA2LSB))
                return 0;
        unsigned type = pn_rd16(eh + 16, be), machine = pn_rd16(eh + 18, be);
        uint64_t phoff = is64 ? pn_rd64(eh + 32, be) : pn_rd32(eh + 28, be);
        uint64_t shoff = is64 ? pn_rd64(eh + 40, be) : pn_rd32(eh + 32, be);
        unsigned phentsize = pn_rd16(eh + (is64 ? 54 : 42), be), phnum = pn_rd16(eh + (is64 ? 56 : 44), be);
        unsigned shentsize = pn_rd16(eh + (is64 ? 58 : 46), be), shnum = pn_rd16(eh + (is64 ? 60 : 48), be);
        if ((type != ET_EXEC && type != ET_DYN) || machine != c->machine || phnum == 0 || phnum > MAX_IMAGE_PHNUM ||
            phentsize < (is64 ? 56u : 32u) || phoff > MAX_IMAGE_BYTES || start > UINT64_MAX - phoff)
                return 0;
        uint64_t ph_len = (uint64_t)phnum * phentsize;
        uint8_t *ph = malloc((size_t)ph_len);
        struct load *loads = malloc(phnum * sizeof *loads);
        int r = 0;
        if (!ph || !loads) {
                r = pn_oom();
                goto out;
        }
        if (copy_dumped(c, raw, raw_size, start + phoff, ph, ph_len) != ph_len)
                goto out;
        size_t n = 0;
        uint64_t size = 0;
        for (unsigned i = 0; i < phnum; i++) {
                const uint8_t *p = ph + (size_t)i * phentsize;
                if (pn_rd32(p, be) != PT_LOAD)
                        continue;
                struct load l = {
                        .off = is64 ? pn_rd64(p + 8, be) : pn_rd32(p + 4, be),
                        .vaddr = is64 ? pn_rd64(p + 16, be) : pn_rd32(p + 8, be),
                        .filesz = is64 ? pn_rd64(p + 32, be) : pn_rd32(p + 16, be),
                };
                if (l.off > MAX_IMAGE_BYTES || l.filesz > MAX_IMAGE_BYTES)
                        goto out;
                loads[n++] = l;
                size = l.off + l.filesz > size ? l.off + l.filesz : size;
        }
        /* The first PT_LOAD maps offset 0, the header page, at START (as
         * the dynamic linker and the kernel map it, and as libdwfl takes
         * the module's load address); vaddr and offset agree modulo the
         * page size, so offset 0 lies p_offset bytes before p_vaddr. */
        if (n == 0 || loads[0].vaddr < loads[0].off)
                goto out;
        uint64_t base = loads[0].vaddr - loads[0].off; /* where offset 0 would be, unbiased */
        uint64_t bias = start - base;                  /* modulo 2^64, as addresses wrap */
        if (size > MAX_IMAGE_BYTES)
                size = MAX_IMAGE_BYTES;
        uint8_t *img = calloc(1, (size_t)size);
        if (!img) {
                r = pn_oom();
                goto out;
        }
        qsort(loads, n, sizeof *loads, cmp_load);
        uint64_t have = 0; /* the image is whole up to here */
        for (size_t i = 0; i < n; i++) {
                const struct load *l = &loads[i];
                if (l->off >= size)
                        break;
                uint64_t want = l->filesz < size - l->off ? l->filesz : size - l->off;
                uint64_t got = copy_dumped(c, raw, raw_size, bias + l->vaddr, img + l->off, want);
                if (got < want) {
                        have = l->off + got > have ? l->off + got : have;
                        break;
                }
                have = l->off + want > have ? l->off + want : have;
        }
        uint64_t sh_len = (uint64_t)shnum * shentsize;
        /* The layout must put back the header it was read from: program
         * headers that map offset 0 elsewhere describe no image of this
         * module. */
        if (have < eh_size || have < phoff + ph_len || memcmp(img, eh, eh_size) ||
            memcmp(img + phoff, ph, (size_t)ph_len)) {
                free(img);
                goto out;
        }
        /* Section headers outside the image are not there: none, rather
         * than a table libelf would read from past the end. */
        if (shoff == 0 || !pn_range_ok(shoff, sh_len, have)) {
                if (is64) {
                        pn_wr64(img + 40, 0, be);
                        pn_wr16(img + 60, 0, be);
                        pn_wr16(img + 62, 0, be);
                } else {
                        pn_wr32(img + 32, 0, be);
                        pn_wr16(img + 48, 0, be);
                        pn_wr16(img + 50, 0, be);
                }
        }
        *ret = img;
        *ret_len = (size_t)have;
        r = 1;
out:
        free(ph);
        free(loads);
        return r;
}
