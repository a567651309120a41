"""Every shortcut of the checker against the reference checks (jobschema.validate.reference), on every
example and on generated payloads: clean, with warnings (warn-only checks made to fail at random
annotated places) and invalid (one schema violation).

- quick: the one compiled pass passes exactly the payloads the reference finds nothing in (schema,
  warn-only checks, embedded documents);
- fast: the compiled schema is valid exactly where python-jsonschema finds no error;
- explain: an invalid payload's findings worded from jsonschema-rs's errors are python-jsonschema's;
- soft: the warn-only findings traced back from one compiled pass are the annotation walk's;
- embedded: the remembered embedded checks give the walk's findings;
- rules: the quiet tests never hide a finding of the rules they cover;
- and the whole ladder gives what the reference gives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.findings import Finding
from jobschema.schemas.annotated import match_paths
from jobschema.schemas.registry import BUNDLED
from jobschema.testing import invalid_payloads, payloads
from jobschema.validate import rules
from jobschema.validate.checker import FINDINGS, INVALID, NOTHING, UNSHORTENED, Checker
from jobschema.validate.session import Session
from tests.support import CAPTURES, REPO, all_examples, load_json

SCHEMAS = BUNDLED
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _sorted(found: list[Finding]) -> list[Finding]:
    return sorted(found, key=lambda f: (f.sort_key(), f.schema_tokens, f.details))


def agree(checker: Checker, payload: Any) -> None:
    """Each shortcut gives what the reference gives on ``payload``."""
    reference = checker.reference
    schema, soft, embedded = (
        reference.schema_problems(payload),
        reference.soft_problems(payload),
        reference.embedded_problems(payload),
    )
    assert checker._quick_valid(payload) == (not schema and not soft and not embedded)
    assert checker._fast_valid(payload) == (not schema)
    assert checker._fast_valid(payload, checker.fast) == (not schema)
    if schema:
        assert _sorted(checker.schema_problems(payload)) == _sorted(schema)
    assert _sorted(checker.soft_problems(payload)) == _sorted(soft)
    if checker.soft is not None:  # and it answered itself, without asking the reference
        assert checker.soft.findings(payload) is not None
    assert _sorted(checker.embedded_problems(payload)) == _sorted(embedded)
    name = checker.schema.name
    assert sorted(map(repr, rules.run(name, payload))) == sorted(
        map(repr, rules.run_every_rule(name, payload))
    )
    for expect in (NOTHING, FINDINGS, INVALID):  # wherever the checker enters the ladder
        found, outcome = checker.ladder(payload, expect)
        assert _sorted(found) == _sorted(schema + soft + embedded)
        assert outcome == (INVALID if schema else FINDINGS if found else NOTHING)
    expected = _sorted(reference.check(payload))
    assert _sorted(checker.check(payload)) == expected
    # The path of a one-file run's first payload (no shortcut built), then the shortcuts' path.
    fresh = Checker(checker.schema, checker._embedded, checker.strict, UNSHORTENED)
    for _ in range(UNSHORTENED + 1):
        assert _sorted(fresh.check(payload)) == expected


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_every_shortcut_agrees_on_every_example(case: Any) -> None:
    name, path = case
    agree(Session().checker(name), load_json(path))


@st.composite
def with_warnings(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A valid payload whose warn-only checks fail at some annotated places: a value no known-values
    list, documented format or pattern takes, and deprecated fields set."""
    payload = draw(payloads(name))
    checker = Session().checker(name)
    places = [
        (path, node) for path, _, node in match_paths(checker.reference.trie, payload) if path and _soft(node)
    ]
    chosen = (
        draw(st.lists(st.sampled_from(places), min_size=1, max_size=6, unique_by=lambda p: p[0]))
        if places
        else []
    )
    for index, (path, _node) in enumerate(chosen):  # the first a string no soft check takes: a warning
        values = (
            ["Zz unknown value"] if index == 0 else ["Zz unknown value", "NOT_A_NAME!", "string", 17, True]
        )
        _set(payload, path, draw(st.sampled_from(values)))
    return payload


def _soft(node: dict[str, Any]) -> bool:
    keys = ("x-jobschema-known-values", "x-jobschema-format", "x-jobschema-pattern", "deprecated")
    return any(key in node for key in keys)


def _set(payload: Any, path: tuple[Any, ...], value: Any) -> None:
    target = payload
    for token in path[:-1]:
        target = target[token]
    target[path[-1]] = value


@pytest.mark.parametrize("name", SCHEMAS)
@SETTINGS
@given(data=st.data())
def test_every_shortcut_agrees_on_generated_payloads(name: str, data: st.DataObject) -> None:
    checker = Session().checker(name)
    agree(checker, data.draw(payloads(name)))
    agree(checker, data.draw(with_warnings(name)))
    agree(checker, data.draw(invalid_payloads(name))[0])


@pytest.mark.parametrize("name", ["aihc-job-detail", "aihc-raw-request", "runai-distributed-workload"])
def test_the_payloads_drawn_with_warnings_carry_warnings(name: str) -> None:
    """The generator above is not idle: most payloads it draws fail some warn-only check."""
    checker = Session().checker(name)
    warned: list[bool] = []

    @SETTINGS
    @given(with_warnings(name))
    def draw(payload: dict[str, Any]) -> None:
        warned.append(bool(checker.reference.soft_problems(payload)))

    draw()
    assert sum(warned) * 2 > len(warned), warned


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_warn_only_shortcut_answers_for_every_bundled_schema(name: str) -> None:
    """The compiled pass of the warn-only checks is built, and traces back every check it fails."""
    checker = Session().checker(name)
    assert checker.soft is not None
    for case, path in all_examples():
        if case == name:
            payload = load_json(path)
            assert checker.soft.findings(payload) is not None, path


DEPRECATING = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "old": {"type": ["object", "null"], "deprecated": True, "additionalProperties": {"type": "integer"}},
        "spec": {"$ref": "#/$defs/Spec"},
        "pods": {"type": "array", "items": {"$ref": "#/$defs/Spec"}},
        "kind": {"type": "string", "x-jobschema-known-values": ["a", "b"]},
    },
    "$defs": {
        "Spec": {
            "type": "object",
            "properties": {
                "legacy": {"type": ["string", "null"], "deprecated": True},
                "n": {"type": "integer"},
            },
        }
    },
}


@pytest.mark.parametrize(
    ("payload", "deprecated"),
    [
        ({"old": {f"k{index}": index for index in range(500)}, "kind": "c"}, ["/old"]),  # a large object
        ({"old": None, "spec": {"legacy": None}}, []),  # null: the soft checks skip it
        (
            {"spec": {"legacy": "x"}, "pods": [{"n": 1}, {"legacy": "y"}, {"legacy": None}]},
            ["/pods/1/legacy", "/spec/legacy"],
        ),
        ({"pods": [], "kind": "a"}, []),
        ({"old": {"k": "not an integer"}, "spec": {"legacy": "x", "n": "one"}}, ["/old", "/spec/legacy"]),
    ],
    ids=["large-object", "null", "in-items", "none", "invalid"],
)
def test_deprecated_fields_read_at_their_places_agree_with_the_walk(
    payload: Any, deprecated: list[str]
) -> None:
    """The soft shortcut reads deprecated fields at the places the schema deprecates (an object, a
    field of a referenced definition, the same field in every item), not by the compiled pass."""
    from pathlib import Path

    from jobschema.schemas.registry import Schema

    checker: Checker = Checker(Schema("custom", Path("custom.json"), DEPRECATING), lambda ref: checker)
    assert checker.soft is not None
    agree(checker, payload)
    found = checker.soft.findings(payload)
    assert found is not None
    assert sorted(f.pointer for f in found if f.rule == "deprecated") == deprecated


def test_a_checkers_first_payloads_are_read_without_building_the_shortcuts() -> None:
    """In a run of one file, the first payload is read by the reference engine alone; the shortcuts
    are built for the next (an NDJSON file's second line)."""
    checker = Session(unshortened=UNSHORTENED).checker("runai-distributed-workload")
    payload = load_json(CAPTURES / "runai-distributed-workload" / "seed.json")
    first = [checker.check(payload) for _ in range(UNSHORTENED)]
    assert not {"quick", "soft", "patterned"} & set(vars(checker))
    assert first[0] and all(_sorted(found) == _sorted(first[0]) for found in first)
    assert _sorted(checker.check(payload)) == _sorted(first[0])
    assert vars(checker)["quick"] is not None and vars(checker)["soft"] is not None


def test_the_checker_enters_the_ladder_where_the_last_two_payloads_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After two payloads with findings the checker skips rung 1 (it would fail), after two invalid
    ones the yes/no pass of rung 2 too; a payload that ends earlier sends it back. The findings are
    the same wherever it enters (``agree`` compares every entry with the reference)."""
    checker = Session().checker("runai-distributed-workload")
    kinds = {
        "w": load_json(CAPTURES / "runai-distributed-workload" / "seed.json"),
        "c": load_json(CAPTURES / "runai-distributed-workload" / "completed-job.json"),
        "i": load_json(REPO / "tests" / "fixtures" / "captures" / "invalid-workload.json"),
    }
    asked: list[str] = []
    for name, letter in (("_quick_valid", "q"), ("_fast_valid", "y")):
        monkeypatch.setattr(checker, name, _counted(getattr(checker, name), letter, asked))
    passes = []
    for kind in "wwwiiiiwcciw":
        found = checker.check(kinds[kind])
        assert _sorted(found) == _sorted(checker.reference.check(kinds[kind]))
        passes.append("".join(asked) or "-")
        asked.clear()
    assert passes == ["qy", "qy", "y", "y", "y", "-", "-", "-", "y", "q", "qy", "qy"]
    assert checker.reference.check(kinds["w"]) and not checker.reference.check(kinds["c"])


def _counted(method: Any, letter: str, asked: list[str]) -> Any:
    def counted(*args: Any) -> Any:
        asked.append(letter)
        return method(*args)

    return counted


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"name": {"$ref": "#/components/schemas/Name"}},
         "components": {"schemas": {"Name": {"type": "string", "format": "date-time"}}}},
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
         "properties": {"name": {"$ref": "#nameDef"}},
         "$defs": {"n": {"$anchor": "nameDef", "type": "string", "format": "uuid"}}},
    ],
    ids=["ref-into-components", "ref-to-an-anchor"],
)  # fmt: skip
def test_schemas_the_shortcuts_cannot_walk_are_checked_alike_by_one_file_and_by_many(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    """A user schema whose references the shortcuts cannot follow keeps to the plain compiled schema,
    in the first payload's path and after it (no shortcut may fail on it)."""
    import json

    from jobschema.validate.run import validate_paths

    (tmp_path / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    files = []
    for name, value in (("a", "x"), ("b", 3), ("c", "y")):
        (tmp_path / f"{name}.json").write_text(json.dumps({"name": value}), encoding="utf-8")
        files.append(str(tmp_path / f"{name}.json"))
    together = validate_paths(files, schema=str(tmp_path / "schema.json"))
    alone = [validate_paths([file], schema=str(tmp_path / "schema.json")).results[0] for file in files]
    assert [r.valid for r in together.results] == [r.valid for r in alone] == [False, False, False]
    assert [_messages(r) for r in together.results] == [_messages(r) for r in alone]
    assert all(_messages(r) for r in alone)


def _messages(result: Any) -> list[str]:
    return sorted(f"{f.pointer}: {f.message}" for f in result.findings)
