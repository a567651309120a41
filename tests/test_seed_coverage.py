"""Every key of every bundled capture (and of the raw-request annotations inside them) is declared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobschema.pointer import from_path
from jobschema.validate.strict import undeclared
from tests.support import BUNDLED, CAPTURES, files_under, load_json, schema_document

RAW_REQUEST = "aijob.cce.baidubce.com/raw-request"


def _captures() -> list[tuple[str, Path]]:
    return [(name, path) for name in BUNDLED for path in files_under(CAPTURES / name)]


@pytest.mark.parametrize("name", BUNDLED)
def test_schema_examples_are_fully_declared(name: str) -> None:
    schema = schema_document(name)
    for example in schema["examples"]:
        assert [from_path(item.tokens) for item in undeclared(example, schema)] == []


@pytest.mark.parametrize("case", _captures(), ids=lambda case: f"{case[0]}/{case[1].name}")
def test_capture_is_fully_declared(case: tuple[str, Path]) -> None:
    name, path = case
    assert [from_path(item.tokens) for item in undeclared(load_json(path), schema_document(name))] == []


def test_embedded_raw_requests_are_fully_declared() -> None:
    schema = schema_document("aihc-raw-request")
    checked = 0
    for path in files_under(CAPTURES / "aihc-job-detail"):
        for pod in load_json(path)["result"]["podList"]["pods"]:
            text = pod["objectMeta"].get("annotations", {}).get(RAW_REQUEST)
            if text is not None:
                assert [from_path(item.tokens) for item in undeclared(json.loads(text), schema)] == []
                checked += 1
    assert checked > 0


def test_undeclared_key_is_reported_with_its_pointer() -> None:
    schema = schema_document("runai-distributed-workload")
    payload = load_json(CAPTURES / "runai-distributed-workload" / "seed.json")
    payload["spec"]["compute"]["gpuVendor"] = "nvidia"
    payload["spec"]["labels"][0]["owner/team"] = "ml"
    payload["brandNew"] = 1
    assert [from_path(item.tokens) for item in undeclared(payload, schema)] == [
        "/brandNew",
        "/spec/compute/gpuVendor",
        "/spec/labels/0/owner~1team",
    ]
