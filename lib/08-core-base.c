/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every part of the core reader (08-core.c, 08-core-notes.c,
 * 08-core-discover.c) shares: the core's problem list, and where the core
 * holds the bytes of an address. */
#include <stdarg.h>
#include <stdlib.h>

#include "08-core-private.h"
#include "02-elf-const.h"

void pn_core_problem(pkgnote_core *c, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (pn_problems_addv(&c->problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, NULL, 0, fmt, ap) < 0)
                c->oom = true;
        va_end(ap);
}

void pn_core_problem_err(pkgnote_core *c, int err, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (pn_problems_addv(&c->problems, PKGNOTE_MAX_PROBLEMS, err, NULL, 0, fmt, ap) < 0)
                c->oom = true;
        va_end(ap);
}

bool pn_core_ran_out(const pkgnote_core *c) {
        if (c->oom)
                return true;
        for (size_t i = 0; i < c->n_modules; i++)
                if (c->modules[i].oom)
                        return true;
        return false;
}

/*
 * Where the PT_LOADs put addresses, for lookups by address.  A core may
 * have PKGNOTE_MAX_PHDRS loads and PKGNOTE_MAX_MAPPINGS mappings, and a
 * module is looked for in each mapping of its file: a walk over all
 * loads per lookup is quadratic (minutes for a 41 MiB core).  So the
 * loads are turned once into sorted, disjoint spans and each lookup is a
 * binary search.  The answers are those of the walk in header order,
 * overlapping hostile loads included: a span of the dumped bytes names
 * the first load (lowest index) that holds it.
 */
struct pn_core_span {
        uint64_t first, last; /* inclusive: a span may end at UINT64_MAX */
        uint32_t phdr;        /* dumped spans: the load that holds them */
};

struct pn_core_loads {
        struct pn_core_span *dumped, *mapped;
        size_t n_dumped, n_mapped;
};

void pn_core_loads_free(struct pn_core_loads *l) {
        if (!l)
                return;
        free(l->dumped);
        free(l->mapped);
        free(l);
}

/* The last address of LEN bytes at FIRST (LEN > 0), at most UINT64_MAX. */
static uint64_t span_last(uint64_t first, uint64_t len) {
        return len - 1 > UINT64_MAX - first ? UINT64_MAX : first + (len - 1);
}

static int cmp_span(const void *a, const void *b) {
        const struct pn_core_span *x = a, *y = b;
        if (x->first != y->first)
                return x->first < y->first ? -1 : 1;
        return (x->phdr > y->phdr) - (x->phdr < y->phdr);
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return (x > y) - (x < y);
}

/* A min-heap of spans by load index. */
static void heap_push(const struct pn_core_span **h, size_t *n, const struct pn_core_span *v) {
        size_t i = (*n)++;
        for (; i > 0 && h[(i - 1) / 2]->phdr > v->phdr; i = (i - 1) / 2)
                h[i] = h[(i - 1) / 2];
        h[i] = v;
}

static void heap_pop(const struct pn_core_span **h, size_t *n) {
        const struct pn_core_span *v = h[--*n];
        size_t i = 0;
        for (;;) {
                size_t c = 2 * i + 1;
                if (c >= *n)
                        break;
                if (c + 1 < *n && h[c + 1]->phdr < h[c]->phdr)
                        c++;
                if (h[c]->phdr >= v->phdr)
                        break;
                h[i] = h[c];
                i = c;
        }
        if (*n)
                h[i] = v;
}

/* Appends [FIRST, LAST] for PHDR to OUT, joined to the span before it
 * when that one is adjacent and of the same load. */
static void span_add(struct pn_core_span *out, size_t *n, uint64_t first, uint64_t last, uint32_t phdr) {
        if (*n && out[*n - 1].phdr == phdr && out[*n - 1].last != UINT64_MAX && out[*n - 1].last + 1 == first)
                out[*n - 1].last = last;
        else
                out[(*n)++] = (struct pn_core_span){first, last, phdr};
}

/* The N spans IV (sorted by start) cut into disjoint pieces, each named by
 * the lowest load index among the spans that hold it: a sweep over the
 * points where a span starts or ends, the spans open at a point in a heap.
 * OUT has room for 2 N pieces; their number is returned. */
static size_t sweep(const struct pn_core_span *iv, size_t n, uint64_t *ends, const struct pn_core_span **heap,
                    struct pn_core_span *out) {
        size_t n_ends = 0, n_heap = 0, n_out = 0, i = 0, j = 0;
        for (size_t k = 0; k < n; k++)
                if (iv[k].last != UINT64_MAX)
                        ends[n_ends++] = iv[k].last + 1;
        qsort(ends, n_ends, sizeof *ends, cmp_u64);
        while (i < n || j < n_ends) {
                /* The next point where the answer may change. */
                uint64_t at = i < n && (j >= n_ends || iv[i].first <= ends[j]) ? iv[i].first : ends[j];
                for (; i < n && iv[i].first == at; i++)
                        heap_push(heap, &n_heap, &iv[i]);
                for (; j < n_ends && ends[j] == at; j++)
                        ;
                while (n_heap && heap[0]->last < at)
                        heap_pop(heap, &n_heap);
                if (!n_heap)
                        continue;
                /* The answer holds up to the next point; with none left,
                 * the open span runs to the end of the address space. */
                bool more = i < n || j < n_ends;
                uint64_t next = i < n ? iv[i].first : UINT64_MAX;
                if (j < n_ends && ends[j] < next)
                        next = ends[j];
                uint64_t last = more ? next - 1 : UINT64_MAX;
                span_add(out, &n_out, at, last, heap[0]->phdr);
        }
        return n_out;
}

/* The spans of the loads: dumped (for each address the first load that
 * dumped it, as pn_core_dumped_at() walked them) and mapped (their
 * union).  NULL when out of memory: the caller walks the loads. */
static struct pn_core_loads *index_loads(pkgnote_core *c) {
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(c->view, &ph);
        struct pn_core_loads *l = calloc(1, sizeof *l);
        size_t cnt = n > 0 ? (size_t)n : 1;
        struct pn_core_span *iv = malloc(cnt * sizeof *iv);
        uint64_t *ends = malloc(cnt * sizeof *ends);
        const struct pn_core_span **heap = malloc(cnt * sizeof *heap);
        if (l) {
                l->dumped = malloc(2 * cnt * sizeof *l->dumped);
                l->mapped = malloc(cnt * sizeof *l->mapped);
        }
        if (!l || !iv || !ends || !heap || !l->dumped || !l->mapped) {
                pn_core_loads_free(l);
                l = NULL;
                goto out;
        }
        /* Dumped: ADDR - p_vaddr below p_filesz, and p_offset + that
         * offset not past UINT64_MAX. */
        size_t m = 0;
        for (int i = 0; i < n; i++) {
                if (ph[i].type != PT_LOAD || ph[i].filesz == 0)
                        continue;
                uint64_t len = ph[i].filesz, room = UINT64_MAX - ph[i].offset; /* the largest offset allowed */
                if (len - 1 > room)
                        len = room + 1; /* room < UINT64_MAX here: no overflow */
                iv[m++] = (struct pn_core_span){ph[i].vaddr, span_last(ph[i].vaddr, len), (uint32_t)i};
        }
        qsort(iv, m, sizeof *iv, cmp_span);
        l->n_dumped = sweep(iv, m, ends, heap, l->dumped);
        /* Mapped: ADDR - p_vaddr below p_memsz, in any load. */
        m = 0;
        for (int i = 0; i < n; i++)
                if (ph[i].type == PT_LOAD && ph[i].memsz > 0)
                        iv[m++] = (struct pn_core_span){ph[i].vaddr, span_last(ph[i].vaddr, ph[i].memsz), 0};
        qsort(iv, m, sizeof *iv, cmp_span);
        for (size_t i = 0; i < m; i++) {
                struct pn_core_span *prev = l->n_mapped ? &l->mapped[l->n_mapped - 1] : NULL;
                if (prev && (prev->last == UINT64_MAX || iv[i].first <= prev->last + 1)) {
                        if (iv[i].last > prev->last)
                                prev->last = iv[i].last;
                } else
                        l->mapped[l->n_mapped++] = iv[i];
        }
out:
        free(iv);
        free(ends);
        free(heap);
        return l;
}

/* The span of S (N, sorted, disjoint) that holds ADDR, or NULL. */
static const struct pn_core_span *find_span(const struct pn_core_span *s, size_t n, uint64_t addr) {
        size_t lo = 0, hi = n; /* the first span starting after ADDR lies in [lo, hi] */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (s[mid].first <= addr)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo > 0 && addr <= s[lo - 1].last ? &s[lo - 1] : NULL;
}

static const struct pn_core_loads *loads(pkgnote_core *c) {
        if (!c->loads && !c->loads_failed && !(c->loads = index_loads(c)))
                c->loads_failed = true;
        return c->loads;
}

/* The PT_LOAD that dumped bytes for ADDR: file offset and bytes available. */
bool pn_core_dumped_at(pkgnote_core *c, uint64_t addr, uint64_t *off, uint64_t *avail) {
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(c->view, &ph);
        const struct pn_core_loads *l = loads(c);
        if (l) {
                const struct pn_core_span *s = find_span(l->dumped, l->n_dumped, addr);
                if (!s)
                        return false;
                uint64_t delta = addr - ph[s->phdr].vaddr;
                *off = ph[s->phdr].offset + delta;
                *avail = ph[s->phdr].filesz - delta;
                return true;
        }
        /* Out of memory for the index: the same answer, walked. */
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

bool pn_core_mapped_at(pkgnote_core *c, uint64_t addr) {
        const struct pn_core_loads *l = loads(c);
        if (l)
                return find_span(l->mapped, l->n_mapped, addr) != NULL;
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(c->view, &ph);
        for (int i = 0; i < n; i++)
                if (ph[i].type == PT_LOAD && addr >= ph[i].vaddr && addr - ph[i].vaddr < ph[i].memsz)
                        return true;
        return false;
}
