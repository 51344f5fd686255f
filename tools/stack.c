/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stack traces as text; the library unwinds (lib/stack.c) and writes
 * them as JSON (pkgnote_stack_to_json()). */
#include <inttypes.h>

#include "stack.h"
#include "tool.h"

void stack_print_text(const pkgnote_stack *st, FILE *f) {
        size_t n = pkgnote_stack_thread_count(st);
        if (n == 0) {
                fputs("\nStack trace unavailable: ", f);
                tool_print_escaped(f, pkgnote_stack_unavailable(st) ? pkgnote_stack_unavailable(st) : "no threads");
                fputc('\n', f);
                return;
        }
        for (size_t t = 0; t < n; t++) {
                fprintf(f, "\nStack trace of thread %d:\n", pkgnote_stack_thread_tid(st, t));
                for (size_t k = 0; k < pkgnote_stack_frame_count(st, t); k++) {
                        const char *fn = pkgnote_stack_frame_function(st, t, k), *mod = pkgnote_stack_frame_module(st, t, k);
                        fprintf(f, "#%-2zu 0x%016" PRIx64 " ", k, pkgnote_stack_frame_pc(st, t, k));
                        tool_print_escaped(f, fn ? fn : "n/a");
                        fputs(" (", f);
                        tool_print_escaped(f, mod ? mod : "n/a");
                        fprintf(f, " + 0x%" PRIx64 ")\n", pkgnote_stack_frame_module_offset(st, t, k));
                }
        }
}
