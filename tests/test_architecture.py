"""The layout shows the jobs, and every import runs one way: the foundation and the inputs at the
bottom, the jobs above them, reporters, the workflows built on the jobs, the command line on top.

An import counts wherever it stands (a lazy import inside a function is an edge too), so a new
module that reaches upward, or two modules that import each other, fail here.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

from tests.support import REPO

PACKAGE = REPO / "toolkit" / "jobschema"

#: Bottom first. A group may import its own modules and those of lower layers only.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset(
        {"errors", "pointer", "quantity", "findings", "apis", "text", "lifecycle", "outputs"}
    ),  # foundation: data, facts
    frozenset({"secrets"}),  # the secret policy: what is a credential, how it is masked
    frozenset({"inputs"}),  # reading inputs and side files: captures, schema files, configs
    frozenset({"schemas", "models"}),  # the bundled schemas and their walkers
    frozenset({"validate", "diff", "coverage", "redact", "testing"}),  # the jobs
    frozenset({"report"}),  # validate's report formats
    frozenset({"serve", "record", "changes", "timeline"}),  # workflows built on the jobs
    frozenset({"cli", "pytest_plugin"}),  # the two front ends
    frozenset({"__init__", "__main__"}),  # the package's lazy exports, python -m jobschema
)
#: Within the foundation, data types may use the pointer helpers.
FOUNDATION_EDGES = {("findings", "pointer")}


def _layer(group: str) -> int:
    return next(index for index, groups in enumerate(LAYERS) if group in groups)


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, modules: set[str]) -> Iterator[str]:
    """The jobschema modules ``path`` imports (``from jobschema.x import y`` is ``jobschema.x.y``
    when ``y`` is a module, else ``jobschema.x``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "jobschema":
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                yield child if child in modules else node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.split(".")[0] == "jobschema")


def _edges() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module(path) for path in paths}
    return {
        _module(path): {target for target in _imports(path, modules) if target != "jobschema"}
        for path in paths
    }


def test_every_group_has_a_layer() -> None:
    groups = {_group(module) for module in _edges()}
    assert groups <= {group for layer in LAYERS for group in layer}


def test_imports_run_downward() -> None:
    upward = []
    for module, targets in _edges().items():
        source = _group(module)
        for target in targets:
            group = _group(target)
            same_layer = group != source and _layer(group) == _layer(source)
            if _layer(group) > _layer(source) or (same_layer and (source, group) not in FOUNDATION_EDGES):
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_no_import_circle() -> None:
    graph = _edges()
    known = set(graph)

    def resolve(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    edges = {module: {resolve(t) for t in targets} - {None, module} for module, targets in graph.items()}
    circles = []
    for start in edges:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in edges.get(node, set()):
                if nxt == start and not trail[0].startswith(nxt + "."):
                    circles.append(" -> ".join([*trail, nxt]))
                elif nxt not in seen and nxt is not None:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    # A package imports its own submodules (re-exports), which import the package's siblings: that
    # is not a circle of logic. Anything else is.
    real = [c for c in circles if not _package_and_child(c)]
    assert real == []


def _package_and_child(circle: str) -> bool:
    names = circle.split(" -> ")
    return any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in itertools.pairwise(names))


def test_only_the_command_line_imports_click() -> None:
    users = sorted(
        _module(path)
        for path in PACKAGE.rglob("*.py")
        if "import click" in path.read_text(encoding="utf-8") and _group(_module(path)) != "cli"
    )
    assert users == []
