/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ELF view's private state, shared by 02-elf.c and 02-elf-note.c. */
#ifndef PKGNOTE_ELFVIEW_H
#define PKGNOTE_ELFVIEW_H

#include <stdarg.h>

#include "01-base.h"
#include "01-base-problem.h"

/* Returns a pointer to LEN bytes at file offset OFF of the object, reading
 * them when needed; NULL (with pn_error set, *err = -EBADMSG or an I/O
 * errno) when the range lies outside the file.  Valid until the view is
 * freed.  Every access to object bytes goes through here. */
const uint8_t *pn_elf_bytes(pkgnote_object *e, uint64_t off, uint64_t len, int *err);
/* pread() of LEN bytes at OFF, counted in the view's bytes_read. */
int pn_elf_read_full(pkgnote_object *e, int fd, uint8_t *buf, uint64_t len, uint64_t off, uint64_t *got);
void pn_elf_chunks_free(pkgnote_object *e);

/* E's DT_SONAME (*SONAME, or NULL) and DT_NEEDED names (*NEEDED, *N of
 * them), all malloc()ed, from PT_DYNAMIC and the string table it names:
 * 0 (none for an object without a dynamic section), -EBADMSG, -E2BIG
 * or -ENOMEM with pn_error set. */
int pn_elf_dynamic(pkgnote_object *e, char **soname, char ***needed, size_t *n);

/* What the dynamic loader reads of an object's dynamic section. */
struct pn_dynamic {
        char *soname;  /* DT_SONAME, or NULL */
        char **needed; /* DT_NEEDED names, in order */
        size_t n_needed;
        char *rpath, *runpath; /* DT_RPATH, DT_RUNPATH, or NULL */
        uint64_t flags_1;      /* DT_FLAGS_1 (DF_1_NODEFLIB...), or 0 */
};
/* pn_elf_dynamic() with the search paths too; *D is all NULL on failure. */
int pn_elf_dynamic_read(pkgnote_object *e, struct pn_dynamic *d);
/* The object's e_flags (0 for a PE image). */
uint32_t pn_elf_eflags(const pkgnote_object *e);
void pn_dynamic_done(struct pn_dynamic *d);

struct chunk;
struct pn_pe;

struct pkgnote_object {
        const uint8_t *mem; /* whole object in memory, or NULL for a file */
        uint8_t *owned;     /* memory we allocated (non-seekable input) */
        int fd;
        bool own_fd;
        uint64_t size;
        uint64_t head_len;
        struct chunk *chunks;
        /* Only these ranges of the object are there (a member of an
         * archive read as a stream), increasing and disjoint: their bytes
         * at SPAN_BYTES. */
        const struct pn_span *spans;
        size_t n_spans;
        const uint8_t *span_bytes;
        bool span_missed; /* a range asked for was not among them */
        uint64_t bytes_read; /* through read(2)/pread(2), for benchmarks */

        /* The bytes are only a prefix of the object (a module's page dumped
         * into a core): what lies beyond is absent, not malformed. */
        bool partial;

        bool is64, be;
        unsigned type, machine;
        uint32_t eflags; /* e_flags */
        uint64_t phoff, shoff;
        unsigned phentsize, shentsize;
        uint32_t phnum, shnum, shstrndx;
        pkgnote_phdr *phdrs;

        bool shdrs_read;
        int shdrs_err;
        pkgnote_shdr *shdrs;
        uint32_t n_shdrs;

        bool notes_read;
        int notes_err;
        pkgnote_note *notes;
        size_t n_notes;

        /* A PE/COFF image (lib/02-pe.c): no ELF headers, its .pkgnote
         * sections read as notes. */
        struct pn_pe *pe;

        struct pn_problems problems;
        /* Set when a PT_NOTE was passed over for the section table. */
        char *notes_warning;

        /* Last, so that a new view clears all but it. */
        uint8_t head[4096]; /* first page of a file */
};

/* A view over the first SIZE bytes of an object whose rest is absent:
 * section headers beyond them are ignored, notes beyond them reported
 * with -ENODATA. */
int pn_elf_from_prefix(const void *data, size_t size, pkgnote_object **ret);

/* A view over an object of SIZE bytes of which only the N ranges SPANS
 * (bytes at BYTES) were kept, both valid while the view lives: a range
 * outside them reads as -ENODATA.  PARTIAL: SIZE is a prefix of the
 * object, as pn_elf_from_prefix(). */
int pn_elf_from_spans(const struct pn_span *spans, size_t n, const uint8_t *bytes, uint64_t size, bool partial,
                      pkgnote_object **ret);

/* Records a non-fatal problem with the object (kept, bounded) and returns ERR. */
int pn_elf_problem(pkgnote_object *e, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
