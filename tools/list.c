/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list: the crashes pkgnote-coredump collected, like coredumpctl list. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crashdir.h"
#include "tool.h"

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
        size_t n;
        int r = crash_load(dir, &c, &n);
        if (r < 0)
                return tool_fail("list: '%s': %s", dir, strerror(-r));
        if (!json && n > 0)
                printf("%-23s %7s %5s %4s %-32s %s\n", "TIME", "PID", "UID", "SIG", "EXE", "PACKAGE");
        for (size_t i = 0; i < n; i++) {
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
        crash_unload(c, n);
        return EXIT_OK;
}
