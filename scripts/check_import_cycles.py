#!/usr/bin/env python3
"""Import cycles, counting imports inside functions too.

Reads every module of `venus_rpa` and `workers` (migrations aside), collects every `import`
wherever it is written, and reports (1) cycles between modules anywhere in the two and (2)
cycles between the run lifecycle's apps (`venus_rpa.runs`, `reviews`, `triggers`, `dashboard`),
with those apps' edges. Prints JSON; exit 1 when it finds any cycle. Usage:
`.venv/bin/python scripts/check_import_cycles.py`.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("venus_rpa", "workers")
APPS = ("runs", "reviews", "triggers", "dashboard")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                found[module_name(path)] = path
    return found


def imports_of(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """Every module of `known` that `path` imports, at any depth of its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from a import b` takes the module a.b where there is one, else a name of a
            targets.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names)
    resolved = set()
    for target in targets:
        while target and target not in known:  # `from a.b import c` names a module or a name in one
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def app_of(module: str) -> str | None:
    """The lifecycle app a module belongs to, or None."""
    parts = module.split(".")
    return parts[1] if parts[0] == "venus_rpa" and len(parts) > 1 and parts[1] in APPS else None


def main() -> int:
    known = modules()
    graph = {name: imports_of(path, name, known) for name, path in known.items()}
    apps: dict[str, set[str]] = {app: set() for app in APPS}
    for source, targets in graph.items():
        for target in targets:
            if app_of(source) and app_of(target) and app_of(source) != app_of(target):
                apps[app_of(source)].add(app_of(target))
    report = {"module_cycles": cycles(graph), "app_cycles": cycles(apps),
              "app_edges": {app: sorted(deps) for app, deps in apps.items()}}
    print(json.dumps(report, indent=2))
    return 1 if report["module_cycles"] or report["app_cycles"] else 0


if __name__ == "__main__":
    sys.exit(main())
