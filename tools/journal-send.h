/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A message in journald's native protocol, sent without blocking. */
#ifndef PKGNOTE_JOURNAL_SEND_H
#define PKGNOTE_JOURNAL_SEND_H

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
/* The most a message may hold: a field that would pass it is left out. */
#define JOURNAL_MAX_MESSAGE (16u << 20)

struct journal_msg {
        char *buf;
        size_t len, cap;
        bool failed;  /* out of memory, or a field would pass the limit */
};

/* Adds FIELD=VALUE (LEN bytes, any bytes); a value holding a newline is
 * written in the binary-safe form.  FIELD must be a valid journal field
 * name (upper case, digits, '_', not starting with '_'). */
void journal_add(struct journal_msg *m, const char *field, const void *value, size_t len);
/* Adds the fields of FIELDS (whole, or none when over the limit). */
void journal_append(struct journal_msg *m, const struct journal_msg *fields);
void journal_add_string(struct journal_msg *m, const char *field, const char *value);
void journal_addf(struct journal_msg *m, const char *field, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Sends M to the journal at SOCKET_PATH as one datagram, or, when too
 * big for one, as a sealed memfd passed along; never blocks.  0, or a
 * negative errno (-ENOENT: no journal there). */
int journal_send(const struct journal_msg *m, const char *socket_path);
void journal_msg_free(struct journal_msg *m);

#endif
