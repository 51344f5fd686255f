/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Note walking and encoding (gABI "Note Section").
 *
 * A note is a 12-byte header (namesz, descsz, type) followed by the name
 * and the descriptor, each padded to the note alignment: 4, or 8 for
 * regions aligned to 8 (as GNU property notes are).  Padding is relative
 * to the start of the region, which the producer aligned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "02-elf-view.h"
#include "02-pe-view.h"

static int add_note(pkgnote_object *e, size_t *cap, const pkgnote_note *n) {
        if (e->n_notes >= PKGNOTE_MAX_NOTES)
                return pn_elf_problem(e, -E2BIG, "more than %u notes, ignoring the rest", PKGNOTE_MAX_NOTES);
        if (pn_grow(&e->notes, cap, e->n_notes + 1, sizeof *e->notes) < 0)
                return pn_oom();
        e->notes[e->n_notes++] = *n;
        return 0;
}

/* Walks the notes in file bytes [off, off+len).  A malformed note ends the
 * region (its length fields can no longer be trusted) and is recorded as a
 * problem; notes before it are kept. */
static int walk_region(pkgnote_object *e, size_t *cap, uint64_t off, uint64_t len, uint32_t align,
                       unsigned where, const char *section, const char *what) {
        int err;
        if (len == 0)
                return 0;
        /* In a prefix view (a module's page in a core) the region may run
         * past the bytes there are: walk what is there, and report the rest
         * as absent (-ENODATA), not malformed. */
        bool cut = false;
        if (e->partial && !pn_range_ok(off, len, e->size)) {
                if (off >= e->size)
                        return pn_elf_problem(e, -ENODATA, "%s at offset 0x%llx: lies beyond the bytes available",
                                              what, (unsigned long long)off);
                len = e->size - off;
                cut = true;
        }
        int bad = cut ? -ENODATA : -EBADMSG;
        const uint8_t *base = pn_elf_bytes(e, off, len, &err);
        if (!base && err == -ENOMEM)
                return err; /* the reading's failure, not the file's */
        if (!base && (err == -EBADMSG || err == -ENODATA))
                return pn_elf_problem(e, err, "%s at offset 0x%llx: lies outside the file", what,
                                      (unsigned long long)off);
        if (!base) /* over the limit, or the read failed: said as it is */
                return pn_elf_problem(e, err, "%s at offset 0x%llx: %s", what, (unsigned long long)off,
                                      pkgnote_last_error());
        uint64_t pos = 0;
        while (pos < len) {
                if (len - pos < 12) {
                        for (uint64_t i = pos; !cut && i < len; i++)
                                if (base[i] != 0)
                                        return pn_elf_problem(e, -EBADMSG,
                                                "%s at offset 0x%llx: %llu stray bytes after the last note",
                                                what, (unsigned long long)off, (unsigned long long)(len - pos));
                        break; /* zero padding at the end of the region */
                }
                const uint8_t *h = base + pos;
                pkgnote_note n = {0};
                n.namesz = pn_rd32(h, e->be);
                n.descsz = pn_rd32(h + 4, e->be);
                n.type = pn_rd32(h + 8, e->be);
                uint64_t name_at = pos + 12;
                uint64_t desc_at = ALIGN_UP(name_at + n.namesz, align);
                uint64_t end = ALIGN_UP(desc_at + n.descsz, align);
                /* 64-bit arithmetic on 32-bit sizes cannot overflow here. */
                if (name_at + n.namesz > len)
                        return pn_elf_problem(e, bad,
                                              "note at offset 0x%llx: name size %u runs past the end of the %s",
                                              (unsigned long long)(off + pos), n.namesz,
                                              cut ? "bytes available" : what);
                if (desc_at + n.descsz > len)
                        return pn_elf_problem(e, bad,
                                              "note at offset 0x%llx: descriptor size %u runs past the end of the %s",
                                              (unsigned long long)(off + pos), n.descsz,
                                              cut ? "bytes available" : what);
                n.name = (const char *)base + name_at;
                n.desc = base + desc_at;
                n.align = align;
                n.offset = off + pos;
                /* The final padding may be cut off by the region's end. */
                n.size = (end > len ? len : end) - pos;
                n.where = where;
                n.section = section;
                int r = add_note(e, cap, &n);
                if (r < 0)
                        return r;
                pos = end;
        }
        if (cut)
                return pn_elf_problem(e, -ENODATA, "%s at offset 0x%llx: continues beyond the bytes available",
                                      what, (unsigned long long)off);
        return 0;
}

static int cmp_note(const void *a, const void *b) {
        const pkgnote_note *x = a, *y = b;
        if (x->offset != y->offset)
                return x->offset < y->offset ? -1 : 1;
        /* Keep segment entries before section entries for merging. */
        return (int)(x->where & PKGNOTE_NOTE_IN_SECTION) - (int)(y->where & PKGNOTE_NOTE_IN_SECTION);
}

static bool inside_load(pkgnote_object *e, uint64_t off, uint64_t len) {
        for (uint32_t i = 0; i < e->phnum; i++) {
                const pkgnote_phdr *p = &e->phdrs[i];
                if (p->type == PT_LOAD && off >= p->offset && pn_range_ok(off - p->offset, len, p->filesz))
                        return true;
        }
        return false;
}

/* True when [off, off+len) walks as notes of alignment ALIGN to its end. */
static bool walks_clean(pkgnote_object *e, uint64_t off, uint64_t len, uint32_t align) {
        int err;
        const uint8_t *b = pn_range_ok(off, len, e->size) ? pn_elf_bytes(e, off, len, &err) : NULL;
        if (!b)
                return false;
        uint64_t pos = 0;
        while (pos < len && len - pos >= 12) {
                uint64_t desc_at = ALIGN_UP(pos + 12 + pn_rd32(b + pos, e->be), align);
                uint64_t end = desc_at + pn_rd32(b + pos + 4, e->be);
                if (end > len)
                        return false;
                pos = ALIGN_UP(end, align);
        }
        return true;
}

/* The alignment to walk a PT_NOTE with.  gABI: 8 when p_align is 8.  But
 * some linkers (mold 1.x) put 4-byte notes (build-id, package) into the
 * same 8-aligned PT_NOTE as the GNU property note; such a segment only
 * walks cleanly with 4, which also walks property notes correctly (their
 * name is 4 bytes and their descriptor a multiple of 8). */
static uint32_t segment_align(pkgnote_object *e, const pkgnote_phdr *p) {
        if (p->align != 8)
                return 4;
        if (!walks_clean(e, p->offset, p->filesz, 8) && walks_clean(e, p->offset, p->filesz, 4))
                return 4;
        return 8;
}

/* Whether a PT_LOAD starting at file offset 0 maps bytes [0, end). */
static bool first_load_covers(pkgnote_object *e, uint64_t end) {
        for (uint32_t i = 0; i < e->phnum; i++) {
                const pkgnote_phdr *p = &e->phdrs[i];
                if (p->type == PT_LOAD && p->offset == 0 && p->filesz >= end)
                        return true;
        }
        return false;
}

/* Whether the section table says PT_NOTE P describes another file's
 * bytes.  A separate debug file (eu-strip -f, objcopy --only-keep-debug)
 * keeps the stripped file's program headers and its sections' addresses,
 * but its allocated sections became SHT_NOBITS and its notes moved, so
 * P_OFFSET points at unrelated bytes (or at another note).  A linker
 * starts a PT_NOTE at a note section, at the same address and offset:
 * when the note section at the segment's address lies at another offset,
 * the sections are the truth.  A segment no section starts at (a note
 * added after linking) is read as it is.  Core files have no such
 * sections and are never judged so. */
static bool segment_stale(const pkgnote_object *e, const pkgnote_phdr *p, const pkgnote_shdr *s, int ns) {
        if (e->type == ET_CORE || p->vaddr == 0)
                return false;
        for (int i = 0; i < ns; i++)
                if (s[i].type == SHT_NOTE && s[i].addr == p->vaddr)
                        return s[i].offset != p->offset;
        return false;
}

/* The allocated SHT_NOBITS section at an address of PT_NOTE P, or NULL.
 * Older strip and objcopy turned a debug file's note sections into
 * SHT_NOBITS (elfutils' testfile15.debug: .note.ABI-tag at the PT_NOTE's
 * address has no bytes, and the PT_NOTE's offset holds .stab), so no note
 * section names another offset; yet a segment's bytes are in the file and
 * a section without file bytes cannot lie among them.  TLS sections are
 * not counted: .tbss shares its addresses with the sections after it. */
static const pkgnote_shdr *segment_in_nobits(const pkgnote_object *e, const pkgnote_phdr *p, const pkgnote_shdr *s,
                                             int ns) {
        if (e->type == ET_CORE || p->vaddr == 0 || p->filesz == 0 || p->vaddr > UINT64_MAX - p->filesz)
                return NULL;
        for (int i = 0; i < ns; i++)
                if (s[i].type == SHT_NOBITS && (s[i].flags & SHF_ALLOC) && !(s[i].flags & SHF_TLS) && s[i].size &&
                    s[i].addr < p->vaddr + p->filesz && p->vaddr - s[i].addr < s[i].size)
                        return &s[i];
        return NULL;
}

static int read_notes(pkgnote_object *e) {
        size_t cap = 0;
        int r;
        const pkgnote_shdr *s;
        int ns = pn_object_shdrs(e, &s);
        for (uint32_t i = 0; i < e->phnum; i++) {
                const pkgnote_phdr *p = &e->phdrs[i];
                if (p->type != PT_NOTE)
                        continue;
                if (ns > 0 && segment_stale(e, p, s, ns)) {
                        if (!e->notes_warning &&
                            asprintf(&e->notes_warning,
                                     "PT_NOTE at offset 0x%llx holds no note section: the program headers describe another file (a separate debug file?); notes were read from the sections",
                                     (unsigned long long)p->offset) < 0)
                                e->notes_warning = NULL;
                        continue;
                }
                const pkgnote_shdr *nobits = ns > 0 ? segment_in_nobits(e, p, s, ns) : NULL;
                if (nobits) {
                        if (!e->notes_warning &&
                            asprintf(&e->notes_warning,
                                     "PT_NOTE at offset 0x%llx lies in section %s, which has no bytes in this file (SHT_NOBITS): the program headers describe another file (a separate debug file?); notes were read from the sections",
                                     (unsigned long long)p->offset, nobits->name[0] ? nobits->name : "(unnamed)") < 0)
                                e->notes_warning = NULL;
                        continue;
                }
                r = walk_region(e, &cap, p->offset, p->filesz, segment_align(e, p),
                                PKGNOTE_NOTE_IN_SEGMENT, NULL, "PT_NOTE segment");
                if (r == -ENOMEM)
                        return r;
        }
        if (ns == -ENOMEM)
                return ns;
        if (ns < 0)
                pn_elf_problem(e, ns, "section headers: %s", pkgnote_last_error());
        for (int i = 0; i < ns; i++) {
                if (s[i].type != SHT_NOTE)
                        continue;
                r = walk_region(e, &cap, s[i].offset, s[i].size, s[i].align == 8 ? 8 : 4,
                                PKGNOTE_NOTE_IN_SECTION, s[i].name, "note section");
                if (r == -ENOMEM)
                        return r;
        }
        if (e->n_notes == 0)
                return 0;

        /* One entry per offset: a segment and a section usually cover the
         * same note.  Merge their flags and keep the section name. */
        qsort(e->notes, e->n_notes, sizeof *e->notes, cmp_note);
        size_t out = 0;
        for (size_t i = 0; i < e->n_notes; i++) {
                pkgnote_note *n = &e->notes[i];
                if (out > 0 && e->notes[out - 1].offset == n->offset) {
                        pkgnote_note *m = &e->notes[out - 1];
                        m->where |= n->where;
                        if (!m->section)
                                m->section = n->section;
                        continue;
                }
                e->notes[out++] = *n;
        }
        e->n_notes = out;
        /* The kernel dumps the first page of a mapping at offset 0: a note
         * reaches a core when it, the ELF header and the program headers
         * lie in that page and the PT_LOAD mapping offset 0 covers it. */
        bool headers_in_page = e->phoff + (uint64_t)e->phnum * e->phentsize <= PN_FIRST_PAGE;
        for (size_t i = 0; i < e->n_notes; i++) {
                pkgnote_note *n = &e->notes[i];
                if ((n->where & PKGNOTE_NOTE_IN_SEGMENT) && inside_load(e, n->offset, n->size)) {
                        n->where |= PKGNOTE_NOTE_LOADED;
                        if (headers_in_page && n->offset + n->size <= PN_FIRST_PAGE &&
                            first_load_covers(e, n->offset + n->size))
                                n->where |= PKGNOTE_NOTE_FIRST_PAGE;
                }
        }
        return 0;
}

int pn_object_notes(pkgnote_object *e, const pkgnote_note **ret) {
        if (!e->notes_read) {
                e->notes_read = true;
                e->notes_err = e->pe ? pn_pe_notes(e) : read_notes(e);
        }
        if (e->notes_err < 0)
                return e->notes_err;
        *ret = e->notes;
        return (int)e->n_notes;
}

PKGNOTE_PUBLIC const char *pkgnote_object_notes_warning(pkgnote_object *e) {
        const pkgnote_note *n;
        (void)pn_object_notes(e, &n);
        return e->notes_warning;
}

PKGNOTE_PUBLIC int pkgnote_note_is(const pkgnote_note *n, const char *owner, uint32_t type) {
        size_t len = strlen(owner) + 1;
        return n->type == type && n->namesz == len && memcmp(n->name, owner, len) == 0;
}

PKGNOTE_PUBLIC int pkgnote_note_json(const pkgnote_note *n, const char **json, size_t *len) {
        if (n->descsz > PKGNOTE_MAX_DESC)
                return pn_error(-E2BIG, "descriptor of %u bytes, more than the limit of %u", n->descsz,
                                PKGNOTE_MAX_DESC);
        const uint8_t *nul = memchr(n->desc, 0, n->descsz);
        if (!nul)
                return pn_error(-EBADMSG, "descriptor is not NUL-terminated");
        /* Whatever follows the first NUL must be padding. */
        for (const uint8_t *p = nul; p < n->desc + n->descsz; p++)
                if (*p)
                        return pn_error(-EBADMSG, "descriptor has bytes after its terminating NUL");
        *json = (const char *)n->desc;
        *len = (size_t)(nul - n->desc);
        return 0;
}

#define MAX_BUILD_ID 64u

PKGNOTE_PUBLIC int pkgnote_object_build_id(pkgnote_object *e, const uint8_t **id, size_t *len) {
        const pkgnote_note *n;
        int c = pn_object_notes(e, &n);
        if (c < 0)
                return c;
        for (int i = 0; i < c; i++)
                if (pkgnote_note_is(&n[i], PKGNOTE_OWNER_GNU, PKGNOTE_NT_GNU_BUILD_ID) &&
                    n[i].descsz > 0 && n[i].descsz <= MAX_BUILD_ID) {
                        *id = n[i].desc;
                        *len = n[i].descsz;
                        return 1;
                }
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_note_encode(const char *owner, uint32_t type, const void *desc,
                                       size_t desc_len, int big_endian, uint8_t **ret,
                                       size_t *ret_len) {
        size_t namesz = strlen(owner) + 1;
        if (desc_len > PKGNOTE_MAX_DESC)
                return pn_error(-E2BIG, "descriptor of %zu bytes, more than the limit of %u", desc_len,
                                PKGNOTE_MAX_DESC);
        if (namesz > 256)
                return pn_error(-EINVAL, "owner name too long");
        size_t total = 12 + ALIGN_UP(namesz, 4) + ALIGN_UP(desc_len, 4);
        uint8_t *b = calloc(1, total);
        if (!b)
                return pn_oom();
        pn_wr32(b, (uint32_t)namesz, big_endian);
        pn_wr32(b + 4, (uint32_t)desc_len, big_endian);
        pn_wr32(b + 8, type, big_endian);
        memcpy(b + 12, owner, namesz);
        if (desc_len)
                memcpy(b + 12 + ALIGN_UP(namesz, 4), desc, desc_len);
        *ret = b;
        *ret_len = total;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_package_note_encode(const char *json, int big_endian, uint8_t **ret,
                                               size_t *ret_len) {
        /* ld.bfd: descsz is strlen + 1 rounded up to 4, the padding NULs
         * counted in the descriptor (binutils ld/ldelf.c). */
        size_t len = strlen(json);
        if (len + 1 > PKGNOTE_MAX_JSON)
                return pn_error(-E2BIG, "JSON of %zu bytes, more than the limit of %u", len,
                                PKGNOTE_MAX_JSON);
        size_t padded = ALIGN_UP(len + 1, 4);
        char *desc = calloc(1, padded);
        if (!desc)
                return pn_oom();
        memcpy(desc, json, len);
        int r = pkgnote_note_encode(PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA, desc, padded,
                                    big_endian, ret, ret_len);
        free(desc);
        return r;
}

/* The public accessors hand out one element at a time, so that the
 * structs may grow: the arrays stay the library's. */
PKGNOTE_PUBLIC int pkgnote_object_note_count(pkgnote_object *e) {
        const pkgnote_note *n;
        return pn_object_notes(e, &n);
}

PKGNOTE_PUBLIC const pkgnote_note *pkgnote_object_note(pkgnote_object *e, size_t i) {
        const pkgnote_note *n;
        int r = pn_object_notes(e, &n);
        return r < 0 || i >= (size_t)r ? NULL : &n[i];
}

PKGNOTE_PUBLIC int pkgnote_object_phdr_count(pkgnote_object *e) {
        const pkgnote_phdr *ph;
        return pn_object_phdrs(e, &ph);
}

PKGNOTE_PUBLIC const pkgnote_phdr *pkgnote_object_phdr(pkgnote_object *e, size_t i) {
        const pkgnote_phdr *ph;
        int r = pn_object_phdrs(e, &ph);
        return r < 0 || i >= (size_t)r ? NULL : &ph[i];
}

PKGNOTE_PUBLIC int pkgnote_object_shdr_count(pkgnote_object *e) {
        const pkgnote_shdr *sh;
        return pn_object_shdrs(e, &sh);
}

PKGNOTE_PUBLIC const pkgnote_shdr *pkgnote_object_shdr(pkgnote_object *e, size_t i) {
        const pkgnote_shdr *sh;
        int r = pn_object_shdrs(e, &sh);
        return r < 0 || i >= (size_t)r ? NULL : &sh[i];
}
