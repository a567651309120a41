"""Turn command-line inputs into payloads: files, folders, quoted globs, ``-``, NDJSON lines, HAR entries.

Bad data never raises: a file that cannot be read or parsed becomes a payload carrying a parse
problem, and the other inputs go on. Only inputs that name nothing raise :class:`InputNotFound`.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from jobschema.errors import InputNotFound
from jobschema.inputs.locate import line_column

EXTENSIONS = (".json", ".ndjson", ".jsonl", ".har")
STDIN = "-"
MISSING: Any = object()  # no value (yet)

_BOM = b"\xef\xbb\xbf"
#: Digits to 0 and ``A`` to ``a``: one pass finds a long number and an escaped colon (``\u003a``).
_FOLD = bytes.maketrans(b"123456789A", b"000000000a")
_LONG_NUMBER = b"0" * 19
_ESCAPED_COLON = b"\\u000a"  # also \u000a, \u001a ... \u009a: rare, and they only take the exact path
_NON_JSON_LITERAL = re.compile(r"(?<![\w\"])(NaN|-?Infinity)(?![\w\"])")


@dataclass
class Payload:
    """One payload to check, or the reason it could not be read (``value`` is missing then).

    ``text`` is the JSON text the payload was parsed from (or ``raw``, its UTF-8 bytes, decoded only
    when a finding needs a line) and ``first_line`` its line in the file, for mapping pointers to
    lines; ``anchor`` fixes the location instead (HAR bodies).
    """

    source: str
    path: str | None
    value: Any = MISSING
    text: str | None = None
    raw: bytes | None = None
    first_line: int = 1
    schema: str | None = None
    problems: list[tuple[str, str, str, tuple[int, int] | None]] = field(default_factory=list)
    anchor: tuple[int, int] | None = None

    @property
    def parsed(self) -> bool:
        """True when ``value`` holds the parsed payload."""
        return self.value is not MISSING

    def json_text(self) -> str | None:
        """The JSON text of the payload, when it came from one."""
        if self.text is None and self.raw is not None:
            self.text = self.raw.decode("utf-8")
        return self.text

    def fail(self, rule: str, message: str, where: tuple[int, int] | None = None) -> Payload:
        """Record a problem that stops this payload from being checked."""
        self.problems.append((rule, message, "error", where))
        return self


@dataclass(frozen=True)
class Skipped:
    """An input entry that is not a payload (a HAR entry for another endpoint)."""

    source: str


def expand(inputs: Sequence[str]) -> list[str]:
    """Files to read, in order: folders walked recursively, quoted globs expanded, duplicates dropped."""
    files: list[str] = []
    for item in inputs:
        files.extend(_expand_one(item))
    return list(dict.fromkeys(files))


def _expand_one(item: str) -> list[str]:
    if item == STDIN:
        return [STDIN]
    path = Path(item)
    if path.is_dir():
        found = sorted(_walk(str(path)))
        if not found:
            raise InputNotFound(f"{item}: folder holds no *.json, *.ndjson, *.jsonl or *.har files")
        return found
    if path.exists():
        return [item]
    if glob.has_magic(item):
        found = sorted(p for p in glob.glob(item, recursive=True) if Path(p).is_file())  # noqa: PTH207 - absolute patterns
        if not found:
            raise InputNotFound(f"{item}: no file matches this pattern")
        return found
    raise InputNotFound(f"{item}: no such file or folder")


def _walk(folder: str) -> Iterator[str]:
    """The payload files below ``folder``, in no order (``os.scandir``: no extra ``stat`` per file)."""
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:  # an unreadable subfolder is skipped, as glob and rglob skip it
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif os.path.splitext(entry.name)[1].lower() in EXTENSIONS and entry.is_file():  # noqa: PTH122
                yield entry.path


def read_payloads(files: Sequence[str], stdin: BinaryIO | None = None) -> Iterator[Payload | Skipped]:
    """Yield the payloads (and skipped entries) of every file, in order."""
    for name in files:
        if name == STDIN:
            data = (stdin or sys.stdin.buffer).read()
            yield _document("<stdin>", None, data)
            continue
        suffix = os.path.splitext(name)[1].lower()  # noqa: PTH122 - no Path object per file
        if suffix in (".ndjson", ".jsonl"):
            yield from _ndjson(name)
        elif suffix == ".har":
            from jobschema.inputs.har import har_payloads

            yield from har_payloads(name, _read(name))
        else:
            yield _document(name, name, _read(name))


def _read(name: str) -> bytes | OSError:
    try:
        with open(name, "rb", buffering=0) as handle:  # noqa: PTH123 - unbuffered: half the cost of Path
            return handle.readall()
    except OSError as err:
        return err


def _document(source: str, path: str | None, data: bytes | OSError) -> Payload:
    payload = Payload(source, path)
    if isinstance(data, OSError):
        return payload.fail("read-error", f"cannot read file: {data.strerror or data}")
    body = data.removeprefix(_BOM)
    value = fast_parse(body)
    if value is not MISSING:
        payload.value, payload.raw = value, body
        return payload
    text, problem = decode(data)
    if problem is not None:
        return payload.fail("encoding", problem)
    payload.text = text
    return parse_exactly(payload, text)


def decode(data: bytes) -> tuple[str, str | None]:
    """UTF-8 text of ``data`` (a BOM is dropped), or a problem: empty, binary, not UTF-8."""
    data = data.removeprefix(_BOM)
    if not data.strip():
        return "", "file is empty"
    if b"\x00" in data[:8192]:
        return "", "file is binary (it contains NUL bytes), not JSON text"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        return "", f"file is not UTF-8: invalid byte 0x{data[err.start]:02x} at offset {err.start}"


class _Duplicates:
    """``object_pairs_hook`` that builds dicts and remembers duplicate keys."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.keys.append(key)
                seen.add(key)
        return result


def fast_parse(data: bytes) -> Any:
    """What ``json.loads(data)`` gives, parsed by orjson (about twice as fast as the duplicate-key hook),
    or ``MISSING`` when the exact parser must decide: text orjson rejects or might read differently
    (integers of 19+ digits become floats there; lone surrogates), and text with a duplicate key.

    Duplicate keys are ruled out by counting colons: every key of the text adds one outside strings,
    so re-serialising the parsed value gives as many colons only when no pair was dropped (an escaped
    colon, ``\\u003a``, could hide one, so such text takes the exact path).
    """
    folded = data.translate(_FOLD, b":")  # one pass: folds, and its length tells the colons
    if _LONG_NUMBER in folded or _ESCAPED_COLON in folded:  # (a removed colon only joins digit runs)
        return MISSING
    import orjson

    try:
        value = orjson.loads(data)
        same = orjson.dumps(value).count(b":") == len(data) - len(folded)
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # encoding fails past 255 levels
        return MISSING
    return value if same else MISSING


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def fast_parse_text(text: str) -> Any:
    """:func:`fast_parse` of a decoded text (``MISSING`` for a lone surrogate, which UTF-8 cannot hold)."""
    try:
        return fast_parse(text.encode("utf-8"))
    except UnicodeEncodeError:
        return MISSING


def parse_into(payload: Payload, text: str) -> Payload:
    """Parse ``text`` into ``payload.value``, recording parse problems and duplicate keys."""
    value = fast_parse_text(text)
    if value is not MISSING:
        payload.value = value
        return payload
    return parse_exactly(payload, text)


def parse_exactly(payload: Payload, text: str) -> Payload:
    """:func:`parse_into` with the standard library's parser and a duplicate-key hook only."""
    hook = _Duplicates()
    try:
        payload.value = json.loads(text, object_pairs_hook=hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        return payload.fail("parse-error", f"invalid JSON: {err.msg}", (err.lineno, err.colno))
    except ValueError as err:
        match = _NON_JSON_LITERAL.search(text)
        where = line_column(text, match.start()) if match else None
        return payload.fail("parse-error", f"invalid JSON: {err} is not a JSON value", where)
    except RecursionError:
        return payload.fail("parse-error", "invalid JSON: nested too deeply to parse")
    for key in dict.fromkeys(hook.keys):
        payload.problems.append(
            ("duplicate-key", f"duplicate key {json.dumps(key)}; the last one wins", "warning", None)
        )
    return payload


def _ndjson(name: str) -> Iterator[Payload]:
    try:
        handle = Path(name).open("rb")  # noqa: SIM115 - streamed line by line below
    except OSError as err:
        yield Payload(name, name).fail("read-error", f"cannot read file: {err.strerror or err}")
        return
    with handle:
        for number, line in enumerate(handle, start=1):
            raw = line.rstrip(b"\r\n")
            if not raw.strip():
                continue
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            payload = _document(f"{name}:{number}", name, raw)
            payload.first_line = number
            yield payload
