/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#if HAVE_LIBARCHIVE
/* The table below names the real functions, not 09-scan-archive-dl.h's macros. */
#define PN_ARCHIVE_NO_CALL_MACROS
#include "01-base-loader.h"

#include "09-scan-archive-dl.h"

struct pn_archive_api pn_archive_api;

static const struct pn_lib_symbol symbols[] = {
#define SYMBOL(f) PN_LIB_SYMBOL(struct pn_archive_api, f)
        PN_ARCHIVE_FUNCS(SYMBOL)
#undef SYMBOL
};

static struct pn_lib lib = {
        PN_LIB_NOTE(HAVE_LIBARCHIVE, "archive", "recommended",
                    "Read packages, images and archives (.deb, .rpm, initramfs, tar)", "libarchive.so.13"),
        .not_installed = "libarchive (libarchive.so.13) is not installed",
        .name = "libarchive",
        PN_LIB_SYMBOLS(symbols, pn_archive_api),
};

int pn_archive_load(void) {
        return pn_lib_load(&lib);
}
#endif
