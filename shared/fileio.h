/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Full reads and writes (shared/fileio.c): errno values only, no message. */
#ifndef PN_SHARED_FILEIO_H
#define PN_SHARED_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all LEN bytes, retrying after EINTR and short writes: 0 or -errno. */
int pn_write_full(int fd, const void *buf, size_t len);
/* The same; when the disk or quota is full (ENOSPC, EDQUOT), calls ROOM
 * (may be NULL), and goes on while it says (> 0) that it freed some. */
int pn_write_full_room(int fd, const void *buf, size_t len, int (*room)(void *), void *userdata);
/* Reads up to LEN bytes, retrying after EINTR and short reads: the count
 * (below LEN only at the end of the file) or -errno. */
ssize_t pn_read_full(int fd, void *buf, size_t len);
/* The same from file offset OFF on (pread()). */
ssize_t pn_pread_full(int fd, void *buf, size_t len, uint64_t off);
/* Reads FD to its end, at most MAX bytes (-E2BIG past them), into *RET
 * (malloc()ed, NUL-terminated; *RET_LEN the bytes read): 0 or -errno. */
int pn_read_all(int fd, size_t max, char **ret, size_t *ret_len);

#endif
