/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What is kept of a large ELF member of an archive read as a stream: the
 * bytes its notes can be read from, not the whole member.  The member
 * goes by once, front to back; what is kept is decided as it goes:
 *   - its first PN_CAPTURE_HEAD bytes (headers, and the notes linkers put
 *     in the first page);
 *   - once the ELF header is there, the program headers and the section
 *     header table (to the member's end: the table is normally last, and
 *     with extended numbering its size is in its first entry);
 *   - once the program headers are there, every PT_NOTE, the start of
 *     PT_DYNAMIC, and the bytes no PT_LOAD maps (the section name table,
 *     non-allocated note sections, a debug link), in file order;
 *   - with dependencies asked for, all that lies before PT_DYNAMIC: the
 *     dynamic string table is found through PT_DYNAMIC's entries, which
 *     come after it in every linker's layout (it is among the first
 *     sections, PT_DYNAMIC among the last);
 *   - for a Go program (its build-id note is in a PT_NOTE, which comes
 *     before the data), the first 64 KiB of its first writable segments,
 *     where the reader looks for the build information, and once its
 *     header is found there the whole blob (bounded by PN_GO_MAX_BLOB).
 *     The Go 1.17 layout, whose strings lie elsewhere through pointers,
 *     is not followed: such a member has no build information.
 * A Rust program's crate list (.dep-v0) is a non-allocated section, among
 * the bytes no PT_LOAD maps, which are kept as far as the bound goes.
 * Everything else is passed over.  What is kept is bounded (PN_CAPTURE_MAX);
 * a range the ELF view asks for that was not kept reads as -ENODATA.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "02-elf-gobuild.h"
#include "09-scan-private.h"

/* Whether [OFF, OFF+LEN) was kept: a pointer to its bytes, or NULL. */
static const uint8_t *kept(const struct pn_capture *c, uint64_t off, uint64_t len) {
        for (size_t i = 0; i < c->n_spans; i++) {
                const struct pn_span *s = &c->spans[i];
                if (off >= s->off && off - s->off <= s->len && len <= s->len - (off - s->off))
                        return c->buf + s->at + (off - s->off);
        }
        return NULL;
}

/* Adds [OFF, END) to what is wanted, as far as it lies ahead and the
 * bound allows: the pending ranges stay sorted and disjoint. */
static int want(struct pn_capture *c, uint64_t off, uint64_t end) {
        if (end > c->size || end < off)
                end = c->size;
        if (off < c->pos)
                off = c->pos;
        if (off >= end)
                return 0;
        size_t i = 0;
        while (i < c->n_want && c->want[i].end <= off)
                i++;
        if (i < c->n_want && c->want[i].off < end) {
                /* Overlaps range I: merged with it and those after.  (Ranges
                 * that only touch stay apart, so that the bound can drop
                 * one and keep the next; their bytes are kept as one.) */
                if (off < c->want[i].off)
                        c->want[i].off = off;
                if (end > c->want[i].end)
                        c->want[i].end = end;
                size_t j = i + 1;
                while (j < c->n_want && c->want[j].off < c->want[i].end) {
                        if (c->want[j].end > c->want[i].end)
                                c->want[i].end = c->want[j].end;
                        j++;
                }
                memmove(&c->want[i + 1], &c->want[j], (c->n_want - j) * sizeof *c->want);
                c->n_want -= j - (i + 1);
                return 0;
        }
        if (PN_GROW(c->want, c->cap_want, c->n_want + 1) < 0)
                return -ENOMEM;
        memmove(&c->want[i + 1], &c->want[i], (c->n_want - i) * sizeof *c->want);
        c->want[i].off = off, c->want[i].end = end;
        c->n_want++;
        return 0;
}

/* The ELF header is there: the program and section header tables. */
static int got_header(struct pn_capture *c) {
        const uint8_t *h = kept(c, 0, 64);
        if (h && h[0] == 'M' && h[1] == 'Z') {
                /* A PE image: its section table and .pkgnote may lie
                 * anywhere, so all of it is wanted, as far as the bound
                 * goes (EFI binaries are small). */
                c->phnum = 0;
                return want(c, c->pos, c->size);
        }
        if (!h || memcmp(h, ELFMAG, SELFMAG) || (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64))
                return 0;
        bool is64 = h[EI_CLASS] == ELFCLASS64, be = h[EI_DATA] == ELFDATA2MSB;
        c->is64 = is64, c->be = be;
        uint64_t phoff = is64 ? pn_rd64(h + 32, be) : pn_rd32(h + 28, be);
        uint64_t shoff = is64 ? pn_rd64(h + 40, be) : pn_rd32(h + 32, be);
        const uint8_t *t = h + (is64 ? 54 : 42);
        c->phentsize = pn_rd16(t, be);
        c->phnum = pn_rd16(t + 2, be);
        c->phoff = phoff;
        int r = 0;
        c->has_shdrs = shoff != 0;
        c->shoff = shoff;
        if (shoff)
                r = want(c, shoff, c->size);
        if (r == 0 && c->phnum && c->phnum <= PKGNOTE_MAX_PHDRS && c->phentsize >= (is64 ? 56u : 32u))
                r = want(c, phoff, phoff + (uint64_t)c->phnum * c->phentsize);
        else if (r == 0) {
                /* No program headers (a relocatable object), or too many
                 * to trust: nothing is mapped, the notes are in sections
                 * anywhere; all of it is wanted, as far as the bound goes. */
                c->phnum = 0;
                r = want(c, c->pos, shoff > c->pos ? shoff : c->size);
        }
        return r;
}

struct seg {
        uint64_t off, end;
};

static int cmp_seg(const void *a, const void *b) {
        const struct seg *x = a, *y = b;
        return x->off < y->off ? -1 : x->off > y->off;
}

/* The program headers are there: the notes, the dynamic section, the
 * bytes no segment maps. */
static int got_phdrs(struct pn_capture *c) {
        const uint8_t *p = kept(c, c->phoff, (uint64_t)c->phnum * c->phentsize);
        if (!p)
                return 0;
        struct seg *load = calloc(c->phnum, sizeof *load);
        if (!load)
                return -ENOMEM;
        size_t n_load = 0;
        int r = 0;
        bool be = c->be;
        uint64_t dyn = 0;
        for (unsigned i = 0; i < c->phnum && r == 0; i++, p += c->phentsize) {
                uint32_t type = pn_rd32(p, be);
                uint64_t off = c->is64 ? pn_rd64(p + 8, be) : pn_rd32(p + 4, be);
                uint64_t fsz = c->is64 ? pn_rd64(p + 32, be) : pn_rd32(p + 16, be);
                uint64_t end = off + fsz < off ? UINT64_MAX : off + fsz;
                uint32_t flags = pn_rd32(p + (c->is64 ? 4 : 24), be);
                if (type == PT_NOTE) {
                        r = want(c, off, end);
                        if (c->n_go_note < 4)
                                c->go_note[c->n_go_note].off = off, c->go_note[c->n_go_note++].end = end;
                } else if (type == PT_LOAD && (flags & (PF_W | PF_X)) == PF_W && c->n_go_seg < PN_GO_MAX_SEGMENTS &&
                           off < c->size && fsz > 0)
                        c->go_seg[c->n_go_seg].off = off, c->go_seg[c->n_go_seg++].end = end < c->size ? end : c->size;
                else if (type == PT_DYNAMIC) {
                        r = want(c, off, fsz > PN_CAPTURE_DYNAMIC ? off + PN_CAPTURE_DYNAMIC : end);
                        if (!dyn)
                                dyn = off;
                } else if (type == PT_LOAD)
                        load[n_load++] = (struct seg){off, end};
        }
        if (r == 0 && c->deps && dyn)
                r = want(c, 0, dyn);
        /* The gaps between what PT_LOADs map, in file order. */
        qsort(load, n_load, sizeof *load, cmp_seg);
        uint64_t at = 0;
        for (size_t i = 0; i < n_load && r == 0; i++) {
                if (load[i].off > at)
                        r = want(c, at, load[i].off);
                if (load[i].end > at)
                        at = load[i].end;
        }
        /* The section header table apart from what lies before it (it
         * was wanted with the ELF header): ranges that only touch stay
         * apart, so that a tail of debugging information over the bound
         * loses its own end, not the table the notes and the crate list
         * are found through. */
        uint64_t stop = c->shoff > at && c->shoff < c->size ? c->shoff : c->size;
        /* and the last bytes before the table apart too: the section name
         * table, which linkers and objcopy put there */
        uint64_t names = stop == c->shoff && stop - at > PN_CAPTURE_NAMES ? stop - PN_CAPTURE_NAMES : at;
        if (r == 0 && names > at)
                r = want(c, at, names);
        if (r == 0)
                r = want(c, names, stop);
        free(load);
        /* the Go question is asked at the first writable segment, in
         * file order (the program headers list them by address) */
        c->go_step = c->n_go_seg ? 0 : 2;
        c->go_next = UINT64_MAX;
        for (unsigned i = 0; i < c->n_go_seg; i++)
                if (c->go_seg[i].off < c->go_next)
                        c->go_next = c->go_seg[i].off;
        if (c->go_next < c->pos)
                c->go_step = 2; /* already gone by */
        return r;
}

/* Whether a kept PT_NOTE holds Go's build-id note (owner "Go", type 4:
 * cmd/link's ELF_NOTE_GOBUILDID_TAG, the owner NUL-padded to 4 bytes). */
static bool go_noted(const struct pn_capture *c) {
        for (unsigned i = 0; i < c->n_go_note; i++) {
                uint64_t len = c->go_note[i].end - c->go_note[i].off;
                const uint8_t *p = kept(c, c->go_note[i].off, len);
                for (uint64_t at = 0; p && at + 12 <= len;) {
                        uint32_t namesz = pn_rd32(p + at, c->be), descsz = pn_rd32(p + at + 4, c->be),
                                 type = pn_rd32(p + at + 8, c->be);
                        uint64_t next = at + 12 + (((uint64_t)namesz + 3) & ~3ull) + (((uint64_t)descsz + 3) & ~3ull);
                        if (next > len)
                                break;
                        if (type == 4 && (namesz == 3 || namesz == 4) && !memcmp(p + at + 12, "Go", 3) &&
                            (namesz == 3 || p[at + 15] == 0))
                                return true;
                        at = next;
                }
        }
        return false;
}

/* A varint as Go writes it (encoding/binary.Uvarint), at most 10 bytes
 * of the LEN at P: its byte count, or 0 when it does not end there. */
static size_t uvarint(const uint8_t *p, size_t len, uint64_t *v) {
        *v = 0;
        for (size_t i = 0; i < len && i < 10; i++) {
                *v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80))
                        return i + 1;
        }
        return 0;
}

/* Window I of the writable segments is kept: the blob's header searched
 * in it, and when found, the blob wanted. */
static int go_search(struct pn_capture *c, unsigned i) {
        uint64_t off = c->go_seg[i].off, end = c->go_seg[i].end;
        uint64_t len = end - off < PN_GO_SEARCH ? end - off : PN_GO_SEARCH;
        const uint8_t *d = kept(c, off, len);
        if (!d)
                return 0;
        for (uint64_t k = 0; k + PN_GO_HEADER <= len; k++) {
                if (d[k] != 0xff || memcmp(d + k, PN_GO_MAGIC, PN_GO_MAGIC_LEN) != 0)
                        continue;
                /* the inline layout: two varint-prefixed strings after the
                 * header, their length known when the varints are here */
                uint64_t blob = PN_GO_MAX_BLOB;
                if (d[k + 15] & 2) {
                        uint64_t a, b;
                        size_t at = (size_t)(k + PN_GO_HEADER), n = uvarint(d + at, (size_t)(len - at), &a);
                        if (n && a <= PN_GO_MAX_VERSION && at + n + a < len) {
                                at += n + (size_t)a;
                                size_t m = uvarint(d + at, (size_t)(len - at), &b);
                                if (m && b <= PN_GO_MAX_MODINFO + 32)
                                        blob = at - k + m + b;
                        }
                }
                /* a reader without the section table reads as much as it
                 * may of the segment; with one, the section's bytes, which
                 * are the blob's */
                if (!c->has_shdrs)
                        blob = PN_GO_MAX_BLOB;
                uint64_t stop = end - (off + k) < blob ? end : off + k + blob;
                int r = want(c, off + k, stop);
                return r < 0 ? r : 1;
        }
        return 0;
}

/* At c->go_next: the next step of the search for Go's build information. */
static int go_step(struct pn_capture *c) {
        if (c->go_step == 0) {
                if (!go_noted(c)) {
                        c->go_step = 2;
                        return 0;
                }
                for (unsigned i = 0; i < c->n_go_seg; i++) {
                        uint64_t off = c->go_seg[i].off, end = c->go_seg[i].end;
                        int r = want(c, off, end - off < PN_GO_SEARCH ? end : off + PN_GO_SEARCH);
                        if (r < 0)
                                return r;
                }
                c->go_step = 1;
                c->go_at = 0;
        } else {
                int r = go_search(c, c->go_at);
                if (r != 0) {
                        c->go_step = 2;
                        return r < 0 ? r : 0;
                }
                c->go_at++;
        }
        /* the next window's end, in the order of the program headers */
        while (c->go_at < c->n_go_seg) {
                uint64_t off = c->go_seg[c->go_at].off, end = c->go_seg[c->go_at].end;
                uint64_t stop = end - off < PN_GO_SEARCH ? end : off + PN_GO_SEARCH;
                if (stop > c->pos || (stop == c->pos && c->go_step == 1)) {
                        c->go_next = stop;
                        return 0;
                }
                /* already gone by (a segment before the one searched first) */
                int r = go_search(c, c->go_at);
                if (r != 0) {
                        c->go_step = 2;
                        return r < 0 ? r : 0;
                }
                c->go_at++;
        }
        c->go_step = 2;
        return 0;
}

int pn_capture_init(struct pn_capture *c, uint64_t size, bool deps) {
        memset(c, 0, sizeof *c);
        c->size = size;
        c->deps = deps;
        c->go_step = 2; /* until the program headers say where to look */
        return want(c, 0, PN_CAPTURE_HEAD);
}

/* Copies what is wanted of the N bytes at P, which lie at c->pos. */
static int take(struct pn_capture *c, const uint8_t *p, size_t n) {
        uint64_t end = c->pos + n;
        while (c->n_want && c->want[0].off < end) {
                uint64_t a = c->want[0].off, b = c->want[0].end < end ? c->want[0].end : end;
                size_t len = (size_t)(b - a);
                /* The bound: what ranges after this one want (the section
                 * headers at the end) is set aside, up to half of it; a
                 * range that does not fit is kept as far as it does. */
                uint64_t later = 0;
                for (size_t i = 1; i < c->n_want && later < PN_CAPTURE_MAX / 2; i++)
                        later += c->want[i].end - c->want[i].off;
                if (later > PN_CAPTURE_MAX / 2)
                        later = PN_CAPTURE_MAX / 2;
                size_t room = c->len + later < PN_CAPTURE_MAX ? PN_CAPTURE_MAX - c->len - (size_t)later : 0;
                if (len > room) {
                        c->full = true;
                        len = room;
                        b = a + len;
                        c->want[0].end = b; /* the rest of it is dropped */
                }
                if (len == 0) {
                        memmove(&c->want[0], &c->want[1], (c->n_want - 1) * sizeof *c->want);
                        c->n_want--;
                        continue;
                }
                if (PN_GROW(c->buf, c->cap, c->len + len) < 0)
                        return -ENOMEM;
                memcpy(c->buf + c->len, p + (a - c->pos), len);
                struct pn_span *last = c->n_spans ? &c->spans[c->n_spans - 1] : NULL;
                if (last && last->off + last->len == a)
                        last->len += len;
                else {
                        if (PN_GROW(c->spans, c->cap_spans, c->n_spans + 1) < 0)
                                return -ENOMEM;
                        c->spans[c->n_spans++] = (struct pn_span){a, len, c->len};
                }
                c->len += len;
                if (b == c->want[0].end) {
                        memmove(&c->want[0], &c->want[1], (c->n_want - 1) * sizeof *c->want);
                        c->n_want--;
                } else
                        c->want[0].off = b;
        }
        c->pos = end;
        return 0;
}

int pn_capture_feed(struct pn_capture *c, const uint8_t *p, size_t n) {
        while (n > 0) {
                /* Up to where the next headers end, then what they say
                 * is wanted, before the bytes after them go by. */
                uint64_t stop = c->stage == 0   ? 64
                                : c->stage == 1 ? c->phoff + (uint64_t)c->phnum * c->phentsize
                                : c->go_step < 2 ? c->go_next
                                                 : 0;
                size_t k = n;
                if ((c->stage < 2 || c->go_step < 2) && stop > c->pos && stop - c->pos < k)
                        k = (size_t)(stop - c->pos);
                if (c->pos >= c->size)
                        k = n; /* past the view: nothing more is wanted */
                int r = take(c, p, k);
                if (r < 0)
                        return r;
                p += k, n -= k;
                if (c->stage == 0 && c->pos >= 64) {
                        c->stage = 1;
                        if ((r = got_header(c)) < 0)
                                return r;
                        if (c->phnum == 0)
                                c->stage = 2;
                }
                if (c->stage == 1 && c->pos >= c->phoff + (uint64_t)c->phnum * c->phentsize) {
                        c->stage = 2;
                        if ((r = got_phdrs(c)) < 0)
                                return r;
                }
                while (c->stage == 2 && c->go_step < 2 && c->pos >= c->go_next)
                        if ((r = go_step(c)) < 0)
                                return r;
        }
        return 0;
}

void pn_capture_clear(struct pn_capture *c) {
        free(c->buf);
        free(c->spans);
        free(c->want);
        memset(c, 0, sizeof *c);
}
