"""One run of ``jobschema changes``: the changes, their witnesses and their impact on captures, and
which of them fail the run.

A change fails the run when its class reaches ``fail_on`` (``breaking``: breaking changes;
``strict``: breaking and strict ones; ``never``) and its fingerprint is not in the baseline. A
baseline is a text file of fingerprints, one per line, anything after ``#`` a comment
(:func:`write_baseline` writes one with the change beside each, so a review reads what it accepts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from jobschema.changes import compare_sides
from jobschema.changes.compare import Change, Kind
from jobschema.changes.sides import Side
from jobschema.errors import ToolkitError

if TYPE_CHECKING:
    from jobschema.changes.impact import Captures
    from jobschema.changes.witness import Witness

FailOn = Literal["breaking", "strict", "never"]
FAILING: dict[str, frozenset[Kind]] = {
    "breaking": frozenset({"breaking"}),
    "strict": frozenset({"breaking", "strict"}),
    "never": frozenset(),
}
#: Changes whose reader reads the object holding the place: a strict model of the object breaks.
_HOLDER_RULES = frozenset({"property-added", "property-added-closed", "required-added"})
_FINGERPRINT = re.compile(r"^[0-9a-f]{16}$")


class BaselineInvalid(ToolkitError):
    """A baseline file that cannot be read or holds something other than fingerprints."""


@dataclass(frozen=True)
class Options:
    """What a run does besides comparing."""

    captures: tuple[str, ...] = ()
    only_used: bool = False
    fail_on: FailOn = "breaking"
    baseline: frozenset[str] = frozenset()
    witnesses: bool = True


@dataclass(frozen=True)
class Entry:
    """One change as the run reports it."""

    change: Change
    old_version: str | None
    new_version: str | None
    witness: Witness | None = None
    counted: int | None = None  # captured payloads of the change's schema (None: no captures given)
    carrying: int | None = None  # ... carrying the place
    with_value: int | None = None  # ... carrying the value the change is about there
    accepted: bool = False  # in the baseline
    failing: bool = False


@dataclass(frozen=True)
class Outcome:
    """The run's result: every change shown, and what the captures held."""

    old: str
    new: str
    fail_on: FailOn
    entries: tuple[Entry, ...]
    payloads: int | None = None  # captured payloads counted (None: no captures given)
    unread: tuple[str, ...] = ()
    hidden: int = 0  # changes --only-used hid
    notes: tuple[str, ...] = field(default=())
    #: ``WHERE: PROBLEM`` of each unread capture (one line each, as coverage and validate place it)
    problems: tuple[str, ...] = field(default=())

    @property
    def failed(self) -> bool:
        return any(entry.failing for entry in self.entries)


def run(
    pairs: Sequence[tuple[Side, Side]],
    options: Options,
    progress: Callable[[str], None] | None = None,
) -> Outcome:
    """Compare ``pairs`` and judge every change under ``options``."""
    changes = compare_sides(list(pairs))
    captures = _captures(options, pairs, changes)
    entries = [_entry(change, pairs, captures, options) for change in changes]
    shown = [entry for entry in entries if not options.only_used or (entry.carrying or 0) > 0]
    if options.witnesses:
        shown = _witnessed(shown, pairs, progress)
    return Outcome(
        _label([old for old, _ in pairs]),
        _label([new for _, new in pairs]),
        options.fail_on,
        tuple(shown),
        captures.payloads if captures else None,
        tuple(captures.unread) if captures else (),
        len(entries) - len(shown),
        tuple(captures.notes) if captures else (),
        tuple(captures.problems) if captures else (),
    )


def touched(change: Change) -> tuple[str, ...]:
    """The place a reader touches for this change: the object holding an added property, else the
    change's own place."""
    return change.place[:-1] if change.rule in _HOLDER_RULES else change.place


def _captures(options: Options, pairs: Sequence[tuple[Side, Side]], changes: list[Change]) -> Captures | None:
    if not options.captures:
        return None
    from jobschema.changes.impact import count

    return count(options.captures, pairs, changes)


def _entry(
    change: Change, pairs: Sequence[tuple[Side, Side]], captures: Captures | None, options: Options
) -> Entry:
    old, new = next((o, n) for o, n in pairs if o.schema == change.schema)
    counted = carrying = with_value = None
    if captures is not None:
        impact = captures.impacts[change.schema]
        place = touched(change)
        counted = impact.payloads
        carrying = impact.payloads if not place else impact.places[place]
        with_value = impact.with_value(change)
    accepted = change.fingerprint in options.baseline
    failing = not accepted and change.kind in FAILING[options.fail_on]
    return Entry(change, old.version, new.version, None, counted, carrying, with_value, accepted, failing)


def _witnessed(
    entries: list[Entry], pairs: Sequence[tuple[Side, Side]], progress: Callable[[str], None] | None
) -> list[Entry]:
    from dataclasses import replace

    from jobschema.changes.witness import WITNESSED, Maker

    makers = {old.schema: Maker(old, new) for old, new in pairs}
    done: list[Entry] = []
    for entry in entries:
        change = entry.change
        if change.rule not in WITNESSED:
            done.append(entry)
            continue
        if progress is not None:
            progress(f"witness for {change.path} ({change.rule})")
        done.append(replace(entry, witness=makers[change.schema].witness(change)))
    return done


def _label(sides: list[Side]) -> str:
    if len(sides) == 1:
        return sides[0].label
    first = sides[0]
    return (
        f"{first.api}@{first.version}" if first.api and first.version else ", ".join(s.label for s in sides)
    )


def read_baseline(path: Path) -> frozenset[str]:
    """The fingerprints a baseline file accepts; a one-line error naming the file and line otherwise."""
    from jobschema.inputs.side import SideFile, read_side_text

    text = read_side_text(SideFile(path, "the baseline", BaselineInvalid), empty=True)  # (accepts none)
    found: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        word = line.split("#", 1)[0].strip()
        if not word:
            continue
        if not _FINGERPRINT.match(word):
            raise BaselineInvalid(f"{path}:{number}: not a change fingerprint (16 hex digits): {word[:40]!r}")
        found.add(word)
    return frozenset(found)


def baseline_text(outcome: Outcome) -> str:
    """A baseline accepting every breaking and strict change of ``outcome``, sorted by fingerprint,
    each with its class, rule and place as a comment."""
    lines = [
        "# jobschema changes baseline: each line accepts one change (its fingerprint; the rest is a comment)",
        f"# {outcome.old} -> {outcome.new}",
    ]
    chosen = sorted(
        (entry.change for entry in outcome.entries if entry.change.kind in ("breaking", "strict")),
        key=lambda change: change.fingerprint,
    )
    lines += [f"{c.fingerprint}  # {c.kind} {c.rule} {c.schema} {c.path}" for c in chosen]
    return "\n".join(lines) + "\n"
