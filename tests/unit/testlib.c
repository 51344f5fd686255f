/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

int test_failures;
int test_checks;

int test_summary(void) {
        printf("# %d checks, %d failed\n", test_checks, test_failures);
        return test_failures ? 1 : 0;
}

static void w16(uint8_t *p, uint16_t v, bool be) {
        p[be ? 0 : 1] = (uint8_t)(v >> 8);
        p[be ? 1 : 0] = (uint8_t)v;
}
static void w32(uint8_t *p, uint32_t v, bool be) {
        for (int i = 0; i < 4; i++)
                p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}
static void w64(uint8_t *p, uint64_t v, bool be) {
        for (int i = 0; i < 8; i++)
                p[be ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}
/* Writes an address-sized field. */
static void waddr(uint8_t *p, uint64_t v, bool is64, bool be) {
        if (is64)
                w64(p, v, be);
        else
                w32(p, (uint32_t)v, be);
}

#define ALIGN(x, a) (((x) + (a)-1) / (a) * (a))

size_t mk_note(uint8_t *out, bool be, const char *name, uint32_t namesz, uint32_t type,
               const void *desc, size_t desc_len, uint32_t descsz, unsigned align) {
        w32(out, namesz, be);
        w32(out + 4, descsz, be);
        w32(out + 8, type, be);
        size_t name_len = strlen(name) + 1 < namesz ? strlen(name) + 1 : namesz;
        size_t pos = 12;
        if (namesz > 4096) { /* a hostile size: only the bytes that exist */
                memcpy(out + pos, name, strlen(name) + 1);
                return ALIGN(pos + strlen(name) + 1, align);
        }
        memset(out + pos, 0, ALIGN(namesz, align) + 8);
        memcpy(out + pos, name, name_len);
        pos = ALIGN(pos + namesz, align);
        memset(out + pos, 0, ALIGN(desc_len, align) + 8);
        memcpy(out + pos, desc, desc_len);
        return ALIGN(pos + desc_len, align);
}

size_t mk_package_note(uint8_t *out, bool be, const char *json, bool unpadded) {
        size_t len = strlen(json) + 1;
        return mk_note(out, be, "FDO", 4, 0xcafe1a7eu, json, len,
                       (uint32_t)(unpadded ? len : ALIGN(len, 4)), 4);
}

size_t mk_elf(const struct mk_spec *s, uint8_t *out, size_t cap) {
        bool is64 = s->is64, be = s->be;
        size_t ehsize = is64 ? 64 : 52, phent = is64 ? 56 : 32, shent = is64 ? 64 : 40;
        size_t nseg = 0, nsec = 0;
        for (size_t i = 0; i < s->n_blobs; i++) {
                nseg += s->blobs[i].segment;
                nsec += s->blobs[i].section;
        }
        size_t phnum = nseg + (s->no_load ? 0 : 1);
        size_t off = ALIGN(ehsize + phnum * phent + s->pad_before, 8);
        size_t blob_off[MK_MAX_BLOBS];
        for (size_t i = 0; i < s->n_blobs; i++) {
                off = ALIGN(off, s->blobs[i].align);
                blob_off[i] = off;
                off += s->blobs[i].len;
        }
        size_t load_end = off;
        /* Section names: "\0.shstrtab\0" then each name. */
        char strtab[512] = "\0.shstrtab";
        size_t strtab_len = 11, name_off[MK_MAX_BLOBS];
        for (size_t i = 0; i < s->n_blobs; i++) {
                const char *n = s->blobs[i].name ? s->blobs[i].name : ".note";
                name_off[i] = strtab_len;
                memcpy(strtab + strtab_len, n, strlen(n) + 1);
                strtab_len += strlen(n) + 1;
        }
        size_t strtab_off = off;
        size_t shnum = s->no_sections ? 0 : nsec + 2;
        size_t shoff = shnum || s->xnum ? ALIGN(strtab_off + strtab_len, 8) : 0;
        if (s->xnum && shnum == 0)
                shnum = 1;
        size_t total = shoff ? shoff + shnum * shent : off;
        if (total > cap)
                return 0;
        memset(out, 0, total);
        memcpy(out, "\177ELF", 4);
        out[4] = is64 ? 2 : 1;
        out[5] = be ? 2 : 1;
        out[6] = 1;
        w16(out + 16, s->type, be);
        w16(out + 18, s->machine, be);
        w32(out + 20, 1, be);
        waddr(out + (is64 ? 32 : 28), ehsize, is64, be);          /* e_phoff */
        waddr(out + (is64 ? 40 : 32), shoff, is64, be);           /* e_shoff */
        uint8_t *t = out + (is64 ? 52 : 40);
        w16(t, (uint16_t)ehsize, be);
        w16(t + 2, (uint16_t)phent, be);
        w16(t + 4, s->xnum ? 0xffff : (uint16_t)phnum, be);
        w16(t + 6, (uint16_t)shent, be);
        w16(t + 8, s->xnum && s->no_sections ? 1 : (uint16_t)shnum, be);
        w16(t + 10, s->no_sections ? 0 : (uint16_t)(shnum - 1), be);
        uint8_t *ph = out + ehsize;
        if (!s->no_load) {
                w32(ph, 1, be); /* PT_LOAD over everything up to the notes' end */
                if (is64) {
                        w32(ph + 4, 4, be);
                        w64(ph + 32, load_end, be);
                        w64(ph + 40, load_end, be);
                        w64(ph + 48, 4096, be);
                } else {
                        w32(ph + 16, (uint32_t)load_end, be);
                        w32(ph + 20, (uint32_t)load_end, be);
                        w32(ph + 24, 4, be);
                        w32(ph + 28, 4096, be);
                }
                ph += phent;
        }
        for (size_t i = 0; i < s->n_blobs; i++) {
                const struct mk_blob *b = &s->blobs[i];
                memcpy(out + blob_off[i], b->data, b->len);
                if (!b->segment)
                        continue;
                w32(ph, 4, be);
                if (is64) {
                        w32(ph + 4, 4, be);
                        w64(ph + 8, blob_off[i], be);
                        w64(ph + 16, blob_off[i], be);
                        w64(ph + 24, blob_off[i], be);
                        w64(ph + 32, b->len, be);
                        w64(ph + 40, b->len, be);
                        w64(ph + 48, b->align, be);
                } else {
                        w32(ph + 4, (uint32_t)blob_off[i], be);
                        w32(ph + 8, (uint32_t)blob_off[i], be);
                        w32(ph + 12, (uint32_t)blob_off[i], be);
                        w32(ph + 16, (uint32_t)b->len, be);
                        w32(ph + 20, (uint32_t)b->len, be);
                        w32(ph + 24, 4, be);
                        w32(ph + 28, b->align, be);
                }
                ph += phent;
        }
        if (!shoff)
                return total;
        memcpy(out + strtab_off, strtab, strtab_len);
        uint8_t *sh = out + shoff;
        /* Section 0 carries the extended program header count. */
        if (s->xnum)
                w32(sh + (is64 ? 44 : 28), (uint32_t)phnum, be);
        if (s->no_sections)
                return total;
        sh += shent;
        for (size_t i = 0; i < s->n_blobs; i++) {
                const struct mk_blob *b = &s->blobs[i];
                if (!b->section)
                        continue;
                w32(sh, (uint32_t)name_off[i], be);
                w32(sh + 4, 7, be); /* SHT_NOTE */
                waddr(sh + 8, 2, is64, be);
                waddr(sh + (is64 ? 16 : 12), blob_off[i], is64, be);
                waddr(sh + (is64 ? 24 : 16), blob_off[i], is64, be);
                waddr(sh + (is64 ? 32 : 20), b->len, is64, be);
                waddr(sh + (is64 ? 48 : 32), b->align, is64, be);
                sh += shent;
        }
        w32(sh, 1, be);
        w32(sh + 4, 3, be); /* SHT_STRTAB */
        waddr(sh + (is64 ? 24 : 16), strtab_off, is64, be);
        waddr(sh + (is64 ? 32 : 20), strtab_len, is64, be);
        waddr(sh + (is64 ? 48 : 32), 1, is64, be);
        return total;
}

uint8_t *read_file(const char *path, size_t *len) {
        FILE *f = fopen(path, "rb");
        if (!f)
                return NULL;
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        for (;;) {
                if (n == cap) {
                        cap *= 2;
                        uint8_t *b = realloc(buf, cap);
                        if (!b)
                                break;
                        buf = b;
                }
                size_t r = fread(buf + n, 1, cap - n, f);
                if (r == 0)
                        break;
                n += r;
        }
        fclose(f);
        *len = n;
        return buf;
}

static void sleep_ms(long ms) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0)
                ;
}

bool test_fifo_opened_by(const char *path, void (*fn)(void *u), void *u) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
                int fd = open(path, O_WRONLY | O_CLOEXEC);
                _exit(fd >= 0 ? 0 : 1);
        }
        if (pid < 0)
                return true; /* counted as a failure: nothing was shown */
        sleep_ms(100); /* the writer blocks in open() by now */
        fn(u);
        sleep_ms(200);
        int status;
        bool opened = waitpid(pid, &status, WNOHANG) == pid;
        if (!opened) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
        }
        return opened;
}

void test_short_struct(void *buf, size_t size, size_t short_size) {
        memset(buf, 0xa5, size);
        memcpy(buf, &short_size, sizeof short_size);
}

bool test_short_struct_kept(const void *buf, size_t size, size_t short_size) {
        const unsigned char *b = buf;
        for (size_t i = short_size; i < size; i++)
                if (b[i] != 0xa5) {
                        fprintf(stderr, "byte %zu of %zu written past the caller's size %zu\n", i, size, short_size);
                        return false;
                }
        return true;
}
