/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping: the package note or the dlopen note added to, replaced in or
 * removed from an already linked executable or shared object, or a
 * relocatable object.  Both are stamped the same way; a kind
 * (struct pn_note_kind) names the note type, its section and its
 * encoder, and below "package note" stands for either.  A file may hold
 * several dlopen notes (one per object that declared some, as systemd's
 * are linked in); stamping leaves exactly one, the new one, since its
 * array holds every entry: the others are taken out as removal does.
 * Stamping both kinds stamps one after the other, in memory, and the
 * file is written once.
 *
 * Linked files (ET_EXEC, ET_DYN).  Readers and the loaded process find
 * notes through PT_NOTE program headers inside a PT_LOAD, and the kernel
 * writes only the first page of each mapped file into a core dump, so
 * the best place is file bytes [0, 4096) with the program headers.
 * Never degrade: no code or data moves, no PT_LOAD changes its address
 * (one may only grow over padding inside pages it already maps), the
 * program headers never leave the first page, and existing notes, the
 * GNU property note with its PT_GNU_PROPERTY included, keep their bytes
 * where they are (programs may read them by address); verify() checks
 * all of it.  place_linked() tries, in this order:
 *
 *   replaced        the old package note's room, when the new note fits
 *                   (its descriptor NUL-padded to the old size), in a
 *                   segment or in an unloaded section of an earlier stamp;
 *   after-notes     unused bytes right after the PT_NOTE holding the
 *                   4-byte notes in the first page: that PT_NOTE grows;
 *   free-slot       a PT_NULL program header and unused first-page bytes;
 *   merged          that PT_NOTE's notes copied, with the new note, into
 *                   unused first-page bytes, the PT_NOTE pointed there
 *                   (the originals stay in place, unreferenced);
 *   after-notes, tables moved (06-stamp-tables.c): .gnu.hash / .hash /
 *                   .dynsym after the notes move into padding of a
 *                   read-only segment; or, next, the whole run of tables
 *                   of dynamic linking after the notes (.gnu.hash ...
 *                   .rela.plt, .relr.dyn) shifts up within its segment's
 *                   padding.  Only where nothing but DT_ entries and
 *                   section headers address them;
 *   moved-phdrs     the program header table, one entry longer, and the
 *                   note in unused first-page bytes;
 *   padding         outside the first page, with a PT_NULL slot: padding
 *                   after a read-only segment (kernel cores lack the note,
 *                   disk readers find it);
 *   appended        a new PT_LOAD at the end of the file with the program
 *                   header table (two entries longer) and the note, only
 *                   when the headers were not in the first page or stay
 *                   there (small files);
 *   section         last resort: an unloaded SHT_NOTE .note.package at
 *                   the end; show and scan read it, cores and the running
 *                   program do not.  Without section headers: -ENOSPC.
 *
 * With PKGNOTE_STAMP_REQUIRE_FIRST_PAGE a note outside the first page is
 * an error instead.  Section headers, when present, follow: a SHT_NOTE
 * .note.package section covers the new note.
 *
 * Relocatable objects (ET_REL, kernel modules) get an allocated SHT_NOTE
 * section .note.package, added at the end of the section header table
 * so no section index changes.
 *
 * The result is built in memory from the input, parsed back and checked;
 * pkgnote_stamp_file() writes it beside the target and renames it over.
 *
 * This file holds the entry points, the order in which the placements
 * are tried, relocatable objects and the check of the result; see
 * 06-stamp-private.h for the others.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "06-stamp-files.h"
#include "06-stamp-private.h"
#include "02-pe-view.h"
#include "02-elf-view.h"

/* include/linux/module_signature.h: the trailer of a signed module. */
static const char module_sig_magic[] = "~Module signature appended~\n";

/* ------------------------------------------------------------------ */
/* Linked files                                                        */

/* The package note a loaded segment holds, which stamping replaces in place;
 * else the first one at all.  Hostile files may carry other package
 * notes before it, in sections only: taking them for the old note made
 * every stamp place the note anew. */
static const pkgnote_note *pick_primary(const struct stamp *s, const pkgnote_note *n, int c) {
        const pkgnote_note *any = NULL;
        for (int i = 0; i < c; i++) {
                if (!pn_stamp_is_kind(s, &n[i]))
                        continue;
                if ((n[i].where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_LOADED)) ==
                    (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_LOADED))
                        return &n[i];
                if (!any)
                        any = &n[i];
        }
        return any;
}

static const pkgnote_note *primary_note(const struct stamp *s) {
        const pkgnote_note *n;
        int c = pn_object_notes(s->e, &n);
        return pick_primary(s, n, c);
}

/* Tries the placements in the order the comment at the top gives. */
static int place_linked(struct stamp *s) {
        bool phdrs_first = pn_stamp_phdrs_in_first_page(s);
        long seg = phdrs_first ? pn_stamp_first_page_note_segment(s) : -1;
        int r = 0;
        if (seg >= 0)
                r = pn_stamp_place_after_notes(s, seg);
        if (r == 0 && phdrs_first)
                r = pn_stamp_place_in_slot(s, true);
        if (r == 0 && seg >= 0)
                r = pn_stamp_place_merged(s, seg);
        if (r == 0 && seg >= 0)
                r = pn_stamp_place_moving_tables(s, seg);
        if (r == 0 && seg >= 0)
                r = pn_stamp_place_shifting_tables(s, seg);
        if (r == 0 && phdrs_first)
                r = pn_stamp_place_moving_phdrs(s);
        if (r == 0)
                r = pn_stamp_place_in_slot(s, false);
        if (r == 0) {
                /* Only where a core loses nothing by it: the headers
                 * were not in the first page, or stay there. */
                bool needs_section = s->shnum > 0 && s->note_section < 0 && pn_stamp_find_note_section(s) < 0;
                r = pn_stamp_place_appended(s, needs_section, phdrs_first);
        }
        if (r == 0)
                r = pn_stamp_place_unloaded(s);
        return r;
}

/* Sections that hold notes of the kind and nothing else. */
static bool kind_only_section(const struct stamp *s, size_t k, const pkgnote_note *n, int nn) {
        const struct sh *h = &s->sh[k];
        if (h->type != SHT_NOTE || h->size == 0)
                return false;
        int found = 0;
        uint64_t covered = 0;
        for (int i = 0; i < nn; i++) {
                if (n[i].offset < h->offset || n[i].offset >= h->offset + h->size)
                        continue;
                if (!pn_stamp_is_kind(s, &n[i]))
                        return false;
                found++;
                covered += n[i].size;
        }
        return found > 0 && covered == h->size;
}

/* The section of an earlier unloaded placement: only notes of the kind, not
 * allocated, no PT_NOTE over them; or -1. */
static long unloaded_note_section(const struct stamp *s) {
        const pkgnote_note *n;
        int nn = pn_object_notes(s->e, &n);
        for (size_t k = 1; nn > 0 && k < s->shnum; k++) {
                if ((s->sh[k].flags & SHF_ALLOC) || !kind_only_section(s, k, n, nn))
                        continue;
                bool loaded = false;
                for (int i = 0; i < nn; i++)
                        loaded |= n[i].offset >= s->sh[k].offset && n[i].offset < s->sh[k].offset + s->sh[k].size &&
                                  (n[i].where & PKGNOTE_NOTE_IN_SEGMENT);
                if (!loaded)
                        return (long)k;
        }
        return -1;
}

/* Over the old unloaded note, in its room; or, when the new note does
 * not fit there or is being removed, that room emptied.  Returns 1 when
 * the note was written, 0 otherwise. */
static int reuse_unloaded(struct stamp *s, bool remove, int *removed) {
        long k = unloaded_note_section(s);
        if (k < 0)
                return 0;
        struct sh *h = &s->sh[k];
        s->note_section = k;
        if (!remove && h->size >= s->note_len && h->size % 4 == 0) {
                int r = pn_stamp_write_note(s, h->offset, h->size);
                if (r < 0)
                        return r;
                s->note_unloaded = true;
                s->res->placement = PKGNOTE_PLACE_REPLACED;
                return 1;
        }
        int r = pn_stamp_zero(s, h->offset, h->size);
        if (r < 0)
                return r;
        h->size = 0;
        (*removed)++;
        return 0;
}

/* The room to replace in place for a kind the file keeps one note of:
 * OLD and the notes of the kind right after it in its PT_NOTE (several
 * objects' dlopen notes, linked into one section), when they are all
 * the file has and, for more than OLD, every section over them covers
 * them all or lies inside them.  0 when there is no such room. */
static uint64_t single_room(const struct stamp *s, const pkgnote_note *old) {
        const pkgnote_note *n;
        int c = pn_object_notes(s->e, &n);
        const struct ph *seg = NULL;
        for (size_t i = 0; i < s->phnum && !seg; i++)
                if (s->ph[i].type == PT_NOTE && old->offset >= s->ph[i].offset &&
                    old->offset + old->size <= s->ph[i].offset + s->ph[i].filesz)
                        seg = &s->ph[i];
        if (!seg)
                return 0;
        uint64_t end = old->offset + old->size;
        for (bool grew = true; grew;) {
                grew = false;
                for (int i = 0; i < c; i++)
                        if (pn_stamp_is_kind(s, &n[i]) && n[i].offset == end && (n[i].where & PKGNOTE_NOTE_IN_SEGMENT) &&
                            n[i].size % 4 == 0 && end + n[i].size <= seg->offset + seg->filesz) {
                                end += n[i].size;
                                grew = true;
                        }
        }
        for (int i = 0; i < c; i++)
                if (pn_stamp_is_kind(s, &n[i]) && (n[i].offset < old->offset || n[i].offset >= end))
                        return 0;
        /* OLD alone: its room, as for any kind; no section changes. */
        if (end == old->offset + old->size)
                return old->size;
        for (size_t k = 1; k < s->shnum; k++) {
                const struct sh *h = &s->sh[k];
                if (h->type == SHT_NOBITS || h->size == 0 || h->offset >= end || h->offset + h->size <= old->offset)
                        continue;
                bool covers = h->offset <= old->offset && h->offset + h->size >= end;
                bool inside = h->type == SHT_NOTE && h->offset >= old->offset && h->offset + h->size <= end;
                if (!covers && !inside)
                        return 0;
        }
        return end - old->offset;
}

/* After the note was written over the room [A, B): a section inside it
 * that starts at A covers the note, the others inside it let go. */
static void cover_room(struct stamp *s, uint64_t a, uint64_t b) {
        for (size_t k = 1; k < s->shnum; k++) {
                struct sh *h = &s->sh[k];
                if (h->type != SHT_NOTE || h->size == 0 || h->offset < a || h->offset + h->size > b)
                        continue;
                if (h->offset == a)
                        h->size = b - a;
                else
                        h->size = 0;
        }
}

/* For a kind the file keeps one note of: sections of only such notes
 * that no PT_NOTE reaches, loaded (the originals a merged placement
 * left behind), let go of them; their bytes stay where a program may
 * address them.  Sections a PT_NOTE reaches are for the segment
 * removal, unloaded ones for reuse_unloaded(). */
static int let_go_loaded_sections(struct stamp *s) {
        const pkgnote_note *n;
        int nn = pn_object_notes(s->e, &n), removed = 0;
        if (!s->kind->single || nn <= 0)
                return 0;
        for (size_t k = 1; k < s->shnum; k++) {
                if (!(s->sh[k].flags & SHF_ALLOC) || !kind_only_section(s, k, n, nn))
                        continue;
                bool reached = false;
                for (int i = 0; i < nn; i++)
                        reached |= n[i].offset >= s->sh[k].offset && n[i].offset < s->sh[k].offset + s->sh[k].size &&
                                   (n[i].where & PKGNOTE_NOTE_IN_SEGMENT);
                if (reached)
                        continue;
                s->sh[k].size = 0;
                if (s->note_section < 0)
                        s->note_section = (long)k;
                removed++;
        }
        return removed;
}

static int stamp_linked(struct stamp *s, bool remove) {
        bool any_load = false;
        for (size_t i = 0; i < s->phnum; i++)
                any_load |= s->ph[i].type == PT_LOAD;
        if (!any_load)
                return pn_error(-ENOSPC, "no loadable segment: nothing would map the note");
        const pkgnote_note *old = primary_note(s);

        /* Over the old note, in its room; for a kind the file keeps one
         * note of, the room of all of them, when they follow each other. */
        uint64_t room = !old ? 0 : s->kind->single ? single_room(s, old) : old->size;
        if (!remove && old && (old->where & PKGNOTE_NOTE_IN_SEGMENT) && (old->where & PKGNOTE_NOTE_LOADED) &&
            room >= s->note_len && room % 4 == 0 && old->namesz == 4) {
                int r = pn_stamp_write_note(s, old->offset, room);
                if (r < 0)
                        return r;
                if (room != old->size)
                        cover_room(s, old->offset, old->offset + room);
                s->res->placement = PKGNOTE_PLACE_REPLACED;
                return pn_stamp_flush_tables(s);
        }

        int removed = let_go_loaded_sections(s), r;
        int cut = pn_stamp_remove_segment_notes(s);
        if (cut < 0)
                return cut;
        removed += cut;
        if ((r = reuse_unloaded(s, remove, &removed)) != 0)
                return r < 0 ? r : pn_stamp_flush_tables(s);
        if (remove) {
                s->res->placement = removed ? PKGNOTE_PLACE_REMOVED : PKGNOTE_PLACE_NONE;
                pn_stamp_drop_empty_note_section(s);
                return pn_stamp_flush_tables(s);
        }

        if ((r = place_linked(s)) < 0)
                return r;
        if (s->res->placement == PKGNOTE_PLACE_SECTION) {
                s->note_unloaded = true;
                if ((r = pn_stamp_cover_note(s, 0)) < 0)
                        return r;
                return pn_stamp_flush_tables(s);
        }

        /* The note's address, from the PT_LOAD that maps it. */
        uint64_t addr = 0;
        for (size_t i = 0; i < s->phnum; i++) {
                const struct ph *p = &s->ph[i];
                if (p->type == PT_LOAD && s->res->note_offset >= p->offset &&
                    s->res->note_offset + s->res->note_size <= p->offset + p->filesz)
                        addr = p->vaddr + (s->res->note_offset - p->offset);
        }
        if ((r = pn_stamp_cover_note(s, addr)) < 0)
                return r;
        return pn_stamp_flush_tables(s);
}

/* ------------------------------------------------------------------ */
/* Relocatable objects                                                 */

static int stamp_relocatable(struct stamp *s, bool remove) {
        if (s->shnum == 0 || s->shstrndx >= s->shnum || !s->names)
                return pn_error(-EBADMSG, "relocatable object without section headers or section names");
        const pkgnote_note *notes;
        int nn = pn_object_notes(s->e, &notes), r;
        if (nn < 0)
                return nn;
        long first = -1;
        int removed = 0;
        for (size_t k = 1; k < s->shnum; k++) {
                if (!kind_only_section(s, k, notes, nn))
                        continue;
                if (first < 0 || s->sh[k].offset < s->sh[first].offset)
                        first = (long)k;
        }
        /* Every section of the kind's notes only but the one reused is
         * emptied, so that stamping again finds only the new note. */
        for (size_t k = 1; k < s->shnum; k++) {
                if ((long)k == first && !remove && s->sh[k].size >= s->note_len)
                        continue;
                if (!kind_only_section(s, k, notes, nn))
                        continue;
                if ((r = pn_stamp_zero(s, s->sh[k].offset, s->sh[k].size)) < 0)
                        return r;
                s->sh[k].size = 0;
                removed++;
                if (remove || (long)k == first)
                        s->note_section = (long)k;
        }
        if (remove) {
                s->res->placement = removed ? PKGNOTE_PLACE_REMOVED : PKGNOTE_PLACE_NONE;
                pn_stamp_drop_empty_note_section(s);
                return pn_stamp_flush_tables(s);
        }
        if (first >= 0 && s->sh[first].size >= s->note_len) {
                struct sh *h = &s->sh[first];
                if ((r = pn_stamp_zero(s, h->offset, h->size)) < 0 || (r = pn_stamp_put(s, h->offset, s->note, s->note_len)) < 0)
                        return r;
                h->size = s->note_len;
                h->flags |= SHF_ALLOC;
                s->res->note_offset = h->offset;
                s->res->note_size = s->note_len;
                s->res->placement = PKGNOTE_PLACE_REPLACED;
                return pn_stamp_flush_tables(s);
        }
        bool needs_name = first < 0 && pn_stamp_find_note_section(s) < 0;
        if (first < 0 && !needs_name)
                s->note_section = pn_stamp_find_note_section(s);
        if (first < 0 && needs_name && s->shnum + 1 >= SHN_LORESERVE)
                return pn_error(-E2BIG, "too many sections to add one");
        if ((r = pn_stamp_append_note(s, needs_name)) < 0)
                return r;
        if ((r = pn_stamp_cover_note(s, 0)) < 0)
                return r;
        return pn_stamp_flush_tables(s);
}

/* ------------------------------------------------------------------ */
/* Checking the result                                                 */

static bool same_note(const pkgnote_note *a, const pkgnote_note *b) {
        return a->type == b->type && a->namesz == b->namesz && a->descsz == b->descsz &&
               !memcmp(a->name, b->name, a->namesz) && !memcmp(a->desc, b->desc, a->descsz);
}

/* Every note but those of the kind is still reachable the ways it was,
 * maybe through copies, still in the first page when it was, and its
 * bytes are where they were (a program may read them by address),
 * unless taking out a note of the kind before it closed them up. */
static int notes_kept(const struct stamp *s, const pkgnote_note *in, int nin, const pkgnote_note *on, int non,
                      const uint8_t *out, size_t out_len) {
        unsigned mask = PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION | PKGNOTE_NOTE_LOADED |
                        (s->phdrs_first_page_in ? PKGNOTE_NOTE_FIRST_PAGE : 0);
        for (int i = 0; i < nin; i++) {
                if (pn_stamp_is_kind(s, &in[i]))
                        continue;
                unsigned seen = 0;
                for (int k = 0; k < non; k++)
                        if (same_note(&in[i], &on[k]))
                                seen |= on[k].where;
                if ((in[i].where & mask & seen) != (in[i].where & mask))
                        return pn_error(-EBADMSG, "the note at offset 0x%llx was lost", (unsigned long long)in[i].offset);
                const uint8_t *was = pn_elf_bytes(s->e, in[i].offset, in[i].size, &(int){0});
                if (!s->notes_closed_up && (!was || !pn_range_ok(in[i].offset, in[i].size, out_len) ||
                                            memcmp(out + in[i].offset, was, in[i].size)))
                        return pn_error(-EBADMSG, "the note at offset 0x%llx moved", (unsigned long long)in[i].offset);
        }
        return 0;
}

/* Whether [off, off + size) runs past the input's END yet starts inside
 * the result's OUT_LEN bytes. */
static bool gains_bytes(uint64_t off, uint64_t size, uint64_t end, uint64_t out_len) {
        return size > 0 && (off + size < off || off + size > end) && off < out_len;
}

/* A section or segment of the input that ran past its end, and that the
 * result keeps as it was, must not cover bytes the result added: they
 * would become its contents (a hostile or truncated file). */
static int nothing_gains_bytes(const struct stamp *s, pkgnote_object *o, uint64_t out_len) {
        uint64_t end = pkgnote_object_size(s->e);
        const pkgnote_shdr *is, *os;
        int nis = pn_object_shdrs(s->e, &is), nos = pn_object_shdrs(o, &os);
        for (int i = 0; i < nis && i < nos; i++)
                if (is[i].type != SHT_NULL && is[i].type != SHT_NOBITS && gains_bytes(is[i].offset, is[i].size, end, out_len) &&
                    os[i].type == is[i].type && os[i].offset == is[i].offset && os[i].size == is[i].size)
                        return pn_error(-EBADMSG, "section %d runs past the end of the file: the bytes stamping adds "
                                                  "would become its contents", i);
        const pkgnote_phdr *ip, *op;
        int nip = pn_object_phdrs(s->e, &ip), nop = pn_object_phdrs(o, &op);
        for (int i = 0; i < nip; i++) {
                if (ip[i].type == PT_NULL || !gains_bytes(ip[i].offset, ip[i].filesz, end, out_len))
                        continue;
                for (int k = 0; k < nop; k++)
                        if (op[k].type == ip[i].type && op[k].offset == ip[i].offset && op[k].filesz == ip[i].filesz)
                                return pn_error(-EBADMSG, "program header %d runs past the end of the file: the bytes "
                                                          "stamping adds would become its contents", i);
        }
        return 0;
}

/* Parses the result back: the note is there (or gone), every other note
 * and the build-id are still there, in place, and still in the first
 * page when they were, as are the program headers; no PT_LOAD moved or
 * shrank, and PT_GNU_PROPERTY did not change. */
static int verify(const struct stamp *s, const uint8_t *out, size_t out_len, const char *json, bool remove) {
        pkgnote_object *o = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_object_from_memory(out, out_len, &o);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return pn_error(-EBADMSG, "the result does not parse: %s", pkgnote_last_error());
        const pkgnote_note *on, *in;
        int non = pn_object_notes(o, &on), nin = pn_object_notes(s->e, &in);
        if (non < 0 || nin < 0 || (r = pkgnote_info_read(o, &info)) < 0) {
                /* Memory running out is no verdict on the result. */
                r = non == -ENOMEM || nin == -ENOMEM || r == -ENOMEM ? pn_oom()
                                                                      : pn_error(-EBADMSG, "the result's notes do not parse");
                goto out;
        }
        if (remove) {
                for (int i = 0; i < non; i++)
                        if (pn_stamp_is_kind(s, &on[i]) && (on[i].where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION))) {
                                r = pn_error(-ENOSPC, "cannot take out the %s at offset 0x%llx: it shares its section with other notes",
                                             s->kind->what, (unsigned long long)on[i].offset);
                                goto out;
                        }
        } else {
                const pkgnote_note *p = NULL;
                if (s->kind->type == PKGNOTE_NT_FDO_PACKAGING_METADATA) {
                        /* The primary package note, as every reader takes it. */
                        size_t count = pkgnote_info_package_note_count(info);
                        const char *j = count ? pkgnote_info_package_json(info, 0) : NULL;
                        p = count ? pkgnote_info_package_note(info, 0) : NULL;
                        if (!j || strcmp(j, json))
                                p = NULL;
                }
                for (int i = 0; i < non && s->kind->single; i++) {
                        if (!pn_stamp_is_kind(s, &on[i]))
                                continue;
                        if (on[i].offset != s->res->note_offset) {
                                r = pn_error(-ENOSPC, "cannot take out the %s at offset 0x%llx: it shares its section with other notes",
                                             s->kind->what, (unsigned long long)on[i].offset);
                                goto out;
                        }
                        p = &on[i];
                }
                /* Stamping the result again must find the new note as the
                 * one to replace, or a second stamp would change the file
                 * (hostile files whose notes overlap what was written). */
                const pkgnote_note *again = pick_primary(s, on, non);
                if (!p || p->offset != s->res->note_offset || !pn_stamp_note_matches(p, s->note, s->note_len, s->be) ||
                    !again || again->offset != p->offset) {
                        r = pn_error(-EBADMSG, "the result's primary %s is not the new one", s->kind->what);
                        goto out;
                }
                unsigned want = s->type == ET_REL || s->note_unloaded ? PKGNOTE_NOTE_IN_SECTION
                                                                             : PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_LOADED;
                if ((p->where & want) != want) {
                        r = pn_error(-EBADMSG, "the new note is not reachable as it should be");
                        goto out;
                }
                if (want == PKGNOTE_NOTE_IN_SECTION && (!p->section || strcmp(p->section, s->kind->section))) {
                        r = pn_error(-EBADMSG, "the new note is not in a section %s", s->kind->section);
                        goto out;
                }
                s->res->first_page = s->type != ET_REL && (p->where & PKGNOTE_NOTE_FIRST_PAGE);
        }
        if ((r = notes_kept(s, in, nin, on, non, out, out_len)) < 0)
                goto out;
        if ((r = nothing_gains_bytes(s, o, out_len)) < 0)
                goto out;
        if (s->phdrs_first_page_in && s->type != ET_REL && !pn_stamp_phdrs_in_first_page(s)) {
                r = pn_error(-EBADMSG, "the program headers left the first page");
                goto out;
        }
        const pkgnote_phdr *ip, *op;
        int nip = pn_object_phdrs(s->e, &ip), nop = pn_object_phdrs(o, &op);
        for (int i = 0; i < nip; i++) {
                if (ip[i].type == PT_GNU_PROPERTY) {
                        bool same = false;
                        for (int k = 0; k < nop && !same; k++)
                                same = !memcmp(&op[k], &ip[i], sizeof op[k]);
                        if (!same) {
                                r = pn_error(-EBADMSG, "the GNU property segment changed");
                                goto out;
                        }
                }
                if (ip[i].type != PT_LOAD)
                        continue;
                bool kept = false;
                for (int k = 0; k < nop && !kept; k++)
                        kept = op[k].type == PT_LOAD && op[k].vaddr == ip[i].vaddr && op[k].offset == ip[i].offset &&
                               op[k].flags == ip[i].flags && op[k].filesz >= ip[i].filesz && op[k].memsz >= ip[i].memsz &&
                               op[k].memsz - op[k].filesz == ip[i].memsz - ip[i].filesz;
                if (!kept) {
                        r = pn_error(-EBADMSG, "loadable segment %d changed", i);
                        goto out;
                }
        }
        r = 0;
out:
        pkgnote_info_free(info);
        pkgnote_object_free(o);
        return r;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */

/* Whether the first LEN bytes of D are a relocatable object (kernel
 * modules are) whose section header table lies inside them: a signature
 * is appended after the whole object.  The trailer's text elsewhere, in
 * a section header at the end of an executable say, is no signature. */
static bool module_before(const uint8_t *d, size_t len) {
        if (len < 64 || memcmp(d, ELFMAG, SELFMAG) ||
            (d[EI_CLASS] != ELFCLASS32 && d[EI_CLASS] != ELFCLASS64) ||
            (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB))
                return false;
        bool is64 = d[EI_CLASS] == ELFCLASS64, be = d[EI_DATA] == ELFDATA2MSB;
        if (pn_rd16(d + 16, be) != ET_REL)
                return false;
        uint64_t shoff = is64 ? pn_rd64(d + 40, be) : pn_rd32(d + 32, be);
        uint16_t shentsize = pn_rd16(d + (is64 ? 58 : 46), be), shnum = pn_rd16(d + (is64 ? 60 : 48), be);
        return pn_range_ok(shoff, (uint64_t)shentsize * shnum, len);
}

/* The length of the ELF object before a kernel module's appended
 * signature, or SIZE when there is none. */
static int module_signature(const uint8_t *d, size_t size, size_t *elf_len) {
        size_t ml = sizeof module_sig_magic - 1;
        *elf_len = size;
        if (size < ml + 12 || memcmp(d + size - ml, module_sig_magic, ml))
                return 0;
        /* struct module_signature: algo, hash, id_type, signer_len,
         * key_id_len, 3 bytes of padding, big-endian sig_len. */
        const uint8_t *ms = d + size - ml - 12;
        uint64_t total = (uint64_t)ml + 12 + ms[3] + ms[4] + pn_rd32(ms + 8, true);
        if (total > size || !module_before(d, size - (size_t)total))
                return 0; /* not a signed module: the bytes are the file's own */
        *elf_len = size - (size_t)total;
        return 1;
}

void pn_stamp_release_buffer(uint8_t *b, uint64_t cap, bool mapped) {
        if (mapped)
                munmap(b, (size_t)cap);
        else
                free(b);
}

/* Maps the file FD privately at a fresh address with ROOM bytes of
 * anonymous memory after it: writes copy only the pages they touch, so a
 * large file is not copied as a whole. */
static uint8_t *map_for_output(int fd, size_t len, size_t room, uint64_t *cap) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), total = len + room;
        total = (total + page - 1) / page * page;
        uint8_t *b = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
                return NULL;
        if (len && mmap(b, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
                munmap(b, total);
                return NULL;
        }
#ifdef MADV_POPULATE_READ
        (void)madvise(b, len, MADV_POPULATE_READ); /* one call instead of a fault per page */
#endif
        *cap = total;
        return b;
}

/* Stamps DATA with the note of KIND for JSON, or takes the notes of
 * KIND out (JSON NULL).  MAP_FD as for pn_stamp_run(). */
static int stamp_kind(const struct pn_note_kind *kind, const void *data, size_t size, const char *json, unsigned flags,
                      int map_fd, uint8_t **ret, size_t *ret_len, bool *ret_mapped, uint64_t *ret_cap,
                      pkgnote_stamp_result *result) {
        bool remove = !json;
        pkgnote_stamp_result res = {0};
        struct stamp s = {.kind = kind, .note_section = -1, .note_flags = SHF_ALLOC, .res = &res};
        uint8_t *note = NULL;
        size_t elf_len = size;
        if (!data && size)
                return pn_error(-EINVAL, "no data");
        int r = module_signature(data, size, &elf_len);
        if (r < 0)
                return r;
        if (r > 0) {
                if (!(flags & PKGNOTE_STAMP_FORCE))
                        return pn_error(-EPERM, "kernel module with an appended signature, which stamping would invalidate (force to drop it and sign again)");
                res.signature_removed = 1;
        }
        r = pkgnote_object_from_memory(data, elf_len, &s.e);
        if (r < 0)
                return r;
        s.is64 = pkgnote_object_class(s.e) == 64;
        s.be = pkgnote_object_big_endian(s.e);
        s.type = pkgnote_object_type(s.e);
        s.in_len = size;
        if (s.type == ET_CORE) {
                r = pn_error(-EINVAL, "a core file, not a program: nothing to stamp");
                goto out;
        }
        if (s.type != ET_REL && s.type != ET_EXEC && s.type != ET_DYN) {
                r = pn_error(-EINVAL, "ELF type %u is not an executable, shared object or relocatable object", s.type);
                goto out;
        }
        if (!remove && (r = kind->encode(json, s.be, &note, &s.note_len)) < 0)
                goto out;
        s.note = note;
        if ((r = pn_stamp_read_phdrs(&s)) < 0 || (r = pn_stamp_read_shdrs(&s)) < 0)
                goto out;
        s.phdrs_first_page_in = pn_stamp_phdrs_in_first_page(&s);
        /* Room for what may be appended (a segment, the section tables)
         * up front, so the copy is made once and never moved. */
        uint64_t room = 65536 + 2 * (uint64_t)s.note_len + (uint64_t)s.shnum * s.shentsize +
                        (uint64_t)(s.phnum + 2) * s.phentsize + s.names_len;
        if (map_fd >= 0 && room < SIZE_MAX - elf_len && (s.b = map_for_output(map_fd, elf_len, (size_t)room, &s.cap)))
                s.mapped = true;
        else {
                if ((r = pn_stamp_reserve(&s, (uint64_t)elf_len + room)) < 0)
                        goto out;
                memcpy(s.b, data, elf_len);
        }
        s.len = elf_len;

        r = s.type == ET_REL ? stamp_relocatable(&s, remove) : stamp_linked(&s, remove);
        if (r < 0)
                goto out;
        if (s.type != ET_REL)
                res.phdrs_first_page = pn_stamp_phdrs_in_first_page(&s);
        res.relocatable = s.type == ET_REL;
        if (remove)
                res.note_offset = res.note_size = 0;
        if (res.placement != PKGNOTE_PLACE_NONE && s.len == size && !memcmp(s.b, data, size))
                res.placement = PKGNOTE_PLACE_UNCHANGED;
        if ((r = verify(&s, s.b, (size_t)s.len, json, remove)) < 0)
                goto out;
        if ((flags & PKGNOTE_STAMP_REQUIRE_FIRST_PAGE) && !remove && s.type != ET_REL && !res.first_page) {
                r = pn_error(-ENOSPC, "no room for the note in the first page without moving code-addressed bytes "
                                      "or the program headers (it would go %s)",
                             res.placement == PKGNOTE_PLACE_SECTION ? "into a section that is not loaded" : "outside the first page");
                goto out;
        }
        res.result_size = s.len;
        res.bytes_added = (int64_t)s.len - (int64_t)size;
        *ret = s.b;
        *ret_len = (size_t)s.len;
        *ret_mapped = s.mapped;
        *ret_cap = s.cap;
        s.b = NULL;
        if (result)
                *result = res;
        r = 0;
out:
        free(note);
        if (s.b)
                pn_stamp_release_buffer(s.b, s.cap, s.mapped);
        free(s.ph);
        free(s.sh);
        free(s.names);
        pkgnote_object_free(s.e);
        return r;
}

int pn_stamp_specs_ok(const pkgnote_note_spec *specs, size_t n) {
        if (!specs || n == 0)
                return pn_error(-EINVAL, "no note to stamp");
        for (size_t i = 0; i < n; i++) {
                if (!pn_note_kind_of(specs[i].type))
                        return pn_error(-EINVAL, "note type 0x%x is not one stamping knows", specs[i].type);
                for (size_t k = 0; k < i; k++)
                        if (specs[k].type == specs[i].type)
                                return pn_error(-EINVAL, "the %s is given twice", pn_note_kind_of(specs[i].type)->what);
        }
        return 0;
}

/* After several kinds were stamped one after the other: each note is
 * still what its pass made it, or gone (a later pass taking notes out
 * may have closed it up: its offset in RES follows). */
static int check_all(const pkgnote_note_spec *specs, size_t n, bool remove_all, const uint8_t *out, size_t out_len,
                     pkgnote_stamp_result *res) {
        pkgnote_object *o = NULL;
        int r = pkgnote_object_from_memory(out, out_len, &o);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return pn_error(-EBADMSG, "the result does not parse: %s", pkgnote_last_error());
        const pkgnote_note *on;
        int non = pn_object_notes(o, &on);
        if (non < 0)
                r = non == -ENOMEM ? pn_oom() : pn_error(-EBADMSG, "the result's notes do not parse");
        for (size_t i = 0; r == 0 && i < n; i++) {
                const struct pn_note_kind *kind = pn_note_kind_of(specs[i].type);
                const char *json = remove_all ? NULL : specs[i].json;
                uint8_t *note = NULL;
                size_t note_len = 0;
                if (json && (r = kind->encode(json, pkgnote_object_big_endian(o), &note, &note_len)) < 0)
                        break;
                const pkgnote_note *found = NULL;
                for (int k = 0; k < non && r == 0; k++) {
                        if (!pkgnote_note_is(&on[k], PKGNOTE_OWNER_FDO, kind->type) ||
                            !(on[k].where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION)))
                                continue;
                        if (!json)
                                r = pn_error(-EBADMSG, "a %s is left in the result", kind->what);
                        else if (!found && pn_stamp_note_matches(&on[k], note, note_len, pkgnote_object_big_endian(o)))
                                found = &on[k];
                        else if (kind->single)
                                r = pn_error(-EBADMSG, "more than one %s in the result", kind->what);
                }
                free(note);
                if (r == 0 && json && !found)
                        r = pn_error(-EBADMSG, "the result lost its new %s", kind->what);
                /* A note only a section reaches must be in a section of its
                 * kind's name, or the next stamp would not find it (a later
                 * pass on a hostile section name table renamed it). */
                if (r == 0 && json && !(found->where & PKGNOTE_NOTE_IN_SEGMENT) &&
                    (!found->section || strcmp(found->section, kind->section)))
                        r = pn_error(-EBADMSG, "the result's new %s is not in a section %s", kind->what, kind->section);
                if (r == 0 && json) {
                        res[i].note_offset = found->offset;
                        res[i].note_size = found->size;
                        res[i].first_page = !res[i].relocatable && (found->where & PKGNOTE_NOTE_FIRST_PAGE);
                }
        }
        pkgnote_object_free(o);
        return r;
}

int pn_stamp_run(const void *data, size_t size, const pkgnote_note_spec *specs, size_t n, unsigned flags, int map_fd,
                 uint8_t **ret, size_t *ret_len, bool *ret_mapped, uint64_t *ret_cap, pkgnote_stamp_result *results) {
        pkgnote_stamp_result res[2] = {{0}};
        int r = pn_stamp_specs_ok(specs, n);
        if (r < 0)
                return r;
        if (n > ELEMENTSOF(res))
                return pn_error(-EINVAL, "internal: too many kinds of note");
        if (size >= 2 && !memcmp(data, "MZ", 2)) {
                /* A PE image: one section, the package note alone. */
                if (n != 1 || specs[0].type != PKGNOTE_NT_FDO_PACKAGING_METADATA)
                        return pn_error(-EINVAL, "PE files carry the package note only (no dlopen note)");
                *ret_mapped = false;
                *ret_cap = 0;
                r = pn_pe_stamp(data, size, flags & PKGNOTE_STAMP_REMOVE ? NULL : specs[0].json, flags, ret, ret_len,
                                &res[0]);
                if (r >= 0 && results)
                        results[0] = res[0];
                return r;
        }
        const uint8_t *in = data;
        size_t in_len = size;
        uint8_t *cur = NULL;
        size_t cur_len = 0;
        bool cur_mapped = false;
        uint64_t cur_cap = 0;
        bool remove_all = flags & PKGNOTE_STAMP_REMOVE;
        for (size_t i = 0; i < n; i++) {
                uint8_t *b = NULL;
                size_t bl = 0;
                bool bm = false;
                uint64_t bc = 0;
                r = stamp_kind(pn_note_kind_of(specs[i].type), in, in_len, remove_all ? NULL : specs[i].json, flags,
                               i == 0 ? map_fd : -1, &b, &bl, &bm, &bc, &res[i]);
                if (r < 0)
                        goto fail;
                if (cur)
                        pn_stamp_release_buffer(cur, cur_cap, cur_mapped);
                cur = b;
                cur_len = bl;
                cur_mapped = bm;
                cur_cap = bc;
                in = cur;
                in_len = cur_len;
        }
        if (n > 1 && (r = check_all(specs, n, remove_all, cur, cur_len, res)) < 0)
                goto fail;
        for (size_t i = 0; i < n; i++) {
                /* The file as a whole: what the last pass left. */
                res[i].signature_removed = res[0].signature_removed;
                res[i].phdrs_first_page = res[n - 1].phdrs_first_page;
                res[i].result_size = cur_len;
                res[i].bytes_added = (int64_t)cur_len - (int64_t)size;
                if (results)
                        results[i] = res[i];
        }
        *ret = cur;
        *ret_len = cur_len;
        *ret_mapped = cur_mapped;
        *ret_cap = cur_cap;
        return 0;
fail:
        if (cur)
                pn_stamp_release_buffer(cur, cur_cap, cur_mapped);
        return r;
}

/* The note specifications of the entry points for the package note. */
static int package_spec(const char *json, unsigned flags, pkgnote_note_spec *spec) {
        if (!json && !(flags & PKGNOTE_STAMP_REMOVE))
                return pn_error(-EINVAL, "no JSON given");
        *spec = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_stamp_memory(const void *data, size_t size, const char *json, unsigned flags,
                                        uint8_t **ret, size_t *ret_len, pkgnote_stamp_result *result) {
        pkgnote_note_spec spec;
        int r = package_spec(json, flags, &spec);
        if (r < 0)
                return r;
        return pkgnote_stamp_notes_memory(data, size, &spec, 1, flags, ret, ret_len, result);
}

PKGNOTE_PUBLIC int pkgnote_stamp_notes_memory(const void *data, size_t size, const pkgnote_note_spec *specs, size_t n,
                                              unsigned flags, uint8_t **ret, size_t *ret_len,
                                              pkgnote_stamp_result *results) {
        bool mapped;
        uint64_t cap;
        if (!ret || !ret_len)
                return pn_error(-EINVAL, "nowhere to put the result");
        int r = pn_stamp_results_ok(results, n);
        if (r < 0)
                return r;
        pkgnote_note_spec *notes;
        r = pn_array_read((void **)&notes, sizeof *notes, specs, n, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (r < 0)
                return r;
        pkgnote_stamp_result full[PN_STAMP_RESULTS_MAX] = {{0}};
        r = pn_stamp_run(data, size, notes, n, flags, -1, ret, ret_len, &mapped, &cap, results ? full : NULL);
        free(notes);
        if (r >= 0)
                pn_stamp_results_out(results, full, n);
        return r;
}

PKGNOTE_PUBLIC const char *pkgnote_stamp_placement_name(int placement) {
        static const char *const names[] = {
                [PKGNOTE_PLACE_NONE] = "none",
                [PKGNOTE_PLACE_UNCHANGED] = "unchanged",
                [PKGNOTE_PLACE_REPLACED] = "replaced",
                [PKGNOTE_PLACE_AFTER_NOTES] = "after-notes",
                [PKGNOTE_PLACE_MERGED] = "merged",
                [PKGNOTE_PLACE_FREE_SLOT] = "free-slot",
                [PKGNOTE_PLACE_MOVED_PHDRS] = "moved-phdrs",
                [PKGNOTE_PLACE_PADDING] = "padding",
                [PKGNOTE_PLACE_APPENDED] = "appended",
                [PKGNOTE_PLACE_SECTION] = "section",
                [PKGNOTE_PLACE_REMOVED] = "removed",
                [PKGNOTE_PLACE_PE_SECTION] = "pe-section",
        };
        return placement >= 0 && (size_t)placement < ELEMENTSOF(names) ? names[placement] : NULL;
}

