/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stamping files relative to directory descriptors (lib/06-stamp-file.c)
 * and whole trees (lib/06-stamp-tree.c): the library side of
 * pkgnote stamp --tree. */
#ifndef PKGNOTE_STAMP_FILE_H
#define PKGNOTE_STAMP_FILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "pkgnote.h"

enum {
        /* Internal flags beside PKGNOTE_STAMP_*. */
        PN_STAMP_FOLLOW = 1u << 16,      /* NAME may be a symbolic link, followed (named by the user) */
        PN_STAMP_LINKS_OK = 1u << 17,    /* the caller takes care of the file's other names */
        PN_STAMP_NO_DIRSYNC = 1u << 18,  /* the caller fsync()s the directory */
};

/* Checks SPECS as pn_stamp_run() needs them: kinds known, none twice,
 * at least one.  -EINVAL otherwise. */
int pn_stamp_specs_ok(const pkgnote_note_spec *specs, size_t n);

/* Stamps the regular file NAME of DIRFD in place, by the rules of
 * pkgnote_stamp_file(), never following a symbolic link unless
 * PN_STAMP_FOLLOW.  EXPECT (may be NULL): the file must still be this one
 * (device and inode) when it is opened and when it is replaced.  WRITTEN
 * (may be NULL) receives the identity of the file now at NAME, which is
 * the old one when nothing had to change. */
int pn_stamp_at(int dirfd, const char *name, const struct stat *expect, const pkgnote_note_spec *specs, size_t n,
                unsigned flags, pkgnote_stamp_result *results, struct stat *written);

/* Stamps the regular file REL of the root ROOTFD, as pn_resolve_in_root()
 * found it there (no symbolic link in REL; EXPECT its identity): in place,
 * replaced inside its own directory of the root, or into a new file
 * OUTPUT (REL only read).  Nothing outside the root is opened but OUTPUT. */
int pn_stamp_in_root(int rootfd, const char *rel, const struct stat *expect, const char *output,
                     const pkgnote_note_spec *specs, size_t n, unsigned flags, pkgnote_stamp_result *results);

/* One file of a tree, as pn_stamp_tree() reports it.  PATH is the tree's
 * name joined with the file's path in it. */
typedef struct pn_tree_file {
        const char *path;
        int err;                  /* 0 stamped, < 0 failed (message in pkgnote_last_error()) */
        const char *skipped;      /* not stamped, and why (err 0) */
        const pkgnote_stamp_result *result; /* when stamped: one for each note specification */
        size_t names;             /* the file's names in the tree (hard links), 1 usually */
} pn_tree_file;
typedef void (*pn_tree_fn)(const pn_tree_file *f, void *userdata);

/* Stamps every executable, shared object and relocatable object of the
 * tree DIR with the N notes of SPECS (as pkgnote_stamp_notes_file()) (see pkgnote-stamp(1)), walking and writing relative to
 * directory descriptors opened without following symbolic links.  Calls
 * FN for each file stamped, skipped or failed.  Returns 0, or a negative
 * errno when DIR itself cannot be walked; failures of single files go to
 * FN only. */
int pn_stamp_tree(const char *dir, const pkgnote_note_spec *specs, size_t n, unsigned flags, pn_tree_fn fn,
                  void *userdata);

/* The metadata for the file REL (its path in the tree): the JSON, or NULL
 * with *SKIP saying why the file is left alone, or *ERR < 0 (message in
 * pkgnote_last_error()) when that is a failure. */
typedef const char *(*pn_tree_json_fn)(const char *rel, const char **skip, int *err, void *userdata);
/* pn_stamp_tree() with each file's package note metadata from JSON_FN
 * (the JSON of the package note of SPECS when it is NULL; only when SPECS
 * stamp a package note); hard links get the metadata of their first name in the tree's
 * sorted order. */
int pn_stamp_tree_each(const char *dir, const pkgnote_note_spec *specs, size_t n, pn_tree_json_fn json_fn, void *json_ud,
                       unsigned flags, pn_tree_fn fn, void *userdata);

/* The caller's array of N results (RESULTS, may be NULL) against the
 * library's: results of a struct of any size (the first element's size
 * field gives the stride), written only within it.  pn_stamp_results_ok()
 * checks the sizes before anything is done (-EINVAL, N over 2 too);
 * pn_stamp_results_out() copies the library's N FULL results there;
 * pn_stamp_results_in() reads the caller's N results into FULL, zero
 * past their size. */
#define PN_STAMP_RESULTS_MAX 2
int pn_stamp_results_ok(const pkgnote_stamp_result *results, size_t n);
void pn_stamp_results_out(pkgnote_stamp_result *results, const pkgnote_stamp_result *full, size_t n);
int pn_stamp_results_in(const pkgnote_stamp_result *results, size_t n, pkgnote_stamp_result *full);

#endif
