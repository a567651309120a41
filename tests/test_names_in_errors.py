"""A file's name in an error or a note is read by the secret policy as reports read it: a file named
``password=…`` (one that does not parse, a dangling link in a folder, one that does not exist, a side
file, an output) never shows the value on stderr, in any command; the line's own words stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobschema.inputs.files import named

SECRET = "Hunter2Secret"
NAME = f"password={SECRET}.json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / NAME).write_text("{bad")
    (tmp_path / "d" / f"db_{NAME}").symlink_to("nowhere")
    return tmp_path


def _commands(root: Path) -> dict[str, list[str]]:
    folder, missing = str(root / "d"), str(root / f"missing-{NAME}")
    broken = str(root / "d" / NAME)
    return {
        "validate": ["validate", folder, missing],
        "coverage": ["coverage", folder, missing],
        "versions": ["versions", folder, missing],
        "timeline": ["timeline", folder, missing],
        "redact --check": ["redact", "--check", folder, missing],
        "diff": ["diff", broken, broken],
        "validate -s": ["validate", "-s", missing, folder],
    }


@pytest.mark.parametrize(
    "command", ["validate", "coverage", "versions", "timeline", "redact --check", "diff", "validate -s"]
)
def test_a_credential_in_a_file_name_never_reaches_stderr(run_cli, folder: Path, command: str) -> None:
    result = run_cli(_commands(folder)[command])
    assert result.exit_code in (1, 2)
    assert result.stderr.strip(), "the bad input is named"
    assert SECRET not in result.stdout + result.stderr
    assert "password=<secret:" in result.stdout + result.stderr


def test_an_ordinary_name_is_shown_as_it_is() -> None:
    assert named("captures/job.json") == "captures/job.json"
    assert named("-") == "<stdin>"
    assert named("a\nb.json") == "a\\nb.json"
    assert SECRET not in named(f"captures/{NAME}")
