"""``jobschema timeline``, round 7: cases the earlier reviews did not list.

- Times: text that is no RFC 3339 date-time (an ISO week date, an hour alone, a comma fraction, an
  offset without its colon) was read as a moment; offsets anywhere in the world and nine fractional
  digits are the moments they say.
- The picture: a job whose inputs say one moment (a Run:ai recording's NDJSON alone, the README's
  own fixture) was drawn on a made-up one-second axis; a state of unknown start between two known
  ones was drawn out of order, under the next bar; payload text of 10,000 characters filled the
  screen; right-to-left text reordered what the page says (a change read new → old); the legend's
  name was on an element that cannot carry one.
- Restarts: a pod's restart count that goes down, where the answers give no uid, is a new pod.
- Hostile strings of every kind in every place of Run:ai, AIHC v1 and v2 jobs in one page, in
  headless Chromium: text, never markup; nothing runs or loads.
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from html import unescape
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.timeline import drawn, read_captures
from jobschema.timeline import html as page_module
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation, parse_time
from jobschema.timeline.render import render_json, render_markdown, render_text, report, stamp
from jobschema.validate.formats import is_date_time
from tests.support import CAPTURES, REPO, load_json
from tests.test_timeline_review import PROBE, _dom

FIXTURES = REPO / "tests" / "fixtures" / "timeline"
SCHEMA = load_json(REPO / "schemas" / "timeline-report.schema.json")
RUNAI_ID = "76be5fcd-bc65-4d83-9b2a-55e13ed6358c"


def _page(answers: list[Observation]) -> str:
    return render_html(report(drawn(answers), "0"))


def _aihc() -> list[Observation]:
    captures = read_captures([str(FIXTURES / "aihc-job.ndjson")])
    assert not captures.problems
    return captures.observations


def _runai() -> list[Observation]:
    captures = read_captures([str(FIXTURES / "runai-workload.har")])
    assert not captures.problems
    return captures.observations


def _v2() -> list[Observation]:
    path = CAPTURES / "aihc-v2-job" / "succeeded-with-replaced-pod.json"
    captures = read_captures([str(path)])
    assert not captures.problems
    return captures.observations


def _workload(phase: Any, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "j",
        "workloadId": RUNAI_ID,
        "createdAt": "2026-12-05T04:17:44Z",
        "desiredPhase": "Running",
        "spec": {"numWorkers": 1, "compute": {"gpuDevicesRequest": 1}},
        "actualPhase": phase,
    }
    body.update(extra)
    return body


# --- times -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2026-W49-5T04:25:01Z",  # an ISO week date
        "2026-12-05T04Z",  # an hour alone
        "2026-12-05T04:25Z",  # no seconds
        "2026-12-05T04:25:01,5Z",  # a comma fraction
        "2026-12-05T04:25:01.Z",  # a point without digits
        "2026-12-05T04:25:01+0530",  # an offset without its colon
        "2026-12-05T04:25:01+05:30:15",  # an offset with seconds
        "2026-12-05T04:25:01 Z",  # a space before the zone
        "2026-12-05T04:25:01+24:00",
        "\uff12\uff10\uff12\uff16-12-05T04:25:01Z",  # fullwidth digits
        "2026-12-05T04:25:01\u0660Z",
        "+2026-12-05T04:25:01Z",
        "2026-12-5T04:25:01Z",
        "2026-02-30T04:25:01Z",
    ],
)
def test_text_that_is_no_rfc3339_date_time_is_no_moment(text: str) -> None:
    assert parse_time(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-05T04:25:01Z", "2026-12-05T04:25:01Z"),
        ("2026-12-05t04:25:01z", "2026-12-05T04:25:01Z"),
        ("2026-12-05 04:25:01Z", "2026-12-05T04:25:01Z"),  # (RFC 3339 lets a space stand for the T)
        ("2026-12-05T04:25:01", "2026-12-05T04:25:01Z"),  # (no offset: UTC, documented)
        ("2026-12-05T18:25:01+14:00", "2026-12-05T04:25:01Z"),
        ("2026-12-04T16:25:01-12:00", "2026-12-05T04:25:01Z"),
        ("2026-12-05T10:10:01+05:45", "2026-12-05T04:25:01Z"),
        ("2026-12-05T04:25:01-00:00", "2026-12-05T04:25:01Z"),
        ("2026-12-05T04:25:01.123456789Z", "2026-12-05T04:25:01.123Z"),
        ("2026-03-08T02:30:00-05:00", "2026-03-08T07:30:00Z"),  # (a wall time a DST gap skips: its offset)
    ],
)
def test_every_offset_and_any_number_of_fraction_digits_is_the_moment_it_says(
    text: str, expected: str
) -> None:
    assert stamp(parse_time(text)) == expected


_DATE_TIMES = st.tuples(
    st.sampled_from(
        ["2026-12-05", "2026-W49-5", "2026-339", "20261205", "2026-12-5", "2024-02-29", "2026-02-29"]
    ),
    st.sampled_from(["T", "t", " ", "_", ""]),
    st.sampled_from(["04:25:01", "04:25", "04", "042501", "23:59:60", "24:00:00", "4:25:01"]),
    st.sampled_from(["", ".5", ".123456789", ",5", ".", ".x"]),
    st.sampled_from(["", "Z", "z", "+05:30", "-00:00", "+0530", "+05", "+05:30:15", " Z", "+24:00", "Zjunk"]),
).map("".join)


@settings(database=None, max_examples=500, deadline=None)
@given(_DATE_TIMES)
def test_only_rfc3339_date_times_and_the_documented_leniencies_are_moments(text: str) -> None:
    """What parse_time reads is an RFC 3339 date-time as validate checks it, but for the documented
    leniencies: a space for the ``T``, no offset (UTC)."""
    if parse_time(text) is None:
        return
    normal = text[:10] + "T" + text[11:]
    assert is_date_time(normal) or is_date_time(normal + "Z"), text


# --- restarts ----------------------------------------------------------------------------------------


def test_a_restart_count_that_goes_down_without_a_uid_is_a_new_pod() -> None:
    answers = []
    for number, count in enumerate([0, 3, 1, 2]):
        value = copy.deepcopy(_aihc()[0].value)
        assert value is not None
        value["result"]["status"] = "Running"
        for pod in value["result"]["podList"]["pods"]:
            pod["restartCount"] = count
            pod["objectMeta"].pop("uid", None)
            pod["objectMeta"].pop("creationTimestamp", None)
        answers.append(Observation(f"x:{number}", "aihc", _aihc()[0].job, value))
    [timeline] = drawn(answers)
    assert {(pod.restarts, pod.replacements) for pod in timeline.pods} == {(5, 1)}


def test_a_restart_count_that_goes_down_under_one_uid_is_no_new_pod() -> None:
    """The same uid is the same pod, whatever a glitching count says."""
    answers = []
    for number, count in enumerate([0, 3, 1]):
        value = copy.deepcopy(_aihc()[0].value)
        assert value is not None
        for pod in value["result"]["podList"]["pods"]:
            pod["restartCount"] = count
        answers.append(Observation(f"x:{number}", "aihc", _aihc()[0].job, value))
    [timeline] = drawn(answers)
    assert {(pod.restarts, pod.replacements) for pod in timeline.pods} == {(3, 0)}


# --- the picture: what it says of time ---------------------------------------------------------------


def _spans(document: dict[str, Any]) -> list[list[tuple[float, float]]]:
    """Each lane's drawn stretches (x, x + width), in the page's order, from the SVG."""
    import re

    page = render_html(document)
    lanes = re.findall(r'<svg class="bar"[^>]*>(.*?)</svg>', page)
    return [
        [
            (float(x), float(x) + float(w))
            for x, w in re.findall(r'<rect [^>]*x="([0-9.]+)" y="0" width="([0-9.]+)"', lane)
        ]
        for lane in lanes
    ]


def test_a_job_whose_inputs_say_one_moment_is_drawn_in_order_without_a_made_up_axis(tmp_path: Path) -> None:
    answers = read_captures([str(REPO / "tests" / "fixtures" / "record" / "two-jobs.ndjson")]).observations
    page = render_html(report(drawn(answers), "0"))
    assert "1s from first to last" not in page and 'class="tick' not in page
    assert "in order, evenly" in page
    for lane in _spans(report(drawn(answers), "0")):
        assert [round(x0) for x0, _ in lane] == [0, 333, 667]


def _restarting() -> list[Observation]:
    """AIHC answers of a job that restarted (from an NDJSON: no capture times): the restart's own time
    is unknown, between two known ones."""
    base = _aihc()[0].value
    assert base is not None
    steps = [
        ("Pending", {}),
        ("Running", {"runningAt": "2026-12-05T04:26:00Z"}),
        ("Restarting", {"runningAt": "2026-12-05T04:26:00Z"}),
        ("Running", {"runningAt": "2026-12-05T04:40:00Z"}),
        ("Succeeded", {"runningAt": "2026-12-05T04:40:00Z", "finishedAt": "2026-12-05T05:26:00Z"}),
    ]
    answers = []
    for number, (status, times) in enumerate(steps):
        value = copy.deepcopy(base)
        value["result"].update({"status": status, **times})
        answers.append(Observation(f"x:{number}", "aihc", _aihc()[0].job, value))
    return answers


def test_a_state_of_unknown_start_between_known_ones_is_drawn_in_its_place() -> None:
    [lane, *_] = _spans(report(drawn(_restarting()), "0"))
    starts = [x0 for x0, _ in lane]
    assert starts == sorted(starts), lane
    assert all(0 <= x0 <= x1 <= page_module.WIDTH for x0, x1 in lane)


SEGMENT = st.tuples(
    st.sampled_from(["waiting", "running", "starting", "succeeded", "unknown"]),
    st.one_of(st.none(), st.integers(0, 3600)),
    st.booleans(),
)


@settings(database=None, max_examples=300, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=12), st.integers(1, 7200))
def test_any_lane_is_drawn_left_to_right_inside_its_bounds(
    items: list[tuple[str, int | None, bool]], span: int
) -> None:
    """Whatever starts are known (each known start no earlier than the one before, as the model
    makes them), each stretch starts where the one before it does or later, inside the lane."""
    base = 1796444264.0
    segments, latest = [], 0
    for state, offset, _ended in items:
        start = None if offset is None else max(latest, offset)
        latest = latest if start is None else start
        moment = stamp(None if start is None else base + start)
        segments.append({"state": state, "phase": state, "start": moment, "end": None, "seconds": None})
    for before, after in itertools.pairwise(segments):
        before["end"] = after["start"] if items[0][2] else None
    spans = page_module._spans(segments, (base, base + max(span, latest + 1)))
    starts = [x0 for x0, _ in spans]
    assert starts == sorted(starts), (segments, spans)
    assert all(0 <= x0 <= x1 <= page_module.WIDTH + 1e-6 for x0, x1 in spans), spans


def test_no_drawn_state_is_hidden_under_another_in_chromium(tmp_path: Path) -> None:
    probe = PROBE.replace(
        "</script>",
        """const hidden = all('svg.bar rect').filter(r => { const b = r.getBoundingClientRect();
  const top = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
  return top !== r && !(top && top.parentNode === r); });
d.hidden = String(hidden.length);</script>""",
    )
    found = _dom(_page(_restarting()), tmp_path, 1280, probe=probe)
    assert found["hidden"] == "0", found


# --- the picture: what a person can read -------------------------------------------------------------


LONG = "n" * 10_000


def _long_everywhere() -> list[Observation]:
    answers = []
    for answer in _aihc():
        value = copy.deepcopy(answer.value)
        assert value is not None
        job = value["result"]
        job["name"], job["jobId"] = LONG, "j" * 10_000
        job["envs"].append({"name": "K" * 10_000, "value": "v"})
        for pod in job["podList"]["pods"]:
            pod["reason"], pod["podStatus"]["podPhase"] = "r" * 10_000, "Q" * 10_000
            pod["objectMeta"]["name"] = "p" * 10_000 + pod["objectMeta"]["name"]
        answers.append(Observation(answer.source, answer.api, "j" * 10_000, value, 200, answer.at))
    return answers


def test_ten_thousand_character_strings_leave_a_page_a_person_can_read_in_chromium(tmp_path: Path) -> None:
    document = report(drawn(_long_everywhere()), "0")
    page = render_html(document)
    assert LONG not in page and "more characters" in page
    assert LONG in render_json(document)  # (json has every character)
    probe = PROBE.replace(
        "</script>",
        """d.height = String(document.documentElement.scrollHeight);
d.heading = String(Math.round(document.querySelector('h2').getBoundingClientRect().height));</script>""",
    )
    found = _dom(page, tmp_path, 1280, probe=probe)
    assert int(found["heading"]) < 200 and int(found["height"]) < 2000, found
    printed = _dom(page, tmp_path, 1280, probe=probe, print_rules=True)
    assert int(printed["height"]) < 6000, printed


def test_right_to_left_text_never_reorders_what_the_page_says_in_chromium(tmp_path: Path) -> None:
    """A change from one Hebrew name to another read new → old (the arrow and quotes between two
    right-to-left runs took their direction); a pod label's restart count moved before its name."""
    answers = []
    for number, answer in enumerate(_aihc()):
        value = copy.deepcopy(answer.value)
        assert value is not None
        value["result"]["envs"].append({"name": "TEAM", "value": ("שלום", "עולם")[min(number, 1)]})
        for pod in value["result"]["podList"]["pods"]:
            pod["objectMeta"]["name"] = "עבודה " + pod["objectMeta"]["name"][-1]
        answers.append(Observation(answer.source, answer.api, answer.job, value, 200, answer.at))
    probe = PROBE.replace(
        "</script>",
        """const at = (root, text) => { const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) { const i = n.data.indexOf(text);
    if (i >= 0) { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + text.length);
      return r.getBoundingClientRect().left; } } return null; };
document.querySelectorAll('details').forEach(x => x.open = true);
const change = all('ol.changes li').find(li => li.textContent.includes('שלום'));
d.old = String(at(change, 'שלום')); d.new = String(at(change, 'עולם'));
const label = all('.pod-lane .label')[0];
d.name = String(at(label, 'עבודה')); d.count = String(at(label, 'restart'));</script>""",
    )
    found = _dom(_page(answers), tmp_path, 1280, probe=probe)
    assert float(found["old"]) < float(found["new"]), found
    assert float(found["name"]) < float(found["count"]), found


def test_emoji_and_joined_sequences_stay_themselves() -> None:
    answers = []
    for answer in _aihc():
        value = copy.deepcopy(answer.value)
        assert value is not None
        value["result"]["name"] = "👩‍🔬 trainer 🏳️‍🌈"
        answers.append(Observation(answer.source, answer.api, answer.job, value, 200, answer.at))
    document = report(drawn(answers), "0")
    for out in (render_html(document), render_text(document), render_markdown(document)):
        assert "👩‍🔬 trainer 🏳️‍🌈" in unescape(out)


def test_the_legend_is_a_named_list_and_every_fold_is_reachable_by_keyboard_in_chromium(
    tmp_path: Path,
) -> None:
    probe = PROBE.replace(
        "</script>",
        """const legend = document.querySelector('.legend');
d.legend = legend.getAttribute('role') + '|' + legend.getAttribute('aria-label') + '|' +
  [...legend.children].every(c => c.getAttribute('role') === 'listitem');
d.folds = String(all('summary').length);
d.reachable = String(all('summary').filter(s => s.tabIndex === 0).length);
d.positive = String(all('[tabindex]').filter(e => e.tabIndex > 0).length);</script>""",
    )
    found = _dom(_page(_aihc() + _runai()), tmp_path, 1280, probe=probe)
    assert found["legend"] == "list|state colours|true", found
    assert found["folds"] == found["reachable"] and int(found["folds"]) == 4 and found["positive"] == "0"


def test_a_thousand_jobs_draw_a_bounded_page_in_linear_time() -> None:
    def many(count: int) -> list[Observation]:
        answers = []
        for job in range(count):
            ident = f"00000000-0000-4000-8000-{job:012d}"
            for phase in ("Pending", "Running", "Completed"):
                answers.append(Observation(f"x:{job}", "runai", ident, _workload(phase, workloadId=ident)))
        return answers

    started = time.perf_counter()
    page = _page(many(1000))
    first = time.perf_counter() - started
    started = time.perf_counter()
    _page(many(2000))
    second = time.perf_counter() - started
    assert second < 4 * first + 0.5, (first, second)
    assert len(page.encode()) < 1000 * 2500
    assert "1000 jobs (1000 succeeded)" in page


# --- the picture in a real browser: hostile strings in every place of every kind of job -----------------


HOSTILE = [
    '</script><script>window.__pwned=1;document.title="PWNED"</script>',
    '"><img src=x onerror="window.__pwned=2">',
    "javascript:window.__pwned=3",
    "<a href='javascript:window.__pwned=4'>click</a>",
    "\u202eevil\u202c right-to-left \u2067override\u2069",
    "<svg><script>window.__pwned=5</script></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=6>",
    "<iframe srcdoc='<script>parent.__pwned=7</script>'>",
    "&lt;script&gt;window.__pwned=8&lt;/script&gt;",
    "<!--<script>window.__pwned=9</script>-->",
    "<base href='https://example.com/'><link rel=stylesheet href=x.css>",
    "x" * 10_000,
]


def _hostile_everywhere() -> list[Observation]:
    """A Run:ai workload (HAR), an AIHC v1 job (NDJSON) and an AIHC v2 job, each with a hostile string
    in its id, name, phase, pod names and phases, reason, an env value, an annotation and a key."""
    answers = []
    for number, answer in enumerate(_aihc()):
        value = copy.deepcopy(answer.value)
        assert value is not None
        job = value["result"]
        job["name"] = HOSTILE[number % len(HOSTILE)]
        job["status"] = HOSTILE[(number + 1) % len(HOSTILE)] if number == 1 else job["status"]
        for k, pod in enumerate(job["podList"]["pods"]):
            pod["objectMeta"]["name"] = HOSTILE[(k + 2) % len(HOSTILE)] + str(k)
            pod["objectMeta"]["annotations"] = {
                HOSTILE[(k + 3) % len(HOSTILE)]: HOSTILE[(k + number) % len(HOSTILE)]
            }
            pod["reason"] = HOSTILE[(k + 5) % len(HOSTILE)]
            pod["podStatus"]["podPhase"] = (
                HOSTILE[(k + 6) % len(HOSTILE)] if number == 2 else pod["podStatus"]["podPhase"]
            )
        job["envs"].append({"name": HOSTILE[7], "value": HOSTILE[number % len(HOSTILE)]})
        answers.append(Observation(answer.source, answer.api, HOSTILE[8] + "-v1", value, 200, answer.at))
    for number, answer in enumerate(_runai()):
        if answer.value is None:
            answers.append(Observation(answer.source, "runai", HOSTILE[0], None, answer.status, answer.at))
            continue
        value = {**answer.value, "name": HOSTILE[(number + 4) % len(HOSTILE)], "workloadId": HOSTILE[0]}
        value["actualPhase"] = HOSTILE[9] if number == 3 else value["actualPhase"]
        answers.append(Observation(answer.source, "runai", HOSTILE[0], value, 200, answer.at))
    for answer in _v2():
        value = copy.deepcopy(answer.value)
        assert value is not None
        value["job"]["name"] = HOSTILE[10]
        for k, pod in enumerate(value["job"]["pods"]):
            pod["name"] = HOSTILE[(k + 1) % len(HOSTILE)]
        for entry in value["job"].get("jobTimeLine", [])[:1]:
            entry["conditionType"] = HOSTILE[5]
        answers.append(Observation(answer.source, "aihc", HOSTILE[1], value, 200, answer.at))
    return answers


def test_hostile_strings_in_every_place_of_every_kind_of_job_are_text_in_chromium(tmp_path: Path) -> None:
    page = _page(_hostile_everywhere())
    probe = PROBE.replace(
        "</script>",
        "d.text = document.body.innerText.includes('<\\/script><script>window.__pwned=1') ? 'yes' : 'no';"
        "d.links = all('a').map(a => a.getAttribute('href')).join(' ');"
        "</script>",
    )
    found = _dom(page, tmp_path, 1280, probe=probe)
    assert (found["pwned"], found["title"], found["loads"], found["handlers"]) == (
        "no", "jobschema timeline: 3 jobs", "0", "0"
    )  # fmt: skip
    forbidden = {"img", "link", "iframe", "object", "embed", "image", "base", "math", "mglyph", "style"}
    assert not set(found["elements"].split(",")) & (forbidden - {"style"})
    # (the only links: the overview's, each to a job's section of the page)
    assert set(found["links"].split()) == {"#job-0", "#job-1", "#job-2"}
    assert found["elements"].split(",").count("style") == 1 and found["elements"].count("script") == 1
    assert found["text"] == "yes"  # (shown as the text it is)


def test_every_format_of_a_hostile_mixed_history_follows_its_schema_and_repeats_its_bytes() -> None:
    answers = _hostile_everywhere()
    checker = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    first = report(drawn(answers), "0")
    checker.validate(json.loads(render_json(first)))
    again = report(drawn(_hostile_everywhere()), "0")
    for rendered in (render_text, render_json, render_markdown, render_html):
        assert rendered(first) == rendered(again)
    assert [job["api"] for job in first["jobs"]] == ["aihc", "runai", "aihc"]


def test_each_change_names_its_place_and_values_apart_in_the_json_report() -> None:
    document = report(drawn(_aihc()), "0")
    changes = document["jobs"][0]["changes"]
    assert changes[0]["path"] is None and changes[0]["new"] == "Pending" and changes[0]["old"] is None
    for change in changes[1:]:
        sign = change["text"][0]
        composed = f"{sign} {change['path']}: " + (
            f"{change['old']} → {change['new']}"
            if sign == "±"
            else change["new"]
            if sign == "+"
            else change["old"]
        )
        assert change["text"] == composed


def test_a_job_moved_from_aihc_v1_to_v2_keeps_its_changes_across(tmp_path: Path) -> None:
    v1 = _aihc()
    v2 = copy.deepcopy(_v2()[0].value)
    assert v2 is not None
    v2["job"]["jobid"] = v1[0].job
    answers = [*v1[:2], Observation("v2.json", "aihc", v1[0].job, v2)]
    [timeline] = drawn(answers)
    assert any(
        change.source == "v2.json" and not change.text.startswith("first") for change in timeline.changes
    )


def test_duplicate_capture_times_keep_their_input_order() -> None:
    at = parse_time("2026-12-05T04:20:00Z")
    answers = [
        Observation("a.har#0", "runai", RUNAI_ID, _workload("Pending"), 200, at),
        Observation("a.har#1", "runai", RUNAI_ID, _workload("Running"), 200, at),
        Observation("a.har#2", "runai", RUNAI_ID, _workload("Completed"), 200, at),
    ]
    [timeline] = drawn(answers)
    assert [s.phase for s in timeline.segments] == ["Pending", "Running", "Completed"]
    assert [s.seconds for s in timeline.segments[1:2]] == [0.0]


def test_a_job_whose_every_answer_is_an_error_is_drawn_unknown() -> None:
    answers = [
        Observation(f"a.har#{n}", "runai", RUNAI_ID, None, 404, 1796444264.0 + 300 * n) for n in range(3)
    ]
    document = report(drawn(answers), "0")
    assert [s["phase"] for s in document["jobs"][0]["segments"]] == ["HTTP 404"]
    assert "unknown (HTTP 404)" in render_text(document) and "<svg" in render_html(document)


def test_the_timeline_page_documents_what_round_7_changed() -> None:
    page = (REPO / "docs" / "timeline.md").read_text(encoding="utf-8")
    for words in ("ISO 8601", "in order, evenly", "more characters", "goes down", "right-to-left"):
        assert words in page, words


def test_a_long_lane_of_unknown_starts_is_placed_in_linear_time() -> None:
    """One known start, then tens of thousands of states of unknown start (a Run:ai NDJSON of a job
    that flapped, beside one HAR answer): each is placed once, never by a scan of the gap per state."""

    def lane(count: int) -> list[dict[str, Any]]:
        first = {"state": "waiting", "phase": "Pending", "start": "2026-12-05T04:17:44Z", "end": None}
        rest = [{"state": "running", "phase": "Running", "start": None, "end": None} for _ in range(count)]
        last = {"state": "running", "phase": "Running", "start": "2026-12-05T05:17:44Z", "end": None}
        return [first, *rest, last]

    axis = (parse_time("2026-12-05T04:17:44Z") or 0.0, parse_time("2026-12-05T05:17:44Z") or 0.0)
    started = time.perf_counter()
    spans = page_module._spans(lane(20_000), axis)
    first = time.perf_counter() - started
    started = time.perf_counter()
    page_module._spans(lane(80_000), axis)
    second = time.perf_counter() - started
    assert second < 8 * first + 0.2, (first, second)
    starts = [x0 for x0, _ in spans]
    assert starts == sorted(starts) and spans[-1][0] == page_module.WIDTH


def test_payload_times_out_of_order_draw_no_lane_backwards() -> None:
    """An AIHC answer whose finishedAt is before its runningAt (a clock skew between two servers)."""
    base = _aihc()[0].value
    assert base is not None
    steps = [
        ("Pending", {}),
        ("Running", {"runningAt": "2026-12-05T05:00:00Z"}),
        ("Succeeded", {"runningAt": "2026-12-05T05:00:00Z", "finishedAt": "2026-12-05T04:50:00Z"}),
    ]
    answers = []
    for number, (status, times) in enumerate(steps):
        value = copy.deepcopy(base)
        value["result"].update({"status": status, **times})
        answers.append(Observation(f"x:{number}", "aihc", _aihc()[0].job, value))
    document = report(drawn(answers), "0")
    assert all(s["seconds"] is None or s["seconds"] >= 0 for s in document["jobs"][0]["segments"])
    for lane in _spans(document):
        starts = [x0 for x0, _ in lane]
        assert starts == sorted(starts) and all(x0 <= x1 for x0, x1 in lane), lane
