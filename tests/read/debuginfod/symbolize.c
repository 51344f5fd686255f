/* A program that crashes in a function inlined into another: its stack
 * trace tests source lines and inlined frames.  With an argument it waits
 * instead, in wait_here(), for the stack of a running process. */
#include <stdio.h>
#include <unistd.h>

static inline __attribute__((always_inline)) void store(int *p) {
        *p = 42; /* line:store */
}

__attribute__((noinline)) void crash(int *p) {
        store(p); /* line:crash */
        printf("%d\n", *p);
}

__attribute__((noinline)) void wait_here(void) {
        pause(); /* line:wait */
}

int main(int argc, char **argv) {
        (void)argv;
        if (argc == 2)
                wait_here();
        crash(argc > 100 ? &argc : NULL); /* line:main */
        return 0;
}
