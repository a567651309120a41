"""The report of ``jobschema versions``: which versions accept each payload, as text or JSON.

Text, one block per payload, then the corpus line::

    SOURCE: Run:ai 2.21-2.24 (cluster 2.24.1)
    SOURCE: Run:ai 2.24 (cluster 2.19.3, which 2.19 does not accept)
      not 2.18: POINTER: message [rule]
      not 2.19: ...
    SOURCE: no Run:ai version
      not 2.18: ...
      ...
      no version has them all: /spec/compute/migProfile (2.18-2.23), /spec/x/userCredential (2.24)
    SOURCE: no Run:ai version: file is empty [encoding]
    FILE:LINE:COLUMN: no Run:ai version: invalid JSON: Expecting value [parse-error]
    4 payloads, 1 skipped; no Run:ai version accepts every payload

When every payload is accepted by some version but no version accepts them all, the corpus line
names the captures that rule each other out (the fewest, :func:`jobschema.validate.clash.conflicting`;
one line)::

    3 payloads, 0 skipped; no Run:ai version accepts every payload: caps.ndjson:1 (2.18-2.23) and
    caps.ndjson:5 (2.24) rule each other out

and when no payload of the API was read, it says so (``0 payloads, 5 skipped; no Run:ai payload to
judge``) rather than that every payload is accepted.

An input that could not be read, or that no schema fits, is no version's doing: its reason is said
once, on its line, which begins where ``validate`` places the problem (``caps.ndjson:3:7``, a HAR
entry's ``caps.har:33:15: #1 GET URL``; its source when the problem has no place, an empty file),
and it counts as a payload no version accepts (exit 1).

JSON (``schemas/versions-report.schema.json``)::

    {"tool": "jobschema", "version": "0.1.0", "api": "runai", "versions": [every known one],
     "accepted_by_all": [...], "summary": {"payloads", "skipped", "conflict": [...]},
     "results": [{"source", "schema", "cluster_version", "line", "column", "accepted": [...],
                  "rejected": {"2.18": "POINTER: message [rule]", ...},
                  "conflict": [{"pointer", "versions": [...]}, ...]}]}

``summary.conflict`` holds the captures the text's corpus line names, each as ``{"result", "source",
"accepted"}`` (its index in ``results``, its source, the versions that accept it); ``[]`` when none
conflict. Keys in that fixed order, results in input order, versions oldest first; ASCII only, two-space
indent, trailing newline. Sources and reasons go through the secret policy, then the whole text does.
"""

from __future__ import annotations

from typing import Any

from jobschema.report.common import json_document, line_start, visible
from jobschema.report.text import place
from jobschema.schemas.versions import label, resolve, runs
from jobschema.secrets.policy import masked_path
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import printable
from jobschema.text import BOLD, DIM, GREEN, RED, painter, plural
from jobschema.validate.accepted import Judgement, Verdict
from jobschema.validate.clash import conflicting

FORMATS = ("text", "json")


def render(judged: Judgement, fmt: str, version: str, color: bool = False) -> str:
    """The report in ``fmt`` (``text`` or ``json``), ending in a newline."""
    text = json_document(document(judged, version)) if fmt == "json" else _text(judged, color)
    return printable(scrub(text, level="shapes"))


def document(judged: Judgement, version: str) -> dict[str, Any]:
    """The report as JSON data."""
    return {
        "tool": "jobschema",
        "version": version,
        "api": judged.api,
        "versions": list(judged.versions),
        "accepted_by_all": list(judged.accepted_by_all),
        "summary": {
            "payloads": len(judged.verdicts),
            "skipped": judged.skipped,
            "conflict": _conflict_data(judged),
        },
        "results": [_result(verdict) for verdict in judged.verdicts],
    }


def _result(verdict: Verdict) -> dict[str, Any]:
    return {
        "source": masked_path(verdict.source),
        "schema": verdict.schema,
        "cluster_version": verdict.declared,
        "line": verdict.line,
        "column": verdict.column,
        "accepted": list(verdict.accepted),
        "rejected": {version: scrub(reason) for version, reason in verdict.rejected},
        "conflict": [
            {"pointer": scrub(pointer), "versions": list(fits)} for pointer, fits in verdict.conflict
        ],
    }


def _text(judged: Judgement, color: bool) -> str:
    paint = painter(color)
    lines: list[str] = []
    for verdict in judged.verdicts:
        name = label(judged.api)
        accepted = (
            f"{name} {runs(verdict.accepted, judged.versions)}" if verdict.accepted else f"no {name} version"
        )
        declared = _declared(verdict, judged.api)
        shown = paint(GREEN if verdict.accepted else RED, accepted)
        source = paint(BOLD, line_start(visible(masked_path(verdict.source))))
        whole = _input_reason(verdict)
        if whole is not None:  # the input's own problem, not a version's: said once, where validate says it
            if verdict.problem is not None and verdict.problem.line is not None:
                source = paint(BOLD, line_start(visible(masked_path(place(verdict.problem)))))
            lines.append(f"{source}: {shown}{declared}: {visible(scrub(whole))}")
            continue
        lines.append(f"{source}: {shown}{declared}")
        lines += [f"  {paint(DIM, 'not ' + v)}: {visible(scrub(reason))}" for v, reason in verdict.rejected]
        if verdict.conflict:  # each field fits some version, no version all of them
            fields = ", ".join(
                f"{visible(scrub(pointer))} ({runs(fits, judged.versions)})"
                for pointer, fits in verdict.conflict
            )
            lines.append(f"  {paint(RED, 'no version has them all')}: {fields}")
    lines.append(summary_line(judged))
    return "\n".join(lines) + "\n"


def _input_reason(verdict: Verdict) -> str | None:
    """Why no version accepts an input that was never checked against one (it could not be read,
    or no schema fits it): the reason every version shares, or None for a payload checked per
    version."""
    reasons = {reason for _version, reason in verdict.rejected}
    return reasons.pop() if not verdict.schema and not verdict.accepted and len(reasons) == 1 else None


def _declared(verdict: Verdict, api: str) -> str:
    """`` (cluster 2.19.3)``, or `` (cluster 2.19.3, which 2.19 does not accept)``: what the capture says."""
    if not verdict.declared:
        return ""
    version = resolve(api, verdict.declared)
    rejected = version is not None and version not in verdict.accepted
    return f" (cluster {visible(verdict.declared)}" + (
        f", which {version} does not accept)" if rejected else ")"
    )


def summary_line(judged: Judgement) -> str:
    """``3 payloads, 1 skipped; every payload is accepted by Run:ai 2.22-2.24`` (or by no version,
    then naming the captures that rule each other out when some do; or no payload to judge)."""
    counts = f"{plural(len(judged.verdicts), 'payload')}, {judged.skipped} skipped"
    name = label(judged.api)
    if not judged.verdicts:
        return f"{counts}; no {name} payload to judge"
    common = runs(judged.accepted_by_all, judged.versions)
    if common:
        return f"{counts}; every payload is accepted by {name} {common}"
    line = f"{counts}; no {name} version accepts every payload"
    clash = conflicting(judged)
    if not clash:
        return line
    named = [f"{visible(masked_path(v.source))} ({runs(v.accepted, judged.versions)})" for v in clash]
    return f"{line}: {', '.join(named[:-1])} and {named[-1]} rule each other out"


def _conflict_data(judged: Judgement) -> list[dict[str, Any]]:
    """The JSON summary's ``conflict``: each capture that rules the others out, in input order."""
    index = {id(verdict): number for number, verdict in enumerate(judged.verdicts)}
    return [
        {"result": index[id(v)], "source": masked_path(v.source), "accepted": list(v.accepted)}
        for v in conflicting(judged)
    ]
