/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An initramfs as the kernel reads it (lib/01-base-cpio.c; the kernel's
 * init/initramfs.c and Documentation/driver-api/early-userspace/
 * buffer-format.rst): cpio archives of the "newc" formats (070701, and
 * 070702 with checksums) one after another, zero bytes between them, any
 * of them compressed (gzip, xz, zstd, lz4 frames or lz4's legacy format
 * as the kernel's lz4 initramfs has it: the one decompressor,
 * lib/01-base-decompress.c), read from memory without writing anything
 * to disk.  Shared by the check layer (deps --verify) and whatever else
 * reads initrds; the caller decides what a path means.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A newc header: magic, thirteen 8-digit hex fields. */
#define PN_CPIO_HEADER 110u
/* Longest name a cpio entry may have (the kernel's PATH_MAX). */
#define PN_CPIO_MAX_NAME 4096u
/* Entries of one initramfs, all archives told. */
#define PN_CPIO_MAX_ENTRIES (1u << 20)

struct pn_cpio_entry {
        const char *name;  /* as stored: NUL-terminated, not normalised */
        uint32_t mode;     /* st_mode: type and permissions */
        uint32_t ino, nlink, devmajor, devminor;
        const uint8_t *data; /* the file's bytes, a symbolic link's target */
        size_t size;
        uint64_t offset;   /* of the header, in the archive it is in */
        unsigned archive;  /* which archive of the sequence (0: the first) */
};

/* Called for each entry but the trailers; DATA stays valid until
 * pn_initramfs_done().  A negative errno stops the walk and is returned. */
typedef int (*pn_cpio_fn)(void *u, const struct pn_cpio_entry *e);

/* What decoding made; the entries' bytes live in it. */
struct pn_initramfs {
        uint8_t **bufs;
        size_t n_bufs, cap_bufs;
        unsigned archives;   /* cpio archives read */
        unsigned compressed; /* of them, or of the streams holding them, compressed */
};

/* Walks the LEN bytes at DATA, an initramfs, decoding at most LIMIT bytes
 * of compressed data in all: 0, or -EBADMSG (a header that is not one,
 * an entry past the end, a damaged or truncated compressed stream),
 * -EOPNOTSUPP (a compression this build cannot decode, or one the
 * kernel reads and the decompressor does not: bzip2, lzma, lzo), -E2BIG
 * (past
 * LIMIT or PN_CPIO_MAX_ENTRIES), -ENOMEM, each with pn_error set, or
 * FN's error.  *IR holds the decoded data either way. */
int pn_initramfs_each(const uint8_t *data, size_t len, uint64_t limit, pn_cpio_fn fn, void *u, struct pn_initramfs *ir);
void pn_initramfs_done(struct pn_initramfs *ir);
