/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The helpers of shared/ that the library and the commands both link: the
 * output rule, full reads and writes, the escaping of shown text and the
 * last failure's message; linked with the shared helpers alone, which
 * proves they need nothing of lib/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "fileio.h"
#include "message.h"
#include "output.h"
#include "testlib.h"

static char dir[] = "/tmp/pkgnote-shared.XXXXXX";

static char *slurp(const char *rel, size_t *len) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, rel);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        char *text = NULL;
        if (fd < 0 || pn_read_all(fd, 1u << 20, &text, len) < 0)
                text = NULL;
        if (fd >= 0)
                close(fd);
        return text;
}

/* ------------------------------------------------------------ output */

static void test_output(void) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        pn_output o;
        /* A new file, read back before the rename. */
        CHECK_INT(pn_output_open(&o, dfd, "out", PN_OUT_EXCL), 0);
        CHECK_INT(!o.direct && !o.borrowed, 1);
        CHECK_INT(pn_write_full(o.fd, "hello\n", 6), 0);
        CHECK_INT(pn_output_verify(&o, "hellO\n", 6), -EIO);
        CHECK_INT(pn_output_verify(&o, "hello\n", 6), 0);
        CHECK_INT(pn_output_commit(&o), 0);
        size_t len = 0;
        char *t = slurp("out", &len);
        CHECK_STR(t, "hello\n");
        free(t);
        /* Aborted: the file stays as it was. */
        CHECK_INT(pn_output_open(&o, dfd, "out", 0), 0);
        CHECK_INT(pn_write_full(o.fd, "other", 5), 0);
        pn_output_abort(&o);
        t = slurp("out", &len);
        CHECK_STR(t, "hello\n");
        free(t);
        CHECK_INT(pn_output_open(&o, dfd, "out", PN_OUT_EXCL), -EEXIST);
        /* A symbolic link: refused unless followed; one to nothing always. */
        CHECK_INT(symlinkat("out", dfd, "link"), 0);
        CHECK_INT(symlinkat("nowhere", dfd, "dangling"), 0);
        CHECK_INT(pn_output_open(&o, dfd, "link", 0), -ELOOP);
        CHECK_INT(pn_output_open(&o, dfd, "dangling", PN_OUT_FOLLOW), -ENOENT);
        CHECK_INT(pn_output_open(&o, dfd, "link", PN_OUT_FOLLOW), 0);
        CHECK_INT(pn_write_full(o.fd, "via link\n", 9), 0);
        CHECK_INT(pn_output_commit(&o), 0);
        struct stat st;
        CHECK(fstatat(dfd, "link", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
        t = slurp("out", &len);
        CHECK_STR(t, "via link\n");
        free(t);
        /* A device is written in place: nothing to read back. */
        CHECK_INT(pn_output_open(&o, AT_FDCWD, "/dev/null", 0), 0);
        CHECK_INT(o.direct && !o.borrowed, 1);
        CHECK_INT(pn_output_commit(&o), 0);
        /* "-" is the process's own standard output only when asked. */
        CHECK_INT(pn_output_open(&o, AT_FDCWD, "/dev/stderr", PN_OUT_STDIO), 0);
        CHECK_INT(o.borrowed, 1);
        CHECK_INT(o.fd, STDERR_FILENO);
        pn_output_abort(&o);
        CHECK(fcntl(STDERR_FILENO, F_GETFD) >= 0);
        close(dfd);
}

/* ROOM is asked when the disk is full; /dev/full always is. */
static int room_calls;
static int no_room(void *userdata) {
        (void)userdata;
        room_calls++;
        return 0;
}

static void test_full_io(void) {
        int p[2];
        CHECK_INT(pipe(p), 0);
        CHECK_INT(pn_write_full(p[1], "abcdef", 6), 0);
        CHECK_INT(pn_write_full(p[1], NULL, 0), 0);
        close(p[1]);
        char buf[16];
        CHECK_INT(pn_read_full(p[0], buf, 4), 4);
        CHECK_INT(pn_read_full(p[0], buf, sizeof buf), 2);
        CHECK_INT(pn_read_full(p[0], buf, sizeof buf), 0);
        close(p[0]);
        /* read_all: over its limit, empty, and a bad descriptor. */
        CHECK_INT(pipe(p), 0);
        CHECK_INT(pn_write_full(p[1], "0123456789", 10), 0);
        close(p[1]);
        char *t = NULL;
        size_t len = 0;
        CHECK_INT(pn_read_all(p[0], 5, &t, &len), -E2BIG);
        CHECK(t == NULL);
        close(p[0]);
        CHECK_INT(pipe(p), 0);
        close(p[1]);
        CHECK_INT(pn_read_all(p[0], 5, &t, &len), 0);
        CHECK(t && len == 0 && t[0] == 0);
        free(t);
        close(p[0]);
        CHECK_INT(pn_read_all(-1, 5, &t, &len), -EBADF);
        int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
        if (full >= 0) {
                CHECK_INT(pn_write_full_room(full, "x", 1, no_room, NULL), -ENOSPC);
                CHECK_INT(room_calls, 1);
                close(full);
        }
}

static void test_escape(void) {
        char out[64];
        /* C0, DEL, C1 (U+0085), a byte that is no UTF-8, and a backslash. */
        const char in[] = "a\x1b[2J\x7f\xc2\x85\xff\\z\xc3\xa9";
        CHECK_INT(pn_escape(out, sizeof out, in, sizeof in - 1, true), sizeof in - 1);
        CHECK_STR(out, "a\\x1b[2J\\x7f\\xc2\\x85\\xff\\\\z\xc3\xa9");
        CHECK_INT(pn_escape(out, sizeof out, in, sizeof in - 1, false), sizeof in - 1);
        CHECK_STR(out, "a\\x1b[2J\\x7f\\xc2\\x85\\xff\\z\xc3\xa9");
        /* Escaping twice without BACKSLASH changes nothing. */
        char again[128];
        pn_escape(again, sizeof again, out, strlen(out), false);
        CHECK_STR(again, out);
        /* An embedded NUL is shown, not an end. */
        CHECK_INT(pn_escape(out, sizeof out, "a\0b", 3, false), 3);
        CHECK_STR(out, "a\\x00b");
        /* Too small: stops before what does not fit, always terminated. */
        memset(out, 'x', sizeof out);
        CHECK_INT(pn_escape(out, 4, "\x01\x02", 2, 0), false);
        CHECK_STR(out, "");
        CHECK_INT(pn_escape(out, 5, "\x01\x02", 2, 0), true);
        CHECK_STR(out, "\\x01");
        /* A UTF-8 sequence is not split. */
        CHECK_INT(pn_escape(out, 3, "a\xc3\xa9", 3, 0), true);
        CHECK_STR(out, "a");
        out[0] = 'x';
        CHECK_INT(pn_escape(out, 0, "abc", 3, 0), false);
        CHECK_INT(out[0], 'x');
        CHECK_INT(pn_escape(out, sizeof out, "", 0, 0), false);
        CHECK_STR(out, "");
}

/* ------------------------------------------------------------ message */

static void test_message(void) {
        pn_error_clear();
        CHECK_STR(pn_last_error(), "");
        /* The reason is kept escaped: input quoted in it cannot reach a
         * terminal as control characters. */
        CHECK_INT(pn_error(-EBADMSG, "'%s': bad", "a\x1b[2Jb"), -EBADMSG);
        CHECK_STR(pn_last_error(), "'a\\x1b[2Jb': bad");
        /* An output refused says why. */
        pn_output o;
        CHECK_INT(pn_output_open(&o, AT_FDCWD, dir, 0), -EISDIR);
        CHECK(strlen(pn_last_error()) > 0);
        pn_error_clear();
        CHECK_STR(pn_last_error(), "");
}

int main(void) {
        if (!mkdtemp(dir)) {
                perror("mkdtemp");
                return 99;
        }
        RUN(test_output);
        RUN(test_full_io);
        RUN(test_escape);
        RUN(test_message);
        char cmd[sizeof dir + 16];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "cannot remove %s\n", dir);
        return test_summary();
}
