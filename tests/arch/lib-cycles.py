#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The dependency graph between object files, at the level of symbols:
an edge A -> B when A uses a symbol B defines (nm).  Prints each cycle
(a strongly connected component of more than one file) with its edges
and the symbols behind them, then "N cycles"; exits 1 when there is one.

With --layers, checks the layering instead: each file of lib/ is named
NN-AREA-NAME, NN its layer, and no file uses a symbol defined by a file
of a later layer (files of one layer may use each other; the cycle check
keeps that acyclic).  Prints each edge that goes up, with its symbols, and
each file without a layer number, then "N layer violations"; exits 1 when
there is one.

    lib-cycles.py OBJECT...
    lib-cycles.py --layers OBJECT...
"""
import re
import collections
import os
import subprocess
import sys


def name_of(path):
    n = os.path.basename(path)
    # lib_NAME.c.o for a source of lib/, meson-generated_.._NAME.c.o for
    # a generated one (the public boundary, 12-api-boundary.c: the top).
    for prefix in ("lib_", "meson-generated_.._"):
        if n.startswith(prefix):
            n = n[len(prefix):]
    return n[:-2] if n.endswith(".o") else n


def graph(objs):
    defines, uses = {}, collections.defaultdict(set)
    for o in objs:
        f = name_of(o)
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRVW":
                defines[parts[2]] = f
            elif len(parts) == 2 and parts[0] == "U":
                uses[f].add(parts[1])
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for f, syms in uses.items():
        for s in syms:
            g = defines.get(s)
            if g and g != f:
                edges[f][g].add(s)
    return defines, uses, edges


def layer_of(name):
    m = re.match(r"(\d+)-", name)
    return int(m.group(1)) if m else None


def layers(objs):
    defines, uses, edges = graph(objs)
    bad = 0
    for f in sorted(set(defines.values()) | set(uses)):
        if layer_of(f) is None:
            print("no layer number:", f)
            bad += 1
    for f in sorted(edges):
        for g in sorted(edges[f]):
            lf, lg = layer_of(f), layer_of(g)
            if lf is not None and lg is not None and lg > lf:
                print("up:", f, "->", g + ":", " ".join(sorted(edges[f][g])))
                bad += 1
    print(bad, "layer violations")
    return 1 if bad else 0


def main(objs):
    defines, uses, edges = graph(objs)
    # Tarjan's algorithm, iterative (no recursion limit on large graphs).
    index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]
    nodes = sorted(set(defines.values()) | set(uses))
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                if len(scc) > 1:
                    sccs.append(sorted(scc))
    for scc in sccs:
        print("cycle:", " ".join(scc))
        for a in scc:
            for b in sorted(edges[a]):
                if b in scc:
                    print("   ", a, "->", b + ":", " ".join(sorted(edges[a][b])))
    print(len(sccs), "cycles")
    return 1 if sccs else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--layers"]:
        sys.exit(layers(sys.argv[2:]))
    sys.exit(main(sys.argv[1:]))
