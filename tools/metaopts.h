/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Metadata options shared by generate and stamp (tools/metaopts.c). */
#ifndef PKGNOTE_METAOPTS_H
#define PKGNOTE_METAOPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "tool.h"

/* getopt_long() values; the key options come in key order. */
enum {
        META_OPT_TYPE = 0x100,
        META_OPT_OS,
        META_OPT_OS_VERSION,
        META_OPT_NAME,
        META_OPT_VERSION,
        META_OPT_ARCH,
        META_OPT_OS_CPE,
        META_OPT_APP_CPE,
        META_OPT_DEBUG_URL,
        META_OPT_RPM,
        META_OPT_METADATA,
        META_OPT_ROOT,
        META_OPT_NO_OS_RELEASE,
        META_OPT_OS_RELEASE,
        META_OPT_END, /* the command's own options start here */
};

/* Entries for a struct option table. */
#define META_LONG_OPTIONS                                                              \
        {"type", required_argument, NULL, META_OPT_TYPE},                              \
        {"name", required_argument, NULL, META_OPT_NAME},                              \
        {"version", required_argument, NULL, META_OPT_VERSION},                        \
        {"architecture", required_argument, NULL, META_OPT_ARCH},                      \
        {"os", required_argument, NULL, META_OPT_OS},                                  \
        {"os-version", required_argument, NULL, META_OPT_OS_VERSION},                  \
        {"os-cpe", required_argument, NULL, META_OPT_OS_CPE},                          \
        {"app-cpe", required_argument, NULL, META_OPT_APP_CPE},                        \
        {"debuginfod-url", required_argument, NULL, META_OPT_DEBUG_URL},               \
        {"rpm", required_argument, NULL, META_OPT_RPM},                                \
        {"metadata", required_argument, NULL, META_OPT_METADATA},                      \
        {"root", required_argument, NULL, META_OPT_ROOT},                              \
        {"no-os-release", no_argument, NULL, META_OPT_NO_OS_RELEASE},                  \
        {"os-release", required_argument, NULL, META_OPT_OS_RELEASE}

#define META_N_KEYS 9

struct meta_opts {
        const char *cmd; /* "generate", "stamp": the prefix of messages */
        const char *value[META_N_KEYS];
        const char *rpm;
        const char **metadata;
        size_t n_metadata;
        const char *root;
        const char *os_release; /* --os-release FILE */
        bool no_os_release;
        char **texts; /* the --metadata documents, once read */
        bool warned;
};

/* One file's own metadata, for stamp's per-file sources: a JSON document
 * and well-known keys (by META_OPT_TYPE - META_OPT_TYPE ... order), and
 * the root whose os-release applies unless --root, --os-release or
 * --no-os-release.
 * WHAT names the source in messages. */
struct meta_file {
        const char *what;
        const char *document;
        const char *value[META_N_KEYS];
        const char *root;
};

/* The "Metadata" part of --help, ending in an empty line. */
extern const char meta_opts_help[];

/* ARGC bounds the number of --metadata options.  -ENOMEM or 0. */
int meta_opts_init(struct meta_opts *o, const char *cmd, int argc);
void meta_opts_done(struct meta_opts *o);
/* Takes getopt_long()'s C and ARG when they are a metadata option. */
bool meta_opts_handle(struct meta_opts *o, int c, const char *arg);
/* The JSON for the options (malloc()ed); 0, or an exit code after
 * printing the reason. */
int meta_opts_build_json(struct meta_opts *o, char **ret);
/* The same with a file's own metadata F (may be NULL) between the
 * --metadata documents and the --rpm and key options. */
int meta_opts_build_json_for(struct meta_opts *o, const struct meta_file *f, char **ret);
/* Was any option given that says what the package note holds (a key,
 * --rpm, --metadata)? */
bool meta_opts_any(const struct meta_opts *o);
/* The text of a JSON|@FILE argument of OPTION (@- is standard input),
 * malloc()ed; 0, or an exit code after printing the reason. */
int meta_opts_read_json_arg(const char *cmd, const char *option, const char *arg, char **ret);

#endif
