#!/bin/sh
# pkgnote stamp over a corpus of ELF files (default: /usr/bin and
# /usr/sbin): how many get the note into the first page, the bytes each
# file grows by, and the time to stamp a file in place beside the time
# cp takes to copy it (plain, and followed by fsync, which stamp does).
#
# Usage: bench/stamp.sh [PKGNOTE [DIR...]]  (default build/pkgnote)
#        bench/stamp.sh --tree [PKGNOTE] ROOT|ROOT.tar
#   --tree: a whole system tree (a directory, or a tar of a root such as
#   mmdebstrap makes) is copied and stamped with one 'stamp --tree usr';
#   reports the time, and for executables and shared libraries the share
#   with the note in the first page, the program headers kept there, the
#   placements, and the files left outside the first page.
# Writes the report to standard output; bench/results-stamp.txt keeps a run.
set -eu
if [ "${1:-}" = --tree ]; then
        shift
        if [ $# -ge 2 ]; then PKGNOTE=$1; shift; else PKGNOTE=build/pkgnote; fi
        PKGNOTE=$(readlink -f "$PKGNOTE"); SRC=$1
        W=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
        trap 'rm -rf "$W"' EXIT
        if [ -d "$SRC" ]; then cp -a "$SRC/." "$W/root"; else mkdir "$W/root" && tar -xf "$SRC" -C "$W/root"; fi
        cd "$W/root"
        start=$(date +%s.%N)
        "$PKGNOTE" stamp --tree --json --force --no-os-release --type deb --name bench --version 1.0-1 usr > "$W/out" 2> "$W/err" || true
        end=$(date +%s.%N)
        python3 - "$W/out" "$start" "$end" <<'PY'
import collections, json, struct, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def kind(p):
    try:
        h = open(p, "rb").read(18)
        return struct.unpack("<H" if h[5] == 1 else ">H", h[16:18])[0]
    except Exception:
        return 0
linked = [r for r in rows if kind(r["path"]) in (2, 3)]
n = len(linked)
errors = [r for r in linked if "error" in r]
ok = [r for r in linked if "error" not in r]
first = sum(1 for r in ok if r["firstPage"])
phdrs = sum(1 for r in ok if r["phdrsFirstPage"])
print("stamp --tree usr: %d files in %.2f s; %d executables and shared libraries"
      % (len(rows), float(sys.argv[3]) - float(sys.argv[2]), n))
print("note in the first page: %d (%.2f%%)" % (first, 100.0 * first / max(n, 1)))
print("program headers still in the first page: %d (%.2f%%)" % (phdrs, 100.0 * phdrs / max(n, 1)))
print("placements: " + ", ".join("%s %d" % kv for kv in collections.Counter(r["placement"] for r in ok).most_common()))
for r in ok:
    if not r["firstPage"]:
        print("  outside the first page (%s): %s" % (r["placement"], r["path"]))
for r in errors:
    print("  refused: %s: %s" % (r["path"], r["error"]))
PY
        exit 0
fi
PKGNOTE=${1:-build/pkgnote}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- /usr/bin /usr/sbin
PKGNOTE=$(readlink -f "$PKGNOTE")
W=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

for d in "$@"; do
        for f in "$d"/*; do
                [ -f "$f" ] && [ ! -L "$f" ] || continue
                [ "$(head -c4 "$f" 2>/dev/null | od -An -c | tr -d ' \n')" = "177ELF" ] && echo "$f"
        done
done | sort -u > "$W/list"

python3 - "$PKGNOTE" "$W" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time

pkgnote, w = sys.argv[1], sys.argv[2]
files = open(os.path.join(w, "list")).read().split()
meta = ["--no-os-release", "--type", "deb", "--os", "debian", "--os-version", "12",
        "--name", "coreutils", "--version", "9.1-1", "--architecture", "amd64"]
dst, work = os.path.join(w, "copy"), os.path.join(w, "work")
REPS = 3

def timed(argv):
    t = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, r

def cp_fsync(src):
    t = time.perf_counter()
    subprocess.run(["cp", src, dst])
    fd = os.open(dst, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    return time.perf_counter() - t

rows, placements, errors = [], {}, 0
for f in files:
    size = os.path.getsize(f)
    t_cp = min(timed(["cp", f, dst])[0] for _ in range(REPS))
    t_cps = min(cp_fsync(f) for _ in range(REPS))
    t_st, out = [], None
    for _ in range(REPS):
        shutil.copyfile(f, work)
        os.chmod(work, 0o755)
        t, r = timed([pkgnote, "stamp", "--json"] + meta + [work])
        if r.returncode != 0:
            out = None
            break
        t_st.append(t)
        out = json.loads(r.stdout)
    if out is None:
        errors += 1
        continue
    placements[out["placement"]] = placements.get(out["placement"], 0) + 1
    rows.append((f, size, out, min(t_st), t_cp, t_cps))

n = len(rows)
def pct(x):
    return "%.1f%%" % (100.0 * x / n) if n else "-"
first = sum(1 for r in rows if r[2]["firstPage"])
phdrs = sum(1 for r in rows if r[2]["phdrsFirstPage"])
added = sorted(r[2]["bytesAdded"] for r in rows)
print("pkgnote stamp over %d ELF files (%s), %d refused" % (n, ", ".join(sys.argv[3:]) or "corpus", errors))
print()
print("note in the first page (kernel core dumps carry it): %d (%s)" % (first, pct(first)))
print("program headers still in the first page (cores keep build-ids): %d (%s)" % (phdrs, pct(phdrs)))
print("placements:")
for k, v in sorted(placements.items(), key=lambda kv: -kv[1]):
    print("  %-12s %5d  %s" % (k, v, pct(v)))
print()
print("bytes added per file:")
if added:
    q = lambda p: added[min(len(added) - 1, int(p * len(added)))]
    print("  min %d, median %d, p90 %d, max %d, mean %.0f" % (added[0], q(0.5), q(0.9), added[-1], statistics.mean(added)))
    buckets = [(0, 0), (1, 128), (129, 256), (257, 1024), (1025, 4096), (4097, 1 << 62)]
    for lo, hi in buckets:
        c = sum(1 for a in added if lo <= a <= hi)
        print("  %-14s %5d" % ("%d" % lo if lo == hi else "%d..%s" % (lo, hi if hi < 1 << 60 else ""), c))
    print("  largest growth with first-page placement: %d (the note lies in slack; the rest is the section header entry)"
          % max([r[2]["bytesAdded"] for r in rows if r[2]["firstPage"]] or [0]))
print()
print("time per file (best of %d), stamp in place vs cp of the same file, one process per file (process start included):" % REPS)
ratio = [r[3] / r[4] for r in rows]
ratio_s = [r[3] / r[5] for r in rows]
tot_st, tot_cp, tot_cps = sum(r[3] for r in rows), sum(r[4] for r in rows), sum(r[5] for r in rows)
print("  total: stamp %.2f s, cp %.2f s, cp+fsync %.2f s" % (tot_st, tot_cp, tot_cps))
print("  stamp/cp:       median %.2f, p90 %.2f, total %.2f" % (statistics.median(ratio), sorted(ratio)[int(0.9 * n)], tot_st / tot_cp))
print("  stamp/cp+fsync: median %.2f, p90 %.2f, total %.2f" % (statistics.median(ratio_s), sorted(ratio_s)[int(0.9 * n)], tot_st / tot_cps))
# One process for the whole corpus, as a build or image tool runs it:
# process start no longer dominates small files.
batch_src = [r[0] for r in rows]
bdir, cdir = os.path.join(w, "batch"), os.path.join(w, "cpdir")
def chunks(l, n=200):
    for i in range(0, len(l), n):
        yield l[i:i + n]
best_st = best_cp = best_cps = 1e9
for _ in range(REPS):
    shutil.rmtree(bdir, ignore_errors=True); shutil.rmtree(cdir, ignore_errors=True)
    os.mkdir(bdir); os.mkdir(cdir)
    targets = []
    for i, f in enumerate(batch_src):
        t = os.path.join(bdir, "%d-%s" % (i, os.path.basename(f)))
        shutil.copyfile(f, t); os.chmod(t, 0o755); targets.append(t)
    t0 = time.perf_counter()
    for c in chunks(targets):
        subprocess.run([pkgnote, "stamp", "-q"] + meta + c, stderr=subprocess.DEVNULL)
    best_st = min(best_st, time.perf_counter() - t0)
    t0 = time.perf_counter()
    for i, c in enumerate(chunks(batch_src)):
        d = os.path.join(cdir, str(i)); os.mkdir(d)
        subprocess.run(["cp"] + c + [d])
    best_cp = min(best_cp, time.perf_counter() - t0)
    shutil.rmtree(cdir); os.mkdir(cdir)
    t0 = time.perf_counter()
    for i, c in enumerate(chunks(batch_src)):
        d = os.path.join(cdir, str(i)); os.mkdir(d)
        subprocess.run(["cp"] + c + [d])
        subprocess.run(["sync"] + [os.path.join(d, os.path.basename(f)) for f in c])
    best_cps = min(best_cps, time.perf_counter() - t0)
print("  one process for all %d files (best of %d): stamp %.2f s, cp %.2f s, cp+fsync %.2f s;"
      " stamp/cp %.2f, stamp/cp+fsync %.2f" % (len(batch_src), REPS, best_st, best_cp, best_cps,
                                              best_st / best_cp, best_st / best_cps))
big = sorted(rows, key=lambda r: -r[1])[:5]
print("  largest files:")
for f, size, out, ts, tc, tcs in big:
    print("    %-40s %9d bytes  stamp %.1f ms  cp %.1f ms  cp+fsync %.1f ms" % (f, size, ts * 1e3, tc * 1e3, tcs * 1e3))
PY
