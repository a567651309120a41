"""``jobschema timeline``, round 8: durations of days read as a person reads them (``3d 4h``, never
``76h 0m``) in every place the report says one; jobs far apart in time, or in length, are drawn each on
an axis of its own (never a sliver of one shared axis: each job's bar at least a tenth of its lane, in
headless Chromium); and histories nobody listed: captures out of order, in several time zones, with
duplicate times, leap seconds and nanoseconds, a job that goes back from Running to Pending, phases the
lifecycle does not know, one capture, captures without a status, Run:ai beside AIHC, ten thousand
captures (work counted at n and 4n)."""

from __future__ import annotations

import copy
import importlib
import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema import lifecycle
from jobschema.timeline import drawn, read_captures
from jobschema.timeline import html as page_module
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation, parse_time
from jobschema.timeline.render import duration, render_json, render_markdown, render_text, report, stamp
from tests.support import REPO, load_json
from tests.test_timeline_review import PROBE, _dom

build_module = importlib.import_module("jobschema.timeline.build")  # (the package's `build` is a function)
FIXTURES = REPO / "tests" / "fixtures" / "timeline"
SCHEMA = load_json(REPO / "schemas" / "timeline-report.schema.json")
RUNAI_ID = "76be5fcd-bc65-4d83-9b2a-55e13ed6358c"
T0 = parse_time("2026-12-05T04:17:44Z") or 0.0
DAY = 86400.0


def _workload(phase: Any, job: str = RUNAI_ID, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "j",
        "workloadId": job,
        "createdAt": stamp(T0),
        "desiredPhase": "Running",
        "spec": {"numWorkers": 1, "compute": {"gpuDevicesRequest": 1}},
        "actualPhase": phase,
    }
    body.update(extra)
    return body


def _runai(steps: list[tuple[Any, float]], job: str = RUNAI_ID, start: float = T0) -> list[Observation]:
    """A Run:ai job's answers as a HAR gives them: each phase at its capture time (seconds after
    ``start``)."""
    return [
        Observation(
            f"a.har#{n}", "runai", job, _workload(phase, job, createdAt=stamp(start)), 200, start + at
        )
        for n, (phase, at) in enumerate(steps)
    ]


# --- durations of days ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (4.0, "4s"),
        (59.96, "1m 0s"),
        (3 * 3600 + 300, "3h 5m"),
        (23 * 3600 + 59 * 60 + 29, "23h 59m"),
        (23 * 3600 + 59 * 60 + 50, "1d 0h"),  # (the nearest minute is a whole day)
        (DAY, "1d 0h"),
        (DAY + 3600, "1d 1h"),
        (2 * DAY + 1, "2d 0h"),
        (3 * DAY + 4 * 3600, "3d 4h"),
        (3 * DAY + 4 * 3600 + 29 * 60, "3d 4h"),
        (3 * DAY + 23 * 3600 + 31 * 60, "4d 0h"),
        (400 * DAY, "400d 0h"),
    ],
)
def test_a_duration_is_said_in_its_two_largest_units_days_from_one_day(seconds: float, said: str) -> None:
    assert duration(seconds) == said


_SAID = re.compile(r"(?:(\d+)d (\d+)h|(\d+)h (\d+)m|(\d+)m (\d+)s|(\d+(?:\.\d)?)s)")


@settings(database=None, derandomize=True, max_examples=500, deadline=None)
@given(st.floats(0, 3e8, allow_nan=False))
def test_any_duration_is_the_nearest_value_in_its_units_and_each_part_below_its_next_unit(
    seconds: float,
) -> None:
    match = _SAID.fullmatch(duration(seconds))
    assert match, duration(seconds)
    d, dh, h, hm, m, ms, s = match.groups()
    if d is not None:
        assert int(dh) < 24 and abs(int(d) * DAY + int(dh) * 3600 - seconds) <= 1800
        assert seconds >= DAY - 30
    elif h is not None:
        assert 1 <= int(h) < 24 and int(hm) < 60 and abs(int(h) * 3600 + int(hm) * 60 - seconds) <= 30
    elif m is not None:
        assert 1 <= int(m) < 60 and int(ms) < 60 and abs(int(m) * 60 + int(ms) - seconds) <= 0.5
    else:
        assert float(s) < 60 and abs(float(s) - seconds) <= 0.05


def _long_run() -> list[Observation]:
    """A Run:ai job that waited a minute and ran 3 days 4 hours."""
    return _runai([("Pending", 0.0), ("Running", 60.0), ("Completed", 60.0 + 3 * DAY + 4 * 3600)])


def test_a_run_of_days_is_said_in_days_in_every_format_and_every_place_of_the_page() -> None:
    document = report(drawn(_long_run()), "0")
    page = render_html(document)
    for written in (render_text(document), render_markdown(document), page):
        assert "3d 4h" in written and "76h" not in written, written
    assert "running 3d 4h" in render_text(document)
    titles = re.findall(r"<title>([^<]*)</title>", page)
    assert any(title.endswith("(3d 4h)") for title in titles), titles  # (the bar's hover title)
    assert "<td>3d 4h</td>" in page  # (the lane's table)
    assert "3d 4h from first to last" in page  # (the subtitle)
    assert json.loads(render_json(document))["jobs"][0]["running_seconds"] == 3 * DAY + 4 * 3600


# --- jobs far apart: an axis each -------------------------------------------------------------------


def _shifted(observations: list[Observation], job: str, days: float) -> list[Observation]:
    """The answers of a Run:ai job under another id, ``days`` later (its payload times with them)."""
    moved = []
    for answer in observations:
        value = copy.deepcopy(answer.value)
        assert value is not None
        value["workloadId"] = job
        value["createdAt"] = stamp((parse_time(value["createdAt"]) or 0.0) + days * DAY)
        at = None if answer.at is None else answer.at + days * DAY
        moved.append(Observation(answer.source, answer.api, job, value, answer.status, at))
    return moved


def _months_apart() -> list[Observation]:
    recorded = read_captures([str(FIXTURES / "runai-workload.har")])
    assert not recorded.problems
    first = recorded.observations
    later = _shifted(first, "11111111-2222-4333-8444-555555555555", 90)
    latest = _shifted(first, "99999999-2222-4333-8444-555555555555", 200)
    return [*first, *later, *latest]


def test_jobs_months_apart_are_drawn_each_on_an_axis_of_its_own() -> None:
    document = report(drawn(_months_apart()), "0")
    page = render_html(document)
    assert re.findall(r'<section class="job axis-(\d+)"', page) == ["1", "2", "3"]
    assert "3 time axes" in page
    for lane in _lanes(page):
        assert max(x1 for _, x1 in lane) - min(x0 for x0, _ in lane) >= 0.9 * page_module.WIDTH, lane


def test_jobs_that_overlap_share_one_axis() -> None:
    answers = [*_long_run(), *_shifted(_long_run(), "11111111-2222-4333-8444-555555555555", 0.5)]
    page = render_html(report(drawn(answers), "0"))
    assert re.findall(r'<section class="job axis-(\d+)"', page) == ["1", "1"]
    assert "time axes" not in page


def _lanes(page: str) -> list[list[tuple[float, float]]]:
    lanes = re.findall(r'<div class="lane job-lane">.*?<svg class="bar"[^>]*>(.*?)</svg>', page)
    return [
        [
            (float(x), float(x) + float(w))
            for x, w in re.findall(r'<rect [^>]*x="([0-9.]+)" y="0" width="([0-9.]+)"', lane)
        ]
        for lane in lanes
    ]


SPANS = st.lists(
    st.one_of(
        st.none(),
        st.tuples(st.floats(0, 1e9, allow_nan=False), st.floats(1e-3, 1e8, allow_nan=False)).map(
            lambda pair: (pair[0], pair[0] + pair[1])
        ),
    ),
    max_size=30,
)


@settings(database=None, derandomize=True, max_examples=400, deadline=None)
@given(SPANS)
def test_every_job_spans_at_least_its_share_of_its_axis_and_axes_are_numbered_in_time(
    spans: list[tuple[float, float] | None],
) -> None:
    spans = [span if span is None or span[1] > span[0] else None for span in spans]
    axes, numbers = page_module._axes(spans)
    for span, axis, number in zip(spans, axes, numbers, strict=True):
        assert (span is None) == (axis is None) == (number is None)
        if span is None or axis is None:
            continue
        assert axis[0] <= span[0] <= span[1] <= axis[1]
        assert span[1] - span[0] >= page_module.MIN_SHARE * (axis[1] - axis[0]) * (1 - 1e-9)
    found = sorted({(number, axis) for axis, number in zip(axes, numbers, strict=True) if axis is not None})
    assert [number for number, _ in found] == list(range(1, len(found) + 1))  # (one axis per number)
    assert [axis[0] for _, axis in found] == sorted(axis[0] for _, axis in found)  # (in order of time)


_WIDTHS = """const d2 = document.body.dataset;
d2.widths = [...document.querySelectorAll('section.job')].map(s => {
  const rs = [...s.querySelectorAll('.job-lane svg.bar rect')].map(x => x.getBoundingClientRect());
  return String(Math.round(Math.max(...rs.map(b => b.right)) - Math.min(...rs.map(b => b.left))));
}).join(',');
d2.lane = String(Math.round(document.querySelector('.job-lane svg.bar').getBoundingClientRect().width));
</script>"""


@pytest.mark.parametrize("width", [1280, 390])
def test_jobs_months_apart_each_have_a_visible_bar_in_chromium(tmp_path: Path, width: int) -> None:
    page = render_html(report(drawn(_months_apart()), "0"))
    found = _dom(page, tmp_path, width, probe=PROBE.replace("</script>", _WIDTHS))
    widths = [int(w) for w in found["widths"].split(",")]
    assert len(widths) == 3, found
    assert all(w >= 0.9 * int(found["lane"]) for w in widths), found  # (each fills its lane)
    assert min(widths) >= (100 if width == 1280 else 40), found
    assert (found["overlap"], found["aligned"], found["pwned"], found["loads"]) == (
        "false",
        "true",
        "no",
        "0",
    )


def test_a_short_job_beside_a_long_one_is_no_sliver_in_chromium(tmp_path: Path) -> None:
    """A job of minutes that ran while one of days ran: a tenth of its lane at least (its own axis)."""
    short = _runai(
        [("Pending", 0.0), ("Running", 30.0), ("Completed", 600.0)],
        "11111111-2222-4333-8444-555555555555",
        T0 + DAY,
    )
    page = render_html(report(drawn([*_long_run(), *short]), "0"))
    found = _dom(page, tmp_path, 1280, probe=PROBE.replace("</script>", _WIDTHS))
    widths = [int(w) for w in found["widths"].split(",")]
    assert min(widths) >= 0.1 * int(found["lane"]), found


# --- histories nobody listed --------------------------------------------------------------------------


ZONES = ["Z", "z", "+05:30", "-00:00", "+00:00", "-12:00", "+14:00", ""]


def _spelled(moment: float, zone: str, digits: int) -> str:
    """``moment`` as an RFC 3339 date-time in ``zone`` with ``digits`` fraction digits (nanoseconds)."""
    from datetime import UTC, datetime, timedelta

    offset = 0 if zone in ("Z", "z", "", "-00:00", "+00:00") else int(zone[:3]) * 60 + int(zone[0] + zone[4:])
    local = datetime.fromtimestamp(moment, UTC) + timedelta(minutes=offset)
    fraction = f".{'0' * digits}" if digits else ""
    return f"{local:%Y-%m-%dT%H:%M:%S}{fraction}{zone}"


def _har(steps: list[tuple[str, str]], order: list[int]) -> dict[str, Any]:
    entries = []
    for index in order:
        phase, when = steps[index]
        body = json.dumps(_workload(phase))
        entries.append(
            {
                "startedDateTime": when,
                "time": 1,
                "request": {"method": "GET", "url": f"http://h/api/v1/workloads/distributed/{RUNAI_ID}"},
                "response": {"status": 200, "content": {"mimeType": "application/json", "text": body}},
            }
        )
    return {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}}


@settings(database=None, derandomize=True, max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(ZONES), st.integers(0, 9)), min_size=4, max_size=4),
    st.randoms(use_true_random=False),
)
def test_captures_in_any_order_and_any_zone_draw_the_one_timeline(
    tmp_path_factory: pytest.TempPathFactory, spellings: list[tuple[str, int]], rng: random.Random
) -> None:
    phases = [("Pending", 0.0), ("Running", 90.0), ("Pending", 3 * DAY), ("Running", 3 * DAY + 600)]
    steps = [
        (phase, _spelled(T0 + at, *spelled)) for (phase, at), spelled in zip(phases, spellings, strict=True)
    ]
    order = list(range(4))
    rng.shuffle(order)
    path = tmp_path_factory.mktemp("har") / "shuffled.har"
    path.write_text(json.dumps(_har(steps, order)), encoding="utf-8")
    captures = read_captures([str(path)])
    assert not captures.problems
    document = report(drawn(captures.observations), "0")
    jsonschema.validate(document, SCHEMA)
    [job] = document["jobs"]
    assert [(s["phase"], s["start"]) for s in job["segments"]] == [
        (phase, stamp(T0 + at)) for phase, at in phases
    ]
    # (back from Running to Pending: waiting again, never a failure; the durations read in days)
    assert [s["state"] for s in job["segments"]] == ["waiting", "running", "waiting", "running"]
    text = render_text(document)
    assert "running (Running)" in text and "waiting 11m 30s" in text
    assert re.search(r"running   Running  2026-12-05T04:19:14Z +3d 0h\n", text), text


def test_a_leap_second_and_nanoseconds_are_moments_in_order() -> None:
    steps = [("Pending", "2016-12-31T23:59:59.999999999Z"), ("Running", "2016-12-31T23:59:60Z"),
             ("Completed", "2017-01-01T05:30:00.000000001+05:30")]  # fmt: skip
    answers = [
        Observation(f"a.har#{n}", "runai", RUNAI_ID, _workload(p, createdAt=steps[0][1]), 200, parse_time(w))
        for n, (p, w) in enumerate(steps)
    ]
    [job] = report(drawn(answers), "0")["jobs"]
    assert [s["start"] for s in job["segments"]] == [
        "2016-12-31T23:59:59.999Z", "2017-01-01T00:00:00Z", "2017-01-01T00:00:00Z"
    ]  # fmt: skip
    assert all(s["seconds"] is None or s["seconds"] >= 0 for s in job["segments"])


@pytest.mark.parametrize(
    ("api", "phase"),
    [
        ("runai", "Queued"),
        ("runai", "running"),
        ("runai", 7),
        ("runai", {"x": 1}),
        ("aihc", "Runing"),  # (an AIHC status in another case is the status: round 12)
        ("aihc", "Preempted"),
    ],
)
def test_a_phase_the_lifecycle_does_not_know_is_drawn_unknown_and_named(api: str, phase: Any) -> None:
    answers = _runai([("Pending", 0.0), (phase, 600.0), ("Completed", 1200.0)])
    if api == "aihc":
        base = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
        answers = []
        for n, status in enumerate(["Pending", phase, "Succeeded"]):
            value = copy.deepcopy(base[0].value)
            assert value is not None
            value["result"]["status"] = status
            answers.append(Observation(f"x:{n}", "aihc", base[0].job, value, 200, T0 + 600 * n))
    document = report(drawn(answers), "0")
    jsonschema.validate(document, SCHEMA)
    states = [s["state"] for s in document["jobs"][0]["segments"]]
    assert states[1] == "unknown" and states[-1] == "succeeded", states
    assert lifecycle.state_of(api, phase) is lifecycle.State.UNKNOWN
    render_html(document), render_text(document), render_markdown(document)


def test_one_capture_and_captures_without_a_status_draw_without_error() -> None:
    one = report(drawn(_runai([("Running", 0.0)])), "0")
    assert [s["phase"] for s in one["jobs"][0]["segments"]] == ["Running"]
    assert "in order, evenly" in render_html(one)  # (one moment: no made-up axis)
    bare = [
        Observation(f"a.har#{n}", "runai", RUNAI_ID, {"workloadId": RUNAI_ID}, 200, T0 + 60 * n)
        for n in range(3)
    ]
    document = report(drawn(bare), "0")
    jsonschema.validate(document, SCHEMA)
    assert {s["state"] for s in document["jobs"][0]["segments"]} <= {"waiting", "unknown"}
    assert "<svg" in render_html(document)


def test_a_history_of_runai_and_aihc_jobs_draws_each_as_its_own() -> None:
    aihc = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
    runai = read_captures([str(FIXTURES / "runai-workload.har")]).observations
    mixed = [answer for pair in itertools.zip_longest(aihc, runai) for answer in pair if answer is not None]
    document = report(drawn(mixed), "0")
    alone = [report(drawn(aihc), "0")["jobs"][0], report(drawn(runai), "0")["jobs"][0]]
    by_api = {job["api"]: job["segments"] for job in document["jobs"]}
    assert by_api == {job["api"]: job["segments"] for job in alone}


class _Counted:
    calls = 0


def test_ten_thousand_captures_are_drawn_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work counted, not timed: the lifecycle lookups and time parses at n and 4n captures."""
    observe, parse = build_module.observe, build_module.parse_time

    def counted_observe(*args: Any, **kwargs: Any) -> Any:
        _Counted.calls += 1
        return observe(*args, **kwargs)

    def counted_parse(text: str) -> float | None:
        _Counted.calls += 1
        return parse(text)

    monkeypatch.setattr(build_module, "observe", counted_observe)
    monkeypatch.setattr(build_module, "parse_time", counted_parse)
    monkeypatch.setattr(page_module, "parse_time", counted_parse)

    def work(count: int) -> int:
        phases = ["Pending", "Running", "Degraded", "Running"]
        answers = _runai([(phases[n % 4], 30.0 * n) for n in range(count)])
        _Counted.calls = 0
        document = report(drawn(answers), "0")
        render_html(document)
        return _Counted.calls

    small, large = work(2_500), work(10_000)
    assert small > 0 and large <= 4 * small + 100, (small, large)


def test_the_timeline_page_documents_what_round_8_changed() -> None:
    page = (REPO / "docs" / "timeline.md").read_text(encoding="utf-8")
    for words in ("`3d 4h`", "a tenth of it", "time axes", "axis-2"):
        assert words in page, words


def test_a_change_between_values_that_read_alike_reads_apart_in_every_format() -> None:
    """The changes are listed as diff prints them: two values that would read alike, apart."""
    answers = _runai([("Running", 0.0), ("Running", 60.0)])
    assert answers[0].value is not None and answers[1].value is not None
    answers[0].value["spec"]["image"] = "caf\u00e9"
    answers[1].value["spec"]["image"] = "cafe\u0301"
    document = report(drawn(answers), "0")
    [change] = [c for c in document["jobs"][0]["changes"] if c["path"] == "spec.image"]
    assert (change["old"], change["new"]) == ('"caf\\u00e9"', '"cafe\\u0301"')
    assert "cafe\\u0301" in render_html(document)


@pytest.mark.parametrize(
    ("status", "kind"),
    [(True, "a boolean"), (False, "a boolean"), (200.0, "a number"), ("200", "a string"), (None, "null")],
)
def test_a_har_status_of_another_type_is_named_as_validate_names_it_never_a_number(
    tmp_path: Path, status: Any, kind: str
) -> None:
    """``true`` is no HTTP status (Python's ``True == 1``): named, and the answer drawn of unknown
    state, never ``HTTP True``; the entries around it are drawn as ever."""
    har = _har([("Pending", "2026-12-05T04:17:44Z"), ("Running", "2026-12-05T04:18:44Z"),
                ("Completed", "2026-12-05T04:19:44Z")], [0, 1, 2])  # fmt: skip
    har["log"]["entries"][1]["response"]["status"] = status
    path = tmp_path / "odd.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    captures = read_captures([str(path)])
    assert captures.problems == [
        f"{path}#1: response status is {kind}, not an HTTP status code (HAR response.status)"
    ]
    document = report(drawn(captures.observations), "0")
    phases = [s["phase"] for s in document["jobs"][0]["segments"]]
    assert phases[0] == "Pending" and phases[-1] == "Completed" and "HTTP True" not in phases, phases


def _pod_a_month_early() -> list[Observation]:
    """An AIHC job whose worker pod says it was created a month before the job (a skewed clock, a
    pod kept from an earlier run): its pod lane would make the job's own lane a sliver."""
    answers = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
    for answer in answers:
        assert answer.value is not None
        for pod in answer.value["result"]["podList"]["pods"]:
            if pod["objectMeta"]["name"].endswith("worker-0"):
                pod["objectMeta"]["creationTimestamp"] = "2026-11-01T00:00:00Z"
    return answers


def test_a_pod_time_far_outside_its_job_never_makes_the_job_a_sliver(tmp_path: Path) -> None:
    document = report(drawn(_pod_a_month_early()), "0")
    page = render_html(document)
    [lane] = _lanes(page)
    assert max(x1 for _, x1 in lane) - min(x0 for x0, _ in lane) >= 0.9 * page_module.WIDTH, lane
    assert page_module.OUTSIDE in page
    assert "2026-11-01T00:00:00Z" in page  # (the pod's own start, in its title and its table)
    found = _dom(page, tmp_path, 390, probe=PROBE.replace("</script>", _WIDTHS))
    assert int(found["widths"]) >= 0.9 * int(found["lane"]), found


def test_pods_a_little_outside_their_job_widen_its_axis() -> None:
    """Pods that finish a minute after the job's last answer still show on the job's axis."""
    answers = read_captures([str(FIXTURES / "aihc-job.ndjson")]).observations
    page = render_html(report(drawn(answers), "0"))
    assert page_module.OUTSIDE not in page
