"""The ``json`` format: the whole report as one JSON document, for scripts (``jq``) and other tools.

The shape is ``schemas/validate-report.schema.json``::

    {"tool": "jobschema", "version": "0.1.0", "status": "ok" | "fail",
     "summary": {"inputs", "valid", "invalid", "errors", "warnings", "skipped"},
     "results": [{"source", "schema", "api_version"?, "valid",
                  "findings": [{"pointer", "line", "column", "message", "severity", "rule",
                                "schema_pointer", "details"?}]}]}

Every key is always present (``null`` when unknown) except ``details``, which appears only with
``-v`` and only when the finding has details, and ``api_version``, which appears only when the
payload was checked against one version of its API (``--api-version``, or the version its HAR
capture names). Keys come in the fixed order above (never from the
data), results in input order, findings in :meth:`Finding.sort_key` order. The output is ASCII only
(``ensure_ascii``): other characters are ``\\uXXXX`` escapes, so the bytes do not depend on the
encoding of the stream they are written to. Two-space indent, trailing newline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report.common import RenderOptions, json_document, ordered


def render(report: Report, options: RenderOptions) -> str:
    """The report as indented JSON with a trailing newline."""
    return json_document(document(report, options))


def body(report: Report, options: RenderOptions) -> str:
    """The report's results as :func:`render` writes them inside ``results``, each followed by
    ``,`` and a newline (a part of the document: :func:`frame` goes around the parts)."""
    return "".join(f"    {_indented(_result(result, options))},\n" for result in report.results)


def frame(counts: Mapping[str, int], ok: bool, options: RenderOptions, filled: bool) -> tuple[str, str, int]:
    """What goes before and after the :func:`body` of every part, and how many characters of the
    last body to leave out (its last ``,`` and newline): the whole document, once put together."""
    head = json_document(_head(counts, ok, options, []))
    if not filled:
        return head, "", 0
    return head[: -len(_NO_RESULTS)] + "[\n", "\n  ]\n}\n", 2


#: How :func:`json_document` ends a document whose last member, ``results``, is empty.
_NO_RESULTS = "[]\n}\n"


def _indented(data: dict[str, Any]) -> str:
    """``data`` as it is written two levels deep (the raw line breaks of JSON text are all between
    tokens: inside strings they are escapes)."""
    return json_document(data)[:-1].replace("\n", "\n    ")


def document(report: Report, options: RenderOptions) -> dict[str, Any]:
    """The report as JSON data."""
    results = [_result(result, options) for result in report.results]
    return _head(report.summary(), report.ok, options, results)


def _head(counts: Mapping[str, int], ok: bool, options: RenderOptions, results: list[Any]) -> dict[str, Any]:
    return {
        "tool": "jobschema",
        "version": options.version,
        "status": "ok" if ok else "fail",
        "summary": dict(counts),
        "results": results,
    }


def _result(result: PayloadResult, options: RenderOptions) -> dict[str, Any]:
    data: dict[str, Any] = {"source": result.source, "schema": result.schema}
    if result.version:
        data["api_version"] = result.version
    data["valid"] = result.valid
    data["findings"] = [_finding(finding, options) for finding in ordered(result)]
    return data


def _finding(finding: Finding, options: RenderOptions) -> dict[str, Any]:
    data: dict[str, Any] = {
        "pointer": finding.pointer,
        "line": finding.line,
        "column": finding.column,
        "message": finding.message,
        "severity": finding.severity,
        "rule": finding.rule,
        "schema_pointer": finding.schema_pointer,
    }
    if options.verbose >= 1 and finding.details:
        data["details"] = list(finding.details)
    return data
