/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which file the dynamic loader finds for a library name inside a root
 * (lib/07-check-resolve.c): the one resolver that `deps --closure`
 * (lib/07-check-closure.c) and scan's dependency edges (lib/09-scan-libpath.c)
 * share.  It knows the ABIs (class, machine, byte order, ARM float ABI),
 * their multiarch, system and glibc-hwcaps directories, the root's
 * ld.so.conf with its includes, and RPATH/RUNPATH tokens; the root is
 * reached through callbacks (a tree on disk, the merged layers of an
 * image), and the candidates a search meets are judged by the caller.
 *
 * Bounded as glibc's loader bounds it (elf/dl-load.c): search path
 * entries are deduplicated after expansion, a directory is looked at
 * once and remembered missing or present (rtld's "nonexisting"), and
 * each present directory is listed once, so that no name is ever
 * looked up twice in one directory: a search costs a hash probe per
 * distinct present directory.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkgnote.h"

/* ---- a string map (open addressing) ---- */
struct pn_smap {
        struct pn_sent {
                char *key;
                size_t val;
        } *v;
        size_t cap, n;
};
bool pn_smap_get(const struct pn_smap *m, const char *key, size_t *val);
/* Adds a copy of KEY with VAL (KEY must not be there yet): 0 or -ENOMEM. */
int pn_smap_put(struct pn_smap *m, const char *key, size_t val);
void pn_smap_done(struct pn_smap *m);

/* ---- ABIs ---- */

/* ARM EABI version 5 float ABI, from e_flags (EF_ARM_ABI_FLOAT_*). */
enum { PN_FLOAT_ANY = 0, PN_FLOAT_SOFT = 1, PN_FLOAT_HARD = 2 };

/* What decides whether a loader maps an object. */
struct pn_abi {
        int elf_class; /* 32 or 64 */
        int big_endian;
        unsigned machine;
        int float_abi; /* EM_ARM: PN_FLOAT_*; else PN_FLOAT_ANY */
};

/* The ABI of an object of ELF_CLASS (32 or 64), byte order, machine and
 * E_FLAGS. */
struct pn_abi pn_abi_make(int elf_class, int big_endian, unsigned machine, uint32_t e_flags);
/* The ABI of the object E. */
struct pn_abi pn_elf_abi(const pkgnote_object *e);
/* Whether the loader of an object of ABI WANT maps an object of ABI GOT
 * (glibc's elf_machine_matches_host and VALID_FLOAT_ABI). */
bool pn_abi_accepts(const struct pn_abi *want, const struct pn_abi *got);

/* The one order of ABIs (machine, class, byte order, float ABI): <0, 0
 * (the same ABI), >0, for sorting and for telling ABIs apart. */
int pn_abi_cmp(const struct pn_abi *x, const struct pn_abi *y);

/* Debian architectures and multiarch directories by ABI, the one table
 * (FLOAT_ABI PN_FLOAT_ANY: either). */
struct pn_debian_abi {
        unsigned machine;
        int elf_class, big_endian, float_abi;
        const char *arch, *triplet;
};
/* The I-th entry of the table, NULL past the last. */
const struct pn_debian_abi *pn_debian_abi(size_t i);
/* The I-th multiarch triplet an object of ABI A is searched under, NULL
 * past the last (an ARM object of no float ABI: armhf's, then armel's). */
const char *pn_abi_triplet(const struct pn_abi *a, size_t i);
/* The I-th system directory of ABI A into BUF (false past the last): the
 * multiarch ones (Debian), then lib64 (64-bit) or libx32 (x32), then
 * lib; each first at the top, then under /usr. */
bool pn_abi_default_dir(const struct pn_abi *a, size_t i, char *buf, size_t size);
/* The glibc-hwcaps subdirectories of ABI A, best first, NULL-terminated. */
const char *const *pn_abi_hwcaps(const struct pn_abi *a);

/* ---- ld.so.conf (lib/07-check-ldconf.c) ---- */

/* A line of ld.so.conf longer than this names no usable directory. */
#define PN_LDCONF_MAX_LINE 4095u
/* Bytes of one ld.so.conf file read. */
#define PN_LDCONF_MAX_SIZE (1u << 20)
/* Files read through "include", all told, and how deep includes nest:
 * a loop of includes ends at either. */
#define PN_LDCONF_MAX_FILES 256u
#define PN_LDCONF_MAX_DEPTH 16u
/* Library directories kept from ld.so.conf. */
#define PN_LDCONF_MAX_DIRS 1024u

enum { PN_LDCONF_DIR = 1, PN_LDCONF_INCLUDE = 2 };
/* Called with each directory or include pattern, in file order; a
 * negative errno stops the parse and is returned. */
typedef int (*pn_ldconf_fn)(void *u, int kind, const char *value);
/* Parses the LEN bytes of ld.so.conf text at TEXT (any bytes). */
int pn_ldconf_parse(const char *text, size_t len, pn_ldconf_fn fn, void *u);

/* ---- the resolver ---- */

/* Entries of one directory kept; past them, names are looked up there
 * by the candidate itself (and the directory is still listed once). */
#define PN_RESOLVE_MAX_ENTRIES (1u << 18)
/* Distinct directories one resolver records, and the bytes they take
 * all told (each its own name and bookkeeping, not its whole path):
 * past either, the rest are taken as missing, said once. */
#define PN_RESOLVE_MAX_DIRS (1u << 22)
#define PN_RESOLVE_MAX_BYTES (64u << 20)

/* How a root is read; paths are absolute in the root ("/" is its top). */
struct pn_resolve_root {
        /* The directory ABS, every symbolic link and ".." resolved inside
         * the root: calls WANT with its identity (two numbers that are the
         * same for the same directory), then, when WANT returned true,
         * EACH with every entry's name.  0; -ENOENT, -ENOTDIR or another
         * negative errno when it is no directory there; -ENOMEM. */
        int (*dir)(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                   void (*each)(void *cu, const char *name), void *cu);
        /* The regular file ABS (links resolved inside the root), at most
         * MAX bytes, into *DATA (malloc()ed, NUL-terminated) and *LEN: 0,
         * -ENOENT when there is none, or another negative errno. */
        int (*read)(void *u, const char *abs, size_t max, void **data, size_t *len);
        void *u;
};

/* The directory ROOTFD (which must outlive R) as a root: every link and
 * ".." resolved inside it (lib/01-base-root.c). */
void pn_resolve_root_tree(struct pn_resolve_root *r, int *rootfd);

/* The work done, for tests (bounds on work are checked by counting). */
struct pn_resolve_stats {
        size_t dir_reads;    /* root->dir calls: each distinct directory once */
        size_t name_lookups; /* probes of a name in a directory's listing */
        size_t candidates;   /* files handed to a candidate callback */
        size_t conf_reads;   /* ld.so.conf files read */
        size_t dirs;         /* directories recorded (the top included) */
        bool limited;        /* PN_RESOLVE_MAX_DIRS or PN_RESOLVE_MAX_BYTES hit */
};

typedef struct pn_resolver pn_resolver;
/* Problems met reading ld.so.conf: ERR, the file, the message. */
typedef void (*pn_resolve_problem_fn)(void *u, int err, const char *path, const char *msg);

int pn_resolver_new(const struct pn_resolve_root *root, pn_resolve_problem_fn problem, void *pu, pn_resolver **ret);
void pn_resolver_free(pn_resolver *r);
const struct pn_resolve_stats *pn_resolver_stats(const pn_resolver *r);

/* Whether the directory ABS is there: 1, 0, or -ENOMEM. */
int pn_resolver_dir_exists(pn_resolver *r, const char *abs);

/* A search path: directories that are there, each once (by identity). */
struct pn_dirlist {
        size_t *v;
        size_t n;
};
void pn_dirlist_done(struct pn_dirlist *l);
/* The colon-separated DT_RPATH or DT_RUNPATH LIST of an object of ABI A
 * found in directory ORIGIN ($ORIGIN), its tokens expanded as glibc
 * expands them ($ORIGIN, $LIB, $PLATFORM; a '$' that starts no token is
 * kept; an entry whose token has no known value is skipped), into *OUT:
 * 0 or -ENOMEM.  Entries relative to the working directory (an empty
 * one is the working directory itself) are searched from the root's
 * top, said once as a problem of WHO (the object's path; NULL: not
 * said).  An empty LIST is none. */
int pn_resolver_expand(pn_resolver *r, const char *list, const char *origin, const struct pn_abi *a, const char *who,
                       struct pn_dirlist *out);

/* A file a search meets: PATH (absolute in the root) in the glibc-hwcaps
 * subdirectory HWCAPS (NULL: the search directory itself).  1 when the
 * loader takes it, with its object's number in *OBJ; 0 when it passes it
 * over (not there, not an object of the ABI); a negative errno stops the
 * search. */
typedef int (*pn_candidate_fn)(void *u, const char *path, const char *hwcaps, size_t *obj);

struct pn_lookup {
        const char *name; /* a file name, no '/' */
        struct pn_abi abi;
        /* DT_RPATH of the object and of its loaders (only those the
         * loader uses: none when the object has DT_RUNPATH), then
         * DT_RUNPATH (may be NULL), expanded; they must stay where they
         * are while the search runs, whatever CANDIDATE does (not in an
         * array that CANDIDATE may grow) */
        const struct pn_dirlist *const *rpath;
        size_t n_rpath;
        const struct pn_dirlist *runpath;
        bool nodeflib; /* DF_1_NODEFLIB: nothing from the system directories */
        pn_candidate_fn candidate;
        void *u;
        /* results */
        size_t found;          /* 1: the object found in a directory itself */
        size_t variant;        /* the first found in a glibc-hwcaps subdirectory, or SIZE_MAX */
        const char *variant_sub;
};
/* Looks Q->name up as glibc's loader does (elf/dl-load.c, _dl_map_object):
 * DT_RPATH, DT_RUNPATH, the directories of the root's ld.so.conf (what
 * ld.so.cache holds), the system directories of the ABI; each directory
 * after its glibc-hwcaps subdirectories, every one of which is tried (the
 * CPU is not known): 1 with Q->found, 0 when no directory itself holds
 * it (Q->variant may still name a glibc-hwcaps one), negative errno. */
int pn_resolver_lookup(pn_resolver *r, struct pn_lookup *q);

/* ---- which dlopen note entries a check follows ---- */

/* The selection of deps --closure and --verify: the entries at least
 * PRIORITY strong (0: none by priority), of FEATURES, or of every
 * feature. */
struct pn_dlopen_select {
        char **features;
        size_t n_features;
        bool all_features;
        int priority;
};
/* Adds FEATURE (NULL: none), PRIORITY (0: none; the weakest given wins)
 * and, when ALL, every feature to S: 0 or -ENOMEM. */
int pn_dlopen_select_add(struct pn_dlopen_select *s, const char *feature, int priority, bool all);
/* Whether S selects entry I of N. */
bool pn_dlopen_selected(const struct pn_dlopen_select *s, const pkgnote_dlopen *n, size_t i);
void pn_dlopen_select_free(struct pn_dlopen_select *s);
