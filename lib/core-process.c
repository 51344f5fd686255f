/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A running process, read like a core: modules from /proc/PID/maps, each
 * file's notes through /proc/PID/map_files/START-END, which opens the file
 * the process really maps even when an upgrade replaced or deleted the one
 * at its path (proc(5)).  Where map_files is not permitted, the path is
 * opened and accepted only when its device and inode are the mapped ones.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core.h"
#include "elfview.h"

#define MAX_PROC_FILE (1u << 20)

/* Reads a small /proc file whole (they have no size to stat). */
static char *read_proc(int pid, const char *name, size_t *len) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        size_t cap = 4096, n = 0;
        char *buf = malloc(cap + 1);
        while (buf) {
                if (n == cap) {
                        char *b = cap < MAX_PROC_FILE ? realloc(buf, cap * 2 + 1) : NULL;
                        if (!b)
                                break;
                        buf = b;
                        cap *= 2;
                }
                ssize_t r = read(fd, buf + n, cap - n);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        break;
                n += (size_t)r;
        }
        close(fd);
        if (buf) {
                buf[n] = 0;
                if (len)
                        *len = n;
        }
        return buf;
}

static void read_status(pkgnote_core *c, int pid) {
        char *s = read_proc(pid, "status", NULL);
        if (!s)
                return;
        char *save = NULL;
        for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (!strncmp(line, "PPid:", 5))
                        c->ppid = atoi(line + 5), c->have_ppid = true;
                else if (!strncmp(line, "Uid:", 4))
                        c->uid = atoi(line + 4), c->have_ids = true;
                else if (!strncmp(line, "Gid:", 4))
                        c->gid = atoi(line + 4);
        }
        free(s);
}

static void read_identity(pkgnote_core *c, int pid) {
        size_t len;
        char *s = read_proc(pid, "comm", &len);
        if (s) {
                s[strcspn(s, "\n")] = 0;
                snprintf(c->comm, sizeof c->comm, "%s", s);
                free(s);
        }
        s = read_proc(pid, "cmdline", &len);
        if (s) {
                for (size_t i = 0; i + 1 < len; i++)
                        if (s[i] == 0)
                                s[i] = ' ';
                c->args = s;
        }
        char path[64], target[4096];
        snprintf(path, sizeof path, "/proc/%d/exe", pid);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
                target[n] = 0;
                c->exe = strdup(target);
        }
        s = read_proc(pid, "auxv", &len);
        if (s) {
                pn_core_parse_auxv(c, (const uint8_t *)s, len);
                free(s);
        }
}

/* The file at the module's path now: in the process's root ROOTFD when
 * it is open (a container's file, not the host's at the same path), else
 * as named.  An fd or a negative errno. */
static int open_now(const pkgnote_core *c, int rootfd, const pkgnote_module *m) {
        return rootfd >= 0 ? pn_open_in_root(rootfd, pn_module_path_in_root(c, m)) : pn_open_in_root(-1, m->path);
}

static bool stat_now(const pkgnote_core *c, int rootfd, const pkgnote_module *m, struct stat *st) {
        if (rootfd < 0)
                return stat(m->path, st) == 0;
        int fd = open_now(c, rootfd, m);
        if (fd < 0)
                return false;
        bool ok = fstat(fd, st) == 0;
        close(fd);
        return ok;
}

/* The notes of the file now at a replaced module's path: the version
 * installed, beside the one in memory. */
static void read_now(const pkgnote_core *c, int rootfd, pkgnote_module *m) {
        int fd = open_now(c, rootfd, m);
        if (fd < 0)
                return;
        pkgnote_elf *e;
        if (pkgnote_elf_open_fd(fd, &e) >= 0) {
                if (pkgnote_info_read(e, &m->now_info) < 0)
                        m->now_info = NULL;
                pkgnote_elf_free(e);
        }
        close(fd);
}

/* The file behind the mapping: map_files when allowed, else the path if
 * it is still the same inode. */
static int open_mapped(const pkgnote_core *c, int rootfd, int pid, pkgnote_module *m, bool *replaced) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->first_end);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        struct stat now, st;
        /* An upgrade renames a new file over the path: the kernel then
         * calls the mapped one deleted, though a file is at its path. */
        bool on_disk = stat_now(c, rootfd, m, &now);
        if (m->deleted && on_disk) {
                m->deleted = false;
                *replaced = true;
        }
        if (fd >= 0) {
                if (!m->deleted && on_disk && fstat(fd, &st) == 0 && (st.st_dev != now.st_dev || st.st_ino != now.st_ino))
                        *replaced = true;
                return fd;
        }
        if (m->deleted)
                return -ENOENT;
        /* Never a device or a FIFO left at the path: regular files only. */
        fd = open_now(c, rootfd, m);
        if (fd < 0)
                return fd;
        if (*replaced || fstat(fd, &st) < 0 || st.st_ino != m->ino || st.st_dev != m->dev) {
                close(fd);
                *replaced = true;
                return -ESTALE;
        }
        *replaced = false;
        return fd;
}

/* One maps line: "start-end perms offset major:minor inode   path". */
static bool parse_maps_line(char *line, uint64_t *start, uint64_t *end, uint64_t *off, unsigned *maj,
                            unsigned *min, uint64_t *ino, const char **path) {
        int pos = 0;
        char perms[8];
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n", start, end, perms, off, maj,
                   min, ino, &pos) != 7)
                return false;
        char *p = line + pos;
        while (*p == ' ')
                p++;
        *path = p;
        /* The kernel writes a newline in a name as "\012" (seq_file_path()
         * escapes "\n" only, so this is the one escape to undo). */
        char *w = p;
        for (const char *r = p; *r; r++) {
                if (r[0] == '\\' && r[1] == '0' && r[2] == '1' && r[3] == '2') {
                        *w++ = '\n';
                        r += 3;
                } else
                        *w++ = *r;
        }
        *w = 0;
        return true;
}

static int read_modules(pkgnote_core *c, int pid) {
        char *maps = read_proc(pid, "maps", NULL);
        if (!maps)
                return pn_error(-errno ? -errno : -EIO, "cannot read /proc/%d/maps: %s", pid, strerror(errno));
        char *save = NULL;
        pkgnote_module *last = NULL;
        for (char *line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                uint64_t start, end, off, ino;
                unsigned maj, min;
                const char *path;
                if (!parse_maps_line(line, &start, &end, &off, &maj, &min, &ino, &path))
                        continue;
                bool vdso = !strcmp(path, "[vdso]");
                if (last && off != 0 && !strncmp(path, last->path, strlen(last->path)))
                        last->end = end; /* later mappings of the same file */
                if ((path[0] != '/' || off != 0) && !vdso)
                        continue;
                int err;
                pkgnote_module *m = pn_core_new_module(c, path, start, end, vdso, &err);
                if (!m) {
                        free(maps);
                        return err;
                }
                last = m;
                m->found_by = "maps";
                /* Device and inode, to recognise the file if map_files is shut. */
                m->dev = makedev(maj, min);
                m->ino = ino;
        }
        free(maps);
        return 0;
}

static void read_module(pkgnote_core *c, int rootfd, int pid, pkgnote_module *m) {
        pkgnote_elf *e = NULL;
        int fd = -1, r;
        uint8_t *vdso = NULL;
        if (m->is_vdso) {
                /* The vDSO has no file: read its image from memory. */
                char path[64];
                snprintf(path, sizeof path, "/proc/%d/mem", pid);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                size_t len = m->end - m->start < 65536 ? (size_t)(m->end - m->start) : 65536;
                vdso = malloc(len);
                ssize_t n = fd >= 0 && vdso ? pread(fd, vdso, len, (off_t)m->start) : -1;
                if (fd >= 0)
                        close(fd);
                fd = -1;
                if (n <= 0) {
                        pn_module_set_reason(m, "cannot read the vDSO from memory");
                        free(vdso);
                        return;
                }
                r = pn_elf_from_prefix(vdso, (size_t)n, &e);
        } else {
                bool replaced = false;
                fd = open_mapped(c, rootfd, pid, m, &replaced);
                m->replaced = replaced;
                if (replaced)
                        read_now(c, rootfd, m);
                if (fd < 0) {
                        pn_module_set_reason(m, fd == -ESTALE ? "replaced on disk, and the mapped file cannot be opened"
                                                              : "cannot open the mapped file: %s",
                                             strerror(-fd));
                        return;
                }
                r = pkgnote_elf_open_fd(fd, &e);
        }
        pkgnote_info *info = NULL;
        if (r >= 0)
                r = pkgnote_info_read(e, &info);
        if (r >= 0) {
                const char *id = pkgnote_info_build_id(info);
                m->build_id = id ? strdup(id) : NULL;
                m->info = info;
                m->source = PKGNOTE_SOURCE_MAPPED;
                if (m->replaced)
                        pn_module_set_reason(m, "replaced on disk since it was mapped; notes are the mapped file's");
        } else if (r != -ENOEXEC)
                pn_module_set_reason(m, "unreadable: %s", pkgnote_last_error());
        pkgnote_elf_free(e);
        if (fd >= 0)
                close(fd);
        free(vdso);
}

PKGNOTE_PUBLIC int pkgnote_process_open(int pid, pkgnote_core **ret) {
        return pkgnote_process_open_with(pid, NULL, ret);
}

/* The process's root directory for CACHE: ROOT when given, else
 * /proc/PID/root (the reader's view of it into *PREFIX when not "/").
 * An fd or -1 when it cannot be opened. */
static int open_process_root(int pid, const char *root, char **prefix) {
        if (root)
                return open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char path[64], target[4096];
        snprintf(path, sizeof path, "/proc/%d/root", pid);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 1 && target[0] == '/') {
                target[n] = 0;
                *prefix = strdup(target);
        }
        return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int open_process(int pid, const pkgnote_core_options *options, pkgnote_dbcache *cache, pkgnote_core **ret) {
        pkgnote_core_options opts;
        int r = pn_options_read(&opts, sizeof opts, options, PN_OPTIONS_V0(pkgnote_core_options, no_disk), "process");
        if (r < 0)
                return r;
        if (pid <= 0)
                return pn_error(-EINVAL, "invalid PID %d", pid);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/exe", pid);
        pkgnote_elf *exe;
        r = pkgnote_elf_open(path, &exe);
        if (r < 0)
                return r == -ENOENT ? pn_error(-ESRCH, "no process %d", pid) : r;
        pkgnote_core *c = calloc(1, sizeof *c);
        if (!c) {
                pkgnote_elf_free(exe);
                return pn_error(-ENOMEM, "out of memory");
        }
        c->is64 = pkgnote_elf_class(exe) == 64;
        c->be = pkgnote_elf_big_endian(exe);
        c->machine = pkgnote_elf_machine(exe);
        pkgnote_elf_free(exe);
        c->pid = pid;
        c->have_pid = true;
        c->live = true;
        c->ppid = c->uid = c->gid = -1;
        read_status(c, pid);
        read_identity(c, pid);
        r = read_modules(c, pid);
        if (r < 0) {
                pkgnote_core_free(c);
                return r;
        }
        int rootfd = cache ? open_process_root(pid, opts.root, &c->root_prefix) : -1;
        size_t out = 0;
        for (size_t i = 0; i < c->n_modules; i++) {
                pkgnote_module *m = &c->modules[i];
                read_module(c, rootfd, pid, m);
                if (!m->info && !m->reason) { /* not ELF: a data file mapped whole */
                        free(m->path);
                        free(m->build_id);
                        continue;
                }
                c->modules[out++] = *m;
        }
        c->n_modules = out;
        if (c->n_modules > 1)
                qsort(c->modules, c->n_modules, sizeof *c->modules, pn_core_cmp_module);
        pn_core_find_main_module(c);
        if (!cache)
                pn_core_ask_database(c, &opts);
        else if (rootfd >= 0 && !opts.no_database)
                pn_core_ask_database_in(c, rootfd, cache);
        else if (!opts.no_database)
                pn_core_problem_err(c, -EACCES, "cannot open the root directory of process %d for its package database",
                                    pid);
        if (rootfd >= 0)
                close(rootfd);
        *ret = c;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_process_open_with(int pid, const pkgnote_core_options *options, pkgnote_core **ret) {
        return open_process(pid, options, NULL, ret);
}

PKGNOTE_PUBLIC int pkgnote_process_open_cached(int pid, const pkgnote_core_options *options, pkgnote_dbcache *cache,
                                               pkgnote_core **ret) {
        if (!cache)
                return pn_error(-EINVAL, "no database cache");
        return open_process(pid, options, cache, ret);
}
