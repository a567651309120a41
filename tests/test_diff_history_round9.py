"""``jobschema diff --history``, round 9: histories as users have them.

- Hundreds of identical consecutive snapshots (a poller writing the same answer every ten seconds)
  printed a ``: same`` line each -> a run of three or more comparisons without a change is one line
  that says how many it holds (``FILE:1 → FILE:300: same (299 comparisons, no change)``); two stay two
  lines (no shorter said otherwise); ``-f json`` keeps every pair.
- A browser session's HAR (list calls, a 401 and its retry, a 304, a redirect, a 5xx between the
  job's answers), jobs interleaved in one file, a job deleted and re-created under its name (a new
  id), a recording cut mid-line, snapshots without timestamps: compared as the docs say, job by job.
- A job of 10,000 snapshots: the comparisons counted at n and 4n (linear).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.cli import main
from tests.test_timeline_round9 import OTHER_ID, RUNAI_ID, _session, _workload

HISTORY = "runai-distributed-workload, history"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _ndjson(path: Path, bodies: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(body) + "\n" for body in bodies), encoding="utf-8")
    return path


def test_hundreds_of_identical_snapshots_are_one_line_saying_how_many(tmp_path: Path) -> None:
    path = _ndjson(tmp_path / "same.ndjson", [_workload("Pending")] * 300 + [_workload("Running")])
    code, out, err = _run("diff", "--history", str(path))
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{path}:1 → {path}:300: same (299 comparisons, no change)",
        f"{path}:300 → {path}:301",
        '  ± actualPhase: "Pending" → "Running"',
        f"different ({HISTORY}): 1 changed, 0 added, 0 removed",
    ]
    code, out, _ = _run("diff", "--history", "-f", "json", str(path))
    assert code == 1 and len(json.loads(out)["pairs"]) == 300  # (every comparison, for a program)
    code, out, _ = _run("diff", "--history", "-f", "markdown", str(path))
    assert code == 1 and out.count("| changed |") == 1


def test_two_comparisons_without_a_change_stay_two_lines(tmp_path: Path) -> None:
    path = _ndjson(tmp_path / "two.ndjson", [_workload("Pending")] * 3)
    code, out, _ = _run("diff", "--history", str(path))
    assert (code, out) == (0, f"{path}:1 → {path}:2: same\n{path}:2 → {path}:3: same\nsame ({HISTORY})\n")


@settings(database=None, derandomize=True, max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Pending", "Running", "Degraded"]), min_size=2, max_size=40))
def test_every_comparison_is_said_once_in_order_collapsed_or_not(phases: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = _ndjson(Path(folder) / "h.ndjson", [_workload(p) for p in phases])
        _, out, _ = _run("diff", "--history", str(path))
    heads = [line for line in out.splitlines() if line.startswith(str(path))]
    covered: list[tuple[int, int]] = []
    for line in heads:
        found = re.fullmatch(rf"{re.escape(str(path))}:(\d+) → {re.escape(str(path))}:(\d+)(.*)", line)
        assert found, line
        left, right, rest = int(found[1]), int(found[2]), found[3]
        if right - left > 1:
            assert rest == f": same ({right - left} comparisons, no change)" and right - left >= 3
            assert len(set(phases[left - 1 : right])) == 1
        else:
            assert rest in ("", ": same") and (rest == ": same") == (phases[left - 1] == phases[right - 1])
        covered.append((left, right))
    assert [c[0] for c in covered] == [1] + [c[1] for c in covered[:-1]] and covered[-1][1] == len(phases)


def test_interleaved_jobs_and_a_job_recreated_under_its_name_collapse_each_apart(tmp_path: Path) -> None:
    bodies: list[dict[str, Any]] = []
    for phase in ["Pending"] * 5 + ["Running", "Completed"]:
        bodies += [_workload(phase, name="train"), _workload(phase, OTHER_ID, name="train")]
    path = _ndjson(tmp_path / "both.ndjson", bodies)
    code, out, _ = _run("diff", "--history", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == [
        f"job {RUNAI_ID} ({'runai-distributed-workload'})",
        f"{path}:1 → {path}:9: same (4 comparisons, no change)",
    ]
    assert f"{path}:2 → {path}:10: same (4 comparisons, no change)" in lines


def test_a_browser_sessions_har_compares_the_jobs_answers_only(tmp_path: Path) -> None:
    path = tmp_path / "session.har"
    path.write_text(json.dumps(_session()), encoding="utf-8")
    code, out, err = _run("diff", "--history", str(path))
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{path}#1 → {path}#4: same",
        f"{path}#4 → {path}#5",
        '  ± actualPhase: "Pending" → "Running"',
        f"{path}#5 → {path}#8: same",  # (two comparisons without a change stay two lines)
        f"{path}#8 → {path}#10: same",
        f"{path}#10 → {path}#11",
        '  ± actualPhase: "Running" → "Completed"',
        f"different ({HISTORY}): 2 changed, 0 added, 0 removed",
    ]


def test_snapshots_without_timestamps_are_compared_in_file_order(tmp_path: Path) -> None:
    bodies = [
        {k: v for k, v in _workload(p).items() if k != "createdAt"} for p in ("Running", "Pending", "Running")
    ]
    path = _ndjson(tmp_path / "untimed.ndjson", bodies)
    code, out, _ = _run("diff", "--history", str(path))
    assert code == 1 and out.count("± actualPhase") == 2
    assert out.index('"Running" → "Pending"') < out.index('"Pending" → "Running"')


def test_ten_thousand_snapshots_are_compared_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work counted, not timed: the comparisons of n and 4n snapshots, and the lines written."""
    from jobschema.diff import history

    compare = history.compare
    calls = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return compare(*args, **kwargs)

    monkeypatch.setattr(history, "compare", counted)

    def work(count: int) -> tuple[int, int]:
        phases = ["Pending"] * 7 + ["Running"]
        snapshots = [(f"h:{n + 1}", _workload(phases[n % 8])) for n in range(count)]
        calls[0] = 0
        from jobschema.diff.render import render

        text = render(history.diff_history(snapshots), "text")
        return calls[0], text.count("\n")

    (small, small_lines), (large, large_lines) = work(2_500), work(10_000)
    assert small > 0 and large <= 4 * small + 4 and large_lines <= 4 * small_lines + 4, (small, large)
    assert small_lines < 2_500  # (runs of unchanged comparisons are one line each)
