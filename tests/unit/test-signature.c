/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Crash signatures (lib/08-core-signature.c): the rules over systemd-
 * coredump's stack text, the text refused when hostile or over its
 * limits, and every truncated prefix of a valid text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkgnote.h"
#include "testlib.h"

/* The signature text of TEXT with PACKAGES, or the error as "E<n>". */
static char result[2048];
static const char *sig(const char *text, const char *packages) {
        pkgnote_signature *s = NULL;
        int r = pkgnote_signature_from_message(text, strlen(text), packages, &s);
        if (r < 0)
                snprintf(result, sizeof result, "E%d", -r);
        else
                snprintf(result, sizeof result, "%s", pkgnote_signature_text(s));
        pkgnote_signature_free(s);
        return result;
}

#define ABORT_TEXT                                                                                                     \
        "Process 4242 (crasher) of user 1000 dumped core.\n\n"                                                         \
        "Module crasher from deb crasher-2.0-1 (amd64), build-id 1f2e3d4c5b6a79880123456789abcdef01234567\n"          \
        "Stack trace of thread 4242:\n"                                                                                \
        "#0  0x00007f1234567abc __pthread_kill_implementation (libc.so.6 + 0x8eabc)\n"                                 \
        "#1  0x00007f1234520476 raise (libc.so.6 + 0x42476)\n"                                                         \
        "#2  0x00007f12345067f3 abort (libc.so.6 + 0x287f3)\n"                                                         \
        "#3  0x00007f123450671b __assert_fail_base.cold (libc.so.6 + 0x2871b)\n"                                       \
        "#4  0x00007f1234517e96 __assert_fail (libc.so.6 + 0x39e96)\n"                                                 \
        "#5  0x0000555555555189 check_input (crasher + 0x1189)\n"                                                      \
        "#6  0x00005555555551c0 main (crasher + 0x11c0)\n"                                                             \
        "#7  0x00007f1234507d90 __libc_start_call_main (libc.so.6 + 0x29d90)\n"                                        \
        "#8  0x00007f1234507e40 __libc_start_main_impl (libc.so.6 + 0x29e40)\n"                                        \
        "#9  0x00005555555550a5 _start (crasher + 0x10a5)\n"                                                           \
        "\n"                                                                                                           \
        "Stack trace of thread 4243:\n"                                                                                \
        "#0  0x00007f12345a1b2c clock_nanosleep (libc.so.6 + 0xe1b2c)\n"                                               \
        "ELF object binary architecture: AMD x86-64\n"

#define PACKAGES "{\"crasher\":{\"type\":\"deb\",\"name\":\"crasher\",\"version\":\"2.0-1\"}}"

static void test_skip_and_package(void) {
        CHECK_STR(sig(ABORT_TEXT, NULL), "crasher: check_input | main");
        CHECK_STR(sig(ABORT_TEXT, PACKAGES), "crasher: check_input | main");
        /* the package, not the file name, names the module; the version is no part */
        CHECK_STR(sig(ABORT_TEXT, "{\"crasher\":{\"name\":\"crash-tools\",\"version\":\"9\"}}"),
                  "crash-tools: check_input | main");
        pkgnote_signature *s = NULL;
        CHECK_INT(pkgnote_signature_from_message(ABORT_TEXT, strlen(ABORT_TEXT), NULL, &s), 0);
        CHECK_INT(pkgnote_signature_source(s), PKGNOTE_SIGNATURE_MESSAGE);
        CHECK_STR(pkgnote_signature_source_name(pkgnote_signature_source(s)), "message");
        CHECK_STR(pkgnote_signature_package(s), "crasher");
        CHECK_INT(pkgnote_signature_frame_count(s), 2);
        CHECK_STR(pkgnote_signature_frame(s, 1), "main");
        CHECK(pkgnote_signature_frame(s, 2) == NULL);
        CHECK_INT(strlen(pkgnote_signature_hash(s)), 16);
        char *j = NULL;
        CHECK_INT(pkgnote_signature_to_json(s, &j), 0);
        CHECK(j && strstr(j, "\"source\":\"message\""));
        free(j);
        pkgnote_signature_free(s);
}

static void test_normalize(void) {
        /* CPU variants and a library routine: the caller's module faults */
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x00007f0000010000 __strlen_avx2 (libc.so.6 + 0x10000)\n"
                      "#1  0x0000560000001234 parse.isra.0 (prog + 0x1234)\n",
                      NULL),
                  "prog: strlen | parse");
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x00007f0000010000 __memmove_avx_unaligned_erms (libc.so.6 + 0x10000)\n"
                      "#1  0x0000560000001234 parse (prog + 0x1234)\n",
                      NULL),
                  "prog: memmove | parse");
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x00007f0000010000 __memmove_evex_unaligned_erms (libc.so.6 + 0x10200)\n"
                      "#1  0x0000560000009999 parse (prog + 0x9999)\n",
                      NULL),
                  "prog: memmove | parse");
        /* a program's own str... function is no library routine: it faults */
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x00007f0000010000 stream_read (libio.so.1 + 0x10000)\n"
                      "#1  0x0000560000001234 parse (prog + 0x1234)\n",
                      NULL),
                  "libio.so.1: stream_read | parse");
        /* unsymbolized: build-id + offset, else file name + offset, else ?? */
        CHECK_STR(sig("Module prog with build-id ABCDEF0123\n"
                      "Stack trace of thread 1:\n"
                      "#0  0x0000560000001234 n/a (prog + 0x1234)\n"
                      "#1  0x0000560000001300 n/a (other + 0x1300)\n"
                      "#2  0x0000000000000000 n/a (n/a + 0x0)\n",
                      NULL),
                  "prog: abcdef0123+0x1234 | other+0x1300 | ??");
        /* systemd-coredump's own form: one thread, the architecture line
         * right after its frames; build-ids from COREDUMP_PACKAGE_JSON
         * (the text names them only for modules without a package) */
        CHECK_STR(sig("Module prog from deb prog-1.0-1.amd64\n"
                      "Module libfoo.so.1 without build-id.\n"
                      "Module libbar.so.2, build-id=00aa11bb\n"
                      "Stack trace of thread 3:\n"
                      "#0  0x0000560000001234 n/a (prog + 0x1234)\n"
                      "#1  0x00007f0000001300 n/a (libbar.so.2 + 0x1300)\n"
                      "ELF object binary architecture: AMD x86-64\n",
                      "{\"prog\":{\"type\":\"deb\",\"name\":\"prog\",\"version\":\"1.0-1\",\"buildId\":\"c0ffee\"}}"),
                  "prog: c0ffee+0x1234 | 00aa11bb+0x1300");
        /* pkgnote core's text: source locations and [inlined] passed over,
         * an inlined function's caller at the same address is one frame */
        CHECK_STR(sig("Stack trace of thread 3:\n"
                      "#0  0x0000000000401136 helper (tool + 0x1136) [inlined] at /src/a (b).c:6:3\n"
                      "#1  0x0000000000401136 parse (tool + 0x1136) at /src/a + 0x1).c:9\n"
                      "#2  0x0000000000401200 main (tool + 0x1200)\n",
                      NULL),
                  "tool: helper | main");
        CHECK_STR(sig("Stack trace of thread 3:\n#0  0x1 f (m + 0x1) trailing\n", NULL), "E74");
        /* symbol versions go; nothing outside main counts, named or not */
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x1 clock_nanosleep@GLIBC_2.2.5 (libc.so.6 + 0x1)\n"
                      "#1  0x2 main (p + 0x2)\n"
                      "#2  0x3 n/a (libc.so.6 + 0x3)\n"
                      "#3  0x4 __libc_start_main@@GLIBC_2.34 (libc.so.6 + 0x4)\n",
                      NULL),
                  "libc.so.6: clock_nanosleep | main");
        /* C++ names keep their blanks and parentheses */
        CHECK_STR(sig("  Stack trace of thread 9:\n", NULL), "E61"); /* indented as coredumpctl shows it, but no frame */
        CHECK_STR(sig("Stack trace of thread 9:\n"
                      "  #0  0x0000000000401136 Foo::bar(std::vector<int> const&) const (cxx + 0x1136)\n",
                      NULL),
                  "cxx: Foo::bar(std::vector<int> const&) const");
        /* recursion counts once; at most PKGNOTE_SIGNATURE_FRAMES */
        CHECK_STR(sig("Stack trace of thread 5:\n"
                      "#0  0x0000000000401000 recurse (deep + 0x1000)\n"
                      "#1  0x0000000000401010 recurse (deep + 0x1010)\n"
                      "#2  0x0000000000401010 recurse (deep + 0x1010)\n"
                      "#3  0x0000000000401100 main (deep + 0x1100)\n",
                      NULL),
                  "deep: recurse | main");
        CHECK_STR(sig("Stack trace of thread 5:\n"
                      "#0  0x1 a (m + 0x1)\n#1  0x2 b (m + 0x2)\n#2  0x3 c (m + 0x3)\n#3  0x4 d (m + 0x4)\n"
                      "#4  0x5 e (m + 0x5)\n#5  0x6 f (m + 0x6)\n",
                      NULL),
                  "m: a | b | c | d | e");
        /* a signal frame: the handler's frames above it go */
        CHECK_STR(sig("Stack trace of thread 6:\n"
                      "#0  0x00007f0000001000 handler_write (libcrash.so + 0x1000)\n"
                      "#1  0x00007f0000003000 __restore_rt (libc.so.6 + 0x3000)\n"
                      "#2  0x0000000000401234 parse_header.constprop.0 (tool + 0x1234)\n",
                      NULL),
                  "tool: parse_header");
        /* different bugs, different signatures and hashes */
        char one[sizeof result];
        snprintf(one, sizeof one, "%s", sig("Stack trace of thread 1:\n#0  0x1 bug_one (p + 0x1)\n", NULL));
        CHECK_STR(one, "p: bug_one");
        CHECK(strcmp(one, sig("Stack trace of thread 1:\n#0  0x1 bug_two (p + 0x1)\n", NULL)));
        /* a sentinel ends the way of dying: an unnamed frame of the C
         * library inside abort (its pthread_kill without symbols) goes too,
         * and the program, not the C library, faults */
        CHECK_STR(sig("Stack trace of thread 7:\n"
                      "#0  0x00007f000008aeec n/a (libc.so.6 + 0x8aeec)\n"
                      "#1  0x00007f000003cfb2 raise (libc.so.6 + 0x3cfb2)\n"
                      "#2  0x00007f0000027472 abort (libc.so.6 + 0x27472)\n"
                      "#3  0x0000560000001189 check_limits (prog + 0x1189)\n"
                      "#4  0x00005600000011c0 main (prog + 0x11c0)\n",
                      NULL),
                  "prog: check_limits | main");
        /* ... but not one outside main, nor an unnamed frame with no sentinel */
        CHECK_STR(sig("Stack trace of thread 7:\n"
                      "#0  0x00007f000008aeec n/a (libc.so.6 + 0x8aeec)\n"
                      "#1  0x0000560000001189 check_limits (prog + 0x1189)\n"
                      "#2  0x00005600000011c0 main (prog + 0x11c0)\n"
                      "#3  0x00007f0000027472 abort (libc.so.6 + 0x27472)\n",
                      NULL),
                  "libc.so.6: libc.so.6+0x8aeec | check_limits | main");
        /* the C library's internal names are its public ones, whichever
         * symbol table (.dynsym or the debug file's) named the frame */
        snprintf(one, sizeof one, "%s",
                 sig("Stack trace of thread 1:\n"
                     "#0  0x1 __GI___clock_nanosleep (libc.so.6 + 0x1)\n"
                     "#1  0x2 __GI___nanosleep (libc.so.6 + 0x2)\n#2  0x3 main (sleep + 0x3)\n",
                     NULL));
        CHECK_STR(one, "libc.so.6: clock_nanosleep | nanosleep | main");
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x1 clock_nanosleep@GLIBC_2.17 (libc.so.6 + 0x1)\n"
                      "#1  0x2 __nanosleep (libc.so.6 + 0x2)\n#2  0x3 main (sleep + 0x3)\n",
                      NULL),
                  one);
        /* a hidden alias of a CPU variant is the routine */
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x1 __GI___memcpy_avx_unaligned_erms (libc.so.6 + 0x1)\n#1  0x2 copy (prog + 0x2)\n",
                      NULL),
                  "prog: memcpy | copy");
        /* a name cut to its limit stays UTF-8: never in a character */
        {
                static char text[2048], name[600], want[1024];
                memset(name, 'a', 510);
                strcpy(name + 510, "\xc3\xa9xyz"); /* é across byte 511 */
                snprintf(text, sizeof text, "Stack trace of thread 1:\n#0  0x1 %s (prog + 0x1)\n", name);
                snprintf(want, sizeof want, "prog: %.510s", name);
                CHECK_STR(sig(text, NULL), want);
                char mod[300] = "";
                for (int k = 0; k < 200; k++)
                        strcat(mod, k < 128 ? "\xc3\xa9" : ""); /* 256 bytes: byte 255 cuts one */
                snprintf(text, sizeof text, "Stack trace of thread 1:\n#0  0x1 n/a (%s + 0x1)\n", mod);
                snprintf(want, sizeof want, "%s: %.254s+0x1", mod, mod);
                CHECK_STR(sig(text, NULL), want);
        }
        /* __libc_NAME is NAME; a program's own __names are kept */
        CHECK_STR(sig("Stack trace of thread 1:\n"
                      "#0  0x1 __libc_malloc (libc.so.6 + 0x1)\n#1  0x2 __parse (prog + 0x2)\n",
                      NULL),
                  "prog: malloc | __parse");
        /* nothing but machinery: no signature */
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 raise (libc.so.6 + 0x1)\n#1  0x2 abort (libc.so.6 + 0x2)\n",
                      NULL),
                  "E61");
}

static void test_hostile(void) {
        CHECK_STR(sig("no stack here\n", NULL), "E61");
        CHECK_STR(sig("Stack trace of thread 1:\n#1  0x1 f (m + 0x1)\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 f (m + 0x1)\n#0  0x1 f (m + 0x1)\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 f\x1b[2J (m + 0x1)\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 \xff (m + 0x1)\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 f (m + 0x12345678901234567)\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread x:\n", NULL), "E74");
        CHECK_STR(sig("Stack trace of thread 1:\n#0  0x1 f m + 0x1\n", NULL), "E74");
        pkgnote_signature *s = NULL;
        CHECK_INT(pkgnote_signature_from_message("a\0b", 3, NULL, &s), -EBADMSG);
        /* limits: a long line, many lines, many frames, a long text */
        size_t big = PKGNOTE_MAX_STACK_TEXT_LINE + 100;
        char *t = malloc(PKGNOTE_MAX_STACK_TEXT + 2);
        memset(t, 'x', big);
        t[big] = 0;
        CHECK_STR(sig(t, NULL), "E7");
        size_t n = 0;
        for (unsigned i = 0; i <= PKGNOTE_MAX_STACK_TEXT_LINES; i++)
                t[n++] = '\n';
        t[n] = 0;
        CHECK_STR(sig(t, NULL), "E7");
        n = (size_t)sprintf(t, "Stack trace of thread 1:\n");
        for (unsigned i = 0; i <= PKGNOTE_STACK_MAX_FRAMES; i++)
                n += (size_t)sprintf(t + n, "#%u  0x%x f%u (m + 0x%x)\n", i, i + 1, i, i);
        CHECK_STR(sig(t, NULL), "E7");
        CHECK_INT(pkgnote_signature_from_message(t, PKGNOTE_MAX_STACK_TEXT + 1, NULL, &s), -E2BIG);
        free(t);
        /* a bad COREDUMP_PACKAGE_JSON is no package */
        CHECK_STR(sig(ABORT_TEXT, "{\"crasher\":"), "crasher: check_input | main");
        CHECK_STR(sig(ABORT_TEXT, "{\"crasher\":{\"name\":\"evil\\u001b[2J\"}}"), "crasher: check_input | main");
}

/* Every truncated prefix of a valid text gives a signature or a clean
 * error, never a crash (run under ASan in CI). */
static void test_truncated(void) {
        const char *full = ABORT_TEXT;
        size_t len = strlen(full), made = 0;
        for (size_t i = 0; i <= len; i++) {
                char *p = malloc(i ? i : 1);
                memcpy(p, full, i);
                pkgnote_signature *s = NULL;
                int r = pkgnote_signature_from_message(p, i, PACKAGES, &s);
                CHECK(r == 0 || r == -ENODATA || r == -EBADMSG);
                if (r == 0) {
                        made++;
                        CHECK(pkgnote_signature_text(s) != NULL);
                }
                pkgnote_signature_free(s);
                free(p);
        }
        CHECK(made > 0);
}

int main(void) {
        RUN(test_skip_and_package);
        RUN(test_normalize);
        RUN(test_hostile);
        RUN(test_truncated);
        return test_summary();
}
