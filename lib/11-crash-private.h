/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pkgnote-coredump's store (lib/11-crash.c): how its writer names and
 * vacuums entries.  Readers use the public pkgnote_crashes_* API. */
#pragma once

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <stdbool.h>

#include "config.h"
#include "pkgnote.h"
#include "01-base-dir.h"
#include "01-base-problem.h"
#include "11-crash-journal-dl.h"
#include "machine.h"

#define PN_CRASH_DEFAULT_DIR "/var/lib/pkgnote/coredump"
#if HAVE_ZSTD
#define PN_CRASH_CORE_SUFFIX ".zst"
#else
#define PN_CRASH_CORE_SUFFIX ""
#endif
#define PN_CRASH_REPORT_SUFFIX ".json"

/* The longest entry name a store lists (core.COMM.UID.PID.TIME, COMM
 * at most 31 bytes, is far shorter); a longer one is no entry. */
#define PN_CRASH_MAX_NAME 255u

/* What an entry's file name says: core.COMM.UID.PID.TIME followed by the
 * report's suffix (.json) or the core's (PN_CRASH_CORE_SUFFIX). */
struct pn_crash_name {
        char entry[PN_CRASH_MAX_NAME + 1]; /* the name without its suffix */
        uint64_t uid, pid, time;
        bool report;                       /* the report's name, else the core's */
};
/* A decimal number of LEN bytes, no sign or blank, at most MAX: 0 or -EBADMSG. */
int pn_crash_parse_number(const char *s, size_t len, uint64_t max, uint64_t *ret);
/* Parses NAME strictly (COMM of [A-Za-z0-9_-], numbers without sign or
 * leading zero, the UID and PID within 32 bits): 0 or -EBADMSG. */
int pn_crash_parse_name(const char *name, struct pn_crash_name *ret);

/* OVERRIDE when given, else $PKGNOTE_COREDUMP_DIR, else the default. */
const char *pn_crash_dir(const char *override);
/* "core.COMM.UID.PID.TIME" with COMM reduced to [A-Za-z0-9_-]. */
void pn_crash_entry_name(char *buf, size_t len, const char *comm, int uid, int pid, int64_t time);
/* The report: pkgnote core --json with "time", "hostname", "coreFile",
 * "bootId", "machineId", this machine's running "kernel" (its own notes,
 * when they can be read), and the stack trace when ST is not
 * NULL, as one line (malloc()ed into *RET).  0 or a negative errno. */
int pn_crash_report_text(const pkgnote_core *c, const pkgnote_stack *st, int64_t time, const char *host,
                         const char *core_path, char **ret);
/* Under the store's lock: removes stale temporaries and half-made
 * entries of killed handlers, reports without their core, then whole
 * entries, oldest first, until the directory DIRFD holds at most MAX_USE
 * bytes or MAX_REMOVE entries went; never the entry named KEEP, nor one
 * still being written.  Returns the number of whole entries removed. */
int pn_crash_enforce_limits(int dirfd, uint64_t max_use, const char *keep, size_t max_remove);

/* ------------------------------------------------------------ reading */

struct pn_crash_store;

/* What the stores of one pkgnote_crashes_load() share: the files of a
 * store that another store's entries name (systemd-coredump's journal
 * entries, its store's files), so the store lists them once. */
struct pn_crash_load {
        char **claimed; /* base names, malloc()ed */
        size_t n_claimed, cap_claimed;
};


struct pkgnote_crash {
        int store;
        char *id;       /* unique in its store: an entry's or file's name, a journal cursor */
        char *core;     /* the core file's path, or NULL when it is gone or inline */
        json_t *j;      /* the record: what the store knows of the crash */
        int64_t time;   /* seconds since the epoch */
        int core_state; /* PKGNOTE_CRASH_CORE_* */
        const struct pkgnote_crashes *list; /* the journal it came from, for an inline core */
        /* A journal entry: logged by pkgnote-coredump as root (_UID 0, its
         * _COMM if any and SYSLOG_IDENTIFIER pkgnote-coredump), the only
         * kind that may be merged into an entry of pkgnote's store. */
        bool pkgnote_handler;
        const struct pn_crash_store *row; /* its store's row of the table */
        /* J holds only what a listing reads; the rest is read on first
         * use (pn_crash_record()), by the row's fill. */
        bool partial;
        /* Its signature was refused, and that said as a problem of its list. */
        bool signature_said;
};

/* The stores' crashes, as pkgnote_crashes_load() holds them or
 * pkgnote_crashes_open() hands them out one at a time. */
struct pn_crash_stream {
        bool on;                  /* a stream: count() 0, get() NULL */
        int phase;                /* 0 pkgnote's store, 1 the journal, 2 its entries, 3 systemd's store, 4 the end */
        size_t pos;               /* the next of c[] in phases 2 and 3 */
        bool merge;               /* pkgnote's store and its journal copies both read */
        unsigned want;            /* the stores read */
        pkgnote_crash_options o;  /* the caller's, strings copied below */
        pkgnote_crash_options all; /* O without match and time range when merging */
        char *match, *pkgnote_dir, *systemd_dir, *journal_dir;
        char **journal_files;     /* NULL-terminated, or NULL */
        struct pkgnote_crash cur; /* the journal's crash handed out last */
        struct pn_crash_load ld;
};

struct pkgnote_crashes {
        struct pkgnote_crash *c;
        size_t n, cap;
        struct pn_problems problems;
        /* What the journal was opened from, to open it again for an
         * inline core: copies of the options. */
        char *systemd_dir, *journal_dir;
        char **journal_files; /* NULL-terminated, or NULL */
        bool options_kept;    /* the above set, once for every store that needs them */
        /* The journal being read, kept open for reading the rest of a
         * crash's fields later (pn_crash_record()); NULL before and when
         * it cannot be opened. */
        sd_journal *jr;
        int store_dfd;        /* systemd's store directory while the journal is read, or -1 */
        bool journal_started, journal_done;
        size_t foreign;       /* entries with the crash MESSAGE_ID not from a handler */
        int64_t handler_uid;
        char machine_id[33];  /* this machine's /etc/machine-id, "" unknown */
        char hostname[256];   /* this machine's, "" unknown */
        bool machine_read;
        struct pn_crash_stream s;
};

/* The crash's whole record, its remaining fields read first when C is
 * partial (C's list keeps the journal open for that); C's J as it then
 * is.  Not thread-safe on one list, like every reading of it. */
json_t *pn_crash_record(const struct pkgnote_crash *c);
/* The string FIELD of C's record, read from the store when C is partial
 * and its listing lacks it. */
const char *pn_crash_string(const struct pkgnote_crash *c, const char *field);
/* Sets "machineId" and "hostname" of this machine (read once per list L)
 * into the record J of one of its own stores, where J lacks them: 0 or
 * -ENOMEM. */
int pn_crash_this_machine(pkgnote_crashes *l, json_t *j);
/* This machine's ID (/etc/machine-id, read once per list L), or NULL. */
const char *pn_crash_machine_id(pkgnote_crashes *l);

/* Appends *C to L when it passes O's match and time range, else clears
 * it; either way *C is L's or gone.  0 or -ENOMEM (pn_error set). */
int pn_crashes_add(pkgnote_crashes *l, struct pkgnote_crash *c, const pkgnote_crash_options *o);
/* Whether C passes O's match and time range. */
bool pn_crash_wanted(const struct pkgnote_crash *c, const pkgnote_crash_options *o);
/* Whether the journal entry J is the one pkgnote-coredump logged for the
 * entry S of pkgnote's store: logged by pkgnote-coredump as root, naming
 * S's core file by its name (the directory is not compared: the store may
 * be read from elsewhere; the path is never opened), with S's PID, UID and
 * time, and S's boot where S's report records one. */
bool pn_crash_journal_names(const struct pkgnote_crash *s, const struct pkgnote_crash *j);
void pn_crash_clear(struct pkgnote_crash *c);
/* Opens a store's directory DIR for listing: a descriptor of it in
 * *RET_DFD (for opening entries below it) and its listing in *RET_DIR
 * (lib/01-base-dir.h), both the caller's to close.  0 with *RET_DFD -1 when
 * DIR does not exist and was not NAMED by the caller (a store the machine lacks holds
 * no crash); else 0, or a negative errno with pn_error() set. */
int pn_crash_dir_open(const char *dir, bool named, int *ret_dfd, struct pn_dir *ret_dir);

/* ---------------------------------------------------- the store table */

/* One crash store, one row of operations.  The table (lib/11-crash-list.c)
 * lists the rows in the order they load: a store whose entries name
 * another's files before that one.  Another collector's store (apport's
 * /var/crash, ABRT's problem directories) is a file with its row and
 * one line in the table. */
struct pn_crash_store {
        unsigned bit;     /* PKGNOTE_CRASH_STORE_* */
        const char *name; /* pkgnote_crash_store_name() */
        /* Whether O says where the store is (its directory, journal
         * files): then, as when O->stores names its bit, the store must be
         * readable; else one the machine lacks holds no crash.  NULL: O
         * cannot say. */
        bool (*located)(const pkgnote_crash_options *o);
        /* Adds the store's crashes that O keeps to L (NAMED: as above).
         * 0, or a negative errno with pn_error set. */
        int (*load)(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named, struct pn_crash_load *ld);
        /* A store read one crash at a time (a journal of any size): the
         * next crash into *RET, unfiltered: 1, 0 at the end, or a negative
         * errno with pn_error set.  NULL: the store only loads whole. */
        int (*next)(pkgnote_crashes *l, const pkgnote_crash_options *o, bool named, struct pn_crash_load *ld,
                    struct pkgnote_crash *ret);
        /* Reads the rest of a partial crash's record: 0 or a negative errno. */
        int (*fill)(struct pkgnote_crash *c);
        /* Opens the core of C, a crash of the store. */
        int (*open)(const pkgnote_crash *c, const pkgnote_core_options *o, pkgnote_core **ret);
        /* Whether C, a crash of the store, is of PID as the crash handler
         * was given it (beside the record's "pid" and COREDUMP_PID); NULL:
         * only those. */
        bool (*names_pid)(const struct pkgnote_crash *c, long long pid);
        /* The stores that log a copy of each of this store's crashes
         * (bits), and how the copies are merged into its own entries
         * when both are loaded: 0 or a negative errno with pn_error set. */
        unsigned copies_in;
        int (*merge)(pkgnote_crashes *l);
        /* Merges the copy J (of a copies_in store) into the entry of L's
         * crashes it names: 1 merged (J cleared), 0 none names it. */
        int (*merge_one)(pkgnote_crashes *l, struct pkgnote_crash *j);
};

/* The rows: lib/11-crash.c (pkgnote-coredump's store), lib/11-crash-systemd.c
 * (systemd-coredump's journal and store). */
extern const struct pn_crash_store pn_crash_store_pkgnote, pn_crash_store_journal, pn_crash_store_systemd;
