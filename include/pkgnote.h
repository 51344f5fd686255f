/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpkgnote: read and write the ELF package note.
 *
 * The package note is an ELF note with owner "FDO" and type 0xcafe1a7e
 * (FDO_PACKAGING_METADATA) whose descriptor is one NUL-terminated JSON
 * object describing the package a binary belongs to (UAPI.8, "Package
 * Metadata for Executable Files").
 *
 * Conventions used by every function below:
 *   - Functions returning int return a negative errno on failure, 0 for
 *     plain success or "not found", and a positive value for "found" or a
 *     count.  Codes: -ENOEXEC not an ELF file, -EBADMSG malformed input,
 *     -ENODATA absent, -E2BIG over a limit (see PKGNOTE_MAX_*), -ENOMEM,
 *     -EINVAL bad argument, other errno values from the system.
 *   - Out-parameters are written only on success.
 *   - Every failing call that has more to say than its errno leaves a
 *     human-readable reason in pkgnote_last_error() (per thread).
 *   - Objects are opaque, created by *_new / *_open / *_parse and released
 *     by *_free; every *_free accepts NULL.
 *   - The library never prints.
 */
#ifndef PKGNOTE_H
#define PKGNOTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PKGNOTE_PUBLIC __attribute__((visibility("default")))
#else
#define PKGNOTE_PUBLIC
#endif

/* Note owner and types. */
#define PKGNOTE_OWNER_FDO "FDO"
#define PKGNOTE_NT_FDO_PACKAGING_METADATA 0xcafe1a7eU
#define PKGNOTE_NT_FDO_DLOPEN_METADATA 0x407c0c0aU
#define PKGNOTE_OWNER_GNU "GNU"
#define PKGNOTE_NT_GNU_BUILD_ID 3U

/* Limits applied to untrusted input; exceeding one gives -E2BIG. */
#define PKGNOTE_MAX_NOTES 4096u           /* notes walked per object */
#define PKGNOTE_MAX_DESC (1u << 20)       /* one note descriptor */
#define PKGNOTE_MAX_JSON (64u << 10)      /* one JSON document */
#define PKGNOTE_MAX_JSON_DEPTH 32u        /* nesting of arrays/objects */
#define PKGNOTE_MAX_PHDRS 65536u          /* program headers */
#define PKGNOTE_MAX_SHDRS (1u << 20)      /* section headers */
#define PKGNOTE_MAX_SHSTRTAB (16u << 20)  /* section name table */
#define PKGNOTE_MAX_READ (64u << 20)      /* bytes read from a non-seekable file */

/* The thread's last detailed error message ("" when none). */
PKGNOTE_PUBLIC const char *pkgnote_last_error(void);

/* ------------------------------------------------------------------ */
/* ELF view                                                            */

typedef struct pkgnote_elf pkgnote_elf;

/* Opens PATH read-only.  -ENOEXEC when it is not ELF, -EBADMSG when the
 * ELF header or a header table is malformed. */
PKGNOTE_PUBLIC int pkgnote_elf_open(const char *path, pkgnote_elf **ret);
/* Same over an open descriptor; FD stays the caller's and must stay open
 * until pkgnote_elf_free(). */
PKGNOTE_PUBLIC int pkgnote_elf_open_fd(int fd, pkgnote_elf **ret);
/* Same over SIZE bytes at DATA, which are not copied and must outlive
 * the view. */
PKGNOTE_PUBLIC int pkgnote_elf_from_memory(const void *data, size_t size, pkgnote_elf **ret);
PKGNOTE_PUBLIC void pkgnote_elf_free(pkgnote_elf *e);

PKGNOTE_PUBLIC int pkgnote_elf_class(const pkgnote_elf *e);      /* 32 or 64 */
PKGNOTE_PUBLIC int pkgnote_elf_big_endian(const pkgnote_elf *e); /* 1 or 0 */
PKGNOTE_PUBLIC unsigned pkgnote_elf_type(const pkgnote_elf *e);  /* e_type */
PKGNOTE_PUBLIC unsigned pkgnote_elf_machine(const pkgnote_elf *e);
PKGNOTE_PUBLIC uint64_t pkgnote_elf_size(const pkgnote_elf *e);

/* "EXEC", "DYN", "REL", "CORE" or NULL for other values. */
PKGNOTE_PUBLIC const char *pkgnote_elf_type_name(unsigned type);
/* Short machine name ("x86-64", "aarch64", "s390x", ...) or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_machine_name(unsigned machine, int elf_class);

typedef struct pkgnote_phdr {
        uint32_t type, flags;
        uint64_t offset, vaddr, filesz, memsz, align;
} pkgnote_phdr;

typedef struct pkgnote_shdr {
        const char *name; /* "" when names are unavailable */
        uint32_t type;
        uint64_t flags, addr, offset, size, align;
} pkgnote_shdr;

/* The program headers (extended numbering resolved); returns the count. */
PKGNOTE_PUBLIC int pkgnote_elf_phdrs(pkgnote_elf *e, const pkgnote_phdr **ret);
/* The section headers, read on first use; returns the count, 0 when the
 * file has none (stripped section headers are not an error). */
PKGNOTE_PUBLIC int pkgnote_elf_shdrs(pkgnote_elf *e, const pkgnote_shdr **ret);

/* Problems met while reading the object that did not stop the reading
 * (a malformed note region, an unreadable section name table): count, and
 * the I-th reason with its errno. */
PKGNOTE_PUBLIC size_t pkgnote_elf_problem_count(const pkgnote_elf *e);
PKGNOTE_PUBLIC const char *pkgnote_elf_problem(const pkgnote_elf *e, size_t i, int *error);

/* ------------------------------------------------------------------ */
/* Notes                                                               */

enum {
        PKGNOTE_NOTE_IN_SEGMENT = 1u << 0,    /* covered by a PT_NOTE */
        PKGNOTE_NOTE_IN_SECTION = 1u << 1,    /* covered by an SHT_NOTE section */
        PKGNOTE_NOTE_LOADED = 1u << 2,        /* its PT_NOTE lies inside a PT_LOAD */
        PKGNOTE_NOTE_FIRST_PAGE = 1u << 3,    /* loaded and within file bytes [0, 4096) */
};

typedef struct pkgnote_note {
        const char *name;     /* owner bytes, namesz long, NUL not guaranteed */
        uint32_t namesz;
        uint32_t type;
        const uint8_t *desc;  /* descsz bytes */
        uint32_t descsz;
        uint32_t align;       /* 4 or 8 */
        uint64_t offset;      /* file offset of the note header */
        uint64_t size;        /* header + padded name + padded descriptor */
        unsigned where;       /* PKGNOTE_NOTE_* flags */
        const char *section;  /* SHT_NOTE section name, or NULL */
} pkgnote_note;

/* All notes of the object, each once, in file-offset order; returns the
 * count.  Walks every PT_NOTE, then every SHT_NOTE section not already
 * covered.  The array stays valid until pkgnote_elf_free(). */
PKGNOTE_PUBLIC int pkgnote_elf_notes(pkgnote_elf *e, const pkgnote_note **ret);

/* 1 when the note has owner OWNER (compared with its NUL) and type TYPE. */
PKGNOTE_PUBLIC int pkgnote_note_is(const pkgnote_note *n, const char *owner, uint32_t type);

/* The JSON text of an FDO package or dlopen note: the descriptor up to its
 * first NUL, which must lie inside the descriptor (-EBADMSG otherwise);
 * both descsz conventions (padded, strlen+1) are accepted. */
PKGNOTE_PUBLIC int pkgnote_note_json(const pkgnote_note *n, const char **json, size_t *len);

/* The GNU build-id of the object: 1 and its bytes, or 0 when none. */
PKGNOTE_PUBLIC int pkgnote_elf_build_id(pkgnote_elf *e, const uint8_t **id, size_t *len);

/* Encodes one note: header in the given byte order, owner NUL-terminated,
 * both padded to 4 bytes.  descsz records DESC_LEN as given.  The result
 * is malloc()ed. */
PKGNOTE_PUBLIC int pkgnote_note_encode(const char *owner, uint32_t type, const void *desc,
                                       size_t desc_len, int big_endian, uint8_t **ret,
                                       size_t *ret_len);
/* The package note for JSON, byte for byte as ld.bfd --package-metadata
 * writes it: descriptor = JSON + NUL, NUL-padded to 4, descsz = padded size. */
PKGNOTE_PUBLIC int pkgnote_package_note_encode(const char *json, int big_endian, uint8_t **ret,
                                               size_t *ret_len);

/* ------------------------------------------------------------------ */
/* Package metadata                                                    */

typedef struct pkgnote_metadata pkgnote_metadata;

/* Well-known keys (UAPI.8). */
#define PKGNOTE_KEY_TYPE "type"
#define PKGNOTE_KEY_OS "os"
#define PKGNOTE_KEY_OS_VERSION "osVersion"
#define PKGNOTE_KEY_NAME "name"
#define PKGNOTE_KEY_VERSION "version"
#define PKGNOTE_KEY_ARCHITECTURE "architecture"
#define PKGNOTE_KEY_OS_CPE "osCpe"
#define PKGNOTE_KEY_APP_CPE "appCpe"
#define PKGNOTE_KEY_DEBUG_INFO_URL "debugInfoUrl"

/* NULL-terminated list of the well-known keys, in canonical order. */
PKGNOTE_PUBLIC const char *const *pkgnote_metadata_known_keys(void);

PKGNOTE_PUBLIC int pkgnote_metadata_new(pkgnote_metadata **ret);
/* Parses LEN bytes of JSON (no NUL needed).  Requires: one object at top
 * level, valid UTF-8, unique names, at most PKGNOTE_MAX_JSON bytes and
 * PKGNOTE_MAX_JSON_DEPTH levels.  Unknown keys and values of any JSON type
 * are kept, in the order stored. */
PKGNOTE_PUBLIC int pkgnote_metadata_parse(const char *json, size_t len, pkgnote_metadata **ret);
PKGNOTE_PUBLIC void pkgnote_metadata_free(pkgnote_metadata *m);

/* The value of KEY when it is a string, else NULL. */
PKGNOTE_PUBLIC const char *pkgnote_metadata_get(const pkgnote_metadata *m, const char *key);
PKGNOTE_PUBLIC const char *pkgnote_metadata_type(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_os(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_os_version(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_name(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_version(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_architecture(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_os_cpe(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_app_cpe(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_debug_info_url(const pkgnote_metadata *m);

/* Number of keys, and the I-th key in stored order. */
PKGNOTE_PUBLIC size_t pkgnote_metadata_count(const pkgnote_metadata *m);
PKGNOTE_PUBLIC const char *pkgnote_metadata_key(const pkgnote_metadata *m, size_t i);
/* The I-th value as compact JSON text (malloc()ed). */
PKGNOTE_PUBLIC int pkgnote_metadata_value_json(const pkgnote_metadata *m, size_t i, char **ret);

/* Sets KEY to the string VALUE (replacing an existing value in place, or
 * appending).  -EINVAL when KEY or VALUE is empty-keyed, not UTF-8, or
 * holds a control character (U+0000..U+001F, U+007F..U+009F). */
PKGNOTE_PUBLIC int pkgnote_metadata_set(pkgnote_metadata *m, const char *key, const char *value);
/* Sets KEY to the JSON value VALUE_JSON (any type, same string rules). */
PKGNOTE_PUBLIC int pkgnote_metadata_set_json(pkgnote_metadata *m, const char *key,
                                             const char *value_json);
PKGNOTE_PUBLIC int pkgnote_metadata_remove(pkgnote_metadata *m, const char *key);

/* Compact JSON, raw UTF-8 (never \u escapes), keys in stored order; the
 * result is malloc()ed.  -EINVAL when a string holds a control character
 * (the spec forbids them, so they cannot be written). */
PKGNOTE_PUBLIC int pkgnote_metadata_to_json(const pkgnote_metadata *m, char **ret);

/* Checks the spec's rules that parsing tolerates: well-known keys hold
 * strings, no control characters, no \u escapes in SOURCE (may be NULL).
 * Returns the number of problems and calls REPORT for each (may be NULL). */
typedef void (*pkgnote_report_fn)(void *userdata, int error, const char *message);
PKGNOTE_PUBLIC int pkgnote_metadata_check(const pkgnote_metadata *m, const char *source,
                                          size_t source_len, pkgnote_report_fn report,
                                          void *userdata);

/* ------------------------------------------------------------------ */
/* dlopen metadata: a JSON array of objects                            */

typedef struct pkgnote_dlopen pkgnote_dlopen;

PKGNOTE_PUBLIC int pkgnote_dlopen_parse(const char *json, size_t len, pkgnote_dlopen **ret);
PKGNOTE_PUBLIC void pkgnote_dlopen_free(pkgnote_dlopen *d);
PKGNOTE_PUBLIC size_t pkgnote_dlopen_count(const pkgnote_dlopen *d);
PKGNOTE_PUBLIC size_t pkgnote_dlopen_soname_count(const pkgnote_dlopen *d, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_dlopen_soname(const pkgnote_dlopen *d, size_t i, size_t j);
/* "feature", "description", "priority" of entry I, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_dlopen_get(const pkgnote_dlopen *d, size_t i, const char *key);
/* Compact JSON of the array; control characters \u-escaped. */
PKGNOTE_PUBLIC int pkgnote_dlopen_to_json(const pkgnote_dlopen *d, char **ret);

/* ------------------------------------------------------------------ */
/* Object summary                                                      */

typedef struct pkgnote_info pkgnote_info;

/* Reads the notes of E once: build-id, package notes (identical ones
 * once, in file order; the first is the primary, see below), dlopen
 * notes.  A malformed note does not fail the call: it is counted and its
 * reason kept (pkgnote_info_problem()).  Fails only when the notes cannot
 * be walked at all.
 *
 * Primary package note: the first in file order.  That is the one the
 * kernel's first-page core dump and systemd-coredump see first, so all
 * readers agree on it; later ones usually come from objects linked in
 * with their own note (crt1.o, -r links) and are reported too. */
PKGNOTE_PUBLIC int pkgnote_info_read(pkgnote_elf *e, pkgnote_info **ret);
PKGNOTE_PUBLIC void pkgnote_info_free(pkgnote_info *info);

PKGNOTE_PUBLIC size_t pkgnote_info_package_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_info_package(const pkgnote_info *info, size_t i);
/* The note of package I (the first if several were identical). */
PKGNOTE_PUBLIC const pkgnote_note *pkgnote_info_package_note(const pkgnote_info *info, size_t i);
/* The JSON text exactly as stored, without trailing NULs. */
PKGNOTE_PUBLIC const char *pkgnote_info_package_json(const pkgnote_info *info, size_t i);
/* How many package notes the object holds, identical ones included. */
PKGNOTE_PUBLIC size_t pkgnote_info_package_note_count(const pkgnote_info *info);

PKGNOTE_PUBLIC size_t pkgnote_info_dlopen_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const pkgnote_dlopen *pkgnote_info_dlopen(const pkgnote_info *info, size_t i);

/* Build-id as lowercase hex, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_info_build_id(const pkgnote_info *info);

/* Malformed notes met: count, and the I-th reason and errno. */
PKGNOTE_PUBLIC size_t pkgnote_info_problem_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const char *pkgnote_info_problem(const pkgnote_info *info, size_t i, int *error);

/* ------------------------------------------------------------------ */
/* Generators (lib/emit.c, lib/osrelease.c)                            */

/* ------------------------------------------------------------------ */
/* Lint (lib/lint.c)                                                   */

#ifdef __cplusplus
}
#endif
#endif
