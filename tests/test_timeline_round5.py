"""Round-5 review of the lifecycle model and ``jobschema timeline``: cases the earlier tests left out.

- A phase no map knows (one a newer API version adds, a lower-case guess, a value that is no string)
  is unknown at every moment, right after submit too: only the API's own ``Unknown``, an answer that
  names no phase yet and an answer that is not 200 are the transient answers the 120 s rule reads as
  waiting (the rule had read any unmapped value there as waiting: ``Queued`` 5 s after submit was
  ``waiting``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.lifecycle import (
    CASE_INSENSITIVE,
    MAPS,
    TERMINAL,
    TRANSIENT_WINDOW,
    State,
    is_transient,
    observe,
)
from jobschema.timeline import drawn, read_captures
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation, parse_time
from jobschema.timeline.render import duration, render_json, render_markdown, render_text, report, stamp
from tests.support import REPO

WORKLOAD = "76be5fcd-bc65-4d83-9b2a-55e13ed6358c"


def _run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jobschema", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _workload(phase: Any, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "j",
        "workloadId": WORKLOAD,
        "projectId": "1",
        "clusterId": "3f5c2a1e-9b8d-4c7f-a6e5-0d1b2c3a4f56",
        "createdAt": "2026-12-05T04:17:44Z",
        "desiredPhase": "Running",
        "spec": {"image": "x", "numWorkers": 1, "compute": {"gpuDevicesRequest": 1}},
        "actualPhase": phase,
    }
    body.update(extra)
    return body


def _har(entries: list[tuple[str, dict[str, Any] | None, int]]) -> dict[str, Any]:
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "test", "version": "1"},
            "entries": [
                {
                    "startedDateTime": at,
                    "request": {
                        "method": "GET",
                        "url": f"http://h/api/v1/workloads/distributed/{WORKLOAD}",
                        "headers": [],
                    },
                    "response": {
                        "status": status,
                        "content": {"mimeType": "application/json", "text": json.dumps(body) if body else ""},
                    },
                }
                for at, body, status in entries
            ],
        }
    }


# --- a phase no map knows is unknown, right after submit too ------------------------------------------

UNMAPPED = st.one_of(
    st.text(max_size=12).filter(lambda t: all(t not in phases for phases in MAPS.values())),
    st.sampled_from(["Queued", "running", "PENDING", "Suspended", "Evicted", "unknown", " Running"]),
    st.integers(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)


@settings(database=None, max_examples=200, deadline=None)
@given(
    api=st.sampled_from(["runai", "aihc", "pod"]),
    phase=UNMAPPED,
    since=st.one_of(st.none(), st.floats(min_value=0, max_value=TRANSIENT_WINDOW), st.floats(min_value=121)),
)
def test_a_phase_no_map_knows_is_unknown_right_after_submit_too(api: str, phase: Any, since: Any) -> None:
    folded = {value.casefold(): state for value, state in MAPS[api].items()}
    named = isinstance(phase, str) and api in CASE_INSENSITIVE and phase.casefold() in folded
    expected = folded[phase.casefold()] if named else State.UNKNOWN  # (AIHC: any case, since round 12)
    assert observe(api, phase, since_submit=since) is expected
    assert not is_transient(api, phase)


@settings(database=None, max_examples=100, deadline=None)
@given(
    api=st.sampled_from(["runai", "aihc", "pod"]),
    status=st.one_of(st.just(200), st.sampled_from([201, 204, 404, 429, 500, 503]), st.integers(0, 599)),
    since=st.floats(min_value=0, max_value=TRANSIENT_WINDOW),
)
def test_only_unknown_no_phase_and_error_answers_are_transient(api: str, status: int, since: float) -> None:
    assert observe(api, "Unknown", status=status, since_submit=since) is State.WAITING
    assert observe(api, None, status=status, since_submit=since) is State.WAITING
    assert observe(api, "Unknown", status=status, since_submit=since + 121) is State.UNKNOWN
    for phase, state in MAPS[api].items():
        expected = State.WAITING if status != 200 or state is State.UNKNOWN else state
        assert observe(api, phase, status=status, since_submit=since) is expected


def test_a_new_phase_right_after_submit_is_drawn_unknown(tmp_path: Path) -> None:
    har = tmp_path / "new-phase.har"
    har.write_text(
        json.dumps(
            _har(
                [
                    ("2026-12-05T04:17:45Z", _workload("Queued"), 200),
                    ("2026-12-05T04:17:50Z", _workload("Unknown"), 200),
                    ("2026-12-05T04:18:00Z", _workload("running"), 200),
                    ("2026-12-05T04:25:00Z", _workload("Running"), 200),
                    ("2026-12-05T04:26:00Z", _workload("Completed"), 200),
                ]
            )
        )
    )
    result = _run("timeline", str(har))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"runai {WORKLOAD} j: succeeded (Completed)",
        "  unknown   Queued     2026-12-05T04:17:44Z     6s",
        "  waiting   Unknown    2026-12-05T04:17:50Z     10s",
        "  unknown   running    2026-12-05T04:18:00Z     7m 0s",
        "  running   Running    2026-12-05T04:25:00Z     1m 0s",
        "  succeeded Completed  2026-12-05T04:26:00Z",
        "  waiting 10s, running 1m 0s; GPU-hours 0.03 (2 GPUs); 5 answers",
        "1 job: 1 succeeded",
    ]


def test_the_first_untimed_answer_with_a_new_phase_is_unknown_not_waiting() -> None:
    for phase, state in [("Queued", State.UNKNOWN), (7, State.UNKNOWN), ("Unknown", State.WAITING)]:
        answers = [
            Observation("a.ndjson:1", "runai", WORKLOAD, _workload(phase)),
            Observation("a.ndjson:2", "runai", WORKLOAD, _workload("Running")),
        ]
        (timeline,) = drawn(answers)
        assert [s.state for s in timeline.segments] == [state, State.RUNNING]


# --- times: Go's zero time is unset, years below 1000 are written in four digits, epoch 0 is a time --

FIXTURES = REPO / "tests" / "fixtures" / "timeline"
TIME_KEYS = ("createdAt", "scheduledAt", "runningAt", "finishedAt", "creationTimestamp", "startedDateTime")
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0001-01-01T00:00:00Z", None),  # Go's zero time.Time: a time the API has not set
        ("0001-01-01T00:00:00.000000000Z", None),
        ("0001-01-01T08:00:00+08:00", None),  # the same instant, written in another zone
        ("0001-01-01T00:00:01Z", "0001-01-01T00:00:01Z"),
        ("0999-05-01T10:00:00.5Z", "0999-05-01T10:00:00.500Z"),
        ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"),
    ],
)
def test_go_zero_is_unset_and_every_moment_is_written_as_rfc3339(text: str, expected: str | None) -> None:
    assert stamp(parse_time(text)) == expected


@settings(database=None, max_examples=200, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 1, 0, 0, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))
)
def test_a_stamp_is_rfc3339_and_reads_back_as_its_moment(moment: datetime) -> None:
    seconds = parse_time(moment.isoformat() + "Z")
    assert seconds is not None
    written = stamp(seconds)
    assert written is not None and RFC3339.match(written), written
    assert parse_time(written) == pytest.approx(seconds, abs=1e-3)


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _walk(value: Any, change: Callable[[str, str], str]) -> Any:
    if isinstance(value, dict):
        return {
            k: change(k, v) if k in TIME_KEYS and isinstance(v, str) else _walk(v, change)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_walk(v, change) for v in value]
    return value


def _formats(answers: list[Observation]) -> dict[str, str]:
    document = report(drawn(answers), "0")
    return {
        "text": render_text(document),
        "json": render_json(document),
        "markdown": render_markdown(document),
        "html": render_html(document),
    }


def _aihc(lines: list[Any]) -> list[Observation]:
    tmp = Path(tempfile.gettempdir()) / f"jobschema-round5-{os.getpid()}.ndjson"  # (one name: sources alike)
    tmp.write_text("".join(json.dumps(line) + "\n" for line in lines))
    captures = read_captures([str(tmp)])
    tmp.unlink()
    assert not captures.problems
    return captures.observations


def _recording() -> list[Any]:
    """The AIHC recording, its pods saying when they finished in the last answer."""
    lines = _lines(FIXTURES / "aihc-job.ndjson")
    last = lines[-1]["result"]
    for pod in last["podList"]["pods"]:
        pod["finishedAt"] = last["finishedAt"]
    return lines


def _nth(value: Any, index: int, text: str) -> Any:
    """``value`` with its ``index``-th time field set to ``text``."""
    count = iter(range(1 << 30))
    return _walk(value, lambda _k, v: text if next(count) == index else v)


def test_go_zero_in_any_time_field_draws_as_the_empty_time_it_stands_for() -> None:
    lines = _recording()
    fields = len(_strings(lines))
    assert fields == 26
    for index in range(fields):
        zero, empty = _nth(lines, index, "0001-01-01T00:00:00Z"), _nth(lines, index, "")
        assert _formats(_aihc(zero)) == _formats(_aihc(empty)), index


def _strings(value: Any) -> list[str]:
    found: list[str] = []

    def keep(_key: str, text: str) -> str:
        found.append(text)
        return text

    _walk(value, keep)
    return found


def _shifted(value: Any, delta: float) -> Any:
    def move(_key: str, text: str) -> str:
        seconds = parse_time(text)
        return text if seconds is None else stamp(seconds + delta) or text

    return _walk(value, move)


@settings(database=None, max_examples=10, deadline=None)
@given(delta=st.sampled_from([0.0, 3600.0]) | st.floats(min_value=-1.7e9, max_value=1e9).map(round))
def test_moving_every_time_of_a_recording_moves_its_stamps_and_keeps_its_durations(delta: float) -> None:
    lines = _recording()
    before = json.loads(_formats(_aihc(lines))["json"])
    moments = sorted({t for t in map(parse_time, _strings(lines)) if t is not None})
    for shift in (delta, *(-t for t in moments)):  # (-t: that moment is the epoch, 0.0)
        after = json.loads(_formats(_aihc(_shifted(lines, shift)))["json"])
        assert _durations(after) == _durations(before), shift
        assert _stamps(after) == [_moved(s, shift) for s in _stamps(before)]


def _moved(text: str | None, shift: float) -> str | None:
    seconds = None if text is None else parse_time(text)
    return None if seconds is None else stamp(seconds + shift)


def _durations(document: Any) -> list[Any]:
    return [
        (s["state"], s["phase"], s["seconds"])
        for job in document["jobs"]
        for s in [*job["segments"], *(p for pod in job["pods"] for p in pod["segments"])]
    ] + [(job["waiting_seconds"], job["running_seconds"], job["gpu_hours"]) for job in document["jobs"]]


def _stamps(document: Any) -> list[str | None]:
    return [
        t
        for job in document["jobs"]
        for t in [
            job["start"],
            job["end"],
            *(x for s in job["segments"] for x in (s["start"], s["end"])),
            *(x for pod in job["pods"] for s in pod["segments"] for x in (s["start"], s["end"])),
            *(c["at"] for c in job["changes"]),
        ]
    ]


def test_the_axis_names_the_year_when_a_history_spans_years() -> None:
    answers = [
        Observation(
            "a.har#0", "runai", WORKLOAD, _workload("Pending", createdAt="0999-12-31T23:00:00Z"), 200
        ),
        Observation(
            "a.har#1", "runai", WORKLOAD, _workload("Running"), 200, parse_time("1000-01-02T00:00:00Z")
        ),
    ]
    page = render_html(report(drawn(answers), "0"))
    ticks = re.findall(r'<span class="tick t\d">([^<]*)</span>', page)
    assert ticks[0] == "0999-12-31" and ticks[-1] == "1000-01-02"


# --- durations: the shown value is the nearest in its unit, and never out of order --------------------


def _read_duration(text: str) -> float:
    days = re.fullmatch(r"(\d+)d (\d+)h", text)  # (from one day on: round 8)
    if days:
        assert int(days[1]) > 0 and int(days[2]) < 24, text
        return int(days[1]) * 86400 + int(days[2]) * 3600
    hours = re.fullmatch(r"(\d+)h (\d+)m", text)
    minutes = re.fullmatch(r"(\d+)m (\d+)s", text)
    seconds = re.fullmatch(r"(\d+(?:\.\d)?)s", text)
    if hours:
        assert int(hours[1]) < 24 and int(hours[2]) < 60, text
        return int(hours[1]) * 3600 + int(hours[2]) * 60
    if minutes:
        assert 0 < int(minutes[1]) < 60 and int(minutes[2]) < 60, text
        return int(minutes[1]) * 60 + int(minutes[2])
    assert seconds, text
    assert float(seconds[1]) < 60, text
    return float(seconds[1])


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(59.94, "59.9s"), (59.95, "1m 0s"), (59.999, "1m 0s"), (0.04, "0s"), (4.04, "4s"), (4.06, "4.1s")],
)
def test_a_duration_at_a_unit_s_edge(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


@settings(database=None, max_examples=200, deadline=None)
@given(a=st.floats(min_value=0, max_value=1e7), b=st.floats(min_value=0, max_value=1e7))
def test_durations_are_the_nearest_in_their_unit_and_in_order(a: float, b: float) -> None:
    low, high = sorted((a, b))
    for value in (low, high):
        unit = 0.1 if value < 59.95 else 1 if value < 3599.5 else 60 if value < 86370 else 3600
        assert abs(_read_duration(duration(value)) - value) <= unit / 2 + 1e-9
    assert _read_duration(duration(low)) <= _read_duration(duration(high))


# --- how a job ended: answers that say nothing of it after it ended leave the outcome -----------------

AIHC_JOB = "pytorchjob-1ab08e4a-82e4-4c2c-8cd6-0890826fdb7a"


def _answer(api: str, phase: str | None, status: int, at: float) -> Observation:
    if status != 200:
        return Observation(f"x.har#{at:g}", api, WORKLOAD if api == "runai" else AIHC_JOB, None, status, at)
    if api == "runai":
        value = _workload(phase) if phase is not None else _workload("x")
        if phase is None:
            del value["actualPhase"]
        return Observation(f"x.har#{at:g}", api, WORKLOAD, value, 200, at)
    result = {"jobId": AIHC_JOB, "name": "j", "createdAt": "2026-12-05T04:17:44Z"}
    result.update({} if phase is None else {"status": phase})
    return Observation(f"x.har#{at:g}", api, AIHC_JOB, {"requestId": "r", "result": result}, 200, at)


TRANSIENT = st.one_of(
    st.tuples(st.none(), st.sampled_from([404, 429, 500, 502, 503])),
    st.tuples(st.just("Unknown"), st.just(200)),
    st.tuples(st.none(), st.just(200)),
)


@settings(database=None, max_examples=200, deadline=None)
@given(
    api=st.sampled_from(["runai", "aihc"]),
    data=st.data(),
    after=st.lists(TRANSIENT, min_size=1, max_size=4),
)
def test_answers_that_say_nothing_after_a_job_ended_leave_how_it_ended(
    api: str, data: st.DataObject, after: list[tuple[str | None, int]]
) -> None:
    ended = data.draw(st.sampled_from(sorted(p for p, s in MAPS[api].items() if s in TERMINAL)))
    running = "Running"
    start = parse_time("2026-12-05T04:18:00Z") or 0.0
    answers = [_answer(api, running, 200, start), _answer(api, ended, 200, start + 60)]
    answers += [_answer(api, phase, status, start + 600 + 60 * i) for i, (phase, status) in enumerate(after)]
    (timeline,) = drawn(answers)
    assert (timeline.final.state, timeline.final.phase) == (MAPS[api][ended], ended)
    assert timeline.end == start + 60
    document = report([timeline], "0")
    assert document["jobs"][0]["final"]["phase"] == ended
    assert render_text(document).splitlines()[-1] == f"1 job: 1 {MAPS[api][ended].value}"
    resumed = drawn([*answers, _answer(api, running, 200, start + 9000)])[0]
    assert (resumed.final.state, resumed.final.phase) == (State.RUNNING, running)
    gone = drawn([answers[0], *answers[2:]])[0]  # (no terminal state before: the last answer says it)
    assert gone.final is gone.segments[-1]


def test_a_workload_deleted_after_it_failed_is_told_failed(tmp_path: Path) -> None:
    har = tmp_path / "deleted.har"
    har.write_text(
        json.dumps(
            _har(
                [
                    ("2026-12-05T04:17:44Z", _workload("Pending"), 200),
                    ("2026-12-05T04:19:44Z", _workload("Failed"), 200),
                    ("2026-12-05T04:20:44Z", None, 404),
                ]
            )
        )
    )
    result = _run("timeline", str(har))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"runai {WORKLOAD} j: failed (Failed)",
        "  waiting   Pending   2026-12-05T04:17:44Z     2m 0s",
        "  failed    Failed    2026-12-05T04:19:44Z     1m 0s",
        "  unknown   HTTP 404  2026-12-05T04:20:44Z",
        "  waiting 2m 0s, running 0s; GPU-hours 0.00 (2 GPUs); 3 answers",
        "1 job: 1 failed",
    ]


# --- order: a stretch of unknown time between two known ones does not let time run backwards --------

ANSWER = st.tuples(
    st.one_of(st.sampled_from(sorted(set(MAPS["runai"]) | set(MAPS["aihc"]))), st.none(), st.just("Queued")),
    st.sampled_from([200, 200, 200, 404, 503]),
    st.one_of(st.none(), st.integers(0, 10_000)),
)


def _body(api: str, phase: str | None, created: str | None) -> dict[str, Any]:
    inner: dict[str, Any] = {"name": "j", "workloadId" if api == "runai" else "jobId": WORKLOAD}
    inner.update({} if phase is None else {"actualPhase" if api == "runai" else "status": phase})
    inner.update({} if created is None else {"createdAt": created})
    return inner if api == "runai" else {"requestId": "r", "result": inner}


@settings(database=None, max_examples=200, deadline=None)
@given(
    api=st.sampled_from(["runai", "aihc"]),
    items=st.lists(ANSWER, min_size=1, max_size=8),
    created=st.one_of(st.none(), st.integers(-500, 500)),
)
def test_no_lane_runs_backwards_whatever_times_are_known(
    api: str, items: list[tuple[str | None, int, int | None]], created: int | None
) -> None:
    base = parse_time("2026-12-05T04:00:00Z") or 0.0
    submitted = None if created is None else stamp(base + created)
    answers = [
        Observation(
            f"x.har#{index}",
            api,
            WORKLOAD,
            _body(api, phase, submitted) if status == 200 else None,
            status,
            None if at is None else base + at,
        )
        for index, (phase, status, at) in enumerate(items)
    ]
    (timeline,) = drawn(answers)
    starts = [s.start for s in timeline.segments if s.start is not None]
    assert starts == sorted(starts)
    assert all(s.seconds is None or s.seconds >= 0 for s in timeline.segments)
    assert all(s.end is None or s.start is None or s.end >= s.start for s in timeline.segments)


def test_an_answer_of_unknown_time_between_two_known_ones() -> None:
    base = parse_time("2026-12-05T04:00:00Z") or 0.0
    answers = [
        Observation("x.har#0", "runai", WORKLOAD, _workload("Pending"), 200, base + 61),
        Observation("x.har#1", "runai", WORKLOAD, None, 404, None),
        Observation("x.har#2", "runai", WORKLOAD, _workload("Running"), 200, base + 60),
    ]
    (timeline,) = drawn(answers)
    created = parse_time("2026-12-05T04:17:44Z")
    assert [(s.phase, s.start) for s in timeline.segments] == [
        ("Pending", created),
        ("HTTP 404", None),
        ("Running", created),
    ]


# --- the library: one path or an iterable of paths, as validate_paths takes them ---------------------


def test_timelines_take_one_path_or_any_iterable_of_paths() -> None:
    from jobschema.timeline import timelines

    folder = REPO / "tests" / "fixtures" / "timeline"
    expected = [(t.api, t.job, len(t.segments)) for t in timelines([str(folder)])]
    assert len(expected) == 2
    for paths in (str(folder), folder, [folder], (str(p) for p in [folder])):
        assert [(t.api, t.job, len(t.segments)) for t in timelines(paths)] == expected
    for wrong in (5, {"a": 1}, [5]):
        with pytest.raises(TypeError, match=r"^inputs: expected "):
            timelines(wrong)  # type: ignore[arg-type]
