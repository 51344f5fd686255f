/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crate list cargo-auditable writes into a Rust program
 * (lib/03-model-crates.c): every package of the build, with its version,
 * its source, whether it is a build-time or a run-time dependency, its
 * dependencies (as indices into the list) and which one is the program's
 * own (the root).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "01-base.h"

/* Bytes of the compressed section, and of the JSON it decompresses to
 * (cargo-auditable's own reader stops at 8 MiB of JSON: PARSING.md);
 * packages kept, dependency indices in all, bytes of a string. */
#define PN_CRATES_MAX_SECTION (8u << 20)
#define PN_CRATES_MAX_JSON (8u << 20)
#define PN_CRATES_MAX_CRATES 65536u
#define PN_CRATES_MAX_DEPS (1u << 20)
#define PN_CRATES_MAX_STRING 1024u

/* The section's name in ELF files (non-allocated: in no segment). */
#define PN_CRATES_SECTION ".dep-v0"

/* The sources the format names; any other string is PN_CRATE_SOURCE_OTHER
 * ("designed to be extensible": auditable-serde's Source::Other). */
enum pn_crate_source {
        PN_CRATE_SOURCE_CRATES_IO, /* "crates.io" */
        PN_CRATE_SOURCE_GIT,       /* "git" */
        PN_CRATE_SOURCE_LOCAL,     /* "local": a path dependency */
        PN_CRATE_SOURCE_REGISTRY,  /* "registry": an alternative registry */
        PN_CRATE_SOURCE_OTHER,
};

/* "runtime" (the default when "kind" is absent) or "build": a build script's
 * or procedural macro's dependency.  The format has no other kind (a
 * dev-dependency is never built into a program). */
enum pn_crate_kind { PN_CRATE_RUNTIME = 0, PN_CRATE_BUILD };

struct pn_crate {
        char *name, *version; /* version: semver, as written */
        char *source;         /* as written: "crates.io", "git", ... */
        enum pn_crate_source source_kind;
        enum pn_crate_kind kind;
        bool root;
        uint32_t *deps; /* indices into pn_crates.crates, as listed */
        size_t n_deps;
};

struct pn_crates {
        uint32_t format; /* the list's "format" (0 when absent) */
        struct pn_crate *crates;
        size_t n_crates;
        size_t root; /* index of the root crate, or SIZE_MAX when none is marked */
};

/* Reads the crate list of the ELF object E from its ".dep-v0" section: 1
 * with *C filled, 0 when E has no such section (also when its section
 * headers are gone, as in a core or a process: the section is in no
 * segment, so nothing else finds it; and for a PE image, whose section
 * table is not read here), or a negative errno with pn_error set
 * (-EBADMSG: damaged; -E2BIG: over a limit; -EOPNOTSUPP: a build without
 * zlib).  *C is empty on 0 and on failure.  binutils' strip keeps the
 * section; eu-strip and llvm-strip remove it (eu-strip -f moves it into
 * the separate debug file, where this reads it). */
int pn_crates_read(pkgnote_object *e, struct pn_crates *c);

/* Decompresses the section's bytes Z (ZLEN of them: one zlib stream, RFC
 * 1950) into *JSON (malloc()ed, *LEN bytes), stopping with -E2BIG past
 * PN_CRATES_MAX_JSON bytes: 0 or a negative errno with pn_error set. */
int pn_crates_inflate(const uint8_t *z, size_t zlen, uint8_t **json, size_t *len);

/* Parses the JSON (LEN bytes) as auditable-serde reads it: an object whose
 * "packages" is an array of objects with "name", "version" (semver) and
 * "source" strings, optional "kind" ("runtime" or "build"), "dependencies"
 * (indices of other packages) and "root" (a boolean); an optional
 * "format" (an unsigned 32-bit integer); unknown keys are ignored,
 * duplicate ones refused.  As auditable-serde's validation does, at most
 * one root and no cycle (a package depending on itself is one).  Stricter
 * than it, since the strings go into reports: none empty, none with a
 * control character, none over PN_CRATES_MAX_STRING bytes.  0, or
 * -EBADMSG / -E2BIG / -ENOMEM with pn_error set; *C empty on failure. */
int pn_crates_parse(const uint8_t *json, size_t len, struct pn_crates *c);

/* pn_crates_inflate() then pn_crates_parse(). */
int pn_crates_decode(const uint8_t *z, size_t zlen, struct pn_crates *c);

const char *pn_crate_kind_name(enum pn_crate_kind k);

void pn_crates_done(struct pn_crates *c);
