"""NDJSON is redacted one line at a time: the same bytes as the whole-text path, lazily (memory stays
that of one line), a bad line named alone and nothing written, line ends and a BOM kept."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobschema.redact.core import Line, Secret, Unreadable, redact_ndjson, redact_text
from jobschema.secrets.policy import mask
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "redact"
SECRET_LINE = json.dumps(
    {"spec": {"environmentVariables": [{"name": "HF_TOKEN", "value": "hunter2-very-secret"}]}}
)
CLEAN_LINE = json.dumps({"spec": {"name": "train"}})
POINTER = "/spec/environmentVariables/0/value"


def _lines(*texts: str, end: str = "\n") -> bytes:
    return "".join(text + end for text in texts).encode("utf-8")


def test_cli_stdout_equals_the_whole_text_redaction(run_cli) -> None:
    source = FIXTURES / "jobs.ndjson"
    result = run_cli(["redact", str(source)], code=0)
    assert result.stdout_bytes == redact_text(source.read_text(encoding="utf-8"), "ndjson").text.encode()


def test_lines_are_redacted_lazily() -> None:
    def feed() -> Iterator[bytes]:
        yield _lines(SECRET_LINE)
        raise AssertionError("the second line was read before the first was handed out")

    first = next(redact_ndjson(feed()))
    assert first.number == 1
    assert first.secrets == (Secret(POINTER, 1),)
    assert mask("hunter2-very-secret").encode() in first.data


def test_clean_and_blank_lines_are_the_same_bytes() -> None:
    data = _lines(CLEAN_LINE, "", "   ", CLEAN_LINE, end="\r\n") + CLEAN_LINE.encode()
    out = list(redact_ndjson(data.splitlines(keepends=True)))
    assert b"".join(line.data for line in out) == data
    assert [line.number for line in out] == [1, 2, 3, 4, 5]
    assert not any(line.secrets or line.problem for line in out)


def test_crlf_and_a_last_line_without_newline_keep_their_ends() -> None:
    data = _lines(SECRET_LINE, end="\r\n") + SECRET_LINE.encode()
    first, last = redact_ndjson(data.splitlines(keepends=True))
    assert first.data.endswith(b'"}]}}\r\n')
    assert last.data.endswith(b'"}]}}')
    assert b"hunter2" not in first.data + last.data


def test_a_bom_on_the_first_line_is_kept() -> None:
    (line,) = redact_ndjson([b"\xef\xbb\xbf" + _lines(SECRET_LINE)])
    assert line.data.startswith(b"\xef\xbb\xbf{")
    assert line.secrets == (Secret(POINTER, 1),)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b'{"a": "\xff"}\n', Unreadable("line is not UTF-8: invalid byte 0xff at column 8", 2)),
        (b'{"a": \x00}\n', Unreadable("line is binary (it contains NUL bytes), not JSON text", 2)),
        (b"{oops\n", Unreadable("invalid JSON: Expecting property name enclosed in double quotes", 2, 2)),
    ],
)
def test_a_bad_line_is_a_problem_of_that_line_only(raw: bytes, problem: Unreadable) -> None:
    first, bad, last = redact_ndjson([_lines(SECRET_LINE), raw, _lines(SECRET_LINE)])
    assert bad == Line(2, raw, problem=problem)
    assert first.secrets == (Secret(POINTER, 1),)
    assert last.secrets == (Secret(POINTER, 3),)


def test_check_names_every_line_and_the_bad_one(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "jobs.ndjson"
    target.write_bytes(_lines(SECRET_LINE) + b'{"a": "\xff"}\n' + _lines(CLEAN_LINE, SECRET_LINE))
    result = run_cli(["redact", "--check", str(target)], code=1)
    assert result.stdout == (
        f"{target}:1: {POINTER}: unmasked secret [redact]\n{target}:4: {POINTER}: unmasked secret [redact]\n"
    )
    assert result.stderr == f"Error: {target}:2: line is not UTF-8: invalid byte 0xff at column 8\n"


@pytest.mark.parametrize("to_file", [True, False])
def test_a_bad_line_writes_nothing(run_cli, tmp_path: Path, to_file: bool) -> None:
    target = tmp_path / "jobs.ndjson"
    target.write_bytes(_lines(SECRET_LINE, CLEAN_LINE, "{oops"))
    output = tmp_path / "out.ndjson"
    args = ["redact", str(target), *(["-o", str(output)] if to_file else [])]
    result = run_cli(args, code=1)
    assert result.stdout == ""
    assert (
        result.stderr
        == f"Error: {target}:3:2: invalid JSON: Expecting property name enclosed in double quotes\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["jobs.ndjson"]


def test_output_file_gets_the_redacted_lines(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "jobs.ndjson"
    target.write_bytes(_lines(SECRET_LINE, CLEAN_LINE))
    output = tmp_path / "out.ndjson"
    run_cli(["redact", str(target), "-o", str(output)], code=0)
    assert output.read_bytes() == redact_text(target.read_text(encoding="utf-8"), "ndjson").text.encode()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["jobs.ndjson", "out.ndjson"]
    assert output.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def test_in_place_streams_and_leaves_no_temporary_file(run_cli, tmp_path: Path) -> None:
    target = tmp_path / "jobs.ndjson"
    target.write_bytes(_lines(SECRET_LINE, CLEAN_LINE, SECRET_LINE))
    target.chmod(0o640)
    result = run_cli(["redact", "--in-place", str(target)], code=0)
    assert result.stderr == f"{target}: masked 2 secrets\n"
    assert b"hunter2" not in target.read_bytes()
    assert target.stat().st_mode & 0o777 == 0o640
    assert [path.name for path in tmp_path.iterdir()] == ["jobs.ndjson"]
    run_cli(["redact", "--check", str(target)], code=0)
