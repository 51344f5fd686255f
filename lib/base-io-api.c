/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The output rule, full reads and writes and the escaping of shown text
 * (lib/base-output.c, lib/base-error.c) for programs of the public API: the pkgnote
 * command writes and shows its files through these, as the library does.
 */
#include <stdlib.h>

#include "internal.h"
#include "base-output.h"

_Static_assert(PKGNOTE_OUTPUT_FOLLOW == PN_OUT_FOLLOW && PKGNOTE_OUTPUT_STDIO == PN_OUT_STDIO &&
                               PKGNOTE_OUTPUT_BINARY == PN_OUT_BINARY && PKGNOTE_OUTPUT_REGULAR == PN_OUT_REGULAR &&
                               PKGNOTE_OUTPUT_EXCL == PN_OUT_EXCL,
               "public output flags are the internal ones");
#define PUBLIC_OUTPUT_FLAGS \
        (PKGNOTE_OUTPUT_FOLLOW | PKGNOTE_OUTPUT_STDIO | PKGNOTE_OUTPUT_BINARY | PKGNOTE_OUTPUT_REGULAR | PKGNOTE_OUTPUT_EXCL)

struct pkgnote_output {
        pn_output o;
};

PKGNOTE_PUBLIC int pkgnote_output_open(int dirfd, const char *path, unsigned flags, pkgnote_output **ret) {
        if (!path || !ret)
                return pn_error(-EINVAL, "no output file named");
        if (flags & ~(unsigned)PUBLIC_OUTPUT_FLAGS)
                return pn_error(-EINVAL, "unknown output flags 0x%x", flags & ~(unsigned)PUBLIC_OUTPUT_FLAGS);
        pkgnote_output *out = malloc(sizeof *out);
        if (!out)
                return pn_oom();
        int r = pn_output_open(&out->o, dirfd, path, flags);
        if (r < 0) {
                free(out);
                return r;
        }
        *ret = out;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_output_fd(const pkgnote_output *o) {
        return o ? o->o.fd : -1;
}

PKGNOTE_PUBLIC int pkgnote_output_kind(const pkgnote_output *o) {
        if (!o)
                return -EINVAL;
        return o->o.borrowed ? PKGNOTE_OUTPUT_OWN : o->o.direct ? PKGNOTE_OUTPUT_DIRECT : PKGNOTE_OUTPUT_REPLACE;
}

PKGNOTE_PUBLIC int pkgnote_output_verify(const pkgnote_output *o, const void *data, size_t len) {
        if (!o || (!data && len))
                return pn_error(-EINVAL, "nothing to compare");
        if (o->o.direct)
                return pn_error(-EINVAL, "written in place: nothing to read back");
        return pn_output_verify(&o->o, data, len);
}

PKGNOTE_PUBLIC int pkgnote_output_commit(pkgnote_output *o) {
        if (!o)
                return pn_error(-EINVAL, "no output");
        int r = pn_output_commit(&o->o);
        free(o);
        return r;
}

PKGNOTE_PUBLIC void pkgnote_output_abort(pkgnote_output *o) {
        if (!o)
                return;
        pn_output_abort(&o->o);
        free(o);
}

PKGNOTE_PUBLIC int pkgnote_write_full(int fd, const void *buf, size_t len, pkgnote_room_fn room, void *userdata) {
        if (!buf && len)
                return -EINVAL;
        return pn_write_full_room(fd, buf, len, room, userdata);
}

PKGNOTE_PUBLIC int64_t pkgnote_read_full(int fd, void *buf, size_t len) {
        if (!buf && len)
                return -EINVAL;
        return pn_read_full(fd, buf, len);
}

PKGNOTE_PUBLIC int pkgnote_read_all(int fd, size_t max, char **ret, size_t *ret_len) {
        if (!ret || !ret_len)
                return -EINVAL;
        return pn_read_all(fd, max, ret, ret_len);
}

PKGNOTE_PUBLIC size_t pkgnote_escape(char *dst, size_t cap, const char *s, size_t len, int backslash) {
        if (!dst || (!s && len))
                return 0;
        return pn_escape(dst, cap, s, len, backslash != 0);
}
