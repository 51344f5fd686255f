/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Generators: the package note and dlopen notes as raw notes, a
 * relocatable object, assembler source or a linker script, and the
 * targets they are made for.  Every form carries exactly the bytes of
 * pkgnote_package_note_encode() (ld.bfd's --package-metadata layout) and
 * pkgnote_dlopen_note_encode() (the ELF_NOTE_DLOPEN struct), so whichever
 * route a build takes, readers see the same notes.  Linker flags are in
 * lib/05-gen-linker.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "01-base.h"
#include "05-gen-emit.h"
#include "01-base-hash.h"

/* e_flags the linkers insist on matching: <elf.h> names all but this one
 * (ppc64 ELFv2, a value of the field EF_PPC64_ABI). */
#define EF_PPC64_ABI_V2 2u

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
         EF_LARCH_ABI_DOUBLE_FLOAT | EF_LARCH_OBJABI_V1},
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

static int fill_target(const struct target_entry *e, pkgnote_target *ret) {
        pkgnote_target t = {
                .size = sizeof(pkgnote_target),
                .name = e->name,
                .elf_class = e->elf_class,
                .big_endian = e->big_endian,
                .machine = e->machine,
                .flags = e->flags,
        };
        return pn_result_copy(ret, &t, sizeof t, PN_SIZE_1_0(pkgnote_target), "pkgnote_target");
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
        return fill_target(e, ret);
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
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        (void)pkgnote_target_parse(name, &t);
        (void)pn_result_copy(ret, &t, sizeof t, PN_SIZE_1_0(pkgnote_target), "pkgnote_target");
}

/* Validates the JSON every generator receives and encodes its note. */
int pn_package_note_checked(const char *json, int big_endian, uint8_t **note, size_t *note_len) {
        if (!json)
                return pn_error(-EINVAL, "no JSON given");
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, strlen(json), &m);
        if (r < 0)
                return r == -E2BIG || r == -ENOMEM ? r : pn_error(-EINVAL, "%s", pkgnote_last_error());
        char *check;
        r = pkgnote_metadata_to_json(m, &check); /* refuses control characters */
        pkgnote_metadata_free(m);
        if (r < 0)
                return r;
        free(check);
        return pkgnote_package_note_encode(json, big_endian, note, note_len);
}

static void first_complaint(void *u, int err, const char *msg) {
        char *first = u;
        if (!*first)
                snprintf(first, 512, "%s", msg);
}

/* JSON without the whitespace outside its strings (JSON is valid). */
static char *json_compact(const char *json) {
        char *out = malloc(strlen(json) + 1), *o = out;
        if (!out)
                return NULL;
        bool in_string = false;
        for (const char *p = json; *p; p++) {
                if (in_string) {
                        if (*p == '\\' && p[1])
                                *o++ = *p++;
                        else if (*p == '"')
                                in_string = false;
                } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                        continue;
                else if (*p == '"')
                        in_string = true;
                *o++ = *p;
        }
        *o = 0;
        return out;
}

int pn_dlopen_note_checked(const char *json, int big_endian, uint8_t **note, size_t *note_len) {
        if (!json)
                return pn_error(-EINVAL, "no JSON given");
        size_t len = strlen(json);
        if (len + 1 > PKGNOTE_MAX_JSON)
                return pn_error(-E2BIG, "dlopen JSON of %zu bytes, more than the limit of %u", len, PKGNOTE_MAX_JSON);
        pkgnote_dlopen *d;
        int r = pkgnote_dlopen_parse(json, len, &d);
        if (r < 0)
                return r == -E2BIG || r == -ENOMEM ? r : pn_error(-EINVAL, "%s", pkgnote_last_error());
        char first[512] = "";
        int n = pkgnote_dlopen_check(d, first_complaint, first);
        pkgnote_dlopen_free(d);
        if (n > 0)
                return pn_error(-EINVAL, "%s%s", first, n > 1 ? " (and more)" : "");
        char *compact = json_compact(json);
        if (!compact)
                return pn_oom();
        r = pkgnote_note_encode(PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA, compact, strlen(compact) + 1,
                                        big_endian, note, note_len);
        free(compact);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_dlopen_note_encode(const char *json, int big_endian, uint8_t **ret, size_t *ret_len) {
        return pn_dlopen_note_checked(json, big_endian, ret, ret_len);
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
/* IBT, SHSTK, LAM_U48, LAM_U57 */
#define X86_FEATURE_1_ALL 0xfu
/* BTI, PAC, GCS */
#define AARCH64_FEATURE_1_ALL 0x7u

#define PN_GNU_PROPERTY_MAX 32
/* Its alignment: the ELF class's word. */
static inline size_t pn_gnu_property_align(const pkgnote_target *t) {
        return t->elf_class == 64 ? 8 : 4;
}

/* The .note.gnu.property note that keeps every AND-merged feature of a
 * link as the other inputs have it: 1 and *LEN bytes in BUF for x86 and
 * aarch64, 0 and no note for other machines. */
static int pn_gnu_property_note(const pkgnote_target *t, uint8_t buf[PN_GNU_PROPERTY_MAX], size_t *len) {
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
/* The notes of one generator call                                     */

struct gen_note {
        uint32_t type;
        const char *json;
        uint8_t *le, *out; /* encoded little-endian, and in the target's order */
        size_t len;
        char group[65];    /* "": no group */
};

struct gen {
        struct gen_note *v;
        size_t n;
};

static void gen_free(struct gen *g) {
        for (size_t i = 0; i < g->n; i++) {
                free(g->v[i].le);
                free(g->v[i].out);
        }
        free(g->v);
}

static int encode(uint32_t type, const char *json, int be, uint8_t **ret, size_t *len) {
        return type == PKGNOTE_NT_FDO_PACKAGING_METADATA ? pn_package_note_checked(json, be, ret, len)
                                                         : pn_dlopen_note_checked(json, be, ret, len);
}

/* Checks and encodes NOTES: the package note first, the dlopen notes in
 * their order, each with its group name. */
static int gen_init(struct gen *g, const pkgnote_note_spec *notes, size_t n, bool be) {
        *g = (struct gen){0};
        if (!notes || n == 0)
                return pn_error(-EINVAL, "no note to generate");
        size_t n_package = 0;
        for (size_t i = 0; i < n; i++) {
                if (notes[i].type == PKGNOTE_NT_FDO_PACKAGING_METADATA)
                        n_package++;
                else if (notes[i].type != PKGNOTE_NT_FDO_DLOPEN_METADATA)
                        return pn_error(-EINVAL, "note type 0x%08x is neither the package nor the dlopen note",
                                        notes[i].type);
        }
        if (n_package > 1)
                return pn_error(-EINVAL, "%zu package notes given; a binary has one", n_package);
        g->v = calloc(n, sizeof *g->v);
        if (!g->v)
                return pn_oom();
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n; i++) {
                        bool package = notes[i].type == PKGNOTE_NT_FDO_PACKAGING_METADATA;
                        if (package != (pass == 0))
                                continue;
                        struct gen_note *x = &g->v[g->n++];
                        x->type = notes[i].type;
                        x->json = notes[i].json;
                        size_t le_len;
                        int r = encode(x->type, x->json, false, &x->le, &le_len);
                        if (r >= 0)
                                r = encode(x->type, x->json, be, &x->out, &x->len);
                        if (r < 0) {
                                if (!package)
                                        pn_error(r, "dlopen note %zu: %s", g->n - n_package, pkgnote_last_error());
                                gen_free(g);
                                return r;
                        }
                        struct pn_sums sums;
                        char sha1[41];
                        pn_sums_init(&sums);
                        pn_sums_update(&sums, x->le, x->len);
                        pn_sums_final(&sums, sha1, x->group);
                        x->group[32] = 0;
                        for (size_t k = n_package; k + 1 < g->n; k++)
                                if (g->v[k].len == x->len && !memcmp(g->v[k].le, x->le, x->len)) {
                                        size_t a = k - n_package + 1, b = g->n - n_package;
                                        gen_free(g);
                                        return pn_error(-EINVAL, "dlopen notes %zu and %zu are the same", a, b);
                                }
                }
        return 0;
}

static uint32_t descsz(const struct gen_note *x) {
        return pn_rd32(x->le + 4, false);
}

static const char *section_of(const struct gen_note *x) {
        return x->type == PKGNOTE_NT_FDO_PACKAGING_METADATA ? ".note.package" : ".note.dlopen";
}

/* ------------------------------------------------------------------ */
/* Relocatable object                                                  */

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

/* gABI Elf32_Sym (name, value, size, info, other, shndx) and Elf64_Sym
 * (name, info, other, shndx, value, size): a local symbol naming a group. */
static void put_group_sym(uint8_t *p, uint32_t name, uint16_t shndx, bool is64, bool be) {
        pn_wr32(p, name, be);
        size_t info = is64 ? 4 : 12;
        p[info] = (STB_LOCAL << 4) | STT_NOTYPE;
        pn_wr16(p + info + 2, shndx, be);
}

/* The most notes one object holds. */
enum { MAX_OBJECT_NOTES = 256 };

/* Section and symbol names, offsets into one string table. */
struct strtab {
        char buf[64 * (MAX_OBJECT_NOTES + 8)];
        size_t len;
};

static uint32_t strtab_add(struct strtab *s, const char *name) {
        if (s->len == 0)
                s->len = 1; /* the empty name */
        if (!*name)
                return 0;
        for (size_t i = 1; i < s->len; i += strlen(s->buf + i) + 1)
                if (!strcmp(s->buf + i, name))
                        return (uint32_t)i;
        size_t n = strlen(name) + 1;
        uint32_t at = (uint32_t)s->len;
        memcpy(s->buf + s->len, name, n); /* callers stay far below the size */
        s->len += n;
        return at;
}

/* A relocatable object being made: its sizes, its section headers and
 * string tables, and where each part goes.  The section table: null,
 * then per note its COMDAT group and its section (the gABI puts a group
 * before its members), then .note.GNU-stack, .symtab, .strtab, .shstrtab
 * and .note.gnu.property.  Each group's signature is a local symbol
 * defined in the group, as gas makes it. */
struct object {
        bool is64, be;
        size_t ehsize, shentsize, symsize, word;
        uint8_t prop[PN_GNU_PROPERTY_MAX];
        size_t prop_len;
        bool has_prop;
        struct shdr sh[2 * MAX_OBJECT_NOTES + 7];
        size_t ns, sec_shstrtab;
        struct strtab shstr, str;
        uint32_t sym_names[MAX_OBJECT_NOTES];
        size_t off_prop, off_sym, off_str, off_shstr, off_sh, total;
};

/* Each note from offset OFF, its group's word list (GRP_COMDAT, member)
 * after it: their section headers and the names of their signatures.
 * Returns the offset after the last. */
static size_t layout_notes(struct object *ob, const struct gen *g, size_t off) {
        strtab_add(&ob->str, "");
        for (size_t i = 0; i < g->n; i++) {
                const struct gen_note *x = &g->v[i];
                char sig[64];
                bool package = x->type == PKGNOTE_NT_FDO_PACKAGING_METADATA;
                snprintf(sig, sizeof sig, "pkgnote.%s.%.32s", package ? "note" : "dlopen", x->group);
                ob->sym_names[i] = strtab_add(&ob->str, sig);
                ob->sh[ob->ns++] = (struct shdr){.name = strtab_add(&ob->shstr, ".group"), .type = SHT_GROUP,
                                                 .offset = off + x->len, .size = 8, .info = (uint32_t)(1 + i),
                                                 .align = 4, .entsize = 4};
                ob->sh[ob->ns++] = (struct shdr){.name = strtab_add(&ob->shstr, section_of(x)), .type = SHT_NOTE,
                                                 .flags = SHF_ALLOC | SHF_GROUP | SHF_GNU_RETAIN, .offset = off,
                                                 .size = x->len, .align = 4};
                off += x->len + 8;
        }
        return off;
}

/* Lays out the object of G's notes for target T: the notes and their
 * groups, the GNU property note, the symbol table, the string tables and
 * the section headers, in that order. */
static void layout_object(struct object *ob, const struct gen *g, const pkgnote_target *t) {
        ob->is64 = t->elf_class == 64, ob->be = t->big_endian;
        ob->has_prop = pn_gnu_property_note(t, ob->prop, &ob->prop_len) > 0;
        ob->ehsize = ob->is64 ? 64 : 52, ob->shentsize = ob->is64 ? 64 : 40, ob->symsize = ob->is64 ? 24 : 16;
        size_t word = ob->word = ob->is64 ? 8 : 4;
        ob->ns = 1;
        size_t off = layout_notes(ob, g, ob->ehsize);
        ob->off_prop = ALIGN_UP(off, word);
        if (ob->has_prop)
                off = ob->off_prop + ob->prop_len;
        ob->off_sym = ALIGN_UP(off, word);
        size_t n_syms = 1 + g->n;
        ob->off_str = ob->off_sym + n_syms * ob->symsize;
        ob->off_shstr = ob->off_str + ob->str.len;
        struct shdr *sh = ob->sh;
        sh[ob->ns++] = (struct shdr){.name = strtab_add(&ob->shstr, ".note.GNU-stack"), .type = SHT_PROGBITS,
                                     .offset = ob->off_sym, .align = 1};
        size_t sec_symtab = ob->ns++, sec_strtab = ob->ns++, sec_shstrtab = ob->sec_shstrtab = ob->ns++;
        /* sh_info: one past the last local symbol, which is the last. */
        sh[sec_symtab] = (struct shdr){.name = strtab_add(&ob->shstr, ".symtab"), .type = SHT_SYMTAB,
                                       .offset = ob->off_sym, .size = n_syms * ob->symsize,
                                       .link = (uint32_t)sec_strtab, .info = (uint32_t)n_syms, .align = word,
                                       .entsize = ob->symsize};
        sh[sec_strtab] = (struct shdr){.name = strtab_add(&ob->shstr, ".strtab"), .type = SHT_STRTAB,
                                       .offset = ob->off_str, .size = ob->str.len, .align = 1};
        sh[sec_shstrtab] = (struct shdr){.name = strtab_add(&ob->shstr, ".shstrtab"), .type = SHT_STRTAB,
                                         .offset = ob->off_shstr, .align = 1};
        if (ob->has_prop)
                sh[ob->ns++] = (struct shdr){.name = strtab_add(&ob->shstr, ".note.gnu.property"), .type = SHT_NOTE,
                                             .flags = SHF_ALLOC, .offset = ob->off_prop, .size = ob->prop_len,
                                             .align = word};
        sh[sec_shstrtab].size = ob->shstr.len;
        for (size_t i = 0; i < g->n; i++)
                sh[1 + 2 * i].link = (uint32_t)sec_symtab;
        ob->off_sh = ALIGN_UP(ob->off_shstr + ob->shstr.len, word);
        ob->total = ob->off_sh + ob->ns * ob->shentsize;
}

/* The ELF header of OB, for target T, into B. */
static void put_ehdr(uint8_t *b, const struct object *ob, const pkgnote_target *t) {
        bool is64 = ob->is64, be = ob->be;
        memcpy(b, ELFMAG, SELFMAG);
        b[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
        b[EI_DATA] = be ? ELFDATA2MSB : ELFDATA2LSB;
        b[EI_VERSION] = EV_CURRENT;
        b[EI_OSABI] = ELFOSABI_GNU; /* SHF_GNU_RETAIN is a GNU flag; gas says so too */
        pn_wr16(b + 16, ET_REL, be);
        pn_wr16(b + 18, (uint16_t)t->machine, be);
        pn_wr32(b + 20, EV_CURRENT, be);
        /* e_entry and e_phoff stay 0; then e_shoff, e_flags, sizes. */
        size_t p = 24 + 2 * ob->word;
        put_word(b + p, ob->off_sh, is64, be);
        p += ob->word;
        pn_wr32(b + p, t->flags, be);
        pn_wr16(b + p + 4, (uint16_t)ob->ehsize, be);
        pn_wr16(b + p + 6, 0, be); /* e_phentsize */
        pn_wr16(b + p + 8, 0, be); /* e_phnum */
        pn_wr16(b + p + 10, (uint16_t)ob->shentsize, be);
        pn_wr16(b + p + 12, (uint16_t)ob->ns, be);
        pn_wr16(b + p + 14, (uint16_t)ob->sec_shstrtab, be);
}

/* Everything after the ELF header into B: the notes with their groups
 * and signature symbols, the GNU property note, the string tables and
 * the section headers. */
static void put_sections(uint8_t *b, const struct object *ob, const struct gen *g) {
        bool is64 = ob->is64, be = ob->be;
        for (size_t i = 0; i < g->n; i++) {
                const struct shdr *grp = &ob->sh[1 + 2 * i];
                memcpy(b + grp[1].offset, g->v[i].out, g->v[i].len);
                pn_wr32(b + grp->offset, GRP_COMDAT, be);
                pn_wr32(b + grp->offset + 4, (uint32_t)(2 + 2 * i), be);
                put_group_sym(b + ob->off_sym + (1 + i) * ob->symsize, ob->sym_names[i], (uint16_t)(1 + 2 * i), is64,
                              be);
        }
        if (ob->has_prop)
                memcpy(b + ob->off_prop, ob->prop, ob->prop_len);
        memcpy(b + ob->off_str, ob->str.buf, ob->str.len);
        memcpy(b + ob->off_shstr, ob->shstr.buf, ob->shstr.len);
        for (size_t i = 0; i < ob->ns; i++)
                put_shdr(b + ob->off_sh + i * ob->shentsize, &ob->sh[i], is64, be);
}

/* The relocatable object holding G's notes, for target T (struct object
 * tells its layout). */
static int write_object(const struct gen *g, const pkgnote_target *t, uint8_t **ret, size_t *ret_len) {
        if (!t || (t->elf_class != 32 && t->elf_class != 64))
                return pn_error(-EINVAL, "no target given");
        if (t->machine == EM_NONE)
                return pn_error(-EINVAL, "target %s names no machine; an object file needs one (e.g. x86_64, s390x)",
                                t->name ? t->name : "(unnamed)");
        if (g->n > MAX_OBJECT_NOTES)
                return pn_error(-E2BIG, "%zu notes, more than the %d one object may hold", g->n, MAX_OBJECT_NOTES);
        struct object ob = {0};
        layout_object(&ob, g, t);
        uint8_t *b = calloc(1, ob.total);
        if (!b)
                return pn_oom();
        put_ehdr(b, &ob, t);
        put_sections(b, &ob, g);
        *ret = b;
        *ret_len = ob.total;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Text outputs                                                        */

/* The JSON inside a C-style comment, which both gas and ld accept: only
 * "*" "/" could end it early, so a "/" after "*" is written as "\/". */
static void comment_json(struct pn_text *t, const struct gen_note *x) {
        pn_text_add(t, x->type == PKGNOTE_NT_FDO_PACKAGING_METADATA
                               ? "/* Package metadata note (FDO_PACKAGING_METADATA): "
                               : "/* dlopen note (FDO_DLOPEN_METADATA): ");
        const char *json = (const char *)x->le + 16; /* as the note holds it */
        for (const char *p = json; *p; p++)
                pn_text_add(t, (*p == '/' && p > json && p[-1] == '*') ? "\\/" : "%c", *p);
        pn_text_add(t, " */\n");
}

/* The note sections as assembler source into T; PUSH: each between
 * .pushsection and .popsection, for a C file's top-level asm, which must
 * leave the compiler's current section as it was. */
static void asm_notes(struct pn_text *t, const struct gen *g, bool push) {
        for (size_t i = 0; i < g->n; i++) {
                const struct gen_note *x = &g->v[i];
                bool package = x->type == PKGNOTE_NT_FDO_PACKAGING_METADATA;
                /* A COMDAT group named after the note's hash keeps one copy
                 * of a note linked in more than once (or from a -r output
                 * linked again with it).  The section type is spelled %note:
                 * gas takes @ or % on every ELF target, but @ starts a
                 * comment on 32-bit arm; clang takes both.  R (retain): ld.bfd
                 * and lld collect a note in a group under --gc-sections,
                 * since nothing refers to it. */
                pn_text_add(t,
                            "\t%s %s,\"aGR\",%%note,pkgnote.%s.%s,comdat\n"
                            "\t.balign 4\n"
                            "\t.long 4\t\t\t/* namesz: \"FDO\" and its NUL */\n"
                            "\t.long %u\t\t/* descsz: JSON, NUL%s */\n"
                            "\t.long 0x%08x\t/* type */\n"
                            "\t.byte 0x46, 0x44, 0x4f, 0x00\t/* \"FDO\" */\n",
                            push ? ".pushsection" : ".section", section_of(x), package ? "note" : "dlopen", x->group, descsz(x),
                            package ? ", padding" : "", x->type);
                /* The descriptor and its padding as bytes: no assembler string
                 * escaping to get wrong for quotes, backslashes or UTF-8. */
                const uint8_t *desc = x->le + 16;
                size_t n = x->len - 16;
                for (size_t k = 0; k < n; k++)
                        pn_text_add(t, "%s0x%02x%s", k % 16 == 0 ? "\t.byte " : "", desc[k],
                                    k % 16 == 15 || k + 1 == n ? "\n" : ", ");
                if (push)
                        pn_text_add(t, "\t.popsection\n");
        }
}

static int write_asm(const struct gen *g, const pkgnote_target *target, char **ret) {
        struct pn_text t = {0};
        for (size_t i = 0; i < g->n; i++)
                comment_json(&t, &g->v[i]);
        asm_notes(&t, g, false);
        uint8_t prop[PN_GNU_PROPERTY_MAX];
        size_t prop_len;
        if (pn_gnu_property_note(target, prop, &prop_len) > 0) {
                /* See pn_gnu_property_note(): keeps -fcf-protection's IBT and
                 * SHSTK, -mbranch-protection's BTI and PAC. */
                pn_text_add(&t, "\t.section .note.gnu.property,\"a\",%%note\n"
                                "\t.balign %zu\n",
                            pn_gnu_property_align(target));
                for (size_t i = 0; i < prop_len; i += 4)
                        if (i == 12)
                                pn_text_add(&t, "\t.byte 0x47, 0x4e, 0x55, 0x00\t/* \"GNU\" */\n");
                        else
                                pn_text_add(&t, "\t.long 0x%x\n", pn_rd32(prop + i, target->big_endian));
        }
        pn_text_add(&t, "\t.section .note.GNU-stack,\"\",%%progbits\n");
        return pn_text_finish(&t, ret);
}

/* A C header whose top-level asm emits the notes: for code compiled into
 * another program (vendored or static), which then carries its own note
 * beside the program's.  The compiler writes the object's GNU property
 * note itself, from the flags the file is compiled with, so the header
 * holds none and hardening marks stay what the compilation makes them. */
static int write_c_header(const struct gen *g, char **ret) {
        struct pn_text t = {0}, a = {0};
        pn_text_add(&t, "/* Made by pkgnote generate --format c-header.  Include it in a C or C++\n"
                        " * file of the program or library: the notes below go into its object.\n"
                        " * Each is a COMDAT group named after its hash, so including it in several\n"
                        " * files keeps one copy.  Define PKGNOTE_NO_NOTES to leave them out. */\n");
        for (size_t i = 0; i < g->n; i++)
                comment_json(&t, &g->v[i]);
        pn_text_add(&t, "#ifndef PKGNOTE_NOTES_%s\n#define PKGNOTE_NOTES_%s 1\n", g->v[0].group, g->v[0].group);
        pn_text_add(&t, "#if defined(__ELF__) && !defined(PKGNOTE_NO_NOTES)\n__asm__(\n");
        asm_notes(&a, g, true);
        char *src = NULL;
        if (pn_text_finish(&a, &src) < 0) {
                free(t.s);
                return -ENOMEM;
        }
        /* Each line a string literal; the only characters that need an
         * escape in one are the quotes and the tab. */
        for (const char *p = src; *p;) {
                pn_text_add(&t, "\"");
                for (; *p && *p != '\n'; p++)
                        pn_text_add(&t, *p == '"' ? "\\\"" : *p == '\t' ? "\\t" : *p == '\\' ? "\\\\" : "%c", *p);
                pn_text_add(&t, "\\n\"\n");
                if (*p)
                        p++;
        }
        free(src);
        pn_text_add(&t, ");\n#endif\n#endif\n");
        return pn_text_finish(&t, ret);
}

static int write_linker_script(const struct gen *g, char **ret) {
        struct pn_text t = {0};
        for (size_t i = 0; i < g->n; i++)
                comment_json(&t, &g->v[i]);
        /* TYPE = SHT_NOTE makes each section a note (and read-only) for both
         * ld.bfd >= 2.38 and ld.lld >= 15, so it lands in PT_NOTE; lld 16
         * rejects bfd's READONLY keyword.  INSERT keeps the default script.
         * The dlopen notes share one output section. */
        pn_text_add(&t, "SECTIONS\n{\n");
        for (size_t i = 0; i < g->n; i++) {
                const struct gen_note *x = &g->v[i];
                if (i == 0 || x->type != g->v[i - 1].type)
                        pn_text_add(&t, "  %s (TYPE = SHT_NOTE) : ALIGN(4)\n  {\n", section_of(x));
                pn_text_add(&t,
                            "    LONG(0x00000004) /* namesz */\n"
                            "    LONG(0x%08x) /* descsz */\n"
                            "    LONG(0x%08x) /* type */\n"
                            "    BYTE(0x46) BYTE(0x44) BYTE(0x4f) BYTE(0x00) /* \"FDO\" */\n",
                            descsz(x), x->type);
                const uint8_t *desc = x->le + 16;
                size_t n = x->len - 16;
                for (size_t k = 0; k < n; k++)
                        pn_text_add(&t, "%sBYTE(0x%02x)%s", k % 8 == 0 ? "    " : "", desc[k],
                                    k % 8 == 7 || k + 1 == n ? "\n" : " ");
                if (i + 1 == g->n || g->v[i + 1].type != x->type)
                        pn_text_add(&t, "  }\n");
        }
        pn_text_add(&t, "}\nINSERT AFTER .note.gnu.build-id;\n");
        return pn_text_finish(&t, ret);
}

PKGNOTE_PUBLIC int pkgnote_emit(int form, const pkgnote_note_spec *notes, size_t n, const pkgnote_target *t,
                                uint8_t **ret, size_t *ret_len) {
        pkgnote_target host = PKGNOTE_TARGET_INIT;
        if (!t)
                pkgnote_target_host(&host);
        else if (pn_struct_read(&host, sizeof host, t, PN_SIZE_1_0(pkgnote_target), "pkgnote_target") < 0)
                return -EINVAL;
        t = &host;
        if (form < PKGNOTE_EMIT_NOTES || form > PKGNOTE_EMIT_C_HEADER)
                return pn_error(-EINVAL, "unknown output form %d", form);
        pkgnote_note_spec *specs;
        int r = pn_array_read((void **)&specs, sizeof *specs, notes, n, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (r < 0)
                return r;
        struct gen g;
        r = gen_init(&g, specs, n, t->big_endian);
        free(specs);
        if (r < 0)
                return r;
        char *text = NULL;
        switch (form) {
        case PKGNOTE_EMIT_NOTES: {
                size_t total = 0;
                for (size_t i = 0; i < g.n; i++)
                        total += g.v[i].len;
                uint8_t *b = malloc(total);
                if (!b) {
                        r = pn_oom();
                        break;
                }
                total = 0;
                for (size_t i = 0; i < g.n; i++) {
                        memcpy(b + total, g.v[i].out, g.v[i].len);
                        total += g.v[i].len;
                }
                *ret = b;
                *ret_len = total;
                break;
        }
        case PKGNOTE_EMIT_OBJECT:
                r = write_object(&g, t, ret, ret_len);
                break;
        case PKGNOTE_EMIT_ASM:
                r = write_asm(&g, t, &text);
                break;
        case PKGNOTE_EMIT_C_HEADER:
                r = write_c_header(&g, &text);
                break;
        default:
                r = write_linker_script(&g, &text);
                break;
        }
        gen_free(&g);
        if (r >= 0 && text) {
                *ret = (uint8_t *)text;
                *ret_len = strlen(text);
        }
        return r < 0 ? r : 0;
}

/* The single-note forms of earlier versions. */
static int emit_package(int form, const char *json, const pkgnote_target *t, uint8_t **ret, size_t *ret_len) {
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
        size_t len;
        return pkgnote_emit(form, &spec, 1, t, ret, ret_len ? ret_len : &len);
}

PKGNOTE_PUBLIC int pkgnote_emit_object(const char *json, const pkgnote_target *t, uint8_t **ret,
                                       size_t *ret_len) {
        if (!t)
                return pn_error(-EINVAL, "no target given");
        return emit_package(PKGNOTE_EMIT_OBJECT, json, t, ret, ret_len);
}

PKGNOTE_PUBLIC int pkgnote_emit_asm_target(const char *json, const pkgnote_target *t, char **ret) {
        return emit_package(PKGNOTE_EMIT_ASM, json, t, (uint8_t **)ret, NULL);
}

PKGNOTE_PUBLIC int pkgnote_emit_asm(const char *json, char **ret) {
        return pkgnote_emit_asm_target(json, NULL, ret);
}

PKGNOTE_PUBLIC int pkgnote_emit_linker_script(const char *json, char **ret) {
        return emit_package(PKGNOTE_EMIT_LINKER_SCRIPT, json, NULL, (uint8_t **)ret, NULL);
}
