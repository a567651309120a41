"""Acceptance tests of ``jobschema validate``: every flag, format and exit code, through click."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from jobschema.cli.options import use_color
from tests.support import CAPTURES, REPO, SCHEMAS, compare_golden, load_json

GOLDEN = REPO / "tests" / "golden" / "validate-cli"
FIXTURES = "tests/fixtures/captures"
EXTENSIONS = {"text": "txt", "json": "json", "junit": "junit.xml", "github": "github.txt", "sarif": "sarif"}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources print relative to the repository, so goldens are the same on every machine."""
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_fixture_corpus_in_every_format(run_cli, update_golden: bool, fmt: str) -> None:
    result = run_cli(["validate", FIXTURES, "--format", fmt], code=1)
    compare_golden(GOLDEN / f"captures.{EXTENSIONS[fmt]}", result.stdout, update_golden)
    assert result.stderr == ""


def test_bundled_examples_are_valid(run_cli) -> None:
    result = run_cli(["validate", "schemas/examples"], code=0)
    assert result.stdout.endswith("21 payloads: 21 valid, 0 invalid; 0 errors, 23 warnings; 0 skipped\n")


def test_verbose_lists_valid_payloads(run_cli, update_golden: bool) -> None:
    result = run_cli(["validate", "-v", FIXTURES], code=1)
    compare_golden(GOLDEN / "captures-verbose.txt", result.stdout, update_golden)


def test_json_report_matches_its_schema(run_cli) -> None:
    report = json.loads(run_cli(["validate", FIXTURES, "-f", "json"], code=1).stdout)
    schema = load_json(SCHEMAS / "validate-report.schema.json")
    jsonschema.Draft202012Validator(schema).validate(report)
    assert report["summary"] == {
        "inputs": 8,
        "valid": 4,
        "invalid": 4,
        "errors": 8,
        "warnings": 2,
        "skipped": 2,
    }


def test_output_file_gets_the_report_and_stdout_stays_empty(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = run_cli(["validate", FIXTURES, "-f", "json", "-o", str(out)], code=1)
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8") == (GOLDEN / "captures.json").read_text(encoding="utf-8")


def test_no_output_file_on_usage_error(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    run_cli(["validate", "missing.json", "-o", str(out)], code=2)
    assert not out.exists()


def test_same_bytes_on_every_run(run_cli) -> None:
    first = run_cli(["validate", FIXTURES, "-f", "sarif"]).stdout
    assert run_cli(["validate", FIXTURES, "-f", "sarif"]).stdout == first


@pytest.mark.parametrize("forking", [True, False], ids=["forked", "process-pool"])
def test_jobs_give_the_same_report(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_jobs: list[int], forking: bool
) -> None:
    import jobschema.validate.parallel.fork

    if forking and not jobschema.validate.parallel.fork.can_fork():
        pytest.skip("the forked runner is Linux's")
    monkeypatch.setattr(
        jobschema.validate.parallel.fork, "can_fork", lambda: forking
    )  # else the pool (macOS)
    pools = two_jobs  # (two idle CPUs by default, however busy the machine running the test is)
    for index in range(6):
        (tmp_path / f"e{index}.json").write_text(
            (CAPTURES / "runai-error" / "not-found.json").read_text(encoding="utf-8"), encoding="utf-8"
        )
    (tmp_path / "z.json").write_text('{"code": "x", "message": 1, "requestId": 5}', encoding="utf-8")
    serial = run_cli(["validate", str(tmp_path), "-f", "json"], code=1).stdout
    assert run_cli(["validate", str(tmp_path), "-f", "json", "--jobs", "1"], code=1).stdout == serial
    assert pools == [2]  # the default ran two processes; --jobs 1 none
    assert run_cli(["validate", str(tmp_path), "-f", "json", "--jobs", "2"], code=1).stdout == serial
    assert pools == [2, 2]


@pytest.mark.parametrize("forking", [True, False], ids=["forked", "process-pool"])
@pytest.mark.parametrize("fmt", ["text", "github", "json", "junit"])
def test_formats_rendered_in_each_process_give_the_serial_report(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_jobs: list[int], fmt: str, forking: bool
) -> None:
    """Text, GitHub, JSON and JUnit reports are rendered in sections by the processes that check (a
    file named after a shape's anchor, ``bearer``, makes the report searched again): same bytes,
    in forked children and in a process pool (where a system cannot fork)."""
    import jobschema.validate.parallel.fork

    if forking and not jobschema.validate.parallel.fork.can_fork():
        pytest.skip("the forked runner is Linux's")
    monkeypatch.setattr(jobschema.validate.parallel.fork, "can_fork", lambda: forking)
    seed = (CAPTURES / "runai-distributed-workload" / "seed.json").read_text(encoding="utf-8")
    for index in range(5):
        (tmp_path / f"w{index}.json").write_text(seed, encoding="utf-8")
    (tmp_path / "bearer-token.json").write_text(seed, encoding="utf-8")
    (tmp_path / "z.json").write_text('{"code": "x", "message": 1, "requestId": 5}', encoding="utf-8")
    (tmp_path / "clean.json").write_text(
        (CAPTURES / "runai-error" / "not-found.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    for verbose in ([], ["-v"]):
        serial = run_cli(["validate", str(tmp_path), "-f", fmt, "--jobs", "1", *verbose], code=1).stdout
        assert run_cli(["validate", str(tmp_path), "-f", fmt, *verbose], code=1).stdout == serial
        assert ("clean.json: ok" in serial) == (fmt == "text" and verbose == ["-v"])
    assert two_jobs == [2, 2]
    assert "bearer-token.json" in serial and serial.count("warning") >= 6


def test_without_a_process_pool_one_process_does_the_work(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    import jobschema.validate.parallel.fork
    import jobschema.validate.parallel.pool
    import jobschema.validate.run

    def unavailable(*_args: object, **_kwargs: object) -> None:
        raise NotImplementedError("This platform lacks a functioning sem_open implementation")

    monkeypatch.setattr(jobschema.validate.parallel.pool, "BYTES_PER_JOB", 1)
    monkeypatch.setattr(jobschema.validate.parallel.fork, "can_fork", lambda: False)  # as on macOS or Windows
    monkeypatch.setattr(multiprocessing, "Pool", unavailable)
    for index in range(4):
        (tmp_path / f"e{index}.json").write_text('{"code": 404, "message": "gone"}', encoding="utf-8")
    result = run_cli(["validate", str(tmp_path), "--jobs", "2"], code=0)
    assert result.stdout == "4 payloads: 4 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"


def test_schema_option_overrides_detection(run_cli) -> None:
    path = "schemas/examples/runai-error/not-found.json"
    result = run_cli(["validate", "--schema", "aihc-error", path], code=1)
    assert (
        result.stdout.splitlines()[0]
        == f'{path}:1:1: (root): missing required property "requestId" [required]'
    )
    run_cli(["validate", "--schema", str(SCHEMAS / "runai-error.schema.json"), path], code=0)


def test_unknown_schema_is_a_usage_error(run_cli) -> None:
    result = run_cli(["validate", "--schema", "nope", "schemas/examples"], code=2)
    assert result.stderr.startswith("Error: nope: no such schema")


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$schema": 5}, "$schema must be a string (a meta-schema URI)"),
        ({"type": 5}, "not a valid JSON Schema at /type: 5 is not valid under any of the given schemas"),
        ({"properties": {"a": {"pattern": "("}}}, 'schema does not compile: "(" is not a "regex"'),
    ],
    ids=["$schema not a string", "meta-schema", "jsonschema-rs"],
)
def test_a_broken_schema_file_is_one_line_and_exit_2(
    run_cli, tmp_path: Path, schema: dict[str, object], message: str
) -> None:
    (tmp_path / "s.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "p.json").write_text("{}", encoding="utf-8")
    result = run_cli(["validate", "--schema", str(tmp_path / "s.json"), str(tmp_path / "p.json")], code=2)
    assert result.stderr == f"Error: {tmp_path / 's.json'}: {message}\n"


def test_an_odd_annotation_in_a_schema_file_is_not_a_crash(run_cli, tmp_path: Path) -> None:
    schema = {"properties": {"a": {"x-jobschema-format": ["uuid"]}, "b": {"type": "string"}}}
    (tmp_path / "s.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "p.json").write_text('{"a": "x", "b": 1}', encoding="utf-8")
    result = run_cli(["validate", "--schema", str(tmp_path / "s.json"), str(tmp_path / "p.json")], code=1)
    assert result.stdout.splitlines()[0].endswith("/b: expected string, got integer 1 [type]")


def test_strict_reports_undeclared_properties_and_fails_on_warnings(run_cli, tmp_path: Path) -> None:
    payload = load_json(CAPTURES / "runai-error" / "not-found.json")
    payload["traceId"] = "4f2a"
    (tmp_path / "e.json").write_text(json.dumps(payload), encoding="utf-8")
    run_cli(["validate", str(tmp_path / "e.json")], code=0)
    result = run_cli(["validate", "--strict", str(tmp_path / "e.json")], code=1)
    assert (
        f'{tmp_path / "e.json"}:1:63: /traceId: warning: property "traceId" is not declared' in result.stdout
    )


def test_stdin(run_cli) -> None:
    text = (CAPTURES / "aihc-error" / "not-found.json").read_text(encoding="utf-8")
    result = run_cli(["validate", "-", "-v"], code=0, input=text)
    assert result.stdout.splitlines()[0] == "<stdin>: ok (aihc-error)"
    bad = run_cli(["validate", "-"], code=1, input='{"code": 404}')
    assert bad.stdout.splitlines()[0].startswith("<stdin>:1:1: (root): no bundled schema fits")


def test_quoted_glob_is_expanded_sorted(run_cli) -> None:
    result = run_cli(["validate", "-v", "schemas/examples/*-error/*.json"], code=0)
    assert [line.split(":")[0] for line in result.stdout.splitlines()[:-1]] == [
        "schemas/examples/aihc-error/access-denied.json",
        "schemas/examples/aihc-error/not-found.json",
        "schemas/examples/runai-error/not-found.json",
        "schemas/examples/runai-error/unauthorized.json",
    ]


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("missing.json", "Error: missing.json: no such file or folder\n"),
        ("schemas/*.nothing", "Error: schemas/*.nothing: no file matches this pattern\n"),
        ("generated", "Error: generated: folder holds no *.json, *.ndjson, *.jsonl or *.har files\n"),
    ],
)
def test_inputs_that_name_nothing_are_usage_errors(run_cli, arg: str, message: str) -> None:
    result = run_cli(["validate", arg], code=2)
    assert (result.stdout, result.stderr) == ("", message)


BAD_INPUTS = {
    "empty.json": (b"", None, "file is empty", "encoding"),
    "broken.json": (
        b'{\n  "code": 404,\n  "message": }',
        (3, 14),
        "invalid JSON: Expecting value",
        "parse-error",
    ),
    "latin1.json": (
        b'{"message": "caf\xe9"}',
        None,
        "file is not UTF-8: invalid byte 0xe9 at line 1, column 17",
        "encoding",
    ),
    "array.json": (
        b"[1, 2]",
        (1, 1),
        "top level is an array, not a JSON object; no schema fits",
        "no-schema",
    ),
    "nan.json": (
        b'{"code": NaN, "message": "x"}',
        (1, 10),
        "invalid JSON: NaN is not a JSON value",
        "parse-error",
    ),
    "binary.json": (
        b"\x89PNG\r\n\x1a\n\x00\x00",
        None,
        "file is binary (it contains NUL bytes), not JSON text",
        "encoding",
    ),
    "deep.json": (
        b"[" * 100_000 + b"]" * 100_000,
        (1, 1),
        "invalid JSON: nested too deeply to parse",
        "parse-error",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_one_finding_and_the_others_still_run(run_cli, tmp_path: Path, name: str) -> None:
    data, where, message, rule = BAD_INPUTS[name]
    (tmp_path / name).write_bytes(data)
    (tmp_path / "ok.json").write_bytes((CAPTURES / "runai-error" / "not-found.json").read_bytes())
    report = json.loads(run_cli(["validate", str(tmp_path), "-f", "json"], code=1).stdout)
    results = {Path(r["source"]).name: r for r in report["results"]}
    assert results["ok.json"]["valid"] is True
    (finding,) = results[name]["findings"]
    assert (finding["message"], finding["rule"], finding["severity"]) == (message, rule, "error")
    assert (finding["line"], finding["column"]) == (where or (None, None))


def test_bom_is_accepted(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (CAPTURES / "runai-error" / "not-found.json").read_bytes())
    run_cli(["validate", str(path)], code=0)


def test_duplicate_keys_are_a_warning(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('{"code": 404, "code": 500, "message": "x"}', encoding="utf-8")
    result = run_cli(["validate", str(path)], code=0)
    assert result.stdout.startswith(
        f'{path}:1:23: /code: warning: duplicate key "code"; the last one wins (the first at column 10) '
        "[duplicate-key]\n"
    )


def test_deep_but_parsable_nesting_never_raises(run_cli, tmp_path: Path) -> None:
    payload = load_json(CAPTURES / "runai-error" / "not-found.json")
    deep: list = []
    for _ in range(900):
        deep = [deep]
    payload["extra"] = deep
    (tmp_path / "deep.json").write_text(json.dumps(payload), encoding="utf-8")
    result = run_cli(["validate", "--strict", str(tmp_path / "deep.json")], code=1)
    assert "Traceback" not in result.stdout + result.stderr


def test_unreadable_file_is_a_finding(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "locked.json"
    target.write_text("{}", encoding="utf-8")
    real = os.open

    def locked(name: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(name).name == "locked.json":  # root reads any file: refused as a locked one would be
            raise PermissionError(13, "Permission denied")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", locked)
    result = run_cli(["validate", str(target)], code=1)
    assert (
        result.stdout.splitlines()[0] == f"{target}: (root): cannot read file: Permission denied [read-error]"
    )


def test_color_always_and_never(run_cli) -> None:
    assert "\x1b[" in run_cli(["validate", FIXTURES, "--color", "always"], code=1).stdout
    assert "\x1b[" not in run_cli(["validate", FIXTURES, "--color", "never"], code=1).stdout


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_color_auto_follows_the_terminal_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    assert use_color("auto", _Tty()) is True
    assert use_color("auto", io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color("auto", _Tty()) is False
    assert use_color("always", io.StringIO()) is True


def test_no_progress_when_stderr_is_not_a_terminal(run_cli) -> None:
    assert run_cli(["validate", "schemas/examples"], code=0).stderr == ""


def test_help_documents_exit_codes_and_inputs(run_cli) -> None:
    out = run_cli(["validate", "--help"], code=0).stdout
    for text in ("Exit codes:", "--strict", "--format", "--jobs", "NDJSON", "HAR", "--color", "--output"):
        assert text in out


def test_rules_lists_every_rule(run_cli) -> None:
    from jobschema.validate import rules
    from jobschema.validate.rules import catalog

    lines = run_cli(["rules"], code=0).stdout.splitlines()
    ids = [line.split()[0] for line in lines]
    assert ids == sorted(catalog.BUILTIN) + [r.id for r in rules.all_rules()]
    only = [line.split() for line in run_cli(["rules", "-s", "aihc-raw-request"], code=0).stdout.splitlines()]
    assert [row[0] for row in only] == sorted(catalog.BUILTIN) + [
        r.id for r in rules.all_rules() if r.schema == "aihc-raw-request"
    ]
    assert {row[2] for row in only} == {"(any)", "aihc-raw-request"}


def test_rules_of_a_schema_without_rules_of_its_own_lists_the_global_ones(run_cli) -> None:
    from jobschema.validate.rules import catalog

    lines = run_cli(["rules", "--schema", "runai-error"], code=0).stdout.splitlines()
    assert [line.split()[0] for line in lines] == sorted(catalog.BUILTIN)


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'{\n  "a": "caf\xe9"\n}\n', (2, 12)),  # the column counts characters, not bytes:
        ('{\n  "é": "ü'.encode() + b'\xff"\n}', (2, 10)),  # two-byte characters before it
        (b'\xef\xbb\xbf{"a":\n\n "\xc3"}', (3, 3)),  # a BOM is not a character; a cut sequence
        (b'{"a": "\xed\xa0\x80"}', (1, 8)),  # an encoded surrogate is not UTF-8
    ],
)
def test_text_that_is_not_utf8_names_the_line_and_column_of_its_first_bad_byte(
    run_cli, tmp_path: Path, data: bytes, where: tuple[int, int]
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    result = run_cli(["validate", "-f", "json", str(path)], code=1)
    (finding,) = json.loads(result.stdout)["results"][0]["findings"]
    line, column = where
    assert (finding["rule"], finding["line"], finding["column"]) == ("encoding", None, None)
    assert finding["message"].endswith(f"at line {line}, column {column}")  # (in words, as before the
    # fix it said "at offset N": a whole text's problem, not a value's place; NDJSON lines alike)
