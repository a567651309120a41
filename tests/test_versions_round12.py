"""``jobschema versions`` over a history, round 12: the summary names the captures that rule each
other out.

Before, a history whose captures each fit some version but no version all of them ended with
``3 payloads, 0 skipped; no Run:ai version accepts every payload`` and left the reader to compare
every block. Now the summary names the fewest captures no version accepts together, with their
source and place (an NDJSON line's ``:3``) and the versions each fits alone, in text and in JSON
(``summary.conflict``, added to ``schemas/versions-report.schema.json`` as an optional member).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.validate.accepted import Judgement, Verdict
from jobschema.validate.clash import conflicting
from tests.support import CAPTURES, EXAMPLES, REPO, load_json

EARLY = EXAMPLES / "versions" / "mig-profile-in-2.24.json"  # Run:ai 2.18-2.23
MIDDLE = EXAMPLES / "versions" / "jax-in-2.20.json"  # Run:ai 2.21-2.24
LATE = CAPTURES / "runai-distributed-workload" / "mpi-job.json"  # Run:ai 2.24
REPORT_SCHEMA = load_json(REPO / "schemas" / "versions-report.schema.json")
RUNAI = ("2.18", "2.19", "2.20", "2.21", "2.22", "2.23", "2.24")


def _history(tmp_path: Path, *paths: Path) -> Path:
    path = tmp_path / "history.ndjson"
    path.write_text("".join(json.dumps(load_json(p)) + "\n" for p in paths), encoding="utf-8")
    return path


def test_the_summary_names_the_files_that_rule_each_other_out(run_cli: Any) -> None:
    result = run_cli(["versions", str(MIDDLE), str(EARLY), str(LATE)], code=1)
    assert result.stdout.splitlines()[-1] == (
        f"3 payloads, 0 skipped; no Run:ai version accepts every payload: {EARLY} (2.18-2.23) and "
        f"{LATE} (2.24) rule each other out"
    )


def test_the_summary_names_the_lines_of_a_history(run_cli: Any, tmp_path: Path) -> None:
    path = _history(tmp_path, EARLY, MIDDLE, EARLY, LATE, MIDDLE)
    result = run_cli(["versions", str(path)], code=1)
    assert result.stdout.splitlines()[-1] == (
        f"5 payloads, 0 skipped; no Run:ai version accepts every payload: {path}:1 (2.18-2.23) and "
        f"{path}:4 (2.24) rule each other out"
    )
    again = run_cli(["versions", str(path)], code=1)
    assert again.stdout == result.stdout


def test_the_json_summary_names_them_and_is_what_the_report_schema_says(run_cli: Any, tmp_path: Path) -> None:
    path = _history(tmp_path, MIDDLE, EARLY, LATE)
    report = json.loads(run_cli(["versions", "-f", "json", str(path)], code=1).stdout)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["summary"] == {
        "payloads": 3,
        "skipped": 0,
        "conflict": [
            {"result": 1, "source": f"{path}:2", "accepted": list(RUNAI[:6])},
            {"result": 2, "source": f"{path}:3", "accepted": ["2.24"]},
        ],
    }
    assert [report["results"][c["result"]]["source"] for c in report["summary"]["conflict"]] == [
        f"{path}:2",
        f"{path}:3",
    ]


def test_no_conflict_when_a_version_accepts_all_or_a_capture_fits_none(run_cli: Any, tmp_path: Path) -> None:
    fine = run_cli(["versions", "-f", "json", str(MIDDLE), str(LATE)], code=0)
    assert json.loads(fine.stdout)["summary"]["conflict"] == []
    text = run_cli(["versions", str(MIDDLE), str(LATE)], code=0).stdout.splitlines()[-1]
    assert text == "2 payloads, 0 skipped; every payload is accepted by Run:ai 2.24"
    broken = tmp_path / "cut.json"
    broken.write_text('{"workloadId": ', encoding="utf-8")
    alone = run_cli(["versions", str(EARLY), str(LATE), str(broken)], code=1)
    assert alone.stdout.splitlines()[-1] == "3 payloads, 0 skipped; no Run:ai version accepts every payload"
    old = json.loads(run_cli(["versions", "-f", "json", str(MIDDLE)], code=0).stdout)
    del old["summary"]["conflict"]  # (a report written before round 12 still fits the schema)
    jsonschema.validate(old, REPORT_SCHEMA)


def test_aihc_v1_and_v2_captures_of_one_history_are_named(run_cli: Any, tmp_path: Path) -> None:
    v1 = CAPTURES / "aihc-job-detail" / "finished-job.json"
    v2 = CAPTURES / "aihc-v2-job" / "sdk-running-4-pods.json"
    error = CAPTURES / "aihc-error" / "not-found.json"
    path = _history(tmp_path, error, v1, v2, v1)
    result = run_cli(["versions", "--api", "aihc", str(path)], code=1)
    assert result.stdout.splitlines()[-1] == (
        f"4 payloads, 0 skipped; no AIHC version accepts every payload: {path}:2 (v1) and {path}:3 (v2) "
        "rule each other out"
    )


def test_a_credential_in_a_source_is_masked_in_the_summary(run_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "password=hunter2hunter2"
    folder.mkdir()
    path = _history(folder, EARLY, LATE)
    said = run_cli(["versions", str(path)], code=1).stdout
    assert "hunter2hunter2" not in said and "rule each other out" in said.splitlines()[-1]


# ------------------------------------------------------------------- the fewest, on any history

ACCEPTED = st.lists(st.sampled_from(RUNAI), unique=True).map(lambda vs: tuple(v for v in RUNAI if v in vs))


def _judgement(accepted: list[tuple[str, ...]]) -> Judgement:
    verdicts = [
        Verdict(f"h.ndjson:{n + 1}", "runai-distributed-workload", a, ()) for n, a in enumerate(accepted)
    ]
    return Judgement("runai", RUNAI, verdicts)


@settings(database=None, derandomize=True, max_examples=100, deadline=None)
@given(st.lists(ACCEPTED, min_size=1, max_size=7))
def test_the_named_captures_are_the_fewest_that_no_version_accepts_together(
    accepted: list[tuple[str, ...]],
) -> None:
    judged = _judgement(accepted)
    named = conflicting(judged)
    if judged.accepted_by_all or not all(accepted):
        assert named == ()
        return
    assert len(named) >= 2
    assert not set(RUNAI).intersection(*(set(v.accepted) for v in named))
    indices = [judged.verdicts.index(v) for v in named]
    assert indices == sorted(indices)
    smallest = next(
        size
        for size in range(2, len(accepted) + 1)
        for chosen in itertools.combinations(accepted, size)
        if not set(RUNAI).intersection(*map(set, chosen))
    )
    assert len(named) == smallest
    assert conflicting(_judgement(accepted)) == named  # (the same answer every time)


def test_a_long_history_is_searched_over_what_its_captures_rule_out_not_over_them() -> None:
    """A history of 4,000 captures of a few kinds: answered at once, naming the first of each kind."""
    kinds = [RUNAI[:6], RUNAI[3:], ("2.24",), RUNAI]
    judged = _judgement([kinds[n % 4] for n in range(4000)])
    assert [v.source for v in conflicting(judged)] == ["h.ndjson:1", "h.ndjson:3"]
