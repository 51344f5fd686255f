/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a note's metadata comes from: key fields, an rpm NEVRA, JSON
 * documents and os-release, combined by one rule.  `pkgnote generate`,
 * `pkgnote stamp` (file and --tree) and, through generate, the rpm macros
 * and the Debian snippet all go through here, so they cannot disagree.
 *
 * The rule (pkgnote(1), METADATA PRECEDENCE): what is stated goes into the
 * note as stated, and a default never contradicts it.
 *   - a document's keys, values and key order are kept, and nothing is
 *     added to a note made from documents but what a key field or --rpm
 *     states (a document states the whole note: nobody can tell which of
 *     its absent keys were meant to be absent);
 *   - --rpm sets type, name, version and architecture over a document;
 *   - an explicit key field always wins;
 *   - os-release fills os and osVersion only in a note made from key
 *     fields alone, with no os stated, whose type is the package format
 *     of the distribution os-release describes (its ID, or ID_LIKE for a
 *     derivative): a generic or npm note, or an rpm built on Debian,
 *     gets no Debian os.  osCpe only on request ("auto"), and only from
 *     the os-release of the note's own os.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "03-model-osrelease.h"

enum { K_TYPE, K_OS, K_OS_VERSION, K_NAME, K_VERSION, K_ARCH, K_OS_CPE, K_APP_CPE, K_DEBUG_URL, N_KEYS };

struct pkgnote_compose {
        char *field[N_KEYS];
        bool os_cpe_auto;
        pkgnote_nevra nevra;
        char *rpm_version; /* VERSION-RELEASE, or NULL without a NEVRA */
        pkgnote_metadata *docs; /* the documents merged, or NULL */
        char *root;
        char *os_release_file; /* a file named instead of a root's */
        bool no_os_release;
        char *warning;
};

static int key_index(const char *key) {
        const char *const *known = pkgnote_metadata_known_keys();
        for (int k = 0; k < N_KEYS; k++)
                if (key && !strcmp(key, known[k]))
                        return k;
        return -1;
}

PKGNOTE_PUBLIC int pkgnote_compose_new(pkgnote_compose **ret) {
        pkgnote_compose *c = calloc(1, sizeof *c);
        if (!c)
                return pn_oom();
        *ret = c;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_compose_free(pkgnote_compose *c) {
        if (!c)
                return;
        for (int k = 0; k < N_KEYS; k++)
                free(c->field[k]);
        pkgnote_nevra_clear(&c->nevra);
        free(c->rpm_version);
        pkgnote_metadata_free(c->docs);
        free(c->root);
        free(c->os_release_file);
        free(c->warning);
        free(c);
}

static int replace_string(char **slot, const char *value) {
        char *s = NULL;
        if (value && !(s = strdup(value)))
                return pn_oom();
        free(*slot);
        *slot = s;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_compose_set(pkgnote_compose *c, const char *key, const char *value) {
        int k = key_index(key);
        if (k < 0)
                return pn_error(-EINVAL, "\"%s\" is not a well-known key", key ? key : "(null)");
        if (!value || !*value)
                return pn_error(-EINVAL, "empty value for \"%s\"", key);
        if (k == K_OS_CPE && !strcmp(value, "auto")) {
                c->os_cpe_auto = true;
                return replace_string(&c->field[k], NULL);
        }
        int r = pn_check_string(value, key);
        if (r < 0)
                return r;
        if (k == K_OS_CPE)
                c->os_cpe_auto = false;
        return replace_string(&c->field[k], value);
}

PKGNOTE_PUBLIC int pkgnote_compose_rpm(pkgnote_compose *c, const char *nevra) {
        pkgnote_nevra n = PKGNOTE_NEVRA_INIT;
        int r = pkgnote_nevra_parse(nevra, &n);
        if (r < 0)
                return r;
        /* UAPI.8: an rpm's version is VERSION-RELEASE; the epoch is left
         * out, as rpm's %{version}-%{release} leaves it out. */
        size_t len = strlen(n.version) + 1 + strlen(n.release) + 1;
        char *v = malloc(len);
        if (!v) {
                pkgnote_nevra_clear(&n);
                return pn_oom();
        }
        snprintf(v, len, "%s-%s", n.version, n.release);
        pkgnote_nevra_clear(&c->nevra);
        free(c->rpm_version);
        c->nevra = n;
        c->rpm_version = v;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_compose_document(pkgnote_compose *c, const char *json, size_t len) {
        pkgnote_metadata *m;
        int r = pkgnote_metadata_parse(json, len, &m);
        if (r < 0)
                return r;
        for (size_t i = 0; i < pkgnote_metadata_count(m); i++) {
                const char *key = pkgnote_metadata_key(m, i);
                if (!key) { /* below the count: only memory can fail */
                        pkgnote_metadata_free(m);
                        return pn_oom();
                }
                if (key_index(key) >= 0 && !pkgnote_metadata_get(m, key)) {
                        /* KEY lives in M: report before freeing it. */
                        r = pn_error(-EINVAL, "well-known key \"%s\" must be a string", key);
                        pkgnote_metadata_free(m);
                        return r;
                }
        }
        char *check; /* refuses control characters, as the note will */
        if ((r = pkgnote_metadata_to_json(m, &check)) < 0) {
                pkgnote_metadata_free(m);
                return r;
        }
        free(check);
        if (!c->docs) {
                c->docs = m;
                return 0;
        }
        /* A later document replaces the keys it shares with earlier ones
         * in place and appends the others in its own order. */
        for (size_t i = 0; i < pkgnote_metadata_count(m) && r >= 0; i++) {
                char *vj;
                r = pkgnote_metadata_value_json(m, i, &vj);
                if (r >= 0) {
                        r = pkgnote_metadata_set_json(c->docs, pkgnote_metadata_key(m, i), vj);
                        free(vj);
                }
        }
        pkgnote_metadata_free(m);
        return r < 0 ? r : 0;
}

PKGNOTE_PUBLIC int pkgnote_compose_os_release(pkgnote_compose *c, const char *root, int use) {
        int r = replace_string(&c->root, root && *root ? root : NULL);
        if (r < 0)
                return r;
        c->no_os_release = !use;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_compose_os_release_file(pkgnote_compose *c, const char *path) {
        return replace_string(&c->os_release_file, path && *path ? path : NULL);
}

PKGNOTE_PUBLIC const char *pkgnote_compose_warning(const pkgnote_compose *c) {
        return c ? c->warning : NULL;
}

/* Reads os-release when the rule needs it; *RET stays NULL when an
 * implicit one (no root, no file, no "auto") is missing, with c->warning
 * set. */
static int read_os_release(pkgnote_compose *c, pkgnote_os_release **ret) {
        *ret = NULL;
        if (c->root && c->os_release_file)
                return pn_error(-EINVAL, "os-release: both a root directory ('%s') and a file ('%s') are named",
                                c->root, c->os_release_file);
        int r = c->os_release_file ? pkgnote_os_release_read_file(c->os_release_file, ret)
                                   : pkgnote_os_release_read(c->root, ret);
        if (r == -ENOENT && !c->root && !c->os_release_file && !c->os_cpe_auto) {
                free(c->warning);
                c->warning = strdup(pkgnote_last_error());
                return 0;
        }
        if (r < 0) {
                /* pn_error() formats into the buffer the reason is in. */
                char why[512];
                snprintf(why, sizeof why, "%s", pkgnote_last_error());
                return pn_error(r, "os-release: %s", why);
        }
        return 0;
}

/* Applies the os-release part of the rule to VALUE[]. */
static int fill_from_os_release(pkgnote_compose *c, const char *value[N_KEYS], pkgnote_os_release **osr) {
        const char *type = value[K_TYPE], *os = value[K_OS];
        /* Defaults are for notes made from key fields alone, and a type
         * no distribution packages in (generic, npm, ...) never gets one:
         * its os-release need not even be read. */
        bool defaults = !c->docs && !os && pn_is_distro_package_type(type);
        if (c->os_cpe_auto && c->no_os_release)
                return pn_error(-EINVAL, "--os-cpe auto needs os-release, but --no-os-release was given");
        if (c->no_os_release || (!c->os_cpe_auto && !defaults))
                return 0;
        int r = read_os_release(c, osr);
        if (r < 0 || !*osr)
                return r;
        const char *id = pkgnote_os_release_get(*osr, "ID");
        const char *path = pkgnote_os_release_path(*osr);
        const char *distro_type = pkgnote_os_release_package_type(*osr);
        /* os-release describes the OS it ships with, whose packages have
         * one format; its ID, version or CPE belongs to no other OS and to
         * no package of another format. */
        bool type_matches = type && distro_type && !strcmp(type, distro_type);
        if (c->os_cpe_auto) {
                if (os && (!id || strcmp(id, os)))
                        return pn_error(-EINVAL, "--os-cpe auto: %s is for ID '%s', not for os '%s'", path,
                                        id ? id : "(none)", os);
                if (!os && !type_matches)
                        return pn_error(-EINVAL,
                                        "--os-cpe auto: %s is for ID '%s', whose packages are %s, and the note "
                                        "states no os and type %s",
                                        path, id ? id : "(none)", distro_type ? distro_type : "of no known type",
                                        type ? type : "none");
        }
        const char *v;
        if (defaults && type_matches) {
                if (id && *id)
                        value[K_OS] = id;
                if (!value[K_OS_VERSION] && (v = pkgnote_os_release_get(*osr, "VERSION_ID")) && *v)
                        value[K_OS_VERSION] = v;
        }
        if (c->os_cpe_auto) {
                if (!(v = pkgnote_os_release_get(*osr, "CPE_NAME")) || !*v)
                        return pn_error(-EINVAL, "--os-cpe auto: %s has no CPE_NAME", path);
                value[K_OS_CPE] = v;
        }
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_compose_json(pkgnote_compose *c, char **ret) {
        const char *const *known = pkgnote_metadata_known_keys();
        const char *value[N_KEYS] = {0};
        pkgnote_os_release *osr = NULL;
        pkgnote_metadata *out = NULL;
        int r;

        free(c->warning);
        c->warning = NULL;
        for (int k = 0; k < N_KEYS; k++)
                if (c->docs)
                        value[k] = pkgnote_metadata_get(c->docs, known[k]);
        if (c->rpm_version) {
                value[K_TYPE] = "rpm";
                value[K_NAME] = c->nevra.name;
                value[K_VERSION] = c->rpm_version;
                /* A source package's NEVRA says nothing about the binary
                 * package's architecture. */
                if (strcmp(c->nevra.arch, "src") && strcmp(c->nevra.arch, "nosrc"))
                        value[K_ARCH] = c->nevra.arch;
        }
        for (int k = 0; k < N_KEYS; k++)
                if (c->field[k])
                        value[k] = c->field[k];
        if ((r = fill_from_os_release(c, value, &osr)) < 0)
                goto finish;

        /* The documents' keys in their order, then the keys they lack in
         * canonical order; without documents, canonical order. */
        if (c->docs) {
                char *text;
                if ((r = pkgnote_metadata_to_json(c->docs, &text)) < 0)
                        goto finish;
                r = pkgnote_metadata_parse(text, strlen(text), &out);
                free(text);
        } else
                r = pkgnote_metadata_new(&out);
        if (r < 0)
                goto finish;
        for (int k = 0; k < N_KEYS; k++) {
                if (!value[k])
                        continue;
                if (!*value[k]) {
                        r = pn_error(-EINVAL, "empty value for \"%s\"", known[k]);
                        goto finish;
                }
                if ((r = pkgnote_metadata_set(out, known[k], value[k])) < 0)
                        goto finish;
        }
        r = pkgnote_metadata_to_json(out, ret);
finish:
        pkgnote_os_release_free(osr);
        pkgnote_metadata_free(out);
        return r < 0 ? r : 0;
}
