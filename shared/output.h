/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one way pkgnote writes a file (shared/output.c), used by the library
 * and by every command that writes one: stamp, generate -o, scan -o and
 * the crash collector's store.  Failures are told by pn_error()
 * (message.h): in the library that is pkgnote_last_error(), in a
 * command linked with the shared library its own pn_last_error().
 *
 *   regular file        replaced atomically: a temporary in the same
 *                       directory (unlinked, O_TMPFILE, where the file
 *                       system allows), written, fsync()ed, privileged
 *                       mode bits and capabilities applied, renamed over
 *                       the name after checking it still names the file
 *                       that was there, directory fsync()ed
 *   missing name        created the same way, atomically (never over a
 *                       name that appeared meanwhile)
 *   symbolic link       with PN_OUT_FOLLOW the file it points to is what
 *                       the rule above applies to, and the link stays; a
 *                       link to nothing is refused; without it, refused
 *   device, FIFO,       opened and written directly, never unlinked or
 *   socket              renamed over
 *   "-", /dev/stdout,   the process's own descriptor, written directly
 *   /dev/stderr, /dev/fd/N (with PN_OUT_STDIO)
 */
#ifndef PN_SHARED_OUTPUT_H
#define PN_SHARED_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fileio.h"
#include "message.h"

enum {
        PN_OUT_FOLLOW = 1u << 0,     /* PATH was named by the user: follow symbolic links */
        PN_OUT_STDIO = 1u << 1,      /* "-", /dev/stdout, /dev/stderr, /dev/fd/N are those descriptors */
        PN_OUT_BINARY = 1u << 2,     /* refuse to write to a terminal */
        PN_OUT_REGULAR = 1u << 3,    /* PATH must be an existing regular file (in-place rewrites) */
        PN_OUT_EXCL = 1u << 4,       /* PATH must not exist yet */
        PN_OUT_NO_DIRSYNC = 1u << 5, /* the caller fsync()s the directory itself, once for many files */
        PN_OUT_NO_CLEAN = 1u << 6,   /* the caller removes stale temporaries itself (pn_output_clean_stale) */
};

typedef struct pn_output {
        int fd;          /* write the bytes here */
        int dirfd;       /* the directory holding the name (-1 when written directly) */
        char *name;      /* the name in dirfd */
        char *tmpname;   /* the temporary's name in dirfd, once it has one */
        bool direct;     /* a device, FIFO, socket or standard output: written in place */
        bool borrowed;   /* fd is the caller's (standard output): never closed */
        bool exists;     /* a regular file is being replaced; st describes it */
        bool tmpfile;    /* the temporary is unnamed (O_TMPFILE) until the commit */
        unsigned flags;
        struct stat st;  /* the file being replaced (exists), else the direct output */
        /* Applied at the commit, right before the rename, so that no
         * temporary ever carries them while it is being written: the
         * whole mode (setuid and setgid included) and the value of
         * security.capability.  Set by pn_output_open() to 0666 less the
         * umask, as for any new file. */
        mode_t mode;
        void *caps;
        size_t caps_len;
} pn_output;

/* Opens PATH (relative to DIRFD) for writing by the rule above.  Errors,
 * with pn_error() set: -EISDIR, -ELOOP (a symbolic link not followed),
 * -ENOENT (a dangling link), -EEXIST (PN_OUT_EXCL), -EINVAL (not a regular
 * file with PN_OUT_REGULAR), -ENOTTY (PN_OUT_BINARY and a terminal), errno
 * values of the file operations. */
int pn_output_open(pn_output *o, int dirfd, const char *path, unsigned flags);
/* Reads the temporary back and compares it with the LEN bytes at DATA:
 * 0, or -EIO when they differ. */
int pn_output_verify(const pn_output *o, const void *data, size_t len);
/* Makes the written bytes the file at the name (see above); for a direct
 * output, closes it.  Frees O either way: 0 or -errno with pn_error() set,
 * and then the name is left as it was. */
int pn_output_commit(pn_output *o);
/* Drops the temporary and frees O; the name is left as it was. */
void pn_output_abort(pn_output *o);

/* Makes NAME of DIRFD one more name of the file FROM of FROMDIR, which
 * must be the file WANT, in place of the file OLD that NAME must still
 * hold: a link under a temporary name, renamed over NAME. */
int pn_output_relink(int fromdir, const char *from, const struct stat *want, int dirfd, const char *name,
                     const struct stat *old);

/* Removes NAME of DIRFD when it is a temporary of pkgnote's naming
 * (".BASE.pkgnote-XXXXXX") that is provably a leftover: a regular file
 * with one link, owned by us or by the owner of BASE, and not locked by
 * the writer that made it (each writer holds a lock on its temporary
 * until the rename).  1 when removed, 0 otherwise. */
int pn_output_remove_stale(int dirfd, const char *name);
/* Removes every such leftover of BASE in DIRFD: the count removed. */
int pn_output_clean_stale(int dirfd, const char *base);

#endif
