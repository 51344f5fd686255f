/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes deps --verify of archives and images (lib/09-scan-verify.c): the
 * input, as a file, is told apart (a tar of any compression, a docker or
 * OCI archive, a SquashFS image, else the initramfs reader), read by the
 * scan's readers into an artefact (09-scan-layers.c) and checked; every
 * finding names an absolute path inside the artefact and the JSON is
 * made.  The archive and image seeds replay through it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        int fd = memfd_create("fuzz-verify-archive", MFD_CLOEXEC);
        if (fd < 0)
                return 0;
        size_t done = 0;
        while (done < size) {
                ssize_t n = write(fd, data + done, size - done);
                if (n <= 0)
                        break;
                done += (size_t)n;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        pkgnote_verify *v;
        if (done == size && pkgnote_verify_new(path, &v) == 0) {
                if (pkgnote_verify_run(v) >= 0) {
                        for (size_t i = 0; i < pkgnote_verify_count(v); i++) {
                                pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
                                if (pkgnote_verify_get(v, i, &f) != 1 || f.object[0] != '/' || strstr(f.object, "/../"))
                                        abort();
                        }
                        char *json = NULL;
                        if (pkgnote_verify_to_json(v, &json) == 0)
                                free(json);
                }
                pkgnote_verify_free(v);
        }
        close(fd);
        return 0;
}
