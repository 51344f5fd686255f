/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Archive entries and the merge of image layers.
 *
 * Every member of an archive or image layer becomes an entry of its
 * layer, with a normalised path.  Image layers are merged at the end,
 * bottom to top, with whiteouts applied (the OCI image spec,
 * "Representing Changes ... Whiteouts"), since the manifest giving the
 * order often comes last; a plain archive is one layer.  The ELF objects
 * of the entries left over go to the scan.
 */
#include <stdlib.h>
#include <string.h>

#include "scan-private.h"

/* ------------------------------------------------------------------ */
/* Archive entries, layers and their merge                             */

/* Normalises a path from an archive: no leading "/" or "./", no empty or
 * "." components; refuses ".." (it could only point outside the root)
 * and over-long paths.  Returns the length ("" is the root itself). */
int pn_scan_normalize_path(const char *in, char *out, size_t size) {
        size_t o = 0;
        const char *p = in;
        while (*p) {
                while (*p == '/')
                        p++;
                const char *c = p;
                while (*p && *p != '/')
                        p++;
                size_t len = (size_t)(p - c);
                if (len == 0 || (len == 1 && c[0] == '.'))
                        continue;
                if (len == 2 && c[0] == '.' && c[1] == '.')
                        return pn_error(-EXDEV, "path has a \"..\" component");
                if (o + (o > 0) + len + 1 > size || o + (o > 0) + len > PKGNOTE_MAX_SCAN_PATH)
                        return pn_error(-E2BIG, "path longer than %u bytes", PKGNOTE_MAX_SCAN_PATH);
                if (o > 0)
                        out[o++] = '/';
                memcpy(out + o, c, len);
                o += len;
        }
        out[o] = 0;
        return (int)o;
}

void pn_layer_clear(struct layer *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->e[i].path);
                free(l->e[i].target);
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
        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 256;
                struct entry *x = realloc(l->e, cap * sizeof *x);
                if (!x)
                        return NULL;
                l->e = x;
                l->cap = cap;
        }
        struct entry *e = &l->e[l->n];
        memset(e, 0, sizeof *e);
        if (!(e->path = strdup(path))) {
                pn_error(-ENOMEM, "out of memory");
                return NULL;
        }
        e->kind = (uint8_t)kind;
        l->n++;
        return e;
}

/* Path -> entry, open addressing; a removed path keeps its slot with a
 * NULL entry. */
struct map {
        const char **keys;
        const struct entry **vals;
        size_t cap, used;
};

static uint64_t hash_str(const char *s) {
        uint64_t h = 0xcbf29ce484222325ULL;
        for (; *s; s++)
                h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
        return h;
}

static size_t map_slot(const struct map *m, const char *key) {
        size_t i = (size_t)hash_str(key) & (m->cap - 1);
        while (m->keys[i] && strcmp(m->keys[i], key) != 0)
                i = (i + 1) & (m->cap - 1);
        return i;
}

static int map_set(struct map *m, const char *key, const struct entry *v) {
        if ((m->used + 1) * 2 > m->cap) {
                struct map n = {.cap = m->cap ? 2 * m->cap : 1024};
                n.keys = calloc(n.cap, sizeof *n.keys);
                n.vals = calloc(n.cap, sizeof *n.vals);
                if (!n.keys || !n.vals) {
                        free(n.keys);
                        free(n.vals);
                        return -ENOMEM;
                }
                for (size_t i = 0; i < m->cap; i++)
                        if (m->keys[i] && m->vals[i]) {
                                size_t k = map_slot(&n, m->keys[i]);
                                n.keys[k] = m->keys[i];
                                n.vals[k] = m->vals[i];
                                n.used++;
                        }
                free(m->keys);
                free(m->vals);
                *m = n;
        }
        size_t i = map_slot(m, key);
        if (!m->keys[i]) {
                m->keys[i] = key;
                m->used++;
        }
        m->vals[i] = v;
        return 0;
}

static const struct entry *map_get(const struct map *m, const char *key) {
        if (m->cap == 0)
                return NULL;
        size_t i = map_slot(m, key);
        return m->keys[i] ? m->vals[i] : NULL;
}

/* Removes everything strictly below DIR; returns the number removed. */
static uint64_t map_del_under(struct map *m, const char *dir) {
        size_t len = strlen(dir);
        uint64_t n = 0;
        for (size_t i = 0; i < m->cap; i++)
                if (m->vals[i] && strncmp(m->keys[i], dir, len) == 0 && m->keys[i][len] == '/') {
                        m->vals[i] = NULL;
                        n++;
                }
        return n;
}

static uint64_t map_del(struct map *m, const char *key) {
        if (m->cap == 0)
                return 0;
        size_t i = map_slot(m, key);
        if (!m->keys[i] || !m->vals[i])
                return 0;
        m->vals[i] = NULL;
        return 1;
}

/* Applies LAYERS bottom to top and adds what is left to the scan. */
int pn_merge_layers(pkgnote_scan *s, size_t input, struct layer **layers, size_t n) {
        struct map m = {0};
        int r = 0;
        for (size_t li = 0; li < n && r >= 0; li++) {
                struct layer *l = layers[li];
                /* Whiteouts hide lower layers only, wherever they lie in
                 * this layer's stream: apply them before its entries. */
                for (size_t i = 0; i < l->n; i++) {
                        const struct entry *e = &l->e[i];
                        if (e->kind == E_WHITEOUT)
                                s->whited_out += map_del(&m, e->path) + map_del_under(&m, e->path);
                        else if (e->kind == E_OPAQUE)
                                s->whited_out += map_del_under(&m, e->path);
                }
                for (size_t i = 0; i < l->n && r >= 0; i++) {
                        struct entry *e = &l->e[i];
                        if (e->kind == E_WHITEOUT || e->kind == E_OPAQUE)
                                continue;
                        const struct entry *old = map_get(&m, e->path);
                        if (old && old->kind == E_DIR && e->kind != E_DIR)
                                map_del_under(&m, e->path); /* a directory replaced by a file */
                        if (e->kind == E_HARDLINK) {
                                const struct entry *t = map_get(&m, e->target);
                                if (t && t->kind == E_HARDLINK)
                                        t = t->resolved;
                                if (!t || t->kind != E_FILE) {
                                        pn_scan_add_problem(s, input, e->path, -ENOENT,
                                                    "hard link to a missing file, counted as an empty file");
                                        t = NULL;
                                }
                                e->resolved = t;
                        }
                        r = map_set(&m, e->path, e);
                }
        }
        if (r < 0) {
                free(m.keys);
                free(m.vals);
                return pn_error(-ENOMEM, "out of memory");
        }
        /* Hard links first: their copies read objects that a plain entry
         * hands over below. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < m.cap; i++) {
                        struct entry *e = (struct entry *)m.vals[i];
                        if (!e)
                                continue;
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
                                if (o)
                                        pn_scan_add_object(s, o);
                        } else if (pass == 1 && e->kind == E_FILE && e->obj && e->obj->elf) {
                                e->taken = true;
                                pn_scan_add_object(s, e->obj);
                        }
                        free(abs);
                }
        free(m.keys);
        free(m.vals);
        return 0;
}

