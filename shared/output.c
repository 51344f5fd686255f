/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one output rule of output.h (temporary in the directory's fd,
 * fsync, rename, directory fsync; devices, FIFOs and sockets written
 * directly), for the library and the commands alike.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

/* ".BASE.pkgnote-XXXXXX": BASE is cut so that the name fits NAME_MAX. */
#define TMP_TAG ".pkgnote-"
#define TMP_RAND 6
#define TMP_EXTRA (1 + sizeof TMP_TAG - 1 + TMP_RAND)
#define NAME_MAX_ 255

/* The descriptor PATH names when it means one of ours, else -1. */
static int stdio_fd(const char *path) {
        if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
                return STDOUT_FILENO;
        if (!strcmp(path, "/dev/stderr"))
                return STDERR_FILENO;
        const char *n = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
        if (!n || *n < '0' || *n > '9' || strlen(n) > 6 || strspn(n, "0123456789") != strlen(n))
                return -1;
        return atoi(n);
}

/* Length of the BASE part kept in a temporary's name. */
static size_t tmp_base_len(const char *base) {
        size_t l = strlen(base);
        return l > NAME_MAX_ - TMP_EXTRA ? NAME_MAX_ - TMP_EXTRA : l;
}

static char *tmp_name(const char *base) {
        static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        uint8_t rnd[TMP_RAND];
        if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                uint64_t x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() << 20 ^ (uint64_t)rand();
                for (size_t i = 0; i < sizeof rnd; i++, x >>= 8)
                        rnd[i] = (uint8_t)x;
        }
        size_t bl = tmp_base_len(base);
        char *t = malloc(bl + TMP_EXTRA + 1);
        if (!t)
                return NULL;
        char *p = t;
        *p++ = '.';
        memcpy(p, base, bl);
        p += bl;
        memcpy(p, TMP_TAG, sizeof TMP_TAG - 1);
        p += sizeof TMP_TAG - 1;
        for (size_t i = 0; i < TMP_RAND; i++)
                *p++ = alnum[rnd[i] % (sizeof alnum - 1)];
        *p = 0;
        return t;
}

/* Whether NAME has the temporaries' shape; *base_len is BASE's length. */
static bool is_tmp_name(const char *name, size_t *base_len) {
        size_t l = strlen(name);
        if (name[0] != '.' || l < TMP_EXTRA + 1)
                return false;
        const char *tag = name + l - TMP_RAND - (sizeof TMP_TAG - 1);
        if (memcmp(tag, TMP_TAG, sizeof TMP_TAG - 1))
                return false;
        for (const char *p = tag + sizeof TMP_TAG - 1; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
                        return false;
        *base_len = (size_t)(tag - name) - 1;
        return true;
}

int pn_output_remove_stale(int dirfd, const char *name) {
        size_t bl;
        if (!is_tmp_name(name, &bl) || bl == 0)
                return 0;
        int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        struct stat st, now, bst;
        bool ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
        if (ours && st.st_uid != geteuid()) {
                /* Stamping in place gives the temporary the owner of the
                 * file it replaces. */
                char base[NAME_MAX_ + 1];
                snprintf(base, sizeof base, "%.*s", (int)bl, name + 1);
                ours = fstatat(dirfd, base, &bst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(bst.st_mode) &&
                       bst.st_uid == st.st_uid;
        }
        /* A writer holds its lock until the rename: an unlocked one is a
         * leftover of a writer that died. */
        ours = ours && flock(fd, LOCK_EX | LOCK_NB) == 0;
        ours = ours && fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
               now.st_ino == st.st_ino;
        int r = ours && unlinkat(dirfd, name, 0) == 0;
        close(fd);
        return r;
}

int pn_output_clean_stale(int dirfd, const char *base) {
        int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (!d) {
                if (dfd >= 0)
                        close(dfd);
                return 0;
        }
        size_t bl = tmp_base_len(base), l;
        int n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (is_tmp_name(de->d_name, &l) && l == bl && !memcmp(de->d_name + 1, base, bl))
                        n += pn_output_remove_stale(dirfd, de->d_name);
        closedir(d);
        return n;
}

static int free_output(pn_output *o, int r) {
        if (o->tmpname && o->dirfd >= 0)
                (void)unlinkat(o->dirfd, o->tmpname, 0);
        if (o->fd >= 0 && !o->borrowed)
                close(o->fd);
        if (o->dirfd >= 0)
                close(o->dirfd);
        free(o->tmpname);
        free(o->name);
        free(o->caps);
        *o = (pn_output){.fd = -1, .dirfd = -1};
        return r;
}

void pn_output_abort(pn_output *o) {
        (void)free_output(o, 0);
}

/* A device, FIFO or socket: opened as it is and written directly. */
static int open_direct(pn_output *o, int dirfd, const char *path, const struct stat *st) {
        int nofollow = o->flags & PN_OUT_FOLLOW ? 0 : O_NOFOLLOW;
        if (S_ISSOCK(st->st_mode)) {
                struct sockaddr_un sa = {.sun_family = AF_UNIX};
                char full[64];
                if (path[0] != '/' && dirfd != AT_FDCWD) {
                        snprintf(full, sizeof full, "/proc/self/fd/%d/", dirfd);
                        if (strlen(full) + strlen(path) >= sizeof sa.sun_path)
                                return pn_error(-ENAMETOOLONG, "is a socket with too long a name");
                        memcpy(sa.sun_path, full, strlen(full));
                        memcpy(sa.sun_path + strlen(full), path, strlen(path) + 1);
                } else if (strlen(path) >= sizeof sa.sun_path)
                        return pn_error(-ENAMETOOLONG, "is a socket with too long a name");
                else
                        memcpy(sa.sun_path, path, strlen(path) + 1);
                o->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (o->fd < 0 || connect(o->fd, (const struct sockaddr *)&sa, sizeof sa) < 0)
                        return pn_error(-errno, "cannot connect to the socket: %s", strerror(errno));
        } else {
                /* Blocks on a FIFO until a reader comes, as a shell's
                 * redirection does. */
                o->fd = openat(dirfd, path, O_WRONLY | O_NOCTTY | O_CLOEXEC | nofollow);
                struct stat now;
                if (o->fd < 0)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
                if (fstat(o->fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
                        return pn_error(-ESTALE, "changed while being opened");
        }
        o->direct = true;
        o->st = *st;
        return 0;
}

/* Opens the directory of the regular file PFD and names it there: PATH's
 * own directory, or, when PATH is a symbolic link (followed), the
 * directory where the link leads. */
static int locate(pn_output *o, int dirfd, const char *path, int pfd) {
        char *real = NULL;
        struct stat lst;
        if (fstatat(dirfd, path, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode)) {
                char proc[64], buf[4097];
                snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
                ssize_t n = readlink(proc, buf, sizeof buf - 1);
                if (n > 0 && buf[0] == '/') {
                        buf[n] = 0;
                        real = strdup(buf);
                } else if (dirfd == AT_FDCWD)
                        real = realpath(path, NULL);
                if (!real)
                        return pn_error(-errno ? -errno : -ENOENT, "cannot resolve the symbolic link: %s",
                                        strerror(errno ? errno : ENOENT));
                path = real;
                dirfd = AT_FDCWD;
        }
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
        o->name = strdup(slash ? slash + 1 : path);
        int r = 0;
        if (!dir || !o->name)
                r = pn_oom();
        else if ((o->dirfd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = pn_error(-errno, "cannot open its directory: %s", strerror(errno));
        free(dir);
        free(real);
        return r;
}

static int create_temp(pn_output *o) {
        /* Unnamed until the commit: a writer killed meanwhile leaves
         * nothing.  Linking it needs /proc or CAP_DAC_READ_SEARCH. */
        if (geteuid() == 0 || access("/proc/self/fd", X_OK) == 0) {
                o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
                if (o->fd >= 0)
                        o->tmpfile = true;
                else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
                        return pn_error(-errno, "cannot create a temporary file beside it: %s", strerror(errno));
        }
        for (int i = 0; o->fd < 0 && i < 100; i++) {
                free(o->tmpname);
                if (!(o->tmpname = tmp_name(o->name)))
                        return pn_oom();
                o->fd = openat(o->dirfd, o->tmpname, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (o->fd < 0 && errno != EEXIST) {
                        int e = errno;
                        free(o->tmpname);
                        o->tmpname = NULL;
                        return pn_error(-e, "cannot create a temporary file beside it: %s", strerror(e));
                }
        }
        if (o->fd < 0)
                return pn_error(-EEXIST, "cannot create a temporary file beside it: %s", strerror(EEXIST));
        (void)flock(o->fd, LOCK_EX | LOCK_NB); /* proves the temporary is alive */
        return 0;
}

int pn_output_open(pn_output *o, int dirfd, const char *path, unsigned flags) {
        *o = (pn_output){.fd = -1, .dirfd = -1, .flags = flags};
        if (!path || !*path)
                return pn_error(-EINVAL, "no output named");
        int r = 0, sfd = flags & PN_OUT_STDIO ? stdio_fd(path) : -1;
        if (sfd >= 0) {
                o->fd = sfd;
                o->direct = o->borrowed = true;
                if (fstat(sfd, &o->st) < 0)
                        return free_output(o, pn_error(-errno, "cannot write: %s", strerror(errno)));
        } else {
                const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
                if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
                        return pn_error(-EISDIR, "names a directory");
                int pfd = openat(dirfd, path, O_PATH | O_CLOEXEC | (flags & PN_OUT_FOLLOW ? 0 : O_NOFOLLOW));
                struct stat st;
                if (pfd < 0 && errno != ENOENT)
                        return pn_error(-errno, "cannot open: %s", strerror(errno));
                if (pfd < 0 && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        return pn_error(-ENOENT, "is a symbolic link to nothing; not creating a file where it points");
                if (pfd >= 0 && fstat(pfd, &st) < 0)
                        r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                else if (pfd >= 0 && S_ISLNK(st.st_mode))
                        r = pn_error(-ELOOP, "is a symbolic link, which is not followed here");
                else if (pfd >= 0 && S_ISDIR(st.st_mode))
                        r = pn_error(-EISDIR, "is a directory");
                else if (pfd >= 0 && (flags & PN_OUT_EXCL))
                        r = pn_error(-EEXIST, "exists already");
                else if (pfd >= 0 && !S_ISREG(st.st_mode))
                        r = flags & PN_OUT_REGULAR ? pn_error(-EINVAL, "not a regular file")
                                                   : open_direct(o, dirfd, path, &st);
                else if (pfd >= 0) {
                        o->exists = true;
                        o->st = st;
                        r = locate(o, dirfd, path, pfd);
                        struct stat now;
                        if (r == 0 && (fstatat(o->dirfd, o->name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
                                       now.st_dev != st.st_dev || now.st_ino != st.st_ino))
                                r = pn_error(-ESTALE, "changed while being opened");
                } else if (flags & PN_OUT_REGULAR)
                        r = pn_error(-ENOENT, "cannot open: %s", strerror(ENOENT));
                else
                        r = locate(o, dirfd, path, -1);
                if (pfd >= 0)
                        close(pfd);
                if (r < 0)
                        return free_output(o, r);
        }
        if ((flags & PN_OUT_BINARY) && isatty(o->fd))
                return free_output(o, pn_error(-ENOTTY, "refusing to write binary output to a terminal (name a file, or redirect)"));
        if (o->direct)
                return 0;
        mode_t mask = umask(0);
        umask(mask);
        o->mode = 0666 & ~mask;
        if (!(flags & PN_OUT_NO_CLEAN))
                pn_output_clean_stale(o->dirfd, o->name);
        if ((r = create_temp(o)) < 0)
                return free_output(o, r);
        return 0;
}

int pn_output_verify(const pn_output *o, const void *data, size_t len) {
        uint8_t buf[8192];
        for (size_t done = 0; done < len;) {
                size_t n = len - done < sizeof buf ? len - done : sizeof buf;
                ssize_t r = pn_pread_full(o->fd, buf, n, done);
                if (r < 0)
                        return (int)r;
                if ((size_t)r != n || memcmp(buf, (const uint8_t *)data + done, n))
                        return -EIO;
                done += n;
        }
        struct stat st;
        return fstat(o->fd, &st) < 0 ? -errno : (uint64_t)st.st_size == len ? 0 : -EIO;
}

/* Gives the unnamed temporary the name NAME in its directory. */
static int link_tmpfile(pn_output *o, const char *name) {
        if (linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH) == 0)
                return 0;
        if (errno != ENOENT && errno != EPERM && errno != EINVAL)
                return -errno;
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
        return linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
}

/* Puts the finished temporary at the name: over the file that was there
 * (checked to be still that file), or as a new name that must not have
 * appeared meanwhile. */
static int install(pn_output *o) {
        int r;
        if (o->tmpfile && !o->exists) {
                if ((r = link_tmpfile(o, o->name)) == -EEXIST)
                        return pn_error(r, "appeared while being written; left as it is");
                return r < 0 ? pn_error(r, "cannot link the new file: %s", strerror(-r)) : 0;
        }
        for (int i = 0; o->tmpfile && !o->tmpname; i++) {
                if (!(o->tmpname = tmp_name(o->name)))
                        return pn_oom();
                if ((r = link_tmpfile(o, o->tmpname)) == 0)
                        break;
                free(o->tmpname);
                o->tmpname = NULL;
                if (r != -EEXIST || i == 100)
                        return pn_error(r, "cannot link the new file: %s", strerror(-r));
        }
        if (!o->exists) {
                if (renameat2(o->dirfd, o->tmpname, o->dirfd, o->name, RENAME_NOREPLACE) < 0) {
                        if (errno == EEXIST)
                                return pn_error(-EEXIST, "appeared while being written; left as it is");
                        if (errno != EINVAL && errno != ENOSYS)
                                return pn_error(-errno, "cannot rename the temporary file onto it: %s", strerror(errno));
                        if (linkat(o->dirfd, o->tmpname, o->dirfd, o->name, 0) < 0)
                                return pn_error(-errno, "cannot rename the temporary file onto it: %s", strerror(errno));
                        return 0; /* free_output() unlinks the temporary name */
                }
        } else {
                struct stat now;
                if (fstatat(o->dirfd, o->name, &now, AT_SYMLINK_NOFOLLOW) < 0 || now.st_dev != o->st.st_dev ||
                    now.st_ino != o->st.st_ino)
                        return pn_error(-ESTALE, "was replaced by another file while being written; left as it is");
                if (renameat(o->dirfd, o->tmpname, o->dirfd, o->name) < 0)
                        return pn_error(-errno, "cannot rename the temporary file onto it: %s", strerror(errno));
        }
        free(o->tmpname);
        o->tmpname = NULL;
        return 0;
}

int pn_output_relink(int fromdir, const char *from, const struct stat *want, int dirfd, const char *name,
                     const struct stat *old) {
        char *tmp = NULL;
        struct stat st;
        int r = 0;
        for (int i = 0; r == 0; i++) {
                free(tmp);
                if (!(tmp = tmp_name(name)))
                        return pn_oom();
                if (linkat(fromdir, from, dirfd, tmp, 0) == 0)
                        break;
                if (errno != EEXIST || i == 100)
                        r = pn_error(-errno, "cannot link it to the stamped file: %s", strerror(errno));
        }
        if (r == 0 && (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != want->st_dev ||
                       st.st_ino != want->st_ino))
                r = pn_error(-ESTALE, "the stamped file changed while being linked; left as it is");
        if (r == 0 && (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != old->st_dev ||
                       st.st_ino != old->st_ino))
                r = pn_error(-ESTALE, "was replaced by another file meanwhile; left as it is");
        if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
                r = pn_error(-errno, "cannot rename the link onto it: %s", strerror(errno));
        if (r < 0 && tmp)
                (void)unlinkat(dirfd, tmp, 0);
        free(tmp);
        return r;
}

int pn_output_commit(pn_output *o) {
        int r = 0;
        if (o->direct) {
                if (!o->borrowed && close(o->fd) < 0)
                        r = pn_error(-errno, "cannot write: %s", strerror(errno));
                o->fd = -1;
                return free_output(o, r);
        }
        if (fsync(o->fd) < 0)
                r = pn_error(-errno, "cannot sync the temporary file: %s", strerror(errno));
        /* Privileged bits last, after the slow part, right before the
         * rename: never a setuid or capable copy lying about unfinished. */
        if (r == 0 && fchmod(o->fd, o->mode) < 0)
                r = pn_error(-errno, "cannot set the mode: %s", strerror(errno));
        if (r == 0 && o->caps && fsetxattr(o->fd, "security.capability", o->caps, o->caps_len, 0) < 0)
                r = pn_error(-errno, "cannot keep the capabilities: %s", strerror(errno));
        if (r == 0)
                r = install(o);
        /* Makes the rename itself durable (and, on journaling file
         * systems, the mode set after the file's fsync). */
        if (r == 0 && !(o->flags & PN_OUT_NO_DIRSYNC) && fsync(o->dirfd) < 0 && errno != EINVAL)
                r = pn_error(-errno, "written, but its directory cannot be synced: %s", strerror(errno));
        return free_output(o, r);
}
