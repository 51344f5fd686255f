/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes pkgnote-coredump collected, like coredumpctl list. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "crashdir.h"
#include "tool.h"

struct crash {
        char *report;   /* path of the JSON report */
        json_t *j;
        int64_t time;
};

static int cmp_crash(const void *a, const void *b) {
        const struct crash *x = a, *y = b;
        return x->time < y->time ? -1 : x->time > y->time ? 1 : strcmp(x->report, y->report);
}

/* Loads every report of DIR, oldest first; returns the count or -errno. */
static int load(const char *dir, struct crash **ret) {
        DIR *d = opendir(dir);
        if (!d)
                return -errno;
        struct crash *c = NULL;
        int n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t l = strlen(de->d_name), sl = strlen(CRASH_REPORT_SUFFIX);
                if (strncmp(de->d_name, "core.", 5) || l <= sl || strcmp(de->d_name + l - sl, CRASH_REPORT_SUFFIX))
                        continue;
                /* An entry exists while its report and its core do: a
                 * report alone is one being removed. */
                char core[600];
                struct stat st;
                snprintf(core, sizeof core, "%.*s%s", (int)(l - sl), de->d_name, CRASH_CORE_SUFFIX);
                if (fstatat(dirfd(d), core, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                json_error_t err;
                json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
                if (!json_is_object(j)) {
                        json_decref(j);
                        fprintf(stderr, "%s: '", program_name);
                        tool_print_escaped(stderr, path);
                        fprintf(stderr, "': unreadable report, ignoring\n");
                        continue;
                }
                struct crash *nc = realloc(c, (size_t)(n + 1) * sizeof *c);
                if (!nc) {
                        json_decref(j);
                        break;
                }
                c = nc;
                c[n++] = (struct crash){strdup(path), j, json_integer_value(json_object_get(j, "time"))};
        }
        closedir(d);
        qsort(c, (size_t)n, sizeof *c, cmp_crash);
        *ret = c;
        return n;
}

static void unload(struct crash *c, int n) {
        for (int i = 0; i < n; i++) {
                json_decref(c[i].j);
                free(c[i].report);
        }
        free(c);
}

static const char *str(json_t *j, const char *key) {
        return json_string_value(json_object_get(j, key));
}

static void package_text(json_t *j, char *buf, size_t len) {
        json_t *p = json_object_get(j, "package");
        const char *name = str(p, "name"), *version = str(p, "version");
        if (name)
                snprintf(buf, len, "%s%s%s", name, version ? "/" : "", version ? version : "");
        else
                snprintf(buf, len, "n/a");
}

int crash_find(const char *dir, const char *what, char *core_path, size_t len) {
        struct crash *c;
        int n = load(dir, &c);
        if (n < 0)
                return n;
        char *end;
        long pid = strtol(what, &end, 10);
        bool numeric = *what && !*end;
        int found = -1;
        for (int i = n - 1; i >= 0 && found < 0; i--) {
                const char *core = str(c[i].j, "coreFile"), *cmd = str(c[i].j, "command");
                const char *base = core ? strrchr(core, '/') : NULL;
                if ((numeric && json_integer_value(json_object_get(c[i].j, "pid")) == pid) ||
                    (!numeric && ((cmd && !strcmp(cmd, what)) || (base && !strcmp(base + 1, what)))))
                        found = i;
        }
        if (found >= 0)
                snprintf(core_path, len, "%s", str(c[found].j, "coreFile"));
        unload(c, n);
        return found >= 0 ? 1 : 0;
}

static void list_help(void) {
        printf("Usage: pkgnote list [--json] [--state-dir DIR]\n"
               "\n"
               "The crashes collected by pkgnote-coredump, oldest first: TIME, PID, UID,\n"
               "SIG, EXE and the executable's PACKAGE.  'pkgnote core PID' or\n"
               "'pkgnote core COMM' then reads the newest matching entry.\n"
               "\n"
               "  -j, --json            one JSON object per crash and line\n"
               "  -d, --state-dir DIR   default $PKGNOTE_COREDUMP_DIR, else %s\n"
               "  -h, --help            show this help\n",
               CRASH_DEFAULT_DIR);
}

int cmd_list(int argc, char **argv) {
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"state-dir", required_argument, NULL, 'd'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        bool json = false;
        const char *dir = NULL;
        int ch;
        while ((ch = tool_getopt(argc, argv, "jd:h", longopts)) >= 0)
                switch (ch) {
                case 'j': json = true; break;
                case 'd': dir = optarg; break;
                case 'h': list_help(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (optind != argc)
                return tool_fail("list: unexpected argument '%s'", argv[optind]);
        dir = crash_state_dir(dir);
        struct crash *c;
        int n = load(dir, &c);
        if (n < 0) {
                errno = -n;
                return tool_fail("list: '%s': %s", dir, strerror(-n));
        }
        if (!json && n > 0)
                printf("%-23s %7s %5s %4s %-32s %s\n", "TIME", "PID", "UID", "SIG", "EXE", "PACKAGE");
        for (int i = 0; i < n; i++) {
                json_t *j = c[i].j;
                char pkg[256];
                package_text(j, pkg, sizeof pkg);
                if (json) {
                        json_t *o = json_pack("{s:I,s:O,s:O,s:O,s:O,s:O,s:O}", "time", (json_int_t)c[i].time, "pid",
                                              json_object_get(j, "pid"), "uid", json_object_get(j, "uid"), "signal",
                                              json_object_get(j, "signal"), "executable", json_object_get(j, "executable"),
                                              "package", json_object_get(j, "package"), "coreFile",
                                              json_object_get(j, "coreFile"));
                        char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
                        if (s)
                                puts(s);
                        free(s);
                        json_decref(o);
                        continue;
                }
                char when[64] = "?";
                time_t t = (time_t)c[i].time;
                struct tm tm;
                if (gmtime_r(&t, &tm))
                        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
                const char *sig = str(j, "signalName");
                printf("%-23s %7" JSON_INTEGER_FORMAT " %5" JSON_INTEGER_FORMAT " %4s ", when,
                       json_integer_value(json_object_get(j, "pid")), json_integer_value(json_object_get(j, "uid")),
                       sig ? sig : "-");
                const char *exe = str(j, "executable") ? str(j, "executable") : "n/a";
                tool_print_escaped(stdout, exe);
                printf("%*s ", strlen(exe) < 32 ? (int)(32 - strlen(exe)) : 0, "");
                tool_print_escaped(stdout, pkg);
                fputc('\n', stdout);
        }
        if (!json && n == 0)
        {
                fputs("No crashes in ", stderr);
                tool_print_escaped(stderr, dir);
                fputs(".\n", stderr);
        }
        unload(c, n);
        return EXIT_OK;
}
