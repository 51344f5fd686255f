/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A built artefact as a file tree in memory (lib/07-check-artefact.c):
 * a directory on disk (names, types and link targets read once, file
 * bytes when asked, never following a link) or an initramfs (its cpio
 * archives, read from memory as the kernel unpacks them into one root:
 * lib/01-base-cpio.c), or a unified kernel image (its `.initrd` section's
 * initramfs, read in place: lib/07-check-uki.c).  Paths resolve inside the tree as if it were "/"
 * (".." stops at the top, absolute links start from it, at most
 * PN_MAX_SYMLINKS links), so nothing of the host is ever read, and the
 * shared resolver (07-check-resolve.h) reads it through a pn_resolve_root.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "01-base-problem.h"
#include "07-check-resolve.h"

/* Entries of one artefact, and the bytes an initramfs may decompress to. */
#define PN_ARTEFACT_MAX_NODES (1u << 20)
#define PN_ARTEFACT_MAX_DECODED (2ull << 30)
/* How deep a directory artefact is walked. */
#define PN_ARTEFACT_MAX_DEPTH 256u

enum { PN_NODE_DIR = 1, PN_NODE_FILE, PN_NODE_LINK, PN_NODE_OTHER };
enum { PN_ARTEFACT_DIRECTORY = 1, PN_ARTEFACT_INITRAMFS, PN_ARTEFACT_UKI };
/* Artefacts built from outside (lib/09-scan-verify.c): the values of
 * their PKGNOTE_VERIFY_* kinds. */
enum { PN_ARTEFACT_TAR = 4, PN_ARTEFACT_IMAGE = 5, PN_ARTEFACT_SQUASHFS = 6 };

struct pn_artefact;

/* Reads PATH, a directory, an initramfs file or a UKI (a PE file, its
 * first bytes "MZ"): 0 with *RET, or a
 * negative errno with pn_error set.  Entries left out (a name leading
 * out of the archive, a directory missing) are PROBLEMS. */
int pn_artefact_open(const char *path, struct pn_problems *problems, struct pn_artefact **ret);
/* The initramfs of LEN bytes at DATA (which must outlive *RET), decoding
 * at most LIMIT bytes: as pn_artefact_open(). */
int pn_artefact_from_initramfs(const uint8_t *data, size_t len, uint64_t limit, struct pn_problems *problems,
                               struct pn_artefact **ret);
/* The UKI of LEN bytes at DATA (which must outlive *RET), its `.initrd`
 * decoded to at most LIMIT bytes: as pn_artefact_open(). */
int pn_artefact_from_uki(const uint8_t *data, size_t len, uint64_t limit, struct pn_problems *problems,
                         struct pn_artefact **ret);
void pn_artefact_free(struct pn_artefact *a);

/* An artefact built from outside, from an archive read elsewhere: the
 * top directory only, of KIND (set again later with
 * pn_artefact_set_kind()); problems go to PROBLEMS.  0 or -ENOMEM. */
int pn_artefact_new(int kind, struct pn_problems *problems, struct pn_artefact **ret);
void pn_artefact_set_kind(struct pn_artefact *a, int kind);
/* Adds NAME (one component, neither "." nor "..") of TYPE (PN_NODE_*)
 * to directory node PARENT: 0 with its node in *RET; -EINVAL (a bad
 * name), -ENOTDIR (PARENT is no directory), -EEXIST, -E2BIG (past
 * PN_ARTEFACT_MAX_NODES), -ENOMEM, with pn_error set. */
int pn_artefact_add(struct pn_artefact *a, size_t parent, const char *name, int type, size_t *ret);
/* Sets link node NODE's text (not empty, shorter than PATH_MAX, copied):
 * 0, -EINVAL, -ENOMEM. */
int pn_artefact_set_target(struct pn_artefact *a, size_t node, const char *target);
/* A new file content of LEN bytes at DATA (malloc()ed, taken, freed on
 * failure; NULL: bytes not kept, an empty file to the checks): 0 with its
 * inode number in *RET; -E2BIG past PN_ARTEFACT_MAX_DECODED kept in all,
 * -ENOMEM. */
int pn_artefact_add_content(struct pn_artefact *a, uint8_t *data, size_t len, size_t *ret);
/* Makes regular node NODE a name of INODE (hard links share one). */
void pn_artefact_set_inode(struct pn_artefact *a, size_t node, size_t inode);
int pn_artefact_kind(const struct pn_artefact *a);
/* A UKI's kernel release, *FROM the section it was read from (".uname"
 * or ".linux"; FROM may be NULL), or NULL when not known. */
const char *pn_artefact_release(const struct pn_artefact *a, const char **from);
/* How many entries of directory NODE are directories, links to them
 * included. */
size_t pn_artefact_subdirs(const struct pn_artefact *a, size_t node);
/* Node numbers: 0 is the top. */
size_t pn_artefact_count(const struct pn_artefact *a);
int pn_artefact_type(const struct pn_artefact *a, size_t node);
/* The absolute path of NODE into BUF: false when longer than SIZE. */
bool pn_artefact_path(const struct pn_artefact *a, size_t node, char *buf, size_t size);
/* The node ABS names, every link (LAST: the last component's too) and
 * ".." resolved inside: 0 with *RET, -ENOENT, -ENOTDIR, -ELOOP,
 * -ENAMETOOLONG. */
int pn_artefact_resolve(const struct pn_artefact *a, const char *abs, bool last, size_t *ret);
/* The file of regular node NODE: its inode number (shared by hard links)
 * and its bytes, read once (*DATA stays valid while A lives): 0, or a
 * negative errno with pn_error set. */
size_t pn_artefact_inode(const struct pn_artefact *a, size_t node);
int pn_artefact_bytes(struct pn_artefact *a, size_t node, const uint8_t **data, size_t *len);
/* A descriptor of regular node NODE's file on disk (a directory
 * artefact's, opened below its top without following links), or
 * -ENODATA when its bytes are in memory (pn_artefact_bytes()). */
int pn_artefact_open_file(struct pn_artefact *a, size_t node);
/* Whether regular node NODE's bytes begin as an ELF file's (read once). */
bool pn_artefact_is_elf(struct pn_artefact *a, size_t node);
/* A as a root for the resolver. */
void pn_artefact_root(struct pn_artefact *a, struct pn_resolve_root *r);
