"""Every command reads each input it is given and writes only what it is asked to: an input that names
nothing is named on stderr while the others are still read (exit 2), and no file a command writes (a
report, a baseline, a recording) is one it reads (a capture, a schema, a baseline) or someone else's."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from tests.support import CAPTURES, REPO, SCHEMAS

RUNAI = CAPTURES / "runai-distributed-workload"
GOOD = (
    RUNAI / "seed.json",
    RUNAI / "completed-job.json",
    REPO / "tests" / "fixtures" / "redact" / "runai-workload.json",
)
MISSING = {
    "missing.json": "missing.json: no such file or folder",
    "nomatch*.json": "nomatch*.json: no file matches this pattern",
    "empty-folder": "empty-folder: folder holds no *.json, *.ndjson, *.jsonl or *.har files",
    "new\nline.json": "new\\nline.json: no such file or folder",
}
#: command -> its arguments before the inputs
COMMANDS = {"validate": [], "versions": [], "coverage": [], "redact-check": ["--check"]}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty-folder").mkdir()
    for path in GOOD:
        shutil.copy(path, tmp_path / path.name)
    return [path.name for path in GOOD]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("missing", MISSING)
def test_an_input_that_names_nothing_is_named_and_the_others_are_read(
    run_cli, inputs: list[str], command: str, missing: str
) -> None:
    before = COMMANDS[command]
    name = command.split("-", maxsplit=1)[0]
    alone = run_cli([name, *before, *inputs])
    assert alone.exit_code in (0, 1) and alone.stdout  # (a report: something to compare)
    result = run_cli([name, *before, inputs[0], missing, *inputs[1:]], code=2)
    assert result.stdout == alone.stdout
    assert result.stderr == f"Error: {MISSING[missing]}\n" + alone.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_when_every_input_names_nothing_each_is_named(run_cli, inputs: list[str], command: str) -> None:
    result = run_cli([command.split("-", maxsplit=1)[0], *COMMANDS[command], *MISSING], code=2)
    assert result.stdout == ""
    assert result.stderr == "".join(f"Error: {message}\n" for message in MISSING.values())


SCHEMA = SCHEMAS / "runai-distributed-workload.schema.json"
NO = "--no-witnesses"


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "-s", "S.json", "-o", "S.json", "seed.json"],
        ["coverage", "-s", "S.json", "-o", "S.json", "seed.json"],
        ["diff", "-s", "S.json", "-o", "S.json", "seed.json", "completed-job.json"],
        ["changes", "S.json", "runai-distributed-workload@2.24", NO, "-o", "S.json"],
        ["changes", "S.json#/properties", "S.json#/properties", NO, "-o", "S.json"],
        ["changes", "S.json", "runai-distributed-workload@2.24", NO, "--write-baseline", "S.json"],
        ["changes", "runai@2.19", "runai@2.24", NO, "--write-baseline", "seed.json", "seed.json"],
        ["changes", "runai@2.19", "runai@2.24", NO, "-o", "b.txt", "--baseline", "b.txt"],
    ],
    ids=[
        "validate-schema",
        "coverage-schema",
        "diff-schema",
        "changes-old-schema",
        "changes-schema-at-a-pointer",
        "changes-baseline-over-old",
        "changes-baseline-over-a-capture",
        "changes-report-over-the-baseline-read",
    ],
)  # fmt: skip
def test_a_file_read_is_never_written(run_cli, inputs: list[str], args: list[str]) -> None:
    Path("S.json").write_bytes(SCHEMA.read_bytes())
    Path("b.txt").write_text("# jobschema changes baseline\n", encoding="utf-8")
    files = [Path(name) for name in ("S.json", "b.txt", *inputs)]
    digests = [_digest(path) for path in files]
    result = run_cli(args, code=2)
    assert result.stderr.count("\n") == 1 and " is one of the inputs; choose another file" in result.stderr
    assert [_digest(path) for path in files] == digests


def test_two_options_never_write_one_file(run_cli, inputs: list[str]) -> None:
    args = [
        "changes",
        "runai@2.19",
        "runai@2.24",
        "--no-witnesses",
        "--write-baseline",
        "x.txt",
        "-o",
        "x.txt",
    ]
    result = run_cli(args, code=2)
    assert result.stderr == "Error: x.txt: -o/--output and --write-baseline name the same file; choose two\n"
    assert not Path("x.txt").exists()


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"my notes\nimportant line", "line 1"),
        (b'{"a": 1}\nnot json\n', "line 2"),
        (b'{"a": 1}\n[1, 2]\n', "line 2"),
        (b'{"a": 1}\n\x00\x01binary', "its last line"),
        (b'{"a": 1}\nsome words without a newline', "its last line"),
    ],
    ids=["notes", "a-line-not-json", "a-line-not-an-object", "binary-tail", "words-tail"],
)
def test_record_never_appends_to_a_file_that_is_not_a_recording(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, line: str
) -> None:
    """``record -o`` resumes a recording (and repairs the torn last line an interrupted write left);
    any other file is refused before anything is written, even when nothing would be recorded."""
    monkeypatch.setenv("RUNAI_CLIENT_ID", "a")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "b")
    target = tmp_path / "notes.txt"
    target.write_bytes(content)
    args = ["--url", "http://127.0.0.1:1", "--workload", "x", "--count", "1", "--retries", "0"]
    result = run_cli(["record", "runai", *args, "--timeout", "1", "-o", str(target)], code=2)
    assert result.stderr == (
        f"Error: {target}: not an NDJSON recording ({line} is not a JSON object); choose another -o file\n"
    )
    assert target.read_bytes() == content


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["validate"], 1),
        (["versions"], 1),
        (["redact"], 1),
        (["redact", "--check"], 1),
        (["diff", "--roles"], 2),
        (["diff", "--history"], 2),
        (["coverage"], 0),  # (an unreadable payload is counted as unrecognised, and named)
    ],
)
@pytest.mark.parametrize("name", ["new\nline.json", "escape\x1b[31m.json", "tab\there.json"])
def test_an_error_naming_a_file_is_one_line_whatever_the_name_holds(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], code: int, name: str
) -> None:
    """A file name may hold a line break or a terminal escape: every error shows it escaped."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(b"")  # an empty file: an error (or a finding) naming it
    result = run_cli([*args, name], code=code)
    shown = name.encode("unicode_escape").decode()  # (the line break, escape or tab written as \\n ...)
    assert shown in result.stdout + result.stderr
    assert name not in result.stdout + result.stderr
    assert "\x1b" not in result.stdout + result.stderr


@pytest.mark.parametrize("option", ["-o", "--har"])
def test_record_refuses_a_fifo_to_write_to_at_once(tmp_path: Path, option: str) -> None:
    """A FIFO (or a device) named as a recording file is refused before anything is read or written:
    opening it never waits for a reader."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe.ndjson"
    os.mkfifo(fifo)
    args = ["record", "runai", "--url", "http://127.0.0.1:1", "--workload", "x", "--count", "1"]
    args += ["--retries", "0", option, str(fifo)]
    if option == "--har":
        args += ["-o", str(tmp_path / "r.ndjson")]
    env = {**os.environ, "RUNAI_CLIENT_ID": "a", "RUNAI_CLIENT_SECRET": "b", "JOBSCHEMA_MASK_KEY": "k"}
    done = subprocess.run(
        [sys.executable, "-m", "jobschema", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr == f"Error: {fifo}: not a regular file (a FIFO, a device or a socket); name a file\n"


def test_diff_names_what_is_wrong_with_a_link(run_cli, tmp_path: Path) -> None:
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    good = str(GOOD[0])
    for name, reason in (("dangling.json", "dangling symbolic link"), ("loop.json", "symbolic link loop")):
        result = run_cli(["diff", str(tmp_path / name), good], code=2)
        assert result.stderr == f"Error: {tmp_path / name}: cannot read file: {reason}\n"
    result = run_cli(["diff", str(tmp_path / "nope.json"), good], code=2)
    assert result.stderr == f"Error: {tmp_path / 'nope.json'}: no such file\n"
