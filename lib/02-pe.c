/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A checked view over PE/COFF images: the DOS header's pointer to the PE
 * signature, the COFF file header, the optional header (PE32 and PE32+),
 * its data directories and the section table, with long section names
 * through the COFF string table (Microsoft "PE Format": "MS-DOS Stub",
 * "COFF File Header", "Optional Header", "Section Table", "COFF String
 * Table").  The same object view as ELF serves it: every byte is read
 * through pn_elf_bytes(), fields by offset and width, little-endian as
 * the format is, and the .pkgnote sections become FDO package notes so
 * the report model, JSON and scans treat a PE file like an ELF one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "02-elf-view.h"
#include "02-pe-view.h"

bool pn_pe_magic(const uint8_t *p, size_t n) {
        if (n < PN_PE_DOS_LFANEW + 4 || p[0] != 'M' || p[1] != 'Z')
                return false;
        uint32_t off = pn_rd32(p + PN_PE_DOS_LFANEW, false);
        return pn_range_ok(off, 4, n) && !memcmp(p + off, "PE\0\0", 4);
}

/* COFF machines and the ELF machines of the same architectures; the
 * first entry of an ELF machine and class is what generators write. */
static const struct {
        uint16_t pe, elf;
        uint8_t elf_class; /* 0: either */
} machines[] = {
        {0x8664, EM_X86_64, 64},
        {0x014c, EM_386, 32},
        {0xaa64, EM_AARCH64, 64},
        {0x01c4, EM_ARM, 32}, /* ARMv7 Thumb-2, what Windows and EFI use */
        {0x01c0, EM_ARM, 0},
        {0x01c2, EM_ARM, 0},
        {0x5064, EM_RISCV, 64},
        {0x5032, EM_RISCV, 32},
        {0x5128, EM_RISCV, 0},
        {0x6264, 258, 64}, /* EM_LOONGARCH, not in every <elf.h> */
        {0x6232, 258, 32},
};

unsigned pn_pe_elf_machine(unsigned m) {
        for (size_t i = 0; i < ELEMENTSOF(machines); i++)
                if (machines[i].pe == m)
                        return machines[i].elf;
        return 0;
}

unsigned pn_pe_machine_of(unsigned elf_machine, int elf_class) {
        for (size_t i = 0; i < ELEMENTSOF(machines); i++)
                if (elf_machine && machines[i].elf == elf_machine && machines[i].elf_class == elf_class)
                        return machines[i].pe;
        return 0;
}

/* A long section name "/N": the NUL-terminated string at decimal offset
 * N of the string table after the symbol table. */
static int long_name(pkgnote_object *e, const struct pn_pe *pe, const char *field, char *out) {
        uint64_t off = 0;
        for (size_t i = 1; i < 8 && field[i]; i++) {
                if (!pn_ascii_digit(field[i]))
                        return pn_error(-EBADMSG, "section name \"%.8s\" is not a string table offset", field);
                off = off * 10 + (uint64_t)(field[i] - '0');
        }
        if (!pe->symtab_off)
                return pn_error(-EBADMSG, "long section name without a string table");
        uint64_t tab = (uint64_t)pe->symtab_off + (uint64_t)pe->n_symbols * PN_PE_SYMBOL_SIZE;
        int err;
        const uint8_t *h = pn_elf_bytes(e, tab, 4, &err);
        if (!h)
                return pn_error(-EBADMSG, "string table lies outside the file");
        uint32_t size = pn_rd32(h, false);
        if (size > PKGNOTE_MAX_PE_STRTAB)
                return pn_error(-E2BIG, "string table of %u bytes, more than the limit of %u", size,
                                PKGNOTE_MAX_PE_STRTAB);
        if (off < 4 || off >= size)
                return pn_error(-EBADMSG, "section name offset %llu outside the string table", (unsigned long long)off);
        uint64_t len = size - off < PKGNOTE_MAX_PE_SECTION_NAME + 1 ? size - off : PKGNOTE_MAX_PE_SECTION_NAME + 1;
        const uint8_t *s = pn_elf_bytes(e, tab + off, len, &err);
        if (!s)
                return pn_error(-EBADMSG, "string table lies outside the file");
        const uint8_t *nul = memchr(s, 0, (size_t)len);
        if (!nul)
                return pn_error(-EBADMSG, "long section name longer than %u bytes or not terminated",
                                PKGNOTE_MAX_PE_SECTION_NAME);
        memcpy(out, s, (size_t)(nul - s) + 1);
        return 0;
}

static int parse(pkgnote_object *e, struct pn_pe *pe) {
        int err;
        const uint8_t *h = pn_elf_bytes(e, 0, PN_PE_DOS_LFANEW + 4, &err);
        if (!h || h[0] != 'M' || h[1] != 'Z')
                return pn_error(-ENOEXEC, "not an ELF or PE file");
        pe->pe_off = pn_rd32(h + PN_PE_DOS_LFANEW, false);
        const uint8_t *sig = pn_elf_bytes(e, pe->pe_off, 4, &err);
        /* Without the signature it is a DOS program (or not ours): no
         * object this reader knows. */
        if (!sig || memcmp(sig, "PE\0\0", 4))
                return pn_error(-ENOEXEC, "an MZ file without a PE header");
        const uint8_t *c = pn_elf_bytes(e, (uint64_t)pe->pe_off + 4, PN_PE_COFF_SIZE, &err);
        if (!c)
                return pn_error(-EBADMSG, "truncated COFF header");
        pe->machine = pn_rd16(c, false);
        pe->n_sections = pn_rd16(c + 2, false);
        pe->symtab_off = pn_rd32(c + 8, false);
        pe->n_symbols = pn_rd32(c + 12, false);
        pe->opt_size = pn_rd16(c + 16, false);
        pe->characteristics = pn_rd16(c + 18, false);
        pe->opt_off = (uint64_t)pe->pe_off + 4 + PN_PE_COFF_SIZE;
        pe->sect_off = pe->opt_off + pe->opt_size;
        if (pe->n_sections > PKGNOTE_MAX_PE_SECTIONS)
                return pn_error(-E2BIG, "%u sections, more than the limit of %u", pe->n_sections,
                                PKGNOTE_MAX_PE_SECTIONS);
        if (pe->opt_size < 2)
                return pn_error(-EBADMSG, "optional header of %u bytes: not an image", pe->opt_size);
        const uint8_t *o = pn_elf_bytes(e, pe->opt_off, pe->opt_size, &err);
        if (!o)
                return pn_error(-EBADMSG, "truncated optional header");
        pe->magic = pn_rd16(o, false);
        if (pe->magic != PN_PE_MAGIC_PE32 && pe->magic != PN_PE_MAGIC_PE32PLUS)
                return pn_error(-EBADMSG, "unknown optional header magic 0x%x", pe->magic);
        bool plus = pe->magic == PN_PE_MAGIC_PE32PLUS;
        /* The fixed fields up to NumberOfRvaAndSizes. */
        uint32_t fixed = plus ? 112 : 96;
        if (pe->opt_size < fixed)
                return pn_error(-EBADMSG, "optional header of %u bytes, shorter than the %u of its fields",
                                pe->opt_size, fixed);
        pe->sect_align = pn_rd32(o + 32, false);
        pe->file_align = pn_rd32(o + 36, false);
        pe->size_image = pn_rd32(o + 56, false);
        pe->size_headers = pn_rd32(o + 60, false);
        pe->checksum = pn_rd32(o + 64, false);
        pe->subsystem = pn_rd16(o + 68, false);
        pe->dll_characteristics = pn_rd16(o + 70, false);
        pe->n_dirs = pn_rd32(o + fixed - 4, false);
        pe->dirs_off = pe->opt_off + fixed;
        /* The directories must fit in the optional header as declared. */
        if (pe->n_dirs > (pe->opt_size - fixed) / 8u)
                return pn_error(-EBADMSG, "%u data directories do not fit in the optional header", pe->n_dirs);
        if (pe->n_dirs > PN_PE_DIR_SECURITY) {
                pe->cert_off = pn_rd32(o + fixed + 8 * PN_PE_DIR_SECURITY, false);
                pe->cert_size = pn_rd32(o + fixed + 8 * PN_PE_DIR_SECURITY + 4, false);
        }
        if (!pe->n_sections)
                return 0;
        const uint8_t *t = pn_elf_bytes(e, pe->sect_off, (uint64_t)pe->n_sections * PN_PE_SECTION_SIZE, &err);
        if (!t)
                return pn_error(-EBADMSG, "section table lies outside the file");
        pe->sections = calloc(pe->n_sections, sizeof *pe->sections);
        if (!pe->sections)
                return pn_oom();
        /* T may be a chunk the long names' reads do not move: chunks stay
         * until the view is freed. */
        for (uint32_t i = 0; i < pe->n_sections; i++) {
                const uint8_t *s = t + (size_t)i * PN_PE_SECTION_SIZE;
                struct pn_pe_section *sec = &pe->sections[i];
                char field[9] = {0};
                memcpy(field, s, 8);
                sec->vsize = pn_rd32(s + 8, false);
                sec->vaddr = pn_rd32(s + 12, false);
                sec->raw_size = pn_rd32(s + 16, false);
                sec->raw_off = pn_rd32(s + 20, false);
                sec->flags = pn_rd32(s + 36, false);
                if (field[0] == '/') {
                        int r = long_name(e, pe, field, sec->name);
                        if (r < 0) {
                                /* A name is no reason to lose the file. */
                                (void)pn_elf_problem(e, r, "section %u: %s", i, pkgnote_last_error());
                                snprintf(sec->name, sizeof sec->name, "%s", field);
                        }
                } else
                        memcpy(sec->name, field, sizeof field);
        }
        return 0;
}

int pn_pe_parse(pkgnote_object *e, struct pn_pe **ret) {
        struct pn_pe *pe = calloc(1, sizeof *pe);
        if (!pe)
                return pn_oom();
        int r = parse(e, pe);
        if (r < 0) {
                pn_pe_free(pe);
                return r;
        }
        *ret = pe;
        return 0;
}

void pn_pe_free(struct pn_pe *pe) {
        if (!pe)
                return;
        free(pe->sections);
        free(pe);
}

int pn_pe_notes(pkgnote_object *e) {
        const struct pn_pe *pe = e->pe;
        size_t n = 0;
        for (uint32_t i = 0; i < pe->n_sections; i++)
                n += !strcmp(pe->sections[i].name, PN_PE_NOTE_SECTION);
        if (!n)
                return 0;
        if (n > PKGNOTE_MAX_NOTES)
                return pn_error(-E2BIG, "%zu %s sections, more than the limit of %u", n, PN_PE_NOTE_SECTION,
                                PKGNOTE_MAX_NOTES);
        e->notes = calloc(n, sizeof *e->notes);
        if (!e->notes)
                return pn_oom();
        for (uint32_t i = 0; i < pe->n_sections; i++) {
                const struct pn_pe_section *s = &pe->sections[i];
                if (strcmp(s->name, PN_PE_NOTE_SECTION))
                        continue;
                uint32_t size = pn_pe_section_file_size(s);
                if (size > PKGNOTE_MAX_DESC) {
                        (void)pn_elf_problem(e, -E2BIG, "%s section of %u bytes, more than the limit of %u",
                                             PN_PE_NOTE_SECTION, size, PKGNOTE_MAX_DESC);
                        continue;
                }
                int err;
                const uint8_t *d = pn_elf_bytes(e, s->raw_off, size, &err);
                if (!d) {
                        (void)pn_elf_problem(e, err, "%s section at offset 0x%x: %s", PN_PE_NOTE_SECTION,
                                             s->raw_off, pkgnote_last_error());
                        continue;
                }
                /* No ELF note header: the section's bytes are the
                 * descriptor, owner and type those of the package note. */
                e->notes[e->n_notes++] = (pkgnote_note){
                        .name = PKGNOTE_OWNER_FDO,
                        .namesz = sizeof PKGNOTE_OWNER_FDO,
                        .type = PKGNOTE_NT_FDO_PACKAGING_METADATA,
                        .desc = d,
                        .descsz = size,
                        .align = 1,
                        .offset = s->raw_off,
                        .size = size,
                        .where = PKGNOTE_NOTE_PE_SECTION,
                        .section = s->name,
                };
        }
        return (int)e->n_notes;
}

uint32_t pn_pe_checksum(const uint8_t *b, size_t size, uint64_t checksum_off) {
        uint64_t sum = 0;
        for (size_t i = 0; i < size; i += 2) {
                /* The checksum field itself counts as zero, wherever a
                 * hostile header put it. */
                uint32_t lo = i - checksum_off < 4 ? 0 : b[i];
                uint32_t hi = i + 1 >= size || i + 1 - checksum_off < 4 ? 0 : b[i + 1];
                sum += lo | hi << 8;
                sum = (sum & 0xffff) + (sum >> 16);
        }
        sum = (sum & 0xffff) + (sum >> 16);
        return (uint32_t)(sum + size);
}

/* ------------------------------------------------------------------ */
/* Public accessors                                                    */

PKGNOTE_PUBLIC int pkgnote_object_is_pe(const pkgnote_object *e) {
        return e && e->pe;
}

PKGNOTE_PUBLIC unsigned pkgnote_pe_machine(const pkgnote_object *e) {
        return e->pe ? e->pe->machine : 0;
}

PKGNOTE_PUBLIC unsigned pkgnote_pe_subsystem(const pkgnote_object *e) {
        return e->pe ? e->pe->subsystem : 0;
}

PKGNOTE_PUBLIC const char *pkgnote_pe_subsystem_name(unsigned subsystem) {
        switch (subsystem) {
        case 1: return "native";
        case 2: return "Windows GUI";
        case 3: return "Windows console";
        case 10: return "EFI application";
        case 11: return "EFI boot service driver";
        case 12: return "EFI runtime driver";
        case 13: return "EFI ROM";
        case 16: return "Windows boot application";
        default: return NULL;
        }
}

PKGNOTE_PUBLIC int pkgnote_pe_signed(const pkgnote_object *e) {
        return e->pe && e->pe->cert_off && e->pe->cert_size;
}

static const struct pn_pe_section *find(const pkgnote_object *e, const char *name) {
        if (!e->pe)
                return NULL;
        for (uint32_t i = 0; i < e->pe->n_sections; i++)
                if (!strcmp(e->pe->sections[i].name, name))
                        return &e->pe->sections[i];
        return NULL;
}

PKGNOTE_PUBLIC int pkgnote_pe_section_count(const pkgnote_object *e) {
        return e->pe ? e->pe->n_sections : pn_error(-ENOEXEC, "not a PE file");
}

PKGNOTE_PUBLIC int pkgnote_pe_section(const pkgnote_object *e, size_t i, const char **name, uint64_t *offset,
                                      uint64_t *size, uint32_t *flags) {
        if (!e->pe)
                return pn_error(-ENOEXEC, "not a PE file");
        if (i >= e->pe->n_sections)
                return 0;
        const struct pn_pe_section *s = &e->pe->sections[i];
        if (name)
                *name = s->name;
        if (offset)
                *offset = s->raw_off;
        if (size)
                *size = pn_pe_section_file_size(s);
        if (flags)
                *flags = s->flags;
        return 1;
}

PKGNOTE_PUBLIC int pkgnote_pe_section_data(pkgnote_object *e, const char *name, size_t max, const uint8_t **data,
                                           size_t *len) {
        if (!e->pe)
                return pn_error(-ENOEXEC, "not a PE file");
        const struct pn_pe_section *s = find(e, name);
        if (!s)
                return 0;
        uint32_t size = pn_pe_section_file_size(s);
        if (size > max)
                return pn_error(-E2BIG, "section %s of %u bytes, more than the %zu asked for", s->name, size, max);
        int err;
        const uint8_t *d = pn_elf_bytes(e, s->raw_off, size, &err);
        if (!d)
                return err;
        *data = d;
        *len = size;
        return 1;
}

PKGNOTE_PUBLIC int pkgnote_pe_dll(const pkgnote_object *e) {
        return e->pe && (e->pe->characteristics & PN_PE_FILE_DLL);
}

PKGNOTE_PUBLIC int pkgnote_pe_section_find(const pkgnote_object *e, const char *name, uint64_t *offset, uint64_t *size,
                                           uint32_t *flags) {
        if (!e->pe)
                return pn_error(-ENOEXEC, "not a PE file");
        const struct pn_pe_section *s = find(e, name);
        if (!s)
                return 0;
        return pkgnote_pe_section(e, (size_t)(s - e->pe->sections), NULL, offset, size, flags);
}

/* The bound of what a UKI's .uname section is read up to. */
#define MAX_UNAME 4096u

PKGNOTE_PUBLIC char *pkgnote_pe_uki_uname(pkgnote_object *e) {
        const uint8_t *d;
        size_t len;
        if (!e->pe || pkgnote_pe_section_data(e, ".uname", MAX_UNAME, &d, &len) <= 0)
                return NULL;
        const uint8_t *nul = memchr(d, 0, len);
        return strndup((const char *)d, nul ? (size_t)(nul - d) : len);
}
