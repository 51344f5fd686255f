/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan's private state, shared by its files:
 *   09-scan.c          the scan: dispatch of inputs, results, package index
 *   09-scan-store.c    what readers write into: objects, problems, progress
 *   09-scan-walk.c     the worker pool, directory trees and single files
 *   09-scan-archive.c  tar archives, docker and OCI images (libarchive)
 *   09-scan-layers.c   archive entries and the merge of image layers
 *   09-scan-verify.c   deps --verify of archives and images: the merge
 *                      into an artefact (lib/07-check-artefact.c)
 *   01-base-hash.c          SHA-1 and SHA-256 for the SBOM's file checksums
 */
#ifndef PKGNOTE_SCAN_PRIVATE_H
#define PKGNOTE_SCAN_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "01-base-hash.h"
#include "01-base.h"
#include "01-base-problem.h"
#include "04-pkgdb-private.h"
#include "01-base-root.h"
#include "07-check-resolve.h"

#define QUEUE_CAP 256u
#define MAX_THREADS 64u
#define IO_CHUNK (256u << 10)

/* ------------------------------------------------------------------ */
/* Objects and the scan                                                */

struct pkgnote_scan_object {
        char *path;
        size_t input;
        uint64_t size;
        unsigned type, machine;
        int elf_class;
        bool be, interp, elf, has_sums;
        const char *pe_kind; /* a PE image's kind (static), else NULL */
        const struct pkgnote_scan_image *image; /* the image it is in, or NULL */
        char **containers; /* the archives inside the input it is in, outermost first */
        size_t n_containers;
        pkgnote_info *info; /* never NULL: notes, build-id and problems */
        char sha1[41], sha256[65];
        /* its root's package databases (NULL: the root has none), and the
         * package that owns its path there (NULL: none) */
        const struct pn_dbroot *dbroot;
        const struct pn_pkg *dbpkg;
        const char *dbtype; /* of DBPKG: "deb", "rpm" or "apk" */
        size_t db_package;  /* DBPKG's index among the scan's packages, once they are built */
        /* PKGNOTE_SCAN_DEPENDENCIES: the dynamic section's names */
        char *soname;
        char **needed;
        size_t n_needed;
        char *rpath, *runpath; /* DT_RPATH, DT_RUNPATH, or NULL */
        bool nodeflib;         /* DF_1_NODEFLIB */
        uint32_t eflags;       /* e_flags (the ARM float ABI) */
        /* the root (a tree, an archive, an image) its library names
         * resolve in, numbered by the scan from 1 (09-scan-libpath.c); 0 none */
        size_t libroot;
};

/* A package of the scan: one a note names, or (DB) one installed in a
 * root's package database (with or without objects: those it owns, notes
 * or not), with its own JSON and metadata made from the database's
 * record. */
struct package {
        const char *json;
        const pkgnote_metadata *meta;
        const pkgnote_scan_object **objects;
        size_t n_objects;
        bool db;
        char *db_json;
        pkgnote_metadata *db_meta;
        const struct pn_dbroot *dbroot; /* DB: the root it is installed in */
        const struct pn_pkg *dbpkg;     /* DB: its record */
        /* A note's package: every object carrying it is owned by a
         * database package the note agrees with, so the SBOMs list it as
         * that package's evidence, not as a component of its own. */
        bool folded;
        /* A note's package in a root with a database: some object carrying
         * it is owned by no package (ABSENT), or by one none of its
         * notes agrees with (MISMATCH). */
        bool absent, mismatch;
};
/* Every package of S: those of the notes (pkgnote_scan_package()), then
 * those of the databases; NULL past the end. */
size_t pn_scan_all_package_count(const pkgnote_scan *s);
/* Builds the package index when it is not built yet: 0, or -ENOMEM (the
 * accessors then see no package, so a writer asks this first). */
int pn_scan_packages_ready(const pkgnote_scan *s);
const struct package *pn_scan_all_package(const pkgnote_scan *s, size_t i);

/* What an image reference said its input is. */
enum { PN_IMAGE_ANY = 0, PN_IMAGE_OCI, PN_IMAGE_OCI_ARCHIVE, PN_IMAGE_DOCKER_ARCHIVE, PN_IMAGE_STORAGE };

/* An image of an input: a tag or digest of a layout, an image of a
 * docker archive, an image of a local container store. */
struct pkgnote_scan_image {
        size_t input, ordinal;   /* ordinal: among the scan's images */
        char *reference;         /* how to name it alone, transport included */
        char *digest;            /* of its manifest or index, if it has one */
        char *id;                /* of its configuration ("sha256:HEX") */
        char **tags;
        size_t n_tags;
        char *platform;          /* its configuration's OS/ARCH[/VARIANT] */
        uint64_t size;           /* configuration and layers, as stored */
        size_t n_layers;
};
void pn_scan_image_free(struct pkgnote_scan_image *im);
/* Adds IM (taken, freed on failure) to the images of S. */
int pn_scan_add_image_record(pkgnote_scan *s, struct pkgnote_scan_image *im);

/* The image of an input to scan: at most one of TAG, DIGEST, INDEX. */
struct pn_image_sel {
        int transport;      /* PN_IMAGE_* */
        const char *tag;    /* an OCI "org.opencontainers.image.ref.name", or a docker REPO:TAG */
        const char *digest; /* "ALG:HEX" of an OCI manifest or index */
        long index;         /* a docker archive's image number, or -1 */
        const char *os, *arch, *variant; /* of a multi-platform image; ARCH NULL: this machine's */
        const char *path;   /* the layout, archive or store (for the images' references) */
        bool trust_digests; /* fuzzing only: nested documents reached without forging digests */
};

/* A root file system read (a tree, an image, an archive of a root) that
 * holds a package database: dpkg's, rpm's or both. */
struct pn_dbroot {
        struct pn_pkgdb *dpkg, *rpm, *apk;
        size_t input;
        const struct pkgnote_scan_image *image;
        char *os_id, *os_version_id; /* its os-release's ID and VERSION_ID */
};
void pn_dbroot_free(struct pn_dbroot *r);

/* Whether the archive member P (normalised) is a file the package
 * databases are read from, and the most of it that is kept. */
bool pn_scan_db_path(const char *p);
size_t pn_scan_db_max(const char *p);
/* Reads the package databases of the root FS and gives the objects from
 * FIRST on (of INPUT and IMAGE, whose paths are PREFIX_LEN bytes then
 * their path in the root) their owners; problems go to the scan. */
void pn_scan_attribute(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image,
                       const struct pn_rootfs *fs, size_t first, size_t prefix_len);
/* The same for the tree below ROOTFD whose objects' paths begin with PATH. */
void pn_scan_attribute_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                            const char *path, size_t first);
/* Whether O's notes name another package or version than its owner. */
bool pn_scan_object_db_mismatch(const struct pkgnote_scan_object *o);

/* A library name (a DT_NEEDED entry, a dlopen note's soname) that objects
 * of a tree of INPUT and IMAGE, of MACHINE and ELF_CLASS, ask for, and the
 * scanned object that the root's library directories give for it
 * (symbolic links resolved inside the root).  (09-scan-libpath.c) */
struct pn_libpath {
        size_t root; /* the objects' libroot */
        size_t input;
        const struct pkgnote_scan_image *image;
        struct pn_abi abi;
        /* the object whose own DT_RPATH, DT_RUNPATH or DF_1_NODEFLIB the
         * search took, or NULL: the root's directories alone */
        const struct pkgnote_scan_object *by;
        char *name;
        const struct pkgnote_scan_object *obj;
};
#define PN_LIBPATH_MAX_NAME 256u   /* bytes of a library name looked up */
#define PN_LIBPATH_MAX (1u << 16) /* names resolved in one scan */
/* Resolves the library names the objects from FIRST on (of the tree below
 * ROOTFD, whose path is PATH) ask for, with PKGNOTE_SCAN_DEPENDENCIES:
 * 0, or -ENOMEM. */
int pn_scan_resolve_libs(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd,
                         const char *path, size_t first);
struct pn_resolve_root;
/* The path in a root that the absolute path ABS reaches, every symbolic
 * link and ".." followed inside the root as if it were "/": 1 and *RET
 * (malloc()ed, absolute, the path of the root's object there), 0 when it
 * reaches no regular file, -ENOMEM. */
typedef int (*pn_libroot_find)(void *u, const char *abs, char **ret);
/* The same for a root that FIND reads (an archive's or an image's merged
 * layers), its objects named by their path in it (PATH is ""). */
int pn_scan_resolve_libs_in(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image,
                            const struct pn_resolve_root *root, pn_libroot_find find, void *u, const char *path,
                            size_t first);
/* The scanned object that library NAME resolved to: in the root of FROM
 * (and of its machine and class) when FROM is not NULL, else in a root
 * of IMAGE (any image when ANY_IMAGE); NULL when none. */
const struct pkgnote_scan_object *pn_scan_lib_object(const pkgnote_scan *s, const struct pkgnote_scan_object *from,
                                                      const struct pkgnote_scan_image *image, bool any_image,
                                                      const char *name);
void pn_scan_libpaths_clear(pkgnote_scan *s);
/* Whether the loader of FROM maps LIB by its ABI (class, machine, byte
 * order, ARM float ABI).  (09-scan-libpath.c) */
bool pn_scan_object_loads(const struct pkgnote_scan_object *from, const struct pkgnote_scan_object *lib);
/* Whether the loader searches for the names of X and Y alike: the same
 * ABI, and neither with a search path of its own (or they are one).
 * (09-scan-libpath.c) */
bool pn_scan_same_search(const struct pkgnote_scan_object *x, const struct pkgnote_scan_object *y);

struct counters {
        _Atomic uint64_t files, bytes, directories, symlinks, special, unreadable, other_fs;
};

struct pkgnote_scan {
        pkgnote_scan_options opts;
        size_t n_inputs;
        uint64_t inputs_ok;
        pthread_mutex_t lock; /* objects and problems, while workers run */
        struct pkgnote_scan_object **objects;
        size_t n_objects, cap_objects;
        struct pn_problems problems;
        struct counters c;
        uint64_t whited_out;
        uint64_t input_inflated; /* decompressed so far by the archives of the input being added */
        struct pn_image_sel sel; /* the image of the input being added */
        struct pkgnote_scan_image **images;
        size_t n_images, cap_images;
        char *platform;          /* sel's OS, ARCH and VARIANT, NUL-separated */
        /* progress */
        _Atomic uint64_t prog_files, prog_bytes;
        uint64_t last_progress;
        struct pn_dbroot **dbroots;
        size_t n_dbroots, cap_dbroots;
        struct pn_libpath *libpaths;
        size_t n_libpaths, cap_libpaths;
        size_t n_libroots;
        /* package index, built on first use */
        struct package *packages;
        size_t n_packages, cap_packages;
        size_t n_note_packages; /* the first ones; database packages follow */
        bool packages_valid;
        /* deps --verify (09-scan-verify.c): the tree the first merge leaves
         * goes into ARTEFACT, not into objects; ELF files are kept whole
         * (pn_scan_verify_keep()), nested archives left closed; MERGES
         * counts the merges (one per image). */
        struct pn_artefact *artefact;
        size_t merges;
        /* Memory ran out while the input being added was read (a problem
         * that could not be kept, or one of memory): that input fails with
         * -ENOMEM, as its results are short. */
        _Atomic int oom;
};

struct pkgnote_scan_object *pn_scan_object_new(const char *path, size_t input);
void pn_scan_object_free(struct pkgnote_scan_object *o);
int pn_scan_object_add_problem(struct pkgnote_scan_object *o, int err, const char *msg);
/* Copies what the scan keeps of E (which may be freed right after), with
 * DEPS the names of its dynamic section. */
int pn_scan_object_fill(struct pkgnote_scan_object *o, pkgnote_object *e, bool deps);
/* Copies the N names of CHAIN into O's containers: 0 or -ENOMEM. */
int pn_scan_object_set_containers(struct pkgnote_scan_object *o, char *const *chain, size_t n);
/* The order of a scan's objects: by input; objects of no image first,
 * then by image; by path; by the chain of archives they are in (a path
 * may be both in the input's own tree and in an archive inside it). */
int pn_scan_object_cmp(const struct pkgnote_scan_object *x, const struct pkgnote_scan_object *y);
/* A deep copy of SRC named PATH (a hard link to it), or NULL. */
struct pkgnote_scan_object *pn_scan_object_clone(const struct pkgnote_scan_object *src, const char *path);

/* Records a problem; safe from workers.  A problem of memory (ERR
 * -ENOMEM), or one that cannot be kept, marks the input as failed for
 * want of memory (s->oom) instead. */
void pn_scan_add_problem(pkgnote_scan *s, size_t input, const char *path, int err, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
/* Adds O (taking it, freed on failure); safe from workers. */
int pn_scan_add_object(pkgnote_scan *s, struct pkgnote_scan_object *o);
/* Calls the progress callback, at most every 100 ms unless FORCE. */
void pn_scan_progress(pkgnote_scan *s, bool force);
/* DIR "/" NAME, without doubling a trailing slash of DIR; NULL without memory. */
char *pn_scan_join(const char *dir, const char *name);

/* deps --verify: a regular file of SIZE bytes whose first N bytes are at
 * HEAD is kept whole (an ELF file); 1 when it is, 0 when not, -EFBIG
 * when larger than the scan's limit of bytes (with pn_error set). */
int pn_scan_verify_keep(const pkgnote_scan *s, const uint8_t *head, size_t n, uint64_t size);

/* ------------------------------------------------------------------ */
/* The worker pool                                                     */

struct dirref;

enum { JOB_FILE = 1, JOB_MEMBER, JOB_FD };

struct pool;
struct job {
        int kind;
        char *path;
        /* JOB_FILE: N_NAMES files of the directory DIR, whose path is
         * PATH, read by RUN (through IO, IO_CHUNK bytes, when checksums
         * are asked for; then NULL only without memory), which also
         * releases DIR */
        struct dirref *dir;
        void (*run)(struct pool *p, struct job *j, uint8_t *io);
        char **names;
        size_t n_names;
        /* JOB_MEMBER: LEN bytes at BUF (the whole member unless PARTIAL),
         * results into OBJ, owned by the layer's entry */
        uint8_t *buf;
        size_t len, cap; /* CAP: BUF's size, from pn_pool_buf() */
        bool partial;
        /* or N_SPANS ranges of it (SPANS, malloc()ed), their bytes at BUF
         * (malloc()ed, CAP 0) */
        struct pn_span *spans;
        size_t n_spans;
        uint64_t span_size; /* the bytes of the member they are of */
        struct pkgnote_scan_object *obj;
        /* JOB_FD: an open regular file (taken), results into OBJ */
        int fd;
};

struct pool {
        pkgnote_scan *s;
        size_t input;
        const struct pkgnote_scan_image *image; /* of the files of a tree walked */
        dev_t dev; /* for PKGNOTE_SCAN_ONE_FILE_SYSTEM */
        pthread_mutex_t lock;
        pthread_cond_t more, room;
        struct job ring[QUEUE_CAP];
        size_t head, count;
        uint64_t inflight, inflight_limit;
        unsigned busy; /* jobs being run */
        bool done;
        /* member buffers freed by the workers, kept for the next ones:
         * fresh memory for each member costs a page fault per page */
        struct {
                uint8_t *buf;
                size_t cap;
        } spare[16];
        size_t n_spare, spare_bytes;
        /* a tree walk: files that are archives, opened after the walk,
         * with the format their first bytes told */
        struct pn_tree_archive {
                char *path;
                const struct pn_scan_format *format;
        } *archives;
        size_t n_archives, cap_archives;
        pthread_t threads[MAX_THREADS];
        unsigned n_threads;
};

int pn_pool_start(struct pool *p, pkgnote_scan *s, size_t input);
/* Queues J (taking its resources); waits while the queue is full or too
 * many bytes are in flight. */
void pn_pool_submit(struct pool *p, struct job *j);
/* Waits for every queued job and stops the workers. */
void pn_pool_finish(struct pool *p);
/* Waits until every queued job is done, the workers still running. */
void pn_pool_drain(struct pool *p);
/* Frees what J holds (a job never queued, or one run). */
void pn_job_clear(struct pool *p, struct job *j);
/* Sets the checksums of O from the whole of FD, read through IO
 * (IO_CHUNK bytes); 0, or a negative errno with O left without them. */
int pn_scan_sum_fd(int fd, uint8_t *io, struct pkgnote_scan_object *o);
/* A buffer of at least WANT bytes for a JOB_MEMBER (its size in *CAP),
 * reused from a finished job when one is large enough; NULL without
 * memory. */
uint8_t *pn_pool_buf(struct pool *p, size_t want, size_t *cap);
/* Frees a buffer of pn_pool_buf() never handed to a job. */
void pn_pool_buf_free(uint8_t *buf, size_t cap);

/* ------------------------------------------------------------------ */
/* The format table (09-scan-format.c)                                 */

/* The bytes of a file or member read to tell its format. */
#define PN_SCAN_HEAD 4096u

/* Where a file of some format is met. */
enum {
        PN_AT_INPUT = 1u << 0,  /* a regular file named as an input */
        PN_AT_TREE = 1u << 1,   /* a file of a directory tree */
        PN_AT_MEMBER = 1u << 2, /* a member of an archive, read on as a stream */
};

/* A file to read, as a reader of the table gets it. */
struct pn_scan_place {
        unsigned at;                             /* one PN_AT_* */
        const char *path;                        /* its path, in objects and problems */
        const char *display;                     /* the input's name in messages */
        const struct stat *st;                   /* PN_AT_INPUT */
        const struct pkgnote_scan_image *image;  /* PN_AT_TREE: the image the tree is of */
};

struct pn_scan_format {
        const char *name;
        unsigned at; /* the PN_AT_* where it is looked for */
        /* Whether the N first bytes at HEAD (PN_SCAN_HEAD, or the whole
         * file when shorter) are of this format. */
        bool (*bid)(const uint8_t *head, size_t n);
        /* Its reader's family (09-scan-format.c): a PKGNOTE_SCAN_INPUT_* or a
         * negative errno (-ENOEXEC: not of the format after all). */
        enum { PN_READ_ELF, PN_READ_SQUASHFS, PN_READ_ARCHIVE } reader;
        /* The bid could not always tell (a compressed file, when this
         * build cannot look inside): what its reader then finds to be no
         * archive at all is dropped silently. */
        bool guess;
};

/* The format of the N first bytes at HEAD of a file met AT (ALL: in a
 * tree, with PKGNOTE_SCAN_OPEN_ARCHIVES); NULL: none worth reading.
 * (09-scan-bid.c, which depends on nothing of the scan's.) */
const struct pn_scan_format *pn_scan_format_bid(const uint8_t *head, size_t n, unsigned at, bool all);
/* 1 when the first N bytes at P begin an object the object view reads:
 * ELF, or PE with its signature among those bytes. */
bool pn_scan_object_magic(const uint8_t *p, size_t n);
bool pn_scan_format_is_elf(const struct pn_scan_format *f);
/* Reads FD as F (NULL: an ELF or plain file named as input). */
int pn_scan_format_read(pkgnote_scan *s, const struct pn_scan_format *f, size_t input, int fd,
                        const struct pn_scan_place *pl);
/* The archive an input stream (a pipe) holds. */
int pn_scan_format_stream(pkgnote_scan *s, size_t input, int fd, const char *display);
/* Whether the N bytes at P begin like an archive libarchive reads. */
bool pn_scan_archive_magic(const uint8_t *p, size_t n);

/* ------------------------------------------------------------------ */
/* Inputs: each returns a PKGNOTE_SCAN_INPUT_* or a negative errno     */

/* The tree below the directory ROOTFD (taken), whose path is PATH, its
 * objects those of IMAGE (NULL: of no image). */
int pn_scan_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int rootfd, const char *path);
/* An archive on FD: a root filesystem, or a docker/OCI image; -ENOEXEC
 * when FD holds no archive. */
int pn_scan_archive(pkgnote_scan *s, size_t input, int fd, const char *display);
/* The archive FD, the file PATH of a directory tree whose objects are of
 * IMAGE: its objects carry PATH as their outermost container.  A file
 * that cannot be read is a problem of the scan (0), unless GUESS (its
 * format was a guess) and it holds no archive at all; -EFBIG past the
 * decompression limit, -ENOMEM. */
int pn_scan_archive_in_tree(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, int fd,
                            const char *path, bool guess);
/* The SquashFS image at OFFSET of the regular file FD (libsquashfs). */
int pn_scan_squashfs(pkgnote_scan *s, size_t input, int fd, uint64_t offset, const char *display);
/* An OCI image layout directory. */
int pn_scan_oci_dir(pkgnote_scan *s, size_t input, int dirfd, const char *display);
/* The images of a local container store (podman, buildah, CRI-O): SPEC
 * is "[DRIVER@]GRAPHROOT[+RUNROOT][:OPTIONS]", or "" for the user's own
 * store as containers-storage.conf(5) says. */
int pn_scan_storage(pkgnote_scan *s, size_t input, const char *spec, const char *display);

/* ------------------------------------------------------------------ */
/* Decompression ahead of the archive reader (09-scan-stream.c)        */

/* The formats are the decompressor's (01-base-decompress.h). */
enum { PN_STREAM_NONE = 0, PN_STREAM_GZIP = 1, PN_STREAM_XZ = 2, PN_STREAM_ZSTD = 3 };
/* The compression the N bytes at P begin, when this build decodes it. */
int pn_stream_kind(const uint8_t *p, size_t n);
/* The next compressed bytes: their number (*OUT valid until the next
 * call), 0 at the end, or -1 with the reason in WHY (SIZE bytes). */
typedef ssize_t (*pn_stream_up_fn)(void *u, const void **out, char *why, size_t size);
struct pn_stream;
/* A thread decompressing UP's bytes (KIND) ahead, xz with THREADS
 * threads of its own; NULL without memory or threads. */
struct pn_stream *pn_stream_new(int kind, pn_stream_up_fn up, void *u, unsigned threads);
/* The next decompressed bytes (*OUT valid until the next call): their
 * number, 0 at the end, or a negative errno with the reason in *WHY. */
ssize_t pn_stream_read(struct pn_stream *st, const void **out, const char **why);
/* Stops the thread and frees ST (NULL: nothing). */
void pn_stream_free(struct pn_stream *st);

/* ------------------------------------------------------------------ */
/* What is kept of a large ELF member read as a stream (09-scan-capture.c) */

#define PN_MEMBER_WHOLE (64u << 10)    /* an ELF member up to this size is read whole */
#define PN_CAPTURE_HEAD (4u << 10)     /* the first page, always kept */
#define PN_CAPTURE_DYNAMIC (64u << 10) /* of PT_DYNAMIC, as pn_elf_dynamic() reads */
#define PN_CAPTURE_MAX (16u << 20)     /* kept of one member at most */
#define PN_CAPTURE_NAMES (64u << 10)   /* before the section headers: the section name table */

struct pn_capture {
        uint64_t size; /* of the member, as far as it is read */
        uint64_t pos;  /* bytes of it seen */
        bool deps, is64, be, full;
        int stage;     /* 0: before the ELF header, 1: before the program headers, 2: after */
        uint64_t phoff, shoff;
        unsigned phnum, phentsize;
        struct { uint64_t off, end; } *want; /* ahead, sorted, disjoint */
        size_t n_want, cap_want;
        struct pn_span *spans; /* kept, increasing */
        size_t n_spans, cap_spans;
        uint8_t *buf;          /* their bytes */
        size_t len, cap;
        /* Go's build information, in a writable segment: the PT_NOTEs
         * (to tell a Go program, whose build-id note is in one), the
         * first writable segments (off, end in the file), the step
         * (0: not known to be Go yet, 1: searching window GO_AT, 2:
         * done) and the offset the next step is taken at. */
        struct { uint64_t off, end; } go_note[4], go_seg[8];
        unsigned n_go_note, n_go_seg, go_at;
        int go_step;
        uint64_t go_next;
        bool has_shdrs;
};
/* Starts keeping the parts of a member of SIZE bytes (as far as it is
 * read) that its notes (DEPS: and its dynamic section) are read from. */
int pn_capture_init(struct pn_capture *c, uint64_t size, bool deps);
/* The next N bytes of the member: 0 or -ENOMEM. */
int pn_capture_feed(struct pn_capture *c, const uint8_t *p, size_t n);
void pn_capture_clear(struct pn_capture *c);

/* ------------------------------------------------------------------ */
/* Archive entries and layers                                          */

enum { E_FILE = 1, E_DIR, E_SYMLINK, E_SPECIAL, E_HARDLINK, E_WHITEOUT, E_OPAQUE };

struct entry {
        char *path; /* normalised, without leading "/" */
        char *target; /* E_HARDLINK: normalised target; E_SYMLINK: the link's text, NULL when not kept */
        uint8_t kind;
        bool taken;
        uint64_t size;
        struct pkgnote_scan_object *obj; /* ELF members */
        const struct entry *resolved;   /* E_HARDLINK: the file it names */
        char *data;                     /* a package database's file: its content */
        size_t len;
        uint32_t source;                /* where its content is, for a merge hook */
};

struct layer {
        char *name;
        int verified; /* PKGNOTE_SCAN_VERIFY_LAYERS: 1 its digest matched, -1 not, 0 unknown */
        long in_layer; /* an archive inside an image layer: that layer's index, else -1 */
        bool not_archive; /* an image member named like a layer that is none */
        struct entry *e;
        size_t n, cap;
        size_t link_bytes; /* of the symbolic links' texts kept */
};


void pn_layer_clear(struct layer *l);
/* A new entry of L, or NULL (with pn_error set but for a failed realloc). */
struct entry *pn_layer_add(struct layer *l, const char *path, int kind);
/* Symbolic links are followed when library names are resolved in the
 * merged layers (09-scan-libpath.c): the texts kept per layer, and the links
 * one name may pass through (as the kernel's MAXSYMLINKS). */
#define PN_LAYER_MAX_LINK_BYTES (64u << 20)
#define PN_LAYER_MAX_FOLLOW 40u
/* A new symbolic link PATH of L to TARGET (NULL: not known), the text
 * kept when KEEP and within PKGNOTE_MAX_SCAN_PATH and the layer's
 * PN_LAYER_MAX_LINK_BYTES: 0, or -ENOMEM. */
int pn_layer_add_symlink(struct layer *l, const char *path, const char *target, bool keep);
/* Reads the content of entries whose layers were listed without it: FILL
 * is called for each regular file the merge leaves (to set its object),
 * then WAIT once before the objects are taken. */
struct pn_merge_hook {
        void (*fill)(void *u, struct entry *e);
        void (*wait)(void *u);
        /* reads the file of E, as struct pn_rootfs's read */
        int (*read)(void *u, const struct entry *e, size_t max, void **data, size_t *len);
        void *u;
};

/* Applies LAYERS bottom to top and adds what is left to the scan, as
 * objects of IMAGE (NULL: of no image).  Objects already handed to an
 * earlier merge (a layer two images share) are copied.  HOOK may be NULL. */
int pn_merge_layers(pkgnote_scan *s, size_t input, const struct pkgnote_scan_image *image, struct layer **layers,
                    size_t n, const struct pn_merge_hook *hook);

/* ------------------------------------------------------------------ */
/* Image references and manifests (09-scan-image.c)                   */

/* Parses "oci:DIR[:TAG|@DIGEST]", "oci-archive:FILE[:TAG]" and
 * "docker-archive:FILE[:REPO:TAG|:@N]": 1 with *PATH (malloc()ed) and SEL
 * set (its strings point into REF), 0 when REF names no transport, or a
 * negative errno. */
int pn_image_ref_parse(const char *ref, char **path, struct pn_image_sel *sel);
/* Sets the image of SEL from IMAGE ("TAG", "REPO:TAG", "@DIGEST", "@N")
 * for TRANSPORT (PN_IMAGE_ANY: whatever the input turns out to be). */
int pn_image_select(const char *image, int transport, struct pn_image_sel *sel);
/* Whether S is lowercase hex of at least MIN digits. */
bool pn_is_hex(const char *s, size_t min);

/* Reads the document NAME of an image ("manifest.json", "index.json" or
 * "blobs/ALG/HEX") into *DATA (malloc()ed, *LEN bytes); a negative errno,
 * with pn_error set. */
typedef int (*pn_blob_fn)(void *u, const char *name, void **data, size_t *len);

/* An image chosen in a layout or archive: its record (for the scan) and
 * its layers, bottom first, as normalised relative paths. */
struct pn_image_pick {
        struct pkgnote_scan_image *img;
        const struct pkgnote_scan_image *rec; /* IMG once the scan has it */
        char **layers;
        size_t n_layers;
};
void pn_image_picks_free(struct pn_image_pick *p, size_t n);

/* The images SEL chooses in the image description of an input of KIND
 * (PN_IMAGE_DOCKER_ARCHIVE: manifest.json; PN_IMAGE_OCI or
 * PN_IMAGE_OCI_ARCHIVE: index.json, a directory or a tar), into *RET (*N_RET of them): one when SEL names one, else
 * every image, each image that cannot be read told as a problem (an error
 * when none can).  Indexes, manifests and configurations reached by
 * digest are verified against it. */
int pn_image_list(pkgnote_scan *s, size_t input, const char *display, const struct pn_image_sel *sel, int kind,
                  pn_blob_fn get, void *u, struct pn_image_pick **ret, size_t *ret_n);
void pn_free_names(char **names, size_t n);
/* Appends TAG (when not there yet, and not NULL) to the tags of IM: 0, or
 * -E2BIG past PKGNOTE_MAX_SCAN_LAYERS tags, or -ENOMEM. */
int pn_image_add_tag(struct pkgnote_scan_image *im, const char *tag);
struct json_t;
/* The platform "OS/ARCH[/VARIANT]" an image configuration gives, into
 * *RET (malloc()ed; NULL when it gives none): 0 or -ENOMEM. */
int pn_image_platform(struct json_t *config, char **ret);

#endif
