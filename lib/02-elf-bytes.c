/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The byte layer of the object view: checked ranges of the file (the first
 * page kept at open, other ranges read on demand and kept as chunks, or
 * the spans a stream kept) and the view's bounded list of problems.  Both
 * the ELF parser (02-elf.c) and the PE/COFF parser (02-pe.c) read through it, so
 * neither depends on the other's file for its bytes.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-view.h"
#include "output.h"

struct chunk {
        struct chunk *next;
        uint64_t off, len;
        uint8_t data[];
};

int pn_elf_read_full(pkgnote_object *e, int fd, uint8_t *buf, uint64_t len, uint64_t off, uint64_t *got) {
        ssize_t done = len > SIZE_MAX ? -EINVAL : pn_pread_full(fd, buf, (size_t)len, off);
        *got = 0;
        if (done < 0)
                return pn_error((int)done, "read failed: %s", strerror((int)-done));
        *got = (uint64_t)done;
        e->bytes_read += (uint64_t)done;
        return 0;
}

const uint8_t *pn_elf_bytes(pkgnote_object *e, uint64_t off, uint64_t len, int *err) {
        if (!pn_range_ok(off, len, e->size)) {
                *err = pn_error(-EBADMSG, "range 0x%llx+0x%llx lies outside the file (size 0x%llx)",
                                (unsigned long long)off, (unsigned long long)len,
                                (unsigned long long)e->size);
                return NULL;
        }
        if (e->mem)
                return e->mem + off;
        if (off + len <= e->head_len)
                return e->head + off;
        if (e->spans) {
                /* The last span starting at or before OFF must hold it all. */
                size_t lo = 0, hi = e->n_spans;
                while (hi - lo > 1) {
                        size_t mid = lo + (hi - lo) / 2;
                        if (e->spans[mid].off <= off)
                                lo = mid;
                        else
                                hi = mid;
                }
                const struct pn_span *sp = &e->spans[lo];
                if (e->n_spans && off >= sp->off && off - sp->off <= sp->len && len <= sp->len - (off - sp->off))
                        return e->span_bytes + sp->at + (off - sp->off);
                e->span_missed = true;
                *err = pn_error(-ENODATA, "range 0x%llx+0x%llx was not kept from the stream",
                                (unsigned long long)off, (unsigned long long)len);
                return NULL;
        }
        for (struct chunk *c = e->chunks; c; c = c->next)
                if (off >= c->off && off + len <= c->off + c->len)
                        return c->data + (off - c->off);
        /* A length the file's own fields give, inside the file (a sparse
         * one may be huge): bounded, or memory would be the limit. */
        if (len > PKGNOTE_MAX_RANGE) {
                *err = pn_error(-E2BIG, "range 0x%llx+0x%llx is more than the %u bytes read at once",
                                (unsigned long long)off, (unsigned long long)len, PKGNOTE_MAX_RANGE);
                return NULL;
        }
        struct chunk *c = malloc(sizeof *c + (len ? len : 1));
        if (!c) {
                *err = pn_oom();
                return NULL;
        }
        uint64_t got;
        int r = pn_elf_read_full(e, e->fd, c->data, len, off, &got);
        if (r < 0 || got != len) {
                free(c);
                *err = r < 0 ? r : pn_error(-EBADMSG, "file shrank while being read");
                return NULL;
        }
        c->off = off;
        c->len = len;
        c->next = e->chunks;
        e->chunks = c;
        return c->data;
}

void pn_elf_chunks_free(pkgnote_object *e) {
        while (e->chunks) {
                struct chunk *c = e->chunks;
                e->chunks = c->next;
                free(c);
        }
}

int pn_elf_problem(pkgnote_object *e, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        /* Bounded: enough to explain, and hostile input cannot grow it. */
        (void)pn_problems_addv(&e->problems, PKGNOTE_MAX_PROBLEMS, err, NULL, 0, fmt, ap);
        va_end(ap);
        return err;
}

