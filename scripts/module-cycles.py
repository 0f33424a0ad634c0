#!/usr/bin/env python3
"""Lists the file-level import cycles of the workspace's crates.

A file depends on another when it names an item of the other's module
(`use crate::a::b::Item`, `super::Item`, or an inline `crate::a::Item`
path). Declaring a submodule (`mod x;`) and re-exporting its items
(`pub use x::Item`) are a module's facade, not a dependency. Test modules
(`#[cfg(test)] mod tests` and what follows it) are not read.

Exits 1 when a crate has a cycle, printing each cycle's files.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
CHILD = re.compile(r"(?<![:\w])([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)


def module_files(src: pathlib.Path) -> dict:
    """Maps each module path (tuple of names) to its file."""
    modules = {}
    for file in src.rglob("*.rs"):
        rel = file.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts in (["lib"], ["main"]):
            parts = []
        elif parts[-1] == "mod":
            parts = parts[:-1]
        modules[tuple(parts)] = file
    return modules


def code_of(file: pathlib.Path) -> str:
    text = file.read_text()
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    # Facades: submodule declarations and re-exports.
    text = re.sub(r"\bpub(\([^)]*\))?\s+use\s+[^;]*;", "", text)
    text = re.sub(r"\bmod\s+\w+\s*;", "", text)
    return text


def resolve(modules, here, head, rest):
    """The file that defines the longest module prefix of the path."""
    if head == "crate":
        base = []
    elif head == "super":
        base = list(here[:-1])
    else:
        base = list(here)
    names = [n for n in rest.split("::") if n]
    while names and names[0] == "super":
        base = base[:-1]
        names = names[1:]
    path = base + names
    while path:
        if tuple(path) in modules:
            return tuple(path)
        path = path[:-1]
    return ()


def cycles_of(src: pathlib.Path):
    modules = module_files(src)
    edges = {m: set() for m in modules}
    for module, file in modules.items():
        text = code_of(file)
        found = []
        for group in USE_GROUP.finditer(text):
            for member in re.split(r"[,\s]+", group.group(3)):
                member = member.split("::")[0].strip("{} ")
                if member and member != "self":
                    found.append((group.group(1), group.group(2) + "::" + member))
        text = USE_GROUP.sub("", text)
        found += [(m.group(1), m.group(2)) for m in PATH.finditer(text)]
        # Paths relative to this module: `child::Item` of a submodule.
        for m in CHILD.finditer(text):
            if module + (m.group(1),) in modules:
                found.append(("self", "::" + m.group(1) + m.group(2)))
        for head, rest in found:
            target = resolve(modules, module, head, rest)
            if target != module and target in modules:
                edges[module].add(target)
    # Tarjan's strongly connected components.
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(modules[m].relative_to(ROOT).as_posix() for m in component))

    sys.setrecursionlimit(10000)
    for v in modules:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    found = 0
    for src in sorted(ROOT.glob("crates/*/src")):
        for cycle in cycles_of(src):
            found += 1
            print("cycle: " + " -> ".join(cycle))
    if found:
        print(f"{found} file-level import cycle(s)", file=sys.stderr)
        return 1
    print("no file-level import cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
