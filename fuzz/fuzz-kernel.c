/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what is read of a kernel (lib/02-elf-kernel.c): the bytes as the
 * raw note stream of /sys/kernel/notes or a module's notes (both byte
 * orders), as an installed image (an x86 bzImage whose payload is decoded
 * only as far as the vmlinux's notes, or an ELF vmlinux), and as a module
 * file (ELF, or gzip, xz or zstd of one).  A build-id found must be 1 to
 * PN_KERNEL_MAX_BUILD_ID bytes, and the public call must agree with the
 * internal one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-kernel.h"
#include "pkgnote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        for (int be = 0; be < 2; be++) {
                struct pn_knotes k;
                if (pn_knotes_parse(data, size, be, "fuzz", &k) == 0) {
                        if (k.build_id_len > PN_KERNEL_MAX_BUILD_ID || k.n_packages > k.n_notes)
                                abort();
                        pn_knotes_done(&k);
                }
        }
        uint8_t id[PN_KERNEL_MAX_BUILD_ID];
        size_t n = 0;
        int r = pn_kernel_image_build_id(data, size, id, &n);
        if (r > 0 && (n == 0 || n > PN_KERNEL_MAX_BUILD_ID))
                abort();
        char *hex = NULL;
        int p = pkgnote_kernel_image_build_id(data, size, &hex);
        if ((p > 0) != (r > 0) || (p > 0 && strlen(hex) != 2 * n))
                abort();
        free(hex);
        n = 0;
        r = pn_kernel_module_build_id(data, size, id, &n);
        if (r > 0 && (n == 0 || n > PN_KERNEL_MAX_BUILD_ID))
                abort();
        return 0;
}
