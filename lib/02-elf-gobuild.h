/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The build information the Go linker writes into every Go program
 * (lib/02-elf-gobuild.c): the toolchain's version, the main package and
 * module, every dependency module with its version, checksum and
 * replacement, and the build settings, as `go version -m` prints them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "01-base.h"

/* Bytes of module text read, lines and modules kept, settings kept. */
#define PN_GO_MAX_MODINFO (4u << 20)
#define PN_GO_MAX_VERSION 256u
#define PN_GO_MAX_MODULES 65535u /* dependencies: with the main module, PKGNOTE_MAX_COMPONENTS */
#define PN_GO_MAX_SETTINGS 4096u

/* What a reader of a stream keeps for the build information
 * (lib/09-scan-capture.c): the blob starts with PN_GO_MAGIC, at a multiple
 * of 16 bytes of address within the first PN_GO_SEARCH bytes of a
 * writable segment (as the reader here searches), and is at most
 * PN_GO_MAX_BLOB bytes (its header, two varints and the two strings the
 * reader accepts). */
#define PN_GO_MAGIC "\xff Go buildinf:"
#define PN_GO_MAGIC_LEN 14u
#define PN_GO_HEADER 32u
#define PN_GO_SEARCH (64u << 10)
#define PN_GO_MAX_BLOB (PN_GO_HEADER + 20u + PN_GO_MAX_VERSION + PN_GO_MAX_MODINFO + 32u)
#define PN_GO_MAX_SEGMENTS 8u /* writable segments searched */

/* One module: its path, version ("(devel)" for the main module built from
 * its own tree) and go.sum checksum ("" when none), and what replaced it
 * (a replace directive: REPLACE set, its version empty for a directory). */
struct pn_go_module {
        char *path, *version, *sum;
        struct pn_go_module *replace;
};

struct pn_go_setting {
        char *key, *value;
};

struct pn_go_build {
        char *go_version; /* "go1.19.8" */
        bool inline_layout; /* the strings inline (Go 1.18 and later), else through pointers */
        int ptr_size;       /* 4 or 8 */
        bool big_endian;
        char *path;              /* the main package's import path, or NULL */
        struct pn_go_module main; /* MAIN.path NULL when the program was built outside a module */
        struct pn_go_module *deps;
        size_t n_deps;
        struct pn_go_setting *settings;
        size_t n_settings;
};

/* Reads the build information of the ELF object E: 1 with *B filled, 0
 * when E is no Go program (no ".go.buildinfo" section, or, without one,
 * no build information header in the first 64 KiB of any of its first 8
 * writable segments, searched in steps of 16 bytes), or a negative errno
 * with pn_error set (-EBADMSG: damaged; -E2BIG: over a limit; -ENODATA:
 * the bytes are not all there).  *B is empty on 0 and on failure. */
int pn_go_build_read(pkgnote_object *e, struct pn_go_build *b);

/* Parses the module text MOD (LEN bytes, the framing already taken off)
 * as Go's runtime/debug.ParseBuildInfo() does, into *B (its go_version
 * left alone): 0, or -EBADMSG / -E2BIG / -ENOMEM with pn_error set.  As
 * Go's: only lines ending in a newline are read; a build setting's key or
 * value that BuildInfo.String() would quote must be quoted; raw strings
 * drop carriage returns, and a byte beginning no UTF-8 sequence in a
 * "..." string is U+FFFD; an empty path or main module is none.  Unlike
 * Go's, a NUL byte in a line that is kept is refused. */
int pn_go_modinfo_parse(const char *mod, size_t len, struct pn_go_build *b);

/* The module text as `go version -m` prints it after its first line
 * (runtime/debug.BuildInfo.String() without its "go" line), malloc()ed,
 * or NULL (out of memory). */
char *pn_go_build_format(const struct pn_go_build *b);

void pn_go_build_done(struct pn_go_build *b);
