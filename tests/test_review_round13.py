"""Review round 13: cases nobody wrote for round 12's features (AIHC v2 nulls, the lifecycle's case
rule, ``jobschema versions``), each fixed by class.

- An AIHC status is read in any *ASCII* case. ``state_of`` folded with :func:`str.casefold`, which also
  folds characters that are no case of an ASCII letter into ASCII letters (the long s, U+017F, as
  the S of Succeeded; the ligature U+FB05 as the St of Stopped; the Kelvin sign): such a status was
  the terminal one it resembles, so ``record`` stopped polling and ``timeline`` drew the job
  succeeded or stopped, while ``validate`` warned that the value is no known status.
- The v2 rules about pods counted a null item of ``pods`` (the schema's error) as a pod:
  ``[pod, pod, pod, pod, null]`` under ``replicas: 4`` was also "5 pods are listed, more than
  replicas 4", and a ``Restarting`` job whose ``pods`` held only nulls "has no pod restarted".
"""

from __future__ import annotations

import copy
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.lifecycle import AIHC, MAPS, State, is_terminal, is_transient, observe, state_of
from jobschema.pointer import from_path
from jobschema.validate import validate_payload
from tests.support import CAPTURES, load_json

SETTINGS = settings(derandomize=True, database=None, deadline=None, max_examples=300)
V2_CAPTURE = CAPTURES / "aihc-v2-job" / "sdk-running-4-pods.json"


# --- an AIHC status in any ASCII case, and in no other -----------------------------------------------


@cache
def _non_ascii_folds() -> dict[str, list[str]]:
    """Each ASCII text that a character other than ASCII case folds to (``s``: U+017F; ``st``: U+FB05,
    U+FB06; ``k``: the Kelvin sign), with those characters: every one Unicode has."""
    folds: dict[str, list[str]] = {}
    for code in range(0x80, sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        if folded.isascii() and folded.isalpha():
            folds.setdefault(folded, []).append(char)
    return folds


def _lookalikes() -> list[tuple[str, str]]:
    """``(status, lookalike)``: each AIHC status with one of its letters (or letter pairs) written as
    a character whose Unicode case folding is that text."""
    found = []
    for status in AIHC:
        lower = status.lower()
        for folded, chars in sorted(_non_ascii_folds().items()):
            at = lower.find(folded)
            if at >= 0:
                found += [(status, status[:at] + char + status[at + len(folded) :]) for char in chars]
    return found


def test_every_status_has_a_lookalike_to_try() -> None:
    pairs = set(_lookalikes())
    assert {
        ("Succeeded", "\u017fucceeded"),
        ("Stopped", "\ufb05opped"),
        ("Starting", "\ufb06arting"),
    } <= pairs
    assert {status for status, _ in pairs} >= {"Succeeded", "Stopped", "Starting", "Restarting", "Stopping"}


@SETTINGS
@given(st.sampled_from(_lookalikes()), st.data())
def test_a_status_holding_a_non_ascii_lookalike_is_unknown(pair: tuple[str, str], data: Any) -> None:
    status, lookalike = pair
    cased = "".join(
        char.upper() if char.isascii() and data.draw(st.booleans()) else char for char in lookalike
    )
    assert state_of("aihc", cased) is State.UNKNOWN
    assert not is_terminal("aihc", cased)
    assert not is_transient("aihc", cased)
    assert observe("aihc", cased, since_submit=1.0) is State.UNKNOWN
    assert state_of("aihc", status) is AIHC[status]  # (the status itself still is what it says)


@SETTINGS
@given(st.sampled_from(sorted(AIHC)), st.data())
def test_an_aihc_status_in_any_ascii_case_is_the_status(status: str, data: Any) -> None:
    cased = "".join(char.upper() if data.draw(st.booleans()) else char.lower() for char in status)
    assert state_of("aihc", cased) is AIHC[status]
    for api in ("runai", "pod"):  # (exact elsewhere)
        assert state_of(api, cased) is (MAPS[api].get(cased) or State.UNKNOWN)


def _v2_status_file(tmp_path: Path, status: str) -> Path:
    capture = load_json(V2_CAPTURE)
    capture["job"]["status"] = status
    capture["job"]["finishedAt"] = "2026-07-04T09:00:00Z"
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(capture, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("status", "drawn"),
    [
        ("SUCCEEDED", "succeeded"),
        ("\u017fucceeded", "unknown"),
        ("\ufb05opped", "unknown"),
        ("sToPpEd", "stopped"),
    ],
)
def test_timeline_draws_a_lookalike_status_unknown(run_cli, tmp_path: Path, status: str, drawn: str) -> None:
    result = run_cli(["timeline", str(_v2_status_file(tmp_path, status))], code=0)
    assert result.stdout.splitlines()[-1] == f"1 job: 1 {drawn}"


def test_validate_warns_of_a_lookalike_status_as_of_no_known_value(run_cli, tmp_path: Path) -> None:
    result = run_cli(["validate", "-f", "json", str(_v2_status_file(tmp_path, "\ufb05opped"))], code=0)
    findings = json.loads(result.stdout)["results"][0]["findings"]
    assert [(f["pointer"], f["rule"]) for f in findings] == [("/job/status", "known-values")]


# --- a null item of pods is no pod to the v2 rules ----------------------------------------------------

POD_RULES = ("aihc-v2-pods-exceed-replicas", "aihc-v2-restarting-without-restarts")


def _pod_findings(payload: dict[str, Any]) -> list[tuple[str, str, str]]:
    result = validate_payload(payload, schema="aihc-v2-job")
    return [(from_path(f.tokens), f.rule, f.message) for f in result.findings if f.rule in POD_RULES]


@SETTINGS
@given(
    kept=st.lists(st.integers(0, 3), unique=True, max_size=4),
    nulls=st.lists(st.integers(0, 4), max_size=4),
    status=st.sampled_from(["Running", "Restarting", "Pending", "Succeeded"]),
)
def test_null_items_of_pods_change_no_pod_rule(kept: list[int], nulls: list[int], status: str) -> None:
    capture = load_json(V2_CAPTURE)
    capture["job"]["status"] = status
    capture["job"]["pods"] = [capture["job"]["pods"][index] for index in sorted(kept)]
    with_nulls = copy.deepcopy(capture)
    pods = with_nulls["job"]["pods"]
    for at in nulls:
        pods.insert(min(at, len(pods)), None)
    assert _pod_findings(with_nulls) == _pod_findings(capture)
    result = validate_payload(with_nulls, schema="aihc-v2-job")
    errors = sorted(from_path(f.tokens) for f in result.findings if f.severity == "error")
    assert errors == sorted(f"/job/pods/{index}" for index, pod in enumerate(pods) if pod is None)


def test_five_pods_of_which_one_is_null_are_four(run_cli, tmp_path: Path) -> None:
    capture = load_json(V2_CAPTURE)
    capture["job"]["pods"].append(None)
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(capture), encoding="utf-8")
    result = run_cli(["validate", str(path)], code=1)
    assert result.stdout.splitlines()[0].endswith("/job/pods/4: expected object, got null [type]")
    assert "aihc-v2-pods-exceed-replicas" not in result.stdout
    assert result.stdout.splitlines()[-1] == "1 payload: 0 valid, 1 invalid; 1 error, 0 warnings; 0 skipped"


# --- jobschema versions says it judges AIHC too --------------------------------------------------------


def test_the_versions_summary_names_the_aihc_api(run_cli) -> None:
    result = run_cli(["versions", "--help"], code=0)
    assert "List the Run:ai (or --api aihc: AIHC) versions that accept each payload" in " ".join(
        result.stdout.split()
    )
