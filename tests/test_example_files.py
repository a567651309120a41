"""Example-file tests: adding a case means adding a file.

``tests/examples/valid/<schema>/*.json`` and ``schemas/examples/<schema>/*.json`` must validate;
``tests/examples/invalid/<schema>/<case>.json`` must fail with errors at exactly the pointer, and of
the keyword, recorded in ``<case>.expect.json``: checked against the schema alone (python-jsonschema,
the oracle) and through jobschema itself (library and command line: its pointer, rule and exit 1).
jobschema names the best match inside an ``anyOf``/``oneOf``, so an expectation may add the
``rule`` the tool reports where it differs from the schema's ``keyword``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from jobschema.pointer import from_path
from jobschema.validate import validate_payload
from jobschema.validate.formats import format_checker
from tests.support import BUNDLED, EXAMPLES, case_id, files_under, load_json, schema_document, valid_cases


@cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema_document(name), format_checker=format_checker())


def _invalid_cases() -> list[tuple[str, Path]]:
    return [(name, path) for name in BUNDLED for path in files_under(EXAMPLES / "invalid" / name)]


@pytest.mark.parametrize("case", valid_cases(), ids=case_id)
def test_valid_example(case: tuple[str, Path]) -> None:
    name, path = case
    errors = [
        f"{from_path(e.absolute_path)}: {e.message}" for e in _validator(name).iter_errors(load_json(path))
    ]
    assert errors == []


@pytest.mark.parametrize("case", _invalid_cases(), ids=case_id)
def test_invalid_example(case: tuple[str, Path]) -> None:
    name, path = case
    expected = load_json(path.with_name(path.stem + ".expect.json"))
    errors = list(_validator(name).iter_errors(load_json(path)))
    assert {from_path(error.absolute_path) for error in errors} == {expected["pointer"]}
    assert expected["keyword"] in {error.validator for error in errors}


@pytest.mark.parametrize("case", _invalid_cases(), ids=case_id)
def test_invalid_example_through_jobschema(case: tuple[str, Path], run_cli) -> None:
    """The tool's own findings, library and command line: errors at exactly the expected pointer,
    one of them with the expected rule, and exit 1."""
    name, path = case
    expected = load_json(path.with_name(path.stem + ".expect.json"))
    result = validate_payload(load_json(path), name)
    errors = [finding for finding in result.findings if finding.severity == "error"]
    assert not result.valid
    assert {finding.pointer for finding in errors} == {expected["pointer"]}
    assert expected.get("rule", expected["keyword"]) in {finding.rule for finding in errors}
    report = json.loads(run_cli(["validate", "--schema", name, "-f", "json", str(path)], code=1).stdout)
    (only,) = report["results"]
    shown = [(f["pointer"], f["rule"]) for f in only["findings"] if f["severity"] == "error"]
    assert shown == [(finding.pointer, finding.rule) for finding in errors]
    assert all(f["line"] is not None for f in only["findings"])


@pytest.mark.parametrize("case", valid_cases(), ids=case_id)
def test_valid_example_through_jobschema(case: tuple[str, Path]) -> None:
    name, path = case
    result = validate_payload(load_json(path), name)
    assert result.errors == 0, [f"{f.pointer}: {f.message}" for f in result.findings]


def test_every_invalid_case_has_an_expectation() -> None:
    orphans = [
        str(path.relative_to(EXAMPLES))
        for name in BUNDLED
        for path in files_under(EXAMPLES / "invalid" / name)
        if not path.with_name(path.stem + ".expect.json").is_file()
    ]
    assert orphans == []


@pytest.mark.parametrize("api", ["runai", "aihc"])
def test_at_least_fifteen_invalid_cases_per_api(api: str) -> None:
    count = sum(1 for name, _ in _invalid_cases() if name.startswith(api))
    assert count >= 15
