"""Reading the documents to compare: a file or ``-``, parsed strictly, with one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, BinaryIO

from jobschema.errors import ToolkitError
from jobschema.inputs.loader import Payload, decode, parse_into


class DiffInputError(ToolkitError):
    """An input of ``jobschema diff`` that cannot be read or parsed (exit 2)."""


def read_bytes(name: str, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of file ``name`` (``-``: standard input)."""
    if name == "-":
        return (stdin or sys.stdin.buffer).read()
    path = Path(name)
    if not path.is_file():
        raise DiffInputError(f"{name}: no such file")
    try:
        return path.read_bytes()
    except OSError as err:
        raise DiffInputError(f"{name}: cannot read file: {err.strerror or err}") from err


def parse_document(name: str, data: bytes, line: int | None = None) -> Any:
    """The JSON value in ``data``; raises :class:`DiffInputError` naming ``name`` and the problem.

    ``line`` is the line of ``data`` in its file (NDJSON), so positions read ``name:LINE:COL``.
    """
    shown = "<stdin>" if name == "-" else name
    text, problem = decode(data)
    if problem is not None:
        raise DiffInputError(f"{shown}: {problem}")
    payload = parse_into(Payload(shown, None), text)
    errors = [(message, where) for _, message, severity, where in payload.problems if severity == "error"]
    if errors:
        message, where = errors[0]
        place = f":{where[0] + (line or 1) - 1}:{where[1]}" if where else (f":{line}" if line else "")
        raise DiffInputError(f"{shown}{place}: {message}")
    return payload.value


def load_document(name: str, stdin: BinaryIO | None = None) -> Any:
    """Read and parse one document."""
    return parse_document(name, read_bytes(name, stdin))
