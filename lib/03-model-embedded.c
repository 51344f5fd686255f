/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a binary says is inside it: one list of components (Go modules,
 * Rust crates) with their purls, dependency edges and build settings,
 * filled by the readers of each format.  Go's build information comes
 * from lib/02-elf-gobuild.c and is looked for only in objects that carry
 * Go's build-id note in a PT_NOTE: every program Go's linker writes has
 * one (cmd/link adds ".note.go.buildid" whenever a build id is set, which
 * cmd/go always does), and no C object has, so a scan of a tree of C
 * objects never reads their section headers for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "02-elf-gobuild.h"
#include "02-elf-view.h"
#include "03-model-crates.h"
#include "03-model-embedded.h"
#include "03-model-purl.h"

/* Go's build-id note: cmd/link's ELF_NOTE_GOBUILDID_TAG, owner "Go". */
#define GO_OWNER "Go"
#define GO_NT_BUILDID 4u

enum { F_ECOSYSTEM, F_NAME, F_VERSION, F_CHECKSUM, F_SOURCE, F_KIND, F_PURL, F_RNAME, F_RVERSION, F_RCHECKSUM, N_FIELDS };

struct component {
        char *f[N_FIELDS];
        int main;
};

struct setting {
        char *key, *value;
};

struct pkgnote_embedded {
        char *toolchain, *package_path;
        struct component *c;
        size_t n_c, cap_c;
        size_t (*edges)[2];
        size_t n_edges, cap_edges;
        struct setting *s;
        size_t n_s, cap_s;
};

pkgnote_embedded *pn_embedded_new(void) {
        return calloc(1, sizeof(pkgnote_embedded));
}

PKGNOTE_PUBLIC void pkgnote_embedded_free(pkgnote_embedded *m) {
        if (!m)
                return;
        free(m->toolchain);
        free(m->package_path);
        for (size_t i = 0; i < m->n_c; i++)
                for (size_t k = 0; k < N_FIELDS; k++)
                        free(m->c[i].f[k]);
        free(m->c);
        free(m->edges);
        for (size_t i = 0; i < m->n_s; i++) {
                free(m->s[i].key);
                free(m->s[i].value);
        }
        free(m->s);
        free(m);
}

static int dup_opt(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}

/* purl-spec PURL-TYPES "golang": the namespace and name lowercased, the
 * module path's last segment the name and the segments before it the
 * namespace (each percent-encoded, "/" between them kept).  A one-segment
 * module path (a program's own "example" module) has no namespace to
 * give, and is the name alone.  "(devel)" is no version. */
static void purl_golang(FILE *f, const char *name, const char *version) {
        fputs("pkg:golang/", f);
        for (const char *p = name; *p; p++) {
                char one[2] = {*p, 0};
                if (*p == '/')
                        fputc('/', f);
                else
                        pn_purl_pct(f, one, true);
        }
        if (version && *version && strcmp(version, "(devel)") != 0) {
                fputc('@', f);
                pn_purl_pct(f, version, false);
        }
}

/* purl-spec PURL-TYPES "cargo": the crate name as it is, no namespace. */
static void purl_cargo(FILE *f, const char *name, const char *version) {
        fputs("pkg:cargo/", f);
        pn_purl_pct(f, name, false);
        if (version && *version) {
                fputc('@', f);
                pn_purl_pct(f, version, false);
        }
}

bool pn_embedded_purl_name_ok(const char *ecosystem, const char *name) {
        if (!name || !*name)
                return false;
        if (strcmp(ecosystem, "golang") != 0)
                return true;
        for (const char *p = name;;) {
                const char *e = strchr(p, '/');
                size_t n = e ? (size_t)(e - p) : strlen(p);
                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (!e)
                        return true;
                p = e + 1;
        }
}

char *pn_embedded_purl(const char *ecosystem, const char *name, const char *version) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        if (!strcmp(ecosystem, "golang"))
                purl_golang(f, name, version);
        else if (!strcmp(ecosystem, "cargo"))
                purl_cargo(f, name, version);
        else {
                fputs("pkg:generic/", f);
                pn_purl_pct(f, name, false);
                if (version && *version) {
                        fputc('@', f);
                        pn_purl_pct(f, version, false);
                }
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

int pn_embedded_add_component(pkgnote_embedded *m, const pkgnote_component *c, size_t *index) {
        if (!c->ecosystem || !c->name)
                return pn_error(-EINVAL, "a component without its ecosystem or name");
        if (m->n_c >= PKGNOTE_MAX_COMPONENTS)
                return pn_error(-E2BIG, "more than %u components", PKGNOTE_MAX_COMPONENTS);
        if (PN_GROW(m->c, m->cap_c, m->n_c + 1) < 0)
                return pn_oom();
        struct component *x = &m->c[m->n_c];
        *x = (struct component){.main = c->main ? 1 : 0};
        const char *v[N_FIELDS] = {c->ecosystem, c->name, c->version, c->checksum, c->source, c->kind, c->purl,
                                   c->replacement_name, c->replacement_version, c->replacement_checksum};
        int r = 0;
        for (size_t k = 0; k < N_FIELDS && r == 0; k++)
                r = dup_opt(v[k], &x->f[k]);
        if (r == 0 && !x->f[F_PURL]) {
                /* A replacement by a module version is what was built: its
                 * purl.  A directory (no version) is local code: the
                 * replaced module's own. */
                bool repl = c->replacement_name && c->replacement_version && *c->replacement_version &&
                            strcmp(c->replacement_version, "(devel)") != 0 && !(c->source && !strcmp(c->source, "local"));
                const char *pname = repl ? c->replacement_name : c->name;
                /* a name no purl can carry (empty, or a path with an empty,
                 * "." or ".." segment: a hostile list) gets none */
                if (pn_embedded_purl_name_ok(c->ecosystem, pname)) {
                        x->f[F_PURL] = pn_embedded_purl(c->ecosystem, pname, repl ? c->replacement_version : c->version);
                        if (!x->f[F_PURL])
                                r = -ENOMEM;
                }
        }
        if (r < 0) {
                for (size_t k = 0; k < N_FIELDS; k++)
                        free(x->f[k]);
                return pn_oom();
        }
        if (index)
                *index = m->n_c;
        m->n_c++;
        return 0;
}

int pn_embedded_add_edge(pkgnote_embedded *m, size_t from, size_t to) {
        if (from >= m->n_c || to >= m->n_c)
                return pn_error(-EINVAL, "a dependency edge %zu -> %zu between components that are not there (%zu)", from,
                                to, m->n_c);
        if (m->n_edges >= PKGNOTE_MAX_COMPONENT_EDGES)
                return pn_error(-E2BIG, "more than %u dependency edges", PKGNOTE_MAX_COMPONENT_EDGES);
        if (PN_GROW(m->edges, m->cap_edges, m->n_edges + 1) < 0)
                return pn_oom();
        m->edges[m->n_edges][0] = from;
        m->edges[m->n_edges][1] = to;
        m->n_edges++;
        return 0;
}

int pn_embedded_add_setting(pkgnote_embedded *m, const char *key, const char *value) {
        if (PN_GROW(m->s, m->cap_s, m->n_s + 1) < 0)
                return pn_oom();
        struct setting *x = &m->s[m->n_s];
        if (dup_opt(key ? key : "", &x->key) < 0 || dup_opt(value ? value : "", &x->value) < 0) {
                free(x->key);
                return pn_oom();
        }
        m->n_s++;
        return 0;
}

int pn_embedded_set_toolchain(pkgnote_embedded *m, const char *toolchain, const char *package_path) {
        char *t, *p;
        if (dup_opt(toolchain, &t) < 0)
                return pn_oom();
        if (dup_opt(package_path, &p) < 0) {
                free(t);
                return pn_oom();
        }
        free(m->toolchain);
        free(m->package_path);
        m->toolchain = t, m->package_path = p;
        return 0;
}

pkgnote_embedded *pn_embedded_dup(const pkgnote_embedded *m) {
        pkgnote_embedded *d = pn_embedded_new();
        if (!d || pn_embedded_set_toolchain(d, m->toolchain, m->package_path) < 0)
                goto fail;
        for (size_t i = 0; i < m->n_c; i++) {
                const struct component *x = &m->c[i];
                pkgnote_component c = {.size = sizeof c, .ecosystem = x->f[F_ECOSYSTEM], .name = x->f[F_NAME],
                                       .version = x->f[F_VERSION], .checksum = x->f[F_CHECKSUM],
                                       .source = x->f[F_SOURCE], .kind = x->f[F_KIND], .purl = x->f[F_PURL],
                                       .replacement_name = x->f[F_RNAME], .replacement_version = x->f[F_RVERSION],
                                       .replacement_checksum = x->f[F_RCHECKSUM], .main = x->main};
                if (pn_embedded_add_component(d, &c, NULL) < 0)
                        goto fail;
        }
        for (size_t i = 0; i < m->n_edges; i++)
                if (pn_embedded_add_edge(d, m->edges[i][0], m->edges[i][1]) < 0)
                        goto fail;
        for (size_t i = 0; i < m->n_s; i++)
                if (pn_embedded_add_setting(d, m->s[i].key, m->s[i].value) < 0)
                        goto fail;
        return d;
fail:
        pkgnote_embedded_free(d);
        return NULL;
}

/* ------------------------------------------------------------------ */
/* Go                                                                  */

/* cmd/link writes the owner as "Go" padded with NULs to namesz 4
 * (ld/elf.go's ELF_NOTE_GO_NAME "Go\x00\x00"), so it is compared up to
 * namesz, NULs after it allowed. */
static bool go_owner(const pkgnote_note *n) {
        if (n->namesz < 3 || n->namesz > 4 || memcmp(n->name, GO_OWNER, 3) != 0)
                return false;
        return n->namesz == 3 || n->name[3] == 0;
}

int pn_embedded_is_go(pkgnote_object *e) {
        const pkgnote_note *notes;
        int n = pn_object_notes(e, &notes);
        if (n < 0)
                return n;
        for (int i = 0; i < n; i++)
                if ((notes[i].where & PKGNOTE_NOTE_IN_SEGMENT) && notes[i].type == GO_NT_BUILDID && go_owner(&notes[i]))
                        return 1;
        return 0;
}

/* A replacement by a directory: a path as golang.org/x/mod/modfile's
 * IsDirectoryPath() sees it ("./", "../", "/" or "." and ".."), which
 * cmd/go records with no version or "(devel)". */
static bool go_directory(const struct pn_go_module *r) {
        const char *p = r->path ? r->path : "";
        return !strcmp(p, ".") || !strcmp(p, "..") || !strncmp(p, "./", 2) || !strncmp(p, "../", 3) || p[0] == '/' ||
               !r->version || !*r->version || !strcmp(r->version, "(devel)");
}

static int add_go_module(pkgnote_embedded *m, const struct pn_go_module *g, bool main) {
        const struct pn_go_module *r = g->replace;
        bool dir = r && go_directory(r);
        pkgnote_component c = {
                .size = sizeof c,
                .ecosystem = "golang",
                .name = g->path,
                .version = g->version && *g->version ? g->version : NULL,
                .checksum = g->sum && *g->sum ? g->sum : NULL,
                .source = dir ? "local" : NULL,
                .kind = "runtime",
                .replacement_name = r ? r->path : NULL,
                .replacement_version = r && r->version && *r->version ? r->version : NULL,
                .replacement_checksum = r && r->sum && *r->sum ? r->sum : NULL,
                .main = main,
        };
        return pn_embedded_add_component(m, &c, NULL);
}

int pn_embedded_from_go(const struct pn_go_build *b, pkgnote_embedded **ret) {
        pkgnote_embedded *m = pn_embedded_new();
        if (!m)
                return pn_oom();
        int r = pn_embedded_set_toolchain(m, b->go_version, b->path);
        if (r == 0 && b->main.path)
                r = add_go_module(m, &b->main, true);
        for (size_t i = 0; i < b->n_deps && r == 0; i++)
                r = add_go_module(m, &b->deps[i], false);
        for (size_t i = 0; i < b->n_settings && r == 0; i++)
                r = pn_embedded_add_setting(m, b->settings[i].key, b->settings[i].value);
        if (r < 0) {
                pkgnote_embedded_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Rust                                                                */

/* Crates sorted by what tells them apart (name, version, source), the
 * index breaking ties: the first of equal ones is the one kept. */
struct crate_ref {
        const struct pn_crate *c;
        size_t i;
};

static int cmp_crate(const void *a, const void *b) {
        const struct crate_ref *x = a, *y = b;
        int r = strcmp(x->c->name, y->c->name);
        if (r == 0)
                r = strcmp(x->c->version, y->c->version);
        if (r == 0)
                r = strcmp(x->c->source, y->c->source);
        return r ? r : (x->i > y->i) - (x->i < y->i);
}

static int cmp_edge(const void *a, const void *b) {
        const size_t *x = a, *y = b;
        if (x[0] != y[0])
                return (x[0] > y[0]) - (x[0] < y[0]);
        return (x[1] > y[1]) - (x[1] < y[1]);
}

static bool same_crate(const struct pn_crate *x, const struct pn_crate *y) {
        return !strcmp(x->name, y->name) && !strcmp(x->version, y->version) && !strcmp(x->source, y->source);
}

/* Each crate once (a hostile list may name one twice: its dependencies
 * then count as the first's): FIRST[i] the index of the first crate equal
 * to crate I. */
static int crates_dedup(const struct pn_crates *c, size_t *first) {
        struct crate_ref *order = malloc(c->n_crates * sizeof *order);
        if (!order)
                return pn_oom();
        for (size_t i = 0; i < c->n_crates; i++)
                order[i] = (struct crate_ref){&c->crates[i], i};
        qsort(order, c->n_crates, sizeof *order, cmp_crate);
        for (size_t k = 0; k < c->n_crates; k++) {
                size_t i = order[k].i;
                first[i] = k > 0 && same_crate(order[k - 1].c, order[k].c) ? first[order[k - 1].i] : i;
        }
        free(order);
        return 0;
}

int pn_embedded_add_crates(pkgnote_embedded *m, const struct pn_crates *c) {
        if (!c->n_crates)
                return 0;
        size_t *first = malloc(c->n_crates * sizeof *first), *at = malloc(c->n_crates * sizeof *at);
        size_t (*edges)[2] = NULL;
        size_t n_edges = 0;
        int r = first && at ? crates_dedup(c, first) : pn_oom();
        /* The root crate first, as Go's main module is: the program's
         * own component, then the others in the list's order.  (A root
         * listed twice is the first of its copies, marked main.) */
        size_t lead = r == 0 && c->root < c->n_crates ? first[c->root] : SIZE_MAX;
        for (size_t pass = 0; pass < 2 && r == 0; pass++)
                for (size_t i = 0; i < c->n_crates && r == 0; i++) {
                        const struct pn_crate *x = &c->crates[i];
                        if ((pass == 0) != (i == lead) || first[i] != i)
                                continue;
                        pkgnote_component comp = {
                                .size = sizeof comp,
                                .ecosystem = "cargo",
                                .name = x->name,
                                .version = x->version,
                                .source = x->source,
                                .kind = pn_crate_kind_name(x->kind),
                                .main = i == lead,
                        };
                        r = pn_embedded_add_component(m, &comp, &at[i]);
                }
        size_t n_deps = 0;
        for (size_t i = 0; i < c->n_crates && r == 0; i++)
                n_deps += c->crates[i].n_deps;
        if (r == 0 && n_deps && !(edges = malloc(n_deps * sizeof *edges)))
                r = pn_oom();
        for (size_t i = 0; i < c->n_crates && r == 0; i++)
                for (size_t k = 0; k < c->crates[i].n_deps; k++) {
                        size_t from = at[first[i]], to = at[first[c->crates[i].deps[k]]];
                        if (from != to)
                                edges[n_edges][0] = from, edges[n_edges++][1] = to;
                }
        if (r == 0 && n_edges)
                qsort(edges, n_edges, sizeof *edges, cmp_edge);
        for (size_t i = 0; i < n_edges && r == 0; i++)
                if (i == 0 || edges[i][0] != edges[i - 1][0] || edges[i][1] != edges[i - 1][1])
                        r = pn_embedded_add_edge(m, edges[i][0], edges[i][1]);
        free(edges);
        free(first);
        free(at);
        return r;
}

int pn_embedded_from_crates(const struct pn_crates *c, pkgnote_embedded **ret) {
        pkgnote_embedded *m = pn_embedded_new();
        if (!m)
                return pn_oom();
        int r = pn_embedded_add_crates(m, c);
        if (r < 0) {
                pkgnote_embedded_free(m);
                return r;
        }
        *ret = m;
        return 0;
}

/* ------------------------------------------------------------------ */
/* Reading an object                                                   */

int pn_embedded_read_go(pkgnote_object *e, pkgnote_embedded **ret) {
        int go = pkgnote_object_is_pe(e) ? 0 : pn_embedded_is_go(e);
        if (go <= 0)
                return go;
        struct pn_go_build b;
        /* A member of an archive read as a stream keeps only the ranges
         * its notes and these lists need (lib/09-scan-capture.c): what is
         * missing anyway is -ENODATA here, and no miss of the notes'
         * (which the scan reports as such). */
        bool missed = e->span_missed;
        int r = pn_go_build_read(e, &b);
        e->span_missed = missed;
        if (r <= 0)
                return r;
        r = pn_embedded_from_go(&b, ret);
        pn_go_build_done(&b);
        return r < 0 ? r : 1;
}

/* Whether E has a section named ".dep-v0": one pass over the table the
 * note walk read, the names told apart by their first bytes (few start
 * ".dep"), so that a tree of C objects costs a few instructions a
 * section. */
static bool has_crates_section(pkgnote_object *e) {
        const pkgnote_shdr *s;
        int n = pn_object_shdrs(e, &s);
        for (int i = 0; i < n; i++) {
                const char *name = s[i].name;
                if (name[0] == '.' && name[1] == 'd' && name[2] == 'e' && name[3] == 'p' && !strcmp(name, PN_CRATES_SECTION))
                        return true;
        }
        return false; /* also without a readable table: the notes' problem, said once */
}

int pn_embedded_read_crates(pkgnote_object *e, pkgnote_embedded **into) {
        /* The section table was read when the notes were walked: looking
         * for the section among its names costs a C object nothing else. */
        if (pkgnote_object_is_pe(e) || !has_crates_section(e))
                return 0;
        struct pn_crates c;
        bool missed = e->span_missed;
        int r = pn_crates_read(e, &c);
        e->span_missed = missed;
        if (r <= 0)
                return r;
        if (!*into) {
                r = pn_embedded_from_crates(&c, into);
        } else {
                /* added to a copy, so that a failure leaves *INTO as it was */
                pkgnote_embedded *m = pn_embedded_dup(*into);
                r = m ? pn_embedded_add_crates(m, &c) : pn_oom();
                if (r == 0) {
                        pkgnote_embedded_free(*into);
                        *into = m;
                } else
                        pkgnote_embedded_free(m);
        }
        pn_crates_done(&c);
        return r < 0 ? r : 1;
}

int pn_embedded_read(pkgnote_object *e, pkgnote_embedded **ret) {
        pkgnote_embedded *m = NULL;
        int r = pn_embedded_read_go(e, &m);
        if (r >= 0) {
                int k = pn_embedded_read_crates(e, &m);
                r = k < 0 ? k : r > 0 || k > 0;
        }
        if (r <= 0) {
                pkgnote_embedded_free(m);
                return r;
        }
        *ret = m;
        return 1;
}
PKGNOTE_PUBLIC int pkgnote_embedded_read(pkgnote_object *e, pkgnote_embedded **ret) {
        if (!e || !ret)
                return pn_error(-EINVAL, "pkgnote_embedded_read() without an object or a result");
        return pn_embedded_read(e, ret);
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */

PKGNOTE_PUBLIC const char *pkgnote_embedded_toolchain(const pkgnote_embedded *m) {
        return m->toolchain;
}
PKGNOTE_PUBLIC const char *pkgnote_embedded_package_path(const pkgnote_embedded *m) {
        return m->package_path;
}
PKGNOTE_PUBLIC size_t pkgnote_embedded_component_count(const pkgnote_embedded *m) {
        return m->n_c;
}

PKGNOTE_PUBLIC int pkgnote_embedded_component(const pkgnote_embedded *m, size_t i, pkgnote_component *c) {
        if (!c || c->size < offsetof(pkgnote_component, name))
                return pn_error(-EINVAL, "pkgnote_component without its size");
        if (i >= m->n_c)
                return pn_error(-ENOENT, "no component %zu (there are %zu)", i, m->n_c);
        const struct component *x = &m->c[i];
        pkgnote_component t = {.size = c->size, .ecosystem = x->f[F_ECOSYSTEM], .name = x->f[F_NAME],
                               .version = x->f[F_VERSION], .checksum = x->f[F_CHECKSUM], .source = x->f[F_SOURCE],
                               .kind = x->f[F_KIND], .purl = x->f[F_PURL], .replacement_name = x->f[F_RNAME],
                               .replacement_version = x->f[F_RVERSION], .replacement_checksum = x->f[F_RCHECKSUM],
                               .main = x->main};
        memcpy(c, &t, c->size < sizeof t ? c->size : sizeof t);
        return 1;
}

PKGNOTE_PUBLIC size_t pkgnote_embedded_edge_count(const pkgnote_embedded *m) {
        return m->n_edges;
}
PKGNOTE_PUBLIC int pkgnote_embedded_edge(const pkgnote_embedded *m, size_t i, size_t *from, size_t *to) {
        if (i >= m->n_edges)
                return pn_error(-ENOENT, "no dependency edge %zu (there are %zu)", i, m->n_edges);
        if (from)
                *from = m->edges[i][0];
        if (to)
                *to = m->edges[i][1];
        return 1;
}

PKGNOTE_PUBLIC size_t pkgnote_embedded_setting_count(const pkgnote_embedded *m) {
        return m->n_s;
}
PKGNOTE_PUBLIC int pkgnote_embedded_setting(const pkgnote_embedded *m, size_t i, const char **key, const char **value) {
        if (i >= m->n_s)
                return pn_error(-ENOENT, "no build setting %zu (there are %zu)", i, m->n_s);
        if (key)
                *key = m->s[i].key;
        if (value)
                *value = m->s[i].value;
        return 1;
}
