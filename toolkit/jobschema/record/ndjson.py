"""The NDJSON recording: one redacted response body per line, appended as it comes, resumable.

A body becomes a line (:func:`snapshot_line`): parsed, put on one line (a body the server wrote on
several is written again compactly), redacted by the secret policy and guarded (also as its decoded
strings: a credential a server wrote ``\\u``-escaped is found too), all in memory; only
then is it appended, the line and its newline in one write (:mod:`jobschema.record.files`).

Opening a file that holds lines already resumes it (:meth:`NdjsonWriter.open`): each job's last
snapshot there is where change detection picks up, and line numbers continue. A last line without
its newline is what an interrupted write leaves: when it parses as JSON it is kept and the newline
added; otherwise it is cut off. Either way a note says so, and the file is valid NDJSON again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobschema.inputs.files import named
from jobschema.inputs.parse import Parsed, decode, parse_bytes
from jobschema.record.files import OutputError, open_locked, read_all, truncate, write_record
from jobschema.record.guard import Guard
from jobschema.redact import redact_text

JobKey = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class Line:
    """A body ready to be written: its redacted text (one line, no newline) and its parsed value."""

    text: str
    value: Any


@dataclass(frozen=True)
class Unwritable:
    """Why a body cannot be written: not JSON, or the policy could not redact it."""

    message: str


def _refuse_if_not_a_recording(path: Path, lines: list[Parsed | None], tail: bytes) -> None:
    """:class:`~jobschema.record.files.OutputError` unless the file holds a recording: every whole
    line blank or :func:`readable`, and a last line without its newline either one too or the start
    of one an interrupted write left (``{`` first). Anything else is some other file, and appending
    to it (or cutting its last line off) would damage it."""
    for number, parsed in enumerate(lines, start=1):
        if parsed is not None and not readable(parsed):
            raise OutputError(f"{named(path)}: not an NDJSON recording (line {number} is {_NOT}); {_CHOOSE}")
    if tail.strip() and not tail.lstrip().startswith(b"{"):
        raise OutputError(f"{named(path)}: not an NDJSON recording (its last line is {_NOT}); {_CHOOSE}")


_NOT, _CHOOSE = "not a JSON object", "choose another -o file"


def readable(parsed: Parsed) -> bool:
    """A line resuming reads as a snapshot: a JSON object. The one test both for what is written
    (:func:`snapshot_line`) and for what a resumed file may hold, so no line written is refused."""
    return parsed.error is None and isinstance(parsed.value, dict)


def snapshot_line(body: bytes, guard: Guard) -> Line | Unwritable:
    """The body as a redacted NDJSON line; a body that is not a JSON object (``[]``, ``null``,
    ``42``) is no snapshot: resuming would refuse the file it was written to."""
    parsed = parse_bytes(body)
    if parsed.error is not None:
        return Unwritable(parsed.error.message)
    if not isinstance(parsed.value, dict):
        return Unwritable(f"{_NOT} ({_kind(parsed.value)})")
    text = decode(body)[0].strip()  # a BOM is dropped
    if "\n" in text or "\r" in text:
        text = json.dumps(parsed.value, ensure_ascii=False, separators=(",", ":"))
    redacted = redact_text(text, "json")
    if redacted.problems:
        return Unwritable(f"cannot be redacted: {redacted.problems[0].message}")
    clean = guard.clean_json(redacted.text)
    again = parse_bytes(_line_bytes(clean))  # exactly as resuming will read it
    if not readable(again):  # a guard mask cannot break JSON; refuse rather than write doubt
        return Unwritable(f"cannot be redacted: {again.error.message if again.error else _NOT}")
    return Line(clean, again.value)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    return "a boolean" if isinstance(value, bool) else "a number"


def _line_bytes(text: str) -> bytes:
    """A line's text as written (without its newline)."""
    return text.encode("utf-8", "backslashreplace")


@dataclass
class NdjsonWriter:
    """An NDJSON file open for appending, locked for this run."""

    path: Path
    fd: int
    lines: int = 0
    last: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, path: Path, job_key: JobKey) -> NdjsonWriter:
        """Open (or create) ``path``, repair a torn last line, and read where each job stands."""
        fd = open_locked(path, append=True)
        writer = cls(path, fd)
        try:
            writer._resume(read_all(fd, path), job_key)
        except BaseException:
            writer.close()
            raise
        return writer

    def _resume(self, data: bytes, job_key: JobKey) -> None:
        complete, newline, tail = data.rpartition(b"\n")
        before = (
            [parse_bytes(raw) if raw.strip() else None for raw in complete.split(b"\n")] if newline else []
        )
        parsed_lines: list[Parsed | None] = before if complete else []
        _refuse_if_not_a_recording(self.path, parsed_lines, tail)
        if tail.strip():  # (checked before anything is written: a file refused is left as it was)
            last = parse_bytes(tail)
            if last.error is None:
                write_record(self.fd, b"\n", self.path)
                self.notes.append(f"{named(self.path)}: its last line had no newline; added one")
                parsed_lines = [*before, last]  # (each line parsed once)
            else:
                truncate(self.fd, len(complete) + (1 if complete else 0), self.path)
                self.notes.append(
                    f"{named(self.path)}: cut off an incomplete last line ({len(tail)} bytes) "
                    "left by an interrupted write"
                )
        for parsed in parsed_lines:
            self.lines += 1
            key = job_key(parsed.value) if parsed is not None and parsed.error is None else None
            if key is not None and parsed is not None:
                self.last[key] = parsed.value

    def append(self, line: Line) -> int:
        """Append one line (with its newline, in one write); its line number in the file."""
        write_record(self.fd, _line_bytes(line.text) + b"\n", self.path)
        self.lines += 1
        return self.lines

    def close(self) -> None:
        """Close the file (every line is already written)."""
        import os

        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
