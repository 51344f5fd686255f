/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Memory running out, at every allocation in turn: the allocator below
 * fails its Nth call, for N = 0, 1, 2, ... until a scenario runs through
 * without reaching N.  Each run must fail with -ENOMEM (or succeed, when
 * the failed allocation was one the library can do without), never crash,
 * give back every allocation it made (counted here), and a handle whose
 * work failed must say so again when asked again.
 *
 * The allocator wraps glibc's own (__libc_malloc and its siblings), so this
 * test is built only without a sanitizer, which brings its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pkgnote.h"
#include "testlib.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

/* The project builds with hidden visibility: these must be seen by libc
 * and the shared libraries. */
#define PUBLIC __attribute__((visibility("default")))

static long fail_at = -1; /* the index of the call that fails; < 0: none */
static long calls;        /* allocations asked for since the last reset */
static long live;         /* allocations not given back */
static int failed;        /* the failing call was reached */
static int in_lexer;      /* ... from inside jansson's parser (see sweep()) */

/* TEST_OOM_AT mode: the live allocations by index, to name a leak's
 * allocations, and TEST_OOM_TRACE=K prints where allocation K is made. */
static int tracking;
static long trace_at = -1;
static struct {
        void *p;
        long index;
} table[1 << 16];

static int take(void) {
        long n = __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
        if (n == __atomic_load_n(&fail_at, __ATOMIC_RELAXED)) {
                __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
                /* Who asked: the caller of malloc() and its callers. */
                void *bt[64];
                int k = backtrace(bt, 64);
                if (tracking) { /* TEST_OOM_AT: where the failing call is made */
                        tracking = 0;
                        backtrace_symbols_fd(bt, k, 2);
                        tracking = 1;
                }
                Dl_info d;
                for (int i = 2; i < k; i++)
                        if (dladdr(bt[i], &d) && d.dli_sname && !strncmp(d.dli_sname, "json_load", 9)) {
                                in_lexer = 1;
                                break;
                        }
                errno = ENOMEM;
                return -1;
        }
        return 0;
}

static void track(void *p, long index) {
        if (!tracking || !p)
                return;
        for (size_t i = ((uintptr_t)p >> 4) & 0xffff, k = 0; k < 0x10000; i = (i + 1) & 0xffff, k++)
                if (!table[i].p) {
                        table[i].p = p;
                        table[i].index = index;
                        return;
                }
}

static void untrack(void *p) {
        if (!tracking || !p)
                return;
        for (size_t i = ((uintptr_t)p >> 4) & 0xffff, k = 0; k < 0x10000; i = (i + 1) & 0xffff, k++)
                if (table[i].p == p) {
                        table[i].p = (void *)1; /* a tombstone */
                        return;
                }
}

static void *count(void *p) {
        if (p) {
                __atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
                long index = __atomic_load_n(&calls, __ATOMIC_RELAXED) - 1;
                track(p, index);
                if (tracking && index == trace_at) {
                        void *bt[32];
                        tracking = 0;
                        backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
                        tracking = 1;
                }
        }
        return p;
}

PUBLIC void *malloc(size_t n) {
        return take() < 0 ? NULL : count(__libc_malloc(n));
}

PUBLIC void *calloc(size_t k, size_t n) {
        return take() < 0 ? NULL : count(__libc_calloc(k, n));
}

PUBLIC void free(void *p) {
        if (p)
                __atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED);
        untrack(p);
        __libc_free(p);
}

PUBLIC void *realloc(void *p, size_t n) {
        if (!p)
                return malloc(n);
        if (n == 0) {
                free(p);
                return NULL;
        }
        if (take() < 0)
                return NULL;
        void *q = __libc_realloc(p, n);
        if (q && q != p && tracking) {
                untrack(p);
                track(q, __atomic_load_n(&calls, __ATOMIC_RELAXED) - 1);
        }
        return q;
}

PUBLIC void *reallocarray(void *p, size_t k, size_t n) {
        if (n && k > SIZE_MAX / n) {
                errno = ENOMEM;
                return NULL;
        }
        return realloc(p, k * n);
}

PUBLIC void *memalign(size_t a, size_t n) {
        return take() < 0 ? NULL : count(__libc_memalign(a, n));
}

PUBLIC void *aligned_alloc(size_t a, size_t n) {
        return memalign(a, n);
}

PUBLIC int posix_memalign(void **ret, size_t a, size_t n) {
        void *p = memalign(a, n);
        if (!p)
                return ENOMEM;
        *ret = p;
        return 0;
}

PUBLIC void *valloc(size_t n) {
        return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

PUBLIC void *pvalloc(size_t n) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        return memalign(page, (n + page - 1) / page * page);
}

/* ---- the scenarios: 0 when all went through, a negative errno else ---- */

static char dir[] = "/tmp/test-oom.XXXXXX";
static char elf[4096];    /* an object with a package note */
static char go[4096];     /* a Go program, or "" */
static char artefact[4096]; /* a directory: the object, its libc missing */

/* Each scenario gives its output (malloc()ed) in *OUT on success: a run
 * that goes through although an allocation failed must give the same as
 * one where none did. */
static int s_metadata(char **out) {
        static const char j[] = "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"x\",\"version\":\"1\","
                                "\"architecture\":\"amd64\",\"debugInfoUrl\":\"https://d.example\"}";
        pkgnote_metadata *m = NULL;
        int r = pkgnote_metadata_parse(j, sizeof j - 1, &m);
        if (r == 0)
                r = pkgnote_metadata_to_json(m, out);
        pkgnote_metadata_free(m);
        return r;
}

static int s_info(char **out) {
        pkgnote_object *e = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_object_open(elf, &e);
        if (r == 0)
                r = pkgnote_info_read(e, &info);
        if (r == 0)
                r = pkgnote_info_to_json(info, e, elf, out);
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return r;
}

static int s_embedded(char **out) {
        pkgnote_object *e = NULL;
        pkgnote_embedded *m = NULL;
        int r = pkgnote_object_open(go, &e);
        if (r == 0)
                r = pkgnote_embedded_read(e, &m);
        if (r > 0)
                r = pkgnote_embedded_to_json(m, out);
        else if (r == 0)
                r = -ENODATA; /* both programs carry a list */
        pkgnote_embedded_free(m);
        pkgnote_object_free(e);
        return r < 0 ? r : 0;
}

static int s_verify(char **out) {
        pkgnote_verify *v = NULL;
        int r = pkgnote_verify_new(artefact, &v);
        if (r == 0) {
                r = pkgnote_verify_run(v);
                /* A run that failed says so again; one that went through
                 * gives the same again. */
                int again = pkgnote_verify_run(v);
                if (again != r) {
                        fprintf(stderr, "pkgnote_verify_run() gave %d, then %d\n", r, again);
                        abort();
                }
        }
        if (r >= 0)
                r = pkgnote_verify_to_json(v, out);
        pkgnote_verify_free(v);
        return r < 0 ? r : 0;
}

static int s_scan(char **out) {
        pkgnote_scan_options o = PKGNOTE_SCAN_OPTIONS_INIT;
        o.threads = 1;
        o.flags = PKGNOTE_SCAN_CHECKSUMS;
        pkgnote_sbom_options so = PKGNOTE_SBOM_OPTIONS_INIT;
        so.created = 1700000000;
        so.reproducible = 1;
        pkgnote_scan *sc = NULL;
        char *a = NULL, *b = NULL, *c = NULL;
        int r = pkgnote_scan_new(&o, &sc);
        if (r == 0)
                r = pkgnote_scan_add(sc, artefact);
        if (r >= 0)
                r = pkgnote_sbom_write(sc, PKGNOTE_SBOM_SPDX, &so, &a);
        if (r >= 0)
                r = pkgnote_sbom_write(sc, PKGNOTE_SBOM_CYCLONEDX, &so, &b);
        if (r >= 0)
                r = pkgnote_sbom_write(sc, PKGNOTE_SBOM_SPDX_3, &so, &c);
        if (r >= 0 && !(*out = malloc(strlen(a) + strlen(b) + strlen(c) + 1)))
                r = -ENOMEM;
        if (r >= 0)
                strcat(strcat(strcpy(*out, a), b), c);
        free(a);
        free(b);
        free(c);
        pkgnote_scan_free(sc);
        return r < 0 ? r : 0;
}

static void lint_line(void *u, const pkgnote_lint_finding *f) {
        char **out = u;
        if (!*out)
                return;
        size_t a = strlen(*out), b = strlen(f->check->id) + strlen(f->message) + 4;
        char *n = realloc(*out, a + b);
        if (!n) {
                free(*out);
                *out = NULL; /* said as -ENOMEM below */
                return;
        }
        snprintf(n + a, b, "%s: %s\n", f->check->id, f->message);
        *out = n;
}

static int s_lint(char **out) {
        pkgnote_object *e = NULL;
        int r = pkgnote_object_open(elf, &e);
        if (r == 0 && !(*out = calloc(1, 1)))
                r = -ENOMEM;
        if (r == 0)
                r = pkgnote_lint(e, lint_line, out);
        if (r >= 0 && !*out)
                r = -ENOMEM;
        pkgnote_object_free(e);
        return r < 0 ? r : 0;
}

/* The closure of the object in the artefact's root, its packages named
 * by the root's dpkg database. */
static int s_closure(char **out) {
        pkgnote_closure *c = NULL;
        pkgnote_pkgdb *db = NULL;
        int r = pkgnote_closure_new(artefact, &c);
        if (r == 0)
                r = pkgnote_closure_add(c, "/usr/lib/libsystemd.so.0");
        if (r >= 0)
                r = pkgnote_pkgdb_open(artefact, "deb", NULL, &db);
        if (r >= 0)
                r = pkgnote_closure_to_json(c, db, out);
        pkgnote_pkgdb_free(db);
        pkgnote_closure_free(c);
        return r < 0 ? r : 0;
}

/* A running process: a child of this test, waiting in pause(), its
 * modules read from disk, no package database asked. */
static pid_t child;

static int s_process(char **out) {
        pkgnote_core_options o = PKGNOTE_CORE_OPTIONS_INIT;
        o.no_database = 1;
        pkgnote_core *c = NULL;
        pkgnote_process_sbom *b = NULL;
        char *json = NULL, *spdx = NULL, *cdx = NULL;
        pkgnote_sbom_options so = PKGNOTE_SBOM_OPTIONS_INIT;
        so.created = 1700000000;
        so.reproducible = 1;
        int r = pkgnote_process_open_with(child, &o, &c);
        if (r == 0)
                r = pkgnote_core_to_json(c, NULL, NULL, 0, &json);
        /* and the running system's SBOM of it */
        if (r == 0)
                r = pkgnote_process_sbom_new(&b);
        if (r == 0)
                r = pkgnote_process_sbom_add(b, c);
        if (r == 0)
                r = pkgnote_process_sbom_write(b, PKGNOTE_SBOM_SPDX_3, &so, &spdx);
        if (r == 0)
                r = pkgnote_process_sbom_write(b, PKGNOTE_SBOM_CYCLONEDX_1_7, &so, &cdx);
        if (r == 0 && !(*out = malloc(strlen(json) + strlen(spdx) + strlen(cdx) + 1)))
                r = -ENOMEM;
        if (r == 0)
                strcat(strcat(strcpy(*out, json), spdx), cdx);
        free(json);
        free(spdx);
        free(cdx);
        pkgnote_process_sbom_free(b);
        pkgnote_core_free(c);
        return r;
}

/* A real core dump of a child of this test, read as the kernel wrote it. */
static char core_path[8192];

static int s_core(char **out) {
        pkgnote_core_options o = PKGNOTE_CORE_OPTIONS_INIT;
        o.no_database = 1;
        pkgnote_core *c = NULL;
        int r = pkgnote_core_open(core_path, &o, &c);
        if (r == 0)
                r = pkgnote_core_to_json(c, NULL, NULL, 0, out);
        pkgnote_core_free(c);
        return r;
}

/* The report pkgnote-coredump stores for it: the core's report with this
 * boot, machine and running kernel (pkgnote_crash_report()). */
static int s_crash_report(char **out) {
        pkgnote_core_options o = PKGNOTE_CORE_OPTIONS_INIT;
        o.no_database = 1;
        pkgnote_core *c = NULL;
        int r = pkgnote_core_open(core_path, &o, &c);
        if (r == 0)
                r = pkgnote_crash_report(c, NULL, 1700000000, "host", core_path, out);
        pkgnote_core_free(c);
        return r;
}

/* Makes core_path: a child that aborts in DIR, with cores allowed, when
 * the kernel writes cores as files named "core" in the working directory
 * (a pattern naming a program or another place is not this test's to
 * change).  false, with the reason printed, when it cannot. */
static bool make_core(void) {
        char pattern[256] = "";
        FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");
        if (f) {
                if (!fgets(pattern, sizeof pattern, f))
                        pattern[0] = 0;
                fclose(f);
        }
        pattern[strcspn(pattern, "\n")] = 0;
        if (strcmp(pattern, "core") != 0) {
                printf("# kernel.core_pattern is '%s', not 'core': no core file to read\n", pattern);
                return false;
        }
        pid_t pid = fork();
        if (pid == 0) {
                struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
                if (setrlimit(RLIMIT_CORE, &rl) < 0 || chdir(dir) < 0)
                        _exit(1);
                abort();
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFSIGNALED(status) || !WCOREDUMP(status)) {
                printf("# the child wrote no core (status 0x%x)\n", status);
                return false;
        }
        snprintf(core_path, sizeof core_path, "%s/core", dir);
        if (access(core_path, R_OK) < 0)
                snprintf(core_path, sizeof core_path, "%s/core.%d", dir, (int)pid);
        if (access(core_path, R_OK) < 0) {
                printf("# no core file in %s\n", dir);
                return false;
        }
        return true;
}

/* Stamping a file in place: a failed stamp leaves the file as it was and
 * nothing beside it.  Copies and digests are made with system calls only,
 * so that no allocation of the test's own is counted. */
static char stamp_dir[4200], stamp_file[4300], stamp_pristine[4300];

static uint64_t digest(const char *path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        uint64_t h = 0xcbf29ce484222325ULL;
        static unsigned char buf[65536];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
                for (ssize_t i = 0; i < n; i++)
                        h = (h ^ buf[i]) * 0x100000001b3ULL;
        close(fd);
        return h;
}

static void raw_copy(const char *from, const char *to) {
        int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        static unsigned char buf[65536];
        ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t)n) != n)
                        break;
        if (in >= 0)
                close(in);
        if (out >= 0)
                close(out);
}

/* The names in stamp_dir other than the file: what a failed stamp left. */
static int leftovers(void) {
        int fd = open(stamp_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        static char buf[8192];
        int n = 0;
        long k;
        while ((k = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
                for (long off = 0; off < k;) {
                        struct {
                                uint64_t ino;
                                int64_t off;
                                unsigned short reclen;
                                unsigned char type;
                                char name[];
                        } *d = (void *)(buf + off);
                        if (strcmp(d->name, ".") && strcmp(d->name, "..") && strcmp(d->name, "lib.so"))
                                n++;
                        off += d->reclen;
                }
        close(fd);
        return n;
}

static int s_stamp(char **out) {
        static const char j[] = "{\"type\":\"deb\",\"os\":\"debian\",\"name\":\"stamped\",\"version\":\"2\"}";
        raw_copy(stamp_pristine, stamp_file);
        uint64_t before = digest(stamp_file);
        int r = pkgnote_stamp_file(stamp_file, NULL, j, 0, NULL);
        uint64_t after = digest(stamp_file);
        if (r < 0 && (after != before || leftovers() != 0)) {
                fprintf(stderr, "stamp: a failed stamp (%d) changed the file or left %d names beside it\n", r,
                        leftovers());
                abort();
        }
        if (r < 0)
                return r;
        char text[32];
        snprintf(text, sizeof text, "%016llx", (unsigned long long)after);
        if (!(*out = strdup(text)))
                return -ENOMEM;
        return 0;
}

/* The running kernel, as this machine's sysfs tells it, with no package
 * database asked; as a report's member (pid --json's) and in the running
 * system's SBOMs (SPDX 2.3, CycloneDX 1.6). */
static int s_kernel(char **out) {
        pkgnote_kernel_options o = PKGNOTE_KERNEL_OPTIONS_INIT;
        o.flags = PKGNOTE_KERNEL_NO_DATABASE;
        pkgnote_kernel *k = NULL;
        pkgnote_process_sbom *b = NULL;
        char *json = NULL, *member = NULL, *spdx = NULL, *cdx = NULL;
        pkgnote_sbom_options so = PKGNOTE_SBOM_OPTIONS_INIT;
        so.created = 1700000000;
        so.reproducible = 1;
        int r = pkgnote_kernel_read(&o, &k);
        if (r >= 0)
                r = pkgnote_kernel_to_json(k, &json);
        if (r >= 0) {
                pkgnote_json_member m[] = {PKGNOTE_JSON_VALUE("kernel", json)};
                r = pkgnote_core_to_json(NULL, NULL, m, 1, &member);
        }
        if (r >= 0)
                r = pkgnote_process_sbom_new(&b);
        if (r >= 0)
                r = pkgnote_process_sbom_add_kernel(b, k);
        if (r >= 0)
                r = pkgnote_process_sbom_write(b, PKGNOTE_SBOM_SPDX, &so, &spdx);
        if (r >= 0)
                r = pkgnote_process_sbom_write(b, PKGNOTE_SBOM_CYCLONEDX, &so, &cdx);
        if (r >= 0 && !(*out = malloc(strlen(member) + strlen(spdx) + strlen(cdx) + 1)))
                r = -ENOMEM;
        if (r >= 0)
                strcat(strcat(strcpy(*out, member), spdx), cdx);
        free(json), free(member), free(spdx), free(cdx);
        pkgnote_process_sbom_free(b);
        pkgnote_kernel_free(k);
        return r < 0 ? r : 0;
}

/* A real bzImage (Debian sid's, from the cached root make deps-test
 * builds), its build-id read from inside its compressed payload. */
static unsigned char *image;
static size_t image_len;

static int s_image(char **out) {
        return pkgnote_kernel_image_build_id(image, image_len, out);
}

static bool load_image(void) {
        static const char boot[] = "/var/cache/pkgnote/roots/sid/boot";
        DIR *d = opendir(boot);
        struct dirent *de;
        char path[4096] = "";
        while (d && (de = readdir(d)))
                if (!strncmp(de->d_name, "vmlinuz-", 8))
                        snprintf(path, sizeof path, "%s/%s", boot, de->d_name);
        if (d)
                closedir(d);
        FILE *f = path[0] ? fopen(path, "rb") : NULL;
        if (!f) {
                printf("# no sid kernel image in %s (make deps-test makes it): its reading is not swept\n", boot);
                return false;
        }
        size_t cap = 64 << 20;
        image = malloc(cap);
        image_len = image ? fread(image, 1, cap, f) : 0;
        fclose(f);
        return image_len > 0;
}

/* Runs S with the Nth allocation failing, for every N it makes. */
static void sweep(const char *name, int (*s)(char **out)) {
        /* TEST_OOM_AT="NAME N": only that run, for a look under valgrind. */
        const char *at = getenv("TEST_OOM_AT");
        if (at) {
                size_t k = strlen(name);
                if (strncmp(at, name, k) != 0 || at[k] != ' ')
                        return;
                char *first = NULL; /* as the sweep does, once through before */
                if (s(&first) < 0)
                        fprintf(stderr, "%s: fails without a failed allocation\n", name);
                free(first);
                const char *t = getenv("TEST_OOM_TRACE");
                trace_at = t ? atol(t) : -1;
                __atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&fail_at, atol(at + k + 1), __ATOMIC_RELAXED);
                tracking = 1;
                char *out = NULL;
                int r = s(&out);
                tracking = 0;
                if (out)
                        printf("%s\n", out);
                free(out);
                printf("# %s with allocation %s failing: %d (%s); allocations still live:", name, at + k + 1, r,
                       r < 0 ? pkgnote_last_error() : "");
                for (size_t i = 0; i < sizeof table / sizeof *table; i++)
                        if (table[i].p && table[i].p != (void *)1)
                                printf(" %ld", table[i].index);
                printf("\n");
                return;
        }
        /* Once through, so what is made once per process (caches, the
         * message buffer) is made, and the count of its allocations. */
        __atomic_store_n(&fail_at, -1, __ATOMIC_RELAXED);
        char *want = NULL;
        int r = s(&want);
        if (r == -EOPNOTSUPP) { /* a decoder or library this build is without */
                printf("# %s: not swept, this build cannot read it: %s\n", name, pkgnote_last_error());
                return;
        }
        if (r < 0 || !want) {
                fprintf(stderr, "%s: fails without a failed allocation: %s\n", name, strerror(-r));
                CHECK(false);
                return;
        }
        long base = __atomic_load_n(&live, __ATOMIC_RELAXED);
        long runs = 0, enomem = 0, through = 0, leaks = 0, wrong = 0, jansson = 0, differ = 0;
        for (long n = 0;; n++) {
                __atomic_store_n(&calls, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&failed, 0, __ATOMIC_RELAXED);
                in_lexer = 0;
                __atomic_store_n(&fail_at, n, __ATOMIC_RELAXED);
                char *got = NULL;
                r = s(&got);
                __atomic_store_n(&fail_at, -1, __ATOMIC_RELAXED);
                bool same = got && !strcmp(got, want);
                char *got2 = got ? got : strdup("");
                if (!__atomic_load_n(&failed, __ATOMIC_RELAXED)) {
                        free(got2);
                        break; /* it made fewer than N + 1 allocations */
                }
                runs++;
                if (r == -ENOMEM)
                        enomem++;
                else if (in_lexer && (r < 0 || !same))
                        /* jansson (2.14) turns a failed allocation of a
                         * token's text into an invalid token (its caller
                         * hears a syntax error: a reader's problem
                         * "invalid JSON", a writer's -EINVAL, a stamp's
                         * read-back that does not find its note), and its
                         * lexer drops bytes silently when a buffer cannot
                         * grow: jansson's, not pkgnote's, and counted apart
                         * here; nothing leaked and no file half-written
                         * still holds.  (Its dumper loses bytes too, which
                         * pn_json_dumps() catches: not excused.) */
                        jansson++;
                else if (r == 0 && same)
                        through++;
                else if (r == 0) {
                        if (differ++ < 5) {
                                /* the first two lines that differ */
                                fprintf(stderr, "%s: allocation %ld failing went through with another result:\n", name, n);
                                const char *a = got2, *b = want;
                                for (int shown = 0; *a && *b && shown < 2;) {
                                        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
                                        if (la != lb || memcmp(a, b, la)) {
                                                size_t k = 0; /* from a little before where they part */
                                                while (k < la && k < lb && a[k] == b[k])
                                                        k++;
                                                k = k > 60 ? k - 60 : 0;
                                                fprintf(stderr, "#   got  ...%.*s\n#   want ...%.*s\n",
                                                        (int)(la - k > 160 ? 160 : la - k), a + k,
                                                        (int)(lb - k > 160 ? 160 : lb - k), b + k);
                                                shown++;
                                        }
                                        a += la + (a[la] != 0);
                                        b += lb + (b[lb] != 0);
                                }
                        }
                } else if (wrong++ < 5)
                        fprintf(stderr, "%s: allocation %ld failing gave %d (%s), not -ENOMEM\n", name, n, r,
                                strerror(-r));
                free(got2);
                long now = __atomic_load_n(&live, __ATOMIC_RELAXED);
                if (now != base && leaks++ < 5)
                        fprintf(stderr, "%s: allocation %ld failing left %ld allocations behind\n", name, n,
                                now - base);
                base = now;
                if (n > 2000000) {
                        fprintf(stderr, "%s: more than two million allocations\n", name);
                        CHECK(false);
                        break;
                }
        }
        free(want);
        printf("# %s: %ld allocations failed in turn: %ld gave -ENOMEM, %ld went through with the same result,"
               " %ld with another, %ld leaked, %ld other (%ld jansson's: a parse that lost bytes)\n",
               name, runs, enomem, through, differ, leaks, wrong, jansson);
        CHECK(runs > 0);
        CHECK(enomem > 0);
        CHECK_INT(leaks, 0);
        CHECK_INT(wrong, 0);
        CHECK_INT(differ, 0);
}

static void sweep_metadata(void) {
        sweep("metadata", s_metadata);
}
static void sweep_info(void) {
        sweep("info", s_info);
}
static void sweep_embedded(void) {
        sweep("embedded (Go)", s_embedded);
}
static void sweep_crates(void) {
        sweep("embedded (a Rust crate list)", s_embedded);
}
static void sweep_verify(void) {
        sweep("verify", s_verify);
}
static void sweep_lint(void) {
        sweep("lint", s_lint);
}
static void sweep_closure(void) {
        sweep("closure with a package database", s_closure);
}
static void sweep_process(void) {
        sweep("a running process and its SBOMs", s_process);
}
static void sweep_core(void) {
        sweep("a core dump", s_core);
}
static void sweep_crash_report(void) {
        sweep("a crash report (the core's, this boot's, the running kernel's)", s_crash_report);
}
static void sweep_stamp(void) {
        sweep("stamp in place", s_stamp);
}
static void sweep_kernel(void) {
        sweep("the running kernel, as a report's member and in an SBOM", s_kernel);
}
static void sweep_image(void) {
        sweep("a kernel image's build-id", s_image);
}
static void sweep_scan(void) {
        sweep("scan and SBOMs (SPDX 2.3 and 3.0.1, CycloneDX)", s_scan);
}

static void copy(const char *from, const char *to) {
        FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
        CHECK(in && out);
        if (!in || !out)
                exit(1);
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
                CHECK(fwrite(buf, 1, n, out) == n);
        fclose(in);
        CHECK(fclose(out) == 0);
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(text, f) >= 0);
        if (f)
                CHECK(fclose(f) == 0);
}

int main(void) {
        static const char *const with_note[] = {
                "/usr/lib/x86_64-linux-gnu/libsystemd.so.0",
                "/usr/lib/aarch64-linux-gnu/libsystemd.so.0",
                "/usr/lib64/libsystemd.so.0",
        };
        static const char *const go_programs[] = {
                "/usr/lib/go/bin/gofmt",
                "/usr/lib/go-1.19/bin/gofmt",
                "/usr/local/go/bin/gofmt",
        };
        void *bt[4];
        backtrace(bt, 4); /* loads what backtrace() needs once, before any count */
        for (size_t i = 0; i < sizeof with_note / sizeof *with_note && !*elf; i++)
                if (access(with_note[i], R_OK) == 0)
                        snprintf(elf, sizeof elf, "%s", with_note[i]);
        for (size_t i = 0; i < sizeof go_programs / sizeof *go_programs && !*go; i++)
                if (access(go_programs[i], R_OK) == 0)
                        snprintf(go, sizeof go, "%s", go_programs[i]);
        if (!*elf) {
                printf("1..0 # SKIP no libsystemd.so.0 (an object with a package note) here\n");
                return 77;
        }
        CHECK(mkdtemp(dir) != NULL);
        snprintf(artefact, sizeof artefact, "%s/root", dir);
        char p[8192];
        CHECK(mkdir(artefact, 0755) == 0);
        snprintf(p, sizeof p, "%s/usr", artefact);
        CHECK(mkdir(p, 0755) == 0);
        snprintf(p, sizeof p, "%s/usr/lib", artefact);
        CHECK(mkdir(p, 0755) == 0);
        snprintf(p, sizeof p, "%s/usr/lib/libsystemd.so.0", artefact);
        copy(elf, p);
        /* A dpkg database owning it. */
        static const char *const dirs[] = {"var", "var/lib", "var/lib/dpkg", "var/lib/dpkg/info"};
        for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
                snprintf(p, sizeof p, "%s/%s", artefact, dirs[i]);
                CHECK(mkdir(p, 0755) == 0);
        }
        static const char status[] = "Package: libsystemd0\nStatus: install ok installed\nArchitecture: amd64\n"
                                     "Source: systemd\nVersion: 252.39-1~deb12u2\n\n";
        static const char list[] = "/usr\n/usr/lib\n/usr/lib/libsystemd.so.0\n";
        snprintf(p, sizeof p, "%s/var/lib/dpkg/status", artefact);
        write_text(p, status);
        snprintf(p, sizeof p, "%s/var/lib/dpkg/info/libsystemd0:amd64.list", artefact);
        write_text(p, list);

        RUN(sweep_metadata);
        RUN(sweep_info);
        if (*go)
                RUN(sweep_embedded);
        else
                printf("# no gofmt here: the Go build information is not swept\n");
        /* A Rust program with its crate list, as make deps-test builds it. */
        static const char rust[] = "/var/cache/pkgnote/roots/sid-rust/build/out/demo";
        if (access(rust, R_OK) == 0) {
                snprintf(go, sizeof go, "%s", rust);
                RUN(sweep_crates);
        } else
                printf("# no %s (make deps-test builds it): the crate list is not swept\n", rust);
        RUN(sweep_lint);
        snprintf(stamp_dir, sizeof stamp_dir, "%s/stamp", dir);
        CHECK(mkdir(stamp_dir, 0755) == 0);
        snprintf(stamp_file, sizeof stamp_file, "%s/lib.so", stamp_dir);
        snprintf(stamp_pristine, sizeof stamp_pristine, "%s/pristine.so", dir);
        copy(elf, stamp_pristine);
        RUN(sweep_stamp);
        RUN(sweep_closure);
        RUN(sweep_verify);
        RUN(sweep_scan);
        /* Archives are read through libarchive, which ends the process
         * when some of its allocations fail (__archive_errx(), "Fatal
         * Internal Error in libarchive: Out of memory"): not swept. */
        if (access("/sys/kernel/notes", R_OK) == 0)
                RUN(sweep_kernel);
        else
                printf("# no /sys/kernel/notes here: the kernel reader is not swept\n");
        if (load_image())
                RUN(sweep_image);
        free(image);
        if (make_core()) {
                RUN(sweep_core);
                RUN(sweep_crash_report);
        } else
                printf("# the core reader is not swept\n");
        child = fork();
        if (child == 0) {
                for (;;)
                        pause();
        }
        CHECK(child > 0);
        if (child > 0) {
                RUN(sweep_process);
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
        }

        snprintf(p, sizeof p, "rm -rf '%s'", dir);
        CHECK(system(p) == 0);
        return test_summary();
}
