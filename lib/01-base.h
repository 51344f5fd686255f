/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private helpers shared by the library's files. */
#ifndef PKGNOTE_INTERNAL_H
#define PKGNOTE_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkgnote.h"

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((uint64_t)(a)-1))

/* pn_error(): records a formatted reason for pkgnote_last_error() and
 * returns ERR (a negative errno), so failures read:
 * return pn_error(-EBADMSG, "...") (shared/message.h).  */
#include "message.h"
/* pn_escape(), pn_utf8_char() (shared/escape.h). */
#include "escape.h"
/* Frees the N strings of V and V. */
void pn_free_strv(char **v, size_t n);
/* The public boundary, called only by the code lib/01-base-api.py generates. */
unsigned pn_api_begin(void);
int pn_api_int(int r, unsigned gen, const char *function);
int64_t pn_api_int64(int64_t r, unsigned gen, const char *function);
void *pn_api_ptr(void *p, unsigned gen);

/* Makes *ARRAY (a pointer to elements of SIZE bytes, with room for *CAP)
 * hold at least N elements, doubling its room; 0, or -ENOMEM with the
 * array as it was.  PN_GROW(v, cap, n) for a typed pointer V. */
int pn_grow(void *array, size_t *cap, size_t n, size_t size);
#define PN_GROW(v, cap, n) pn_grow(&(v), &(cap), (n), sizeof *(v))

/* A byte range of an object kept from a stream: LEN bytes at file offset
 * OFF, found at AT in the kept bytes. */
struct pn_span {
        uint64_t off, len;
        size_t at;
};

/* ASCII classes, whatever the locale (names and CPEs are ASCII rules). */
static inline bool pn_ascii_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static inline bool pn_ascii_digit(char c) {
        return c >= '0' && c <= '9';
}
static inline bool pn_ascii_alnum(char c) {
        return pn_ascii_alpha(c) || pn_ascii_digit(c);
}
static inline bool pn_ascii_xdigit(char c) {
        return pn_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Overflow-checked "does [off, off+len) fit in size". */
static inline bool pn_range_ok(uint64_t off, uint64_t len, uint64_t size) {
        return off <= size && len <= size - off;
}

/* Explicit-byte-order reads from a buffer the caller has bounds-checked. */
static inline uint16_t pn_rd16(const uint8_t *p, bool be) {
        return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}
static inline uint32_t pn_rd32(const uint8_t *p, bool be) {
        return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline uint64_t pn_rd64(const uint8_t *p, bool be) {
        return be ? (uint64_t)pn_rd32(p, true) << 32 | pn_rd32(p + 4, true)
                  : (uint64_t)pn_rd32(p + 4, false) << 32 | pn_rd32(p, false);
}
static inline void pn_wr16(uint8_t *p, uint16_t v, bool be) {
        p[be ? 0 : 1] = (uint8_t)(v >> 8);
        p[be ? 1 : 0] = (uint8_t)v;
}
static inline void pn_wr32(uint8_t *p, uint32_t v, bool be) {
        for (int i = 0; i < 4; i++)
                p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}
static inline void pn_wr64(uint8_t *p, uint64_t v, bool be) {
        for (int i = 0; i < 8; i++)
                p[be ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Offset of the first byte of S that is not valid UTF-8 (RFC 3629: no
 * overlongs, surrogates or code points past U+10FFFF), or LEN. */
size_t pn_utf8_invalid_at(const char *s, size_t len);
/* The LEN bytes at S with each byte that is not UTF-8 written as the text
 * \xNN (so they can be a JSON string or a shown value), malloc()ed and
 * NUL-terminated, with its length in *RET_LEN; NULL when out of memory. */
char *pn_utf8_or_hex(const char *s, size_t len, size_t *ret_len);
/* The N bytes at B as 2 N lowercase hex digits and a NUL in OUT (a
 * build-id as readers print it). */
void pn_hex(char *out, const uint8_t *b, size_t n);

/* Validates a JSON string value per the spec: UTF-8 and no control
 * characters (C0, DEL, C1).  0 or -EINVAL with pn_error set. */
int pn_check_string(const char *s, const char *what);
/* Does S hold a C0, DEL or C1 control character? */
bool pn_has_control(const char *s);

/* A growable text buffer (lib/01-base-text.c); a failed allocation is remembered
 * and reported by pn_text_finish(), which hands the text over. */
struct pn_text {
        char *s;
        size_t len, cap;
        bool oom;
};
void pn_text_add(struct pn_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pn_text_finish(struct pn_text *t, char **ret);

/* Copies the caller's options IN (NULL: all defaults) into OUT, whose
 * struct starts with its size_t size: a size of 0 means MIN, the end of
 * the 1.0 fields (PN_SIZE_1_0()); a size below it, or bytes beyond
 * OUT_SIZE that are not zero, give -EINVAL naming WHAT. */
int pn_options_read(void *out, size_t out_size, const void *in, size_t min, const char *what);
/* How many bytes of the caller's result struct DST (starting with its
 * size_t size, set by the caller) the library may write, for a struct of
 * FULL bytes here: the smaller of the two sizes, in *RET.  -EINVAL,
 * naming WHAT, when DST's size is below MIN, the end of its 1.0 fields
 * (so that only whole fields are ever written). */
int pn_result_size(const void *dst, size_t full, size_t min, size_t *ret, const char *what);
/* Copies the result SRC (FULL bytes, starting with its size) into DST
 * within DST's size, leaving DST's size field as it is. */
int pn_result_copy(void *dst, const void *src, size_t full, size_t min, const char *what);
/* A caller's struct passed in (not options: its size must be set, at
 * least MIN), read as pn_options_read() reads options: bytes beyond
 * OUT_SIZE must be zero. */
int pn_struct_read(void *out, size_t out_size, const void *in, size_t min, const char *what);
/* A caller's array of N structs passed in, whose first element's size is
 * the stride of all (at least MIN), copied into *RET (malloc()ed, N
 * elements of ELEM bytes, each read as pn_struct_read() reads one; NULL
 * for none). */
int pn_array_read(void **ret, size_t elem, const void *in, size_t n, size_t min, const char *what);
/* The view's program headers, section headers (read on first use) and
 * notes as arrays, for the library's own use (the public accessors give
 * one element at a time): the count, or a negative errno. */
int pn_object_phdrs(pkgnote_object *e, const pkgnote_phdr **ret);
int pn_object_shdrs(pkgnote_object *e, const pkgnote_shdr **ret);
int pn_object_notes(pkgnote_object *e, const pkgnote_note **ret);
/* The end of each growable struct's 1.0 fields: the smallest size a
 * caller may give (whole fields only: a pointer is never half copied),
 * and what an option struct's size 0 stands for.  When a struct grows in
 * 1.N, its row keeps naming its last field of 1.0. */
#define PN_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define PN_SIZE_1_0(type) PN_SIZE_1_0_##type
#define PN_SIZE_1_0_pkgnote_nevra PN_END(pkgnote_nevra, buffer_)
#define PN_SIZE_1_0_pkgnote_target PN_END(pkgnote_target, flags)
#define PN_SIZE_1_0_pkgnote_note_spec PN_END(pkgnote_note_spec, json)
#define PN_SIZE_1_0_pkgnote_linker PN_END(pkgnote_linker, minor)
#define PN_SIZE_1_0_pkgnote_stamp_result PN_END(pkgnote_stamp_result, pe_image)
#define PN_SIZE_1_0_pkgnote_core_options PN_END(pkgnote_core_options, flags)
#define PN_SIZE_1_0_pkgnote_process_info PN_END(pkgnote_process_info, tid)
#define PN_SIZE_1_0_pkgnote_stack_options PN_END(pkgnote_stack_options, userdata)
#define PN_SIZE_1_0_pkgnote_json_member PN_END(pkgnote_json_member, number)
#define PN_SIZE_1_0_pkgnote_crash_options PN_END(pkgnote_crash_options, until)
#define PN_SIZE_1_0_pkgnote_db_package PN_END(pkgnote_db_package, binary_version)
#define PN_SIZE_1_0_pkgnote_scan_options PN_END(pkgnote_scan_options, max_bytes)
#define PN_SIZE_1_0_pkgnote_scan_stats PN_END(pkgnote_scan_stats, pe_images)
#define PN_SIZE_1_0_pkgnote_sbom_options PN_END(pkgnote_sbom_options, tool_version)

/* Untrusted paths (lib/01-base-root.c). */
#include "01-base-root.h"

#endif
