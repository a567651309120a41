"""Work that must grow linearly with the input, counted (never timed): a diff's secret judgements of
the places above its changes (a thousand pods changed share the list above them, judged once), and a
timeline's closing of its lanes (once per lane, not once per answer)."""

from __future__ import annotations

import copy
import importlib
import json
from typing import Any

import pytest

import jobschema.diff.engine
from jobschema.diff import diff_documents
from jobschema.timeline import drawn
from jobschema.timeline.read import Observation
from tests.support import REPO

AIHC = json.loads((REPO / "schemas" / "examples" / "aihc-job-detail" / "multi-pod-pytorch.json").read_text())


def _with_pods(count: int, phase: str) -> dict[str, Any]:
    document = copy.deepcopy(AIHC)
    template = document["result"]["podList"]["pods"][0]
    pods = []
    for index in range(count):
        pod = copy.deepcopy(template)
        pod["objectMeta"]["name"] = f"worker-{index}"
        pod["podStatus"]["podPhase"] = phase
        pods.append(pod)
    document["result"]["podList"]["pods"] = pods
    return document


def _counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, weight: Any = None) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += weight(*args) if weight else 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def _held(keys: Any, parent: Any) -> int:
    """What judging a place may read: the items of the list it holds (one for anything else)."""
    value = parent.get(keys[-1]) if isinstance(parent, dict) and keys else None
    return len(value) if isinstance(value, list) else 1


def test_a_diff_judges_each_place_above_its_changes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    judged = _counted(monkeypatch, jobschema.diff.engine, "is_secret_place", weight=_held)
    counts = []
    for pods in (100, 200, 400):
        judged[0] = 0
        found = diff_documents(_with_pods(pods, "Running"), _with_pods(pods, "Succeeded"))
        assert len(found.changes) == pods
        counts.append(judged[0])
    assert counts[2] <= 2.05 * counts[1] and counts[1] <= 2.05 * counts[0]


def test_a_timeline_closes_each_lane_once(monkeypatch: pytest.MonkeyPatch) -> None:
    build = importlib.import_module("jobschema.timeline.build")  # (the package's build is the function)
    closed = _counted(monkeypatch, build, "_close", weight=len)
    work = []
    for answers in (200, 400, 800):
        closed[0] = 0
        phases = ["Running", "Pending"] * (answers // 2)
        observations = [
            Observation(f"r.ndjson:{n}", "aihc", "job", _with_pods(1, phase), 200, 1_700_000_000.0 + n)
            for n, phase in enumerate(phases)
        ]
        drawn(observations)
        work.append(closed[0])
    assert work[2] <= 2.05 * work[1] and work[1] <= 2.05 * work[0]
