/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The formats a scan reads, in one table: how each is recognized from its
 * first bytes (its bid), where it may be met (named as an input, found in
 * a directory tree, a member of an archive), and which reader takes it
 * (09-scan-format.c runs them).  Every place that tells formats apart asks
 * this table, so a new format is one entry, one bid and one reader.
 *
 * The first entry whose bid matches wins, so the order matters: ELF,
 * then SquashFS (read in place by offset), then what libarchive reads.
 * A format whose reader a build lacks (no libarchive, no libsquashfs) is
 * still recognized, so that its absence is named.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "01-base-decompress.h"
#include "02-elf-const.h"
#include "09-scan-private.h"
#include "02-pe-view.h"

static bool begins(const uint8_t *p, size_t n, const char *magic, size_t len) {
        return n >= len && !memcmp(p, magic, len);
}

static bool bid_elf(const uint8_t *p, size_t n) {
        return begins(p, n, ELFMAG, SELFMAG);
}

/* A PE image: "MZ".  Where its PE signature lies is told by the DOS
 * header, often past the few bytes a tree walk reads first: the object
 * view tells a DOS program (no object) from a PE image. */
static bool bid_pe(const uint8_t *p, size_t n) {
        return begins(p, n, "MZ", 2);
}

bool pn_scan_object_magic(const uint8_t *p, size_t n) {
        return bid_elf(p, n) || pn_pe_magic(p, n);
}

static bool bid_squashfs(const uint8_t *p, size_t n) {
        return begins(p, n, "hsqs", 4);
}

/* A Debian package: an ar archive whose first member is debian-binary. */
static bool bid_deb(const uint8_t *p, size_t n) {
        return begins(p, n, "!<arch>\n", 8) && n >= 8 + 13 && !memcmp(p + 8, "debian-binary", 13);
}

/* Other ar archives: static libraries, whose relocatable objects ship in
 * no binary as they are, so trees do not open them. */
static bool bid_ar(const uint8_t *p, size_t n) {
        return begins(p, n, "!<arch>\n", 8);
}

static bool bid_rpm(const uint8_t *p, size_t n) {
        return begins(p, n, "\xed\xab\xee\xdb", 4);
}

/* cpio's "new" formats, as an initramfs is made of. */
static bool bid_cpio(const uint8_t *p, size_t n) {
        return begins(p, n, "07070", 5);
}

static bool bid_tar(const uint8_t *p, size_t n) {
        return n >= 262 && !memcmp(p + 257, "ustar", 5);
}

static bool bid_zip(const uint8_t *p, size_t n) {
        return begins(p, n, "PK\x03\x04", 4);
}

/* gzip, xz, zstd, bzip2, lz4. */
static bool bid_compressed(const uint8_t *p, size_t n) {
        return begins(p, n, "\x1f\x8b", 2) || begins(p, n, "\xfd" "7zXZ\0", 6) ||
               begins(p, n, "\x28\xb5\x2f\xfd", 4) || begins(p, n, "BZh", 3) || begins(p, n, "\x04\x22\x4d\x18", 4);
}

/* Whatever libarchive may make of a file named as an input. */
static bool bid_any(const uint8_t *p, size_t n) {
        (void)p, (void)n;
        return HAVE_LIBARCHIVE;
}

bool pn_scan_archive_magic(const uint8_t *p, size_t n) {
        return bid_ar(p, n) || bid_rpm(p, n) || bid_cpio(p, n) || bid_tar(p, n) || bid_zip(p, n) ||
               bid_compressed(p, n);
}

/* What the N compressed bytes at P begin with once decompressed, up to
 * SIZE bytes into OUT: the number of bytes, or -1 when it cannot be told
 * here (another compression, or too little input).  Root filesystems
 * hold thousands of compressed files that are no archive (manual pages,
 * changelogs); looking at their first bytes spares opening each. */
static ssize_t peek_inside(const uint8_t *p, size_t n, uint8_t *out, size_t size) {
        int codec = pn_codec_detect(p, n, PN_CODEC_BIT(PN_CODEC_GZIP) | PN_CODEC_BIT(PN_CODEC_ZSTD) | PN_CODEC_BIT(PN_CODEC_XZ));
        return codec != PN_CODEC_NONE ? pn_decode_prefix(codec, p, n, out, size) : -1;
}

/* A compressed file or member worth opening: what it decompresses to
 * begins like an archive too (as far as can be told cheaply). */
static bool bid_compressed_archive(const uint8_t *p, size_t n) {
        if (!bid_compressed(p, n))
                return false;
        uint8_t inner[512];
        ssize_t k = peek_inside(p, n, inner, sizeof inner);
        if (k < 0 || (k < (ssize_t)sizeof inner && n == PN_SCAN_HEAD))
                return true; /* cannot tell: let libarchive look */
        return pn_scan_archive_magic(inner, (size_t)k);
}

/* In a tree only with PKGNOTE_SCAN_OPEN_ARCHIVES. */
#define TREE_ALL (1u << 8)
#define ANYWHERE (PN_AT_INPUT | PN_AT_MEMBER)

static const struct pn_scan_format formats[] = {
        /* Read by the tree's workers and archives' readers themselves. */
        {"ELF", PN_AT_INPUT | PN_AT_TREE | PN_AT_MEMBER, bid_elf, PN_READ_ELF, false},
        /* EFI binaries, UKIs, Windows programs: read by the same view. */
        {"PE/COFF image", PN_AT_INPUT | PN_AT_TREE | PN_AT_MEMBER, bid_pe, PN_READ_ELF, false},
        /* Read in place, by offset: never in a tree, nor from a pipe. */
        {"SquashFS image", PN_AT_INPUT, bid_squashfs, PN_READ_SQUASHFS, false},
        {"Debian package", ANYWHERE | PN_AT_TREE, bid_deb, PN_READ_ARCHIVE, false},
        {"rpm package", ANYWHERE | PN_AT_TREE, bid_rpm, PN_READ_ARCHIVE, false},
        {"ar archive", ANYWHERE, bid_ar, PN_READ_ARCHIVE, false},
        {"cpio archive", ANYWHERE | TREE_ALL, bid_cpio, PN_READ_ARCHIVE, false},
        {"tar archive", ANYWHERE | TREE_ALL, bid_tar, PN_READ_ARCHIVE, false},
        {"zip archive", ANYWHERE | TREE_ALL, bid_zip, PN_READ_ARCHIVE, false},
        {"compressed archive", PN_AT_MEMBER | TREE_ALL, bid_compressed_archive, PN_READ_ARCHIVE, true},
        /* Named as an input, anything libarchive makes out. */
        {"archive", PN_AT_INPUT, bid_any, PN_READ_ARCHIVE, false},
};

const struct pn_scan_format *pn_scan_format_bid(const uint8_t *head, size_t n, unsigned at, bool all) {
        unsigned mask = at | (at == PN_AT_TREE && all ? TREE_ALL : 0);
        for (size_t i = 0; i < ELEMENTSOF(formats); i++)
                if ((formats[i].at & mask) && formats[i].bid(head, n))
                        return &formats[i];
        return NULL;
}

bool pn_scan_format_is_elf(const struct pn_scan_format *f) {
        return f && f->reader == PN_READ_ELF;
}
