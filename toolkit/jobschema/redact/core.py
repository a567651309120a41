"""Mask credentials in captures before they are committed: parsed payloads, JSON, NDJSON and HAR text.

A secret is masked with :func:`jobschema.secrets.mask` (``<secret:xxxxxxxx>``: a keyed hash, the same
within a run; idempotent; ``""`` stays ``""``). What is a secret is the secret policy's
(:mod:`jobschema.secrets`), as for every output of jobschema:

- places: fields the payload's schema marks ``"x-jobschema-secret": true`` (and everything below them;
  ``false`` keeps a credential-like name in the clear), members named like a credential holding a
  scalar, the ``value`` beside a credential-like ``name`` or ``key``, cookies, registry logins;
- shapes, in every other string: only the secret part is masked (``postgres://app:<secret:…>@db``);
- HAR files, whatever the endpoint: URLs, form bodies, JSON request and response bodies (base64 ones
  decoded, redacted and encoded again), other bodies (HTML, JavaScript) scrubbed by shape;
- inside embedded JSON text: the AIHC ``aijob.cce.baidubce.com/raw-request`` annotation, redacted as a
  document of its own, or masked whole when it does not parse (where its secrets are cannot be told).

Object keys are never rewritten: a key holding a secret shape is an error of the input
(:class:`SecretKeyError`), named by its object's pointer.

Pointers continue into embedded text, as validate's findings do:
``…/annotations/aijob.cce.baidubce.com~1raw-request/imagePullSecretPassword``,
``/log/entries/2/response/content/text/result/envs/5/value``.

Text is edited in place: only the masked values (and the embedded texts holding them) change, every
other byte is kept. When that cannot be done safely (duplicate keys), the redacted value is written
again in the input's style (indentation, separators, ASCII escapes, line ends, surrounding space).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jobschema.inputs.parse import decode, line_problem
from jobschema.redact.har import har_entries
from jobschema.redact.places import (
    NotJson,
    SecretKeyError,
    Unreadable,
    parse_document,
    redact_document,
    redact_payload,
    rewrite,
    unmasked_secrets,
)

Kind = Literal["json", "ndjson", "har"]

_BOM = "\ufeff"
_BOM_BYTES = _BOM.encode("utf-8")

__all__ = [
    "Kind",
    "Line",
    "Redacted",
    "Secret",
    "SecretKeyError",
    "Unreadable",
    "kind_of",
    "redact_bytes",
    "redact_ndjson",
    "redact_payload",
    "redact_text",
    "unmasked_secrets",
]


@dataclass(frozen=True)
class Secret:
    """A place that holds (or held) a secret in the clear: its JSON Pointer, and its NDJSON line."""

    pointer: str
    line: int | None = None

    def describe(self, source: str) -> str:
        """``FILE[:LINE]: POINTER: unmasked secret [redact]``; never the value."""
        where = f":{self.line}" if self.line is not None else ""
        return f"{source}{where}: {self.pointer or '(root)'}: unmasked secret [redact]"


@dataclass(frozen=True)
class Redacted:
    """The redacted text, where secrets were masked, and what could not be read.

    With problems, ``text`` is not fit to be written: unreadable parts are left as they were.
    """

    text: str
    secrets: tuple[Secret, ...] = ()
    problems: tuple[Unreadable, ...] = ()

    @property
    def changed(self) -> bool:
        """True when a secret was masked (so ``text`` differs from the input)."""
        return bool(self.secrets)


def kind_of(name: str) -> Kind:
    """The kind of input a file name says: ``ndjson`` (``.ndjson``/``.jsonl``), ``har``, else ``json``."""
    suffix = Path(name).suffix.lower()
    if suffix in (".ndjson", ".jsonl"):
        return "ndjson"
    return "har" if suffix == ".har" else "json"


def redact_bytes(data: bytes, kind: Kind = "json") -> Redacted:
    """:func:`redact_text` of a file's bytes (UTF-8; a BOM is kept)."""
    if kind == "ndjson":
        return _collect(redact_ndjson(io.BytesIO(data)))
    text, problem = decode(data)
    if problem is not None:
        return Redacted("", problems=(Unreadable(problem),))
    result = redact_text(text, kind)
    if not data.startswith(_BOM.encode("utf-8")):
        return result
    return Redacted(_BOM + result.text, result.secrets, result.problems)


def redact_text(text: str, kind: Kind = "json") -> Redacted:
    """Redact a JSON document (a HAR is recognised by its ``log.entries``), NDJSON lines, or a HAR."""
    try:
        if kind == "ndjson":
            return _redact_lines(text)
        return _redact_whole(text, kind)
    except RecursionError:
        return Redacted(text, problems=(Unreadable("nested too deeply to redact"),))


def _redact_whole(text: str, kind: Kind) -> Redacted:
    try:
        parsed = parse_document(text)
        if kind == "har" and har_entries(parsed.value) is None:
            return Redacted(text, problems=(Unreadable("not a HAR file: no log.entries array"),))
        new, found = rewrite(text, parsed, None)
    except NotJson as err:
        return Redacted(text, problems=(err.problem,))
    except SecretKeyError as err:
        return Redacted(text, problems=(Unreadable(str(err)),))
    return Redacted(new, tuple(Secret(pointer) for pointer in found))


def _redact_lines(text: str) -> Redacted:
    return _collect(redact_ndjson(io.BytesIO(text.encode("utf-8", "surrogatepass"))))


@dataclass(frozen=True)
class Line:
    """One NDJSON line redacted: its bytes (line end kept), the secrets masked, what could not be
    read (then ``data`` is the line as it was: not fit to be written)."""

    number: int
    data: bytes
    secrets: tuple[Secret, ...] = ()
    problem: Unreadable | None = None


def redact_ndjson(stream: Iterable[bytes]) -> Iterator[Line]:
    """Redact NDJSON one line at a time (a binary file, or any iterable of lines with their ends):
    memory stays that of the longest line, whatever the file's size. Blank lines are kept as they are;
    a line that is not UTF-8 or not JSON is a problem of that line only."""
    for number, raw in enumerate(stream, 1):
        yield _redact_line(number, raw)


def _redact_line(number: int, raw: bytes) -> Line:
    bom = _BOM_BYTES if number == 1 and raw.startswith(_BOM_BYTES) else b""
    line = raw[len(bom) :]
    body = line.removesuffix(b"\n").removesuffix(b"\r")
    if not body.strip():
        return Line(number, raw)
    outcome = _redact_body(number, body)
    if isinstance(outcome, Unreadable):
        return Line(number, raw, problem=outcome)
    new, found = outcome
    if not found:
        return Line(number, raw)
    data = bom + new.encode("utf-8", "surrogatepass") + line[len(body) :]
    return Line(number, data, tuple(Secret(pointer, number) for pointer in found))


def _redact_body(number: int, body: bytes) -> tuple[str, list[str]] | Unreadable:
    text, problem = _decode_line(body)
    if problem is not None:
        return Unreadable(problem, number)
    try:
        return redact_document(text, None)
    except NotJson as err:
        return Unreadable(err.problem.message, number, err.problem.column)
    except SecretKeyError as err:
        return Unreadable(str(err), number)
    except RecursionError:
        return Unreadable("nested too deeply to redact", number)


def _decode_line(body: bytes) -> tuple[str, str | None]:
    """The text of a line, or its problem worded as every command words it."""
    problem = line_problem(body)
    return ("", problem) if problem is not None else (body.decode("utf-8"), None)


def _collect(lines: Iterable[Line]) -> Redacted:
    """The lines of :func:`redact_ndjson` joined into one :class:`Redacted` (for texts that fit in memory)."""
    parts: list[str] = []
    secrets: list[Secret] = []
    problems: list[Unreadable] = []
    for line in lines:
        parts.append(line.data.decode("utf-8", "surrogatepass" if line.problem is None else "replace"))
        secrets += line.secrets
        if line.problem is not None:
            problems.append(line.problem)
    return Redacted("".join(parts), tuple(secrets), tuple(problems))
