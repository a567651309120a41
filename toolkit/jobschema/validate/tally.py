"""The one loop of every run (local, forked children, a process pool, a Dask task): check loaded
payloads in order and keep their results as the settings say."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, Protocol, TypeVar

from jobschema.findings import PayloadResult, Report
from jobschema.inputs.payload import Payload, Skipped
from jobschema.inputs.read import read_payloads
from jobschema.validate.session import Session, Settings, payload_findings, payload_result, unrecognised

if TYPE_CHECKING:
    from jobschema.inputs.split import Part

Progress = Callable[[int], None]
#: How many results a part of a run holds before :func:`tally_file_parts` passes it on (to be
#: rendered, its results then dropped): enough that a part's rendering costs nothing per part.
KEPT = 4096


class Done(Protocol):
    """What a part of a run is made into: it tells how many payloads it stands for."""

    @property
    def done(self) -> int: ...


T = TypeVar("T", bound=Done)


@dataclass
class Tally:
    """What checking some files gave: the kept results, and counts of skipped and clean payloads."""

    results: list[PayloadResult] = field(default_factory=list)
    skipped: int = 0
    clean: int = 0

    def add(self, other: Tally) -> None:
        self.results += other.results
        self.skipped += other.skipped
        self.clean += other.clean

    @property
    def done(self) -> int:
        return len(self.results) + self.clean + self.skipped

    def report(self) -> Report:
        return Report(tuple(self.results), self.skipped, self.clean)


def tally_files(
    session: Session,
    files: Sequence[str | Part],
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
) -> Tally:
    """:func:`tally_payloads` of the payloads in ``files`` (and ``-``: ``stdin``)."""
    return tally_payloads(session, read_payloads(files, stdin), progress)


def tally_payloads(
    session: Session, items: Iterable[Payload | Skipped], progress: Progress | None = None
) -> Tally:
    """Check loaded payloads in order, keeping results as the session's settings say (the one loop of
    every run: local, in a process pool, in a Dask task)."""
    whole = Tally()
    for part in tally_parts(session, items, progress, kept=0):
        whole.add(part)
    return whole


def tally_file_parts(
    session: Session,
    files: Sequence[str | Part],
    finish: Callable[[Tally], T],
    stdin: BinaryIO | None = None,
    progress: Progress | None = None,
    kept: int = KEPT,
) -> list[T]:
    """:func:`tally_files` as consecutive parts, each passed through ``finish`` (the report's lines of
    its payloads, :func:`jobschema.report.render_section`) as soon as it holds ``kept`` results: what
    a run keeps is what its report needs, not every result's findings."""
    return [finish(part) for part in tally_parts(session, read_payloads(files, stdin), progress, kept)]


def tally_parts(
    session: Session, items: Iterable[Payload | Skipped], progress: Progress | None = None, kept: int = KEPT
) -> Iterator[Tally]:
    """The tallies of consecutive runs of ``items``, each ending where it holds ``kept`` results (``0``:
    one tally of them all); the last is given even when empty. :meth:`Tally.add` of them all is
    :func:`tally_payloads`."""
    tally, before = Tally(), 0
    settings = session.settings
    for item in items:
        if isinstance(item, Skipped):
            tally.skipped += 1
            continue
        name, findings = payload_findings(session, item)
        if name and not findings and not settings.keep_clean:
            tally.clean += 1  # (no result built: it would be counted only)
        else:
            _keep(tally, settings, payload_result(session, item, name, findings))
        if progress is not None:
            progress(before + tally.done)
        if kept and len(tally.results) >= kept:
            before += tally.done
            yield tally
            tally = Tally()
    yield tally


def _keep(tally: Tally, settings: Settings, result: PayloadResult) -> None:
    if settings.skip_unknown and unrecognised(result):
        tally.skipped += 1
    elif settings.keep_clean or result.findings:
        tally.results.append(result)
    else:
        tally.clean += 1
