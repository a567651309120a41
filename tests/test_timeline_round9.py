"""``jobschema timeline``, round 9: histories as users have them, which no earlier round listed.

- A HAR from a browser session holds other requests between the job's: list calls, a 401 and its
  retry, a token refresh, a 304 (not modified), a redirect. Answers that say nothing of the job (1xx,
  3xx, 401, 403, 407: the client's own business) were drawn as states of their own (``waiting HTTP
  304`` in the middle of a running job) -> the state before them holds.
- A transient answer (a 503) after the job was seen placed was still read as waiting within 120 s of
  submit (a running job drawn waiting again) -> unknown once the job has left waiting.
- A transition the lifecycle calls impossible (``Completed`` then ``Running``) was drawn with nothing
  said -> drawn as ever, and flagged in every format (``impossible`` in ``-f json``).
- A job that never left Pending, interleaved jobs and a job deleted and re-created under its name (a
  new id), a recording cut mid-line, hundreds of identical snapshots, 100 jobs (work counted at n
  and 4n), each through the four formats.
- The page as a person looks at it in headless Chromium, at 400 px and 1280 px: CJK, right-to-left
  and very long names, a credential planted in a name and an annotation, no request made, every bar
  titled and described by its table.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema import lifecycle
from jobschema.cli import main
from jobschema.lifecycle import State
from jobschema.timeline import drawn, read_captures
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation, parse_time
from jobschema.timeline.render import render_json, render_markdown, render_text, report, stamp
from tests.support import REPO, load_json
from tests.test_timeline import _browser
from tests.test_timeline_review import _dom

SCHEMA = load_json(REPO / "schemas" / "timeline-report.schema.json")
RUNAI_ID = "76be5fcd-bc65-4d83-9b2a-55e13ed6358c"
OTHER_ID = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
PENDING_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
T0 = parse_time("2026-12-05T04:17:44Z") or 0.0
URL = f"https://runai.example/api/v1/workloads/distributed/{RUNAI_ID}"
#: Answers that say nothing of the job's state: the client's own business.
SILENT = [100, 301, 302, 303, 304, 307, 308, 401, 403, 407]


def _workload(phase: Any, job: str = RUNAI_ID, name: str = "j", **extra: Any) -> dict[str, Any]:
    body = {
        "name": name,
        "workloadId": job,
        "createdAt": stamp(T0),
        "desiredPhase": "Running",
        "spec": {"numWorkers": 1, "compute": {"gpuDevicesRequest": 1}},
        "actualPhase": phase,
    }
    body.update(extra)
    return body


def _entry(at: float, url: str, status: int, body: Any = None, method: str = "GET") -> dict[str, Any]:
    text = "" if body is None else json.dumps(body)
    return {
        "startedDateTime": stamp(T0 + at),
        "time": 1,
        "request": {"method": method, "url": url, "headers": []},
        "response": {
            "status": status,
            "headers": [],
            "content": {"mimeType": "application/json", "text": text},
        },
    }


def _har(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}}


def _session() -> dict[str, Any]:
    """A browser session: a list call, the job Pending, a 401 and its retry after a token refresh,
    Running, a 304, a redirect and its target, a 503, Running, Completed."""
    return _har(
        [
            _entry(0, "https://runai.example/api/v1/workloads?limit=10", 200, {"workloads": [], "next": 0}),
            _entry(1, URL, 200, _workload("Pending")),
            _entry(30, URL, 401, {"message": "token expired"}),
            _entry(31, "https://runai.example/api/v1/token", 200, {"accessToken": "x"}, "POST"),
            _entry(32, URL, 200, _workload("Pending")),
            _entry(60, URL, 200, _workload("Running")),
            _entry(70, URL, 304),
            _entry(80, URL, 302),
            _entry(81, URL, 200, _workload("Running")),
            _entry(100, URL, 503, {"message": "upstream"}),
            _entry(240, URL, 200, _workload("Running")),
            _entry(300, URL, 200, _workload("Completed")),
        ]
    )


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _states(document: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(s["state"], s["phase"], s["start"]) for s in document["jobs"][0]["segments"]]


# --- a browser session's HAR ----------------------------------------------------------------------


def test_a_browser_sessions_har_draws_the_job_its_other_answers_said_nothing_of(tmp_path: Path) -> None:
    path = tmp_path / "session.har"
    path.write_text(json.dumps(_session()), encoding="utf-8")
    code, out, err = _run("timeline", "-f", "json", str(path))
    assert (code, err) == (0, "")
    document = json.loads(out)
    jsonschema.validate(document, SCHEMA)
    assert _states(document) == [
        ("waiting", "Pending", stamp(T0)),
        ("running", "Running", stamp(T0 + 60)),
        ("unknown", "HTTP 503", stamp(T0 + 100)),  # (placed: a 503 is no longer waiting)
        ("running", "Running", stamp(T0 + 240)),
        ("succeeded", "Completed", stamp(T0 + 300)),
    ]
    assert document["jobs"][0]["answers"] == 10  # (every answer of the job counted; the list call not)
    for fmt in ("text", "markdown", "html"):
        code, out, err = _run("timeline", "-f", fmt, str(path))
        assert (code, err) == (0, "")
        assert "HTTP 304" not in out and "HTTP 401" not in out and "HTTP 302" not in out
    code, out, err = _run("diff", "--history", str(path))
    assert (code, err) == (1, "")
    assert (
        out.splitlines()[-1]
        == "different (runai-distributed-workload, history): 2 changed, 0 added, 0 removed"
    )


@pytest.mark.parametrize("status", [201, 203, 299])
def test_a_2xx_answer_with_the_jobs_body_is_read_as_diff_history_reads_it(
    tmp_path: Path, status: int
) -> None:
    """A transforming proxy's 203 (or any 2xx) carries the job's answer: diff --history compares it,
    and the timeline draws its phase, never ``HTTP 203`` of unknown state."""
    entries = [_entry(0, URL, 200, _workload("Pending")), _entry(60, URL, status, _workload("Running"))]
    entries.append(_entry(120, URL, 200, _workload("Completed")))
    path = tmp_path / "proxy.har"
    path.write_text(json.dumps(_har(entries)), encoding="utf-8")
    code, out, err = _run("timeline", "-f", "json", str(path))
    assert (code, err) == (0, "")
    assert [s["phase"] for s in json.loads(out)["jobs"][0]["segments"]] == ["Pending", "Running", "Completed"]
    code, out, _ = _run("diff", "--history", str(path))
    assert code == 1 and out.count("± actualPhase") == 2


@settings(database=None, derandomize=True, max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Pending", "Initializing", "Running", "Degraded", "Completed"]),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.tuples(st.integers(-1, 5), st.sampled_from(SILENT)), max_size=6),
)
def test_any_answer_that_says_nothing_of_the_job_leaves_its_timeline_as_it_was(
    phases: list[str], silent: list[tuple[int, int]]
) -> None:
    answers = [
        Observation(f"a.har#{n}", "runai", RUNAI_ID, _workload(p), 200, T0 + 600.0 * n)
        for n, p in enumerate(phases)
    ]
    mixed = list(answers)
    for offset, (after, status) in enumerate(sorted(silent)):
        place = min(after, len(answers) - 1)  # (-1: before the job's first answer, a 401 then its retry)
        at = T0 + 600.0 * place + 1 + offset if place >= 0 else T0 - 10 + offset
        mixed.append(Observation(f"a.har#x{offset}", "runai", RUNAI_ID, None, status, at))
    mixed.sort(key=lambda a: a.at or 0.0)
    alone, with_silent = report(drawn(answers), "0"), report(drawn(mixed), "0")
    assert _states(with_silent) == _states(alone)
    assert with_silent["jobs"][0]["changes"] == alone["jobs"][0]["changes"]
    assert with_silent["jobs"][0]["waiting_seconds"] == alone["jobs"][0]["waiting_seconds"]


def test_a_job_only_ever_answered_with_a_401_is_drawn_as_that() -> None:
    answers = [Observation(f"a#{n}", "runai", RUNAI_ID, None, 401, T0 + 60.0 * n) for n in range(3)]
    [timeline] = drawn(answers)
    assert [(s.state, s.phase) for s in timeline.segments] == [(State.UNKNOWN, "HTTP 401")]


@pytest.mark.parametrize("status", [404, 429, 500, 502, 503, 504])
def test_a_transient_answer_after_the_job_was_placed_is_unknown_never_waiting(status: int) -> None:
    for placed in ("Initializing", "Running", "Degraded"):
        answers = [
            Observation("a#0", "runai", RUNAI_ID, _workload("Pending"), 200, T0 + 1),
            Observation("a#1", "runai", RUNAI_ID, _workload(placed), 200, T0 + 20),
            Observation("a#2", "runai", RUNAI_ID, None, status, T0 + 40),  # (within 120 s of submit)
            Observation("a#3", "runai", RUNAI_ID, _workload("Running"), 200, T0 + 60),
        ]
        segments = drawn(answers)[0].segments
        assert [(s.state, s.phase) for s in segments][2] == (State.UNKNOWN, f"HTTP {status}")


# --- impossible transitions ------------------------------------------------------------------------


def _impossible_answers() -> list[Observation]:
    phases = [("Pending", 0), ("Running", 60), ("Completed", 120), ("Running", 180), ("Completed", 240)]
    return [
        Observation(f"a.har#{n}", "runai", RUNAI_ID, _workload(p), 200, T0 + at)
        for n, (p, at) in enumerate(phases)
    ]


def test_a_transition_the_lifecycle_calls_impossible_is_drawn_and_flagged_in_every_format() -> None:
    document = report(drawn(_impossible_answers()), "0")
    jsonschema.validate(document, SCHEMA)
    job = document["jobs"][0]
    assert [s["phase"] for s in job["segments"]] == [
        "Pending",
        "Running",
        "Completed",
        "Running",
        "Completed",
    ]
    assert job["impossible"] == [
        {
            "segment": 3,
            "at": stamp(T0 + 180),
            "from": {"state": "succeeded", "phase": "Completed"},
            "to": {"state": "running", "phase": "Running"},
        }
    ]
    said = f"impossible: succeeded (Completed) → running (Running) at {stamp(T0 + 180)}"
    assert f"  {said}" in render_text(document).splitlines()
    assert said in render_markdown(document)
    page = render_html(document)
    assert said in page and 'class="impossible"' in page
    assert "impossible after succeeded" in page  # (the bar's title and the table row say it too)
    assert json.loads(render_json(document))["jobs"][0]["impossible"] == job["impossible"]


def _pod_back(replaced: bool) -> list[Observation]:
    """The AIHC fixture, then its last answer again with the worker pod Running (the same pod, or a
    new one under its name)."""
    answers = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
    value = json.loads(json.dumps(answers[-1].value))
    pod = next(p for p in value["result"]["podList"]["pods"] if p["objectMeta"]["name"].endswith("worker-0"))
    pod["podStatus"]["podPhase"] = "Running"
    if replaced:
        pod["objectMeta"]["uid"] = "0f0e0d0c-0b0a-4909-8807-060504030201"
    return [*answers, Observation("again", "aihc", answers[-1].job, value, 200, None)]


def test_a_pod_that_succeeded_and_runs_again_is_flagged_unless_it_is_a_new_pod() -> None:
    document = report(drawn(_pod_back(replaced=False)), "0")
    jsonschema.validate(document, SCHEMA)
    worker = next(p for p in document["jobs"][0]["pods"] if p["name"].endswith("worker-0"))
    assert [(f["from"]["phase"], f["to"]["phase"]) for f in worker["impossible"]] == [
        ("Succeeded", "Running")
    ]
    line = next(x for x in render_text(document).splitlines() if "pod qwen-sft-worker-0" in x)
    assert "impossible: succeeded (Succeeded) → running (Running)" in line
    assert "impossible: succeeded (Succeeded) → running (Running)" in render_html(document)
    replaced = report(drawn(_pod_back(replaced=True)), "0")
    worker = next(p for p in replaced["jobs"][0]["pods"] if p["name"].endswith("worker-0"))
    assert worker["impossible"] == [] and worker["replacements"] == 1


@settings(database=None, derandomize=True, max_examples=40, deadline=None)
@given(
    st.sampled_from(["Pending", "Running", "Restarting", "Succeeded", "Failed"]),
    st.sampled_from(["2026-12-05T04:40:00Z", "2026-12-05T04:26:02Z", ""]),
)
def test_a_later_answer_never_moves_what_the_earlier_answers_drew_of_the_pods(
    status: str, running: str
) -> None:
    """Untimed answers (an AIHC recording's NDJSON): a pod's change is placed at the start of the
    job's stretch its answer belongs to, never at a later stretch of the same phase."""
    answers = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
    value = json.loads(json.dumps(answers[-1].value))
    value["result"]["status"], value["result"]["runningAt"] = status, running
    before = report(drawn(answers), "0")["jobs"][0]["pods"]
    after = report(drawn([*answers, Observation("later", "aihc", answers[-1].job, value, 200, None)]), "0")
    for old, new in zip(before, after["jobs"][0]["pods"], strict=True):
        assert [s["start"] for s in new["segments"][: len(old["segments"])]] == [
            s["start"] for s in old["segments"]
        ]


def _v2_with_times(times: list[str]) -> list[Observation]:
    example = json.loads(
        (REPO / "schemas" / "examples" / "aihc-v2-job" / "succeeded-with-replaced-pod.json").read_text()
    )
    line = [{**entry, "time": when} for entry, when in zip(example["job"]["jobTimeLine"], times, strict=True)]
    value = {**example, "job": {**example["job"], "jobTimeLine": line}}
    return [Observation("v2.json", "aihc", example["job"]["jobid"], value, 200, None)]


V2_TIMES = ["2026-07-02T10:00:01Z", "2026-07-02T10:00:04Z", "2026-07-02T10:01:30Z", "2026-07-02T11:42:00Z"]
V2_TIMES += ["2026-07-02T11:43:02Z", "2026-07-02T13:20:45Z"]
V2_PHASES = ["Created", "Scheduled", "Running", "FaultTolerantStart", "Running", "Succeeded"]


def test_a_v2_job_timeline_whose_clock_went_back_keeps_its_order_and_names_the_time() -> None:
    times = [*V2_TIMES[:5], "2026-07-02T09:20:45Z"]  # (Succeeded said before the job was created)
    document = report(drawn(_v2_with_times(times)), "0")
    jsonschema.validate(document, SCHEMA)
    job = document["jobs"][0]
    assert [s["phase"] for s in job["segments"]] == V2_PHASES
    assert job["impossible"] == [] and job["segments"][-1]["start"] is None
    assert job["out_of_order"] == [
        {"segment": 5, "said": "2026-07-02T09:20:45Z", "after": "2026-07-02T11:43:02Z"}
    ]


def test_a_v2_job_timeline_listed_newest_first_is_read_oldest_first() -> None:
    [answer] = _v2_with_times(V2_TIMES)
    in_order = report(drawn([answer]), "0")["jobs"][0]
    assert answer.value is not None
    answer.value["job"]["jobTimeLine"].reverse()
    reversed_job = report(drawn([answer]), "0")["jobs"][0]
    assert [s["phase"] for s in reversed_job["segments"]] == V2_PHASES
    assert reversed_job["segments"] == in_order["segments"] and reversed_job["out_of_order"] == []


PHASES = [
    "Creating",
    "Pending",
    "Initializing",
    "Running",
    "Degraded",
    "Stopping",
    "Deleting",
    "Completed",
    "Failed",
    "Stopped",
    "Resuming",
    "Unknown",
]


@settings(database=None, derandomize=True, max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(PHASES), min_size=1, max_size=10))
def test_every_impossible_transition_is_flagged_and_nothing_else(phases: list[str]) -> None:
    answers = [
        Observation(f"a#{n}", "runai", RUNAI_ID, _workload(p), 200, T0 + 300.0 * n)
        for n, p in enumerate(phases)
    ]
    document = report(drawn(answers), "0")
    jsonschema.validate(document, SCHEMA)
    segments = document["jobs"][0]["segments"]
    expected, ended = [], None
    for index, segment in enumerate(segments):
        state = State(segment["state"])
        if ended is not None and lifecycle.impossible(ended, state):
            expected.append(index)
        if state in (State.SUCCEEDED, State.FAILED) and ended is None:
            ended = state
    assert [flag["segment"] for flag in document["jobs"][0]["impossible"]] == expected
    runs = [p for n, p in enumerate(phases) if n == 0 or phases[n - 1] != p]
    shown = [s["phase"] for n, s in enumerate(segments) if n == 0 or segments[n - 1]["phase"] != s["phase"]]
    assert shown == runs  # (every phase the answers said, in order: none hidden)


# --- histories nobody listed, through the four formats ------------------------------------------------


def _formats(paths: list[Path]) -> dict[str, tuple[int, str, str]]:
    return {
        fmt: _run("timeline", "-f", fmt, *map(str, paths)) for fmt in ("text", "json", "markdown", "html")
    }


def test_a_job_that_never_left_pending_and_a_job_recreated_under_its_name(tmp_path: Path) -> None:
    pending = tmp_path / "pending.har"
    url = URL.replace(RUNAI_ID, PENDING_ID)
    entries = [_entry(60.0 * n, url, 200, _workload("Pending", PENDING_ID)) for n in range(20)]
    pending.write_text(json.dumps(_har(entries)))
    recreated = tmp_path / "recreated.ndjson"
    lines = [_workload(p, name="train") for p in ("Pending", "Running", "Failed")]
    lines += [_workload(p, OTHER_ID, name="train") for p in ("Pending", "Running", "Completed")]
    recreated.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = _formats([pending, recreated])
    assert all(code == 0 and not err for code, _, err in found.values())
    document = json.loads(found["json"][1])
    jsonschema.validate(document, SCHEMA)
    assert [(j["job"], j["name"], j["final"]["state"]) for j in document["jobs"]] == [
        (PENDING_ID, "j", "waiting"),
        (RUNAI_ID, "train", "failed"),
        (OTHER_ID, "train", "succeeded"),  # (deleted and re-created under its name: a job of its own)
    ]
    pending_job = document["jobs"][0]
    assert [s["phase"] for s in pending_job["segments"]] == ["Pending"]
    assert pending_job["running_seconds"] == 0 and pending_job["impossible"] == []
    assert pending_job["waiting_seconds"] == 19 * 60.0  # (at least until its last answer: never '?')
    segment = pending_job["segments"][0]
    assert (segment["end"], segment["seconds"]) == (None, 19 * 60.0)
    assert f"  waiting   Pending  {stamp(T0)}     19m 0s so far" in found["text"][1].splitlines()
    assert "still waiting at its last answer" in found["text"][1]
    assert "| 19m 0s so far |" in found["markdown"][1]
    page = found["html"][1]
    pending_section = page.split(f'data-job="{PENDING_ID}"')[1].split("<section")[0]
    assert "19m 0s so far" in pending_section and "shown in order, evenly" not in pending_section
    assert page.count('<section class="job') == len(document["jobs"])
    assert OTHER_ID in page and RUNAI_ID in page  # (two jobs of one name are told apart by their ids)


@settings(database=None, derandomize=True, max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Pending", "Initializing", "Running", "Degraded", "Stopping"]),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.integers(1, 5000), min_size=6, max_size=6),
    st.sampled_from([None, "Completed", "Failed", "Stopped"]),
)
def test_a_state_still_going_at_the_last_answer_lasted_until_it_and_an_ended_job_says_no_so_far(
    phases: list[str], gaps: list[int], end: str | None
) -> None:
    steps = [*phases, end] if end else phases
    times = [T0 + sum(gaps[:n]) for n in range(len(steps))]
    answers = [
        Observation(f"a#{n}", "runai", RUNAI_ID, _workload(p), 200, at)
        for n, (p, at) in enumerate(zip(steps, times, strict=False))
    ]
    last_seen = times[len(steps) - 1] + 7.0
    if end is None:  # (one more answer, the same state, later)
        answers.append(Observation("a#x", "runai", RUNAI_ID, _workload(steps[-1]), 200, last_seen))
    document = report(drawn(answers), "0")
    jsonschema.validate(document, SCHEMA)
    job = document["jobs"][0]
    last = job["segments"][-1]
    text = render_text(document) + render_markdown(document) + render_html(document)
    if end is None:
        assert last["end"] is None and last["seconds"] == round(
            last_seen - (parse_time(last["start"]) or 0), 3
        )
        assert job["waiting_seconds"] is not None and job["running_seconds"] is not None
        assert "so far" in text and f"still {last['state']} at its last answer" in text
    else:
        assert "so far" not in text and "at its last answer" not in text


FIXTURES = REPO / "tests" / "fixtures" / "timeline"


def _clock_back(running: str, finished: str) -> list[Observation]:
    """The AIHC fixture's answers with the server's ``runningAt`` and ``finishedAt`` rewritten (a
    server clock gone back: times before the job's own ``createdAt``)."""
    captures = read_captures([str(FIXTURES / "aihc-job.ndjson")])
    answers = []
    for answer in captures.observations:
        value = json.loads(json.dumps(answer.value))
        result = value["result"]
        result["runningAt"] = running if result["runningAt"] else ""
        result["finishedAt"] = finished if result["finishedAt"] else ""
        answers.append(Observation(answer.source, answer.api, answer.job, value, answer.status, answer.at))
    return answers


def test_times_a_clock_gone_back_says_are_unknown_and_named_never_stretches_of_no_time() -> None:
    document = report(drawn(_clock_back("2026-12-05T04:20:00Z", "2026-12-05T04:19:00Z")), "0")
    jsonschema.validate(document, SCHEMA)
    job = document["jobs"][0]
    assert [(s["phase"], s["start"]) for s in job["segments"]] == [
        ("Pending", "2026-12-05T04:25:01Z"),
        ("Running", None),
        ("Succeeded", None),
    ]
    assert (job["waiting_seconds"], job["running_seconds"], job["gpu_hours"]) == (None, None, None)
    assert job["out_of_order"] == [
        {"segment": 1, "said": "2026-12-05T04:20:00Z", "after": "2026-12-05T04:25:01Z"},
        {"segment": 2, "said": "2026-12-05T04:19:00Z", "after": "2026-12-05T04:25:01Z"},
    ]
    said = "time out of order: running (Running) said 2026-12-05T04:20:00Z, before 2026-12-05T04:25:01Z"
    assert f"  {said}" in render_text(document).splitlines()
    assert said in render_markdown(document) and said in render_html(document)


@settings(database=None, derandomize=True, max_examples=60, deadline=None)
@given(st.integers(-3600, 3600), st.integers(-3600, 3600))
def test_any_times_the_server_says_are_drawn_in_order_or_named(running: int, finished: int) -> None:
    created = parse_time("2026-12-05T04:25:01Z") or 0.0
    answers = _clock_back(stamp(created + running) or "", stamp(created + running + finished) or "")
    document = report(drawn(answers), "0")
    jsonschema.validate(document, SCHEMA)
    job = document["jobs"][0]
    starts = [parse_time(s["start"]) for s in job["segments"] if s["start"] is not None]
    assert starts == sorted(starts)  # (a lane reads left to right)
    assert all(s["seconds"] is None or s["seconds"] >= 0 for s in job["segments"])
    named = {flag["segment"] for flag in job["out_of_order"]}
    assert named == {n for n, s in enumerate(job["segments"]) if s["start"] is None}
    assert (running < -60) == (1 in named)


def test_an_impossible_transition_of_untimed_answers_is_flagged_without_a_time() -> None:
    bodies = [{k: v for k, v in _workload(p).items() if k != "createdAt"} for p in ("Completed", "Running")]
    answers = [Observation(f"a.ndjson:{n}", "runai", RUNAI_ID, b, 200, None) for n, b in enumerate(bodies, 1)]
    document = report(drawn(answers), "0")
    assert document["jobs"][0]["impossible"][0]["at"] is None
    assert "  impossible: succeeded (Completed) → running (Running)" in render_text(document).splitlines()


def test_a_recording_cut_mid_line_names_the_line_and_draws_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "cut.ndjson"
    text = "".join(json.dumps(_workload(p)) + "\n" for p in ("Pending", "Running"))
    path.write_text(text + json.dumps(_workload("Completed"))[:40], encoding="utf-8")
    for fmt, (code, out, err) in _formats([path]).items():
        assert code == 2, fmt
        assert err.startswith(f"Error: {path}:3:") and err.count("\n") == 1, err
        assert "Pending" in out and "Running" in out and "Completed" not in out, fmt
    code, out, err = _run("diff", "--history", str(path))
    assert code == 2 and f"warning: {path}:3:" in out


def test_hundreds_of_identical_snapshots_are_one_stretch_counted_as_answers(tmp_path: Path) -> None:
    path = tmp_path / "same.ndjson"
    path.write_text(
        "".join(json.dumps(_workload("Pending")) + "\n" for _ in range(300))
        + json.dumps(_workload("Running"))
        + "\n"
    )
    found = _formats([path])
    document = json.loads(found["json"][1])
    assert [s["phase"] for s in document["jobs"][0]["segments"]] == ["Pending", "Running"]
    assert document["jobs"][0]["answers"] == 301 and len(document["jobs"][0]["changes"]) == 2
    assert "301 answers" in found["text"][1] and "301 answers" in found["markdown"][1]


def test_a_hundred_jobs_are_drawn_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work counted, not timed: the lifecycle lookups at n and 4n jobs, each of eight answers."""
    build_module = __import__("jobschema.timeline.build", fromlist=["observe"])
    observe = build_module.observe
    calls = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return observe(*args, **kwargs)

    monkeypatch.setattr(build_module, "observe", counted)

    def work(jobs: int) -> tuple[int, int]:
        answers = [
            Observation(
                f"a#{j}-{n}",
                "runai",
                f"{j:08d}-bc65-4d83-9b2a-55e13ed6358c",
                _workload(p, f"{j:08d}-bc65-4d83-9b2a-55e13ed6358c"),
                200,
                T0 + 60.0 * n + j,
            )
            for n, p in enumerate(
                ["Pending", "Running", "Running", "Degraded", "Running", "Stopping", "Stopped", "Stopped"]
            )
            for j in range(jobs)
        ]  # (interleaved: one answer of each job, then the next of each)
        calls[0] = 0
        page = render_html(report(drawn(answers), "0"))
        return calls[0], page.count('<section class="job')

    (small, n), (large, m) = work(25), work(100)
    assert (n, m) == (25, 100)
    assert small > 0 and large <= 4 * small, (small, large)


# --- the page as a person sees it ---------------------------------------------------------------------

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

#: What one page load reports: requests made, labels overflowing or overlapping, bars without a title
#: or a table, the text of the page.
LOOK = """<script>
const d = document.body.dataset, r = e => e.getBoundingClientRect();
const all = s => [...document.querySelectorAll(s)];
d.loads = String(performance.getEntriesByType('resource').length);
const labels = all('.lane .label').map(r);
d.overlap = String(labels.some((a, i) => labels.some((b, j) =>
  i < j && a.bottom > b.top + 1 && b.bottom > a.top + 1 && a.right > b.left + 1 && b.right > a.left + 1)));
d.wider = String(document.documentElement.scrollWidth > window.innerWidth);
d.untitled = String(all('svg.bar rect').filter(x => !x.querySelector('title')).length);
const described = b => document.getElementById(b.getAttribute('aria-describedby'));
d.undescribed = String(all('svg.bar').filter(b => !described(b)).length);
d.text = document.body.innerText;
</script>"""


def _people() -> list[Observation]:
    names = ["训练任务-一", "אימון-מודל", "x" * 600, f"leak-{TOKEN}"]
    answers = []
    for j, name in enumerate(names):
        job = f"{j:08d}-bc65-4d83-9b2a-55e13ed6358c"
        phases = [["Pending", "Running", "Completed"], ["Pending", "Running", "Completed", "Running"]][j % 2]
        for n, phase in enumerate(phases):
            body = _workload(phase, job, name=name, annotations={"note": f"token {TOKEN}"})
            answers.append(Observation(f"a#{j}-{n}", "runai", job, body, 200, T0 + 120.0 * n))
    pending = [_workload("Pending", PENDING_ID, name="训练任务-等待") for _ in range(3)]
    answers += [
        Observation(f"p#{n}", "runai", PENDING_ID, b, 200, T0 + 600.0 * n) for n, b in enumerate(pending)
    ]
    answers += _pod_back(replaced=False)  # (an AIHC job whose pod succeeded and runs again)
    return answers


@pytest.mark.parametrize("width", [400, 1280])
def test_the_page_at_a_phone_and_a_desktop_width_in_chromium(tmp_path: Path, width: int) -> None:
    _browser()
    page = render_html(report(drawn(_people()), "0"))
    assert TOKEN not in page and TOKEN[4:] not in page  # (the embedded data too: nothing but the page)
    found = _dom(page, tmp_path, width, probe=LOOK)
    assert (found["loads"], found["overlap"], found["wider"]) == ("0", "false", "false")
    assert (found["untitled"], found["undescribed"]) == ("0", "0")
    assert "训练任务-一" in found["text"] and "אימון-מודל" in found["text"]
    assert "times in UTC" in found["text"] and TOKEN not in found["text"]
    assert "⚠ impossible: succeeded (Completed) → running (Running)" in found["text"]
    assert "pod qwen-sft-worker-0: impossible" in found["text"]
    assert "waiting 20m 0s, running 0s; GPU-hours 0.00; still waiting at its last answer" in found["text"]


#: What a printed page's colours are: the text's, the page's and each state's (as the legend shows).
INK = """<script>
const d = document.body.dataset, style = e => getComputedStyle(e);
d.dark = String(matchMedia('(prefers-color-scheme: dark)').matches);
d.fg = style(document.body).color;
d.bg = style(document.body).backgroundColor;
d.muted = style(document.querySelector('.muted')).color;
</script>"""


def _luminance(rgb: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", rgb)[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_a_page_printed_from_dark_mode_prints_dark_ink_on_light_paper_in_chromium(tmp_path: Path) -> None:
    """A printer leaves the page's background out: light text of the dark theme would print light
    grey on white paper. Printed, the page is in its light colours whatever the screen's mode."""
    page = render_html(report(drawn(_impossible_answers()), "0"))
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page).replace(
        "@media print", "@media all"
    )
    path = tmp_path / "dark-print.html"
    path.write_text(page.replace("</body>", INK + "</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--force-dark-mode", "--window-size=1280,900"]
    flags += ["--virtual-time-budget=2000", "--dump-dom", path.as_uri()]
    run = subprocess.run([_browser(), *flags], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    body = run.stdout.split("<body", 1)[1].split(">", 1)[0]
    found = dict(re.findall(r'data-(\w+)="([^"]*)"', body))
    assert found["dark"] == "true"  # (the screen is in dark mode)
    assert _luminance(found["fg"]) < 0.3 and _luminance(found["muted"]) < 0.5, found
    assert _luminance(found["bg"]) > 0.9, found
