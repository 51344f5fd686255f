/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the crash-group page (tools/list-html.c) with group documents:
 * it renders one or refuses it with a reason (-EBADMSG), never anything
 * else; a page starts and ends as one, names no script, and holds neither
 * a control byte (but the newline) nor a byte that is not UTF-8, whatever
 * strings the document carried.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fuzz-input.h"
#include "list-html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT (256u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *doc = fuzz_copy(data, size, MAX_INPUT);
        if (!doc)
                return 0;
        /* The same bytes as the modules' core report of the first group. */
        const char *cores[1] = {NULL};
        char *core = fuzz_string(data, size);
        cores[0] = core;
        char *page = NULL, why[256] = "";
        size_t len = 0;
        int r = list_html_render(doc, size, cores, 1, &page, &len, why, sizeof why);
        if (r == 0) {
                static const char head[] = "<!DOCTYPE html>\n", tail[] = "</html>\n";
                if (!page || strlen(page) != len || strncmp(page, head, sizeof head - 1) ||
                    len < sizeof tail - 1 || strcmp(page + len - (sizeof tail - 1), tail) || strstr(page, "<script"))
                        abort();
                for (size_t i = 0; i < len;) {
                        unsigned char c = (unsigned char)page[i];
                        if ((c < 0x20 && c != '\n') || c == 0x7f)
                                abort();
                        size_t n = c < 0x80 ? 1 : pn_utf8_char(page + i, len - i);
                        if (n == 0)
                                abort();
                        i += n;
                }
        } else if ((r != -EBADMSG || !why[0]) && r != -ENOMEM)
                abort();
        free(page);
        free(core);
        free(doc);
        return 0;
}
