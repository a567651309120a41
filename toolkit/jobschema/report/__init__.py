"""Output reporters of ``jobschema validate``: render a :class:`~jobschema.validate.Report` in one format.

Formats (one module each): ``text`` (people, editors), ``json`` (scripts; its shape is
``schemas/validate-report.schema.json``), ``junit`` (CI test reports), ``github`` (GitHub Actions
annotations) and ``sarif`` (code scanning). Every reporter is a pure function of the report and the
options: same report, same bytes (no timestamps, fixed key order), results in input order and
findings in :meth:`~jobschema.findings.Finding.sort_key` order. Only the standard library is imported.
Messages are printed as the validator produced them (it masks secrets by place and shape). As a last
safety net every text field of the report (sources, pointers, messages, details) is read in full by
:func:`jobschema.secrets.scrub`, and then the rendered text is searched once more for token shapes, so
no secret reaches the output even from a path the validator did not foresee.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType

from jobschema.findings import Report
from jobschema.report.anchors import report_anchors
from jobschema.report.common import RenderOptions, scrubbed
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import anchor_positions, printable

__all__ = ["FORMATS", "SECTIONED", "RenderOptions", "Section", "assemble", "render", "render_section"]

FORMATS = ("text", "json", "junit", "github", "sarif")

#: The formats a report can be rendered in by sections (:func:`render_section`), each where its
#: payloads were checked: one line per finding and a summary line, or a JSON item or a JUnit test
#: case per payload (SARIF numbers its rules across the whole report, so it is rendered whole).
SECTIONED = ("github", "json", "junit", "text")

#: format -> module of its renderer (imported only when that format is asked for)
_MODULES = {"text": "text", "json": "json_", "junit": "junit", "github": "github", "sarif": "sarif"}


def render(report: Report, fmt: str, options: RenderOptions) -> str:
    """The report in format ``fmt`` (one of :data:`FORMATS`), ending in a newline."""
    text = _module(fmt).render(scrubbed(report), options)
    return printable(scrub(text, _escape(fmt), level="shapes"))


@dataclass(frozen=True)
class Section:
    """The lines some payloads add to a report in a :data:`SECTIONED` format, and their counts.

    ``anchors``: where a secret shape's anchor may stand in ``text``
    (:func:`~jobschema.secrets.shapes.anchor_positions`); with any, the assembled report is
    searched for token shapes again, around them."""

    text: str
    counts: Mapping[str, int]
    ok: bool
    anchors: tuple[int, ...] = ()

    @property
    def done(self) -> int:
        """How many payloads the section stands for (checked or skipped)."""
        return self.counts["inputs"] + self.counts["skipped"]


def render_section(report: Report, fmt: str, options: RenderOptions) -> Section:
    """The section of the payloads of ``report`` (a part of a larger one, in input order).

    :func:`assemble` of the sections of consecutive parts is, byte for byte, :func:`render` of the
    whole report: each section is scrubbed as :func:`render` scrubs, and the last search for token
    shapes, which :func:`render` runs over the whole text, finds its anchors in each section here
    (an anchor never spans a line; a line is searched in pieces a report repeats,
    :func:`~jobschema.report.anchors.report_anchors`); the whole report is then read around them."""
    text = _sectioned(fmt).body(scrubbed(report), options)
    return Section(text, report.summary(), report.ok, tuple(report_anchors(text)))


def assemble(sections: Iterable[Section], fmt: str, options: RenderOptions) -> tuple[str, bool]:
    """The whole report of ``sections`` (in input order), and whether every payload is valid."""
    parts, counts, ok, anchors, at = [], dict.fromkeys(_COUNTS, 0), True, [], 0
    for section in sections:
        parts.append(section.text)
        for name in _COUNTS:
            counts[name] += section.counts[name]
        ok = ok and section.ok
        anchors += [at + position for position in section.anchors]
        at += len(section.text)
    bodies = "".join(parts)
    head, tail, cut = _sectioned(fmt).frame(counts, ok, options, bool(bodies))
    kept = len(bodies) - cut  # (what is cut is never part of an anchor's line: a format's own marks)
    text = head + bodies[:kept] + tail
    anchors = [
        *anchor_positions(head),
        *(len(head) + position for position in anchors if position < kept),
        *(len(head) + kept + position for position in anchor_positions(tail)),
    ]
    if anchors:  # (a text beyond ASCII may lowercase otherwise as a whole: then it is searched anew)
        text = scrub(text, _escape(fmt), level="shapes", anchors=anchors if text.isascii() else None)
    return printable(text), ok


_COUNTS = ("inputs", "valid", "invalid", "errors", "warnings", "skipped")


def _module(fmt: str) -> ModuleType:
    if fmt not in _MODULES:
        raise ValueError(f"unknown report format {fmt!r} (formats: {', '.join(FORMATS)})")
    return importlib.import_module(f"jobschema.report.{_MODULES[fmt]}")


def _sectioned(fmt: str) -> ModuleType:
    if fmt not in SECTIONED:
        raise ValueError(f"format {fmt!r} is not rendered in sections (those: {', '.join(SECTIONED)})")
    return _module(fmt)


def _escape(fmt: str) -> Callable[[str], str] | None:
    """How a mask inserted into a report in ``fmt`` is escaped (JUnit is XML)."""
    return _xml_escape if fmt == "junit" else None


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
