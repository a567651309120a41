"""Where a secret shape's anchor may stand in a rendered report: the positions
:func:`~jobschema.secrets.shapes.anchor_positions` gives for the whole text, found a line and a piece
at a time, and each piece's remembered.

A report repeats itself: every line of a file's findings begins with the file's name, the same
``LINE:COL`` stands in many files, and a corpus repeats its findings' words. Each line is cut into
at most three pieces: after the first colon a digit follows (``PATH:`` | ``LINE:COL:``) and after
the first colon a blank follows (``…:`` | `` POINTER: message [rule]``). No gate match spans such a
cut while no anchor holds a colon before a blank or a digit
(:func:`~jobschema.secrets.shapes.anchors_hold`, asked once; were one to, the text is searched
whole), and a gate match never holds a line break. So the positions are the whole text's, exactly
for an ASCII text; beyond ASCII a piece may lowercase otherwise than its whole text, which only
adds positions (the report is then searched anew, :func:`jobschema.report.assemble`).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from jobschema.secrets.shapes import anchor_positions, anchors_hold

__all__ = ["report_anchors"]

#: What stands on both sides of a cut: a colon, then a blank or a digit.
CUTS = (": ", *(f":{digit}" for digit in "0123456789"))
_BEFORE_DIGIT = re.compile(r":(?=[0-9])")


def report_anchors(text: str) -> list[int]:
    """:func:`~jobschema.secrets.shapes.anchor_positions` of ``text`` (sorted), searched piece by piece."""
    if not _cuttable():
        return anchor_positions(text)
    found: list[int] = []
    at = 0
    for line in text.split("\n"):
        for start, piece in _pieces(line):
            hits = _piece_anchors(piece)
            if hits:
                found += [at + start + position for position in hits]
        at += len(line) + 1
    return found


def _pieces(line: str) -> tuple[tuple[int, str], ...]:
    """``line`` cut after its first colon before a digit and its first colon before a blank."""
    head, blank, tail = line.partition(": ")
    if blank:
        head += ":"
    digit = _BEFORE_DIGIT.search(head)
    if digit:
        cut = digit.end()
        pieces: tuple[tuple[int, str], ...] = ((0, head[:cut]), (cut, head[cut:]))
    else:
        pieces = ((0, head),)
    return (*pieces, (len(head), " " + tail)) if blank else pieces


#: The longest piece remembered: a report's pieces are a file's name, ``LINE:COL`` and a finding's
#: words (a corpus of captures with warnings: at most 160 characters); a longer one (a quoted value
#: shown whole) is searched each time, so the memory stays bounded (about 16 MB).
LONGEST_REMEMBERED = 1024


def _piece_anchors(piece: str) -> tuple[int, ...]:
    if len(piece) > LONGEST_REMEMBERED:
        return tuple(anchor_positions(piece))
    return _remembered_anchors(piece)


@lru_cache(maxsize=1 << 14)
def _remembered_anchors(piece: str) -> tuple[int, ...]:
    return tuple(anchor_positions(piece))


@cache
def _cuttable() -> bool:
    return not any(anchors_hold(cut) for cut in CUTS)
