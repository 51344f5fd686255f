/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The message of the last failure (shared/message.c), per thread.  Each
 * program linking this library has its own: in libpkgnote it is what
 * pkgnote_last_error() returns; a command linked with libpkgnote.so
 * reads the library's failures there, and those of these helpers
 * (output.h) in pn_last_error().
 */
#ifndef PN_SHARED_MESSAGE_H
#define PN_SHARED_MESSAGE_H

#include <errno.h>

/* Records a formatted reason, escaped (escape.h), and returns ERR (a
 * negative errno), so failures read: return pn_error(-EBADMSG, "...").  */
int pn_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pn_error_clear(void);
/* How many reasons this thread recorded so far (it wraps around). */
unsigned pn_error_generation(void);
/* The last reason recorded in this thread ("" when none). */
const char *pn_last_error(void);

/* -ENOMEM with the message pn_out_of_memory: every allocation failure,
 * jansson's and strdup()'s included, returns through it; problems of a
 * scan or core quote the text as "%s". */
int pn_oom(void);
extern const char pn_out_of_memory[];

#endif
