/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Generators: the package note as a relocatable object, assembler source,
 * a linker script, or linker flags, plus the target and linker facts they
 * need.  Every form carries exactly the bytes pkgnote_package_note_encode()
 * makes (ld.bfd's --package-metadata layout), so whichever route a build
 * takes, readers see the same note.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scan-private.h"

/* gABI values used by the object writer. */
enum {
        ET_REL = 1,
        EV_CURRENT = 1,
        SHT_PROGBITS = 1,
        SHT_SYMTAB = 2,
        SHT_STRTAB = 3,
        SHT_NOTE = 7,
        SHF_ALLOC = 2,
        EM_NONE = 0,
        EM_386 = 3,
        EM_PPC = 20,
        EM_PPC64 = 21,
        EM_S390 = 22,
        EM_ARM = 40,
        EM_X86_64 = 62,
        EM_AARCH64 = 183,
        EM_RISCV = 243,
        EM_LOONGARCH = 258,
};

/* e_flags the linkers insist on matching. */
#define EF_ARM_EABI_VER5 0x05000000u
#define EF_ARM_ABI_FLOAT_SOFT 0x200u
#define EF_ARM_ABI_FLOAT_HARD 0x400u
#define EF_PPC64_ABI_V2 2u
#define EF_RISCV_FLOAT_ABI_DOUBLE 0x4u
#define EF_LOONGARCH_ABI_DOUBLE_FLOAT 0x3u
#define EF_LOONGARCH_OBJABI_V1 0x40u

static const struct target_entry {
        const char *name;
        const char *aliases; /* space-separated */
        int elf_class, big_endian;
        unsigned machine;
        uint32_t flags;
} targets[] = {
        {"x86_64", "amd64 x86-64 elf64-x86-64", 64, 0, EM_X86_64, 0},
        {"x32", "elf32-x86-64", 32, 0, EM_X86_64, 0},
        {"i386", "i486 i586 i686 x86 elf32-i386", 32, 0, EM_386, 0},
        {"aarch64", "arm64 elf64-littleaarch64", 64, 0, EM_AARCH64, 0},
        {"aarch64_be", "arm64be elf64-bigaarch64", 64, 1, EM_AARCH64, 0},
        {"armhf", "arm armv7l armv7hl armv7 armv8l elf32-littlearm", 32, 0, EM_ARM,
         EF_ARM_EABI_VER5 | EF_ARM_ABI_FLOAT_HARD},
        {"armel", "armv5tel armv6l", 32, 0, EM_ARM, EF_ARM_EABI_VER5 | EF_ARM_ABI_FLOAT_SOFT},
        {"s390x", "elf64-s390", 64, 1, EM_S390, 0},
        {"ppc64le", "powerpc64le ppc64el elf64-powerpcle", 64, 0, EM_PPC64, EF_PPC64_ABI_V2},
        /* ABI version 0 ("unspecified") links with ELFv1 and ELFv2 objects. */
        {"ppc64", "powerpc64 elf64-powerpc", 64, 1, EM_PPC64, 0},
        {"ppc", "powerpc elf32-powerpc", 32, 1, EM_PPC, 0},
        {"riscv64", "elf64-littleriscv", 64, 0, EM_RISCV, EF_RISCV_FLOAT_ABI_DOUBLE},
        {"loongarch64", "loong64 elf64-loongarch", 64, 0, EM_LOONGARCH,
         EF_LOONGARCH_ABI_DOUBLE_FLOAT | EF_LOONGARCH_OBJABI_V1},
        {"ELF32LE", "elf32-little", 32, 0, EM_NONE, 0},
        {"ELF32BE", "elf32-big", 32, 1, EM_NONE, 0},
        {"ELF64LE", "elf64-little", 64, 0, EM_NONE, 0},
        {"ELF64BE", "elf64-big", 64, 1, EM_NONE, 0},
};

static bool word_in(const char *word, size_t len, const char *list) {
        for (const char *p = list; *p;) {
                size_t n = strcspn(p, " ");
                if (n == len && !strncasecmp(p, word, len))
                        return true;
                p += n;
                while (*p == ' ')
                        p++;
        }
        return false;
}

static const struct target_entry *find_target(const char *word, size_t len) {
        for (size_t i = 0; i < ELEMENTSOF(targets); i++)
                if ((strlen(targets[i].name) == len && !strncasecmp(targets[i].name, word, len)) ||
                    word_in(word, len, targets[i].aliases))
                        return &targets[i];
        return NULL;
}

static void fill_target(const struct target_entry *e, pkgnote_target *ret) {
        *ret = (pkgnote_target){
                .name = e->name,
                .elf_class = e->elf_class,
                .big_endian = e->big_endian,
                .machine = e->machine,
                .flags = e->flags,
        };
}

PKGNOTE_PUBLIC int pkgnote_target_parse(const char *spec, pkgnote_target *ret) {
        if (!spec || !*spec)
                return pn_error(-EINVAL, "empty target");
        const struct target_entry *e = find_target(spec, strlen(spec));
        if (!e && strchr(spec, '-') && strncasecmp(spec, "elf", 3) != 0) {
                /* A GNU triplet: the machine is its first part; the ABI part
                 * picks soft or hard float on 32-bit arm. */
                size_t n = strcspn(spec, "-");
                const char *abi = strrchr(spec, '-') + 1;
                if (!strcmp(abi, "gnux32"))
                        e = find_target("x32", 3);
                else if (n >= 3 && !strncasecmp(spec, "arm", 3) && !strncmp(abi, "gnueabi", 7))
                        e = find_target(!strcmp(abi, "gnueabihf") ? "armhf" : "armel", 5);
                else
                        e = find_target(spec, n);
        }
        if (!e)
                return pn_error(-EINVAL, "unknown target '%s' (try x86_64, i686, aarch64, s390x, a GNU triplet, or ELF64BE)",
                                spec);
        fill_target(e, ret);
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_target_host(pkgnote_target *ret) {
        const char *name =
#if defined(__x86_64__) && defined(__ILP32__)
                "x32";
#elif defined(__x86_64__)
                "x86_64";
#elif defined(__i386__)
                "i386";
#elif defined(__aarch64__) && defined(__AARCH64EB__)
                "aarch64_be";
#elif defined(__aarch64__)
                "aarch64";
#elif defined(__arm__) && defined(__ARM_PCS_VFP)
                "armhf";
#elif defined(__arm__)
                "armel";
#elif defined(__s390x__)
                "s390x";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
                "ppc64le";
#elif defined(__powerpc64__)
                "ppc64";
#elif defined(__powerpc__)
                "ppc";
#elif defined(__riscv) && __riscv_xlen == 64
                "riscv64";
#elif defined(__loongarch64)
                "loongarch64";
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
                sizeof(void *) == 8 ? "ELF64BE" : "ELF32BE";
#else
                sizeof(void *) == 8 ? "ELF64LE" : "ELF32LE";
#endif
        pkgnote_target t;
        (void)pkgnote_target_parse(name, &t);
        *ret = t;
}

/* Validates the JSON every generator receives and encodes its note. */
int pn_package_note_checked(const char *json, int big_endian, uint8_t **note, size_t *note_len) {
        if (!json)
                return pn_error(-EINVAL, "no JSON given");
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, strlen(json), &m);
        if (r < 0)
                return r == -E2BIG ? r : pn_error(-EINVAL, "%s", pkgnote_last_error());
        char *check;
        r = pkgnote_metadata_to_json(m, &check); /* refuses control characters */
        pkgnote_metadata_free(m);
        if (r < 0)
                return r;
        free(check);
        return pkgnote_package_note_encode(json, big_endian, note, note_len);
}

/* ------------------------------------------------------------------ */
/* GNU property note                                                   */

/* Linkers AND-merge the *_FEATURE_1_AND properties of .note.gnu.property
 * over all inputs, and an input without the property clears it (binutils
 * elfxx-x86.c and elfnn-aarch64.c, lld, mold, gold alike).  A note object
 * that carries none would strip IBT/SHSTK or BTI/PAC from every program
 * it is linked into.  It holds no code, so it can truthfully claim every
 * feature bit binutils defines: ANDed with the other inputs, that leaves
 * their result unchanged.  No OR-merged property (ISA_1_NEEDED, ...) is
 * written, since it could only turn something on. */
#define NT_GNU_PROPERTY_TYPE_0 5u
#define GNU_PROPERTY_X86_FEATURE_1_AND 0xc0000002u
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000u
/* IBT, SHSTK, LAM_U48, LAM_U57 */
#define X86_FEATURE_1_ALL 0xfu
/* BTI, PAC, GCS */
#define AARCH64_FEATURE_1_ALL 0x7u

int pn_gnu_property_note(const pkgnote_target *t, uint8_t buf[PN_GNU_PROPERTY_MAX], size_t *len) {
        uint32_t type, bits;
        if (t->machine == EM_X86_64 || t->machine == EM_386) {
                type = GNU_PROPERTY_X86_FEATURE_1_AND;
                bits = X86_FEATURE_1_ALL;
        } else if (t->machine == EM_AARCH64 && t->elf_class == 64) {
                type = GNU_PROPERTY_AARCH64_FEATURE_1_AND;
                bits = AARCH64_FEATURE_1_ALL;
        } else {
                *len = 0;
                return 0;
        }
        /* gABI/x86-64 psABI: the descriptor is an array of properties, each
         * padded to 8 bytes in ELF64 and 4 in ELF32, and so is the note. */
        bool be = t->big_endian;
        size_t align = t->elf_class == 64 ? 8 : 4;
        uint32_t descsz = (uint32_t)ALIGN_UP(8 + 4, align);
        memset(buf, 0, PN_GNU_PROPERTY_MAX);
        pn_wr32(buf, 4, be);
        pn_wr32(buf + 4, descsz, be);
        pn_wr32(buf + 8, NT_GNU_PROPERTY_TYPE_0, be);
        memcpy(buf + 12, "GNU", 4);
        pn_wr32(buf + 16, type, be);
        pn_wr32(buf + 20, 4, be);
        pn_wr32(buf + 24, bits, be);
        *len = 16 + descsz;
        return 1;
}

/* ------------------------------------------------------------------ */
/* Relocatable object                                                  */

/* Section indices of the object we write; SEC_PROPERTY only for targets
 * with a GNU property note, so the others' objects stay as they were. */
enum { SEC_NULL, SEC_NOTE, SEC_STACK, SEC_SYMTAB, SEC_STRTAB, SEC_SHSTRTAB, SEC_PROPERTY, N_SECTIONS };

static const char shstrtab[] = "\0.note.package\0.note.GNU-stack\0.symtab\0.strtab\0.shstrtab\0.note.gnu.property";
enum { NAME_NOTE = 1, NAME_STACK = 15, NAME_SYMTAB = 31, NAME_STRTAB = 39, NAME_SHSTRTAB = 47, NAME_PROPERTY = 57 };

struct shdr {
        uint32_t name, type;
        uint64_t flags, offset, size;
        uint32_t link, info;
        uint64_t align, entsize;
};

static void put_word(uint8_t *p, uint64_t v, bool is64, bool be) {
        if (is64)
                pn_wr64(p, v, be);
        else
                pn_wr32(p, (uint32_t)v, be);
}

static void put_shdr(uint8_t *p, const struct shdr *s, bool is64, bool be) {
        /* gABI Elf32_Shdr / Elf64_Shdr: name, type, flags, addr, offset, size,
         * link, info, addralign, entsize; the word-sized fields are 4 or 8. */
        size_t w = is64 ? 8 : 4;
        pn_wr32(p, s->name, be);
        pn_wr32(p + 4, s->type, be);
        put_word(p + 8, s->flags, is64, be);
        put_word(p + 8 + w, 0, is64, be); /* sh_addr */
        put_word(p + 8 + 2 * w, s->offset, is64, be);
        put_word(p + 8 + 3 * w, s->size, is64, be);
        pn_wr32(p + 8 + 4 * w, s->link, be);
        pn_wr32(p + 12 + 4 * w, s->info, be);
        put_word(p + 16 + 4 * w, s->align, is64, be);
        put_word(p + 16 + 5 * w, s->entsize, is64, be);
}

PKGNOTE_PUBLIC int pkgnote_emit_object(const char *json, const pkgnote_target *t, uint8_t **ret,
                                       size_t *ret_len) {
        if (!t || (t->elf_class != 32 && t->elf_class != 64))
                return pn_error(-EINVAL, "no target given");
        if (t->machine == EM_NONE)
                return pn_error(-EINVAL, "target %s names no machine; an object file needs one (e.g. x86_64, s390x)",
                                t->name ? t->name : "(unnamed)");
        bool is64 = t->elf_class == 64, be = t->big_endian;
        uint8_t *note;
        size_t note_len;
        int r = pn_package_note_checked(json, be, &note, &note_len);
        if (r < 0)
                return r;

        uint8_t prop[PN_GNU_PROPERTY_MAX];
        size_t prop_len;
        bool has_prop = pn_gnu_property_note(t, prop, &prop_len) > 0;
        size_t n_sections = has_prop ? N_SECTIONS : SEC_PROPERTY;
        size_t shstr_len = has_prop ? sizeof shstrtab : NAME_PROPERTY;

        /* Layout: ELF header, note (4-aligned), GNU property note (word-
         * aligned), symbol table (one null symbol), string table (one NUL),
         * section names, section headers. */
        size_t ehsize = is64 ? 64 : 52, shentsize = is64 ? 64 : 40, symsize = is64 ? 24 : 16;
        size_t word = is64 ? 8 : 4;
        size_t off_note = ehsize;
        size_t off_prop = ALIGN_UP(off_note + note_len, word);
        size_t off_sym = ALIGN_UP(off_prop + (has_prop ? prop_len : 0), word);
        size_t off_str = off_sym + symsize;
        size_t off_shstr = off_str + 1;
        size_t off_sh = ALIGN_UP(off_shstr + shstr_len, word);
        size_t total = off_sh + n_sections * shentsize;
        uint8_t *b = calloc(1, total);
        if (!b) {
                free(note);
                return pn_error(-ENOMEM, "out of memory");
        }

        static const uint8_t ident[] = {0x7f, 'E', 'L', 'F'};
        memcpy(b, ident, 4);
        b[4] = is64 ? 2 : 1; /* EI_CLASS */
        b[5] = be ? 2 : 1;   /* EI_DATA */
        b[6] = EV_CURRENT;   /* EI_VERSION; EI_OSABI 0 = System V */
        pn_wr16(b + 16, ET_REL, be);
        pn_wr16(b + 18, (uint16_t)t->machine, be);
        pn_wr32(b + 20, EV_CURRENT, be);
        /* e_entry and e_phoff stay 0; then e_shoff, e_flags, sizes. */
        size_t p = 24 + 2 * word;
        put_word(b + p, off_sh, is64, be);
        p += word;
        pn_wr32(b + p, t->flags, be);
        pn_wr16(b + p + 4, (uint16_t)ehsize, be);
        pn_wr16(b + p + 6, 0, be); /* e_phentsize */
        pn_wr16(b + p + 8, 0, be); /* e_phnum */
        pn_wr16(b + p + 10, (uint16_t)shentsize, be);
        pn_wr16(b + p + 12, (uint16_t)n_sections, be);
        pn_wr16(b + p + 14, SEC_SHSTRTAB, be);

        memcpy(b + off_note, note, note_len);
        memcpy(b + off_shstr, shstrtab, shstr_len);
        if (has_prop)
                memcpy(b + off_prop, prop, prop_len);
        free(note);

        const struct shdr sh[N_SECTIONS] = {
                [SEC_NULL] = {0},
                [SEC_NOTE] = {.name = NAME_NOTE, .type = SHT_NOTE, .flags = SHF_ALLOC, .offset = off_note,
                              .size = note_len, .align = 4},
                [SEC_STACK] = {.name = NAME_STACK, .type = SHT_PROGBITS, .offset = off_sym, .align = 1},
                /* sh_info: one past the last local symbol, here the null one. */
                [SEC_SYMTAB] = {.name = NAME_SYMTAB, .type = SHT_SYMTAB, .offset = off_sym, .size = symsize,
                                .link = SEC_STRTAB, .info = 1, .align = word, .entsize = symsize},
                [SEC_STRTAB] = {.name = NAME_STRTAB, .type = SHT_STRTAB, .offset = off_str, .size = 1, .align = 1},
                [SEC_SHSTRTAB] = {.name = NAME_SHSTRTAB, .type = SHT_STRTAB, .offset = off_shstr,
                                  .size = shstr_len, .align = 1},
                [SEC_PROPERTY] = {.name = NAME_PROPERTY, .type = SHT_NOTE, .flags = SHF_ALLOC, .offset = off_prop,
                                  .size = prop_len, .align = word},
        };
        for (size_t i = 0; i < n_sections; i++)
                put_shdr(b + off_sh + i * shentsize, &sh[i], is64, be);
        *ret = b;
        *ret_len = total;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Text outputs                                                        */

struct text {
        char *s;
        size_t len, cap;
        bool oom;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(struct text *t, const char *fmt, ...) {
        if (t->oom)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                t->oom = true;
                return;
        }
        if (t->len + (size_t)n + 1 > t->cap) {
                size_t cap = (t->cap ? t->cap * 2 : 1024) + (size_t)n;
                char *s = realloc(t->s, cap);
                if (!s) {
                        t->oom = true;
                        return;
                }
                t->s = s;
                t->cap = cap;
        }
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        t->len += (size_t)n;
}

static int text_finish(struct text *t, char **ret) {
        if (t->oom || !t->s) {
                free(t->s);
                return pn_error(-ENOMEM, "out of memory");
        }
        *ret = t->s;
        return 0;
}

/* The JSON inside a C-style comment, which both gas and ld accept: only
 * "*" "/" could end it early, so a "/" after "*" is written as "\/". */
static void comment_json(struct text *t, const char *prefix, const char *json) {
        text_add(t, "%s", prefix);
        for (const char *p = json; *p; p++)
                text_add(t, (*p == '/' && p > json && p[-1] == '*') ? "\\/" : "%c", *p);
        text_add(t, " */\n");
}

/* The note in little-endian form (its descriptor bytes are what the
 * texts spell out) and the comment that opens both texts. */
static int text_begin(struct text *t, const char *json, uint8_t **note, uint32_t *descsz) {
        size_t note_len;
        int r = pn_package_note_checked(json, 0, note, &note_len);
        if (r < 0)
                return r;
        *descsz = pn_rd32(*note + 4, false);
        comment_json(t, "/* Package metadata note (FDO_PACKAGING_METADATA): ", json);
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_emit_asm_target(const char *json, const pkgnote_target *target, char **ret) {
        pkgnote_target host;
        if (!target) {
                pkgnote_target_host(&host);
                target = &host;
        }
        uint8_t *note;
        uint32_t descsz;
        struct text t = {0};
        /* .long is in the assembler's byte order, so the little-endian
         * encoding is only used for the descriptor bytes. */
        int r = text_begin(&t, json, &note, &descsz);
        if (r < 0)
                return r;
        /* A COMDAT group named after the note's hash: when a -r output that
         * holds the note is linked again with the note, one copy stays.
         * The section type is spelled %note: gas takes @ or % on every ELF
         * target, but @ starts a comment on 32-bit arm; clang takes both. */
        struct pn_sums sums;
        char sha1[41], sha256[65];
        pn_sums_init(&sums);
        pn_sums_update(&sums, note, 16 + descsz);
        pn_sums_final(&sums, sha1, sha256);
        text_add(&t, "\t.section .note.package,\"aG\",%%note,pkgnote.note.%.32s,comdat\n"
                     "\t.balign 4\n"
                     "\t.long 4\t\t\t/* namesz: \"FDO\" and its NUL */\n"
                     "\t.long %u\t\t/* descsz: JSON, NUL, padding */\n"
                     "\t.long 0xcafe1a7e\t/* type */\n"
                     "\t.byte 0x46, 0x44, 0x4f, 0x00\t/* \"FDO\" */\n",
                 sha256, descsz);
        /* The descriptor as bytes: no assembler string escaping to get
         * wrong for quotes, backslashes or UTF-8. */
        const uint8_t *desc = note + 16;
        for (uint32_t i = 0; i < descsz; i++)
                text_add(&t, "%s0x%02x%s", i % 16 == 0 ? "\t.byte " : "", desc[i],
                         i % 16 == 15 || i + 1 == descsz ? "\n" : ", ");
        free(note);
        uint8_t prop[PN_GNU_PROPERTY_MAX];
        size_t prop_len;
        if (pn_gnu_property_note(target, prop, &prop_len) > 0) {
                /* See pn_gnu_property_note(): keeps -fcf-protection's IBT and
                 * SHSTK, -mbranch-protection's BTI and PAC. */
                text_add(&t, "\t.section .note.gnu.property,\"a\",%%note\n"
                             "\t.balign %zu\n",
                         pn_gnu_property_align(target));
                for (size_t i = 0; i < prop_len; i += 4)
                        if (i == 12)
                                text_add(&t, "\t.byte 0x47, 0x4e, 0x55, 0x00\t/* \"GNU\" */\n");
                        else
                                text_add(&t, "\t.long 0x%x\n", pn_rd32(prop + i, target->big_endian));
        }
        text_add(&t, "\t.section .note.GNU-stack,\"\",%%progbits\n");
        return text_finish(&t, ret);
}

PKGNOTE_PUBLIC int pkgnote_emit_asm(const char *json, char **ret) {
        return pkgnote_emit_asm_target(json, NULL, ret);
}

PKGNOTE_PUBLIC int pkgnote_emit_linker_script(const char *json, char **ret) {
        uint8_t *note;
        uint32_t descsz;
        struct text t = {0};
        int r = text_begin(&t, json, &note, &descsz);
        if (r < 0)
                return r;
        /* TYPE = SHT_NOTE makes the section a note (and read-only) for both
         * ld.bfd >= 2.38 and ld.lld >= 15, so it lands in PT_NOTE; lld 16
         * rejects bfd's READONLY keyword.  INSERT keeps the default script. */
        text_add(&t, "SECTIONS\n"
                     "{\n"
                     "  .note.package (TYPE = SHT_NOTE) : ALIGN(4)\n"
                     "  {\n"
                     "    LONG(0x00000004) /* namesz */\n"
                     "    LONG(0x%08x) /* descsz */\n"
                     "    LONG(0xcafe1a7e) /* type */\n"
                     "    BYTE(0x46) BYTE(0x44) BYTE(0x4f) BYTE(0x00) /* \"FDO\" */\n",
                 descsz);
        const uint8_t *desc = note + 16;
        for (uint32_t i = 0; i < descsz; i++)
                text_add(&t, "%sBYTE(0x%02x)%s", i % 8 == 0 ? "    " : "", desc[i],
                         i % 8 == 7 || i + 1 == descsz ? "\n" : " ");
        text_add(&t, "  }\n"
                     "}\n"
                     "INSERT AFTER .note.gnu.build-id;\n");
        free(note);
        return text_finish(&t, ret);
}

/* ------------------------------------------------------------------ */
/* Linkers and linker flags                                            */

static const char *const linker_names[] = {
        [PKGNOTE_LINKER_UNKNOWN] = "unknown",
        [PKGNOTE_LINKER_BFD] = "bfd",
        [PKGNOTE_LINKER_GOLD] = "gold",
        [PKGNOTE_LINKER_LLD] = "lld",
        [PKGNOTE_LINKER_MOLD] = "mold",
};

PKGNOTE_PUBLIC int pkgnote_linker_kind_from_name(const char *name) {
        if (!name)
                return PKGNOTE_LINKER_UNKNOWN;
        if (!strcmp(name, "ld") || !strcmp(name, "ld.bfd"))
                return PKGNOTE_LINKER_BFD;
        if (!strcmp(name, "ld.gold"))
                return PKGNOTE_LINKER_GOLD;
        if (!strcmp(name, "ld.lld"))
                return PKGNOTE_LINKER_LLD;
        for (int k = PKGNOTE_LINKER_BFD; k <= PKGNOTE_LINKER_MOLD; k++)
                if (!strcmp(name, linker_names[k]))
                        return k;
        return PKGNOTE_LINKER_UNKNOWN;
}

PKGNOTE_PUBLIC const char *pkgnote_linker_kind_name(int kind) {
        if (kind < 0 || kind > PKGNOTE_LINKER_MOLD)
                return NULL;
        return linker_names[kind];
}

/* Reads MAJOR.MINOR at P (which must start with a digit). */
static bool read_version(const char *p, const char *end, unsigned *major, unsigned *minor) {
        if (p >= end || *p < '0' || *p > '9')
                return false;
        unsigned long a = 0, b = 0;
        while (p < end && *p >= '0' && *p <= '9' && a < 100000)
                a = a * 10 + (unsigned long)(*p++ - '0');
        if (p < end && *p == '.')
                for (p++; p < end && *p >= '0' && *p <= '9' && b < 100000; p++)
                        b = b * 10 + (unsigned long)(*p - '0');
        *major = (unsigned)a;
        *minor = (unsigned)b;
        return true;
}

/* The last blank-separated word in [p, end) that starts with a digit. */
static const char *last_number(const char *p, const char *end) {
        const char *found = NULL;
        for (const char *q = p; q < end; q++)
                if (*q >= '0' && *q <= '9' && (q == p || *(q - 1) == ' ' || *(q - 1) == '('))
                        found = q;
        return found;
}

static const char *find_in(const char *s, const char *end, const char *word) {
        size_t n = strlen(word);
        for (const char *p = s; p + n <= end; p++)
                if (!memcmp(p, word, n))
                        return p;
        return NULL;
}

PKGNOTE_PUBLIC int pkgnote_linker_identify(const char *out, size_t len, pkgnote_linker *ret) {
        /* Only the first line matters; it names the linker and version:
         *   GNU ld (GNU Binutils for Debian) 2.40
         *   GNU ld version 2.41-37.fc40
         *   GNU gold (GNU Binutils for Debian 2.40) 1.16
         *   Debian LLD 16.0.6 (compatible with GNU linkers)
         *   mold 1.10.1 (compatible with GNU ld)  */
        const char *nl = memchr(out, '\n', len);
        const char *end = nl ? nl : out + len;
        pkgnote_linker l = {0};
        const char *p, *v = NULL;
        /* mold and lld say "compatible with GNU ld(...)": test them first. */
        if (len >= 5 && !memcmp(out, "mold ", 5)) {
                l.kind = PKGNOTE_LINKER_MOLD;
                v = out + 5;
        } else if ((p = find_in(out, end, "LLD "))) {
                l.kind = PKGNOTE_LINKER_LLD;
                v = p + 4;
        } else if ((p = find_in(out, end, "GNU gold"))) {
                l.kind = PKGNOTE_LINKER_GOLD;
                /* gold's own number (1.16) says nothing; binutils' is in the
                 * parentheses. */
                const char *open = memchr(p, '(', (size_t)(end - p));
                const char *close = open ? memchr(open, ')', (size_t)(end - open)) : NULL;
                if (open && close)
                        v = last_number(open, close);
        } else if ((p = find_in(out, end, "GNU ld"))) {
                l.kind = PKGNOTE_LINKER_BFD;
                const char *close = memchr(p, ')', (size_t)(end - p));
                v = last_number(close ? close : p, end);
        } else
                return pn_error(-EINVAL, "not the version of ld.bfd, gold, lld or mold: \"%.*s\"",
                                (int)(end - out > 80 ? 80 : end - out), out);
        if (v)
                read_version(v, end, &l.major, &l.minor);
        *ret = l;
        return 0;
}

static bool at_least(const pkgnote_linker *l, unsigned major, unsigned minor) {
        return l->major > major || (l->major == major && l->minor >= minor);
}

PKGNOTE_PUBLIC int pkgnote_linker_has_package_metadata(const pkgnote_linker *l) {
        switch (l->kind) {
        case PKGNOTE_LINKER_BFD:
        case PKGNOTE_LINKER_GOLD:
                return at_least(l, 2, 39);
        case PKGNOTE_LINKER_LLD:
                return at_least(l, 15, 0);
        case PKGNOTE_LINKER_MOLD:
                return at_least(l, 1, 3);
        default:
                return 0;
        }
}

PKGNOTE_PUBLIC int pkgnote_linker_decodes_package_metadata(const pkgnote_linker *l) {
        switch (l->kind) {
        case PKGNOTE_LINKER_BFD:
                return at_least(l, 2, 44); /* binutils commit b0cc81e8, PR ld/32003 */
        case PKGNOTE_LINKER_LLD:
                return at_least(l, 21, 0);
        case PKGNOTE_LINKER_MOLD:
                return at_least(l, 2, 36); /* mold 7ddc8f46: --encoded-package-metadata renamed */
        default:
                return 0; /* gold takes the argument as it is */
        }
}

/* Bytes that stay as they are: no decoder treats them specially, no
 * shell or make quotes them and -Wl, does not split at them. */
static bool percent_plain(unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("-._~:/@+=", c));
}

PKGNOTE_PUBLIC int pkgnote_percent_encode(const char *s, char **ret) {
        size_t n = 0;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                n += percent_plain(*p) ? 1 : 3;
        char *out = malloc(n + 1), *o = out;
        if (!out)
                return pn_error(-ENOMEM, "out of memory");
        static const char hex[] = "0123456789ABCDEF";
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (percent_plain(*p))
                        *o++ = (char)*p;
                else {
                        *o++ = '%';
                        *o++ = hex[*p >> 4];
                        *o++ = hex[*p & 15];
                }
        *o = 0;
        *ret = out;
        return 0;
}

static bool shell_safe(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("+,-./:=@_%^", c);
}

PKGNOTE_PUBLIC int pkgnote_ldflags_quote(const char *arg, int style, char **ret) {
        if (style != PKGNOTE_LDFLAGS_SHELL && style != PKGNOTE_LDFLAGS_MAKE)
                return pn_error(-EINVAL, "unknown quoting style %d", style);
        int r = pn_check_string(arg, "argument");
        if (r < 0)
                return r;
        bool plain = *arg != 0;
        for (const char *p = arg; *p && plain; p++)
                plain = shell_safe(*p);
        struct text t = {0};
        if (!plain)
                text_add(&t, "'");
        for (const char *p = arg; *p; p++) {
                if (*p == '\'')
                        text_add(&t, "'\\''");
                else if (style == PKGNOTE_LDFLAGS_MAKE && *p == '$')
                        text_add(&t, "$$");
                else if (style == PKGNOTE_LDFLAGS_MAKE && *p == '#')
                        text_add(&t, "\\#");
                else
                        text_add(&t, "%c", *p);
        }
        if (!plain)
                text_add(&t, "'");
        if (!t.s)
                text_add(&t, "%s", "");
        return text_finish(&t, ret);
}

/* Refuses what no note may hold, as every other generator does. */
static int check_json(const char *json) {
        uint8_t *note;
        size_t note_len;
        int r = pn_package_note_checked(json, 0, &note, &note_len);
        if (r >= 0)
                free(note);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata(const char *json, int style, char **ret) {
        int r = check_json(json);
        if (r < 0)
                return r;
        size_t n = strlen(json);
        char *arg = malloc(sizeof "--package-metadata=" + n);
        if (!arg)
                return pn_error(-ENOMEM, "out of memory");
        memcpy(arg, "--package-metadata=", sizeof "--package-metadata=" - 1);
        memcpy(arg + sizeof "--package-metadata=" - 1, json, n + 1);
        char *q;
        r = pkgnote_ldflags_quote(arg, style, &q);
        free(arg);
        if (r < 0)
                return r;
        struct text t = {0};
        text_add(&t, "-Xlinker %s", q);
        free(q);
        return text_finish(&t, ret);
}

PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata_for(const char *json, const pkgnote_linker *l, int style,
                                                        char **ret) {
        if (!l || !pkgnote_linker_decodes_package_metadata(l))
                return pkgnote_ldflags_package_metadata(json, style, ret);
        char *enc;
        int r = check_json(json);
        if (r < 0 || (r = pkgnote_percent_encode(json, &enc)) < 0)
                return r;
        struct text t = {0};
        text_add(&t, "-Wl,--package-metadata=%s", enc);
        free(enc);
        return text_finish(&t, ret);
}
