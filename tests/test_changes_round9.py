"""``jobschema changes``, round 9: classification judged on the values a reader can receive.

Probed this round (25 single edits of a schema beside the Run:ai pairs of earlier rounds): a
property removed, a type widened or narrowed, nullable added or removed (``type`` list, ``anyOf``
with null, OpenAPI's ``nullable``), ``required`` added or removed, a format changed, added or
dropped, ``additionalProperties`` opened or closed, a map's values widened or retyped, a ``$ref``
retargeted or renamed, a ``oneOf`` branch added or removed, ``oneOf`` read as ``anyOf``, an enum
value added or removed in array items, an enum dropped, ``const`` for an enum, items dropped.

Classes found and fixed:

- **a witness search under hypothesis' default deadline**: a check slowed by imports or the
  machine's load (over 200 ms) made ``changes`` end in "internal error: FlakyFailure"
  (DeadlineExceeded; seen on int32 -> no format beside a date-time, 1 run in 3). The suite's
  profile has no deadline, so no test saw it; the search now has none either.

- **an enum value the schema's own keywords reject counted as a value**: ``{"type": "string",
  "enum": ["A", "B", null]}`` takes no null (its type says string), yet adding ``null`` (or ``3``, or
  a string its pattern or length rejects, a number outside its bounds, exclusive bounds, OpenAPI
  3.0's ``exclusiveMinimum: true`` or ``multipleOf``) was reported ``enum-value-added``, breaking.
  Equivalence is decided on the values: an enum value the node's type, pattern, length or bound
  rejects is no value the side can send.
- **a format narrowed called a type change**: ``int64`` -> ``int32`` (or ``double`` -> ``float``)
  was ``type-changed``, breaking; a reader of 64-bit integers reads every 32-bit one, so it is
  ``type-narrowed`` (safe), and the other way ``type-widened`` (breaking: a 32-bit reader overflows).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.changes import compare
from tests.conftest import RunCli

DRAWS = settings(max_examples=40, derandomize=True, database=None)

BASE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "e": {"type": "string", "enum": ["A", "B"]},
        "n": {"type": "integer", "format": "int32"},
        "x": {"type": "number", "format": "float"},
        "l": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}},
    },
}


def _with(edit: dict[str, Any]) -> dict[str, Any]:
    schema = copy.deepcopy(BASE)
    schema["properties"].update(edit)
    return schema


def _rules(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((c.rule, "/" + "/".join(c.place)) for c in compare(old, new))


# ------------------------------------------- enum values the node's own keywords reject


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        ({"e": {"type": "string", "enum": ["A", "B", None]}}, "null: the type is string"),
        ({"e": {"type": "string", "enum": ["A", "B", 3]}}, "3: the type is string"),
        ({"e": {"type": "string", "enum": ["A", "B", "lower"], "pattern": "^[A-Z]+$"}}, "pattern"),
        ({"e": {"type": "string", "enum": ["A", "B", "CCCC"], "maxLength": 2}}, "maxLength"),
        ({"l": {"type": "array", "items": {"type": "string", "enum": ["p", "q", None]}}}, "in items"),
    ],
)
def test_an_enum_value_the_node_rejects_is_no_value_added(edit: dict[str, Any], why: str) -> None:
    old = copy.deepcopy(BASE)
    if "pattern" in edit.get("e", {}):
        old["properties"]["e"]["pattern"] = edit["e"]["pattern"]
    if "maxLength" in edit.get("e", {}):
        old["properties"]["e"]["maxLength"] = edit["e"]["maxLength"]
    assert _rules(old, _with(edit)) == [], why
    assert _rules(_with(edit), old) == [], why


@pytest.mark.parametrize(
    "keywords",
    [{"minimum": 1}, {"maximum": 5}, {"exclusiveMinimum": 0}, {"exclusiveMaximum": 9}, {"multipleOf": 2}],
)
def test_a_number_its_bounds_reject_is_no_value_added(keywords: dict[str, Any]) -> None:
    outside = {"minimum": 0, "maximum": 6, "exclusiveMinimum": -1, "exclusiveMaximum": 9, "multipleOf": 3}
    old = _with({"k": {"type": "integer", "enum": [2, 4], **keywords}})
    new = _with({"k": {"type": "integer", "enum": [2, 4, outside[next(iter(keywords))]], **keywords}})
    assert _rules(old, new) == [] and _rules(new, old) == []


def test_openapi_3_0_s_exclusive_flag_bounds_the_enum_too() -> None:
    old = _with({"k": {"type": "integer", "enum": [2], "minimum": 1, "exclusiveMinimum": True}})
    new = _with({"k": {"type": "integer", "enum": [2, 1], "minimum": 1, "exclusiveMinimum": True}})
    assert _rules(old, new) == []


def test_a_value_the_type_takes_is_still_added() -> None:
    nullable = {"e": {"type": ["string", "null"], "enum": ["A", "B", None]}}
    assert _rules(BASE, _with(nullable)) == [("nullable-added", "/e")]
    numbers = _with({"e": {"type": ["string", "integer"], "enum": ["A", "B", 3]}})
    assert ("enum-value-added", "/e") in _rules(BASE, numbers)
    one = _with({"n": {"type": "integer", "enum": [1]}})
    two = _with({"n": {"type": "integer", "enum": [1, 2.0]}})
    assert _rules(one, two) == [("enum-value-added", "/n")]  # (2.0 is an integer to JSON Schema)


@DRAWS
@given(
    extra=st.one_of(
        st.none(), st.integers(-5, 5), st.booleans(), st.lists(st.integers(), max_size=1), st.just({})
    ),
    nullable=st.booleans(),
)
def test_any_value_a_string_enum_cannot_hold_is_no_change(extra: Any, nullable: bool) -> None:
    """A composition: any non-string value added to a string enum, with or without OpenAPI's
    ``nullable`` (which does let null in)."""
    old = _with({"e": {"type": "string", "enum": ["A"], **({"nullable": True} if nullable else {})}})
    new = copy.deepcopy(old)
    new["properties"]["e"]["enum"].append(extra)
    assert _rules(old, new) == []  # (under nullable, null was a value already)


def test_the_cli_reports_no_change_and_exits_0(run_cli: RunCli, tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(BASE))
    new.write_text(json.dumps(_with({"e": {"type": "string", "enum": ["A", "B", None]}})))
    result = run_cli(["changes", str(old), str(new), "-f", "json"], code=0)
    assert json.loads(result.stdout)["changes"] == []


# --------------------------------------------------------------- a format narrowed or widened


@pytest.mark.parametrize(
    ("place", "narrow", "wide"),
    [("n", "int32", "int64"), ("x", "float", "double")],
)
def test_a_format_narrowed_is_safe_and_widened_breaking(place: str, narrow: str, wide: str) -> None:
    kind = BASE["properties"][place]["type"]
    small = _with({place: {"type": kind, "format": narrow}})
    large = _with({place: {"type": kind, "format": wide}})
    [narrowed] = compare(large, small)
    assert (narrowed.rule, narrowed.kind) == ("type-narrowed", "safe")
    [widened] = compare(small, large)
    assert (widened.rule, widened.kind) == ("type-widened", "breaking")


def test_formats_of_other_kinds_still_change_the_type() -> None:
    one = _with({"d": {"type": "string", "format": "date-time"}})
    other = _with({"d": {"type": "string", "format": "date"}})
    assert [c.rule for c in compare(one, other)] == ["type-changed"]
    assert [c.rule for c in compare(other, one)] == ["type-changed"]
    floats = _with({"n": {"type": "number", "format": "float"}})
    longs = _with({"n": {"type": "number", "format": "int64"}})
    assert [c.rule for c in compare(longs, floats)] == ["type-changed"]


# ------------------------------------------------- a witness search slowed by the machine's load


def test_a_slow_first_check_is_no_internal_error() -> None:
    """The witness search asked hypothesis with its default deadline (200 ms a call): a first check
    slowed by imports or a loaded machine made ``changes`` fail with "internal error: FlakyFailure"
    (DeadlineExceeded, seen for int32 -> int64 beside a date-time). The search has no deadline."""
    import time

    from jobschema.changes.search import smallest

    calls: list[int] = []

    def slow_once(value: int) -> bool:
        calls.append(value)
        if len(calls) == 1:  # (the first check is slow: imports, a loaded machine)
            time.sleep(0.3)  # (not a limit: only longer than hypothesis' default deadline)
        return value > 5

    suite = settings._current_profile  # (the suite's profile has no deadline; the CLI's has one)
    settings.load_profile("default")
    try:
        assert smallest(st.integers(min_value=0, max_value=100), slow_once, 50) == 6
    finally:
        settings.load_profile(suite or "default")
