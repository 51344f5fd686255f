/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A list of crashes as every crash store fills it (lib/core-crash.h):
 * which crashes the options keep, and how an entry is let go.  The stores
 * (core-crash.c, core-systemd.c) add to it; neither calls the other for
 * this. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core-crash.h"
#include "internal.h"

/* Whether the crash C is the one MATCH names: its PID (MATCH numeric), its
 * command, its executable's path, its entry's name, or as coredumpctl
 * takes it, FIELD=VALUE of a systemd field the store recorded. */
static bool matches(const struct pkgnote_crash *c, const char *match) {
        if (!match)
                return true;
        char *end;
        errno = 0;
        long long pid = strtoll(match, &end, 10);
        if (*match && !*end && !errno) {
                json_t *p = json_object_get(c->j, "pid");
                return json_is_integer(p) && json_integer_value(p) == pid;
        }
        size_t field = strspn(match, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (field > 0 && match[field] == '=') {
                char name[64];
                if (field >= sizeof name)
                        return false;
                memcpy(name, match, field);
                name[field] = 0;
                const char *v = json_string_value(json_object_get(c->j, name));
                return v && !strcmp(v, match + field + 1);
        }
        const char *cmd = json_string_value(json_object_get(c->j, "command"));
        const char *exe = json_string_value(json_object_get(c->j, "executable"));
        const char *base = c->core ? strrchr(c->core, '/') : NULL;
        return (cmd && !strcmp(cmd, match)) || (exe && !strcmp(exe, match)) || !strcmp(c->id, match) ||
               (base && !strcmp(base + 1, match));
}

void pn_crash_clear(struct pkgnote_crash *c) {
        free(c->id);
        free(c->core);
        json_decref(c->j);
        *c = (struct pkgnote_crash){0};
}

int pn_crashes_add(pkgnote_crashes *l, struct pkgnote_crash *c, const pkgnote_crash_options *o) {
        if (!matches(c, o->match) || (o->since && c->time < o->since) || (o->until && c->time > o->until)) {
                pn_crash_clear(c);
                return 0;
        }
        if (PN_GROW(l->c, l->cap, l->n + 1) < 0) {
                pn_crash_clear(c);
                return pn_error(-ENOMEM, "out of memory");
        }
        l->c[l->n++] = *c;
        return 0;
}


int pn_crash_dir_open(const char *dir, bool named, int *ret_dfd, DIR **ret_dir) {
        *ret_dfd = -1, *ret_dir = NULL;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT && !named ? 0 : pn_error(-errno, "'%s': %s", dir, strerror(errno));
        /* The listing reads a descriptor of its own; DFD stays for
         * opening the entries below it. */
        int dup_fd = dup(dfd);
        DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
        if (!d) {
                int r = pn_error(-errno, "%s: cannot read: %s", dir, strerror(errno));
                if (dup_fd >= 0)
                        close(dup_fd);
                close(dfd);
                return r;
        }
        *ret_dfd = dfd, *ret_dir = d;
        return 0;
}
