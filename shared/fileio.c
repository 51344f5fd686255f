/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Full reads and writes (fileio.h), for the library and the commands. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fileio.h"

int pn_write_full_room(int fd, const void *buf, size_t len, int (*room)(void *), void *userdata) {
        const uint8_t *p = buf;
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && (errno == ENOSPC || errno == EDQUOT) && room && room(userdata) > 0)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EIO;
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

int pn_write_full(int fd, const void *buf, size_t len) {
        return pn_write_full_room(fd, buf, len, NULL, NULL);
}

/* read() when OFF is negative, else pread() from OFF on. */
static ssize_t read_loop(int fd, void *buf, size_t len, int64_t off) {
        size_t done = 0;
        while (done < len) {
                ssize_t k = off < 0 ? read(fd, (uint8_t *)buf + done, len - done)
                                    : pread(fd, (uint8_t *)buf + done, len - done, (off_t)((uint64_t)off + done));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                done += (size_t)k;
        }
        return (ssize_t)done;
}

ssize_t pn_read_full(int fd, void *buf, size_t len) {
        return read_loop(fd, buf, len, -1);
}

ssize_t pn_pread_full(int fd, void *buf, size_t len, uint64_t off) {
        return off > INT64_MAX ? -EINVAL : read_loop(fd, buf, len, (int64_t)off);
}

int pn_read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        size_t cap = max < 65536 ? max : 65536, n = 0;
        char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = pn_read_full(fd, buf + n, cap - n);
                if (k < 0) {
                        free(buf);
                        return (int)k;
                }
                n += (size_t)k;
                if (n < cap)
                        break;
                /* Full: one more byte tells whether the file ends here. */
                if (cap >= max) {
                        char c;
                        k = pn_read_full(fd, &c, 1);
                        if (k != 0) {
                                free(buf);
                                return k < 0 ? (int)k : -E2BIG;
                        }
                        break;
                }
                cap = cap > max / 2 ? max : cap * 2;
                char *b = realloc(buf, cap + 1);
                if (!b) {
                        free(buf);
                        return -ENOMEM;
                }
                buf = b;
        }
        buf[n] = 0;
        *ret = buf;
        *ret_len = n;
        return 0;
}
