"""The ``text`` format: one line per finding, then a summary line; for people and for editors.

Lines::

    SOURCE:LINE:COL: POINTER: message [rule]
    SOURCE:LINE:COL: POINTER: warning: message [rule]
    SOURCE: POINTER: message [rule]                  (no line: stdin, or no file position)
    SOURCE:LINE: POINTER: message [rule]             (a line but no column)
    PATH:LINE:COL: POINTER: message [rule]           (NDJSON: the line of the file is the record's)
    PATH:LINE:COL: #N METHOD URL: POINTER: message [rule]   (HAR entry N)

Inside NDJSON and HAR files the position is given against the file's path, as compilers do, so
editors and CI annotations can jump to it; the HAR entry follows the position.

The empty pointer is shown as ``(root)``. A finding with details (the sub-errors of ``anyOf``/``oneOf``)
gets `` (+N more; -v shows them)``; with ``-v`` each detail follows on its own line, indented by four
spaces, and each payload without findings reads ``SOURCE: ok (SCHEMA)`` (``SCHEMA@VERSION`` when it
was checked against one version of its API). The summary line's
pluralisation is documented in :mod:`jobschema.report.common`.

Control characters in sources, pointers, messages and details are shown as escapes (``\\n``,
``\\x1b``): a finding is always one line, and a payload cannot colour or rewrite the terminal.
A source that would begin a line with ``::`` (after blanks) is shown as ``./SOURCE``: CI runners
read such a line as a workflow command (GitHub Actions' ``::error::``, ``::stop-commands::``).

Colours (only with ``RenderOptions.color``): source bold, pointer yellow, ``warning:`` magenta,
``[rule]`` and the ``(+N more …)`` hint dim, ``ok`` green, summary green when every payload is valid and
red otherwise. Messages keep the terminal's colour, so red means "the run failed" and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report.common import (
    RenderOptions,
    line_start,
    line_text,
    ordered,
    shown_pointer,
    summary_text,
    visible,
)
from jobschema.text import BOLD, DIM, GREEN, MAGENTA, RED, YELLOW, Paint, painter


def render(report: Report, options: RenderOptions) -> str:
    """The whole text report, ending in the summary line and a newline."""
    return body(report, options) + closing(report.summary(), report.ok, options)


def body(report: Report, options: RenderOptions) -> str:
    """The lines of the report's results, each ending in a newline (a part of :func:`render`)."""
    paint = painter(options.color)
    return "".join(f"{line}\n" for result in report.results for line in result_lines(result, options, paint))


def closing(counts: Mapping[str, int], ok: bool, options: RenderOptions) -> str:
    """The summary line of ``counts`` (:meth:`Report.summary`) and its newline: green when ``ok``."""
    return painter(options.color)(GREEN if ok else RED, summary_text(counts)) + "\n"


def frame(counts: Mapping[str, int], ok: bool, options: RenderOptions, filled: bool) -> tuple[str, str, int]:
    """What goes before and after the :func:`body` of every part: the summary line after them."""
    return "", closing(counts, ok, options), 0


def result_lines(result: PayloadResult, options: RenderOptions, paint: Paint) -> Iterator[str]:
    """The lines of one payload: its findings, or ``SOURCE: ok (SCHEMA)`` with ``-v``."""
    if not result.findings:
        if options.verbose >= 1:
            checked = f"{result.schema}@{result.version}" if result.version else result.schema
            schema = f" ({visible(checked)})" if result.schema else ""
            yield f"{paint(BOLD, line_start(visible(result.source)))}: {paint(GREEN, 'ok')}{schema}"
        return
    for finding in ordered(result):
        yield from finding_lines(finding, options, paint)


def finding_lines(finding: Finding, options: RenderOptions, paint: Paint) -> Iterator[str]:
    """A finding's line, then (``-v``) its details; without ``-v`` a hint says how many are hidden."""
    line = finding_line(finding, paint)
    if finding.details and options.verbose < 1:
        line += paint(DIM, f" (+{len(finding.details)} more; -v shows them)")
    yield line
    if options.verbose >= 1:
        yield from detail_lines(finding)


def detail_lines(finding: Finding) -> Iterator[str]:
    """Each detail on its own line, indented by four spaces."""
    for detail in finding.details:
        yield f"    {line_text(visible(detail))}"


def finding_line(finding: Finding, paint: Paint | None = None) -> str:
    """``SOURCE:LINE:COL: POINTER: [warning: ]message [rule]`` (``PATH:LINE:COL`` inside NDJSON and HAR)."""
    paint = paint or painter(False)
    location = _location(finding)
    where = _shown_location(location, paint) + _position(finding)
    entry = _entry(finding, location)
    if entry:
        where += f": {visible(entry)}"
    return f"{where}: {_said(finding.pointer, finding.severity, finding.message, finding.rule, paint)}"


@lru_cache(maxsize=1 << 10)
def _shown_location(location: str, paint: Paint) -> str:
    """The location as shown, remembered: every finding of a file repeats it."""
    return paint(BOLD, line_start(visible(location)))


@lru_cache(maxsize=1 << 14)
def _said(pointer: str, severity: str, message: str, rule: str, paint: Paint) -> str:
    """``POINTER: [warning: ]message [rule]``, remembered: a corpus repeats its findings' words."""
    label = paint(MAGENTA, "warning:") + " " if severity == "warning" else ""
    shown = paint(YELLOW, visible(shown_pointer(pointer)))
    return f"{shown}: {label}{visible(message)} {paint(DIM, f'[{visible(rule)}]')}"


def place(finding: Finding) -> str:
    """Where a finding stands, as its line begins (unpainted, not yet escaped): ``SOURCE:LINE:COL``,
    ``PATH:LINE:COL`` inside NDJSON and HAR files, a HAR entry's ``: #N METHOD URL`` after it."""
    location = _location(finding)
    entry = _entry(finding, location)
    return location + _position(finding) + (f": {entry}" if entry else "")


def _location(finding: Finding) -> str:
    """The file path when the line is a line of that file, so editors can jump to it; else the source."""
    if finding.path and finding.line is not None and finding.source.startswith(finding.path):
        return finding.path
    if finding.line is not None and finding.source.endswith(line := f":{finding.line}"):
        return finding.source.removesuffix(line)  # an NDJSON line of stdin: its number said once
    return finding.source


def _entry(finding: Finding, location: str) -> str:
    """What the source adds to ``location`` besides a line number: the HAR entry (``#2 GET URL``)."""
    rest = finding.source[len(finding.path) :] if finding.path and location != finding.source else ""
    return _entry_of(rest) if rest else ""


@lru_cache(maxsize=1 << 10)
def _entry_of(rest: str) -> str:
    return "" if re.fullmatch(r"(:\d+)?", rest) else rest.strip()


def _position(finding: Finding) -> str:
    if finding.line is None:
        return ""
    if finding.column is None:
        return f":{finding.line}"
    return f":{finding.line}:{finding.column}"
