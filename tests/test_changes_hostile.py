"""``jobschema changes`` on user schema files nobody would write on purpose: a credential as a property
name (masked in every format), values that are Markdown or HTML (text in the markdown table), and
schemas whose payloads cannot be drawn (a recursive or another document's ``$ref``: changes reported
without a witness, never an internal error)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

BASE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "phase"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string"},
        "phase": {"type": "string", "enum": ["A", "B"]},
        "count": {"type": "integer"},
    },
}
SECRET = "Hunter9Secret"
FORMATS = ["text", "json", "markdown", "github", "sarif", "junit"]


def _write(tmp_path: Path, name: str, document: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def _changed(tmp_path: Path, name: str, change: Any) -> tuple[str, str]:
    new = copy.deepcopy(BASE)
    change(new)
    return _write(tmp_path, "base.json", BASE), _write(tmp_path, name, new)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_credential_in_a_property_name_is_masked_in_every_format(run_cli, tmp_path: Path, fmt: str) -> None:
    old, new = _changed(
        tmp_path,
        "leak.json",
        lambda s: s["properties"].update({f"https://alice:{SECRET}@h/p": {"type": "string"}}),
    )
    result = run_cli(["changes", old, new, "-f", fmt], code=0)
    assert SECRET not in result.stdout + result.stderr
    assert "<secret:" in result.stdout or "&lt;secret:" in result.stdout


def test_markdown_and_html_in_values_are_text_in_the_markdown_table(run_cli, tmp_path: Path) -> None:
    hostile = ["<img src=x onerror=alert(1)>", "[click](javascript:alert(1))", "a|b`c"]
    old, new = _changed(tmp_path, "evil.json", lambda s: s["properties"]["phase"]["enum"].extend(hostile))
    markdown = run_cli(["changes", old, new, "-f", "markdown", "--no-witnesses"], code=1).stdout
    rows = [line for line in markdown.splitlines() if line.startswith("| ") and "enum" in line]
    assert len(rows) == 3
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)
        assert len(cells) == 7, row  # five cells, whatever the value holds
        assert not re.search(r"(?<!\\)[<\[\]`]", cells[3]), row  # the change, as text


RECURSIVE = {
    "Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}, "v": {"type": "string"}}}
}


def _recursive(nullable: bool) -> dict[str, Any]:
    document = copy.deepcopy(BASE)
    document["$defs"] = copy.deepcopy(RECURSIVE)
    document["properties"]["tree"] = {"$ref": "#/$defs/Node"}
    if nullable:
        document["$defs"]["Node"]["properties"]["v"] = {"type": ["string", "null"]}
    return document


def test_a_recursive_schema_has_its_changes_reported_without_a_witness(run_cli, tmp_path: Path) -> None:
    old = _write(tmp_path, "rec.json", _recursive(False))
    new = _write(tmp_path, "rec_nullable.json", _recursive(True))
    result = run_cli(["changes", old, new, "-f", "json"], code=1)
    (change,) = json.loads(result.stdout)["changes"]
    assert (change["path"], change["rule"], "witness" in change) == ("/tree/v", "nullable-added", False)


@pytest.mark.parametrize("ref", ["other.json#/foo", "https://example.invalid/x.json"])
def test_a_ref_to_another_document_leaves_the_changes_without_witnesses(
    run_cli, tmp_path: Path, ref: str
) -> None:
    old, new = _changed(tmp_path, "ext.json", lambda s: s["properties"].update(x={"$ref": ref}))
    result = run_cli(["changes", old, new, "-f", "json"], code=0)
    assert "internal error" not in result.stderr
    rules = [(c["path"], c["rule"], "witness" in c) for c in json.loads(result.stdout)["changes"]]
    assert ("/x", "property-added-closed", False) in rules
