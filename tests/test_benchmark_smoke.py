"""Keep the benchmark corpus generator honest: what it writes validates, and the diff pair holds
exactly the three edits it claims. The benchmarks themselves run with ``python -m tests.benchmarks``."""

from __future__ import annotations

import json

from jobschema.diff import DiffOptions, diff_documents
from jobschema.validate import validate_paths
from tests.benchmarks.corpus import AIHC, RUNAI, diff_snapshots, ndjson_lines, write_files


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
