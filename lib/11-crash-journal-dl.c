/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libsystemd's sd-journal functions (lib/11-crash-journal-dl.h), through the one
 * loader of optional libraries (lib/01-base-loader.h), feature "journal". */
#include "11-crash-journal-dl.h"
#include "01-base-loader.h"

struct pn_journal_api pn_journal_api;

#define PN_JOURNAL_SYMBOL(ret, name, args) PN_LIB_SYMBOL(struct pn_journal_api, name)
static const struct pn_lib_symbol journal_symbols[] = {PN_JOURNAL_FUNCS(PN_JOURNAL_SYMBOL)};
#undef PN_JOURNAL_SYMBOL

/* Always loadable: libsystemd's headers are not needed to build. */
static struct pn_lib journal_lib = {
        PN_LIB_NOTE(ALWAYS, "journal", "suggested", "List and open systemd-coredump crashes recorded in the journal",
                    "libsystemd.so.0"),
        .not_installed = "libsystemd (libsystemd.so.0) is not installed: the journal cannot be read",
        .name = "libsystemd",
        PN_LIB_SYMBOLS(journal_symbols, pn_journal_api),
};

int pn_journal_load(void) {
        return pn_lib_load(&journal_lib);
}
