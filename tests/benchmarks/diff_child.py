"""Run one diff method in a child process, so the parent can cap it with a time limit.

Usage: ``python diff_child.py METHOD LEFT.json RIGHT.json REPEAT``; prints one JSON object:
``{"seconds": [...], "changes": N, "kinds": {...}, "paths": [...], "error": null}``. Only the diff
call itself is timed (loading the two documents and imports are not).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Diff = Callable[[Any, Any], Any]


def _ours(show_secrets: bool) -> Diff:
    from jobschema.diff import DiffOptions, diff_documents

    options = DiffOptions(show_secrets=show_secrets)
    return lambda left, right: diff_documents(left, right, options=options)


def _deepdiff(ignore_order: bool) -> Diff:
    from deepdiff import DeepDiff

    return lambda left, right: DeepDiff(left, right, ignore_order=ignore_order)


METHODS: dict[str, Callable[[], Diff]] = {
    "jobschema-show-secrets": lambda: _ours(True),
    "jobschema-default": lambda: _ours(False),
    "deepdiff-ignore-order": lambda: _deepdiff(True),
    "deepdiff": lambda: _deepdiff(False),
}


def summarize(result: Any) -> dict[str, Any]:
    """How many changes a result holds, by kind, and (for ours) their paths."""
    if hasattr(result, "changes"):
        kinds: dict[str, int] = {}
        for change in result.changes:
            kinds[change.op] = kinds.get(change.op, 0) + 1
        return {
            "changes": len(result.changes),
            "kinds": kinds,
            "paths": [c.path for c in result.changes[:20]],
        }
    kinds = {str(kind): len(items) for kind, items in result.items()}
    return {"changes": sum(kinds.values()), "kinds": kinds, "paths": []}


def main(argv: list[str]) -> int:
    """Time METHOD on the two documents REPEAT times and print the JSON summary."""
    method, left_path, right_path, repeat = argv
    left = json.loads(Path(left_path).read_text(encoding="utf-8"))
    right = json.loads(Path(right_path).read_text(encoding="utf-8"))
    out: dict[str, Any] = {"seconds": [], "changes": None, "kinds": {}, "paths": [], "error": None}
    try:
        diff = METHODS[method]()
        if method.startswith("jobschema"):
            diff(left, left)  # warm up: builds the diff plan of the schema once, as a long run would
        result = None
        for _ in range(int(repeat)):
            start = time.perf_counter()
            result = diff(left, right)
            out["seconds"].append(time.perf_counter() - start)
        out.update(summarize(result))
    except Exception as err:  # reported in the table, never a traceback
        out["error"] = f"{type(err).__name__}: {err}"
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
