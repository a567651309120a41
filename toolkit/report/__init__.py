"""Output reporters of ``jobschema validate``: render a :class:`~toolkit.model.Report` in one format.

Formats (one module each): ``text`` (people, editors), ``json`` (scripts; its shape is
``schemas/validate-report.schema.json``), ``junit`` (CI test reports), ``github`` (GitHub Actions
annotations) and ``sarif`` (code scanning). Every reporter is a pure function of the report and the
options: same report, same bytes (no timestamps, fixed key order), results in input order and
findings in :meth:`~toolkit.model.Finding.sort_key` order. Only the standard library is imported.
Messages are printed as the validator produced them (it masks secrets); nothing else is added.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkit.model import Report
from toolkit.report import github, json_, junit, sarif, text
from toolkit.report.common import RenderOptions

__all__ = ["FORMATS", "RenderOptions", "render"]

FORMATS = ("text", "json", "junit", "github", "sarif")

_RENDERERS: dict[str, Callable[[Report, RenderOptions], str]] = {
    "text": text.render,
    "json": json_.render,
    "junit": junit.render,
    "github": github.render,
    "sarif": sarif.render,
}


def render(report: Report, fmt: str, options: RenderOptions) -> str:
    """The report in format ``fmt`` (one of :data:`FORMATS`), ending in a newline."""
    try:
        renderer = _RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown report format {fmt!r} (formats: {', '.join(FORMATS)})") from None
    return renderer(report, options)
