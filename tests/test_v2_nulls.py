"""AIHC v2, round 12: ``null`` in an optional member is read as absent, as Baidu's SDKs read it.

The Python SDK's models (``baiducloud_python_sdk_aihc/models/job_item.py``, ``pod.py``, ``job_spec.py``,
``data_source.py``, ...) read every member with ``if m.get(KEY) is not None:``, so a null member is an
absent one, and every member of every v2 model is optional to them. The schema says which members a
job answer must have (``required``: a job's name, status and id, a pod's name, a resource's name and
quantity, ...): a null there is still an error (the SDK reads it as missing), and so is a null item of
an array. Any other declared member may be null: the payload passes, with one warning per null
(``aihc-v2-null-member``) naming the member. v1 (``aihc-job-detail``) and Run:ai accept no more than
before.

The optional and required members are read here from the schema's own ``properties`` and
``required`` (an ``anyOf`` of ``required`` lists counts as required: the job's id under either
spelling, the wrapped ``job``), walking each example as it is.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.pointer import from_path
from jobschema.validate import validate_payload
from tests.support import CAPTURES, EXAMPLES, load_json, schema_document

V2 = "aihc-v2-job"
RULE = "aihc-v2-null-member"
DOCUMENT = schema_document(V2)
FILES = sorted([*(CAPTURES / V2).glob("*.json"), *(EXAMPLES / "valid" / V2).glob("*.json")])
Tokens = tuple[str | int, ...]


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = DOCUMENT["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _parts(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``node`` and the schemas its ``allOf`` adds, resolved."""
    node = _resolved(node)
    yield node
    for part in node.get("allOf", ()):
        yield from _parts(part)


def _members(value: Any, node: dict[str, Any], at: Tokens = ()) -> Iterator[tuple[Tokens, bool]]:
    """``(place, required)`` of every declared member ``value`` has that is not null, at any depth."""
    if isinstance(value, list):
        items = _resolved(node).get("items")
        for index, item in enumerate(value):
            if items is not None:
                yield from _members(item, items, (*at, index))
        return
    if not isinstance(value, dict):
        return
    properties: dict[str, Any] = {}
    required: set[str] = set()
    for part in _parts(node):
        properties.update(part.get("properties", {}))
        required.update(part.get("required", ()))
        for branch in part.get("anyOf", ()):
            required.update(branch.get("required", ()))
    for key, child in value.items():
        if key in properties and child is not None:
            yield (*at, key), key in required
            yield from _members(child, properties[key], (*at, key))


def _nulled(value: Any, places: list[Tokens]) -> Any:
    out = copy.deepcopy(value)
    for place in places:
        parent = out
        for token in place[:-1]:
            parent = parent[token]
        parent[place[-1]] = None
    return out


def _removed(value: Any, places: list[Tokens]) -> Any:
    out = copy.deepcopy(value)
    for place in places:
        parent = out
        for token in place[:-1]:
            parent = parent[token]
        del parent[place[-1]]
    return out


def _outermost(places: list[Tokens]) -> list[Tokens]:
    """``places`` less those inside another of them (a null parent has no members)."""
    return [p for p in places if not any(q != p and p[: len(q)] == q for q in places)]


def _findings(value: Any) -> tuple[int, list[tuple[str, str, str]]]:
    result = validate_payload(value, V2)
    return result.errors, sorted((f.pointer, f.rule, f.severity) for f in result.findings)


EXAMPLES_BY_NAME = {path.name: load_json(path) for path in FILES}
OPTIONAL = {
    name: [p for p, required in _members(value, DOCUMENT) if not required]
    for name, value in EXAMPLES_BY_NAME.items()
}
REQUIRED = {
    name: [p for p, required in _members(value, DOCUMENT) if required]
    for name, value in EXAMPLES_BY_NAME.items()
}


def test_every_example_has_optional_and_required_members_to_null() -> None:
    assert len(FILES) >= 10
    assert all(REQUIRED[name] for name in EXAMPLES_BY_NAME)
    assert len([name for name in EXAMPLES_BY_NAME if OPTIONAL[name]]) >= len(FILES) - 2


WITH_OPTIONAL = sorted(name for name in EXAMPLES_BY_NAME if OPTIONAL[name])


@settings(database=None, derandomize=True, max_examples=60, deadline=None)
@given(st.data())
def test_nulled_optional_members_pass_with_one_warning_each(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(WITH_OPTIONAL))
    value = EXAMPLES_BY_NAME[name]
    chosen = data.draw(st.lists(st.sampled_from(OPTIONAL[name]), min_size=1, max_size=6, unique=True))
    places = _outermost(chosen)
    errors, found = _findings(_nulled(value, places))
    assert errors == 0, (name, places, found)
    warned = sorted(pointer for pointer, rule, severity in found if rule == RULE)
    new = {from_path(place) for place in places}
    before = {pointer for pointer, rule, _ in _findings(value)[1] if rule == RULE}  # (the example's own)
    kept = {p for p in before if not any(p.startswith(q + "/") for q in new)}
    assert warned == sorted(new | kept)
    assert all(severity == "warning" for _, rule, severity in found if rule == RULE)
    # null = absent: every other finding is the absent members' own
    _, absent = _findings(_removed(value, places))
    assert [f for f in found if f[1] != RULE] == [f for f in absent if f[1] != RULE]


@settings(database=None, derandomize=True, max_examples=40, deadline=None)
@given(st.data())
def test_a_nulled_required_member_is_an_error_there(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(EXAMPLES_BY_NAME)))
    place = data.draw(st.sampled_from(REQUIRED[name]))
    errors, found = _findings(_nulled(EXAMPLES_BY_NAME[name], [place]))
    assert errors >= 1
    assert (from_path(place), "type", "error") in found, (name, place, found)
    before = [f for f in _findings(EXAMPLES_BY_NAME[name])[1] if f[1] == RULE]
    assert [f for f in found if f[1] == RULE] == [f for f in before if not f[0].startswith(from_path(place))]


@settings(database=None, derandomize=True, max_examples=30, deadline=None)
@given(st.data())
def test_a_null_item_of_an_array_is_an_error(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(EXAMPLES_BY_NAME)))
    value = EXAMPLES_BY_NAME[name]
    items = [
        (*place, index)
        for place, _ in _members(value, DOCUMENT)
        for index in range(len(_at(value, place)) if isinstance(_at(value, place), list) else 0)
    ]
    if not items:
        return
    place = data.draw(st.sampled_from(items))
    errors, found = _findings(_nulled(value, [place]))
    assert errors >= 1 and (from_path(place), "type", "error") in found, (name, place, found)


def _at(value: Any, place: Tokens) -> Any:
    for token in place:
        value = value[token]
    return value


def test_the_warning_names_the_member_and_says_the_sdks_read_it_as_absent(run_cli, tmp_path: Path) -> None:
    path = EXAMPLES / "valid" / V2 / "optional-members-null.json"
    result = run_cli(["validate", str(path)], code=0)
    lines = [line for line in result.stdout.splitlines() if f"[{RULE}]" in line]
    assert lines, result.stdout
    (finished,) = [line for line in lines if "/job/finishedAt:" in line]
    assert finished.endswith(
        '/job/finishedAt: warning: "finishedAt" is null; both SDKs read a null member as absent '
        f"(they skip None) [{RULE}]"
    )
    assert (
        result.stdout.strip().splitlines()[-1]
        == f"1 payload: 1 valid, 0 invalid; 0 errors, {len(lines)} warnings; 0 skipped"
    )


def test_the_issue_s_payload_passes_with_two_warnings(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "null.json"
    path.write_text(
        '{"requestId": "r", "job": {"jobid": "j", "name": "n", "status": "Running", '
        '"finishedAt": null, "faultToleranceArgs": null}}',
        encoding="utf-8",
    )
    result = run_cli(["validate", str(path)], code=0)
    assert result.stdout.splitlines() == [
        f'{path}:1:90: /job/finishedAt: warning: "finishedAt" is null; both SDKs read a null member as '
        f"absent (they skip None) [{RULE}]",
        f'{path}:1:118: /job/faultToleranceArgs: warning: "faultToleranceArgs" is null; both SDKs read a '
        f"null member as absent (they skip None) [{RULE}]",
        "1 payload: 1 valid, 0 invalid; 0 errors, 2 warnings; 0 skipped",
    ]


def test_a_terminal_job_with_a_null_finished_at_is_warned_as_one_without_it() -> None:
    value = {"requestId": "r", "job": {"jobid": "j", "name": "n", "status": "succeeded", "finishedAt": None}}
    found = [(f.pointer, f.rule) for f in validate_payload(value, V2).findings]
    absent = {"requestId": "r", "job": {"jobid": "j", "name": "n", "status": "succeeded"}}
    assert [f for f in found if f[1] != RULE] == [
        (f.pointer, f.rule) for f in validate_payload(absent, V2).findings
    ]


@pytest.mark.parametrize(
    ("schema", "value", "pointer"),
    [
        (
            "aihc-job-detail",
            {**load_json(CAPTURES / "aihc-job-detail" / "seed.json")},
            "/result/faultToleranceArgs",  # (optional in v1, and no null: v1's reference says none)
        ),
        (
            "runai-distributed-workload",
            {**load_json(CAPTURES / "runai-distributed-workload" / "seed.json")},
            "/actualPhase",  # (optional, and no null in Run:ai's spec)
        ),
    ],
)
def test_v1_and_runai_accept_no_more_nulls(schema: str, value: dict[str, Any], pointer: str) -> None:
    tokens = pointer.strip("/").split("/")
    nulled = _nulled(value, [tuple(tokens)])
    result = validate_payload(nulled, schema)
    assert result.errors >= 1 and pointer in {f.pointer for f in result.findings if f.severity == "error"}
    assert RULE not in {f.rule for f in result.findings}


def test_drawn_v2_answers_hold_no_null_member() -> None:
    """``jobschema.testing.payloads`` (what consumers' property tests draw) does not start sending
    nulls because the schema allows them: a null is what a server may send, not what it should."""
    from hypothesis import find

    from jobschema.testing import payloads

    def has_null(value: Any) -> bool:
        if value is None:
            return True
        if isinstance(value, dict):
            return any(has_null(v) for v in value.values())
        if isinstance(value, list):
            return any(has_null(v) for v in value)
        return False

    with pytest.raises(Exception, match="No examples found"):
        find(payloads(V2), has_null, settings=settings(database=None, derandomize=True, max_examples=60))


def test_the_schema_is_read_once_and_a_payload_without_a_null_member_is_not_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rule's picture of the schema is built on its first payload only (it was built anew for
    every payload), and a payload whose writing holds no null member is not walked at all."""
    from jobschema.validate.rules import aihc_v2

    nulled = {"requestId": "r", "job": {"jobid": "j", "name": "n", "status": "Running", "finishedAt": None}}
    assert [at for at, _ in aihc_v2.null_member(nulled)] == [("job", "finishedAt")]
    from jobschema.schemas import places

    built: list[object] = []
    original = places.compile_places

    def counted(document: Any) -> Any:
        built.append(document)
        return original(document)

    monkeypatch.setattr(places, "compile_places", counted)
    assert [at for at, _ in aihc_v2.null_member(nulled)] == [("job", "finishedAt")]
    assert built == []

    def walked(*args: object) -> None:
        raise AssertionError("walked a payload without a null member")

    monkeypatch.setattr(aihc_v2, "_nulls", walked)
    clean = {"requestId": "r", "job": {"jobid": "j", "name": "null", "status": "Running", "labels": []}}
    assert list(aihc_v2.null_member(clean)) == []
