"""Inputs no other test reads: endless binary standard input, inputs larger than the memory there is,
NDJSON lines that are not UTF-8 text, ``.har`` files that hold no HAR or repeat a key of the HAR's
own, and a BOM before an embedded document. Each kind is read the same way by every command, is one
line naming the input, and never stops the others."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import resource
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs import files as input_files
from jobschema.inputs.files import STDIN, STREAM_PROBE, read_bytes
from jobschema.inputs.har import har_payloads
from jobschema.inputs.parse import BINARY_PROBE, BOM, line_problem, parse_bytes, parse_text
from jobschema.inputs.payload import Payload
from jobschema.inputs.read import ndjson_payloads, sniff_stdin, stdin_payloads
from tests.support import EXAMPLES

OK = EXAMPLES / "valid" / "runai-distributed-workload" / "required-fields-only.json"
BINARY = "file is binary (it contains NUL bytes), not JSON text"
TOO_LARGE = "cannot read file: too large to read into the memory available"


class Endless(io.RawIOBase):
    """A stream that starts with ``head`` and then gives ``fill`` forever, counting what was read; a
    reader that goes on past :data:`BOUND` fails at once (it would never stop)."""

    def __init__(self, head: bytes, fill: bytes = b"\x00") -> None:
        self.head, self.fill, self.given = head, fill, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.given > BOUND:
            raise AssertionError(f"read on past {BOUND} bytes of an endless stream")
        size = len(buffer)
        data = (self.head + self.fill * size)[:size]
        self.head = self.head[size:]
        buffer[:size] = data
        self.given += size
        return size


#: What reading the start of a stream may take: the bytes looked at, and the buffers around them.
BOUND = STREAM_PROBE + 2 * io.DEFAULT_BUFFER_SIZE

#: A start of a stream that shows it binary: a NUL within the bytes looked at (after any BOM).
binary_heads = st.builds(
    lambda bom, before, after: bom + before + b"\x00" + after,
    st.sampled_from([b"", BOM]),
    st.binary(max_size=BINARY_PROBE - 1),
    st.binary(max_size=64),
)


@settings(max_examples=60, derandomize=True)
@given(head=binary_heads, fill=st.sampled_from([b"\x00", b"{", b"\n", b"a\n"]))
def test_an_endless_binary_stdin_is_read_no_further_than_its_start(head: bytes, fill: bytes) -> None:
    stream = Endless(head, fill)
    (payload,) = stdin_payloads(io.BufferedReader(stream))
    assert [(p.rule, p.message) for p in payload.problems] == [("encoding", BINARY)]
    assert stream.given <= BOUND
    for read in (lambda s: read_bytes(STDIN, s), lambda s: sniff_stdin(s).whole()):
        stream = Endless(head, fill)
        data = read(io.BufferedReader(stream))
        assert isinstance(data, bytes) and parse_bytes(data).error.message == BINARY
        assert stream.given <= BOUND


@settings(max_examples=60, derandomize=True)
@given(
    bom=st.sampled_from([b"", BOM]),
    size=st.sampled_from(
        [0, 1, BINARY_PROBE - 2, BINARY_PROBE - 1, BINARY_PROBE, BINARY_PROBE + 5, 3 * BINARY_PROBE]
    ),
    nul=st.booleans(),
    lines=st.integers(min_value=1, max_value=3),
)
def test_text_past_the_bytes_looked_at_is_read_whole(bom: bytes, size: int, nul: bool, lines: int) -> None:
    """Only a NUL within the bytes looked at stops reading: one just past them, a first line longer
    than them, a document of any size is read whole, and NDJSON is told as ever."""
    line = json.dumps({"a": "x" * size}).encode()
    data = bom + b"\n".join([line] * lines) + (b"\x00" if nul else b"") + b"\n"
    sniffed = sniff_stdin(io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    assert sniffed.ndjson is (lines > 1)
    if sniffed.ndjson:
        assert b"".join(sniffed.lines()) == data
    else:
        assert sniffed.whole() == data
    assert read_bytes(STDIN, io.BytesIO(data)) == data


@pytest.mark.skipif(sys.platform != "linux", reason="a sparse file and RLIMIT_AS")
def test_every_command_reads_a_binary_stdin_larger_than_memory_as_one_line(tmp_path: Path) -> None:
    """``- < /dev/zero`` (here 3 GiB of NULs, a sparse file: finite, so nothing can wait forever):
    one line naming standard input, as for a binary file. The run's memory is capped at 1 GiB, so
    reading on ends in MemoryError (it did: "internal error", or the machine's memory taken)."""
    zeros = tmp_path / "zeros"
    with zeros.open("wb") as sparse:
        sparse.truncate(3 << 30)
    expected = {
        ("validate", "--jobs", "1", "--color", "never", "-"): (
            1,
            f"<stdin>: (root): {BINARY} [encoding]",
            "",
        ),
        ("redact", "--check", "-"): (1, "", f"Error: <stdin>: {BINARY}"),
        ("redact", "-"): (1, "", f"Error: <stdin>: {BINARY}"),
        ("timeline", "-"): (2, "", f"Error: <stdin>: {BINARY}"),
        ("diff", "-", str(OK)): (2, "", f"Error: <stdin>: {BINARY}"),
        ("coverage", "-"): (0, "", f"note: <stdin>: {BINARY} (counted as unrecognised)"),
    }
    for args, (code, out, err) in expected.items():
        with zeros.open("rb") as stdin:
            result = _capped(args, stdin)
        assert (result.returncode, result.stderr.splitlines()[:1]) == (code, [err] if err else []), args
        assert out in result.stdout


def _capped(args: tuple[str, ...], stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    """``jobschema ARGS`` in a process whose address space is capped at 1 GiB."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    command = [sys.executable, "-m", "jobschema", *args]
    return subprocess.run(command, stdin=stdin, capture_output=True, text=True, preexec_fn=cap, check=False)


@pytest.mark.skipif(sys.platform != "linux", reason="a sparse file and RLIMIT_AS")
def test_an_input_larger_than_memory_is_that_input_s_line(tmp_path: Path) -> None:
    """A file larger than the memory the process may take (a sparse 3 GiB file under a 1 GiB cap) is
    that input's one line, as an unreadable file is; the input beside it is still read."""
    huge = tmp_path / "huge.json"
    with huge.open("wb") as sparse:
        sparse.truncate(3 << 30)
    ok = tmp_path / "ok.json"
    ok.write_bytes(OK.read_bytes())
    line = f"{huge}: {TOO_LARGE}"
    validate = _capped(("validate", "--jobs", "1", "--color", "never", str(huge), str(ok)))
    assert (validate.returncode, validate.stderr) == (1, "")
    assert validate.stdout.splitlines() == [
        f"{huge}: (root): {TOO_LARGE} [read-error]",
        "2 payloads: 1 valid, 1 invalid; 1 error, 0 warnings; 0 skipped",
    ]
    for args, code, shown in (
        (("redact", "--check"), 1, f"Error: {line}"),
        (("timeline",), 2, f"Error: {line}"),
        (("coverage",), 0, f"note: {line} (counted as unrecognised)"),
    ):
        result = _capped((*args, str(huge), str(ok)))
        assert (result.returncode, result.stderr.splitlines()) == (code, [shown]), args
    diff = _capped(("diff", str(huge), str(ok)))
    assert (diff.returncode, diff.stdout, diff.stderr) == (2, "", f"Error: {line}\n")


def test_memory_running_out_while_reading_is_the_input_s_finding(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Wherever reading runs out of memory (a file, standard input, an NDJSON line, parsing), the
    input gets the finding and the reader goes on."""
    path = tmp_path / "a.ndjson"
    path.write_bytes(b'{"a": 1}\n\n{"a": 2}\n{"a": 3}\n')

    def no_memory(*_: Any) -> Any:
        raise MemoryError

    class Full(io.BytesIO):
        read = no_memory

    with monkeypatch.context() as patch:
        patch.setattr(input_files.os, "read", no_memory)
        assert str(read_bytes(str(path))) == "[Errno 12] too large to read into the memory available"
    assert str(read_bytes(STDIN, Full(b"{}"))) == "[Errno 12] too large to read into the memory available"
    assert _problems(stdin_payloads(Full(b"{}"))) == [("<stdin>", [("read-error", TOO_LARGE)])]

    class Short(io.BytesIO):
        def __iter__(self) -> Any:
            yield b'{"a": 1}\n'
            yield b"\n"
            raise MemoryError

    with monkeypatch.context() as patch:
        patch.setattr("jobschema.inputs.read.open_file", lambda *_, **__: Short())
        assert _problems(ndjson_payloads(str(path))) == [
            (f"{path}:1", []),
            (f"{path}:3", [("read-error", TOO_LARGE)]),
        ]
    with monkeypatch.context() as patch:
        patch.setattr("jobschema.inputs.parse.orjson.loads", no_memory)
        error = parse_bytes(b'{"a": 1}').error
        assert error is not None and (error.rule, error.message) == (
            "parse-error",
            "too large to parse in the memory available",
        )


def _problems(payloads: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    return [(p.source, [(f.rule, f.message) for f in p.problems]) for p in payloads]


# --- NDJSON lines that are not UTF-8 text ------------------------------------------------------


@settings(max_examples=80, derandomize=True)
@given(
    before=st.text(st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters='"\\'), max_size=12),
    bad=st.sampled_from([b"\xe9", b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\x80"]),
    number=st.integers(min_value=1, max_value=4),
)
def test_an_ndjson_line_that_is_not_utf8_is_named_by_its_line_and_column(
    tmp_path_factory: pytest.TempPathFactory, before: str, bad: bytes, number: int
) -> None:
    """Its column counts characters (as every column does), and the line says "line", never "file"
    or an offset into the line; redact words a line the same (its column counts bytes: the same
    number for ASCII text)."""
    line = b'{"a": "' + before.encode() + bad + b'"}'
    path = tmp_path_factory.mktemp("lines") / "a.ndjson"
    path.write_bytes(b'{"a": 1}\n' * (number - 1) + line + b"\n" + b'{"a": 2}\n')
    column = len('{"a": "') + len(before) + 1
    message = f"line is not UTF-8: invalid byte 0x{bad[0]:02x} at column {column}"
    assert [p for p in _problems(ndjson_payloads(str(path))) if p[1]] == [
        (f"{path}:{number}", [("encoding", message)])
    ]


def test_validate_and_redact_word_a_bad_ndjson_line_alike(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"code": 404, "message": "m"}\n{"code": 404, "message": "caf\xe9"}\n{"a": \x00}\n')
    validate = run_cli(["validate", "--color", "never", str(path)], code=1).stdout.splitlines()
    redact = run_cli(["redact", "--check", str(path)], code=1).stderr.splitlines()
    column = len('{"code": 404, "message": "caf') + 1
    problems = [
        f"line is not UTF-8: invalid byte 0xe9 at column {column}",
        "line is binary (it contains NUL bytes), not JSON text",
    ]
    assert validate[:2] == [
        f"{path}:{n}: (root): {p} [encoding]" for n, p in zip((2, 3), problems, strict=True)
    ]
    assert redact == [f"Error: {path}:{n}: {p}" for n, p in zip((2, 3), problems, strict=True)]
    piped = run_cli(
        ["validate", "--color", "never", "-"], code=1, input=path.read_bytes()
    ).stdout.splitlines()
    assert piped[:2] == [
        f"<stdin>:{n}: (root): {p} [encoding]" for n, p in zip((2, 3), problems, strict=True)
    ]
    coverage = run_cli(["coverage", str(path)], code=0).stderr.splitlines()
    assert coverage == [
        f"note: {path}:{n}: {p} (counted as unrecognised)" for n, p in zip((2, 3), problems, strict=True)
    ]
    timeline = run_cli(["timeline", str(path)], code=2).stderr.splitlines()
    assert timeline == [f"Error: {path}:{n}: {p}" for n, p in zip((2, 3), problems, strict=True)]


def test_a_line_of_a_bom_alone_and_a_multibyte_column_are_worded_alike(run_cli, tmp_path: Path) -> None:
    """Columns count characters (``é`` is one), a BOM alone on a later line is an empty line: in
    validate, redact and timeline alike."""
    path = tmp_path / "l.ndjson"
    path.write_bytes(b'{"code": 404, "message": "m"}\n\xef\xbb\xbf\n{"a": "\xc3\xa9\xff"}\n')
    problems = [(2, "line is empty"), (3, "line is not UTF-8: invalid byte 0xff at column 9")]
    validate = run_cli(["validate", "--color", "never", str(path)], code=1).stdout.splitlines()
    assert validate[:2] == [f"{path}:{n}: (root): {p} [encoding]" for n, p in problems]
    for command in (["redact", "--check"], ["timeline"]):
        stderr = run_cli([*command, str(path)]).stderr.splitlines()
        assert stderr == [f"Error: {path}:{n}: {p}" for n, p in problems], command


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ('{"a": 1}'.encode("utf-16"), "UTF-16LE text, not UTF-8: save it as UTF-8"),
        ('{"a": 1}'.encode("utf-16-le"), "UTF-16LE text, not UTF-8: save it as UTF-8"),
        ('{"a": 1}'.encode("utf-16-be"), "UTF-16BE text, not UTF-8: save it as UTF-8"),
        ('{"a": 1}'.encode("utf-32"), "UTF-32LE text, not UTF-8: save it as UTF-8"),
        ('{"a": 1}'.encode("utf-32-be"), "UTF-32BE text, not UTF-8: save it as UTF-8"),
        ('{"名": "値"}'.encode("utf-16"), "UTF-16LE text, not UTF-8: save it as UTF-8"),
        (gzip.compress(b'{"a": 1}', mtime=0), "gzip-compressed, not JSON text: decompress it first"),
        (bz2.compress(b'{"a": 1}'), "bzip2-compressed, not JSON text: decompress it first"),
    ],
)
def test_text_in_another_encoding_or_compressed_is_named(
    run_cli, tmp_path: Path, data: bytes, problem: str
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(data)
    out = run_cli(["validate", "--color", "never", str(path)], code=1).stdout.splitlines()
    assert out[0] == f"{path}: (root): file is {problem} [encoding]"
    piped = run_cli(["validate", "--color", "never", "-"], code=1, input=data).stdout.splitlines()
    assert piped[0] == f"<stdin>: (root): file is {problem} [encoding]"
    assert run_cli(["redact", "--check", str(path)], code=1).stderr == f"Error: {path}: file is {problem}\n"


# --- .har files ----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["log", "entries", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _no_entries(value: Any) -> bool:
    log = value.get("log") if isinstance(value, dict) else None
    return not (isinstance(log, dict) and isinstance(log.get("entries"), list))


@settings(max_examples=80, derandomize=True)
@given(value=json_values.filter(_no_entries), repeat=st.booleans())
def test_a_har_file_without_entries_is_one_error_and_no_payload(value: Any, repeat: bool) -> None:
    """Whatever JSON it holds (an object, a ``log`` that is a list, a string, null; a key repeated
    in it), it is one ``har`` error and is never checked as a payload (no schema is looked for)."""
    text = json.dumps(value)
    if repeat and text.startswith("{") and text != "{}":
        text = '{"x": 0, "x": 1, ' + text[1:]
    (payload,) = har_payloads("a.har", text.encode())
    assert isinstance(payload, Payload) and not payload.parsed
    assert [(f.rule, f.message) for f in payload.problems] == [
        ("har", "not a HAR file: no log.entries array")
    ]


def _har(entries: list[Any]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "entries": entries}}


def _entry(body: str, status: int = 404) -> dict[str, Any]:
    url = "https://runai.example.com/api/v1/workloads/distributed/w-1"
    return {
        "request": {"method": "GET", "url": url},
        "response": {"status": status, "content": {"text": body}},
    }


@pytest.mark.parametrize("where", ["top", "log", "entries", "entry", "response", "content"])
def test_a_key_repeated_in_the_har_is_an_error_naming_it(run_cli, tmp_path: Path, where: str) -> None:
    """A repeated key hides what it held before its last value: a repeated ``entries`` hid every
    entry but the last array's, and the run passed with 0 payloads. Now it is one ``har`` error per
    key, and the entries that are read are still checked."""
    hidden = json.dumps([_entry('{"code": 404, "message": "hidden"}')])
    seen = _entry('{"code": 404, "message": "seen"}')
    document = json.dumps(_har([seen]))
    key, inner = {
        "top": ("log", '"log": {}, '),
        "log": ("version", '"version": "1.1", '),
        "entries": ("entries", f'"entries": {hidden}, '),
        "entry": ("request", '"request": {}, '),
        "response": ("status", '"status": 500, '),
        "content": ("text", '"text": "{}", '),
    }[where]
    anchor = {
        "top": '{"log"',
        "log": '"version"',
        "entries": '"entries"',
        "entry": '"request"',
        "response": '"status"',
        "content": '"text"',
    }[where]
    at = document.index(anchor) + (1 if where == "top" else 0)
    path = tmp_path / "a.har"
    path.write_text(document[:at] + inner + document[at:], encoding="utf-8")
    result = run_cli(["validate", "--color", "never", "-f", "json", str(path)], code=1)
    results = [r for r in json.loads(result.stdout)["results"] if r["findings"]]
    assert [(r["source"], [(f["rule"], f["message"]) for f in r["findings"]]) for r in results] == [
        (str(path), [("har", f'the HAR repeats the key "{key}": only its last value is read')]),
    ]
    assert json.loads(result.stdout)["summary"]["inputs"] == 2  # (the HAR's error, its entry)


def test_a_body_with_a_bom_reads_as_a_file_with_one_does(run_cli, tmp_path: Path) -> None:
    """A BOM is dropped from a file, from a base64 body, and now from a body's text too (every
    command: validate, coverage, timeline, redact read the body alike)."""
    body = OK.read_text(encoding="utf-8")
    path = tmp_path / "a.har"
    path.write_text(json.dumps(_har([_entry("\ufeff" + body, status=200)])), encoding="utf-8")
    run_cli(["validate", str(path)], code=0)
    assert run_cli(["coverage", str(path)], code=0).stderr == ""


@settings(max_examples=80, derandomize=True)
@given(value=json_values)
def test_parse_text_drops_a_bom_as_parse_bytes_does(value: Any) -> None:
    text = json.dumps(value)
    assert parse_text("\ufeff" + text) == parse_text(text) == parse_bytes(BOM + text.encode())


# --- a socket named directly ------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_a_socket_named_directly_is_named_for_what_it_is(run_cli, tmp_path: Path) -> None:
    """A socket cannot be opened at all (ENXIO): it was "No such device or address"; it is named as
    a FIFO or a device is, by every command, and the input beside it is still read."""
    path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        problem = (
            "cannot read file: is a socket, not a regular file (pipe it to - to read it as standard input)"
        )
        validate = run_cli(["validate", "--color", "never", str(path), str(OK)], code=1)
        assert validate.stdout.splitlines()[0] == f"{path}: (root): {problem} [read-error]"
        assert "2 payloads: 1 valid, 1 invalid" in validate.stdout
        for args, code, line in (
            (["redact", "--check", str(path), str(OK)], 1, f"Error: {path}: {problem}"),
            (["timeline", str(path), str(OK)], 2, f"Error: {path}: {problem}"),
            (["diff", str(path), str(OK)], 2, f"Error: {path}: {problem}"),
            (["coverage", str(path), str(OK)], 0, f"note: {path}: {problem} (counted as unrecognised)"),
        ):
            assert run_cli(args, code=code).stderr.splitlines() == [line], args
    finally:
        server.close()


def test_a_line_that_is_a_bom_alone_is_named_as_a_line() -> None:
    assert line_problem(BOM) == "line is empty"
    assert line_problem(BOM + b'{"a": 1}') is None
