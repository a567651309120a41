"""The hand-authored schemas follow the conventions of schemas/README.md."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from jobschema.validate.formats import format_checker
from tests.support import BUNDLED, CAPTURES, SHARED_SEEDS, load_json, schema_document, schema_nodes


@pytest.mark.parametrize("name", BUNDLED)
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = schema_document(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", BUNDLED)
def test_schema_header(name: str) -> None:
    schema = schema_document(name)
    assert schema["$id"] == f"urn:jobschema:schema:{name}"
    assert schema["title"].strip()
    assert schema["description"].strip()
    assert schema["examples"], "the schema carries its official example"


@pytest.mark.parametrize("name", BUNDLED)
def test_every_property_has_a_description(name: str) -> None:
    missing = [
        f"{path}/properties/{key}"
        for path, node in schema_nodes(schema_document(name))
        if isinstance(node, dict) and isinstance(node.get("properties"), dict)
        for key, sub in node["properties"].items()
        if not (isinstance(sub, dict) and str(sub.get("description", "")).strip())
    ]
    assert missing == []


@pytest.mark.parametrize("name", BUNDLED)
def test_objects_stay_open_and_extensions_are_namespaced(name: str) -> None:
    closed, foreign = [], []
    for path, node in schema_nodes(schema_document(name)):
        if not isinstance(node, dict):
            continue
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            closed.append(path)
        foreign += [
            f"{path}/{key}" for key in node if key.startswith("x-") and not key.startswith("x-jobschema-")
        ]
    assert closed == []
    assert foreign == []


@pytest.mark.parametrize("name", BUNDLED)
def test_schema_examples_validate(name: str) -> None:
    schema = schema_document(name)
    validator = jsonschema.Draft202012Validator(schema, format_checker=format_checker())
    for example in schema["examples"]:
        assert [error.message for error in validator.iter_errors(example)] == []


def _seed_json(file_name: str) -> Any:
    text = (SHARED_SEEDS / file_name).read_text(encoding="utf-8")
    lines = text.splitlines()
    if file_name.startswith("003_"):  # JSON lines carry a line-number prefix in this copy
        start = next(i for i, line in enumerate(lines) if re.fullmatch(r"1\{", line))
        body = [re.sub(r"^\d+", "", line, count=1) for line in lines[start:]]
        body = body[: next(i for i, line in enumerate(body) if line == "}") + 1]
    else:
        start = lines.index("{")
        body = lines[start : lines.index("}", start) + 1]
    return json.loads("\n".join(body))


SEEDS = {
    "runai-distributed-workload": "000_f2c9fa3ff1f6f424.txt",
    "aihc-job-detail": "003_a713d26c2d9ee5e5.txt",
}


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
@pytest.mark.parametrize("name", sorted(SEEDS))
def test_official_example_is_carried_exactly(name: str) -> None:
    seed = _seed_json(SEEDS[name])
    assert schema_document(name)["examples"][0] == seed
    assert load_json(CAPTURES / name / "seed.json") == seed


@pytest.mark.skipif(not SHARED_SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout")
def test_raw_request_example_is_the_seed_annotation() -> None:
    seed = _seed_json(SEEDS["aihc-job-detail"])
    annotations = seed["result"]["podList"]["pods"][0]["objectMeta"]["annotations"]
    raw = json.loads(annotations["aijob.cce.baidubce.com/raw-request"])
    assert schema_document("aihc-raw-request")["examples"][0] == raw
    assert load_json(CAPTURES / "aihc-raw-request" / "seed.json") == raw
