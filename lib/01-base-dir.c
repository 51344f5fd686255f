/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one directory walker (lib/01-base-dir.h).  Its callers keep their own
 * order and what they skip; what they share is how a directory is opened
 * (relative to a descriptor, O_NOFOLLOW, and for a walk checked to be the
 * entry that was looked at), how its entries are read ("." and ".."
 * dropped, a missing type found without following links, reading errors
 * told apart from the end), and the bound on entries.
 *
 * The scan's parallel walk (lib/09-scan-walk.c) lists its directories here
 * too, but keeps its own traversal: it holds a budget of open directory
 * descriptors, closes and reopens them by identity, and hands files to
 * worker threads in chunks, which no recursive walker here could do
 * without costing the scan its speed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-dir.h"
#include "01-base.h"

int pn_dir_open(struct pn_dir *it, int dfd, const char *name, unsigned flags, size_t max) {
        *it = (struct pn_dir){.flags = flags, .max = max};
        /* A descriptor of the listing's own, with an offset of its own
         * (a duplicate of DFD would share DFD's and move it). */
        int fd = openat(dfd, name ? name : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        it->d = fdopendir(fd);
        if (!it->d) {
                int r = -errno;
                close(fd);
                errno = -r;
                return r;
        }
        return 0;
}

int pn_dir_next(struct pn_dir *it, struct pn_dirent *e) {
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(it->d);
                if (!de)
                        return errno ? -errno : 0;
                const char *nm = de->d_name;
                if (nm[0] == '.' && (nm[1] == 0 || (nm[1] == '.' && nm[2] == 0)))
                        continue;
                if (it->max && it->n >= it->max) {
                        errno = E2BIG;
                        return -E2BIG;
                }
                it->n++;
                unsigned char type = de->d_type;
                struct stat st;
                if (type == DT_UNKNOWN && (it->flags & PN_DIR_TYPES) &&
                    fstatat(dirfd(it->d), nm, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        type = S_ISDIR(st.st_mode)   ? DT_DIR
                               : S_ISREG(st.st_mode) ? DT_REG
                               : S_ISLNK(st.st_mode) ? DT_LNK
                               : S_ISCHR(st.st_mode) ? DT_CHR
                               : S_ISBLK(st.st_mode) ? DT_BLK
                               : S_ISSOCK(st.st_mode) ? DT_SOCK
                                                      : DT_FIFO;
                *e = (struct pn_dirent){nm, type};
                return 1;
        }
}

int pn_dir_fd(const struct pn_dir *it) {
        return dirfd(it->d);
}

void pn_dir_close(struct pn_dir *it) {
        if (it->d)
                closedir(it->d);
        it->d = NULL;
}

int pn_dir_open_sub(int dfd, const char *name, const struct stat *seen, struct stat *st) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        struct stat now;
        if ((seen || st) && fstat(fd, &now) < 0) {
                int r = -errno;
                close(fd);
                errno = -r;
                return r;
        }
        if (seen && (now.st_dev != seen->st_dev || now.st_ino != seen->st_ino)) {
                close(fd);
                errno = ESTALE;
                return -ESTALE;
        }
        if (st)
                *st = now;
        return fd;
}

static int cmp_name(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int pn_dir_names(int dfd, char ***ret, size_t *n) {
        struct pn_dir it;
        char **v = NULL;
        size_t cap = 0;
        *n = 0;
        int r = pn_dir_open(&it, dfd, NULL, 0, 0);
        if (r < 0) {
                *ret = NULL;
                return r;
        }
        struct pn_dirent e;
        while ((r = pn_dir_next(&it, &e)) > 0) {
                char *c = strdup(e.name);
                if (!c || PN_GROW(v, cap, *n + 1) < 0) {
                        free(c);
                        r = -ENOMEM;
                        break;
                }
                v[(*n)++] = c;
        }
        pn_dir_close(&it);
        if (*n)
                qsort(v, *n, sizeof *v, cmp_name);
        *ret = v;
        /* A read that failed midway is said, with what was read before it. */
        return r < 0 ? r : 0;
}
