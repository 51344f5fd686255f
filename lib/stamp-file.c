/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pkgnote_stamp_file(): the input read (or mapped, when large), stamped
 * by pn_stamp_run(), and the result written through a temporary file
 * beside the target: written, fsync()ed, read back and checked, then
 * renamed over it, keeping owner, mode, timestamps and extended
 * attributes when the target is the input.
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

#include "stamp-private.h"

/* Files from this size on are mapped rather than read and copied. */
#define MAP_THRESHOLD (1u << 20)

static int write_all(int fd, const uint8_t *p, size_t len) {
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return pn_error(-errno, "cannot write the temporary file: %s", strerror(errno));
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

static int read_all(int fd, uint8_t *p, size_t len, uint64_t off) {
        size_t done = 0;
        while (done < len) {
                ssize_t k = pread(fd, p + done, len - done, (off_t)(off + done));
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return pn_error(-errno, "read failed: %s", strerror(errno));
                if (k == 0)
                        return pn_error(-EIO, "file shrank while being read");
                done += (size_t)k;
        }
        return 0;
}

/* Copies every extended attribute (security.capability, ACLs, SELinux
 * labels, user.*) from SRC to DST.  Called after fchown(), which drops
 * security.capability. */
static int copy_xattrs(int src, int dst) {
        ssize_t n = flistxattr(src, NULL, 0);
        if (n < 0)
                return errno == ENOTSUP ? 0 : pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        if (n == 0)
                return 0;
        char *names = malloc((size_t)n), *value = NULL;
        if (!names)
                return pn_error(-ENOMEM, "out of memory");
        int r = 0;
        n = flistxattr(src, names, (size_t)n);
        if (n < 0)
                r = pn_error(-errno, "cannot list extended attributes: %s", strerror(errno));
        for (ssize_t i = 0; r == 0 && i < n; i += (ssize_t)strlen(names + i) + 1) {
                const char *name = names + i;
                ssize_t vl = fgetxattr(src, name, NULL, 0);
                char *v = vl > 0 ? realloc(value, (size_t)vl) : value;
                if (vl > 0 && !v) {
                        r = pn_error(-ENOMEM, "out of memory");
                        break;
                }
                value = v;
                if (vl < 0 || (vl > 0 && (vl = fgetxattr(src, name, value, (size_t)vl)) < 0))
                        r = pn_error(-errno, "cannot read extended attribute %s: %s", name, strerror(errno));
                else if (fsetxattr(dst, name, value, (size_t)vl, 0) < 0)
                        r = pn_error(-errno, "cannot keep extended attribute %s: %s", name, strerror(errno));
        }
        free(value);
        free(names);
        return r;
}

/* Reads the temporary file back as a reader would: its size, and the
 * library finds the note in it (or none after removal).  Only the
 * headers and the notes are read, not the whole file again. */
static int read_back(int fd, size_t len, const char *json) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return pn_error(-errno, "cannot stat the temporary file: %s", strerror(errno));
        if ((uint64_t)st.st_size != len)
                return pn_error(-EIO, "the temporary file has %llu bytes, not %zu", (unsigned long long)st.st_size, len);
        pkgnote_elf *e = NULL;
        pkgnote_info *info = NULL;
        int r = pkgnote_elf_open_fd(fd, &e);
        if (r == 0 && (r = pkgnote_info_read(e, &info)) == 0) {
                size_t n = pkgnote_info_package_count(info);
                if (json ? n == 0 || strcmp(pkgnote_info_package_json(info, 0), json) : n > 0 &&
                           pkgnote_info_package_note(info, 0)->where & PKGNOTE_NOTE_IN_SEGMENT)
                        r = pn_error(-EIO, "the temporary file does not hold the expected note");
        }
        if (r < 0 && r != -EIO)
                r = pn_error(-EIO, "the temporary file does not read back: %s", pkgnote_last_error());
        pkgnote_info_free(info);
        pkgnote_elf_free(e);
        return r;
}

/* Writes DATA to DEST through a temporary file beside it.  IN_PLACE: DEST
 * is the input (SRC, described by ST), whose owner, mode, extended
 * attributes and timestamps the new file takes; otherwise only the
 * permission bits. */
static int write_atomic(const char *dest, const uint8_t *data, size_t len, int src, const struct stat *st,
                        bool in_place, const char *json) {
        const char *slash = strrchr(dest, '/');
        size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0;
        const char *base = slash ? slash + 1 : dest;
        if (!*base)
                return pn_error(-EISDIR, "names a directory");
        size_t tlen = dirlen + strlen(base) + sizeof "..pkgnote-XXXXXX";
        char *tmp = malloc(tlen);
        if (!tmp)
                return pn_error(-ENOMEM, "out of memory");
        snprintf(tmp, tlen, "%.*s.%s.pkgnote-XXXXXX", (int)dirlen, dest, base);
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                int r = pn_error(-errno, "cannot create a temporary file beside it: %s", strerror(errno));
                free(tmp);
                return r;
        }
        int r = write_all(fd, data, len);
        if (r == 0 && in_place && fchown(fd, st->st_uid, st->st_gid) < 0)
                r = pn_error(-errno, "cannot keep the owner: %s", strerror(errno));
        if (r == 0 && fchmod(fd, in_place ? st->st_mode & 07777 : st->st_mode & 0777) < 0)
                r = pn_error(-errno, "cannot keep the mode: %s", strerror(errno));
        if (r == 0 && in_place)
                r = copy_xattrs(src, fd);
        if (r == 0 && fsync(fd) < 0)
                r = pn_error(-errno, "cannot sync the temporary file: %s", strerror(errno));
        if (r == 0)
                r = read_back(fd, len, json);
        if (r == 0 && in_place) {
                const struct timespec times[2] = {st->st_atim, st->st_mtim};
                if (futimens(fd, times) < 0)
                        r = pn_error(-errno, "cannot keep the timestamps: %s", strerror(errno));
        }
        if (close(fd) < 0 && r == 0)
                r = pn_error(-errno, "cannot write the temporary file: %s", strerror(errno));
        if (r == 0 && rename(tmp, dest) < 0)
                r = pn_error(-errno, "cannot rename the temporary file onto it: %s", strerror(errno));
        if (r < 0) {
                unlink(tmp);
                free(tmp);
                return r;
        }
        free(tmp);
        /* The directory is not synced: the new file's bytes are on disk
         * before the rename, so after a crash the name holds either the
         * old file or the whole new one, which is the promise; syncing the
         * directory too would double the cost of stamping small files. */
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_stamp_file(const char *path, const char *output, const char *json, unsigned flags,
                                      pkgnote_stamp_result *result) {
        if (!path)
                return pn_error(-EINVAL, "no file given");
        /* A symbolic link is followed: its target is what gets stamped. */
        char *target = realpath(path, NULL);
        if (!target)
                return pn_error(-errno, "cannot resolve: %s", strerror(errno));
        uint8_t *in = NULL, *out = NULL;
        size_t in_len = 0, out_len = 0;
        bool in_mapped = false, out_mapped = false;
        uint64_t out_cap = 0;
        int r, fd = open(target, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                r = pn_error(-errno, "cannot open: %s", strerror(errno));
                goto out;
        }
        struct stat st, ost;
        if (fstat(fd, &st) < 0) {
                r = pn_error(-errno, "cannot stat: %s", strerror(errno));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r = pn_error(-EINVAL, "not a regular file");
                goto out;
        }
        bool in_place = !output || !strcmp(output, path) ||
                        (stat(output, &ost) == 0 && ost.st_dev == st.st_dev && ost.st_ino == st.st_ino);
        if (in_place) {
                struct statvfs sv;
                if (fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
                        r = pn_error(-EROFS, "lies on a read-only file system");
                        goto out;
                }
                if (!(flags & PKGNOTE_STAMP_FORCE)) {
                        if (st.st_nlink > 1) {
                                r = pn_error(-EMLINK, "has %ju hard links; the other names would keep the unstamped file (force to stamp this name alone)",
                                             (uintmax_t)st.st_nlink);
                                goto out;
                        }
                        /* root may write anything: judge by the mode bits. */
                        if (geteuid() == 0 ? !(st.st_mode & 0222) : access(target, W_OK) < 0) {
                                r = pn_error(-EROFS, "is read-only (force to stamp it anyway)");
                                goto out;
                        }
                }
        }
        if ((uint64_t)st.st_size > SIZE_MAX - 1) {
                r = pn_error(-E2BIG, "too large to stamp here");
                goto out;
        }
        /* Large files are mapped, not copied: the result shares the
         * input's pages except those it changes.  (Truncating the file
         * while it is being stamped is then fatal, SIGBUS, as for any
         * program mapping it.) */
        in_len = (size_t)st.st_size;
        if (in_len >= MAP_THRESHOLD) {
                in = mmap(NULL, in_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
                if (in == MAP_FAILED)
                        in = NULL;
                else
                        in_mapped = true;
        }
        if (!in) {
                if (!(in = malloc(in_len ? in_len : 1))) {
                        r = pn_error(-ENOMEM, "out of memory");
                        goto out;
                }
                if ((r = read_all(fd, in, in_len, 0)) < 0)
                        goto out;
        }
        pkgnote_stamp_result res;
        if ((r = pn_stamp_run(in, in_len, json, flags, in_mapped ? fd : -1, &out, &out_len, &out_mapped, &out_cap, &res)) < 0)
                goto out;
        bool same = res.placement == PKGNOTE_PLACE_UNCHANGED || res.placement == PKGNOTE_PLACE_NONE;
        if (!(in_place && same)) {
                const char *dest = in_place ? target : output;
                r = write_atomic(dest, out, out_len, fd, &st, in_place,
                                 flags & PKGNOTE_STAMP_REMOVE ? NULL : json);
                if (r < 0)
                        goto out;
        }
        if (result)
                *result = res;
        r = 0;
out:
        if (fd >= 0)
                close(fd);
        if (in_mapped)
                munmap(in, in_len);
        else
                free(in);
        if (out)
                pn_stamp_release_buffer(out, out_cap, out_mapped);
        free(target);
        return r;
}
