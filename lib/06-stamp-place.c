/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Placements of the note (package or dlopen) in linked files (ET_EXEC, ET_DYN), in
 * the order lib/06-stamp.c tries them, and the free space they use: unused
 * zero bytes that a read-only PT_LOAD maps, or may map by growing over
 * padding inside pages it already maps.  Existing notes, .interp and the
 * program headers' place in the first page never change; the tables of
 * dynamic linking move in 06-stamp-tables.c; PT_LOAD addresses never
 * change.
 */
#include <stdlib.h>
#include <string.h>

#include "06-stamp-private.h"

/* ------------------------------------------------------------------ */
/* Free space                                                          */

static int cmp_range(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        return x->a < y->a ? -1 : x->a > y->a;
}

/* Everything in the result that holds bytes someone reads: headers,
 * tables, sections, segments other than PT_LOAD (whose contents the
 * sections describe; without section headers, PT_LOADs count whole). */
int pn_stamp_occupied(const struct stamp *s, struct range **ret, size_t *ret_n) {
        size_t cap = 4 + ELEMENTSOF(s->reserved) + s->phnum + s->shnum, n = 0;
        struct range *r = calloc(cap, sizeof *r);
        if (!r)
                return pn_oom();
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

bool pn_stamp_overlaps_any(const struct range *occ, size_t n, uint64_t a, uint64_t b) {
        for (size_t i = 0; i < n; i++)
                if (occ[i].a < b && a < occ[i].b)
                        return true;
        return false;
}

/* The PT_LOAD that maps bytes [a, b) once grown over them, or -1.  It
 * must be readable and not writable, and growing it (only over its
 * padding, only when it has no bss) must stay inside pages it already
 * maps and away from every other PT_LOAD. */
long pn_stamp_host_for(const struct stamp *s, uint64_t a, uint64_t b, unsigned how) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_LOAD || !(p->flags & PF_R) || (p->flags & PF_W))
                        continue;
                if ((how & HOST_NO_EXEC) && (p->flags & PF_X))
                        continue;
                if ((how & HOST_FIRST_PAGE) && (p->offset != 0 || b > PN_FIRST_PAGE))
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
 * PT_LOAD maps (see pn_stamp_host_for()); returns the offset or UINT64_MAX. */
static uint64_t find_free(struct stamp *s, uint64_t size, uint64_t align, uint64_t limit, unsigned how,
                          long *host) {
        struct range *occ, *real;
        size_t n, nreal;
        if (pn_stamp_occupied(s, &occ, &n) < 0)
                return UINT64_MAX;
        /* Growing a PT_LOAD over bytes reserved for other new data is
         * fine; over anything already there it is not. */
        size_t keep = s->n_reserved;
        s->n_reserved = 0;
        int r = pn_stamp_occupied(s, &real, &nreal);
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
                        long h = pn_stamp_host_for(s, a, a + size, how);
                        if (h >= 0) {
                                const struct ph *p = &s->ph[h];
                                uint64_t end = p->offset + p->filesz;
                                uint64_t z = a < end ? a : end; /* growing maps [end, a) too */
                                if (!pn_stamp_overlaps_any(occ, n, a, a + size) && !pn_stamp_overlaps_any(real, nreal, z, a) &&
                                    pn_stamp_is_zero(s, z, a + size)) {
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

/* A home for SIZE bytes anywhere in the file: padding of a segment that
 * is not executable when there is some, else of any read-only one. */
uint64_t pn_stamp_find_home(struct stamp *s, uint64_t size, uint64_t align, long *host) {
        uint64_t off = find_free(s, size, align, s->len, HOST_NO_EXEC, host);
        return off != UINT64_MAX ? off : find_free(s, size, align, s->len, 0, host);
}

/* Grows PT_LOAD H over [a, b) when needed. */
void pn_stamp_grow_host(struct stamp *s, long h, uint64_t b) {
        struct ph *p = &s->ph[h];
        if (b > p->offset + p->filesz)
                p->filesz = p->memsz = b - p->offset;
}

uint64_t pn_stamp_vaddr_of(const struct stamp *s, long h, uint64_t off) {
        return s->ph[h].vaddr + (off - s->ph[h].offset);
}
static uint64_t paddr_of(const struct stamp *s, long h, uint64_t off) {
        return s->ph[h].paddr + (off - s->ph[h].offset);
}

/* ------------------------------------------------------------------ */
/* Placements for linked files                                         */

/* Unless the program headers are in the first page, nothing is. */
bool pn_stamp_phdrs_in_first_page(const struct stamp *s) {
        return s->phoff + (uint64_t)s->phnum * s->phentsize <= PN_FIRST_PAGE;
}

/* The PT_NOTE with the 4-byte aligned notes in the first page, mapped
 * by the PT_LOAD at file offset 0. */
long pn_stamp_first_page_note_segment(const struct stamp *s) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_NOTE || p->align > 4 || p->filesz == 0 || p->offset % 4 ||
                    p->offset + p->filesz > PN_FIRST_PAGE)
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

/* Whether [Z, B) is zero but for the bytes of the sections VACATING
 * (per section, or NULL), which are cleared when they move. */
static bool zero_but_vacating(const struct stamp *s, uint64_t z, uint64_t b, const bool *vacating) {
        if (b < z || b > s->len)
                return false;
        for (uint64_t x = z; x < b; x++) {
                if (!s->b[x])
                        continue;
                bool cleared = false;
                for (size_t i = 0; vacating && i < s->shnum && !cleared; i++)
                        cleared = vacating[i] && x >= s->sh[i].offset && x - s->sh[i].offset < s->sh[i].size;
                if (!cleared)
                        return false;
        }
        return true;
}

/* Whether the note fits right after the PT_NOTE SEG once the sections
 * VACATING (per section, or NULL) have moved away: a first-page segment
 * maps the room, nothing else uses it and it is zero.  The host in *HOST
 * (when not NULL).
 * Moving tables asks before it moves anything, so that it never moves
 * them for nothing. */
int pn_stamp_after_notes_fits(struct stamp *s, long seg, const bool *vacating, long *host) {
        const struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz, b = a + s->note_len;
        if (a % 4 || b > PN_FIRST_PAGE)
                return 0;
        long h = pn_stamp_host_for(s, a, b, HOST_FIRST_PAGE);
        if (h < 0)
                return 0;
        uint32_t *types = vacating ? calloc(s->shnum, sizeof *types) : NULL;
        if (vacating && !types)
                return pn_oom();
        for (size_t i = 0; vacating && i < s->shnum; i++) /* gone for the count of what is used */
                if (vacating[i]) {
                        types[i] = s->sh[i].type;
                        s->sh[i].type = SHT_NULL;
                }
        struct range *occ;
        size_t n;
        int r = pn_stamp_occupied(s, &occ, &n);
        for (size_t i = 0; vacating && i < s->shnum; i++)
                if (vacating[i])
                        s->sh[i].type = types[i];
        free(types);
        if (r < 0)
                return r;
        const struct ph *hp = &s->ph[h];
        uint64_t hend = hp->offset + hp->filesz, z = a < hend ? a : hend;
        bool ok = !pn_stamp_overlaps_any(occ, n, z, b) && zero_but_vacating(s, z, b, vacating);
        free(occ);
        if (host)
                *host = h;
        return ok;
}

int pn_stamp_place_after_notes(struct stamp *s, long seg) {
        long h;
        int r = pn_stamp_after_notes_fits(s, seg, NULL, &h);
        if (r <= 0)
                return r;
        struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz, b = a + s->note_len;
        if ((r = pn_stamp_write_note(s, a, s->note_len)) < 0)
                return r;
        pn_stamp_grow_host(s, h, b);
        p->filesz += s->note_len;
        p->memsz += s->note_len;
        s->res->placement = PKGNOTE_PLACE_AFTER_NOTES;
        return 1;
}

static long free_slot(const struct stamp *s) {
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type == PT_NULL)
                        return (long)i;
        return -1;
}

static void set_note_phdr(struct stamp *s, size_t i, long h, uint64_t off, uint64_t size) {
        s->ph[i] = (struct ph){.type = PT_NOTE, .flags = PF_R, .offset = off, .vaddr = pn_stamp_vaddr_of(s, h, off),
                               .paddr = paddr_of(s, h, off), .filesz = size, .memsz = size, .align = 4};
}

int pn_stamp_place_in_slot(struct stamp *s, bool first_page) {
        long slot = free_slot(s), h;
        if (slot < 0)
                return 0;
        uint64_t off = first_page ? find_free(s, s->note_len, 4, PN_FIRST_PAGE, HOST_FIRST_PAGE, &h)
                                  : pn_stamp_find_home(s, s->note_len, 4, &h);
        if (off == UINT64_MAX)
                return 0;
        int r = pn_stamp_write_note(s, off, s->note_len);
        if (r < 0)
                return r;
        pn_stamp_grow_host(s, h, off + s->note_len);
        set_note_phdr(s, (size_t)slot, h, off, s->note_len);
        s->res->placement = first_page ? PKGNOTE_PLACE_FREE_SLOT : PKGNOTE_PLACE_PADDING;
        return 1;
}

/* Do the bytes [OFF, OFF + SIZE) of the result hold FDO package and
 * dlopen notes, 4-byte aligned, and nothing else? */
static bool stamped_notes_only(const struct stamp *s, uint64_t off, uint64_t size) {
        uint64_t p = off, end = off + size;
        while (p < end) {
                if (end - p < 16)
                        return false;
                uint32_t namesz = pn_rd32(s->b + p, s->be), descsz = pn_rd32(s->b + p + 4, s->be),
                         type = pn_rd32(s->b + p + 8, s->be);
                uint64_t n = 12 + ALIGN_UP((uint64_t)namesz, 4) + ALIGN_UP((uint64_t)descsz, 4);
                if (namesz != 4 || memcmp(s->b + p + 12, "FDO", 4) || n > end - p ||
                    (type != PKGNOTE_NT_FDO_PACKAGING_METADATA && type != PKGNOTE_NT_FDO_DLOPEN_METADATA))
                        return false;
                p += n;
        }
        return true;
}

int pn_stamp_place_merged(struct stamp *s, long seg) {
        struct ph *p = &s->ph[seg];
        uint64_t size = p->filesz + s->note_len;
        long h;
        uint64_t off = find_free(s, size, 4, PN_FIRST_PAGE, HOST_FIRST_PAGE, &h);
        if (off == UINT64_MAX)
                return 0;
        uint64_t old = p->offset, delta_v = pn_stamp_vaddr_of(s, h, off) - p->vaddr;
        int r = pn_stamp_put(s, off, s->b + old, p->filesz);
        if (r < 0 || (r = pn_stamp_write_note(s, off + p->filesz, s->note_len)) < 0)
                return r;
        /* The sections stay on the original notes: symbols (__abi_tag)
         * are defined in them, and the original bytes stay in place.  But
         * a section of only the notes stamping manages (a package note
         * copied beside a new dlopen note, or the other way round) follows
         * the copy, so that readers find that note once, and the next
         * stamp replaces it where the segment has it. */
        for (size_t k = 1; k < s->shnum; k++) {
                struct sh *sec = &s->sh[k];
                if (sec->type == SHT_NOTE && sec->size > 0 && sec->offset >= old &&
                    sec->offset + sec->size <= old + p->filesz && stamped_notes_only(s, sec->offset, sec->size)) {
                        sec->offset += off - old;
                        sec->addr += delta_v;
                }
        }
        pn_stamp_grow_host(s, h, off + size);
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

/* Adds the PT_NOTE of the new note at OFF, mapped by PT_LOAD *H, whose
 * index follows the insertion; returns the PT_NOTE's index. */
static size_t add_note_phdr(struct stamp *s, long *h, uint64_t off) {
        size_t at = insert_phdr(s, PT_NOTE);
        if (at <= (size_t)*h)
                (*h)++;
        set_note_phdr(s, at, *h, off, s->note_len);
        return at;
}

static void update_pt_phdr(struct stamp *s, long h) {
        uint64_t size = (uint64_t)s->phnum * s->phentsize;
        for (size_t i = 0; i < s->phnum; i++) {
                struct ph *p = &s->ph[i];
                if (p->type != PT_PHDR)
                        continue;
                p->offset = s->phoff;
                p->vaddr = pn_stamp_vaddr_of(s, h, s->phoff);
                p->paddr = paddr_of(s, h, s->phoff);
                p->filesz = p->memsz = size;
        }
}

int pn_stamp_place_moving_phdrs(struct stamp *s) {
        if (s->phnum + 1 >= PN_XNUM)
                return 0;
        uint64_t table = (uint64_t)(s->phnum + 1) * s->phentsize, al = s->is64 ? 8 : 4;
        long h;
        uint64_t off = find_free(s, ALIGN_UP(table, 4) + s->note_len, al, PN_FIRST_PAGE, HOST_FIRST_PAGE, &h);
        if (off == UINT64_MAX)
                return 0;
        uint64_t note_at = off + ALIGN_UP(table, 4);
        int r = pn_stamp_write_note(s, note_at, s->note_len);
        if (r < 0)
                return r;
        pn_stamp_grow_host(s, h, note_at + s->note_len);
        add_note_phdr(s, &h, note_at);
        s->phoff = off;
        update_pt_phdr(s, h);
        s->res->placement = PKGNOTE_PLACE_MOVED_PHDRS;
        s->res->phdrs_moved = 1;
        return 1;
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
                        uint64_t off = pn_get_word(s->b + o, s->is64, s->be), info = pn_get_word(s->b + o + w, s->is64, s->be);
                        uint64_t idx = s->is64 ? info >> 32 : info >> 8, size = 0;
                        if (symtab_ok && idx && (idx + 1) * syment <= sym->size)
                                size = pn_get_word(s->b + sym->offset + idx * syment + (s->is64 ? 16 : 8), s->is64, s->be);
                        if (off + size > reach && off + size >= off)
                                reach = off + size;
                }
        }
        return reach;
}

int pn_stamp_place_appended(struct stamp *s, bool needs_section, bool keep_first_page) {
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
                pn_stamp_cut_tail(s, true);
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
        if (keep_first_page && off + table > PN_FIRST_PAGE)
                return 0; /* a core would lose the headers and the build-id */
        if (vaddr < vend || (!s->is64 && vaddr + size > UINT32_MAX))
                return pn_error(-ENOSPC, "no address space left for a new segment");
        int r = pn_stamp_resize(s, off + size);
        if (r < 0 || (r = pn_stamp_write_note(s, note_at, s->note_len)) < 0)
                return r;
        size_t at = insert_phdr(s, PT_LOAD);
        s->ph[at] = (struct ph){.type = PT_LOAD, .flags = PF_R, .offset = off, .vaddr = vaddr, .paddr = vaddr,
                                .filesz = size, .memsz = size, .align = palign};
        long h = (long)at;
        add_note_phdr(s, &h, note_at);
        s->phoff = off;
        update_pt_phdr(s, h);
        s->res->placement = PKGNOTE_PLACE_APPENDED;
        s->res->phdrs_moved = 1;
        return 1;
}


/* Nothing else keeps the first page as it was: the note goes into a
 * section of its own (.note.package, .note.dlopen) at the end of the file, not loaded.
 * Readers of the file (show, scan, core reading the file from disk)
 * find it there; the running program and its core dumps do not, but
 * they keep the build-id and notes they had. */
int pn_stamp_place_unloaded(struct stamp *s) {
        if (s->shnum == 0 || !s->names || s->shstrndx >= s->shnum)
                return pn_error(-ENOSPC, "no room for the note without moving the program headers out of the first page, "
                                         "and no section headers to hold it elsewhere");
        if (s->note_section < 0)
                s->note_section = pn_stamp_find_note_section(s);
        bool needs_name = s->note_section < 0;
        if (needs_name && s->shnum + 1 >= SHN_LORESERVE)
                return pn_error(-E2BIG, "too many sections to add one");
        s->note_flags = 0;
        int r = pn_stamp_append_note(s, needs_name);
        return r < 0 ? r : 1;
}
