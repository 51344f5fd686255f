/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping PE/COFF images: the .pkgnote section added, replaced or
 * removed (UAPI.8 "PE/COFF section": one allocated, read-only,
 * initialized-data section holding the NUL-terminated JSON, NUL-padded).
 *
 * No address the image declares changes: a new section gets the next
 * free slot of the section table (inside SizeOfHeaders' room, before the
 * first section's data: no headers are moved, so when there is no room
 * the file is refused), a virtual address at or past both the end of
 * every section and the original SizeOfImage (memory a loader gives the
 * image past its last section, such as syslinux.efi's zero-filled data,
 * is the image's own), and file bytes directly after the last section's
 * raw data.  What followed that data (the COFF symbol and string tables
 * of unstripped images, padding) moves after the new section, with
 * PointerToSymbolTable, so the sections' data stays contiguous: the
 * Authenticode hash (sections in file order, then the rest; "Windows
 * Authenticode Portable Executable Signature Format") is then the same
 * for every signer and verifier.  Any other data there (an overlay such
 * as an installer's archive, whose offsets nothing tells) makes the file
 * refused.  A note that fits where the old one was replaces it there.
 * Removal takes out only a section that is last in the image and in the
 * file, moving the rest back and setting SizeOfImage back to the
 * section's address, so stamping then removing gives back the file; an
 * overlay appended after stamping is not moved (the note's bytes become
 * zeros in place), and a note an earlier release put after the symbol
 * table leaves that table where it is.  The
 * checksum is computed again only when it was right (zero stays zero, a
 * stale one stays as it was).  An Authenticode signature covers the
 * whole file: a signed file is refused unless the caller asks for the
 * signature to be dropped, then it is taken out.  Every byte that is to
 * be kept is compared with the input before the result is handed back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-view.h"
#include "05-gen-emit.h"
#include "02-pe-view.h"
#include "06-stamp-files.h"

static uint64_t align_up(uint64_t v, uint64_t a) {
        return a > 1 ? (v + a - 1) / a * a : v;
}

#define NO_TAIL UINT64_MAX

struct pestamp {
        uint8_t *b;
        size_t len;
        struct pn_pe *pe;
        /* What the edit may change, for the check against the input
         * (offsets in the input): the input's bytes below kept_end stay
         * where they were; ranges [from, to) of it moved to at (a removal
         * moves what followed the old note back, then adding a section
         * moves what follows the sections on, which in a file stamped
         * by an earlier release, its note after the symbol table, is not
         * the same range); ranges of the input rewritten or dropped. */
        uint64_t kept_end;
        uint64_t moves[4][3];
        int n_moves;
        uint64_t drop[4][2];
        int n_drop;
        bool symtab_moved;
        int note_in, note_out; /* the note's entry in the input and result, or -1 */
        uint64_t signature;    /* where a dropped certificate table began, or NO_TAIL */
};

static void dropped(struct pestamp *s, uint64_t from, uint64_t to) {
        if (s->n_drop < 4 && from < to) {
                s->drop[s->n_drop][0] = from;
                s->drop[s->n_drop][1] = to;
                s->n_drop++;
        }
}

static void wr_count(struct pestamp *s, uint16_t n) {
        pn_wr16(s->b + s->pe->pe_off + 4 + 2, n, false);
}

/* The end of the image's virtual space used by its sections. */
static uint64_t image_end(const struct pn_pe *pe, int skip) {
        uint64_t end = 0;
        for (int i = 0; i < pe->n_sections; i++) {
                const struct pn_pe_section *s = &pe->sections[i];
                uint64_t e = (uint64_t)s->vaddr + (s->vsize ? s->vsize : s->raw_size);
                if (i != skip && e > end)
                        end = e;
        }
        return end;
}

/* The lowest file offset of any section's data but section SKIP's: the
 * headers end there. */
static uint64_t first_data(const struct pn_pe *pe, int skip, uint64_t len) {
        uint64_t first = len;
        for (int i = 0; i < pe->n_sections; i++)
                if (i != skip && pe->sections[i].raw_size && pe->sections[i].raw_off < first)
                        first = pe->sections[i].raw_off;
        return first;
}

/* Where the headers and the sections' raw data end in the file,
 * without section SKIP: what lies past it is the file's tail. */
static uint64_t sections_end(const struct pn_pe *pe, int skip) {
        uint64_t end = pe->size_headers;
        for (int i = 0; i < pe->n_sections; i++) {
                uint64_t e = (uint64_t)pe->sections[i].raw_off + pe->sections[i].raw_size;
                if (i != skip && pe->sections[i].raw_size && e > end)
                        end = e;
        }
        return end;
}

static void set_image_size(struct pestamp *s, uint64_t size) {
        pn_wr32(s->b + s->pe->opt_off + 56, (uint32_t)size, false);
}

int pn_pe_place(uint32_t size_image, uint64_t image_end, uint32_t sect_align, uint64_t data_end,
                uint32_t file_align, uint64_t len, uint64_t extra, struct pn_pe_place *ret) {
        /* Past every section and past what the image declares. */
        uint64_t start = image_end > size_image ? image_end : size_image;
        if (start > UINT32_MAX || len > UINT32_MAX || extra > UINT32_MAX || data_end > UINT32_MAX)
                return pn_error(-E2BIG, "the image would grow past 4 GiB");
        uint64_t va = align_up(start, sect_align), end = align_up(va + len, sect_align);
        /* Directly after the data: a multiple of FileAlignment when the
         * last section's data ends on one, as linkers make it; where it
         * does not (syslinux.efi), still directly after, since a gap
         * would be hashed differently by Authenticode's signers. */
        uint64_t raw = data_end, raw_size = align_up(len + extra, file_align);
        if (!len || end > UINT32_MAX || raw + raw_size > UINT32_MAX)
                return pn_error(-E2BIG, "the image would grow past 4 GiB");
        *ret = (struct pn_pe_place){
                .vaddr = (uint32_t)va,
                .size_image = (uint32_t)end,
                .raw_off = (uint32_t)raw,
                .raw_size = (uint32_t)raw_size,
                .shift = raw + raw_size - data_end,
        };
        return 0;
}

static uint64_t symtab_end(const struct pestamp *s);

static int drop_signature(struct pestamp *s) {
        const struct pn_pe *pe = s->pe;
        uint64_t end = (uint64_t)pe->cert_off + pe->cert_size;
        if (end > s->len || align_up(end, 8) < s->len)
                return pn_error(-ENOTSUP, "the certificate table does not end the file: cannot drop the signature");
        /* A table over the headers, a section's data or the symbol table
         * is malformed (or hostile): dropping it would cut those. */
        uint64_t used = sections_end(pe, -1), sym = symtab_end(s);
        if (pe->cert_off < used || pe->cert_off < sym)
                return pn_error(-EBADMSG, "the certificate table at offset 0x%x starts inside the headers, a section's data or the symbol table (which end at 0x%llx): cannot drop the signature",
                                pe->cert_off, (unsigned long long)(used > sym ? used : sym));
        memset(s->b + pe->dirs_off + 8 * PN_PE_DIR_SECURITY, 0, 8);
        dropped(s, pe->cert_off, s->len);
        s->signature = pe->cert_off;
        s->len = pe->cert_off;
        s->kept_end = pe->cert_off;
        return 0;
}

/* Whether section I's file bytes are its own: not in the headers (up to
 * the section table's end) nor in another section's bytes.  Only then
 * may they be overwritten or cleared. */
static bool owns_bytes(const struct pn_pe *pe, int i) {
        const struct pn_pe_section *sec = &pe->sections[i];
        uint64_t start = sec->raw_off, end = start + sec->raw_size;
        uint64_t headers = pe->sect_off + (uint64_t)pe->n_sections * PN_PE_SECTION_SIZE;
        if (!sec->raw_size)
                return true;
        if (start < headers || start < pe->size_headers)
                return false;
        for (int k = 0; k < pe->n_sections; k++) {
                const struct pn_pe_section *o = &pe->sections[k];
                if (k != i && o->raw_size && o->raw_off < end && start < (uint64_t)o->raw_off + o->raw_size)
                        return false;
        }
        return true;
}

/* Section I's header out of the table; the table's end zeroed. */
static void remove_entry(struct pestamp *s, int i) {
        uint8_t *t = s->b + s->pe->sect_off;
        size_t n = s->pe->n_sections;
        memmove(t + (size_t)i * PN_PE_SECTION_SIZE, t + (size_t)(i + 1) * PN_PE_SECTION_SIZE,
                (n - (size_t)i - 1) * PN_PE_SECTION_SIZE);
        memset(t + (n - 1) * PN_PE_SECTION_SIZE, 0, PN_PE_SECTION_SIZE);
        wr_count(s, (uint16_t)(n - 1));
}

/* Where the COFF symbol table and the string table after it end, 0
 * without one (a table claimed past the file is none: checked where it
 * would move). */
static uint64_t symtab_end(const struct pestamp *s) {
        const struct pn_pe *pe = s->pe;
        if (!pe->symtab_off)
                return 0;
        uint64_t tab = (uint64_t)pe->symtab_off + (uint64_t)pe->n_symbols * PN_PE_SYMBOL_SIZE;
        if (!pn_range_ok(tab, 4, s->len))
                return 0;
        uint64_t e = tab + pn_rd32(s->b + tab, false);
        return e <= s->len ? e : 0;
}

/* The first byte from FROM on that is neither zero nor in the COFF
 * symbol and string tables (which the header points at and which hold
 * no file offsets): an overlay, whose offsets nothing tells.  The file's
 * length when there is none, NO_TAIL when the symbol table is claimed
 * past the end of the file. */
static uint64_t overlay_at(const struct pestamp *s, uint64_t from) {
        const struct pn_pe *pe = s->pe;
        uint64_t sym = pe->symtab_off, sym_end = symtab_end(s);
        if (sym >= from && pe->symtab_off && !sym_end)
                return NO_TAIL;
        if (sym < from)
                sym = sym_end = 0; /* not the tail's: it does not move with it */
        for (uint64_t i = from; i < s->len; i++)
                if (s->b[i] && !(i >= sym && i < sym_end))
                        return i;
        return s->len;
}

/* Whether the bytes from FROM to the end of the file may move: nothing
 * there but the symbol and string tables and zeros (overlay_at()). */
static int tail_movable(const struct pestamp *s, uint64_t from) {
        /* A symbol table that begins before FROM and runs on past it
         * (in a section's data) would be cut in two: what lies past FROM
         * would move, its pointer not. */
        uint64_t sym = s->pe->symtab_off, sym_end = symtab_end(s);
        if (sym && sym < from && sym_end > from)
                return pn_error(-EBADMSG, "the COFF symbol table at offset 0x%x begins inside the sections' data and runs past their end at 0x%llx",
                                s->pe->symtab_off, (unsigned long long)from);
        uint64_t at = overlay_at(s, from);
        if (at == NO_TAIL)
                return pn_error(-EBADMSG, "the COFF symbol table at offset 0x%x lies past the end of the file", s->pe->symtab_off);
        if (at < s->len)
                return pn_error(-ENOTSUP, "data after the sections at offset 0x%llx that is not the COFF symbol table (an overlay such as an installer's archive): its offsets cannot be known, so it cannot be moved to make room",
                                (unsigned long long)at);
        return 0;
}

/* Moves the file's tail from FROM by SHIFT bytes (negative: back), the
 * symbol table's pointer with it. */
static void move_tail(struct pestamp *s, uint64_t from, int64_t shift) {
        uint64_t to = (uint64_t)((int64_t)from + shift);
        /* What moved before and lies past FROM now moves again; what is
         * still where it was in the input from FROM on moves now. */
        for (int k = 0; k < s->n_moves; k++)
                if (s->moves[k][2] >= from)
                        s->moves[k][2] = (uint64_t)((int64_t)s->moves[k][2] + shift);
        if (from <= s->kept_end && s->n_moves < 4) {
                s->moves[s->n_moves][0] = from;
                s->moves[s->n_moves][1] = s->kept_end;
                s->moves[s->n_moves][2] = to;
                s->n_moves++;
                s->kept_end = from;
        }
        memmove(s->b + to, s->b + from, s->len - from);
        if (shift > 0)
                memset(s->b + from, 0, (size_t)shift);
        s->len = (size_t)((int64_t)s->len + shift);
        if (s->pe->symtab_off && s->pe->symtab_off >= from) {
                pn_wr32(s->b + s->pe->pe_off + 4 + 8, (uint32_t)((int64_t)s->pe->symtab_off + shift), false);
                s->symtab_moved = true;
        }
}

/* What removal sets back when it cannot be derived (the SizeOfImage the
 * section's address stands for, SizeOfHeaders as it was): 16 bytes at
 * the end of the section's raw data, past its VirtualSize (the note's
 * bytes, which readers take), written only when needed. */
#define RECORD_TAG "PNSTAMP1"
#define RECORD_SIZE 16u

/* Whether IMAGE and HEADERS, a SizeOfImage and SizeOfHeaders, fit the
 * image without section SKIP (-1: none): SizeOfImage reaching the end of
 * every section (not necessarily aligned: an image whose SizeOfImage
 * ends inside its last page is kept as it is), SizeOfHeaders covering
 * the section table and below every section's data.  Only such values
 * are recorded, and only such a record is believed: anything else would
 * give an image that loaders refuse. */
static bool record_fits(const struct pestamp *s, int skip, uint32_t image, uint32_t headers) {
        const struct pn_pe *pe = s->pe;
        uint64_t n = (uint64_t)pe->n_sections - (skip >= 0 ? 1 : 0);
        uint64_t table_end = pe->sect_off + n * PN_PE_SECTION_SIZE;
        return image >= image_end(pe, skip) && headers >= table_end &&
               headers <= first_data(pe, skip, s->len);
}

static bool read_record(const struct pestamp *s, int i, uint32_t *image, uint32_t *headers) {
        const struct pn_pe_section *sec = &s->pe->sections[i];
        uint64_t at = (uint64_t)sec->raw_off + sec->raw_size - RECORD_SIZE;
        if (sec->raw_size < RECORD_SIZE || sec->raw_size - RECORD_SIZE < pn_pe_section_file_size(sec) ||
            !pn_range_ok(at, RECORD_SIZE, s->len) || memcmp(s->b + at, RECORD_TAG, 8))
                return false;
        *image = pn_rd32(s->b + at + 8, false);
        *headers = pn_rd32(s->b + at + 12, false);
        /* Only what stamping can have grown from, and what fits the
         * image once the section is gone (a crafted record is ignored). */
        return *image <= sec->vaddr && *headers <= s->pe->size_headers && record_fits(s, i, *image, *headers);
}

static int remove_section(struct pestamp *s, int i) {
        const struct pn_pe *pe = s->pe;
        const struct pn_pe_section *sec = &pe->sections[i];
        uint64_t end = (uint64_t)sec->vaddr + (sec->vsize ? sec->vsize : sec->raw_size);
        if (end < image_end(pe, -1) || image_end(pe, i) > sec->vaddr)
                return pn_error(-ENOSPC, "the %s section lies between other sections of the image: removing it would leave a gap (replace it instead)",
                                PN_PE_NOTE_SECTION);
        uint64_t others = sections_end(pe, i), start = sec->raw_off, stop = start + sec->raw_size;
        if (sec->raw_size && start < others)
                return pn_error(-ENOSPC, "the %s section's data lies before other sections' data in the file: removing it would leave a gap (replace it instead)",
                                PN_PE_NOTE_SECTION);
        uint32_t rec_image = 0, rec_headers = 0;
        bool rec = read_record(s, i, &rec_image, &rec_headers);
        if (sec->raw_size && pn_range_ok(start, sec->raw_size, s->len)) {
                /* Its bytes and the zeros before them (stamp's alignment
                 * padding) go; what followed moves back where it was
                 * before stamping.  Anything else before them (a symbol
                 * table an older stamp put the note after) stays. */
                uint32_t sym = pe->symtab_off;
                if (sym && sym >= start && sym < stop)
                        return pn_error(-EBADMSG, "the COFF symbol table lies inside the %s section", PN_PE_NOTE_SECTION);
                uint64_t over = overlay_at(s, stop);
                if (over != s->len) {
                        /* Data after it that stamping would not have moved
                         * (an overlay appended since, whose offsets nothing
                         * tells): nothing moves, the note's bytes become
                         * zeros, the file keeps its length. */
                        memset(s->b + start, 0, sec->raw_size);
                        dropped(s, start, stop);
                } else {
                        uint64_t from = start;
                        while (from > others && !s->b[from - 1])
                                from--;
                        if (from != others)
                                from = start;
                        dropped(s, from, stop);
                        move_tail(s, stop, -(int64_t)(stop - from));
                }
        }
        remove_entry(s, i);
        /* The image ends where the section began: the SizeOfImage of
         * the file before the section was added (see pn_pe_place()). */
        uint64_t size = align_up(sec->vaddr, pe->sect_align);
        uint64_t rest = align_up(image_end(pe, i), pe->sect_align);
        set_image_size(s, rec ? rec_image : size > rest ? size : rest);
        if (rec)
                pn_wr32(s->b + pe->opt_off + 60, rec_headers, false);
        return 0;
}

/* Overwrites section I's data with DESC when it fits in its raw data and
 * its virtual room: 1 done, 0 no room. */
static int replace_in_place(struct pestamp *s, int i, const uint8_t *desc, size_t len) {
        const struct pn_pe *pe = s->pe;
        const struct pn_pe_section *sec = &pe->sections[i];
        uint64_t room = align_up((uint64_t)sec->vaddr + (sec->vsize ? sec->vsize : sec->raw_size), pe->sect_align);
        for (int k = 0; k < pe->n_sections; k++)
                if (pe->sections[k].vaddr > sec->vaddr && pe->sections[k].vaddr < room)
                        room = pe->sections[k].vaddr;
        uint32_t image, headers, keep = read_record(s, i, &image, &headers) ? RECORD_SIZE : 0;
        if (len > sec->raw_size - keep || sec->vaddr + len > room || !pn_range_ok(sec->raw_off, sec->raw_size, s->len))
                return 0;
        memset(s->b + sec->raw_off, 0, sec->raw_size - keep);
        memcpy(s->b + sec->raw_off, desc, len);
        dropped(s, sec->raw_off, (uint64_t)sec->raw_off + sec->raw_size);
        s->note_out = i;
        uint8_t *h = s->b + pe->sect_off + (size_t)i * PN_PE_SECTION_SIZE;
        pn_wr32(h + 8, (uint32_t)len, false);
        /* The spec's flags, whatever the old section had. */
        pn_wr32(h + 36, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ, false);
        return 1;
}

/* A new last section with DESC: its header in the table's free slot,
 * its bytes directly after the last section's data, what followed moved
 * after them. */
static int add_section(struct pestamp *s, const uint8_t *desc, size_t len, uint64_t cap) {
        const struct pn_pe *pe = s->pe;
        uint64_t table_end = pe->sect_off + (uint64_t)(pe->n_sections + 1) * PN_PE_SECTION_SIZE;
        uint64_t headers = align_up(table_end, pe->file_align);
        if (headers < pe->size_headers)
                headers = pe->size_headers;
        if (pe->n_sections >= PKGNOTE_MAX_PE_SECTIONS || headers > first_data(pe, -1, s->len) || table_end > s->len)
                return pn_error(-ENOSPC, "no room in the headers for another section entry (the headers would have to move)");
        const uint8_t *slot = s->b + table_end - PN_PE_SECTION_SIZE;
        for (size_t k = 0; k < PN_PE_SECTION_SIZE; k++)
                if (slot[k])
                        return pn_error(-ENOSPC, "no room in the headers for another section entry: the bytes after the section table are in use");
        uint64_t data = sections_end(pe, -1);
        int r;
        if (data > s->len)
                return pn_error(-EBADMSG, "SizeOfHeaders 0x%x lies past the end of the file", pe->size_headers);
        if ((r = tail_movable(s, data)) < 0)
                return r;
        struct pn_pe_place p;
        if ((r = pn_pe_place(pe->size_image, image_end(pe, -1), pe->sect_align, data, pe->file_align, len, 0, &p)) < 0)
                return r;
        /* Removal sets SizeOfImage back to the section's address: where
         * that is not the original (not a multiple of SectionAlignment,
         * as in systemd-boot 252 and syslinux.efi, or below the sections'
         * end), or SizeOfHeaders grows, the original values are recorded. */
        bool record = p.vaddr != pe->size_image || headers != pe->size_headers;
        if (record && !record_fits(s, -1, pe->size_image, pe->size_headers))
                return pn_error(-EBADMSG, "SizeOfImage 0x%x lies below the end of the sections or SizeOfHeaders 0x%x does not cover the section table: the image is malformed",
                                pe->size_image, pe->size_headers);
        if (record && (r = pn_pe_place(pe->size_image, image_end(pe, -1), pe->sect_align, data, pe->file_align, len,
                                       RECORD_SIZE, &p)) < 0)
                return r;
        if (s->len + p.shift > cap)
                return pn_error(-E2BIG, "the image would grow past 4 GiB");
        move_tail(s, data, (int64_t)p.shift);
        memcpy(s->b + p.raw_off, desc, len);
        if (record) {
                uint8_t *rec = s->b + p.raw_off + p.raw_size - RECORD_SIZE;
                memcpy(rec, RECORD_TAG, 8);
                pn_wr32(rec + 8, pe->size_image, false);
                pn_wr32(rec + 12, pe->size_headers, false);
        }
        uint8_t *h = s->b + table_end - PN_PE_SECTION_SIZE;
        memcpy(h, PN_PE_NOTE_SECTION, 8); /* exactly 8 bytes: no NUL, as the format allows */
        pn_wr32(h + 8, (uint32_t)len, false);
        pn_wr32(h + 12, p.vaddr, false);
        pn_wr32(h + 16, p.raw_size, false);
        pn_wr32(h + 20, p.raw_off, false);
        pn_wr32(h + 36, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ, false);
        wr_count(s, (uint16_t)(pe->n_sections + 1));
        s->note_out = pe->n_sections;
        pn_wr32(s->b + pe->opt_off + 60, (uint32_t)headers, false);
        set_image_size(s, p.size_image);
        return 0;
}

static bool in_drop(const struct pestamp *s, uint64_t i) {
        for (int k = 0; k < s->n_drop; k++)
                if (i >= s->drop[k][0] && i < s->drop[k][1])
                        return true;
        return false;
}

/* Where the input's byte I lies in the result: moved, or where it was. */
static uint64_t kept_at(const struct pestamp *s, uint64_t i) {
        for (int k = 0; k < s->n_moves; k++)
                if (i >= s->moves[k][0] && i < s->moves[k][1])
                        return s->moves[k][2] + (i - s->moves[k][0]);
        return i;
}

/* Checks that the result B (LEN bytes) keeps every byte of the input
 * IN (PE its view) that the edit was not meant to change: the header
 * fields the stamper writes, the section table (compared entry by entry
 * without the note's), the note's old bytes and a dropped signature
 * aside, each byte where it was or where it was moved to, and the
 * result ending where the input's last byte went. */
static int check_kept(const struct pestamp *s, const struct pn_pe *pe, const uint8_t *in, size_t in_len) {
        const uint8_t *b = s->b;
        size_t len = s->len;
        uint64_t tail_end = s->signature != NO_TAIL ? s->signature : in_len;
        uint64_t table = pe->sect_off, table_end = table + (uint64_t)(pe->n_sections + 1) * PN_PE_SECTION_SIZE;
        uint64_t opt = pe->opt_off, coff = (uint64_t)pe->pe_off + 4;
        for (uint64_t i = 0; i < tail_end && i < in_len; i++) {
                if (in_drop(s, i) || (i >= table && i < table_end) || (i >= coff + 2 && i < coff + 4) ||
                    (s->symtab_moved && i >= coff + 8 && i < coff + 12) || (i >= opt + 56 && i < opt + 68) ||
                    (s->signature != NO_TAIL && i >= pe->dirs_off + 8 * PN_PE_DIR_SECURITY &&
                     i < pe->dirs_off + 8 * PN_PE_DIR_SECURITY + 8))
                        continue;
                uint64_t at = kept_at(s, i);
                if (at >= len || b[at] != in[i])
                        return pn_error(-EIO, "internal: the stamped image changes byte 0x%llx, which it should keep",
                                        (unsigned long long)i);
        }
        /* The first move took everything up to the input's end. */
        uint64_t want = s->n_moves ? s->moves[0][2] + (s->moves[0][1] - s->moves[0][0]) : tail_end;
        if (s->n_moves && s->moves[0][1] != tail_end)
                return pn_error(-EIO, "internal: the stamped image does not keep the bytes after the sections");
        if (len != want)
                return pn_error(-EIO, "internal: the stamped image's size is not the expected one");
        if (s->symtab_moved && pn_rd32(b + coff + 8, false) != kept_at(s, pe->symtab_off))
                return pn_error(-EIO, "internal: the symbol table's pointer does not follow it");
        /* The other sections' entries, in their order. */
        uint16_t n = pn_rd16(b + coff + 2, false);
        int k = 0;
        for (int i = 0; i < pe->n_sections; i++) {
                const uint8_t *h = in + table + (uint64_t)i * PN_PE_SECTION_SIZE;
                if (i == s->note_in)
                        continue;
                if (k == s->note_out)
                        k++;
                if (k >= n || memcmp(b + table + (uint64_t)k * PN_PE_SECTION_SIZE, h, PN_PE_SECTION_SIZE))
                        return pn_error(-EIO, "internal: the stamped image changes section %d's entry", i);
                k++;
        }
        return 0;
}

/* Checks the result holds exactly what was asked: JSON's package note
 * alone, or none. */
static int check_result(const uint8_t *b, size_t len, const char *json) {
        pkgnote_object *e;
        pkgnote_info *info = NULL;
        int r = pkgnote_object_from_memory(b, len, &e);
        if (r == 0 && (r = pkgnote_info_read(e, &info)) == 0) {
                size_t n = 0;
                const pkgnote_note *notes;
                int c = pn_object_notes(e, &notes);
                for (int i = 0; i < c; i++)
                        n += notes[i].where & PKGNOTE_NOTE_PE_SECTION ? 1 : 0;
                if (json ? n != 1 || pkgnote_info_package_count(info) != 1 ||
                                   strcmp(pkgnote_info_package_json(info, 0), json)
                         : n != 0)
                        r = pn_error(-EIO, "internal: the stamped image does not read back as expected");
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return r;
}

int pn_pe_stamp(const uint8_t *data, size_t size, const char *json, unsigned flags, uint8_t **ret, size_t *ret_len,
                pkgnote_stamp_result *res) {
        pkgnote_object *e, *e0 = NULL;
        int r = pkgnote_object_from_memory(data, size, &e);
        if (r < 0)
                return r;
        uint8_t *note = NULL;
        size_t note_len = 0;
        struct pestamp s = {0};
        const struct pn_pe *pe = e->pe;
        if (!pe || !pe->magic) {
                r = pn_error(-ENOEXEC, "not a PE file");
                goto out;
        }
        /* The format's bounds (a power of two, FileAlignment at most
         * 64 KiB), checked before they size anything. */
        if (!pe->file_align || (pe->file_align & (pe->file_align - 1)) || pe->file_align > PN_PE_MAX_FILE_ALIGN ||
            !pe->sect_align || (pe->sect_align & (pe->sect_align - 1))) {
                r = pn_error(-EBADMSG, "file alignment 0x%x or section alignment 0x%x is not a power of two up to the format's limit",
                             pe->file_align, pe->sect_align);
                goto out;
        }
        /* What the headers claim must be in the file: a new section's
         * bytes go after all of it. */
        for (int i = 0; i < pe->n_sections; i++)
                if (pe->sections[i].raw_size && !pn_range_ok(pe->sections[i].raw_off, pe->sections[i].raw_size, size)) {
                        r = pn_error(-EBADMSG, "section %d's data lies past the end of the file", i);
                        goto out;
                }
        if (pe->size_headers > size) {
                r = pn_error(-EBADMSG, "SizeOfHeaders 0x%x lies past the end of the file", pe->size_headers);
                goto out;
        }
        if (pkgnote_pe_signed(e)) {
                if (!(flags & PKGNOTE_STAMP_DROP_SIGNATURE)) {
                        r = pn_error(-EPERM, "signed (Authenticode), and stamping invalidates the signature: stamp before signing, or drop the signature and sign again");
                        goto out;
                }
                res->signature_removed = 1;
        }
        /* The descriptor of the ELF package note: the JSON checked, its
         * NUL and padding to 4 bytes, the section's content. */
        if (json && (r = pn_package_note_checked(json, 0, &note, &note_len)) < 0)
                goto out;
        const uint8_t *desc = note ? note + 16 : NULL;
        size_t desc_len = note ? note_len - 16 : 0;
        uint64_t cap = (uint64_t)size + desc_len + RECORD_SIZE + 2 * (uint64_t)pe->file_align + 8;
        if (cap > SIZE_MAX || !(s.b = malloc((size_t)cap))) {
                r = pn_oom();
                goto out;
        }
        memcpy(s.b, data, size);
        s.len = size;
        s.kept_end = size;
        s.note_in = s.note_out = -1;
        s.signature = NO_TAIL;
        /* The checksum is kept right when it was: a zero one (EFI
         * binaries) stays zero, a stale one (many of wine's modules) stays
         * as it was, so removing the note gives back the same bytes. */
        uint64_t sum_at = pe->opt_off + 64;
        bool sum_right = pe->checksum && pn_pe_checksum(data, size, sum_at) == pe->checksum;
        s.pe = e->pe;
        if (res->signature_removed && (r = drop_signature(&s)) < 0)
                goto out;
        int found = -1, count = 0;
        for (int i = 0; i < pe->n_sections; i++)
                if (!strcmp(pe->sections[i].name, PN_PE_NOTE_SECTION)) {
                        found = found < 0 ? i : found;
                        count++;
                }
        if (count > 1) {
                r = pn_error(-EINVAL, "%d %s sections: stamp only files with one at the most", count, PN_PE_NOTE_SECTION);
                goto out;
        }
        const struct pn_pe_section *old = found >= 0 ? &pe->sections[found] : NULL;
        s.note_in = found;
        if (old && !owns_bytes(pe, found)) {
                r = pn_error(-EBADMSG, "the %s section's bytes overlap the headers or another section", PN_PE_NOTE_SECTION);
                goto out;
        }
        if (!json) {
                res->placement = PKGNOTE_PLACE_NONE;
                if (old) {
                        if ((r = remove_section(&s, found)) < 0)
                                goto out;
                        res->placement = PKGNOTE_PLACE_REMOVED;
                }
        } else if (old && pn_pe_section_file_size(old) == desc_len &&
                   pn_range_ok(old->raw_off, desc_len, size) && !memcmp(data + old->raw_off, desc, desc_len) &&
                   old->flags == (PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ)) {
                res->placement = PKGNOTE_PLACE_UNCHANGED;
        } else if (old && (r = replace_in_place(&s, found, desc, desc_len)) != 0) {
                if (r < 0)
                        goto out;
                res->placement = PKGNOTE_PLACE_REPLACED;
        } else {
                if (old && (r = remove_section(&s, found)) < 0)
                        goto out;
                if (old) {
                        /* The table and image as they are now; the input's
                         * view is kept for the check. */
                        e0 = e;
                        e = NULL;
                        if ((r = pkgnote_object_from_memory(s.b, s.len, &e)) < 0)
                                goto out;
                        s.pe = e->pe;
                }
                if ((r = add_section(&s, desc, desc_len, cap)) < 0)
                        goto out;
                res->placement = PKGNOTE_PLACE_PE_SECTION;
        }
        const struct pn_pe *pe0 = e0 ? e0->pe : e->pe;
        bool changed = res->placement != PKGNOTE_PLACE_UNCHANGED && res->placement != PKGNOTE_PLACE_NONE;
        if (sum_right && (changed || res->signature_removed))
                pn_wr32(s.b + sum_at, pn_pe_checksum(s.b, s.len, sum_at), false);
        if (!changed && !res->signature_removed) {
                s.len = size; /* the same bytes */
        } else if ((r = check_result(s.b, s.len, json)) < 0 || (r = check_kept(&s, pe0, data, size)) < 0)
                goto out;
        if (json) {
                res->note_size = desc_len;
                pkgnote_object *v;
                if (pkgnote_object_from_memory(s.b, s.len, &v) == 0) {
                        const pkgnote_note *n;
                        if (pn_object_notes(v, &n) == 1)
                                res->note_offset = n[0].offset;
                        pkgnote_object_free(v);
                }
        }
        res->pe_image = 1;
        res->result_size = s.len;
        res->bytes_added = (int64_t)s.len - (int64_t)size;
        *ret = s.b;
        *ret_len = s.len;
        s.b = NULL;
        r = 0;
out:
        free(s.b);
        free(note);
        pkgnote_object_free(e);
        pkgnote_object_free(e0);
        return r;
}
