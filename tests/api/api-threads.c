/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The thread-safety include/pkgnote.h claims, through the public API of
 * the shared library: pkgnote_last_error() is per thread; one summary,
 * one process object and one scan are read by several threads at once
 * through their const accessors (the scan's package index built on first
 * use by all of them together), and each thread gets what one thread
 * alone gets.  Under AddressSanitizer a race on the lazily built index
 * shows as a double free or a use after free; without it, as a wrong
 * count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkgnote.h"

#define THREADS 8
#define ROUNDS 20
#define SCAN_INPUTS 3000

static pthread_barrier_t barrier;
static const pkgnote_info *shared_info;
static const pkgnote_core *shared_core;
static pkgnote_scan *shared_scan;
static char self[4096];

struct result {
        int ok;
        unsigned long sum;
};
static struct result results[THREADS];
static char reasons[2][512]; /* each kind of failure's reason, met alone */

static unsigned long hash(const char *s, unsigned long h) {
        while (s && *s)
                h = h * 31 + (unsigned char)*s++;
        return h;
}

/* Everything the const accessors give, folded into one number. */
static unsigned long read_all(void) {
        unsigned long h = 7;
        h = hash(pkgnote_info_build_id(shared_info), h);
        for (size_t i = 0; i < pkgnote_info_package_count(shared_info); i++) {
                h = hash(pkgnote_info_package_json(shared_info, i), h);
                h = hash(pkgnote_metadata_name(pkgnote_info_package(shared_info, i)), h);
        }
        for (size_t i = 0; i < pkgnote_core_module_count(shared_core); i++) {
                const pkgnote_module *m = pkgnote_core_module(shared_core, i);
                h = hash(pkgnote_module_path(m), h);
                h = hash(pkgnote_module_build_id(m), h);
                if (pkgnote_module_info(m))
                        h = hash(pkgnote_info_build_id(pkgnote_module_info(m)), h);
        }
        for (size_t i = 0; i < pkgnote_scan_package_count(shared_scan); i++) {
                h = hash(pkgnote_scan_package_json(shared_scan, i), h);
                for (size_t j = 0; j < pkgnote_scan_package_object_count(shared_scan, i); j++)
                        h = hash(pkgnote_scan_object_path(pkgnote_scan_package_object(shared_scan, i, j)), h);
        }
        return h;
}

static void *worker(void *arg) {
        struct result *r = arg;
        /* A failure of this thread's own, of one of two kinds; other threads
         * fail meanwhile, and this thread's reason must stay its own. */
        int kind = (int)(r - results) % 2;
        pkgnote_object *e;
        pkgnote_metadata *m;
        r->ok = kind ? pkgnote_object_open("/nonexistent/api-threads", &e) < 0
                     : pkgnote_metadata_parse("[1]", 3, &m) < 0;
        char mine[512];
        snprintf(mine, sizeof mine, "%s", pkgnote_last_error());
        pthread_barrier_wait(&barrier);
        r->sum = read_all();
        for (int i = 0; i < ROUNDS; i++)
                if (read_all() != r->sum)
                        r->ok = 0;
        if (!mine[0] || strcmp(mine, pkgnote_last_error()) != 0 || strcmp(mine, reasons[kind]) != 0)
                r->ok = 0;
        /* An independent object of this thread meanwhile. */
        pkgnote_info *info;
        if (pkgnote_object_open(self, &e) < 0 || pkgnote_info_read(e, &info) < 0)
                r->ok = 0;
        else {
                pkgnote_object_free(e);
                if (pkgnote_info_package_count(info) != pkgnote_info_package_count(shared_info))
                        r->ok = 0;
                pkgnote_info_free(info);
        }
        return NULL;
}

int main(void) {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0)
                return 2;
        self[len] = 0;
        pkgnote_object *e;
        pkgnote_info *info;
        pkgnote_core *core;
        if (pkgnote_object_open(self, &e) < 0 || pkgnote_info_read(e, &info) < 0 ||
            pkgnote_process_open(getpid(), &core) < 0 || pkgnote_scan_new(NULL, &shared_scan) < 0) {
                fprintf(stderr, "api-threads: %s\n", pkgnote_last_error());
                return 1;
        }
        /* Many objects, so that building the package index takes a while
         * and unsynchronised builders would overlap. */
        for (int i = 0; i < SCAN_INPUTS; i++)
                if (pkgnote_scan_add(shared_scan, self) < 0) {
                        fprintf(stderr, "api-threads: %s\n", pkgnote_last_error());
                        return 1;
                }
        pkgnote_object_free(e);
        shared_info = info;
        shared_core = core;

        pkgnote_metadata *m;
        if (pkgnote_metadata_parse("[1]", 3, &m) >= 0 || pkgnote_object_open("/nonexistent/api-threads", &e) >= 0)
                return 2;
        snprintf(reasons[1], sizeof reasons[1], "%s", pkgnote_last_error());
        (void)pkgnote_metadata_parse("[1]", 3, &m);
        snprintf(reasons[0], sizeof reasons[0], "%s", pkgnote_last_error());
        if (!strcmp(reasons[0], reasons[1]))
                return 2; /* the test needs two different reasons */

        pthread_barrier_init(&barrier, NULL, THREADS);
        pthread_t t[THREADS];
        struct result *res = results;
        for (int i = 0; i < THREADS; i++)
                if (pthread_create(&t[i], NULL, worker, &res[i]) != 0)
                        return 2;
        for (int i = 0; i < THREADS; i++)
                pthread_join(t[i], NULL);
        unsigned long alone = read_all();
        int bad = 0;
        for (int i = 0; i < THREADS; i++)
                if (!res[i].ok || res[i].sum != alone)
                        bad++;
        printf("%s - %d threads read one summary, process and scan at once, each as one thread alone\n",
               bad ? "not ok" : "ok", THREADS);
        int notes = pkgnote_scan_package_count(shared_scan) == 1 &&
                    pkgnote_scan_package_object_count(shared_scan, 0) == SCAN_INPUTS &&
                    pkgnote_info_package_count(info) == 1;
        printf("%s - the shared objects hold this program's package note\n", notes ? "ok" : "not ok");
        pkgnote_scan_free(shared_scan);
        pkgnote_core_free(core);
        pkgnote_info_free(info);
        pthread_barrier_destroy(&barrier);
        return bad || !notes;
}
