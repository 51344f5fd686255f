/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A list of crashes as every crash store fills it (lib/11-crash-private.h):
 * which crashes the options keep, and how an entry is let go.  The stores
 * (11-crash.c, 11-crash-systemd.c; the table of them: 11-crash-stores.c)
 * add to it; none calls another. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "11-crash-private.h"
#include "01-base.h"

int pn_crash_parse_number(const char *s, size_t len, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;
        /* 20 digits hold any uint64_t; a leading zero only alone. */
        if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
                return -EBADMSG;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EBADMSG;
                unsigned d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -EBADMSG;
                v = v * 10 + d;
        }
        if (v > max)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int pn_crash_parse_name(const char *name, struct pn_crash_name *ret) {
        /* Any name longer than an entry's, whatever its end, is none. */
        size_t n = strnlen(name, PN_CRASH_MAX_NAME + 16);
        size_t rl = strlen(PN_CRASH_REPORT_SUFFIX), cl = strlen(PN_CRASH_CORE_SUFFIX);
        struct pn_crash_name r = {0};
        if (n > rl && !memcmp(name + n - rl, PN_CRASH_REPORT_SUFFIX, rl))
                r.report = true, n -= rl;
        else if (n > cl && !memcmp(name + n - cl, PN_CRASH_CORE_SUFFIX, cl))
                n -= cl;
        else
                return -EBADMSG;
        if (n > PN_CRASH_MAX_NAME || n < 5 || memcmp(name, "core.", 5))
                return -EBADMSG;
        memcpy(r.entry, name, n);
        r.entry[n] = 0;
        /* COMM (no '.': pn_crash_entry_name() leaves none), then UID, PID
         * and TIME, '.' between. */
        const char *p = r.entry + 5, *end = r.entry + n;
        const char *dot = memchr(p, '.', (size_t)(end - p));
        if (!dot || dot == p)
                return -EBADMSG;
        for (const char *c = p; c < dot; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
                      *c == '-'))
                        return -EBADMSG;
        uint64_t *num[3] = {&r.uid, &r.pid, &r.time};
        const uint64_t max[3] = {UINT32_MAX, INT32_MAX, INT64_MAX};
        for (int i = 0; i < 3; i++) {
                p = dot + 1;
                if (p > end)
                        return -EBADMSG;
                dot = memchr(p, '.', (size_t)(end - p));
                if ((i < 2) != (dot != NULL))
                        return -EBADMSG;
                const char *stop = dot ? dot : end;
                if (pn_crash_parse_number(p, (size_t)(stop - p), max[i], num[i]) < 0)
                        return -EBADMSG;
        }
        *ret = r;
        return 0;
}

json_t *pn_crash_record(const struct pkgnote_crash *c) {
        struct pkgnote_crash *m = (struct pkgnote_crash *)c; /* the list's own: the cache fills in */
        if (m->partial && m->row && m->row->fill && m->row->fill(m) < 0)
                m->partial = false; /* what could be read stays; the error is recorded */
        return m->j;
}

const char *pn_crash_string(const struct pkgnote_crash *c, const char *field) {
        json_t *v = json_object_get(c->j, field);
        if (!v && c->partial)
                v = json_object_get(pn_crash_record(c), field);
        return json_string_value(v);
}

const char *pn_crash_machine_id(pkgnote_crashes *l) {
        if (!l->machine_read) {
                l->machine_read = true;
                pn_read_machine_id(l->machine_id);
                if (gethostname(l->hostname, sizeof l->hostname) < 0)
                        l->hostname[0] = 0;
                l->hostname[sizeof l->hostname - 1] = 0;
        }
        return l->machine_id[0] ? l->machine_id : NULL;
}

int pn_crash_this_machine(pkgnote_crashes *l, json_t *j) {
        (void)pn_crash_machine_id(l);
        if (l->machine_id[0] && !json_object_get(j, "machineId") &&
            json_object_set_new(j, "machineId", json_string(l->machine_id)) < 0)
                return pn_oom();
        if (l->hostname[0] && !json_is_string(json_object_get(j, "hostname"))) {
                size_t n;
                char *h = pn_utf8_or_hex(l->hostname, strlen(l->hostname), &n);
                if (!h || json_object_set_new(j, "hostname", json_string(h)) < 0) {
                        free(h);
                        return pn_oom();
                }
                free(h);
        }
        return 0;
}

/* The number the record J holds as the text of FIELD, at most MAX. */
static bool field_number(const json_t *j, const char *field, uint64_t max, uint64_t *ret) {
        const char *v = json_string_value(json_object_get(j, field));
        return v && pn_crash_parse_number(v, strlen(v), max, ret) == 0;
}

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
                if (json_is_integer(p) && json_integer_value(p) == pid)
                        return true;
                /* Or the PID the crash handler was given (%P, of the initial
                 * PID namespace; a container's core holds its own): the
                 * journal's COREDUMP_PID, or where its store keeps it. */
                uint64_t v;
                const char *cp = pn_crash_string(c, "COREDUMP_PID");
                return (cp && pn_crash_parse_number(cp, strlen(cp), INT32_MAX, &v) == 0 && (long long)v == pid) ||
                       (c->row && c->row->names_pid && c->row->names_pid(c, pid));
        }
        size_t field = strspn(match, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (field > 0 && match[field] == '=') {
                char name[64];
                if (field >= sizeof name)
                        return false;
                memcpy(name, match, field);
                name[field] = 0;
                const char *v = pn_crash_string(c, name);
                return v && !strcmp(v, match + field + 1);
        }
        const char *cmd = pn_crash_string(c, "command");
        const char *exe = pn_crash_string(c, "executable");
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

bool pn_crash_wanted(const struct pkgnote_crash *c, const pkgnote_crash_options *o) {
        return matches(c, o->match) && !(o->since && c->time < o->since) && !(o->until && c->time > o->until);
}

bool pn_crash_journal_names(const struct pkgnote_crash *s, const struct pkgnote_crash *j) {
        if (s->store != PKGNOTE_CRASH_STORE_PKGNOTE || !s->core || j->store != PKGNOTE_CRASH_STORE_JOURNAL ||
            !j->pkgnote_handler)
                return false;
        const char *f = json_string_value(json_object_get(j->j, "COREDUMP_FILENAME"));
        const char *base = f ? strrchr(f, '/') : NULL, *own = strrchr(s->core, '/');
        own = own ? own + 1 : s->core;
        struct pn_crash_name n;
        uint64_t pid, uid, usec;
        if (!base || strcmp(base + 1, own) || pn_crash_parse_name(own, &n) < 0 || n.report)
                return false;
        /* pkgnote-coredump logs the kernel's %t (seconds) as microseconds. */
        if (!field_number(j->j, "COREDUMP_PID", INT32_MAX, &pid) || pid != n.pid ||
            !field_number(j->j, "COREDUMP_UID", UINT32_MAX, &uid) || uid != n.uid ||
            !field_number(j->j, "COREDUMP_TIMESTAMP", UINT64_MAX, &usec) || n.time > UINT64_MAX / 1000000 ||
            usec != n.time * 1000000)
                return false;
        const char *boot = json_string_value(json_object_get(s->j, "bootId"));
        const char *jboot = json_string_value(json_object_get(j->j, "_BOOT_ID"));
        return !boot || (jboot && !strcmp(boot, jboot));
}

int pn_crashes_add(pkgnote_crashes *l, struct pkgnote_crash *c, const pkgnote_crash_options *o) {
        if (!pn_crash_wanted(c, o)) {
                pn_crash_clear(c);
                return 0;
        }
        if (PN_GROW(l->c, l->cap, l->n + 1) < 0) {
                pn_crash_clear(c);
                return pn_oom();
        }
        l->c[l->n++] = *c;
        return 0;
}


int pn_crash_dir_open(const char *dir, bool named, int *ret_dfd, struct pn_dir *ret_dir) {
        *ret_dfd = -1;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT && !named ? 0 : pn_error(-errno, "'%s': %s", dir, strerror(errno));
        /* The listing reads a descriptor of its own; DFD stays for
         * opening the entries below it. */
        int r = pn_dir_open(ret_dir, dfd, NULL, 0, 0);
        if (r < 0) {
                r = pn_error(r, "%s: cannot read: %s", dir, strerror(-r));
                close(dfd);
                return r;
        }
        *ret_dfd = dfd;
        return 0;
}

