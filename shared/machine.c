/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "machine.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static bool lower_hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool pn_boot_id(char buf[static 33]) {
        char raw[64];
        int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n = fd < 0 ? -1 : read(fd, raw, sizeof raw - 1);
        if (fd >= 0)
                close(fd);
        size_t o = 0;
        for (ssize_t i = 0; i < n && o < 32; i++)
                if (lower_hex(raw[i]))
                        buf[o++] = raw[i];
                else if (raw[i] != '-')
                        break;
        buf[o == 32 ? o : 0] = 0;
        return o == 32;
}

void pn_read_machine_id(char buf[static 33]) {
        char raw[64];
        buf[0] = 0;
        int fd = open("/etc/machine-id", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n = fd < 0 ? -1 : read(fd, raw, sizeof raw);
        if (fd >= 0)
                close(fd);
        if (n < 32)
                return;
        for (int i = 0; i < 32; i++)
                if (!lower_hex(raw[i]))
                        return;
        if (n > 32 && raw[32] != '\n')
                return;
        memcpy(buf, raw, 32);
        buf[32] = 0;
}
