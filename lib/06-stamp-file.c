/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote_stamp_file(), pkgnote_stamp_notes_file() and pn_stamp_at(): the input read (or mapped,
 * when large), stamped by pn_stamp_run(), and the result written by the
 * output rule of shared/output.h, read back and checked before the rename.  In
 * place, the new file keeps owner, mode, timestamps and extended
 * attributes; the file replaced must be the file that was read.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "output.h"
#include "06-stamp-files.h"
#include "06-stamp-private.h"
#include "05-gen-emit.h"

/* Files from this size on are mapped rather than read and copied. */
#define MAP_THRESHOLD (1u << 20)

/* Copies every extended attribute (ACLs, SELinux labels, user.*) from
 * SRC to the output, after fchown(), which drops security.capability.
 * That one goes into O->caps: the commit applies it right before the
 * rename, with the setuid and setgid bits. */
static int copy_xattrs(int src, pn_output *o) {
        ssize_t n = flistxattr(src, NULL, 0);
        if (n < 0)
                return errno == ENOTSUP ? 0 : pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        if (n == 0)
                return 0;
        char *names = malloc((size_t)n), *value = NULL;
        if (!names)
                return pn_oom();
        int r = 0;
        n = flistxattr(src, names, (size_t)n);
        if (n < 0)
                r = pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        for (ssize_t i = 0; r == 0 && i < n; i += (ssize_t)strlen(names + i) + 1) {
                const char *name = names + i;
                ssize_t vl = fgetxattr(src, name, NULL, 0);
                char *v = vl > 0 ? realloc(value, (size_t)vl) : value;
                if (vl > 0 && !v) {
                        r = pn_oom();
                        break;
                }
                value = v;
                if (vl < 0 || (vl > 0 && (vl = fgetxattr(src, name, value, (size_t)vl)) < 0))
                        r = pn_error(-errno, "cannot read extended attribute %s: %s", name, strerror(errno));
                else if (!strcmp(name, "security.capability") && vl > 0) {
                        free(o->caps);
                        o->caps = value;
                        o->caps_len = (size_t)vl;
                        value = NULL;
                } else if (fsetxattr(o->fd, name, value, (size_t)vl, 0) < 0)
                        r = pn_error(-errno, "cannot keep extended attribute %s: %s", name, strerror(errno));
        }
        free(value);
        free(names);
        return r;
}

/* The dlopen note of E is the one for JSON, and the only one; or there
 * is none (JSON NULL).  -EIO otherwise. */
static int dlopen_read_back(pkgnote_object *e, const char *json) {
        const pkgnote_note *n;
        int c = pn_object_notes(e, &n), found = 0, r = 0;
        uint8_t *note = NULL;
        size_t note_len = 0;
        if (c < 0)
                return c;
        if (json && (r = pn_dlopen_note_checked(json, pkgnote_object_big_endian(e), &note, &note_len)) < 0)
                return r;
        for (int i = 0; i < c; i++) {
                if (!pkgnote_note_is(&n[i], PKGNOTE_OWNER_FDO, PKGNOTE_NT_FDO_DLOPEN_METADATA) ||
                    !(n[i].where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_IN_SECTION)))
                        continue;
                if (!json || !pn_stamp_note_matches(&n[i], note, note_len, pkgnote_object_big_endian(e)))
                        r = -EIO;
                found++;
        }
        free(note);
        return r < 0 || (json && found != 1) ? -EIO : 0;
}

/* Reads the temporary file back as a reader would: its size, and the
 * library finds each note in it (or none after removal).  Only the
 * headers and the notes are read, not the whole file again. */
static int read_back(int fd, size_t len, const pkgnote_note_spec *specs, size_t n, bool remove_all) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return pn_error(-errno, "cannot stat the temporary file: %s", strerror(errno));
        if ((uint64_t)st.st_size != len)
                return pn_error(-EIO, "the temporary file has %llu bytes, not %zu", (unsigned long long)st.st_size, len);
        pkgnote_object *e = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_object_open_fd(fd, &e);
        if (r == 0 && (r = pkgnote_info_read(e, &info)) == 0) {
                for (size_t i = 0; r == 0 && i < n; i++) {
                        const char *json = remove_all ? NULL : specs[i].json;
                        if (specs[i].type == PKGNOTE_NT_FDO_PACKAGING_METADATA) {
                                size_t c = pkgnote_info_package_count(info);
                                if (json ? c == 0 || strcmp(pkgnote_info_package_json(info, 0), json)
                                         : c > 0 && pkgnote_info_package_note(info, 0)->where & (PKGNOTE_NOTE_IN_SEGMENT | PKGNOTE_NOTE_PE_SECTION))
                                        r = pn_error(-EIO, "the temporary file does not hold the expected note");
                        } else if ((r = dlopen_read_back(e, json)) < 0)
                                r = pn_error(-EIO, "the temporary file does not hold the expected dlopen note");
                }
        }
        if (r < 0 && r != -EIO && r != -ENOMEM)
                r = pn_error(-EIO, "the temporary file does not read back: %s", pkgnote_last_error());
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return r;
}

/* The input, read whole, or mapped when large: the result then shares
 * the input's pages except those it changes.  (Truncating the file while
 * it is being stamped is then fatal, SIGBUS, as for any program mapping
 * it.) */
struct input {
        uint8_t *p;
        size_t len;
        bool mapped;
};

static int load(int fd, const struct stat *st, struct input *in) {
        *in = (struct input){0};
        if ((uint64_t)st->st_size > SIZE_MAX - 1)
                return pn_error(-E2BIG, "too large to stamp here");
        in->len = (size_t)st->st_size;
        if (in->len >= MAP_THRESHOLD) {
                in->p = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
                if (in->p != MAP_FAILED) {
                        in->mapped = true;
                        return 0;
                }
                in->p = NULL;
        }
        if (!(in->p = malloc(in->len ? in->len : 1)))
                return pn_oom();
        ssize_t r = pn_pread_full(fd, in->p, in->len, 0);
        if (r >= 0 && (size_t)r != in->len)
                return pn_error(-EIO, "file shrank while being read");
        return r < 0 ? pn_error((int)r, "read failed: %s", strerror((int)-r)) : 0;
}

static void unload(struct input *in) {
        if (in->mapped)
                munmap(in->p, in->len);
        else
                free(in->p);
}

/* Stamps the input FD (described by ST) into O and commits it; O is
 * consumed either way.  IN_PLACE: O replaces the input, whose owner,
 * mode, extended attributes and timestamps the new file takes, and
 * nothing is written when nothing changes; otherwise the new file gets
 * the input's permission bits. */
static int stamp_into(int fd, const struct stat *st, pn_output *o, bool in_place, const pkgnote_note_spec *specs,
                      size_t n, unsigned flags, pkgnote_stamp_result *results, struct stat *written) {
        struct input in;
        uint8_t *out = NULL;
        size_t out_len = 0;
        bool out_mapped = false;
        uint64_t out_cap = 0;
        pkgnote_stamp_result res[2] = {{.size = sizeof res[0]}, {.size = sizeof res[0]}};
        flags &= ~(unsigned)(PN_STAMP_FOLLOW | PN_STAMP_LINKS_OK | PN_STAMP_NO_DIRSYNC);
        int r = load(fd, st, &in);
        if (r == 0)
                r = n <= ELEMENTSOF(res) ? pn_stamp_run(in.p, in.len, specs, n, flags, in.mapped ? fd : -1, &out, &out_len,
                                                        &out_mapped, &out_cap, res)
                                         : pn_stamp_specs_ok(specs, n) < 0 ? -EINVAL : pn_error(-EINVAL, "too many notes");
        bool same = true;
        for (size_t i = 0; r == 0 && i < n; i++)
                same &= res[i].placement == PKGNOTE_PLACE_UNCHANGED || res[i].placement == PKGNOTE_PLACE_NONE;
        if (r == 0 && in_place && same) {
                pn_output_abort(o);
                if (written)
                        *written = *st;
                goto done;
        }
        if (r == 0 && (r = pn_write_full(o->fd, out, out_len)) < 0)
                r = pn_error(r, "cannot write the new file: %s", strerror(-r));
        if (r == 0 && !o->direct) {
                o->mode = st->st_mode & (in_place ? 07777 : 0777);
                if (in_place && fchown(o->fd, st->st_uid, st->st_gid) < 0)
                        r = pn_error(-errno, "cannot keep the owner: %s", strerror(errno));
                if (r == 0 && in_place)
                        r = copy_xattrs(fd, o);
                if (r == 0)
                        r = read_back(o->fd, out_len, specs, n, flags & PKGNOTE_STAMP_REMOVE);
                const struct timespec times[2] = {st->st_atim, st->st_mtim};
                if (r == 0 && in_place && futimens(o->fd, times) < 0)
                        r = pn_error(-errno, "cannot keep the timestamps: %s", strerror(errno));
                if (r == 0 && written && fstat(o->fd, written) < 0)
                        r = pn_error(-errno, "cannot stat the new file: %s", strerror(errno));
        }
        if (r == 0)
                r = pn_output_commit(o);
        else
                pn_output_abort(o);
done:
        if (r == 0 && results)
                memcpy(results, res, n * sizeof *res);
        unload(&in);
        if (out)
                pn_stamp_release_buffer(out, out_cap, out_mapped);
        return r;
}

int pn_stamp_at(int dirfd, const char *name, const struct stat *expect, const pkgnote_note_spec *specs, size_t n,
                unsigned flags, pkgnote_stamp_result *results, struct stat *written) {
        pn_output o;
        unsigned of = PN_OUT_REGULAR | (flags & PN_STAMP_FOLLOW ? PN_OUT_FOLLOW : 0) |
                      (flags & PN_STAMP_NO_DIRSYNC ? PN_OUT_NO_DIRSYNC | PN_OUT_NO_CLEAN : 0);
        int r = pn_output_open(&o, dirfd, name, of), fd = -1;
        if (r < 0)
                return r;
        struct stat st;
        struct statvfs sv;
        if (expect && (o.st.st_dev != expect->st_dev || o.st.st_ino != expect->st_ino))
                r = pn_error(-ESTALE, "changed while being stamped; left as it is");
        else if ((fd = pn_openat_regular(o.dirfd, o.name)) < 0)
                r = pn_error(fd, "cannot open: %s", fd == -EINVAL ? "not a regular file" : strerror(-fd));
        else if (fstat(fd, &st) < 0)
                r = pn_error(-errno, "cannot stat: %s", strerror(errno));
        else if (st.st_dev != o.st.st_dev || st.st_ino != o.st.st_ino)
                r = pn_error(-ESTALE, "changed while being stamped; left as it is");
        else if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY))
                r = pn_error(-EROFS, "lies on a read-only file system");
        else if (!(flags & PKGNOTE_STAMP_FORCE) && !(flags & PN_STAMP_LINKS_OK) && st.st_nlink > 1)
                r = pn_error(-EMLINK, "has %ju hard links; the other names would keep the unstamped file (force to stamp this name alone)",
                             (uintmax_t)st.st_nlink);
        /* root may write anything: judge by the mode bits. */
        else if (!(flags & PKGNOTE_STAMP_FORCE) &&
                 (geteuid() == 0 ? !(st.st_mode & 0222) : faccessat(o.dirfd, o.name, W_OK, AT_EACCESS) < 0))
                r = pn_error(-EROFS, "is read-only (force to stamp it anyway)");
        if (r == 0)
                r = stamp_into(fd, &st, &o, true, specs, n, flags, results, written);
        else
                pn_output_abort(&o);
        if (fd >= 0)
                close(fd);
        return r;
}

PKGNOTE_PUBLIC int pkgnote_stamp_file(const char *path, const char *output, const char *json, unsigned flags,
                                      pkgnote_stamp_result *result) {
        if (!json && !(flags & PKGNOTE_STAMP_REMOVE))
                return pn_error(-EINVAL, "no JSON given");
        pkgnote_note_spec spec = PKGNOTE_NOTE_SPEC(PKGNOTE_NT_FDO_PACKAGING_METADATA, json);
        return pkgnote_stamp_notes_file(path, output, &spec, 1, flags, result);
}

/* Stamps the regular file open at FD (its identity ST) into a new file
 * OUTPUT; FD's file is only read. */
static int stamp_fd_to(int fd, const struct stat *st, const char *output, const pkgnote_note_spec *notes, size_t n,
                       unsigned flags, pkgnote_stamp_result *results) {
        pn_output o;
        int r = pn_output_open(&o, AT_FDCWD, output, PN_OUT_FOLLOW | PN_OUT_STDIO | PN_OUT_BINARY);
        if (r < 0) {
                char why[256];
                snprintf(why, sizeof why, "%s", pkgnote_last_error());
                return pn_error(r, "the output: %s", why);
        }
        return stamp_into(fd, st, &o, false, notes, n, flags, results, NULL);
}

static int stamp_notes_file(const char *path, const char *output, const pkgnote_note_spec *notes, size_t n,
                            unsigned flags, pkgnote_stamp_result *results);

/* The caller's results are written through pn_stamp_results_out(): only
 * within the size it gave. */
PKGNOTE_PUBLIC int pkgnote_stamp_notes_file(const char *path, const char *output, const pkgnote_note_spec *specs,
                                            size_t n, unsigned flags, pkgnote_stamp_result *results) {
        int r = pn_stamp_results_ok(results, n);
        if (r < 0)
                return r;
        pkgnote_note_spec *notes;
        r = pn_array_read((void **)&notes, sizeof *notes, specs, n, PN_SIZE_1_0(pkgnote_note_spec), "pkgnote_note_spec");
        if (r < 0)
                return r;
        pkgnote_stamp_result full[PN_STAMP_RESULTS_MAX] = {{0}};
        r = stamp_notes_file(path, output, notes, n, flags, results ? full : NULL);
        free(notes);
        if (r >= 0)
                pn_stamp_results_out(results, full, n);
        return r;
}

static int stamp_notes_file(const char *path, const char *output, const pkgnote_note_spec *notes, size_t n,
                            unsigned flags, pkgnote_stamp_result *results) {
        int r = pn_stamp_specs_ok(notes, n);
        if (r < 0)
                return r;
        if (!path)
                return pn_error(-EINVAL, "no file given");
        flags &= ~(unsigned)(PN_STAMP_FOLLOW | PN_STAMP_LINKS_OK | PN_STAMP_NO_DIRSYNC);
        /* In place, a symbolic link is followed: its target is stamped. */
        if (!output)
                return pn_stamp_at(AT_FDCWD, path, NULL, notes, n, flags | PN_STAMP_FOLLOW, results, NULL);
        /* To OUTPUT: always a new file there (even when OUTPUT is another
         * name of PATH); PATH is only read. */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return pn_error(-errno, "cannot open: %s", strerror(errno));
        struct stat st;
        if (fstat(fd, &st) < 0)
                r = pn_error(-errno, "cannot stat: %s", strerror(errno));
        else if (!S_ISREG(st.st_mode))
                r = pn_error(-EINVAL, "not a regular file");
        else
                r = stamp_fd_to(fd, &st, output, notes, n, flags, results);
        close(fd);
        return r;
}

int pn_stamp_in_root(int rootfd, const char *rel, const struct stat *expect, const char *output,
                     const pkgnote_note_spec *specs, size_t n, unsigned flags, pkgnote_stamp_result *results) {
        int r = pn_stamp_specs_ok(specs, n);
        if (r < 0)
                return r;
        flags &= ~(unsigned)(PN_STAMP_FOLLOW | PN_STAMP_LINKS_OK | PN_STAMP_NO_DIRSYNC);
        if (output) {
                /* Read inside the root, and only the file resolved. */
                int fd = pn_open_in_root(rootfd, rel);
                struct stat st;
                if (fd < 0)
                        return pn_error(fd, "cannot open: %s", strerror(-fd));
                if (fstat(fd, &st) < 0)
                        r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                else if (st.st_dev != expect->st_dev || st.st_ino != expect->st_ino)
                        r = pn_error(-ESTALE, "changed while being stamped; left as it is");
                else
                        r = stamp_fd_to(fd, &st, output, specs, n, flags, results);
                close(fd);
                return r;
        }
        /* In place: the file's own directory, opened inside the root, and
         * its name there, never followed (REL has no symbolic link; one
         * put there since is refused, as is another file). */
        const char *slash = strrchr(rel, '/');
        char *dir = slash ? strndup(rel, (size_t)(slash - rel)) : strdup(".");
        if (!dir)
                return pn_oom();
        int dfd = pn_open_dir_in_root(rootfd, *dir ? dir : "/");
        free(dir);
        if (dfd < 0)
                return pn_error(dfd, "cannot open its directory inside the root: %s", strerror(-dfd));
        r = pn_stamp_at(dfd, slash ? slash + 1 : rel, expect, specs, n, flags, results, NULL);
        close(dfd);
        return r;
}
