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
 * and a path may name another file by now.  Modules are the reader's
 * (NT_FILE), reported to libdwfl one by one, and their files are opened by
 * our own callback only: nowhere under --no-disk, inside the root under
 * --root, regular files only, and used only when their build-id is the
 * one in the core.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "core.h"
#include "elfview.h"

struct frame {
        uint64_t pc, module_offset;
        char *function, *module;
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
};

/* One record of the child: a thread, a frame of the last thread, or why
 * there is no trace; LEN_A and LEN_B bytes of strings follow (module and
 * function, or the message in A). */
enum { REC_THREAD = 1, REC_FRAME = 2, REC_ERROR = 3 };
struct record {
        uint32_t kind;
        int32_t tid;
        uint64_t pc, module_offset;
        uint32_t len_a, len_b;
};
#define MAX_STRING 4096u
#define MAX_OUTPUT (4u << 20)
#define UNWIND_TIMEOUT_MS 20000

static void put_record(FILE *out, uint32_t kind, int tid, uint64_t pc, uint64_t off, const char *a, const char *b) {
        size_t la = a ? strnlen(a, MAX_STRING) : 0, lb = b ? strnlen(b, MAX_STRING) : 0;
        struct record r = {kind, tid, pc, off, (uint32_t)la, (uint32_t)lb};
        fwrite(&r, sizeof r, 1, out);
        if (la)
                fwrite(a, 1, la, out);
        if (lb)
                fwrite(b, 1, lb, out);
}

#if HAVE_LIBDW
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#define DW_FUNCS(X)                                                                                  \
        X(dwfl_addrmodule) X(dwfl_begin) X(dwfl_core_file_attach) X(dwfl_errmsg) X(dwfl_frame_pc)    \
        X(dwfl_getthreads) X(dwfl_module_addrname) X(dwfl_module_info) X(dwfl_report_begin)          \
        X(dwfl_report_end) X(dwfl_report_module) X(dwfl_standard_find_debuginfo)                     \
        X(dwfl_thread_getframes) X(dwfl_thread_tid) X(elf_begin) X(elf_memory) X(elf_version)
static struct {
#define FIELD(f) __typeof__(f) *f;
        DW_FUNCS(FIELD)
#undef FIELD
} dw;

static const char *load_libdw(void) {
        void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return "elfutils libdw (libdw.so.1) is not installed";
#define LOAD(f)                                      \
        if (!(dw.f = (__typeof__(f) *)dlsym(h, #f))) \
                return "libdw lacks " #f;
        DW_FUNCS(LOAD)
#undef LOAD
        return NULL;
}

/* State of the child, for libdwfl's callbacks. */
static struct {
        const pkgnote_core *core;
        int rootfd;
        bool no_disk;
        FILE *out;
        unsigned threads;
        bool all;
} u;

static const pkgnote_module *module_named(const char *name, Dwarf_Addr base) {
        for (size_t i = 0; i < u.core->n_modules; i++) {
                const pkgnote_module *m = &u.core->modules[i];
                if (m->start == base && !strcmp(m->path, name))
                        return m;
        }
        return NULL;
}

/* Opens the module's file as the core reader does: inside the root, a
 * regular file, and only when its build-id is the core's. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
                    Elf **elfp) {
        (void)mod;
        (void)userdata;
        *elfp = NULL;
        const pkgnote_module *m = module_named(name, base);
        if (u.no_disk || !m || m->is_vdso || !m->build_id)
                return -1;
        int fd = pn_open_in_root(u.rootfd, m->path);
        if (fd < 0)
                return -1;
        pkgnote_elf *e;
        pkgnote_info *info = NULL;
        int dfd = dup(fd);
        bool same = false;
        if (dfd >= 0 && pkgnote_elf_open_fd(dfd, &e) >= 0) {
                e->own_fd = true;
                if (pkgnote_info_read(e, &info) >= 0) {
                        const char *id = pkgnote_info_build_id(info);
                        same = id && !strcmp(id, m->build_id);
                        pkgnote_info_free(info);
                }
                pkgnote_elf_free(e);
        } else if (dfd >= 0)
                close(dfd);
        if (!same) {
                close(fd);
                return -1;
        }
        *file_name = strdup(m->path);
        return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                          char **debuginfo_file_name) {
        /* Debug files are searched on the host only when module files may
         * be read from it; never under --no-disk or --root. */
        if (u.no_disk || u.rootfd >= 0)
                return -1;
        return dw.dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                               debuglink_crc, debuginfo_file_name);
}

static int frame_cb(Dwfl_Frame *frame, void *arg) {
        Dwfl *dwfl = arg;
        Dwarf_Addr pc;
        bool activation;
        if (!dw.dwfl_frame_pc(frame, &pc, &activation))
                return DWARF_CB_ABORT;
        Dwarf_Addr adj = pc - (activation ? 0 : 1);
        Dwfl_Module *mod = dw.dwfl_addrmodule(dwfl, adj);
        const char *fn = NULL, *modname = NULL;
        Dwarf_Addr start = 0;
        if (mod) {
                fn = dw.dwfl_module_addrname(mod, adj);
                modname = dw.dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
        }
        /* The file's name, as systemd-coredump and eu-stack show it. */
        const char *slash = modname ? strrchr(modname, '/') : NULL;
        put_record(u.out, REC_FRAME, 0, pc, pc - start, slash && slash[1] ? slash + 1 : modname, fn);
        return DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *arg) {
        put_record(u.out, REC_THREAD, (int)dw.dwfl_thread_tid(thread), 0, 0, NULL, NULL);
        (void)dw.dwfl_thread_getframes(thread, frame_cb, arg);
        u.threads++;
        return u.all && u.threads < PKGNOTE_STACK_MAX_THREADS ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static void child_fail(const char *why) {
        put_record(u.out, REC_ERROR, 0, 0, 0, why, NULL);
        fclose(u.out);
        _exit(0);
}

static void unwind_child(int outfd, const pkgnote_core *c, bool all) {
        /* Not dumpable (no core of the unwinder itself, no ptrace by
         * others), and bounded in CPU time besides the parent's timeout. */
        (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        struct rlimit zero = {0, 0}, cpu = {UNWIND_TIMEOUT_MS / 1000 + 5, UNWIND_TIMEOUT_MS / 1000 + 5};
        (void)setrlimit(RLIMIT_CORE, &zero);
        (void)setrlimit(RLIMIT_CPU, &cpu);
        u.out = fdopen(outfd, "w");
        if (!u.out)
                _exit(3);
        u.core = c;
        u.all = all;
        u.no_disk = c->no_disk;
        u.rootfd = -1;
        if (!u.no_disk && c->root && (u.rootfd = open(c->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                u.no_disk = true;
        const char *missing = load_libdw();
        if (missing)
                child_fail(missing);
        /* Offline by design: never let libdw ask a debuginfod server. */
        unsetenv("DEBUGINFOD_URLS");
        static char *debuginfo_path = NULL;
        const Dwfl_Callbacks callbacks = {
                .find_elf = find_elf,
                .find_debuginfo = find_debuginfo,
                .debuginfo_path = &debuginfo_path,
        };
        dw.elf_version(EV_CURRENT);
        const pkgnote_elf *v = c->view;
        Elf *elf = v->mem ? dw.elf_memory((char *)(uintptr_t)v->mem, (size_t)v->size)
                          : dw.elf_begin(v->fd, ELF_C_READ_MMAP, NULL);
        Dwfl *dwfl = elf ? dw.dwfl_begin(&callbacks) : NULL;
        if (!dwfl)
                child_fail("cannot read the core");
        dw.dwfl_report_begin(dwfl);
        for (size_t i = 0; i < c->n_modules; i++) {
                const pkgnote_module *m = &c->modules[i];
                (void)dw.dwfl_report_module(dwfl, m->path, m->start, m->end);
        }
        if (dw.dwfl_report_end(dwfl, NULL, NULL) != 0 || dw.dwfl_core_file_attach(dwfl, elf) < 0)
                child_fail(dw.dwfl_errmsg(-1) ? dw.dwfl_errmsg(-1) : "cannot read the core");
        (void)dw.dwfl_getthreads(dwfl, thread_cb, dwfl);
        fclose(u.out);
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

/* The child's records, checked: lengths within the buffer and the caps. */
static void parse_records(pkgnote_stack *st, const uint8_t *buf, size_t len) {
        size_t at = 0;
        while (len - at >= sizeof(struct record)) {
                struct record r;
                memcpy(&r, buf + at, sizeof r);
                at += sizeof r;
                if (r.len_a > MAX_STRING || r.len_b > MAX_STRING || (size_t)r.len_a + r.len_b > len - at)
                        break;
                const uint8_t *a = buf + at, *b = buf + at + r.len_a;
                at += (size_t)r.len_a + r.len_b;
                if (r.kind == REC_ERROR) {
                        free(st->unavailable);
                        st->unavailable = dup_bytes(a, r.len_a);
                } else if (r.kind == REC_THREAD && st->n_threads < PKGNOTE_STACK_MAX_THREADS) {
                        if (PN_GROW(st->threads, st->cap_threads, st->n_threads + 1) < 0)
                                return;
                        st->threads[st->n_threads++] = (struct thread){.tid = r.tid};
                } else if (r.kind == REC_FRAME && st->n_threads > 0) {
                        struct thread *t = &st->threads[st->n_threads - 1];
                        if (t->n_frames >= PKGNOTE_STACK_MAX_FRAMES)
                                continue;
                        if (PN_GROW(t->frames, t->cap_frames, t->n_frames + 1) < 0)
                                return;
                        t->frames[t->n_frames++] = (struct frame){r.pc, r.module_offset, dup_bytes(b, r.len_b),
                                                          dup_bytes(a, r.len_a)};
                }
        }
}

/* Reads the child's output until it ends, the cap, or the deadline. */
static uint8_t *read_child(int fd, size_t *len, bool *timed_out) {
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
                int p = elapsed >= UNWIND_TIMEOUT_MS ? 0 : poll(&pf, 1, (int)(UNWIND_TIMEOUT_MS - elapsed));
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

PKGNOTE_PUBLIC int pkgnote_core_stack(const pkgnote_core *c, unsigned flags, pkgnote_stack **ret) {
        pkgnote_stack *st = calloc(1, sizeof *st);
        if (!st)
                return pn_error(-ENOMEM, "out of memory");
        *ret = st;
#if HAVE_LIBDW
        const char *why = NULL;
        if (!c->view)
                why = "stack traces are made from core files only";
        else if (c->src)
                why = pn_core_source_compressed(c->src) ? "stack traces need an uncompressed core file"
                                                        : "stack traces need a core file, not a pipe";
        else if (!c->view->mem && c->view->fd < 0)
                why = "the core is no longer open";
        int pfd[2] = {-1, -1};
        if (!why && pipe2(pfd, O_CLOEXEC) < 0)
                why = "cannot create a pipe";
        pid_t pid = -1;
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
        if (pid == 0) {
                close(pfd[0]);
                unwind_child(pfd[1], c, flags & PKGNOTE_STACK_ALL_THREADS);
        }
        close(pfd[1]);
        size_t len;
        bool timed_out;
        uint8_t *buf = read_child(pfd[0], &len, &timed_out);
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
        (void)flags;
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
                }
                free(st->threads[i].frames);
        }
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
