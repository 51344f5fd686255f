/* A process whose /proc/PID/maps is hostile to whoever reads it (the
 * crash handler does, while the kernel holds it): LIB mapped as files
 * named with a newline, named " (deleted)" (the kernel's words for an
 * unlinked file), named by a path of 3,600 bytes, deleted after mapping,
 * and replaced by OTHER after mapping, all in DIR; with FLAGS "m" the
 * replacement and a copy of it (twin.so) also at 15,000 more places each,
 * in turns (one file after the other in memory: a core's reader cannot
 * take them for one mapping).  Then it says "ready" and waits
 * ("c" in FLAGS: it crashes instead).
 *   hostile DIR LIB OTHER [FLAGS] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what) {
        perror(what);
        exit(1);
}

static void map(const char *path) {
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                die(path);
        if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                die("mmap");
        close(fd);
}

static void copy(const char *from, const char *to) {
        char buf[65536];
        int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ssize_t n;
        if (in < 0 || out < 0)
                die(in < 0 ? from : to);
        while ((n = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t)n) != n)
                        die(to);
        close(in);
        if (n < 0 || close(out) < 0)
                die(to);
}

int main(int argc, char **argv) {
        const char *flags = argc > 4 ? argv[4] : "";
        char lib[4096], other[4096];
        if (argc < 4 || !realpath(argv[2], lib) || !realpath(argv[3], other) || chdir(argv[1]) < 0)
                return 2;
        copy(lib, "evil\nname.so");
        map("evil\nname.so");
        copy(lib, "trick.so (deleted)");
        map("trick.so (deleted)");
        char deep[4096] = "", part[256];
        memset(part, 'd', 255);
        part[255] = 0;
        for (int i = 0; i < 14; i++) {
                strcat(deep, i ? "/" : "");
                strcat(deep, part);
                if (mkdir(deep, 0755) < 0)
                        die("mkdir");
        }
        strcat(deep, "/lib.so");
        copy(lib, deep);
        map(deep);
        copy(lib, "gone.so");
        map("gone.so");
        unlink("gone.so");
        copy(lib, "swapped.so");
        map("swapped.so");
        copy(other, "swapped.so.new");
        if (rename("swapped.so.new", "swapped.so") < 0)
                die("rename");
        copy(other, "twin.so");
        if (strchr(flags, 'm'))
                for (int i = 0; i < 30000; i++)
                        map(i % 2 ? "twin.so" : "swapped.so");
        if (strchr(flags, 'c'))
                *(volatile int *)0 = 1;
        if (write(1, "ready\n", 6) != 6)
                return 1;
        pause();
        return 0;
}
