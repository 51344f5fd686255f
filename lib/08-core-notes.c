/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process notes of a core: NT_PRSTATUS (one per thread), NT_PRPSINFO,
 * NT_SIGINFO and NT_AUXV, read field by field at offsets derived from the
 * architecture's own struct layout, never assumed.
 *
 * The kernel writes its C structs as they are laid out by the ABI of the
 * process (include/linux/elfcore.h, and elfcore-compat.h for 32-bit
 * processes on 64-bit kernels, which match the native 32-bit layouts):
 *
 *   struct elf_prstatus_common {
 *           struct elf_siginfo pr_info;   3 ints
 *           short pr_cursig;              @12
 *           unsigned long pr_sigpend, pr_sighold;
 *           pid_t pr_pid, pr_ppid, pr_pgrp, pr_sid; ...
 *   };
 *   struct elf_prpsinfo {
 *           char pr_state, pr_sname, pr_zomb, pr_nice;
 *           unsigned long pr_flag;
 *           __kernel_uid_t pr_uid; __kernel_gid_t pr_gid;
 *           pid_t pr_pid, pr_ppid, pr_pgrp, pr_sid;
 *           char pr_fname[16], pr_psargs[80];
 *   };
 *
 * Three things vary: the width of long (the ELF class), the alignment of
 * long (2 on m68k, its size elsewhere) and the width of __kernel_uid_t
 * (16 bits on the 32-bit ports that kept the old type: i386, x32, arm,
 * m68k, sh, sparc, s390; 32 bits on the others and every 64-bit port).
 * tests/read/core/layouts.h checks the offsets below against each ABI's own
 * compiler.
 */
#include <stdlib.h>
#include <string.h>

#include "08-core-private.h"
#include "02-elf-const.h"

static size_t align_up(size_t x, size_t a) {
        return (x + a - 1) / a * a;
}

bool pn_core_layout(unsigned machine, bool is64, struct pn_core_layout *l) {
        size_t word = is64 ? 8 : 4;
        size_t long_align = machine == EM_68K && !is64 ? 2 : word;
        /* The ports whose 32-bit __kernel_uid_t (or __compat_uid_t) is
         * unsigned short; x32 (ELFCLASS32 on EM_X86_64) uses the x86
         * compat types. */
        bool uid16 = !is64 && (machine == EM_386 || machine == EM_X86_64 || machine == EM_ARM || machine == EM_68K ||
                               machine == EM_SH || machine == EM_SPARC || machine == EM_SPARC32PLUS ||
                               machine == EM_S390);
        size_t int_align = long_align < 4 ? long_align : 4;
        *l = (struct pn_core_layout){.word = word, .id_size = uid16 ? 2 : 4};
        size_t sigpend = align_up(12 + 2, long_align);
        l->prstatus_pid = sigpend + 2 * word;
        l->prstatus_min = l->prstatus_pid + 8; /* through pr_ppid */
        l->prpsinfo_uid = align_up(4, long_align) + word;
        l->prpsinfo_pid = align_up(l->prpsinfo_uid + 2 * l->id_size, int_align);
        l->prpsinfo_fname = l->prpsinfo_pid + 16;
        l->prpsinfo_size = align_up(l->prpsinfo_fname + 16 + 80, long_align);
        static const unsigned known[] = {EM_SPARC, EM_386,   EM_68K,     EM_MIPS,    EM_PARISC, EM_SPARC32PLUS,
                                         EM_PPC,   EM_PPC64, EM_S390,    EM_ARM,     EM_SH,     EM_SPARCV9,
                                         EM_IA_64, EM_X86_64, EM_AARCH64, EM_RISCV, EM_LOONGARCH, EM_ALPHA};
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (known[i] == machine)
                        return true;
        return false;
}

static void copy_cstr(char *dst, size_t cap, const uint8_t *src, size_t len) {
        size_t n = 0;
        while (n < len && n + 1 < cap && src[n])
                n++;
        memcpy(dst, src, n);
        dst[n] = 0;
}

void pn_core_parse_prstatus(pkgnote_core *c, const pkgnote_note *n) {
        struct pn_core_layout l;
        pn_core_layout(c->machine, c->is64, &l);
        if (n->descsz < l.prstatus_min)
                return pn_core_problem(c, "NT_PRSTATUS of %u bytes is too short", n->descsz);
        int tid = (int)pn_rd32(n->desc + l.prstatus_pid, c->be);
        int sig = (int16_t)pn_rd16(n->desc + 12, c->be);
        if (c->n_threads < PKGNOTE_MAX_THREADS) {
                if (PN_GROW(c->threads, c->cap_threads, c->n_threads + 1) == 0)
                        c->threads[c->n_threads++] = (pkgnote_thread_info){.tid = tid, .signal = sig};
                else
                        c->oom = true;
        }
        if (!c->have_tid) { /* the kernel writes the crashing thread first */
                c->tid = tid;
                c->have_tid = true;
                c->prstatus_ppid = (int)pn_rd32(n->desc + l.prstatus_pid + 4, c->be);
                if (!c->have_signal && sig > 0) {
                        c->signal = sig;
                        c->have_signal = true;
                }
        }
}

void pn_core_parse_prpsinfo(pkgnote_core *c, const pkgnote_note *n) {
        struct pn_core_layout l;
        bool known = pn_core_layout(c->machine, c->is64, &l);
        if (n->descsz != l.prpsinfo_size) {
                /* A port not listed above, or a dumper that wrote another
                 * port's struct: the sizes of the three layouts with
                 * natural alignment still tell them apart. */
                struct pn_core_layout alt;
                pn_core_layout(n->descsz == 124 ? EM_386 : 0, n->descsz == 136, &alt);
                if (n->descsz != alt.prpsinfo_size)
                        return pn_core_problem(c, "NT_PRPSINFO of %u bytes has an unknown layout", n->descsz);
                if (known)
                        pn_core_problem(c, "NT_PRPSINFO of %u bytes does not have this architecture's layout (%zu bytes); read by its size",
                                        n->descsz, l.prpsinfo_size);
                l = alt;
        }
        const uint8_t *d = n->desc;
        bool w4 = l.id_size == 4;
        c->uid = w4 ? (int)pn_rd32(d + l.prpsinfo_uid, c->be) : pn_rd16(d + l.prpsinfo_uid, c->be);
        c->gid = w4 ? (int)pn_rd32(d + l.prpsinfo_uid + 4, c->be) : pn_rd16(d + l.prpsinfo_uid + 2, c->be);
        c->have_ids = true;
        c->pid = (int)pn_rd32(d + l.prpsinfo_pid, c->be);
        c->ppid = (int)pn_rd32(d + l.prpsinfo_pid + 4, c->be);
        c->have_pid = c->have_ppid = true;
        copy_cstr(c->comm, sizeof c->comm, d + l.prpsinfo_fname, 16);
        char args[81];
        copy_cstr(args, sizeof args, d + l.prpsinfo_fname + 16, 80);
        free(c->args);
        if (!(c->args = strdup(args)))
                c->oom = true;
        /* psargs pads with spaces */
        for (size_t len = c->args ? strlen(c->args) : 0; len > 0 && c->args[len - 1] == ' '; len--)
                c->args[len - 1] = 0;
}

void pn_core_parse_siginfo(pkgnote_core *c, const pkgnote_note *n) {
        if (n->descsz < 12)
                return;
        c->signal = (int)pn_rd32(n->desc, c->be);
        c->have_signal = true;
        /* si_addr for the fault signals: after three ints, aligned to a word. */
        size_t at = c->is64 ? 16 : 12;
        /* si_addr means a faulting address only when the kernel raised the
         * signal (si_code > 0), not for kill(2) (SI_USER, 0). */
        int code = (int)pn_rd32(n->desc + 8, c->be);
        if (code > 0 && (c->signal == 4 || c->signal == 7 || c->signal == 8 || c->signal == 11)) {
                if (n->descsz >= at + (c->is64 ? 8 : 4)) {
                        c->fault_addr = pn_core_word(c, n->desc + at);
                        c->have_fault_addr = true;
                }
        }
}

void pn_core_parse_auxv(pkgnote_core *c, const uint8_t *desc, size_t len) {
        size_t w = c->is64 ? 8 : 4;
        for (size_t i = 0; i + 2 * w <= len; i += 2 * w) {
                uint64_t type = pn_core_word(c, desc + i), val = pn_core_word(c, desc + i + w);
                if (type == 0)
                        break;
                if (type == AT_PHDR)
                        c->auxv_phdr = val;
                else if (type == AT_PHNUM)
                        c->auxv_phnum = val;
                else if (type == AT_ENTRY)
                        c->auxv_entry = val;
                else if (type == AT_EXECFN)
                        c->auxv_execfn = val;
                else if (type == AT_SYSINFO_EHDR)
                        c->auxv_vdso = val;
        }
}

/* Who the process was once all notes are read: the process id comes from
 * NT_PRPSINFO (pr_pid is the thread group); NT_PRSTATUS's pr_pid is the
 * crashing thread, which is the process only when it is the one thread. */
void pn_core_settle_ids(pkgnote_core *c) {
        if (!c->have_pid && c->have_tid && c->n_threads == 1) {
                c->pid = c->tid;
                c->have_pid = true;
        }
        if (!c->have_ppid && c->have_tid) {
                c->ppid = c->prstatus_ppid;
                c->have_ppid = true;
        }
}
