"""The ``junit`` format: JUnit XML for CI test-report viewers (Jenkins, GitLab, Azure, …).

One ``<testsuites>`` holding one ``<testsuite name="jobschema validate">``; one
``<testcase classname="SCHEMA" name="SOURCE">`` per payload, in input order. Choices:

- ``tests`` counts payloads, ``failures`` counts invalid payloads (failed tests, not findings);
  ``errors`` is always 0 (a payload never "errors": tool failures stop the run before any report).
- Each error finding is one ``<failure type="RULE" message="POINTER: message">``; its body is the
  finding's text-format line, followed by its details (always, indented by four spaces: the body is
  already the expanded view).
- Warnings: under ``--strict`` (``PayloadResult.strict``) warnings make a payload invalid, so every
  warning of a strict result is a ``<failure>`` too (message ``POINTER: warning: message``). Otherwise
  the payload's warnings are listed, one text-format line each, in the testcase's ``<system-out>``.
- ``skipped`` is 0: skipped inputs (e.g. other HAR entries) are not payloads, so they are not tests,
  and JUnit counts skipped tests among ``tests``. Their number is kept in
  ``<properties><property name="skipped-inputs" value="S"/></properties>``.
- Attributes (a test case's ``name`` and ``classname``, a failure's ``type`` and ``message``) show
  control characters as escapes (``\\x01``, ``\\n``), as the text format does: two names that differ
  only there stay two names, and a name stays one line. Characters XML 1.0 forbids that are left
  (U+FFFE/U+FFFF) are dropped, a lone surrogate is shown as its escape; ``<``, ``&`` and quotes are
  escaped by :mod:`xml.etree.ElementTree`.
- No ``time`` or ``timestamp`` attributes: the same report gives the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from functools import cache

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report.common import RenderOptions, ordered, shown_pointer, visible
from jobschema.report.text import detail_lines, finding_line

NAME = "jobschema validate"


@cache
def _forbidden() -> re.Pattern[str]:
    # Compiled on first use: the character class is slow to compile and imports must stay light.
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 does not allow; a lone surrogate (which no encoding
    can hold) is shown as its escape, ``\\ud800``, so a key made of one stays visible."""
    return _forbidden().sub(_shown, text)


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if 0xD800 <= code <= 0xDFFF else ""


def render(report: Report, options: RenderOptions) -> str:
    """The report as a JUnit XML document with an XML declaration and a trailing newline."""
    head, tail, _ = frame(report.summary(), report.ok, options, bool(report.results))
    return head + body(report, options) + tail


def body(report: Report, options: RenderOptions) -> str:
    """The report's test cases as :func:`render` writes them, each from its own line (a part of the
    document: :func:`frame` goes around the parts)."""
    return "".join(_case_text(_testcase(result)) for result in report.results)


def frame(counts: Mapping[str, int], ok: bool, options: RenderOptions, filled: bool) -> tuple[str, str, int]:
    """What goes before and after the :func:`body` of every part: the document around its test cases
    (``tests`` counts every payload: a report in parts keeps the clean ones)."""
    tests = {"tests": str(counts["inputs"]), "failures": str(counts["invalid"]), "errors": "0"}
    root = _suites(tests, counts["skipped"])
    ET.indent(root, space="  ")
    whole = _DECLARATION + ET.tostring(root, encoding="unicode") + "\n"
    return whole[: -len(_END)], _END, 0


_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
#: How the document ends after its last test case.
_END = "  </testsuite>\n</testsuites>\n"


def _suites(counts: dict[str, str], skipped: int) -> ET.Element:
    """The document without its test cases."""
    root = ET.Element("testsuites", {"name": NAME, **counts})
    suite = ET.SubElement(root, "testsuite", {"name": NAME, **counts, "skipped": "0"})
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "skipped-inputs", "value": str(skipped)})
    return root


def _case_text(case: ET.Element) -> str:
    """A test case written two levels deep, as :func:`ET.indent` writes it in the whole document."""
    ET.indent(case, space="  ", level=2)
    return "    " + ET.tostring(case, encoding="unicode") + "\n"


def _testcase(result: PayloadResult) -> ET.Element:
    attributes = {"classname": xml_text(visible(result.schema)), "name": xml_text(visible(result.source))}
    case = ET.Element("testcase", attributes)
    out = []
    for finding in ordered(result):
        if finding.severity == "error" or result.strict:
            _failure(case, finding)
        else:
            out.append(finding_line(finding))
    if out:
        ET.SubElement(case, "system-out").text = xml_text("\n".join(out))
    return case


def _failure(case: ET.Element, finding: Finding) -> None:
    label = "warning: " if finding.severity == "warning" else ""
    message = f"{shown_pointer(finding.pointer)}: {label}{finding.message}"
    text = "\n".join([finding_line(finding), *detail_lines(finding)])
    attributes = {"type": xml_text(visible(finding.rule)), "message": xml_text(visible(message))}
    ET.SubElement(case, "failure", attributes).text = xml_text(text)
