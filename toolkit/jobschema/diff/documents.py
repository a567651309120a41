"""Reading the documents to compare: a file or ``-``, parsed strictly, with one-line errors."""

from __future__ import annotations

from typing import Any, BinaryIO

from jobschema.errors import ToolkitError
from jobschema.inputs.files import read_bytes, shown
from jobschema.inputs.parse import parse_bytes


class DiffInputError(ToolkitError):
    """An input of ``jobschema diff`` that cannot be read or parsed (exit 2)."""


def read_document_bytes(name: str, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of file ``name`` (``-``: standard input); raises :class:`DiffInputError`."""
    data = read_bytes(name, stdin)
    if isinstance(data, FileNotFoundError):
        raise DiffInputError(f"{shown(name)}: no such file")
    if isinstance(data, OSError):
        raise DiffInputError(f"{shown(name)}: cannot read file: {data.strerror or data}")
    return data


def parse_document(name: str, data: bytes, line: int | None = None) -> Any:
    """The JSON value in ``data``; raises :class:`DiffInputError` naming ``name`` and the problem.

    ``line`` is the line of ``data`` in its file (NDJSON), so positions read ``name:LINE:COL``.
    """
    parsed = parse_bytes(data)
    error = parsed.error
    if error is None:
        return parsed.value
    if error.line is not None:
        place = f":{error.line + (line or 1) - 1}" + (f":{error.column}" if error.column else "")
    else:
        place = f":{line}" if line else ""
    raise DiffInputError(f"{shown(name)}{place}: {error.message}")


def load_document(name: str, stdin: BinaryIO | None = None) -> Any:
    """Read and parse one document."""
    return parse_document(name, read_document_bytes(name, stdin))
