/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The journal entry of a crash pkgnote-coredump stored, in the fields
 * systemd-coredump writes (MESSAGE_ID fc2e22bc6ee647b6b90729ab34a250b1,
 * COREDUMP_*), so that coredumpctl lists, shows and dumps it, and journal
 * forwarding carries it off the machine.  COREDUMP_FILENAME names the
 * core in pkgnote's store; the core itself is never copied into the
 * journal.  Fields that need the process come from /proc/PID, read while
 * the kernel holds the process for its core.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "coredump-journal.h"
#include "fileio.h"

#define MESSAGE_ID "fc2e22bc6ee647b6b90729ab34a250b1"
#define MAX_PROC_FILE (4u << 20) /* bytes kept of one /proc file */

/* /proc/PID/NAME into *RET (malloc()ed): its length, or -1 (unreadable,
 * or over MAX_PROC_FILE: left out). */
static ssize_t read_proc(int dir, const char *name, char **ret) {
        int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        size_t len;
        int r = fd < 0 ? -errno : pn_read_all(fd, MAX_PROC_FILE, ret, &len);
        if (fd >= 0)
                close(fd);
        return r < 0 ? -1 : (ssize_t)len;
}

static void add_link(struct journal_msg *m, int dir, const char *name, const char *field) {
        char buf[4096];
        ssize_t n = readlinkat(dir, name, buf, sizeof buf);
        if (n > 0 && (size_t)n < sizeof buf)
                journal_add(m, field, buf, (size_t)n);
}

static void add_file(struct journal_msg *m, int dir, const char *name, const char *field) {
        char *buf;
        ssize_t n = read_proc(dir, name, &buf);
        if (n > 0)
                journal_add(m, field, buf, (size_t)n);
        if (n >= 0)
                free(buf);
}

/* COREDUMP_UNIT, _USER_UNIT and _SLICE from the unified hierarchy's path:
 * the unit is the first component that is no slice; below a user manager
 * (user@UID.service), the user's unit likewise. */
static void add_units(struct journal_msg *m, const char *path) {
        char *copy = strdup(path), *save = NULL, *unit = NULL, *slice = NULL, *user_unit = NULL;
        bool user = false;
        for (char *c = copy ? strtok_r(copy, "/", &save) : NULL; c; c = strtok_r(NULL, "/", &save)) {
                size_t n = strlen(c);
                bool is_slice = n > 6 && !strcmp(c + n - 6, ".slice");
                if (!unit && is_slice)
                        slice = c;
                else if (!unit) {
                        unit = c;
                        user = !strncmp(c, "user@", 5);
                        if (!user)
                                break;
                } else if (!is_slice) {
                        user_unit = c;
                        break;
                }
        }
        journal_add_string(m, "COREDUMP_UNIT", unit);
        journal_add_string(m, "COREDUMP_USER_UNIT", user_unit);
        journal_add_string(m, "COREDUMP_SLICE", slice);
        free(copy);
}

void crash_journal_collect(struct crash_journal *j, int pid) {
        struct stat st;
        j->wanted = stat(JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", pid);
        int dir = j->wanted && pid > 0 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (dir < 0)
                return;
        struct journal_msg *m = &j->proc;
        char *buf;
        ssize_t n = read_proc(dir, "cmdline", &buf);
        if (n > 0) {
                /* Arguments apart by spaces, as systemd writes them. */
                while (n > 0 && buf[n - 1] == 0)
                        n--;
                for (ssize_t i = 0; i < n; i++)
                        if (buf[i] == 0)
                                buf[i] = ' ';
                journal_add(m, "COREDUMP_CMDLINE", buf, (size_t)n);
        }
        if (n >= 0)
                free(buf);
        if ((n = read_proc(dir, "cgroup", &buf)) > 0) {
                /* The unified hierarchy's line: "0::PATH". */
                char *line = buf;
                buf[n - 1] = 0;
                for (char *next; line; line = next) {
                        if ((next = strchr(line, '\n')))
                                *next++ = 0;
                        if (!strncmp(line, "0::", 3)) {
                                journal_add_string(m, "COREDUMP_CGROUP", line + 3);
                                add_units(m, line + 3);
                                break;
                        }
                }
        }
        if (n >= 0)
                free(buf);
        add_link(m, dir, "exe", "COREDUMP_EXE");
        add_link(m, dir, "cwd", "COREDUMP_CWD");
        add_link(m, dir, "root", "COREDUMP_ROOT");
        add_file(m, dir, "status", "COREDUMP_PROC_STATUS");
        add_file(m, dir, "maps", "COREDUMP_PROC_MAPS");
        add_file(m, dir, "limits", "COREDUMP_PROC_LIMITS");
        add_file(m, dir, "mountinfo", "COREDUMP_PROC_MOUNTINFO");
        close(dir);
}

/* " from TYPE NAME-VERSION.ARCH" as systemd writes a package. */
static void package_words(FILE *f, const pkgnote_metadata *md) {
        const char *type = pkgnote_metadata_type(md), *name = pkgnote_metadata_name(md);
        const char *version = pkgnote_metadata_version(md), *arch = pkgnote_metadata_architecture(md);
        if (!name)
                return;
        fprintf(f, " from %s %s%s%s%s%s", type ? type : "package", name, version ? "-" : "", version ? version : "",
                arch ? "." : "", arch ? arch : "");
}

/* S when it is printable ASCII, else "n/a": a hostile core's names must
 * not make the stack text one that readers refuse. */
static const char *plain(const char *s) {
        if (!s || !*s)
                return "n/a";
        for (const char *p = s; *p; p++)
                if (*p < 0x20 || *p > 0x7e)
                        return "n/a";
        return s;
}

/* The crashing thread's stack as systemd-coredump writes it into MESSAGE
 * ("Stack trace of thread N:", then "#I 0xPC FUNCTION (MODULE +
 * 0xOFFSET)"), so that its signature can be made from the journal once
 * the stored core is gone. */
static void stack_words(FILE *f, const pkgnote_stack *st) {
        if (!st || pkgnote_stack_thread_count(st) == 0 || pkgnote_stack_frame_count(st, 0) == 0)
                return;
        fprintf(f, "Stack trace of thread %d:\n", pkgnote_stack_thread_tid(st, 0));
        for (size_t k = 0; k < pkgnote_stack_frame_count(st, 0); k++)
                fprintf(f, "#%-2zu 0x%016" PRIx64 " %s (%s + 0x%" PRIx64 ")\n", k, pkgnote_stack_frame_pc(st, 0, k),
                        plain(pkgnote_stack_frame_function(st, 0, k)), plain(pkgnote_stack_frame_module(st, 0, k)),
                        pkgnote_stack_frame_module_offset(st, 0, k));
}

void crash_journal_core(struct crash_journal *j, pkgnote_core *c, const pkgnote_stack *st) {
        if (!j->wanted)
                return;
        if (pkgnote_core_to_systemd_json(c, PKGNOTE_SYSTEMD_COREDUMP, &j->package_json) < 0)
                j->package_json = NULL;
        const pkgnote_module *main = pkgnote_core_main_module(c);
        const pkgnote_info *mi = main ? pkgnote_module_info(main) : NULL;
        if (mi && pkgnote_info_package_count(mi) > 0) {
                const pkgnote_metadata *md = pkgnote_info_package(mi, 0);
                const char *name = pkgnote_metadata_name(md), *version = pkgnote_metadata_version(md);
                j->package_name = name ? strdup(name) : NULL;
                j->package_version = version ? strdup(version) : NULL;
        }
        size_t len;
        FILE *f = open_memstream(&j->modules, &len);
        if (!f)
                return;
        for (size_t i = 0; i < pkgnote_core_module_count(c); i++) {
                const pkgnote_module *mod = pkgnote_core_module(c, i);
                const pkgnote_info *info = pkgnote_module_info(mod);
                if (!info || pkgnote_info_package_count(info) == 0)
                        continue;
                const pkgnote_metadata *md = pkgnote_info_package(info, 0);
                fprintf(f, "Module %s", pkgnote_module_path(mod));
                package_words(f, md);
                if (pkgnote_module_build_id(mod) && !(pkgnote_metadata_name(md) && pkgnote_metadata_version(md)))
                        fprintf(f, ", build-id=%s", pkgnote_module_build_id(mod));
                fputc('\n', f);
        }
        stack_words(f, st);
        if (fclose(f) != 0) {
                free(j->modules);
                j->modules = NULL;
        }
}

int crash_journal_log(struct crash_journal *j, const struct crash_facts *f) {
        if (!j->wanted)
                return 0;
        struct journal_msg m = {0};
        const char *sn = pkgnote_signal_name(f->sig);
        journal_add_string(&m, "MESSAGE_ID", MESSAGE_ID);
        journal_addf(&m, "PRIORITY", "%d", LOG_CRIT);
        journal_addf(&m, "MESSAGE", "Process %d (%s) of user %d dumped core.%s%s", f->pid, f->comm, f->uid,
                     j->modules && j->modules[0] ? "\n\n" : "", j->modules ? j->modules : "");
        journal_addf(&m, "COREDUMP_PID", "%d", f->pid);
        journal_addf(&m, "COREDUMP_UID", "%d", f->uid);
        journal_addf(&m, "COREDUMP_GID", "%d", f->gid);
        journal_addf(&m, "COREDUMP_SIGNAL", "%d", f->sig);
        if (sn)
                journal_addf(&m, "COREDUMP_SIGNAL_NAME", "SIG%s", sn);
        /* %t is in seconds; systemd logs microseconds. */
        journal_addf(&m, "COREDUMP_TIMESTAMP", "%s000000", f->time);
        journal_add_string(&m, "COREDUMP_RLIMIT", f->rlimit);
        journal_add_string(&m, "COREDUMP_HOSTNAME", f->hostname);
        journal_add_string(&m, "COREDUMP_COMM", f->comm);
        if (f->truncated)
                journal_add_string(&m, "COREDUMP_TRUNCATED", "1");
        journal_add_string(&m, "COREDUMP_FILENAME", f->core_file);
        journal_add_string(&m, "COREDUMP_PACKAGE_NAME", j->package_name);
        journal_add_string(&m, "COREDUMP_PACKAGE_VERSION", j->package_version);
        journal_add_string(&m, "COREDUMP_PACKAGE_JSON", j->package_json);
        journal_append(&m, &j->proc); /* the fields taken from /proc */
        journal_add_string(&m, "SYSLOG_IDENTIFIER", "pkgnote-coredump");
        int r = journal_send(&m, JOURNAL_SOCKET);
        journal_msg_free(&m);
        return r;
}
