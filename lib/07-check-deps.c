/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen notes turned into package dependencies.
 *
 * Every entry of every note is one dependency on a list of alternative
 * sonames.  Entries naming the same list in the same ABI are merged, the
 * strongest priority winning (required > recommended > suggested).  rpm
 * names a soname the way its ELF dependency generator does: "()(64bit)"
 * after it for 64-bit objects of every machine but Alpha, nothing for
 * 32-bit ones; alternatives become a rich dependency "(a or b)".  Debian
 * names packages: each soname is looked up among the files the dpkg
 * database says its packages ship, in the library directories the dynamic
 * linker searches, for the object's architecture.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "08-core-private.h"
#include "03-model-dlopen.h"
#include "02-elf-const.h"
#include "04-pkgdb-private.h"
#include "03-model-json.h"
#include "07-check-resolve.h"

struct dep {
        json_t *sonames;  /* array of strings: the alternatives, in note order */
        char *rpm;        /* rpm's rendering, also the merge key */
        char *text;       /* "liba.so.1 or libb.so.2" */
        int priority;     /* PKGNOTE_DLOPEN_* */
        json_t *features; /* distinct feature names */
        json_t *files;    /* distinct paths that asked for it */
        int elf_class, big_endian;
        unsigned machine;
        json_t *packages; /* after resolving: per soname, an array of package names */
        int resolved;     /* 1, 0, or -ENODATA before resolving */
};

struct pkgnote_deps {
        struct dep *v;
        size_t n, cap;
};

PKGNOTE_PUBLIC int pkgnote_deps_new(pkgnote_deps **ret) {
        pkgnote_deps *d = calloc(1, sizeof *d);
        if (!d)
                return pn_oom();
        *ret = d;
        return 0;
}

static void dep_done(struct dep *x) {
        json_decref(x->sonames);
        json_decref(x->features);
        json_decref(x->files);
        json_decref(x->packages);
        free(x->rpm);
        free(x->text);
}

PKGNOTE_PUBLIC void pkgnote_deps_free(pkgnote_deps *d) {
        if (!d)
                return;
        for (size_t i = 0; i < d->n; i++)
                dep_done(&d->v[i]);
        free(d->v);
        free(d);
}

/* rpm's elfdeps marks 64-bit dependencies "(64bit)", except on Alpha. */
static const char *rpm_marker(int elf_class, unsigned machine) {
        return elf_class == 64 && machine != EM_ALPHA ? "()(64bit)" : "";
}

/* Joins the sonames of S with SEP, each followed by SUFFIX, inside
 * OPEN/CLOSE when there are several. */
static char *join(const json_t *s, const char *sep, const char *suffix, const char *open, const char *close) {
        size_t n = json_array_size(s), len = 1 + strlen(open) + strlen(close);
        for (size_t i = 0; i < n; i++)
                len += strlen(json_string_value(json_array_get(s, i))) + strlen(suffix) + strlen(sep);
        char *out = malloc(len), *p = out;
        if (!out)
                return NULL;
        if (n > 1)
                p = stpcpy(p, open);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        p = stpcpy(p, sep);
                p = stpcpy(stpcpy(p, json_string_value(json_array_get(s, i))), suffix);
        }
        if (n > 1)
                p = stpcpy(p, close);
        *p = '\0';
        return out;
}

/* Appends S to the string array A unless it is there already. */
static int add_unique(json_t *a, const char *s) {
        for (size_t i = 0; i < json_array_size(a); i++)
                if (!strcmp(json_string_value(json_array_get(a, i)), s))
                        return 0;
        json_t *v = json_string(s);
        if (!v || json_array_append_new(a, v) < 0)
                return pn_oom();
        return 0;
}

/* Adds PATH to the string array A once; bytes that are not UTF-8 (file
 * names may hold any) are written as the text \xNN. */
static int add_path(json_t *a, const char *path) {
        size_t len = strlen(path), bad = pn_utf8_invalid_at(path, len);
        if (bad == len)
                return add_unique(a, path);
        char *s = malloc(4 * len + 1), *p = s;
        if (!s)
                return pn_oom();
        for (size_t i = 0; i < len;) {
                size_t ok = pn_utf8_invalid_at(path + i, len - i);
                memcpy(p, path + i, ok);
                p += ok, i += ok;
                if (i < len)
                        p += sprintf(p, "\\x%02x", (unsigned char)path[i++]);
        }
        *p = '\0';
        int r = add_unique(a, s);
        free(s);
        return r;
}

static struct dep *find_or_add(pkgnote_deps *d, char *rpm) {
        for (size_t i = 0; i < d->n; i++)
                if (!strcmp(d->v[i].rpm, rpm)) {
                        free(rpm);
                        return &d->v[i];
                }
        if (PN_GROW(d->v, d->cap, d->n + 1) < 0) {
                free(rpm);
                return NULL;
        }
        struct dep *x = &d->v[d->n];
        *x = (struct dep){.rpm = rpm, .resolved = -ENODATA};
        x->features = json_array();
        x->files = json_array();
        if (!x->features || !x->files) {
                dep_done(x);
                return NULL;
        }
        d->n++;
        return x;
}

PKGNOTE_PUBLIC int pkgnote_deps_add(pkgnote_deps *d, const char *path, int elf_class, unsigned machine,
                                    int big_endian, const pkgnote_dlopen *note) {
        /* All or nothing: entries that give no dependency fail the call
         * before any is added. */
        for (size_t i = 0; i < pkgnote_dlopen_count(note); i++) {
                if (pkgnote_dlopen_soname_count(note, i) == 0)
                        return pn_error(-EBADMSG, "dlopen entry %zu lists no soname", i);
                /* A dependency is only as good as its name: nothing that
                 * is not a soname reaches an rpm or Debian field. */
                for (size_t j = 0; j < pkgnote_dlopen_soname_count(note, i); j++)
                        if (!pn_soname_shaped(pkgnote_dlopen_soname(note, i, j)))
                                return pn_error(-EBADMSG, "dlopen entry %zu: soname %zu does not look like a soname (lib*.so.N)", i, j);
                int r = pkgnote_dlopen_priority(note, i);
                if (r < 0)
                        return r;
        }
        const char *marker = rpm_marker(elf_class, machine);
        for (size_t i = 0; i < pkgnote_dlopen_count(note); i++) {
                size_t ns = pkgnote_dlopen_soname_count(note, i);
                json_t *s = json_array();
                if (!s)
                        return pn_oom();
                for (size_t j = 0; j < ns; j++)
                        if (add_unique(s, pkgnote_dlopen_soname(note, i, j)) < 0) {
                                json_decref(s);
                                return -ENOMEM;
                        }
                char *rpm = join(s, " or ", marker, "(", ")");
                struct dep *x = rpm ? find_or_add(d, rpm) : NULL;
                if (!x) {
                        json_decref(s);
                        return pn_oom();
                }
                if (!x->sonames) {
                        x->sonames = s;
                        x->text = join(s, " or ", "", "", "");
                        x->elf_class = elf_class, x->machine = machine, x->big_endian = big_endian;
                        if (!x->text)
                                return pn_oom();
                } else
                        json_decref(s);
                int p = pkgnote_dlopen_priority(note, i);
                if (p > x->priority)
                        x->priority = p;
                const char *feature = pkgnote_dlopen_get(note, i, "feature");
                if ((feature && add_unique(x->features, feature) < 0) || add_path(x->files, path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

PKGNOTE_PUBLIC size_t pkgnote_deps_count(const pkgnote_deps *d) {
        return d->n;
}
PKGNOTE_PUBLIC int pkgnote_deps_priority(const pkgnote_deps *d, size_t i) {
        return i < d->n ? d->v[i].priority : -EINVAL;
}
PKGNOTE_PUBLIC const char *pkgnote_deps_sonames(const pkgnote_deps *d, size_t i) {
        return i < d->n ? d->v[i].text : NULL;
}
PKGNOTE_PUBLIC int pkgnote_deps_resolved(const pkgnote_deps *d, size_t i) {
        return i < d->n ? d->v[i].resolved : -EINVAL;
}
PKGNOTE_PUBLIC size_t pkgnote_deps_soname_count(const pkgnote_deps *d, size_t i) {
        return i < d->n ? json_array_size(d->v[i].sonames) : 0;
}
PKGNOTE_PUBLIC const char *pkgnote_deps_soname(const pkgnote_deps *d, size_t i, size_t j) {
        return i < d->n ? json_string_value(json_array_get(d->v[i].sonames, j)) : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_deps_feature_count(const pkgnote_deps *d, size_t i) {
        return i < d->n ? json_array_size(d->v[i].features) : 0;
}
PKGNOTE_PUBLIC const char *pkgnote_deps_feature(const pkgnote_deps *d, size_t i, size_t k) {
        return i < d->n ? json_string_value(json_array_get(d->v[i].features, k)) : NULL;
}

/* ------------------------------------------------------------ dpkg */

/* Does the dpkg architecture ARCH (NULL: not qualified) and library
 * directory DIR (LEN bytes) fit an object of X's ABI?  Unknown ABIs take
 * any library directory. */
static bool abi_fits(const struct dep *x, const char *arch, const char *dir, size_t len) {
        static const char *const plain[] = {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib32", "/usr/lib32", "/libx32", "/usr/libx32"};
        bool known = false, arch_ok = !arch || !strcmp(arch, "all"), dir_ok = false;
        for (size_t k = 0; k < ELEMENTSOF(plain); k++)
                if (strlen(plain[k]) == len && !memcmp(dir, plain[k], len))
                        dir_ok = true;
        const struct pn_debian_abi *da;
        for (size_t k = 0; (da = pn_debian_abi(k)); k++) {
                if (da->machine != x->machine || da->elf_class != x->elf_class || da->big_endian != x->big_endian)
                        continue;
                known = true;
                if (arch && !strcmp(arch, da->arch))
                        arch_ok = true;
                const char *t = da->triplet;
                for (const char *prefix = "/lib/"; prefix; prefix = *prefix == '/' && prefix[1] == 'l' ? "/usr/lib/" : NULL) {
                        size_t pl = strlen(prefix), tl = strlen(t);
                        if (len == pl + tl && !memcmp(dir, prefix, pl) && !memcmp(dir + pl, t, tl))
                                dir_ok = true;
                }
        }
        if (!known) {
                /* Any multiarch directory will do. */
                if ((len > 5 && !memcmp(dir, "/lib/", 5) && !memchr(dir + 5, '/', len - 5) && memmem(dir, len, "-linux-", 7)) ||
                    (len > 9 && !memcmp(dir, "/usr/lib/", 9) && !memchr(dir + 9, '/', len - 9) && memmem(dir, len, "-linux-", 7)))
                        dir_ok = true;
                return dir_ok;
        }
        return arch_ok && dir_ok;
}

/* Records, from the dpkg .list file NAME (TEXT, LEN bytes), for every
 * soname a dependency wants, the package when it ships that soname in a
 * library directory of the dependency's ABI. */
static int scan_list(void *u, const char *name, char *text, size_t len) {
        pkgnote_deps *d = u;
        size_t nl = strlen(name);
        if (nl <= 5 || strcmp(name + nl - 5, ".list"))
                return 0;
        char pkg[256];
        snprintf(pkg, sizeof pkg, "%.*s", (int)(nl - 5), name);
        char *arch = strchr(pkg, ':');
        if (arch)
                *arch++ = '\0';
        int r = 0;
        for (char *line = text, *eol; r == 0 && line < text + len; line = eol + 1) {
                eol = memchr(line, '\n', (size_t)(text + len - line));
                if (!eol)
                        eol = text + len;
                *eol = '\0';
                char *base = strrchr(line, '/');
                if (!base || base == line)
                        continue;
                base++;
                for (size_t i = 0; i < d->n && r == 0; i++) {
                        struct dep *x = &d->v[i];
                        for (size_t j = 0; j < json_array_size(x->sonames); j++) {
                                if (strcmp(base, json_string_value(json_array_get(x->sonames, j))) ||
                                    !abi_fits(x, arch, line, (size_t)(base - 1 - line)))
                                        continue;
                                if (add_unique(json_array_get(x->packages, j), pkg) < 0)
                                        r = -ENOMEM;
                        }
                }
        }
        return r;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts the string array A by byte value, so that what the database
 * gives in directory order comes out the same everywhere. */
static int sort_strings(json_t *a) {
        size_t n = json_array_size(a);
        if (n < 2)
                return 0;
        json_t **v = malloc(n * sizeof *v);
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                v[i] = json_incref(json_array_get(a, i));
        /* Sort the values by their strings: pair each with its text. */
        const char **s = malloc(n * sizeof *s);
        if (!s) {
                for (size_t i = 0; i < n; i++)
                        json_decref(v[i]);
                free(v);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++)
                s[i] = json_string_value(v[i]);
        qsort(s, n, sizeof *s, cmp_str);
        int r = 0;
        for (size_t i = 0; i < n && r == 0; i++)
                if (json_array_set_new(a, i, json_string(s[i])) < 0)
                        r = -ENOMEM;
        for (size_t i = 0; i < n; i++)
                json_decref(v[i]);
        free(s);
        free(v);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_deps_resolve_dpkg(pkgnote_deps *d, const char *root) {
        for (size_t i = 0; i < d->n; i++) {
                struct dep *x = &d->v[i];
                json_decref(x->packages);
                x->packages = json_array();
                for (size_t j = 0; x->packages && j < json_array_size(x->sonames); j++)
                        if (json_array_append_new(x->packages, json_array()) < 0) {
                                json_decref(x->packages);
                                x->packages = NULL;
                        }
                if (!x->packages)
                        return pn_oom();
        }
        int rootfd = open(root ? root : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                return pn_error(-errno, "cannot open the root directory '%s': %s", root ? root : "/", strerror(errno));
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &rootfd);
        int r = pn_dpkg_each_list(&fs, NULL, scan_list, d);
        close(rootfd);
        if (r == -ENOMEM)
                return pn_oom();
        if (r < 0)
                return pn_error(r, "no dpkg database in '%s' (var/lib/dpkg/info): %s", root ? root : "/", strerror(-r));
        int missing = 0;
        for (size_t i = 0; i < d->n; i++) {
                struct dep *x = &d->v[i];
                x->resolved = 0;
                for (size_t j = 0; j < json_array_size(x->packages); j++) {
                        if (sort_strings(json_array_get(x->packages, j)) < 0)
                                return pn_oom();
                        if (json_array_size(json_array_get(x->packages, j)) > 0)
                                x->resolved = 1;
                }
                missing += !x->resolved;
        }
        return missing;
}

/* ------------------------------------------------------------ output */

/* The Debian dependency of X: "a | b" over the packages of every soname
 * (a soname shipped by several packages gives each as an alternative),
 * or NULL when none is known. */
static char *deb_of(const struct dep *x) {
        json_t *all = json_array();
        if (!all)
                return NULL;
        for (size_t j = 0; j < json_array_size(x->packages); j++) {
                json_t *p = json_array_get(x->packages, j);
                for (size_t k = 0; k < json_array_size(p); k++)
                        if (add_unique(all, json_string_value(json_array_get(p, k))) < 0) {
                                json_decref(all);
                                return NULL;
                        }
        }
        char *s = json_array_size(all) ? join(all, " | ", "", "", "") : NULL;
        json_decref(all);
        return s;
}

/* The dependencies, strongest priority first, then in order of first
 * mention: an index permutation. */
static size_t *ordered(const pkgnote_deps *d) {
        size_t *o = malloc((d->n ? d->n : 1) * sizeof *o), k = 0;
        if (!o)
                return NULL;
        for (int p = PKGNOTE_DLOPEN_REQUIRED; p >= PKGNOTE_DLOPEN_SUGGESTED; p--)
                for (size_t i = 0; i < d->n; i++)
                        if (d->v[i].priority == p)
                                o[k++] = i;
        return o;
}

static int format_rpm(const pkgnote_deps *d, const size_t *o, FILE *f) {
        static const char *const tag[] = {[PKGNOTE_DLOPEN_SUGGESTED] = "Suggests",
                                          [PKGNOTE_DLOPEN_RECOMMENDED] = "Recommends",
                                          [PKGNOTE_DLOPEN_REQUIRED] = "Requires"};
        for (size_t k = 0; k < d->n; k++)
                fprintf(f, "%s: %s\n", tag[d->v[o[k]].priority], d->v[o[k]].rpm);
        return 0;
}

static int format_deb(const pkgnote_deps *d, const size_t *o, FILE *f) {
        static const char *const field[] = {[PKGNOTE_DLOPEN_SUGGESTED] = "Suggests",
                                            [PKGNOTE_DLOPEN_RECOMMENDED] = "Recommends",
                                            [PKGNOTE_DLOPEN_REQUIRED] = "Depends"};
        for (int p = PKGNOTE_DLOPEN_REQUIRED; p >= PKGNOTE_DLOPEN_SUGGESTED; p--) {
                /* Same Debian dependency from two ABIs or two lists: once. */
                json_t *seen = json_array();
                if (!seen)
                        return -ENOMEM;
                fprintf(f, "dlopen:%s=", field[p]);
                for (size_t k = 0; k < d->n; k++) {
                        const struct dep *x = &d->v[o[k]];
                        if (x->priority != p)
                                continue;
                        char *s = deb_of(x);
                        size_t before = json_array_size(seen);
                        if (s && add_unique(seen, s) == 0 && json_array_size(seen) > before)
                                fprintf(f, "%s%s", before ? ", " : "", s);
                        free(s);
                }
                fputc('\n', f);
                json_decref(seen);
        }
        return 0;
}

static int format_json(const pkgnote_deps *d, const size_t *o, FILE *f) {
        json_t *arr = json_array();
        for (size_t k = 0; arr && k < d->n; k++) {
                const struct dep *x = &d->v[o[k]];
                char *deb = x->packages ? deb_of(x) : NULL;
                json_t *e = json_pack("{s:s,s:O,s:O,s:O,s:s,s:o}", "priority", pkgnote_dlopen_priority_name(x->priority),
                                      "soname", x->sonames, "features", x->features, "files", x->files, "rpm", x->rpm,
                                      "deb", deb ? json_string(deb) : json_null());
                free(deb);
                if (!e || json_array_append_new(arr, e) < 0) {
                        json_decref(arr);
                        arr = NULL;
                }
        }
        /* A reader's rendering: a control character in a feature name
         * comes out \u-escaped, so the output is always valid JSON. */
        char *s = arr ? pn_json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(arr);
        if (!s)
                return -ENOMEM;
        fprintf(f, "%s\n", s);
        free(s);
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_deps_format(const pkgnote_deps *d, int format, char **ret) {
        if (format < PKGNOTE_DEPS_RPM || format > PKGNOTE_DEPS_JSON)
                return pn_error(-EINVAL, "unknown dependency format %d", format);
        for (size_t i = 0; format == PKGNOTE_DEPS_DEB && i < d->n; i++)
                if (!d->v[i].packages)
                        return pn_error(-EINVAL, "Debian dependencies need the dpkg database read first");
        size_t *o = ordered(d);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = o ? open_memstream(&buf, &len) : NULL;
        if (!f) {
                free(o);
                return pn_oom();
        }
        int r = format == PKGNOTE_DEPS_RPM ? format_rpm(d, o, f) : format == PKGNOTE_DEPS_DEB ? format_deb(d, o, f) : format_json(d, o, f);
        free(o);
        if (fclose(f) != 0 && r == 0)
                r = pn_oom();
        if (r < 0) {
                free(buf);
                return r == -ENOMEM ? pn_oom() : r;
        }
        *ret = buf;
        return 0;
}
