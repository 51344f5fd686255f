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
 *   - pkgnote_last_error() (per thread) speaks of the last call that could
 *     fail, and of nothing older: when a function that can fail returns,
 *     the message is "" after a success and after a failure (a negative
 *     errno) a one-line reason for that failure, at least the function's
 *     name and the errno's text.  A success clears it only when it
 *     returns, so the message itself may be handed to a call as an
 *     argument (copy it first where that call may fail: a failure writes
 *     its own).  Functions that cannot fail leave it as it was (but the
 *     accessors that read on first use, pkgnote_object_note() and
 *     pkgnote_object_shdr(), leave a reason when that reading fails):
 *     *_free, names of constants, accessors returning pointers, sizes and
 *     counts, and those returning int documented with no negative errno
 *     (flags, kinds, and counts of what a view has already checked, as
 *     pkgnote_object_phdr_count()).  tests/unit/test-errors.c holds which is
 *     which.
 *   - Objects are opaque, created by *_new / *_open / *_parse and released
 *     by *_free; every *_free accepts NULL.
 *   - Lifetimes: a pointer returned by an accessor (const char *, const
 *     arrays and structs, and the strings inside them) is owned by the
 *     object passed in and stays valid until that object is freed, unless
 *     its declaration says otherwise: pointers from a pkgnote_metadata end
 *     at the next change of it (pkgnote_metadata_set/_set_json/_remove);
 *     pointers into an object's parts (a core's modules, a scan's objects
 *     and packages, and what they return) live as long as the core or
 *     scan; names of constants (pkgnote_object_type_name(),
 *     pkgnote_machine_name(), pkgnote_source_name(), ...) and lint checks
 *     are static.  pkgnote_last_error() lasts until the thread's next call
 *     into the library returns.  Results documented as malloc()ed are the
 *     caller's, released with free().
 *   - Threads: the library has no global mutable state but the per-thread
 *     pkgnote_last_error(); different objects may be used in different
 *     threads at once.  One object may be used from several threads at
 *     once only through its const accessors, and only for these objects
 *     once they are built: pkgnote_info, pkgnote_metadata, pkgnote_dlopen,
 *     pkgnote_core with its modules, and pkgnote_scan between calls of
 *     pkgnote_scan_add() (its package index is built once, under a lock);
 *     the serializers pkgnote_metadata_to_json(), _value_json() and
 *     pkgnote_dlopen_to_json() excepted (jansson before 2.13 marks the
 *     objects it writes).  A pkgnote_object and a pkgnote_crashes with its
 *     crashes read lazily, even through their accessors: one thread at a
 *     time.  tests/api/api-threads.c checks these claims.
 *   - The library never prints.
 *   - Handles: every object is an opaque handle, declared
 *     "typedef struct pkgnote_X pkgnote_X;" at the start of the section
 *     that defines it; every struct of fields is declared
 *     "typedef struct pkgnote_X { ... } pkgnote_X;"; constants are
 *     anonymous enums or macros, passed and returned as int or unsigned.
 *   - Structs that may grow: every struct the caller allocates (options,
 *     results it has filled, specifications it passes in) begins with
 *     "size_t size", which the caller sets to sizeof the struct it was
 *     built with (the PKGNOTE_*_INIT initializers do).  The library reads
 *     and writes only the fields that size covers, so that a struct that
 *     grows stays compatible both ways: a caller built against a newer
 *     header may pass a larger struct as long as the fields this library
 *     does not know are zero (-EINVAL otherwise); a struct the library
 *     fills gets the fields its size covers.  -EINVAL when size is below
 *     the end of the struct's fields of 1.0 (only whole fields are ever
 *     read or written), except for option structs, where size 0 means the
 *     fields of 1.0.  In an array of such structs (pkgnote_note_spec[],
 *     pkgnote_json_member[], pkgnote_stamp_result[]) the first element's
 *     size is the stride of all; an array the library hands out in a
 *     struct (pkgnote_stamp_tree_file.results) follows the same rule with
 *     the library's size.  Structs the library owns are read through
 *     pointers it returns, one element at a time (a _count() and an
 *     indexed accessor, NULL past the last), never as arrays, so that they
 *     too may grow.  Options are read during the call only.
 *   - Reports as JSON: the *_to_json() functions give the JSON the pkgnote
 *     command prints, for any program to write.  Each stores in *RET one
 *     compact JSON object (or array), without a newline, malloc()ed:
 *     free() it.  Keys come in the order listed.  The package notes are
 *     copied as stored (their keys, order and escapes); other strings are
 *     raw UTF-8 with '"' and '\' escaped and control characters (C0, DEL,
 *     C1) as \u00xx; bytes that are not UTF-8 (paths may hold any) are
 *     written as the text \xNN, so the result is always valid JSON.
 *     Returns 0, or -ENOMEM (-EINVAL where said).
 *   - Versions: what is declared here is in the library's first
 *     interface, 1.0 (symbol version node LIBPKGNOTE_1.0), unless its
 *     comment ends with "Since 1.N.": a function, field or constant added
 *     later says so, and a function goes in node LIBPKGNOTE_1.N (1.1
 *     added crash signatures).
 *
 * The header is ordered by object: each section opens with a banner that
 * names it, says what it is for and which handles it defines, and lists
 * on its "Names:" line the prefixes of the functions it holds
 * (tests/arch/cmd-header.sh checks that every function is in its section).
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

/* ===================================================================
 * Errors, problems and limits
 * Names: pkgnote_last_error
 *
 * What every part of the library shares: the limits applied to untrusted
 * input, the thread's last error message, and pkgnote_problem, the one
 * shape of a problem that did not stop a reading.
 * =================================================================== */

/* Limits applied to untrusted input; exceeding one gives -E2BIG. */
#define PKGNOTE_MAX_NOTES 4096u           /* notes walked per object */
#define PKGNOTE_MAX_DESC (1u << 20)       /* one note descriptor */
#define PKGNOTE_MAX_JSON (64u << 10)      /* one JSON document */
#define PKGNOTE_MAX_JSON_DEPTH 32u        /* nesting of arrays/objects */
#define PKGNOTE_MAX_PHDRS (1u << 20)      /* program headers: a core has one per
                                           * mapping, as many as NT_FILE lists */
#define PKGNOTE_MAX_SHDRS (1u << 20)      /* section headers */
#define PKGNOTE_MAX_SHSTRTAB (16u << 20)  /* section name table */
#define PKGNOTE_MAX_READ (64u << 20)      /* bytes read from a non-seekable file */
#define PKGNOTE_MAX_RANGE (64u << 20)     /* bytes of a file read at once (a note region, a table);
                                           * a larger one is refused (-E2BIG).  Since 1.2. */
#define PKGNOTE_MAX_DB_PACKAGES (1u << 18) /* packages read from one package database
                                            * (rows of rpmdb.sqlite's Packages table) */

/* The reason the thread's last call that could fail failed: one line,
 * "" after a success (see the conventions above).  It stays valid until
 * the thread's next call into the library returns.  Input it quotes has
 * its control characters escaped (\xNN). */
PKGNOTE_PUBLIC const char *pkgnote_last_error(void);

/* A problem met while reading that did not stop the reading: one shape
 * for ELF views, summaries, cores, scans and scanned objects, each with a
 * _problem_count() and a _problem(OBJECT, I) accessor (NULL past the
 * last).  The lists of a view, summary, core and scanned object keep at
 * most PKGNOTE_MAX_PROBLEMS, a scan's PKGNOTE_MAX_SCAN_PROBLEMS; when more
 * are met, the last kept one says so (-E2BIG). */
typedef struct pkgnote_problem {
        int error;           /* negative errno; 0 for a notice that is no error */
        const char *path;    /* the file or archive member concerned, or NULL: the object itself */
        const char *message; /* one line; it may quote bytes of the input: escape before printing */
} pkgnote_problem;

#define PKGNOTE_MAX_PROBLEMS 64u
#define PKGNOTE_MAX_SCAN_PROBLEMS (1u << 16)

/* ===================================================================
 * The note and its metadata
 * Names: pkgnote_note_*, pkgnote_package_note_encode, pkgnote_metadata_*, pkgnote_dlopen_*, pkgnote_os_release_*
 *
 * The package note and the dlopen note as records (pkgnote_note), their
 * JSON parsed and checked (pkgnote_metadata: the package note's object;
 * pkgnote_dlopen: the dlopen note's array), the notes encoded, and
 * os-release (pkgnote_os_release), where a note's os keys come from.
 * Handles: pkgnote_metadata, pkgnote_dlopen, pkgnote_os_release.
 * =================================================================== */

typedef struct pkgnote_metadata pkgnote_metadata;
typedef struct pkgnote_dlopen pkgnote_dlopen;
typedef struct pkgnote_os_release pkgnote_os_release;

/* Note owner and types. */
#define PKGNOTE_OWNER_FDO "FDO"
#define PKGNOTE_NT_FDO_PACKAGING_METADATA 0xcafe1a7eU
#define PKGNOTE_NT_FDO_DLOPEN_METADATA 0x407c0c0aU
#define PKGNOTE_OWNER_GNU "GNU"
#define PKGNOTE_NT_GNU_BUILD_ID 3U

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

/* 1 when the note has owner OWNER (compared with its NUL) and type TYPE. */
PKGNOTE_PUBLIC int pkgnote_note_is(const pkgnote_note *n, const char *owner, uint32_t type);

/* The JSON text of an FDO package or dlopen note: the descriptor up to its
 * first NUL, which must lie inside the descriptor (-EBADMSG otherwise);
 * both descsz conventions (padded, strlen+1) are accepted.  *JSON points
 * into N's descriptor and lives as long as it. */
PKGNOTE_PUBLIC int pkgnote_note_json(const pkgnote_note *n, const char **json, size_t *len);

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

/* --- Package metadata --- */

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

/* --- dlopen metadata: a JSON array of objects --- */

PKGNOTE_PUBLIC int pkgnote_dlopen_parse(const char *json, size_t len, pkgnote_dlopen **ret);
PKGNOTE_PUBLIC void pkgnote_dlopen_free(pkgnote_dlopen *d);
PKGNOTE_PUBLIC size_t pkgnote_dlopen_count(const pkgnote_dlopen *d);
PKGNOTE_PUBLIC size_t pkgnote_dlopen_soname_count(const pkgnote_dlopen *d, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_dlopen_soname(const pkgnote_dlopen *d, size_t i, size_t j);
/* "feature", "description", "priority" of entry I, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_dlopen_get(const pkgnote_dlopen *d, size_t i, const char *key);
/* Compact JSON of the array; control characters \u-escaped. */
PKGNOTE_PUBLIC int pkgnote_dlopen_to_json(const pkgnote_dlopen *d, char **ret);

/* Priorities of a dlopen entry, weakest first. */
enum {
        PKGNOTE_DLOPEN_SUGGESTED = 1,
        PKGNOTE_DLOPEN_RECOMMENDED = 2,
        PKGNOTE_DLOPEN_REQUIRED = 3,
};
/* The priority of entry I: "recommended" when it names none (as the spec
 * tells readers to assume), -EBADMSG for a value outside the three. */
PKGNOTE_PUBLIC int pkgnote_dlopen_priority(const pkgnote_dlopen *d, size_t i);
/* "suggested", "recommended", "required", or NULL for another value. */
PKGNOTE_PUBLIC const char *pkgnote_dlopen_priority_name(int priority);
/* Checks D against the spec and what packaging tools need: each entry has
 * a non-empty "soname" list of names that look like sonames (no '/', a
 * ".so" part: lib*.so.N), no soname twice in an entry and no entry
 * repeating another's list, "feature" and "description" strings, a known
 * "priority".  Calls REPORT once per problem (may be NULL) and returns
 * their number. */
PKGNOTE_PUBLIC int pkgnote_dlopen_check(const pkgnote_dlopen *d, pkgnote_report_fn report, void *userdata);

/* The dlopen note for JSON, laid out as a C struct of header, "FDO" and
 * the JSON string is (systemd's ELF_NOTE_DLOPEN): descsz is the JSON's
 * length plus its NUL, and NULs after it pad the descriptor to 4 bytes.
 * JSON must be an array that pkgnote_dlopen_check() finds no fault in
 * (-EINVAL with its first complaint otherwise); the note holds it with
 * the whitespace outside strings removed and every other byte as given. */
PKGNOTE_PUBLIC int pkgnote_dlopen_note_encode(const char *json, int big_endian, uint8_t **ret,
                                              size_t *ret_len);

/* --- os-release --- */

/* os-release(5): shell-style assignments, read with the shell's quoting
 * rules and without any expansion.  Malformed lines are skipped and
 * counted, never fatal. */

PKGNOTE_PUBLIC int pkgnote_os_release_parse(const char *text, size_t len, pkgnote_os_release **ret);
/* Reads ROOT/etc/os-release, else ROOT/usr/lib/os-release (ROOT NULL or
 * "" means "/"); symlinks are resolved inside ROOT.  -ENOENT when neither
 * exists, -E2BIG over 64 KiB. */
PKGNOTE_PUBLIC int pkgnote_os_release_read(const char *root, pkgnote_os_release **ret);
/* Reads the os-release file PATH itself (a symbolic link is followed: the
 * caller named it); it must be a regular file.  -E2BIG over 64 KiB. */
PKGNOTE_PUBLIC int pkgnote_os_release_read_file(const char *path, pkgnote_os_release **ret);
PKGNOTE_PUBLIC void pkgnote_os_release_free(pkgnote_os_release *o);
/* The value of KEY ("ID", "VERSION_ID", "CPE_NAME", ...) or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_os_release_get(const pkgnote_os_release *o, const char *key);
/* The file read by pkgnote_os_release_read(), else NULL. */
PKGNOTE_PUBLIC const char *pkgnote_os_release_path(const pkgnote_os_release *o);
PKGNOTE_PUBLIC size_t pkgnote_os_release_problem_count(const pkgnote_os_release *o);
/* The package format of the distribution O describes: "deb" (Debian,
 * Ubuntu), "rpm" (Fedora, RHEL, CentOS, Rocky, Alma, Oracle, Amazon,
 * Azure Linux/CBL-Mariner, SUSE, openSUSE, ...), "apk" (Alpine), "alpm"
 * (Arch); from ID when it is known, else from the first known ID_LIKE
 * word; NULL for any other distribution.  A static string. */
PKGNOTE_PUBLIC const char *pkgnote_os_release_package_type(const pkgnote_os_release *o);

/* ===================================================================
 * The object view
 * Names: pkgnote_object_*, pkgnote_machine_name, pkgnote_pe_*, pkgnote_info_*
 *
 * A checked, read-only view of one ELF object or PE/COFF image
 * (pkgnote_object): its headers, its notes and build-id, a PE image's
 * sections; and the summary of its notes (pkgnote_info), the report model
 * that cores and scans hold one of per object, with its reports as JSON.
 * Handles: pkgnote_object, pkgnote_info.
 * =================================================================== */

typedef struct pkgnote_object pkgnote_object;
typedef struct pkgnote_info pkgnote_info;
typedef struct pkgnote_embedded pkgnote_embedded; /* below: what a binary says is inside it */

/* Opens PATH read-only.  -ENOEXEC when it is not ELF, -EBADMSG when the
 * ELF header or a header table is malformed. */
PKGNOTE_PUBLIC int pkgnote_object_open(const char *path, pkgnote_object **ret);
/* Same over an open descriptor; FD stays the caller's and must stay open
 * until pkgnote_object_free(). */
PKGNOTE_PUBLIC int pkgnote_object_open_fd(int fd, pkgnote_object **ret);
/* Same over SIZE bytes at DATA, which are not copied and must outlive
 * the view (and every pointer it hands out, which may point into DATA). */
PKGNOTE_PUBLIC int pkgnote_object_from_memory(const void *data, size_t size, pkgnote_object **ret);
PKGNOTE_PUBLIC void pkgnote_object_free(pkgnote_object *e);

PKGNOTE_PUBLIC int pkgnote_object_class(const pkgnote_object *e);      /* 32 or 64 */
PKGNOTE_PUBLIC int pkgnote_object_big_endian(const pkgnote_object *e); /* 1 or 0 */
PKGNOTE_PUBLIC unsigned pkgnote_object_type(const pkgnote_object *e);  /* e_type */
PKGNOTE_PUBLIC unsigned pkgnote_object_machine(const pkgnote_object *e);
PKGNOTE_PUBLIC uint64_t pkgnote_object_size(const pkgnote_object *e);

/* "EXEC", "DYN", "REL", "CORE" or NULL for other values. */
PKGNOTE_PUBLIC const char *pkgnote_object_type_name(unsigned type);
/* The object's kind in the words systemd-analyze inspect-elf uses:
 * "relocatable", "executable" (a PIE too: an ET_DYN with PT_INTERP),
 * "shared object", "core" or "unknown".  Static strings. */
PKGNOTE_PUBLIC const char *pkgnote_object_kind(pkgnote_object *e);
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

/* The program headers (extended numbering resolved): their count, and
 * header I (NULL past the last). */
PKGNOTE_PUBLIC int pkgnote_object_phdr_count(pkgnote_object *e);
PKGNOTE_PUBLIC const pkgnote_phdr *pkgnote_object_phdr(pkgnote_object *e, size_t i);
/* The section headers, read on first use: their count, 0 when the file
 * has none (stripped section headers are not an error), or a negative
 * errno when they cannot be read; and header I (NULL past the last or
 * when they cannot be read). */
PKGNOTE_PUBLIC int pkgnote_object_shdr_count(pkgnote_object *e);
PKGNOTE_PUBLIC const pkgnote_shdr *pkgnote_object_shdr(pkgnote_object *e, size_t i);

/* Why notes were read from the section table rather than a PT_NOTE that
 * describes another file's bytes (a separate debug file, made by eu-strip
 * -f or objcopy --only-keep-debug, keeps the stripped file's program
 * headers), or NULL.  Not a problem: the notes read are right.  Lives as
 * long as E. */
PKGNOTE_PUBLIC const char *pkgnote_object_notes_warning(pkgnote_object *e);

/* Problems met while reading the object that did not stop the reading
 * (a malformed note region, an unreadable section name table). */
PKGNOTE_PUBLIC size_t pkgnote_object_problem_count(const pkgnote_object *e);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_object_problem(const pkgnote_object *e, size_t i);

/* All notes of the object, each once, in file-offset order: their count
 * (or a negative errno when they cannot be walked), and note I (NULL past
 * the last).  Walks every PT_NOTE, then every SHT_NOTE section not
 * already covered.  The notes stay valid until pkgnote_object_free(). */
PKGNOTE_PUBLIC int pkgnote_object_note_count(pkgnote_object *e);
PKGNOTE_PUBLIC const pkgnote_note *pkgnote_object_note(pkgnote_object *e, size_t i);

/* The GNU build-id of the object: 1 and its bytes (valid until
 * pkgnote_object_free()), or 0 when none. */
PKGNOTE_PUBLIC int pkgnote_object_build_id(pkgnote_object *e, const uint8_t **id, size_t *len);

/* --- PE/COFF images --- */

/* The object view (pkgnote_object) also opens PE/COFF images: EFI
 * applications and drivers (systemd-boot, systemd-stub, shim, unified
 * kernel images) and Windows programs and DLLs.  UAPI.8 puts their
 * package metadata in a section named .pkgnote holding the JSON itself
 * (no ELF note header), NUL-terminated and NUL-padded; each such section
 * reads as an FDO package note (owner "FDO", type
 * PKGNOTE_NT_FDO_PACKAGING_METADATA, where PKGNOTE_NOTE_PE_SECTION,
 * section ".pkgnote", offset its file offset), so pkgnote_info_read(),
 * the JSON reports and scans serve both formats.  For a PE view,
 * pkgnote_object_class() is 64 for PE32+ and 32 for PE32,
 * pkgnote_object_machine() the ELF machine of the PE machine (0 when none),
 * pkgnote_object_type() 0, and there are no program or section headers. */

#define PKGNOTE_NOTE_PE_SECTION (1u << 4) /* a PE/COFF .pkgnote section */

#define PKGNOTE_MAX_PE_SECTIONS 4096u        /* section table entries */
#define PKGNOTE_MAX_PE_SECTION_NAME 255u     /* bytes of a long section name */
#define PKGNOTE_MAX_PE_STRTAB (16u << 20)    /* COFF string table */

/* 1 when E is a PE/COFF image, 0 when it is ELF. */
PKGNOTE_PUBLIC int pkgnote_object_is_pe(const pkgnote_object *e);
/* The COFF header's machine (0x8664 x86-64, 0x14c i386, 0xaa64 AArch64,
 * 0x5064 RISC-V 64...) and the optional header's subsystem; 0 for ELF. */
PKGNOTE_PUBLIC unsigned pkgnote_pe_machine(const pkgnote_object *e);
PKGNOTE_PUBLIC unsigned pkgnote_pe_subsystem(const pkgnote_object *e);
/* "EFI application", "Windows console", "Windows GUI", ..., or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_pe_subsystem_name(unsigned subsystem);
/* 1 when the image has a certificate table (an Authenticode signature). */
PKGNOTE_PUBLIC int pkgnote_pe_signed(const pkgnote_object *e);
/* The number of sections; -ENOEXEC for an ELF view. */
PKGNOTE_PUBLIC int pkgnote_pe_section_count(const pkgnote_object *e);
/* Section I: 1 and its NAME (long names resolved; valid until
 * pkgnote_object_free()), file OFFSET, SIZE of its bytes in the file and
 * FLAGS (IMAGE_SCN_*), each out-parameter may be NULL; 0 past the last;
 * -ENOEXEC for an ELF view. */
PKGNOTE_PUBLIC int pkgnote_pe_section(const pkgnote_object *e, size_t i, const char **name, uint64_t *offset,
                                      uint64_t *size, uint32_t *flags);
/* 1 when the image is a DLL (IMAGE_FILE_DLL). */
PKGNOTE_PUBLIC int pkgnote_pe_dll(const pkgnote_object *e);
/* pkgnote_pe_section() for the first section named NAME: 1, or 0 when
 * there is none. */
PKGNOTE_PUBLIC int pkgnote_pe_section_find(const pkgnote_object *e, const char *name, uint64_t *offset, uint64_t *size,
                                           uint32_t *flags);
/* A unified kernel image's (UAPI.5 Type #2) .uname section: the kernel's
 * release, malloc()ed, or NULL when there is none. */
PKGNOTE_PUBLIC char *pkgnote_pe_uki_uname(pkgnote_object *e);
/* Its .osrel section parsed as os-release: 1 and *RET (free with
 * pkgnote_os_release_free()), 0 when there is none, or a negative errno. */
PKGNOTE_PUBLIC int pkgnote_pe_uki_os_release(pkgnote_object *e, pkgnote_os_release **ret);
/* The bytes of the first section named NAME: 1 with *DATA (valid until
 * pkgnote_object_free()) and *LEN, 0 when there is none, -E2BIG when it
 * holds more than MAX bytes, -EBADMSG when they lie outside the file. */
PKGNOTE_PUBLIC int pkgnote_pe_section_data(pkgnote_object *e, const char *name, size_t max, const uint8_t **data,
                                           size_t *len);

/* --- The summary of the notes of an object --- */

/* Reads the notes of E once: build-id, package notes (identical ones
 * once, in file order; the first is the primary, see below), dlopen
 * notes.  A malformed note does not fail the call: it is counted and its
 * reason kept (pkgnote_info_problem()).  Fails only when the notes cannot
 * be walked at all.
 *
 * Primary package note: the first in file order.  That is the one the
 * kernel's first-page core dump and systemd-coredump see first, so all
 * readers agree on it; later ones usually come from objects linked in
 * with their own note (crt1.o, -r links) and are reported too.
 *
 * The summary owns copies of all it hands out and does not refer to E
 * afterwards: E may be freed first.  Every pointer returned by the
 * pkgnote_info_* accessors below (metadata, notes with their name,
 * descriptor and section name, JSON text, dlopen lists, build-id,
 * problem messages) stays valid until pkgnote_info_free() of the summary
 * it came from, and only that. */
PKGNOTE_PUBLIC int pkgnote_info_read(pkgnote_object *e, pkgnote_info **ret);
/* A deep copy of INFO, independent of it (and of whatever owns INFO: a
 * core's module, a scan's object).  -ENOMEM, -EINVAL when INFO is NULL. */
PKGNOTE_PUBLIC int pkgnote_info_dup(const pkgnote_info *info, pkgnote_info **ret);
PKGNOTE_PUBLIC void pkgnote_info_free(pkgnote_info *info);

PKGNOTE_PUBLIC size_t pkgnote_info_package_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_info_package(const pkgnote_info *info, size_t i);
/* The note of package I (the first if several were identical): a copy
 * whose name is followed by one NUL beyond namesz; offset, size and
 * where describe it in the object it was read from. */
PKGNOTE_PUBLIC const pkgnote_note *pkgnote_info_package_note(const pkgnote_info *info, size_t i);
/* The JSON text exactly as stored, without trailing NULs. */
PKGNOTE_PUBLIC const char *pkgnote_info_package_json(const pkgnote_info *info, size_t i);
/* How many package notes the object holds, identical ones included. */
PKGNOTE_PUBLIC size_t pkgnote_info_package_note_count(const pkgnote_info *info);

PKGNOTE_PUBLIC size_t pkgnote_info_dlopen_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const pkgnote_dlopen *pkgnote_info_dlopen(const pkgnote_info *info, size_t i);

/* Build-id as lowercase hex, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_info_build_id(const pkgnote_info *info);

/* What the object says is inside it (see pkgnote_embedded_read(), whose
 * rules pkgnote_info_read() follows), or NULL when it says nothing.  An
 * object whose list cannot be read has none, and the reason among the
 * problems; where the bytes are not there (a module's page in a core),
 * no problem.  Lives until pkgnote_info_free().  Since 1.2. */
PKGNOTE_PUBLIC const pkgnote_embedded *pkgnote_info_embedded(const pkgnote_info *info);

/* The view's problems and the malformed notes met. */
PKGNOTE_PUBLIC size_t pkgnote_info_problem_count(const pkgnote_info *info);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_info_problem(const pkgnote_info *info, size_t i);

/* --- Reports as JSON (see the conventions) --- */

/* A file's report ("pkgnote show --json"): path (PATH, as given), then
 * from E (may be NULL: these keys are left out) elfType
 * (pkgnote_object_kind()), elfClass, byteOrder ("little", "big"),
 * architecture (pkgnote_machine_name(), else "machine-N"), machine; then
 * buildId (hex, or null), packages (the package notes of INFO, as
 * stored), dlopen (the entries of every dlopen note, in one array), and
 * embedded (pkgnote_embedded_to_json(), since 1.2) where the object says
 * what is inside it. */
PKGNOTE_PUBLIC int pkgnote_info_to_json(const pkgnote_info *info, pkgnote_object *e, const char *path, char **ret);

/* The package metadata as systemd-coredump writes it to
 * COREDUMP_PACKAGE_JSON and "systemd-analyze inspect-elf --json" prints
 * it: one compact object of "elfType" ("coredump", "executable" where a
 * PT_INTERP exists, else "library"), "elfArchitecture" (elfutils' name of
 * the machine, left out where it has none), then one member per module
 * named by its name: its first package note with "buildId" set to its
 * build-id.  A file without a package note in a PT_NOTE (an object file's
 * note sections do not count) is a member holding only its "buildId"
 * (none without a build-id); a core's modules without one are left out.
 * A core's modules are named by the base name of their entry
 * in the dynamic linker's list (of the mapped file where that list cannot
 * be read: a compressed or piped core), but the executable, named by its
 * path as inspect-elf names it, or with PKGNOTE_SYSTEMD_COREDUMP by its
 * base name as systemd-coredump does; the first module of a name wins.
 * *RET is malloc()ed: free() it.  Strings are escaped as in pkgnote's own
 * reports (always valid JSON).  Returns 0, -EINVAL (no INFO or E, no C,
 * unknown FLAGS) or -ENOMEM. */
#define PKGNOTE_SYSTEMD_COREDUMP 0x1u /* the object systemd-coredump logs */
/* A file's object, its member named NAME (as given; NULL: "(unnamed)"). */
PKGNOTE_PUBLIC int pkgnote_info_to_systemd_json(const pkgnote_info *info, pkgnote_object *e, const char *name,
                                                char **ret);

/* ===================================================================
 * What a binary says is inside it
 * Names: pkgnote_embedded_*
 *
 * The component lists some toolchains write into every program they
 * build, read back as one shape whatever wrote them: Go's build
 * information (the toolchain, the main module, every module linked in
 * with its version, go.sum checksum and replacement, and the build
 * settings: what `go version -m` prints), and the crate list
 * cargo-auditable writes into a Rust program's non-allocated ".dep-v0"
 * section (zlib-compressed JSON: every crate with its version, source,
 * kind and root flag, and the dependencies between them, which become
 * the list's edges).  A program that carries both (a Go program linking
 * a Rust static library through cgo) gives one list: Go's modules, then
 * the crates; the toolchain and settings are Go's.
 * pkgnote_info_read() reads them too
 * (pkgnote_info_embedded()), so reports, scans and SBOMs carry them as
 * components of the binary's own package.
 * Handle: pkgnote_embedded (pkgnote_info_embedded() hands out one its
 * summary owns).  Since 1.2.
 * =================================================================== */

/* One component: a Go module or a Rust crate.  Every string lives as
 * long as the pkgnote_embedded it came from; a field a list does not
 * carry is NULL.
 *   ecosystem  "golang" or "cargo": the purl type
 *   name       the Go module path, the crate name
 *   version    as the list gives it: a Go module's version as in go.sum
 *              (pseudo-versions and "+incompatible" kept), "(devel)" for
 *              a main module built from its own tree; NULL when none
 *   checksum   a Go module's go.sum hash ("h1:..."), NULL when none
 *   source     where a crate came from ("crates.io", "git", "local",
 *              "registry"); for Go "local" when a replace directive
 *              points at a directory, else NULL
 *   kind       "runtime", "build" or "dev" (every Go module: "runtime")
 *   purl       its package URL as the purl specification writes the
 *              type: pkg:golang/NAMESPACE/NAME@VERSION, the module path
 *              lowercased, its last segment the name and the rest the
 *              namespace (a one-segment path is the name alone), each
 *              segment and the version percent-encoded ("+incompatible"
 *              is "%2Bincompatible"), no version for "(devel)" or none;
 *              pkg:cargo/NAME@VERSION.  A replaced Go module has the
 *              purl of its replacement when that is a module version,
 *              of itself when the replacement is a directory (its code
 *              is local: no published version names it better)
 *   replacement_name, replacement_version, replacement_checksum
 *              what a replace directive put in its place (a directory:
 *              its path, and the version cmd/go records for it, "(devel)"
 *              or none), else NULL
 *   main       1 for the main module, a root crate; else 0
 * Growable: the caller sets SIZE (PKGNOTE_COMPONENT_INIT); fields past
 * it are left alone. */
typedef struct pkgnote_component {
        size_t size; /* sizeof(pkgnote_component), set by the caller */
        const char *ecosystem;
        const char *name;
        const char *version;
        const char *checksum;
        const char *source;
        const char *kind;
        const char *purl;
        const char *replacement_name;
        const char *replacement_version;
        const char *replacement_checksum;
        int main;
} pkgnote_component;
#define PKGNOTE_COMPONENT_INIT {.size = sizeof(pkgnote_component)}

/* Limits on what a list may hold; beyond them, -E2BIG. */
#define PKGNOTE_MAX_COMPONENTS 65536u /* components per object */
#define PKGNOTE_MAX_COMPONENT_EDGES (1u << 20) /* dependency edges per object */

/* Reads what E says is inside it: 1 with *RET, 0 when it says nothing (no
 * Go build information, no crate list), or a negative errno: -EBADMSG (a
 * damaged list), -E2BIG (over a limit), -ENODATA (the bytes are not all
 * there: a module's page in a core), -EOPNOTSUPP (a crate list in a build
 * without zlib), -ENOMEM, -EINVAL (no E or RET).  When either list fails
 * this fails; pkgnote_info_read() instead keeps the list that could be
 * read and records the other's failure among the problems.
 * *RET is written only when 1 is returned.  An ELF object is looked at
 * for Go build information only when it carries Go's build-id note (owner
 * "Go", type 4) in a PT_NOTE, as everything Go's linker writes does, and
 * for a crate list only when its section table (read for the notes)
 * names ".dep-v0", so that reading a tree of C objects costs nothing
 * more; a program linked with -buildid= (which drops that note) reads as
 * 0.  The crate list is in no segment: eu-strip and llvm-strip remove it
 * (binutils' strip keeps it), and a core or a process image has none (a
 * running process's modules are read from their files, which have it).
 * A Go module in a core gets its build information from the dumped pages
 * of its data segment (pkgnote_module_reason() says when they were not
 * dumped).  Crates are each listed once (name, version, source), the
 * root crate first.  *RET does not refer to E: E may be freed first.
 * Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_embedded_read(pkgnote_object *e, pkgnote_embedded **ret);
/* Since 1.2. */
PKGNOTE_PUBLIC void pkgnote_embedded_free(pkgnote_embedded *m);
/* The toolchain that built the program ("go1.19.8"), or NULL.  Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_embedded_toolchain(const pkgnote_embedded *m);
/* Go's main package's import path (the "path" line of go version -m,
 * "command-line-arguments" for a program built from files), or NULL.
 * Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_embedded_package_path(const pkgnote_embedded *m);
/* The components, in the list's order (Go: the main module first, when
 * the program was built inside one, then the dependencies as go version
 * -m lists them; then the crates: the root crate first, then the others
 * in the crate list's order).  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_embedded_component_count(const pkgnote_embedded *m);
/* Component I into *C (its SIZE set by the caller): 1, or -ENOENT past
 * the last, -EINVAL for a bad SIZE.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_embedded_component(const pkgnote_embedded *m, size_t i, pkgnote_component *c);
/* Dependency edges, where the list has them (a crate list does, each
 * edge once, sorted; Go's build information names no edges, so a Go
 * program has none): their count, and edge I: 1 with *FROM depending on
 * *TO (component indices), or -ENOENT past the last.  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_embedded_edge_count(const pkgnote_embedded *m);
PKGNOTE_PUBLIC int pkgnote_embedded_edge(const pkgnote_embedded *m, size_t i, size_t *from, size_t *to);
/* The build settings (Go: "-trimpath", "CGO_ENABLED", "GOARCH",
 * "vcs.revision"...), in the list's order: their count, and setting I: 1
 * with *KEY and *VALUE, or -ENOENT past the last.  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_embedded_setting_count(const pkgnote_embedded *m);
PKGNOTE_PUBLIC int pkgnote_embedded_setting(const pkgnote_embedded *m, size_t i, const char **key, const char **value);
/* {"toolchain", "path", "components": [{"ecosystem", "name", "version",
 * "checksum", "source", "kind", "purl", "main", "replacement": {"name",
 * "version", "checksum"}}], "dependencies": [[FROM, TO]...], "settings":
 * [{"key", "value"}]}, members that are NULL (and "replacement" when
 * there is none) left out; the "embedded" member of a file's report
 * (pkgnote_info_to_json()).  0 with *RET (malloc()ed), or -ENOMEM.
 * Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_embedded_to_json(const pkgnote_embedded *m, char **ret);

/* ===================================================================
 * Generate
 * Names: pkgnote_compose_*, pkgnote_nevra_*, pkgnote_target_*, pkgnote_emit*, pkgnote_linker_*, pkgnote_ldflags_*, pkgnote_route_text
 *
 * Making a note before or at link time: the metadata composed from what a
 * build states (pkgnote_compose), the target it is for (pkgnote_target),
 * the note as an object, assembler source, linker script, C header or COFF
 * object (pkgnote_emit*), and the options and files that pass it to a
 * linker (pkgnote_linker, pkgnote_ldflags_*, pkgnote_route_text()).
 * Handles: pkgnote_compose.
 * =================================================================== */

typedef struct pkgnote_compose pkgnote_compose;

/* Package metadata from what a build states: the one
 * implementation of pkgnote(1)'s METADATA PRECEDENCE, used by generate,
 * stamp and the build integrations.  Highest first: a key field; an rpm
 * NEVRA (type, name, version, architecture); the JSON documents, whose
 * keys, values and key order are kept.  Defaults from os-release: os and
 * osVersion only in a note made without documents, with no os stated,
 * whose type is the package format of the distribution os-release
 * describes (pkgnote_os_release_package_type()); osCpe only when the
 * osCpe field is "auto", from an os-release whose ID is the note's os
 * (or, with no os, whose package format is the note's type).  Keys absent
 * from the documents follow theirs in canonical order. */

PKGNOTE_PUBLIC int pkgnote_compose_new(pkgnote_compose **ret);
PKGNOTE_PUBLIC void pkgnote_compose_free(pkgnote_compose *c);
/* An explicit value for the well-known KEY (the last one given counts);
 * -EINVAL for an unknown key, an empty value or a control character. */
PKGNOTE_PUBLIC int pkgnote_compose_set(pkgnote_compose *c, const char *key, const char *value);
/* NAME-[EPOCH:]VERSION-RELEASE.ARCH; a src/nosrc ARCH sets no architecture. */
PKGNOTE_PUBLIC int pkgnote_compose_rpm(pkgnote_compose *c, const char *nevra);
/* A JSON object of LEN bytes; a later document replaces the keys it
 * shares with earlier ones in place.  Well-known keys must be strings. */
PKGNOTE_PUBLIC int pkgnote_compose_document(pkgnote_compose *c, const char *json, size_t len);
/* Which os-release to read (ROOT NULL: "/"), and whether to read one at
 * all (USE 0).  A missing os-release is an error only under an explicit
 * ROOT or with osCpe "auto". */
PKGNOTE_PUBLIC int pkgnote_compose_os_release(pkgnote_compose *c, const char *root, int use);
/* The os-release file to read instead of a root's (PATH NULL: none); a
 * root and a file both named make pkgnote_compose_json() fail with
 * -EINVAL.  A named file that is missing is an error. */
PKGNOTE_PUBLIC int pkgnote_compose_os_release_file(pkgnote_compose *c, const char *path);
/* The compact JSON (malloc()ed). */
PKGNOTE_PUBLIC int pkgnote_compose_json(pkgnote_compose *c, char **ret);
/* After pkgnote_compose_json(): why an implicit os-release was not
 * used, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_compose_warning(const pkgnote_compose *c);

/* --- rpm package names --- */

/* An rpm package's NAME-[EPOCH:]VERSION-RELEASE.ARCH (or yum's
 * EPOCH:NAME-VERSION-RELEASE.ARCH), split.  ARCH must be one rpm knows
 * (including noarch, src, nosrc), so a string without one is refused
 * instead of its dist tag being taken for an architecture.  The strings
 * point into buffer_, released by pkgnote_nevra_clear(); epoch is NULL
 * when absent.  The caller sets size (PKGNOTE_NEVRA_INIT); -EINVAL when
 * it does not cover buffer_, which every version has. */
typedef struct pkgnote_nevra {
        size_t size; /* sizeof(pkgnote_nevra), set by the caller */
        const char *name, *epoch, *version, *release, *arch;
        char *buffer_;
} pkgnote_nevra;
#define PKGNOTE_NEVRA_INIT {.size = sizeof(pkgnote_nevra)}

PKGNOTE_PUBLIC int pkgnote_nevra_parse(const char *nevra, pkgnote_nevra *ret);
PKGNOTE_PUBLIC void pkgnote_nevra_clear(pkgnote_nevra *n);

/* --- Targets and generators --- */

/* Where a generated note goes: ELF class, byte order, machine, and the
 * e_flags a relocatable object needs to link with the platform's usual
 * ABI (for example hard-float on armhf, lp64d on riscv64). */
typedef struct pkgnote_target {
        size_t size;        /* sizeof(pkgnote_target), set by the caller */
        const char *name;   /* canonical name: "x86_64", "s390x", "ELF32BE", ... */
        int elf_class;      /* 32 or 64 */
        int big_endian;     /* 1 or 0 */
        unsigned machine;   /* e_machine; 0 (EM_NONE) for the ELFnnXE forms */
        uint32_t flags;     /* e_flags */
} pkgnote_target;
#define PKGNOTE_TARGET_INIT {.size = sizeof(pkgnote_target)}

/* Accepts an architecture (x86_64, amd64, i386..i686, aarch64, arm64,
 * aarch64_be, armhf, armel, s390x, ppc64le, ppc64, ppc, riscv64,
 * loongarch64), a GNU triplet whose first part is one of those
 * (s390x-linux-gnu, arm-linux-gnueabihf), a BFD name (elf64-x86-64,
 * elf64-s390, ...), or ELF32LE, ELF32BE, ELF64LE, ELF64BE, which give
 * class and byte order but no machine.  -EINVAL otherwise, and when
 * RET->size is below sizeof(size_t).  Both fill the fields RET->size
 * covers. */
PKGNOTE_PUBLIC int pkgnote_target_parse(const char *spec, pkgnote_target *ret);
/* The target pkgnote itself was built for (nothing written when RET->size
 * is below sizeof(size_t)). */
PKGNOTE_PUBLIC void pkgnote_target_host(pkgnote_target *ret);

/* The generators below take the note's JSON text, which must be one
 * valid JSON object without control characters (-EINVAL otherwise), and
 * return malloc()ed output.  The note they describe is always the one
 * pkgnote_package_note_encode() makes, byte for byte as ld.bfd
 * --package-metadata writes it. */

/* A relocatable ELF object (ET_REL) holding the note in an allocated,
 * 4-aligned SHT_NOTE section .note.package, an empty .note.GNU-stack (so
 * linking it does not make the stack executable), a symbol table and
 * .shstrtab.  The note's section is in a COMDAT group pkgnote.note.HASH
 * (HASH: 32 hex digits of the SHA-256 of the note in little-endian
 * form), so linking the object in several times keeps one note, and is
 * SHF_GNU_RETAIN, so --gc-sections keeps it (ld.bfd and lld collect a
 * note in a group otherwise; EI_OSABI is ELFOSABI_GNU, as gas makes
 * such an object).  For x86-64, i386 and aarch64 it also holds a
 * .note.gnu.property (8-aligned in ELF64, 4 in ELF32) whose
 * X86_FEATURE_1_AND / AARCH64_FEATURE_1_AND claims every feature bit:
 * linkers AND-merge these, so the output keeps exactly the IBT, SHSTK,
 * BTI, PAC... of the other inputs.  -EINVAL when T has no machine. */
PKGNOTE_PUBLIC int pkgnote_emit_object(const char *json, const pkgnote_target *t, uint8_t **ret,
                                       size_t *ret_len);
/* GNU assembler source for the same sections, for target T (NULL: this
 * machine; only its GNU property note depends on it); assembles unchanged
 * with gas on any ELF target and with clang's integrated assembler (gas
 * 2.36 and LLVM 13 or later, which know the "R" flag).  The note's section
 * is in the same COMDAT group, with the same flags, as in the object. */
PKGNOTE_PUBLIC int pkgnote_emit_asm_target(const char *json, const pkgnote_target *t, char **ret);
/* pkgnote_emit_asm_target() for this machine. */
PKGNOTE_PUBLIC int pkgnote_emit_asm(const char *json, char **ret);
/* A linker script that inserts .note.package after .note.gnu.build-id:
 * for ld.bfd >= 2.38 (-Wl,-dT,FILE or -Wl,-T,FILE) and ld.lld >= 15
 * (-Wl,-T,FILE; lld needs a .note.gnu.build-id to insert after).  The
 * header words are LONG()s, which the linker writes in the output's byte
 * order, so one script serves every target.  gold (no INSERT) and mold
 * (no SECTIONS) cannot use it. */
PKGNOTE_PUBLIC int pkgnote_emit_linker_script(const char *json, char **ret);

/* Several notes generated together, by pkgnote_emit(), or stamped
 * together.  Passed as an array whose first element's size is the stride
 * of all (see the conventions); PKGNOTE_NOTE_SPEC() makes one element. */
typedef struct pkgnote_note_spec {
        size_t size;      /* sizeof(pkgnote_note_spec), set by the caller */
        uint32_t type;    /* PKGNOTE_NT_FDO_PACKAGING_METADATA or _DLOPEN_METADATA */
        const char *json; /* the note's JSON, checked as the functions above do */
} pkgnote_note_spec;
#define PKGNOTE_NOTE_SPEC(TYPE, JSON) {sizeof(pkgnote_note_spec), (TYPE), (JSON)}

/* What pkgnote_emit() makes. */
enum {
        PKGNOTE_EMIT_NOTES = 1,     /* the notes back to back, as in a PT_NOTE */
        PKGNOTE_EMIT_OBJECT,        /* a relocatable object, as pkgnote_emit_object() */
        PKGNOTE_EMIT_ASM,           /* assembler source, as pkgnote_emit_asm_target() */
        PKGNOTE_EMIT_LINKER_SCRIPT, /* a linker script, as pkgnote_emit_linker_script() */
        PKGNOTE_EMIT_C_HEADER,      /* a C/C++ header whose top-level asm emits the notes
                                       (no GNU property note: the compiler writes the
                                       object's own) */
};

/* The N notes in FORM for target T (NULL: this machine; the linker
 * script has none): at most one package note, which comes first, then
 * the dlopen notes in their order, no two the same (-EINVAL otherwise).
 * The package note is as described above.  Each dlopen note is a section
 * .note.dlopen of its own, in a COMDAT group pkgnote.dlopen.HASH and
 * SHF_GNU_RETAIN like the package note's, so a program that links the
 * same note in from several objects or static libraries keeps one copy,
 * also under --gc-sections.  The text forms are NUL-terminated; *RET_LEN
 * never counts the NUL. */
PKGNOTE_PUBLIC int pkgnote_emit(int form, const pkgnote_note_spec *notes, size_t n, const pkgnote_target *t,
                                uint8_t **ret, size_t *ret_len);

/* --- Linkers and their options --- */

/* Linkers, for choosing how to pass the note. */
enum {
        PKGNOTE_LINKER_UNKNOWN = 0,
        PKGNOTE_LINKER_BFD,
        PKGNOTE_LINKER_GOLD,
        PKGNOTE_LINKER_LLD,
        PKGNOTE_LINKER_MOLD,
};

typedef struct pkgnote_linker {
        size_t size;                  /* sizeof(pkgnote_linker), set by the caller */
        int kind;                     /* PKGNOTE_LINKER_* */
        unsigned major, minor;        /* 0.0 when unknown; gold: its binutils version */
} pkgnote_linker;
#define PKGNOTE_LINKER_INIT {.size = sizeof(pkgnote_linker)}

/* "bfd" (also "ld"), "gold", "lld", "mold" to PKGNOTE_LINKER_*, else 0. */
PKGNOTE_PUBLIC int pkgnote_linker_kind_from_name(const char *name);
PKGNOTE_PUBLIC const char *pkgnote_linker_kind_name(int kind);
/* Identifies a linker from the output of "LINKER --version" (LEN bytes).
 * -EINVAL when it is none of the four or RET->size is below
 * sizeof(size_t); the fields RET->size covers are filled.  Functions
 * given a pkgnote_linker or pkgnote_target read it by the rule of the
 * conventions (-EINVAL for fields unknown to the library that are set, or
 * a size below sizeof(size_t); those returning 1 or 0 return -EINVAL). */
PKGNOTE_PUBLIC int pkgnote_linker_identify(const char *version_output, size_t len, pkgnote_linker *ret);
/* 1 when the linker takes --package-metadata=JSON: bfd and gold from
 * binutils 2.39, lld 15, mold 1.3. */
PKGNOTE_PUBLIC int pkgnote_linker_has_package_metadata(const pkgnote_linker *l);
/* 1 when the linker percent-decodes the --package-metadata argument:
 * ld.bfd from binutils 2.44 (%XX, %[comma] and similar names; a '%'
 * starting neither is kept), lld 21 and mold 2.36 (%XX only; any other
 * '%' is an error).  gold never decodes. */
PKGNOTE_PUBLIC int pkgnote_linker_decodes_package_metadata(const pkgnote_linker *l);

enum {
        PKGNOTE_LDFLAGS_SHELL = 0, /* for a POSIX shell command line */
        PKGNOTE_LDFLAGS_MAKE = 1,  /* for a make variable or recipe: also $ -> $$, # -> \# */
};

/* Quotes ARG as one word for STYLE: single quotes when needed, ' as '\''. */
PKGNOTE_PUBLIC int pkgnote_ldflags_quote(const char *arg, int style, char **ret);
/* "-Xlinker '--package-metadata=JSON'" quoted for STYLE.  -Xlinker (not
 * -Wl,) because the compiler driver splits -Wl, arguments at commas. */
PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata(const char *json, int style, char **ret);
/* The options for linker L: for one that decodes percent escapes
 * (pkgnote_linker_decodes_package_metadata()),
 * "-Wl,--package-metadata=ENCODED", which survives -Wl, comma splitting,
 * shells and make unquoted and keeps a literal '%' as %25; otherwise
 * pkgnote_ldflags_package_metadata(), where a '%' needs no escape. */
PKGNOTE_PUBLIC int pkgnote_ldflags_package_metadata_for(const char *json, const pkgnote_linker *l, int style,
                                                        char **ret);

/* --- Injection routes --- */

enum {
        PKGNOTE_ROUTE_GCC_SPECS = 1,  /* a gcc specs file: gcc -specs=FILE */
        PKGNOTE_ROUTE_CLANG_CONFIG,   /* a clang configuration file: clang --config FILE */
        PKGNOTE_ROUTE_RESPONSE_FILE,  /* a linker response file: -Wl,@FILE */
};

/* The text of ROUTE passing --package-metadata=JSON to the linker (JSON
 * checked as pkgnote_package_note_encode() does; percent-encoded when
 * pkgnote_linker_decodes_package_metadata(L); L may be NULL) and the
 * N_OBJECTS absolute OBJECTS (objects holding dlopen notes, which no
 * linker option makes) as linker inputs.  JSON may be NULL when objects
 * are given.  Every byte the route's reader treats specially is escaped
 * with a backslash.  The specs file appends to the link spec and leaves
 * relocatable (-r) links alone.  *RET is malloc()ed; 0 or -EINVAL,
 * -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_route_text(int route, const char *json, const pkgnote_linker *l,
                                      const char *const *objects, size_t n_objects, char **ret);

/* --- PE/COFF --- */

/* The bytes of a .pkgnote section for JSON (checked as the package note's
 * JSON is; NUL-terminated, NUL-padded to 4 bytes), malloc()ed, for
 * objcopy --add-section.  -EINVAL bad JSON. */
PKGNOTE_PUBLIC int pkgnote_emit_coff_section(const char *json, uint8_t **ret, size_t *ret_len);
/* A COFF object for target T (x86_64, i686, aarch64, armhf, riscv64,
 * loongarch64) with one section, .pkgnote (initialized data, read-only,
 * 4-byte aligned), holding pkgnote_emit_coff_section()'s bytes: link it
 * into a PE image with mingw-w64's gcc or ld, or lld-link.  -EINVAL bad
 * JSON or a target without a PE machine. */
PKGNOTE_PUBLIC int pkgnote_emit_coff_object(const char *json, const pkgnote_target *t, uint8_t **ret,
                                            size_t *ret_len);

/* ===================================================================
 * Stamp
 * Names: pkgnote_stamp_*, pkgnote_filemap_*, pkgnote_root_file_*
 *
 * Adding, replacing and removing the notes of files already linked: in
 * memory, one file, every file of a tree (with a metadata map giving each
 * file its note: pkgnote_filemap), or a file inside a root directory
 * (pkgnote_root_file); what stamping did, as JSON.
 * Handles: pkgnote_filemap, pkgnote_root_file.
 * =================================================================== */

typedef struct pkgnote_filemap pkgnote_filemap;
typedef struct pkgnote_root_file pkgnote_root_file;

/* Adds, replaces or removes the package note of an already linked
 * executable or shared object (ET_EXEC, ET_DYN: the note is reached
 * through a PT_NOTE inside a PT_LOAD) or of a relocatable object
 * (ET_REL, kernel modules: an allocated SHT_NOTE section .note.package).
 * Code and data addresses never change, and existing notes stay where
 * every reader (and a kernel core dump) finds them.
 *
 * pkgnote_stamp_notes_memory() and pkgnote_stamp_notes_file() do the
 * same for the dlopen note (section .note.dlopen), alone or together with
 * the package note.  After stamping a dlopen note the file holds exactly
 * one: a dlopen note's array holds every entry, so the others it had
 * (several, when objects declaring some were linked together) are taken
 * out as removal takes package notes out; a file that already holds just
 * that note is left unchanged.  Removing takes every dlopen note out. */

enum {
        PKGNOTE_STAMP_REMOVE = 1u << 0, /* take the notes out instead (every kind given) */
        /* Proceed with what is refused otherwise: a hard-linked target
         * (the other names keep the old file), a read-only target, a
         * kernel module with an appended signature (the signature, which
         * stamping invalidates, is dropped: sign the module again). */
        PKGNOTE_STAMP_FORCE = 1u << 1,
        /* Fail with -ENOSPC rather than put the note of an executable or
         * shared object where kernel core dumps do not carry it. */
        PKGNOTE_STAMP_REQUIRE_FIRST_PAGE = 1u << 2,
};

/* Where the note went; pkgnote_stamp_placement_name() gives the words. */
enum {
        PKGNOTE_PLACE_NONE = 0,    /* removing: there was no package note */
        PKGNOTE_PLACE_UNCHANGED,   /* the same note was already there */
        PKGNOTE_PLACE_REPLACED,    /* over the old package note, in its room */
        PKGNOTE_PLACE_AFTER_NOTES, /* first page: extends the PT_NOTE of the existing notes */
        PKGNOTE_PLACE_MERGED,      /* first page: with a copy of the existing 4-byte notes */
        PKGNOTE_PLACE_FREE_SLOT,   /* a PT_NULL program header became its PT_NOTE */
        PKGNOTE_PLACE_MOVED_PHDRS, /* first page: program headers moved, within that page */
        PKGNOTE_PLACE_PADDING,     /* padding after a segment, outside the first page */
        PKGNOTE_PLACE_APPENDED,    /* a new segment at the end, with the program headers
                                    * (only when they were not in the first page) */
        PKGNOTE_PLACE_SECTION,     /* section .note.package: relocatable objects; linked
                                    * files where nothing else keeps the first page (not loaded) */
        PKGNOTE_PLACE_REMOVED,
        PKGNOTE_PLACE_PE_SECTION, /* a PE image's new .pkgnote section, last in the image */
};

typedef struct pkgnote_stamp_result {
        size_t size;            /* sizeof(pkgnote_stamp_result), set by the caller (in an array:
                                 * the first element's gives the stride of all) */
        int placement;          /* PKGNOTE_PLACE_* */
        int relocatable;        /* an ET_REL object: sections only, no pages */
        int first_page;         /* note in file bytes [0, 4096), so kernel core dumps carry it */
        int phdrs_first_page;   /* program headers still in the first page (cores keep build-ids) */
        int phdrs_moved;        /* the program header table moved */
        int tables_moved;       /* tables of dynamic linking (.gnu.hash, .dynsym, .rela.dyn, ...)
                                 * moved to make room (DT_ entries and sections follow them) */
        int notes_moved;        /* always 0: existing notes never move */
        int signature_removed;  /* a kernel module's appended signature was dropped */
        uint64_t note_offset;   /* file offset of the note (0 when removed) */
        uint64_t note_size;
        uint64_t result_size;   /* size of the result */
        int64_t bytes_added;    /* size of the result minus size of the input */
        int pe_image;           /* a PE/COFF image: the note is its .pkgnote section; an
                                 * Authenticode signature dropped sets signature_removed */
} pkgnote_stamp_result;
#define PKGNOTE_STAMP_RESULT_INIT {.size = sizeof(pkgnote_stamp_result)}

/* Stamps SIZE bytes at DATA with the package note for JSON (one JSON
 * object without control characters; ignored with PKGNOTE_STAMP_REMOVE)
 * and returns the malloc()ed result.  The result is parsed back and
 * checked (note present, build-id and other notes kept) before it is
 * returned.  Stamping the result again with the same JSON gives the same
 * bytes.  Errors: -ENOEXEC not ELF, -EBADMSG malformed, -EINVAL bad JSON,
 * a core file or another ELF type, -ENOSPC no safe place for the note,
 * -EPERM a signed kernel module without PKGNOTE_STAMP_FORCE, -E2BIG a
 * table over its limit. */
PKGNOTE_PUBLIC int pkgnote_stamp_memory(const void *data, size_t size, const char *json, unsigned flags,
                                        uint8_t **ret, size_t *ret_len, pkgnote_stamp_result *result);

/* Stamps the file PATH.  OUTPUT NULL (or equal to PATH) replaces PATH
 * atomically: a temporary file beside it, written, fsync()ed, read back
 * and checked, then renamed over it, keeping mode, owner, timestamps and
 * extended attributes (security.capability included).  A symbolic link
 * is followed and its target replaced; the file replaced must still be
 * the file that was read (-ESTALE otherwise).  Otherwise the result goes
 * to OUTPUT by the rule of pkgnote(1), WRITING FILES (a new file at
 * OUTPUT, with the permission bits of PATH, even when OUTPUT is another
 * hard link of PATH; a symbolic link's target; a device, FIFO or socket
 * written directly; "-" and /dev/stdout standard output) and PATH is
 * never modified.
 * When nothing changes, nothing is written.  Further errors: -EMLINK a
 * hard-linked target, -EROFS a read-only target (both unless
 * PKGNOTE_STAMP_FORCE), errno values of the file operations. */
PKGNOTE_PUBLIC int pkgnote_stamp_file(const char *path, const char *output, const char *json, unsigned flags,
                                      pkgnote_stamp_result *result);

/* Stamps the N notes of NOTES (at most one of each type,
 * PKGNOTE_NT_FDO_PACKAGING_METADATA and PKGNOTE_NT_FDO_DLOPEN_METADATA)
 * as pkgnote_stamp_memory() does: a JSON of NULL removes the notes of that
 * type, as PKGNOTE_STAMP_REMOVE does for every one.  A dlopen note's JSON
 * is checked as pkgnote_dlopen_note_encode() checks it (-EINVAL with its
 * first complaint) and stored without the white space outside strings.
 * The notes are stamped one after the other in the order given, each
 * with every guarantee of pkgnote_stamp_memory(), and the whole result
 * is checked again.  RESULTS (N of them, or NULL) tells what became of
 * each note; size and bytes_added are the whole file's.  -EINVAL: no
 * note, an unknown type, a type given twice. */
PKGNOTE_PUBLIC int pkgnote_stamp_notes_memory(const void *data, size_t size, const pkgnote_note_spec *notes, size_t n,
                                              unsigned flags, uint8_t **ret, size_t *ret_len,
                                              pkgnote_stamp_result *results);

/* pkgnote_stamp_file() for the notes of pkgnote_stamp_notes_memory():
 * the file is written once, atomically, and not at all when every note
 * was already as asked. */
PKGNOTE_PUBLIC int pkgnote_stamp_notes_file(const char *path, const char *output, const pkgnote_note_spec *notes,
                                            size_t n, unsigned flags, pkgnote_stamp_result *results);

/* "unchanged", "replaced", "after-notes", "merged", "free-slot",
 * "moved-phdrs", "padding", "appended", "section", "removed", "none",
 * "pe-section". */
PKGNOTE_PUBLIC const char *pkgnote_stamp_placement_name(int placement);

/* Stamping a PE image that carries an Authenticode signature (a
 * certificate table) drops the signature, which stamping invalidates:
 * sign it again afterwards (sbsign).  Without this flag such an image is
 * refused with -EPERM; with it, a certificate table that does not end
 * the file (-ENOTSUP) or starts inside the headers, a section's data or
 * the COFF symbol table (-EBADMSG) is refused, nothing cut.
 * Stamping a PE image keeps every address it declares (SizeOfImage only
 * grows) and every byte but the header fields it must write; what
 * followed the sections (a COFF symbol table, zeros) moves after the new
 * .pkgnote section's bytes, any other trailing data makes it refused
 * (-ENOTSUP); removing the note gives back the image as it was before
 * stamping, byte for byte (doc/pe.md). */
#define PKGNOTE_STAMP_DROP_SIGNATURE (1u << 3)

/* --- Stamping trees and roots --- */

/* One file of a tree, as pkgnote_stamp_tree() reports it.  Valid during
 * the call only. */
typedef struct pkgnote_stamp_tree_file {
        size_t size;                         /* sizeof(pkgnote_stamp_tree_file) of the library */
        const char *path;                    /* the tree's name joined with the file's path in it */
        int error;                           /* 0 stamped, < 0 failed (pkgnote_last_error()) */
        const char *skipped;                 /* not stamped, and why (error 0) */
        /* When stamped: one for each note specification, results->size
         * bytes apart (the library's size: the stride rule of the
         * conventions); a caller reads the fields that size covers. */
        const pkgnote_stamp_result *results;
        size_t names;                        /* the file's names in the tree (hard links), 1 usually */
} pkgnote_stamp_tree_file;
typedef void (*pkgnote_stamp_tree_fn)(const pkgnote_stamp_tree_file *f, void *userdata);
/* The package note's JSON for the file REL (its path in the tree): the
 * JSON (kept by the caller until the walk ends), or NULL with *SKIP
 * saying why the file is left alone, and *ERR < 0 when that is a failure
 * (the message in pkgnote_last_error()). */
typedef const char *(*pkgnote_stamp_tree_json_fn)(const char *rel, const char **skip, int *err, void *userdata);
/* Stamps every executable, shared object and relocatable object of the
 * tree DIR with the N notes of SPECS as pkgnote_stamp_notes_file() does
 * (pkgnote-stamp(1) --tree), walking and writing relative to directory
 * descriptors opened without following symbolic links; hard links are
 * stamped once and keep being one file.  With JSON_FN, each file's
 * package note JSON comes from it in place of the JSON of the package
 * note specification of SPECS (which must have one: a specification
 * that removes is applied as it is); hard links get that of their first
 * name in the tree's sorted order.
 * Calls FN for every file stamped, skipped or failed.  0, or a negative
 * errno when DIR cannot be walked (-ENOTDIR not a directory); failures
 * of single files go to FN only. */
PKGNOTE_PUBLIC int pkgnote_stamp_tree(const char *dir, const pkgnote_note_spec *specs, size_t n,
                                      pkgnote_stamp_tree_json_fn json_fn, void *json_userdata, unsigned flags,
                                      pkgnote_stamp_tree_fn fn, void *userdata);

/* A file found inside a root directory, every symbolic link resolved as
 * if the root were "/" (as a chroot would), never leading out of it. */
/* Resolves PATH (absolute or relative: both from the root) inside the
 * root directory ROOTFD, which must stay open while *RET lives: 1 with
 * *RET; -ENOENT, -ELOOP, -EINVAL not a regular file, -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_root_file_resolve(int rootfd, const char *path, pkgnote_root_file **ret);
/* Its path in the root, without the leading '/' ("usr/bin/ls"). */
PKGNOTE_PUBLIC const char *pkgnote_root_file_path(const pkgnote_root_file *f);
PKGNOTE_PUBLIC void pkgnote_root_file_free(pkgnote_root_file *f);
/* Stamps F as pkgnote_stamp_notes_file() stamps a file: in place,
 * replaced inside its own directory of the root, or into OUTPUT (F only
 * read).  -ESTALE when F is no longer the file resolved.  Nothing outside
 * the root is opened but OUTPUT. */
PKGNOTE_PUBLIC int pkgnote_stamp_root_file(const pkgnote_root_file *f, const char *output,
                                           const pkgnote_note_spec *specs, size_t n, unsigned flags,
                                           pkgnote_stamp_result *results);

/* --- Metadata maps --- */

/* One package note's JSON per file of a tree, as pkgnote stamp
 * --metadata-map reads it: lines PATH<TAB>JSON; empty lines and lines
 * that start with '#' are ignored.  PATH names a file of the tree
 * ("./a/b", "/a/b" and "a/b" are one file) and may be listed once. */
/* Parses the LEN bytes at TEXT (NAME: the file's name for messages):
 * 1 with *RET, or -EINVAL (-ENOMEM) with the reason and the line's number
 * in pkgnote_last_error().  The JSON is checked later, by the composer. */
PKGNOTE_PUBLIC int pkgnote_filemap_parse(const char *text, size_t len, const char *name, pkgnote_filemap **ret);
PKGNOTE_PUBLIC void pkgnote_filemap_free(pkgnote_filemap *m);
PKGNOTE_PUBLIC size_t pkgnote_filemap_count(const pkgnote_filemap *m);
/* The I-th entry's path (pkgnote_filemap_tree_path() of it; entries in
 * byte order of it) and JSON; NULL past the last. */
PKGNOTE_PUBLIC const char *pkgnote_filemap_path(const pkgnote_filemap *m, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_filemap_document(const pkgnote_filemap *m, size_t i);
/* The entry for PATH (any of the spellings above): 1 with its index in
 * *RET, 0 when none. */
PKGNOTE_PUBLIC int pkgnote_filemap_find(const pkgnote_filemap *m, const char *path, size_t *ret);
/* PATH with its leading "./" and '/' taken off (a pointer into PATH). */
PKGNOTE_PUBLIC const char *pkgnote_filemap_tree_path(const char *path);

/* --- Reports as JSON (see the conventions) --- */

/* What stamping PATH did ("pkgnote stamp --json"): path, placement
 * (pkgnote_stamp_placement_name()), relocatable, firstPage,
 * phdrsFirstPage, phdrsMoved, tablesMoved, notesMoved, signatureRemoved
 * (booleans), noteOffset, noteSize, size, bytesAdded.  With R NULL, why
 * it failed: path and error (ERROR). */
PKGNOTE_PUBLIC int pkgnote_stamp_result_to_json(const pkgnote_stamp_result *r, const char *path, const char *error,
                                                char **ret);
/* What pkgnote_stamp_notes_file() did to PATH for the N notes of NOTES
 * (one or two, with their results R), as "pkgnote stamp --json" prints
 * it: the members above for the first note, after "note": "dlopen" when
 * that is the dlopen note; with two, the second's (the dlopen note's)
 * members in an object "dlopen". */
PKGNOTE_PUBLIC int pkgnote_stamp_notes_result_to_json(const pkgnote_stamp_result *r, const pkgnote_note_spec *notes,
                                                      size_t n, const char *path, char **ret);

/* ===================================================================
 * Lint
 * Names: pkgnote_lint, pkgnote_lint_*, pkgnote_cpe_check
 *
 * Checking an object's package notes against the spec and against what
 * their readers need, each finding of a stable, documented check
 * (pkgnote_lint_check); CPE syntax.  No handle: findings are passed to a
 * callback.
 * =================================================================== */

/* Kinds of CPE name accepted by pkgnote_cpe_check(). */
enum {
        PKGNOTE_CPE_FS = 1,       /* CPE 2.3 formatted string, all 11 components */
        PKGNOTE_CPE_FS_SHORT = 2, /* CPE 2.3 formatted string missing trailing components */
        PKGNOTE_CPE_URI = 3,      /* CPE 2.2 URI ("cpe:/..."), also the 2.3 URI binding */
};

/* Checks the syntax of CPE, as os-release CPE_NAME and the osCpe and
 * appCpe keys hold it: a CPE 2.3 formatted string (NISTIR 7695 6.2:
 * "cpe:2.3:" and 11 components, '\' quoting, '*' and '?' only at the
 * ends of a component) or a CPE 2.2 URI (CPE 2.2 5.3 / NISTIR 7695 6.1:
 * "cpe:/" and up to 7 components, '%' encoding).  Returns one of
 * PKGNOTE_CPE_*, or -EINVAL with the reason in pkgnote_last_error().
 * A formatted string with fewer components, as the spec's own example
 * "cpe:2.3:o:fedoraproject:fedora:33", gives PKGNOTE_CPE_FS_SHORT. */
PKGNOTE_PUBLIC int pkgnote_cpe_check(const char *cpe);

/* How bad a finding is. */
enum {
        PKGNOTE_LINT_WARNING = 1, /* allowed, but loses information or trips readers */
        PKGNOTE_LINT_ERROR = 2,   /* breaks the spec, or readers miss or misread the note */
};

/* "warning" or "error" (NULL for other values). */
PKGNOTE_PUBLIC const char *pkgnote_lint_severity_name(int severity);

/* One kind of finding.  IDs are stable and never reused. */
typedef struct pkgnote_lint_check {
        const char *id;               /* short, e.g. "bad-cpe" */
        int severity;                 /* PKGNOTE_LINT_* */
        const char *summary;          /* one line of English */
} pkgnote_lint_check;

/* The I-th known check, NULL past the last one. */
PKGNOTE_PUBLIC const pkgnote_lint_check *pkgnote_lint_check_get(size_t i);

#define PKGNOTE_LINT_NO_OFFSET UINT64_MAX

typedef struct pkgnote_lint_finding {
        const pkgnote_lint_check *check; /* what was found, and how bad it is */
        /* One line, valid until the callback returns.  It may quote bytes
         * from the file (owners, keys, values): escape before printing. */
        const char *message;
        uint64_t offset; /* file offset of the note concerned, or PKGNOTE_LINT_NO_OFFSET */
} pkgnote_lint_finding;

typedef void (*pkgnote_lint_fn)(void *userdata, const pkgnote_lint_finding *finding);

/* Checks the package notes of E against the spec and against what
 * readers (core dumps, systemd-coredump, readelf, SBOM scanners) need:
 * presence, owner and type, the descriptor's JSON, well-known keys and
 * CPE syntax, and where the note lies (PT_NOTE inside a PT_LOAD within
 * the first page for executables and shared objects; an allocated,
 * 4-byte aligned SHT_NOTE section for relocatable objects).  Calls FN
 * (may be NULL) for each finding, in a stable order.  Returns the number
 * of error findings, or a negative errno (-ENOMEM) when the object could
 * not be checked at all. */
PKGNOTE_PUBLIC int pkgnote_lint(pkgnote_object *e, pkgnote_lint_fn fn, void *userdata);
/* pkgnote_lint(), and also (check "os-release-mismatch", an error) each
 * package note's os, osVersion and osCpe against the ID, VERSION_ID and
 * CPE_NAME of OSR, the build root's os-release (NULL: not checked); only
 * what both state is compared. */
PKGNOTE_PUBLIC int pkgnote_lint_os_release(pkgnote_object *e, const pkgnote_os_release *osr, pkgnote_lint_fn fn,
                                           void *userdata);

/* --- Reports as JSON (see the conventions) --- */

/* A lint finding in the file PATH ("pkgnote lint --json"), F as the
 * callback of pkgnote_lint() received it (the struct may grow: a caller
 * does not build one itself): path,
 * severity, check (its id), message, offset (a number, or null for
 * PKGNOTE_LINT_NO_OFFSET). */
PKGNOTE_PUBLIC int pkgnote_lint_finding_to_json(const pkgnote_lint_finding *f, const char *path, char **ret);

/* ===================================================================
 * Core and process reports
 * Names: pkgnote_core_*, pkgnote_module_*, pkgnote_process_*, pkgnote_dbcache_*, pkgnote_stack_*, pkgnote_debuginfo_*, pkgnote_source_name, pkgnote_signal_name, pkgnote_origin_name, pkgnote_db_state_name
 *
 * What a core file or a running process held (pkgnote_core): its process
 * facts and threads, its modules (pkgnote_module) with their notes and, where
 * a note is missing, the package database's answer (many processes share
 * their roots' databases through a pkgnote_dbcache), stack traces with debug
 * info from debuginfod (pkgnote_stack); a core's report as JSON and in
 * systemd's shape.
 * Handles: pkgnote_core, pkgnote_module, pkgnote_stack, pkgnote_dbcache.
 * =================================================================== */

typedef struct pkgnote_core pkgnote_core;
typedef struct pkgnote_module pkgnote_module;
typedef struct pkgnote_stack pkgnote_stack;
typedef struct pkgnote_dbcache pkgnote_dbcache;

/* NT_FILE entries of a core; lines of a running process's /proc/PID/maps,
 * which is read whole up to this, far above the kernel's default
 * vm.max_map_count (65530) and the 262144 mmap-heavy servers ask for. */
#define PKGNOTE_MAX_MAPPINGS (1u << 20)
/* Bytes of one /proc/PID/maps line (a path longer than PATH_MAX can be
 * mapped); a longer line is passed over and said. */
#define PKGNOTE_MAX_MAPS_LINE (1u << 16)
#define PKGNOTE_MAX_MODULES 4096u       /* modules per core */
#define PKGNOTE_MAX_THREADS 4096u       /* threads listed per core */
/* A compressed core decompressed for a stack trace keeps at most this
 * many bytes in memory; past them it goes on in an unlinked temporary
 * file in $TMPDIR, else /var/tmp. */
#define PKGNOTE_MAX_CORE_IN_MEMORY (64u << 20)

typedef struct pkgnote_core_options {
        size_t size; /* sizeof(pkgnote_core_options), or 0 */
        /* Where module paths resolve when a note must come from disk: the
         * container's or image's root; NULL means the host's "/".  Paths
         * never escape it ("..", symlinks). */
        const char *root;
        /* Never read module files from disk. */
        int no_disk;
        /* Never ask the root's package database about modules without a
         * package note (see pkgnote_module_db_state()). */
        int no_database;
        unsigned flags; /* PKGNOTE_CORE_* */
} pkgnote_core_options;
/* A compressed core file (not a pipe) is decompressed once, its zero
 * pages left as holes, into memory (a sealed memfd) while it holds at
 * most PKGNOTE_MAX_CORE_IN_MEMORY bytes, past them into an unlinked
 * temporary file in $TMPDIR, else /var/tmp (where none can be made, it
 * stays in memory and the core's problems say so), and both the reader and
 * a later stack trace (pkgnote_core_stack_with()) read it there, instead
 * of the reader streaming it and the unwinder decompressing it again.
 * Set it when a stack trace will be asked for; without a stack trace,
 * streaming reads less and holds no copy.  A core whose non-zero bytes
 * would take more than half of the machine's memory, or whose stream
 * fails to decode, is streamed as without the flag. */
#define PKGNOTE_CORE_DECOMPRESS_ONCE 1u
#define PKGNOTE_CORE_OPTIONS_INIT {.size = sizeof(pkgnote_core_options)}

typedef struct pkgnote_thread_info {
        int tid;
        int signal; /* pending signal of the thread (pr_cursig) */
} pkgnote_thread_info;

typedef struct pkgnote_process_info {
        size_t size;             /* sizeof(pkgnote_process_info), set by the caller */
        int pid, ppid, uid, gid; /* -1 when the core does not say; pid is the process (thread group) */
        int signal;              /* 0 when unknown */
        int has_fault_address;
        uint64_t fault_address;  /* si_addr for SIGSEGV, SIGBUS, SIGILL, SIGFPE */
        const char *command;     /* pr_fname, or NULL */
        const char *arguments;   /* pr_psargs (first 80 bytes), or NULL */
        const char *executable;  /* AT_EXECFN when absolute, else the main module's path, else
                                  * AT_EXECFN as given, else pr_fname; NULL, never "", if none */
        int elf_class, big_endian;
        unsigned machine;
        int tid;                 /* the crashing thread's id (a core's first NT_PRSTATUS), or -1;
                                  * pid is the process's (NT_PRPSINFO), which differs when
                                  * another thread than the main one crashed */
} pkgnote_process_info;
#define PKGNOTE_PROCESS_INFO_INIT {.size = sizeof(pkgnote_process_info)}

/* Where a module's metadata came from. */
enum {
        PKGNOTE_SOURCE_NONE = 0,      /* not available */
        PKGNOTE_SOURCE_CORE = 1,      /* the page dumped into the core */
        PKGNOTE_SOURCE_DISK = 2,      /* the file on disk, build-id verified */
        PKGNOTE_SOURCE_DISK_MISMATCH = 3, /* the disk copy differs: not used */
        PKGNOTE_SOURCE_MAPPED = 4,    /* a running process's mapped file */
};

/* Opens a core file ("-" for standard input): plain, or compressed with
 * zstd, xz or lz4 (detected by content, read as a stream).  -ENOEXEC when
 * it is none of these, -EINVAL when it is ELF but not a core.  Problems
 * that leave the rest readable (a bad NT_FILE, an unreadable module) do
 * not fail the call: see pkgnote_core_problem(). */
PKGNOTE_PUBLIC int pkgnote_core_open(const char *path, const pkgnote_core_options *o, pkgnote_core **ret);
PKGNOTE_PUBLIC int pkgnote_core_open_fd(int fd, const pkgnote_core_options *o, pkgnote_core **ret);
PKGNOTE_PUBLIC int pkgnote_core_from_memory(const void *data, size_t size, const pkgnote_core_options *o,
                                            pkgnote_core **ret);
PKGNOTE_PUBLIC void pkgnote_core_free(pkgnote_core *c);

/* Process facts; the strings live as long as C. */
PKGNOTE_PUBLIC int pkgnote_core_process(const pkgnote_core *c, pkgnote_process_info *ret);
/* The threads the core lists (at most PKGNOTE_MAX_THREADS), the crashing
 * thread first: their number, and thread I (NULL past the last), which
 * lives as long as C. */
PKGNOTE_PUBLIC size_t pkgnote_core_thread_count(const pkgnote_core *c);
PKGNOTE_PUBLIC const pkgnote_thread_info *pkgnote_core_thread(const pkgnote_core *c, size_t i);

/* Modules in address order: each file mapped at offset 0 that is ELF,
 * once per start address, and the vDSO. */
PKGNOTE_PUBLIC size_t pkgnote_core_module_count(const pkgnote_core *c);
PKGNOTE_PUBLIC const pkgnote_module *pkgnote_core_module(const pkgnote_core *c, size_t i);
/* The executable's module, or NULL. */
PKGNOTE_PUBLIC const pkgnote_module *pkgnote_core_main_module(const pkgnote_core *c);

PKGNOTE_PUBLIC size_t pkgnote_core_problem_count(const pkgnote_core *c);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_core_problem(const pkgnote_core *c, size_t i);
/* Bytes read from the core file so far (compressed bytes for a stream);
 * 0 for a running process (pkgnote_process_open()). */
PKGNOTE_PUBLIC uint64_t pkgnote_core_bytes_read(const pkgnote_core *c);

PKGNOTE_PUBLIC const char *pkgnote_module_path(const pkgnote_module *m);
PKGNOTE_PUBLIC uint64_t pkgnote_module_start(const pkgnote_module *m);
PKGNOTE_PUBLIC uint64_t pkgnote_module_end(const pkgnote_module *m);
/* Build-id from the core's page (lowercase hex), or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_module_build_id(const pkgnote_module *m);
/* Build-id of the disk copy when it was read, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_module_disk_build_id(const pkgnote_module *m);
/* The notes used (from the core or the verified disk copy), or NULL.
 * Owned by the core: valid until pkgnote_core_free(); pkgnote_info_dup()
 * keeps a copy beyond that. */
PKGNOTE_PUBLIC const pkgnote_info *pkgnote_module_info(const pkgnote_module *m);
PKGNOTE_PUBLIC int pkgnote_module_source(const pkgnote_module *m);
/* Why metadata is missing or was not used, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_module_reason(const pkgnote_module *m);
/* How the module was found: "nt-file" (the core's NT_FILE note), "auxv"
 * (the vDSO), "link-map" (the dynamic linker's list in a core without
 * NT_FILE), "elf-header" (an ELF header in its dumped memory), "maps"
 * (a running process's /proc/PID/maps).  A static string. */
PKGNOTE_PUBLIC const char *pkgnote_module_found_by(const pkgnote_module *m);
PKGNOTE_PUBLIC int pkgnote_module_is_vdso(const pkgnote_module *m);
/* 1 when the kernel marked the mapped file deleted. */
PKGNOTE_PUBLIC int pkgnote_module_deleted(const pkgnote_module *m);

/* 1 when a running process maps a file other than the one now at its
 * path (replaced on disk by an upgrade). */
PKGNOTE_PUBLIC int pkgnote_module_replaced(const pkgnote_module *m);

/* A running process as a core without registers: modules from
 * /proc/PID/maps, read whole, line by line (at most PKGNOTE_MAX_MAPPINGS
 * lines; what is passed over is one of the core's problems), notes read
 * through /proc/PID/map_files (the files as mapped, even if deleted or
 * replaced since), process facts from /proc/PID/status, comm, cmdline,
 * exe and auxv.  Whether a module was replaced, and the file installed at
 * its path now (pkgnote_module_installed_info()), are told by the
 * process's own root, /proc/PID/root: a process in a chroot or another
 * mount namespace (a container) is compared with its root's files, never
 * the host's. */
PKGNOTE_PUBLIC int pkgnote_process_open(int pid, pkgnote_core **ret);

/* "core", "disk", "disk-mismatch", "mapped", "none". */
PKGNOTE_PUBLIC const char *pkgnote_source_name(int source);
/* "SEGV", "ABRT", ... without "SIG", or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_signal_name(int sig);

/* --- Packages from the package database --- */

/* Where a module lacks a package note, the package that owns its file in
 * the package database of the root it ran in (a core's: the host's "/";
 * a running process's: its own root, /proc/PID/root, where its modules'
 * paths are looked up and their files checked; either way
 * pkgnote_core_options.root when set): dpkg's (var/lib/dpkg) or rpm's
 * (rpmdb.sqlite).  The database is read once per core or process, and
 * only when some module lacks a note; then every module with a path is
 * looked up, those with notes too, so that a disagreement shows.  Its
 * answer is given only for the file that was mapped: a core's module
 * when the file at its path has the core's build-id, a process's when it
 * has the mapping's device and inode (/proc/PID/maps).  Otherwise the
 * package owning the path now is named beside the module, but never
 * claimed as the module's. */
PKGNOTE_PUBLIC int pkgnote_process_open_with(int pid, const pkgnote_core_options *o, pkgnote_core **ret);

/* Where a module's package came from. */
enum {
        PKGNOTE_ORIGIN_NONE = 0,      /* no package known */
        PKGNOTE_ORIGIN_CORE_NOTE = 1, /* a package note in the core's dumped page */
        PKGNOTE_ORIGIN_DISK_NOTE = 2, /* a package note in the file (verified disk copy, or as mapped) */
        PKGNOTE_ORIGIN_DATABASE = 3,  /* the root's package database (no note) */
};
PKGNOTE_PUBLIC int pkgnote_module_package_origin(const pkgnote_module *m);
/* "core-note", "disk-note", "database", "none". */
PKGNOTE_PUBLIC const char *pkgnote_origin_name(int origin);

/* What the database said of a module's file. */
enum {
        PKGNOTE_DB_NOT_ASKED = 0,  /* no database read (every module had a note, no database,
                                    * no_database), or no path (the vDSO) */
        PKGNOTE_DB_OWNED = 1,      /* the mapped file; pkgnote_module_db_name() owns it */
        PKGNOTE_DB_UNOWNED = 2,    /* the mapped file; no package owns it */
        PKGNOTE_DB_REPLACED = 3,   /* another file is at the path now (other build-id, device
                                    * or inode): db names its owner, not the module's */
        PKGNOTE_DB_DELETED = 4,    /* no file at the path now */
        PKGNOTE_DB_UNVERIFIED = 5, /* the core holds no build-id to compare: db names the
                                    * path's owner, not claimed */
};
PKGNOTE_PUBLIC int pkgnote_module_db_state(const pkgnote_module *m);
/* "owned", "unowned", "replaced", "deleted", "unverified", "not-asked". */
PKGNOTE_PUBLIC const char *pkgnote_db_state_name(int state);
/* The package that the database says owns the module's path (for
 * PKGNOTE_DB_OWNED the module's, otherwise what is installed there now):
 * database type ("deb", "rpm"), binary package name, version and
 * architecture, source package name and version; NULL when none owns it.
 * Valid until pkgnote_core_free(). */
PKGNOTE_PUBLIC const char *pkgnote_module_db_type(const pkgnote_module *m);
PKGNOTE_PUBLIC const char *pkgnote_module_db_name(const pkgnote_module *m);
PKGNOTE_PUBLIC const char *pkgnote_module_db_version(const pkgnote_module *m);
PKGNOTE_PUBLIC const char *pkgnote_module_db_architecture(const pkgnote_module *m);
PKGNOTE_PUBLIC const char *pkgnote_module_db_source(const pkgnote_module *m);
PKGNOTE_PUBLIC const char *pkgnote_module_db_source_version(const pkgnote_module *m);
/* 1 when the module has package notes, the database owns its mapped file
 * (PKGNOTE_DB_OWNED), and no note names that package and version (the
 * note wins; this shows the disagreement); else 0. */
PKGNOTE_PUBLIC int pkgnote_module_db_mismatch(const pkgnote_module *m);

/* --- Many running processes, one package database per root --- */

/* A cache of package databases, one per root directory (by its device
 * and inode), for reading many processes: each distinct root's database
 * is read once, whole, the first time a process of that root needs it. */
PKGNOTE_PUBLIC int pkgnote_dbcache_new(pkgnote_dbcache **ret);
/* Frees the databases: every core opened with the cache must be freed
 * before it. */
PKGNOTE_PUBLIC void pkgnote_dbcache_free(pkgnote_dbcache *cache);
/* How many databases the cache holds (roots read that had one). */
PKGNOTE_PUBLIC size_t pkgnote_dbcache_count(const pkgnote_dbcache *cache);
/* As pkgnote_process_open_with(), but the package database comes from
 * CACHE, and its root is the process's own (/proc/PID/root: a container's
 * or a chroot's processes get their root's packages) unless O->root names
 * one (files are compared in the process's own root either way).  Module paths stay as the caller sees them (/proc/PID/maps); the
 * database is asked about them as the process sees them.  -ESRCH when the
 * process is gone (or is a kernel thread, which maps no file), -EACCES
 * or -EPERM when the caller may not read it, -EINVAL without CACHE. */
PKGNOTE_PUBLIC int pkgnote_process_open_cached(int pid, const pkgnote_core_options *o, pkgnote_dbcache *cache,
                                               pkgnote_core **ret);
/* For a module of a running process that is replaced on disk
 * (pkgnote_module_replaced()): the notes of the file now at its path,
 * the version installed beside the one in memory (pkgnote_module_info());
 * NULL when that file has none or cannot be read.  Valid until
 * pkgnote_core_free(). */
PKGNOTE_PUBLIC const pkgnote_info *pkgnote_module_installed_info(const pkgnote_module *m);
/* The restart rule, the one pkgnote ps and the process SBOM apply: 1 when
 * module M of a running process maps a file replaced on disk
 * (pkgnote_module_replaced()) or deleted (pkgnote_module_deleted()) since
 * it was mapped, so that the process runs another version than the one
 * installed and needs a restart to run that; 0 otherwise, and for
 * memory that only looks like a deleted file: paths starting /memfd:,
 * /dev/, /SYSV, /anon_hugepage, /[aio], and /drm (the whole name, or
 * followed by a space).  For a core's module, 1 when its file was deleted
 * when the process was dumped.  0 for NULL. */
PKGNOTE_PUBLIC int pkgnote_module_needs_restart(const pkgnote_module *m);

/* --- Stack traces --- */

/* Stack traces of a core's threads, with elfutils libdw
 * when it is installed: loaded at run time, in a child process that is
 * not dumpable, with limits and a timeout, so a hostile core cannot crash
 * or hang the caller.  The child reads the core C already holds open (or
 * its bytes, for pkgnote_core_from_memory()), never its path; a core read
 * as a stream (compressed, a pipe) has no trace.  Module files are opened
 * as the core reader opens them: not at all with no_disk, only inside the
 * root with root, only regular files, and only when their build-id is the
 * core's.  The core must stay open during the call.
 *
 * Returns 0 with a stack object, whose pkgnote_stack_unavailable() says
 * why it holds no thread when it holds none; -ENOMEM.  Strings live as
 * long as the stack object. */
#define PKGNOTE_STACK_ALL_THREADS 1u /* else the crashing thread only */
#define PKGNOTE_STACK_MAX_THREADS 64u
#define PKGNOTE_STACK_MAX_FRAMES 64u
PKGNOTE_PUBLIC int pkgnote_core_stack(const pkgnote_core *c, unsigned flags, pkgnote_stack **ret);
PKGNOTE_PUBLIC void pkgnote_stack_free(pkgnote_stack *st);
/* Why there is no trace, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_stack_unavailable(const pkgnote_stack *st);
PKGNOTE_PUBLIC size_t pkgnote_stack_thread_count(const pkgnote_stack *st);
/* The thread's id, or -1 past the end. */
PKGNOTE_PUBLIC int pkgnote_stack_thread_tid(const pkgnote_stack *st, size_t thread);
PKGNOTE_PUBLIC size_t pkgnote_stack_frame_count(const pkgnote_stack *st, size_t thread);
/* Frame I of a thread, innermost first: its address, the module's file
 * name (or NULL) and the offset from the module's start, the function
 * (or NULL).  0 or NULL past the end. */
PKGNOTE_PUBLIC uint64_t pkgnote_stack_frame_pc(const pkgnote_stack *st, size_t thread, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_module(const pkgnote_stack *st, size_t thread, size_t i);
PKGNOTE_PUBLIC uint64_t pkgnote_stack_frame_module_offset(const pkgnote_stack *st, size_t thread, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_function(const pkgnote_stack *st, size_t thread, size_t i);
/* Where frame I is in the source, from the module's DWARF (its own, a
 * local debug file, or one fetched with PKGNOTE_STACK_DEBUGINFOD): the
 * file, or NULL when unknown, with *line and *column (0 when unknown;
 * either pointer may be NULL). */
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_source(const pkgnote_stack *st, size_t thread, size_t i,
                                                      unsigned *line, unsigned *column);
/* 1 when frame I is a function inlined into frame I + 1 (same pc: it has
 * no frame of its own on the stack), else 0. */
PKGNOTE_PUBLIC int pkgnote_stack_frame_inlined(const pkgnote_stack *st, size_t thread, size_t i);

/* Debug info from debuginfod servers (libdebuginfod, loaded at run time
 * in the unwinder's child), for the modules of the trace whose debug info
 * is not found locally (the module itself, /usr/lib/debug).  Opt-in: a
 * query tells the server what runs and what crashed, so nothing is asked
 * without PKGNOTE_STACK_DEBUGINFOD, whatever $DEBUGINFOD_URLS says.
 *
 * Each module asks its own servers only: debuginfod_urls when set; else
 * the debugInfoUrl of the module's package note (http or https); else
 * $DEBUGINFOD_URLS.  With debuginfod_allow set, a server not in it is
 * never asked.  A fetched file is used only when it is an ELF file whose
 * build-id is the module's; one that is not is removed from the cache.
 * Downloads go to the cache (cache_path, else $DEBUGINFOD_CACHE_PATH,
 * else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client), where a later report finds them offline. */
#define PKGNOTE_STACK_DEBUGINFOD 2u         /* fetch missing debug info */
#define PKGNOTE_STACK_DEBUGINFOD_DRY_RUN 4u /* only say what would be asked */
/* Accepted for compatibility and without effect: the library never
 * prints; a caller shows slow downloads through the progress callback. */
#define PKGNOTE_STACK_PROGRESS 8u
typedef struct pkgnote_stack_options {
        size_t size; /* sizeof(pkgnote_stack_options), or 0 */
        unsigned flags; /* PKGNOTE_STACK_* */
        /* Servers for every module, space-separated; NULL: as above. */
        const char *debuginfod_urls;
        /* The only servers that may be asked, space-separated; NULL: any. */
        const char *debuginfod_allow;
        const char *cache_path;
        /* Time for one module's download, and for all of them; 0 for the
         * defaults (5 s and 30 s). */
        unsigned module_timeout_ms, total_timeout_ms;
        /* Called while a module's debug info downloads, once
         * the download has taken a second, with the module's path, the
         * servers asked, and the bytes DONE of TOTAL (TOTAL <= 0 when the
         * server has not said); then once more with MODULE NULL when that
         * download ends, so that a line shown can be cleared.  MODULE and
         * SERVERS come from the core and the notes: escape them before
         * showing them.  For a core the call comes from
         * the child process that unwinds: write to a descriptor, do not
         * expect memory changes to reach the caller.  May be NULL. */
        void (*progress)(void *userdata, const char *module, const char *servers, int64_t done, int64_t total);
        void *userdata;
} pkgnote_stack_options;
#define PKGNOTE_STACK_OPTIONS_INIT {.size = sizeof(pkgnote_stack_options)}
/* pkgnote_core_stack() with options (NULL: none).  A running process's
 * stack (pkgnote_process_open()) is read with ptrace, which stops its
 * threads during the call; -EINVAL for unknown fields set. */
PKGNOTE_PUBLIC int pkgnote_core_stack_with(const pkgnote_core *c, const pkgnote_stack_options *o,
                                           pkgnote_stack **ret);

/* What became of a module's debug info, one entry per module of the trace
 * when PKGNOTE_STACK_DEBUGINFOD or _DRY_RUN was given. */
enum {
        PKGNOTE_DEBUGINFO_LOCAL,      /* in the module or a local debug file */
        PKGNOTE_DEBUGINFO_CACHED,     /* from the debuginfod cache, offline */
        PKGNOTE_DEBUGINFO_DOWNLOADED, /* fetched from a server */
        PKGNOTE_DEBUGINFO_DRY_RUN,    /* would be asked of SERVERS */
        PKGNOTE_DEBUGINFO_NOT_FOUND,  /* no server has it */
        PKGNOTE_DEBUGINFO_FAILED,     /* server down, timeout, budget spent */
        PKGNOTE_DEBUGINFO_MISMATCH,   /* the file's build-id is another */
        PKGNOTE_DEBUGINFO_UNUSABLE,   /* not ELF, truncated, no DWARF */
        PKGNOTE_DEBUGINFO_NO_SERVER,  /* no server for this module */
        PKGNOTE_DEBUGINFO_NOT_ALLOWED,/* its servers are not in the allow-list */
        PKGNOTE_DEBUGINFO_NONE,       /* no module file or build-id to ask with */
};
typedef struct pkgnote_debuginfo {
        const char *module;   /* the module's path */
        const char *build_id; /* hex, or NULL */
        int status;           /* PKGNOTE_DEBUGINFO_* */
        const char *servers;  /* asked (or would be), space-separated, or NULL */
        const char *file;     /* the debug file used, or NULL */
        const char *message;  /* details of a failure, or NULL */
} pkgnote_debuginfo;
PKGNOTE_PUBLIC size_t pkgnote_stack_debuginfo_count(const pkgnote_stack *st);
/* Entry I, or NULL past the end. */
PKGNOTE_PUBLIC const pkgnote_debuginfo *pkgnote_stack_debuginfo(const pkgnote_stack *st, size_t i);
/* "local", "cached", "downloaded", "dry-run", "not-found", "failed",
 * "mismatch", "unusable", "no-server", "not-allowed", "none"; NULL for
 * others. */
PKGNOTE_PUBLIC const char *pkgnote_debuginfo_status_name(int status);

/* --- Reports as JSON (see the conventions) --- */

/* The threads of ST, as an array of {tid, frames: [{pc, function,
 * module, moduleOffset}]}: pc and moduleOffset are "0x..." strings,
 * function and module strings or null. */
PKGNOTE_PUBLIC int pkgnote_stack_to_json(const pkgnote_stack *st, char **ret);

/* A member added to a core's report: KEY with STRING, or with NUMBER
 * when STRING is NULL, or with JSON when it is not NULL (since 1.2).
 * Passed as an array whose first element's size is the stride of all
 * (see the conventions); PKGNOTE_JSON_STRING(), PKGNOTE_JSON_NUMBER() and
 * PKGNOTE_JSON_VALUE() make one element. */
typedef struct pkgnote_json_member {
        size_t size; /* sizeof(pkgnote_json_member), set by the caller */
        const char *key;
        const char *string;
        int64_t number;
        /* A JSON object or array as text (a library report such as
         * pkgnote_kernel_to_json()'s), written as it is once it parses
         * within PKGNOTE_MAX_JSON and PKGNOTE_MAX_JSON_DEPTH; STRING and
         * NUMBER are then unused.  Since 1.2. */
        const char *json;
} pkgnote_json_member;
#define PKGNOTE_JSON_STRING(KEY, STRING) {sizeof(pkgnote_json_member), (KEY), (STRING), 0, NULL}
#define PKGNOTE_JSON_NUMBER(KEY, NUMBER) {sizeof(pkgnote_json_member), (KEY), NULL, (NUMBER), NULL}
/* Since 1.2. */
#define PKGNOTE_JSON_VALUE(KEY, JSON) {sizeof(pkgnote_json_member), (KEY), NULL, 0, (JSON)}

/* A core's or process's report ("pkgnote core --json", "pkgnote pid
 * --json"): pid, tid, ppid, uid, gid, signal (numbers, or null when
 * unknown), signalName, faultAddress ("0x...", only when known), command,
 * commandLine, executable (strings or null), architecture, elfClass,
 * byteOrder, package (the main module's first package note, or null),
 * modules (an array of {path, start, end ("0x..."), buildId, packages,
 * embedded (pkgnote_embedded_to_json(), only when the module's summary
 * has a list; since 1.2), source (pkgnote_source_name()), foundBy,
 * diskBuildId (only for
 * PKGNOTE_SOURCE_DISK_MISMATCH), deleted, replaced, vdso (only when
 * true), installedPackages (a replaced module's installed notes, when
 * read: pkgnote_module_installed_info()), reason (only when there is one), packageFrom
 * (pkgnote_origin_name()), and once the package database was read
 * dbState (pkgnote_db_state_name()), dbPackage ({type, name, version,
 * architecture, source, sourceVersion}, or null) and dbMismatch (only
 * when true)}), with packageFrom after package, which is the main
 * module's dbPackage when its package came from the database; then threads
 * (pkgnote_stack_to_json()) when ST is not NULL, and the crash's signature
 * from it when it leaves one (pkgnote_signature_from_stack()): signature
 * (the text), signatureHash, signatureSource (Since 1.1.); then the N_EXTRA members
 * of EXTRA (may be NULL), in their order: a crash collector's time,
 * hostname and core file, say.  C may be NULL: the report is then the
 * N_EXTRA members alone (what a crash collector knows of a core it
 * cannot read).  -EINVAL when an extra member has no key or one of the
 * report's own, or two members share a key, or its JSON does not parse. */
PKGNOTE_PUBLIC int pkgnote_core_to_json(const pkgnote_core *c, const pkgnote_stack *st,
                                        const pkgnote_json_member *extra, size_t n_extra, char **ret);

/* A core's object in systemd's shape (described with
 * pkgnote_info_to_systemd_json(), in the object view), reading the dynamic
 * linker's list from C; FLAGS 0 or PKGNOTE_SYSTEMD_COREDUMP. */
PKGNOTE_PUBLIC int pkgnote_core_to_systemd_json(pkgnote_core *c, unsigned flags, char **ret);

/* ===================================================================
 * Crash signatures
 * Names: pkgnote_signature_*
 *
 * What makes two crashes one bug (pkgnote_signature): the package of the
 * faulting module and the normalized top frames of the crashing thread,
 * made from a stack trace, from the report pkgnote-coredump stored, or
 * from the stack text systemd-coredump wrote into the journal when no
 * core is left.
 * Handles: pkgnote_signature.
 * =================================================================== */

typedef struct pkgnote_signature pkgnote_signature;

/* The rules, the same for every source, so that a crash's signature is
 * the same on every machine and for every rebuild of the same source,
 * and differs for different bugs (after Fedora's crash server, which
 * groups by component and the top frames of the crashing thread, and
 * Socorro's signature lists):
 *   1. The crashing thread only, innermost frame first.  Frames at the
 *      address of the frame before are functions inlined into it: one
 *      frame, named by the innermost function (as systemd-coredump
 *      prints it).
 *   2. A signal frame (__restore_rt, __kernel_rt_sigreturn, _sigtramp)
 *      and every frame inside it are dropped: they are the crash
 *      handler's own, which ran after the bug.
 *   3. Frames that say nothing about the bug are skipped wherever they
 *      are: raising and aborting (raise, abort, gsignal, pthread_kill and
 *      glibc's __pthread_kill_*, __GI_raise, __GI_abort), assertions and
 *      fatal checks (__assert_fail, __assert_fail_base,
 *      __assert_perror_fail, __libc_message, __libc_fatal,
 *      __fortify_fail, __chk_fail, __stack_chk_fail, malloc_printerr,
 *      g_assertion_message*, g_log*, the C++ runtime's terminate and
 *      __cxa_throw/__cxa_rethrow), and start-up (_start,
 *      __libc_start_main, __libc_start_call_main, start_thread, clone,
 *      clone3, _dl_start, _dl_start_user); and every frame outside main,
 *      which is start-up whether its name is known or not.  The raising,
 *      aborting, assertion and terminate frames are sentinels: every
 *      frame inside the outermost one below main goes too, named or not
 *      (the C library's own frames of dying, unnamed without its symbols).
 *   4. A function name loses what a build or a CPU changes: a compiler
 *      clone's suffix (".constprop.N", ".isra.N", ".part.N", ".cold",
 *      ".lto_priv.N", ".localalias", "@plt"), a symbol version
 *      ("@GLIBC_2.34", "@@..."), and glibc's CPU variants
 *      ("__memmove_avx_unaligned_erms" is "memmove", "__strlen_evex"
 *      "strlen"); in the C library and its loader, a hidden alias or
 *      internal name is the public one ("__GI___clock_nanosleep",
 *      "__nanosleep" and "__libc_malloc" are "clock_nanosleep",
 *      "nanosleep" and "malloc"), as which of them names a frame depends
 *      on the symbol table found.  No source line and no address is kept.
 *   5. A frame without a function name is its module's build-id and the
 *      offset from the module's start ("BUILDID+0xOFFSET"), else the
 *      module's file name and offset, else "??" (an address in no
 *      module).  Such a frame is stable only for the same build: a
 *      stripped program's signature changes when it is rebuilt.
 *   6. Repeated frames (recursion) count once; then the top
 *      PKGNOTE_SIGNATURE_FRAMES frames are kept.
 *   7. The faulting module is the module of the first kept frame that is
 *      not a library routine the bug only passed through (memcpy,
 *      memmove, memset, memcmp, the C library's string routines (strlen,
 *      strcmp, strcpy, ..., wcslen, ...), malloc, calloc, realloc, free,
 *      operator new and delete, Socorro's "prefix" frames), else of the
 *      first kept frame; its package name comes from its package note,
 *      else from the package database (a core's or process's), else from
 *      COREDUMP_PACKAGE_JSON (systemd-coredump's stack text), else the
 *      module's file name stands for it.  The package's version is not
 *      part of the signature: it is what the crashes of one signature
 *      are counted by.
 * The text form is "PACKAGE: FRAME | FRAME | ..."; the hash is the first
 * 16 hex digits of the SHA-256 of the text.  Since 1.1. */
#define PKGNOTE_SIGNATURE_FRAMES 5u

/* Where a signature's frames came from.  Since 1.1. */
enum {
        PKGNOTE_SIGNATURE_STACK = 1,   /* a stack trace unwound from the core or process */
        PKGNOTE_SIGNATURE_REPORT = 2,  /* the trace in pkgnote-coredump's stored report */
        PKGNOTE_SIGNATURE_MESSAGE = 3, /* systemd-coredump's stack text (the journal's MESSAGE) */
};

/* Limits on the stack text of pkgnote_signature_from_message(); over
 * them, -E2BIG.  Since 1.1. */
#define PKGNOTE_MAX_STACK_TEXT (1u << 20)      /* bytes */
#define PKGNOTE_MAX_STACK_TEXT_LINES 4096u     /* lines */
#define PKGNOTE_MAX_STACK_TEXT_LINE 4096u      /* bytes of one line */

/* The signature of the crashing thread of ST (pkgnote_core_stack() of
 * C: its first thread), with the packages of C's modules.  -ENODATA when
 * ST holds no thread or no frame is left by the rules, -EINVAL without C
 * or ST, -ENOMEM.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_signature_from_stack(const pkgnote_core *c, const pkgnote_stack *st,
                                                pkgnote_signature **ret);
/* The signature of systemd-coredump's stack text: the LEN bytes of TEXT
 * (a MESSAGE, coredumpctl info's, or pkgnote core's text report), where
 * the first "Stack trace of thread N:" block is the crashing thread's:
 * its lines "#I 0xPC FUNCTION (MODULE + 0xOFFSET)" ("n/a" for no name;
 * what pkgnote core's text adds after them, " [inlined]" and " at
 * FILE:LINE", is passed over) up to the first line that does not start
 * with '#'; lines "Module NAME ... build-id=HEX" give build-ids.
 * PACKAGES is COREDUMP_PACKAGE_JSON (the package notes and buildId by
 * module name) or NULL.  The text is refused, -EBADMSG, when it holds a
 * NUL, a control character other than newline and tab, or bytes that are
 * not UTF-8, when a line of the block starting with '#' is not a frame,
 * or when frames are not numbered from 0 one by one; -E2BIG over
 * PKGNOTE_MAX_STACK_TEXT, _LINES, _LINE or PKGNOTE_STACK_MAX_FRAMES
 * frames; -ENODATA without a block or when no frame is left.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_signature_from_message(const char *text, size_t len, const char *packages,
                                                  pkgnote_signature **ret);
/* Since 1.1. */
PKGNOTE_PUBLIC void pkgnote_signature_free(pkgnote_signature *s);
/* The text form and the short hash (16 lowercase hex digits).  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_signature_text(const pkgnote_signature *s);
PKGNOTE_PUBLIC const char *pkgnote_signature_hash(const pkgnote_signature *s);
/* The faulting module's package name (or file name).  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_signature_package(const pkgnote_signature *s);
/* That package's version, from the same source as its name (package
 * note, package database, COREDUMP_PACKAGE_JSON), or NULL when no version
 * is known or a file name stands for the package.  Not part of the text
 * or hash: the crashes of one signature are counted by it.  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_signature_version(const pkgnote_signature *s);
/* The kept frames, at most PKGNOTE_SIGNATURE_FRAMES; frame I, or NULL
 * past the last.  Since 1.1. */
PKGNOTE_PUBLIC size_t pkgnote_signature_frame_count(const pkgnote_signature *s);
PKGNOTE_PUBLIC const char *pkgnote_signature_frame(const pkgnote_signature *s, size_t i);
/* PKGNOTE_SIGNATURE_*.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_signature_source(const pkgnote_signature *s);
/* "stack", "report", "message"; NULL for another value.  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_signature_source_name(int source);
/* {text, hash, package, frames (an array of strings), source
 * (pkgnote_signature_source_name())}.  The reports of a core
 * (pkgnote_core_to_json()) and of a stored crash (pkgnote_crash_to_json())
 * carry the text, hash and source as their members signature,
 * signatureHash and signatureSource.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_signature_to_json(const pkgnote_signature *s, char **ret);

/* ===================================================================
 * Crash stores
 * Names: pkgnote_crash_*, pkgnote_crashes_*
 *
 * The crashes a machine collected, from pkgnote-coredump's store and
 * systemd-coredump's (its directory and its journal entries), listed
 * (pkgnote_crashes) and opened alike (pkgnote_crash); and the writer's side
 * of pkgnote's own store.
 * Handles: pkgnote_crashes, pkgnote_crash.
 * =================================================================== */

typedef struct pkgnote_crashes pkgnote_crashes;
typedef struct pkgnote_crash pkgnote_crash;

/* The crashes a machine collected, from every store that can be read,
 * listed and opened alike.  The stores: */
enum {
        /* pkgnote-coredump's directory: a core and a JSON report each */
        PKGNOTE_CRASH_STORE_PKGNOTE = 1u << 0,
        /* systemd-coredump's directory alone: its cores, named
         * core.COMM.UID.BOOTID.PID.USEC[.zst|.xz|.lz4], and their
         * user.coredump.* extended attributes (see below) */
        PKGNOTE_CRASH_STORE_SYSTEMD = 1u << 1,
        /* systemd-coredump's journal entries (see below) */
        PKGNOTE_CRASH_STORE_JOURNAL = 1u << 2,
};
typedef struct pkgnote_crash_options {
        size_t size;             /* sizeof(pkgnote_crash_options): fields past it are zero */
        unsigned stores;         /* PKGNOTE_CRASH_STORE_* to read; 0: every store */
        const char *pkgnote_dir; /* NULL: $PKGNOTE_COREDUMP_DIR, else /var/lib/pkgnote/coredump */
        /* Only the crashes it names (NULL: all): a PID when numeric (the
         * core's, or the one the crash handler was given), else a command,
         * an executable's path or a crash's id. */
        const char *match;
        /* systemd's stores (see "The stores of systemd-coredump" below);
         * zero: the defaults. */
        const char *systemd_dir;          /* NULL: /var/lib/systemd/coredump */
        const char *journal_dir;          /* a journal directory (coredumpctl -D); NULL: the local journal */
        const char *const *journal_files; /* NULL-terminated journal files (--file), instead of the above */
        int64_t since, until;             /* crashes in [since, until], seconds since the epoch; 0: unbounded */
        /* PKGNOTE_CRASH_WHOLE_RECORDS, or 0.  Since 1.1. */
        unsigned flags;
} pkgnote_crash_options;
/* A listing reads only the fields it shows, the rest of a crash's record
 * when first asked for (a journal entry found again): a caller that asks
 * for every crash's record or signature (pkgnote_crash_to_json(),
 * pkgnote_crash_signature(), pkgnote_crash_groups_add()) reads each
 * record whole in the one pass instead.  Since 1.1. */
#define PKGNOTE_CRASH_WHOLE_RECORDS (1u << 0)
#define PKGNOTE_CRASH_OPTIONS_INIT {.size = sizeof(pkgnote_crash_options)}
/* Lists the crashes of the stores O names (NULL: defaults), oldest first.
 * A store named in O->stores or by its directory must exist (else
 * -ENOENT); of every store, those the machine lacks hold no crash.  An
 * entry that cannot be read is a problem of the list, which goes on; so
 * is a file of journal_dir that sd-journal passes over without a word (a
 * journal file cut short, or a *.journal that is none).
 * The journal entry pkgnote-coredump logs for a crash it stored is no
 * crash of its own: logged by pkgnote-coredump as root and naming, by its
 * file name (never opened), a core pkgnote's store lists, with its PID,
 * UID, time and boot, it is merged into that store's entry, which keeps
 * its record and core and gains the journal's fields it lacks.  0, or -EINVAL (bad
 * options), -EOPNOTSUPP (a store this build does not know), -ENOMEM, or
 * the errno of a store that exists but cannot be read. */
PKGNOTE_PUBLIC int pkgnote_crashes_load(const pkgnote_crash_options *o, pkgnote_crashes **ret);
/* The same crashes as pkgnote_crashes_load() (same stores, match, since
 * and until, the same merge of pkgnote-coredump's journal entries into
 * its store's), read one at a time with pkgnote_crashes_next(): memory
 * does not grow with the number of journal entries read (a bounded
 * number of problems is kept, the rest counted).  The order: each store
 * in time order, one store after the other: systemd-coredump's journal
 * entries first (the journal's order, by the time it received them, over
 * every file), then pkgnote-coredump's store (loaded whole, as its copies
 * in the journal merge into it), then the files of systemd-coredump's
 * store no journal entry named.  On such a list pkgnote_crashes_count()
 * is 0 and pkgnote_crashes_get() NULL; the problems are those met so
 * far.  O and its strings may go once this returns.  0, or the errors of
 * pkgnote_crashes_load() about the options (a store's own errors come
 * from pkgnote_crashes_next()).  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crashes_open(const pkgnote_crash_options *o, pkgnote_crashes **ret);
/* 1 and *RET = the next crash (valid until the next call or _free), 0 at
 * the end, or -errno: the errors of pkgnote_crashes_load(), -EINVAL for
 * a list not of pkgnote_crashes_open().  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crashes_next(pkgnote_crashes *l, const pkgnote_crash **ret);
PKGNOTE_PUBLIC void pkgnote_crashes_free(pkgnote_crashes *l);
/* The crashes of a loaded list; 0 for one of pkgnote_crashes_open(). */
PKGNOTE_PUBLIC size_t pkgnote_crashes_count(const pkgnote_crashes *l);
/* Crash I (0: the oldest), or NULL past the end; it lives as long as L.
 * NULL on a list of pkgnote_crashes_open(). */
PKGNOTE_PUBLIC const pkgnote_crash *pkgnote_crashes_get(const pkgnote_crashes *l, size_t i);
PKGNOTE_PUBLIC size_t pkgnote_crashes_problem_count(const pkgnote_crashes *l);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_crashes_problem(const pkgnote_crashes *l, size_t i);
/* The store it came from (PKGNOTE_CRASH_STORE_*), and its id there. */
PKGNOTE_PUBLIC int pkgnote_crash_store(const pkgnote_crash *c);
PKGNOTE_PUBLIC const char *pkgnote_crash_id(const pkgnote_crash *c);
/* When it crashed, in seconds since the epoch. */
PKGNOTE_PUBLIC int64_t pkgnote_crash_time(const pkgnote_crash *c);
/* The process's PID and UID (-1 when unknown), and its signal (0). */
PKGNOTE_PUBLIC int64_t pkgnote_crash_pid(const pkgnote_crash *c);
PKGNOTE_PUBLIC int64_t pkgnote_crash_uid(const pkgnote_crash *c);
PKGNOTE_PUBLIC int pkgnote_crash_signal(const pkgnote_crash *c);
/* A string the store recorded, by its JSON report's name ("executable",
 * "command", "signalName", "hostname", ...), or NULL; also, from the
 * running kernel a report of pkgnote's store recorded, "kernelRelease" and
 * "kernelBuildId" (Since 1.3.).  From a store of untrusted bytes: escape
 * before printing. */
PKGNOTE_PUBLIC const char *pkgnote_crash_field(const pkgnote_crash *c, const char *name);
/* The executable's package as recorded at crash time, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_crash_package_name(const pkgnote_crash *c);
PKGNOTE_PUBLIC const char *pkgnote_crash_package_version(const pkgnote_crash *c);
/* The stored core's path (the store's own name for it, never a path a
 * report gives), or NULL when the core is gone. */
PKGNOTE_PUBLIC const char *pkgnote_crash_core_path(const pkgnote_crash *c);
/* One line of JSON: time, pid, uid, signal, executable, package, coreFile,
 * store (pkgnote_crash_store_name()), core ("file", "journal", "gone",
 * or "rejected" with coreRejected, the reason: Since 1.2.),
 * and where the store has them command, commandLine, signalName, hostname,
 * unit, userUnit, slice, cgroup, bootId, timestamp, and kernelRelease,
 * kernelBuildId (Since 1.3.); and where the store
 * recorded a stack (pkgnote_crash_signature()) signature, signatureHash
 * and signatureSource (Since 1.1.) (malloc()ed into *RET).  0 or -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_crash_to_json(const pkgnote_crash *c, char **ret);
/* Opens the crash's core as pkgnote_core_open() does; -ENODATA when the
 * store no longer has it. */
PKGNOTE_PUBLIC int pkgnote_crash_open(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret);
/* The crash's signature from what the store recorded, without opening
 * its core: the stack trace of pkgnote-coredump's report, else the stack
 * text of systemd-coredump's MESSAGE (with COREDUMP_PACKAGE_JSON for the
 * packages); pkgnote_signature_source() says which.  -ENODATA when the
 * store has neither, or the errors of pkgnote_signature_from_message().
 * Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_signature(const pkgnote_crash *c, pkgnote_signature **ret);

/* --- The stores of systemd-coredump --- */

/* systemd-coredump's journal entries (MESSAGE_ID
 * fc2e22bc6ee647b6b90729ab34a250b1) are read with libsystemd's sd-journal,
 * loaded on first use (a machine without libsystemd.so.0 has no journal
 * store: -EOPNOTSUPP where it is asked for by name).  The journal entry of
 * a crash and its file in systemd_dir are one crash, of the journal store;
 * a file no entry names is a crash of PKGNOTE_CRASH_STORE_SYSTEMD.  MATCH
 * as coredumpctl takes it: a PID, an executable's path ("/..."),
 * FIELD=VALUE of a systemd field ("COREDUMP_UNIT=foo.service"), else a
 * command name.
 *
 * pkgnote_crash_field() gives every COREDUMP_* field by systemd's name
 * ("COREDUMP_CMDLINE"), and the report names: "executable", "command",
 * "commandLine", "signalName", "hostname", "unit", "userUnit", "slice",
 * "cgroup", "bootId", "machineId", "timestamp" (COREDUMP_TIMESTAMP, in
 * microseconds), "coreFile" (COREDUMP_FILENAME).  Values are untrusted
 * (any local user can log an entry): at most PKGNOTE_MAX_CRASH_FIELD
 * bytes, no NUL, invalid UTF-8 bytes as "\xNN", control bytes kept (escape
 * before printing).  A field over the limit or malformed is a problem of
 * the list, and the field is left out.
 *
 * Every crash carries its machine: "machineId" (_MACHINE_ID) and
 * "hostname" (COREDUMP_HOSTNAME, else the sender's _HOSTNAME) for a
 * journal entry, this machine's /etc/machine-id and gethostname() for a
 * crash of pkgnote's or systemd's store (Since 1.1.).  A directory that
 * systemd-journal-remote writes (remote-*.journal, one per sending
 * machine) is read as it is through journal_dir.  A listing reads only
 * the fields it shows; the rest of an entry (MESSAGE, the command line,
 * the unit...) is read when first asked for (pkgnote_crash_field(),
 * pkgnote_crash_to_json(), pkgnote_crash_signature()), and a problem about
 * it is then added to the list's problems.
 *
 * pkgnote_crash_open() opens the stored core below systemd_dir (compressed
 * or not), else the core the journal holds inline (Storage=journal), read
 * into memory; -ENODATA when neither is there any more.  An inline core of
 * another machine (its machineId not this machine's) is opened with
 * no_disk and no_database set: its modules' packages come from the notes
 * in the core alone, and a problem of the core says why (Since 1.1.). */
#define PKGNOTE_MAX_CRASH_FIELD (64u << 10)
/* Where the crash's core is. */
enum {
        PKGNOTE_CRASH_CORE_GONE = 0,    /* vacuumed, deleted, or never stored */
        PKGNOTE_CRASH_CORE_FILE = 1,    /* a file: pkgnote_crash_core_path() */
        PKGNOTE_CRASH_CORE_JOURNAL = 2, /* inline in the journal entry (COREDUMP=) */
        /* Never stored: a crash over pkgnote-coredump's quota, its core
         * refused (the socket mode answered COREDUMP_REJECT) or dropped
         * (the pipe mode), of which the store's rejected/ directory keeps
         * a metadata-only entry (its id "rejected/NAME"; the reason in
         * pkgnote_crash_field(c, "reason")).  Since 1.2. */
        PKGNOTE_CRASH_CORE_REJECTED = 3,
};
PKGNOTE_PUBLIC int pkgnote_crash_core_state(const pkgnote_crash *c);
/* The name of STORE (one PKGNOTE_CRASH_STORE_* bit): "pkgnote",
 * "systemd", "journal"; NULL for another value. */
PKGNOTE_PUBLIC const char *pkgnote_crash_store_name(int store);

/* --- Writing the crash store of pkgnote --- */

/* pkgnote-coredump's side of the store that pkgnote_crashes_load()
 * reads: entries "core.COMM.UID.PID.TIME" of a core (compressed with
 * zstd when the library has it) and its JSON report. */
#define PKGNOTE_CRASH_DEFAULT_DIR "/var/lib/pkgnote/coredump"
#define PKGNOTE_CRASH_REPORT_SUFFIX ".json"
/* OVERRIDE when given, else $PKGNOTE_COREDUMP_DIR, else the default. */
PKGNOTE_PUBLIC const char *pkgnote_crash_store_dir(const char *override);
/* The name ending of stored cores: ".zst", or "" without zstd. */
PKGNOTE_PUBLIC const char *pkgnote_crash_core_suffix(void);
/* The entry name "core.COMM.UID.PID.TIME" into BUF (LEN bytes), COMM
 * reduced to [A-Za-z0-9_-]: its length, or -ENAMETOOLONG (BUF then holds
 * "" when LEN > 0). */
PKGNOTE_PUBLIC int pkgnote_crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time);
/* An entry's report: pkgnote core --json of C with "time", "hostname",
 * "coreFile", "bootId" (this boot's, as journald's _BOOT_ID), "machineId"
 * (this machine's /etc/machine-id; Since 1.1.; a report without it, read
 * from pkgnote's store, is taken for this machine's), "kernel" (the
 * running kernel's own notes, as pkgnote_kernel_to_json() gives them when
 * read with PKGNOTE_KERNEL_NO_MODULES | PKGNOTE_KERNEL_NO_DATABASE |
 * PKGNOTE_KERNEL_NO_IMAGE; left out when they cannot be read or pass the
 * report's limits; Since 1.3.), and ST's
 * stack trace when ST is not NULL, into *RET
 * (malloc()ed): 0 or a negative errno. */
PKGNOTE_PUBLIC int pkgnote_crash_report(const pkgnote_core *c, const pkgnote_stack *st, int64_t time,
                                        const char *host, const char *core_path, char **ret);
/* Under the store's lock: removes stale temporaries and half-made
 * entries of killed handlers, reports without their core, then whole
 * entries, oldest first, until the store DIRFD holds at most MAX_USE
 * bytes or MAX_REMOVE entries went; never the entry named KEEP (may be
 * NULL), nor one still being written.  The metadata-only entries of
 * rejected/ (PKGNOTE_CRASH_CORE_REJECTED) count in MAX_USE and go by age
 * with the others (Since 1.2.).  The number of entries removed. */
PKGNOTE_PUBLIC int pkgnote_crash_store_vacuum(int dirfd, uint64_t max_use, const char *keep, size_t max_remove);

/* ===================================================================
 * Crash groups
 * Names: pkgnote_crash_groups_*, pkgnote_crash_group_*
 *
 * The crashes of the stores, fed one at a time, counted by what makes
 * them one bug (pkgnote_crash_groups): their signature, else their
 * package or executable; per group the machines, boots, times and the
 * versions of the faulting package, and one crash to open.  What is held
 * grows with the number of groups, never with the number of crashes.
 * Handles: pkgnote_crash_groups, pkgnote_crash_group.
 * =================================================================== */

typedef struct pkgnote_crash_groups pkgnote_crash_groups;
typedef struct pkgnote_crash_group pkgnote_crash_group;

/* What crashes are grouped by.  Since 1.1.
 *   SIGNATURE: pkgnote_crash_signature()'s text (the key) and hash; a
 *     crash without one (no stack in its store) is grouped under the key
 *     "NAME: ?", NAME the executable's package name, else the
 *     executable's file name, else "?", with no hash.
 *   PACKAGE: the signature's package (the faulting module's), else the
 *     executable's package name, else the executable's file name.
 *   EXECUTABLE: the executable's path ("?" when the store has none).
 * The version a crash is counted under is its group's package's: with
 * SIGNATURE and PACKAGE the faulting package's version where its source
 * gives one (pkgnote_signature_version()), else the executable's package
 * version when the faulting package is the executable's or the crash has
 * no signature; with EXECUTABLE the executable's package version.  A
 * group is "not seen since" version V of its package when V was first
 * seen, in any crash read (as a faulting or an executable's package),
 * after the group's last crash; of several such, the first seen. */
enum {
        PKGNOTE_GROUP_SIGNATURE = 1,
        PKGNOTE_GROUP_PACKAGE = 2,
        PKGNOTE_GROUP_EXECUTABLE = 3,
};
/* Limits on what is held.  Past PKGNOTE_MAX_CRASH_GROUPS a crash of a new
 * group is refused (-E2BIG); past the others, a group's crashes are all
 * counted but no further machine, version, boot or day is listed (its
 * lists and boots count are then a lower bound).  Since 1.1. */
#define PKGNOTE_MAX_CRASH_GROUPS 65536u    /* groups */
#define PKGNOTE_MAX_GROUP_MACHINES 1024u   /* machines listed per group */
#define PKGNOTE_MAX_GROUP_VERSIONS 256u    /* versions listed per group */
#define PKGNOTE_MAX_GROUP_BOOTS 65536u     /* boots counted per group */
#define PKGNOTE_MAX_GROUP_DAYS 4096u       /* (day, version) counts per group */
#define PKGNOTE_MAX_GROUPS_MACHINES 65536u /* machines counted over all crashes */
#define PKGNOTE_MAX_GROUPS_RELEASES 65536u /* (package, version) first-seen times */

/* "signature", "package", "executable"; NULL for another value.  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_crash_group_by_name(int by);
/* The PKGNOTE_GROUP_* NAME names, or -EINVAL.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_group_by_from_name(const char *name);
/* An empty accumulator grouping by BY (PKGNOTE_GROUP_*): 0, -EINVAL for
 * another BY, -ENOMEM.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_groups_new(int by, pkgnote_crash_groups **ret);
/* Since 1.1. */
PKGNOTE_PUBLIC void pkgnote_crash_groups_free(pkgnote_crash_groups *g);
/* Counts the crash C (read during the call only, in any order) into
 * its group: 0, -EINVAL, -E2BIG (a new group past
 * PKGNOTE_MAX_CRASH_GROUPS: C is not counted), -ENOMEM.  A crash whose
 * stack text cannot be read is grouped as one without a signature.
 * The machine is C's field "machineId", else its "hostname"; the boot
 * its "bootId".  Of each group one crash is kept as its example: the
 * latest whose core is still there, else the latest.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_groups_add(pkgnote_crash_groups *g, const pkgnote_crash *c);

typedef struct pkgnote_crash_groups_stats {
        size_t size;       /* sizeof(pkgnote_crash_groups_stats), set by the caller */
        int by;            /* PKGNOTE_GROUP_* */
        uint64_t crashes;  /* crashes counted */
        size_t groups;     /* groups */
        size_t machines;   /* distinct machines among the crashes (a lower bound past the limit) */
        int64_t first;     /* the earliest and latest crash, seconds since the epoch; 0 without crashes */
        int64_t last;
} pkgnote_crash_groups_stats;
#define PKGNOTE_CRASH_GROUPS_STATS_INIT {.size = sizeof(pkgnote_crash_groups_stats)}
/* Fills the fields of *RET its size covers: 0, or -EINVAL when RET->size
 * is below sizeof(size_t).  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_groups_get_stats(const pkgnote_crash_groups *g, pkgnote_crash_groups_stats *ret);
/* Group I, the groups sorted by count, then last crash, descending (then
 * key); NULL past the last.  A group and its strings live until G is
 * freed or the next pkgnote_crash_groups_add().  Since 1.1. */
PKGNOTE_PUBLIC const pkgnote_crash_group *pkgnote_crash_groups_get(pkgnote_crash_groups *g, size_t i);
/* The key (signature text, package name or executable path), the
 * signature's hash (NULL but for signature groups with one), and the
 * group's package name or NULL.  Untrusted text: escape before printing.
 * Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_crash_group_key(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC const char *pkgnote_crash_group_hash(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC const char *pkgnote_crash_group_package(const pkgnote_crash_group *grp);
/* Crashes, first and last time (seconds since the epoch), distinct
 * boots.  Since 1.1. */
PKGNOTE_PUBLIC uint64_t pkgnote_crash_group_count(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC int64_t pkgnote_crash_group_first(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC int64_t pkgnote_crash_group_last(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC uint64_t pkgnote_crash_group_boots(const pkgnote_crash_group *grp);
/* The version the group was not seen since (see above), or NULL.  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_crash_group_not_seen_since(const pkgnote_crash_group *grp);
/* The example crash's id in its store (pkgnote_crash_id(): what
 * pkgnote core takes as MATCH).  Since 1.1. */
PKGNOTE_PUBLIC const char *pkgnote_crash_group_example_id(const pkgnote_crash_group *grp);
/* A machine or a version of a group, its strings living as the group. */
typedef struct pkgnote_crash_group_item {
        size_t size;          /* sizeof(pkgnote_crash_group_item), set by the caller */
        const char *name;     /* the machine ID (NULL when unknown) or the version */
        const char *hostname; /* a machine's host name, or NULL */
        uint64_t count;       /* its crashes in the group */
        int64_t first, last;  /* their earliest and latest time */
} pkgnote_crash_group_item;
#define PKGNOTE_CRASH_GROUP_ITEM_INIT {.size = sizeof(pkgnote_crash_group_item)}
/* The machines (by count, descending) and the versions (first seen
 * first) of the group; item I into the fields of *RET its size covers:
 * 1, 0 past the last, -EINVAL when RET->size is below sizeof(size_t).
 * Crashes of no known version are counted in no item.  Since 1.1. */
PKGNOTE_PUBLIC size_t pkgnote_crash_group_machine_count(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC int pkgnote_crash_group_machine(const pkgnote_crash_group *grp, size_t i, pkgnote_crash_group_item *ret);
PKGNOTE_PUBLIC size_t pkgnote_crash_group_version_count(const pkgnote_crash_group *grp);
PKGNOTE_PUBLIC int pkgnote_crash_group_version(const pkgnote_crash_group *grp, size_t i, pkgnote_crash_group_item *ret);
/* The groups as one JSON document (pkgnote-list(1) "GROUPS" gives its
 * keys): groupBy, crashes, groupCount, machineCount, first, last, and
 * groups, the first TOP of them (0: all), each with its key, hash,
 * package, counts, machines, versions, the version it was not seen after
 * (pkgnote_crash_group_not_seen_since()), days (the crashes per UTC day
 * and version), kernels (the running kernels' releases its crashes'
 * reports name, with count, first and last, oldest first, at most
 * PKGNOTE_MAX_GROUP_VERSIONS; present when some do: Since 1.3.) and example
 * (the example crash as pkgnote_crash_to_json() gives it); malloc()ed into
 * *RET.  0, -EINVAL, -ENOMEM.  Since 1.1. */
PKGNOTE_PUBLIC int pkgnote_crash_groups_to_json(pkgnote_crash_groups *g, size_t top, char **ret);

/* ===================================================================
 * The running kernel
 * Names: pkgnote_kernel_*
 *
 * Which kernel and modules are running, read from sysfs: the notes the
 * kernel publishes (/sys/kernel/notes: its GNU build-id, Linux's build
 * salt, an FDO package note where the distribution adds one) and each
 * loaded module's build-id (/sys/module/NAME/notes/.note.gnu.build-id);
 * then the installed image of that release (/boot/vmlinuz-RELEASE or
 * /usr/lib/modules/RELEASE/vmlinuz, its build-id read from inside the
 * compressed bzImage) and module files (/usr/lib/modules/RELEASE/ **
 * /NAME.ko[.xz|.zst|.gz]) under a root directory, and their packages from
 * its package database, accepted only when the build-ids are equal.  The
 * build salt is not a package identity (a kernel may carry another
 * distribution's): it is shown, never taken for a package.
 * Handles: pkgnote_kernel.
 * =================================================================== */

typedef struct pkgnote_kernel pkgnote_kernel;

#define PKGNOTE_MAX_KERNEL_MODULES 65536u /* loaded modules read, and module files looked at */

/* Never ask the package database: no database package, and no
 * newer-package reason looked for.  (Without this flag the database is
 * read only when there is an image or module file to ask it about.)
 * Since 1.2. */
#define PKGNOTE_KERNEL_NO_DATABASE 1u
/* Read no loaded modules (module_count 0; pkgnote_kernel_to_json() then
 * has no "modules"): the kernel alone, as a process's report gives it.
 * Since 1.2. */
#define PKGNOTE_KERNEL_NO_MODULES 2u
/* Look at no installed file (no image, no module file, no database): the
 * running kernel's own notes alone, read from sysfs, its package only from
 * its own note; no reboot answer (UNDECIDED says the image was not looked
 * at), and pkgnote_kernel_to_json() has no image, needsReboot, cannotTell
 * nor reboot.  For what must be quick and small, a crash report.
 * Since 1.3. */
#define PKGNOTE_KERNEL_NO_IMAGE 4u

/* Where the kernel is read from; NULL fields take the running system's.
 * Since 1.2. */
typedef struct pkgnote_kernel_options {
        size_t size;           /* sizeof(pkgnote_kernel_options) */
        const char *sysfs;     /* sysfs (NULL: "/sys"), or a tree laid out as it is */
        const char *osrelease; /* a file holding the release (NULL: /proc/sys/kernel/osrelease, else uname()) */
        const char *root;      /* where the installed image, modules and database are (NULL: "/") */
        unsigned flags;        /* PKGNOTE_KERNEL_* */
} pkgnote_kernel_options;
#define PKGNOTE_KERNEL_OPTIONS_INIT {.size = sizeof(pkgnote_kernel_options)}

/* Why the machine needs a reboot: a set of these.  Since 1.2. */
enum {
        PKGNOTE_REBOOT_IMAGE_DIFFERS = 1u << 0,  /* the installed image of the release has another build-id */
        PKGNOTE_REBOOT_IMAGE_MISSING = 1u << 1,  /* no image of the release is installed */
        PKGNOTE_REBOOT_NEWER_PACKAGE = 1u << 2,  /* a newer package of the same kernel line is installed */
};

/* The running kernel, its strings valid while K lives.  Since 1.2. */
typedef struct pkgnote_kernel_info {
        size_t size;                  /* sizeof(pkgnote_kernel_info), set by the caller */
        const char *release;          /* uname -r */
        const char *build_id;         /* lowercase hex, or NULL when the kernel publishes none */
        const char *build_salt;       /* Linux's build salt note, or NULL: not a package */
        const pkgnote_metadata *note; /* the kernel's own FDO package note, or NULL */
        const char *image;            /* the installed image of the release (path in the root), or NULL */
        const char *image_build_id;   /* its build-id (hex), or NULL */
        const char *image_error;      /* why IMAGE_BUILD_ID is NULL though IMAGE is not, or NULL */
        int package_origin;           /* PKGNOTE_ORIGIN_DISK_NOTE (the kernel's note), _DATABASE, _NONE */
        const char *db_type;          /* the image's database package, when its build-id is the running one */
        const char *db_name;          /* source package */
        const char *db_version;
        const char *db_binary;        /* the binary package ("NAME:ARCH", NEVRA) */
        size_t module_count;          /* loaded modules */
        unsigned reboot;              /* PKGNOTE_REBOOT_* */
        /* Why it cannot be told whether the running kernel is the installed
         * image (no build-id on one side: the kernel publishes none, the
         * image cannot be read or decoded, the package database cannot be
         * opened), or NULL when it can: then REBOOT 0 means no reboot is
         * needed; with UNDECIDED set it means none was found. */
        const char *undecided;
} pkgnote_kernel_info;
#define PKGNOTE_KERNEL_INFO_INIT {.size = sizeof(pkgnote_kernel_info)}

/* A loaded module, its strings valid while K lives.  Since 1.2. */
typedef struct pkgnote_kernel_module {
        size_t size;               /* sizeof(pkgnote_kernel_module), set by the caller */
        const char *name;          /* as in /sys/module */
        const char *build_id;      /* lowercase hex, or NULL (the module publishes none) */
        const char *file;          /* its module file of the release (path in the root), or NULL */
        const char *file_build_id; /* the file's build-id (hex), or NULL */
        const char *file_error;    /* why FILE_BUILD_ID is NULL though FILE is not, or NULL */
        const char *db_type;       /* the file's database package, when the build-ids are equal */
        const char *db_name;
        const char *db_version;
        const char *db_binary;
} pkgnote_kernel_module;
#define PKGNOTE_KERNEL_MODULE_INIT {.size = sizeof(pkgnote_kernel_module)}

/* Reads the running kernel as O (NULL: all defaults) says: 1 with *RET,
 * or a negative errno: -ENOENT no notes file in the sysfs tree, -EBADMSG
 * malformed notes, -E2BIG over a limit (PKGNOTE_MAX_KERNEL_MODULES), -EINVAL
 * bad options, -ENOMEM, errno values.  What cannot be read of the image,
 * modules or database is told in the image_error and file_error fields, not
 * a failure.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_kernel_read(const pkgnote_kernel_options *o, pkgnote_kernel **ret);
/* Since 1.2. */
PKGNOTE_PUBLIC void pkgnote_kernel_free(pkgnote_kernel *k);
/* Fills the fields of *RET its size covers: 1, or -EINVAL when RET->size
 * is below sizeof(size_t).  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_kernel_get(const pkgnote_kernel *k, pkgnote_kernel_info *ret);
/* Loaded module I (in name order), as pkgnote_kernel_get(): 1, 0 past the
 * last one, -EINVAL.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_kernel_module_get(const pkgnote_kernel *k, size_t i, pkgnote_kernel_module *ret);
/* The name of one PKGNOTE_REBOOT_* reason ("image-differs",
 * "image-missing", "newer-package"), or NULL.  Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_kernel_reboot_name(unsigned reason);
/* One sentence saying why REASON holds for K (build-ids, paths, packages
 * and versions named), or NULL when it does not.  Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_kernel_reboot_text(const pkgnote_kernel *k, unsigned reason);
/* K as one JSON object (release, buildId, buildSalt, note, image,
 * package, modules, needsReboot, cannotTell, reboot; see the flags for
 * what some leave out), malloc()ed into *RET: 0 or -ENOMEM.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_kernel_to_json(const pkgnote_kernel *k, char **ret);
/* The build-id (lowercase hex, malloc()ed into *RET) of the kernel image
 * of SIZE bytes at DATA: an x86 bzImage (gzip, xz, zstd, lz4 or plain
 * payload) or an ELF vmlinux, decompressed only as far as its notes.  1,
 * 0 when it has none, or -ENOEXEC (not a kernel image), -EOPNOTSUPP (a
 * compression this build does not decode), -EBADMSG, -E2BIG, -ENOMEM.
 * Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_kernel_image_build_id(const void *data, size_t size, char **ret);

/* ===================================================================
 * Package databases
 * Names: pkgnote_pkgdb_*
 *
 * Which installed package ships a file, by the package database of a root
 * directory (pkgnote_pkgdb); cores, scans and closures ask the same
 * readers.
 * Handles: pkgnote_pkgdb.
 * =================================================================== */

typedef struct pkgnote_pkgdb pkgnote_pkgdb;

/* Which installed package ships a file, by the package database of a
 * root directory: dpkg's (var/lib/dpkg/status and info/PKG.list) or
 * rpm's (rpmdb.sqlite in usr/lib/sysimage/rpm or var/lib/rpm, read into
 * memory through libsqlite3.so.0 loaded on first use, never written).
 * Everything is read inside the root: no symbolic link leads out. */
/* Opens the database of TYPE ("deb": dpkg, "rpm") of the root directory
 * ROOT (NULL: "/").  1 with *RET; 0 when the root has no rpm database;
 * -EINVAL an unknown TYPE, -ENOENT no dpkg database, -EOPNOTSUPP no
 * libsqlite3, -E2BIG over PKGNOTE_MAX_DB_PACKAGES, -EBADMSG, -ENOMEM,
 * errno values.  WHERE (may be NULL) is set in every case, failures
 * included: the database's path in the root, or the first one tried
 * (static text). */
PKGNOTE_PUBLIC int pkgnote_pkgdb_open(const char *root, const char *type, const char **where, pkgnote_pkgdb **ret);
PKGNOTE_PUBLIC void pkgnote_pkgdb_free(pkgnote_pkgdb *db);
/* "deb" or "rpm". */
PKGNOTE_PUBLIC const char *pkgnote_pkgdb_type(const pkgnote_pkgdb *db);
PKGNOTE_PUBLIC size_t pkgnote_pkgdb_count(const pkgnote_pkgdb *db);
/* Records left out as unreadable (rpm headers that do not parse): a
 * damaged database still answers for the rest. */
PKGNOTE_PUBLIC size_t pkgnote_pkgdb_damaged(const pkgnote_pkgdb *db);

/* A package, its strings valid while the database lives.  They are the
 * database's bytes (a package with an empty or multi-line part is left
 * out): escape them before showing them. */
typedef struct pkgnote_db_package {
        size_t size;                /* sizeof(pkgnote_db_package), set by the caller */
        const char *name;           /* the source package's name, as a package note names it */
        const char *version;        /* the version a package note gives (rpm: VERSION-RELEASE) */
        const char *architecture;   /* the binary package's */
        const char *binary;         /* the binary package: "NAME:ARCH" (dpkg), NEVRA (rpm) */
        const char *binary_name;    /* the binary package's name */
        const char *binary_version; /* dpkg's Version:, rpm's [EPOCH:]VERSION-RELEASE */
} pkgnote_db_package;
#define PKGNOTE_DB_PACKAGE_INIT {.size = sizeof(pkgnote_db_package)}
/* Fills the fields of *RET that its size covers with package I: 1, 0
 * past the last one, -EINVAL when RET->size is below sizeof(size_t). */
PKGNOTE_PUBLIC int pkgnote_pkgdb_package(const pkgnote_pkgdb *db, size_t i, pkgnote_db_package *ret);
/* The package that ships the absolute PATH (as in the root), also under
 * its merged-/usr alias (/bin/x for /usr/bin/x and back): 1 with its
 * index in *RET, 0 when none, -EINVAL for a PATH that is not absolute. */
PKGNOTE_PUBLIC int pkgnote_pkgdb_owner(const pkgnote_pkgdb *db, const char *path, size_t *ret);

/* ===================================================================
 * Scan
 * Names: pkgnote_scan_*, pkgnote_purl, pkgnote_sbom_*, pkgnote_process_sbom_*
 *
 * An inventory of the objects in file trees, archives and container images
 * (pkgnote_scan): the objects found (pkgnote_scan_object), the images
 * (pkgnote_scan_image), the distinct package notes and the packages the
 * roots' databases list, as JSON; and SBOMs, of a scan and of what runs
 * (pkgnote_process_sbom).
 * Handles: pkgnote_scan, pkgnote_scan_object, pkgnote_scan_image, pkgnote_process_sbom.
 * =================================================================== */

typedef struct pkgnote_scan pkgnote_scan;
typedef struct pkgnote_scan_object pkgnote_scan_object;
typedef struct pkgnote_scan_image pkgnote_scan_image;
typedef struct pkgnote_process_sbom pkgnote_process_sbom;

/* Limits of a scan; going over one skips the item with -E2BIG (named in
 * the scan's problems), never the whole scan. */
#define PKGNOTE_MAX_SCAN_PATH 4096u          /* bytes in a path */
#define PKGNOTE_MAX_SCAN_MEMBER (256u << 20) /* archive member read up to */
#define PKGNOTE_MAX_SCAN_METADATA (4u << 20) /* image manifest, index, config */
#define PKGNOTE_MAX_SCAN_LAYERS 1024u        /* layers per image */
#define PKGNOTE_MAX_SCAN_ENTRIES (16u << 20) /* archive members per input */
#define PKGNOTE_MAX_SCAN_DEPTH 4u            /* archives inside archives */
#define PKGNOTE_MAX_SCAN_BYTES (64ull << 30) /* default: bytes an input may decompress to */

/* An inventory of the ELF objects in file trees, single files and
 * archives: plain or compressed tar files of a root filesystem, "docker
 * save" archives and OCI image layouts (directory or tar).  Images are
 * reported as their final merged filesystem: layers are applied in order
 * with whiteouts (".wh.NAME" files and ".wh..wh..opq" opaque directories)
 * honoured.  Archives are read as streams, never extracted.
 *
 * Symbolic links inside an input are never followed; a PATH given to
 * pkgnote_scan_add() that is one is (as find -H does).  Directory trees
 * are walked holding a bounded number of descriptors, however deep.
 * Files that cannot be read are counted and listed
 * among the problems; the scan goes on.  Files are examined by a pool of
 * threads; results are sorted by path, so they do not depend on timing. */

enum {
        PKGNOTE_SCAN_ONE_FILE_SYSTEM = 1u << 0, /* do not enter other file systems */
        PKGNOTE_SCAN_CHECKSUMS = 1u << 1,       /* SHA-1 and SHA-256 of objects with a package note */
        /* Images only: record the images of each input (see
         * pkgnote_scan_image_count()) without reading their layers;
         * inputs that are no image add nothing. */
        PKGNOTE_SCAN_LIST_IMAGES = 1u << 2,
        /* Image layouts and archives: check every layer read against the
         * digest its name carries (reading layers whole, also what the
         * scan would skip); a mismatch fails the input with -EBADMSG.
         * Indexes, manifests and configurations are always checked. */
        PKGNOTE_SCAN_VERIFY_LAYERS = 1u << 3,
        /* Read each object's DT_SONAME and DT_NEEDED names (see
         * pkgnote_scan_object_needed()); the SBOMs then relate packages
         * through them. */
        PKGNOTE_SCAN_DEPENDENCIES = 1u << 4,
        /* Directory trees: open every archive among their files (tars,
         * compressed or not, zips, wheels, jars, .apk, cpio), not only the
         * packages (.deb, .rpm), which always are.  Their objects carry
         * the file as their outermost container. */
        PKGNOTE_SCAN_OPEN_ARCHIVES = 1u << 5,
};

typedef struct pkgnote_scan_options {
        size_t size;         /* sizeof(pkgnote_scan_options), or 0 */
        unsigned flags;      /* PKGNOTE_SCAN_* */
        unsigned threads;    /* worker threads; 0: one per online CPU */
        /* ELF archive members are read up to this size; of larger ones
         * only their first part, so notes found through section headers
         * at the end may be missed (reported as a problem).  Of a member
         * of more than a few megabytes only what its notes are read from
         * is held in memory (bounded, whatever this size).  0: the
         * default, PKGNOTE_MAX_SCAN_MEMBER. */
        uint64_t max_member;
        /* Called now and then from the thread that called
         * pkgnote_scan_add(), with the number of files and bytes scanned
         * so far (bytes: sizes of the files examined in directories, bytes
         * of archive read).  May be NULL. */
        void (*progress)(void *userdata, uint64_t files, uint64_t bytes);
        void *userdata;
        /* Archives: what one input may decompress to, all archives inside
         * it counted; past it the input fails with -EFBIG (a
         * decompression bomb).  0: PKGNOTE_MAX_SCAN_BYTES. */
        uint64_t max_bytes;
} pkgnote_scan_options;
#define PKGNOTE_SCAN_OPTIONS_INIT {.size = sizeof(pkgnote_scan_options)}

/* What an input turned out to be (pkgnote_scan_add()'s return value). */
enum {
        PKGNOTE_SCAN_INPUT_FILE = 1,      /* a single file */
        PKGNOTE_SCAN_INPUT_DIRECTORY = 2, /* a directory tree */
        PKGNOTE_SCAN_INPUT_ARCHIVE = 3,   /* a tar (or cpio) archive of a root filesystem */
        PKGNOTE_SCAN_INPUT_DOCKER = 4,    /* a "docker save" archive */
        PKGNOTE_SCAN_INPUT_OCI = 5,       /* an OCI image layout, directory or archive */
        PKGNOTE_SCAN_INPUT_STORAGE = 6,   /* images of a local container store (podman, buildah, CRI-O) */
};

/* OPTIONS may be NULL for the defaults; -EINVAL for options this library
 * does not know (see the conventions). */
PKGNOTE_PUBLIC int pkgnote_scan_new(const pkgnote_scan_options *options, pkgnote_scan **ret);
PKGNOTE_PUBLIC void pkgnote_scan_free(pkgnote_scan *s);

/* Scans PATH ("-" reads an archive from standard input) and adds what it
 * holds to the inventory.  Returns a PKGNOTE_SCAN_INPUT_* kind, or a
 * negative errno when PATH could not be scanned at all (missing or a
 * dangling symbolic link (-ENOENT), an archive not readable to the end,
 * an image whose manifest is broken (-EBADMSG)).  Unreadable files inside
 * an input are problems, not failures. */
PKGNOTE_PUBLIC int pkgnote_scan_add(pkgnote_scan *s, const char *path);

/* PATH may also name an image the way skopeo and podman do:
 *   oci:DIR[:TAG|@DIGEST]        an OCI image layout directory
 *   oci-archive:FILE[:TAG]       a tar of one
 *   docker-archive:FILE[:REPO:TAG|:@N]   a "docker save" archive (@N: the
 *                                Nth image, from 0)
 *   containers-storage:[[DRIVER@]ROOT]IMAGE   a local container store of
 *                                podman, buildah or CRI-O (vfs or overlay;
 *                                without [ROOT], the user's own as
 *                                containers-storage.conf(5) says); IMAGE is
 *                                NAME[:TAG], an ID or its beginning, @DIGEST,
 *                                or nothing for every image; read under the
 *                                store's read locks
 * Without a tag, every image of a layout or archive is reported, each
 * object labelled with its image (pkgnote_scan_object_image()); an image
 * that cannot be read is a problem, an error only when none can.
 * pkgnote_scan_add_image() chooses one image with IMAGE ("TAG",
 * "REPO:TAG", "@DIGEST" or "@N"; NULL: as pkgnote_scan_add()); naming it
 * in PATH too is -EINVAL.  An unknown tag or digest is -ENOENT, its
 * message naming those present; an index, manifest or configuration whose
 * content does not match its digest is -EBADMSG. */
PKGNOTE_PUBLIC int pkgnote_scan_add_image(pkgnote_scan *s, const char *path, const char *image);

/* The platform chosen in multi-platform images added from now on,
 * "OS/ARCH[/VARIANT]" as the OCI image spec names them ("linux/arm64/v8");
 * NULL: this machine's (the default).  When an index offers none that
 * matches, the input fails with -ENOENT naming the platforms present. */
PKGNOTE_PUBLIC int pkgnote_scan_set_platform(pkgnote_scan *s, const char *platform);

typedef struct pkgnote_scan_stats {
        size_t size;            /* sizeof(pkgnote_scan_stats), set by the caller */
        uint64_t inputs;        /* successful pkgnote_scan_add() calls */
        uint64_t files;         /* regular files (archive hard links included) */
        uint64_t bytes;         /* their total size */
        uint64_t directories;
        uint64_t symlinks;      /* symbolic links, never followed */
        uint64_t special;       /* FIFOs, sockets, device nodes: never opened */
        uint64_t unreadable;    /* files and directories that could not be read */
        uint64_t other_fs;      /* not entered: on another file system */
        uint64_t whited_out;    /* image entries removed by whiteouts */
        uint64_t objects;       /* objects: ELF objects and PE images */
        uint64_t with_note;     /* ... with at least one package note */
        uint64_t without_note;  /* ... without */
        uint64_t malformed;     /* ... with a malformed note or header */
        uint64_t packages;      /* distinct package notes */
        uint64_t pe_images;     /* the objects that are PE images */
} pkgnote_scan_stats;
#define PKGNOTE_SCAN_STATS_INIT {.size = sizeof(pkgnote_scan_stats)}

/* Fills the fields of *RET its size covers: 0, or -EINVAL when RET->size
 * is below sizeof(size_t). */
PKGNOTE_PUBLIC int pkgnote_scan_get_stats(const pkgnote_scan *s, pkgnote_scan_stats *ret);

/* Problems met (unreadable files and directories, unsafe archive paths,
 * limits), sorted by input and path; paths as reported for objects. */
PKGNOTE_PUBLIC size_t pkgnote_scan_problem_count(const pkgnote_scan *s);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_scan_problem(const pkgnote_scan *s, size_t i);

/* The ELF objects found, sorted by input (in the order added); within an
 * input, those of no image first, then each image's in turn; then by path
 * (bytewise), and by the archives inside the input they are in (those of
 * the input's own tree first).  Paths: for a directory, PATH joined with the path
 * inside it; for a single file, PATH; for an archive or image, the
 * absolute path inside it ("/usr/bin/ls"). */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_count(const pkgnote_scan *s);
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_object_get(const pkgnote_scan *s, size_t i);

PKGNOTE_PUBLIC const char *pkgnote_scan_object_path(const pkgnote_scan_object *o);
/* Index of the input (0 for the first pkgnote_scan_add()). */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_input(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC uint64_t pkgnote_scan_object_size(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC unsigned pkgnote_scan_object_elf_type(const pkgnote_scan_object *o); /* e_type */
PKGNOTE_PUBLIC unsigned pkgnote_scan_object_machine(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC int pkgnote_scan_object_class(const pkgnote_scan_object *o);      /* 32 or 64 */
PKGNOTE_PUBLIC int pkgnote_scan_object_big_endian(const pkgnote_scan_object *o); /* 1 or 0 */
/* "executable" (ET_EXEC, or ET_DYN with PT_INTERP), "shared object",
 * "relocatable", "core", "unknown": the words of pkgnote show. */
PKGNOTE_PUBLIC const char *pkgnote_scan_object_kind(const pkgnote_scan_object *o);
/* The object's summary, as pkgnote_info_read() gives it (never NULL; with
 * the problems of reading the object too); it lives as long as the scan.
 * The accessors below are shorthands for it. */
PKGNOTE_PUBLIC const pkgnote_info *pkgnote_scan_object_info(const pkgnote_scan_object *o);
/* The image the object was found in, or NULL when its input is no image. */
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_object_image(const pkgnote_scan_object *o);
/* The archives inside its input the object was found in, outermost first,
 * each as the path of the member it is within the one around it
 * ("/data.tar.xz" of a .deb; "/var/cache/apt/archives/x.deb",
 * "/data.tar.xz" of a .deb inside a tar); none for an object of the
 * input's own tree. */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_container_count(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_container(const pkgnote_scan_object *o, size_t i);
/* Lowercase hex, or NULL. */
PKGNOTE_PUBLIC const char *pkgnote_scan_object_build_id(const pkgnote_scan_object *o);
/* Package notes as pkgnote_info_read() gives them: identical ones once,
 * the primary first; the JSON exactly as stored. */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_package_count(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_object_package(const pkgnote_scan_object *o, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_package_json(const pkgnote_scan_object *o, size_t i);
/* dlopen notes: the I-th note's array as compact JSON. */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_dlopen_count(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_dlopen_json(const pkgnote_scan_object *o, size_t i);
/* Malformed notes, unreadable members and the like (pkgnote_info_problem()
 * of the object's summary; their path is NULL: the object itself). */
PKGNOTE_PUBLIC size_t pkgnote_scan_object_problem_count(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_scan_object_problem(const pkgnote_scan_object *o, size_t i);
/* Lowercase hex digests of the whole file, or NULL (only with
 * PKGNOTE_SCAN_CHECKSUMS, and only for objects with a package note). */
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha1(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_sha256(const pkgnote_scan_object *o);

/* With PKGNOTE_SCAN_DEPENDENCIES: the object's DT_SONAME (or NULL) and
 * the libraries it needs (DT_NEEDED), in the order of its dynamic
 * section. */
PKGNOTE_PUBLIC const char *pkgnote_scan_object_soname(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC size_t pkgnote_scan_object_needed_count(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_needed(const pkgnote_scan_object *o, size_t i);

/* The package database beside the notes.  When the root file system the
 * object was found in (a directory tree, an image, an archive of a root
 * file system) holds a package database (dpkg's var/lib/dpkg, rpm's
 * rpmdb.sqlite), its type is "deb" or "rpm", else NULL.  The package
 * that the database says owns the object's path: its binary package's
 * name, version and architecture, and its source package's name and
 * version; NULL when none owns it (or there is no database). */
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_type(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_name(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_version(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_architecture(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_source(const pkgnote_scan_object *o);
PKGNOTE_PUBLIC const char *pkgnote_scan_object_db_source_version(const pkgnote_scan_object *o);
/* 1 when a database package owns the object and none of its package
 * notes names that package (its binary or source name, with its type)
 * and version: a replaced file, or a foreign one; else 0. */
PKGNOTE_PUBLIC int pkgnote_scan_object_db_mismatch(const pkgnote_scan_object *o);

/* The images of the inputs, in the order met (by input, then as their
 * layout or archive lists them): what names each alone (its reference,
 * with transport: "oci:DIR:TAG", "oci-archive:FILE:@DIGEST",
 * "docker-archive:FILE:REPO:TAG", "containers-storage:NAME"), the digest
 * of its manifest or index (NULL when it has none, as in a docker
 * archive), its id (the digest of its configuration, "sha256:HEX"; NULL
 * if unknown), its tags, its platform ("OS/ARCH[/VARIANT]" from the
 * configuration; NULL if unknown), the bytes of its configuration and
 * layers as stored (compressed), and its number of layers. */
PKGNOTE_PUBLIC size_t pkgnote_scan_image_count(const pkgnote_scan *s);
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_image_get(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC size_t pkgnote_scan_image_input(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC const char *pkgnote_scan_image_reference(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC const char *pkgnote_scan_image_digest(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC const char *pkgnote_scan_image_id(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC size_t pkgnote_scan_image_tag_count(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC const char *pkgnote_scan_image_tag(const pkgnote_scan_image *im, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_scan_image_platform(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC uint64_t pkgnote_scan_image_size(const pkgnote_scan_image *im);
PKGNOTE_PUBLIC size_t pkgnote_scan_image_layer_count(const pkgnote_scan_image *im);
/* One image as a JSON object ("reference", "digest", "id", "tags",
 * "platform", "size", "layers", and "input" unless NULL), malloc()ed. */
PKGNOTE_PUBLIC int pkgnote_scan_image_to_json(const pkgnote_scan_image *im, const char *input, char **ret);

/* The distinct package notes (JSON text compared byte for byte), sorted
 * by type, os, name, version, architecture, then JSON text; each with the
 * objects that carry it (in object order). */
PKGNOTE_PUBLIC size_t pkgnote_scan_package_count(const pkgnote_scan *s);
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_package(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_scan_package_json(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC size_t pkgnote_scan_package_object_count(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_package_object(const pkgnote_scan *s, size_t i,
                                                                      size_t j);

/* Every installed package of the scanned roots: the packages the package databases of the scanned roots list (dpkg's
 * status, rpm's rpmdb.sqlite, apk's lib/apk/db/installed), whether or not
 * they ship an ELF object: those of roots alike (type, name, version,
 * architecture, OS, image) are one; sorted by image, type, name,
 * version, architecture.  Each package's metadata has the keys of a note
 * (type, os, osVersion from the root's os-release, name and version of
 * the binary package, architecture) and "source", "sourceVersion" and,
 * where the database gives one, "license" (rpm's License tag as written,
 * apk's L:, Debian's machine-readable copyright file as an SPDX
 * expression).  Its objects are the scanned objects it owns, notes or
 * not, in object order.  Pointers live as long as the scan. */
PKGNOTE_PUBLIC size_t pkgnote_scan_db_package_count(const pkgnote_scan *s);
PKGNOTE_PUBLIC const pkgnote_metadata *pkgnote_scan_db_package(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_scan_db_package_json(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC size_t pkgnote_scan_db_package_object_count(const pkgnote_scan *s, size_t i);
PKGNOTE_PUBLIC const pkgnote_scan_object *pkgnote_scan_db_package_object(const pkgnote_scan *s, size_t i, size_t j);
/* The image whose root holds package I, or NULL. */
PKGNOTE_PUBLIC const pkgnote_scan_image *pkgnote_scan_db_package_image(const pkgnote_scan *s, size_t i);
/* Package I as a JSON object, malloc()ed into *RET: "installedPackage"
 * (its metadata), "image" (as an object's, when in one), "objects" (the
 * paths of the objects it owns): 0, -EINVAL, -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_scan_db_package_to_json(const pkgnote_scan *s, size_t i, char **ret);

/* --- Reports as JSON (see the conventions) --- */

/* A scanned object's line ("pkgnote scan --format json"): path, input
 * (INPUT: the name the caller gave input pkgnote_scan_object_input(O)),
 * elfType (pkgnote_scan_object_kind()), elfClass, byteOrder,
 * architecture, machine, buildId, packages, dlopen (the entries of its
 * dlopen notes, as stored), embedded (pkgnote_embedded_to_json(), since
 * 1.2) when the object says what is inside it, and problems (their
 * messages) when it has any. */
PKGNOTE_PUBLIC int pkgnote_scan_object_to_json(const pkgnote_scan_object *o, const char *input, char **ret);
/* The scan's last line: {"summary": {inputs, objects, withNote,
 * withoutNote, malformed, packages, files, bytes, directories, symlinks,
 * special, unreadable, otherFileSystems, whitedOut, problems}}, the
 * counts of pkgnote_scan_get_stats() and pkgnote_scan_problem_count(). */
PKGNOTE_PUBLIC int pkgnote_scan_summary_to_json(const pkgnote_scan *s, char **ret);

/* --- SBOMs --- */

/* The package URL of a note (purl-spec): pkg:rpm/OS/NAME@VERSION,
 * pkg:deb/OS/NAME@VERSION, pkg:apk/OS/NAME@VERSION for those types,
 * pkg:generic/NAME@VERSION otherwise; qualifiers arch, distro (OS-VERSION)
 * and, for rpm, epoch, sorted by key; components percent-encoded except
 * for ALPHA, DIGIT, "-._~" and ":"; namespace (and for deb and apk the
 * name) lowercased as the purl types require.  -ENODATA when the note has
 * no name.  The result is malloc()ed. */
PKGNOTE_PUBLIC int pkgnote_purl(const pkgnote_metadata *m, char **ret);

enum {
        PKGNOTE_SBOM_SPDX = 1, /* SPDX 2.3 JSON */
        /* CycloneDX 1.6 JSON.  Released as "the newest version written",
         * which was 1.6; it stays 1.6 so that existing users get the
         * documents they were tested with (trivy, among others, reads no
         * 1.7): name a version (PKGNOTE_SBOM_CYCLONEDX_1_*) for another. */
        PKGNOTE_SBOM_CYCLONEDX = 2,
};

typedef struct pkgnote_sbom_options {
        size_t size;          /* sizeof(pkgnote_sbom_options), or 0 */
        const char *name;     /* document name (the scanned path); NULL: "pkgnote-scan" */
        int64_t created;      /* creation time, seconds since the epoch; < 0: now */
        /* Non-zero: the SPDX namespace and CycloneDX serial number are
         * derived from the document's content instead of chosen at random,
         * so equal inputs and times give byte-identical documents. */
        int reproducible;
        const char *tool_version; /* written as the creating tool's version; NULL: the library's */
} pkgnote_sbom_options;
#define PKGNOTE_SBOM_OPTIONS_INIT {.size = sizeof(pkgnote_sbom_options), .created = -1}

/* An SBOM of the scan: one package (component) per distinct package
 * note, with its purl and CPEs (osCpe, appCpe; CPE 2.3 formatted strings
 * missing trailing components are completed with "*"), and the objects
 * carrying the note as evidence (SPDX: file elements with their
 * checksums, which need PKGNOTE_SCAN_CHECKSUMS, related to the package as
 * "evident-by"; CycloneDX: evidence.occurrences).  Deterministic apart
 * from the creation time and the namespace or serial number.  OPTIONS may
 * be NULL.  The result is malloc()ed, pretty-printed JSON. */
PKGNOTE_PUBLIC int pkgnote_sbom_write(const pkgnote_scan *s, int format, const pkgnote_sbom_options *options,
                                      char **ret);

/* pkgnote_sbom_write() and pkgnote_process_sbom_write() formats naming the CycloneDX version, for
 * consumers that need one (PKGNOTE_SBOM_CYCLONEDX: 1.6), and SPDX 3. */
enum {
        PKGNOTE_SBOM_CYCLONEDX_1_5 = 3, /* CycloneDX 1.5 JSON */
        PKGNOTE_SBOM_CYCLONEDX_1_6 = 4, /* CycloneDX 1.6 JSON */
        PKGNOTE_SBOM_CYCLONEDX_1_7 = 5, /* CycloneDX 1.7 JSON.  Since 1.2. */
        /* SPDX 3.0.1 JSON-LD (one @graph; element ids are IRIs below the
         * document's namespace): what the SPDX 2.3 document says, in SPDX
         * 3's vocabulary (software_Package, software_File with its hashes,
         * Relationship contains/dependsOn/hasOptionalDependency/
         * hasDynamicLink/hasEvidence/hasDeclaredLicense,
         * simplelicensing_LicenseExpression, expandedlicensing_CustomLicense,
         * Annotation), in one software_Sbom.  Since 1.2. */
        PKGNOTE_SBOM_SPDX_3 = 6,
};

/* What runs now as an SBOM: one component (SPDX package) per distinct
 * package and version mapped by the processes added, from each module's
 * package notes (one component per note), else the package database of
 * the root the process runs in (pkgnote_module_package_origin()), its purl
 * naming the distribution of that root's os-release (a note of that OS
 * without a version of it gets the root's, as pkgnote_sbom_write() gives
 * it), a database's package with its license mapped to SPDX as there;
 * each says which
 * ("pkgnote:origin" "note" or "database"; SPDX: sourceInfo), lists the
 * mapped files (CycloneDX evidence.occurrences; SPDX comment), and is
 * flagged when some process maps a file of it that was replaced or
 * deleted on disk since ("pkgnote:replacedOnDisk" "true", with
 * "pkgnote:installedNow" naming what is there now; SPDX: an annotation).
 * The processes are components too (CycloneDX "application"; SPDX
 * packages the document describes) that depend on the packages they map
 * (CycloneDX dependencies; SPDX DEPENDS_ON).  Packages are sorted by
 * type, name, version, architecture, origin; processes in the order
 * added.  SPDX 2.3, SPDX 3.0.1 or CycloneDX JSON (PKGNOTE_SBOM_*:
 * PKGNOTE_SBOM_CYCLONEDX is 1.6; PKGNOTE_SBOM_CYCLONEDX_1_5, _1_6 and _1_7
 * name one). */
PKGNOTE_PUBLIC int pkgnote_process_sbom_new(pkgnote_process_sbom **ret);
PKGNOTE_PUBLIC void pkgnote_process_sbom_free(pkgnote_process_sbom *b);
/* Adds process C (pkgnote_process_open*()) and its modules' packages,
 * copying what it keeps: C may be freed right after.  0, -EINVAL, -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_process_sbom_add(pkgnote_process_sbom *b, const pkgnote_core *c);
/* Adds the running kernel K (pkgnote_kernel_read()), copying what it
 * keeps (K may be freed right after): one component the document
 * describes (CycloneDX "operating-system"; SPDX a package of purpose
 * OPERATING_SYSTEM), named, versioned and with the purl of its package
 * when one is known (its own note, else the database package of the
 * installed image whose build-id is the running one; else "linux" and
 * the release), its release, build-id, build salt and installed image as
 * properties (SPDX: its comment), each reason it needs a reboot as a
 * "pkgnote:rebootReason" property (SPDX: an annotation); its loaded
 * modules as components inside it (CycloneDX nested "library"
 * components; SPDX packages it CONTAINS), each with its build-id, module
 * file and, when their build-ids are equal, the file's database package.
 * 0, -EEXIST when B has a kernel already, -EINVAL, -ENOMEM.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_process_sbom_add_kernel(pkgnote_process_sbom *b, const pkgnote_kernel *k);
/* The document, malloc()ed, pretty-printed (OPTIONS as for
 * pkgnote_sbom_write(); may be NULL).  0, -EINVAL, -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_process_sbom_write(const pkgnote_process_sbom *b, int format,
                                              const pkgnote_sbom_options *options, char **ret);

/* ===================================================================
 * Dependencies and closures
 * Names: pkgnote_deps_*, pkgnote_closure_*, pkgnote_verify_*
 *
 * What the dlopen notes of several files ask of a package: dependencies in
 * rpm's, Debian's or JSON form (pkgnote_deps); every file programs need
 * to run inside a root directory (pkgnote_closure); and whether a built
 * artefact holds all its programs need (pkgnote_verify, since 1.2).
 * Handles: pkgnote_deps, pkgnote_closure, pkgnote_verify.
 * =================================================================== */

typedef struct pkgnote_deps pkgnote_deps;
typedef struct pkgnote_closure pkgnote_closure;
typedef struct pkgnote_verify pkgnote_verify;

/* The dlopen notes of several files merged into package dependencies:
 * one dependency per list of alternative sonames, the strongest priority
 * of its mentions winning. */

enum {
        PKGNOTE_DEPS_RPM = 1,  /* "Requires: libfoo.so.1()(64bit)" lines */
        PKGNOTE_DEPS_DEB = 2,  /* dlopen:Depends=/Recommends=/Suggests= substvars */
        PKGNOTE_DEPS_JSON = 3, /* one array of merged, resolved entries */
};

PKGNOTE_PUBLIC int pkgnote_deps_new(pkgnote_deps **ret);
PKGNOTE_PUBLIC void pkgnote_deps_free(pkgnote_deps *d);
/* Adds every entry of NOTE, found in PATH, an object of ELF class
 * ELF_CLASS (32 or 64), MACHINE (e_machine) and byte order BIG_ENDIAN;
 * these decide rpm's ABI suffix and which dpkg architecture ships a
 * soname.  -EBADMSG (nothing added) when NOTE fails pkgnote_dlopen_check()
 * in a way that leaves no dependency to take (no sonames, bad priority). */
PKGNOTE_PUBLIC int pkgnote_deps_add(pkgnote_deps *d, const char *path, int elf_class, unsigned machine,
                                    int big_endian, const pkgnote_dlopen *note);
/* Finds which packages ship each soname in the dpkg database under ROOT
 * (NULL: "/"), reading the *.list files of ROOT/var/lib/dpkg/info, never
 * leaving ROOT.
 * Returns how many dependencies no package ships (0: all resolved). */
PKGNOTE_PUBLIC int pkgnote_deps_resolve_dpkg(pkgnote_deps *d, const char *root);
PKGNOTE_PUBLIC size_t pkgnote_deps_count(const pkgnote_deps *d);
/* Dependency I: its priority, its sonames as "liba.so.1 or libb.so.2",
 * and whether pkgnote_deps_resolve_dpkg() found a package for it (1), did
 * not (0), or was not run (-ENODATA).  Strings live as long as D. */
PKGNOTE_PUBLIC int pkgnote_deps_priority(const pkgnote_deps *d, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_deps_sonames(const pkgnote_deps *d, size_t i);
PKGNOTE_PUBLIC int pkgnote_deps_resolved(const pkgnote_deps *d, size_t i);
/* The J-th alternative soname and the K-th feature of dependency I. */
PKGNOTE_PUBLIC size_t pkgnote_deps_soname_count(const pkgnote_deps *d, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_deps_soname(const pkgnote_deps *d, size_t i, size_t j);
PKGNOTE_PUBLIC size_t pkgnote_deps_feature_count(const pkgnote_deps *d, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_deps_feature(const pkgnote_deps *d, size_t i, size_t k);
/* The dependencies in FORMAT (PKGNOTE_DEPS_*), in a malloc()ed string
 * ending in a newline.  DEB needs pkgnote_deps_resolve_dpkg() first. */
PKGNOTE_PUBLIC int pkgnote_deps_format(const pkgnote_deps *d, int format, char **ret);

/* An edge of the dependency graph that pkgnote_closure and pkgnote_verify
 * record as they resolve: FROM, the object that asks (its absolute path,
 * as the closure or the artefact names it), needs NAME (a DT_NEEDED
 * name, the PT_INTERP path, or the soname of a dlopen note entry) and
 * the loader finds it in the object TO (its path), or finds nothing (TO
 * NULL: missing; for a dlopen entry NAME then holds its sonames joined
 * by " or ").  KIND: a PKGNOTE_DEP_*; FEATURE: a dlopen entry's feature
 * (or NULL); PRIORITY: a dlopen entry's PKGNOTE_DLOPEN_*,
 * PKGNOTE_DLOPEN_REQUIRED for the interpreter and DT_NEEDED.  Each edge
 * is recorded once.  Strings live as long as the handle.  Since 1.2. */
typedef struct pkgnote_dep_edge {
        size_t size; /* sizeof(pkgnote_dep_edge), set by the caller */
        const char *from;
        const char *to;
        const char *name;
        const char *feature;
        int kind;
        int priority;
} pkgnote_dep_edge;
#define PKGNOTE_DEP_EDGE_INIT {.size = sizeof(pkgnote_dep_edge)}
/* Edge kinds.  Since 1.2. */
enum {
        PKGNOTE_DEP_NEEDED = 1, /* DT_NEEDED */
        PKGNOTE_DEP_INTERP = 2, /* PT_INTERP */
        PKGNOTE_DEP_DLOPEN = 3, /* a dlopen note entry */
};

/* Every file programs need to run inside a root directory, found as the
 * dynamic loader (glibc's) finds it there: the interpreter, DT_NEEDED
 * recursively through DT_RPATH/DT_RUNPATH ($ORIGIN, $LIB, $PLATFORM),
 * the root's /etc/ld.so.conf (includes followed, loops cut) and the
 * system directories of each object's ELF class, machine and byte order
 * (Debian's multiarch ones first), candidates of another ABI passed over;
 * plus the libraries the objects' dlopen notes name for the features and
 * priorities selected (of each entry the first soname found), and their
 * own closures.  Symbolic links met on the way are files of the closure
 * too, with their targets.  Nothing outside the root is opened: links
 * resolve as if the root were "/". */

#define PKGNOTE_MAX_CLOSURE_FILES (1u << 16)  /* files (and objects) of one closure */
#define PKGNOTE_MAX_CLOSURE_REASONS 256u      /* reasons kept per file; the rest counted */

/* ROOT: the root directory (NULL or "": "/").  0 with *RET, or a negative
 * errno (the root cannot be opened). */
PKGNOTE_PUBLIC int pkgnote_closure_new(const char *root, pkgnote_closure **ret);
PKGNOTE_PUBLIC void pkgnote_closure_free(pkgnote_closure *c);

#define PKGNOTE_CLOSURE_ALL_FEATURES 1u
/* Selects dlopen note entries, before pkgnote_closure_add(): those of the
 * feature FEATURE (may be NULL; each call adds one), every entry with
 * PKGNOTE_CLOSURE_ALL_FEATURES in FLAGS, and every entry at PRIORITY or
 * stronger (a PKGNOTE_DLOPEN_*, 0 for none).  An entry is taken when any
 * of these selects it; by default none is.  0 or -EINVAL. */
PKGNOTE_PUBLIC int pkgnote_closure_select(pkgnote_closure *c, const char *feature, int priority, unsigned flags);
/* Adds the program or library PATH (in the root) and all it needs.  1
 * when new objects came in, 0 when all were there already; -ENOENT,
 * -ENOEXEC (not an ELF executable or shared object), -EINVAL (not a
 * regular file), -ELOOP for PATH itself; -E2BIG over
 * PKGNOTE_MAX_CLOSURE_FILES, -ENOMEM.  What PATH needs but the root
 * lacks is listed as missing, not failed. */
PKGNOTE_PUBLIC int pkgnote_closure_add(pkgnote_closure *c, const char *path);
/* The files, in the order they were found: the absolute path in the root
 * and, for a symbolic link, its target (else NULL); valid while C lives. */
PKGNOTE_PUBLIC size_t pkgnote_closure_count(const pkgnote_closure *c);
PKGNOTE_PUBLIC const char *pkgnote_closure_path(const pkgnote_closure *c, size_t i);
PKGNOTE_PUBLIC const char *pkgnote_closure_target(const pkgnote_closure *c, size_t i);
/* What could not be found: the name looked for (of a dlopen entry, its
 * sonames joined by " or ", then its feature and priority in parentheses)
 * and the object that wanted it in *BY (may be NULL). */
PKGNOTE_PUBLIC size_t pkgnote_closure_missing_count(const pkgnote_closure *c);
PKGNOTE_PUBLIC const char *pkgnote_closure_missing(const pkgnote_closure *c, size_t i, const char **by);
/* Problems met that did not stop the closure (an ld.so.conf include loop,
 * a loop of symbolic links, a malformed dynamic section). */
PKGNOTE_PUBLIC size_t pkgnote_closure_problem_count(const pkgnote_closure *c);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_closure_problem(const pkgnote_closure *c, size_t i);
/* The edges of the graph (pkgnote_dep_edge), in the order they were
 * found: 1 with *E (its SIZE set by the caller; fields past it are left
 * alone), -ENOENT past the last, -EINVAL for a bad SIZE.  The nodes are
 * the objects: the files of the closure that are no symbolic link.
 * Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_closure_edge_count(const pkgnote_closure *c);
PKGNOTE_PUBLIC int pkgnote_closure_edge(const pkgnote_closure *c, size_t i, pkgnote_dep_edge *e);
/* {"root", "files": [{"path", "type": "file"|"symlink", "target",
 * "directory" (true: a link that stands for a directory),
 * "why": [{"kind": "program"|"interpreter"|"needed"|"dlopen", "by",
 * "name", "feature", "priority"}], "package"}], "missing": [reasons, a
 * dlopen entry's with "names"], "problems": [{"path", "message"}]},
 * "package" (the binary package that ships the file or link; not for a
 * link to a directory, which many list) only with DB (may be NULL);
 * since 1.2 also "nodes": [the objects' paths] and "edges": [{"from",
 * "to" (absent: missing), "name", "kind": "needed"|"interpreter"|"dlopen",
 * "feature", "priority" (both of a dlopen edge only)}], as
 * pkgnote_closure_edge() gives them.  0 with *RET (malloc()ed), or -ENOMEM. */
PKGNOTE_PUBLIC int pkgnote_closure_to_json(const pkgnote_closure *c, const pkgnote_pkgdb *db, char **ret);

/* Whether a built artefact holds everything its programs need
 * (pkgnote_verify): for every ELF program and shared object inside it,
 * each DT_NEEDED name and the interpreter found inside the artefact as
 * the loader would find them there (the resolver of pkgnote_closure:
 * DT_RPATH/DT_RUNPATH with $ORIGIN, the artefact's own ld.so.conf, the
 * system directories, glibc-hwcaps), and for each dlopen note entry
 * selected at least one of its sonames.  A program is checked with the
 * objects its loader maps (a name an object already mapped answers is
 * not searched; DT_RPATH of the loaders up the chain); an object no
 * program maps by itself, as ldd(1) asks about one.  The artefact is read without unpacking it to disk: a directory, or an
 * initramfs (cpio "newc" archives one after another, any of them
 * compressed: the early uncompressed archive and the compressed main one
 * of real initrds).  Nothing outside it is read.  Since 1.2.
 *
 * A unified kernel image (UKI: a PE file with the kernel in its `.linux`
 * section and an initramfs in `.initrd`) is verified as its `.initrd`,
 * read in place (the base profile's, when it has `.profile` sections),
 * and its kernel against it: when the initrd holds kernel modules
 * (directories under /usr/lib/modules or /lib/modules) but none for the
 * kernel's release (its `.uname`, else the version string of the
 * bzImage in `.linux`), that is a finding of object ".linux", kind
 * "modules", its one name the release.  Since 1.2. */

/* One thing missing.  OBJECT: the object's absolute path in the
 * artefact (".linux": a UKI's kernel); KIND: "interpreter", "needed",
 * "dlopen", "unreadable" (its dynamic section cannot be read: NAMES
 * holds the reason) or "modules" (a UKI's initrd holds no modules for
 * the kernel release NAMES holds); NAMES: the
 * alternatives looked for (N_NAMES; one but for a dlopen entry) and
 * SONAMES the same joined by " or "; FEATURE: a dlopen entry's feature
 * (or NULL); PRIORITY: a PKGNOTE_DLOPEN_*, PKGNOTE_DLOPEN_REQUIRED for
 * the interpreter and DT_NEEDED.  Strings live as long as the handle.
 * Since 1.2. */
typedef struct pkgnote_verify_finding {
        size_t size; /* sizeof(pkgnote_verify_finding), set by the caller */
        const char *object;
        const char *kind;
        const char *const *names;
        size_t n_names;
        const char *sonames;
        const char *feature;
        int priority;
} pkgnote_verify_finding;
#define PKGNOTE_VERIFY_FINDING_INIT {.size = sizeof(pkgnote_verify_finding)}

/* Artefact kinds. */
enum {
        PKGNOTE_VERIFY_DIRECTORY = 1,
        PKGNOTE_VERIFY_INITRAMFS = 2,
        /* A unified kernel image: its .initrd section.  Since 1.2. */
        PKGNOTE_VERIFY_UKI = 3,
        /* A tar archive (any compression) of a root file system.  Since 1.2. */
        PKGNOTE_VERIFY_TAR = 4,
        /* A container image: a docker-save archive or an OCI image layout
         * (a directory or its tar), its layers merged.  Since 1.2. */
        PKGNOTE_VERIFY_IMAGE = 5,
        /* A SquashFS image.  Since 1.2. */
        PKGNOTE_VERIFY_SQUASHFS = 6,
};
#define PKGNOTE_VERIFY_ALL_FEATURES 1u

/* Reads the artefact PATH (a directory, an initramfs file, a UKI, a tar
 * archive, a docker-save archive, an OCI image layout, a reference naming
 * one image of several as pkgnote_scan_add() takes them, or a SquashFS
 * image, read as the scan reads them, an image's layers merged): 0 with
 * *RET; -ENOENT, -EINVAL (neither a directory nor a regular file, or an
 * artefact of several images), -EBADMSG (not an initramfs, or a damaged
 * or truncated one; a UKI whose `.initrd` lies outside the file, over its
 * headers or past its image, is empty, or is there twice), -ENOEXEC (an
 * MZ file with no PE header), -ENODATA (a PE file without `.initrd`),
 * -EOPNOTSUPP (a compression this build cannot decode, or bzip2, lzma
 * and lzo, which are not read), -E2BIG (over a
 * limit), -ENOMEM.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_new(const char *path, pkgnote_verify **ret);
/* Since 1.2. */
PKGNOTE_PUBLIC void pkgnote_verify_free(pkgnote_verify *v);
/* Selects dlopen note entries, before pkgnote_verify_run(), as
 * pkgnote_closure_select() does: of feature FEATURE (may be NULL), all
 * with PKGNOTE_VERIFY_ALL_FEATURES, and all at PRIORITY or stronger (0:
 * none by priority).  Without a call, those at PKGNOTE_DLOPEN_RECOMMENDED
 * or stronger; the first call replaces that.  0 or -EINVAL.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_select(pkgnote_verify *v, const char *feature, int priority, unsigned flags);
/* Checks every object (once; a later call returns the same): how many findings
 * are at PKGNOTE_DLOPEN_REQUIRED (0: nothing required is missing), or
 * -ENOMEM.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_run(pkgnote_verify *v);
/* PKGNOTE_VERIFY_DIRECTORY, PKGNOTE_VERIFY_INITRAMFS, PKGNOTE_VERIFY_UKI,
 * PKGNOTE_VERIFY_TAR, PKGNOTE_VERIFY_IMAGE or PKGNOTE_VERIFY_SQUASHFS.
 * Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_kind(const pkgnote_verify *v);
/* A UKI's kernel release (its `.uname`, else its bzImage's version
 * string: printable ASCII, at most 64 bytes), or NULL (not a UKI, or
 * not known: a problem says why).  Lives as long as V.  Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_verify_release(const pkgnote_verify *v);
/* ELF objects (programs and shared objects, by path) checked.  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_verify_object_count(const pkgnote_verify *v);
/* The findings, by object path, then as each object lists them.  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_verify_count(const pkgnote_verify *v);
/* Finding I into *F (its SIZE set by the caller; fields past it are left
 * alone): 1, or -ENOENT past the last, -EINVAL for a bad SIZE.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_get(const pkgnote_verify *v, size_t i, pkgnote_verify_finding *f);
/* Problems met that did not stop the check (an entry of an archive left
 * out, notes that cannot be read, a DT_RPATH relative to the working
 * directory, a library only in glibc-hwcaps subdirectories).  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_verify_problem_count(const pkgnote_verify *v);
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_verify_problem(const pkgnote_verify *v, size_t i);
/* The path of object I (of pkgnote_verify_object_count(), by path), or
 * NULL past the last.  Since 1.2. */
PKGNOTE_PUBLIC const char *pkgnote_verify_object(const pkgnote_verify *v, size_t i);
/* The edges of the graph the check walked (pkgnote_dep_edge; a missing
 * edge for each finding but "unreadable" and "modules"), by the asking object's path,
 * then in the order they were found: 1 with *E (its SIZE set by the
 * caller), -ENOENT past the last, -EINVAL for a bad SIZE.  Since 1.2. */
PKGNOTE_PUBLIC size_t pkgnote_verify_edge_count(const pkgnote_verify *v);
PKGNOTE_PUBLIC int pkgnote_verify_edge(const pkgnote_verify *v, size_t i, pkgnote_dep_edge *e);
/* {"artefact", "kind": "directory"|"initramfs"|"uki"|"tar"|"image"|"squashfs",
 * "objects": N,
 * "findings": [{"object", "kind", "names": [...], "feature", "priority"}],
 * "required": N, "problems": [{"path", "message"}], "nodes": [the
 * objects' paths], "edges": [as pkgnote_closure_to_json()'s], "release"
 * (a UKI's kernel release, when known)}.  0 with *RET (malloc()ed), or
 * -ENOMEM.  Since 1.2. */
PKGNOTE_PUBLIC int pkgnote_verify_to_json(const pkgnote_verify *v, char **ret);

#ifdef __cplusplus
}
#endif
#endif
