/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a path from a hostile source (a core's NT_FILE, an image)
 * inside a root directory.  openat2(RESOLVE_IN_ROOT) makes ".." and
 * absolute symlinks resolve as if ROOT were "/"; where the kernel lacks
 * it (before 5.6) the path is walked one component at a time without
 * following any symlink and ".." is refused.
 */
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"

static int walk_nofollow(int rootfd, const char *path) {
        char *copy = strdup(path), *save = NULL;
        if (!copy)
                return -ENOMEM;
        int dir = dup(rootfd);
        if (dir < 0) {
                free(copy);
                return -errno;
        }
        char *tok = strtok_r(copy, "/", &save);
        while (tok) {
                char *next = strtok_r(NULL, "/", &save);
                if (!strcmp(tok, "..")) {
                        close(dir);
                        free(copy);
                        return -EXDEV;
                }
                int fd = openat(dir, tok, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
                                                  (next ? O_DIRECTORY : 0));
                int err = -errno;
                close(dir);
                if (fd < 0) {
                        free(copy);
                        return err;
                }
                dir = fd;
                tok = next;
        }
        free(copy);
        return dir;
}

int pn_open_in_root(int rootfd, const char *path) {
        int fd;
        if (rootfd < 0)
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        else {
                struct open_how how = {
                        .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
                };
                fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
                if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
                        fd = walk_nofollow(rootfd, path);
                        if (fd < 0) {
                                errno = -fd;
                                fd = -1;
                        }
                }
        }
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        /* Reads must block normally from here on. */
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
                (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        return fd;
}
