/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote lint: check the package notes of ELF files against the spec. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

struct lint_opts {
        bool json;
        bool quiet;
        pkgnote_os_release *osr; /* --os-release ROOT */
};

struct lint_run {
        const struct lint_opts *o;
        const char *path;
        size_t errors, warnings;
        int failed; /* a finding could not be written */
};

static void on_finding(void *userdata, const pkgnote_lint_finding *f) {
        struct lint_run *run = userdata;
        bool error = f->check->severity == PKGNOTE_LINT_ERROR;
        if (error)
                run->errors++;
        else
                run->warnings++;
        if (run->o->quiet && !error)
                return;
        const char *severity = pkgnote_lint_severity_name(f->check->severity);
        if (run->o->json) {
                char *j;
                int r = tool_put_json(stdout, pkgnote_lint_finding_to_json(f, run->path, &j), &j);
                if (r < 0)
                        run->failed = r;
                return;
        }
        tool_print_escaped(stdout, run->path);
        printf(": %s: %s: ", severity, f->check->id);
        tool_print_escaped(stdout, f->message);
        fputc('\n', stdout);
}

/* Returns 0 (clean or warnings), 1 (an error finding) or 2 (cannot check). */
static int lint_one(const char *path, const struct lint_opts *o, size_t *errors, size_t *warnings) {
        pkgnote_object *e;
        int r = !strcmp(path, "-") ? pkgnote_object_open_fd(STDIN_FILENO, &e) : pkgnote_object_open(path, &e);
        if (r < 0)
                return tool_error(path, "cannot read", r);
        struct lint_run run = {.o = o, .path = path};
        r = pkgnote_lint_os_release(e, o->osr, on_finding, &run);
        pkgnote_object_free(e);
        *errors += run.errors;
        *warnings += run.warnings;
        if (r < 0)
                return tool_error(path, "cannot read notes", r);
        if (run.failed < 0)
                return tool_error(path, "cannot write a finding", run.failed);
        return r > 0 ? EXIT_NOTFOUND : EXIT_OK;
}

static void list_checks(void) {
        const pkgnote_lint_check *c;
        for (size_t i = 0; (c = pkgnote_lint_check_get(i)); i++)
                printf("%-18s %-8s %s\n", c->id, pkgnote_lint_severity_name(c->severity), c->summary);
}

static void lint_help(void) {
        printf("Usage: pkgnote lint [--json] [--quiet] [--os-release ROOT] FILE...\n"
               "\n"
               "Check the package notes of ELF files against the package note spec and\n"
               "against what core dumps and other readers need ('-' reads standard input).\n"
               "Each finding is one line: FILE: error|warning: CHECK: message\n"
               "\n"
               "  -j, --json         one JSON object per finding and line\n"
               "  -q, --quiet        report errors only, and no summary\n"
               "      --os-release ROOT  also check each note's os, osVersion and osCpe\n"
               "                     against ROOT's os-release (ID, VERSION_ID, CPE_NAME)\n"
               "      --list-checks  list the checks with their severity and exit\n"
               "  -h, --help         show this help\n"
               "\n"
               "Exit status: 0 no errors (warnings allowed), 1 an error finding,\n"
               "2 a file could not be read or is not ELF.\n");
}

static const char *plural(size_t n, const char *one, const char *many) {
        return n == 1 ? one : many;
}

int cmd_lint(int argc, char **argv) {
        enum { OPT_LIST = 0x100, OPT_OS_RELEASE };
        static const struct option longopts[] = {
                {"json", no_argument, NULL, 'j'},
                {"quiet", no_argument, NULL, 'q'},
                {"list-checks", no_argument, NULL, OPT_LIST},
                {"os-release", required_argument, NULL, OPT_OS_RELEASE},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct lint_opts o = {0};
        int c;
        while ((c = tool_getopt(argc, argv, "jqh", longopts)) >= 0)
                switch (c) {
                case 'j': o.json = true; break;
                case 'q': o.quiet = true; break;
                case OPT_LIST: list_checks(); pkgnote_os_release_free(o.osr); return EXIT_OK;
                case OPT_OS_RELEASE: {
                        pkgnote_os_release_free(o.osr);
                        o.osr = NULL;
                        int r = pkgnote_os_release_read(optarg, &o.osr);
                        if (r < 0)
                                return tool_error(optarg, "cannot read os-release", r);
                        break;
                }
                case 'h': lint_help(); pkgnote_os_release_free(o.osr); return EXIT_OK;
                default: pkgnote_os_release_free(o.osr); return EXIT_FAILURE_;
                }
        if (optind >= argc) {
                pkgnote_os_release_free(o.osr);
                return tool_fail("lint: no FILE given (see 'pkgnote lint --help')");
        }
        int ret = EXIT_OK;
        size_t errors = 0, warnings = 0, files = 0;
        for (int i = optind; i < argc; i++) {
                int r = lint_one(argv[i], &o, &errors, &warnings);
                if (r != EXIT_FAILURE_)
                        files++;
                if (r > ret)
                        ret = r;
        }
        pkgnote_os_release_free(o.osr);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        /* Like compilers and rpmlint: a count when something was found,
         * silence when all is well. */
        if (!o.quiet && (errors || warnings))
                fprintf(stderr, "%s: lint: %zu %s checked, %zu %s, %zu %s\n", program_name, files,
                        plural(files, "file", "files"), errors, plural(errors, "error", "errors"), warnings,
                        plural(warnings, "warning", "warnings"));
        return ret;
}
