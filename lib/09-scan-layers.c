/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Archive entries and the merge of image layers.
 *
 * Every member of an archive or image layer becomes an entry of its
 * layer, with a normalised path.  Image layers are merged at the end,
 * bottom to top, with whiteouts applied (the OCI image spec,
 * "Representing Changes ... Whiteouts"), since the manifest giving the
 * order often comes last; a plain archive is one layer.  The ELF objects
 * of the entries left over go to the scan, and the library names they
 * ask for are resolved through the merged tree's symbolic links.
 */
#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "07-check-artefact.h"
#include "07-check-resolve.h"
#include "09-scan-private.h"

/* ------------------------------------------------------------------ */
/* Archive entries, layers and their merge                             */

void pn_layer_clear(struct layer *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->e[i].path);
                free(l->e[i].target);
                free(l->e[i].data);
                if (!l->e[i].taken)
                        pn_scan_object_free(l->e[i].obj);
        }
        free(l->e);
        free(l->name);
        memset(l, 0, sizeof *l);
}

struct entry *pn_layer_add(struct layer *l, const char *path, int kind) {
        if (l->n >= PKGNOTE_MAX_SCAN_ENTRIES) {
                pn_error(-E2BIG, "more than %u archive members", PKGNOTE_MAX_SCAN_ENTRIES);
                return NULL;
        }
        if (PN_GROW(l->e, l->cap, l->n + 1) < 0)
                return NULL;
        struct entry *e = &l->e[l->n];
        memset(e, 0, sizeof *e);
        if (!(e->path = strdup(path))) {
                pn_oom();
                return NULL;
        }
        e->kind = (uint8_t)kind;
        l->n++;
        return e;
}

int pn_layer_add_symlink(struct layer *l, const char *path, const char *target, bool keep) {
        struct entry *e = pn_layer_add(l, path, E_SYMLINK);
        if (!e)
                return -ENOMEM;
        size_t n = target ? strlen(target) : 0;
        /* Past the limits the link stays, dangling: names through it are
         * left unresolved, as they were before links were followed. */
        if (!keep || !n || n > PKGNOTE_MAX_SCAN_PATH || n > PN_LAYER_MAX_LINK_BYTES - l->link_bytes)
                return 0;
        if (!(e->target = strdup(target)))
                return -ENOMEM;
        l->link_bytes += n;
        return 0;
}

/* The merged file system, as a tree of path components.  Each node is
 * a component under its parent (found through a hash of the parent and
 * the name) and lists its children, so that a whiteout or an opaque
 * directory removes exactly the subtree below it, in time proportional
 * to what it removes: every node is created once and removed at most
 * once, however many whiteouts a layer holds.  Node 0 is the root; as a
 * link, 0 means none (the root is nobody's child). */
struct node {
        const char *name; /* not terminated: a component of an entry's path */
        uint32_t len;
        uint32_t parent, child, next, prev;
        bool dead; /* removed, with its subtree; new nodes take its place */
        const struct entry *e; /* NULL: a directory only implied by paths below it */
};

struct tree {
        struct node *n;
        size_t n_nodes, cap_nodes;
        uint32_t *slots; /* node index + 1; 0 is empty */
        size_t cap_slots, used_slots; /* used_slots counts dead nodes until a rehash */
};

static uint64_t hash_child(uint32_t parent, const char *name, size_t len) {
        uint64_t h = 0xcbf29ce484222325ULL ^ parent;
        for (size_t i = 0; i < len; i++)
                h = (h ^ (uint8_t)name[i]) * 0x100000001b3ULL;
        return h ^ (h >> 29);
}

/* The live child NAME of PARENT, or 0. */
static uint32_t tree_child(const struct tree *t, uint32_t parent, const char *name, size_t len) {
        if (t->cap_slots == 0)
                return 0;
        size_t mask = t->cap_slots - 1;
        for (size_t i = (size_t)hash_child(parent, name, len) & mask; t->slots[i]; i = (i + 1) & mask) {
                const struct node *x = &t->n[t->slots[i] - 1];
                if (!x->dead && x->parent == parent && x->len == len && memcmp(x->name, name, len) == 0)
                        return t->slots[i] - 1;
        }
        return 0;
}

static void slot_put(struct tree *t, uint32_t k) {
        const struct node *x = &t->n[k];
        size_t mask = t->cap_slots - 1, i = (size_t)hash_child(x->parent, x->name, x->len) & mask;
        while (t->slots[i])
                i = (i + 1) & mask;
        t->slots[i] = k + 1;
        t->used_slots++;
}

/* A new child NAME of PARENT, first in its list; 0 without memory. */
static uint32_t tree_add(struct tree *t, uint32_t parent, const char *name, size_t len) {
        if (t->n_nodes >= UINT32_MAX - 1)
                return 0;
        if (PN_GROW(t->n, t->cap_nodes, t->n_nodes + 1) < 0)
                return 0;
        if ((t->used_slots + 1) * 2 > t->cap_slots) {
                /* Rehash the live nodes only, dropping the removed ones. */
                size_t cap = t->cap_slots ? t->cap_slots : 1024;
                size_t live = 0;
                for (size_t i = 1; i < t->n_nodes; i++)
                        live += !t->n[i].dead;
                while ((live + 1) * 4 > cap)
                        cap *= 2;
                uint32_t *slots = calloc(cap, sizeof *slots);
                if (!slots)
                        return 0;
                free(t->slots);
                t->slots = slots;
                t->cap_slots = cap;
                t->used_slots = 0;
                for (size_t i = 1; i < t->n_nodes; i++)
                        if (!t->n[i].dead)
                                slot_put(t, (uint32_t)i);
        }
        uint32_t k = (uint32_t)t->n_nodes++;
        struct node *p = &t->n[parent];
        t->n[k] = (struct node){.name = name, .len = (uint32_t)len, .parent = parent, .next = p->child};
        if (p->child)
                t->n[p->child].prev = k;
        p->child = k;
        slot_put(t, k);
        return k;
}

/* The node of PATH (normalised; "" is the root): 1 and *RET when found
 * or, with CREATE, made (with the directories above it); 0 when absent;
 * -ENOMEM. */
static int tree_find(struct tree *t, const char *path, bool create, uint32_t *ret) {
        uint32_t cur = 0;
        for (const char *p = path; *p;) {
                const char *c = p;
                while (*p && *p != '/')
                        p++;
                uint32_t k = tree_child(t, cur, c, (size_t)(p - c));
                if (!k) {
                        if (!create)
                                return 0;
                        if (!(k = tree_add(t, cur, c, (size_t)(p - c))))
                                return -ENOMEM;
                }
                cur = k;
                if (*p)
                        p++;
        }
        *ret = cur;
        return 1;
}

/* Removes node X (not the root) and everything below it; returns the
 * number of entries removed. */
static uint64_t tree_kill(struct tree *t, uint32_t x) {
        struct node *n = &t->n[x];
        if (n->prev)
                t->n[n->prev].next = n->next;
        else
                t->n[n->parent].child = n->next;
        if (n->next)
                t->n[n->next].prev = n->prev;
        n->next = n->prev = 0;
        /* Pre-order walk of the detached subtree, without recursion (paths
         * may be thousands of components deep). */
        uint64_t removed = 0;
        for (uint32_t cur = x;;) {
                t->n[cur].dead = true;
                removed += t->n[cur].e != NULL;
                if (t->n[cur].child) {
                        cur = t->n[cur].child;
                        continue;
                }
                while (cur != x && !t->n[cur].next)
                        cur = t->n[cur].parent;
                if (cur == x)
                        return removed;
                cur = t->n[cur].next;
        }
}

/* Removes everything strictly below X; returns the number of entries. */
static uint64_t tree_kill_below(struct tree *t, uint32_t x) {
        uint64_t removed = 0;
        while (t->n[x].child)
                removed += tree_kill(t, t->n[x].child);
        return removed;
}

/* The entry at PATH, or NULL. */
static const struct entry *tree_get(struct tree *t, const char *path) {
        uint32_t k;
        return tree_find(t, path, false, &k) > 0 ? t->n[k].e : NULL;
}

/* The merged tree as a root for the package databases. */
struct merged {
        struct tree *t;
        const struct pn_merge_hook *hook;
};

static int merged_read(void *u, const char *rel, size_t max, void **data, size_t *len) {
        const struct merged *m = u;
        const struct entry *e = tree_get(m->t, rel);
        if (e && e->kind == E_HARDLINK)
                e = e->resolved;
        if (!e || e->kind != E_FILE)
                return -ENOENT;
        if (e->size > max)
                return -E2BIG;
        if (!e->data && m->hook && m->hook->read)
                return m->hook->read(m->hook->u, e, max, data, len);
        if (!e->data && e->size > 0)
                return -EIO; /* not kept: it could not be read */
        char *p = malloc(e->len + 1);
        if (!p)
                return -ENOMEM;
        if (e->len)
                memcpy(p, e->data, e->len);
        p[e->len] = 0;
        *data = p;
        *len = e->len;
        return 0;
}

static int merged_list(void *u, const char *rel, int (*each)(void *cu, int dirfd, const char *name), void *cu) {
        const struct merged *m = u;
        uint32_t k;
        if (tree_find(m->t, rel, false, &k) <= 0)
                return -ENOENT;
        char name[256];
        int r = 0;
        for (uint32_t c = m->t->n[k].child; c && r == 0; c = m->t->n[c].next) {
                const struct node *x = &m->t->n[c];
                if (x->dead || !x->e || (x->e->kind != E_FILE && x->e->kind != E_HARDLINK) || x->len >= sizeof name)
                        continue;
                memcpy(name, x->name, x->len);
                name[x->len] = 0;
                r = each(cu, -1, name);
        }
        return r;
}

/* ABS walked in the merged tree from the root, each symbolic link's text
 * put in front of what is left of the path, an absolute one from the
 * root again, ".." of the root the root itself (as for a container,
 * whose "/" the image is), at most PN_LAYER_MAX_FOLLOW links: the node
 * reached into *RET, true; false when the path leads nowhere. */
static bool merged_walk(const struct tree *t, const char *abs, uint32_t *ret) {
        /* What is left to walk sits at the end of BUF; a link's text goes
         * right before it, into the room the walked components freed. */
        char buf[2 * PKGNOTE_MAX_SCAN_PATH + 2];
        size_t len = strlen(abs);
        if (len >= sizeof buf)
                return false;
        char *rest = buf + sizeof buf - len - 1;
        memcpy(rest, abs, len + 1);
        uint32_t cur = 0;
        unsigned follow = 0;
        for (;;) {
                while (*rest == '/')
                        rest++;
                if (!*rest)
                        break;
                const char *c = rest;
                size_t cl = strcspn(rest, "/");
                rest += cl; /* at the "/" after the component, or the end */
                if (cl == 1 && c[0] == '.')
                        continue;
                if (cl == 2 && c[0] == '.' && c[1] == '.') {
                        cur = t->n[cur].parent; /* the root's is the root */
                        continue;
                }
                uint32_t k = tree_child(t, cur, c, cl);
                const struct entry *e = k ? t->n[k].e : NULL;
                if (!k)
                        return false;
                if (e && e->kind == E_SYMLINK) {
                        size_t tl = e->target ? strlen(e->target) : 0;
                        if (!tl || ++follow > PN_LAYER_MAX_FOLLOW || tl > (size_t)(rest - buf))
                                return false;
                        rest -= tl;
                        memcpy(rest, e->target, tl);
                        if (e->target[0] == '/')
                                cur = 0;
                        continue; /* a relative one from the link's directory, CUR */
                }
                if (e && e->kind != E_DIR && *rest)
                        return false; /* a file as a directory */
                cur = k;
        }
        *ret = cur;
        return true;
}

/* The merged tree as a root for library names (pn_libroot_find): the
 * regular file ABS reaches. */
static int merged_find(void *u, const char *abs, char **ret) {
        const struct tree *t = ((const struct merged *)u)->t;
        uint32_t cur;
        if (!merged_walk(t, abs, &cur))
                return 0;
        const struct entry *e = t->n[cur].e;
        if (!e || !(e->kind == E_FILE || (e->kind == E_HARDLINK && e->resolved)))
                return 0;
        *ret = pn_scan_join("/", e->path);
        return *ret ? 1 : -ENOMEM;
}

/* The merged tree as the loader's root (lib/07-check-resolve.c): a
 * directory, named by its node, and its entries' names. */
static int merged_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                      void (*each)(void *cu, const char *name), void *cu) {
        const struct tree *t = ((const struct merged *)u)->t;
        uint32_t k;
        if (!merged_walk(t, abs, &k))
                return -ENOENT;
        if (t->n[k].e && t->n[k].e->kind != E_DIR)
                return -ENOTDIR;
        if (!want(cu, (const uint64_t[2]){k, 0}))
                return 0;
        char name[256];
        for (uint32_t c = t->n[k].child; c; c = t->n[c].next) {
                const struct node *x = &t->n[c];
                if (x->dead || x->len >= sizeof name)
                        continue;
                memcpy(name, x->name, x->len);
                name[x->len] = 0;
                each(cu, name);
        }
        return 0;
}

/* A file of the merged tree (ld.so.conf), its links followed. */
static int merged_rread(void *u, const char *abs, size_t max, void **data, size_t *len) {
        char *p = NULL;
        int r = merged_find(u, abs, &p);
        if (r <= 0)
                return r < 0 ? r : -ENOENT;
        r = merged_read(u, p + 1, max, data, len);
        free(p);
        return r;
}

/* ------------------------------------------------------------------ */
/* deps --verify: the merged tree as an artefact                       */

int pn_scan_verify_keep(const pkgnote_scan *s, const uint8_t *head, size_t n, uint64_t size) {
        if (n < SELFMAG || memcmp(head, ELFMAG, SELFMAG) != 0)
                return 0;
        if (size > s->opts.max_bytes)
                return pn_error(-EFBIG, "an ELF file of %llu bytes, more than the limit of the artefact (%llu)",
                                (unsigned long long)size, (unsigned long long)s->opts.max_bytes);
        return 1;
}

/* The content of file entry E, its kept bytes taken: into *RET. */
static int verify_content(struct pn_artefact *a, struct entry *e, size_t *ret) {
        uint8_t *data = (uint8_t *)e->data;
        size_t len = e->len;
        e->data = NULL, e->len = 0;
        return pn_artefact_add_content(a, data, len, ret);
}

/* Builds s->artefact from the merged tree T: its nodes in the order they
 * were made (a directory before what is in it), hard links after. */
static int verify_fill(pkgnote_scan *s, size_t input, struct tree *t) {
        struct pn_artefact *a = s->artefact;
        size_t *node = calloc(t->n_nodes, sizeof *node), *ino = calloc(t->n_nodes, sizeof *ino);
        char name[PKGNOTE_MAX_SCAN_PATH + 1];
        int r = node && ino ? 0 : pn_oom();
        for (size_t i = 1; r == 0 && i < t->n_nodes; i++) {
                const struct node *x = &t->n[i];
                struct entry *e = (struct entry *)x->e;
                node[i] = SIZE_MAX;
                if (x->dead || node[x->parent] == SIZE_MAX || x->len > PKGNOTE_MAX_SCAN_PATH)
                        continue;
                memcpy(name, x->name, x->len);
                name[x->len] = 0;
                /* A link whose text was not kept (past the limits) leads
                 * nowhere, as one that is no link. */
                int type = !e || e->kind == E_DIR ? PN_NODE_DIR
                         : e->kind == E_FILE || e->kind == E_HARDLINK ? PN_NODE_FILE
                         : e->kind == E_SYMLINK && e->target && *e->target && strlen(e->target) < PATH_MAX ? PN_NODE_LINK
                         : PN_NODE_OTHER;
                if (pn_artefact_type(a, node[x->parent]) != PN_NODE_DIR) {
                        char path[PKGNOTE_MAX_SCAN_PATH + 2];
                        if (pn_artefact_path(a, node[x->parent], path, sizeof path))
                                pn_scan_add_problem(s, input, path, -ENOTDIR,
                                                    "entries below something that is no directory: left out");
                        continue;
                }
                size_t k;
                if ((r = pn_artefact_add(a, node[x->parent], name, type, &k)) == -EINVAL) {
                        /* A name no directory can hold (longer than NAME_MAX). */
                        pn_scan_add_problem(s, input, e ? e->path : name, r, "%s: left out", pkgnote_last_error());
                        r = 0;
                        continue;
                }
                if (r < 0)
                        break;
                node[i] = k;
                if (type == PN_NODE_LINK)
                        r = pn_artefact_set_target(a, k, e->target);
                else if (type == PN_NODE_FILE && e->kind == E_FILE && (r = verify_content(a, e, &ino[i])) == 0)
                        pn_artefact_set_inode(a, k, ino[i]);
        }
        /* Hard links: the inode of the file they name where it is in the
         * tree, else (replaced since) a content of its own. */
        for (size_t i = 1; r == 0 && i < t->n_nodes; i++) {
                const struct node *x = &t->n[i];
                if (x->dead || node[i] == SIZE_MAX || !x->e || x->e->kind != E_HARDLINK)
                        continue;
                struct entry *to = (struct entry *)x->e->resolved;
                uint32_t k;
                size_t in;
                if (to && tree_find(t, to->path, false, &k) > 0 && t->n[k].e == to && node[k] != SIZE_MAX)
                        in = ino[k];
                else if ((r = to ? verify_content(a, to, &in) : pn_artefact_add_content(a, NULL, 0, &in)) < 0)
                        break;
                pn_artefact_set_inode(a, node[i], in);
        }
        free(node);
        free(ino);
        return r;
}

/* Applies LAYERS bottom to top and adds what is left to the scan. */
int pn_merge_layers(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, struct layer **layers,
                    size_t n, const struct pn_merge_hook *hook) {
        struct tree t = {0};
        int r = 0;
        pthread_mutex_lock(&s->lock);
        size_t first = s->n_objects;
        pthread_mutex_unlock(&s->lock);
        t.n = malloc(1024 * sizeof *t.n);
        if (!t.n)
                return pn_oom();
        t.cap_nodes = 1024;
        t.n[0] = (struct node){.name = ""};
        t.n_nodes = 1;
        for (size_t li = 0; li < n && r >= 0; li++) {
                struct layer *l = layers[li];
                /* Whiteouts hide lower layers only, wherever they lie in
                 * this layer's stream: apply them before its entries. */
                for (size_t i = 0; i < l->n; i++) {
                        const struct entry *e = &l->e[i];
                        uint32_t k;
                        if (e->kind != E_WHITEOUT && e->kind != E_OPAQUE)
                                continue;
                        if (tree_find(&t, e->path, false, &k) <= 0)
                                continue;
                        if (e->kind == E_OPAQUE) /* the root too: ".wh..wh..opq" at the top */
                                s->whited_out += tree_kill_below(&t, k);
                        else if (k != 0)
                                s->whited_out += tree_kill(&t, k);
                }
                for (size_t i = 0; i < l->n && r >= 0; i++) {
                        struct entry *e = &l->e[i];
                        uint32_t k;
                        if (e->kind == E_WHITEOUT || e->kind == E_OPAQUE || !*e->path)
                                continue;
                        if ((r = tree_find(&t, e->path, true, &k)) < 0)
                                break;
                        if (e->kind != E_DIR)
                                tree_kill_below(&t, k); /* a directory replaced by a file */
                        if (e->kind == E_HARDLINK) {
                                const struct entry *to = tree_get(&t, e->target);
                                if (to && to->kind == E_HARDLINK)
                                        to = to->resolved;
                                if (!to || to->kind != E_FILE) {
                                        pn_scan_add_problem(s, input, e->path, -ENOENT,
                                                    "hard link to a missing file, counted as an empty file");
                                        to = NULL;
                                }
                                e->resolved = to;
                        }
                        t.n[k].e = e;
                }
        }
        if (r < 0) {
                free(t.n);
                free(t.slots);
                return pn_oom();
        }
        if (s->artefact) {
                /* deps --verify: the first image only; more are told
                 * by the caller. */
                if (s->merges++ == 0)
                        r = verify_fill(s, input, &t);
                free(t.n);
                free(t.slots);
                return r;
        }
        /* Hard links first: their copies read objects that a plain entry
         * hands over below. */
        for (int pass = 0; pass < 2; pass++) {
                if (pass == 1 && hook)
                        hook->wait(hook->u);
                for (size_t i = 1; i < t.n_nodes; i++) {
                        struct entry *e = (struct entry *)t.n[i].e;
                        if (!e || t.n[i].dead)
                                continue;
                        if (pass == 0 && hook && e->kind == E_FILE)
                                hook->fill(hook->u, e);
                        if (pass == 0) {
                                switch (e->kind) {
                                case E_FILE: atomic_fetch_add(&s->c.files, 1); atomic_fetch_add(&s->c.bytes, e->size); break;
                                case E_HARDLINK:
                                        atomic_fetch_add(&s->c.files, 1);
                                        atomic_fetch_add(&s->c.bytes, e->resolved ? e->resolved->size : 0);
                                        break;
                                case E_DIR: atomic_fetch_add(&s->c.directories, 1); break;
                                case E_SYMLINK: atomic_fetch_add(&s->c.symlinks, 1); break;
                                default: atomic_fetch_add(&s->c.special, 1); break;
                                }
                        }
                        char *abs = NULL;
                        if (pass == 0 && e->kind == E_HARDLINK && e->resolved && e->resolved->obj &&
                            e->resolved->obj->elf && (abs = pn_scan_join("/", e->path))) {
                                struct pkgnote_scan_object *o = pn_scan_object_clone(e->resolved->obj, abs);
                                if (o) {
                                        o->image = image;
                                        pn_scan_add_object(s, o);
                                }
                        } else if (pass == 1 && e->kind == E_FILE && e->obj && e->obj->elf) {
                                /* The first image takes the object; later
                                 * ones sharing the layer get copies. */
                                struct pkgnote_scan_object *o = e->taken ? pn_scan_object_clone(e->obj, e->obj->path) : e->obj;
                                e->taken = true;
                                if (o) {
                                        o->image = image;
                                        if (pn_scan_add_object(s, o) < 0 && o == e->obj)
                                                e->obj = NULL; /* freed */
                                }
                        }
                        free(abs);
                }
        }
        struct merged m = {&t, hook};
        pn_scan_attribute(s, input, image, &(struct pn_rootfs){merged_read, merged_list, &m}, first, 0);
        struct pn_resolve_root root = {merged_dir, merged_rread, &m};
        r = pn_scan_resolve_libs_in(s, input, image, &root, merged_find, &m, "", first);
        free(t.n);
        free(t.slots);
        return r;
}

