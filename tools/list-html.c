/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote list --group --format html: the crash groups as one page (list-html.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "escape.h"
#include "list-html.h"

void list_html_escape(FILE *f, const char *s, size_t len) {
        char buf[1024];
        while (len > 0) {
                /* Control characters and bytes that are not UTF-8 first,
                 * as visible text; then the characters HTML gives a
                 * meaning, in text and in quoted attribute values. */
                size_t n = pn_escape(buf, sizeof buf, s, len, false);
                if (n == 0)
                        break;
                for (const char *p = buf; *p; p++)
                        switch (*p) {
                        case '&': fputs("&amp;", f); break;
                        case '<': fputs("&lt;", f); break;
                        case '>': fputs("&gt;", f); break;
                        case '"': fputs("&quot;", f); break;
                        case '\'': fputs("&#39;", f); break;
                        default: fputc(*p, f);
                        }
                s += n;
                len -= n;
        }
}

static void esc(FILE *f, const char *s) {
        list_html_escape(f, s, strlen(s));
}

/* A shown value: at most LIST_HTML_MAX_VALUE bytes of it, cut at a
 * character's start, and an ellipsis when cut. */
static void esc_bounded(FILE *f, const char *s, size_t len) {
        if (len <= LIST_HTML_MAX_VALUE) {
                list_html_escape(f, s, len);
                return;
        }
        size_t n = LIST_HTML_MAX_VALUE;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
                n--;
        list_html_escape(f, s, n);
        fputs("\u2026", f);
}

/* ------------------------------------------------------------ the document */

static const char *jstr(const json_t *o, const char *k) {
        return json_string_value(json_object_get(o, k));
}

static bool jint(const json_t *o, const char *k, long long *ret) {
        const json_t *v = json_object_get(o, k);
        if (!json_is_integer(v))
                return false;
        *ret = (long long)json_integer_value(v);
        return true;
}

static size_t jcount(const json_t *o, const char *k) {
        return json_array_size(json_object_get(o, k));
}

/* Days since 1970-01-01 of a proleptic Gregorian date, and back (the
 * civil calendar algorithms): the chart's days are UTC days, whatever the
 * local time zone. */
static long long days_from_civil(long long y, unsigned m, unsigned d) {
        y -= m <= 2;
        long long era = (y >= 0 ? y : y - 399) / 400;
        unsigned yoe = (unsigned)(y - era * 400);
        unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + (long long)doe - 719468;
}

static void civil_from_days(long long z, int *y, unsigned *m, unsigned *d) {
        z += 719468;
        long long era = (z >= 0 ? z : z - 146096) / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        long long yy = (long long)yoe + era * 400;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        unsigned mp = (5 * doy + 2) / 153;
        *d = doy - (153 * mp + 2) / 5 + 1;
        *m = mp < 10 ? mp + 3 : mp - 9;
        *y = (int)(yy + (*m <= 2));
}

/* "YYYY-MM-DD" (exactly) as days since the epoch. */
static bool parse_day(const char *s, long long *ret) {
        if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
                return false;
        for (int i = 0; i < 10; i++)
                if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
                        return false;
        int y = atoi(s);
        unsigned m = (unsigned)atoi(s + 5), d = (unsigned)atoi(s + 8);
        if (m < 1 || m > 12 || d < 1 || d > 31)
                return false;
        *ret = days_from_civil(y, m, d);
        return true;
}

static void day_text(long long day, char *buf, size_t len) {
        int y;
        unsigned m, d;
        civil_from_days(day, &y, &m, &d);
        snprintf(buf, len, "%04d-%02u-%02u", y, m, d);
}

/* A time of the document: <time> with the epoch seconds in data-value,
 * shown as a UTC date, plus the data attributes in ATTRS. */
static void put_time(FILE *f, long long t, const char *attrs) {
        /* Years 1 to 9999 as dates; another number as it is. */
        if (t < -62135596800LL || t > 253402300799LL) {
                fprintf(f, "<time %s data-value=\"%lld\">@%lld</time>", attrs, t, t);
                return;
        }
        long long day = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
        long long sec = t - day * 86400;
        int y;
        unsigned m, d;
        civil_from_days(day, &y, &m, &d);
        unsigned hh = (unsigned)(sec / 3600), mm = (unsigned)(sec / 60 % 60), ss = (unsigned)(sec % 60);
        fprintf(f,
                "<time %s data-value=\"%lld\" datetime=\"%04d-%02u-%02uT%02u:%02u:%02uZ\">%04d-%02u-%02u "
                "%02u:%02u<span class=\"sec\">:%02u</span></time>",
                attrs, t, y, m, d, hh, mm, ss, y, m, d, hh, mm, ss);
}

static void put_opt_time(FILE *f, const json_t *o, const char *k, const char *attrs) {
        long long t;
        if (jint(o, k, &t)) {
                char a[160];
                snprintf(a, sizeof a, "%s data-field=\"%s\"", attrs, k);
                put_time(f, t, a);
        } else
                fputs("<span class=\"none\">\u2014</span>", f);
}

/* V, from five digits on in groups of three apart by a narrow space (the
 * number itself in data-value). */
static void put_grouped(FILE *f, long long v) {
        char d[32];
        int n = snprintf(d, sizeof d, "%lld", v), lead = d[0] == '-';
        if (n - lead < 5) {
                fputs(d, f);
                return;
        }
        for (int i = 0; i < n; i++) {
                if (i > lead && (n - i) % 3 == 0)
                        fputs("\u202f", f);
                fputc(d[i], f);
        }
}

static void put_num(FILE *f, const json_t *o, const char *k, const char *attrs) {
        long long v;
        if (jint(o, k, &v)) {
                fprintf(f, "<span %s data-field=\"%s\" data-value=\"%lld\">", attrs, k, v);
                put_grouped(f, v);
                fputs("</span>", f);
        } else
                fputs("<span class=\"none\">\u2014</span>", f);
}

static void put_str_or_dash(FILE *f, const char *s) {
        if (s && *s)
                esc_bounded(f, s, strlen(s));
        else
                fputs("<span class=\"none\">\u2014</span>", f);
}

/* ------------------------------------------------------------ the chart */

/* Colours for the versions, in the order the group first saw them;
 * distinguishable for most colour vision, and on white. */
static const char *const palette[] = {
        "#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951",
        "#ff8ab7", "#a463f2", "#97bbf5", "#9c6b4e", "#9498a0",
};
#define N_PALETTE (sizeof palette / sizeof palette[0])
#define OTHER_COLOUR "#c8c8c8"

/* Of more versions than colours, the oldest share the grey of the
 * versions the document does not list: the newest keep a colour each. */
static size_t grey_below(size_t n_versions) {
        return n_versions > N_PALETTE ? n_versions - (N_PALETTE - 1) : 0;
}

static const char *series_colour(size_t i, size_t n_versions) {
        size_t fold = grey_below(n_versions);
        return i < n_versions && i >= fold ? palette[i - fold] : OTHER_COLOUR;
}

/* The chart's scale: a step of 1, 2 or 5 times a power of ten giving at
 * most five steps up to MAX. */
static long long nice_step(long long max) {
        long long p = 1;
        for (;;) {
                static const int m[] = {1, 2, 5};
                for (int i = 0; i < 3; i++)
                        if (max <= 5 * p * m[i])
                                return p * m[i];
                if (p > LLONG_MAX / 100)
                        return p;
                p *= 10;
        }
}

#define CHART_MAX 1000000000000000LL
#define CHART_W 760
#define CHART_H 250
#define CHART_L 56
#define CHART_R 12
#define CHART_T 14
#define CHART_B 52

/* The group's crashes per UTC day as stacked bars, one colour per
 * version, with the versions of "days" not in "versions" (or past
 * LIST_HTML_MAX_ROWS of them), and the oldest versions when there are
 * more than colours, in grey.  0 or -ENOMEM. */
static int put_chart(FILE *f, const json_t *g, size_t gi) {
        const json_t *days = json_object_get(g, "days"), *versions = json_object_get(g, "versions");
        size_t nv = json_array_size(versions);
        if (nv > LIST_HTML_MAX_ROWS)
                nv = LIST_HTML_MAX_ROWS;
        long long dmin = LLONG_MAX, dmax = LLONG_MIN;
        size_t used = 0;
        for (size_t i = 0; i < json_array_size(days); i++) {
                const json_t *e = json_array_get(days, i);
                long long day, n;
                if (!parse_day(jstr(e, "day"), &day) || !jint(e, "count", &n) || n <= 0)
                        continue;
                dmin = day < dmin ? day : dmin;
                dmax = day > dmax ? day : dmax;
                used++;
        }
        if (used == 0) {
                fputs("<p class=\"none\">No crash of this group has a day to chart.</p>\n", f);
                return 0;
        }
        /* Bars of one day each, or of several when the period is long;
         * a period of one day gets a few empty days beside it, so that a
         * lone bar does not fill the plot. */
        long long span = dmax - dmin + 1;
        long long per = (span + LIST_HTML_MAX_BARS - 1) / LIST_HTML_MAX_BARS;
        long long start = dmin;
        size_t nbins = (size_t)((span + per - 1) / per);
        if (nbins < 7) {
                start -= (long long)(7 - nbins) / 2;
                nbins = 7;
        }
        size_t ns = nv + 1;
        long long *cell = calloc(nbins * ns, sizeof *cell);
        if (!cell)
                return -ENOMEM;
        for (size_t i = 0; i < json_array_size(days); i++) {
                const json_t *e = json_array_get(days, i);
                long long day, n;
                if (!parse_day(jstr(e, "day"), &day) || !jint(e, "count", &n) || n <= 0)
                        continue;
                const char *v = jstr(e, "version");
                size_t s = nv;
                for (size_t j = 0; v && j < nv; j++)
                        if (jstr(json_array_get(versions, j), "version") &&
                            !strcmp(v, jstr(json_array_get(versions, j), "version"))) {
                                s = j;
                                break;
                        }
                size_t b = (size_t)((day - start) / per);
                if (cell[b * ns + s] <= LLONG_MAX - n)
                        cell[b * ns + s] += n;
        }
        /* The scale's top: no real count comes near it, but the document
         * is read as untrusted, so sums saturate there and taller bars are
         * cut at the top of the plot. */
        long long ymax = 1;
        for (size_t b = 0; b < nbins; b++) {
                long long t = 0;
                for (size_t s = 0; s < ns; s++)
                        t = cell[b * ns + s] > CHART_MAX - t ? CHART_MAX : t + cell[b * ns + s];
                ymax = t > ymax ? t : ymax;
        }
        long long step = nice_step(ymax), top = (ymax + step - 1) / step * step;
        double pw = CHART_W - CHART_L - CHART_R, ph = CHART_H - CHART_T - CHART_B;
        double slot = pw / (double)nbins, bw = slot * 0.78 > 44 ? 44 : slot * 0.78;
        const char *unit = per == 1 ? "day" : "period";

        fprintf(f,
                "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"chart-%zu-t\" "
                "data-group=\"%zu\" data-days-per-bar=\"%lld\">\n"
                "<title id=\"chart-%zu-t\">Crashes per UTC %s%s, by package version</title>\n",
                CHART_W, CHART_H, gi, gi, per, gi, unit, per == 1 ? "" : " (several days per bar)");
        /* The y axis: grid lines and their numbers, and its title. */
        for (long long y = 0; y <= top; y += step) {
                double py = CHART_T + ph - ph * (double)y / (double)top;
                fprintf(f,
                        "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%lld</text>\n",
                        CHART_L, CHART_W - CHART_R, py, py, CHART_L - 6, py, y);
        }
        if (per == 1)
                fprintf(f, "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">crashes "
                           "per day</text>\n",
                        CHART_T + ph / 2);
        else
                fprintf(f, "<text class=\"axis\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">crashes "
                           "per %lld days</text>\n",
                        CHART_T + ph / 2, per);
        /* The bars, stacked from the oldest version up. */
        for (size_t b = 0; b < nbins; b++) {
                double x = CHART_L + slot * (double)b + (slot - bw) / 2, y = CHART_T + ph;
                char d0[16], d1[16];
                day_text(start + (long long)b * per, d0, sizeof d0);
                day_text(start + (long long)(b + 1) * per - 1, d1, sizeof d1);
                for (size_t s = 0; s < ns; s++) {
                        long long n = cell[b * ns + s];
                        if (n == 0)
                                continue;
                        double h = ph * (double)n / (double)top;
                        if (h > y - CHART_T)
                                h = y - CHART_T;
                        y -= h;
                        const char *v = s < nv ? jstr(json_array_get(versions, s), "version") : NULL;
                        fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                                   "data-group=\"%zu\" data-day=\"%s\" data-version=\"",
                                x, y, bw, h, series_colour(s, nv), gi, d0);
                        if (v)
                                esc(f, v);
                        fprintf(f, "\" data-count=\"%lld\"><title>%s%s%s: ", n, d0, per == 1 ? "" : " \u2013 ",
                                per == 1 ? "" : d1);
                        if (v)
                                esc(f, v);
                        else
                                fputs("other version", f);
                        fprintf(f, ": %lld crash%s</title></rect>\n", n, n == 1 ? "" : "es");
                }
        }
        /* The x axis: its line, up to seven dates, and its title. */
        fprintf(f, "<line class=\"axisline\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", CHART_L,
                CHART_W - CHART_R, CHART_T + ph, CHART_T + ph);
        size_t every = (nbins + 6) / 7;
        for (size_t b = 0; b < nbins; b += every) {
                char d0[16];
                day_text(start + (long long)b * per, d0, sizeof d0);
                double x = CHART_L + slot * ((double)b + 0.5);
                fprintf(f,
                        "<line class=\"axisline\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                        x, x, CHART_T + ph, CHART_T + ph + 4, x, CHART_T + ph + 17, d0);
        }
        fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">UTC %s</text>\n",
                CHART_L + pw / 2, CHART_H - 8, per == 1 ? "day" : "days (first day of each bar)");
        fputs("</svg>\n", f);

        /* The legend: each version's colour, name and count. */
        fputs("<ul class=\"legend\">\n", f);
        bool other = false;
        size_t fold = grey_below(nv);
        for (size_t b = 0; b < nbins; b++)
                other |= cell[b * ns + nv] != 0;
        for (size_t s = fold; s < ns; s++) {
                if (s == nv && !other && fold == 0)
                        break;
                fprintf(f, "<li><span class=\"swatch\" style=\"background:%s\"></span>", series_colour(s, nv));
                if (s == nv && fold > 0)
                        fprintf(f, "%zu older%s versions", fold, other ? " or unknown" : "");
                else if (s < nv) {
                        const json_t *v = json_array_get(versions, s);
                        put_str_or_dash(f, jstr(v, "version"));
                        long long n;
                        if (jint(v, "count", &n))
                                fprintf(f, " <span class=\"muted\">(%lld)</span>", n);
                } else
                        fputs("unknown version", f);
                fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
        free(cell);
        return 0;
}

/* ------------------------------------------------------------ the page */

static const char style[] =
        ":root{--fg:#1d2330;--muted:#5f6b7a;--line:#dde2ea;--bg:#f5f7fa;--card:#fff;--accent:#2c5bd0}\n"
        "*{box-sizing:border-box}\n"
        "body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,'Segoe UI',"
        "'DejaVu Sans',sans-serif}\n"
        "main{max-width:1120px;margin:0 auto;padding:24px 20px 48px}\n"
        "h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:0}h3{font-size:15px;margin:20px 0 8px;"
        "color:var(--muted);text-transform:uppercase;letter-spacing:.04em}\n"
        "a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}\n"
        "code,.key,.mono{font-family:'DejaVu Sans Mono',ui-monospace,Menlo,Consolas,monospace;font-size:13px}\n"
        ".key{overflow-wrap:anywhere}\nh2.key{font-size:17px;font-weight:600}\n"
        ".summary{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0 24px}\n"
        ".stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 16px;"
        "min-width:130px}\n"
        ".stat .label{display:block;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}\n"
        ".stat .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}\n"
        ".stat .value time{font-size:15px;font-weight:500}\n"
        "table{border-collapse:collapse;width:100%;background:var(--card)}\n"
        "th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
        "th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;font-weight:600}\n"
        "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
        "td.t{white-space:nowrap;font-variant-numeric:tabular-nums}\n"
        ".overview{border:1px solid var(--line);border-radius:8px;overflow:hidden}\n"
        ".meter{display:inline-block;height:8px;background:var(--accent);border-radius:4px;vertical-align:middle;"
        "margin-left:8px;opacity:.75}\n"
        ".group{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;"
        "margin:24px 0}\n"
        ".group header{display:flex;gap:14px;align-items:baseline;flex-wrap:wrap}\n"
        ".rank{color:var(--muted);font-weight:600}\n"
        ".facts{display:flex;flex-wrap:wrap;gap:6px 22px;margin:10px 0 4px;color:var(--muted)}\n"
        ".facts b{color:var(--fg);font-variant-numeric:tabular-nums}\n"
        ".badge{display:inline-block;background:#e7f6ec;color:#17683a;border:1px solid #b6e2c4;border-radius:12px;"
        "padding:1px 10px;font-size:13px}\n"
        ".none,.muted{color:var(--muted)}\n"
        ".sec{color:var(--muted)}\n"
        ".cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:24px}\n"
        "@media (max-width:800px){.cols{grid-template-columns:1fr}}\n"
        "figure{margin:8px 0 0}\n"
        "svg.chart{width:100%;max-width:760px;height:auto;display:block;font-family:inherit}\n"
        "svg .grid{stroke:#e8ebf0;stroke-width:1}svg .axisline{stroke:#8a94a3;stroke-width:1}\n"
        "svg .tick{font-size:11px;fill:#5f6b7a;font-variant-numeric:tabular-nums}\n"
        "svg .axis{font-size:12px;fill:#1d2330}\n"
        "svg .bar{stroke:#fff;stroke-width:.5}\n"
        ".legend{list-style:none;margin:6px 0 0;padding:0 0 0 56px;display:flex;flex-wrap:wrap;gap:4px 18px;"
        "font-size:13px}\n"
        ".swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;"
        "vertical-align:-1px}\n"
        "table.fields td:first-child{color:var(--muted);white-space:nowrap;width:1%}\n"
        "table.fields td{overflow-wrap:anywhere}\n.cols td.mono{font-size:12px;overflow-wrap:anywhere}\n.cols .sec{display:none}\n"
        "footer{color:var(--muted);font-size:13px;margin-top:32px}\n";

static void put_head(FILE *f, const json_t *doc) {
        /* The policy: nothing is fetched, no script runs; only the
         * page's own style applies. */
        fprintf(f,
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta name=\"generator\" content=\"pkgnote list --group --format html\">\n"
                "<title>Crash groups");
        long long crashes, groups;
        if (jint(doc, "crashes", &crashes) && jint(doc, "groupCount", &groups))
                fprintf(f, ": %lld crash%s in %lld group%s", crashes, crashes == 1 ? "" : "es", groups, groups == 1 ? "" : "s");
        fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

/* A package of a report ({type, name, version, architecture, ...}) as
 * "NAME VERSION (TYPE, ARCHITECTURE)"; 0, or -1 when it has no name. */
static int put_package(FILE *f, const json_t *p) {
        const char *name = jstr(p, "name"), *version = jstr(p, "version"), *type = jstr(p, "type"),
                   *arch = jstr(p, "architecture");
        if (!name)
                return -1;
        esc_bounded(f, name, strlen(name));
        if (version) {
                fputs(" <span class=\"mono\">", f);
                esc_bounded(f, version, strlen(version));
                fputs("</span>", f);
        }
        if (type || arch) {
                fputs(" <span class=\"muted\">(", f);
                if (type)
                        esc_bounded(f, type, strlen(type));
                fputs(type && arch ? ", " : "", f);
                if (arch)
                        esc_bounded(f, arch, strlen(arch));
                fputs(")</span>", f);
        }
        return 0;
}

static void put_stat(FILE *f, const char *label, const json_t *doc, const char *k, bool time) {
        fprintf(f, "<div class=\"stat\"><span class=\"label\">%s</span><span class=\"value\">", label);
        if (time)
                put_opt_time(f, doc, k, "");
        else
                put_num(f, doc, k, "");
        fputs("</span></div>\n", f);
}

static void put_summary(FILE *f, const json_t *doc, size_t n_groups) {
        const char *by = jstr(doc, "groupBy");
        fputs("<h1>Crash groups</h1>\n<p class=\"muted\">Crashes grouped by <b data-field=\"groupBy\">", f);
        put_str_or_dash(f, by);
        long long total;
        fprintf(f, "</b>; %zu group%s shown", n_groups, n_groups == 1 ? "" : "s");
        if (jint(doc, "groupCount", &total) && total > (long long)n_groups)
                fprintf(f, " of %lld", total);
        fputs(". Times are UTC.</p>\n<div class=\"summary\">\n", f);
        put_stat(f, "Crashes", doc, "crashes", false);
        put_stat(f, "Groups", doc, "groupCount", false);
        put_stat(f, "Machines", doc, "machineCount", false);
        put_stat(f, "First crash", doc, "first", true);
        put_stat(f, "Last crash", doc, "last", true);
        fputs("</div>\n", f);
}

static void put_overview(FILE *f, const json_t *groups) {
        size_t n = json_array_size(groups);
        if (n == 0) {
                fputs("<p class=\"none\">No crashes.</p>\n", f);
                return;
        }
        long long most = 1;
        for (size_t i = 0; i < n; i++) {
                long long c;
                if (jint(json_array_get(groups, i), "count", &c) && c > most)
                        most = c;
        }
        fputs("<div class=\"overview\"><table>\n<thead><tr><th class=\"n\">#</th><th>Group</th><th>Package</th>"
              "<th class=\"n\">Crashes</th><th class=\"n\">Machines</th><th class=\"n\">Versions</th>"
              "<th>First</th><th>Last</th></tr></thead>\n<tbody>\n",
              f);
        for (size_t i = 0; i < n && i < LIST_HTML_MAX_OVERVIEW; i++) {
                const json_t *g = json_array_get(groups, i);
                char attrs[64];
                snprintf(attrs, sizeof attrs, "data-group=\"%zu\"", i);
                fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"key\">", i + 1);
                if (i < LIST_HTML_MAX_DETAIL)
                        fprintf(f, "<a href=\"#group-%zu\">", i);
                put_str_or_dash(f, jstr(g, "key"));
                fputs(i < LIST_HTML_MAX_DETAIL ? "</a></td><td>" : "</td><td>", f);
                put_str_or_dash(f, jstr(g, "package"));
                fputs("</td><td class=\"n\">", f);
                put_num(f, g, "count", attrs);
                long long c;
                if (jint(g, "count", &c) && c > 0)
                        fprintf(f, "<span class=\"meter\" style=\"width:%.0fpx\"></span>", 4 + 56.0 * (double)c / (double)most);
                fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"t\">",
                        jcount(g, "machines"), jcount(g, "versions"));
                put_opt_time(f, g, "first", attrs);
                fputs("</td><td class=\"t\">", f);
                put_opt_time(f, g, "last", attrs);
                fputs("</td></tr>\n", f);
        }
        if (n > LIST_HTML_MAX_OVERVIEW)
                fprintf(f, "<tr><td colspan=\"8\" class=\"muted\">and %zu smaller groups (--json lists them all, --top "
                           "fewer)</td></tr>\n",
                        n - LIST_HTML_MAX_OVERVIEW);
        fputs("</tbody></table></div>\n", f);
}

static void put_more(FILE *f, size_t n, size_t shown, const char *what, int cols) {
        if (n > shown)
                fprintf(f, "<tr><td colspan=\"%d\" class=\"muted\">and %zu more %s</td></tr>\n", cols, n - shown, what);
}

static void put_versions(FILE *f, const json_t *g, size_t gi) {
        const json_t *vs = json_object_get(g, "versions");
        size_t n = json_array_size(vs);
        fputs("<div><h3>Package versions</h3>\n<table>\n<thead><tr><th>Version</th><th class=\"n\">Crashes</th>"
              "<th>First</th><th>Last</th></tr></thead>\n<tbody>\n",
              f);
        for (size_t j = 0; j < n && j < LIST_HTML_MAX_ROWS; j++) {
                const json_t *v = json_array_get(vs, j);
                char attrs[80];
                snprintf(attrs, sizeof attrs, "data-group=\"%zu\" data-version=\"%zu\"", gi, j);
                fprintf(f, "<tr><td class=\"mono\"><span class=\"swatch\" style=\"background:%s\"></span>",
                        series_colour(j, n < LIST_HTML_MAX_ROWS ? n : LIST_HTML_MAX_ROWS));
                put_str_or_dash(f, jstr(v, "version"));
                fputs("</td><td class=\"n\">", f);
                put_num(f, v, "count", attrs);
                fputs("</td><td class=\"t\">", f);
                put_opt_time(f, v, "first", attrs);
                fputs("</td><td class=\"t\">", f);
                put_opt_time(f, v, "last", attrs);
                fputs("</td></tr>\n", f);
        }
        if (n == 0)
                fputs("<tr><td colspan=\"4\" class=\"none\">No package version recorded.</td></tr>\n", f);
        put_more(f, n, LIST_HTML_MAX_ROWS, "versions", 4);
        fputs("</tbody></table></div>\n", f);
}

static void put_machines(FILE *f, const json_t *g, size_t gi) {
        const json_t *ms = json_object_get(g, "machines");
        size_t n = json_array_size(ms);
        fputs("<div><h3>Machines</h3>\n<table>\n<thead><tr><th>Host</th><th>Machine ID</th>"
              "<th class=\"n\">Crashes</th><th>Last</th></tr></thead>\n<tbody>\n",
              f);
        for (size_t j = 0; j < n && j < LIST_HTML_MAX_ROWS; j++) {
                const json_t *m = json_array_get(ms, j);
                char attrs[80];
                snprintf(attrs, sizeof attrs, "data-group=\"%zu\" data-machine=\"%zu\"", gi, j);
                fputs("<tr><td>", f);
                put_str_or_dash(f, jstr(m, "hostname"));
                fputs("</td><td class=\"mono\">", f);
                put_str_or_dash(f, jstr(m, "machineId"));
                fputs("</td><td class=\"n\">", f);
                put_num(f, m, "count", attrs);
                fputs("</td><td class=\"t\">", f);
                put_opt_time(f, m, "last", attrs);
                fputs("</td></tr>\n", f);
        }
        if (n == 0)
                fputs("<tr><td colspan=\"4\" class=\"none\">No machine recorded.</td></tr>\n", f);
        put_more(f, n, LIST_HTML_MAX_ROWS, "machines", 4);
        fputs("</tbody></table></div>\n", f);
}

/* A member of a report, as text: strings as they are, the rest as
 * compact JSON.  0 or -ENOMEM. */
static int put_value(FILE *f, const json_t *v) {
        if (json_is_string(v)) {
                esc_bounded(f, json_string_value(v), json_string_length(v));
                return 0;
        }
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
        if (!s)
                return -ENOMEM;
        esc_bounded(f, s, strlen(s));
        free(s);
        return 0;
}

static int put_example(FILE *f, const json_t *g, size_t gi) {
        const json_t *ex = json_object_get(g, "example");
        if (!json_is_object(ex))
                return 0;
        fprintf(f, "<h3>Example crash</h3>\n<table class=\"fields\" data-group=\"%zu\" data-field=\"example\">\n<tbody>\n",
                gi);
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)ex, k, v) {
                fputs("<tr><td>", f);
                esc(f, k);
                fputs("</td><td>", f);
                if (!strcmp(k, "time") && json_is_integer(v))
                        put_time(f, (long long)json_integer_value(v), "class=\"t\"");
                else if (!strcmp(k, "package") && json_is_object(v) && put_package(f, v) == 0)
                        ;
                else if (put_value(f, v) < 0)
                        return -ENOMEM;
                fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
        return 0;
}

/* The modules of the example's core and their packages (the core's report,
 * pkgnote_core_to_json()): a module's package note, else what the package
 * database says of it, and which of the two (packageFrom). */
static void put_modules(FILE *f, const char *report, size_t gi) {
        json_t *c = report ? json_loads(report, 0, NULL) : NULL;
        const json_t *mods = json_object_get(c, "modules");
        size_t n = json_array_size(mods);
        if (n > 0) {
                fprintf(f, "<h3>Modules of the example&#39;s core</h3>\n<table data-group=\"%zu\" data-field=\"modules\">\n"
                           "<thead><tr><th>Module</th><th>Package</th><th>Version</th><th>From</th><th>Build ID</th></tr>"
                           "</thead>\n"
                           "<tbody>\n",
                        gi);
                for (size_t j = 0; j < n && j < LIST_HTML_MAX_MODULES; j++) {
                        const json_t *m = json_array_get(mods, j), *p = json_array_get(json_object_get(m, "packages"), 0);
                        if (!p)
                                p = json_object_get(m, "dbPackage");
                        fputs("<tr><td class=\"mono key\">", f);
                        put_str_or_dash(f, jstr(m, "path"));
                        fputs("</td><td>", f);
                        put_str_or_dash(f, jstr(p, "name"));
                        fputs("</td><td class=\"mono\">", f);
                        put_str_or_dash(f, jstr(p, "version"));
                        fputs("</td><td class=\"muted\">", f);
                        put_str_or_dash(f, jstr(m, "packageFrom"));
                        fputs("</td><td class=\"mono key\">", f);
                        put_str_or_dash(f, jstr(m, "buildId"));
                        fputs("</td></tr>\n", f);
                }
                put_more(f, n, LIST_HTML_MAX_MODULES, "modules", 5);
                fputs("</tbody></table>\n", f);
        }
        json_decref(c);
}

static int put_group(FILE *f, const json_t *g, size_t gi, const char *core) {
        char attrs[64];
        snprintf(attrs, sizeof attrs, "data-group=\"%zu\"", gi);
        fprintf(f, "<section class=\"group\" id=\"group-%zu\" data-group=\"%zu\">\n<header><span class=\"rank\">#%zu</span>"
                   "<h2 class=\"key\" data-group=\"%zu\" data-field=\"key\">",
                gi, gi, gi + 1, gi);
        put_str_or_dash(f, jstr(g, "key"));
        fputs("</h2>", f);
        const char *nss = jstr(g, "notSeenSince");
        if (nss) {
                fprintf(f, "<span class=\"badge\" %s data-field=\"notSeenSince\" title=\"no crash since this later version "
                           "was first seen\">not seen since ",
                        attrs);
                esc(f, nss);
                fputs("</span>", f);
        }
        fputs("</header>\n<div class=\"facts\"><span><b>", f);
        put_num(f, g, "count", attrs);
        long long n;
        fprintf(f, "</b> crash%s</span>", jint(g, "count", &n) && n == 1 ? "" : "es");
        if (jint(g, "boots", &n)) {
                fputs("<span><b>", f);
                put_num(f, g, "boots", attrs);
                fprintf(f, "</b> boot%s</span>", n == 1 ? "" : "s");
        }
        fprintf(f, "<span><b>%zu</b> machine%s</span><span>package <b>", jcount(g, "machines"),
                jcount(g, "machines") == 1 ? "" : "s");
        put_str_or_dash(f, jstr(g, "package"));
        fputs("</b></span><span>first <b>", f);
        put_opt_time(f, g, "first", attrs);
        fputs("</b></span><span>last <b>", f);
        put_opt_time(f, g, "last", attrs);
        fputs("</b></span>", f);
        if (jstr(g, "hash")) {
                fprintf(f, "<span>hash <code %s data-field=\"hash\">", attrs);
                esc(f, jstr(g, "hash"));
                fputs("</code></span>", f);
        }
        fputs("</div>\n<figure>\n", f);
        if (put_chart(f, g, gi) < 0)
                return -ENOMEM;
        fputs("</figure>\n<div class=\"cols\">\n", f);
        put_versions(f, g, gi);
        put_machines(f, g, gi);
        fputs("</div>\n", f);
        if (put_example(f, g, gi) < 0)
                return -ENOMEM;
        put_modules(f, core, gi);
        fputs("</section>\n", f);
        return 0;
}

static int bad(char *why, size_t why_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t why_len, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (why_len > 0)
                vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
        return -EBADMSG;
}

/* What the page needs of the document: an object with an array "groups"
 * of objects each with a string "key" and a whole "count"; every other
 * member is shown when it has its type and left out when not. */
static int check(const json_t *doc, char *why, size_t why_len) {
        if (!json_is_object(doc))
                return bad(why, why_len, "not a crash-group document: not a JSON object");
        const json_t *groups = json_object_get(doc, "groups");
        if (!json_is_array(groups))
                return bad(why, why_len, "not a crash-group document: no array \"groups\"");
        for (size_t i = 0; i < json_array_size(groups); i++) {
                const json_t *g = json_array_get(groups, i);
                long long c;
                if (!json_is_object(g) || !jstr(g, "key") || !jint(g, "count", &c) || c < 0)
                        return bad(why, why_len, "not a crash-group document: group %zu has no key or count", i);
        }
        return 0;
}

int list_html_render(const char *doc, size_t len, const char *const *cores, size_t n_cores, char **ret,
                     size_t *ret_len, char *why, size_t why_len) {
        json_error_t e;
        json_t *d = json_loadb(doc, len, JSON_REJECT_DUPLICATES, &e);
        if (!d)
                return bad(why, why_len, "not a crash-group document: line %d: %s", e.line, e.text);
        int r = check(d, why, why_len);
        if (r < 0) {
                json_decref(d);
                return r;
        }
        /* The chart's coordinates are numbers of SVG, whatever locale the
         * caller runs in: a decimal point, never a comma. */
        locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        char *buf = NULL;
        size_t size = 0;
        FILE *f = c ? open_memstream(&buf, &size) : NULL;
        if (!f) {
                if (c)
                        freelocale(c);
                json_decref(d);
                return -ENOMEM;
        }
        locale_t old = uselocale(c);
        const json_t *groups = json_object_get(d, "groups");
        size_t n = json_array_size(groups);
        put_head(f, d);
        put_summary(f, d, n);
        put_overview(f, groups);
        for (size_t i = 0; r == 0 && i < n && i < LIST_HTML_MAX_DETAIL; i++)
                r = put_group(f, json_array_get(groups, i), i, cores && i < n_cores ? cores[i] : NULL);
        if (n > LIST_HTML_MAX_DETAIL)
                fprintf(f, "<p class=\"muted\">The first %d groups are shown in detail; the others are in the table above.</p>\n",
                        LIST_HTML_MAX_DETAIL);
        fputs("<footer>Made by <code>pkgnote list --group --format html</code>. The page fetches nothing and runs "
              "no script.</footer>\n</main>\n</body>\n</html>\n",
              f);
        json_decref(d);
        bool failed = ferror(f) != 0;
        uselocale(old);
        freelocale(c);
        if (fclose(f) != 0 || failed || r < 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = size;
        return 0;
}
