/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Room in the first page made by moving the tables of dynamic linking
 * out of the way of the notes: .hash, .gnu.hash, .dynsym, .dynstr,
 * .gnu.version, .gnu.version_d, .gnu.version_r, .rela.* / .rel.* and
 * .relr.dyn.
 *
 * Why moving them is safe: the linker makes these tables for the
 * dynamic loader, which finds each through a DT_* entry; they hold no
 * code and no data of the program, and the program names them only
 * through linker-defined symbols that static programs use
 * (__rela_iplt_start).  So a table moves only when all of this holds,
 * and otherwise nothing moves:
 *   - the file is dynamically linked: it has PT_DYNAMIC and an
 *     interpreter, a needed library or a SONAME (static and static-pie
 *     programs relocate themselves and refuse);
 *   - every DT_* entry whose value lies in what moves is one whose
 *     value is an address, and it follows; no entry of unknown meaning
 *     has such a value;
 *   - no symbol but a section symbol is defined in or points into what
 *     moves, no relocation (dynamic or kept with --emit-relocs) patches
 *     it or computes an address in it, and no word a RELR entry
 *     relocates points into it;
 *   - no program header but the PT_LOAD that maps it covers it.
 * Section headers and section symbols follow.  Notes, .interp and the
 * GNU property note never move: programs may read their bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "06-stamp-private.h"

/* ------------------------------------------------------------------ */
/* The dynamic section                                                 */

/* The file range of PT_DYNAMIC, or false. */
static bool dynamic_range(const struct stamp *s, uint64_t *off, uint64_t *size) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_DYNAMIC && pn_range_ok(p->offset, p->filesz, s->len)) {
                        *off = p->offset;
                        *size = p->filesz;
                        return true;
                }
        }
        return false;
}

/* Calls FN for each entry of the dynamic section before DT_NULL with
 * the file offset of its value; stops at the first non-zero return. */
static int each_dynamic(const struct stamp *s, int (*fn)(const struct stamp *s, uint64_t tag, uint64_t at, void *u),
                        void *u) {
        uint64_t off, size;
        size_t w = s->is64 ? 8 : 4;
        if (!dynamic_range(s, &off, &size))
                return 0;
        for (uint64_t o = 0; o + 2 * w <= size; o += 2 * w) {
                uint64_t tag = pn_get_word(s->b + off + o, s->is64, s->be);
                if (tag == DT_NULL)
                        break;
                int r = fn(s, tag, off + o + w, u);
                if (r)
                        return r;
        }
        return 0;
}

struct find_tag {
        uint64_t tag, value, at;
};

static int match_tag(const struct stamp *s, uint64_t tag, uint64_t at, void *u) {
        struct find_tag *f = u;
        if (tag != f->tag || (f->value != UINT64_MAX && pn_get_word(s->b + at, s->is64, s->be) != f->value))
                return 0;
        f->at = at;
        return 1;
}

/* The file offset of the value of the entry TAG (with VALUE, unless
 * UINT64_MAX), or -1 when there is none. */
static int64_t dynamic_entry(const struct stamp *s, uint64_t tag, uint64_t value) {
        struct find_tag f = {tag, value, 0};
        return each_dynamic(s, match_tag, &f) ? (int64_t)f.at : -1;
}

/* Objects that the dynamic loader links: not static programs, nor
 * static-pie ones (DF_1_PIE without an interpreter, or an entry point
 * and nothing to load), which relocate themselves and may name their
 * tables from code. */
static bool dynamically_linked(const struct stamp *s) {
        bool interp = false;
        for (size_t i = 0; i < s->phnum; i++)
                interp |= s->ph[i].type == PT_INTERP;
        if (dynamic_entry(s, DT_SYMTAB, UINT64_MAX) < 0)
                return false;
        if (interp || dynamic_entry(s, DT_NEEDED, UINT64_MAX) >= 0)
                return true;
        int64_t flags_at = dynamic_entry(s, DT_FLAGS_1, UINT64_MAX);
        bool pie = flags_at >= 0 && (pn_get_word(s->b + flags_at, s->is64, s->be) & DF_1_PIE);
        bool entry = pn_get_word(s->b + 24, s->is64, s->be) != 0;
        return !pie && (!entry || dynamic_entry(s, DT_SONAME, UINT64_MAX) >= 0);
}

enum { TAG_VALUE, TAG_ADDRESS, TAG_UNKNOWN };

/* What the value of a dynamic entry is (gABI, and the GNU and Solaris
 * ranges glibc knows). */
static int tag_kind(uint64_t tag) {
        switch (tag) {
        case DT_PLTGOT: case DT_HASH: case DT_STRTAB: case DT_SYMTAB: case DT_RELA: case DT_INIT: case DT_FINI:
        case DT_REL: case DT_DEBUG: case DT_JMPREL: case DT_INIT_ARRAY: case DT_FINI_ARRAY: case DT_PREINIT_ARRAY:
        case DT_SYMTAB_SHNDX: case DT_RELR: case DT_VERSYM: case DT_VERDEF: case DT_VERNEED:
                return TAG_ADDRESS;
        case 31: /* between DT_FLAGS and DT_ENCODING: no tag has it */
                return TAG_UNKNOWN;
        case DT_RELACOUNT: case DT_RELCOUNT: case DT_FLAGS_1: case DT_VERDEFNUM: case DT_VERNEEDNUM: case DT_AUXILIARY:
        case DT_FILTER:
                return TAG_VALUE;
        }
        if (tag <= DT_RELRENT || (tag >= DT_VALRNGLO && tag <= DT_VALRNGHI))
                return TAG_VALUE;
        if (tag >= DT_ADDRRNGLO && tag <= DT_ADDRRNGHI)
                return TAG_ADDRESS;
        return TAG_UNKNOWN;
}

/* ------------------------------------------------------------------ */
/* What refers into a range of addresses                               */

/* The file offset of the word at address VADDR inside a PT_LOAD's file
 * bytes, or UINT64_MAX. */
static uint64_t file_offset_of(const struct stamp *s, uint64_t vaddr, size_t w) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_LOAD && vaddr >= p->vaddr && vaddr - p->vaddr + w <= p->filesz &&
                    pn_range_ok(p->offset + (vaddr - p->vaddr), w, s->len))
                        return p->offset + (vaddr - p->vaddr);
        }
        return UINT64_MAX;
}

/* Addresses [lo, hi) about to move; MOVING[k]: section k moves. */
struct span {
        uint64_t lo, hi;
        const bool *moving;
};

static bool in_span(const struct span *m, uint64_t a) {
        return a >= m->lo && a < m->hi;
}

/* Calls FN with each entry of every symbol table, its st_info, st_shndx
 * and st_value; stops at the first non-zero return. */
static int each_symbol(const struct stamp *s, int (*fn)(const struct stamp *s, uint8_t *sym, unsigned info, unsigned shndx,
                                                        uint64_t value, void *u),
                       void *u) {
        size_t ent = s->is64 ? 24 : 16;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *t = &s->sh[k];
                if ((t->type != SHT_SYMTAB && t->type != SHT_DYNSYM) || !pn_range_ok(t->offset, t->size, s->len))
                        continue;
                for (uint64_t o = t->offset; o + ent <= t->offset + t->size; o += ent) {
                        uint8_t *sym = s->b + o;
                        int r = fn(s, sym, sym[s->is64 ? 4 : 12], pn_rd16(sym + (s->is64 ? 6 : 14), s->be),
                                   pn_get_word(sym + (s->is64 ? 8 : 4), s->is64, s->be), u);
                        if (r)
                                return r;
                }
        }
        return 0;
}

static int symbol_in_span(const struct stamp *s, uint8_t *sym, unsigned info, unsigned shndx, uint64_t value, void *u) {
        const struct span *m = u;
        (void)sym;
        if ((info & 0xf) == STT_SECTION || shndx == SHN_UNDEF)
                return 0;
        return in_span(m, value) || (shndx < s->shnum && m->moving[shndx]);
}

/* A symbol other than a section symbol defined in, or pointing into,
 * what moves (a linker-defined __rela_iplt_start, a label). */
static bool symbol_refers(const struct stamp *s, const struct span *m) {
        return each_symbol(s, symbol_in_span, (void *)m);
}

/* The symbol value a relocation entry names, or 0. */
static uint64_t reloc_symbol(const struct stamp *s, const struct sh *rel, uint64_t info) {
        size_t syment = s->is64 ? 24 : 16;
        uint64_t idx = s->is64 ? info >> 32 : info >> 8;
        if (idx == 0 || rel->link >= s->shnum)
                return 0;
        const struct sh *sym = &s->sh[rel->link];
        if (sym->type == SHT_NOBITS || !pn_range_ok(sym->offset, sym->size, s->len) || (idx + 1) * syment > sym->size)
                return 0;
        return pn_get_word(s->b + sym->offset + idx * syment + (s->is64 ? 8 : 4), s->is64, s->be);
}

/* A relocation that patches what moves, or whose symbol, addend or
 * (REL) stored addend is an address in it. */
static bool relocation_refers(const struct stamp *s, const struct span *m) {
        size_t w = s->is64 ? 8 : 4;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *r = &s->sh[k];
                if ((r->type != SHT_RELA && r->type != SHT_REL) || !pn_range_ok(r->offset, r->size, s->len))
                        continue;
                size_t ent = (r->type == SHT_RELA ? 3 : 2) * w;
                bool dynamic = r->flags & SHF_ALLOC;
                for (uint64_t o = r->offset; o + ent <= r->offset + r->size; o += ent) {
                        uint64_t where = pn_get_word(s->b + o, s->is64, s->be);
                        uint64_t info = pn_get_word(s->b + o + w, s->is64, s->be);
                        uint64_t addend = 0;
                        if (r->type == SHT_RELA)
                                addend = pn_get_word(s->b + o + 2 * w, s->is64, s->be);
                        else if (dynamic) {
                                uint64_t at = file_offset_of(s, where, w);
                                addend = at == UINT64_MAX ? 0 : pn_get_word(s->b + at, s->is64, s->be);
                        }
                        uint64_t sym = reloc_symbol(s, r, info);
                        if ((dynamic && in_span(m, where)) || in_span(m, addend) || (sym && in_span(m, sym + addend)))
                                return true;
                }
        }
        return false;
}

/* A word that a RELR table relocates holding an address in what moves. */
static bool relr_refers(const struct stamp *s, const struct span *m) {
        size_t w = s->is64 ? 8 : 4, bits = 8 * w - 1;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *r = &s->sh[k];
                if (r->type != SHT_RELR || !pn_range_ok(r->offset, r->size, s->len))
                        continue;
                uint64_t base = 0;
                for (uint64_t o = r->offset; o + w <= r->offset + r->size; o += w) {
                        uint64_t e = pn_get_word(s->b + o, s->is64, s->be);
                        for (size_t b = 0; b < ((e & 1) ? bits : 1); b++) {
                                uint64_t where = (e & 1) ? base + b * w : e;
                                if ((e & 1) && !((e >> (b + 1)) & 1))
                                        continue;
                                uint64_t at = file_offset_of(s, where, w);
                                if (in_span(m, where) || (at != UINT64_MAX && in_span(m, pn_get_word(s->b + at, s->is64, s->be))))
                                        return true;
                        }
                        base = (e & 1) ? base + bits * w : e + w;
                }
        }
        return false;
}

static int unknown_tag_refers(const struct stamp *s, uint64_t tag, uint64_t at, void *u) {
        return tag_kind(tag) == TAG_UNKNOWN && in_span(u, pn_get_word(s->b + at, s->is64, s->be));
}

/* Whether anything but the dynamic entries that address them and the
 * section headers may refer to addresses [lo, hi), file bytes
 * [off, off + hi - lo): then they must not move. */
static bool anything_refers(const struct stamp *s, const struct span *m, uint64_t off) {
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type != PT_LOAD && p->type != PT_NULL && p->filesz &&
                    p->offset < off + (m->hi - m->lo) && off < p->offset + p->filesz)
                        return true;
        }
        uint64_t entry = pn_get_word(s->b + 24, s->is64, s->be);
        return in_span(m, entry) || symbol_refers(s, m) || relocation_refers(s, m) || relr_refers(s, m) ||
               each_dynamic(s, unknown_tag_refers, (void *)m);
}

struct section_shift {
        unsigned sec;
        uint64_t delta;
};

static int shift_if_section_symbol(const struct stamp *s, uint8_t *sym, unsigned info, unsigned shndx, uint64_t value,
                                   void *u) {
        const struct section_shift *x = u;
        if ((info & 0xf) == STT_SECTION && shndx == x->sec)
                pn_put_word(sym + (s->is64 ? 8 : 4), value + x->delta, s->is64, s->be);
        return 0;
}

/* Section symbols of section SEC follow it by DELTA. */
static void shift_section_symbols(struct stamp *s, size_t sec, uint64_t delta) {
        struct section_shift x = {(unsigned)sec, delta};
        each_symbol(s, shift_if_section_symbol, &x);
}

/* Whether section K is a table of dynamic linking (see the top). */
static bool dynamic_table(const struct stamp *s, size_t k) {
        const struct sh *h = &s->sh[k];
        if (!(h->flags & SHF_ALLOC) || (h->flags & SHF_WRITE) || (h->flags & SHF_EXECINSTR))
                return false;
        switch (h->type) {
        case SHT_HASH: case SHT_GNU_HASH: case SHT_DYNSYM: case SHT_GNU_versym: case SHT_GNU_verdef:
        case SHT_GNU_verneed: case SHT_RELA: case SHT_REL: case SHT_RELR:
                return true;
        case SHT_STRTAB:
                return dynamic_entry(s, DT_STRTAB, h->addr) >= 0;
        default:
                return false;
        }
}

/* The section with file bytes that starts first at or after OFF, or -1. */
static long next_section(const struct stamp *s, uint64_t off) {
        long next = -1;
        for (size_t i = 1; i < s->shnum; i++) {
                const struct sh *h = &s->sh[i];
                if (h->type == SHT_NULL || h->type == SHT_NOBITS || h->size == 0 || h->offset < off)
                        continue;
                if (next < 0 || h->offset < s->sh[next].offset)
                        next = (long)i;
        }
        return next;
}

/* ------------------------------------------------------------------ */
/* Moving the hash tables out                                          */

/* The dynamic tag through which the loader finds a section of TYPE
 * that stamping may move out of the first page, or 0. */
static uint64_t movable_tag(uint32_t type) {
        switch (type) {
        case SHT_GNU_HASH: return DT_GNU_HASH;
        case SHT_HASH: return DT_HASH;
        case SHT_DYNSYM: return DT_SYMTAB;
        default: return 0;
        }
}

/* Section K may go anywhere: nothing but its dynamic entry addresses it. */
static bool may_move_alone(const struct stamp *s, size_t k, bool *moving) {
        const struct sh *h = &s->sh[k];
        memset(moving, 0, s->shnum * sizeof *moving);
        moving[k] = true;
        struct span m = {h->addr, h->addr + h->size, moving};
        return !anything_refers(s, &m, h->offset);
}

/* Are the bytes [A, LO) between the notes and the tables that would
 * move or shift zero and unused?  The note goes there afterwards; bytes
 * there that are not (say, a note a section no longer covers) would
 * leave it no room once the tables have moved. */
static bool gap_free(const struct stamp *s, uint64_t a, uint64_t lo) {
        struct range *occ;
        size_t n;
        if (lo <= a)
                return true;
        if (!pn_stamp_is_zero(s, a, lo) || pn_stamp_occupied(s, &occ, &n) < 0)
                return false;
        bool used = pn_stamp_overlaps_any(occ, n, a, lo);
        free(occ);
        return !used;
}

/* The sections right after the first-page notes up to NEED, in file
 * order, when they are all movable hash or symbol tables; else 0. */
static size_t tables_in_the_way(const struct stamp *s, uint64_t a, uint64_t need, size_t move[MAX_MOVED]) {
        size_t nmove = 0;
        for (uint64_t reach = a; reach < need;) {
                long next = next_section(s, reach);
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
        return nmove;
}

/* Moves the symbol hash tables (and, when they are too small to make
 * room, the dynamic symbol table) that follow the first-page notes into
 * padding of a read-only segment, so the notes' PT_NOTE can grow over
 * the room they leave.  As few as possible move. */
int pn_stamp_place_moving_tables(struct stamp *s, long seg) {
        if (s->shnum == 0 || !dynamically_linked(s))
                return 0;
        const struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz, need = a + s->note_len;
        size_t move[MAX_MOVED];
        size_t nmove = need <= PN_FIRST_PAGE ? tables_in_the_way(s, a, need, move) : 0;
        if (nmove == 0)
                return 0;
        /* What lies between and after the tables up to NEED stays: it must be free. */
        uint64_t cursor = a;
        for (size_t k = 0; k < nmove; k++) {
                if (!gap_free(s, cursor, s->sh[move[k]].offset))
                        return 0;
                cursor = s->sh[move[k]].offset + s->sh[move[k]].size;
        }
        if (!gap_free(s, cursor, need))
                return 0;
        int64_t dyn_at[MAX_MOVED];
        bool *moving = calloc(s->shnum, sizeof *moving);
        if (!moving)
                return pn_oom();
        bool ok = true;
        for (size_t k = 0; k < nmove && ok; k++) {
                const struct sh *h = &s->sh[move[k]];
                dyn_at[k] = dynamic_entry(s, movable_tag(h->type), h->addr);
                ok = dyn_at[k] >= 0 && may_move_alone(s, move[k], moving);
        }
        if (ok) { /* the note must fit once they are gone, or nothing moves */
                memset(moving, 0, s->shnum * sizeof *moving);
                for (size_t k = 0; k < nmove; k++)
                        moving[move[k]] = true;
                int f = pn_stamp_after_notes_fits(s, seg, moving, NULL);
                if (f < 0) {
                        free(moving);
                        return f;
                }
                ok = f > 0;
        }
        free(moving);
        if (!ok)
                return 0;
        /* Find homes for all of them first, so failing changes nothing. */
        uint64_t dest[MAX_MOVED];
        long host[MAX_MOVED];
        s->reserved[0] = (struct range){a, need};
        s->n_reserved = 1;
        for (size_t k = 0; k < nmove; k++) {
                const struct sh *h = &s->sh[move[k]];
                dest[k] = pn_stamp_find_home(s, h->size, h->align ? h->align : 1, &host[k]);
                if (dest[k] == UINT64_MAX) {
                        s->n_reserved = 0;
                        return 0;
                }
                s->reserved[s->n_reserved++] = (struct range){dest[k], dest[k] + h->size};
        }
        s->n_reserved = 0;
        for (size_t k = 0; k < nmove; k++) {
                struct sh *h = &s->sh[move[k]];
                int r = pn_stamp_put(s, dest[k], s->b + h->offset, h->size);
                if (r < 0)
                        return r;
                pn_stamp_grow_host(s, host[k], dest[k] + h->size);
                uint64_t addr = pn_stamp_vaddr_of(s, host[k], dest[k]);
                /* The old bytes go: the notes' segment grows over them. */
                if ((r = pn_stamp_zero(s, h->offset, h->size)) < 0)
                        return r;
                pn_put_word(s->b + dyn_at[k], addr, s->is64, s->be);
                shift_section_symbols(s, move[k], addr - h->addr);
                h->offset = dest[k];
                h->addr = addr;
        }
        int r = pn_stamp_place_after_notes(s, seg);
        if (r <= 0)
                return r < 0 ? r : pn_error(-EBADMSG, "internal: no room after moving the dynamic tables");
        s->res->tables_moved = 1;
        return 1;
}

/* ------------------------------------------------------------------ */
/* Shifting the tables within their segment                            */

/* A run of tables to shift by DELTA bytes, file bytes [lo, hi). */
struct block {
        bool *moving; /* per section */
        uint64_t lo, hi, delta;
        long host;    /* the PT_LOAD that maps them */
};

/* Whether [from, to) is free for the block to grow over: zero, nothing
 * else there, mapped (or mappable by growing) by the block's PT_LOAD. */
static bool room_after(struct stamp *s, long host, uint64_t from, uint64_t to) {
        if (to == from)
                return true;
        if (pn_stamp_host_for(s, from, to, 0) != host)
                return false;
        const struct ph *p = &s->ph[host];
        uint64_t end = p->offset + p->filesz, z = from < end ? from : end;
        struct range *occ;
        size_t n;
        if (pn_stamp_occupied(s, &occ, &n) < 0)
                return false;
        bool ok = !pn_stamp_overlaps_any(occ, n, z, to) && pn_stamp_is_zero(s, z, to);
        free(occ);
        return ok;
}

/* The tables from the first section after the notes' end A, in file
 * order, up to the first place where enough free bytes follow them
 * for the whole run to shift past A + the note. */
static bool find_block(struct stamp *s, uint64_t a, struct block *b) {
        uint64_t need = a + s->note_len, cursor = a, align = 1;
        const struct ph *l = &s->ph[b->host];
        b->lo = UINT64_MAX;
        for (;;) {
                long next = next_section(s, cursor);
                if (b->lo != UINT64_MAX) {
                        b->delta = need > b->lo ? ALIGN_UP(need - b->lo, align) : 0;
                        uint64_t to = cursor + b->delta;
                        if ((next < 0 || s->sh[next].offset >= to) && room_after(s, b->host, cursor, to)) {
                                b->hi = cursor;
                                return b->delta > 0;
                        }
                }
                if (next < 0 || !dynamic_table(s, (size_t)next))
                        return false;
                const struct sh *h = &s->sh[next];
                /* Each step moves on: a size that wraps around would
                 * bring the cursor back to sections already taken. */
                if (h->offset < l->offset || h->size > l->filesz || h->offset > UINT64_MAX - h->size ||
                    h->offset + h->size > l->offset + l->filesz ||
                    h->addr - h->offset != l->vaddr - l->offset || (h->align & (h->align - 1)))
                        return false;
                if (b->lo == UINT64_MAX)
                        b->lo = h->offset;
                b->moving[next] = true;
                if (h->align > align)
                        align = h->align;
                cursor = h->offset + h->size;
        }
}

struct shift {
        struct span m;
        uint64_t delta;
};

static int shift_address_tag(const struct stamp *s, uint64_t tag, uint64_t at, void *u) {
        const struct shift *sh = u;
        uint8_t *v = s->b + at; /* the result's own bytes */
        uint64_t value = pn_get_word(v, s->is64, s->be);
        if (tag_kind(tag) == TAG_ADDRESS && in_span(&sh->m, value))
                pn_put_word(v, value + sh->delta, s->is64, s->be);
        return 0;
}

/* Moves the block up by its delta: bytes, section headers, section
 * symbols, dynamic entries; the PT_LOAD grows over its padding. */
static int shift_block(struct stamp *s, const struct block *b, const struct span *m) {
        int r = pn_stamp_put(s, b->lo + b->delta, s->b + b->lo, b->hi - b->lo);
        if (r < 0 || (r = pn_stamp_zero(s, b->lo, b->delta)) < 0)
                return r;
        pn_stamp_grow_host(s, b->host, b->hi + b->delta);
        struct shift sh = {*m, b->delta};
        each_dynamic(s, shift_address_tag, &sh);
        for (size_t k = 1; k < s->shnum; k++) {
                struct sh *h = &s->sh[k];
                if (!(h->flags & SHF_ALLOC) || h->type == SHT_NOBITS || h->offset < b->lo || h->offset >= b->hi)
                        continue;
                h->offset += b->delta;
                h->addr += b->delta;
        }
        for (size_t k = 1; k < s->shnum; k++)
                if (b->moving[k])
                        shift_section_symbols(s, k, b->delta);
        return 0;
}

/* Is everything in the bytes [A, A + note_len) the note will take after
 * the shift part of the block B that moves out of the way: each section
 * there one that moves, each other range there inside the block?
 * Hostile files put overlapping sections there, which do not move. */
static int note_room_moves(const struct stamp *s, uint64_t a, const struct block *b) {
        uint64_t e = a + s->note_len;
        for (size_t k = 0; k < s->shnum; k++) {
                const struct sh *h = &s->sh[k];
                if (h->type != SHT_NULL && h->type != SHT_NOBITS && h->size && h->offset < e && a < h->offset + h->size &&
                    !b->moving[k])
                        return 0;
        }
        struct range *occ;
        size_t n;
        int r = pn_stamp_occupied(s, &occ, &n);
        if (r < 0)
                return r;
        r = 1;
        for (size_t i = 0; i < n && r; i++)
                if (occ[i].a < e && a < occ[i].b && (occ[i].a < b->lo || occ[i].b > b->hi))
                        r = 0;
        free(occ);
        return r;
}

/* The tables after the first-page notes shift up within their PT_LOAD,
 * into its padding, by as much as the note needs; then the note goes
 * after the notes.  Libraries whose first page is all tables (libc.so.6)
 * get their note into the first page this way. */
int pn_stamp_place_shifting_tables(struct stamp *s, long seg) {
        const struct ph *p = &s->ph[seg];
        uint64_t a = p->offset + p->filesz;
        long l = -1;
        for (size_t i = 0; i < s->phnum; i++)
                if (s->ph[i].type == PT_LOAD && s->ph[i].offset == 0 && s->ph[i].filesz >= a)
                        l = (long)i;
        if (s->shnum == 0 || l < 0 || a % 4 || a + s->note_len > PN_FIRST_PAGE || !dynamically_linked(s) ||
            pn_stamp_host_for(s, a, a + s->note_len, HOST_FIRST_PAGE) < 0) /* no segment to hold it */
                return 0;
        struct block b = {.host = l, .moving = calloc(s->shnum, sizeof(bool))};
        if (!b.moving)
                return pn_oom();
        int r = 0;
        if (find_block(s, a, &b) && gap_free(s, a, b.lo) && (r = note_room_moves(s, a, &b)) > 0) {
                r = 0;
                const struct ph *L = &s->ph[l];
                struct span m = {L->vaddr + (b.lo - L->offset), L->vaddr + (b.hi - L->offset), b.moving};
                if (!anything_refers(s, &m, b.lo) && (r = shift_block(s, &b, &m)) == 0) {
                        r = pn_stamp_place_after_notes(s, seg);
                        if (r == 0)
                                r = pn_error(-EBADMSG, "internal: no room after shifting the dynamic tables");
                        s->res->tables_moved = 1;
                }
        }
        free(b.moving);
        return r;
}
