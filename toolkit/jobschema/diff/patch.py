"""``diff --format patch``: an RFC 6902 JSON Patch that turns LEFT into RIGHT, computed by deepdiff.

The keyed diff (:mod:`jobschema.diff.engine`) says what changed for a reader: pods matched by name,
values compared by meaning. A patch says how to edit one document into the other, so it works on
positions and on values as written: deepdiff's delta of the two documents (``Delta.to_flat_rows``)
becomes ``add``/``remove``/``replace`` operations on JSON Pointers. Within a list, removals go first
from the highest index down, then replacements, then additions from the lowest index up, so every
index is right when its operation runs. The patch is checked by applying it (:func:`apply`): where
deepdiff's rows for a list do not reproduce it (a list whose items moved as well as changed), that
list is replaced whole. Applying the patch to LEFT gives RIGHT exactly, with secrets masked in both
unless ``--show-secrets`` (then the masks are what the patch writes).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from math import copysign
from typing import Any

from jobschema.pointer import from_path, to_path

Operation = dict[str, Any]
Path = tuple[str | int, ...]

_REMOVE = {"dictionary_item_removed", "iterable_item_removed", "set_item_removed"}
_ADD = {"dictionary_item_added", "iterable_item_added", "set_item_added"}
_RANGES = {"iterable_items_deleted", "iterable_items_inserted", "iterable_items_replaced"}


class PatchError(ValueError):
    """A patch that cannot be applied: an operation names a place the document does not have."""


def document_patch(
    left: Any,
    right: Any,
    *,
    schema: str | None = None,
    show_secrets: bool = False,
    labels: tuple[str, str] = ("left", "right"),
) -> list[Operation]:
    """The patch between two snapshots of one job (of one API: a v1 and a v2 AIHC answer, which
    :func:`~jobschema.diff.diff_documents` compares through their shared view, have no patch), with
    every secret masked in both first unless ``show_secrets``: a secret that did not change is no
    operation, one that changed is replaced by its new mask. ``labels`` name the two in errors (the
    CLI gives their files)."""
    from jobschema.diff.compare import plan_of, schema_of
    from jobschema.diff.documents import DiffInputError
    from jobschema.diff.plan import bundled_plan
    from jobschema.diff.secrets import mask_nested

    left_schema, right_schema = schema_of(left, schema, labels[0]), schema_of(right, schema, labels[1])
    if left_schema != right_schema:
        raise DiffInputError(
            f"{labels[0]} is {left_schema} but {labels[1]} is {right_schema}: -f patch needs two answers "
            "of one API"
        )
    if not show_secrets:
        plan = plan_of(left_schema, schema)
        left, right = (mask_nested(side, plan, (None, None, None), bundled_plan) for side in (left, right))
    return json_patch(left, right)


def json_patch(left: Any, right: Any) -> list[Operation]:
    """The operations that turn ``left`` into ``right`` (both left unchanged), the same for any order
    of their objects' members (worked out on both with their members sorted: the values written, and
    the order of the operations, do not depend on how a server ordered them)."""
    from jobschema.diff.result import sorted_members

    left, right = sorted_members(left), sorted_members(right)
    if _equal_as_json(left, right):
        return []
    operations = _from_rows(_rows(left, right))
    if operations is not None and _reproduces(left, operations, right):
        return operations
    return _by_structure(left, right, ())


def apply(document: Any, operations: Iterable[Operation]) -> Any:
    """A copy of ``document`` with the RFC 6902 ``add``/``remove``/``replace`` ``operations`` applied."""
    result = copy.deepcopy(document)
    for operation in operations:
        result = _apply_one(result, operation)
    return result


def _rows(left: Any, right: Any) -> list[Any]:
    from deepdiff import DeepDiff, Delta

    found = DeepDiff(left, right, verbose_level=2, ignore_numeric_type_changes=False)
    return list(Delta(found, bidirectional=True).to_flat_rows())


def _from_rows(rows: Sequence[Any]) -> list[Operation] | None:
    """Operations of deepdiff's flat rows, ordered so each index is right when it is used."""
    removals: list[tuple[Path, Operation]] = []
    changes: list[Operation] = []
    additions: list[tuple[Path, Operation]] = []
    ranges: list[Any] = []
    for row in rows:
        path: Path = tuple(row.path)
        pointer = from_path(path)
        if row.action in _REMOVE:
            removals.append((path, {"op": "remove", "path": pointer}))
        elif row.action in _ADD:
            additions.append((path, {"op": "add", "path": pointer, "value": row.value}))
        elif row.action in ("values_changed", "type_changes"):
            changes.append({"op": "replace", "path": pointer, "value": row.value})
        elif row.action in _RANGES:
            ranges.append(row)
        elif row.action != "iterable_items_equal":  # a move or an attribute: replace by structure
            return None
    removals.sort(key=lambda item: _order(item[0]), reverse=True)
    additions.sort(key=lambda item: _order(item[0]))
    spans = [op for row in sorted(ranges, key=_span_order, reverse=True) for op in _span(row)]
    return [op for _, op in removals] + changes + spans + [op for _, op in additions]


def _span_order(row: Any) -> tuple[tuple[tuple[int, int | str], ...], int]:
    return _order(tuple(row.path)), row.t1_from_index


def _span(row: Any) -> list[Operation]:
    """A range of a list deleted, inserted or replaced (difflib's opcodes, by deepdiff): its items
    removed from the last down, then the new ones added in order, all at the range's start."""
    path: Path = tuple(row.path)
    start, end = row.t1_from_index, row.t1_to_index
    out = [{"op": "remove", "path": from_path((*path, i))} for i in range(end - 1, start - 1, -1)]
    values = row.value if row.action != "iterable_items_deleted" else []
    added = enumerate(values)
    return out + [{"op": "add", "path": from_path((*path, start + k)), "value": v} for k, v in added]


def _order(path: Path) -> tuple[tuple[int, int | str], ...]:
    """A sort key of a path: indexes by number, keys by text, never compared with each other."""
    return tuple((0, step) if isinstance(step, int) else (1, step) for step in path)


def _reproduces(left: Any, operations: list[Operation], right: Any) -> bool:
    try:
        return _equal_as_json(apply(left, operations), right)
    except (PatchError, IndexError, KeyError, TypeError):
        return False


def _equal_as_json(a: Any, b: Any) -> bool:
    """Equal as JSON documents: ``1`` and ``1.0``, ``true`` and ``1``, or ``0.0`` and ``-0.0`` are
    different texts (``-0.0`` as every reader of a double reads it: the patch keeps its sign)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal_as_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal_as_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (type(a) is not float or a != 0.0 or copysign(1.0, a) == copysign(1.0, b))


def _by_structure(left: Any, right: Any, path: Path) -> list[Operation]:
    """The patch of two values walked together: objects key by key, lists of one length item by
    item, anything else (a list whose length changed, a changed scalar) replaced whole."""
    if _equal_as_json(left, right):
        return []
    if isinstance(left, dict) and isinstance(right, dict):
        out = [
            {"op": "remove", "path": from_path((*path, key))} for key in sorted(left.keys() - right.keys())
        ]
        for key in sorted(left.keys() & right.keys()):
            out += _by_structure(left[key], right[key], (*path, key))
        keys = sorted(right.keys() - left.keys())
        return out + [{"op": "add", "path": from_path((*path, key)), "value": right[key]} for key in keys]
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [
            op
            for i, (a, b) in enumerate(zip(left, right, strict=True))
            for op in _by_structure(a, b, (*path, i))
        ]
    return [{"op": "replace", "path": from_path(path), "value": right}]


def _apply_one(document: Any, operation: Operation) -> Any:
    steps = _steps(str(operation.get("path", "")))
    op = operation.get("op")
    if not steps:
        if op in ("add", "replace"):
            return copy.deepcopy(operation["value"])
        raise PatchError("cannot remove the whole document")
    parent = _walk(document, steps[:-1])
    last = steps[-1]
    if isinstance(parent, list):
        _apply_in_list(parent, last, op, operation)
    elif isinstance(parent, dict):
        _apply_in_object(parent, last, op, operation)
    else:
        raise PatchError(f"{operation['path']}: its parent is not an object or array")
    return document


def _apply_in_list(parent: list[Any], step: str, op: Any, operation: Operation) -> None:
    index = len(parent) if step == "-" else _index(step, operation)
    if op == "add" and index <= len(parent):
        parent.insert(index, copy.deepcopy(operation["value"]))
    elif op == "remove" and index < len(parent):
        del parent[index]
    elif op == "replace" and index < len(parent):
        parent[index] = copy.deepcopy(operation["value"])
    else:
        raise PatchError(f"{operation['path']}: no item {index} to {op}")


def _apply_in_object(parent: dict[str, Any], key: str, op: Any, operation: Operation) -> None:
    if op == "add":
        parent[key] = copy.deepcopy(operation["value"])
    elif op in ("remove", "replace") and key in parent:
        if op == "remove":
            del parent[key]
        else:
            parent[key] = copy.deepcopy(operation["value"])
    else:
        raise PatchError(f"{operation['path']}: cannot {op} (op must be add, remove or replace)")


def _index(step: str, operation: Operation) -> int:
    if not step.isdigit() or (step != "0" and step.startswith("0")):
        raise PatchError(f"{operation['path']}: {step!r} is not an array index")
    return int(step)


def _walk(document: Any, steps: Sequence[str]) -> Any:
    node = document
    for step in steps:
        node = node[int(step)] if isinstance(node, list) else node[step]
    return node


def _steps(pointer: str) -> list[str]:
    try:
        return to_path(pointer)
    except ValueError as err:
        raise PatchError(str(err)) from None
