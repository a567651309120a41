"""Round 7 of validate's review: inputs no earlier review listed, each a class of its own.

- a HAR entry whose URL does not parse (``http://[…``) ended the whole run as an internal error;
- usage errors were printed by click as they came: a line break in an option value split the
  ``Error:`` line (the second line could be a CI runner's command) and a credential in a value was
  echoed as it is;
- ``-`` with standard input closed was an internal error in every command;
- with a key repeated, findings were placed at the key's first value, where the parser reads the last;
- an NDJSON file in UTF-16/UTF-32 or compressed was one ``binary`` finding per line, where a JSON
  file or standard input of the same bytes is one line naming the encoding;
- HAR entries without an answer to check (no answer at all, status 0, as ``jobschema record``
  writes a failed attempt; a redirect; ``304 Not Modified``) were checked against the 2xx schema
  ("response body is empty"), and a status of another type was taken for success;
- HAR base64 bodies wrapped in lines, URL-safe or unpadded (which redact reads) were "not valid
  base64" to validate and timeline;
- a library value JSON cannot hold (a key that is no string, NaN, a set, a cycle) was a TypeError
  from deep inside, or "expected number, got number NaN";
- ``-o /dev/stdout`` with stdout redirected to a file replaced that file (what was written to it
  before, and after, was lost);
- a path holding a NUL byte was a bare ``ValueError``, an empty one "``: no such file or folder``";
- a second byte order mark was "Unexpected UTF-8 BOM (decode using utf-8-sig)", Python's advice.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import math
import os
import re
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.errors import InputNotFound
from jobschema.inputs.har import har_payloads
from jobschema.inputs.locate import locate
from jobschema.inputs.parse import not_json, parse_bytes
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.split import split_ndjson
from jobschema.pointer import from_path as to_pointer
from jobschema.pointer import value_at
from jobschema.validate import validate_paths, validate_payload
from jobschema.validate.payloads import validate_payloads
from tests.support import CAPTURES

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SECRET_PART = TOKEN[4:24]  # (any piece of it shown is a leak)
OK_BODY = '{"code": 404, "message": "Resource id not found."}'
WORKLOAD_URL = "https://runai.example.com/api/v1/workloads/distributed/w-1"
JOBSCHEMA = [sys.executable, "-m", "jobschema"]


def _ok(tmp_path: Path) -> Path:
    path = tmp_path / "ok.json"
    path.write_text(OK_BODY, encoding="utf-8")
    return path


def _har(entries: list[Any]) -> str:
    return json.dumps({"log": {"version": "1.2", "entries": entries}}, indent=2)


def _entry(
    url: str = WORKLOAD_URL, status: Any = 404, content: Any = None, method: str = "GET"
) -> dict[str, Any]:
    response: dict[str, Any] = {
        "status": status,
        "content": {"text": OK_BODY} if content is None else content,
    }
    return {"request": {"method": method, "url": url}, "response": response}


def _text_place(document: str, entry: int) -> tuple[int, int]:
    """Line and column of the ``"text"`` value of HAR entry ``entry`` in ``document`` (``_har``'s)."""
    lines = document.split("\n")
    found = [(n, text.index('"text": ') + 9) for n, text in enumerate(lines, 1) if '"text": ' in text]
    return found[entry]


def _one_line(text: str) -> None:
    """``text`` (stderr) is one ``Error:`` line: no line break, no control character, no credential."""
    assert text.endswith("\n") and text.count("\n") == 1, text
    assert text.startswith("Error: "), text
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", text), text
    assert SECRET_PART not in text, text


# --- a HAR entry whose URL does not parse --------------------------------------------------------

#: URLs urllib refuses to split (ValueError), each naming a job or cluster endpoint.
BROKEN_URLS = {
    "unclosed-bracket": "http://[/api/v1/workloads/distributed/w-1",
    "unclosed-ipv6": "https://[::1/api/v1/aijobs/pytorchjob-1",
    "bracketed-name": "https://[runai.example.com]/api/v1/workloads/distributed/w-1",
    "closing-bracket": "http://]runai/api/v1/workloads/distributed/w-1",
    "nfkc-netloc": "http://runai\uff0fexample.com/api/v1/workloads/distributed/w-1",
    "describe-job": "https://[aihc/?action=DescribeJob",
    "cluster": "https://[::1/api/v1/clusters/c-1",
    "token": f"https://[{TOKEN}]/api/v1/workloads/distributed/w-1",
}


@pytest.mark.parametrize("url", BROKEN_URLS.values(), ids=BROKEN_URLS.keys())
def test_a_har_entry_whose_url_does_not_parse_is_skipped_and_the_rest_checked(
    run_cli, tmp_path: Path, url: str
) -> None:
    """(It was "internal error: ValueError: Invalid IPv6 URL", exit 2, and nothing was checked.)"""
    har = tmp_path / "a.har"
    har.write_text(_har([_entry(url), _entry()]), encoding="utf-8")
    ok = _ok(tmp_path)
    result = run_cli(["validate", "--color", "never", str(har), str(ok)], code=0)
    assert result.stdout == "2 payloads: 2 valid, 0 invalid; 0 errors, 0 warnings; 1 skipped\n"
    assert result.stderr == ""
    for args, code in (
        (["redact", "--check", str(har)], 1 if TOKEN in url else 0),
        (["coverage", str(har)], 0),
        (["versions", str(har)], 0),
        (["diff", "--history", str(har)], None),
        (["timeline", str(har)], None),
    ):
        done = run_cli(args, code=code)
        assert "internal error" not in done.stdout + done.stderr, args
        assert SECRET_PART not in done.stdout + done.stderr, args


@settings(max_examples=150)
@given(
    head=st.sampled_from(["http://", "https://", "", "//"]),
    host=st.text(alphabet=st.sampled_from("[]:@/.%a1\uff0f\u2100\uff03 "), max_size=8),
    path=st.sampled_from(["/api/v1/workloads/distributed/w", "/api/v1/aijobs/j", "/api/v1/clusters/c", "/"]),
    query=st.sampled_from(["", "?action=DescribeJob", "?token=x"]),
    status=st.sampled_from([200, 404, 0]),
)
def test_no_url_stops_reading_a_har(head: str, host: str, path: str, query: str, status: int) -> None:
    entries = [_entry(head + host + path + query, status), _entry()]
    items = list(har_payloads("a.har", _har(entries).encode()))
    assert len(items) == 2 and all(isinstance(item, Payload | Skipped) for item in items)
    assert isinstance(items[1], Payload) and items[1].problems == []


# --- usage errors: one line, credentials masked ----------------------------------------------------

#: (args after ``jobschema``) -> a piece of the one line expected (None: only that it is one line)
USAGE_ERRORS: dict[str, tuple[list[str], str | None]] = {
    "api-version-token": (
        ["validate", "--api-version", f"runai={TOKEN}", "x.json"],
        "is not a known version",
    ),
    "api-version-api-token": (
        ["validate", "--api-version", f"{TOKEN}=2.19", "x.json"],
        "not an API jobschema",
    ),
    "api-version-newline": (
        ["validate", "--api-version", "runai=2\n::error::x", "x.json"],
        "Run:ai 2\\n::error::x is not a known version",
    ),
    "option-newline": (["validate", "--a\n::error file=x::y", "x.json"], "No such option '--a\\n::error"),
    "option-token": (["validate", f"--{TOKEN}", "x.json"], "No such option"),
    "jobs-token": (["validate", "--jobs", TOKEN, "x.json"], "is not a valid integer range"),
    "format-token": (["validate", "-f", TOKEN, "x.json"], "is not one of 'text'"),
    "color-token": (["validate", "--color", TOKEN, "x.json"], "is not one of 'auto'"),
    "command-newline": (["valid\nate", "x.json"], "No such command 'valid\\nate'"),
    "command-token": ([TOKEN, "x.json"], "No such command"),
    "rules-schema-token": (["rules", "-s", TOKEN], "not a bundled schema"),
    "rules-schema-escape": (["rules", "-s", "\x1b[31mred"], "--schema \\x1b[31mred: not a bundled schema"),
    "dask-timeout-alone": (["validate", "--dask-timeout", "5", "x.json"], "works only with"),
}


@pytest.mark.parametrize(("args", "piece"), USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_a_usage_error_is_one_line_with_credentials_masked(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], piece: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    _ok(tmp_path).rename(tmp_path / "x.json")
    result = run_cli(args, code=2)
    assert result.stdout == ""
    _one_line(result.stderr)
    if piece is not None:
        assert piece in result.stderr


def test_refusing_an_output_that_is_an_input_names_it_on_one_line(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A usage error raised by a command itself, with no click context: it was printed as it came.)"""
    monkeypatch.chdir(tmp_path)
    name = f"new\nline-{TOKEN}.json"
    (tmp_path / name).write_text(OK_BODY, encoding="utf-8")
    result = run_cli(["validate", "-o", name, name], code=2)
    _one_line(result.stderr)
    assert result.stderr.endswith("-o/--output is one of the inputs; choose another file\n")
    assert (tmp_path / name).read_text(encoding="utf-8") == OK_BODY


@settings(max_examples=60)
@given(value=st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12))
def test_any_option_value_gives_one_error_line(value: str) -> None:
    from click.testing import CliRunner

    from jobschema.cli import main

    for args in (
        ["validate", f"--api-version=runai={value}", "x.json"],
        ["validate", f"--api-version={value}", "x.json"],
        ["validate", f"--format={value}", "x.json"],
        ["validate", f"--jobs={value}", "x.json"],
        [f"v{value}", "x.json"],
    ):
        result = CliRunner().invoke(main, args)
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), (
                args,
                result.stderr,
            )
            assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", result.stderr), (args, result.stderr)


# --- standard input closed -------------------------------------------------------------------------

CLOSED = "cannot read file: standard input is closed"
#: command -> (exit code, the line that names standard input, on stdout or stderr)
CLOSED_STDIN = {
    ("validate", "--jobs", "1", "--color", "never", "-"): (1, f"<stdin>: (root): {CLOSED} [read-error]"),
    ("redact", "--check", "-"): (1, f"Error: <stdin>: {CLOSED}"),
    ("redact", "-"): (1, f"Error: <stdin>: {CLOSED}"),
    ("timeline", "-"): (2, f"Error: <stdin>: {CLOSED}"),
    ("diff", "-", str(CAPTURES / "runai-error" / "not-found.json")): (2, f"Error: <stdin>: {CLOSED}"),
    ("coverage", "-"): (0, f"note: <stdin>: {CLOSED} (counted as unrecognised)"),
    ("versions", "-"): (1, f"<stdin>: no Run:ai version: {CLOSED} [read-error]"),
}


@pytest.mark.skipif(sys.platform == "win32", reason="closes the child's descriptor 0")
@pytest.mark.parametrize("args", CLOSED_STDIN, ids=[" ".join(args[:2]) for args in CLOSED_STDIN])
def test_standard_input_closed_is_that_input_s_line(args: tuple[str, ...]) -> None:
    """``jobschema validate - <&-``: (it was "internal error: AttributeError: 'NoneType' object has no
    attribute 'buffer'" in every command)."""
    code, line = CLOSED_STDIN[args]
    done = subprocess.run(
        [*JOBSCHEMA, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(0),
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert line in (done.stdout + done.stderr).splitlines(), done.stdout + done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.parametrize(
    ("stdin", "problem"),
    [(None, "standard input is closed"), (io.StringIO("{}"), "standard input is not a byte stream")],
    ids=["closed", "text-only"],
)
def test_the_library_reads_a_missing_standard_input_as_that_input_s_finding(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stdin: Any, problem: str
) -> None:
    """As in a notebook, whose ``sys.stdin`` has no byte stream."""
    monkeypatch.setattr(sys, "stdin", stdin)
    report = validate_paths(["-", str(_ok(tmp_path))])
    assert [(r.source, [(f.rule, f.message) for f in r.findings]) for r in report.results] == [
        ("<stdin>", [("read-error", f"cannot read file: {problem}")]),
        (str(tmp_path / "ok.json"), []),
    ]


# --- a key repeated: findings are placed at the value read, the last -----------------------------

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "a": {
            "type": "object",
            "required": ["b"],
            "properties": {"b": {"type": "string"}, "c": {"type": "array", "items": {"type": "string"}}},
        },
        "s": {"type": "string"},
    },
}

#: text -> (pointer, line, column) of each error (the duplicate-key warnings are at 1:1)
REPEATED = {
    "last-of-two": ('{"s": "x",\n "s": 5}', [("/s", 2, 7)]),
    "last-of-three": ('{"s": 1,\n "s": "x",\n "s": 5}', [("/s", 3, 7)]),
    "under-a-repeated-key": ('{"a": {"b": "x"},\n "a": {"b": 5}}', [("/a/b", 2, 13)]),
    "missing-in-the-last": ('{"a": {"b": 5},\n "a": {"c": []}}', [("/a", 2, 7)]),
    "repeated-inside": ('{"a": {"b": 5, "b": "x", "c": ["y", 1]}}', [("/a/c/1", 1, 37)]),
    "between-others": ('{"a": {"b": 1},\n "s": "x",\n "a": {"b": 2}}', [("/a/b", 3, 13)]),
    "in-an-array": ('{"a": {"b": "x", "c": [1, 2]},\n "a": {"b": "x", "c": ["y", 3]}}', [("/a/c/1", 2, 29)]),
    "crlf": ('{\r\n  "s": "x",\r\n  "s": [1]\r\n}', [("/s", 3, 8)]),
}


@pytest.mark.parametrize(("text", "expected"), REPEATED.values(), ids=REPEATED.keys())
def test_a_finding_under_a_repeated_key_is_placed_at_the_last_value(
    run_cli, tmp_path: Path, text: str, expected: list[tuple[str, int, int]]
) -> None:
    schema = tmp_path / "s.schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    report = json.loads(run_cli(["validate", "-f", "json", "-s", str(schema), str(path)], code=1).stdout)
    findings = report["results"][0]["findings"]
    errors = [(f["pointer"], f["line"], f["column"]) for f in findings if f["severity"] == "error"]
    assert errors == expected
    value = json.loads(text)
    lines = text.split("\n")
    for pointer, line, column in expected:  # (the text there is the value the parser kept)
        tokens = [int(t) if t.isdigit() else t for t in pointer.split("/")[1:]]
        start = sum(len(each) + 1 for each in lines[: line - 1]) + column - 1
        assert json.JSONDecoder().raw_decode(text, start)[0] == value_at(value, tokens)
    ndjson = tmp_path / "p.ndjson"  # the same line of an NDJSON file, second
    ndjson.write_text(OK_BODY + "\n" + text.replace("\r\n", " ").replace("\n", " ") + "\n", encoding="utf-8")
    report = json.loads(run_cli(["validate", "-f", "json", "-s", str(schema), str(ndjson)], code=1).stdout)
    flat = text.replace("\r\n", " ").replace("\n", " ")
    placed = [(f["pointer"], f["line"]) for f in report["results"][1]["findings"] if f["severity"] == "error"]
    assert placed == [(pointer, 2) for pointer, _, _ in expected]
    for finding in report["results"][1]["findings"]:
        if finding["severity"] == "error":
            tokens = [int(t) if t.isdigit() else t for t in finding["pointer"].split("/")[1:]]
            got = json.JSONDecoder().raw_decode(flat, finding["column"] - 1)[0]
            assert got == value_at(json.loads(flat), tokens)


def test_a_har_body_under_a_repeated_text_key_is_placed_at_the_text_read(run_cli, tmp_path: Path) -> None:
    document = _har([_entry(content={"text": OK_BODY})]).replace(
        '"text": ', '"text": "{}",\n          "text": ', 1
    )
    har = tmp_path / "a.har"
    har.write_text(document.replace(json.dumps(OK_BODY), json.dumps('{"code": 404, "message": 5}')), "utf-8")
    report = json.loads(run_cli(["validate", "-f", "json", str(har)], code=1).stdout)
    body = next(r for r in report["results"] if "#0" in r["source"])
    lines = document.split("\n")
    line = next(n for n, text in enumerate(lines, 1) if text.strip().startswith('"text": "{\\"code'))
    assert {(f["line"], f["column"]) for f in body["findings"]} == {(line, lines[line - 1].index('"{') + 1)}


KEYS = st.sampled_from(["a", "b", "é"])
LEAVES = st.integers(-5, 5) | st.text(alphabet="xy", max_size=2) | st.none()
#: a document as written: an object is a list of (key, value) pairs, keys repeated often
WRITTEN = st.recursive(
    LEAVES.map(lambda leaf: ("leaf", leaf)),
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda items: ("array", items))
        | st.lists(st.tuples(KEYS, inner), max_size=4).map(lambda pairs: ("object", pairs))
    ),
    max_leaves=20,
)


def _write(node: tuple[str, Any], gap: str) -> str:
    kind, body = node
    if kind == "leaf":
        return json.dumps(body)
    if kind == "array":
        return "[" + ("," + gap).join(_write(item, gap) for item in body) + "]"
    return "{" + ("," + gap).join(f"{json.dumps(key)}:{gap}{_write(item, gap)}" for key, item in body) + "}"


def _places(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found += _places(child, (*prefix, key))
    return found


@settings(max_examples=300)
@given(
    node=WRITTEN.filter(lambda n: n[0] == "object"),
    gap=st.sampled_from(["", " ", "\n  ", "\r\n"]),
    data=st.data(),
)
def test_every_place_is_where_the_text_holds_the_value_read(node: Any, gap: str, data: st.DataObject) -> None:
    """Whatever keys repeat, at whatever depth: the text at the place found decodes to the value the
    parser keeps there (the last of a repeated key's values), and a place the value read has not is
    placed at its nearest ancestor that it has."""
    text = _write(node, gap)
    value = json.loads(text)
    places = _places(value)
    asked = data.draw(st.lists(st.sampled_from(places), min_size=1, max_size=6))
    asked += [(*asked[0], "missing"), (*asked[-1], 9)]
    found = locate(text, asked)
    lines = text.split("\n")
    for place in asked:
        line, column = found[tuple(map(str, place))]
        start = sum(len(each) + 1 for each in lines[: line - 1]) + column - 1
        nearest = next(place[:n] for n in range(len(place), -1, -1) if place[:n] in places)
        assert json.JSONDecoder().raw_decode(text, start)[0] == value_at(value, list(nearest)), (place, text)


# --- an NDJSON file in another encoding, or compressed ---------------------------------------------

LINES = (OK_BODY + "\n") * 3
PACKED = {
    "utf-16": (LINES.encode("utf-16"), "UTF-16LE text, not UTF-8: save it as UTF-8"),
    "utf-16-le": (LINES.encode("utf-16-le"), "UTF-16LE text, not UTF-8: save it as UTF-8"),
    "utf-16-be": (LINES.encode("utf-16-be"), "UTF-16BE text, not UTF-8: save it as UTF-8"),
    "utf-32": (LINES.encode("utf-32"), "UTF-32LE text, not UTF-8: save it as UTF-8"),
    "utf-32-be": (LINES.encode("utf-32-be"), "UTF-32BE text, not UTF-8: save it as UTF-8"),
    "gzip": (gzip.compress(LINES.encode(), mtime=0), "gzip-compressed, not JSON text: decompress it first"),
    "bzip2": (bz2.compress(LINES.encode()), "bzip2-compressed, not JSON text: decompress it first"),
    "xz": (lzma.compress(LINES.encode()), "xz-compressed, not JSON text: decompress it first"),
}


def _zip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.ndjson", data)
    return buffer.getvalue()


PACKED["zip"] = (_zip(LINES.encode()), "zip-compressed, not JSON text: decompress it first")


@pytest.mark.parametrize("suffix", [".ndjson", ".jsonl"])
@pytest.mark.parametrize(("data", "problem"), PACKED.values(), ids=PACKED.keys())
def test_an_ndjson_file_in_another_encoding_is_one_line_naming_it(
    run_cli, tmp_path: Path, data: bytes, problem: str, suffix: str
) -> None:
    """As a JSON file or standard input of those bytes is (it was a ``line is binary`` finding per
    line: 3 here, thousands for a real recording)."""
    path = tmp_path / f"rec{suffix}"
    path.write_bytes(data)
    ok = _ok(tmp_path)
    result = run_cli(["validate", "--color", "never", str(path), str(ok)], code=1)
    assert result.stdout.splitlines() == [
        f"{path}: (root): file is {problem} [encoding]",
        "2 payloads: 1 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]
    piped = run_cli(["validate", "--color", "never", "-"], code=1, input=data)
    assert piped.stdout.splitlines()[0] == f"<stdin>: (root): file is {problem} [encoding]"
    assert run_cli(["coverage", str(path)], code=0).stderr == (
        f"note: {path}: file is {problem} (counted as unrecognised)\n"
    )
    assert (
        run_cli(["timeline", str(path)], code=2).stderr.splitlines()[0] == f"Error: {path}: file is {problem}"
    )
    assert list(split_ndjson(str(path), 4, smallest=8)) == [str(path)]  # (never cut into parts)


@settings(max_examples=60)
@given(
    lines=st.lists(
        st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=4), max_size=3),
        min_size=1,
        max_size=6,
    ),
    encoding=st.sampled_from(
        ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "gzip", "bz2"]
    ),
)
def test_an_ndjson_file_packed_any_way_is_one_finding(
    tmp_path_factory: pytest.TempPathFactory, lines: list[dict[str, Any]], encoding: str
) -> None:
    from jobschema.inputs.read import ndjson_payloads

    text = "".join(json.dumps(line) + "\n" for line in lines)
    data = (
        gzip.compress(text.encode(), mtime=0)
        if encoding == "gzip"
        else bz2.compress(text.encode())
        if encoding == "bz2"
        else text.encode(encoding)
    )
    path = tmp_path_factory.mktemp("packed") / "a.ndjson"
    path.write_bytes(data)
    (payload,) = ndjson_payloads(str(path))
    assert payload.source == str(path)
    assert [(f.rule, f.message.split(",")[0]) for f in payload.problems] == [
        ("encoding", "file is " + parse_bytes(data).error.message.removeprefix("file is ").split(",")[0])  # type: ignore[union-attr]
    ]


# --- HAR entries without an answer to check, and statuses of another type ---------------------------

#: what ``jobschema record`` writes for an attempt that got no answer (a timeout, a refused connection)
NO_ANSWER = {"status": 0, "statusText": "", "httpVersion": "", "content": {"size": 0, "mimeType": ""}}
SKIPPED = {
    "record-no-answer": NO_ANSWER,
    "browser-blocked": {
        "status": 0,
        "content": {"size": 0, "mimeType": "x-unknown"},
        "_error": "net::ERR_FAILED",
    },
    "moved": {"status": 301, "content": {"text": "<html>moved</html>", "mimeType": "text/html"}},
    "login-redirect": {"status": 302, "content": {"size": 0, "mimeType": ""}, "redirectURL": "/login"},
    "not-modified": {"status": 304, "content": {"size": 0, "mimeType": "application/json"}},
    "temporary-redirect": {"status": 307, "content": {"text": ""}},
    "informational": {"status": 101, "content": {}},
    "beyond-http": {"status": 999, "content": {"text": "{}"}},
}


@pytest.mark.parametrize("response", SKIPPED.values(), ids=SKIPPED.keys())
def test_a_har_entry_without_an_answer_to_check_is_skipped(run_cli, tmp_path: Path, response: Any) -> None:
    """(Each was checked against the workload schema: "response body is empty (HAR content.text
    missing)" or "invalid JSON", exit 1 - for a recording jobschema record wrote itself.)"""
    entries = [{"request": {"method": "GET", "url": WORKLOAD_URL}, "response": response}, _entry()]
    har = tmp_path / "a.har"
    har.write_text(_har(entries), encoding="utf-8")
    result = run_cli(["validate", "--color", "never", str(har)], code=0)
    assert result.stdout == "1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 1 skipped\n"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        ("404", "a string"),
        (None, "null"),
        (404.0, "a number"),
        (True, "a boolean"),
        ([404], "an array"),
        (TOKEN, "a string"),
    ],
    ids=["string", "null", "float", "boolean", "array", "token"],
)
def test_a_har_status_that_is_no_status_code_is_named(
    run_cli, tmp_path: Path, status: Any, kind: str
) -> None:
    """(A string "404" was taken for 0 and checked as a success: "missing required properties
    "name", "requestedName", …" against an error body.)"""
    har = tmp_path / "a.har"
    document = _har([_entry(status=status), _entry()])
    har.write_text(document, encoding="utf-8")
    result = run_cli(["validate", "--color", "never", str(har)], code=1)
    line, column = _text_place(document, 0)
    assert result.stdout.splitlines() == [
        f"{har}:{line}:{column}: #0 GET {WORKLOAD_URL}: (root): response status is {kind}, not an HTTP "
        "status code (HAR response.status) [har]",
        "2 payloads: 1 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]


def test_a_har_entry_without_a_status_is_named(run_cli, tmp_path: Path) -> None:
    entry = {"request": {"method": "GET", "url": WORKLOAD_URL}, "response": {"content": {"text": OK_BODY}}}
    har = tmp_path / "a.har"
    har.write_text(_har([entry]), encoding="utf-8")
    line = run_cli(["validate", "--color", "never", str(har)], code=1).stdout.splitlines()[0]
    assert line.endswith(
        ": (root): response status is missing, not an HTTP status code (HAR response.status) [har]"
    )


@pytest.mark.parametrize(("text", "kind"), [(5, "an integer"), ({"a": 1}, "an object"), (["{}"], "an array")])
def test_a_har_body_that_is_not_text_is_named_for_what_it_is(
    run_cli, tmp_path: Path, text: Any, kind: str
) -> None:
    """(It was "response body is empty (HAR content.text missing)".)"""
    har = tmp_path / "a.har"
    har.write_text(_har([_entry(content={"text": text})]), encoding="utf-8")
    line = run_cli(["validate", "--color", "never", str(har)], code=1).stdout.splitlines()[0]
    assert line.endswith(f": (root): response body is {kind}, not text (HAR content.text) [har]")


@settings(max_examples=80)
@given(status=st.integers(-3, 1100))
def test_only_answers_of_the_endpoints_are_checked(status: int) -> None:
    (item,) = har_payloads("a.har", _har([_entry(status=status)]).encode())
    checked = 200 <= status < 300 or 400 <= status < 600
    assert isinstance(item, Payload) is checked
    if checked:
        assert isinstance(item, Payload) and item.schema == (
            "runai-error" if status >= 400 else "runai-distributed-workload"
        )


# --- HAR base64 bodies in every style redact reads --------------------------------------------------

BAD_BODY = '{"code": 404, "message": 5, "pad": "???>>>~~~' + "x" * 90 + '"}'


def _styles() -> dict[str, Any]:
    from jobschema.inputs.base64text import Style

    return {
        "mime-76": Style(76),
        "mime-76-crlf": Style(76, "\r\n"),
        "pem-64-ended": Style(64, "\n", ended=True),
        "url-safe": Style(url_safe=True),
        "unpadded": Style(padded=False),
        "url-safe-unpadded-wrapped": Style(60, url_safe=True, padded=False),
    }


@pytest.mark.parametrize("style", list(_styles()))
def test_a_base64_body_in_any_style_redact_reads_is_checked(run_cli, tmp_path: Path, style: str) -> None:
    """(Wrapped in lines, URL-safe or unpadded, it was "response body is not valid base64".)"""
    encoded = _styles()[style].encode(BAD_BODY.encode())
    plain, wrapped = tmp_path / "plain.har", tmp_path / "wrapped.har"
    plain.write_text(_har([_entry(content={"text": BAD_BODY})]), encoding="utf-8")
    wrapped.write_text(_har([_entry(content={"text": encoded, "encoding": "base64"})]), encoding="utf-8")

    def messages(path: Path) -> list[tuple[str, str]]:
        report = json.loads(run_cli(["validate", "-f", "json", str(path)], code=1).stdout)
        return [(f["pointer"], f["message"]) for r in report["results"] for f in r["findings"]]

    assert messages(wrapped) == messages(plain) == [("/message", "expected string, got integer 5")]
    workload = (CAPTURES / "runai-distributed-workload" / "completed-job.json").read_bytes()
    answer = _entry(status=200, content={"text": _styles()[style].encode(workload), "encoding": "base64"})
    timeline = tmp_path / "t.har"
    timeline.write_text(_har([answer]), encoding="utf-8")
    assert "base64" not in run_cli(["timeline", str(timeline)]).stderr


def test_a_cluster_answer_in_wrapped_base64_names_the_version(run_cli, tmp_path: Path) -> None:
    from jobschema.inputs.base64text import Style

    workload = json.loads((CAPTURES / "runai-distributed-workload" / "completed-job.json").read_text("utf-8"))
    cluster_url = f"https://runai.example.com/api/v1/clusters/{workload['clusterId']}"
    cluster = json.dumps(
        {"uuid": workload["clusterId"], "name": "c", "version": "2.19.3", "status": {}} | {"x": "y" * 80}
    )
    entries = [
        _entry(cluster_url, 200, {"text": Style(64).encode(cluster.encode()), "encoding": "base64"}),
        _entry(status=200, content={"text": json.dumps(workload)}),
    ]
    har = tmp_path / "a.har"
    har.write_text(_har(entries), encoding="utf-8")
    report = json.loads(run_cli(["validate", "-f", "json", str(har)]).stdout)
    assert [r.get("api_version") for r in report["results"]] == ["2.19"]


# --- library values JSON cannot hold ------------------------------------------------------------------


class _Cycle(dict):  # type: ignore[type-arg]
    pass


def _cycle() -> dict[str, Any]:
    payload: dict[str, Any] = {"code": 404, "message": "m", "more": [1, {}]}
    payload["more"][1]["back"] = payload
    return payload


def _deep_nan() -> dict[str, Any]:
    payload: dict[str, Any] = {"code": 404, "message": "m"}
    node: Any = payload
    for _ in range(100_000):
        node["x"] = {}
        node = node["x"]
    node["y"] = math.nan
    return payload


NOT_JSON: dict[str, tuple[Any, str, str]] = {
    "int-key": ({"code": 404, "message": "m", 1: "x"}, "", "an object key of type int is not a string"),
    "none-key": (
        {"code": 404, "message": {None: 1}},
        "/message",
        "an object key of type NoneType is not a string",
    ),
    "tuple-key": (
        {"code": 404, "message": "m", "x": [{(1, 2): 0}]},
        "/x/0",
        "an object key of type tuple is not a string",
    ),
    "nan": ({"code": 404, "message": "m", "x": math.nan}, "/x", "NaN is not a JSON value"),
    "infinity": ({"code": 404, "message": "m", "x": [1, math.inf]}, "/x/1", "Infinity is not a JSON value"),
    "minus-infinity": ({"code": 404, "message": -math.inf}, "/message", "-Infinity is not a JSON value"),
    "set": ({"code": 404, "message": {"a"}}, "/message", "a value of type set is not a JSON value"),
    "bytes": ({"code": 404, "message": b"m"}, "/message", "a value of type bytes is not a JSON value"),
    "decimal": (
        {"code": Decimal(404), "message": "m"},
        "/code",
        "a value of type Decimal is not a JSON value",
    ),
    "object": (
        {"code": 404, "message": "m", "x": object()},
        "/x",
        "a value of type object is not a JSON value",
    ),
    "cycle": (_cycle(), "/more/1/back", "the value contains itself (a cycle): JSON cannot hold it"),
    "deep": (_deep_nan(), "/x" * 100_000 + "/y", "NaN is not a JSON value"),
    "token-key": (
        {"code": 404, "message": "m", TOKEN: {b"k": 1}},
        f"/{TOKEN}",
        "an object key of type bytes is not a string",
    ),
}


@pytest.mark.parametrize(("value", "pointer", "message"), NOT_JSON.values(), ids=NOT_JSON.keys())
def test_what_a_value_holds_that_json_cannot_is_named_where_it_is(
    value: Any, pointer: str, message: str
) -> None:
    found = not_json(value)
    assert found is not None
    assert (to_pointer(found[0]), found[1]) == (pointer, message)


#: a value whose check met what JSON cannot hold -> (options, the one finding); every call returns
KEYS_NOT_TEXT = {
    "int-key-strict": (
        {"code": 404, "message": "m", 1: "x"},
        {"strict": True},
        ("", "an object key of type int is not a string"),
    ),
    "none-key-strict": (
        {"code": 404, "message": "m", None: "x"},
        {"strict": True},
        ("", "an object key of type NoneType is not a string"),
    ),
    "tuple-key-strict": (
        {"workloadId": "w", (1, 2): 0},
        {"strict": True},
        ("", "an object key of type tuple is not a string"),
    ),
    "token-key-strict": (
        {"code": 404, "message": "m", TOKEN: 1, 2: 3},
        {"strict": True, "schema": "runai-error"},
        ("", "an object key of type int is not a string"),
    ),
}


@pytest.mark.parametrize(("value", "options", "expected"), KEYS_NOT_TEXT.values(), ids=KEYS_NOT_TEXT.keys())
def test_a_key_that_is_no_string_is_a_finding_not_a_type_error(
    value: Any, options: dict[str, Any], expected: tuple[str, str]
) -> None:
    """(``--strict``'s walk over keys raised "TypeError: expected string or bytes-like object, got
    'int'" from ``jobschema.text.key_segment``.)"""
    schema = options.pop("schema", None)
    for result in (
        validate_payload(value, schema, **options),
        validate_payloads([("p", value)], schema, **options).results[0],
    ):
        assert not result.valid
        assert [(f.pointer, f.rule, f.message) for f in result.findings] == [
            (*expected[:1], "parse-error", expected[1])
        ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (math.nan, "expected integer, got non-JSON number NaN"),
        (math.inf, "expected integer, got non-JSON number Infinity"),
        (-math.inf, "expected integer, got non-JSON number -Infinity"),
    ],
)
def test_nan_where_a_number_is_asked_for_is_named_as_no_json_number(value: float, message: str) -> None:
    """(It was "expected integer or number, got number NaN": a number where a number is asked for.)"""
    result = validate_payload({"code": value, "message": "m"}, "runai-error")
    assert [(f.pointer, f.message) for f in result.findings] == [("/code", message)]


def test_values_of_json_types_and_their_subclasses_are_json() -> None:
    from collections import OrderedDict
    from enum import IntEnum

    class Code(IntEnum):
        NOT_FOUND = 404

    class Text(str):
        pass

    payload = OrderedDict(code=Code.NOT_FOUND, message=Text("m"))
    assert not_json(payload) is None and validate_payload(payload, strict=True).valid
    assert not_json({"m": "\ud800", "n": [1.5, -0.0, 10**400, True, None]}) is None
    shared = {"message": "m"}
    assert not_json({"code": 404, "x": [shared, shared, {"y": shared}]}) is None  # (shared, no cycle)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)
ODD = st.sampled_from([math.nan, math.inf, {1}, b"x", Decimal(1), (1,), object()])
ODD_KEYS = st.sampled_from([1, None, (1,), b"k", 2.5])


@settings(max_examples=150)
@given(value=JSON_VALUES, odd=ODD, odd_key=ODD_KEYS, data=st.data())
def test_a_value_made_non_json_anywhere_is_found_there_and_json_never_is(
    value: Any, odd: Any, odd_key: Any, data: st.DataObject
) -> None:
    """``not_json`` finds what was put in, where it was put; checking never raises, strict or not."""
    payload = {"code": 404, "message": "m", "x": value}
    assert not_json(payload) is None
    containers = [
        place for place in _places(payload) if isinstance(value_at(payload, list(place)), dict | list)
    ]
    place = data.draw(st.sampled_from(containers))
    holder = value_at(payload, list(place))
    use_key = isinstance(holder, dict) and data.draw(st.booleans())
    if isinstance(holder, list):
        key: Any = len(holder)
        holder.append(odd)
    elif use_key:
        holder[odd_key] = 1
    else:
        key = "odd"
        holder[key] = odd
    found = not_json(payload)
    assert found is not None
    assert found[0] == (place if use_key else (*place, key))
    for strict in (False, True):
        for schema in (None, "runai-error"):
            for finding in validate_payload(payload, schema, strict=strict).findings:
                assert isinstance(finding.message, str)
                assert (
                    ", got number NaN" not in finding.message
                    and ", got number Infinity" not in finding.message
                )


# --- -o naming a descriptor -----------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="descriptor paths")
@pytest.mark.parametrize(
    ("name", "stream"),
    [("/dev/stdout", 1), ("/dev/fd/1", 1), ("/proc/self/fd/1", 1), ("/dev/stderr", 2), ("/dev/fd/2", 2)],
)
def test_output_to_a_descriptor_writes_into_the_stream_already_open(
    tmp_path: Path, name: str, stream: int
) -> None:
    """``-o /dev/stdout`` with stdout appended to a file (``>> log``): the report goes where the
    stream is, after what it holds (it replaced the file: ``before`` was lost, and ``after`` went to
    a file no name led to any more)."""
    log = tmp_path / "log.txt"
    log.write_text("earlier\n", encoding="utf-8")
    inode = log.stat().st_ino
    capture = CAPTURES / "runai-error" / "not-found.json"
    command = " ".join([*JOBSCHEMA, "validate", "--jobs", "1", "-o", name, str(capture)])
    redirect = ">>" if stream == 1 else "2>>"
    shell = f"{{ echo before >&{stream}; {command}; echo after >&{stream}; }} {redirect} {log}"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert log.read_text(encoding="utf-8") == (
        "earlier\nbefore\n1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\nafter\n"
    )
    assert log.stat().st_ino == inode


# --- names that name nothing ---------------------------------------------------------------------------


def test_a_name_holding_a_nul_byte_names_nothing(tmp_path: Path) -> None:
    """(It was ``ValueError: embedded null byte`` from inside, naming no input.)"""
    with pytest.raises(InputNotFound) as raised:
        validate_paths([str(_ok(tmp_path)), "a\x00b.json"])
    assert str(raised.value) == "a\\x00b.json: no such file or folder (a name cannot hold a NUL byte)"


def test_an_empty_name_is_named_as_empty(run_cli, tmp_path: Path) -> None:
    """``jobschema validate "$CAPTURES"``, the variable unset (it was "Error: : no such file or folder")."""
    ok = _ok(tmp_path)
    result = run_cli(["validate", "", str(ok)], code=2)
    assert result.stderr == 'Error: "" (an empty name): no such file or folder\n'
    assert result.stdout.endswith("1 payload: 1 valid, 0 invalid; 0 errors, 0 warnings; 0 skipped\n")


# --- a second byte order mark -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "data", [b"\xef\xbb\xbf\xef\xbb\xbf{}", "\ufeff\ufeff{}".encode(), b"\xef\xbb\xbf \xef\xbb\xbf{}"]
)
def test_a_second_byte_order_mark_is_named_without_python_advice(data: bytes) -> None:
    error = parse_bytes(data).error
    assert error is not None and "utf-8-sig" not in error.message
    if data.count(b"\xef\xbb\xbf") == 2 and data[3:6] == b"\xef\xbb\xbf":
        assert (error.message, error.where) == (
            "invalid JSON: Unexpected second byte order mark (U+FEFF)",
            (1, 1),
        )
