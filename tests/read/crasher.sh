# Sourced by the crash handler's tests (cmd-coredump-socket, cmd-list-rejected):
# a packaged crasher (crasher/4.2-1) built in the test's directory, a core
# of it the kernel wrote (segv.core; a test needs core_pattern to write
# files: skipped otherwise), and a live crasher, WAITER, standing in for the
# process the handler looks at in /proc while the kernel holds it.  The
# caller kills WAITER in its own EXIT trap.
require python3 cc
case $(cat /proc/sys/kernel/core_pattern) in
"|"*|"@"*) echo "1..0 # SKIP core_pattern is a pipe or a socket here: cannot make a core file to feed"; exit 77 ;;
esac
cat > crash.c <<'C'
#include <unistd.h>
int main(int argc, char **argv) {
        if (argc > 1 && argv[1][0] == 'w') { pause(); return 0; } /* a process the handler can look at */
        *(volatile int *)0 = 1;
        return 0;
}
C
cc -o crasher crash.c -Xlinker '--package-metadata={"type":"deb","name":"crasher","version":"4.2-1","architecture":"amd64"}' \
        || fatal "cannot build"
rm -f core
sh -c "ulimit -c unlimited; exec ./crasher" 2>/dev/null
[ -f core ] || fatal "the kernel wrote no core"
mv core segv.core
./crasher wait &
WAITER=$!
# Until the shell's child has exec'd it, /proc/PID is the shell's.
n=0
while [ "$(readlink /proc/$WAITER/exe)" != "$(readlink -f crasher)" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
