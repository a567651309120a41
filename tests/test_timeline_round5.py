"""Round-5 review of the lifecycle model and ``jobschema timeline``: cases the earlier tests left out.

- A phase no map knows (one a newer API version adds, a lower-case guess, a value that is no string)
  is unknown at every moment, right after submit too: only the API's own ``Unknown``, an answer that
  names no phase yet and an answer that is not 200 are the transient answers the 120 s rule reads as
  waiting (the rule had read any unmapped value there as waiting: ``Queued`` 5 s after submit was
  ``waiting``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.lifecycle import MAPS, TRANSIENT_WINDOW, State, is_transient, observe
from jobschema.timeline import drawn
from jobschema.timeline.read import Observation
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
    assert observe(api, phase, since_submit=since) is State.UNKNOWN
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
