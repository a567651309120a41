"""Side files (schema files, serve's config, credentials, a changes baseline) are read by one reader
(jobschema.inputs.side) as captures are: every kind of bad file, given to every option that takes
one, is one stderr line naming the file and the problem, exit 2, at once (a FIFO is never a wait)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO

EXAMPLES = REPO / "schemas" / "examples"
CAPTURE = str(EXAMPLES / "runai-distributed-workload" / "completed-job.json")


@dataclass(frozen=True)
class Option:
    """A command line that takes a side file: ``args`` with ``{}`` where the file goes; ``language``
    of the file (json, toml, text: a baseline); ``suffix`` of its name."""

    name: str
    args: tuple[str, ...]
    language: str
    suffix: str

    def command(self, path: Path) -> list[str]:
        return [str(path) if arg == "{}" else arg for arg in self.args]


RECORD = (
    "record",
    "runai",
    "--url",
    "http://127.0.0.1:9",
    "--workload",
    "w",
    "--count",
    "1",
    "--retries",
    "0",
)
OPTIONS = [
    Option("validate -s", ("validate", "-s", "{}", CAPTURE), "json", ".json"),
    Option("coverage -s", ("coverage", "-s", "{}", CAPTURE), "json", ".json"),
    Option("diff -s", ("diff", CAPTURE, CAPTURE, "-s", "{}"), "json", ".json"),
    Option("changes OLD", ("changes", "{}", "runai@2.24", "--no-witnesses"), "json", ".json"),
    Option(
        "changes --baseline",
        ("changes", "runai@2.23", "runai@2.24", "--no-witnesses", "--baseline", "{}"),
        "text",
        ".txt",
    ),
    Option("serve --config json", ("serve", "--config", "{}"), "json", ".json"),
    Option("serve --config toml", ("serve", "--config", "{}"), "toml", ".toml"),
    Option("serve --credentials", ("serve", "--credentials", "{}"), "toml", ".toml"),
    Option(
        "record --credentials",
        (*RECORD, "--credentials", "{}"),
        "toml",
        ".toml",
    ),
]
#: Options click itself refuses a folder for (``dir_okay=False``), in its words.
CLICK_REFUSES_FOLDERS = {"changes --baseline", "serve --config json", "serve --config toml"}
CLICK_REFUSES_FOLDERS |= {"serve --credentials", "record --credentials"}

DEEP = 100_000

#: kind -> language -> (content, what the error says; None: only that it is one line naming the file)
CONTENTS: dict[str, dict[str, tuple[bytes, str | None]]] = {
    "nan": {
        "json": (b'{"a": NaN}', "NaN is not a JSON value"),
        "toml": (b"[runai]\nclient_id = nan\n", None),  # (TOML has nan: the key or its type is wrong)
        "text": (b"NaN\n", "not a change fingerprint"),
    },
    "deep": {
        "json": (b"[" * DEEP + b"]" * DEEP, "nested too deeply to parse"),
        "toml": (b"a = " + b"[" * DEEP + b"]" * DEEP + b"\n", "not valid TOML: nested too deeply to parse"),
        "text": (b"[" * DEEP + b"]" * DEEP, "not a change fingerprint"),
    },
    "long-integer": {
        "json": (b'{"a": ' + b"9" * 5000 + b"}", "integer of 5000 digits is longer than 4300 digits"),
        "toml": (b"a = " + b"9" * 5000 + b"\n", "integer of 5000 digits is longer than 4300 digits"),
        "text": (b"9" * 5000 + b"\n", "not a change fingerprint"),
    },
    "1e400": {
        "json": (b'{"a": 1e400}', "number 1e400 is too large for a double (it overflows)"),
        "toml": (b"[runai]\nclient_id = 1e400\n", None),  # (TOML reads inf: the key or its type is wrong)
        "text": (b"1e400\n", "not a change fingerprint"),
    },
    "duplicate-key": {
        "json": (b'{"a": 1, "a": 2}', 'duplicate key "a"'),
        "toml": (b'[runai]\nclient_id = "a"\nclient_id = "b"\n', "not valid TOML"),
        "text": (b"{a}\n", "not a change fingerprint"),
    },
    "not-parsable": {
        "json": (b'{"a": ', "not valid JSON"),
        "toml": (b"[runai\n", "not valid TOML"),
        "text": (b"not a fingerprint\n", "not a change fingerprint"),
    },
    "not-utf8": dict.fromkeys(("json", "toml", "text"), (b'{"a": "\xff"}', "file is not UTF-8")),
    "empty": {"json": (b"", "file is empty")},  # (an empty TOML document or baseline is valid)
}


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "is a FIFO (named pipe), not a regular file"


def _folder(path: Path) -> str:
    path.mkdir()
    return "is a folder, not a file"


def _device(path: Path) -> str:
    path.symlink_to(os.devnull)
    return "is a device, not a regular file"


def _loop(path: Path) -> str:
    other = path.with_name("other" + path.suffix)
    path.symlink_to(other)
    other.symlink_to(path)
    return "symbolic link loop"


def _dangling(path: Path) -> str:
    path.symlink_to(path.with_name("nowhere" + path.suffix))
    return "dangling symbolic link"


#: kind -> how to make it at a path, and what the error says.
MADE: dict[str, Callable[[Path], str]] = {
    "fifo": _fifo,
    "folder": _folder,
    "device": _device,
    "symlink-loop": _loop,
    "dangling-symlink": _dangling,
}
KINDS = [*MADE, *CONTENTS]


def _make(kind: str, option: Option, folder: Path) -> tuple[Path, str | None]:
    """The bad side file of ``kind`` for ``option``, and what its error must say."""
    path = folder / f"side{option.suffix}"
    if kind in MADE:
        expected: str | None = MADE[kind](path)
        if kind == "folder" and option.name in CLICK_REFUSES_FOLDERS:
            expected = "is a directory"
        return path, expected
    content, expected = CONTENTS[kind][option.language]
    path.write_bytes(content)
    return path, expected


@pytest.fixture(autouse=True)
def _never_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    """A serve whose side file were taken would run for ever in-process: it fails the test instead."""
    import jobschema.serve

    def refuse(options: object) -> int:
        raise AssertionError("the server started: the side file was accepted")

    monkeypatch.setattr(jobschema.serve, "run_foreground", refuse)
    monkeypatch.setenv("JOBSCHEMA_MASK_KEY", "k")
    for name in ("RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"):
        monkeypatch.setenv(name, "x")


def _one_line(stderr: str, path: Path, expected: str | None) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("Error: "), stderr
    assert path.name in lines[0], stderr
    assert "internal error" not in lines[0] and "Traceback" not in stderr
    if expected is not None:
        assert expected in lines[0], stderr


#: (kind, option): every bad kind for every option whose language it is bad in (a FIFO: below)
CASES = [
    (kind, option)
    for kind in KINDS
    if kind != "fifo"
    for option in OPTIONS
    if kind in MADE or option.language in CONTENTS[kind]
]


@pytest.mark.parametrize(("kind", "option"), CASES, ids=[f"{kind}-{option.name}" for kind, option in CASES])
def test_a_bad_side_file_is_one_line_exit_2(run_cli, tmp_path: Path, kind: str, option: Option) -> None:
    path, expected = _make(kind, option, tmp_path)
    result = run_cli(option.command(path), code=2)
    _one_line(result.stderr, path, expected)


@pytest.mark.parametrize("option", OPTIONS, ids=[option.name for option in OPTIONS])
def test_a_fifo_side_file_is_an_error_never_a_wait(tmp_path: Path, option: Option) -> None:
    """In a process of its own with a time limit: a FIFO with no writer must not block the reader."""
    path, expected = _make("fifo", option, tmp_path)
    env = {**os.environ, "JOBSCHEMA_MASK_KEY": "k", "RUNAI_CLIENT_ID": "x", "RUNAI_CLIENT_SECRET": "x"}
    result = subprocess.run(
        [sys.executable, "-m", "jobschema", *option.command(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    _one_line(result.stderr, path, expected)


def test_a_schema_path_that_names_nothing_is_still_no_such_schema(run_cli, tmp_path: Path) -> None:
    result = run_cli(["validate", "-s", str(tmp_path / "nope.json"), CAPTURE], code=2)
    assert result.stderr.startswith(f"Error: {tmp_path / 'nope.json'}: no such schema (bundled schemas: ")


@pytest.mark.parametrize(
    "path",
    ["/dev/null", "link"],
    ids=["device", "link-to-device"],
)
def test_a_changes_side_names_what_the_file_is(run_cli, tmp_path: Path, path: str) -> None:
    if path == "link":
        (tmp_path / "link").symlink_to(os.devnull)
        path = str(tmp_path / "link")
    result = run_cli(["changes", path, "runai@2.24", "--no-witnesses"], code=2)
    assert result.stderr == f"Error: {path}: cannot read the schema: is a device, not a regular file\n"


def test_a_deep_schema_in_diff_is_blamed_on_the_schema(run_cli, tmp_path: Path) -> None:
    schema = tmp_path / "deep.json"
    schema.write_bytes(b"[" * DEEP + b"]" * DEEP)
    result = run_cli(["diff", CAPTURE, CAPTURE, "-s", str(schema)], code=2)
    assert result.stderr == f"Error: {schema}: schema is not valid JSON: nested too deeply to parse\n"


def test_a_schema_file_that_parses_but_is_too_deep_to_check_is_one_line(run_cli, tmp_path: Path) -> None:
    text = '{"type": "object"}'
    for _ in range(300):
        text = '{"properties": {"a": ' + text + "}}"
    schema = tmp_path / "deep.schema.json"
    schema.write_text(text, encoding="utf-8")
    result = run_cli(["changes", str(schema), "runai@2.24", "--no-witnesses"], code=2)
    assert result.stderr == f"Error: {schema}: schema is nested too deeply to check\n"


def test_a_good_schema_file_through_a_link_still_loads(run_cli, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(REPO / "schemas" / "runai-distributed-workload.schema.json")
    run_cli(["validate", "-s", str(link), CAPTURE], code=0)


def test_credentials_errors_never_quote_the_file(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "creds.toml"
    path.write_bytes(b'[runai]\nclient_secret = "s3cr3t\xff"\n')
    result = run_cli(["serve", "--credentials", str(path)], code=2)
    assert result.stderr == f"Error: {path}: cannot read the credentials file: file is not UTF-8\n"
    path.write_bytes(b"[runai]\nclient_secret = " + b"7" * 5000 + b"\n")
    result = run_cli(["serve", "--credentials", str(path)], code=2)
    assert result.stderr == (
        f"Error: {path}: not valid TOML: integer of 5000 digits is longer than 4300 digits\n"
    )


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "0", "-1"])
@pytest.mark.parametrize("option", ["--idle-timeout", "--request-timeout"])
def test_a_timeout_must_be_finite_and_positive(run_cli, option: str, value: str) -> None:
    result = run_cli(["serve", option, value], code=2)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: Invalid value for '{option}': "), result.stderr
    out_of_range = value in ("-inf", "0", "-1")
    problem = "is not in the range x>0." if out_of_range else "is not a finite number of seconds"
    assert lines[0].endswith(problem), result.stderr


def test_an_empty_toml_file_or_baseline_is_a_valid_empty_document(tmp_path: Path) -> None:
    """TOML's empty document has no tables (the config's defaults, no credentials), and an empty
    baseline accepts no change: neither is an error, as an empty JSON file is."""
    from jobschema.changes.run import read_baseline
    from jobschema.record.credentials import read_file
    from jobschema.serve.config import read_config

    for content in (b"", b"\n  \n", b"\xef\xbb\xbf"):
        path = tmp_path / "empty.toml"
        path.write_bytes(content)
        assert read_config(path) == {}
        assert read_file(path) == {}
        assert read_baseline(path) == frozenset()


@pytest.mark.parametrize("option", OPTIONS, ids=[option.name for option in OPTIONS])
def test_a_side_file_past_its_limit_is_refused_before_it_is_read(
    run_cli, tmp_path: Path, option: Option
) -> None:
    """A sparse file of 3 GiB: refused by its size (credentials past 1 MiB, others past 256 MiB) in
    one line, never read into memory."""
    from jobschema.inputs.side import SECRET_LIMIT, SIDE_LIMIT

    path = tmp_path / f"huge{option.suffix}"
    with path.open("wb") as handle:
        handle.truncate(3 << 30)
    limit = SECRET_LIMIT if "credentials" in option.name else SIDE_LIMIT
    result = run_cli(option.command(path), code=2)
    _one_line(result.stderr, path, f"larger than {limit >> 20} MiB")
