/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stamping whole trees (lib/06-stamp-tree.c) and files resolved inside a
 * root directory (lib/01-base-root.c, lib/06-stamp-file.c) for programs of the
 * public API: pkgnote stamp --tree, --from-dpkg and --from-rpmdb.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "01-base.h"
#include "06-stamp-files.h"

/* The caller's callbacks, behind the internal walk's. */
struct tree_call {
        size_t n; /* note specifications: results per file */
        pkgnote_stamp_tree_json_fn json_fn;
        void *json_ud;
        pkgnote_stamp_tree_fn fn;
        void *userdata;
};

static void tree_file(const pn_tree_file *f, void *userdata) {
        const struct tree_call *c = userdata;
        /* The walk's results, each with its size as the caller reads it. */
        pkgnote_stamp_result res[PN_STAMP_RESULTS_MAX];
        for (size_t i = 0; f->result && i < c->n && i < PN_STAMP_RESULTS_MAX; i++) {
                res[i] = f->result[i];
                res[i].size = sizeof res[i];
        }
        const pkgnote_stamp_tree_file pf = {
                .size = sizeof pf,
                .path = f->path,
                .error = f->err,
                .skipped = f->skipped,
                .results = f->result ? res : NULL,
                .names = f->names,
        };
        c->fn(&pf, c->userdata);
}

static const char *tree_json(const char *rel, const char **skip, int *err, void *userdata) {
        const struct tree_call *c = userdata;
        return c->json_fn(rel, skip, err, c->json_ud);
}

PKGNOTE_PUBLIC int pkgnote_stamp_tree(const char *dir, const pkgnote_note_spec *notes, size_t n,
                                      pkgnote_stamp_tree_json_fn json_fn, void *json_userdata, unsigned flags,
                                      pkgnote_stamp_tree_fn fn, void *userdata) {
        if (!dir || !fn)
                return pn_error(-EINVAL, "no tree or no callback given");
        if (flags >> 16)
                return pn_error(-EINVAL, "unknown stamp flags 0x%x", flags);
        pkgnote_note_spec *specs;
        int r = pn_array_read((void **)&specs, sizeof *specs, notes, n, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (r < 0)
                return r;
        struct tree_call c = {n, json_fn, json_userdata, fn, userdata};
        r = pn_stamp_tree_each(dir, specs, n, json_fn ? tree_json : NULL, &c, flags, tree_file, &c);
        free(specs);
        return r;
}

struct pkgnote_root_file {
        int rootfd;
        char *rel;
        struct stat st; /* the file resolved: stamping checks it still is */
};

PKGNOTE_PUBLIC int pkgnote_root_file_resolve(int rootfd, const char *path, pkgnote_root_file **ret) {
        if (rootfd < 0 || !path || !*path || !ret)
                return pn_error(-EINVAL, "no root or no path given");
        pkgnote_root_file *f = calloc(1, sizeof *f);
        if (!f)
                return pn_oom();
        int r = pn_resolve_in_root(rootfd, path, &f->rel, &f->st);
        if (r < 0) {
                free(f);
                return r;
        }
        f->rootfd = rootfd;
        *ret = f;
        return 1;
}

PKGNOTE_PUBLIC const char *pkgnote_root_file_path(const pkgnote_root_file *f) {
        return f ? f->rel : NULL;
}

PKGNOTE_PUBLIC void pkgnote_root_file_free(pkgnote_root_file *f) {
        if (!f)
                return;
        free(f->rel);
        free(f);
}

PKGNOTE_PUBLIC int pkgnote_stamp_root_file(const pkgnote_root_file *f, const char *output,
                                           const pkgnote_note_spec *notes, size_t n, unsigned flags,
                                           pkgnote_stamp_result *results) {
        if (!f)
                return pn_error(-EINVAL, "no file given");
        if (flags >> 16)
                return pn_error(-EINVAL, "unknown stamp flags 0x%x", flags);
        int r = pn_stamp_results_ok(results, n);
        if (r < 0)
                return r;
        pkgnote_note_spec *specs;
        r = pn_array_read((void **)&specs, sizeof *specs, notes, n, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (r < 0)
                return r;
        pkgnote_stamp_result full[PN_STAMP_RESULTS_MAX] = {{0}};
        r = pn_stamp_in_root(f->rootfd, f->rel, &f->st, output, specs, n, flags, results ? full : NULL);
        free(specs);
        if (r >= 0)
                pn_stamp_results_out(results, full, n);
        return r;
}

/* ---------------------------------------------------------- results */

