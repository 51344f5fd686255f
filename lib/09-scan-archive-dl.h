/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libarchive, loaded with dlopen() the first time an archive is scanned.
 * Linking it would make every start of pkgnote load it and its own
 * dependencies (libxml2, ICU, libstdc++, ...), which costs more than
 * reading hundreds of files.  Include after <archive.h> and
 * <archive_entry.h>: the calls below then go through the loaded table.
 */
#ifndef PKGNOTE_ARCHIVE_DL_H
#define PKGNOTE_ARCHIVE_DL_H

#include <archive.h>
#include <archive_entry.h>

#define PN_ARCHIVE_FUNCS(X)                                                                         \
        X(archive_entry_filetype) X(archive_entry_free) X(archive_entry_hardlink) X(archive_entry_new) \
        X(archive_entry_pathname)                                                                   \
        X(archive_entry_size) X(archive_entry_size_is_set) X(archive_entry_sparse_count)            \
        X(archive_entry_symlink)                                                                    \
        X(archive_error_string) X(archive_filter_bytes) X(archive_filter_code)                      \
        X(archive_filter_count) X(archive_read_data) X(archive_read_data_block) X(archive_read_free) X(archive_read_new)       \
        X(archive_read_next_header2) X(archive_read_open2) X(archive_read_open_fd)                  \
        X(archive_read_support_filter_all) X(archive_read_support_format_cpio)                      \
        X(archive_read_support_format_tar) X(archive_set_error) X(archive_read_support_format_ar)   \
        X(archive_read_support_format_zip) X(archive_read_support_format_iso9660)                   \
        X(archive_read_set_options) X(archive_format)

/* The functions, filled by the loader (lib/01-base-loader.c). */
struct pn_archive_api {
#define PN_ARCHIVE_FIELD(f) __typeof__(f) *f;
        PN_ARCHIVE_FUNCS(PN_ARCHIVE_FIELD)
#undef PN_ARCHIVE_FIELD
};
extern struct pn_archive_api pn_archive_api;

/* Loads libarchive once (thread-safe): 0, or -EOPNOTSUPP with pn_error
 * set when it is not installed.  Call before any archive_* function. */
int pn_archive_load(void);

#ifndef PN_ARCHIVE_NO_CALL_MACROS
#define archive_entry_filetype pn_archive_api.archive_entry_filetype
#define archive_entry_free pn_archive_api.archive_entry_free
#define archive_entry_hardlink pn_archive_api.archive_entry_hardlink
#define archive_entry_new pn_archive_api.archive_entry_new
#define archive_entry_pathname pn_archive_api.archive_entry_pathname
#define archive_entry_size pn_archive_api.archive_entry_size
#define archive_entry_size_is_set pn_archive_api.archive_entry_size_is_set
#define archive_entry_sparse_count pn_archive_api.archive_entry_sparse_count
#define archive_entry_symlink pn_archive_api.archive_entry_symlink
#define archive_error_string pn_archive_api.archive_error_string
#define archive_filter_bytes pn_archive_api.archive_filter_bytes
#define archive_filter_code pn_archive_api.archive_filter_code
#define archive_filter_count pn_archive_api.archive_filter_count
#define archive_read_data pn_archive_api.archive_read_data
#define archive_read_data_block pn_archive_api.archive_read_data_block
#define archive_read_free pn_archive_api.archive_read_free
#define archive_read_new pn_archive_api.archive_read_new
#define archive_read_next_header2 pn_archive_api.archive_read_next_header2
#define archive_read_open2 pn_archive_api.archive_read_open2
#define archive_read_open_fd pn_archive_api.archive_read_open_fd
#define archive_read_support_filter_all pn_archive_api.archive_read_support_filter_all
#define archive_read_support_format_cpio pn_archive_api.archive_read_support_format_cpio
#define archive_read_support_format_tar pn_archive_api.archive_read_support_format_tar
#define archive_set_error pn_archive_api.archive_set_error
#define archive_read_support_format_ar pn_archive_api.archive_read_support_format_ar
#define archive_read_support_format_zip pn_archive_api.archive_read_support_format_zip
#define archive_read_support_format_iso9660 pn_archive_api.archive_read_support_format_iso9660
#define archive_read_set_options pn_archive_api.archive_read_set_options
#define archive_format pn_archive_api.archive_format
#endif

#endif
