/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lint: the package notes of an object checked against the spec (UAPI.8)
 * and against what readers need to find them.
 *
 * Findings come in a fixed order: problems met while walking the notes,
 * then each note in file order (owner and type, where it lies, its
 * descriptor), then object-wide ones (no note, no build-id).  Messages may
 * quote keys and values from the note; callers escape them for output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "02-elf-const.h"
#include "02-elf-view.h"
#include "03-model-json.h"
#include "03-model-purl.h"
#include "07-check-lint-dlopen.h"
#include "02-pe-view.h"

/* Descriptors above this crowd the first page; the spec sets no limit. */
#define LARGE_NOTE 1024u
/* Bytes of a key or value quoted in a message. */
#define QUOTE_MAX 64u
#define PACKAGE_SECTION ".note.package"

/* ------------------------------------------------------------------ */
/* Checks                                                              */

enum check {
        C_NO_PACKAGE_NOTE,
        C_BAD_OWNER,
        C_BAD_TYPE,
        C_SECTION_NOT_NOTE,
        C_MALFORMED_NOTE,
        C_NOT_IN_PT_NOTE,
        C_NOT_LOADED,
        C_MISALIGNED,
        C_NO_NUL,
        C_TRAILING_DATA,
        C_TOO_LARGE,
        C_BAD_UTF8,
        C_BAD_JSON,
        C_JSON_NOT_OBJECT,
        C_DUPLICATE_KEY,
        C_CONTROL_CHARACTER,
        C_UNICODE_ESCAPE,
        C_NOT_STRING,
        C_BAD_CPE,
        C_NOT_IN_FIRST_PAGE,
        C_MULTIPLE_NOTES,
        C_DUPLICATE_NOTE,
        C_LARGE_NOTE,
        C_UNEXPECTED_NOTE,
        C_EMPTY_VALUE,
        C_SHORT_CPE,
        C_CPE_PART,
        C_UNKNOWN_TYPE,
        C_BAD_OS_RELEASE,
        C_BAD_URL,
        C_MISSPELLED_KEY,
        C_NO_BUILD_ID,
        C_UNSUPPORTED_TYPE,
        C_BAD_DLOPEN,
        C_DROPS_HARDENING,
        C_DEBUG_FILE,
        C_OS_RELEASE_MISMATCH,
        C_UNDECLARED_DLOPEN,
        C_PE_SECTION_FLAGS,
        C_PE_MULTIPLE_SECTIONS,
        _C_MAX,
};

#define E PKGNOTE_LINT_ERROR
#define W PKGNOTE_LINT_WARNING
static const pkgnote_lint_check checks[_C_MAX] = {
        [C_NO_PACKAGE_NOTE] = {"no-package-note", E, "no note with owner FDO and type 0xcafe1a7e"},
        [C_BAD_OWNER] = {"bad-owner", E, "a note of the package note type has an owner other than \"FDO\""},
        [C_BAD_TYPE] = {"bad-type", E, "a note with owner FDO has a type the spec does not define"},
        [C_SECTION_NOT_NOTE] = {"section-not-note", E, "the .note.package section is not of type SHT_NOTE"},
        [C_MALFORMED_NOTE] = {"malformed-note", E, "a note region cannot be walked; notes in it are lost to readers"},
        [C_NOT_IN_PT_NOTE] = {"not-in-pt-note", E, "no PT_NOTE segment covers the note (invisible to core dumps and stripped binaries)"},
        [C_NOT_LOADED] = {"not-loaded", E, "the note is not part of the loaded image"},
        [C_MISALIGNED] = {"misaligned", E, "the note or its section or segment is not 4-byte aligned"},
        [C_NO_NUL] = {"no-nul", E, "the descriptor is not NUL-terminated"},
        [C_TRAILING_DATA] = {"trailing-data", E, "the descriptor has bytes other than NUL after its terminating NUL"},
        [C_TOO_LARGE] = {"too-large", E, "the descriptor is over the size or nesting limits of this reader"},
        [C_BAD_UTF8] = {"bad-utf8", E, "the descriptor is not valid UTF-8"},
        [C_BAD_JSON] = {"bad-json", E, "the descriptor is not valid JSON"},
        [C_JSON_NOT_OBJECT] = {"json-not-object", E, "the descriptor is JSON but not an object"},
        [C_DUPLICATE_KEY] = {"duplicate-key", E, "an object has the same name twice"},
        [C_CONTROL_CHARACTER] = {"control-character", E, "a string holds a control character"},
        [C_UNICODE_ESCAPE] = {"unicode-escape", E, "a string uses a \\u escape instead of raw UTF-8"},
        [C_NOT_STRING] = {"not-string", E, "a well-known key holds something other than a string"},
        [C_BAD_CPE] = {"bad-cpe", E, "osCpe or appCpe is not a CPE 2.3 formatted string or CPE 2.2 URI"},
        [C_NOT_IN_FIRST_PAGE] = {"not-in-first-page", W, "the note or the program headers lie past the first 4096 bytes, so core dumps miss the note"},
        [C_MULTIPLE_NOTES] = {"multiple-notes", W, "the object has package notes with different contents"},
        [C_DUPLICATE_NOTE] = {"duplicate-note", W, "the object has the same package note more than once"},
        [C_LARGE_NOTE] = {"large-note", W, "the descriptor is over 1024 bytes"},
        [C_UNEXPECTED_NOTE] = {"unexpected-note", W, "the .note.package section holds a note that is not a package note"},
        [C_EMPTY_VALUE] = {"empty-value", W, "a well-known key holds an empty string"},
        [C_SHORT_CPE] = {"short-cpe", W, "a CPE 2.3 formatted string leaves out trailing components"},
        [C_CPE_PART] = {"cpe-part", W, "osCpe does not name an OS ('o') or appCpe an application ('a')"},
        [C_UNKNOWN_TYPE] = {"unknown-type", W, "type is not a known packaging format"},
        [C_BAD_OS_RELEASE] = {"bad-os-release", W, "os or osVersion is not in the syntax of os-release ID or VERSION_ID"},
        [C_BAD_URL] = {"bad-url", W, "debugInfoUrl is not an http:// or https:// URL"},
        [C_MISSPELLED_KEY] = {"misspelled-key", W, "a key differs from a well-known key only in case or punctuation"},
        [C_NO_BUILD_ID] = {"no-build-id", W, "the object has no GNU build-id, which core dump readers key on"},
        [C_UNSUPPORTED_TYPE] = {"unsupported-type", W, "not an executable, shared object or relocatable object; not checked"},
        [C_BAD_DLOPEN] = {"bad-dlopen", E, "a dlopen note is not an array of entries with soname lists and known priorities"},
        [C_DROPS_HARDENING] = {"drops-hardening", W, "a note object for x86 or aarch64 lacks the GNU property note, so it strips IBT/SHSTK or BTI/PAC from every program it is linked into"},
        [C_OS_RELEASE_MISMATCH] = {"os-release-mismatch", E, "os, osVersion or osCpe disagrees with the build root's os-release (lint --os-release)"},
        [C_DEBUG_FILE] = {"separate-debug-file", W, "the program headers describe another file (a separate debug file): notes are read from the sections and their layout is not checked"},
        [C_UNDECLARED_DLOPEN] = {"undeclared-dlopen", W, "the object imports dlopen and holds library names (lib*.so.N) that no dlopen note of it declares and DT_NEEDED does not list"},
        [C_PE_SECTION_FLAGS] = {"pe-section-flags", E, "a PE .pkgnote section is not initialized, loaded, read-only, non-executable data"},
        [C_PE_MULTIPLE_SECTIONS] = {"pe-multiple-sections", E, "a PE image has more than one .pkgnote section (UAPI.8 asks for a single one)"},
};
#undef E
#undef W

PKGNOTE_PUBLIC const pkgnote_lint_check *pkgnote_lint_check_get(size_t i) {
        return i < ELEMENTSOF(checks) ? &checks[i] : NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_lint_severity_name(int severity) {
        switch (severity) {
        case PKGNOTE_LINT_WARNING: return "warning";
        case PKGNOTE_LINT_ERROR: return "error";
        default: return NULL;
        }
}

struct lint {
        pkgnote_object *e;
        pkgnote_lint_fn fn;
        void *userdata;
        int errors;
        const pkgnote_os_release *osr; /* the build root's, or NULL */
        const pkgnote_phdr *ph;
        int n_ph;
        const pkgnote_shdr *sh;
        int n_sh;
};

static void report(struct lint *l, enum check c, uint64_t offset, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void report(struct lint *l, enum check c, uint64_t offset, const char *fmt, ...) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (checks[c].severity == PKGNOTE_LINT_ERROR)
                l->errors++;
        if (l->fn) {
                pkgnote_lint_finding f = {&checks[c], msg, offset};
                l->fn(l->userdata, &f);
        }
}

/* "S" in quotes, cut to QUOTE_MAX bytes at a character boundary. */
static const char *quote(char *buf, size_t size, const char *s) {
        size_t len = strlen(s);
        bool cut = len > QUOTE_MAX;
        if (cut) {
                len = QUOTE_MAX;
                while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
                        len--;
        }
        snprintf(buf, size, "\"%.*s%s\"", (int)len, s, cut ? "..." : "");
        return buf;
}
#define QBUF (QUOTE_MAX + 8)

/* The first control character in S (C0, DEL, or C1 as UTF-8), or -1. */
static int first_control(const char *str) {
        for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
                if (*s < 0x20 || *s == 0x7f)
                        return *s;
                if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
                        return s[1];
        }
        return -1;
}

/* ------------------------------------------------------------------ */
/* Where the note lies                                                 */

static bool covers(uint64_t off, uint64_t size, const pkgnote_note *n) {
        return n->offset >= off && n->offset - off < size;
}

static const pkgnote_phdr *note_segment(struct lint *l, const pkgnote_note *n) {
        for (int i = 0; i < l->n_ph; i++)
                if (l->ph[i].type == PT_NOTE && covers(l->ph[i].offset, l->ph[i].filesz, n))
                        return &l->ph[i];
        return NULL;
}

static const pkgnote_shdr *note_section(struct lint *l, const pkgnote_note *n) {
        for (int i = 0; i < l->n_sh; i++)
                if (l->sh[i].type == SHT_NOTE && covers(l->sh[i].offset, l->sh[i].size, n))
                        return &l->sh[i];
        return NULL;
}

/* gABI "Note Section": 4-byte alignment for 32- and 64-bit objects alike.
 * Readers pad notes by their region's alignment; 8 (GNU property notes)
 * changes the padding and others are refused (readelf: "expecting 4 or
 * 8"), so only 0..4 keep a package note readable. */
static void check_align(struct lint *l, const pkgnote_note *n, const char *what, const char *name,
                        uint64_t align, bool need_four) {
        if (need_four ? align == 4 : align <= 4 && align != 3)
                return;
        report(l, C_MISALIGNED, n->offset, "%s%s%s holding the note at 0x%llx has alignment %llu; a package note needs 4%s",
               what, name ? " " : "", name ? name : "", (unsigned long long)n->offset, (unsigned long long)align,
               align == 8 ? " (readers pad notes in 8-aligned regions to 8 bytes)" : "");
}

static void check_linked_layout(struct lint *l, const pkgnote_note *n, const pkgnote_shdr *sec) {
        unsigned long long off = (unsigned long long)n->offset;
        const pkgnote_phdr *seg = note_segment(l, n);
        if (!(n->where & PKGNOTE_NOTE_IN_SEGMENT) && seg) {
                /* Covered, but walking the segment did not reach it: a
                 * region with 8-byte alignment holding 4-byte notes. */
                report(l, C_MISALIGNED, n->offset,
                       "the PT_NOTE segment at 0x%llx (alignment %llu) covers the note at 0x%llx, but readers walking the segment lose their way before it%s",
                       (unsigned long long)seg->offset, (unsigned long long)seg->align, off,
                       seg->align == 8 ? ": 4-byte aligned notes share it with 8-byte aligned ones" : "");
                return;
        }
        if (!(n->where & PKGNOTE_NOTE_IN_SEGMENT)) {
                report(l, C_NOT_IN_PT_NOTE, n->offset,
                       "note at 0x%llx is only in section %s, which no PT_NOTE segment covers: core dumps, running processes and files with stripped section headers do not show it",
                       off, sec && *sec->name ? sec->name : "(unnamed)");
                return;
        }
        if (n->offset % 4)
                report(l, C_MISALIGNED, n->offset, "note at 0x%llx does not start on a 4-byte boundary", off);
        if (seg)
                check_align(l, n, "PT_NOTE segment", NULL, seg->align, false);
        if (sec)
                check_align(l, n, "section", *sec->name ? sec->name : NULL, sec->align, false);
        if (!(n->where & PKGNOTE_NOTE_LOADED)) {
                report(l, C_NOT_LOADED, n->offset,
                       "the PT_NOTE segment holding the note at 0x%llx lies outside every PT_LOAD: the note is not in memory, so core dumps cannot carry it",
                       off);
                return;
        }
        uint64_t end = n->offset + n->size;
        uint64_t ph_end = l->e->phoff + (uint64_t)l->e->phnum * l->e->phentsize;
        bool mapped = false;
        for (int i = 0; i < l->n_ph; i++)
                if (l->ph[i].type == PT_LOAD && l->ph[i].offset < PN_FIRST_PAGE && l->ph[i].filesz > 0)
                        mapped = true;
        if (end > PN_FIRST_PAGE)
                report(l, C_NOT_IN_FIRST_PAGE, n->offset,
                       "note at 0x%llx ends at 0x%llx, past the first %u bytes of the file: a kernel core dump keeps only the first page of each mapped file, so cores will not carry it",
                       off, (unsigned long long)end, PN_FIRST_PAGE);
        else if (ph_end > PN_FIRST_PAGE)
                report(l, C_NOT_IN_FIRST_PAGE, n->offset,
                       "program headers end at 0x%llx, past the first %u bytes of the file: a core dump keeps only the first page, so readers cannot find the note at 0x%llx there",
                       (unsigned long long)ph_end, PN_FIRST_PAGE, off);
        else if (!mapped)
                report(l, C_NOT_IN_FIRST_PAGE, n->offset,
                       "no PT_LOAD maps the first page of the file, so core dumps do not carry the note at 0x%llx",
                       off);
}

/* A relocatable object has no segments: the section must be set up so
 * that the linker puts it into the first PT_LOAD and a PT_NOTE. */
static void check_rel_layout(struct lint *l, const pkgnote_note *n, const pkgnote_shdr *sec) {
        if (!sec)
                return;
        const char *name = *sec->name ? sec->name : "(unnamed)";
        if (!(sec->flags & SHF_ALLOC))
                report(l, C_NOT_LOADED, n->offset,
                       "section %s is not allocated (SHF_ALLOC): linking leaves it out of the loaded image and out of PT_NOTE",
                       name);
        check_align(l, n, "section", *sec->name ? sec->name : NULL, sec->align, true);
}

/* ------------------------------------------------------------------ */
/* The descriptor                                                      */

static const char *json_kind(const json_t *v) {
        switch (json_typeof(v)) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "an array";
        case JSON_STRING: return "a string";
        case JSON_INTEGER:
        case JSON_REAL: return "a number";
        case JSON_TRUE:
        case JSON_FALSE: return "a boolean";
        default: return "null";
        }
}

/* Raw control characters inside strings make the JSON invalid (RFC 8259
 * section 7); finding them here gives a precise message.  Returns the
 * byte offset or LEN. */
static size_t raw_control_at(const char *s, size_t len) {
        bool in_string = false;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];
                if (!in_string) {
                        if (c == '"')
                                in_string = true;
                } else if (c < 0x20)
                        return i;
                else if (c == '\\')
                        i++;
                else if (c == '"')
                        in_string = false;
        }
        return len;
}

struct control_walk {
        const char *where; /* top-level key whose value holds it, NULL for a top-level key */
        const char *str;   /* the first offending string */
        bool is_key;
        int ch;
        size_t count;
};

static void walk_controls(const json_t *v, const char *top, struct control_walk *w) {
        int ch;
        if (json_is_string(v)) {
                if ((ch = first_control(json_string_value(v))) >= 0 && w->count++ == 0)
                        *w = (struct control_walk){top, json_string_value(v), false, ch, 1};
        } else if (json_is_array(v)) {
                for (size_t i = 0; i < json_array_size(v); i++)
                        walk_controls(json_array_get(v, i), top, w);
        } else if (json_is_object(v)) {
                const char *k;
                json_t *x;
                json_object_foreach((json_t *)v, k, x) {
                        if ((ch = first_control(k)) >= 0 && w->count++ == 0)
                                *w = (struct control_walk){top, k, true, ch, 1};
                        walk_controls(x, top ? top : k, w);
                }
        }
}

/* Lower-case letters and digits only, for comparing key spellings. */
static void fold_key(const char *k, char *out, size_t size) {
        size_t o = 0;
        for (; *k && o + 1 < size; k++) {
                char c = *k;
                if (c >= 'A' && c <= 'Z')
                        out[o++] = (char)(c - 'A' + 'a');
                else if (pn_ascii_alnum(c))
                        out[o++] = c;
                else if (c != '_' && c != '-' && c != ' ' && c != '.')
                        out[o++] = c;
        }
        out[o] = 0;
}

/* os-release(5): ID and VERSION_ID use 0-9, a-z, '.', '_' and '-'. */
static bool os_release_word(const char *s) {
        for (; *s; s++)
                if (!(pn_ascii_digit(*s) || (*s >= 'a' && *s <= 'z') || *s == '.' || *s == '_' || *s == '-'))
                        return false;
        return true;
}

static void check_os_release(struct lint *l, uint64_t off, const char *key, const char *field, const char *v) {
        if (os_release_word(v))
                return;
        char q[QBUF], low[QUOTE_MAX + 1];
        size_t i = 0;
        for (; v[i] && i < QUOTE_MAX; i++)
                low[i] = v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] - 'A' + 'a') : v[i];
        low[i] = 0;
        if (!v[i] && os_release_word(low))
                report(l, C_BAD_OS_RELEASE, off,
                       "%s %s is not in os-release %s syntax (lower case, digits, '.', '_', '-'): use \"%s\"", key,
                       quote(q, sizeof q, v), field, low);
        else
                report(l, C_BAD_OS_RELEASE, off,
                       "%s %s is not in os-release %s syntax (lower case, digits, '.', '_', '-')", key,
                       quote(q, sizeof q, v), field);
}

static void check_cpe(struct lint *l, uint64_t off, const char *key, const char *v, char want) {
        char q[QBUF];
        int r = pkgnote_cpe_check(v);
        if (r < 0) {
                report(l, C_BAD_CPE, off, "%s %s is not a CPE name: %s", key, quote(q, sizeof q, v),
                       pkgnote_last_error());
                return;
        }
        if (r == PKGNOTE_CPE_FS_SHORT)
                report(l, C_SHORT_CPE, off,
                       "%s %s leaves out trailing components: a CPE 2.3 formatted string has 11, and strict parsers reject fewer; fill them with '*'",
                       key, quote(q, sizeof q, v));
        char part = v[r == PKGNOTE_CPE_URI ? 5 : 8];
        if (part >= 'A' && part <= 'Z')
                part = (char)(part - 'A' + 'a');
        if (part == 'a' || part == 'o' || part == 'h') {
                if (part != want)
                        report(l, C_CPE_PART, off, "%s %s has part '%c'; %s names %s ('%c')", key,
                               quote(q, sizeof q, v), part, key,
                               want == 'o' ? "an operating system" : "an application", want);
        }
}

static void check_url(struct lint *l, uint64_t off, const char *v) {
        const char *rest = !strncmp(v, "https://", 8) ? v + 8 : !strncmp(v, "http://", 7) ? v + 7 : NULL;
        char q[QBUF];
        if (!rest || !*rest || *rest == '/' || strpbrk(v, " \t"))
                report(l, C_BAD_URL, off, "debugInfoUrl %s is not an http:// or https:// URL of a debuginfod server",
                       quote(q, sizeof q, v));
}

static const char *const known_types[] = {
        "rpm", "deb", "apk", "alpm", "ebuild", "nix", "pkg", "ipk", "opkg", "xbps",
        "pkgsrc", "conda", "flatpak", "snap", "swupd", "tazpkg", "eopkg", "pisi",
};

static void check_type(struct lint *l, uint64_t off, const char *v) {
        char q[QBUF];
        for (size_t i = 0; i < ELEMENTSOF(known_types); i++) {
                if (!strcmp(v, known_types[i]))
                        return;
                if (!strcasecmp(v, known_types[i])) {
                        report(l, C_UNKNOWN_TYPE, off, "type %s should be \"%s\"", quote(q, sizeof q, v), known_types[i]);
                        return;
                }
        }
        report(l, C_UNKNOWN_TYPE, off,
               "type %s is not a known packaging format (rpm, deb, apk, alpm, ...); readers use it as the namespace of name and version",
               quote(q, sizeof q, v));
}

/* The note names the OS it was built for; the build root's os-release
 * says which that is.  A bootstrap that carries over another
 * distribution's os-release (or pkgnote options) names the wrong one.
 * Only what both state is compared. */
static void check_against_os_release(struct lint *l, uint64_t off, const json_t *obj) {
        static const struct {
                const char *key, *field;
        } pairs[] = {
                {PKGNOTE_KEY_OS, "ID"},
                {PKGNOTE_KEY_OS_VERSION, "VERSION_ID"},
                {PKGNOTE_KEY_OS_CPE, "CPE_NAME"},
        };
        char q[QBUF], q2[QBUF];
        for (size_t i = 0; i < ELEMENTSOF(pairs); i++) {
                const char *v = json_string_value(json_object_get(obj, pairs[i].key));
                const char *want = pkgnote_os_release_get(l->osr, pairs[i].field);
                if (v && want && *want && strcmp(v, want))
                        report(l, C_OS_RELEASE_MISMATCH, off, "%s is %s, but the build root's os-release has %s=%s",
                               pairs[i].key, quote(q, sizeof q, v), pairs[i].field, quote(q2, sizeof q2, want));
        }
}

static void check_object(struct lint *l, const pkgnote_note *n, const json_t *obj) {
        char q[QBUF], q2[QBUF];
        uint64_t off = n->offset;

        struct control_walk w = {0};
        walk_controls(obj, NULL, &w);
        const char *more = w.count > 1 ? ", and other strings do too" : "";
        if (w.count > 0 && !w.where)
                report(l, C_CONTROL_CHARACTER, off, "key %s contains control character U+%04X%s",
                       quote(q, sizeof q, w.str), (unsigned)w.ch, more);
        else if (w.count > 0)
                report(l, C_CONTROL_CHARACTER, off, "%s %s in the value of %s contains control character U+%04X%s",
                       w.is_key ? "key" : "string", quote(q, sizeof q, w.str), quote(q2, sizeof q2, w.where),
                       (unsigned)w.ch, more);

        for (const char *const *k = pkgnote_metadata_known_keys(); *k; k++) {
                const json_t *v = json_object_get(obj, *k);
                if (!v)
                        continue;
                if (!json_is_string(v)) {
                        report(l, C_NOT_STRING, off, "well-known key \"%s\" holds %s, not a string", *k, json_kind(v));
                        continue;
                }
                const char *s = json_string_value(v);
                if (!*s) {
                        report(l, C_EMPTY_VALUE, off, "well-known key \"%s\" is empty; leave it out instead", *k);
                        continue;
                }
                if (!strcmp(*k, PKGNOTE_KEY_TYPE))
                        check_type(l, off, s);
                else if (!strcmp(*k, PKGNOTE_KEY_OS))
                        check_os_release(l, off, *k, "ID", s);
                else if (!strcmp(*k, PKGNOTE_KEY_OS_VERSION))
                        check_os_release(l, off, *k, "VERSION_ID", s);
                else if (!strcmp(*k, PKGNOTE_KEY_OS_CPE))
                        check_cpe(l, off, *k, s, 'o');
                else if (!strcmp(*k, PKGNOTE_KEY_APP_CPE))
                        check_cpe(l, off, *k, s, 'a');
                else if (!strcmp(*k, PKGNOTE_KEY_DEBUG_INFO_URL))
                        check_url(l, off, s);
        }
        if (l->osr)
                check_against_os_release(l, off, obj);

        const char *key;
        json_t *x;
        json_object_foreach((json_t *)obj, key, x) {
                char fk[32], fw[32];
                bool known = false;
                const char *like = NULL;
                fold_key(key, fk, sizeof fk);
                for (const char *const *k = pkgnote_metadata_known_keys(); *k; k++) {
                        if (!strcmp(key, *k)) {
                                known = true;
                                break;
                        }
                        fold_key(*k, fw, sizeof fw);
                        if (!like && strlen(key) < sizeof fk && !strcmp(fk, fw))
                                like = *k;
                }
                if (!known && like)
                        report(l, C_MISSPELLED_KEY, off,
                               "key %s looks like the well-known key \"%s\"; readers look for the exact name",
                               quote(q2, sizeof q2, key), like);
        }
}

/* The descriptor text: bytes up to the first NUL, or all when none. */
static size_t desc_text_len(const pkgnote_note *n) {
        const uint8_t *nul = memchr(n->desc, 0, n->descsz);
        return nul ? (size_t)(nul - n->desc) : n->descsz;
}

static void check_descriptor(struct lint *l, const pkgnote_note *n) {
        uint64_t off = n->offset;
        const uint8_t *nul = memchr(n->desc, 0, n->descsz);
        if (!nul) {
                report(l, C_NO_NUL, off, n->descsz ? "descriptor of %u bytes has no terminating NUL"
                                                   : "descriptor is empty (%u bytes): no JSON object, no NUL",
                       n->descsz);
                return;
        }
        for (const uint8_t *p = nul; p < n->desc + n->descsz; p++)
                if (*p) {
                        report(l, C_TRAILING_DATA, off,
                               "descriptor has non-NUL bytes after its terminating NUL, at offset %zu of %u",
                               (size_t)(p - n->desc), n->descsz);
                        break;
                }
        const char *text = (const char *)n->desc;
        size_t len = (size_t)(nul - n->desc);
        if (len > PKGNOTE_MAX_JSON) {
                report(l, C_TOO_LARGE, off, "descriptor holds %zu bytes of JSON, more than the %u this reader checks", len,
                       PKGNOTE_MAX_JSON);
                return;
        }
        if (n->descsz > LARGE_NOTE)
                report(l, C_LARGE_NOTE, off,
                       "descriptor is %u bytes, over %u: notes share the first page of the file with the headers, and core dumps keep only that page",
                       n->descsz, LARGE_NOTE);
        if (len == 0) {
                report(l, C_BAD_JSON, off, "descriptor is an empty string, not a JSON object");
                return;
        }
        size_t bad = pn_utf8_invalid_at(text, len);
        if (bad < len) {
                report(l, C_BAD_UTF8, off, "descriptor is not valid UTF-8 (byte %zu)", bad);
                return;
        }
        bad = raw_control_at(text, len);
        if (bad < len) {
                report(l, C_CONTROL_CHARACTER, off, "a string holds raw control character 0x%02x at byte %zu",
                       (unsigned char)text[bad], bad);
                return;
        }

        json_t *v;
        int r = pn_json_load(text, len, &v);
        if (r == -E2BIG) {
                report(l, C_TOO_LARGE, off, "%s", pkgnote_last_error());
                return;
        }
        if (r < 0) {
                /* Tell duplicate names and top-level scalars from broken JSON. */
                json_error_t jerr;
                char why[256];
                snprintf(why, sizeof why, "%s", pkgnote_last_error());
                v = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
                if (!v) {
                        report(l, C_BAD_JSON, off, "%s", why);
                        return;
                }
                if (json_is_object(v))
                        report(l, C_DUPLICATE_KEY, off, "names must be unique: %s", why);
        }
        if (!json_is_object(v)) {
                report(l, C_JSON_NOT_OBJECT, off, "descriptor is %s, not a JSON object", json_kind(v));
                json_decref(v);
                return;
        }

        /* UAPI.8: strings are raw UTF-8, never \u escapes (a \" or \\ is fine). */
        size_t escapes = 0, first = 0;
        for (size_t i = 0; i + 1 < len; i++)
                if (text[i] == '\\') {
                        if (text[i + 1] == 'u' && escapes++ == 0)
                                first = i;
                        i++;
                }
        if (escapes)
                report(l, C_UNICODE_ESCAPE, off, "uses %zu \\u escape%s (the first at byte %zu); write raw UTF-8 instead",
                       escapes, escapes > 1 ? "s" : "", first);

        check_object(l, n, v);
        json_decref(v);
}

/* ------------------------------------------------------------------ */
/* The object                                                          */

static bool is_owner(const pkgnote_note *n, const char *owner) {
        size_t len = strlen(owner) + 1;
        return n->namesz == len && memcmp(n->name, owner, len) == 0;
}

/* The owner for a message, without quoting bytes that need escaping. */
static void describe_owner(const pkgnote_note *n, char *buf, size_t size) {
        if (n->namesz == 3 && !memcmp(n->name, "FDO", 3)) {
                snprintf(buf, size, "owner \"FDO\" without its terminating NUL (namesz 3, must be 4)");
                return;
        }
        bool printable = n->namesz > 0 && n->namesz <= 32 && n->name[n->namesz - 1] == 0;
        for (uint32_t i = 0; printable && i + 1 < n->namesz; i++)
                printable = n->name[i] >= 0x20 && n->name[i] < 0x7f && n->name[i] != '"' && n->name[i] != '\\';
        if (printable)
                snprintf(buf, size, "owner \"%s\"", n->name);
        else
                snprintf(buf, size, "an owner of %u bytes that is not a printable NUL-terminated name", n->namesz);
}

static bool in_package_section(const pkgnote_note *n) {
        return n->section && !strcmp(n->section, PACKAGE_SECTION);
}

static void check_other_note(struct lint *l, const pkgnote_note *n) {
        char owner[96];
        unsigned long long off = (unsigned long long)n->offset;
        if (n->type == PKGNOTE_NT_FDO_PACKAGING_METADATA) {
                /* Note types are per owner, but this one is unmistakable. */
                describe_owner(n, owner, sizeof owner);
                report(l, C_BAD_OWNER, n->offset,
                       "note at 0x%llx has the package note type 0xcafe1a7e but %s; readers want owner \"FDO\"",
                       off, owner);
        } else if (is_owner(n, PKGNOTE_OWNER_FDO) && n->type != PKGNOTE_NT_FDO_DLOPEN_METADATA)
                report(l, C_BAD_TYPE, n->offset,
                       "note at 0x%llx has owner \"FDO\" and type 0x%x, which the spec does not define; the package note type is 0xcafe1a7e",
                       off, n->type);
        else if (in_package_section(n)) {
                describe_owner(n, owner, sizeof owner);
                report(l, C_UNEXPECTED_NOTE, n->offset,
                       "section .note.package holds a note at 0x%llx with %s and type 0x%x, which is not a package note",
                       off, owner, n->type);
        }
}

struct dlopen_report {
        struct lint *l;
        const pkgnote_note *n;
};
static void report_dlopen_problem(void *u, int error, const char *message) {
        (void)error;
        struct dlopen_report *r = u;
        report(r->l, C_BAD_DLOPEN, r->n->offset, "dlopen note at 0x%llx: %s", (unsigned long long)r->n->offset, message);
}

/* A dlopen note as packaging tools read it (pkgnote deps, rpm and Debian
 * generators): every problem pkgnote_dlopen_check() finds. */
static void check_dlopen(struct lint *l, const pkgnote_note *n) {
        const char *json;
        size_t len;
        pkgnote_dlopen *d;
        if (pkgnote_note_json(n, &json, &len) < 0 || pkgnote_dlopen_parse(json, len, &d) < 0) {
                report(l, C_BAD_DLOPEN, n->offset, "dlopen note at 0x%llx: %s", (unsigned long long)n->offset,
                       pkgnote_last_error());
                return;
        }
        struct dlopen_report r = {l, n};
        pkgnote_dlopen_check(d, report_dlopen_problem, &r);
        pkgnote_dlopen_free(d);
}

/* A note object (relocatable, a package note, no code) for a target whose
 * linkers AND-merge GNU_PROPERTY_*_FEATURE_1_AND must claim the features
 * itself, or every program linked with it loses them.  A linked binary
 * keeps no record of which input cleared a property, so only the object
 * can be judged. */
static void check_note_object_properties(struct lint *l, const pkgnote_note *notes, int c) {
        unsigned machine = pkgnote_object_machine(l->e);
        bool is64 = pkgnote_object_class(l->e) == 64, be = pkgnote_object_big_endian(l->e);
        uint32_t type, need;
        const char *what;
        if (machine == EM_X86_64 || machine == EM_386) {
                type = GNU_PROPERTY_X86_FEATURE_1_AND;
                need = GNU_PROPERTY_X86_FEATURE_1_IBT | GNU_PROPERTY_X86_FEATURE_1_SHSTK;
                what = "GNU_PROPERTY_X86_FEATURE_1_AND with IBT and SHSTK";
        } else if (machine == EM_AARCH64 && is64) {
                type = GNU_PROPERTY_AARCH64_FEATURE_1_AND;
                need = GNU_PROPERTY_AARCH64_FEATURE_1_BTI | GNU_PROPERTY_AARCH64_FEATURE_1_PAC;
                what = "GNU_PROPERTY_AARCH64_FEATURE_1_AND with BTI and PAC";
        } else
                return;
        for (int i = 0; i < l->n_sh; i++)
                if (l->sh[i].flags & SHF_EXECINSTR)
                        return; /* code: its marks are its compiler's business */
        for (int i = 0; i < c; i++) {
                const pkgnote_note *n = &notes[i];
                if (!is_owner(n, "GNU") || n->type != NT_GNU_PROPERTY_TYPE_0)
                        continue;
                /* gABI: pr_type, pr_datasz, data padded to the word. */
                size_t step = is64 ? 8 : 4;
                for (size_t p = 0; p + 8 <= n->descsz;) {
                        uint32_t pt = pn_rd32(n->desc + p, be), sz = pn_rd32(n->desc + p + 4, be);
                        if (sz > n->descsz - p - 8)
                                break;
                        if (pt == type && sz == 4 && (pn_rd32(n->desc + p + 8, be) & need) == need)
                                return;
                        p += ALIGN_UP(8 + (size_t)sz, step);
                }
        }
        report(l, C_DROPS_HARDENING, PKGNOTE_LINT_NO_OFFSET,
               "note object without %s: linkers AND-merge it, so every program linked with this object loses them (make it with 'pkgnote generate --format object' or '--format asm')",
               what);
}

/* dlopen() of libraries no note declares, with the names as evidence. */
static void check_undeclared_dlopen(struct lint *l) {
        char **names;
        size_t n;
        if (pn_undeclared_dlopen(l->e, &names, &n) <= 0)
                return;
        char list[1024];
        size_t at = 0;
        list[0] = '\0';
        for (size_t i = 0; i < n && at < sizeof list; i++) {
                int w = snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
                at += w > 0 ? (size_t)w : 0;
        }
        report(l, C_UNDECLARED_DLOPEN, PKGNOTE_LINT_NO_OFFSET,
               "imports dlopen and names %s, which no dlopen note declares (declare them: pkgnote generate --dlopen)", list);
        pn_free_strv(names, n);
}

/* A PE image (UAPI.8 "PE/COFF section"): one .pkgnote section, of
 * allocated, read-only, initialized data (IMAGE_SCN_CNT_INITIALIZED_DATA,
 * readable; not written, executed or discarded after loading), holding
 * the JSON under the same rules as the ELF note's descriptor. */
static int lint_pe(struct lint *l) {
        const pkgnote_note *notes;
        int c = pn_object_notes(l->e, &notes);
        if (c < 0)
                return c;
        for (size_t i = 0; i < pkgnote_object_problem_count(l->e); i++)
                report(l, C_MALFORMED_NOTE, PKGNOTE_LINT_NO_OFFSET, "%s", pkgnote_object_problem(l->e, i)->message);
        if (c > 1)
                report(l, C_PE_MULTIPLE_SECTIONS, notes[1].offset, "%d .pkgnote sections; readers take the first", c);
        const uint32_t want = PN_SCN_CNT_INITIALIZED_DATA | PN_SCN_MEM_READ;
        const uint32_t unwanted = PN_SCN_CNT_CODE | PN_SCN_CNT_UNINITIALIZED_DATA | PN_SCN_MEM_EXECUTE |
                                  PN_SCN_MEM_WRITE | PN_SCN_MEM_DISCARDABLE;
        for (int i = 0; i < c; i++) {
                uint32_t flags = 0;
                for (size_t k = 0; pkgnote_pe_section(l->e, k, NULL, NULL, NULL, NULL) > 0; k++) {
                        uint64_t off;
                        if (pkgnote_pe_section(l->e, k, NULL, &off, NULL, &flags) > 0 && off == notes[i].offset)
                                break;
                }
                if ((flags & want) != want || (flags & unwanted))
                        report(l, C_PE_SECTION_FLAGS, notes[i].offset,
                               "section .pkgnote has flags 0x%08x: want initialized data (0x40) and read (0x40000000), without code, write, execute or discardable",
                               flags);
                if (i == 0)
                        check_descriptor(l, &notes[i]);
        }
        if (c == 0)
                report(l, C_NO_PACKAGE_NOTE, PKGNOTE_LINT_NO_OFFSET, "no .pkgnote section");
        return l->errors;
}

PKGNOTE_PUBLIC int pkgnote_lint(pkgnote_object *e, pkgnote_lint_fn fn, void *userdata) {
        return pkgnote_lint_os_release(e, NULL, fn, userdata);
}

PKGNOTE_PUBLIC int pkgnote_lint_os_release(pkgnote_object *e, const pkgnote_os_release *osr, pkgnote_lint_fn fn,
                                           void *userdata) {
        struct lint l = {.e = e, .fn = fn, .userdata = userdata, .osr = osr};
        if (pkgnote_object_is_pe(e))
                return lint_pe(&l);
        unsigned type = pkgnote_object_type(e);
        if (type != ET_REL && type != ET_EXEC && type != ET_DYN) {
                const char *name = pkgnote_object_type_name(type);
                if (name)
                        report(&l, C_UNSUPPORTED_TYPE, PKGNOTE_LINT_NO_OFFSET,
                               "ELF type %s: only executables, shared objects and relocatable objects are checked", name);
                else
                        report(&l, C_UNSUPPORTED_TYPE, PKGNOTE_LINT_NO_OFFSET,
                               "ELF type 0x%x: only executables, shared objects and relocatable objects are checked", type);
                return 0;
        }

        const pkgnote_note *notes;
        int c = pn_object_notes(e, &notes);
        if (c < 0)
                return c;
        l.n_ph = pn_object_phdrs(e, &l.ph);
        l.n_sh = pn_object_shdrs(e, &l.sh);
        if (l.n_sh < 0)
                l.n_sh = 0; /* already recorded as a problem by the note walk */

        for (size_t i = 0; i < pkgnote_object_problem_count(e); i++)
                if (pkgnote_object_problem(e, i)->error == -ENOMEM)
                        return -ENOMEM; /* the reading failed, not the file */
        for (size_t i = 0; i < pkgnote_object_problem_count(e); i++)
                report(&l, C_MALFORMED_NOTE, PKGNOTE_LINT_NO_OFFSET, "%s", pkgnote_object_problem(e, i)->message);
        /* A separate debug file: its segments are the stripped file's, so
         * where its notes would be loaded cannot be judged from it. */
        bool debug_file = pkgnote_object_notes_warning(e) != NULL;
        if (debug_file)
                report(&l, C_DEBUG_FILE, PKGNOTE_LINT_NO_OFFSET, "%s", pkgnote_object_notes_warning(e));

        bool package_section = false;
        for (int i = 0; i < l.n_sh; i++) {
                if (strcmp(l.sh[i].name, PACKAGE_SECTION))
                        continue;
                package_section = true;
                if (l.sh[i].type != SHT_NOTE)
                        report(&l, C_SECTION_NOT_NOTE, PKGNOTE_LINT_NO_OFFSET,
                               "section .note.package has type 0x%x, not SHT_NOTE (7): readers that look for notes do not see it",
                               l.sh[i].type);
        }

        const pkgnote_note *first = NULL;
        for (int i = 0; i < c; i++) {
                const pkgnote_note *n = &notes[i];
                if (pkgnote_note_is(n, PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA)) {
                        check_dlopen(&l, n);
                        continue;
                }
                if (!pkgnote_note_is(n, PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA)) {
                        check_other_note(&l, n);
                        continue;
                }
                const pkgnote_shdr *sec = note_section(&l, n);
                if (type == ET_REL)
                        check_rel_layout(&l, n, sec);
                else if (!debug_file)
                        check_linked_layout(&l, n, sec);

                /* Compare with the earlier package notes: an identical copy
                 * is checked once, a differing one is checked and flagged. */
                size_t len = desc_text_len(n);
                const pkgnote_note *same = NULL;
                for (int j = 0; j < i && !same; j++) {
                        const pkgnote_note *m = &notes[j];
                        if (pkgnote_note_is(m, PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_PACKAGING_METADATA) &&
                            desc_text_len(m) == len && !memcmp(m->desc, n->desc, len))
                                same = m;
                }
                if (same) {
                        report(&l, C_DUPLICATE_NOTE, n->offset,
                               "note at 0x%llx repeats the package note at 0x%llx; usually an object linked in brought its own",
                               (unsigned long long)n->offset, (unsigned long long)same->offset);
                        continue;
                }
                if (first)
                        report(&l, C_MULTIPLE_NOTES, n->offset,
                               "package note at 0x%llx differs from the one at 0x%llx; readers take the first and most ignore the rest",
                               (unsigned long long)n->offset, (unsigned long long)first->offset);
                else
                        first = n;
                check_descriptor(&l, n);
        }

        if (!first)
                report(&l, C_NO_PACKAGE_NOTE, PKGNOTE_LINT_NO_OFFSET,
                       package_section ? "section .note.package holds no package note (owner \"FDO\", type 0xcafe1a7e)"
                                       : "no package note (owner \"FDO\", type 0xcafe1a7e)");
        if (type == ET_REL && first)
                check_note_object_properties(&l, notes, c);
        if (type != ET_REL) {
                const uint8_t *id;
                size_t id_len;
                if (pkgnote_object_build_id(e, &id, &id_len) <= 0)
                        report(&l, C_NO_BUILD_ID, PKGNOTE_LINT_NO_OFFSET,
                               "no GNU build-id note: core dump readers match modules to files and debug info by it (link with --build-id)");
        }
        if (type != ET_REL && !debug_file)
                check_undeclared_dlopen(&l);
        return l.errors;
}
