/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashdir.h"
#include "tool.h"

const char *crash_state_dir(const char *override) {
        if (override)
                return override;
        const char *e = getenv("PKGNOTE_COREDUMP_DIR");
        return e && *e ? e : CRASH_DEFAULT_DIR;
}

void crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time) {
        char c[32];
        size_t i = 0;
        for (; comm[i] && i + 1 < sizeof c; i++) {
                char x = comm[i];
                c[i] = (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || (x >= '0' && x <= '9') || x == '_' || x == '-'
                               ? x
                               : '_';
        }
        c[i] = 0;
        snprintf(buf, len, "core.%s.%d.%d.%" PRId64, i ? c : "_", uid, pid, time);
}

void crash_write_report(FILE *f, const pkgnote_core *c, int64_t time, const char *host, const char *core_path) {
        char *extra = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&extra, &len);
        if (m) {
                fprintf(m, "\"time\":%" PRId64 ",\"hostname\":", time);
                tool_print_json_string(m, host);
                fputs(",\"coreFile\":", m);
                tool_print_json_string(m, core_path);
                fclose(m);
        }
        core_print_json(f, c, NULL, extra);
        free(extra);
}

struct entry {
        char *name; /* without suffix */
        int64_t time;
        uint64_t bytes;
};

static int cmp_entry(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->name, y->name);
}

void crash_enforce_limits(const char *dir, uint64_t max_use, const char *keep) {
        DIR *d = opendir(dir);
        if (!d)
                return;
        struct entry *e = NULL;
        size_t n = 0;
        uint64_t total = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (strncmp(de->d_name, "core.", 5) != 0)
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                total += (uint64_t)st.st_size;
                /* Group the core and its report under one entry name. */
                char *name = strdup(de->d_name);
                if (!name)
                        break;
                char *dot = strrchr(name, '.');
                if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".zst") || !strcmp(dot, ".tmp")))
                        *dot = 0;
                size_t i = 0;
                while (i < n && strcmp(e[i].name, name))
                        i++;
                if (i == n) {
                        struct entry *ne = realloc(e, (n + 1) * sizeof *e);
                        if (!ne) {
                                free(name);
                                break;
                        }
                        e = ne;
                        const char *t = strrchr(name, '.');
                        e[n++] = (struct entry){name, t ? strtoll(t + 1, NULL, 10) : 0, 0};
                } else
                        free(name);
                e[i].bytes += (uint64_t)st.st_size;
        }
        qsort(e, n, sizeof *e, cmp_entry);
        for (size_t i = 0; i < n && total > max_use; i++) {
                if (!strcmp(e[i].name, keep))
                        continue;
                static const char *const suffixes[] = {CRASH_REPORT_SUFFIX, ".zst", ""};
                for (size_t k = 0; k < 3; k++) {
                        char path[4096];
                        snprintf(path, sizeof path, "%s%s", e[i].name, suffixes[k]);
                        (void)unlinkat(dirfd(d), path, 0);
                }
                total -= e[i].bytes;
        }
        for (size_t i = 0; i < n; i++)
                free(e[i].name);
        free(e);
        closedir(d);
}
