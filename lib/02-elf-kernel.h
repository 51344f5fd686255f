/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a Linux kernel says about itself (lib/02-elf-kernel.c): the raw note
 * stream it publishes in /sys/kernel/notes and each module's
 * /sys/module/NAME/notes/.note.gnu.build-id, the build-id inside an x86
 * bzImage (the compressed vmlinux its setup header points at) and inside a
 * module file (.ko, .ko.xz, .ko.zst, .ko.gz).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "01-base.h"

#define PN_KERNEL_MAX_NOTES_BYTES (1u << 20) /* bytes of a raw note stream */
#define PN_KERNEL_MAX_BUILD_ID 64u            /* bytes of a build-id */
#define PN_KERNEL_MAX_VMLINUX (1024ull << 20) /* bytes decompressed before giving up on the notes */
#define PN_KERNEL_MAX_NOTE_SEGMENTS 16u       /* PT_NOTE segments of a vmlinux */
#define PN_KERNEL_MAX_KO (256u << 20)         /* bytes of a decompressed module */

/* Linux's own note types (include/uapi/linux/elf.h, include/linux/build-salt.h). */
#define PN_LINUX_ELFNOTE_BUILD_SALT 0x100u
#define PN_LINUX_ELFNOTE_LTO_INFO 0x101u

/* What a note stream holds. */
struct pn_knotes {
        uint8_t build_id[PN_KERNEL_MAX_BUILD_ID];
        size_t build_id_len; /* 0: none */
        char *salt;          /* Linux's build salt (text, escaped when shown), or NULL */
        char *package;       /* the first FDO package note's JSON (trailing NULs cut), or NULL */
        size_t n_packages;   /* FDO package notes seen */
        size_t n_notes;
};
void pn_knotes_done(struct pn_knotes *k);

/* Parses the N bytes at P as a stream of ELF notes as the kernel lays
 * them out (4-byte aligned, the machine's byte order unless BE says
 * otherwise): 0 with *K filled, -EBADMSG (a note runs past the end, a
 * build-id of 0 or more than PN_KERNEL_MAX_BUILD_ID bytes), -E2BIG (more
 * than PKGNOTE_MAX_NOTES notes, more than PN_KERNEL_MAX_NOTES_BYTES), or
 * -ENOMEM, with pn_error set; *K is empty on failure.  WHAT names the
 * stream in messages. */
int pn_knotes_parse(const uint8_t *p, size_t n, bool be, const char *what, struct pn_knotes *k);

/* The GNU build-id of a kernel image: the N bytes at P are an x86 bzImage
 * (setup header "HdrS", boot protocol 2.08 or later for the payload's
 * place) whose payload is a gzip, xz, zstd or lz4 stream or plain, or an
 * ELF vmlinux itself.  The payload is decompressed only as far as the
 * vmlinux's PT_NOTE segments reach, and no further than the build-id.  1
 * with the id in ID (PN_KERNEL_MAX_BUILD_ID bytes) and *LEN, 0 when the
 * vmlinux has no build-id, or a negative errno with pn_error set:
 * -ENOEXEC neither a bzImage nor ELF, -EOPNOTSUPP a compression this
 * build does not decode, -EBADMSG damaged, -E2BIG over a limit, -ENOMEM. */
int pn_kernel_image_build_id(const uint8_t *p, size_t n, uint8_t *id, size_t *len);

/* The GNU build-id of a kernel module file (N bytes at P: an ELF object,
 * or one compressed with gzip, xz or zstd): 1 with ID and *LEN, 0 when it
 * has none, or a negative errno with pn_error set. */
int pn_kernel_module_build_id(const uint8_t *p, size_t n, uint8_t *id, size_t *len);
