/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `deps --verify`: whether a built artefact (a directory, an initramfs)
 * holds what its programs need.  Every regular file of the artefact that
 * is an ELF program or shared object is read once, in path order, and
 * checked: its interpreter (PT_INTERP) must be an object of its ABI in
 * the artefact; each DT_NEEDED name must be found as glibc's loader finds
 * it there; of each dlopen note entry selected, one soname at least,
 * searched as a dlopen() from that object searches.  The search is the
 * one resolver `deps --closure` uses (lib/07-check-resolve.c: DT_RPATH/
 * DT_RUNPATH with $ORIGIN, the artefact's ld.so.conf, the system
 * directories of the object's ABI, glibc-hwcaps), over the artefact read
 * into memory (lib/07-check-artefact.c), each directory listed once for
 * all objects.  A UKI's kernel is checked against its initrd: modules
 * in it, but none for the kernel's release, is a finding.
 *
 * DT_NEEDED is checked as the loader meets it: a program (an object with
 * PT_INTERP) with every object it maps, breadth first, a name answered by
 * an object already mapped (its DT_SONAME, the interpreter's too, or a
 * name it was found under) before any search, and the DT_RPATH of the
 * loaders up the chain (elf/dl-load.c, _dl_map_object); an object no
 * program maps (a library that is dlopen()ed, a module) by itself, as
 * ldd asks about it.  A finding is made once per object, kind and names.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "01-base-problem.h"
#include "01-base.h"
#include "02-elf-const.h"
#include "02-elf-view.h"
#include "03-model-dlopen.h"
#include "03-model-json.h"
#include "07-check-artefact.h"
#include "07-check-edges.h"
#include "07-check-resolve.h"
#include "07-check-verify.h"

struct finding {
        char *object, *kind, *sonames, *feature;
        char **names;
        size_t n_names;
        int priority;
        size_t order;
};

/* What is known of an inode as a candidate of a search. */
struct cand {
        int state; /* 0 not looked at, 1 an ELF object, -1 not */
        struct pn_abi abi;
};

/* An ELF object of the artefact, read once. */
struct vobj {
        char *path;
        size_t node;
        struct pn_abi abi;
        struct pn_dynamic dyn;
        struct pn_dirlist rpath, runpath;
        char *interp;
        pkgnote_info *info;
        bool reached; /* mapped by a program's loader */
};

struct pkgnote_verify {
        char *path;
        struct vobj *objs;
        size_t n_objs;
        struct pn_smap obj_of_inode; /* inode -> first object of it */
        struct pn_smap said;         /* findings made: "kind\nobject\nname" */
        struct pn_artefact *a;
        pn_resolver *resolver;
        struct cand *cands; /* by inode */
        size_t n_cands;
        struct finding *f;
        size_t n_f, cap_f;
        struct pn_problems problems;
        struct pn_dlopen_select sel; /* the dlopen entries checked */
        struct pn_edges edges;       /* between objects (indices of OBJS) */
        bool selected, ran;
        int run_error; /* of the run that failed, returned again */
        size_t objects, required;
};

static void resolve_problem(void *u, int err, const char *path, const char *msg) {
        pkgnote_verify *v = u;
        pn_problems_add(&v->problems, PKGNOTE_MAX_PROBLEMS, err, path, "%s", msg);
}

int pn_verify_new_with(const char *path, pn_verify_open_fn open_artefact, void *u, pkgnote_verify **ret) {
        if (!path || !*path)
                return pn_error(-EINVAL, "no artefact");
        pkgnote_verify *v = calloc(1, sizeof *v);
        if (!v)
                return pn_oom();
        v->sel.priority = PKGNOTE_DLOPEN_RECOMMENDED;
        int r = open_artefact ? open_artefact(u, path, &v->problems, &v->a) : pn_artefact_open(path, &v->problems, &v->a);
        if (r < 0) {
                pkgnote_verify_free(v);
                return r;
        }
        size_t n_ino = 0;
        for (size_t i = 0; i < pn_artefact_count(v->a); i++)
                if (pn_artefact_type(v->a, i) == PN_NODE_FILE && pn_artefact_inode(v->a, i) + 1 > n_ino)
                        n_ino = pn_artefact_inode(v->a, i) + 1;
        struct pn_resolve_root rr;
        pn_artefact_root(v->a, &rr);
        v->n_cands = n_ino;
        if (!(v->path = strdup(path)) || !(v->cands = calloc(n_ino ? n_ino : 1, sizeof *v->cands)) ||
            pn_resolver_new(&rr, resolve_problem, v, &v->resolver) < 0) {
                pkgnote_verify_free(v);
                return pn_oom();
        }
        *ret = v;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_verify_free(pkgnote_verify *v) {
        if (!v)
                return;
        for (size_t i = 0; i < v->n_f; i++) {
                free(v->f[i].object);
                free(v->f[i].kind);
                free(v->f[i].sonames);
                free(v->f[i].feature);
                pn_free_strv(v->f[i].names, v->f[i].n_names);
        }
        free(v->f);
        for (size_t i = 0; i < v->n_objs; i++) {
                free(v->objs[i].path);
                pn_dynamic_done(&v->objs[i].dyn);
                pn_dirlist_done(&v->objs[i].rpath);
                pn_dirlist_done(&v->objs[i].runpath);
                free(v->objs[i].interp);
                pkgnote_info_free(v->objs[i].info);
        }
        free(v->objs);
        pn_smap_done(&v->obj_of_inode);
        pn_smap_done(&v->said);
        free(v->cands);
        pn_resolver_free(v->resolver);
        pn_artefact_free(v->a);
        pn_dlopen_select_free(&v->sel);
        pn_edges_done(&v->edges);
        pn_problems_clear(&v->problems);
        free(v->path);
        free(v);
}

PKGNOTE_PUBLIC int pkgnote_verify_select(pkgnote_verify *v, const char *feature, int priority, unsigned flags) {
        if (priority < 0 || priority > PKGNOTE_DLOPEN_REQUIRED || (flags & ~PKGNOTE_VERIFY_ALL_FEATURES))
                return pn_error(-EINVAL, "unknown dlopen priority or flag");
        if (!v->selected) {
                v->selected = true;
                v->sel.priority = 0;
        }
        return pn_dlopen_select_add(&v->sel, feature, priority, flags & PKGNOTE_VERIFY_ALL_FEATURES);
}

/* ------------------------------------------------------------------ */

/* The ELF object of regular node N: read from its file on disk (a
 * directory artefact's: not all kept in memory) with *FD to close after
 * it, or from the artefact's bytes (*FD -1). */
static int open_object(pkgnote_verify *v, size_t n, pkgnote_object **ret, int *fd) {
        *fd = pn_artefact_open_file(v->a, n);
        if (*fd >= 0) {
                int r = pkgnote_object_open_fd(*fd, ret);
                if (r < 0) {
                        close(*fd);
                        *fd = -1;
                }
                return r;
        }
        if (*fd != -ENODATA)
                return *fd;
        const uint8_t *data;
        size_t len;
        int r = pn_artefact_bytes(v->a, n, &data, &len);
        if (r < 0)
                return r;
        return pkgnote_object_from_memory(data, len, ret);
}

static void close_object(pkgnote_object *e, int fd) {
        pkgnote_object_free(e);
        if (fd >= 0)
                close(fd);
}

/* Whether PATH (absolute in the artefact) is an object the loader of ABI
 * WANT maps: 1 with its inode in *OBJ, 0 when not (not there, not ELF,
 * another ABI), -ENOMEM. */
static int accepts(pkgnote_verify *v, const char *path, const struct pn_abi *want, size_t *obj) {
        size_t n;
        if (pn_artefact_resolve(v->a, path, true, &n) < 0 || pn_artefact_type(v->a, n) != PN_NODE_FILE)
                return 0;
        size_t in = pn_artefact_inode(v->a, n);
        struct cand *c = &v->cands[in];
        if (!c->state) {
                c->state = -1;
                pkgnote_object *e = NULL;
                int fd = -1;
                if (pn_artefact_is_elf(v->a, n) && open_object(v, n, &e, &fd) >= 0 &&
                    (pkgnote_object_type(e) == ET_DYN || pkgnote_object_type(e) == ET_EXEC)) {
                        c->state = 1;
                        c->abi = pn_elf_abi(e);
                }
                close_object(e, fd);
        }
        if (c->state < 0 || !pn_abi_accepts(want, &c->abi))
                return 0;
        *obj = in;
        return 1;
}

struct cctx {
        pkgnote_verify *v;
        const struct pn_abi *abi;
};

static int candidate(void *u, const char *path, const char *hwcaps, size_t *obj) {
        (void)hwcaps;
        struct cctx *x = u;
        return accepts(x->v, path, x->abi, obj);
}

static int add_finding(pkgnote_verify *v, const char *object, const char *kind, const char *const *names, size_t n,
                       const char *feature, int priority) {
        if (PN_GROW(v->f, v->cap_f, v->n_f + 1) < 0)
                return pn_oom();
        struct finding *f = &v->f[v->n_f];
        *f = (struct finding){.priority = priority};
        struct pn_text t = {0};
        for (size_t i = 0; i < n; i++)
                pn_text_add(&t, "%s%s", i ? " or " : "", names[i]);
        f->object = strdup(object);
        f->kind = strdup(kind);
        f->feature = feature ? strdup(feature) : NULL;
        f->names = calloc(n ? n : 1, sizeof *f->names);
        bool ok = pn_text_finish(&t, &f->sonames) >= 0 && f->object && f->kind && (!feature || f->feature) && f->names;
        for (size_t i = 0; ok && i < n; i++, f->n_names++)
                ok = (f->names[i] = strdup(names[i])) != NULL;
        v->n_f++;
        if (!ok)
                return pn_oom();
        if (priority == PKGNOTE_DLOPEN_REQUIRED)
                v->required++;
        return 0;
}

/* PT_INTERP's path, or NULL (also when it is malformed). */
static char *interp_of(pkgnote_object *e) {
        const pkgnote_phdr *ph;
        int n = pn_object_phdrs(e, &ph);
        for (int i = 0; i < n; i++) {
                if (ph[i].type != PT_INTERP)
                        continue;
                if (ph[i].filesz < 2 || ph[i].filesz > PATH_MAX)
                        return NULL;
                int err;
                const uint8_t *b = pn_elf_bytes(e, ph[i].offset, ph[i].filesz, &err);
                if (!b || b[ph[i].filesz - 1] != 0 || memchr(b, 0, ph[i].filesz - 1))
                        return NULL;
                return strdup((const char *)b);
        }
        return NULL;
}

/* Reads the ELF object at regular node N, path PATH, into V->objs:
 * 0 (also when it is none), -ENOMEM. */
static int read_object(pkgnote_verify *v, size_t n, const char *path) {
        pkgnote_object *e = NULL;
        int fd;
        int r = open_object(v, n, &e, &fd);
        if (r < 0) {
                if (r == -ENOMEM)
                        return r;
                pn_problems_add(&v->problems, PKGNOTE_MAX_PROBLEMS, r, path, "cannot read as ELF: %s", pkgnote_last_error());
                return 0;
        }
        if (pkgnote_object_is_pe(e) || (pkgnote_object_type(e) != ET_DYN && pkgnote_object_type(e) != ET_EXEC)) {
                close_object(e, fd);
                return 0;
        }
        struct vobj *o = &v->objs[v->n_objs];
        *o = (struct vobj){.node = n, .abi = pn_elf_abi(e)};
        if (!(o->path = strdup(path))) {
                close_object(e, fd);
                return pn_oom();
        }
        v->n_objs++;
        char origin[PATH_MAX];
        const char *slash = strrchr(path, '/');
        snprintf(origin, sizeof origin, "%.*s", slash && slash != path ? (int)(slash - path) : 1, path);
        if ((r = pn_elf_dynamic_read(e, &o->dyn)) < 0) {
                if (r == -ENOMEM)
                        goto out;
                /* The loader may well map it; whether it finds what it
                 * needs is not known here, which is no pass. */
                const char *why[1] = {pkgnote_last_error()};
                if ((r = add_finding(v, path, "unreadable", why, 1, NULL, PKGNOTE_DLOPEN_REQUIRED)) < 0)
                        goto out;
        }
        if ((o->dyn.rpath && pn_resolver_expand(v->resolver, o->dyn.rpath, origin, &o->abi, path, &o->rpath) < 0) ||
            (o->dyn.runpath && pn_resolver_expand(v->resolver, o->dyn.runpath, origin, &o->abi, path, &o->runpath) < 0)) {
                r = pn_oom();
                goto out;
        }
        o->interp = interp_of(e);
        if ((r = pkgnote_info_read(e, &o->info)) < 0) {
                if (r == -ENOMEM)
                        goto out;
                pn_problems_add(&v->problems, PKGNOTE_MAX_PROBLEMS, r, path, "cannot read the notes: %s", pkgnote_last_error());
                o->info = NULL;
        }
        char key[32];
        size_t first;
        snprintf(key, sizeof key, "%zx", pn_artefact_inode(v->a, n));
        r = pn_smap_get(&v->obj_of_inode, key, &first) ? 0 : pn_smap_put(&v->obj_of_inode, key, v->n_objs - 1);
out:
        close_object(e, fd);
        return r < 0 ? pn_oom() : 0;
}

/* A finding, once per object, kind and names. */
static int finding_once(pkgnote_verify *v, const char *object, const char *kind, const char *const *names, size_t n,
                        const char *feature, int priority) {
        struct pn_text t = {0};
        pn_text_add(&t, "%s\n%s", kind, object);
        for (size_t i = 0; i < n; i++)
                pn_text_add(&t, "\n%s", names[i]);
        char *key;
        size_t old;
        if (pn_text_finish(&t, &key) < 0)
                return pn_oom();
        int r = 0;
        if (!pn_smap_get(&v->said, key, &old))
                r = pn_smap_put(&v->said, key, 0) < 0 ? pn_oom() : add_finding(v, object, kind, names, n, feature, priority);
        free(key);
        return r;
}

/* The object read of inode IN, or SIZE_MAX. */
static size_t obj_of(const pkgnote_verify *v, size_t in) {
        char key[32];
        size_t oi;
        snprintf(key, sizeof key, "%zx", in);
        return pn_smap_get(&v->obj_of_inode, key, &oi) ? oi : SIZE_MAX;
}

/* Looks NAME up for object OI with the DT_RPATH of LOADERS[0..NL) (the
 * chain up to the program, OI first): 1 with the object found in *RET
 * (SIZE_MAX: a file the loader takes that is no object read, as one of a
 * glibc-hwcaps variant only) and the object the graph's edge goes to in
 * *TO (that variant's too), 0, -ENOMEM. */
static int lookup(pkgnote_verify *v, size_t oi, const size_t *loaders, size_t nl, const char *name, size_t *ret,
                  size_t *to) {
        struct vobj *o = &v->objs[oi];
        struct cctx x = {v, &o->abi};
        size_t in;
        int r;
        *ret = *to = SIZE_MAX;
        if (strchr(name, '/'))
                /* A path: taken as it is, from the top (the working
                 * directory of a program started in /). */
                r = accepts(v, name, &o->abi, &in);
        else {
                const struct pn_dirlist *rp[64];
                size_t n_rp = 0;
                /* Unless the object has DT_RUNPATH: DT_RPATH of it and of
                 * its loaders up to the program, those with DT_RUNPATH
                 * giving none (glibc's _dl_map_object). */
                for (size_t k = 0; !o->dyn.runpath && k < nl && n_rp < 64; k++) {
                        const struct vobj *l = &v->objs[loaders[k]];
                        if (!l->dyn.runpath && l->rpath.n)
                                rp[n_rp++] = &l->rpath;
                }
                struct pn_lookup q = {.name = name, .abi = o->abi, .rpath = rp, .n_rpath = n_rp,
                                      .runpath = o->dyn.runpath ? &o->runpath : NULL,
                                      .nodeflib = o->dyn.flags_1 & DF_1_NODEFLIB, .candidate = candidate, .u = &x};
                r = pn_resolver_lookup(v->resolver, &q);
                if (r < 0)
                        return r == -ENOMEM ? pn_oom() : r;
                if (r == 0 && q.variant != SIZE_MAX) {
                        pn_problems_add(&v->problems, PKGNOTE_MAX_PROBLEMS, 0, o->path,
                                        "%s: only in glibc-hwcaps subdirectories (%s): a CPU below that level finds none", name,
                                        q.variant_sub);
                        *to = obj_of(v, q.variant);
                        return 1;
                }
                in = q.found;
        }
        if (r > 0)
                *ret = *to = obj_of(v, in);
        return r;
}

/* The names an object answers to in a program's map: "ABI:name". */
static void name_key(char *buf, size_t size, const struct pn_abi *a, const char *name) {
        snprintf(buf, size, "%d:%u:%d:%d:%s", a->elf_class, a->machine, a->big_endian, a->float_abi, name);
}

/* Program PI and every object its loader maps (breadth first, as glibc
 * maps them): a DT_NEEDED answered by an object already mapped (its
 * DT_SONAME or a name it was found under), else searched with the
 * DT_RPATH chain of its loaders.  Each object found is marked reached. */
static int check_program(pkgnote_verify *v, size_t pi) {
        size_t *q = NULL, *from = NULL, nq = 0, cap = 0, cap_from = 0;
        struct pn_smap names = {0}, in_map = {0};
        char key[PATH_MAX + 64];
        int r = 0;
        if (PN_GROW(q, cap, 1) < 0 || PN_GROW(from, cap_from, 1) < 0)
                r = pn_oom();
        else
                q[nq] = pi, from[nq++] = SIZE_MAX;
        snprintf(key, sizeof key, "%zx", pi);
        if (r == 0 && pn_smap_put(&in_map, key, 0) < 0)
                r = pn_oom();
        /* The interpreter is mapped first, and answers to its DT_SONAME
         * (libc.so.6's DT_NEEDED ld-linux-x86-64.so.2). */
        size_t in, ii;
        struct vobj *p = &v->objs[pi];
        if (r == 0 && accepts(v, p->interp, &p->abi, &in) > 0) {
                char k2[32];
                snprintf(k2, sizeof k2, "%zx", in);
                if (pn_smap_get(&v->obj_of_inode, k2, &ii) && v->objs[ii].dyn.soname) {
                        name_key(key, sizeof key, &v->objs[ii].abi, v->objs[ii].dyn.soname);
                        if (pn_smap_put(&names, key, ii) < 0)
                                r = pn_oom();
                }
        }
        for (size_t h = 0; r == 0 && h < nq; h++) {
                struct vobj *o = &v->objs[q[h]];
                o->reached = true;
                name_key(key, sizeof key, &o->abi, o->dyn.soname ? o->dyn.soname : "");
                size_t old;
                if (o->dyn.soname && !pn_smap_get(&names, key, &old) && pn_smap_put(&names, key, q[h]) < 0) {
                        r = pn_oom();
                        break;
                }
                /* The loader chain: this object, its loader, up to the program. */
                size_t chain[64], nc = 0;
                for (size_t k = h; k != SIZE_MAX && nc < 64; k = from[k])
                        chain[nc++] = q[k];
                for (size_t i = 0; r == 0 && i < o->dyn.n_needed; i++) {
                        const char *nm = o->dyn.needed[i];
                        name_key(key, sizeof key, &o->abi, nm);
                        if (pn_smap_get(&names, key, &old)) {
                                r = pn_edges_add(&v->edges, q[h], old, PKGNOTE_DEP_NEEDED, nm, NULL, PKGNOTE_DLOPEN_REQUIRED);
                                continue;
                        }
                        size_t got, to;
                        r = lookup(v, q[h], chain, nc, nm, &got, &to);
                        if (r >= 0 && (to != SIZE_MAX || r == 0))
                                r = pn_edges_add(&v->edges, q[h], r > 0 ? to : PN_EDGE_NONE, PKGNOTE_DEP_NEEDED, nm, NULL,
                                                 PKGNOTE_DLOPEN_REQUIRED) < 0 ? -ENOMEM : r;
                        if (r == 0) {
                                const char *n1[1] = {nm};
                                r = finding_once(v, o->path, "needed", n1, 1, NULL, PKGNOTE_DLOPEN_REQUIRED);
                                continue;
                        }
                        if (r < 0)
                                break;
                        r = 0;
                        if (got == SIZE_MAX)
                                continue;
                        if (pn_smap_put(&names, key, got) < 0) {
                                r = pn_oom();
                                break;
                        }
                        char k2[32];
                        snprintf(k2, sizeof k2, "%zx", got);
                        if (pn_smap_get(&in_map, k2, &old))
                                continue;
                        if (pn_smap_put(&in_map, k2, 0) < 0 || PN_GROW(q, cap, nq + 1) < 0 || PN_GROW(from, cap_from, nq + 1) < 0) {
                                r = pn_oom();
                                break;
                        }
                        q[nq] = got, from[nq++] = h;
                        o = &v->objs[q[h]];
                }
        }
        free(q);
        free(from);
        pn_smap_done(&names);
        pn_smap_done(&in_map);
        return r;
}

/* An object no program maps (a library dlopen()ed, a module of a
 * program not in the artefact): its DT_NEEDED by its own search paths. */
static int check_alone(pkgnote_verify *v, size_t oi) {
        int r = 0;
        for (size_t i = 0; r == 0 && i < v->objs[oi].dyn.n_needed; i++) {
                const char *nm[1] = {v->objs[oi].dyn.needed[i]};
                size_t got, to;
                r = lookup(v, oi, &oi, 1, nm[0], &got, &to);
                if (r >= 0 && (to != SIZE_MAX || r == 0))
                        r = pn_edges_add(&v->edges, oi, r > 0 ? to : PN_EDGE_NONE, PKGNOTE_DEP_NEEDED, nm[0], NULL,
                                         PKGNOTE_DLOPEN_REQUIRED) < 0 ? -ENOMEM : r;
                if (r == 0)
                        r = finding_once(v, v->objs[oi].path, "needed", nm, 1, NULL, PKGNOTE_DLOPEN_REQUIRED);
                else if (r > 0)
                        r = 0;
        }
        return r;
}

/* The interpreter and the dlopen entries selected of object OI. */
static int check_rest(pkgnote_verify *v, size_t oi) {
        struct vobj *o = &v->objs[oi];
        int r = 0;
        if (o->interp) {
                size_t in;
                const char *nm[1] = {o->interp};
                r = accepts(v, o->interp, &o->abi, &in);
                size_t to = r > 0 ? obj_of(v, in) : PN_EDGE_NONE;
                if (r >= 0 && (r == 0 || to != SIZE_MAX))
                        r = pn_edges_add(&v->edges, oi, to, PKGNOTE_DEP_INTERP, o->interp, NULL, PKGNOTE_DLOPEN_REQUIRED) < 0
                                    ? -ENOMEM
                                    : r;
                if (r == 0)
                        r = finding_once(v, o->path, "interpreter", nm, 1, NULL, PKGNOTE_DLOPEN_REQUIRED);
                if (r < 0)
                        return r;
                r = 0;
        }
        pkgnote_info *info = o->info;
        for (size_t k = 0; r == 0 && info && k < pkgnote_info_dlopen_count(info); k++) {
                const pkgnote_dlopen *dn = pkgnote_info_dlopen(info, k);
                for (size_t i = 0; r == 0 && i < pkgnote_dlopen_count(dn); i++) {
                        if (!pn_dlopen_selected(&v->sel, dn, i))
                                continue;
                        size_t ns = pkgnote_dlopen_soname_count(dn, i), got, to = SIZE_MAX, found = SIZE_MAX;
                        const char **names = calloc(ns ? ns : 1, sizeof *names);
                        if (!names)
                                return pn_oom();
                        int e = 0;
                        for (size_t j = 0; j < ns; j++) {
                                names[j] = pkgnote_dlopen_soname(dn, i, j);
                                /* Only a file name: a path in a note is not the artefact's. */
                                if (e == 0 && pn_soname_shaped(names[j]) && !strchr(names[j], '/') &&
                                    (e = lookup(v, oi, &oi, 1, names[j], &got, &to)) > 0)
                                        found = j;
                        }
                        int p = pkgnote_dlopen_priority(dn, i);
                        const char *feature = pkgnote_dlopen_get(dn, i, "feature");
                        p = p > 0 ? p : PKGNOTE_DLOPEN_RECOMMENDED;
                        if (e > 0 && to != SIZE_MAX && pn_edges_add(&v->edges, oi, to, PKGNOTE_DEP_DLOPEN, names[found], feature, p) < 0)
                                e = -ENOMEM;
                        if (e == 0 && ns && (e = finding_once(v, o->path, "dlopen", names, ns, feature, p)) == 0) {
                                /* The missing edge names every alternative, as the finding. */
                                struct pn_text t = {0};
                                char *all = NULL;
                                for (size_t j = 0; j < ns; j++)
                                        pn_text_add(&t, "%s%s", j ? " or " : "", names[j]);
                                if (pn_text_finish(&t, &all) < 0 ||
                                    pn_edges_add(&v->edges, oi, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, all, feature, p) < 0)
                                        e = pn_oom();
                                free(all);
                        }
                        free(names);
                        if (e < 0)
                                r = e;
                }
        }
        return r;
}

/* A UKI's kernel against its initrd: modprobe and udev load modules from
 * /lib/modules/$(uname -r) (kmod's libkmod.c; /usr/lib/modules through
 * the /lib link of merged-/usr systems).  When the initrd holds modules
 * (a directory under either) but none for the release of the kernel the
 * UKI boots, none of them can be loaded: a finding of the kernel
 * (".linux"), kind "modules", its one name the release. */
static int check_modules(pkgnote_verify *v) {
        static const char *const dirs[] = {"/usr/lib/modules", "/lib/modules"};
        const char *release = pn_artefact_release(v->a, NULL);
        if (!release)
                return 0;
        size_t held = 0;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char path[PATH_MAX];
                size_t n;
                if (pn_artefact_resolve(v->a, dirs[i], true, &n) < 0 || pn_artefact_type(v->a, n) != PN_NODE_DIR)
                        continue;
                held += pn_artefact_subdirs(v->a, n);
                snprintf(path, sizeof path, "%s/%s", dirs[i], release);
                if (pn_artefact_resolve(v->a, path, true, &n) == 0 && pn_artefact_type(v->a, n) == PN_NODE_DIR)
                        return 0;
        }
        const char *nm[1] = {release};
        return held ? finding_once(v, ".linux", "modules", nm, 1, NULL, PKGNOTE_DLOPEN_REQUIRED) : 0;
}

struct pathnode {
        char *path;
        size_t node;
};

static int cmp_path(const void *x, const void *y) {
        return strcmp(((const struct pathnode *)x)->path, ((const struct pathnode *)y)->path);
}

static int cmp_finding(const void *x, const void *y) {
        const struct finding *a = x, *b = y;
        int c = strcmp(a->object, b->object);
        return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

PKGNOTE_PUBLIC int pkgnote_verify_run(pkgnote_verify *v) {
        if (v->ran)
                return v->run_error < 0 ? v->run_error : (int)(v->required > INT_MAX ? INT_MAX : v->required);
        v->ran = true;
        struct pathnode *p = NULL;
        size_t n = 0, cap = 0;
        int r = 0;
        for (size_t i = 0; r == 0 && i < pn_artefact_count(v->a); i++) {
                char path[PATH_MAX];
                if (pn_artefact_type(v->a, i) != PN_NODE_FILE || !pn_artefact_is_elf(v->a, i))
                        continue;
                if (!pn_artefact_path(v->a, i, path, sizeof path))
                        continue;
                if (PN_GROW(p, cap, n + 1) < 0 || !(p[n].path = strdup(path)))
                        r = pn_oom();
                else
                        p[n++].node = i;
        }
        if (n > 1)
                qsort(p, n, sizeof *p, cmp_path);
        if (r == 0 && !(v->objs = calloc(n ? n : 1, sizeof *v->objs)))
                r = pn_oom();
        for (size_t i = 0; r == 0 && i < n; i++)
                r = read_object(v, p[i].node, p[i].path);
        for (size_t i = 0; i < n; i++)
                free(p[i].path);
        free(p);
        v->objects = v->n_objs;
        for (size_t i = 0; r == 0 && i < v->n_objs; i++)
                if (v->objs[i].interp)
                        r = check_program(v, i);
        for (size_t i = 0; r == 0 && i < v->n_objs; i++)
                if (!v->objs[i].reached)
                        r = check_alone(v, i);
        for (size_t i = 0; r == 0 && i < v->n_objs; i++)
                r = check_rest(v, i);
        if (r == 0)
                r = check_modules(v);
        if (r == 0 && pn_edges_sort_by_from(&v->edges) < 0)
                r = -ENOMEM;
        if (r < 0) /* what was found is incomplete: a later call says so again */
                return v->run_error = r;
        for (size_t i = 0; i < v->n_f; i++)
                v->f[i].order = i;
        if (v->n_f > 1)
                qsort(v->f, v->n_f, sizeof *v->f, cmp_finding);
        return (int)(v->required > INT_MAX ? INT_MAX : v->required);
}

PKGNOTE_PUBLIC int pkgnote_verify_kind(const pkgnote_verify *v) {
        if (pn_artefact_kind(v->a) >= PN_ARTEFACT_TAR) /* built from an archive or image: the same numbers */
                return pn_artefact_kind(v->a);
        switch (pn_artefact_kind(v->a)) {
        case PN_ARTEFACT_DIRECTORY: return PKGNOTE_VERIFY_DIRECTORY;
        case PN_ARTEFACT_UKI: return PKGNOTE_VERIFY_UKI;
        default: return PKGNOTE_VERIFY_INITRAMFS;
        }
}
PKGNOTE_PUBLIC const char *pkgnote_verify_release(const pkgnote_verify *v) {
        return pn_artefact_release(v->a, NULL);
}
PKGNOTE_PUBLIC size_t pkgnote_verify_object_count(const pkgnote_verify *v) {
        return v->objects;
}
PKGNOTE_PUBLIC size_t pkgnote_verify_count(const pkgnote_verify *v) {
        return v->n_f;
}

PKGNOTE_PUBLIC int pkgnote_verify_get(const pkgnote_verify *v, size_t i, pkgnote_verify_finding *f) {
        if (!f || f->size < offsetof(pkgnote_verify_finding, kind))
                return pn_error(-EINVAL, "pkgnote_verify_finding without its size");
        if (i >= v->n_f)
                return pn_error(-ENOENT, "no finding %zu (there are %zu)", i, v->n_f);
        const struct finding *x = &v->f[i];
        pkgnote_verify_finding t = {.size = f->size, .object = x->object, .kind = x->kind,
                                    .names = (const char *const *)x->names, .n_names = x->n_names, .sonames = x->sonames,
                                    .feature = x->feature, .priority = x->priority};
        memcpy(f, &t, f->size < sizeof t ? f->size : sizeof t);
        return 1;
}

PKGNOTE_PUBLIC const char *pkgnote_verify_object(const pkgnote_verify *v, size_t i) {
        return i < v->n_objs ? v->objs[i].path : NULL;
}

static const char *obj_path(const void *u, size_t i) {
        const pkgnote_verify *v = u;
        return i < v->n_objs ? v->objs[i].path : "";
}

PKGNOTE_PUBLIC size_t pkgnote_verify_edge_count(const pkgnote_verify *v) {
        return v->edges.n;
}
PKGNOTE_PUBLIC int pkgnote_verify_edge(const pkgnote_verify *v, size_t i, pkgnote_dep_edge *e) {
        return pn_edges_get(&v->edges, i, obj_path, v, e);
}

PKGNOTE_PUBLIC size_t pkgnote_verify_problem_count(const pkgnote_verify *v) {
        return v->problems.n;
}
PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_verify_problem(const pkgnote_verify *v, size_t i) {
        return pn_problems_get(&v->problems, i);
}

const char *pn_verify_kind_name(int kind) {
        switch (kind) {
        case PKGNOTE_VERIFY_UKI: return "uki";
        case PKGNOTE_VERIFY_TAR: return "tar";
        case PKGNOTE_VERIFY_IMAGE: return "image";
        case PKGNOTE_VERIFY_SQUASHFS: return "squashfs";
        }
        return kind == PKGNOTE_VERIFY_DIRECTORY ? "directory" : "initramfs";
}

PKGNOTE_PUBLIC int pkgnote_verify_to_json(const pkgnote_verify *v, char **ret) {
        json_t *fs = json_array(), *ps = json_array();
        int r = fs && ps ? 0 : -ENOMEM;
        for (size_t i = 0; r == 0 && i < v->n_f; i++) {
                const struct finding *x = &v->f[i];
                json_t *names = json_array();
                for (size_t j = 0; names && j < x->n_names; j++)
                        if (json_array_append_new(names, pn_json_bytes(x->names[j])) < 0)
                                json_decref(names), names = NULL;
                json_t *o = names ? json_pack("{s:o,s:s,s:o}", "object", pn_json_bytes(x->object), "kind", x->kind, "names", names) : NULL;
                if (o && x->feature && json_object_set_new(o, "feature", pn_json_bytes(x->feature)) < 0)
                        json_decref(o), o = NULL;
                if (o && json_object_set_new(o, "priority", json_string(pkgnote_dlopen_priority_name(x->priority))) < 0)
                        json_decref(o), o = NULL;
                if (!o || json_array_append_new(fs, o) < 0)
                        r = -ENOMEM;
        }
        for (size_t i = 0; r == 0 && i < v->problems.n; i++) {
                const pkgnote_problem *p = pn_problems_get(&v->problems, i);
                json_t *o = json_pack("{s:o,s:o}", "path", pn_json_bytes(p->path ? p->path : ""), "message", pn_json_bytes(p->message));
                if (!o || json_array_append_new(ps, o) < 0)
                        r = -ENOMEM;
        }
        json_t *top = r == 0 ? json_pack("{s:o,s:s,s:I,s:O,s:I,s:O}", "artefact", pn_json_bytes(v->path), "kind",
                                         pn_verify_kind_name(pkgnote_verify_kind(v)),
                                         "objects", (json_int_t)v->objects, "findings", fs, "required",
                                         (json_int_t)v->required, "problems", ps)
                             : NULL;
        /* The graph: the objects, and the edges between them. */
        json_t *nodes = top ? json_array() : NULL;
        for (size_t i = 0; nodes && i < v->n_objs; i++)
                if (json_array_append_new(nodes, pn_json_bytes(v->objs[i].path)) < 0) {
                        json_decref(nodes);
                        nodes = NULL;
                }
        if (top && (json_object_set_new(top, "nodes", nodes) < 0 ||
                    json_object_set_new(top, "edges", pn_edges_json(&v->edges, obj_path, v)) < 0)) {
                json_decref(top);
                top = NULL;
        }
        const char *release = pkgnote_verify_release(v);
        if (top && release && json_object_set_new(top, "release", pn_json_bytes(release)) < 0)
                json_decref(top), top = NULL;
        json_decref(fs);
        json_decref(ps);
        char *s = top ? pn_json_dumps(top, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(top);
        if (!s)
                return pn_oom();
        *ret = s;
        return 0;
}

const struct pn_resolve_stats *pn_verify_stats(const pkgnote_verify *v) {
        return pn_resolver_stats(v->resolver);
}
