/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote-coredump: a kernel.core_pattern handler for machines without
 * systemd-coredump, as a pipe:
 *
 *   |/usr/libexec/pkgnote-coredump %P %u %g %s %t %c %h %e
 *
 * or on the kernel's coredump socket (--socket, "@@PATH"; the protocol
 * and the quota are in coredump-socket.c), where a crash over quota is
 * refused before the kernel writes its dump.
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
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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
#include "coredump-socket.h"
#include "tool.h"
#include "fileio.h"
#include "machine.h"
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
        /* The quota per user, program and package version (coredump.conf). */
        struct cds_quota quota;
        unsigned max_workers; /* socket mode: crashes handled at once */
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

/* What a socket worker ended early (SIGALRM, its deadline; SIGTERM or
 * SIGINT, a stop) takes back, so that it leaves nothing half-written in
 * the store: a named temporary (where the file system has no O_TMPFILE;
 * an unnamed one goes with the process), and a core stored whose report
 * is not yet (a core alone is no entry); and the place the quota counted
 * for a crash not stored whole (undone_quota: the ledger's line that
 * gives it back, made ahead).  Set and cleared with those signals
 * blocked; read by on_end(). */
enum { UNDONE_TEMP, UNDONE_CORE, UNDONE_N };
static struct {
        int dirfd;
        char name[600];
        volatile sig_atomic_t set;
} undone[UNDONE_N];
static struct {
        int dirfd;
        char line[CDS_LEDGER_EVENT_MAX];
        size_t n;
        volatile sig_atomic_t set;
} undone_quota = {.dirfd = -1};

/* The signals that end a worker early: its deadline, a stop. */
static void end_signals(sigset_t *ends) {
        sigemptyset(ends);
        sigaddset(ends, SIGALRM);
        sigaddset(ends, SIGTERM);
        sigaddset(ends, SIGINT);
}

/* Holds them off; OLD to restore. */
static void hold_ends(sigset_t *old) {
        sigset_t ends;
        end_signals(&ends);
        sigprocmask(SIG_BLOCK, &ends, old);
}

static void undone_set(int slot, int dirfd, const char *name) {
        sigset_t old;
        hold_ends(&old);
        undone[slot].set = 0;
        if (name && dirfd >= 0 && strlen(name) < sizeof undone[slot].name) {
                undone[slot].dirfd = dirfd;
                snprintf(undone[slot].name, sizeof undone[slot].name, "%s", name);
                undone[slot].set = 1;
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The quota's place no longer to be given back by on_end(): the crash is
 * stored whole, or its place given back already. */
static void undone_quota_clear(void) {
        sigset_t old;
        hold_ends(&old);
        undone_quota.set = 0;
        if (undone_quota.dirfd >= 0)
                close(undone_quota.dirfd);
        undone_quota.dirfd = -1;
        sigprocmask(SIG_SETMASK, &old, NULL);
}

static pid_t worker_pid; /* set in the worker: on_end() acts there alone */

/* The worker's deadline or stop: removes what undone[] names and dies
 * of the signal (async-signal-safe calls only), so that the server,
 * which logs why, sees a worker ended by SIGALRM or SIGTERM. */
static void on_end(int sig) {
        /* A child of the worker (the stack's unwinder, the identification
         * before it resets its signals) has undone[]'s copy, not its say:
         * it only dies. */
        if (getpid() != worker_pid)
                goto die;
        for (int i = 0; i < UNDONE_N; i++)
                if (undone[i].set)
                        (void)unlinkat(undone[i].dirfd, undone[i].name, 0);
        /* Never inside the ledger's lock: every other ledger call holds
         * this signal off (quota_take(), quota_give_back(), quota_bytes()). */
        if (undone_quota.set)
                (void)cds_quota_give_back_raw(undone_quota.dirfd, undone_quota.line, undone_quota.n);
die:;
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigaction(sig, &dfl, NULL);
        sigset_t m;
        sigemptyset(&m);
        sigaddset(&m, sig);
        sigprocmask(SIG_UNBLOCK, &m, NULL);
        raise(sig);
        _exit(EXIT_FAILURE_);
}

/* pn_output_commit() with the worker's end held off until undone[] says
 * what is now in the store: CORE_NAME, a core whose report is still to
 * come, or (NULL) a report, which makes the entry of any core noted
 * whole: no early end between the rename and the note of it. */
static int commit_watched(pn_output *o, int dirfd, const char *core_name) {
        sigset_t old;
        hold_ends(&old);
        int r = pn_output_commit(o);
        undone_set(UNDONE_TEMP, -1, NULL);
        if (r == 0)
                undone_set(UNDONE_CORE, dirfd, core_name);
        if (r == 0 && !core_name)
                undone_quota_clear(); /* a report: the entry is whole, its place kept */
        sigprocmask(SIG_SETMASK, &old, NULL);
        return r;
}

/* pn_output_open() of NAME in DIRFD, its temporary noted in undone[]
 * with the worker's end held off between (a named one, where the file
 * system has no O_TMPFILE, is never left behind). */
static int open_watched(pn_output *o, int dirfd, const char *name) {
        sigset_t old;
        hold_ends(&old);
        int r = pn_output_open(o, dirfd, name, PN_OUT_EXCL);
        if (r == 0)
                undone_set(UNDONE_TEMP, o->dirfd, o->tmpname);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return r;
}

/* Writes TEXT (freed) as the new file NAME of the store; 1 when written. */
static int write_text(struct room *room, const char *name, char *text) {
        pn_output out;
        int r = text ? open_watched(&out, room->dirfd, name) : -ENOMEM;
        if ((r == -ENOSPC || r == -EDQUOT) && make_room(room) > 0)
                r = open_watched(&out, room->dirfd, name);
        if (r == 0) {
                /* A failed write drops the temporary (the name stays free). */
                r = pn_write_full_room(out.fd, text, strlen(text), make_room, room);
                if (r == 0)
                        r = commit_watched(&out, room->dirfd, NULL);
                else {
                        pn_output_abort(&out);
                        undone_set(UNDONE_TEMP, -1, NULL);
                }
        }
        free(text);
        return r;
}

/* Where a crash happened, as the library's report of a stored core says
 * it (pkgnote_crash_report()): this boot, this machine and the running
 * kernel's own notes (NULL when they cannot be read), for the reports made
 * without a core.  0 or -ENOMEM (the kernel then NULL); where_free()
 * after. */
struct where {
        char boot[33], machine[33];
        char *kernel;
};
static int where_read(struct where *w) {
        pn_boot_id(w->boot);
        pn_read_machine_id(w->machine);
        return tool_kernel_json(PKGNOTE_KERNEL_NO_IMAGE, &w->kernel) == -ENOMEM ? -ENOMEM : 0;
}
static void where_free(struct where *w) {
        free(w->kernel);
        w->kernel = NULL;
}
/* W's members into M: their number. */
static size_t where_members(const struct where *w, pkgnote_json_member *m) {
        size_t n = 0;
        if (w->boot[0])
                m[n++] = (pkgnote_json_member)PKGNOTE_JSON_STRING("bootId", w->boot);
        if (w->machine[0])
                m[n++] = (pkgnote_json_member)PKGNOTE_JSON_STRING("machineId", w->machine);
        if (w->kernel)
                m[n++] = (pkgnote_json_member)PKGNOTE_JSON_VALUE("kernel", w->kernel);
        return n;
}
/* The report of the N members M (room for 3 more) and W's into *TEXT: as
 * pkgnote_core_to_json(); a kernel over the report's limits (its own note
 * may be 64 KiB) is left out, not the report. */
static int where_report(pkgnote_json_member *m, size_t n, const struct where *w, char **text) {
        size_t k = where_members(w, m + n);
        int r = pkgnote_core_to_json(NULL, NULL, m, n + k, text);
        if (r < 0 && r != -ENOMEM && w->kernel)
                r = pkgnote_core_to_json(NULL, NULL, m, n + k - 1, text);
        return r;
}

/* The report of a core that cannot be read (truncated, say): what the
 * kernel told, so that the crash still has an entry. */
static char *minimal_report(const struct handler *h, const char *core_path) {
        pkgnote_json_member m[13];
        size_t n = 0;
        struct where w;
        (void)where_read(&w); /* the last resort: without the kernel, if need be */
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
        int r = where_report(m, n, &w, &text);
        where_free(&w);
        return r < 0 ? NULL : text;
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

static bool parse_uint(const char *v, unsigned max, unsigned *out) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(v, &end, 10);
        if (errno || end == v || *end || *v == '-' || n > max)
                return false;
        *out = (unsigned)n;
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
 *   quota-count = N              cores kept per user, program and package
 *                                in an interval (default 10; 0: no bound)
 *   quota-bytes = SIZE           bytes of cores kept likewise (default 1G; 0: none)
 *   quota-interval = SECONDS     the interval (default 3600)
 *   max-workers = N              socket mode: crashes handled at once (default 8)
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
                else if (!strcmp(k, "quota-count"))
                        ok = parse_uint(v, 1000000, &h->quota.count);
                else if (!strcmp(k, "quota-interval"))
                        ok = parse_uint(v, 366u * 86400, &h->quota.interval) && h->quota.interval > 0;
                else if (!strcmp(k, "quota-bytes"))
                        ok = tool_parse_size(v, &h->quota.bytes) == 0;
                else if (!strcmp(k, "max-workers"))
                        ok = parse_uint(v, 256, &h->max_workers) && h->max_workers > 0;
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

/* What is known of the crashing process before any byte of its core is
 * read: the executable and the package of its notes (or the package
 * database's, for the very file mapped), read from /proc/PID through the
 * library while the kernel holds the process. */
struct identity {
        pkgnote_core *process; /* only in the child that identifies */
        char *json;            /* the process's report (pkgnote pid --json), or NULL */
        char program[1024];
        char package[256];
        char key[17], ukey[17]; /* the quota's: user, program and package; user */
        bool counted;           /* the quota counted this core */
        uint64_t bytes;         /* and these bytes for it */
};

/* How long the identification may take: it opens files the crashing
 * process chose (its executable, mapped files, package database), which
 * may be on a file system that never answers. */
#define IDENTIFY_TIMEOUT_MS 10000
/* A socket worker's whole life: past it the worker is ended (SIGALRM),
 * however slowly its dump comes. */
#define WORKER_DEADLINE_S 600
/* Stopped (SIGTERM), the server waits this long, or half the deadline
 * if that is shorter, for its busy workers to store their crashes; then
 * it ends them (SIGTERM: each removes what it had not stored whole), so
 * that a service manager's stop timeout (systemd's 90 s) never comes to
 * a SIGKILL that leaves a core without its report. */
#define STOP_GRACE_S 30

/* Tests only: PKGNOTE_COREDUMP_TEST_DEADLINE=S ends the workers after S
 * seconds instead (1 to WORKER_DEADLINE_S; any other value is ignored),
 * so that a test sees a worker ended without waiting ten minutes. */
static unsigned worker_deadline(void) {
        const char *s = getenv("PKGNOTE_COREDUMP_TEST_DEADLINE");
        unsigned v;
        if (s && parse_uint(s, WORKER_DEADLINE_S, &v) && v > 0)
                return v;
        return WORKER_DEADLINE_S;
}
/* Tests only: PKGNOTE_COREDUMP_TEST_PEER takes the connections of live
 * processes that are not dumping core, so that a test plays the kernel's
 * side of the socket (whose path stays root's alone). */
static bool test_peer(void) {
        return getenv("PKGNOTE_COREDUMP_TEST_PEER") != NULL;
}
/* The most of the process's report a metadata-only entry keeps: its
 * modules are the process's to choose, and rejected/ has its own count
 * only.  A longer one is left out (the entry keeps program and package). */
#define REJECTED_JSON_MAX (128u << 10)

static void identify_here(const struct handler *h, struct identity *id) {
        *id = (struct identity){0};
        pkgnote_core_options o = PKGNOTE_CORE_OPTIONS_INIT;
        if (h->pid > 0 && pkgnote_process_open_with(h->pid, &o, &id->process) < 0)
                id->process = NULL;
        const pkgnote_module *m = id->process ? pkgnote_core_main_module(id->process) : NULL;
        if (m && pkgnote_module_path(m))
                snprintf(id->program, sizeof id->program, "%s", pkgnote_module_path(m));
        else
                snprintf(id->program, sizeof id->program, "comm:%s", h->comm ? h->comm : "?");
        const pkgnote_info *info = m ? pkgnote_module_info(m) : NULL;
        if (info && pkgnote_info_package_count(info) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(info, 0);
                snprintf(id->package, sizeof id->package, "%s%s%s", pkgnote_metadata_name(md) ? pkgnote_metadata_name(md) : "?",
                         pkgnote_metadata_version(md) ? "/" : "",
                         pkgnote_metadata_version(md) ? pkgnote_metadata_version(md) : "");
        } else if (m && pkgnote_module_package_origin(m) == PKGNOTE_ORIGIN_DATABASE)
                snprintf(id->package, sizeof id->package, "%s/%s (package database)", pkgnote_module_db_name(m),
                         pkgnote_module_db_version(m));
}

static void identity_keys(const struct handler *h, struct identity *id) {
        cds_quota_key(id->key, h->uid, id->program, id->package);
        cds_quota_user_key(id->ukey, h->uid);
}

/* Identifies the process in a child of its own, waited for at most
 * IDENTIFY_TIMEOUT_MS: past it (or when the child fails) the program is
 * "comm:" and the command name, without package.  The child answers
 * "PROGRAM\0PACKAGE\0" and the process's report. */
static void identify(const struct handler *h, struct identity *id) {
        *id = (struct identity){0};
        snprintf(id->program, sizeof id->program, "comm:%s", h->comm ? h->comm : "?");
        int p[2] = {-1, -1};
        pid_t c = -1;
        if (pipe2(p, O_CLOEXEC) == 0 && (c = fork()) < 0) {
                close(p[0]);
                close(p[1]);
        }
        if (c == 0) {
                close(p[0]);
                signal(SIGPIPE, SIG_DFL);
                /* Not a worker: a stop ends it with nothing to take back
                 * (undone[] names the worker's files, not its own). */
                signal(SIGTERM, SIG_DFL);
                signal(SIGINT, SIG_DFL);
                signal(SIGALRM, SIG_DFL);
                (void)prctl(PR_SET_NAME, "pn-identify", 0, 0, 0);
                /* Tests: a file system that never answers. */
                if (getenv("PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG"))
                        pause();
                struct identity own;
                identify_here(h, &own);
                char *json = NULL;
                if (own.process && pkgnote_core_to_json(own.process, NULL, NULL, 0, &json) < 0) {
                        free(json);
                        json = NULL;
                }
                size_t a = strlen(own.program) + 1, b = strlen(own.package) + 1;
                int r = pn_write_full(p[1], own.program, a);
                if (r == 0)
                        r = pn_write_full(p[1], own.package, b);
                if (r == 0 && json)
                        r = pn_write_full(p[1], json, strlen(json));
                _exit(r < 0 ? 1 : 0);
        }
        if (c < 0) {
                identity_keys(h, id);
                return;
        }
        close(p[1]);
        size_t cap = sizeof id->program + sizeof id->package + REJECTED_JSON_MAX;
        char *buf = malloc(cap + 1);
        size_t got = 0;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bool done = false, late = false, full = false;
        while (buf && !done) {
                long ms = cds_ms_since(&t0);
                if (ms >= IDENTIFY_TIMEOUT_MS) {
                        late = true;
                        break;
                }
                struct pollfd pf = {p[0], POLLIN, 0};
                int n = poll(&pf, 1, (int)(IDENTIFY_TIMEOUT_MS - ms));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        late = n == 0;
                        break;
                }
                ssize_t r = read(p[0], buf + got, cap - got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0) {
                        done = r == 0;
                        break;
                }
                if ((got += (size_t)r) == cap) {
                        full = true; /* the report is too long: the names alone */
                        break;
                }
        }
        close(p[0]);
        if (late || full || !buf)
                kill(c, SIGKILL);
        if (late)
                log_line(h, "process %d (%s): identifying it took longer than %d s; counted as comm:%s", h->pid,
                         h->comm ? h->comm : "?", IDENTIFY_TIMEOUT_MS / 1000, h->comm ? h->comm : "?");
        int st = 0;
        bool ok = !late && buf && (done || full);
        if (late)
                (void)waitpid(c, NULL, WNOHANG); /* a child stuck in the file system is not waited for */
        else
                ok &= waitpid(c, &st, 0) == c && (full || (WIFEXITED(st) && WEXITSTATUS(st) == 0));
        char *nul = ok ? memchr(buf, 0, got < sizeof id->program ? got : sizeof id->program) : NULL;
        size_t a = nul ? (size_t)(nul - buf) + 1 : 0;
        char *nul2 = nul ? memchr(buf + a, 0, got - a < sizeof id->package ? got - a : sizeof id->package) : NULL;
        if (nul2) {
                size_t b = (size_t)(nul2 - (buf + a)) + 1;
                memcpy(id->program, buf, a);
                memcpy(id->package, buf + a, b);
                size_t jl = got - a - b;
                /* The report: only whole, and a JSON object (checked where it is used). */
                if (!full && jl > 2 && !memchr(buf + a + b, 0, jl)) {
                        memmove(buf, buf + a + b, jl);
                        buf[jl] = 0;
                        id->json = buf;
                        buf = NULL;
                }
        }
        free(buf);
        identity_keys(h, id);
}

static void identity_done(struct identity *id) {
        pkgnote_core_free(id->process);
        id->process = NULL;
        free(id->json);
        id->json = NULL;
}

/* Metadata-only entries (a crash over quota: its core refused or
 * dropped) go to rejected/ in the store, at most this many, the oldest
 * removed first: counted and described, never a core. */
#define REJECTED_DIR "rejected"
#define REJECTED_MAX 1000u

static void rejected_make_room(int dirfd) {
        DIR *d = fdopendir(dup(dirfd));
        if (!d)
                return;
        size_t n = 0;
        char oldest[256] = "";
        struct timespec ot = {0};
        for (struct dirent *de; (de = readdir(d));) {
                size_t len = strlen(de->d_name);
                if (de->d_name[0] == '.' || len < 5 || len >= sizeof oldest ||
                    strcmp(de->d_name + len - 5, PKGNOTE_CRASH_REPORT_SUFFIX))
                        continue;
                n++;
                struct stat st;
                if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    (!oldest[0] || st.st_mtim.tv_sec < ot.tv_sec ||
                     (st.st_mtim.tv_sec == ot.tv_sec && st.st_mtim.tv_nsec < ot.tv_nsec))) {
                        ot = st.st_mtim;
                        snprintf(oldest, sizeof oldest, "%s", de->d_name);
                }
        }
        closedir(d);
        if (n >= REJECTED_MAX && oldest[0])
                (void)unlinkat(dirfd, oldest, 0);
}

/* The process's report JSON (an object, the identifying child's) with
 * the members of TEXT (an object, freed) after its own; TEXT alone when
 * JSON is not one object. */
static char *with_process(char *text, const char *json) {
        pkgnote_json_member probe[] = {PKGNOTE_JSON_VALUE("process", json)};
        char *t = NULL;
        /* Parsed by the library: a child that read hostile files may
         * have answered anything. */
        int r = pkgnote_core_to_json(NULL, NULL, probe, 1, &t);
        free(t);
        size_t jl = strlen(json), tl = strlen(text);
        while (jl > 0 && strchr(" \t\r\n", json[jl - 1]))
                jl--;
        const char *body = text + strspn(text, " \t\r\n");
        if (r < 0 || json[0] != '{' || jl < 2 || json[jl - 1] != '}' || *body != '{')
                return text;
        body++;
        const char *in = json + 1 + strspn(json + 1, " \t\r\n");
        bool empty = *in == '}';
        char *out = malloc(jl + tl + 4);
        if (!out)
                return text;
        /* {PROCESS..., MEMBERS...} */
        size_t n = 0;
        memcpy(out, json, jl - 1);
        n = jl - 1;
        while (n > 1 && strchr(" \t\r\n", out[n - 1]))
                n--;
        if (!empty)
                out[n++] = ',';
        size_t bl = strlen(body);
        memcpy(out + n, body, bl + 1);
        free(text);
        return out;
}

static int write_rejected(const struct handler *h, int store_fd, const struct identity *id, const struct cds_usage *u,
                          const char *reason) {
        if (mkdirat(store_fd, REJECTED_DIR, 0700) < 0 && errno != EEXIST)
                return -errno;
        int dirfd = openat(store_fd, REJECTED_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dirfd < 0)
                return -errno;
        rejected_make_room(dirfd);
        char name[512], report_name[600];
        pkgnote_crash_entry_name(name, sizeof name, h->comm, h->uid, h->pid, h->time);
        snprintf(report_name, sizeof report_name, "%s%s", name, PKGNOTE_CRASH_REPORT_SUFFIX);
        struct where w;
        if (where_read(&w) < 0) {
                close(dirfd);
                return -ENOMEM;
        }
        const pkgnote_json_member own[] = {
                PKGNOTE_JSON_NUMBER("time", h->time),
                PKGNOTE_JSON_STRING("hostname", h->host),
                PKGNOTE_JSON_NUMBER("dumpSignal", h->sig),
                PKGNOTE_JSON_STRING("program", id->program),
                PKGNOTE_JSON_STRING("programPackage", id->package[0] ? id->package : NULL),
                PKGNOTE_JSON_NUMBER("coreStored", 0),
                PKGNOTE_JSON_STRING("reason", reason),
                PKGNOTE_JSON_NUMBER("quotaUsedCount", (int64_t)u->count),
                PKGNOTE_JSON_NUMBER("quotaUsedBytes", u->bytes > INT64_MAX ? INT64_MAX : (int64_t)u->bytes),
        };
        pkgnote_json_member m[sizeof own / sizeof *own + 3];
        memcpy(m, own, sizeof own);
        char *text = NULL;
        int r = where_report(m, sizeof own / sizeof *own, &w, &text);
        where_free(&w);
        if (r >= 0 && id->json)
                text = with_process(text, id->json);
        struct room room = {dirfd, name};
        r = r < 0 ? r : write_text(&room, report_name, text);
        close(dirfd);
        /* The metadata-only entries count in --max-use as the cores do. */
        if (r >= 0)
                pkgnote_crash_store_vacuum(store_fd, h->max_use, NULL, SIZE_MAX);
        return r;
}

/* undone_quota's line for ID: its place, and the bytes counted so far. */
static void undone_quota_line(const struct handler *h, const struct identity *id) {
        int n = cds_quota_give_back_line(undone_quota.line, sizeof undone_quota.line, id->key, id->ukey, h->time,
                                         id->bytes);
        undone_quota.n = n > 0 ? (size_t)n : 0;
}

/* Applies the quota to the crash of ID: 1 when its core may be stored
 * (and it is counted), 0 when not (*U: the use so far).  A ledger that
 * cannot be read keeps the core: a quota must never lose the one crash
 * that matters. */
static int quota_take(const struct handler *h, int dirfd, struct identity *id, struct cds_usage *u) {
        *u = (struct cds_usage){0};
        id->counted = false;
        if (!h->quota.count && !h->quota.bytes)
                return 1;
        /* Counted, and noted to be given back should the worker be
         * ended before its crash is stored whole, with no end between. */
        sigset_t old;
        hold_ends(&old);
        int r = cds_quota_take(dirfd, id->key, id->ukey, &h->quota, h->time, u);
        id->counted = r == 1;
        undone_quota_clear();
        id->bytes = 0;
        if (id->counted) {
                undone_quota_line(h, id);
                /* Its own descriptor: the store's may be closed before
                 * the crash is stored. */
                undone_quota.dirfd = undone_quota.n ? fcntl(dirfd, F_DUPFD_CLOEXEC, 3) : -1;
                undone_quota.set = undone_quota.dirfd >= 0;
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (r < 0) {
                log_line(h, "process %d (%s): cannot read the quota ledger: %s; the core is kept", h->pid, h->comm,
                         r == -ETIMEDOUT ? "another handler held its lock too long" : strerror(-r));
                return 1;
        }
        return r;
}

static void quota_reason(const struct handler *h, const struct cds_usage *u, char *buf, size_t len) {
        if (u->user_total)
                snprintf(buf, len,
                         "over quota: user %d: %" PRIu64 " cores, %" PRIu64 " bytes in %u s of all programs (quota %" PRIu64
                         " cores, %" PRIu64 " bytes)",
                         h->uid, u->count, u->bytes, h->quota.interval, (uint64_t)h->quota.count * CDS_QUOTA_USER_FACTOR,
                         h->quota.bytes * CDS_QUOTA_USER_FACTOR);
        else
                snprintf(buf, len, "over quota: %" PRIu64 " cores, %" PRIu64 " bytes in %u s (quota %u cores, %" PRIu64 " bytes)",
                         u->count, u->bytes, h->quota.interval, h->quota.count, h->quota.bytes);
}

static void log_rejected(const struct handler *h, const struct identity *id, const char *reason, bool dumped) {
        log_line(h, "process %d (%s) of user %d crashed with signal %d, package %s; %s: %s", h->pid, h->comm, h->uid,
                 h->sig, id->package[0] ? id->package : "n/a", dumped ? "core dropped" : "no core dumped", reason);
}

/* The place the quota counted for ID, given back: its core was not stored. */
static void quota_give_back(const struct handler *h, int dirfd, struct identity *id) {
        sigset_t old;
        hold_ends(&old);
        if (dirfd < 0)
                dirfd = undone_quota.set ? undone_quota.dirfd : -1;
        if (id && id->counted && dirfd >= 0)
                (void)cds_quota_give_back(dirfd, id->key, id->ukey, h->time, id->bytes);
        if (id)
                id->counted = false;
        undone_quota_clear();
        sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The BYTES the core of ID took, added to the quota's ledger (with the
 * worker's end held off: never inside the ledger's lock), and to what a
 * give-back returns. */
static void quota_bytes(const struct handler *h, int dirfd, struct identity *id, uint64_t bytes) {
        sigset_t old;
        hold_ends(&old);
        if (cds_quota_add_bytes(dirfd, id->key, id->ukey, h->time, bytes) == 0) {
                id->bytes = bytes;
                undone_quota_line(h, id);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Reads and drops standard input: the kernel must never be left waiting. */
static void drain_stdin(void) {
        static uint8_t buf[1 << 16];
        while (pn_read_full(STDIN_FILENO, buf, sizeof buf) > 0)
                ;
}

/* Stores the core read from standard input and its report (the pipe
 * mode's and an accepted socket dump's way alike).  ID: the identity
 * already taken and counted by the quota (socket mode), or NULL: then
 * the quota is applied here, and a crash over it keeps no core. */
static int store_crash(struct handler *h, const char *time_s, const char *limit_s, struct identity *id_given) {
        if (mkdir(h->state_dir, 0700) < 0 && errno != EEXIST) {
                log_line(h, "process %d (%s) crashed with signal %d; cannot create %s: %s", h->pid, h->comm, h->sig,
                         h->state_dir, strerror(errno));
                quota_give_back(h, -1, id_given);
                return EXIT_FAILURE_;
        }
        /* RLIMIT_CORE 0: the process asked for no core.  Keep nothing. */
        if (h->core_limit == 0) {
                log_line(h, "process %d (%s) of user %d crashed with signal %d; core not stored (RLIMIT_CORE is 0)",
                         h->pid, h->comm, h->uid, h->sig);
                return EXIT_OK;
        }
        char name[512], core_name[600], core_path[4096], report_name[600];
        pkgnote_crash_entry_name(name, sizeof name, h->comm, h->uid, h->pid, h->time);
        snprintf(core_name, sizeof core_name, "%s%s", name, pkgnote_crash_core_suffix());
        snprintf(core_path, sizeof core_path, "%s/%s", h->state_dir, core_name);
        snprintf(report_name, sizeof report_name, "%s%s", name, PKGNOTE_CRASH_REPORT_SUFFIX);
        int dirfd = open(h->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct identity own, *id = id_given;
        if (!id && dirfd >= 0 && (h->quota.count || h->quota.bytes)) {
                /* The pipe mode: the process waits for its core to be read,
                 * so /proc/PID is still its own. */
                identify(h, &own);
                id = &own;
                struct cds_usage u;
                if (quota_take(h, dirfd, id, &u) == 0) {
                        drain_stdin();
                        close(STDIN_FILENO);
                        char reason[256];
                        quota_reason(h, &u, reason, sizeof reason);
                        int r = write_rejected(h, dirfd, id, &u, reason);
                        log_rejected(h, id, reason, true);
                        identity_done(id);
                        close(dirfd);
                        return r < 0 ? EXIT_FAILURE_ : EXIT_OK;
                }
        }
        struct room room = {dirfd, name};
        pn_output o;
        int r = dirfd < 0 ? -errno : open_watched(&o, dirfd, core_name);
        if ((r == -ENOSPC || r == -EDQUOT) && make_room(&room) > 0)
                r = open_watched(&o, dirfd, core_name);
        if (r < 0) {
                log_line(h, "process %d (%s) crashed with signal %d; cannot write %s: %s", h->pid, h->comm, h->sig,
                         core_path, strerror(-r));
                drain_stdin();
                quota_give_back(h, dirfd, id);
                if (id == &own)
                        identity_done(id);
                return EXIT_FAILURE_;
        }
        uint64_t size;
        bool truncated;
        r = store_core(o.fd, h->max_core, &room, &size, &truncated);
        close(STDIN_FILENO); /* the kernel may let the process go now */
        struct stat st;
        uint64_t disk = fstat(o.fd, &st) == 0 ? (uint64_t)st.st_size : size;
        /* The core first, then its report: readers see an entry once its
         * report exists, and then its core is there. */
        if (r == 0)
                r = commit_watched(&o, dirfd, core_name);
        else {
                pn_output_abort(&o);
                undone_set(UNDONE_TEMP, -1, NULL);
        }
        if (r < 0) {
                log_line(h, "process %d (%s) crashed with signal %d; storing the core failed: %s", h->pid, h->comm,
                         h->sig, strerror(-r));
                quota_give_back(h, dirfd, id);
                if (id == &own)
                        identity_done(id);
                return EXIT_FAILURE_;
        }
        if (id && id->counted)
                quota_bytes(h, dirfd, id, disk);
        if (id == &own)
                identity_done(id);
        char package[256];
        r = write_report(h, core_path, &room, report_name, package, sizeof package);
        if (r < 0 && write_text(&room, report_name, minimal_report(h, core_path)) < 0) {
                /* A core without its report is no entry: do not leave it,
                 * nor its place in the quota. */
                (void)unlinkat(dirfd, core_name, 0);
                undone_set(UNDONE_CORE, -1, NULL);
                quota_give_back(h, dirfd, id);
                log_line(h, "process %d (%s) crashed with signal %d; storing the report failed: %s", h->pid, h->comm,
                         h->sig, strerror(-r));
                return EXIT_FAILURE_;
        }
        undone_set(UNDONE_CORE, -1, NULL); /* the entry is whole */
        undone_quota_clear();
        pkgnote_crash_store_vacuum(dirfd, h->max_use, name, SIZE_MAX);
        /* The crash is stored: its journal entry may fail, never it. */
        char *abs_core = h->state_dir[0] == '/' ? NULL : realpath(h->state_dir, NULL);
        char abs_path[4096 + 64];
        snprintf(abs_path, sizeof abs_path, "%s/%s", abs_core ? abs_core : h->state_dir, core_name);
        free(abs_core);
        struct crash_facts facts = {h->pid, h->uid, h->gid, h->sig, time_s, limit_s, h->host, h->comm, abs_path, truncated};
        int jr = crash_journal_log(&journal, &facts);
        if (jr < 0)
                log_line(h, "process %d (%s): cannot log the crash to the journal: %s", h->pid, h->comm, strerror(-jr));
        const char *sn = pkgnote_signal_name(h->sig);
        log_line(h, "process %d (%s) of user %d crashed with signal %d (%s), package %s; core %s%s%s", h->pid, h->comm,
                 h->uid, h->sig, sn ? sn : "?", package[0] ? package : "n/a", core_path,
                 truncated ? " (truncated at the size limit)" : "", r > 0 ? " (core unreadable: minimal report)" : "");
        return EXIT_OK;
}

/* Taken while the process waits for its core to be read: once it is
 * reaped, /proc/PID is gone or another process's. */
static void take_process(struct handler *h) {
        char proc_root[64];
        snprintf(proc_root, sizeof proc_root, "/proc/%d/root", h->pid);
        h->root_fd = h->pid > 0 ? open(proc_root, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
        crash_journal_collect(&journal, h->pid);
}

/* The soft RLIMIT_CORE of PID from /proc/PID/limits ("Max core file
 * size  SOFT  HARD  bytes"), what the pipe mode gets as %c: -1 when
 * unlimited or unknown. */
static long long core_limit(int pid) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/limits", pid);
        FILE *f = fopen(path, "re");
        long long v = -1;
        if (!f)
                return -1;
        while (fgets(line, sizeof line, f)) {
                static const char key[] = "Max core file size";
                if (strncmp(line, key, sizeof key - 1))
                        continue;
                char *p = line + sizeof key - 1, *end;
                p += strspn(p, " ");
                errno = 0;
                long long n = strtoll(p, &end, 10);
                if (!errno && end != p && n >= 0)
                        v = n;
                break;
        }
        fclose(f);
        return v;
}

/* One connection of the kernel (in a worker process of its own). */
static int serve_connection(struct handler *h, int conn) {
        struct cds_peer peer;
        const char *why = NULL;
        int r = cds_peer_check(conn, test_peer(), &peer, &why);
        if (r == -EPERM) {
                log_line(h, "refused a connection to the coredump socket: %s", why);
                return EXIT_FAILURE_;
        }
        if (r == -ESRCH) {
                /* Not the kernel's (it holds a dumping process): its
                 * PID may be another process's by now. */
                log_line(h, "refused a connection to the coredump socket: its process has exited and been reaped");
                return EXIT_FAILURE_;
        }
        if (r < 0) {
                log_line(h, "refused a connection to the coredump socket: cannot tell its peer: %s", strerror(-r));
                return EXIT_FAILURE_;
        }
        /* A kernel that stops sending is not waited for forever. */
        struct timeval tv = {30, 0};
        (void)setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        (void)setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        static char comm[64], host[256], time_s[32];
        h->pid = peer.pid;
        h->uid = peer.uid;
        h->gid = peer.gid;
        h->sig = peer.signal;
        h->time = (int64_t)time(NULL);
        h->core_limit = -1;
        snprintf(time_s, sizeof time_s, "%" PRId64, h->time);
        struct utsname u;
        snprintf(host, sizeof host, "%s", uname(&u) == 0 ? u.nodename : "?");
        h->host = host;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/comm", h->pid);
        snprintf(comm, sizeof comm, "?");
        int cfd = open(path, O_RDONLY | O_CLOEXEC);
        if (cfd >= 0) {
                ssize_t n = read(cfd, comm, sizeof comm - 1);
                comm[n > 0 ? n : 0] = 0;
                comm[strcspn(comm, "\n")] = 0;
                close(cfd);
        }
        h->comm = comm;
        static char limit_s[32];
        h->core_limit = core_limit(h->pid);
        snprintf(limit_s, sizeof limit_s, "%lld", h->core_limit);
        take_process(h);
        struct identity id;
        identify(h, &id);
        /* What /proc/PID told is this process's only if the pidfd's
         * process is still there now: else the PID may be another's. */
        if (cds_pidfd_alive(peer.pidfd) != 1) {
                /* Its command name, core limit, root and journal fields
                 * too: each was read from /proc/PID by the PID alone. */
                log_line(h, "process %d (%s) exited while it was identified; what /proc told is dropped", h->pid, comm);
                identity_done(&id);
                snprintf(comm, sizeof comm, "?");
                snprintf(id.program, sizeof id.program, "comm:%s", comm);
                id.package[0] = 0;
                identity_keys(h, &id);
                if (h->root_fd >= 0)
                        close(h->root_fd);
                h->root_fd = -1;
                h->core_limit = -1;
                snprintf(limit_s, sizeof limit_s, "%lld", h->core_limit);
                journal_msg_free(&journal.proc);
                journal.proc = (struct journal_msg){0};
        }
        close(peer.pidfd);
        /* "@PATH" sends the core at once, "@@PATH" a request first: an ELF
         * core starts with its magic, a request with its size (16 or more,
         * little numbers). */
        uint8_t head[4];
        ssize_t n = recv(conn, head, sizeof head, MSG_PEEK | MSG_WAITALL);
        bool request = !(n == 4 && !memcmp(head, "\177ELF", 4));
        int dirfd = -1;
        if (mkdir(h->state_dir, 0700) == 0 || errno == EEXIST)
                dirfd = open(h->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (!request) {
                /* "@": the dump comes whatever the answer; the quota can
                 * only drop it, as in the pipe mode.  It is applied here,
                 * to the identity the pidfd vouched for (the process may
                 * be gone once its dump is read: core_pipe_limit 0). */
                struct cds_usage use = {0};
                int take = h->core_limit == 0 || dirfd < 0 ? 1 : quota_take(h, dirfd, &id, &use);
                identity_done(&id);
                if (dup2(conn, STDIN_FILENO) < 0) {
                        quota_give_back(h, dirfd, &id);
                        return EXIT_FAILURE_;
                }
                close(conn);
                if (!take) {
                        drain_stdin();
                        close(STDIN_FILENO);
                        char reason[256];
                        quota_reason(h, &use, reason, sizeof reason);
                        r = write_rejected(h, dirfd, &id, &use, reason);
                        log_rejected(h, &id, reason, true);
                        close(dirfd);
                        return r < 0 ? EXIT_FAILURE_ : EXIT_OK;
                }
                if (dirfd >= 0)
                        close(dirfd);
                return store_crash(h, time_s, limit_s, &id);
        }
        struct cds_request req;
        if ((r = cds_read_request(conn, &req)) < 0) {
                log_line(h, "process %d (%s): the kernel's coredump request cannot be read: %s", h->pid, comm,
                         strerror(-r));
                identity_done(&id);
                return EXIT_FAILURE_;
        }
        struct cds_usage use = {0};
        /* RLIMIT_CORE 0: the process asked for no core (the pipe mode
         * keeps none either); nothing is counted or recorded. */
        bool none = h->core_limit == 0;
        int take = none ? 0 : dirfd < 0 ? 1 : quota_take(h, dirfd, &id, &use);
        r = cds_send_ack(conn, &req, (take ? CDS_KERNEL : CDS_REJECT) | CDS_WAIT);
        int mark = r < 0 ? r : cds_read_marker(conn);
        if (mark != 0) {
                log_line(h, "process %d (%s): the kernel did not take the answer (%s %d)", h->pid, comm,
                         mark < 0 ? "error" : "mark", mark < 0 ? -mark : mark);
                if (take && !none)
                        quota_give_back(h, dirfd, &id);
                identity_done(&id);
                return EXIT_FAILURE_;
        }
        if (none) {
                close(conn);
                log_line(h, "process %d (%s) of user %d crashed with signal %d; no core dumped (RLIMIT_CORE is 0)",
                         h->pid, comm, h->uid, h->sig);
                identity_done(&id);
                if (dirfd >= 0)
                        close(dirfd);
                return EXIT_OK;
        }
        if (!take) {
                close(conn); /* the process goes on dying, without a dump */
                char reason[256];
                quota_reason(h, &use, reason, sizeof reason);
                r = write_rejected(h, dirfd, &id, &use, reason);
                log_rejected(h, &id, reason, false);
                identity_done(&id);
                close(dirfd);
                return r < 0 ? EXIT_FAILURE_ : EXIT_OK;
        }
        identity_done(&id); /* the stored core is read again for its report */
        if (dup2(conn, STDIN_FILENO) < 0) {
                quota_give_back(h, dirfd, &id);
                return EXIT_FAILURE_;
        }
        close(conn);
        if (dirfd >= 0)
                close(dirfd);
        return store_crash(h, time_s, limit_s, &id);
}

static volatile sig_atomic_t stop;
static void on_term(int sig) {
        (void)sig;
        stop = 1;
}
static void on_child(int sig) {
        (void)sig; /* only ends the server's ppoll() */
}

/* The workers crashes of one user (other than root) may have at once:
 * half the slots, so that one user's crashes that never end (a mapped
 * file on a file system that never answers) leave the others room. */
static unsigned user_cap(const struct handler *h) {
        return h->max_workers > 1 ? h->max_workers / 2 : 1;
}

struct worker {
        pid_t pid;
        uid_t uid;
        pid_t crash; /* the crashing process, as its connection names it */
};

/* Takes the workers that ended off W (BLOCK: waits until all have), and
 * logs those that did not end by themselves: a worker logs its crash,
 * but one killed cannot. */
static void reap_workers(const struct handler *h, struct worker *w, unsigned *running, bool block, unsigned deadline) {
        while (*running > 0) {
                int st;
                pid_t p = waitpid(-1, &st, block ? 0 : WNOHANG);
                if (p < 0 && errno == EINTR)
                        continue;
                if (p < 0 && errno == ECHILD)
                        *running = 0;
                if (p <= 0)
                        return;
                for (unsigned i = 0; i < *running; i++) {
                        if (w[i].pid != p)
                                continue;
                        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
                                log_line(h,
                                         "coredump socket: the worker for process %d was ended at its deadline of %u s; "
                                         "what it had not stored whole is removed",
                                         (int)w[i].crash, deadline);
                        else if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGINT))
                                log_line(h,
                                         "coredump socket: the worker for process %d was stopped (%s); "
                                         "what it had not stored whole is removed",
                                         (int)w[i].crash, WTERMSIG(st) == SIGTERM ? "SIGTERM" : "SIGINT");
                        else if (WIFSIGNALED(st))
                                log_line(h, "coredump socket: the worker for process %d was killed by signal %d",
                                         (int)w[i].crash, WTERMSIG(st));
                        w[i] = w[--*running];
                        break;
                }
        }
}

/* Listens on PATH (or takes PATH's socket from systemd), one worker process per
 * connection, at most h->max_workers at once, h->max_workers / 2 for one
 * user's crashes (root's excepted), each ended after WORKER_DEADLINE_S: a
 * flood of crashes waits in the listen queue (the kernel's connect fails,
 * and no dump is made, once that is full), never more memory or processes.
 * CONNECTIONS > 0: returns after that many (tests). */
static int serve_socket(struct handler *h, const char *path, unsigned long connections) {
        /* A crash of the handler itself must not make the kernel connect
         * to this very socket and wait for it: the workers inherit it. */
        int nd = cds_no_dump();
        if (nd < 0)
                log_line(h, "coredump socket: cannot make itself non-dumpable: %s", strerror(-nd));
        /* Started by systemd for its socket unit: the socket it passes,
         * which must be PATH's. */
        int lfd = cds_listen_fds(path);
        if (lfd == -ENOENT)
                lfd = cds_listen(path);
        if (lfd < 0) {
                tool_fail("%s: cannot listen: %s", path,
                          lfd == -EXDEV          ? "the socket systemd passed (LISTEN_FDS) is not this one"
                          : lfd == -EINVAL       ? "not an absolute path"
                          : lfd == -ENAMETOOLONG ? "too long for a socket's address"
                          : lfd == -EEXIST       ? "it (or its name with .new) is there and is not a socket; not replaced"
                          : lfd == -EADDRINUSE   ? "a server is listening on it already"
                                                 : strerror(-lfd));
                return EXIT_FAILURE_;
        }
        /* Waited for by ppoll() alone: an accept never blocks. */
        (void)fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
        unsigned deadline = worker_deadline();
        if (test_peer())
                log_line(h, "coredump socket: PKGNOTE_COREDUMP_TEST_PEER is set: processes not dumping core are served (tests only)");
        signal(SIGPIPE, SIG_IGN);
        /* SIGTERM, SIGINT and SIGCHLD are blocked but while the server
         * waits in ppoll(): one that comes at any other moment ends the
         * next wait, never is lost before it. */
        sigset_t block, waiting;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGCHLD);
        sigprocmask(SIG_BLOCK, &block, &waiting);
        struct sigaction sa = {.sa_handler = on_term};
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        struct sigaction sc = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP};
        sigaction(SIGCHLD, &sc, NULL);
        struct worker workers[256];
        unsigned running = 0;
        unsigned long served = 0;
        for (;;) {
                reap_workers(h, workers, &running, false, deadline);
                if (stop || (connections && served >= connections))
                        break;
                /* All workers busy: only a worker's end (SIGCHLD) or a
                 * SIGTERM is waited for. */
                struct pollfd pf = {lfd, POLLIN, 0};
                bool full = running >= h->max_workers;
                if (ppoll(&pf, full ? 0 : 1, NULL, &waiting) < 0 || full)
                        continue;
                int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0) {
                        if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN && errno != EWOULDBLOCK) {
                                log_line(h, "coredump socket: accept failed: %s", strerror(errno));
                                poll(NULL, 0, 100);
                        }
                        continue;
                }
                served++;
                /* The kernel connects as the crashing process: its user. */
                struct ucred cred = {.uid = 0};
                socklen_t len = sizeof cred;
                if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                        cred = (struct ucred){.uid = 0};
                unsigned mine = 0;
                for (unsigned i = 0; i < running; i++)
                        mine += workers[i].uid == cred.uid;
                if (cred.uid != 0 && mine >= user_cap(h)) {
                        log_line(h, "coredump socket: refused a crash of user %u: %u of its crashes are being handled",
                                 (unsigned)cred.uid, mine);
                        close(c);
                        continue;
                }
                pid_t p = fork();
                if (p == 0) {
                        close(lfd);
                        cds_listen_release();
                        signal(SIGCHLD, SIG_DFL);
                        /* Its deadline, or a stop (the server's at the
                         * end of its grace, or a service manager's): one
                         * at a time, the first one's name logged. */
                        worker_pid = getpid();
                        struct sigaction da = {.sa_handler = on_end};
                        end_signals(&da.sa_mask);
                        sigaction(SIGALRM, &da, NULL);
                        sigaction(SIGTERM, &da, NULL);
                        sigaction(SIGINT, &da, NULL);
                        /* Whatever mask the server was started with, the
                         * worker's ends come through. */
                        sigprocmask(SIG_SETMASK, &waiting, NULL);
                        sigprocmask(SIG_UNBLOCK, &da.sa_mask, NULL);
                        alarm(deadline); /* then the worker ends, whatever it waits for */
                        _exit(serve_connection(h, c));
                }
                close(c);
                if (p > 0)
                        workers[running++] = (struct worker){p, cred.uid, cred.pid};
                else
                        log_line(h, "coredump socket: cannot start a worker: %s", strerror(errno));
        }
        /* No more connections: a kernel connecting now is refused at once
         * (and the ones queued are reset) rather than left waiting for an
         * answer while the busy workers finish. */
        close(lfd);
        if (stop && running > 0) {
                /* Stopped: the busy workers get a grace, then are ended. */
                unsigned grace = deadline / 2 < STOP_GRACE_S ? (deadline + 1) / 2 : STOP_GRACE_S;
                struct timespec t0;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                for (;;) {
                        reap_workers(h, workers, &running, false, deadline);
                        long left = (long)grace * 1000 - cds_ms_since(&t0);
                        if (!running || left <= 0)
                                break;
                        struct timespec ts = {left / 1000, (left % 1000) * 1000000L};
                        (void)ppoll(NULL, 0, &ts, &waiting); /* until a worker ends (SIGCHLD) */
                }
                if (running > 0) {
                        log_line(h, "coredump socket: stopped: %u worker%s still busy after %u s, ended", running,
                                 running == 1 ? "" : "s", grace);
                        for (unsigned i = 0; i < running; i++)
                                (void)kill(workers[i].pid, SIGTERM);
                }
        }
        /* The workers end by their deadline at the latest. */
        reap_workers(h, workers, &running, true, deadline);
        return EXIT_OK;
}

static void usage(void) {
        printf("Usage: pkgnote-coredump [OPTIONS] PID UID GID SIGNAL TIME CORELIMIT HOST COMM\n"
               "       pkgnote-coredump [OPTIONS] --socket PATH\n"
               "       pkgnote-coredump --register [--socket PATH] [--sysctl FILE]\n"
               "\n"
               "A kernel.core_pattern handler: stores the core, compressed, with a JSON\n"
               "report of its packages beside it, within a quota per user, program and\n"
               "package version.  As a pipe handler:\n"
               "  echo '|/usr/libexec/pkgnote-coredump %%P %%u %%g %%s %%t %%c %%h %%e' \\\n"
               "      > /proc/sys/kernel/core_pattern\n"
               "or on the kernel's coredump socket (Linux 6.16+; '@@' 6.17+), which can\n"
               "refuse a dump over quota before it is written.\n"
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
               "                           (see pkgnote(1)); without it nothing is fetched;\n"
               "                           'quota-count', 'quota-bytes', 'quota-interval'\n"
               "                           (defaults 10 cores, 1G, 3600 s; 0: no bound)\n"
               "      --quota-count N      cores kept per user, program and version\n"
               "      --quota-bytes N      bytes of cores kept likewise\n"
               "      --quota-interval S   in S seconds\n"
               "      --socket PATH        serve the kernel's coredump socket PATH: made\n"
               "                           here, or passed by systemd (LISTEN_FDS)\n"
               "      --max-workers N      crashes handled at once (default 8)\n"
               "      --connections N      stop after N connections\n"
               "      --register           make this handler the kernel's: '@@PATH', else\n"
               "                           '@PATH', else the pipe, as the kernel takes them\n"
               "      --sysctl FILE        the core_pattern file (default\n"
               "                           /proc/sys/kernel/core_pattern)\n"
               "  -h, --help               show this help\n",
               PKGNOTE_CRASH_DEFAULT_DIR, DEFAULT_CONFIG);
}

#define DEFAULT_SOCKET "/run/pkgnote/coredump.socket"
#define PIPE_PATTERN_ARGS " %P %u %g %s %t %c %h %e"

static int do_register(const char *sysctl, const char *path) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 64);
        if (n <= 0) {
                tool_fail("cannot tell its own path: %s", strerror(errno));
                return EXIT_FAILURE_;
        }
        self[n] = 0;
        char pipe[4200], kept[4200];
        snprintf(pipe, sizeof pipe, "|%s%s", self, PIPE_PATTERN_ARGS);
        int level = cds_kernel_level();
        const char *forced = getenv("PKGNOTE_COREDUMP_KERNEL_LEVEL"); /* tests: the kernel's answer */
        if (forced && (forced[0] >= '0' && forced[0] <= '2') && !forced[1])
                level = forced[0] - '0';
        int r = cds_register(sysctl, level, path, pipe, kept, sizeof kept);
        if (r < 0) {
                tool_fail("%s: cannot register: %s", sysctl, strerror(-r));
                return EXIT_FAILURE_;
        }
        printf("%s\n", kept);
        return EXIT_OK;
}

int main(int argc, char **argv) {
        enum { OPT_QCOUNT = 256, OPT_QBYTES, OPT_QINTERVAL, OPT_SOCKET, OPT_WORKERS, OPT_CONNS, OPT_REGISTER, OPT_SYSCTL };
        static const struct option longopts[] = {
                {"state-dir", required_argument, NULL, 'd'},
                {"max-core-size", required_argument, NULL, 's'},
                {"max-use", required_argument, NULL, 'u'},
                {"log-file", required_argument, NULL, 'l'},
                {"config", required_argument, NULL, 'c'},
                {"quota-count", required_argument, NULL, OPT_QCOUNT},
                {"quota-bytes", required_argument, NULL, OPT_QBYTES},
                {"quota-interval", required_argument, NULL, OPT_QINTERVAL},
                {"socket", required_argument, NULL, OPT_SOCKET},
                {"max-workers", required_argument, NULL, OPT_WORKERS},
                {"connections", required_argument, NULL, OPT_CONNS},
                {"register", no_argument, NULL, OPT_REGISTER},
                {"sysctl", required_argument, NULL, OPT_SYSCTL},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        program_name = "pkgnote-coredump";
        /* Static: what the configuration allocates stays reachable. */
        static struct handler h;
        h = (struct handler){.state_dir = pkgnote_crash_store_dir(NULL),
                             .max_core = 2ull << 30,
                             .max_use = 4ull << 30,
                             .quota = {CDS_QUOTA_DEFAULT_COUNT, CDS_QUOTA_DEFAULT_BYTES, CDS_QUOTA_DEFAULT_INTERVAL},
                             .max_workers = 8,
                             .root_fd = -1};
        const char *config = NULL, *socket_path = NULL, *sysctl = "/proc/sys/kernel/core_pattern";
        bool socket_mode = false, reg = false;
        unsigned long connections = 0;
        /* Options override the configuration file: kept, applied after it. */
        const char *q_count = NULL, *q_bytes = NULL, *q_interval = NULL, *workers = NULL;
        int ch;
        while ((ch = tool_getopt(argc, argv, "+d:s:u:l:c:h", longopts)) >= 0)
                switch (ch) {
                case 'd': h.state_dir = optarg; break;
                case 's': h.max_core = parse_size(optarg, "--max-core-size"); break;
                case 'u': h.max_use = parse_size(optarg, "--max-use"); break;
                case 'l': h.log_file = optarg; break;
                case 'c': config = optarg; break;
                case OPT_QCOUNT: q_count = optarg; break;
                case OPT_QBYTES: q_bytes = optarg; break;
                case OPT_QINTERVAL: q_interval = optarg; break;
                case OPT_SOCKET: socket_mode = true; socket_path = optarg; break;
                case OPT_WORKERS: workers = optarg; break;
                case OPT_CONNS: {
                        unsigned v;
                        if (!parse_uint(optarg, 1000000, &v)) {
                                tool_fail("--connections: '%s' is not a number", optarg);
                                return EXIT_FAILURE_;
                        }
                        connections = v;
                        break;
                }
                case OPT_REGISTER: reg = true; break;
                case OPT_SYSCTL: sysctl = optarg; break;
                case 'h': usage(); return EXIT_OK;
                default: return EXIT_FAILURE_;
                }
        if (reg) {
                if (argc != optind) {
                        tool_fail("--register takes no arguments");
                        return EXIT_FAILURE_;
                }
                return do_register(sysctl, socket_path ? socket_path : DEFAULT_SOCKET);
        }
        openlog("pkgnote-coredump", LOG_PID, LOG_DAEMON);
        umask(0077);
        read_config(&h, config ? config : DEFAULT_CONFIG, config != NULL);
        if ((q_count && !parse_uint(q_count, 1000000, &h.quota.count)) ||
            (q_interval && (!parse_uint(q_interval, 366u * 86400, &h.quota.interval) || !h.quota.interval)) ||
            (workers && (!parse_uint(workers, 256, &h.max_workers) || !h.max_workers))) {
                tool_fail("--quota-count, --quota-interval (1 s to a year) and --max-workers (1 to 256) take a number");
                return EXIT_FAILURE_;
        }
        if (q_bytes)
                h.quota.bytes = parse_size(q_bytes, "--quota-bytes");
        if (socket_mode) {
                if (argc != optind) {
                        tool_fail("--socket takes no arguments");
                        return EXIT_FAILURE_;
                }
                return serve_socket(&h, socket_path, connections);
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
        take_process(&h);
        return store_crash(&h, a[4], a[5], NULL);
}
