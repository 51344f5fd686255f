/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Local container stores: the images podman, buildah and CRI-O keep in
 * containers/storage ("containers-storage:" references).
 *
 * A store (its "graph root") holds, per storage driver, an image list
 * (DRIVER-images/images.json: id, names, digest, top layer; each image's
 * manifest and configuration beside it, as "big data" files), a layer
 * list (DRIVER-layers/layers.json: id and parent) and the layers' files:
 *   vfs      vfs/dir/LAYER holds the whole filesystem of that layer,
 *            its parents' files included;
 *   overlay  overlay/LAYER/diff holds what the layer changed: a deleted
 *            file is a character device 0/0, a directory that hides the
 *            lower layers' is marked by the xattr trusted.overlay.opaque
 *            (user.overlay.opaque when rootless) = "y".
 * Both lists are read under the store's own read locks (fcntl() record
 * locks on layers.lock and images.lock, which podman takes for writing
 * while it changes them), so a store being written is read before or
 * after the change, never in between.  Files are read without following
 * symbolic links, and ids must be plain hex: nothing a store says leads
 * outside it.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "01-base-dir.h"
#include "02-elf-const.h"
#include "03-model-json.h"
#include "09-scan-private.h"

#define MAX_STORE_LIST (64u << 20) /* images.json, layers.json */
#define LOCK_WAIT_MS 10000         /* for a writer to finish */
#define MAX_DEPTH 256              /* directories in a layer's diff, each open while below */

/* ---- files below a directory ---- */

/* ---- the store ---- */

struct store {
        pkgnote_scan *s;
        size_t input;
        const char *display;
        char *root;        /* the graph root */
        const char *given; /* the store as the reference named it, or NULL */
        char driver[16];
        int fd;            /* the graph root */
        int locks[2];
        json_t *images, *layers;
        struct lref {
                const char *id;
                json_t *layer;
        } *by_id; /* the layers with an id, sorted by it */
        size_t n_by_id;
        struct pool pool;
        bool pool_on;
        /* overlay: the layers read so far, by id */
        struct olayer {
                char id[65];
                int fd;  /* its diff directory, while the merge reads files */
                struct layer l;
        } *ol;
        size_t n_ol, cap_ol;
};

static const char *str_or_empty(const char *s) {
        return s ? s : "";
}

static bool is_id(const char *s) {
        return s && strlen(s) == 64 && pn_is_hex(s, 64);
}

/* The value of KEY in the [storage] table of the TOML file PATH, if set
 * to a plain string (what containers-storage.conf(5) uses); malloc()ed. */
static char *conf_get(const char *path, const char *key) {
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char line[4096], *val = NULL;
        bool in_storage = false;
        while (!val && fgets(line, sizeof line, f)) {
                char *p = line + strspn(line, " \t");
                if (*p == '[') {
                        in_storage = !strncmp(p, "[storage]", 9);
                        continue;
                }
                size_t k = strlen(key);
                if (!in_storage || strncmp(p, key, k) != 0)
                        continue;
                p += k + strspn(p + k, " \t");
                if (*p++ != '=')
                        continue;
                p += strspn(p, " \t");
                if (*p != '"')
                        continue;
                char *end = strchr(p + 1, '"');
                if (end && end > p + 1)
                        val = strndup(p + 1, (size_t)(end - p - 1));
        }
        fclose(f);
        return val;
}

/* The user's store and driver as containers-storage.conf(5) gives them:
 * $CONTAINERS_STORAGE_CONF, else root's /etc/containers/storage.conf (or
 * /usr/share/containers/storage.conf), a user's
 * $XDG_CONFIG_HOME/containers/storage.conf; by default
 * /var/lib/containers/storage for root, else
 * $XDG_DATA_HOME/containers/storage. */
static int default_store(struct store *st, char **driver) {
        bool root = geteuid() == 0;
        const char *home = getenv("HOME"), *env = getenv("CONTAINERS_STORAGE_CONF");
        char *conf = NULL;
        if (env && *env)
                conf = strdup(env);
        else if (root)
                conf = strdup(access("/etc/containers/storage.conf", R_OK) == 0 ? "/etc/containers/storage.conf"
                                                                                  : "/usr/share/containers/storage.conf");
        else if (getenv("XDG_CONFIG_HOME") && *getenv("XDG_CONFIG_HOME"))
                (void)!asprintf(&conf, "%s/containers/storage.conf", getenv("XDG_CONFIG_HOME"));
        else if (home)
                (void)!asprintf(&conf, "%s/.config/containers/storage.conf", home);
        if (conf) {
                st->root = conf_get(conf, root ? "graphroot" : "rootless_storage_path");
                *driver = conf_get(conf, "driver");
                free(conf);
        }
        if (!st->root) {
                if (root)
                        st->root = strdup("/var/lib/containers/storage");
                else if (getenv("XDG_DATA_HOME") && *getenv("XDG_DATA_HOME"))
                        (void)!asprintf(&st->root, "%s/containers/storage", getenv("XDG_DATA_HOME"));
                else if (home)
                        (void)!asprintf(&st->root, "%s/.local/share/containers/storage", home);
                else
                        return pn_error(-ENOENT, "no container store: HOME is not set");
        }
        return st->root ? 0 : pn_oom();
}

/* "[DRIVER@]GRAPHROOT[+RUNROOT][:OPTIONS]", as containers/image reads
 * the part of a reference in brackets. */
static int parse_spec(struct store *st, const char *spec, char **driver) {
        const char *at = strchr(spec, '@'), *p = spec;
        if (at && at < spec + strcspn(spec, "/+:")) {
                *driver = strndup(spec, (size_t)(at - spec));
                p = at + 1;
        }
        size_t n = strcspn(p, "+:");
        if (n == 0)
                return pn_error(-EINVAL, "no store path in [%s]", spec);
        if (p[0] != '/')
                return pn_error(-EINVAL, "the store path in [%s] is not absolute", spec);
        st->root = strndup(p, n);
        return st->root ? 0 : pn_oom();
}

static const char *const drivers[] = {"overlay", "vfs", "btrfs", "zfs", "devmapper", "aufs"};

/* The driver whose images the store holds: the one named, else the
 * only one present. */
static int find_driver(struct store *st, const char *want) {
        char present[128] = "";
        const char *found = NULL;
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(drivers); i++) {
                char p[64];
                struct stat sb;
                snprintf(p, sizeof p, "%s-images/images.json", drivers[i]);
                if (fstatat(st->fd, p, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
                        continue;
                if (!found || (want && !strcmp(want, drivers[i])))
                        found = drivers[i];
                snprintf(present + strlen(present), sizeof present - strlen(present), "%s%s", n++ ? ", " : "",
                         drivers[i]);
        }
        if (want && (!found || strcmp(found, want) != 0))
                return pn_error(-ENOENT, "the store %s holds no images of the %s driver (drivers present: %s)",
                                st->root, want, n ? present : "none");
        if (!found)
                return pn_error(-ENOENT, "%s: no container store here (no DRIVER-images/images.json)", st->root);
        if (!want && n > 1)
                return pn_error(-EINVAL, "the store %s holds images of several drivers (%s): name one as "
                                "containers-storage:[DRIVER@%s]NAME", st->root, present, st->root);
        if (strcmp(found, "vfs") != 0 && strcmp(found, "overlay") != 0)
                return pn_error(-EOPNOTSUPP, "the %s storage driver is not supported (vfs and overlay are)", found);
        snprintf(st->driver, sizeof st->driver, "%s", found);
        return 0;
}

/* Takes a read lock on the lock file NAME of the store, as
 * containers/storage does (a whole-file fcntl() lock); waits a while for
 * a writer.  A store without the file has no such lock. */
static int lock_read(struct store *st, const char *name, int *ret) {
        int fd = pn_openat_regular(st->fd, name);
        if (fd < 0) {
                *ret = -1;
                return fd == -ENOENT ? 0 : pn_error(fd, "%s/%s: cannot open: %s", st->root, name,
                                                    fd == -EINVAL ? "not a regular file" : strerror(-fd));
        }
        struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
        for (int waited = 0;; waited += 20) {
                if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
                        break;
                if ((errno != EAGAIN && errno != EACCES) || waited >= LOCK_WAIT_MS) {
                        int r = pn_error(errno == EAGAIN || errno == EACCES ? -EBUSY : -errno,
                                         "%s/%s: %s", st->root, name,
                                         errno == EAGAIN || errno == EACCES
                                                 ? "locked for writing by another process for over 10 s"
                                                 : strerror(errno));
                        close(fd);
                        return r;
                }
                nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
        }
        *ret = fd;
        return 0;
}

static int load_list(struct store *st, const char *name, json_t **ret) {
        void *data;
        size_t len;
        int r = pn_read_below(st->fd, name, MAX_STORE_LIST, &data, &len);
        if (r == -ENOENT && strstr(name, "layers.json")) {
                *ret = json_array(); /* a store that has no layers yet */
                return *ret ? 0 : pn_oom();
        }
        if (r < 0)
                return r;
        json_error_t jerr;
        json_t *v = json_loadb(data, len, 0, &jerr);
        free(data);
        if (!v && pn_json_oom(&jerr))
                return pn_oom();
        if (!v || !json_is_array(v)) {
                int e = pn_error(-EBADMSG, "%s/%s: %s", st->root, name, v ? "not a JSON array" : jerr.text);
                json_decref(v);
                return e;
        }
        *ret = v;
        return 0;
}

static int cmp_lref(const void *a, const void *b) {
        return strcmp(((const struct lref *)a)->id, ((const struct lref *)b)->id);
}

/* Indexes the layers by id (a store may list many thousands, and each
 * image walks its chain of parents). */
static int index_layers(struct store *st) {
        size_t n = json_array_size(st->layers);
        if (!(st->by_id = calloc(n ? n : 1, sizeof *st->by_id)))
                return pn_oom();
        for (size_t i = 0; i < n; i++) {
                json_t *l = json_array_get(st->layers, i);
                const char *id = json_string_value(json_object_get(l, "id"));
                if (id)
                        st->by_id[st->n_by_id++] = (struct lref){id, l};
        }
        qsort(st->by_id, st->n_by_id, sizeof *st->by_id, cmp_lref);
        return 0;
}

/* The layer of the store with ID, or NULL. */
static json_t *layer_by_id(const struct store *st, const char *id) {
        struct lref key = {id, NULL}, *f = bsearch(&key, st->by_id, st->n_by_id, sizeof *st->by_id, cmp_lref);
        return f ? f->layer : NULL;
}

static void b64(const uint8_t *in, size_t n, char *out) {
        static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t o = 0;
        for (size_t i = 0; i < n; i += 3) {
                uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                             (i + 2 < n ? in[i + 2] : 0);
                out[o++] = t[v >> 18 & 63];
                out[o++] = t[v >> 12 & 63];
                out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
                out[o++] = i + 2 < n ? t[v & 63] : '=';
        }
        out[o] = 0;
}

/* Reads the big data item KEY of image ID (its file name: KEY itself when
 * it is made of [.0-9a-z] only, else "=" and its base64, as
 * containers/storage names them), verified against DIGEST unless NULL. */
static int big_data(const struct store *st, const char *id, const char *key, const char *digest, json_t **ret) {
        char name[300], enc[200];
        bool plain = strspn(key, ".0-9abcdefghijklmnopqrstuvwxyz") == strlen(key);
        if (strlen(key) > 120)
                return pn_error(-EINVAL, "big data name too long");
        if (!plain)
                b64((const uint8_t *)key, strlen(key), enc);
        snprintf(name, sizeof name, "%s-images/%s/%s%s", st->driver, id, plain ? "" : "=", plain ? key : enc);
        void *data;
        size_t len;
        int r = pn_read_below(st->fd, name, PKGNOTE_MAX_SCAN_METADATA, &data, &len);
        if (r < 0)
                return r;
        if (digest && !pn_sha256_is(data, len, digest)) {
                free(data);
                return pn_error(-EBADMSG, "image %.12s: its %s does not match its digest %s", id, key, digest);
        }
        json_error_t jerr;
        *ret = json_loadb(data, len, 0, &jerr);
        free(data);
        return *ret                ? 0
               : pn_json_oom(&jerr) ? pn_oom()
                                    : pn_error(-EBADMSG, "image %.12s: %s: invalid JSON: %s", id, key, jerr.text);
}

/* ---- choosing images ---- */

/* Whether NAME ("REGISTRY/REPO:TAG") is what WANT names: the same, or
 * WANT without registry, repository path or tag as podman reads short
 * names ("img" is "localhost/img:latest", "quay.io/x/img:latest"). */
static bool name_matches(const char *name, const char *want) {
        if (!strcmp(name, want))
                return true;
        const char *wslash = strrchr(want, '/'), *wcolon = strrchr(want, ':');
        bool tagged = wcolon && (!wslash || wcolon > wslash);
        char full[1024];
        snprintf(full, sizeof full, "%s%s", want, tagged ? "" : ":latest");
        size_t n = strlen(name), k = strlen(full);
        if (!strcmp(name, full))
                return true;
        /* A suffix at a path boundary: "img:v1" of "localhost/img:v1". */
        return n > k && name[n - k - 1] == '/' && !strcmp(name + n - k, full);
}

/* Whether image IM is what SEL asks for (everything when it asks for
 * nothing); *BY_NAME tells a match by a short name. */
static bool image_wanted(const struct pn_image_sel *sel, json_t *im, bool *by_name) {
        const char *id = json_string_value(json_object_get(im, "id"));
        *by_name = false;
        if (!id)
                return false;
        if (sel->digest) {
                if (!strcmp(str_or_empty(json_string_value(json_object_get(im, "digest"))), sel->digest))
                        return true;
                json_t *ds = json_object_get(im, "digests");
                for (size_t i = 0; i < json_array_size(ds); i++)
                        if (!strcmp(str_or_empty(json_string_value(json_array_get(ds, i))), sel->digest))
                                return true;
                return false;
        }
        if (!sel->tag)
                return true;
        const char *t = sel->tag;
        if (!strncmp(t, "sha256:", 7) && pn_is_hex(t + 7, 64))
                t += 7;
        if (strlen(t) >= 3 && strspn(t, "0123456789abcdef") == strlen(t) && !strncmp(id, t, strlen(t)))
                return true; /* an id, or its unique beginning */
        json_t *names = json_object_get(im, "names");
        for (size_t i = 0; i < json_array_size(names); i++) {
                const char *n = json_string_value(json_array_get(names, i));
                if (n && name_matches(n, sel->tag)) {
                        *by_name = strcmp(n, sel->tag) != 0;
                        return true;
                }
        }
        return false;
}

/* The image IM's record: reference, digest, id, tags (its names),
 * platform from its configuration, and its top layer. */
static int image_record(struct store *st, json_t *im, struct pkgnote_scan_image **ret, const char **top) {
        const char *id = json_string_value(json_object_get(im, "id"));
        const char *digest = json_string_value(json_object_get(im, "digest"));
        json_t *names = json_object_get(im, "names");
        struct pkgnote_scan_image *rec = calloc(1, sizeof *rec);
        if (!rec)
                return pn_oom();
        rec->input = st->input;
        int r = 0;
        for (size_t i = 0; i < json_array_size(names) && r >= 0; i++)
                r = pn_image_add_tag(rec, json_string_value(json_array_get(names, i)));
        if (r >= 0 && asprintf(&rec->reference, "containers-storage:%s%s%s%s", st->given ? "[" : "",
                               st->given ? st->given : "", st->given ? "]" : "",
                               rec->n_tags ? rec->tags[0] : id) < 0) {
                rec->reference = NULL;
                r = pn_oom();
        }
        if (r >= 0 && ((digest && !(rec->digest = strdup(digest))) || asprintf(&rec->id, "sha256:%s", id) < 0)) {
                rec->id = NULL;
                r = pn_oom();
        }
        /* The manifest and the configuration, verified. */
        json_t *bd = json_object_get(im, "big-data-digests"), *m = NULL, *config = NULL;
        const char *mdig = json_string_value(json_object_get(bd, "manifest"));
        if (r >= 0 && json_object_get(bd, "manifest"))
                r = big_data(st, id, "manifest", mdig ? mdig : "", &m);
        if (r >= 0 && (r = big_data(st, id, rec->id, rec->id, &config)) == -ENOENT) {
                pn_scan_add_problem(st->s, st->input, rec->reference, r, "image configuration is missing");
                r = 0;
        }
        if (r >= 0 && config) {
                r = pn_image_platform(config, &rec->platform);
                json_t *sizes = json_object_get(im, "big-data-sizes");
                json_t *cs = json_object_get(sizes, rec->id);
                rec->size += json_is_integer(cs) && json_integer_value(cs) > 0 ? (uint64_t)json_integer_value(cs) : 0;
        }
        json_decref(m);
        json_decref(config);
        /* The layers, top to bottom. */
        *top = json_string_value(json_object_get(im, "layer"));
        const char *cur = *top;
        while (r >= 0 && cur) {
                json_t *l = is_id(cur) ? layer_by_id(st, cur) : NULL;
                if (!l) {
                        r = pn_error(-EBADMSG, "image %.12s: layer %.64s is %s", id, cur,
                                     is_id(cur) ? "missing from layers.json" : "not a layer id");
                        break;
                }
                if (++rec->n_layers > PKGNOTE_MAX_SCAN_LAYERS) {
                        r = pn_error(-ELOOP, "image %.12s: more than %u layers (a loop of parents?)", id,
                                     PKGNOTE_MAX_SCAN_LAYERS);
                        break;
                }
                json_t *cs = json_object_get(l, "compressed-size"), *ds = json_object_get(l, "diff-size");
                json_t *sz = json_is_integer(cs) && json_integer_value(cs) > 0 ? cs : ds;
                rec->size += json_is_integer(sz) && json_integer_value(sz) > 0 ? (uint64_t)json_integer_value(sz) : 0;
                cur = json_string_value(json_object_get(l, "parent"));
        }
        if (r < 0) {
                pn_scan_image_free(rec);
                return r;
        }
        *ret = rec;
        return 0;
}

/* ---- overlay layers ---- */

static void overlay_add(struct store *st, struct layer *l, uint32_t src, const char *path, int kind) {
        struct entry *e = pn_layer_add(l, path, kind);
        if (e)
                e->source = src;
        else
                pn_scan_add_problem(st->s, st->input, path, -ENOMEM, "%s", pkgnote_last_error());
}

static bool opaque(int fd) {
        static const char *const keys[] = {"trusted.overlay.opaque", "user.overlay.opaque"};
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char v[4];
                ssize_t n = fgetxattr(fd, keys[i], v, sizeof v);
                if (n == 1 && v[0] == 'y')
                        return true;
        }
        return false;
}

/* Lists the directory DFD (taken) of a layer's diff, at PATH (relative,
 * "" at the top), into L. */
static void overlay_walk(struct store *st, struct layer *l, uint32_t src, int dfd, const char *path, int depth) {
        if (depth == 0 && opaque(dfd))
                overlay_add(st, l, src, "", E_OPAQUE);
        struct pn_dir it;
        int r = pn_dir_open(&it, dfd, NULL, 0, 0);
        close(dfd);
        if (r < 0) {
                pn_scan_add_problem(st->s, st->input, path, r, "cannot read directory: %s", strerror(-r));
                return;
        }
        int at = pn_dir_fd(&it);
        struct pn_dirent de;
        while (pn_dir_next(&it, &de) > 0) {
                const char *nm = de.name;
                char *full = *path ? pn_scan_join(path, nm) : strdup(nm);
                struct stat sb;
                if (!full || strlen(full) > PKGNOTE_MAX_SCAN_PATH) {
                        pn_scan_add_problem(st->s, st->input, path, full ? -E2BIG : -ENOMEM, "path too long, skipped");
                        free(full);
                        continue;
                }
                if (fstatat(at, nm, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
                        pn_scan_add_problem(st->s, st->input, full, -errno, "cannot stat: %s", strerror(errno));
                        atomic_fetch_add(&st->s->c.unreadable, 1);
                } else if (S_ISCHR(sb.st_mode) && major(sb.st_rdev) == 0 && minor(sb.st_rdev) == 0)
                        overlay_add(st, l, src, full, E_WHITEOUT);
                else if (!strcmp(nm, ".wh..wh..opq"))
                        overlay_add(st, l, src, path, E_OPAQUE);
                else if (!strncmp(nm, ".wh.", 4) && nm[4]) {
                        char *hidden = *path ? pn_scan_join(path, nm + 4) : strdup(nm + 4);
                        if (hidden)
                                overlay_add(st, l, src, hidden, E_WHITEOUT);
                        free(hidden);
                } else if (S_ISDIR(sb.st_mode)) {
                        overlay_add(st, l, src, full, E_DIR);
                        int sub = depth < MAX_DEPTH ? pn_dir_open_sub(at, nm, NULL, NULL) : -E2BIG;
                        if (sub < 0) {
                                pn_scan_add_problem(st->s, st->input, full, sub, "cannot open directory: %s",
                                                    depth < MAX_DEPTH ? strerror(-sub) : "nested too deep");
                                atomic_fetch_add(&st->s->c.unreadable, 1);
                        } else {
                                if (opaque(sub))
                                        overlay_add(st, l, src, full, E_OPAQUE);
                                overlay_walk(st, l, src, sub, full, depth + 1);
                        }
                } else if (S_ISREG(sb.st_mode)) {
                        struct entry *e = pn_layer_add(l, full, E_FILE);
                        if (e) {
                                e->source = src;
                                e->size = (uint64_t)sb.st_size;
                        }
                } else if (S_ISLNK(sb.st_mode)) {
                        /* Its text, for the library names resolved in the
                         * merged layers; a longer one is left unread. */
                        char to[PKGNOTE_MAX_SCAN_PATH + 1];
                        ssize_t tn = -1;
                        if (st->s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES)
                                tn = readlinkat(at, nm, to, sizeof to);
                        if (tn >= 0 && (size_t)tn < sizeof to)
                                to[tn] = 0;
                        if (pn_layer_add_symlink(l, full, tn >= 0 && (size_t)tn < sizeof to ? to : NULL, true) < 0)
                                pn_scan_add_problem(st->s, st->input, full, -ENOMEM, "%s", pkgnote_last_error());
                        else
                                l->e[l->n - 1].source = src;
                } else
                        overlay_add(st, l, src, full, E_SPECIAL);
                free(full);
        }
        pn_dir_close(&it);
}

/* The index in st->ol of the layer ID of the overlay store, listed once;
 * a negative errno. */
static int overlay_layer(struct store *st, const char *id) {
        for (size_t i = 0; i < st->n_ol; i++)
                if (!strcmp(st->ol[i].id, id))
                        return (int)i;
        if (st->n_ol >= 4 * PKGNOTE_MAX_SCAN_LAYERS)
                return pn_error(-E2BIG, "more than %u layers", 4 * PKGNOTE_MAX_SCAN_LAYERS);
        if (PN_GROW(st->ol, st->cap_ol, st->n_ol + 1) < 0)
                return pn_oom();
        struct olayer *o = &st->ol[st->n_ol];
        memset(o, 0, sizeof *o);
        snprintf(o->id, sizeof o->id, "%s", id);
        o->fd = -1;
        char rel[128];
        snprintf(rel, sizeof rel, "overlay/%s/diff", id);
        int fd = pn_open_below(st->fd, rel, true);
        if (fd < 0)
                return pn_error(fd, "layer %.12s: cannot open %s/%s: %s", id, st->root, rel, strerror(-fd));
        st->n_ol++;
        overlay_walk(st, &o->l, (uint32_t)(st->n_ol - 1), fd, "", 0);
        return (int)(st->n_ol - 1);
}

/* Opens the regular file E of a layer (merge hook) and, when it is ELF,
 * hands it to the workers, which read only what the notes need. */
static void overlay_fill(void *u, struct entry *e) {
        struct store *st = u;
        pkgnote_scan *s = st->s;
        struct olayer *o = &st->ol[e->source];
        atomic_fetch_add(&s->prog_files, 1);
        atomic_fetch_add(&s->prog_bytes, e->size);
        if (o->fd < 0) {
                char rel[128];
                snprintf(rel, sizeof rel, "overlay/%s/diff", o->id);
                o->fd = pn_open_below(st->fd, rel, true);
        }
        int fd = o->fd >= 0 ? pn_open_below(o->fd, e->path, false) : o->fd;
        char *abs = pn_scan_join("/", e->path);
        uint8_t head[SELFMAG];
        ssize_t n = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
        if (fd < 0 || n < 0) {
                int err = fd < 0 ? fd : -errno;
                pn_scan_add_problem(s, st->input, abs ? abs : e->path, err, "cannot read: %s", strerror(-err));
                atomic_fetch_add(&s->c.unreadable, 1);
        } else if (n == SELFMAG && !memcmp(head, ELFMAG, SELFMAG)) {
                struct pkgnote_scan_object *obj = abs ? pn_scan_object_new(abs, st->input) : NULL;
                if (obj) {
                        e->obj = obj;
                        struct job j = {.kind = JOB_FD, .fd = fd, .obj = obj};
                        pn_pool_submit(&st->pool, &j);
                        fd = -1; /* the job's */
                } else
                        pn_scan_add_problem(s, st->input, e->path, -ENOMEM, "%s", pn_out_of_memory);
        }
        if (fd >= 0)
                close(fd);
        free(abs);
}

/* Reads the regular file E of a layer (merge hook). */
static int overlay_read(void *u, const struct entry *e, size_t max, void **data, size_t *len) {
        struct store *st = u;
        const struct olayer *o = &st->ol[e->source];
        char rel[128];
        snprintf(rel, sizeof rel, "overlay/%s/diff", o->id);
        int fd = pn_open_below(st->fd, rel, true);
        if (fd < 0)
                return fd;
        int r = pn_read_below(fd, e->path, max, data, len);
        close(fd);
        return r;
}

static void overlay_wait(void *u) {
        struct store *st = u;
        pn_pool_finish(&st->pool);
        st->pool_on = false;
}

/* The files of image REC, whose top layer is TOP. */
static int image_files(struct store *st, const struct pkgnote_scan_image *rec, const char *top) {
        pkgnote_scan *s = st->s;
        if (!strcmp(st->driver, "vfs")) {
                char rel[128];
                snprintf(rel, sizeof rel, "vfs/dir/%s", top);
                int fd = pn_open_below(st->fd, rel, true);
                if (fd < 0)
                        return pn_error(fd, "layer %.12s: cannot open %s/%s: %s", top, st->root, rel, strerror(-fd));
                return pn_scan_tree(s, st->input, rec, fd, "/");
        }
        /* overlay: the layers bottom first */
        size_t n = rec->n_layers;
        struct layer **order = calloc(n ? n : 1, sizeof *order);
        if (!order)
                return pn_oom();
        int *at = calloc(n ? n : 1, sizeof *at);
        const char *cur = top;
        int r = at ? 0 : pn_oom();
        for (size_t i = n; r >= 0 && i-- > 0 && cur;) {
                r = at[i] = overlay_layer(st, cur);
                cur = json_string_value(json_object_get(layer_by_id(st, cur), "parent"));
        }
        /* Only now: listing a layer may move the others. */
        for (size_t i = 0; r >= 0 && i < n; i++)
                order[i] = &st->ol[at[i]].l;
        free(at);
        if (r >= 0 && (r = pn_pool_start(&st->pool, s, st->input)) >= 0) {
                st->pool_on = true;
                struct pn_merge_hook hook = {overlay_fill, overlay_wait, overlay_read, st};
                r = pn_merge_layers(s, st->input, rec, order, n, &hook);
                if (st->pool_on)
                        overlay_wait(st);
        }
        for (size_t i = 0; i < st->n_ol; i++)
                if (st->ol[i].fd >= 0) {
                        close(st->ol[i].fd);
                        st->ol[i].fd = -1;
                }
        free(order);
        return r;
}

/* Chooses the images and reports them. */
static int scan_images(struct store *st) {
        pkgnote_scan *s = st->s;
        const struct pn_image_sel *sel = &s->sel;
        size_t n = json_array_size(st->images), matched = 0, short_matches = 0;
        bool named = sel->tag || sel->digest;
        bool *take = calloc(n ? n : 1, sizeof *take);
        if (!take)
                return pn_oom();
        for (size_t i = 0; i < n; i++) {
                bool by_name;
                take[i] = image_wanted(sel, json_array_get(st->images, i), &by_name);
                matched += take[i];
                short_matches += take[i] && by_name;
        }
        int r = 0;
        if (named && matched == 0) {
                char *list = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&list, &len);
                for (size_t i = 0; f && i < n && len < 1024; i++) {
                        json_t *im = json_array_get(st->images, i), *names = json_object_get(im, "names");
                        for (size_t k = 0; k < json_array_size(names); k++)
                                fprintf(f, "%s%s", ftell(f) ? ", " : "", str_or_empty(json_string_value(json_array_get(names, k))));
                        if (!json_array_size(names))
                                fprintf(f, "%s%.12s", ftell(f) ? ", " : "",
                                        str_or_empty(json_string_value(json_object_get(im, "id"))));
                }
                if (f)
                        fclose(f);
                r = pn_error(-ENOENT, "no image %s '%s' in the store %s (images: %s)", sel->digest ? "with digest" : "named",
                             sel->digest ? sel->digest : sel->tag, st->root, list && *list ? list : "none");
                free(list);
        } else if (named && matched > 1 && !sel->digest)
                r = pn_error(-EINVAL, "'%s' names %zu images of the store %s%s", sel->tag, matched, st->root,
                             short_matches ? ": give the full name (REGISTRY/REPOSITORY:TAG) or the id" : "");
        else if (!named && n == 0)
                r = pn_error(-ENOENT, "the store %s holds no images", st->root);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (!take[i])
                        continue;
                json_t *im = json_array_get(st->images, i);
                const char *id = json_string_value(json_object_get(im, "id"));
                struct pkgnote_scan_image *rec = NULL;
                const char *top = NULL;
                int q = is_id(id) ? image_record(st, im, &rec, &top)
                                  : pn_error(-EBADMSG, "image %zu of the store: its id is not 64 hex digits", i);
                if (q >= 0 && (q = pn_scan_add_image_record(s, rec)) >= 0 && top && !(s->opts.flags & PKGNOTE_SCAN_LIST_IMAGES))
                        q = image_files(st, rec, top);
                if (q < 0 && (named || q == -ENOMEM))
                        r = q;
                else if (q < 0)
                        pn_scan_add_problem(s, st->input, st->display, q, "image %.64s: %s", id ? id : "?",
                                            pkgnote_last_error());
        }
        free(take);
        return r;
}

int pn_scan_storage(pkgnote_scan *s, size_t input, const char *spec, const char *display) {
        struct store st = {.s = s, .input = input, .display = display, .fd = -1, .locks = {-1, -1}};
        char *driver = NULL;
        int r = *spec ? parse_spec(&st, spec, &driver) : default_store(&st, &driver);
        st.given = *spec ? spec : NULL;
        if (r >= 0 && (st.fd = open(st.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                r = pn_error(-errno, "cannot open the container store %s: %s", st.root, strerror(errno));
        if (r >= 0)
                r = find_driver(&st, driver);
        struct stat rs;
        if (r >= 0 && !strcmp(st.driver, "overlay") && geteuid() != 0 && fstat(st.fd, &rs) == 0 && rs.st_uid == 0)
                /* Root's overlay layers mark opaque directories in the
                 * trusted namespace, which only root can read. */
                pn_scan_add_problem(s, input, st.root, -EPERM,
                                    "root's overlay store read without privileges: directories its layers make "
                                    "opaque (trusted.overlay.opaque) cannot be told, and may show files they hide");
        char name[64];
        if (r >= 0) {
                snprintf(name, sizeof name, "%s-layers/layers.lock", st.driver);
                r = lock_read(&st, name, &st.locks[0]);
        }
        if (r >= 0) {
                snprintf(name, sizeof name, "%s-images/images.lock", st.driver);
                r = lock_read(&st, name, &st.locks[1]);
        }
        if (r >= 0) {
                snprintf(name, sizeof name, "%s-images/images.json", st.driver);
                r = load_list(&st, name, &st.images);
        }
        if (r >= 0) {
                snprintf(name, sizeof name, "%s-layers/layers.json", st.driver);
                r = load_list(&st, name, &st.layers);
        }
        if (r >= 0)
                r = index_layers(&st);
        if (r >= 0)
                r = scan_images(&st);
        for (size_t i = 0; i < st.n_ol; i++)
                pn_layer_clear(&st.ol[i].l);
        free(st.ol);
        free(st.by_id);
        json_decref(st.images);
        json_decref(st.layers);
        for (int i = 0; i < 2; i++)
                if (st.locks[i] >= 0)
                        close(st.locks[i]);
        if (st.fd >= 0)
                close(st.fd);
        free(st.root);
        free(driver);
        return r < 0 ? r : PKGNOTE_SCAN_INPUT_STORAGE;
}
