/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's coredump socket (Documentation/admin-guide/sysctl/kernel.rst,
 * core_pattern "@" and "@@"; include/uapi/linux/coredump.h) and the quota.
 *
 * "@@PATH": the kernel connects to PATH as the crashing process, with its
 * own credentials, sends a struct coredump_req {u32 size, u32 size_ack,
 * u64 mask}, and waits for a struct coredump_ack {u32 size, u32 spare,
 * u64 mask}; it answers with a 4-byte marker (0: the ack was taken), then,
 * for COREDUMP_KERNEL, writes the dump and shuts its side down; with
 * COREDUMP_WAIT the process stays until the server closes.  COREDUMP_REJECT
 * makes it write nothing.  Fields are read by offset in host byte order
 * (the kernel's own, on the same machine).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "coredump-socket.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
/* linux/pidfd.h, which older build machines lack: PIDFD_GET_INFO is
 * _IOWR(0xFF, 11, struct pidfd_info), an extensible ioctl: the kernel
 * reads the size from the command and copies back no more than it, so
 * the size encoded must cover the fields read (coredump_mask past the
 * first published 64 bytes). */
#define PIDFD_INFO_PID (1ull << 0)
#define PIDFD_INFO_CREDS (1ull << 1)
#define PIDFD_INFO_COREDUMP (1ull << 4)
#define PIDFD_INFO_SUPPORTED_MASK (1ull << 5)
#define PIDFD_INFO_COREDUMP_SIGNAL (1ull << 6)
#define PIDFD_COREDUMPED (1u << 0)
/* struct pidfd_info: mask u64 @0, cgroupid u64 @8, pid @16, tgid @20,
 * ppid @24, ruid @28, rgid @32, euid @36, egid @40, suid, sgid, fsuid,
 * fsgid, exit_code @60, coredump_mask @64, coredump_signal @68; then
 * supported_mask u64 @72 (PIDFD_INFO_SIZE_VER2, 80 bytes), or
 * coredump_code @72 and supported_mask @80 (VER3, 88 bytes: what
 * Debian sid's 7.2 kernel fills, found in the VM of tests/vm). */
#define PIDFD_INFO_SIZE 88
#define PIDFD_GET_INFO_80 _IOWR(0xFF, 11, uint8_t[PIDFD_INFO_SIZE])

static uint32_t get32(const uint8_t *p) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
}
static uint64_t get64(const uint8_t *p) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
}
static void put32(uint8_t *p, uint32_t v) {
        memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v) {
        memcpy(p, &v, 8);
}

/* Reads exactly LEN bytes; -EBADMSG when the peer closes first. */
static int read_exact(int fd, void *buf, size_t len) {
        size_t got = 0;
        while (got < len) {
                ssize_t n = recv(fd, (uint8_t *)buf + got, len - got, 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EBADMSG;
                got += (size_t)n;
        }
        return 0;
}

int cds_read_request(int fd, struct cds_request *req) {
        uint8_t b[CDS_REQ_SIZE_VER0];
        int r = read_exact(fd, b, sizeof b);
        if (r < 0)
                return r;
        struct cds_request q = {get32(b), get32(b + 4), get64(b + 8)};
        if (q.size < CDS_REQ_SIZE_VER0 || q.size > CDS_REQ_SIZE_MAX || q.size_ack < CDS_ACK_SIZE_VER0)
                return -EBADMSG;
        /* The handler answers with these: a kernel offering fewer is not
         * one it can speak to. */
        if ((q.mask & (CDS_KERNEL | CDS_REJECT | CDS_WAIT)) != (CDS_KERNEL | CDS_REJECT | CDS_WAIT))
                return -EBADMSG;
        for (size_t left = q.size - CDS_REQ_SIZE_VER0; left > 0;) {
                uint8_t skip[256];
                size_t n = left < sizeof skip ? left : sizeof skip;
                if ((r = read_exact(fd, skip, n)) < 0)
                        return r;
                left -= n;
        }
        *req = q;
        return 0;
}

int cds_send_ack(int fd, const struct cds_request *req, uint64_t mask) {
        if (mask & ~req->mask)
                return -EINVAL;
        uint8_t b[CDS_ACK_SIZE_VER0] = {0};
        put32(b, CDS_ACK_SIZE_VER0); /* no field past the first struct is used */
        put64(b + 8, mask);
        size_t off = 0;
        while (off < sizeof b) {
                ssize_t n = send(fd, b + off, sizeof b - off, MSG_NOSIGNAL);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                off += (size_t)n;
        }
        return 0;
}

int cds_read_marker(int fd) {
        uint8_t b[4];
        int r = read_exact(fd, b, sizeof b);
        if (r < 0)
                return r;
        uint32_t m = get32(b);
        return m > INT_MAX ? -EBADMSG : (int)m;
}

static int pidfd_info(int pidfd, uint64_t want, uint8_t info[PIDFD_INFO_SIZE]) {
        memset(info, 0, PIDFD_INFO_SIZE);
        put64(info, want);
        if (ioctl(pidfd, PIDFD_GET_INFO_80, info) < 0)
                return -errno;
        return 0;
}

int cds_peer_from_info(int cred_pid, const uint8_t *info, bool not_dumping_ok, struct cds_peer *peer,
                       const char **why) {
        uint64_t mask = get64(info);
        /* PIDFD_COREDUMPED is set by the kernel alone, while the process
         * dumps: with the socket root's alone (0600 in a 0700 directory),
         * that is the authentication.  The credentials are the crashing
         * process's own (the kernel connects as it), whoever it runs as. */
        if (!not_dumping_ok && (!(mask & PIDFD_INFO_COREDUMP) || !(get32(info + 64) & PIDFD_COREDUMPED))) {
                *why = "the process behind it is not dumping core";
                return -EPERM;
        }
        int tgid = (int)get32(info + 20);
        if (!(mask & PIDFD_INFO_PID) || cred_pid <= 0 || cred_pid != tgid) {
                *why = "its SO_PEERCRED process is not the one of its pidfd";
                return -EPERM;
        }
        *peer = (struct cds_peer){
                .pidfd = -1,
                .pid = tgid, /* tgid: the process */
                .uid = (mask & PIDFD_INFO_CREDS) ? (int)get32(info + 28) : -1,
                .gid = (mask & PIDFD_INFO_CREDS) ? (int)get32(info + 32) : -1,
                .signal = (mask & PIDFD_INFO_COREDUMP_SIGNAL) ? (int)get32(info + 68) : 0,
        };
        return 0;
}

int cds_peer_check(int fd, bool not_dumping_ok, struct cds_peer *peer, const char **why) {
        struct ucred cred;
        socklen_t len = sizeof cred;
        *why = NULL;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return -errno;
        int pidfd = -1;
        len = sizeof pidfd;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
                return -errno;
        uint8_t info[PIDFD_INFO_SIZE];
        int r = pidfd_info(pidfd, PIDFD_INFO_PID | PIDFD_INFO_CREDS | PIDFD_INFO_COREDUMP | PIDFD_INFO_COREDUMP_SIGNAL,
                           info);
        if (r == 0)
                r = cds_peer_from_info((int)cred.pid, info, not_dumping_ok, peer, why);
        if (r < 0) {
                close(pidfd);
                return r;
        }
        peer->pidfd = pidfd;
        return 0;
}

int cds_pidfd_alive(int pidfd) {
        /* Signal 0 checks only: ESRCH once the process has exited. */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0)
                return 1;
        return errno == ESRCH ? 0 : -errno;
}

int cds_level_from_info(const uint8_t *info) {
        uint64_t mask = get64(info);
        if (!(mask & PIDFD_INFO_SUPPORTED_MASK))
                /* 6.16 to 6.18 have no supported mask; that the kernel
                 * answered PIDFD_INFO_COREDUMP proves 6.16 or later, which
                 * checks an "@" pattern when it is written: "@@" is tried
                 * and read back, and 6.16, which refuses it, gets "@". */
                return (mask & PIDFD_INFO_COREDUMP) ? 2 : 0;
        /* The supported mask always holds PIDFD_INFO_PID: where the
         * field at 80 does not, the kernel's struct ends before it. */
        uint64_t sup = get64(info + 80);
        if (!(sup & PIDFD_INFO_PID))
                sup = get64(info + 72);
        if ((sup & (PIDFD_INFO_COREDUMP | PIDFD_INFO_COREDUMP_SIGNAL)) == (PIDFD_INFO_COREDUMP | PIDFD_INFO_COREDUMP_SIGNAL))
                return 2;
        return (sup & PIDFD_INFO_COREDUMP) ? 1 : 0;
}

int cds_kernel_level(void) {
        int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
        if (pidfd < 0)
                return 0;
        uint8_t info[PIDFD_INFO_SIZE];
        int r = pidfd_info(pidfd, PIDFD_INFO_PID | PIDFD_INFO_COREDUMP | PIDFD_INFO_SUPPORTED_MASK, info);
        close(pidfd);
        return r < 0 ? 0 : cds_level_from_info(info);
}

int cds_no_dump(void) {
        return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ? -errno : 0;
}

/* Writes PATTERN to the sysctl file and reads it back: 1 when the file
 * holds it, 0 when the kernel kept something else, -errno. */
static int try_pattern(const char *sysctl, const char *pattern) {
        int fd = open(sysctl, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        size_t len = strlen(pattern);
        /* A regular file (a test's fixture) is rewritten whole; the
         * sysctl file takes one write. */
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
                int e = errno;
                close(fd);
                return -e;
        }
        ssize_t n = write(fd, pattern, len);
        int e = n < 0 ? errno : 0;
        close(fd);
        if (n < 0)
                return e == EINVAL ? 0 : -e; /* the kernel refused it */
        char back[4096];
        fd = open(sysctl, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        n = read(fd, back, sizeof back - 1);
        e = errno;
        close(fd);
        if (n < 0)
                return -e;
        back[n] = 0;
        back[strcspn(back, "\n")] = 0;
        return strcmp(back, pattern) == 0;
}

int cds_register(const char *sysctl, int level, const char *path, const char *pipe, char *out, size_t len) {
        char pattern[4096];
        if (!path || path[0] != '/' || strlen(path) + 3 > sizeof pattern)
                return -EINVAL;
        for (int l = level; l >= 1; l--) {
                snprintf(pattern, sizeof pattern, "%s%s", l == 2 ? "@@" : "@", path);
                int r = try_pattern(sysctl, pattern);
                if (r < 0)
                        return r;
                if (r > 0) {
                        snprintf(out, len, "%s", pattern);
                        return 0;
                }
        }
        if (!pipe)
                return -EOPNOTSUPP;
        int r = try_pattern(sysctl, pipe);
        if (r < 0)
                return r;
        if (r == 0)
                return -EINVAL;
        snprintf(out, len, "%s", pipe);
        return 0;
}

/* Whether the socket file at PATH may be replaced: 0 when nothing is
 * there or a socket no one listens on (an earlier run's), -EEXIST when
 * it is not a socket (never the handler's to remove), -EADDRINUSE when
 * a server listens on it.  Another pkgnote-coredump is told by the
 * path's lock (cds_listen()), without a connection; this asks the others
 * (systemd's socket unit, a server of another version) by connecting,
 * which only a live listener notices: the socket's own inode answers,
 * however the path is spelt and from whichever namespace it listens. */
static int replaceable(const char *path) {
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISSOCK(st.st_mode))
                return -EEXIST;
        /* Refused: no one listens.  Taken, or its queue full: a server. */
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        int r = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? -EADDRINUSE
                : errno == ECONNREFUSED ? 0
                : errno == EAGAIN || errno == EINPROGRESS ? -EADDRINUSE
                : -errno;
        close(fd);
        return r;
}

/* The lock of the path's server, held as long as it lives (its workers
 * let go of it: cds_listen_release()). */
static int listen_lock = -1;

void cds_listen_release(void) {
        if (listen_lock >= 0)
                close(listen_lock);
        listen_lock = -1;
}

int cds_listen(const char *path) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        /* Bound under a temporary name and renamed once listening: a
         * connection never finds the path before it can be taken. */
        if (!path || path[0] != '/')
                return -EINVAL;
        if (strlen(path) + 5 >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s.new", path);
        /* Its directory (/run/pkgnote on a fresh boot), root's alone. */
        char parent[sizeof sa.sun_path];
        snprintf(parent, sizeof parent, "%s", path);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
                *slash = 0;
                if (mkdir(parent, 0700) < 0 && errno != EEXIST)
                        return -errno;
        }
        /* One server a path: PATH.lock, taken before anything at PATH
         * or PATH.new is looked at, so that two starting at once never
         * remove each other's socket. */
        char lockp[sizeof sa.sun_path + 8];
        snprintf(lockp, sizeof lockp, "%s.lock", path);
        int lk = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (lk < 0)
                return -errno;
        if (flock(lk, LOCK_EX | LOCK_NB) < 0) {
                int e = errno == EWOULDBLOCK ? EADDRINUSE : errno;
                close(lk);
                return -e;
        }
        /* Only a stale socket is replaced, at either name. */
        int r = replaceable(sa.sun_path);
        if (r == 0)
                r = replaceable(path);
        int fd = r < 0 ? -1 : socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (r == 0 && fd < 0)
                r = -errno;
        if (r < 0) {
                close(lk);
                return r;
        }
        (void)unlink(sa.sun_path); /* a stale one of an earlier run */
        /* Only root may connect: the kernel's connect() looks the path
         * up with its own credentials (the connection then carries the
         * crashing process's). */
        mode_t old = umask(0177);
        r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
        umask(old);
        if (r < 0 || listen(fd, 64) < 0 || rename(sa.sun_path, path) < 0) {
                r = -errno;
                (void)unlink(sa.sun_path);
                close(fd);
                close(lk);
                return r;
        }
        cds_listen_release(); /* (once a process: an earlier path's, let go) */
        listen_lock = lk;
        return fd;
}

int cds_listen_fds(const char *path) {
        const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
        if (!pid || !fds)
                return -ENOENT;
        char *end;
        errno = 0;
        long p = strtol(pid, &end, 10);
        if (errno || *end || p != getpid())
                return -ENOENT;
        long n = strtol(fds, &end, 10);
        if (errno || *end || n != 1)
                return -EINVAL;
        int fd = 3; /* SD_LISTEN_FDS_START */
        int type = 0, acc = 0;
        socklen_t len = sizeof type;
        struct sockaddr_un sa;
        socklen_t salen = sizeof sa;
        memset(&sa, 0, sizeof sa);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM ||
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &(socklen_t){sizeof acc}) < 0 || !acc ||
            getsockname(fd, (struct sockaddr *)&sa, &salen) < 0 || sa.sun_family != AF_UNIX)
                return -EINVAL;
        /* The kernel connects to the path core_pattern names: a passed
         * socket bound elsewhere would never see a crash. */
        if (path && (salen <= offsetof(struct sockaddr_un, sun_path) ||
                     strncmp(sa.sun_path, path, sizeof sa.sun_path) != 0))
                return -EXDEV;
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_FDNAMES");
        return fd;
}

/* ---- The quota ledger ----
 * One line per event, "TIME COUNT BYTES KEY\n": a core taken (COUNT 1),
 * a place given back (COUNT -1: the core was not stored after all), or
 * the bytes it took once stored (COUNT 0).  Each event is written twice:
 * under the key of the program (and user), and under the user's own,
 * which bounds what one user stores under every name.  Lines of another
 * shape are skipped (the file is the handler's own, root's, 0600), and
 * so are lines dated later than now (a clock set back). */

#define LEDGER ".quota"
#define LEDGER_LINE 80
#define LEDGER_SLACK 60 /* seconds a line may be ahead of the clock */

static void fnv(uint64_t *h, const char *s) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                *h = (*h ^ *p) * 0x100000001b3ull;
        *h = (*h ^ 0xff) * 0x100000001b3ull; /* the separator: no pair reads as another */
}

void cds_quota_key(char out[17], int uid, const char *program, const char *package) {
        uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits */
        char u[32];
        snprintf(u, sizeof u, "uid:%d", uid);
        fnv(&h, u);
        fnv(&h, program ? program : "");
        fnv(&h, package ? package : "");
        snprintf(out, 17, "%016" PRIx64, h);
}

void cds_quota_user_key(char out[17], int uid) {
        uint64_t h = 0xcbf29ce484222325ull;
        char u[32];
        snprintf(u, sizeof u, "user-total:%d", uid);
        fnv(&h, u);
        snprintf(out, 17, "%016" PRIx64, h);
}

long cds_ms_since(const struct timespec *t0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The ledger's lock, waited for at most WAIT_MS: a handler that holds
 * it on a file system that no longer answers must not keep every other
 * one (which waits with its deadline held off) past its own bounds.
 * System calls only: a signal handler takes it too.  The lock is a file
 * of its own, never renamed, so that a ledger rewritten under it is the
 * one every later handler reads. */
static int ledger_lock_within(int dirfd, unsigned wait_ms) {
        int fd = openat(dirfd, LEDGER ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int e = errno;
                if ((e != EWOULDBLOCK && e != EINTR) || cds_ms_since(&t0) >= (long)wait_ms) {
                        close(fd);
                        return e == EWOULDBLOCK || e == EINTR ? -ETIMEDOUT : -e;
                }
                (void)poll(NULL, 0, 10);
        }
        return fd;
}

static int ledger_lock(int dirfd) {
        return ledger_lock_within(dirfd, CDS_LEDGER_LOCK_MS);
}

static int ledger_open(int dirfd) {
        int fd = openat(dirfd, LEDGER, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EBADF;
        }
        return fd;
}

/* A line's COUNT and BYTES into U: a place given back (COUNT -1) takes
 * its BYTES back too. */
static void usage_add(struct cds_usage *u, int c, uint64_t b) {
        if (c < 0) {
                u->count -= u->count > 0;
                u->bytes = b > u->bytes ? 0 : u->bytes - b;
                return;
        }
        u->count += (unsigned)c;
        u->bytes = b > UINT64_MAX - u->bytes ? UINT64_MAX : u->bytes + b;
}

/* Sums the lines of KEY (into *U) and UKEY (into *UU) dated from SINCE
 * to NOW; rewrites the file without the lines older than SINCE, or
 * ahead of NOW, once it is larger than CDS_LEDGER_MAX. */
static int ledger_sum(int fd, int dirfd, const char *key, const char *ukey, int64_t since, int64_t now,
                      struct cds_usage *u, struct cds_usage *uu) {
        *u = (struct cds_usage){0};
        *uu = (struct cds_usage){0};
        FILE *f = fdopen(dup(fd), "r");
        if (!f)
                return -errno;
        rewind(f);
        struct stat st;
        bool prune = fstat(fd, &st) == 0 && (uint64_t)st.st_size > CDS_LEDGER_MAX;
        FILE *keep = NULL;
        char tmp[] = LEDGER ".new";
        if (prune) {
                int tfd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
                keep = tfd >= 0 ? fdopen(tfd, "w") : NULL;
                if (!keep && tfd >= 0)
                        close(tfd);
        }
        char line[LEDGER_LINE];
        while (fgets(line, sizeof line, f)) {
                size_t n = strlen(line);
                if (n == 0 || line[n - 1] != '\n') {
                        /* Longer than any line written: skip to its end. */
                        int ch;
                        while ((ch = getc(f)) != EOF && ch != '\n')
                                ;
                        continue;
                }
                long long t;
                int c;
                unsigned long long b;
                char k[17];
                if (sscanf(line, "%lld %d %llu %16s", &t, &c, &b, k) != 4 || c < -1 || c > 1)
                        continue;
                if (t < since || t > now + LEDGER_SLACK)
                        continue;
                if (keep)
                        fputs(line, keep);
                if (strcmp(k, key) == 0)
                        usage_add(u, c, b);
                else if (ukey && strcmp(k, ukey) == 0)
                        usage_add(uu, c, b);
        }
        fclose(f);
        if (keep) {
                bool ok = fflush(keep) == 0 && fsync(fileno(keep)) == 0;
                ok &= fclose(keep) == 0;
                if (!ok || renameat(dirfd, tmp, dirfd, LEDGER) < 0)
                        (void)unlinkat(dirfd, tmp, 0);
        }
        return 0;
}

/* The ledger's lines of one event into LINE (LEN bytes): their length. */
static int ledger_lines(char *line, size_t len, int64_t now, int count, uint64_t bytes, const char *key,
                        const char *ukey) {
        int n = snprintf(line, len, "%" PRId64 " %d %" PRIu64 " %s\n", now, count, bytes, key);
        if (n < 0 || (size_t)n >= len)
                return -ENAMETOOLONG;
        if (ukey) {
                int m = snprintf(line + n, len - (size_t)n, "%" PRId64 " %d %" PRIu64 " %s\n", now, count, bytes, ukey);
                if (m < 0 || (size_t)m >= len - (size_t)n)
                        return -ENAMETOOLONG;
                n += m;
        }
        return n;
}

static int ledger_write(int fd, const char *line, size_t n) {
        /* One write: the two lines land together (O_APPEND). */
        ssize_t w = write(fd, line, n);
        return w == (ssize_t)n ? 0 : w < 0 ? -errno : -EIO;
}

static int ledger_append(int fd, int64_t now, int count, uint64_t bytes, const char *key, const char *ukey) {
        char line[2 * LEDGER_LINE];
        int n = ledger_lines(line, sizeof line, now, count, bytes, key, ukey);
        return n < 0 ? n : ledger_write(fd, line, (size_t)n);
}

static bool over(uint64_t count, uint64_t bytes, uint64_t max_count, uint64_t max_bytes) {
        return (max_count && count >= max_count) || (max_bytes && bytes >= max_bytes);
}

int cds_quota_take(int dirfd, const char *key, const char *ukey, const struct cds_quota *q, int64_t now,
                   struct cds_usage *used) {
        int lock = ledger_lock(dirfd);
        if (lock < 0)
                return lock;
        int fd = ledger_open(dirfd);
        if (fd < 0) {
                close(lock);
                return fd;
        }
        int64_t since = now - (int64_t)q->interval;
        struct cds_usage uu;
        int r = ledger_sum(fd, dirfd, key, ukey, since, now, used, &uu);
        if (r == 0) {
                /* A rewritten ledger is another file: append to it. */
                close(fd);
                fd = ledger_open(dirfd);
                if (fd < 0) {
                        close(lock);
                        return fd;
                }
                bool no = over(used->count, used->bytes, q->count, q->bytes);
                uint64_t uc = (uint64_t)q->count * CDS_QUOTA_USER_FACTOR;
                uint64_t ub = q->bytes > UINT64_MAX / CDS_QUOTA_USER_FACTOR ? UINT64_MAX
                                                                            : q->bytes * CDS_QUOTA_USER_FACTOR;
                if (!no && ukey && over(uu.count, uu.bytes, uc, ub)) {
                        no = true;
                        *used = uu;
                        used->user_total = true;
                }
                r = no ? 0 : ledger_append(fd, now, 1, 0, key, ukey);
                if (r == 0 && !no)
                        r = 1;
        }
        close(fd);
        close(lock);
        return r;
}

static int ledger_event(int dirfd, const char *key, const char *ukey, int64_t now, int count, uint64_t bytes) {
        int lock = ledger_lock(dirfd);
        if (lock < 0)
                return lock;
        int fd = ledger_open(dirfd);
        int r = fd < 0 ? fd : ledger_append(fd, now, count, bytes, key, ukey);
        if (fd >= 0)
                close(fd);
        close(lock);
        return r;
}

int cds_quota_add_bytes(int dirfd, const char *key, const char *ukey, int64_t now, uint64_t bytes) {
        return ledger_event(dirfd, key, ukey, now, 0, bytes);
}

int cds_quota_give_back(int dirfd, const char *key, const char *ukey, int64_t now, uint64_t bytes) {
        return ledger_event(dirfd, key, ukey, now, -1, bytes);
}

int cds_quota_give_back_line(char *line, size_t len, const char *key, const char *ukey, int64_t now, uint64_t bytes) {
        return ledger_lines(line, len, now, -1, bytes, key, ukey);
}

int cds_quota_give_back_raw(int dirfd, const char *line, size_t n) {
        int lock = ledger_lock_within(dirfd, CDS_LEDGER_LOCK_MS / 2);
        if (lock < 0)
                return lock;
        int fd = ledger_open(dirfd);
        int r = fd < 0 ? fd : ledger_write(fd, line, n);
        if (fd >= 0)
                close(fd);
        close(lock);
        return r;
}
