"""What a reader yields: a :class:`Payload` to check (or the reason it could not be read), or a
:class:`Skipped` entry that is not a payload (a HAR entry for another endpoint)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jobschema.findings import Finding, problem
from jobschema.inputs.parse import MISSING, Parsed


@dataclass
class Payload:
    """One payload to check, or the reason it could not be read (``value`` is missing then).

    ``text`` is the JSON text the payload was parsed from (or ``raw``, its UTF-8 bytes, decoded only
    when a finding needs a line) and ``first_line`` its line in the file, for mapping pointers to
    lines; ``anchor`` fixes the location instead (HAR bodies). ``problems`` are the findings of
    reading it (line and column relative to its text). ``indented``: the text is exactly orjson's
    two-space writing of the value (:attr:`jobschema.inputs.parse.Parsed.indented`); ``repeats``: its
    text repeats a key (its findings are placed at the values read, the last). ``api_version``:
    the version of the API that answered, as the capture says it (the ``version`` of a Run:ai
    cluster answer in the same HAR, ``2.19.3``), None when it does not say.
    """

    source: str
    path: str | None
    value: Any = MISSING
    text: str | None = None
    raw: bytes | None = None
    first_line: int = 1
    schema: str | None = None
    problems: list[Finding] = field(default_factory=list)
    anchor: tuple[int, int] | None = None
    indented: bool = False
    api_version: str | None = None
    repeats: bool = False

    @property
    def parsed(self) -> bool:
        """True when ``value`` holds the parsed payload."""
        return self.value is not MISSING

    def json_text(self) -> str | None:
        """The JSON text of the payload, when it came from one."""
        if self.text is None and self.raw is not None:
            self.text = self.raw.decode("utf-8")
        return self.text

    def fail(self, rule: str, message: str, where: tuple[int | None, int | None] = (None, None)) -> Payload:
        """Record a problem that stops this payload from being checked."""
        self.problems.append(Finding("", (), message, rule, line=where[0], column=where[1]))
        return self

    def take(self, parsed: Parsed) -> Payload:
        """Keep the outcome of parsing the payload: its value, or the error; repeated keys warn."""
        if parsed.error is not None:
            error = parsed.error
            return self.fail(error.rule, error.message, (error.line, error.column))
        self.value = parsed.value
        self.indented = parsed.indented
        self.repeats = bool(parsed.duplicates)
        self.problems += duplicate_keys(parsed)
        self.problems += lone_surrogates(parsed)
        return self

    @property
    def fixed(self) -> tuple[int, int] | None:
        """Where the first reading problem stands, when it has a place (it then places every finding)."""
        for found in self.problems:
            if found.line is not None and found.column is not None:
                return found.line, found.column
        return None


@dataclass(frozen=True)
class Skipped:
    """An input entry that is not a payload (a HAR entry for another endpoint)."""

    source: str


def duplicate_keys(parsed: Parsed) -> list[Finding]:
    """A ``duplicate-key`` warning for each key ``parsed`` repeats in an object (of a payload, or of
    a document embedded in one), at the key's place (so placed at its last value, the one read) and
    saying where its first value stands in the text: a second ``status`` hides the first, and both
    are named. A key repeated where no value is read (in an object under a repeated key) warns at the
    root, as it cannot be placed."""
    found = [
        problem(
            tokens,
            f"duplicate key {json.dumps(tokens[-1])}; the last one wins{_first(at)}",
            "duplicate-key",
            "warning",
        )
        for tokens, at in parsed.repeated
    ]
    placed = {tokens[-1] for tokens, _at in parsed.repeated}
    unplaced = [key for key in parsed.duplicates if key not in placed]
    return found + [
        problem((), f"duplicate key {json.dumps(key)}; the last one wins", "duplicate-key", "warning")
        for key in unplaced
    ]


def _first(at: tuple[int, int] | None) -> str:
    """Where the first value of a repeated key stands: ``(the first at line 3, column 5)``; the column
    alone in a text of one line (an NDJSON line: its line is the payload's)."""
    if at is None:
        return ""
    line, column = at
    return f" (the first at line {line}, column {column})" if line > 1 else f" (the first at column {column})"


def lone_surrogates(parsed: Parsed) -> list[Finding]:
    """A ``lone-surrogate`` warning for each string (or key) ``parsed`` holds a lone surrogate in:
    JSON's grammar allows the escape, but it is no Unicode character, and readers differ (Go and
    Rust read U+FFFD in its place, Python and JavaScript keep it): which text the API meant is
    unclear."""
    return [
        problem(
            tokens,
            f"a lone surrogate ({escape}) is no Unicode character: Go and Rust read U+FFFD, Python "
            "and JavaScript keep it",
            "lone-surrogate",
            "warning",
        )
        for tokens, escape in parsed.surrogates
    ]
