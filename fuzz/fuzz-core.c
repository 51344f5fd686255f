/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the core reader: bytes -> pkgnote_core_from_memory (disk reading
 * off) -> process facts, threads, every module with its build-id, source,
 * reason and package notes, the problems -> every accessor, the JSON
 * report (parsed back), and each module's image as the unwinder rebuilds
 * it from the dumped pages (no libdw needed: the image is only built).
 * A compressed input (zstd, xz, lz4, as systemd-coredump stores cores) is
 * decompressed as for a stack trace, with the bytes kept in memory
 * lowered to 64 KiB so that the rest goes to an unlinked temporary file:
 * the result must be as long as the stream, readable, and the core read
 * from it (with PKGNOTE_CORE_DECOMPRESS_ONCE) as from memory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "08-core-private.h"
#include "pkgnote.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Enough for headers, CORE notes and a few dumped pages; bigger inputs
 * only slow the fuzzer down. */
#define MAX_INPUT (1u << 20)

/* Decompressed output allowed per input: a bomb stops there. */
#define MAX_DECOMPRESSED (32u << 20)

static void compressed(const uint8_t *data, size_t size) {
        int in = memfd_create("fuzz-core", MFD_CLOEXEC);
        if (in < 0)
                return;
        struct pn_core_source *s = NULL;
        int out = -1;
        char why[512];
        if (write(in, data, size) == (ssize_t)size && lseek(in, 0, SEEK_SET) == 0 && pn_core_source_open(in, &s) == 0 &&
            s && pn_core_source_compressed(s) &&
            pn_core_source_decompress(s, MAX_DECOMPRESSED, 64u << 10, &out, why, sizeof why) == 0) {
                struct stat st;
                uint8_t b;
                if (fstat(out, &st) < 0 || (st.st_size > 0 && pread(out, &b, 1, 0) != 1) || strlen(why) >= sizeof why)
                        abort();
                pkgnote_core *c = NULL;
                if (lseek(in, 0, SEEK_SET) == 0) {
                        pkgnote_core_options o = {.size = sizeof o, .no_disk = 1, .flags = PKGNOTE_CORE_DECOMPRESS_ONCE};
                        if (pkgnote_core_open_fd(in, &o, &c) == 0)
                                sink += pkgnote_core_module_count(c) + pkgnote_core_bytes_read(c);
                        pkgnote_core_free(c);
                }
        }
        if (out >= 0)
                close(out);
        pn_core_source_free(s);
        close(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > MAX_INPUT)
                return 0;
        if (size >= 4 && (!memcmp(data, "\x28\xb5\x2f\xfd", 4) || !memcmp(data, "\xfd" "7zXZ", 4) ||
                          !memcmp(data, "\x04\x22\x4d\x18", 4)))
                compressed(data, size);
        /* A private copy so ASan catches reads past the end exactly. */
        uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return 0;
        if (size)
                memcpy(buf, data, size);

        static const pkgnote_core_options opts = {.no_disk = 1};
        pkgnote_core *c = NULL;
        if (pkgnote_core_from_memory(buf, size, &opts, &c) < 0) {
                const char *e = pkgnote_last_error();
                if (!e || !*e)
                        abort(); /* every failure says why */
                free(buf);
                return 0;
        }

        pkgnote_process_info p = {.size = sizeof p};
        if (pkgnote_core_process(c, &p) < 0)
                abort();
        touch_str(p.command);
        touch_str(p.arguments);
        touch_str(p.executable);
        sink += (size_t)p.pid + (size_t)p.tid + (size_t)p.ppid + (size_t)p.uid + (size_t)p.gid + (size_t)p.signal;
        sink += (size_t)p.fault_address + (size_t)p.elf_class + p.machine;
        touch_str(pkgnote_signal_name(p.signal));
        touch_str(pkgnote_machine_name(p.machine, p.elf_class));
        if (pkgnote_core_thread_count(c) > PKGNOTE_MAX_THREADS)
                abort();
        for (size_t i = 0; i < pkgnote_core_thread_count(c); i++)
                touch(pkgnote_core_thread(c, i), sizeof(pkgnote_thread_info));

        size_t n = pkgnote_core_module_count(c);
        if (n > PKGNOTE_MAX_MODULES + 1 /* the vDSO */)
                abort();
        uint64_t prev = 0;
        for (size_t i = 0; i < n; i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                if (!m || !pkgnote_module_path(m))
                        abort();
                touch_str(pkgnote_module_path(m));
                if (pkgnote_module_start(m) < prev)
                        abort(); /* documented: address order */
                prev = pkgnote_module_start(m);
                sink += pkgnote_module_end(m);
                touch_str(pkgnote_module_build_id(m));
                touch_str(pkgnote_module_disk_build_id(m));
                touch_str(pkgnote_module_reason(m));
                if (!pkgnote_module_found_by(m))
                        abort(); /* every module says how it was found */
                touch_str(pkgnote_module_found_by(m));
                int src = pkgnote_module_source(m);
                if (src == PKGNOTE_SOURCE_DISK || src == PKGNOTE_SOURCE_DISK_MISMATCH)
                        abort(); /* disk reading is off */
                touch_str(pkgnote_source_name(src));
                sink += (size_t)pkgnote_module_is_vdso(m) + (size_t)pkgnote_module_deleted(m);
                const pkgnote_info *info = pkgnote_module_info(m);
                if (info)
                        touch_info_and_copy(info);
                uint8_t *img;
                size_t img_len;
                int r = pn_core_module_image(c, buf, size, pkgnote_module_start(m), &img, &img_len);
                if (r > 0) {
                        if (img_len < 52 || memcmp(img, "\177ELF", 4))
                                abort(); /* an image starts with the module's ELF header */
                        touch(img, img_len);
                        free(img);
                } else if (r < 0 && r != -ENOMEM)
                        abort();
        }
        if (pkgnote_core_module(c, n))
                abort();
        const pkgnote_module *main = pkgnote_core_main_module(c);
        if (main)
                touch_str(pkgnote_module_path(main));
        for (size_t i = 0; i < pkgnote_core_problem_count(c); i++)
                touch_problem(pkgnote_core_problem(c, i), true);
        sink += pkgnote_core_bytes_read(c);
        char *j;
        touch_json(pkgnote_core_to_json(c, NULL, NULL, 0, &j), &j);
        /* systemd's shape walks the dynamic linker's list for names. */
        touch_json(pkgnote_core_to_systemd_json(c, 0, &j), &j);
        touch_json(pkgnote_core_to_systemd_json(c, PKGNOTE_SYSTEMD_COREDUMP, &j), &j);

        pkgnote_core_free(c);
        free(buf);
        return 0;
}
