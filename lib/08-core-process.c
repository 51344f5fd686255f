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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "08-core-private.h"
#include "02-elf-view.h"

/* The small /proc files (status, comm, cmdline, auxv) are read whole up
 * to this many bytes.  status's fields read here come in its first lines
 * (a long Groups line follows them), comm is 16 bytes and auxv a few
 * hundred; only cmdline can be longer (up to a quarter of the stack
 * limit), and a cut one is said.  maps has no such bound: it is read line
 * by line (pn_maps_feed()). */
#define MAX_PROC_FILE (1u << 20)

/* Reads a small /proc file whole (they have no size to stat); *CUT set
 * when it held more than MAX_PROC_FILE bytes.  NULL when it cannot be
 * read; when memory ran out, C is marked (c->oom). */
static char *read_proc(pkgnote_core *c, int pid, const char *name, size_t *len, bool *cut) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
        if (cut)
                *cut = false;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        size_t cap = 4096, n = 0;
        char *buf = malloc(cap + 1);
        if (!buf)
                c->oom = true;
        while (buf) {
                if (n == cap) {
                        char *b = cap < MAX_PROC_FILE ? realloc(buf, cap * 2 + 1) : NULL;
                        if (!b && cap < MAX_PROC_FILE) {
                                c->oom = true;
                                break;
                        }
                        if (!b) {
                                char one;
                                if (cut && cap >= MAX_PROC_FILE && read(fd, &one, 1) == 1)
                                        *cut = true;
                                break;
                        }
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
        char *s = read_proc(c, pid, "status", NULL, NULL);
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
        char *s = read_proc(c, pid, "comm", &len, NULL);
        if (s) {
                s[strcspn(s, "\n")] = 0;
                snprintf(c->comm, sizeof c->comm, "%s", s);
                free(s);
        }
        bool cut;
        s = read_proc(c, pid, "cmdline", &len, &cut);
        if (s && cut)
                pn_core_problem_err(c, -E2BIG, "the command line of process %d cut at %u bytes (the limit)",
                                    pid, MAX_PROC_FILE);
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
                if (!(c->exe = strdup(target)))
                        c->oom = true;
        }
        s = read_proc(c, pid, "auxv", &len, NULL);
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
        pkgnote_object *e;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r >= 0) {
                if ((r = pkgnote_info_read(e, &m->now_info)) < 0)
                        m->now_info = NULL;
                pkgnote_object_free(e);
        }
        if (r == -ENOMEM)
                m->oom = true;
        close(fd);
}

/* The kernel names an unlinked file "PATH (deleted)", but a file may be
 * named so: when the whole name is the mapped inode (FD's, else the one
 * maps gave), it is the file's name and the file is not deleted. */
static void deleted_or_named_so(const pkgnote_core *c, int rootfd, int fd, pkgnote_module *m) {
        char *whole = NULL;
        if (asprintf(&whole, "%s%s", m->path, PN_DELETED_SUFFIX) < 0) {
                m->oom = true;
                return;
        }
        char *cut = m->path;
        m->path = whole;
        struct stat now, st;
        bool same = stat_now(c, rootfd, m, &now) && S_ISREG(now.st_mode) &&
                    (fd >= 0 ? fstat(fd, &st) == 0 && st.st_dev == now.st_dev && st.st_ino == now.st_ino
                             : now.st_ino == m->ino && now.st_dev == m->dev);
        if (same) {
                m->deleted = false;
                free(cut);
        } else {
                m->path = cut;
                free(whole);
        }
}

/* The file behind the mapping: map_files when allowed, else the path if
 * it is still the same inode. */
static int open_mapped(const pkgnote_core *c, int rootfd, int pid, pkgnote_module *m, bool *replaced) {
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->first_end);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (m->deleted)
                deleted_or_named_so(c, rootfd, fd, m);
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

/* A number in BASE (16 or 10) at *P, up to a byte not of it; false when
 * there is no digit or it overflows 64 bits. */
static bool maps_number(const char **p, unsigned base, uint64_t *ret) {
        uint64_t v = 0;
        const char *s = *p;
        for (;; s++) {
                unsigned d;
                if (*s >= '0' && *s <= '9')
                        d = (unsigned)(*s - '0');
                else if (base == 16 && *s >= 'a' && *s <= 'f')
                        d = (unsigned)(*s - 'a' + 10);
                else if (base == 16 && *s >= 'A' && *s <= 'F')
                        d = (unsigned)(*s - 'A' + 10);
                else
                        break;
                if (v > (UINT64_MAX - d) / base)
                        return false;
                v = v * base + d;
        }
        if (s == *p)
                return false;
        *p = s;
        *ret = v;
        return true;
}

/* One maps line: "start-end perms offset major:minor inode   path",
 * NUL-terminated (fs/proc/task_mmu.c, show_map_vma()).  By hand, not
 * sscanf(): a process may have a million lines. */
static bool parse_maps_line(char *line, struct pn_maps_entry *e) {
        const char *q = line;
        uint64_t maj, min;
        if (!maps_number(&q, 16, &e->start) || *q++ != '-' || !maps_number(&q, 16, &e->end) || *q++ != ' ')
                return false;
        size_t perms = strcspn(q, " ");
        if (perms == 0 || perms > 7 || q[perms] != ' ')
                return false;
        q += perms + 1;
        if (!maps_number(&q, 16, &e->offset) || *q++ != ' ' || !maps_number(&q, 16, &maj) || *q++ != ':' ||
            !maps_number(&q, 16, &min) || *q++ != ' ' || !maps_number(&q, 10, &e->inode) || maj > UINT_MAX ||
            min > UINT_MAX || (*q != ' ' && *q != 0))
                return false;
        e->major = (unsigned)maj;
        e->minor = (unsigned)min;
        size_t pos = (size_t)(q - line);
        char *p = line + pos;
        while (*p == ' ')
                p++;
        e->path = p;
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

int pn_maps_reader_init(struct pn_maps_reader *r, pn_maps_fn fn, void *u) {
        *r = (struct pn_maps_reader){.fn = fn, .u = u};
        r->line = malloc(PKGNOTE_MAX_MAPS_LINE + 1);
        return r->line ? 0 : pn_oom();
}

void pn_maps_reader_free(struct pn_maps_reader *r) {
        free(r->line);
        r->line = NULL;
}

/* The line gathered so far, complete: parsed and handed to FN. */
static int end_line(struct pn_maps_reader *r) {
        struct pn_maps_stats *st = &r->stats;
        st->lines++;
        if (r->skipping) {
                r->skipping = false;
                st->long_lines++;
                return 0;
        }
        r->line[r->n] = 0;
        r->n = 0;
        struct pn_maps_entry e;
        if (!parse_maps_line(r->line, &e)) {
                st->malformed++;
                return 0;
        }
        return r->fn(&e, r->u);
}

int pn_maps_feed(struct pn_maps_reader *r, const char *data, size_t len) {
        while (len > 0 && !r->stopped) {
                if (r->stats.lines == PKGNOTE_MAX_MAPPINGS) {
                        r->stats.cut = true;
                        r->stopped = true;
                        return r->result = 1;
                }
                const char *nl = memchr(data, '\n', len);
                size_t take = nl ? (size_t)(nl - data) : len;
                if (!r->skipping) {
                        if (take > PKGNOTE_MAX_MAPS_LINE - r->n) {
                                r->skipping = true; /* over the limit: passed over to its end */
                                r->n = 0;
                        } else {
                                memcpy(r->line + r->n, data, take);
                                r->n += take;
                        }
                }
                if (!nl)
                        break;
                data += take + 1;
                len -= take + 1;
                int x = end_line(r);
                if (x != 0) {
                        r->stopped = true;
                        return r->result = x;
                }
        }
        return r->stopped ? r->result : 0;
}

int pn_maps_finish(struct pn_maps_reader *r) {
        if (r->stopped)
                return r->result;
        if (r->n == 0 && !r->skipping)
                return 0;
        if (r->stats.lines == PKGNOTE_MAX_MAPPINGS) {
                r->stats.cut = true;
                return r->result = 1;
        }
        /* The last line without its newline: the kernel ends every line
         * with one, so it was cut short (the process exited meanwhile). */
        r->stats.unterminated = true;
        int x = end_line(r);
        r->stopped = true;
        return r->result = x;
}

int pn_maps_read_fd(struct pn_maps_reader *r, int fd) {
        char buf[16384];
        for (;;) {
                ssize_t n = read(fd, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return pn_maps_finish(r);
                int x = pn_maps_feed(r, buf, (size_t)n);
                if (x != 0)
                        return x;
        }
}

static void read_module(pkgnote_core *c, int rootfd, int pid, pkgnote_module *m);

/* The files of the modules kept, by device and inode: open addressing,
 * never more than half full (PKGNOTE_MAX_MODULES entries at most). */
#define FILES_CAP (2u * PKGNOTE_MAX_MODULES)

struct file_count {
        uint64_t dev, ino; /* ino 0: a free slot */
        uint32_t n;
        bool said;
};

struct maps_walk {
        pkgnote_core *c;
        int rootfd, pid;
        size_t last; /* the module of the previous file mapping, or SIZE_MAX */
        struct file_count *files; /* FILES_CAP slots, or NULL until the first module */
};

/* The slot of the file DEV:INO (INO not 0): its own, else the free one
 * where it goes. */
static struct file_count *file_slot(struct file_count *files, uint64_t dev, uint64_t ino) {
        uint64_t h = (ino ^ (dev * 0x9e3779b97f4a7c15u)) * 0xbf58476d1ce4e5b9u;
        for (size_t i = (size_t)(h >> 32) % FILES_CAP;; i = (i + 1) % FILES_CAP)
                if (files[i].ino == 0 || (files[i].ino == ino && files[i].dev == dev))
                        return &files[i];
}

/* A module's storage, where it turned out to be no ELF object. */
static void drop_module(pkgnote_module *m) {
        free(m->path);
        free(m->build_id);
        free(m->reason);
        pkgnote_info_free(m->info);
        pkgnote_info_free(m->now_info);
}

/* One mapping of /proc/PID/maps: a module read at once, where it starts
 * a file at offset 0, so that the memory held follows the ELF objects
 * mapped, never the number of mappings.  1 to stop (the module limit). */
static int on_mapping(const struct pn_maps_entry *e, void *u) {
        struct maps_walk *w = u;
        pkgnote_core *c = w->c;
        bool vdso = !strcmp(e->path, "[vdso]");
        if (w->last != SIZE_MAX) {
                pkgnote_module *last = &c->modules[w->last];
                /* Later mappings of the same file (its inode, where maps gives
                 * one); an offset-0 one right after it too: without separate
                 * code the loader maps the data segment from page 0 again
                 * (-z noseparate-code), as a core's reader joins them. */
                bool same = e->inode ? e->inode == last->ino && makedev(e->major, e->minor) == last->dev
                                     : !strncmp(e->path, last->path, strlen(last->path));
                if (same && (e->offset != 0 || (e->inode && e->start == last->end))) {
                        last->end = e->end;
                        if (e->offset == 0)
                                return 0;
                }
        }
        if ((e->path[0] != '/' || e->offset != 0) && !vdso)
                return 0;
        uint64_t dev = makedev(e->major, e->minor);
        struct file_count *f = NULL;
        if (!vdso && e->inode != 0) {
                if (!w->files && !(w->files = calloc(FILES_CAP, sizeof *w->files)))
                        return pn_oom();
                f = file_slot(w->files, dev, e->inode);
                if (f->n >= PN_MODULES_PER_FILE) {
                        if (!f->said)
                                pn_core_problem_err(c, -E2BIG, "%s mapped at more than %u places: the further ones are left out",
                                                    e->path, PN_MODULES_PER_FILE);
                        f->said = true;
                        w->last = SIZE_MAX;
                        return 0;
                }
        }
        int err;
        pkgnote_module *m = pn_core_new_module(c, e->path, e->start, e->end, vdso, &err);
        if (!m)
                return err < 0 ? err : 1; /* over PKGNOTE_MAX_MODULES: said, the rest ignored */
        m->found_by = "maps";
        /* Device and inode, to recognise the file if map_files is shut. */
        m->dev = dev;
        m->ino = e->inode;
        read_module(c, w->rootfd, w->pid, m);
        if (m->oom)
                c->oom = true; /* kept when the module is dropped below */
        if (!m->info && !m->reason) { /* not ELF: a data file mapped whole */
                drop_module(m);
                c->n_modules--;
                w->last = SIZE_MAX;
                return 0;
        }
        if (f) {
                f->dev = dev;
                f->ino = e->inode;
                f->n++;
        }
        w->last = c->n_modules - 1;
        return 0;
}

/* The modules of /proc/PID/maps, read whole, line by line; whatever is
 * passed over is said as a problem. */
static int read_modules(pkgnote_core *c, int rootfd, int pid) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/maps", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return pn_error(-errno, "cannot read /proc/%d/maps: %s", pid, strerror(errno));
        struct maps_walk w = {.c = c, .rootfd = rootfd, .pid = pid, .last = SIZE_MAX};
        struct pn_maps_reader r;
        int x = pn_maps_reader_init(&r, on_mapping, &w);
        if (x == 0)
                x = pn_maps_read_fd(&r, fd);
        close(fd);
        free(w.files);
        const struct pn_maps_stats *st = &r.stats;
        pn_maps_reader_free(&r);
        if (x < 0 && st->lines == 0 && x != -ENOMEM)
                return pn_error(x, "cannot read /proc/%d/maps: %s", pid, strerror(-x));
        if (x == -ENOMEM)
                return x;
        if (x < 0)
                pn_core_problem_err(c, x, "cannot read /proc/%d/maps past its line %zu: %s", pid,
                                    st->lines, strerror(-x));
        if (st->cut)
                pn_core_problem_err(c, -E2BIG, "/proc/%d/maps cut after %u mappings (the limit)", pid,
                                    PKGNOTE_MAX_MAPPINGS);
        if (st->long_lines)
                pn_core_problem_err(c, -E2BIG, "%zu lines of /proc/%d/maps longer than %u bytes",
                                    st->long_lines, pid, PKGNOTE_MAX_MAPS_LINE);
        if (st->malformed)
                pn_core_problem(c, "%zu malformed lines in /proc/%d/maps", st->malformed, pid);
        return 0;
}

static void read_module(pkgnote_core *c, int rootfd, int pid, pkgnote_module *m) {
        pkgnote_object *e = NULL;
        int fd = -1, r;
        uint8_t *vdso = NULL;
        if (m->is_vdso) {
                /* The vDSO has no file: read its image from memory. */
                char path[64];
                snprintf(path, sizeof path, "/proc/%d/mem", pid);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                size_t len = m->end - m->start < 65536 ? (size_t)(m->end - m->start) : 65536;
                vdso = malloc(len);
                if (!vdso)
                        m->oom = true;
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
                r = pkgnote_object_open_fd(fd, &e);
        }
        pkgnote_info *info = NULL;
        if (r >= 0)
                r = pkgnote_info_read(e, &info);
        if (r >= 0) {
                const char *id = pkgnote_info_build_id(info);
                m->build_id = id ? strdup(id) : NULL;
                if (id && !m->build_id)
                        m->oom = true;
                m->info = info;
                m->source = PKGNOTE_SOURCE_MAPPED;
                if (m->replaced)
                        pn_module_set_reason(m, "replaced on disk since it was mapped; notes are the mapped file's");
        } else if (r == -ENOMEM)
                m->oom = true;
        else if (r != -ENOEXEC)
                pn_module_set_reason(m, "unreadable: %s", pkgnote_last_error());
        pkgnote_object_free(e);
        if (fd >= 0)
                close(fd);
        free(vdso);
}

PKGNOTE_PUBLIC int pkgnote_process_open(int pid, pkgnote_core **ret) {
        return pkgnote_process_open_with(pid, NULL, ret);
}

/* The process's own root, /proc/PID/root (the reader's view of it into
 * *PREFIX when not "/"): where its modules' paths are looked up now, to
 * tell a replaced one, whether the process runs on the host, chrooted, or
 * in another mount namespace (a container), whose files at the same paths
 * are not the host's.  An fd, or -errno. */
static int open_process_root(int pid, char **prefix) {
        char path[64], target[4096];
        snprintf(path, sizeof path, "/proc/%d/root", pid);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 1 && target[0] == '/') {
                target[n] = 0;
                if (!(*prefix = strdup(target)))
                        return -ENOMEM;
        }
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* Whether the process's root ROOTFD is the caller's own "/" in the
 * caller's own mount namespace: then a path names the same file for both,
 * and is looked up as it is, without a walk below ROOTFD. */
static bool same_root_as_ours(int pid, int rootfd) {
        struct stat a, b, na, nb;
        char ns[64];
        snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", pid);
        return fstat(rootfd, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
               stat(ns, &na) == 0 && stat("/proc/self/ns/mnt", &nb) == 0 && na.st_dev == nb.st_dev &&
               na.st_ino == nb.st_ino;
}

/* The package database: of ROOT when the caller names one (the module
 * paths looked up there as maps gives them), else of the process's own
 * root ROOTFD; from CACHE when there is one. */
static void ask_database(pkgnote_core *c, const pkgnote_core_options *o, int rootfd, pkgnote_dbcache *cache) {
        if (o->no_database)
                return;
        if (o->root) {
                free(c->root_prefix);
                c->root_prefix = NULL;
        }
        if (!cache) {
                pn_core_ask_database(c, o);
                return;
        }
        int fd = o->root ? open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : rootfd;
        if (fd >= 0)
                pn_core_ask_database_in(c, fd, cache);
        else
                pn_core_problem_err(c, -EACCES, "cannot open the root directory of process %d for its package database",
                                    c->pid);
        if (o->root && fd >= 0)
                close(fd);
}

static int open_process(int pid, const pkgnote_core_options *options, pkgnote_dbcache *cache, pkgnote_core **ret) {
        pkgnote_core_options opts;
        int r = pn_options_read(&opts, sizeof opts, options, PN_SIZE_1_0(pkgnote_core_options), "process");
        if (r < 0)
                return r;
        if (pid <= 0)
                return pn_error(-EINVAL, "invalid PID %d", pid);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/exe", pid);
        pkgnote_object *exe;
        r = pkgnote_object_open(path, &exe);
        if (r < 0)
                return r == -ENOENT ? pn_error(-ESRCH, "no process %d", pid) : r;
        pkgnote_core *c = calloc(1, sizeof *c);
        if (!c) {
                pkgnote_object_free(exe);
                return pn_oom();
        }
        c->is64 = pkgnote_object_class(exe) == 64;
        c->be = pkgnote_object_big_endian(exe);
        c->machine = pkgnote_object_machine(exe);
        pkgnote_object_free(exe);
        c->pid = pid;
        c->have_pid = true;
        c->live = true;
        c->ppid = c->uid = c->gid = -1;
        read_status(c, pid);
        read_identity(c, pid);
        /* One path for pkgnote_process_open*() and so pid, ps and the
         * binding: files now at the modules' paths are the process's root's. */
        int rootfd = open_process_root(pid, &c->root_prefix);
        if (rootfd == -ENOMEM)
                c->oom = true;
        else if (rootfd < 0 && rootfd != -ENOENT && rootfd != -ESRCH)
                pn_core_problem_err(c, rootfd,
                                    "cannot open the root directory of process %d: %s; its modules are compared with the files at their paths here",
                                    pid, strerror(-rootfd));
        r = read_modules(c, rootfd >= 0 && same_root_as_ours(pid, rootfd) ? -1 : rootfd, pid);
        if (r < 0) {
                if (rootfd >= 0)
                        close(rootfd);
                pkgnote_core_free(c);
                return r;
        }
        if (c->n_modules > 1)
                qsort(c->modules, c->n_modules, sizeof *c->modules, pn_core_cmp_module);
        pn_core_find_main_module(c);
        ask_database(c, &opts, rootfd, cache);
        if (rootfd >= 0)
                close(rootfd);
        if (pn_core_ran_out(c)) {
                pkgnote_core_free(c);
                return pn_oom();
        }
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
