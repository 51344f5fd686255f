#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps --closure/--verify --format dot: every graph made here is
# rendered by graphviz (dot -Tsvg, and the SVG read back as XML), and the
# graph as graphviz itself reads it (its -Tjson: the nodes' drawn labels,
# each edge's ends, class, drawn label and tooltip) equals the graph of
# the JSON of the same run ("nodes", "edges"), compared both ways: the
# closure of real programs (systemctl, with the dlopen edges of
# libsystemd-shared in the sid root), deps --verify of the real sid
# initrds (one cluster each in one digraph), of a directory made here
# with a library taken out, and of objects whose DT_NEEDED names and file
# names hold quotes, backslashes, a newline, '}', an HTML entity and
# graphviz's \N (drawn as themselves, not decoded), and a byte that is not
# UTF-8.  A graph with one edge dropped must fail the comparison.
. "$SRCDIR/tests/lib.sh"
require python3 dot cc readelf ldd timeout
PK=$PKGNOTE
SID=${PKGNOTE_TEST_SID_ROOT:-/var/cache/pkgnote/roots/sid}
ART=${PKGNOTE_TEST_SID_ARTEFACTS:-/var/cache/pkgnote/roots/sid-artefacts}

cat > same.py << 'PYEOF'
"""same.py DOT JSON closure|verify: renders DOT with graphviz (SVG and
its JSON), then compares the graph graphviz read with the one of JSON.
Prints the differences; exit 0 when equal, 1 when not, 2 when graphviz
fails."""
import html, json, subprocess, sys
import xml.etree.ElementTree as ET

dot_file, json_file, mode = sys.argv[1:4]

def vis(s):
    """S as the graph shows it: control characters as \\xNN (bytes that
    are not UTF-8 are already the text \\xNN in the JSON)."""
    out = []
    for ch in s:
        o = ord(ch)
        if o < 0x20 or o == 0x7f or 0x80 <= o <= 0x9f:
            out.append("".join("\\x%02x" % b for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out)

def unesc(s):
    """An attribute's escString as graphviz shows it: \\X is X, and HTML
    entities decoded (graphviz's -Tjson gives the attribute as written)."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return html.unescape("".join(out))

p = subprocess.run(["dot", "-Tsvg", "-o", dot_file + ".svg", "-Tjson", "-o", dot_file + ".json", dot_file],
                   capture_output=True, text=True)
if p.returncode != 0:
    print("dot failed: " + p.stderr.strip()[:500])
    sys.exit(2)
svg = ET.parse(dot_file + ".svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
svg_nodes = sum(1 for g in svg.iter(ns + "g") if g.get("class", "").split()[:1] == ["node"])
svg_edges = sum(1 for g in svg.iter(ns + "g") if g.get("class", "").split()[:1] == ["edge"])

def drawn(o):
    return "".join(x["text"] for x in o.get("_ldraw_", []) if x["op"] == "T")

g = json.load(open(dot_file + ".json"))
if g.get("directed") is not True:
    print("not one directed graph")
    sys.exit(1)
objs = g.get("objects", [])
cluster_of, clusters = {}, []
for o in objs:
    if "nodes" in o and o["name"].startswith("cluster_"):
        clusters.append(drawn(o))
        for n in o["nodes"]:
            cluster_of[n] = drawn(o)
gnodes, byid = [], {}
for o in objs:
    if "nodes" in o:
        continue
    n = (cluster_of.get(o["_gvid"], ""), o.get("class", ""), drawn(o))
    byid[o["_gvid"]] = n
    gnodes.append(n)
gedges = []
for e in g.get("edges", []):
    t, h = byid[e["tail"]], byid[e["head"]]
    gedges.append((t[0], t[2], h[1], h[2], e.get("class", ""), drawn(e), unesc(e.get("tooltip", ""))))

docs = json.load(open(json_file))
if mode == "closure":
    docs = [docs]
jnodes, jedges = [], []
for d in docs:
    c = vis(d["artefact"]) if mode == "verify" else ""
    seen = set()
    for p in d["nodes"]:
        jnodes.append((c, "object", vis(p)))
    for e in d["edges"]:
        key = json.dumps(e, sort_keys=True)
        if key in seen:
            print("an edge twice in the JSON: " + key)
            sys.exit(1)
        seen.add(key)
        if "to" in e:
            to = ("object", vis(e["to"]))
        else:
            to = ("missing", vis(e["name"]))
            if (c,) + to not in jnodes:
                jnodes.append((c,) + to)
        label = ""
        if e["kind"] == "dlopen":
            label = (vis(e["feature"]) + " " if "feature" in e else "") + "(" + e["priority"] + ")"
        jedges.append((c, vis(e["from"])) + to + (e["kind"], label, vis(e["name"])))

bad = 0
def compare(what, got, want):
    global bad
    if len(got) != len(set(got)):
        print("# %s: the dot holds one twice" % what)
        bad = 1
    for x in sorted(set(want) - set(got)):
        print("# %s in the JSON, not in the dot: %r" % (what, x))
        bad = 1
    for x in sorted(set(got) - set(want)):
        print("# %s in the dot, not in the JSON: %r" % (what, x))
        bad = 1
compare("node", gnodes, jnodes)
compare("edge", gedges, jedges)
if mode == "verify" and sorted(clusters) != sorted(vis(d["artefact"]) for d in docs):
    print("# clusters %r, artefacts %r" % (clusters, [d["artefact"] for d in docs]))
    bad = 1
if svg_nodes != len(gnodes) or svg_edges != len(gedges):
    print("# the SVG draws %d nodes and %d edges of %d and %d" % (svg_nodes, svg_edges, len(gnodes), len(gedges)))
    bad = 1
kinds = {}
for e in jedges:
    kinds[e[4] if e[2] == "object" else "missing " + e[4]] = kinds.get(e[4] if e[2] == "object" else "missing " + e[4], 0) + 1
print("# %d nodes, %d edges: %s" % (len(gnodes), len(gedges), ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
sys.exit(bad)
PYEOF

# graph NAME MODE ARGS...: pkgnote deps ARGS... as dot and as JSON, both
# with the same status; the dot rendered and compared with the JSON.
# Sets GRAPH_OUT to the comparison's output, the graph in NAME.dot.
graph() {
        _name=$1 _mode=$2
        shift 2
        timeout 300 "$PK" deps "$@" --format dot > "$_name.dot" 2> "$_name.dot.err"
        _s1=$?
        timeout 300 "$PK" deps "$@" --format json > "$_name.json" 2> "$_name.json.err"
        _s2=$?
        if [ "$_s1" != "$_s2" ] || [ "$_s1" -gt 1 ]; then
                fail "$_name: dot and JSON made" "status $_s1 and $_s2: $(head -c 400 "$_name.dot.err")"
                return 1
        fi
        [ "$(grep -c '^digraph ' "$_name.dot")" = 1 ] && pass "$_name: one digraph" ||
                fail "$_name: one digraph" "$(grep -c '^digraph ' "$_name.dot") of them"
        GRAPH_OUT=$(python3 same.py "$_name.dot" "$_name.json" "$_mode")
        _r=$?
        case $_r in
        0) pass "$_name: dot -Tsvg renders it; its nodes and edges are the JSON's"; echo "$GRAPH_OUT" | tail -n 1 ;;
        2) fail "$_name: dot -Tsvg renders it" "$GRAPH_OUT" ;;
        *) fail "$_name: its nodes and edges are the JSON's"; echo "$GRAPH_OUT" | head -n 20 ;;
        esac
        GRAPH_STATUS=$_s1
        return 0
}
# has NAME WHAT PYTHON-EXPR: whether the JSON of graph NAME (d: the
# closure's document, or the list of verify's) satisfies the expression.
has() {
        if python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($3) else 1)" "$1.json"; then
                pass "$1: $2"
        else
                fail "$1: $2"
        fi
}

# ---- the closure of real programs -----------------------------------
if graph closure-host closure --closure /usr/bin/systemctl /usr/bin/true; then
        has closure-host "systemctl's interpreter and libraries are edges" \
                'any(e["from"] == "/usr/bin/systemctl" and e["kind"] == "interpreter" and "to" in e for e in d["edges"]) and sum(e["from"] == "/usr/bin/systemctl" and e["kind"] == "needed" for e in d["edges"]) >= 3'
fi
if [ -x "$SID/usr/bin/systemctl" ]; then
        if graph closure-sid closure --closure --root "$SID" --all-features --ignore-missing /usr/bin/systemctl; then
                has closure-sid "libsystemd-shared's dlopen edges, found and missing, with feature and priority" \
                        'any(e["kind"] == "dlopen" and "to" in e and "libsystemd-shared" in e["from"] and e.get("feature") for e in d["edges"]) and any(e["kind"] == "dlopen" and "to" not in e for e in d["edges"])'
        fi
else
        missing "closure of systemctl in the sid root (sh dist/make-sid-root.sh)" "$SID"
fi

# ---- deps --verify of the real sid initrds --------------------------
if [ -f "$ART/initrd-dracut.img" ] && [ -f "$ART/initrd-initramfs-tools.img" ]; then
        if with_feature zstd "deps --verify of the sid initrds (zstd-compressed)" &&
           graph verify-sid verify --verify --priority suggested "$ART/initrd-dracut.img" "$ART/initrd-initramfs-tools.img"; then
                has verify-sid "two artefacts, each with its objects and edges" \
                        'len(d) == 2 and all(len(a["nodes"]) > 10 and len(a["edges"]) > 10 for a in d)'
                has verify-sid "a missing edge for each finding about a name" \
                        'all(sum(1 for e in a["edges"] if "to" not in e) == sum(1 for f in a["findings"] if f["kind"] != "unreadable") for a in d)'
        fi
else
        missing "deps --verify of the sid initrds (sh dist/make-sid-artefacts.sh)" "$ART"
fi

# ---- a directory made here, a library taken out ---------------------
mkdir -p art/usr/lib/x86_64-linux-gnu art/usr/bin art/lib64 src
interp=$(readelf -l /usr/bin/true 2> /dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ -n "$interp" ] || interp=/lib64/ld-linux-x86-64.so.2
cp -L "$interp" "art/usr/lib/x86_64-linux-gnu/$(basename "$interp")"
ln -s "../usr/lib/x86_64-linux-gnu/$(basename "$interp")" "art/lib64/$(basename "$interp")"
libc=$(ldd /usr/bin/true | awk '$1 == "libc.so.6" { print $3 }')
cp -L "$libc" art/usr/lib/x86_64-linux-gnu/libc.so.6
echo 'int gone(void) { return 1; }' > src/gone.c
echo 'int gone(void); int foo(void) { return gone(); }' > src/foo.c
echo 'int foo(void); int main(void) { return foo(); }' > src/main.c
if cc -shared -fPIC -Wl,-soname,libgone.so.1 -o src/libgone.so src/gone.c &&
   cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o art/usr/lib/x86_64-linux-gnu/libfoo.so.1 src/foo.c -Lsrc -lgone &&
   cc -o art/usr/bin/prog src/main.c -Lart/usr/lib/x86_64-linux-gnu -l:libfoo.so.1 -Wl,--allow-shlib-undefined; then
        graph verify-dir verify --verify "$T/art"
        [ "$GRAPH_STATUS" = 1 ] && pass "verify-dir: exit 1, libgone.so.1 missing" || fail "verify-dir: exit 1, libgone.so.1 missing" "status $GRAPH_STATUS"
        grep -q '"g0m[0-9]*" \[label="libgone.so.1", class="missing", style="dashed", color="red"' verify-dir.dot &&
                pass "verify-dir: the missing library is a dashed red node" ||
                fail "verify-dir: the missing library is a dashed red node" "$(grep libgone verify-dir.dot)"
        has verify-dir "libfoo.so.1 -> libgone.so.1 missing, prog -> libfoo.so.1, the interpreter found" \
                'any(e["from"].endswith("/libfoo.so.1") and e["name"] == "libgone.so.1" and "to" not in e for e in d[0]["edges"]) and any(e["from"] == "/usr/bin/prog" and e.get("to") == "/usr/lib/x86_64-linux-gnu/libfoo.so.1" for e in d[0]["edges"]) and any(e["kind"] == "interpreter" and e.get("to") for e in d[0]["edges"])'
        graph closure-dir closure --closure --root "$T/art" /usr/bin/prog
        [ "$GRAPH_STATUS" = 1 ] && pass "closure-dir: exit 1" || fail "closure-dir: exit 1" "status $GRAPH_STATUS"

        # The control: a graph with one edge dropped is found out.
        grep -v -- '-> "g0m' verify-dir.dot > cut.dot
        cp verify-dir.json cut.json
        python3 same.py cut.dot cut.json verify > cut.out
        [ $? = 1 ] && grep -q 'in the JSON, not in the dot' cut.out &&
                pass "control: a dot graph without its missing edge differs from the JSON" ||
                fail "control: a dot graph without its missing edge differs from the JSON" "$(cat cut.out)"
else
        fail "a program and libraries built with cc"
fi

# ---- hostile names ---------------------------------------------------
nl='
'
bad1="lib\"q\\b}&amp;\\N${nl}x{.so.1"
bad2="libmiss\"\\\"}$(printf '\377\001')${nl}];.so.2"
echo 'int one(void) { return 1; }' > src/one.c
echo 'int two(void) { return 2; }' > src/two.c
echo 'int one(void); int two(void); int main(void) { return one() + two(); }' > src/hmain.c
mkdir -p hart/usr/bin hart/usr/lib/x86_64-linux-gnu
cp -a "art/usr/lib/x86_64-linux-gnu/$(basename "$interp")" art/usr/lib/x86_64-linux-gnu/libc.so.6 hart/usr/lib/x86_64-linux-gnu/
cp -a art/lib64 hart/
if cc -shared -fPIC "-Wl,-soname,$bad1" -o src/libone.so src/one.c &&
   cc -shared -fPIC "-Wl,-soname,$bad2" -o src/libtwo.so src/two.c &&
   cc -o "hart/usr/bin/p\"r\\o}g" src/hmain.c src/libone.so src/libtwo.so &&
   cp src/libone.so "hart/usr/lib/x86_64-linux-gnu/$bad1"; then
        graph verify-hostile verify --verify "$T/hart"
        has verify-hostile "the names as they are, one found, one missing" \
                'any(e.get("to", "").endswith("/lib\"q\\b}&amp;\\N\nx{.so.1") for e in d[0]["edges"]) and any("to" not in e and e["name"].startswith("libmiss\"\\\"}") for e in d[0]["edges"])'
        grep -q '^digraph' verify-hostile.dot && [ "$(tail -n 1 verify-hostile.dot)" = "}" ] &&
                [ "$(grep -c '^	*"g0[om][0-9]*"' verify-hostile.dot)" = "$(grep -c . verify-hostile.dot | awk '{ print $1 - 7 }')" ] &&
                pass "verify-hostile: every line inside the cluster is one node or edge (no newline written raw)" ||
                fail "verify-hostile: every line inside the cluster is one node or edge (no newline written raw)"
        graph closure-hostile closure --closure --root "$T/hart" "/usr/bin/p\"r\\o}g"
else
        fail "objects with hostile names built with cc"
fi

# ---- options ----------------------------------------------------------
for f in dot text; do
        "$PK" deps --verify --json --format $f "$T/art" > out 2> err
        [ $? = 2 ] && [ ! -s out ] && grep -q -- "--json and --format $f exclude each other" err &&
                pass "--json with --format $f: refused" || fail "--json with --format $f: refused" "$(cat err)"
done
finish
