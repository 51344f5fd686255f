/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An initramfs read from memory (01-base-cpio.h): the sequence of "newc"
 * cpio archives the kernel unpacks, each plain or compressed.  A real
 * initrd is an uncompressed archive (microcode, often modules) followed
 * by a compressed one with the root; the kernel's own reader
 * (init/initramfs.c, unpack_to_rootfs()) skips zero bytes between
 * archives (padding to 4 bytes, or more) and decompresses a stream it
 * recognises by its magic, then reads on after its end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-cpio.h"
#include "01-base-decompress.h"
#include "01-base.h"

void pn_initramfs_done(struct pn_initramfs *ir) {
        for (size_t i = 0; i < ir->n_bufs; i++)
                free(ir->bufs[i]);
        free(ir->bufs);
        *ir = (struct pn_initramfs){0};
}

/* The 8 hex digits at P: true with *V. */
static bool hex8(const uint8_t *p, uint32_t *v) {
        uint32_t x = 0;
        for (int i = 0; i < 8; i++) {
                unsigned c = p[i], d;
                if (c >= '0' && c <= '9')
                        d = c - '0';
                else if (c >= 'a' && c <= 'f')
                        d = c - 'a' + 10;
                else if (c >= 'A' && c <= 'F')
                        d = c - 'A' + 10;
                else
                        return false;
                x = x << 4 | d;
        }
        *v = x;
        return true;
}

static bool is_cpio(const uint8_t *p, size_t n) {
        return n >= 6 && !memcmp(p, "07070", 5) && (p[5] == '1' || p[5] == '2');
}

struct walk {
        uint64_t limit, decoded;
        size_t entries;
        pn_cpio_fn fn;
        void *u;
        struct pn_initramfs *ir;
};

/* One cpio archive at DATA[*OFF..LEN), up to its trailer; *OFF after it. */
static int read_archive(struct walk *w, const uint8_t *data, size_t len, size_t *off, bool in_stream) {
        unsigned archive = w->ir->archives++;
        for (size_t at = *off;;) {
                uint32_t f[13];
                if (len - at < PN_CPIO_HEADER)
                        return pn_error(-EBADMSG, "cpio archive %u: entry header at offset %zu cut short%s", archive, at,
                                        in_stream ? " (a truncated compressed stream?)" : "");
                if (!is_cpio(data + at, len - at))
                        return pn_error(-EBADMSG, "cpio archive %u: no cpio header at offset %zu", archive, at);
                for (int i = 0; i < 13; i++)
                        if (!hex8(data + at + 6 + 8 * i, &f[i]))
                                return pn_error(-EBADMSG, "cpio archive %u: header at offset %zu: field %d is not hexadecimal",
                                                archive, at, i);
                /* c_ino, c_mode, c_uid, c_gid, c_nlink, c_mtime, c_filesize,
                 * c_devmajor, c_devminor, c_rdevmajor, c_rdevminor,
                 * c_namesize, c_check */
                uint32_t namesize = f[11], filesize = f[6];
                if (namesize == 0 || namesize > PN_CPIO_MAX_NAME)
                        return pn_error(-EBADMSG, "cpio archive %u: entry at offset %zu: name size %u out of range", archive,
                                        at, namesize);
                size_t name_at = at + PN_CPIO_HEADER;
                if (len - name_at < namesize)
                        return pn_error(-EBADMSG, "cpio archive %u: entry at offset %zu: name cut short%s", archive, at,
                                        in_stream ? " (a truncated compressed stream?)" : "");
                const char *name = (const char *)data + name_at;
                if (name[namesize - 1] != '\0' || memchr(name, 0, namesize - 1))
                        return pn_error(-EBADMSG, "cpio archive %u: entry at offset %zu: name not NUL-terminated", archive,
                                        at);
                size_t data_at = (name_at + namesize + 3) & ~(size_t)3;
                if (data_at > len || len - data_at < filesize)
                        return pn_error(-EBADMSG, "cpio archive %u: entry '%.200s' at offset %zu: its %u bytes run past the end%s",
                                        archive, name, at, filesize, in_stream ? " (a truncated compressed stream?)" : "");
                size_t next = (data_at + filesize + 3) & ~(size_t)3;
                if (next > len)
                        next = len;
                if (!strcmp(name, "TRAILER!!!")) {
                        *off = next;
                        return 0;
                }
                if (++w->entries > PN_CPIO_MAX_ENTRIES)
                        return pn_error(-E2BIG, "more than %u cpio entries", PN_CPIO_MAX_ENTRIES);
                struct pn_cpio_entry e = {name, f[1], f[0], f[4], f[7], f[8], data + data_at, filesize, at, archive};
                int r = w->fn(w->u, &e);
                if (r < 0)
                        return r;
                at = next;
        }
}

static int read_sequence(struct walk *w, const uint8_t *data, size_t len, unsigned depth);

/* The compressed stream of CODEC at DATA[*OFF..LEN), decoded into a
 * buffer of its own and read as archives; *OFF after the stream. */
static int read_compressed(struct walk *w, int codec, const uint8_t *data, size_t len, size_t *off, unsigned depth) {
        if (!pn_codec_built(codec))
                return pn_error(-EOPNOTSUPP, "a %s compressed archive at offset %zu, and this build cannot decode %s",
                                pn_codec_name(codec), *off, pn_codec_name(codec));
        struct pn_decoder *d;
        int r = pn_decoder_new(codec, PN_DECODE_STOP_AT_TRAILING, 0, w->limit - w->decoded, &d);
        if (r < 0)
                return r == -ENOMEM ? pn_oom() : pn_error(r, "cannot decode %s", pn_codec_name(codec));
        size_t in_pos = *off, out_pos = 0, cap = 0;
        uint8_t *out = NULL;
        bool said = false;
        while (r == 0) {
                if (out_pos == cap) {
                        size_t ncap = cap ? 2 * cap : (size_t)1 << 20;
                        uint8_t *n = realloc(out, ncap);
                        if (!n) {
                                r = pn_oom();
                                said = true;
                                break;
                        }
                        out = n, cap = ncap;
                }
                size_t i0 = in_pos, o0 = out_pos;
                r = pn_decoder_step(d, data, len, &in_pos, out, cap, &out_pos, true);
                if (r == 0 && in_pos == i0 && out_pos == o0 && out_pos < cap) {
                        r = pn_error(-EBADMSG, "the %s stream at offset %zu is truncated", pn_codec_name(codec), *off);
                        said = true;
                        break;
                }
        }
        if (r < 0 && !said) {
                const char *detail = NULL;
                int code;
                enum pn_decode_error k = pn_decoder_error(d, &detail, &code);
                r = k == PN_DECODE_OVER_LIMIT ? pn_error(-E2BIG, "more than %llu bytes decompressed", (unsigned long long)w->limit)
                    : k == PN_DECODE_NO_MEMORY ? pn_oom()
                    : pn_error(-EBADMSG, "the %s stream at offset %zu is %s%s%s", pn_codec_name(codec), *off,
                               k == PN_DECODE_TRUNCATED ? "truncated" : "damaged", detail ? ": " : "", detail ? detail : "");
        }
        pn_decoder_free(d);
        if (r >= 0 && PN_GROW(w->ir->bufs, w->ir->cap_bufs, w->ir->n_bufs + 1) < 0)
                r = pn_oom();
        if (r < 0) {
                free(out);
                return r;
        }
        w->ir->bufs[w->ir->n_bufs++] = out;
        w->ir->compressed++;
        w->decoded += out_pos;
        *off = in_pos;
        return read_sequence(w, out, out_pos, depth + 1);
}

static int read_sequence(struct walk *w, const uint8_t *data, size_t len, unsigned depth) {
        size_t off = 0;
        while (off < len) {
                if (data[off] == 0) {
                        off++;
                        continue;
                }
                int r;
                if (is_cpio(data + off, len - off))
                        r = read_archive(w, data, len, &off, depth > 0);
                else {
                        int codec = pn_codec_detect(data + off, len - off,
                                                    PN_CODEC_BIT(PN_CODEC_GZIP) | PN_CODEC_BIT(PN_CODEC_XZ) |
                                                            PN_CODEC_BIT(PN_CODEC_ZSTD) | PN_CODEC_BIT(PN_CODEC_LZ4) |
                                                            PN_CODEC_BIT(PN_CODEC_LZ4_LEGACY));
                        /* Formats the kernel also unpacks (lib/decompress.c)
                         * that the one decompressor does not read. */
                        static const struct {
                                const char *magic, *name;
                                size_t len;
                        } other[] = {
                                {"BZh", "bzip2", 3},
                                {"\x5d\x00\x00", "lzma", 3},
                                {"\x89LZO", "lzo", 4},
                        };
                        for (size_t k = 0; codec == PN_CODEC_NONE && depth == 0 && k < ELEMENTSOF(other); k++)
                                if (len - off >= other[k].len && !memcmp(data + off, other[k].magic, other[k].len))
                                        return pn_error(-EOPNOTSUPP, "a %s compressed archive at offset %zu: not read (gzip, xz, zstd and lz4 are)",
                                                        other[k].name, off);
                        /* A compressed archive holding another compressed
                         * one: the kernel does not do that. */
                        if (codec == PN_CODEC_NONE && depth == 0 && off == 0)
                                return pn_error(-EBADMSG, "not an initramfs (no cpio archive, compressed or not, at its start)");
                        if (codec == PN_CODEC_NONE || depth > 0)
                                return pn_error(-EBADMSG, "neither a cpio archive nor a compressed one at offset %zu%s", off,
                                                depth ? " of a decompressed stream" : "");
                        r = read_compressed(w, codec, data, len, &off, depth);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

int pn_initramfs_each(const uint8_t *data, size_t len, uint64_t limit, pn_cpio_fn fn, void *u, struct pn_initramfs *ir) {
        struct walk w = {limit, 0, 0, fn, u, ir};
        *ir = (struct pn_initramfs){0};
        if (len == 0)
                return pn_error(-EBADMSG, "not an initramfs (an empty file)");
        return read_sequence(&w, data, len, 0);
}
