/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the kernel puts the fields pkgnote reads in NT_PRSTATUS and
 * NT_PRPSINFO, per Linux port: byte offsets of the C structs of
 * include/linux/elfcore.h (elfcore-compat.h for 32-bit processes on
 * 64-bit kernels), with each port's long and its __kernel_uid_t
 * (arch/ARCH/include/uapi/asm/posix_types.h; asm-generic's unsigned int
 * where the port does not override it).
 *
 * test-core checks that the core reader uses these offsets;
 * layouts.c, compiled by each port's own compiler (cmd-core-cross),
 * checks that they are the real struct layouts.
 *
 * LAYOUT(row, compiler command, e_machine, ELF class, big-endian,
 *        uid type, prstatus pr_pid, prpsinfo pr_uid, prpsinfo pr_pid,
 *        prpsinfo pr_fname, sizeof prpsinfo)
 */
#define PN_LAYOUTS(LAYOUT) \
        LAYOUT(0, "i686-linux-gnu-gcc", 3, 32, 0, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(1, "x86_64-linux-gnu-gcc", 62, 64, 0, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(2, "clang --target=x86_64-linux-gnux32", 62, 32, 0, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(3, "clang --target=arm-linux-gnueabihf", 40, 32, 0, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(4, "aarch64-linux-gnu-gcc", 183, 64, 0, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(5, "m68k-linux-gnu-gcc", 4, 32, 1, unsigned short, 22, 8, 12, 28, 124) \
        LAYOUT(6, "clang --target=mips-linux-gnu", 8, 32, 1, unsigned int, 24, 8, 16, 32, 128) \
        LAYOUT(7, "clang --target=mips64el-linux-gnuabi64", 8, 64, 0, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(8, "clang --target=powerpc-linux-gnu", 20, 32, 1, unsigned int, 24, 8, 16, 32, 128) \
        LAYOUT(9, "clang --target=powerpc64le-linux-gnu", 21, 64, 0, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(10, "s390x-linux-gnu-gcc -m31", 22, 32, 1, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(11, "s390x-linux-gnu-gcc", 22, 64, 1, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(12, "clang --target=sparc-linux-gnu", 2, 32, 1, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(13, "clang --target=sparc64-linux-gnu", 43, 64, 1, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(14, "clang --target=riscv32-linux-gnu", 243, 32, 0, unsigned int, 24, 8, 16, 32, 128) \
        LAYOUT(15, "clang --target=riscv64-linux-gnu", 243, 64, 0, unsigned int, 32, 16, 24, 40, 136) \
        LAYOUT(16, "sh4-linux-gnu-gcc", 42, 32, 0, unsigned short, 24, 8, 12, 28, 124) \
        LAYOUT(17, "hppa-linux-gnu-gcc", 15, 32, 1, unsigned int, 24, 8, 16, 32, 128)
