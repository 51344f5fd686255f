/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping's private state, shared by its files:
 *   06-stamp.c        entry points, the order of placements, relocatable
 *                  objects, and the check of the result
 *   06-stamp-edit.c   rewriting primitives: the output buffer, the header
 *                  tables, writing and removing notes, sections
 *   06-stamp-place.c  placements of the note in linked files, and the free
 *                  space they use
 *   06-stamp-tables.c room in the first page made by moving the tables of
 *                  dynamic linking, and the checks that nothing but
 *                  DT_ entries addresses them
 *   06-stamp-file.c   pkgnote_stamp_file(): reading the input, writing the
 *                  result through a temporary file beside the target
 */
#ifndef PKGNOTE_STAMP_PRIVATE_H
#define PKGNOTE_STAMP_PRIVATE_H

#include "02-elf-const.h"
#include "02-elf-view.h"

/* Dynamic tables moved at most to make room after the notes. */
#define MAX_MOVED 3

/* The page granularity we assume for mappings: 4096 is the smallest page
 * size, so staying inside a 4 KiB page is safe on kernels with larger
 * pages too.  What the kernel dumps of a mapped file is PN_FIRST_PAGE. */
#define PAGE 4096u

struct ph {
        uint32_t type, flags;
        uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct sh {
        uint32_t name, type;
        uint64_t flags, addr, offset, size;
        uint32_t link, info;
        uint64_t align, entsize;
};

struct range {
        uint64_t a, b;
};

/* A kind of note that stamping adds, replaces or removes: the package
 * note or the dlopen note.  Everything else in stamping is the same for
 * both. */
struct pn_note_kind {
        uint32_t type;       /* the FDO note type */
        const char *section; /* the section that covers it: ".note.package" */
        const char *what;    /* "package note", for messages */
        /* One note in the file at the most after stamping: the dlopen
         * note's array holds every entry, so the others go. */
        bool single;
        int (*encode)(const char *json, int big_endian, uint8_t **note, size_t *note_len);
};

/* The kind for the FDO note TYPE, or NULL. */
const struct pn_note_kind *pn_note_kind_of(uint32_t type);

struct stamp {
        const struct pn_note_kind *kind; /* the note stamped */
        pkgnote_object *e; /* view over the input */
        bool is64, be;
        unsigned type;
        uint64_t in_len;

        uint8_t *b; /* the result being built */
        uint64_t len, cap;
        bool mapped; /* b is a private (copy-on-write) mapping of the input file */

        struct ph *ph;
        size_t phnum, phcap;
        uint64_t phoff;
        unsigned phentsize;

        struct sh *sh;
        size_t shnum, shcap, shnum_read;
        uint64_t shoff;
        unsigned shentsize;
        uint32_t shstrndx;
        uint8_t *names; /* the section name table, copied */
        uint64_t names_len;
        bool names_grew, table_grew, tail_cut;
        bool phdrs_first_page_in; /* the input's program headers are in its first page */
        bool notes_closed_up;     /* notes after a note of the kind taken out moved up */

        const uint8_t *note; /* the new note */
        size_t note_len;
        long note_section; /* section to cover the note, or -1 */
        uint64_t note_flags; /* its sh_flags */
        bool note_unloaded;  /* in a section only, which no PT_NOTE covers */

        struct range reserved[1 + MAX_MOVED]; /* kept free while placing other things */
        size_t n_reserved;
        pkgnote_stamp_result *res;
};

/* An address-sized word (ELF class) in explicit byte order. */
static inline void pn_put_word(uint8_t *p, uint64_t v, bool is64, bool be) {
        if (is64)
                pn_wr64(p, v, be);
        else
                pn_wr32(p, (uint32_t)v, be);
}

static inline uint64_t pn_get_word(const uint8_t *p, bool is64, bool be) {
        return is64 ? pn_rd64(p, be) : pn_rd32(p, be);
}

/* ------------------------------------------------------------------ */
/* 06-stamp.c                                                          */

/* Stamps DATA with the N notes of SPECS (JSON NULL: remove that kind;
 * every kind at most once), one kind after the other, the result of one
 * the input of the next; RESULTS (N of them, may be NULL) says what
 * became of each.  MAP_FD >= 0: the file DATA was read from, whose
 * private mapping then holds the result (*RET_MAPPED, RET_CAP bytes to
 * unmap). */
int pn_stamp_run(const void *data, size_t size, const pkgnote_note_spec *specs, size_t n, unsigned flags, int map_fd,
                 uint8_t **ret, size_t *ret_len, bool *ret_mapped, uint64_t *ret_cap, pkgnote_stamp_result *results);
/* Is N the note ENCODED (as the kind's encoder makes it, in byte order
 * BE), its descriptor maybe NUL-padded further? */
bool pn_stamp_note_matches(const pkgnote_note *n, const uint8_t *encoded, size_t encoded_len, bool be);
/* Frees a result of pn_stamp_run(). */
void pn_stamp_release_buffer(uint8_t *b, uint64_t cap, bool mapped);

/* ------------------------------------------------------------------ */
/* 06-stamp-edit.c: the output buffer                                  */

int pn_stamp_reserve(struct stamp *s, uint64_t len);
/* Makes the result LEN bytes long; new bytes are zero. */
int pn_stamp_resize(struct stamp *s, uint64_t len);
int pn_stamp_put(struct stamp *s, uint64_t off, const void *p, uint64_t n);
int pn_stamp_zero(struct stamp *s, uint64_t off, uint64_t n);
bool pn_stamp_is_zero(const struct stamp *s, uint64_t a, uint64_t b);

/* 06-stamp-edit.c: the tables */

int pn_stamp_read_phdrs(struct stamp *s);
int pn_stamp_read_shdrs(struct stamp *s);
const char *pn_stamp_section_name(const struct stamp *s, size_t i);
/* Writes the program and section header tables and the ELF header
 * fields that locate and count them (gABI extended numbering kept). */
int pn_stamp_flush_tables(struct stamp *s);

/* 06-stamp-edit.c: notes and sections */

/* Is N a note of the kind being stamped? */
bool pn_stamp_is_kind(const struct stamp *s, const pkgnote_note *n);
/* Writes the new note at OFF, ROOM bytes long: the descriptor is
 * NUL-padded to fill the room, as the spec allows. */
int pn_stamp_write_note(struct stamp *s, uint64_t off, uint64_t room);
/* Takes every note of the kind out of the PT_NOTE segments; returns
 * the number of notes removed. */
int pn_stamp_remove_segment_notes(struct stamp *s);
/* Drops the unloaded tail so new data can go there; the section name
 * table and section header table are written again after it. */
int pn_stamp_cut_tail(struct stamp *s, bool with_names);
/* The SHT_NOTE section of the kind (.note.package), or -1. */
long pn_stamp_find_note_section(const struct stamp *s);
/* Points section NOTE_SECTION (or a new section of the kind) at the note. */
int pn_stamp_cover_note(struct stamp *s, uint64_t addr);
/* Appends the note after the file's data, for a section to cover: the
 * section name table (when NEEDS_NAME) and header table follow it. */
int pn_stamp_append_note(struct stamp *s, bool needs_name);
/* After removal: an emptied section of the kind that is the last
 * section goes. */
int pn_stamp_drop_empty_note_section(struct stamp *s);

/* ------------------------------------------------------------------ */
/* 06-stamp-place.c: free space                                        */

/* Everything in the result that holds bytes someone reads, sorted. */
int pn_stamp_occupied(const struct stamp *s, struct range **ret, size_t *ret_n);
bool pn_stamp_overlaps_any(const struct range *occ, size_t n, uint64_t a, uint64_t b);
enum { HOST_FIRST_PAGE = 1, HOST_NO_EXEC = 2 };
/* The read-only PT_LOAD that maps [a, b), once grown over its padding
 * within pages it already maps, or -1. */
long pn_stamp_host_for(const struct stamp *s, uint64_t a, uint64_t b, unsigned how);
/* SIZE free zero bytes anywhere a read-only PT_LOAD maps or may map;
 * the offset or UINT64_MAX, and the PT_LOAD in *HOST. */
uint64_t pn_stamp_find_home(struct stamp *s, uint64_t size, uint64_t align, long *host);
/* Grows PT_LOAD H over its padding up to file offset B when needed. */
void pn_stamp_grow_host(struct stamp *s, long h, uint64_t b);
uint64_t pn_stamp_vaddr_of(const struct stamp *s, long h, uint64_t off);

/* ------------------------------------------------------------------ */
/* Placements for linked files (06-stamp-place.c, 06-stamp-tables.c)   */

/* Each returns 1 when the note was placed, 0 when that placement does
 * not fit (nothing changed), or a negative errno. */

bool pn_stamp_phdrs_in_first_page(const struct stamp *s);
/* The PT_NOTE with the 4-byte aligned notes in the first page, or -1. */
long pn_stamp_first_page_note_segment(const struct stamp *s);
int pn_stamp_place_after_notes(struct stamp *s, long seg);
int pn_stamp_after_notes_fits(struct stamp *s, long seg, const bool *vacating, long *host);
int pn_stamp_place_moving_tables(struct stamp *s, long seg);
int pn_stamp_place_in_slot(struct stamp *s, bool first_page);
int pn_stamp_place_merged(struct stamp *s, long seg);
int pn_stamp_place_shifting_tables(struct stamp *s, long seg);
int pn_stamp_place_moving_phdrs(struct stamp *s);
/* A new segment at the end with the program headers; with
 * KEEP_FIRST_PAGE only when they stay in the first page (small files). */
int pn_stamp_place_appended(struct stamp *s, bool needs_section, bool keep_first_page);
/* The last resort: a section of its own at the end, not loaded.  Fails
 * with -ENOSPC or -E2BIG rather than return 0. */
int pn_stamp_place_unloaded(struct stamp *s);

#endif
