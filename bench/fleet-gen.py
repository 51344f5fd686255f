# SPDX-License-Identifier: LGPL-2.1-or-later
# The journal export stream of one machine of bench/list-fleet.sh (see
# there): ENTRIES entries, CRASHES of them systemd-coredump's, as
# systemd-coredump writes them; some crashes hold a small core inline.
#   python3 fleet-gen.py MACHINE MACHINES ENTRIES CRASHES > export
import hashlib
import struct
import sys

machine, machines, entries, crashes = (int(a) for a in sys.argv[1:5])
out = sys.stdout.buffer


def hexid(*parts):
    return hashlib.md5(":".join(str(p) for p in parts).encode()).hexdigest()


MACHINE_ID = hexid("machine", machine)
BOOT_ID = hexid("boot", machine)
HOST = "host%03d" % machine
T0 = 1733400000 * 1000000
SPAN = 10 * 86400 * 1000000
PROGRAMS = [
    ("foo", "/usr/bin/foo", "foo", "1.0-1", ["parse_input", "run", "main"]),
    ("barsrv", "/usr/sbin/barsrv", "bar", "2.3-4", ["bar_handle", "bar_loop", "main"]),
    ("bazd", "/usr/lib/baz/bazd", "baz", "0.9-2", ["baz_read", "baz_poll", "g_main_loop_run", "main"]),
    ("qux", "/usr/bin/qux", "qux", "5.1-1", ["qux_free", "qux_exit", "main"]),
]


def field(name, value):
    if isinstance(value, str):
        value = value.encode()
    if b"\n" in value or b"\0" in value:
        out.write(name.encode() + b"\n" + struct.pack("<Q", len(value)) + value + b"\n")
    else:
        out.write(name.encode() + b"=" + value + b"\n")


def core_bytes(n):
    # An ELF core's header and zeros: small, binary, as COREDUMP= holds it.
    hdr = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 4, 62, 1)
    return hdr + b"\0" * (n - len(hdr))


def crash(i, usec, seq):
    comm, exe, pkg, ver, funcs = PROGRAMS[(machine + i) % len(PROGRAMS)]
    pid = 1000 + (i * 7919 + machine) % 30000
    stack = "".join("#%d  0x%016x %s (%s + 0x%x)\n" % (k, 0x555555554000 + 0x1000 * k + i, f, comm, 0x1000 + 0x10 * k)
                    for k, f in enumerate(funcs))
    msg = ("Process %d (%s) of user 0 dumped core.\n\n"
           "Module %s from deb %s-%s (amd64), build-id %s\n"
           "Stack trace of thread %d:\n%s\n"
           "Stack trace of thread %d:\n#0  0x00007f12345a1b2c clock_nanosleep (libc.so.6 + 0xe1b2c)\n"
           "ELF object binary architecture: AMD x86-64\n") % (pid, comm, comm, pkg, ver, hexid("b", comm), pid, stack,
                                                               pid + 1)
    inline = i % 10 == 3
    field("__CURSOR", "s=%s;i=%x" % (hexid("seq", machine), seq))
    field("__REALTIME_TIMESTAMP", str(usec))
    field("__MONOTONIC_TIMESTAMP", str(usec - T0 + 1000000))
    field("_BOOT_ID", BOOT_ID)
    field("_MACHINE_ID", MACHINE_ID)
    field("_HOSTNAME", HOST)
    field("_TRANSPORT", "journal")
    field("_UID", "0")
    field("_GID", "0")
    field("_COMM", "systemd-coredum")
    field("_EXE", "/usr/lib/systemd/systemd-coredump")
    field("_PID", str(pid + 3))
    field("SYSLOG_IDENTIFIER", "systemd-coredump")
    field("PRIORITY", "2")
    field("MESSAGE_ID", "fc2e22bc6ee647b6b90729ab34a250b1")
    field("CODE_FILE", "src/coredump/coredump.c")
    field("COREDUMP_PID", str(pid))
    field("COREDUMP_UID", "0")
    field("COREDUMP_GID", "0")
    field("COREDUMP_SIGNAL", "11")
    field("COREDUMP_SIGNAL_NAME", "SIGSEGV")
    field("COREDUMP_TIMESTAMP", str(usec - 200000))
    field("COREDUMP_RLIMIT", "18446744073709551615")
    field("COREDUMP_HOSTNAME", HOST)
    field("COREDUMP_COMM", comm)
    field("COREDUMP_EXE", exe)
    field("COREDUMP_CMDLINE", "%s --serve /etc/%s.conf" % (exe, comm))
    field("COREDUMP_CGROUP", "/system.slice/%s.service" % comm)
    field("COREDUMP_UNIT", "%s.service" % comm)
    field("COREDUMP_SLICE", "system.slice")
    field("COREDUMP_CWD", "/")
    field("COREDUMP_ROOT", "/")
    field("COREDUMP_OPEN_FDS", "0:/dev/null\npos:\t0\nflags:\t0100000\nmnt_id:\t25\n\n1:socket:[12345]\npos:\t0\n")
    field("COREDUMP_PROC_STATUS", "Name:\t%s\nState:\tR (running)\nPid:\t%d\n" % (comm, pid) + "VmRSS:\t 4096 kB\n" * 20)
    field("COREDUMP_PROC_MAPS", "".join("%012x-%012x r-xp 00000000 08:01 %d %s\n" % (0x555555554000 + k * 0x1000,
                                        0x555555555000 + k * 0x1000, 1000 + k, exe) for k in range(30)))
    field("COREDUMP_PROC_LIMITS", "Limit Soft Limit Hard Limit Units\n" + "Max cpu time unlimited unlimited seconds\n" * 16)
    field("COREDUMP_PROC_CGROUP", "0::/system.slice/%s.service\n" % comm)
    field("COREDUMP_PROC_MOUNTINFO", "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n" * 25)
    field("COREDUMP_ENVIRON", "LANG=C.UTF-8\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\nINVOCATION_ID=%s\n"
          % hexid("inv", machine, i))
    field("COREDUMP_PACKAGE_NAME", pkg)
    field("COREDUMP_PACKAGE_VERSION", ver)
    field("COREDUMP_PACKAGE_JSON", '{"elfType":"coredump","elfArchitecture":"AMD x86-64","%s":{"type":"deb",'
          '"name":"%s","version":"%s","architecture":"amd64","buildId":"%s"}}' % (comm, pkg, ver, hexid("b", comm)))
    if inline:
        field("COREDUMP", core_bytes(4096))
    else:
        field("COREDUMP_FILENAME", "/var/lib/systemd/coredump/core.%s.0.%s.%d.%d.zst" % (comm, BOOT_ID, pid, usec - 200000))
    field("MESSAGE", msg)
    out.write(b"\n")


def log(i, usec, seq):
    field("__CURSOR", "s=%s;i=%x" % (hexid("seq", machine), seq))
    field("__REALTIME_TIMESTAMP", str(usec))
    field("__MONOTONIC_TIMESTAMP", str(usec - T0 + 1000000))
    field("_BOOT_ID", BOOT_ID)
    field("_MACHINE_ID", MACHINE_ID)
    field("_HOSTNAME", HOST)
    field("_TRANSPORT", "syslog")
    field("_UID", "0")
    field("_COMM", "cron")
    field("_PID", str(100 + i % 5000))
    field("SYSLOG_IDENTIFIER", "CRON")
    field("PRIORITY", "6")
    field("MESSAGE", "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0) %d" % (i % 97))
    out.write(b"\n")


every = max(entries // max(crashes, 1), 1)
k = 0
for i in range(entries):
    usec = T0 + (SPAN * i) // entries + machine * 997
    if i % every == every // 2 and k < crashes:
        crash(k, usec, i)
        k += 1
    else:
        log(i, usec, i)
