/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stored crash's signature without its core: from the stack trace that
 * pkgnote-coredump's report holds (the report is the store's, written by
 * the handler, but read as untrusted like every store), else from the
 * stack text systemd-coredump wrote into the journal's MESSAGE.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "01-base.h"
#include "01-base-problem.h"
#include "08-core-signature.h"
#include "11-crash-private.h"

/* "0x..." of the report, as pkgnote_core_to_json() writes it. */
static bool report_hex(json_t *v, uint64_t *ret) {
        const char *s = json_string_value(v);
        if (!s || strncmp(s, "0x", 2) || !s[2] || strlen(s) > 18)
                return false;
        uint64_t x = 0;
        for (s += 2; *s; s++) {
                if (!pn_ascii_xdigit(*s))
                        return false;
                x = x << 4 | (uint64_t)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
        }
        *ret = x;
        return true;
}

/* The report's module holding PC, with its build-id, package name and version. */
static void report_module(json_t *modules, struct pn_sig_frame *f) {
        size_t i;
        json_t *m;
        json_array_foreach(modules, i, m) {
                uint64_t start, end;
                if (!report_hex(json_object_get(m, "start"), &start) || !report_hex(json_object_get(m, "end"), &end) ||
                    f->pc < start || f->pc >= end)
                        continue;
                f->build_id = json_string_value(json_object_get(m, "buildId"));
                json_t *note = json_array_get(json_object_get(m, "packages"), 0);
                f->package = json_string_value(json_object_get(note, "name"));
                f->version = f->package ? json_string_value(json_object_get(note, "version")) : NULL;
                const char *state = json_string_value(json_object_get(m, "dbState"));
                if (!f->package && state && !strcmp(state, "owned")) {
                        json_t *db = json_object_get(m, "dbPackage");
                        f->package = json_string_value(json_object_get(db, "name"));
                        f->version = f->package ? json_string_value(json_object_get(db, "version")) : NULL;
                }
                if (!f->module)
                        f->module = json_string_value(json_object_get(m, "path"));
                return;
        }
}

static int from_report(const pkgnote_crash *c, pkgnote_signature **ret) {
        json_t *frames = json_object_get(json_array_get(json_object_get(pn_crash_record(c), "threads"), 0), "frames");
        size_t n = json_array_size(frames);
        if (n == 0)
                return 0;
        if (n > PKGNOTE_STACK_MAX_FRAMES)
                n = PKGNOTE_STACK_MAX_FRAMES;
        struct pn_sig_frame f[PKGNOTE_STACK_MAX_FRAMES] = {0};
        json_t *modules = json_object_get(c->j, "modules");
        for (size_t i = 0; i < n; i++) {
                json_t *fr = json_array_get(frames, i);
                if (!report_hex(json_object_get(fr, "pc"), &f[i].pc) ||
                    !report_hex(json_object_get(fr, "moduleOffset"), &f[i].offset))
                        return pn_error(-EBADMSG, "%s: frame %zu of the report's stack trace is malformed", c->id, i);
                f[i].function = json_string_value(json_object_get(fr, "function"));
                f[i].module = json_string_value(json_object_get(fr, "module"));
                report_module(modules, &f[i]);
        }
        int r = pn_signature_build(f, n, PKGNOTE_SIGNATURE_REPORT, ret);
        return r < 0 ? r : 1;
}

/* R, the error of a stack trace the store holds but that gives no
 * signature (malformed, hostile, over a limit): also a problem of C's
 * list, said once per crash, so that a listing that goes on without the
 * signature says why. */
static int refused(const pkgnote_crash *c, const char *what, int r) {
        pkgnote_crashes *l = (pkgnote_crashes *)c->list;
        struct pkgnote_crash *m = (struct pkgnote_crash *)c;
        if (r == -ENOMEM || !l || m->signature_said)
                return r;
        m->signature_said = true;
        const char *why = pn_last_error();
        char *copy = why ? strdup(why) : NULL;
        (void)pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, r, c->id, "no signature from %s: %s", what,
                              copy ? copy : strerror(-r));
        free(copy);
        /* the problem's recording leaves the call's message as it was */
        return pn_error(r, "%s", why ? why : strerror(-r));
}

int pkgnote_crash_signature(const pkgnote_crash *c, pkgnote_signature **ret) {
        if (!c || !ret)
                return pn_error(-EINVAL, "pkgnote_crash_signature: no crash");
        int r = from_report(c, ret);
        if (r != 0)
                return r < 0 ? refused(c, "the report's stack trace", r) : 0;
        const char *msg = pn_crash_string(c, "MESSAGE");
        if (!msg)
                return pn_error(-ENODATA, "%s: the store holds no stack trace of the crash", c->id);
        r = pkgnote_signature_from_message(msg, strlen(msg), pn_crash_string(c, "COREDUMP_PACKAGE_JSON"), ret);
        return r < 0 && r != -ENODATA ? refused(c, "the stack text of MESSAGE", r) : r;
}
