"""Turn the files of an :class:`~jobschema.inputs.files.Expansion` into payloads, in order: JSON
documents, NDJSON lines (streamed), HAR entries, standard input.

Standard input (``-``) is one JSON document, or NDJSON when it is one: its first line holds a whole
JSON object or array on its own and another non-blank line follows. NDJSON on stdin is read as a
stream, one line at a time, its payloads named ``<stdin>:LINE``; a document is read whole.

Bad data never raises: a file that cannot be read or parsed becomes a payload carrying the problem,
and the other inputs go on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO

from jobschema.inputs.files import (
    STDIN,
    STDIN_NAME,
    STREAM_PROBE,
    open_file,
    problem_text,
    read_bytes,
    read_stream,
    standard_input,
    too_large,
)
from jobschema.inputs.parse import BOM, PACKED_PROBE, binary, line_problem, packed, parse_bytes
from jobschema.inputs.payload import Payload, Skipped

if TYPE_CHECKING:
    from jobschema.inputs.split import Part

NDJSON_SUFFIXES = (".ndjson", ".jsonl")
#: The read buffer of an NDJSON stream: lines are split in the buffer, so one as large as a typical
#: line (kilobytes) makes Python read and join each line in pieces; 1 MiB reads them 8x faster.
LINE_BUFFER = 2**20


def read_payloads(files: Sequence[str | Part], stdin: BinaryIO | None = None) -> Iterator[Payload | Skipped]:
    """Yield the payloads (and skipped entries) of every file (or part of an NDJSON file), in order."""
    for name in files:
        if not isinstance(name, str):
            yield from ndjson_payloads(name.name, name)
            continue
        if name == STDIN:
            try:
                stream = stdin or standard_input()
            except OSError as err:
                yield document(STDIN_NAME, None, err)
                continue
            yield from stdin_payloads(stream)
            continue
        suffix = os.path.splitext(name)[1].lower()  # noqa: PTH122 - no Path object per file
        if suffix in NDJSON_SUFFIXES:
            yield from ndjson_payloads(name)
        elif suffix == ".har":
            from jobschema.inputs.har import har_payloads

            yield from har_payloads(name, read_bytes(name))
        else:
            yield document(name, name, read_bytes(name))


def stdin_payloads(stream: BinaryIO) -> Iterator[Payload | Skipped]:
    """The payloads of standard input: NDJSON lines as they arrive, a HAR's entries, or one JSON
    document."""
    try:
        sniffed = sniff_stdin(stream)
        if not sniffed.ndjson:
            whole = sniffed.whole()
            if _is_har(whole):  # (a HAR piped in is read as a *.har file is, as timeline reads it)
                from jobschema.inputs.har import har_payloads

                yield from har_payloads(STDIN_NAME, whole)
                return
            yield document(STDIN_NAME, None, whole)
            return
        for number, line in enumerate(sniffed.lines(), start=1):
            if line.strip():
                yield line_payload(STDIN_NAME, None, line, number)
    except OSError as err:
        yield document(STDIN_NAME, None, err)
    except MemoryError:  # (a line too large to hold)
        yield document(STDIN_NAME, None, too_large())


def _is_har(data: bytes) -> bool:
    """Whether standard input's one document is a HAR (a ``log`` object with an ``entries`` array,
    what ``timeline`` and ``redact`` recognise one by; no job answer has a top-level ``log``). Parsed
    only when both names occur in it."""
    if b'"log"' not in data or b'"entries"' not in data:
        return False
    from jobschema.inputs.har import is_har

    parsed = parse_bytes(data)
    return parsed.ok and is_har(parsed.value)


@dataclass(frozen=True)
class Sniffed:
    """Standard input after deciding what it holds: the lines read to decide, and the rest unread."""

    ndjson: bool
    head: tuple[bytes, ...]
    rest: BinaryIO

    def lines(self) -> Iterator[bytes]:
        """Every line of the input, line ends kept: those read to decide, then the rest as it arrives."""
        yield from self.head
        yield from self.rest

    def whole(self) -> bytes:
        """Every byte of the input (for a document, read whole), or only its start when that shows
        it binary (:func:`jobschema.inputs.files.read_stream`). Raises :class:`OSError`."""
        return read_stream(self.rest, b"".join(self.head))


def sniff_stdin(stream: BinaryIO) -> Sniffed:
    """Read as much of ``stream`` as it takes to tell NDJSON from one document: NDJSON when its first
    line holds a whole JSON object or array on its own and another non-blank line follows (a JSON
    document cannot: that would be extra data after the first value). Raises :class:`OSError`.

    The first line is read no further than its start when that shows the input binary (a NUL in
    it): it is no JSON line, and the rest of a stream of such bytes may never end."""
    first = stream.readline(STREAM_PROBE)
    if len(first) == STREAM_PROBE and not first.endswith(b"\n") and not binary(first):
        first += stream.readline()
    head = [first]
    if not whole_line(first):
        return Sniffed(False, tuple(head), stream)
    while line := stream.readline():
        head.append(line)
        if line.strip():
            return Sniffed(True, tuple(head), stream)
    return Sniffed(False, tuple(head), stream)


def whole_line(line: bytes) -> bool:
    """A line that holds a whole JSON object or array (the first line of NDJSON, not of a document)."""
    text = line.strip().removeprefix(BOM)
    if text[:1] not in (b"{", b"[") or text[-1:] not in (b"}", b"]"):
        return False
    return parse_bytes(text).error is None


def line_payload(name: str, path: str | None, line: bytes, number: int) -> Payload:
    """The payload of line ``number`` of the NDJSON file ``name`` (source ``name:LINE``), a problem
    with its bytes worded as a line's (:func:`~jobschema.inputs.parse.line_problem`)."""
    body = line.rstrip(b"\r\n")
    payload = document(f"{name}:{number}", path, body)
    payload.first_line = number
    if payload.problems and payload.problems[0].rule == "encoding":
        found = payload.problems[0]
        payload.problems[0] = replace(found, message=line_problem(body) or found.message)
    return payload


def document(source: str, path: str | None, data: bytes | OSError) -> Payload:
    """The payload of one JSON document's bytes (or of the error that stopped reading them)."""
    payload = Payload(source, path)
    if isinstance(data, OSError):
        return payload.fail("read-error", problem_text(data))
    parsed = parse_bytes(data)
    if parsed.error is None or parsed.error.rule != "encoding":
        payload.raw = data.removeprefix(BOM)  # UTF-8 text: decoded only when a finding needs a line
    return payload.take(parsed)


def ndjson_payloads(name: str, part: Part | None = None) -> Iterator[Payload]:
    """One payload per non-blank line of an NDJSON file (or of ``part`` of it), read as a stream;
    sources ``name:LINE``."""
    stream = open_file(name, buffering=LINE_BUFFER)
    if isinstance(stream, OSError):
        yield Payload(name, name).fail("read-error", problem_text(stream))
        return
    with stream:
        kind = packed(_head(stream)) if part is None else None
        if kind is not None:  # (one line naming the file, as a JSON file of these bytes has: not a
            yield Payload(name, name).fail("encoding", f"file is {kind}")  # line's finding per line)
            return
        lines: Iterator[bytes] = iter(stream)
        if part is not None:
            stream.seek(part.start)
            if part.end is not None:
                lines = _within(stream, part.end - part.start)
        yield from _line_payloads(name, lines, 1 if part is None else part.first_line)


def _head(stream: BinaryIO) -> bytes:
    """The first bytes of a file just opened (:data:`~jobschema.inputs.parse.PACKED_PROBE`), the
    stream left at its start: peeked from its buffer, no read of its own."""
    peek = getattr(stream, "peek", None)
    if peek is not None:
        return bytes(peek(PACKED_PROBE)[:PACKED_PROBE])
    head = stream.read(PACKED_PROBE)
    stream.seek(0)
    return head


def _line_payloads(name: str, lines: Iterator[bytes], first: int) -> Iterator[Payload]:
    """The payloads of ``lines`` of the NDJSON file ``name``, the first numbered ``first``. A line too
    large to hold is that line's finding, and the file's last (where the next one starts is unknown)."""
    number = first - 1
    try:
        for number, line in enumerate(lines, first):  # (the last number is read below)
            raw = line.rstrip(b"\r\n")
            if raw.strip():
                yield line_payload(name, name, raw, number)
    except MemoryError:
        yield Payload(f"{name}:{number + 1}", name).fail("read-error", problem_text(too_large()))


def _within(stream: BinaryIO, budget: int) -> Iterator[bytes]:
    """The lines of ``stream`` that start in its next ``budget`` bytes."""
    for line in stream:
        yield line
        budget -= len(line)
        if budget <= 0:
            return
