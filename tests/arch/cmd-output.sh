#!/bin/sh
# The output rule shared by every command that writes a file (generate -o,
# scan -o, stamp -o, list --format html -o, stamp in place): regular files replaced atomically,
# symbolic links followed (the link stays), a link to nothing refused,
# devices, FIFOs and sockets written directly and never replaced, "-" and
# /dev/stdout meaning standard output.
. "$SRCDIR/tests/lib.sh"
command -v cc > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }
M='--no-os-release --type deb --name hello --version 1.0-1'
printf 'int main(void){return 0;}\n' > m.c
cc -o prog m.c || fatal "cannot link the fixture"
mkdir tree && cp prog tree/

# The three commands, each writing to $1.  Each prints something known.
out_generate() { "$PKGNOTE" generate $M -o "$1"; }
out_scan() { "$PKGNOTE" scan --format json -o "$1" tree; }
out_stamp() { "$PKGNOTE" stamp -q $M -o "$1" prog; }
mkdir nostore
out_list() { PKGNOTE_COREDUMP_DIR="$T/nostore" "$PKGNOTE" list --group --format html -o "$1"; }
# has_output CMD FILE: FILE holds what CMD writes.
has_output() {
        case $1 in
        generate) grep -q '"name":"hello"' "$2" ;;
        scan) grep -q '"path":"tree/prog"' "$2" ;;
        stamp) "$PKGNOTE" show --field name "$2" 2> /dev/null | grep -qx hello ;;
        list) head -n 1 "$2" | grep -qx '<!DOCTYPE html>' && tail -n 1 "$2" | grep -qx '</html>' ;;
        esac
}

for c in generate scan stamp list; do
        # A character device made here (the same as /dev/null).
        # (A file system mounted nodev, as in some containers, lets a node be
        # made but not opened: then there is nothing to test.  The open is
        # tried in a subshell: a failed redirection of the special built-in
        # ":" ends a POSIX shell.)
        if mknod "null-$c" c 1 3 2> /dev/null && chmod 666 "null-$c" && (: > "null-$c") 2> /dev/null; then
                ino=$(stat -c %i "null-$c")
                "out_$c" "null-$c" > /dev/null 2> err
                st=$?
                if [ $st -eq 0 ] && [ -c "null-$c" ] && [ "$(stat -c %i "null-$c")" = "$ino" ] && [ "$(stat -c %a "null-$c")" = 666 ]; then
                        pass "$c -o DEVICE: written, the device stays"
                else
                        fail "$c -o DEVICE: written, the device stays" "status $st, $(ls -l "null-$c"), $(cat err)"
                fi
                ls -a | grep -q "^\.null-$c\." && fail "$c -o DEVICE: no temporary" || pass "$c -o DEVICE: no temporary"
        else
                skip "$c -o DEVICE" "device nodes cannot be made or opened here (nodev mount)"
        fi
        # A FIFO with a reader: the reader gets everything, the FIFO stays.
        mkfifo "fifo-$c"
        timeout 20 cat "fifo-$c" > "fifo-$c.got" &
        reader=$!
        "out_$c" "fifo-$c" > /dev/null 2> err
        st=$?
        wait $reader
        if [ $st -eq 0 ] && [ -p "fifo-$c" ] && has_output $c "fifo-$c.got"; then
                pass "$c -o FIFO: the reader gets the output, the FIFO stays"
        else
                fail "$c -o FIFO: the reader gets the output, the FIFO stays" "status $st, $(ls -l "fifo-$c"), $(cat err)"
        fi
        # A symbolic link to a regular file: the target is replaced, the link stays.
        printf old > "target-$c"
        ln -s "target-$c" "link-$c"
        "out_$c" "link-$c" > /dev/null 2> err
        if [ -L "link-$c" ] && [ "$(readlink "link-$c")" = "target-$c" ] && has_output $c "target-$c"; then
                pass "$c -o SYMLINK: target written, link kept"
        else
                fail "$c -o SYMLINK: target written, link kept" "$(ls -l "link-$c" "target-$c"), $(cat err)"
        fi
        # A link into another directory: the temporary goes beside the target.
        mkdir -p "elsewhere-$c"
        printf old > "elsewhere-$c/t"
        ln -s "elsewhere-$c/t" "far-$c"
        "out_$c" "far-$c" > /dev/null 2> err
        [ -L "far-$c" ] && has_output $c "elsewhere-$c/t" && pass "$c -o SYMLINK into another directory" \
                || fail "$c -o SYMLINK into another directory" "$(cat err)"
        # A dangling symbolic link: refused, nothing created.
        ln -s "missing-$c" "dangling-$c"
        "out_$c" "dangling-$c" > /dev/null 2> err
        st=$?
        if [ $st -eq 2 ] && [ -L "dangling-$c" ] && [ ! -e "missing-$c" ] && grep -q "symbolic link to nothing" err; then
                pass "$c -o DANGLING: refused, nothing created"
        else
                fail "$c -o DANGLING: refused, nothing created" "status $st, $(cat err)"
        fi
        # A new name, and "-" and /dev/stdout as standard output.
        "out_$c" "new-$c" > /dev/null 2> err && has_output $c "new-$c" && pass "$c -o NEW: created" || fail "$c -o NEW: created" "$(cat err)"
        for o in - /dev/stdout; do
                "out_$c" "$o" > "stdout-$c" 2> err
                has_output $c "stdout-$c" && [ ! -e ./- ] && pass "$c -o $o: standard output" || fail "$c -o $o: standard output" "$(cat err)"
        done
        # Standard output that is a regular file is written, not replaced:
        # the shell's descriptor keeps the output.
        { printf 'before\n'; "out_$c" /dev/stdout; } > "appended-$c" 2> err
        tail -c +8 "appended-$c" > "appended-$c.tail"
        head -1 "appended-$c" | grep -qx before && has_output $c "appended-$c.tail" && pass "$c -o /dev/stdout into a file: written through the descriptor" \
                || fail "$c -o /dev/stdout into a file: written through the descriptor" "$(cat err)"
        ls -a | grep -q '\.pkgnote-' && fail "$c: no temporaries left" "$(ls -a | grep pkgnote-)" || pass "$c: no temporaries left"
done

# A socket: written through a connection, never replaced.
if command -v python3 > /dev/null; then
        python3 - <<'PY' &
import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("sock")
s.listen(1)
open("sock.ready", "w").close()
c, _ = s.accept()
data = b""
while True:
    b = c.recv(65536)
    if not b:
        break
    data += b
open("sock.got", "wb").write(data)
PY
        server=$!
        i=0
        while [ ! -e sock.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        if [ -e sock.ready ]; then
                "$PKGNOTE" generate $M -o sock 2> err
                st=$?
                wait $server
                [ $st -eq 0 ] && [ -S sock ] && grep -q '"name":"hello"' sock.got && pass "generate -o SOCKET: sent, the socket stays" \
                        || fail "generate -o SOCKET: sent, the socket stays" "status $st, $(cat err)"
        else
                kill $server 2> /dev/null
                skip "generate -o SOCKET" "the listening socket did not come up"
        fi
fi

# Binary output is not sent to a terminal (when there is one to try).
if [ -w /dev/tty ] && (: > /dev/tty) 2> /dev/null; then
        "$PKGNOTE" stamp $M -o /dev/tty prog 2> err > /dev/null
        [ $? -eq 2 ] && grep -q "terminal" err && pass "stamp -o /dev/tty refused" || fail "stamp -o /dev/tty refused" "$(cat err)"
fi

# stamp FILE in place where FILE is a symbolic link: the target is
# stamped, the link stays (pkgnote-stamp(1)).
cp prog inplace; ln -s inplace inplace.link
run stamp $M inplace.link
[ "$STATUS" -eq 0 ] && [ -L inplace.link ] && [ "$("$PKGNOTE" show --field name inplace)" = hello ] \
        && pass "stamp SYMLINK in place: the target is stamped, the link stays" || fail "stamp SYMLINK in place: the target is stamped, the link stays" "$(cat err)"
ln -s nothing inplace.dangling
run stamp $M inplace.dangling
[ "$STATUS" -eq 2 ] && [ ! -e nothing ] && pass "stamp DANGLING in place: refused" || fail "stamp DANGLING in place: refused" "$(cat err)"
# stamp in place of a device or FIFO: refused, never replaced.
mkfifo inplace.fifo
run stamp $M inplace.fifo
[ "$STATUS" -eq 2 ] && [ -p inplace.fifo ] && pass "stamp FIFO in place: refused, the FIFO stays" || fail "stamp FIFO in place: refused, the FIFO stays" "$(cat err)"
finish
