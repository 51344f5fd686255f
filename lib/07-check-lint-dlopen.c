/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lint: libraries an object loads with dlopen() without declaring them in
 * a dlopen note.  The evidence is what scanners of images grade as such:
 * the object imports dlopen or dlmopen (an undefined symbol of .dynsym),
 * and its read-only or data sections hold library names ("lib*.so.N",
 * alone or at the end of a path).  NSS modules (libnss_*) are left out.  A name a dlopen note of the object
 * lists, or a DT_NEEDED entry, is accounted for; the rest is reported.
 */
#include <stdlib.h>
#include <string.h>

#include "07-check-lint-dlopen.h"
#include "02-elf-const.h"
#include "02-elf-view.h"

/* Bytes of the symbol table and of the sections looked through for
 * names; an object past them is looked at in part. */
#define MAX_DYNSYM (16u << 20)
#define MAX_SCANNED (64u << 20)

/* Does the object import dlopen or dlmopen? */
static bool imports_dlopen(pkgnote_object *e, const pkgnote_shdr *sh, int n) {
        const pkgnote_shdr *sym = NULL, *str = NULL;
        for (int i = 0; i < n; i++) {
                if (sh[i].type == SHT_DYNSYM && !sym)
                        sym = &sh[i];
                else if (sh[i].type == SHT_STRTAB && !strcmp(sh[i].name, ".dynstr") && !str)
                        str = &sh[i];
        }
        if (!sym || !str || sym->size > MAX_DYNSYM || str->size > MAX_DYNSYM)
                return false;
        int err;
        const uint8_t *s = pn_elf_bytes(e, sym->offset, sym->size, &err);
        if (!s)
                return false;
        /* pn_elf_bytes() may reuse its buffer: the names are copied out. */
        uint8_t *syms = malloc(sym->size ? sym->size : 1);
        if (!syms)
                return false;
        memcpy(syms, s, sym->size);
        const char *names = (const char *)pn_elf_bytes(e, str->offset, str->size, &err);
        bool is64 = pkgnote_object_class(e) == 64, be = pkgnote_object_big_endian(e), found = false;
        size_t esz = is64 ? 24 : 16;
        for (uint64_t o = 0; names && !found && o + esz <= sym->size; o += esz) {
                uint32_t name = pn_rd32(syms + o, be);
                uint16_t shndx = pn_rd16(syms + o + (is64 ? 6 : 14), be);
                if (shndx != SHN_UNDEF || name >= str->size)
                        continue;
                size_t max = str->size - name;
                const char *nm = names + name;
                if ((max > 6 && !memcmp(nm, "dlopen", 7)) || (max > 7 && !memcmp(nm, "dlmopen", 8)))
                        found = true;
        }
        free(syms);
        return found;
}

static bool name_char(uint8_t c) {
        return pn_ascii_alnum((char)c) || c == '_' || c == '-' || c == '+' || c == '.';
}

/* The library name ending at the NUL at P (in a section starting at
 * BASE): its start, or NULL.  "lib", name characters, ".so." and a
 * version of digits and dots, the whole string or its last component. */
static const uint8_t *soname_before(const uint8_t *base, const uint8_t *p) {
        const uint8_t *start = p;
        while (start > base && name_char(start[-1]))
                start--;
        if (start > base && start[-1] != '/' && start[-1] != '\0')
                return NULL;
        size_t len = (size_t)(p - start);
        if (len < 9 || memcmp(start, "lib", 3) != 0)
                return NULL;
        for (size_t i = 4; i + 4 < len; i++) {
                if (memcmp(start + i, ".so.", 4) != 0)
                        continue;
                size_t k = i + 4;
                if (!pn_ascii_digit((char)start[k]) || start[len - 1] == '.')
                        return NULL;
                for (; k < len; k++)
                        if (!pn_ascii_digit((char)start[k]) && start[k] != '.')
                                return NULL;
                return start;
        }
        return NULL;
}

static bool listed(char *const *v, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (!strcmp(v[i], s))
                        return true;
        return false;
}

static int add_name(char ***v, size_t *n, size_t *cap, const char *s, size_t len) {
        if (*n >= PN_LINT_MAX_EVIDENCE)
                return 0;
        for (size_t i = 0; i < *n; i++)
                if (strlen((*v)[i]) == len && !memcmp((*v)[i], s, len))
                        return 0;
        if (PN_GROW(*v, *cap, *n + 1) < 0 || !((*v)[*n] = strndup(s, len)))
                return -ENOMEM;
        (*n)++;
        return 0;
}

/* The sonames the object's dlopen notes list. */
static int declared(pkgnote_object *e, char ***v, size_t *n, size_t *cap) {
        const pkgnote_note *notes;
        int c = pn_object_notes(e, &notes);
        for (int i = 0; i < c; i++) {
                const char *json;
                size_t len;
                pkgnote_dlopen *d;
                if (!pkgnote_note_is(&notes[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA) ||
                    pkgnote_note_json(&notes[i], &json, &len) < 0 || pkgnote_dlopen_parse(json, len, &d) < 0)
                        continue;
                int r = 0;
                for (size_t k = 0; r == 0 && k < pkgnote_dlopen_count(d); k++)
                        for (size_t j = 0; r == 0 && j < pkgnote_dlopen_soname_count(d, k); j++) {
                                const char *s = pkgnote_dlopen_soname(d, k, j);
                                /* Every name counts, not only the first PN_LINT_MAX_EVIDENCE. */
                                if (!listed(*v, *n, s)) {
                                        if (PN_GROW(*v, *cap, *n + 1) < 0 || !((*v)[*n] = strdup(s)))
                                                r = -ENOMEM;
                                        else
                                                (*n)++;
                                }
                        }
                pkgnote_dlopen_free(d);
                if (r < 0)
                        return r;
        }
        return 0;
}

int pn_undeclared_dlopen(pkgnote_object *e, char ***ret, size_t *n_ret) {
        *ret = NULL;
        *n_ret = 0;
        unsigned type = pkgnote_object_type(e);
        const pkgnote_shdr *sh;
        int n = pn_object_shdrs(e, &sh);
        if ((type != ET_EXEC && type != ET_DYN) || n <= 0 || !imports_dlopen(e, sh, n))
                return 0;
        char **known = NULL, **found = NULL;
        size_t n_known = 0, cap_known = 0, n_found = 0, cap_found = 0;
        struct pn_dynamic dyn;
        int r = declared(e, &known, &n_known, &cap_known);
        if (r == 0 && pn_elf_dynamic_read(e, &dyn) == 0) {
                for (size_t i = 0; r == 0 && i < dyn.n_needed; i++)
                        if (!listed(known, n_known, dyn.needed[i])) {
                                if (PN_GROW(known, cap_known, n_known + 1) < 0 || !(known[n_known] = strdup(dyn.needed[i])))
                                        r = -ENOMEM;
                                else
                                        n_known++;
                        }
                pn_dynamic_done(&dyn);
        }
        uint64_t scanned = 0;
        for (int i = 0; r == 0 && i < n; i++) {
                const pkgnote_shdr *s = &sh[i];
                /* Data the program can hand to dlopen(): not code, not
                 * notes, not the dynamic string table (DT_NEEDED). */
                if (s->type != SHT_PROGBITS || !(s->flags & SHF_ALLOC) || (s->flags & SHF_EXECINSTR) || s->size == 0 ||
                    s->size > MAX_SCANNED - scanned || !strcmp(s->name, ".interp"))
                        continue;
                scanned += s->size;
                int err;
                const uint8_t *b = pn_elf_bytes(e, s->offset, s->size, &err);
                if (!b)
                        continue;
                for (const uint8_t *p = memchr(b, '\0', s->size); r == 0 && p; p = memchr(p + 1, '\0', (size_t)(b + s->size - p - 1))) {
                        const uint8_t *lib = soname_before(b, p);
                        if (!lib)
                                continue;
                        char name[256];
                        size_t len = (size_t)(p - lib);
                        if (len >= sizeof name)
                                continue;
                        memcpy(name, lib, len);
                        name[len] = '\0';
                        /* NSS modules are chosen by nsswitch.conf and
                         * loaded by glibc: a program naming one looks
                         * for what is loaded (systemd's userdb asks for
                         * libnss_systemd.so.2 with RTLD_NOLOAD), it
                         * does not depend on it. */
                        if (!listed(known, n_known, name) && strncmp(name, "libnss_", 7) != 0)
                                r = add_name(&found, &n_found, &cap_found, name, len);
                        if (p + 1 >= b + s->size)
                                break;
                }
        }
        pn_free_strv(known, n_known);
        if (r < 0) {
                pn_free_strv(found, n_found);
                return r == -ENOMEM ? pn_oom() : r;
        }
        *ret = found;
        *n_ret = n_found;
        return n_found > 0;
}
