"""Recording against ``jobschema serve`` in-process: a fake clock both sides share, and helpers.

The recorder's sleeps move the fake clock instead of waiting, so a recording of many polls takes
milliseconds and every test is bounded by its ``count``/``duration`` and the loop's hard caps.
"""

from __future__ import annotations

import io
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from jobschema.record import Outcome, RecordOptions, Runtime, Schedule, record
from jobschema.serve import RunningServer
from tests.serve_support import POOL, TIMEOUT, bce_config, bce_send, bearer, job_request, workload_request
from tests.support import REPO

FIXTURES = REPO / "tests" / "fixtures" / "record"
WORKLOADS = "/api/v1/workloads/distributed"


@dataclass
class FakeTime:
    """Wall and monotonic time in one, moved by the recorder's sleeps; ``hooks`` run after each."""

    now: float = field(default_factory=lambda: float(int(time.time())))
    slept: list[float] = field(default_factory=list)
    hooks: list[Callable[[FakeTime], None]] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        for hook in list(self.hooks):
            hook(self)

    def runtime(self, seed: int = 0) -> Runtime:
        return Runtime(clock=self, monotonic=self, sleep=self.sleep, rng=random.Random(seed))


@dataclass
class Recorded:
    """What a recording gave: its outcome, both streams, the NDJSON values and the HAR entries."""

    outcome: Outcome
    out: str
    err: str
    ndjson: Path
    har: Path

    @property
    def lines(self) -> list[dict[str, Any]]:
        text = self.ndjson.read_text(encoding="utf-8") if self.ndjson.exists() else ""
        return [json.loads(line) for line in text.splitlines()]

    @property
    def entries(self) -> list[dict[str, Any]]:
        return json.loads(self.har.read_text(encoding="utf-8"))["log"]["entries"]

    def statuses(self) -> list[tuple[str, int]]:
        return [(entry["request"]["method"], entry["response"]["status"]) for entry in self.entries]


def run_record(
    server: RunningServer,
    api: str,
    jobs: list[str],
    tmp_path: Path,
    fake: FakeTime,
    *,
    env: dict[str, str] | None = None,
    schedule: Schedule | None = None,
    name: str = "rec",
    **options: Any,
) -> Recorded:
    """Record ``jobs`` from ``server`` into ``tmp_path/NAME.ndjson`` and ``NAME.har``."""
    ndjson, har = tmp_path / f"{name}.ndjson", tmp_path / f"{name}.har"
    if api == "aihc":
        options.setdefault("resource_pool", POOL)
    settings = RecordOptions(
        api,
        server.url,
        tuple(jobs),
        output=ndjson,
        har=har,
        schedule=schedule or Schedule(interval=10.0, count=50),
        **options,
    )
    out, err = io.StringIO(), io.StringIO()
    outcome = record(
        settings,
        env=server.credentials.as_env() if env is None else env,
        runtime=fake.runtime(),
        out=out,
        err=err,
        tty=False,
    )
    return Recorded(outcome, out.getvalue(), err.getvalue(), ndjson, har)


def submit_workload(server: RunningServer, **extra: Any) -> str:
    answer = httpx.post(
        f"{server.url}{WORKLOADS}", json=workload_request(**extra), headers=bearer(server), timeout=TIMEOUT
    )
    assert answer.status_code == 202, answer.text
    return str(answer.json()["workloadId"])


def submit_job(server: RunningServer, **extra: Any) -> str:
    created = bce_send(
        bce_config(server), "POST", "/api/v1/aijobs", {"resourcePoolId": POOL}, job_request(**extra)
    )
    return str(created.result.job_id)


def phases(lines: list[dict[str, Any]]) -> list[str]:
    return [line.get("actualPhase") or line["result"]["status"] for line in lines]
