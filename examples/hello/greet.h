/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GREET_H
#define GREET_H

/* Writes a greeting for WHO to standard output; returns 0 on success. */
int greet(const char *who);

#endif
