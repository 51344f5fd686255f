/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one directory walker of lib/ (lib/01-base-dir.c): every listing of a
 * directory that pkgnote did not make (trees to scan or stamp, image
 * layers, crash stores, library directories of a root) goes through it.
 * A directory is opened relative to a directory descriptor, never
 * through a symbolic link; its entries come without "." and "..", with
 * their type as the directory gives it or, where it gives none, as
 * lstat would (never the type of a link's target); a listing may be
 * bounded in entries and a walk in depth.
 */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

struct stat;

/* Resolve DT_UNKNOWN (file systems that give no type) by fstatat()
 * without following links; else the type may be DT_UNKNOWN. */
#define PN_DIR_TYPES 1u

struct pn_dir {
        DIR *d;
        unsigned flags;
        size_t n, max; /* entries given; at most MAX (0: any number) */
};

struct pn_dirent {
        const char *name; /* valid until the next pn_dir_next() */
        unsigned char type; /* DT_REG, DT_DIR, DT_LNK, ...; see PN_DIR_TYPES */
};

/* Opens a listing of the directory NAME of DFD (not following a link),
 * or with NAME NULL of DFD itself, from its start, through a descriptor
 * of its own: DFD stays the caller's, and its offset is not the
 * listing's concern.  MAX bounds the entries (0: none).  0, or a negative
 * errno (errno set too, for the caller's message). */
int pn_dir_open(struct pn_dir *it, int dfd, const char *name, unsigned flags, size_t max);
/* The next entry into *E: 1, 0 at the end, -E2BIG past MAX entries, or
 * the negative errno of a failed read (errno set too). */
int pn_dir_next(struct pn_dir *it, struct pn_dirent *e);
/* The descriptor the entries are relative to (for openat(), fstatat()). */
int pn_dir_fd(const struct pn_dir *it);
void pn_dir_close(struct pn_dir *it);

/* Opens the subdirectory NAME of DFD for a walk: no link followed, and,
 * when SEEN (the entry as looked at) is given, only if it is still that
 * directory (-ESTALE: replaced meanwhile).  ST, when not NULL, gets the
 * directory's identity.  A descriptor, or a negative errno (errno set). */
int pn_dir_open_sub(int dfd, const char *name, const struct stat *seen, struct stat *st);

/* The names of the directory DFD (but "." and ".."), sorted by strcmp(),
 * into *RET (each and the array malloc()ed) and *N: 0, or a negative
 * errno; on a failure, what was read before it (to be freed). */
int pn_dir_names(int dfd, char ***ret, size_t *n);
