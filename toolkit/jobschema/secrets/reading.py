"""Every string read as what it may contain: the readers of the secret policy put together.

A text is read by each reader, and what is encoded inside it is decoded and read again, to
:data:`~jobschema.secrets.table.MAX_DEPTH` levels (a YAML inside base64 inside an env value inside
a command):

- token shapes and authorization schemes (:mod:`~jobschema.secrets.shapes`);
- credential names and the values they are given, in any syntax, and in prose
  (:mod:`~jobschema.secrets.named`);
- command lines (:mod:`~jobschema.secrets.commands`);
- documents and their places: JSON, YAML, Kubernetes Secrets, ``.netrc``, ``.pgpass``
  (:mod:`~jobschema.secrets.documents`);
- encodings: base64 (masked whole when it holds a secret), gzip, percent-encoding, escapes
  (:mod:`~jobschema.secrets.encodings`).

The work is linear in the text: each level reads what the level above decoded, and all levels
together read at most :data:`BUDGET_FACTOR` times the text's length.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from jobschema.secrets.mask import MASK_IN_TEXT, mask
from jobschema.secrets.table import MAX_DEPTH

if TYPE_CHECKING:
    pass

Span = tuple[int, int, bool]
#: How much of the policy :func:`find` applies (see there).
Level = Literal["full", "names", "shapes"]

#: All levels of one text read at most this many times its length (plus :data:`BUDGET_FLOOR`).
BUDGET_FACTOR = 16
BUDGET_FLOOR = 1 << 16
#: Texts up to this length have their spans remembered (keys, names and values repeat in captures).
SHORT = 256
_REMEMBERED: dict[str, tuple[Span, ...]] = {}
_REMEMBER_AT_MOST = 65536
_LAST: list[tuple[str, tuple[Span, ...]]] = []
_END = 2**63
#: Masks already in a text (also XML-escaped): never read again, so scrubbing twice is once.


def find(text: str, level: Level = "full", anchors: Sequence[int] | None = None) -> tuple[Span, ...]:
    """The secret parts of ``text``: ``(start, end, quoted)`` spans, sorted, not overlapping.

    ``level``: ``full`` reads everything; ``names`` shapes, names and commands, not documents or
    encodings; ``shapes`` token shapes only (one search on text without any). The last two are for
    the last pass over a whole rendered report, whose values were each read in full already.
    ``anchors`` (``shapes`` only): :func:`~jobschema.secrets.shapes.anchor_positions` of ``text``,
    when the caller has them."""
    if level == "shapes":
        from jobschema.secrets import shapes

        spans = shapes.token_spans(text, anchors)
        return tuple(_merge(spans, [m.span() for m in MASK_IN_TEXT.finditer(text)])) if spans else ()
    if level == "names":
        return _read(text, MAX_DEPTH, [0])
    if len(text) > SHORT:
        if _LAST and _LAST[0][0] is text:
            return _LAST[0][1]
        found = _read(text, 0, [BUDGET_FLOOR + BUDGET_FACTOR * len(text)])
        _LAST[:] = [(text, found)]
        return found
    remembered = _REMEMBERED.get(text)
    if remembered is None:
        if len(_REMEMBERED) >= _REMEMBER_AT_MOST:
            _REMEMBERED.clear()
        remembered = _REMEMBERED[text] = _read(text, 0, [BUDGET_FLOOR])
    return remembered


def may_hold_secret(text: str) -> bool:
    """True when ``text`` holds a secret (the spans are remembered for the :func:`scrub` after)."""
    return bool(find(text))


def _read(text: str, depth: int, budget: list[int]) -> tuple[Span, ...]:
    commands, encodings, named, shapes, read_documents, vectors = _readers()
    budget[0] -= len(text)
    by_command, views = commands.read(text)
    found = shapes.token_spans(text) + named.spans(text) + by_command + vectors.spans(text)
    if depth < MAX_DEPTH:  # the last level reads no document and decodes nothing
        by_place, in_documents = read_documents(text)
        found += by_place
        views += in_documents
    if depth < MAX_DEPTH and budget[0] > 0:
        for view in [*views, *encodings.views(text)]:
            if budget[0] <= 0:
                break
            found += [
                (*part, False)
                for start, end, _ in _read(view.text, depth + 1, budget)
                for part in view.parts(start, end)
            ]
    return tuple(_merge(found, [m.span() for m in MASK_IN_TEXT.finditer(text)]))


#: A text that takes every reader down each of its paths that imports a module (a document, a URL's
#: userinfo, a JWT, a shell command, an encoding, a mask): :func:`load_everything` scrubs it.
_EVERY_PATH = (
    "password: hunter2hunter2\nurl: https://u:Zq8xW2mKp4Lr@db.example.com/x\n"
    "token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRejd2SzJtWDlwTDR3UjgifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV\n"
    "run: mysql -u root -pZq8xW2mKp4Lr app && curl -H 'Authorization: Bearer Zq8xW2mKp4LrVb8nQ3xZ'\n"
    "b64: cGFzc3dvcmQ9WnE4eFcybUtwNExy"
)


def load_everything() -> None:
    """Import and build now everything reading and masking a text may load on first use: a server
    answering while its process has no file descriptor left cannot open a module's file to scrub its
    answer (it would answer 500)."""
    import importlib
    import pkgutil

    import jobschema.secrets

    for module in pkgutil.iter_modules(jobschema.secrets.__path__):
        importlib.import_module(f"jobschema.secrets.{module.name}")
    scrub(_EVERY_PATH)  # (reads it in full, then masks: every import of both)


@cache
def _readers() -> tuple[Any, Any, Any, Any, Any, Any]:
    """The readers, loaded on the first text read (start-up of a clean run does not pay for them)."""
    from jobschema.secrets import commands, encodings, named, shapes, vectors
    from jobschema.secrets.documents import read as read_documents

    return commands, encodings, named, shapes, read_documents, vectors


def _merge(spans: list[Span], masks: list[tuple[int, int]]) -> list[Span]:
    """``spans`` sorted, overlapping ones joined, those inside a mask dropped (``masks`` is sorted)."""
    merged: list[Span] = []
    for start, end, quoted in sorted(spans):
        if _inside(masks, start, end):
            continue
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2] and quoted)
        else:
            merged.append((start, end, quoted))
    return merged


def _inside(masks: list[tuple[int, int]], start: int, end: int) -> bool:
    """The span touches a mask already in the text (a text scrubbed twice is scrubbed once)."""
    index = max(0, bisect_right(masks, (start, _END)) - 1)
    while index < len(masks) and masks[index][0] < end:
        if masks[index][1] > start:
            return True
        index += 1
    return False


def scrub(
    text: str,
    escape: Callable[[str], str] | None = None,
    level: Level = "full",
    anchors: Sequence[int] | None = None,
) -> str:
    """``text`` with every secret part masked; every other character kept.

    ``escape`` is applied to each mask inserted (``xml.sax.saxutils.escape`` for XML text); ``level``
    and ``anchors`` as for :func:`find`.
    """
    return _masked(text, find(text, level, anchors), escape)


def _masked(text: str, spans: Sequence[Span], escape: Callable[[str], str] | None = None) -> str:
    """``text`` with each of ``spans`` (sorted, not overlapping) masked, ``escape`` applied to each
    mask; every other character kept."""
    if not spans:
        return text
    pieces, at = [], 0
    for start, end, quoted in spans:
        shown = mask(text[start:end])
        shown = f'"{shown}"' if quoted else shown
        pieces += [text[at:start], escape(shown) if escape else shown]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def scrub_path(text: str) -> str:
    """``text``, a file's name or a source that starts with one (``FILE:3``, ``FILE#2 GET URL``), as
    :func:`scrub` gives it, and each of its parts between ``/`` or ``\\`` read on its own too: a
    folder named ``bob:X@db.internal`` or ``--password X`` is no URL's path nor an option where the
    whole path is read as one word (``/tmp/--password X/a.json``). What either reading finds is
    masked (spans that overlap are one)."""
    return _masked(text, path_spans(text))


_PATH_PARTS = re.compile(r"([/\\])")


def path_spans(text: str) -> list[Span]:
    """The secret parts of ``text`` read whole (:func:`find`) and part by part between ``/`` or
    ``\\`` (:func:`scrub_path`), sorted; spans that overlap are one."""
    spans = find(text)
    if "/" not in text and "\\" not in text:
        return list(spans)
    parts: list[Span] = []
    at = 0
    for part in _PATH_PARTS.split(text):
        if len(part) > 1:
            parts += [(at + start, at + end, False) for start, end, _ in find(part)]
        at += len(part)
    # A value the whole reading runs over a separator (``/tmp/password=X/a.json``: an unquoted value
    # runs to a space) ends at the separator where its part's reading found it starting at the same
    # place: the folders and the file's name after it are shown. In a URL (``GET https://h/?t=a/b``)
    # the whole reading stands.
    starts = {start for start, _, _ in parts}
    whole = [span for span in spans if not _cut_by_separator(text, span, starts)]
    return _merge([*whole, *parts], [])  # (each part's reading already left out the masks in it)


_URL_BEFORE = re.compile(r"://\S*\Z")
#: A path's tail: a separator, then a file's name with an extension (and a line and column): a value
#: holding ``/`` that ends so ran over the path (a secret key's ``/``, ``wJalr…/K7MDENG/…``, does not).
_FILE_TAIL = re.compile(r"[/\\][^/\\\s]{0,255}\.[A-Za-z0-9]{1,10}(?::\d{1,9}){0,2}\Z")


def _cut_by_separator(text: str, span: Span, starts: set[int]) -> bool:
    """The whole reading's ``span`` runs over a path's separator to a file's name, a part's reading
    found a value starting where it starts, and it stands in no URL."""
    start, end, _ = span
    inside = text[start:end]
    return (
        start in starts
        and _FILE_TAIL.search(inside) is not None
        and _URL_BEFORE.search(text, max(0, start - 4096), start) is None
    )


#: A secret found in a value a user gave is masked wherever it stands in a message when it is this
#: long at least (a shorter one would garble the message's own words); shorter, where the whole value
#: stands.
QUOTED_SECRET_MIN = 6


def mask_given(message: str, given: Sequence[str]) -> str:
    """``message`` with every secret that reading finds in ``given`` (what a user typed: arguments,
    file names, options' values) masked wherever it stands: an error quotes a value in part or cut
    (``Invalid value for '--api-version': postgres://bob:X`` of ``postgres://bob:X@db``), where the
    message's own words (``--credentials FILE``) cannot be read as names."""
    for value in _with_values(given):
        if len(value) < 2 or len(value) > 65536:
            continue
        for start, end, _ in path_spans(value):  # (a path's folders each read on their own too)
            secret = value[start:end]
            if len(secret) >= QUOTED_SECRET_MIN or (value in message and len(secret) == len(value)):
                message = message.replace(secret, mask(secret))
    return message


def _with_values(given: Sequence[str]) -> list[str]:
    """``given``, and the value after the first and the last ``=`` of each (``--opt=API=VALUE``,
    ``runai=VALUE``): a message quotes the value alone, where reading the whole argument finds no
    option before it (``runai=--password X`` read whole is one word)."""
    values = list(given)
    for value in given:
        if "=" in value:
            values += dict.fromkeys((value.partition("=")[2], value.rpartition("=")[2]))
    return values


__all__ = ["find", "mask_given", "may_hold_secret", "scrub", "scrub_path"]
