"""Cut a large NDJSON file into byte ranges at line starts, so that several processes check one file.

Each :class:`Part` carries the number of its first line, found by the one pass that finds the cuts,
so sources (``name:LINE``), line numbers and the order of results are those of one reader.

>>> import os, tempfile
>>> with tempfile.NamedTemporaryFile("wb", suffix=".ndjson", delete=False) as handle:
...     _ = handle.write(b'{"a": 1}\\n\\n{"b": 2}\\n{"c": 3}\\n')
>>> [(part.start, part.end, part.first_line) for part in split_ndjson(handle.name, 2, smallest=8)]
[(0, 9, 1), (9, 19, 2), (19, None, 4)]
>>> os.unlink(handle.name)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from jobschema.inputs.files import open_file
from jobschema.inputs.parse import PACKED_PROBE, packed

#: Parts per process: enough that processes finish together, and that progress moves.
PARTS_PER_JOB = 8

#: Towards the end of the file, a part is at most the rest divided among this many parts per
#: process (and at least the smallest part): the last parts are small, so that no process is left
#: checking a large one alone while the others have finished.
TAIL_PARTS_PER_JOB = 2

#: The smallest part worth a task of its own (a task costs a few milliseconds to send and join).
SMALLEST_PART = 8 * 2**20

#: The first part's largest size: this process checks it alone, before the others start
#: (:mod:`jobschema.validate.parallel.fork`), to build the validators they inherit.
LEAD_PART = 2**20

_CHUNK = 2**20

#: Newlines found one by one (``find``, which is ``memchr``) before the rest of a chunk is counted.
_FOUND_ONE_BY_ONE = 256


@dataclass(frozen=True, slots=True)
class Part:
    """Bytes ``start`` to ``end`` (``None``: to the end of the file) of NDJSON file ``name``, cut at
    line starts; ``first_line`` is the number of the line at ``start``."""

    name: str
    start: int
    end: int | None
    first_line: int


def split_ndjson(name: str, jobs: int, smallest: int | None = None) -> Iterator[str | Part]:
    """``name`` as :data:`PARTS_PER_JOB` parts per job of at least ``smallest`` bytes (default
    :data:`SMALLEST_PART`), found lazily in one pass; ``name`` itself when it is too small for two
    parts or cannot be read (its reader then reports why). The first part is at most
    :data:`LEAD_PART` bytes (one line at least), the last ones shrink (:data:`TAIL_PARTS_PER_JOB`)."""
    try:
        size = os.stat(name).st_size  # noqa: PTH116 - no Path object per file
    except OSError:
        yield name
        return
    least = smallest or SMALLEST_PART
    share = max(least, size // max(1, jobs * PARTS_PER_JOB))
    stream = open_file(name, buffering=0) if size >= 2 * share else None
    if stream is None or isinstance(stream, OSError):
        yield name
        return
    if _packed(stream):  # (a file in another encoding, or compressed, is one finding of its reader)
        stream.close()
        yield name
        return

    def step(start: int) -> int:
        return min(share, max(least, (size - start) // max(1, jobs * TAIL_PARTS_PER_JOB)))

    with stream:
        yield from _parts(name, stream, step, size, min(share, LEAD_PART))


def _packed(stream: BinaryIO) -> bool:
    """True when the file is text in another encoding or compressed (:func:`packed`); the stream is
    left at its start."""
    head = stream.read(PACKED_PROBE)
    stream.seek(0)
    return packed(head) is not None


def _parts(
    name: str, stream: BinaryIO, step: Callable[[int], int], size: int, lead: int
) -> Iterator[str | Part]:
    """The parts: the first of about ``lead`` bytes, each next one of about ``step(its start)``."""
    start, first, offset, lines, target = 0, 1, 0, 0, lead
    while True:
        try:
            data = stream.read(_CHUNK)
        except OSError:
            break
        if not data:
            break
        while offset + len(data) > target:
            cut = data.find(b"\n", max(0, target - offset))
            end = offset + cut + 1
            if cut < 0 or end >= size:
                break
            yield Part(name, start, end, first)
            start, first, target = end, 1 + lines + newlines(data, 0, cut + 1), end + step(end)
        lines += newlines(data)
        offset += len(data)
    yield Part(name, start, None, first) if start else name


def newlines(data: bytes, start: int = 0, end: int | None = None) -> int:
    """``data.count(b"\\n", start, end)``, 8x faster on lines of kilobytes: ``count`` compares every
    byte in a loop of its own, ``find`` skips to the next newline with ``memchr``. Past
    :data:`_FOUND_ONE_BY_ONE` newlines (short lines), ``count`` counts the rest."""
    end = len(data) if end is None else end
    found = 0
    at = data.find(b"\n", start, end)
    while at >= 0:
        found += 1
        if found == _FOUND_ONE_BY_ONE:
            return found + data.count(b"\n", at + 1, end)
        at = data.find(b"\n", at + 1, end)
    return found
