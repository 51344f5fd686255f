/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote: the package note tool.  Dispatches to one file per subcommand. */
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tool.h"

static const struct {
        const char *name;
        int (*fn)(int argc, char **argv);
        const char *summary;
} commands[] = {
        {"show", cmd_show, "print the package notes of ELF files"},
        {"generate", cmd_generate, "make a package note for a linker or build"},
        {"lint", cmd_lint, "check ELF files against the package note spec"},
        {"core", cmd_core, "which packages crashed, from a core dump"},
        {"pid", cmd_pid, "the packages mapped by a running process"},
        {"ps", cmd_ps, "the packages of every running process; what needs a restart"},
        {"list", cmd_list, "the crashes of every crash store (pkgnote, systemd)"},
        {"stamp", cmd_stamp, "add, replace or remove the note in linked binaries"},
        {"scan", cmd_scan, "inventory of file trees and images, SBOMs"},
        {"deps", cmd_deps, "package dependencies from dlopen notes"},
};

static int usage(FILE *f) {
        fprintf(f,
                "Usage: pkgnote COMMAND [OPTIONS] [ARGS]\n"
                "\n"
                "Read and write the ELF package note (FDO_PACKAGING_METADATA).\n"
                "\n"
                "Commands:\n");
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
        fprintf(f, "\nRun 'pkgnote COMMAND --help' (or 'pkgnote help COMMAND') for a command's options;\n"
                   "each command has its manual page, pkgnote-COMMAND(1), and pkgnote(1) is the overview.\n");
        return f == stdout ? EXIT_OK : EXIT_FAILURE_;
}

/* Runs the command NAME with ARGV (ARGV[0] its name); its --help ends
 * by naming the command's manual page. */
static int run(const char *name, int argc, char **argv) {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
                if (strcmp(name, commands[i].name))
                        continue;
                int r = commands[i].fn(argc, argv);
                if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) && r == EXIT_OK)
                        printf("\nThe whole manual: pkgnote-%s(1).\n", name);
                return r;
        }
        tool_fail("unknown command '%s'", name);
        return usage(stderr);
}

int main(int argc, char **argv) {
        /* Output never depends on the user's locale: JSON and golden files
         * must be byte-stable. */
        setlocale(LC_ALL, "C");
        /* Messages are whole lines; on a terminal each is written as it
         * comes, elsewhere they are batched (exit flushes them), so a run
         * over thousands of non-ELF files does not cost a write each. */
        static char errbuf[1 << 16];
        setvbuf(stderr, errbuf, isatty(STDERR_FILENO) ? _IOLBF : _IOFBF, sizeof errbuf);
        if (argc < 2)
                return usage(stderr);
        /* "pkgnote help COMMAND" is "pkgnote COMMAND --help". */
        if (!strcmp(argv[1], "help") && argc == 3) {
                char *help[] = {argv[2], (char *)"--help", NULL};
                return run(argv[2], 2, help);
        }
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
                return usage(stdout);
        if (!strcmp(argv[1], "--version")) {
                /* The second line names what this build can do, as
                 * systemd's tools do: +FEATURE built in, -FEATURE not. */
                printf("pkgnote %s\n%carchive %csquashfs %czstd %cxz %clz4 %czlib %cstack\n", PACKAGE_VERSION,
                       HAVE_LIBARCHIVE ? '+' : '-', HAVE_SQUASHFS ? '+' : '-', HAVE_ZSTD ? '+' : '-',
                       HAVE_LZMA ? '+' : '-', HAVE_LZ4 ? '+' : '-', HAVE_ZLIB ? '+' : '-', HAVE_LIBDW ? '+' : '-');
                return EXIT_OK;
        }
        return run(argv[1], argc - 1, argv + 1);
}
