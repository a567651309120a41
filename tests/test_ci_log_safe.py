"""Every report a command prints shows text from its inputs (a key, a value, a job's name, a file
name in an error), and none of it may be read as a command by the CI runner whose log it lands in.
tests/test_reports_ci_commands.py holds validate's formats to that; these hold the other commands'
(diff, coverage, timeline, the error lines of every command), which share one guard,
:func:`jobschema.text.log_safe`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.text import log_safe, visible
from tests.test_reports_ci_commands import PREFIXES, _composed, forged

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MONDAY = FIXTURES / "diff" / "job-monday.json"
JOBS = FIXTURES / "captures" / "jobs.ndjson"
COMMANDS = [p for p in PREFIXES if p.strip()]


def _lines_forged(out: str) -> list[str]:
    return [line for line in out.split("\n") if forged(line)]


def _planted(text: str) -> dict[str, Any]:
    """Monday's job with ``text`` as its name, as a new key's name and as the value of one."""
    payload = json.loads(MONDAY.read_text(encoding="utf-8"))
    payload["name"] = text
    payload[text] = f"{text} again"
    return payload


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_diff_shows_no_runner_command(run_cli, tmp_path: Path, fmt: str, command: str) -> None:
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(_planted(f"{command}x")), encoding="utf-8")
    out = run_cli(["diff", "-f", fmt, str(MONDAY), str(changed)], code=1).stdout
    assert _lines_forged(out) == []
    if fmt == "json":  # the same document
        assert f"{command}x again" in [change["new"] for change in json.loads(out)["changes"]]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_coverage_shows_no_runner_command(run_cli, tmp_path: Path, fmt: str) -> None:
    for index, command in enumerate(COMMANDS):
        (tmp_path / f"{index}.json").write_text(json.dumps(_planted(f"{command}x")), encoding="utf-8")
    out = run_cli(["coverage", "-v", "-f", fmt, str(tmp_path)]).stdout
    assert _lines_forged(out) == []


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_timeline_shows_no_runner_command(run_cli, tmp_path: Path, fmt: str) -> None:
    lines = []
    answers = [json.loads(line) for line in JOBS.read_text(encoding="utf-8").splitlines()[:3] if line]
    for index, answer in enumerate(answers * 2):
        answer["result"]["name"] = f"{COMMANDS[index % len(COMMANDS)]}x"
        answer["result"]["status"] = f"{COMMANDS[(index + 3) % len(COMMANDS)]}Running"
        lines.append(json.dumps(answer))
    (tmp_path / "jobs.ndjson").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = run_cli(["timeline", "-f", fmt, str(tmp_path / "jobs.ndjson")]).stdout
    assert _lines_forged(out) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_an_error_line_naming_an_input_is_no_runner_command(run_cli, command: str) -> None:
    result = run_cli(["validate", f"{command}missing.json"], code=2)
    assert result.stderr.startswith("Error: ")
    assert _lines_forged(result.stderr) == []


@settings(max_examples=50, deadline=None, database=None)
@given(st.lists(_composed(), min_size=1, max_size=5))
def test_no_line_of_a_guarded_text_is_a_command_and_only_commands_change(lines: list[str]) -> None:
    document = "\n".join(lines) + "\n"
    guarded = log_safe(document)
    assert _lines_forged(guarded) == [] or any("\x1b" in line or "\r" in line for line in lines)
    assert guarded.count("\n") == document.count("\n")
    for before, after in zip(document.split("\n"), guarded.split("\n"), strict=True):
        assert after == before or forged(before) is not None


@settings(max_examples=50, deadline=None, database=None)
@given(st.lists(_composed(), min_size=1, max_size=5))
def test_a_guarded_json_document_is_the_same_document(values: list[str]) -> None:
    document = json.dumps({"values": values}, indent=2, ensure_ascii=False)
    guarded = log_safe(document, json_text=True)
    assert json.loads(guarded) == {"values": values}
    assert not any(forged(line) == "azure/teamcity" for line in guarded.split("\n"))


@settings(max_examples=50, deadline=None, database=None)
@given(_composed(), _composed())
def test_record_lines_show_no_runner_command(job: str, phase: str) -> None:
    """``record`` prints a job's id and phase, the API's own text, in its status lines and notes on a
    CI log: neither may be a runner's command there."""
    from jobschema.record.guard import Guard
    from jobschema.record.status import JobState

    status = JobState("aihc", job, phase=phase).line()
    note = Guard(["a-known-credential"]).line(visible(f"note: aihc {job}: {phase}"))  # (as written)
    for out in (status, note, f"\n{status}", f"\n{note}"):
        assert _lines_forged(out) == []
