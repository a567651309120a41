"""How values and names are shown to people, in every report: control characters escaped, ANSI
colour, counted nouns, compact JSON cut to a readable length, and readable paths of keys.

One place for each, so validate, diff and coverage spell a value, a count or a key the same way.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from json.encoder import encode_basestring_ascii
from typing import Any

#: ``paint(style, text)``: wraps ``text`` in an ANSI style, or returns it unchanged without colour.
Paint = Callable[[str, str], str]

BOLD, DIM, RED, GREEN, YELLOW, MAGENTA = "1", "2", "31", "32", "33", "35"

_SURROGATE = re.compile("[\ud800-\udfff]")
_BARE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def _ansi(style: str, text: str) -> str:
    return f"\x1b[{style}m{text}\x1b[0m"


def _plain(style: str, text: str) -> str:
    return text


def painter(color: bool) -> Paint:
    """The ANSI painter when ``color``, else the one that adds nothing."""
    return _ansi if color else _plain


def plural(count: int, noun: str) -> str:
    """``1 error``, ``0 errors``, ``2 errors``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


#: What ``ensure_ascii`` escapes that orjson writes as it is: DEL and every character beyond ASCII.
_NON_ASCII = re.compile("[^\x00-\x7e]+")


def ascii_escaped(text: str) -> str:
    """``text`` (JSON as orjson writes it) with DEL and every character beyond ASCII escaped as
    ``json.dumps(ensure_ascii=True)`` escapes them (``\\u00e9``, a surrogate pair beyond the BMP),
    each run of them by the standard library's own escaping, in C."""
    return text if text.isascii() and "\x7f" not in text else _NON_ASCII.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    return encode_basestring_ascii(match.group())[1:-1]  # (C; without the quotes it adds)


def compact(value: Any, limit: int = 60, *, sort_keys: bool = True, spaced: bool = False) -> str:
    """``value`` as one-line JSON cut to ``limit`` characters (0: never cut), ``…`` marking a cut.

    ``spaced`` puts a space after ``,`` and ``:``. A lone surrogate (which no encoding can hold) is
    written as its ``\\udXXX`` escape; a value JSON cannot write (a huge integer) or one nested deeper
    than :data:`MAX_SHOWN_DEPTH` is shown by its kind, ``<integer>``, ``<array>``.
    """
    separators = (", ", ": ") if spaced else (",", ":")
    if isinstance(value, dict | list) and _deeper_than(value, MAX_SHOWN_DEPTH):
        return f"<{json_type(value)}>"
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=separators)
        if _SURROGATE.search(text):
            text = json.dumps(value, sort_keys=sort_keys, separators=separators)
    except (TypeError, ValueError, RecursionError):
        text = f"<{json_type(value)}>"
    return text if not limit or len(text) <= limit else text[: limit - 1] + "…"


#: How deep a value :func:`compact` writes out; a deeper one is shown by its kind. Fixed, not left to
#: the interpreter: Python 3.11's encoder gives up near its recursion limit, 3.13's goes far deeper,
#: and a message must read the same on every Python.
MAX_SHOWN_DEPTH = 500


def _deeper_than(value: dict[str, Any] | list[Any], limit: int) -> bool:
    """True when ``value`` nests containers more than ``limit`` deep (one walk, no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


_JSON_TYPE: dict[type, str] = {dict: "object", list: "array", str: "string", type(None): "null"}


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (``null``, ``boolean``, ``integer``, ``number``,
    ``string``, ``array``, ``object``); a value JSON has no type for (a library caller's set) is a
    ``non-JSON value (set)``, never a bare Python type name."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number" if math.isfinite(value) else "non-JSON number"  # (NaN, Infinity: a caller's)
    for kind, name in _JSON_TYPE.items():
        if isinstance(value, kind):
            return name
    return f"non-JSON value ({type(value).__name__})"


def key_segment(key: str) -> str:
    """An object key as a segment of a readable path: bare when it is a plain name, else ``["quoted"]``."""
    return key if _BARE.fullmatch(key) else f"[{json.dumps(key, ensure_ascii=False)}]"


def join_path(segments: Sequence[str]) -> str:
    """``spec.compute.gpuPortionRequest``, ``pods[].objectMeta.labels{}``: dots only before bare names."""
    parts = [
        ("." if index and segment[0] not in "[{" else "") + segment for index, segment in enumerate(segments)
    ]
    return "".join(parts)


def _visible_table() -> dict[int, str]:
    table = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    # Line and paragraph separators, and the bidirectional overrides ("Trojan Source").
    for code in (0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[code] = f"\\u{code:04x}"
    # A byte of a name that was not UTF-8 (os.fsdecode's surrogateescape: 0xff is U+DCFF) as itself.
    table.update({code: f"\\x{code - 0xDC00:02x}" for code in range(0xDC80, 0xDD00)})
    return table


@cache
def _table(keep: str) -> dict[int, str]:
    return {code: escaped for code, escaped in _visible_table().items() if chr(code) not in keep}


def visible(text: str, keep: str = "") -> str:
    """Show control characters as escapes (``\\n``, ``\\x1b``) so one finding stays on one line and a
    payload cannot send terminal escape sequences; characters in ``keep`` are left alone. A byte of a
    file name that is not UTF-8 (``os.fsdecode`` holds ``0xff`` as U+DCFF) is shown as ``\\xff``,
    in every command's output, never as a surrogate's escape."""
    return text.translate(_table(keep))


#: What begins a CI runner's command at a log line's start, after blanks: ``::`` (GitHub Actions'
#: workflow commands), ``##[`` (Azure Pipelines' ``##[error]``, ``##[group]``...), ``--- ``,
#: ``+++ ``, ``~~~ `` and ``^^^ +++`` (Buildkite's groups), ``section_start:``/``section_end:``
#: (GitLab's, which also need an escape character, never shown raw), ``travis_fold:``.
COMMAND_START = re.compile(
    r"\s*(?:::|##\[|(?:---|\+\+\+|~~~)(?:\s|$)|\^\^\^ \+\+\+|section_(?:start|end):|travis_fold:)",
    re.IGNORECASE,
)
#: The commands CI runners read anywhere in a line: Azure Pipelines' ``##vso[...]`` and TeamCity's
#: ``##teamcity[...]``.
IN_LINE_COMMAND = re.compile(r"(##(?:vso|teamcity))\[", re.IGNORECASE)


def no_command_start(line: str) -> str:
    """``line`` unable to begin a CI runner's command (:data:`COMMAND_START`): its first character
    after blanks shown as its escape (``\\x3a:warning::``); any other line as it is."""
    if not COMMAND_START.match(line):
        return line
    at = len(line) - len(line.lstrip())
    return f"{line[:at]}\\x{ord(line[at]):02x}{line[at + 1 :]}"


def log_safe(document: str, *, json_text: bool = False) -> str:
    """A finished text or Markdown report (or, ``json_text``, a JSON document) that no CI runner
    reads as a command when it is printed to a CI log, whatever the payloads it shows hold: a line
    that would begin one (:data:`COMMAND_START`) gets its first character escaped, and the ``[`` of
    an in-line command (:data:`IN_LINE_COMMAND`) is written ``\\x5b`` (``\\u005b`` in JSON: the
    same document). For the formats whose own lines never begin a command (not GitHub's)."""
    if "##" in document:
        document = IN_LINE_COMMAND.sub(r"\1\\u005b" if json_text else r"\1\\x5b", document)
    if json_text:  # (a JSON line begins with blanks and a bracket, a quote or a literal)
        return document
    lines = document.split("\n")
    if any(COMMAND_START.match(line) for line in lines):
        document = "\n".join(map(no_command_start, lines))
    return document


#: What Markdown reads as syntax inside a line: backslash escapes, code, emphasis, links and images,
#: raw HTML and entities, a table's cell separator and strikethrough.
_MARKDOWN_SYNTAX = re.compile(r"([\\`*_\[\]<>&|~])")
_BACKTICKS = re.compile("`+")


def markdown_text(text: str) -> str:
    """``text`` shown as itself in a Markdown line or table cell: control characters escaped
    (:func:`visible`, so it stays one line) and every character Markdown reads as syntax
    backslash-escaped (CommonMark lets any ASCII punctuation be), so a payload's ``<img onerror>``,
    ``[x](javascript:…)``, backticks or ``|`` show as text, never as markup."""
    return _MARKDOWN_SYNTAX.sub(r"\\\1", visible(text))


def markdown_code(text: str) -> str:
    """``text`` as a Markdown code span, fit for a table cell: control characters escaped, ``|``
    escaped (a GitHub table splits a cell at one even in code), fenced by more backticks than the
    longest run inside it, and padded when it starts or ends with one."""
    shown = visible(text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(shown)), default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def strings(value: Any, name: str) -> tuple[str, ...]:
    """``value`` as the strings an option of several takes (job ids, ignore patterns): one ``str`` is
    one of them, never one per character (``ignore="/status"`` is not ``/``, ``s``, ``t``, ... of which
    ``/`` ignores every change); any other iterable is its items, each a ``str``. Anything else is a
    ``TypeError`` naming ``name``."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"{name}: expected a string or an iterable of strings, not {type(value).__name__}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name}: expected strings, not {type(item).__name__}")
    return items


def several(value: Any, name: str, what: str, hint: str = "") -> Iterable[Any]:
    """``value`` when it is an iterable of several ``what`` (read lazily: a generator stays one); a
    ``TypeError`` naming ``name`` for one item given in its place, whose iteration would be its
    characters or keys (a ``str``, ``bytes``, a mapping), and for anything that is not iterable;
    ``hint`` (what the caller offers for one) is added."""
    if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"{name}: expected an iterable of {what}, not {type(value).__name__}{hint}")
    return value
