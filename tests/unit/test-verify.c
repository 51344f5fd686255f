/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* deps --verify's library side: the initramfs reader (lib/01-base-cpio.c),
 * the artefact tree (lib/07-check-artefact.c) and the check
 * (lib/07-check-verify.c), on archives and objects made here: truncated
 * archives, names leading out, hard links, loops of links, links out of
 * the artefact, and an object with 10^5 DT_NEEDED names and 10^4
 * DT_RPATH entries, whose search must list each directory once; unified
 * kernel images made here (lib/07-check-uki.c): the bzImage's release,
 * the modules check, every truncated prefix. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "01-base-cpio.h"
#include "07-check-artefact.h"
#include "07-check-uki.h"
#include "07-check-verify.h"
#include "pkgnote.h"
#include "testlib.h"

/* ---- cpio archives made here ---- */

struct buf {
        unsigned char *p;
        size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n) {
        if (b->n + n + 4 > b->cap) {
                b->cap = (b->n + n + 4) * 2;
                b->p = realloc(b->p, b->cap);
                CHECK(b->p != NULL);
        }
        memcpy(b->p + b->n, d, n);
        b->n += n;
}

static void pad4(struct buf *b) {
        static const char z[4];
        put(b, z, (4 - b->n % 4) % 4);
}

/* A newc entry NAME of MODE, inode INO with NLINK names, holding the N bytes at DATA. */
static void entry(struct buf *b, const char *name, unsigned mode, unsigned ino, unsigned nlink, const void *data, size_t n) {
        char h[111];
        snprintf(h, sizeof h, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u, 0u, nlink, 0u,
                 (unsigned)n, 0u, 0u, 0u, 0u, (unsigned)strlen(name) + 1, 0u);
        put(b, h, 110);
        put(b, name, strlen(name) + 1);
        pad4(b);
        put(b, data, n);
        pad4(b);
}

static void trailer(struct buf *b) {
        entry(b, "TRAILER!!!", 0, 0, 1, "", 0);
}

static void dir(struct buf *b, const char *name) {
        entry(b, name, S_IFDIR | 0755, 0, 2, "", 0);
}

static void link_(struct buf *b, const char *name, const char *target) {
        entry(b, name, S_IFLNK | 0777, 0, 1, target, strlen(target));
}

static void write_file(const char *path, const void *d, size_t n) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, d, n) == (ssize_t)n);
        close(fd);
}

/* ---- a shared object made here (as test-closure's) ---- */

/* The bytes of a 64-bit x86-64 shared object with DT_NEEDED for each of
 * the N names, DT_RPATH RPATH (NULL: none), into *LEN. */
static unsigned char *make_dso(const char *const *needed, size_t n_needed, const char *rpath, size_t *len) {
        size_t strsz = 1;
        for (size_t i = 0; i < n_needed; i++)
                strsz += strlen(needed[i]) + 1;
        strsz += rpath ? strlen(rpath) + 1 : 0;
        size_t n_dyn = n_needed + !!rpath + 3;
        size_t dynoff = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), stroff = dynoff + n_dyn * sizeof(Elf64_Dyn);
        size_t size = stroff + strsz;
        unsigned char *b = calloc(1, size);
        CHECK(b != NULL);
        Elf64_Ehdr eh = {.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_phoff = sizeof eh,
                         .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2};
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        memcpy(b, &eh, sizeof eh);
        Elf64_Phdr ph[2] = {{.p_type = PT_LOAD, .p_flags = PF_R, .p_filesz = size, .p_memsz = size, .p_align = 4096},
                            {.p_type = PT_DYNAMIC, .p_flags = PF_R, .p_offset = dynoff, .p_vaddr = dynoff,
                             .p_filesz = n_dyn * sizeof(Elf64_Dyn), .p_memsz = n_dyn * sizeof(Elf64_Dyn), .p_align = 8}};
        memcpy(b + sizeof eh, ph, sizeof ph);
        Elf64_Dyn *d = (Elf64_Dyn *)(b + dynoff);
        size_t at = 1, k = 0;
        for (size_t i = 0; i <= n_needed; i++) {
                const char *s = i < n_needed ? needed[i] : rpath;
                if (!s)
                        continue;
                d[k].d_tag = i < n_needed ? DT_NEEDED : DT_RPATH, d[k++].d_un.d_val = at;
                memcpy(b + stroff + at, s, strlen(s) + 1);
                at += strlen(s) + 1;
        }
        d[k].d_tag = DT_STRTAB, d[k++].d_un.d_ptr = stroff;
        d[k].d_tag = DT_STRSZ, d[k++].d_un.d_val = strsz;
        d[k].d_tag = DT_NULL;
        *len = size;
        return b;
}

/* ---- the reader ---- */

struct seen {
        size_t n;
        char names[16][64];
        size_t sizes[16];
};

static int record(void *u, const struct pn_cpio_entry *e) {
        struct seen *s = u;
        if (s->n < 16) {
                snprintf(s->names[s->n], sizeof s->names[0], "%s", e->name);
                s->sizes[s->n] = e->size;
        }
        s->n++;
        return 0;
}

static void small_archive(struct buf *b) {
        dir(b, "usr");
        entry(b, "usr/a", S_IFREG | 0644, 7, 1, "hello", 5);
        link_(b, "usr/b", "a");
        trailer(b);
}

/* Two archives, zero bytes between them; every prefix of them read or
 * refused, never read past. */
static void test_cpio_sequence(void) {
        struct buf b = {0};
        small_archive(&b);
        put(&b, "\0\0\0\0\0\0\0\0", 8);
        dir(&b, "etc");
        trailer(&b);
        struct seen s = {0};
        struct pn_initramfs ir;
        CHECK_INT(pn_initramfs_each(b.p, b.n, 1u << 20, record, &s, &ir), 0);
        CHECK_INT(s.n, 4);
        CHECK_INT(ir.archives, 2);
        CHECK_STR(s.names[1], "usr/a");
        CHECK_INT(s.sizes[1], 5);
        CHECK_STR(s.names[3], "etc");
        pn_initramfs_done(&ir);
        size_t ok = 0;
        for (size_t n = 0; n < b.n; n++) {
                unsigned char *cut = malloc(n ? n : 1);
                memcpy(cut, b.p, n);
                struct seen t = {0};
                int r = pn_initramfs_each(cut, n, 1u << 20, record, &t, &ir);
                CHECK(r == 0 || r == -EBADMSG);
                ok += r == 0;
                pn_initramfs_done(&ir);
                free(cut);
        }
        /* Whole: the first archive and any zero padding after it. */
        CHECK(ok >= 1);
        free(b.p);
}

/* Hard links: one file per (device, inode, mode) of one archive, its
 * bytes those of the entry that carries them; the next archive numbers
 * its inodes anew (the kernel forgets its links at a trailer). */
static void test_links_per_archive(void) {
        struct buf b = {0};
        entry(&b, "a", S_IFREG | 0644, 5, 2, "", 0);
        entry(&b, "b", S_IFREG | 0644, 5, 2, "AAAA", 4);
        trailer(&b);
        entry(&b, "c", S_IFREG | 0644, 5, 2, "", 0);
        entry(&b, "d", S_IFREG | 0644, 5, 2, "other", 5);
        trailer(&b);
        struct pn_problems pr = {0};
        struct pn_artefact *a;
        CHECK_INT(pn_artefact_from_initramfs(b.p, b.n, 1u << 20, &pr, &a), 0);
        const char *want[][2] = {{"/a", "AAAA"}, {"/b", "AAAA"}, {"/c", "other"}, {"/d", "other"}};
        for (size_t i = 0; i < 4; i++) {
                size_t n, len = 0;
                const uint8_t *d = NULL;
                CHECK_INT(pn_artefact_resolve(a, want[i][0], true, &n), 0);
                CHECK_INT(pn_artefact_bytes(a, n, &d, &len), 0);
                CHECK_INT(len, strlen(want[i][1]));
                CHECK(d && !memcmp(d, want[i][1], len));
        }
        pn_artefact_free(a);
        pn_problems_clear(&pr);
        free(b.p);
}

/* ---- artefacts ---- */

static char tmp[] = "/tmp/test-verify.XXXXXX";

static pkgnote_verify *verify_bytes(const struct buf *b) {
        char path[4096];
        snprintf(path, sizeof path, "%s/initrd.img", tmp);
        write_file(path, b->p, b->n);
        pkgnote_verify *v = NULL;
        CHECK_INT(pkgnote_verify_new(path, &v), 0);
        return v;
}

static bool has_problem(const pkgnote_verify *v, const char *word) {
        for (size_t i = 0; i < pkgnote_verify_problem_count(v); i++)
                if (strstr(pkgnote_verify_problem(v, i)->message, word))
                        return true;
        return false;
}

/* The finding of NAME, by kind, or NULL. */
static bool has_finding(const pkgnote_verify *v, const char *object, const char *kind, const char *names) {
        for (size_t i = 0; i < pkgnote_verify_count(v); i++) {
                pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
                CHECK_INT(pkgnote_verify_get(v, i, &f), 1);
                if (!strcmp(f.object, object) && !strcmp(f.kind, kind) && !strcmp(f.sonames, names))
                        return true;
        }
        return false;
}

/* A library needing libc.so.6 (a loop of links to itself), libout.so.1
 * (a link out of the artefact, to what the host has), libok.so.1 (a
 * link to a file), libhard.so.1 (a second name of a hard link whose
 * bytes come with the first); names leading out left out and said. */
static void test_artefact_hostile(void) {
        const char *needed[] = {"libc.so.6", "libout.so.1", "libok.so.1", "libhard.so.1", "libdeep.so.1"};
        size_t len, len2;
        unsigned char *dso = make_dso(needed, 5, NULL, &len);
        unsigned char *leaf = make_dso(NULL, 0, NULL, &len2);
        struct buf b = {0};
        dir(&b, ".");
        dir(&b, "usr");
        dir(&b, "usr/lib");
        dir(&b, "usr/lib/x86_64-linux-gnu");
        link_(&b, "lib", "usr/lib");
        entry(&b, "usr/lib/x86_64-linux-gnu/libprog.so", S_IFREG | 0755, 1, 1, dso, len);
        link_(&b, "usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6");
        link_(&b, "usr/lib/x86_64-linux-gnu/libout.so.1", "../../../../../../../../usr/lib/x86_64-linux-gnu/libc.so.6");
        entry(&b, "usr/lib/x86_64-linux-gnu/libok.so.1.0", S_IFREG | 0755, 2, 1, leaf, len2);
        link_(&b, "usr/lib/x86_64-linux-gnu/libok.so.1", "libok.so.1.0");
        /* newc: the bytes with the last name of the inode */
        entry(&b, "usr/lib/x86_64-linux-gnu/libhard.so.1", S_IFREG | 0755, 3, 2, "", 0);
        entry(&b, "usr/lib/x86_64-linux-gnu/libhard2.so.1", S_IFREG | 0755, 3, 2, leaf, len2);
        /* a chain of links longer than the loader follows */
        for (int i = 0; i < 50; i++) {
                char n[128], t[64];
                snprintf(n, sizeof n, "usr/lib/x86_64-linux-gnu/%s%d", i ? "l" : "libdeep.so.1.", i);
                snprintf(t, sizeof t, "l%d", i + 1);
                link_(&b, i ? n : "usr/lib/x86_64-linux-gnu/libdeep.so.1", t);
        }
        entry(&b, "usr/lib/x86_64-linux-gnu/l50", S_IFREG | 0755, 4, 1, leaf, len2);
        entry(&b, "../../../../tmp/evil", S_IFREG | 0644, 5, 1, "x", 1);
        entry(&b, "usr/../../etc/evil", S_IFREG | 0644, 6, 1, "x", 1);
        entry(&b, "nodir/file", S_IFREG | 0644, 8, 1, "x", 1);
        trailer(&b);
        pkgnote_verify *v = verify_bytes(&b);
        CHECK_INT(pkgnote_verify_kind(v), PKGNOTE_VERIFY_INITRAMFS);
        CHECK_INT(pkgnote_verify_run(v), 3);
        CHECK_INT(pkgnote_verify_run(v), 3); /* once */
        /* libprog.so, libok.so.1.0, libhard*.so.1 (two names), l50 */
        CHECK_INT(pkgnote_verify_object_count(v), 5);
        CHECK_INT(pkgnote_verify_count(v), 3);
        const char *p = "/usr/lib/x86_64-linux-gnu/libprog.so";
        CHECK(has_finding(v, p, "needed", "libc.so.6"));
        CHECK(has_finding(v, p, "needed", "libout.so.1"));
        CHECK(has_finding(v, p, "needed", "libdeep.so.1"));
        CHECK(has_problem(v, "leading out"));
        CHECK(has_problem(v, "directory is not in the archive"));
        pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
        CHECK_INT(pkgnote_verify_get(v, 0, &f), 1);
        CHECK_INT(f.priority, PKGNOTE_DLOPEN_REQUIRED);
        CHECK_INT(f.n_names, 1);
        CHECK_INT(pkgnote_verify_get(v, 3, &f), -ENOENT);
        pkgnote_verify_finding small = {.size = sizeof(size_t)};
        CHECK_INT(pkgnote_verify_get(v, 0, &small), -EINVAL);
        char *json = NULL;
        CHECK_INT(pkgnote_verify_to_json(v, &json), 0);
        CHECK(strstr(json, "\"kind\":\"initramfs\"") != NULL);
        CHECK(strstr(json, "\"required\":3") != NULL);
        free(json);
        pkgnote_verify_free(v);
        /* every prefix: refused or read, never past the end */
        for (size_t n = 1; n < b.n; n += 7) {
                char path[4096];
                snprintf(path, sizeof path, "%s/cut.img", tmp);
                write_file(path, b.p, n);
                pkgnote_verify *c = NULL;
                int r = pkgnote_verify_new(path, &c);
                CHECK(r == 0 || r == -EBADMSG);
                if (r == 0)
                        CHECK(pkgnote_verify_run(c) >= 0);
                pkgnote_verify_free(c);
        }
        free(b.p);
        free(dso);
        free(leaf);
}

/* 10^5 DT_NEEDED names none of which is there (100 objects of 1000,
 * the ELF reader's cap per object) and 10^4 DT_RPATH entries each
 * (missing directories, and present ones named again and again): each
 * directory read once, each name probed once per distinct directory;
 * and an object past the cap is a finding, not a pass. */
static void test_artefact_bounded(void) {
        enum { OBJS = 100, NEEDED = 1000, RPATH = 10000 };
        char **names = calloc(1100, sizeof *names);
        size_t rl = 0;
        char *rpath = malloc(RPATH * 40);
        for (int i = 0; i < RPATH; i++)
                rl += (size_t)sprintf(rpath + rl, "%s%s", i ? ":" : "",
                                      i % 3 == 0 ? "$ORIGIN" : i % 3 == 1 ? "/usr/lib/x86_64-linux-gnu" : "/no/such");
        char path[4096], cmd[4200];
        snprintf(path, sizeof path, "%s/tree/usr/lib/x86_64-linux-gnu", tmp);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
        CHECK_INT(system(cmd), 0);
        for (int o = 0; o < OBJS; o++) {
                for (int i = 0; i < NEEDED; i++)
                        CHECK(asprintf(&names[i], "libn%d-%d.so.1", o, i) > 0);
                size_t len;
                unsigned char *dso = make_dso((const char *const *)names, NEEDED, rpath, &len);
                snprintf(path, sizeof path, "%s/tree/usr/lib/x86_64-linux-gnu/libbig%d.so", tmp, o);
                write_file(path, dso, len);
                free(dso);
                for (int i = 0; i < NEEDED; i++)
                        free(names[i]);
        }
        /* past the reader's cap of DT_NEEDED entries */
        for (int i = 0; i < 1100; i++)
                CHECK(asprintf(&names[i], "libover%d.so.1", i) > 0);
        size_t len;
        unsigned char *dso = make_dso((const char *const *)names, 1100, NULL, &len);
        snprintf(path, sizeof path, "%s/tree/usr/lib/x86_64-linux-gnu/libover.so", tmp);
        write_file(path, dso, len);
        free(dso);
        for (int i = 0; i < 1100; i++)
                free(names[i]);
        snprintf(path, sizeof path, "%s/tree", tmp);
        pkgnote_verify *v = NULL;
        CHECK_INT(pkgnote_verify_new(path, &v), 0);
        CHECK_INT(pkgnote_verify_kind(v), PKGNOTE_VERIFY_DIRECTORY);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(pkgnote_verify_run(v), OBJS * NEEDED + 1);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK_INT(pkgnote_verify_count(v), OBJS * NEEDED + 1);
        CHECK(has_finding(v, "/usr/lib/x86_64-linux-gnu/libover.so", "unreadable", "more than 1024 DT_NEEDED entries"));
        /* the graph: one missing edge per name, each once, in the order
         * the objects list them (libbig0.so's first name first) */
        CHECK_INT(pkgnote_verify_edge_count(v), OBJS * NEEDED);
        pkgnote_dep_edge e = PKGNOTE_DEP_EDGE_INIT;
        CHECK_INT(pkgnote_verify_edge(v, 0, &e), 1);
        CHECK_STR(e.from, "/usr/lib/x86_64-linux-gnu/libbig0.so");
        CHECK_STR(e.name, "libn0-0.so.1");
        CHECK(e.to == NULL);
        CHECK_INT(e.kind, PKGNOTE_DEP_NEEDED);
        CHECK_INT(pkgnote_verify_edge(v, OBJS * NEEDED, &e), -ENOENT);
        const struct pn_resolve_stats *st = pn_verify_stats(v);
        printf("# %zu directory reads, %zu name lookups, %.2f s\n", st->dir_reads, st->name_lookups,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        /* the top, /usr, /usr/lib, the multiarch one, /lib*, /etc... */
        CHECK(st->dir_reads <= 16);
        /* per name: the multiarch directory once, a few glibc-hwcaps
         * and system ones; per DT_RPATH entry a probe or two */
        CHECK(st->name_lookups <= (size_t)OBJS * NEEDED * 16 + (size_t)OBJS * RPATH * 4);
        pkgnote_verify_free(v);
        free(names);
        free(rpath);
}

/* ---- unified kernel images ---- */

static void put32(unsigned char *p, uint32_t v) {
        for (int i = 0; i < 4; i++)
                p[i] = (unsigned char)(v >> 8 * i);
}
static void put16(unsigned char *p, uint16_t v) {
        p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

/* A stand-in bzImage of 2560 bytes: setup header, 4 setup sectors, the
 * version string VERSION at 0x400. */
static void bzimage(unsigned char *b, const char *version) {
        memset(b, 0, 2560);
        b[0x1f1] = 4;
        memcpy(b + 0x202, "HdrS", 4);
        put16(b + 0x206, 0x020f);
        put16(b + 0x20e, 0x200);
        snprintf((char *)b + 0x400, 2560 - 0x400, "%s", version);
}

/* A PE32+ image of the N sections NAMES holding DATA[i] (LEN[i] bytes),
 * file alignment 0x200, section alignment 0x1000, into B. */
static void uki(struct buf *b, size_t n, const char *const *names, const void *const *data, const size_t *len) {
        unsigned char h[0x400] = {0};
        const uint32_t pe = 0x80, table = pe + 24 + 240;
        CHECK(table + 40 * n <= sizeof h);
        h[0] = 'M', h[1] = 'Z';
        put32(h + 0x3c, pe);
        memcpy(h + pe, "PE\0\0", 4);
        put16(h + pe + 4, 0x8664);
        put16(h + pe + 6, (uint16_t)n);
        put16(h + pe + 20, 240);
        unsigned char *o = h + pe + 24;
        put16(o, 0x20b);
        put32(o + 32, 0x1000);
        put32(o + 36, 0x200);
        put32(o + 60, sizeof h);
        put16(o + 68, 10);
        put32(o + 108, 16);
        uint32_t raw = sizeof h, va = 0x1000;
        for (size_t i = 0; i < n; i++) {
                unsigned char *s = h + table + 40 * i;
                memcpy(s, names[i], strlen(names[i]));
                put32(s + 8, (uint32_t)len[i]);
                put32(s + 12, va);
                put32(s + 16, (uint32_t)(len[i] + 0x1ff) / 0x200 * 0x200);
                put32(s + 20, raw);
                raw += (uint32_t)(len[i] + 0x1ff) / 0x200 * 0x200;
                va += (uint32_t)(len[i] + 0xfff) / 0x1000 * 0x1000;
        }
        put32(o + 56, va);
        put(b, h, sizeof h);
        for (size_t i = 0; i < n; i++) {
                static const unsigned char z[0x200];
                put(b, data[i], len[i]);
                put(b, z, (0x200 - len[i] % 0x200) % 0x200);
        }
}

/* An initrd with modules for RELEASE under /usr/lib/modules, /lib a link. */
static void modules_initrd(struct buf *b, const char *release) {
        char d[256];
        dir(b, "usr");
        dir(b, "usr/lib");
        link_(b, "lib", "usr/lib");
        dir(b, "usr/lib/modules");
        snprintf(d, sizeof d, "usr/lib/modules/%s", release);
        dir(b, d);
        snprintf(d, sizeof d, "usr/lib/modules/%s/modules.dep", release);
        entry(b, d, S_IFREG | 0644, 7, 1, "x.ko:\n", 6);
        trailer(b);
}

static pkgnote_verify *verify_uki(const struct buf *b, int ret) {
        char path[4096];
        snprintf(path, sizeof path, "%s/uki.efi", tmp);
        write_file(path, b->p, b->n);
        pkgnote_verify *v = NULL;
        CHECK_INT(pkgnote_verify_new(path, &v), ret);
        return v;
}

/* The release of a bzImage's setup header, over its bounds. */
static void test_uki_bzimage(void) {
        unsigned char b[2560];
        char rel[PN_UKI_MAX_RELEASE + 1];
        bzimage(b, "6.1.0-1-amd64 (builder@example) #1 SMP");
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), 1);
        CHECK_STR(rel, "6.1.0-1-amd64");
        /* every prefix: the string whole, or no release, never past */
        for (size_t n = 0; n < sizeof b; n++) {
                int r = pn_uki_bzimage_release(b, n, rel, sizeof rel);
                CHECK(n > 0x400 + 13 ? r == 1 || r == -EBADMSG : r <= 0);
        }
        bzimage(b, "6.1.0\033[31m-1 x");
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), -EBADMSG);
        memset(b + 0x400, 'a', 0x600); /* not terminated in the setup sectors */
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), -EBADMSG);
        bzimage(b, "6.1.0-1-amd64");
        put16(b + 0x20e, 0x1000); /* past the setup sectors */
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), -EBADMSG);
        put16(b + 0x20e, 0);
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), 0);
        bzimage(b, "6.1.0-1-amd64");
        memcpy(b + 0x202, "HdrX", 4);
        CHECK_INT(pn_uki_bzimage_release(b, sizeof b, rel, sizeof rel), 0);
}

/* The kernel against the initrd, the kinds and names the API gives, and
 * every truncated prefix of a UKI. */
static void test_uki(void) {
        unsigned char bz[2560];
        bzimage(bz, "6.1.0-1-amd64 (b@e) #1");
        struct buf ird = {0}, b = {0};
        modules_initrd(&ird, "6.1.0-1-amd64");
        const char *names[] = {".linux", ".uname", ".initrd"};
        const void *data[] = {bz, "6.1.0-2-amd64", ird.p};
        size_t len[] = {sizeof bz, 13, ird.n};
        uki(&b, 3, names, data, len);
        pkgnote_verify *v = verify_uki(&b, 0);
        CHECK_INT(pkgnote_verify_kind(v), PKGNOTE_VERIFY_UKI);
        CHECK_STR(pkgnote_verify_release(v), "6.1.0-2-amd64");
        CHECK_INT(pkgnote_verify_run(v), 1);
        CHECK_INT(pkgnote_verify_count(v), 1);
        pkgnote_verify_finding f = PKGNOTE_VERIFY_FINDING_INIT;
        CHECK_INT(pkgnote_verify_get(v, 0, &f), 1);
        CHECK_STR(f.object, ".linux");
        CHECK_STR(f.kind, "modules");
        CHECK_INT(f.n_names, 1);
        CHECK_STR(f.names[0], "6.1.0-2-amd64");
        CHECK_INT(f.priority, PKGNOTE_DLOPEN_REQUIRED);
        CHECK(f.feature == NULL);
        char *json = NULL;
        CHECK_INT(pkgnote_verify_to_json(v, &json), 0);
        CHECK(strstr(json, "\"kind\":\"uki\"") != NULL);
        CHECK(strstr(json, "\"release\":\"6.1.0-2-amd64\"") != NULL);
        free(json);
        pkgnote_verify_free(v);
        /* without .uname: the bzImage's release, its modules there */
        b.n = 0;
        const char *n2[] = {".linux", ".initrd"};
        const void *d2[] = {bz, ird.p};
        size_t l2[] = {sizeof bz, ird.n};
        uki(&b, 2, n2, d2, l2);
        v = verify_uki(&b, 0);
        CHECK_STR(pkgnote_verify_release(v), "6.1.0-1-amd64");
        CHECK_INT(pkgnote_verify_run(v), 0);
        CHECK_INT(pkgnote_verify_count(v), 0);
        pkgnote_verify_free(v);
        /* every prefix, straight from memory: refused or read */
        size_t read = 0;
        for (size_t n = 0; n <= b.n; n++) {
                struct pn_problems pr = {0};
                struct pn_artefact *a = NULL;
                int r = pn_artefact_from_uki(b.p, n, 1u << 20, &pr, &a);
                CHECK(r == 0 || r == -EBADMSG || r == -ENOEXEC || r == -ENODATA);
                if (r == 0) {
                        read++;
                        CHECK_INT(pn_artefact_kind(a), PN_ARTEFACT_UKI);
                        const char *rel = pn_artefact_release(a, NULL);
                        CHECK(rel == NULL || !strcmp(rel, "6.1.0-1-amd64"));
                }
                pn_artefact_free(a);
                pn_problems_clear(&pr);
        }
        /* the whole, and prefixes that cut only the .initrd's padding */
        CHECK(read >= 1);
        /* not a PE file for pkgnote_verify_new(): no PE header */
        b.n = 0;
        put(&b, "MZ", 2);
        static const unsigned char z[200];
        put(&b, z, sizeof z);
        pkgnote_verify_free(verify_uki(&b, -ENOEXEC));
        free(b.p);
        free(ird.p);
}

/* ---- an artefact built from outside (as lib/09-scan-verify.c builds
 * one from a tar, an image or a SquashFS image) ---- */

struct built {
        bool with_lib; /* libdep.so.1 there */
};

/* What the opener builds: /usr/lib/x86_64-linux-gnu/ holding libtop.so
 * (needing libdep.so.1), libdep.so.1 a symbolic link to libdep.so.1.0,
 * itself a hard link of libreal.so (its content shared). */
static int build_open(void *u, const char *path, struct pn_problems *problems, struct pn_artefact **ret) {
        (void)path;
        const struct built *b = u;
        struct pn_artefact *a;
        size_t usr, lib, dir, n, in, real;
        CHECK_INT(pn_artefact_new(PN_ARTEFACT_TAR, problems, &a), 0);
        CHECK_INT(pn_artefact_add(a, 0, "usr", PN_NODE_DIR, &usr), 0);
        CHECK_INT(pn_artefact_add(a, usr, "lib", PN_NODE_DIR, &lib), 0);
        CHECK_INT(pn_artefact_add(a, lib, "x86_64-linux-gnu", PN_NODE_DIR, &dir), 0);
        const char *need[1] = {"libdep.so.1"};
        size_t len;
        unsigned char *dso = make_dso(need, 1, NULL, &len);
        CHECK_INT(pn_artefact_add(a, dir, "libtop.so", PN_NODE_FILE, &n), 0);
        CHECK_INT(pn_artefact_add_content(a, dso, len, &in), 0);
        pn_artefact_set_inode(a, n, in);
        dso = make_dso(NULL, 0, NULL, &len);
        CHECK_INT(pn_artefact_add(a, dir, "libreal.so", PN_NODE_FILE, &real), 0);
        CHECK_INT(pn_artefact_add_content(a, dso, len, &in), 0);
        pn_artefact_set_inode(a, real, in);
        CHECK_INT(pn_artefact_add(a, dir, "libdep.so.1.0", PN_NODE_FILE, &n), 0);
        pn_artefact_set_inode(a, n, in); /* a hard link */
        if (b->with_lib) {
                CHECK_INT(pn_artefact_add(a, dir, "libdep.so.1", PN_NODE_LINK, &n), 0);
                CHECK_INT(pn_artefact_set_target(a, n, "libdep.so.1.0"), 0);
        }
        /* what a builder must refuse */
        CHECK_INT(pn_artefact_add(a, dir, "libtop.so", PN_NODE_FILE, &n), -EEXIST);
        CHECK_INT(pn_artefact_add(a, dir, "..", PN_NODE_DIR, &n), -EINVAL);
        CHECK_INT(pn_artefact_add(a, dir, "a/b", PN_NODE_DIR, &n), -EINVAL);
        CHECK_INT(pn_artefact_add(a, dir, "", PN_NODE_DIR, &n), -EINVAL);
        CHECK_INT(pn_artefact_add(a, real, "x", PN_NODE_FILE, &n), -ENOTDIR);
        CHECK_INT(pn_artefact_set_target(a, real, ""), -EINVAL);
        /* one name, one inode: the two names of the hard link share it */
        size_t r1, r2;
        CHECK_INT(pn_artefact_resolve(a, "/usr/lib/x86_64-linux-gnu/libreal.so", true, &r1), 0);
        CHECK_INT(pn_artefact_resolve(a, "/usr/lib/../lib/x86_64-linux-gnu/libdep.so.1.0", true, &r2), 0);
        CHECK(pn_artefact_inode(a, r1) == pn_artefact_inode(a, r2));
        *ret = a;
        return 0;
}

static void test_artefact_built(void) {
        for (int with = 1; with >= 0; with--) {
                struct built b = {with};
                pkgnote_verify *v = NULL;
                CHECK_INT(pn_verify_new_with("built", build_open, &b, &v), 0);
                CHECK_INT(pkgnote_verify_kind(v), PKGNOTE_VERIFY_TAR);
                CHECK_INT(pkgnote_verify_run(v), with ? 0 : 1);
                CHECK_INT(pkgnote_verify_object_count(v), 3);
                if (!with)
                        CHECK(has_finding(v, "/usr/lib/x86_64-linux-gnu/libtop.so", "needed", "libdep.so.1"));
                char *json = NULL;
                CHECK_INT(pkgnote_verify_to_json(v, &json), 0);
                CHECK(strstr(json, "\"kind\":\"tar\"") != NULL);
                free(json);
                pkgnote_verify_free(v);
        }
}

int main(void) {
        CHECK(mkdtemp(tmp) != NULL);
        RUN(test_uki_bzimage);
        RUN(test_uki);
        RUN(test_cpio_sequence);
        RUN(test_links_per_archive);
        RUN(test_artefact_hostile);
        RUN(test_artefact_bounded);
        RUN(test_artefact_built);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        CHECK_INT(system(cmd), 0);
        return test_summary();
}
