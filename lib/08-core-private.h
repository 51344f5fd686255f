/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private interfaces of the core reader. */
#ifndef PKGNOTE_CORE_H
#define PKGNOTE_CORE_H

#include "01-base.h"
#include "01-base-problem.h"
#include "01-base-root.h"

#define PN_DELETED_SUFFIX " (deleted)"
/* At most this many modules of one file: a process may map one object
 * more than once (dlmopen() namespaces), but one that maps a file at
 * thousands of places would fill PKGNOTE_MAX_MODULES and leave out the
 * objects mapped above them, its C library among them. */
#define PN_MODULES_PER_FILE 16u

struct range {
        uint64_t off, len;
        const uint8_t *data; /* NULL until fetched, or when unavailable */
        uint8_t *owned;
};

struct mapping {
        uint64_t start, end, pgoff; /* pgoff in bytes */
        const char *path;
};

struct pkgnote_module {
        char *path;
        uint64_t start, end;
        bool is_vdso, deleted;
        bool not_dumped; /* the core maps its start but dumped no byte of it */
        bool replaced; /* a process's file differs from the one at its path now */
        uint64_t dev, ino; /* a process's mapped file, from /proc/PID/maps */
        uint64_t first_end; /* end of the module's first mapping (map_files name) */
        size_t range; /* index into ranges, or SIZE_MAX */
        pkgnote_info *info;
        char *build_id;      /* from the core, or NULL */
        char *disk_build_id; /* from the disk copy when one was read */
        int source;
        const char *found_by; /* "nt-file", "link-map", "elf-header", "auxv" */
        char *reason;        /* why metadata is missing or was not used */
        int db_state;        /* PKGNOTE_DB_*: what the package database said */
        const struct pn_pkg *dbpkg; /* the path's owner, in the core's pkgdb, or NULL */
        const char *dbtype;  /* that database's type: "deb", "rpm" */
        bool db_mismatch;    /* a note names another package than the database */
        pkgnote_info *now_info; /* a replaced module: the notes of the file at its path now */
        bool oom;            /* memory ran out for it (pn_core_ran_out()) */
};

/* The report of M's notes, where one was read (pkgnote_module_info()). */
static inline const pkgnote_info *pn_module_info(const pkgnote_module *m) {
        return m->source == PKGNOTE_SOURCE_CORE || m->source == PKGNOTE_SOURCE_DISK ||
                               m->source == PKGNOTE_SOURCE_MAPPED
                       ? m->info
                       : NULL;
}

struct pkgnote_core {
        /* Memory ran out on a path that goes on without what it could not
         * make (a problem, a reason, a /proc file): the report would be
         * short, so the open fails with -ENOMEM (pn_core_ran_out()). */
        bool oom;
        struct pn_core_source *src;
        int stream_fd; /* a compressed core file's, when have_stream_fd */
        bool have_stream_fd;
        bool decompressed_once; /* PKGNOTE_CORE_DECOMPRESS_ONCE: view is over a memfd */
        uint64_t compressed_read; /* then, the compressed bytes read */
        char *root;   /* the options, for the unwinder */
        bool no_disk;
        bool live; /* a running process (pkgnote_process_open()), not a core */
        pkgnote_object *view; /* over the core file, or over the streamed prefix */
        uint8_t *prefix;
        bool is64, be;
        unsigned machine;
        uint64_t page; /* the kernel's page size, from NT_FILE */

        int pid, uid, gid, signal, ppid;
        int tid, prstatus_ppid; /* the crashing thread, from the first NT_PRSTATUS */
        bool have_pid, have_ppid, have_tid, have_ids, have_signal;
        uint64_t fault_addr;
        bool have_fault_addr;
        char comm[17];
        char *args;
        char *exe;
        pkgnote_thread_info *threads;
        size_t n_threads, cap_threads;

        uint64_t auxv_phdr, auxv_phnum, auxv_entry, auxv_execfn, auxv_vdso;

        struct mapping *maps;
        size_t n_maps;
        char *file_note; /* copy of NT_FILE's descriptor, paths point into it */

        struct range *ranges;
        size_t n_ranges, cap_ranges;

        struct pn_core_loads *loads; /* PT_LOADs by address, built on first lookup */
        bool loads_failed;           /* no memory for that: lookups walk the loads */

        pkgnote_module *modules;
        size_t n_modules, cap_modules;
        size_t main_module;

        struct pn_problems problems;
        struct pn_pkgdb *pkgdb; /* the root's package database, when it was asked */
        bool pkgdb_borrowed;    /* pkgdb belongs to a pkgnote_dbcache, not to the core */
        char *root_prefix;      /* a process's root as the reader sees it, when not "/" */
};

/* Appends a module for PATH (a " (deleted)" suffix becomes the flag);
 * NULL at the module limit (reported, *err 0) or on -ENOMEM (*err). */
pkgnote_module *pn_core_new_module(pkgnote_core *c, const char *path, uint64_t start, uint64_t end, bool vdso,
                                   int *err);
/* Records a problem of the core: malformed (-EBADMSG), or with ERR. */
void pn_core_problem(pkgnote_core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether memory ran out while C was read (c->oom, or a module's). */
bool pn_core_ran_out(const pkgnote_core *c);
void pn_core_problem_err(pkgnote_core *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pn_module_set_reason(pkgnote_module *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Asks the package database of the root in O (NULL: the host's) about
 * the modules, once every module is read, when some module lacks a
 * package note (lib/08-core-pkgdb.c). */
void pn_core_ask_database(pkgnote_core *c, const pkgnote_core_options *o);
/* The same inside the root directory ROOTFD, the database taken from (or
 * put into) CACHE, which the core then borrows. */
void pn_core_ask_database_in(pkgnote_core *c, int rootfd, pkgnote_dbcache *cache);
/* A module's path inside the process's root: maps names files as the
 * reader sees them, so a chrooted process's carry the chroot's prefix. */
const char *pn_module_path_in_root(const pkgnote_core *c, const pkgnote_module *m);
/* A long of the core's class and byte order. */
static inline uint64_t pn_core_word(const pkgnote_core *c, const uint8_t *p) {
        return c->is64 ? pn_rd64(p, c->be) : pn_rd32(p, c->be);
}

/* Offsets of the process notes' fields for an architecture (08-core-notes.c). */
struct pn_core_layout {
        size_t word, id_size;
        size_t prstatus_pid, prstatus_min;
        size_t prpsinfo_uid, prpsinfo_pid, prpsinfo_fname, prpsinfo_size;
};
/* Whether MACHINE is a Linux port whose layout is known; L is filled
 * either way (natural alignment, 32-bit ids for unknown ones). */
bool pn_core_layout(unsigned machine, bool is64, struct pn_core_layout *l);
void pn_core_parse_prstatus(pkgnote_core *c, const pkgnote_note *n);
void pn_core_parse_prpsinfo(pkgnote_core *c, const pkgnote_note *n);
void pn_core_parse_siginfo(pkgnote_core *c, const pkgnote_note *n);
/* Settles the process and parent ids once every note is read. */
void pn_core_settle_ids(pkgnote_core *c);
/* Reads AT_PHDR, AT_ENTRY, AT_EXECFN, AT_SYSINFO_EHDR from an auxv in the
 * core's class and byte order. */
/* /proc/PID/maps, read line by line (lib/08-core-process.c): memory is one
 * line's, whatever the number of mappings. */
struct pn_maps_entry {
        uint64_t start, end, offset, inode;
        unsigned major, minor;
        const char *path; /* "\012" decoded; "" for anonymous memory; valid during the call */
};
struct pn_maps_stats {
        size_t lines;      /* lines met, passed over ones included */
        size_t long_lines; /* longer than PKGNOTE_MAX_MAPS_LINE: passed over */
        size_t malformed;  /* not "start-end perms offset major:minor inode [path]" */
        bool cut;          /* stopped after PKGNOTE_MAX_MAPPINGS lines */
        bool unterminated; /* the last line had no newline */
};
/* Called for each well-formed line: 0 to go on, > 0 to stop, < 0 an error
 * (stops too, and is returned). */
typedef int (*pn_maps_fn)(const struct pn_maps_entry *e, void *u);
struct pn_maps_reader {
        char *line; /* PKGNOTE_MAX_MAPS_LINE + 1 bytes */
        size_t n;
        bool skipping, stopped;
        int result;
        pn_maps_fn fn;
        void *u;
        struct pn_maps_stats stats;
};
int pn_maps_reader_init(struct pn_maps_reader *r, pn_maps_fn fn, void *u);
void pn_maps_reader_free(struct pn_maps_reader *r);
/* Bytes of maps text in any pieces: 0 to go on, else why it stopped (FN's
 * result, or 1 at PKGNOTE_MAX_MAPPINGS lines). */
int pn_maps_feed(struct pn_maps_reader *r, const char *data, size_t len);
/* The end of the text: its last line even without a newline. */
int pn_maps_finish(struct pn_maps_reader *r);
/* Feeds what FD holds, then finishes; -errno when a read fails. */
int pn_maps_read_fd(struct pn_maps_reader *r, int fd);

void pn_core_parse_auxv(pkgnote_core *c, const uint8_t *desc, size_t len);
/* Picks the executable's module through AT_PHDR/AT_ENTRY (modules sorted). */
void pn_core_find_main_module(pkgnote_core *c);
int pn_core_cmp_module(const void *a, const void *b);

/* The core's file offset of the bytes dumped for ADDR, and how many there
 * are from there, when a PT_LOAD dumped them. */
bool pn_core_dumped_at(pkgnote_core *c, uint64_t addr, uint64_t *off, uint64_t *avail);
/* Whether any PT_LOAD of the core maps ADDR, dumped or not. */
bool pn_core_mapped_at(pkgnote_core *c, uint64_t addr);
void pn_core_loads_free(struct pn_core_loads *l);
/* Adds a module found by HOW (a static string). */
typedef int (*pn_core_add_fn)(pkgnote_core *c, const char *path, uint64_t start, uint64_t end, const char *how);
/* Modules of a core without NT_FILE, from its memory (08-core-discover.c). */
int pn_core_discover_modules(pkgnote_core *c, pn_core_add_fn add);
/* The name the dynamic linker's list gives the module over [START, END)
 * (the entry whose l_ld lies there), malloc()ed, or NULL (none, or a
 * streamed core, which is not read at random). */
char *pn_core_link_map_name(pkgnote_core *c, uint64_t start, uint64_t end);

/* A core read forward only: compressed (zstd, xz, lz4) or from a pipe. */
struct pn_core_source;

/* Detects what FD holds.  *ret is NULL for a plain seekable ELF file
 * (read in place), else a stream source. */
int pn_core_source_open(int fd, struct pn_core_source **ret);
/* Reads the core's ELF header, program headers and PT_NOTE segments:
 * the prefix up to the end of the last of them, malloc()ed. */
int pn_core_source_prefix(struct pn_core_source *s, uint8_t **ret, uint64_t *len);
/* Reads LEN bytes at OFF, which must not lie before what was already
 * read (-ESPIPE); *got is short only at the end of the core. */
int pn_core_source_read(struct pn_core_source *s, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *got);
/* Decompresses the whole stream, unread so far, into a descriptor *RET
 * open for reading, its zero blocks left as holes: a sealed memfd while
 * at most IN_MEMORY bytes are not zero, past them an unlinked temporary
 * file in pn_core_temporary_dir() (what memory held moved there), so that
 * memory stays bounded whatever the core's size.  Where no temporary file
 * can be made, the core stays in memory and WHY (WHY_LEN bytes) says so;
 * else WHY is "".  -E2BIG when more than LIMIT bytes are not zero, or
 * than the core's own headers declare (the end of its last segment plus
 * DECOMPRESS_SLACK: what follows is no part of the core),
 * -ENOMEM when memory runs out, -errno when the temporary file cannot be
 * written (a full disk), or the stream's error. */
int pn_core_source_decompress(struct pn_core_source *s, uint64_t limit, uint64_t in_memory, int *ret, char *why,
                              size_t why_len);
/* The most bytes (not zero) a compressed core may decompress to: half of
 * the machine's memory (pn_core_source_decompress() also stops at the end
 * of the last segment the core's own headers declare, plus
 * DECOMPRESS_SLACK). */
#define DECOMPRESS_SLACK (1u << 20)
uint64_t pn_core_decompress_limit(void);
/* The bytes of a decompressed core kept in memory:
 * PKGNOTE_MAX_CORE_IN_MEMORY, or less for tests
 * ($PKGNOTE_TEST_CORE_IN_MEMORY, which can only lower it). */
uint64_t pn_core_memory_bound(void);
/* Where a decompressed core goes past that bound: $TMPDIR, else /var/tmp. */
const char *pn_core_temporary_dir(void);
bool pn_core_source_compressed(const struct pn_core_source *s);
/* Bytes read from the file descriptor (compressed bytes for a stream). */
uint64_t pn_core_source_bytes_read(const struct pn_core_source *s);
void pn_core_source_free(struct pn_core_source *s);

/* A module's file image rebuilt from the core's dumped pages of the module
 * whose ELF header is at START (lib/08-core-stack-image.c), for the unwinder: RAW
 * is the whole core, RAW_SIZE bytes.  1 with *RET (malloc()ed) and
 * *RET_LEN set, 0 when the core lacks its header or program headers,
 * -ENOMEM. */
int pn_core_module_image(const pkgnote_core *c, const uint8_t *raw, uint64_t raw_size, uint64_t start, uint8_t **ret,
                         size_t *ret_len);

/* A stack object from the unwinder child's records (lib/08-core-stack.c), checked
 * as the parent checks them: for the fuzzer, since a child that a hostile
 * core subverted may send anything. */
/* The root directory the running kernel K's image, modules and database
 * were looked for in (lib/08-core-kernel.c), and the architecture of the
 * database package of the kernel (I SIZE_MAX) or of loaded module I, or
 * NULL: what pkgnote_kernel_info does not carry, for the SBOMs. */
const char *pn_kernel_root(const pkgnote_kernel *k);
const char *pn_kernel_db_architecture(const pkgnote_kernel *k, size_t i);

int pn_stack_from_records(const void *buf, size_t len, pkgnote_stack **ret);

#endif
