/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the pkgnote subcommands. */
#ifndef PKGNOTE_TOOL_H
#define PKGNOTE_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "pkgnote.h"

/* Exit codes shared by every subcommand. */
enum {
        EXIT_OK = 0,
        EXIT_NOTFOUND = 1, /* show: a file has no package note; lint: an error finding */
        EXIT_FAILURE_ = 2, /* unreadable, not ELF, malformed, bad usage */
};

int cmd_show(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_core(int argc, char **argv);
int cmd_pid(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_stamp(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_deps(int argc, char **argv);

/* "pkgnote: 'PATH': WHAT: REASON" on stderr.  REASON is the library's
 * detailed message when it has one, else strerror(-err).  Returns 2. */
int tool_error(const char *path, const char *what, int err);
/* The same after a failure of a helper of shared/ (output.h): REASON is
 * the command's own pn_last_error() when it has one, which is not the
 * library's when the command links libpkgnote.so. */
int tool_error_shared(const char *path, const char *what, int err);
/* The same with REASON given (a failure of the command's own, which the
 * library did not report). */
int tool_error_reason(const char *path, const char *what, const char *reason);
/* DATA (LEN bytes) to PATH ("-" or NULL: standard output) by the output
 * rule (shared/output.h, PN_OUT_FOLLOW and FLAGS): written whole, read
 * back, then renamed into place, or not at all.  EXIT_OK, or an exit code
 * after a message saying "WHAT" and why. */
int tool_write_output(const char *path, unsigned flags, const void *data, size_t len, const char *what);
/* "pkgnote: MESSAGE" on stderr, printf-style, escaped like the
 * library's messages (pn_escape(), shared/escape.h); returns 2. */
int tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* tool_fail() saying CMD ran out of memory (CMD NULL: no prefix): the
 * command's one message for an allocation failure of its own. */
int tool_oom(const char *cmd);
/* S as a number of bytes, with an optional K, M, G or T (powers of 1024). */
int tool_parse_size(const char *s, uint64_t *ret);

struct option;
/* getopt_long() whose messages about bad options are escaped
 * (tool_fail()). */
int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* Writes S to F with C0/DEL/C1 control characters and invalid UTF-8
 * shown as \xNN, so a hostile note cannot drive the terminal. */
void tool_print_escaped(FILE *f, const char *s);
/* Same, for LEN bytes that need not be NUL-terminated. */
void tool_print_escaped_n(FILE *f, const char *s, size_t len);

/* The running kernel as a report made on this machine has it ("kernel" of
 * pid --json: no modules, no package database; with FLAGS
 * PKGNOTE_KERNEL_NO_IMAGE, of pkgnote-coredump's entries), malloc()ed into
 * *RET: 0, or a negative errno (-ENOMEM, or pkgnote_last_error() says why)
 * with *RET NULL. */
int tool_kernel_json(unsigned flags, char **ret);

/* "pkgnote: 'PATH': MESSAGE, ignoring" on standard error, both escaped:
 * a problem that did not stop the command. */
void tool_warn_ignoring(const char *path, const char *message);

/* Writes *JSON, a line from one of the library's serializers, and a
 * newline to F, and frees it, when R (that serializer's return value) is
 * not negative.  Returns R. */
int tool_put_json(FILE *f, int r, char **json);
/* --format F: "text", "json" or "systemd" into the two flags; -1 (said). */
int tool_parse_format(const char *f, bool *json, bool *systemd);

/* SBOM options for COMMAND's document named NAME (may be NULL), with
 * SOURCE_DATE_EPOCH, when set, as the creation time and making the
 * namespace or serial number reproducible; -1 (said) when it is no
 * number of seconds. */
int tool_sbom_options(const char *command, const char *name, pkgnote_sbom_options *ret);
/* --cyclonedx-version V of COMMAND: "1.6", "1.7" or "1.5" as the
 * PKGNOTE_SBOM_CYCLONEDX_* format into *RET; -1 (said) for another. */
int tool_parse_cyclonedx_version(const char *command, const char *v, int *ret);

extern const char *program_name;

#endif
