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
from collections.abc import Callable

from jobschema.findings import Report
from jobschema.report.common import RenderOptions, scrubbed
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import printable

__all__ = ["FORMATS", "RenderOptions", "render"]

FORMATS = ("text", "json", "junit", "github", "sarif")

#: format -> module of its renderer (imported only when that format is asked for)
_MODULES = {"text": "text", "json": "json_", "junit": "junit", "github": "github", "sarif": "sarif"}


def render(report: Report, fmt: str, options: RenderOptions) -> str:
    """The report in format ``fmt`` (one of :data:`FORMATS`), ending in a newline."""
    if fmt not in _MODULES:
        raise ValueError(f"unknown report format {fmt!r} (formats: {', '.join(FORMATS)})")
    renderer: Callable[[Report, RenderOptions], str] = importlib.import_module(
        f"jobschema.report.{_MODULES[fmt]}"
    ).render
    text = renderer(scrubbed(report), options)
    return printable(scrub(text, _xml_escape if fmt == "junit" else None, level="shapes"))


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
