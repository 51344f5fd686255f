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
               "                              earlier ones\n"
               "      --root DIR              read os-release below DIR\n"
               "      --no-os-release         do not read os-release\n"
               "\n"
               "Precedence, highest first: the key options above, --rpm, --metadata,\n"
               "os-release.  Unless --no-os-release is given, os and osVersion default to\n"
               "ID and VERSION_ID of DIR/etc/os-release, else DIR/usr/lib/os-release\n"
               "(DIR is / without --root).  Keys are written in the order type, os,\n"
               "osVersion, name, version, architecture, osCpe, appCpe, debugInfoUrl, then\n"
               "the other --metadata keys in the order given.  Values are UTF-8 and may\n"
               "not contain control characters.\n"
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
        free(o->metadata);
        o->metadata = NULL;
}

bool meta_opts_handle(struct meta_opts *o, int c, const char *arg) {
        if (c >= META_OPT_TYPE && c <= META_OPT_DEBUG_URL) {
                /* The key options are in key_options[] order. */
                bool cpe_auto = c == META_OPT_OS_CPE && !strcmp(arg, "auto");
                if (c == META_OPT_OS_CPE)
                        o->os_cpe_auto = cpe_auto;
                o->value[c - META_OPT_TYPE] = cpe_auto ? NULL : arg;
                return true;
        }
        switch (c) {
        case META_OPT_RPM: o->rpm = arg; return true;
        case META_OPT_METADATA: o->metadata[o->n_metadata++] = arg; return true;
        case META_OPT_ROOT: o->root = arg; return true;
        case META_OPT_NO_OS_RELEASE: o->no_os_release = true; return true;
        default: return false;
        }
}

/* Reads a whole small file (or stdin for "-") for --metadata @FILE. */
static int read_small(const char *path, char **ret, size_t *ret_len) {
        int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO;
        if (fd < 0)
                return -errno;
        size_t cap = PKGNOTE_MAX_JSON + 1, n = 0;
        char *buf = malloc(cap + 1);
        int r = 0;
        if (!buf)
                r = -ENOMEM;
        while (buf) {
                ssize_t k = read(fd, buf + n, cap - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        r = -errno;
                        break;
                }
                if (k == 0)
                        break;
                n += (size_t)k;
                if (n >= cap) {
                        r = -E2BIG;
                        break;
                }
        }
        if (fd != STDIN_FILENO)
                close(fd);
        if (r < 0) {
                free(buf);
                return r;
        }
        buf[n] = 0;
        *ret = buf;
        *ret_len = n;
        return 0;
}

/* Merges every --metadata document into DOCS, in order. */
static int load_metadata(const struct meta_opts *o, pkgnote_metadata *docs) {
        for (size_t i = 0; i < o->n_metadata; i++) {
                const char *arg = o->metadata[i];
                char *text = NULL;
                size_t len = 0;
                if (arg[0] == '@') {
                        int r = read_small(arg + 1, &text, &len);
                        if (r == -E2BIG)
                                return tool_fail("%s: --metadata: '%s' is larger than %u bytes", o->cmd, arg + 1,
                                                 PKGNOTE_MAX_JSON);
                        if (r < 0)
                                return tool_fail("%s: --metadata: cannot read '%s': %s", o->cmd, arg + 1, strerror(-r));
                } else
                        len = strlen(arg);
                pkgnote_metadata *m;
                int r = pkgnote_metadata_parse(text ? text : arg, len, &m);
                free(text);
                if (r < 0)
                        return fail_lib(o, "--metadata", r);
                for (size_t k = 0; k < pkgnote_metadata_count(m); k++) {
                        char *vj;
                        const char *key = pkgnote_metadata_key(m, k);
                        r = pkgnote_metadata_value_json(m, k, &vj);
                        if (r >= 0) {
                                r = pkgnote_metadata_set_json(docs, key, vj);
                                free(vj);
                        }
                        if (r < 0) {
                                pkgnote_metadata_free(m);
                                return fail_lib(o, "--metadata", r);
                        }
                }
                pkgnote_metadata_free(m);
        }
        for (size_t k = 0; k < N_KEYS; k++)
                for (size_t i = 0; i < pkgnote_metadata_count(docs); i++)
                        if (!strcmp(pkgnote_metadata_key(docs, i), key_options[k].key) &&
                            !pkgnote_metadata_get(docs, key_options[k].key))
                                return tool_fail("generate: --metadata: well-known key \"%s\" must be a string",
                                                 key_options[k].key);
        return 0;
}

/* Reads os-release; *RET is NULL when an implicit one is missing.
 * Returns 0 or an exit code. */
static int load_os_release(const struct meta_opts *o, pkgnote_os_release **ret) {
        pkgnote_os_release *osr;
        int r = pkgnote_os_release_read(o->root, &osr);
        if (r < 0) {
                /* Only an os-release the user asked for is required. */
                if (r == -ENOENT && !o->root && !o->os_cpe_auto) {
                        fprintf(stderr, "%s: %s: %s, ignoring\n", program_name, o->cmd, pkgnote_last_error());
                        *ret = NULL;
                        return 0;
                }
                return fail_lib(o, "os-release", r);
        }
        *ret = osr;
        return 0;
}

int meta_opts_build_json(const struct meta_opts *o, char **ret) {
        const char *value[N_KEYS] = {0};
        const char *source[N_KEYS] = {0};
        pkgnote_nevra nevra = {0};
        pkgnote_metadata *docs = NULL, *out = NULL;
        pkgnote_os_release *osr = NULL;
        char *rpm_version = NULL;
        int ret_code = EXIT_FAILURE_, r;

        if (pkgnote_metadata_new(&docs) < 0 || pkgnote_metadata_new(&out) < 0) {
                tool_fail("%s: out of memory", o->cmd);
                goto finish;
        }
        if (load_metadata(o, docs) != 0)
                goto finish;
        for (size_t k = 0; k < N_KEYS; k++)
                if ((value[k] = pkgnote_metadata_get(docs, key_options[k].key)))
                        source[k] = "--metadata";

        if (o->rpm) {
                if ((r = pkgnote_nevra_parse(o->rpm, &nevra)) < 0) {
                        fail_lib(o, "--rpm", r);
                        goto finish;
                }
                /* UAPI.8: an rpm's version is VERSION-RELEASE; the epoch is
                 * left out, as rpm's %{version}-%{release} leaves it out. */
                size_t vlen = strlen(nevra.version) + 1 + strlen(nevra.release) + 1;
                if (!(rpm_version = malloc(vlen))) {
                        tool_fail("%s: out of memory", o->cmd);
                        goto finish;
                }
                snprintf(rpm_version, vlen, "%s-%s", nevra.version, nevra.release);
                value[K_TYPE] = "rpm";
                value[K_NAME] = nevra.name;
                value[K_VERSION] = rpm_version;
                source[K_TYPE] = source[K_NAME] = source[K_VERSION] = "--rpm";
                /* A source package's NEVRA says nothing about the binary
                 * package's architecture. */
                if (strcmp(nevra.arch, "src") && strcmp(nevra.arch, "nosrc")) {
                        value[K_ARCH] = nevra.arch;
                        source[K_ARCH] = "--rpm";
                }
        }
        for (size_t k = 0; k < N_KEYS; k++)
                if (o->value[k]) {
                        value[k] = o->value[k];
                        source[k] = key_options[k].option;
                }

        bool want_os = !o->value[K_OS] || !o->value[K_OS_VERSION] || o->os_cpe_auto;
        if (o->os_cpe_auto && o->no_os_release) {
                tool_fail("%s: --os-cpe auto needs os-release, but --no-os-release was given", o->cmd);
                goto finish;
        }
        if (!o->no_os_release && want_os) {
                if (load_os_release(o, &osr) != 0)
                        goto finish;
                if (osr) {
                        static const struct {
                                int key;
                                const char *var;
                        } from_osr[] = {{K_OS, "ID"}, {K_OS_VERSION, "VERSION_ID"}, {K_OS_CPE, "CPE_NAME"}};
                        for (size_t i = 0; i < 3; i++) {
                                int k = from_osr[i].key;
                                const char *v = pkgnote_os_release_get(osr, from_osr[i].var);
                                if (k == K_OS_CPE) {
                                        if (!o->os_cpe_auto)
                                                continue;
                                        if (!v || !*v) {
                                                tool_fail("%s: --os-cpe auto: %s has no CPE_NAME", o->cmd,
                                                          pkgnote_os_release_path(osr));
                                                goto finish;
                                        }
                                        value[k] = v;
                                        source[k] = pkgnote_os_release_path(osr);
                                } else if (!value[k] && v && *v) {
                                        value[k] = v;
                                        source[k] = pkgnote_os_release_path(osr);
                                }
                        }
                }
        }

        for (size_t k = 0; k < N_KEYS; k++) {
                if (!value[k])
                        continue;
                if (!*value[k]) {
                        tool_fail("generate: %s: empty value for \"%s\"", source[k], key_options[k].key);
                        goto finish;
                }
                if ((r = pkgnote_metadata_set(out, key_options[k].key, value[k])) < 0) {
                        fail_lib(o, source[k], r);
                        goto finish;
                }
        }
        for (size_t i = 0; i < pkgnote_metadata_count(docs); i++) {
                const char *key = pkgnote_metadata_key(docs, i);
                bool known = false;
                for (size_t k = 0; k < N_KEYS && !known; k++)
                        known = !strcmp(key, key_options[k].key);
                if (known)
                        continue;
                char *vj;
                r = pkgnote_metadata_value_json(docs, i, &vj);
                if (r >= 0) {
                        r = pkgnote_metadata_set_json(out, key, vj);
                        free(vj);
                }
                if (r < 0) {
                        fail_lib(o, "--metadata", r);
                        goto finish;
                }
        }
        if ((r = pkgnote_metadata_to_json(out, ret)) < 0) {
                fail_lib(o, "metadata", r);
                goto finish;
        }
        ret_code = EXIT_OK;
finish:
        free(rpm_version);
        pkgnote_nevra_clear(&nevra);
        pkgnote_os_release_free(osr);
        pkgnote_metadata_free(docs);
        pkgnote_metadata_free(out);
        return ret_code;
}

