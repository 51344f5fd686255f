/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote-coredump's side of the kernel's coredump socket (Linux 6.16+,
 * core_pattern "@PATH"; 6.17+ "@@PATH", the request protocol of
 * include/uapi/linux/coredump.h), and the quota both modes apply.  libc
 * only, so that the unit test drives it over a socketpair standing in
 * for the kernel.
 */
#ifndef PKGNOTE_COREDUMP_SOCKET_H
#define PKGNOTE_COREDUMP_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The bits of coredump_req.mask and coredump_ack.mask (uapi). */
#define CDS_KERNEL (1ull << 0)    /* the kernel writes the dump to the socket */
#define CDS_USERSPACE (1ull << 1) /* the server writes it itself */
#define CDS_REJECT (1ull << 2)    /* no dump */
#define CDS_WAIT (1ull << 3)      /* the kernel waits until the server closes */
#define CDS_REQ_SIZE_VER0 16u
#define CDS_ACK_SIZE_VER0 16u
/* A request larger than this is no kernel's (systemd bounds it alike). */
#define CDS_REQ_SIZE_MAX 4096u
/* The marker the kernel sends after the ack (enum coredump_mark, 4 bytes). */
#define CDS_MARK_REQACK 0u

struct cds_request {
        uint32_t size, size_ack;
        uint64_t mask;
};

/* Reads and checks the kernel's request from FD: -EBADMSG when it is
 * short, larger than CDS_REQ_SIZE_MAX, inconsistent, or lacks a bit the
 * handler needs; the bytes past what is known are read and dropped. */
int cds_read_request(int fd, struct cds_request *req);
/* Sends the ack with MASK (only bits the request offered: -EINVAL
 * otherwise), sized as the kernel allows. */
int cds_send_ack(int fd, const struct cds_request *req, uint64_t mask);
/* Reads the kernel's 4-byte marker: the mark (0: accepted) or -errno;
 * -EBADMSG when the connection ends first. */
int cds_read_marker(int fd);

/* What the kernel's connection tells of the crashing process. */
struct cds_peer {
        int pidfd;           /* SO_PEERPIDFD: the process, not a PID that may be reused */
        int pid, uid, gid;   /* from the pidfd (PIDFD_GET_INFO) */
        int signal;          /* the dumping signal, 0 when the kernel does not say */
};
/* Whether the peer of the accepted connection FD is the kernel dumping a
 * process: the process behind its pidfd is dumping core (PIDFD_COREDUMPED,
 * which only the kernel sets) and is the one SO_PEERCRED names.  The
 * credentials are the crashing process's own, whoever it runs as: the
 * kernel connects as it; the socket, root's alone, is the rest of the
 * authentication.  0 and *PEER filled (the caller closes
 * its pidfd), -EPERM with WHY set when it is not, other -errno when the
 * kernel cannot tell (no SO_PEERPIDFD or PIDFD_GET_INFO: before 6.16;
 * -ESRCH: the peer has already exited and been reaped, so its PID may be
 * another process's by now).  NOT_DUMPING_OK (tests only, where a test
 * plays the kernel's side) takes a live peer that is not dumping core;
 * the pidfd and SO_PEERCRED must still name the same process. */
int cds_peer_check(int fd, bool not_dumping_ok, struct cds_peer *peer, const char **why);
/* The decision of cds_peer_check() over the peer's SO_PEERCRED pid
 * CRED_PID and the 88 bytes PIDFD_GET_INFO filled (INFO): *PEER filled
 * but its pidfd -1, or -EPERM with WHY. */
int cds_peer_from_info(int cred_pid, const uint8_t *info, bool not_dumping_ok, struct cds_peer *peer,
                       const char **why);
/* 1 while the process of PIDFD has not exited (its /proc entry is still
 * its own), 0 when it has, -errno on error. */
int cds_pidfd_alive(int pidfd);

/* A quota per user, program and package version: at most COUNT cores and BYTES
 * bytes of cores stored in INTERVAL seconds.  COUNT 0 or BYTES 0: that
 * bound is off. */
struct cds_quota {
        unsigned count;
        uint64_t bytes;
        unsigned interval;
};
#define CDS_QUOTA_DEFAULT_COUNT 10u
#define CDS_QUOTA_DEFAULT_BYTES (1ull << 30)
#define CDS_QUOTA_DEFAULT_INTERVAL 3600u
/* The ledger (".quota" in the store) is rewritten without its expired
 * lines once larger than this. */
#define CDS_LEDGER_MAX (256u << 10)

struct cds_usage {
        uint64_t count, bytes;
        bool user_total; /* the user's total is what is over, not the program's */
};
/* One user's total over every program: this many times the quota. */
#define CDS_QUOTA_USER_FACTOR 5u
/* The milliseconds since T0 (CLOCK_MONOTONIC); async-signal-safe. */
long cds_ms_since(const struct timespec *t0);
/* How long a ledger call waits for the ledger's lock (then -ETIMEDOUT). */
#define CDS_LEDGER_LOCK_MS 5000
/* Under a lock on the ledger in DIRFD: whether one more core of KEY (the
 * user, program and package version) may be stored at NOW, within the
 * quota Q, and the user's total of UKEY (NULL: none) within
 * CDS_QUOTA_USER_FACTOR times it.  When it may, the core is counted at
 * once under both (1), so concurrent handlers cannot both take the last
 * place; 0 when over.  *USED: the use before (the user's total when that
 * is what is over).  Lines dated more than a minute ahead of NOW are not
 * counted. */
int cds_quota_take(int dirfd, const char *key, const char *ukey, const struct cds_quota *q, int64_t now,
                   struct cds_usage *used);
/* Adds the BYTES a core of KEY (and UKEY) took once stored. */
int cds_quota_add_bytes(int dirfd, const char *key, const char *ukey, int64_t now, uint64_t bytes);
/* Gives back the place cds_quota_take() counted, and the BYTES
 * cds_quota_add_bytes() added for it, when the core was not stored after
 * all. */
int cds_quota_give_back(int dirfd, const char *key, const char *ukey, int64_t now, uint64_t bytes);
/* The ledger's give-back of KEY and UKEY at NOW (and BYTES), made ahead as
 * text in LINE (CDS_LEDGER_EVENT_MAX bytes), so that
 * cds_quota_give_back_raw() can write it from a signal handler; its
 * length, or -ENAMETOOLONG. */
#define CDS_LEDGER_EVENT_MAX 192
int cds_quota_give_back_line(char *line, size_t len, const char *key, const char *ukey, int64_t now, uint64_t bytes);
/* Appends LINE (N bytes, from cds_quota_give_back_line()) to DIRFD's
 * ledger under its lock (waited for at most CDS_LEDGER_LOCK_MS / 2, then
 * -ETIMEDOUT): system calls only (async-signal-safe), for a worker ended
 * by a signal.  The caller must not be inside the ledger's lock itself
 * (hold the signal off around every other ledger call). */
int cds_quota_give_back_raw(int dirfd, const char *line, size_t n);
/* The key of a user, program and package version, as the ledger holds
 * it: 16 hex digits (hostile names never reach the file). */
void cds_quota_key(char out[17], int uid, const char *program, const char *package);
/* The key of a user's total. */
void cds_quota_user_key(char out[17], int uid);

/* The socket of ADDRESS_PATH (an absolute path) listening, or -errno:
 * -EINVAL (not absolute), -ENAMETOOLONG (longer than a socket's address
 * allows, with ".new"), -EEXIST (PATH or PATH.new is there and is not a
 * socket: never replaced), -EADDRINUSE (a server listens on it). */
int cds_listen(const char *path);
/* In a child of the server (a worker): lets go of the lock cds_listen()
 * holds on the path, which only the server needs (a worker that outlives
 * it must not keep a new server from starting). */
void cds_listen_release(void);
/* The listening socket systemd passed (LISTEN_FDS/LISTEN_PID), -ENOENT
 * when none was, -EINVAL when more than one or not a listening unix
 * stream socket, -EXDEV when not bound to PATH (NULL: any). */
int cds_listen_fds(const char *path);

/* What the running kernel's coredump socket can do, told by the flags
 * its PIDFD_GET_INFO knows (an old kernel takes any core_pattern string,
 * so writing one and reading it back proves nothing; systemd-coredump
 * asks the same way): 2 the request protocol ("@@", PIDFD_INFO_COREDUMP
 * and PIDFD_INFO_COREDUMP_SIGNAL), 1 the socket alone ("@",
 * PIDFD_INFO_COREDUMP), 0 neither. */
int cds_kernel_level(void);
/* The level over the 88 bytes PIDFD_GET_INFO filled for PIDFD_INFO_PID,
 * PIDFD_INFO_COREDUMP and PIDFD_INFO_SUPPORTED_MASK: 6.16 to 6.18 have
 * no supported mask, but answer PIDFD_INFO_COREDUMP: 2, and registration
 * reads "@@" back to tell 6.16 (which refuses it) from 6.17. */
int cds_level_from_info(const uint8_t *info);
/* Makes this process (and the workers it forks) not dumpable: a crash of
 * the handler must not make the kernel connect to its own socket. */
int cds_no_dump(void);
/* Registration: for LEVEL 2 writes "@@PATH" to the sysctl file SYSCTL
 * and reads it back; where the kernel kept something else, or for LEVEL
 * 1, "@PATH"; then PIPE (may be NULL: then -EOPNOTSUPP).  The pattern
 * the kernel kept, in OUT (LEN bytes), or -errno. */
int cds_register(const char *sysctl, int level, const char *path, const char *pipe, char *out, size_t len);

#endif
