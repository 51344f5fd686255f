/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SHA-1 (FIPS 180-4 6.1) and SHA-256 (6.2), computed together (lib/01-base-hash.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pn_sums {
        uint32_t h1[5], h2[8];
        uint8_t buf[64];
        size_t n;
        uint64_t len;
};

void pn_sums_init(struct pn_sums *s);
void pn_sums_update(struct pn_sums *s, const void *data, size_t len);
/* Pads S (which is spent afterwards) and writes both digests in hex. */
void pn_sums_final(struct pn_sums *s, char sha1[41], char sha256[65]);
/* Whether the LEN bytes at DATA have DIGEST, "sha256:HEX" (false for
 * another algorithm). */
bool pn_sha256_is(const void *data, size_t len, const char *digest);
