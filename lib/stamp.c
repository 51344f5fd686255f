/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping: the package note added to, replaced in or removed from an
 * already linked executable or shared object, or a relocatable object.
 *
 * Linked files (ET_EXEC, ET_DYN).  Readers and the loaded process find
 * notes through PT_NOTE program headers inside a PT_LOAD, and the kernel
 * writes only the first page of each mapped file into a core dump, so
 * the best place is file bytes [0, 4096) with the program headers.  No
 * code or data moves and no PT_LOAD changes its address; a PT_LOAD may
 * only grow over padding inside pages it already maps, which leaves the
 * mapping itself unchanged.  In order of preference:
 *
 *   replaced     the old package note's room, when the new note fits
 *                (its descriptor NUL-padded to the old size);
 *   after-notes  unused bytes right after the PT_NOTE holding the 4-byte
 *                notes (build-id, ABI tag) in the first page: that
 *                PT_NOTE grows, nothing else changes.  When .gnu.hash or
 *                .hash sits there, it may first move into padding of a
 *                read-only segment (DT_GNU_HASH / DT_HASH follow it; it
 *                is reached through them only);
 *   free-slot    a PT_NULL program header and unused first-page bytes;
 *   merged       that PT_NOTE's notes copied, with the new note, into
 *                unused first-page bytes, and the PT_NOTE pointed there
 *                (the originals stay in place, unreferenced);
 *   moved-phdrs  the program header table, one entry longer, and the
 *                note in unused first-page bytes;
 *   padding      outside the first page, with a PT_NULL slot: padding
 *                after a read-only segment (kernel cores lack the note,
 *                disk readers find it);
 *   appended     last resort: a new PT_LOAD at the end of the file with
 *                the program header table (two entries longer) and the
 *                note.  The program headers then leave the first page,
 *                so kernel core dumps no longer show this file's notes.
 *
 * 8-byte aligned notes (GNU properties) and their PT_NOTE and
 * PT_GNU_PROPERTY are never touched.  Section headers, when present,
 * follow: a SHT_NOTE .note.package section covers the new note.
 *
 * Relocatable objects (ET_REL, kernel modules) get an allocated SHT_NOTE
 * section .note.package, added at the end of the section header table
 * so no section index changes.
 *
 * The result is built in memory from the input, parsed back and checked;
 * pkgnote_stamp_file() writes it beside the target and renames it over.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "elfview.h"

/* gABI values. */
enum { ET_REL = 1, ET_EXEC = 2, ET_DYN = 3, ET_CORE = 4 };
enum { PT_NULL = 0, PT_LOAD = 1, PT_DYNAMIC = 2, PT_INTERP = 3, PT_NOTE = 4, PT_PHDR = 6 };
#define PT_GNU_PROPERTY 0x6474e553u
enum { PF_X = 1, PF_W = 2, PF_R = 4 };
enum { SHT_NULL = 0, SHT_SYMTAB = 2, SHT_RELA = 4, SHT_HASH = 5, SHT_REL = 9, SHT_NOTE = 7, SHT_NOBITS = 8, SHT_DYNSYM = 11 };
#define SHT_GNU_HASH 0x6ffffff6u
#define SHF_ALLOC 2u
#define DT_NULL 0u
#define DT_HASH 4u
#define DT_SYMTAB 6u
#define DT_GNU_HASH 0x6ffffef5u
#define SHN_LORESERVE 0xff00u
#define PN_XNUM 0xffffu

/* What the kernel dumps of a mapped file, and the page granularity we
 * assume for mappings: 4096 is the smallest page size, so staying inside
 * a 4 KiB page is safe on kernels with larger pages too. */
#define FIRST_PAGE 4096u
/* Files from this size on are mapped rather than read and copied. */
#define MAP_THRESHOLD (1u << 20)
/* Dynamic tables moved at most to make room after the notes. */
#define MAX_MOVED 3
#define PAGE 4096u

static const char note_section_name[] = ".note.package";
/* include/linux/module_signature.h: the trailer of a signed module. */
static const char module_sig_magic[] = "~Module signature appended~\n";

struct ph {
        uint32_t type, flags;
        uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct sh {
        uint32_t name, type;
        uint64_t flags, addr, offset, size;
        uint32_t link, info;
        uint64_t align, entsize;
};

struct range {
        uint64_t a, b;
};

struct stamp {
        pkgnote_elf *e; /* view over the input */
        bool is64, be;
        unsigned type;
        uint64_t in_len;

        uint8_t *b; /* the result being built */
        uint64_t len, cap;
        bool mapped; /* b is a private (copy-on-write) mapping of the input file */

        struct ph *ph;
        size_t phnum, phcap;
        uint64_t phoff;
        unsigned phentsize;

        struct sh *sh;
        size_t shnum, shcap, shnum_read;
        uint64_t shoff;
        unsigned shentsize;
        uint32_t shstrndx;
        uint8_t *names; /* the section name table, copied */
        uint64_t names_len;
        bool names_grew, table_grew, tail_cut;

        const uint8_t *note; /* the new note */
        size_t note_len;
        long note_section; /* section to cover the note, or -1 */

        struct range reserved[1 + MAX_MOVED]; /* kept free while placing other things */
        size_t n_reserved;
        pkgnote_stamp_result *res;
};

/* ------------------------------------------------------------------ */
/* The output buffer                                                   */

static int buf_reserve(struct stamp *s, uint64_t len) {
        if (len <= s->cap)
                return 0;
        if (s->mapped) {
                /* A mapping cannot grow in place: continue on the heap. */
                uint8_t *n = len <= SIZE_MAX ? malloc((size_t)len) : NULL;
                if (!n)
                        return pn_error(-ENOMEM, "out of memory");
                memcpy(n, s->b, (size_t)s->len);
                munmap(s->b, (size_t)s->cap);
                s->b = n;
                s->cap = len;
                s->mapped = false;
                return 0;
        }
        uint64_t cap = s->cap ? s->cap : len;
        while (cap < len)
                cap *= 2;
        if (cap > SIZE_MAX)
                return pn_error(-ENOMEM, "out of memory");
        uint8_t *n = realloc(s->b, (size_t)cap);
        if (!n)
                return pn_error(-ENOMEM, "out of memory");
        s->b = n;
        s->cap = cap;
        return 0;
}

/* Makes the result LEN bytes long; new bytes are zero. */
static int buf_resize(struct stamp *s, uint64_t len) {
        int r = buf_reserve(s, len);
        if (r < 0)
                return r;
        if (len > s->len)
                memset(s->b + s->len, 0, (size_t)(len - s->len));
        s->len = len;
        return 0;
}

static int buf_put(struct stamp *s, uint64_t off, const void *p, uint64_t n) {
        if (!pn_range_ok(off, n, s->len))
                return pn_error(-EBADMSG, "internal: write at 0x%llx+0x%llx outside the result",
                                (unsigned long long)off, (unsigned long long)n);
        if (n)
                memmove(s->b + off, p, (size_t)n);
        return 0;
}

static int buf_zero(struct stamp *s, uint64_t off, uint64_t n) {
        if (!pn_range_ok(off, n, s->len))
                return pn_error(-EBADMSG, "internal: clearing 0x%llx+0x%llx outside the result",
                                (unsigned long long)off, (unsigned long long)n);
        memset(s->b + off, 0, (size_t)n);
        return 0;
}

static bool buf_is_zero(const struct stamp *s, uint64_t a, uint64_t b) {
        if (b < a || b > s->len)
                return false;
        for (uint64_t i = a; i < b; i++)
                if (s->b[i])
                        return false;
        return true;
}

static void put_word(uint8_t *p, uint64_t v, bool is64, bool be) {
        if (is64)
                pn_wr64(p, v, be);
        else
                pn_wr32(p, (uint32_t)v, be);
}

static uint64_t get_word(const uint8_t *p, bool is64, bool be) {
        return is64 ? pn_rd64(p, be) : pn_rd32(p, be);
}

/* ------------------------------------------------------------------ */
/* Reading the tables                                                  */

static int read_phdrs(struct stamp *s) {
        pkgnote_elf *e = s->e;
        int err;
        s->phnum = e->phnum;
        s->phoff = e->phoff;
        s->phentsize = e->phentsize;
        s->phcap = s->phnum + 2;
        s->ph = calloc(s->phcap, sizeof *s->ph);
        if (!s->ph)
                return pn_error(-ENOMEM, "out of memory");
        for (size_t i = 0; i < s->phnum; i++) {
                const uint8_t *p = pn_elf_bytes(e, s->phoff + i * s->phentsize, s->is64 ? 56 : 32, &err);
                if (!p)
                        return err;
                struct ph *h = &s->ph[i];
                h->type = pn_rd32(p, s->be);
                if (s->is64) {
                        h->flags = pn_rd32(p + 4, s->be);
                        h->offset = pn_rd64(p + 8, s->be);
                        h->vaddr = pn_rd64(p + 16, s->be);
                        h->paddr = pn_rd64(p + 24, s->be);
                        h->filesz = pn_rd64(p + 32, s->be);
                        h->memsz = pn_rd64(p + 40, s->be);
                        h->align = pn_rd64(p + 48, s->be);
                } else {
                        h->offset = pn_rd32(p + 4, s->be);
                        h->vaddr = pn_rd32(p + 8, s->be);
                        h->paddr = pn_rd32(p + 12, s->be);
                        h->filesz = pn_rd32(p + 16, s->be);
                        h->memsz = pn_rd32(p + 20, s->be);
                        h->flags = pn_rd32(p + 24, s->be);
                        h->align = pn_rd32(p + 28, s->be);
                }
        }
        return 0;
}

static int read_shdrs(struct stamp *s) {
        pkgnote_elf *e = s->e;
        const pkgnote_shdr *dummy;
        int err, n = pkgnote_elf_shdrs(e, &dummy); /* validates the table */
        if (n < 0)
                return n;
        s->shnum = s->shnum_read = (size_t)n;
        s->shoff = e->shoff;
        s->shentsize = e->shentsize;
        s->shstrndx = e->shstrndx;
        s->shcap = s->shnum + 1;
        s->sh = calloc(s->shcap, sizeof *s->sh);
        if (!s->sh)
                return pn_error(-ENOMEM, "out of memory");
        for (size_t i = 0; i < s->shnum; i++) {
                const uint8_t *p = pn_elf_bytes(e, s->shoff + i * s->shentsize, s->is64 ? 64 : 40, &err);
                if (!p)
                        return err;
                struct sh *h = &s->sh[i];
                size_t w = s->is64 ? 8 : 4;
                h->name = pn_rd32(p, s->be);
                h->type = pn_rd32(p + 4, s->be);
                h->flags = get_word(p + 8, s->is64, s->be);
                h->addr = get_word(p + 8 + w, s->is64, s->be);
                h->offset = get_word(p + 8 + 2 * w, s->is64, s->be);
                h->size = get_word(p + 8 + 3 * w, s->is64, s->be);
                h->link = pn_rd32(p + 8 + 4 * w, s->be);
                h->info = pn_rd32(p + 12 + 4 * w, s->be);
                h->align = get_word(p + 16 + 4 * w, s->is64, s->be);
                h->entsize = get_word(p + 16 + 5 * w, s->is64, s->be);
        }
        if (s->shnum > 0 && s->shstrndx < s->shnum && s->sh[s->shstrndx].type != SHT_NOBITS) {
                const struct sh *t = &s->sh[s->shstrndx];
                if (t->size > PKGNOTE_MAX_SHSTRTAB)
                        return pn_error(-E2BIG, "section name table of %llu bytes, more than the limit of %u",
                                        (unsigned long long)t->size, PKGNOTE_MAX_SHSTRTAB);
                const uint8_t *p = pn_elf_bytes(e, t->offset, t->size, &err);
                if (!p)
                        return err;
                s->names = malloc(t->size + sizeof note_section_name);
                if (!s->names)
                        return pn_error(-ENOMEM, "out of memory");
                memcpy(s->names, p, t->size);
                s->names_len = t->size;
        }
        return 0;
}

static const char *section_name(const struct stamp *s, size_t i) {
        uint32_t off = s->sh[i].name;
        if (!s->names || off >= s->names_len || !memchr(s->names + off, 0, s->names_len - off))
                return "";
        return (const char *)s->names + off;
}

/* ------------------------------------------------------------------ */
/* Writing the tables                                                  */

static void write_phdr(struct stamp *s, size_t i) {
        uint8_t *p = s->b + s->phoff + i * s->phentsize;
        const struct ph *h = &s->ph[i];
        pn_wr32(p, h->type, s->be);
        if (s->is64) {
                pn_wr32(p + 4, h->flags, s->be);
                pn_wr64(p + 8, h->offset, s->be);
                pn_wr64(p + 16, h->vaddr, s->be);
                pn_wr64(p + 24, h->paddr, s->be);
                pn_wr64(p + 32, h->filesz, s->be);
                pn_wr64(p + 40, h->memsz, s->be);
                pn_wr64(p + 48, h->align, s->be);
        } else {
                pn_wr32(p + 4, (uint32_t)h->offset, s->be);
                pn_wr32(p + 8, (uint32_t)h->vaddr, s->be);
                pn_wr32(p + 12, (uint32_t)h->paddr, s->be);
                pn_wr32(p + 16, (uint32_t)h->filesz, s->be);
                pn_wr32(p + 20, (uint32_t)h->memsz, s->be);
                pn_wr32(p + 24, h->flags, s->be);
                pn_wr32(p + 28, (uint32_t)h->align, s->be);
        }
}

static void write_shdr(struct stamp *s, size_t i) {
        uint8_t *p = s->b + s->shoff + i * s->shentsize;
        const struct sh *h = &s->sh[i];
        size_t w = s->is64 ? 8 : 4;
        pn_wr32(p, h->name, s->be);
        pn_wr32(p + 4, h->type, s->be);
        put_word(p + 8, h->flags, s->is64, s->be);
        put_word(p + 8 + w, h->addr, s->is64, s->be);
        put_word(p + 8 + 2 * w, h->offset, s->is64, s->be);
        put_word(p + 8 + 3 * w, h->size, s->is64, s->be);
        pn_wr32(p + 8 + 4 * w, h->link, s->be);
        pn_wr32(p + 12 + 4 * w, h->info, s->be);
        put_word(p + 16 + 4 * w, h->align, s->is64, s->be);
        put_word(p + 16 + 5 * w, h->entsize, s->is64, s->be);
}

/* Writes the program and section header tables and the ELF header
 * fields that locate and count them (gABI extended numbering kept). */
static int flush_tables(struct stamp *s) {
        bool be = s->be;
        if (s->phnum >= PN_XNUM && s->shnum == 0)
                return pn_error(-E2BIG, "too many program headers for the ELF header");
        if (s->phnum && !pn_range_ok(s->phoff, (uint64_t)s->phnum * s->phentsize, s->len))
                return pn_error(-EBADMSG, "internal: program headers outside the result");
        for (size_t i = 0; i < s->phnum; i++)
                write_phdr(s, i);
        if (s->shnum > 0) {
                if (s->phnum >= PN_XNUM)
                        s->sh[0].info = (uint32_t)s->phnum;
                if (s->shnum >= SHN_LORESERVE)
                        s->sh[0].size = s->shnum;
                if (s->shstrndx >= SHN_LORESERVE)
                        s->sh[0].link = s->shstrndx;
                if (!pn_range_ok(s->shoff, (uint64_t)s->shnum * s->shentsize, s->len))
                        return pn_error(-EBADMSG, "internal: section headers outside the result");
                for (size_t i = 0; i < s->shnum; i++)
                        write_shdr(s, i);
        }
        uint8_t *h = s->b;
        if (s->is64) {
                pn_wr64(h + 32, s->phoff, be);
                pn_wr64(h + 40, s->shnum ? s->shoff : 0, be);
        } else {
                pn_wr32(h + 28, (uint32_t)s->phoff, be);
                pn_wr32(h + 32, (uint32_t)(s->shnum ? s->shoff : 0), be);
        }
        uint8_t *t = h + (s->is64 ? 56 : 44);
        pn_wr16(t, (uint16_t)(s->phnum >= PN_XNUM ? PN_XNUM : s->phnum), be);
        pn_wr16(t + 4, (uint16_t)(s->shnum >= SHN_LORESERVE ? 0 : s->shnum), be);
        pn_wr16(t + 6, (uint16_t)(s->shnum == 0 ? 0 : s->shstrndx >= SHN_LORESERVE ? 0xffff : s->shstrndx), be);
        return 0;
}

/* ------------------------------------------------------------------ */
/* Free space                                                          */

static int cmp_range(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        return x->a < y->a ? -1 : x->a > y->a;
}

/* Everything in the result that holds bytes someone reads: headers,
 * tables, sections, segments other than PT_LOAD (whose contents the
 * sections describe; without section headers, PT_LOADs count whole). */
static int occupied(const struct stamp *s, struct range **ret, size_t *ret_n) {
        size_t cap = 4 + ELEMENTSOF(s->reserved) + s->phnum + s->shnum, n = 0;
        struct range *r = calloc(cap, sizeof *r);
        if (!r)
                return pn_error(-ENOMEM, "out of memory");
#define ADD(x, y)                                                                      \
        do {                                                                           \
                if ((y) > (x))                                                         \
                        r[n++] = (struct range){(x), (y)};                             \
        } while (0)
        ADD(0, (uint64_t)(s->is64 ? 64 : 52));
        ADD(s->phoff, s->phoff + (uint64_t)s->phnum * s->phentsize);
        if (s->shnum && !s->tail_cut)
                ADD(s->shoff, s->shoff + (uint64_t)s->shnum * s->shentsize);
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_NULL || (p->type == PT_LOAD && s->shnum > 0))
                        continue;
                ADD(p->offset, p->offset + p->filesz);
        }
        for (size_t i = 0; i < s->shnum; i++) {
                const struct sh *h = &s->sh[i];
                if (h->type == SHT_NULL || h->type == SHT_NOBITS)
                        continue;
                ADD(h->offset, h->offset + h->size);
        }
        for (size_t i = 0; i < s->n_reserved; i++)
                ADD(s->reserved[i].a, s->reserved[i].b);
#undef ADD
        qsort(r, n, sizeof *r, cmp_range);
        *ret = r;
        *ret_n = n;
        return 0;
}

static bool overlaps_any(const struct range *occ, size_t n, uint64_t a, uint64_t b) {
        for (size_t i = 0; i < n; i++)
                if (occ[i].a < b && a < occ[i].b)
                        return true;
        return false;
}

enum { HOST_FIRST_PAGE = 1, HOST_NO_EXEC = 2 };

/* The PT_LOAD that maps bytes [a, b) once grown over them, or -1.  It
 * must be readable and not writable, and growing it (only over its
 * padding, only when it has no bss) must stay inside pages it already
 * maps and away from every other PT_LOAD. */
static long host_for(const struct stamp *s, uint64_t a, uint64_t b, unsigned how) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_LOAD || !(p->flags & PF_R) || (p->flags & PF_W))
                        continue;
                if ((how & HOST_NO_EXEC) && (p->flags & PF_X))
                        continue;
                if ((how & HOST_FIRST_PAGE) && (p->offset != 0 || b > FIRST_PAGE))
                        continue;
                if (a < p->offset || (p->vaddr - p->offset) % PAGE != 0)
                        continue;
                uint64_t end = p->offset + p->filesz;
                if (b <= end) {
                        if (s->shnum == 0)
                                continue; /* inside, but nothing says what is unused */
                        return (long)i;
                }
                if (a > end + PAGE || p->filesz != p->memsz)
                        continue;
                uint64_t vstart = p->vaddr + p->memsz, vend = p->vaddr + (b - p->offset);
                if (vend < vstart || vend > ALIGN_UP(vstart, PAGE))
                        continue;
                bool clash = false;
                for (size_t j = 0; j < s->phnum && !clash; j++) {
                        const struct ph *q = &s->ph[j];
                        if (j == i || q->type != PT_LOAD)
                                continue;
                        clash = (q->vaddr < vend && vstart < q->vaddr + q->memsz) ||
                                (q->offset < b && end < q->offset + q->filesz);
                }
                if (!clash)
                        return (long)i;
        }
        return -1;
}

/* Finds SIZE unused, zero bytes aligned to ALIGN below LIMIT that a
 * PT_LOAD maps (see host_for()); returns the offset or UINT64_MAX. */
static uint64_t find_free(struct stamp *s, uint64_t size, uint64_t align, uint64_t limit, unsigned how,
                          long *host) {
        struct range *occ, *real;
        size_t n, nreal;
        if (occupied(s, &occ, &n) < 0)
                return UINT64_MAX;
        /* Growing a PT_LOAD over bytes reserved for other new data is
         * fine; over anything already there it is not. */
        size_t keep = s->n_reserved;
        s->n_reserved = 0;
        int r = occupied(s, &real, &nreal);
        s->n_reserved = keep;
        if (r < 0) {
                free(occ);
                return UINT64_MAX;
        }
        uint64_t found = UINT64_MAX;
        if (limit > s->len)
                limit = s->len;
        uint64_t gap_start = 0;
        for (size_t i = 0; i <= n && found == UINT64_MAX; i++) {
                uint64_t gap_end = i < n ? occ[i].a : limit;
                if (gap_end > limit)
                        gap_end = limit;
                uint64_t a = ALIGN_UP(gap_start, align);
                if (gap_end > gap_start && a + size <= gap_end && a + size > a) {
                        long h = host_for(s, a, a + size, how);
                        if (h >= 0) {
                                const struct ph *p = &s->ph[h];
                                uint64_t end = p->offset + p->filesz;
                                uint64_t z = a < end ? a : end; /* growing maps [end, a) too */
                                if (!overlaps_any(occ, n, a, a + size) && !overlaps_any(real, nreal, z, a) &&
                                    buf_is_zero(s, z, a + size)) {
                                        found = a;
                                        *host = h;
                                }
                        }
                }
                if (i < n && occ[i].b > gap_start)
                        gap_start = occ[i].b;
        }
        free(occ);
        free(real);
        return found;
}

/* Grows PT_LOAD H over [a, b) when needed. */
static void grow_host(struct stamp *s, long h, uint64_t b) {
        struct ph *p = &s->ph[h];
        if (b > p->offset + p->filesz)
                p->filesz = p->memsz = b - p->offset;
}

static uint64_t vaddr_of(const struct stamp *s, long h, uint64_t off) {
        return s->ph[h].vaddr + (off - s->ph[h].offset);
}
static uint64_t paddr_of(const struct stamp *s, long h, uint64_t off) {
        return s->ph[h].paddr + (off - s->ph[h].offset);
}

/* ------------------------------------------------------------------ */
/* The note                                                            */

/* Writes the new note at OFF, ROOM bytes long: the descriptor is
 * NUL-padded to fill the room, as the spec allows. */
static int write_note(struct stamp *s, uint64_t off, uint64_t room) {
        if (room < s->note_len || room % 4 || room - 16 > UINT32_MAX)
                return pn_error(-EINVAL, "internal: note room too small");
        int r = buf_zero(s, off, room);
        if (r < 0)
                return r;
        r = buf_put(s, off, s->note, s->note_len);
        if (r < 0)
                return r;
        pn_wr32(s->b + off + 4, (uint32_t)(room - 16), s->be);
        s->res->note_offset = off;
        s->res->note_size = room;
        return 0;
}

/* Offsets inside a note region after some byte ranges were cut out. */
static uint64_t map_cut(uint64_t x, const struct range *cut, size_t n) {
        uint64_t removed = 0;
        for (size_t i = 0; i < n; i++) {
                if (x >= cut[i].b)
                        removed += cut[i].b - cut[i].a;
                else if (x > cut[i].a)
                        return cut[i].a - removed;
        }
        return x - removed;
}

static bool is_package(const pkgnote_note *n) {
        return pkgnote_note_is(n, PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA);
}

/* Takes every package note out of the PT_NOTE segments: the other notes
 * close up (their sections follow) and the freed tail becomes zeros.  A
 * PT_NOTE left empty becomes PT_NULL, a free slot for the next stamp.
 * Returns the number of notes removed. */
static int remove_segment_notes(struct stamp *s) {
        const pkgnote_note *notes;
        int nn = pkgnote_elf_notes(s->e, &notes);
        if (nn < 0)
                return nn;
        int removed = 0;
        for (size_t i = 0; i < s->phnum; i++) {
                struct ph *p = &s->ph[i];
                if (p->type != PT_NOTE || p->filesz == 0)
                        continue;
                struct range cut[16];
                size_t ncut = 0;
                uint64_t end = p->offset + p->filesz;
                bool later_kept = false;
                for (int k = nn - 1; k >= 0; k--) {
                        const pkgnote_note *n = &notes[k];
                        if (!(n->where & PKGNOTE_NOTE_IN_SEGMENT) || n->offset < p->offset || n->offset >= end)
                                continue;
                        if (!is_package(n)) {
                                later_kept = true;
                                continue;
                        }
                        /* Closing up must keep the notes after it aligned. */
                        if (later_kept && n->size % n->align)
                                return pn_error(-ENOSPC, "cannot take out the package note at offset 0x%llx without misaligning the notes after it",
                                                (unsigned long long)n->offset);
                        if (ncut == ELEMENTSOF(cut))
                                return pn_error(-E2BIG, "too many package notes in one segment");
                        cut[ncut++] = (struct range){n->offset, n->offset + n->size};
                }
                if (ncut == 0)
                        continue;
                /* Collected from the end; make them ascending. */
                for (size_t a = 0, z = ncut - 1; a < z; a++, z--) {
                        struct range t = cut[a];
                        cut[a] = cut[z];
                        cut[z] = t;
                }
                uint64_t out = p->offset, from = p->offset, total = 0;
                for (size_t c = 0; c <= ncut; c++) {
                        uint64_t upto = c < ncut ? cut[c].a : end;
                        int r = buf_put(s, out, s->b + from, upto - from);
                        if (r < 0)
                                return r;
                        out += upto - from;
                        if (c < ncut) {
                                from = cut[c].b;
                                total += cut[c].b - cut[c].a;
                        }
                }
                int r = buf_zero(s, out, end - out);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < s->shnum; k++) {
                        struct sh *h = &s->sh[k];
                        if (h->type != SHT_NOTE || h->offset < p->offset || h->offset + h->size > end)
                                continue;
                        uint64_t a = map_cut(h->offset, cut, ncut), b = map_cut(h->offset + h->size, cut, ncut);
                        if (b == a && h->size > 0 && s->note_section < 0)
                                s->note_section = (long)k; /* held only package notes */
                        h->addr -= h->offset - a;
                        h->offset = a;
                        h->size = b - a;
                }
                p->filesz -= total;
                p->memsz = p->memsz >= total ? p->memsz - total : 0;
                if (p->filesz == 0)
                        *p = (struct ph){.type = PT_NULL};
                removed += (int)ncut;
        }
        return removed;
}

/* ------------------------------------------------------------------ */
/* Placements for linked files                                         */

/* Unless the program headers are in the first page, nothing is. */
static bool phdrs_in_first_page(const struct stamp *s) {
        return s->phoff + (uint64_t)s->phnum * s->phentsize <= FIRST_PAGE;
}

/* The PT_NOTE with the 4-byte aligned notes in the first page, mapped
 * by the PT_LOAD at file offset 0. */
static long first_page_note_segment(const struct stamp *s) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_NOTE || p->align > 4 || p->filesz == 0 || p->offset % 4 ||
                    p->offset + p->filesz > FIRST_PAGE)
                        continue;
                for (size_t k = 0; k < s->phnum; k++) {
                        const struct ph *l = &s->ph[k];
                        if (l->type == PT_LOAD && l->offset == 0 && p->offset + p->filesz <= l->filesz &&
                            p->vaddr == l->vaddr + p->offset)
                                return (long)i;
                }
        }
        return -1;
}

static int place_after_notes(struct stamp *s, long seg) {
        struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz, b = a + s->note_len;
        if (a % 4 || b > FIRST_PAGE)
                return 0;
        long h = host_for(s, a, b, HOST_FIRST_PAGE);
        if (h < 0)
                return 0;
        struct range *occ;
        size_t n;
        int r = occupied(s, &occ, &n);
        if (r < 0)
                return r;
        const struct ph *hp = &s->ph[h];
        uint64_t hend = hp->offset + hp->filesz, z = a < hend ? a : hend;
        bool ok = !overlaps_any(occ, n, z, b) && buf_is_zero(s, z, b);
        free(occ);
        if (!ok)
                return 0;
        if ((r = write_note(s, a, s->note_len)) < 0)
                return r;
        grow_host(s, h, b);
        p->filesz += s->note_len;
        p->memsz += s->note_len;
        s->res->placement = PKGNOTE_PLACE_AFTER_NOTES;
        return 1;
}

/* Reads the dynamic section: the index of the entry with TAG and VALUE. */
static long dynamic_entry(const struct stamp *s, uint64_t tag, uint64_t value, uint64_t *at) {
        size_t w = s->is64 ? 8 : 4;
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_DYNAMIC || !pn_range_ok(p->offset, p->filesz, s->len))
                        continue;
                for (uint64_t o = 0; o + 2 * w <= p->filesz; o += 2 * w) {
                        uint64_t t = get_word(s->b + p->offset + o, s->is64, s->be);
                        if (t == DT_NULL)
                                break;
                        if (t == tag && get_word(s->b + p->offset + o + w, s->is64, s->be) == value) {
                                *at = p->offset + o + w;
                                return (long)i;
                        }
                }
        }
        return -1;
}

/* The dynamic tag through which the loader finds a section of TYPE
 * that stamping may move, or 0 when it may not move. */
static uint64_t movable_tag(uint32_t type) {
        switch (type) {
        case SHT_GNU_HASH: return DT_GNU_HASH;
        case SHT_HASH: return DT_HASH;
        case SHT_DYNSYM: return DT_SYMTAB;
        default: return 0;
        }
}

/* Moves the symbol hash tables (and, when they are too small to make
 * room, the dynamic symbol table) that follow the first-page notes into
 * padding of a read-only segment, so the notes' PT_NOTE can grow over
 * the room they leave.  The loader reaches these tables only through
 * DT_GNU_HASH, DT_HASH and DT_SYMTAB, which are updated; symbols refer
 * to them by index, never by address.  As few as possible move. */
static int place_moving_tables(struct stamp *s, long seg) {
        if (s->shnum == 0)
                return 0;
        const struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz, need = a + s->note_len;
        if (need > FIRST_PAGE)
                return 0;
        /* The sections right after the notes, in file order. */
        size_t move[MAX_MOVED], nmove = 0;
        uint64_t reach = a;
        while (reach < need) {
                long next = -1;
                for (size_t i = 0; i < s->shnum; i++) {
                        const struct sh *h = &s->sh[i];
                        if (h->type == SHT_NULL || h->type == SHT_NOBITS || h->size == 0 || h->offset < reach)
                                continue;
                        if (next < 0 || h->offset < s->sh[next].offset)
                                next = (long)i;
                }
                if (next < 0)
                        return 0;
                const struct sh *h = &s->sh[next];
                if (h->offset >= need)
                        break;
                if (!movable_tag(h->type) || !(h->flags & SHF_ALLOC) || nmove == MAX_MOVED)
                        return 0;
                move[nmove++] = (size_t)next;
                reach = h->offset + h->size;
        }
        if (nmove == 0)
                return 0;
        uint64_t dyn_at[MAX_MOVED];
        for (size_t k = 0; k < nmove; k++) {
                const struct sh *h = &s->sh[move[k]];
                if (dynamic_entry(s, movable_tag(h->type), h->addr, &dyn_at[k]) < 0)
                        return 0;
        }
        /* Find homes for all of them first, so failing changes nothing. */
        uint64_t dest[MAX_MOVED];
        long host[MAX_MOVED];
        s->reserved[0] = (struct range){a, need};
        s->n_reserved = 1;
        for (size_t k = 0; k < nmove; k++) {
                const struct sh *h = &s->sh[move[k]];
                uint64_t al = h->align ? h->align : 1;
                dest[k] = find_free(s, h->size, al, s->len, HOST_NO_EXEC, &host[k]);
                if (dest[k] == UINT64_MAX)
                        dest[k] = find_free(s, h->size, al, s->len, 0, &host[k]);
                if (dest[k] == UINT64_MAX) {
                        s->n_reserved = 0;
                        return 0;
                }
                s->reserved[s->n_reserved++] = (struct range){dest[k], dest[k] + h->size};
        }
        s->n_reserved = 0;
        for (size_t k = 0; k < nmove; k++) {
                struct sh *h = &s->sh[move[k]];
                int r = buf_put(s, dest[k], s->b + h->offset, h->size);
                if (r < 0)
                        return r;
                grow_host(s, host[k], dest[k] + h->size);
                uint64_t addr = vaddr_of(s, host[k], dest[k]);
                /* The old bytes go: the notes' segment grows over them. */
                if ((r = buf_zero(s, h->offset, h->size)) < 0)
                        return r;
                put_word(s->b + dyn_at[k], addr, s->is64, s->be);
                h->offset = dest[k];
                h->addr = addr;
        }
        int r = place_after_notes(s, seg);
        if (r <= 0)
                return r < 0 ? r : pn_error(-EBADMSG, "internal: no room after moving the dynamic tables");
        s->res->tables_moved = 1;
        return 1;
}

static long free_slot(const struct stamp *s) {
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type == PT_NULL)
                        return (long)i;
        return -1;
}

static void set_note_phdr(struct stamp *s, size_t i, long h, uint64_t off, uint64_t size) {
        s->ph[i] = (struct ph){.type = PT_NOTE, .flags = PF_R, .offset = off, .vaddr = vaddr_of(s, h, off),
                               .paddr = paddr_of(s, h, off), .filesz = size, .memsz = size, .align = 4};
}

static int place_in_slot(struct stamp *s, bool first_page) {
        long slot = free_slot(s), h;
        if (slot < 0)
                return 0;
        uint64_t off = find_free(s, s->note_len, 4, first_page ? FIRST_PAGE : s->len,
                                 first_page ? HOST_FIRST_PAGE : HOST_NO_EXEC, &h);
        if (off == UINT64_MAX && !first_page)
                off = find_free(s, s->note_len, 4, s->len, 0, &h);
        if (off == UINT64_MAX)
                return 0;
        int r = write_note(s, off, s->note_len);
        if (r < 0)
                return r;
        grow_host(s, h, off + s->note_len);
        set_note_phdr(s, (size_t)slot, h, off, s->note_len);
        s->res->placement = first_page ? PKGNOTE_PLACE_FREE_SLOT : PKGNOTE_PLACE_PADDING;
        return 1;
}

static int place_merged(struct stamp *s, long seg) {
        struct ph *p = &s->ph[seg];
        uint64_t size = p->filesz + s->note_len;
        long h;
        uint64_t off = find_free(s, size, 4, FIRST_PAGE, HOST_FIRST_PAGE, &h);
        if (off == UINT64_MAX)
                return 0;
        uint64_t old = p->offset, delta_v = vaddr_of(s, h, off) - p->vaddr;
        int r = buf_put(s, off, s->b + old, p->filesz);
        if (r < 0 || (r = write_note(s, off + p->filesz, s->note_len)) < 0)
                return r;
        /* The sections stay on the original notes: symbols (__abi_tag)
         * are defined in them, and the original bytes stay in place. */
        grow_host(s, h, off + size);
        p->offset = off;
        p->vaddr += delta_v;
        p->paddr += delta_v;
        p->filesz = p->memsz = size;
        s->res->placement = PKGNOTE_PLACE_MERGED;
        return 1;
}

/* Inserts a program header at the place its type belongs: PT_LOADs stay
 * sorted by address, PT_NOTEs go after the other PT_NOTEs. */
static size_t insert_phdr(struct stamp *s, uint32_t type) {
        size_t at = s->phnum;
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type == type || (type == PT_NOTE && s->ph[i].type == PT_LOAD))
                        at = i + 1;
        memmove(&s->ph[at + 1], &s->ph[at], (s->phnum - at) * sizeof *s->ph);
        s->ph[at] = (struct ph){0};
        s->phnum++;
        return at;
}

static void update_pt_phdr(struct stamp *s, long h) {
        uint64_t size = (uint64_t)s->phnum * s->phentsize;
        for (size_t i = 0; i < s->phnum; i++) {
                struct ph *p = &s->ph[i];
                if (p->type != PT_PHDR)
                        continue;
                p->offset = s->phoff;
                p->vaddr = vaddr_of(s, h, s->phoff);
                p->paddr = paddr_of(s, h, s->phoff);
                p->filesz = p->memsz = size;
        }
}

static int place_moving_phdrs(struct stamp *s) {
        if (s->phnum + 1 >= PN_XNUM)
                return 0;
        uint64_t table = (uint64_t)(s->phnum + 1) * s->phentsize, al = s->is64 ? 8 : 4;
        long h;
        uint64_t off = find_free(s, ALIGN_UP(table, 4) + s->note_len, al, FIRST_PAGE, HOST_FIRST_PAGE, &h);
        if (off == UINT64_MAX)
                return 0;
        uint64_t note_at = off + ALIGN_UP(table, 4);
        int r = write_note(s, note_at, s->note_len);
        if (r < 0)
                return r;
        grow_host(s, h, note_at + s->note_len);
        size_t at = insert_phdr(s, PT_NOTE);
        if (at <= (size_t)h)
                h++;
        s->phoff = off;
        set_note_phdr(s, at, h, note_at, s->note_len);
        update_pt_phdr(s, h);
        s->res->placement = PKGNOTE_PLACE_MOVED_PHDRS;
        s->res->phdrs_moved = 1;
        return 1;
}

/* Symbols defined in section SEC (st_shndx) follow it by DELTA, so that
 * symbol tables keep pointing into it (__abi_tag lives in .note.ABI-tag). */
static void shift_symbols(struct stamp *s, size_t sec, uint64_t delta) {
        size_t ent = s->is64 ? 24 : 16;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *t = &s->sh[k];
                if ((t->type != SHT_SYMTAB && t->type != SHT_DYNSYM) || !pn_range_ok(t->offset, t->size, s->len))
                        continue;
                for (uint64_t o = t->offset; o + ent <= t->offset + t->size; o += ent) {
                        uint8_t *sym = s->b + o;
                        if (pn_rd16(sym + (s->is64 ? 6 : 14), s->be) != sec)
                                continue;
                        uint8_t *v = sym + (s->is64 ? 8 : 4);
                        put_word(v, get_word(v, s->is64, s->be) + delta, s->is64, s->be);
                }
        }
}

/* Sliding: the sections between the program header table and the first
 * section that must stay are .interp, notes and the dynamic tables
 * place_moving_tables() may move.  .interp (reached through PT_INTERP
 * only) and those tables move into padding of a read-only segment; the
 * notes slide down over the room, staying in the first page with their
 * PT_NOTE, PT_GNU_PROPERTY, sections and symbols.  Then either the new
 * note fits after them in the first page (GROW false), or the program
 * header table grows by one entry in place, for a PT_NOTE whose note
 * goes into padding (GROW true): the headers and the existing notes stay
 * in the first page, so core dumps keep the build-id. */
static int place_sliding(struct stamp *s, bool grow) {
        if (s->shnum == 0 || !phdrs_in_first_page(s) || (grow && s->phnum + 1 >= PN_XNUM))
                return 0;
        long l0 = -1;
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type == PT_LOAD && s->ph[i].offset == 0 && s->ph[i].vaddr % PAGE == 0)
                        l0 = (long)i;
        if (l0 < 0)
                return 0;
        const struct ph *L = &s->ph[l0];
        uint64_t P = s->phoff + (uint64_t)s->phnum * s->phentsize;
        uint64_t limit = L->filesz < FIRST_PAGE ? L->filesz : FIRST_PAGE;

        /* The run of sections from P, in file order. */
        size_t run[32], nrun = 0;
        uint64_t D = limit, cursor = P;
        for (;;) {
                long next = -1;
                for (size_t i = 1; i < s->shnum; i++) {
                        const struct sh *h = &s->sh[i];
                        if (h->type == SHT_NULL || h->type == SHT_NOBITS || h->size == 0 || h->offset < cursor)
                                continue;
                        if (next < 0 || h->offset < s->sh[next].offset)
                                next = (long)i;
                }
                if (next < 0 || s->sh[next].offset >= limit) {
                        /* The run may end past the first page; what
                         * stays in it is checked below. */
                        D = next < 0 ? (cursor > limit ? cursor : limit) : s->sh[next].offset;
                        break;
                }
                const struct sh *h = &s->sh[next];
                bool interp = !strcmp(section_name(s, (size_t)next), ".interp");
                if (!(h->flags & SHF_ALLOC) || (h->type != SHT_NOTE && !interp && !movable_tag(h->type)) ||
                    nrun == ELEMENTSOF(run)) {
                        D = h->offset;
                        break;
                }
                run[nrun++] = (size_t)next;
                cursor = h->offset + h->size;
        }
        if (cursor > D)
                return 0;
        /* Nothing but these may live in [P, D). */
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_LOAD || p->type == PT_NULL || p->type == PT_PHDR || p->filesz == 0 ||
                    p->offset + p->filesz <= P || p->offset >= D)
                        continue;
                if (p->type != PT_NOTE && p->type != PT_GNU_PROPERTY && p->type != PT_INTERP)
                        return 0;
        }

        /* New places: notes packed from the end of the (grown) table.
         * The shortest run that makes room is moved. */
        uint64_t newoff[32] = {0}, at = 0, last4 = 0, D_full = D;
        size_t nmove = 0, nnotes = 0, m;
        for (m = 1; m <= nrun; m++) {
                D = m < nrun ? s->sh[run[m]].offset : D_full;
                at = P + (grow ? s->phentsize : 0);
                last4 = 0;
                nmove = nnotes = 0;
                for (size_t k = 0; k < m; k++) {
                        const struct sh *h = &s->sh[run[k]];
                        if (h->type != SHT_NOTE) {
                                nmove++;
                                continue;
                        }
                        nnotes++;
                        newoff[k] = ALIGN_UP(at, h->align > 1 ? h->align : 1);
                        at = newoff[k] + h->size;
                        last4 = h->align <= 4 ? at : 0;
                }
                bool room = grow ? at <= D && at <= FIRST_PAGE : last4 && last4 + s->note_len <= D && last4 + s->note_len <= FIRST_PAGE;
                if (nmove && nnotes && room && (m == nrun || s->sh[run[m]].type != SHT_NOTE))
                        break;
        }
        if (m > nrun)
                return 0;
        nrun = m;
        /* A segment over several notes keeps them together. */
        long tail_seg = -1;
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if ((p->type != PT_NOTE && p->type != PT_GNU_PROPERTY) || p->offset < P || p->offset >= D)
                        continue;
                uint64_t delta = 0;
                bool first = true, covered = false;
                for (size_t k = 0; k < nrun; k++) {
                        const struct sh *h = &s->sh[run[k]];
                        if (h->offset < p->offset || h->offset + h->size > p->offset + p->filesz)
                                continue;
                        if (h->type != SHT_NOTE)
                                return 0;
                        if (!first && newoff[k] - h->offset != delta)
                                return 0;
                        delta = newoff[k] - h->offset;
                        first = false;
                        covered |= h->offset == p->offset;
                }
                if (!covered)
                        return 0;
                if (p->type == PT_NOTE && p->align <= 4 && p->offset + delta + p->filesz == last4)
                        tail_seg = (long)i;
        }
        uint64_t note_at = 0;
        if (!grow) {
                if (tail_seg < 0 || last4 == 0 || last4 % 4 || last4 + s->note_len > D || last4 + s->note_len > FIRST_PAGE)
                        return 0;
                note_at = last4;
        }

        /* Homes for what moves out, and (GROW) for the note. */
        uint64_t dest[32];
        long host[32], note_host = -1;
        s->reserved[0] = (struct range){P, D};
        s->n_reserved = 1;
        int r = 0;
        for (size_t k = 0; k < nrun && r == 0; k++) {
                const struct sh *h = &s->sh[run[k]];
                if (h->type == SHT_NOTE)
                        continue;
                uint64_t al = h->align ? h->align : 1;
                dest[k] = find_free(s, h->size, al, s->len, HOST_NO_EXEC, &host[k]);
                if (dest[k] == UINT64_MAX)
                        dest[k] = find_free(s, h->size, al, s->len, 0, &host[k]);
                if (dest[k] == UINT64_MAX || s->n_reserved == ELEMENTSOF(s->reserved))
                        r = 1;
                else
                        s->reserved[s->n_reserved++] = (struct range){dest[k], dest[k] + h->size};
        }
        if (r == 0 && grow) {
                note_at = find_free(s, s->note_len, 4, s->len, HOST_NO_EXEC, &note_host);
                if (note_at == UINT64_MAX)
                        note_at = find_free(s, s->note_len, 4, s->len, 0, &note_host);
                if (note_at == UINT64_MAX)
                        r = 1;
        }
        s->n_reserved = 0;
        if (r)
                return 0;
        /* The dynamic entries of the tables, before anything changes. */
        uint64_t dyn_at[32];
        for (size_t k = 0; k < nrun; k++) {
                const struct sh *h = &s->sh[run[k]];
                if (movable_tag(h->type) && dynamic_entry(s, movable_tag(h->type), h->addr, &dyn_at[k]) < 0)
                        return 0;
        }

        uint8_t *old = malloc(D - P ? D - P : 1);
        if (!old)
                return pn_error(-ENOMEM, "out of memory");
        memcpy(old, s->b + P, D - P);
        if ((r = buf_zero(s, P, D - P)) < 0)
                goto out;
        for (size_t k = 0; k < nrun; k++) {
                struct sh *h = &s->sh[run[k]];
                const uint8_t *bytes = old + (h->offset - P);
                uint64_t off, addr;
                if (h->type == SHT_NOTE) {
                        off = newoff[k];
                        addr = L->vaddr + off;
                } else {
                        off = dest[k];
                        grow_host(s, host[k], dest[k] + h->size);
                        addr = vaddr_of(s, host[k], off);
                        if (movable_tag(h->type))
                                put_word(s->b + dyn_at[k], addr, s->is64, s->be);
                        for (size_t i = 0; i < s->phnum; i++) {
                                struct ph *p = &s->ph[i];
                                if (p->type == PT_INTERP && p->offset == h->offset) {
                                        p->paddr += addr - p->vaddr;
                                        p->offset = off;
                                        p->vaddr = addr;
                                }
                        }
                }
                if ((r = buf_put(s, off, bytes, h->size)) < 0)
                        goto out;
                for (size_t i = 0; h->type == SHT_NOTE && i < s->phnum; i++) {
                        struct ph *p = &s->ph[i];
                        if ((p->type == PT_NOTE || p->type == PT_GNU_PROPERTY) && p->offset == h->offset) {
                                uint64_t delta = off - h->offset;
                                p->offset += delta;
                                p->vaddr += delta;
                                p->paddr += delta;
                        }
                }
                shift_symbols(s, run[k], addr - h->addr);
                h->offset = off;
                h->addr = addr;
        }
        s->res->tables_moved = 1;
        s->res->notes_moved = 1;
        if (!grow) {
                if ((r = write_note(s, note_at, s->note_len)) < 0)
                        goto out;
                s->ph[tail_seg].filesz += s->note_len;
                s->ph[tail_seg].memsz += s->note_len;
                s->res->placement = PKGNOTE_PLACE_AFTER_NOTES;
                r = 1;
                goto out;
        }
        if ((r = write_note(s, note_at, s->note_len)) < 0)
                goto out;
        grow_host(s, note_host, note_at + s->note_len);
        size_t n = insert_phdr(s, PT_NOTE);
        if (n <= (size_t)note_host)
                note_host++;
        if (n <= (size_t)l0)
                l0++;
        set_note_phdr(s, n, note_host, note_at, s->note_len);
        update_pt_phdr(s, l0);
        s->res->placement = PKGNOTE_PLACE_PADDING;
        r = 1;
out:
        free(old);
        return r;
}

/* Where the file's unloaded tail (section name table, section header
 * table) starts when nothing else follows it: there it may be rewritten. */
static uint64_t reusable_tail(const struct stamp *s, bool with_names) {
        if (s->shnum == 0)
                return s->len;
        uint64_t end_other = 0, table_end = s->shoff + (uint64_t)s->shnum_read * s->shentsize;
        const struct sh *names = s->shstrndx < s->shnum ? &s->sh[s->shstrndx] : NULL;
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type != PT_NULL && s->ph[i].offset + s->ph[i].filesz > end_other)
                        end_other = s->ph[i].offset + s->ph[i].filesz;
        for (size_t i = 0; i < s->shnum_read; i++) {
                const struct sh *h = &s->sh[i];
                if (h->type == SHT_NULL || h->type == SHT_NOBITS || (with_names && h == names))
                        continue;
                if (h->offset + h->size > end_other)
                        end_other = h->offset + h->size;
        }
        if (s->phoff + (uint64_t)s->phnum * s->phentsize > end_other)
                end_other = s->phoff + (uint64_t)s->phnum * s->phentsize;
        if (table_end != s->len || s->shoff < end_other)
                return s->len;
        uint64_t t = s->shoff;
        if (with_names && names && names->type != SHT_NOBITS && names->offset >= end_other &&
            names->offset + names->size <= s->shoff)
                t = names->offset;
        return t;
}

/* Drops the unloaded tail so new data can go there; the section name
 * table and section header table are written again after it. */
static int cut_tail(struct stamp *s, bool with_names) {
        if (s->tail_cut || s->shnum == 0)
                return 0;
        uint64_t t = reusable_tail(s, with_names);
        s->tail_cut = true;
        if (with_names)
                s->names_grew = true; /* rewritten after the new data either way */
        s->len = t;
        return 0;
}

/* The highest address a dynamic relocation reaches, counting the size of
 * the symbol it refers to: checkers (eu-elflint) take a relocation whose
 * r_offset + st_size runs into a read-only segment for a text relocation,
 * so a new segment starts beyond that. */
static uint64_t relocation_reach(const struct stamp *s) {
        uint64_t reach = 0;
        size_t w = s->is64 ? 8 : 4, syment = s->is64 ? 24 : 16;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *r = &s->sh[k];
                if ((r->type != SHT_RELA && r->type != SHT_REL) || !(r->flags & SHF_ALLOC) ||
                    !pn_range_ok(r->offset, r->size, s->len) || r->link >= s->shnum)
                        continue;
                const struct sh *sym = &s->sh[r->link];
                bool symtab_ok = sym->type != SHT_NOBITS && pn_range_ok(sym->offset, sym->size, s->len);
                size_t ent = (r->type == SHT_RELA ? 3 : 2) * w;
                for (uint64_t o = r->offset; o + ent <= r->offset + r->size; o += ent) {
                        uint64_t off = get_word(s->b + o, s->is64, s->be), info = get_word(s->b + o + w, s->is64, s->be);
                        uint64_t idx = s->is64 ? info >> 32 : info >> 8, size = 0;
                        if (symtab_ok && idx && (idx + 1) * syment <= sym->size)
                                size = get_word(s->b + sym->offset + idx * syment + (s->is64 ? 16 : 8), s->is64, s->be);
                        if (off + size > reach && off + size >= off)
                                reach = off + size;
                }
        }
        return reach;
}

static int place_appended(struct stamp *s, bool needs_section) {
        if (s->phnum + 2 >= PN_XNUM)
                return pn_error(-E2BIG, "too many program headers to add a segment");
        uint64_t palign = PAGE, vend = 0;
        long last_load = -1, first_load = -1;
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_LOAD)
                        continue;
                if (first_load < 0)
                        first_load = (long)i;
                if (p->align > palign)
                        palign = p->align;
                if (p->vaddr + p->memsz > vend)
                        vend = p->vaddr + p->memsz;
                last_load = (long)i;
        }
        if (last_load < 0 || (palign & (palign - 1)))
                return pn_error(-ENOSPC, "no loadable segment to add the note beside");
        if (needs_section)
                cut_tail(s, true);
        uint64_t off = ALIGN_UP(s->len, 8);
        /* Loaders that compute AT_PHDR as "first PT_LOAD's vaddr - offset
         * + e_phoff" (Linux before 5.18, qemu-user) need the table mapped
         * at that address: keep the new segment at the first PT_LOAD's
         * distance between offsets and addresses, padding the file up to
         * a page to get past the last segment's end.  Otherwise the
         * lowest free address congruent to the offset. */
        uint64_t base = s->ph[first_load].vaddr - s->ph[first_load].offset;
        uint64_t reach = relocation_reach(s);
        uint64_t vfree = ALIGN_UP((reach >= vend ? reach + 1 : vend), palign), vaddr;
        if (s->ph[first_load].offset == 0 && base % palign == 0 && base + off < vfree &&
            vfree - base - off + off % palign <= PAGE)
                off = vfree - base + off % palign;
        if (s->ph[first_load].offset == 0 && base % palign == 0 && base + off >= vfree + off % palign)
                vaddr = base + off;
        else
                vaddr = vfree + off % palign;
        uint64_t table = (uint64_t)(s->phnum + 2) * s->phentsize, note_at = off + ALIGN_UP(table, 4);
        uint64_t size = note_at + s->note_len - off;
        if (vaddr < vend || (!s->is64 && vaddr + size > UINT32_MAX))
                return pn_error(-ENOSPC, "no address space left for a new segment");
        int r = buf_resize(s, off + size);
        if (r < 0 || (r = write_note(s, note_at, s->note_len)) < 0)
                return r;
        size_t at = insert_phdr(s, PT_LOAD);
        s->ph[at] = (struct ph){.type = PT_LOAD, .flags = PF_R, .offset = off, .vaddr = vaddr, .paddr = vaddr,
                                .filesz = size, .memsz = size, .align = palign};
        long h = (long)at;
        size_t n = insert_phdr(s, PT_NOTE);
        if (n <= (size_t)h)
                h++;
        set_note_phdr(s, n, h, note_at, s->note_len);
        s->phoff = off;
        update_pt_phdr(s, h);
        s->res->placement = PKGNOTE_PLACE_APPENDED;
        s->res->phdrs_moved = 1;
        return 1;
}

/* ------------------------------------------------------------------ */
/* Sections                                                            */

static long find_section(const struct stamp *s, const char *name, uint32_t type) {
        for (size_t i = 1; i < s->shnum; i++)
                if (s->sh[i].type == type && !strcmp(section_name(s, i), name))
                        return (long)i;
        return -1;
}

/* The offset of NAME in the section name table, appended when missing. */
static uint32_t name_offset(struct stamp *s, const char *name) {
        size_t len = strlen(name) + 1;
        for (uint64_t i = 0; s->names && i + len <= s->names_len; i++)
                if (!memcmp(s->names + i, name, len))
                        return (uint32_t)i;
        uint32_t at = (uint32_t)s->names_len;
        memcpy(s->names + s->names_len, name, len); /* room reserved at read time */
        s->names_len += len;
        s->names_grew = true;
        return at;
}

/* Appends section data and, when needed, the name table and the
 * section header table at the end of the result. */
static int rewrite_section_tail(struct stamp *s) {
        if (!s->names_grew && !s->table_grew)
                return 0;
        cut_tail(s, s->names_grew);
        int r;
        if (s->names_grew && s->shstrndx < s->shnum) {
                struct sh *t = &s->sh[s->shstrndx];
                uint64_t off = s->len;
                if ((r = buf_resize(s, off + s->names_len)) < 0 || (r = buf_put(s, off, s->names, s->names_len)) < 0)
                        return r;
                t->offset = off;
                t->size = s->names_len;
        }
        uint64_t off = ALIGN_UP(s->len, s->is64 ? 8 : 4);
        if ((r = buf_resize(s, off + (uint64_t)s->shnum * s->shentsize)) < 0)
                return r;
        s->shoff = off;
        return 0;
}

/* Points section NOTE_SECTION (or a new .note.package) at the note. */
static int cover_note_with_section(struct stamp *s, uint64_t addr) {
        if (s->shnum == 0 || !s->names || s->shstrndx >= s->shnum)
                return 0;
        long k = s->note_section;
        if (k < 0)
                k = find_section(s, note_section_name, SHT_NOTE);
        if (k < 0) {
                if (s->shnum + 1 >= SHN_LORESERVE)
                        return pn_error(-E2BIG, "too many sections to add one");
                k = (long)s->shnum++;
                s->sh[k] = (struct sh){.name = name_offset(s, note_section_name)};
                s->table_grew = true;
        }
        struct sh *h = &s->sh[k];
        h->type = SHT_NOTE;
        h->flags = SHF_ALLOC;
        h->addr = addr;
        h->offset = s->res->note_offset;
        h->size = s->res->note_size;
        h->align = 4;
        h->entsize = 0;
        return rewrite_section_tail(s);
}

/* After removal: an emptied .note.package that is the last section goes. */
static int drop_empty_note_section(struct stamp *s) {
        long k = s->note_section;
        if (k < 0 || s->sh[k].size > 0)
                return 0;
        if ((size_t)k == s->shnum - 1 && (uint32_t)k != s->shstrndx && !strcmp(section_name(s, (size_t)k), note_section_name)) {
                s->shnum--;
                if (s->shoff + (uint64_t)(s->shnum + 1) * s->shentsize == s->len)
                        s->len -= s->shentsize;
        }
        return 0;
}

/* ------------------------------------------------------------------ */
/* Linked files                                                        */

static const pkgnote_note *primary_note(pkgnote_elf *e) {
        const pkgnote_note *n;
        int c = pkgnote_elf_notes(e, &n);
        for (int i = 0; i < c; i++)
                if (is_package(&n[i]))
                        return &n[i];
        return NULL;
}

static int stamp_linked(struct stamp *s, bool remove) {
        bool any_load = false;
        for (size_t i = 0; i < s->phnum; i++)
                any_load |= s->ph[i].type == PT_LOAD;
        if (!any_load)
                return pn_error(-ENOSPC, "no loadable segment: nothing would map the note");
        const pkgnote_note *old = primary_note(s->e);

        /* Over the old note, in its room. */
        if (!remove && old && (old->where & PKGNOTE_NOTE_IN_SEGMENT) && old->size >= s->note_len &&
            old->size % 4 == 0 && old->namesz == 4) {
                int r = write_note(s, old->offset, old->size);
                if (r < 0)
                        return r;
                s->res->placement = PKGNOTE_PLACE_REPLACED;
                return flush_tables(s);
        }

        int removed = remove_segment_notes(s);
        if (removed < 0)
                return removed;
        if (remove) {
                s->res->placement = removed ? PKGNOTE_PLACE_REMOVED : PKGNOTE_PLACE_NONE;
                drop_empty_note_section(s);
                return flush_tables(s);
        }

        int r = 0;
        long seg = phdrs_in_first_page(s) ? first_page_note_segment(s) : -1;
        if (seg >= 0)
                r = place_after_notes(s, seg);
        if (r == 0 && phdrs_in_first_page(s))
                r = place_in_slot(s, true);
        if (r == 0 && seg >= 0)
                r = place_merged(s, seg);
        if (r == 0 && seg >= 0)
                r = place_moving_tables(s, seg);
        if (r == 0 && phdrs_in_first_page(s))
                r = place_moving_phdrs(s);
        if (r == 0)
                r = place_sliding(s, false);
        if (r == 0)
                r = place_in_slot(s, false);
        if (r == 0)
                r = place_sliding(s, true);
        bool needs_section = s->shnum > 0 && s->note_section < 0 && find_section(s, note_section_name, SHT_NOTE) < 0;
        if (r == 0)
                r = place_appended(s, needs_section);
        if (r < 0)
                return r;

        /* The note's address, from the PT_LOAD that maps it. */
        uint64_t addr = 0;
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_LOAD && s->res->note_offset >= p->offset &&
                    s->res->note_offset + s->res->note_size <= p->offset + p->filesz)
                        addr = p->vaddr + (s->res->note_offset - p->offset);
        }
        if ((r = cover_note_with_section(s, addr)) < 0)
                return r;
        return flush_tables(s);
}

/* ------------------------------------------------------------------ */
/* Relocatable objects                                                 */

/* Sections that hold package notes and nothing else. */
static bool package_only_section(const struct stamp *s, size_t k, const pkgnote_note *n, int nn) {
        const struct sh *h = &s->sh[k];
        if (h->type != SHT_NOTE || h->size == 0)
                return false;
        int found = 0;
        uint64_t covered = 0;
        for (int i = 0; i < nn; i++) {
                if (n[i].offset < h->offset || n[i].offset >= h->offset + h->size)
                        continue;
                if (!is_package(&n[i]))
                        return false;
                found++;
                covered += n[i].size;
        }
        return found > 0 && covered == h->size;
}

static int stamp_relocatable(struct stamp *s, bool remove) {
        if (s->shnum == 0 || s->shstrndx >= s->shnum || !s->names)
                return pn_error(-EBADMSG, "relocatable object without section headers or section names");
        const pkgnote_note *notes;
        int nn = pkgnote_elf_notes(s->e, &notes), r;
        if (nn < 0)
                return nn;
        long first = -1;
        int removed = 0;
        for (size_t k = 1; k < s->shnum; k++) {
                if (!package_only_section(s, k, notes, nn))
                        continue;
                if (first < 0 || s->sh[k].offset < s->sh[first].offset)
                        first = (long)k;
        }
        if (remove) {
                for (size_t k = 1; k < s->shnum; k++) {
                        if (!package_only_section(s, k, notes, nn))
                                continue;
                        if ((r = buf_zero(s, s->sh[k].offset, s->sh[k].size)) < 0)
                                return r;
                        s->sh[k].size = 0;
                        removed++;
                        s->note_section = (long)k;
                }
                s->res->placement = removed ? PKGNOTE_PLACE_REMOVED : PKGNOTE_PLACE_NONE;
                drop_empty_note_section(s);
                return flush_tables(s);
        }
        if (first >= 0 && s->sh[first].size >= s->note_len) {
                struct sh *h = &s->sh[first];
                if ((r = buf_zero(s, h->offset, h->size)) < 0 || (r = buf_put(s, h->offset, s->note, s->note_len)) < 0)
                        return r;
                h->size = s->note_len;
                h->flags |= SHF_ALLOC;
                s->res->note_offset = h->offset;
                s->res->note_size = s->note_len;
                s->res->placement = PKGNOTE_PLACE_REPLACED;
                return flush_tables(s);
        }
        if (first >= 0) {
                if ((r = buf_zero(s, s->sh[first].offset, s->sh[first].size)) < 0)
                        return r;
                s->note_section = first;
        }
        bool needs_name = first < 0 && find_section(s, note_section_name, SHT_NOTE) < 0;
        if (first < 0 && !needs_name)
                s->note_section = find_section(s, note_section_name, SHT_NOTE);
        if (first < 0 && needs_name && s->shnum + 1 >= SHN_LORESERVE)
                return pn_error(-E2BIG, "too many sections to add one");
        cut_tail(s, needs_name);
        uint64_t off = ALIGN_UP(s->len, 4);
        if ((r = buf_resize(s, off + s->note_len)) < 0 || (r = write_note(s, off, s->note_len)) < 0)
                return r;
        s->res->placement = PKGNOTE_PLACE_SECTION;
        s->table_grew = true; /* the table is rewritten after the data */
        if ((r = cover_note_with_section(s, 0)) < 0)
                return r;
        return flush_tables(s);
}

/* ------------------------------------------------------------------ */
/* Checking the result                                                 */

static bool same_note(const pkgnote_note *a, const pkgnote_note *b) {
        return a->type == b->type && a->namesz == b->namesz && a->descsz == b->descsz &&
               !memcmp(a->name, b->name, a->namesz) && !memcmp(a->desc, b->desc, a->descsz);
}

/* Parses the result back: the note is there (or gone), every other note
 * and the build-id are still there, and still in the first page when
 * they were; no PT_LOAD moved or shrank. */
static int verify(const struct stamp *s, const uint8_t *out, size_t out_len, const char *json, bool remove) {
        pkgnote_elf *o = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_elf_from_memory(out, out_len, &o);
        if (r < 0)
                return pn_error(-EBADMSG, "the result does not parse: %s", pkgnote_last_error());
        const pkgnote_note *on, *in;
        int non = pkgnote_elf_notes(o, &on), nin = pkgnote_elf_notes(s->e, &in);
        if (non < 0 || nin < 0 || (r = pkgnote_info_read(o, &info)) < 0) {
                r = pn_error(-EBADMSG, "the result's notes do not parse");
                goto out;
        }
        size_t count = pkgnote_info_package_note_count(info);
        if (remove) {
                for (int i = 0; i < non; i++)
                        if (is_package(&on[i]) && (on[i].where & PKGNOTE_NOTE_IN_SEGMENT)) {
                                r = pn_error(-EBADMSG, "a package note is left at offset 0x%llx",
                                             (unsigned long long)on[i].offset);
                                goto out;
                        }
        } else {
                const pkgnote_note *p = count ? pkgnote_info_package_note(info, 0) : NULL;
                const char *j = count ? pkgnote_info_package_json(info, 0) : NULL;
                if (!p || !j || strcmp(j, json) || p->offset != s->res->note_offset) {
                        r = pn_error(-EBADMSG, "the result's primary package note is not the new one");
                        goto out;
                }
                unsigned want = s->type == ET_REL ? PKGNOTE_NOTE_IN_SECTION : PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_LOADED;
                if ((p->where & want) != want) {
                        r = pn_error(-EBADMSG, "the new note is not reachable as it should be");
                        goto out;
                }
                s->res->first_page = s->type != ET_REL && (p->where & PKGNOTE_NOTE_FIRST_PAGE);
        }
        for (int i = 0; i < nin; i++) {
                if (is_package(&in[i]))
                        continue;
                /* Still reachable the ways it was, maybe through copies. */
                unsigned mask = PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION | PKGNOTE_NOTE_LOADED |
                                (s->res->phdrs_first_page ? PKGNOTE_NOTE_FIRST_PAGE : 0);
                unsigned seen = 0;
                for (int k = 0; k < non; k++)
                        if (same_note(&in[i], &on[k]))
                                seen |= on[k].where;
                bool kept = (in[i].where & mask & seen) == (in[i].where & mask);
                if (!kept) {
                        r = pn_error(-EBADMSG, "the note at offset 0x%llx was lost", (unsigned long long)in[i].offset);
                        goto out;
                }
        }
        const pkgnote_phdr *ip, *op;
        int nip = pkgnote_elf_phdrs(s->e, &ip), nop = pkgnote_elf_phdrs(o, &op);
        for (int i = 0; i < nip; i++) {
                if (ip[i].type != PT_LOAD)
                        continue;
                bool kept = false;
                for (int k = 0; k < nop && !kept; k++)
                        kept = op[k].type == PT_LOAD && op[k].vaddr == ip[i].vaddr && op[k].offset == ip[i].offset &&
                               op[k].flags == ip[i].flags && op[k].filesz >= ip[i].filesz && op[k].memsz >= ip[i].memsz &&
                               op[k].memsz - op[k].filesz == ip[i].memsz - ip[i].filesz;
                if (!kept) {
                        r = pn_error(-EBADMSG, "loadable segment %d changed", i);
                        goto out;
                }
        }
        r = 0;
out:
        pkgnote_info_free(info);
        pkgnote_elf_free(o);
        return r;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

/* Validates the JSON as every generator does and encodes the note. */
static int encode_note(const char *json, bool be, uint8_t **note, size_t *len) {
        if (!json)
                return pn_error(-EINVAL, "no JSON given");
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, strlen(json), &m);
        if (r < 0)
                return r == -E2BIG ? r : pn_error(-EINVAL, "%s", pkgnote_last_error());
        char *check;
        r = pkgnote_metadata_to_json(m, &check); /* refuses control characters */
        pkgnote_metadata_free(m);
        if (r < 0)
                return r;
        free(check);
        return pkgnote_package_note_encode(json, be, note, len);
}

/* The length of the ELF object before a kernel module's appended
 * signature, or SIZE when there is none. */
static int module_signature(const uint8_t *d, size_t size, size_t *elf_len) {
        size_t ml = sizeof module_sig_magic - 1;
        if (size < ml + 12 || memcmp(d + size - ml, module_sig_magic, ml)) {
                *elf_len = size;
                return 0;
        }
        /* struct module_signature: algo, hash, id_type, signer_len,
         * key_id_len, 3 bytes of padding, big-endian sig_len. */
        const uint8_t *ms = d + size - ml - 12;
        uint64_t total = (uint64_t)ml + 12 + ms[3] + ms[4] + pn_rd32(ms + 8, true);
        if (total > size)
                return pn_error(-EBADMSG, "malformed module signature trailer");
        *elf_len = size - (size_t)total;
        return 1;
}

static void release_buffer(uint8_t *b, uint64_t cap, bool mapped) {
        if (mapped)
                munmap(b, (size_t)cap);
        else
                free(b);
}

/* Maps the file FD privately at a fresh address with ROOM bytes of
 * anonymous memory after it: writes copy only the pages they touch, so a
 * large file is not copied as a whole. */
static uint8_t *map_for_output(int fd, size_t len, size_t room, uint64_t *cap) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), total = len + room;
        total = (total + page - 1) / page * page;
        uint8_t *b = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
                return NULL;
        if (len && mmap(b, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
                munmap(b, total);
                return NULL;
        }
#ifdef MADV_POPULATE_READ
        (void)madvise(b, len, MADV_POPULATE_READ); /* one call instead of a fault per page */
#endif
        *cap = total;
        return b;
}

/* Stamps DATA.  MAP_FD >= 0: the file DATA was read from, whose private
 * mapping then holds the result (*RET_MAPPED, RET_CAP bytes to unmap). */
static int stamp_run(const void *data, size_t size, const char *json, unsigned flags, int map_fd, uint8_t **ret,
                     size_t *ret_len, bool *ret_mapped, uint64_t *ret_cap, pkgnote_stamp_result *result) {
        bool remove = flags & PKGNOTE_STAMP_REMOVE;
        pkgnote_stamp_result res = {0};
        struct stamp s = {.note_section = -1, .res = &res};
        uint8_t *note = NULL;
        size_t elf_len = size;
        if (!data && size)
                return pn_error(-EINVAL, "no data");
        int r = module_signature(data, size, &elf_len);
        if (r < 0)
                return r;
        if (r > 0) {
                if (!(flags & PKGNOTE_STAMP_FORCE))
                        return pn_error(-EPERM, "kernel module with an appended signature, which stamping would invalidate (force to drop it and sign again)");
                res.signature_removed = 1;
        }
        r = pkgnote_elf_from_memory(data, elf_len, &s.e);
        if (r < 0)
                return r;
        s.is64 = pkgnote_elf_class(s.e) == 64;
        s.be = pkgnote_elf_big_endian(s.e);
        s.type = pkgnote_elf_type(s.e);
        s.in_len = size;
        if (s.type == ET_CORE) {
                r = pn_error(-EINVAL, "a core file, not a program: nothing to stamp");
                goto out;
        }
        if (s.type != ET_REL && s.type != ET_EXEC && s.type != ET_DYN) {
                r = pn_error(-EINVAL, "ELF type %u is not an executable, shared object or relocatable object", s.type);
                goto out;
        }
        if (!remove && (r = encode_note(json, s.be, &note, &s.note_len)) < 0)
                goto out;
        s.note = note;
        if ((r = read_phdrs(&s)) < 0 || (r = read_shdrs(&s)) < 0)
                goto out;
        /* Room for what may be appended (a segment, the section tables)
         * up front, so the copy is made once and never moved. */
        uint64_t room = 65536 + 2 * (uint64_t)s.note_len + (uint64_t)s.shnum * s.shentsize +
                        (uint64_t)(s.phnum + 2) * s.phentsize + s.names_len;
        if (map_fd >= 0 && room < SIZE_MAX - elf_len && (s.b = map_for_output(map_fd, elf_len, (size_t)room, &s.cap)))
                s.mapped = true;
        else {
                if ((r = buf_reserve(&s, (uint64_t)elf_len + room)) < 0)
                        goto out;
                memcpy(s.b, data, elf_len);
        }
        s.len = elf_len;

        r = s.type == ET_REL ? stamp_relocatable(&s, remove) : stamp_linked(&s, remove);
        if (r < 0)
                goto out;
        if (s.type != ET_REL)
                res.phdrs_first_page = phdrs_in_first_page(&s);
        res.relocatable = s.type == ET_REL;
        if (remove)
                res.note_offset = res.note_size = 0;
        if (res.placement != PKGNOTE_PLACE_NONE && s.len == size && !memcmp(s.b, data, size))
                res.placement = PKGNOTE_PLACE_UNCHANGED;
        if ((r = verify(&s, s.b, (size_t)s.len, json, remove)) < 0)
                goto out;
        res.size = s.len;
        res.bytes_added = (int64_t)s.len - (int64_t)size;
        *ret = s.b;
        *ret_len = (size_t)s.len;
        *ret_mapped = s.mapped;
        *ret_cap = s.cap;
        s.b = NULL;
        if (result)
                *result = res;
        r = 0;
out:
        free(note);
        if (s.b)
                release_buffer(s.b, s.cap, s.mapped);
        free(s.ph);
        free(s.sh);
        free(s.names);
        pkgnote_elf_free(s.e);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_stamp_memory(const void *data, size_t size, const char *json, unsigned flags,
                                        uint8_t **ret, size_t *ret_len, pkgnote_stamp_result *result) {
        bool mapped;
        uint64_t cap;
        return stamp_run(data, size, json, flags, -1, ret, ret_len, &mapped, &cap, result);
}

PKGNOTE_PUBLIC const char *pkgnote_stamp_placement_name(int placement) {
        static const char *const names[] = {
                [PKGNOTE_PLACE_NONE] = "none",
                [PKGNOTE_PLACE_UNCHANGED] = "unchanged",
                [PKGNOTE_PLACE_REPLACED] = "replaced",
                [PKGNOTE_PLACE_AFTER_NOTES] = "after-notes",
                [PKGNOTE_PLACE_MERGED] = "merged",
                [PKGNOTE_PLACE_FREE_SLOT] = "free-slot",
                [PKGNOTE_PLACE_MOVED_PHDRS] = "moved-phdrs",
                [PKGNOTE_PLACE_PADDING] = "padding",
                [PKGNOTE_PLACE_APPENDED] = "appended",
                [PKGNOTE_PLACE_SECTION] = "section",
                [PKGNOTE_PLACE_REMOVED] = "removed",
        };
        return placement >= 0 && (size_t)placement < ELEMENTSOF(names) ? names[placement] : NULL;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static int write_all(int fd, const uint8_t *p, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return pn_error(-errno, "cannot write the temporary file: %s", strerror(errno));
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

static int read_all(int fd, uint8_t *p, size_t len, uint64_t off) {
        size_t done = 0;
        while (done < len) {
                ssize_t k = pread(fd, p + done, len - done, (off_t)(off + done));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return pn_error(-errno, "read failed: %s", strerror(errno));
                if (k == 0)
                        return pn_error(-EIO, "file shrank while being read");
                done += (size_t)k;
        }
        return 0;
}

/* Copies every extended attribute (security.capability, ACLs, SELinux
 * labels, user.*) from SRC to DST.  Called after fchown(), which drops
 * security.capability. */
static int copy_xattrs(int src, int dst) {
        ssize_t n = flistxattr(src, NULL, 0);
        if (n < 0)
                return errno == ENOTSUP ? 0 : pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        if (n == 0)
                return 0;
        char *names = malloc((size_t)n), *value = NULL;
        if (!names)
                return pn_error(-ENOMEM, "out of memory");
        int r = 0;
        n = flistxattr(src, names, (size_t)n);
        if (n < 0)
                r = pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        for (ssize_t i = 0; r == 0 && i < n; i += (ssize_t)strlen(names + i) + 1) {
                const char *name = names + i;
                ssize_t vl = fgetxattr(src, name, NULL, 0);
                char *v = vl > 0 ? realloc(value, (size_t)vl) : value;
                if (vl > 0 && !v) {
                        r = pn_error(-ENOMEM, "out of memory");
                        break;
                }
                value = v;
                if (vl < 0 || (vl > 0 && (vl = fgetxattr(src, name, value, (size_t)vl)) < 0))
                        r = pn_error(-errno, "cannot read extended attribute %s: %s", name, strerror(errno));
                else if (fsetxattr(dst, name, value, (size_t)vl, 0) < 0)
                        r = pn_error(-errno, "cannot keep extended attribute %s: %s", name, strerror(errno));
        }
        free(value);
        free(names);
        return r;
}

/* Reads the temporary file back as a reader would: its size, and the
 * library finds the note in it (or none after removal).  Only the
 * headers and the notes are read, not the whole file again. */
static int read_back(int fd, size_t len, const char *json) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return pn_error(-errno, "cannot stat the temporary file: %s", strerror(errno));
        if ((uint64_t)st.st_size != len)
                return pn_error(-EIO, "the temporary file has %llu bytes, not %zu", (unsigned long long)st.st_size, len);
        pkgnote_elf *e = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_elf_open_fd(fd, &e);
        if (r == 0 && (r = pkgnote_info_read(e, &info)) == 0) {
                size_t n = pkgnote_info_package_count(info);
                if (json ? n == 0 || strcmp(pkgnote_info_package_json(info, 0), json) : n > 0 &&
                           pkgnote_info_package_note(info, 0)->where & PKGNOTE_NOTE_IN_SEGMENT)
                        r = pn_error(-EIO, "the temporary file does not hold the expected note");
        }
        if (r < 0 && r != -EIO)
                r = pn_error(-EIO, "the temporary file does not read back: %s", pkgnote_last_error());
        pkgnote_info_free(info);
        pkgnote_elf_free(e);
        return r;
}

/* Writes DATA to DEST through a temporary file beside it.  IN_PLACE: DEST
 * is the input (SRC, described by ST), whose owner, mode, extended
 * attributes and timestamps the new file takes; otherwise only the
 * permission bits. */
static int write_atomic(const char *dest, const uint8_t *data, size_t len, int src, const struct stat *st,
                        bool in_place, const char *json) {
        const char *slash = strrchr(dest, '/');
        size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0;
        const char *base = slash ? slash + 1 : dest;
        if (!*base)
                return pn_error(-EISDIR, "names a directory");
        size_t tlen = dirlen + strlen(base) + sizeof "..pkgnote-XXXXXX";
        char *tmp = malloc(tlen);
        if (!tmp)
                return pn_error(-ENOMEM, "out of memory");
        snprintf(tmp, tlen, "%.*s.%s.pkgnote-XXXXXX", (int)dirlen, dest, base);
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                int r = pn_error(-errno, "cannot create a temporary file beside it: %s", strerror(errno));
                free(tmp);
                return r;
        }
        int r = write_all(fd, data, len);
        if (r == 0 && in_place && fchown(fd, st->st_uid, st->st_gid) < 0)
                r = pn_error(-errno, "cannot keep the owner: %s", strerror(errno));
        if (r == 0 && fchmod(fd, in_place ? st->st_mode & 07777 : st->st_mode & 0777) < 0)
                r = pn_error(-errno, "cannot keep the mode: %s", strerror(errno));
        if (r == 0 && in_place)
                r = copy_xattrs(src, fd);
        if (r == 0 && fsync(fd) < 0)
                r = pn_error(-errno, "cannot sync the temporary file: %s", strerror(errno));
        if (r == 0)
                r = read_back(fd, len, json);
        if (r == 0 && in_place) {
                const struct timespec times[2] = {st->st_atim, st->st_mtim};
                if (futimens(fd, times) < 0)
                        r = pn_error(-errno, "cannot keep the timestamps: %s", strerror(errno));
        }
        if (close(fd) < 0 && r == 0)
                r = pn_error(-errno, "cannot write the temporary file: %s", strerror(errno));
        if (r == 0 && rename(tmp, dest) < 0)
                r = pn_error(-errno, "cannot rename the temporary file onto it: %s", strerror(errno));
        if (r < 0) {
                unlink(tmp);
                free(tmp);
                return r;
        }
        free(tmp);
        /* The directory is not synced: the new file's bytes are on disk
         * before the rename, so after a crash the name holds either the
         * old file or the whole new one, which is the promise; syncing the
         * directory too would double the cost of stamping small files. */
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_stamp_file(const char *path, const char *output, const char *json, unsigned flags,
                                      pkgnote_stamp_result *result) {
        if (!path)
                return pn_error(-EINVAL, "no file given");
        /* A symbolic link is followed: its target is what gets stamped. */
        char *target = realpath(path, NULL);
        if (!target)
                return pn_error(-errno, "cannot resolve: %s", strerror(errno));
        uint8_t *in = NULL, *out = NULL;
        size_t in_len = 0, out_len = 0;
        bool in_mapped = false, out_mapped = false;
        uint64_t out_cap = 0;
        int r, fd = open(target, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                r = pn_error(-errno, "cannot open: %s", strerror(errno));
                goto out;
        }
        struct stat st, ost;
        if (fstat(fd, &st) < 0) {
                r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r = pn_error(-EINVAL, "not a regular file");
                goto out;
        }
        bool in_place = !output || !strcmp(output, path) ||
                        (stat(output, &ost) == 0 && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino);
        if (in_place) {
                struct statvfs sv;
                if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
                        r = pn_error(-EROFS, "lies on a read-only file system");
                        goto out;
                }
                if (!(flags & PKGNOTE_STAMP_FORCE)) {
                        if (st.st_nlink > 1) {
                                r = pn_error(-EMLINK, "has %ju hard links; the other names would keep the unstamped file (force to stamp this name alone)",
                                             (uintmax_t)st.st_nlink);
                                goto out;
                        }
                        /* root may write anything: judge by the mode bits. */
                        if (geteuid() == 0 ? !(st.st_mode & 0222) : access(target, W_OK) < 0) {
                                r = pn_error(-EROFS, "is read-only (force to stamp it anyway)");
                                goto out;
                        }
                }
        }
        if ((uint64_t)st.st_size > SIZE_MAX - 1) {
                r = pn_error(-E2BIG, "too large to stamp here");
                goto out;
        }
        /* Large files are mapped, not copied: the result shares the
         * input's pages except those it changes.  (Truncating the file
         * while it is being stamped is then fatal, SIGBUS, as for any
         * program mapping it.) */
        in_len = (size_t)st.st_size;
        if (in_len >= MAP_THRESHOLD) {
                in = mmap(NULL, in_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
                if (in == MAP_FAILED)
                        in = NULL;
                else
                        in_mapped = true;
        }
        if (!in) {
                if (!(in = malloc(in_len ? in_len : 1))) {
                        r = pn_error(-ENOMEM, "out of memory");
                        goto out;
                }
                if ((r = read_all(fd, in, in_len, 0)) < 0)
                        goto out;
        }
        pkgnote_stamp_result res;
        if ((r = stamp_run(in, in_len, json, flags, in_mapped ? fd : -1, &out, &out_len, &out_mapped, &out_cap, &res)) < 0)
                goto out;
        bool same = res.placement == PKGNOTE_PLACE_UNCHANGED || res.placement == PKGNOTE_PLACE_NONE;
        if (!(in_place && same)) {
                const char *dest = in_place ? target : output;
                r = write_atomic(dest, out, out_len, fd, &st, in_place,
                                 flags & PKGNOTE_STAMP_REMOVE ? NULL : json);
                if (r < 0)
                        goto out;
        }
        if (result)
                *result = res;
        r = 0;
out:
        if (fd >= 0)
                close(fd);
        if (in_mapped)
                munmap(in, in_len);
        else
                free(in);
        if (out)
                release_buffer(out, out_cap, out_mapped);
        free(target);
        return r;
}
