/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "stack.h"
#include "tool.h"

#if HAVE_LIBDW
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

/* libdw is loaded with dlopen() in the unwinding child only: linking it
 * would make every pkgnote start pay for loading it and its dependencies,
 * though only stack traces need it. */
#define DW_FUNCS(X)                                                                            \
        X(dwfl_addrmodule) X(dwfl_begin) X(dwfl_build_id_find_elf) X(dwfl_core_file_attach)    \
        X(dwfl_core_file_report) X(dwfl_errmsg) X(dwfl_frame_pc) X(dwfl_getthreads)            \
        X(dwfl_module_addrname) X(dwfl_module_info) X(dwfl_report_end)                         \
        X(dwfl_standard_find_debuginfo) X(dwfl_thread_getframes) X(dwfl_thread_tid) X(elf_begin) \
        X(elf_version)
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

#define dwfl_addrmodule dw.dwfl_addrmodule
#define dwfl_begin dw.dwfl_begin
#define dwfl_build_id_find_elf dw.dwfl_build_id_find_elf
#define dwfl_core_file_attach dw.dwfl_core_file_attach
#define dwfl_core_file_report dw.dwfl_core_file_report
#define dwfl_errmsg dw.dwfl_errmsg
#define dwfl_frame_pc dw.dwfl_frame_pc
#define dwfl_getthreads dw.dwfl_getthreads
#define dwfl_module_addrname dw.dwfl_module_addrname
#define dwfl_module_info dw.dwfl_module_info
#define dwfl_report_end dw.dwfl_report_end
#define dwfl_standard_find_debuginfo dw.dwfl_standard_find_debuginfo
#define dwfl_thread_getframes dw.dwfl_thread_getframes
#define dwfl_thread_tid dw.dwfl_thread_tid
#define elf_begin dw.elf_begin
#define elf_version dw.elf_version

#define UNWIND_TIMEOUT_MS 20000

struct unwind_ctx {
        Dwfl *dwfl;
        FILE *out;
        int threads;
        bool all;
};

static int frame_cb(Dwfl_Frame *frame, void *userdata) {
        struct unwind_ctx *u = userdata;
        Dwarf_Addr pc;
        bool activation;
        if (!dwfl_frame_pc(frame, &pc, &activation))
                return DWARF_CB_ABORT;
        Dwarf_Addr adj = pc - (activation ? 0 : 1);
        Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, adj);
        const char *fn = NULL, *modname = NULL;
        Dwarf_Addr start = 0;
        if (mod) {
                fn = dwfl_module_addrname(mod, adj);
                modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
        }
        /* One record per line; fields cannot hold tabs or newlines. */
        fprintf(u->out, "F\t%" PRIx64 "\t%" PRIx64 "\t", (uint64_t)pc, (uint64_t)(pc - start));
        for (const char *p = modname ? modname : ""; *p; p++)
                fputc(*p == '\t' || *p == '\n' ? ' ' : *p, u->out);
        fputc('\t', u->out);
        for (const char *p = fn ? fn : ""; *p; p++)
                fputc(*p == '\t' || *p == '\n' ? ' ' : *p, u->out);
        fputc('\n', u->out);
        return DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *userdata) {
        struct unwind_ctx *u = userdata;
        fprintf(u->out, "T\t%d\n", (int)dwfl_thread_tid(thread));
        (void)dwfl_thread_getframes(thread, frame_cb, u);
        u->threads++;
        return u->all && u->threads < STACK_MAX_THREADS ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static void unwind_child(int outfd, const char *path, const char *exe, bool all) {
        static char *debuginfo_path = NULL;
        FILE *out = fdopen(outfd, "w");
        if (!out)
                _exit(3);
        const char *missing = load_libdw();
        if (missing) {
                fprintf(out, "E\t%s\n", missing);
                fclose(out);
                _exit(0);
        }
        const Dwfl_Callbacks callbacks = {
                .find_elf = dwfl_build_id_find_elf,
                .find_debuginfo = dwfl_standard_find_debuginfo,
                .debuginfo_path = &debuginfo_path,
        };
        /* Offline by design: never let libdw ask a debuginfod server. */
        unsetenv("DEBUGINFOD_URLS");
        elf_version(EV_CURRENT);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
        Dwfl *dwfl = elf ? dwfl_begin(&callbacks) : NULL;
        if (!dwfl || dwfl_core_file_report(dwfl, elf, exe) < 0 || dwfl_report_end(dwfl, NULL, NULL) != 0 ||
            dwfl_core_file_attach(dwfl, elf) < 0) {
                fprintf(out, "E\t%s\n", dwfl_errmsg(-1) ? dwfl_errmsg(-1) : "cannot read the core");
                fclose(out);
                _exit(0);
        }
        struct unwind_ctx u = {.dwfl = dwfl, .out = out, .all = all};
        (void)dwfl_getthreads(dwfl, thread_cb, &u);
        fclose(out);
        _exit(0);
}

static char *dup_field(const char *s) {
        return *s ? strdup(s) : NULL;
}

static void parse_records(struct stack_report *st, char *buf) {
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (line[0] == 'E' && line[1] == '\t') {
                        free(st->unavailable);
                        st->unavailable = strdup(line + 2);
                } else if (line[0] == 'T' && line[1] == '\t' && st->n_threads < STACK_MAX_THREADS) {
                        struct stack_thread *t = realloc(st->threads, (st->n_threads + 1) * sizeof *t);
                        if (!t)
                                return;
                        st->threads = t;
                        memset(&t[st->n_threads], 0, sizeof *t);
                        t[st->n_threads++].tid = atoi(line + 2);
                } else if (line[0] == 'F' && line[1] == '\t' && st->n_threads > 0) {
                        struct stack_thread *t = &st->threads[st->n_threads - 1];
                        if (t->n_frames >= STACK_MAX_FRAMES)
                                continue;
                        char *f[4] = {0};
                        char *p = line + 2;
                        for (int i = 0; i < 4 && p; i++) {
                                f[i] = p;
                                p = strchr(p, '\t');
                                if (p)
                                        *p++ = 0;
                        }
                        if (!f[3])
                                continue;
                        struct stack_frame *fr = &t->frames[t->n_frames++];
                        fr->pc = strtoull(f[0], NULL, 16);
                        fr->module_offset = strtoull(f[1], NULL, 16);
                        fr->module = dup_field(f[2]);
                        fr->function = dup_field(f[3]);
                }
        }
}

void stack_collect(struct stack_report *st, const char *path, const pkgnote_core *c, bool all_threads) {
        memset(st, 0, sizeof *st);
        /* libdwfl needs the core as a plain file. */
        char magic[4] = {0};
        int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd < 0 || read(fd, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
                if (fd >= 0)
                        close(fd);
                st->unavailable = strdup("stack traces need an uncompressed core file");
                return;
        }
        close(fd);
        pkgnote_process_info p;
        pkgnote_core_process(c, &p);
        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0) {
                st->unavailable = strdup("cannot create a pipe");
                return;
        }
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
                close(pfd[0]);
                close(pfd[1]);
                st->unavailable = strdup("cannot fork the unwinder");
                return;
        }
        if (pid == 0) {
                close(pfd[0]);
                unwind_child(pfd[1], path, p.executable, all_threads);
        }
        close(pfd[1]);
        size_t cap = 1 << 16, len = 0;
        char *buf = malloc(cap);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bool timed_out = false;
        while (buf) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                long elapsed = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
                struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
                if (elapsed >= UNWIND_TIMEOUT_MS || poll(&pf, 1, (int)(UNWIND_TIMEOUT_MS - elapsed)) == 0) {
                        timed_out = true;
                        break;
                }
                if (len + 1 >= cap) {
                        if (cap >= (4u << 20))
                                break;
                        char *n = realloc(buf, cap * 2);
                        if (!n)
                                break;
                        buf = n;
                        cap *= 2;
                }
                ssize_t n = read(pfd[0], buf + len, cap - len - 1);
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        close(pfd[0]);
        if (timed_out)
                kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        if (buf) {
                buf[len] = 0;
                parse_records(st, buf);
                free(buf);
        }
        if (timed_out && !st->unavailable)
                st->unavailable = strdup("the unwinder timed out");
        else if (WIFSIGNALED(status) && !st->unavailable) {
                char msg[64];
                snprintf(msg, sizeof msg, "the unwinder crashed (signal %d)", WTERMSIG(status));
                st->unavailable = strdup(msg);
        }
}
#else
void stack_collect(struct stack_report *st, const char *path, const pkgnote_core *c, bool all_threads) {
        memset(st, 0, sizeof *st);
        st->unavailable = strdup("pkgnote was built without elfutils libdw");
}
#endif

void stack_print_text(const struct stack_report *st, FILE *f) {
        if (st->n_threads == 0) {
                fputs("\nStack trace unavailable: ", f);
                tool_print_escaped(f, st->unavailable ? st->unavailable : "no threads");
                fputc('\n', f);
                return;
        }
        for (size_t i = 0; i < st->n_threads; i++) {
                const struct stack_thread *t = &st->threads[i];
                fprintf(f, "\nStack trace of thread %d:\n", t->tid);
                for (size_t k = 0; k < t->n_frames; k++) {
                        const struct stack_frame *fr = &t->frames[k];
                        fprintf(f, "#%-2zu 0x%016" PRIx64 " ", k, fr->pc);
                        tool_print_escaped(f, fr->function ? fr->function : "n/a");
                        fputs(" (", f);
                        tool_print_escaped(f, fr->module ? fr->module : "n/a");
                        fprintf(f, " + 0x%" PRIx64 ")\n", fr->module_offset);
                }
        }
}

void stack_print_json(const struct stack_report *st, const pkgnote_core *c, FILE *f) {
        fputc('[', f);
        for (size_t i = 0; i < st->n_threads; i++) {
                const struct stack_thread *t = &st->threads[i];
                fprintf(f, "%s{\"tid\":%d,\"frames\":[", i ? "," : "", t->tid);
                for (size_t k = 0; k < t->n_frames; k++) {
                        const struct stack_frame *fr = &t->frames[k];
                        fprintf(f, "%s{\"pc\":\"0x%" PRIx64 "\",\"function\":", k ? "," : "", fr->pc);
                        if (fr->function)
                                tool_print_json_string(f, fr->function);
                        else
                                fputs("null", f);
                        fputs(",\"module\":", f);
                        if (fr->module)
                                tool_print_json_string(f, fr->module);
                        else
                                fputs("null", f);
                        fprintf(f, ",\"moduleOffset\":\"0x%" PRIx64 "\"}", fr->module_offset);
                }
                fputs("]}", f);
        }
        fputc(']', f);
        (void)c;
}

void stack_free(struct stack_report *st) {
        for (size_t i = 0; i < st->n_threads; i++)
                for (size_t k = 0; k < st->threads[i].n_frames; k++) {
                        free(st->threads[i].frames[k].function);
                        free(st->threads[i].frames[k].module);
                }
        free(st->threads);
        free(st->unavailable);
}
