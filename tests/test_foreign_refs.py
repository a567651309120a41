"""A schema's ``$ref`` to another document is never followed, by either validator jobschema
compiles schemas with: jsonschema-rs (``schemas.nodes.compiled``, whose retriever refuses) and
python-jsonschema (the reference engine and ``changes``' witnesses, given an empty registry:
python-jsonschema's default fetches any URL a schema names). A loopback server counts requests;
every wait is bounded by the server's own shutdown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jobschema.schemas.nodes import ForeignReference, compiled
from jobschema.schemas.registry import Schema
from jobschema.validate.reference import Reference
from tests.support import REPO, counting_server


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    with counting_server() as served:
        yield served


def _schema(url: str) -> dict[str, Any]:
    return {
        "$defs": {"n": {"type": "integer"}},
        "properties": {"a": {"$ref": f"{url}/a.json"}, "b": {"$ref": "#/$defs/n"}},
    }


@pytest.mark.parametrize("where", ["a property", "the root", "an item of allOf"])
def test_jsonschema_rs_compiles_refuse_another_document(server: tuple[str, list[str]], where: str) -> None:
    url, asked = server
    ref = {"$ref": f"{url}/x.json"}
    document = {
        "a property": {"properties": {"a": ref}},
        "the root": ref,
        "an item of allOf": {"allOf": [ref]},
    }
    with pytest.raises(ForeignReference) as raised:
        compiled(document[where])
    assert raised.value.uri == f"{url}/x.json"
    assert asked == []


def test_references_within_the_document_still_resolve() -> None:
    own = {"$id": "https://example.test/s.json", "$defs": {"n": {"type": "integer"}}}
    for ref in ("#/$defs/n", "https://example.test/s.json#/$defs/n"):
        validator = compiled({**own, "properties": {"a": {"$ref": ref}}})
        assert (validator.is_valid({"a": 1}), validator.is_valid({"a": "x"})) == (True, False)


def test_the_reference_engine_fetches_nothing(server: tuple[str, list[str]], tmp_path: Path) -> None:
    url, asked = server
    reference = Reference(Schema("user", tmp_path / "s.json", _schema(url)), lambda *_: [], strict=False)
    errors = list(reference.detailed.iter_errors({"b": "x"}))  # (a local reference: resolved)
    assert [error.message for error in errors] == ["'x' is not of type 'integer'"]
    with pytest.raises(Exception, match="Unresolvable"):
        list(reference.detailed.iter_errors({"a": 1}))
    assert asked == []


def test_changes_fetches_nothing_a_schema_file_names(
    run_cli, server: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, asked = server
    old, new = tmp_path / "old.schema.json", tmp_path / "new.schema.json"
    old.write_text(json.dumps({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}))
    new.write_text(json.dumps(_schema(url)))
    result = run_cli(["changes", str(old), str(new)])
    assert "Traceback" not in result.stderr
    assert asked == []


@pytest.mark.parametrize("keyword", ["$ref", "$schema"])
def test_validate_names_the_document_whatever_keyword_refers_to_it(
    run_cli: Any, server: tuple[str, list[str]], tmp_path: Path, keyword: str
) -> None:
    """A ``$schema`` naming a meta-schema at a URL is a reference to another document too: refused in
    the same words, nothing fetched."""
    url, asked = server
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({keyword: f"{url}/other.json", "type": "object"}))
    capture = REPO / "schemas" / "examples" / "runai-error" / "not-found.json"
    result = run_cli(["validate", "-s", str(schema), str(capture)], code=2)
    assert result.stderr == (
        f"Error: {schema}: it refers to another document, '{url}/other.json', which is not read: "
        "put what it names in the schema itself\n"
    )
    assert asked == []
