/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A checked view over the bytes of an ELF object, from a file or memory.
 *
 * Fields are read by offset and width in the object's own byte order
 * (gABI "ELF Header", "Program Header", "Sections"); no structure is ever
 * overlaid on the bytes.  Files are read with pread(): the first page at
 * open time (headers and notes normally live there), other ranges only when
 * asked for, so a view costs one read for most binaries.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "02-elf-const.h"
#include "02-elf-view.h"
#include "output.h"
#include "02-pe-view.h"

#define HEAD_SIZE 4096u

/* Parses the ELF header and program headers; section headers wait. */
static int parse_header(pkgnote_object *e) {
        int err;
        const uint8_t *h = pn_elf_bytes(e, 0, 16, &err);
        if (h && h[0] == 'M' && h[1] == 'Z') {
                int r = pn_pe_parse(e, &e->pe);
                if (r < 0)
                        return r;
                /* The ELF-shaped fields a PE image answers too. */
                e->is64 = e->pe->magic == PN_PE_MAGIC_PE32PLUS;
                e->machine = pn_pe_elf_machine(e->pe->machine);
                return 0;
        }
        if (!h || memcmp(h, ELFMAG, SELFMAG) != 0)
                return pn_error(-ENOEXEC, "not an ELF file");
        if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
                return pn_error(-EBADMSG, "unknown ELF class %u", h[EI_CLASS]);
        if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
                return pn_error(-EBADMSG, "unknown ELF data encoding %u", h[EI_DATA]);
        e->is64 = h[EI_CLASS] == ELFCLASS64;
        e->be = h[EI_DATA] == ELFDATA2MSB;
        bool be = e->be;
        uint64_t ehsize = e->is64 ? 64 : 52;
        h = pn_elf_bytes(e, 0, ehsize, &err);
        if (!h)
                return pn_error(-EBADMSG, "truncated ELF header");
        e->type = pn_rd16(h + 16, be);
        e->machine = pn_rd16(h + 18, be);
        if (e->is64) {
                e->phoff = pn_rd64(h + 32, be);
                e->shoff = pn_rd64(h + 40, be);
                e->eflags = pn_rd32(h + 48, be);
        } else {
                e->phoff = pn_rd32(h + 28, be);
                e->shoff = pn_rd32(h + 32, be);
                e->eflags = pn_rd32(h + 36, be);
        }
        const uint8_t *t = h + (e->is64 ? 54 : 42);
        e->phentsize = pn_rd16(t, be);
        e->phnum = pn_rd16(t + 2, be);
        e->shentsize = pn_rd16(t + 4, be);
        e->shnum = pn_rd16(t + 6, be);
        e->shstrndx = pn_rd16(t + 8, be);

        /* gABI extended numbering: counts that do not fit live in section 0. */
        if (e->shoff != 0 && (e->phnum == PN_XNUM || e->shnum == 0 || e->shstrndx == SHN_XINDEX)) {
                uint64_t shent = e->is64 ? 64 : 40;
                if (e->shentsize < shent)
                        return pn_error(-EBADMSG, "section header size %u too small", e->shentsize);
                const uint8_t *s0 = pn_elf_bytes(e, e->shoff, shent, &err);
                if (!s0)
                        return pn_error(-EBADMSG, "section header 0 (extended numbering) lies outside the file");
                uint64_t size = e->is64 ? pn_rd64(s0 + 32, be) : pn_rd32(s0 + 20, be);
                uint32_t link = pn_rd32(s0 + (e->is64 ? 40 : 24), be);
                uint32_t info = pn_rd32(s0 + (e->is64 ? 44 : 28), be);
                if (e->phnum == PN_XNUM)
                        e->phnum = info;
                if (e->shnum == 0)
                        e->shnum = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
                if (e->shstrndx == SHN_XINDEX)
                        e->shstrndx = link;
        } else if (e->shoff == 0)
                e->shnum = 0;

        if (e->phnum > PKGNOTE_MAX_PHDRS)
                return pn_error(-E2BIG, "%u program headers, more than the limit of %u", e->phnum,
                                PKGNOTE_MAX_PHDRS);
        if (e->phnum == 0)
                return 0;
        uint64_t phent = e->is64 ? 56 : 32;
        if (e->phentsize < phent)
                return pn_error(-EBADMSG, "program header size %u too small", e->phentsize);
        const uint8_t *p = pn_elf_bytes(e, e->phoff, (uint64_t)e->phnum * e->phentsize, &err);
        if (!p && err != -EBADMSG && err != -ENODATA)
                return err; /* memory or the file's reading failed: not the file's shape */
        if (!p)
                return pn_error(-EBADMSG, "program headers lie outside the file");
        e->phdrs = calloc(e->phnum, sizeof *e->phdrs);
        if (!e->phdrs)
                return pn_oom();
        for (uint32_t i = 0; i < e->phnum; i++, p += e->phentsize) {
                pkgnote_phdr *ph = &e->phdrs[i];
                ph->type = pn_rd32(p, be);
                if (e->is64) {
                        ph->flags = pn_rd32(p + 4, be);
                        ph->offset = pn_rd64(p + 8, be);
                        ph->vaddr = pn_rd64(p + 16, be);
                        ph->filesz = pn_rd64(p + 32, be);
                        ph->memsz = pn_rd64(p + 40, be);
                        ph->align = pn_rd64(p + 48, be);
                } else {
                        ph->offset = pn_rd32(p + 4, be);
                        ph->vaddr = pn_rd32(p + 8, be);
                        ph->filesz = pn_rd32(p + 16, be);
                        ph->memsz = pn_rd32(p + 20, be);
                        ph->flags = pn_rd32(p + 24, be);
                        ph->align = pn_rd32(p + 28, be);
                }
        }
        return 0;
}

static int elf_new(pkgnote_object **ret) {
        /* The 4 KiB head is written by the read before it is read: clearing
         * it would cost more than the read, for every file of a scan. */
        pkgnote_object *e = malloc(sizeof *e);
        if (!e)
                return pn_oom();
        memset(e, 0, offsetof(pkgnote_object, head));
        e->fd = -1;
        *ret = e;
        return 0;
}

static int elf_finish(pkgnote_object *e, pkgnote_object **ret) {
        int r = parse_header(e);
        if (r < 0) {
                pkgnote_object_free(e);
                return r;
        }
        *ret = e;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_object_from_memory(const void *data, size_t size, pkgnote_object **ret) {
        pkgnote_object *e = NULL;
        if (!data && size)
                return pn_error(-EINVAL, "no data");
        int r = elf_new(&e);
        if (r < 0)
                return r;
        e->mem = data ? data : (const uint8_t *)"";
        e->size = size;
        return elf_finish(e, ret);
}

int pn_elf_from_prefix(const void *data, size_t size, pkgnote_object **ret) {
        pkgnote_object *e = NULL;
        int r = elf_new(&e);
        if (r < 0)
                return r;
        e->mem = data ? data : (const uint8_t *)"";
        e->size = size;
        e->partial = true;
        return elf_finish(e, ret);
}

int pn_elf_from_spans(const struct pn_span *spans, size_t n, const uint8_t *bytes, uint64_t size, bool partial,
                      pkgnote_object **ret) {
        pkgnote_object *e = NULL;
        int r = elf_new(&e);
        if (r < 0)
                return r;
        static const struct pn_span none;
        e->spans = n ? spans : &none;
        e->n_spans = n;
        e->span_bytes = bytes;
        e->size = size;
        e->partial = partial;
        return elf_finish(e, ret);
}

/* Reads a non-seekable input (pipe, character device) whole, bounded. */
static int slurp(pkgnote_object *e, int fd) {
        char *buf;
        size_t len;
        int r = pn_read_all(fd, PKGNOTE_MAX_READ, &buf, &len);
        if (r == -E2BIG)
                return pn_error(r, "input larger than %u bytes", PKGNOTE_MAX_READ);
        if (r < 0)
                return r == -ENOMEM ? pn_oom() : pn_error(r, "read failed: %s", strerror(-r));
        e->owned = (uint8_t *)buf;
        e->mem = (const uint8_t *)buf;
        e->size = len;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_object_open_fd(int fd, pkgnote_object **ret) {
        pkgnote_object *e = NULL;
        int r = elf_new(&e);
        if (r < 0)
                return r;
        /* Read the first page before anything else: most files met in a
         * scan are not ELF, and for them that one read is all it costs. */
        ssize_t n;
        do
                n = pread(fd, e->head, HEAD_SIZE, 0);
        while (n < 0 && errno == EINTR);
        r = n < 0 ? pn_error(-errno, "read failed: %s", strerror(errno)) : 0;
        uint64_t got = n > 0 ? (uint64_t)n : 0;
        e->bytes_read += got;
        if (r == -ESPIPE) {
                /* A pipe or socket: read it whole, bounded. */
                r = slurp(e, fd);
                if (r < 0) {
                        pkgnote_object_free(e);
                        return r;
                }
                return elf_finish(e, ret);
        }
        if (r < 0) {
                pkgnote_object_free(e);
                return r == -EISDIR ? pn_error(-EISDIR, "is a directory") : r;
        }
        e->head_len = got;
        if ((got < SELFMAG || memcmp(e->head, ELFMAG, SELFMAG) != 0) && (got < 2 || memcmp(e->head, "MZ", 2))) {
                pkgnote_object_free(e);
                return pn_error(-ENOEXEC, "not an ELF file");
        }
        struct stat st;
        if (fstat(fd, &st) < 0) {
                r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                pkgnote_object_free(e);
                return r;
        }
        if (S_ISREG(st.st_mode) && got < HEAD_SIZE && (uint64_t)st.st_size > got) {
                /* A short read that was not the end of the file. */
                uint64_t more;
                r = pn_elf_read_full(e, fd, e->head + got, HEAD_SIZE - got, got, &more);
                if (r < 0) {
                        pkgnote_object_free(e);
                        return r;
                }
                got += more;
                e->head_len = got;
        }
        e->fd = fd;
        /* A file that shrank under us, or a device: trust what was read. */
        e->size = S_ISREG(st.st_mode) && (uint64_t)st.st_size >= got ? (uint64_t)st.st_size : got;
        return elf_finish(e, ret);
}

PKGNOTE_PUBLIC int pkgnote_object_open(const char *path, pkgnote_object **ret) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return pn_error(-errno, "cannot open: %s", strerror(errno));
        pkgnote_object *e = NULL;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r < 0) {
                close(fd);
                return r;
        }
        e->own_fd = true;
        *ret = e;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_object_free(pkgnote_object *e) {
        if (!e)
                return;
        pn_elf_chunks_free(e);
        if (e->own_fd && e->fd >= 0)
                close(e->fd);
        pn_problems_clear(&e->problems);
        free(e->notes_warning);
        free(e->owned);
        free(e->phdrs);
        free(e->shdrs);
        pn_pe_free(e->pe);
        free(e->notes);
        free(e);
}

PKGNOTE_PUBLIC int pkgnote_object_class(const pkgnote_object *e) {
        return e->is64 ? 64 : 32;
}
PKGNOTE_PUBLIC int pkgnote_object_big_endian(const pkgnote_object *e) {
        return e->be;
}
PKGNOTE_PUBLIC unsigned pkgnote_object_type(const pkgnote_object *e) {
        return e->type;
}
PKGNOTE_PUBLIC unsigned pkgnote_object_machine(const pkgnote_object *e) {
        return e->machine;
}
uint32_t pn_elf_eflags(const pkgnote_object *e) {
        return e->eflags;
}
PKGNOTE_PUBLIC uint64_t pkgnote_object_size(const pkgnote_object *e) {
        return e->size;
}

PKGNOTE_PUBLIC const char *pkgnote_object_type_name(unsigned type) {
        static const char *const names[] = {"NONE", "REL", "EXEC", "DYN", "CORE"};
        return type < ELEMENTSOF(names) ? names[type] : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_machine_name(unsigned machine, int elf_class) {
        bool is64 = elf_class == 64;
        switch (machine) {
        case EM_SPARC: return is64 ? "sparc64" : "sparc";
        case EM_386: return "i386";
        case EM_68K: return "m68k";
        case EM_MIPS: return is64 ? "mips64" : "mips";
        case EM_PARISC: return "parisc";
        case EM_SPARC32PLUS: return "sparc";
        case EM_PPC: return "ppc";
        case EM_PPC64: return "ppc64";
        case EM_S390: return is64 ? "s390x" : "s390";
        case EM_ARM: return "arm";
        case EM_SH: return "sh";
        case EM_SPARCV9: return "sparc64";
        case EM_IA_64: return "ia64";
        case EM_X86_64: return is64 ? "x86-64" : "x32";
        case EM_AARCH64: return "aarch64";
        case EM_RISCV: return is64 ? "riscv64" : "riscv32";
        case EM_BPF: return "bpf";
        case EM_LOONGARCH: return is64 ? "loongarch64" : "loongarch32";
        case EM_ALPHA: return "alpha";
        default: return NULL;
        }
}

int pn_object_phdrs(pkgnote_object *e, const pkgnote_phdr **ret) {
        *ret = e->phdrs;
        return (int)e->phnum;
}

/* Section names bounded by the table: a name must end inside it. */
static const char *section_name(const uint8_t *tab, uint64_t tab_len, uint32_t off) {
        if (!tab || off >= tab_len)
                return "";
        const void *nul = memchr(tab + off, 0, tab_len - off);
        return nul ? (const char *)tab + off : "";
}

static int read_shdrs(pkgnote_object *e) {
        int err;
        if (e->shnum == 0)
                return 0;
        if (e->shnum > PKGNOTE_MAX_SHDRS)
                return pn_error(-E2BIG, "%u section headers, more than the limit of %u", e->shnum,
                                PKGNOTE_MAX_SHDRS);
        uint64_t shent = e->is64 ? 64 : 40;
        if (e->shentsize < shent)
                return pn_error(-EBADMSG, "section header size %u too small", e->shentsize);
        if (e->partial && !pn_range_ok(e->shoff, (uint64_t)e->shnum * e->shentsize, e->size))
                return 0; /* not part of the bytes we have */
        const uint8_t *p = pn_elf_bytes(e, e->shoff, (uint64_t)e->shnum * e->shentsize, &err);
        if (!p && err != -EBADMSG && err != -ENODATA)
                return err; /* memory or the file's reading failed: not the file's shape */
        if (!p)
                return pn_error(-EBADMSG, "section headers lie outside the file");
        pkgnote_shdr *s = calloc(e->shnum, sizeof *s);
        if (!s)
                return pn_oom();
        bool be = e->be;
        uint32_t *name_off = calloc(e->shnum, sizeof *name_off);
        if (!name_off) {
                free(s);
                return pn_oom();
        }
        for (uint32_t i = 0; i < e->shnum; i++, p += e->shentsize) {
                name_off[i] = pn_rd32(p, be);
                s[i].type = pn_rd32(p + 4, be);
                if (e->is64) {
                        s[i].flags = pn_rd64(p + 8, be);
                        s[i].addr = pn_rd64(p + 16, be);
                        s[i].offset = pn_rd64(p + 24, be);
                        s[i].size = pn_rd64(p + 32, be);
                        s[i].align = pn_rd64(p + 48, be);
                } else {
                        s[i].flags = pn_rd32(p + 8, be);
                        s[i].addr = pn_rd32(p + 12, be);
                        s[i].offset = pn_rd32(p + 16, be);
                        s[i].size = pn_rd32(p + 20, be);
                        s[i].align = pn_rd32(p + 32, be);
                }
        }
        const uint8_t *tab = NULL;
        uint64_t tab_len = 0;
        if (e->shstrndx != 0 && e->shstrndx < e->shnum && s[e->shstrndx].type != SHT_NOBITS) {
                tab_len = s[e->shstrndx].size;
                if (tab_len > PKGNOTE_MAX_SHSTRTAB)
                        tab_len = 0;
                else
                        tab = pn_elf_bytes(e, s[e->shstrndx].offset, tab_len, &err);
                if (!tab && tab_len && err != -EBADMSG && err != -ENODATA) {
                        free(name_off);
                        free(s);
                        return err; /* memory or the file's reading failed */
                }
                if (!tab)
                        pn_elf_problem(e, -EBADMSG, "section name table lies outside the file");
        }
        for (uint32_t i = 0; i < e->shnum; i++)
                s[i].name = section_name(tab, tab_len, name_off[i]);
        free(name_off);
        e->shdrs = s;
        e->n_shdrs = e->shnum;
        return 0;
}

int pn_object_shdrs(pkgnote_object *e, const pkgnote_shdr **ret) {
        if (!e->shdrs_read) {
                e->shdrs_read = true;
                e->shdrs_err = read_shdrs(e);
        }
        if (e->shdrs_err < 0)
                return e->shdrs_err;
        *ret = e->shdrs;
        return (int)e->n_shdrs;
}

PKGNOTE_PUBLIC size_t pkgnote_object_problem_count(const pkgnote_object *e) {
        return e->problems.n;
}

PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_object_problem(const pkgnote_object *e, size_t i) {
        return pn_problems_get(&e->problems, i);
}

/* What the object is, in words: the "elfType" of the JSON reports. */
PKGNOTE_PUBLIC const char *pkgnote_object_kind(pkgnote_object *e) {
        const pkgnote_phdr *ph;
        int n;
        if (pkgnote_object_is_pe(e)) {
                const char *sub = pkgnote_pe_subsystem_name(pkgnote_pe_subsystem(e));
                if (sub && !strncmp(sub, "EFI ", 4))
                        return sub;
                return pkgnote_pe_dll(e) ? "DLL" : "PE executable";
        }
        switch (pkgnote_object_type(e)) {
        case ET_REL: return "relocatable";
        case ET_EXEC: return "executable";
        case ET_DYN:
                n = pn_object_phdrs(e, &ph);
                for (int i = 0; i < n; i++)
                        if (ph[i].type == PT_INTERP)
                                return "executable";
                return "shared object";
        case ET_CORE: return "core";
        default: return "unknown";
        }
}
