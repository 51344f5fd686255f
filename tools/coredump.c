/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote-coredump: a kernel.core_pattern pipe handler for machines
 * without systemd-coredump.
 *
 *   |/usr/libexec/pkgnote-coredump %P %u %g %s %t %c %h %e
 *
 * Reads the core from standard input as fast as it comes (the crashing
 * process is held until the kernel has written it), compresses it with
 * zstd into the state directory, then, with standard input closed, writes
 * the JSON report beside it, enforces the size limits (oldest entries
 * first) and logs one line with the executable's package.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "coredump-journal.h"
#include "tool.h"
#include "fileio.h"
#include "output.h"

#define DEFAULT_CONFIG "/etc/pkgnote/coredump.conf"
#define DEFAULT_DEBUGINFOD_CACHE "/var/cache/pkgnote/debuginfod"

#if HAVE_ZSTD
#include <zstd.h>
#endif

struct handler {
        const char *state_dir;
        uint64_t max_core;  /* uncompressed bytes kept per core */
        uint64_t max_use;   /* bytes the state directory may hold */
        const char *log_file;
        int pid, uid, gid, sig;
        int64_t time;
        long long core_limit;
        const char *host, *comm;
        int root_fd; /* the crashed process's root directory, or -1 */
        /* From the configuration: a stack trace in the report, and debug
         * info fetched for it from the allowed servers only. */
        bool stack;
        char *allow, *urls, *cache;
        unsigned timeout_ms, budget_ms;
};

/* The crash's journal entry, filled as the handler learns its parts. */
static struct crash_journal journal;

static void log_line(const struct handler *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_line(const struct handler *h, const char *fmt, ...) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        /* Hostile names must not forge log lines. */
        for (char *p = msg; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
        if (h->log_file) {
                FILE *f = fopen(h->log_file, "ae");
                if (f) {
                        fprintf(f, "%s\n", msg);
                        fclose(f);
                }
        } else
                syslog(LOG_CRIT, "%s", msg);
}

/* The disk filled before --max-use was reached: the oldest whole entry
 * goes (one per call), so that a new crash is kept rather than lost. */
struct room {
        int dirfd;
        const char *keep;
};

static int make_room(void *userdata) {
        const struct room *r = userdata;
        return pkgnote_crash_store_vacuum(r->dirfd, 0, r->keep, 1);
}

/* Copies standard input into FD, compressed when zstd is built in, up to
 * MAX bytes; the rest of the input is read and dropped so the kernel is
 * never left waiting.  *truncated tells whether that happened. */
static int store_core(int fd, uint64_t max, struct room *room, uint64_t *size, bool *truncated) {
        static uint8_t in[1 << 17];
        *size = 0;
        *truncated = false;
#if HAVE_ZSTD
        ZSTD_CCtx *z = ZSTD_createCCtx();
        static uint8_t out[1 << 17];
        if (!z)
                return -ENOMEM;
        ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 3);
        ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
#endif
        int r = 0;
        for (;;) {
                ssize_t n = pn_read_full(STDIN_FILENO, in, sizeof in);
                if (n < 0) {
                        r = -errno;
                        break;
                }
                size_t keep = (size_t)n;
                if (*size + keep > max) {
                        keep = (size_t)(max - *size);
                        *truncated = true;
                }
                *size += keep;
                bool end = n == 0;
#if HAVE_ZSTD
                ZSTD_inBuffer ib = {in, keep, 0};
                for (;;) {
                        ZSTD_outBuffer ob = {out, sizeof out, 0};
                        size_t left = ZSTD_compressStream2(z, &ob, &ib, end ? ZSTD_e_end : ZSTD_e_continue);
                        if (ZSTD_isError(left)) {
                                r = -EIO;
                                break;
                        }
                        if ((r = pn_write_full_room(fd, out, ob.pos, make_room, room)) < 0)
                                break;
                        if (end ? left == 0 : ib.pos == ib.size)
                                break;
                }
#else
                r = pn_write_full_room(fd, in, keep, make_room, room);
#endif
                if (r < 0 || end)
                        break;
        }
#if HAVE_ZSTD
        ZSTD_freeCCtx(z);
#endif
        return r;
}

/* Writes the JSON report of CORE into FD (stdout redirected there). */
/* Writes TEXT (freed) as the new file NAME of the store; 1 when written. */
static int write_text(struct room *room, const char *name, char *text) {
        pn_output out;
        int r = text ? pn_output_open(&out, room->dirfd, name, PN_OUT_EXCL) : -ENOMEM;
        if ((r == -ENOSPC || r == -EDQUOT) && make_room(room) > 0)
                r = pn_output_open(&out, room->dirfd, name, PN_OUT_EXCL);
        if (r == 0) {
                /* A failed write drops the temporary (the name stays free). */
                r = pn_write_full_room(out.fd, text, strlen(text), make_room, room);
                if (r == 0)
                        r = pn_output_commit(&out);
                else
                        pn_output_abort(&out);
        }
        free(text);
        return r;
}

/* The report of a core that cannot be read (truncated, say): what the
 * kernel told, so that the crash still has an entry. */
static char *minimal_report(const struct handler *h, const char *core_path) {
        pkgnote_json_member m[10];
        size_t n = 0;
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "pid", .number = h->pid};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "uid", .number = h->uid};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "gid", .number = h->gid};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "signal", .number = h->sig};
        if (pkgnote_signal_name(h->sig))
                m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "signalName", .string = pkgnote_signal_name(h->sig)};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "time", .number = h->time};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "hostname", .string = h->host};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "command", .string = h->comm};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "coreFile", .string = core_path};
        m[n++] = (pkgnote_json_member){.size = sizeof(pkgnote_json_member), .key = "error", .string = "the core cannot be read"};
        char *text;
        return pkgnote_core_to_json(NULL, NULL, m, n, &text) < 0 ? NULL : text;
}

static int write_report(const struct handler *h, const char *core_path, struct room *room, const char *report_name,
                        char *package, size_t package_len) {
        pkgnote_core *c;
        /* The files the process mapped are on this machine: disk fallback
         * stays on, verified by build-id, and resolved inside the process's
         * own root (a container's file of that name is not the host's). */
        pkgnote_core_options o = {0};
        char root[64];
        if (h->root_fd >= 0) {
                snprintf(root, sizeof root, "/proc/self/fd/%d", h->root_fd);
                o.root = root;
        }
        int r = pkgnote_core_open(core_path, &o, &c);
        package[0] = 0;
        if (r < 0) {
                r = write_text(room, report_name, minimal_report(h, core_path));
                return r < 0 ? r : 1;
        }
        const pkgnote_module *m = pkgnote_core_main_module(c);
        const pkgnote_info *info = m ? pkgnote_module_info(m) : NULL;
        if (info && pkgnote_info_package_count(info) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(info, 0);
                snprintf(package, package_len, "%s%s%s", pkgnote_metadata_name(md) ? pkgnote_metadata_name(md) : "?",
                         pkgnote_metadata_version(md) ? "/" : "",
                         pkgnote_metadata_version(md) ? pkgnote_metadata_version(md) : "");
        } else if (m && pkgnote_module_package_origin(m) == PKGNOTE_ORIGIN_DATABASE)
                snprintf(package, package_len, "%s/%s (package database)", pkgnote_module_db_name(m),
                         pkgnote_module_db_version(m));
        /* The stack trace is made from the stored core, after the kernel
         * has let the process go; downloads only from the allowed servers
         * (a module's note naming another server asks none). */
        pkgnote_stack *st = NULL;
        if (h->stack || h->allow) {
                pkgnote_stack_options so = PKGNOTE_STACK_OPTIONS_INIT;
                if (h->allow) {
                        so.flags |= PKGNOTE_STACK_DEBUGINFOD;
                        so.debuginfod_allow = h->allow;
                        so.cache_path = h->cache ? h->cache : DEFAULT_DEBUGINFOD_CACHE;
                        so.module_timeout_ms = h->timeout_ms;
                        so.total_timeout_ms = h->budget_ms;
                        if (h->urls)
                                setenv("DEBUGINFOD_URLS", h->urls, 1);
                        else
                                unsetenv("DEBUGINFOD_URLS");
                }
                if (pkgnote_core_stack_with(c, &so, &st) < 0)
                        st = NULL;
        }
        char *text = NULL;
        r = pkgnote_crash_report(c, st, h->time, h->host, core_path, &text);
        crash_journal_core(&journal, c, st);
        pkgnote_stack_free(st);
        pkgnote_core_free(c);
        if (r < 0) {
                free(text);
                return r;
        }
        return write_text(room, report_name, text);
}

static char *trim(char *s) {
        s += strspn(s, " \t");
        size_t n = strlen(s);
        while (n > 0 && strchr(" \t\r\n", s[n - 1]))
                s[--n] = 0;
        return s;
}

static bool parse_ms(const char *v, unsigned *ms) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || end == v || *end || n == 0 || n > 3600)
                return false;
        *ms = (unsigned)n * 1000;
        return true;
}

/* The longest line of a setting, without its newline.  A comment line
 * is skipped whatever its length: it never sets anything. */
#define MAX_CONFIG_LINE 4096u

enum line_state { LINE_OK, LINE_TOO_LONG, LINE_NUL };

/* Reads the next line of F into LINE (MAX_CONFIG_LINE + 1 bytes), without
 * its newline; false at the end of the file.  The whole line is consumed
 * whatever its length, so line numbers stay right; *STATE says when it is
 * not usable: longer than MAX_CONFIG_LINE, or holding a NUL byte. */
static bool read_config_line(FILE *f, char *line, enum line_state *state) {
        size_t n = 0;
        bool any = false, blank = true, comment = false;
        *state = LINE_OK;
        for (int ch; (ch = getc(f)) != EOF;) {
                any = true;
                if (ch == '\n')
                        break;
                if (comment)
                        continue;
                if (blank && ch != ' ' && ch != '\t') {
                        blank = false;
                        comment = ch == '#';
                }
                if (ch == 0 && *state == LINE_OK)
                        *state = LINE_NUL;
                if (n < MAX_CONFIG_LINE)
                        line[n++] = (char)ch;
                else
                        *state = LINE_TOO_LONG;
        }
        line[n] = 0;
        if (comment)
                *state = LINE_OK; /* kept as far as its '#': nothing more is read from it */
        return any;
}

/* The configuration file, KEY = VALUE lines and # comments:
 *   stack = yes|no               a stack trace in each report (default no)
 *   debuginfod-allow = URL...    fetch debug info at crash time, from these
 *                                servers only (default none: no network)
 *   debuginfod-urls = URL...     servers for modules whose note names none
 *   debuginfod-timeout = SECONDS per module (default 5)
 *   debuginfod-budget = SECONDS  per crash (default 30)
 *   debuginfod-cache = DIR       (default /var/cache/pkgnote/debuginfod)
 * A missing default file is no configuration.  Errors are logged and the
 * crash is stored all the same, without what the bad line asked for. */
static void read_config(struct handler *h, const char *path, bool given) {
        FILE *f = fopen(path, "re");
        if (!f) {
                if (given || errno != ENOENT)
                        log_line(h, "cannot read the configuration %s: %s", path, strerror(errno));
                return;
        }
        char line[MAX_CONFIG_LINE + 1];
        unsigned n = 0;
        enum line_state state;
        while (read_config_line(f, line, &state)) {
                n++;
                if (state == LINE_TOO_LONG) {
                        log_line(h, "%s:%u: line longer than %u bytes, ignored", path, n, MAX_CONFIG_LINE);
                        continue;
                }
                if (state == LINE_NUL) {
                        log_line(h, "%s:%u: line holds a NUL byte, ignored", path, n);
                        continue;
                }
                char *l = trim(line), *eq = strchr(l, '=');
                if (!*l || *l == '#')
                        continue;
                if (!eq) {
                        log_line(h, "%s:%u: not KEY = VALUE, ignored", path, n);
                        continue;
                }
                *eq = 0;
                char *k = trim(l), *v = trim(eq + 1);
                bool ok = true;
                if (!strcmp(k, "stack")) {
                        if (!strcmp(v, "yes") || !strcmp(v, "no"))
                                h->stack = !strcmp(v, "yes");
                        else
                                ok = false;
                } else if (!strcmp(k, "debuginfod-allow"))
                        ok = *v && (free(h->allow), h->allow = strdup(v)) != NULL;
                else if (!strcmp(k, "debuginfod-urls"))
                        ok = *v && (free(h->urls), h->urls = strdup(v)) != NULL;
                else if (!strcmp(k, "debuginfod-cache"))
                        ok = *v == '/' && (free(h->cache), h->cache = strdup(v)) != NULL;
                else if (!strcmp(k, "debuginfod-timeout"))
                        ok = parse_ms(v, &h->timeout_ms);
                else if (!strcmp(k, "debuginfod-budget"))
                        ok = parse_ms(v, &h->budget_ms);
                else {
                        log_line(h, "%s:%u: unknown key '%s', ignored", path, n, k);
                        continue;
                }
                if (!ok)
                        log_line(h, "%s:%u: bad value for %s, ignored", path, n, k);
        }
        fclose(f);
}

static uint64_t parse_size(const char *s, const char *what) {
        uint64_t v;
        if (tool_parse_size(s, &v) < 0) {
                tool_fail("pkgnote-coredump: %s: '%s' is not a size (bytes, or with K, M, G)", what, s);
                exit(EXIT_FAILURE_);
        }
        return v;
}

static void usage(void) {
        printf("Usage: pkgnote-coredump [OPTIONS] PID UID GID SIGNAL TIME CORELIMIT HOST COMM\n"
               "\n"
               "A kernel.core_pattern pipe handler: stores the core read from standard\n"
               "input, compressed, with a JSON report of its packages beside it.  Install:\n"
               "  echo '|/usr/libexec/pkgnote-coredump %%P %%u %%g %%s %%t %%c %%h %%e' \\\n"
               "      > /proc/sys/kernel/core_pattern\n"
               "\n"
               "  -d, --state-dir DIR      where entries go (default %s)\n"
               "  -s, --max-core-size N    keep at most N bytes of one core (default 2G)\n"
               "  -u, --max-use N          keep the directory under N bytes (default 4G),\n"
               "                           removing the oldest entries first\n"
               "  -l, --log-file FILE      append the log line there instead of syslog\n"
               "  -c, --config FILE        read FILE, not %s:\n"
               "                           'stack = yes' adds the stack trace to reports;\n"
               "                           'debuginfod-allow = URL...' also fetches missing\n"
               "                           debug info at crash time, from those servers only\n"
               "                           (see pkgnote(1)); without it nothing is fetched\n"
               "  -h, --help               show this help\n",
               PKGNOTE_CRASH_DEFAULT_DIR, DEFAULT_CONFIG);
}

int main(int argc, char **argv) {
        static const struct option longopts[] = {
                {"state-dir", required_argument, NULL, 'd'},
                {"max-core-size", required_argument, NULL, 's'},
                {"max-use", required_argument, NULL, 'u'},
                {"log-file", required_argument, NULL, 'l'},
                {"config", required_argument, NULL, 'c'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        program_name = "pkgnote-coredump";
        /* Static: what the configuration allocates stays reachable. */
        static struct handler h;
        h = (struct handler){.state_dir = pkgnote_crash_store_dir(NULL), .max_core = 2ull << 30, .max_use = 4ull << 30};
        const char *config = NULL;
        int ch;
        while ((ch = tool_getopt(argc, argv, "+d:s:u:l:c:h", longopts)) >= 0)
                switch (ch) {
                case 'd': h.state_dir = optarg; break;
                case 's': h.max_core = parse_size(optarg, "--max-core-size"); break;
                case 'u': h.max_use = parse_size(optarg, "--max-use"); break;
                case 'l': h.log_file = optarg; break;
                case 'c': config = optarg; break;
                case 'h': usage(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (argc - optind != 8) {
                tool_fail("expected PID UID GID SIGNAL TIME CORELIMIT HOST COMM (%%P %%u %%g %%s %%t %%c %%h %%e), got %d arguments",
                          argc - optind);
                return EXIT_FAILURE_;
        }
        char **a = argv + optind;
        h.pid = atoi(a[0]);
        h.uid = atoi(a[1]);
        h.gid = atoi(a[2]);
        h.sig = atoi(a[3]);
        h.time = strtoll(a[4], NULL, 10);
        h.core_limit = strtoll(a[5], NULL, 10);
        h.host = a[6];
        h.comm = a[7];
        /* Taken now, while the process waits for its core to be read: once
         * it is reaped, /proc/PID is gone or another process's. */
        char proc_root[64];
        snprintf(proc_root, sizeof proc_root, "/proc/%d/root", h.pid);
        h.root_fd = h.pid > 0 ? open(proc_root, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
        crash_journal_collect(&journal, h.pid);
        openlog("pkgnote-coredump", LOG_PID, LOG_DAEMON);
        umask(0077);
        read_config(&h, config ? config : DEFAULT_CONFIG, config != NULL);

        if (mkdir(h.state_dir, 0700) < 0 && errno != EEXIST) {
                log_line(&h, "process %d (%s) crashed with signal %d; cannot create %s: %s", h.pid, h.comm, h.sig,
                         h.state_dir, strerror(errno));
                return EXIT_FAILURE_;
        }
        /* RLIMIT_CORE 0: the process asked for no core.  Keep nothing. */
        if (h.core_limit == 0) {
                log_line(&h, "process %d (%s) of user %d crashed with signal %d; core not stored (RLIMIT_CORE is 0)",
                         h.pid, h.comm, h.uid, h.sig);
                return EXIT_OK;
        }
        char name[512], core_name[600], core_path[4096], report_name[600];
        pkgnote_crash_entry_name(name, sizeof name, h.comm, h.uid, h.pid, h.time);
        snprintf(core_name, sizeof core_name, "%s%s", name, pkgnote_crash_core_suffix());
        snprintf(core_path, sizeof core_path, "%s/%s", h.state_dir, core_name);
        snprintf(report_name, sizeof report_name, "%s%s", name, PKGNOTE_CRASH_REPORT_SUFFIX);
        int dirfd = open(h.state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct room room = {dirfd, name};
        pn_output o;
        int r = dirfd < 0 ? -errno : pn_output_open(&o, dirfd, core_name, PN_OUT_EXCL);
        if ((r == -ENOSPC || r == -EDQUOT) && make_room(&room) > 0)
                r = pn_output_open(&o, dirfd, core_name, PN_OUT_EXCL);
        if (r < 0) {
                log_line(&h, "process %d (%s) crashed with signal %d; cannot write %s: %s", h.pid, h.comm, h.sig,
                         core_path, strerror(-r));
                return EXIT_FAILURE_;
        }
        uint64_t size;
        bool truncated;
        r = store_core(o.fd, h.max_core, &room, &size, &truncated);
        close(STDIN_FILENO); /* the kernel may let the process go now */
        /* The core first, then its report: readers see an entry once its
         * report exists, and then its core is there. */
        if (r == 0)
                r = pn_output_commit(&o);
        else
                pn_output_abort(&o);
        if (r < 0) {
                log_line(&h, "process %d (%s) crashed with signal %d; storing the core failed: %s", h.pid, h.comm,
                         h.sig, strerror(-r));
                return EXIT_FAILURE_;
        }
        char package[256];
        r = write_report(&h, core_path, &room, report_name, package, sizeof package);
        if (r < 0 && write_text(&room, report_name, minimal_report(&h, core_path)) < 0) {
                /* A core without its report is no entry: do not leave it. */
                (void)unlinkat(dirfd, core_name, 0);
                log_line(&h, "process %d (%s) crashed with signal %d; storing the report failed: %s", h.pid, h.comm,
                         h.sig, strerror(-r));
                return EXIT_FAILURE_;
        }
        pkgnote_crash_store_vacuum(dirfd, h.max_use, name, SIZE_MAX);
        /* The crash is stored: its journal entry may fail, never it. */
        char *abs_core = h.state_dir[0] == '/' ? NULL : realpath(h.state_dir, NULL);
        char abs_path[4096 + 64];
        snprintf(abs_path, sizeof abs_path, "%s/%s", abs_core ? abs_core : h.state_dir, core_name);
        free(abs_core);
        struct crash_facts facts = {h.pid, h.uid, h.gid, h.sig, a[4], a[5], h.host, h.comm, abs_path, truncated};
        int jr = crash_journal_log(&journal, &facts);
        if (jr < 0)
                log_line(&h, "process %d (%s): cannot log the crash to the journal: %s", h.pid, h.comm, strerror(-jr));
        const char *sn = pkgnote_signal_name(h.sig);
        log_line(&h, "process %d (%s) of user %d crashed with signal %d (%s), package %s; core %s%s%s", h.pid, h.comm,
                 h.uid, h.sig, sn ? sn : "?", package[0] ? package : "n/a", core_path,
                 truncated ? " (truncated at the size limit)" : "", r > 0 ? " (core unreadable: minimal report)" : "");
        return EXIT_OK;
}
