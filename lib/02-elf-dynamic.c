/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an object's dynamic section says it is and needs: DT_SONAME and
 * the DT_NEEDED names, as the dynamic loader reads them: PT_DYNAMIC's
 * entries, and the string table DT_STRTAB points at (an address, turned
 * into a file offset through the PT_LOAD segment that maps it).  Section
 * headers are not used: a stripped or hostile section table changes
 * nothing the loader would see.
 */
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "02-elf-view.h"

#define MAX_DYNAMIC (64u << 10) /* bytes of PT_DYNAMIC read */
#define MAX_STRTAB (4u << 20)
#define MAX_NEEDED 1024u

/* The file offset of address ADDR, with at least *AVAIL bytes of the
 * segment's file image after it: false when no PT_LOAD maps it. */
static bool vaddr_to_offset(const pkgnote_phdr *ph, int n, uint64_t addr, uint64_t *off, uint64_t *avail) {
        for (int i = 0; i < n; i++) {
                if (ph[i].type != PT_LOAD || addr < ph[i].vaddr || addr - ph[i].vaddr >= ph[i].filesz)
                        continue;
                *off = ph[i].offset + (addr - ph[i].vaddr);
                *avail = ph[i].filesz - (addr - ph[i].vaddr);
                return true;
        }
        return false;
}

void pn_free_strv(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

int pn_elf_dynamic(pkgnote_object *e, char **soname, char ***needed, size_t *n_needed) {
        struct pn_dynamic d;
        int r = pn_elf_dynamic_read(e, &d);
        if (r < 0)
                return r;
        *soname = d.soname, *needed = d.needed, *n_needed = d.n_needed;
        free(d.rpath);
        free(d.runpath);
        return 0;
}

void pn_dynamic_done(struct pn_dynamic *d) {
        pn_free_strv(d->needed, d->n_needed);
        free(d->soname);
        free(d->rpath);
        free(d->runpath);
        *d = (struct pn_dynamic){0};
}

int pn_elf_dynamic_read(pkgnote_object *e, struct pn_dynamic *out) {
        *out = (struct pn_dynamic){0};
        char **soname = &out->soname, ***needed = &out->needed;
        size_t *n_needed = &out->n_needed;
        *soname = NULL;
        *needed = NULL;
        *n_needed = 0;
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(e, &ph);
        const pkgnote_phdr *dyn = NULL;
        for (int i = 0; i < n; i++)
                if (ph[i].type == PT_DYNAMIC) {
                        dyn = &ph[i];
                        break;
                }
        if (!dyn || dyn->filesz == 0)
                return 0; /* static, or not linked */
        size_t esz = e->is64 ? 16 : 8;
        uint64_t len = dyn->filesz < MAX_DYNAMIC ? dyn->filesz : MAX_DYNAMIC;
        len -= len % esz;
        /* Only a prefix of the object was read: what lies beyond it is
         * unknown, not wrong. */
        if (e->partial && !pn_range_ok(dyn->offset, len, e->size))
                return 0;
        int err = 0;
        const uint8_t *d = pn_elf_bytes(e, dyn->offset, len, &err);
        if (!d)
                return err;
        /* Entries up to DT_NULL: string offsets first, the table after. */
        uint64_t strtab = 0, strsz = 0, so = UINT64_MAX, rpath = UINT64_MAX, runpath = UINT64_MAX;
        bool have_strtab = false;
        uint64_t *offs = NULL;
        size_t n_offs = 0;
        for (uint64_t k = 0; k + esz <= len; k += esz) {
                int64_t tag = e->is64 ? (int64_t)pn_rd64(d + k, e->be) : (int32_t)pn_rd32(d + k, e->be);
                uint64_t val = e->is64 ? pn_rd64(d + k + 8, e->be) : pn_rd32(d + k + 4, e->be);
                if (tag == DT_NULL)
                        break;
                if (tag == DT_STRTAB)
                        strtab = val, have_strtab = true;
                else if (tag == DT_STRSZ)
                        strsz = val;
                else if (tag == DT_SONAME)
                        so = val;
                else if (tag == DT_RPATH)
                        rpath = val;
                else if (tag == DT_RUNPATH)
                        runpath = val;
                else if (tag == DT_FLAGS_1)
                        out->flags_1 = val;
                else if (tag == DT_NEEDED) {
                        if (n_offs >= MAX_NEEDED) {
                                free(offs);
                                return pn_error(-E2BIG, "more than %u DT_NEEDED entries", MAX_NEEDED);
                        }
                        if (!(n_offs & (n_offs - 1))) {
                                uint64_t *p = realloc(offs, (n_offs ? 2 * n_offs : 1) * sizeof *offs);
                                if (!p) {
                                        free(offs);
                                        return pn_oom();
                                }
                                offs = p;
                        }
                        offs[n_offs++] = val;
                }
        }
        if (n_offs == 0 && so == UINT64_MAX && rpath == UINT64_MAX && runpath == UINT64_MAX) {
                free(offs);
                return 0;
        }
        uint64_t toff, avail;
        if (!have_strtab || strsz == 0 || !vaddr_to_offset(ph, n, strtab, &toff, &avail)) {
                free(offs);
                return pn_error(-EBADMSG, "the dynamic section's string table (DT_STRTAB) is not in a loaded segment");
        }
        if (strsz > avail)
                strsz = avail;
        if (strsz > MAX_STRTAB)
                strsz = MAX_STRTAB;
        if (e->partial && !pn_range_ok(toff, strsz, e->size)) {
                free(offs);
                return 0;
        }
        const uint8_t *tab = pn_elf_bytes(e, toff, strsz, &err);
        if (!tab) {
                free(offs);
                return err;
        }
        /* A string of the table: NUL-terminated inside it, not empty. */
#define STR_AT(o) ((o) < strsz && memchr(tab + (o), 0, strsz - (o)) && tab[o] ? (const char *)tab + (o) : NULL)
        int r = 0;
        char **v = calloc(n_offs ? n_offs : 1, sizeof *v);
        if (!v)
                r = pn_oom();
        size_t nv = 0;
        for (size_t i = 0; r == 0 && i < n_offs; i++) {
                const char *s = STR_AT(offs[i]);
                if (!s) {
                        r = pn_error(-EBADMSG, "a DT_NEEDED name lies outside the string table");
                        break;
                }
                if (!(v[nv++] = strdup(s)))
                        r = pn_oom();
        }
        if (r == 0 && so != UINT64_MAX) {
                const char *s = STR_AT(so);
                if (!s)
                        r = pn_error(-EBADMSG, "DT_SONAME lies outside the string table");
                else if (!(*soname = strdup(s)))
                        r = pn_oom();
        }
        /* Search paths: a malformed one is as if absent, as the loader
         * cannot use it either. */
        const char *rp = rpath != UINT64_MAX ? STR_AT(rpath) : NULL, *rnp = runpath != UINT64_MAX ? STR_AT(runpath) : NULL;
        if (r == 0 && rp && !(out->rpath = strdup(rp)))
                r = pn_oom();
        if (r == 0 && rnp && !(out->runpath = strdup(rnp)))
                r = pn_oom();
#undef STR_AT
        free(offs);
        if (r < 0) {
                pn_free_strv(v, nv);
                free(*soname);
                free(out->rpath);
                free(out->runpath);
                *out = (struct pn_dynamic){0};
                return r;
        }
        *needed = v;
        *n_needed = nv;
        return 0;
}
