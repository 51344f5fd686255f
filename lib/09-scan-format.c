/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The readers of the format table (09-scan-bid.c): a file of a format told
 * by its first bytes is read here, by the reader of its family, or its
 * absence from this build is named.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "02-elf-const.h"
#include "02-elf-view.h"
#include "09-scan-private.h"

/* Where the ELF file FD ends: past its section header table and its
 * segments' bytes (what an AppImage's runtime takes as its own size);
 * 0 when its header cannot be read. */
static uint64_t elf_end(int fd) {
        uint8_t h[64];
        if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG))
                return 0;
        bool is64 = h[EI_CLASS] == ELFCLASS64, be = h[EI_DATA] == ELFDATA2MSB;
        uint64_t shoff = is64 ? pn_rd64(h + 0x28, be) : pn_rd32(h + 0x20, be);
        uint64_t phoff = is64 ? pn_rd64(h + 0x20, be) : pn_rd32(h + 0x1c, be);
        unsigned shentsize = pn_rd16(h + (is64 ? 0x3a : 0x2e), be), shnum = pn_rd16(h + (is64 ? 0x3c : 0x30), be);
        unsigned phentsize = pn_rd16(h + (is64 ? 0x36 : 0x2a), be), phnum = pn_rd16(h + (is64 ? 0x38 : 0x2c), be);
        uint64_t end = shoff + (uint64_t)shentsize * shnum;
        if (phnum > 0 && phnum < 0xffff && phentsize >= (is64 ? 56u : 32u) && phentsize <= 256) {
                uint8_t ph[256];
                for (unsigned i = 0; i < phnum; i++) {
                        if (pread(fd, ph, phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)phentsize)
                                return 0;
                        uint64_t off = is64 ? pn_rd64(ph + 8, be) : pn_rd32(ph + 4, be);
                        uint64_t fsz = is64 ? pn_rd64(ph + 32, be) : pn_rd32(ph + 16, be);
                        if (off + fsz > end && off + fsz >= off)
                                end = off + fsz;
                }
        }
        return end;
}

/* A file named as an input that is ELF, or no format at all (a plain
 * file, counted). */
static int read_file(pkgnote_scan *s, size_t input, int fd, const struct pn_scan_place *pl) {
        atomic_fetch_add(&s->c.files, 1);
        atomic_fetch_add(&s->c.bytes, (uint64_t)pl->st->st_size);
        pkgnote_object *e;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r == -ENOEXEC)
                return PKGNOTE_SCAN_INPUT_FILE;
        if (r < 0) {
                pn_scan_add_problem(s, input, pl->path, r, "cannot read: %s", pkgnote_last_error());
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        struct pkgnote_scan_object *o = pn_scan_object_new(pl->path, input);
        if (!o || (r = pn_scan_object_fill(o, e, s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES)) < 0) {
                pn_scan_add_problem(s, input, pl->path, o ? r : -ENOMEM, "cannot read notes: %s", pkgnote_last_error());
                pn_scan_object_free(o);
                pkgnote_object_free(e);
                return PKGNOTE_SCAN_INPUT_FILE;
        }
        o->size = pkgnote_object_size(e);
        pkgnote_object_free(e);
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && pkgnote_info_package_count(o->info) > 0) {
                /* Without memory or on a read error the object has no
                 * checksums, and no problem is recorded for it. */
                uint8_t *io = malloc(IO_CHUNK);
                if (io)
                        (void)pn_scan_sum_fd(fd, io, o);
                free(io);
        }
        pn_scan_add_object(s, o);
        return PKGNOTE_SCAN_INPUT_FILE;
}

/* An ELF file named as an input; an AppImage's SquashFS payload after
 * it (past its runtime's section header table or last segment) too. */
static int read_elf(pkgnote_scan *s, size_t input, int fd, const struct pn_scan_place *pl) {
        int r = read_file(s, input, fd, pl);
        uint64_t end = elf_end(fd);
        uint8_t sq[4];
        if (r >= 0 && end >= SELFMAG && end + 96 <= (uint64_t)pl->st->st_size &&
            pread(fd, sq, sizeof sq, (off_t)end) == (ssize_t)sizeof sq && !memcmp(sq, "hsqs", 4)) {
                int k = pn_scan_squashfs(s, input, fd, end, pl->display);
                if (k < 0)
                        pn_scan_add_problem(s, input, pl->path, k, "the SquashFS payload after the ELF file: %s",
                                            pkgnote_last_error());
        }
        return r;
}

int pn_scan_format_read(pkgnote_scan *s, const struct pn_scan_format *f, size_t input, int fd,
                        const struct pn_scan_place *pl) {
        switch (f ? f->reader : PN_READ_ELF) {
        case PN_READ_ELF:
                return read_elf(s, input, fd, pl);
        case PN_READ_SQUASHFS:
#if HAVE_SQUASHFS
                return pn_scan_squashfs(s, input, fd, 0, pl->display);
#else
                break;
#endif
        case PN_READ_ARCHIVE:
#if HAVE_LIBARCHIVE
                /* A file of a tree is opened once its walk is done. */
                if (pl->at == PN_AT_TREE)
                        return pn_scan_archive_in_tree(s, input, pl->image, fd, pl->path, f->guess);
                return pn_scan_archive(s, input, fd, pl->display);
#else
                break;
#endif
        }
        return pn_error(-EOPNOTSUPP, "a %s, which this pkgnote cannot read: it was built without %s", f->name,
                        f->reader == PN_READ_SQUASHFS ? "libsquashfs" : "libarchive");
}

int pn_scan_format_stream(pkgnote_scan *s, size_t input, int fd, const char *display) {
#if HAVE_LIBARCHIVE
        int r = pn_scan_archive(s, input, fd, display);
        return r == -ENOEXEC ? pn_error(-ENOEXEC, "not an archive") : r;
#else
        (void)s, (void)input, (void)fd, (void)display;
        return pn_error(-EOPNOTSUPP, "archives read from a stream need libarchive, which this pkgnote was built without");
#endif
}
