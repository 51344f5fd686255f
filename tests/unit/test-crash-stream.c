/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crash stream (pkgnote_crashes_open/_next, lib/11-crash-stores.c)
 * beside pkgnote_crashes_load() over one store: systemd-coredump's
 * directory, its files named as systemd-coredump names them, in a
 * temporary directory.  The same crashes, each store in time order,
 * count() 0 and get() NULL on a stream, match and time range, the
 * options' strings copied, and this machine's ID on every crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkgnote.h"
#include "testlib.h"

#define BOOT "0123456789abcdef0123456789abcdef"

static char dir[] = "/tmp/pkgnote-test-stream.XXXXXX";

static void make_file(const char *comm, int pid, long long usec) {
        char path[512];
        snprintf(path, sizeof path, "%s/core.%s.0." BOOT ".%d.%lld", dir, comm, pid, usec);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        if (fd >= 0)
                close(fd);
}

/* The PIDs the stream of O gives, in order, into BUF; count() and get()
 * checked on the way. */
static const char *stream_pids(const pkgnote_crash_options *o, char *buf, size_t len) {
        pkgnote_crashes *l = NULL;
        buf[0] = 0;
        CHECK_INT(pkgnote_crashes_open(o, &l), 0);
        if (!l)
                return buf;
        const pkgnote_crash *c;
        int r;
        while ((r = pkgnote_crashes_next(l, &c)) > 0) {
                CHECK_INT((int)pkgnote_crashes_count(l), 0);
                CHECK(pkgnote_crashes_get(l, 0) == NULL);
                snprintf(buf + strlen(buf), len - strlen(buf), "%s%lld", buf[0] ? " " : "", (long long)pkgnote_crash_pid(c));
        }
        CHECK_INT(r, 0);
        CHECK_INT(pkgnote_crashes_next(l, &c), 0); /* the end stays the end */
        pkgnote_crashes_free(l);
        return buf;
}

static const char *load_pids(const pkgnote_crash_options *o, char *buf, size_t len) {
        pkgnote_crashes *l = NULL;
        buf[0] = 0;
        CHECK_INT(pkgnote_crashes_load(o, &l), 0);
        for (size_t i = 0; l && i < pkgnote_crashes_count(l); i++)
                snprintf(buf + strlen(buf), len - strlen(buf), "%s%lld", buf[0] ? " " : "",
                         (long long)pkgnote_crash_pid(pkgnote_crashes_get(l, i)));
        pkgnote_crashes_free(l);
        return buf;
}

static void test_stream_as_load(void) {
        /* Written out of time order: both give them in time order. */
        make_file("b", 30, 1700000300000000LL);
        make_file("a", 10, 1700000100000000LL);
        make_file("c", 20, 1700000200000000LL);
        char sd[sizeof dir];
        memcpy(sd, dir, sizeof dir);
        pkgnote_crash_options o = PKGNOTE_CRASH_OPTIONS_INIT;
        o.stores = PKGNOTE_CRASH_STORE_SYSTEMD;
        o.systemd_dir = sd;
        char a[256], b[256];
        CHECK_STR(stream_pids(&o, a, sizeof a), "10 20 30");
        CHECK_STR(load_pids(&o, b, sizeof b), "10 20 30");
        o.match = "c";
        CHECK_STR(stream_pids(&o, a, sizeof a), "20");
        o.match = NULL;
        o.since = 1700000150;
        o.until = 1700000250;
        CHECK_STR(stream_pids(&o, a, sizeof a), "20");
        CHECK_STR(load_pids(&o, b, sizeof b), "20");
}

/* The options and their strings may go once open() returns. */
static void test_options_copied(void) {
        pkgnote_crash_options *o = calloc(1, sizeof *o);
        char *sd = strdup(dir), *match = strdup("30");
        o->size = sizeof *o;
        o->stores = PKGNOTE_CRASH_STORE_SYSTEMD;
        o->systemd_dir = sd;
        o->match = match;
        pkgnote_crashes *l = NULL;
        CHECK_INT(pkgnote_crashes_open(o, &l), 0);
        memset(sd, 'x', strlen(sd));
        memset(match, 'x', strlen(match));
        free(sd);
        free(match);
        free(o);
        const pkgnote_crash *c = NULL;
        CHECK_INT(pkgnote_crashes_next(l, &c), 1);
        CHECK_INT((int)pkgnote_crash_pid(c), 30);
        /* This machine's store: this machine's ID and hostname. */
        char mid[64] = "";
        FILE *f = fopen("/etc/machine-id", "re");
        if (f && fgets(mid, sizeof mid, f))
                mid[strcspn(mid, "\n")] = 0;
        if (f)
                fclose(f);
        if (strlen(mid) == 32)
                CHECK_STR(pkgnote_crash_field(c, "machineId"), mid);
        char host[256] = "";
        if (gethostname(host, sizeof host) == 0 && host[0])
                CHECK(pkgnote_crash_field(c, "hostname") != NULL);
        CHECK_INT(pkgnote_crashes_next(l, &c), 0);
        pkgnote_crashes_free(l);
}

/* A store named that is not there: the error comes from next(). */
static void test_missing_store(void) {
        pkgnote_crash_options o = PKGNOTE_CRASH_OPTIONS_INIT;
        o.stores = PKGNOTE_CRASH_STORE_SYSTEMD;
        o.systemd_dir = "/nonexistent/pkgnote-test";
        pkgnote_crashes *l = NULL;
        CHECK_INT(pkgnote_crashes_open(&o, &l), 0);
        const pkgnote_crash *c;
        CHECK_INT(pkgnote_crashes_next(l, &c), -ENOENT);
        pkgnote_crashes_free(l);
        /* And a list of load() is no stream. */
        CHECK_INT(pkgnote_crashes_next(NULL, &c), -EINVAL);
}

int main(void) {
        if (!mkdtemp(dir))
                return 99;
        RUN(test_stream_as_load);
        RUN(test_options_copied);
        RUN(test_missing_store);
        char cmd[sizeof dir + 16];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)!system(cmd);
        return test_summary();
}
