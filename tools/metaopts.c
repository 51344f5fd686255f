/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metadata options that generate and stamp share: well-known keys,
 * --rpm, --metadata, os-release, and the JSON they make.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metaopts.h"
#include "fileio.h"

/* The well-known keys in canonical order; options fill them by index. */
enum { K_TYPE, K_OS, K_OS_VERSION, K_NAME, K_VERSION, K_ARCH, K_OS_CPE, K_APP_CPE, K_DEBUG_URL, N_KEYS };

static const struct {
        const char *key, *option;
} key_options[N_KEYS] = {
        [K_TYPE] = {PKGNOTE_KEY_TYPE, "--type"},
        [K_OS] = {PKGNOTE_KEY_OS, "--os"},
        [K_OS_VERSION] = {PKGNOTE_KEY_OS_VERSION, "--os-version"},
        [K_NAME] = {PKGNOTE_KEY_NAME, "--name"},
        [K_VERSION] = {PKGNOTE_KEY_VERSION, "--version"},
        [K_ARCH] = {PKGNOTE_KEY_ARCHITECTURE, "--architecture"},
        [K_OS_CPE] = {PKGNOTE_KEY_OS_CPE, "--os-cpe"},
        [K_APP_CPE] = {PKGNOTE_KEY_APP_CPE, "--app-cpe"},
        [K_DEBUG_URL] = {PKGNOTE_KEY_DEBUG_INFO_URL, "--debuginfod-url"},
};

const char meta_opts_help[] =
               "Metadata (each sets one well-known key):\n"
               "      --type TYPE             packaging format: rpm, deb, apk, alpm, ...\n"
               "      --name NAME             source package name\n"
               "      --version VERSION       package version (rpm: VERSION-RELEASE)\n"
               "      --architecture ARCH     binary package architecture\n"
               "      --os ID                 os-release ID\n"
               "      --os-version VERSION    os-release VERSION_ID\n"
               "      --os-cpe CPE|auto       OS CPE; 'auto' takes os-release CPE_NAME\n"
               "      --app-cpe CPE           upstream application CPE\n"
               "      --debuginfod-url URL    debuginfod server (key debugInfoUrl)\n"
               "      --rpm NEVRA             type rpm, and name, version and architecture from\n"
               "                              NAME-[EPOCH:]VERSION-RELEASE.ARCH, e.g.\n"
               "                              foo-2:1.2-3.fc40.x86_64; version is VERSION-RELEASE\n"
               "                              without the epoch, as rpm's %{version}-%{release};\n"
               "                              ARCH src or nosrc sets no architecture\n"
               "      --metadata JSON|@FILE   a JSON object of further keys (@- reads stdin);\n"
               "                              may be repeated, later documents replace keys of\n"
               "                              earlier ones in place\n"
               "      --root DIR              read os-release below DIR\n"
               "      --os-release FILE       read os-release from FILE (not with --root)\n"
               "      --no-os-release         do not read os-release\n"
               "\n"
               "Precedence, highest first: the key options, --rpm, --metadata.  A --metadata\n"
               "document is written exactly as given (keys, values, key order; compact,\n"
               "raw UTF-8): nothing is added to it but what key options or --rpm state.\n"
               "os-release (--os-release FILE, else DIR/etc/os-release, else\n"
               "DIR/usr/lib/os-release; DIR is / without --root) fills os and osVersion\n"
               "only without --metadata, without --os, and when the type is the package\n"
               "format of the distribution it describes (deb on Debian, Ubuntu and their\n"
               "derivatives, rpm on Fedora, RHEL, SUSE, ..., apk on Alpine, alpm on Arch;\n"
               "never generic); osCpe only for --os-cpe auto.  Keys follow the documents'\n"
               "order, then type, os, osVersion, name, version, architecture, osCpe,\n"
               "appCpe, debugInfoUrl.  See pkgnote(1), METADATA PRECEDENCE.  Values are\n"
               "UTF-8 and may not contain control characters.\n"
               "\n";

static int fail_lib(const struct meta_opts *o, const char *what, int err) {
        const char *detail = pkgnote_last_error();
        return tool_fail("%s: %s: %s", o->cmd, what, detail && *detail ? detail : strerror(-err));
}

int meta_opts_init(struct meta_opts *o, const char *cmd, int argc) {
        *o = (struct meta_opts){.cmd = cmd};
        o->metadata = calloc((size_t)argc + 1, sizeof *o->metadata);
        return o->metadata ? 0 : -ENOMEM;
}

void meta_opts_done(struct meta_opts *o) {
        for (size_t i = 0; o->texts && i < o->n_metadata; i++)
                free(o->texts[i]);
        free(o->texts);
        o->texts = NULL;
        free(o->metadata);
        o->metadata = NULL;
}

bool meta_opts_handle(struct meta_opts *o, int c, const char *arg) {
        if (c >= META_OPT_TYPE && c <= META_OPT_DEBUG_URL) {
                /* The key options are in key_options[] order. */
                o->value[c - META_OPT_TYPE] = arg;
                return true;
        }
        switch (c) {
        case META_OPT_RPM: o->rpm = arg; return true;
        case META_OPT_METADATA: o->metadata[o->n_metadata++] = arg; return true;
        case META_OPT_ROOT: o->root = arg; return true;
        case META_OPT_OS_RELEASE: o->os_release = arg; return true;
        case META_OPT_NO_OS_RELEASE: o->no_os_release = true; return true;
        default: return false;
        }
}

/* Reads a whole small file (or stdin for "-") for --metadata @FILE. */
static int read_small(const char *path, char **ret, size_t *ret_len) {
        int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO;
        if (fd < 0)
                return -errno;
        int r = pn_read_all(fd, PKGNOTE_MAX_JSON, ret, ret_len);
        if (fd != STDIN_FILENO)
                close(fd);
        return r;
}

/* The --metadata texts, each read once (@- can be read only once). */
static int load_documents(struct meta_opts *o) {
        if (o->texts || o->n_metadata == 0)
                return EXIT_OK;
        o->texts = calloc(o->n_metadata, sizeof *o->texts);
        if (!o->texts)
                return tool_oom(o->cmd);
        for (size_t i = 0; i < o->n_metadata; i++) {
                int r = meta_opts_read_json_arg(o->cmd, "--metadata", o->metadata[i], &o->texts[i]);
                if (r != EXIT_OK)
                        return r;
        }
        return EXIT_OK;
}

/* Feeds the options to the library's precedence rule (lib/05-gen-compose.c). */
int meta_opts_build_json(struct meta_opts *o, char **ret) {
        return meta_opts_build_json_for(o, NULL, ret);
}

int meta_opts_build_json_for(struct meta_opts *o, const struct meta_file *f, char **ret) {
        pkgnote_compose *c = NULL;
        int r = load_documents(o);
        if (r != EXIT_OK)
                return r;
        if (pkgnote_compose_new(&c) < 0)
                return tool_oom(o->cmd);
        for (size_t i = 0; i < o->n_metadata; i++)
                if ((r = pkgnote_compose_document(c, o->texts[i], strlen(o->texts[i]))) < 0) {
                        r = fail_lib(o, "--metadata", r);
                        goto finish;
                }
        /* The file's own metadata: above the command's documents, below
         * its --rpm and key options. */
        if (f && f->document && (r = pkgnote_compose_document(c, f->document, strlen(f->document))) < 0) {
                r = tool_fail("%s: %s: %s", o->cmd, f->what, pkgnote_last_error());
                goto finish;
        }
        for (size_t k = 0; f && k < N_KEYS; k++)
                if (f->value[k] && (r = pkgnote_compose_set(c, key_options[k].key, f->value[k])) < 0) {
                        r = tool_fail("%s: %s: %s", o->cmd, f->what, pkgnote_last_error());
                        goto finish;
                }
        if (o->rpm && (r = pkgnote_compose_rpm(c, o->rpm)) < 0) {
                r = fail_lib(o, "--rpm", r);
                goto finish;
        }
        for (size_t k = 0; k < N_KEYS; k++)
                if (o->value[k] && (r = pkgnote_compose_set(c, key_options[k].key, o->value[k])) < 0) {
                        r = fail_lib(o, key_options[k].option, r);
                        goto finish;
                }
        if (o->root && o->os_release) {
                r = tool_fail("%s: --root and --os-release both say which os-release to read", o->cmd);
                goto finish;
        }
        /* The command's choice of os-release over the file's root. */
        const char *root = o->root ? o->root : f && !o->os_release ? f->root : NULL;
        if ((r = pkgnote_compose_os_release(c, root, !o->no_os_release)) < 0 ||
            (r = pkgnote_compose_os_release_file(c, o->os_release)) < 0 ||
            (r = pkgnote_compose_json(c, ret)) < 0) {
                /* The library's message names the source. */
                r = tool_fail("%s: %s", o->cmd, pkgnote_last_error());
                goto finish;
        }
        if (pkgnote_compose_warning(c) && !o->warned) {
                fprintf(stderr, "%s: %s: %s, ignoring\n", program_name, o->cmd, pkgnote_compose_warning(c));
                o->warned = true;
        }
        r = EXIT_OK;
finish:
        pkgnote_compose_free(c);
        return r;
}

bool meta_opts_any(const struct meta_opts *o) {
        for (size_t k = 0; k < META_N_KEYS; k++)
                if (o->value[k])
                        return true;
        return o->rpm || o->n_metadata > 0;
}

int meta_opts_read_json_arg(const char *cmd, const char *option, const char *arg, char **ret) {
        if (arg[0] != '@') {
                *ret = strdup(arg);
                return *ret ? EXIT_OK : tool_oom(cmd);
        }
        char *text = NULL;
        size_t len = 0;
        int r = read_small(arg + 1, &text, &len);
        if (r == -E2BIG)
                return tool_fail("%s: %s: '%s' is larger than %u bytes", cmd, option, arg + 1, PKGNOTE_MAX_JSON);
        if (r < 0)
                return tool_fail("%s: %s: cannot read '%s': %s", cmd, option, arg + 1, strerror(-r));
        if (strlen(text) != len) {
                free(text);
                return tool_fail("%s: %s: '%s' contains a NUL byte", cmd, option, arg + 1);
        }
        *ret = text;
        return EXIT_OK;
}
