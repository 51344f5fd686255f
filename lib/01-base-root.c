/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a path from a hostile source (a core's NT_FILE, an image),
 * either inside a root directory or on the host, so that nothing but a
 * regular file is ever opened: some devices act on open(2), and a FIFO
 * blocks it.
 *
 * The path is first resolved to an O_PATH descriptor, which opens
 * nothing; only when fstat() says it is a regular file is that very inode
 * opened for reading, through /proc/self/fd (a reopen, no second lookup
 * that could be raced).
 *
 * Inside a root, openat2(RESOLVE_IN_ROOT) makes ".." and absolute
 * symlinks resolve as if ROOT were "/".  On the host, no symlink is
 * followed at all (RESOLVE_NO_SYMLINKS): the kernel wrote NT_FILE's paths
 * fully resolved, so a symlink found there now was put there since.
 * Where the kernel lacks openat2 (before 5.6, or a seccomp filter refuses
 * it) the path is walked one component at a time with O_NOFOLLOW: inside
 * a root, symbolic links are read and resolved there as RESOLVE_IN_ROOT
 * would; on the host, ".." and every link are refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "01-base.h"
#include "01-base-dir.h"
#include "output.h"
#include "01-base-root.h"

static int walk_nofollow(int dirfd, const char *path) {
        char *copy = strdup(path), *save = NULL;
        if (!copy)
                return -ENOMEM;
        int dir = dirfd >= 0 ? dup(dirfd) : open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
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
                int fd = openat(dir, tok, O_PATH | O_CLOEXEC | O_NOFOLLOW | (next ? O_DIRECTORY : 0));
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

/* Set by tests to take the path kernels without openat2 take. */
bool pn_root_without_openat2;

/* Without openat2: PATH resolved inside ROOTFD the way RESOLVE_IN_ROOT
 * resolves it, one component at a time, each opened O_PATH|O_NOFOLLOW
 * from its parent's descriptor (so no name is looked up twice and no
 * link is followed by the kernel).  A symbolic link's text is walked in
 * its place, an absolute one from ROOTFD; ".." never climbs above
 * ROOTFD and is taken by walking the components left from ROOTFD again.
 * Used for os-release, whose /etc/os-release is usually a link to
 * ../usr/lib/os-release or /usr/lib/os-release.  An O_PATH descriptor or
 * a negative errno (-ELOOP past PN_MAX_SYMLINKS links). */
static int walk_in_root_links(int rootfd, const char *path, pn_root_link_fn link, void *u, char *resolved, size_t size) {
        char todo[PATH_MAX], done[PATH_MAX] = "";
        if (strlen(path) >= sizeof todo)
                return -ENAMETOOLONG;
        strcpy(todo, path);
        int cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC), links = 0, r = 0;
        if (cur < 0)
                return -errno;
        for (;;) {
                char *p = todo;
                while (*p == '/')
                        p++;
                size_t clen = strcspn(p, "/");
                char comp[NAME_MAX + 1];
                if (!*p)
                        break;
                if (clen > NAME_MAX) {
                        r = -ENAMETOOLONG;
                        break;
                }
                memcpy(comp, p, clen);
                comp[clen] = 0;
                memmove(todo, p + clen, strlen(p + clen) + 1);
                if (!strcmp(comp, "."))
                        continue;
                if (!strcmp(comp, "..")) {
                        char *slash = strrchr(done, '/');
                        *(slash ? slash : done) = 0;
                        close(cur);
                        if ((cur = walk_nofollow(rootfd, done)) < 0)
                                return cur;
                        continue;
                }
                int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0) {
                        r = -errno;
                        if (fd >= 0)
                                close(fd);
                        break;
                }
                if (!S_ISLNK(st.st_mode)) {
                        size_t dl = strlen(done);
                        if (dl + 1 + clen + 1 > sizeof done) {
                                close(fd);
                                r = -ENAMETOOLONG;
                                break;
                        }
                        snprintf(done + dl, sizeof done - dl, "%s%s", dl ? "/" : "", comp);
                        close(cur);
                        cur = fd;
                        continue;
                }
                char target[PATH_MAX];
                ssize_t tl = readlinkat(fd, "", target, sizeof target - 1);
                r = tl < 0 ? -errno : ++links > PN_MAX_SYMLINKS ? -ELOOP : 0;
                close(fd);
                if (r < 0)
                        break;
                target[tl] = 0;
                if (link) {
                        char at[PATH_MAX];
                        if (snprintf(at, sizeof at, "%s%s%s", done, *done ? "/" : "", comp) >= (int)sizeof at) {
                                r = -ENAMETOOLONG;
                                break;
                        }
                        if ((r = link(u, at, target, todo[strspn(todo, "/")] == '\0')) < 0)
                                break;
                }
                size_t rl = strlen(todo);
                if ((size_t)tl + 1 + rl + 1 > sizeof todo) {
                        r = -ENAMETOOLONG;
                        break;
                }
                /* todo = target "/" todo */
                memmove(todo + tl + 1, todo, rl + 1);
                memcpy(todo, target, (size_t)tl);
                todo[tl] = '/';
                if (target[0] == '/') {
                        done[0] = 0;
                        close(cur);
                        if ((cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                                return -errno;
                }
        }
        if (r == 0 && resolved && snprintf(resolved, size, "%s", done) >= (int)size)
                r = -ENAMETOOLONG;
        if (r < 0) {
                close(cur);
                return r;
        }
        return cur;
}

static int walk_in_root(int rootfd, const char *path) {
        return walk_in_root_links(rootfd, path, NULL, NULL, NULL, 0);
}

/* openat2(), again while it fails with EAGAIN: the kernel gives that up
 * when a rename or mount anywhere on the machine raced a ".." it walked
 * inside RESOLVE_IN_ROOT or RESOLVE_BENEATH, and asks the caller to
 * retry.  After PN_OPENAT2_TRIES such races in a row, EAGAIN stays. */
#define PN_OPENAT2_TRIES 64
static int openat2_retry(int dirfd, const char *path, struct open_how *how) {
        int fd = -1;
        for (int i = 0; i < PN_OPENAT2_TRIES; i++) {
                fd = (int)syscall(SYS_openat2, dirfd, path, how, sizeof *how);
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        return fd;
}

/* An O_PATH descriptor for PATH, resolved as described above. */
static int resolve(int rootfd, const char *path) {
        struct open_how how = {
                .flags = O_PATH | O_CLOEXEC,
                .resolve = rootfd >= 0 ? RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS
                                       : RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        int fd = pn_root_without_openat2 ? (errno = ENOSYS, -1)
                                         : openat2_retry(rootfd >= 0 ? rootfd : AT_FDCWD, path, &how);
        if (fd >= 0)
                return fd;
        /* Still racing renames after every retry: the walk in user space
         * resolves the same way, one component at a time. */
        if (errno != ENOSYS && errno != EPERM && errno != EAGAIN)
                return -errno;
        return rootfd >= 0 ? walk_in_root(rootfd, path) : walk_nofollow(rootfd, path);
}

/* FD, opened again by name (no /proc) without blocking, when it is still
 * the inode ST names, with O_NONBLOCK cleared; else closed and -1
 * (errno ESTALE). */
static int same_inode(int fd, const struct stat *st) {
        struct stat now;
        if (fd >= 0 && (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
                close(fd);
                errno = ESTALE;
                return -1;
        }
        if (fd >= 0) {
                int fl = fcntl(fd, F_GETFL);
                if (fl >= 0)
                        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        }
        return fd;
}

/* Opens for reading the inode the O_PATH descriptor PFD holds, when it
 * is a regular file (-EINVAL if not), through /proc/self/fd: that very
 * inode, no second lookup.  Without /proc, AGAIN opens it by name once
 * more (ROOTFD, PATH: inside a root; else DIRFD, PATH below it).  PFD is
 * closed.  An fd or a negative errno. */
static int reopen_regular(int pfd, int rootfd, int dirfd, const char *path, struct stat *ret) {
        struct stat st = {0};
        if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(pfd);
                /* Below a directory, a link is refused as O_NOFOLLOW
                 * refuses it. */
                return dirfd >= 0 && S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
        }
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
        int fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 && dirfd >= 0) {
                fd = same_inode(openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW), &st);
        } else if (fd < 0) {
                struct open_how how = {
                        .flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW,
                        .resolve = rootfd >= 0 ? RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS
                                               : RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
                };
                fd = same_inode(openat2_retry(rootfd >= 0 ? rootfd : AT_FDCWD, path, &how), &st);
        }
        int err = errno;
        close(pfd);
        if (fd >= 0 && ret)
                *ret = st;
        return fd >= 0 ? fd : -err;
}

/* pn_openat_regular(), and the file's identity and size into *ST. */
static int openat_regular(int dirfd, const char *name, struct stat *st) {
        int pfd = openat(dirfd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        return pfd < 0 ? -errno : reopen_regular(pfd, -1, dirfd, name, st);
}

int pn_openat_regular(int dirfd, const char *name) {
        return openat_regular(dirfd, name, NULL);
}

int pn_open_in_root(int rootfd, const char *path) {
        int pfd = resolve(rootfd, path);
        return pfd < 0 ? pfd : reopen_regular(pfd, rootfd, -1, path, NULL);
}

/* Opens the directory PATH inside ROOTFD: symlinks and ".." resolve as if
 * ROOTFD were "/" (openat2 RESOLVE_IN_ROOT); without openat2, no
 * component may be a symlink. */
int pn_open_dir_in_root(int rootfd, const char *path) {
        struct open_how how = {
                .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        int fd = pn_root_without_openat2 ? (errno = ENOSYS, -1) : openat2_retry(rootfd, path, &how);
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EAGAIN))
                return fd < 0 ? -errno : fd;
        int pfd = walk_in_root(rootfd, path);
        if (pfd < 0)
                return pfd;
        /* An O_PATH descriptor serves as the directory of openat(). */
        fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int err = -errno;
        close(pfd);
        return fd >= 0 ? fd : err;
}

/* The path the kernel gives for FD (/proc/self/fd), into BUF. */
static int fd_path(int fd, char *buf, size_t size) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(self, buf, size - 1);
        if (n < 0)
                return -errno;
        if ((size_t)n >= size - 1 || buf[0] != '/')
                return -ENAMETOOLONG;
        buf[n] = 0;
        return 0;
}

/* Why PATH found no regular file inside ROOTFD, for the message: its last
 * name is a symbolic link (with the link's text) or it is not. */
static int explain(int rootfd, const char *path, int err) {
        char dir[PATH_MAX], target[PATH_MAX];
        const char *slash = strrchr(path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        int dfd = pn_open_dir_in_root(rootfd, *dir ? dir : "/");
        ssize_t n = dfd < 0 ? -1 : readlinkat(dfd, slash ? slash + 1 : path, target, sizeof target - 1);
        if (dfd >= 0)
                close(dfd);
        if (n < 0)
                return err == -EINVAL ? pn_error(err, "not a regular file") : pn_error(err, "%s", strerror(-err));
        target[n] = 0;
        return pn_error(err, "is a symbolic link to '%s', which leads to no regular file inside the root (%s): not followed out of it",
                        target, err == -EINVAL ? "not a regular file" : strerror(-err));
}

int pn_resolve_in_root(int rootfd, const char *path, char **ret, struct stat *st) {
        int pfd = resolve(rootfd, path);
        if (pfd < 0)
                return explain(rootfd, path, pfd);
        char top[PATH_MAX], file[PATH_MAX];
        int r = fstat(pfd, st) < 0 ? -errno : S_ISREG(st->st_mode) ? 0 : -EINVAL;
        if (r < 0) {
                close(pfd);
                return explain(rootfd, path, r);
        }
        /* Where it lies: the kernel names the inode it resolved to. */
        if ((r = fd_path(rootfd, top, sizeof top)) == 0)
                r = fd_path(pfd, file, sizeof file);
        close(pfd);
        if (r < 0)
                return pn_error(r, "cannot tell where it lies inside the root (no /proc?): %s", strerror(-r));
        size_t tl = strcmp(top, "/") ? strlen(top) : 0;
        if (strncmp(file, top, tl) || file[tl] != '/')
                return pn_error(-EXDEV, "resolves outside the root");
        if (!(*ret = strdup(file + tl + 1)))
                return pn_oom();
        return 0;
}

int pn_open_in_root_links(int rootfd, const char *path, pn_root_link_fn link, void *u, char *resolved, size_t size,
                          struct stat *st) {
        int pfd = walk_in_root_links(rootfd, path, link, u, resolved, size);
        return pfd < 0 ? pfd : reopen_regular(pfd, rootfd, -1, resolved, st);
}

/* ---- relative paths below a directory (trees, images, stores) ---- */

/* Normalises a path from an archive: no leading "/" or "./", no empty or
 * "." components; refuses ".." (it could only point outside the root)
 * and over-long paths.  Returns the length ("" is the root itself). */
int pn_path_normalize(const char *in, char *out, size_t size) {
        size_t o = 0;
        const char *p = in;
        while (*p) {
                while (*p == '/')
                        p++;
                const char *c = p;
                while (*p && *p != '/')
                        p++;
                size_t len = (size_t)(p - c);
                if (len == 0 || (len == 1 && c[0] == '.'))
                        continue;
                if (len == 2 && c[0] == '.' && c[1] == '.')
                        return pn_error(-EXDEV, "path has a \"..\" component");
                if (o + (o > 0) + len + 1 > size || o + (o > 0) + len > PKGNOTE_MAX_SCAN_PATH)
                        return pn_error(-E2BIG, "path longer than %u bytes", PKGNOTE_MAX_SCAN_PATH);
                if (o > 0)
                        out[o++] = '/';
                memcpy(out + o, c, len);
                o += len;
        }
        out[o] = 0;
        return (int)o;
}

int pn_open_below(int dirfd, const char *rel, bool dir) {
        char buf[PKGNOTE_MAX_SCAN_PATH + 1];
        if (pn_path_normalize(rel, buf, sizeof buf) < 0)
                return -EXDEV;
        int cur = dup(dirfd);
        char *save = NULL;
        for (char *t = strtok_r(buf, "/", &save); t && cur >= 0;) {
                char *next = strtok_r(NULL, "/", &save);
                /* The file itself is looked at before it is opened: a
                 * device may act on open(2), a FIFO's writer would be
                 * let go. */
                bool file = !next && !dir;
                int fd = file ? pn_openat_regular(cur, t)
                              : openat(cur, t, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_DIRECTORY);
                int err = fd < 0 && file ? -fd : errno;
                close(cur);
                cur = fd < 0 ? -err : fd;
                t = next;
        }
        if (cur < 0)
                return cur == -EBADF ? -errno : cur;
        struct stat st;
        if (fstat(cur, &st) < 0 || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
                close(cur);
                return dir ? -ENOTDIR : -EINVAL;
        }
        return cur;
}

/* Reads the regular file open at FD (closed here), REL naming it in
 * messages: at most MAX bytes into *DATA (malloc()ed, NUL-terminated)
 * and *LEN; a negative errno with pn_error set.  KNOWN (may be NULL) is
 * FD's fstat() when the caller has it already. */
static int read_opened(int fd, const struct stat *known, const char *rel, size_t max, void **data, size_t *len) {
        struct stat st;
        char *buf = NULL;
        int r = 0;
        if (known ? (st = *known, false) : fstat(fd, &st) < 0)
                r = pn_error(-errno, "%s: cannot stat: %s", rel, strerror(errno));
        else if ((uint64_t)st.st_size > max)
                r = pn_error(-E2BIG, "%s: larger than %zu bytes", rel, max);
        else if (!(buf = malloc((size_t)st.st_size + 1)))
                r = pn_oom();
        size_t got = 0;
        if (r == 0) {
                ssize_t k = pn_pread_full(fd, buf, (size_t)st.st_size, 0);
                if (k < 0 || (size_t)k < (size_t)st.st_size)
                        r = pn_error(k < 0 ? (int)k : -EIO, "%s: cannot read: %s", rel,
                                     k < 0 ? strerror((int)-k) : "file shrank");
                else
                        got = (size_t)k;
        }
        close(fd);
        if (r < 0) {
                free(buf);
                return r;
        }
        buf[got] = 0;
        *data = buf;
        *len = got;
        return 0;
}

int pn_read_below(int dirfd, const char *rel, size_t max, void **data, size_t *len) {
        int fd = pn_open_below(dirfd, rel, false);
        if (fd < 0)
                return pn_error(fd, "%s: cannot open: %s", rel, strerror(-fd));
        return read_opened(fd, NULL, rel, max, data, len);
}

int pn_read_at(int dirfd, const char *name, size_t max, void **data, size_t *len) {
        struct stat st;
        int fd = openat_regular(dirfd, name, &st);
        if (fd < 0)
                return pn_error(fd, "%s: cannot open: %s", name, fd == -EINVAL ? "not a regular file" : strerror(-fd));
        return read_opened(fd, &st, name, max, data, len);
}

int pn_read_in_root(int rootfd, const char *path, size_t max, void **data, size_t *len) {
        int fd = pn_open_in_root(rootfd, path);
        if (fd < 0)
                return pn_error(fd, "%s: cannot open: %s", path, fd == -EINVAL ? "not a regular file" : strerror(-fd));
        return read_opened(fd, NULL, path, max, data, len);
}

int pn_dir_each_file(int fd, int (*each)(void *u, int dirfd, const char *name), void *u) {
        struct pn_dir it;
        int r = pn_dir_open(&it, fd, NULL, 0, 0);
        close(fd);
        if (r < 0)
                return r;
        struct pn_dirent e;
        /* A read error ends the listing, as its end does. */
        while (r == 0 && pn_dir_next(&it, &e) > 0)
                if (e.type == DT_REG || e.type == DT_UNKNOWN)
                        r = each(u, pn_dir_fd(&it), e.name);
        pn_dir_close(&it);
        return r;
}
