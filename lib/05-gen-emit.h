/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Notes built from checked JSON (lib/05-gen-emit.c), for the linker, stamp and
 * generate paths alike. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The package note for JSON as pkgnote_package_note_encode() makes it,
 * after checking that JSON is one object a reader accepts and that holds
 * no control character (-EINVAL otherwise). */
int pn_package_note_checked(const char *json, int big_endian, uint8_t **note, size_t *note_len);

/* The dlopen note for JSON as pkgnote_dlopen_note_encode() makes it: JSON
 * checked as pkgnote_dlopen_check() does (-EINVAL with its first
 * complaint) and stripped of whitespace outside strings. */
int pn_dlopen_note_checked(const char *json, int big_endian, uint8_t **note, size_t *note_len);

/* S percent-encoded as every decoding linker reads the --package-metadata
 * argument back (pkgnote_linker_decodes_package_metadata()): letters,
 * digits and "-._~:/@+=" stay, every other byte (',' '%' '"' '{' '['
 * spaces, quotes, non-ASCII ...) becomes %XX with upper-case hex.  The
 * result needs no shell quoting and has no comma for -Wl, to split. */
int pn_percent_encode(const char *s, char **ret);
