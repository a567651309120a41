"""Inside a folder, what cannot be read as a payload (a link loop of files or of folders, a link to
itself, a dangling link, a FIFO, a folder or link the user may not enter) is skipped with a note or
reported as that input's finding; it never stops the run nor the other inputs, whichever runner
checks the files (one process, forked children) and whichever command walks the folder (issue 23).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import CAPTURES

NOT_FOUND = (CAPTURES / "runai-error" / "not-found.json").read_bytes()
BAD = '{"code": 404, "message": 1}'
BAD_FINDING = "{folder}/sub/bad.json:1:26: /message: expected string, got integer 1 [type]"
#: The notes on the links and the FIFO :func:`_folder` makes, sorted.
NOTES = [
    "note: {folder}/a.json: symbolic link loop, skipped",
    "note: {folder}/b.json: symbolic link loop, skipped",
    "note: {folder}/gone.json: dangling symbolic link, skipped",
    "note: {folder}/pipe.json: not a regular file, skipped",
    "note: {folder}/self.ndjson: symbolic link loop, skipped",
    "note: {folder}/sub/back: link to a folder walked already, skipped",
    "note: {folder}/x: symbolic link loop, skipped",
    "note: {folder}/y: symbolic link loop, skipped",
]


def _folder(root: Path, good: int) -> Path:
    """A folder of ``good`` valid payload files (and an NDJSON file of two when there are several),
    one invalid payload, and every kind of entry that cannot be read."""
    folder = root / "caps"
    (folder / "sub").mkdir(parents=True)
    for index in range(good):
        (folder / f"ok{index}.json").write_bytes(NOT_FOUND)
    if good > 1:
        line = NOT_FOUND.decode("utf-8").replace("\n", " ").encode("utf-8")
        (folder / "lines.ndjson").write_bytes(line + b"\n" + line + b"\n")
    (folder / "sub" / "bad.json").write_text(BAD, encoding="utf-8")
    (folder / "a.json").symlink_to("b.json")  # a loop of files
    (folder / "b.json").symlink_to("a.json")
    (folder / "self.ndjson").symlink_to("self.ndjson")  # a link to itself
    (folder / "x").symlink_to("y")  # a loop of links that may be meant as folders
    (folder / "y").symlink_to("x")
    (folder / "sub" / "back").symlink_to(folder, target_is_directory=True)  # a loop of folders
    (folder / "gone.json").symlink_to(root / "nowhere.json")  # dangling
    os.mkfifo(folder / "pipe.json")
    return folder


@pytest.mark.parametrize("jobs", [None, "1", "2"], ids=["default-jobs", "jobs-1", "jobs-2"])
@pytest.mark.parametrize("good", [0, 6], ids=["one-file", "many-files"])
def test_a_folder_with_link_loops_checks_every_other_file(
    run_cli, tmp_path: Path, two_jobs: list[int], jobs: str | None, good: int
) -> None:
    folder = _folder(tmp_path, good)
    args = ["validate", str(folder), *(["--jobs", jobs] if jobs else [])]
    done = run_cli(args, code=1)
    payloads = good + 2 * (good > 1) + 1
    assert done.stdout.splitlines() == [
        BAD_FINDING.format(folder=folder),
        f"{payloads} payloads: {payloads - 1} valid, 1 invalid; 1 error, 0 warnings; 0 skipped"
        if payloads > 1
        else "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]
    assert done.stderr.splitlines() == [note.format(folder=folder) for note in NOTES]
    assert two_jobs == ([2] if good and jobs != "1" else [])  # the forked runner ran where it pays


def test_a_folder_of_unreadable_links_only_is_a_usage_error_naming_them(run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "caps"
    folder.mkdir()
    (folder / "a.json").symlink_to("b.json")
    (folder / "b.json").symlink_to("a.json")
    (folder / "gone.json").symlink_to("nowhere.json")
    done = run_cli(["validate", str(folder)], code=2)
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: {folder}: folder holds no *.json, *.ndjson, *.jsonl or *.har files that can be read "
        f"(skipped: {folder}/a.json: symbolic link loop; {folder}/b.json: symbolic link loop; "
        f"{folder}/gone.json: dangling symbolic link)\n"
    )
    (folder / "more.json").symlink_to("more.json")
    os.mkfifo(folder / "pipe.json")
    done = run_cli(["validate", str(folder)], code=2)
    assert done.stderr.endswith(f"{folder}/gone.json: dangling symbolic link; and 2 more)\n")


def test_a_link_loop_named_directly_is_that_input_s_finding(run_cli, tmp_path: Path) -> None:
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    (tmp_path / "ok.json").write_bytes(NOT_FOUND)
    done = run_cli(["validate", str(tmp_path / "a.json"), str(tmp_path / "ok.json")], code=1)
    assert done.stdout.splitlines() == [
        f"{tmp_path}/a.json: (root): cannot read file: symbolic link loop [read-error]",
        "2 payloads: 1 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]
    assert done.stderr == ""


def test_a_glob_skips_what_it_matches_that_cannot_be_read_with_a_note(run_cli, tmp_path: Path) -> None:
    folder = _folder(tmp_path, 1)
    done = run_cli(["validate", f"{folder}/*.json"], code=0)
    assert done.stdout == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n"
    assert done.stderr.splitlines() == [
        note.format(folder=folder) for note in NOTES if ".json:" in note and "/sub/" not in note
    ]


def test_coverage_walks_such_a_folder_with_the_same_notes(run_cli, tmp_path: Path) -> None:
    folder = _folder(tmp_path, 6)
    done = run_cli(["coverage", str(folder), "-f", "json"], code=0)
    assert done.stderr.splitlines() == [note.format(folder=folder) for note in NOTES]
    report = json.loads(done.stdout)
    assert [(part["schema"], part["payloads"]) for part in report["schemas"]] == [("runai-error", 9)]


def test_redact_check_walks_such_a_folder_with_the_same_notes(run_cli, tmp_path: Path) -> None:
    folder = _folder(tmp_path, 6)
    done = run_cli(["redact", "--check", str(folder)], code=0)
    assert (done.stdout, done.stderr.splitlines()) == ("", [note.format(folder=folder) for note in NOTES])


def test_redact_in_place_rewrites_the_files_beside_the_loops(run_cli, tmp_path: Path) -> None:
    folder = _folder(tmp_path, 1)
    (folder / "ok0.json").write_text('{"code": 401, "message": "x", "password": "hunter2"}', "utf-8")
    done = run_cli(["redact", "--in-place", str(folder)], code=0)
    assert done.stderr.splitlines() == [
        *(note.format(folder=folder) for note in NOTES),
        f"{folder}/ok0.json: masked 1 secret",
    ]
    assert "hunter2" not in (folder / "ok0.json").read_text(encoding="utf-8")


# --- permissions (EACCES) ------------------------------------------------------------------------


def _without_privileges() -> list[str]:
    """The prefix that runs a command without root's bypass of file permissions (root: setpriv
    dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH); skips the test where that cannot be done."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv or "setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    if setpriv is None or subprocess.run([*prefix, "true"], check=False).returncode != 0:
        pytest.skip("running as root, and permissions cannot be enforced here (no setpriv)")
    return prefix


def _run_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    command = [*_without_privileges(), sys.executable, "-m", "jobschema", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_folders_and_links_one_may_not_enter_never_stop_the_run(tmp_path: Path, jobs: str) -> None:
    folder = tmp_path / "caps"
    (folder / "locked").mkdir(parents=True)
    (folder / "locked" / "inner.json").write_bytes(NOT_FOUND)
    (folder / "listed" / "deeper").mkdir(parents=True)  # readable, not searchable: names, no entries
    (folder / "listed" / "in.json").write_bytes(NOT_FOUND)
    (folder / "through.json").symlink_to("locked/inner.json")
    (folder / "closed.json").write_bytes(NOT_FOUND)
    for index in range(4):
        (folder / f"ok{index}.json").write_bytes(NOT_FOUND)
    (folder / "closed.json").chmod(0)
    (folder / "locked").chmod(0)
    (folder / "listed").chmod(0o444)
    try:
        done = _run_unprivileged("validate", "--jobs", jobs, str(folder))
    finally:
        (folder / "locked").chmod(0o755)
        (folder / "listed").chmod(0o755)
    denied = "cannot read file: Permission denied [read-error]"
    assert (done.returncode, done.stdout.splitlines(), done.stderr.splitlines()) == (
        1,
        [
            f"{folder}/closed.json: (root): {denied}",
            f"{folder}/listed/in.json: (root): {denied}",
            f"{folder}/through.json: (root): {denied}",
            "7 payloads: 4 valid, 3 invalid; 3 errors, 0 warnings; 0 skipped",
        ],
        [
            f"note: {folder}/listed/deeper: cannot read folder: Permission denied, skipped",
            f"note: {folder}/locked: cannot read folder: Permission denied, skipped",
        ],
    )


# --- named directly --------------------------------------------------------------------------------


def test_redact_with_output_beside_a_link_loop_names_the_input_it_cannot_read(run_cli, tmp_path) -> None:
    (tmp_path / "a.json").symlink_to("b.json")
    (tmp_path / "b.json").symlink_to("a.json")
    done = run_cli(["redact", "-o", str(tmp_path / "out.json"), str(tmp_path / "a.json")], code=1)
    assert (done.stdout, done.stderr) == (
        "",
        f"Error: {tmp_path}/a.json: cannot read file: symbolic link loop\n",
    )
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(("name", "flags"), [("pipe.json", []), ("pipe.ndjson", ["--check"])])
def test_redact_of_a_fifo_named_directly_is_an_error_not_a_wait(tmp_path: Path, name: str, flags) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "jobschema", "redact", *flags, str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,  # (a wait on the FIFO ends here, as a failure)
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        f"Error: {fifo}: cannot read file: is a FIFO (named pipe), not a regular file "
        "(pipe it to - to read it as standard input)\n",
    )


def test_output_beside_an_input_one_may_not_look_at_is_no_crash(tmp_path: Path) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.json").write_bytes(NOT_FOUND)
    (tmp_path / "out.json").write_text("old", encoding="utf-8")
    (tmp_path / "locked").chmod(0)
    inputs = [str(tmp_path / "locked" / "x.json")]
    try:
        done = _run_unprivileged("validate", "-o", str(tmp_path / "out.json"), *inputs)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")
    assert (tmp_path / "out.json").read_text(encoding="utf-8").splitlines() == [
        f"{tmp_path}/locked/x.json: (root): cannot read file: Permission denied [read-error]",
        "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]


def test_one_file_named_several_ways_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jobschema.inputs.files import expand

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    names = ["d/a.json", "./d/a.json", str(tmp_path / "d" / ".." / "d" / "a.json"), "d", "d/*.json", "-", "-"]
    assert expand(names).files == ["d/a.json", "-"]
