/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PE/COFF side of the object view (lib/02-pe.c), shared with the PE
 * stamper (lib/06-stamp-pe.c) and the linter. */
#ifndef PKGNOTE_PE_H
#define PKGNOTE_PE_H

#include <stdbool.h>
#include <stdint.h>

#include "01-base.h"

/* PE/COFF constants (Microsoft "PE Format"). */
#define PN_PE_DOS_LFANEW 0x3c
#define PN_PE_COFF_SIZE 20u
#define PN_PE_SECTION_SIZE 40u
#define PN_PE_SYMBOL_SIZE 18u
#define PN_PE_MAGIC_PE32 0x10b
#define PN_PE_MAGIC_PE32PLUS 0x20b
#define PN_PE_DIR_SECURITY 4u /* certificate table: a file offset, not an RVA */

#define PN_SCN_CNT_CODE 0x00000020u
#define PN_SCN_CNT_INITIALIZED_DATA 0x00000040u
#define PN_SCN_CNT_UNINITIALIZED_DATA 0x00000080u
#define PN_SCN_ALIGN_4BYTES 0x00300000u
#define PN_SCN_MEM_DISCARDABLE 0x02000000u
#define PN_SCN_MEM_EXECUTE 0x20000000u
#define PN_SCN_MEM_READ 0x40000000u
#define PN_SCN_MEM_WRITE 0x80000000u

#define PN_PE_FILE_DLL 0x2000u
/* "PE Format", FileAlignment: a power of 2 between 512 and 64 K. */
#define PN_PE_MAX_FILE_ALIGN 0x10000u

/* The section the UAPI specification names for PE/COFF files. */
#define PN_PE_NOTE_SECTION ".pkgnote"

struct pn_pe_section {
        char name[PKGNOTE_MAX_PE_SECTION_NAME + 1]; /* NUL-terminated; long names resolved */
        uint32_t vsize, vaddr, raw_size, raw_off, flags;
};

struct pn_pe {
        uint32_t pe_off;              /* "PE\0\0" */
        uint16_t machine, n_sections, opt_size, characteristics;
        uint32_t symtab_off, n_symbols;
        uint64_t opt_off, sect_off;   /* optional header, section table */
        uint16_t magic;               /* 0: a COFF object without optional header */
        uint32_t sect_align, file_align, size_image, size_headers, checksum;
        uint16_t subsystem, dll_characteristics;
        uint32_t n_dirs;
        uint64_t dirs_off;            /* data directories */
        uint32_t cert_off, cert_size; /* certificate table (Authenticode) */
        struct pn_pe_section *sections;
};

/* The bytes a section holds in the file: its raw data, no more than its
 * virtual size when it has one (the rest of the raw data is the file
 * alignment's padding). */
static inline uint32_t pn_pe_section_file_size(const struct pn_pe_section *s) {
        return s->vsize && s->vsize < s->raw_size ? s->vsize : s->raw_size;
}

/* 1 when the first N bytes of P begin a PE image ("MZ" and, where the DOS
 * header points, "PE\0\0"), for format bids over a file's head. */
bool pn_pe_magic(const uint8_t *p, size_t n);

/* Parses the headers and section table of the PE/COFF object E (whose
 * first bytes are "MZ"): -ENOEXEC for a DOS program without a PE header,
 * -EBADMSG, -E2BIG, -ENOMEM with pn_error set. */
struct pkgnote_object;
int pn_pe_parse(struct pkgnote_object *e, struct pn_pe **ret);
void pn_pe_free(struct pn_pe *pe);

/* E's .pkgnote sections as FDO package notes (E->notes, E->n_notes). */
int pn_pe_notes(struct pkgnote_object *e);

/* The image checksum of the SIZE bytes at B, the 4 at CHECKSUM_OFF
 * counted as zero (the algorithm of Windows' CheckSumMappedFile). */
uint32_t pn_pe_checksum(const uint8_t *b, size_t size, uint64_t checksum_off);

/* Stamps the PE image of SIZE bytes at DATA with the package note JSON
 * (NULL: removes it) into *RET (malloc()ed); RES tells what was done.
 * pkgnote_stamp_memory()'s errors, -EPERM a signed image without
 * PKGNOTE_STAMP_DROP_SIGNATURE, -ENOSPC no room for the section entry
 * or a note that cannot be removed without a gap in the image. */
int pn_pe_stamp(const uint8_t *data, size_t size, const char *json, unsigned flags, uint8_t **ret, size_t *ret_len,
                pkgnote_stamp_result *res);

/* Where a new last section of LEN bytes goes (lib/06-stamp-pe.c): its
 * virtual address at or past both IMAGE_END (the end of every section)
 * and the image's SIZE_IMAGE, aligned to SECT_ALIGN; SizeOfImage its
 * aligned end; its raw data at DATA_END (the end of the headers and of
 * every section's data), LEN + EXTRA bytes of it aligned to FILE_ALIGN,
 * and what followed shifted by SHIFT bytes.  The alignments are powers of two.  -E2BIG when any of
 * it would pass 4 GiB. */
struct pn_pe_place {
        uint32_t vaddr, size_image, raw_off, raw_size;
        uint64_t shift;
};
int pn_pe_place(uint32_t size_image, uint64_t image_end, uint32_t sect_align, uint64_t data_end,
                uint32_t file_align, uint64_t len, uint64_t extra, struct pn_pe_place *ret);

/* ELF machine number for a PE machine (so one architecture name table
 * serves both), 0 when there is none. */
unsigned pn_pe_elf_machine(unsigned pe_machine);
/* The COFF machine for an ELF machine and class, 0 when there is none. */
unsigned pn_pe_machine_of(unsigned elf_machine, int elf_class);

#endif
