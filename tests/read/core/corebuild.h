/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Builds core files the way the Linux kernel writes them (fs/binfmt_elf.c
 * elf_core_dump(), include/uapi/linux/elfcore.h), in either ELF class and
 * byte order, for tests: an ELF header, one PT_NOTE holding the CORE notes
 * (NT_PRSTATUS of the crashing thread, NT_PRPSINFO, NT_SIGINFO, NT_AUXV,
 * NT_FILE, then NT_PRSTATUS of the other threads), and one PT_LOAD per
 * mapping whose p_filesz is what was dumped (p_memsz the mapping's size),
 * the data starting on a page boundary.
 *
 * Layouts (offsets in bytes, 64-bit / 32-bit):
 *   elf_prstatus: pr_info (3 ints), short pr_cursig @12, long pr_sigpend,
 *     long pr_sighold, pid @32/@24, ppid, pgrp, sid, 4 timevals, pr_reg.
 *   elf_prpsinfo: 4 chars, long pr_flag, uid, gid, pid, ppid, pgrp, sid,
 *     fname[16], psargs[80]:
 *     136 bytes (64-bit): uid @16, fname @40;
 *     128 bytes (32-bit, 32-bit ids, e.g. ppc32): uid @8, fname @32;
 *     124 bytes (32-bit, 16-bit ids: i386, arm, s390 compat): uid @8,
 *     gid @10, pid @12, fname @28.
 *   siginfo: si_signo, si_errno, si_code, then the union aligned to a
 *     word: si_addr @16/@12; 128 bytes.
 *   NT_FILE: count, page size, count x (start, end, offset in pages),
 *     then count NUL-terminated paths.
 */
#ifndef PKGNOTE_TEST_COREBUILD_H
#define PKGNOTE_TEST_COREBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CB_MAX_MAPS 64
#define CB_MAX_THREADS 8
#define CB_MAX_AUXV 32
#define CB_MAX_EXTRA 8

enum {
        CB_NT_PRSTATUS = 1,
        CB_NT_PRPSINFO = 3,
        CB_NT_AUXV = 6,
        CB_NT_SIGINFO = 0x53494749,
        CB_NT_FILE = 0x46494c45,
        CB_AT_PHDR = 3,
        CB_AT_PAGESZ = 6,
        CB_AT_ENTRY = 9,
        CB_AT_EXECFN = 31,
        CB_AT_SYSINFO_EHDR = 33,
};

struct cb_map {
        uint64_t start, end;
        uint64_t pgoff;      /* file offset in pages */
        const char *path;    /* NULL: anonymous, not listed in NT_FILE */
        const uint8_t *data; /* bytes dumped into the core, or NULL */
        size_t data_len;
};

struct cb_note {
        const char *name;
        uint32_t type;
        const uint8_t *desc;
        size_t len;
};

/* Field offsets of the process notes (a row of layouts.h). */
struct cb_layout {
        unsigned prstatus_pid, prpsinfo_uid, uid_size, prpsinfo_pid, prpsinfo_fname, prpsinfo_size;
};

struct cb_spec {
        bool is64, be;
        uint16_t machine;
        uint64_t page;             /* 0: 4096 */
        int tids[CB_MAX_THREADS];  /* the crashing thread first */
        size_t n_threads;
        size_t more_threads;       /* further NT_PRSTATUS notes, tids 10000 on */
        int pid;                   /* NT_PRPSINFO's process id; 0: tids[0] */
        int ppid, uid, gid;
        const struct cb_layout *layout; /* NULL: by class and prpsinfo_size */
        int signal, si_code;
        uint64_t fault_addr;
        unsigned prpsinfo_size;    /* 124, 128 or 136; 0: 136 or 128 by class */
        unsigned prstatus_size;    /* 0: 336 or 144 by class */
        const char *comm, *args;
        uint64_t auxv[CB_MAX_AUXV][2];
        size_t n_auxv;
        struct cb_map maps[CB_MAX_MAPS];
        size_t n_maps;
        bool no_prpsinfo, no_siginfo, no_auxv, no_file_note;
        const uint8_t *file_note;  /* replaces the NT_FILE descriptor built from maps */
        size_t file_note_len;
        struct cb_note extra[CB_MAX_EXTRA]; /* appended to the PT_NOTE */
        size_t n_extra;
};

/* Writes V as WIDTH (2, 4 or 8) bytes in the spec's byte order. */
void cb_put(uint8_t *p, uint64_t v, unsigned width, bool be);

/* The NT_FILE descriptor for the spec's file mappings, malloc()ed. */
size_t cb_file_note(const struct cb_spec *s, uint8_t **out);

/* Builds the core into a malloc()ed buffer; returns its size, 0 on failure. */
size_t cb_build(const struct cb_spec *s, uint8_t **out);

/* Offset of program header I (0 is the PT_NOTE, 1 + k the k-th map). */
size_t cb_phdr_offset(const struct cb_spec *s, size_t i);

#endif
