/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Modules of a core that has no NT_FILE note (kernels before 3.7, other
 * dumpers): found as eu-unstrip finds them, from the process's own memory
 * as dumped.
 *
 *  - ELF headers: each dumped PT_LOAD that starts with an ELF header of
 *    the core's class, byte order and machine is a module's first page;
 *    its program headers give the module's extent.
 *  - The dynamic linker's list (glibc <link.h>): the executable's program
 *    headers (AT_PHDR, AT_PHNUM) lead to its PT_DYNAMIC, DT_DEBUG there to
 *    struct r_debug, whose r_map starts the link_map chain: l_addr (the
 *    load bias), l_name, l_ld, l_next.  It names the modules; a module
 *    whose header page was not dumped is still listed.
 *
 * Every read is of dumped bytes through the core's bounds-checked view;
 * the chain is followed for at most PKGNOTE_MAX_MODULES links, so a cycle
 * or a hostile pointer ends the walk, never the reader.  A stream (a
 * compressed or piped core) cannot be read at random: it is not searched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "02-elf-const.h"
#include "02-elf-view.h"

#define MAX_NAME 4096u
#define MAX_DYN 4096u   /* dynamic entries looked at */
#define MAX_PHNUM 1024u /* program headers of a module */
#define MAX_LOADS 65536u /* core segments searched for ELF headers */

/* The dumped bytes at ADDR, LEN of them, or NULL. */
static const uint8_t *mem(pkgnote_core *c, uint64_t addr, uint64_t len) {
        uint64_t off, avail;
        int err;
        if (!pn_core_dumped_at(c, addr, &off, &avail) || len > avail)
                return NULL;
        return pn_elf_bytes(c->view, off, len, &err);
}

static bool word_at(pkgnote_core *c, uint64_t addr, uint64_t *v) {
        const uint8_t *p = mem(c, addr, c->is64 ? 8 : 4);
        if (p)
                *v = pn_core_word(c, p);
        return p != NULL;
}

/* A NUL-terminated string of at most MAX_NAME bytes, copied, or NULL. */
static char *string_at(pkgnote_core *c, uint64_t addr) {
        for (uint64_t len = 64; len <= MAX_NAME; len *= 4) {
                const uint8_t *p = mem(c, addr, len);
                if (!p) {
                        /* Maybe close to the end of the segment: byte by byte. */
                        char buf[MAX_NAME];
                        for (size_t i = 0; i < MAX_NAME; i++) {
                                const uint8_t *b = mem(c, addr + i, 1);
                                if (!b)
                                        return NULL;
                                buf[i] = (char)*b;
                                if (!*b) {
                                        char *s = strdup(buf);
                                        if (!s)
                                                c->oom = true;
                                        return s;
                                }
                        }
                        return NULL;
                }
                const uint8_t *nul = memchr(p, 0, len);
                if (nul)
                        return strndup((const char *)p, (size_t)(nul - p));
        }
        return NULL;
}

struct found {
        uint64_t start, end, bias;
        bool header; /* an ELF header was dumped at START */
        char *name;
        uint64_t ld; /* l_ld, for matching */
};

/* The extent of the module whose header page is at ADDR: its PT_LOADs
 * from the dumped page, biased, and how many bytes its ELF header and
 * program headers take from ADDR.  False when it is no module of this
 * core. */
static bool header_extent(pkgnote_core *c, uint64_t addr, uint64_t *end, uint64_t *bias, uint64_t *hdr_len) {
        const uint8_t *h = mem(c, addr, c->is64 ? 64 : 52);
        if (!h || memcmp(h, ELFMAG, SELFMAG) || h[EI_CLASS] != (c->is64 ? ELFCLASS64 : ELFCLASS32) ||
            h[EI_DATA] != (c->be ? ELFDATA2MSB : ELFDATA2LSB))
                return false;
        unsigned type = pn_rd16(h + 16, c->be), machine = pn_rd16(h + 18, c->be);
        if ((type != ET_EXEC && type != ET_DYN) || machine != c->machine)
                return false;
        uint64_t phoff = c->is64 ? pn_rd64(h + 32, c->be) : pn_rd32(h + 28, c->be);
        unsigned phentsize = pn_rd16(h + (c->is64 ? 54 : 42), c->be), phnum = pn_rd16(h + (c->is64 ? 56 : 44), c->be);
        if (phnum == 0 || phnum > MAX_PHNUM || phentsize < (c->is64 ? 56u : 32u) || phoff > c->page)
                return false;
        const uint8_t *p = mem(c, addr + phoff, (uint64_t)phnum * phentsize);
        if (!p)
                return false;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (unsigned i = 0; i < phnum; i++, p += phentsize) {
                if (pn_rd32(p, c->be) != PT_LOAD)
                        continue;
                uint64_t va = c->is64 ? pn_rd64(p + 16, c->be) : pn_rd32(p + 8, c->be);
                uint64_t msz = c->is64 ? pn_rd64(p + 40, c->be) : pn_rd32(p + 20, c->be);
                if (va > UINT64_MAX - msz)
                        return false;
                lo = va < lo ? va : lo;
                hi = va + msz > hi ? va + msz : hi;
        }
        lo &= ~(c->page - 1);
        if (hi > UINT64_MAX - c->page)
                return false;
        hi = (hi + c->page - 1) & ~(c->page - 1); /* mappings end on pages */
        if (lo == UINT64_MAX || hi <= lo || addr < lo || hi - lo > UINT64_MAX - addr)
                return false;
        *bias = addr - lo;
        *end = addr + (hi - lo);
        uint64_t ph_end = phoff + (uint64_t)phnum * phentsize, eh = c->is64 ? 64 : 52;
        *hdr_len = ph_end > eh ? ph_end : eh;
        return true;
}

/* Whether the header at ADDR is the one at PREV again, byte for byte: the
 * same file mapped a second time from offset 0.  A small program's data
 * segment shares the file's first page with its text (testfile69: text at
 * 0x400000, data at file offset 0xe10 mapped at 0x600e10), so the page at
 * 0x600000 starts with the ELF header too; it is that module's second
 * mapping, not a module.  eu-unstrip skips it alike (the segments inside a
 * module it has found are that module's). */
static bool same_header(pkgnote_core *c, uint64_t prev, uint64_t addr, uint64_t len) {
        const uint8_t *a = mem(c, prev, len), *b = mem(c, addr, len);
        return a && b && !memcmp(a, b, (size_t)len);
}

/* r_debug from the executable's PT_DYNAMIC (DT_DEBUG), or 0. */
static uint64_t find_r_debug(pkgnote_core *c) {
        uint64_t w = c->is64 ? 8 : 4, phent = c->is64 ? 56 : 32;
        if (!c->auxv_phdr || c->auxv_phnum == 0 || c->auxv_phnum > MAX_PHNUM)
                return 0;
        const uint8_t *p = mem(c, c->auxv_phdr, c->auxv_phnum * phent);
        if (!p)
                return 0;
        uint64_t bias = 0, dyn = 0;
        bool have_bias = false;
        for (uint64_t i = 0; i < c->auxv_phnum; i++, p += phent) {
                uint32_t type = pn_rd32(p, c->be);
                uint64_t va = c->is64 ? pn_rd64(p + 16, c->be) : pn_rd32(p + 8, c->be);
                if (type == PT_PHDR) {
                        bias = c->auxv_phdr - va;
                        have_bias = true;
                } else if (type == PT_DYNAMIC)
                        dyn = va;
        }
        if (!dyn || !have_bias)
                return 0;
        for (uint64_t i = 0; i < MAX_DYN; i++) {
                uint64_t tag, val;
                if (!word_at(c, dyn + bias + i * 2 * w, &tag) || !word_at(c, dyn + bias + i * 2 * w + w, &val) ||
                    tag == DT_NULL)
                        return 0;
                if (tag == DT_DEBUG)
                        return val;
        }
        return 0;
}

/* The link_map chain: names, biases and l_ld of the loaded objects. */
static size_t walk_link_map(pkgnote_core *c, struct found **ret) {
        if (c->src)
                return *ret = NULL, 0; /* a stream is not read at random */
        uint64_t w = c->is64 ? 8 : 4, lm;
        uint64_t r_debug = find_r_debug(c);
        *ret = NULL;
        /* struct r_debug { int r_version; struct link_map *r_map; ... } */
        if (!r_debug || !word_at(c, r_debug + w, &lm))
                return 0;
        size_t n = 0, cap = 0, steps = 0;
        struct found *f = NULL;
        uint64_t *seen = malloc(PKGNOTE_MAX_MODULES * sizeof *seen);
        if (!seen)
                c->oom = true;
        for (; seen && lm && steps < PKGNOTE_MAX_MODULES; steps++) {
                /* A hostile chain may loop: each link is taken once. */
                bool again = false;
                for (size_t i = 0; i < steps && !again; i++)
                        again = seen[i] == lm;
                if (again)
                        break;
                seen[steps] = lm;
                uint64_t addr, name, ld, next;
                if (!word_at(c, lm, &addr) || !word_at(c, lm + w, &name) || !word_at(c, lm + 2 * w, &ld) ||
                    !word_at(c, lm + 3 * w, &next))
                        break;
                char *s = name ? string_at(c, name) : NULL;
                if (s && s[0]) {
                        if (PN_GROW(f, cap, n + 1) < 0) {
                                free(s);
                                c->oom = true;
                                break;
                        }
                        f[n++] = (struct found){.bias = addr, .name = s, .ld = ld};
                } else
                        free(s);
                lm = next;
        }
        free(seen);
        *ret = f;
        return n;
}

int pn_core_discover_modules(pkgnote_core *c, pn_core_add_fn add) {
        if (c->src) {
                pn_core_problem_err(c, -EOPNOTSUPP,
                                    "modules of a core without NT_FILE are found only in an uncompressed core file");
                return 0;
        }
        struct found *chain;
        size_t n_chain = walk_link_map(c, &chain);
        bool *named = calloc(n_chain ? n_chain : 1, sizeof *named);
        int r = named ? 0 : pn_oom();
        /* Dumped ELF headers, named by the link_map entry of the same bias
         * or whose dynamic section they hold; the executable by AT_EXECFN. */
        const pkgnote_phdr *ph;
        int nph = pn_object_phdrs(c->view, &ph);
        size_t loads = 0;
        /* The last module found by its header: the kernel writes PT_LOADs
         * in address order, so a module's later mappings follow it. */
        uint64_t last_start = 0, last_end = 0, last_len = 0;
        for (int i = 0; r >= 0 && i < nph && loads < MAX_LOADS; i++) {
                if (ph[i].type != PT_LOAD || ph[i].filesz < 64)
                        continue;
                loads++;
                uint64_t start = ph[i].vaddr, end, bias, hdr_len;
                if (start == c->auxv_vdso || !header_extent(c, start, &end, &bias, &hdr_len))
                        continue;
                if (last_end && start > last_start && start < last_end && hdr_len == last_len &&
                    same_header(c, last_start, start, hdr_len))
                        continue;
                last_start = start;
                last_end = end;
                last_len = hdr_len;
                /* The link_map entry whose dynamic section (l_ld, an
                 * address) lies in the module names it.  Its load bias
                 * (l_addr) is no name: prelinked libraries all have bias 0
                 * (testcore-rtlib-ppc: libc, libpthread, librt, ld.so), as
                 * has the executable, so it serves only when no l_ld fits
                 * and is not 0. */
                const char *name = NULL, *how = "elf-header";
                for (int pass = 0; pass < 2 && !name; pass++)
                        for (size_t k = 0; k < n_chain && !name; k++)
                                if (!named[k] && (pass == 0 ? chain[k].ld >= start && chain[k].ld < end
                                                            : bias != 0 && chain[k].bias == bias)) {
                                        name = chain[k].name;
                                        named[k] = true;
                                        how = "link-map";
                                }
                char fallback[64];
                char *exe = NULL;
                bool main = (c->auxv_phdr >= start && c->auxv_phdr < end) || (c->auxv_entry >= start && c->auxv_entry < end);
                if (!name && main && c->auxv_execfn &&
                    (exe = string_at(c, c->auxv_execfn)) && exe[0])
                        name = exe;
                if (!name) {
                        snprintf(fallback, sizeof fallback, "[module at 0x%llx]", (unsigned long long)start);
                        name = fallback;
                }
                r = add(c, name, start, end, how);
                free(exe);
        }
        /* Listed by the dynamic linker, but no header page dumped (the vDSO
         * is listed too, under a name that is no file). */
        for (size_t k = 0; r >= 0 && k < n_chain; k++)
                if (!named[k] && chain[k].bias && chain[k].bias != c->auxv_vdso && chain[k].bias <= UINT64_MAX - c->page)
                        r = add(c, chain[k].name, chain[k].bias, chain[k].bias + c->page, "link-map");
        for (size_t k = 0; k < n_chain; k++)
                free(chain[k].name);
        free(chain);
        free(named);
        return r;
}

char *pn_core_link_map_name(pkgnote_core *c, uint64_t start, uint64_t end) {
        struct found *chain;
        size_t n = walk_link_map(c, &chain);
        char *name = NULL;
        for (size_t k = 0; k < n; k++) {
                if (!name && chain[k].ld >= start && chain[k].ld < end)
                        name = chain[k].name;
                else
                        free(chain[k].name);
        }
        free(chain);
        return name;
}
