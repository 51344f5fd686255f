/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs a libFuzzer harness over saved inputs without libFuzzer, so every
 * corpus and regression input replays as an ordinary test in any build:
 *   replay-elf fuzz/corpus/elf fuzz/regressions/elf-*
 * Arguments are files or directories (read one level deep, sorted).  A
 * harness failure aborts, which fails the test; unreadable inputs fail
 * it too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long n_inputs;

static int run_file(const char *path) {
        FILE *f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
                return -1;
        }
        size_t cap = 4096, len = 0;
        uint8_t *buf = malloc(cap);
        for (;;) {
                if (!buf) {
                        fclose(f);
                        fprintf(stderr, "replay: out of memory\n");
                        return -1;
                }
                len += fread(buf + len, 1, cap - len, f);
                if (len < cap)
                        break;
                cap *= 2;
                uint8_t *n = realloc(buf, cap);
                if (!n)
                        free(buf);
                buf = n;
        }
        int bad = ferror(f);
        fclose(f);
        if (bad) {
                free(buf);
                fprintf(stderr, "replay: '%s': read error\n", path);
                return -1;
        }
        /* Exact-size copy so sanitizers catch reads past the end. */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact) {
                free(buf);
                return -1;
        }
        memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        n_inputs++;
        return 0;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir) {
        DIR *d = opendir(dir);
        if (!d) {
                fprintf(stderr, "replay: '%s': %s\n", dir, strerror(errno));
                return -1;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        int ret = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue; /* ".", "..", and hidden files such as .gitkeep */
                if (n == cap) {
                        cap = cap ? 2 * cap : 64;
                        char **p = realloc(names, cap * sizeof *p);
                        if (!p) {
                                ret = -1;
                                break;
                        }
                        names = p;
                }
                if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
                        ret = -1;
                        break;
                }
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_names);
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                if (ret == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && run_file(names[i]) < 0)
                        ret = -1;
                free(names[i]);
        }
        free(names);
        return ret;
}

int main(int argc, char **argv) {
        int ret = 0;
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "replay: '%s': %s\n", argv[i], strerror(errno));
                        ret = 1;
                } else if (S_ISDIR(st.st_mode) ? run_dir(argv[i]) < 0 : run_file(argv[i]) < 0)
                        ret = 1;
        }
        printf("replayed %lu inputs\n", n_inputs);
        return ret;
}
