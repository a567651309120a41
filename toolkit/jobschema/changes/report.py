"""The report of ``jobschema changes`` in each format: text, json, markdown, github, sarif, junit.

Every format is drawn from one JSON document (:func:`document`, described by
``schemas/changes-report.schema.json``), which goes through the secret policy first
(:func:`jobschema.secrets.policy.masked`): descriptions and witness payloads are text from schemas and
strategies, and nothing reaches an output unread. Changes are in one order on every run (schema,
place, rule, values); the same outcome gives the same bytes.

Text lists breaking, strict and info changes one per line, grouped by class; safe changes are
counted, and listed with ``-v``. A line reads::

    breaking  /spec/compute/migProfile: removed [property-removed, since 2.24] 3f2a...
              in 37 of 1,204 captured payloads
              witness: accepted by runai@2.18, rejected by runai@2.24: /spec/compute/migProfile: ...
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

from jobschema.changes.compare import KINDS, RULES, Change
from jobschema.changes.run import Entry, Outcome
from jobschema.report.common import line_start, visible
from jobschema.report.github import escape_data, escape_property
from jobschema.report.junit import xml_text
from jobschema.report.sarif import SCHEMA_URI, physical_location
from jobschema.secrets.names import is_secret_name
from jobschema.secrets.policy import mask, masked, masked_pointer_text
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import printable
from jobschema.text import (
    BOLD,
    DIM,
    GREEN,
    RED,
    YELLOW,
    markdown_code,
    markdown_text,
    painter,
    plural,
)

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit")
REPORT_VERSION = 1
_LEVEL = {"breaking": "error", "strict": "warning", "info": "note", "safe": "note"}


def render(outcome: Outcome, fmt: str, version: str, *, verbose: bool = False, color: bool = False) -> str:
    """The report in ``fmt``, ending in a newline."""
    data = document(outcome, version)
    drawn = {
        "json": lambda: json.dumps(data, indent=2, ensure_ascii=True) + "\n",
        "text": lambda: _text(data, verbose, color),
        "markdown": lambda: _markdown(data, verbose),
        "github": lambda: _github(data),
        "sarif": lambda: _sarif(data),
        "junit": lambda: _junit(data),
    }[fmt]()
    return printable(scrub(drawn, level="shapes"))


def document(outcome: Outcome, version: str) -> dict[str, Any]:
    """The report as JSON data, through the secret policy."""
    counts = {kind: sum(1 for e in outcome.entries if e.change.kind == kind) for kind in KINDS}
    data: dict[str, Any] = {
        "tool": "jobschema",
        "version": version,
        "report_version": REPORT_VERSION,
        "old": outcome.old,
        "new": outcome.new,
        "fail_on": outcome.fail_on,
        "failed": outcome.failed,
        "summary": {
            **counts,
            "accepted": sum(1 for e in outcome.entries if e.accepted),
            "failing": sum(1 for e in outcome.entries if e.failing),
            "hidden": outcome.hidden,
        },
        "captures": None
        if outcome.payloads is None
        else {"payloads": outcome.payloads, "unread": list(outcome.unread)},
        "changes": [_change(entry) for entry in outcome.entries],
    }
    return dict(masked(data))


#: Rules whose old and new are values a payload carries at the place (an enum value).
_VALUE_RULES = frozenset({"enum-value-added", "enum-value-removed", "enum-added", "enum-removed"})


def _at_secret(change: Change) -> Change:
    """``change`` with the values it quotes masked whole when its place's name says credential
    (``/password``: the value may be one, as its witness payload masks it)."""
    last = change.place[-1] if change.place else None
    if change.rule not in _VALUE_RULES or not isinstance(last, str) or not is_secret_name(last):
        return change

    def hidden(value: Any) -> Any:
        if isinstance(value, list):
            return [hidden(item) for item in value]
        return mask(value) if value is not None else None

    old, new = hidden(change.old), hidden(change.new)
    message = change.message
    for before, after in ((change.old, old), (change.new, new)):
        if before is not None and not isinstance(before, list):
            message = message.replace(json.dumps(before, sort_keys=True), json.dumps(after))
    return replace(change, message=message, old=old, new=new)


def _change(entry: Entry) -> dict[str, Any]:
    change = _at_secret(entry.change)
    found: dict[str, Any] = {
        "id": entry.change.fingerprint,  # (of the change as found, not as shown)
        "class": change.kind,
        "rule": change.rule,
        "schema": change.schema,
        "path": masked_pointer_text(change.path),  # (each key read whole, before it was escaped)
        "message": change.message,
        "old": change.old,
        "new": change.new,
        "versions": {"old": entry.old_version, "new": entry.new_version, "since": change.since},
        "accepted": entry.accepted,
        "failing": entry.failing,
    }
    if entry.carrying is not None:
        found["impact"] = {
            "payloads": entry.counted,
            "carrying": entry.carrying,
            "with_value": entry.with_value,
        }
    if entry.witness is not None:
        witness = entry.witness
        found["witness"] = {
            "accepted_by": witness.accepted_by,
            "proven": witness.proven,
            "old_errors": list(witness.old_errors),
            "new_errors": list(witness.new_errors),
            "payload": witness.payload,
        }
    return found


# ------------------------------------------------------------------------------------------- text


def _text(data: dict[str, Any], verbose: bool, color: bool) -> str:
    paint = painter(color)
    tone = {"breaking": RED, "strict": YELLOW, "info": DIM, "safe": GREEN}
    lines = [paint(BOLD, f"{line_start(visible(data['old']))} -> {visible(data['new'])}: {_tally(data)}")]
    for kind in KINDS:
        chosen = [c for c in data["changes"] if c["class"] == kind]
        if kind == "safe" and not verbose:
            if chosen:
                lines.append(paint(DIM, f"{plural(len(chosen), 'safe change')} (-v lists them)"))
            continue
        for change in chosen:
            lines.append(f"{paint(tone[kind], kind.ljust(8))}  {_line(change)}")
            lines += [f"{'':10}{extra}" for extra in _extras(change, data)]
    lines.append(_verdict(data))
    return "\n".join(lines) + "\n"


def _tally(data: dict[str, Any]) -> str:
    summary = data["summary"]
    parts = [f"{summary[kind]} {kind}" for kind in KINDS]
    total = sum(summary[kind] for kind in KINDS)
    hidden = f"; {summary['hidden']} not in the captures, hidden" if summary["hidden"] else ""
    return f"{plural(total, 'change')} ({', '.join(parts)}){hidden}"


def _line(change: dict[str, Any]) -> str:
    versions = change["versions"]
    since = f", since {versions['since']}" if versions["since"] else ""
    accepted = " (accepted in baseline)" if change["accepted"] else ""
    rule = f"[{change['rule']}{since}]"
    return visible(f"{_where(change)}: {change['message']} {rule} {change['id']}{accepted}")


def _where(change: dict[str, Any]) -> str:
    """``SCHEMA PATH``: where a change is (``(root)`` for the schema's own value)."""
    where = f"{change['schema']} " if change["schema"] else ""
    return f"{where}{change['path'] or '(root)'}"


def _extras(change: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """The lines under a change: its impact on the captures, its witness."""
    extras: list[str] = []
    impact = change.get("impact")
    if impact is not None:
        text = f"in {impact['carrying']:,} of {impact['payloads']:,} captured {change['schema']} payloads"
        if impact["with_value"] is not None:
            text += f"; with this value: {impact['with_value']:,}"
        extras.append(text)
    witness = change.get("witness")
    if witness is not None:
        extras.append(visible(_witness_line(witness, data)))
    return extras


def _witness_line(witness: dict[str, Any], data: dict[str, Any]) -> str:
    accepted = data[witness["accepted_by"]]
    other = "new" if witness["accepted_by"] == "old" else "old"
    errors = witness[f"{other}_errors"]
    if witness["proven"]:
        return f"witness: accepted by {accepted}, rejected by {data[other]}: {errors[0]}"
    mine = witness[f"{witness['accepted_by']}_errors"]
    why = f"{accepted} rejects it: {mine[0]}" if mine else f"{data[other]} accepts it too"
    return (
        f"witness not proven: no payload found that {accepted} accepts and {data[other]} rejects "
        f"(the smallest tried: {why})"
    )


def _verdict(data: dict[str, Any]) -> str:
    summary = data["summary"]
    if data["fail_on"] == "never":
        return "not failing on any change (--fail-on never)"
    accepted = f"; {summary['accepted']} accepted in the baseline" if summary["accepted"] else ""
    threshold = f"at or above --fail-on {data['fail_on']}{accepted}"
    if data["failed"]:
        return f"FAILED: {plural(summary['failing'], 'change')} {threshold}"
    return f"passed: no change {threshold}"


# ------------------------------------------------------------------------------------------- markdown


def _markdown(data: dict[str, Any], verbose: bool) -> str:
    lines = [f"## {markdown_code(data['old'])} → {markdown_code(data['new'])}", "", _tally(data), ""]
    chosen = [c for c in data["changes"] if verbose or c["class"] != "safe"]
    chosen.sort(key=lambda change: KINDS.index(change["class"]))  # stable: place order within a class
    if chosen:
        with_impact = data["captures"] is not None
        head = ["class", "path", "change", "rule", "since"] + (["in captures"] if with_impact else [])
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for change in chosen:
            cells = [
                change["class"] + (" (accepted)" if change["accepted"] else ""),
                markdown_code(_where(change)),
                markdown_text(change["message"]),
                markdown_code(change["rule"]),
                markdown_text(change["versions"]["since"] or ""),
            ]
            if with_impact:
                impact = change.get("impact") or {}
                cells.append(f"{impact.get('carrying', 0):,} of {impact.get('payloads', 0):,}")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(_verdict(data))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- github


def _github(data: dict[str, Any]) -> str:
    lines = []
    for change in data["changes"]:
        if change["class"] not in ("breaking", "strict"):
            continue
        level = "error" if change["failing"] else "warning"
        title = escape_property(f"{change['class']}: {change['rule']}")
        lines.append(f"::{level} title={title}::{escape_data(_line(change))}")
    lines.append(_verdict(data))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------- sarif


def _sarif(data: dict[str, Any]) -> str:
    used = sorted({change["rule"] for change in data["changes"]})
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": RULES[rule][1]},
            "properties": {"class": RULES[rule][0]},
            "defaultConfiguration": {"level": _LEVEL[RULES[rule][0]]},
        }
        for rule in used
    ]
    index = {rule: position for position, rule in enumerate(used)}
    results = [
        {
            "ruleId": change["rule"],
            "ruleIndex": index[change["rule"]],
            "level": "error" if change["failing"] else _LEVEL[change["class"]],
            "message": {"text": _line(change)},
            "locations": [
                {
                    "physicalLocation": physical_location(_schema_file(data, change), "", None, None),
                    "logicalLocations": [
                        {"fullyQualifiedName": f"{change['schema']}{change['path']}", "kind": "member"}
                    ],
                }
            ],
            "partialFingerprints": {"jobschemaChange/v1": change["id"]},
            "properties": {"class": change["class"], "accepted": change["accepted"]},
        }
        for change in data["changes"]
    ]
    driver = {"name": "jobschema", "version": data["version"], "rules": rules}
    run = {"tool": {"driver": driver}, "results": results}
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


def _schema_file(data: dict[str, Any], change: dict[str, Any]) -> str:
    """The file a change is in, for code scanning, which refuses a result without one: NEW when it
    names a schema file, else the bundled schema the change's place belongs to (relative to the
    working folder when inside it)."""
    from jobschema.schemas.registry import BUNDLED, bundled_path

    new = data["new"]
    if isinstance(new, str) and new not in BUNDLED and Path(new).is_file():
        return new
    name = change["schema"]
    if name not in BUNDLED:
        return new
    path = bundled_path(name)
    inside = path.is_relative_to(Path.cwd())  # (a checkout of jobschema: its schemas/ folder)
    return str(path.relative_to(Path.cwd())) if inside else str(path)


# ------------------------------------------------------------------------------------------- junit


def _junit(data: dict[str, Any]) -> str:
    name = f"jobschema changes {data['old']} -> {data['new']}"
    failing = sum(1 for change in data["changes"] if change["failing"])
    counts = {"tests": str(len(data["changes"])), "failures": str(failing), "errors": "0"}
    root = ET.Element("testsuites", {"name": xml_text(visible(name)), **counts})
    suite = ET.SubElement(root, "testsuite", {"name": xml_text(visible(name)), **counts, "skipped": "0"})
    for change in data["changes"]:
        attributes = {
            "classname": xml_text(visible(change["schema"] or "schema")),
            "name": xml_text(visible(f"{change['path'] or '(root)'} {change['rule']} {change['id']}")),
        }
        case = ET.SubElement(suite, "testcase", attributes)
        if change["failing"]:
            failure = ET.SubElement(
                case, "failure", {"type": change["rule"], "message": xml_text(_line(change))}
            )
            failure.text = xml_text("\n".join(_extras(change, data)))
        else:
            ET.SubElement(case, "system-out").text = xml_text(change["class"] + ": " + _line(change))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
