"""The one way jobschema turns JSON bytes or text into a value.

Every reader goes through :func:`parse_bytes` (files, NDJSON lines, HAR bodies, diff inputs, redact)
or :func:`parse_text` (documents embedded in strings, such as AIHC's raw-request annotation). Both
return a :class:`Parsed`: the value, or a :class:`ParseError` with its line and column, and the keys
an object repeated. Nothing raises on bad data.

What the standard forbids or Python cannot hold is an error, never a silent reading: ``NaN`` and
``Infinity``, numbers that overflow a double (``1e400``), integers longer than Python converts
(4,300 digits), nesting deeper than the parser's recursion limit, bytes that are not UTF-8. A
duplicate key is not an error: the last value wins, :attr:`Parsed.duplicates` names the key and
:attr:`Parsed.repeated` its place and where its first value stands.

Speed: orjson parses first (about twice as fast as ``json.loads`` with a duplicate-key hook), and
the exact parser runs only where orjson could read the text differently (see :func:`fast_parse`).
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from typing import Any

import orjson

from jobschema.inputs.written import same_tokens

#: No value (yet): a parse that failed, or a value not read.
MISSING: Any = object()

BOM = b"\xef\xbb\xbf"
#: Escapes of ``0``-``9``, ``:`` and ``;<=>?``: a colon written escaped is not counted as one.
_ESCAPED_COLONS = b"\\u003"
#: How orjson writes a float of 1e16 or more, as an integer beyond 64 bits becomes.
_EXPONENT = b"e+"
#: What finds an unreadable literal in the text (compiled only when one is found).
_NON_JSON_LITERAL = r"(?<![\w\"])(NaN|-?Infinity)(?![\w\"])"
_NUMBER = r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class ParseError:
    """Why bytes or text are not a JSON value: the finding rule (``encoding`` or ``parse-error``),
    a one-line message, and where (1-based line and column in the text, when known)."""

    rule: str
    message: str
    line: int | None = None
    column: int | None = None

    @property
    def where(self) -> tuple[int, int] | None:
        """``(line, column)``, or ``None`` when the place is not known."""
        return (self.line, self.column) if self.line is not None and self.column is not None else None


@dataclass(frozen=True)
class Parsed:
    """The outcome of a parse: ``value`` (``MISSING`` on error), the ``error``, the repeated keys;
    ``indented`` when the text is exactly orjson's two-space writing of the value (the layout
    :func:`jobschema.inputs.locate.locate` can skip through without parsing)."""

    value: Any = MISSING
    error: ParseError | None = None
    duplicates: tuple[str, ...] = ()
    indented: bool = False
    #: Each repeated key's place in the value (its object's tokens and the key), and the line and
    #: column of its first value in the text (``None`` when not found); in the order found. A key
    #: repeated in an object that is itself not read (under a repeated key) has no place: not here.
    repeated: tuple[tuple[tuple[str | int, ...], tuple[int, int] | None], ...] = ()
    #: Where a string (or a key: the member's place) holds a lone surrogate (``"\\ud800"``, which
    #: JSON's grammar allows and no Unicode text holds), each with the first such escape.
    surrogates: tuple[tuple[tuple[str | int, ...], str], ...] = ()

    @property
    def ok(self) -> bool:
        """True when ``value`` holds the parsed document."""
        return self.error is None


#: How many bytes of a text are looked at for a NUL byte (one there: the text is binary).
BINARY_PROBE = 8192


def binary(data: bytes) -> bool:
    """True when ``data`` (its BOM dropped) is binary: a NUL byte in its first :data:`BINARY_PROBE`
    bytes. What follows them cannot change it, so a stream need not be read further to know."""
    return b"\x00" in data[len(BOM) if data.startswith(BOM) else 0 :][:BINARY_PROBE]


def decode(data: bytes) -> tuple[str, str | None]:
    """UTF-8 text of ``data`` (a BOM is dropped), or a problem: empty, text in another encoding
    (UTF-16 or UTF-32, as PowerShell 5's ``>`` writes), compressed, binary, not UTF-8 (named by the
    line and column of its first byte that is not, in its words: the problem is of the whole text, so
    the place is not the finding's own, as a line's column is not in :func:`line_problem`)."""
    data = data.removeprefix(BOM)
    if not data.strip():
        return "", "file is empty"
    if kind := packed(data):
        return "", f"file is {kind}"
    if binary(data):
        return "", "file is binary (it contains NUL bytes), not JSON text"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        line, column = _text_place(data, err.start)
        return "", f"file is not UTF-8: invalid byte 0x{data[err.start]:02x} at line {line}, column {column}"


def _text_place(data: bytes, at: int) -> tuple[int, int]:
    """``(line, column)``, 1-based, of byte ``at`` of ``data`` whose bytes before it are UTF-8 text:
    lines end at LF, and the column counts characters, as every column a report shows does."""
    start = data.rfind(b"\n", 0, at) + 1
    return data.count(b"\n", 0, at) + 1, len(data[start:at].decode("utf-8")) + 1


#: Byte order marks of the encodings JSON text is found in besides UTF-8 (UTF-32's before UTF-16's:
#: UTF-32LE's starts with UTF-16LE's).
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32LE"),
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe", "UTF-16LE"),
    (b"\xfe\xff", "UTF-16BE"),
)

#: Where the NUL bytes of text beginning with an ASCII character stand in its first four bytes.
_WIDE_ASCII = {
    (False, True, False, True): "UTF-16LE",
    (True, False, True, False): "UTF-16BE",
    (False, True, True, True): "UTF-32LE",
    (True, True, True, False): "UTF-32BE",
}

#: The first bytes of compressed files.
_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
#: How many first bytes :func:`packed` looks at (the longest mark above).
PACKED_PROBE = 6


def packed(data: bytes) -> str | None:
    """What ``data`` is when it is JSON text in another encoding or a compressed file, said so a
    user knows what to do (``UTF-16LE text, not UTF-8: save it as UTF-8``); None otherwise."""
    wide = next((name for mark, name in _WIDE_BOMS if data.startswith(mark)), None)
    if wide is None and len(data) >= 4:
        nuls = (data[0] == 0, data[1] == 0, data[2] == 0, data[3] == 0)
        wide = _WIDE_ASCII.get(nuls)
    if wide is not None:
        return f"{wide} text, not UTF-8: save it as UTF-8"
    for magic, kind in _COMPRESSED:
        if data.startswith(magic):
            return f"{kind}-compressed, not JSON text: decompress it first"
    return None


def line_problem(line: bytes) -> str | None:
    """:func:`decode`'s problem with one NDJSON line (its line end dropped) in a line's words: ``line
    is not UTF-8: invalid byte 0xe9 at column 4`` (a column in characters, as every column is, never
    an offset into the line), ``line is empty`` (a BOM alone); None when it is UTF-8 text."""
    line = line.removeprefix(BOM)
    if not line.strip():
        return "line is empty"
    if binary(line):
        return "line is binary (it contains NUL bytes), not JSON text"
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as err:
        column = len(line[: err.start].decode("utf-8")) + 1
        return f"line is not UTF-8: invalid byte 0x{line[err.start]:02x} at column {column}"
    return None


def parse_bytes(data: bytes) -> Parsed:
    """Parse a file's bytes (UTF-8; a leading BOM is dropped). Text too large to parse in the memory
    there is is an error of that text, never of the run."""
    try:
        return _parse_bytes(data)
    except MemoryError:
        return Parsed(error=ParseError("parse-error", TOO_LARGE))


#: What a text too large to parse in the memory available is.
TOO_LARGE = "too large to parse in the memory available"


def _parse_bytes(data: bytes) -> Parsed:
    body = data.removeprefix(BOM)
    value, written = _fast_parse(body)
    if value is not MISSING:
        return Parsed(value, indented=written and body[:2] in _INDENTED)
    text, problem = decode(data)
    if problem is not None:
        return Parsed(error=ParseError("encoding", problem))
    return parse_exactly(text)


def parse_text(text: str) -> Parsed:
    """Parse decoded text (a string holding a JSON document; a leading BOM, U+FEFF, is dropped, as
    it is from a file's bytes)."""
    text = text.removeprefix("\ufeff")
    value = fast_parse_text(text)
    return Parsed(value) if value is not MISSING else parse_exactly(text)


def fast_parse(data: bytes) -> Any:
    """What the exact parser gives, parsed by orjson, or ``MISSING`` when the exact parser must
    decide: text orjson rejects or reads differently, and text with a duplicate key.

    The parsed value is written back by orjson, in the text's layout (two-space indents or compact).
    Text that is exactly that writing is taken as it is: orjson wrote it from a value with no
    repeated key and reads it back unchanged (most captures: ``json.dumps(indent=2)``, ``jq``,
    ``jobschema record``). Any other text is checked:

    - Text that is that writing but for its whitespace (another indent, one line with spaces after
      the separators, CRLF line ends) has the same tokens: no pair was dropped.
    - Otherwise duplicate keys are ruled out by counting colons: every key of the text adds one outside
      strings, so the writing holds as many colons only when no pair was dropped (an escaped colon,
      ``\\u003a``, could hide one, so text with ``\\u003`` takes the exact path).
    - orjson makes an integer beyond 64 bits a float, and writes every float of 1e16 or more with an
      exponent (``1.8446744073709552e+19``): ``e+`` in the writing sends the text to the exact path
      (so does ``e+`` in a string, rarely). Floats of any length of digits orjson rounds as
      ``float()`` does (``tests/test_fast_paths.py``).
    """
    return _fast_parse(data)[0]


def _fast_parse(data: bytes) -> tuple[Any, bool]:
    """:func:`fast_parse`, and whether the text is exactly orjson's writing of the value."""
    try:
        value = orjson.loads(data)
        indented = data[1:4] == b"\n  " and data[4:5] != b" "  # (how orjson's two-space writing starts)
        again = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indented else 0)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # encoding fails past 255 levels
        return MISSING, False
    if _written_by_orjson(data, again):
        return value, True
    if same_tokens(data, orjson.dumps(value) if indented else again):
        return value, False
    if b"\\" in data and _ESCAPED_COLONS in data:  # (one byte is found at memchr speed; most
        return MISSING, False  # payloads have no backslash, so the slower search is rare)
    if (b"+" in again and _EXPONENT in again) or again.count(b":") != data.count(b":"):
        return MISSING, False
    return value, False


_INDENTED = (b"{\n", b"[\n")


def _written_by_orjson(data: bytes, again: bytes) -> bool:
    """True when ``data`` is ``again``, with or without one final newline (compared in place)."""
    extra = len(data) - len(again)
    return (extra == 0 or (extra == 1 and data.endswith(b"\n"))) and data.startswith(again)


def fast_parse_text(text: str) -> Any:
    """:func:`fast_parse` of a decoded text (``MISSING`` for a lone surrogate, which UTF-8 cannot hold)."""
    try:
        return fast_parse(text.encode("utf-8"))
    except UnicodeEncodeError:
        return MISSING


class _Duplicates:
    """``object_pairs_hook`` that builds dicts and remembers duplicate keys."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        #: Each object that repeats a key, with the key (each key once per object: objects are told
        #: apart by identity, as equal ones stand in different places).
        self.objects: list[tuple[dict[str, Any], str]] = []
        self._seen: set[tuple[int, str]] = set()

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.keys.append(key)
                    if (id(result), key) not in self._seen:
                        self._seen.add((id(result), key))
                        self.objects.append((result, key))
                seen.add(key)
        return result


def _repeated(text: str, value: Any, objects: list[tuple[dict[str, Any], str]]) -> Any:
    """:attr:`Parsed.repeated` of a text that repeats keys (rare: one walk of the value, and one
    search of the text for the first values)."""
    wanted = {id(found) for found, _key in objects}
    paths: dict[int, tuple[str | int, ...]] = {}
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack and len(paths) < len(wanted):
        node, path = stack.pop()
        if isinstance(node, dict):
            if id(node) in wanted:
                paths[id(node)] = path
            stack += [(child, (*path, key)) for key, child in node.items() if isinstance(child, dict | list)]
        elif isinstance(node, list):
            stack += [
                (child, (*path, index)) for index, child in enumerate(node) if isinstance(child, dict | list)
            ]
    places = [(*paths[id(found)], key) for found, key in objects if id(found) in paths]
    from jobschema.inputs.locate import locate  # only for a text that repeats a key

    firsts = locate(text, places, repeats=False)
    return tuple((place, firsts.get(tuple(map(str, place)))) for place in places)


class _Unreadable(ValueError):
    """A literal the text holds that is not a value jobschema can hold: its message, and a pattern
    (a regular expression's source) that finds it in the text (for its line and column)."""

    def __init__(self, message: str, literal: str) -> None:
        super().__init__(message)
        self.literal = literal


def _reject_constant(name: str) -> Any:
    raise _Unreadable(f"{name} is not a JSON value", _NON_JSON_LITERAL)


def _finite(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _Unreadable(f"number {_clip(literal)} is too large for a double (it overflows)", _NUMBER)
    return value


def _integer(literal: str) -> int:
    limit = sys.get_int_max_str_digits()
    digits = len(literal.lstrip("-"))
    if limit and digits > limit:
        raise _Unreadable(f"integer of {digits} digits is longer than {limit} digits", _NUMBER)
    return int(literal)


def _clip(literal: str) -> str:
    return literal if len(literal) <= 40 else literal[:39] + "…"


#: How deep a document may nest: orjson's limit, which the fast path cannot pass, held on the exact
#: path too, so that what parses does not depend on the interpreter (Python 3.11's parser stops
#: near its recursion limit, 1,000 frames; 3.12's and 3.13's go far deeper).
MAX_DEPTH = 1024
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')  # (a string never closed runs to the end)


def too_deep(text: str) -> bool:
    """True when ``text`` opens more than :data:`MAX_DEPTH` arrays or objects inside each other (one
    pass; strings are matched whole, so a bracket in one, or after a quote never closed, is no
    nesting: that text is the parser's error to name)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in "]}":
            depth -= 1
    return False


def parse_exactly(text: str) -> Parsed:
    """Parse with the standard library's parser, its hooks rejecting what jobschema cannot hold
    (and text nested deeper than :data:`MAX_DEPTH`)."""
    if too_deep(text):
        return Parsed(error=ParseError("parse-error", "invalid JSON: nested too deeply to parse"))
    hook = _Duplicates()
    try:
        value = json.loads(
            text,
            object_pairs_hook=hook,
            parse_constant=_reject_constant,
            parse_float=_finite,
            parse_int=_integer,
        )
    except json.JSONDecodeError as err:
        return Parsed(error=_decode_error(text, err))
    except _Unreadable as err:
        return Parsed(error=ParseError("parse-error", f"invalid JSON: {err}", *_find(text, err)))
    except RecursionError:
        return Parsed(error=ParseError("parse-error", "invalid JSON: nested too deeply to parse"))
    surrogates = _surrogates(value) if _MAY_HOLD_SURROGATE.search(text) else ()
    if not hook.keys:
        return Parsed(value, surrogates=surrogates)
    return Parsed(
        value,
        duplicates=tuple(dict.fromkeys(hook.keys)),
        repeated=_repeated(text, value, hook.objects),
        surrogates=surrogates,
    )


#: Text that may hold a lone surrogate: an escape of one, or (a decoded string) the character itself.
#: orjson refuses both, so only text on the exact parser's path is searched.
_MAY_HOLD_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogates(value: Any) -> tuple[tuple[tuple[str | int, ...], str], ...]:
    """:attr:`Parsed.surrogates` of a value (one walk; only for text that may hold one)."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if lone := _lone(node):
                found.append((path, lone))
        elif isinstance(node, dict):
            for key, child in node.items():
                if lone := _lone(key):
                    found.append(((*path, key), lone))
                stack.append((child, (*path, key)))
        elif isinstance(node, list):
            stack += [(child, (*path, index)) for index, child in enumerate(node)]
    return tuple(sorted(found, key=lambda item: [str(token) for token in item[0]]))


def _lone(text: str) -> str:
    """The escape of the first lone surrogate in ``text`` (``\\ud800``); empty when it has none (a
    surrogate pair read from two escapes is one character, never two here)."""
    match = _SURROGATE.search(text)
    return f"\\u{ord(match.group()):04x}" if match else ""


def _decode_error(text: str, err: json.JSONDecodeError) -> ParseError:
    """The parse error of text the parser stopped in, in its words or (JSON5's allowances) in ours."""
    lenient = _not_json_but_json5(text, err.pos)
    if lenient is not None:
        from jobschema.inputs.locate import line_column  # only for a text that does not parse

        return ParseError("parse-error", f"invalid JSON: {lenient[0]}", *line_column(text, lenient[1]))
    message = _SECOND_BOM if err.msg.startswith("Unexpected UTF-8 BOM") else err.msg
    return ParseError("parse-error", f"invalid JSON: {message}", err.lineno, err.colno)


def _not_json_but_json5(text: str, at: int) -> tuple[str, int] | None:
    """What JSON5, JSONC or a JavaScript literal allows and JSON does not, when that is what the
    parser stopped at (``at``): its words and where it stands (a trailing comma at the comma, not at
    the bracket after it); None for any other error, worded as the parser words it."""
    rest = text[at : at + 2]
    if rest in ("//", "/*"):
        return "a comment (JSON has none: remove it)", at
    if rest[:1] in ("}", "]"):
        before = len(text[:at].rstrip())
        if before and text[before - 1] == ",":
            return f"a trailing comma before '{rest[0]}' (JSON allows none: remove it)", before - 1
    if rest[:1] == "'":
        return "a string in single quotes (JSON strings take double quotes)", at
    if rest[:1].isalpha() or rest[:1] in ("_", "$"):
        word = re.match(r"[\w$]+", text[at : at + 64])
        if (
            word
            and word.group() not in ("true", "false", "null")
            and text[at + word.end() :].lstrip()[:1] == ":"
        ):
            return f"a key without quotes ({_clip(word.group())}: JSON keys take double quotes)", at
    return None


#: What Python's parser words as "Unexpected UTF-8 BOM (decode using utf-8-sig)": a BOM is dropped
#: from every text, so one still there is a second (and its advice is for Python's callers).
_SECOND_BOM = "Unexpected second byte order mark (U+FEFF)"


def _find(text: str, err: _Unreadable) -> tuple[int | None, int | None]:
    """Where the rejected literal stands: the first literal outside strings the parser rejects (one
    pass: strings are matched whole, so nothing inside one is taken for a literal)."""
    tokens = re.compile(rf'"(?:[^"\\]|\\.)*"|(?P<literal>{err.literal})')
    for match in tokens.finditer(text):
        literal = match.group("literal")
        if literal is not None and _rejected(literal):
            from jobschema.inputs.locate import line_column  # only for a file that does not parse

            return line_column(text, match.start())
    return None, None


def _rejected(literal: str) -> bool:
    if literal in ("NaN", "Infinity", "-Infinity"):
        return True
    try:
        _integer(literal) if _is_integer(literal) else _finite(literal)
    except _Unreadable:
        return True
    return False


def _is_integer(literal: str) -> bool:
    return not any(mark in literal for mark in ".eE")


# --- values given as values ------------------------------------------------------------------------

#: What a library caller's value can hold and still be JSON (subclasses too: an ``OrderedDict``, an
#: ``IntEnum``, a ``str`` subclass); a float must be finite.
_LEAVES = (str, int, float, type(None))
#: A place in a walked value: its parent's place and its key (``None`` at the root), linked, so a
#: place costs one tuple however deep it is (its tokens are read back only for the one reported).
_Trail = tuple[Any, Any] | None


def not_json(value: Any) -> tuple[tuple[str | int, ...], str] | None:
    """Where a value given to the library as a value (not JSON text) holds what JSON cannot, and
    what it is: a key that is no string (at its object), NaN or an infinity, a value of no JSON
    type (a set, bytes, a datetime, a tuple), a list or object that holds itself (a cycle); None for
    a JSON value. It is the parse such a value never had: when checking it fails on what it holds
    (:func:`jobschema.validate.session.payload_findings`), this names it, as a parse error would.
    One pass, any depth (the first problem in document order, an object's keys before its members);
    it costs more than a check, so it is never run on a value that checks."""
    stack: list[tuple[Any, _Trail, bool]] = [(value, None, False)]
    walking: set[int] = set()  # the containers from the root to the value being looked at
    while stack:
        item, trail, leaving = stack.pop()
        if leaving:
            walking.discard(id(item))
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return _tokens(trail), f"{_float_literal(item)} is not a JSON value"
        elif isinstance(item, dict | list):
            if id(item) in walking:
                return _tokens(trail), "the value contains itself (a cycle): JSON cannot hold it"
            key = _first_key_not_text(item) if isinstance(item, dict) else _NO_KEY
            if key is not _NO_KEY:
                return _tokens(trail), f"an object key of type {type(key).__name__} is not a string"
            walking.add(id(item))
            stack.append((item, trail, True))
            members = reversed(item.items()) if isinstance(item, dict) else reversed(list(enumerate(item)))
            stack.extend((child, (trail, key), False) for key, child in members)
        elif not isinstance(item, _LEAVES):
            return _tokens(trail), f"a value of type {type(item).__name__} is not a JSON value"
    return None


#: No key found (a key may be ``None``).
_NO_KEY = object()


def _first_key_not_text(item: dict[Any, Any]) -> Any:
    """The first key of ``item`` that is no string, :data:`_NO_KEY` when every one is."""
    return next((key for key in item if not isinstance(key, str)), _NO_KEY)


def _tokens(trail: _Trail) -> tuple[str | int, ...]:
    tokens: list[str | int] = []
    while trail is not None:
        trail, key = trail
        tokens.append(key)
    return tuple(reversed(tokens))


def _float_literal(value: float) -> str:
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
