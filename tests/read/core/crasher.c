/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program that crashes for real, for the core tests.  The test links
 * it with a sum_values() that calls into each of its libraries, so the
 * kernel's core lists them all in NT_FILE.
 *
 *   crasher segv          NULL-ish write in crash_here(): SIGSEGV at 0x10
 *   crasher abort         abort(): SIGABRT
 *   crasher wait FILE     writes FILE.ready, waits until FILE exists, then
 *                         crashes like "segv" (lets a test change the disk
 *                         while the process runs)
 *   crasher thread        crashes like "segv" in a second thread, while the
 *                         main thread waits for it: the crashing thread's
 *                         id is not the process's
 *
 * With CRASHER_MAP=FILE in the environment it first maps FILE's first page
 * read-only, as programs map locale archives and other data files.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Defined by the test in a file of its own: calls into every library. */
int sum_values(void);

/* Not static and not inlined: the stack trace must name it. */
__attribute__((noinline)) void crash_here(volatile int *where);
__attribute__((noinline)) void crash_here(volatile int *where) {
        *where = sum_values();
}

static void *crash_thread(void *arg) {
        crash_here((volatile int *)(unsigned long)0x10);
        return arg;
}

int main(int argc, char **argv) {
        if (argc < 2)
                return 2;
        const char *map = getenv("CRASHER_MAP");
        if (map) {
                int fd = open(map, O_RDONLY | O_CLOEXEC);
                if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                        return 3;
                close(fd);
        }
        if (!strcmp(argv[1], "abort"))
                abort();
        if (!strcmp(argv[1], "thread")) {
                pthread_t t;
                if (pthread_create(&t, NULL, crash_thread, NULL) != 0)
                        return 4;
                pthread_join(t, NULL);
                return 5;
        }
        if (!strcmp(argv[1], "wait") && argc > 2) {
                char ready[4096];
                snprintf(ready, sizeof ready, "%s.ready", argv[2]);
                FILE *f = fopen(ready, "w");
                if (f)
                        fclose(f);
                for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
                        usleep(10000);
        }
        crash_here((volatile int *)(unsigned long)0x10);
        return 0;
}
