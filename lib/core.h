/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private interfaces of the core reader. */
#ifndef PKGNOTE_CORE_H
#define PKGNOTE_CORE_H

#include "internal.h"

/* A core read forward only: compressed (zstd, xz, lz4) or from a pipe. */
struct pn_core_source;

/* Detects what FD holds.  *ret is NULL for a plain seekable ELF file
 * (read in place), else a stream source. */
int pn_core_source_open(int fd, struct pn_core_source **ret);
/* Reads the core's ELF header, program headers and PT_NOTE segments:
 * the prefix up to the end of the last of them, malloc()ed. */
int pn_core_source_prefix(struct pn_core_source *s, uint8_t **ret, uint64_t *len);
/* Reads LEN bytes at OFF, which must not lie before what was already
 * read (-ESPIPE); *got is short only at the end of the core. */
int pn_core_source_read(struct pn_core_source *s, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *got);
/* Bytes read from the file descriptor (compressed bytes for a stream). */
uint64_t pn_core_source_bytes_read(const struct pn_core_source *s);
void pn_core_source_free(struct pn_core_source *s);

/* Opens PATH read-only for reading a module's file: under ROOTFD when it
 * is >= 0, resolved inside that directory (no escape through "..",
 * absolute symlinks or magic links), else as given.  Only regular files;
 * returns an fd or a negative errno. */
int pn_open_in_root(int rootfd, const char *path);

#endif
