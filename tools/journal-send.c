/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * journald's native protocol (systemd's "Native Journal Protocol"
 * document): one datagram on /run/systemd/journal/socket holding
 * FIELD=value lines, or, for a value holding a newline, FIELD, a newline,
 * the value's length as 64-bit little-endian, the value and a newline.  A
 * message too big for one datagram goes in a memfd, sealed so that the
 * journal may map it safely, passed as SCM_RIGHTS with no payload.
 *
 * The sender never blocks: a journal that does not keep up loses the
 * message (EAGAIN), never the caller's time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "journal-send.h"

/* Room for NEED bytes in M's buffer (NEED is at most JOURNAL_MAX_MESSAGE,
 * so doubling cannot overflow). */
static int reserve(struct journal_msg *m, size_t need) {
        if (need <= m->cap)
                return 0;
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < need)
                cap *= 2;
        void *b = realloc(m->buf, cap);
        if (!b)
                return -ENOMEM;
        m->buf = b;
        m->cap = cap;
        return 0;
}

static void put(struct journal_msg *m, const void *p, size_t n) {
        if (m->failed)
                return;
        if (n > JOURNAL_MAX_MESSAGE - m->len || reserve(m, m->len + n) < 0) {
                m->failed = true;
                return;
        }
        memcpy(m->buf + m->len, p, n);
        m->len += n;
}

void journal_add(struct journal_msg *m, const char *field, const void *value, size_t len) {
        /* A field that would pass the limit is left out whole; the rest
         * of the message still goes. */
        size_t need = strlen(field) + 10;
        if (len > JOURNAL_MAX_MESSAGE || need > JOURNAL_MAX_MESSAGE - len || need + len > JOURNAL_MAX_MESSAGE - m->len)
                return;
        put(m, field, strlen(field));
        if (memchr(value, '\n', len)) {
                uint8_t le[8];
                for (int i = 0; i < 8; i++)
                        le[i] = (uint8_t)((uint64_t)len >> (8 * i));
                put(m, "\n", 1);
                put(m, le, sizeof le);
        } else
                put(m, "=", 1);
        put(m, value, len);
        put(m, "\n", 1);
}

void journal_append(struct journal_msg *m, const struct journal_msg *fields) {
        if (!fields->failed && fields->len <= JOURNAL_MAX_MESSAGE - m->len)
                put(m, fields->buf, fields->len);
}

void journal_add_string(struct journal_msg *m, const char *field, const char *value) {
        if (value)
                journal_add(m, field, value, strlen(value));
}

void journal_addf(struct journal_msg *m, const char *field, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (n < 0) {
                m->failed = true;
                return;
        }
        journal_add(m, field, s, (size_t)n);
        free(s);
}

/* The message in a sealed memfd, or -errno. */
static int sealed_copy(const struct journal_msg *m) {
        int fd = memfd_create("journal-message", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        for (size_t off = 0; off < m->len;) {
                ssize_t n = write(fd, m->buf + off, m->len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        int r = n < 0 ? -errno : -EIO;
                        close(fd);
                        return r;
                }
                off += (size_t)n;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

int journal_send(const struct journal_msg *m, const char *socket_path) {
        if (m->failed || !m->len)
                return -ENOMEM;
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(socket_path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, socket_path, strlen(socket_path) + 1);
        int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0)
                return -errno;
        struct iovec iov = {m->buf, m->len};
        struct msghdr mh = {.msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &iov, .msg_iovlen = 1};
        int r = 0;
        if (sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
                r = -errno;
                if (r == -EMSGSIZE || r == -ENOBUFS) {
                        /* Too big for a datagram: the memfd instead. */
                        int fd = sealed_copy(m);
                        if (fd < 0)
                                r = fd;
                        else {
                                union {
                                        struct cmsghdr h;
                                        char buf[CMSG_SPACE(sizeof(int))];
                                } control;
                                memset(&control, 0, sizeof control);
                                mh.msg_iov = NULL;
                                mh.msg_iovlen = 0;
                                mh.msg_control = &control;
                                mh.msg_controllen = sizeof control;
                                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                                c->cmsg_level = SOL_SOCKET;
                                c->cmsg_type = SCM_RIGHTS;
                                c->cmsg_len = CMSG_LEN(sizeof(int));
                                memcpy(CMSG_DATA(c), &fd, sizeof fd);
                                r = sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ? -errno : 0;
                                close(fd);
                        }
                }
        }
        close(s);
        return r;
}

void journal_msg_free(struct journal_msg *m) {
        free(m->buf);
        *m = (struct journal_msg){0};
}
