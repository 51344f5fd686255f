/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every part of the core reader (core.c, core-notes.c,
 * core-discover.c) shares: the core's problem list, and where the core
 * holds the bytes of an address. */
#include <stdarg.h>

#include "core.h"
#include "elfconst.h"

void pn_core_problem(pkgnote_core *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void)pn_problems_addv(&c->problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, NULL, 0, fmt, ap);
        va_end(ap);
}

void pn_core_problem_err(pkgnote_core *c, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        (void)pn_problems_addv(&c->problems, PKGNOTE_MAX_PROBLEMS, err, NULL, 0, fmt, ap);
        va_end(ap);
}

/* The PT_LOAD that dumped bytes for ADDR: file offset and bytes available. */
bool pn_core_dumped_at(pkgnote_core *c, uint64_t addr, uint64_t *off, uint64_t *avail) {
        const pkgnote_phdr *ph;
        int n = pkgnote_elf_phdrs(c->view, &ph);
        for (int i = 0; i < n; i++) {
                if (ph[i].type != PT_LOAD || addr < ph[i].vaddr)
                        continue;
                uint64_t delta = addr - ph[i].vaddr;
                if (delta >= ph[i].filesz || ph[i].offset > UINT64_MAX - delta)
                        continue;
                *off = ph[i].offset + delta;
                *avail = ph[i].filesz - delta;
                return true;
        }
        return false;
}
