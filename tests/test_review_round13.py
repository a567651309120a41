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


# --- one string given where the library takes several is one, never one per character ---------------

SPEC_A = {"workloadId": "1", "desiredPhase": "Running", "name": "x", "spec": {"a": 1, "b": 2}}
SPEC_B = {"workloadId": "1", "desiredPhase": "Running", "name": "x", "spec": {"a": 3, "b": 4}}


@pytest.mark.parametrize("pattern", ["/spec/a", "/", "spec.b", "/spec/*"])
@pytest.mark.parametrize("option", ["ignore", "only"])
def test_a_diff_pattern_given_as_a_string_is_one_pattern(option: str, pattern: str) -> None:
    from jobschema.diff import DiffOptions, diff_documents

    def paths(given: Any) -> list[str]:
        found = diff_documents(SPEC_A, SPEC_B, options=DiffOptions(**{option: given}))
        return [change.path for change in found.changes]

    assert paths(pattern) == paths((pattern,)) == paths([pattern])
    assert DiffOptions(**{option: pattern}) == DiffOptions(**{option: (pattern,)})


def test_ignore_given_as_a_string_hides_only_what_it_names() -> None:
    from jobschema.diff import DiffOptions, diff_documents

    found = diff_documents(SPEC_A, SPEC_B, options=DiffOptions(ignore="/spec/a"))
    assert [change.path for change in found.changes] == ["spec.b"]  # (before: [], '/' ignored all)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (3, "ignore: expected a string or an iterable of strings, not int"),
        ({"/spec/a": True}, "ignore: expected a string or an iterable of strings, not dict"),
        (b"/spec/a", "ignore: expected a string or an iterable of strings, not bytes"),
        (["/spec/a", 3], "ignore: expected strings, not int"),
    ],
)
def test_a_diff_pattern_that_is_no_string_is_a_type_error(given: Any, message: str) -> None:
    from jobschema.diff import DiffOptions

    with pytest.raises(TypeError) as raised:
        DiffOptions(ignore=given)
    assert str(raised.value) == message


@pytest.mark.parametrize("as_given", [str, Path, lambda name: [name], lambda name: (Path(name),)])
def test_judge_paths_reads_one_path_as_one(as_given: Any) -> None:
    from jobschema.validate.accepted import judge_paths

    judged = judge_paths(as_given(str(V2_CAPTURE)), api="aihc")
    assert [(v.source, v.accepted) for v in judged.verdicts] == [(str(V2_CAPTURE), ("v2",))]
    assert judged.skipped == 0


@pytest.mark.parametrize(("given", "kind"), [(3, "int"), ({"a.json": 1}, "dict")])
def test_judge_paths_names_inputs_that_are_no_paths(given: Any, kind: str) -> None:
    from jobschema.validate.accepted import judge_paths

    with pytest.raises(TypeError) as raised:
        judge_paths(given)
    assert str(raised.value) == f"inputs: expected a path or an iterable of paths, not {kind}"


RUNAI_CAPTURE = CAPTURES / "runai-distributed-workload" / "mpi-job.json"


@pytest.mark.parametrize("as_given", [str, Path])
def test_serve_start_serves_one_capture_given_as_a_string(as_given: Any) -> None:
    import httpx

    from jobschema.serve import start
    from tests.serve_support import TIMEOUT, bearer

    workload = load_json(RUNAI_CAPTURE)["workloadId"]
    with start(captures=as_given(str(RUNAI_CAPTURE))) as server:
        answer = httpx.get(
            f"{server.url}/api/v1/workloads/distributed/{workload}", headers=bearer(server), timeout=TIMEOUT
        )
    assert (answer.status_code, answer.json()["workloadId"]) == (200, workload)


def test_record_records_one_job_given_as_a_string(jobschema_server, tmp_path: Path) -> None:
    import io

    from jobschema.record import RecordOptions, Schedule, record
    from tests.record_support import FakeTime, submit_workload

    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": ["Pending", "Running", "Completed"]}, clock=fake)
    job = submit_workload(server)
    options = RecordOptions(
        "runai", server.url, job, output=tmp_path / "rec.ndjson", schedule=Schedule(interval=10.0, count=20)
    )
    assert options.jobs == (job,)
    err = io.StringIO()
    outcome = record(
        options,
        env=server.credentials.as_env(),
        runtime=fake.runtime(),
        out=io.StringIO(),
        err=err,
        tty=False,
    )
    assert [state.job for state in outcome.jobs] == [job]
    assert outcome.code == 0 and outcome.jobs[0].done == "terminal"


# --- one payload given where the library takes several is a TypeError, never its keys or characters --

ONE_PAYLOAD = {"requestId": "r", "job": {"jobid": "a", "name": "a", "status": "Running"}}


@pytest.mark.parametrize(
    ("items", "kind"), [(ONE_PAYLOAD, "dict"), (json.dumps(ONE_PAYLOAD), "str"), (b"{}", "bytes"), (3, "int")]
)
def test_validate_payloads_names_one_payload_given_for_several(items: Any, kind: str) -> None:
    from jobschema.validate.payloads import validate_payloads

    with pytest.raises(TypeError) as raised:
        validate_payloads(items)
    assert str(raised.value) == (
        f"items: expected an iterable of payloads, not {kind} (validate_payload checks one payload)"
    )


def test_validate_payloads_still_reads_a_generator_and_pairs() -> None:
    from jobschema.validate.payloads import validate_payloads

    report = validate_payloads(iter([ONE_PAYLOAD, ("named.json", ONE_PAYLOAD)]))
    assert [(r.source, r.schema) for r in report.results] == [
        ("<payload>", "aihc-v2-job"),
        ("named.json", "aihc-v2-job"),
    ]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (ONE_PAYLOAD, "items: expected an iterable of (schema name or None, payload) pairs, not dict"),
        ([ONE_PAYLOAD], "items: expected (schema name or None, payload) pairs; item 0 is a dict"),
        (
            [(None, ONE_PAYLOAD, 1)],
            "items: expected (schema name or None, payload) pairs; item 0 is a tuple of 3",
        ),
        (
            [(None, ONE_PAYLOAD), (3, ONE_PAYLOAD)],
            "items: expected (schema name or None, payload) pairs; "
            "item 1 is a pair whose schema name is no str (int)",
        ),
    ],
)
def test_coverage_payloads_names_items_that_are_no_pairs(items: Any, message: str) -> None:
    from jobschema.coverage import coverage_payloads

    with pytest.raises(TypeError) as raised:
        coverage_payloads(items)
    assert str(raised.value) == message


def test_coverage_payloads_counts_pairs_from_a_generator() -> None:
    from jobschema.coverage import coverage_payloads

    report = coverage_payloads(iter([(None, ONE_PAYLOAD), ("aihc-v2-job", ONE_PAYLOAD)]))
    assert [(section.schema, section.payloads) for section in report.schemas] == [("aihc-v2-job", 2)]


# --- serve: a v2 CreateJob reads a null member as an absent one -----------------------------------

CREATE = {
    "name": "qwen",
    "jobType": "pytorchjob",
    "command": "torchrun train.py",
    "queue": "default",
    "priority": "high",
    "labels": [{"key": "team", "value": "llm"}],
    "datasources": [],
    "jobSpec": {
        "image": "registry.baidubce.com/aihc/pytorch:2.2",
        "replicas": 2,
        "resources": [{"name": "cpu", "quantity": 4}],
        "envs": [{"name": "NCCL_DEBUG", "value": "INFO"}],
    },
}
OPTIONAL = (
    ("command",),
    ("queue",),
    ("priority",),
    ("labels",),
    ("datasources",),
    ("jobType",),
    ("jobSpec", "image"),
    ("jobSpec", "replicas"),
    ("jobSpec", "resources"),
    ("jobSpec", "envs"),
)
VOLATILE = frozenset({"createdAt", "creationAt", "time", "uid", "requestId"})


def _without(body: dict[str, Any], members: set[tuple[str, ...]], null: bool) -> dict[str, Any]:
    edited = copy.deepcopy(body)
    for path in members:
        holder = edited
        for key in path[:-1]:
            holder = holder[key]
        if null:
            holder[path[-1]] = None
        else:
            del holder[path[-1]]
    return edited


def _stable(value: Any, job_id: str) -> Any:
    """The described job without what differs between two jobs created alike (ids, times, uids)."""
    if isinstance(value, dict):
        return {k: _stable(v, job_id) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(item, job_id) for item in value]
    return "ID" if value == job_id else value


def _created(server: Any, body: dict[str, Any]) -> Any:
    """What creating ``body`` gives: the described job, or the refusal's status, code and message."""
    from tests.serve_support import POOL, bce_config, bce_send
    from tests.test_serve_aihc_v2 import _as_read, _describe

    params = {"action": "CreateJob", "resourcePoolId": POOL, "queueID": "default"}
    try:
        created = bce_send(bce_config(server), "POST", "/", params, body)
    except Exception as refused:  # (the SDK's BceServerError: the server's answer)
        return (getattr(refused, "status_code", None), getattr(refused, "code", None), str(refused))
    return _stable(_as_read(_describe(server, created.job_id, POOL))["job"], created.job_id)


def test_a_null_member_of_a_v2_create_request_is_an_absent_one() -> None:
    pytest.importorskip("baidubce", reason="the test extra brings Baidu's SDK")
    pytest.importorskip("baiducloud_python_sdk_aihc", reason="the test extra brings Baidu's AIHC SDK")
    from jobschema.serve import start

    with start() as server:

        @settings(derandomize=True, database=None, deadline=None, max_examples=25)
        @given(st.sets(st.sampled_from(OPTIONAL), min_size=1))
        def check(members: set[tuple[str, ...]]) -> None:
            absent = _created(server, _without(CREATE, members, null=False))
            assert isinstance(absent, dict), absent  # (every one of them may be left out)
            assert _created(server, _without(CREATE, members, null=True)) == absent

        check()


def test_a_null_required_member_of_a_v2_create_request_is_still_refused() -> None:
    pytest.importorskip("baidubce", reason="the test extra brings Baidu's SDK")
    from jobschema.serve import start

    with start() as server:
        assert _created(server, {**CREATE, "name": None})[:2] == (400, "InvalidParam")
        assert _created(server, {**CREATE, "jobSpec": None})[:2] == (400, "InvalidParam")


def _v2_answer(server: Any, action: str, body: dict[str, Any]) -> Any:
    """The answer to a v2 ``action`` as the SDK's HTTP client reads it (its metadata left out), or the
    refusal's status and code."""
    from tests.serve_support import bce_config, bce_send

    job = load_json(V2_CAPTURE)["job"]
    params = {"action": action, "resourcePoolId": job["resourcePoolId"], "queueID": "default"}
    try:
        answer = bce_send(bce_config(server), "POST", "/", params, body)
    except Exception as refused:  # (the SDK's BceServerError: the server's answer)
        return (getattr(refused, "status_code", None), getattr(refused, "code", None))
    return json.loads(json.dumps({k: v for k, v in vars(answer).items() if k != "metadata"}, default=str))


@pytest.mark.parametrize(
    ("action", "member"), [("DescribeJob", "needDetail"), ("StopJob", "reason"), ("ModifyJob", "priority")]
)
def test_a_null_member_of_any_v2_request_is_an_absent_one(action: str, member: str) -> None:
    pytest.importorskip("baidubce", reason="the test extra brings Baidu's SDK")
    from jobschema.serve import start

    job_id = load_json(V2_CAPTURE)["job"]["jobid"]
    with start(captures=[str(V2_CAPTURE)]) as server:
        absent = _v2_answer(server, action, {"jobId": job_id})
    with start(captures=[str(V2_CAPTURE)]) as server:
        null = _v2_answer(server, action, {"jobId": job_id, member: None})
    assert null == absent


# --- diff --roles of fewer than two pods says that nothing was compared -------------------------------


@SETTINGS
@given(
    kept=st.lists(st.integers(0, 3), unique=True, max_size=4),
    nulls=st.integers(0, 2),
    flattened=st.booleans(),
)
def test_roles_of_fewer_than_two_pods_warn_that_nothing_was_compared(
    kept: list[int], nulls: int, flattened: bool
) -> None:
    from jobschema.diff.roles import diff_roles

    capture = load_json(V2_CAPTURE)
    capture["job"]["pods"] = [capture["job"]["pods"][i] for i in sorted(kept)] + [None] * nulls
    if flattened:
        capture = {"requestId": capture["requestId"], **capture["job"]}
    where = "pods" if flattened else "job.pods"
    result = diff_roles(capture)
    few = [w for w in result.warnings if w.endswith("there are no roles to compare")]
    if len(kept) < 2:
        pods = "1 pod" if len(kept) == 1 else f"{len(kept)} pods"
        assert few == [f"{pods} listed in {where}: there are no roles to compare"]
        assert result.pairs == ()
    else:
        assert few == [] and len(result.pairs) == len(kept) - 1


@pytest.mark.parametrize("pods", [None, [], "pods"])
def test_roles_of_a_v2_answer_without_a_pod_list_say_so(run_cli, tmp_path: Path, pods: Any) -> None:
    capture = load_json(V2_CAPTURE)
    capture["job"]["pods"] = pods
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(capture), encoding="utf-8")
    result = run_cli(["diff", "--roles", str(path)], code=0)
    assert result.stdout == (
        "warning: 0 pods listed in job.pods: there are no roles to compare\nsame (aihc-v2-job, roles)\n"
    )


def test_roles_of_a_v1_detail_without_pods_say_so(run_cli) -> None:
    detail = CAPTURES / "aihc-job-detail" / "created-job.json"
    result = run_cli(["diff", "--roles", "-f", "json", str(detail)], code=0)
    assert json.loads(result.stdout)["warnings"] == [
        "0 pods listed in result.podList.pods: there are no roles to compare"
    ]


# --- a HAR piped to stdin is read as a HAR by every command, not only by timeline and redact -----------

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("args", "har"),
    [
        (["validate", "-v"], "captures/session.har"),
        (["validate", "-f", "json"], "captures/session.har"),
        (["versions"], "versions/two-clusters.har"),
        (["versions", "--api", "aihc", "-f", "json"], "captures/session.har"),
        (["coverage"], "captures/session.har"),
    ],
)
def test_a_har_on_stdin_is_read_as_the_har_file(run_cli, args: list[str], har: str) -> None:
    path = FIXTURES / har
    named = run_cli([*args, str(path)])
    piped = run_cli([*args, "-"], input=path.read_bytes())
    assert piped.exit_code == named.exit_code
    assert piped.stdout == named.stdout.replace(str(path), "<stdin>")  # (before: one no-schema payload)


def test_a_document_naming_log_and_entries_that_is_no_har_is_one_payload(run_cli) -> None:
    capture = load_json(V2_CAPTURE)
    capture["job"]["labels"] = [{"key": "log", "value": "entries"}]
    capture["log"] = {"entries": "not an array"}
    result = run_cli(["validate", "-f", "json", "-"], input=json.dumps(capture))
    [only] = json.loads(result.stdout)["results"]
    assert (only["source"], only["schema"]) == ("<stdin>", "aihc-v2-job")
