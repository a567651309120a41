"""The report of ``jobschema versions`` with the captures that rule each other out named in its
summary (:func:`render`): the report of :mod:`jobschema.report.versions`, whose last text line and
JSON ``summary`` say, when every capture fits some version but no version fits them all, which of
them (the fewest, :func:`jobschema.versions.clash.conflicting`) no version accepts together::

    3 payloads, 0 skipped; no Run:ai version accepts every payload: caps.ndjson:1 (2.18-2.23) and …
    … caps.ndjson:5 (2.24) rule each other out     (one line)

JSON: ``"summary": {"payloads", "skipped", "conflict": [{"result", "source", "accepted"}]}``, each
capture with its index in ``results``, its source (with its place: an NDJSON line's ``:3``, a HAR
entry's ``#2 GET URL``) and the versions that accept it; ``[]`` when none conflict.
"""

from __future__ import annotations

from typing import Any

from jobschema.report.common import json_document, visible
from jobschema.report.versions import document, summary_line
from jobschema.report.versions import render as render_report
from jobschema.schemas.versions import runs
from jobschema.secrets.policy import masked_path
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import printable
from jobschema.validate.accepted import Judgement
from jobschema.versions.clash import conflicting


def render(judged: Judgement, fmt: str, version: str, color: bool = False) -> str:
    """The report in ``fmt`` (``text`` or ``json``), ending in a newline, its summary naming the
    captures that rule each other out."""
    if fmt == "json":
        data = document(judged, version)
        data["summary"]["conflict"] = conflict_data(judged)
        return printable(scrub(json_document(data), level="shapes"))
    text = render_report(judged, fmt, version, color)
    head, _, _last = text.rstrip("\n").rpartition("\n")
    last = printable(scrub(text_summary(judged), level="shapes"))
    return f"{head}\n{last}\n" if head else f"{last}\n"


def text_summary(judged: Judgement) -> str:
    """The summary line, with the captures that rule each other out when some do."""
    line = summary_line(judged)
    clash = conflicting(judged)
    if not clash:
        return line
    named = [f"{visible(masked_path(v.source))} ({runs(v.accepted, judged.versions)})" for v in clash]
    listed = f"{', '.join(named[:-1])} and {named[-1]}"
    return f"{line}: {listed} rule each other out"


def conflict_data(judged: Judgement) -> list[dict[str, Any]]:
    """The JSON summary's ``conflict``: each capture that rules the others out, in input order."""
    index = {id(verdict): number for number, verdict in enumerate(judged.verdicts)}
    return [
        {"result": index[id(v)], "source": masked_path(v.source), "accepted": list(v.accepted)}
        for v in conflicting(judged)
    ]
