/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Regression: the package note pkgnote_module_info() hands out must stay
 * readable while the core (here: this running process) lives.  The info
 * of a module once pointed into the module's ELF view, which the reader
 * frees right after reading, so reading the note's name and descriptor
 * was a heap-use-after-free (fails under AddressSanitizer).  This program
 * is linked with a package note, so its own module has one.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pkgnote.h"

int main(void) {
        pkgnote_core *c;
        int r = pkgnote_process_open(getpid(), &c);
        if (r < 0) {
                fprintf(stderr, "pkgnote_process_open: %s\n", pkgnote_last_error());
                return 1;
        }
        unsigned long sum = 0, notes = 0;
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_info *info = pkgnote_module_info(pkgnote_core_module(c, i));
                for (size_t j = 0; info && j < pkgnote_info_package_count(info); j++) {
                        const pkgnote_note *n = pkgnote_info_package_note(info, j);
                        for (uint32_t k = 0; k < n->namesz; k++)
                                sum += (unsigned char)n->name[k];
                        for (uint32_t k = 0; k < n->descsz; k++)
                                sum += n->desc[k];
                        if (n->namesz == 4 && memcmp(n->name, "FDO", 4) == 0 && strstr((const char *)n->desc, "regress-uaf"))
                                notes++;
                }
        }
        pkgnote_core_free(c);
        printf("%s - own package note read through pkgnote_module_info (%lu found, byte sum %lu)\n",
               notes == 1 ? "ok" : "not ok", notes, sum);
        return notes == 1 ? 0 : 1;
}
