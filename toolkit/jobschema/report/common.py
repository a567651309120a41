"""What every reporter shares: the render options, finding order, pointer display and the summary line.

Summary pluralisation: the nouns ``payload``, ``error`` and ``warning`` take an ``s`` unless the count is
exactly 1 (``0 payloads``, ``1 payload``, ``2 payloads``); ``valid``, ``invalid`` and ``skipped`` are
adjectives and never change::

    3 payloads: 1 valid, 2 invalid; 1 error, 0 warnings; 2 skipped
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.secrets.policy import masked_path
from jobschema.secrets.reading import may_hold_secret, scrub
from jobschema.text import COMMAND_START, IN_LINE_COMMAND, ascii_escaped, log_safe, no_command_start, plural
from jobschema.text import visible as _escaped

__all__ = [
    "ROOT",
    "RenderOptions",
    "json_document",
    "line_start",
    "line_text",
    "ordered",
    "plural",
    "scrubbed",
    "shown_pointer",
    "summary_line",
    "summary_text",
    "visible",
]

#: How the empty pointer (the whole document) is shown to people.
ROOT = "(root)"


@dataclass(frozen=True)
class RenderOptions:
    """How to render a report.

    ``color`` adds ANSI escapes (text only); ``verbose >= 1`` lists valid payloads (text) and shows
    :attr:`Finding.details`; ``version`` is the tool version json/sarif print; ``rule_descriptions``
    maps a rule id or JSON Schema keyword to a one-line description (sarif rules).
    """

    color: bool = False
    verbose: int = 0
    version: str = "0.1.0"
    rule_descriptions: Mapping[str, str] = field(default_factory=dict)


def ordered(result: PayloadResult) -> list[Finding]:
    """A result's findings in report order: by place in the file, then pointer, rule and message."""
    return sorted(result.findings, key=Finding.sort_key)


def scrubbed(report: Report) -> Report:
    """``report`` with every secret in its sources, pointers, messages and details masked (the
    safety net under the validator's own masking; results without one are kept as they are)."""
    clean: dict[str, bool] = {}  # text -> holds no secret (a report repeats its texts)
    return replace(report, results=tuple(_scrubbed_result(result, clean) for result in report.results))


def scrubbed_result(result: PayloadResult) -> PayloadResult:
    """One result as :func:`scrubbed` gives it (the pytest plugin reports a payload at a time)."""
    return _scrubbed_result(result, {})


def _scrubbed_result(result: PayloadResult, clean: dict[str, bool]) -> PayloadResult:
    findings = tuple(_scrubbed_finding(finding, clean) for finding in result.findings)
    source = masked_path(result.source)  # (a folder's name read on its own too)
    schema = masked_path(result.schema)  # (a schema file's name: ``-s 'password=X.schema.json'``)
    same = source == result.source and schema == result.schema
    if same and all(a is b for a, b in zip(findings, result.findings, strict=True)):
        return result
    return replace(result, source=source, schema=schema, findings=findings)


def _scrubbed_finding(finding: Finding, clean: dict[str, bool]) -> Finding:
    if _texts_clean(finding, clean) and _paths_clean(finding):
        return finding
    return replace(
        finding,
        source=masked_path(finding.source),
        schema=masked_path(finding.schema),
        tokens=tuple(scrub(token) if isinstance(token, str) else token for token in finding.tokens),
        message=scrub(finding.message),
        path=masked_path(finding.path) if finding.path else finding.path,
        details=tuple(scrub(detail) for detail in finding.details),
    )


def _texts_clean(finding: Finding, clean: dict[str, bool]) -> bool:
    """Whether no text of ``finding`` holds a secret: each key of its pointer on its own (a key read
    inside the whole pointer is not decoded, a base64 key of a document holding a password, nor
    unescaped, ``postgresql:~1~1bob:X@db``), its message and its details. Plain loops: this runs for
    every finding of a report, where chains of generators cost more than the lookups they feed."""
    for token in finding.tokens:
        if isinstance(token, str) and not _clean(token, clean):
            return False
    if not _clean(finding.message, clean):
        return False
    return not finding.details or all(_clean(detail, clean) for detail in finding.details)


def _paths_clean(finding: Finding) -> bool:
    """Whether the finding's source, file and schema are shown as they are (:func:`masked_path`)."""
    source, path, schema = finding.source, finding.path, finding.schema
    return (
        masked_path(source) == source
        and (not path or masked_path(path) == path)
        and masked_path(schema) == schema
    )


def _clean(text: str, clean: dict[str, bool]) -> bool:
    known = clean.get(text)
    if known is None:
        known = clean[text] = not may_hold_secret(text)
    return known


def _scrub(text: str) -> str:
    return scrub(text) if may_hold_secret(text) else text


def json_document(data: Any) -> str:
    """``json.dumps(data, indent=2, ensure_ascii=True)`` and a newline, byte for byte, written in C.

    For the reports' own documents: strings, integers, booleans, ``None``, lists, tuples and dicts
    with string keys. orjson writes them as the standard library does with a two-space indent, but
    in UTF-8: DEL and every character beyond ASCII are then written as the standard library
    escapes them. Anything orjson would write otherwise (floats, keys that are not strings,
    integers beyond 64 bits, a lone surrogate) goes to the standard library."""
    import orjson

    if not _plain_json(data):
        return log_safe(json.dumps(data, indent=2, ensure_ascii=True) + "\n", json_text=True)
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()
    except orjson.JSONEncodeError:
        return log_safe(json.dumps(data, indent=2, ensure_ascii=True) + "\n", json_text=True)
    return log_safe(ascii_escaped(text), json_text=True)


def _plain_json(data: Any) -> bool:
    """Whether ``data`` holds only what :func:`json_document` lets orjson write (no float, no key
    that is not a string, no integer beyond 64 bits, no container twice, so no cycle): one walk."""
    stack, seen = [data], set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -(2**63) <= item < 2**64:
                return False
            continue
        if id(item) in seen:  # (the standard library then reports a cycle, or writes it twice)
            return False
        seen.add(id(item))
        if kind is dict:
            if not all(type(key) is str for key in item):
                return False
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            return False
    return True


def visible(text: str, keep: str = "") -> str:
    """``text`` as a report shows it: control characters as escapes (``\\n``, ``\\x1b``; those in
    ``keep`` left alone), a backslash that would read as the start of one doubled (``a\\nb``, with
    a backslash, is shown ``a\\\\nb``, apart from ``a`` newline ``b``: every shown text reads back
    as one text), and the ``[`` of a CI runner's in-line command shown as ``\\x5b``: Azure
    Pipelines' agent reads ``##vso[...]`` anywhere in a line, TeamCity ``##teamcity[...]``."""
    if "\\" in text:
        text = _AMBIGUOUS_BACKSLASH.sub(r"\\\\", text)
    text = _escaped(text, keep)
    if "##" in text:
        text = IN_LINE_COMMAND.sub(r"\1\\x5b", text)
    return text


#: A backslash that could begin an escape a report shows: before another backslash, ``n``, ``r``,
#: ``t``, a character shown as an escape, or the ``x``/``u`` and hex digits of an escape shown
#: (control characters, bytes of a name that is not UTF-8, the ``[`` of an in-line command
#: (:data:`jobschema.text.IN_LINE_COMMAND`), the first character of :func:`line_text`, the line
#: separators and bidirectional overrides). A pattern's
#: ``\\x2F`` or ``\\d`` is shown as it is.
_AMBIGUOUS_BACKSLASH = re.compile(
    r"\\(?=[\\nrt\x00-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069\udc80-\udcff]"
    r"|x(?:[01][0-9a-f]|7f|[89a-f][0-9a-f]|5b|3a|23|2d|2b|7e|5e|73|53|74|54)|u(?:202[8-9a-e]|206[6-9]))",
    re.IGNORECASE,
)


def line_start(shown: str) -> str:
    """``shown`` (a source or path as shown, which begins a report's line) made unable to begin a
    CI runner's command: a file named ``::warning::x.json`` is shown as ``./::warning::x.json``, the
    same file. What begins a command, after blanks: ``::`` (GitHub Actions' workflow commands),
    ``##[`` (Azure Pipelines' ``##[error]``, ``##[group]``...), ``--- ``, ``+++ ``, ``~~~ `` and
    ``^^^ +++`` (Buildkite's groups), ``section_start:``/``section_end:`` (GitLab's, which also need an
    escape character, never shown raw), ``travis_fold:``. (``##vso[`` and ``##teamcity[``, read
    anywhere in a line, are taken apart by :func:`visible`.)"""
    return f"./{shown}" if COMMAND_START.match(shown) else shown


def line_text(shown: str) -> str:
    """``shown`` (a text that is no file, begins a line of a report after its indent) made unable to
    begin a CI runner's command (:func:`line_start`): its first character after blanks shown as its
    escape, ``\\x3a:warning::``."""
    return no_command_start(shown)


def shown_pointer(pointer: str) -> str:
    """The pointer as people read it: ``(root)`` for the whole document."""
    return pointer or ROOT


def summary_line(report: Report) -> str:
    """``N payload(s): V valid, I invalid; E error(s), W warning(s); S skipped``."""
    return summary_text(report.summary())


def summary_text(counts: Mapping[str, int]) -> str:
    """:func:`summary_line` of the counts :meth:`Report.summary` gives (summed over parts)."""
    return (
        f"{plural(counts['inputs'], 'payload')}: {counts['valid']} valid, {counts['invalid']} invalid; "
        f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}; "
        f"{counts['skipped']} skipped"
    )
