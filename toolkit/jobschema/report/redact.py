"""The report of ``jobschema redact --check``: every place that still holds a secret in the clear
(never its value) and every input that could not be read, as text, JSON, GitHub annotations or SARIF.

Text is what ``--check`` has always printed, one line per place on stdout (``FILE[:LINE]: POINTER:
unmasked secret [redact]``) and problems on stderr, written as they are found. The other formats
are written once every input is read::

    json    {"tool", "version", "summary": {"inputs", "secrets", "problems"},
             "secrets": [{"source", "line", "pointer"}],
             "problems": [{"source", "line", "column", "message"}]}
    github  ::error file=F,line=L,title=unmasked-secret::F POINTER: unmasked secret (one per place)
    sarif   SARIF 2.1.0, rules unmasked-secret and unreadable, a result per place and per problem

Sources and pointers go through the secret policy too (a file name can hold a token).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from jobschema.redact.places import Unreadable
from jobschema.report.common import json_document, line_start, visible
from jobschema.report.github import escape_data, escape_property
from jobschema.report.sarif import SCHEMA_URI, fingerprints, physical_location
from jobschema.secrets.policy import masked_path
from jobschema.secrets.reading import scrub
from jobschema.text import BOLD, RED, painter

FORMATS = ("text", "json", "github", "sarif")
RULE = "unmasked-secret"
UNREADABLE = "unreadable"
_RULES = {
    RULE: "A value the secret policy masks is in the clear: run jobschema redact --in-place.",
    UNREADABLE: "The input could not be read or parsed, so its secrets could not be checked.",
}


@dataclass(frozen=True)
class Place:
    """One place of one input that holds a secret in the clear."""

    source: str
    pointer: str
    line: int | None = None
    path: str | None = None  # the file (None: stdin)


@dataclass(frozen=True)
class Problem:
    """One input (or NDJSON line) that could not be checked."""

    source: str
    unreadable: Unreadable
    path: str | None = None


@dataclass
class Checked:
    """What ``--check`` found, in input order; ``echo(text, err)`` writes text-format lines as they
    come (the other formats are rendered at the end)."""

    fmt: str
    echo: Callable[[str, bool], None]
    color: bool = False
    inputs: int = 0
    places: list[Place] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def secret(self, place: Place) -> None:
        self.places.append(place)
        if self.fmt == "text":
            self.echo(_text_line(_masked_place(place), self.color), False)

    def problem(self, problem: Problem) -> None:
        self.problems.append(problem)
        if self.fmt == "text":
            masked = _masked_problem(problem)
            self.echo(f"Error: {visible(masked.unreadable.describe(masked.source))}", True)

    @property
    def clean(self) -> bool:
        return not self.places and not self.problems

    def rendered(self, version: str) -> str | None:
        """The whole report in a format written at the end (None for text, already written)."""
        render = {"json": _json, "github": _github, "sarif": _sarif}.get(self.fmt)
        return None if render is None else scrub(render(self._scrubbed(), version), level="shapes")

    def _scrubbed(self) -> Checked:
        """The report with every source, path, pointer and message masked before it is written: a
        mask put in by the last search of the whole text would stand unescaped in a SARIF URI or a
        GitHub annotation's property (``file=a/<secret:…>``, where ``:`` must be ``%3A``)."""
        places = [_masked_place(place) for place in self.places]
        problems = [_masked_problem(problem) for problem in self.problems]
        return replace(self, places=places, problems=problems)


def _masked_place(place: Place) -> Place:
    """``place`` with its source, pointer and path each masked on its own: masked once composed, a
    file named ``token=ghp_….json`` took the ``.json:`` after it into its mask."""
    return replace(
        place, source=masked_path(place.source), pointer=scrub(place.pointer), path=_scrub(place.path)
    )


def _masked_problem(problem: Problem) -> Problem:
    """``problem`` with its source, path and message each masked on its own (:func:`_masked_place`)."""
    return replace(
        problem,
        source=masked_path(problem.source),
        path=_scrub(problem.path),
        unreadable=replace(problem.unreadable, message=scrub(problem.unreadable.message)),
    )


def _scrub(text: str | None) -> str | None:
    return None if text is None else masked_path(text)


def _text_line(place: Place, color: bool) -> str:
    paint = painter(color)
    where = f":{place.line}" if place.line is not None else ""
    pointer = paint(BOLD, visible(place.pointer or "(root)"))
    source = line_start(visible(place.source))
    return f"{source}{where}: {pointer}: {paint(RED, 'unmasked secret')} [redact]"


def _json(checked: Checked, version: str) -> str:
    summary = {"inputs": checked.inputs, "secrets": len(checked.places), "problems": len(checked.problems)}
    data: dict[str, Any] = {
        "tool": "jobschema",
        "version": version,
        "summary": summary,
        "secrets": [{"source": p.source, "line": p.line, "pointer": p.pointer} for p in checked.places],
        "problems": [
            {
                "source": p.source,
                "line": p.unreadable.line,
                "column": p.unreadable.column,
                "message": p.unreadable.message,
            }
            for p in checked.problems
        ],
    }
    return json_document(data)


def _github(checked: Checked, version: str) -> str:
    lines = []
    for place in checked.places:
        where = _properties(place.path, place.line, None, RULE)
        message = f"{place.source} {place.pointer or '(root)'}: unmasked secret"
        lines.append(f"::error {where}::{escape_data(message)}")
    for problem in checked.problems:
        unread = problem.unreadable
        where = _properties(problem.path, unread.line, unread.column, UNREADABLE)
        lines.append(f"::error {where}::{escape_data(unread.describe(problem.source))}")
    lines.append(_summary(checked))
    return "\n".join(lines) + "\n"


def _properties(path: str | None, line: int | None, column: int | None, title: str) -> str:
    found = [
        f"{key}={escape_property(str(value))}"
        for key, value in (("file", path), ("line", line), ("col", column))
        if value is not None
    ]
    return ",".join([*found, f"title={title}"])


def _summary(checked: Checked) -> str:
    return (
        f"{checked.inputs} input(s) checked: {len(checked.places)} unmasked secret(s), "
        f"{len(checked.problems)} unreadable"
    )


def _sarif(checked: Checked, version: str) -> str:
    rules = [{"id": rule, "shortDescription": {"text": text}} for rule, text in _RULES.items()]
    results = [
        _result(
            RULE, f"{p.pointer or '(root)'}: unmasked secret", (p.source, p.path), (p.line, None), p.pointer
        )
        for p in checked.places
    ]
    results += [
        _result(
            UNREADABLE,
            p.unreadable.message,
            (p.source, p.path),
            (p.unreadable.line, p.unreadable.column),
            None,
        )
        for p in checked.problems
    ]
    driver = {"name": "jobschema", "version": version, "rules": rules}
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json_document(log)


def _result(
    rule: str,
    message: str,
    place: tuple[str, str | None],
    at: tuple[int | None, int | None],
    pointer: str | None,
) -> dict[str, Any]:
    source, path = place
    location: dict[str, Any] = {"physicalLocation": physical_location(path, source, *at)}
    if pointer is not None:
        location["logicalLocations"] = [{"fullyQualifiedName": pointer or "/", "kind": "member"}]
    index = list(_RULES).index(rule)
    found = {"ruleId": rule, "ruleIndex": index, "level": "error", "message": {"text": message}}
    return {
        **found,
        "locations": [location],
        "partialFingerprints": fingerprints(rule, source, pointer or "", message),
    }
