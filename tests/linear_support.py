"""Counting the work of the secret readers' patterns, for the tests that hold it linear: a compiled
pattern stands in for the reader's own and counts the characters each read is given, and the work
of the same text repeated n and 4n times is compared (never a clock)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

#: A text repeated this many times, then four times as many.
SIZES = (300, 1200)


class CountingPattern:
    """A compiled pattern whose reads are counted: the characters each search or full match is
    given, and those each match or found item covers; what else reads the pattern (its source,
    flags, groups) sees the pattern's own."""

    def __init__(self, pattern: Any, count: list[int]) -> None:
        self.inner, self.count = pattern, count
        self.pattern, self.groupindex, self.flags = pattern.pattern, pattern.groupindex, pattern.flags
        self.groups = pattern.groups

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        found = self.inner.match(text, pos, len(text) if endpos is None else endpos)
        self.count[0] += 1 + (found.end() - pos if found else 0)
        return found

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        self.count[0] += (len(text) if endpos is None else endpos) - pos
        return self.inner.fullmatch(text, pos, len(text) if endpos is None else endpos)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        self.count[0] += (len(text) if endpos is None else endpos) - pos
        return self.inner.search(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str, *args: int) -> Any:
        for found in self.inner.finditer(text, *args):
            self.count[0] += found.end() - found.start()
            yield found


def work_of(
    read: Callable[[str], object], unit: str, count: list[int], sizes: Iterable[int] = SIZES
) -> list[int]:
    """The characters counted while ``read`` reads ``unit`` repeated each of ``sizes`` times."""
    work = []
    for times in sizes:
        count[0] = 0
        read(unit * times)
        work.append(count[0])
    return work


def assert_linear(work: list[int]) -> None:
    """Four times the text is at most 4.5 times the work (and some work was done)."""
    assert work[0] > 0
    assert work[1] <= 4.5 * work[0], work


def named_work(monkeypatch: pytest.MonkeyPatch, counted: Iterable[str], unit: str) -> list[int]:
    """The work of the name reader's patterns ``counted`` (by key) reading ``unit`` repeated."""
    from jobschema.secrets import named

    keys, count = frozenset(counted), [0]
    compiled = named._compiled

    def counting(key: str) -> Any:
        pattern = compiled(key)
        return CountingPattern(pattern, count) if key in keys else pattern

    monkeypatch.setattr(named, "_compiled", counting)
    return work_of(named.spans, unit, count)


def shape_work(
    monkeypatch: pytest.MonkeyPatch, name: str, unit: str, read: Callable[[str], object], sizes: Iterable[int]
) -> list[int]:
    """The work of the token shape ``name``'s pattern while ``read`` reads ``unit`` repeated."""
    from jobschema.secrets import shapes

    shape = next(s for s in shapes.shapes() if s.name == name)
    assert shape.grown is not None or shape.grown is None  # (made from the pattern before it is counted)
    count = [0]
    monkeypatch.setitem(shape.__dict__, "pattern", CountingPattern(shape.pattern, count))
    return work_of(read, unit, count, sizes)
