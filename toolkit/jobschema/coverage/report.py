"""The coverage report: its data (built by :mod:`jobschema.coverage.collect`) and its formats.

Formats: ``text`` (people), ``json`` (scripts), ``markdown`` (pull-request comments). Every renderer is
a pure function of the report: same report, same bytes (no timestamps, fixed key order, lists sorted
by path). Payload text (keys, values, sources) is shown with control characters escaped.

The ``json`` shape (ASCII only, two-space indent, trailing newline)::

    {"tool": "jobschema", "version": "0.1.0",
     "schemas": [{"schema", "embedded", "payloads",
                  "properties": {"total", "seen", "items": [{"path", "payloads", "null"}]},
                  "enum_values": [{"path", "value", "count", "listed"}],
                  "undeclared": [{"path", "count", "example", "source"}]}],
     "unrecognised": N}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from jobschema.secrets.names import is_secret_name
from jobschema.secrets.policy import mask, masked, scrub
from jobschema.secrets.shapes import printable
from jobschema.text import (
    BOLD,
    DIM,
    RED,
    YELLOW,
    Paint,
    compact,
    log_safe,
    markdown_code,
    painter,
    plural,
    visible,
)

FORMATS = ("text", "json", "markdown")


@dataclass(frozen=True)
class PropertyCount:
    """A schema property: payloads in which it holds a value, and payloads in which it is ``null``."""

    path: str
    payloads: int
    null: int
    segments: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def seen(self) -> bool:
        """True when some payload had it, with a value or ``null``."""
        return bool(self.payloads or self.null)


@dataclass(frozen=True)
class ValueCount:
    """A listed value (``enum``, ``x-jobschema-known-values``), or an unlisted one seen at such a place."""

    path: str
    value: Any
    count: int
    listed: bool = True
    segments: tuple[str, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Drift:
    """A key the schema does not declare: its path, how many payloads had it, and the first of them."""

    path: str
    count: int
    source: str
    example: str
    segments: tuple[str, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class SchemaCoverage:
    """The counts of one schema; ``embedded``: documents embedded in other payloads' strings."""

    schema: str
    embedded: bool
    payloads: int
    properties: tuple[PropertyCount, ...]
    values: tuple[ValueCount, ...]
    undeclared: tuple[Drift, ...]

    @property
    def title(self) -> str:
        """``aihc-raw-request``, or ``aihc-raw-request (embedded)``."""
        return f"{self.schema} (embedded)" if self.embedded else self.schema

    @property
    def seen(self) -> int:
        """How many properties some payload had."""
        return sum(1 for item in self.properties if item.seen)

    @property
    def listed(self) -> tuple[ValueCount, ...]:
        """The values the schema lists."""
        return tuple(item for item in self.values if item.listed)

    @property
    def unlisted(self) -> tuple[ValueCount, ...]:
        """Values seen at an enum or known-values place that the schema does not list."""
        return tuple(item for item in self.values if not item.listed)

    @property
    def values_seen(self) -> int:
        """How many listed values some payload had."""
        return sum(1 for item in self.values if item.listed and item.count)

    def percent(self) -> str:
        """`` (P%)``, the share of properties seen; empty for a schema without properties."""
        return f" ({100 * self.seen / len(self.properties):.1f}%)" if self.properties else ""


@dataclass(frozen=True)
class CoverageReport:
    """Every schema's counts, and how many payloads did not parse or fit no schema."""

    schemas: tuple[SchemaCoverage, ...]
    unrecognised: int = 0
    #: ``SOURCE: problem`` of each input payload that could not be read or parsed (not in the report
    #: itself: the command names each on stderr)
    unread: tuple[str, ...] = ()

    @property
    def drift(self) -> bool:
        """True when some payload has a property its schema does not declare."""
        return any(section.undeclared for section in self.schemas)


def _value(value: Any) -> str:
    return visible(compact(value, 0, sort_keys=False, spaced=True))


def shown(item: ValueCount) -> Any:
    """The value of ``item`` as reports show it: masked at a credential-like name (a value seen that
    the schema does not list may be anything), with any secret shape in it masked otherwise."""
    if not item.listed and item.segments and is_secret_name(item.segments[-1]):
        return mask(item.value) if item.value is not None else None
    return masked(item.value)


def never_seen(section: SchemaCoverage) -> list[tuple[PropertyCount, int]]:
    """The outermost never-seen properties, each with how many never-seen properties lie below it."""
    tops: list[tuple[PropertyCount, int]] = []
    for item in section.properties:
        if item.seen:
            continue
        if tops and _below(tops[-1][0], item):
            tops[-1] = (tops[-1][0], tops[-1][1] + 1)
        else:
            tops.append((item, 0))
    return tops


def _below(top: PropertyCount, item: PropertyCount | ValueCount) -> bool:
    return bool(top.segments) and item.segments[: len(top.segments)] == top.segments


def unseen_values(section: SchemaCoverage) -> tuple[dict[str, list[ValueCount]], int]:
    """Never-seen listed values by path, except those under a never-seen property (only counted)."""
    tops = [top for top, _ in never_seen(section)]
    grouped: dict[str, list[ValueCount]] = {}
    hidden = 0
    for item in section.listed:
        if item.count:
            continue
        if any(_below(top, item) for top in tops):
            hidden += 1
        else:
            grouped.setdefault(item.path, []).append(item)
    return grouped, hidden


# --- text ------------------------------------------------------------------------------------------


def render_text(report: CoverageReport, verbose: int = 0, color: bool = False) -> str:
    """Per schema: a header, what was never seen, drift, unlisted values; ``verbose``: every count."""
    paint = painter(color)
    lines: list[str] = []
    for section in report.schemas:
        lines += [*_text_section(section, paint), *(_text_counts(section) if verbose else ()), ""]
    line = f"unrecognised: {report.unrecognised}"
    if report.unrecognised:
        line = paint(RED, f"{line} (unparsable, or no schema fits; jobschema validate says why)")
    return "\n".join([*lines, line]) + "\n"


def _text_section(section: SchemaCoverage, paint: Paint) -> Iterator[str]:
    yield paint(
        BOLD,
        f"{section.title}: {plural(section.payloads, 'payload')}, "
        f"{section.seen} of {len(section.properties)} properties seen{section.percent()}, "
        f"{section.values_seen} of {len(section.listed)} enum values seen",
    )
    tops = [
        visible(top.path) + (paint(DIM, f" (+{below} below)") if below else "")
        for top, below in never_seen(section)
    ]
    yield from _text_list("never seen properties", len(section.properties) - section.seen, tops)
    grouped, hidden = unseen_values(section)
    rows = [
        f"{visible(path)}: {', '.join(_value(shown(item)) for item in items)}"
        for path, items in grouped.items()
    ]
    if hidden:
        rows.append(paint(DIM, f"(+{hidden} under never-seen properties)"))
    yield from _text_list("never seen enum values", len(section.listed) - section.values_seen, rows)
    yield from _text_drift(section, paint)


def _text_drift(section: SchemaCoverage, paint: Paint) -> Iterator[str]:
    drift = [
        f"{paint(YELLOW, visible(d.path))}: {plural(d.count, 'payload')}, e.g. {visible(d.source)} "
        + visible(d.example)
        for d in section.undeclared
    ]
    yield from _text_list("undeclared (drift)", len(drift), drift)
    unlisted = [
        f"{visible(v.path)}: {_value(shown(v))}, {plural(v.count, 'payload')}" for v in section.unlisted
    ]
    yield from _text_list("unlisted values", len(unlisted), unlisted)


def _text_list(title: str, count: int, rows: list[str]) -> Iterator[str]:
    yield f"  {title} ({count}):" if count else f"  {title}: none"
    for row in rows:
        yield f"    {row}"


def _text_counts(section: SchemaCoverage) -> Iterator[str]:
    rows = [(visible(p.path), str(p.payloads), str(p.null)) for p in section.properties]
    yield from _text_table("every property", ("property", "payloads", "null"), rows)
    rows = [
        (f"{visible(v.path)} = {_value(shown(v))}", str(v.count), "" if v.listed else "unlisted")
        for v in section.values
    ]
    yield from _text_table("every enum value", ("value", "payloads", ""), rows)


def _text_table(title: str, header: tuple[str, str, str], rows: list[tuple[str, str, str]]) -> Iterator[str]:
    if not rows:
        yield f"  {title}: none"
        return
    width = max(len(row[0]) for row in (header, *rows))
    yield f"  {title}:"
    for first, second, third in (header, *rows):
        yield f"    {first:<{width}}  {second:>8}  {third:>8}".rstrip()


# --- json ------------------------------------------------------------------------------------------


def document(report: CoverageReport) -> dict[str, Any]:
    """The report as the document of the ``json`` format."""
    from jobschema import __version__

    return {
        "tool": "jobschema",
        "version": __version__,
        "schemas": [_json_section(section) for section in report.schemas],
        "unrecognised": report.unrecognised,
    }


def _json_section(section: SchemaCoverage) -> dict[str, Any]:
    return {
        "schema": section.schema,
        "embedded": section.embedded,
        "payloads": section.payloads,
        "properties": {
            "total": len(section.properties),
            "seen": section.seen,
            "items": [{"path": p.path, "payloads": p.payloads, "null": p.null} for p in section.properties],
        },
        "enum_values": [
            {"path": v.path, "value": shown(v), "count": v.count, "listed": v.listed} for v in section.values
        ],
        "undeclared": [
            {"path": d.path, "count": d.count, "example": d.example, "source": d.source}
            for d in section.undeclared
        ],
    }


def render_json(report: CoverageReport, verbose: int = 0, color: bool = False) -> str:
    """The report as indented ASCII JSON and a newline; it is complete, so ``verbose`` changes nothing."""
    return json.dumps(document(report), indent=2, ensure_ascii=True) + "\n"


# --- markdown --------------------------------------------------------------------------------------


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], numeric: int = 0) -> list[str]:
    """A GitHub table; the last ``numeric`` columns are right-aligned."""
    align = ["---"] * (len(header) - numeric) + ["---:"] * numeric
    return [f"| {' | '.join(row)} |" for row in (header, tuple(align), *rows)]


def render_markdown(report: CoverageReport, verbose: int = 0, color: bool = False) -> str:
    """A summary table, then per schema: drift, unlisted values, and the folded never-seen lists."""
    header = ("schema", "payloads", "properties seen", "enum values seen", "undeclared")
    rows = [
        (
            markdown_code(s.title),
            str(s.payloads),
            f"{s.seen} of {len(s.properties)}{s.percent()}",
            f"{s.values_seen} of {len(s.listed)}",
            str(len(s.undeclared)),
        )
        for s in report.schemas
    ]
    blocks = ["## Schema coverage", "\n".join(_table(header, rows, numeric=4))]
    blocks.append(f"Unrecognised payloads (unparsable, or no schema fits): {report.unrecognised}")
    for section in report.schemas:
        blocks += [f"### {markdown_code(section.title)}", *_markdown_section(section, verbose)]
    return "\n\n".join(blocks) + "\n"


def _markdown_section(section: SchemaCoverage, verbose: int) -> Iterator[str]:
    drift = [
        (markdown_code(d.path), f"{markdown_code(d.source)} {markdown_code(d.example)}", str(d.count))
        for d in section.undeclared
    ]
    yield _part("Undeclared (drift)", ("property", "example", "payloads"), drift, fold=False)
    unlisted = [
        (markdown_code(v.path), markdown_code(_value(shown(v))), str(v.count)) for v in section.unlisted
    ]
    yield _part("Unlisted values", ("path", "value", "payloads"), unlisted, fold=False)
    tops = [(markdown_code(top.path), str(below)) for top, below in never_seen(section)]
    yield _part(
        "Never seen properties",
        ("property", "never seen below"),
        tops,
        len(section.properties) - section.seen,
    )
    grouped, hidden = unseen_values(section)
    values = [
        (markdown_code(path), ", ".join(markdown_code(_value(shown(v))) for v in items))
        for path, items in grouped.items()
    ]
    if hidden:
        values.append(("(under never-seen properties)", f"{hidden} values"))
    yield _part(
        "Never seen enum values", ("path", "values"), values, len(section.listed) - section.values_seen
    )
    if verbose:
        counts = [(markdown_code(p.path), str(p.payloads), str(p.null)) for p in section.properties]
        yield _part("Every property", ("property", "payloads", "null"), counts, len(counts))


def _part(
    title: str, header: tuple[str, ...], rows: Sequence[tuple[str, ...]], count: int = 0, fold: bool = True
) -> str:
    """A titled table: folded in ``<details>`` when ``fold``; ``none`` when there are no rows."""
    if not rows:
        return f"{title}: none."
    numeric = sum(1 for name in header if name in ("payloads", "null", "never seen below"))
    table = "\n".join(_table(header, rows, numeric))
    if not fold:
        return f"**{title}** ({len(rows)})\n\n{table}"
    return f"<details><summary>{title} ({count})</summary>\n\n{table}\n\n</details>"


RENDERERS: dict[str, Callable[[CoverageReport, int, bool], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
}


def render(report: CoverageReport, fmt: str = "text", verbose: int = 0, color: bool = False) -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`), ending in a newline."""
    try:
        renderer = RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown coverage format {fmt!r} (formats: {', '.join(FORMATS)})") from None
    text = printable(scrub(renderer(report, verbose, color), level="names"))
    return log_safe(text, json_text=fmt == "json")
