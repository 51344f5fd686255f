/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stack traces as text, and the options of the unwinder; the library
 * unwinds (lib/08-core-stack.c) and writes them as JSON (pkgnote_stack_to_json()). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack.h"
#include "tool.h"

static int parse_seconds(const char *opt, const char *arg, unsigned *ms) {
        char *end;
        errno = 0;
        double v = strtod(arg, &end);
        if (errno || end == arg || *end || !(v > 0) || v > 3600)
                return tool_fail("%s: '%s' is not a number of seconds (more than 0, at most 3600)", opt, arg), -1;
        *ms = (unsigned)(v * 1000 + 0.5);
        if (*ms == 0)
                *ms = 1;
        return 1;
}

int stack_option(struct stack_opts *o, int ch, const char *arg) {
        switch (ch) {
        case STACK_OPT_DEBUGINFOD:
        case STACK_OPT_DRY_RUN:
                o->lib.flags |= ch == STACK_OPT_DEBUGINFOD ? PKGNOTE_STACK_DEBUGINFOD : PKGNOTE_STACK_DEBUGINFOD_DRY_RUN;
                if (arg) {
                        if (!arg[strspn(arg, " \t")])
                                return tool_fail("--debuginfod: no server URL in '%s'", arg), -1;
                        if (o->lib.debuginfod_urls && strcmp(o->lib.debuginfod_urls, arg))
                                return tool_fail("--debuginfod: two different server lists given"), -1;
                        o->lib.debuginfod_urls = arg;
                }
                break;
        case STACK_OPT_TIMEOUT:
                if (parse_seconds("--debuginfod-timeout", arg, &o->lib.module_timeout_ms) < 0)
                        return -1;
                break;
        case STACK_OPT_BUDGET:
                if (parse_seconds("--debuginfod-budget", arg, &o->lib.total_timeout_ms) < 0)
                        return -1;
                break;
        default:
                return 0;
        }
        o->wanted = true;
        return 1;
}

static void print_frame(const pkgnote_stack *st, size_t t, size_t k, FILE *f) {
        const char *fn = pkgnote_stack_frame_function(st, t, k), *mod = pkgnote_stack_frame_module(st, t, k);
        fprintf(f, "#%-2zu 0x%016" PRIx64 " ", k, pkgnote_stack_frame_pc(st, t, k));
        tool_print_escaped(f, fn ? fn : "n/a");
        fputs(" (", f);
        tool_print_escaped(f, mod ? mod : "n/a");
        fprintf(f, " + 0x%" PRIx64 ")", pkgnote_stack_frame_module_offset(st, t, k));
        if (pkgnote_stack_frame_inlined(st, t, k))
                fputs(" [inlined]", f);
        unsigned line, column;
        const char *file = pkgnote_stack_frame_source(st, t, k, &line, &column);
        if (file) {
                fputs(" at ", f);
                tool_print_escaped(f, file);
                if (line)
                        fprintf(f, ":%u", line);
                if (line && column)
                        fprintf(f, ":%u", column);
        }
        fputc('\n', f);
}

static void print_debuginfo(const pkgnote_stack *st, FILE *f) {
        size_t n = pkgnote_stack_debuginfo_count(st);
        if (n == 0)
                return;
        fputs("\nDebug info:\n", f);
        for (size_t i = 0; i < n; i++) {
                const pkgnote_debuginfo *d = pkgnote_stack_debuginfo(st, i);
                const char *slash = strrchr(d->module, '/');
                fputs("  ", f);
                tool_print_escaped(f, slash && slash[1] ? slash + 1 : d->module);
                if (d->build_id) {
                        fputs(" (build-id ", f);
                        tool_print_escaped(f, d->build_id);
                        fputc(')', f);
                }
                fputs(": ", f);
                switch (d->status) {
                case PKGNOTE_DEBUGINFO_DRY_RUN: fputs("would be asked of", f); break;
                case PKGNOTE_DEBUGINFO_NOT_ALLOWED: fputs("not allowed to ask", f); break;
                default: tool_print_escaped(f, pkgnote_debuginfo_status_name(d->status)); break;
                }
                if (d->servers && (d->status == PKGNOTE_DEBUGINFO_DRY_RUN || d->status == PKGNOTE_DEBUGINFO_NOT_ALLOWED)) {
                        fputc(' ', f);
                        tool_print_escaped(f, d->servers);
                } else if (d->servers) {
                        fputs(d->status == PKGNOTE_DEBUGINFO_DOWNLOADED ? " from " : " (asked ", f);
                        tool_print_escaped(f, d->servers);
                        if (d->status != PKGNOTE_DEBUGINFO_DOWNLOADED)
                                fputc(')', f);
                }
                if (d->message) {
                        fputs(": ", f);
                        tool_print_escaped(f, d->message);
                }
                if (d->file) {
                        fputs(", ", f);
                        tool_print_escaped(f, d->file);
                }
                fputc('\n', f);
        }
}

void stack_print_text(const pkgnote_stack *st, FILE *f) {
        size_t n = pkgnote_stack_thread_count(st);
        if (n == 0) {
                fputs("\nStack trace unavailable: ", f);
                tool_print_escaped(f, pkgnote_stack_unavailable(st) ? pkgnote_stack_unavailable(st) : "no threads");
                fputc('\n', f);
        }
        for (size_t t = 0; t < n; t++) {
                fprintf(f, "\nStack trace of thread %d:\n", pkgnote_stack_thread_tid(st, t));
                for (size_t k = 0; k < pkgnote_stack_frame_count(st, t); k++)
                        print_frame(st, t, k, f);
        }
        print_debuginfo(st, f);
}

/* Called by the library (from the unwinder's process) once a download
 * has taken a second, and with MODULE NULL when it ends. */
static void progress(void *userdata, const char *module, const char *servers, int64_t done, int64_t total) {
        (void)userdata;
        if (!isatty(STDERR_FILENO))
                return;
        if (!module) {
                fputs("\r\033[K", stderr);
                fflush(stderr);
                return;
        }
        /* The module's name comes from the core: escaped, as all text. */
        const char *slash = strrchr(module, '/');
        fprintf(stderr, "\r\033[K%s: debug info for ", program_name);
        tool_print_escaped(stderr, slash ? slash + 1 : module);
        fputs(" from ", stderr);
        tool_print_escaped(stderr, servers);
        fprintf(stderr, ": %" PRId64 " KiB", done / 1024);
        if (total > 0)
                fprintf(stderr, " of %" PRId64 " KiB", total / 1024);
        fflush(stderr);
}

void stack_show_progress(struct stack_opts *o) {
        o->lib.progress = progress;
}
