/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping's rewriting primitives: the result being built (a copy or a
 * private mapping of the input), the program and section header tables
 * read from the input and written back, the new note written and the
 * old notes of its kind taken out of their segments, and the sections
 * that describe the note (.note.package or .note.dlopen, the section
 * name table, the section header table at the end of the file).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "06-stamp-private.h"
#include "05-gen-emit.h"
#include "02-elf-view.h"

static const struct pn_note_kind kinds[] = {
        {PKGNOTE_NT_FDO_PACKAGING_METADATA, ".note.package", "package note", false, pn_package_note_checked},
        {PKGNOTE_NT_FDO_DLOPEN_METADATA, ".note.dlopen", "dlopen note", true, pn_dlopen_note_checked},
};

const struct pn_note_kind *pn_note_kind_of(uint32_t type) {
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
                if (kinds[i].type == type)
                        return &kinds[i];
        return NULL;
}

/* ------------------------------------------------------------------ */
/* The output buffer                                                   */

int pn_stamp_reserve(struct stamp *s, uint64_t len) {
        if (len <= s->cap)
                return 0;
        if (s->mapped) {
                /* A mapping cannot grow in place: continue on the heap. */
                uint8_t *n = len <= SIZE_MAX ? malloc((size_t)len) : NULL;
                if (!n)
                        return pn_oom();
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
                return pn_oom();
        uint8_t *n = realloc(s->b, (size_t)cap);
        if (!n)
                return pn_oom();
        s->b = n;
        s->cap = cap;
        return 0;
}

/* Makes the result LEN bytes long; new bytes are zero. */
int pn_stamp_resize(struct stamp *s, uint64_t len) {
        int r = pn_stamp_reserve(s, len);
        if (r < 0)
                return r;
        if (len > s->len)
                memset(s->b + s->len, 0, (size_t)(len - s->len));
        s->len = len;
        return 0;
}

int pn_stamp_put(struct stamp *s, uint64_t off, const void *p, uint64_t n) {
        if (!pn_range_ok(off, n, s->len))
                return pn_error(-EBADMSG, "internal: write at 0x%llx+0x%llx outside the result",
                                (unsigned long long)off, (unsigned long long)n);
        if (n)
                memmove(s->b + off, p, (size_t)n);
        return 0;
}

int pn_stamp_zero(struct stamp *s, uint64_t off, uint64_t n) {
        if (!pn_range_ok(off, n, s->len))
                return pn_error(-EBADMSG, "internal: clearing 0x%llx+0x%llx outside the result",
                                (unsigned long long)off, (unsigned long long)n);
        memset(s->b + off, 0, (size_t)n);
        return 0;
}

bool pn_stamp_is_zero(const struct stamp *s, uint64_t a, uint64_t b) {
        if (b < a || b > s->len)
                return false;
        for (uint64_t i = a; i < b; i++)
                if (s->b[i])
                        return false;
        return true;
}

/* ------------------------------------------------------------------ */
/* Reading the tables                                                  */

int pn_stamp_read_phdrs(struct stamp *s) {
        pkgnote_object *e = s->e;
        int err;
        s->phnum = e->phnum;
        s->phoff = e->phoff;
        s->phentsize = e->phentsize;
        s->phcap = s->phnum + 2;
        s->ph = calloc(s->phcap, sizeof *s->ph);
        if (!s->ph)
                return pn_oom();
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

int pn_stamp_read_shdrs(struct stamp *s) {
        pkgnote_object *e = s->e;
        const pkgnote_shdr *dummy;
        int err, n = pn_object_shdrs(e, &dummy); /* validates the table */
        if (n < 0)
                return n;
        s->shnum = s->shnum_read = (size_t)n;
        s->shoff = e->shoff;
        s->shentsize = e->shentsize;
        s->shstrndx = e->shstrndx;
        s->shcap = s->shnum + 1;
        s->sh = calloc(s->shcap, sizeof *s->sh);
        if (!s->sh)
                return pn_oom();
        for (size_t i = 0; i < s->shnum; i++) {
                const uint8_t *p = pn_elf_bytes(e, s->shoff + i * s->shentsize, s->is64 ? 64 : 40, &err);
                if (!p)
                        return err;
                struct sh *h = &s->sh[i];
                size_t w = s->is64 ? 8 : 4;
                h->name = pn_rd32(p, s->be);
                h->type = pn_rd32(p + 4, s->be);
                h->flags = pn_get_word(p + 8, s->is64, s->be);
                h->addr = pn_get_word(p + 8 + w, s->is64, s->be);
                h->offset = pn_get_word(p + 8 + 2 * w, s->is64, s->be);
                h->size = pn_get_word(p + 8 + 3 * w, s->is64, s->be);
                h->link = pn_rd32(p + 8 + 4 * w, s->be);
                h->info = pn_rd32(p + 12 + 4 * w, s->be);
                h->align = pn_get_word(p + 16 + 4 * w, s->is64, s->be);
                h->entsize = pn_get_word(p + 16 + 5 * w, s->is64, s->be);
        }
        if (s->shnum > 0 && s->shstrndx < s->shnum && s->sh[s->shstrndx].type != SHT_NOBITS) {
                const struct sh *t = &s->sh[s->shstrndx];
                if (t->size > PKGNOTE_MAX_SHSTRTAB)
                        return pn_error(-E2BIG, "section name table of %llu bytes, more than the limit of %u",
                                        (unsigned long long)t->size, PKGNOTE_MAX_SHSTRTAB);
                const uint8_t *p = pn_elf_bytes(e, t->offset, t->size, &err);
                if (!p)
                        return err;
                s->names = malloc(t->size + strlen(s->kind->section) + 1);
                if (!s->names)
                        return pn_oom();
                memcpy(s->names, p, t->size);
                s->names_len = t->size;
        }
        return 0;
}

const char *pn_stamp_section_name(const struct stamp *s, size_t i) {
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
        pn_put_word(p + 8, h->flags, s->is64, s->be);
        pn_put_word(p + 8 + w, h->addr, s->is64, s->be);
        pn_put_word(p + 8 + 2 * w, h->offset, s->is64, s->be);
        pn_put_word(p + 8 + 3 * w, h->size, s->is64, s->be);
        pn_wr32(p + 8 + 4 * w, h->link, s->be);
        pn_wr32(p + 12 + 4 * w, h->info, s->be);
        pn_put_word(p + 16 + 4 * w, h->align, s->is64, s->be);
        pn_put_word(p + 16 + 5 * w, h->entsize, s->is64, s->be);
}

/* Writes the program and section header tables and the ELF header
 * fields that locate and count them (gABI extended numbering kept). */
int pn_stamp_flush_tables(struct stamp *s) {
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
        pn_wr16(t + 6, (uint16_t)(s->shnum == 0 ? 0 : s->shstrndx >= SHN_LORESERVE ? SHN_XINDEX : s->shstrndx), be);
        return 0;
}

/* ------------------------------------------------------------------ */
/* The note                                                            */

/* Writes the new note at OFF, ROOM bytes long: the descriptor is
 * NUL-padded to fill the room, as the spec allows.  A note that fills
 * the room as it is keeps its own descsz (a dlopen note's counts the
 * JSON and its NUL only), so a file holding it already is unchanged. */
int pn_stamp_write_note(struct stamp *s, uint64_t off, uint64_t room) {
        if (room < s->note_len || room % 4 || room - 16 > UINT32_MAX)
                return pn_error(-EINVAL, "internal: note room too small");
        int r = pn_stamp_zero(s, off, room);
        if (r < 0)
                return r;
        r = pn_stamp_put(s, off, s->note, s->note_len);
        if (r < 0)
                return r;
        if (room != s->note_len)
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

bool pn_stamp_is_kind(const struct stamp *s, const pkgnote_note *n) {
        return pkgnote_note_is(n, PKGNOTE_OWNER_FDO, s->kind->type);
}

bool pn_stamp_note_matches(const pkgnote_note *n, const uint8_t *encoded, size_t encoded_len, bool be) {
        if (encoded_len < 12)
                return false;
        uint32_t namesz = pn_rd32(encoded, be), descsz = pn_rd32(encoded + 4, be), type = pn_rd32(encoded + 8, be);
        uint64_t name_room = ALIGN_UP((uint64_t)namesz, 4);
        if (namesz != n->namesz || type != n->type || descsz > n->descsz || 12 + name_room + descsz > encoded_len ||
            memcmp(n->name, encoded + 12, namesz) || memcmp(n->desc, encoded + 12 + name_room, descsz))
                return false;
        for (uint64_t i = descsz; i < n->descsz; i++)
                if (((const uint8_t *)n->desc)[i])
                        return false;
        return true;
}

/* Takes every note of the kind out of the PT_NOTE segments: the other notes
 * close up (their sections follow) and the freed tail becomes zeros.  A
 * PT_NOTE left empty becomes PT_NULL, a free slot for the next stamp.
 * Returns the number of notes removed. */
int pn_stamp_remove_segment_notes(struct stamp *s) {
        const pkgnote_note *notes;
        int nn = pn_object_notes(s->e, &notes);
        if (nn < 0)
                return nn;
        int removed = 0;
        for (size_t i = 0; i < s->phnum; i++) {
                struct ph *p = &s->ph[i];
                /* A PT_NOTE past the end of the file cannot be closed up;
                 * its notes inside the file are seen through the others. */
                if (p->type != PT_NOTE || p->filesz == 0 || !pn_range_ok(p->offset, p->filesz, s->len))
                        continue;
                struct range cut[16];
                size_t ncut = 0;
                uint64_t end = p->offset + p->filesz;
                bool later_kept = false;
                for (int k = nn - 1; k >= 0; k--) {
                        const pkgnote_note *n = &notes[k];
                        if (!(n->where & PKGNOTE_NOTE_IN_SEGMENT) || n->offset < p->offset || n->offset >= end)
                                continue;
                        if (!pn_stamp_is_kind(s, n)) {
                                later_kept = true;
                                continue;
                        }
                        /* Closing up must keep the notes after it aligned. */
                        if (later_kept && n->size % n->align)
                                return pn_error(-ENOSPC, "cannot take out the %s at offset 0x%llx without misaligning the notes after it",
                                                s->kind->what, (unsigned long long)n->offset);
                        s->notes_closed_up |= later_kept;
                        if (ncut == ELEMENTSOF(cut))
                                return pn_error(-E2BIG, "too many %ss in one segment", s->kind->what);
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
                /* Notes of hostile files may overlap each other or run past
                 * their segment: nothing to close up safely then. */
                for (size_t c = 0; c < ncut; c++)
                        if (cut[c].b > end || cut[c].b < cut[c].a || (c > 0 && cut[c].a < cut[c - 1].b))
                                return pn_error(-EBADMSG, "the notes of the segment at offset 0x%llx overlap: cannot take the %s out",
                                                (unsigned long long)p->offset, s->kind->what);
                uint64_t out = p->offset, from = p->offset, total = 0;
                for (size_t c = 0; c <= ncut; c++) {
                        uint64_t upto = c < ncut ? cut[c].a : end;
                        int r = pn_stamp_put(s, out, s->b + from, upto - from);
                        if (r < 0)
                                return r;
                        out += upto - from;
                        if (c < ncut) {
                                from = cut[c].b;
                                total += cut[c].b - cut[c].a;
                        }
                }
                int r = pn_stamp_zero(s, out, end - out);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < s->shnum; k++) {
                        struct sh *h = &s->sh[k];
                        if (h->type != SHT_NOTE || h->offset < p->offset || h->offset + h->size > end)
                                continue;
                        uint64_t a = map_cut(h->offset, cut, ncut), b = map_cut(h->offset + h->size, cut, ncut);
                        if (b == a && h->size > 0 && s->note_section < 0)
                                s->note_section = (long)k; /* held only notes of the kind */
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
/* The unloaded tail                                                   */

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
int pn_stamp_cut_tail(struct stamp *s, bool with_names) {
        if (s->tail_cut || s->shnum == 0)
                return 0;
        uint64_t t = reusable_tail(s, with_names);
        s->tail_cut = true;
        if (with_names)
                s->names_grew = true; /* rewritten after the new data either way */
        s->len = t;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Sections                                                            */

/* Does section I hold a note of another kind, which pointing it at the
 * new note would lose? */
static bool holds_other_notes(const struct stamp *s, size_t i) {
        const pkgnote_note *n;
        int nn = pn_object_notes(s->e, &n);
        const struct sh *h = &s->sh[i];
        for (int k = 0; k < nn && h->size > 0; k++)
                if (!pn_stamp_is_kind(s, &n[k]) && n[k].offset >= h->offset && n[k].offset < h->offset + h->size)
                        return true;
        return false;
}

long pn_stamp_find_note_section(const struct stamp *s) {
        for (size_t i = 1; i < s->shnum; i++)
                if (s->sh[i].type == SHT_NOTE && !strcmp(pn_stamp_section_name(s, i), s->kind->section) &&
                    !holds_other_notes(s, i))
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
        if (!s->names_grew && !s->table_grew && !s->tail_cut)
                return 0;
        pn_stamp_cut_tail(s, s->names_grew);
        int r;
        if (s->names_grew && s->names && s->shstrndx < s->shnum) {
                struct sh *t = &s->sh[s->shstrndx];
                uint64_t off = s->len;
                if ((r = pn_stamp_resize(s, off + s->names_len)) < 0 || (r = pn_stamp_put(s, off, s->names, s->names_len)) < 0)
                        return r;
                t->offset = off;
                t->size = s->names_len;
        }
        uint64_t off = ALIGN_UP(s->len, s->is64 ? 8 : 4);
        if ((r = pn_stamp_resize(s, off + (uint64_t)s->shnum * s->shentsize)) < 0)
                return r;
        s->shoff = off;
        return 0;
}

/* Points section NOTE_SECTION (or a new section of the kind) at the note. */
int pn_stamp_cover_note(struct stamp *s, uint64_t addr) {
        if (s->shnum == 0)
                return 0;
        if (!s->names || s->shstrndx >= s->shnum)
                return rewrite_section_tail(s); /* no names to give a section: the tables only */
        long k = s->note_section;
        if (k < 0)
                k = pn_stamp_find_note_section(s);
        if (k < 0) {
                if (s->shnum + 1 >= SHN_LORESERVE)
                        return pn_error(-E2BIG, "too many sections to add one");
                k = (long)s->shnum++;
                s->sh[k] = (struct sh){.name = name_offset(s, s->kind->section)};
                s->table_grew = true;
        }
        struct sh *h = &s->sh[k];
        h->type = SHT_NOTE;
        h->flags = s->note_flags;
        h->addr = addr;
        h->offset = s->res->note_offset;
        h->size = s->res->note_size;
        h->align = 4;
        h->entsize = 0;
        return rewrite_section_tail(s);
}

/* Appends the note after the file's data, for a section to cover: the
 * section name table (when NEEDS_NAME) and header table follow it. */
int pn_stamp_append_note(struct stamp *s, bool needs_name) {
        pn_stamp_cut_tail(s, needs_name);
        uint64_t off = ALIGN_UP(s->len, 4);
        int r = pn_stamp_resize(s, off + s->note_len);
        if (r < 0 || (r = pn_stamp_write_note(s, off, s->note_len)) < 0)
                return r;
        s->res->placement = PKGNOTE_PLACE_SECTION;
        s->table_grew = true; /* the table is rewritten after the data */
        return 0;
}

/* After removal: an emptied section of the kind that is the last
 * section goes. */
int pn_stamp_drop_empty_note_section(struct stamp *s) {
        long k = s->note_section;
        if (k < 0 || s->sh[k].size > 0)
                return 0;
        if ((size_t)k == s->shnum - 1 && (uint32_t)k != s->shstrndx && !strcmp(pn_stamp_section_name(s, (size_t)k), s->kind->section)) {
                s->shnum--;
                if (s->shoff + (uint64_t)(s->shnum + 1) * s->shentsize == s->len)
                        s->len -= s->shentsize;
        }
        return 0;
}

