"""The ``sarif`` format: SARIF 2.1.0, for GitHub code scanning and other static-analysis viewers.

One run; ``tool.driver`` names jobschema, its version and one rule per distinct rule id the findings
use, sorted by id (``ruleIndex`` points into that list). A rule's ``shortDescription`` comes from
``RenderOptions.rule_descriptions``, else from :data:`KEYWORD_DESCRIPTIONS`, else a generic sentence;
its ``defaultConfiguration.level`` is ``error`` when any finding of the rule is an error, else
``warning``. Results are in report order, each with ``level``, ``message.text`` ``POINTER: message``
(``(root)`` for the empty pointer) and one location: ``physicalLocation`` (``Finding.path`` by
:func:`uri`; a payload read from stdin, which has no file, is the artifact ``%3Cstdin%3E``, as GitHub
code scanning rejects a whole log in which one result has no artifact URI; ``region`` only when the
line is known, ``startColumn`` only when the column is) and a ``logicalLocation`` whose
``fullyQualifiedName`` is the raw JSON Pointer. ``partialFingerprints`` holds ``jobschema/v1``, a
hash of the rule, the source, the pointer and the message with every mask as ``<secret>``: the same
finding has the same fingerprint in every run (wherever its line moves, whatever the mask key), so
code scanning matches alerts across runs. Additions beyond the minimum, all valid SARIF:
``columnKind: unicodeCodePoints`` (columns count characters) and a result property bag with the
payload ``source`` (which NDJSON record or HAR entry), its ``schema``, the ``schemaPointer`` when
known, and the ``details`` with ``-v``. ASCII-only JSON, two-space indent, trailing newline.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jobschema.findings import Finding, Report
from jobschema.report.common import RenderOptions, json_document, ordered, shown_pointer
from jobschema.secrets.mask import MASK_SHAPE

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"

#: One-line descriptions of the JSON Schema keywords and jobschema checks findings name as their rule.
KEYWORD_DESCRIPTIONS: Mapping[str, str] = {
    "additionalProperties": "The object has a property the schema does not allow.",
    "allOf": "The value does not match every subschema of allOf.",
    "anyOf": "The value matches none of the subschemas of anyOf.",
    "const": "The value is not the one constant the schema allows.",
    "contains": "The array has no item matching the contains subschema.",
    "dependentRequired": "A property is present without the properties it depends on.",
    "embedded-json": "A string that holds a JSON document does not parse or does not match its schema.",
    "enum": "The value is not one of the values the schema lists.",
    "exclusiveMaximum": "The number is not below the exclusive maximum.",
    "exclusiveMinimum": "The number is not above the exclusive minimum.",
    "false": "The schema allows no value here.",
    "format": "The string does not have the format the schema declares.",
    "known-values": "The value is not among the values seen so far for this open field.",
    "maxItems": "The array has more items than the maximum.",
    "maxLength": "The string is longer than the maximum length.",
    "maxProperties": "The object has more properties than the maximum.",
    "maximum": "The number is above the maximum.",
    "minItems": "The array has fewer items than the minimum.",
    "minLength": "The string is shorter than the minimum length.",
    "minProperties": "The object has fewer properties than the minimum.",
    "minimum": "The number is below the minimum.",
    "multipleOf": "The number is not a multiple of the required factor.",
    "not": "The value matches a subschema it must not match.",
    "oneOf": "The value does not match exactly one subschema of oneOf.",
    "parse-error": "The payload is not well-formed JSON.",
    "pattern": "The string does not match the pattern the schema declares.",
    "propertyNames": "A property name does not match the propertyNames subschema.",
    "required": "A required property is missing.",
    "soft-format": "The string does not have a documented format that real payloads are known to break.",
    "soft-pattern": "The string does not match a documented pattern that real payloads are known to break.",
    "type": "The value has the wrong JSON type.",
    "unevaluatedProperties": "The object has a property no subschema declares.",
    "uniqueItems": "The array has duplicate items.",
    "unknown-property": "The object has a property the schema does not declare.",
}


def render(report: Report, options: RenderOptions) -> str:
    """The report as a SARIF 2.1.0 log, indented JSON with a trailing newline."""
    findings = [finding for result in report.results for finding in ordered(result)]
    rules = _rules(findings, options.rule_descriptions)
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    driver = {"name": "jobschema", "version": options.version, "rules": rules}
    run = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": [_result(finding, index[finding.rule], options) for finding in findings],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json_document(log)


def describe(rule: str, descriptions: Mapping[str, str]) -> str:
    """The one-line description of a rule id or keyword."""
    return descriptions.get(rule) or KEYWORD_DESCRIPTIONS.get(rule) or f"jobschema check {rule!r}."


def _rules(findings: Iterable[Finding], descriptions: Mapping[str, str]) -> list[dict[str, Any]]:
    levels: dict[str, str] = {}
    for finding in findings:
        if levels.get(finding.rule) != "error":
            levels[finding.rule] = finding.severity
    return [
        {
            "id": rule,
            "shortDescription": {"text": describe(rule, descriptions)},
            "defaultConfiguration": {"level": levels[rule]},
        }
        for rule in sorted(levels)
    ]


def _result(finding: Finding, rule_index: int, options: RenderOptions) -> dict[str, Any]:
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.severity,
        "message": {"text": f"{shown_pointer(finding.pointer)}: {finding.message}"},
        "locations": [_location(finding)],
        "partialFingerprints": fingerprints(finding.rule, finding.source, finding.pointer, finding.message),
        "properties": _properties(finding, options),
    }


def _location(finding: Finding) -> dict[str, Any]:
    physical = physical_location(finding.path, finding.source, finding.line, finding.column)
    return {
        "physicalLocation": physical,
        "logicalLocations": [{"fullyQualifiedName": finding.pointer, "kind": "member"}],
    }


def physical_location(path: str | None, source: str, line: int | None, column: int | None) -> dict[str, Any]:
    """The ``physicalLocation`` of a place: the file ``path`` (:func:`uri`), or when there is none
    (stdin) the stream ``source`` names without its line number (``<stdin>``, escaped); the
    ``region`` when the line is known, its ``startColumn`` when the column is (both 1-based)."""
    artifact = uri(path) if path is not None else quote(_octets(_NUMBERED.sub("", source)), safe="")
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact}}
    if line is not None and line >= 1:
        physical["region"] = _region(line, column)
    return physical


#: The line number an NDJSON record of stdin adds to its source (``<stdin>:3``).
_NUMBERED = re.compile(r":\d+\Z")


def _region(line: int, column: int | None) -> dict[str, int]:
    region = {"startLine": line}
    if column is not None and column >= 1:
        region["startColumn"] = column
    return region


def fingerprints(*parts: str) -> dict[str, str]:
    """The ``partialFingerprints`` of a result made of ``parts`` (rule, source, pointer, message):
    masks are keyed per run unless JOBSCHEMA_MASK_KEY is set, so each counts as ``<secret>``."""
    text = "\0".join(MASK_SHAPE.sub("<secret>", part) for part in parts)
    return {"jobschema/v1": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]}


def _properties(finding: Finding, options: RenderOptions) -> dict[str, Any]:
    properties: dict[str, Any] = {"source": finding.source, "schema": finding.schema}
    if finding.schema_pointer is not None:
        properties["schemaPointer"] = finding.schema_pointer
    if options.verbose >= 1 and finding.details:
        properties["details"] = list(finding.details)
    return properties


def uri(path: str, windows: bool = os.name == "nt") -> str:
    """A file path as a SARIF artifact URI: percent-escapes, dot segments resolved (``./a/../b`` is
    ``b``). A relative path is a relative reference, read against the folder the run started in
    (GitHub code scanning reads it against the repository's root); an absolute path, and one that
    leaves that folder (``../x``), is a ``file://`` URI of the absolute path (code scanning makes it
    relative to the checkout; a reference ``/tmp/x`` would be read inside the repository). On Windows
    (``windows``: where this runs) backslashes separate folders, a drive path becomes ``file:///C:/…``
    and a UNC path ``file://server/share/…``; elsewhere ``C:`` and a backslash are parts of a name,
    escaped (``C%3A/x.json``)."""
    posix = path.replace("\\", "/") if windows else path
    if windows and re.match(r"[A-Za-z]:/", posix):  # (elsewhere C: is a folder's name)
        return "file:///" + posix[:2] + _escaped(posixpath.normpath("/" + posix[3:]))
    if windows and posix.startswith("//"):  # \\server\share\x
        return "file://" + _escaped(posixpath.normpath(posix).lstrip("/"))
    if posix.startswith("/"):
        return "file://" + _escaped("/" + posixpath.normpath(posix).lstrip("/"))
    relative = posixpath.normpath(posix)
    if relative == ".." or relative.startswith("../"):
        return uri(f"{Path.cwd()}/{relative}", windows)
    return _escaped(relative)


def _escaped(path: str) -> str:
    return quote(_octets(path), safe="/")


def _octets(text: str) -> bytes:
    """The bytes a path stands for: a name that was not UTF-8 (``surrogateescape``) gets its own bytes
    back; any other lone surrogate is kept as its code point's bytes rather than failing the report."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
