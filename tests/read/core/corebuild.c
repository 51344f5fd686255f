/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel-shaped core files for tests: see corebuild.h for the layouts. */
#include <stdlib.h>
#include <string.h>

#include "corebuild.h"

#define CB_ALIGN(x, a) (((x) + (a)-1) / (a) * (a))

void cb_put(uint8_t *p, uint64_t v, unsigned width, bool be) {
        for (unsigned i = 0; i < width; i++)
                p[be ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static unsigned word(const struct cb_spec *s) {
        return s->is64 ? 8 : 4;
}

size_t cb_file_note(const struct cb_spec *s, uint8_t **out) {
        unsigned w = word(s);
        size_t count = 0, names = 0;
        for (size_t i = 0; i < s->n_maps; i++)
                if (s->maps[i].path) {
                        count++;
                        names += strlen(s->maps[i].path) + 1;
                }
        size_t len = 2 * w + count * 3 * w + names;
        uint8_t *d = calloc(1, len ? len : 1);
        if (!d)
                return 0;
        cb_put(d, count, w, s->be);
        cb_put(d + w, s->page ? s->page : 4096, w, s->be);
        uint8_t *e = d + 2 * w;
        char *n = (char *)d + 2 * w + count * 3 * w;
        for (size_t i = 0; i < s->n_maps; i++) {
                const struct cb_map *m = &s->maps[i];
                if (!m->path)
                        continue;
                cb_put(e, m->start, w, s->be);
                cb_put(e + w, m->end, w, s->be);
                cb_put(e + 2 * w, m->pgoff, w, s->be);
                e += 3 * w;
                size_t l = strlen(m->path) + 1;
                memcpy(n, m->path, l);
                n += l;
        }
        *out = d;
        return len;
}

/* Appends one note ("CORE"-style: 4-byte alignment) at *pos. */
static void put_note(uint8_t *buf, size_t *pos, bool be, const char *name, uint32_t type, const uint8_t *desc,
                     size_t len) {
        size_t namesz = strlen(name) + 1;
        cb_put(buf + *pos, namesz, 4, be);
        cb_put(buf + *pos + 4, len, 4, be);
        cb_put(buf + *pos + 8, type, 4, be);
        *pos += 12;
        memcpy(buf + *pos, name, namesz);
        *pos += CB_ALIGN(namesz, 4);
        if (len)
                memcpy(buf + *pos, desc, len);
        *pos += CB_ALIGN(len, 4);
}

static size_t note_size(const char *name, size_t len) {
        return 12 + CB_ALIGN(strlen(name) + 1, 4) + CB_ALIGN(len, 4);
}

static void fill_prstatus(const struct cb_spec *s, uint8_t *d, int tid, int sig) {
        bool be = s->be;
        cb_put(d, (uint64_t)sig, 4, be);         /* pr_info.si_signo */
        cb_put(d + 12, (uint64_t)sig, 2, be);    /* pr_cursig */
        size_t pid = s->layout ? s->layout->prstatus_pid : s->is64 ? 32 : 24;
        cb_put(d + pid, (uint64_t)tid, 4, be);
        cb_put(d + pid + 4, (uint64_t)s->ppid, 4, be);
        cb_put(d + pid + 8, (uint64_t)s->tids[0], 4, be); /* pgrp */
        cb_put(d + pid + 12, (uint64_t)s->tids[0], 4, be); /* sid */
}

static void fill_prpsinfo(const struct cb_spec *s, uint8_t *d, unsigned size) {
        bool be = s->be;
        size_t uid, pid, fname;
        unsigned idw;
        if (s->layout)
                uid = s->layout->prpsinfo_uid, idw = s->layout->uid_size, pid = s->layout->prpsinfo_pid,
                fname = s->layout->prpsinfo_fname;
        else if (size == 136)
                uid = 16, idw = 4, pid = 24, fname = 40;
        else if (size == 128)
                uid = 8, idw = 4, pid = 16, fname = 32;
        else
                uid = 8, idw = 2, pid = 12, fname = 28;
        d[0] = 0;   /* pr_state */
        d[1] = 'R'; /* pr_sname */
        cb_put(d + uid, (uint64_t)s->uid, idw, be);
        cb_put(d + uid + idw, (uint64_t)s->gid, idw, be);
        cb_put(d + pid, (uint64_t)(s->pid ? s->pid : s->tids[0]), 4, be);
        cb_put(d + pid + 4, (uint64_t)s->ppid, 4, be);
        cb_put(d + pid + 8, (uint64_t)s->tids[0], 4, be);
        cb_put(d + pid + 12, (uint64_t)s->tids[0], 4, be);
        if (s->comm)
                strncpy((char *)d + fname, s->comm, 16);
        if (s->args)
                strncpy((char *)d + fname + 16, s->args, 79);
}

size_t cb_phdr_offset(const struct cb_spec *s, size_t i) {
        return (s->is64 ? 64 : 52) + i * (s->is64 ? 56 : 32);
}

size_t cb_build(const struct cb_spec *s, uint8_t **out) {
        bool is64 = s->is64, be = s->be;
        unsigned w = word(s);
        uint64_t page = s->page ? s->page : 4096;
        size_t ehsize = is64 ? 64 : 52, phent = is64 ? 56 : 32;
        size_t phnum = 1 + s->n_maps;
        unsigned prstatus = s->prstatus_size ? s->prstatus_size : is64 ? 336 : 144;
        unsigned prpsinfo = s->prpsinfo_size ? s->prpsinfo_size
                            : s->layout ? s->layout->prpsinfo_size
                            : is64       ? 136
                                         : 128;
        size_t n_threads = s->n_threads ? s->n_threads : 1;

        uint8_t *fnote = NULL;
        size_t fnote_len = 0;
        if (!s->no_file_note && !s->file_note && !(fnote_len = cb_file_note(s, &fnote)))
                return 0;
        const uint8_t *fdesc = s->file_note ? s->file_note : fnote;
        if (s->file_note)
                fnote_len = s->file_note_len;
        size_t auxv_len = (s->n_auxv + 1) * 2 * w;

        size_t notes = (n_threads + s->more_threads) * note_size("CORE", prstatus);
        if (!s->no_prpsinfo)
                notes += note_size("CORE", prpsinfo);
        if (!s->no_siginfo)
                notes += note_size("CORE", 128);
        if (!s->no_auxv)
                notes += note_size("CORE", auxv_len);
        if (!s->no_file_note)
                notes += note_size("CORE", fnote_len);
        for (size_t i = 0; i < s->n_extra; i++)
                notes += note_size(s->extra[i].name, s->extra[i].len);

        size_t notes_off = ehsize + phnum * phent;
        size_t data_off = CB_ALIGN(notes_off + notes, page);
        size_t total = data_off;
        for (size_t i = 0; i < s->n_maps; i++)
                total += s->maps[i].data_len;
        uint8_t *b = calloc(1, total);
        uint8_t *desc = calloc(1, 4096 + auxv_len + fnote_len);
        if (!b || !desc) {
                free(b);
                free(desc);
                free(fnote);
                return 0;
        }

        memcpy(b, "\177ELF", 4);
        b[4] = is64 ? 2 : 1;
        b[5] = be ? 2 : 1;
        b[6] = 1;
        cb_put(b + 16, 4, 2, be); /* ET_CORE */
        cb_put(b + 18, s->machine, 2, be);
        cb_put(b + 20, 1, 4, be);
        cb_put(b + (is64 ? 32 : 28), ehsize, w, be); /* e_phoff */
        uint8_t *t = b + (is64 ? 52 : 40);
        cb_put(t, ehsize, 2, be);
        cb_put(t + 2, phent, 2, be);
        cb_put(t + 4, phnum, 2, be);

        /* PT_NOTE, then one PT_LOAD per mapping. */
        uint8_t *ph = b + ehsize;
        cb_put(ph, 4, 4, be);
        if (is64) {
                cb_put(ph + 8, notes_off, 8, be);
                cb_put(ph + 32, notes, 8, be);
        } else {
                cb_put(ph + 4, notes_off, 4, be);
                cb_put(ph + 16, notes, 4, be);
        }
        uint64_t off = data_off;
        for (size_t i = 0; i < s->n_maps; i++) {
                const struct cb_map *m = &s->maps[i];
                ph = b + cb_phdr_offset(s, 1 + i);
                cb_put(ph, 1, 4, be);
                if (is64) {
                        cb_put(ph + 4, 5, 4, be); /* PF_R | PF_X */
                        cb_put(ph + 8, off, 8, be);
                        cb_put(ph + 16, m->start, 8, be);
                        cb_put(ph + 32, m->data_len, 8, be);
                        cb_put(ph + 40, m->end - m->start, 8, be);
                        cb_put(ph + 48, page, 8, be);
                } else {
                        cb_put(ph + 4, off, 4, be);
                        cb_put(ph + 8, m->start, 4, be);
                        cb_put(ph + 16, m->data_len, 4, be);
                        cb_put(ph + 20, m->end - m->start, 4, be);
                        cb_put(ph + 24, 5, 4, be);
                        cb_put(ph + 28, page, 4, be);
                }
                if (m->data_len)
                        memcpy(b + off, m->data, m->data_len);
                off += m->data_len;
        }

        size_t pos = notes_off;
        memset(desc, 0, prstatus);
        fill_prstatus(s, desc, s->n_threads ? s->tids[0] : 0, s->signal);
        put_note(b, &pos, be, "CORE", CB_NT_PRSTATUS, desc, prstatus);
        if (!s->no_prpsinfo) {
                memset(desc, 0, prpsinfo);
                fill_prpsinfo(s, desc, prpsinfo);
                put_note(b, &pos, be, "CORE", CB_NT_PRPSINFO, desc, prpsinfo);
        }
        if (!s->no_siginfo) {
                memset(desc, 0, 128);
                cb_put(desc, (uint64_t)s->signal, 4, be);
                cb_put(desc + 8, (uint64_t)s->si_code, 4, be);
                cb_put(desc + (is64 ? 16 : 12), s->fault_addr, w, be);
                put_note(b, &pos, be, "CORE", CB_NT_SIGINFO, desc, 128);
        }
        if (!s->no_auxv) {
                memset(desc, 0, auxv_len);
                for (size_t i = 0; i < s->n_auxv; i++) {
                        cb_put(desc + 2 * w * i, s->auxv[i][0], w, be);
                        cb_put(desc + 2 * w * i + w, s->auxv[i][1], w, be);
                }
                put_note(b, &pos, be, "CORE", CB_NT_AUXV, desc, auxv_len);
        }
        if (!s->no_file_note)
                put_note(b, &pos, be, "CORE", CB_NT_FILE, fdesc, fnote_len);
        for (size_t i = 1; i < n_threads; i++) {
                memset(desc, 0, prstatus);
                fill_prstatus(s, desc, s->tids[i], 0);
                put_note(b, &pos, be, "CORE", CB_NT_PRSTATUS, desc, prstatus);
        }
        for (size_t i = 0; i < s->more_threads; i++) {
                memset(desc, 0, prstatus);
                fill_prstatus(s, desc, 10000 + (int)i, 0);
                put_note(b, &pos, be, "CORE", CB_NT_PRSTATUS, desc, prstatus);
        }
        for (size_t i = 0; i < s->n_extra; i++)
                put_note(b, &pos, be, s->extra[i].name, s->extra[i].type, s->extra[i].desc, s->extra[i].len);
        free(desc);
        free(fnote);
        *out = b;
        return total;
}
