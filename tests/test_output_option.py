"""``-o -`` is standard output and ``-o ''`` a usage error, for every command that writes a report.

Before, ``-o -`` wrote a file named ``-`` in the current folder (and stdout stayed empty), and an
empty name (``-o "$OUT"`` with ``OUT`` unset in CI) read as the current folder: "Error: .: cannot
write the report: is a folder".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
AIHC = ROOT / "schemas" / "examples" / "aihc-job-detail" / "seed.json"

#: command -> its arguments besides -o (each writes a report or the redacted text to stdout)
COMMANDS = {
    "validate": ["validate", str(AIHC)],
    "diff": ["diff", str(AIHC), str(AIHC)],
    "coverage": ["coverage", str(AIHC)],
    "versions": ["versions", str(AIHC)],
    "timeline": ["timeline", str(AIHC)],
    "changes": ["changes", "runai@2.23", "runai@2.24"],
    "redact": ["redact", str(AIHC)],
}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    command = [sys.executable, "-m", "jobschema", *args]
    return subprocess.run(command, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_dash_is_standard_output(command: str, tmp_path: Path) -> None:
    plain = _run(COMMANDS[command], tmp_path)
    dashed = _run([*COMMANDS[command], "-o", "-"], tmp_path)
    assert (dashed.returncode, dashed.stdout, dashed.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert plain.stdout
    assert list(tmp_path.iterdir()) == []  # (no file named "-")


@pytest.mark.parametrize("spelling", [["-o", ""], ["--output="], ["--output", ""]])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_empty_file_name_is_a_usage_error(command: str, spelling: list[str], tmp_path: Path) -> None:
    done = _run([*COMMANDS[command], *spelling], tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    error = "Error: Invalid value for '-o' / '--output': the file name is empty"
    assert done.stderr.splitlines()[-1] == error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("flag", "error"),
    [
        ("--in-place", "Error: -o/--output and --in-place cannot be combined"),
        ("--check", "Error: --check changes nothing: it cannot be combined with -o/--output or --in-place"),
    ],
)
def test_dash_is_still_an_output_that_redact_s_modes_refuse(flag: str, error: str, tmp_path: Path) -> None:
    """``-o -`` is stdout, but still -o: beside --in-place or --check it is refused as any -o is (it
    was taken for no -o at all, and --in-place rewrote the file)."""
    capture = tmp_path / "capture.json"
    text = '{"a": "token=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}\n'
    capture.write_text(text)
    done = _run(["redact", flag, "-o", "-", str(capture)], tmp_path)
    assert (done.returncode, done.stdout, done.stderr.splitlines()[-1]) == (2, "", error)
    assert capture.read_text() == text
