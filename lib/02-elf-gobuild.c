/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The build information of a Go program, found where Go's own reader
 * (debug/buildinfo) finds it: the ".go.buildinfo" section, or, without
 * section headers, the start of the first writable PT_LOAD segment,
 * searched in steps of 16 bytes over its first 64 KiB.  There a 32-byte
 * header begins with "\xff Go buildinf:", then the pointer size (4 or 8)
 * and a flags byte: bit 1 set (Go 1.18 and later), the toolchain version
 * and the module text follow inline, each a uvarint length and its
 * bytes; clear (Go 1.13 to 1.17), two pointers (in the byte order bit 0
 * gives: set, big-endian) at offsets 16 and 16 + pointer size address Go
 * string headers (data pointer, length) of the same two strings, found
 * through the PT_LOAD segments that map them.  The module text is framed
 * by 16 bytes on each side (cmd/go's sentinels), which are taken off
 * when the text is long enough and its 17th byte from the end is a
 * newline; otherwise the program carries no module information.
 *
 * Every length is checked against the bytes there and the limits in the
 * header: a hostile blob can neither read past what the file holds nor
 * make the reader loop or allocate without bound.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "02-elf-const.h"
#include "02-elf-gobuild.h"
#include "02-elf-view.h"

#define MAGIC "\xff Go buildinf:"
#define MAGIC_LEN 14u
#define HEADER 32u
#define ALIGN 16u
#define SEARCH (64u << 10) /* bytes of the data segment searched */

/* ------------------------------------------------------------------ */
/* The module text                                                     */

static void module_done(struct pn_go_module *m) {
        free(m->path);
        free(m->version);
        free(m->sum);
        if (m->replace) {
                module_done(m->replace);
                free(m->replace);
        }
        *m = (struct pn_go_module){0};
}

void pn_go_build_done(struct pn_go_build *b) {
        free(b->go_version);
        free(b->path);
        module_done(&b->main);
        for (size_t i = 0; i < b->n_deps; i++)
                module_done(&b->deps[i]);
        free(b->deps);
        for (size_t i = 0; i < b->n_settings; i++) {
                free(b->settings[i].key);
                free(b->settings[i].value);
        }
        free(b->settings);
        *b = (struct pn_go_build){0};
}

/* Splits LINE (LEN bytes) at tabs into at most MAX fields: their count,
 * or MAX + 1 when there are more. */
static size_t split_tabs(const char *line, size_t len, const char **f, size_t *fl, size_t max) {
        size_t n = 0, start = 0;
        for (size_t i = 0; i <= len; i++) {
                if (i < len && line[i] != '\t')
                        continue;
                if (n == max)
                        return max + 1;
                f[n] = line + start, fl[n] = i - start, n++;
                start = i + 1;
        }
        return n;
}

static int module_fill(struct pn_go_module *m, const char *const *f, const size_t *fl, size_t n) {
        m->path = strndup(f[0], fl[0]);
        m->version = strndup(f[1], fl[1]);
        m->sum = n == 3 ? strndup(f[2], fl[2]) : strdup("");
        return m->path && m->version && m->sum ? 0 : pn_oom();
}

/* The length of the valid UTF-8 sequence at P (AVAIL bytes), or 0, as
 * Go's utf8.DecodeRune tells one: no overlong forms, surrogates or code
 * points past U+10FFFF. */
static size_t utf8_len(const unsigned char *p, size_t avail) {
        unsigned c = p[0];
        size_t k = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
        if (!k || k > avail)
                return 0;
        uint32_t cp = k == 4 ? c & 7 : k == 3 ? c & 15 : c & 31;
        for (size_t j = 1; j < k; j++) {
                if ((p[j] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (p[j] & 0x3f);
        }
        if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
                return 0;
        return k;
}

/* Go's strconv.Unquote of the "..." or `...` literal at S (at most LEN
 * bytes), into a malloc()ed *RET; *USED the bytes of the literal.  Only
 * what strconv.Quote writes is taken: the escapes \a \b \f \n \r \t \v
 * \\ \" \xHH \uHHHH \UHHHHHHHH and octal \NNN.  As Go's: a raw string
 * drops its carriage returns, and in a "..." one each byte that begins
 * no valid UTF-8 sequence becomes U+FFFD. */
static int unquote(const char *s, size_t len, char **ret, size_t *used) {
        char q = s[0];
        if (len > SIZE_MAX / 3 - 1)
                return pn_error(-E2BIG, "Go build information: a quoted build setting of %zu bytes", len);
        char *out = malloc(3 * len + 1); /* U+FFFD takes 3 bytes for 1 */
        if (!out)
                return pn_oom();
        size_t o = 0, i = 1;
        for (;; i++) {
                if (i >= len) {
                        free(out);
                        return pn_error(-EBADMSG, "Go build information: a quoted build setting is not closed");
                }
                unsigned char c = (unsigned char)s[i];
                if (c == (unsigned char)q)
                        break;
                if (q == '`') {
                        if (c != '\r')
                                out[o++] = (char)c;
                        continue;
                }
                if (c >= 0x80) {
                        size_t k = utf8_len((const unsigned char *)s + i, len - i);
                        if (k) {
                                memcpy(out + o, s + i, k);
                                o += k, i += k - 1;
                        } else
                                memcpy(out + o, "\xef\xbf\xbd", 3), o += 3;
                        continue;
                }
                if (c != '\\') {
                        if (c == '\n')
                                break; /* refused below */
                        out[o++] = (char)c;
                        continue;
                }
                if (++i >= len)
                        break;
                /* \' is a rune literal's escape, not a string's */
                static const char esc[] = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"";
                const char *m = strchr(esc, s[i]);
                if (m && (m - esc) % 2 == 0 && s[i]) {
                        out[o++] = m[1];
                        continue;
                }
                unsigned digits = s[i] == 'x' ? 2 : s[i] == 'u' ? 4 : s[i] == 'U' ? 8 : s[i] >= '0' && s[i] <= '7' ? 3 : 0;
                unsigned base = s[i] >= '0' && s[i] <= '7' ? 8 : 16;
                size_t at = base == 8 ? i : i + 1;
                if (!digits || at + digits > len)
                        break;
                uint32_t v = 0;
                size_t k = 0;
                for (; k < digits; k++) {
                        char d = s[at + k];
                        int x = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10 : d >= 'A' && d <= 'F' ? d - 'A' + 10 : 99;
                        if (x >= (int)base)
                                break;
                        v = v * base + (uint32_t)x;
                }
                /* a NUL would cut the value short: refused, as a raw one is */
                if (k < digits || (digits <= 3 && v > 255) || v > 0x10ffff || (v >= 0xd800 && v < 0xe000) || v == 0)
                        break;
                i = at + digits - 1;
                if (digits <= 3)
                        out[o++] = (char)v; /* a byte, as Go's \x and octal escapes are */
                else if (v < 0x80)
                        out[o++] = (char)v;
                else if (v < 0x800)
                        out[o++] = (char)(0xc0 | v >> 6), out[o++] = (char)(0x80 | (v & 0x3f));
                else if (v < 0x10000)
                        out[o++] = (char)(0xe0 | v >> 12), out[o++] = (char)(0x80 | (v >> 6 & 0x3f)),
                        out[o++] = (char)(0x80 | (v & 0x3f));
                else
                        out[o++] = (char)(0xf0 | v >> 18), out[o++] = (char)(0x80 | (v >> 12 & 0x3f)),
                        out[o++] = (char)(0x80 | (v >> 6 & 0x3f)), out[o++] = (char)(0x80 | (v & 0x3f));
        }
        if (i >= len || (unsigned char)s[i] != (unsigned char)q) {
                free(out);
                return pn_error(-EBADMSG, "Go build information: a build setting is not a valid quoted string");
        }
        out[o] = 0;
        *ret = out, *used = i + 1;
        return 0;
}

/* Whether the LEN bytes at S hold a byte that BuildInfo.String() quotes
 * (its quoteKey() and quoteValue(), '=' aside): Go's parser refuses the
 * build information when such a key or value is not quoted. */
static bool needs_quotes(const char *s, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (strchr(" \t\r\n\"`", s[i]) && s[i])
                        return true;
        return false;
}

/* "build\t" KEY=VALUE, either part maybe quoted, as Go's
 * runtime/debug.ParseBuildInfo() reads it. */
static int setting_parse(const char *kv, size_t len, struct pn_go_build *b, size_t *cap) {
        if (b->n_settings >= PN_GO_MAX_SETTINGS)
                return pn_error(-E2BIG, "Go build information: more than %u build settings", PN_GO_MAX_SETTINGS);
        if (!len || kv[0] == '=')
                return pn_error(-EBADMSG, "Go build information: a build setting without a key");
        char *key = NULL, *value = NULL;
        size_t at;
        int r = 0;
        if (kv[0] == '"' || kv[0] == '`') {
                if ((r = unquote(kv, len, &key, &at)) < 0)
                        return r;
                if (at >= len || kv[at] != '=') {
                        free(key);
                        return pn_error(-EBADMSG, "Go build information: a quoted build setting key without '='");
                }
        } else {
                const char *eq = memchr(kv, '=', len);
                if (!eq)
                        return pn_error(-EBADMSG, "Go build information: a build setting without '='");
                at = (size_t)(eq - kv);
                if (needs_quotes(kv, at))
                        return pn_error(-EBADMSG, "Go build information: a build setting key that must be quoted is not");
                if (!(key = strndup(kv, at)))
                        return pn_oom();
        }
        const char *v = kv + at + 1;
        size_t vl = len - at - 1;
        if (vl && (v[0] == '"' || v[0] == '`')) {
                size_t used;
                r = unquote(v, vl, &value, &used);
                if (r == 0 && used != vl) {
                        free(value);
                        value = NULL;
                        r = pn_error(-EBADMSG, "Go build information: bytes after a quoted build setting");
                }
        } else if (needs_quotes(v, vl))
                r = pn_error(-EBADMSG, "Go build information: a build setting value that must be quoted is not");
        else if (!(value = strndup(v, vl)))
                r = pn_oom();
        if (r == 0 && PN_GROW(b->settings, *cap, b->n_settings + 1) < 0)
                r = -ENOMEM;
        if (r < 0) {
                free(key);
                free(value);
                return r;
        }
        b->settings[b->n_settings++] = (struct pn_go_setting){key, value};
        return 0;
}

int pn_go_modinfo_parse(const char *mod, size_t len, struct pn_go_build *b) {
        if (len > PN_GO_MAX_MODINFO)
                return pn_error(-E2BIG, "Go build information: module text of %zu bytes (at most %u)", len,
                                PN_GO_MAX_MODINFO);
        struct pn_go_module *last = NULL;
        size_t cap_deps = 0, cap_settings = 0;
        int r = 0;
        for (size_t pos = 0; r == 0 && pos < len;) {
                const char *nl = memchr(mod + pos, '\n', len - pos);
                /* a last line without its newline is passed over, as Go's
                 * parser (strings.Cut on each "\n") does */
                if (!nl)
                        break;
                const char *line = mod + pos;
                size_t ll = (size_t)(nl - line);
                pos += ll + 1;
                const char *f[4];
                size_t fl[4], n;
#define PREFIX(p) (ll >= sizeof(p) - 1 && !memcmp(line, p, sizeof(p) - 1))
                /* a NUL would cut a kept string short: refused there (Go
                 * keeps it); in a line passed over it does no harm */
                if ((PREFIX("path\t") || PREFIX("mod\t") || PREFIX("dep\t") || PREFIX("=>\t") || PREFIX("build\t")) &&
                    memchr(line, 0, ll))
                        return pn_error(-EBADMSG, "Go build information: a NUL byte in the module text");
                if (PREFIX("go\t")) {
                        /* the toolchain, as BuildInfo.String() writes it: the header's is kept */
                } else if (PREFIX("path\t")) {
                        /* an empty one is none: BuildInfo.String() leaves it out */
                        free(b->path);
                        b->path = NULL;
                        if (ll > 5 && !(b->path = strndup(line + 5, ll - 5)))
                                return pn_oom();
                } else if (PREFIX("mod\t") || PREFIX("dep\t")) {
                        n = split_tabs(line + 4, ll - 4, f, fl, 3);
                        if (n != 2 && n != 3)
                                return pn_error(-EBADMSG, "Go build information: a module line of %s columns (2 or 3)",
                                                n > 3 ? "more than 3" : "1");
                        if (line[0] == 'm') {
                                module_done(&b->main);
                                last = &b->main;
                        } else {
                                if (b->n_deps >= PN_GO_MAX_MODULES)
                                        return pn_error(-E2BIG, "Go build information: more than %u modules",
                                                        PN_GO_MAX_MODULES);
                                if (PN_GROW(b->deps, cap_deps, b->n_deps + 1) < 0)
                                        return -ENOMEM;
                                last = &b->deps[b->n_deps++];
                                *last = (struct pn_go_module){0};
                        }
                        r = module_fill(last, f, fl, n);
                } else if (PREFIX("=>\t")) {
                        n = split_tabs(line + 3, ll - 3, f, fl, 3);
                        if (n != 3)
                                return pn_error(-EBADMSG, "Go build information: a replacement line of %s columns (3)",
                                                n > 3 ? "more than 3" : n == 2 ? "2" : "1");
                        if (!last)
                                return pn_error(-EBADMSG, "Go build information: a replacement of no module");
                        if (!(last->replace = calloc(1, sizeof *last->replace)))
                                return pn_oom();
                        r = module_fill(last->replace, f, fl, n);
                        last = NULL;
                } else if (PREFIX("build\t")) {
                        r = setting_parse(line + 6, ll - 6, b, &cap_settings);
                }
                /* other lines are passed over, as Go's parser does */
#undef PREFIX
        }
        /* a "mod" line of empty fields leaves Go's Main the zero Module,
         * which BuildInfo.String() does not print: no main module */
        if (r == 0 && b->main.path && !b->main.path[0] && !b->main.version[0] && !b->main.sum[0] && !b->main.replace)
                module_done(&b->main);
        return r;
}

/* ------------------------------------------------------------------ */
/* Formatting, as BuildInfo.String() writes it                         */

struct buf {
        char *p;
        size_t n, cap;
        bool oom;
};

static void put(struct buf *b, const char *s, size_t len) {
        if (b->oom || PN_GROW(b->p, b->cap, b->n + len + 1) < 0) {
                b->oom = true;
                return;
        }
        memcpy(b->p + b->n, s, len);
        b->n += len;
        b->p[b->n] = 0;
}

static void puts_(struct buf *b, const char *s) {
        put(b, s, strlen(s));
}

/* strconv.Quote(S): printable ASCII and valid printable UTF-8 as it is. */
static void put_quoted(struct buf *b, const char *s) {
        put(b, "\"", 1);
        for (const unsigned char *p = (const unsigned char *)s; *p;) {
                char tmp[16];
                unsigned c = *p;
                if (c == '"' || c == '\\') {
                        tmp[0] = '\\', tmp[1] = (char)c;
                        put(b, tmp, 2);
                        p++;
                        continue;
                }
                if (c >= 0x20 && c < 0x7f) {
                        put(b, (const char *)p, 1);
                        p++;
                        continue;
                }
                static const char names[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
                const char *m = c ? strchr(names, (int)c) : NULL;
                if (m) {
                        tmp[0] = '\\', tmp[1] = letters[m - names];
                        put(b, tmp, 2);
                        p++;
                        continue;
                }
                /* a valid UTF-8 sequence of a printable character is kept;
                 * anything else is a \x escape of its byte */
                size_t k = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
                uint32_t cp = k == 4 ? c & 7 : k == 3 ? c & 15 : c & 31;
                size_t j = 1;
                for (; k && j < k && (p[j] & 0xc0) == 0x80; j++)
                        cp = cp << 6 | (p[j] & 0x3f);
                bool ok = k && j == k && !(k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) &&
                          !(k == 4 && (cp < 0x10000 || cp > 0x10ffff)) && !(cp >= 0x80 && cp < 0xa0) && cp != 0xad &&
                          cp != 0xfeff && !(cp >= 0x2028 && cp <= 0x2029);
                if (ok) {
                        put(b, (const char *)p, k);
                        p += k;
                        continue;
                }
                snprintf(tmp, sizeof tmp, "\\x%02x", c);
                put(b, tmp, 4);
                p++;
        }
        put(b, "\"", 1);
}

static void put_module(struct buf *b, const char *word, const struct pn_go_module *m) {
        puts_(b, word);
        put(b, "\t", 1);
        puts_(b, m->path);
        put(b, "\t", 1);
        puts_(b, m->version);
        if (!m->replace) {
                put(b, "\t", 1);
                puts_(b, m->sum);
        } else {
                put(b, "\n", 1);
                put_module(b, "=>", m->replace);
        }
        if (word[0] != '=')
                put(b, "\n", 1);
}

char *pn_go_build_format(const struct pn_go_build *g) {
        struct buf b = {0};
        put(&b, "", 0);
        if (g->path) {
                puts_(&b, "path\t");
                puts_(&b, g->path);
                put(&b, "\n", 1);
        }
        if (g->main.path)
                put_module(&b, "mod", &g->main);
        for (size_t i = 0; i < g->n_deps; i++)
                put_module(&b, "dep", &g->deps[i]);
        for (size_t i = 0; i < g->n_settings; i++) {
                const char *k = g->settings[i].key, *v = g->settings[i].value;
                puts_(&b, "build\t");
                if (!*k || strpbrk(k, "= \t\r\n\"`"))
                        put_quoted(&b, k);
                else
                        puts_(&b, k);
                put(&b, "=", 1);
                if (strpbrk(v, " \t\r\n\"`"))
                        put_quoted(&b, v);
                else
                        puts_(&b, v);
                put(&b, "\n", 1);
        }
        if (b.oom) {
                free(b.p);
                pn_oom();
                return NULL;
        }
        return b.p;
}

/* ------------------------------------------------------------------ */
/* Finding the blob                                                    */

/* LEN bytes at address ADDR, inside one PT_LOAD segment's file image:
 * NULL with *ERR set when no segment maps them all. */
static const uint8_t *at_vaddr(pkgnote_object *e, uint64_t addr, uint64_t len, int *err) {
        for (uint32_t i = 0; i < e->phnum; i++) {
                const pkgnote_phdr *ph = &e->phdrs[i];
                if (ph->type != PT_LOAD || addr < ph->vaddr || addr - ph->vaddr >= ph->filesz ||
                    len > ph->filesz - (addr - ph->vaddr))
                        continue;
                return pn_elf_bytes(e, ph->offset + (addr - ph->vaddr), len, err);
        }
        *err = pn_error(-EBADMSG, "Go build information: address 0x%llx (%llu bytes) is in no loaded segment",
                        (unsigned long long)addr, (unsigned long long)len);
        return NULL;
}

static uint64_t get_ptr(const uint8_t *p, int size, bool be) {
        uint64_t v = 0;
        for (int i = 0; i < size; i++)
                v |= (uint64_t)p[i] << (8 * (be ? size - 1 - i : i));
        return v;
}

/* A Go string through its header at address HDR (pointer-based layout). */
static int string_at(pkgnote_object *e, uint64_t hdr, int ptr, bool be, uint32_t max, char **ret, size_t *len) {
        int err = 0;
        const uint8_t *h = at_vaddr(e, hdr, (uint64_t)ptr * 2, &err);
        if (!h)
                return err;
        uint64_t data = get_ptr(h, ptr, be), n = get_ptr(h + ptr, ptr, be);
        if (n > max)
                return pn_error(-E2BIG, "Go build information: a string of %llu bytes (at most %u)", (unsigned long long)n,
                                max);
        const uint8_t *s = n ? at_vaddr(e, data, n, &err) : (const uint8_t *)"";
        if (!s)
                return err;
        if (!(*ret = malloc(n + 1)))
                return pn_oom();
        memcpy(*ret, s, n);
        (*ret)[n] = 0;
        *len = n;
        return 0;
}

/* A uvarint-prefixed string at *P of *AVAIL bytes. */
static int string_inline(const uint8_t **p, size_t *avail, uint32_t max, char **ret, size_t *len) {
        uint64_t n = 0;
        size_t i = 0;
        for (;; i++) {
                if (i >= *avail || i >= 10)
                        return pn_error(-EBADMSG, "Go build information: a string length runs past the blob");
                n |= (uint64_t)((*p)[i] & 0x7f) << (7 * i);
                if (!((*p)[i] & 0x80))
                        break;
        }
        i++;
        if (n > max)
                return pn_error(-E2BIG, "Go build information: a string of %llu bytes (at most %u)", (unsigned long long)n,
                                max);
        if (n > *avail - i)
                return pn_error(-EBADMSG, "Go build information: a string of %llu bytes runs past the blob",
                                (unsigned long long)n);
        if (!(*ret = malloc(n + 1)))
                return pn_oom();
        memcpy(*ret, *p + i, n);
        (*ret)[n] = 0;
        *len = n;
        *p += i + n, *avail -= i + n;
        return 0;
}

/* The blob in the LEN bytes at file offset START (address ADDR): 1 with
 * *OFF and *AVAIL, 0 when the magic is not there, or a negative errno. */
static int search(pkgnote_object *e, uint64_t start, uint64_t len, uint64_t addr, uint64_t *off, uint64_t *avail) {
        if (len < HEADER)
                return 0;
        uint64_t span = len < SEARCH ? len : SEARCH;
        int err = 0;
        const uint8_t *d = pn_elf_bytes(e, start, span, &err);
        if (!d)
                return err;
        for (uint64_t k = (ALIGN - addr % ALIGN) % ALIGN; k + HEADER <= span; k += ALIGN)
                if (!memcmp(d + k, MAGIC, MAGIC_LEN)) {
                        *off = start + k, *avail = len - k;
                        return 1;
                }
        return 0;
}

/* Where the blob is: its file offset and the bytes after it in *OFF and
 * *AVAIL; 0 when there is none.  Searched as Go's reader searches, in
 * steps of 16 bytes of address over the first 64 KiB of the
 * ".go.buildinfo" section, else of the first writable segment; and
 * (where Go's reader stops) of the next writable segments, up to
 * MAX_SEGMENTS: a PIE program's blob begins the one after RELRO. */
#define MAX_SEGMENTS 8u
static int locate(pkgnote_object *e, uint64_t *off, uint64_t *avail) {
        int n = pkgnote_object_shdr_count(e);
        for (int i = 0; i < n; i++) {
                const pkgnote_shdr *s = pkgnote_object_shdr(e, (size_t)i);
                if (!s || strcmp(s->name, ".go.buildinfo") != 0)
                        continue;
                if (s->type == SHT_NOBITS || s->offset > e->size || s->size > e->size - s->offset)
                        return pn_error(-EBADMSG, "Go build information: .go.buildinfo lies outside the file");
                return search(e, s->offset, s->size, s->addr, off, avail);
        }
        unsigned tried = 0;
        for (uint32_t i = 0; i < e->phnum && tried < MAX_SEGMENTS; i++) {
                const pkgnote_phdr *ph = &e->phdrs[i];
                if (ph->type != PT_LOAD || (ph->flags & (PF_W | PF_X)) != PF_W || ph->offset > e->size)
                        continue;
                tried++;
                uint64_t len = ph->filesz < e->size - ph->offset ? ph->filesz : e->size - ph->offset;
                int r = search(e, ph->offset, len, ph->vaddr, off, avail);
                if (r != 0)
                        return r;
        }
        return 0;
}

int pn_go_build_read(pkgnote_object *e, struct pn_go_build *b) {
        *b = (struct pn_go_build){0};
        if (!e->phdrs && e->phnum)
                return 0;
        uint64_t off = 0, avail = 0;
        int r = locate(e, &off, &avail);
        if (r <= 0)
                return r;
        int err = 0;
        /* the most two strings can take: two varints and their bytes */
        const uint64_t most = HEADER + 20 + PN_GO_MAX_VERSION + PN_GO_MAX_MODINFO + 32;
        uint64_t want = avail < most ? avail : most;
        const uint8_t *h = pn_elf_bytes(e, off, HEADER, &err);
        if (!h)
                return err;
        b->ptr_size = h[14];
        b->big_endian = h[15] & 1;
        b->inline_layout = h[15] & 2;
        char *vers = NULL, *mod = NULL;
        size_t vl = 0, ml = 0;
        if (b->inline_layout) {
                const uint8_t *all = pn_elf_bytes(e, off, want, &err);
                if (!all)
                        return err;
                const uint8_t *p = all + HEADER;
                size_t left = (size_t)(want - HEADER);
                r = string_inline(&p, &left, PN_GO_MAX_VERSION, &vers, &vl);
                if (r == 0)
                        r = string_inline(&p, &left, PN_GO_MAX_MODINFO + 32, &mod, &ml);
        } else {
                if (b->ptr_size != 4 && b->ptr_size != 8)
                        return pn_error(-EBADMSG, "Go build information: a pointer size of %d", b->ptr_size);
                if (b->big_endian != e->be)
                        return pn_error(-EBADMSG, "Go build information: its byte order is not the object's");
                uint64_t p1 = get_ptr(h + 16, b->ptr_size, b->big_endian),
                         p2 = get_ptr(h + 16 + b->ptr_size, b->ptr_size, b->big_endian);
                r = string_at(e, p1, b->ptr_size, b->big_endian, PN_GO_MAX_VERSION, &vers, &vl);
                if (r == 0)
                        r = string_at(e, p2, b->ptr_size, b->big_endian, PN_GO_MAX_MODINFO + 32, &mod, &ml);
        }
        if (r == 0 && (!vl || memchr(vers, 0, vl)))
                r = pn_error(-EBADMSG, "Go build information: no toolchain version");
        if (r == 0) {
                b->go_version = vers, vers = NULL;
                /* the framing of cmd/go's sentinels taken off */
                if (ml >= 33 && mod[ml - 17] == '\n')
                        r = pn_go_modinfo_parse(mod + 16, ml - 32, b);
        }
        free(vers);
        free(mod);
        if (r < 0) {
                pn_go_build_done(b);
                return r;
        }
        return 1;
}
