"""The validation library: results are data, the fast and detailed validators agree, pointers are exact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jobschema.inputs.locate import line_columns, locate
from jobschema.schemas import registry
from jobschema.schemas.detect import detect
from jobschema.validate import validate_paths, validate_payload
from jobschema.validate.session import Session
from tests.support import BUNDLED, CAPTURES, REPO, all_examples, files_under, load_json

RAW = "aijob.cce.baidubce.com~1raw-request"


@pytest.mark.parametrize(
    "case", all_examples(), ids=lambda c: f"{c[0]}/{c[1].parent.parent.name}/{c[1].name}"
)
def test_fast_and_detailed_validators_agree(case: tuple[str, Path]) -> None:
    name, path = case
    checker = Session().checker(name)
    payload = load_json(path)
    assert checker.fast.is_valid(payload) == (not list(checker.reference.detailed.iter_errors(payload)))


@pytest.mark.parametrize("name", BUNDLED)
def test_captures_are_detected_as_their_schema(name: str) -> None:
    for path in files_under(CAPTURES / name):
        assert detect(load_json(path)).schema == name, path.name


def test_detection_explains_every_candidate() -> None:
    reason = detect({"hello": "world"}).reason
    assert reason == (
        "no bundled schema fits (runai-distributed-workload: no 'workloadId' or 'desiredPhase'; "
        "runai-error: no integer 'code' with a 'message'; aihc-job-detail: no 'result' object with "
        "'jobId' or 'podList'; aihc-error: no string 'code' with a 'requestId'; aihc-raw-request: no "
        "'jobSpec' object with a 'name'; aihc-v2-job: no 'job' object beside 'requestId', nor a "
        "'jobId'/'jobid' with 'status' or 'jobSpec' beside it); pass --schema"
    )


def test_aihc_v2_shapes_are_detected_and_validated() -> None:
    wrapped = validate_payload(
        {"requestId": "r", "job": {"jobid": "job-x", "name": "n", "status": "Running"}}
    )
    assert (wrapped.schema, wrapped.valid, wrapped.findings) == ("aihc-v2-job", True, ())
    flat = validate_payload({"requestId": "r", "jobId": "job-x", "name": "n", "status": "Running"})
    assert (flat.schema, flat.valid) == ("aihc-v2-job", True)
    assert {f.rule for f in flat.findings} == {"aihc-v2-spelling"}


def test_validate_payload_returns_findings_not_exceptions() -> None:
    result = validate_payload({"code": 99, "message": 3}, "runai-error", source="mem")
    assert [(f.pointer, f.rule, f.message) for f in result.findings] == [
        ("/code", "minimum", "99 is below the minimum 100"),
        ("/message", "type", "expected string, got integer 3"),
    ]
    assert {f.source for f in result.findings} == {"mem"}
    assert all(f.schema_pointer for f in result.findings)


def test_format_assertion_is_on() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    payload["result"]["createdAt"] = "yesterday"
    findings = validate_payload(payload).findings
    assert [(f.pointer, f.rule) for f in findings] == [("/result/createdAt", "format")]


def test_embedded_raw_request_findings_continue_the_pointer() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    pod = payload["result"]["podList"]["pods"][0]
    raw = json.loads(pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"])
    raw["jobSpec"]["Master"]["replicas"] = "1"
    pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"] = json.dumps(raw)
    findings = validate_payload(payload).findings
    assert [(f.pointer, f.rule) for f in findings] == [
        (f"/result/podList/pods/0/objectMeta/annotations/{RAW}/jobSpec/Master/replicas", "type")
    ]


def test_unparsable_embedded_json_is_an_error_at_the_annotation() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    payload["result"]["podList"]["pods"][0]["objectMeta"]["annotations"][
        "aijob.cce.baidubce.com/raw-request"
    ] = '{"name": "x",'
    findings = validate_payload(payload).findings
    assert [(f.pointer, f.rule, f.message) for f in findings] == [
        (
            f"/result/podList/pods/0/objectMeta/annotations/{RAW}",
            "embedded-json",
            "embedded JSON does not parse: Expecting property name enclosed in double quotes "
            "(line 1 column 14)",
        )
    ]


def test_secret_values_are_masked_in_messages() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "seed.json")
    pod = payload["result"]["podList"]["pods"][0]
    raw = json.loads(pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"])
    raw["imagePullSecretPassword"] = ["hunter2"]
    pod["objectMeta"]["annotations"]["aijob.cce.baidubce.com/raw-request"] = json.dumps(raw)
    pod["envs"].append({"name": "HF_TOKEN", "value": 123456789})
    findings = validate_payload(payload).findings
    text = " ".join(f.message for f in findings)
    assert len(findings) == 2
    assert "hunter2" not in text and "123456789" not in text
    assert "<secret:" in text


def test_strict_reports_undeclared_properties_as_warnings() -> None:
    payload = load_json(CAPTURES / "runai-error" / "not-found.json")
    payload["traceId"] = "abc"
    assert validate_payload(payload).valid
    result = validate_payload(payload, strict=True)
    assert [(f.pointer, f.rule, f.severity) for f in result.findings] == [
        ("/traceId", "unknown-property", "warning")
    ]
    assert not result.valid


def test_seed_examples_are_valid_with_warnings_only() -> None:
    for name in ("runai-distributed-workload", "aihc-job-detail"):
        result = validate_payload(load_json(CAPTURES / name / "seed.json"))
        assert result.valid, [f.message for f in result.findings]
        assert result.errors == 0


def test_locate_maps_places_to_line_and_column() -> None:
    text = '{\n  "a": [1, {"b/c": "x"}],\n  "d": {}\n}'
    assert locate(text, [("a", 1, "b/c"), ("d",), ("d", "missing"), ()]) == {
        ("a", "1", "b/c"): (2, 20),
        ("d",): (3, 8),
        ("d", "missing"): (3, 8),
        (): (1, 1),
    }


def test_line_columns_of_many_offsets_in_one_pass() -> None:
    text = "ab\ncd\n\nef"
    assert line_columns(text, [0, 4, 3, 7, 8, 9]) == {
        0: (1, 1),
        3: (2, 1),
        4: (2, 2),
        7: (4, 1),
        8: (4, 2),
        9: (4, 3),
    }


def test_user_schema_file_works(tmp_path: Path) -> None:
    schema = tmp_path / "mine.schema.json"
    schema.write_text(json.dumps({"type": "object", "required": ["id"]}), encoding="utf-8")
    payload = tmp_path / "p.json"
    payload.write_text('{"name": "x"}', encoding="utf-8")
    report = validate_paths([str(payload)], str(schema))
    assert [(r.schema, [f.message for f in r.findings]) for r in report.results] == [
        ("mine", ['missing required property "id"'])
    ]


def test_bundled_schemas_load_by_name() -> None:
    assert [registry.load(name).name for name in registry.BUNDLED] == list(BUNDLED)


def test_clean_payloads_can_be_counted_instead_of_kept() -> None:
    kept = validate_paths([str(REPO / "tests/fixtures/captures")])
    counted = validate_paths([str(REPO / "tests/fixtures/captures")], keep_clean=False)
    assert counted.summary() == kept.summary()
    assert counted.clean == sum(1 for r in kept.results if not r.findings) > 0
    assert [r.source for r in counted.results] == [r.source for r in kept.results if r.findings]
    assert counted.ok == kept.ok


def test_public_names_load_lazily_from_the_package() -> None:
    import jobschema

    assert set(jobschema.__all__) == {"__version__", *jobschema._EXPORTS}
    for name in jobschema.__all__:
        assert getattr(jobschema, name) is not None
    assert jobschema.validate_payload({"code": 404, "message": "x"}).valid


@pytest.mark.parametrize(
    ("jobs", "sizes_mib", "expected"),
    [
        (1, [64, 64], 1),  # asked for one
        (8, [64], 1),  # one file
        (8, [1, 1, 1, 1], 1),  # 4 MiB: not worth a second process
        (8, [4, 4], 1),  # two files make at most one pair
        (8, [4, 4, 4, 4], 2),
        (2, [64] * 10, 2),  # never more than asked
        (8, [3] * 20, 8),  # 60 MiB for 8 processes
    ],
)
def test_processes_worth_running(tmp_path: Path, jobs: int, sizes_mib: list[int], expected: int) -> None:
    from jobschema.validate.parallel.pool import worth_running

    files = []
    for index, size in enumerate(sizes_mib):
        path = tmp_path / f"{index}.json"
        with path.open("wb") as handle:
            handle.truncate(size * 2**20)  # sparse: no disk used
        files.append(str(path))
    assert worth_running(jobs, files) == expected
    assert worth_running(jobs, [*files, "-"]) == 1  # stdin is read by this process


def test_folders_are_walked_for_payload_files_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from jobschema.inputs.files import expand

    for name in ("b.json", "a.NDJSON", "c.har", "notes.txt", ".json", "sub/d.jsonl", "locked/e.json"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}", encoding="utf-8")
    real = os.scandir

    def scandir(path: str) -> Any:
        if path.endswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = [Path(p).relative_to(tmp_path).as_posix() for p in expand([str(tmp_path)]).files]
    assert found == ["a.NDJSON", "b.json", "c.har", "sub/d.jsonl"]  # sorted; the unreadable folder skipped


def test_payloads_that_are_not_files_report_as_those_files_do(tmp_path: Path) -> None:
    from jobschema.report import RenderOptions, render
    from jobschema.validate.payloads import validate_payloads

    texts = {
        "ok.json": (CAPTURES / "runai-error" / "not-found.json").read_bytes(),
        "twice.json": b'{\n  "code": 404,\n  "code": 404,\n  "message": 7\n}',
        "cut.json": b'{"code": 4',
        "latin1.json": b'{"message": "caf\xe9"}',
    }
    for name, data in texts.items():
        (tmp_path / name).write_bytes(data)
    files = [str(tmp_path / name) for name in texts]
    report = validate_payloads([(str(tmp_path / name), data) for name, data in texts.items()])
    for fmt in ("text", "json"):
        assert render(report, fmt, RenderOptions(verbose=1)) == render(
            validate_paths(files), fmt, RenderOptions(verbose=1)
        )
    places = [(f.line, f.column, f.rule) for r in report.results for f in r.findings]
    assert places == [
        (3, 11, "duplicate-key"),  # (the last "code", the one read; the message names the first)
        (4, 14, "type"),
        (1, 11, "parse-error"),
        (None, None, "encoding"),
    ]


def test_unnamed_payloads_take_the_name_given_and_values_are_taken_as_they_are() -> None:
    from jobschema.validate.payloads import validate_payloads

    value = load_json(CAPTURES / "runai-error" / "not-found.json")
    report = validate_payloads([value, json.dumps(value), {"code": "x"}], name="row", keep_clean=False)
    assert (report.clean, [(r.source, r.valid) for r in report.results]) == (2, [("row", False)])
    assert validate_payloads([value]).results == (validate_payload(value),)


@pytest.mark.parametrize(
    ("line", "cpus", "expected"),
    [
        ("0.10 0.20 0.30 1/210 4242\n", 4, 4),  # only this process runs
        ("1.00 0.90 0.80 3/210 4242\n", 4, 2),  # two others run
        ("2.00 2.00 2.00 9/210 4242\n", 2, 1),  # all busy: still one
        ("garbage\n", 3, 3),  # unreadable: every CPU
    ],
)
def test_idle_cpus_leaves_out_cpus_other_processes_run_on(
    tmp_path: Path, line: str, cpus: int, expected: int
) -> None:
    from jobschema.validate.parallel.pool import idle_cpus

    loadavg = tmp_path / "loadavg"
    loadavg.write_text(line, encoding="utf-8")
    assert idle_cpus(cpus, loadavg, samples=2) == expected
    assert idle_cpus(cpus, tmp_path / "missing") == cpus


class _Readings:
    """A ``/proc/loadavg`` that reads differently each time (runnable tasks ``counts`` in turn)."""

    def __init__(self, *counts: int) -> None:
        self.counts = list(counts)
        self.reads = 0

    def read_text(self) -> str:
        self.reads += 1
        return f"0.5 0.5 0.5 {self.counts.pop(0)}/210 4242\n"


def test_idle_cpus_reads_again_only_while_others_seem_to_run() -> None:
    from jobschema.validate.parallel.pool import idle_cpus

    quiet = _Readings(1, 3, 3)
    assert (idle_cpus(4, quiet, samples=3), quiet.reads) == (4, 1)  # type: ignore[arg-type]
    woke = _Readings(3, 2, 3)
    assert (idle_cpus(4, woke, samples=3), woke.reads) == (3, 3)  # type: ignore[arg-type]
    gone = _Readings(3, 1, 3)
    assert (idle_cpus(4, gone, samples=3), gone.reads) == (4, 2)  # type: ignore[arg-type]


def test_default_jobs_use_idle_cpus_only_and_explicit_jobs_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jobschema.validate import run

    started: list[int] = []
    monkeypatch.setattr(run, "worth_running", lambda jobs, files: jobs)
    monkeypatch.setattr(run, "usable_cpus", lambda: 4)
    monkeypatch.setattr(run, "idle_cpus", lambda cpus: 1)
    monkeypatch.setattr(
        run, "_parallel", lambda files, settings, finish, jobs, progress, session: started.append(jobs)
    )
    files = [str(tmp_path / "a.json")]
    (tmp_path / "a.json").write_text('{"code": 404, "message": "x"}', encoding="utf-8")
    run.validate_expanded(files, run.Settings(), jobs=0)
    assert started == []  # one idle CPU: no pool
    run.validate_expanded(files, run.Settings(), jobs=3)
    assert started == [3]


def test_validate_paths_takes_path_objects_as_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jobschema.validate import validate_paths

    capture = REPO / "schemas" / "examples" / "runai-error" / "not-found.json"
    monkeypatch.chdir(tmp_path)
    (tmp_path / capture.name).write_text("{}")  # (a file of the same name here must not be read instead)
    report = validate_paths([capture])
    assert [(r.source, r.valid) for r in report.results] == [(str(capture), True)]


def test_a_key_repeated_in_an_embedded_document_warns_there_as_at_the_top() -> None:
    payload = load_json(CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json")
    annotations = payload["result"]["podList"]["pods"][0]["objectMeta"]["annotations"]
    key = "aijob.cce.baidubce.com/raw-request"
    annotations[key] = '{"queue": "x", "queue": "y", ' + annotations[key].lstrip()[1:]
    findings = validate_payload(payload).findings
    assert [(f.pointer, f.rule, f.message) for f in findings if f.rule == "duplicate-key"] == [
        (
            f"/result/podList/pods/0/objectMeta/annotations/{RAW}/queue",
            "duplicate-key",
            'duplicate key "queue"; the last one wins (the first at column 11)',
        )
    ]
