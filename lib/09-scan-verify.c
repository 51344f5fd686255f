/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * deps --verify's artefacts that the scan's readers read (its file tree
 * is lib/07-check-artefact.c's, the check lib/07-check-verify.c's): a
 * tar archive of a root file system (any compression), a docker-save
 * archive, an OCI image layout (a directory, or its tar) and a SquashFS
 * image.  They go through the scan's own readers and its merge of image
 * layers (whiteouts and opaque directories applied), the scan keeping
 * each ELF file whole and handing the merged tree over instead of
 * inventorying it (09-scan-layers.c).  Everything else (a directory, an
 * initramfs, a PE image) is pn_artefact_open()'s.
 *
 * What a path is: a reference ("oci:DIR[:TAG]", "oci-archive:FILE[:TAG]",
 * "docker-archive:FILE[:REPO:TAG|:@N]") is an image; a directory holding
 * "oci-layout" and "index.json" is an OCI layout (as scan decides); a
 * file beginning as SquashFS is one; a file that is a tar (its "ustar"
 * magic, after decompression when it is compressed) goes to the scan's
 * archive reader, which tells a plain root file system from an image.
 * An image of several (a layout with several tags, a docker archive of
 * several images) must be named, as scan's references name them; of a
 * multi-platform image this machine's platform is taken, as scan does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "01-base-decompress.h"
#include "07-check-artefact.h"
#include "07-check-verify.h"
#include "09-scan-private.h"

#define VERIFY_HEAD (64u << 10)

static bool tar_magic(const uint8_t *p, size_t n) {
        return n >= 262 && !memcmp(p + 257, "ustar", 5);
}

/* What the regular file FD begins as: PN_ARTEFACT_TAR, _SQUASHFS, or 0
 * (pn_artefact_open()'s: an initramfs, a PE image, or nothing known,
 * then *UNKNOWN). */
static int file_kind(int fd, bool *unknown) {
        uint8_t *head = malloc(VERIFY_HEAD), out[512];
        if (!head)
                return pn_oom();
        ssize_t n = pread(fd, head, VERIFY_HEAD, 0);
        int kind = 0;
        if (n < 0)
                kind = pn_error(-errno, "cannot read: %m");
        else if (n >= 4 && !memcmp(head, "hsqs", 4))
                kind = PN_ARTEFACT_SQUASHFS;
        else if (tar_magic(head, (size_t)n) || (n >= 4 && !memcmp(head, "BZh", 3) && head[3] >= '1' && head[3] <= '9'))
                kind = PN_ARTEFACT_TAR; /* bzip2: no initramfs read here, so a tar for libarchive to try */
        else {
                int codec = pn_codec_detect(head, (size_t)n, ~0u);
                ssize_t k = codec != PN_CODEC_NONE ? pn_decode_prefix(codec, head, (size_t)n, out, sizeof out) : -1;
                if (k > 0 && tar_magic(out, (size_t)k))
                        kind = PN_ARTEFACT_TAR;
                *unknown = codec == PN_CODEC_NONE && (n < 5 || memcmp(head, "07070", 5) != 0) &&
                           (n < 2 || memcmp(head, "MZ", 2) != 0);
        }
        free(head);
        return kind;
}

/* The artefact of the scan S filled from the file or directory FD, whose
 * kind is KIND: the kind it turned out to be, or a negative errno. */
static int scan_read(pkgnote_scan *s, int fd, int kind, const char *display) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return pn_error(-errno, "cannot stat: %m");
        if (S_ISDIR(st.st_mode)) {
#if HAVE_LIBARCHIVE
                int r = pn_scan_oci_dir(s, 0, fd, display);
                return r < 0 ? r : PN_ARTEFACT_IMAGE;
#else
                return pn_error(-EOPNOTSUPP, "an OCI image layout, which this pkgnote cannot read: it was built without libarchive");
#endif
        }
        uint8_t head[PN_SCAN_HEAD];
        ssize_t n = pread(fd, head, sizeof head, 0);
        if (n < 0)
                return pn_error(-errno, "cannot read: %m");
        const struct pn_scan_format *f = pn_scan_format_bid(head, (size_t)n, PN_AT_INPUT, false);
        if (!f || pn_scan_format_is_elf(f)) {
                /* compressed in a way this build reads no tar of (bzip2
                 * without libarchive): the initramfs reader says what it is */
                if (kind == PN_ARTEFACT_TAR && !tar_magic(head, (size_t)n))
                        return -ENOEXEC;
                return pn_error(-EBADMSG, "neither a tar archive nor a SquashFS image");
        }
        struct pn_scan_place pl = {.at = PN_AT_INPUT, .path = display, .display = display, .st = &st};
        int r = pn_scan_format_read(s, f, 0, fd, &pl);
        if (r == -ENOEXEC && kind == PN_ARTEFACT_TAR && n >= 262 && !tar_magic(head, (size_t)n))
                return r; /* compressed, and no tar inside after all */
        if (r == -ENOEXEC)
                return pn_error(-EBADMSG, "not a tar archive: %s", pkgnote_last_error());
        if (r < 0)
                return r;
        if (kind == PN_ARTEFACT_SQUASHFS)
                return kind;
        return r == PKGNOTE_SCAN_INPUT_DOCKER || r == PKGNOTE_SCAN_INPUT_OCI ? PN_ARTEFACT_IMAGE : PN_ARTEFACT_TAR;
}

/* More than one image merged: which there are, to name one. */
static int several(const pkgnote_scan *s) {
        struct pn_text t = {0};
        for (size_t i = 0; i < s->n_images; i++)
                pn_text_add(&t, "%s%s", i ? ", " : "", s->images[i]->reference ? s->images[i]->reference : "?");
        char *list = NULL;
        if (pn_text_finish(&t, &list) < 0)
                return pn_oom();
        int r = pn_error(-EINVAL, "holds %zu images, one artefact each: name one (%s)", s->n_images, list);
        free(list);
        return r;
}

static int open_artefact(void *u, const char *path, struct pn_problems *problems, struct pn_artefact **ret) {
        (void)u;
        struct pn_image_sel sel = {.index = -1};
        char *file = NULL;
        int r = pn_image_ref_parse(path, &file, &sel);
        if (r < 0)
                return r;
        if (r > 0 && sel.transport == PN_IMAGE_STORAGE) {
                free(file);
                return pn_error(-EINVAL, "a container store is no artefact: save the image (podman save) and verify the archive");
        }
        const char *at = file ? file : path;
        int fd = open(at, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                r = pn_error(-errno, "cannot open: %m");
                if (fd >= 0)
                        close(fd);
                free(file);
                return r;
        }
        int kind = 0;
        bool unknown = false;
        if (file)
                kind = PN_ARTEFACT_IMAGE;
        else if (S_ISDIR(st.st_mode)) {
                struct stat l1, l2;
                if (fstatat(fd, "oci-layout", &l1, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l1.st_mode) &&
                    fstatat(fd, "index.json", &l2, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(l2.st_mode))
                        kind = PN_ARTEFACT_IMAGE;
        } else if (S_ISREG(st.st_mode))
                kind = file_kind(fd, &unknown);
        if (kind <= 0) {
                close(fd);
                free(file);
                if (kind < 0)
                        return kind;
                r = pn_artefact_open(path, problems, ret);
                if (r == -EBADMSG && unknown)
                        /* Nothing in it said what it is: all that was tried. */
                        r = pn_error(r, "neither a tar archive, an image, a SquashFS image nor an initramfs");
                return r;
        }
        pkgnote_scan_options o = PKGNOTE_SCAN_OPTIONS_INIT;
        o.threads = 1;
        o.max_bytes = PN_ARTEFACT_MAX_DECODED;
        o.flags = PKGNOTE_SCAN_DEPENDENCIES; /* the links' texts kept */
        pkgnote_scan *s = NULL;
        struct pn_artefact *a = NULL;
        if ((r = pkgnote_scan_new(&o, &s)) < 0 || (r = pn_artefact_new(kind, problems, &a)) < 0)
                goto out;
        s->sel = sel;
        s->sel.path = at;
        s->artefact = a;
        r = scan_read(s, fd, kind, path);
        if (r == -ENOEXEC) {
                /* Compressed (bzip2) but no tar inside: an initramfs maybe. */
                close(fd);
                fd = -1;
                s->artefact = NULL;
                pn_artefact_free(a);
                a = NULL;
                r = pn_artefact_open(path, problems, &a);
                goto out;
        }
        if (r >= 0 && (s->merges > 1 || s->n_images > 1))
                r = several(s);
        if (r >= 0) {
                pn_artefact_set_kind(a, r);
                r = pn_problems_append(problems, PKGNOTE_MAX_PROBLEMS, &s->problems) < 0 ? pn_oom() : 0;
        }
out:
        if (fd >= 0)
                close(fd);
        if (s)
                s->artefact = NULL;
        pkgnote_scan_free(s);
        free(file);
        if (r < 0) {
                pn_artefact_free(a);
                return r;
        }
        *ret = a;
        return 0;
}

PKGNOTE_PUBLIC int pkgnote_verify_new(const char *path, pkgnote_verify **ret) {
        return pn_verify_new_with(path, open_artefact, NULL, ret);
}
