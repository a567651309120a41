"""Keep the benchmark harness honest at tiny sizes: the corpora are what they claim (valid, or broken
exactly where they say), the practical-limit and naive-diff scripts count what jobschema counts, the
large-input generators write what they report, and the measuring helpers time, kill and judge as
documented. The benchmarks themselves run with ``python -m tests.benchmarks``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from jobschema.diff import DiffOptions, diff_documents
from jobschema.schemas.detect import detect
from jobschema.validate import validate_paths
from tests.benchmarks import ajv, limit
from tests.benchmarks.bench_big import growth
from tests.benchmarks.bigcorpus import GrowingNdjson, big_diff_pair, big_job, write_capture, write_har
from tests.benchmarks.common import Section, Target
from tests.benchmarks.contenders import LIMIT, NAIVE_DIFF
from tests.benchmarks.corpus import (
    AIHC,
    EXAMPLES,
    RUNAI,
    Generator,
    diff_snapshots,
    ndjson_lines,
    write_files,
)
from tests.benchmarks.measure import Contender, cgroup_quota, contender, interleave, run_process
from tests.benchmarks.report import load_results, save_results


def _errors(report):
    return {(r.source, f.pointer) for r in report.results for f in r.findings if f.severity == "error"}


def _script(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, check=False)


# Corpora ------------------------------------------------------------------------------------------


def test_generated_files_are_valid_and_clean(tmp_path):
    corpus = write_files(tmp_path, 6, seed=7)
    report = validate_paths([str(tmp_path)])
    assert len(report.results) == 6
    assert {result.schema for result in report.results} == {RUNAI, AIHC}
    findings = [f"{f.source} {f.pointer} {f.rule}" for r in report.results for f in r.findings]
    assert findings == []
    assert corpus.count == 6


def test_generation_is_reproducible(tmp_path):
    first = write_files(tmp_path / "a", 4, seed=11)
    second = write_files(tmp_path / "b", 4, seed=11)
    for schema, paths in first.files.items():
        assert [p.read_bytes() for p in paths] == [p.read_bytes() for p in second.files[schema]]


def test_invalid_corpus_breaks_one_file_in_ten_exactly_where_it_says(tmp_path):
    valid = write_files(tmp_path / "valid", 40, seed=7)
    broken = write_files(tmp_path / "broken", 40, seed=7, invalid_every=10)
    assert len(broken.broken) == 4
    report = validate_paths([str(broken.root)])
    assert {r.source for r in report.results if not r.valid} == {str(p) for p in broken.broken}
    errors = _errors(report)
    for path, (_kind, pointer) in broken.broken.items():
        assert (str(path), pointer) in errors
    for schema, paths in valid.files.items():
        for good, other in zip(paths, broken.files[schema], strict=True):
            if other not in broken.broken:
                assert good.read_bytes() == other.read_bytes()


def test_ndjson_lines_are_valid(tmp_path):
    path = tmp_path / "lines.ndjson"
    path.write_text("\n".join(ndjson_lines(4, seed=3)) + "\n", encoding="utf-8")
    report = validate_paths([str(path)])
    assert len(report.results) == 4
    assert all(result.valid and not result.findings for result in report.results)


def test_diff_pair_holds_exactly_three_edits():
    snaps = diff_snapshots(10, seed=5)
    assert json.dumps(snaps.left) != json.dumps(snaps.right)
    result = diff_documents(snaps.left, snaps.right, options=DiffOptions(show_secrets=True))
    assert sorted(change.path for change in result.changes) == sorted(snaps.edits)


# Large-input generators ---------------------------------------------------------------------------


def test_big_job_has_a_finding_at_every_planted_pointer(tmp_path):
    job = big_job(10, seed=5)
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job.payload, indent=2), encoding="utf-8")
    assert len(job.findings) == 10
    assert {kind for kind, _ in job.findings} == {"type", "format", "enum", "required"}
    errors = {pointer for _source, pointer in _errors(validate_paths([str(path)]))}
    assert {pointer for _kind, pointer in job.findings} <= errors


def test_big_diff_pair_holds_the_three_edits_despite_the_findings():
    snaps, findings = big_diff_pair(12, seed=5)
    result = diff_documents(snaps.left, snaps.right, options=DiffOptions(show_secrets=True))
    assert sorted(change.path for change in result.changes) == sorted(snaps.edits)
    assert len(findings) == 12


def test_capture_is_one_document_of_the_size_asked_with_its_findings(tmp_path):
    path = tmp_path / "capture.json"
    found = write_capture(path, 0.4, seed=5, every=25)
    document = json.loads(path.read_text(encoding="utf-8"))
    pods = document["result"]["podList"]["pods"]
    assert len(pods) == found.pods == document["result"]["replicas"]
    assert found.size == path.stat().st_size
    assert 0.9 * 0.4e6 <= found.size <= 1.1 * 0.4e6
    assert len({pod["objectMeta"]["name"] for pod in pods}) == found.pods
    report = validate_paths([str(path)])
    planted = {f"/result/podList/pods/{i}" for i in range(0, found.pods, 25)}
    hit = {p for _s, p in _errors(report) for prefix in planted if p == prefix or p.startswith(prefix + "/")}
    assert found.findings == len(planted) == len(hit)


def test_har_holds_the_entries_it_reports(tmp_path):
    path = tmp_path / "capture.har"
    found = write_har(path, 60, seed=5)
    assert len(json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]) == 60
    report = validate_paths([str(path)])
    assert (len(report.results), report.skipped) == (found.payloads, found.skipped)
    assert found.errors == 1
    assert all(result.valid for result in report.results)


def test_growing_ndjson_is_a_prefix_of_the_ndjson_lines(tmp_path):
    grown = GrowingNdjson(tmp_path / "big.ndjson", seed=3).grow_to(40_000)
    first = grown.count
    grown.grow_to(90_000)
    lines = grown.path.read_text(encoding="utf-8").splitlines()
    assert grown.size == grown.path.stat().st_size >= 90_000
    assert first < grown.count == len(lines)
    assert lines == list(ndjson_lines(grown.count, seed=3))


# The scripts measured against jobschema ------------------------------------------------------------


def test_limit_script_counts_valid_and_invalid_files(tmp_path):
    write_files(tmp_path / "valid", 20, seed=7)
    write_files(tmp_path / "broken", 20, seed=7, invalid_every=10)
    done = _script(LIMIT, tmp_path / "valid")
    assert (done.returncode, done.stdout) == (0, "20 payloads: 20 valid, 0 invalid\n")
    done = _script(LIMIT, tmp_path / "broken")
    assert (done.returncode, done.stdout) == (1, "20 payloads: 18 valid, 2 invalid\n")
    for parser in ("orjson", "json"):
        done = _script(LIMIT, "--parse-only", "--parser", parser, tmp_path / "broken")
        assert (done.returncode, done.stdout) == (0, "20 payloads parsed, 0 unparsable\n")


def test_limit_script_reads_ndjson_and_har_as_jobschema_does(tmp_path):
    (tmp_path / "lines.ndjson").write_text("\n".join(ndjson_lines(5, seed=3)) + "\n\n", encoding="utf-8")
    found = write_har(tmp_path / "capture.har", 30, seed=3)
    done = _script(LIMIT, tmp_path)
    total = 5 + found.payloads
    assert (done.returncode, done.stdout) == (0, f"{total} payloads: {total} valid, 0 invalid\n")
    assert len(validate_paths([str(tmp_path)]).results) == total


def test_limit_streams_ndjson_with_jobschemas_read_buffer():
    from jobschema.inputs.read import LINE_BUFFER

    assert limit.LINE_BUFFER == LINE_BUFFER


def test_limit_detects_the_schema_jobschema_detects():
    gen = Generator(9)
    payloads = [gen.runai(), gen.aihc(), gen.aihc(pods=3)]
    payloads += [json.loads(p.read_text(encoding="utf-8")) for p in sorted(EXAMPLES.glob("*/*.json"))]
    payloads += [[], {"code": 3}, {"workloadId": "x", "code": 1, "message": "m"}]
    assert [limit.detect(p) for p in payloads] == [detect(p).schema for p in payloads]


def test_naive_diff_reports_exactly_the_three_edits(tmp_path):
    snaps = diff_snapshots(10, seed=5)
    left, right = tmp_path / "left.json", tmp_path / "right.json"
    left.write_text(json.dumps(snaps.left), encoding="utf-8")
    right.write_text(json.dumps(snaps.right), encoding="utf-8")
    done = _script(NAIVE_DIFF, left, right)
    job = snaps.left["result"]["name"]
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"+ pods.{job}-worker-8.envs[NCCL_ASYNC_ERROR_HANDLING]: "
        '{"name":"NCCL_ASYNC_ERROR_HANDLING","value":"1"}',
        f'~ job.result.labels[team].value: "{_team(snaps.left)}" -> "research"',
        f'~ pods.{job}-worker-4.envs[NCCL_DEBUG].value: "INFO" -> "WARN"',
    ]
    same = _script(NAIVE_DIFF, left, left)
    assert (same.returncode, same.stdout) == (0, "")


def _team(document):
    return next(item["value"] for item in document["result"]["labels"] if item["key"] == "team")


# Measuring --------------------------------------------------------------------------------------------


def test_run_process_kills_at_the_time_limit():
    run = run_process([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert run.timed_out
    assert run.returncode == -signal.SIGKILL  # ended by the kill, not by its sleep (no clock asserted)


def test_run_process_gives_a_terminal_only_when_asked():
    probe = "import sys; sys.stderr.write('tty' if sys.stderr.isatty() else 'pipe')"
    on_tty = run_process([sys.executable, "-c", probe], stderr_pty=True)
    piped = run_process([sys.executable, "-c", probe])
    assert (on_tty.stderr, on_tty.stderr_bytes, piped.stderr, piped.stderr_bytes) == ("tty", 3, "pipe", 4)


def test_interleave_rotates_and_drops_a_contender_that_fails():
    ok = contender("ok", "ok", [sys.executable, "-c", "pass"])
    bad = contender("bad", "bad", [sys.executable, "-c", "raise SystemExit(3)"])
    missing = Contender("missing", "missing", None, note="not run: not installed")
    results = interleave([ok, bad, missing], 2)
    assert len(results.runs["ok"]) == 2
    assert "bad" not in results.runs
    assert results.failed["bad"].startswith("exit 3 (expected 0)")
    assert results.failed["missing"] == "not run: not installed"


@pytest.mark.parametrize(
    ("lines", "files", "expected"),
    [
        ("0::/job\n", {"job/cpu.max": "200000 100000"}, (2.0, "cgroup v2 cpu.max")),
        ("0::/\n", {"cpu.max": "max 100000"}, (None, "cgroup v2 cpu.max")),
        (
            "3:cpu,cpuacct:/\n",
            {"cpu/cpu.cfs_quota_us": "50000", "cpu/cpu.cfs_period_us": "100000"},
            (0.5, "cgroup v1 cpu.cfs_quota_us"),
        ),
        (
            "1:cpu:/\n",
            {"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"},
            (None, "cgroup v1 cpu.cfs_quota_us"),
        ),
    ],
)
def test_cgroup_cpu_quota(tmp_path, lines, files, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "cgroup").write_text(lines, encoding="utf-8")
    assert cgroup_quota(tmp_path, tmp_path / "cgroup") == expected


def test_growth_tells_linear_from_quadratic():
    assert growth([(1, 1.0), (2, 2.0), (4, 4.0)]) == (1.0, "slope ratio")
    assert growth([(1, 1.0), (2, 4.0), (4, 16.0)]) == (2.0, "slope ratio")  # t = s²
    assert growth([(1, 0.1), (2, 0.15), (4, 0.4)]) == (1.0, "per-unit ratio")


def test_results_round_trip(tmp_path):
    section = Section(
        "files", "1. Files", "intro", ["a"], [["1"]], ["note"], [Target("goal", "met", "d", 13)]
    )
    section.conditions = {"source": "git abc", "seconds": 1.5}
    save_results(tmp_path / "results.json", {"files": section})
    assert load_results(tmp_path / "results.json") == {"files": section}
    (tmp_path / "results.json").write_text('{"version": 1}', encoding="utf-8")
    assert load_results(tmp_path / "results.json") == {}


def test_ajv_without_npm_is_a_note_not_a_failure(tmp_path, monkeypatch):
    monkeypatch.setattr(ajv.shutil, "which", lambda _name: None)
    found = ajv.install(tmp_path / "cache")
    assert (found.command, found.note) == (None, "not run: node and npm are not installed here")


def test_dask_section_without_dask_says_so_and_judges_nothing(tmp_path):
    from tests.benchmarks import bench_dask
    from tests.benchmarks.common import QUICK
    from tests.benchmarks.measure import Results

    corpus = write_files(tmp_path, 2, seed=7)
    items = bench_dask._contenders(corpus, corpus, None)
    assert [item.available for item in items] == [True, True, False, True, True, False]
    assert items[2].note == "not run: Dask is not installed (pip install -e '.[dask]')"
    same = {"valid": None, "invalid": None}
    section = bench_dask._section(QUICK, corpus, 2, None, items, Results(), same, {})
    assert (section.key, section.targets[0].status) == ("dask", "not measured")
    assert bench_dask._in_process(corpus, None, 2) == {}
    assert [row[1] for row in section.rows[-2:]] == ["-", "-"]
    assert bench_dask._same_report(corpus, None, tmp_path) is None


def test_phases_section_times_every_phase_of_every_corpus(tmp_path):
    from tests.benchmarks import bench_phases
    from tests.benchmarks.common import QUICK

    section = bench_phases.run(QUICK, tmp_path)
    assert section.key == "phases"
    per_file = section.data["per_file"]
    assert set(per_file) == {"clean", "warnings", "drifted"}
    for timed in per_file.values():
        assert set(timed) == {*bench_phases.PHASES, "loads", "limit", "check", "whole"}
        assert all(value >= 0 for value in timed.values())
        assert timed["whole"] > 0
    findings = section.data["findings"]
    assert findings["clean"] == 0
    assert findings["drifted"] >= min(QUICK.files)  # (every file broken: one error each at least)
    assert findings["warnings"] >= 8 * min(QUICK.files)
    assert [row[0] for row in section.rows[-3:]] == [
        "**whole loop, one process**",
        "whole loop ÷ the limit's",
        "findings per file",
    ]
    assert len(section.headers) == 1 + 2 * len(bench_phases.CORPORA)
