"""Invalid payloads explained from jsonschema-rs's errors (:mod:`jobschema.validate.shortcuts.explain`) give
exactly the findings python-jsonschema gives: same places, rules, messages (secrets masked), schema
paths, details and order; where they could differ, python-jsonschema explains the whole payload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding
from jobschema.schemas.registry import Schema
from jobschema.testing import SCHEMAS, invalid_payloads
from jobschema.validate.checker import Checker
from jobschema.validate.formats import FORMATS
from jobschema.validate.session import Session
from jobschema.validate.shortcuts.explain import derive

DRAFT = "https://json-schema.org/draft/2020-12/schema"
KEYS = ("a", "b", "password", "n")  # "password" is a secret place: its values are masked
TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
STRINGS = (
    "",
    "a",
    "b\n",
    "abc",
    "0755",
    "0755\n",  # Python's `$` matches before a final newline, ECMA-262's does not
    "2024-07-16T17:20:04Z",
    "2024-02-30T17:20:04Z",
    "123e4567-e89b-12d3-a456-426614174000",
    "node-1.example.com",
    "-bad-",
    "not an email",
    "Bearer abcdefghijklmnopqrstuvwxyz012345",
)
PATTERNS = ("^a$", "^[0-9]+$", "b", "^0[0-7]{3}$", "^(cpu|memory)$")
FORMAT_NAMES = ("date-time", "uuid", "hostname", "email", "ipv4")


def _checker(document: dict[str, Any]) -> Checker:
    checker = Checker(Schema("generated", Path("generated.schema.json"), document), lambda ref: checker)
    return checker


def _same(explained: list[Finding], detailed: list[Finding]) -> None:
    """Equal as the report shows them: in :meth:`Finding.sort_key` order (a stable sort)."""
    explained = sorted(explained, key=Finding.sort_key)
    detailed = sorted(detailed, key=Finding.sort_key)
    assert explained == detailed
    assert [f.details for f in explained] == [f.details for f in detailed]
    assert [f.schema_tokens for f in explained] == [f.schema_tokens for f in detailed]


def _compare(checker: Checker, payload: Any) -> list[Finding] | None:
    """The explained findings (or ``None``) after checking they equal python-jsonschema's."""
    if checker._fast_valid(payload):
        return []
    detailed = list(checker.reference.schema_problems(payload))
    explained = checker._explained(payload)
    if explained is not None:
        _same(explained, detailed)
    return explained


# -- generated schemas and values -------------------------------------------------------------------

NUMBERS = st.integers(-3, 3) | st.sampled_from([0.5, -1.5, 2.0, 10**20, 2**53 + 1])
SCALARS = st.none() | st.booleans() | NUMBERS | st.sampled_from(STRINGS)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(KEYS), children, max_size=3)
    ),
    max_leaves=8,
)


def _one_of(keywords: list[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """``{keyword: value}`` for one of ``keywords``."""
    return st.tuples(st.sampled_from(keywords), values).map(lambda pair: {pair[0]: pair[1]})


def _assertions(refs: bool) -> st.SearchStrategy[dict[str, Any]]:
    types = st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)
    small = st.integers(0, 3)
    choices = [
        st.fixed_dictionaries({"type": types}),
        st.fixed_dictionaries({"enum": st.lists(SCALARS, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"const": SCALARS}),
        _one_of(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"], NUMBERS),
        _one_of(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"], small),
        st.fixed_dictionaries({"pattern": st.sampled_from(PATTERNS)}),
        st.fixed_dictionaries({"format": st.sampled_from(FORMAT_NAMES)}),
        st.fixed_dictionaries({"uniqueItems": st.just(True)}),
        st.fixed_dictionaries(
            {"required": st.lists(st.sampled_from(KEYS), min_size=1, max_size=3, unique=True)}
        ),
        st.fixed_dictionaries(
            {
                "dependentRequired": st.dictionaries(
                    st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), max_size=2), max_size=2
                )
            }
        ),
    ]
    if refs:
        choices.append(st.fixed_dictionaries({"$ref": st.just("#/$defs/base")}))
    return st.one_of(*choices)


def _merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for part in parts:
        node.update(part)
    return node


def _applicators(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    several = st.lists(children, min_size=1, max_size=3)
    return st.one_of(
        st.fixed_dictionaries({"properties": st.dictionaries(st.sampled_from(KEYS), children, max_size=3)}),
        st.fixed_dictionaries({"additionalProperties": children}),
        st.fixed_dictionaries({"items": children}),
        st.fixed_dictionaries({"prefixItems": several}),
        _one_of(["allOf", "anyOf", "oneOf"], several),
        st.fixed_dictionaries({"not": children}),
        st.fixed_dictionaries({"if": children, "then": children}),
        st.fixed_dictionaries({"if": children, "else": children}),
        st.fixed_dictionaries({"contains": children}),
    )


def _schemas(refs: bool) -> st.SearchStrategy[Any]:
    leaf = st.lists(_assertions(refs), min_size=1, max_size=3).map(_merged) | st.booleans()

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        part = _applicators(children) | _assertions(refs)
        return st.lists(part, min_size=1, max_size=3).map(_merged)

    return st.recursive(leaf, extend, max_leaves=6)


DOCUMENTS = st.builds(
    lambda base, root: {"$schema": DRAFT, "$defs": {"base": base}, **root},
    _schemas(refs=False),
    _schemas(refs=True).filter(lambda node: isinstance(node, dict)),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.lists(VALUES, min_size=1, max_size=4))
def test_generated_schemas_explain_as_python_jsonschema_does(
    document: dict[str, Any], values: list[Any]
) -> None:
    checker = _checker(document)
    try:
        _ = checker.fast
    except ValueError:  # jsonschema-rs refuses the schema (a `pattern` or `$ref` it cannot build)
        assume(False)
    assert checker.explainer is not None  # every keyword generated here is one both treat alike
    for value in values:
        _compare(checker, value)


# -- the bundled schemas ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def session() -> Session:
    return Session()


@pytest.mark.parametrize("name", SCHEMAS)
def test_bundled_schemas_are_explained_by_jsonschema_rs(name: str, session: Session) -> None:
    assert session.checker(name).explainer is not None


@pytest.mark.parametrize("name", SCHEMAS)
def test_invalid_bundled_payloads_explain_as_python_jsonschema_does(name: str, session: Session) -> None:
    checker = session.checker(name)
    explained = []

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(invalid_payloads(name))
    def check(case: tuple[dict[str, Any], str]) -> None:
        found = _compare(checker, case[0])
        explained.append(found is not None)

    check()
    assert any(explained)


# -- cases: python-jsonschema on one node, or on the whole payload ---------------------------------

OBJECT = {"$schema": DRAFT, "type": "object"}


@pytest.mark.parametrize(
    ("properties", "payload"),
    [
        ({"a": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 3}]}}, {"a": 1}),
        ({"a": {"oneOf": [{"type": "string"}, {"minLength": 1}]}}, {"a": "x"}),
        (
            {"a": {"type": "object", "properties": {"x": {}}, "additionalProperties": False}},
            {"a": {"y": 1, "z": 2}},
        ),
        ({"a": {"dependentRequired": {"x": ["y", "z"]}}}, {"a": {"x": 1}}),
        ({"a": {"not": {"type": "null"}}, "b": {"type": "string"}}, {"a": None, "b": 3}),
        ({"a": {"contains": {"type": "string"}}}, {"a": [1, 2]}),
        (
            {"a": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"type": "integer"}}},
            {"a": "x"},
        ),
        ({"a": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}, {"a": [1, "s"]}),
        ({"a": {"items": {"$ref": "#/$defs/pod"}}}, {"a": [{"name": 7}, {}]}),
        ({"password": {"type": "integer"}, "a": {"enum": ["x"]}}, {"password": "hunter2hunter2", "a": "y"}),
        ({"a": {"format": "email", "minLength": 9}}, {"a": "not-mail"}),
        ({"a": {"pattern": "^0[0-7]{3}$"}, "b": {"type": "null"}}, {"a": "0755\n", "b": 1}),
        ({"a": {"required": ["x", "y"]}}, {"a": {}}),
        ({"a": {"anyOf": [{"$ref": "#/$defs/pod"}, {"type": "null"}]}}, {"a": {"name": 1}}),
    ],
    ids=[
        "anyOf",
        "oneOf",
        "additionalProperties false",
        "dependentRequired",
        "not",
        "contains",
        "if-then-else",
        "prefixItems",
        "items through $ref",
        "secret place",
        "unasserted format",
        "pattern dialects",
        "required",
        "anyOf through $ref",
    ],
)
def test_errors_explained_with_python_jsonschema_on_one_node_at_most(
    properties: dict[str, Any], payload: dict[str, Any]
) -> None:
    document = {
        **OBJECT,
        "properties": properties,
        "$defs": {
            "pod": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
        },
    }
    checker = _checker(document)
    explained = _compare(checker, payload)
    assert explained is not None
    assert explained  # the payload is invalid: something is reported


def test_a_secret_value_is_masked_in_an_explained_message() -> None:
    checker = _checker({**OBJECT, "properties": {"password": {"type": "integer"}}})
    (found,) = _compare(checker, {"password": "hunter2hunter2"}) or []
    assert found.message.startswith("expected integer, got string <secret:")
    assert "hunter2" not in found.message


@pytest.mark.parametrize(
    ("properties", "payload"),
    [
        ({"a": False}, {"a": 1}),  # python-jsonschema places a false schema's error one level up
    ],
    ids=["false schema"],
)
def test_errors_python_jsonschema_explains_whole(properties: dict[str, Any], payload: dict[str, Any]) -> None:
    checker = _checker({**OBJECT, "properties": properties})
    assert checker.explainer is not None
    assert checker._explained(payload) is None
    assert checker.check(payload) == list(checker.reference.schema_problems(payload))


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"a": {"multipleOf": 0.1}}},
        {"patternProperties": {"^x": {"type": "string"}}},
        {"propertyNames": {"pattern": "^a"}},
        {"properties": {"a": {"$ref": "#/$defs/x/enum/0"}}, "$defs": {"x": {"enum": [{"type": "string"}]}}},
        {"properties": {"a": {"$ref": "#/$defs/a%20b"}}, "$defs": {"a b": {}}},
        {"properties": {"a": {"$ref": "https://example.com/other.json"}}},
        {"properties": {"a": {"$id": "https://example.com/a", "type": "string"}}},
        {"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}},
        {"properties": {"a": {"$dynamicRef": "#meta"}}},
        {"unevaluatedProperties": False},
        {"properties": {"a": {"x-jobschema-re-pattern": "^a"}}},
        {"properties": {"a": {"pattern": "("}}},
    ],
    ids=[
        "multipleOf",
        "patternProperties",
        "propertyNames",
        "$ref into an enum",
        "percent-encoded $ref",
        "remote $ref",
        "nested $id",
        "nested $schema",
        "$dynamicRef",
        "unevaluatedProperties",
        "the derived schema's own keyword",
        "bad pattern",
    ],
)
def test_schemas_python_jsonschema_keeps_explaining(schema: dict[str, Any]) -> None:
    assert derive({"$schema": DRAFT, **schema}, FORMATS) is None


def test_older_drafts_are_left_to_python_jsonschema() -> None:
    assert derive({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}, FORMATS) is None
    assert derive({"type": "string"}, FORMATS) is not None  # no $schema: 2020-12, as for both validators
