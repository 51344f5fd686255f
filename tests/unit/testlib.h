/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Assertions for the unit tests: each failure prints both values. */
#ifndef PKGNOTE_TESTLIB_H
#define PKGNOTE_TESTLIB_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int test_failures;
extern int test_checks;

#define CHECK(cond)                                                                    \
        do {                                                                           \
                test_checks++;                                                         \
                if (!(cond)) {                                                         \
                        test_failures++;                                               \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                }                                                                      \
        } while (0)

#define CHECK_INT(a, b)                                                                \
        do {                                                                           \
                long long _a = (long long)(a), _b = (long long)(b);                    \
                test_checks++;                                                         \
                if (_a != _b) {                                                        \
                        test_failures++;                                               \
                        fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, _a, _b); \
                }                                                                      \
        } while (0)

#define CHECK_STR(a, b)                                                                \
        do {                                                                           \
                const char *_a = (a), *_b = (b);                                       \
                test_checks++;                                                         \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                               \
                        test_failures++;                                               \
                        fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
                                _a ? _a : "(null)", _b ? _b : "(null)");               \
                }                                                                      \
        } while (0)

/* Runs FN as a named test and prints a TAP-like line. */
#define RUN(fn)                                                                        \
        do {                                                                           \
                int _before = test_failures;                                           \
                fn();                                                                  \
                printf("%s - %s\n", test_failures == _before ? "ok" : "not ok", #fn);  \
        } while (0)

int test_summary(void);

/* Whether FN(U) opened the FIFO at PATH: a child waits to open it for
 * writing, which only a reader's open(2) lets go.  (A reader that opens
 * a FIFO blocks without O_NONBLOCK; with it, it still releases the
 * writer; a device would be acted on the same way.) */
bool test_fifo_opened_by(const char *path, void (*fn)(void *u), void *u);

/* A caller's result struct of an older, shorter version (SHORT bytes of
 * the SIZE at BUF): every byte 0xa5, then its leading size_t set to
 * SHORT.  test_short_struct_kept() checks that nothing past SHORT was
 * written since (the library honours the caller's size). */
void test_short_struct(void *buf, size_t size, size_t short_size);
bool test_short_struct_kept(const void *buf, size_t size, size_t short_size);

/* ---- builder of small ELF images for tests ---- */

#define MK_MAX_BLOBS 8

struct mk_blob {
        const uint8_t *data;
        size_t len;
        unsigned align;        /* 4 or 8 */
        bool segment;          /* covered by a PT_NOTE */
        bool section;          /* covered by an SHT_NOTE section */
        const char *name;      /* section name */
};

struct mk_spec {
        bool is64, be;
        uint16_t type, machine;
        struct mk_blob blobs[MK_MAX_BLOBS];
        size_t n_blobs;
        bool no_sections;      /* stripped section headers */
        bool xnum;             /* program header count through PN_XNUM */
        bool no_load;          /* no PT_LOAD over the notes */
        size_t pad_before;     /* bytes of zero between headers and the first blob */
};

/* Builds the image into OUT (capacity CAP); returns its size or 0. */
size_t mk_elf(const struct mk_spec *s, uint8_t *out, size_t cap);

/* Encodes a note with explicit fields into OUT; returns its size.  NAME is
 * copied with NAMESZ bytes (NUL included by the caller's count), DESC with
 * DESC_LEN bytes, DESCSZ is what the header says. */
size_t mk_note(uint8_t *out, bool be, const char *name, uint32_t namesz, uint32_t type,
               const void *desc, size_t desc_len, uint32_t descsz, unsigned align);

/* A well-formed package note for JSON (descsz = strlen+1, lld style, when
 * UNPADDED, else padded as ld.bfd does). */
size_t mk_package_note(uint8_t *out, bool be, const char *json, bool unpadded);

/* Reads a whole file into a malloc()ed buffer; NULL on failure. */
uint8_t *read_file(const char *path, size_t *len);

#endif
