/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ld.so.conf reader and the closure of a root (lib/07-check-closure.c,
 * lib/07-check-ldconf.c). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "07-check-edges.h"
#include "07-check-resolve.h"
#include "pkgnote.h"
#include "testlib.h"

struct seen {
        char text[4096];
};

static int record(void *u, int kind, const char *value) {
        struct seen *s = u;
        size_t l = strlen(s->text);
        snprintf(s->text + l, sizeof s->text - l, "%s%s;", kind == PN_LDCONF_DIR ? "D:" : "I:", value);
        return 0;
}

static const char conf[] = "# comment\n"
                           "include /etc/ld.so.conf.d/*.conf\n"
                           "include\ta.conf  b.conf\n"
                           "  /usr/local/lib  # trailing\n"
                           "/opt/x = libc6\n"
                           "/opt/y///\n"
                           "hwcap 1 nosegneg\n"
                           "include\n"
                           "/\n"
                           "/last";

static void test_ldconf(void) {
        struct seen s = {""};
        CHECK_INT(pn_ldconf_parse(conf, sizeof conf - 1, record, &s), 0);
        CHECK_STR(s.text, "I:/etc/ld.so.conf.d/*.conf;I:a.conf;I:b.conf;D:/usr/local/lib;D:/opt/x;D:/opt/y;D:include;D:/;D:/last;");
        /* A NUL ends its line; CR is blank. */
        static const char nul[] = "/a\0/b\n/c\r\n";
        s.text[0] = 0;
        CHECK_INT(pn_ldconf_parse(nul, sizeof nul - 1, record, &s), 0);
        CHECK_STR(s.text, "D:/a;D:/c;");
}

/* Every truncated prefix parses, giving no more than the whole. */
static size_t count_calls;
static int count(void *u, int kind, const char *value) {
        (void)u, (void)kind;
        CHECK(strlen(value) > 0);
        count_calls++;
        return 0;
}

static void test_ldconf_prefixes(void) {
        size_t whole;
        count_calls = 0;
        pn_ldconf_parse(conf, sizeof conf - 1, count, NULL);
        whole = count_calls;
        for (size_t n = 0; n < sizeof conf; n++) {
                char *copy = malloc(n ? n : 1);
                memcpy(copy, conf, n);
                count_calls = 0;
                CHECK_INT(pn_ldconf_parse(copy, n, count, NULL), 0);
                CHECK(count_calls <= whole);
                free(copy);
        }
}

/* A stop asked for by the callback ends the parse with its value. */
static int stop(void *u, int kind, const char *value) {
        (void)u, (void)kind, (void)value;
        return -ECANCELED;
}
static void test_ldconf_stop(void) {
        CHECK_INT(pn_ldconf_parse(conf, sizeof conf - 1, stop, NULL), -ECANCELED);
}

/* The closure of /bin/sh on this machine: the program first, every
 * string the accessors hand out valid while the closure lives, JSON
 * that names it; a program that is not there or not ELF fails. */
static void test_closure_api(void) {
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(NULL, &c), 0);
        CHECK_INT(pkgnote_closure_select(c, NULL, 99, 0), -EINVAL);
        CHECK_INT(pkgnote_closure_select(c, NULL, 0, 0x80), -EINVAL);
        CHECK_INT(pkgnote_closure_select(c, "zstd", PKGNOTE_DLOPEN_REQUIRED, 0), 0);
        CHECK_INT(pkgnote_closure_add(c, "/nonexistent/program"), -ENOENT);
        CHECK_INT(pkgnote_closure_add(c, "/etc/passwd"), -ENOEXEC);
        CHECK_INT(pkgnote_closure_add(c, "/etc"), -EINVAL);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 1);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 0);
        size_t n = pkgnote_closure_count(c);
        CHECK(n >= 3);
        bool have_libc = false;
        for (size_t i = 0; i < n; i++) {
                const char *p = pkgnote_closure_path(c, i);
                CHECK(p && p[0] == '/');
                if (strstr(p, "/libc.so.6") && !pkgnote_closure_target(c, i))
                        have_libc = true;
        }
        CHECK(have_libc);
        CHECK(pkgnote_closure_path(c, n) == NULL);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        CHECK(pkgnote_closure_missing(c, 0, NULL) == NULL);
        /* The graph: /bin/sh's interpreter and libc.so.6 are edges to
         * objects of the list; each edge once (the second add asked
         * nothing again); a struct without its size is refused. */
        size_t ne = pkgnote_closure_edge_count(c);
        bool interp = false, libc = false;
        for (size_t i = 0; i < ne; i++) {
                pkgnote_dep_edge e = PKGNOTE_DEP_EDGE_INIT;
                CHECK_INT(pkgnote_closure_edge(c, i, &e), 1);
                CHECK(e.from && e.from[0] == '/' && e.to && e.name);
                CHECK(e.kind == PKGNOTE_DEP_NEEDED || e.kind == PKGNOTE_DEP_INTERP);
                CHECK_INT(e.priority, PKGNOTE_DLOPEN_REQUIRED);
                interp |= e.kind == PKGNOTE_DEP_INTERP;
                libc |= e.kind == PKGNOTE_DEP_NEEDED && !strcmp(e.name, "libc.so.6");
                for (size_t j = 0; j < i; j++) {
                        pkgnote_dep_edge f = PKGNOTE_DEP_EDGE_INIT;
                        CHECK_INT(pkgnote_closure_edge(c, j, &f), 1);
                        CHECK(strcmp(e.from, f.from) || strcmp(e.to, f.to) || strcmp(e.name, f.name) || e.kind != f.kind);
                }
        }
        CHECK(interp && libc);
        pkgnote_dep_edge small = {.size = sizeof(size_t)};
        CHECK_INT(pkgnote_closure_edge(c, 0, &small), -EINVAL);
        pkgnote_dep_edge past = PKGNOTE_DEP_EDGE_INIT;
        CHECK_INT(pkgnote_closure_edge(c, ne, &past), -ENOENT);
        char *json;
        CHECK_INT(pkgnote_closure_to_json(c, NULL, &json), 0);
        CHECK(strstr(json, "\"edges\":[{\"from\":\"/") != NULL);
        CHECK(strstr(json, "\"kind\":\"program\"") != NULL);
        CHECK(strstr(json, "\"kind\":\"interpreter\"") != NULL);
        free(json);
        pkgnote_closure_free(c);
        pkgnote_closure_free(NULL);
        CHECK_INT(pkgnote_closure_new("/nonexistent-root", &c), -ENOENT);
}

#if defined(__x86_64__)
/* mkdir -p of PATH's parent directories. */
static void make_parents(const char *path) {
        char d[4096];
        snprintf(d, sizeof d, "%s", path);
        for (char *p = d + 1; (p = strchr(p, '/')); p++) {
                *p = '\0';
                mkdir(d, 0755);
                *p = '/';
        }
}

static void copy_file(const char *from, const char *to) {
        make_parents(to);
        int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        CHECK(in >= 0 && out >= 0);
        char buf[65536];
        for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;)
                CHECK(write(out, buf, (size_t)n) == n);
        close(in);
        close(out);
}

/* ---- objects made here, no toolchain needed ---- */

/* Writes PATH (its parents made): a 64-bit x86-64 shared object, a
 * PT_LOAD over the whole file, a PT_DYNAMIC with DT_NEEDED for each of
 * the N_NEEDED names, DT_RPATH RPATH and DT_RUNPATH RUNPATH (NULL: none)
 * and DT_SONAME SONAME (NULL: none).  That is all the loader's search
 * and the closure read. */
static void write_dso(const char *path, const char *const *needed, size_t n_needed, const char *rpath, const char *runpath,
                      const char *soname) {
        size_t strsz = 1;
        for (size_t i = 0; i < n_needed; i++)
                strsz += strlen(needed[i]) + 1;
        strsz += (rpath ? strlen(rpath) + 1 : 0) + (runpath ? strlen(runpath) + 1 : 0) + (soname ? strlen(soname) + 1 : 0);
        size_t n_dyn = n_needed + !!rpath + !!runpath + !!soname + 3;
        size_t dynoff = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), stroff = dynoff + n_dyn * sizeof(Elf64_Dyn);
        size_t size = stroff + strsz;
        unsigned char *b = calloc(1, size);
        CHECK(b != NULL);
        Elf64_Ehdr eh = {.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_phoff = sizeof eh,
                         .e_ehsize = sizeof eh, .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2};
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        memcpy(b, &eh, sizeof eh);
        Elf64_Phdr ph[2] = {{.p_type = PT_LOAD, .p_flags = PF_R, .p_filesz = size, .p_memsz = size, .p_align = 4096},
                            {.p_type = PT_DYNAMIC, .p_flags = PF_R, .p_offset = dynoff, .p_vaddr = dynoff,
                             .p_filesz = n_dyn * sizeof(Elf64_Dyn), .p_memsz = n_dyn * sizeof(Elf64_Dyn), .p_align = 8}};
        memcpy(b + sizeof eh, ph, sizeof ph);
        Elf64_Dyn *d = (Elf64_Dyn *)(b + dynoff);
        size_t at = 1, k = 0;
#define ADD_STR(tag, str)                                                   \
        do {                                                                \
                d[k].d_tag = (tag), d[k++].d_un.d_val = at;                 \
                memcpy(b + stroff + at, (str), strlen(str) + 1);            \
                at += strlen(str) + 1;                                      \
        } while (0)
        for (size_t i = 0; i < n_needed; i++)
                ADD_STR(DT_NEEDED, needed[i]);
        if (rpath)
                ADD_STR(DT_RPATH, rpath);
        if (runpath)
                ADD_STR(DT_RUNPATH, runpath);
        if (soname)
                ADD_STR(DT_SONAME, soname);
#undef ADD_STR
        d[k].d_tag = DT_STRTAB, d[k++].d_un.d_ptr = stroff;
        d[k].d_tag = DT_STRSZ, d[k++].d_un.d_val = strsz;
        d[k].d_tag = DT_NULL;
        make_parents(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        CHECK(fd >= 0);
        CHECK(write(fd, b, size) == (ssize_t)size);
        close(fd);
        free(b);
}

static void remove_tree(const char *root) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        CHECK_INT(system(cmd), 0);
}

/* Regression: glibc-hwcaps variants accepted while a DT_RUNPATH search
 * goes on grow the closure's objects; the search read its list from the
 * old array (heap-use-after-free under ASan).  /bin/prog searches 21
 * RUNPATH directories, each with libfoo.so in three glibc-hwcaps levels
 * only: all 63 are listed. */
static void test_closure_hwcaps_grow(void) {
        char root[] = "/tmp/test-closure.XXXXXX", path[4096], runpath[512] = "";
        CHECK(mkdtemp(root) != NULL);
        for (int k = 0; k <= 20; k++) {
                snprintf(runpath + strlen(runpath), sizeof runpath - strlen(runpath), "%s/opt/d%d", k ? ":" : "", k);
                for (int v = 2; v <= 4; v++) {
                        snprintf(path, sizeof path, "%s/opt/d%d/glibc-hwcaps/x86-64-v%d/libfoo.so", root, k, v);
                        write_dso(path, NULL, 0, NULL, NULL, NULL);
                }
        }
        snprintf(path, sizeof path, "%s/bin/prog", root);
        write_dso(path, (const char *const[]){"libfoo.so"}, 1, NULL, runpath, NULL);
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(root, &c), 0);
        CHECK_INT(pkgnote_closure_add(c, "/bin/prog"), 1);
        CHECK_INT((int)pkgnote_closure_count(c), 1 + 21 * 3);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        pkgnote_closure_free(c);
        remove_tree(root);
}

/* Regression: the DT_RPATH chain goes on past a loader with DT_RUNPATH,
 * as glibc's _dl_map_object walks it.  /bin/prog (DT_RPATH /opt/lib)
 * loads /opt/lib/libA.so (DT_RUNPATH /x), which loads /x/libB.so (no
 * search path of its own), which needs libC.so: libB has no DT_RUNPATH,
 * so the loader tries DT_RPATH of libB (none), of libA (none: it has
 * DT_RUNPATH) and of the program, and finds /opt/lib/libC.so (before:
 * the chain ended at libA, libC.so missing). */
static void test_closure_rpath_chain(void) {
        char root[] = "/tmp/test-closure.XXXXXX", path[4096];
        CHECK(mkdtemp(root) != NULL);
        snprintf(path, sizeof path, "%s/bin/prog", root);
        write_dso(path, (const char *const[]){"libA.so"}, 1, "/opt/lib", NULL, NULL);
        snprintf(path, sizeof path, "%s/opt/lib/libA.so", root);
        write_dso(path, (const char *const[]){"libB.so"}, 1, NULL, "/x", "libA.so");
        snprintf(path, sizeof path, "%s/x/libB.so", root);
        write_dso(path, (const char *const[]){"libC.so"}, 1, NULL, NULL, "libB.so");
        snprintf(path, sizeof path, "%s/opt/lib/libC.so", root);
        write_dso(path, NULL, 0, NULL, NULL, "libC.so");
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(root, &c), 0);
        CHECK_INT(pkgnote_closure_add(c, "/bin/prog"), 1);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        CHECK_INT((int)pkgnote_closure_count(c), 4);
        CHECK_STR(pkgnote_closure_path(c, 3), "/opt/lib/libC.so");
        /* libA's own lookups do not use the chain: it has DT_RUNPATH. */
        snprintf(path, sizeof path, "%s/opt/lib/libA.so", root);
        write_dso(path, (const char *const[]){"libB.so", "libC.so"}, 2, NULL, "/x", "libA.so");
        pkgnote_closure_free(c);
        CHECK_INT(pkgnote_closure_new(root, &c), 0);
        CHECK_INT(pkgnote_closure_add(c, "/bin/prog"), 1);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 1);
        CHECK_STR(pkgnote_closure_missing(c, 0, NULL), "libC.so");
        pkgnote_closure_free(c);
        remove_tree(root);
}

/* glibc-hwcaps in a system directory: a root made of /bin/sh's closure,
 * with a second libc.so.6 in glibc-hwcaps/x86-64-v3 beside the first.
 * Both are listed (the CPU that runs the root is unknown), the variant's
 * reason naming its level, the baseline's not. */
static void test_closure_hwcaps(void) {
        pkgnote_closure *host;
        CHECK_INT(pkgnote_closure_new(NULL, &host), 0);
        CHECK_INT(pkgnote_closure_add(host, "/bin/sh"), 1);
        char root[] = "/tmp/test-closure.XXXXXX";
        CHECK(mkdtemp(root) != NULL);
        char libc[4096] = "", at[4096], variant[4096] = "";
        for (size_t i = 0; i < pkgnote_closure_count(host); i++) {
                const char *p = pkgnote_closure_path(host, i), *t = pkgnote_closure_target(host, i);
                snprintf(at, sizeof at, "%s%s", root, p);
                if (t) {
                        make_parents(at);
                        CHECK_INT(symlink(t, at), 0);
                        continue;
                }
                copy_file(p, at);
                const char *slash = strrchr(p, '/');
                if (!strcmp(slash, "/libc.so.6") && !*libc) {
                        snprintf(libc, sizeof libc, "%s", p);
                        snprintf(variant, sizeof variant, "%.*s/glibc-hwcaps/x86-64-v3/libc.so.6", (int)(slash - p), p);
                        snprintf(at, sizeof at, "%s%s", root, variant);
                        copy_file(p, at);
                }
        }
        pkgnote_closure_free(host);
        CHECK(*libc);
        pkgnote_closure *c;
        CHECK_INT(pkgnote_closure_new(root, &c), 0);
        CHECK_INT(pkgnote_closure_add(c, "/bin/sh"), 1);
        bool base = false, v3 = false;
        for (size_t i = 0; i < pkgnote_closure_count(c); i++) {
                base |= !strcmp(pkgnote_closure_path(c, i), libc);
                v3 |= !strcmp(pkgnote_closure_path(c, i), variant);
        }
        CHECK(base);
        CHECK(v3);
        CHECK_INT((int)pkgnote_closure_missing_count(c), 0);
        CHECK_INT((int)pkgnote_closure_problem_count(c), 0);
        char *json, want[4200];
        CHECK_INT(pkgnote_closure_to_json(c, NULL, &json), 0);
        CHECK(strstr(json, "\"hwcaps\":\"x86-64-v3\"") != NULL);
        snprintf(want, sizeof want, "\"path\":\"%s\",\"type\":\"file\",\"why\":[{", variant);
        CHECK(strstr(json, want) != NULL);
        snprintf(want, sizeof want, "\"path\":\"%s\",\"type\":\"file\",\"why\":[{", libc);
        const char *b = strstr(json, want), *end = b ? strchr(b, ']') : NULL;
        CHECK(b && end);
        CHECK(b && end && !memmem(b, (size_t)(end - b), "hwcaps", 6));
        free(json);
        pkgnote_closure_free(c);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        CHECK_INT(system(cmd), 0);
}
#endif

/* ---- the resolver (lib/07-check-resolve.c) over a root in memory ---- */

struct memroot {
        const char *const *dirs; /* "PATH\tNAME NAME..." */
        size_t n;
        unsigned reads[4096]; /* how often each directory was read */
        unsigned misses;      /* reads of directories that are not there */
};

static int mem_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                   void (*each)(void *cu, const char *name), void *cu) {
        struct memroot *m = u;
        size_t al = strlen(abs);
        for (size_t i = 0; i < m->n; i++) {
                const char *tab = strchr(m->dirs[i], '\t');
                if ((size_t)(tab - m->dirs[i]) != al || memcmp(m->dirs[i], abs, al))
                        continue;
                m->reads[i]++;
                if (!want(cu, (const uint64_t[2]){i, 0}))
                        return 0;
                char names[8192];
                snprintf(names, sizeof names, "%s", tab + 1);
                for (char *save, *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save))
                        each(cu, t);
                return 0;
        }
        m->misses++;
        return -ENOENT;
}

static int mem_read(void *u, const char *abs, size_t max, void **data, size_t *len) {
        (void)u, (void)max, (void)data, (void)len, (void)abs;
        return -ENOENT;
}

static int never(void *u, const char *path, const char *hwcaps, size_t *obj) {
        (void)path, (void)hwcaps, (void)obj;
        (*(unsigned *)u)++;
        return 0;
}

static int take(void *u, const char *path, const char *hwcaps, size_t *obj) {
        snprintf(u, 256, "%s%s%s", path, hwcaps ? " " : "", hwcaps ? hwcaps : "");
        *obj = 7;
        return 1;
}

/* Hostile DT_RPATH x missing names: 1,000 names x 1,000 entries (100
 * there, 900 not; every entry twice, once with a trailing '/'): each
 * directory is read once, each name looked up once per distinct present
 * directory, no candidate opened (before: every name walked every
 * entry). */
static void test_resolver_bounded(void) {
        static char bufs[100][16], rpdir[1024] = "/rp\t";
        const char *dirs[105];
        size_t n = 0;
        for (int i = 0; i < 100; i++)
                snprintf(rpdir + strlen(rpdir), sizeof rpdir - strlen(rpdir), "d%d ", i);
        dirs[n++] = "/\tusr rp";
        dirs[n++] = rpdir;
        dirs[n++] = "/usr\tlib";
        dirs[n++] = "/usr/lib\tx86_64-linux-gnu";
        dirs[n++] = "/usr/lib/x86_64-linux-gnu\tlibc.so.6 glibc-hwcaps";
        for (int i = 0; i < 100; i++) {
                snprintf(bufs[i], sizeof bufs[i], "/rp/d%d\tx", i);
                dirs[n++] = bufs[i];
        }
        struct memroot m = {dirs, n, {0}, 0};
        struct pn_resolve_root root = {mem_dir, mem_read, &m};
        pn_resolver *r;
        CHECK_INT(pn_resolver_new(&root, NULL, NULL, &r), 0);
        struct pn_abi abi = pn_abi_make(64, 0, EM_X86_64, 0);
        size_t cap = 1000 * 24, len = 0;
        char *list = malloc(cap);
        for (int i = 0; i < 1000; i++)
                len += (size_t)snprintf(list + len, cap - len, "%s/rp/d%d:/rp/d%d/", i ? ":" : "", i, i);
        struct pn_dirlist dl;
        CHECK_INT(pn_resolver_expand(r, list, "/", &abi, NULL, &dl), 0);
        CHECK_INT(dl.n, 100);
        const struct pn_dirlist *rp = &dl;
        unsigned cands = 0;
        for (int i = 0; i < 1000; i++) {
                char name[32];
                snprintf(name, sizeof name, "libmissing%d.so", i);
                struct pn_lookup q = {.name = name, .abi = abi, .rpath = &rp, .n_rpath = 1, .candidate = never, .u = &cands};
                CHECK_INT(pn_resolver_lookup(r, &q), 0);
                CHECK(q.variant == SIZE_MAX);
        }
        const struct pn_resolve_stats *st = pn_resolver_stats(r);
        unsigned twice = 0;
        for (size_t i = 0; i < n; i++)
                twice += m.reads[i] > 1;
        CHECK_INT(twice, 0);
        CHECK_INT(cands, 0);
        /* The 105 directories there and glibc-hwcaps (not there) read
         * once each; the 900 missing entries, the system directories that
         * are not there and the glibc-hwcaps levels are known missing
         * from their parents' listings without a look of their own. */
        size_t reads = m.misses;
        for (size_t i = 0; i < n; i++)
                reads += m.reads[i];
        CHECK_INT(st->dir_reads, reads);
        CHECK_INT(m.misses, 1);
        CHECK_INT(st->dir_reads, n + 1);
        /* Per name and present directory two probes (glibc-hwcaps, the
         * name): 100 RPATH directories, the multiarch one, /usr/lib; and
         * one per component walked of the 2,000 entries and the system
         * directories. */
        CHECK(st->name_lookups <= 1000u * 2 * (100 + 4) + 2000 * 2 + 100);
        /* Only directories that are there are recorded, and one that is
         * not (glibc-hwcaps, listed by its parent). */
        CHECK_INT(st->dirs, n + 1);
        /* A name that is there: found in the multiarch directory. */
        char got[256] = "";
        struct pn_lookup q = {.name = "libc.so.6", .abi = abi, .rpath = &rp, .n_rpath = 1, .candidate = take, .u = got};
        CHECK_INT(pn_resolver_lookup(r, &q), 1);
        CHECK_INT(q.found, 7);
        CHECK_STR(got, "/usr/lib/x86_64-linux-gnu/libc.so.6");
        /* Every truncated prefix of a list with tokens expands without
         * harm, to no more entries than the whole. */
        static const char toks[] = "$ORIGIN/../lib:${ORIGIN}:$LIB/x:$PLATFORM:$BAD/y::/rp/d1:rp/d2:${LIB";
        for (size_t k = 0; k <= sizeof toks - 1; k++) {
                char *pre = strndup(toks, k);
                struct pn_dirlist t;
                CHECK_INT(pn_resolver_expand(r, pre, "/rp/d3", &abi, NULL, &t), 0);
                CHECK(t.n <= 4);
                pn_dirlist_done(&t);
                free(pre);
        }
        pn_dirlist_done(&dl);
        free(list);
        pn_resolver_free(r);
}

/* Regression: 300 DT_RPATH entries /aN/b/b/.../b of 2,000 components
 * (1.2 MB), in a root that holds /a0/b/b and no other /aN.  Each walk
 * down stops at the first component that is not there and records
 * nothing below it: four directories recorded (the top, /a0, /a0/b,
 * /a0/b/b), each read once, a name probe per component walked (before:
 * every ancestor of every entry recorded with its whole path, 600,000
 * directories and 2.4 GB). */
static void test_resolver_deep_rpath(void) {
        const char *dirs[] = {"/\ta0 usr", "/a0\tb", "/a0/b\tb", "/a0/b/b\tc"};
        struct memroot m = {dirs, sizeof dirs / sizeof *dirs, {0}, 0};
        struct pn_resolve_root root = {mem_dir, mem_read, &m};
        pn_resolver *r;
        CHECK_INT(pn_resolver_new(&root, NULL, NULL, &r), 0);
        struct pn_abi abi = pn_abi_make(64, 0, EM_X86_64, 0);
        size_t cap = 300 * (2 * 2000 + 8), len = 0;
        char *list = malloc(cap);
        for (int i = 0; i < 300; i++) {
                len += (size_t)snprintf(list + len, cap - len, "%s/a%d", i ? ":" : "", i);
                for (int k = 1; k < 2000; k++)
                        list[len++] = '/', list[len++] = 'b';
                list[len] = '\0';
        }
        struct pn_dirlist dl;
        CHECK_INT(pn_resolver_expand(r, list, "/", &abi, NULL, &dl), 0);
        CHECK_INT(dl.n, 0);
        const struct pn_resolve_stats *st = pn_resolver_stats(r);
        CHECK_INT(st->dirs, 4);
        CHECK_INT(st->dir_reads, 4);
        CHECK_INT(m.misses, 0);
        CHECK(st->name_lookups <= 300 + 3);
        pn_dirlist_done(&dl);
        free(list);
        pn_resolver_free(r);
}

static void count_problem(void *u, int err, const char *path, const char *msg) {
        (void)err;
        snprintf(u, 512, "%s: %s", path, msg);
}

/* Regression: tokens and empty entries as glibc's fillin_rpath() and
 * _dl_dst_substitute() take them: a '$' that starts no token the loader
 * knows stays ($BAD, ${BAD}, $ORIGINX: directories of those names); an
 * empty entry is the working directory, taken as the root's top and
 * said once; an empty list is none (before: all of them skipped). */
static void test_resolver_expand_tokens(void) {
        const char *dirs[] = {"/\topt", "/opt\t$BAD ${BAD} $ORIGINX", "/opt/$BAD\tx", "/opt/${BAD}\tx", "/opt/$ORIGINX\tx"};
        struct memroot m = {dirs, sizeof dirs / sizeof *dirs, {0}, 0};
        struct pn_resolve_root root = {mem_dir, mem_read, &m};
        char said[512] = "";
        pn_resolver *r;
        CHECK_INT(pn_resolver_new(&root, count_problem, said, &r), 0);
        struct pn_abi abi = pn_abi_make(64, 0, EM_X86_64, 0);
        struct pn_dirlist dl;
        CHECK_INT(pn_resolver_expand(r, "/opt/$BAD:/opt/${BAD}:/opt/$ORIGINX:$UNKNOWN/x", "/opt", &abi, "/bin/p", &dl), 0);
        CHECK_INT(dl.n, 3);
        CHECK_STR(said, "/bin/p: DT_RPATH or DT_RUNPATH entries relative to the working directory at run time (1, the first '$UNKNOWN/x'; an empty one is the working directory itself): searched from the root's top, as for a program started in /");
        pn_dirlist_done(&dl);
        said[0] = '\0';
        CHECK_INT(pn_resolver_expand(r, "/opt:", "/opt", &abi, "/bin/p", &dl), 0);
        CHECK_INT(dl.n, 2);
        CHECK(strstr(said, "(1, the first ''; ") != NULL);
        pn_dirlist_done(&dl);
        said[0] = '\0';
        CHECK_INT(pn_resolver_expand(r, "", "/opt", &abi, "/bin/p", &dl), 0);
        CHECK_INT(dl.n, 0);
        CHECK_STR(said, "");
        /* $ORIGIN first, alone or braced: absolute, nothing said. */
        CHECK_INT(pn_resolver_expand(r, "$ORIGIN/$BAD:${ORIGIN}", "/opt", &abi, "/bin/p", &dl), 0);
        CHECK_INT(dl.n, 2);
        CHECK_STR(said, "");
        pn_dirlist_done(&dl);
        pn_resolver_free(r);
}

/* A root where every directory is there, each of its own identity and
 * empty, but for the top: a listing past PN_RESOLVE_MAX_ENTRIES, so that
 * a name below it is looked at on its own. */
struct everyroot {
        uint64_t next;
};
static int every_dir(void *u, const char *abs, bool (*want)(void *cu, const uint64_t id[2]),
                     void (*each)(void *cu, const char *name), void *cu) {
        struct everyroot *m = u;
        if (!want(cu, (const uint64_t[2]){m->next++, 1}))
                return 0;
        char nm[16];
        for (unsigned i = 0; !strcmp(abs, "/") && i <= PN_RESOLVE_MAX_ENTRIES; i++) {
                snprintf(nm, sizeof nm, "e%u", i);
                each(cu, nm);
        }
        return 0;
}

static void count_said(void *u, int err, const char *path, const char *msg) {
        (void)path;
        CHECK_INT(err, -E2BIG);
        CHECK(strstr(msg, "the rest are taken as missing") != NULL);
        (*(unsigned *)u)++;
}

/* PN_RESOLVE_MAX_BYTES: 120,000 directories of 250-byte names that are
 * all there (about 70 MiB of them recorded, were there no limit): the
 * resolver stops recording at the limit, takes the rest as missing, and
 * says so once. */
static void test_resolver_byte_cap(void) {
        struct everyroot m = {1};
        struct pn_resolve_root root = {every_dir, mem_read, &m};
        unsigned said = 0;
        pn_resolver *r;
        CHECK_INT(pn_resolver_new(&root, count_said, &said, &r), 0);
        struct pn_abi abi = pn_abi_make(64, 0, EM_X86_64, 0);
        size_t n = 120000, cap = n * 252 + 1, len = 0;
        char *list = malloc(cap);
        for (size_t i = 0; i < n; i++)
                len += (size_t)snprintf(list + len, cap - len, "%s/%0250zu", i ? ":" : "", i);
        struct pn_dirlist dl;
        CHECK_INT(pn_resolver_expand(r, list, "/", &abi, NULL, &dl), 0);
        const struct pn_resolve_stats *st = pn_resolver_stats(r);
        CHECK(st->limited);
        CHECK_INT(said, 1);
        CHECK(dl.n > 50000 && dl.n < n);
        CHECK_INT(st->dirs, dl.n + 1);
        pn_dirlist_done(&dl);
        free(list);
        pn_resolver_free(r);
}

/* The ABI rule glibc applies: class, machine, byte order, and for ARM
 * EABI 5 the float ABI (VALID_FLOAT_ABI); the triplets follow it. */
static void test_abi(void) {
        struct pn_abi le = pn_abi_make(64, 0, EM_PPC64, 0), be = pn_abi_make(64, 1, EM_PPC64, 0);
        CHECK(!pn_abi_accepts(&le, &be));
        CHECK(pn_abi_accepts(&be, &be));
        CHECK_STR(pn_abi_triplet(&be, 0), "powerpc64-linux-gnu");
        CHECK(pn_abi_triplet(&be, 1) == NULL);
        CHECK_STR(pn_abi_triplet(&le, 0), "powerpc64le-linux-gnu");
        struct pn_abi hf = pn_abi_make(32, 0, EM_ARM, 0x05000400), sf = pn_abi_make(32, 0, EM_ARM, 0x05000200),
                      old = pn_abi_make(32, 0, EM_ARM, 0x04000000), eabi5 = pn_abi_make(32, 0, EM_ARM, 0x05000000);
        CHECK(!pn_abi_accepts(&hf, &sf));
        CHECK(!pn_abi_accepts(&sf, &hf));
        CHECK(pn_abi_accepts(&hf, &old) && pn_abi_accepts(&sf, &old) && pn_abi_accepts(&hf, &eabi5));
        CHECK_STR(pn_abi_triplet(&hf, 0), "arm-linux-gnueabihf");
        CHECK(pn_abi_triplet(&hf, 1) == NULL);
        CHECK_STR(pn_abi_triplet(&sf, 0), "arm-linux-gnueabi");
        CHECK_STR(pn_abi_triplet(&old, 1), "arm-linux-gnueabi");
        struct pn_abi x32 = pn_abi_make(32, 0, EM_X86_64, 0), amd64 = pn_abi_make(64, 0, EM_X86_64, 0);
        CHECK(!pn_abi_accepts(&x32, &amd64));
        CHECK_STR(pn_abi_triplet(&x32, 0), "x86_64-linux-gnux32");
        char d[64];
        CHECK(pn_abi_default_dir(&x32, 2, d, sizeof d));
        CHECK_STR(d, "/libx32");
        /* The one order of ABIs (resolver, scan's sorting and lookups):
         * every field tells ABIs apart, the float ABI included. */
        const struct pn_abi *all[] = {&le, &be, &hf, &sf, &old, &x32, &amd64};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
                for (size_t j = 0; j < sizeof all / sizeof *all; j++) {
                        int c = pn_abi_cmp(all[i], all[j]), rc = pn_abi_cmp(all[j], all[i]);
                        CHECK((c < 0 && rc > 0) || (c > 0 && rc < 0) || (c == 0 && rc == 0));
                        CHECK((c == 0) == (i == j));
                }
        CHECK_INT(pn_abi_cmp(&old, &eabi5), 0);
        CHECK(pn_abi_cmp(&hf, &sf) != 0);
}

/* Edges are kept once each; two that differ only in where NAME ends and
 * FEATURE begins are two (names and features may hold newlines). */
static void test_edges_once(void) {
        struct pn_edges g = {0};
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a\nb", "c", 2), 0);
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a", "b\nc", 2), 0);
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a\nb", NULL, 2), 0);
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a\nb", "", 2), 0);
        CHECK_INT(g.n, 4);
        /* the same again: nothing new */
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a", "b\nc", 2), 0);
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a\nb", NULL, 2), 0);
        CHECK_INT(g.n, 4);
        /* another priority, kind or end is another edge */
        CHECK_INT(pn_edges_add(&g, 0, PN_EDGE_NONE, PKGNOTE_DEP_DLOPEN, "a", "b\nc", 3), 0);
        CHECK_INT(pn_edges_add(&g, 0, 1, PKGNOTE_DEP_NEEDED, "a", NULL, 3), 0);
        CHECK_INT(pn_edges_add(&g, 1, 1, PKGNOTE_DEP_NEEDED, "a", NULL, 3), 0);
        CHECK_INT(g.n, 7);
        pn_edges_done(&g);
}

int main(void) {
        RUN(test_edges_once);
        RUN(test_ldconf);
        RUN(test_ldconf_prefixes);
        RUN(test_ldconf_stop);
        RUN(test_closure_api);
        RUN(test_abi);
        RUN(test_resolver_bounded);
        RUN(test_resolver_deep_rpath);
        RUN(test_resolver_expand_tokens);
        RUN(test_resolver_byte_cap);
#if defined(__x86_64__)
        RUN(test_closure_hwcaps);
        RUN(test_closure_hwcaps_grow);
        RUN(test_closure_rpath_chain);
#endif
        return test_summary();
}
