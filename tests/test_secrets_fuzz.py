"""Hypothesis fuzzing of every renderer (validate's five formats, diff's three, coverage's three) with
arbitrary unicode, lone surrogates included, in values, keys and sources, next to planted
credentials: no exception, output that encodes as UTF-8 (json and sarif: ASCII), no credential."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.coverage import coverage_payloads
from jobschema.coverage.report import FORMATS as COVERAGE_FORMATS
from jobschema.coverage.report import render as render_coverage
from jobschema.diff.render import FORMATS as DIFF_FORMATS
from jobschema.diff.render import render as render_diff
from jobschema.diff.result import Change, DiffResult, Pair
from jobschema.findings import Finding, PayloadResult, Report
from jobschema.report import FORMATS as VALIDATE_FORMATS
from jobschema.report import RenderOptions
from jobschema.report import render as render_validate

#: Credentials of distinct shapes; each must be gone from every report.
PLANTED = (
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6LTEifQ.ZnV6ei1zaWduYXR1cmUtMQ",
    "AKIAFUZZPLANTED00001",
    "ghp_FUZZplanted0123456789abcdefghijklmnop",
    "hf_FUZZplanted0123456789abcdefghijklmn",
    "xoxb-1234567890-FUZZplanted",
)
#: How a planted credential stands in a text: a shape of its own, or after a credential-like name.
CONTEXTS = ("{}", "Bearer {}", "token={}", "--password {}", '"clientSecret": "{}"')

TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=24)
planted = st.builds(lambda c, s: c.format(s), st.sampled_from(CONTEXTS), st.sampled_from(PLANTED))


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Arbitrary text with a planted credential somewhere, set apart by spaces."""
    return f"{draw(TEXT)} {draw(planted)} {draw(TEXT)}"


def _clean(text: str, ascii_only: bool) -> None:
    text.encode("ascii" if ascii_only else "utf-8")
    assert [s for s in PLANTED if s in text] == []


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("fmt", VALIDATE_FORMATS)
@SETTINGS
@given(source=texts(), pointer=TEXT, message=texts(), detail=texts(), schema=TEXT, rule=TEXT)
def test_validate_reports(
    fmt: str, source: str, pointer: str, message: str, detail: str, schema: str, rule: str
) -> None:
    finding = Finding(
        source, "/" + pointer, message, rule or "type", schema=schema, line=1, column=2, details=(detail,)
    )
    warning = Finding(source, "", message, "x", severity="warning", schema=schema, path=source)
    report = Report(
        (PayloadResult(source, schema, (finding, warning)), PayloadResult(source, schema)), skipped=1
    )
    for verbose in (0, 1):
        _clean(render_validate(report, fmt, RenderOptions(verbose=verbose)), fmt in ("json", "sarif"))


@pytest.mark.parametrize("fmt", DIFF_FORMATS)
@SETTINGS
@given(path=texts(), old=texts(), key=texts(), warning=texts(), label=texts())
def test_diff_reports(fmt: str, path: str, old: str, key: str, warning: str, label: str) -> None:
    changes = (
        Change("changed", path, "/a", "/a", old, {key: [old]}),
        Change("added", key, None, "/b", None, {"k": old}),
        Change("removed", label, "/c", None, [old], None),
    )
    results = (
        DiffResult("aihc-job-detail", changes, warnings=(warning,)),
        DiffResult(
            "runai", changes, "roles", (Pair(label, key, changes, expected=((path, 1),)),), {key: old}
        ),
    )
    for result in results:
        for stat in (False, True):
            _clean(render_diff(result, fmt, stat_only=stat), False)


@pytest.mark.parametrize("fmt", COVERAGE_FORMATS)
@SETTINGS
@given(key=texts(), value=texts(), message=texts())
def test_coverage_reports(fmt: str, key: str, value: str, message: str) -> None:
    payload: dict[str, Any] = {"code": 404, "message": message, key: value, "details": [{key: value}]}
    report = coverage_payloads([(None, payload), ("runai-error", {"code": value, key: {key: value}})])
    for verbose in (0, 1):
        _clean(render_coverage(report, fmt, verbose), False)


def test_planted_credentials_are_each_a_shape() -> None:
    from jobschema.secrets import scrub

    assert [s for s in PLANTED if scrub(s) == s] == []
    assert json.dumps(CONTEXTS)
