"""``jobschema timeline``: recordings made from serve's scripted lifecycles (both APIs, pods that
restart and are replaced) give back the scripted durations, within the polling interval and the
payload timestamps' resolution; the #458 scenario shows no failure; every format comes from one
masked report (json against its schema); the HTML page renders in headless Chromium with a lane per
job and per pod, its labels inside their boxes, nothing overflowing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from jobschema.lifecycle import State
from jobschema.timeline import timelines
from jobschema.timeline.html import render_html
from jobschema.timeline.render import render_markdown, render_text, report
from tests.record_support import FakeTime, run_record, submit_job, submit_workload
from tests.support import REPO

INTERVAL = 10.0  # the recorder polls every 10 s ±10% (its sleeps move the fake clock both sides share)
RUNAI = ["Creating", {"phase": "Pending", "polls": 3}, {"phase": "Running", "polls": 5}, "Completed"]
AIHC = [
    {"phase": "Pending", "polls": 2},
    {"phase": "Running", "polls": 3, "restarts": 1},
    {"phase": "Running", "polls": 3, "replace": 1},
    "Succeeded",
]
SCHEMA = json.loads((REPO / "schemas" / "timeline-report.schema.json").read_text(encoding="utf-8"))


def _near(seconds: float | None, polls: int, resolution: float = 0.0) -> bool:
    """Within the jitter of ``polls`` intervals (±10% each), one interval more for where a poll fell,
    and the resolution of the payload's timestamps."""
    assert seconds is not None
    return abs(seconds - polls * INTERVAL) <= polls * INTERVAL * 0.1 + INTERVAL + resolution


def _durations(timeline) -> list[tuple[str, float | None]]:
    return [(s.phase, s.seconds) for s in timeline.segments]


def test_a_runai_recording_gives_back_the_scripted_durations(jobschema_server, tmp_path) -> None:
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": RUNAI}, clock=fake)
    job = submit_workload(server)
    recorded = run_record(server, "runai", [job], tmp_path, fake)
    [timeline] = timelines([str(recorded.har)])
    phases = [s.phase for s in timeline.segments]
    assert phases == ["Creating", "Pending", "Running", "Completed"]
    durations = dict(_durations(timeline))
    assert _near(durations["Pending"], 3) and _near(durations["Running"], 5)
    assert _near(timeline.running, 5) and _near(timeline.waiting, 4)
    assert timeline.final.state is State.SUCCEEDED and timeline.segments[-1].seconds is None
    [without_times] = timelines([str(recorded.ndjson)])  # NDJSON alone: the order, not the times
    assert [s.phase for s in without_times.segments] == phases
    assert without_times.running is None


def test_an_aihc_recording_with_restarts_and_a_replaced_pod(jobschema_server, tmp_path) -> None:
    fake = FakeTime()
    server = jobschema_server(lifecycle={"aihc": AIHC}, clock=fake)
    job = submit_job(server, replicas=2)
    recorded = run_record(server, "aihc", [job], tmp_path, fake)
    for source in (recorded.ndjson, recorded.har):  # AIHC's own timestamps: NDJSON alone is enough
        [timeline] = timelines([str(source)])
        assert [s.state for s in timeline.segments][-1] is State.SUCCEEDED
        assert _near(timeline.running, 6, resolution=1.0), (source.name, _durations(timeline))
        assert _near(timeline.waiting, 2, resolution=1.0), (source.name, _durations(timeline))
        pods = {pod.name.rsplit("-", 2)[-2] + "-" + pod.name.rsplit("-", 1)[-1]: pod for pod in timeline.pods}
        assert (pods["master-0"].restarts, pods["master-0"].replacements) == (1, 1)
        assert (pods["worker-0"].restarts, pods["worker-0"].replacements) == (1, 0)


def test_the_458_scenario_shows_waiting_never_failed(jobschema_server, tmp_path) -> None:
    fake = FakeTime()
    server = jobschema_server(
        lifecycle={"runai": ["Creating", "Running", "Completed"]},
        config={"runai": {"unknown_after_submit": 2, "not_found_after_submit": 1}},
        faults=[{"route": "runai.get", "rate": 0.4, "status": [503], "retry_after": 0}],
        clock=fake,
        seed=3,
    )
    job = submit_workload(server)
    recorded = run_record(server, "runai", [job], tmp_path, fake)
    [timeline] = timelines([str(recorded.har)])
    states = [s.state for s in timeline.segments]
    assert State.FAILED not in states
    assert states[0] is State.WAITING and states[-1] is State.SUCCEEDED
    assert any(s.phase.startswith("HTTP ") or s.phase == "Unknown" for s in timeline.segments)


# --- formats ------------------------------------------------------------------------------------------


@pytest.fixture
def recorded_dir(jobschema_server, tmp_path: Path) -> Path:
    """A HAR recording of each API's job (a fake clock both sides share: milliseconds to make)."""
    folder = tmp_path / "recorded"
    folder.mkdir()
    fake = FakeTime()
    server = jobschema_server(lifecycle={"runai": RUNAI, "aihc": AIHC}, clock=fake)
    runai = run_record(server, "runai", [submit_workload(server)], folder, fake, name="runai")
    aihc = run_record(server, "aihc", [submit_job(server, replicas=2)], folder, fake, name="aihc")
    for recorded in (runai, aihc):
        recorded.ndjson.unlink()
    return folder


def _report(folder: Path) -> dict[str, Any]:
    return report(timelines([str(folder)]), "0.1.0")


def test_the_json_report_follows_its_schema(run_cli, recorded_dir: Path) -> None:
    document = json.loads(run_cli(["timeline", "-f", "json", str(recorded_dir)], code=0).stdout)
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)
    assert [job["api"] for job in document["jobs"]] == ["aihc", "runai"]
    assert document == _report(recorded_dir)


def test_text_and_markdown_say_the_same_states(run_cli, recorded_dir: Path) -> None:
    document = _report(recorded_dir)
    text = run_cli(["timeline", str(recorded_dir)], code=0).stdout
    assert text == render_text(document)
    assert text.splitlines()[-1] == "2 jobs: 2 succeeded"
    markdown = run_cli(["timeline", "-f", "markdown", str(recorded_dir)], code=0).stdout
    assert markdown == render_markdown(document)
    for job in document["jobs"]:
        for segment in job["segments"]:
            assert f"| {segment['state']} | {segment['phase']} |" in markdown


def test_every_string_passes_the_secret_policy(tmp_path: Path) -> None:
    value = json.loads(
        (REPO / "tests" / "fixtures" / "record" / "two-jobs.ndjson").read_text().splitlines()[0]
    )
    value["name"] = "job --password hunter2-very-secret"
    (tmp_path / "job.json").write_text(json.dumps(value))
    document = _report(tmp_path)
    for text in (render_text(document), render_markdown(document), render_html(document)):
        assert "hunter2-very-secret" not in text


def test_bad_inputs_are_one_line_and_exit_2(run_cli, tmp_path: Path) -> None:
    (tmp_path / "bad.ndjson").write_text('{"a": 1}\n{"a": \n')
    (tmp_path / "none.json").write_text('{"code": 404, "message": "m"}')
    assert run_cli(["timeline", str(tmp_path / "bad.ndjson")], code=2).stderr == (
        f"Error: {tmp_path / 'bad.ndjson'}:2:7: invalid JSON: Expecting value\n"
    )
    assert run_cli(["timeline", str(tmp_path / "none.json")], code=2).stderr == (
        f"Error: {tmp_path / 'none.json'}: no Run:ai workload or AIHC job answer found\n"
    )


# --- the picture in a real browser ----------------------------------------------------------------------

#: Added to a copy of the page in the test only (the page itself holds no script): what the layout is.
PROBE = """<script>
const lanes = [...document.querySelectorAll('.lane')];
const over = el => el.scrollWidth > el.clientWidth + 1;
document.body.dataset.lanes = String(lanes.length);
document.body.dataset.labels = lanes.map(l => l.querySelector('.label').textContent).join('|');
document.body.dataset.overflow = String(over(document.documentElement) ||
  lanes.some(l => { const r = l.getBoundingClientRect(), s = l.querySelector('svg').getBoundingClientRect();
    return s.right > r.right + 1 || s.width < 50; }));
document.body.dataset.rects = String(document.querySelectorAll('svg rect title').length);
</script>"""


def _browser() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        pytest.skip("no Chromium on this machine (.ci/run installs Debian's chromium)")
    return found


def _rendered(page: str, tmp_path: Path, width: int) -> str:
    path = tmp_path / f"page-{width}.html"
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)  # (so the probe may run)
    path.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},900"]
    flags += ["--virtual-time-budget=2000", "--dump-dom", path.as_uri()]
    run = subprocess.run([_browser(), *flags], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


@pytest.mark.parametrize("width", [1280, 420])
def test_the_page_renders_in_chromium_with_a_lane_per_job_and_pod(
    recorded_dir: Path, tmp_path, width
) -> None:
    document = _report(recorded_dir)
    page = render_html(document)
    assert "<script" not in page and "http://" not in page and "https://" not in page
    dom = _rendered(page, tmp_path, width)
    data = dict(re.findall(r'data-(\w+)="([^"]*)"', dom.split("<body", 1)[1].split(">", 1)[0]))
    pods = sum(len(job["pods"]) for job in document["jobs"])
    assert int(data["lanes"]) == len(document["jobs"]) + pods
    labels = data["labels"].split("|")
    assert labels[0] == (document["jobs"][0]["name"] or document["jobs"][0]["job"])
    assert data["overflow"] == "false"
    segments = sum(len(j["segments"]) + sum(len(p["segments"]) for p in j["pods"]) for j in document["jobs"])
    assert int(data["rects"]) == segments  # every state drawn, each with its hover title


def test_one_v2_capture_has_its_history_in_its_job_timeline() -> None:
    [timeline] = timelines(
        [str(REPO / "schemas" / "examples" / "aihc-v2-job" / "succeeded-with-replaced-pod.json")]
    )
    assert [(s.state.value, s.phase) for s in timeline.segments] == [
        ("waiting", "Created"),
        ("starting", "Scheduled"),
        ("running", "Running"),
        ("starting", "FaultTolerantStart"),
        ("running", "Running"),
        ("succeeded", "Succeeded"),
    ]
    assert timeline.answers == 1
    assert {
        pod.name.rsplit("-", 2)[1] + "-" + pod.name.rsplit("-", 1)[1]: pod.replacements
        for pod in timeline.pods
    } == {
        "master-0": 0,
        "worker-0": 1,
    }


def test_a_v2_recording_is_drawn_as_v1_is(jobschema_server, tmp_path) -> None:
    fake = FakeTime()
    server = jobschema_server(lifecycle={"aihc": AIHC}, clock=fake)
    job = submit_job(server, replicas=2)
    recorded = run_record(server, "aihc", [job], tmp_path, fake, aihc_api="v2")
    [from_har] = timelines([str(recorded.har)])
    [from_ndjson] = timelines([str(recorded.ndjson)])
    for timeline in (from_har, from_ndjson):
        assert timeline.final.state is State.SUCCEEDED
        assert _near(timeline.running, 6, resolution=1.0), _durations(timeline)
