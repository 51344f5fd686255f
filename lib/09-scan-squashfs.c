/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SquashFS images (snaps, live-system roots, AppImage payloads) through
 * squashfs-tools-ng's libsquashfs, loaded the first time one is read.
 * The image is read in place by offset (it needs a file, not a pipe),
 * its directories walked one at a time, and only what the scan needs is
 * decompressed: the first bytes of each regular file, ELF files up to
 * the member size limit, the files of package databases.  The entries
 * then go through the same merge as an archive's.
 *
 * A hostile image can make a directory hold itself or an ancestor: each
 * directory inode is entered once, paths are bounded in length and
 * entries in number.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "02-elf-const.h"
#include "01-base-loader.h"
#include "09-scan-private.h"

#if HAVE_SQUASHFS
#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/inode.h>
#include <sqfs/io.h>
#include <sqfs/super.h>

#define SQFS_FUNCS(X)                                                                                         \
        X(sqfs_super_read) X(sqfs_compressor_config_init) X(sqfs_compressor_create) X(sqfs_dir_reader_create) \
        X(sqfs_data_reader_create) X(sqfs_data_reader_load_fragment_table) X(sqfs_dir_reader_get_root_inode)  \
        X(sqfs_dir_reader_open_dir) X(sqfs_dir_reader_read) X(sqfs_dir_reader_get_inode)                      \
        X(sqfs_data_reader_read) X(sqfs_inode_get_file_size) X(sqfs_free)

static struct sqfs_api {
#define FIELD(f) __typeof__(f) *f;
        SQFS_FUNCS(FIELD)
#undef FIELD
} api;
static const struct pn_lib_symbol symbols[] = {
#define SYMBOL(f) PN_LIB_SYMBOL(struct sqfs_api, f)
        SQFS_FUNCS(SYMBOL)
#undef SYMBOL
};
static struct pn_lib lib = {
        PN_LIB_NOTE(HAVE_SQUASHFS, "squashfs", "suggested", "Read SquashFS images (snaps, live roots)",
                    "libsquashfs.so.1"),
        .not_installed = "reading a SquashFS image needs libsquashfs (libsquashfs.so.1), which is not installed",
        .name = "libsquashfs.so.1",
        PN_LIB_SYMBOLS(symbols, api),
};

/* The image as libsquashfs reads it: the file from OFF on. */
struct image_file {
        sqfs_file_t f;
        int fd;
        uint64_t off, size;
};

static int file_read_at(sqfs_file_t *file, sqfs_u64 offset, void *buffer, size_t size) {
        struct image_file *im = (struct image_file *)file;
        if (offset > im->size || size > im->size - offset)
                return SQFS_ERROR_OUT_OF_BOUNDS;
        uint8_t *p = buffer;
        while (size) {
                ssize_t n = pread(im->fd, p, size, (off_t)(im->off + offset));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return SQFS_ERROR_IO;
                p += n, offset += (uint64_t)n, size -= (size_t)n;
        }
        return 0;
}
static int file_write_at(sqfs_file_t *file, sqfs_u64 offset, const void *buffer, size_t size) {
        (void)file, (void)offset, (void)buffer, (void)size;
        return SQFS_ERROR_IO; /* never written */
}
static sqfs_u64 file_get_size(const sqfs_file_t *file) {
        return ((const struct image_file *)file)->size;
}
static int file_truncate(sqfs_file_t *file, sqfs_u64 size) {
        (void)file, (void)size;
        return SQFS_ERROR_IO;
}
static void file_destroy(sqfs_object_t *obj) {
        (void)obj; /* the caller's */
}

/* Directories still to list: their path and inode. */
struct pending {
        char *path;
        sqfs_inode_generic_t *inode;
};

struct sq {
        pkgnote_scan *s;
        size_t input;
        const char *display;
        struct pool *pool;
        sqfs_dir_reader_t *dr;
        sqfs_data_reader_t *data;
        struct layer l;
        struct pending *stack;
        size_t n_stack, cap_stack;
        uint8_t *seen;     /* per inode number: 1 a directory entered, 2 a file read */
        char **first_path; /* per inode number: the path a file was first read under */
        uint32_t n_inodes;
        uint64_t inflated;
};

static void problem(struct sq *q, const char *path, int err, const char *what) {
        char *abs = pn_scan_join("/", path);
        pn_scan_add_problem(q->s, q->input, abs ? abs : path, err, "%s", what);
        free(abs);
}

/* Reads LEN bytes of the file INODE from OFF into BUF: the number read,
 * or a negative errno with a problem recorded. */
static ssize_t read_data(struct sq *q, const sqfs_inode_generic_t *inode, uint64_t off, uint8_t *buf, size_t len,
                         const char *path) {
        size_t got = 0;
        while (got < len) {
                size_t want = len - got > (1u << 30) ? (1u << 30) : len - got;
                sqfs_s32 n = api.sqfs_data_reader_read(q->data, inode, off + got, buf + got, (sqfs_u32)want);
                if (n < 0) {
                        problem(q, path, -EIO, "cannot read the file's data from the SquashFS image");
                        atomic_fetch_add(&q->s->c.unreadable, 1);
                        return -EIO;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        q->inflated += got;
        return (ssize_t)got;
}

/* A regular file: kept whole when the package databases are read from
 * it, read up to the member limit when it is ELF, else only looked at. */
static int add_file(struct sq *q, const char *path, const sqfs_inode_generic_t *inode) {
        pkgnote_scan *s = q->s;
        sqfs_u64 size = 0;
        if (api.sqfs_inode_get_file_size(inode, &size) != 0)
                size = 0;
        struct entry *e = pn_layer_add(&q->l, path, E_FILE);
        if (!e)
                return -ENOMEM;
        e->size = size;
        atomic_fetch_add(&s->prog_files, 1);
        atomic_fetch_add(&s->prog_bytes, size);
        if (size == 0)
                return 0;
        if (pn_scan_db_path(path)) {
                if (size > pn_scan_db_max(path))
                        return 0; /* too large: the merge says so */
                char *buf = malloc(size + 1);
                if (!buf)
                        return pn_oom();
                ssize_t n = read_data(q, inode, 0, (uint8_t *)buf, size, path);
                if (n < 0) {
                        free(buf);
                        return 0;
                }
                buf[n] = 0;
                e->data = buf, e->len = (size_t)n, e->size = (uint64_t)n;
                return 0;
        }
        uint8_t head[512]; /* a PE image's signature is told by its DOS header */
        ssize_t n = read_data(q, inode, 0, head, size < sizeof head ? (size_t)size : sizeof head, path);
        if (s->artefact) {
                /* deps --verify: an ELF file whole, nothing else. */
                int k = n > 0 ? pn_scan_verify_keep(s, head, (size_t)n, size) : 0;
                if (k <= 0)
                        return k;
                if (size > s->opts.max_bytes - (q->inflated < s->opts.max_bytes ? q->inflated : s->opts.max_bytes))
                        return pn_error(-EFBIG, "the SquashFS image decompresses to more than %llu bytes",
                                        (unsigned long long)s->opts.max_bytes);
                uint8_t *buf = malloc(size);
                if (!buf)
                        return pn_oom();
                n = read_data(q, inode, 0, buf, size, path);
                if (n < 0) {
                        free(buf);
                        return pn_error((int)n, "'/%s': an ELF file that cannot be read from the SquashFS image", path);
                }
                e->data = (char *)buf, e->len = (size_t)n, e->size = (uint64_t)n;
                return 0;
        }
        if (n < (ssize_t)SELFMAG || !pn_scan_object_magic(head, (size_t)n))
                return 0;
        uint64_t want = size < s->opts.max_member ? size : s->opts.max_member;
        char *abs = pn_scan_join("/", path);
        struct pkgnote_scan_object *o = abs ? pn_scan_object_new(abs, q->input) : NULL;
        free(abs);
        size_t cap = 0;
        uint8_t *buf = o ? pn_pool_buf(q->pool, want, &cap) : NULL;
        if (!buf) {
                pn_scan_object_free(o);
                return pn_oom();
        }
        n = read_data(q, inode, 0, buf, want, path);
        if (n < 0) {
                pn_pool_buf_free(buf, cap);
                pn_scan_object_free(o);
                return 0;
        }
        bool partial = (uint64_t)n < size;
        if ((s->opts.flags & PKGNOTE_SCAN_CHECKSUMS) && (uint64_t)n == want) {
                struct pn_sums sum;
                pn_sums_init(&sum);
                pn_sums_update(&sum, buf, (size_t)n);
                uint8_t tmp[65536];
                uint64_t at = (uint64_t)n;
                ssize_t k = 0;
                while (at < size && (k = read_data(q, inode, at, tmp, size - at < sizeof tmp ? (size_t)(size - at) : sizeof tmp, path)) > 0) {
                        pn_sums_update(&sum, tmp, (size_t)k);
                        at += (uint64_t)k;
                }
                if (at == size) {
                        pn_sums_final(&sum, o->sha1, o->sha256);
                        o->has_sums = true;
                }
        }
        o->size = size;
        e->obj = o;
        struct job j = {.kind = JOB_MEMBER, .buf = buf, .len = (size_t)n, .cap = cap, .partial = partial, .obj = o};
        pn_pool_submit(q->pool, &j);
        return 0;
}

/* Lists the directory PATH (its inode open in the reader), queueing its
 * subdirectories. */
static int list_dir(struct sq *q, const char *path) {
        for (;;) {
                sqfs_dir_entry_t *ent = NULL;
                int k = api.sqfs_dir_reader_read(q->dr, &ent);
                if (k > 0)
                        return 0;
                if (k < 0) {
                        problem(q, path, -EBADMSG, "cannot read the directory from the SquashFS image");
                        atomic_fetch_add(&q->s->c.unreadable, 1);
                        return 0;
                }
                char name[258], full[PKGNOTE_MAX_SCAN_PATH + 300], norm[PKGNOTE_MAX_SCAN_PATH + 1];
                size_t nl = (size_t)ent->size + 1;
                memcpy(name, ent->name, nl);
                name[nl] = 0;
                api.sqfs_free(ent);
                if (memchr(name, '/', nl) || memchr(name, 0, nl) || !strcmp(name, ".") || !strcmp(name, "..")) {
                        problem(q, path, -EBADMSG, "a directory entry of the SquashFS image has an impossible name, ignored");
                        continue;
                }
                snprintf(full, sizeof full, "%s%s%s", path, *path ? "/" : "", name);
                if (pn_path_normalize(full, norm, sizeof norm) < 0) {
                        problem(q, path, -E2BIG, pkgnote_last_error());
                        continue;
                }
                sqfs_inode_generic_t *inode = NULL;
                if (api.sqfs_dir_reader_get_inode(q->dr, &inode) != 0) {
                        problem(q, norm, -EBADMSG, "cannot read the inode from the SquashFS image");
                        atomic_fetch_add(&q->s->c.unreadable, 1);
                        continue;
                }
                uint32_t ino = inode->base.inode_number;
                int r = 0;
                bool keep = false;
                switch (inode->base.type) {
                case SQFS_INODE_DIR:
                case SQFS_INODE_EXT_DIR:
                        if (!pn_layer_add(&q->l, norm, E_DIR))
                                r = -ENOMEM;
                        else if (ino < q->n_inodes && q->seen[ino]) {
                                problem(q, norm, -ELOOP, "a directory of the SquashFS image met twice (a loop), not entered again");
                        } else if (PN_GROW(q->stack, q->cap_stack, q->n_stack + 1) < 0) {
                                r = -ENOMEM;
                        } else {
                                char *p = strdup(norm);
                                if (!p)
                                        r = -ENOMEM;
                                else {
                                        if (ino < q->n_inodes)
                                                q->seen[ino] = 1;
                                        q->stack[q->n_stack++] = (struct pending){p, inode};
                                        keep = true;
                                }
                        }
                        break;
                case SQFS_INODE_FILE:
                case SQFS_INODE_EXT_FILE:
                        if (ino < q->n_inodes && q->first_path[ino]) {
                                /* A hard link: the file read once. */
                                struct entry *e = pn_layer_add(&q->l, norm, E_HARDLINK);
                                if (!e || !(e->target = strdup(q->first_path[ino])))
                                        r = -ENOMEM;
                        } else {
                                r = add_file(q, norm, inode);
                                if (r >= 0 && ino < q->n_inodes && !(q->first_path[ino] = strdup(norm)))
                                        r = -ENOMEM;
                        }
                        break;
                case SQFS_INODE_SLINK:
                case SQFS_INODE_EXT_SLINK: {
                        /* The target's bytes follow the inode, as many as
                         * it says and the reader gave. */
                        uint32_t tn = inode->base.type == SQFS_INODE_SLINK ? inode->data.slink.target_size
                                                                            : inode->data.slink_ext.target_size;
                        char to[PKGNOTE_MAX_SCAN_PATH + 1];
                        bool fits = tn < sizeof to && tn <= inode->payload_bytes_available;
                        if (fits) {
                                memcpy(to, inode->extra, tn);
                                to[tn] = 0;
                        }
                        r = pn_layer_add_symlink(&q->l, norm, fits && !memchr(to, 0, tn) ? to : NULL,
                                                 q->s->opts.flags & PKGNOTE_SCAN_DEPENDENCIES);
                        break;
                }
                default:
                        if (!pn_layer_add(&q->l, norm, E_SPECIAL))
                                r = -ENOMEM;
                        break;
                }
                if (!keep)
                        api.sqfs_free(inode);
                if (r < 0)
                        return r == -ENOMEM ? pn_oom() : r;
                if (q->inflated > q->s->opts.max_bytes)
                        return pn_error(-EFBIG, "the SquashFS image decompresses to more than --max-bytes (%llu bytes)",
                                        (unsigned long long)q->s->opts.max_bytes);
        }
}

int pn_scan_squashfs(pkgnote_scan *s, size_t input, int fd, uint64_t offset, const char *display) {
        int lr = pn_lib_load(&lib);
        if (lr < 0)
                return lr;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < offset)
                return pn_error(-EINVAL, "a SquashFS image is read from a file, not a pipe");
        struct image_file file = {.fd = fd, .off = offset, .size = (uint64_t)st.st_size - offset};
        file.f.base.destroy = file_destroy;
        file.f.read_at = file_read_at;
        file.f.write_at = file_write_at;
        file.f.get_size = file_get_size;
        file.f.truncate = file_truncate;

        sqfs_super_t super;
        sqfs_compressor_config_t cfg;
        sqfs_compressor_t *cmp = NULL;
        int k = api.sqfs_super_read(&super, &file.f);
        if (k != 0)
                return pn_error(-EBADMSG, "not a readable SquashFS image (its superblock: error %d)", k);
        if (s->artefact && super.bytes_used > file.size)
                /* deps --verify: what is cut off cannot be told. */
                return pn_error(-EBADMSG, "the SquashFS image is cut short: it says it has %llu bytes, the file %llu",
                                (unsigned long long)super.bytes_used, (unsigned long long)file.size);
        if (api.sqfs_compressor_config_init(&cfg, (SQFS_COMPRESSOR)super.compression_id, super.block_size,
                                            SQFS_COMP_FLAG_UNCOMPRESS) != 0 ||
            api.sqfs_compressor_create(&cfg, &cmp) != 0)
                return pn_error(-EOPNOTSUPP, "the SquashFS image's compressor (%u) is not supported by libsquashfs",
                                (unsigned)super.compression_id);
        struct sq q = {.s = s, .input = input, .display = display};
        struct pool p;
        int r = 0;
        sqfs_inode_generic_t *root = NULL;
        /* Inode numbers run from 1 to inode_count; a larger one met is
         * simply not tracked. */
        q.n_inodes = super.inode_count < (64u << 20) ? super.inode_count + 1 : (64u << 20);
        q.seen = calloc(q.n_inodes, 1);
        q.first_path = calloc(q.n_inodes, sizeof *q.first_path);
        q.dr = api.sqfs_dir_reader_create(&super, cmp, &file.f, 0);
        q.data = api.sqfs_data_reader_create(&file.f, super.block_size, cmp, 0);
        if (!q.seen || !q.first_path || !q.dr || !q.data)
                r = pn_oom();
        else if (api.sqfs_data_reader_load_fragment_table(q.data, &super) != 0)
                r = pn_error(-EBADMSG, "the SquashFS image's fragment table cannot be read");
        else if (api.sqfs_dir_reader_get_root_inode(q.dr, &root) != 0)
                r = pn_error(-EBADMSG, "the SquashFS image's root directory cannot be read");
        if (r == 0 && (r = pn_pool_start(&p, s, input)) == 0) {
                q.pool = &p;
                q.stack = malloc(sizeof *q.stack);
                char *rp = strdup("");
                if (!q.stack || !rp) {
                        free(rp);
                        r = pn_oom();
                } else {
                        q.cap_stack = 1;
                        q.stack[q.n_stack++] = (struct pending){rp, root};
                        root = NULL;
                        if (q.stack[0].inode->base.inode_number < q.n_inodes)
                                q.seen[q.stack[0].inode->base.inode_number] = 1;
                }
                while (r >= 0 && q.n_stack > 0) {
                        struct pending it = q.stack[--q.n_stack];
                        if (api.sqfs_dir_reader_open_dir(q.dr, it.inode, 0) != 0) {
                                problem(&q, it.path, -EBADMSG, "cannot open the directory in the SquashFS image");
                                atomic_fetch_add(&s->c.unreadable, 1);
                        } else
                                r = list_dir(&q, it.path);
                        free(it.path);
                        api.sqfs_free(it.inode);
                }
                pn_pool_finish(&p);
                if (r >= 0) {
                        struct layer *one = &q.l;
                        r = pn_merge_layers(s, input, NULL, &one, 1, NULL);
                }
        }
        for (size_t i = 0; i < q.n_stack; i++) {
                free(q.stack[i].path);
                api.sqfs_free(q.stack[i].inode);
        }
        free(q.stack);
        if (root)
                api.sqfs_free(root);
        pn_layer_clear(&q.l);
        for (uint32_t i = 0; q.first_path && i < q.n_inodes; i++)
                free(q.first_path[i]);
        free(q.first_path);
        free(q.seen);
        sqfs_destroy(q.data);
        sqfs_destroy(q.dr);
        sqfs_destroy(cmp);
        return r < 0 ? r : PKGNOTE_SCAN_INPUT_ARCHIVE;
}

#else

int pn_scan_squashfs(pkgnote_scan *s, size_t input, int fd, uint64_t offset, const char *display) {
        (void)s, (void)input, (void)fd, (void)offset, (void)display;
        return pn_error(-EOPNOTSUPP, "this pkgnote was built without SquashFS support (libsquashfs)");
}

#endif
