/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Dependency closures: every file a program needs to run inside a root,
 * found the way glibc's dynamic loader finds it there (elf/dl-load.c's
 * order): the interpreter of PT_INTERP; each DT_NEEDED name, unless an
 * object already mapped answers to it (its DT_SONAME or a name it was
 * found under); else, unless the object has DT_RUNPATH, DT_RPATH of the
 * object and of the objects that loaded it, up to the program (those
 * with DT_RUNPATH give none); then DT_RUNPATH, the
 * directories of the root's ld.so.conf (the loader reads them from
 * ld.so.cache, which ldconfig builds from them), and the system
 * directories of the object's ABI; each directory after its
 * glibc-hwcaps subdirectories (every variant listed: the CPU of the
 * target is unknown); an object with DF_1_NODEFLIB gets nothing from
 * the system directories, by search or by ld.so.conf.  A candidate of
 * another ELF class, machine, byte order or ARM float ABI is passed
 * over, as the loader passes it over.  The search itself is the shared
 * resolver's (lib/07-check-resolve.c, also scan's): each directory looked
 * at and listed once, however hostile the search paths.
 * The dlopen notes of every object add the libraries of the features
 * asked for: of each entry the first soname found, as the dlopen note
 * specification tells readers to choose, searched as a dlopen() from
 * that object would be.
 *
 * Everything is opened inside the root, one component at a time, every
 * symbolic link resolved as if the root were "/" (lib/01-base-root.c):
 * nothing outside it is read, and each link followed is listed with its
 * target, so that a copy of the list is a root the loader finds its way
 * in.  The environment (LD_LIBRARY_PATH, LD_PRELOAD) is not taken into
 * account: an image has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "03-model-json.h"
#include "01-base-problem.h"
#include "01-base-root.h"
#include "07-check-resolve.h"
#include "07-check-edges.h"
#include "03-model-dlopen.h"
#include "02-elf-const.h"
#include "02-elf-view.h"

/* ------------------------------------------------------------------ */

struct cfile {
        char *path;   /* absolute, as in the root */
        char *target; /* a symbolic link's text, or NULL */
        bool dir_link; /* a link that stands for a directory: packages share those */
        json_t *why;  /* reasons, at most PKGNOTE_MAX_CLOSURE_REASONS */
        size_t more;  /* reasons past those */
};

struct cobj {
        size_t file;  /* its regular file */
        size_t loader; /* the object that loaded it, or SIZE_MAX */
        struct pn_abi abi;
        char *origin; /* $ORIGIN: the directory it was found in */
        /* DT_RPATH and DT_RUNPATH expanded ([0], [1]), worked out at its
         * first search; on the heap, not in OBJS, because a search holds
         * them while it adds objects (and OBJS may move). */
        struct pn_dirlist *paths;
        struct pn_dynamic dyn;
        char *interp;
        pkgnote_info *info; /* its notes, until its turn comes */
};

struct pkgnote_closure {
        int rootfd;
        char *root;
        struct cfile *files;
        size_t n_files, cap_files;
        struct cobj *objs;
        size_t n_objs, cap_objs, done;
        struct pn_smap by_path;  /* file path -> files index */
        struct pn_smap by_inode; /* resolved file -> objs index */
        struct pn_smap by_name;  /* "CLASS:MACHINE:BE:name" -> objs index */
        pn_resolver *resolver; /* the loader's search (lib/07-check-resolve.c) */
        json_t *missing;
        char **missing_text; /* pkgnote_closure_missing()'s, one per entry of MISSING */
        size_t cap_missing_text;
        struct pn_problems problems;
        struct pn_dlopen_select sel; /* the dlopen entries followed */
        struct pn_edges edges;       /* between objects (indices of OBJS) */
};

static int problem(pkgnote_closure *c, int err, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void resolve_problem(void *u, int err, const char *path, const char *msg) {
        problem(u, err, path, "%s", msg);
}

PKGNOTE_PUBLIC int pkgnote_closure_new(const char *root, pkgnote_closure **ret) {
        if (!root || !*root)
                root = "/";
        pkgnote_closure *c = calloc(1, sizeof *c);
        if (!c)
                return pn_oom();
        c->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (c->rootfd < 0) {
                int err = -errno;
                free(c);
                return pn_error(err, "cannot open the root directory: %s", strerror(-err));
        }
        c->root = strdup(root);
        c->missing = json_array();
        struct pn_resolve_root rr;
        pn_resolve_root_tree(&rr, &c->rootfd);
        if (!c->root || !c->missing || pn_resolver_new(&rr, resolve_problem, c, &c->resolver) < 0) {
                pkgnote_closure_free(c);
                return pn_oom();
        }
        *ret = c;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_closure_free(pkgnote_closure *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_files; i++) {
                free(c->files[i].path);
                free(c->files[i].target);
                json_decref(c->files[i].why);
        }
        free(c->files);
        for (size_t i = 0; i < c->n_objs; i++) {
                free(c->objs[i].origin);
                if (c->objs[i].paths) {
                        pn_dirlist_done(&c->objs[i].paths[0]);
                        pn_dirlist_done(&c->objs[i].paths[1]);
                        free(c->objs[i].paths);
                }
                free(c->objs[i].interp);
                pn_dynamic_done(&c->objs[i].dyn);
                pkgnote_info_free(c->objs[i].info);
        }
        free(c->objs);
        pn_smap_done(&c->by_path);
        pn_smap_done(&c->by_inode);
        pn_smap_done(&c->by_name);
        pn_resolver_free(c->resolver);
        pn_dlopen_select_free(&c->sel);
        pn_edges_done(&c->edges);
        pn_free_strv(c->missing_text, json_array_size(c->missing));
        json_decref(c->missing);
        pn_problems_clear(&c->problems);
        if (c->rootfd >= 0)
                close(c->rootfd);
        free(c->root);
        free(c);
}

PKGNOTE_PUBLIC int pkgnote_closure_select(pkgnote_closure *c, const char *feature, int priority, unsigned flags) {
        if (priority < 0 || priority > PKGNOTE_DLOPEN_REQUIRED || (flags & ~PKGNOTE_CLOSURE_ALL_FEATURES))
                return pn_error(-EINVAL, "unknown dlopen priority or flag");
        return pn_dlopen_select_add(&c->sel, feature, priority, flags & PKGNOTE_CLOSURE_ALL_FEATURES);
}

static int problem(pkgnote_closure *c, int err, const char *path, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = pn_problems_addv(&c->problems, PKGNOTE_MAX_PROBLEMS, err, path, 0, fmt, ap);
        va_end(ap);
        return r;
}

/* ------------------------------------------------------------------ */
/* Files and reasons */

static int add_file(pkgnote_closure *c, const char *path, const char *target, bool dir_link, json_t *why, size_t *ret) {
        size_t i;
        if (!pn_smap_get(&c->by_path, path, &i)) {
                if (c->n_files >= PKGNOTE_MAX_CLOSURE_FILES)
                        return pn_error(-E2BIG, "a closure of more than %u files", PKGNOTE_MAX_CLOSURE_FILES);
                if (PN_GROW(c->files, c->cap_files, c->n_files + 1) < 0)
                        return pn_oom();
                struct cfile *f = &c->files[c->n_files];
                *f = (struct cfile){.path = strdup(path), .target = target ? strdup(target) : NULL, .dir_link = dir_link,
                                    .why = json_array()};
                if (!f->path || (target && !f->target) || !f->why || pn_smap_put(&c->by_path, path, c->n_files) < 0) {
                        free(f->path);
                        free(f->target);
                        json_decref(f->why);
                        return pn_oom();
                }
                i = c->n_files++;
        }
        struct cfile *f = &c->files[i];
        if (why && json_array_size(f->why) >= PKGNOTE_MAX_CLOSURE_REASONS)
                f->more++;
        else if (why && json_array_append(f->why, why) < 0)
                return pn_oom();
        if (ret)
                *ret = i;
        return 0;
}

/* A reason: KIND ("program", "interpreter", "needed", "dlopen"), the
 * object that asked (BY, or none) and the name it asked for. */
static json_t *reason(const pkgnote_closure *c, const char *kind, size_t by, const char *name) {
        json_t *o = json_pack("{s:s}", "kind", kind);
        if (o && by != SIZE_MAX && json_object_set_new(o, "by", json_string(c->files[c->objs[by].file].path)) < 0)
                goto fail;
        if (o && name && json_object_set_new(o, "name", pn_json_bytes(name)) < 0)
                goto fail;
        return o;
fail:
        json_decref(o);
        return NULL;
}

/* ------------------------------------------------------------------ */
/* Opening candidates */

struct links {
        char **at, **target;
        bool *last;
        size_t n, cap_at, cap_target, cap_last;
};

static int collect_link(void *u, const char *at, const char *target, bool last) {
        struct links *l = u;
        if (l->n >= PN_MAX_SYMLINKS + 1)
                return -ELOOP;
        if (PN_GROW(l->at, l->cap_at, l->n + 1) < 0 || PN_GROW(l->target, l->cap_target, l->n + 1) < 0 ||
            PN_GROW(l->last, l->cap_last, l->n + 1) < 0)
                return -ENOMEM;
        l->last[l->n] = last;
        if (asprintf(&l->at[l->n], "/%s", at) < 0)
                return -ENOMEM;
        if (!(l->target[l->n] = strdup(target))) {
                free(l->at[l->n]);
                return -ENOMEM;
        }
        l->n++;
        return 0;
}

static void links_done(struct links *l) {
        pn_free_strv(l->at, l->n);
        pn_free_strv(l->target, l->n);
        free(l->last);
}

static const pkgnote_phdr *find_phdr(pkgnote_object *e, uint32_t type) {
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(e, &ph);
        for (int i = 0; i < n; i++)
                if (ph[i].type == type)
                        return &ph[i];
        return NULL;
}

/* PT_INTERP's path, or NULL (also when it is malformed: the kernel would
 * refuse to run the program, which is not this reader's to say). */
static char *interp_of(pkgnote_object *e) {
        const pkgnote_phdr *ph = find_phdr(e, PT_INTERP);
        if (!ph || ph->filesz < 2 || ph->filesz > PATH_MAX)
                return NULL;
        int err;
        const uint8_t *b = pn_elf_bytes(e, ph->offset, ph->filesz, &err);
        if (!b || b[ph->filesz - 1] != 0 || memchr(b, 0, ph->filesz - 1))
                return NULL;
        return strdup((const char *)b);
}

/* Tries PATH (absolute in the root) for an object of ABI WANT (NULL: any
 * ELF object, a program given), loaded by LOADER for WHY.  1 with its
 * index in *RET; 0 when nothing usable is there; a negative errno only
 * for failures that end the closure (-ENOMEM, -E2BIG). */
static int try_path(pkgnote_closure *c, const char *path, const struct pn_abi *want, size_t loader, json_t *why, size_t *ret) {
        struct links l = {0};
        char resolved[PATH_MAX];
        struct stat st;
        int fd = pn_open_in_root_links(c->rootfd, path, collect_link, &l, resolved, sizeof resolved, &st);
        if (fd == -ENOMEM) {
                links_done(&l);
                return pn_oom();
        }
        if (fd < 0) {
                if (fd == -ELOOP)
                        problem(c, fd, path, "too many symbolic links (a loop of links?)");
                else if (!want)
                        pn_error(fd, "%s", fd == -EINVAL ? "not a regular file" : strerror(-fd));
                links_done(&l);
                return fd == -ELOOP || want ? 0 : fd;
        }
        char key[64];
        snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
        size_t oi;
        int r = 0;
        pkgnote_object *e = NULL;
        if (pn_smap_get(&c->by_inode, key, &oi)) {
                close(fd);
                const struct pn_abi *a = &c->objs[oi].abi;
                if (want && !pn_abi_accepts(want, a)) {
                        links_done(&l);
                        return 0;
                }
        } else {
                r = pkgnote_object_open_fd(fd, &e);
                struct pn_abi got = r < 0 ? (struct pn_abi){0} : pn_elf_abi(e);
                if (r < 0 || (pkgnote_object_type(e) != ET_EXEC && pkgnote_object_type(e) != ET_DYN) ||
                    (want && !pn_abi_accepts(want, &got))) {
                        if (!want)
                                pn_error(r < 0 ? r : -ENOEXEC, "%s", r == -ENOEXEC || r >= 0 ? "not an ELF program or shared object" : pkgnote_last_error());
                        pkgnote_object_free(e);
                        close(fd);
                        links_done(&l);
                        return want ? (r == -ENOMEM ? r : 0) : (r < 0 ? r : -ENOEXEC);
                }
                if (c->n_objs >= PKGNOTE_MAX_CLOSURE_FILES) {
                        r = pn_error(-E2BIG, "a closure of more than %u objects", PKGNOTE_MAX_CLOSURE_FILES);
                        goto out;
                }
                if (PN_GROW(c->objs, c->cap_objs, c->n_objs + 1) < 0) {
                        r = pn_oom();
                        goto out;
                }
                oi = c->n_objs;
                struct cobj *o = &c->objs[oi];
                *o = (struct cobj){.file = SIZE_MAX, .loader = loader,
                                   .abi = got};
                /* $ORIGIN: for the program the kernel's (resolved) path,
                 * for a library the directory it was found in. */
                const char *from = want ? path : resolved;
                const char *slash = strrchr(from, '/');
                size_t dl = slash ? (size_t)(slash - from) : 0;
                if (asprintf(&o->origin, "%s%.*s", from[0] == '/' ? "" : "/", (int)dl, from) < 0) {
                        o->origin = NULL;
                        r = pn_oom();
                        goto out;
                }
                c->n_objs++;
                /* What it needs: a malformed dynamic section or note is
                 * the object's problem, its file still belongs. */
                if ((r = pn_elf_dynamic_read(e, &o->dyn)) < 0) {
                        if (r == -ENOMEM)
                                goto out;
                        problem(c, r, path, "cannot read the dynamic section: %s", pkgnote_last_error());
                }
                o->interp = interp_of(e);
                if ((r = pkgnote_info_read(e, &o->info)) < 0) {
                        if (r == -ENOMEM)
                                goto out;
                        problem(c, r, path, "cannot read the notes: %s", pkgnote_last_error());
                        o->info = NULL;
                }
                r = pn_smap_put(&c->by_inode, key, oi);
                if (r < 0)
                        goto out;
        }
        for (size_t i = 0; r == 0 && i < l.n; i++)
                r = add_file(c, l.at[i], l.target[i], !l.last[i], why, NULL);
        char abs[PATH_MAX + 1];
        snprintf(abs, sizeof abs, "/%s", resolved);
        size_t fi;
        if (r == 0 && (r = add_file(c, abs, NULL, false, why, &fi)) == 0) {
                if (c->objs[oi].file == SIZE_MAX)
                        c->objs[oi].file = fi;
                *ret = oi;
                r = 1;
        }
out:
        if (e) {
                pkgnote_object_free(e);
                close(fd);
        }
        links_done(&l);
        return r;
}

/* ------------------------------------------------------------------ */
/* Searching */

static void name_key(char *buf, size_t size, const struct pn_abi *a, const char *name) {
        snprintf(buf, size, "%d:%u:%d:%d:%s", a->elf_class, a->machine, a->big_endian, a->float_abi, name);
}

/* NAME registered as answered by object OI (first one wins). */
static int register_name(pkgnote_closure *c, size_t oi, const char *name) {
        char key[PATH_MAX + 64];
        size_t old;
        name_key(key, sizeof key, &c->objs[oi].abi, name);
        return pn_smap_get(&c->by_name, key, &old) ? 0 : pn_smap_put(&c->by_name, key, oi) < 0 ? pn_oom() : 0;
}

struct candidate {
        pkgnote_closure *c;
        const struct pn_abi *abi;
        size_t loader;
        json_t *why;
};

/* A file the search meets (lib/07-check-resolve.c): opened, and listed
 * when the loader would take it; a glibc-hwcaps variant's reason says
 * its level. */
static int candidate(void *u, const char *path, const char *hwcaps, size_t *obj) {
        struct candidate *x = u;
        if (!hwcaps)
                return try_path(x->c, path, x->abi, x->loader, x->why, obj);
        json_t *w = json_copy(x->why);
        int r = !w || json_object_set_new(w, "hwcaps", json_string(hwcaps)) < 0
                        ? pn_oom()
                        : try_path(x->c, path, x->abi, x->loader, w, obj);
        json_decref(w);
        return r;
}

/* Object OI's DT_RPATH and DT_RUNPATH directories, worked out once:
 * their lists, which stay where they are while the closure lives. */
static int expand_paths(pkgnote_closure *c, size_t oi, struct pn_dirlist **ret) {
        struct cobj *o = &c->objs[oi];
        if (!o->paths) {
                if (!(o->paths = calloc(2, sizeof *o->paths)))
                        return pn_oom();
                const char *who = o->file != SIZE_MAX ? c->files[o->file].path : NULL;
                if (o->dyn.rpath && pn_resolver_expand(c->resolver, o->dyn.rpath, o->origin, &o->abi, who, &o->paths[0]) < 0)
                        return pn_oom();
                o = &c->objs[oi];
                if (o->dyn.runpath && pn_resolver_expand(c->resolver, o->dyn.runpath, o->origin, &o->abi, who, &o->paths[1]) < 0)
                        return pn_oom();
        }
        *ret = c->objs[oi].paths;
        return 0;
}

/* Looks NAME up for object OI as the loader would: 1 with the object in
 * *RET, 0 not found, negative errno. */
static int lookup(pkgnote_closure *c, size_t oi, const char *name, json_t *why, size_t *ret) {
        struct pn_abi abi = c->objs[oi].abi;
        char key[PATH_MAX + 64];
        size_t found;
        name_key(key, sizeof key, &abi, name);
        if (pn_smap_get(&c->by_name, key, &found)) {
                *ret = found;
                return add_file(c, c->files[c->objs[found].file].path, NULL, false, why, NULL) < 0 ? -ENOMEM : 1;
        }
        struct candidate x = {c, &abi, oi, why};
        struct pn_lookup q = {.name = name, .abi = abi, .candidate = candidate, .u = &x};
        /* DF_1_NODEFLIB: no library from the system directories for this
         * object, neither by the default search nor by an ld.so.cache
         * entry in one of them (glibc's _dl_map_object); the cache's
         * other directories, those of ld.so.conf, still answer. */
        q.nodeflib = c->objs[oi].dyn.flags_1 & DF_1_NODEFLIB;
        const struct pn_dirlist **rpath = NULL;
        size_t n_rpath = 0, cap_rpath = 0;
        int r = 0;
        if (strchr(name, '/'))
                r = try_path(c, name, &abi, oi, why, &q.found);
        else {
                /* Unless the object has DT_RUNPATH: DT_RPATH of the
                 * object, of its loader, and on up to the program (glibc's
                 * _dl_map_object).  A loader with DT_RUNPATH has no
                 * DT_RPATH to give (glibc drops it, elf/get-dynamic-info.h)
                 * and the chain goes on past it. */
                if (!c->objs[oi].dyn.runpath)
                        for (size_t l = oi; r == 0 && l != SIZE_MAX; l = c->objs[l].loader) {
                                if (c->objs[l].dyn.runpath || !c->objs[l].dyn.rpath)
                                        continue;
                                struct pn_dirlist *p;
                                if ((r = expand_paths(c, l, &p)) == 0 && PN_GROW(rpath, cap_rpath, n_rpath + 1) < 0)
                                        r = pn_oom();
                                if (r == 0)
                                        rpath[n_rpath++] = &p[0];
                        }
                struct pn_dirlist *p;
                if (r == 0 && c->objs[oi].dyn.runpath && (r = expand_paths(c, oi, &p)) == 0)
                        q.runpath = &p[1];
                q.rpath = rpath, q.n_rpath = n_rpath;
                if (r == 0 && (r = pn_resolver_lookup(c->resolver, &q)) == -ENOMEM)
                        r = pn_oom();
        }
        free(rpath);
        if (r < 0)
                return r;
        if (r == 0 && q.variant != SIZE_MAX) {
                /* Only for CPUs of a glibc-hwcaps level: listed, and said. */
                problem(c, 0, c->files[c->objs[oi].file].path,
                        "%s: only in glibc-hwcaps subdirectories (%s): a CPU below that level finds none", name, q.variant_sub);
                q.found = q.variant;
                r = 1;
        }
        if (r == 0)
                return 0;
        if ((r = register_name(c, q.found, name)) < 0)
                return r;
        *ret = q.found;
        return 1;
}

/* Records WHY as not found, with its text for pkgnote_closure_missing():
 * the name, or a dlopen entry's names with its feature and priority. */
static int add_missing(pkgnote_closure *c, json_t *why) {
        size_t n = json_array_size(c->missing);
        if (PN_GROW(c->missing_text, c->cap_missing_text, n + 1) < 0)
                return pn_oom();
        const json_t *names = json_object_get(why, "names");
        char *text = NULL;
        if (names) {
                struct pn_text t = {0};
                for (size_t i = 0; i < json_array_size(names); i++)
                        pn_text_add(&t, "%s%s", i ? " or " : "", json_string_value(json_array_get(names, i)));
                const char *f = json_string_value(json_object_get(why, "feature"));
                pn_text_add(&t, " (dlopen%s%s, %s)", f ? ", feature " : "", f ? f : "",
                            json_string_value(json_object_get(why, "priority")));
                if (pn_text_finish(&t, &text) < 0)
                        text = NULL;
        } else
                text = strdup(json_string_value(json_object_get(why, "name")));
        if (!text || json_array_append(c->missing, why) < 0) {
                free(text);
                return pn_oom();
        }
        c->missing_text[n] = text;
        return 0;
}

/* Is the dlopen entry I of N asked for? */
/* The dlopen entry I of note N of object OI: its first soname found. */
static int add_dlopen(pkgnote_closure *c, size_t oi, const pkgnote_dlopen *n, size_t i) {
        size_t ns = pkgnote_dlopen_soname_count(n, i);
        json_t *why = reason(c, "dlopen", oi, NULL);
        const char *f = pkgnote_dlopen_get(n, i, "feature");
        int p = pkgnote_dlopen_priority(n, i);
        json_t *names = json_array();
        if (!why || !names || (f && json_object_set_new(why, "feature", pn_json_bytes(f)) < 0) ||
            json_object_set_new(why, "priority", json_string(pkgnote_dlopen_priority_name(p > 0 ? p : PKGNOTE_DLOPEN_RECOMMENDED))) < 0) {
                json_decref(why);
                json_decref(names);
                return pn_oom();
        }
        int r = 0, pr = p > 0 ? p : PKGNOTE_DLOPEN_RECOMMENDED;
        for (size_t j = 0; r == 0 && j < ns; j++)
                if (json_array_append_new(names, pn_json_bytes(pkgnote_dlopen_soname(n, i, j))) < 0)
                        r = pn_oom();
        for (size_t j = 0; r == 0 && j < ns; j++) {
                const char *so = pkgnote_dlopen_soname(n, i, j);
                /* Only a file name: a path in a note is not the root's. */
                if (!pn_soname_shaped(so) || strchr(so, '/'))
                        continue;
                /* Each reason its own object: those kept are shared. */
                json_t *w = json_copy(why);
                size_t found;
                r = !w || json_object_set_new(w, "name", pn_json_bytes(so)) < 0 ? pn_oom()
                                                                      : lookup(c, oi, so, w, &found);
                json_decref(w);
                if (r > 0 && pn_edges_add(&c->edges, oi, found, PKGNOTE_DEP_DLOPEN, so, f, pr) < 0)
                        r = -ENOMEM;
        }
        if (r == 0 && ns) {
                /* The missing edge names every alternative. */
                struct pn_text t = {0};
                char *all = NULL;
                for (size_t j = 0; j < ns; j++)
                        pn_text_add(&t, "%s%s", j ? " or " : "", pkgnote_dlopen_soname(n, i, j));
                if (pn_text_finish(&t, &all) < 0 || pn_edges_add(&c->edges, oi, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, all, f, pr) < 0)
                        r = pn_oom();
                free(all);
        }
        if (r == 0)
                r = json_object_set(why, "names", names) < 0 ? pn_oom() : add_missing(c, why);
        json_decref(names);
        json_decref(why);
        return r < 0 ? r : 0;
}

/* Everything object OI needs, its turn come. */
static int expand_object(pkgnote_closure *c, size_t oi) {
        int r = 0;
        if (c->objs[oi].interp) {
                json_t *why = reason(c, "interpreter", oi, c->objs[oi].interp);
                size_t found;
                struct pn_abi any = c->objs[oi].abi;
                r = !why ? -ENOMEM : try_path(c, c->objs[oi].interp, &any, oi, why, &found);
                if (r >= 0 && pn_edges_add(&c->edges, oi, r > 0 ? found : PN_EDGE_NONE, PKGNOTE_DEP_INTERP,
                                           c->objs[oi].interp, NULL, PKGNOTE_DLOPEN_REQUIRED) < 0)
                        r = -ENOMEM;
                if (r == 0)
                        r = add_missing(c, why);
                json_decref(why);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < c->objs[oi].dyn.n_needed; i++) {
                const char *name = c->objs[oi].dyn.needed[i];
                json_t *why = reason(c, "needed", oi, name);
                size_t found;
                r = !why ? pn_oom() : lookup(c, oi, name, why, &found);
                if (r >= 0 && pn_edges_add(&c->edges, oi, r > 0 ? found : PN_EDGE_NONE, PKGNOTE_DEP_NEEDED, name,
                                           NULL, PKGNOTE_DLOPEN_REQUIRED) < 0)
                        r = -ENOMEM;
                if (r == 0)
                        r = add_missing(c, why);
                json_decref(why);
                if (r < 0)
                        return r;
        }
        pkgnote_info *info = c->objs[oi].info;
        c->objs[oi].info = NULL;
        for (size_t k = 0; r >= 0 && info && k < pkgnote_info_dlopen_count(info); k++) {
                const pkgnote_dlopen *n = pkgnote_info_dlopen(info, k);
                for (size_t i = 0; r >= 0 && i < pkgnote_dlopen_count(n); i++)
                        if (pn_dlopen_selected(&c->sel, n, i))
                                r = add_dlopen(c, oi, n, i);
        }
        pkgnote_info_free(info);
        return r < 0 ? r : 0;
}

PKGNOTE_PUBLIC int pkgnote_closure_add(pkgnote_closure *c, const char *path) {
        if (!path || !*path)
                return pn_error(-EINVAL, "no path");
        json_t *why = reason(c, "program", SIZE_MAX, NULL);
        if (!why)
                return pn_oom();
        char abs[PATH_MAX];
        snprintf(abs, sizeof abs, "%s%s", path[0] == '/' ? "" : "/", path);
        size_t oi, before = c->n_objs;
        int r = try_path(c, abs, NULL, SIZE_MAX, why, &oi);
        json_decref(why);
        if (r < 0)
                return r;
        if (c->objs[oi].dyn.soname && (r = register_name(c, oi, c->objs[oi].dyn.soname)) < 0)
                return r;
        /* Breadth first, as the loader maps them; an object reached again
         * (a loop of DT_NEEDED) is an object already there. */
        for (; c->done < c->n_objs; c->done++) {
                size_t k = c->done;
                if (c->objs[k].dyn.soname && (r = register_name(c, k, c->objs[k].dyn.soname)) < 0)
                        return r;
                if ((r = expand_object(c, k)) < 0)
                        return r;
        }
        return c->n_objs > before;
}

/* ------------------------------------------------------------------ */
/* Results */

PKGNOTE_PUBLIC size_t pkgnote_closure_count(const pkgnote_closure *c) {
        return c->n_files;
}
PKGNOTE_PUBLIC const char *pkgnote_closure_path(const pkgnote_closure *c, size_t i) {
        return i < c->n_files ? c->files[i].path : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_closure_target(const pkgnote_closure *c, size_t i) {
        return i < c->n_files ? c->files[i].target : NULL;
}
PKGNOTE_PUBLIC size_t pkgnote_closure_missing_count(const pkgnote_closure *c) {
        return json_array_size(c->missing);
}
PKGNOTE_PUBLIC const char *pkgnote_closure_missing(const pkgnote_closure *c, size_t i, const char **by) {
        json_t *m = json_array_get(c->missing, i);
        if (!m)
                return NULL;
        if (by)
                *by = json_string_value(json_object_get(m, "by"));
        return c->missing_text[i];
}
PKGNOTE_PUBLIC size_t pkgnote_closure_problem_count(const pkgnote_closure *c) {
        return c->problems.n;
}
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_closure_problem(const pkgnote_closure *c, size_t i) {
        return pn_problems_get(&c->problems, i);
}

/* The path of object I, as the edges name it. */
static const char *obj_path(const void *u, size_t i) {
        const pkgnote_closure *c = u;
        return i < c->n_objs && c->objs[i].file != SIZE_MAX ? c->files[c->objs[i].file].path : "";
}

PKGNOTE_PUBLIC size_t pkgnote_closure_edge_count(const pkgnote_closure *c) {
        return c->edges.n;
}
PKGNOTE_PUBLIC int pkgnote_closure_edge(const pkgnote_closure *c, size_t i, pkgnote_dep_edge *e) {
        return pn_edges_get(&c->edges, i, obj_path, c, e);
}

PKGNOTE_PUBLIC int pkgnote_closure_to_json(const pkgnote_closure *c, const pkgnote_pkgdb *db, char **ret) {
        json_t *files = json_array(), *problems = json_array();
        int r = files && problems ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < c->n_files; i++) {
                const struct cfile *f = &c->files[i];
                json_t *o = json_pack("{s:o,s:s,s:O}", "path", pn_json_bytes(f->path), "type",
                                      f->target ? "symlink" : "file", "why", f->why);
                /* jansson takes each value, also when it fails. */
                bool ok = o != NULL;
                if (ok && f->target)
                        ok = json_object_set_new(o, "target", pn_json_bytes(f->target)) == 0;
                if (ok && f->dir_link)
                        ok = json_object_set_new(o, "directory", json_true()) == 0;
                if (ok && f->more)
                        ok = json_object_set_new(o, "moreReasons", json_integer((json_int_t)f->more)) == 0;
                size_t pi;
                pkgnote_db_package p = {.size = sizeof p};
                if (ok && db && !f->dir_link && pkgnote_pkgdb_owner(db, f->path, &pi) > 0 && pkgnote_pkgdb_package(db, pi, &p) > 0)
                        ok = json_object_set_new(o, "package", pn_json_bytes(p.binary_name)) == 0;
                if (!ok) {
                        json_decref(o);
                        o = NULL;
                }
                if (!o || json_array_append_new(files, o) < 0)
                        r = -ENOMEM;
        }
        for (size_t i = 0; r == 0 && i < c->problems.n; i++) {
                const pkgnote_problem *p = pn_problems_get(&c->problems, i);
                json_t *o = json_pack("{s:o,s:o}", "path", pn_json_bytes(p->path ? p->path : ""), "message",
                                      pn_json_bytes(p->message));
                if (!o || json_array_append_new(problems, o) < 0)
                        r = -ENOMEM;
        }
        /* The graph: the objects, and the edges between them. */
        json_t *nodes = json_array(), *edges = pn_edges_json(&c->edges, obj_path, c);
        for (size_t i = 0; r == 0 && nodes && i < c->n_files; i++)
                if (!c->files[i].target && json_array_append_new(nodes, pn_json_bytes(c->files[i].path)) < 0)
                        r = -ENOMEM;
        json_t *top = r == 0 && nodes && edges
                              ? json_pack("{s:o,s:O,s:O,s:O,s:O,s:O}", "root", pn_json_bytes(c->root), "files", files, "missing",
                                          c->missing, "problems", problems, "nodes", nodes, "edges", edges)
                              : NULL;
        json_decref(nodes);
        json_decref(edges);
        json_decref(files);
        json_decref(problems);
        char *s = top ? pn_json_dumps(top, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(top);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}
