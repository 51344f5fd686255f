/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crash signatures: the package of the faulting module and the normalized
 * top frames of the crashing thread (the rules are written down in
 * include/pkgnote.h and pkgnote-core(1)), from an unwound stack or from
 * the stack text systemd-coredump writes into the journal's MESSAGE.
 *
 * The lists of frames to skip follow what Socorro's signature lists
 * (irrelevant, prefix) and Fedora's crash server (satyr's normalization of
 * the crashing thread) treat alike: frames of the machinery that reports
 * a bug, never the bug.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "03-model-json.h"
#include "01-base.h"
#include "01-base-hash.h"
#include "08-core-signature.h"

struct pkgnote_signature {
        int source;
        char *text, *package;
        char *version; /* the faulting package's, or NULL */
        char hash[17];
        char *frames[PKGNOTE_SIGNATURE_FRAMES];
        size_t n_frames;
};

/* Signal trampolines: the frames inside one are the handler's. */
static const char *const signal_frames[] = {
        "__restore_rt", "__kernel_rt_sigreturn", "_sigtramp", "__sigreturn", "__default_rt_sa_restorer",
};

/* Frames that say nothing about the bug (rule 3).  The sentinels: what
 * the program called to give up; every frame inside the outermost one,
 * named or not, is the C library's way of dying, never the bug. */
static const char *const sentinel_frames[] = {
        /* raising and aborting */
        "raise", "abort", "gsignal", "pthread_kill", "__pthread_kill", "__pthread_kill_implementation",
        "__pthread_kill_internal", "__GI_raise", "__GI_abort", "__GI___pthread_kill",
        /* assertions and fatal checks */
        "__assert_fail", "__assert_fail_base", "__assert_perror_fail", "__GI___assert_fail", "__libc_message",
        "__libc_message_impl", "__libc_fatal", "__fortify_fail", "__chk_fail", "__stack_chk_fail",
        "malloc_printerr", "__malloc_assert",
        /* the C++ runtime's way to abort */
        "std::terminate()", "_ZSt9terminatev", "__cxxabiv1::__terminate(void (*)())", "_ZN10__cxxabiv111__terminateEPFvvE",
        "__gnu_cxx::__verbose_terminate_handler()", "_ZN9__gnu_cxx27__verbose_terminate_handlerEv", "__cxa_throw",
        "__cxa_rethrow", "__cxa_call_terminate", "std::__terminate()", "_ZSt11__terminatePFvvE",
};
/* Start-up: the frames that call main or a thread's function. */
static const char *const startup_frames[] = {
        "_start", "__libc_start_main", "__libc_start_main_impl", "__libc_start_main_alias_2",
        "__libc_start_call_main", "start_thread", "clone", "clone3", "__clone", "__clone3", "__clone_internal",
        "_dl_start", "_dl_start_user",
};
static const char *const skip_prefixes[] = {
        "g_assertion_message", "g_log", "_g_log_abort",
};

/* Library routines a bug only passes through (rule 7). */
static const char *const prefix_frames[] = {
        "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr", "bcmp", "malloc", "calloc", "realloc",
        "free", "cfree", "__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_free", "_int_malloc",
        "_int_free", "_int_realloc", "operator new(unsigned long)", "operator delete(void*)", "_Znwm", "_Znam",
        "_ZdlPv", "_ZdaPv", "_ZdlPvm",
        /* the C library's string routines */
        "strlen", "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp", "strcpy", "strncpy", "stpcpy",
        "stpncpy", "strcat", "strncat", "strchr", "strrchr", "strchrnul", "strstr", "strcasestr", "strdup",
        "strndup", "strspn", "strcspn", "strpbrk", "strtok", "strtok_r", "strcoll", "strxfrm", "rawmemchr",
        "wcslen", "wcsnlen", "wcscmp", "wcsncmp", "wcscpy", "wcsncpy", "wcschr", "wcsrchr", "wmemchr", "wmemset",
        "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__strncpy_chk", "__strcat_chk",
        "__stpcpy_chk",
};

static bool in_list(const char *s, const char *const *list, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!strcmp(s, list[i]))
                        return true;
        return false;
}

/* Whether FN is a sentinel (GLib's g_assertion_message* too). */
static bool is_sentinel(const char *fn) {
        return in_list(fn, sentinel_frames, ELEMENTSOF(sentinel_frames)) ||
               !strncmp(fn, "g_assertion_message", strlen("g_assertion_message"));
}

static bool is_skipped(const char *fn) {
        if (is_sentinel(fn) || in_list(fn, startup_frames, ELEMENTSOF(startup_frames)))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(skip_prefixes); i++)
                if (!strncmp(fn, skip_prefixes[i], strlen(skip_prefixes[i])))
                        return true;
        return false;
}

static bool is_prefix_frame(const char *fn) {
        return in_list(fn, prefix_frames, ELEMENTSOF(prefix_frames));
}

/* glibc's CPU variants of its string routines (sysdeps/x86_64/multiarch
 * and the like): __NAME_VARIANT..., where VARIANT is one of these. */
static const char *const cpu_variants[] = {
        "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "evex",
        "evex512", "erms", "unaligned", "aligned", "rtm", "generic", "power7", "power8", "power9", "power10",
        "asimd", "sve", "thunderx", "thunderx2", "falkor", "kunpeng", "a64fx", "oryon1", "emag", "z13", "z15",
        "vx", "arch13", "nocancel", "ifunc",
};

/* The length of the first LEN bytes of S without a UTF-8 sequence that
 * LEN cuts in two: a name cut to a limit stays text. */
static size_t utf8_cut(const char *s, size_t len) {
        size_t i = len, back = 0;
        while (i > 0 && back < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
                i--, back++;
        if (i == 0)
                return len;
        unsigned char lead = (unsigned char)s[i - 1];
        size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
        return need > back + 1 ? i - 1 : len;
}

/* Rule 4 on FN into OUT (at most OUT_LEN bytes with the NUL). */
static void normalize_name(const char *fn, char *out, size_t out_len) {
        size_t len = strlen(fn);
        /* a symbol version (@GLIBC_2.34, @@...), @plt, and compiler
         * clones: cut at the first ".SUFFIX" known */
        static const char *const suffixes[] = {".constprop.", ".isra.", ".part.", ".cold", ".lto_priv.",
                                               ".localalias", ".llvm.", ".specialized.", "@"};
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                const char *p = strstr(fn, suffixes[i]);
                if (p && (size_t)(p - fn) < len)
                        len = (size_t)(p - fn);
        }
        if (len >= out_len)
                len = utf8_cut(fn, out_len - 1);
        memcpy(out, fn, len);
        out[len] = 0;
        /* __NAME_VARIANT[_VARIANT...] of glibc */
        if (strncmp(out, "__", 2) || !pn_ascii_alpha(out[2]))
                return;
        for (char *u = strchr(out + 2, '_'); u; u = strchr(u + 1, '_'))
                for (size_t i = 0; i < ELEMENTSOF(cpu_variants); i++) {
                        size_t k = strlen(cpu_variants[i]);
                        if (!strncmp(u + 1, cpu_variants[i], k) && (u[1 + k] == 0 || u[1 + k] == '_')) {
                                *u = 0;
                                memmove(out, out + 2, strlen(out + 2) + 1);
                                return;
                        }
                }
}

/* Whether MODULE (a file name) is the C library or its loader, whose
 * internal aliases name one function differently depending on which
 * symbol table the unwinder found (.dynsym or the debug file's). */
static bool is_libc(const char *module) {
        return module && (!strncmp(module, "libc.so", 7) || !strncmp(module, "libc-", 5) ||
                          !strncmp(module, "libpthread", 10) || !strncmp(module, "ld-linux", 8) ||
                          !strncmp(module, "ld-musl", 7) || !strncmp(module, "libc.musl", 9));
}

/* Rule 4 for the C library: its hidden alias __GI_NAME is NAME, and an
 * internal name of a public function (__NAME, __libc_NAME) is NAME. */
static void normalize_libc_name(char *name) {
        static const char *const prefixes[] = {"__GI_", "__libc_", "__"};
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
                size_t k = strlen(prefixes[i]);
                if (!strncmp(name, prefixes[i], k) && (name[k] == '_' || pn_ascii_alpha(name[k])))
                        memmove(name, name + k, strlen(name + k) + 1);
        }
}

static const char *base_name(const char *path) {
        const char *s = strrchr(path, '/');
        return s && s[1] ? s + 1 : path;
}

/* Whether S is fit for a signature's text: no control characters, which
 * a source of untrusted bytes may hold (the text is shown and grouped by). */
static bool printable(const char *s) {
        return s && *s && !pn_has_control(s);
}

/* Rule 4 on frame F's function (printable) into NAME. */
static void frame_name(const struct pn_sig_frame *f, char *name, size_t len) {
        bool libc = is_libc(f->module);
        /* a hidden alias of a CPU variant (__GI___memcpy_avx_unaligned) first */
        normalize_name(libc && !strncmp(f->function, "__GI_", 5) ? f->function + 5 : f->function, name, len);
        if (libc)
                normalize_libc_name(name);
}

static bool same(const char *a, const char *b) {
        return a == b || (a && b && !strcmp(a, b));
}

int pn_signature_build(const struct pn_sig_frame *f, size_t n, int source, pkgnote_signature **ret) {
        /* rule 2: the innermost signal frame ends the handler's frames */
        size_t first = 0;
        for (size_t i = 0; i < n; i++)
                if (f[i].function && in_list(f[i].function, signal_frames, ELEMENTSOF(signal_frames)))
                        first = i + 1;
        /* rule 3: the frames inside the outermost sentinel below main are
         * the way of dying, named or not */
        for (size_t i = first; i < n; i++) {
                char name[512];
                if (!printable(f[i].function))
                        continue;
                frame_name(&f[i], name, sizeof name);
                if (!strcmp(name, "main"))
                        break;
                if (is_sentinel(f[i].function) || is_sentinel(name))
                        first = i + 1;
        }

        pkgnote_signature *s = calloc(1, sizeof *s);
        if (!s)
                return pn_oom();
        s->source = source;
        const struct pn_sig_frame *fault = NULL, *any = NULL;
        for (size_t i = first; i < n && s->n_frames < PKGNOTE_SIGNATURE_FRAMES; i++) {
                /* rule 1: an inlined function's caller is at the same address */
                if (i > first && f[i].pc == f[i - 1].pc && same(f[i].module, f[i - 1].module))
                        continue;
                char name[512];
                const char *fn = printable(f[i].function) ? f[i].function : NULL;
                if (fn) {
                        frame_name(&f[i], name, sizeof name);
                        if (is_skipped(fn) || is_skipped(name))
                                continue;
                        if (!name[0])
                                fn = NULL;
                }
                if (!fn) {
                        const char *m = printable(f[i].build_id) ? f[i].build_id
                                        : printable(f[i].module) ? base_name(f[i].module)
                                                                 : NULL;
                        size_t max = m == f[i].build_id ? 128 : 255;
                        if (m)
                                snprintf(name, sizeof name, "%.*s+0x%" PRIx64,
                                         (int)utf8_cut(m, strnlen(m, max)), m, f[i].offset);
                        else
                                snprintf(name, sizeof name, "??");
                }
                /* rule 6: recursion counts once */
                if (s->n_frames > 0 && !strcmp(s->frames[s->n_frames - 1], name))
                        continue;
                if (!(s->frames[s->n_frames] = strdup(name))) {
                        pkgnote_signature_free(s);
                        return pn_oom();
                }
                s->n_frames++;
                if (printable(f[i].module)) {
                        if (!any)
                                any = &f[i];
                        if (!fault && !(fn && is_prefix_frame(name)))
                                fault = &f[i];
                }
                /* rule 3: what calls main is start-up, named or not */
                if (fn && !strcmp(name, "main"))
                        break;
        }
        if (s->n_frames == 0) {
                pkgnote_signature_free(s);
                return pn_error(-ENODATA, "no frame of the crashing thread is left for a signature");
        }
        if (!fault)
                fault = any;
        const char *pkg = !fault                      ? "??"
                          : printable(fault->package) ? fault->package
                                                      : base_name(fault->module);
        struct pn_text t = {0};
        pn_text_add(&t, "%s:", pkg);
        for (size_t i = 0; i < s->n_frames; i++)
                pn_text_add(&t, "%s%s", i ? " | " : " ", s->frames[i]);
        /* the version of the package named, never of a file name standing for it */
        const char *version = fault && printable(fault->package) && printable(fault->version) ? fault->version : NULL;
        if (pn_text_finish(&t, &s->text) < 0 || !(s->package = strdup(pkg)) ||
            (version && !(s->version = strdup(version)))) {
                pkgnote_signature_free(s);
                return pn_oom();
        }
        struct pn_sums sums;
        char sha1[41], sha256[65];
        pn_sums_init(&sums);
        pn_sums_update(&sums, s->text, strlen(s->text));
        pn_sums_final(&sums, sha1, sha256);
        memcpy(s->hash, sha256, 16);
        s->hash[16] = 0;
        *ret = s;
        return 0;
}

void pkgnote_signature_free(pkgnote_signature *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_frames; i++)
                free(s->frames[i]);
        free(s->text);
        free(s->package);
        free(s->version);
        free(s);
}

const char *pkgnote_signature_text(const pkgnote_signature *s) {
        return s ? s->text : NULL;
}

const char *pkgnote_signature_hash(const pkgnote_signature *s) {
        return s ? s->hash : NULL;
}

const char *pkgnote_signature_package(const pkgnote_signature *s) {
        return s ? s->package : NULL;
}

const char *pkgnote_signature_version(const pkgnote_signature *s) {
        return s ? s->version : NULL;
}

size_t pkgnote_signature_frame_count(const pkgnote_signature *s) {
        return s ? s->n_frames : 0;
}

const char *pkgnote_signature_frame(const pkgnote_signature *s, size_t i) {
        return s && i < s->n_frames ? s->frames[i] : NULL;
}

int pkgnote_signature_source(const pkgnote_signature *s) {
        return s ? s->source : 0;
}

const char *pkgnote_signature_source_name(int source) {
        switch (source) {
        case PKGNOTE_SIGNATURE_STACK: return "stack";
        case PKGNOTE_SIGNATURE_REPORT: return "report";
        case PKGNOTE_SIGNATURE_MESSAGE: return "message";
        default: return NULL;
        }
}

int pkgnote_signature_to_json(const pkgnote_signature *s, char **ret) {
        if (!s || !ret)
                return pn_error(-EINVAL, "pkgnote_signature_to_json: no signature");
        json_t *frames = json_array();
        json_t *j = json_pack("{s:s, s:s, s:s, s:o?, s:s}", "text", s->text, "hash", s->hash, "package", s->package,
                              "frames", frames, "source", pkgnote_signature_source_name(s->source));
        if (!j)
                return pn_oom();
        for (size_t i = 0; i < s->n_frames; i++)
                if (json_array_append_new(frames, json_string(s->frames[i])) < 0) {
                        json_decref(j);
                        return pn_oom();
                }
        char *out = pn_json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(j);
        if (!out)
                return pn_oom();
        *ret = out;
        return 0;
}

/* ------------------------------------------------- from an unwound stack */

/* The package name of module M and its version: its first package
 * note's, else the package database's when it owns the mapped file; else
 * NULL. */
static const char *module_package(const pkgnote_module *m, const char **version) {
        const pkgnote_info *info = m ? pkgnote_module_info(m) : NULL;
        const pkgnote_metadata *md = info && pkgnote_info_package_count(info) ? pkgnote_info_package(info, 0) : NULL;
        const char *name = md ? pkgnote_metadata_get(md, "name") : NULL;
        *version = NULL;
        if (name) {
                *version = pkgnote_metadata_get(md, "version");
                return name;
        }
        if (m && pkgnote_module_db_state(m) == PKGNOTE_DB_OWNED) {
                *version = pkgnote_module_db_version(m);
                return pkgnote_module_db_name(m);
        }
        return NULL;
}

static const pkgnote_module *module_at(const pkgnote_core *c, uint64_t pc) {
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                if (pc >= pkgnote_module_start(m) && pc < pkgnote_module_end(m))
                        return m;
        }
        return NULL;
}

int pkgnote_signature_from_stack(const pkgnote_core *c, const pkgnote_stack *st, pkgnote_signature **ret) {
        if (!c || !st || !ret)
                return pn_error(-EINVAL, "pkgnote_signature_from_stack: no core or stack");
        if (pkgnote_stack_thread_count(st) == 0)
                return pn_error(-ENODATA, "no stack trace to make a signature of");
        size_t n = pkgnote_stack_frame_count(st, 0);
        struct pn_sig_frame *f = calloc(n ? n : 1, sizeof *f);
        if (!f)
                return pn_oom();
        for (size_t i = 0; i < n; i++) {
                f[i].pc = pkgnote_stack_frame_pc(st, 0, i);
                f[i].offset = pkgnote_stack_frame_module_offset(st, 0, i);
                f[i].function = pkgnote_stack_frame_function(st, 0, i);
                f[i].module = pkgnote_stack_frame_module(st, 0, i);
                const pkgnote_module *m = module_at(c, f[i].pc);
                if (m) {
                        f[i].build_id = pkgnote_module_build_id(m);
                        f[i].package = module_package(m, &f[i].version);
                        if (!f[i].module && pkgnote_module_path(m))
                                f[i].module = base_name(pkgnote_module_path(m));
                }
        }
        int r = pn_signature_build(f, n, PKGNOTE_SIGNATURE_STACK, ret);
        free(f);
        return r;
}

/* -------------------------------------------- from systemd-coredump's text */

struct text_module {
        const char *name; /* into the copy of the text */
        char build_id[129];
};

struct text_parse {
        char *copy; /* the text, its lines NUL-terminated */
        struct pn_sig_frame f[PKGNOTE_STACK_MAX_FRAMES];
        size_t n;
        struct text_module *mods;
        size_t n_mods, cap_mods;
        json_t *packages;
};

static int parse_hex(const char *s, size_t len, uint64_t *ret) {
        if (len == 0 || len > 16)
                return -EBADMSG;
        uint64_t v = 0;
        for (size_t i = 0; i < len; i++) {
                char ch = s[i];
                if (!pn_ascii_xdigit(ch))
                        return -EBADMSG;
                v = v << 4 | (uint64_t)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
        }
        *ret = v;
        return 0;
}

/* "Module NAME[ from PACKAGE][, build-id=HEX]" (systemd-coredump) or
 * "Module PATH from ..., build-id HEX" (pkgnote core); NAME ends at " from ",
 * ", build-id", " with" or " without". */
static int parse_module_line(struct text_parse *p, char *line) {
        char *name = line + strlen("Module ");
        char *end = NULL;
        static const char *const ends[] = {" from ", ", build-id", " with", " without"};
        for (size_t i = 0; i < ELEMENTSOF(ends); i++) {
                char *e = strstr(name, ends[i]);
                if (e && (!end || e < end))
                        end = e;
        }
        const char *b = end ? strstr(end, "build-id") : NULL;
        if (!end || end == name || !b)
                return 0;
        b += strlen("build-id");
        if (*b != ' ' && *b != '=')
                return 0;
        b++;
        size_t k = 0;
        while (pn_ascii_xdigit(b[k]))
                k++;
        if (k < 2 || k > 128 || k % 2)
                return 0;
        if (PN_GROW(p->mods, p->cap_mods, p->n_mods + 1) < 0)
                return pn_oom();
        struct text_module *m = &p->mods[p->n_mods++];
        for (size_t i = 0; i < k; i++)
                m->build_id[i] = (char)(b[i] | 0x20);
        m->build_id[k] = 0;
        *end = 0;
        m->name = name;
        return 0;
}

/* "#I 0xPC FUNCTION (MODULE + 0xOFFSET)", FUNCTION or MODULE "n/a";
 * FUNCTION may hold blanks and parentheses (C++), so the line is read
 * from its end. */
static int parse_frame_line(struct text_parse *p, char *line) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
                s++;
        if (*s++ != '#')
                return pn_error(-EBADMSG, "stack text: a line of the crashing thread is no frame");
        uint64_t idx = 0;
        size_t d = 0;
        while (pn_ascii_digit(s[d]) && d < 6)
                idx = idx * 10 + (uint64_t)(s[d++] - '0');
        if (d == 0 || pn_ascii_digit(s[d]) || idx != p->n)
                return pn_error(-EBADMSG, "stack text: frame %zu is not numbered %zu", p->n, p->n);
        if (p->n >= PKGNOTE_STACK_MAX_FRAMES)
                return pn_error(-E2BIG, "stack text: more than %u frames", PKGNOTE_STACK_MAX_FRAMES);
        s += d;
        while (*s == ' ')
                s++;
        struct pn_sig_frame *f = &p->f[p->n];
        if (strncmp(s, "0x", 2))
                return pn_error(-EBADMSG, "stack text: frame %zu has no address", p->n);
        s += 2;
        size_t h = 0;
        while (pn_ascii_xdigit(s[h]))
                h++;
        if (parse_hex(s, h, &f->pc) < 0 || s[h] != ' ')
                return pn_error(-EBADMSG, "stack text: frame %zu has a bad address", p->n);
        char *fn = s + h + 1;
        /* The last " + 0xOFFSET)" that ends the line (systemd-coredump), or
         * is followed by " [inlined]" or " at FILE:LINE" (pkgnote core's
         * text, where the source location is dropped). */
        char *plus = NULL;
        for (char *q = strstr(fn, " + 0x"); q; q = strstr(q + 1, " + 0x")) {
                size_t k = strspn(q + 5, "0123456789abcdefABCDEF");
                const char *rest = q + 5 + k;
                if (k > 0 && k <= 16 && rest[0] == ')' &&
                    (!rest[1] || !strncmp(rest + 1, " [inlined]", 10) || !strncmp(rest + 1, " at ", 4)))
                        plus = q;
        }
        if (!plus || parse_hex(plus + 5, strspn(plus + 5, "0123456789abcdefABCDEF"), &f->offset) < 0)
                return pn_error(-EBADMSG, "stack text: frame %zu does not end in (MODULE + 0xOFFSET)", p->n);
        *plus = 0;
        char *open = NULL;
        for (char *q = strstr(fn, " ("); q; q = strstr(q + 1, " ("))
                open = q;
        if (!open || open == fn)
                return pn_error(-EBADMSG, "stack text: frame %zu has no module", p->n);
        *open = 0;
        char *mod = open + 2;
        f->function = strcmp(fn, "n/a") ? fn : NULL;
        f->module = *mod && strcmp(mod, "n/a") ? mod : NULL;
        p->n++;
        return 0;
}

static void resolve_modules(struct text_parse *p) {
        for (size_t i = 0; i < p->n; i++) {
                struct pn_sig_frame *f = &p->f[i];
                if (!f->module)
                        continue;
                for (size_t k = 0; k < p->n_mods; k++)
                        if (!strcmp(p->mods[k].name, f->module) || !strcmp(base_name(p->mods[k].name), f->module)) {
                                f->build_id = p->mods[k].build_id;
                                break;
                        }
                /* systemd-coredump writes a module's build-id into the text
                 * only when its note names no package and version; the
                 * JSON has it always */
                json_t *pk = p->packages ? json_object_get(p->packages, f->module) : NULL;
                const char *name = json_string_value(json_object_get(pk, "name"));
                const char *bid = json_string_value(json_object_get(pk, "buildId"));
                if (name) {
                        f->package = name;
                        f->version = json_string_value(json_object_get(pk, "version"));
                }
                if (!f->build_id && bid && strlen(bid) <= 128 && strspn(bid, "0123456789abcdef") == strlen(bid))
                        f->build_id = bid;
        }
}

int pkgnote_signature_from_message(const char *text, size_t len, const char *packages, pkgnote_signature **ret) {
        if (!text || !ret)
                return pn_error(-EINVAL, "pkgnote_signature_from_message: no text");
        if (len > PKGNOTE_MAX_STACK_TEXT)
                return pn_error(-E2BIG, "stack text of %zu bytes, over %u", len, PKGNOTE_MAX_STACK_TEXT);
        if (memchr(text, 0, len))
                return pn_error(-EBADMSG, "stack text holds a NUL byte");
        if (pn_utf8_invalid_at(text, len) < len)
                return pn_error(-EBADMSG, "stack text is not UTF-8");
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)text[i];
                if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
                        return pn_error(-EBADMSG, "stack text holds the control character 0x%02x", ch);
        }
        struct text_parse *p = calloc(1, sizeof *p);
        if (!p || !(p->copy = malloc(len + 1))) {
                free(p);
                return pn_oom();
        }
        memcpy(p->copy, text, len);
        p->copy[len] = 0;
        if (packages)
                p->packages = json_loads(packages, JSON_REJECT_DUPLICATES, NULL);
        if (p->packages && !json_is_object(p->packages)) {
                json_decref(p->packages);
                p->packages = NULL;
        }
        int r = 0;
        enum { BEFORE, IN, AFTER } state = BEFORE;
        size_t lines = 0;
        for (char *line = p->copy, *next; line && r >= 0; line = next) {
                char *nl = strchr(line, '\n');
                next = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = 0;
                size_t ll = strlen(line);
                if (++lines > PKGNOTE_MAX_STACK_TEXT_LINES)
                        r = pn_error(-E2BIG, "stack text of more than %u lines", PKGNOTE_MAX_STACK_TEXT_LINES);
                else if (ll > PKGNOTE_MAX_STACK_TEXT_LINE)
                        r = pn_error(-E2BIG, "stack text line %zu of %zu bytes, over %u", lines, ll,
                                     PKGNOTE_MAX_STACK_TEXT_LINE);
                /* coredumpctl info indents the message */
                else if (!strncmp(line + strspn(line, " \t"), "Module ", 7))
                        r = parse_module_line(p, line + strspn(line, " \t"));
                else if (state == BEFORE && !strncmp(line + strspn(line, " \t"), "Stack trace of thread ", 22)) {
                        const char *t = line + strspn(line, " \t") + 22;
                        size_t d = 0;
                        while (pn_ascii_digit(t[d]))
                                d++;
                        if (d == 0 || d > 10 || strcmp(t + d, ":"))
                                r = pn_error(-EBADMSG, "stack text: bad line \"Stack trace of thread\"");
                        state = IN;
                } else if (state == IN) {
                        /* the block ends at a line that is no frame: blank
                         * before the next thread's, "ELF object binary
                         * architecture: ..." after the last */
                        if (line[strspn(line, " \t")] == '#')
                                r = parse_frame_line(p, line);
                        else
                                state = AFTER;
                }
        }
        if (r >= 0 && state == BEFORE)
                r = pn_error(-ENODATA, "no \"Stack trace of thread\" in the text");
        if (r >= 0 && p->n == 0)
                r = pn_error(-ENODATA, "the crashing thread's stack text holds no frame");
        if (r >= 0) {
                resolve_modules(p);
                r = pn_signature_build(p->f, p->n, PKGNOTE_SIGNATURE_MESSAGE, ret);
        }
        json_decref(p->packages);
        free(p->mods);
        free(p->copy);
        free(p);
        return r;
}
