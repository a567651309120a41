"""No input stops the run and no signal leaves a mess: pipes, FIFOs, links, odd numbers, Ctrl-C,
SIGTERM with worker processes, ``-o`` naming an input, and a mistyped command."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import CAPTURES, REPO

LONGER = "is longer than 4300 digits"
OVERFLOWS = "is too large for a double (it overflows)"
NOT_FOUND = CAPTURES / "runai-error" / "not-found.json"
JOBSCHEMA = [sys.executable, "-m", "jobschema"]


def _run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*JOBSCHEMA, *args], capture_output=True, text=True, timeout=60, check=False, **kwargs
    )  # type: ignore[call-overload]


# --- pipes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["rules", "schemas", "schemas show runai-distributed-workload"])
def test_a_reader_that_stops_early_is_no_error(command: str) -> None:
    for _ in range(5):  # the race between writer and reader differs from run to run
        shell = f"set -o pipefail; {sys.executable} -m jobschema {command} | head -1 >/dev/null"
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=60, check=False)
        assert (done.returncode, done.stderr) == (0, "")


def test_validate_into_a_closed_pipe_keeps_its_exit_code(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"code": "x", "message": 1}', encoding="utf-8")
    for index in range(40):
        (tmp_path / f"ok{index}.json").write_bytes(NOT_FOUND.read_bytes())
    command = f"{sys.executable} -m jobschema validate -v {tmp_path}"
    shell = f"{command} | head -c 1 >/dev/null; exit ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (1, "")


# --- inputs that are not regular files ----------------------------------------------------------


def test_a_fifo_named_directly_is_an_error_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "capture.json"
    os.mkfifo(fifo)
    done = _run("validate", str(fifo), str(NOT_FOUND))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        f"{fifo}: (root): cannot read file: is a FIFO (named pipe), not a regular file "
        "(pipe it to - to read it as standard input) [read-error]"
    )
    assert done.stdout.splitlines()[-1].startswith("2 payloads: 1 valid, 1 invalid")


def test_links_in_folders_dangling_looping_and_fifos_are_skipped_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "caps"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "ok.json").write_bytes(NOT_FOUND.read_bytes())
    (folder / "sub" / "back").symlink_to(folder, target_is_directory=True)  # a loop
    (folder / "gone.json").symlink_to(tmp_path / "nowhere.json")
    (folder / "linked").symlink_to(folder / "sub", target_is_directory=True)
    os.mkfifo(folder / "pipe.json")
    done = _run("validate", str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    assert done.stderr.splitlines() == [
        f"note: {folder}/gone.json: dangling symbolic link, skipped",
        f"note: {folder}/linked: link to a folder walked already, skipped",
        f"note: {folder}/pipe.json: not a regular file, skipped",
        f"note: {folder}/sub/back: link to a folder walked already, skipped",
    ]


def test_a_link_to_a_folder_outside_is_followed(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "ok.json").write_bytes(NOT_FOUND.read_bytes())
    (tmp_path / "caps").mkdir()
    (tmp_path / "caps" / "more").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    done = _run("validate", str(tmp_path / "caps"))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("1 payload: 1 valid")


def test_diff_names_a_folder_or_fifo_for_what_it_is(run_cli, tmp_path: Path) -> None:
    fifo = tmp_path / "b.json"
    os.mkfifo(fifo)
    folder = run_cli(["diff", str(tmp_path), str(NOT_FOUND)], code=2)
    assert folder.stderr == f"Error: {tmp_path}: cannot read file: is a folder, not a file\n"
    pipe = run_cli(["diff", str(NOT_FOUND), str(fifo)], code=2)
    assert pipe.stderr == (
        f"Error: {fifo}: cannot read file: is a FIFO (named pipe), not a regular file "
        "(pipe it to - to read it as standard input)\n"
    )


# --- values Python cannot hold ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{"code": 1e400, "message": "x"}', (1, 10), f"number 1e400 {OVERFLOWS}"),
        ('{"code": -1E+999, "message": "x"}', (1, 10), f"number -1E+999 {OVERFLOWS}"),
        ('{"code": ' + "7" * 4301 + ', "message": "x"}', (1, 10), f"integer of 4301 digits {LONGER}"),
    ],
    ids=["overflow", "negative-overflow", "long-integer"],
)  # fmt: skip
def test_numbers_python_cannot_hold_are_findings(
    run_cli, tmp_path: Path, text: str, where: tuple[int, int], message: str
) -> None:
    (tmp_path / "odd.json").write_text(text, encoding="utf-8")
    report = json.loads(run_cli(["validate", str(tmp_path / "odd.json"), "-f", "json"], code=1).stdout)
    (finding,) = report["results"][0]["findings"]
    assert (finding["line"], finding["column"], finding["message"], finding["rule"]) == (
        *where,
        f"invalid JSON: {message}",
        "parse-error",
    )


def test_an_over_long_integer_inside_the_raw_request_is_a_finding(run_cli, tmp_path: Path) -> None:
    detail = json.loads((CAPTURES / "aihc-job-detail" / "seed.json").read_text(encoding="utf-8"))
    annotations = detail["result"]["podList"]["pods"][0]["objectMeta"]["annotations"]
    annotations["aijob.cce.baidubce.com/raw-request"] = (
        '{"name": "x", "jobSpec": {}, "n": ' + "9" * 5000 + "}"
    )
    (tmp_path / "job.json").write_text(json.dumps(detail), encoding="utf-8")
    report = json.loads(run_cli(["validate", str(tmp_path / "job.json"), "-f", "json"], code=1).stdout)
    embedded = [f for f in report["results"][0]["findings"] if f["rule"] == "embedded-json"]
    assert [(f["pointer"], f["message"]) for f in embedded] == [
        (
            "/result/podList/pods/0/objectMeta/annotations/aijob.cce.baidubce.com~1raw-request",
            "embedded JSON does not parse: integer of 5000 digits is longer than 4300 digits"
            " (line 1 column 35)",
        )
    ]


def test_lone_surrogates_reach_every_format_escaped(run_cli, tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(
        '{"code": "\\ud800", "message": "\\udfff", "\\ud83d": 1}', encoding="utf-8"
    )
    for fmt in ("text", "json", "junit", "github", "sarif"):
        args = ["validate", str(tmp_path / "s.json"), "-f", fmt, "--strict", "--schema", "runai-error"]
        done = subprocess.run([*JOBSCHEMA, *args], capture_output=True, timeout=60, check=False)
        assert (done.returncode, done.stderr) == (1, b""), fmt
        done.stdout.decode("utf-8")  # valid UTF-8: each lone surrogate is written as its escape
        assert b"\\ud800" in done.stdout, fmt


# --- outputs --------------------------------------------------------------------------------------


def test_output_naming_an_input_is_refused_and_the_input_kept(run_cli, tmp_path: Path) -> None:
    capture = tmp_path / "c.json"
    capture.write_bytes(NOT_FOUND.read_bytes())
    before = capture.read_bytes()
    expected = "-o/--output is one of the inputs; choose another file"
    for args in (
        ["validate", str(capture), "-o", str(capture)],
        ["validate", str(tmp_path), "-o", str(capture)],
        ["coverage", str(capture), "-o", str(capture)],
        ["diff", str(capture), str(NOT_FOUND), "-o", str(capture)],
        ["redact", str(capture), "-o", str(capture)],
    ):
        done = run_cli(args, code=2)
        assert expected in done.stderr or "-o/--output is the input" in done.stderr, args
        assert capture.read_bytes() == before


def test_a_mistyped_command_gets_a_suggestion(run_cli) -> None:
    done = run_cli(["valdiate", "x.json"], code=2)
    assert "Error: No such command 'valdiate'. Did you mean 'validate'?" in done.stderr


def test_skip_unknown_counts_other_json_as_skipped(run_cli, tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "web", "version": "1.0.0"}', encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}', encoding="utf-8")
    (tmp_path / "capture.json").write_bytes(NOT_FOUND.read_bytes())
    assert (
        run_cli(["validate", str(tmp_path)], code=1)
        .stdout.splitlines()[-1]
        .startswith("3 payloads: 1 valid, 2 invalid")
    )
    done = run_cli(["validate", "--skip-unknown", str(tmp_path)], code=0)
    assert done.stdout == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 2 skipped\n"
    (tmp_path / "bad.json").write_text('{"code": "x", "requestId": 1}', encoding="utf-8")  # a broken capture
    assert run_cli(["validate", "--skip-unknown", str(tmp_path)], code=1)


# --- signals --------------------------------------------------------------------------------------


def test_ctrl_c_exits_130_without_a_traceback() -> None:
    process = subprocess.Popen(
        [*JOBSCHEMA, "validate", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _wait_until_it_reads_stdin(process)  # (not a fixed sleep: a busy machine imports more slowly)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err.decode() == "interrupted\n"


def _wait_until_it_reads_stdin(process: subprocess.Popen[bytes]) -> None:
    """Until ``process`` has read a byte written to its stdin, and so waits there for more (the bytes
    still in a pipe are FIONREAD of either end); bounded."""
    import fcntl
    import struct
    import termios

    assert process.stdin is not None
    process.stdin.write(b" ")
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        unread = fcntl.ioctl(process.stdin.fileno(), termios.FIONREAD, struct.pack("i", 0))
        if struct.unpack("i", unread)[0] == 0:
            return
        time.sleep(0.01)
    pytest.fail("validate - did not read its stdin")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text(encoding="utf-8") if (task / "children").exists() else ""
        found += [int(child) for child in text.split()]
    return found


#: ``jobschema ARGS`` whose forked workers hold each of their tickets for a minute (the main process
#: checks its own share at once): the workers are at work whenever the test's signal comes, however
#: long the test's own thread waits to send it. (Unheld, this input is checked in about a second, and
#: a test thread descheduled that long would signal a run that had already ended.)
HELD_WORKERS = (
    "import os, runpy, sys, time\n"
    "from jobschema.validate.parallel import fork\n"
    "main, forked = os.getpid(), fork.run_forked\n"
    "def held(work, *args, **kwargs):\n"
    "    def slow(ticket):\n"
    "        if os.getpid() != main:\n"
    "            time.sleep(60)\n"
    "        return work(ticket)\n"
    "    return forked(slow, *args, **kwargs)\n"
    "fork.run_forked = held\n"
    "sys.argv = ['jobschema', *sys.argv[1:]]\n"
    "runpy.run_module('jobschema', run_name='__main__')\n"
)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_sigterm_stops_the_worker_processes_with_the_main_one(tmp_path: Path) -> None:
    detail = (CAPTURES / "aihc-job-detail" / "multi-pod-pytorch.json").read_bytes()
    (tmp_path / "job0000.json").write_bytes(detail)
    for index in range(1, 4000):  # about 40 MB (hard links): worth two processes
        (tmp_path / f"job{index:04}.json").hardlink_to(tmp_path / "job0000.json")
    process = subprocess.Popen(
        [sys.executable, "-c", HELD_WORKERS, "validate", "--jobs", "2", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60  # (an upper bound on starting; a hang fails)
    workers: list[int] = []
    while not workers and time.monotonic() < deadline and process.poll() is None:
        workers = _children(process.pid)  # --jobs 2: the main process and one forked child
        time.sleep(0.01)
    assert workers, "the workers did not start"
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143
    assert b"Traceback" not in err
    deadline = time.monotonic() + 60  # (the workers are reaped as the main process ends: bounded)
    while any(Path(f"/proc/{worker}").exists() for worker in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in _state(w)]


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").split(")")[-1].split()[0]
    except OSError:
        return "gone"


def test_the_validate_hook_passes_a_repository_with_other_json(tmp_path: Path) -> None:
    """What pre-commit runs: the hook's entry on the files its patterns select."""
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8").split("\n- id: ")
    hook = next(block for block in hooks if block.startswith("jobschema-validate\n"))
    field = {
        line.split(": ", 1)[0].strip(): line.split(": ", 1)[1]
        for line in hook.splitlines()[1:]
        if ": " in line and not line.lstrip().startswith("#")
    }
    files = {
        "package.json": '{"name": "web", "version": "1.0.0"}',
        "tsconfig.json": '{\n  // comments: JSONC, not JSON\n  "compilerOptions": {}\n}',
        ".vscode/settings.json": '{"editor.tabSize": 2, /* JSONC */}',
        "captures/not-found.json": NOT_FOUND.read_text(encoding="utf-8"),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    selected = [
        name
        for name in sorted(files)
        if re.search(field["files"], name) and not re.search(field["exclude"], name)
    ]
    assert selected == ["captures/not-found.json", "package.json"]
    entry = field["entry"].split()
    assert entry[:2] == ["jobschema", "validate"]
    done = _run(*entry[1:], *selected, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 1 skipped\n"


@pytest.mark.parametrize(
    "expected", [0, 3, 10_240_000, 20_000_000], ids=["was-empty", "grew", "same", "shrank"]
)
def test_a_file_is_read_whole_whatever_size_fstat_gave(tmp_path: Path, expected: int) -> None:
    from jobschema.inputs.files import _read_all, read_bytes

    data = bytes(range(256)) * 40_000  # 10 MB: more than one chunk past the expected size
    target = tmp_path / "changing.json"
    target.write_bytes(data)
    handle = os.open(target, os.O_RDONLY)
    try:
        assert _read_all(handle, expected) == data
    finally:
        os.close(handle)
    assert read_bytes(str(target)) == data
    assert isinstance(read_bytes(str(tmp_path)), OSError)  # a folder is refused, not read
