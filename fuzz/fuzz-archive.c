/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes archive scans: the input is a tar or cpio archive (a root
 * filesystem, a docker save archive or an OCI layout), read once from a
 * seekable file (layers read by offset) and once from a pipe (layers
 * streamed), and also a member name for the path normaliser.  Member
 * names, whiteouts, hard links, nested layers and the merge all run;
 * every object reported must have an absolute normalised path.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "09-scan-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A pipe holds this much without a reader (F_SETPIPE_SZ's default cap). */
#define MAX_INPUT (64u << 10)

static bool write_all(int fd, const uint8_t *data, size_t size) {
        while (size) {
                ssize_t n = write(fd, data, size);
                if (n <= 0)
                        return false;
                data += n, size -= (size_t)n;
        }
        return true;
}

static void check_paths(const pkgnote_scan *s) {
        char norm[PKGNOTE_MAX_SCAN_PATH + 1];
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const char *p = pkgnote_scan_object_path(pkgnote_scan_object_get(s, i));
                if (p[0] != '/' || pn_path_normalize(p + 1, norm, sizeof norm) < 0 || strcmp(norm, p + 1) != 0)
                        abort();
        }
}

static void scan_fd(int fd) {
        pkgnote_scan *s;
        /* With the dynamic sections' names, resolved through the links. */
        pkgnote_scan_options o = {.threads = 1, .max_member = 1u << 20, .flags = PKGNOTE_SCAN_DEPENDENCIES};
        if (pkgnote_scan_new(&o, &s) < 0)
                return;
        /* As an input named on the command line is read: told by the
         * format table, then read by its reader. */
        uint8_t head[PN_SCAN_HEAD];
        struct stat st;
        ssize_t n = pread(fd, head, sizeof head, 0);
        if (n >= 0 && fstat(fd, &st) == 0) {
                const struct pn_scan_format *f = pn_scan_format_bid(head, (size_t)n, PN_AT_INPUT, false);
                struct pn_scan_place pl = {.at = PN_AT_INPUT, .path = "fuzz", .display = "fuzz", .st = &st};
                if (pn_scan_format_read(s, f, 0, fd, &pl) >= 0)
                        check_paths(s);
        }
        pkgnote_scan_free(s);
}

/* Normalised: no empty, "." or ".." component (so no "/" at either
 * end), and normalising again changes nothing. */
static void normalize(const uint8_t *data, size_t size) {
        char in[PKGNOTE_MAX_SCAN_PATH + 64], out[PKGNOTE_MAX_SCAN_PATH + 1], again[PKGNOTE_MAX_SCAN_PATH + 1];
        size_t n = size < sizeof in - 1 ? size : sizeof in - 1;
        memcpy(in, data, n);
        in[n] = 0;
        int k = pn_path_normalize(in, out, sizeof out);
        if (k < 0)
                return;
        if ((size_t)k != strlen(out))
                abort();
        for (const char *c = out; k > 0;) {
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                        abort();
                if (!c[len])
                        break;
                c += len + 1;
                if (!*c)
                        abort();
        }
        if (pn_path_normalize(out, again, sizeof again) != k || strcmp(out, again) != 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        normalize(data, size);
        int fd = memfd_create("fuzz-archive", MFD_CLOEXEC);
        if (fd >= 0) {
                if (write_all(fd, data, size))
                        scan_fd(fd);
                close(fd);
        }
        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
                (void)fcntl(p[1], F_SETPIPE_SZ, MAX_INPUT);
                bool ok = write_all(p[1], data, size);
                close(p[1]);
                if (ok)
                        scan_fd(p[0]);
                close(p[0]);
        }
        return 0;
}
