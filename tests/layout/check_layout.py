#!/usr/bin/env python3
# check_layout.py - the layers of the tree point one way: reads every #include of cmd/, analyzers/, formats/.
"""Fails on an include that points upward or sideways across the layers, and on
a cycle between modules (a module is NAME.c with NAME.h: the include graph then
is the call graph, as a function can only be called through its header).

Layers, bottom to top; a file may include its own folder and any folder below:
  formats/core  formats/model  formats/in | formats/out  analyzers/prepare
  analyzers/db  analyzers (one analysis per command; analyzers/<command>/ too)  cmd
formats/in and formats/out share a level: neither may include the other.
"""
import os
import re
import sys

LAYERS = [
    ("formats/core", 0), ("formats/model", 1), ("formats/in", 2), ("formats/out", 2),
    ("analyzers/prepare", 3), ("analyzers/db", 4), ("analyzers", 5), ("cmd", 6),
]
ROOTS = ("cmd", "analyzers", "formats")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Generated or configured headers, not in the tree: the layer they belong to.
GENERATED = {"config.h": "formats/core", "xplane.pb-c.h": "formats/in", "hlo.pb-c.h": "formats/in"}


def layer_of(path):
    """(folder, level, group) of a tree path; group: analyses in analyzers/<command>/ are one level."""
    for folder, level in LAYERS:
        if path.startswith(folder + "/"):
            group = folder
            if folder == "analyzers":
                group = "analyzers"  # the analyses and their own folders
            return folder, level, group
    return None


def sources(root):
    for top in ROOTS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def resolve(root, src, inc):
    """The tree path SRC's include INC names: relative to SRC's folder, else to the root."""
    base = os.path.basename(inc)
    if inc == base and base in GENERATED and not os.path.exists(os.path.join(root, os.path.dirname(src), inc)):
        return GENERATED[base] + "/" + base
    for cand in (os.path.join(os.path.dirname(src), inc), inc):
        p = os.path.normpath(cand)
        if os.path.exists(os.path.join(root, p)):
            return p
    return None


def find_cycle(graph):
    """One cycle of GRAPH (dict node -> set of nodes) as a list, or None (iterative DFS)."""
    colour = {}
    for start in sorted(graph):
        if colour.get(start):
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
                path.pop()
                continue
            if colour.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not colour.get(nxt):
                colour[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    modules = {}
    for src in sorted(sources(root)):
        here = layer_of(src)
        if here is None:
            errors.append(f"{src}: not in a layer folder")
            continue
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            target = resolve(root, src, inc)
            if target is None:
                errors.append(f"{src}:{line}: #include \"{inc}\": not found in the tree")
                continue
            there = layer_of(target)
            if there is None:
                errors.append(f"{src}:{line}: #include \"{inc}\": {target} is outside the layers")
                continue
            if there[1] > here[1]:
                errors.append(f"{src}:{line}: #include \"{inc}\": upward, {here[0]}/ (level {here[1]}) "
                              f"includes {there[0]}/ (level {there[1]})")
            elif there[1] == here[1] and there[2] != here[2]:
                errors.append(f"{src}:{line}: #include \"{inc}\": sideways, {here[0]}/ includes {there[0]}/")
            a, b = os.path.splitext(src)[0], os.path.splitext(target)[0]
            modules.setdefault(a, set())
            if a != b:
                modules[a].add(b)
    cycle = find_cycle(modules)
    if cycle:
        errors.append("module cycle: " + " -> ".join(cycle))
    for e in errors:
        print("layout: " + e)
    if errors:
        print(f"layout: {len(errors)} violation(s)")
        return 1
    print(f"layout: {len(modules)} modules, includes point downward, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
