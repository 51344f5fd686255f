/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The VM scenarios' program: without arguments it crashes (SIGSEGV);
 * "client PATH" connects to the coredump socket at PATH as a process
 * that is not the kernel would, sends a request as the kernel's, and
 * prints "answered" when the server replies, "closed" when it hangs up;
 * "as UID" becomes user UID (and group UID, no other group) and crashes
 * (busybox's setpriv cannot change the user); "watch PID" prints the
 * most children named "pkgnote-coredum" (the socket server's workers)
 * PID had at once, sampled every millisecond until PID ends (a shell's
 * sampling, tens of milliseconds in the VM, can miss a worker's life). */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc > 2 && !strcmp(argv[1], "client")) {
                struct sockaddr_un sa = {.sun_family = AF_UNIX};
                snprintf(sa.sun_path, sizeof sa.sun_path, "%s", argv[2]);
                int fd = socket(AF_UNIX, SOCK_STREAM, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
                        perror("connect");
                        return 1;
                }
                uint8_t req[16] = {16, 0, 0, 0, 16, 0, 0, 0, 0x0f};
                /* The server may have refused and closed already. */
                signal(SIGPIPE, SIG_IGN);
                if (write(fd, req, sizeof req) != (ssize_t)sizeof req) {
                        puts("closed");
                        return 0;
                }
                struct timeval tv = {20, 0};
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
                uint8_t ack[16];
                ssize_t n = read(fd, ack, sizeof ack);
                puts(n > 0 ? "answered" : "closed");
                return 0;
        }
        if (argc > 2 && !strcmp(argv[1], "as")) {
                uid_t id = (uid_t)atoi(argv[2]);
                if (setgroups(0, NULL) < 0 || setresgid(id, id, id) < 0 || setresuid(id, id, id) < 0) {
                        perror("as");
                        return 1;
                }
                /* exec: the process is dumpable again after the change of user */
                char self[4096];
                ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
                self[n > 0 ? n : 0] = 0;
                execl(self, argv[0], (char *)NULL); /* by its name: its comm stays "crasher" */
                perror("exec");
                return 1;
        }
        if (argc > 2 && !strcmp(argv[1], "watch")) {
                char path[64], buf[8192];
                int most = 0;
                for (;;) {
                        /* Ended (or a zombie no one reaped yet): done. */
                        snprintf(path, sizeof path, "/proc/%s/stat", argv[2]);
                        FILE *f = fopen(path, "re");
                        if (!f)
                                break;
                        size_t n = fread(buf, 1, sizeof buf - 1, f);
                        fclose(f);
                        buf[n] = 0;
                        char *e = strrchr(buf, ')');
                        if (!e || e[1] != ' ' || e[2] == 'Z' || e[2] == 'X')
                                break;
                        /* Its children, unreaped ones included. */
                        snprintf(path, sizeof path, "/proc/%s/task/%s/children", argv[2], argv[2]);
                        f = fopen(path, "re");
                        if (!f && (errno == ENOENT || errno == ESRCH))
                                break; /* reaped since */
                        if (!f) {
                                perror(path);
                                return 1;
                        }
                        n = fread(buf, 1, sizeof buf - 1, f);
                        fclose(f);
                        buf[n] = 0;
                        int c = 0;
                        for (char *s = strtok(buf, " \n"); s; s = strtok(NULL, " \n")) {
                                char comm[64] = "";
                                snprintf(path, sizeof path, "/proc/%s/comm", s);
                                FILE *g = fopen(path, "re");
                                if (!g)
                                        continue;
                                if (fgets(comm, sizeof comm, g) && !strcmp(comm, "pkgnote-coredum\n"))
                                        c++;
                                fclose(g);
                        }
                        if (c > most)
                                most = c;
                        usleep(1000);
                }
                printf("%d\n", most);
                return 0;
        }
        *(volatile int *)0 = 1;
        return 0;
}
