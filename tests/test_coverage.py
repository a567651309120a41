"""``jobschema coverage``: exact counts on hand-built corpora, the formats, goldens and exit codes.

The command is invoked directly (``coverage_command``), so these tests do not depend on it being
registered in the ``jobschema`` group.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from jobschema.cli.coverage import coverage_command
from jobschema.coverage.collect import CoverageReport, coverage_paths, coverage_payloads
from jobschema.coverage.report import SchemaCoverage, render
from jobschema.pointer import from_path
from jobschema.schemas import registry
from jobschema.schemas.places import compile_places, exercise, join_path, key_segment
from tests.oracle_declared import undeclared
from tests.support import (
    CAPTURES,
    REPO,
    all_examples,
    compare_golden,
    load_json,
)

GOLDEN = REPO / "tests" / "golden" / "coverage"
RAW = "aijob.cce.baidubce.com~1raw-request"

#: A small schema using every shape the paths name: a nullable enum, known values of an open string,
#: a map (additionalProperties), an array of $ref items.
JOB_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "phase": {"type": ["string", "null"], "enum": ["Running", "Stopped", "Deleted", None]},
        "kind": {"type": "string", "x-jobschema-known-values": ["a", "b"]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "pods": {"type": "array", "items": {"$ref": "#/$defs/Pod"}},
    },
    "$defs": {"Pod": {"type": "object", "properties": {"ip": {"type": "string"}}}},
}

JOBS: list[dict[str, Any]] = [
    {"name": "a", "phase": "Running", "kind": "a", "pods": [{"ip": "1"}, {"ip": "2", "extra": 1}]},
    {"name": "b", "phase": None, "kind": "c", "labels": {"x": "y"}, "new": True},
    {"phase": "Running", "pods": [], "new": 1, "labels": {}},
]

RUNAI_ERROR = {"code": 404, "message": "Resource id not found."}
AIHC_ERROR = {"requestId": "7f3c2a91", "code": "AccessDenied", "message": "Access denied."}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources print relative to the repository, so goldens are the same on every machine."""
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("NO_COLOR", raising=False)


def run(args: list[str], code: int | None = 0, input: str | None = None) -> Result:
    result = CliRunner().invoke(coverage_command, args, input=input, catch_exceptions=False)
    if code is not None:
        assert result.exit_code == code, f"exit {result.exit_code}\n{result.stdout}\n{result.stderr}"
    return result


def write(folder: Path, name: str, value: Any) -> Path:
    path = folder / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def job_corpus(tmp_path: Path) -> tuple[Path, list[Path]]:
    schema = write(tmp_path, "job.schema.json", JOB_SCHEMA)
    return schema, [write(tmp_path, f"job{index}.json", job) for index, job in enumerate(JOBS)]


def section(report: CoverageReport, title: str) -> SchemaCoverage:
    found = [s for s in report.schemas if s.title == title]
    assert len(found) == 1, [s.title for s in report.schemas]
    return found[0]


# --- counts ----------------------------------------------------------------------------------------


def test_properties_are_counted_per_payload_with_null_apart(tmp_path: Path) -> None:
    schema, _ = job_corpus(tmp_path)
    report = coverage_payloads([(None, job) for job in JOBS], schema=str(schema))
    (job,) = report.schemas
    assert (job.schema, job.embedded, job.payloads) == ("job", False, 3)
    assert [(p.path, p.payloads, p.null) for p in job.properties] == [
        ("kind", 2, 0),
        ("labels", 2, 0),
        ("labels{}", 1, 0),
        ("name", 2, 0),  # seen 2 of 3 times
        ("phase", 2, 1),  # null counted apart
        ("pods", 2, 0),
        ("pods[].ip", 1, 0),  # two pods of one payload count once
    ]
    assert job.seen == 7
    assert report.unrecognised == 0


def test_enum_and_known_values_seen_never_seen_and_unlisted(tmp_path: Path) -> None:
    schema, _ = job_corpus(tmp_path)
    (job,) = coverage_payloads([(None, job) for job in JOBS], schema=str(schema)).schemas
    assert [(v.path, v.value, v.count, v.listed) for v in job.values] == [
        ("kind", "a", 1, True),
        ("kind", "b", 0, True),  # never seen
        ("kind", "c", 1, False),  # seen, but the schema does not list it
        ("phase", "Running", 2, True),
        ("phase", "Stopped", 0, True),
        ("phase", "Deleted", 0, True),  # null is no enum value here: it is the property's null count
    ]
    assert (job.values_seen, len(job.listed)) == (2, 5)


def test_undeclared_fields_with_count_and_first_example(tmp_path: Path) -> None:
    schema, _ = job_corpus(tmp_path)
    (job,) = coverage_payloads([(None, job) for job in JOBS], schema=str(schema)).schemas
    assert [(d.path, d.count, d.source, d.example) for d in job.undeclared] == [
        ("new", 2, "#1", "/new"),
        ("pods[].extra", 1, "#0", "/pods/1/extra"),
    ]


def test_sections_are_keyed_by_detected_schema_in_catalog_order(tmp_path: Path) -> None:
    for index, value in enumerate([AIHC_ERROR, RUNAI_ERROR, RUNAI_ERROR]):
        write(tmp_path, f"e{index}.json", value)
    report = coverage_paths([str(tmp_path)])
    assert [(s.title, s.payloads) for s in report.schemas] == [("runai-error", 2), ("aihc-error", 1)]


def test_unparsable_and_unknown_payloads_are_unrecognised_not_fatal(tmp_path: Path) -> None:
    write(tmp_path, "a-bad.json", "{")
    write(tmp_path, "b-array.json", [])
    write(tmp_path, "c-v2.json", {"requestId": "r", "jobId": "j", "pods": [{"podIP": "1"}]})
    write(tmp_path, "d-good.json", RUNAI_ERROR)
    report = coverage_paths([str(tmp_path)])
    assert report.unrecognised == 3
    assert [(s.title, s.payloads) for s in report.schemas] == [("runai-error", 1)]
    result = run([str(tmp_path)])
    assert result.stdout.endswith(
        "unrecognised: 3 (unparsable, or no schema fits; jobschema validate says why)\n"
    )
    bad = tmp_path / "a-bad.json"
    assert result.stderr == (
        f"note: {bad}:1:2: invalid JSON: Expecting property name enclosed in double quotes"
        " (counted as unrecognised)\n"
    )


def test_ndjson_lines_are_payloads_and_examples_name_the_line(tmp_path: Path) -> None:
    lines = [json.dumps(RUNAI_ERROR), "", json.dumps({**RUNAI_ERROR, "traceId": "t"}), "{oops"]
    path = write(tmp_path, "errors.ndjson", "\n".join(lines) + "\n")
    report = coverage_paths([str(path)])
    (errors,) = report.schemas
    assert errors.payloads == 2
    assert report.unrecognised == 1
    assert [(d.path, d.count, d.source, d.example) for d in errors.undeclared] == [
        ("traceId", 1, f"{path}:3", "/traceId")
    ]


def test_har_entries_of_other_endpoints_are_not_counted() -> None:
    report = coverage_paths(["tests/fixtures/captures/session.har"])
    top = [s for s in report.schemas if not s.embedded]
    assert sum(s.payloads for s in top) + report.unrecognised == 3  # validate: 3 payloads, 2 skipped


def test_embedded_raw_request_is_its_own_section_with_outer_pointers(tmp_path: Path) -> None:
    job = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    pods = job["result"]["podList"]["pods"]
    annotations = pods[1]["objectMeta"]["annotations"]
    raw = json.loads(annotations["aijob.cce.baidubce.com/raw-request"])
    annotations["aijob.cce.baidubce.com/raw-request"] = json.dumps({**raw, "newKey": 1})
    report = coverage_paths([str(write(tmp_path, "job.json", job))])
    assert [s.title for s in report.schemas] == ["aihc-job-detail", "aihc-raw-request (embedded)"]
    embedded = section(report, "aihc-raw-request (embedded)")
    with_raw = [p for p in pods if "aijob.cce.baidubce.com/raw-request" in p["objectMeta"]["annotations"]]
    assert embedded.payloads == len(with_raw) > 1
    assert [(d.path, d.count, d.example) for d in embedded.undeclared] == [
        ("newKey", 1, f"/result/podList/pods/1/objectMeta/annotations/{RAW}/newKey")
    ]
    assert section(report, "aihc-job-detail").undeclared == ()


def test_forced_schema_counts_every_payload_against_it() -> None:
    report = coverage_paths(["schemas/examples/aihc-error"], schema="runai-error")
    (errors,) = report.schemas
    assert (errors.schema, errors.payloads) == ("runai-error", 2)
    assert [(d.path, d.count) for d in errors.undeclared] == [("requestId", 2)]


def test_recursive_schema_stays_finite_and_uses_the_first_path() -> None:
    tree = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#"}},
                },
            }
        },
    }
    value = {"name": "a", "children": [{"name": "b", "children": [{"name": "c", "x": 1}]}]}
    root, places = compile_places(tree)
    assert len(places) < 10
    found = exercise(root, value)
    # the grandchild sits where the child does: a $ref cycle leads back to the first place of a shape
    assert [(join_path(path), from_path(tokens)) for path, tokens in found.undeclared] == [
        ("children[].x", "/children/0/children/0/x")
    ]
    properties = sorted(p.path for p in found.present if p.kind == "property")
    assert properties == ["children", "children[].name", "name"]


def test_values_of_secrets_are_never_counted() -> None:
    schema = {
        "type": "object",
        "properties": {"password": {"type": "string", "x-jobschema-secret": True, "enum": ["hunter2"]}},
    }
    root, _ = compile_places(schema)
    assert exercise(root, {"password": "s3cret"}).values == set()


def test_paths_are_dotted_with_brackets_for_items_and_braces_for_maps() -> None:
    segments = ("result", "podList", "pods", "[]", "objectMeta", "labels", "{}")
    assert join_path(segments) == "result.podList.pods[].objectMeta.labels{}"
    assert key_segment("aijob.cce.baidubce.com/raw-request") == '["aijob.cce.baidubce.com/raw-request"]'
    assert key_segment("cce-workload-kind") == "cce-workload-kind"
    assert join_path(("annotations", key_segment("a.b"))) == 'annotations["a.b"]'


# --- agreement with jobschema.validate.strict ---------------------------------------------------


def _with_extra_keys(value: Any) -> Any:
    """``value`` with an unknown key added to every object in it."""
    if isinstance(value, dict):
        return {**{k: _with_extra_keys(v) for k, v in value.items()}, "zzUnknown": 1}
    if isinstance(value, list):
        return [_with_extra_keys(item) for item in value]
    return value


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_undeclared_keys_are_exactly_those_of_validate_strict(case: tuple[str, Path]) -> None:
    name, path = case
    document = registry.load(name).document
    root, _ = compile_places(document)
    for value in (load_json(path), _with_extra_keys(load_json(path))):
        mine = sorted(from_path(tokens) for _, tokens in exercise(root, value).undeclared)
        assert mine == sorted(item.pointer for item in undeclared(value, document))


def test_schema_keywords_agree_with_declared_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "object", "properties": {"a": {}}}]},
            "env": {
                "type": "object",
                "patternProperties": {"^X_": {"type": "object", "properties": {"v": {}}}},
            },
            "either": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"b": {}}}]},
            "remote": {"$ref": "https://example.com/other.json"},
            "free": {"type": "object"},
        },
    }
    value = {
        "pair": [{"a": 1, "z1": 1}, {"z2": 2}],
        "env": {"X_A": {"v": 1, "z3": 1}, "Y": 1},
        "either": {"b": 1, "z4": 1},
        "remote": {"z5": 1},
        "free": {"z6": 1},
        "z7": 1,
    }
    root, _ = compile_places(schema)
    mine = sorted(from_path(tokens) for _, tokens in exercise(root, value).undeclared)
    assert mine == sorted(item.pointer for item in undeclared(value, schema))
    assert mine == ["/either/z4", "/env/X_A/z3", "/env/Y", "/pair/0/z1", "/z7"]


# --- command line ----------------------------------------------------------------------------------

FORMATS = {"text": "txt", "json": "json", "markdown": "md"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_bundled_examples_in_every_format(update_golden: bool, fmt: str) -> None:
    result = run(["schemas/examples", "--format", fmt])
    compare_golden(GOLDEN / f"examples.{FORMATS[fmt]}", result.stdout, update_golden)
    assert result.stderr == ""


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_same_bytes_on_every_run(fmt: str) -> None:
    first = run(["schemas/examples", "tests/examples/valid", "-f", fmt, "-v"]).stdout
    assert run(["schemas/examples", "tests/examples/valid", "-f", fmt, "-v"]).stdout == first


def test_json_report_shape(tmp_path: Path) -> None:
    schema, files = job_corpus(tmp_path)
    report = json.loads(run([*map(str, files), "--schema", str(schema), "-f", "json"]).stdout)
    assert list(report) == ["tool", "version", "schemas", "unrecognised"]
    (job,) = report["schemas"]
    assert list(job) == ["schema", "embedded", "payloads", "properties", "enum_values", "undeclared"]
    assert {k: v for k, v in job["properties"].items() if k != "items"} == {"total": 7, "seen": 7}
    assert job["properties"]["items"][4] == {"path": "phase", "payloads": 2, "null": 1}
    assert job["enum_values"][2] == {"path": "kind", "value": "c", "count": 1, "listed": False}
    assert job["undeclared"][0] == {"path": "new", "count": 2, "example": "/new", "source": str(files[1])}


def test_text_report_of_a_small_corpus(tmp_path: Path) -> None:
    schema, files = job_corpus(tmp_path)
    text = run([*map(str, files), "--schema", str(schema)]).stdout
    assert text == (
        "job: 3 payloads, 7 of 7 properties seen (100.0%), 2 of 5 enum values seen\n"
        "  never seen properties: none\n"
        "  never seen enum values (3):\n"
        '    kind: "b"\n'
        '    phase: "Stopped", "Deleted"\n'
        "  undeclared (drift) (2):\n"
        f"    new: 2 payloads, e.g. {files[1]} /new\n"
        f"    pods[].extra: 1 payload, e.g. {files[0]} /pods/1/extra\n"
        "  unlisted values (1):\n"
        '    kind: "c", 1 payload\n'
        "\n"
        "unrecognised: 0\n"
    )


def test_verbose_lists_every_property_and_value(tmp_path: Path) -> None:
    schema, files = job_corpus(tmp_path)
    text = run([*map(str, files), "--schema", str(schema), "-v"]).stdout
    assert "  every property:\n    property   payloads      null\n    kind              2         0\n" in text
    assert '  every enum value:\n    value              payloads\n    kind = "a"                1\n' in text
    assert '    kind = "c"                1  unlisted\n' in text


def test_never_seen_properties_fold_under_their_outermost_parent() -> None:
    text = run(["schemas/examples/aihc-job-detail"]).stdout
    assert "    result.faultToleranceConfig (+3 below)\n" in text
    assert "result.faultToleranceConfig.enabledHangDetection" not in text


def test_markdown_has_a_summary_table_and_folded_lists() -> None:
    text = run(["schemas/examples/runai-error", "-f", "markdown"]).stdout
    assert text.startswith("## Schema coverage\n\n| schema | payloads | properties seen |")
    assert "| `runai-error` | 2 | 2 of 3 (66.7%) | 0 of 0 | 0 |" in text
    assert "<details><summary>Never seen properties (1)</summary>" in text


def test_stdin_is_read_with_dash() -> None:
    result = run(["-", "-f", "json"], input=json.dumps({**RUNAI_ERROR, "traceId": "t"}))
    (errors,) = json.loads(result.stdout)["schemas"]
    assert errors["undeclared"] == [
        {"path": "traceId", "count": 1, "example": "/traceId", "source": "<stdin>"}
    ]


def test_output_file_gets_the_report_and_stdout_stays_empty(tmp_path: Path) -> None:
    out = tmp_path / "coverage.md"
    result = run(["schemas/examples", "-f", "markdown", "-o", str(out)])
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8") == (GOLDEN / "examples.md").read_text(encoding="utf-8")


def test_color_only_when_asked() -> None:
    assert "\x1b[1mrunai-error" in run(["schemas/examples/runai-error", "--color", "always"]).stdout
    assert "\x1b" not in run(["schemas/examples/runai-error", "--color", "never"]).stdout


def test_control_characters_in_keys_are_escaped(tmp_path: Path) -> None:
    path = write(tmp_path, "e.json", {**RUNAI_ERROR, "\x1b[31mred": 1})
    text = run([str(path), "--color", "never"]).stdout
    assert "\x1b" not in text
    assert '["\\u001b[31mred"]: 1 payload, e.g.' in text


# --- exit codes ------------------------------------------------------------------------------------


def test_exit_0_with_drift_unless_asked_to_fail(tmp_path: Path) -> None:
    schema, files = job_corpus(tmp_path)
    run([*map(str, files), "--schema", str(schema)], code=0)
    run([*map(str, files), "--schema", str(schema), "--fail-on-undeclared"], code=1)


def test_fail_on_undeclared_passes_a_corpus_without_drift() -> None:
    run(["schemas/examples", "--fail-on-undeclared"], code=0)


def test_drift_in_embedded_documents_fails_too(tmp_path: Path) -> None:
    job = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    for pod in job["result"]["podList"]["pods"]:
        annotations = pod["objectMeta"]["annotations"]
        if "aijob.cce.baidubce.com/raw-request" in annotations:
            raw = json.loads(annotations["aijob.cce.baidubce.com/raw-request"])
            annotations["aijob.cce.baidubce.com/raw-request"] = json.dumps({**raw, "newKey": 1})
    run([str(write(tmp_path, "job.json", job)), "--fail-on-undeclared"], code=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json"], "Error: missing.json: no such file or folder\n"),
        (["schemas/examples", "--schema", "nope"], "Error: nope: no such schema"),
        ([], "Missing argument 'PATH...'"),
        (["schemas/examples", "-f", "sarif"], "Invalid value for '-f' / '--format'"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    result = run([*args, "-o", str(out)], code=2)
    assert message in result.stderr
    assert not out.exists()


# --- library ---------------------------------------------------------------------------------------


def test_library_needs_no_click() -> None:
    code = (
        "import sys, jobschema.coverage.collect, jobschema.coverage.report; sys.exit('click' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO, check=False).returncode == 0


def test_render_is_separate_and_rejects_unknown_formats() -> None:
    report = coverage_payloads([("runai-error", RUNAI_ERROR)])
    assert render(report, "text").startswith("runai-error: 1 payload, 2 of 3 properties seen (66.7%)")
    with pytest.raises(ValueError, match="unknown coverage format"):
        render(report, "sarif")


def test_module_examples_run() -> None:
    import doctest

    import jobschema.coverage.collect

    assert doctest.testmod(jobschema.coverage.collect).failed == 0


def test_an_unread_payload_is_placed_as_validate_places_it(tmp_path: Path) -> None:
    path = write(tmp_path, "m.ndjson", json.dumps(RUNAI_ERROR) + "\n{bad\n")
    nan = write(tmp_path, "nan.json", '{"a": NaN}')
    noted = run([str(path), str(nan)]).stderr.splitlines()
    from jobschema.cli import main

    validated = CliRunner().invoke(main, ["validate", str(path), str(nan)], catch_exceptions=False)
    assert [line.split(": invalid JSON")[0].removeprefix("note: ") for line in noted] == [
        line.split(": (root)")[0] for line in validated.stdout.splitlines() if "parse-error" in line
    ]
