"""``jobschema versions``, round 7: an input that cannot be read (or that no schema fits) is placed
where ``validate`` places it — ``FILE:LINE:COLUMN`` for an NDJSON line, a document, a HAR entry's
body — in the text and the JSON report; NDJSON and HAR inputs of every shape; payloads no version
accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.validate.accepted import judge_paths
from tests.conftest import RunCli
from tests.support import CAPTURES, EXAMPLES, SCHEMAS, load_json

WORKLOAD = load_json(CAPTURES / "runai-distributed-workload" / "mpi-job.json")
LINE = json.dumps(WORKLOAD)
REPORT_SCHEMA = load_json(SCHEMAS / "versions-report.schema.json")
#: NDJSON lines that cannot be read, as validate names each (its column included).
BAD_LINES = [
    b'{"x": nope}',
    b'{"a": 1,}',
    b'{"a": NaN}',
    b'   {"workloadId": ',
    b'{"n": 1e400}',
    b"[1, 2",
]


def _validate_places(run_cli: RunCli, path: Path) -> list[str]:
    """Where validate places each input problem: the text before ``: (root): ``."""
    lines = run_cli(["validate", str(path)]).stdout.splitlines()
    return [line.split(": (root): ")[0] for line in lines if ": (root): " in line]


def _versions_places(run_cli: RunCli, path: Path) -> list[str]:
    lines = run_cli(["versions", str(path)]).stdout.splitlines()
    return [line.split(": no Run:ai version: ")[0] for line in lines if ": no Run:ai version: " in line]


def test_a_bad_ndjson_line_is_placed_with_its_column_as_validate_places_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "t.ndjson"
    path.write_text(f'{LINE}\n{{"x": nope}}\n{LINE}\n', encoding="utf-8")
    lines = run_cli(["versions", str(path)], code=1).stdout.splitlines()
    assert f"{path}:2:7: no Run:ai version: invalid JSON: Expecting value [parse-error]" in lines
    assert _versions_places(run_cli, path) == _validate_places(run_cli, path) == [f"{path}:2:7"]


def test_the_json_report_gives_the_line_and_column_of_an_input_problem(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "t.ndjson"
    path.write_text(f'{LINE}\n\n   {{"x": nope}}\n', encoding="utf-8")
    report = json.loads(run_cli(["versions", "-f", "json", str(path)], code=1).stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert [(r["source"], r["line"], r["column"]) for r in report["results"]] == [
        (f"{path}:1", None, None),
        (f"{path}:3", 3, 10),
    ]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_every_bad_line_of_any_ndjson_is_placed_as_validate_places_it(
    run_cli: RunCli, tmp_path: Path, ending: bytes, bom: bytes
) -> None:
    path = tmp_path / "caps.ndjson"
    body = [LINE.encode(), b"", *BAD_LINES, b'{"workloadId": "\x00"}', b"\xff\xfe", b"null", b"[1]"]
    path.write_bytes(bom + ending.join(body) + ending)
    places = _versions_places(run_cli, path)
    assert places == _validate_places(run_cli, path)
    assert len(places) == len(body) - 2 and all(
        re.fullmatch(rf"{re.escape(str(path))}:\d+(:\d+)?", p) for p in places
    )


def test_a_document_that_cannot_be_read_is_placed_at_its_line_and_column(
    run_cli: RunCli, tmp_path: Path
) -> None:
    pretty = tmp_path / "nan.json"
    pretty.write_text(json.dumps(WORKLOAD, indent=2).replace('"workloadId"', '"nan": NaN, "workloadId"'))
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    lines = run_cli(["versions", str(pretty), str(empty)], code=1).stdout.splitlines()
    [placed] = [line for line in lines if line.startswith(str(pretty))]
    assert re.fullmatch(rf"{re.escape(str(pretty))}:\d+:\d+: no Run:ai version: invalid JSON: NaN .*", placed)
    assert placed.split(": no Run:ai")[0] == _validate_places(run_cli, pretty)[0]
    assert f"{empty}: no Run:ai version: file is empty [encoding]" in lines  # (no place to give)


def _har(*bodies: tuple[int, str, str | None]) -> dict[str, Any]:
    entries = []
    for status, url, text in bodies:
        content: dict[str, Any] = {"mimeType": "application/json"}
        if text is not None:
            content["text"] = text
        entries.append({
            "startedDateTime": "2026-01-01T00:00:00Z",
            "request": {"method": "GET", "url": url, "headers": []},
            "response": {"status": status, "headers": [], "content": content},
        })  # fmt: skip
    return {"log": {"version": "1.2", "entries": entries}}


URL = f"https://runai.example/api/v1/workloads/distributed/{WORKLOAD['workloadId']}"


def test_a_har_entry_whose_body_cannot_be_read_is_placed_as_validate_places_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "caps.har"
    har = _har((200, URL, LINE), (200, URL, '{"a":\n nope}'), (200, URL, None))
    path.write_text(json.dumps(har, indent=1), encoding="utf-8")
    lines = run_cli(["versions", str(path)], code=1).stdout.splitlines()
    placed = [line for line in lines if ": no Run:ai version: " in line]
    assert [line.split(": no Run:ai version")[0] for line in placed] == _validate_places(run_cli, path)
    assert all(
        re.match(rf"{re.escape(str(path))}:\d+:\d+: #\d GET {re.escape(URL)}: no Run", p) for p in placed
    )
    report = json.loads(run_cli(["versions", "-f", "json", str(path)], code=1).stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert [r["line"] is None for r in report["results"]] == [True, False, False]


def test_a_line_no_schema_fits_is_placed_at_its_start(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "caps.ndjson"
    path.write_text(f"{LINE}\n  [1, 2]\nnull\n", encoding="utf-8")
    lines = run_cli(["versions", str(path)], code=1).stdout.splitlines()
    unfit = "top level is an array, not a JSON object; no schema fits [no-schema]"
    assert f"{path}:2:3: no Run:ai version: {unfit}" in lines
    assert _versions_places(run_cli, path) == _validate_places(run_cli, path)


def test_a_payload_checked_per_version_keeps_its_source_and_has_no_place(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "caps.ndjson"
    path.write_text(json.dumps({"workloadId": "w"}) + "\n" + LINE + "\n", encoding="utf-8")
    lines = run_cli(["versions", str(path)], code=1).stdout.splitlines()
    assert lines[0] == f"{path}:1: no Run:ai version" and lines[8] == f"{path}:2: Run:ai 2.24"
    report = json.loads(run_cli(["versions", "-f", "json", str(path)], code=1).stdout)
    assert {(r["line"], r["column"]) for r in report["results"]} == {(None, None)}


def test_a_bad_line_on_standard_input_is_placed_too(run_cli: RunCli) -> None:
    lines = run_cli(["versions", "-"], code=1, input=f'{LINE}\n{{"x": nope}}\n').stdout.splitlines()
    assert "<stdin>:2:7: no Run:ai version: invalid JSON: Expecting value [parse-error]" in lines


def test_the_place_of_a_name_with_a_control_character_stays_on_one_line(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "a\nb.ndjson"
    path.write_text(f'{LINE}\n{{"x": nope}}\n', encoding="utf-8")
    out = run_cli(["versions", str(path)], code=1).stdout
    assert f"{tmp_path}/a\\nb.ndjson:2:7: no Run:ai version: invalid JSON" in out
    assert not any(line.startswith("b.ndjson") for line in out.splitlines())


def test_a_credential_in_a_file_name_is_masked_in_the_place(run_cli: RunCli, tmp_path: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = tmp_path / f"{token}.ndjson"
    path.write_text(f'{LINE}\n{{"x": nope}}\n', encoding="utf-8")
    for fmt in ("text", "json"):
        out = run_cli(["versions", "-f", fmt, str(path)], code=1).stdout
        assert token not in out and "<secret:" in out


def test_a_payload_no_version_accepts_among_accepted_ones_in_a_har(run_cli: RunCli, tmp_path: Path) -> None:
    both_ends = dict(WORKLOAD)
    both_ends["spec"] = {**WORKLOAD["spec"], "distributedFramework": "JAX"}
    both_ends["spec"]["compute"] = {**WORKLOAD["spec"]["compute"], "gpuRequestType": "migProfile"}
    path = tmp_path / "caps.har"
    path.write_text(json.dumps(_har((200, URL, LINE), (200, URL, json.dumps(both_ends)))), encoding="utf-8")
    result = run_cli(["versions", str(path)], code=1)
    heads = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert heads == [
        f"{path}#0 GET {URL}: Run:ai 2.24",
        f"{path}#1 GET {URL}: no Run:ai version",
        "2 payloads, 0 skipped; no Run:ai version accepts every payload",
    ]


def test_the_reason_of_an_unreadable_input_is_its_first_error_never_a_warning(tmp_path: Path) -> None:
    """A ``.har`` file that is no HAR, with a repeated key: the warning about the key came first."""
    path = tmp_path / "dup.har"
    path.write_text('{"a": 1, "a": 2}', encoding="utf-8")
    [verdict] = judge_paths([str(path)]).verdicts
    assert {reason for _, reason in verdict.rejected} == {"not a HAR file: no log.entries array [har]"}


def test_the_same_inputs_give_the_same_bytes(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "caps.ndjson"
    path.write_bytes(b"\n".join([LINE.encode(), *BAD_LINES]) + b"\n")
    for fmt in ("text", "json"):
        first = run_cli(["versions", "-f", fmt, str(path)]).stdout
        assert run_cli(["versions", "-f", fmt, str(path), "--color", "never"]).stdout == first


_GOOD_OR_BAD = st.one_of(st.just(LINE.encode()), st.sampled_from(BAD_LINES), st.binary(max_size=12))


@settings(
    database=None, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_GOOD_OR_BAD, min_size=1, max_size=6), st.sampled_from([b"\n", b"\r\n"]))
def test_any_ndjson_places_each_input_problem_where_validate_does(
    run_cli: RunCli, tmp_path: Path, lines: list[bytes], ending: bytes
) -> None:
    path = tmp_path / "any.ndjson"
    path.write_bytes(ending.join(line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines) + ending)
    assert _versions_places(run_cli, path) == _validate_places(run_cli, path)


def test_the_api_versions_page_says_where_an_unreadable_input_is_placed() -> None:
    page = (EXAMPLES.parent.parent / "docs" / "api-versions.md").read_text(encoding="utf-8")
    assert '"line", "column"' in page and "FILE:LINE:COLUMN" in page
