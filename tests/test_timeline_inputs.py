"""``jobschema timeline`` and bad inputs: every input is read; each bad one (missing, unreadable, not
JSON, NaN, 1e400, too deep, not UTF-8, holding no job) is named on stderr in one line, in validate's
words; the good ones are drawn exactly as a run of only them draws them; the run exits 2."""

from __future__ import annotations

import base64
import gzip
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.cli import main
from jobschema.text import visible
from jobschema.timeline.build import TOO_DEEP
from jobschema.timeline.read import NO_JOB
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures"
GOOD = {
    "two-jobs": FIXTURES / "record" / "two-jobs.ndjson",
    "aihc-ndjson": FIXTURES / "timeline" / "aihc-job.ndjson",
    "runai-har": FIXTURES / "timeline" / "runai-workload.har",
    "aihc-json": FIXTURES / "record" / "aihc-planted.json",
    "runai-json": FIXTURES / "record" / "runai-planted.json",
}
EMPTY = ": file is empty"
BINARY = ": file is binary (it contains NUL bytes), not JSON text"
WIDE = ": file is {} text, not UTF-8: save it as UTF-8"
GZIP = ": file is gzip-compressed, not JSON text: decompress it first"
DEVICE = "is a device, not a regular file (pipe it to - to read it as standard input)"
FIFO = "is a FIFO (named pipe), not a regular file (pipe it to - to read it as standard input)"
PROPERTY_NAME = "Expecting property name enclosed in double quotes"
NOT_HAR = ": not a HAR file: no log.entries array"


def _run(args: list[str], stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["timeline", *args], input=stdin, catch_exceptions=False)


def _write(data: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(data)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _loop(path: Path) -> None:
    other = path.with_name(path.name + ".other")
    other.symlink_to(path.name)
    path.symlink_to(other.name)


def _dangling(path: Path) -> None:
    path.symlink_to(path.name + ".gone")


def _nothing(path: Path) -> None:
    """A name that names nothing."""


def _empty_folder(path: Path) -> None:
    path.mkdir()


@dataclass(frozen=True)
class Bad:
    """A kind of bad input: how its file is made, its name's ending, what is said after its name;
    ``missing``: it names nothing to read (said before the inputs are read)."""

    make: Callable[[Path], None]
    suffix: str
    problem: str
    missing: bool = False


BAD: dict[str, Bad] = {
    "empty": Bad(_write(b""), ".json", EMPTY),
    "whitespace": Bad(_write(b" \n\t\n"), ".json", EMPTY),
    "binary": Bad(_write(b"\x00\x01\x02{}"), ".json", BINARY),
    "utf16": Bad(
        _write('{"a": 1}'.encode("utf-16")), ".json", ": file is UTF-16LE text, not UTF-8: save it as UTF-8"
    ),
    "utf16be": Bad(
        _write('{"a": 1}'.encode("utf-16-be")),
        ".json",
        ": file is UTF-16BE text, not UTF-8: save it as UTF-8",
    ),
    "utf32": Bad(
        _write('{"a": 1}'.encode("utf-32")), ".json", ": file is UTF-32LE text, not UTF-8: save it as UTF-8"
    ),
    "gzip": Bad(
        _write(gzip.compress(b'{"a": 1}', mtime=0)),
        ".json.gz",
        ": file is gzip-compressed, not JSON text: decompress it first",
    ),
    "not-utf8": Bad(
        _write(b'{"a": "\xff"}'), ".json", ": file is not UTF-8: invalid byte 0xff at line 1, column 8"
    ),
    "nan": Bad(_write(b'{"a": NaN}'), ".json", ":1:7: invalid JSON: NaN is not a JSON value"),
    "infinity": Bad(
        _write(b'{\n "a": -Infinity}'), ".json", ":2:7: invalid JSON: -Infinity is not a JSON value"
    ),
    "1e400": Bad(
        _write(b'{\n  "a": [1,\n    1e400]\n}'),
        ".json",
        ":3:5: invalid JSON: number 1e400 is too large for a double (it overflows)",
    ),
    "long-integer": Bad(
        _write(b'{"a": ' + b"1" * 5000 + b"}"),
        ".json",
        ":1:7: invalid JSON: integer of 5000 digits is longer than 4300 digits",
    ),
    "deep": Bad(_write(b"[" * 100_000), ".json", ": invalid JSON: nested too deeply to parse"),
    "deep-closed": Bad(
        _write(b"[" * 5000 + b"]" * 5000), ".json", ": invalid JSON: nested too deeply to parse"
    ),
    "truncated": Bad(_write(b'{"a": '), ".json", ":1:7: invalid JSON: Expecting value"),
    "bad-ndjson-line": Bad(_write(b'{"a": 1}\n{"a": \n'), ".ndjson", ":2:7: invalid JSON: Expecting value"),
    "ndjson-nan-line": Bad(
        _write(b'{"a": 1}\n\n{"a": NaN}\n'), ".jsonl", ":3:7: invalid JSON: NaN is not a JSON value"
    ),
    "array": Bad(_write(b"[1, 2]"), ".json", f": {NO_JOB}"),
    "scalar": Bad(_write(b"3"), ".json", f": {NO_JOB}"),
    "null": Bad(_write(b"null"), ".json", f": {NO_JOB}"),
    "string": Bad(_write(b'"x"'), ".json", f": {NO_JOB}"),
    "error-answer": Bad(_write(b'{"code": 404, "message": "m"}'), ".json", f": {NO_JOB}"),
    "ndjson-no-job": Bad(_write(b'{"a": 1}\n{"b": 2}\n'), ".ndjson", f": {NO_JOB}"),
    "har-null-log": Bad(_write(b'{"log": null}'), ".har", NOT_HAR),
    "har-entries-not-list": Bad(_write(b'{"log": {"entries": "x"}}'), ".har", NOT_HAR),
    "har-no-job": Bad(_write(b'{"log": {"entries": [{"request": "x"}]}}'), ".har", f": {NO_JOB}"),
    "har-bad-json": Bad(_write(b'{"log": {"entries": ['), ".har", ":1:22: invalid JSON: Expecting value"),
    "fifo": Bad(_fifo, ".json", f": cannot read file: {FIFO}"),
    "link-loop": Bad(_loop, ".json", ": cannot read file: symbolic link loop"),
    "dangling-link": Bad(_dangling, ".json", ": cannot read file: dangling symbolic link"),
    "missing": Bad(_nothing, ".json", ": no such file or folder", missing=True),
    "empty-folder": Bad(
        _empty_folder, "", ": folder holds no *.json, *.ndjson, *.jsonl or *.har files", missing=True
    ),
}


def _made(folder: Path, index: int, kind: str) -> tuple[str, str | None]:
    """The input ``kind`` (a good fixture's name or a bad kind) as file ``index`` of ``folder``, and
    the line a bad one is told by (None for a good one)."""
    if kind in GOOD:
        path = folder / f"{index:02d}-{GOOD[kind].name}"
        path.write_bytes(GOOD[kind].read_bytes())
        return str(path), None
    bad = BAD[kind]
    path = folder / f"{index:02d}-{kind}{bad.suffix}"
    bad.make(path)
    return str(path), f"Error: {visible(str(path))}{bad.problem}"


def _lines(result: Result) -> list[str]:
    return result.stderr.splitlines()


@pytest.mark.parametrize("kind", sorted(BAD))
def test_each_bad_input_is_one_line_and_the_good_ones_are_drawn(kind: str, tmp_path: Path) -> None:
    first, _ = _made(tmp_path, 0, "two-jobs")
    bad, line = _made(tmp_path, 1, kind)
    last, _ = _made(tmp_path, 2, "runai-har")
    alone = _run([bad])
    assert (alone.exit_code, alone.stdout, _lines(alone)) == (2, "", [line])
    good = _run([first, last])
    assert good.exit_code == 0
    for fmt in ("text", "json", "markdown", "html"):
        mixed, only = _run(["-f", fmt, first, bad, last]), _run(["-f", fmt, first, last])
        assert (mixed.exit_code, _lines(mixed)) == (2, [line])
        assert mixed.stdout == only.stdout


def test_a_device_is_named() -> None:
    result = _run(["/dev/null", str(GOOD["aihc-json"])])
    assert result.exit_code == 2
    assert _lines(result) == [f"Error: /dev/null: cannot read file: {DEVICE}"]
    assert result.stdout == _run([str(GOOD["aihc-json"])]).stdout


def test_a_name_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "nl\nempty.json").write_bytes(b"")
    (tmp_path / "esc\x1b[31m.json").write_bytes(b"3")
    result = _run([str(tmp_path / "nl\nempty.json"), str(tmp_path / "esc\x1b[31m.json")])
    assert (result.exit_code, _lines(result)) == (
        2,
        [
            f"Error: {tmp_path}/nl\\nempty.json: file is empty",
            f"Error: {tmp_path}/esc\\x1b[31m.json: {NO_JOB}",
        ],
    )


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", EMPTY),
        (b"[" * 100_000, ": invalid JSON: nested too deeply to parse"),
        (b'{"a": NaN}', ":1:7: invalid JSON: NaN is not a JSON value"),
        (b'{"a": 1}\n{"a": NaN}\n', ":2:7: invalid JSON: NaN is not a JSON value"),
        (b'{"a": "\xff"}', ": file is not UTF-8: invalid byte 0xff at line 1, column 8"),
        (b"null", f": {NO_JOB}"),
    ],
)
def test_bad_standard_input_is_named_stdin(data: bytes, problem: str) -> None:
    result = _run(["-", str(GOOD["runai-json"])], stdin=data)
    assert (result.exit_code, _lines(result)) == (2, [f"Error: <stdin>{problem}"])
    assert result.stdout == _run([str(GOOD["runai-json"])]).stdout


def test_good_standard_input_is_drawn() -> None:
    for good in GOOD.values():
        piped, named = _run(["-"], stdin=good.read_bytes()), _run([str(good)])
        assert (piped.exit_code, piped.stderr) == (0, "")
        assert piped.stdout == named.stdout


def _answer(phase: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((GOOD["runai-json"]).read_text(encoding="utf-8"))
    return {**value, "actualPhase": phase}


def test_the_good_lines_of_an_ndjson_file_with_bad_ones_are_drawn(tmp_path: Path) -> None:
    lines = [json.dumps(_answer("Pending")), '{"phase": NaN}', "", json.dumps(_answer("Running")), "{"]
    (tmp_path / "mixed.ndjson").write_text("\n".join(lines) + "\n")
    (tmp_path / "clean.ndjson").write_text("\n".join([lines[0], lines[3]]) + "\n")
    mixed = _run([str(tmp_path / "mixed.ndjson")])
    assert (mixed.exit_code, _lines(mixed)) == (
        2,
        [
            f"Error: {tmp_path}/mixed.ndjson:2:11: invalid JSON: NaN is not a JSON value",
            f"Error: {tmp_path}/mixed.ndjson:5:2: invalid JSON: {PROPERTY_NAME}",
        ],
    )
    assert mixed.stdout == _run([str(tmp_path / "clean.ndjson")]).stdout
    assert "; 2 answers" in mixed.stdout


def _entry(url: str, status: int, content: dict[str, Any]) -> dict[str, Any]:
    return {
        "startedDateTime": "2026-11-30T10:00:00.000Z",
        "request": {"method": "GET", "url": url},
        "response": {"status": status, "content": content},
    }


def test_a_har_entry_whose_body_cannot_be_read_is_named_and_drawn_as_unknown(tmp_path: Path) -> None:
    job = _answer("Running")
    url = f"https://runai.example.com/api/v1/workloads/distributed/{job['workloadId']}"
    encoded = base64.b64encode(json.dumps(job).encode()).decode()
    entries = [
        _entry(url, 200, {"text": encoded, "encoding": "base64"}),
        _entry(url, 200, {"text": ""}),
        _entry(url, 200, {"text": '{"phase": NaN}'}),
        _entry(url, 200, {"text": "!!", "encoding": "base64"}),
        _entry(url, 200, {"text": "{}", "_truncated": True}),
        _entry(url, 404, {"text": "not json"}),  # an error answer's body is not read
        _entry("https://cdn.example.com/app.js", 200, {"text": "{"}),  # another endpoint: passed over
    ]
    (tmp_path / "capture.har").write_text(json.dumps({"log": {"entries": entries}}))
    result = _run(["-f", "json", str(tmp_path / "capture.har")])
    name = tmp_path / "capture.har"
    assert (result.exit_code, _lines(result)) == (
        2,
        [
            f"Error: {name}#1: response body is empty (HAR content.text missing)",
            f"Error: {name}#2: invalid JSON: NaN is not a JSON value",
            f"Error: {name}#3: response body is not valid base64",
            f"Error: {name}#4: response body not recorded: it was truncated (HAR content._truncated)",
        ],
    )
    [drawn] = json.loads(result.stdout)["jobs"]
    assert [s["phase"] for s in drawn["segments"]] == ["Running", "HTTP 200", "HTTP 404"]
    assert drawn["answers"] == 6


def _nested(depth: int, leaf: int) -> dict[str, Any]:
    nested: dict[str, Any] = {"z": leaf}
    for _ in range(depth):
        nested = {"a": nested}
    return nested


def test_a_job_nested_too_deeply_to_compare_is_drawn_and_says_so(tmp_path: Path) -> None:
    first, second = _answer("Pending"), _answer("Running")
    first["spec"] = {**first["spec"], "deep": _nested(800, 1)}
    second["spec"] = {**second["spec"], "deep": _nested(800, 2)}
    (tmp_path / "deep.ndjson").write_text(f"{json.dumps(first)}\n{json.dumps(second)}\n")
    result = _run(["-f", "json", str(tmp_path / "deep.ndjson")])
    assert (result.exit_code, result.stderr) == (0, "")
    [drawn] = json.loads(result.stdout)["jobs"]
    assert [c["text"] for c in drawn["changes"]] == ["first answer: Pending", TOO_DEEP]


def test_a_folder_is_walked_and_what_it_skips_is_noted(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(GOOD["aihc-json"].read_bytes())
    (tmp_path / "b.json").write_bytes(b"{")
    os.mkfifo(tmp_path / "c.json")
    result = _run([str(tmp_path)])
    assert (result.exit_code, _lines(result)) == (
        2,
        [
            f"note: {tmp_path}/c.json: not a regular file, skipped",
            f"Error: {tmp_path}/b.json:1:2: invalid JSON: {PROPERTY_NAME}",
        ],
    )
    assert result.stdout == _run([str(GOOD["aihc-json"])]).stdout


def test_help_says_a_bad_input_exits_2_and_the_others_are_drawn() -> None:
    text = " ".join(_run(["--help"]).stdout.split())
    said = "2 an input was missing, could not be read, held invalid JSON or no job answer (the others'"
    assert f"{said} timelines are written)" in text


@settings(max_examples=60, derandomize=True)
@given(st.lists(st.sampled_from(sorted(GOOD) + sorted(BAD)), min_size=1, max_size=8))
def test_any_mix_names_every_bad_input_once_and_draws_every_good_one(kinds: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        made = [_made(Path(folder), index, kind) for index, kind in enumerate(kinds)]
        names = [name for name, _ in made]
        told = [line for _, line in made if line is not None]
        good = [name for name, line in made if line is None]
        result = _run(["-f", "json", *names])
        lines = _lines(result)
        assert Counter(lines) == Counter(told)  # every bad input once, nothing else
        missing = [
            line for (_, line), kind in zip(made, kinds, strict=True) if kind in BAD and BAD[kind].missing
        ]
        assert lines == missing + [line for line in told if line not in missing]  # then in input order
        assert result.exit_code == (2 if told else 0)
        if good:
            only = _run(["-f", "json", *good])
            assert only.exit_code == 0
            assert result.stdout == only.stdout
        else:
            assert result.stdout == ""
