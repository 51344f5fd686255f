/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a Linux kernel says about itself: its raw note stream, and the
 * build-id inside an installed image or module file (lib/02-elf-kernel.h).
 *
 * The x86 boot protocol (Documentation/arch/x86/boot.rst): the setup header
 * sits at 0x1f1 of the bzImage, "HdrS" at 0x202, the protocol version at
 * 0x206; setup_sects (0x1f1, 0 meaning 4) sectors of 512 bytes follow the
 * boot sector, and from protocol 2.08 payload_offset (0x248) and
 * payload_length (0x24c) place the compressed vmlinux after them.  The
 * payload is the vmlinux ELF file (objcopy -S) compressed as the kernel was
 * configured, with 4 bytes of its size appended, which the decoders stop
 * before.  The build-id lives in the vmlinux's .notes (a PT_NOTE segment
 * after the text on x86), so the stream is decoded only that far.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "01-base-decompress.h"
#include "02-elf-kernel.h"
#include "02-elf-view.h"

#define NT_GNU_BUILD_ID_ 3u
#define FDO_PACKAGE_ 0xcafe1a7eu

void pn_knotes_done(struct pn_knotes *k) {
        free(k->salt);
        free(k->package);
        *k = (struct pn_knotes){0};
}

static bool owner_is(const uint8_t *name, uint32_t namesz, const char *want) {
        size_t l = strlen(want);
        /* The name with its NUL; some producers leave the NUL out. */
        return (namesz == l + 1 && !memcmp(name, want, l) && name[l] == 0) || (namesz == l && !memcmp(name, want, l));
}

/* The LEN bytes at P as a string: trailing NULs cut, an inner NUL ends it. */
static char *desc_string(const uint8_t *p, size_t len) {
        while (len && p[len - 1] == 0)
                len--;
        const uint8_t *z = memchr(p, 0, len);
        if (z)
                len = (size_t)(z - p);
        char *s = malloc(len + 1);
        if (s) {
                memcpy(s, p, len);
                s[len] = 0;
        }
        return s;
}

int pn_knotes_parse(const uint8_t *p, size_t n, bool be, const char *what, struct pn_knotes *k) {
        *k = (struct pn_knotes){0};
        if (n > PN_KERNEL_MAX_NOTES_BYTES)
                return pn_error(-E2BIG, "%s: %zu bytes of notes, more than %u", what, n, PN_KERNEL_MAX_NOTES_BYTES);
        struct pn_knotes t = {0};
        int r = 0;
        size_t off = 0;
        while (off < n) {
                size_t left = n - off;
                if (left < 12) {
                        /* Alignment padding at the end of a section. */
                        bool zero = true;
                        for (size_t i = off; i < n; i++)
                                zero = zero && p[i] == 0;
                        if (zero)
                                break;
                        r = pn_error(-EBADMSG, "%s: %zu stray bytes after the last note at offset %zu", what, left, off);
                        goto fail;
                }
                if (t.n_notes >= PKGNOTE_MAX_NOTES) {
                        r = pn_error(-E2BIG, "%s: more than %u notes", what, PKGNOTE_MAX_NOTES);
                        goto fail;
                }
                uint32_t namesz = pn_rd32(p + off, be), descsz = pn_rd32(p + off + 4, be), type = pn_rd32(p + off + 8, be);
                uint64_t name_off = off + 12, desc_off = name_off + ALIGN_UP((uint64_t)namesz, 4),
                         end = desc_off + ALIGN_UP((uint64_t)descsz, 4);
                if (!pn_range_ok(name_off, namesz, n) || !pn_range_ok(desc_off, descsz, n) || end > n) {
                        /* The last note's descriptor may lack its padding. */
                        if (!(pn_range_ok(name_off, namesz, n) && pn_range_ok(desc_off, descsz, n) &&
                              desc_off + descsz == n)) {
                                r = pn_error(-EBADMSG,
                                             "%s: note %zu at offset %zu runs past the end (name %u bytes, descriptor %u bytes, %zu left)",
                                             what, t.n_notes, off, namesz, descsz, left);
                                goto fail;
                        }
                        end = n;
                }
                const uint8_t *name = p + name_off, *desc = p + desc_off;
                t.n_notes++;
                if (owner_is(name, namesz, "GNU") && type == NT_GNU_BUILD_ID_ && !t.build_id_len) {
                        if (descsz == 0 || descsz > PN_KERNEL_MAX_BUILD_ID) {
                                r = pn_error(-EBADMSG, "%s: a build-id of %u bytes (1 to %u expected)", what, descsz,
                                             PN_KERNEL_MAX_BUILD_ID);
                                goto fail;
                        }
                        memcpy(t.build_id, desc, descsz);
                        t.build_id_len = descsz;
                } else if (owner_is(name, namesz, "Linux") && type == PN_LINUX_ELFNOTE_BUILD_SALT && !t.salt) {
                        if (!(t.salt = desc_string(desc, descsz)))
                                goto oom;
                } else if (owner_is(name, namesz, "FDO") && type == FDO_PACKAGE_) {
                        if (!t.package && !(t.package = desc_string(desc, descsz)))
                                goto oom;
                        t.n_packages++;
                }
                off = (size_t)end;
        }
        *k = t;
        return 0;
oom:
        r = pn_oom();
fail:
        pn_knotes_done(&t);
        return r;
}

/* ---- a vmlinux streamed out of its image ---- */

#define HEAD_MAX (64u << 10) /* the ELF header and program headers must lie in these */

struct seg {
        uint64_t off, len;
        uint8_t *buf;
        bool done;
};

struct vml {
        uint8_t head[HEAD_MAX];
        size_t head_len;
        bool head_parsed, be;
        struct seg seg[PN_KERNEL_MAX_NOTE_SEGMENTS];
        size_t n_seg;
        uint64_t need_end; /* decoding stops here: the end of the last note segment */
        uint8_t *id;
        size_t *id_len;
        int found; /* 1 build-id found, 0 not yet */
};

static void vml_done(struct vml *v) {
        for (size_t i = 0; i < v->n_seg; i++)
                free(v->seg[i].buf);
}

/* Reads the ELF header and PT_NOTEs from the head: 0, or an error. */
static int vml_parse_head(struct vml *v) {
        v->head_parsed = true;
        if (v->head_len < 16 || memcmp(v->head, "\177ELF", 4))
                return pn_error(-EBADMSG, "the kernel image's payload is not an ELF vmlinux");
        pkgnote_object *e = NULL;
        int r = pn_elf_from_prefix(v->head, v->head_len, &e);
        if (r < 0)
                return r;
        v->be = e->be;
        const pkgnote_phdr *ph;
        int np = pn_object_phdrs(e, &ph);
        if (np < 0) {
                pkgnote_object_free(e);
                return np;
        }
        for (int i = 0; i < np; i++) {
                if (ph[i].type != 4 /* PT_NOTE */ || ph[i].filesz == 0)
                        continue;
                if (v->n_seg >= PN_KERNEL_MAX_NOTE_SEGMENTS) {
                        pkgnote_object_free(e);
                        return pn_error(-E2BIG, "the vmlinux has more than %u note segments", PN_KERNEL_MAX_NOTE_SEGMENTS);
                }
                if (ph[i].filesz > PN_KERNEL_MAX_NOTES_BYTES || ph[i].offset > PN_KERNEL_MAX_VMLINUX ||
                    ph[i].offset + ph[i].filesz > PN_KERNEL_MAX_VMLINUX) {
                        /* The program headers are the view's: say it before freeing it. */
                        r = pn_error(-E2BIG, "the vmlinux's note segment at offset %llu (%llu bytes) lies past the limits",
                                         (unsigned long long)ph[i].offset, (unsigned long long)ph[i].filesz);
                        pkgnote_object_free(e);
                        return r;
                }
                struct seg *s = &v->seg[v->n_seg];
                *s = (struct seg){.off = ph[i].offset, .len = ph[i].filesz};
                if (!(s->buf = malloc(s->len))) {
                        pkgnote_object_free(e);
                        return pn_oom();
                }
                v->n_seg++;
                if (s->off + s->len > v->need_end)
                        v->need_end = s->off + s->len;
        }
        pkgnote_object_free(e);
        if (v->n_seg == 0)
                v->found = 0;
        return 0;
}

/* Copies decoded bytes [POS, POS+N) into the note segments they overlap,
 * parsing each one completed: 1 once the build-id is found, 0, or an error. */
static int vml_segments(struct vml *v, uint64_t pos, const uint8_t *p, size_t n) {
        for (size_t i = 0; i < v->n_seg; i++) {
                struct seg *s = &v->seg[i];
                if (s->done || pos + n <= s->off || pos >= s->off + s->len)
                        continue;
                uint64_t from = pos > s->off ? pos : s->off, to = pos + n < s->off + s->len ? pos + n : s->off + s->len;
                memcpy(s->buf + (from - s->off), p + (from - pos), (size_t)(to - from));
                if (to == s->off + s->len) {
                        s->done = true;
                        struct pn_knotes k;
                        int r = pn_knotes_parse(s->buf, (size_t)s->len, v->be, "the vmlinux's notes", &k);
                        if (r < 0)
                                return r;
                        if (k.build_id_len) {
                                memcpy(v->id, k.build_id, k.build_id_len);
                                *v->id_len = k.build_id_len;
                                v->found = 1;
                        }
                        pn_knotes_done(&k);
                        if (v->found)
                                return 1;
                }
        }
        return 0;
}

/* Takes decoded bytes [POS, POS+N): 1 when nothing more is needed, 0 for
 * more, or an error. */
static int vml_feed(struct vml *v, uint64_t pos, const uint8_t *p, size_t n) {
        int r;
        if (!v->head_parsed && pos < HEAD_MAX) {
                size_t take = (size_t)(HEAD_MAX - pos) < n ? (size_t)(HEAD_MAX - pos) : n;
                memcpy(v->head + pos, p, take);
                v->head_len = (size_t)pos + take;
                if (v->head_len < HEAD_MAX)
                        return 0;
        }
        if (!v->head_parsed) {
                r = vml_parse_head(v);
                if (r < 0)
                        return r;
                if (v->n_seg == 0)
                        return 1;
                /* The head's bytes before this chunk reach the segments too. */
                if (pos > 0) {
                        r = vml_segments(v, 0, v->head, (size_t)pos);
                        if (r)
                                return r;
                }
        }
        r = vml_segments(v, pos, p, n);
        if (r)
                return r;
        return pos + n >= v->need_end ? 1 : 0;
}

/* The end of a stream that stopped short: what it means. */
static int vml_finish(struct vml *v, uint64_t total) {
        if (!v->head_parsed) {
                /* A vmlinux shorter than the head: all of it is there. */
                int r = vml_parse_head(v);
                if (r == 0)
                        r = vml_segments(v, 0, v->head, v->head_len);
                if (r < 0)
                        return r;
        }
        if (v->found)
                return 1;
        for (size_t i = 0; i < v->n_seg; i++)
                if (!v->seg[i].done)
                        return pn_error(-EBADMSG, "the vmlinux ends after %llu bytes, before its notes at offset %llu",
                                        (unsigned long long)total, (unsigned long long)v->seg[i].off);
        return 0;
}

static int decode_payload(int codec, const uint8_t *p, size_t n, struct vml *v) {
        struct pn_decoder *d = NULL;
        int r = pn_decoder_new(codec, PN_DECODE_STOP_AT_TRAILING, 0, PN_KERNEL_MAX_VMLINUX, &d);
        if (r == -EOPNOTSUPP)
                return pn_error(r, "the kernel image is compressed with %s, which this build does not decode",
                                pn_codec_name(codec));
        if (r < 0)
                return pn_error(r, "cannot decode %s: %s", pn_codec_name(codec), strerror(-r));
        size_t out_cap = 1u << 20, in_pos = 0;
        uint8_t *out = malloc(out_cap);
        if (!out) {
                pn_decoder_free(d);
                return pn_oom();
        }
        uint64_t pos = 0;
        for (;;) {
                size_t out_pos = 0;
                int s = pn_decoder_step(d, p, n, &in_pos, out, out_cap, &out_pos, true);
                if (s < 0) {
                        const char *detail = NULL;
                        int code = 0;
                        enum pn_decode_error k = pn_decoder_error(d, &detail, &code);
                        r = k == PN_DECODE_OVER_LIMIT
                                    ? pn_error(-E2BIG, "the kernel image decompresses past %llu bytes without its notes",
                                               (unsigned long long)PN_KERNEL_MAX_VMLINUX)
                            : k == PN_DECODE_NO_MEMORY ? pn_oom()
                            : k == PN_DECODE_TRUNCATED
                                    ? pn_error(-EBADMSG, "the kernel image's %s payload is truncated after %llu bytes",
                                               pn_codec_name(codec), (unsigned long long)(pos + out_pos))
                                    : pn_error(-EBADMSG, "the kernel image's %s payload is damaged%s%s", pn_codec_name(codec),
                                               detail ? ": " : "", detail ? detail : "");
                        break;
                }
                if (out_pos) {
                        r = vml_feed(v, pos, out, out_pos);
                        pos += out_pos;
                        if (r < 0)
                                break;
                        if (r == 1) {
                                r = vml_finish(v, pos);
                                break;
                        }
                }
                if (s == 1 || (out_pos == 0 && in_pos >= n)) {
                        r = vml_finish(v, pos);
                        break;
                }
        }
        free(out);
        pn_decoder_free(d);
        return r;
}

int pn_kernel_image_build_id(const uint8_t *p, size_t n, uint8_t *id, size_t *len) {
        struct vml *v = calloc(1, sizeof *v);
        if (!v)
                return pn_oom();
        size_t got = 0;
        v->id = id;
        v->id_len = &got;
        int r;
        if (n >= 4 && !memcmp(p, "\177ELF", 4)) {
                r = vml_feed(v, 0, p, n);
                if (r >= 0)
                        r = vml_finish(v, n);
        } else if (n < 0x250 || memcmp(p + 0x202, "HdrS", 4)) {
                r = pn_error(-ENOEXEC, "neither an x86 bzImage (no \"HdrS\" setup header) nor an ELF vmlinux");
        } else {
                unsigned version = pn_rd16(p + 0x206, false), setup_sects = p[0x1f1] ? p[0x1f1] : 4;
                uint64_t start = (uint64_t)(setup_sects + 1) * 512, poff = pn_rd32(p + 0x248, false),
                         plen = pn_rd32(p + 0x24c, false);
                if (version < 0x208)
                        r = pn_error(-EOPNOTSUPP, "the bzImage's boot protocol %u.%02u predates the payload's place (2.08)",
                                     version >> 8, version & 0xff);
                else if (!pn_range_ok(start + poff, plen, n) || plen < 4)
                        r = pn_error(-EBADMSG, "the bzImage's payload (%llu bytes at %llu) lies outside its %zu bytes",
                                     (unsigned long long)plen, (unsigned long long)(start + poff), n);
                else {
                        const uint8_t *pl = p + start + poff;
                        int codec = pn_codec_detect(pl, (size_t)plen,
                                                    PN_CODEC_BIT(PN_CODEC_GZIP) | PN_CODEC_BIT(PN_CODEC_XZ) |
                                                            PN_CODEC_BIT(PN_CODEC_ZSTD) | PN_CODEC_BIT(PN_CODEC_LZ4_LEGACY));
                        if (!memcmp(pl, "\177ELF", 4)) {
                                r = vml_feed(v, 0, pl, (size_t)plen);
                                if (r >= 0)
                                        r = vml_finish(v, plen);
                        } else if (codec != PN_CODEC_NONE)
                                r = decode_payload(codec, pl, (size_t)plen, v);
                        else {
                                const char *what = pl[0] == 0x5d && pl[1] == 0       ? "lzma"
                                                   : !memcmp(pl, "BZh", 3)          ? "bzip2"
                                                   : !memcmp(pl, "\x89LZO", 4)      ? "lzo"
                                                                                    : NULL;
                                r = what ? pn_error(-EOPNOTSUPP, "the kernel image is compressed with %s, which pkgnote does not decode", what)
                                         : pn_error(-EBADMSG, "the bzImage's payload is in no format pkgnote knows (%02x %02x %02x %02x)",
                                                    pl[0], pl[1], pl[2], pl[3]);
                        }
                }
        }
        if (r == 1)
                *len = got;
        vml_done(v);
        free(v);
        return r;
}

int pn_kernel_module_build_id(const uint8_t *p, size_t n, uint8_t *id, size_t *len) {
        uint8_t *plain = NULL;
        const uint8_t *data = p;
        size_t size = n;
        int codec = pn_codec_detect(p, n, PN_CODEC_BIT(PN_CODEC_GZIP) | PN_CODEC_BIT(PN_CODEC_XZ) | PN_CODEC_BIT(PN_CODEC_ZSTD));
        if (codec != PN_CODEC_NONE) {
                struct pn_decoder *d = NULL;
                int r = pn_decoder_new(codec, PN_DECODE_STOP_AT_TRAILING, 0, PN_KERNEL_MAX_KO, &d);
                if (r == -EOPNOTSUPP)
                        return pn_error(r, "the module is compressed with %s, which this build does not decode",
                                        pn_codec_name(codec));
                if (r < 0)
                        return pn_error(r, "cannot decode %s: %s", pn_codec_name(codec), strerror(-r));
                size_t cap = 0, used = 0, in_pos = 0;
                for (;;) {
                        if (used == cap) {
                                size_t ncap = cap ? cap * 2 : 1u << 20;
                                if (ncap > PN_KERNEL_MAX_KO + 1)
                                        ncap = PN_KERNEL_MAX_KO + 1;
                                uint8_t *np = ncap > cap ? realloc(plain, ncap) : NULL;
                                if (!np) {
                                        r = ncap > cap ? pn_oom()
                                                       : pn_error(-E2BIG, "the module decompresses past %u bytes", PN_KERNEL_MAX_KO);
                                        break;
                                }
                                plain = np;
                                cap = ncap;
                        }
                        size_t before = used;
                        int s = pn_decoder_step(d, p, n, &in_pos, plain, cap, &used, true);
                        if (s < 0) {
                                const char *detail = NULL;
                                int code = 0;
                                enum pn_decode_error k = pn_decoder_error(d, &detail, &code);
                                r = k == PN_DECODE_OVER_LIMIT ? pn_error(-E2BIG, "the module decompresses past %u bytes", PN_KERNEL_MAX_KO)
                                    : k == PN_DECODE_NO_MEMORY ? pn_oom()
                                    : pn_error(-EBADMSG, "the module's %s data is %s%s%s", pn_codec_name(codec),
                                               k == PN_DECODE_TRUNCATED ? "truncated" : "damaged", detail ? ": " : "",
                                               detail ? detail : "");
                                break;
                        }
                        if (s == 1) {
                                r = 0;
                                break;
                        }
                        if (used == before && in_pos >= n) {
                                r = pn_error(-EBADMSG, "the module's %s data is truncated", pn_codec_name(codec));
                                break;
                        }
                }
                pn_decoder_free(d);
                if (r < 0) {
                        free(plain);
                        return r;
                }
                data = plain;
                size = used;
        }
        pkgnote_object *e = NULL;
        int r = pkgnote_object_from_memory(data, size, &e);
        if (r >= 0) {
                const uint8_t *b = NULL;
                size_t bl = 0;
                r = pkgnote_object_build_id(e, &b, &bl);
                if (r > 0) {
                        if (bl == 0 || bl > PN_KERNEL_MAX_BUILD_ID)
                                r = pn_error(-EBADMSG, "the module's build-id has %zu bytes (1 to %u expected)", bl,
                                             PN_KERNEL_MAX_BUILD_ID);
                        else {
                                memcpy(id, b, bl);
                                *len = bl;
                                r = 1;
                        }
                }
        }
        pkgnote_object_free(e);
        free(plain);
        return r;
}
