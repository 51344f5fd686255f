# In the VM, on Debian sid's kernel: the kernel row.  pkgnote ps --kernel
# reads the running kernel's build-id from /sys/kernel/notes; it must be
# the one pkgnote on the host read from sid's image (/vm/kernel-expect,
# "image ID"), and the image placed at /usr/lib/modules/RELEASE/vmlinuz
# must match it.  A few modules loaded with insmod: each one's build-id
# in /sys/module/NAME/notes must be its .ko file's ("module NAME ID FILE").
# No package database here: --needs-reboot answers from the image alone.
check() { # NAME GOT WANT
        if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1"; echo "# got '$2', want '$3'"; fi
}
rel=$(uname -r)
want=$(awk '$1 == "image" { print $2 }' /vm/kernel-expect)
# One JSON line: the running kernel's buildId is the first, the image's
# the one after "image".
pkgnote ps --kernel --json > /tmp/k0.json 2> /tmp/k0.err
check "vm kernel: ps --kernel --json succeeds" "$?" 0
sed 's/^/# /' /tmp/k0.err | head -3
run_id=$(sed -n 's/^{"release":"[^"]*","buildId":"\([0-9a-f]*\)".*/\1/p' /tmp/k0.json)
img_id=$(sed -n 's/.*"image":{"path":"[^"]*","buildId":"\([0-9a-f]*\)".*/\1/p' /tmp/k0.json)
check "vm kernel: the running kernel's build-id is the one read on the host from sid's vmlinuz" "$run_id" "$want"
check "vm kernel: the image in /usr/lib/modules/$rel read in the VM has the same build-id" "$img_id" "$want"
case $run_id in ????????????????????????????????????????) echo "ok - vm kernel: a 40-digit build-id ($run_id)" ;;
*) echo "not ok - vm kernel: a 40-digit build-id"; echo "# got '$run_id'" ;; esac

n=0
while read -r what name id file; do
        [ "$what" = module ] || continue
        n=$((n + 1))
        insmod /vm/ko/$name.ko 2> /tmp/insmod.err \
                || { echo "not ok - vm kernel: insmod $name"; sed 's/^/# /' /tmp/insmod.err; continue; }
        [ -e /sys/module/$name/notes/.note.gnu.build-id ] \
                && echo "ok - vm kernel: $name loaded, with its notes in /sys/module/$name/notes" \
                || echo "not ok - vm kernel: $name loaded, with its notes in /sys/module/$name/notes"
done < /vm/kernel-expect
check "vm kernel: modules to load" "$n" 4
pkgnote ps --kernel --json > /tmp/k1.json 2> /tmp/k1.err || sed 's/^/# /' /tmp/k1.err | head -3
# Each module's object on a line of its own.
sed 's/},{"name"/}\n{"name"/g; s/"modules":\[{/"modules":[\n{/' /tmp/k1.json > /tmp/k1.lines
while read -r what name id file; do
        [ "$what" = module ] || continue
        line=$(grep "^{\"name\":\"$name\"," /tmp/k1.lines)
        got=$(echo "$line" | sed -n 's/^{"name":"[^"]*","buildId":"\([0-9a-f]*\)".*/\1/p')
        gfile=$(echo "$line" | sed -n 's/.*"file":"\([^"]*\)".*/\1/p')
        gfid=$(echo "$line" | sed -n 's/.*"fileBuildId":"\([0-9a-f]*\)".*/\1/p')
        check "vm kernel: module $name: the running build-id (sysfs) is the .ko's read on the host" "$got" "$id"
        check "vm kernel: module $name: pkgnote finds its file" "$gfile" "$file"
        check "vm kernel: module $name: the file's build-id read in the VM (.ko.xz) equals the running one" "$gfid" "$got"
done < /vm/kernel-expect
pkgnote ps --kernel > /tmp/k1.txt 2>&1
sed 's/^/# /' /tmp/k1.txt | head -12

# --needs-reboot: image present and equal, no database: no (status 0).
out=$(pkgnote ps --needs-reboot 2>&1)
check "vm kernel: --needs-reboot with the running image installed: status 0" "$?" 0
check "vm kernel: --needs-reboot with the running image installed: no" "$out" "no reboot needed"
# Another image there (an ELF with a build-id of its own, which pkgnote
# reads as it reads a vmlinux): image-differs, status 1.
img=/usr/lib/modules/$rel/vmlinuz
mv $img /tmp/vmlinuz.keep
cp /vm/bin/crasher $img
out=$(pkgnote ps --needs-reboot 2>&1)
check "vm kernel: --needs-reboot with a different image: status 1" "$?" 1
case $out in
"reboot needed"*"image-differs: the running kernel's build-id $want is not that of the installed image $img"*)
        echo "ok - vm kernel: --needs-reboot with a different image names image-differs" ;;
*) echo "not ok - vm kernel: --needs-reboot with a different image names image-differs"; echo "$out" | sed 's/^/# /' ;;
esac
rm -f $img
out=$(pkgnote ps --needs-reboot 2>&1)
check "vm kernel: --needs-reboot with no image: status 1" "$?" 1
case $out in *image-missing*) echo "ok - vm kernel: --needs-reboot with no image names image-missing" ;;
*) echo "not ok - vm kernel: --needs-reboot with no image names image-missing"; echo "$out" | sed 's/^/# /' ;; esac
mv /tmp/vmlinuz.keep $img
