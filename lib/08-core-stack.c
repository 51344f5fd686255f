/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stack traces of a core's threads, with elfutils libdwfl.
 *
 * libdw is loaded with dlopen() in a child process only: linking it would
 * make every start pay for it, and a hostile core that crashes or hangs
 * the unwinder must not take the caller with it.  The child is not
 * dumpable, has no core limit and a CPU limit, and is killed after a
 * timeout; it sends its frames back as fixed-size binary records, which
 * the parent checks field by field.
 *
 * The child reads the core the reader already opened (its descriptor, or
 * its bytes in memory), never the input's path again: a FIFO would block,
 * and a path may name another file by now.  A compressed core file opened
 * with PKGNOTE_CORE_DECOMPRESS_ONCE is in memory already (a sealed memfd
 * the reader read too); one opened without is decompressed by the child
 * into memory, its zero pages left as holes.
 * Modules are the reader's (NT_FILE), reported to libdwfl one by one, and
 * their files are opened by our own callback only: nowhere under
 * --no-disk, inside the root under --root, regular files only, and used
 * only when their build-id is the one in the core.  A running process is
 * read with libdwfl's ptrace attach, one thread at a time.
 *
 * Frames are unwound first and symbolized afterwards, with the source
 * position and inlined calls where DWARF is found.  libdw never asks a
 * debuginfod server on its own ($DEBUGINFOD_URLS is removed before it is
 * loaded): downloads are ours, opt-in, per module, to that module's own
 * servers, within a time budget, and a file is used only when its
 * build-id is the module's.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "08-core-private.h"
#include "02-elf-view.h"
#include "01-base-loader.h"

struct frame {
        uint64_t pc, module_offset;
        char *function, *module, *file;
        unsigned line, column;
        bool inlined;
};

struct thread {
        int tid;
        struct frame *frames;
        size_t n_frames, cap_frames;
};

struct pkgnote_stack {
        char *unavailable;
        struct thread *threads;
        size_t n_threads, cap_threads;
        pkgnote_debuginfo *debuginfo;
        size_t n_debuginfo, cap_debuginfo;
};

/* One record of the child: a thread, a frame of the last thread, a
 * module's debug info, or why there is no trace; LEN[i] bytes of each
 * string follow in turn.  Frame strings: module, function, source file;
 * debug info: module, build-id, servers, file, message; error: message. */
enum { REC_THREAD = 1, REC_FRAME = 2, REC_ERROR = 3, REC_DEBUGINFO = 4 };
#define REC_STRINGS 5
struct record {
        uint32_t kind;
        int32_t value; /* the thread's id, or the debug info's status */
        uint64_t pc, module_offset;
        uint32_t line, column, inlined;
        uint32_t len[REC_STRINGS];
};
#define MAX_STRING 4096u
#define MAX_OUTPUT (4u << 20)
#define UNWIND_TIMEOUT_MS 20000
/* More for a compressed core, which the child decompresses first (xz at
 * some 100 MB/s takes tens of seconds for a core of gigabytes). */
#define DECOMPRESS_TIMEOUT_MS 120000
#define MODULE_TIMEOUT_MS 5000u
#define TOTAL_TIMEOUT_MS 30000u

#if HAVE_LIBDW
static void put_record(FILE *out, struct record r, const char *const str[REC_STRINGS]) {
        size_t len[REC_STRINGS];
        for (int i = 0; i < REC_STRINGS; i++)
                r.len[i] = (uint32_t)(len[i] = str[i] ? strnlen(str[i], MAX_STRING) : 0);
        fwrite(&r, sizeof r, 1, out);
        for (int i = 0; i < REC_STRINGS; i++)
                if (len[i])
                        fwrite(str[i], 1, len[i], out);
}
#endif

#if HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define DW_FUNCS(X)                                                                                  \
        X(dwfl_addrmodule) X(dwfl_begin) X(dwfl_core_file_attach) X(dwfl_end) X(dwfl_errmsg)         \
        X(dwfl_frame_pc) X(dwfl_getthreads) X(dwfl_lineinfo) X(dwfl_linux_proc_attach)               \
        X(dwfl_linux_proc_find_elf) X(dwfl_linux_proc_report) X(dwfl_module_addrdie)                  \
        X(dwfl_module_addrname) X(dwfl_module_build_id) X(dwfl_module_getdwarf) X(dwfl_module_getsrc) X(dwfl_module_info)     \
        X(dwfl_report_begin) X(dwfl_report_end) X(dwfl_report_module)                                 \
        X(dwfl_thread_getframes) X(dwfl_thread_tid) X(dwarf_attr) X(dwarf_attr_integrate)             \
        X(dwarf_filesrc) X(dwarf_formstring) X(dwarf_formudata) X(dwarf_getscopes)                    \
        X(dwarf_getsrcfiles) X(dwarf_tag) X(elf_begin) X(elf_memory) X(elf_rawfile) X(elf_version)
static struct dw_api {
#define FIELD(f) __typeof__(f) *f;
        DW_FUNCS(FIELD)
#undef FIELD
} dw;
static const struct pn_lib_symbol dw_symbols[] = {
#define SYMBOL(f) PN_LIB_SYMBOL(struct dw_api, f)
        DW_FUNCS(SYMBOL)
#undef SYMBOL
};
/* Loaded in the unwinder's child only (see the top of the file). */
static struct pn_lib dw_lib = {
        PN_LIB_NOTE(HAVE_LIBDW, "stack", "suggested", "Stack traces of core dumps and processes", "libdw.so.1"),
        .not_installed = "elfutils libdw (libdw.so.1) is not installed",
        .name = "libdw",
        PN_LIB_SYMBOLS(dw_symbols, dw),
};

static const char *load_libdw(void) {
        return pn_lib_load(&dw_lib) < 0 ? pn_lib_error(&dw_lib) : NULL;
}

/* libdebuginfod's client, declared here: the library is loaded at run time
 * and only when a download is asked for, so its headers are not needed. */
typedef struct debuginfod_client debuginfod_client;
static struct di_api {
        debuginfod_client *(*begin)(void);
        int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
        void (*set_progressfn)(debuginfod_client *, int (*)(debuginfod_client *, long, long));
        void (*end)(debuginfod_client *);
} di;
static const struct pn_lib_symbol di_symbols[] = {
        PN_LIB_SYMBOL_AS(struct di_api, begin, "debuginfod_begin")
        PN_LIB_SYMBOL_AS(struct di_api, find_debuginfo, "debuginfod_find_debuginfo")
        PN_LIB_SYMBOL_AS(struct di_api, set_progressfn, "debuginfod_set_progressfn")
        PN_LIB_SYMBOL_AS(struct di_api, end, "debuginfod_end")
};
static struct pn_lib di_lib = {
        PN_LIB_NOTE(HAVE_LIBDW, "debuginfod", "suggested",
                    "Fetch debug info for stack traces from debuginfod servers (opt-in)", "libdebuginfod.so.1"),
        .not_installed = "elfutils' libdebuginfod (libdebuginfod.so.1) is not installed",
        .lacks = "libdebuginfod lacks the client functions",
        PN_LIB_SYMBOLS(di_symbols, di),
};
static debuginfod_client *di_client;
static const char *di_error; /* why it cannot be used, once tried */

static const char *load_debuginfod(void) {
        if (di_client || di_error)
                return di_error;
        if (pn_lib_load(&di_lib) < 0)
                return di_error = pn_lib_error(&di_lib);
        if (!(di_client = di.begin()))
                return di_error = "cannot start a debuginfod client";
        return NULL;
}

/* What the child knows of a module of the trace. */
struct modstate {
        Dwfl_Module *mod;
        const pkgnote_module *m; /* the reader's, when found */
        bool asked;              /* find_debuginfo ran */
        bool settled;
        int status;
        char *servers, *file, *message, *cache_file;
        char build_id[2 * 64 + 1]; /* hex, once known */
};

/* State of the child, for libdwfl's callbacks. */
static struct {
        const pkgnote_core *core;
        Elf *core_elf; /* libelf's view of the core: its bytes, for module images */
        pkgnote_stack_options o;
        int rootfd;
        bool no_disk;
        FILE *out;
        unsigned threads;
        char *env_urls; /* $DEBUGINFOD_URLS, taken before it is removed */
        char *cache;
        struct timespec t_total, t_module; /* deadlines */
        bool aborted, progress_shown;
        const char *progress_module, *progress_servers;
        struct timespec t_start;
        struct modstate *mods;
        size_t n_mods, cap_mods;
        /* Frames as unwound, symbolized once every thread is done. */
        struct raw {
                int tid; /* a thread when >= 0 */
                Dwarf_Addr pc;
                bool activation;
        } *raw;
        size_t n_raw, cap_raw;
} u;

static const pkgnote_module *module_named(const char *name, Dwarf_Addr base) {
        if (!name)
                return NULL;
        for (size_t i = 0; i < u.core->n_modules; i++) {
                const pkgnote_module *m = &u.core->modules[i];
                if (m->start == base && !strcmp(m->path, name))
                        return m;
        }
        return NULL;
}

static struct modstate *modstate(Dwfl_Module *mod) {
        for (size_t i = 0; i < u.n_mods; i++)
                if (u.mods[i].mod == mod)
                        return &u.mods[i];
        if (PN_GROW(u.mods, u.cap_mods, u.n_mods + 1) < 0)
                return NULL;
        struct modstate *ms = &u.mods[u.n_mods++];
        *ms = (struct modstate){.mod = mod, .status = PKGNOTE_DEBUGINFO_NONE};
        Dwarf_Addr start = 0;
        const char *name = dw.dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
        ms->m = module_named(name, start);
        return ms;
}

/* The module's build-id in hex: libdwfl's (from the file it opened, whose
 * build-id is checked), else the core reader's; NULL when neither knows. */
static const char *mod_build_id(struct modstate *ms) {
        if (!ms->build_id[0]) {
                const unsigned char *bits;
                GElf_Addr vaddr;
                int n = dw.dwfl_module_build_id(ms->mod, &bits, &vaddr);
                if (n > 0 && n <= 64)
                        pn_hex(ms->build_id, bits, (size_t)n);
                else if (ms->m && ms->m->build_id && strlen(ms->m->build_id) < sizeof ms->build_id)
                        strcpy(ms->build_id, ms->m->build_id);
        }
        return ms->build_id[0] ? ms->build_id : NULL;
}

static long ms_until(const struct timespec *t) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        return (t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static struct timespec ms_from_now(unsigned ms) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_sec += ms / 1000;
        t.tv_nsec += (long)(ms % 1000) * 1000000;
        if (t.tv_nsec >= 1000000000) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000;
        }
        return t;
}

/* Whether the ELF file at FD has the build-id WANT: 0 when it has, 1 when
 * it has another or none, -1 when it is not a readable ELF file.  FD stays
 * open and where it was. */
static int build_id_check(int fd, const char *want) {
        int dfd = dup(fd);
        pkgnote_object *e;
        if (dfd < 0 || pkgnote_object_open_fd(dfd, &e) < 0) {
                if (dfd >= 0)
                        close(dfd);
                return -1;
        }
        e->own_fd = true;
        pkgnote_info *info = NULL;
        int r = -1;
        if (pkgnote_info_read(e, &info) >= 0) {
                const char *id = pkgnote_info_build_id(info);
                r = id && !strcmp(id, want) ? 0 : 1;
                pkgnote_info_free(info);
        }
        pkgnote_object_free(e);
        return r;
}

/* The module's image from the core's dumped pages (08-core-stack-image.c), for
 * libelf: the vDSO's whole, a program's text when the kernel dumped it.
 * Kept until the child exits, as libdwfl holds on to it. */
static Elf *image_from_core(const pkgnote_module *m) {
        size_t raw_size = 0;
        const char *raw = u.core_elf ? dw.elf_rawfile(u.core_elf, &raw_size) : NULL;
        uint8_t *img;
        size_t len;
        if (!raw || pn_core_module_image(u.core, (const uint8_t *)raw, raw_size, m->start, &img, &len) <= 0)
                return NULL;
        Elf *elf = dw.elf_memory((char *)img, len);
        if (!elf)
                free(img);
        return elf;
}

/* Opens the module's file as the core reader does: inside the root, a
 * regular file, and only when its build-id is the core's; else, and for
 * the vDSO, the module as the core holds it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
                    Elf **elfp) {
        (void)mod;
        (void)userdata;
        *elfp = NULL;
        const pkgnote_module *m = module_named(name, base);
        if (!m)
                return -1;
        if (!u.no_disk && !m->is_vdso && m->build_id) {
                int fd = pn_open_in_root(u.rootfd, m->path);
                if (fd >= 0 && build_id_check(fd, m->build_id) == 0) {
                        *file_name = strdup(m->path);
                        return fd;
                }
                if (fd >= 0)
                        close(fd);
        }
        *elfp = image_from_core(m);
        return -1;
}

/* An http or https URL without spaces or control characters: a note's
 * debugInfoUrl is the file's word, and a space would add a server. */
static bool server_url_ok(const char *s) {
        return (!strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8)) && strlen(s) < 1024 &&
               !strchr(s, ' ') && !pn_has_control(s);
}

/* Whether SERVER is one of the space-separated ALLOW (a trailing slash
 * does not count). */
static bool allowed(const char *server, size_t len, const char *allow) {
        while (len > 0 && server[len - 1] == '/')
                len--;
        for (const char *p = allow; *p;) {
                p += strspn(p, " \t\n");
                size_t n = strcspn(p, " \t\n"), k = n;
                while (k > 0 && p[k - 1] == '/')
                        k--;
                if (n && k == len && !strncmp(p, server, len))
                        return true;
                p += n;
        }
        return false;
}

/* The servers this module may ask, by the order of the options, its note
 * and the environment, less those the allow-list refuses; NULL with the
 * status and message set when there are none. */
static char *servers_for(struct modstate *ms) {
        const char *list = NULL;
        if (u.o.debuginfod_urls)
                list = u.o.debuginfod_urls;
        else {
                const pkgnote_info *info = ms->m ? ms->m->info : NULL;
                for (size_t i = 0; info && !list && i < pkgnote_info_package_count(info); i++) {
                        const char *url = pkgnote_metadata_debug_info_url(pkgnote_info_package(info, i));
                        if (url && !server_url_ok(url)) {
                                ms->status = PKGNOTE_DEBUGINFO_NO_SERVER;
                                ms->message = strdup("the note's debugInfoUrl is not an http or https URL");
                                return NULL;
                        }
                        list = url;
                }
                if (!list)
                        list = u.env_urls;
        }
        if (!list || !*list) {
                ms->status = PKGNOTE_DEBUGINFO_NO_SERVER;
                ms->message = strdup("no server: none given, none in the module's note, $DEBUGINFOD_URLS unset");
                return NULL;
        }
        char *out = malloc(strlen(list) + 1), *o = out;
        if (!out)
                return NULL;
        for (const char *p = list; *p;) {
                p += strspn(p, " \t\n");
                size_t n = strcspn(p, " \t\n");
                if (n && (!u.o.debuginfod_allow || allowed(p, n, u.o.debuginfod_allow))) {
                        if (o != out)
                                *o++ = ' ';
                        memcpy(o, p, n);
                        o += n;
                }
                p += n;
        }
        *o = 0;
        if (o == out) {
                free(out);
                ms->status = PKGNOTE_DEBUGINFO_NOT_ALLOWED;
                ms->servers = strdup(list);
                ms->message = strdup("none of the module's servers is in the allow-list");
                return NULL;
        }
        return out;
}

/* mkdir -p, private: the cache says what ran on this machine. */
static int mkdir_p(const char *path) {
        char buf[PATH_MAX];
        if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
                errno = ENAMETOOLONG;
                return -1;
        }
        for (char *p = buf + 1;; p++)
                if (*p == '/' || !*p) {
                        char c = *p;
                        *p = 0;
                        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                                return -1;
                        if (!(*p = c))
                                return 0;
                }
}

static int hex_to_bytes(const char *hex, unsigned char *out, size_t cap) {
        size_t n = strlen(hex);
        if (n % 2 || n / 2 > cap || n == 0)
                return -1;
        for (size_t i = 0; i < n / 2; i++) {
                unsigned v;
                if (sscanf(hex + 2 * i, "%2x", &v) != 1)
                        return -1;
                out[i] = (unsigned char)v;
        }
        return (int)(n / 2);
}

/* A download whose progress was reported has ended: the caller may
 * clear what it showed. */
static void end_progress(void) {
        if (u.progress_shown) {
                u.o.progress(u.o.userdata, NULL, NULL, 0, 0);
                u.progress_shown = false;
        }
}

/* Called by libdebuginfod while it waits and downloads: ends the query
 * when the module's time or the whole budget is spent, and reports a slow
 * download to the caller's progress callback (the library never prints). */
static int progress(debuginfod_client *client, long done, long total) {
        (void)client;
        if (ms_until(&u.t_module) <= 0 || ms_until(&u.t_total) <= 0) {
                u.aborted = true;
                return 1;
        }
        if (u.o.progress && ms_until(&u.t_start) < -1000) {
                u.o.progress(u.o.userdata, u.progress_module, u.progress_servers, done, total);
                u.progress_shown = true;
        }
        return 0;
}

/* Opens PATH when it is a regular file with the build-id ID. */
static int open_debug_file(const char *path, const char *id) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat sb;
        if (fd >= 0 && (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || build_id_check(fd, id) != 0)) {
                close(fd);
                fd = -1;
        }
        return fd;
}

/* Asks the module's servers for its debug file: an fd, or -1 with the
 * status set. */
static int fetch(struct modstate *ms, char **debuginfo_file_name) {
        const char *build_id = mod_build_id(ms);
        if (!build_id) {
                ms->status = PKGNOTE_DEBUGINFO_NONE;
                ms->message = strdup("no build-id to ask with");
                return -1;
        }
        if (!(ms->servers = servers_for(ms)))
                return -1;
        char cached[PATH_MAX] = "";
        struct stat sb;
        if (u.cache && snprintf(cached, sizeof cached, "%s/%s/debuginfo", u.cache, build_id) >= (int)sizeof cached)
                cached[0] = 0;
        bool in_cache = cached[0] && stat(cached, &sb) == 0 && S_ISREG(sb.st_mode);
        /* An empty file is the client's record of a miss, which it keeps
         * answering from for a while (cache_miss_s) without asking. */
        bool miss_recorded = in_cache && sb.st_size == 0;
        in_cache = in_cache && sb.st_size > 0;
        if (u.o.flags & PKGNOTE_STACK_DEBUGINFOD_DRY_RUN) {
                ms->status = PKGNOTE_DEBUGINFO_DRY_RUN;
                if (in_cache)
                        ms->message = strdup("in the cache already: no server would be asked");
                return -1;
        }
        /* A cached file is read as it is: no client (nor libcurl) to load,
         * no server asked; checked like a download. */
        if (in_cache) {
                int fd = open_debug_file(cached, build_id);
                if (fd >= 0 && (ms->file = strdup(cached)) && (*debuginfo_file_name = strdup(cached))) {
                        ms->status = PKGNOTE_DEBUGINFO_CACHED;
                        ms->cache_file = strdup(cached);
                        return fd;
                }
                if (fd >= 0)
                        close(fd);
                /* Not the module's: gone, and asked for again below. */
                (void)unlink(cached);
        }
        if (!u.cache) {
                ms->status = PKGNOTE_DEBUGINFO_FAILED;
                ms->message = strdup("no cache directory: $DEBUGINFOD_CACHE_PATH, $XDG_CACHE_HOME and $HOME are unset");
                return -1;
        }
        if (ms_until(&u.t_total) <= 0) {
                ms->status = PKGNOTE_DEBUGINFO_FAILED;
                ms->message = strdup("not asked: the time budget for downloads is spent");
                return -1;
        }
        /* The client makes the cache directory itself, but not its
         * parents (~/.cache on a new account). */
        if (mkdir_p(u.cache) < 0) {
                ms->status = PKGNOTE_DEBUGINFO_FAILED;
                char msg[PATH_MAX + 64];
                snprintf(msg, sizeof msg, "cannot create the cache directory %s: %s", u.cache, strerror(errno));
                ms->message = strdup(msg);
                return -1;
        }
        const char *why = load_debuginfod();
        if (why) {
                ms->status = PKGNOTE_DEBUGINFO_FAILED;
                ms->message = strdup(why);
                return -1;
        }
        unsigned char id[64];
        int idlen = hex_to_bytes(build_id, id, sizeof id);
        if (idlen < 0) {
                ms->status = PKGNOTE_DEBUGINFO_NONE;
                ms->message = strdup("the build-id is not hexadecimal");
                return -1;
        }
        /* The client reads these at each query; they are removed again at
         * once, so that libdw's own lookups stay offline. */
        char timeout[16];
        snprintf(timeout, sizeof timeout, "%u", (u.o.module_timeout_ms + 999) / 1000);
        setenv("DEBUGINFOD_URLS", ms->servers, 1);
        setenv("DEBUGINFOD_CACHE_PATH", u.cache, 1);
        setenv("DEBUGINFOD_TIMEOUT", timeout, 1);
        setenv("DEBUGINFOD_RETRY_LIMIT", "1", 1);
        unsetenv("DEBUGINFOD_PROGRESS");
        unsetenv("DEBUGINFOD_VERBOSE");
        u.aborted = false;
        u.t_module = ms_from_now(u.o.module_timeout_ms);
        clock_gettime(CLOCK_MONOTONIC, &u.t_start);
        u.progress_module = dw.dwfl_module_info(ms->mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        if (!u.progress_module)
                u.progress_module = "?";
        u.progress_servers = ms->servers;
        di.set_progressfn(di_client, progress);
        char *path = NULL;
        int fd = di.find_debuginfo(di_client, id, idlen, &path);
        unsetenv("DEBUGINFOD_URLS");
        end_progress();
        if (fd < 0) {
                free(path);
                /* A download cut short is no miss: the client recorded one
                 * (an empty file), which would keep the next report from
                 * asking again; it goes. */
                if (!miss_recorded && (u.aborted || fd != -ENOENT) && cached[0] && stat(cached, &sb) == 0 &&
                    S_ISREG(sb.st_mode) && sb.st_size == 0)
                        (void)unlink(cached);
                if (u.aborted) {
                        ms->status = PKGNOTE_DEBUGINFO_FAILED;
                        char msg[64] = "stopped: the time budget for downloads is spent";
                        if (ms_until(&u.t_total) > 0)
                                snprintf(msg, sizeof msg, "timed out after %u ms", u.o.module_timeout_ms);
                        ms->message = strdup(msg);
                } else if (fd == -ENOENT) {
                        ms->status = PKGNOTE_DEBUGINFO_NOT_FOUND;
                        ms->message = strdup(miss_recorded ? "no server had it at a recent query (remembered by the debuginfod cache)"
                                                           : "no server has it");
                } else {
                        ms->status = PKGNOTE_DEBUGINFO_FAILED;
                        ms->message = strdup(strerror(-fd));
                }
                return -1;
        }
        ms->cache_file = path;
        ms->status = PKGNOTE_DEBUGINFO_DOWNLOADED;
        /* The server's word is checked: an ELF file with the module's
         * build-id, else it goes from the cache, so that a later run asks
         * again rather than trusting it. */
        int st = build_id_check(fd, build_id);
        if (st != 0) {
                ms->status = st < 0 ? PKGNOTE_DEBUGINFO_UNUSABLE : PKGNOTE_DEBUGINFO_MISMATCH;
                ms->message = strdup(st < 0 ? "the server's file is not a readable ELF file"
                                            : "the server's file has another build-id");
                close(fd);
                if (path)
                        (void)unlink(path);
                return -1;
        }
        ms->file = path ? strdup(path) : NULL;
        *debuginfo_file_name = path ? strdup(path) : NULL;
        return fd;
}

/* The local debug file, found as gdb and the elfutils tools find one: by
 * build-id under /usr/lib/debug/.build-id, else by the debug link beside
 * the file, in its .debug directory or under /usr/lib/debug; a file is
 * used only when its build-id is the module's.  Ours, not libdw's, which
 * would load libdebuginfod (and libcurl) for a lookup that stays local. */
static int local_debuginfo(const char *id, const char *file_name, const char *debuglink, char **found) {
        char path[PATH_MAX];
        int fd = -1;
        size_t n = strlen(id);
        if (n > 2 && snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2) < (int)sizeof path)
                fd = open_debug_file(path, id);
        const char *slash = file_name ? strrchr(file_name, '/') : NULL;
        if (fd < 0 && debuglink && *debuglink && !strchr(debuglink, '/') && slash) {
                int dl = (int)(slash - file_name);
                const char *const prefix[] = {"", "", "/usr/lib/debug"}, *const sub[] = {"/", "/.debug/", "/"};
                for (size_t i = 0; fd < 0 && i < 3; i++)
                        if (snprintf(path, sizeof path, "%s%.*s%s%s", prefix[i], dl, file_name, sub[i], debuglink) <
                                    (int)sizeof path &&
                            strcmp(path, file_name))
                                fd = open_debug_file(path, id);
        }
        if (fd >= 0 && !(*found = strdup(path))) {
                close(fd);
                fd = -1;
        }
        return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                          char **debuginfo_file_name) {
        struct modstate *ms = modstate(mod);
        /* libdwfl asks again after a failure (for the symbol table, then
         * for DWARF): the answer stays, and no server is asked twice. */
        if (ms && ms->asked)
                return -1;
        if (ms)
                ms->asked = true;
        (void)userdata;
        (void)modname;
        (void)base;
        (void)debuglink_crc; /* the build-id is checked instead */
        /* Debug files are searched on the host only when module files may
         * be read from it; never under --no-disk or --root. */
        const char *id = ms ? mod_build_id(ms) : NULL;
        if (!u.no_disk && u.rootfd < 0 && id) {
                int fd = local_debuginfo(id, file_name, debuglink_file, debuginfo_file_name);
                if (fd >= 0) {
                        ms->status = PKGNOTE_DEBUGINFO_LOCAL;
                        ms->file = strdup(*debuginfo_file_name);
                        return fd;
                }
        }
        if (ms && (u.o.flags & (PKGNOTE_STACK_DEBUGINFOD | PKGNOTE_STACK_DEBUGINFOD_DRY_RUN)))
                return fetch(ms, debuginfo_file_name);
        return -1;
}

/* A DIE's name, through its abstract origin: the linkage name when there
 * is one (as symbol tables name functions), else the plain name. */
static const char *die_name(Dwarf_Die *die) {
        Dwarf_Attribute a;
        const char *n = dw.dwarf_formstring(dw.dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
        if (!n)
                n = dw.dwarf_formstring(dw.dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
        if (!n)
                n = dw.dwarf_formstring(dw.dwarf_attr_integrate(die, DW_AT_name, &a));
        return n;
}

static void put_frame(uint64_t pc, uint64_t off, const char *module, const char *fn, const char *file,
                      unsigned line, unsigned column, bool inlined) {
        const char *str[REC_STRINGS] = {module, fn, file};
        put_record(u.out,
                   (struct record){.kind = REC_FRAME, .pc = pc, .module_offset = off, .line = line, .column = column,
                                   .inlined = inlined},
                   str);
}

/* The module's DWARF, once: what find_debuginfo found, or the module's
 * own; a fetched file libdw cannot use goes from the cache. */
static Dwarf *module_dwarf(Dwfl_Module *mod, Dwarf_Addr *bias) {
        struct modstate *ms = modstate(mod);
        Dwarf *d = dw.dwfl_module_getdwarf(mod, bias);
        if (!ms || ms->settled)
                return d;
        ms->settled = true;
        if (d && !ms->asked) {
                ms->status = PKGNOTE_DEBUGINFO_LOCAL;
                ms->file = ms->m ? strdup(ms->m->path) : NULL;
        } else if (!d && (ms->status == PKGNOTE_DEBUGINFO_DOWNLOADED || ms->status == PKGNOTE_DEBUGINFO_CACHED)) {
                ms->status = PKGNOTE_DEBUGINFO_UNUSABLE;
                const char *e = dw.dwfl_errmsg(-1);
                char msg[256];
                snprintf(msg, sizeof msg, "libdw cannot use the server's file: %s", e ? e : "unknown error");
                ms->message = strdup(msg);
                free(ms->file);
                ms->file = NULL;
                if (ms->cache_file)
                        (void)unlink(ms->cache_file);
        } else if (!d && !ms->asked && !ms->message)
                ms->message = strdup(ms->m && !u.no_disk ? "the module's file is not available (or not the one in the core)"
                                                         : "module files are not read");
        return d;
}

static void symbolize(Dwfl *dwfl, Dwarf_Addr pc, bool activation) {
        Dwarf_Addr adj = pc - (activation ? 0 : 1);
        Dwfl_Module *mod = dw.dwfl_addrmodule(dwfl, adj);
        const char *fn = NULL, *modname = NULL, *file = NULL;
        Dwarf_Addr start = 0;
        int line = 0, col = 0;
        Dwarf_Die *scopes = NULL;
        int n_scopes = 0;
        Dwarf_Files *files = NULL;
        if (mod) {
                modname = dw.dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
                Dwarf_Addr bias;
                if (module_dwarf(mod, &bias)) {
                        Dwfl_Line *l = dw.dwfl_module_getsrc(mod, adj);
                        if (l)
                                file = dw.dwfl_lineinfo(l, NULL, &line, &col, NULL, NULL);
                        Dwarf_Die *cu = dw.dwfl_module_addrdie(mod, adj, &bias);
                        size_t n_files;
                        if (cu) {
                                n_scopes = dw.dwarf_getscopes(cu, adj - bias, &scopes);
                                if (dw.dwarf_getsrcfiles(cu, &files, &n_files) != 0)
                                        files = NULL;
                        }
                }
                fn = dw.dwfl_module_addrname(mod, adj);
        }
        /* The file's name, as systemd-coredump and eu-stack show it. */
        const char *slash = modname ? strrchr(modname, '/') : NULL;
        const char *shown = slash && slash[1] ? slash + 1 : modname;
        /* Innermost first: each inlined call, at the position in it, then
         * the function it was inlined into, at the call's position. */
        for (int i = 0; i < n_scopes; i++) {
                int tag = dw.dwarf_tag(&scopes[i]);
                if (tag == DW_TAG_subprogram) {
                        if (!fn)
                                fn = die_name(&scopes[i]);
                        break;
                }
                if (tag != DW_TAG_inlined_subroutine)
                        continue;
                put_frame(pc, pc - start, shown, die_name(&scopes[i]), file, line > 0 ? (unsigned)line : 0,
                          col > 0 ? (unsigned)col : 0, true);
                Dwarf_Attribute a;
                Dwarf_Word v;
                file = NULL;
                line = col = 0;
                if (files && dw.dwarf_formudata(dw.dwarf_attr(&scopes[i], DW_AT_call_file, &a), &v) == 0)
                        file = dw.dwarf_filesrc(files, v, NULL, NULL);
                if (dw.dwarf_formudata(dw.dwarf_attr(&scopes[i], DW_AT_call_line, &a), &v) == 0 && v < INT32_MAX)
                        line = (int)v;
                if (dw.dwarf_formudata(dw.dwarf_attr(&scopes[i], DW_AT_call_column, &a), &v) == 0 && v < INT32_MAX)
                        col = (int)v;
        }
        free(scopes);
        put_frame(pc, pc - start, shown, fn, file, line > 0 ? (unsigned)line : 0, col > 0 ? (unsigned)col : 0, false);
}

static int frame_cb(Dwfl_Frame *frame, void *arg) {
        (void)arg;
        Dwarf_Addr pc;
        bool activation;
        if (!dw.dwfl_frame_pc(frame, &pc, &activation))
                return DWARF_CB_ABORT;
        if (PN_GROW(u.raw, u.cap_raw, u.n_raw + 1) < 0)
                return DWARF_CB_ABORT;
        u.raw[u.n_raw++] = (struct raw){-1, pc, activation};
        return DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *arg) {
        if (PN_GROW(u.raw, u.cap_raw, u.n_raw + 1) < 0)
                return DWARF_CB_ABORT;
        u.raw[u.n_raw++] = (struct raw){.tid = (int)dw.dwfl_thread_tid(thread)};
        (void)dw.dwfl_thread_getframes(thread, frame_cb, arg);
        u.threads++;
        return (u.o.flags & PKGNOTE_STACK_ALL_THREADS) && u.threads < PKGNOTE_STACK_MAX_THREADS ? DWARF_CB_OK
                                                                                                 : DWARF_CB_ABORT;
}

static void child_fail(const char *why) {
        const char *str[REC_STRINGS] = {why};
        put_record(u.out, (struct record){.kind = REC_ERROR}, str);
        fclose(u.out);
        _exit(0);
}

/* A compressed core, decompressed for libdw: a new open file description
 * of the same file (the parent's offset stays), zero blocks left as
 * holes, in memory up to pn_core_memory_bound() bytes and past them in an
 * unlinked temporary file (where none can be made, in memory), and no
 * longer than its program headers say it is.  Only for
 * a core opened without PKGNOTE_CORE_DECOMPRESS_ONCE, which is
 * decompressed already. */
static int decompress_core(const pkgnote_core *c) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", c->stream_fd);
        int in = open(self, O_RDONLY | O_CLOEXEC), out = -1;
        struct pn_core_source *s = NULL;
        if (in < 0 || pn_core_source_open(in, &s) < 0 || !s)
                child_fail("cannot decompress the core");
        char why[1];
        int r = pn_core_source_decompress(s, pn_core_decompress_limit(), pn_core_memory_bound(), &out, why, 0);
        if (r < 0) {
                /* A full disk under $TMPDIR, memory, or the stream's error. */
                char msg[512];
                snprintf(msg, sizeof msg, "cannot decompress the core: %s", pkgnote_last_error());
                child_fail(msg);
        }
        return out;
}

static void unwind_child(int outfd, const pkgnote_core *c, const pkgnote_stack_options *o, long timeout_ms,
                         pid_t parent) {
        /* Not dumpable (no core of the unwinder itself, no ptrace by
         * others), and bounded in CPU time besides the parent's timeout.
         * Its parent gone (a crash handler's worker ended), no one waits
         * for it: it ends too, rather than download on for no one. */
        (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        pid_t pp = getppid();
        if (pp != parent && pp != 0) /* 0: forked into a PID namespace of the caller's making */
                _exit(3);
        rlim_t secs = (rlim_t)(timeout_ms / 1000 + 5);
        struct rlimit zero = {0, 0}, cpu = {secs, secs};
        (void)setrlimit(RLIMIT_CORE, &zero);
        (void)setrlimit(RLIMIT_CPU, &cpu);
        u.out = fdopen(outfd, "w");
        if (!u.out)
                _exit(3);
        u.core = c;
        u.o = *o;
        u.no_disk = c->no_disk;
        u.rootfd = -1;
        if (!u.no_disk && c->root && (u.rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                u.no_disk = true;
        /* Offline unless asked: libdw must never ask a debuginfod server
         * by itself, so the variable goes before libdw is loaded. */
        const char *env = getenv("DEBUGINFOD_URLS");
        u.env_urls = env ? strdup(env) : NULL;
        unsetenv("DEBUGINFOD_URLS");
        if (o->flags & (PKGNOTE_STACK_DEBUGINFOD | PKGNOTE_STACK_DEBUGINFOD_DRY_RUN)) {
                const char *cache = o->cache_path ? o->cache_path : getenv("DEBUGINFOD_CACHE_PATH");
                const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
                if (cache && *cache)
                        u.cache = strdup(cache);
                else if ((xdg && *xdg == '/' && asprintf(&u.cache, "%s/debuginfod_client", xdg) < 0) ||
                         (!(xdg && *xdg == '/') && home && *home == '/' &&
                          asprintf(&u.cache, "%s/.cache/debuginfod_client", home) < 0))
                        u.cache = NULL;
        }
        u.t_total = ms_from_now(u.o.total_timeout_ms);
        const char *missing = load_libdw();
        if (missing)
                child_fail(missing);
        static char *debuginfo_path = NULL;
        const Dwfl_Callbacks core_callbacks = {
                .find_elf = find_elf,
                .find_debuginfo = find_debuginfo,
                .debuginfo_path = &debuginfo_path,
        };
        const Dwfl_Callbacks proc_callbacks = {
                .find_elf = dw.dwfl_linux_proc_find_elf,
                .find_debuginfo = find_debuginfo,
                .debuginfo_path = &debuginfo_path,
        };
        dw.elf_version(EV_CURRENT);
        Dwfl *dwfl;
        if (c->live) {
                dwfl = dw.dwfl_begin(&proc_callbacks);
                if (!dwfl)
                        child_fail("cannot start libdwfl");
                dw.dwfl_report_begin(dwfl);
                int r = dw.dwfl_linux_proc_report(dwfl, c->pid);
                if (r != 0 || dw.dwfl_report_end(dwfl, NULL, NULL) != 0)
                        child_fail(r > 0 ? strerror(r) : "cannot read the process's mappings");
                if ((r = dw.dwfl_linux_proc_attach(dwfl, c->pid, false)) != 0) {
                        char msg[160];
                        snprintf(msg, sizeof msg, "cannot attach to process %d: %s", c->pid,
                                 r > 0 ? strerror(r) : dw.dwfl_errmsg(-1));
                        child_fail(msg);
                }
        } else {
                const pkgnote_object *v = c->view;
                Elf *elf = c->src ? dw.elf_begin(decompress_core(c), ELF_C_READ_MMAP, NULL)
                           : v->mem ? dw.elf_memory((char *)(uintptr_t)v->mem, (size_t)v->size)
                                    : dw.elf_begin(v->fd, ELF_C_READ_MMAP, NULL);
                u.core_elf = elf;
                dwfl = elf ? dw.dwfl_begin(&core_callbacks) : NULL;
                if (!dwfl)
                        child_fail("cannot read the core");
                dw.dwfl_report_begin(dwfl);
                for (size_t i = 0; i < c->n_modules; i++) {
                        const pkgnote_module *m = &c->modules[i];
                        (void)dw.dwfl_report_module(dwfl, m->path, m->start, m->end);
                }
                if (dw.dwfl_report_end(dwfl, NULL, NULL) != 0 || dw.dwfl_core_file_attach(dwfl, elf) < 0)
                        child_fail(dw.dwfl_errmsg(-1) ? dw.dwfl_errmsg(-1) : "cannot read the core");
        }
        (void)dw.dwfl_getthreads(dwfl, thread_cb, dwfl);
        /* A process runs again as soon as its threads are unwound; the
         * symbols come from its files, not its memory. */
        for (size_t i = 0; i < u.n_raw; i++)
                if (u.raw[i].tid >= 0) {
                        const char *none[REC_STRINGS] = {0};
                        put_record(u.out, (struct record){.kind = REC_THREAD, .value = u.raw[i].tid}, none);
                } else
                        symbolize(dwfl, u.raw[i].pc, u.raw[i].activation);
        if (o->flags & (PKGNOTE_STACK_DEBUGINFOD | PKGNOTE_STACK_DEBUGINFOD_DRY_RUN))
                for (size_t i = 0; i < u.n_mods; i++) {
                        struct modstate *ms = &u.mods[i];
                        Dwarf_Addr start = 0;
                        const char *name = dw.dwfl_module_info(ms->mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
                        const char *str[REC_STRINGS] = {name, mod_build_id(ms), ms->servers, ms->file,
                                                        ms->message};
                        put_record(u.out, (struct record){.kind = REC_DEBUGINFO, .value = ms->status}, str);
                }
        fclose(u.out);
        if (c->live)
                dw.dwfl_end(dwfl); /* detaches, so the threads run on */
        _exit(0);
}
#endif

static char *dup_bytes(const uint8_t *p, uint32_t len) {
        if (len == 0)
                return NULL;
        char *s = malloc((size_t)len + 1);
        if (s) {
                memcpy(s, p, len);
                s[len] = 0;
        }
        return s;
}

/* The child's records, checked: lengths within the buffer and the caps,
 * a status the library knows. */
static void parse_records(pkgnote_stack *st, const uint8_t *buf, size_t len) {
        size_t at = 0;
        while (len - at >= sizeof(struct record)) {
                struct record r;
                memcpy(&r, buf + at, sizeof r);
                at += sizeof r;
                const uint8_t *str[REC_STRINGS];
                for (int i = 0; i < REC_STRINGS; i++) {
                        if (r.len[i] > MAX_STRING || r.len[i] > len - at)
                                return;
                        str[i] = buf + at;
                        at += r.len[i];
                }
                if (r.kind == REC_ERROR) {
                        free(st->unavailable);
                        st->unavailable = dup_bytes(str[0], r.len[0]);
                } else if (r.kind == REC_THREAD && st->n_threads < PKGNOTE_STACK_MAX_THREADS) {
                        if (PN_GROW(st->threads, st->cap_threads, st->n_threads + 1) < 0)
                                return;
                        st->threads[st->n_threads++] = (struct thread){.tid = r.value};
                } else if (r.kind == REC_FRAME && st->n_threads > 0) {
                        struct thread *t = &st->threads[st->n_threads - 1];
                        if (t->n_frames >= PKGNOTE_STACK_MAX_FRAMES)
                                continue;
                        if (PN_GROW(t->frames, t->cap_frames, t->n_frames + 1) < 0)
                                return;
                        t->frames[t->n_frames++] = (struct frame){
                                .pc = r.pc,
                                .module_offset = r.module_offset,
                                .module = dup_bytes(str[0], r.len[0]),
                                .function = dup_bytes(str[1], r.len[1]),
                                .file = dup_bytes(str[2], r.len[2]),
                                .line = r.line,
                                .column = r.column,
                                .inlined = r.inlined != 0,
                        };
                } else if (r.kind == REC_DEBUGINFO && pkgnote_debuginfo_status_name(r.value) && r.len[0] &&
                           st->n_debuginfo < PKGNOTE_STACK_MAX_THREADS * PKGNOTE_STACK_MAX_FRAMES) {
                        if (PN_GROW(st->debuginfo, st->cap_debuginfo, st->n_debuginfo + 1) < 0)
                                return;
                        st->debuginfo[st->n_debuginfo++] = (pkgnote_debuginfo){
                                .module = dup_bytes(str[0], r.len[0]),
                                .build_id = dup_bytes(str[1], r.len[1]),
                                .status = r.value,
                                .servers = dup_bytes(str[2], r.len[2]),
                                .file = dup_bytes(str[3], r.len[3]),
                                .message = dup_bytes(str[4], r.len[4]),
                        };
                }
        }
}

int pn_stack_from_records(const void *buf, size_t len, pkgnote_stack **ret) {
        pkgnote_stack *st = calloc(1, sizeof *st);
        if (!st)
                return pn_oom();
        parse_records(st, buf, len);
        *ret = st;
        return 0;
}

#if HAVE_LIBDW
/* Reads the child's output until it ends, the cap, or TIMEOUT_MS. */
static uint8_t *read_child(int fd, long timeout_ms, size_t *len, bool *timed_out) {
        size_t cap = 1 << 16;
        uint8_t *buf = malloc(cap);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        *len = 0;
        *timed_out = false;
        while (buf) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                long elapsed = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
                struct pollfd pf = {.fd = fd, .events = POLLIN};
                int p = elapsed >= timeout_ms ? 0 : poll(&pf, 1, (int)(timeout_ms - elapsed));
                if (p < 0 && errno == EINTR)
                        continue;
                if (p == 0) {
                        *timed_out = true;
                        break;
                }
                if (*len == cap) {
                        if (cap >= MAX_OUTPUT)
                                break;
                        uint8_t *n = realloc(buf, cap * 2);
                        if (!n)
                                break;
                        buf = n;
                        cap *= 2;
                }
                ssize_t n = read(fd, buf + *len, cap - *len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                *len += (size_t)n;
        }
        return buf;
}
#endif

PKGNOTE_PUBLIC int pkgnote_core_stack(const pkgnote_core *c, unsigned flags, pkgnote_stack **ret) {
        pkgnote_stack_options o = PKGNOTE_STACK_OPTIONS_INIT;
        o.flags = flags & PKGNOTE_STACK_ALL_THREADS;
        return pkgnote_core_stack_with(c, &o, ret);
}

PKGNOTE_PUBLIC int pkgnote_core_stack_with(const pkgnote_core *c, const pkgnote_stack_options *opts,
                                           pkgnote_stack **ret) {
        pkgnote_stack_options o;
        int r = pn_options_read(&o, sizeof o, opts, PN_SIZE_1_0(pkgnote_stack_options), "stack");
        if (r < 0)
                return r;
        if (o.flags & ~(PKGNOTE_STACK_ALL_THREADS | PKGNOTE_STACK_DEBUGINFOD | PKGNOTE_STACK_DEBUGINFOD_DRY_RUN |
                        PKGNOTE_STACK_PROGRESS))
                return pn_error(-EINVAL, "stack options: unknown flags 0x%x", o.flags);
        if (!o.module_timeout_ms)
                o.module_timeout_ms = MODULE_TIMEOUT_MS;
        if (!o.total_timeout_ms)
                o.total_timeout_ms = TOTAL_TIMEOUT_MS;
        if (o.module_timeout_ms > 3600000u || o.total_timeout_ms > 3600000u)
                return pn_error(-EINVAL, "stack options: a download time over an hour");
        pkgnote_stack *st = calloc(1, sizeof *st);
        if (!st)
                return pn_oom();
        *ret = st;
#if HAVE_LIBDW
        /* A running process is read with ptrace; a core needs a file (or
         * bytes in memory) that can be read again. */
        const char *why = NULL;
        if (!c->live && !c->view)
                why = "stack traces are made from core files and processes only";
        else if (!c->live && c->src && !c->have_stream_fd)
                why = "stack traces need a core file, not a pipe";
        else if (!c->live && !c->src && !c->view->mem && c->view->fd < 0)
                why = "the core is no longer open";
        int pfd[2] = {-1, -1};
        if (!why && pipe2(pfd, O_CLOEXEC) < 0)
                why = "cannot create a pipe";
        pid_t pid = -1, self = getpid();
        if (!why) {
                fflush(NULL);
                pid = fork();
                if (pid < 0) {
                        close(pfd[0]);
                        close(pfd[1]);
                        why = "cannot fork the unwinder";
                }
        }
        if (why) {
                st->unavailable = strdup(why);
                return 0;
        }
        /* Downloads have their own budget, which the child keeps; this is
         * the last resort against a child that does not. */
        long timeout = UNWIND_TIMEOUT_MS;
        if (c->src)
                timeout += DECOMPRESS_TIMEOUT_MS;
        if ((o.flags & PKGNOTE_STACK_DEBUGINFOD) && !(o.flags & PKGNOTE_STACK_DEBUGINFOD_DRY_RUN))
                timeout += (long)o.total_timeout_ms + (long)o.module_timeout_ms + 5000;
        if (pid == 0) {
                close(pfd[0]);
                unwind_child(pfd[1], c, &o, timeout, self);
        }
        close(pfd[1]);
        size_t len;
        bool timed_out;
        uint8_t *buf = read_child(pfd[0], timeout, &len, &timed_out);
        close(pfd[0]);
        if (timed_out)
                kill(pid, SIGKILL);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (buf)
                parse_records(st, buf, len);
        free(buf);
        if (timed_out && !st->unavailable)
                st->unavailable = strdup("the unwinder timed out");
        else if (WIFSIGNALED(status) && !st->unavailable) {
                char msg[64];
                snprintf(msg, sizeof msg, "the unwinder crashed (signal %d)", WTERMSIG(status));
                st->unavailable = strdup(msg);
        }
#else
        (void)c;
        st->unavailable = strdup("pkgnote was built without elfutils libdw");
#endif
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_stack_free(pkgnote_stack *st) {
        if (!st)
                return;
        for (size_t i = 0; i < st->n_threads; i++) {
                for (size_t k = 0; k < st->threads[i].n_frames; k++) {
                        free(st->threads[i].frames[k].function);
                        free(st->threads[i].frames[k].module);
                        free(st->threads[i].frames[k].file);
                }
                free(st->threads[i].frames);
        }
        for (size_t i = 0; i < st->n_debuginfo; i++) {
                pkgnote_debuginfo *d = &st->debuginfo[i];
                free((char *)d->module);
                free((char *)d->build_id);
                free((char *)d->servers);
                free((char *)d->file);
                free((char *)d->message);
        }
        free(st->debuginfo);
        free(st->threads);
        free(st->unavailable);
        free(st);
}

PKGNOTE_PUBLIC const char *pkgnote_stack_unavailable(const pkgnote_stack *st) {
        return st->unavailable;
}
PKGNOTE_PUBLIC size_t pkgnote_stack_thread_count(const pkgnote_stack *st) {
        return st->n_threads;
}
PKGNOTE_PUBLIC int pkgnote_stack_thread_tid(const pkgnote_stack *st, size_t t) {
        return t < st->n_threads ? st->threads[t].tid : -1;
}
PKGNOTE_PUBLIC size_t pkgnote_stack_frame_count(const pkgnote_stack *st, size_t t) {
        return t < st->n_threads ? st->threads[t].n_frames : 0;
}

static const struct frame *frame_at(const pkgnote_stack *st, size_t t, size_t i) {
        return t < st->n_threads && i < st->threads[t].n_frames ? &st->threads[t].frames[i] : NULL;
}
PKGNOTE_PUBLIC uint64_t pkgnote_stack_frame_pc(const pkgnote_stack *st, size_t t, size_t i) {
        const struct frame *f = frame_at(st, t, i);
        return f ? f->pc : 0;
}
PKGNOTE_PUBLIC uint64_t pkgnote_stack_frame_module_offset(const pkgnote_stack *st, size_t t, size_t i) {
        const struct frame *f = frame_at(st, t, i);
        return f ? f->module_offset : 0;
}
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_function(const pkgnote_stack *st, size_t t, size_t i) {
        const struct frame *f = frame_at(st, t, i);
        return f ? f->function : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_module(const pkgnote_stack *st, size_t t, size_t i) {
        const struct frame *f = frame_at(st, t, i);
        return f ? f->module : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_stack_frame_source(const pkgnote_stack *st, size_t t, size_t i, unsigned *line,
                                                      unsigned *column) {
        const struct frame *f = frame_at(st, t, i);
        if (line)
                *line = f ? f->line : 0;
        if (column)
                *column = f ? f->column : 0;
        return f ? f->file : NULL;
}
PKGNOTE_PUBLIC int pkgnote_stack_frame_inlined(const pkgnote_stack *st, size_t t, size_t i) {
        const struct frame *f = frame_at(st, t, i);
        return f && f->inlined;
}

PKGNOTE_PUBLIC size_t pkgnote_stack_debuginfo_count(const pkgnote_stack *st) {
        return st->n_debuginfo;
}
PKGNOTE_PUBLIC const pkgnote_debuginfo *pkgnote_stack_debuginfo(const pkgnote_stack *st, size_t i) {
        return i < st->n_debuginfo ? &st->debuginfo[i] : NULL;
}
PKGNOTE_PUBLIC const char *pkgnote_debuginfo_status_name(int status) {
        static const char *const names[] = {
                [PKGNOTE_DEBUGINFO_LOCAL] = "local",         [PKGNOTE_DEBUGINFO_CACHED] = "cached",
                [PKGNOTE_DEBUGINFO_DOWNLOADED] = "downloaded", [PKGNOTE_DEBUGINFO_DRY_RUN] = "dry-run",
                [PKGNOTE_DEBUGINFO_NOT_FOUND] = "not-found", [PKGNOTE_DEBUGINFO_FAILED] = "failed",
                [PKGNOTE_DEBUGINFO_MISMATCH] = "mismatch",   [PKGNOTE_DEBUGINFO_UNUSABLE] = "unusable",
                [PKGNOTE_DEBUGINFO_NO_SERVER] = "no-server", [PKGNOTE_DEBUGINFO_NOT_ALLOWED] = "not-allowed",
                [PKGNOTE_DEBUGINFO_NONE] = "none",
        };
        return status >= 0 && (size_t)status < sizeof names / sizeof *names ? names[status] : NULL;
}
