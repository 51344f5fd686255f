/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ELF constants the library uses: <elf.h>, fallbacks for the few an
 * older <elf.h> lacks, and the size of the first page a core dump
 * carries.
 */
#ifndef PKGNOTE_ELFCONST_H
#define PKGNOTE_ELFCONST_H

#include <elf.h>

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif
#ifndef EF_LARCH_ABI_DOUBLE_FLOAT
#define EF_LARCH_ABI_DOUBLE_FLOAT 0x03
#endif
#ifndef EF_LARCH_OBJABI_V1
#define EF_LARCH_OBJABI_V1 0x40
#endif

#ifndef SHT_RELR
#define SHT_RELR 19
#endif
#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN (1 << 21)
#endif
#ifndef DT_RELR
#define DT_RELR 36
#endif
#ifndef DT_RELRENT
#define DT_RELRENT 37
#endif
#ifndef DF_1_NODEFLIB
#define DF_1_NODEFLIB 0x00000800
#endif
#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

#ifndef PT_GNU_PROPERTY
#define PT_GNU_PROPERTY 0x6474e553
#endif
#ifndef NT_GNU_PROPERTY_TYPE_0
#define NT_GNU_PROPERTY_TYPE_0 5
#endif
#ifndef GNU_PROPERTY_X86_FEATURE_1_AND
#define GNU_PROPERTY_X86_FEATURE_1_AND 0xc0000002
#endif
#ifndef GNU_PROPERTY_X86_FEATURE_1_IBT
#define GNU_PROPERTY_X86_FEATURE_1_IBT (1U << 0)
#endif
#ifndef GNU_PROPERTY_X86_FEATURE_1_SHSTK
#define GNU_PROPERTY_X86_FEATURE_1_SHSTK (1U << 1)
#endif
#ifndef GNU_PROPERTY_AARCH64_FEATURE_1_AND
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000
#endif
#ifndef GNU_PROPERTY_AARCH64_FEATURE_1_BTI
#define GNU_PROPERTY_AARCH64_FEATURE_1_BTI (1U << 0)
#endif
#ifndef GNU_PROPERTY_AARCH64_FEATURE_1_PAC
#define GNU_PROPERTY_AARCH64_FEATURE_1_PAC (1U << 1)
#endif

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

/* The kernel keeps only the first page of a file mapping in a core dump
 * (fs/binfmt_elf.c, vma_dump_size(): coredump_filter bit 4).  4096 is the
 * smallest page size, so what lies in the first 4096 bytes of a file is
 * dumped on every architecture, kernels with larger pages included. */
#define PN_FIRST_PAGE 4096u

#endif
