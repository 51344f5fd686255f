/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening paths from hostile sources (lib/01-base-root.c): a core's NT_FILE
 * inside a root or on the host, and the relative paths of trees, images
 * and stores below a directory.  Only regular files (or directories
 * where asked) are ever opened, and no symbolic link leads out.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct stat;

/* Symbolic links followed in one path, as the kernel's own limit. */
#define PN_MAX_SYMLINKS 40

/* For tests: resolve as kernels without openat2 (before 5.6) make us. */
extern bool pn_root_without_openat2;

/* Opens PATH read-only for reading a module's file: under ROOTFD when it
 * is >= 0, resolved inside that directory (no escape through "..",
 * absolute symlinks or magic links), else as given.  Only regular files;
 * returns an fd or a negative errno. */
int pn_open_in_root(int rootfd, const char *path);
/* Opens the directory PATH inside ROOTFD: symlinks and ".." resolve as if
 * ROOTFD were "/" (openat2 RESOLVE_IN_ROOT); without openat2, no
 * component may be a symlink.  An fd or a negative errno. */
int pn_open_dir_in_root(int rootfd, const char *path);
/* Calls EACH with the name of every entry of the directory open at FD
 * (taken over, closed) that may be a regular file (its type is one, or
 * unknown), and with the directory's descriptor to open it by
 * (pn_openat_regular(), pn_read_at()), until it returns non-zero: that,
 * 0, or a negative errno. */
int pn_dir_each_file(int fd, int (*each)(void *u, int dirfd, const char *name), void *u);
/* The regular file PATH inside ROOTFD (as pn_open_in_root()), at most MAX
 * bytes, into *DATA (malloc()ed, NUL-terminated) and *LEN; a negative
 * errno with pn_error set (-ENOENT when there is none). */
int pn_read_in_root(int rootfd, const char *path, size_t max, void **data, size_t *len);

/* The regular file NAME (one name) of the directory DIRFD, opened as
 * pn_openat_regular() opens it, at most MAX bytes, into *DATA (malloc()ed,
 * NUL-terminated) and *LEN; a negative errno with pn_error set (-EINVAL:
 * not a regular file, -ELOOP: a symbolic link). */
int pn_read_at(int dirfd, const char *name, size_t max, void **data, size_t *len);

/* Normalises a path from an archive: no leading "/" or "./", no empty or
 * "." components; refuses ".." (it could only point outside the root)
 * and over-long paths.  Returns the length ("" is the root itself). */
int pn_path_normalize(const char *in, char *out, size_t size);
/* Opens the regular file NAME (one name) of the directory DIRFD for
 * reading, looked at (O_PATH, no link followed) before it is opened, so
 * that no FIFO or device is ever opened: an fd, -EINVAL when it is not a
 * regular file, -ELOOP when it is a symbolic link, or another negative
 * errno. */
int pn_openat_regular(int dirfd, const char *name);
/* Opens the regular file (DIR false) or directory REL below DIRFD, each
 * component without following symbolic links; a negative errno. */
int pn_open_below(int dirfd, const char *rel, bool dir);
/* The file REL below DIRFD, at most MAX bytes, into *DATA (malloc()ed,
 * NUL-terminated) and *LEN; a negative errno with pn_error set. */
int pn_read_below(int dirfd, const char *rel, size_t max, void **data, size_t *len);
/* The regular file PATH names inside ROOTFD, every symbolic link (an
 * absolute one too) and ".." resolved as if ROOTFD were "/": its path
 * there (relative, no symbolic link in it) into *RET (malloc()ed) and
 * its identity into *ST, so that it can be opened (pn_open_dir_in_root()
 * on its directory) and replaced inside the root.  0, or a negative errno
 * with pn_error set (-EINVAL: not a regular file); a symbolic link that
 * leads nowhere inside the root is named with its target. */
int pn_resolve_in_root(int rootfd, const char *path, char **ret, struct stat *st);

/* Called for each symbolic link met resolving a path: AT, its own path
 * in the root (no leading '/', no link in it), TARGET, its text, and LAST,
 * whether it is the path's last component (else it stands for a
 * directory).  A negative errno stops the walk. */
typedef int (*pn_root_link_fn)(void *u, const char *at, const char *target, bool last);
/* Opens the regular file PATH inside ROOTFD for reading, resolved one
 * component at a time as RESOLVE_IN_ROOT would (no escape through "..",
 * absolute links from ROOTFD, at most PN_MAX_SYMLINKS links: -ELOOP),
 * telling LINK (may be NULL) of every link it follows, also on a walk that
 * fails: the path the loader opens and the links it takes there.  The
 * file's path in the root (no leading '/') into RESOLVED (SIZE bytes), its
 * identity into *ST (may be NULL).  An fd, or -ENOENT, -ENOTDIR, -EINVAL
 * (not a regular file), -ELOOP, -ENAMETOOLONG, another negative errno. */
int pn_open_in_root_links(int rootfd, const char *path, pn_root_link_fn link, void *u, char *resolved, size_t size,
                          struct stat *st);
