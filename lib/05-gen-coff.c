/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The package metadata for PE/COFF builds: the .pkgnote section's bytes
 * (for objcopy --add-section) and a COFF object holding that section, for
 * mingw-w64's gcc and ld or lld-link to link in (Microsoft "PE Format":
 * "COFF File Header", "Section Table", "COFF Symbol Table", auxiliary
 * format 5 "Section Definitions").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "05-gen-emit.h"
#include "02-pe-view.h"

#define IMAGE_SYM_CLASS_STATIC 3

PKGNOTE_PUBLIC int pkgnote_emit_coff_section(const char *json, uint8_t **ret, size_t *ret_len) {
        uint8_t *note;
        size_t len;
        /* The ELF package note's descriptor is exactly the section: the
         * JSON checked by the same rules, its NUL, NULs to 4 bytes. */
        int r = pn_package_note_checked(json, 0, &note, &len);
        if (r < 0)
                return r;
        memmove(note, note + 16, len - 16);
        *ret = note;
        *ret_len = len - 16;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_emit_coff_object(const char *json, const pkgnote_target *target, uint8_t **ret,
                                            size_t *ret_len) {
        pkgnote_target copy;
        if (!target)
                return pn_error(-EINVAL, "no target given");
        int r0 = pn_struct_read(&copy, sizeof copy, target, PN_SIZE_1_0(pkgnote_target), "pkgnote_target");
        if (r0 < 0)
                return r0;
        const pkgnote_target *t = &copy;
        unsigned machine = pn_pe_machine_of(t->machine, t->elf_class);
        if (!machine || t->big_endian)
                return pn_error(-EINVAL, "no PE/COFF machine for target %s", t->name ? t->name : "(unnamed)");
        uint8_t *desc;
        size_t desc_len;
        int r = pkgnote_emit_coff_section(json, &desc, &desc_len);
        if (r < 0)
                return r;
        /* File header, one section header, the data, then the symbol
         * table (the section's symbol and its auxiliary record) and an
         * empty string table. */
        size_t data_off = PN_PE_COFF_SIZE + PN_PE_SECTION_SIZE, sym_off = data_off + desc_len;
        size_t size = sym_off + 2 * PN_PE_SYMBOL_SIZE + 4;
        uint8_t *b = calloc(1, size);
        if (!b) {
                free(desc);
                return pn_oom();
        }
        pn_wr16(b, (uint16_t)machine, false);
        pn_wr16(b + 2, 1, false);
        pn_wr32(b + 8, (uint32_t)sym_off, false);
        pn_wr32(b + 12, 2, false);
        uint8_t *s = b + PN_PE_COFF_SIZE;
        memcpy(s, PN_PE_NOTE_SECTION, 8);
        pn_wr32(s + 16, (uint32_t)desc_len, false);
        pn_wr32(s + 20, (uint32_t)data_off, false);
        pn_wr32(s + 36, PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ | PN_SCN_ALIGN_4BYTES, false);
        memcpy(b + data_off, desc, desc_len);
        uint8_t *sym = b + sym_off;
        memcpy(sym, PN_PE_NOTE_SECTION, 8);
        pn_wr16(sym + 12, 1, false); /* section number, 1-based */
        sym[16] = IMAGE_SYM_CLASS_STATIC;
        sym[17] = 1; /* one auxiliary record */
        uint8_t *aux = sym + PN_PE_SYMBOL_SIZE;
        pn_wr32(aux, (uint32_t)desc_len, false);
        pn_wr32(b + size - 4, 4, false); /* the string table holds only its size */
        free(desc);
        *ret = b;
        *ret_len = size;
        return 0;
}
