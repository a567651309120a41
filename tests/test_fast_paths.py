"""The shortcuts of the validate hot path give exactly what the slow, exact paths give.

- :func:`jobschema.inputs.parse.fast_parse` (orjson plus a colon count) against ``json.loads`` with the
  duplicate-key hook;
- the quick validator (:mod:`jobschema.validate.shortcuts.quick`: schema and warn-only checks, one
  compiled pass)
  against the detailed validator plus the annotation walk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.inputs.parse import MISSING, decode, fast_parse, parse_exactly, parse_text
from jobschema.inputs.payload import Payload
from jobschema.testing import SCHEMAS, invalid_payloads, payloads
from jobschema.validate.formats import FORMATS
from jobschema.validate.session import Session
from jobschema.validate.shortcuts.quick import derive
from tests.support import CAPTURES, all_examples, load_json

# -- parsing ---------------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "name", "value", "a:b", 'q"', "\\", "é", "键"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=8)
    | st.sampled_from(["x:y", '":', "\\u003a", "{\\", "0" * 25, "\x1a"])
)


def _pairs_text(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A JSON object's text whose pairs may repeat a key."""
    pair = st.tuples(KEYS, children).map(lambda p: f"{json.dumps(p[0])}: {p[1]}")
    return st.lists(pair, max_size=5).map(lambda pairs: "{" + ", ".join(pairs) + "}")


def _array_text(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(children, max_size=5).map(lambda items: "[" + ",".join(items) + "]")


def _scalar_text() -> st.SearchStrategy[str]:
    plain = SCALARS.flatmap(lambda v: st.sampled_from([json.dumps(v), json.dumps(v, ensure_ascii=False)]))
    odd = st.sampled_from(["1E400", "-0", "1.0e2", '"\\u003a"', '"\\u003A"', '"\\ud800"', "NaN", " 7 "])
    return plain | odd | NUMBER_LITERALS


#: Numbers as any writer may spell them: long integers, long mantissas, exponents up to overflow.
NUMBER_LITERALS = st.from_regex(
    r"-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,40})?([eE][-+]?[0-9]{1,3})?", fullmatch=True
)


JSON_TEXTS = st.recursive(_scalar_text(), lambda c: _pairs_text(c) | _array_text(c), max_leaves=20)


def _damaged(data: bytes) -> st.SearchStrategy[bytes]:
    """``data`` with one byte replaced (invalid UTF-8, NUL, a stray quote), or unchanged."""
    if not data:
        return st.just(data)
    index = st.integers(0, len(data) - 1)
    byte = st.sampled_from([b"\x00", b"\xff", b"\xc3", b"\xed", b'"', b"\n"])
    return st.just(data) | st.tuples(index, byte).map(lambda p: data[: p[0]] + p[1] + data[p[0] + 1 :])


JSONISH = st.text(alphabet='{}[]":,0123456789eE.+- \\u3aAtrufalsn\n', max_size=30)


def typed(value: Any) -> Any:
    """``value`` with every type spelled out (``1 == 1.0 == True`` in Python, not here)."""
    if isinstance(value, dict):
        return ("object", [(key, typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("array", [typed(item) for item in value])
    return (type(value).__name__, repr(value))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_TEXTS | JSONISH)
def test_fast_parse_gives_what_the_exact_parser_gives_or_defers(text: str) -> None:
    fast = fast_parse(text.encode("utf-8"))
    if fast is MISSING:
        return
    slow = parse_exactly(text)
    assert slow.ok, slow.error
    assert slow.duplicates == ()
    assert typed(fast) == typed(slow.value)


@settings(max_examples=200, deadline=None)
@given(st.recursive(SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(KEYS, c, max_size=4)))
def test_fast_parse_takes_ordinary_documents(value: Any) -> None:
    for text in (
        json.dumps(value, indent=2, ensure_ascii=False),  # orjson's own layout, floats aside
        json.dumps(value, indent=4),  # another layout: the colons are counted
        json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n",
    ):
        fast = fast_parse(text.encode("utf-8"))
        if fast is MISSING:  # only what the fast path cannot read as the exact parser does
            assert "\\u003" in text or _beyond_orjson(value), text
        else:
            assert typed(fast) == typed(parse_exactly(text).value)


def _beyond_orjson(value: Any) -> bool:
    """True for a value holding what the fast path leaves to the exact parser: an integer beyond 64
    bits, a float of 1e16 or more, a string with ``e+`` (how orjson writes such a float)."""
    if isinstance(value, dict):
        return any(_beyond_orjson(key) or _beyond_orjson(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_beyond_orjson(item) for item in value)
    if isinstance(value, str):
        return "e+" in value
    if isinstance(value, float):
        return abs(value) >= 1e16
    return isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ('{"a": 1, "b": {"c": [1, 2.5, "x:y"]}}', True),
        ('{"a": 1, "a": 2}', False),  # duplicate key: the exact path names it
        ('{"a": {"k": 1, "k": 1}}', False),
        ('{"a": 18446744073709551616}', False),  # orjson would make it a float
        ('{"a": -9223372036854775809}', False),
        ('{"a": 18446744073709551615, "b": -9223372036854775808}', True),  # 64 bits: exact in orjson
        ('{"a": 1e16}', False),  # a float orjson writes with an exponent: the exact path says the same
        ('{"a": "x e+ y"}', True),  # orjson's writing but for a space: its tokens, taken
        ('{"a": 1, "b": "x e+ y", "a": 2}', False),  # the same bytes with a dropped pair: deferred
        ('{\r\n\t"a": [\r\n\t\t1, "x:y"\r\n\t]\r\n}\r\n', True),  # tabs and CRLF, orjson's tokens
        ('{"a": 1.10}', True),  # not orjson's tokens (1.1): the colons are counted
        ('{"a": "\\u00e9", "b": 1}', True),  # an escape orjson would not write: the same
        ('{"a": 0.12345678901234567890123456789, "b": 1e-300}', True),  # rounded as float() rounds
        ('{"a": "1234567890:123456789"}', True),
        ('{"a": "2024-07-16T17:20:04Z", "b": "12:34:56"}', True),
        ('{"a": "\\u003a", "a": 1, "b": 2}', False),
        ('{"a": "\\ud800"}', False),
        ('{"a": NaN}', False),
        ("[1, 2", False),
        ("[" * 2000 + "]" * 2000, False),
    ],
)
def test_fast_parse_defers_what_it_cannot_decide(text: str, taken: bool) -> None:
    assert (fast_parse(text.encode("utf-8")) is not MISSING) == taken


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "a": "x e+ y",\n  "b": "\\u003a"\n}\n',  # orjson writes ':' itself: not its text
        '{\n  "a": "x e+ y",\n  "b": [\n    1,\n    2.5\n  ]\n}',
        '{"a":"x e+ y","b":{"c":[]}}',
    ],
)
def test_fast_parse_takes_text_exactly_as_orjson_writes_it(text: str) -> None:
    value = json.loads(text)
    fast = fast_parse(text.encode("utf-8"))
    written = orjson.dumps(value, option=orjson.OPT_INDENT_2 if text[1] == "\n" else 0).decode()
    assert (fast is not MISSING) == (text.rstrip("\n") == written)
    if fast is not MISSING:
        assert typed(fast) == typed(value)


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "a": 1,\n  "a": 2\n}',  # the layout of orjson, with a key written twice
        '{\n  "a": 18446744073709551616\n}',
        '{\n  "a": "\\u003a",\n  "a": 1,\n  "b": 2\n}',
        '{\r\n  "a": 1,\r\n  "a": 2\r\n}',
    ],
)
def test_text_in_orjson_layout_that_it_would_not_write_takes_the_exact_path(text: str) -> None:
    assert fast_parse(text.encode("utf-8")) is MISSING


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=40) | JSON_TEXTS.map(lambda t: t.encode("utf-8")).flatmap(_damaged))
def test_fast_parse_of_bytes_takes_only_utf8_json(data: bytes) -> None:
    if fast_parse(data) is MISSING:
        return
    text, problem = decode(data)
    assert problem is None
    assert typed(fast_parse(data)) == typed(parse_exactly(text).value)


def test_duplicate_keys_still_reported() -> None:
    payload = Payload("t", None).take(parse_text('{"a": 1, "b": {"k": 1, "k": 2}, "a": 3}'))
    assert payload.value == {"a": 3, "b": {"k": 2}}
    assert [(p.rule, p.message, p.severity) for p in payload.problems] == [
        ("duplicate-key", 'duplicate key "k"; the last one wins (the first at column 21)', "warning"),
        ("duplicate-key", 'duplicate key "a"; the last one wins (the first at column 7)', "warning"),
    ]


# -- the quick validator ---------------------------------------------------------------------------


def nothing_to_report(session: Session, name: str, payload: Any) -> bool:
    reference = session.checker(name).reference
    return not (
        reference.schema_problems(payload)
        + reference.soft_problems(payload)
        + reference.embedded_problems(payload)
    )


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_quick_validator_passes_exactly_the_payloads_with_nothing_to_report(case: tuple[str, Path]) -> None:
    name, path = case
    session = Session()
    payload = load_json(path)
    assert session.checker(name)._quick_valid(payload) == nothing_to_report(session, name, payload)


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_bundled_schema_has_a_quick_validator(name: str) -> None:
    assert Session().checker(name).quick is not None


@pytest.mark.parametrize("name", SCHEMAS)
def test_quick_validator_agrees_on_generated_payloads(name: str) -> None:
    session = Session()
    checker = session.checker(name)

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(payloads(name), invalid_payloads(name))
    def check(valid: dict[str, Any], invalid: tuple[dict[str, Any], str]) -> None:
        for payload in (valid, invalid[0]):
            assert checker._quick_valid(payload) == nothing_to_report(session, name, payload)

    check()


def _schema(node: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", **extra, **node}


def _quick(schema: dict[str, Any]) -> Any:
    import jsonschema_rs

    derived = derive(schema, FORMATS)
    assert derived is not None
    return jsonschema_rs.validator_for(derived.document, formats=derived.formats, validate_formats=True)


def test_each_warn_only_annotation_becomes_a_constraint() -> None:
    quick = _quick(
        _schema(
            {
                "properties": {
                    "status": {"type": ["string", "null"], "x-jobschema-known-values": ["Running"]},
                    "id": {"type": "string", "x-jobschema-format": "uuid"},
                    "label": {"type": "string", "x-jobschema-pattern": "^[a-z]+$"},
                    "old": {"deprecated": True},
                    "word": {"type": "string", "x-jobschema-pattern": "\\w"},
                }
            }
        )
    )
    assert quick.is_valid({"status": "Running", "id": "0b6c7f0e-7d6b-4c4e-9a52-0f1c2d3e4f50", "label": "ok"})
    assert quick.is_valid({"status": None, "old": None, "label": "ok\n", "word": "é"})  # as re.search
    for bad in (
        {"status": "Lost"},
        {"id": "x"},
        {"label": "A"},
        {"label": "ok\n\n"},
        {"old": 1},
        {"word": "-"},
    ):
        assert not quick.is_valid(bad), bad


def test_the_compiled_pass_calls_python_only_for_expressions_it_cannot_hold() -> None:
    node = {"x-jobschema-pattern": "^[a-z]+$", "type": "string"}
    derived = derive(
        _schema({"properties": {"a": node, "b": {**node, "x-jobschema-pattern": "\\d"}}}), FORMATS
    )
    assert derived is not None
    assert derived.document["properties"]["a"]["allOf"] == [{"pattern": "^[a-z]+\\n?$"}]
    assert derived.document["properties"]["b"]["allOf"] == [{"format": "x-jobschema-pattern-0"}]
    assert list(derived.formats) == ["x-jobschema-pattern-0"]


def test_the_quick_pass_checks_every_embedded_document_the_walk_reports() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    session = Session()
    checker = session.checker("aihc-job-detail")
    assert checker._quick_valid(payload)
    pods = payload["result"]["podList"]["pods"]
    annotations = pods[-1]["objectMeta"]["annotations"]
    key = next(k for k in annotations if "raw" in k)
    annotations[key] = annotations[key].replace('"name"', '"name": 1, "x"', 1)
    assert not checker._quick_valid(payload)
    assert nothing_to_report(session, "aihc-job-detail", payload) is False


@pytest.mark.parametrize(
    "schema",
    [
        _schema({"oneOf": [{"properties": {"a": {"x-jobschema-known-values": ["x"]}}}, {"type": "object"}]}),
        _schema({"anyOf": [{"properties": {"a": {"deprecated": True}}}]}),
        _schema({"not": {"properties": {"a": {"x-jobschema-pattern": "^a$"}}}}),
        _schema(
            {
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"x-jobschema-known-values": ["x"]},
            }
        ),
        _schema(
            {"properties": {"a": {"$ref": "#/$defs/A"}}, "if": {"$ref": "#/$defs/A"}},
            **{"$defs": {"A": {"x-jobschema-format": "uuid"}}},
        ),
    ],
    ids=["oneOf", "anyOf", "not", "additionalProperties beside properties", "if via $ref"],
)
def test_no_quick_validator_where_the_shortcut_could_miss_a_finding(schema: dict[str, Any]) -> None:
    assert derive(schema, FORMATS) is None


def test_additional_properties_of_the_same_shape_as_the_properties_keep_the_shortcut() -> None:
    schema = _schema(
        {
            "properties": {"Master": {"$ref": "#/$defs/R", "description": "the master"}},
            "additionalProperties": {"$ref": "#/$defs/R", "description": "any other role"},
            "$defs": {"R": {"properties": {"policy": {"x-jobschema-known-values": ["Never"]}}}},
        }
    )
    quick = _quick(schema)
    assert quick.is_valid({"Master": {"policy": "Never"}, "Worker": {"policy": "Never"}})
    assert not quick.is_valid({"Master": {"policy": "Always"}})
    assert not quick.is_valid({"Worker": {"policy": "Always"}})


@pytest.mark.parametrize("const", [2**70, -(2**64), "\ud800", 1e308, -0.0, 18446744073709551615])
def test_derive_copies_every_json_value_exactly_and_leaves_the_schema_alone(const: Any) -> None:
    schema = _schema({"properties": {"a": {"const": const}, "b": {"x-jobschema-format": "uuid"}}})
    before = json.dumps(schema)
    derived = derive(schema, FORMATS)
    assert derived is not None
    kept = derived.document["properties"]["a"]["const"]
    assert (type(kept), repr(kept)) == (type(const), repr(const))
    assert json.dumps(schema) == before


def test_compiled_validators_call_format_functions_with_strings_only() -> None:
    import jsonschema_rs

    seen: list[object] = []

    def record(value: object) -> bool:
        seen.append(value)
        return True

    schema = {"format": "x", "items": {"format": "x"}}
    validator = jsonschema_rs.validator_for(schema, formats={"x": record}, validate_formats=True)
    assert validator.is_valid([1, None, "a", {"b": 1}, 2.5, True])
    assert seen == ["a"]


def test_values_that_look_like_annotated_nodes_are_left_alone() -> None:
    schema = _schema({"not": {"const": {"deprecated": True}}, "properties": {"a": {"deprecated": True}}})
    quick = _quick(schema)
    assert not quick.is_valid({"deprecated": True})  # the const still matches, so `not` fails
    assert not quick.is_valid({"a": 1})
    assert quick.is_valid({"a": None})


def test_placement_is_checked_at_any_depth() -> None:
    node: dict[str, Any] = {"oneOf": [{"x-jobschema-known-values": ["x"]}, {"type": "number"}]}
    for _ in range(80):
        node = {"properties": {"a": node}}
    assert derive(_schema(node), FORMATS) is None


# -- schemas where the walk and the validator could disagree: the shortcut is not taken ------------


@pytest.mark.parametrize(
    "schema",
    [
        {  # draft-07 ignores keywords beside $ref, the walk does not
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"x": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/definitions/x", "deprecated": True}},
        },
        {  # percent-encoded reference
            "$defs": {"a b": {"type": "integer"}, "a%20b": {"deprecated": True}},
            "properties": {"a": {"$ref": "#/$defs/a%20b"}},
        },
        {  # a nested $id changes what "#/$defs/x" means
            "$defs": {"x": {"deprecated": True}},
            "properties": {"a": {"$id": "https://example.com/sub", "$defs": {"x": {}}, "$ref": "#/$defs/x"}},
        },
        {"properties": {"a": {"$ref": "#anchor"}}, "$defs": {"x": {"$anchor": "anchor", "deprecated": True}}},
        {"properties": {"a": {"x-jobschema-pattern": "("}}},  # a broken pattern stays a per-value problem
        {"additionalItems": {"not": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"deprecated": True}}},
        {"properties": {"a": {"$dynamicRef": "#meta", "deprecated": True}}},
    ],
    ids=[
        "draft-07 $ref siblings",
        "percent-encoded $ref",
        "nested $id",
        "anchor",
        "bad pattern",
        "additionalItems",
        "$dynamicRef",
    ],
)
def test_no_quick_validator_where_references_or_drafts_differ(schema: dict[str, Any]) -> None:
    assert derive(schema, FORMATS) is None


@pytest.mark.parametrize(
    ("node", "payload"),
    [
        ({"properties": {"tags": {"items": {"x-jobschema-known-values": ["a"]}}}}, {"tags": {"k": "zzz"}}),
        ({"properties": {"m": {"additionalProperties": {"deprecated": True}}}}, {"m": [1]}),
    ],
    ids=["items without type", "additionalProperties without type"],
)
def test_items_and_additional_properties_need_a_type_for_the_shortcut(
    node: dict[str, Any], payload: dict[str, Any]
) -> None:
    """The walk applies both keywords to arrays and objects alike; the validator, each to one kind."""
    from jobschema.schemas.registry import Schema
    from jobschema.validate.checker import Checker

    checker = Checker(Schema("custom", Path("custom.json"), _schema(node)), lambda ref: checker)
    assert checker.quick is None
    assert checker.check(payload) != []


S2020 = "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize(
    "schema",
    [
        {
            "properties": {
                "a": {"enum": [{"x-jobschema-known-values": ["q"]}]},
                "b": {"$ref": "#/properties/a/enum/0"},
            }
        },
        {
            "properties": {
                "p": {
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "$ref": "#/$defs/q",
                    "deprecated": True,
                }
            },
            "$defs": {"q": {}},
        },
        {
            "properties": {"p": {"$ref": "#/$defs/x/$defs/y"}},
            "$defs": {
                "x": {"$id": "http://e.example/x", "$defs": {"y": {"$ref": "#/$defs/z"}, "z": {}}},
                "z": {"x-jobschema-known-values": ["x"]},
            },
        },
        {"properties": {"a": {"x-jobschema-known-values": [1e23]}}},
        {"properties": {"a": {"x-jobschema-known-values": [[10**23]]}}},
        {"properties": {"a": {"$ref": "#/properties/b/allOf/0"}, "b": {"x-jobschema-known-values": ["x"]}}},
    ],
    ids=[
        "$ref into an enum",
        "nested $schema",
        "$ref through a nested $id",
        "float known value",
        "big int known value",
        "dangling $ref",
    ],
)
def test_no_quick_validator_for_second_review_cases(schema: dict[str, Any]) -> None:
    assert derive({"$schema": S2020, **schema}, FORMATS) is None


def test_the_embedded_memory_is_bounded_in_entries_and_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from jobschema.validate import checker as checking

    payload = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    annotations = payload["result"]["podList"]["pods"][0]["objectMeta"]["annotations"]
    key = next(k for k in annotations if "raw" in k)
    text = annotations[key]
    broken = text.replace('"name"', '"name": 1, "x"', 1)
    checker = Session().checker("aihc-job-detail")
    texts = [text.replace("{", "{" + " " * count, 1) for count in range(6)] + [broken]
    expected = [checker.embedded_findings(each, "aihc-raw-request") for each in texts]
    assert expected[0] == [] and expected[-1] != []
    monkeypatch.setattr(checking, "EMBEDDED_MEMORY", 3)
    monkeypatch.setattr(checking, "EMBEDDED_MEMORY_CHARACTERS", 2 * len(text) + 3)
    fresh = Session().checker("aihc-job-detail")
    for each, found in zip(texts * 2, expected * 2, strict=True):
        assert fresh.embedded_findings(each, "aihc-raw-request") == found
        assert len(fresh._embedded_seen) <= 2
        assert fresh._embedded_characters == sum(len(t) for _, t in fresh._embedded_seen)
    monkeypatch.setattr(checking, "EMBEDDED_MEMORY_CHARACTERS", 10**9)
    for each in texts:
        fresh.embedded_findings(each, "aihc-raw-request")
    assert [t for _, t in fresh._embedded_seen] == texts[-3:]


def _soft_findings(checker: Any, payload: Any) -> list[str]:
    """What the annotation walk's warn-only checks find (embedded documents aside), as rule ids."""
    return sorted(found.rule for found in checker.reference.soft_problems(payload))


def _alone_agrees(checker: Any, payload: Any) -> None:
    """The warn-only checks alone pass exactly the payloads whose warn-only checks find nothing."""
    walked = _soft_findings(checker, payload)
    assert checker.soft.is_valid(payload) == (walked == []), walked


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_the_warn_only_checks_alone_pass_exactly_where_the_walk_finds_nothing(case: tuple[str, Path]) -> None:
    name, path = case
    _alone_agrees(Session().checker(name), load_json(path))


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_warn_only_checks_alone_agree_on_generated_payloads(name: str) -> None:
    checker = Session().checker(name)
    assert checker.soft is not None

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(payloads(name), invalid_payloads(name))
    def check(valid: dict[str, Any], invalid: tuple[dict[str, Any], str]) -> None:
        for payload in (valid, invalid[0]):
            _alone_agrees(checker, payload)

    check()


def test_the_warn_only_checks_alone_reach_members_of_a_container_of_the_wrong_kind() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    pods = payload["result"]["podList"]["pods"]
    pods[0]["replicaType"] = "coordinator"  # not a known value: a warning
    checker = Session().checker("aihc-job-detail")
    assert _soft_findings(checker, payload) == ["known-values"]
    payload["result"]["podList"]["pods"] = {"first": pods[0], "second": pods[1]}  # an object, not an array
    assert _soft_findings(checker, payload) == ["known-values"]  # the walk reads any member
    assert not checker.soft.is_valid(payload)
    pods[0]["replicaType"] = "master"
    assert _soft_findings(checker, payload) == []
    assert checker.soft.is_valid(payload)
