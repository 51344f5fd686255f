/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * systemd-coredump's crashes as crash stores: its journal entries
 * (MESSAGE_ID fc2e22bc6ee647b6b90729ab34a250b1, the COREDUMP_* fields), read
 * with libsystemd's sd-journal, and its directory
 * /var/lib/systemd/coredump, whose files are named
 * core.COMM.UID.BOOTID.PID.USEC[.zst|.xz|.lz4] and carry user.coredump.*
 * extended attributes (systemd's coredump.c: make_filename, fix_xattr).
 *
 * Both are untrusted: any local user can log an entry with that
 * MESSAGE_ID, and a store copied off a machine holds whatever names it
 * was given.  Names and values are parsed strictly and bounded; what does
 * not parse is a problem of the list.  A crash's core is opened below the
 * store's directory by its file name only, never by a path an entry gives.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "11-crash-private.h"
#include "11-crash-systemd.h"
#include "01-base.h"
#include "11-crash-journal-dl.h"
#include "output.h"
#include "01-base-root.h"
#include "08-core-private.h"

/* ------------------------------------------------------------ parsers */

static int hexval(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The next '.'-separated part of a name from *P (up to END): its start
 * and length; false when none is left. */
static bool next_part(const char **p, const char *end, const char **part, size_t *len) {
        if (*p > end)
                return false;
        const char *dot = memchr(*p, '.', (size_t)(end - *p));
        const char *stop = dot ? dot : end;
        *part = *p;
        *len = (size_t)(stop - *p);
        *p = stop + 1;
        return true;
}

int pn_sd_parse_name(const char *name, struct pn_sd_name *ret) {
        size_t n = strnlen(name, PN_SD_MAX_NAME + 1);
        if (n > PN_SD_MAX_NAME)
                return pn_error(-EBADMSG, "longer than %u bytes", PN_SD_MAX_NAME);
        if (strncmp(name, "core.", 5))
                return pn_error(-EBADMSG, "not named core.*");
        struct pn_sd_name r = {0};
        const char *p = name + 5, *end = name + n, *part;
        size_t len;
        /* COMM: systemd's filename_escape() leaves no '.', '/' or
         * control byte in it and writes them, and '\', as \xNN. */
        if (!next_part(&p, end, &part, &len) || len == 0)
                return pn_error(-EBADMSG, "no command name");
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)part[i];
                if (ch == '\\') {
                        int hi, lo;
                        if (i + 3 >= len || part[i + 1] != 'x' || (hi = hexval(part[i + 2])) < 0 ||
                            (lo = hexval(part[i + 3])) < 0 || (hi == 0 && lo == 0))
                                return pn_error(-EBADMSG, "a bad escape in the command name");
                        r.comm[o++] = (char)(hi << 4 | lo);
                        i += 3;
                } else if (ch < ' ' || ch == 0x7f || ch == '/')
                        return pn_error(-EBADMSG, "a control byte or '/' in the command name");
                else
                        r.comm[o++] = (char)ch;
        }
        r.comm[o] = 0;
        if (!next_part(&p, end, &part, &len) || pn_crash_parse_number(part, len, UINT32_MAX, &r.uid) < 0)
                return pn_error(-EBADMSG, "no UID after the command name");
        if (!next_part(&p, end, &part, &len) || len != 32)
                return pn_error(-EBADMSG, "no boot ID (32 hexadecimal digits) after the UID");
        for (size_t i = 0; i < 32; i++)
                if (hexval(part[i]) < 0 || (part[i] >= 'A' && part[i] <= 'F'))
                        return pn_error(-EBADMSG, "no boot ID (32 hexadecimal digits) after the UID");
        memcpy(r.boot_id, part, 32);
        if (!next_part(&p, end, &part, &len) || pn_crash_parse_number(part, len, INT32_MAX, &r.pid) < 0 || r.pid == 0)
                return pn_error(-EBADMSG, "no PID after the boot ID");
        if (!next_part(&p, end, &part, &len) || pn_crash_parse_number(part, len, UINT64_MAX, &r.usec) < 0)
                return pn_error(-EBADMSG, "no time after the PID");
        if (next_part(&p, end, &part, &len)) {
                static const char *const z[] = {"zst", "xz", "lz4"};
                for (size_t i = 0; i < sizeof z / sizeof *z && !r.compression; i++)
                        if (len == strlen(z[i]) && !memcmp(part, z[i], len))
                                r.compression = z[i];
                if (!r.compression || next_part(&p, end, &part, &len))
                        return pn_error(-EBADMSG, "not ending in the time, .zst, .xz or .lz4");
        }
        *ret = r;
        return 0;
}

int pn_sd_value(const void *value, size_t len, char **ret) {
        if (len > PKGNOTE_MAX_CRASH_FIELD)
                return -E2BIG;
        if (memchr(value, 0, len))
                return -EBADMSG;
        size_t n;
        *ret = pn_utf8_or_hex(value, len, &n);
        return *ret ? 0 : -ENOMEM;
}

int pn_sd_split_field(const void *data, size_t len, char *name, size_t size, size_t *value_off) {
        const char *d = data;
        const char *eq = memchr(d, '=', len);
        /* Journal field names: A-Z, 0-9 and '_', not starting with a digit. */
        if (!eq || eq == d || (size_t)(eq - d) >= size)
                return -EBADMSG;
        for (const char *p = d; p < eq; p++)
                if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9' && p > d) || *p == '_'))
                        return -EBADMSG;
        memcpy(name, d, (size_t)(eq - d));
        name[eq - d] = 0;
        *value_off = (size_t)(eq - d) + 1;
        return 0;
}

enum kind { TEXT, NUMBER, PACKAGE };
/* systemd's fields and the names pkgnote's reports give them. */
static const struct {
        const char *field, *name;
        enum kind kind;
        uint64_t max;
} fields[] = {
        {"COREDUMP_PID", "pid", NUMBER, INT32_MAX},
        {"COREDUMP_UID", "uid", NUMBER, UINT32_MAX},
        {"COREDUMP_GID", "gid", NUMBER, UINT32_MAX},
        {"COREDUMP_SIGNAL", "signal", NUMBER, 255},
        {"COREDUMP_SIGNAL_NAME", "signalName", TEXT, 0},
        {"COREDUMP_TIMESTAMP", "timestamp", TEXT, 0},
        {"COREDUMP_RLIMIT", "rlimit", TEXT, 0},
        {"COREDUMP_HOSTNAME", "hostname", TEXT, 0},
        {"COREDUMP_COMM", "command", TEXT, 0},
        {"COREDUMP_EXE", "executable", TEXT, 0},
        {"COREDUMP_CMDLINE", "commandLine", TEXT, 0},
        {"COREDUMP_CGROUP", "cgroup", TEXT, 0},
        {"COREDUMP_UNIT", "unit", TEXT, 0},
        {"COREDUMP_USER_UNIT", "userUnit", TEXT, 0},
        {"COREDUMP_SLICE", "slice", TEXT, 0},
        {"COREDUMP_OWNER_UID", "ownerUid", TEXT, 0},
        {"COREDUMP_SESSION", "session", TEXT, 0},
        {"COREDUMP_CWD", "cwd", TEXT, 0},
        {"COREDUMP_ROOT", "root", TEXT, 0},
        {"COREDUMP_CONTAINER_CMDLINE", "containerCommandLine", TEXT, 0},
        {"COREDUMP_FILENAME", "coreFile", TEXT, 0},
        {"COREDUMP_TRUNCATED", "truncated", TEXT, 0},
        {"COREDUMP_PACKAGE_NAME", "name", PACKAGE, 0},
        {"COREDUMP_PACKAGE_VERSION", "version", PACKAGE, 0},
        {"COREDUMP_PACKAGE_JSON", NULL, TEXT, 0},
        {"_BOOT_ID", "bootId", TEXT, 0},
        {"_MACHINE_ID", "machineId", TEXT, 0},
        {"_HOSTNAME", NULL, TEXT, 0}, /* "hostname" where COREDUMP_HOSTNAME is absent */
        {"MESSAGE", "message", TEXT, 0},
};
#define N_FIELDS (sizeof fields / sizeof *fields)

int pn_sd_record(json_t *j, const char *field, const char *value, struct pn_problems *p, const char *path) {
        size_t i = 0;
        while (i < N_FIELDS && strcmp(fields[i].field, field))
                i++;
        if (json_object_set_new(j, field, json_string(value)) < 0)
                return pn_oom();
        if (i == N_FIELDS || !fields[i].name)
                return 0;
        json_t *v;
        if (fields[i].kind == NUMBER) {
                uint64_t n;
                if (pn_crash_parse_number(value, strlen(value), fields[i].max, &n) < 0) {
                        json_object_del(j, field);
                        return pn_problems_add(p, PKGNOTE_MAX_PROBLEMS, -EBADMSG, path, "%s is no number up to %" PRIu64,
                                               field, fields[i].max) < 0
                                       ? -ENOMEM
                                       : 0;
                }
                v = json_integer((json_int_t)n);
        } else
                v = json_string(value);
        json_t *into = j;
        if (fields[i].kind == PACKAGE) {
                into = json_object_get(j, "package");
                if (!into && json_object_set_new(j, "package", into = json_object()) < 0)
                        into = NULL;
        }
        if (!v || json_object_set_new(into, fields[i].name, v) < 0) /* frees V also when INTO is NULL */
                return pn_oom();
        return 0;
}

/* Records the value VALUE (LEN bytes) of FIELD, or a problem about it. */
static int record_bytes(json_t *j, const char *field, const void *value, size_t len, struct pn_problems *p,
                        const char *path) {
        char *s;
        int r = pn_sd_value(value, len, &s);
        if (r == -ENOMEM)
                return pn_oom();
        if (r < 0)
                return pn_problems_add(p, PKGNOTE_MAX_PROBLEMS, r, path,
                                       r == -E2BIG ? "%s is %zu bytes, over the limit of %u"
                                                   : "%s holds a NUL byte (%zu bytes)",
                                       field, len, PKGNOTE_MAX_CRASH_FIELD) < 0
                               ? -ENOMEM
                               : 0;
        r = pn_sd_record(j, field, s, p, path);
        free(s);
        return r;
}

/* ------------------------------------------------------------- store */

static const char *store_dir(const pkgnote_crash_options *o) {
        return o->systemd_dir ? o->systemd_dir : PN_SD_STORE_DIR;
}

/* The user.coredump.* attributes systemd-coredump sets on each file, by
 * the journal field each copies. */
static const char *const xattrs[][2] = {
        {"user.coredump.pid", "COREDUMP_PID"},
        {"user.coredump.uid", "COREDUMP_UID"},
        {"user.coredump.gid", "COREDUMP_GID"},
        {"user.coredump.signal", "COREDUMP_SIGNAL"},
        {"user.coredump.timestamp", "COREDUMP_TIMESTAMP"},
        {"user.coredump.rlimit", "COREDUMP_RLIMIT"},
        {"user.coredump.hostname", "COREDUMP_HOSTNAME"},
        {"user.coredump.comm", "COREDUMP_COMM"},
        {"user.coredump.exe", "COREDUMP_EXE"},
};

/* The record of the store file NAME (parsed into N), open as FD. */
static int store_record(json_t *j, int fd, const struct pn_sd_name *n, struct pn_problems *p, const char *path) {
        /* An attribute holds at most 64 KiB (XATTR_SIZE_MAX); one more
         * byte tells a value over the limit. */
        char *buf = malloc(PKGNOTE_MAX_CRASH_FIELD + 1);
        size_t size = PKGNOTE_MAX_CRASH_FIELD + 1;
        int r = buf ? 0 : pn_oom();
        for (size_t i = 0; r >= 0 && i < sizeof xattrs / sizeof *xattrs; i++) {
                ssize_t len = fgetxattr(fd, xattrs[i][0], buf, size);
                if (len < 0 && errno == ERANGE)
                        len = (ssize_t)size;
                if (len >= 0)
                        r = record_bytes(j, xattrs[i][1], buf, (size_t)len, p, path);
        }
        free(buf);
        /* The name is what systemd-coredump made of the same metadata and
         * is what identifies the file: it wins over the attributes. */
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, n->pid);
        if (r >= 0)
                r = pn_sd_record(j, "COREDUMP_PID", num, p, path);
        snprintf(num, sizeof num, "%" PRIu64, n->uid);
        if (r >= 0)
                r = pn_sd_record(j, "COREDUMP_UID", num, p, path);
        snprintf(num, sizeof num, "%" PRIu64, n->usec);
        if (r >= 0)
                r = pn_sd_record(j, "COREDUMP_TIMESTAMP", num, p, path);
        if (r >= 0)
                r = pn_sd_record(j, "_BOOT_ID", n->boot_id, p, path);
        if (r >= 0)
                r = record_bytes(j, "COREDUMP_COMM", n->comm, strlen(n->comm), p, path);
        return r;
}

static bool claimed(char **names, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (!strcmp(names[i], name))
                        return true;
        return false;
}

static int keep_options(pkgnote_crashes *l, const pkgnote_crash_options *o);

/* The files of the store directory the journal entries did not name
 * (LD's claimed) into L. */
static int load_store(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named, struct pn_crash_load *ld) {
        int r = keep_options(l, o);
        if (r < 0)
                return r;
        char **claimed_names = ld->claimed;
        size_t n_claimed = ld->n_claimed;
        const char *dir = store_dir(o);
        int dfd;
        struct pn_dir d;
        r = pn_crash_dir_open(dir, named, &dfd, &d);
        if (r < 0 || dfd < 0)
                return r;
        struct pn_dirent de;
        while (r >= 0 && pn_dir_next(&d, &de) > 0) {
                /* systemd-coredump's temporaries are hidden (".#core..."). */
                if (de.name[0] == '.' || claimed(claimed_names, n_claimed, de.name))
                        continue;
                char *path;
                if (asprintf(&path, "%s/%s", dir, de.name) < 0) {
                        r = pn_oom();
                        break;
                }
                struct pn_sd_name n;
                struct stat st;
                int fd = -1;
                if (pn_sd_parse_name(de.name, &n) < 0) {
                        r = pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, -EBADMSG, path,
                                            "not a systemd-coredump store name: %s", pkgnote_last_error());
                } else if ((fd = pn_open_below(dfd, de.name, false)) < 0 || fstat(fd, &st) < 0) {
                        r = pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, fd < 0 ? fd : -errno, path,
                                            "cannot open: %s", strerror(fd < 0 ? -fd : errno));
                } else {
                        struct pkgnote_crash c = {PKGNOTE_CRASH_STORE_SYSTEMD, strdup(de.name), path, json_object(),
                                                  (int64_t)(n.usec / 1000000), PKGNOTE_CRASH_CORE_FILE, l, false,
                                                  &pn_crash_store_systemd, false, false};
                        path = NULL;
                        if (!c.id || !c.j) {
                                pn_crash_clear(&c);
                                r = pn_oom();
                        } else if ((r = store_record(c.j, fd, &n, &l->problems, c.core)) < 0 ||
                                   (r = pn_crash_this_machine(l, c.j)) < 0)
                                pn_crash_clear(&c);
                        else
                                r = pn_crashes_add(l, &c, o);
                }
                if (fd >= 0)
                        close(fd);
                free(path);
        }
        pn_dir_close(&d);
        close(dfd);
        return r < 0 ? r : 0;
}

/* ----------------------------------------------------------- journal */

#define J pn_journal_api

/* Whether the journal file FD (SIZE bytes) is whole: its header
 * (journal-def.h: "LPKSHHRH", header_size at byte 88, arena_size at 96,
 * little-endian) and the arena it announces fit.  0 whole; -EBADMSG no
 * journal file; -ENODATA cut short, *WANT the size its header gives
 * (systemd refuses such a file: "No data available"). */
static int journal_file_whole(int fd, uint64_t size, uint64_t *want) {
        uint8_t h[104];
        *want = 0;
        size_t n = size < sizeof h ? (size_t)size : sizeof h;
        if (n < 8 || pread(fd, h, n, 0) != (ssize_t)n || memcmp(h, "LPKSHHRH", 8))
                return -EBADMSG;
        if (n < sizeof h)
                return -ENODATA; /* within the header: *WANT unknown, 0 */
        uint64_t hs = 0, as = 0;
        for (int i = 7; i >= 0; i--) {
                hs = hs << 8 | h[88 + i];
                as = as << 8 | h[96 + i];
        }
        if (hs > UINT64_MAX - as)
                return -EBADMSG;
        *want = hs + as;
        return *want > size ? -ENODATA : 0;
}

/* The journal files of DIR (-D) that sd_journal leaves out without a
 * word: cut short, or no journal file at all, each a problem of L. */
static int journal_dir_check(pkgnote_crashes *l, const char *dir) {
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return 0; /* sd_journal said why, or will */
        DIR *d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return 0;
        }
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (de = readdir(d))) {
                size_t n = strlen(de->d_name);
                if (!((n > 8 && !strcmp(de->d_name + n - 8, ".journal")) ||
                      (n > 9 && !strcmp(de->d_name + n - 9, ".journal~"))))
                        continue;
                int fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                        if (fd >= 0)
                                close(fd);
                        continue;
                }
                uint64_t want;
                int w = journal_file_whole(fd, (uint64_t)st.st_size, &want);
                close(fd);
                char *path = NULL;
                if (w < 0 && asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                        path = NULL, r = pn_oom();
                else if (w == -ENODATA && want)
                        r = pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, w, path,
                                            "the journal file is cut short (%jd of %" PRIu64 " bytes)",
                                            (intmax_t)st.st_size, want);
                else if (w == -ENODATA)
                        r = pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, w, path,
                                            "the journal file is cut short within its header (%jd bytes)",
                                            (intmax_t)st.st_size);
                else if (w < 0)
                        r = pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, w, path,
                                            "no journal file (its header is not one)");
                free(path);
        }
        closedir(d);
        return r < 0 ? r : 0;
}

static int journal_open(const pkgnote_crashes *l, sd_journal **ret) {
        int r;
        if (l->journal_files)
                r = J.sd_journal_open_files(ret, (const char **)l->journal_files, 0);
        else if (l->journal_dir)
                r = J.sd_journal_open_directory(ret, l->journal_dir, 0);
        else
                r = J.sd_journal_open(ret, PN_SD_JOURNAL_LOCAL_ONLY);
        if (r < 0 && l->journal_files)
                /* the file that is not whole, named with why */
                for (size_t i = 0; l->journal_files[i]; i++) {
                        int fd = open(l->journal_files[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                        struct stat st;
                        uint64_t want;
                        int w = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
                                        ? journal_file_whole(fd, (uint64_t)st.st_size, &want)
                                        : 0;
                        if (fd >= 0)
                                close(fd);
                        if (w == -ENODATA && want)
                                return pn_error(r, "'%s': cannot open the journal: the file is cut short (%jd of %" PRIu64 " bytes)",
                                                l->journal_files[i], (intmax_t)st.st_size, want);
                        if (w == -ENODATA)
                                return pn_error(r, "'%s': cannot open the journal: the file is cut short within its header (%jd bytes)",
                                                l->journal_files[i], (intmax_t)st.st_size);
                        if (w < 0)
                                return pn_error(r, "'%s': cannot open the journal: no journal file (its header is not one)",
                                                l->journal_files[i]);
                }
        if (r < 0)
                return pn_error(r, "'%s': cannot open the journal: %s",
                                l->journal_files ? l->journal_files[0] : l->journal_dir ? l->journal_dir : "journal",
                                strerror(-r));
        return 0;
}

/* Keeps copies of the journal options in L, to open it again later;
 * once for both of systemd-coredump's stores. */
static int keep_options(pkgnote_crashes *l, const pkgnote_crash_options *o) {
        if (l->options_kept)
                return 0;
        l->options_kept = true;
        if ((o->systemd_dir && !(l->systemd_dir = strdup(o->systemd_dir))) ||
            (o->journal_dir && !(l->journal_dir = strdup(o->journal_dir))))
                return pn_oom();
        if (o->journal_files) {
                size_t n = 0;
                while (o->journal_files[n])
                        n++;
                if (!(l->journal_files = calloc(n + 1, sizeof *l->journal_files)))
                        return pn_oom();
                for (size_t i = 0; i < n; i++)
                        if (!(l->journal_files[i] = strdup(o->journal_files[i])))
                                return pn_oom();
        }
        return 0;
}

/* The field FIELD of the current entry into the record, or a problem. */
static int journal_field(sd_journal *jr, json_t *j, const char *field, struct pn_problems *p, const char *where) {
        const void *data;
        size_t len, fl = strlen(field);
        int r = J.sd_journal_get_data(jr, field, &data, &len);
        if (r < 0)
                return 0; /* absent, or unreadable: as absent */
        if (len <= fl || memcmp(data, field, fl) || ((const char *)data)[fl] != '=')
                return 0;
        return record_bytes(j, field, (const char *)data + fl + 1, len - fl - 1, p, where);
}

/* The fields a listing reads of an entry: what pkgnote list, the
 * match on PID, command and executable, the time, the pairing with a
 * store file and the merge into pkgnote's store need.  The rest
 * (MESSAGE, the command line, the unit...) is read when asked for
 * (fill_journal()). */
static const char *const list_fields[] = {
        "COREDUMP_PID",          "COREDUMP_UID",           "COREDUMP_GID",      "COREDUMP_SIGNAL",
        "COREDUMP_SIGNAL_NAME",  "COREDUMP_TIMESTAMP",     "COREDUMP_HOSTNAME", "COREDUMP_COMM",
        "COREDUMP_EXE",          "COREDUMP_FILENAME",      "COREDUMP_PACKAGE_NAME", "COREDUMP_PACKAGE_VERSION",
        "_BOOT_ID",              "_MACHINE_ID",            "_HOSTNAME",
};

/* While listing, values are read up to this: a field's core (COREDUMP=)
 * or a long stack is never decompressed further.  A listed field that
 * reaches it is read again whole. */
#define LIST_THRESHOLD 2048u

/* What one pass over an entry's fields found. */
struct entry_scan {
        char uid[16], comm[32], ident[40]; /* _UID, _COMM, SYSLOG_IDENTIFIER values, cut */
        bool has_uid, has_comm, has_ident, has_core;
};

static void keep_value(char *buf, size_t size, const char *v, size_t len) {
        if (len >= size)
                len = size - 1; /* longer than any value compared: then never equal */
        memcpy(buf, v, len);
        buf[len] = 0;
}

/* Whether the scanned entry was logged by a crash handler, by the
 * fields journald sets and no sender can: _UID, from the socket's
 * credentials, and _COMM, which journald reads from /proc and leaves out
 * when the sender has already exited.  A crash handler is root or, in the
 * local journal, the systemd-coredump user (newer systemd-coredump runs as
 * it); a named sender must be systemd-coredump or pkgnote-coredump (cut to
 * 15 bytes, as the kernel keeps command names).  A copied journal's user
 * ids are another machine's: there a user other than root counts only
 * with a handler's name.  Any user can log an entry with the crash
 * MESSAGE_ID; one that is not from a handler is no crash.  HANDLER_UID:
 * the local systemd-coredump user's id (local_handler_uid()), or -1 for a
 * copied journal. */
static bool from_crash_handler(const struct entry_scan *e, int64_t handler_uid) {
        uint64_t uid;
        if (!e->has_uid || pn_crash_parse_number(e->uid, strlen(e->uid), UINT32_MAX, &uid) < 0)
                return false;
        int named = -1; /* no _COMM */
        if (e->has_comm)
                named = !strcmp(e->comm, "systemd-coredum") || !strcmp(e->comm, "pkgnote-coredum");
        if (named == 0)
                return false;
        if (uid == 0)
                return true;
        if (handler_uid < 0)
                return named == 1;
        return (int64_t)uid == handler_uid;
}

/* Whether the scanned entry was logged by pkgnote-coredump as root: _UID
 * 0 (a pipe handler of the kernel runs as root), _COMM, where journald
 * recorded one, pkgnote-coredump's, and its SYSLOG_IDENTIFIER.  Only such
 * an entry may stand for a crash of pkgnote's store (lib/11-crash.c). */
static bool from_pkgnote_root(const struct entry_scan *e) {
        return e->has_uid && !strcmp(e->uid, "0") && (!e->has_comm || !strcmp(e->comm, "pkgnote-coredum")) &&
               e->has_ident && !strcmp(e->ident, "pkgnote-coredump");
}

/* The id of the local systemd-coredump user, looked up once per listing,
 * or 0 (root, already a handler) when the machine has none. */
static int64_t local_handler_uid(void) {
        struct passwd pw, *res = NULL;
        char buf[1024];
        return getpwnam_r("systemd-coredump", &pw, buf, sizeof buf, &res) == 0 && res ? (int64_t)res->pw_uid : 0;
}

/* The base name of the store file the entry J names (pointing into J),
 * when it is a store name that agrees with the entry's PID and time: an
 * entry naming another crash's file (any user can log one) gets no core
 * and leaves that file to the store's own listing. */
static const char *entry_store_name(json_t *j) {
        const char *f = json_string_value(json_object_get(j, "COREDUMP_FILENAME"));
        const char *base = f ? strrchr(f, '/') : NULL;
        const char *ts = json_string_value(json_object_get(j, "COREDUMP_TIMESTAMP"));
        json_t *pid = json_object_get(j, "pid");
        struct pn_sd_name n;
        uint64_t usec;
        if (!base || pn_sd_parse_name(base + 1, &n) < 0 || !ts || pn_crash_parse_number(ts, strlen(ts), UINT64_MAX, &usec) < 0)
                return NULL;
        return json_is_integer(pid) && (uint64_t)json_integer_value(pid) == n.pid && usec == n.usec ? base + 1 : NULL;
}

/* "hostname": COREDUMP_HOSTNAME, else the sender's _HOSTNAME. */
static int record_hostname(json_t *j) {
        const char *h = json_string_value(json_object_get(j, "_HOSTNAME"));
        if (h && !json_object_get(j, "hostname") && json_object_set_new(j, "hostname", json_string(h)) < 0)
                return pn_oom();
        return 0;
}

/* Which fields scan_entry() reads. */
enum scan_what {
        SCAN_LISTED, /* those a listing shows (list_fields) */
        SCAN_REST,   /* every other field of the table */
        SCAN_ALL,    /* every field of the table */
};

/* One pass over the current entry's fields (each compressed field
 * decompressed once, up to the threshold set): the fields WHAT names not
 * in J yet into J, the sender's fields into E (may be NULL).  A field
 * whose value reaches CUT (0: none) is read again whole. */
static int scan_entry(sd_journal *jr, json_t *j, enum scan_what what, size_t cut, struct entry_scan *e,
                      struct pn_problems *p, const char *where) {
        const void *data;
        size_t len;
        int r = 0;
        J.sd_journal_restart_data(jr);
        while (r >= 0 && J.sd_journal_enumerate_data(jr, &data, &len) > 0) {
                char name[64];
                size_t off;
                if (pn_sd_split_field(data, len, name, sizeof name, &off) < 0)
                        continue;
                const char *v = (const char *)data + off;
                if (e) {
                        if (!strcmp(name, "COREDUMP")) {
                                e->has_core = true;
                                continue;
                        }
                        if (!strcmp(name, "_UID"))
                                keep_value(e->uid, sizeof e->uid, v, len - off), e->has_uid = true;
                        else if (!strcmp(name, "_COMM"))
                                keep_value(e->comm, sizeof e->comm, v, len - off), e->has_comm = true;
                        else if (!strcmp(name, "SYSLOG_IDENTIFIER"))
                                keep_value(e->ident, sizeof e->ident, v, len - off), e->has_ident = true;
                }
                bool want = false;
                if (what == SCAN_LISTED) {
                        for (size_t i = 0; i < ELEMENTSOF(list_fields) && !want; i++)
                                want = !strcmp(list_fields[i], name);
                } else {
                        for (size_t i = 0; i < N_FIELDS && !want; i++)
                                want = !strcmp(fields[i].field, name);
                        /* The rest: a listed field was read (or found
                         * wanting, and said so) already. */
                        for (size_t i = 0; what == SCAN_REST && i < ELEMENTSOF(list_fields) && want; i++)
                                want = strcmp(list_fields[i], name) != 0;
                }
                if (!want || json_object_get(j, name))
                        continue;
                if (cut && len >= cut) {
                        /* Cut short at the threshold: the whole value. */
                        char *copy = strdup(name);
                        if (!copy)
                                return pn_oom();
                        (void)J.sd_journal_set_data_threshold(jr, PKGNOTE_MAX_CRASH_FIELD + 64);
                        r = journal_field(jr, j, copy, p, where);
                        (void)J.sd_journal_set_data_threshold(jr, cut);
                        free(copy);
                        /* get_data() leaves the enumeration where it was. */
                        continue;
                }
                r = record_bytes(j, name, v, len - off, p, where);
        }
        return r < 0 ? r : record_hostname(j);
}

static void journal_where(char *where, size_t size, uint64_t usec) {
        /* Names the entry as journalctl -o export shows it. */
        snprintf(where, size, "journal entry __REALTIME_TIMESTAMP=%" PRIu64, usec);
}

/* The current entry as a crash into *C: 1, 0 when it is no handler's
 * (counted as foreign), or a negative errno. */
static int journal_crash(pkgnote_crashes *l, const pkgnote_crash_options *o, struct pn_crash_load *ld,
                         struct pkgnote_crash *ret) {
        sd_journal *jr = l->jr;
        struct entry_scan e = {0};
        uint64_t usec = 0;
        (void)J.sd_journal_get_realtime_usec(jr, &usec);
        char where[64];
        journal_where(where, sizeof where, usec);
        struct pkgnote_crash c = {PKGNOTE_CRASH_STORE_JOURNAL, NULL, NULL, json_object(), (int64_t)(usec / 1000000),
                                  PKGNOTE_CRASH_CORE_GONE, l, false, &pn_crash_store_journal, true, false};
        if (!c.j)
                return pn_oom();
        /* Whole records: every field in this one pass, whole (up to the
         * limit; the core's bytes only up to it). */
        bool whole = o->flags & PKGNOTE_CRASH_WHOLE_RECORDS;
        if (whole)
                (void)J.sd_journal_set_data_threshold(jr, PKGNOTE_MAX_CRASH_FIELD + 64);
        int r = scan_entry(jr, c.j, whole ? SCAN_ALL : SCAN_LISTED, whole ? 0 : LIST_THRESHOLD, &e, &l->problems,
                           where);
        if (whole)
                (void)J.sd_journal_set_data_threshold(jr, LIST_THRESHOLD);
        c.partial = !whole;
        if (r < 0) {
                pn_crash_clear(&c);
                return r;
        }
        if (!from_crash_handler(&e, l->handler_uid)) {
                l->foreign++;
                pn_crash_clear(&c);
                return 0;
        }
        c.pkgnote_handler = from_pkgnote_root(&e);
        if (J.sd_journal_get_cursor(jr, &c.id) < 0 || !c.id) {
                c.id = NULL;
                pn_crash_clear(&c);
                return 0;
        }
        uint64_t ts;
        const char *t = json_string_value(json_object_get(c.j, "COREDUMP_TIMESTAMP"));
        if (t && pn_crash_parse_number(t, strlen(t), UINT64_MAX, &ts) == 0)
                c.time = (int64_t)(ts / 1000000);
        const char *base = entry_store_name(c.j);
        struct stat st;
        if (base && l->store_dfd >= 0 && fstatat(l->store_dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode)) {
                if (asprintf(&c.core, "%s/%s", store_dir(o), base) < 0) {
                        c.core = NULL;
                        pn_crash_clear(&c);
                        return pn_oom();
                }
                c.core_state = PKGNOTE_CRASH_CORE_FILE;
                /* The file is this entry's: the store's listing leaves it
                 * out.  Only names of files there are kept. */
                char *name = strdup(base);
                if (!name || PN_GROW(ld->claimed, ld->cap_claimed, ld->n_claimed + 1) < 0) {
                        free(name);
                        pn_crash_clear(&c);
                        return pn_oom();
                }
                ld->claimed[ld->n_claimed++] = name;
        } else if (e.has_core)
                c.core_state = PKGNOTE_CRASH_CORE_JOURNAL;
        *ret = c;
        return 1;
}

/* Opens the journal for reading crashes, once per list. */
static int journal_start(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named) {
        l->journal_started = true;
        l->store_dfd = -1;
        int r = keep_options(l, o);
        if (r < 0)
                return r;
        r = pn_journal_load();
        if (r < 0) {
                l->journal_done = true;
                return named ? r : 0; /* a machine without libsystemd has no journal */
        }
        if (!l->journal_files && l->journal_dir && (r = journal_dir_check(l, l->journal_dir)) < 0) {
                l->journal_done = true;
                return r;
        }
        if ((r = journal_open(l, &l->jr)) < 0) {
                l->journal_done = true;
                return r;
        }
        l->store_dfd = open(store_dir(o), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        l->handler_uid = !l->journal_files && !l->journal_dir ? local_handler_uid() : -1;
        (void)J.sd_journal_set_data_threshold(l->jr, LIST_THRESHOLD);
        r = J.sd_journal_add_match(l->jr, "MESSAGE_ID=" PN_SD_MESSAGE_ID, strlen("MESSAGE_ID=" PN_SD_MESSAGE_ID));
        if (r < 0) {
                l->journal_done = true;
                return pn_error(r, "cannot filter the journal: %s", strerror(-r));
        }
        return 0;
}

/* The journal's next crash, unfiltered: 1, 0 at the end, or a negative
 * errno.  The store files the entries name are claimed in LD, for
 * load_store(). */
static int next_journal(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named, struct pn_crash_load *ld,
                        struct pkgnote_crash *ret) {
        int r;
        if (!l->journal_started && (r = journal_start(l, o, named)) < 0)
                return r;
        while (!l->journal_done) {
                if ((r = J.sd_journal_next(l->jr)) <= 0) {
                        l->journal_done = true;
                        if (l->store_dfd >= 0)
                                close(l->store_dfd);
                        l->store_dfd = -1;
                        if (r < 0)
                                return pn_error(r, "cannot read the journal: %s", strerror(-r));
                        if (l->foreign &&
                            pn_problems_add(&l->problems, PKGNOTE_MAX_PROBLEMS, -EPERM, "journal",
                                            "%zu %s the crash MESSAGE_ID not logged by systemd-coredump or "
                                            "pkgnote-coredump (their _COMM and _UID)",
                                            l->foreign, l->foreign == 1 ? "entry has" : "entries have") < 0)
                                return -ENOMEM;
                        break;
                }
                if ((r = journal_crash(l, o, ld, ret)) != 0)
                        return r;
        }
        return 0;
}

/* The journal's crash entries into L; the store files they name are
 * claimed in LD, for load_store(). */
static int load_journal_entries(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named,
                                struct pn_crash_load *ld) {
        struct pkgnote_crash c;
        int r;
        while ((r = next_journal(l, o, named, ld, &c)) > 0)
                if ((r = pn_crashes_add(l, &c, o)) < 0)
                        return r;
        return r;
}

/* The rest of the journal entry C's fields: from the list's journal,
 * where C is the current entry while it is read, else found again by
 * its cursor. */
static int fill_journal(struct pkgnote_crash *c) {
        pkgnote_crashes *l = (pkgnote_crashes *)c->list;
        if (!c->partial)
                return 0;
        c->partial = false; /* once, whatever comes of it */
        int r = 0;
        if (!l->jr) {
                if ((r = pn_journal_load()) < 0 || (r = journal_open(l, &l->jr)) < 0)
                        return r;
                l->journal_done = l->journal_started = true;
        }
        sd_journal *jr = l->jr;
        if (J.sd_journal_test_cursor(jr, c->id) <= 0) {
                if (!l->journal_done)
                        return pn_error(-EBUSY, "the journal is being read past the crash");
                if (J.sd_journal_seek_cursor(jr, c->id) < 0 || J.sd_journal_next(jr) <= 0 ||
                    J.sd_journal_test_cursor(jr, c->id) <= 0)
                        return pn_error(-ENODATA, "the journal entry of the crash is gone");
        }
        uint64_t usec = 0;
        (void)J.sd_journal_get_realtime_usec(jr, &usec);
        char where[64];
        journal_where(where, sizeof where, usec);
        /* Whole values now (up to the limit), the core left out. */
        (void)J.sd_journal_set_data_threshold(jr, PKGNOTE_MAX_CRASH_FIELD + 64);
        r = scan_entry(jr, c->j, SCAN_REST, 0, NULL, &l->problems, where);
        (void)J.sd_journal_set_data_threshold(jr, LIST_THRESHOLD);
        return r;
}

/* ------------------------------------------------------------ opening */

/* The core the journal entry C holds inline, into a memory file. */
static int open_inline(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret) {
        int r = pn_journal_load();
        if (r < 0)
                return r;
        sd_journal *jr;
        if ((r = journal_open(c->list, &jr)) < 0)
                return r;
        const void *data = NULL;
        size_t len = 0;
        if (J.sd_journal_seek_cursor(jr, c->id) < 0 || J.sd_journal_next(jr) <= 0 || J.sd_journal_test_cursor(jr, c->id) <= 0)
                r = pn_error(-ENODATA, "the journal entry of the crash is gone");
        else if (J.sd_journal_set_data_threshold(jr, 0) < 0 || J.sd_journal_get_data(jr, "COREDUMP", &data, &len) < 0 ||
                 len < 9)
                r = pn_error(-ENODATA, "the journal entry no longer holds the core");
        else if (len - 9 > PN_SD_MAX_INLINE_CORE)
                r = pn_error(-E2BIG, "the core in the journal is %zu bytes, over the limit of %llu", len - 9,
                             (unsigned long long)PN_SD_MAX_INLINE_CORE);
        int fd = -1;
        if (r >= 0 && (fd = memfd_create("pkgnote-journal-core", MFD_CLOEXEC)) < 0)
                r = pn_error(-errno, "memfd_create: %s", strerror(errno));
        if (r >= 0 && (r = pn_write_full(fd, (const char *)data + 9, len - 9)) < 0)
                pn_error(r, "cannot copy the core out of the journal: %s", strerror(-r));
        J.sd_journal_close(jr);
        if (r >= 0 && lseek(fd, 0, SEEK_SET) < 0)
                r = pn_error(-errno, "lseek: %s", strerror(errno));
        /* Another machine's core (a collector's journal): its modules'
         * files and package database are that machine's, not this one's,
         * so neither is read here; the notes in the core name the
         * packages, and the report says why the rest are unnamed. */
        const char *mid = pn_crash_string(c, "machineId");
        const char *own = pn_crash_machine_id((pkgnote_crashes *)c->list);
        bool foreign = mid && (!own || strcmp(mid, own));
        pkgnote_core_options oo = PKGNOTE_CORE_OPTIONS_INIT;
        if (o)
                memcpy(&oo, o, o->size && o->size < sizeof oo ? o->size : sizeof oo);
        oo.size = sizeof oo;
        if (foreign)
                oo.no_disk = oo.no_database = 1;
        if (r >= 0)
                r = pkgnote_core_open_fd(fd, &oo, ret);
        if (fd >= 0)
                close(fd);
        if (r >= 0 && foreign)
                pn_core_problem_err(*ret, -EREMOTE,
                                    "the core is of another machine (machine ID %.32s, this one's %s): its packages are "
                                    "named from the notes in the core alone, never from this machine's package "
                                    "database or files",
                                    mid, own ? own : "unknown");
        return r;
}

static int open_systemd(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret) {
        if (c->core_state == PKGNOTE_CRASH_CORE_JOURNAL)
                return open_inline(c, o, ret);
        if (c->core_state != PKGNOTE_CRASH_CORE_FILE || !c->core) {
                const char *f = json_string_value(json_object_get(c->j, "COREDUMP_FILENAME"));
                return f ? pn_error(-ENODATA, "the core is gone: %s no longer exists", f)
                         : pn_error(-ENODATA, "the core is gone: systemd-coredump did not store it");
        }
        /* Opened below the store's directory by the file's name alone. */
        const char *dir = c->list->systemd_dir ? c->list->systemd_dir : PN_SD_STORE_DIR;
        const char *base = strrchr(c->core, '/') + 1;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return pn_error(errno == ENOENT ? -ENODATA : -errno, "'%s': %s", dir, strerror(errno));
        int fd = pn_open_below(dfd, base, false);
        close(dfd);
        if (fd < 0)
                return pn_error(fd == -ENOENT ? -ENODATA : fd, "the core is gone: '%s': %s", c->core, strerror(-fd));
        int r = pkgnote_core_open_fd(fd, o, ret);
        close(fd);
        return r;
}

static bool store_located(const pkgnote_crash_options *o) {
        return o->systemd_dir;
}

static bool journal_located(const pkgnote_crash_options *o) {
        return o->journal_dir || o->journal_files;
}

const struct pn_crash_store pn_crash_store_journal = {
        .bit = PKGNOTE_CRASH_STORE_JOURNAL,
        .name = "journal",
        .located = journal_located,
        .load = load_journal_entries,
        .next = next_journal,
        .fill = fill_journal,
        .open = open_systemd,
};

const struct pn_crash_store pn_crash_store_systemd = {
        .bit = PKGNOTE_CRASH_STORE_SYSTEMD,
        .name = "systemd",
        .located = store_located,
        .load = load_store,
        .open = open_systemd,
};
