"""Example-pair tests of ``jobschema diff``: adding a case means adding a folder.

``tests/examples/diff/<case>/`` holds the inputs (``left.json`` and ``right.json`` for snapshots,
``input.json`` for ``--roles``, ``history.ndjson`` for ``--history``), ``args.json`` (the extra
command-line arguments and the expected exit code: ``{"args": [...], "exit": 1}``) and
``expected.json``, the exact ``--format json`` report (rewritten only by ``pytest --update-golden``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import EXAMPLES, REPO, compare_golden, load_json

CASES = sorted(p for p in (EXAMPLES / "diff").iterdir() if p.is_dir()) if (EXAMPLES / "diff").is_dir() else []


def _inputs(case: Path) -> list[str]:
    rel = case.relative_to(REPO)
    if (case / "input.json").is_file():
        return ["--roles", str(rel / "input.json")]
    if (case / "history.ndjson").is_file():
        return ["--history", str(rel / "history.ndjson")]
    return [str(rel / "left.json"), str(rel / "right.json")]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_diff_case(run_cli, monkeypatch: pytest.MonkeyPatch, update_golden: bool, case: Path) -> None:
    monkeypatch.chdir(REPO)
    spec = load_json(case / "args.json")
    result = run_cli(["diff", *_inputs(case), "--format", "json", *spec["args"]], code=spec["exit"])
    assert result.stderr == ""
    compare_golden(case / "expected.json", result.stdout, update_golden)


def test_there_are_cases_for_every_mode() -> None:
    names = {case.name for case in CASES}
    assert any((EXAMPLES / "diff" / n / "input.json").is_file() for n in names)
    assert any((EXAMPLES / "diff" / n / "history.ndjson").is_file() for n in names)
    assert any((EXAMPLES / "diff" / n / "left.json").is_file() for n in names)
