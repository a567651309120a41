"""The reports' safety net (:func:`jobschema.report.common.scrubbed`) reads every text of every finding:
a secret in any one of them (a key of its pointer, its message, a detail, its source, its file, its
schema's name) is masked there and nowhere else, and a finding holding none is kept as it is."""

from __future__ import annotations

import pytest

from jobschema.findings import Finding, PayloadResult, Report, problem
from jobschema.report.common import scrubbed
from jobschema.secrets import scrub
from jobschema.secrets.policy import masked_path

SECRET = "postgresql://bob:Zq8xW2mKp4Lr@db.example.com/x"
FILE = "captures/job.json"


def _finding(**fields: str) -> Finding:
    plain = problem(("spec", "env", 0, fields.get("key", "name")), fields.get("message", "is wrong"), "rule")
    detail = fields.get("detail")
    if detail is not None:
        plain = problem(plain.tokens, plain.message, "rule", details=("first", detail))
    path = fields.get("path", FILE)
    return plain.placed(fields.get("source", path), fields.get("schema", "runai-workload"), path, (3, 4))


def _only(finding: Finding) -> Finding:
    report = Report((PayloadResult(finding.source, finding.schema, (finding,)),))
    return scrubbed(report).results[0].findings[0]


def test_a_finding_without_a_secret_is_kept_as_it_is() -> None:
    finding = _finding()
    assert _only(finding) is finding


@pytest.mark.parametrize("field", ["key", "message", "detail", "source", "path", "schema"])
def test_a_secret_in_any_one_text_is_masked_there_only(field: str) -> None:
    text = f"{FILE}.{SECRET}" if field in ("source", "path") else SECRET
    assert scrub(text) != text and masked_path(text) != text  # (a text the policy masks)
    finding = _finding(**{field: text})
    shown = _only(finding)
    assert shown is not finding
    read = {
        "key": str(shown.tokens[-1]),
        "message": shown.message,
        "detail": shown.details[-1] if shown.details else "",
        "source": shown.source,
        "path": shown.path or "",
        "schema": shown.schema,
    }
    assert read[field] != text and "Zq8xW2mKp4Lr" not in read[field]
    plain = _finding()
    unchanged = {name: value for name, value in read.items() if name != field}
    if field == "path":  # (a file's findings name it as their source too)
        unchanged.pop("source")
    assert unchanged == {
        name: value
        for name, value in {
            "key": str(plain.tokens[-1]),
            "message": plain.message,
            "detail": "",
            "source": plain.source,
            "path": plain.path or "",
            "schema": plain.schema,
        }.items()
        if name in unchanged
    }
