"""``jobschema diff``, round 9: values Python calls equal that JSON writes apart (``1`` and ``1.0``,
``100`` and ``1e2``, ``0.0`` and ``-0.0``, ``true`` and ``1``). By meaning (the default) the numbers
are one value; ``--exact`` promises the values as the documents type them, everywhere diff compares:
a member's value, a keyed list's key (an item keyed ``1`` and one keyed ``1.0`` are two items), a set
member, a repeated key's pairing; and ``-f patch`` turns LEFT into RIGHT exactly, the sign of
``-0.0`` too. ``-0`` written as an integer is read (as Python reads it) as the integer 0, and so is
no change: the one spelling ``--exact`` does not keep (docs/diff.md says so)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.diff import DiffOptions, diff_documents
from jobschema.diff.patch import apply, json_patch
from tests.conftest import RunCli
from tests.support import REPO
from tests.support import workload_listing as _doc

ENV = "spec.environmentVariables"
PTR = "/spec/environmentVariables"


@pytest.fixture(autouse=True)
def _at_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "jobschema-example")


def _changes(left: Any, right: Any, **options: Any) -> list[tuple[Any, ...]]:
    result = diff_documents(left, right, options=DiffOptions(**options))
    return [(c.op, c.path, c.left_pointer, c.right_pointer, c.old, c.new) for c in result.changes]


def _keyed(key: Any) -> dict[str, Any]:
    return _doc([{"name": key, "value": "a"}])


def _field(value: Any) -> dict[str, Any]:
    document = _doc([])
    document["spec"]["numWorkers"] = value
    return document


def _set(*members: Any) -> dict[str, Any]:
    document = _doc([])
    document["spec"]["security"] = {"capabilities": list(members)}
    return document


# --- the keyed list's identity ------------------------------------------------------------------------


def test_exact_keeps_an_item_keyed_1_apart_from_one_keyed_1_0() -> None:
    left, right = _keyed(1), _keyed(1.0)
    assert _changes(left, right) == []
    assert _changes(left, right, exact=True) == [
        ("added", f"{ENV}[name=1.0]", None, f"{PTR}/0", None, {"name": 1.0, "value": "a"}),
        ("removed", f"{ENV}[name=1]", f"{PTR}/0", None, {"name": 1, "value": "a"}, None),
    ]


def test_exact_keeps_an_item_keyed_0_0_apart_from_one_keyed_minus_0_0() -> None:
    left, right = _keyed(0.0), _keyed(-0.0)
    assert _changes(left, right) == []
    assert [c[:2] for c in _changes(left, right, exact=True)] == [
        ("added", f"{ENV}[name=-0.0]"),
        ("removed", f"{ENV}[name=0.0]"),
    ]


def test_exact_holds_in_a_composite_key() -> None:
    def tolerations(value: Any) -> dict[str, Any]:
        return _doc([{"key": value, "effect": "NoSchedule", "operator": "Equal"}], "tolerations")

    assert _changes(tolerations(2), tolerations(2.0)) == []
    assert [c[:2] for c in _changes(tolerations(2), tolerations(2.0), exact=True)] == [
        ("removed", "spec.tolerations[key=2,effect=NoSchedule]"),
        ("added", "spec.tolerations[key=2.0,effect=NoSchedule]"),
    ]


def test_exact_pairs_a_repeated_key_as_written() -> None:
    """Two items keyed ``A`` on each side, one holding ``1`` and one ``1.0``, swapped: by meaning no
    change; ``--exact`` pairs each with the one equal to it as written, so the swap is no change either."""
    left = _doc([{"name": "A", "value": "x", "exclude": 1}, {"name": "A", "value": "x", "exclude": 1.0}])
    right = _doc(list(reversed(left["spec"]["environmentVariables"])))
    assert _changes(left, right) == []
    assert _changes(left, right, exact=True) == []


# --- values ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "by_meaning", "exact"),
    [
        (1, 1.0, False, True),
        (100, 1e2, False, True),
        (0, -0.0, False, True),
        (0.0, -0.0, False, True),
        (0, 0, False, False),  # (``-0`` read: the integer 0)
        (1.0, 1.0, False, False),
        (True, 1, True, True),
        (1, 2, True, True),
    ],
)
def test_a_members_value(left: Any, right: Any, by_meaning: bool, exact: bool) -> None:
    assert bool(_changes(_field(left), _field(right))) is by_meaning
    assert bool(_changes(_field(left), _field(right), exact=True)) is exact


def test_exact_names_the_signed_zero_in_text(run_cli: RunCli, tmp_path: Path) -> None:
    left, right = tmp_path / "left.json", tmp_path / "right.json"
    left.write_text(json.dumps(_field(0.0)), encoding="utf-8")
    right.write_text(
        json.dumps(_field(0.0)).replace('"numWorkers": 0.0', '"numWorkers": -0.0'), encoding="utf-8"
    )
    assert (
        run_cli(["diff", str(left), str(right)], code=0).stdout
        == "same (runai-distributed-workload, snapshot)\n"
    )
    assert run_cli(["diff", "--exact", str(left), str(right)], code=1).stdout == (
        "spec\n  ± spec.numWorkers: 0.0 → -0.0\n"
        "different (runai-distributed-workload, snapshot): 1 changed, 0 added, 0 removed\n"
    )
    zero = tmp_path / "zero.json"
    zero.write_text(json.dumps(_field(0)).replace('"numWorkers": 0', '"numWorkers": -0'), encoding="utf-8")
    integer = tmp_path / "integer.json"
    integer.write_text(json.dumps(_field(0)), encoding="utf-8")
    assert run_cli(["diff", "--exact", str(integer), str(zero)], code=0).stdout == (
        "same (runai-distributed-workload, snapshot)\n"
    )


def test_a_set_member() -> None:
    assert _changes(_set("a", 1), _set("a", 1.0)) == []
    assert _changes(_set(0), _set(-0.0)) == []
    assert [c[:2] for c in _changes(_set(0.0), _set(-0.0), exact=True)] == [
        ("added", "spec.security.capabilities[=-0.0]"),
        ("removed", "spec.security.capabilities[=0.0]"),
    ]


# --- the patch turns LEFT into RIGHT exactly ---------------------------------------------------------


def test_patch_keeps_the_sign_of_zero(run_cli: RunCli, tmp_path: Path) -> None:
    left, right = tmp_path / "left.json", tmp_path / "right.json"
    left.write_text(json.dumps(_field(0.0)), encoding="utf-8")
    right.write_text(json.dumps(_field(-0.0)), encoding="utf-8")
    out = run_cli(["diff", "-f", "patch", str(left), str(right)], code=1).stdout
    assert json.loads(out) == [{"op": "replace", "path": "/spec/numWorkers", "value": -0.0}]
    assert '"value": -0.0' in out


# --- hypothesis: every pair of such values, in every place -------------------------------------------

_VALUES = [0, 0.0, -0.0, 1, 1.0, True, False, 100, 1e2, "1", None, 2.5]


def _as_typed(value: Any) -> tuple[str, Any]:
    """What ``--exact`` promises to compare: the JSON type (integer apart from a number with a
    fraction), the value, and a double's sign."""
    if isinstance(value, float):
        return ("number", value, math.copysign(1.0, value))
    return (type(value).__name__, value, 1.0)


def _by_meaning(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return (type(value).__name__, value)
    return ("number", value + 0.0 if value == 0 else value)


@settings(database=None, derandomize=True, max_examples=150)
@given(st.sampled_from(_VALUES), st.sampled_from(_VALUES), st.sampled_from(["field", "key", "set"]))
def test_exact_compares_as_typed_and_by_meaning_otherwise(left: Any, right: Any, where: str) -> None:
    build = {"field": _field, "key": _keyed, "set": _set}[where]
    if where in ("key", "set") and (left is None or right is None):
        return  # (a null key is a keyless item, a null member no set member: other rounds' matter)
    exact_same = _as_typed(left) == _as_typed(right)
    meaning_same = _by_meaning(left) == _by_meaning(right)
    assert (not _changes(build(left), build(right), exact=True)) is exact_same, (left, right)
    assert (not _changes(build(left), build(right))) is meaning_same, (left, right)


@settings(database=None, derandomize=True, max_examples=100)
@given(st.lists(st.sampled_from(_VALUES), max_size=4), st.lists(st.sampled_from(_VALUES), max_size=4))
def test_the_patch_reproduces_right_as_typed(left: list[Any], right: list[Any]) -> None:
    a, b = {"x": left, "y": {"z": left[:1]}}, {"x": right, "y": {"z": right[:1]}}
    applied = apply(copy.deepcopy(a), json_patch(a, b))
    assert json.dumps(applied) == json.dumps(b)
    assert [_as_typed(v) for v in applied["x"]] == [_as_typed(v) for v in b["x"]]


# --- a file that is no snapshot, given as one --------------------------------------------------------


def test_a_har_given_as_a_snapshot_says_what_it_is(run_cli: RunCli, tmp_path: Path) -> None:
    har = tmp_path / "job.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": []}}), encoding="utf-8")
    expected = f"Error: {har}: a HAR file, not one snapshot: diff --history {har} compares its job answers"
    expected += " in order\n"
    assert run_cli(["diff", str(har), str(har)], code=2).stderr == expected
    assert run_cli(["diff", "--roles", str(har)], code=2).stderr == expected


def test_an_ndjson_file_given_as_a_snapshot_says_what_it_is(run_cli: RunCli, tmp_path: Path) -> None:
    lines = tmp_path / "job.ndjson"
    line = json.dumps(_field(1))
    lines.write_bytes((line + "\r\n\r\n" + line + "\r\n").encode("utf-8"))
    result = run_cli(["diff", str(lines), str(lines)], code=2)
    assert result.stderr == (
        f"Error: {lines}:3:1: invalid JSON: Extra data "
        f"(a value a line is NDJSON: diff --history {lines} compares its lines)\n"
    )
    one = tmp_path / "one-line.json"  # (two values on one line: no NDJSON, the parser's words alone)
    one.write_text('{"code": 1, "message": "m"} {"code": 1, "message": "m"}', encoding="utf-8")
    assert (
        run_cli(["diff", str(one), str(one)], code=2).stderr
        == f"Error: {one}:1:29: invalid JSON: Extra data\n"
    )
