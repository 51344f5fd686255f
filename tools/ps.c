/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote ps: what is running now.  Every process (or those chosen), each
 * mapped ELF object with its package (the note in memory, else the package
 * database of the root the process runs in), and the objects replaced or
 * deleted on disk since they were mapped: the process runs an old version
 * and needs a restart.  Processes are read through /proc alone, never
 * stopped or traced; those that exit during the walk are passed over, and
 * those the caller may not read are counted.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "escape.h"

enum { PS_TABLE, PS_JSON, PS_SPDX, PS_CYCLONEDX, PS_SPDX3 };

struct ps_opts {
        int format;
        int cyclonedx; /* the PKGNOTE_SBOM_CYCLONEDX* format */
        bool json, by_package, restart_only, have_user, have_root;
        bool kernel, needs_reboot, no_kernel;
        const char *root_path, *sysfs, *osrelease;
        uid_t user;
        const char *exe;
        dev_t root_dev;
        ino_t root_ino;
        pkgnote_core_options co;
};

/* One module's package as the table shows it. */
struct modpkg {
        const char *type, *name, *version, *from; /* name NULL: none known */
        const char *now_name, *now_version;        /* what is installed at the path now */
        bool restart;                              /* replaced or deleted since mapped */
        const char *why;                           /* "replaced", "deleted" */
};

/* One (package, process) pair, for --by-package. */
struct use {
        char *key; /* "NAME VERSION (FROM)", escaped */
        int pid;
        bool restart;
};

struct uses {
        struct use *v;
        size_t n, cap;
};

static void ps_help(void) {
        printf("Usage: pkgnote ps [OPTIONS] [PID...]\n"
               "\n"
               "The packages of what is running now: every process (or the PIDs given),\n"
               "each mapped ELF object with its package, from the package note in memory,\n"
               "else from the package database of the root the process runs in (a\n"
               "container's or chroot's own).  Objects replaced or deleted on disk since\n"
               "they were mapped are flagged: the process needs a restart, and the version\n"
               "in memory is shown beside the one installed.\n"
               "\n"
               "  -u, --user USER        only processes of USER (name or UID)\n"
               "  -e, --exe PATH         only processes running PATH\n"
               "  -r, --root DIR         only processes whose root directory is DIR\n"
               "  -R, --needs-restart    only processes that run replaced or deleted objects\n"
               "  -b, --by-package       which processes use each package and version\n"
               "  -j, --json             one JSON object per process per line (with\n"
               "                         --by-package: one per package and process)\n"
               "  -f, --format FORMAT    table (default), json (as --json), spdx (SPDX 2.3),\n"
               "                         spdx3 (SPDX 3.0.1 JSON-LD) or cyclonedx (CycloneDX\n"
               "                         1.6): an SBOM of what is running, one package per\n"
               "                         package and version in memory, the processes\n"
               "                         depending on them\n"
               "      --cyclonedx-version 1.6|1.7|1.5\n"
               "                         the CycloneDX version written (1.6 by default)\n"
               "      --no-database      never ask package databases\n"
               "      --no-kernel        an SBOM without the running kernel (by default its\n"
               "                         component holds its loaded modules)\n"
               "  -k, --kernel           only the running kernel and its loaded modules:\n"
               "                         release, build-id, package (its own note, else the\n"
               "                         database package of the installed image or module\n"
               "                         file whose build-id is the running one), whether a\n"
               "                         reboot is needed and why (a table, or one JSON\n"
               "                         object with --json)\n"
               "      --needs-reboot     only whether the running kernel needs a reboot, each\n"
               "                         reason on a line: exit status 0 no, 1 yes\n"
               "      --sysfs DIR        read the kernel from DIR laid out as /sys\n"
               "      --osrelease FILE   the running release from FILE (default: uname)\n"
               "                         (with --kernel, --needs-reboot or --sysfs, --root DIR\n"
               "                         is where the installed image, modules and database\n"
               "                         are)\n"
               "  -h, --help             this help\n"
               "\n"
               "SOURCE_DATE_EPOCH, when set, fixes the SBOM creation time and makes its\n"
               "namespace or serial number reproducible.\n"
               "\n"
               "Processes that cannot be read (other users', without privileges) are\n"
               "counted on standard error.  The table of every process ends with the\n"
               "kernel section.  Exit status: 0, or 2 on an error; with --needs-reboot,\n"
               "1 when a reboot is needed, 2 when it cannot be told.\n");
}

/* S escaped into BUF (for a column width; cut at CAP). */
static const char *esc(char *buf, size_t cap, const char *s) {
        pn_escape(buf, cap, s, strlen(s), false);
        return buf;
}


static void module_package(const pkgnote_module *m, struct modpkg *mp) {
        *mp = (struct modpkg){.from = "none"};
        const pkgnote_info *info = pkgnote_module_info(m);
        int origin = pkgnote_module_package_origin(m);
        if (info && pkgnote_info_package_count(info) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(info, 0);
                mp->type = pkgnote_metadata_type(md);
                mp->name = pkgnote_metadata_name(md);
                mp->version = pkgnote_metadata_version(md);
                mp->from = "note";
        } else if (origin == PKGNOTE_ORIGIN_DATABASE) {
                mp->type = pkgnote_module_db_type(m);
                mp->name = pkgnote_module_db_name(m);
                mp->version = pkgnote_module_db_version(m);
                mp->from = "database";
        }
        bool replaced = pkgnote_module_replaced(m), deleted = pkgnote_module_deleted(m);
        mp->restart = pkgnote_module_needs_restart(m);
        mp->why = replaced ? "replaced" : deleted ? "deleted" : NULL;
        const pkgnote_info *now = replaced ? pkgnote_module_installed_info(m) : NULL;
        if (now && pkgnote_info_package_count(now) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(now, 0);
                mp->now_name = pkgnote_metadata_name(md);
                mp->now_version = pkgnote_metadata_version(md);
        } else if (replaced && pkgnote_module_db_state(m) == PKGNOTE_DB_REPLACED && pkgnote_module_db_name(m)) {
                mp->now_name = pkgnote_module_db_name(m);
                mp->now_version = pkgnote_module_db_version(m);
        }
}

static bool needs_restart(const pkgnote_core *c) {
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                struct modpkg mp;
                module_package(pkgnote_core_module(c, i), &mp);
                if (mp.restart)
                        return true;
        }
        return false;
}

static const char *user_name(int uid, char *buf, size_t cap) {
        struct passwd *pw = uid >= 0 ? getpwuid((uid_t)uid) : NULL;
        if (pw)
                snprintf(buf, cap, "%s", pw->pw_name);
        else
                snprintf(buf, cap, "%d", uid);
        return buf;
}

static void package_text(char *buf, size_t cap, const char *name, const char *version) {
        char a[512] = "", b[512] = "";
        snprintf(buf, cap, "%s %s", esc(a, sizeof a, name ? name : "(unnamed)"),
                 esc(b, sizeof b, version ? version : "?"));
}

static void print_process(FILE *f, const pkgnote_core *c, const pkgnote_process_info *p) {
        char user[64], exe[1024] = "";
        fprintf(f, "%7d %-10s %s\n", p->pid, user_name(p->uid, user, sizeof user),
                esc(exe, sizeof exe, p->executable ? p->executable : p->command ? p->command : "?"));
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                if (pkgnote_module_is_vdso(m))
                        continue;
                struct modpkg mp;
                module_package(m, &mp);
                char path[1024] = "", pkg[1100] = "-";
                if (mp.name)
                        package_text(pkg, sizeof pkg, mp.name, mp.version);
                fprintf(f, "        %-52s %-36s %s", esc(path, sizeof path, pkgnote_module_path(m)), pkg, mp.from);
                if (mp.restart) {
                        fprintf(f, "%*s needs-restart (%s", (int)(8 - strlen(mp.from)), "", mp.why);
                        if (mp.now_name) {
                                char now[1100];
                                package_text(now, sizeof now, mp.now_name, mp.now_version);
                                fprintf(f, "; installed: %s", now);
                        }
                        fputc(')', f);
                }
                fputc('\n', f);
        }
}

static int add_use(struct uses *u, const struct modpkg *mp, int pid) {
        char pkg[1100], key[1200];
        package_text(pkg, sizeof pkg, mp->name, mp->version);
        snprintf(key, sizeof key, "%s (%s)", pkg, mp->from);
        for (size_t i = u->n; i-- > 0 && u->v[i].pid == pid;)
                if (!strcmp(u->v[i].key, key)) { /* the same package twice in one process */
                        u->v[i].restart |= mp->restart;
                        return 0;
                }
        if (u->n == u->cap) {
                size_t cap = u->cap ? u->cap * 2 : 256;
                struct use *v = realloc(u->v, cap * sizeof *v);
                if (!v)
                        return -ENOMEM;
                u->v = v;
                u->cap = cap;
        }
        if (!(u->v[u->n].key = strdup(key)))
                return -ENOMEM;
        u->v[u->n].pid = pid;
        u->v[u->n++].restart = mp->restart;
        return 0;
}

static int cmp_use(const void *a, const void *b) {
        const struct use *x = a, *y = b;
        int r = strcmp(x->key, y->key);
        return r ? r : (x->pid > y->pid) - (x->pid < y->pid);
}

static void print_by_package(FILE *f, struct uses *u) {
        qsort(u->v, u->n, sizeof *u->v, cmp_use);
        for (size_t i = 0; i < u->n;) {
                size_t j = i;
                while (j < u->n && !strcmp(u->v[j].key, u->v[i].key))
                        j++;
                fprintf(f, "%s: %zu process%s\n       ", u->v[i].key, j - i, j - i == 1 ? "" : "es");
                for (size_t k = i; k < j; k++)
                        fprintf(f, " %d%s", u->v[k].pid, u->v[k].restart ? "(needs-restart)" : "");
                fputc('\n', f);
                i = j;
        }
}

/* --by-package --json: one flat object per package and process. */
static int json_uses(FILE *f, const pkgnote_core *c, const pkgnote_process_info *p) {
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *m = pkgnote_core_module(c, i);
                struct modpkg mp;
                module_package(m, &mp);
                if (!mp.name)
                        continue;
                pkgnote_json_member mem[] = {
                        PKGNOTE_JSON_STRING("type", mp.type ? mp.type : ""),
                        PKGNOTE_JSON_STRING("name", mp.name),
                        PKGNOTE_JSON_STRING("version", mp.version ? mp.version : ""),
                        PKGNOTE_JSON_STRING("from", mp.from),
                        PKGNOTE_JSON_NUMBER("pid", p->pid),
                        PKGNOTE_JSON_STRING("path", pkgnote_module_path(m)),
                        PKGNOTE_JSON_NUMBER("needsRestart", mp.restart),
                        PKGNOTE_JSON_STRING("installedVersion", mp.now_version ? mp.now_version : ""),
                };
                char *j;
                int r = tool_put_json(f, pkgnote_core_to_json(NULL, NULL, mem, sizeof mem / sizeof mem[0], &j), &j);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The SBOM of the processes added to DOC, on standard output. */
static int print_sbom(const pkgnote_process_sbom *doc, int format) {
        pkgnote_sbom_options so;
        if (tool_sbom_options("ps", "pkgnote-ps", &so) < 0)
                return EXIT_FAILURE_;
        char *text;
        int r = pkgnote_process_sbom_write(doc, format, &so, &text);
        if (r < 0)
                return tool_error("ps", "cannot write the SBOM", r);
        fputs(text, stdout);
        fputc('\n', stdout);
        free(text);
        return EXIT_OK;
}

/* Whether process PID passes the filters that need no reading of it: 1,
 * 0, or -EACCES when the caller may not see what they ask. */
static int wanted_early(int pid, const struct ps_opts *o) {
        char path[64];
        if (o->have_root) {
                struct stat st;
                snprintf(path, sizeof path, "/proc/%d/root", pid);
                if (stat(path, &st) < 0)
                        return errno == EACCES || errno == EPERM ? -EACCES : 0;
                if (st.st_dev != o->root_dev || st.st_ino != o->root_ino)
                        return 0;
        }
        if (o->exe) {
                char target[PATH_MAX];
                snprintf(path, sizeof path, "/proc/%d/exe", pid);
                ssize_t n = readlink(path, target, sizeof target - 1);
                if (n <= 0)
                        return n < 0 && (errno == EACCES || errno == EPERM) ? -EACCES : 0;
                target[n] = 0;
                if (strcmp(target, o->exe))
                        return 0;
        }
        return 1;
}

static int cmp_int(const void *a, const void *b) {
        int x = *(const int *)a, y = *(const int *)b;
        return (x > y) - (x < y);
}

/* Every process's PID, ascending. */
static int all_pids(int **ret, size_t *n) {
        DIR *d = opendir("/proc");
        if (!d)
                return -errno;
        size_t cap = 512;
        int *v = malloc(cap * sizeof *v);
        *n = 0;
        struct dirent *de;
        while (v && (de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0 || pid > INT_MAX)
                        continue;
                if (*n == cap) {
                        int *w = realloc(v, (cap *= 2) * sizeof *v);
                        if (!w) {
                                free(v);
                                v = NULL;
                                break;
                        }
                        v = w;
                }
                v[(*n)++] = (int)pid;
        }
        closedir(d);
        if (!v)
                return -ENOMEM;
        qsort(v, *n, sizeof *v, cmp_int);
        *ret = v;
        return 0;
}

/* ---- the running kernel ---- */

static int kernel_read(const struct ps_opts *o, pkgnote_kernel **k) {
        pkgnote_kernel_options ko = PKGNOTE_KERNEL_OPTIONS_INIT;
        ko.sysfs = o->sysfs;
        ko.osrelease = o->osrelease;
        ko.root = (o->kernel || o->needs_reboot || o->sysfs) ? o->root_path : NULL;
        ko.flags = o->co.no_database ? PKGNOTE_KERNEL_NO_DATABASE : 0;
        return pkgnote_kernel_read(&ko, k);
}

static void kernel_pkg_text(char *buf, size_t cap, const char *name, const char *version, const char *from,
                            const char *binary) {
        char n[512], v[256], b[512] = "";
        esc(n, sizeof n, name);
        esc(v, sizeof v, version ? version : "?");
        if (binary)
                esc(b, sizeof b, binary);
        snprintf(buf, cap, "%s %s (%s%s%s)", n, v, from, binary ? ": " : "", b);
}

static void kernel_reasons(FILE *f, const pkgnote_kernel *k, const char *indent) {
        for (unsigned bit = 1; bit <= PKGNOTE_REBOOT_NEWER_PACKAGE; bit <<= 1) {
                const char *t = pkgnote_kernel_reboot_text(k, bit);
                if (t) {
                        char e[2048];
                        fprintf(f, "%s%s: %s\n", indent, pkgnote_kernel_reboot_name(bit), esc(e, sizeof e, t));
                }
        }
}

static void print_kernel(FILE *f, const pkgnote_kernel *k) {
        pkgnote_kernel_info ki = PKGNOTE_KERNEL_INFO_INIT;
        pkgnote_kernel_get(k, &ki);
        char a[1024], b[1024], pkg[1400] = "-";
        fprintf(f, "KERNEL %s\n", esc(a, sizeof a, ki.release));
        fprintf(f, "  %-12s %s\n", "build-id", ki.build_id ? ki.build_id : "-");
        if (ki.build_salt)
                fprintf(f, "  %-12s %s (not a package)\n", "build salt", esc(a, sizeof a, ki.build_salt));
        if (ki.note)
                kernel_pkg_text(pkg, sizeof pkg, pkgnote_metadata_name(ki.note) ? pkgnote_metadata_name(ki.note) : "?",
                                pkgnote_metadata_version(ki.note), "note", NULL);
        else if (ki.db_name)
                kernel_pkg_text(pkg, sizeof pkg, ki.db_name, ki.db_version, "database", ki.db_binary);
        fprintf(f, "  %-12s %s\n", "package", pkg);
        if (ki.image)
                fprintf(f, "  %-12s %s build-id %s\n", "image", esc(a, sizeof a, ki.image),
                        ki.image_build_id ? ki.image_build_id : ki.image_error ? esc(b, sizeof b, ki.image_error) : "-");
        else
                fprintf(f, "  %-12s %s\n", "image", "none installed");
        fprintf(f, "  %-12s %s\n", "reboot", ki.reboot ? "needed" : ki.undecided ? "cannot tell" : "not needed");
        kernel_reasons(f, k, "    ");
        if (ki.undecided)
                fprintf(f, "    cannot tell: %s\n", esc(a, sizeof a, ki.undecided));
        if (ki.module_count)
                fprintf(f, "  %-24s %-40s %s\n", "MODULE", "BUILD-ID", "PACKAGE");
        for (size_t i = 0; i < ki.module_count; i++) {
                pkgnote_kernel_module m = PKGNOTE_KERNEL_MODULE_INIT;
                if (pkgnote_kernel_module_get(k, i, &m) <= 0)
                        break;
                char p[2200] = "-";
                if (m.db_name)
                        kernel_pkg_text(p, sizeof p, m.db_name, m.db_version, "database", m.db_binary);
                else if (!m.file)
                        snprintf(p, sizeof p, "- (no module file)");
                else if (!m.file_build_id)
                        snprintf(p, sizeof p, "- (%s: %s)", esc(a, sizeof a, m.file), m.file_error ? esc(b, sizeof b, m.file_error) : "?");
                else if (!m.build_id || strcmp(m.build_id, m.file_build_id))
                        snprintf(p, sizeof p, "- (%s has build-id %s)", esc(a, sizeof a, m.file), m.file_build_id);
                fprintf(f, "  %-24s %-40s %s\n", esc(b, sizeof b, m.name), m.build_id ? m.build_id : "-", p);
        }
}

/* --kernel and --needs-reboot: the kernel alone. */
static int kernel_only(const struct ps_opts *o) {
        pkgnote_kernel *k = NULL;
        int r = kernel_read(o, &k);
        if (r < 0)
                return tool_error(o->sysfs ? o->sysfs : "/sys", "cannot read the running kernel", r);
        int ret = EXIT_OK;
        pkgnote_kernel_info ki = PKGNOTE_KERNEL_INFO_INIT;
        pkgnote_kernel_get(k, &ki);
        if (o->json) {
                char *j = NULL;
                r = tool_put_json(stdout, pkgnote_kernel_to_json(k, &j), &j);
                if (r < 0)
                        ret = tool_error("ps", "cannot write the report", r);
        } else if (o->needs_reboot) {
                char e[2048];
                printf("%s\n", ki.reboot ? "reboot needed" : ki.undecided ? "cannot tell whether a reboot is needed" : "no reboot needed");
                kernel_reasons(stdout, k, "  ");
                if (ki.undecided)
                        printf("  cannot tell: %s\n", esc(e, sizeof e, ki.undecided));
        } else
                print_kernel(stdout, k);
        /* 1: a reboot is needed; 2: none was found, but it cannot be told. */
        if (ret == EXIT_OK && o->needs_reboot && ki.reboot)
                ret = 1;
        else if (ret == EXIT_OK && o->needs_reboot && ki.undecided)
                ret = 2;
        pkgnote_kernel_free(k);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}

static int parse_args(int argc, char **argv, struct ps_opts *o) {
        enum { OPT_NO_DATABASE = 256, OPT_CYCLONEDX_VERSION, OPT_NEEDS_REBOOT, OPT_SYSFS, OPT_OSRELEASE, OPT_NO_KERNEL };
        static const struct option longopts[] = {
                {"user", required_argument, NULL, 'u'},
                {"exe", required_argument, NULL, 'e'},
                {"root", required_argument, NULL, 'r'},
                {"needs-restart", no_argument, NULL, 'R'},
                {"by-package", no_argument, NULL, 'b'},
                {"json", no_argument, NULL, 'j'},
                {"format", required_argument, NULL, 'f'},
                {"no-database", no_argument, NULL, OPT_NO_DATABASE},
                {"cyclonedx-version", required_argument, NULL, OPT_CYCLONEDX_VERSION},
                {"kernel", no_argument, NULL, 'k'},
                {"needs-reboot", no_argument, NULL, OPT_NEEDS_REBOOT},
                {"sysfs", required_argument, NULL, OPT_SYSFS},
                {"osrelease", required_argument, NULL, OPT_OSRELEASE},
                {"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        int ch;
        while ((ch = tool_getopt(argc, argv, "u:e:r:Rbjf:kh", longopts)) >= 0) {
                switch (ch) {
                case 'u': {
                        struct passwd *pw = getpwnam(optarg);
                        char *end;
                        errno = 0;
                        unsigned long uid = strtoul(optarg, &end, 10);
                        if (pw)
                                o->user = pw->pw_uid;
                        else if (!errno && *optarg && !*end && uid < UINT_MAX)
                                o->user = (uid_t)uid;
                        else
                                return tool_fail("ps: no user '%s'", optarg);
                        o->have_user = true;
                        break;
                }
                case 'e': o->exe = optarg; break;
                case 'r': {
                        struct stat st;
                        if (stat(optarg, &st) < 0 || !S_ISDIR(st.st_mode))
                                return tool_error(optarg, "cannot use as a root directory", -(errno ? errno : ENOTDIR));
                        o->root_dev = st.st_dev;
                        o->root_ino = st.st_ino;
                        o->have_root = true;
                        o->root_path = optarg;
                        break;
                }
                case 'R': o->restart_only = true; break;
                case 'b': o->by_package = true; break;
                case 'j': o->format = PS_JSON; break;
                case 'f':
                        if (!strcmp(optarg, "table"))
                                o->format = PS_TABLE;
                        else if (!strcmp(optarg, "json"))
                                o->format = PS_JSON;
                        else if (!strcmp(optarg, "spdx"))
                                o->format = PS_SPDX;
                        else if (!strcmp(optarg, "spdx3"))
                                o->format = PS_SPDX3;
                        else if (!strcmp(optarg, "cyclonedx"))
                                o->format = PS_CYCLONEDX;
                        else
                                return tool_fail("ps: unknown format '%s' (table, json, spdx, spdx3, cyclonedx)", optarg);
                        break;
                case OPT_NO_DATABASE: o->co.no_database = 1; break;
                case OPT_CYCLONEDX_VERSION:
                        if (tool_parse_cyclonedx_version("ps", optarg, &o->cyclonedx) < 0)
                                return EXIT_FAILURE_;
                        break;
                case 'k': o->kernel = true; break;
                case OPT_NEEDS_REBOOT: o->needs_reboot = true; break;
                case OPT_SYSFS: o->sysfs = optarg; break;
                case OPT_OSRELEASE: o->osrelease = optarg; break;
                case OPT_NO_KERNEL: o->no_kernel = true; break;
                case 'h': ps_help(); return 1;
                default: return EXIT_FAILURE_;
                }
        }
        o->json = o->format == PS_JSON;
        if ((o->kernel || o->needs_reboot) && (o->format == PS_SPDX || o->format == PS_SPDX3 || o->format == PS_CYCLONEDX || o->by_package))
                return tool_fail("ps: --kernel and --needs-reboot are a table or JSON layout of their own");
        if ((o->kernel || o->needs_reboot) && optind < argc)
                return tool_fail("ps: --kernel and --needs-reboot take no process IDs");
        if (o->no_kernel && (o->kernel || o->needs_reboot || o->sysfs || o->osrelease))
                return tool_fail("ps: --no-kernel leaves out the kernel that --kernel, --needs-reboot, --sysfs and --osrelease ask for");
        if (o->by_package && (o->format == PS_SPDX || o->format == PS_SPDX3 || o->format == PS_CYCLONEDX))
                return tool_fail("ps: --by-package is a table or JSON layout; an SBOM relates packages and processes itself");
        return 0;
}

/* The PIDs named on the command line, or every process's. */
static int chosen_pids(int argc, char **argv, int **pids, size_t *n) {
        if (optind == argc) {
                int r = all_pids(pids, n);
                return r < 0 ? tool_error("/proc", "cannot list processes", r) : 0;
        }
        *n = (size_t)(argc - optind);
        if (!(*pids = calloc(*n, sizeof **pids)))
                return tool_oom(NULL);
        for (size_t i = 0; i < *n; i++) {
                const char *a = argv[optind + (int)i];
                char *end;
                errno = 0;
                long pid = strtol(a, &end, 10);
                if (errno || *end || end == a || pid <= 0 || pid > INT32_MAX) {
                        free(*pids);
                        return tool_fail("ps: '%s' is not a process ID", a);
                }
                (*pids)[i] = (int)pid;
        }
        return 0;
}

int cmd_ps(int argc, char **argv) {
        struct ps_opts o = {.co = PKGNOTE_CORE_OPTIONS_INIT, .cyclonedx = PKGNOTE_SBOM_CYCLONEDX};
        int r = parse_args(argc, argv, &o);
        if (r)
                return r == 1 ? EXIT_OK : r;
        if (o.kernel || o.needs_reboot)
                return kernel_only(&o);
        int *pids = NULL;
        size_t n_pids = 0;
        if ((r = chosen_pids(argc, argv, &pids, &n_pids)) != 0)
                return r;
        bool named = optind < argc;
        pkgnote_dbcache *cache;
        if ((r = pkgnote_dbcache_new(&cache)) < 0) {
                free(pids);
                return tool_error("ps", "cannot start", r);
        }
        struct uses uses = {0};
        size_t unreadable = 0, shown = 0;
        int ret = EXIT_OK;
        bool sbom = o.format == PS_SPDX || o.format == PS_SPDX3 || o.format == PS_CYCLONEDX;
        pkgnote_process_sbom *doc = NULL;
        if (sbom && (r = pkgnote_process_sbom_new(&doc)) < 0)
                ret = tool_error("ps", "cannot start", r);
        else if (!o.json && !o.by_package && !sbom)
                printf("%7s %-10s %s\n        %-52s %-36s %-8s %s\n", "PID", "USER", "EXE", "MODULE", "PACKAGE", "FROM",
                       "FLAGS");
        for (size_t i = 0; i < n_pids && ret == EXIT_OK; i++) {
                int pid = pids[i];
                pkgnote_core *c;
                r = wanted_early(pid, &o);
                if (r > 0)
                        r = pkgnote_process_open_cached(pid, &o.co, cache, &c);
                else if (r == 0)
                        continue;
                if (r == -EACCES || r == -EPERM) {
                        unreadable++;
                        continue;
                }
                if (r < 0) {
                        /* Gone since it was listed, or a kernel thread: nothing maps
                         * there.  Named PIDs are said to be missing; any other
                         * failure is said too, so that no process drops out of
                         * the listing unseen. */
                        if (named)
                                ret = tool_error(argv[optind + (int)i], "cannot read process", r);
                        else if (r != -ESRCH && r != -ENOENT) {
                                char what[32], msg[512];
                                snprintf(what, sizeof what, "process %d", pid);
                                snprintf(msg, sizeof msg, "cannot read: %s", pkgnote_last_error()[0] ? pkgnote_last_error() : strerror(-r));
                                tool_warn_ignoring(what, msg);
                        }
                        continue;
                }
                pkgnote_process_info p = {.size = sizeof p};
                pkgnote_core_process(c, &p);
                /* A process that exited while it was read maps nothing. */
                bool keep = pkgnote_core_module_count(c) > 0 && (!o.have_user || p.uid == (int)o.user) &&
                            (!o.restart_only || needs_restart(c));
                if (keep) {
                        shown++;
                        if (sbom)
                                r = pkgnote_process_sbom_add(doc, c);
                        else if (o.by_package && o.json)
                                r = json_uses(stdout, c, &p);
                        else if (o.by_package) {
                                r = 0;
                                for (size_t k = 0; k < pkgnote_core_module_count(c) && r >= 0; k++) {
                                        struct modpkg mp;
                                        module_package(pkgnote_core_module(c, k), &mp);
                                        if (mp.name)
                                                r = add_use(&uses, &mp, pid);
                                }
                        } else if (o.json) {
                                char user[64], *j;
                                pkgnote_json_member mem[] = {
                                        PKGNOTE_JSON_STRING("user", user_name(p.uid, user, sizeof user)),
                                        PKGNOTE_JSON_NUMBER("needsRestart", needs_restart(c)),
                                };
                                r = tool_put_json(stdout, pkgnote_core_to_json(c, NULL, mem, 2, &j), &j);
                        } else
                                print_process(stdout, c, &p);
                        if (r < 0)
                                ret = tool_error("ps", "cannot write the report", r);
                        /* What was cut or passed over, as pid says it (JSON
                         * also has it in each object's problems). */
                        char name[16];
                        snprintf(name, sizeof name, "%d", pid);
                        for (size_t k = 0; k < pkgnote_core_problem_count(c); k++)
                                tool_warn_ignoring(name, pkgnote_core_problem(c, k)->message);
                }
                pkgnote_core_free(c);
        }
        if (o.by_package && !o.json && ret == EXIT_OK)
                print_by_package(stdout, &uses);
        if (!named && !sbom && !o.json && !o.by_package && !o.have_user && !o.exe && !o.have_root && !o.restart_only &&
            ret == EXIT_OK) {
                /* The table of every process ends with the kernel's. */
                pkgnote_kernel *k = NULL;
                r = kernel_read(&o, &k);
                if (r < 0)
                        tool_warn_ignoring("/sys/kernel", pkgnote_last_error());
                else {
                        putchar('\n');
                        print_kernel(stdout, k);
                }
                pkgnote_kernel_free(k);
        }
        if (sbom && ret == EXIT_OK && !o.no_kernel) {
                /* What runs on the kernel, and the kernel: read from a
                 * fixture tree (--sysfs) it must be there; the host's may
                 * not be readable (a container without /sys). */
                pkgnote_kernel *k = NULL;
                r = kernel_read(&o, &k);
                if (r >= 0)
                        r = pkgnote_process_sbom_add_kernel(doc, k);
                if (r == -ENOMEM)
                        ret = tool_oom("ps");
                else if (r < 0 && o.sysfs)
                        ret = tool_error(o.sysfs, "cannot read the running kernel", r);
                else if (r < 0)
                        tool_warn_ignoring("/sys/kernel", pkgnote_last_error());
                pkgnote_kernel_free(k);
        }
        if (sbom && ret == EXIT_OK)
                ret = print_sbom(doc, o.format == PS_SPDX    ? PKGNOTE_SBOM_SPDX
                                      : o.format == PS_SPDX3 ? PKGNOTE_SBOM_SPDX_3
                                                             : o.cyclonedx);
        pkgnote_process_sbom_free(doc);
        for (size_t i = 0; i < uses.n; i++)
                free(uses.v[i].key);
        free(uses.v);
        pkgnote_dbcache_free(cache);
        free(pids);
        if (unreadable)
                fprintf(stderr, "%s: ps: %zu process%s could not be read (permission denied); %zu shown\n",
                        program_name, unreadable, unreadable == 1 ? "" : "es", shown);
        if (fflush(stdout) != 0)
                return tool_fail("cannot write output: %s", strerror(errno));
        return ret;
}
