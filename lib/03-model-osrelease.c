/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sources of package metadata outside the build: the os-release file
 * (os-release(5)) and rpm's NAME-[EPOCH:]VERSION-RELEASE.ARCH strings.
 *
 * os-release is a list of shell-compatible variable assignments.  The
 * parser follows the shell's quoting rules, which is what os-release(5)
 * promises writers may rely on:
 *   - unquoted text: a backslash quotes the next character, whitespace
 *     ends the value;
 *   - '...': everything literal up to the next single quote;
 *   - "...": literal except that a backslash before $ " \ ` or a newline
 *     escapes it (backslash-newline disappears); any other backslash is
 *     kept, as the shell keeps it;
 *   - quoted and unquoted parts may be adjacent ("a"'b'c is "abc"); the
 *     shell joins them and so do we;
 *   - lines whose first non-blank character is # are comments, blank
 *     lines are ignored, a later assignment overrides an earlier one.
 * Nothing is expanded: an unescaped $ is kept as is.  A malformed line
 * (no NAME=, an unterminated quote, text after the value) is skipped and
 * counted; it never fails the whole file, since os-release is advisory.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base.h"
#include "output.h"
#include "02-elf-view.h"
#include "03-model-osrelease.h"

#define MAX_OS_RELEASE (64u << 10) /* bytes read from an os-release file */
#define MAX_OS_RELEASE_VARS 256u

struct osr_var {
        char *key, *value;
};

struct pkgnote_os_release {
        struct osr_var *vars;
        size_t n_vars, cap_vars;
        size_t problems;
        char *path;
};

static int osr_set(pkgnote_os_release *o, const char *key, size_t key_len, char *value) {
        for (size_t i = 0; i < o->n_vars; i++)
                if (strlen(o->vars[i].key) == key_len && !memcmp(o->vars[i].key, key, key_len)) {
                        free(o->vars[i].value);
                        o->vars[i].value = value;
                        return 0;
                }
        if (o->n_vars >= MAX_OS_RELEASE_VARS) {
                free(value);
                o->problems++;
                return 0;
        }
        char *k = strndup(key, key_len);
        if (!k || PN_GROW(o->vars, o->cap_vars, o->n_vars + 1) < 0) {
                free(k);
                free(value);
                return pn_oom();
        }
        o->vars[o->n_vars].key = k;
        o->vars[o->n_vars].value = value;
        o->n_vars++;
        return 0;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_name_char(char c, bool first) {
        return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* Skips to the character after the end of the current line. */
static size_t skip_line(const char *s, size_t len, size_t i) {
        while (i < len && s[i] != '\n')
                i++;
        return i < len ? i + 1 : i;
}

/* Parses the value starting at *pos; on success stores the malloc()ed
 * text and moves *pos to the end of the line.  -EBADMSG when the line is
 * malformed (*pos then points at the start of the next line to try). */
static int parse_value(const char *s, size_t len, size_t *pos, char **ret) {
        size_t i = *pos;
        char *out = malloc(len - i + 1);
        size_t n = 0;
        if (!out)
                return pn_oom();
        while (i < len && s[i] != '\n' && !is_blank(s[i])) {
                char c = s[i];
                if (c == '\'') {
                        size_t end = i + 1;
                        while (end < len && s[end] != '\'')
                                end++;
                        if (end >= len)
                                goto bad_quote;
                        memcpy(out + n, s + i + 1, end - i - 1);
                        n += end - i - 1;
                        i = end + 1;
                } else if (c == '"') {
                        i++;
                        for (;;) {
                                if (i >= len)
                                        goto bad_quote;
                                if (s[i] == '"') {
                                        i++;
                                        break;
                                }
                                if (s[i] == '\\' && i + 1 < len &&
                                    (s[i + 1] == '$' || s[i + 1] == '"' || s[i + 1] == '\\' ||
                                     s[i + 1] == '`' || s[i + 1] == '\n')) {
                                        if (s[i + 1] != '\n')
                                                out[n++] = s[i + 1];
                                        i += 2;
                                        continue;
                                }
                                out[n++] = s[i++];
                        }
                } else if (c == '\\') {
                        if (i + 1 >= len) {
                                i++; /* a lone backslash at the very end quotes nothing */
                                continue;
                        }
                        if (s[i + 1] != '\n')
                                out[n++] = s[i + 1];
                        i += 2;
                } else if (c == '`' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>' ||
                           c == '(' || c == ')') {
                        /* Command substitution or a second command: not an
                         * assignment a reader can honour. */
                        free(out);
                        *pos = skip_line(s, len, i);
                        return -EBADMSG;
                } else
                        out[n++] = s[i++];
        }
        /* After the value: blanks, then the end of the line or a comment. */
        while (i < len && is_blank(s[i]))
                i++;
        if (i < len && s[i] != '\n' && s[i] != '#') {
                free(out);
                *pos = skip_line(s, len, i);
                return -EBADMSG;
        }
        out[n] = 0;
        *ret = out;
        *pos = skip_line(s, len, i);
        return 0;

bad_quote:
        /* An unterminated quote swallows the rest of the file in the shell;
         * here it costs only its own line. */
        free(out);
        *pos = skip_line(s, len, *pos);
        return -EBADMSG;
}

PKGNOTE_PUBLIC int pkgnote_os_release_parse(const char *text, size_t len, pkgnote_os_release **ret) {
        if (len > MAX_OS_RELEASE)
                return pn_error(-E2BIG, "os-release of %zu bytes, more than the limit of %u", len, MAX_OS_RELEASE);
        pkgnote_os_release *o = calloc(1, sizeof *o);
        if (!o)
                return pn_oom();
        size_t i = 0;
        while (i < len) {
                while (i < len && is_blank(text[i]))
                        i++;
                if (i >= len)
                        break;
                if (text[i] == '\n') {
                        i++;
                        continue;
                }
                if (text[i] == '#') {
                        i = skip_line(text, len, i);
                        continue;
                }
                size_t key = i;
                while (i < len && is_name_char(text[i], i == key))
                        i++;
                size_t key_len = i - key;
                /* The shell allows no blanks around '=': "A = b" runs a command. */
                if (key_len == 0 || i >= len || text[i] != '=') {
                        o->problems++;
                        i = skip_line(text, len, i);
                        continue;
                }
                i++;
                char *value = NULL;
                int r = parse_value(text, len, &i, &value);
                if (r == -EBADMSG) {
                        o->problems++;
                        continue;
                }
                if (r >= 0)
                        r = osr_set(o, text + key, key_len, value);
                if (r < 0) {
                        pkgnote_os_release_free(o);
                        return r;
                }
        }
        *ret = o;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_os_release_free(pkgnote_os_release *o) {
        if (!o)
                return;
        for (size_t i = 0; i < o->n_vars; i++) {
                free(o->vars[i].key);
                free(o->vars[i].value);
        }
        free(o->vars);
        free(o->path);
        free(o);
}

PKGNOTE_PUBLIC const char *pkgnote_os_release_get(const pkgnote_os_release *o, const char *key) {
        for (size_t i = 0; i < o->n_vars; i++)
                if (!strcmp(o->vars[i].key, key))
                        return o->vars[i].value;
        return NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_os_release_path(const pkgnote_os_release *o) {
        return o->path;
}

PKGNOTE_PUBLIC size_t pkgnote_os_release_problem_count(const pkgnote_os_release *o) {
        return o->problems;
}

/* The os-release open at FD into *RET: a regular file only (a FIFO
 * would block the read, a device act on it), at most MAX_OS_RELEASE
 * bytes (-E2BIG past them). */
static int read_fd(int fd, char **ret, size_t *ret_len) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        return pn_read_all(fd, MAX_OS_RELEASE, ret, ret_len);
}

/* Reads and parses the os-release open at FD, FULL naming it in messages
 * and in pkgnote_os_release_path(). */
static int load_fd(int fd, const char *full, pkgnote_os_release **ret) {
        char *buf = NULL;
        size_t len = 0;
        int r = read_fd(fd, &buf, &len);
        if (r < 0)
                return r == -E2BIG ? pn_error(r, "'%s' is larger than %u bytes", full, MAX_OS_RELEASE)
                                   : pn_error(r, "cannot read '%s': %s", full, strerror(-r));
        pkgnote_os_release *o;
        r = pkgnote_os_release_parse(buf, len, &o);
        free(buf);
        if (r < 0)
                return r;
        if (!(o->path = strdup(full))) {
                pkgnote_os_release_free(o);
                return pn_oom();
        }
        *ret = o;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_os_release_read(const char *root, pkgnote_os_release **ret) {
        static const char *const candidates[] = {"etc/os-release", "usr/lib/os-release"};
        const char *rootdir = root && *root ? root : "/";
        int rootfd = open(rootdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return pn_error(-errno, "cannot open root directory '%s': %s", rootdir, strerror(errno));
        int r = -ENOENT;
        for (size_t c = 0; c < ELEMENTSOF(candidates); c++) {
                /* /etc/os-release is usually a symbolic link to
                 * ../usr/lib/os-release or /usr/lib/os-release: resolved
                 * inside the root as chroot would, never to the host's
                 * file, and only a regular file is opened. */
                int fd = pn_open_in_root(rootfd, candidates[c]);
                if (fd == -ENOENT)
                        continue;
                char full[PATH_MAX];
                snprintf(full, sizeof full, "%s%s%s", rootdir,
                         rootdir[strlen(rootdir) - 1] == '/' ? "" : "/", candidates[c]);
                if (fd < 0) {
                        r = pn_error(fd, "cannot open '%s': %s", full,
                                     fd == -EINVAL ? "not a regular file" : strerror(-fd));
                        break;
                }
                r = load_fd(fd, full, ret);
                close(fd);
                break;
        }
        close(rootfd);
        if (r == -ENOENT)
                return pn_error(-ENOENT, "neither %s%setc/os-release nor usr/lib/os-release exists", rootdir,
                                rootdir[strlen(rootdir) - 1] == '/' ? "" : "/");
        return r;
}

PKGNOTE_PUBLIC int pkgnote_os_release_read_file(const char *path, pkgnote_os_release **ret) {
        if (!path || !*path)
                return pn_error(-EINVAL, "no os-release file named");
        /* The caller names this very file; /etc/os-release itself is a
         * symbolic link, so one is followed.  read_fd() takes regular
         * files only. */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return pn_error(-errno, "cannot open '%s': %s", path, strerror(errno));
        int r = load_fd(fd, path, ret);
        close(fd);
        return r;
}

/* ------------------------------------------------------------------ */
/* The package format of a distribution                                */

/* os-release IDs and the format their packages have.  A derivative not
 * listed names its parent in ID_LIKE (Linux Mint "ubuntu debian", Rocky
 * "rhel centos fedora", openSUSE "suse opensuse", Manjaro "arch",
 * postmarketOS "alpine"), so the parents are what must be here. */
static const struct {
        const char *id, *type;
} distro_types[] = {
        {"debian", "deb"},        {"ubuntu", "deb"},         {"raspbian", "deb"},
        {"fedora", "rpm"},        {"rhel", "rpm"},           {"centos", "rpm"},
        {"rocky", "rpm"},         {"almalinux", "rpm"},      {"ol", "rpm"},
        {"amzn", "rpm"},          {"azurelinux", "rpm"},     {"mariner", "rpm"},
        {"suse", "rpm"},          {"opensuse", "rpm"},       {"opensuse-leap", "rpm"},
        {"opensuse-tumbleweed", "rpm"}, {"sles", "rpm"},     {"sled", "rpm"},
        {"mageia", "rpm"},        {"openmandriva", "rpm"},   {"photon", "rpm"},
        {"alpine", "apk"},        {"postmarketos", "apk"},   {"wolfi", "apk"},
        {"arch", "alpm"},         {"archarm", "alpm"},
};

static const char *distro_type(const char *id, size_t len) {
        for (size_t i = 0; i < ELEMENTSOF(distro_types); i++)
                if (strlen(distro_types[i].id) == len && !memcmp(distro_types[i].id, id, len))
                        return distro_types[i].type;
        return NULL;
}

PKGNOTE_PUBLIC const char *pkgnote_os_release_package_type(const pkgnote_os_release *o) {
        if (!o)
                return NULL;
        /* A known ID decides alone: ID_LIKE says what a distribution
         * resembles, not what it is. */
        const char *id = pkgnote_os_release_get(o, "ID");
        const char *t = id ? distro_type(id, strlen(id)) : NULL;
        if (t)
                return t;
        /* ID_LIKE: space-separated, closest relative first. */
        const char *like = pkgnote_os_release_get(o, "ID_LIKE");
        for (const char *p = like; p && *p;) {
                p += strspn(p, " ");
                size_t n = strcspn(p, " ");
                if (n && (t = distro_type(p, n)))
                        return t;
                p += n;
        }
        return NULL;
}

bool pn_is_distro_package_type(const char *type) {
        for (size_t i = 0; type && i < ELEMENTSOF(distro_types); i++)
                if (!strcmp(distro_types[i].type, type))
                        return true;
        return false;
}

/* ------------------------------------------------------------------ */
/* rpm NEVRA                                                           */

/* Architectures rpm knows (rpmrc's arch_canon and buildarch lists, plus
 * the source pseudo-architectures).  A string like foo-1.0-1.fc40 has no
 * architecture, and without this list its dist tag would be taken for
 * one. */
static const char *const rpm_arches[] = {
        "noarch", "src", "nosrc",
        "x86_64", "amd64", "ia32e", "em64t", "x86_64_v2", "x86_64_v3", "x86_64_v4",
        "i386", "i486", "i586", "i686", "athlon", "geode", "pentium3", "pentium4",
        "aarch64", "arm64",
        "armv3l", "armv4b", "armv4l", "armv4tl", "armv5tl", "armv5tel", "armv5tejl", "armv6l",
        "armv6hl", "armv7l", "armv7hl", "armv7hnl", "armv8l", "armv8hl", "armv8hnl", "armv8hcnl",
        "s390", "s390x",
        "ppc", "ppc64", "ppc64le", "ppc64p7", "ppc64iseries", "ppc64pseries", "ppciseries",
        "ppcpseries", "ppc32dy4", "ppc8260", "ppc8560",
        "riscv64", "loongarch64",
        "mips", "mipsel", "mips64", "mips64el", "mipsr6", "mipsr6el", "mips64r6", "mips64r6el",
        "sparc", "sparcv8", "sparcv9", "sparcv9v", "sparc64", "sparc64v",
        "alpha", "alphaev5", "alphaev56", "alphapca56", "alphaev6", "alphaev67",
        "ia64", "sh3", "sh4", "sh4a", "m68k", "m68kmint", "e2k", "hppa", "parisc",
        NULL,
};

static bool all_digits(const char *s, size_t n) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

PKGNOTE_PUBLIC int pkgnote_nevra_parse(const char *s, pkgnote_nevra *ret) {
        /* buffer_ must be covered: what is not written cannot be freed. */
        if (!ret || ret->size < PN_SIZE_1_0(pkgnote_nevra))
                return pn_error(-EINVAL, "pkgnote_nevra: size %zu is too small (set it to sizeof the struct)",
                                ret ? ret->size : 0);
        int r = pn_check_string(s, "NEVRA");
        if (r < 0)
                return r;
        char *buf = strdup(s);
        if (!buf)
                return pn_oom();
        pkgnote_nevra n = {.size = sizeof n};
        n.buffer_ = buf;
        char *p = buf;

        /* yum's E:N-V-R.A puts the epoch in front. */
        char *colon = strchr(p, ':');
        if (colon && all_digits(p, (size_t)(colon - p)) && !memchr(p, '-', (size_t)(colon - p))) {
                *colon = 0;
                n.epoch = p;
                p = colon + 1;
        }
        char *dot = strrchr(p, '.');
        if (!dot || !dot[1]) {
                free(buf);
                return pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: no architecture", s);
        }
        bool known = false;
        for (const char *const *a = rpm_arches; *a && !known; a++)
                known = !strcmp(dot + 1, *a);
        if (!known) {
                r = pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: '%s' is not an rpm architecture",
                             s, dot + 1);
                free(buf);
                return r;
        }
        *dot = 0;
        n.arch = dot + 1;
        char *dash_r = strrchr(p, '-');
        if (!dash_r || !dash_r[1]) {
                free(buf);
                return pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: no release", s);
        }
        *dash_r = 0;
        n.release = dash_r + 1;
        char *dash_v = strrchr(p, '-');
        if (!dash_v || !dash_v[1] || dash_v == p) {
                free(buf);
                return pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: no %s", s,
                                dash_v && dash_v == p ? "name" : "version");
        }
        *dash_v = 0;
        n.name = p;
        n.version = dash_v + 1;
        colon = strchr(n.version, ':');
        if (colon) {
                if (n.epoch || !all_digits(n.version, (size_t)(colon - n.version)) || !colon[1]) {
                        free(buf);
                        return pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: bad epoch", s);
                }
                *colon = 0;
                n.epoch = n.version;
                n.version = colon + 1;
        }
        if (strchr(n.version, ':') || strchr(n.release, ':') || strchr(n.name, ':')) {
                free(buf);
                return pn_error(-EINVAL, "'%s' is not NAME-[EPOCH:]VERSION-RELEASE.ARCH: stray ':'", s);
        }
        /* Within the caller's size: a struct of an older header ends
         * earlier; its size stays, so that it can be parsed into again. */
        return pn_result_copy(ret, &n, sizeof n, PN_SIZE_1_0(pkgnote_nevra), "pkgnote_nevra");
}

PKGNOTE_PUBLIC void pkgnote_nevra_clear(pkgnote_nevra *n) {
        if (!n || n->size < PN_SIZE_1_0(pkgnote_nevra))
                return;
        free(n->buffer_);
        pkgnote_nevra z = {.size = sizeof z};
        (void)pn_result_copy(n, &z, sizeof z, PN_SIZE_1_0(pkgnote_nevra), "pkgnote_nevra");
}

/* A unified kernel image's .osrel section (UAPI.5), read through the
 * object view: it sits here, with the other sources of os-release, so that
 * the view (lib/02-pe.c) stays below the metadata it is parsed into. */
#define MAX_OSREL (64u << 10)

PKGNOTE_PUBLIC int pkgnote_pe_uki_os_release(pkgnote_object *e, pkgnote_os_release **ret) {
        const uint8_t *d;
        size_t len;
        int r = e->pe ? pkgnote_pe_section_data(e, ".osrel", MAX_OSREL, &d, &len) : 0;
        if (r <= 0)
                return r;
        const uint8_t *nul = memchr(d, 0, len); /* the section's padding */
        r = pkgnote_os_release_parse((const char *)d, nul ? (size_t)(nul - d) : len, ret);
        return r < 0 ? r : 1;
}
