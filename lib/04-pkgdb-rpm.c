/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rpm database read without rpm: rpmdb.sqlite (rpm 4.16 and later,
 * the default of Fedora 33+, RHEL 9, CBL-Mariner 2, openSUSE since 2021)
 * holds one header blob per installed package in its Packages table.
 * SQLite (libsqlite3.so.0) is loaded the first time a database is read,
 * and reads the file from memory: a database inside an image layer is
 * never written to disk, and one on disk is never opened for writing.
 *
 * A header blob is the header of an rpm file without its magic: the
 * number of index entries and the size of the data, both 32-bit big
 * endian, then the entries {tag, type, offset, count}, then the data.
 * Every offset and count is checked against the data before it is used.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "01-base.h"
#include "01-base-loader.h"
#include "04-pkgdb-private.h"

/* ------------------------------------------------------------ headers */

enum {
        RPM_INT32 = 4,
        RPM_STRING = 6,
        RPM_STRING_ARRAY = 8,
        RPM_I18NSTRING = 9,
};
enum {
        TAG_NAME = 1000,
        TAG_VERSION = 1001,
        TAG_RELEASE = 1002,
        TAG_EPOCH = 1003,
        TAG_LICENSE = 1014,
        TAG_ARCH = 1022,
        TAG_OLDFILENAMES = 1027,
        TAG_SOURCERPM = 1044,
        TAG_DIRINDEXES = 1116,
        TAG_BASENAMES = 1117,
        TAG_DIRNAMES = 1118,
};

/* rpm's own bounds on a header (headerImport()). */
#define MAX_INDEX 0xffffu
#define MAX_DATA (256u << 20)

struct hdr {
        const uint8_t *index, *data;
        uint32_t il, dl;
};

static uint32_t be32(const uint8_t *p) {
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The entry of TAG: its type, offset into the data and count; false
 * when there is none, or its offset lies outside the data. */
static bool hdr_entry(const struct hdr *h, uint32_t tag, uint32_t *type, uint32_t *off, uint32_t *count) {
        for (uint32_t i = 0; i < h->il; i++) {
                const uint8_t *e = h->index + 16 * (size_t)i;
                if (be32(e) != tag)
                        continue;
                *type = be32(e + 4);
                *off = be32(e + 8);
                *count = be32(e + 12);
                return *off < h->dl;
        }
        return false;
}

/* The N strings from OFF, each NUL-terminated inside the data, into V
 * (when not NULL): false when they run past it. */
static bool hdr_strings_at(const struct hdr *h, uint32_t off, uint32_t n, const char **v) {
        for (uint32_t i = 0; i < n; i++) {
                if (off >= h->dl)
                        return false;
                const uint8_t *nul = memchr(h->data + off, 0, h->dl - off);
                if (!nul)
                        return false;
                if (v)
                        v[i] = (const char *)h->data + off;
                off = (uint32_t)(nul - h->data) + 1;
        }
        return true;
}

/* The string of TAG (the first of an array or of translations), or NULL. */
static const char *hdr_string(const struct hdr *h, uint32_t tag) {
        uint32_t type, off, count;
        const char *s;
        if (!hdr_entry(h, tag, &type, &off, &count) ||
            (type != RPM_STRING && type != RPM_STRING_ARRAY && type != RPM_I18NSTRING) || count == 0 ||
            !hdr_strings_at(h, off, 1, &s))
                return NULL;
        return s;
}

/* The strings of the array TAG into *RET (malloc()ed pointers into the
 * data, *N of them): 1, 0 when there is no such array, -EBADMSG or
 * -ENOMEM. */
static int hdr_string_array(const struct hdr *h, uint32_t tag, const char ***ret, uint32_t *n) {
        uint32_t type, off, count;
        if (!hdr_entry(h, tag, &type, &off, &count))
                return 0;
        if (type != RPM_STRING_ARRAY || count > h->dl - off) /* each string takes a byte at least */
                return -EBADMSG;
        const char **v = malloc((count ? count : 1) * sizeof *v);
        if (!v)
                return -ENOMEM;
        if (!hdr_strings_at(h, off, count, v)) {
                free(v);
                return -EBADMSG;
        }
        *ret = v;
        *n = count;
        return 1;
}

/* The 32-bit integers of TAG: a pointer to the first (big endian) and
 * their number; 1, 0 when absent, -EBADMSG when out of the data. */
static int hdr_int32(const struct hdr *h, uint32_t tag, const uint8_t **ret, uint32_t *n) {
        uint32_t type, off, count;
        if (!hdr_entry(h, tag, &type, &off, &count))
                return 0;
        if (type != RPM_INT32 || count > (h->dl - off) / 4)
                return -EBADMSG;
        *ret = h->data + off;
        *n = count;
        return 1;
}

/* The package's files, from DIRNAMES, DIRINDEXES and BASENAMES (or the
 * OLDFILENAMES of rpm before 4.0), added to package PKG of DB. */
static int header_files(pn_pkgdb *db, const struct hdr *h, size_t pkg) {
        const char **base = NULL, **dirs = NULL;
        const uint8_t *idx = NULL;
        uint32_t nb = 0, nd = 0, ni = 0;
        int r = hdr_string_array(h, TAG_BASENAMES, &base, &nb);
        if (r == 0) {
                /* rpm before 4.0: whole paths. */
                const char **old = NULL;
                uint32_t no = 0;
                r = hdr_string_array(h, TAG_OLDFILENAMES, &old, &no);
                for (uint32_t i = 0; r > 0 && i < no; i++)
                        r = pn_pkgdb_add_file(db, old[i], strlen(old[i]), pkg) < 0 ? -ENOMEM : 1;
                free(old);
                return r < 0 ? r : 0;
        }
        if (r > 0)
                r = hdr_string_array(h, TAG_DIRNAMES, &dirs, &nd);
        if (r > 0)
                r = hdr_int32(h, TAG_DIRINDEXES, &idx, &ni);
        if (r == 0 || (r > 0 && ni != nb))
                r = -EBADMSG;
        char *path = NULL;
        size_t cap = 0;
        for (uint32_t i = 0; r > 0 && i < nb; i++) {
                uint32_t d = be32(idx + 4 * (size_t)i);
                if (d >= nd) {
                        r = -EBADMSG;
                        break;
                }
                size_t dl = strlen(dirs[d]), bl = strlen(base[i]);
                if (dl + bl + 1 > cap) {
                        cap = dl + bl + 1;
                        char *p = realloc(path, cap);
                        if (!p) {
                                r = -ENOMEM;
                                break;
                        }
                        path = p;
                }
                memcpy(path, dirs[d], dl);
                memcpy(path + dl, base[i], bl + 1);
                if (pn_pkgdb_add_file(db, path, dl + bl, pkg) < 0)
                        r = -ENOMEM;
        }
        free(path);
        free(base);
        free(dirs);
        return r < 0 ? r : 0;
}

int pn_pkgdb_add_rpm_header(pn_pkgdb *db, const void *blob, size_t len) {
        const uint8_t *b = blob;
        if (len < 8)
                return -EBADMSG;
        struct hdr h = {.il = be32(b), .dl = be32(b + 4)};
        if (h.il == 0 || h.il > MAX_INDEX || h.dl > MAX_DATA || 8 + 16 * (size_t)h.il + h.dl > len)
                return -EBADMSG;
        h.index = b + 8;
        h.data = h.index + 16 * (size_t)h.il;
        const char *name = hdr_string(&h, TAG_NAME), *version = hdr_string(&h, TAG_VERSION),
                   *release = hdr_string(&h, TAG_RELEASE), *arch = hdr_string(&h, TAG_ARCH),
                   *srpm = hdr_string(&h, TAG_SOURCERPM);
        if (!name || !version || !release)
                return -EBADMSG;
        if (!arch || !srpm)
                return 0; /* gpg-pubkey and other pseudo-packages: no files */
        const uint8_t *ep;
        uint32_t ne = 0;
        int r = hdr_int32(&h, TAG_EPOCH, &ep, &ne);
        if (r < 0)
                return r;
        /* Names and versions are short; anything longer is no package. */
        char evr[16 + 2 * 1024], vr[2 * 1024 + 2], nevra[1024 + sizeof evr + 1024 + 2];
        if (strlen(version) >= 1024 || strlen(release) >= 1024 || strlen(name) >= 1024 || strlen(arch) >= 1024)
                return -EBADMSG;
        snprintf(vr, sizeof vr, "%s-%s", version, release);
        if (r > 0 && ne > 0)
                snprintf(evr, sizeof evr, "%u:%s", be32(ep), vr);
        else
                snprintf(evr, sizeof evr, "%s", vr);
        snprintf(nevra, sizeof nevra, "%s-%s.%s", name, evr, arch);
        size_t pkg = pn_pkgdb_count(db);
        r = pn_pkgdb_add_rpm_package(db, nevra, name, evr, srpm, arch);
        if (r <= 0)
                return r; /* a package whose parts are not single lines is left out */
        /* The License tag as the packager wrote it (SPDX on Fedora since
         * 2022, older names elsewhere): not rewritten. */
        const char *license = hdr_string(&h, TAG_LICENSE);
        if (license && (r = pn_pkgdb_set_license(db, pkg, license, strlen(license))) < 0)
                return r;
        return header_files(db, &h, pkg);
}

/* ------------------------------------------------------------- SQLite */

/*
 * The database is untrusted: its schema is SQL that SQLite runs.  A
 * Packages that is a view over an endless recursive query, a trigger, a
 * generated column or a function named in the schema would otherwise
 * run as long as it likes.  So the connection is put in SQLite's
 * defensive mode (no views, no triggers, no untrusted functions in the
 * schema, no extensions), Packages must be a plain table, and every
 * statement runs under a budget of virtual-machine steps and of time,
 * checked by a progress handler that interrupts it.
 */

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

#define SQLITE_OK 0
#define SQLITE_INTERRUPT 9
#define SQLITE_ROW 100
#define SQLITE_DONE 101
#define SQLITE_OPEN_READWRITE 0x2
#define SQLITE_OPEN_CREATE 0x4
#define SQLITE_OPEN_MEMORY 0x80
#define SQLITE_OPEN_NOMUTEX 0x8000
#define SQLITE_DESERIALIZE_READONLY 4
#define SQLITE_LIMIT_LENGTH 0
#define SQLITE_DBCONFIG_ENABLE_TRIGGER 1003        /* SQLite 3.12 */
#define SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION 1005 /* 3.13 */
#define SQLITE_DBCONFIG_DEFENSIVE 1010             /* 3.26 */
#define SQLITE_DBCONFIG_ENABLE_VIEW 1015           /* 3.30 */
#define SQLITE_DBCONFIG_TRUSTED_SCHEMA 1017        /* 3.31 */

/* The progress handler runs every SQ_PROGRESS_OPS virtual-machine
 * instructions.  Reading a real table takes some 3 instructions a row,
 * 9 when it is sorted because hnum is not the rowid: at most 2.4 million
 * for PKGNOTE_MAX_DB_PACKAGES rows.  The budget allows a hundred times
 * that (some 3 seconds of a query that never ends), and a minute of
 * reading whatever the steps. */
#define SQ_PROGRESS_OPS 1000
#define SQ_MAX_STEPS (1000ull * PKGNOTE_MAX_DB_PACKAGES)
#define SQ_MAX_SECONDS 60
/* The longest blob that can be an rpm header (MAX_INDEX, MAX_DATA). */
#define SQ_MAX_BLOB (8 + 16 * MAX_INDEX + MAX_DATA)

static struct sq_api {
        int (*open_v2)(const char *, sqlite3 **, int, const char *);
        int (*deserialize)(sqlite3 *, const char *, unsigned char *, int64_t, int64_t, unsigned);
        int (*db_config)(sqlite3 *, int, ...);
        int (*limit)(sqlite3 *, int, int);
        void (*progress_handler)(sqlite3 *, int, int (*)(void *), void *);
        int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
        int (*step)(sqlite3_stmt *);
        const void *(*column_blob)(sqlite3_stmt *, int);
        int (*column_bytes)(sqlite3_stmt *, int);
        const unsigned char *(*column_text)(sqlite3_stmt *, int);
        int (*finalize)(sqlite3_stmt *);
        int (*close)(sqlite3 *);
        const char *(*errmsg)(sqlite3 *);
} sq;
static const struct pn_lib_symbol sq_symbols[] = {
        PN_LIB_SYMBOL_AS(struct sq_api, open_v2, "sqlite3_open_v2")
        PN_LIB_SYMBOL_AS(struct sq_api, deserialize, "sqlite3_deserialize")
        PN_LIB_SYMBOL_AS(struct sq_api, db_config, "sqlite3_db_config")
        PN_LIB_SYMBOL_AS(struct sq_api, limit, "sqlite3_limit")
        PN_LIB_SYMBOL_AS(struct sq_api, progress_handler, "sqlite3_progress_handler")
        PN_LIB_SYMBOL_AS(struct sq_api, prepare_v2, "sqlite3_prepare_v2")
        PN_LIB_SYMBOL_AS(struct sq_api, step, "sqlite3_step")
        PN_LIB_SYMBOL_AS(struct sq_api, column_blob, "sqlite3_column_blob")
        PN_LIB_SYMBOL_AS(struct sq_api, column_bytes, "sqlite3_column_bytes")
        PN_LIB_SYMBOL_AS(struct sq_api, column_text, "sqlite3_column_text")
        PN_LIB_SYMBOL_AS(struct sq_api, finalize, "sqlite3_finalize")
        PN_LIB_SYMBOL_AS(struct sq_api, close, "sqlite3_close")
        PN_LIB_SYMBOL_AS(struct sq_api, errmsg, "sqlite3_errmsg")
};
/* Always loadable: SQLite's headers are not needed to build. */
static struct pn_lib sq_lib = {
        PN_LIB_NOTE(ALWAYS, "rpmdb", "suggested", "Read rpm databases (rpmdb.sqlite) of scanned roots and images",
                    "libsqlite3.so.0"),
        .not_installed = "reading an rpm database needs SQLite (libsqlite3.so.0), which is not installed",
        .name = "libsqlite3.so.0",
        PN_LIB_SYMBOLS(sq_symbols, sq),
};

/* What SQLite may still spend on one database. */
struct sq_budget {
        uint64_t steps;
        struct timespec deadline;
        const char *over; /* "steps" or "time" once interrupted */
};

static int sq_progress(void *u) {
        struct sq_budget *b = u;
        struct timespec now;
        b->steps += SQ_PROGRESS_OPS;
        if (b->steps > SQ_MAX_STEPS)
                b->over = "steps";
        else if (clock_gettime(CLOCK_MONOTONIC, &now) == 0 &&
                 (now.tv_sec > b->deadline.tv_sec ||
                  (now.tv_sec == b->deadline.tv_sec && now.tv_nsec >= b->deadline.tv_nsec)))
                b->over = "time";
        return b->over != NULL; /* non-zero interrupts the statement */
}

/* Defensive settings and the budget, before the schema is first read.
 * An older SQLite that lacks one of the options refuses it; the checks
 * that follow (a plain table, the budget) hold without it. */
static void sq_harden(sqlite3 *sdb, struct sq_budget *b) {
        static const int off[] = {SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
                                  SQLITE_DBCONFIG_ENABLE_VIEW, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
        (void)sq.db_config(sdb, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
        for (size_t i = 0; i < ELEMENTSOF(off); i++)
                (void)sq.db_config(sdb, off[i], 0, (int *)NULL);
        (void)sq.limit(sdb, SQLITE_LIMIT_LENGTH, SQ_MAX_BLOB);
        if (clock_gettime(CLOCK_MONOTONIC, &b->deadline) < 0)
                b->deadline = (struct timespec){0};
        b->deadline.tv_sec += SQ_MAX_SECONDS;
        sq.progress_handler(sdb, SQ_PROGRESS_OPS, sq_progress, b);
}

/* The error of a statement that did not succeed (K from step or prepare). */
static int sq_fail(sqlite3 *sdb, int k, const struct sq_budget *b) {
        if (k == SQLITE_INTERRUPT && b->over && !strcmp(b->over, "time"))
                return pn_error(-E2BIG, "reading the rpm database took more than %d seconds, abandoned", SQ_MAX_SECONDS);
        if (k == SQLITE_INTERRUPT && b->over)
                return pn_error(-E2BIG, "reading the rpm database took more than %llu SQLite steps, abandoned",
                                (unsigned long long)SQ_MAX_STEPS);
        return pn_error(-EBADMSG, "SQLite: %s", sq.errmsg(sdb));
}

/* 0 when the Packages of the schema is a plain table: not a view, not a
 * virtual table.  SQLite builds each object from the SQL text kept in
 * sqlite_master, which it writes as "CREATE TABLE name..." for a table;
 * the type column alone could lie. */
static int sq_check_table(sqlite3 *sdb, struct sq_budget *b) {
        sqlite3_stmt *st = NULL;
        int k = sq.prepare_v2(sdb,
                              "SELECT type, sql FROM main.sqlite_master WHERE name = 'Packages' COLLATE NOCASE "
                              "AND type IN ('table', 'view')",
                              -1, &st, NULL);
        if (k != SQLITE_OK)
                return sq_fail(sdb, k, b);
        int r = 0, rows = 0;
        bool table = false;
        while (r == 0 && (k = sq.step(st)) == SQLITE_ROW) {
                const char *type = (const char *)sq.column_text(st, 0), *sql = (const char *)sq.column_text(st, 1);
                rows++;
                table = type && sql && !strcmp(type, "table") && !strncmp(sql, "CREATE TABLE ", 13);
        }
        if (k != SQLITE_DONE)
                r = sq_fail(sdb, k, b);
        else if (rows == 0)
                r = pn_error(-EBADMSG, "not an rpm database: no Packages table");
        else if (rows > 1 || !table)
                r = pn_error(-EBADMSG, "not an rpm database: Packages is a view or a virtual table, not a plain table");
        sq.finalize(st);
        return r;
}

int pn_pkgdb_rpm_sqlite(void *data, size_t len, pn_pkgdb **ret) {
        uint8_t *d = data;
        if (len < 100 || memcmp(d, "SQLite format 3", 16))
                return pn_error(-EBADMSG, "not an SQLite database");
        if ((uint64_t)len > INT64_MAX / 2)
                return pn_error(-E2BIG, "database too large");
        int lr = pn_lib_load(&sq_lib);
        if (lr < 0)
                return lr;
        /* A database in WAL mode (rpm's choice) says so in bytes 18 and
         * 19; an in-memory copy cannot have a log, so it is read as the
         * rollback-journal database it is once the log is checkpointed. */
        if (d[18] == 2 && d[19] == 2)
                d[18] = d[19] = 1;
        sqlite3 *sdb = NULL;
        sqlite3_stmt *st = NULL;
        struct sq_budget budget = {0};
        pn_pkgdb *db = pn_pkgdb_new("rpm");
        int r = db ? 0 : -ENOMEM;
        if (r == 0 && sq.open_v2(":memory:", &sdb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX,
                                 NULL) != SQLITE_OK)
                r = sdb ? pn_error(-EIO, "SQLite: %s", sq.errmsg(sdb)) : -ENOMEM;
        if (r == 0)
                sq_harden(sdb, &budget);
        if (r == 0 && sq.deserialize(sdb, "main", d, (int64_t)len, (int64_t)len, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
                r = pn_error(-EBADMSG, "SQLite: %s", sq.errmsg(sdb));
        if (r == 0)
                r = sq_check_table(sdb, &budget);
        int k;
        if (r == 0 && (k = sq.prepare_v2(sdb, "SELECT blob FROM main.Packages ORDER BY hnum", -1, &st, NULL)) != SQLITE_OK)
                r = k == SQLITE_INTERRUPT ? sq_fail(sdb, k, &budget)
                                          : pn_error(-EBADMSG, "not an rpm database: %s", sq.errmsg(sdb));
        size_t bad = 0, rows = 0;
        while (r == 0) {
                k = sq.step(st);
                if (k == SQLITE_DONE)
                        break;
                if (k != SQLITE_ROW) {
                        r = sq_fail(sdb, k, &budget);
                        break;
                }
                if (++rows > PKGNOTE_MAX_DB_PACKAGES) {
                        r = pn_error(-E2BIG, "the rpm database has more than %u packages (PKGNOTE_MAX_DB_PACKAGES), not read",
                                     PKGNOTE_MAX_DB_PACKAGES);
                        break;
                }
                const void *blob = sq.column_blob(st, 0);
                int n = sq.column_bytes(st, 0);
                int e = blob && n > 0 ? pn_pkgdb_add_rpm_header(db, blob, (size_t)n) : -EBADMSG;
                if (e == -ENOMEM)
                        r = pn_oom();
                else if (e < 0)
                        bad++;
        }
        if (st)
                sq.finalize(st);
        if (sdb)
                sq.close(sdb);
        if (r == 0 && bad)
                pn_pkgdb_set_damaged(db, bad);
        return pn_pkgdb_seal(db, r, ret);
}
