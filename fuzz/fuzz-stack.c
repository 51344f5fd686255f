/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the parent's reading of the unwinder child's records: the child
 * runs libdw over a hostile core and downloaded debug files, so what it
 * sends is not trusted.  Every accessor is read to the last byte, and the
 * JSON of the stack must parse back with as many threads.
 */
#include <stdint.h>
#include <stdlib.h>

#include "08-core-private.h"
#include "touch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        pkgnote_stack *st;
        if (pn_stack_from_records(data, size, &st) < 0)
                return 0;
        touch_str(pkgnote_stack_unavailable(st));
        size_t nt = pkgnote_stack_thread_count(st);
        if (nt > PKGNOTE_STACK_MAX_THREADS)
                abort();
        for (size_t t = 0; t < nt; t++) {
                size_t nf = pkgnote_stack_frame_count(st, t);
                if (nf > PKGNOTE_STACK_MAX_FRAMES)
                        abort();
                sink += (size_t)pkgnote_stack_thread_tid(st, t);
                for (size_t i = 0; i < nf; i++) {
                        unsigned line, column;
                        touch_str(pkgnote_stack_frame_source(st, t, i, &line, &column));
                        touch_str(pkgnote_stack_frame_module(st, t, i));
                        touch_str(pkgnote_stack_frame_function(st, t, i));
                        sink += line + column + (size_t)pkgnote_stack_frame_inlined(st, t, i) +
                                pkgnote_stack_frame_pc(st, t, i);
                }
        }
        for (size_t i = 0; i < pkgnote_stack_debuginfo_count(st); i++) {
                const pkgnote_debuginfo *d = pkgnote_stack_debuginfo(st, i);
                if (!d || !d->module || !pkgnote_debuginfo_status_name(d->status))
                        abort();
                touch_str(d->module);
                touch_str(d->build_id);
                touch_str(d->servers);
                touch_str(d->file);
                touch_str(d->message);
        }
        char *j;
        if (pkgnote_stack_to_json(st, &j) == 0) {
                json_t *v = json_loads(j, 0, NULL);
                if (!v || json_array_size(v) != nt)
                        abort();
                json_decref(v);
                free(j);
        }
        pkgnote_stack_free(st);
        return 0;
}
