/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one escaping of text from input before it is shown (shared/escape.c). */
#ifndef PN_SHARED_ESCAPE_H
#define PN_SHARED_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at S (AVAIL bytes there), or 0
 * (RFC 3629: no overlongs, surrogates or code points past U+10FFFF). */
size_t pn_utf8_char(const char *s, size_t avail);
/* Copies the LEN bytes at S into DST (CAP bytes, NUL-terminated when CAP
 * > 0) with C0, DEL and C1 control characters and bytes that are not
 * UTF-8 as \xNN, and with BACKSLASH, '\' as '\\' (unambiguous; messages
 * leave it, so that escaping twice changes nothing).  Stops before a
 * character that would not fit (a CAP of 5 always fits one); returns the
 * number of bytes of S consumed. */
size_t pn_escape(char *dst, size_t cap, const char *s, size_t len, bool backslash);

#endif
