/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Core files: process facts from the core's own notes, and every module
 * (each file mapped at offset 0, plus the vDSO) with its build-id and
 * package notes read from the page the kernel dumped for it.
 *
 * The kernel (fs/binfmt_elf.c) writes the ELF header, the program headers,
 * one PT_NOTE holding CORE notes (NT_PRSTATUS per thread, NT_PRPSINFO,
 * NT_SIGINFO, NT_AUXV, NT_FILE), then each mapping as a PT_LOAD whose
 * p_filesz is what was dumped: for file mappings at offset 0 only the
 * first page, and only when that page starts with an ELF header
 * (coredump_filter bit 4).  So a module's header, program headers and
 * linked-in notes are in the core, and nothing else of the file is.
 *
 * Only the ranges needed are read: the header, program headers and note
 * segment, then one page per module, sorted by offset.  That order lets
 * a compressed core be read as a stream (08-core-source.c).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "08-core-private.h"
#include "02-elf-const.h"
#include "02-elf-gobuild.h"
#include "02-elf-view.h"
#include "03-model-embedded.h"
#include "03-model-info.h"
#include "04-pkgdb-private.h"

#define VDSO_BYTES 8192u
#define EXECFN_BYTES 4096u
#define MAX_PAGE 65536u /* largest page size of any Linux port */

/* NT_FILE: count, page size, count x (start, end, offset in pages), then
 * count NUL-terminated paths (fs/binfmt_elf.c fill_files_note()). */
static int parse_file_note(pkgnote_core *c, const pkgnote_note *n) {
        size_t w = c->is64 ? 8 : 4;
        if (n->descsz < 2 * w)
                return pn_error(-EBADMSG, "NT_FILE of %u bytes is too short", n->descsz);
        uint64_t count = pn_core_word(c, n->desc), page = pn_core_word(c, n->desc + w);
        if (count > PKGNOTE_MAX_MAPPINGS)
                return pn_error(-E2BIG, "NT_FILE lists %llu mappings, more than the limit of %u",
                                (unsigned long long)count, PKGNOTE_MAX_MAPPINGS);
        if (count > (n->descsz - 2 * w) / (3 * w))
                return pn_error(-EBADMSG, "NT_FILE lists %llu mappings but holds room for fewer",
                                (unsigned long long)count);
        if (page == 0 || page > MAX_PAGE || (page & (page - 1)))
                return pn_error(-EBADMSG, "NT_FILE page size %llu is not a power of two up to 64 KiB",
                                (unsigned long long)page);
        c->file_note = malloc(n->descsz + 1);
        c->maps = calloc(count ? count : 1, sizeof *c->maps);
        if (!c->file_note || !c->maps)
                return pn_oom();
        memcpy(c->file_note, n->desc, n->descsz);
        c->file_note[n->descsz] = 0;
        const char *names = c->file_note + 2 * w + count * 3 * w;
        const char *end = c->file_note + n->descsz;
        for (uint64_t i = 0; i < count; i++) {
                const uint8_t *e = (const uint8_t *)c->file_note + 2 * w + i * 3 * w;
                struct mapping *m = &c->maps[i];
                m->start = pn_core_word(c, e);
                m->end = pn_core_word(c, e + w);
                uint64_t pgoff = pn_core_word(c, e + 2 * w);
                m->pgoff = pgoff > UINT64_MAX / page ? UINT64_MAX : pgoff * page;
                if (names >= end)
                        return pn_error(-EBADMSG, "NT_FILE has fewer paths than mappings");
                const char *nul = memchr(names, 0, (size_t)(end - names));
                if (!nul)
                        return pn_error(-EBADMSG, "NT_FILE path %llu is not NUL-terminated", (unsigned long long)i);
                m->path = names;
                names = nul + 1;
                if (m->end < m->start)
                        return pn_error(-EBADMSG, "NT_FILE mapping %llu ends before it starts", (unsigned long long)i);
        }
        c->n_maps = count;
        c->page = page;
        return 0;
}

/* A module candidate: its start address and its NT_FILE index, sorted by
 * both (the key travels with the entry, so sorting needs no shared state
 * and stays thread-safe). */
struct cand {
        uint64_t start;
        size_t index;
        const char *path; /* its mapping's */
        bool skip;        /* a start already taken, or a file past PN_MODULES_PER_FILE places */
};

/* By the file's name, then start. */
static int cmp_cand_path(const void *a, const void *b) {
        const struct cand *x = a, *y = b;
        int d = strcmp(x->path, y->path);
        return d ? d : x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_cand(const void *a, const void *b) {
        const struct cand *x = a, *y = b;
        if (x->start != y->start)
                return x->start < y->start ? -1 : 1;
        return (x->index > y->index) - (x->index < y->index);
}

static size_t want_range(pkgnote_core *c, uint64_t addr, uint64_t max) {
        uint64_t off, avail;
        if (!pn_core_dumped_at(c, addr, &off, &avail))
                return SIZE_MAX;
        if (PN_GROW(c->ranges, c->cap_ranges, c->n_ranges + 1) < 0) {
                c->oom = true;
                return SIZE_MAX;
        }
        c->ranges[c->n_ranges] = (struct range){.off = off, .len = avail < max ? avail : max};
        return c->n_ranges++;
}

static int cmp_range_ptr(const void *a, const void *b) {
        const struct range *x = *(struct range *const *)a, *y = *(struct range *const *)b;
        return x->off < y->off ? -1 : x->off > y->off;
}

/* Reads every wanted range in file order: a stream can only go forward. */
static int fetch_ranges(pkgnote_core *c) {
        if (c->n_ranges == 0)
                return 0;
        struct range **order = malloc(c->n_ranges * sizeof *order);
        if (!order)
                return pn_oom();
        for (size_t i = 0; i < c->n_ranges; i++)
                order[i] = &c->ranges[i];
        qsort(order, c->n_ranges, sizeof *order, cmp_range_ptr);
        for (size_t i = 0; i < c->n_ranges; i++) {
                struct range *r = order[i];
                int err;
                if (!c->src) {
                        r->data = pn_elf_bytes(c->view, r->off, r->len, &err);
                        if (!r->data && err == -ENOMEM) {
                                free(order);
                                return err;
                        }
                        if (!r->data)
                                pn_core_problem(c, "dumped bytes at offset 0x%llx: %s", (unsigned long long)r->off,
                                             pkgnote_last_error());
                        continue;
                }
                /* Overlapping ranges (hostile PT_LOADs) are served from the
                 * earlier copy instead of rewinding the stream. */
                struct range *prev = i ? order[i - 1] : NULL;
                if (prev && prev->data && r->off >= prev->off && r->off + r->len <= prev->off + prev->len) {
                        r->data = prev->data + (r->off - prev->off);
                        continue;
                }
                r->owned = malloc(r->len ? r->len : 1);
                if (!r->owned) {
                        free(order);
                        return pn_oom();
                }
                uint64_t got = 0;
                int k = pn_core_source_read(c->src, r->off, r->owned, r->len, &got);
                if (k == -ENOMEM) {
                        free(order);
                        return k;
                }
                if (k < 0 || got < r->len) {
                        pn_core_problem(c, "dumped bytes at offset 0x%llx: %s", (unsigned long long)r->off,
                                     k < 0 ? pkgnote_last_error() : "core ends early");
                        free(r->owned);
                        r->owned = NULL;
                        continue;
                }
                r->data = r->owned;
        }
        free(order);
        return 0;
}


pkgnote_module *pn_core_new_module(pkgnote_core *c, const char *path, uint64_t start, uint64_t end, bool vdso,
                                   int *err) {
        *err = 0;
        if (c->n_modules >= PKGNOTE_MAX_MODULES) {
                pn_core_problem_err(c, -E2BIG, "more than %u modules, ignoring the rest", PKGNOTE_MAX_MODULES);
                return NULL;
        }
        if (PN_GROW(c->modules, c->cap_modules, c->n_modules + 1) < 0) {
                *err = pn_oom();
                return NULL;
        }
        pkgnote_module *m = c->modules + c->n_modules;
        *m = (pkgnote_module){.start = start, .end = end, .first_end = end, .is_vdso = vdso, .range = SIZE_MAX};
        size_t l = strlen(path), sl = sizeof PN_DELETED_SUFFIX - 1;
        if (l > sl && !strcmp(path + l - sl, PN_DELETED_SUFFIX)) {
                m->deleted = true;
                l -= sl;
        }
        m->path = strndup(path, l);
        if (!m->path) {
                *err = pn_oom();
                return NULL;
        }
        c->n_modules++;
        return m;
}

/* Adds a module for the NT_FILE mappings FIRST..LAST-1 (one file), or the
 * vDSO when FIRST is SIZE_MAX. */
static int add_module(pkgnote_core *c, const char *path, uint64_t start, uint64_t end, size_t first, size_t last,
                      const char *how) {
        int err;
        bool vdso = first == SIZE_MAX && !strcmp(how, "auxv");
        pkgnote_module *m = pn_core_new_module(c, path, start, end, vdso, &err);
        if (!m)
                return err;
        m->found_by = how;
        /* The kernel dumps one page of a file mapping: read no more. */
        m->range = want_range(c, start, vdso ? VDSO_BYTES : c->page);
        m->not_dumped = m->range == SIZE_MAX && pn_core_mapped_at(c, start);
        /* Its first mapping not dumped, a later one of the same file at
         * offset 0 may have been (the data segment of a -z noseparate-code
         * layout, 64 KiB-page systems): the same header page. */
        for (size_t k = first == SIZE_MAX ? last : first + 1; m->range == SIZE_MAX && k < last; k++)
                if (c->maps[k].pgoff == 0 && (m->range = want_range(c, c->maps[k].start, c->page)) != SIZE_MAX)
                        m->not_dumped = false;
        return 0;
}

void pn_module_set_reason(pkgnote_module *m, const char *fmt, ...) {
        free(m->reason);
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&m->reason, fmt, ap) < 0) {
                m->reason = NULL;
                m->oom = true;
        }
        va_end(ap);
}

/* Go's build information of module M, a Go program whose header page R
 * was dumped (the view E), from the dumped pages of its first writable
 * segments: the kernel dumps a private file mapping once it was written
 * to (coredump_filter bit 0), which a Go program's data segment always
 * is.  A view of the object is made of the header page and, at their file
 * offsets, those pages (as much as the reader searches and reads:
 * PN_GO_SEARCH + PN_GO_MAX_BLOB of each); whatever is not there leaves
 * the module without a list and says so in its reason.  Cores read as a
 * stream (from a pipe) cannot go back for the pages: none. */
#define GO_DUMP_MAX ((uint64_t)PN_GO_SEARCH * PN_GO_MAX_SEGMENTS + PN_GO_MAX_BLOB)
static void go_from_dump(pkgnote_core *c, pkgnote_module *m, pkgnote_object *e, const struct range *r,
                         pkgnote_info *info) {
        const pkgnote_phdr *first = NULL;
        for (uint32_t i = 0; e->phdrs && i < e->phnum && !first; i++)
                if (e->phdrs[i].type == PT_LOAD)
                        first = &e->phdrs[i];
        if ((c->src || !c->view) && !m->reason)
                pn_module_set_reason(m, "a Go program whose build information is not read from a core read as a stream (its data pages lie behind)");
        if (c->src || !c->view || !first)
                return;
        /* where the object's address 0 is in the process (0 for a
         * program linked at a fixed address) */
        uint64_t bias = m->start - (first->vaddr - first->offset);
        struct pn_span spans[1 + PN_GO_MAX_SEGMENTS];
        size_t n = 0, len = 0;
        uint64_t end = r->len;
        uint8_t *buf = malloc(r->len ? r->len : 1);
        if (!buf)
                return;
        memcpy(buf, r->data, r->len);
        spans[n++] = (struct pn_span){0, r->len, 0};
        len = r->len;
        unsigned tried = 0;
        for (uint32_t i = 0; i < e->phnum && tried < PN_GO_MAX_SEGMENTS; i++) {
                const pkgnote_phdr *ph = &e->phdrs[i];
                if (ph->type != PT_LOAD || (ph->flags & (PF_W | PF_X)) != PF_W || !ph->filesz)
                        continue;
                tried++;
                uint64_t off, avail;
                if (ph->offset < end || !pn_core_dumped_at(c, bias + ph->vaddr, &off, &avail))
                        continue;
                uint64_t want = ph->filesz < avail ? ph->filesz : avail;
                if (want > PN_GO_SEARCH + PN_GO_MAX_BLOB)
                        want = PN_GO_SEARCH + PN_GO_MAX_BLOB;
                /* all of them together no more than the reader can use:
                 * the windows it searches and one blob */
                if (len >= GO_DUMP_MAX)
                        break;
                if (want > GO_DUMP_MAX - len)
                        want = GO_DUMP_MAX - len;
                int err = 0;
                const uint8_t *p = pn_elf_bytes(c->view, off, want, &err);
                uint8_t *grown = p ? realloc(buf, len + (size_t)want) : NULL;
                if (!grown)
                        continue;
                buf = grown;
                memcpy(buf + len, p, (size_t)want);
                spans[n++] = (struct pn_span){ph->offset, want, len};
                len += (size_t)want;
                end = ph->offset + want;
        }
        pkgnote_object *v = NULL;
        pkgnote_embedded *emb = NULL;
        int k = n > 1 ? pn_elf_from_spans(spans, n, buf, end, true, &v) : -ENODATA;
        if (k >= 0)
                k = pn_embedded_read_go(v, &emb);
        if (k > 0)
                pn_info_set_embedded(info, emb);
        else if (k == -ENOMEM)
                pn_error_clear();
        else if (k < 0 && k != -ENODATA)
                pn_info_add_problem(info, k, NULL, "%s", pkgnote_last_error());
        else if (!m->reason)
                pn_module_set_reason(m, "a Go program whose build information is not in the dumped pages");
        pkgnote_object_free(v);
        free(buf);
}

/* Reads the module's header, program headers and notes from its dumped
 * page.  Returns true when they are complete there (all PT_NOTEs inside
 * the page), so disk need not be consulted. */
static bool module_from_core(pkgnote_core *c, pkgnote_module *m, bool *is_elf) {
        *is_elf = false;
        if (m->range == SIZE_MAX || !c->ranges[m->range].data)
                return false;
        const struct range *r = &c->ranges[m->range];
        if (r->len < SELFMAG || memcmp(r->data, ELFMAG, SELFMAG) != 0)
                return false;
        *is_elf = true;
        pkgnote_object *e;
        int k = pn_elf_from_prefix(r->data, r->len, &e);
        if (k == -ENOMEM)
                m->oom = true;
        if (k < 0) {
                pn_module_set_reason(m, "dumped header unreadable: %s", pkgnote_last_error());
                return false;
        }
        pkgnote_info *info;
        if ((k = pkgnote_info_read(e, &info)) < 0) {
                if (k == -ENOMEM)
                        m->oom = true;
                pkgnote_object_free(e);
                return false;
        }
        if (!pkgnote_info_embedded(info) && pn_embedded_is_go(e) > 0)
                go_from_dump(c, m, e, r, info);
        const char *id = pkgnote_info_build_id(info);
        if (id && !(m->build_id = strdup(id)))
                m->oom = true;
        bool complete = true;
        for (size_t i = 0; i < pkgnote_info_problem_count(info); i++)
                if (pkgnote_info_problem(info, i)->error == -ENODATA)
                        complete = false;
        m->info = info;
        m->source = PKGNOTE_SOURCE_CORE;
        pkgnote_object_free(e); /* info keeps copies of all it needs */
        return complete || pkgnote_info_package_count(info) > 0;
}

/* A module the core calls deleted may be a file named "PATH (deleted)":
 * the kernel's words for an unlinked file are a name a file can have.
 * With nothing at PATH and a file of that name whose build-id is the
 * core's (NT_FILE has no inode to go by), the module is that file. */
static void named_deleted(pkgnote_module *m, int rootfd) {
        if (!m->deleted || !m->build_id)
                return;
        int fd = pn_open_in_root(rootfd, m->path);
        if (fd >= 0) {
                close(fd);
                return;
        }
        char *whole = NULL;
        if (asprintf(&whole, "%s%s", m->path, PN_DELETED_SUFFIX) < 0) {
                m->oom = true;
                return;
        }
        fd = pn_open_in_root(rootfd, whole);
        pkgnote_object *e = NULL;
        pkgnote_info *info = NULL;
        int r = fd < 0 ? fd : pkgnote_object_open_fd(fd, &e);
        if (r >= 0)
                r = pkgnote_info_read(e, &info);
        if (r == -ENOMEM)
                m->oom = true;
        const char *id = r >= 0 ? pkgnote_info_build_id(info) : NULL;
        if (id && !strcmp(id, m->build_id)) {
                free(m->path);
                m->path = whole;
                m->deleted = false;
                whole = NULL;
        }
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        if (fd >= 0)
                close(fd);
        free(whole);
}

static void module_from_disk(pkgnote_core *c, pkgnote_module *m, int rootfd, bool *is_elf) {
        *is_elf = false;
        /* A file marked deleted may have been replaced by an upgrade: what
         * is at the path now is read, and used only if its build-id matches. */
        int fd = pn_open_in_root(rootfd, m->path);
        if (fd < 0) {
                if (m->deleted)
                        pn_module_set_reason(m, "file deleted since it was mapped");
                else
                        pn_module_set_reason(m, "not on disk: %s", strerror(-fd));
                return;
        }
        pkgnote_object *e;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r == -ENOMEM)
                m->oom = true;
        if (r < 0) {
                close(fd);
                if (r != -ENOEXEC)
                        pn_module_set_reason(m, "disk copy unreadable: %s", pkgnote_last_error());
                return;
        }
        *is_elf = true;
        pkgnote_info *info;
        if ((r = pkgnote_info_read(e, &info)) < 0) {
                if (r == -ENOMEM)
                        m->oom = true;
                pkgnote_object_free(e);
                close(fd);
                pn_module_set_reason(m, "disk copy unreadable: %s", pkgnote_last_error());
                return;
        }
        const char *id = pkgnote_info_build_id(info);
        free(m->disk_build_id);
        m->disk_build_id = id ? strdup(id) : NULL;
        if (id && !m->disk_build_id)
                m->oom = true;
        if (!m->build_id) {
                pn_module_set_reason(m, "not in the core; the disk copy cannot be verified without a build-id");
                pkgnote_info_free(info);
        } else if (!id || strcmp(id, m->build_id) != 0) {
                m->source = PKGNOTE_SOURCE_DISK_MISMATCH;
                pn_module_set_reason(m, "disk copy has build-id %s, the core %s: changed since the crash",
                                  id ? id : "(none)", m->build_id);
                pkgnote_info_free(info);
        } else {
                pkgnote_info_free(m->info);
                m->info = info;
                m->source = PKGNOTE_SOURCE_DISK;
        }
        pkgnote_object_free(e);
        close(fd);
}

static int add_found_module(pkgnote_core *c, const char *path, uint64_t start, uint64_t end, const char *how) {
        return add_module(c, path, start, end, SIZE_MAX, SIZE_MAX, how);
}

static void resolve_modules(pkgnote_core *c, const pkgnote_core_options *o) {
        int rootfd = -1;
        bool disk = !(o && o->no_disk);
        if (disk && o && o->root) {
                rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (rootfd < 0) {
                        pn_core_problem_err(c, -errno, "cannot open root directory '%s': %s", o->root, strerror(errno));
                        disk = false;
                }
        }
        /* The kernel dumps the first page of every readable offset-0 file
         * mapping that starts with an ELF header (coredump_filter bit 4).
         * When it did so for some module, a mapping it left undumped is
         * not ELF. */
        bool pages_dumped = false;
        for (size_t i = 0; i < c->n_modules; i++)
                pages_dumped |= !c->modules[i].is_vdso && c->modules[i].range != SIZE_MAX;
        size_t out = 0;
        for (size_t i = 0; i < c->n_modules; i++) {
                pkgnote_module *m = &c->modules[i];
                bool is_elf = false, disk_elf = false;
                bool complete = module_from_core(c, m, &is_elf);
                if (disk && !m->is_vdso)
                        named_deleted(m, rootfd);
                if (!complete && disk && !m->is_vdso)
                        module_from_disk(c, m, rootfd, &disk_elf);
                bool maybe_elf = m->range == SIZE_MAX && !disk && !m->is_vdso && !(m->not_dumped && pages_dumped);
                if (!is_elf && !disk_elf && !maybe_elf) {
                        /* Not an ELF object (a locale archive, a font): not a module. */
                        free(m->path);
                        free(m->build_id);
                        free(m->disk_build_id);
                        free(m->reason);
                        pkgnote_info_free(m->info);
                        continue;
                }
                if (!is_elf && !disk_elf) {
                        /* No page dumped and disk reading off: it may be ELF. */
                        pn_module_set_reason(m, "not in the core, and disk reading is off");
                }
                if (m->source == PKGNOTE_SOURCE_CORE && !complete && !m->reason)
                        pn_module_set_reason(m, "notes lie beyond the dumped page");
                c->modules[out++] = *m;
        }
        c->n_modules = out;
        if (rootfd >= 0)
                close(rootfd);
}

void pn_core_find_main_module(pkgnote_core *c) {
        c->main_module = SIZE_MAX;
        /* The module whose mappings hold the program headers or the entry
         * point the kernel gave the process. */
        uint64_t keys[2] = {c->auxv_phdr, c->auxv_entry};
        for (size_t k = 0; k < 2 && c->main_module == SIZE_MAX; k++)
                for (size_t i = 0; keys[k] && i < c->n_modules; i++) {
                        const pkgnote_module *m = &c->modules[i];
                        if (!m->is_vdso && keys[k] >= m->start && keys[k] < m->end) {
                                c->main_module = i;
                                break;
                        }
                }
        if (c->main_module == SIZE_MAX && c->n_modules > 0 && !c->modules[0].is_vdso)
                c->main_module = 0;
}

int pn_core_cmp_module(const void *a, const void *b) {
        const pkgnote_module *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

/* Keeps the options that outlive the call, checks that the file is a
 * core and takes its ELF facts: class, byte order, machine. */
static int read_core_header(pkgnote_core *c, const pkgnote_core_options *o) {
        pkgnote_object *v = c->view;
        c->no_disk = o && o->no_disk;
        if (o && o->root && !(c->root = strdup(o->root)))
                return pn_oom();
        if (pkgnote_object_type(v) != ET_CORE)
                return pn_error(-EINVAL, "not a core file (ELF type %s)",
                                pkgnote_object_type_name(pkgnote_object_type(v)) ? pkgnote_object_type_name(pkgnote_object_type(v)) : "unknown");
        c->is64 = pkgnote_object_class(v) == 64;
        c->page = 4096;
        c->be = pkgnote_object_big_endian(v);
        c->machine = pkgnote_object_machine(v);
        return 0;
}

/* Reads the process facts of the CORE notes, and the mappings of the
 * first NT_FILE note, which *FILE_NOTE gets (NULL when there is none). */
static int read_core_notes(pkgnote_core *c, const pkgnote_note **file_note) {
        pkgnote_object *v = c->view;
        const pkgnote_note *n;
        int cnt = pn_object_notes(v, &n);
        if (cnt < 0)
                return cnt;
        for (size_t i = 0; i < pkgnote_object_problem_count(v); i++)
                pn_core_problem_err(c, pkgnote_object_problem(v, i)->error, "%s", pkgnote_object_problem(v, i)->message);
        *file_note = NULL;
        for (int i = 0; i < cnt; i++) {
                if (!pkgnote_note_is(&n[i], "CORE", n[i].type))
                        continue;
                switch (n[i].type) {
                case NT_PRSTATUS: pn_core_parse_prstatus(c, &n[i]); break;
                case NT_PRPSINFO: pn_core_parse_prpsinfo(c, &n[i]); break;
                case NT_SIGINFO:
                        if (!c->have_fault_addr)
                                pn_core_parse_siginfo(c, &n[i]);
                        break;
                case NT_AUXV:
                        if (!c->auxv_phdr && !c->auxv_entry)
                                pn_core_parse_auxv(c, n[i].desc, n[i].descsz);
                        break;
                case NT_FILE:
                        if (!*file_note)
                                *file_note = &n[i];
                        break;
                }
        }
        pn_core_settle_ids(c);
        if (*file_note) {
                int r = parse_file_note(c, *file_note);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        pn_core_problem_err(c, r, "%s", pkgnote_last_error());
                        c->n_maps = 0;
                }
        }
        return 0;
}

/* Modules: every mapping at file offset 0, once per start address.
 * An offset-0 mapping right after one of the same file continues
 * that module: without separate code the loader maps the data
 * segment from page 0 too (-z noseparate-code, s390x, arm). */
static int add_mapped_modules(pkgnote_core *c) {
        struct cand *cand = malloc((c->n_maps ? c->n_maps : 1) * sizeof *cand);
        size_t nc = 0;
        if (!cand)
                return pn_oom();
        for (size_t i = 0; i < c->n_maps; i++)
                if (c->maps[i].pgoff == 0 && !(i > 0 && !strcmp(c->maps[i - 1].path, c->maps[i].path)))
                        cand[nc++] = (struct cand){c->maps[i].start, i, c->maps[i].path, false};
        /* Sorted by start, duplicates are neighbours: linear, whatever
         * NT_FILE claims.  The first of a start is its module. */
        qsort(cand, nc, sizeof *cand, cmp_cand);
        size_t starts = 0;
        for (size_t j = 0; j < nc; j++)
                if (!(cand[j].skip = j > 0 && cand[j - 1].start == cand[j].start))
                        starts++;
        /* Where they are more than PKGNOTE_MAX_MODULES, a file mapped at
         * more than PN_MODULES_PER_FILE places (by its name: NT_FILE has no
         * inode) keeps its lowest ones, so that it cannot fill the limit
         * and leave the other objects out.  (Below it, data files mapped
         * many times, dropped later as no ELF object, say nothing.) */
        if (starts > PKGNOTE_MAX_MODULES) {
                qsort(cand, nc, sizeof *cand, cmp_cand_path);
                const char *name = NULL;
                size_t run = 0;
                for (size_t j = 0; j < nc; j++) {
                        if (cand[j].skip)
                                continue;
                        const char *path = cand[j].path;
                        run = name && !strcmp(name, path) ? run + 1 : 0;
                        name = path;
                        if ((cand[j].skip = run >= PN_MODULES_PER_FILE) && run == PN_MODULES_PER_FILE)
                                pn_core_problem_err(c, -E2BIG, "%s mapped at more than %u places: the further ones are left out",
                                                    path, PN_MODULES_PER_FILE);
                }
                qsort(cand, nc, sizeof *cand, cmp_cand);
        }
        for (size_t j = 0; j < nc && c->n_modules < PKGNOTE_MAX_MODULES; j++) {
                const struct mapping *m = &c->maps[cand[j].index];
                if (cand[j].skip)
                        continue;
                /* A module ends where its last mapping of the same file does. */
                uint64_t end = m->end;
                size_t k = cand[j].index + 1;
                for (; k < c->n_maps && !strcmp(c->maps[k].path, m->path); k++)
                        end = c->maps[k].end;
                int r = add_module(c, m->path, m->start, end, cand[j].index, k, "nt-file");
                if (r < 0) {
                        free(cand);
                        return r;
                }
        }
        if (nc > 0 && c->n_modules >= PKGNOTE_MAX_MODULES)
                pn_core_problem_err(c, -E2BIG, "more than %u modules, ignoring the rest", PKGNOTE_MAX_MODULES);
        free(cand);
        return 0;
}

/* The modules: those NT_FILE maps, else those found in the core's
 * memory, and the vDSO. */
static int add_modules(pkgnote_core *c, const pkgnote_note *file_note) {
        int r = add_mapped_modules(c);
        if (r < 0)
                return r;
        if (!file_note) {
                pn_core_problem_err(c, -ENODATA, "the core has no NT_FILE note: modules are looked for in its memory");
                r = pn_core_discover_modules(c, add_found_module);
                if (r < 0)
                        return r;
        }
        if (c->auxv_vdso) {
                r = add_module(c, "[vdso]", c->auxv_vdso, c->auxv_vdso + VDSO_BYTES, SIZE_MAX, SIZE_MAX, "auxv");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The executable's name from range EXECFN, AT_EXECFN's string, if the
 * kernel dumped it. */
static void exe_from_execfn(pkgnote_core *c, size_t execfn) {
        if (execfn != SIZE_MAX && c->ranges[execfn].data) {
                const struct range *x = &c->ranges[execfn];
                /* An empty string (AT_EXECFN at zeroed bytes) names nothing. */
                if (x->len > 0 && x->data[0] && memchr(x->data, 0, x->len) && !(c->exe = strdup((const char *)x->data)))
                        c->oom = true;
        }
}

/* The executable's name where AT_EXECFN gave none or a relative one: the
 * main module's path, else the command name. */
static void exe_from_modules(pkgnote_core *c) {
        /* AT_EXECFN is the path as the program was started, maybe
         * relative; the executable's mapping names the file itself. */
        if (c->main_module != SIZE_MAX && c->modules[c->main_module].path[0] == '/' && (!c->exe || c->exe[0] != '/')) {
                free(c->exe);
                if (!(c->exe = strdup(c->modules[c->main_module].path)))
                        c->oom = true;
        }
        /* Last, the command name the kernel kept (at most 15 bytes). */
        if (!c->exe && c->comm[0] && !(c->exe = strdup(c->comm)))
                c->oom = true;
}

/* Reads the core: its notes, its modules and their packages, the
 * executable. */
static int read_core(pkgnote_core *c, const pkgnote_core_options *o) {
        const pkgnote_note *file_note = NULL;
        int r = read_core_header(c, o);
        if (r >= 0)
                r = read_core_notes(c, &file_note);
        if (r >= 0)
                r = add_modules(c, file_note);
        if (r < 0)
                return r;
        size_t execfn = c->auxv_execfn ? want_range(c, c->auxv_execfn, EXECFN_BYTES) : SIZE_MAX;
        r = fetch_ranges(c);
        if (r < 0)
                return r;
        exe_from_execfn(c, execfn);
        resolve_modules(c, o);
        pn_core_ask_database(c, o);
        if (c->n_modules > 1)
                qsort(c->modules, c->n_modules, sizeof *c->modules, pn_core_cmp_module);
        pn_core_find_main_module(c);
        exe_from_modules(c);
        return 0;
}

/* The most a compressed core's non-zero bytes may take in memory when it
 * is decompressed once: half of the machine's memory, so that a small
 * file that decompresses to a huge core (a bomb) is streamed instead. */
uint64_t pn_core_decompress_limit(void) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 : 0;
}

/* PKGNOTE_CORE_DECOMPRESS_ONCE: the compressed file at FD, whose stream
 * c->src has read no more than its magic, decompressed into a sealed
 * memfd, or past pn_core_memory_bound() an unlinked temporary file, which
 * the core's view then reads in place, as the unwinder will.
 * Whatever fails (a bomb over the limit, a corrupt or truncated stream,
 * no ELF inside) reopens the stream at START and leaves the rest to the
 * stream reader, so that its errors and problems stay what they are. */
static int decompress_once(pkgnote_core *c, int fd, off_t start) {
        int mfd = -1;
        char why[PATH_MAX + 128];
        if (pn_core_source_decompress(c->src, pn_core_decompress_limit(), pn_core_memory_bound(), &mfd, why, sizeof why) >= 0) {
                uint64_t compressed = pn_core_source_bytes_read(c->src);
                if (why[0] && pn_problems_add(&c->problems, PKGNOTE_MAX_PROBLEMS, 0, NULL, "%s", why) < 0) {
                        close(mfd);
                        return pn_oom();
                }
                if (pkgnote_object_open_fd(mfd, &c->view) >= 0) {
                        c->view->own_fd = true;
                        c->decompressed_once = true;
                        c->compressed_read = compressed;
                        pn_core_source_free(c->src);
                        c->src = NULL;
                        return 0;
                }
                close(mfd);
        }
        pn_error_clear();
        pn_core_source_free(c->src);
        c->src = NULL;
        if (lseek(fd, start, SEEK_SET) < 0)
                return pn_error(-errno, "cannot seek: %s", strerror(errno));
        return pn_core_source_open(fd, &c->src);
}

PKGNOTE_PUBLIC int pkgnote_core_open(const char *path, const pkgnote_core_options *o, pkgnote_core **ret) {
        int fd = !strcmp(path, "-") ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return pn_error(-errno, "cannot open: %s", strerror(errno));
        int r = pkgnote_core_open_fd(fd, o, ret);
        close(fd);
        return r;
}


PKGNOTE_PUBLIC int pkgnote_core_open_fd(int fd, const pkgnote_core_options *options, pkgnote_core **ret) {
        pkgnote_core_options opts, *o = &opts;
        int r = pn_options_read(&opts, sizeof opts, options, PN_SIZE_1_0(pkgnote_core_options), "core");
        if (r < 0)
                return r;
        pkgnote_core *c = calloc(1, sizeof *c);
        if (!c)
                return pn_oom();
        /* Plain seekable cores are read in place; compressed or piped ones
         * as a forward stream, or, when a stack trace will follow, a
         * compressed file decompressed once into memory and read in place. */
        off_t start = lseek(fd, 0, SEEK_CUR);
        r = pn_core_source_open(fd, &c->src);
        struct stat sb;
        if (r >= 0 && c->src && (o->flags & PKGNOTE_CORE_DECOMPRESS_ONCE) && start >= 0 &&
            pn_core_source_compressed(c->src) && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
                r = decompress_once(c, fd, start);
        if (c->decompressed_once) {
                /* The view over the memfd is the core from now on. */
        } else if (r >= 0 && c->src) {
                /* A compressed core file stays open for the unwinder, which
                 * decompresses it again from the start (the caller did not
                 * ask for PKGNOTE_CORE_DECOMPRESS_ONCE); a pipe cannot be. */
                if (pn_core_source_compressed(c->src) && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
                    (c->stream_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) >= 0)
                        c->have_stream_fd = true;
                uint64_t len;
                r = pn_core_source_prefix(c->src, &c->prefix, &len);
                if (r >= 0)
                        r = pkgnote_object_from_memory(c->prefix, len, &c->view);
        } else if (r >= 0) {
                int dfd = dup(fd);
                r = dfd < 0 ? pn_error(-errno, "dup: %s", strerror(errno)) : pkgnote_object_open_fd(dfd, &c->view);
                if (r >= 0)
                        c->view->own_fd = true;
                else if (dfd >= 0)
                        close(dfd);
        }
        if (r >= 0)
                r = read_core(c, o);
        if (r >= 0 && pn_core_ran_out(c))
                r = pn_oom();
        if (r < 0) {
                pkgnote_core_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_core_from_memory(const void *data, size_t size, const pkgnote_core_options *options,
                                            pkgnote_core **ret) {
        pkgnote_core_options opts, *o = &opts;
        int r = pn_options_read(&opts, sizeof opts, options, PN_SIZE_1_0(pkgnote_core_options), "core");
        if (r < 0)
                return r;
        pkgnote_core *c = calloc(1, sizeof *c);
        if (!c)
                return pn_oom();
        r = pkgnote_object_from_memory(data, size, &c->view);
        if (r >= 0)
                r = read_core(c, o);
        if (r >= 0 && pn_core_ran_out(c))
                r = pn_oom();
        if (r < 0) {
                pkgnote_core_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

PKGNOTE_PUBLIC void pkgnote_core_free(pkgnote_core *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_modules; i++) {
                pkgnote_module *m = &c->modules[i];
                free(m->path);
                free(m->build_id);
                free(m->disk_build_id);
                free(m->reason);
                pkgnote_info_free(m->info);
                pkgnote_info_free(m->now_info);
        }
        for (size_t i = 0; i < c->n_ranges; i++)
                free(c->ranges[i].owned);
        pn_problems_clear(&c->problems);
        free(c->ranges);
        free(c->modules);
        free(c->maps);
        free(c->file_note);
        free(c->threads);
        free(c->exe);
        free(c->args);
        free(c->root);
        pn_core_loads_free(c->loads);
        pkgnote_object_free(c->view);
        free(c->prefix);
        pn_core_source_free(c->src);
        if (!c->pkgdb_borrowed)
                pn_pkgdb_free(c->pkgdb);
        free(c->root_prefix);
        if (c->have_stream_fd)
                close(c->stream_fd);
        free(c);
}

PKGNOTE_PUBLIC int pkgnote_core_process(const pkgnote_core *c, pkgnote_process_info *ret) {
        const pkgnote_process_info full = {
                .size = sizeof full,
                .pid = c->have_pid ? c->pid : -1,
                .tid = c->have_tid ? c->tid : -1,
                .ppid = c->have_ppid ? c->ppid : -1,
                .uid = c->have_ids ? c->uid : -1,
                .gid = c->have_ids ? c->gid : -1,
                .signal = c->have_signal ? c->signal : 0,
                .has_fault_address = c->have_fault_addr,
                .fault_address = c->fault_addr,
                .command = c->comm[0] ? c->comm : NULL,
                .arguments = c->args && c->args[0] ? c->args : NULL,
                .executable = c->exe,
                .elf_class = c->is64 ? 64 : 32,
                .big_endian = c->be,
                .machine = c->machine,
        };
        return pn_result_copy(ret, &full, sizeof full, PN_SIZE_1_0(pkgnote_process_info), "pkgnote_process_info");
}

PKGNOTE_PUBLIC size_t pkgnote_core_thread_count(const pkgnote_core *c) {
        return c->n_threads;
}

PKGNOTE_PUBLIC const pkgnote_thread_info *pkgnote_core_thread(const pkgnote_core *c, size_t i) {
        return i < c->n_threads ? &c->threads[i] : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_core_module_count(const pkgnote_core *c) {
        return c->n_modules;
}

PKGNOTE_PUBLIC const pkgnote_module *pkgnote_core_module(const pkgnote_core *c, size_t i) {
        return i < c->n_modules ? &c->modules[i] : NULL;
}

PKGNOTE_PUBLIC const pkgnote_module *pkgnote_core_main_module(const pkgnote_core *c) {
        return c->main_module < c->n_modules ? &c->modules[c->main_module] : NULL;
}

PKGNOTE_PUBLIC size_t pkgnote_core_problem_count(const pkgnote_core *c) {
        return c->problems.n;
}

PKGNOTE_PUBLIC const pkgnote_problem *pkgnote_core_problem(const pkgnote_core *c, size_t i) {
        return pn_problems_get(&c->problems, i);
}

PKGNOTE_PUBLIC uint64_t pkgnote_core_bytes_read(const pkgnote_core *c) {
        if (c->src)
                return pn_core_source_bytes_read(c->src);
        if (c->decompressed_once)
                return c->compressed_read;
        return c->view ? c->view->bytes_read : 0; /* a running process has no core file */
}

PKGNOTE_PUBLIC const char *pkgnote_module_path(const pkgnote_module *m) {
        return m->path;
}
PKGNOTE_PUBLIC uint64_t pkgnote_module_start(const pkgnote_module *m) {
        return m->start;
}
PKGNOTE_PUBLIC uint64_t pkgnote_module_end(const pkgnote_module *m) {
        return m->end;
}
PKGNOTE_PUBLIC const char *pkgnote_module_build_id(const pkgnote_module *m) {
        return m->build_id;
}
PKGNOTE_PUBLIC const char *pkgnote_module_disk_build_id(const pkgnote_module *m) {
        return m->disk_build_id;
}
PKGNOTE_PUBLIC const pkgnote_info *pkgnote_module_info(const pkgnote_module *m) {
        return pn_module_info(m);
}
PKGNOTE_PUBLIC int pkgnote_module_source(const pkgnote_module *m) {
        return m->source;
}
PKGNOTE_PUBLIC const char *pkgnote_module_found_by(const pkgnote_module *m) {
        return m->found_by;
}
PKGNOTE_PUBLIC const char *pkgnote_module_reason(const pkgnote_module *m) {
        return m->reason;
}
PKGNOTE_PUBLIC int pkgnote_module_is_vdso(const pkgnote_module *m) {
        return m->is_vdso;
}
PKGNOTE_PUBLIC int pkgnote_module_deleted(const pkgnote_module *m) {
        return m->deleted;
}
PKGNOTE_PUBLIC int pkgnote_module_replaced(const pkgnote_module *m) {
        return m->replaced;
}

/* Memory the kernel names as a file, though no package installed one
 * there: anonymous shared memory (memfd_create(2), System V segments,
 * /dev/zero and /dev/shm, hugetlb's anonymous pages), GPU buffers and
 * aio(7) rings.  Such a mapping shows as deleted, and no restart brings
 * back another version of it.  needrestart passes over the same names
 * (its blacklist_mappings). */
static bool restart_flaggable(const char *p) {
        static const char *const anonymous[] = {"/memfd:", "/dev/", "/SYSV", "/anon_hugepage", "/[aio]"};
        for (size_t i = 0; i < ELEMENTSOF(anonymous); i++)
                if (!strncmp(p, anonymous[i], strlen(anonymous[i])))
                        return false;
        /* "/drm mm object" (i915, amdgpu and others' shmem-backed objects), "/drm". */
        return !(!strncmp(p, "/drm", 4) && (p[4] == ' ' || p[4] == 0));
}

PKGNOTE_PUBLIC int pkgnote_module_needs_restart(const pkgnote_module *m) {
        return m && (m->replaced || m->deleted) && m->path && restart_flaggable(m->path);
}

PKGNOTE_PUBLIC const char *pkgnote_source_name(int source) {
        switch (source) {
        case PKGNOTE_SOURCE_CORE: return "core";
        case PKGNOTE_SOURCE_DISK: return "disk";
        case PKGNOTE_SOURCE_DISK_MISMATCH: return "disk-mismatch";
        case PKGNOTE_SOURCE_MAPPED: return "mapped";
        default: return "none";
        }
}

PKGNOTE_PUBLIC const char *pkgnote_signal_name(int sig) {
        static const char *const names[] = {
                NULL,    "HUP",  "INT",  "QUIT", "ILL",    "TRAP", "ABRT",   "BUS",  "FPE",  "KILL", "USR1",
                "SEGV",  "USR2", "PIPE", "ALRM", "TERM",   "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN",
                "TTOU",  "URG",  "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH",  "IO",   "PWR",  "SYS",
        };
        return sig > 0 && (size_t)sig < ELEMENTSOF(names) ? names[sig] : NULL;
}
