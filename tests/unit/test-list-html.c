/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crash-group page (tools/list-html.c): the one escaper against
 * hostile strings, the numbers of a group document on the page, a page
 * that fetches and runs nothing whatever the document holds, the chart's
 * bars summing to the document's days, empty and malformed documents,
 * and every truncated prefix of a valid document.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "list-html.h"
#include "testlib.h"

static char escaped[4096];
static const char *escape(const char *s, size_t len) {
        memset(escaped, 0, sizeof escaped);
        FILE *f = fmemopen(escaped, sizeof escaped - 1, "w");
        list_html_escape(f, s, len);
        fclose(f);
        return escaped;
}
#define ESC(lit) escape(lit, sizeof lit - 1)

static void test_escape(void) {
        CHECK_STR(ESC("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        CHECK_STR(ESC("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
        CHECK_STR(ESC("&amp;"), "&amp;amp;");
        CHECK_STR(ESC("x\x01y\x1b[31m\x7fz"), "x\\x01y\\x1b[31m\\x7fz");
        CHECK_STR(ESC("tab\there\nnl"), "tab\\x09here\\x0anl");
        /* Not UTF-8: a lone continuation byte, a truncated sequence, an
         * overlong '<', a surrogate; each byte shown, none taken as '<'. */
        CHECK_STR(ESC("\xff\x80"), "\\xff\\x80");
        CHECK_STR(ESC("\xc3"), "\\xc3");
        CHECK_STR(ESC("\xc0\xbc"), "\\xc0\\xbc");
        CHECK_STR(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80");
        /* C1 controls (U+0085 NEL) too; other UTF-8 as it is. */
        CHECK_STR(ESC("a\xc2\x85" "b"), "a\\xc2\\x85b");
        CHECK_STR(ESC("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
        /* A NUL inside the bytes is shown, not an end. */
        CHECK_STR(escape("a\0<", 3), "a\\x00&lt;");
        CHECK_STR(ESC(""), "");
        /* Long input goes through in pieces, nothing lost between them. */
        char big[3000];
        memset(big, '<', sizeof big);
        const char *e = escape(big, 900);
        CHECK_INT(strlen(e), 900 * 4);
        CHECK(strspn(e, "&lt;") == strlen(e));
}

#define HOSTILE "<script>alert(\\\"x\\\")</script> & 'q' \\u001b[2J \\u0085 \\\"></svg><img src=x>"

static const char doc[] =
        "{\"groupBy\": \"signature\", \"crashes\": 9, \"groupCount\": 3, \"machineCount\": 2,"
        " \"first\": 1733400000, \"last\": 1733490000, \"groups\": ["
        " {\"key\": \"foo: crash_here | run | main\", \"hash\": \"0123456789abcdef\", \"package\": \"foo\","
        "  \"count\": 6, \"first\": 1733400000, \"last\": 1733490000, \"boots\": 3,"
        "  \"machines\": [{\"machineId\": \"0123456789abcdef0123456789abcdef\", \"hostname\": \"h1\", \"count\": 4,"
        "                 \"last\": 1733490000},"
        "                {\"machineId\": \"fedcba9876543210fedcba9876543210\", \"hostname\": \"h2\", \"count\": 2,"
        "                 \"last\": 1733480000}],"
        "  \"versions\": [{\"version\": \"1.0-1\", \"count\": 5, \"first\": 1733400000, \"last\": 1733480000},"
        "                {\"version\": \"1.1-1\", \"count\": 1, \"first\": 1733490000, \"last\": 1733490000}],"
        "  \"days\": [{\"day\": \"2024-12-05\", \"version\": \"1.0-1\", \"count\": 3},"
        "            {\"day\": \"2024-12-06\", \"version\": \"1.0-1\", \"count\": 2},"
        "            {\"day\": \"2024-12-06\", \"version\": \"1.1-1\", \"count\": 1}],"
        "  \"example\": {\"time\": 1733490000, \"pid\": 4242, \"executable\": \"/usr/bin/foo\","
        "               \"package\": {\"type\": \"deb\", \"name\": \"foo\", \"version\": \"1.0-1\", \"architecture\": \"amd64\"},"
        "               \"commandLine\": \"foo --bar\", \"signature\": \"foo: crash_here | run | main\"}},"
        " {\"key\": \"" HOSTILE "\", \"hash\": \"" HOSTILE "\", \"package\": \"" HOSTILE "\","
        "  \"count\": 2, \"first\": 1733410000, \"last\": 1733420000, \"boots\": 1,"
        "  \"machines\": [{\"machineId\": \"" HOSTILE "\", \"hostname\": \"" HOSTILE "\", \"count\": 2,"
        "                 \"last\": 1733420000}],"
        "  \"versions\": [{\"version\": \"" HOSTILE "\", \"count\": 2, \"first\": 1733410000, \"last\": 1733420000}],"
        "  \"notSeenSince\": \"" HOSTILE "\","
        "  \"days\": [{\"day\": \"2024-12-05\", \"version\": \"" HOSTILE "\", \"count\": 2},"
        "            {\"day\": \"2024-13-45\", \"version\": \"x\", \"count\": 7},"
        "            {\"day\": \"</svg>\", \"version\": \"x\", \"count\": 7}],"
        "  \"example\": {\"" HOSTILE "\": \"" HOSTILE "\", \"nested\": {\"a\": [\"" HOSTILE "\"]}}},"
        " {\"key\": \"bar: ?\", \"package\": null, \"count\": 1, \"machines\": [], \"versions\": [], \"days\": []}"
        "]}";

static char *render(const char *d, size_t len, int *r, char *why, size_t why_len) {
        char *page = NULL;
        size_t plen = 0;
        *r = list_html_render(d, len, NULL, 0, &page, &plen, why, why_len);
        if (*r == 0) {
                CHECK(page != NULL);
                CHECK_INT(strlen(page), plen);
        }
        return page;
}

static size_t count(const char *hay, const char *needle) {
        size_t n = 0;
        for (const char *p = hay; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

/* The numbers the data attributes mark: the text after the element with
 * ATTRS up to the next '<' (a time's data-value is checked apart). */
static long long marked(const char *page, const char *attrs) {
        const char *p = strstr(page, attrs);
        if (!p)
                return -1;
        p = strchr(p, '>');
        return p ? strtoll(p + 1, NULL, 10) : -1;
}

static void test_numbers(void) {
        int r;
        char why[256] = "";
        char *page = render(doc, sizeof doc - 1, &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (!page) {
                fprintf(stderr, "render failed: %s\n", why);
                return;
        }
        CHECK_INT(marked(page, "data-field=\"crashes\""), 9);
        CHECK_INT(marked(page, "data-field=\"groupCount\""), 3);
        CHECK_INT(marked(page, "data-field=\"machineCount\""), 2);
        CHECK(strstr(page, "data-field=\"first\" data-value=\"1733400000\" datetime=\"2024-12-05T12:00:00Z\""));
        CHECK(strstr(page, "data-field=\"last\" data-value=\"1733490000\" datetime=\"2024-12-06T13:00:00Z\""));
        CHECK_INT(marked(page, "data-group=\"0\" data-field=\"count\""), 6);
        CHECK_INT(marked(page, "data-group=\"1\" data-field=\"count\""), 2);
        CHECK_INT(marked(page, "data-group=\"2\" data-field=\"count\""), 1);
        CHECK_INT(marked(page, "data-group=\"0\" data-field=\"boots\""), 3);
        CHECK_INT(marked(page, "data-group=\"0\" data-machine=\"0\" data-field=\"count\""), 4);
        CHECK_INT(marked(page, "data-group=\"0\" data-machine=\"1\" data-field=\"count\""), 2);
        CHECK_INT(marked(page, "data-group=\"0\" data-version=\"0\" data-field=\"count\""), 5);
        CHECK_INT(marked(page, "data-group=\"0\" data-version=\"1\" data-field=\"count\""), 1);
        CHECK(strstr(page, "data-group=\"0\" data-version=\"1\" data-field=\"first\" data-value=\"1733490000\""));
        CHECK(strstr(page, "data-group=\"0\" data-machine=\"1\" data-field=\"last\" data-value=\"1733480000\""));
        /* The chart: one bar per day and version, as the document says. */
        CHECK(strstr(page, "data-group=\"0\" data-day=\"2024-12-05\" data-version=\"1.0-1\" data-count=\"3\""));
        CHECK(strstr(page, "data-group=\"0\" data-day=\"2024-12-06\" data-version=\"1.0-1\" data-count=\"2\""));
        CHECK(strstr(page, "data-group=\"0\" data-day=\"2024-12-06\" data-version=\"1.1-1\" data-count=\"1\""));
        CHECK_INT(count(page, "<rect "), 4);
        /* The malformed days of group 1 are left out of its chart. */
        CHECK(!strstr(page, "data-count=\"7\""));
        CHECK_INT(count(page, "<svg "), 2);
        CHECK(strstr(page, "No crash of this group has a day to chart."));
        CHECK_INT(count(page, "<section class=\"group\""), 3);
        /* The example's fields, its time as a date. */
        CHECK(strstr(page, "<td>pid</td><td>4242</td>"));
        CHECK(strstr(page, "data-value=\"1733490000\" datetime=\"2024-12-06T13:00:00Z\">2024-12-06 13:00"));
        CHECK(strstr(page, "not seen since "));
        CHECK(strstr(page, "<td>package</td><td>foo <span class=\"mono\">1.0-1</span> <span class=\"muted\">(deb, amd64)</span>"));
        CHECK(strstr(page, "<title>Crash groups: 9 crashes in 3 groups</title>"));
        free(page);
        /* Times past the years 1 to 9999 are shown as numbers; counts
         * that no store makes still chart. */
        static const char odd[] = "{\"crashes\": 1, \"first\": -9223372036854775808, \"last\": 9223372036854775807,"
                                  " \"groups\": [{\"key\": \"k\", \"count\": 9223372036854775807,"
                                  " \"versions\": [{\"version\": \"1\", \"count\": 1, \"first\": -62135596800}],"
                                  " \"days\": [{\"day\": \"0001-01-01\", \"version\": \"1\", \"count\": 9223372036854775807},"
                                  "  {\"day\": \"9999-12-31\", \"version\": \"1\", \"count\": 9223372036854775807},"
                                  "  {\"day\": \"9999-12-31\", \"version\": \"1\", \"count\": 9223372036854775807}]}]}";
        page = render(odd, sizeof odd - 1, &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (page) {
                CHECK(strstr(page, "data-value=\"-9223372036854775808\">@-9223372036854775808</time>"));
                CHECK(strstr(page, "data-value=\"9223372036854775807\">@9223372036854775807</time>"));
                CHECK(strstr(page, "datetime=\"0001-01-01T00:00:00Z\""));
                CHECK(strstr(page, "data-day=\"0001-01-01\""));
                CHECK_INT(count(page, "<rect "), 2);
                /* Long numbers in groups of three, the number itself kept. */
                CHECK(strstr(page, "data-field=\"count\" data-value=\"9223372036854775807\">9\u202f223\u202f372\u202f036"));
                CHECK(strstr(page, "data-field=\"crashes\" data-value=\"1\">1</span>"));
        }
        free(page);
}

static void test_hostile(void) {
        int r;
        char why[256] = "";
        char *page = render(doc, sizeof doc - 1, &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (!page)
                return;
        /* Nothing of the hostile strings is markup: no script, no img,
         * no early end of the chart; no quote closes an attribute. */
        CHECK_INT(count(page, "<script"), 0);
        CHECK_INT(count(page, "<img"), 0);
        CHECK_INT(count(page, "</svg>"), 2);
        CHECK_INT(count(page, "\x1b"), 0);
        CHECK_INT(count(page, "\xc2\x85"), 0);
        CHECK(count(page, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; \\x1b[2J \\xc2\\x85") >= 8);
        CHECK(strstr(page, "data-version=\"&lt;script&gt;alert(&quot;x&quot;)"));
        /* Nothing fetched: no scheme, no protocol-relative or url() reference. */
        CHECK_INT(count(page, "http:"), 0);
        CHECK_INT(count(page, "https:"), 0);
        CHECK_INT(count(page, "//"), 0);
        CHECK_INT(count(page, "url("), 0);
        CHECK_INT(count(page, "src=\""), 0);
        CHECK_INT(count(page, "href=\"") , count(page, "href=\"#group-"));
        CHECK(strstr(page, "default-src 'none'"));
        free(page);
}

static void test_empty(void) {
        static const char empty[] = "{\"groupBy\": \"signature\", \"crashes\": 0, \"groupCount\": 0, \"machineCount\": 0,"
                                    " \"first\": null, \"last\": null, \"groups\": []}";
        int r;
        char why[256];
        char *page = render(empty, sizeof empty - 1, &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (!page)
                return;
        CHECK(strstr(page, "No crashes."));
        CHECK_INT(marked(page, "data-field=\"crashes\""), 0);
        CHECK_INT(count(page, "<section"), 0);
        CHECK(strstr(page, "</html>\n"));
        free(page);
}

static void test_bad(void) {
        static const char *const bad[] = {
                "",
                "[]",
                "{\"groups\": {}}",
                "{\"crashes\": 1}",
                "{\"groups\": [1]}",
                "{\"groups\": [{\"count\": 1}]}",
                "{\"groups\": [{\"key\": \"k\"}]}",
                "{\"groups\": [{\"key\": \"k\", \"count\": -1}]}",
                "{\"groups\": [{\"key\": \"k\", \"count\": 1.5}]}",
                "{\"groups\": [], \"groups\": []}",
                "{\"groups\": []} trailing",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                int r;
                char why[256] = "";
                char *page = render(bad[i], strlen(bad[i]), &r, why, sizeof why);
                CHECK_INT(r, -EBADMSG);
                CHECK(page == NULL);
                CHECK(strncmp(why, "not a crash-group document", 26) == 0);
                free(page);
        }
}

/* A period of many days: at most LIST_HTML_MAX_BARS bars, each holding
 * several days, and the counts all there. */
static void test_long_period(void) {
        char d[40000];
        int n = snprintf(d, sizeof d, "{\"groups\": [{\"key\": \"k\", \"count\": 1000, \"versions\": "
                                      "[{\"version\": \"1\", \"count\": 1000}], \"days\": [");
        int total = 0;
        for (int i = 0; i < 400; i++) {
                int y = 2023 + i / 365, doy = i % 365;
                /* Days of 2023 and 2024 by month, roughly: what matters is
                 * that they are valid and spread. */
                int m = doy / 31 + 1, dd = doy % 28 + 1;
                n += snprintf(d + n, sizeof d - (size_t)n, "%s{\"day\": \"%04d-%02d-%02d\", \"version\": \"1\", \"count\": 2}",
                              i ? "," : "", y, m, dd);
                total += 2;
        }
        snprintf(d + n, sizeof d - (size_t)n, "]}]}");
        int r;
        char why[256] = "";
        char *page = render(d, strlen(d), &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (!page) {
                fprintf(stderr, "render failed: %s\n", why);
                return;
        }
        size_t bars = count(page, "<rect ");
        CHECK(bars > 0 && bars <= LIST_HTML_MAX_BARS);
        long long sum = 0;
        for (const char *p = page; (p = strstr(p, "data-count=\"")); p++)
                sum += strtoll(p + 12, NULL, 10);
        CHECK_INT(sum, total);
        CHECK(!strstr(page, "data-days-per-bar=\"1\""));
        free(page);
}

/* More versions than colours: the oldest share one grey, the newest keep
 * a colour each; days of a version the group does not list are grey too. */
static void test_many_versions(void) {
        char d[8000];
        int n = snprintf(d, sizeof d, "{\"groups\": [{\"key\": \"k\", \"count\": 13, \"versions\": [");
        for (int i = 0; i < 12; i++)
                n += snprintf(d + n, sizeof d - (size_t)n, "%s{\"version\": \"v%d\", \"count\": 1}", i ? "," : "", i);
        n += snprintf(d + n, sizeof d - (size_t)n, "], \"days\": [");
        for (int i = 0; i < 12; i++)
                n += snprintf(d + n, sizeof d - (size_t)n, "{\"day\": \"2024-01-%02d\", \"version\": \"v%d\", \"count\": 1},",
                              i + 1, i);
        snprintf(d + n, sizeof d - (size_t)n, "{\"day\": \"2024-01-01\", \"version\": null, \"count\": 1}]}]}");
        int r;
        char why[256] = "";
        char *page = render(d, strlen(d), &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (!page) {
                fprintf(stderr, "render failed: %s\n", why);
                return;
        }
        CHECK(strstr(page, "3 older or unknown versions"));
        /* Ten colours: nine versions and the grey. */
        CHECK_INT(count(page, "fill=\"#c8c8c8\""), 4);
        CHECK_INT(count(page, "<li>"), 10);
        CHECK(strstr(page, "data-version=\"v0\" data-count=\"1\""));
        CHECK(strstr(page, "fill=\"#4269d0\" data-group=\"0\" data-day=\"2024-01-04\" data-version=\"v3\""));
        free(page);
}

/* A document of very many groups: the overview and the details bounded. */
static void test_many_groups(void) {
        size_t cap = 64 + (LIST_HTML_MAX_OVERVIEW + 5) * 40;
        char *d = malloc(cap);
        int n = snprintf(d, cap, "{\"groups\": [");
        for (int i = 0; i < LIST_HTML_MAX_OVERVIEW + 5; i++)
                n += snprintf(d + n, cap - (size_t)n, "%s{\"key\": \"g%d\", \"count\": 1}", i ? "," : "", i);
        snprintf(d + n, cap - (size_t)n, "]}");
        int r;
        char why[256] = "";
        char *page = render(d, strlen(d), &r, why, sizeof why);
        CHECK_INT(r, 0);
        if (page) {
                CHECK_INT(count(page, "<section class=\"group\""), LIST_HTML_MAX_DETAIL);
                CHECK_INT(count(page, "data-field=\"count\""), LIST_HTML_MAX_OVERVIEW + LIST_HTML_MAX_DETAIL);
                CHECK(strstr(page, "and 5 smaller groups"));
                CHECK(strstr(page, "The first 50 groups are shown in detail"));
        }
        free(page);
        free(d);
}

/* Every truncated prefix of a valid document is refused or rendered,
 * never read past. */
static void test_prefixes(void) {
        size_t ok = 0;
        for (size_t len = 0; len < sizeof doc - 1; len++) {
                char *copy = malloc(len ? len : 1);
                memcpy(copy, doc, len);
                int r;
                char why[256];
                char *page = render(copy, len, &r, why, sizeof why);
                CHECK(r == 0 || r == -EBADMSG);
                ok += r == 0;
                free(page);
                free(copy);
        }
        /* Only the whole document is one. */
        CHECK_INT(ok, 0);
}

/* The modules of an example's core, when the caller has its report. */
static void test_cores(void) {
        static const char core[] = "{\"modules\": [{\"path\": \"/usr/bin/foo\", \"buildId\": \"abcd\", \"packages\": "
                                   "[{\"type\": \"deb\", \"name\": \"foo<b>\", \"version\": \"1.0-1\"}]},"
                                   " {\"path\": \"/usr/lib/libc.so.6\", \"buildId\": null, \"packages\": [], \"packageFrom\": \"database\","
                                   "  \"dbPackage\": {\"type\": \"deb\", \"name\": \"libc6\", \"version\": \"2.36-9\"}}]}";
        const char *cores[] = {core, NULL};
        char *page = NULL;
        size_t plen;
        char why[256];
        CHECK_INT(list_html_render(doc, sizeof doc - 1, cores, 2, &page, &plen, why, sizeof why), 0);
        if (!page)
                return;
        CHECK_INT(count(page, "data-field=\"modules\""), 1);
        CHECK(strstr(page, "data-group=\"0\" data-field=\"modules\""));
        CHECK(strstr(page, "foo&lt;b&gt;"));
        CHECK(strstr(page, "/usr/lib/libc.so.6"));
        CHECK(strstr(page, "<td>libc6</td><td class=\"mono\">2.36-9</td><td class=\"muted\">database</td>"));
        free(page);
}

int main(void) {
        RUN(test_escape);
        RUN(test_numbers);
        RUN(test_hostile);
        RUN(test_empty);
        RUN(test_bad);
        RUN(test_long_period);
        RUN(test_many_versions);
        RUN(test_many_groups);
        RUN(test_prefixes);
        RUN(test_cores);
        return test_summary();
}
