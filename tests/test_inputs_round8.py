"""Round 8 of hostile inputs, every command that reads them: standard input that never ends.

A stream has no size: ``yes '{}' |``, a line that never ends, a document that never closes was read
on until the memory there is was taken (the run never ended). Standard input is now read for at
most :data:`~jobschema.inputs.files.STDIN_LIMIT` bytes and
:data:`~jobschema.inputs.files.STDIN_LINES` lines; past them, that input's finding, one line
naming it, and the other inputs still read.

Every endless input here is bounded by bytes: a writer thread feeds a pipe a fixed number of bytes
(more than the limit) and stops, so nothing can wait forever. The runs are real processes
(``python -c``), limits lowered where the test would otherwise feed hundreds of megabytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.inputs import files as input_files
from jobschema.inputs.files import STDIN_LIMIT, STDIN_LINES, Bounded
from jobschema.inputs.read import stdin_payloads
from tests.support import EXAMPLES, counting_server

INVALID = EXAMPLES / "invalid" / "runai-distributed-workload" / "enum-actual-phase-lowercase.json"
#: A capture redact --check finds a secret in (its name is then printed).
SECRET = Path(__file__).parent / "fixtures" / "redact" / "runai-workload.json"
#: The limits the runs here are given (``python -c``), so a test feeds megabytes, not hundreds.
LIMIT, LINES = 1 << 20, 1000
RUN = (
    "import sys, jobschema.inputs.files as f; f.STDIN_LIMIT, f.STDIN_LINES = {limit}, {lines}; "
    "sys.argv[0] = 'jobschema'; from jobschema.cli import run; run()"
)
SAVE = "(read no further): save it to a file and name the file"
OVER_BYTES = f"cannot read file: standard input holds more than 1 MiB {SAVE}"
OVER_LINES = f"cannot read file: standard input holds more than 1,000 lines {SAVE}"


def endless(unit: bytes, total: int) -> Iterator[bytes]:
    """``unit`` repeated, ``total`` bytes in all, in chunks: a stream that would go on, cut by bytes."""
    chunk = unit * max(1, (1 << 16) // len(unit))
    sent = 0
    while sent < total:
        part = chunk[: total - sent]
        sent += len(part)
        yield part


def run(
    args: list[str], feed: Iterator[bytes], limit: int = LIMIT, lines: int = LINES
) -> subprocess.CompletedProcess[bytes]:
    """``jobschema ARGS`` in a process of its own, standard input fed ``feed`` through a pipe (what
    the reader does not take is dropped once it stops reading)."""
    code = RUN.format(limit=limit, lines=lines)
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None

    def write() -> None:
        try:
            for part in feed:
                process.stdin.write(part)  # type: ignore[union-attr]
        except OSError:  # (the reader stopped reading: what is left is dropped)
            pass
        finally:
            with contextlib.suppress(OSError):
                process.stdin.close()  # type: ignore[union-attr]

    read: dict[str, bytes] = {}

    def take(name: str, stream: IO[bytes]) -> None:
        read[name] = stream.read()

    threads = [
        threading.Thread(target=write, daemon=True),
        threading.Thread(target=take, args=("out", process.stdout), daemon=True),
        threading.Thread(target=take, args=("err", process.stderr), daemon=True),
    ]
    for thread in threads:
        thread.start()
    process.wait()
    for thread in threads:
        thread.join()
    out, err = read["out"], read["err"]
    process.stdout.close()  # type: ignore[union-attr]
    process.stderr.close()  # type: ignore[union-attr]
    return subprocess.CompletedProcess(args, process.returncode, out, err)


#: Endless standard inputs: a document that never ends (a string, an array never closed, one line of
#: text), and NDJSON lines that never stop (``yes '{}'``, a payload per line).
DOCUMENTS = {
    "string": (b'"', b"a"),
    "open array": (b"", b"["),
    "text": (b"", b"y"),
    "object": (b'{"a": "', b"x"),
}
NDJSON = {
    "yes {}": b"{}\n",
    "yes payload": INVALID.read_bytes().replace(b"\n", b"") + b"\n",
    "crlf": b"{}\r\n",
}


def _document(kind: str) -> Iterator[bytes]:
    head, unit = DOCUMENTS[kind]
    yield head
    yield from endless(unit, 4 * LIMIT)


def _lines(kind: str) -> Iterator[bytes]:
    yield from endless(NDJSON[kind], (LINES + 10) * len(NDJSON[kind]))


def _over(kind: str) -> str:
    """What ends NDJSON lines of ``kind`` first: the count of lines, or of bytes (long lines)."""
    return OVER_LINES if LINES * len(NDJSON[kind]) <= LIMIT else OVER_BYTES


#: command -> (exit code, the line naming stdin (on stdout or stderr), the other input still read)
def _expected(over: str) -> dict[tuple[str, ...], tuple[int, str]]:
    return {
        ("validate", "--color", "never", "-", str(INVALID)): (1, f"<stdin>: (root): {over} [read-error]"),
        ("versions", "--color", "never", "-", str(INVALID)): (
            1,
            f"<stdin>: no Run:ai version: {over} [read-error]",
        ),
        ("coverage", "--color", "never", "-", str(INVALID)): (
            0,
            f"note: <stdin>: {over} (counted as unrecognised)",
        ),
        ("redact", "--check", "-", str(SECRET)): (1, f"Error: <stdin>: {over}"),
        ("redact", "-"): (1, f"Error: <stdin>: {over}"),
        ("changes", "--no-witnesses", "runai@2.18", "runai@2.19", "-", str(INVALID)): (
            2,
            f"Error: <stdin>: {over}; not counted",
        ),
    }


@pytest.mark.parametrize("kind", sorted(DOCUMENTS))
@pytest.mark.parametrize("args", list(_expected(OVER_BYTES)), ids=lambda a: " ".join(a[:2]))
def test_an_endless_document_on_stdin_ends_in_one_line_naming_it(args: tuple[str, ...], kind: str) -> None:
    code, line = _expected(OVER_BYTES)[args]
    result = run(list(args), _document(kind))
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == code, err
    assert "Traceback" not in err
    assert line in (out + err).splitlines()
    assert len(err.splitlines()) <= 1
    if args[-1] != "-" and args[0] in ("validate", "versions", "redact"):
        assert args[-1] in out + err  # (the other input was read)


@pytest.mark.parametrize("kind", sorted(NDJSON))
@pytest.mark.parametrize("args", list(_expected(OVER_LINES)), ids=lambda a: " ".join(a[:2]))
def test_endless_ndjson_on_stdin_ends_in_one_line_naming_it(args: tuple[str, ...], kind: str) -> None:
    code, line = _expected(_over(kind))[args]
    result = run(list(args), _lines(kind))
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == code, err
    assert "Traceback" not in err
    assert line in (out + err).splitlines()
    assert len(err.splitlines()) <= 1


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["diff", "--color", "never", "-", str(INVALID)], 2),
        (["diff", "--history", "-"], 2),
        (["diff", "--roles", "-"], 2),
        (["timeline", "-", str(INVALID)], 2),
    ],
)
@pytest.mark.parametrize("feed", ["document", "lines"])
def test_commands_that_read_stdin_whole_end_an_endless_one_alike(
    args: list[str], code: int, feed: str
) -> None:
    result = run(args, _document("string") if feed == "document" else endless(b"{}\n", 2 * LIMIT))
    err = result.stderr.decode()
    assert result.returncode == code
    assert err.splitlines()[-1:] == [f"Error: <stdin>: {OVER_BYTES}"]
    assert "Traceback" not in err


def test_the_shipped_limits_end_a_stream_of_lines_and_one_of_bytes() -> None:
    """The limits as shipped (no lowering): ``yes '{}'`` ends at :data:`STDIN_LINES` lines, a string
    that never closes at :data:`STDIN_LIMIT` bytes (redact --check: it holds a line at a time)."""
    lines = run(
        ["redact", "--check", "-"], endless(b"{}\n", 3 * (STDIN_LINES + 10)), STDIN_LIMIT, STDIN_LINES
    )
    assert lines.returncode == 1
    assert lines.stderr.decode().splitlines() == [
        f"Error: <stdin>: cannot read file: standard input holds more than {STDIN_LINES:,} lines (read no "
        "further): save it to a file and name the file"
    ]
    document = run(
        ["redact", "--check", "-"], endless(b"a", STDIN_LIMIT + (1 << 20)), STDIN_LIMIT, STDIN_LINES
    )
    assert document.returncode == 1
    assert document.stderr.decode().splitlines() == [
        f"Error: <stdin>: cannot read file: standard input holds more than {STDIN_LIMIT >> 20} MiB (read no "
        "further): save it to a file and name the file"
    ]


def test_a_stream_within_the_limits_is_read_as_ever() -> None:
    """Exactly :data:`LINES` lines, exactly :data:`LIMIT` bytes: read whole, no finding of size."""
    line = INVALID.read_bytes().replace(b"\n", b"") + b"\n"
    count = min(LINES, LIMIT // len(line))
    result = run(["validate", "--color", "never", "-"], iter([line * count]))
    assert result.returncode == 1
    out = result.stdout.decode()
    assert "read-error" not in out
    assert f"<stdin>:{count}:" in out
    body = b'"' + b"a" * (LIMIT - 2) + b'"'
    result = run(["redact", "--check", "-"], iter([body]))
    assert (result.returncode, result.stderr) == (0, b"")


class Chunked(io.RawIOBase):
    """``data`` given at most ``size`` bytes a read, counting what was taken."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.taken = data, size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: object) -> int:
        view = memoryview(buffer)  # type: ignore[arg-type]
        part = self.data[self.taken : self.taken + min(self.size, len(view))]
        view[: len(part)] = part
        self.taken += len(part)
        return len(part)


@settings(max_examples=80, derandomize=True, database=None)
@given(
    data=st.lists(
        st.sampled_from([b"{}\n", b"[1]\n", b"\n", b"a", b"\r\n", b'"x"', b"\x00"]), max_size=40
    ).map(b"".join),
    limit=st.integers(min_value=0, max_value=64),
    lines=st.integers(min_value=0, max_value=8),
    size=st.integers(min_value=1, max_value=16),
)
def test_bounded_gives_what_the_stream_holds_or_raises_past_a_limit(
    data: bytes, limit: int, lines: int, size: int
) -> None:
    """Whatever way it is read (whole, by lines, iterated), a :class:`Bounded` stream gives the bytes
    the stream holds when they are within both limits, else raises EFBIG having taken no more than
    one byte past the byte limit."""
    newlines = data.count(b"\n")
    within = len(data) <= limit and newlines <= lines
    for how in ("read", "readline", "iterate"):
        source = Chunked(data, size)
        stream = Bounded(io.BufferedReader(source, buffer_size=size), limit, lines)  # type: ignore[arg-type]
        got = b""
        try:
            if how == "read":
                got = stream.read()
            elif how == "readline":
                while part := stream.readline():
                    got += part
            else:
                got = b"".join(stream)
        except OSError as err:
            assert not within, (how, data, limit, lines)
            assert err.errno == 27  # EFBIG
        else:
            assert within or (how == "read" and len(data) <= limit), (how, data, limit, lines)
            assert got == data
        assert stream.given <= limit + 1


@settings(max_examples=40, derandomize=True, database=None)
@given(count=st.integers(min_value=0, max_value=12), lines=st.integers(min_value=1, max_value=10))
def test_stdin_payloads_end_at_the_line_limit_with_the_lines_before_it(count: int, lines: int) -> None:
    """NDJSON on a bounded stdin: every line within the limit is a payload as ever; past it, one
    read-error naming standard input, and nothing after it."""
    data = b"{}\n" * count
    stream = Bounded(io.BufferedReader(io.BytesIO(data)), 1 << 20, lines)  # type: ignore[arg-type]
    payloads = list(stdin_payloads(stream))  # type: ignore[arg-type]
    read_errors = [p for p in payloads if p.problems and p.problems[0].rule == "read-error"]
    if count <= lines:
        assert not read_errors
    else:
        assert [p.source for p in payloads[-1:]] == ["<stdin>"]
        assert len(read_errors) == 1
        assert len(payloads) - 1 <= lines


def test_the_limits_do_not_apply_to_files(tmp_path: Path) -> None:
    """A file has a size: one larger than the stdin limits is read whole (the limits are stdin's)."""
    path = tmp_path / "many.ndjson"
    path.write_bytes(b"{}\n" * (LINES + 5))
    result = run(["redact", "--check", str(path)], iter([b""]))
    assert (result.returncode, result.stderr) == (0, b"")


def test_an_endless_stdin_changes_no_input(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(INVALID.read_bytes())
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    run(["validate", "-", str(other)], _lines("yes {}"))
    run(["redact", "--check", "-", str(other)], _document("string"))
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    assert json.loads(other.read_bytes())


def test_module_limits_are_those_documented_here() -> None:
    assert (input_files.STDIN_LIMIT, input_files.STDIN_LINES) == (256 << 20, 250_000)


# A file whose name starts with a dash, given as it is: click reads it as options (``-dash.json`` is
# -d, -a, ...) and said "No such option '-d'", naming no file. Now the file is named, and how to give it.

DASH_COMMANDS = [
    ["validate"],
    ["versions"],
    ["coverage"],
    ["timeline"],
    ["redact", "--check"],
    ["redact"],
    ["diff", "--history"],
    ["changes", "runai@2.18", "runai@2.19"],
    ["schemas", "show"],
    ["serve"],
    ["record", "runai", "--url", "http://127.0.0.1:9", "--workload", "w", "-o", "out.ndjson"],
]


def _jobschema(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("command", DASH_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_file_named_like_an_option_is_named_with_how_to_give_it(command: list[str], tmp_path: Path) -> None:
    (tmp_path / "-dash.json").write_bytes(INVALID.read_bytes())
    before = (tmp_path / "-dash.json").read_bytes()
    result = _jobschema([*command, "-dash.json"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "Error: -dash.json: no such option; to read the file of this name, put -- before it or write "
        "./-dash.json"
    ]
    assert (tmp_path / "-dash.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["-dash.json"]


def test_the_ways_the_error_gives_read_the_file(tmp_path: Path) -> None:
    (tmp_path / "-dash.json").write_bytes(INVALID.read_bytes())
    for args in (
        ["validate", "--color", "never", "--", "-dash.json"],
        ["validate", "--color", "never", "./-dash.json"],
    ):
        result = _jobschema(args, tmp_path)
        assert result.returncode == 1
        assert "dash.json:" in result.stdout


@settings(max_examples=25, derandomize=True, database=None, deadline=None)
@given(
    name=st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00/"), min_size=1, max_size=12
    ).map(lambda tail: "-" + tail),
    exists=st.booleans(),
)
def test_an_unknown_option_names_the_file_only_when_one_is_named_so(name: str, exists: bool) -> None:
    """In process (click's own parsing): a dash-led argument that is no option of the command names
    the file when one of that name exists, else it is click's "No such option", one line either way."""
    import tempfile

    from click.testing import CliRunner

    from jobschema.cli import main
    from jobschema.text import visible

    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        if exists:
            try:
                Path(name).write_bytes(b"{}")
            except OSError:
                return
        result = CliRunner().invoke(main, ["validate", name], catch_exceptions=False)
    if result.exit_code == 0 or name in ("-h", "--help") or name.startswith(("-j", "-s", "-f", "-o", "-v")):
        return  # (an option of validate's: no error, or its own)
    lines = result.stderr.splitlines()
    assert result.exit_code == 2
    assert len(lines) == 1
    if exists:
        assert (
            lines[0].startswith(f"Error: {visible(name)}: no such option") or "No such option" not in lines[0]
        )
    else:
        assert "to read the file of this name" not in lines[0]


# A schema file (validate -s) whose $ref names another document: jsonschema-rs's default retriever
# read it, from any file (file:///dev/zero took the machine's memory: the kernel's OOM killer ended
# the run) or URL (an HTTP request to wherever the schema says). Every schema is now compiled by
# schemas.nodes.compiled, whose retriever refuses: one line, exit 2, nothing read or sent. Here the
# documents named are small and local, so the tests are bounded whatever the outcome.


def test_validate_reads_no_file_a_schema_refers_to(tmp_path: Path) -> None:
    target = tmp_path / "string.schema.json"
    target.write_text('{"type": "string"}')
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"$ref": target.as_uri()}))
    result = _jobschema(["validate", "--color", "never", "-s", str(schema), str(INVALID)], tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"Error: {schema}")
    assert "expected string" not in result.stdout  # (the referred schema was never applied)


def test_validate_sends_no_request_a_schema_refers_to(tmp_path: Path) -> None:
    with counting_server() as (url, asked):
        schema = tmp_path / "schema.json"
        schema.write_text(json.dumps({"$ref": f"{url}/s.json"}))
        result = _jobschema(["validate", "--color", "never", "-s", str(schema), str(INVALID)], tmp_path)
    assert asked == []
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1


# `-` given for a side file (a schema, a baseline, a config, credentials) named "No such file or
# directory", true of no file: it now says standard input is the captures' only, for every side file.
SIDE_DASH = [
    ["changes", "runai@2.18", "runai@2.19", "--baseline", "-"],
    ["serve", "--config", "-"],
]  # (a schema option reads `-` as a schema's name: "no such schema ... or give a schema file's path")


@pytest.mark.parametrize("args", SIDE_DASH, ids=[" ".join(args[:2]) for args in SIDE_DASH])
def test_a_dash_for_a_side_file_says_standard_input_is_for_captures(run_cli, args: list[str]) -> None:
    result = run_cli(args, code=2, input="{}")
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ") and "No such file" not in line
    assert line.endswith("standard input (-) is read for captures only, never for a side file: name a file")
