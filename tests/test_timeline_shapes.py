"""``jobschema timeline`` on answers of any shape and time: whatever JSON value stands in any field of
a real answer, and whatever a timestamp says, every format is drawn (no exception), the json format
is strict JSON valid under its schema, the text format cannot be given a line or an escape by a
payload, the markdown format shows payload text as text, and nothing depends on the machine's zone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobschema.timeline import drawn, read_captures
from jobschema.timeline.html import render_html
from jobschema.timeline.read import Observation, parse_time
from jobschema.timeline.render import render_json, render_markdown, render_text, report
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = REPO / "schemas" / "examples"
RECORDINGS = [
    FIXTURES / "record" / "two-jobs.ndjson",
    FIXTURES / "timeline" / "aihc-job.ndjson",
    FIXTURES / "timeline" / "runai-workload.har",
    EXAMPLES / "aihc-v2-job" / "sdk-running-4-pods.json",
    EXAMPLES / "aihc-job-detail" / "multi-pod-pytorch.json",
]
REPORT_SCHEMA = json.loads((REPO / "schemas" / "timeline-report.schema.json").read_text())


def _answers() -> list[Observation]:
    captures = read_captures([str(path) for path in RECORDINGS])
    assert not captures.problems
    return captures.observations


ANSWERS = _answers()


def _strict(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _every_format(answers: list[Observation]) -> dict[str, str]:
    document = report(drawn(answers), "0")
    return {
        "text": render_text(document),
        "json": render_json(document),
        "markdown": render_markdown(document),
        "html": render_html(document),
    }


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` (the root too)."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _places(item, (*at, index))
    return found


def _replaced(value: Any, place: tuple[Any, ...], new: Any) -> Any:
    if not place:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[place[0]] = _replaced(value[place[0]], place[1:], new)
    return copy


TEXTS = st.text(max_size=12) | st.sampled_from(
    [
        "2026-12-05T04:25:01",
        "2026-12-05",
        "0001-01-01T00:00:00+01:00",
        "9999-12-31T23:59:59-01:00",
        "<script>alert(1)</script>",
        "a\nb\x1b[2J\u202e",
        "Running",
        "Failed",
    ]
)
NUMBERS = st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.just(10**400)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_value_in_any_field_of_real_answers_is_drawn_in_every_format(data: st.DataObject) -> None:
    answers = list(ANSWERS)
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(answers) - 1))
        answer = answers[index]
        place = data.draw(st.sampled_from(_places(answer.value)))
        value = _replaced(answer.value, place, data.draw(JSON_VALUES))
        answers[index] = Observation(answer.source, answer.api, answer.job, value, answer.status, answer.at)
    drawn_formats = _every_format(answers)
    jsonschema.validate(_strict(drawn_formats["json"]), REPORT_SCHEMA)
    assert all(char >= " " or char == "\n" for char in drawn_formats["text"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-05T04:25:01Z", "2026-12-05T04:25:01+00:00"),
        ("2026-12-05T04:25:01", "2026-12-05T04:25:01+00:00"),  # no offset: UTC, not the machine's zone
        ("2026-12-05T13:25:01+09:00", "2026-12-05T04:25:01+00:00"),
        ("2026-12-05t04:25:01z", "2026-12-05T04:25:01+00:00"),
        ("2026-12-05 04:25:01.250Z", "2026-12-05T04:25:01.250000+00:00"),
        ("2026-12-05", None),  # a date is no moment
        ("0001-01-01T00:00:00+01:00", None),  # year 0 in UTC
        ("9999-12-31T23:59:59-01:00", None),  # year 10000 in UTC
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59+00:00"),
        ("yesterday", None),
        ("", None),
    ],
)
def test_a_time_is_an_rfc3339_moment_a_report_can_show(text: str, expected: str | None) -> None:
    from datetime import UTC, datetime

    seconds = parse_time(text)
    assert (None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat()) == expected


def _naive_recording(tmp_path: Path) -> Path:
    line = json.loads((FIXTURES / "timeline" / "aihc-job.ndjson").read_text().splitlines()[0])
    job = line["result"]
    for key in ("createdAt", "scheduledAt", "runningAt", "finishedAt"):
        if isinstance(job.get(key), str):
            job[key] = job[key].removesuffix("Z")
    path = tmp_path / "naive.ndjson"
    path.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    return path


def test_the_same_input_draws_the_same_bytes_in_every_time_zone(tmp_path: Path) -> None:
    recording = _naive_recording(tmp_path)
    outputs = set()
    for zone in ("UTC", "Asia/Tokyo", "America/Los_Angeles"):
        env = {**os.environ, "TZ": zone}
        run = [sys.executable, "-m", "jobschema", "timeline", "-f", "json", str(recording)]
        done = subprocess.run(run, capture_output=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


HOSTILE = "x\n### forged | line\x1b[31m\u202e <img src=x onerror=alert(1)> [a](javascript:alert(1)) `code`"


def _hostile_answers() -> list[Observation]:
    answers = []
    for answer in ANSWERS:
        value = json.loads(json.dumps(answer.value))
        holder = value.get("result", value.get("job", value)) if isinstance(value, dict) else None
        if isinstance(holder, dict):
            holder["name"] = HOSTILE
            holder["status" if "status" in holder else "actualPhase"] = HOSTILE
        answers.append(Observation(answer.source, answer.api, answer.job, value, answer.status, answer.at))
    return answers


def test_payload_text_cannot_start_a_line_or_send_escapes_in_the_text_format() -> None:
    text = _every_format(_hostile_answers())["text"]
    assert "\x1b" not in text and "\u202e" not in text
    assert not any(line.startswith("### forged") for line in text.splitlines())
    assert "x\\n### forged | line\\x1b[31m\\u202e" in text


def test_payload_text_is_text_in_the_markdown_format() -> None:
    markdown = _every_format(_hostile_answers())["markdown"]
    assert not re.search(r"(?<!\\)[<`\[\]]", markdown.replace("`---`", "")) and "\x1b" not in markdown
    assert not any(line.startswith("### forged") for line in markdown.splitlines())
    assert "\\<img src=x onerror=alert(1)\\> \\[a\\](javascript:alert(1)) \\`code\\`" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert all(line.replace("\\|", "").count("|") == 5 for line in rows)  # four cells each, always


@pytest.mark.parametrize(
    ("quantity", "replicas"),
    [(1e308, 2), ("1e308", 2), (-8, 2), ("-8", 2), (4, 10**400), (float("1e300"), 10**300), (True, 2)],
)
def test_gpus_a_report_cannot_count_are_unknown(quantity: Any, replicas: Any) -> None:
    line = json.loads((FIXTURES / "timeline" / "aihc-job.ndjson").read_text().splitlines()[-1])
    line["result"]["resources"] = [{"name": "baidu.com/a800_80g_cgpu", "quantity": quantity}]
    line["result"]["replicas"] = replicas
    answer = read_captures([str(FIXTURES / "timeline" / "aihc-job.ndjson")]).observations[-1]
    job = _strict(render_json(report(drawn([Observation(answer.source, "aihc", answer.job, line)]), "0")))
    assert (job["jobs"][0]["gpus"], job["jobs"][0]["gpu_hours"]) == (None, None)
