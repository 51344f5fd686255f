/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SBOMs of a scan: SPDX 2.3 (and from it 3.0.1) and CycloneDX 1.6 (or 1.5, 1.7) JSON, written with jansson,
 * and the package URL (purl-spec) of a note.
 *
 * One package (component) per distinct package note; the objects that
 * carry it are the evidence.  Everything is in scan order (sorted), so a
 * document depends only on what was scanned, the creation time and the
 * namespace or serial number.
 */
#include "config.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "03-model-json.h"
#include "10-write-sbom.h"
#include "03-model-purl.h"
#include "09-scan-private.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

/* The packages of the SBOM: those of the notes, then those of the
 * package databases that own objects without a note. */
static size_t pkg_count(const pkgnote_scan *s) {
        return pn_scan_all_package_count(s);
}
static const pkgnote_metadata *pkg_meta(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return p ? p->meta : NULL;
}
static const char *pkg_json(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return p ? p->json : NULL;
}
static size_t pkg_nobj(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return p ? p->n_objects : 0;
}
static const pkgnote_scan_object *pkg_obj(const pkgnote_scan *s, size_t i, size_t j) {
        const struct package *p = pn_scan_all_package(s, i);
        return p && j < p->n_objects ? p->objects[j] : NULL;
}
/* Whether package I is a package database's, not a note's. */
static bool pkg_db(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return p && p->db;
}
/* Whether package I is a note's package that the documents list as
 * evidence of the database packages owning its objects. */
static bool pkg_folded(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return p && p->folded;
}

/* For a note's package in a root with a package database, why it is a
 * component of its own: "mismatch" (an object carrying it is owned by a
 * package the note does not name), "absent" (one is owned by none);
 * else NULL. */
static const char *pkg_db_status(const pkgnote_scan *s, size_t i) {
        const struct package *p = pn_scan_all_package(s, i);
        return !p || p->db ? NULL : p->mismatch ? "mismatch" : p->absent ? "absent" : NULL;
}

/* What part of the scan a list of elements describes: everything, or
 * the objects of one image (IMAGE NULL: those of no image). */
struct scope {
        bool all;
        const pkgnote_scan_image *image;
};

static const struct scope everything = {.all = true};

static bool in_scope(const struct scope *sc, const pkgnote_scan_object *ob) {
        return sc->all || pkgnote_scan_object_image(ob) == sc->image;
}

/* Whether package I is an element of SC: a database's package when its
 * root is (with or without objects), a note's when an object carrying it
 * is and it is not folded into a database's. */
static bool package_in_scope(const pkgnote_scan *s, size_t i, const struct scope *sc) {
        const struct package *p = pn_scan_all_package(s, i);
        if (!p || p->folded)
                return false;
        if (p->db)
                return sc->all || p->dbroot->image == sc->image;
        for (size_t j = 0; j < pkg_nobj(s, i); j++)
                if (in_scope(sc, pkg_obj(s, i, j)))
                        return true;
        return false;
}

/* The SBOM element of package I, named ID (lib/10-write-sbom.h): its
 * metadata; a note's whose OS is that of the root (with a package
 * database) of an object carrying it, and which names no version of it,
 * gets the root's version in its purl, as the root's database packages
 * have it; the objects of SC carrying it are its locations.  0, or
 * -ENOMEM (E to be freed all the same). */
static int package_element(const pkgnote_scan *s, size_t i, const char *id, const struct scope *sc,
                           struct pn_sbom_package *e) {
        const struct package *p = pn_scan_all_package(s, i);
        const char *os = NULL, *version = NULL;
        for (size_t j = 0; !p->db && j < p->n_objects && !version; j++) {
                const struct pn_dbroot *r = p->objects[j]->dbroot;
                if (r && r->os_version_id)
                        os = r->os_id, version = r->os_version_id;
        }
        int err = pn_sbom_package_from_metadata(e, p->meta, p->db, p->json, os, version);
        e->unnamed = "unknown";
        snprintf(e->id, sizeof e->id, "%s", id);
        for (size_t j = 0; j < p->n_objects && !err; j++)
                if (in_scope(sc, p->objects[j]))
                        pn_sbom_package_location(e, pkgnote_scan_object_path(p->objects[j]), &err);
        return err;
}

/* How a document names its elements: a prefix, then the element's number
 * from 1 (a package's in scan order, a soname's in order of mention),
 * and the part of the scan they describe. */
struct sbom_ids {
        char package[48], soname[48];
        struct scope scope;
};

static const struct sbom_ids spdx_ids = {"SPDXRef-Package-", "SPDXRef-Soname-", {.all = true}};
static const struct sbom_ids cdx_ids = {"pkgnote-package-", "pkgnote-soname-", {.all = true}};

/* The name PREFIX gives the element of index I (from 0). */
static void element_id(char id[80], const char *prefix, size_t i) {
        snprintf(id, 80, "%s%zu", prefix, i + 1);
}

/* The element of package I, named ID; NULL when out of memory. */
typedef json_t *(*package_element_fn)(const pkgnote_scan *s, size_t i, const char *id, void *userdata, int *err);

/* Walks the packages of the scope of IDS in scan order: appends to ARRAY the element MAKE
 * returns for each, named by IDS. */
static void add_packages(const pkgnote_scan *s, const struct sbom_ids *ids, json_t *array, package_element_fn make,
                         void *userdata, int *err) {
        for (size_t i = 0; i < pkg_count(s) && !*err; i++) {
                if (!package_in_scope(s, i, &ids->scope))
                        continue;
                char id[80];
                element_id(id, ids->package, i);
                pn_sbom_push(array, make(s, i, id, userdata, err), err);
        }
}

/* ------------------------------------------------------------------ */
/* dlopen dependencies                                                 */

/* What the dlopen notes of each package's objects ask for: per package,
 * its merged dependencies; every soname named, in order of first
 * mention, with the strongest priority anything gives it and whether
 * some object asking for it finds no scanned package shipping it; and
 * per object asking for a soname, the package that ships it in that
 * object's own root (input, image, archive), never another's, so that a
 * package found in two images or inputs points at each one's provider.
 * A malformed dlopen note adds nothing. */
struct sbom_dl {
        struct scope scope;  /* the objects looked at */
        pkgnote_deps **deps; /* per package */
        size_t np;
        struct dl_soname {
                char *name;
                bool unshipped; /* an object asking for it finds no package shipping it */
                int priority;
        } *v;
        size_t n, cap;
        /* In package order, each pair once: an object of package PKG
         * asks for soname SONAME (index into v), which package PROVIDER
         * ships in the object's root (SIZE_MAX: none). */
        struct dl_request {
                size_t pkg, soname, provider;
        } *req;
        size_t n_req, cap_req;
        size_t *req_first; /* per package, and one past: its first request */
        /* The providers found so far, per soname and root (that of the
         * object OB): the many objects of one root asking for the same
         * soname look it up once. */
        struct dl_found {
                const pkgnote_scan_object *ob;
                size_t soname, provider;
        } *found;
        size_t n_found, cap_found;
};

static void dl_free(struct sbom_dl *dl) {
        for (size_t i = 0; i < dl->np; i++)
                pkgnote_deps_free(dl->deps ? dl->deps[i] : NULL);
        for (size_t i = 0; i < dl->n; i++)
                free(dl->v[i].name);
        free(dl->deps), free(dl->v), free(dl->req), free(dl->req_first), free(dl->found);
}

/* The index of the package of note K of OB, or SIZE_MAX. */
static size_t note_package(const pkgnote_scan *s, const pkgnote_scan_object *ob, size_t k) {
        const char *json = pkgnote_scan_object_package_json(ob, k);
        for (size_t p = 0; json && p < pkgnote_scan_package_count(s); p++)
                if (!strcmp(pkg_json(s, p), json))
                        return p;
        return SIZE_MAX;
}

/* The package of OB: its database package, which a note agreeing with
 * it is folded into; else its first note's; SIZE_MAX when none. */
static size_t object_package(const pkgnote_scan *s, const pkgnote_scan_object *ob) {
        if (ob->db_package != SIZE_MAX)
                return ob->db_package;
        return pkgnote_scan_object_package_count(ob) ? note_package(s, ob, 0) : SIZE_MAX;
}

static bool same_root(const pkgnote_scan_object *x, const pkgnote_scan_object *y);
static const char *base_name(const char *path);

/* The package of the scan that ships SONAME for FROM, which asks for it:
 * the file the loader finds for the name in FROM's root (09-scan-libpath.c,
 * the rules of deps --closure), else one whose object in that root (the
 * same input, image, archive and ABI) has that file name; SIZE_MAX when
 * none.  Never an object of another root: each image or input loads its
 * own. */
static size_t dl_provider(const pkgnote_scan *s, const pkgnote_scan_object *from, const char *soname) {
        const pkgnote_scan_object *lib = pn_scan_lib_object(s, from, NULL, false, soname);
        if (lib)
                return object_package(s, lib);
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                if (ob->libroot != from->libroot || !same_root(from, ob) || !pn_scan_object_loads(from, ob) ||
                    strcmp(base_name(pkgnote_scan_object_path(ob)), soname))
                        continue;
                size_t p = object_package(s, ob);
                if (p != SIZE_MAX)
                        return p;
        }
        return SIZE_MAX;
}

/* Index of SONAME in DL, added when new; SIZE_MAX when out of memory. */
static size_t dl_soname(struct sbom_dl *dl, const char *soname) {
        for (size_t k = 0; k < dl->n; k++)
                if (!strcmp(dl->v[k].name, soname))
                        return k;
        char *name = strdup(soname);
        if (!name || PN_GROW(dl->v, dl->cap, dl->n + 1) < 0) {
                free(name);
                return SIZE_MAX;
        }
        dl->v[dl->n] = (struct dl_soname){name, false, 0};
        return dl->n++;
}

/* The provider of soname X (named SO) for OB: dl_provider()'s answer,
 * looked up once per root and search (an object with a DT_RPATH or
 * DT_RUNPATH of its own searches alone); SIZE_MAX when none, or out of memory (*R). */
static size_t dl_root_provider(struct sbom_dl *dl, const pkgnote_scan *s, const pkgnote_scan_object *ob, size_t x,
                               const char *so, int *r) {
        for (size_t f = 0; f < dl->n_found; f++) {
                const struct dl_found *fd = &dl->found[f];
                if (fd->soname == x && fd->ob->libroot == ob->libroot && same_root(fd->ob, ob) &&
                    pn_scan_same_search(fd->ob, ob))
                        return fd->provider;
        }
        size_t p = dl_provider(s, ob, so);
        if (PN_GROW(dl->found, dl->cap_found, dl->n_found + 1) < 0)
                *r = -ENOMEM;
        else
                dl->found[dl->n_found++] = (struct dl_found){ob, x, p};
        return p;
}

/* Records that object OB of package I asks for the sonames of D, each
 * with its provider in OB's root. */
static int dl_requests(struct sbom_dl *dl, const pkgnote_scan *s, size_t i, const pkgnote_scan_object *ob,
                       const pkgnote_dlopen *d) {
        int r = 0;
        for (size_t e = 0; e < pkgnote_dlopen_count(d); e++)
                for (size_t a = 0; a < pkgnote_dlopen_soname_count(d, e); a++) {
                        const char *so = pkgnote_dlopen_soname(d, e, a);
                        size_t x = so ? dl_soname(dl, so) : SIZE_MAX;
                        if (!so)
                                continue;
                        if (x == SIZE_MAX || PN_GROW(dl->req, dl->cap_req, dl->n_req + 1) < 0)
                                return -ENOMEM;
                        size_t p = dl_root_provider(dl, s, ob, x, so, &r);
                        if (r < 0)
                                return r;
                        dl->req[dl->n_req++] = (struct dl_request){i, x, p};
                        if (p == SIZE_MAX)
                                dl->v[x].unshipped = true;
                }
        return 0;
}

static int cmp_request(const void *a, const void *b) {
        const struct dl_request *x = a, *y = b;
        if (x->soname != y->soname)
                return x->soname < y->soname ? -1 : 1;
        return x->provider < y->provider ? -1 : x->provider > y->provider;
}

/* Sorts the requests of the last package (from FIRST) by soname and
 * provider and keeps each pair once: a package of many objects asking
 * for the same sonames has few edges to make. */
static void dl_requests_finish(struct sbom_dl *dl, size_t first) {
        if (dl->n_req - first < 2)
                return;
        qsort(dl->req + first, dl->n_req - first, sizeof *dl->req, cmp_request);
        size_t w = first + 1;
        for (size_t q = first + 1; q < dl->n_req; q++)
                if (cmp_request(&dl->req[w - 1], &dl->req[q]))
                        dl->req[w++] = dl->req[q];
        dl->n_req = w;
}

static int dl_collect(const pkgnote_scan *s, const struct scope *sc, struct sbom_dl *dl) {
        *dl = (struct sbom_dl){.scope = *sc, .np = pkg_count(s)};
        dl->deps = calloc(dl->np ? dl->np : 1, sizeof *dl->deps);
        dl->req_first = calloc(dl->np + 1, sizeof *dl->req_first);
        if (!dl->deps || !dl->req_first)
                return -ENOMEM;
        for (size_t i = 0; i < dl->np; i++) {
                dl->req_first[i] = dl->n_req;
                if (pkgnote_deps_new(&dl->deps[i]) < 0)
                        return -ENOMEM;
                for (size_t j = 0; !pkg_folded(s, i) && j < pkg_nobj(s, i); j++) {
                        const pkgnote_scan_object *ob = pkg_obj(s, i, j);
                        for (size_t k = 0; in_scope(sc, ob) && k < pkgnote_scan_object_dlopen_count(ob); k++) {
                                const char *json = pkgnote_scan_object_dlopen_json(ob, k);
                                pkgnote_dlopen *d;
                                if (!json || pkgnote_dlopen_parse(json, strlen(json), &d) < 0)
                                        continue;
                                int r = pkgnote_deps_add(dl->deps[i], pkgnote_scan_object_path(ob),
                                                         pkgnote_scan_object_class(ob), pkgnote_scan_object_machine(ob),
                                                         pkgnote_scan_object_big_endian(ob), d);
                                if (r >= 0)
                                        r = dl_requests(dl, s, i, ob, d);
                                pkgnote_dlopen_free(d);
                                if (r == -ENOMEM)
                                        return r;
                        }
                }
                dl_requests_finish(dl, dl->req_first[i]);
                for (size_t k = 0; k < pkgnote_deps_count(dl->deps[i]); k++)
                        for (size_t a = 0; a < pkgnote_deps_soname_count(dl->deps[i], k); a++) {
                                size_t x = dl_soname(dl, pkgnote_deps_soname(dl->deps[i], k, a));
                                if (x == SIZE_MAX)
                                        return -ENOMEM;
                                if (pkgnote_deps_priority(dl->deps[i], k) > dl->v[x].priority)
                                        dl->v[x].priority = pkgnote_deps_priority(dl->deps[i], k);
                        }
        }
        dl->req_first[dl->np] = dl->n_req;
        pn_error_clear();
        return 0;
}

/* "dlopen(), priority P, feature F, G; alternatives: a or b" for
 * dependency K of package I. */
static char *dl_comment(const pkgnote_deps *d, size_t k) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        fprintf(f, "dlopen(), priority %s", pkgnote_dlopen_priority_name(pkgnote_deps_priority(d, k)));
        for (size_t j = 0; j < pkgnote_deps_feature_count(d, k); j++)
                fprintf(f, "%s%s", j ? ", " : ", feature ", pkgnote_deps_feature(d, k, j));
        if (pkgnote_deps_soname_count(d, k) > 1)
                fprintf(f, "; alternatives: %s", pkgnote_deps_sonames(d, k));
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* The element of soname K, named ID, which no scanned package ships. */
typedef json_t *(*soname_element_fn)(const struct sbom_dl *dl, size_t k, const char *id, int *err);

/* Appends to ARRAY the element MAKE returns for each soname that no
 * scanned package ships, named by IDS. */
static void add_sonames(const struct sbom_dl *dl, const struct sbom_ids *ids, json_t *array, soname_element_fn make,
                        int *err) {
        for (size_t k = 0; !*err && k < dl->n; k++) {
                if (!dl->v[k].unshipped)
                        continue;
                char id[80];
                element_id(id, ids->soname, k);
                pn_sbom_push(array, make(dl, k, id, err), err);
        }
}

/* Calls EDGE with the element each soname of dependency K of package I
 * points at, named by IDS, once per element: for each object of package I
 * asking for it, the scanned package that ships it in that object's root,
 * else the soname's own element; none for a soname package I ships
 * itself. */
static void dl_targets(struct sbom_dl *dl, const struct sbom_ids *ids, size_t i, size_t k,
                       void (*edge)(const char *id, void *userdata), void *userdata) {
        size_t first = dl->req_first[i], end = dl->req_first[i + 1];
        for (size_t a = 0; a < pkgnote_deps_soname_count(dl->deps[i], k); a++) {
                size_t x = dl_soname(dl, pkgnote_deps_soname(dl->deps[i], k, a));
                for (size_t q = first; x != SIZE_MAX && q < end; q++) {
                        const struct dl_request *rq = &dl->req[q];
                        if (rq->soname != x || rq->provider == i)
                                continue;
                        char id[80];
                        if (rq->provider != SIZE_MAX)
                                element_id(id, ids->package, rq->provider);
                        else
                                element_id(id, ids->soname, x);
                        edge(id, userdata);
                }
        }
}

/* ------------------------------------------------------------------ */
/* DT_NEEDED dependencies                                              */

/* Package FROM needs a library package TO ships: an object of FROM names
 * SONAME in DT_NEEDED, and an object of TO in the same root (input,
 * image and archive) and of the same class and machine answers to it
 * (its DT_SONAME, else its file name). */
struct needed_edge {
        size_t from, to;
        const char *soname;
};

struct provider {
        const char *key;
        const pkgnote_scan_object *o;
        size_t pkg;
};

static const char *base_name(const char *path) {
        const char *b = strrchr(path, '/');
        return b ? b + 1 : path;
}

static int cmp_provider(const void *a, const void *b) {
        return strcmp(((const struct provider *)a)->key, ((const struct provider *)b)->key);
}

static bool same_root(const pkgnote_scan_object *x, const pkgnote_scan_object *y) {
        if (pkgnote_scan_object_input(x) != pkgnote_scan_object_input(y) ||
            pkgnote_scan_object_image(x) != pkgnote_scan_object_image(y) ||
            pkgnote_scan_object_container_count(x) != pkgnote_scan_object_container_count(y) ||
            pkgnote_scan_object_class(x) != pkgnote_scan_object_class(y) || x->be != y->be ||
            pkgnote_scan_object_machine(x) != pkgnote_scan_object_machine(y))
                return false;
        for (size_t k = 0; k < pkgnote_scan_object_container_count(x); k++)
                if (strcmp(pkgnote_scan_object_container(x, k), pkgnote_scan_object_container(y, k)))
                        return false;
        return true;
}

static int cmp_edge(const void *a, const void *b) {
        const struct needed_edge *x = a, *y = b;
        if (x->from != y->from)
                return x->from < y->from ? -1 : 1;
        if (x->to != y->to)
                return x->to < y->to ? -1 : 1;
        return strcmp(x->soname, y->soname);
}

/* Sorts the NE edges EV (taken) and keeps one per pair, the first by
 * name, into *RET and *RET_N. */
static void edges_finish(struct needed_edge *ev, size_t ne, struct needed_edge **ret, size_t *ret_n) {
        if (ne)
                qsort(ev, ne, sizeof *ev, cmp_edge);
        size_t w = 0;
        for (size_t i = 0; i < ne; i++)
                if (w == 0 || ev[w - 1].from != ev[i].from || ev[w - 1].to != ev[i].to)
                        ev[w++] = ev[i];
        *ret = ev;
        *ret_n = w;
}

/* The edges between the packages of SC, sorted, one per pair. */
static int needed_edges(const pkgnote_scan *s, const struct scope *sc, struct needed_edge **ret, size_t *ret_n) {
        struct provider *pv = NULL;
        struct needed_edge *ev = NULL;
        size_t np = 0, cap = 0, ne = 0, cap_e = 0;
        *ret = NULL;
        *ret_n = 0;
        for (size_t i = 0; i < pkg_count(s); i++)
                for (size_t j = 0; !pkg_folded(s, i) && j < pkg_nobj(s, i); j++) {
                        const pkgnote_scan_object *o = pkg_obj(s, i, j);
                        if (!in_scope(sc, o) || pkgnote_scan_object_elf_type(o) != 3 /* ET_DYN */)
                                continue;
                        if (PN_GROW(pv, cap, np + 1) < 0) {
                                free(pv);
                                return -ENOMEM;
                        }
                        const char *so = pkgnote_scan_object_soname(o);
                        pv[np++] = (struct provider){so ? so : base_name(pkgnote_scan_object_path(o)), o, i};
                }
        if (np == 0)
                return 0;
        qsort(pv, np, sizeof *pv, cmp_provider);
        for (size_t i = 0; i < pkg_count(s); i++)
                for (size_t j = 0; !pkg_folded(s, i) && j < pkg_nobj(s, i); j++) {
                        const pkgnote_scan_object *o = pkg_obj(s, i, j);
                        if (!in_scope(sc, o))
                                continue;
                        for (size_t k = 0; k < pkgnote_scan_object_needed_count(o); k++) {
                                struct provider key = {.key = pkgnote_scan_object_needed(o, k)};
                                /* The file the loader finds for the name in
                                 * the root (the rules of deps --closure), else
                                 * every object there that answers to it. */
                                const pkgnote_scan_object *lib = pn_scan_lib_object(s, o, NULL, false, key.key);
                                struct provider *hit = lib ? NULL : bsearch(&key, pv, np, sizeof *pv, cmp_provider);
                                if (!hit) {
                                        size_t to = lib ? object_package(s, lib) : SIZE_MAX;
                                        if (to == SIZE_MAX || to == i || pkg_folded(s, to))
                                                continue;
                                        if (PN_GROW(ev, cap_e, ne + 1) < 0) {
                                                free(pv);
                                                free(ev);
                                                return -ENOMEM;
                                        }
                                        ev[ne++] = (struct needed_edge){i, to, key.key};
                                        continue;
                                }
                                while (hit > pv && !strcmp(hit[-1].key, key.key))
                                        hit--;
                                for (; hit < pv + np && !strcmp(hit->key, key.key); hit++) {
                                        if (hit->pkg == i || !same_root(o, hit->o) || !pn_scan_object_loads(o, hit->o))
                                                continue;
                                        if (PN_GROW(ev, cap_e, ne + 1) < 0) {
                                                free(pv);
                                                free(ev);
                                                return -ENOMEM;
                                        }
                                        ev[ne++] = (struct needed_edge){i, hit->pkg, key.key};
                                }
                        }
                }
        free(pv);
        edges_finish(ev, ne, ret, ret_n);
        return 0;
}

/* ------------------------------------------------------------------ */
/* Package notes of parts of an object                                 */

/* A statically linked or vendoring object carries a package note per part
 * linked into it (the UAPI package-note guidance: an SBOM enumerates every
 * one).  The object's own component is its database package, else the
 * package of its first note (the linker writes the output's own note
 * first); every other note's package is a part it CONTAINS. */

/* The component OB's notes are parts of, or SIZE_MAX.  An object owned by
 * a database package that none of its notes agrees with has no parts:
 * its notes disagree with the database (dbMismatch). */
static size_t object_component(const pkgnote_scan *s, const pkgnote_scan_object *ob) {
        if (ob->db_package != SIZE_MAX)
                return pn_scan_object_db_mismatch(ob) ? SIZE_MAX : ob->db_package;
        return pkgnote_scan_object_package_count(ob) > 1 ? note_package(s, ob, 0) : SIZE_MAX;
}

/* The containment edges between the packages of SC, sorted, one per
 * pair, each named by the path of an object that shows it. */
static int contain_edges(const pkgnote_scan *s, const struct scope *sc, struct needed_edge **ret, size_t *ret_n) {
        struct needed_edge *ev = NULL;
        size_t ne = 0, cap = 0;
        *ret = NULL;
        *ret_n = 0;
        if (pkg_count(s) == 0) /* builds the index, and with it db_package */
                return 0;
        for (size_t i = 0; i < pkgnote_scan_object_count(s); i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                size_t owner = in_scope(sc, ob) ? object_component(s, ob) : SIZE_MAX;
                for (size_t k = 0; owner != SIZE_MAX && k < pkgnote_scan_object_package_count(ob); k++) {
                        size_t p = note_package(s, ob, k);
                        if (p == SIZE_MAX || p == owner || pkg_folded(s, p))
                                continue;
                        if (PN_GROW(ev, cap, ne + 1) < 0) {
                                free(ev);
                                return -ENOMEM;
                        }
                        ev[ne++] = (struct needed_edge){owner, p, pkgnote_scan_object_path(ob)};
                }
        }
        edges_finish(ev, ne, ret, ret_n);
        return 0;
}


/* ------------------------------------------------------------------ */
/* What binaries say is inside them (pkgnote_embedded)                 */

/* The list OB carries with at least one component, or NULL. */
static const pkgnote_embedded *object_embedded(const pkgnote_scan_object *ob) {
        const pkgnote_info *info = pkgnote_scan_object_info(ob);
        const pkgnote_embedded *m = info ? pkgnote_info_embedded(info) : NULL;
        return m && pkgnote_embedded_component_count(m) ? m : NULL;
}

/* One element made for a component, so that a component a package's
 * binaries share is one element: its owner's id, its purl (or name), its
 * own id, and (CycloneDX) the component made, which the document holds.
 * Found through a hash of owner and key (open addressing, at most half
 * full): a large image's programs list tens of thousands of modules. */
struct emb_seen {
        char owner[80], id[96];
        char *key;
        json_t *elem;
};

struct emb_set {
        struct emb_seen *v;
        size_t n, cap;
        size_t *slot; /* index + 1 into V, 0: empty */
        size_t n_slot;
};

static void emb_set_free(struct emb_set *set) {
        for (size_t i = 0; i < set->n; i++)
                free(set->v[i].key);
        free(set->v);
        free(set->slot);
        *set = (struct emb_set){0};
}

/* FNV-1a over OWNER, a NUL and KEY. */
static size_t emb_hash(const char *owner, const char *key) {
        uint64_t h = 1469598103934665603u;
        for (const unsigned char *p = (const unsigned char *)owner;; p++) {
                h = (h ^ *p) * 1099511628211u;
                if (!*p)
                        break;
        }
        for (const unsigned char *p = (const unsigned char *)key; *p; p++)
                h = (h ^ *p) * 1099511628211u;
        return (size_t)h;
}

static struct emb_seen *emb_find_key(const struct emb_set *set, const char *owner, const char *key) {
        if (!set->n_slot)
                return NULL;
        for (size_t i = emb_hash(owner, key) & (set->n_slot - 1);; i = (i + 1) & (set->n_slot - 1)) {
                if (!set->slot[i])
                        return NULL;
                struct emb_seen *x = &set->v[set->slot[i] - 1];
                if (!strcmp(x->owner, owner) && !strcmp(x->key, key))
                        return x;
        }
}

/* Component C under OWNER, if it was added (out of memory: not found). */
static struct emb_seen *emb_find(const struct emb_set *set, const char *owner, const pkgnote_component *c) {
        char *key = pn_sbom_component_key(c);
        struct emb_seen *x = key ? emb_find_key(set, owner, key) : NULL;
        free(key);
        return x;
}

static void emb_place(struct emb_set *set, size_t index) {
        const struct emb_seen *x = &set->v[index];
        size_t i = emb_hash(x->owner, x->key) & (set->n_slot - 1);
        while (set->slot[i])
                i = (i + 1) & (set->n_slot - 1);
        set->slot[i] = index + 1;
}

static int emb_add(struct emb_set *set, const char *owner, const pkgnote_component *c, const char *id, json_t *elem) {
        if (2 * (set->n + 1) > set->n_slot) {
                size_t n = set->n_slot ? 2 * set->n_slot : 64;
                size_t *slot = calloc(n, sizeof *slot);
                if (!slot)
                        return -ENOMEM;
                free(set->slot);
                set->slot = slot, set->n_slot = n;
                for (size_t i = 0; i < set->n; i++)
                        emb_place(set, i);
        }
        if (PN_GROW(set->v, set->cap, set->n + 1) < 0)
                return -ENOMEM;
        struct emb_seen *x = &set->v[set->n];
        snprintf(x->owner, sizeof x->owner, "%s", owner);
        snprintf(x->id, sizeof x->id, "%s", id);
        x->elem = elem;
        if (!(x->key = pn_sbom_component_key(c)))
                return -ENOMEM;
        emb_place(set, set->n++);
        return 0;
}

/* ------------------------------------------------------------------ */
/* SPDX 2.3                                                            */

/* The index of OB among the objects, in the order they are sorted in. */
static size_t object_index(const pkgnote_scan *s, const pkgnote_scan_object *ob) {
        size_t lo = 0, hi = pkgnote_scan_object_count(s);
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const pkgnote_scan_object *x = pkgnote_scan_object_get(s, mid);
                if (x == ob)
                        return mid;
                int c = pn_scan_object_cmp(x, ob);
                if (c < 0)
                        lo = mid + 1;
                else if (c > 0)
                        hi = mid;
                else
                        break; /* the order is total: another object equal to OB is none */
        }
        return SIZE_MAX;
}

/* Files: the objects with a package note, in object order; FILE_NO gets
 * each object's file number (from 1; 0 for an object without checksums,
 * which SPDX requires of files). */
static void spdx_files(const pkgnote_scan *s, json_t *files, size_t *file_no, int *err) {
        char fid[64];
        size_t n_files = 0;
        for (size_t i = 0; i < pkgnote_scan_object_count(s) && !*err; i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                const char *sha1 = pkgnote_scan_object_sha1(ob), *sha256 = pkgnote_scan_object_sha256(ob);
                if (!sha1 || !sha256)
                        continue;
                file_no[i] = ++n_files;
                snprintf(fid, sizeof fid, "SPDXRef-File-%zu", n_files);
                const char *path = pkgnote_scan_object_path(ob);
                char *name = NULL;
                if (asprintf(&name, "%s%s", path[0] == '/' ? "." : "./", path) < 0) {
                        *err = -ENOMEM;
                        break;
                }
                json_t *f = json_object();
                pn_sbom_put(f, "SPDXID", json_string(fid), err);
                pn_sbom_put(f, "fileName", pn_sbom_jstr(name), err);
                free(name);
                pn_sbom_put(f, "fileTypes", json_pack("[s]", "BINARY"), err);
                pn_sbom_put(f, "checksums",
                    json_pack("[{s:s, s:s}, {s:s, s:s}]", "algorithm", "SHA1", "checksumValue", sha1, "algorithm",
                              "SHA256", "checksumValue", sha256),
                    err);
                const char *bid = pkgnote_scan_object_build_id(ob);
                if (bid) {
                        char c[160];
                        snprintf(c, sizeof c, "GNU build-id %s", bid);
                        pn_sbom_put(f, "comment", json_string(c), err);
                }
                pn_sbom_push(files, f, err);
        }
}

/* The relationships of package ID (package I): the document describes
 * it, and each listed file that carries its note is evidence of it. */
static void spdx_package_relationships(const pkgnote_scan *s, size_t i, const char *id, const size_t *file_no,
                                       json_t *rels, int *err) {
        char fid[64];
        /* With images, the document describes them, and they contain
         * their packages. */
        if (!pkgnote_scan_image_count(s) || package_in_scope(s, i, &(struct scope){.image = NULL}))
                pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-DOCUMENT", "DESCRIBES", id, NULL), err);
        for (size_t j = 0; j < pkg_nobj(s, i); j++) {
                const pkgnote_scan_object *ob = pkg_obj(s, i, j);
                size_t q = object_index(s, ob), k = q < pkgnote_scan_object_count(s) ? file_no[q] : 0;
                if (!k)
                        continue;
                snprintf(fid, sizeof fid, "SPDXRef-File-%zu", k);
                pn_sbom_push(rels, pn_sbom_spdx_relationship(id, "OTHER", fid,
                                             !pkg_db(s, i) ? "evident-by: the file carries this package note"
                                             : pn_scan_object_db_mismatch(ob)
                                                     ? "evident-by: the root's package database lists the file; its package note names another package (dbMismatch)"
                                             : pkgnote_scan_object_package_count(ob)
                                                     ? "evident-by: the root's package database lists the file, and it carries this package's note"
                                                     : "evident-by: the root's package database lists the file"),
                     err);
        }
}

/* What spdx_package() adds relationships to. */
struct spdx_packages {
        json_t *rels;
        const size_t *file_no;
};

/* The package element of package I, named ID, and its relationships
 * (package_element_fn; USERDATA is a struct spdx_packages). */
static json_t *spdx_package(const pkgnote_scan *s, size_t i, const char *id, void *userdata, int *err) {
        const struct spdx_packages *sp = userdata;
        struct pn_sbom_package e;
        if (package_element(s, i, id, &everything, &e) < 0) {
                pn_sbom_package_done(&e);
                *err = -ENOMEM;
                return NULL;
        }
        size_t no = pkg_nobj(s, i);
        const char *st = pkg_db_status(s, i);
        const struct package *pk = pn_scan_all_package(s, i);
        if ((pkg_db(s, i) ? asprintf(&e.source_info, "installed, by the package database of its root; built from source package %s %s; the owner of %zu scanned object%s",
                                     pk->dbpkg->name, pk->dbpkg->version, no, no == 1 ? "" : "s")
                          : asprintf(&e.source_info, "found in the ELF package note (FDO_PACKAGING_METADATA) of %zu object%s%s", no,
                                     no == 1 ? "" : "s",
                                     !st ? ""
                                     : !strcmp(st, "absent") ? "; not a package of the root's package database"
                                                              : "; the root's package database names another package (dbMismatch)")) < 0) {
                e.source_info = NULL;
                *err = -ENOMEM;
        }
        json_t *p = pn_sbom_spdx_package(&e, NULL, NULL, err);
        pn_sbom_package_done(&e);
        spdx_package_relationships(s, i, id, sp->file_no, sp->rels, err);
        return p;
}

/* The package element of soname K, which no scanned package ships
 * (soname_element_fn). */
static json_t *spdx_soname(const struct sbom_dl *dl, size_t k, const char *id, int *err) {
        return json_pack("{s:s, s:s, s:s, s:b, s:s, s:s}", "SPDXID", id, "name", dl->v[k].name, "downloadLocation",
                         "NOASSERTION", "filesAnalyzed", 0, "primaryPackagePurpose", "LIBRARY", "comment",
                         "a library the scanned objects load with dlopen(), named by its soname; no scanned package ships it");
}

/* One dlopen dependency of package PID, for spdx_dependency_edge(). */
struct spdx_dependency {
        json_t *rels;
        const char *pid, *comment;
        bool required;
        int *err;
};

/* The relationship between the package and the element ID it loads. */
static void spdx_dependency_edge(const char *id, void *userdata) {
        struct spdx_dependency *d = userdata;
        pn_sbom_push(d->rels,
             d->required ? pn_sbom_spdx_relationship(d->pid, "DEPENDS_ON", id, d->comment)
                         : pn_sbom_spdx_relationship(id, "OPTIONAL_DEPENDENCY_OF", d->pid, d->comment),
             d->err);
}

/* The relationships of the dlopen dependencies: required ones DEPENDS_ON,
 * the others OPTIONAL_DEPENDENCY_OF, each with the note's priority. */
static void spdx_dlopen_relationships(struct sbom_dl *dl, json_t *rels, int *err) {
        for (size_t i = 0; !*err && i < dl->np; i++) {
                char pid[80];
                element_id(pid, spdx_ids.package, i);
                for (size_t k = 0; !*err && k < pkgnote_deps_count(dl->deps[i]); k++) {
                        char *c = dl_comment(dl->deps[i], k);
                        struct spdx_dependency d = {rels, pid, c,
                                                    pkgnote_deps_priority(dl->deps[i], k) == PKGNOTE_DLOPEN_REQUIRED, err};
                        if (c)
                                dl_targets(dl, &spdx_ids, i, k, spdx_dependency_edge, &d);
                        else
                                *err = -ENOMEM;
                        free(c);
                }
        }
}

/* The package element of each image, which the document describes and
 * which contains the packages of its objects. */
static void spdx_images(const pkgnote_scan *s, json_t *pkgs, json_t *rels, int *err) {
        for (size_t i = 0; !*err && i < pkgnote_scan_image_count(s); i++) {
                const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
                char id[80], pid[80];
                snprintf(id, sizeof id, "SPDXRef-Image-%zu", i + 1);
                json_t *p = json_object();
                pn_sbom_put(p, "SPDXID", json_string(id), err);
                pn_sbom_put(p, "name", pn_sbom_jstr(pkgnote_scan_image_reference(im)), err);
                const char *v = pkgnote_scan_image_digest(im) ? pkgnote_scan_image_digest(im) : pkgnote_scan_image_id(im);
                if (v)
                        pn_sbom_put(p, "versionInfo", pn_sbom_jstr(v), err);
                pn_sbom_put(p, "downloadLocation", json_string("NOASSERTION"), err);
                pn_sbom_put(p, "filesAnalyzed", json_false(), err);
                pn_sbom_put(p, "primaryPackagePurpose", json_string("CONTAINER"), err);
                char *c = NULL;
                if (asprintf(&c, "container image; tags: %zu; platform: %s; id: %s", pkgnote_scan_image_tag_count(im),
                             pkgnote_scan_image_platform(im) ? pkgnote_scan_image_platform(im) : "unknown",
                             pkgnote_scan_image_id(im) ? pkgnote_scan_image_id(im) : "unknown") >= 0)
                        pn_sbom_put(p, "comment", pn_sbom_jstr(c), err);
                free(c);
                pn_sbom_push(pkgs, p, err);
                pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-DOCUMENT", "DESCRIBES", id, NULL), err);
                struct scope sc = {.image = im};
                for (size_t k = 0; !*err && k < pkg_count(s); k++)
                        if (package_in_scope(s, k, &sc)) {
                                element_id(pid, spdx_ids.package, k);
                                pn_sbom_push(rels, pn_sbom_spdx_relationship(id, "CONTAINS", pid, NULL), err);
                        }
        }
}

/* The components binaries say are inside them: for an object with a
 * package (its database's or its note's), packages that package CONTAINS;
 * for one without, its main module (or, built outside a module, a package
 * named by its file) is the package the document DESCRIBES and CONTAINS
 * the others.  A component the binaries of one package share is one
 * package element; the list's dependency edges are DEPENDS_ON. */
static void spdx_embedded(const pkgnote_scan *s, json_t *pkgs, json_t *rels, int *err) {
        struct emb_set set = {0};
        size_t no = 0;
        pkg_count(s); /* the index, with each object's package */
        for (size_t i = 0; i < pkgnote_scan_object_count(s) && !*err; i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                const pkgnote_embedded *m = object_embedded(ob);
                if (!m)
                        continue;
                size_t n = pkgnote_embedded_component_count(m);
                const char *path = pkgnote_scan_object_path(ob);
                char owner[80], id[80];
                size_t p = object_package(s, ob);
                size_t first = 0;
                if (p != SIZE_MAX)
                        element_id(owner, spdx_ids.package, p);
                else {
                        /* the binary's own element: its main module, else one
                         * named by its file */
                        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                        pkgnote_embedded_component(m, 0, &c);
                        snprintf(owner, sizeof owner, "SPDXRef-Binary-%zu", ++no);
                        struct pn_sbom_package e;
                        pkgnote_component self = {.size = sizeof self, .ecosystem = c.ecosystem,
                                                  .name = base_name(path), .main = 1};
                        if (pn_sbom_package_from_component(c.main ? &c : &self, owner, path, &e) < 0)
                                *err = -ENOMEM;
                        json_t *x = pn_sbom_spdx_package(&e, NULL, NULL, err);
                        char *comment = pn_sbom_component_comment(&e);
                        pn_sbom_put(x, "comment", comment ? pn_sbom_jstr(comment) : NULL, err);
                        free(comment);
                        pn_sbom_package_done(&e);
                        pn_sbom_push(pkgs, x, err);
                        pn_sbom_push(rels, pn_sbom_spdx_relationship("SPDXRef-DOCUMENT", "DESCRIBES", owner, NULL), err);
                        first = c.main ? 1 : 0;
                }
                for (size_t k = first; k < n && !*err; k++) {
                        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_component(m, k, &c) < 0)
                                continue;
                        if (emb_find(&set, owner, &c))
                                continue; /* another binary of the package has it */
                        snprintf(id, sizeof id, "SPDXRef-Embedded-%zu", set.n + 1);
                        struct pn_sbom_package e;
                        if (pn_sbom_package_from_component(&c, id, path, &e) < 0 || emb_add(&set, owner, &c, id, NULL) < 0)
                                *err = -ENOMEM;
                        json_t *x = pn_sbom_spdx_package(&e, NULL, NULL, err);
                        char *comment = pn_sbom_component_comment(&e);
                        pn_sbom_put(x, "comment", comment ? pn_sbom_jstr(comment) : NULL, err);
                        free(comment);
                        pn_sbom_package_done(&e);
                        pn_sbom_push(pkgs, x, err);
                        pn_sbom_push(rels, pn_sbom_spdx_relationship(owner, "CONTAINS", id, "what the binary says is inside it"),
                                     err);
                }
                /* the list's edges, between the elements of its components */
                for (size_t k = 0; k < pkgnote_embedded_edge_count(m) && !*err; k++) {
                        size_t from, to;
                        pkgnote_component a = PKGNOTE_COMPONENT_INIT, b = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_edge(m, k, &from, &to) < 0 || pkgnote_embedded_component(m, from, &a) < 0 ||
                            pkgnote_embedded_component(m, to, &b) < 0)
                                continue;
                        const struct emb_seen *xa = emb_find(&set, owner, &a), *xb = emb_find(&set, owner, &b);
                        const char *fa = first && from == 0 ? owner : xa ? xa->id : NULL,
                                   *tb = first && to == 0 ? owner : xb ? xb->id : NULL;
                        if (fa && tb && strcmp(fa, tb) != 0)
                                pn_sbom_push(rels, pn_sbom_spdx_relationship(fa, "DEPENDS_ON", tb, NULL), err);
                }
        }
        emb_set_free(&set);
}

/* The scan as an SPDX 2.3 JSON document, or (V3) said again as SPDX
 * 3.0.1 JSON-LD (lib/10-write-sbom-spdx3.c). */

static int spdx(const pkgnote_scan *s, const pkgnote_sbom_options *o, bool v3, char **ret) {
        int err = 0;
        json_t *doc = json_object(), *pkgs = json_array(), *files = json_array(), *rels = json_array();
        if (!doc || !pkgs || !files || !rels) {
                json_decref(doc), json_decref(pkgs), json_decref(files), json_decref(rels);
                return pn_oom();
        }
        pn_sbom_spdx_header(doc, o, "pkgnote-scan", &err);
        spdx_images(s, pkgs, rels, &err);
        size_t n_obj = pkgnote_scan_object_count(s);
        size_t *file_no = calloc(n_obj ? n_obj : 1, sizeof *file_no);
        if (!file_no)
                err = -ENOMEM;
        else
                spdx_files(s, files, file_no, &err);
        struct spdx_packages sp = {rels, file_no};
        add_packages(s, &spdx_ids, pkgs, spdx_package, &sp, &err);
        free(file_no);
        pn_sbom_spdx_license_refs(doc, pkgs, &err);

        /* dlopen dependencies: a package element per soname no scanned
         * package ships, and the relationships. */
        struct sbom_dl dl = {0};
        if (!err && dl_collect(s, &everything, &dl) < 0)
                err = -ENOMEM;
        add_sonames(&dl, &spdx_ids, pkgs, spdx_soname, &err);
        spdx_dlopen_relationships(&dl, rels, &err);
        dl_free(&dl);
        /* Linked libraries: DEPENDS_ON the package that ships them. */
        struct needed_edge *ev = NULL;
        size_t ne = 0;
        if (!err && needed_edges(s, &everything, &ev, &ne) < 0)
                err = -ENOMEM;
        for (size_t i = 0; i < ne && !err; i++) {
                char from[80], to[80], c[300];
                element_id(from, spdx_ids.package, ev[i].from);
                element_id(to, spdx_ids.package, ev[i].to);
                snprintf(c, sizeof c, "DT_NEEDED %s", ev[i].soname);
                pn_sbom_push(rels, pn_sbom_spdx_relationship(from, "DEPENDS_ON", to, c), &err);
        }
        free(ev);
        /* Parts linked into an object: CONTAINS the package of each note
         * beside the object's own. */
        if (!err && contain_edges(s, &everything, &ev, &ne) < 0)
                err = -ENOMEM;
        for (size_t i = 0; i < ne && !err; i++) {
                char from[80], to[80], *c = NULL;
                element_id(from, spdx_ids.package, ev[i].from);
                element_id(to, spdx_ids.package, ev[i].to);
                if (asprintf(&c, "a part linked into %s carries this package note", ev[i].soname) < 0)
                        err = -ENOMEM;
                else
                        pn_sbom_push(rels, pn_sbom_spdx_relationship(from, "CONTAINS", to, c), &err);
                free(c);
        }
        free(ev);
        if (!err)
                spdx_embedded(s, pkgs, rels, &err);
        pn_sbom_put(doc, "packages", pkgs, &err);
        pn_sbom_put(doc, "files", files, &err);
        pn_sbom_put(doc, "relationships", rels, &err);
        if (v3)
                return pn_sbom_spdx3_finish(doc, err, o, "scan", ret);
        return pn_sbom_finish(doc, err, o, "documentNamespace", "https://spdx.org/spdxdocs/pkgnote-scan-", ret);
}

/* ------------------------------------------------------------------ */
/* CycloneDX 1.6 and 1.5                                               */

/* Every string key of M as a property of E, so nothing is lost; DB:
 * M is made from a package database's record, not a note. */
static void cdx_note_properties(struct pn_sbom_package *e, const pkgnote_metadata *m, bool db, int *err) {
        for (size_t k = 0; k < pkgnote_metadata_count(m); k++) {
                const char *key = pkgnote_metadata_key(m, k), *v = key ? pkgnote_metadata_get(m, key) : NULL;
                if (!key) { /* below the count: only memory can fail */
                        *err = -ENOMEM;
                        return;
                }
                if (!v)
                        continue;
                char name[160];
                snprintf(name, sizeof name, "pkgnote:%s:%s", db ? "db" : "note", key);
                pn_sbom_package_property(e, name, v, false, err);
        }
}

/* Beside the databases: for a database's package, each distinct note its
 * objects of SC carry ("pkgnote:note", the note as evidence) and each
 * object whose note names another package ("pkgnote:dbMismatch"); for a
 * note's package, why it is its own component ("pkgnote:database"). */
static void cdx_db_properties(struct pn_sbom_package *e, const pkgnote_scan *s, size_t i, const struct scope *sc,
                              int *err) {
        if (pkg_db_status(s, i))
                pn_sbom_package_property(e, "pkgnote:database", pkg_db_status(s, i), false, err);
        for (size_t j = 0; pkg_db(s, i) && j < pkg_nobj(s, i) && !*err; j++) {
                const pkgnote_scan_object *ob = pkg_obj(s, i, j);
                if (!in_scope(sc, ob))
                        continue;
                if (pn_scan_object_db_mismatch(ob)) {
                        pn_sbom_package_property(e, "pkgnote:dbMismatch", pkgnote_scan_object_path(ob), false, err);
                        continue;
                }
                for (size_t k = 0; k < pkgnote_scan_object_package_count(ob); k++)
                        pn_sbom_package_property(e, "pkgnote:note", pkgnote_scan_object_package_json(ob, k), true, err);
        }
}

/* The component of package I, named REF (package_element_fn; USERDATA
 * is the scope): the objects of the scope that carry its note are the
 * evidence. */
static json_t *cdx_component(const pkgnote_scan *s, size_t i, const char *ref, void *userdata, int *err) {
        const struct scope *sc = userdata;
        struct pn_sbom_package e;
        if (package_element(s, i, ref, sc, &e) < 0) {
                pn_sbom_package_done(&e);
                *err = -ENOMEM;
                return NULL;
        }
        cdx_note_properties(&e, pkg_meta(s, i), pkg_db(s, i), err);
        cdx_db_properties(&e, s, i, sc, err);
        json_t *c = pn_sbom_cdx_component(&e, err);
        pn_sbom_package_done(&e);
        return c;
}

/* The component of soname K, which no scanned package ships, scoped by
 * the strongest request (soname_element_fn). */
static json_t *cdx_soname(const struct sbom_dl *dl, size_t k, const char *ref, int *err) {
        json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "type", "library", "bom-ref", ref, "name", dl->v[k].name, "scope",
                              dl->v[k].priority == PKGNOTE_DLOPEN_REQUIRED ? "required" : "optional");
        if (c)
                pn_sbom_put(c, "properties",
                    json_pack("[o]", pn_sbom_cdx_property("pkgnote:dlopen:priority", pkgnote_dlopen_priority_name(dl->v[k].priority))),
                    err);
        return c;
}

/* The "dependsOn" list of one package, for cdx_depends_on(). */
struct cdx_depends {
        json_t *on;
        int *err;
};

/* Adds REF to the package's "dependsOn", once. */
static void cdx_depends_on(const char *ref, void *userdata) {
        struct cdx_depends *d = userdata;
        bool seen = false;
        for (size_t q = 0; q < json_array_size(d->on); q++)
                seen |= !strcmp(json_string_value(json_array_get(d->on, q)), ref);
        if (!seen)
                pn_sbom_push(d->on, json_string(ref), d->err);
}

/* The component named REF among COMPS (not nested), and its index. */
static json_t *cdx_find(json_t *comps, const char *ref, size_t *index) {
        for (size_t q = 0; q < json_array_size(comps); q++) {
                const char *r = json_string_value(json_object_get(json_array_get(comps, q), "bom-ref"));
                if (r && !strcmp(ref, r)) {
                        *index = q;
                        return json_array_get(comps, q);
                }
        }
        return NULL;
}

/* The dlopen dependencies: each package's own properties say what each
 * note asks for and how much ("pkgnote:dlopen:required" = "liba.so.1 or
 * libb.so.2"); DEPS, the dependency graph, points at the scanned package
 * that ships a soname, else at the soname's component. */
static void cdx_dependencies(const pkgnote_scan *s, struct sbom_dl *dl, const struct sbom_ids *ids, json_t *comps,
                             json_t *deps, int *err) {
        /* Linked libraries first, then what the dlopen notes ask for. */
        struct needed_edge *ev = NULL, *cv = NULL;
        size_t ne = 0, e = 0, nc = 0, ce = 0;
        if (needed_edges(s, &ids->scope, &ev, &ne) < 0 || contain_edges(s, &ids->scope, &cv, &nc) < 0) {
                free(ev);
                *err = -ENOMEM;
                return;
        }
        for (size_t i = 0; !*err && i < dl->np; i++) {
                while (e < ne && ev[e].from < i)
                        e++;
                while (ce < nc && cv[ce].from < i)
                        ce++;
                bool linked = e < ne && ev[e].from == i, loads = pkgnote_deps_count(dl->deps[i]) > 0,
                     parts = ce < nc && cv[ce].from == i;
                if (!linked && !loads && !parts)
                        continue;
                char ref[80];
                element_id(ref, ids->package, i);
                json_t *on = json_array();
                if (!on) {
                        *err = -ENOMEM;
                        break;
                }
                struct cdx_depends d = {on, err};
                for (; e < ne && ev[e].from == i; e++) {
                        char to[80];
                        element_id(to, ids->package, ev[e].to);
                        cdx_depends_on(to, &d);
                }
                /* The parts linked in, which it also holds as components. */
                for (; ce < nc && cv[ce].from == i; ce++) {
                        char to[80];
                        element_id(to, ids->package, cv[ce].to);
                        cdx_depends_on(to, &d);
                }
                size_t at;
                json_t *c = loads ? cdx_find(comps, ref, &at) : NULL;
                json_t *props = c ? json_object_get(c, "properties") : NULL;
                if (loads && !c) {
                        json_decref(on);
                        *err = -ENOMEM;
                        break;
                }
                if (loads && !props) {
                        props = json_array();
                        pn_sbom_put(c, "properties", props, err);
                }
                for (size_t k = 0; loads && !*err && k < pkgnote_deps_count(dl->deps[i]); k++) {
                        char name[64];
                        snprintf(name, sizeof name, "pkgnote:dlopen:%s", pkgnote_dlopen_priority_name(pkgnote_deps_priority(dl->deps[i], k)));
                        pn_sbom_push(props, pn_sbom_cdx_property(name, pkgnote_deps_sonames(dl->deps[i], k)), err);
                        dl_targets(dl, ids, i, k, cdx_depends_on, &d);
                }
                pn_sbom_push(deps, json_pack("{s:s, s:o}", "ref", ref, "dependsOn", on), err);
        }
        free(ev);
        free(cv);
}

/* A part linked into objects of one component only, and no object's own
 * package, moves into that component's "components" (CycloneDX 1.5,
 * component.components: the assembly it is part of). */
static void cdx_nest_parts(const pkgnote_scan *s, const struct sbom_ids *ids, json_t *comps, int *err) {
        struct needed_edge *cv = NULL;
        size_t nc = 0;
        if (contain_edges(s, &ids->scope, &cv, &nc) < 0) {
                *err = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < nc && !*err; i++) {
                size_t part = cv[i].to, n_owners = 0;
                for (size_t k = 0; k < nc; k++)
                        n_owners += cv[k].to == part;
                bool own = false; /* some object's own package */
                for (size_t o = 0; o < pkgnote_scan_object_count(s) && !own; o++) {
                        const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, o);
                        own = in_scope(&ids->scope, ob) && pkgnote_scan_object_package_count(ob) &&
                              (object_component(s, ob) == part ||
                               (object_component(s, ob) == SIZE_MAX && note_package(s, ob, 0) == part));
                }
                if (n_owners != 1 || own)
                        continue;
                char from[80], to[80];
                element_id(from, ids->package, cv[i].from);
                element_id(to, ids->package, part);
                size_t at, ignored;
                json_t *c = cdx_find(comps, to, &at), *owner = cdx_find(comps, from, &ignored);
                if (!c || !owner)
                        continue;
                json_t *inner = json_object_get(owner, "components");
                if (!inner) {
                        pn_sbom_put(owner, "components", json_array(), err);
                        inner = json_object_get(owner, "components");
                }
                if (!inner || json_array_append(inner, c) < 0 || json_array_remove(comps, at) < 0)
                        *err = -ENOMEM;
        }
        free(cv);
}

/* Adds FROM depends on TO to DEPS: to FROM's entry when it has one. */
static void cdx_dep_add(json_t *deps, const char *from, const char *to, int *err) {
        json_t *entry = NULL;
        for (size_t q = 0; q < json_array_size(deps) && !entry; q++) {
                const char *r = json_string_value(json_object_get(json_array_get(deps, q), "ref"));
                if (r && !strcmp(r, from))
                        entry = json_array_get(deps, q);
        }
        if (!entry) {
                entry = json_pack("{s:s, s:[]}", "ref", from, "dependsOn");
                pn_sbom_push(deps, entry, err);
                if (!entry)
                        return;
        }
        struct cdx_depends d = {json_object_get(entry, "dependsOn"), err};
        if (d.on)
                cdx_depends_on(to, &d);
}

/* Component C of a binary's list, named REF, found at PATH. */
static json_t *cdx_embedded_component(const pkgnote_component *c, const char *ref, const char *path, int *err) {
        struct pn_sbom_package e;
        if (pn_sbom_package_from_component(c, ref, path, &e) < 0)
                *err = -ENOMEM;
        json_t *x = pn_sbom_cdx_component(&e, err);
        pn_sbom_package_done(&e);
        if (x && c->main)
                pn_sbom_put(x, "type", json_string("application"), err);
        return x;
}

/* The components binaries say are inside them, nested (CycloneDX
 * component.components: what the assembly holds) under the component of
 * the binary's package (its database's or its note's) or, for a binary
 * without one, under its main module (else a component named by its
 * file), which is then a component of the BOM of its own.  A component
 * the binaries of one package share is one component, its binaries its
 * occurrences; the list's dependency edges go into DEPS. */
static void cdx_embedded(const pkgnote_scan *s, const struct sbom_ids *ids, json_t *comps, json_t *deps, int *err) {
        struct emb_set set = {0};
        size_t no = 0, ne = 0;
        pkg_count(s);
        for (size_t i = 0; i < pkgnote_scan_object_count(s) && !*err; i++) {
                const pkgnote_scan_object *ob = pkgnote_scan_object_get(s, i);
                const pkgnote_embedded *m = in_scope(&ids->scope, ob) ? object_embedded(ob) : NULL;
                if (!m)
                        continue;
                const char *path = pkgnote_scan_object_path(ob);
                char owner_ref[80], ref[96];
                size_t p = object_package(s, ob), at, first = 0;
                json_t *owner = NULL;
                if (p != SIZE_MAX) {
                        element_id(owner_ref, ids->package, p);
                        owner = cdx_find(comps, owner_ref, &at);
                }
                if (!owner) {
                        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                        pkgnote_embedded_component(m, 0, &c);
                        pkgnote_component self = {.size = sizeof self, .ecosystem = c.ecosystem,
                                                  .name = base_name(path), .main = 1};
                        snprintf(owner_ref, sizeof owner_ref, "%sbinary-%zu", ids->package, ++no);
                        owner = cdx_embedded_component(c.main ? &c : &self, owner_ref, path, err);
                        pn_sbom_push(comps, owner, err);
                        first = c.main ? 1 : 0;
                }
                if (!owner)
                        break;
                json_t *inner = json_object_get(owner, "components");
                if (!inner) {
                        pn_sbom_put(owner, "components", json_array(), err);
                        if (!(inner = json_object_get(owner, "components")))
                                break;
                }
                size_t n = pkgnote_embedded_component_count(m);
                for (size_t k = first; k < n && !*err; k++) {
                        pkgnote_component c = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_component(m, k, &c) < 0)
                                continue;
                        const struct emb_seen *known = emb_find(&set, owner_ref, &c);
                        if (known) { /* one more binary holding it */
                                json_t *occ = json_object_get(json_object_get(known->elem, "evidence"), "occurrences");
                                if (occ)
                                        pn_sbom_push(occ, json_pack("{s:o}", "location", pn_sbom_jstr(path)), err);
                                continue;
                        }
                        snprintf(ref, sizeof ref, "%sembedded-%zu", ids->package, ++ne);
                        json_t *x = cdx_embedded_component(&c, ref, path, err);
                        if (!x || emb_add(&set, owner_ref, &c, ref, x) < 0)
                                *err = -ENOMEM;
                        pn_sbom_push(inner, x, err);
                }
                for (size_t k = 0; k < pkgnote_embedded_edge_count(m) && !*err; k++) {
                        size_t from, to;
                        pkgnote_component a = PKGNOTE_COMPONENT_INIT, b = PKGNOTE_COMPONENT_INIT;
                        if (pkgnote_embedded_edge(m, k, &from, &to) < 0 || pkgnote_embedded_component(m, from, &a) < 0 ||
                            pkgnote_embedded_component(m, to, &b) < 0)
                                continue;
                        const struct emb_seen *xa = emb_find(&set, owner_ref, &a),
                                              *xb = emb_find(&set, owner_ref, &b);
                        const char *fa = first && from == 0 ? owner_ref : xa ? xa->id : NULL,
                                   *tb = first && to == 0 ? owner_ref : xb ? xb->id : NULL;
                        if (fa && tb && strcmp(fa, tb) != 0)
                                cdx_dep_add(deps, fa, tb, err);
                }
        }
        emb_set_free(&set);
}

/* The components of the packages of IDS's scope into COMPS, with the
 * components of the sonames they load that no package of the scope
 * ships, and their dependencies into DEPS. */
static void cdx_scope(const pkgnote_scan *s, const struct sbom_ids *ids, json_t *comps, json_t *deps, int *err) {
        add_packages(s, ids, comps, cdx_component, (void *)&ids->scope, err);
        struct sbom_dl dl = {0};
        if (!*err && dl_collect(s, &ids->scope, &dl) < 0)
                *err = -ENOMEM;
        add_sonames(&dl, ids, comps, cdx_soname, err);
        cdx_dependencies(s, &dl, ids, comps, deps, err);
        dl_free(&dl);
        if (!*err)
                cdx_nest_parts(s, ids, comps, err);
        if (!*err)
                cdx_embedded(s, ids, comps, deps, err);
}

/* The component of image I: a container holding the components of its
 * packages (their references scoped by the image), their dependencies
 * into DEPS. */
static json_t *cdx_image(const pkgnote_scan *s, size_t i, json_t *deps, int *err) {
        const pkgnote_scan_image *im = pkgnote_scan_image_get(s, i);
        struct sbom_ids ids = {.scope = {.image = im}};
        snprintf(ids.package, sizeof ids.package, "pkgnote-image-%zu-package-", i + 1);
        snprintf(ids.soname, sizeof ids.soname, "pkgnote-image-%zu-soname-", i + 1);
        char ref[80];
        snprintf(ref, sizeof ref, "pkgnote-image-%zu", i + 1);
        json_t *c = json_object(), *inner = json_array(), *props = json_array();
        if (!c || !inner || !props) {
                json_decref(c), json_decref(inner), json_decref(props);
                *err = -ENOMEM;
                return NULL;
        }
        pn_sbom_put(c, "type", json_string("container"), err);
        pn_sbom_put(c, "bom-ref", json_string(ref), err);
        pn_sbom_put(c, "name", pn_sbom_jstr(pkgnote_scan_image_reference(im)), err);
        const char *version = pkgnote_scan_image_digest(im) ? pkgnote_scan_image_digest(im) : pkgnote_scan_image_id(im);
        if (version)
                pn_sbom_put(c, "version", pn_sbom_jstr(version), err);
        for (size_t t = 0; t < pkgnote_scan_image_tag_count(im); t++)
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:image:tag", pkgnote_scan_image_tag(im, t)), err);
        if (pkgnote_scan_image_id(im))
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:image:id", pkgnote_scan_image_id(im)), err);
        if (pkgnote_scan_image_platform(im))
                pn_sbom_push(props, pn_sbom_cdx_property("pkgnote:image:platform", pkgnote_scan_image_platform(im)), err);
        pn_sbom_put(c, "properties", props, err);
        cdx_scope(s, &ids, inner, deps, err);
        pn_sbom_put(c, "components", inner, err);
        return c;
}

/* The scan as a CycloneDX JSON BOM of SPEC_VERSION (1.6 or 1.5): one component per package
 * (whose objects are its evidence) and per soname loaded that no package
 * ships; with images, one container component per image holding its
 * own. */
static int cyclonedx(const pkgnote_scan *s, const pkgnote_sbom_options *o, const char *spec_version, char **ret) {
        int err = 0;
        json_t *doc = json_object(), *comps = json_array(), *deps = json_array();
        if (!doc || !comps || !deps) {
                json_decref(doc), json_decref(comps), json_decref(deps);
                return pn_oom();
        }
        pn_sbom_cdx_header(doc, o, spec_version, &err);
        size_t ni = pkgnote_scan_image_count(s);
        for (size_t i = 0; i < ni && !err; i++)
                pn_sbom_push(comps, cdx_image(s, i, deps, &err), &err);
        struct sbom_ids loose = cdx_ids;
        if (ni)
                loose.scope = (struct scope){.image = NULL}; /* the objects of no image */
        cdx_scope(s, &loose, comps, deps, &err);
        pn_sbom_put(doc, "components", comps, &err);
        if (json_array_size(deps))
                pn_sbom_put(doc, "dependencies", deps, &err);
        else
                json_decref(deps);
        return pn_sbom_finish(doc, err, o, "serialNumber", "urn:uuid:", ret);
}

PKGNOTE_PUBLIC int pkgnote_sbom_write(const pkgnote_scan *s, int format, const pkgnote_sbom_options *options,
                                      char **ret) {
        pkgnote_sbom_options o;
        int r = pn_options_read(&o, sizeof o, options, PN_SIZE_1_0(pkgnote_sbom_options), "SBOM");
        if (r < 0)
                return r;
        if (!options)
                o.created = -1;
        if ((r = pn_scan_packages_ready(s)) < 0)
                return r;
        if (format == PKGNOTE_SBOM_SPDX || format == PKGNOTE_SBOM_SPDX_3)
                return spdx(s, &o, format == PKGNOTE_SBOM_SPDX_3, ret);
        const char *cdx = pn_sbom_cdx_version(format);
        if (!cdx)
                return pn_error(-EINVAL, "unknown SBOM format %d", format);
        return cyclonedx(s, &o, cdx, ret);
}
