/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote-coredump's side of the kernel's coredump socket
 * (tools/coredump-socket.c), driven over a socketpair whose other end
 * plays the kernel as include/uapi/linux/coredump.h describes it: the
 * request and its checks, the ack, the marker; the peer check, which a
 * process that is not dumping core fails; the quota ledger (counts,
 * bytes, the interval, concurrent takers, a hostile ledger, pruning); and
 * registration against a fixture core_pattern file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "coredump-socket.h"
#include "testlib.h"

static void pair(int sv[2]) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
                perror("socketpair");
                exit(1);
        }
}

/* The kernel's request: SIZE, SIZE_ACK, MASK, then PAD bytes of fields
 * the handler does not know, or only the first CUT bytes. */
static void kernel_request(int fd, uint32_t size, uint32_t size_ack, uint64_t mask, size_t pad, size_t cut) {
        uint8_t b[64] = {0};
        memcpy(b, &size, 4);
        memcpy(b + 4, &size_ack, 4);
        memcpy(b + 8, &mask, 8);
        memset(b + 16, 0xAB, pad);
        b[16 + pad] = 0x5a; /* not part of the request: the next thing sent */
        size_t n = cut ? cut : 16 + pad + 1;
        if (write(fd, b, n) != (ssize_t)n)
                perror("write");
}

static const uint64_t ALL = CDS_KERNEL | CDS_USERSPACE | CDS_REJECT | CDS_WAIT;

static void test_request(void) {
        int sv[2];
        struct cds_request req = {0};
        pair(sv);
        kernel_request(sv[1], 16, 16, ALL, 0, 0);
        CHECK_INT(cds_read_request(sv[0], &req), 0);
        CHECK_INT(req.size, 16);
        CHECK_INT(req.size_ack, 16);
        CHECK(req.mask == ALL);
        uint8_t next = 0;
        CHECK_INT(read(sv[0], &next, 1), 1);
        CHECK_INT(next, 0x5a);
        close(sv[0]);
        close(sv[1]);

        /* A larger request of a newer kernel: the unknown part is read
         * and dropped, nothing past it. */
        pair(sv);
        kernel_request(sv[1], 40, 24, ALL | (1ull << 5), 24, 0);
        CHECK_INT(cds_read_request(sv[0], &req), 0);
        CHECK_INT(req.size, 40);
        CHECK_INT(read(sv[0], &next, 1), 1);
        CHECK_INT(next, 0x5a);
        close(sv[0]);
        close(sv[1]);

        struct {
                uint32_t size, size_ack;
                uint64_t mask;
                size_t cut;
                const char *what;
        } bad[] = {
                {8, 16, ALL, 0, "size under the first struct's"},
                {5000, 16, ALL, 0, "size over CDS_REQ_SIZE_MAX"},
                {16, 8, ALL, 0, "ack size under the first struct's"},
                {16, 16, CDS_KERNEL | CDS_WAIT, 0, "no COREDUMP_REJECT offered"},
                {16, 16, CDS_REJECT | CDS_WAIT, 0, "no COREDUMP_KERNEL offered"},
                {16, 16, ALL, 9, "cut in its middle"},
                {32, 16, ALL, 20, "cut in the unknown part"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                pair(sv);
                kernel_request(sv[1], bad[i].size, bad[i].size_ack, bad[i].mask, 0, bad[i].cut);
                shutdown(sv[1], SHUT_WR);
                int r = cds_read_request(sv[0], &req);
                if (r != -EBADMSG)
                        fprintf(stderr, "request %s: %d\n", bad[i].what, r);
                CHECK_INT(r, -EBADMSG);
                close(sv[0]);
                close(sv[1]);
        }
        /* Every truncated prefix of a valid request, and of a longer one
         * cut inside its unknown part, fails cleanly. */
        for (size_t cut = 1; cut < 16 + 8; cut++) {
                pair(sv);
                kernel_request(sv[1], cut < 16 ? 16 : 24, 16, ALL, cut < 16 ? 0 : 8, cut);
                shutdown(sv[1], SHUT_WR);
                int r = cds_read_request(sv[0], &req);
                if (r != -EBADMSG)
                        fprintf(stderr, "request cut at %zu: %d\n", cut, r);
                CHECK_INT(r, -EBADMSG);
                close(sv[0]);
                close(sv[1]);
        }
        /* Nothing at all. */
        pair(sv);
        close(sv[1]);
        CHECK_INT(cds_read_request(sv[0], &req), -EBADMSG);
        close(sv[0]);
}

static void test_ack_marker(void) {
        int sv[2];
        pair(sv);
        struct cds_request req = {16, 16, ALL};
        CHECK_INT(cds_send_ack(sv[0], &req, CDS_KERNEL | CDS_WAIT), 0);
        uint8_t b[16];
        CHECK_INT(read(sv[1], b, sizeof b), 16);
        uint32_t size;
        uint64_t mask;
        memcpy(&size, b, 4);
        memcpy(&mask, b + 8, 8);
        CHECK_INT(size, 16);
        CHECK(mask == (CDS_KERNEL | CDS_WAIT));
        CHECK_INT(cds_send_ack(sv[0], &req, CDS_REJECT | CDS_WAIT), 0);
        CHECK_INT(read(sv[1], b, sizeof b), 16);
        memcpy(&mask, b + 8, 8);
        CHECK(mask == (CDS_REJECT | CDS_WAIT));
        /* A bit the kernel did not offer is never sent. */
        struct cds_request old = {16, 16, CDS_KERNEL | CDS_REJECT | CDS_WAIT};
        CHECK_INT(cds_send_ack(sv[0], &old, CDS_USERSPACE), -EINVAL);

        uint32_t m = 0;
        CHECK_INT(write(sv[1], &m, 4), 4);
        CHECK_INT(cds_read_marker(sv[0]), 0);
        m = 3; /* COREDUMP_MARK_UNSUPPORTED */
        CHECK_INT(write(sv[1], &m, 4), 4);
        CHECK_INT(cds_read_marker(sv[0]), 3);
        m = 0x80000000u;
        CHECK_INT(write(sv[1], &m, 4), 4);
        CHECK_INT(cds_read_marker(sv[0]), -EBADMSG);
        CHECK_INT(write(sv[1], &m, 2), 2);
        close(sv[1]);
        CHECK_INT(cds_read_marker(sv[0]), -EBADMSG);
        close(sv[0]);
}

/* This process is no crashing one: its connection is refused, whoever
 * runs the test (on the pidfd's coredump mask). */
static void test_peer(void) {
        int sv[2];
        pair(sv);
        struct cds_peer peer = {.pidfd = -1};
        const char *why = NULL;
        int r = cds_peer_check(sv[0], false, &peer, &why);
        if (r == -ENOPROTOOPT || r == -ENOTTY || r == -EINVAL) {
                printf("# the kernel has no SO_PEERPIDFD or PIDFD_INFO_COREDUMP (%s): peer check untested\n",
                       strerror(-r));
        } else {
                CHECK_INT(r, -EPERM);
                CHECK(why != NULL);
                if (why)
                        printf("# refused: %s\n", why);
                if (why)
                        CHECK_STR(why, "the process behind it is not dumping core");
        }
        CHECK_INT(peer.pidfd, -1);
        close(sv[0]);
        close(sv[1]);
        /* The pidfd of a child that exited is no longer alive. */
        pid_t p = fork();
        if (p == 0)
                _exit(0);
        int pidfd = (int)syscall(SYS_pidfd_open, p, 0);
        CHECK(pidfd >= 0);
        CHECK_INT(cds_pidfd_alive(pidfd), 1); /* a zombie still is the process */
        waitpid(p, NULL, 0);
        CHECK_INT(cds_pidfd_alive(pidfd), 0);
        close(pidfd);
        int lvl = cds_kernel_level();
        CHECK(lvl >= 0 && lvl <= 2);
        printf("# this kernel's coredump socket level: %d\n", lvl);
}

static void put32(uint8_t *p, uint32_t v) {
        memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v) {
        memcpy(p, &v, 8);
}

/* What PIDFD_GET_INFO fills for a process of user 1000 dumping core with
 * SIGSEGV: the kernel connects with that process's credentials, and the
 * connection is the kernel's all the same. */
static void test_peer_info(void) {
        uint8_t info[88] = {0};
        put64(info, (1u << 0) | (1u << 1) | (1u << 4) | (1u << 6)); /* PID CREDS COREDUMP COREDUMP_SIGNAL */
        put32(info + 16, 4243);                                    /* pid (a thread) */
        put32(info + 20, 4242);                                    /* tgid */
        put32(info + 28, 1000);                                    /* ruid */
        put32(info + 32, 1001);                                    /* rgid */
        put32(info + 64, 1);                                       /* PIDFD_COREDUMPED */
        put32(info + 68, 11);
        struct cds_peer peer = {.pidfd = 7};
        const char *why = NULL;
        CHECK_INT(cds_peer_from_info(4242, info, false, &peer, &why), 0);
        CHECK_INT(peer.pid, 4242);
        CHECK_INT(peer.uid, 1000);
        CHECK_INT(peer.gid, 1001);
        CHECK_INT(peer.signal, 11);
        CHECK_INT(peer.pidfd, -1);
        /* SO_PEERCRED's process is not the pidfd's: refused. */
        why = NULL;
        CHECK_INT(cds_peer_from_info(4243, info, false, &peer, &why), -EPERM);
        CHECK(why != NULL);
        CHECK_INT(cds_peer_from_info(0, info, false, &peer, &why), -EPERM);
        /* Not dumping core: refused whoever it is. */
        put32(info + 64, 0);
        CHECK_INT(cds_peer_from_info(4242, info, false, &peer, &why), -EPERM);
        if (why)
                CHECK_STR(why, "the process behind it is not dumping core");
        put32(info + 64, 1);
        put64(info, (1u << 0) | (1u << 1)); /* a kernel without PIDFD_INFO_COREDUMP */
        CHECK_INT(cds_peer_from_info(4242, info, false, &peer, &why), -EPERM);
        /* The tests' peer (PKGNOTE_COREDUMP_TEST_PEER) need not dump core,
         * but SO_PEERCRED and the pidfd must still name one process. */
        put64(info, (1u << 0) | (1u << 1) | (1u << 4));
        put32(info + 64, 0);
        CHECK_INT(cds_peer_from_info(4242, info, true, &peer, &why), 0);
        CHECK_INT(peer.pid, 4242);
        CHECK_INT(peer.signal, 0);
        CHECK_INT(cds_peer_from_info(4243, info, true, &peer, &why), -EPERM);
        if (why)
                CHECK_STR(why, "its SO_PEERCRED process is not the one of its pidfd");
}

static void test_level(void) {
        uint8_t info[88] = {0};
        /* 6.16 to 6.18 (this answer is 6.18.44's): no supported mask, but
         * PIDFD_INFO_COREDUMP answered: "@@" is tried (6.16 refuses it,
         * and registration falls back to "@"). */
        put64(info, 0x17);
        CHECK_INT(cds_level_from_info(info), 2);
        /* Before 6.16: no PIDFD_INFO_COREDUMP. */
        put64(info, 0x7);
        CHECK_INT(cds_level_from_info(info), 0);
        /* 6.19+: the supported mask, at 80 (88-byte struct) or 72. */
        put64(info, 0x17 | (1u << 5));
        put64(info + 80, (1u << 0) | (1u << 4) | (1u << 6));
        CHECK_INT(cds_level_from_info(info), 2);
        put64(info + 80, 0);
        put64(info + 72, (1u << 0) | (1u << 4));
        CHECK_INT(cds_level_from_info(info), 1);
}

/* The server makes itself (and its workers) not dumpable. */
static void test_no_dump(void) {
        pid_t p = fork();
        if (p == 0)
                _exit(cds_no_dump() == 0 && prctl(PR_GET_DUMPABLE) == 0 ? 0 : 1);
        int st = 0;
        waitpid(p, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_INT(prctl(PR_GET_DUMPABLE), 1); /* the test itself untouched */
}

static char dir[] = "/tmp/test-coredump-socket.XXXXXX";

/* The quota is per user; one user's total over every program is bounded;
 * a place is given back; lines from the future do not count. */
static void test_quota_users(void) {
        char sub[300];
        snprintf(sub, sizeof sub, "%s/users", dir);
        CHECK_INT(mkdir(sub, 0700), 0);
        int dirfd = open(sub, O_RDONLY | O_DIRECTORY);
        CHECK(dirfd >= 0);
        struct cds_quota q = {10, 0, 3600};
        struct cds_usage u;
        int64_t t = 1700000000;
        char k1000[17], k0[17], u1000[17], u0[17];
        cds_quota_key(k1000, 1000, "/usr/bin/sleep", "coreutils/9.4");
        cds_quota_key(k0, 0, "/usr/bin/sleep", "coreutils/9.4");
        cds_quota_user_key(u1000, 1000);
        cds_quota_user_key(u0, 0);
        CHECK(strcmp(k1000, k0) != 0);
        CHECK(strcmp(u1000, u0) != 0);
        for (int i = 0; i < 10; i++)
                CHECK_INT(cds_quota_take(dirfd, k1000, u1000, &q, t + i, &u), 1);
        CHECK_INT(cds_quota_take(dirfd, k1000, u1000, &q, t + 10, &u), 0);
        /* User 1000's ten crashes of sleep leave root's quota whole. */
        CHECK_INT(cds_quota_take(dirfd, k0, u0, &q, t + 11, &u), 1);
        CHECK_INT(u.count, 0);

        /* Renaming the program: each name its own quota of 2, the user's
         * total 2 * CDS_QUOTA_USER_FACTOR over all of them. */
        struct cds_quota q2 = {2, 0, 3600};
        char k[17], uk[17];
        cds_quota_user_key(uk, 2000);
        int taken = 0, refused_total = 0;
        for (int n = 0; n < 20; n++) {
                char prog[64];
                snprintf(prog, sizeof prog, "/tmp/renamed%d", n);
                cds_quota_key(k, 2000, prog, "");
                for (int i = 0; i < 2; i++) {
                        int r = cds_quota_take(dirfd, k, uk, &q2, t + n, &u);
                        taken += r == 1;
                        refused_total += r == 0 && u.user_total;
                }
        }
        CHECK_INT(taken, 2 * CDS_QUOTA_USER_FACTOR);
        CHECK_INT(refused_total, 40 - 2 * CDS_QUOTA_USER_FACTOR);

        /* Given back: a core counted but never stored frees its place. */
        char g[17], ug[17];
        cds_quota_key(g, 3000, "/bin/g", "");
        cds_quota_user_key(ug, 3000);
        struct cds_quota q3 = {3, 0, 3600};
        for (int i = 0; i < 3; i++)
                CHECK_INT(cds_quota_take(dirfd, g, ug, &q3, t, &u), 1);
        CHECK_INT(cds_quota_take(dirfd, g, ug, &q3, t, &u), 0);
        CHECK_INT(cds_quota_give_back(dirfd, g, ug, t, 0), 0);
        CHECK_INT(cds_quota_take(dirfd, g, ug, &q3, t + 1, &u), 1);
        CHECK_INT(u.count, 2);
        /* The same, by the line made ahead for a signal handler. */
        char line[CDS_LEDGER_EVENT_MAX];
        int n = cds_quota_give_back_line(line, sizeof line, g, ug, t, 0);
        CHECK(n > 0 && (size_t)n < sizeof line && line[n - 1] == '\n');
        CHECK_INT(cds_quota_give_back_raw(dirfd, line, (size_t)n), 0);
        CHECK_INT(cds_quota_take(dirfd, g, ug, &q3, t + 2, &u), 1);
        CHECK_INT(u.count, 2);
        CHECK_INT(cds_quota_take(dirfd, g, ug, &q3, t + 2, &u), 0);
        CHECK_INT(cds_quota_give_back_line(line, 20, g, ug, t, 0), -ENAMETOOLONG);

        /* A place given back takes its bytes back too. */
        char b[17];
        cds_quota_key(b, 3500, "/bin/b", "");
        struct cds_quota qb = {0, 1500, 3600};
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &qb, t, &u), 1);
        CHECK_INT(cds_quota_add_bytes(dirfd, b, NULL, t, 1000), 0);
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &qb, t, &u), 1);
        CHECK_INT(cds_quota_add_bytes(dirfd, b, NULL, t, 1000), 0);
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &qb, t, &u), 0);
        CHECK(u.bytes == 2000);
        n = cds_quota_give_back_line(line, sizeof line, b, NULL, t, 1000);
        CHECK(n > 0);
        CHECK_INT(cds_quota_give_back_raw(dirfd, line, (size_t)n), 0);
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &qb, t, &u), 1);
        CHECK(u.bytes == 1000 && u.count == 1);
        CHECK_INT(cds_quota_give_back(dirfd, b, NULL, t, 5000), 0); /* never below 0 */
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &qb, t, &u), 1);
        CHECK(u.bytes == 0 && u.count == 1);

        /* The ledger's lock held elsewhere (another open of it): the
         * signal handler's give-back waits a bounded time, then fails. */
        int held = openat(dirfd, ".quota.lock", O_RDWR);
        CHECK(held >= 0 && flock(held, LOCK_EX) == 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(cds_quota_give_back_raw(dirfd, line, (size_t)n), -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        CHECK(took >= CDS_LEDGER_LOCK_MS / 2000.0 - 0.5 && took < 60);
        close(held);
        CHECK_INT(cds_quota_give_back_raw(dirfd, line, (size_t)n), 0);

        /* Lines dated ahead of the clock (set back since) count not. */
        char f[17];
        cds_quota_key(f, 4000, "/bin/f", "");
        int fd = openat(dirfd, ".quota", O_WRONLY | O_APPEND);
        CHECK(fd >= 0);
        for (int i = 0; i < 5; i++)
                dprintf(fd, "%lld 1 0 %s\n", (long long)t + 86400 * 30, f);
        close(fd);
        CHECK_INT(cds_quota_take(dirfd, f, NULL, &q3, t, &u), 1);
        CHECK_INT(u.count, 0);
        close(dirfd);
}

static void test_quota(void) {
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
        CHECK(dirfd >= 0);
        char a[17], b[17], c[17];
        cds_quota_key(a, 0, "/usr/bin/crasher", "crasher/1.0");
        cds_quota_key(b, 0, "/usr/bin/crasher", "crasher/1.1");
        cds_quota_key(c, 0, "/usr/bin/crasher1.1", "crasher/");
        CHECK(strcmp(a, b) != 0);
        CHECK(strlen(a) == 16);
        cds_quota_key(c, 0, "/usr/bin/crasher/1.0", ""); /* no pair reads as another */
        CHECK(strcmp(a, c) != 0);
        struct cds_quota q = {3, 0, 3600};
        struct cds_usage u;
        int64_t t = 1700000000;
        for (int i = 0; i < 3; i++) {
                CHECK_INT(cds_quota_take(dirfd, a, NULL, &q, t + i, &u), 1);
                CHECK_INT(u.count, i);
        }
        CHECK_INT(cds_quota_take(dirfd, a, NULL, &q, t + 10, &u), 0);
        CHECK_INT(u.count, 3);
        CHECK_INT(cds_quota_take(dirfd, a, NULL, &q, t + 11, &u), 0);
        /* Another version of the program has its own quota. */
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &q, t + 12, &u), 1);
        CHECK_INT(u.count, 0);
        /* Past the interval the first crashes no longer count. */
        CHECK_INT(cds_quota_take(dirfd, a, NULL, &q, t + 3601, &u), 1);
        CHECK_INT(u.count, 2);

        /* Bytes: the core that crosses the bound is kept, the next not. */
        struct cds_quota qb = {0, 100, 3600};
        CHECK_INT(cds_quota_take(dirfd, c, NULL, &qb, t, &u), 1);
        CHECK_INT(cds_quota_add_bytes(dirfd, c, NULL, t, 150), 0);
        CHECK_INT(cds_quota_take(dirfd, c, NULL, &qb, t + 1, &u), 0);
        CHECK_INT(u.bytes, 150);

        /* A hostile ledger: garbage, an over-long line, counts out of
         * range, are skipped; the lines after them still count. */
        int fd = openat(dirfd, ".quota", O_WRONLY | O_APPEND);
        CHECK(fd >= 0);
        char big[5000];
        memset(big, 'x', sizeof big);
        big[sizeof big - 1] = '\n';
        CHECK_INT(write(fd, big, sizeof big), (ssize_t)sizeof big);
        char key_d[17];
        cds_quota_key(key_d, 0, "/bin/d", "");
        dprintf(fd, "garbage\n%lld 7 0 %s\n-5 1 0 %s\n%lld 1 0 %s\n", (long long)t, key_d, key_d, (long long)t, key_d);
        close(fd);
        struct cds_quota q1 = {2, 0, 3600};
        CHECK_INT(cds_quota_take(dirfd, key_d, NULL, &q1, t + 1, &u), 1);
        CHECK_INT(u.count, 1);
        CHECK_INT(cds_quota_take(dirfd, key_d, NULL, &q1, t + 2, &u), 0);

        /* Concurrent takers (20 processes, a quota of 3): exactly 3 win. */
        char e[17];
        cds_quota_key(e, 0, "/bin/flood", "flood/1");
        int wins = 0;
        pid_t kids[20];
        for (int i = 0; i < 20; i++) {
                kids[i] = fork();
                if (kids[i] == 0)
                        _exit(cds_quota_take(dirfd, e, NULL, &q, t, &u) == 1 ? 0 : 1);
        }
        for (int i = 0; i < 20; i++) {
                int st;
                waitpid(kids[i], &st, 0);
                wins += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        }
        CHECK_INT(wins, 3);

        /* Pruning: a ledger past CDS_LEDGER_MAX loses its expired lines. */
        fd = openat(dirfd, ".quota", O_WRONLY | O_APPEND);
        for (int i = 0; i < 10000; i++)
                dprintf(fd, "%d 1 0 %s\n", 1000 + i, e);
        close(fd);
        struct stat st;
        CHECK_INT(fstatat(dirfd, ".quota", &st, 0), 0);
        CHECK(st.st_size > (off_t)CDS_LEDGER_MAX);
        CHECK_INT(cds_quota_take(dirfd, b, NULL, &q, t + 13, &u), 1);
        CHECK_INT(u.count, 1);
        CHECK_INT(fstatat(dirfd, ".quota", &st, 0), 0);
        CHECK(st.st_size < 4096);
        /* What was within the interval survived it. */
        CHECK_INT(cds_quota_take(dirfd, e, NULL, &q, t + 14, &u), 0);
        CHECK_INT(u.count, 3);
        close(dirfd);
}

static void test_register(void) {
        char path[256], out[512], back[512];
        snprintf(path, sizeof path, "%s/core_pattern", dir);
        FILE *f = fopen(path, "w");
        fputs("|/old/handler %P\n", f);
        fclose(f);
        CHECK_INT(cds_register(path, 2, "/run/pkgnote/coredump.socket", "|/h %P", out, sizeof out), 0);
        CHECK_STR(out, "@@/run/pkgnote/coredump.socket");
        f = fopen(path, "r");
        back[0] = 0;
        CHECK(fgets(back, sizeof back, f) != NULL);
        fclose(f);
        CHECK_STR(back, "@@/run/pkgnote/coredump.socket");
        CHECK_INT(cds_register(path, 1, "/run/s", "|/h %P", out, sizeof out), 0);
        CHECK_STR(out, "@/run/s");
        CHECK_INT(cds_register(path, 0, "/run/s", "|/h %P", out, sizeof out), 0);
        CHECK_STR(out, "|/h %P");
        CHECK_INT(cds_register(path, 0, "/run/s", NULL, out, sizeof out), -EOPNOTSUPP);
        CHECK_INT(cds_register(path, 2, "run/s", NULL, out, sizeof out), -EINVAL);
        /* A file that keeps nothing written (as a kernel refusing every
         * pattern would): each is tried in turn, then the failure. */
        CHECK_INT(cds_register("/dev/null", 2, "/run/s", "|/h %P", out, sizeof out), -EINVAL);
        char missing[300];
        snprintf(missing, sizeof missing, "%s/none/core_pattern", dir);
        CHECK_INT(cds_register(missing, 2, "/run/s", NULL, out, sizeof out), -ENOENT);
}

static void test_listen(void) {
        char path[256];
        snprintf(path, sizeof path, "%s/s.socket", dir);
        /* A server of another process listens on it (holding its lock):
         * not taken from it.  Once it is gone, its socket file left
         * behind is replaced. */
        int ready[2];
        CHECK(pipe(ready) == 0);
        pid_t srv = fork();
        if (srv == 0) {
                int lfd = cds_listen(path);
                char c = lfd >= 0 ? 'y' : 'n';
                (void)!write(ready[1], &c, 1);
                pause();
                _exit(0);
        }
        close(ready[1]);
        char c = 0;
        CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
        struct stat st;
        CHECK_INT(stat(path, &st), 0);
        CHECK(S_ISSOCK(st.st_mode));
        CHECK_INT(st.st_mode & 0777, 0600);
        CHECK_INT(cds_listen(path), -EADDRINUSE);
        kill(srv, SIGKILL);
        waitpid(srv, NULL, 0);
        close(ready[0]);
        int fd = cds_listen(path);
        CHECK(fd >= 0);
        close(fd);
        /* A listening socket bound there by another program (as
         * systemd's socket unit is), no lock of this one's: not taken
         * (it was asked by a connection, which it sees). */
        char other[100];
        snprintf(other, sizeof other, "%s/other.socket", dir);
        int o = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", other);
        CHECK(o >= 0 && bind(o, (struct sockaddr *)&sa, sizeof sa) == 0);
        CHECK(listen(o, 4) == 0);
        CHECK_INT(cds_listen(other), -EADDRINUSE);
        int asked = accept4(o, NULL, NULL, SOCK_CLOEXEC);
        CHECK(asked >= 0);
        if (asked >= 0)
                close(asked);
        close(o);
        /* Once it is gone, its file is stale: replaced. */
        fd = cds_listen(other);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INT(cds_listen("relative"), -EINVAL);
        char longp[200];
        memset(longp, 'a', sizeof longp - 1);
        longp[0] = '/';
        longp[sizeof longp - 1] = 0;
        CHECK_INT(cds_listen(longp), -ENAMETOOLONG);
        /* What is not a socket is never replaced, at either name. */
        char file[300], newname[310];
        snprintf(file, sizeof file, "%s/plain", dir);
        snprintf(newname, sizeof newname, "%s.new", file);
        int w = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
        CHECK(w >= 0 && write(w, "kept", 4) == 4);
        close(w);
        CHECK_INT(cds_listen(file), -EEXIST);
        struct stat fs;
        CHECK(stat(file, &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_size == 4);
        CHECK(rename(file, newname) == 0);
        CHECK_INT(cds_listen(file), -EEXIST);
        CHECK(stat(newname, &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_size == 4);
        CHECK(lstat(file, &fs) < 0 && errno == ENOENT);
        unsetenv("LISTEN_PID");
        CHECK_INT(cds_listen_fds(NULL), -ENOENT);
}

int main(void) {
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 1;
        }
        RUN(test_request);
        RUN(test_ack_marker);
        RUN(test_peer);
        RUN(test_peer_info);
        RUN(test_level);
        RUN(test_no_dump);
        RUN(test_quota);
        RUN(test_quota_users);
        RUN(test_register);
        RUN(test_listen);
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        return test_summary();
}
