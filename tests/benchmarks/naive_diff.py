"""The naive diff ``jobschema diff`` is measured against (issue #13).

    python tests/benchmarks/naive_diff.py LEFT.json RIGHT.json

What anyone would write in an afternoon: orjson parses both snapshots of an AIHC job, the pods go into
a dict keyed by pod name, and the two sides are compared value by value. Lists of objects that carry a
``name`` (env vars) or a ``key`` (labels) are keyed by it, so a reordered list is no change; other lists
compare by position. No schema, no value semantics (``1`` == ``1.0`` only as Python has it), no secret
masking. Prints one line per change (``+``/``-``/``~``, a dotted path and the values, sorted) and
exits 1 when the snapshots differ, 0 when they are the same.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import orjson

#: The key a list of objects is matched by, tried in this order.
LIST_KEYS = ("name", "key")


def keyed(items: list[Any]) -> dict[str, Any] | None:
    """``items`` keyed by the first of :data:`LIST_KEYS` that every item carries (None: not keyable)."""
    for key in LIST_KEYS:
        if items and all(isinstance(item, dict) and isinstance(item.get(key), str) for item in items):
            out = {item[key]: item for item in items}
            if len(out) == len(items):
                return out
    return None


def compare(left: Any, right: Any, path: str) -> Iterator[str]:
    """The changes from ``left`` to ``right`` under ``path``."""
    if left == right:
        return
    if isinstance(left, dict) and isinstance(right, dict):
        yield from _mapping(left, right, path)
        return
    if isinstance(left, list) and isinstance(right, list):
        by_left, by_right = keyed(left), keyed(right)
        if by_left is not None and by_right is not None:
            yield from _mapping(by_left, by_right, path, "[{}]")
            return
        if len(left) == len(right):
            for index, (a, b) in enumerate(zip(left, right, strict=True)):
                yield from compare(a, b, f"{path}[{index}]")
            return
    yield f"~ {path}: {_text(left)} -> {_text(right)}"


def _mapping(left: dict[str, Any], right: dict[str, Any], path: str, form: str = ".{}") -> Iterator[str]:
    for name in left.keys() - right.keys():
        yield f"- {path}{form.format(name)}: {_text(left[name])}"
    for name in right.keys() - left.keys():
        yield f"+ {path}{form.format(name)}: {_text(right[name])}"
    for name in left.keys() & right.keys():
        yield from compare(left[name], right[name], f"{path}{form.format(name)}")


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()


def pods(document: Any) -> dict[str, Any]:
    """The pods of an AIHC job detail keyed by ``objectMeta.name``."""
    items = document.get("result", {}).get("podList", {}).get("pods") or []
    return {pod["objectMeta"]["name"]: pod for pod in items}


def diff(left: Any, right: Any) -> list[str]:
    """Every change, pods matched by name, sorted."""
    left_pods, right_pods = pods(left), pods(right)
    rest = [_without_pods(left), _without_pods(right)]
    changes = [*compare(rest[0], rest[1], "job"), *compare(left_pods, right_pods, "pods")]
    return sorted(changes)


def _without_pods(document: Any) -> Any:
    result = dict(document.get("result", {}))
    pod_list = dict(result.get("podList") or {})
    pod_list.pop("pods", None)
    result["podList"] = pod_list
    return {**document, "result": result}


def main(argv: list[str]) -> int:
    """Diff LEFT and RIGHT and print the changes."""
    with open(argv[0], "rb") as first, open(argv[1], "rb") as second:  # noqa: PTH123
        left, right = orjson.loads(first.read()), orjson.loads(second.read())
    changes = diff(left, right)
    sys.stdout.write("".join(f"{line}\n" for line in changes))
    return 1 if changes else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
