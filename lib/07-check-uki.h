/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A unified kernel image (UAPI.5 "Unified Kernel Image") as `deps
 * --verify` reads it (lib/07-check-uki.c): the bytes of its `.initrd`
 * section, an initramfs, found as the stub finds them, and the release
 * of its kernel (`.uname`, else the version string of the bzImage in
 * `.linux`), for the artefact tree (07-check-artefact.h).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "01-base-problem.h"

/* The longest kernel release: the kernel's utsname field (__NEW_UTS_LEN). */
#define PN_UKI_MAX_RELEASE 64u
/* What of a `.uname` section or a bzImage's version string is looked at. */
#define PN_UKI_MAX_UNAME 4096u

struct pn_uki {
        const uint8_t *initrd; /* inside the image's bytes */
        size_t initrd_len;
        char release[PN_UKI_MAX_RELEASE + 1]; /* "" when not known */
        const char *release_from;             /* ".uname", ".linux" or NULL */
        unsigned profiles;                    /* .profile sections */
};

/* Reads the PE image of LEN bytes at DATA (its first bytes "MZ"; DATA
 * must outlive *RET's pointers): 0 with *RET, or -ENOEXEC (an MZ file
 * without a PE header), -EBADMSG (malformed headers; a `.initrd` section
 * outside the file, over the headers, past the image's end, empty, or
 * two in the base profile), -ENODATA (no `.initrd` in the base profile),
 * -E2BIG, -ENOMEM, with pn_error set.  What does not stop the reading (a
 * `.uname` that is no kernel release, profiles with a `.initrd` of their
 * own, no release known) goes to PROBLEMS, under the section's name. */
int pn_uki_read(const uint8_t *data, size_t len, struct pn_problems *problems, struct pn_uki *ret);

/* The kernel release of the version string of the bzImage of LEN bytes
 * at DATA (the x86 boot protocol's setup header, kernel_version): 1 with
 * BUF (SIZE > PN_UKI_MAX_RELEASE) set, 0 when there is none, or -EBADMSG
 * with pn_error set when the string is there but is no release. */
int pn_uki_bzimage_release(const uint8_t *data, size_t len, char *buf, size_t size);
