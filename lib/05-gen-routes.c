/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Routes by which distributions hand the package note to every link
 * without editing each package's flags: a gcc specs file (-specs=FILE,
 * as Fedora's redhat-rpm-config does), a clang configuration file
 * (--config FILE or one clang reads by default) and a linker response
 * file (-Wl,@FILE, as Rust build scripts pass options).  Each carries the
 * linker option --package-metadata=JSON, checked as every other form is,
 * and the absolute paths of objects holding dlopen notes, which no linker
 * option can make.  The linker makes the package note itself, so nothing
 * here touches the output's GNU property note.  The C header form is a
 * pkgnote_emit() form (lib/05-gen-emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "05-gen-emit.h"

/* Bytes that none of the three readers treat specially: gcc's spec
 * language (% starts a directive, { } | : structure it, blanks split),
 * and the GNU command-line tokenizers of libiberty (ld.bfd, gold), LLVM
 * (lld, clang's configuration files) and mold (blanks split, quotes
 * group, backslash escapes).  Every other ASCII byte gets a backslash,
 * which all of them read as "the next byte as it is"; bytes of UTF-8
 * sequences are none of their specials and stay. */
static bool route_plain(unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80 ||
               (c && strchr("-_./=+,@", c));
}

static void add_escaped(struct pn_text *t, const char *s) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                pn_text_add(t, route_plain(*p) ? "%c" : "\\%c", *p);
}

/* The linker's argument: the JSON as it is, or percent-encoded for a
 * linker that decodes it (so that a literal % stays one). */
static int metadata_arg(const char *json, const pkgnote_linker *l, char **ret) {
        uint8_t *note;
        size_t note_len;
        int r = pn_package_note_checked(json, 0, &note, &note_len);
        if (r < 0)
                return r;
        free(note);
        int d = l ? pkgnote_linker_decodes_package_metadata(l) : 0;
        if (d < 0)
                return d;
        if (d)
                return pn_percent_encode(json, ret);
        char *s = strdup(json);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_route_text(int route, const char *json, const pkgnote_linker *l,
                                      const char *const *objects, size_t n_objects, char **ret) {
        if (route < PKGNOTE_ROUTE_GCC_SPECS || route > PKGNOTE_ROUTE_RESPONSE_FILE)
                return pn_error(-EINVAL, "unknown route %d", route);
        if (!json && n_objects == 0)
                return pn_error(-EINVAL, "no note to pass");
        for (size_t i = 0; i < n_objects; i++) {
                int r = pn_check_string(objects[i], "object path");
                if (r < 0)
                        return r;
                if (objects[i][0] != '/')
                        return pn_error(-EINVAL, "object path '%s' is not absolute; builds link in other directories",
                                        objects[i]);
        }
        char *arg = NULL;
        if (json) {
                int r = metadata_arg(json, l, &arg);
                if (r < 0)
                        return r;
                /* gcc drops a spec's text from a '#' on, escaped or not. */
                if (route == PKGNOTE_ROUTE_GCC_SPECS && strchr(arg, '#')) {
                        free(arg);
                        return pn_error(-EINVAL, "a gcc specs file cannot hold '#' (gcc ends the text there); use a response file");
                }
        }
        struct pn_text t = {0};
        switch (route) {
        case PKGNOTE_ROUTE_GCC_SPECS:
                /* The argument goes into a spec of its own, substituted by
                 * %(...): in a spec's own text a backslash escapes every
                 * byte, which it does not inside a %{...} condition's body.
                 * "+ " appends to the link spec already in force (the
                 * distribution's own specs file included); -r links, whose
                 * output is linked again, get nothing. */
                pn_text_add(&t, "# Made by pkgnote generate --format gcc-specs: gcc -specs=FILE ...\n"
                                "*pkgnote_link:\n");
                if (arg) {
                        pn_text_add(&t, "--package-metadata=");
                        add_escaped(&t, arg);
                }
                for (size_t i = 0; i < n_objects; i++) {
                        pn_text_add(&t, "%s", arg || i ? " " : "");
                        add_escaped(&t, objects[i]);
                }
                pn_text_add(&t, "\n\n*link:\n+ %%{!r:%%(pkgnote_link)}\n\n");
                break;
        case PKGNOTE_ROUTE_CLANG_CONFIG:
                /* -Xlinker, not -Wl,: clang splits -Wl, at commas.  Clang
                 * does not warn about a configuration file's options that
                 * a compile-only run leaves unused. */
                pn_text_add(&t, "# Made by pkgnote generate --format clang-config: clang --config FILE ...\n");
                if (arg) {
                        pn_text_add(&t, "-Xlinker --package-metadata=");
                        add_escaped(&t, arg);
                        pn_text_add(&t, "\n");
                }
                for (size_t i = 0; i < n_objects; i++) {
                        pn_text_add(&t, "-Xlinker ");
                        add_escaped(&t, objects[i]);
                        pn_text_add(&t, "\n");
                }
                break;
        default:
                /* No comment: libiberty's reader has no comment syntax. */
                if (arg) {
                        pn_text_add(&t, "--package-metadata=");
                        add_escaped(&t, arg);
                        pn_text_add(&t, "\n");
                }
                for (size_t i = 0; i < n_objects; i++) {
                        add_escaped(&t, objects[i]);
                        pn_text_add(&t, "\n");
                }
                break;
        }
        free(arg);
        return pn_text_finish(&t, ret);
}
