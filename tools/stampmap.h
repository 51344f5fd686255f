/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-file metadata for pkgnote stamp (tools/stampmap.c). */
#ifndef PKGNOTE_STAMPMAP_H
#define PKGNOTE_STAMPMAP_H

#include "metaopts.h"

enum { STAMP_MAP_FILE = 1, STAMP_MAP_DPKG, STAMP_MAP_RPM };

struct stamp_map;

/* SOURCE: a map file ARG (PATH<TAB>JSON lines, "-" standard input), or
 * the dpkg or rpm database of the root ARG.  0, or an exit code after
 * printing the reason. */
int stamp_map_open(struct stamp_map **ret, struct meta_opts *meta, int source, const char *arg);
void stamp_map_free(struct stamp_map *m);
/* With --from-dpkg or --from-rpmdb, the root directory, where files
 * given by name are resolved and stamped (stamp_map_resolve()); else -1. */
int stamp_map_root_fd(const struct stamp_map *m);
/* The regular file PATH (given by name) leads to inside the root, every
 * symbolic link resolved as if the root were "/", into *RET.  0, or an
 * exit code after printing why (outside the root, a link leading nowhere
 * inside it). */
int stamp_map_resolve(struct stamp_map *m, const char *path, pkgnote_root_file **ret);
/* The JSON for PATH (a path in the tree TREE, or, when TREE is NULL, a
 * file given on the command line: its name with --metadata-map, its path
 * from stamp_map_resolve() with a package database); NULL with *SKIP
 * saying why the file has none, or with *ERR < 0 when its metadata is
 * wrong (printed). */
const char *stamp_map_json(struct stamp_map *m, const char *tree, const char *path, const char **skip, int *err);

#endif
