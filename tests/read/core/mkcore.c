/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mkcore: writes a kernel-shaped core (corebuild.h) holding the first
 * pages of real ELF files, for architectures whose cores cannot be made
 * here (qemu-user cores lack NT_FILE).
 *
 *   mkcore -o OUT [-32|-64] [-be|-le] -m MACHINE [options] MODULE...
 *   --exe BASE:PATH:FILE     the executable: FILE's PT_LOADs mapped at BASE,
 *                            named PATH in NT_FILE; sets AT_PHDR, AT_ENTRY
 *                            and AT_EXECFN (PATH, in a dumped stack page)
 *   --module BASE:PATH:FILE  a library mapped the same way
 *   --pid N --ppid N --uid N --gid N --signal N --code N --addr HEX
 *   --comm S --args S --thread TID --prpsinfo 124|128|136 --prstatus N
 * Each file mapping at offset 0 gets the file's first page dumped, as the
 * kernel does (coredump_filter bit 4); other mappings get nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corebuild.h"

static struct cb_spec spec;
static uint8_t *pages[CB_MAX_MAPS];

static uint64_t get(const uint8_t *p, unsigned width, bool be) {
        uint64_t v = 0;
        for (unsigned i = 0; i < width; i++)
                v |= (uint64_t)p[be ? width - 1 - i : i] << (8 * i);
        return v;
}

static void die(const char *msg, const char *arg) {
        fprintf(stderr, "mkcore: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
        exit(2);
}

static uint8_t *slurp(const char *path, size_t *len) {
        FILE *f = fopen(path, "rb");
        if (!f)
                die("cannot open", path);
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
                n += r;
                if (n == cap && !(buf = realloc(buf, cap *= 2)))
                        break;
        }
        fclose(f);
        if (!buf)
                die("out of memory", NULL);
        *len = n;
        return buf;
}

/* Maps FILE at BASE as the dynamic loader would: one mapping per PT_LOAD. */
static void add_module(const char *arg, bool exe) {
        char *copy = strdup(arg), *colon1 = strchr(copy, ':'), *colon2 = colon1 ? strchr(colon1 + 1, ':') : NULL;
        if (!colon2)
                die("expected BASE:PATH:FILE", arg);
        *colon1 = *colon2 = 0;
        uint64_t base = strtoull(copy, NULL, 0);
        const char *path = colon1 + 1, *file = colon2 + 1;
        size_t len;
        uint8_t *f = slurp(file, &len);
        if (len < 52 || memcmp(f, "\177ELF", 4))
                die("not ELF", file);
        bool is64 = f[4] == 2, be = f[5] == 2;
        if (is64 != spec.is64 || be != spec.be)
                die("class or byte order differs from the core's", file);
        uint64_t page = spec.page ? spec.page : 4096;
        uint64_t phoff = is64 ? get(f + 32, 8, be) : get(f + 28, 4, be);
        unsigned phent = (unsigned)get(f + (is64 ? 54 : 42), 2, be), phnum = (unsigned)get(f + (is64 ? 56 : 44), 2, be);
        uint64_t entry = is64 ? get(f + 24, 8, be) : get(f + 24, 4, be);
        if (phoff + (uint64_t)phnum * phent > len)
                die("program headers out of the file", file);
        for (unsigned i = 0; i < phnum; i++) {
                const uint8_t *p = f + phoff + (uint64_t)i * phent;
                uint32_t type = (uint32_t)get(p, 4, be);
                uint64_t off = is64 ? get(p + 8, 8, be) : get(p + 4, 4, be);
                uint64_t vaddr = is64 ? get(p + 16, 8, be) : get(p + 8, 4, be);
                uint64_t memsz = is64 ? get(p + 40, 8, be) : get(p + 20, 4, be);
                if (type == 6 /* PT_PHDR */ && exe && spec.n_auxv < CB_MAX_AUXV) {
                        spec.auxv[spec.n_auxv][0] = CB_AT_PHDR;
                        spec.auxv[spec.n_auxv++][1] = base + vaddr;
                }
                if (type != 1)
                        continue;
                if (spec.n_maps >= CB_MAX_MAPS)
                        die("too many mappings", NULL);
                struct cb_map *m = &spec.maps[spec.n_maps];
                m->start = base + (vaddr & ~(page - 1));
                m->end = base + ((vaddr + memsz + page - 1) & ~(page - 1));
                m->pgoff = (off & ~(page - 1)) / page;
                m->path = path;
                if (m->pgoff == 0) {
                        size_t n = len < page ? len : (size_t)page;
                        pages[spec.n_maps] = calloc(1, page);
                        memcpy(pages[spec.n_maps], f, n);
                        m->data = pages[spec.n_maps];
                        m->data_len = (size_t)page;
                }
                spec.n_maps++;
        }
        if (exe && spec.n_auxv + 3 <= CB_MAX_AUXV) {
                spec.auxv[spec.n_auxv][0] = CB_AT_PAGESZ;
                spec.auxv[spec.n_auxv++][1] = page;
                spec.auxv[spec.n_auxv][0] = CB_AT_ENTRY;
                spec.auxv[spec.n_auxv++][1] = base + entry;
                /* The execve() path string, on a dumped stack page. */
                uint64_t stack = spec.is64 ? 0x3fffffdf000ull : 0x7fffe000ull;
                struct cb_map *m = &spec.maps[spec.n_maps];
                pages[spec.n_maps] = calloc(1, page);
                size_t at = (size_t)page - 256;
                strncpy((char *)pages[spec.n_maps] + at, path, 255);
                *m = (struct cb_map){.start = stack, .end = stack + page, .data = pages[spec.n_maps],
                                     .data_len = (size_t)page};
                spec.n_maps++;
                spec.auxv[spec.n_auxv][0] = CB_AT_EXECFN;
                spec.auxv[spec.n_auxv++][1] = stack + at;
        }
        free(f);
}

int main(int argc, char **argv) {
        const char *out = NULL;
        spec.is64 = true;
        spec.tids[0] = 4242;
        spec.n_threads = 1;
        spec.ppid = 1;
        spec.signal = 11;
        spec.si_code = 1;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKES(name) (!strcmp(a, name) && v && (i++, 1))
                if (!strcmp(a, "-32"))
                        spec.is64 = false;
                else if (!strcmp(a, "-64"))
                        spec.is64 = true;
                else if (!strcmp(a, "-be"))
                        spec.be = true;
                else if (!strcmp(a, "-le"))
                        spec.be = false;
                else if (TAKES("-o"))
                        out = v;
                else if (TAKES("-m"))
                        spec.machine = (uint16_t)strtoul(v, NULL, 0);
                else if (TAKES("--pid"))
                        spec.tids[0] = atoi(v);
                else if (TAKES("--ppid"))
                        spec.ppid = atoi(v);
                else if (TAKES("--uid"))
                        spec.uid = atoi(v);
                else if (TAKES("--gid"))
                        spec.gid = atoi(v);
                else if (TAKES("--signal"))
                        spec.signal = atoi(v);
                else if (TAKES("--code"))
                        spec.si_code = atoi(v);
                else if (TAKES("--addr"))
                        spec.fault_addr = strtoull(v, NULL, 16);
                else if (TAKES("--comm"))
                        spec.comm = v;
                else if (TAKES("--args"))
                        spec.args = v;
                else if (TAKES("--prpsinfo"))
                        spec.prpsinfo_size = (unsigned)atoi(v);
                else if (TAKES("--prstatus"))
                        spec.prstatus_size = (unsigned)atoi(v);
                else if (TAKES("--thread")) {
                        if (spec.n_threads < CB_MAX_THREADS)
                                spec.tids[spec.n_threads++] = atoi(v);
                } else if (TAKES("--exe"))
                        add_module(v, true);
                else if (TAKES("--module"))
                        add_module(v, false);
                else
                        die("unknown or incomplete option", a);
        }
        if (!out)
                die("-o OUT is required", NULL);
        uint8_t *core;
        size_t len = cb_build(&spec, &core);
        if (!len)
                die("cannot build the core", NULL);
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(core, 1, len, f) != len || fclose(f) != 0)
                die("cannot write", out);
        free(core);
        for (size_t i = 0; i < CB_MAX_MAPS; i++)
                free(pages[i]);
        return 0;
}
