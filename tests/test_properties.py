"""Properties over generated payloads (jobschema.testing): validation, models, diff laws, CLI robustness.

Big payloads (AIHC job details with their pods, Run:ai workloads) get fewer examples than small
ones, so the whole module stays within a few seconds per test.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.cli import main
from jobschema.diff import Change, diff_documents
from jobschema.diff.engine import mirrored
from jobschema.testing import SCHEMAS, invalid_payloads, payloads
from jobschema.validate import validate_payload
from jobschema.validate.session import Session

from .support import CAPTURES, ROOT_CLASSES

BIG = ("runai-distributed-workload", "aihc-job-detail", "aihc-raw-request")


def examples(name: str, big: int = 20, small: int = 60) -> settings:
    """Settings for a property over payloads of ``name``: fewer examples for big payloads."""
    return settings(
        max_examples=big if name in BIG else small,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@pytest.fixture(scope="module")
def checkers() -> Session:
    return Session()


@pytest.mark.parametrize("name", SCHEMAS)
def test_valid_payloads_have_no_error_findings(name: str) -> None:
    @examples(name)
    @given(payloads(name))
    def check(payload: dict[str, Any]) -> None:
        result = validate_payload(payload, name)
        assert result.errors == 0, result.findings
        # A v2 answer may be spelled as any of its sources spell it: valid, and warned (aihc-v2-spelling).
        assert {f.rule for f in result.findings} <= {"deprecated", "aihc-v2-spelling"}, result.findings

    check()


@pytest.mark.parametrize("name", SCHEMAS)
def test_fast_and_detailed_validators_agree(name: str, checkers: Session) -> None:
    checker = checkers.checker(name)

    @examples(name, big=10, small=40)
    @given(payloads(name), invalid_payloads(name))
    def check(valid: dict[str, Any], invalid: tuple[dict[str, Any], str]) -> None:
        for payload in (valid, invalid[0]):
            assert bool(checker.fast.is_valid(payload)) == checker.reference.detailed.is_valid(payload)
        assert checker.fast.is_valid(valid)

    check()


@pytest.mark.parametrize("name", SCHEMAS)
def test_generated_models_round_trip_payloads_exactly(name: str) -> None:
    module, cls = ROOT_CLASSES[name]
    model = getattr(importlib.import_module(module), cls)

    @examples(name, big=15)
    @given(payloads(name))
    def check(payload: dict[str, Any]) -> None:
        dumped = model.model_validate(payload).model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert json.dumps(dumped, sort_keys=True) == json.dumps(payload, sort_keys=True)

    check()


@pytest.mark.parametrize("name", SCHEMAS)
def test_invalid_payloads_have_an_error_at_their_pointer(name: str) -> None:
    @examples(name)
    @given(invalid_payloads(name))
    def check(pair: tuple[dict[str, Any], str]) -> None:
        payload, pointer = pair
        errors = {f.pointer for f in validate_payload(payload, name).findings if f.severity == "error"}
        assert pointer in errors, sorted(errors)

    check()


def _mirrored(change: Change) -> tuple[Any, ...]:
    op = {"added": "removed", "removed": "added"}.get(change.op, change.op)
    path = mirrored(change.path)  # (a keyless item's side swaps: [name=null#left-1] ↔ #right-1)
    return (op, path, change.right_pointer, change.left_pointer, _json(change.new), _json(change.old))


def _plain(change: Change) -> tuple[Any, ...]:
    return (
        change.op,
        change.path,
        change.left_pointer,
        change.right_pointer,
        _json(change.old),
        _json(change.new),
    )


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("name", SCHEMAS)
def test_diff_of_a_payload_with_itself_is_same_and_diffs_mirror(name: str) -> None:
    @examples(name, big=10, small=40)
    @given(payloads(name), payloads(name))
    def check(left: dict[str, Any], right: dict[str, Any]) -> None:
        assert diff_documents(left, left, schema=name).same
        forward = diff_documents(left, right, schema=name).changes
        backward = diff_documents(right, left, schema=name).changes
        assert sorted(map(_mirrored, forward)) == sorted(map(_plain, backward))

    check()


FRAGMENTS = (
    "{", "}", "[", "]", ",", ":", '"', " ", "\n", "\ufeff", "\x00", "null", "true", "0", "-1", "404",
    "1e999", "0.5", "NaN", "-Infinity", '"\\ud800"', '"code"', '"message"', '"requestId"', '"result"',
    '"jobId"', '"podList"', '"workloadId"', '"desiredPhase"', '"jobSpec"', '"name"', '"x"', "[]", "{}",
)  # fmt: skip
JSONISH = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join).map(str.encode)
INPUTS = st.one_of(
    st.binary(max_size=300),
    JSONISH,
    payloads("runai-error").map(lambda p: json.dumps(p).encode()),
    payloads("aihc-error").map(lambda p: json.dumps(p)[: len(json.dumps(p)) // 2].encode()),
)


def _invoke(args: list[str], data: bytes) -> tuple[int, str]:
    result = CliRunner().invoke(main, args, input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    output = result.output
    assert "Traceback" not in output and "internal error" not in output, output
    return result.exit_code, output


def _valid_json(data: bytes) -> Any:
    try:
        return validate_payload(json.loads(data.decode("utf-8-sig"))).valid
    except ValueError:
        return False


@settings(max_examples=100, deadline=None)
@given(INPUTS)
def test_validate_from_stdin_never_crashes(data: bytes) -> None:
    code, _ = _invoke(["validate", "-"], data)
    assert code in (1, 2) or (code == 0 and _valid_json(data))


@settings(max_examples=100, deadline=None)
@given(INPUTS)
def test_diff_from_stdin_never_crashes(data: bytes) -> None:
    code, output = _invoke(["diff", "-", str(CAPTURES / "runai-error" / "not-found.json")], data)
    assert code in (0, 1, 2)
    if code == 2:
        assert output.startswith("Error: "), output
