"""Reading the documents to compare: a file or ``-``, parsed strictly, with one-line errors.

A diff needs a document's value, not the names of the keys it repeats (validate reports those), so a
document is parsed by orjson alone wherever orjson reads the value the exact parser would: everywhere
but in text holding a run of 19 digits (an integer orjson could read as a float) or what orjson
rejects (then :func:`jobschema.inputs.parse.parse_bytes` decides, and names the problem). A repeated
key reads the same in both: the last value, at the place of the first (``tests/test_diff_reading.py``
proves it). Reading holds the text and its value only, no copy of the text.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from jobschema.errors import ToolkitError
from jobschema.inputs.files import named, read_bytes
from jobschema.inputs.parse import BOM, MISSING, parse_bytes
from jobschema.inputs.side import read_error

#: Digits folded to ``0``: a run of 19 of them may be an integer orjson reads as a float.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19
#: Text is folded a slice at a time (a slice stays in the CPU's cache, and no copy of the text is made).
_SLICE = 1 << 16


class DiffInputError(ToolkitError):
    """An input of ``jobschema diff`` that cannot be read or parsed (exit 2)."""


def read_document_bytes(name: str, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of file ``name`` (``-``: standard input); raises :class:`DiffInputError`."""
    data = read_bytes(name, stdin)
    if isinstance(data, FileNotFoundError) and not os.path.islink(name):  # noqa: PTH114
        raise DiffInputError(f"{named(name)}: no such file")
    if isinstance(data, OSError):
        reason = read_error(name, data) if os.path.islink(name) else data.strerror or data  # noqa: PTH114
        raise DiffInputError(f"{named(name)}: cannot read file: {reason}")
    return data


def parse_document(name: str, data: bytes, line: int | None = None) -> Any:
    """The JSON value in ``data``; raises :class:`DiffInputError` naming ``name`` and the problem.

    ``line`` is the line of ``data`` in its file (NDJSON), so positions read ``name:LINE:COL``.
    """
    value = document_value(data)
    if value is not MISSING:
        return value
    parsed = parse_bytes(data)
    error = parsed.error
    if error is None:
        return parsed.value
    if error.line is not None:
        place = f":{error.line + (line or 1) - 1}" + (f":{error.column}" if error.column else "")
    else:
        place = f":{line}" if line else ""
    message = error.message
    if line is None and message == _EXTRA and error.line is not None and error.line > 1:
        message += f" (a value a line is NDJSON: diff --history {named(name)} compares its lines)"
    raise DiffInputError(f"{named(name)}{place}: {message}")


#: How the parser words a text that goes on after its value.
_EXTRA = "invalid JSON: Extra data"


def document_value(data: bytes) -> Any:
    """The value the exact parser reads from ``data`` (repeated keys: the last value wins), parsed by
    orjson; ``MISSING`` where the exact parser must decide (a run of 19 digits, text orjson rejects)."""
    data = data.removeprefix(BOM)
    if _long_number(data):
        return MISSING
    import orjson

    try:
        with collector_paused():
            return orjson.loads(data)
    except orjson.JSONDecodeError:
        return MISSING


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (and restored as it was): parsed JSON holds no cycle,
    and every collection while a large document is built would scan all of it again (at 10,000 pods
    that is four tenths of the parse)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _long_number(data: bytes) -> bool:
    """True when ``data`` holds a run of 19 digits (slices overlap by 18 bytes, so none is missed)."""
    overlap = len(_LONG_NUMBER) - 1
    return any(
        _LONG_NUMBER in data[start : start + _SLICE + overlap].translate(_DIGITS)
        for start in range(0, len(data), _SLICE)
    )


def load_document(name: str, stdin: BinaryIO | None = None) -> Any:
    """Read and parse one document."""
    return parse_document(name, read_document_bytes(name, stdin))
