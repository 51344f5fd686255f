/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping PE/COFF images: the .pkgnote section added, replaced or
 * removed (UAPI.8 "PE/COFF section": one allocated, read-only,
 * initialized-data section holding the NUL-terminated JSON, NUL-padded).
 *
 * Nothing that is there moves: a new section gets the next free slot of
 * the section table (inside SizeOfHeaders' room, before the first
 * section's data: no headers are moved, so when there is no room the
 * file is refused), the next virtual address after the image, and file
 * bytes at the end of the file.  A note that fits where the old one was
 * replaces it there.  Removal takes out only a section that is last in
 * the image, so the image stays contiguous as loaders want it.
 * SizeOfImage, SizeOfHeaders and the optional header's checksum (when
 * the input had one) are computed again.  An Authenticode signature
 * covers the whole file: a signed file is refused unless the caller asks
 * for the signature to be dropped, then it is taken out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfview.h"
#include "gen-emit.h"
#include "pe.h"
#include "stamp-file.h"

static uint64_t align_up(uint64_t v, uint64_t a) {
        return a > 1 ? (v + a - 1) / a * a : v;
}

struct pestamp {
        uint8_t *b;
        size_t len;
        struct pn_pe *pe;
};

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

/* The lowest file offset of any section's data: the headers end there. */
static uint64_t first_data(const struct pn_pe *pe, uint64_t len) {
        uint64_t first = len;
        for (int i = 0; i < pe->n_sections; i++)
                if (pe->sections[i].raw_size && pe->sections[i].raw_off < first)
                        first = pe->sections[i].raw_off;
        return first;
}

static void set_image_size(struct pestamp *s, uint64_t end) {
        uint8_t *o = s->b + s->pe->opt_off;
        pn_wr32(o + 56, (uint32_t)align_up(end, s->pe->sect_align), false);
}

static int drop_signature(struct pestamp *s) {
        const struct pn_pe *pe = s->pe;
        uint64_t end = (uint64_t)pe->cert_off + pe->cert_size;
        if (end > s->len || align_up(end, 8) < s->len)
                return pn_error(-ENOTSUP, "the certificate table does not end the file: cannot drop the signature");
        memset(s->b + pe->dirs_off + 8 * PN_PE_DIR_SECURITY, 0, 8);
        s->len = pe->cert_off;
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

/* Where the file's claimed bytes end without section SKIP: the other
 * sections' data and the COFF symbol and string tables. */
static uint64_t data_end(const struct pestamp *s, int skip) {
        const struct pn_pe *pe = s->pe;
        uint64_t end = pe->size_headers;
        for (int i = 0; i < pe->n_sections; i++) {
                uint64_t e = (uint64_t)pe->sections[i].raw_off + pe->sections[i].raw_size;
                if (i != skip && pe->sections[i].raw_size && e > end)
                        end = e;
        }
        if (pe->symtab_off) {
                uint64_t tab = (uint64_t)pe->symtab_off + (uint64_t)pe->n_symbols * PN_PE_SYMBOL_SIZE;
                uint64_t e = tab + (pn_range_ok(tab, 4, s->len) ? pn_rd32(s->b + tab, false) : 0);
                if (e > end && e <= s->len) /* a table claimed past the file is no table */
                        end = e;
        }
        return end;
}

static int remove_section(struct pestamp *s, int i) {
        const struct pn_pe *pe = s->pe;
        const struct pn_pe_section *sec = &pe->sections[i];
        uint64_t end = (uint64_t)sec->vaddr + (sec->vsize ? sec->vsize : sec->raw_size);
        if (end < image_end(pe, -1) || image_end(pe, i) > sec->vaddr)
                return pn_error(-ENOSPC, "the %s section lies between other sections of the image: removing it would leave a gap (replace it instead)",
                                PN_PE_NOTE_SECTION);
        if (pn_range_ok(sec->raw_off, sec->raw_size, s->len)) {
                memset(s->b + sec->raw_off, 0, sec->raw_size);
                if ((uint64_t)sec->raw_off + sec->raw_size == s->len) {
                        /* Its bytes ended the file: they go, and so does the
                         * alignment padding before them that nothing else
                         * claims, so adding and removing gives back the file. */
                        uint64_t claimed = data_end(s, i);
                        s->len = sec->raw_off;
                        while (s->len > claimed && !s->b[s->len - 1])
                                s->len--;
                }
        }
        remove_entry(s, i);
        set_image_size(s, image_end(pe, i));
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
        if (len > sec->raw_size || sec->vaddr + len > room || !pn_range_ok(sec->raw_off, sec->raw_size, s->len))
                return 0;
        memset(s->b + sec->raw_off, 0, sec->raw_size);
        memcpy(s->b + sec->raw_off, desc, len);
        uint8_t *h = s->b + pe->sect_off + (size_t)i * PN_PE_SECTION_SIZE;
        pn_wr32(h + 8, (uint32_t)len, false);
        /* The spec's flags, whatever the old section had. */
        pn_wr32(h + 36, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ, false);
        return 1;
}

/* A new last section with DESC: its header in the table's free slot,
 * its bytes at the end of the file. */
static int add_section(struct pestamp *s, const uint8_t *desc, size_t len, uint64_t cap) {
        const struct pn_pe *pe = s->pe;
        uint64_t table_end = pe->sect_off + (uint64_t)(pe->n_sections + 1) * PN_PE_SECTION_SIZE;
        uint64_t headers = align_up(table_end, pe->file_align);
        if (headers < pe->size_headers)
                headers = pe->size_headers;
        if (pe->n_sections >= PKGNOTE_MAX_PE_SECTIONS || headers > first_data(pe, s->len) || table_end > s->len)
                return pn_error(-ENOSPC, "no room in the headers for another section entry (the headers would have to move)");
        const uint8_t *slot = s->b + table_end - PN_PE_SECTION_SIZE;
        for (size_t k = 0; k < PN_PE_SECTION_SIZE; k++)
                if (slot[k])
                        return pn_error(-ENOSPC, "no room in the headers for another section entry: the bytes after the section table are in use");
        uint64_t va = align_up(image_end(pe, -1), pe->sect_align);
        uint64_t end = data_end(s, -1);
        uint64_t raw = align_up(end > s->len ? end : s->len, pe->file_align), raw_size = align_up(len, pe->file_align);
        if (va + len > UINT32_MAX || raw + raw_size > UINT32_MAX || raw + raw_size > cap)
                return pn_error(-E2BIG, "the image would grow past 4 GiB");
        memset(s->b + s->len, 0, (size_t)(raw + raw_size - s->len));
        memcpy(s->b + raw, desc, len);
        s->len = (size_t)(raw + raw_size);
        uint8_t *h = s->b + table_end - PN_PE_SECTION_SIZE;
        memcpy(h, PN_PE_NOTE_SECTION, 8); /* exactly 8 bytes: no NUL, as the format allows */
        pn_wr32(h + 8, (uint32_t)len, false);
        pn_wr32(h + 12, (uint32_t)va, false);
        pn_wr32(h + 16, (uint32_t)raw_size, false);
        pn_wr32(h + 20, (uint32_t)raw, false);
        pn_wr32(h + 36, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ, false);
        wr_count(s, (uint16_t)(pe->n_sections + 1));
        pn_wr32(s->b + pe->opt_off + 60, (uint32_t)headers, false);
        set_image_size(s, va + len);
        return 0;
}

/* Checks the result holds exactly what was asked: JSON's package note
 * alone, or none. */
static int check_result(const uint8_t *b, size_t len, const char *json) {
        pkgnote_elf *e;
        pkgnote_info *info = NULL;
        int r = pkgnote_elf_from_memory(b, len, &e);
        if (r == 0 && (r = pkgnote_info_read(e, &info)) == 0) {
                size_t n = 0;
                const pkgnote_note *notes;
                int c = pkgnote_elf_notes(e, &notes);
                for (int i = 0; i < c; i++)
                        n += notes[i].where & PKGNOTE_NOTE_PE_SECTION ? 1 : 0;
                if (json ? n != 1 || pkgnote_info_package_count(info) != 1 ||
                                   strcmp(pkgnote_info_package_json(info, 0), json)
                         : n != 0)
                        r = pn_error(-EIO, "internal: the stamped image does not read back as expected");
        }
        pkgnote_info_free(info);
        pkgnote_elf_free(e);
        return r;
}

int pn_pe_stamp(const uint8_t *data, size_t size, const char *json, unsigned flags, uint8_t **ret, size_t *ret_len,
                pkgnote_stamp_result *res) {
        pkgnote_elf *e;
        int r = pkgnote_elf_from_memory(data, size, &e);
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
        uint64_t cap = (uint64_t)size + desc_len + 2 * (uint64_t)pe->file_align + 8;
        if (cap > SIZE_MAX || !(s.b = malloc((size_t)cap))) {
                r = pn_error(-ENOMEM, "out of memory");
                goto out;
        }
        memcpy(s.b, data, size);
        s.len = size;
        uint32_t had_checksum = pe->checksum;
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
                        /* The table and image as they are now. */
                        pkgnote_elf_free(e);
                        e = NULL;
                        if ((r = pkgnote_elf_from_memory(s.b, s.len, &e)) < 0)
                                goto out;
                        s.pe = e->pe;
                }
                if ((r = add_section(&s, desc, desc_len, cap)) < 0)
                        goto out;
                res->placement = PKGNOTE_PLACE_PE_SECTION;
        }
        bool changed = res->placement != PKGNOTE_PLACE_UNCHANGED && res->placement != PKGNOTE_PLACE_NONE;
        if (had_checksum && (changed || res->signature_removed)) {
                uint64_t at = s.pe->opt_off + 64;
                pn_wr32(s.b + at, pn_pe_checksum(s.b, s.len, at), false);
        }
        if (!changed && !res->signature_removed) {
                s.len = size; /* the same bytes */
        } else if ((r = check_result(s.b, s.len, json)) < 0)
                goto out;
        if (json) {
                res->note_size = desc_len;
                pkgnote_elf *v;
                if (pkgnote_elf_from_memory(s.b, s.len, &v) == 0) {
                        const pkgnote_note *n;
                        if (pkgnote_elf_notes(v, &n) == 1)
                                res->note_offset = n[0].offset;
                        pkgnote_elf_free(v);
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
        pkgnote_elf_free(e);
        return r;
}
