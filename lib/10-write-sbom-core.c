/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SBOMs of what is running (pkgnote_process_sbom_*): one component per
 * package and version in memory, from the package notes of the mapped
 * objects, else the package database of the root the process runs in;
 * the processes as the things that use them.  The scan's SBOMs
 * (lib/10-write-sbom-scan.c) describe files at rest; here the subjects are
 * processes, whose packages come from cores (lib/08-core*.c), so the
 * collection is its own and copies what it keeps: the cores may be freed
 * as soon as they are added, which keeps the memory of a walk over every
 * process bounded by the packages, not the processes' maps.  Each
 * package is the SBOM element the scan writes too (lib/10-write-sbom.h),
 * so one package reads the same in both documents.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base.h"
#include "03-model-embedded.h"
#include "08-core-private.h"
#include "04-pkgdb-private.h"
#include "07-check-resolve.h"
#include "10-write-sbom.h"

/* A package in memory: the SBOM element (lib/10-write-sbom.h) the scan's
 * documents write too, and what the processes add to it. */
struct rs_package {
        struct pn_sbom_package e;
        bool restart; /* some process maps a replaced or deleted file of it */
        char **paths; /* the mapped files, each once */
        size_t n_paths, cap_paths;
        char **now; /* "NAME VERSION" installed at those paths now, each once */
        size_t n_now, cap_now;
        size_t rank; /* position in the sorted output */
};

struct rs_process {
        int pid, uid;
        char *executable, *command;
        bool restart;
        size_t *pkgs; /* indices into the packages, each once */
        size_t n_pkgs, cap_pkgs;
        /* What its mapped objects say is inside them (a Go program's
         * modules), copied, with each object's path. */
        pkgnote_embedded **emb;
        char **emb_path;
        size_t n_emb, cap_emb, cap_emb_path;
};

/* The root a process runs in: its distribution (OS, may be NULL) and the
 * directory (FD, or -1), where Debian's packages keep their licenses. */
struct rs_root {
        const pkgnote_os_release *os;
        int fd;
        dev_t dev;
        ino_t ino;
};

/* The running kernel (pkgnote_process_sbom_add_kernel()): its element (its
 * package's when one is known) and its loaded modules', each with what
 * the SBOMs say of it as properties, which SPDX 2.3 gives as a comment;
 * the reasons it needs a reboot, each "NAME: TEXT". */
struct rs_kernel {
        struct pn_sbom_package e;
        struct pn_sbom_package *mods;
        size_t n_mods;
        char **reasons;
        size_t n_reasons, cap_reasons;
};

struct pkgnote_process_sbom {
        struct rs_kernel *kernel;
        struct rs_package *pkg;
        size_t n_pkg, cap_pkg;
        struct rs_process *proc;
        size_t n_proc, cap_proc;
        /* The dpkg packages' licenses read from their copyright files, per
         * root: each file once, however many processes map the package. */
        struct rs_license {
                dev_t dev;
                ino_t ino;
                char *name, *license; /* LICENSE NULL: none */
        } *lic;
        size_t n_lic, cap_lic;
};

PKGNOTE_PUBLIC int pkgnote_process_sbom_new(pkgnote_process_sbom **ret) {
        pkgnote_process_sbom *b = calloc(1, sizeof *b);
        if (!b)
                return pn_oom();
        *ret = b;
        return 0;
}

static void kernel_free(struct rs_kernel *x) {
        if (!x)
                return;
        pn_sbom_package_done(&x->e);
        for (size_t i = 0; i < x->n_mods; i++)
                pn_sbom_package_done(&x->mods[i]);
        free(x->mods);
        pn_free_strv(x->reasons, x->n_reasons);
        free(x);
}

PKGNOTE_PUBLIC void pkgnote_process_sbom_free(pkgnote_process_sbom *b) {
        if (!b)
                return;
        for (size_t i = 0; i < b->n_pkg; i++) {
                struct rs_package *p = &b->pkg[i];
                pn_sbom_package_done(&p->e);
                pn_free_strv(p->paths, p->n_paths);
                pn_free_strv(p->now, p->n_now);
        }
        for (size_t i = 0; i < b->n_proc; i++) {
                free(b->proc[i].executable), free(b->proc[i].command);
                free(b->proc[i].pkgs);
                for (size_t k = 0; k < b->proc[i].n_emb; k++)
                        pkgnote_embedded_free(b->proc[i].emb[k]);
                free(b->proc[i].emb);
                pn_free_strv(b->proc[i].emb_path, b->proc[i].n_emb);
        }
        kernel_free(b->kernel);
        for (size_t i = 0; i < b->n_lic; i++)
                free(b->lic[i].name), free(b->lic[i].license);
        free(b->lic);
        free(b->pkg);
        free(b->proc);
        free(b);
}

static char *dup_or_null(const char *s) {
        return s ? strdup(s) : NULL;
}

static int cmp_str(const char *a, const char *b) {
        return strcmp(a ? a : "", b ? b : "");
}

/* Adds S to the set V (N, CAP) unless it is there: 0 or -ENOMEM. */
static int strset_add(char ***v, size_t *n, size_t *cap, const char *s) {
        for (size_t i = 0; i < *n; i++)
                if (!strcmp((*v)[i], s))
                        return 0;
        char *c = strdup(s);
        if (!c || pn_grow(v, cap, *n + 1, sizeof **v) < 0) {
                free(c);
                return -ENOMEM;
        }
        (*v)[(*n)++] = c;
        return 0;
}


/* The package of JSON (M its metadata; DATABASE: a database's record,
 * else a note), found or added: its index, or -ENOMEM.  Its purl is the
 * one the scan gives (pn_sbom_package_from_metadata()): a note of the OS
 * of the process's root (OS, may be NULL) that names no version of it
 * gets the root's, so that one note in two roots of different versions
 * is two packages. */
static ssize_t package_of(pkgnote_process_sbom *b, bool database, const char *json, const pkgnote_metadata *m,
                          const pkgnote_os_release *os) {
        struct pn_sbom_package e;
        if (pn_sbom_package_from_metadata(&e, m, database, json, os ? pkgnote_os_release_get(os, "ID") : NULL,
                                          os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL) < 0) {
                pn_sbom_package_done(&e);
                return -ENOMEM;
        }
        for (size_t i = 0; i < b->n_pkg; i++)
                if (b->pkg[i].e.database == database && !strcmp(b->pkg[i].e.record, json) &&
                    !cmp_str(b->pkg[i].e.purl, e.purl)) {
                        pn_sbom_package_done(&e);
                        return (ssize_t)i;
                }
        if (PN_GROW(b->pkg, b->cap_pkg, b->n_pkg + 1) < 0) {
                pn_sbom_package_done(&e);
                return -ENOMEM;
        }
        b->pkg[b->n_pkg] = (struct rs_package){.e = e};
        return (ssize_t)b->n_pkg++;
}

/* The database's record of module M as the metadata of a note, its os and
 * osVersion from the process's root (OS, may be NULL), so that its purl
 * names the distribution as a note's would. */
/* The license of M's database package: what the database gives (rpm's
 * License tag), else for dpkg's the copyright file of the package in the
 * process's ROOT, as the scan reads it; NULL when there is none, or with
 * *ERR set without memory. */
static const char *db_license(pkgnote_process_sbom *b, const pkgnote_module *m, const struct rs_root *root, int *err) {
        const char *name = pkgnote_module_db_name(m), *type = pkgnote_module_db_type(m);
        if (m->dbpkg->license || !type || strcmp(type, "deb") || root->fd < 0)
                return m->dbpkg->license;
        for (size_t i = 0; i < b->n_lic; i++)
                if (b->lic[i].dev == root->dev && b->lic[i].ino == root->ino && !strcmp(b->lic[i].name, name))
                        return b->lic[i].license;
        int fd = root->fd;
        struct pn_rootfs fs;
        pn_rootfs_in_root(&fs, &fd);
        char *license = NULL, *n = strdup(name);
        if (!n || pn_dpkg_package_license(&fs, name, &license) < 0 || PN_GROW(b->lic, b->cap_lic, b->n_lic + 1) < 0) {
                free(n), free(license);
                *err = -ENOMEM;
                return NULL;
        }
        b->lic[b->n_lic++] = (struct rs_license){root->dev, root->ino, n, license};
        return license;
}

/* The metadata of the N pairs (key, value) of KV and its JSON text; a
 * database is untrusted: a value that is not UTF-8 (a License tag in
 * Latin-1) is left out, not fatal, as the scan does. */
static int metadata_of(const char *const (*kv)[2], size_t n, pkgnote_metadata **ret, char **json) {
        pkgnote_metadata *md;
        int r = pkgnote_metadata_new(&md);
        for (size_t k = 0; k < n && r >= 0; k++)
                if (kv[k][1] && *kv[k][1] && pn_utf8_invalid_at(kv[k][1], strlen(kv[k][1])) == strlen(kv[k][1]))
                        r = pkgnote_metadata_set(md, kv[k][0], kv[k][1]);
        if (r >= 0)
                r = pkgnote_metadata_to_json(md, json);
        if (r < 0) {
                pkgnote_metadata_free(md);
                return r;
        }
        *ret = md;
        return 0;
}

static int db_metadata(pkgnote_process_sbom *b, const pkgnote_module *m, const struct rs_root *root,
                       pkgnote_metadata **ret, char **json) {
        const pkgnote_os_release *os = root->os;
        int r = 0;
        const char *license = db_license(b, m, root, &r);
        if (r < 0)
                return r;
        const char *kv[][2] = {
                {PKGNOTE_KEY_TYPE, pkgnote_module_db_type(m)},
                {PKGNOTE_KEY_OS, os ? pkgnote_os_release_get(os, "ID") : NULL},
                {PKGNOTE_KEY_OS_VERSION, os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL},
                {PKGNOTE_KEY_NAME, pkgnote_module_db_name(m)},
                {PKGNOTE_KEY_VERSION, pkgnote_module_db_version(m)},
                {PKGNOTE_KEY_ARCHITECTURE, pkgnote_module_db_architecture(m)},
                {"source", pkgnote_module_db_source(m)},
                {"sourceVersion", pkgnote_module_db_source_version(m)},
                {"license", license},
        };
        return metadata_of(kv, ELEMENTSOF(kv), ret, json);
}

/* What is installed at M's path now, when it was replaced: "NAME VERSION"
 * into BUF, or false. */
static bool installed_now(const pkgnote_module *m, char *buf, size_t cap) {
        if (!pkgnote_module_replaced(m))
                return false;
        const pkgnote_info *now = pkgnote_module_installed_info(m);
        const char *name = NULL, *version = NULL;
        if (now && pkgnote_info_package_count(now) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(now, 0);
                name = pkgnote_metadata_name(md);
                version = pkgnote_metadata_version(md);
        } else if (pkgnote_module_db_state(m) == PKGNOTE_DB_REPLACED) {
                name = pkgnote_module_db_name(m);
                version = pkgnote_module_db_version(m);
        }
        if (!name)
                return false;
        snprintf(buf, cap, "%s %s", name, version ? version : "?");
        return true;
}

/* Records that process PR maps module M as package I. */
static int use_package(pkgnote_process_sbom *b, struct rs_process *pr, size_t i, const pkgnote_module *m) {
        struct rs_package *p = &b->pkg[i];
        bool restart = pkgnote_module_needs_restart(m);
        p->restart |= restart;
        pr->restart |= restart;
        char now[1024];
        if (strset_add(&p->paths, &p->n_paths, &p->cap_paths, pkgnote_module_path(m)) < 0 ||
            (installed_now(m, now, sizeof now) && strset_add(&p->now, &p->n_now, &p->cap_now, now) < 0))
                return -ENOMEM;
        for (size_t k = 0; k < pr->n_pkgs; k++)
                if (pr->pkgs[k] == i)
                        return 0;
        if (PN_GROW(pr->pkgs, pr->cap_pkgs, pr->n_pkgs + 1) < 0)
                return -ENOMEM;
        pr->pkgs[pr->n_pkgs++] = i;
        return 0;
}

/* Module M's packages: each of its notes, else the database's answer
 * when it is the module's own (pkgnote_module_package_origin()). */
/* Keeps a copy of what module M says is inside it, once per path. */
static int add_embedded(struct rs_process *pr, const pkgnote_module *m) {
        const pkgnote_info *info = pkgnote_module_info(m);
        const pkgnote_embedded *emb = info ? pkgnote_info_embedded(info) : NULL;
        const char *path = pkgnote_module_path(m);
        if (!emb || !pkgnote_embedded_component_count(emb) || !path)
                return 0;
        for (size_t k = 0; k < pr->n_emb; k++)
                if (!strcmp(pr->emb_path[k], path))
                        return 0;
        if (PN_GROW(pr->emb, pr->cap_emb, pr->n_emb + 1) < 0 ||
            PN_GROW(pr->emb_path, pr->cap_emb_path, pr->n_emb + 1) < 0)
                return -ENOMEM;
        pkgnote_embedded *copy = pn_embedded_dup(emb);
        char *p = strdup(path);
        if (!copy || !p) {
                pkgnote_embedded_free(copy);
                free(p);
                return -ENOMEM;
        }
        pr->emb[pr->n_emb] = copy;
        pr->emb_path[pr->n_emb++] = p;
        return 0;
}

static int add_module(pkgnote_process_sbom *b, struct rs_process *pr, const pkgnote_module *m,
                      const struct rs_root *root) {
        const pkgnote_os_release *os = root->os;
        const pkgnote_info *info = pkgnote_module_info(m);
        if (add_embedded(pr, m) < 0)
                return -ENOMEM;
        size_t n = info ? pkgnote_info_package_count(info) : 0;
        for (size_t k = 0; k < n; k++) {
                ssize_t i = package_of(b, false, pkgnote_info_package_json(info, k), pkgnote_info_package(info, k), os);
                if (i < 0 || use_package(b, pr, (size_t)i, m) < 0)
                        return -ENOMEM;
        }
        if (n || pkgnote_module_package_origin(m) != PKGNOTE_ORIGIN_DATABASE || !pkgnote_module_db_name(m))
                return 0;
        pkgnote_metadata *md;
        char *json;
        int r = db_metadata(b, m, root, &md, &json);
        if (r < 0)
                return r;
        ssize_t i = package_of(b, true, json, md, os);
        r = i < 0 ? (int)i : use_package(b, pr, (size_t)i, m);
        pkgnote_metadata_free(md);
        free(json);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_process_sbom_add(pkgnote_process_sbom *b, const pkgnote_core *c) {
        if (!b || !c)
                return pn_error(-EINVAL, "no SBOM or process");
        pkgnote_process_info pi = {.size = sizeof pi};
        int r = pkgnote_core_process(c, &pi);
        if (r < 0)
                return r;
        if (PN_GROW(b->proc, b->cap_proc, b->n_proc + 1) < 0)
                return pn_oom();
        struct rs_process *pr = &b->proc[b->n_proc++];
        *pr = (struct rs_process){.pid = pi.pid, .uid = pi.uid};
        pr->executable = dup_or_null(pi.executable);
        pr->command = dup_or_null(pi.command);
        if ((pi.executable && !pr->executable) || (pi.command && !pr->command))
                return pn_oom();
        /* The distribution of the root the process runs in, for the purls
         * of its packages (its database's, and its own OS's notes without
         * a version of it); without it they name none.  Its directory
         * holds Debian's licenses. */
        pkgnote_os_release *os = NULL;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/root", pi.pid);
        if (pi.pid <= 0 || pkgnote_os_release_read(path, &os) < 0)
                os = NULL;
        struct rs_root root = {.os = os, .fd = pi.pid > 0 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1};
        struct stat st;
        if (root.fd >= 0 && fstat(root.fd, &st) == 0)
                root.dev = st.st_dev, root.ino = st.st_ino;
        else if (root.fd >= 0) {
                close(root.fd);
                root.fd = -1;
        }
        r = 0;
        for (size_t i = 0; i < pkgnote_core_module_count(c) && r >= 0; i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                if (!pkgnote_module_is_vdso(m))
                        r = add_module(b, pr, m, &root);
        }
        if (root.fd >= 0)
                close(root.fd);
        pkgnote_os_release_free(os);
        return r == -ENOMEM ? pn_oom() : r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ */
/* The running kernel                                                  */

/* The metadata of a kernel or module file's database package, its os and
 * osVersion those of the root it was read in (OS, may be NULL), as
 * db_metadata() makes a process's: its purl names the distribution. */
static int kernel_db_metadata(const char *type, const char *name, const char *version, const char *arch,
                              const pkgnote_os_release *os, pkgnote_metadata **ret, char **json) {
        const char *kv[][2] = {
                {PKGNOTE_KEY_TYPE, type},
                {PKGNOTE_KEY_OS, os ? pkgnote_os_release_get(os, "ID") : NULL},
                {PKGNOTE_KEY_OS_VERSION, os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL},
                {PKGNOTE_KEY_NAME, name},
                {PKGNOTE_KEY_VERSION, version},
                {PKGNOTE_KEY_ARCHITECTURE, arch},
        };
        return metadata_of(kv, ELEMENTSOF(kv), ret, json);
}

static void kprop(struct pn_sbom_package *e, const char *name, const char *value, int *err) {
        if (value)
                pn_sbom_package_property(e, name, value, false, err);
}

/* Module I of K as the element E. */
static void kernel_module(const pkgnote_kernel *k, size_t i, const pkgnote_kernel_module *m,
                          const pkgnote_os_release *os, struct pn_sbom_package *e, int *err) {
        *e = (struct pn_sbom_package){.purpose = "LIBRARY", .unnamed = "(unnamed)"};
        if (!(e->name = strdup(m->name)) ||
            asprintf(&e->source_info, "a loaded module of the running kernel (sysfs: module/%s)", m->name) < 0) {
                e->source_info = NULL;
                *err = -ENOMEM;
                return;
        }
        kprop(e, "pkgnote:kernel:buildId", m->build_id, err);
        kprop(e, "pkgnote:kernel:file", m->file, err);
        kprop(e, "pkgnote:kernel:fileBuildId", m->file_build_id, err);
        kprop(e, "pkgnote:kernel:fileError", m->file_error, err);
        kprop(e, "pkgnote:origin", m->db_name ? "database" : "none", err);
        if (!m->db_name)
                return;
        /* The package, its purl as the kernel's would be, as properties:
         * the package is the file's, not the module's own, and a purl of
         * its own would count one package once per module. */
        pkgnote_metadata *md = NULL;
        char *record = NULL;
        struct pn_sbom_package p = {0};
        int r = kernel_db_metadata(m->db_type, m->db_name, m->db_version, pn_kernel_db_architecture(k, i), os, &md, &record);
        if (r >= 0)
                r = pn_sbom_package_from_metadata(&p, md, true, record, os ? pkgnote_os_release_get(os, "ID") : NULL,
                                                  os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL);
        if (r < 0)
                *err = -ENOMEM;
        kprop(e, "pkgnote:database", record, err);
        kprop(e, "pkgnote:kernel:package:name", m->db_name, err);
        kprop(e, "pkgnote:kernel:package:version", m->db_version, err);
        kprop(e, "pkgnote:kernel:package:binary", m->db_binary, err);
        kprop(e, "pkgnote:kernel:package:purl", p.purl, err);
        pn_sbom_package_done(&p);
        pkgnote_metadata_free(md);
        free(record);
}

PKGNOTE_PUBLIC int pkgnote_process_sbom_add_kernel(pkgnote_process_sbom *b, const pkgnote_kernel *k) {
        if (!b || !k)
                return pn_error(-EINVAL, "no SBOM or no kernel");
        if (b->kernel)
                return pn_error(-EEXIST, "the SBOM has a kernel already");
        pkgnote_kernel_info ki = PKGNOTE_KERNEL_INFO_INIT;
        int r = pkgnote_kernel_get(k, &ki);
        if (r < 0)
                return r;
        /* The distribution of the root the kernel's image was looked for
         * in names the purl of its database package, as a process's root
         * does its packages'. */
        pkgnote_os_release *os = NULL;
        r = pkgnote_os_release_read(pn_kernel_root(k), &os);
        if (r == -ENOMEM)
                return pn_oom();
        if (r < 0)
                os = NULL;
        struct rs_kernel *x = calloc(1, sizeof *x);
        int err = x ? 0 : -ENOMEM;
        pkgnote_metadata *md = NULL;
        char *record = NULL;
        const char *origin = "none";
        if (!err && ki.note) {
                origin = "note";
                err = pkgnote_metadata_to_json(ki.note, &record);
                if (err >= 0)
                        err = pn_sbom_package_from_metadata(&x->e, ki.note, false, record,
                                                            os ? pkgnote_os_release_get(os, "ID") : NULL,
                                                            os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL);
        } else if (!err && ki.db_name) {
                origin = "database";
                err = kernel_db_metadata(ki.db_type, ki.db_name, ki.db_version, pn_kernel_db_architecture(k, SIZE_MAX), os,
                                         &md, &record);
                if (err >= 0)
                        err = pn_sbom_package_from_metadata(&x->e, md, true, record,
                                                            os ? pkgnote_os_release_get(os, "ID") : NULL,
                                                            os ? pkgnote_os_release_get(os, "VERSION_ID") : NULL);
        } else if (!err) {
                /* No package known: the kernel by its release. */
                x->e.name = strdup("linux");
                x->e.version = strdup(ki.release);
                if (!x->e.name || !x->e.version)
                        err = -ENOMEM;
        }
        if (x) {
                struct pn_sbom_package *e = &x->e;
                /* the spec's OPERATING-SYSTEM as its JSON schema spells it */
                e->purpose = "OPERATING_SYSTEM";
                e->unnamed = "linux";
                if (!err && !(e->source_info = strdup("the running kernel (sysfs: kernel/notes)")))
                        err = -ENOMEM;
                kprop(e, "pkgnote:origin", origin, &err);
                kprop(e, !strcmp(origin, "note") ? "pkgnote:note" : "pkgnote:database", record, &err);
                kprop(e, "pkgnote:kernel:release", ki.release, &err);
                kprop(e, "pkgnote:kernel:buildId", ki.build_id, &err);
                /* shown, never taken for a package: a kernel may carry another distribution's */
                kprop(e, "pkgnote:kernel:buildSalt", ki.build_salt, &err);
                kprop(e, "pkgnote:kernel:image", ki.image, &err);
                kprop(e, "pkgnote:kernel:imageBuildId", ki.image_build_id, &err);
                kprop(e, "pkgnote:kernel:imageError", ki.image_error, &err);
                kprop(e, "pkgnote:kernel:package:binary", ki.db_binary, &err);
                /* as the kernel's JSON: unknown when none was found but one could be missed */
                kprop(e, "pkgnote:needsReboot", ki.reboot ? "true" : ki.undecided ? "unknown" : "false", &err);
                kprop(e, "pkgnote:rebootCannotTell", ki.reboot ? NULL : ki.undecided, &err);
                for (unsigned bit = 1; bit && !err; bit <<= 1) {
                        const char *name = pkgnote_kernel_reboot_name(bit), *text = pkgnote_kernel_reboot_text(k, bit);
                        if (!name)
                                break;
                        if (!text)
                                continue;
                        char *s = NULL;
                        if (asprintf(&s, "%s: %s", name, text) < 0)
                                err = -ENOMEM;
                        else {
                                kprop(e, "pkgnote:rebootReason", s, &err);
                                if (PN_GROW(x->reasons, x->cap_reasons, x->n_reasons + 1) < 0) {
                                        free(s);
                                        err = -ENOMEM;
                                } else
                                        x->reasons[x->n_reasons++] = s;
                        }
                }
                if (!err && ki.module_count && !(x->mods = calloc(ki.module_count, sizeof *x->mods)))
                        err = -ENOMEM;
                for (size_t i = 0; i < ki.module_count && !err; i++) {
                        pkgnote_kernel_module m = PKGNOTE_KERNEL_MODULE_INIT;
                        if (pkgnote_kernel_module_get(k, i, &m) <= 0)
                                break;
                        kernel_module(k, i, &m, os, &x->mods[x->n_mods++], &err);
                }
        }
        pkgnote_metadata_free(md);
        free(record);
        pkgnote_os_release_free(os);
        if (err) {
                kernel_free(x);
                return err == -ENOMEM ? pn_oom() : err;
        }
        b->kernel = x;
        return 0;
}

/* The words SPDX 2.3 has no field for: E's properties, after WHAT. */
static char *kernel_comment(const char *what, const struct pn_sbom_package *e) {
        char *c = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&c, &len);
        if (!f)
                return NULL;
        fputs(what, f);
        for (size_t k = 0; k < e->n_props; k++)
                if (strcmp(e->props[k].name, "pkgnote:rebootReason")) /* annotations of their own */
                        fprintf(f, "; %s: %s", e->props[k].name, e->props[k].value);
        if (fclose(f) != 0) {
                free(c);
                return NULL;
        }
        return c;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

static int cmp_package(const void *x, const void *y) {
        const struct rs_package *a = *(const struct rs_package *const *)x, *b = *(const struct rs_package *const *)y;
        int r;
        /* The origin as its word sorts: "database" before "note". */
        if ((r = cmp_str(a->e.type, b->e.type)) || (r = cmp_str(a->e.name, b->e.name)) ||
            (r = cmp_str(a->e.version, b->e.version)) || (r = cmp_str(a->e.architecture, b->e.architecture)) ||
            (r = (int)b->e.database - (int)a->e.database))
                return r;
        return strcmp(a->e.record, b->e.record);
}

/* The packages in output order (type, name, version, architecture,
 * origin, JSON), each with its rank; NULL without memory. */
static struct rs_package **sorted_packages(const pkgnote_process_sbom *b) {
        struct rs_package **v = malloc((b->n_pkg ? b->n_pkg : 1) * sizeof *v);
        if (!v)
                return NULL;
        for (size_t i = 0; i < b->n_pkg; i++)
                v[i] = &b->pkg[i];
        qsort(v, b->n_pkg, sizeof *v, cmp_package);
        for (size_t i = 0; i < b->n_pkg; i++)
                v[i]->rank = i + 1;
        return v;
}

static int cmp_size(const void *x, const void *y) {
        size_t a = *(const size_t *)x, b = *(const size_t *)y;
        return (a > b) - (a < b);
}

/* Process PR's packages as ranks, ascending, into V (n_pkgs room). */
static void process_ranks(const pkgnote_process_sbom *b, const struct rs_process *pr, size_t *v) {
        for (size_t k = 0; k < pr->n_pkgs; k++)
                v[k] = b->pkg[pr->pkgs[k]].rank;
        qsort(v, pr->n_pkgs, sizeof *v, cmp_size);
}

static const char *process_name(const struct rs_process *pr) {
        return pr->executable ? pr->executable : pr->command ? pr->command : "(unknown)";
}

/* Why package P is in the document, in words. */
static char *package_info(const struct rs_package *p) {
        char *s = NULL;
        if (asprintf(&s, "%s %zu mapped object%s%s", !p->e.database
                                                          ? "in memory: the ELF package note (FDO_PACKAGING_METADATA) of"
                                                          : "in memory: the package database of the process's root owns",
                     p->n_paths, p->n_paths == 1 ? "" : "s",
                     p->restart ? "; some were replaced or deleted on disk since they were mapped" : "") < 0)
                return NULL;
        return s;
}

/* The SBOM element of package P, named PREFIX and its rank, for
 * writing: the package's own with what the processes add (E's own
 * strings stay P's: release it with element_done()). */
static void element(const struct rs_package *p, const char *prefix, struct pn_sbom_package *e, int *err) {
        *e = p->e;
        e->props = NULL, e->n_props = e->cap_props = 0;
        e->locations = NULL, e->n_locations = e->cap_locations = 0;
        snprintf(e->id, sizeof e->id, "%s%zu", prefix, p->rank);
        e->unnamed = "(unnamed)";
        e->purpose = "LIBRARY";
        if (!(e->source_info = package_info(p)))
                *err = -ENOMEM;
        e->locations_in_comment = true;
        for (size_t k = 0; k < p->n_paths; k++)
                pn_sbom_package_location(e, p->paths[k], err);
        if (p->restart) {
                char *c = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&c, &len);
                if (f) {
                        fputs("pkgnote:replacedOnDisk: a process maps a file of this version that was replaced or deleted on disk since; it needs a restart", f);
                        for (size_t k = 0; k < p->n_now; k++)
                                fprintf(f, "%sinstalled now: %s", k ? ", " : "; ", p->now[k]);
                }
                if (!f || fclose(f) != 0) {
                        free(c);
                        *err = -ENOMEM;
                } else
                        e->annotation = c;
        }
        const char *origin = p->e.database ? "database" : "note";
        pn_sbom_package_property(e, "pkgnote:origin", origin, false, err);
        pn_sbom_package_property(e, p->e.database ? "pkgnote:database" : "pkgnote:note", p->e.record, false, err);
        pn_sbom_package_property(e, "pkgnote:replacedOnDisk", p->restart ? "true" : "false", false, err);
        for (size_t k = 0; k < p->n_now; k++)
                pn_sbom_package_property(e, "pkgnote:installedNow", p->now[k], false, err);
}

/* Frees what element() added to E, not what it shares with the package. */
static void element_done(struct pn_sbom_package *e) {
        free(e->source_info), free(e->annotation);
        for (size_t k = 0; k < e->n_props; k++)
                free(e->props[k].name), free(e->props[k].value);
        free(e->props), free(e->locations);
}

/* ---- What the running programs say is inside them ---- */

/* Calls FN for each component of PR's lists (its objects' modules),
 * each once (pn_sbom_component_key()), with an id made from PREFIX and a
 * count; then, when EDGE is given, EDGE for each dependency edge of the
 * lists (a crate list's), between those ids, each pair once.  A writer
 * of another format takes the components and edges from here
 * (each_component() when it wants no edges). */
typedef void (*emb_fn)(const pkgnote_component *c, const char *id, const char *path, void *u, int *err);
typedef void (*emb_edge_fn)(const char *from, const char *to, void *u, int *err);

static void each_component_edges(const struct rs_process *pr, const char *prefix, emb_fn fn, void *u,
                                 emb_edge_fn edge, void *ue, int *err) {
        struct pn_smap seen = {0}, pairs = {0};
        size_t no = 0;
        for (size_t k = 0; k < pr->n_emb && !*err; k++)
                for (size_t i = 0; i < pkgnote_embedded_component_count(pr->emb[k]) && !*err; i++) {
                        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_component(pr->emb[k], i, &c) < 0)
                                continue;
                        /* each once, by what it is (a hash: a process may list 10^5) */
                        char *key = pn_sbom_component_key(&c);
                        size_t old;
                        bool dup = key && pn_smap_get(&seen, key, &old);
                        if (!key || (!dup && pn_smap_put(&seen, key, no + 1) < 0)) {
                                free(key);
                                *err = -ENOMEM;
                                break;
                        }
                        free(key);
                        if (dup)
                                continue;
                        char id[96];
                        snprintf(id, sizeof id, "%s%zu", prefix, ++no);
                        fn(&c, id, pr->emb_path[k], u, err);
                }
        for (size_t k = 0; k < pr->n_emb && edge && !*err; k++)
                for (size_t i = 0; i < pkgnote_embedded_edge_count(pr->emb[k]) && !*err; i++) {
                        size_t from, to, nf, nt;
                        pkgnote_component a = PKGNOTE_COMPONENT_INIT, b = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_edge(pr->emb[k], i, &from, &to) <= 0 ||
                            pkgnote_embedded_component(pr->emb[k], from, &a) <= 0 ||
                            pkgnote_embedded_component(pr->emb[k], to, &b) <= 0)
                                continue;
                        char *ka = pn_sbom_component_key(&a), *kb = pn_sbom_component_key(&b), *pair = NULL;
                        bool known = ka && kb && pn_smap_get(&seen, ka, &nf) && pn_smap_get(&seen, kb, &nt);
                        if (!ka || !kb)
                                *err = -ENOMEM;
                        else if (known && nf != nt) {
                                char fid[96], tid[96];
                                snprintf(fid, sizeof fid, "%s%zu", prefix, nf);
                                snprintf(tid, sizeof tid, "%s%zu", prefix, nt);
                                size_t one;
                                if (asprintf(&pair, "%zu %zu", nf, nt) < 0)
                                        *err = -ENOMEM, pair = NULL;
                                else if (!pn_smap_get(&pairs, pair, &one)) {
                                        if (pn_smap_put(&pairs, pair, 1) < 0)
                                                *err = -ENOMEM;
                                        else
                                                edge(fid, tid, ue, err);
                                }
                        }
                        free(ka), free(kb), free(pair);
                }
        pn_smap_done(&pairs);
        pn_smap_done(&seen);
}

/* each_component_edges() without the edges. */
static void __attribute__((unused)) each_component(const struct rs_process *pr, const char *prefix, emb_fn fn, void *u,
                                                   int *err) {
        each_component_edges(pr, prefix, fn, u, NULL, NULL, err);
}

struct spdx_emb {
        json_t *pkgs, *rels;
        const char *pid;
};

static void spdx_component(const pkgnote_component *c, const char *id, const char *path, void *u, int *err) {
        struct spdx_emb *x = u;
        struct pn_sbom_package e;
        if (pn_sbom_package_from_component(c, id, path, &e) < 0)
                *err = -ENOMEM;
        json_t *p = pn_sbom_spdx_package(&e, NULL, NULL, err);
        char *comment = pn_sbom_component_comment(&e);
        pn_sbom_put(p, "comment", comment ? pn_sbom_jstr(comment) : NULL, err);
        free(comment);
        pn_sbom_package_done(&e);
        pn_sbom_push(x->pkgs, p, err);
        pn_sbom_push(x->rels, pn_sbom_spdx_relationship(x->pid, "CONTAINS", id, "what the running program says is inside it"),
                     err);
}

static void spdx_edge(const char *from, const char *to, void *u, int *err) {
        struct spdx_emb *x = u;
        pn_sbom_push(x->rels, pn_sbom_spdx_relationship(from, "DEPENDS_ON", to, NULL), err);
}

/* U: an object of bom-ref -> its dependsOn array, filled as the edges come. */
static void cdx_edge(const char *from, const char *to, void *u, int *err) {
        json_t *deps = u;
        json_t *on = json_object_get(deps, from);
        if (!on) {
                pn_sbom_put(deps, from, json_array(), err);
                on = json_object_get(deps, from);
        }
        if (on)
                pn_sbom_push(on, json_string(to), err);
        else
                *err = -ENOMEM;
}

static void cdx_emb_component(const pkgnote_component *c, const char *id, const char *path, void *u, int *err) {
        json_t *inner = u;
        struct pn_sbom_package e;
        if (pn_sbom_package_from_component(c, id, path, &e) < 0)
                *err = -ENOMEM;
        json_t *x = pn_sbom_cdx_component(&e, err);
        pn_sbom_package_done(&e);
        if (x && c->main)
                pn_sbom_put(x, "type", json_string("application"), err);
        pn_sbom_push(inner, x, err);
}

/* ---- SPDX 2.3 ---- */

static json_t *spdx_package(const struct rs_package *p, const char *created, const char *creator, int *err) {
        struct pn_sbom_package e;
        element(p, "SPDXRef-Package-", &e, err);
        json_t *j = pn_sbom_spdx_package(&e, created, creator, err);
        element_done(&e);
        return j;
}

/* The running kernel X, which the document describes, and its modules, which it CONTAINS. */
static void spdx_kernel(const struct rs_kernel *x, json_t *pkgs, json_t *rels, const char *created, const char *creator,
                        int *err) {
        struct pn_sbom_package e = x->e;
        snprintf(e.id, sizeof e.id, "SPDXRef-Kernel");
        json_t *p = pn_sbom_spdx_package(&e, created, creator, err);
        char *c = kernel_comment("the running kernel", &e);
        pn_sbom_put(p, "comment", c ? pn_sbom_jstr(c) : NULL, err);
        free(c);
        if (x->n_reasons) {
                /* SPDX 2.3 has no field for why it needs a reboot: an annotation per reason */
                json_t *anns = json_array();
                for (size_t i = 0; i < x->n_reasons && anns; i++) {
                        char *s = NULL;
                        if (asprintf(&s, "pkgnote:needsReboot: %s", x->reasons[i]) < 0) {
                                *err = -ENOMEM;
                                break;
                        }
                        pn_sbom_push(anns,
                                     json_pack("{s:s, s:s, s:s, s:o}", "annotationDate", created, "annotationType", "OTHER",
                                               "annotator", creator, "comment", pn_sbom_jstr(s)),
                                     err);
                        free(s);
                }
                pn_sbom_put(p, "annotations", anns, err);
        }
        pn_sbom_push(pkgs, p, err);
        pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Kernel", "the running kernel"),
                     err);
        for (size_t i = 0; i < x->n_mods && !*err; i++) {
                struct pn_sbom_package m = x->mods[i];
                snprintf(m.id, sizeof m.id, "SPDXRef-Kernel-Module-%zu", i + 1);
                json_t *mp = pn_sbom_spdx_package(&m, created, creator, err);
                c = kernel_comment("a loaded kernel module", &m);
                pn_sbom_put(mp, "comment", c ? pn_sbom_jstr(c) : NULL, err);
                free(c);
                pn_sbom_push(pkgs, mp, err);
                pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-Kernel", "CONTAINS", m.id, "a loaded module"), err);
        }
}

/* SPDX 2.3, or (V3) said again as SPDX 3.0.1 (lib/10-write-sbom-spdx3.c). */
static int spdx(const pkgnote_process_sbom *b, struct rs_package **order, const pkgnote_sbom_options *o, bool v3,
                char **ret) {
        int err = 0;
        char created[32], creator[96], id[64], pid[64];
        pn_sbom_timestamp(o->created, created);
        snprintf(creator, sizeof creator, "Tool: pkgnote-%s", o->tool_version ? o->tool_version : PACKAGE_VERSION);
        json_t *doc = json_object(), *pkgs = json_array(), *rels = json_array();
        if (!doc || !pkgs || !rels) {
                json_decref(doc), json_decref(pkgs), json_decref(rels);
                return pn_oom();
        }
        pn_sbom_spdx_header(doc, o, "pkgnote-ps", &err);
        /* The processes, which the document describes, then the packages
         * they depend on by mapping them. */
        for (size_t i = 0; i < b->n_proc && !err; i++) {
                const struct rs_process *pr = &b->proc[i];
                snprintf(pid, sizeof pid, "SPDXRef-Process-%d", pr->pid);
                char *info = NULL;
                if (asprintf(&info, "a running process: PID %d, UID %d%s", pr->pid, pr->uid,
                             pr->restart ? "; maps files replaced or deleted on disk since: needs a restart" : "") < 0)
                        err = -ENOMEM;
                json_t *e = json_pack("{s:s, s:o, s:s, s:b, s:s, s:s, s:s, s:s, s:o}", "SPDXID", pid, "name",
                                      pn_sbom_jstr(process_name(pr)), "downloadLocation", "NOASSERTION", "filesAnalyzed", 0,
                                      "licenseConcluded", "NOASSERTION", "licenseDeclared", "NOASSERTION",
                                      "copyrightText", "NOASSERTION", "primaryPackagePurpose", "APPLICATION",
                                      "sourceInfo", info ? pn_sbom_jstr(info) : NULL);
                free(info);
                pn_sbom_push(pkgs, e, &err);
                pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-DOCUMENT", "DESCRIBES", pid, "a running process"), &err);
                size_t *ranks = malloc((pr->n_pkgs ? pr->n_pkgs : 1) * sizeof *ranks);
                if (!ranks) {
                        err = -ENOMEM;
                        break;
                }
                process_ranks(b, pr, ranks);
                for (size_t k = 0; k < pr->n_pkgs; k++) {
                        snprintf(id, sizeof id, "SPDXRef-Package-%zu", ranks[k]);
                        pn_sbom_push(rels, pn_sbom_spdx_relationship(pid, "DEPENDS_ON", id, "the process maps the package's objects"),
                             &err);
                }
                free(ranks);
                char prefix[80];
                snprintf(prefix, sizeof prefix, "%s-Embedded-", pid);
                struct spdx_emb x = {pkgs, rels, pid};
                each_component_edges(pr, prefix, spdx_component, &x, spdx_edge, &x, &err);
        }
        if (b->kernel && !err)
                spdx_kernel(b->kernel, pkgs, rels, created, creator, &err);
        for (size_t i = 0; i < b->n_pkg && !err; i++)
                pn_sbom_push(pkgs, spdx_package(order[i], created, creator, &err), &err);
        pn_sbom_spdx_license_refs(doc, pkgs, &err);
        pn_sbom_put(doc, "packages", pkgs, &err);
        pn_sbom_put(doc, "relationships", rels, &err);
        if (v3)
                return pn_sbom_spdx3_finish(doc, err, o, "ps", ret);
        return pn_sbom_finish(doc, err, o, "documentNamespace", "https://spdx.org/spdxdocs/pkgnote-ps-", ret);
}

/* ---- CycloneDX 1.6 and 1.5 ---- */

static json_t *cdx_package(const struct rs_package *p, int *err) {
        struct pn_sbom_package e;
        element(p, "pkgnote-package-", &e, err);
        json_t *c = pn_sbom_cdx_component(&e, err);
        element_done(&e);
        return c;
}

/* The running kernel X, its loaded modules inside it: CycloneDX 1.6
 * (and 1.5) has "operating-system" for a kernel; of its modules, which
 * may be file systems or protocols as well as drivers, "library", the
 * default type, rather than "device-driver". */
static json_t *cdx_kernel(const struct rs_kernel *x, int *err) {
        struct pn_sbom_package e = x->e;
        snprintf(e.id, sizeof e.id, "pkgnote-kernel");
        json_t *c = pn_sbom_cdx_component(&e, err);
        pn_sbom_put(c, "type", json_string("operating-system"), err);
        if (!x->n_mods)
                return c;
        json_t *inner = json_array();
        for (size_t i = 0; i < x->n_mods && inner; i++) {
                struct pn_sbom_package m = x->mods[i];
                snprintf(m.id, sizeof m.id, "pkgnote-kernel-module-%zu", i + 1);
                pn_sbom_push(inner, pn_sbom_cdx_component(&m, err), err);
        }
        pn_sbom_put(c, "components", inner, err);
        return c;
}

static int cyclonedx(const pkgnote_process_sbom *b, struct rs_package **order, const pkgnote_sbom_options *o,
                     const char *spec_version, char **ret) {
        int err = 0;
        char ref[64], num[32];
        json_t *doc = json_object(), *comps = json_array(), *deps = json_array();
        if (!doc || !comps || !deps) {
                json_decref(doc), json_decref(comps), json_decref(deps);
                return pn_oom();
        }
        pn_sbom_cdx_header(doc, o, spec_version, &err);
        for (size_t i = 0; i < b->n_pkg && !err; i++)
                pn_sbom_push(comps, cdx_package(order[i], &err), &err);
        /* The processes: applications that depend on what they map. */
        for (size_t i = 0; i < b->n_proc && !err; i++) {
                const struct rs_process *pr = &b->proc[i];
                snprintf(ref, sizeof ref, "pkgnote-process-%d", pr->pid);
                json_t *props = json_array(), *on = json_array();
                snprintf(num, sizeof num, "%d", pr->pid);
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:pid", num), &err);
                snprintf(num, sizeof num, "%d", pr->uid);
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:uid", num), &err);
                if (pr->command)
                        pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:command", pr->command), &err);
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:needsRestart", pr->restart ? "true" : "false"), &err);
                json_t *pc = json_pack("{s:s, s:s, s:o, s:o}", "type", "application", "bom-ref", ref, "name",
                                       pn_sbom_jstr(process_name(pr)), "properties", props);
                if (pc && pr->n_emb) {
                        /* the modules the running program says it holds, and
                         * the dependencies between them its lists name */
                        json_t *inner = json_array(), *on_map = json_object();
                        char prefix[80];
                        snprintf(prefix, sizeof prefix, "%s-embedded-", ref);
                        if (!on_map)
                                err = -ENOMEM;
                        each_component_edges(pr, prefix, cdx_emb_component, inner, cdx_edge, on_map, &err);
                        pn_sbom_put(pc, "components", inner, &err);
                        const char *from;
                        json_t *to;
                        json_object_foreach(on_map, from, to) {
                                pn_sbom_push(deps, json_pack("{s:s, s:O}", "ref", from, "dependsOn", to), &err);
                        }
                        json_decref(on_map);
                }
                pn_sbom_push(comps, pc, &err);
                size_t *ranks = malloc((pr->n_pkgs ? pr->n_pkgs : 1) * sizeof *ranks);
                if (!ranks || !on) {
                        free(ranks);
                        json_decref(on);
                        err = -ENOMEM;
                        break;
                }
                process_ranks(b, pr, ranks);
                for (size_t k = 0; k < pr->n_pkgs; k++) {
                        char pref[64];
                        snprintf(pref, sizeof pref, "pkgnote-package-%zu", ranks[k]);
                        pn_sbom_push(on, json_string(pref), &err);
                }
                free(ranks);
                pn_sbom_push(deps, json_pack("{s:s, s:o}", "ref", ref, "dependsOn", on), &err);
        }
        if (b->kernel && !err)
                pn_sbom_push(comps, cdx_kernel(b->kernel, &err), &err);
        pn_sbom_put(doc, "components", comps, &err);
        pn_sbom_put(doc, "dependencies", deps, &err);
        return pn_sbom_finish(doc, err, o, "serialNumber", "urn:uuid:", ret);
}

PKGNOTE_PUBLIC int pkgnote_process_sbom_write(const pkgnote_process_sbom *b, int format,
                                              const pkgnote_sbom_options *options, char **ret) {
        pkgnote_sbom_options o;
        int r = pn_options_read(&o, sizeof o, options, PN_SIZE_1_0(pkgnote_sbom_options), "SBOM");
        if (r < 0)
                return r;
        if (!options)
                o.created = -1;
        if (!b)
                return pn_error(-EINVAL, "no SBOM");
        const char *cdx = pn_sbom_cdx_version(format);
        bool spdx_any = format == PKGNOTE_SBOM_SPDX || format == PKGNOTE_SBOM_SPDX_3;
        if (!spdx_any && !cdx)
                return pn_error(-EINVAL, "unknown SBOM format %d", format);
        struct rs_package **order = sorted_packages(b);
        if (!order)
                return pn_oom();
        r = spdx_any ? spdx(b, order, &o, format == PKGNOTE_SBOM_SPDX_3, ret) : cyclonedx(b, order, &o, cdx, ret);
        free(order);
        return r;
}
