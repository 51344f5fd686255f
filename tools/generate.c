/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote generate: build package metadata from options, rpm NEVRAs,
 * JSON and os-release, and write it as JSON, a raw note, a linker
 * script, assembler source, a relocatable object or linker flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metaopts.h"
#include "tool.h"
#include "output.h"

extern char **environ;

enum format {
        FMT_JSON, FMT_NOTE, FMT_SCRIPT, FMT_ASM, FMT_OBJECT, FMT_LDFLAGS,
        FMT_GCC_SPECS, FMT_CLANG_CONFIG, FMT_RESPONSE_FILE, FMT_C_HEADER,
        FMT_COFF_OBJECT, FMT_COFF_SECTION, /* PE formats last: see emit() */
};

static const char *const format_names[] = {
        [FMT_JSON] = "json",   [FMT_NOTE] = "note",     [FMT_SCRIPT] = "linker-script",
        [FMT_ASM] = "asm",     [FMT_OBJECT] = "object", [FMT_LDFLAGS] = "ldflags",
        [FMT_GCC_SPECS] = "gcc-specs", [FMT_CLANG_CONFIG] = "clang-config",
        [FMT_RESPONSE_FILE] = "response-file", [FMT_C_HEADER] = "c-header",
        [FMT_COFF_OBJECT] = "coff-object", [FMT_COFF_SECTION] = "coff-section",
};

static bool is_route(enum format f) {
        return f == FMT_GCC_SPECS || f == FMT_CLANG_CONFIG || f == FMT_RESPONSE_FILE;
}

struct gen_opts {
        struct meta_opts meta;
        enum format format;
        const char *output;
        const char *target;
        int linker;
        const char *ld;
        int ldflags_style;
        char **dlopen; /* --dlopen texts */
        size_t n_dlopen;
        const char *note_object; /* --note-object: the routes' dlopen notes */
};

static void generate_help(void) {
        printf("Usage: pkgnote generate [OPTIONS]\n"
               "\n"
               "Make the package note (FDO_PACKAGING_METADATA) and dlopen notes\n"
               "(FDO_DLOPEN_METADATA) for a build.\n"
               "\n"
               "%s"
               "dlopen notes:\n"
               "      --dlopen JSON|@FILE     a dlopen note: a JSON array of {\"feature\",\n"
               "                              \"description\", \"priority\": \"required\" |\n"
               "                              \"recommended\" | \"suggested\", \"soname\": [...]}\n"
               "                              (@- reads standard input); repeat for more\n"
               "                              notes.  Without metadata options only the\n"
               "                              dlopen notes are made.  Each is its own\n"
               "                              COMDAT group, SHF_GNU_RETAIN in object and\n"
               "                              asm, so linking it in twice keeps one copy\n"
               "                              and --gc-sections keeps it\n"
               "\n"
               "Output:\n"
               "  -F, --format FORMAT         json (default): the JSON and a newline\n"
               "                              note: the raw note, as ld --package-metadata\n"
               "                                writes it\n"
               "                              linker-script: for ld.bfd >= 2.38 (-Wl,-dT,FILE)\n"
               "                                and ld.lld >= 15 (-Wl,-T,FILE; needs a\n"
               "                                build-id); gold and mold cannot use one\n"
               "                              asm: GNU assembler source (gcc -c FILE.s)\n"
               "                              object: a relocatable ELF object to link in;\n"
               "                                works with every linker\n"
               "                              ldflags: compiler-driver options for the linker\n"
               "                              gcc-specs: a gcc specs file (gcc -specs=FILE);\n"
               "                                appends to the link spec, not for -r links\n"
               "                              clang-config: a clang configuration file\n"
               "                                (clang --config FILE)\n"
               "                              response-file: a linker response file\n"
               "                                (-Wl,@FILE; Rust: cargo:rustc-link-arg=@FILE)\n"
               "                              c-header: a C/C++ header emitting the notes\n"
               "                                (#include it in one file of the program)\n"
               "      --note-object FILE      gcc-specs, clang-config, response-file: write\n"
               "                              the --dlopen notes as an object to FILE and\n"
               "                              name it in the route (a linker option makes\n"
               "                              only the package note)\n"
               "                              coff-object: a COFF object with section .pkgnote\n"
               "                                for PE builds (mingw-w64 gcc/ld, lld-link);\n"
               "                                --target x86_64 (default), i686, aarch64, ...\n"
               "                              coff-section: the bytes of section .pkgnote, for\n"
               "                                objcopy --add-section .pkgnote=FILE\n"
               "  -o, --output FILE           write to FILE (atomically) instead of standard\n"
               "                              output; with ldflags, where to write a linker\n"
               "                              script or object when the linker is too old\n"
               "  -t, --target TARGET         for note, object and asm: x86_64, i686, aarch64,\n"
               "                              aarch64_be, armhf, armel, s390x, ppc64le, ppc64,\n"
               "                              ppc, riscv64, loongarch64, a GNU triplet such as\n"
               "                              s390x-linux-gnu, or ELF32LE/ELF32BE/ELF64LE/\n"
               "                              ELF64BE (note and asm only); default: this\n"
               "                              machine.  object and asm carry the target's GNU\n"
               "                              property note (x86, aarch64), which keeps the\n"
               "                              program's IBT/SHSTK or BTI/PAC marks\n"
               "      --linker KIND           bfd, gold, lld or mold: the linker the compiler\n"
               "                              driver runs (ldflags, linker-script)\n"
               "      --ld PROGRAM            the linker to ask for its version (ldflags);\n"
               "                              default $LD, else ld.bfd/ld.gold/ld.lld/mold for\n"
               "                              --linker, else ld\n"
               "      --ldflags-style STYLE   shell (default): words for a POSIX shell command\n"
               "                              line; make: also $ as $$ and # as \\#, for a\n"
               "                              make variable\n"
               "  -h, --help                  show this help\n"
               "\n"
               "ldflags prints one line: -Xlinker '--package-metadata=JSON' when the linker\n"
               "has that option (bfd and gold from binutils 2.39, lld 15, mold 1.3), quoted\n"
               "for STYLE; -Xlinker because compiler drivers split -Wl, at commas.  A linker\n"
               "that percent-decodes the option (ld.bfd 2.44, lld 21, mold 2.36) gets\n"
               "-Wl,--package-metadata=%%7B%%22type%%22... instead: no commas, nothing to quote,\n"
               "and a literal %% as %%25 so that the linker does not decode it.  Older\n"
               "linkers need -o FILE: for ld.bfd 2.38 a linker script is written there and\n"
               "-Wl,-dT,FILE printed, for the others an object file whose path is printed.\n"
               "\n"
               "With --dlopen, json prints one JSON document per line, the package note's\n"
               "first, and ldflags cannot be used (linker options carry only the package\n"
               "note).\n"
               "\n"
               "note and object are binary and are not written to a terminal.\n"
               "Exit status: 0 success, 2 bad usage or invalid input.\n",
               meta_opts_help);
}

static int fail_lib(const char *what, int err) {
        const char *detail = pkgnote_last_error();
        return tool_fail("generate: %s: %s", what, detail && *detail ? detail : strerror(-err));
}

/* Writes DATA to PATH by the output rule.  0 or an exit code. */
static int write_output(const char *path, const void *data, size_t len, unsigned flags) {
        return tool_write_output(path, flags, data, len, "generate");
}

/* Runs "PROGRAM --version" and identifies the linker from its first line. */
static int probe_linker(const char *program, pkgnote_linker *ret) {
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return tool_fail("generate: cannot create a pipe: %s", strerror(errno));
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        char *argv[] = {(char *)program, (char *)"--version", NULL};
        pid_t pid;
        int r = posix_spawnp(&pid, program, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(pipefd[1]);
        if (r != 0) {
                close(pipefd[0]);
                return tool_fail("generate: cannot run '%s --version': %s", program, strerror(r));
        }
        char buf[4096];
        size_t n = 0;
        for (;;) {
                ssize_t k = read(pipefd[0], buf + n, sizeof buf - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                n += (size_t)k;
                if (n == sizeof buf - 1) {
                        /* Drain the rest so the child is not blocked. */
                        char sink[4096];
                        while (read(pipefd[0], sink, sizeof sink) > 0)
                                ;
                        break;
                }
        }
        close(pipefd[0]);
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return tool_fail("generate: '%s --version' failed", program);
        buf[n] = 0;
        r = pkgnote_linker_identify(buf, n, ret);
        if (r < 0)
                return fail_lib(program, r);
        return EXIT_OK;
}

/* The linker the build runs, from --ld, $LD, --linker or "ld". */
static int resolve_linker(const struct gen_opts *o, pkgnote_linker *l) {
        static const char *const default_program[] = {
                [PKGNOTE_LINKER_BFD] = "ld.bfd",
                [PKGNOTE_LINKER_GOLD] = "ld.gold",
                [PKGNOTE_LINKER_LLD] = "ld.lld",
                [PKGNOTE_LINKER_MOLD] = "mold",
        };
        const char *program = o->ld;
        const char *env_ld = getenv("LD");
        if (!program && !o->linker && env_ld && *env_ld)
                program = env_ld;
        if (!program)
                program = o->linker ? default_program[o->linker] : "ld";
        int r = probe_linker(program, l);
        if (r != EXIT_OK)
                return r;
        if (o->linker && l->kind != o->linker)
                return tool_fail("generate: --ld: '%s' is %s, not %s", program, pkgnote_linker_kind_name(l->kind),
                                 pkgnote_linker_kind_name(o->linker));
        return EXIT_OK;
}

static int emit_ldflags(const struct gen_opts *o, const char *json) {
        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        int r = resolve_linker(o, &l);
        if (r != EXIT_OK)
                return r;
        char *line = NULL;
        if (pkgnote_linker_has_package_metadata(&l)) {
                r = pkgnote_ldflags_package_metadata_for(json, &l, o->ldflags_style, &line);
                if (r < 0)
                        return fail_lib("ldflags", r);
        } else {
                /* Too old for --package-metadata: a linker script where bfd
                 * can read ours (2.38 has TYPE =), an object otherwise. */
                bool script = l.kind == PKGNOTE_LINKER_BFD && (l.major > 2 || (l.major == 2 && l.minor >= 38));
                if (!o->output || !strcmp(o->output, "-"))
                        return tool_fail("generate: %s %u.%u has no --package-metadata; give -o FILE to write %s for it",
                                         pkgnote_linker_kind_name(l.kind), l.major, l.minor,
                                         script ? "a linker script" : "an object file");
                if (strchr(o->output, ',') && script)
                        return tool_fail("generate: -o: '%s' contains a comma, which -Wl, would split", o->output);
                uint8_t *data;
                size_t len;
                if (script) {
                        char *text;
                        r = pkgnote_emit_linker_script(json, &text);
                        if (r >= 0) {
                                data = (uint8_t *)text;
                                len = strlen(text);
                        }
                } else {
                        pkgnote_target t = PKGNOTE_TARGET_INIT;
                        r = 0;
                        if (o->target)
                                r = pkgnote_target_parse(o->target, &t);
                        else
                                pkgnote_target_host(&t);
                        if (r >= 0)
                                r = pkgnote_emit_object(json, &t, &data, &len);
                }
                if (r < 0)
                        return fail_lib(script ? "linker-script" : "object", r);
                r = write_output(o->output, data, len, 0);
                free(data);
                if (r != EXIT_OK)
                        return r;
                /* The build may link in another directory. */
                char *abs = realpath(o->output, NULL);
                if (!abs)
                        return tool_fail("generate: -o: cannot resolve '%s': %s", o->output, strerror(errno));
                size_t wlen = strlen(abs) + sizeof "-Wl,-dT,";
                char *word = malloc(wlen);
                if (!word) {
                        free(abs);
                        return tool_oom("generate");
                }
                snprintf(word, wlen, "%s%s", script ? "-Wl,-dT," : "", abs);
                free(abs);
                r = pkgnote_ldflags_quote(word, o->ldflags_style, &line);
                free(word);
                if (r < 0)
                        return fail_lib("ldflags", r);
        }
        printf("%s\n", line);
        free(line);
        if (fflush(stdout) != 0)
                return tool_fail("generate: cannot write output: %s", strerror(errno));
        return EXIT_OK;
}

/* The JSON of each note in NOTES (LEN bytes, little-endian), a line each. */
static int json_lines(const uint8_t *notes, size_t len, uint8_t **ret, size_t *ret_len) {
        size_t n = 0;
        char *out = malloc(len + 1);
        if (!out)
                return tool_oom("generate");
        for (size_t off = 0; off + 16 <= len;) {
                uint32_t descsz = (uint32_t)notes[off + 4] | (uint32_t)notes[off + 5] << 8 |
                                  (uint32_t)notes[off + 6] << 16 | (uint32_t)notes[off + 7] << 24;
                const char *json = (const char *)notes + off + 16;
                size_t k = strnlen(json, descsz);
                memcpy(out + n, json, k);
                n += k;
                out[n++] = '\n';
                off += 16 + ((descsz + 3) & ~(size_t)3);
        }
        out[n] = 0;
        *ret = (uint8_t *)out;
        *ret_len = n;
        return EXIT_OK;
}

/* The package note (JSON, unless NULL) and the dlopen notes together. */
static int emit_notes(const struct gen_opts *o, const char *json, const pkgnote_target *t) {
        pkgnote_note_spec *specs = calloc(o->n_dlopen + 1, sizeof *specs);
        if (!specs)
                return tool_oom("generate");
        size_t n = 0;
        if (json)
                specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
        for (size_t i = 0; i < o->n_dlopen; i++)
                specs[n++] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, o->dlopen[i]);
        static const int forms[] = {
                [FMT_JSON] = PKGNOTE_EMIT_NOTES,
                [FMT_NOTE] = PKGNOTE_EMIT_NOTES,
                [FMT_SCRIPT] = PKGNOTE_EMIT_LINKER_SCRIPT,
                [FMT_ASM] = PKGNOTE_EMIT_ASM,
                [FMT_OBJECT] = PKGNOTE_EMIT_OBJECT,
                [FMT_C_HEADER] = PKGNOTE_EMIT_C_HEADER,
        };
        pkgnote_target le = *t;
        if (o->format == FMT_JSON)
                le.big_endian = 0;
        uint8_t *data;
        size_t len;
        int r = pkgnote_emit(forms[o->format], specs, n, &le, &data, &len);
        free(specs);
        if (r < 0)
                return fail_lib(o->n_dlopen ? "--dlopen" : format_names[o->format], r);
        if (o->format == FMT_JSON) {
                uint8_t *lines = NULL;
                r = json_lines(data, len, &lines, &len);
                free(data);
                if (r != EXIT_OK)
                        return r;
                data = lines;
        }
        r = write_output(o->output, data, len,
                         PN_OUT_STDIO | (o->format == FMT_NOTE || o->format == FMT_OBJECT || o->format >= FMT_COFF_OBJECT ? PN_OUT_BINARY : 0));
        free(data);
        return r;
}

/* A specs file, clang configuration or response file: the package note
 * as a linker option, the dlopen notes in an object named by path. */
static int emit_route(const struct gen_opts *o, const char *json, const pkgnote_target *t) {
        static const int routes[] = {
                [FMT_GCC_SPECS] = PKGNOTE_ROUTE_GCC_SPECS,
                [FMT_CLANG_CONFIG] = PKGNOTE_ROUTE_CLANG_CONFIG,
                [FMT_RESPONSE_FILE] = PKGNOTE_ROUTE_RESPONSE_FILE,
        };
        if (o->n_dlopen && !o->note_object)
                return tool_fail("generate: --dlopen: %s passes the package note as a linker option, which makes no dlopen note; give --note-object FILE for an object holding them",
                                 format_names[o->format]);
        if (o->note_object && !o->n_dlopen)
                return tool_fail("generate: --note-object: no --dlopen note to write there");
        pkgnote_linker l = PKGNOTE_LINKER_INIT;
        int r;
        if (json) {
                if ((r = resolve_linker(o, &l)) != EXIT_OK)
                        return r;
                if (!pkgnote_linker_has_package_metadata(&l))
                        return tool_fail("generate: %s %u.%u has no --package-metadata; use --format object", pkgnote_linker_kind_name(l.kind), l.major, l.minor);
        }
        char *abs = NULL;
        if (o->note_object) {
                pkgnote_note_spec *specs = calloc(o->n_dlopen, sizeof *specs);
                if (!specs)
                        return tool_oom("generate");
                for (size_t i = 0; i < o->n_dlopen; i++)
                        specs[i] = (pkgnote_note_spec)PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_DLOPEN_METADATA, o->dlopen[i]);
                uint8_t *data;
                size_t len;
                r = pkgnote_emit(PKGNOTE_EMIT_OBJECT, specs, o->n_dlopen, t, &data, &len);
                free(specs);
                if (r < 0)
                        return fail_lib("--dlopen", r);
                r = write_output(o->note_object, data, len, PN_OUT_BINARY);
                free(data);
                if (r != EXIT_OK)
                        return r;
                /* The build may link in another directory. */
                if (!(abs = realpath(o->note_object, NULL)))
                        return tool_fail("generate: --note-object: cannot resolve '%s': %s", o->note_object, strerror(errno));
        }
        const char *objects[1] = {abs};
        char *text = NULL;
        r = pkgnote_route_text(routes[o->format], json, json ? &l : NULL, objects, abs ? 1 : 0, &text);
        free(abs);
        if (r < 0)
                return fail_lib(format_names[o->format], r);
        r = write_output(o->output, text, strlen(text), PN_OUT_STDIO);
        free(text);
        return r;
}

static int emit(const struct gen_opts *o, const char *json) {
        pkgnote_target t = PKGNOTE_TARGET_INIT;
        int r;
        if (o->target) {
                if ((r = pkgnote_target_parse(o->target, &t)) < 0)
                        return fail_lib("--target", r);
        } else
                pkgnote_target_host(&t);
        if (o->format == FMT_SCRIPT && o->linker == PKGNOTE_LINKER_GOLD)
                return tool_fail("generate: gold has no INSERT in linker scripts, so no script can add the note; use --format object or ldflags");
        if (o->format == FMT_SCRIPT && o->linker == PKGNOTE_LINKER_MOLD)
                return tool_fail("generate: mold does not read SECTIONS linker scripts; use --format object or ldflags");
        if (is_route(o->format))
                return emit_route(o, json, &t);
        if (o->note_object)
                return tool_fail("generate: --note-object is for gcc-specs, clang-config and response-file");
        if (o->n_dlopen || o->format == FMT_C_HEADER) {
                if (o->format >= FMT_COFF_OBJECT)
                        return tool_fail("generate: --dlopen: PE/COFF files carry the package note only");
                if (o->format == FMT_LDFLAGS)
                        return tool_fail("generate: --dlopen: linker options carry only the package note; use --format object, asm or linker-script for dlopen notes");
                return emit_notes(o, json, &t);
        }

        uint8_t *data = NULL;
        size_t len = 0;
        const char *what = format_names[o->format];
        switch (o->format) {
        case FMT_JSON: {
                len = strlen(json);
                char *s = malloc(len + 2);
                if (!s)
                        return tool_oom("generate");
                memcpy(s, json, len);
                s[len++] = '\n';
                s[len] = 0;
                data = (uint8_t *)s;
                r = 0;
                break;
        }
        case FMT_NOTE:
                r = pkgnote_package_note_encode(json, t.big_endian, &data, &len);
                break;
        case FMT_OBJECT:
                r = pkgnote_emit_object(json, &t, &data, &len);
                break;
        case FMT_ASM:
                r = pkgnote_emit_asm_target(json, &t, (char **)&data);
                len = r >= 0 ? strlen((char *)data) : 0;
                break;
        case FMT_SCRIPT:
                r = pkgnote_emit_linker_script(json, (char **)&data);
                len = r >= 0 ? strlen((char *)data) : 0;
                break;
        case FMT_LDFLAGS:
                return emit_ldflags(o, json);
        case FMT_COFF_OBJECT:
                r = pkgnote_emit_coff_object(json, &t, &data, &len);
                break;
        case FMT_COFF_SECTION:
                r = pkgnote_emit_coff_section(json, &data, &len);
                break;
        default:
                return tool_fail("generate: unknown format");
        }
        if (r < 0)
                return fail_lib(what, r);
        r = write_output(o->output, data, len, PN_OUT_STDIO | (o->format == FMT_NOTE || o->format == FMT_OBJECT || o->format >= FMT_COFF_OBJECT ? PN_OUT_BINARY : 0));
        free(data);
        return r;
}

int cmd_generate(int argc, char **argv) {
        enum { OPT_LINKER = META_OPT_END, OPT_LD, OPT_LDFLAGS_STYLE, OPT_DLOPEN, OPT_NOTE_OBJECT };
        static const struct option longopts[] = {
                META_LONG_OPTIONS,
                {"format", required_argument, NULL, 'F'},
                {"output", required_argument, NULL, 'o'},
                {"target", required_argument, NULL, 't'},
                {"linker", required_argument, NULL, OPT_LINKER},
                {"ld", required_argument, NULL, OPT_LD},
                {"ldflags-style", required_argument, NULL, OPT_LDFLAGS_STYLE},
                {"dlopen", required_argument, NULL, OPT_DLOPEN},
                {"note-object", required_argument, NULL, OPT_NOTE_OBJECT},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        struct gen_opts o = {.format = FMT_JSON};
        int c, ret = EXIT_FAILURE_;
        const char **dlopen_args = calloc((size_t)argc + 1, sizeof *dlopen_args);
        size_t n_dlopen_args = 0;
        char *json = NULL;
        if (!dlopen_args || meta_opts_init(&o.meta, "generate", argc) < 0) {
                free(dlopen_args);
                return tool_oom("generate");
        }
        while ((c = tool_getopt(argc, argv, "F:o:t:h", longopts)) >= 0) {
                if (meta_opts_handle(&o.meta, c, optarg))
                        continue;
                switch (c) {
                case 'F': {
                        size_t f;
                        for (f = 0; f < sizeof format_names / sizeof *format_names; f++)
                                if (!strcmp(optarg, format_names[f]))
                                        break;
                        if (f == sizeof format_names / sizeof *format_names) {
                                tool_fail("generate: --format: unknown format '%s' (json, note, linker-script, asm, object, ldflags, gcc-specs, clang-config, response-file, c-header, coff-object, coff-section)", optarg);
                                goto out;
                        }
                        o.format = (enum format)f;
                        break;
                }
                case 'o': o.output = optarg; break;
                case 't': o.target = optarg; break;
                case OPT_LINKER:
                        o.linker = pkgnote_linker_kind_from_name(optarg);
                        if (!o.linker) {
                                tool_fail("generate: --linker: unknown linker '%s' (bfd, gold, lld, mold)", optarg);
                                goto out;
                        }
                        break;
                case OPT_LD: o.ld = optarg; break;
                case OPT_DLOPEN: dlopen_args[n_dlopen_args++] = optarg; break;
                case OPT_NOTE_OBJECT: o.note_object = optarg; break;
                case OPT_LDFLAGS_STYLE:
                        if (!strcmp(optarg, "shell"))
                                o.ldflags_style = PKGNOTE_LDFLAGS_SHELL;
                        else if (!strcmp(optarg, "make"))
                                o.ldflags_style = PKGNOTE_LDFLAGS_MAKE;
                        else {
                                tool_fail("generate: --ldflags-style: unknown style '%s' (shell, make)", optarg);
                                goto out;
                        }
                        break;
                case 'h':
                        generate_help();
                        ret = EXIT_OK;
                        goto out;
                default:
                        goto out;
                }
        }
        if (optind < argc) {
                tool_fail("generate: unexpected argument '%s' (see 'pkgnote generate --help')", argv[optind]);
                goto out;
        }
        if (n_dlopen_args) {
                o.dlopen = calloc(n_dlopen_args, sizeof *o.dlopen);
                if (!o.dlopen) {
                        ret = tool_oom("generate");
                        goto out;
                }
                for (; o.n_dlopen < n_dlopen_args; o.n_dlopen++)
                        if ((ret = meta_opts_read_json_arg("generate", "--dlopen", dlopen_args[o.n_dlopen],
                                                           &o.dlopen[o.n_dlopen])) != EXIT_OK)
                                goto out;
        }
        /* Only dlopen notes unless the package note is asked for. */
        if ((!o.n_dlopen || meta_opts_any(&o.meta)) && (ret = meta_opts_build_json(&o.meta, &json)) != EXIT_OK)
                goto out;
        ret = emit(&o, json);
out:
        free(json);
        for (size_t i = 0; i < o.n_dlopen; i++)
                free(o.dlopen[i]);
        free(o.dlopen);
        free(dlopen_args);
        meta_opts_done(&o.meta);
        return ret;
}
