"""The work of a run cut into batches: files in order, a large NDJSON file in parts of its own; as
tickets of five integers (what forked children read from one pipe, :mod:`.fork`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from jobschema.inputs.read import NDJSON_SUFFIXES

if TYPE_CHECKING:
    from jobschema.inputs.split import Part

#: ``(first, count, start, end, line)``: see :func:`tickets`.
Ticket = tuple[int, int, int, int, int]


def batches(files: Sequence[str], jobs: int, size: int) -> Iterator[list[str | Part]]:
    """The work of ``jobs`` processes (or Dask threads), in input order: files in batches of
    ``size``, a large NDJSON file in parts of its own, cut lazily (:mod:`jobschema.inputs.split`)."""
    return (batch_of(files, ticket) for ticket in tickets(files, jobs, size))


#: How many files the first batch of a forked run holds at most (:func:`tickets`).
LEAD_FILES = 4


def tickets(files: Sequence[str], jobs: int, size: int, lead: int | None = None) -> Iterator[Ticket]:
    """:func:`batches` as tickets of five integers into ``files``: ``(first, count, 0, 0, 0)`` for
    ``count`` files from ``files[first]``, ``(file, 0, start, end, line)`` for a part of an NDJSON
    file (``end`` -1: to the end of the file). The first batch holds at most ``lead`` files."""
    begin = count = 0
    limit = min(size, lead or size)
    for index, name in enumerate(files):
        pieces = _pieces(name, jobs)
        first = next(pieces)
        if isinstance(first, str):
            begin, count = (index, 1) if not count else (begin, count + 1)
            if count < limit:
                continue
        if count:
            yield (begin, count, 0, 0, 0)
            count = 0
        if not isinstance(first, str):
            for part in (first, *pieces):  # (a file is cut into parts, or not at all)
                if not isinstance(part, str):
                    yield (index, 0, part.start, -1 if part.end is None else part.end, part.first_line)
        limit = size
    if count:
        yield (begin, count, 0, 0, 0)


def batch_of(files: Sequence[str], ticket: Ticket) -> list[str | Part]:
    """The files (or the NDJSON part) of one of :func:`tickets`."""
    first, count, start, end, line = ticket
    if count:
        return list(files[first : first + count])
    from jobschema.inputs.split import Part

    return [Part(files[first], start, None if end < 0 else end, line)]


def _pieces(name: str, jobs: int) -> Iterator[str | Part]:
    if name.lower().endswith(NDJSON_SUFFIXES):
        from jobschema.inputs.split import split_ndjson

        return split_ndjson(name, jobs)
    return iter((name,))
