"""Every file a command writes follows one rule (jobschema.outputs): ``-o`` through a symbolic link
writes the file it points to and the link stays; ``-o`` naming a FIFO writes into the pipe for its
reader; a regular file is replaced whole through a temporary of its own (a ``.NAME.tmp`` of the
user's beside it is left alone), keeping its mode; a folder or an empty name is one line, exit 2."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from jobschema.outputs import destination, write_file
from tests.support import REPO

EXAMPLES = REPO / "schemas" / "examples"
CAPTURE = str(EXAMPLES / "runai-distributed-workload" / "completed-job.json")
OTHER = str(EXAMPLES / "runai-distributed-workload" / "mpi-job.json")
RECORDING = str(REPO / "tests" / "fixtures" / "record" / "two-jobs.ndjson")

#: name -> (arguments before ``-o FILE``, the exit code of the run)
COMMANDS = {
    "validate": (["validate", CAPTURE], 0),
    "versions": (["versions", CAPTURE], 0),
    "coverage": (["coverage", CAPTURE], 0),
    "diff": (["diff", CAPTURE, CAPTURE], 0),
    "changes": (["changes", "runai@2.23", "runai@2.24", "--no-witnesses"], 1),
    "timeline": (["timeline", RECORDING], 0),
    "redact json": (["redact", CAPTURE], 0),
    "redact ndjson": (["redact", RECORDING], 0),
}


def _run(run_cli, name: str, output: Path | str) -> object:
    args, code = COMMANDS[name]
    return run_cli([*args, "-o", str(output)], code=code)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_o_through_a_link_writes_the_file_it_points_to(run_cli, tmp_path: Path, name: str) -> None:
    real = tmp_path / "real.out"
    real.write_text("old\n")
    link = tmp_path / "link.out"
    link.symlink_to(real.name)
    _run(run_cli, name, link)
    assert link.is_symlink() and link.readlink() == Path(real.name)
    assert real.read_text() not in ("", "old\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.out", "real.out"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_o_naming_a_fifo_writes_into_the_pipe(run_cli, tmp_path: Path, name: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    _run(run_cli, name, fifo)
    reader.join(60)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received and received[0]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_temporary_name_of_the_users_is_left_alone(run_cli, tmp_path: Path, name: str) -> None:
    output = tmp_path / "report.out"
    neighbour = tmp_path / ".report.out.tmp"
    neighbour.write_text("mine\n")
    output.write_text("old\n")
    output.chmod(0o640)
    _run(run_cli, name, output)
    assert neighbour.read_text() == "mine\n"
    assert output.read_text() != "old\n"
    assert stat.S_IMODE(output.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == [".report.out.tmp", "report.out"]


@pytest.mark.parametrize("name", ["validate", "diff", "redact json", "redact ndjson"])
@pytest.mark.parametrize("kind", ["folder", "empty"])
def test_a_folder_or_an_empty_name_is_one_line_exit_2(run_cli, tmp_path: Path, name: str, kind: str) -> None:
    args, _ = COMMANDS[name]
    output = str(tmp_path) if kind == "folder" else ""
    result = run_cli([*args, "-o", output], code=2)
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("Error: ") and "internal error" not in result.stderr


def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        write_file(tmp_path / "new.json", b"{}\n")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_destinations() -> None:
    assert destination("/dev/null").direct
    with pytest.raises(IsADirectoryError):
        destination("/")
    with pytest.raises(OSError, match="empty name"):
        destination("")


def test_o_naming_the_file_fed_to_standard_input_is_refused(tmp_path: Path) -> None:
    import subprocess
    import sys

    capture = tmp_path / "a.json"
    capture.write_bytes(Path(CAPTURE).read_bytes())
    with capture.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "jobschema", "validate", "-", "-o", str(capture)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == f"Error: {capture}: -o/--output is one of the inputs; choose another file\n"
    assert capture.read_bytes() == Path(CAPTURE).read_bytes()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["rules"],
        ["validate", "--help"],
        ["validate", CAPTURE],
        ["diff", CAPTURE, OTHER],
    ],
)
def test_standard_output_that_cannot_be_written_is_one_line_exit_2(args: list[str]) -> None:
    import subprocess
    import sys

    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "jobschema", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr.startswith("Error: standard output: cannot write") and done.stderr.count("\n") == 1
