/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A unified kernel image for `deps --verify` (07-check-uki.h).  The
 * `.initrd` section is taken as systemd-stub takes it (src/boot/pe.c):
 * from the sections of the profile booted, its bytes in the file
 * min(SizeOfRawData, VirtualSize) at PointerToRawData (the rest of
 * VirtualSize is zeros, which the kernel's unpacker skips between
 * archives).  A section a loader would not map (over the headers, past
 * SizeOfImage) or whose bytes are not in the file is refused.  A `.ucode`
 * section (a microcode cpio the stub puts before the initrd) and the
 * initrds the stub adds at boot (credentials, system extensions) hold no
 * programs and are not read.
 *
 * Profiles (UAPI.5, "Multi-Profile UKIs", systemd 257 and later): the
 * sections before the first `.profile` make the base profile; each
 * `.profile` starts profile @0, @1, ... whose sections replace those of
 * the same name of the base one when it is booted (@0 when none is
 * asked for).  The base profile's `.initrd` is what is checked; a
 * profile with a `.initrd` of its own is said, not checked.  Every UKI
 * section is a singleton in its profile: two `.initrd` (or `.linux`,
 * `.uname`) in the base profile are refused (the stub would take the
 * first, silently).
 *
 * The kernel release is `.uname`'s text (`uname -r`), else the first
 * word of the bzImage's version string (Documentation/arch/x86/boot.rst:
 * the setup header's "HdrS" at 0x202, protocol 2.00 or later at 0x206,
 * kernel_version at 0x20e pointing, less 0x200, at a NUL-terminated
 * string inside the setup sectors).  Either is refused unless it is
 * printable ASCII of at most PN_UKI_MAX_RELEASE bytes with no space.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "01-base.h"
#include "02-elf-view.h"
#include "02-pe-view.h"
#include "07-check-uki.h"

#define SECTION_INITRD ".initrd"
#define SECTION_LINUX ".linux"
#define SECTION_UNAME ".uname"
#define SECTION_PROFILE ".profile"

/* x86 boot protocol, setup header (Documentation/arch/x86/boot.rst). */
#define BZ_SETUP_SECTS 0x1f1u
#define BZ_HEADER 0x202u
#define BZ_VERSION 0x206u
#define BZ_KERNEL_VERSION 0x20eu
#define BZ_SECTOR 0x200u

/* The first section named NAME among SECTIONS[0..N): 0 with *RET (NULL
 * when there is none), -EBADMSG when there are two. */
static int singleton(const struct pn_pe *pe, size_t n, const char *name, const struct pn_pe_section **ret) {
        *ret = NULL;
        for (size_t i = 0; i < n; i++) {
                if (strcmp(pe->sections[i].name, name))
                        continue;
                if (*ret)
                        return pn_error(-EBADMSG,
                                        "two %s sections in the base profile (%zu and %zu): the UKI specification allows one",
                                        name, (size_t)(*ret - pe->sections), i);
                *ret = &pe->sections[i];
        }
        return 0;
}

/* The bytes of section S as a loader maps them from the LEN-byte file:
 * 0 with *DATA and *SIZE, or -EBADMSG with pn_error set. */
static int section_bytes(const struct pn_pe *pe, const struct pn_pe_section *s, const uint8_t *data, size_t len,
                         const uint8_t **ret, size_t *size) {
        uint32_t n = s->raw_size < s->vsize ? s->raw_size : s->vsize;
        uint64_t headers = pe->sect_off + (uint64_t)pe->n_sections * PN_PE_SECTION_SIZE;
        if (headers < pe->size_headers)
                headers = pe->size_headers;
        if (n == 0)
                return pn_error(-EBADMSG, "the %s section is empty (SizeOfRawData %u, VirtualSize %u)", s->name,
                                s->raw_size, s->vsize);
        if (!pn_range_ok(s->raw_off, n, len))
                return pn_error(-EBADMSG, "the %s section (%u bytes at file offset 0x%x) passes the end of the file (%zu bytes)",
                                s->name, n, s->raw_off, len);
        if (s->raw_off < headers)
                return pn_error(-EBADMSG, "the %s section at file offset 0x%x overlaps the headers (0x%llx bytes)", s->name,
                                s->raw_off, (unsigned long long)headers);
        if ((uint64_t)s->vaddr + s->vsize > pe->size_image)
                return pn_error(-EBADMSG,
                                "the %s section's memory (0x%x bytes at 0x%x) passes the end of the image (SizeOfImage 0x%x): no loader maps it",
                                s->name, s->vsize, s->vaddr, pe->size_image);
        *ret = data + s->raw_off;
        *size = n;
        return 0;
}

/* Whether the LEN bytes at S are a kernel release: copied into BUF.  It
 * names a directory below /usr/lib/modules: no "/", and neither "." nor
 * "..", which would name another directory. */
static bool release_ok(const uint8_t *s, size_t len, char *buf) {
        if (len == 0 || len > PN_UKI_MAX_RELEASE || (len <= 2 && !memcmp(s, "..", len)))
                return false;
        for (size_t i = 0; i < len; i++)
                if (s[i] <= ' ' || s[i] >= 0x7f || s[i] == '/')
                        return false;
        memcpy(buf, s, len);
        buf[len] = '\0';
        return true;
}

int pn_uki_bzimage_release(const uint8_t *data, size_t len, char *buf, size_t size) {
        if (size <= PN_UKI_MAX_RELEASE || len < BZ_KERNEL_VERSION + 2 || memcmp(data + BZ_HEADER, "HdrS", 4) ||
            pn_rd16(data + BZ_VERSION, false) < 0x200)
                return 0;
        uint32_t kv = pn_rd16(data + BZ_KERNEL_VERSION, false);
        if (kv == 0)
                return 0;
        /* Inside the setup sectors (0 of them means 4), and the section. */
        unsigned sects = data[BZ_SETUP_SECTS] ? data[BZ_SETUP_SECTS] : 4;
        uint64_t off = (uint64_t)kv + BZ_SECTOR, end = (uint64_t)(sects + 1) * BZ_SECTOR;
        if (end > len)
                end = len;
        if (off >= end)
                return pn_error(-EBADMSG, "its version string (at 0x%llx) lies outside the setup code (0x%llx bytes)",
                                (unsigned long long)off, (unsigned long long)end);
        size_t max = (size_t)(end - off) < PN_UKI_MAX_UNAME ? (size_t)(end - off) : PN_UKI_MAX_UNAME;
        const uint8_t *s = data + off, *nul = memchr(s, 0, max);
        if (!nul)
                return pn_error(-EBADMSG, "its version string is not terminated within %zu bytes", max);
        size_t word = strcspn((const char *)s, " ");
        if (!release_ok(s, word, buf))
                return pn_error(-EBADMSG, "its version string does not begin with a kernel release (printable, at most %u bytes)",
                                PN_UKI_MAX_RELEASE);
        return 1;
}

/* The release from `.uname` section S into U: 1, or 0 (the reason said). */
static int uname_release(const struct pn_pe *pe, const struct pn_pe_section *s, const uint8_t *data, size_t len,
                         struct pn_problems *problems, struct pn_uki *u) {
        const uint8_t *b;
        size_t n;
        if (section_bytes(pe, s, data, len, &b, &n) < 0) {
                pn_problems_add(problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, SECTION_UNAME, "%s: not used",
                                pkgnote_last_error());
                return 0;
        }
        /* Writers may end it with NULs (the section's padding) or a newline. */
        size_t l = n;
        while (l > 0 && (b[l - 1] == 0 || b[l - 1] == '\n'))
                l--;
        if (!release_ok(b, l, u->release)) {
                pn_problems_add(problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, SECTION_UNAME,
                                l > PN_UKI_MAX_RELEASE ? "%zu bytes, longer than a kernel release (at most %u bytes): not used"
                                                       : "%zu bytes that are no kernel release (control characters, spaces or not ASCII; at most %u bytes): not used",
                                l, PN_UKI_MAX_RELEASE);
                return 0;
        }
        u->release_from = SECTION_UNAME;
        return 1;
}

/* The release from the bzImage of `.linux` section S into U: 1, or 0. */
static int linux_release(const struct pn_pe *pe, const struct pn_pe_section *s, const uint8_t *data, size_t len,
                         struct pn_problems *problems, struct pn_uki *u) {
        const uint8_t *b;
        size_t n;
        int r = section_bytes(pe, s, data, len, &b, &n);
        if (r == 0 && (r = pn_uki_bzimage_release(b, n, u->release, sizeof u->release)) > 0) {
                u->release_from = SECTION_LINUX;
                return 1;
        }
        if (r < 0)
                pn_problems_add(problems, PKGNOTE_MAX_PROBLEMS, r, SECTION_LINUX, "%s: its release not known",
                                pkgnote_last_error());
        u->release[0] = '\0';
        return 0;
}

int pn_uki_read(const uint8_t *data, size_t len, struct pn_problems *problems, struct pn_uki *ret) {
        pkgnote_object *e;
        int r = pkgnote_object_from_memory(data, len, &e);
        if (r < 0)
                return r;
        const struct pn_pe *pe = e->pe;
        struct pn_uki u = {0};
        if (!pe) {
                r = pn_error(-ENOEXEC, "not a PE file");
                goto out;
        }
        /* The base profile: the sections before the first .profile. */
        size_t base = pe->n_sections;
        for (size_t i = 0; i < pe->n_sections; i++)
                if (!strcmp(pe->sections[i].name, SECTION_PROFILE)) {
                        if (!u.profiles++)
                                base = i;
                } else if (u.profiles && !strcmp(pe->sections[i].name, SECTION_INITRD)) {
                        char where[32];
                        snprintf(where, sizeof where, "%s@%u", SECTION_INITRD, u.profiles - 1);
                        pn_problems_add(problems, PKGNOTE_MAX_PROBLEMS, 0, where,
                                        "profile @%u has a .initrd of its own, which replaces the base profile's when it is booted: not checked",
                                        u.profiles - 1);
                }
        const struct pn_pe_section *initrd, *lx, *un;
        if ((r = singleton(pe, base, SECTION_INITRD, &initrd)) < 0 || (r = singleton(pe, base, SECTION_LINUX, &lx)) < 0 ||
            (r = singleton(pe, base, SECTION_UNAME, &un)) < 0)
                goto out;
        if (!initrd) {
                r = pn_error(-ENODATA, u.profiles ? "a PE file without a .initrd section in its base profile: no initramfs to verify"
                                                  : "a PE file without a .initrd section: no initramfs to verify");
                goto out;
        }
        if ((r = section_bytes(pe, initrd, data, len, &u.initrd, &u.initrd_len)) < 0)
                goto out;
        if (!(un && uname_release(pe, un, data, len, problems, &u)) && !(lx && linux_release(pe, lx, data, len, problems, &u)))
                pn_problems_add(problems, PKGNOTE_MAX_PROBLEMS, 0, lx ? SECTION_LINUX : SECTION_UNAME,
                                lx ? "no kernel release (no usable .uname, no version string in the kernel): its modules not checked"
                                   : "no .linux section (a PE addon?) and no usable .uname: no kernel, its modules not checked");
        *ret = u;
out:
        pkgnote_object_free(e);
        return r;
}
