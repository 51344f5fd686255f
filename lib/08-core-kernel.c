/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The running kernel (pkgnote_kernel): its notes and loaded modules from
 * sysfs, the installed image and module files of its release under a root
 * directory, their packages from that root's database, accepted only when
 * the build-ids are equal, and whether the machine needs a reboot.
 *
 * sysfs: /sys/kernel/notes is the kernel's .notes section as it was linked
 * (kernel/ksysfs.c); /sys/module/NAME/notes/SECTION is each loaded module's
 * note section (kernel/module/sysfs.c); a built-in module has a directory
 * under /sys/module too but no notes and no initstate, and is passed over.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "01-base.h"
#include "02-elf-kernel.h"
#include "03-model-json.h"
#include "04-pkgdb-private.h"
#include "08-core-private.h"
#include "fileio.h"

#define MAX_RELEASE 64u /* __NEW_UTS_LEN */
#define MAX_MODULE_NAME 64u
#define MAX_WALK_DEPTH 16
#define MAX_WALK_ENTRIES (1u << 20)
#define MAX_IMAGE (256u << 20)
#define MAX_KO_FILE (64u << 20)
#define HEX_MAX (2 * PN_KERNEL_MAX_BUILD_ID + 1)
#define N_REASONS 3
/* sysfs hands out the notes as the kernel holds them: in the machine's byte order. */
#define HOST_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

struct kpkg {
        const char *type, *name, *version, *binary, *arch; /* the database's strings */
};

struct kmod {
        char *name;
        char id[HEX_MAX]; /* "" none */
        char *file;
        bool file_updates; /* FILE lies under updates/, which depmod prefers */
        char file_id[HEX_MAX];
        char *file_error;
        struct kpkg pkg;
};

struct pkgnote_kernel {
        char *root; /* where the image, modules and database were looked for */
        char *release;
        char id[HEX_MAX];
        char *salt;
        pkgnote_metadata *note;
        char *image; /* the first of the candidates there is */
        char image_id[HEX_MAX];
        char *image_error;
        /* Every candidate there is: Debian ships /usr/lib/modules/R/vmlinuz
         * and links /boot/vmlinuz-R to it from a hook, unowned. */
        char *cand[3];
        char cand_id[3][HEX_MAX];
        size_t n_cand;
        struct kpkg pkg;
        pkgnote_pkgdb *db;
        struct kmod *mods;
        size_t n_mods;
        bool no_modules; /* not read (PKGNOTE_KERNEL_NO_MODULES) */
        bool no_image;   /* no installed file looked at (PKGNOTE_KERNEL_NO_IMAGE) */
        unsigned reboot;
        char *why[N_REASONS];
        char *undecided; /* pkgnote_kernel_info.undecided */
        char *db_error;  /* the package database could not be opened */
        /* Memory ran out on a path that goes on without what it could not
         * make: the read fails with -ENOMEM, as its verdict may be wrong. */
        bool oom;
};

static void hex(char *out, const uint8_t *b, size_t n) {
        pn_hex(out, b, n);
}

PKGNOTE_PUBLIC void pkgnote_kernel_free(pkgnote_kernel *k) {
        if (!k)
                return;
        for (size_t i = 0; i < k->n_mods; i++) {
                free(k->mods[i].name);
                free(k->mods[i].file);
                free(k->mods[i].file_error);
        }
        free(k->mods);
        free(k->root);
        free(k->release);
        free(k->salt);
        pkgnote_metadata_free(k->note);
        free(k->image);
        free(k->image_error);
        for (size_t i = 0; i < k->n_cand; i++)
                free(k->cand[i]);
        pkgnote_pkgdb_free(k->db);
        for (size_t i = 0; i < N_REASONS; i++)
                free(k->why[i]);
        free(k->undecided);
        free(k->db_error);
        free(k);
}

/* A sysfs file REL below DIRFD, whatever size it claims (sysfs and procfs
 * files may say 4096 or 0), at most MAX bytes. */
static int read_sysfs(int dirfd, const char *rel, size_t max, char **data, size_t *len) {
        int fd = pn_open_below(dirfd, rel, false);
        if (fd < 0)
                return fd;
        int r = pn_read_all(fd, max, data, len);
        close(fd);
        return r;
}

/* The release: the first line of the text, checked as a name the kernel could give. */
static int check_release(const char *s, size_t len, const char *what, char **ret) {
        if (len && s[len - 1] == '\n')
                len--;
        if (len == 0 || len > MAX_RELEASE)
                return pn_error(-EBADMSG, "%s: a kernel release of %zu bytes (1 to %u expected)", what, len, MAX_RELEASE);
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)s[i] <= ' ' || s[i] == '/' || (unsigned char)s[i] >= 0x7f)
                        return pn_error(-EBADMSG, "%s: the kernel release holds a character a release cannot (byte %zu)",
                                        what, i);
        if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
                return pn_error(-EBADMSG, "%s: the kernel release is \"%.*s\"", what, (int)len, s);
        char *r = strndup(s, len);
        if (!r)
                return pn_oom();
        *ret = r;
        return 0;
}

static int read_release(const char *path, char **ret) {
        if (!path) {
                struct utsname u;
                if (uname(&u) < 0)
                        return pn_error(-errno, "uname: %s", strerror(errno));
                return check_release(u.release, strlen(u.release), "uname", ret);
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return pn_error(-errno, "%s: cannot open: %s", path, strerror(errno));
        struct stat st;
        char *data = NULL;
        size_t len = 0;
        int r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : pn_read_all(fd, 4096, &data, &len);
        close(fd);
        if (r < 0) {
                free(data);
                return pn_error(r, "%s: cannot read: %s", path, r == -EINVAL ? "not a regular file" : strerror(-r));
        }
        r = check_release(data, len, path, ret);
        free(data);
        return r;
}

static int read_notes(pkgnote_kernel *k, int sysfd) {
        char *data = NULL;
        size_t len = 0;
        int r = read_sysfs(sysfd, "kernel/notes", PN_KERNEL_MAX_NOTES_BYTES, &data, &len);
        if (r == -E2BIG)
                return pn_error(r, "kernel/notes: more than %u bytes", PN_KERNEL_MAX_NOTES_BYTES);
        if (r < 0)
                return pn_error(r, "kernel/notes: cannot read: %s", strerror(-r));
        struct pn_knotes n;
        r = pn_knotes_parse((const uint8_t *)data, len, HOST_BE, "kernel/notes", &n);
        free(data);
        if (r < 0)
                return r;
        if (n.build_id_len)
                hex(k->id, n.build_id, n.build_id_len);
        k->salt = n.salt;
        n.salt = NULL;
        if (n.package) {
                r = pkgnote_metadata_parse(n.package, strlen(n.package), &k->note);
                if (r < 0)
                        r = pn_error(r, "kernel/notes: the package note is not valid: %s", pkgnote_last_error());
        }
        pn_knotes_done(&n);
        return r;
}

static bool module_name_ok(const char *s) {
        size_t l = strlen(s);
        if (l == 0 || l >= MAX_MODULE_NAME || s[0] == '.')
                return false;
        for (size_t i = 0; i < l; i++)
                if (!pn_ascii_alnum(s[i]) && s[i] != '_' && s[i] != '-')
                        return false;
        return true;
}

static int cmp_mod(const void *a, const void *b) {
        return strcmp(((const struct kmod *)a)->name, ((const struct kmod *)b)->name);
}

static int read_modules(pkgnote_kernel *k, int sysfd) {
        int fd = pn_open_below(sysfd, "module", true);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return pn_error(fd, "module: cannot open: %s", strerror(-fd));
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return pn_error(-errno, "module: cannot list: %s", strerror(errno));
        }
        int r = 0;
        size_t cap = 0, seen = 0;
        struct dirent *de;
        while ((errno = 0, de = readdir(d))) {
                if (++seen > PKGNOTE_MAX_KERNEL_MODULES * 2u) {
                        r = pn_error(-E2BIG, "module: more than %u entries", PKGNOTE_MAX_KERNEL_MODULES * 2u);
                        break;
                }
                if (!module_name_ok(de->d_name))
                        continue;
                char rel[320];
                snprintf(rel, sizeof rel, "%s/notes/.note.gnu.build-id", de->d_name);
                char *data = NULL;
                size_t len = 0;
                int q = read_sysfs(dirfd(d), rel, 4096, &data, &len);
                if (q < 0) {
                        /* No notes: loaded only if it has an initstate, else built in. */
                        snprintf(rel, sizeof rel, "%s/initstate", de->d_name);
                        int f = pn_open_below(dirfd(d), rel, false);
                        if (f < 0)
                                continue;
                        close(f);
                }
                if (k->n_mods >= PKGNOTE_MAX_KERNEL_MODULES) {
                        free(data);
                        r = pn_error(-E2BIG, "module: more than %u loaded modules", PKGNOTE_MAX_KERNEL_MODULES);
                        break;
                }
                if (PN_GROW(k->mods, cap, k->n_mods + 1) < 0) {
                        free(data);
                        r = pn_oom();
                        break;
                }
                struct kmod *m = &k->mods[k->n_mods];
                *m = (struct kmod){.name = strdup(de->d_name)};
                if (!m->name) {
                        free(data);
                        r = pn_oom();
                        break;
                }
                k->n_mods++;
                if (q >= 0) {
                        struct pn_knotes n;
                        char what[400];
                        snprintf(what, sizeof what, "module/%s", rel);
                        q = pn_knotes_parse((const uint8_t *)data, len, HOST_BE, what, &n);
                        if (q < 0) {
                                free(data);
                                r = q;
                                break;
                        }
                        if (n.build_id_len)
                                hex(m->id, n.build_id, n.build_id_len);
                        pn_knotes_done(&n);
                }
                free(data);
        }
        if (!de && errno && r == 0)
                r = pn_error(-errno, "module: cannot list: %s", strerror(errno));
        closedir(d);
        if (k->n_mods)
                qsort(k->mods, k->n_mods, sizeof *k->mods, cmp_mod);
        return r;
}

/* ---- the installed image and module files ---- */

static char *error_text(pkgnote_kernel *k) {
        const char *e = pkgnote_last_error();
        char *s = strdup(e && *e ? e : "unknown error");
        if (!s)
                k->oom = true;
        return s;
}

static void read_image(pkgnote_kernel *k, int rootfd) {
        const char *pre[] = {"/boot/vmlinuz-", "/usr/lib/modules/", "/lib/modules/"};
        const char *post[] = {"", "/vmlinuz", "/vmlinuz"};
        for (size_t i = 0; i < ELEMENTSOF(pre); i++) {
                char path[256];
                snprintf(path, sizeof path, "%s%s%s", pre[i], k->release, post[i]);
                void *data = NULL;
                size_t len = 0;
                int r = pn_read_in_root(rootfd, path, MAX_IMAGE, &data, &len);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue;
                size_t c = k->n_cand;
                if (r == -ENOMEM || !(k->cand[c] = strdup(path))) {
                        free(data);
                        k->oom = true;
                        return;
                }
                k->n_cand++;
                if (r >= 0) {
                        uint8_t id[PN_KERNEL_MAX_BUILD_ID];
                        size_t n = 0;
                        r = pn_kernel_image_build_id(data, len, id, &n);
                        if (r > 0)
                                hex(k->cand_id[c], id, n);
                        else if (r == 0)
                                pn_error(-ENODATA, "the image has no build-id");
                        else if (r == -ENOMEM)
                                k->oom = true;
                        free(data);
                }
                if (c > 0)
                        continue;
                if (!(k->image = strdup(path))) {
                        k->oom = true;
                        return;
                }
                if (r > 0)
                        memcpy(k->image_id, k->cand_id[0], HEX_MAX);
                else
                        k->image_error = error_text(k);
        }
}

static bool has_suffix(const char *s, const char *suf, size_t *stem) {
        size_t l = strlen(s), m = strlen(suf);
        if (l <= m || strcmp(s + l - m, suf))
                return false;
        *stem = l - m;
        return true;
}

struct walk {
        pkgnote_kernel *k;
        char base[128]; /* "/usr/lib/modules/RELEASE" */
        size_t entries;
        int err;
};

static void walk_file(struct walk *w, const char *rel, const char *name) {
        static const char *const suf[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
        size_t stem = 0;
        bool ok = false;
        for (size_t i = 0; i < ELEMENTSOF(suf) && !ok; i++)
                ok = has_suffix(name, suf[i], &stem);
        if (!ok || stem >= MAX_MODULE_NAME)
                return;
        char key[MAX_MODULE_NAME];
        for (size_t i = 0; i < stem; i++)
                key[i] = name[i] == '-' ? '_' : name[i];
        key[stem] = 0;
        struct kmod probe = {.name = key};
        struct kmod *m = bsearch(&probe, w->k->mods, w->k->n_mods, sizeof *w->k->mods, cmp_mod);
        if (!m)
                return;
        bool updates = !strncmp(rel, "updates/", 8);
        char *path = NULL;
        if (asprintf(&path, "%s/%s", w->base, rel) < 0) {
                w->k->oom = true;
                return;
        }
        /* depmod's order: updates/ first; else the first path by name. */
        if (!m->file || (updates && !m->file_updates) || (updates == m->file_updates && strcmp(path, m->file) < 0)) {
                free(m->file);
                m->file = path;
                m->file_updates = updates;
        } else
                free(path);
}

static void walk_dir(struct walk *w, int fd, const char *rel, int depth) {
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                        continue;
                if (++w->entries > MAX_WALK_ENTRIES) {
                        w->err = -E2BIG; /* the rest not looked at: said by read_module_files() */
                        break;
                }
                char sub[4096];
                if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) >= (int)sizeof sub)
                        continue;
                unsigned char type = de->d_type;
                if (type == DT_UNKNOWN) { /* a file system without d_type: asked */
                        struct stat st;
                        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                                continue;
                        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
                }
                if (type == DT_DIR) {
                        if (depth >= MAX_WALK_DEPTH)
                                continue;
                        int c = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (c >= 0)
                                walk_dir(w, c, sub, depth + 1);
                } else if (type == DT_REG)
                        walk_file(w, sub, de->d_name);
        }
        closedir(d);
}

static void read_module_files(pkgnote_kernel *k, int rootfd) {
        if (k->n_mods == 0)
                return;
        const char *dirs[] = {"/usr/lib/modules/", "/lib/modules/"};
        struct walk w = {.k = k};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                snprintf(w.base, sizeof w.base, "%s%s", dirs[i], k->release);
                int fd = pn_open_dir_in_root(rootfd, w.base);
                if (fd < 0)
                        continue;
                walk_dir(&w, fd, "", 0);
                break;
        }
        if (w.err) /* modules whose files were not looked for say so */
                for (size_t i = 0; i < k->n_mods; i++)
                        if (!k->mods[i].file && !k->mods[i].file_error &&
                            !(k->mods[i].file_error = strdup("more files under the release's modules than looked at")))
                                k->oom = true;
        for (size_t i = 0; i < k->n_mods; i++) {
                struct kmod *m = &k->mods[i];
                if (!m->file)
                        continue;
                void *data = NULL;
                size_t len = 0;
                int r = pn_read_in_root(rootfd, m->file, MAX_KO_FILE, &data, &len);
                if (r >= 0) {
                        uint8_t id[PN_KERNEL_MAX_BUILD_ID];
                        size_t n = 0;
                        r = pn_kernel_module_build_id(data, len, id, &n);
                        free(data);
                        if (r > 0)
                                hex(m->file_id, id, n);
                        else if (r == 0)
                                r = pn_error(-ENODATA, "the module file has no build-id");
                }
                if (r == -ENOMEM)
                        k->oom = true;
                if (r <= 0)
                        m->file_error = error_text(k);
        }
}

/* ---- packages ---- */

static bool owner(pkgnote_kernel *k, const char *path, pkgnote_db_package *p) {
        size_t idx;
        if (!k->db || !path || pkgnote_pkgdb_owner(k->db, path, &idx) <= 0)
                return false;
        *p = (pkgnote_db_package)PKGNOTE_DB_PACKAGE_INIT;
        return pkgnote_pkgdb_package(k->db, idx, p) > 0;
}

static void take(struct kpkg *to, const pkgnote_kernel *k, const pkgnote_db_package *p) {
        *to = (struct kpkg){.type = pkgnote_pkgdb_type(k->db), .name = p->name, .version = p->version, .binary = p->binary,
                            .arch = p->architecture};
}

/* The root's dpkg database, else its rpm one; a database there that
 * cannot be read is said (k->db_error), none at all is not. */
static void open_db(pkgnote_kernel *k, const char *root) {
        int r = pkgnote_pkgdb_open(root, "deb", NULL, &k->db);
        if (r > 0)
                return;
        k->db = NULL;
        if (r == -ENOMEM) {
                k->oom = true;
                return;
        }
        if (r != -ENOENT) {
                k->db_error = error_text(k);
                return;
        }
        r = pkgnote_pkgdb_open(root, "rpm", NULL, &k->db);
        if (r > 0)
                return;
        k->db = NULL;
        if (r == -ENOMEM)
                k->oom = true;
        else if (r < 0 && r != -ENOENT && r != -EOPNOTSUPP)
                k->db_error = error_text(k);
}

/* The next word of *P (between "-.+~_") that is not all digits, advancing
 * *P past it: its start and *LEN, or NULL at the end. */
static const char *next_word(const char **p, size_t *len) {
        for (;;) {
                *p += strspn(*p, "-.+~_");
                if (!**p)
                        return NULL;
                const char *w = *p;
                size_t n = strcspn(w, "-.+~_");
                *p += n;
                for (size_t i = 0; i < n; i++)
                        if (!pn_ascii_digit(w[i])) {
                                *len = n;
                                return w;
                        }
        }
}

/* Whether the releases A and B are of one flavour: the same words that
 * are not numbers ("amd64" for 6.1.0-1-amd64 and 6.1.0-2-amd64, not
 * "rt amd64"; "generic"; "fc39 x86_64"). */
static bool same_flavour(const char *a, const char *b) {
        for (;;) {
                size_t la = 0, lb = 0;
                const char *wa = next_word(&a, &la), *wb = next_word(&b, &lb);
                if (!wa || !wb)
                        return !wa && !wb;
                if (la != lb || memcmp(wa, wb, la))
                        return false;
        }
}

/* B's binary name with RB replaced by RA equals A's, and the releases are
 * of one flavour (linux-image-6.1.0-2-amd64 for linux-image-6.1.0-1-amd64,
 * not linux-image-6.1.0-3-rt-amd64), or the two names are equal (rpm's
 * kernel-core). */
static bool same_line(const char *a, const char *b, const char *ra, const char *rb) {
        if (!strcmp(a, b))
                return true;
        const char *at = strstr(b, rb);
        if (!at || !same_flavour(ra, rb))
                return false;
        size_t pre = (size_t)(at - b), lr = strlen(rb);
        return !strncmp(a, b, pre) && !strncmp(a + pre, ra, strlen(ra)) && !strcmp(a + pre + strlen(ra), at + lr);
}

struct newer {
        pkgnote_kernel *k;
        pkgnote_db_package run;
        pkgnote_db_package best;
        char best_path[256];
        bool found;
};

static void consider(struct newer *nw, const char *release, const char *path) {
        pkgnote_db_package p;
        if (!strcmp(release, nw->k->release) || !owner(nw->k, path, &p))
                return;
        if (!p.architecture || !nw->run.architecture || strcmp(p.architecture, nw->run.architecture) ||
            !p.binary_name || !p.binary_version || !same_line(nw->run.binary_name, p.binary_name, nw->k->release, release))
                return;
        const char *type = pkgnote_pkgdb_type(nw->k->db);
        if (pn_version_compare(type, p.binary_version, nw->run.binary_version) <= 0)
                return;
        if (nw->found && pn_version_compare(type, p.binary_version, nw->best.binary_version) <= 0)
                return;
        nw->best = p;
        nw->found = true;
        snprintf(nw->best_path, sizeof nw->best_path, "%s", path);
}

static void scan_releases(struct newer *nw, int rootfd, const char *dir, bool boot) {
        int fd = pn_open_dir_in_root(rootfd, dir);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        size_t seen = 0;
        while ((de = readdir(d)) && ++seen < 65536) {
                const char *rel = de->d_name;
                if (boot ? strncmp(rel, "vmlinuz-", 8) : rel[0] == '.')
                        continue;
                const char *release = boot ? rel + 8 : rel;
                if (!*release || strlen(release) > MAX_RELEASE)
                        continue;
                char path[256];
                snprintf(path, sizeof path, boot ? "%s/%s" : "%s/%s/vmlinuz", dir, rel);
                consider(nw, release, path);
        }
        closedir(d);
}

static int reason(pkgnote_kernel *k, unsigned bit, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reason(pkgnote_kernel *k, unsigned bit, const char *fmt, ...) {
        size_t i = bit == PKGNOTE_REBOOT_IMAGE_DIFFERS ? 0 : bit == PKGNOTE_REBOOT_IMAGE_MISSING ? 1 : 2;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&k->why[i], fmt, ap);
        va_end(ap);
        if (r < 0) {
                k->why[i] = NULL;
                return pn_oom();
        }
        k->reboot |= bit;
        return 0;
}

/* Why it cannot be told, into k->undecided (the first reason kept). */
static int undecided(pkgnote_kernel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int undecided(pkgnote_kernel *k, const char *fmt, ...) {
        if (k->undecided)
                return 0;
        va_list ap;
        va_start(ap, fmt);
        int r = vasprintf(&k->undecided, fmt, ap);
        va_end(ap);
        if (r < 0) {
                k->undecided = NULL;
                return pn_oom();
        }
        return 0;
}

static int decide(pkgnote_kernel *k, int rootfd) {
        int r = 0;
        /* The running kernel against every candidate whose build-id was
         * read (Debian has the image twice, one a link): equal to one is
         * the same kernel; read and equal to none is another. */
        size_t known = 0, same = 0, first_known = SIZE_MAX;
        for (size_t i = 0; i < k->n_cand; i++)
                if (*k->cand_id[i]) {
                        known++;
                        same += *k->id && !strcmp(k->id, k->cand_id[i]);
                        if (first_known == SIZE_MAX)
                                first_known = i;
                }
        if (!k->image)
                r = reason(k, PKGNOTE_REBOOT_IMAGE_MISSING,
                           "no image of the running release %s is installed (/boot/vmlinuz-%s, /usr/lib/modules/%s/vmlinuz)",
                           k->release, k->release, k->release);
        else if (!*k->id)
                r = undecided(k, "the running kernel publishes no build-id to compare with the installed image %s", k->image);
        else if (known && !same)
                r = reason(k, PKGNOTE_REBOOT_IMAGE_DIFFERS,
                           "the running kernel's build-id %s is not that of the installed image %s (%s)", k->id,
                           k->cand[first_known], k->cand_id[first_known]);
        else if (!known)
                r = undecided(k, "the build-id of the installed image %s cannot be read: %s", k->image,
                              k->image_error ? k->image_error : "unknown error");
        if (r == 0 && k->db_error)
                r = undecided(k, "the package database cannot be read, so a newer kernel package is not looked for: %s",
                              k->db_error);
        if (r < 0 || !k->db)
                return r;
        struct newer nw = {.k = k};
        bool have = false;
        for (size_t i = 0; i < k->n_cand && !have; i++)
                have = owner(k, k->cand[i], &nw.run);
        if (!have || !nw.run.binary_name || !nw.run.binary_version)
                return 0;
        scan_releases(&nw, rootfd, "/boot", true);
        scan_releases(&nw, rootfd, "/usr/lib/modules", false);
        if (nw.found)
                r = reason(k, PKGNOTE_REBOOT_NEWER_PACKAGE,
                           "a newer kernel package is installed: %s %s (%s), running %s %s", nw.best.binary,
                           nw.best.binary_version, nw.best_path, nw.run.binary, nw.run.binary_version);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_kernel_read(const pkgnote_kernel_options *o, pkgnote_kernel **ret) {
        pkgnote_kernel_options opt = PKGNOTE_KERNEL_OPTIONS_INIT;
        if (!ret)
                return pn_error(-EINVAL, "pkgnote_kernel_read: no result pointer");
        if (o) {
                if (o->size < PN_END(pkgnote_kernel_options, flags))
                        return pn_error(-EINVAL, "pkgnote_kernel_options without its size");
                int r = pn_options_read(&opt, sizeof opt, o, PN_END(pkgnote_kernel_options, flags), "pkgnote_kernel_options");
                if (r < 0)
                        return r;
        }
        const unsigned known = PKGNOTE_KERNEL_NO_DATABASE | PKGNOTE_KERNEL_NO_MODULES | PKGNOTE_KERNEL_NO_IMAGE;
        if (opt.flags & ~known)
                return pn_error(-EINVAL, "pkgnote_kernel_options: unknown flags %#x", opt.flags & ~known);
        const char *sysfs = opt.sysfs ? opt.sysfs : "/sys";
        int sysfd = open(sysfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (sysfd < 0)
                return pn_error(-errno, "%s: cannot open: %s", sysfs, strerror(errno));
        const char *root = opt.root ? opt.root : "/";
        int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0) {
                int e = -errno;
                close(sysfd);
                return pn_error(e, "%s: cannot open: %s", root, strerror(-e));
        }
        pkgnote_kernel *k = calloc(1, sizeof *k);
        int r = k && (k->root = strdup(root)) ? 0 : pn_oom();
        if (r == 0)
                r = read_release(opt.osrelease, &k->release);
        if (r == 0) {
                r = read_notes(k, sysfd);
                if (r < 0 && r != -ENOMEM)
                        r = pn_error(r, "%s: %s", sysfs, pkgnote_last_error());
        }
        if (r == 0 && (opt.flags & PKGNOTE_KERNEL_NO_MODULES))
                k->no_modules = true;
        else if (r == 0)
                r = read_modules(k, sysfd);
        if (r == 0 && (opt.flags & PKGNOTE_KERNEL_NO_IMAGE)) {
                /* The kernel's own notes alone: its package only from its
                 * note, no file read, no reboot answer. */
                k->no_image = true;
                if (k->note)
                        k->pkg = (struct kpkg){.type = pkgnote_metadata_type(k->note), .name = pkgnote_metadata_name(k->note),
                                               .version = pkgnote_metadata_version(k->note)};
                r = undecided(k, "the installed image was not looked at");
        } else if (r == 0) {
                read_image(k, rootfd);
                read_module_files(k, rootfd);
                /* The database only when there is a file to ask it about
                 * (an image, a module's file): reading it is the costly part. */
                bool files = k->n_cand > 0;
                for (size_t i = 0; i < k->n_mods && !files; i++)
                        files = k->mods[i].file != NULL;
                if (files && !(opt.flags & PKGNOTE_KERNEL_NO_DATABASE))
                        open_db(k, opt.root);
                pkgnote_db_package p;
                if (k->note)
                        k->pkg = (struct kpkg){.type = pkgnote_metadata_type(k->note), .name = pkgnote_metadata_name(k->note),
                                               .version = pkgnote_metadata_version(k->note)};
                else
                        for (size_t i = 0; i < k->n_cand; i++)
                                if (*k->id && !strcmp(k->id, k->cand_id[i]) && owner(k, k->cand[i], &p)) {
                                        take(&k->pkg, k, &p);
                                        break;
                                }
                for (size_t i = 0; i < k->n_mods; i++) {
                        struct kmod *m = &k->mods[i];
                        if (*m->id && !strcmp(m->id, m->file_id) && owner(k, m->file, &p))
                                take(&m->pkg, k, &p);
                }
                r = decide(k, rootfd);
        }
        if (r >= 0 && k->oom)
                r = pn_oom();
        close(sysfd);
        close(rootfd);
        if (r < 0) {
                pkgnote_kernel_free(k);
                return r;
        }
        *ret = k;
        return 1;
}

const char *pn_kernel_root(const pkgnote_kernel *k) {
        return k->root;
}

const char *pn_kernel_db_architecture(const pkgnote_kernel *k, size_t i) {
        if (i == SIZE_MAX)
                return k->note ? NULL : k->pkg.arch;
        return i < k->n_mods ? k->mods[i].pkg.arch : NULL;
}

PKGNOTE_PUBLIC int pkgnote_kernel_get(const pkgnote_kernel *k, pkgnote_kernel_info *ret) {
        if (!ret || ret->size < sizeof(size_t))
                return pn_error(-EINVAL, "pkgnote_kernel_info without its size");
        pkgnote_kernel_info t = {
                .size = ret->size,
                .release = k->release,
                .build_id = *k->id ? k->id : NULL,
                .build_salt = k->salt,
                .note = k->note,
                .image = k->image,
                .image_build_id = *k->image_id ? k->image_id : NULL,
                .image_error = k->image_error,
                .package_origin = k->note ? PKGNOTE_ORIGIN_DISK_NOTE : k->pkg.name ? PKGNOTE_ORIGIN_DATABASE : PKGNOTE_ORIGIN_NONE,
                .db_type = k->note ? NULL : k->pkg.type,
                .db_name = k->note ? NULL : k->pkg.name,
                .db_version = k->note ? NULL : k->pkg.version,
                .db_binary = k->note ? NULL : k->pkg.binary,
                .module_count = k->n_mods,
                .reboot = k->reboot,
                .undecided = k->undecided,
        };
        memcpy(ret, &t, ret->size < sizeof t ? ret->size : sizeof t);
        return 1;
}

PKGNOTE_PUBLIC int pkgnote_kernel_module_get(const pkgnote_kernel *k, size_t i, pkgnote_kernel_module *ret) {
        if (!ret || ret->size < sizeof(size_t))
                return pn_error(-EINVAL, "pkgnote_kernel_module without its size");
        if (i >= k->n_mods)
                return 0;
        const struct kmod *m = &k->mods[i];
        pkgnote_kernel_module t = {
                .size = ret->size,
                .name = m->name,
                .build_id = *m->id ? m->id : NULL,
                .file = m->file,
                .file_build_id = *m->file_id ? m->file_id : NULL,
                .file_error = m->file_error,
                .db_type = m->pkg.type,
                .db_name = m->pkg.name,
                .db_version = m->pkg.version,
                .db_binary = m->pkg.binary,
        };
        memcpy(ret, &t, ret->size < sizeof t ? ret->size : sizeof t);
        return 1;
}

PKGNOTE_PUBLIC const char *pkgnote_kernel_reboot_name(unsigned reason_bit) {
        switch (reason_bit) {
        case PKGNOTE_REBOOT_IMAGE_DIFFERS:
                return "image-differs";
        case PKGNOTE_REBOOT_IMAGE_MISSING:
                return "image-missing";
        case PKGNOTE_REBOOT_NEWER_PACKAGE:
                return "newer-package";
        default:
                return NULL;
        }
}

PKGNOTE_PUBLIC const char *pkgnote_kernel_reboot_text(const pkgnote_kernel *k, unsigned reason_bit) {
        if (!k || !(k->reboot & reason_bit) || !pkgnote_kernel_reboot_name(reason_bit))
                return NULL;
        size_t i = reason_bit == PKGNOTE_REBOOT_IMAGE_DIFFERS ? 0 : reason_bit == PKGNOTE_REBOOT_IMAGE_MISSING ? 1 : 2;
        return k->why[i];
}

/* Sets KEY to the string S (bytes from files: not UTF-8 as \xNN) when S is
 * not NULL: false when out of memory. */
static bool set_str(json_t *o, const char *key, const char *s) {
        if (!s)
                return true;
        json_t *v = pn_json_bytes(s);
        return v && json_object_set_new(o, key, v) == 0;
}

static json_t *pkg_json(const struct kpkg *p, const char *from) {
        if (!p->name)
                return json_null();
        json_t *o = json_object();
        if (o && set_str(o, "type", p->type) && set_str(o, "name", p->name) && set_str(o, "version", p->version) &&
            set_str(o, "binary", p->binary) && set_str(o, "from", from))
                return o;
        json_decref(o);
        return NULL;
}

PKGNOTE_PUBLIC int pkgnote_kernel_to_json(const pkgnote_kernel *k, char **ret) {
        json_t *o = json_object(), *mods = json_array(), *why = json_array(), *img = json_object();
        bool ok = o && mods && why && img;
        ok = ok && set_str(o, "release", k->release) && json_object_set_new(o, "buildId", *k->id ? json_string(k->id) : json_null()) == 0;
        ok = ok && json_object_set_new(o, "buildSalt", k->salt ? pn_json_bytes(k->salt) : json_null()) == 0;
        if (ok) {
                char *nj = NULL;
                json_t *n = NULL;
                if (!k->note)
                        n = json_null();
                else if (pkgnote_metadata_to_json(k->note, &nj) >= 0) {
                        n = json_loads(nj, 0, NULL);
                        free(nj);
                }
                ok = n && json_object_set_new(o, "note", n) == 0;
        }
        ok = ok && json_object_set_new(img, "path", k->image ? pn_json_bytes(k->image) : json_null()) == 0 &&
             json_object_set_new(img, "buildId", *k->image_id ? json_string(k->image_id) : json_null()) == 0 &&
             set_str(img, "error", k->image_error) && (k->no_image || json_object_set(o, "image", img) == 0);
        if (ok) {
                json_t *p = pkg_json(&k->pkg, k->note ? "note" : "database");
                ok = p && json_object_set_new(o, "package", p) == 0;
        }
        for (size_t i = 0; ok && i < k->n_mods; i++) {
                const struct kmod *m = &k->mods[i];
                json_t *mo = json_object();
                /* json_object_set_new() and json_array_append_new() take the
                 * value over, failing or not. */
                ok = mo && set_str(mo, "name", m->name) &&
                     json_object_set_new(mo, "buildId", *m->id ? json_string(m->id) : json_null()) == 0 &&
                     json_object_set_new(mo, "file", m->file ? pn_json_bytes(m->file) : json_null()) == 0 &&
                     json_object_set_new(mo, "fileBuildId", *m->file_id ? json_string(m->file_id) : json_null()) == 0 &&
                     set_str(mo, "fileError", m->file_error) &&
                     json_object_set_new(mo, "package", pkg_json(&m->pkg, "database")) == 0;
                if (!ok)
                        json_decref(mo);
                else
                        ok = json_array_append_new(mods, mo) == 0;
        }
        /* true: a reason was found; false: none, and none could be missed;
         * null: none found, but it cannot be told (cannotTell says why). */
        ok = ok && (k->no_modules || json_object_set(o, "modules", mods) == 0) &&
             (k->no_image ||
              (json_object_set_new(o, "needsReboot", k->reboot ? json_true() : k->undecided ? json_null() : json_false()) == 0 &&
               set_str(o, "cannotTell", k->undecided)));
        for (unsigned bit = 1; ok && bit <= PKGNOTE_REBOOT_NEWER_PACKAGE; bit <<= 1) {
                if (!(k->reboot & bit))
                        continue;
                json_t *r = json_object();
                ok = r && set_str(r, "reason", pkgnote_kernel_reboot_name(bit)) &&
                     set_str(r, "text", pkgnote_kernel_reboot_text(k, bit));
                if (!ok)
                        json_decref(r);
                else
                        ok = json_array_append_new(why, r) == 0;
        }
        ok = ok && (k->no_image || json_object_set(o, "reboot", why) == 0);
        char *s = ok ? pn_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) : NULL;
        json_decref(o);
        json_decref(mods);
        json_decref(why);
        json_decref(img);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_kernel_image_build_id(const void *data, size_t size, char **ret) {
        if (!data && size)
                return pn_error(-EINVAL, "pkgnote_kernel_image_build_id: no data");
        uint8_t id[PN_KERNEL_MAX_BUILD_ID];
        size_t n = 0;
        int r = pn_kernel_image_build_id(data ? data : (const void *)"", size, id, &n);
        if (r <= 0)
                return r;
        char *s = malloc(2 * n + 1);
        if (!s)
                return pn_oom();
        hex(s, id, n);
        *ret = s;
        return 1;
}
