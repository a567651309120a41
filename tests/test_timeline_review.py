"""``jobschema timeline`` under review: payload text that would be markup, script, a control or bidi
character or a credential, in every place a page shows it; histories that are dense, shuffled,
duplicated or span days; what a person (or a screen reader, or a printer) gets from the page. The
browser tests render in headless Chromium and skip, as tests/test_timeline.py's do, without it."""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

from jobschema.lifecycle import ORDER
from jobschema.timeline import drawn, read_captures
from jobschema.timeline import html as page_module
from jobschema.timeline.html import COLUMNS, MAX_CHANGES, MAX_ROWS, render_html
from jobschema.timeline.read import Observation
from jobschema.timeline.render import render_json, render_markdown, render_text, report
from tests.support import REPO
from tests.test_timeline import _browser

FIXTURES = REPO / "tests" / "fixtures" / "timeline"
SCHEMA = json.loads((REPO / "schemas" / "timeline-report.schema.json").read_text(encoding="utf-8"))
#: Payload text that would be markup, script, a URL, a comment, a control or bidi character.
HOSTILE = [
    '</script><script>window.__pwned=1;document.title="PWNED"</script>',
    "<!--",
    '"><img src=x onerror="window.__pwned=2;document.title=\'PWNED\'">',
    "'><svg onload=window.__pwned=3>",
    "javascript:window.__pwned=4",
    "</style><style>body{display:none}</style>",
    "</title><script>window.__pwned=5</script>",
    "<a href=https://example.com/x>link</a><link rel=stylesheet href=https://example.com/s.css>",
    "a\u2028b\u2029c",
    "nul\x00here\x1b[2J",
    "bidi\u202eevil\u202c \u2066isolate\u2069",
    "x" * 3000,
]
#: Characters that reorder, break or hide text: shown as escapes, as the text format shows them.
INVISIBLE = ["\u202e", "\u202c", "\u2066", "\u2069", "\u2028", "\u2029", "\x00", "\x1b"]


def _aihc_answers() -> list[Observation]:
    captures = read_captures([str(FIXTURES / "aihc-job.ndjson")])
    assert not captures.problems
    return captures.observations


def _runai_answers() -> list[Observation]:
    captures = read_captures([str(FIXTURES / "runai-workload.har")])
    assert not captures.problems
    return [answer for answer in captures.observations if answer.value is not None]


def _hostile_aihc() -> list[Observation]:
    """The AIHC fixture with a hostile string in the job's name, a status, pod names, pod phases,
    a failure reason, an env value and a key (which the changes list)."""
    answers = []
    for n, answer in enumerate(_aihc_answers()):
        value = copy.deepcopy(answer.value)
        assert value is not None
        job = value["result"]
        job["name"] = HOSTILE[n % len(HOSTILE)] + HOSTILE[(n + 1) % len(HOSTILE)]
        if n == 1:
            job["status"] = HOSTILE[(n + 2) % len(HOSTILE)]
        for k, pod in enumerate(job["podList"]["pods"]):
            pod["objectMeta"]["name"] = HOSTILE[(k + 3) % len(HOSTILE)] + str(k)
            pod["reason"] = HOSTILE[(k + 8) % len(HOSTILE)]
            if n == 2:
                pod["podStatus"]["podPhase"] = HOSTILE[(n + k + 9) % len(HOSTILE)]
        job["envs"].append(
            {"name": HOSTILE[(n + 6) % len(HOSTILE)], "value": HOSTILE[(n + 7) % len(HOSTILE)]}
        )
        job[HOSTILE[n % len(HOSTILE)]] = HOSTILE[(n + 10) % len(HOSTILE)]
        answers.append(Observation(answer.source, answer.api, answer.job, value, answer.status, answer.at))
    return answers


def _page(answers: list[Observation]) -> str:
    return render_html(report(drawn(answers), "0"))


# --- payload text in the page ----------------------------------------------------------------------


def test_control_and_bidi_characters_in_payload_text_are_shown_as_escapes_in_html() -> None:
    page = _page(_hostile_aihc())
    for character in INVISIBLE:
        assert character not in page, repr(character)
    text = unescape(re.sub(r"<[^>]*>", "", page))
    assert "bidi\\u202eevil\\u202c \\u2066isolate\\u2069" in text
    answers = _aihc_answers()
    named = [
        Observation(
            a.source, a.api, a.job, {"result": {**a.value["result"], "name": "nul\x00here\x1b[2J\u202e"}}
        )
        for a in answers
        if a.value is not None
    ]
    bare = unescape(re.sub(r"<[^>]*>", "", _page(named)))
    assert "nul\\x00here\\x1b[2J\\u202e" in bare and "\x00" not in bare
    assert "a\\u2028b\\u2029c" in text and "nul\\u0000here\\u001b[2J" in text  # (a JSON value in a change)


class _Markup(HTMLParser):
    """Every element and attribute a page holds, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes += attrs


def test_no_payload_text_becomes_markup_in_html() -> None:
    markup = _Markup()
    markup.feed(_page(_hostile_aihc()))
    assert markup.tags <= {
        "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "div", "span", "section",
        "svg", "rect", "details", "summary", "ol", "li", "time", "table", "caption", "thead", "tbody",
        "tr", "th", "td", "bdi",  # (bdi since round 7: payload text isolated, test_timeline_round7.py)
    }  # fmt: skip
    names = {name for name, _ in markup.attributes}
    assert not {name for name in names if name.startswith("on")} and not names & {"href", "src", "srcset"}
    assert names <= {
        "lang", "charset", "name", "content", "http-equiv", "class", "style", "data-job", "title", "viewbox",
        "preserveaspectratio", "role", "aria-label", "aria-describedby", "aria-hidden", "x", "y", "width",
        "height", "fill", "id", "colspan",
    }, names  # fmt: skip


def test_the_page_forbids_script_and_every_load_by_its_content_security_policy() -> None:
    page = _page(_aihc_answers())
    [policy] = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    rules = dict(rule.strip().split(" ", 1) for rule in policy.split(";") if rule.strip())
    assert rules["default-src"] == "'none'" and "script-src" not in rules
    assert rules["style-src"] == "'unsafe-inline'" and "base-uri" in rules and "form-action" in rules
    assert page.index("Content-Security-Policy") < page.index("<style>")


def test_a_credential_in_any_capture_string_is_masked_in_every_format() -> None:
    credentials = {
        "--password hunter2-very-secret": "hunter2-very-secret",
        "https://alice:S3cretPassw0rd@example.com/x": "S3cretPassw0rd",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl": (
            "eyJzdWIiOiJ4In0"
        ),
        "API_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    }
    for credential, needle in credentials.items():
        for place in ("name", "status", "pod", "reason", "env", "key"):
            answers = []
            for n, answer in enumerate(_aihc_answers()):
                value = copy.deepcopy(answer.value)
                assert value is not None
                job = value["result"]
                job["name"] = credential if place == "name" else job["name"]
                job["status"] = credential if place == "status" and n == 1 else job["status"]
                pod = job["podList"]["pods"][0]
                pod["objectMeta"]["name"] = credential if place == "pod" else pod["objectMeta"]["name"]
                pod["reason"] = credential if place == "reason" else None
                if place == "env":
                    job["envs"].append({"name": "X", "value": f"{credential} {n}"})
                if place == "key":
                    job[f"{credential} {n}"] = 1
                answers.append(Observation(answer.source, answer.api, answer.job, value, 200, answer.at))
            document = report(drawn(answers), "0")
            for rendered in (render_text, render_json, render_markdown, render_html):
                out = rendered(document)
                assert needle not in out and needle not in unescape(out), (credential, place, rendered)


# --- histories -------------------------------------------------------------------------------------


def _flapping(count: int, *, every_other_time: bool = False) -> list[Observation]:
    """A Run:ai workload that flaps between Running and Pending ``count`` times, 10 s apart (every
    other answer without a capture time, when asked)."""
    base = _runai_answers()[-1]
    assert base.value is not None
    submitted = 1796444264.0  # the fixture's createdAt
    answers = []
    for i in range(count):
        value = {**base.value, "actualPhase": ("Running", "Pending")[i % 2]}
        at = None if every_other_time and i % 2 else submitted + 60 + 10.0 * i
        answers.append(Observation(f"x#{i}", "runai", base.job, value, 200, at))
    return answers


def test_a_lane_of_states_with_every_other_time_unknown_is_drawn_in_linear_time(monkeypatch) -> None:
    calls = {"n": 0}
    original = page_module._t

    def counted(text: str | None) -> float | None:
        calls["n"] += 1
        return original(text)

    monkeypatch.setattr(page_module, "_t", counted)
    document = report(drawn(_flapping(3000, every_other_time=True)), "0")
    render_html(document)
    assert calls["n"] <= 20 * 3000  # (quadratic: every open segment read every later start)


def test_a_dense_lane_is_drawn_in_bounded_rects_and_a_bounded_page() -> None:
    document = report(drawn(_flapping(20000)), "0")
    assert len(document["jobs"][0]["segments"]) == 20000
    page = render_html(document)
    assert page.count("<rect") <= COLUMNS * len(ORDER)
    assert page.count("<li>") <= MAX_CHANGES + 1 and page.count("<tr>") <= MAX_ROWS + 3
    assert len(page.encode()) < 1_000_000
    assert "20000 states" in page and f"{20000 - MAX_ROWS} more states" in page
    assert f"{20000 - MAX_CHANGES} more changes" in page
    # Each drawn stretch says what it holds: both states, their shares, its times.
    titles = re.findall(r"<title>([^<]*)</title>", page)
    assert all("running" in t and "waiting" in t for t in titles[1:-1]), titles[:3]


def test_narrow_stretches_have_no_outline_that_would_hide_their_colour() -> None:
    page = _page(_flapping(300))
    narrow = re.findall(r'<rect class="([^"]*)" x="[^"]*" y="0" width="([0-9.]+)" height="18"', page)
    assert narrow and all(("thin" in c) == (float(w) < page_module.THIN) for c, w in narrow)
    assert "rect.thin { stroke: none; }" in page


def test_each_lane_has_its_states_as_a_table() -> None:
    document = report(drawn(_aihc_answers()), "0")
    page = render_html(document)
    tables = re.findall(r'<table id="[^"]*">(.*?)</table>', page)
    job = document["jobs"][0]
    assert len(tables) == 1 + len(job["pods"])
    for table, segments in zip(tables, [job["segments"], *(p["segments"] for p in job["pods"])], strict=True):
        rows = re.findall(
            r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>", table
        )
        assert [(r[0], unescape(r[1]), r[2]) for r in rows] == [
            (s["state"], s["phase"], s["start"] or "?") for s in segments
        ]
    assert page.count('aria-describedby="') == 1 + len(job["pods"])


def test_the_axis_says_the_date_when_the_history_spans_days() -> None:
    answers = _flapping(4)
    later = [
        Observation(a.source, a.api, a.job, a.value, a.status, (a.at or 0) + 86400.0 * 2 * i)
        for i, a in enumerate(answers)
    ]
    page = _page(later)
    ticks = re.findall(r'<span class="tick[^"]*">([^<]*)</span>', page)
    assert ticks[0] == "12-05 04:17" and ticks[-1] == "12-11 04:19", ticks
    assert "times in UTC" in page
    same_day = re.findall(r'<span class="tick[^"]*">([^<]*)</span>', _page(answers))
    assert same_day[0] == "04:17:44" and len(same_day) == 5


def test_answers_are_drawn_in_capture_time_order_and_exact_duplicates_once(tmp_path: Path) -> None:
    har = json.loads((FIXTURES / "runai-workload.har").read_text(encoding="utf-8"))
    shuffled = copy.deepcopy(har)
    entries = shuffled["log"]["entries"]
    shuffled["log"]["entries"] = entries[1::2][::-1] + entries[0::2]
    (tmp_path / "shuffled.har").write_text(json.dumps(shuffled), encoding="utf-8")
    (tmp_path / "again.har").write_text(json.dumps(har), encoding="utf-8")
    expected = report(drawn(read_captures([str(FIXTURES / "runai-workload.har")]).observations), "0")
    for inputs in (["shuffled.har"], ["shuffled.har", "again.har"]):
        found = report(drawn(read_captures([str(tmp_path / n) for n in inputs]).observations), "0")
        for key in ("segments", "waiting_seconds", "running_seconds", "answers", "final", "start", "end"):
            assert found["jobs"][0][key] == expected["jobs"][0][key], (inputs, key)
        assert [c["text"] for c in found["jobs"][0]["changes"]] == [
            c["text"] for c in expected["jobs"][0]["changes"]
        ]


def test_every_hostile_or_dense_history_validates_against_the_schema() -> None:
    checker = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    for answers in (
        _hostile_aihc(),
        _flapping(500),
        _flapping(501, every_other_time=True),
        _aihc_answers()[:1],
    ):
        checker.validate(json.loads(render_json(report(drawn(answers), "0"))))


def test_every_format_is_the_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    outputs = []
    for seed in ("0", "1", "4242"):
        formats = []
        for fmt in ("text", "json", "markdown", "html"):
            run = subprocess.run(
                [sys.executable, "-m", "jobschema", "timeline", "-f", fmt, str(FIXTURES)],
                capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120, check=False,
            )  # fmt: skip
            assert run.returncode == 0, run.stderr
            formats.append(run.stdout)
        outputs.append(formats)
    assert outputs[0] == outputs[1] == outputs[2]


# --- in the browser ------------------------------------------------------------------------------------

#: Added to a copy of the page (its policy taken out, so this probe may run): what an injection did,
#: what was loaded, and where the axis and its ticks are against the lanes.
PROBE = """<script>
const d = document.body.dataset, r = e => e.getBoundingClientRect();
const all = s => [...document.querySelectorAll(s)];
d.pwned = String(window.__pwned === undefined ? 'no' : window.__pwned);
d.title = document.title;
d.loads = String(performance.getEntriesByType('resource').length);
d.elements = [...new Set(all('*').map(e => e.tagName.toLowerCase()))].sort().join(',');
d.handlers = String(all('*').filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length);
const ticks = all('.tick').filter(t => getComputedStyle(t).display !== 'none').map(r);
const bars = all('svg.bar').map(r), axes = all('.axis').map(r);
const near = (a, b) => Math.abs(a - b) < 1;
d.ticks = String(ticks.length);
d.overlap = String(ticks.some((a, i) => ticks.some((b, j) =>
  i < j && a.top === b.top && a.right > b.left && b.right > a.left)));
d.aligned = String(axes.length > 0 &&
  axes.every(a => bars.some(b => near(a.left, b.left) && near(a.right, b.right))));
d.inside = String(ticks.every(t => axes.some(a => t.left >= a.left - 1 && t.right <= a.right + 1)));
d.tables = String(all('table').filter(t => t.checkVisibility()).length);
</script>"""


def _dom(
    page: str, tmp_path: Path, width: int, *, print_rules: bool = False, probe: str = PROBE
) -> dict[str, str]:
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    if print_rules:  # the print stylesheet's rules, applied on screen (headless dumps the screen)
        page = page.replace("@media print", "@media all")
    path = tmp_path / f"page-{width}-{print_rules}.html"
    path.write_text(page.replace("</body>", probe + "</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},900"]
    flags += ["--virtual-time-budget=2000", "--dump-dom", path.as_uri()]
    run = subprocess.run([_browser(), *flags], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    body = run.stdout.split("<body", 1)[1].split(">", 1)[0]
    return {key: unescape(value) for key, value in re.findall(r'data-(\w+)="([^"]*)"', body)}


def test_no_hostile_payload_runs_or_loads_anything_in_chromium(tmp_path: Path) -> None:
    found = _dom(_page(_hostile_aihc()), tmp_path, 1280)
    assert (found["pwned"], found["title"], found["loads"], found["handlers"]) == (
        "no", "jobschema timeline: 1 job", "0", "0"
    )  # fmt: skip
    assert not set(found["elements"].split(",")) & {"img", "a", "link", "iframe", "object", "embed", "image"}
    assert found["elements"].count("script") == 1  # (the probe)


def test_the_policy_stops_a_script_that_would_get_into_the_page_in_chromium(tmp_path: Path) -> None:
    page = _page(_aihc_answers()).replace(
        "</body>", "<script>document.body.dataset.ran='yes'</script></body>"
    )
    path = tmp_path / "injected.html"
    path.write_text(page, encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=2000", "--dump-dom"]
    run = subprocess.run(
        [_browser(), *flags, path.as_uri()], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0 and "<body" in run.stdout, run.stderr[-2000:]
    assert 'data-ran="yes"' not in run.stdout


@pytest.mark.parametrize("width", [1280, 800, 420])
def test_the_axis_lines_up_with_the_lanes_and_its_ticks_never_overlap_in_chromium(
    tmp_path: Path, width: int
) -> None:
    answers = _flapping(4)
    days = [
        Observation(a.source, a.api, a.job, a.value, a.status, (a.at or 0) + 86400.0 * 2 * i)
        for i, a in enumerate(answers)
    ]
    for history in (_aihc_answers() + _runai_answers(), days, _flapping(5000)):
        found = _dom(_page(history), tmp_path, width)
        assert (found["aligned"], found["overlap"], found["inside"]) == ("true", "false", "true"), found
        assert int(found["ticks"]) >= 2


def test_printed_the_changes_and_the_tables_show_in_chromium(tmp_path: Path) -> None:
    page = _page(_aihc_answers())
    assert _dom(page, tmp_path, 1280)["tables"] == "0"  # (on screen, folded away)
    probe = PROBE.replace(
        "</script>", "d.changes = String(document.querySelector('ol.changes').checkVisibility());</script>"
    )
    found = _dom(page, tmp_path, 1280, print_rules=True, probe=probe)
    assert (found["tables"], found["changes"]) == ("3", "true")


def test_a_dense_history_of_ten_thousand_states_renders_in_chromium(tmp_path: Path) -> None:
    found = _dom(_page(_flapping(10000)), tmp_path, 1280)
    assert (found["pwned"], found["loads"], found["overlap"], found["aligned"]) == (
        "no",
        "0",
        "false",
        "true",
    )


# --- linear work in build ------------------------------------------------------------------------------


class _CountedList(list):  # type: ignore[type-arg]
    """A list that counts the items read through ``reversed`` (what a per-answer scan costs)."""

    reads = 0

    def __reversed__(self):  # type: ignore[no-untyped-def]
        for item in super().__reversed__():
            _CountedList.reads += 1
            yield item


def test_answers_whose_phase_the_job_time_line_never_names_are_placed_in_linear_work(monkeypatch) -> None:
    import importlib

    build_module = importlib.import_module("jobschema.timeline.build")

    example = json.loads(
        (REPO / "schemas" / "examples" / "aihc-v2-job" / "succeeded-with-replaced-pod.json").read_text()
    )
    count = 2000
    line = [
        {"conditionType": ("Running", "FaultTolerantStart")[i % 2],
         "time": f"2026-07-02T{10 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"}
        for i in range(count)
    ]  # fmt: skip
    job_id = example["job"]["jobid"]
    answers = []
    for i in range(count):
        job = {**example["job"], "status": "Pending" if i < count - 1 else "Succeeded", "jobTimeLine": line}
        answers.append(Observation(f"a#{i}", "aihc", job_id, {**example, "job": job}, 200, None))
    original = build_module._segments
    monkeypatch.setattr(build_module, "_segments", lambda *a: _CountedList(original(*a)))
    _CountedList.reads = 0
    [timeline] = drawn(answers)
    assert len(timeline.segments) >= count
    assert _CountedList.reads <= 4 * count  # (each answer read every segment: count ** 2)


def test_history_pods_are_counted_once_per_answer_not_once_per_pod() -> None:
    example = json.loads(
        (REPO / "schemas" / "examples" / "aihc-v2-job" / "succeeded-with-replaced-pod.json").read_text()
    )
    pods = example["job"]["pods"]
    history = [{**pods[0], "name": f"gone-{i}"} for i in range(3000)] + [dict(pods[1]) for _ in range(2)]
    job = {**example["job"], "historyPods": history}
    answer = Observation("a", "aihc", job["jobid"], {**example, "job": job}, 200, None)
    reads = {"n": 0}

    class Counted(dict):  # type: ignore[type-arg]
        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            reads["n"] += key == "name"
            return super().get(key, default)

    job["historyPods"] = [Counted(old) for old in history]
    many = [{**pods[1], "name": f"p-{i}"} for i in range(300)] + [pods[1]]
    job["pods"] = many
    [timeline] = drawn([answer])
    assert {pod.name: pod.replacements for pod in timeline.pods}[pods[1]["name"]] == 2
    assert reads["n"] <= 2 * len(history)  # (once per listed pod: 301 * 3002)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00+00:00"),  # a leap second: RFC 3339 allows it
        ("2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.500000+00:00"),
        ("2017-01-01T08:59:60+09:00", "2017-01-01T00:00:00+00:00"),
        ("9999-12-31T23:59:60Z", None),  # (the year 10000)
        ("2026-03-29T02:30:00+02:00", "2026-03-29T00:30:00+00:00"),  # in a DST gap: its offset says
        ("2026-10-25T02:30:00+01:00", "2026-10-25T01:30:00+00:00"),  # in a DST fold: its offset says
        ("2026-12-05T04:25:61Z", None),
    ],
)
def test_a_leap_second_and_a_dst_edge_are_moments(text: str, expected: str | None) -> None:
    from datetime import UTC, datetime

    from jobschema.timeline.read import parse_time

    seconds = parse_time(text)
    assert (None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat()) == expected


def test_one_long_phase_does_not_pad_every_line_of_the_text_format() -> None:
    answers = _flapping(2000)
    value = dict(answers[1].value or {})
    value["actualPhase"] = "P" * 100_000
    answers[1] = Observation(answers[1].source, "runai", answers[1].job, value, 200, answers[1].at)
    text = render_text(report(drawn(answers), "0"))
    assert len(text) < 2000 * 120 + 100_000  # (padded: 2000 lines of 100 kB each)
    assert "  running   Running                   2026-12-05T04:19:04Z     10s" in text.splitlines()


def test_very_long_unbroken_strings_never_widen_the_page_in_chromium(tmp_path: Path) -> None:
    answers = []
    for answer in _aihc_answers():
        value = copy.deepcopy(answer.value)
        assert value is not None
        job = value["result"]
        job["name"], job["jobId"] = "n" * 3000, "j" * 3000
        for pod in job["podList"]["pods"]:
            pod["reason"], pod["podStatus"]["podPhase"] = "r" * 3000, "Q" * 3000
            pod["objectMeta"]["name"] = "p" * 3000 + pod["objectMeta"]["name"]
        answers.append(Observation(answer.source, answer.api, "j" * 3000, value, 200, answer.at))
    probe = PROBE.replace(
        "</script>",
        "const de = document.documentElement; d.wider = String(de.scrollWidth > de.clientWidth);</script>",
    )
    for width in (1280, 420):
        for printed in (False, True):
            assert _dom(_page(answers), tmp_path, width, print_rules=printed, probe=probe)["wider"] == "false"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_two_states_have_colours_far_apart(scheme: str) -> None:
    """Waiting and stopping were two ochres 42 apart (dark): told apart by nobody."""
    light, dark = page_module._CSS.split("@media (prefers-color-scheme: dark)")
    block = light if scheme == "light" else dark.split("}")[0]
    colours = {
        state.value: tuple(int(hex_[i : i + 2], 16) for i in (0, 2, 4))
        for state in ORDER
        for hex_ in re.findall(rf"--{state.value}:#([0-9a-f]{{6}})", block)
    }
    assert len(colours) == len(ORDER)
    for one, other in itertools.combinations(colours, 2):
        distance = sum((a - b) ** 2 for a, b in zip(colours[one], colours[other], strict=True)) ** 0.5
        assert distance >= 75, (scheme, one, other, round(distance))
