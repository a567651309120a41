"""Round 7 of the review of ``jobschema coverage``: cases no earlier review listed.

Classes found and fixed here:

- **a schema file taken unchecked**: ``--schema FILE`` was used as it came, so a file that is no
  JSON Schema (``{"type": 5}``), one with a local ``$ref`` to nothing or a ``pattern`` that is no
  regular expression was counted against (exit 0) where ``validate`` refuses it. Now it is checked
  as every command checks a schema file (:func:`jobschema.schemas.registry.check_user_file`).
- **the report depended on the order of the inputs**: an undeclared key's example (``e.g. FILE
  /POINTER``) was the first payload read that had it, so ``coverage a.json b.json`` and ``coverage
  b.json a.json`` differed. Now it is the least source and pointer (numbers as numbers).
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.coverage.collect import coverage_paths, coverage_payloads
from jobschema.coverage.report import render
from jobschema.schemas import places as places_module
from tests.support import CAPTURES, load_json

RUNAI = load_json(CAPTURES / "runai-distributed-workload" / "seed.json")


def _write(folder: Path, name: str, value: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# --- schema files are checked ------------------------------------------------------------------------

BAD_SCHEMAS = {
    "not-a-json-schema": ({"type": 5}, ": not a valid JSON Schema at /type: "),
    "ref-to-nothing": (
        {"type": "object", "properties": {"x": {"$ref": "#/$defs/nowhere"}}},
        ': /properties/x: $ref "#/$defs/nowhere" names nothing in the document',
    ),
    "bad-pattern": (
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "(unclosed"}}},
        ': /properties/x/pattern: "(unclosed" is not a "regex"',
    ),
    "bad-pattern-property": (
        {"type": "object", "patternProperties": {"a{2,1}": {}}},
        ": /patternProperties/a{2,1}: ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SCHEMAS))
@pytest.mark.parametrize("command", ["coverage", "changes"])
def test_a_bad_schema_file_is_one_line_in_coverage_and_changes(
    run_cli, tmp_path: Path, case: str, command: str
) -> None:
    document, problem = BAD_SCHEMAS[case]
    schema = _write(tmp_path, "mine.json", document)
    payload = _write(tmp_path, "p.json", {"x": "a"})
    args = (
        ["coverage", "-s", str(schema), str(payload)]
        if command == "coverage"
        else ["changes", str(schema), str(schema), "--no-witnesses"]
    )
    result = run_cli(args, code=2)
    assert result.stderr.startswith(f"Error: {schema}{problem}")
    assert result.stderr.count("\n") == 1 and result.stdout == ""


@pytest.mark.parametrize(
    "document",
    [
        {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/a%20b"}},
            "$defs": {"a b": {"type": "string"}},
        },
        {"type": "object", "properties": {"x": {"$ref": "#"}}},
        {"type": "object", "properties": {"x": {"$ref": "#thing"}}, "$defs": {"t": {"$anchor": "thing"}}},
        {"type": "object", "properties": {"x": {"type": "string", "pattern": "^\\p{L}+$"}}},
        {"type": "object", "properties": {"$ref": {"type": "string"}, "pattern": {"type": "string"}}},
        {"type": "object", "examples": [{"$ref": "#/nowhere", "pattern": "("}]},
    ],
    ids=["percent-encoded", "root", "anchor", "unicode-class", "named-like-keywords", "in-examples"],
)
def test_a_good_schema_file_is_counted_against(run_cli, tmp_path: Path, document: dict[str, Any]) -> None:
    schema = _write(tmp_path, "mine.json", document)
    payload = _write(tmp_path, "p.json", {"x": "a"})
    run_cli(["coverage", "-s", str(schema), str(payload)], code=0)


def test_coverage_paths_raises_the_same_for_a_bad_schema_file(tmp_path: Path) -> None:
    from jobschema.errors import SchemaInvalid

    schema = _write(tmp_path, "mine.json", BAD_SCHEMAS["ref-to-nothing"][0])
    with pytest.raises(SchemaInvalid, match="names nothing"):
        coverage_paths(_write(tmp_path, "p.json", {}), str(schema))


# --- the same bytes whatever the order of the inputs -------------------------------------------------


def test_the_example_of_an_undeclared_key_does_not_depend_on_the_order_of_the_inputs(
    run_cli, tmp_path: Path
) -> None:
    paths = [_write(tmp_path, f"{name}.json", {"code": 404, "message": name, "extra": 1}) for name in "abc"]
    outs = {
        fmt: {
            run_cli(["coverage", "-f", fmt, *map(str, order)], code=0).stdout
            for order in itertools.permutations(paths)
        }
        for fmt in ("text", "json", "markdown")
    }
    assert all(len(seen) == 1 for seen in outs.values()), outs
    assert f"e.g. {paths[0]} /extra" in next(iter(outs["text"]))


def test_ndjson_lines_are_ordered_as_numbers(run_cli, tmp_path: Path) -> None:
    lines = [
        json.dumps({"code": 404, "message": str(i), **({"extra": i} if i in (9, 10) else {})})
        for i in range(1, 11)
    ]
    path = tmp_path / "caps.ndjson"
    path.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    out = run_cli(["coverage", str(path)], code=0).stdout
    assert f"extra: 2 payloads, e.g. {path}:1 /extra" in out


@settings(
    max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
@given(
    order=st.permutations(range(6)), keys=st.lists(st.sampled_from(["x", "y", "z"]), min_size=6, max_size=6)
)
def test_any_order_of_payloads_gives_the_same_report(order: list[int], keys: list[str]) -> None:
    payloads = [(f"p{i}.json", {"code": 404, "message": "m", keys[i]: i}) for i in range(6)]

    def report(indices: list[int]) -> str:
        from jobschema.coverage.collect import CoverageCollector

        collector = CoverageCollector()
        for i in indices:
            collector.add(payloads[i][1], None, payloads[i][0])
        return render(collector.report(), "json")

    assert report(order) == report(list(range(6)))


# --- empty and mixed corpora ---------------------------------------------------------------------------


def test_empty_inputs(run_cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    folder = run_cli(["coverage", str(tmp_path / "empty")], code=2)
    assert folder.stderr.count("\n") == 1 and "holds no" in folder.stderr
    empty = tmp_path / "e.json"
    empty.write_text("", encoding="utf-8")
    result = run_cli(["coverage", "-f", "json", str(empty)], code=0)
    assert json.loads(result.stdout)["unrecognised"] == 1
    assert result.stderr == f"note: {empty}: file is empty (counted as unrecognised)\n"
    (tmp_path / "e.ndjson").write_text("", encoding="utf-8")
    _write(tmp_path, "e.har", {"log": {"entries": []}})
    for name in ("e.ndjson", "e.har"):
        assert run_cli(["coverage", str(tmp_path / name)], code=0).stdout == "unrecognised: 0\n"


def test_a_corpus_of_every_api_with_a_pinned_version_of_each(run_cli) -> None:
    out = run_cli(
        ["coverage", "--api-version", "runai=2.19", "--api-version", "AIHC=v1", str(CAPTURES)], code=0
    ).stdout
    heads = [line.split(":")[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert heads == [
        "runai-distributed-workload@2.19",
        "runai-error@2.19",
        "aihc-job-detail@v1",
        "aihc-raw-request@v1",
        "aihc-raw-request@v1 (embedded)",
        "aihc-error@v1",
        "aihc-v2-job",
        "unrecognised",
    ]


# --- work is linear in the corpus ------------------------------------------------------------------


def test_the_walk_visits_each_value_once_whatever_the_corpus_size(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    real = places_module._walk

    def counted(*args: Any) -> None:
        calls[0] += 1
        real(*args)

    monkeypatch.setattr(places_module, "_walk", counted)
    work = []
    for n in (10, 40):
        calls[0] = 0
        items = []
        for i in range(n):
            payload = copy.deepcopy(RUNAI)
            payload["desiredPhase"] = f"Unlisted{i}"
            payload[f"extra{i}"] = i
            items.append((None, payload))
        render(coverage_payloads(items), "text", 1)
        work.append(calls[0])
    assert work[1] == 4 * work[0]


# --- secrets in what coverage quotes -------------------------------------------------------------------

SECRETS = {
    "desiredPhase": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "spec.compute.gpuRequestType": "password=Hunter2Secret!xyz",
    "spec.imagePullPolicy": "mysql -uroot -pTr0ub4dorXYZ db",
}


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_secrets_in_unlisted_values_and_keys_are_masked_in_every_format(fmt: str) -> None:
    payload = copy.deepcopy(RUNAI)
    for place, value in SECRETS.items():
        at = payload
        *parents, last = place.split(".")
        for part in parents:
            at = at[part]
        at[last] = value
    payload["spec"]["token=AKIAIOSFODNN7EXAMPLEX"] = 1
    out = render(coverage_payloads([(None, payload)]), fmt, 1)
    for shown in ("ghp_abcdefghijklmnop", "Hunter2Secret", "Tr0ub4dorXYZ", "AKIAIOSFODNN7EXAMPLE"):
        assert shown not in out
    assert out.count("<secret:") >= 4
