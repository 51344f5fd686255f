#!/bin/sh
# pkgnote list --group --format html in a real browser.  Real kernel cores
# of two bugs of one program, built as two package versions, stored by
# pkgnote-coredump (as the kernel calls it) for several hosts on several
# days, one host name hostile; then the page is rendered by headless
# Chromium: no console message, no request of the page's own (the browser's
# net log), the DOM holds every number of pkgnote list --group --json,
# nothing of the hostile name became markup, and the screenshot (kept in
# the build directory) is a PNG of more than one colour with the chart's
# colours in it.  Controls show that the console and request checks can
# fail.  No /proc/sys setting is touched.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"

[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only"; exit 77; }
require gcc python3 timeout
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) echo "1..0 # SKIP core_pattern does not write a core into the working directory"; exit 77 ;;
esac
(ulimit -c unlimited) 2>/dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }
require_feature stack
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
        [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: chromium (make deps-test installs it)"; exit 1; }
        echo "1..0 # SKIP chromium is not installed (the page is rendered by a real browser)"; exit 77
fi

# ------------------------------------------------ the crashes
cat > prog.c <<'C'
#include <assert.h>
#include <string.h>
__attribute__((noinline)) int parse_record(const char *s) { return *(volatile const char *)s + (int)strlen(VERSION); }
__attribute__((noinline)) void check_limits(int n) { assert(n < 10); }
int main(int argc, char **argv) {
        if (argc > 1 && !strcmp(argv[1], "limits"))
                check_limits(argc + 20);
        return parse_record(argc > 5 ? argv[1] : NULL);
}
C
note() { printf '{"type":"deb","name":"htmlprog","version":"%s","architecture":"amd64"}' "$1"; }
gcc -O1 -g -DVERSION='"1.0"' -o htmlprog prog.c -Xlinker "--package-metadata=$(note 1.0-1)" || fatal "cannot build 1.0-1"
mkdir v2
gcc -O1 -g -DVERSION='"1.1 rebuilt"' -o v2/htmlprog prog.c -Xlinker "--package-metadata=$(note 1.1-1)" ||
        fatal "cannot build 1.1-1"
crash() { # CORE PROGRAM ARGS...
        _c=$1
        shift
        mkdir -p "$_c.d"
        # A shell of its own waits for the program, so that the message
        # about its signal goes where its output goes.
        (cd "$_c.d" && ulimit -c unlimited && exec sh -c '"$@"; :' sh "$@") > /dev/null 2>&1
        _f=$(ls "$_c.d"/core* 2>/dev/null | head -n 1)
        [ -n "$_f" ] || fatal "no core for $_c"
        mv "$_f" "$_c"
}
crash segv1.core "$T/htmlprog"
crash segv2.core "$T/v2/htmlprog"
crash abrt1.core "$T/htmlprog" limits

echo "stack = yes" > stack.conf
: > nostack.conf
STATE="$T/state"
PID=1000
feed() { # CORE TIME HOST [CONFIG]
        PID=$((PID + 1))
        "$HANDLER" -c "$T/${4:-stack.conf}" -d "$STATE" -l "$T/log" "$PID" 0 0 11 "$2" 18446744073709551615 "$3" htmlprog < "$1" ||
                fatal "pkgnote-coredump failed: $(tail -n 3 log)"
}
# Days of December 2024 (UTC); the hostile name has markup, quotes, an
# ampersand, an escape character and a byte that is not UTF-8 (which the
# store keeps as the text \xff).
D=1733400000
HOSTILE=$(printf '<script>alert(1)</script>"\047&\033[2J<img src=x>\377')
feed segv1.core $D h1
feed segv1.core $((D + 86400)) h1
feed segv1.core $((D + 86400 + 3600)) h2
feed abrt1.core $((D + 86400 + 7200)) h1
feed segv2.core $((D + 3 * 86400)) h2
feed segv2.core $((D + 4 * 86400)) "$HOSTILE"
feed segv1.core $((D + 2 * 86400)) h3 nostack.conf

PKGNOTE_COREDUMP_DIR="$STATE" "$PKGNOTE" list --group --json > groups.json 2> groups.err ||
        fatal "pkgnote list --group --json: $(cat groups.err)"
python3 - groups.json > shape.check 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["crashes"] == 7 and len(d["groups"]) >= 2, (d["crashes"], len(d["groups"]))
assert any(len(g.get("versions", [])) >= 2 for g in d["groups"]), "no group with two versions"
assert any(len(g.get("days", [])) >= 3 for g in d["groups"]), "no group over three days"
PY
[ $? -eq 0 ] && pass "the group document has several groups, versions and days to show" ||
        fail "the group document has several groups, versions and days to show" "$(cat shape.check)"

# ------------------------------------------------ the command
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --format html -o page.html
expect_status 0 "list --group --format html -o FILE exits 0"
[ -s page.html ] && [ ! -s out ] && pass "the page goes to the file, nothing to standard output" ||
        fail "the page goes to the file, nothing to standard output" "$(head -c 200 out)"
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --format html
expect_status 0 "list --group --format html exits 0"
cmp -s out page.html && pass "without -o the same page goes to standard output" ||
        fail "without -o the same page goes to standard output"
PKGNOTE_COREDUMP_DIR="$STATE" run list --format html
expect_status 2 "--format html without --group is refused"
expect_err "needs --group" "... saying it needs --group"
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --format xml
expect_status 2 "an unknown --format is refused"
expect_err "xml" "... naming it"
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --top 1 --format html
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["groupCount"])' groups.json)
[ "$STATUS" -eq 0 ] && [ "$(grep -c '<section class="group"' out)" -eq 1 ] && grep -q "1 group shown of $n\." out &&
        pass "--top 1: one group on the page, of the $n counted" ||
        fail "--top 1: one group on the page, of the $n counted" "exit $STATUS, $(grep -c '<section' out) sections"
cp page.html before.html
mkdir adir
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --format html -o adir
expect_status 2 "a directory as the output is refused"
PKGNOTE_COREDUMP_DIR="$STATE" run list --group --format html --since 'not a time' -o page.html
[ "$STATUS" -eq 2 ] && cmp -s page.html before.html && pass "a failed run leaves the page it would have replaced" ||
        fail "a failed run leaves the page it would have replaced" "exit $STATUS"
# (Text of the page may say "src=": the hostile name does, escaped.)
if grep -n -i -E 'https?:|//|url\(|<script|<[^>]*[[:space:]]src=|<[^>]*[[:space:]]href="[^#]' page.html > external.txt; then
        fail "the page names nothing external and has no script" "$(head -n 3 external.txt)"
else
        pass "the page names nothing external and has no script"
fi

# ------------------------------------------------ the browser
# A private profile and home, no background traffic of the browser's own;
# console messages on standard error; the net log lists every request.
export HOME="$T/home"
mkdir -p "$HOME"
browse() { # NAME URL ARGS...: standard output in NAME.out, standard error in NAME.err, net log NAME.net
        _n=$1 _u=$2
        shift 2
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/profile-$_n" \
                --no-first-run --disable-background-networking --disable-component-update --disable-sync \
                --disable-default-apps --disable-extensions --enable-logging=stderr --v=0 \
                --log-net-log="$T/$_n.net" "$@" "$_u" > "$_n.out" 2> "$_n.err"
}
# The page's own requests: URL requests whose initiator is a page (the
# browser's own say "not an origin").
page_requests() { # NETLOG
        python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {v: k for k, v in d["constants"]["logEventTypes"].items()}
url, page = {}, set()
for e in d["events"]:
    p, src = e.get("params", {}), e["source"]["id"]
    if "url" in p:
        url.setdefault(src, p["url"])
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and p.get("initiator", "not an origin") != "not an origin":
        page.add(src)
for s in sorted(page):
    print(url.get(s, "?"))
PY
}
console() { grep -E ':CONSOLE|Uncaught|Refused to' "$1"; }

browse dom "file://$T/page.html" --dump-dom || fatal "chromium --dump-dom failed ($?): $(grep -v -i dbus dom.err | tail -n 3)"
if console dom.err > console.txt; then
        fail "the page renders without console messages" "$(head -n 3 console.txt)"
else
        pass "the page renders without console messages"
fi
page_requests "$T/dom.net" > requests.txt || fatal "cannot read the net log"
[ ! -s requests.txt ] && pass "the page requests nothing" || fail "the page requests nothing" "$(head -n 3 requests.txt)"

python3 - groups.json dom.out "$HOSTILE" > numbers.check 2>&1 <<'PY'
import json, sys
from html.parser import HTMLParser
doc = json.load(open(sys.argv[1]))
hostile = sys.argv[3]

class Dom(HTMLParser):
    """Elements with a data-field or data-count, with their text."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open, self.found, self.tags = [], [], {}
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        e = {"tag": tag, "attrs": a, "text": ""}
        if "data-field" in a or "data-count" in a:
            self.found.append(e)
        if tag not in ("meta", "br", "img", "line", "input", "link"):
            self.open.append(e)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)
    def handle_endtag(self, tag):
        while self.open:
            e = self.open.pop()
            if e["tag"] == tag:
                break
    def handle_data(self, data):
        for e in self.open:
            e["text"] += data

dom = Dom()
dom.feed(open(sys.argv[2], encoding="utf-8").read())
bad = []
def check(what, got, want):
    if got != want:
        bad.append("%s: page %r, JSON %r" % (what, got, want))

def marked(**kw):
    out = []
    for e in dom.found:
        a = e["attrs"]
        # Elements of exactly these places: no data-group, data-machine
        # or data-version that was not asked for.
        extra = {k[5:] for k in a if k in ("data-group", "data-machine", "data-version")} - set(kw)
        if e["tag"] != "rect" and not extra and all(a.get("data-" + k) == v for k, v in kw.items()):
            out.append(e)
    return out

def number(what, want, **kw):
    els = marked(**kw)
    if not els:
        bad.append("%s: not on the page" % what)
    for e in els:
        got = e["attrs"]["data-value"] if "data-value" in e["attrs"] else e["text"].strip()
        check(what, got, str(want))

for k in ("crashes", "groupCount", "machineCount", "first", "last"):
    number(k, doc[k], field=k)
groups = doc["groups"]
check("sections", dom.tags.get("section", 0), min(len(groups), 50))
for i, g in enumerate(groups):
    gi = str(i)
    for k in ("count", "first", "last", "boots"):
        if k in g:
            number("group %d %s" % (i, k), g[k], group=gi, field=k)
    check("group %d count shown twice" % i, len(marked(group=gi, field="count")), 2)
    keys = [e["text"] for e in marked(group=gi, field="key")]
    check("group %d key" % i, keys, [g["key"]])
    for j, m in enumerate(g.get("machines", [])):
        number("group %d machine %d count" % (i, j), m["count"], group=gi, machine=str(j), field="count")
        number("group %d machine %d last" % (i, j), m["last"], group=gi, machine=str(j), field="last")
    for j, v in enumerate(g.get("versions", [])):
        for k in ("count", "first", "last"):
            number("group %d version %d %s" % (i, j, k), v[k], group=gi, version=str(j), field=k)
    if g.get("notSeenSince"):
        nss = [e["text"] for e in marked(group=gi, field="notSeenSince")]
        check("group %d notSeenSince" % i, nss, ["not seen since " + g["notSeenSince"]])
    # The chart's bars: per version, the document's days summed.
    want, got = {}, {}
    for d in g.get("days", []):
        want[d.get("version") or ""] = want.get(d.get("version") or "", 0) + d["count"]
    for e in dom.found:
        a = e["attrs"]
        if e["tag"] == "rect" and a.get("data-group") == gi:
            got[a.get("data-version", "")] = got.get(a.get("data-version", ""), 0) + int(a["data-count"])
    check("group %d chart" % i, got, want)
    # The example's core, while the store has it: its modules and their
    # packages (the five largest groups).
    ex = g.get("example", {})
    if i < 5 and ex.get("core") == "file":
        mods = [e["text"] for e in dom.found if e["tag"] == "table" and
                e["attrs"].get("data-field") == "modules" and e["attrs"].get("data-group") == gi]
        pkg = ex.get("package") or {}
        if len(mods) != 1 or ex.get("executable", "?") not in mods[0] or pkg.get("version", "?") not in mods[0]:
            bad.append("group %d: no modules table with %s %s" % (i, ex.get("executable"), pkg.get("version")))
# The hostile host name: text of the page, never markup.
check("script elements", dom.tags.get("script", 0), 0)
check("img elements", dom.tags.get("img", 0), 0)
shown = hostile.replace("\033", "\\x1b").replace("\udcff", "\\xff")
if shown not in open(sys.argv[2], encoding="utf-8").read().replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&"):
    bad.append("the hostile host name is not shown as text")
for b in bad:
    print(b)
print("%d groups checked" % len(groups))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && pass "the DOM holds every number of the JSON, the hostile name as text" ||
        fail "the DOM holds every number of the JSON, the hostile name as text" "$(head -n 5 numbers.check | tr '\n' ' ')"

browse shot "file://$T/page.html" --screenshot="$T/page.png" --window-size=1200,2000 ||
        fatal "chromium --screenshot failed ($?): $(grep -v -i dbus shot.err | tail -n 3)"
python3 - page.png > png.check 2>&1 <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, [], None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
    elif kind == b"IDAT":
        idat.append(data[pos + 8:pos + 8 + n])
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
assert (w, h) == (1200, 2000), (w, h)
assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(b"".join(idat)), w * bpp
prev, colours = bytearray(stride), set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, bpp):
        colours.add(bytes(line[i:i + 3]))
    prev = line
# The first two versions' colours of the chart (list-html.c's palette).
chart = {bytes((0x42, 0x69, 0xd0)), bytes((0xef, 0xb1, 0x18))}
print("%dx%d, %d colours" % (w, h, len(colours)))
assert len(colours) > 16, "hardly more than one colour"
assert chart <= colours, "the chart's colours are not in the screenshot"
PY
if [ $? -eq 0 ]; then
        pass "the screenshot is a PNG of the page with its chart ($(tail -n 1 png.check))"
else
        fail "the screenshot is a PNG of the page with its chart" "$(tail -n 2 png.check | tr '\n' ' ')"
fi
ART="$BUILDDIR/cmd-group-html.png"
cp page.png "$ART" && cp page.html "$BUILDDIR/cmd-group-html.html" && echo "# screenshot: $ART (page: $BUILDDIR/cmd-group-html.html)"

# ------------------------------------------------ the checks can fail
# A page with a script error and a request of its own: both are seen.
printf '<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"><script>undefined_here()</script></body></html>\n' > control.html
browse control "file://$T/control.html" --dump-dom
console control.err > /dev/null && pass "control: a script error is a console message the check sees" ||
        fail "control: a script error is a console message the check sees" "$(grep -v -i dbus control.err | tail -n 3)"
page_requests "$T/control.net" | grep -q '^http://127.0.0.1:9/x.png$' &&
        pass "control: a request of the page is one the check sees" || fail "control: a request of the page is one the check sees"
finish
