"""Benchmark 6: ``jobschema serve``: requests per second for GET of a served capture, one worker,
beside a minimal Starlette + uvicorn app answering the same bytes as a constant.

Each server runs in its own process (``jobschema serve`` itself, and ``python -c`` for the minimal
app, on the same uvicorn settings), and one load loop in this process sends keep-alive GETs with
httpx: a fixed count, bounded in time too, on 127.0.0.1 only. The loop is the same for both, so the
ratio is what jobschema's work per request costs (routing, the Bearer check, the history step, the
access log) next to answering a constant.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tests.benchmarks.common import Config, Section, log
from tests.benchmarks.corpus import ROOT

if TYPE_CHECKING:
    import httpx

CAPTURE = ROOT / "schemas" / "examples" / "runai-distributed-workload" / "completed-job.json"
WORKLOAD = "4894d50f-c9ec-427c-87d7-9577f360e7e8"
PATH = f"/api/v1/workloads/distributed/{WORKLOAD}"
CREDENTIALS = {"RUNAI_CLIENT_ID": "bench-client", "RUNAI_CLIENT_SECRET": "bench-secret"}
#: The minimal app: the same stack and uvicorn settings, the capture's bytes as a constant body.
MINIMAL = """\
import socket, sys
import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
BODY = open(sys.argv[1], "rb").read().strip()
async def get(request):
    return Response(BODY, media_type="application/json")
app = Starlette(routes=[Route("/api/v1/workloads/distributed/{workload_id}", get)])
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY, as serve
sock.bind(("127.0.0.1", 0))
print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off",
                              log_level="warning")).run(sockets=[sock])
"""


def run(config: Config, workdir: Path) -> Section:
    """Median requests per second of each server over ``config.reps`` rounds; every round runs the
    load loop once against each server in turn, so a change in the machine's load hits all alike."""
    count = 300 if min(config.files) < 1000 else 5000
    servers = [
        ("minimal Starlette + uvicorn app, constant body", [sys.executable, "-c", MINIMAL, str(CAPTURE)]),
        ("`jobschema serve -q` (no access log)", [*_jobschema(), "serve", "-q", str(CAPTURE)]),
        ("`jobschema serve` (access log to a file)", [*_jobschema(), "serve", str(CAPTURE)]),
    ]
    rates = _measure([command for _, command in servers], count, config, workdir)
    base = rates[0]
    rows = [
        [name, f"{count:,}", f"{rate:,.0f}", f"{rate / base:.2f}x"]
        for (name, _), rate in zip(servers, rates, strict=True)
    ]
    minimal, quiet, logged = rates
    return Section(
        key="serve",
        title="jobschema serve: GET of a served capture",
        intro=(
            f"Requests per second for `GET {PATH}` (a {CAPTURE.stat().st_size:,}-byte capture, with a "
            f"Bearer token), one uvicorn worker per server process, {count:,} sequential keep-alive "
            f"requests per run from one httpx client in the benchmark process, median of {config.reps} "
            "rounds (each round runs every server once, in turn). The client loop is the same for every "
            "server and takes much of each request's time, so the ratios understate the servers' own "
            "difference."
        ),
        headers=["server", "requests per run", "requests/s", "rate against the minimal app"],
        rows=rows,
        notes=[
            f"Ratio: `jobschema serve` answers a served capture at {quiet / minimal:.2f}x the minimal app's "
            f"rate without the access log and {logged / minimal:.2f}x with it."
        ],
        data={"minimal": minimal, "quiet": quiet, "logged": logged},
    )


def _jobschema() -> list[str]:
    return [sys.executable, "-m", "jobschema"]


def _measure(commands: list[list[str]], count: int, config: Config, workdir: Path) -> list[float]:
    import httpx

    processes: list[subprocess.Popen[str]] = []
    clients: list[tuple[httpx.Client, dict[str, str]]] = []
    logs = [(workdir / f"serve-{n}.log").open("w", encoding="utf-8") for n in range(len(commands))]
    try:
        for command, stderr in zip(commands, logs, strict=True):
            env = {**os.environ, **CREDENTIALS}
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=ROOT
            )
            processes.append(process)
            url = process.stdout.readline().removeprefix("listening on ").strip() if process.stdout else ""
            if not url.startswith("http://127.0.0.1:"):
                raise RuntimeError(f"{command[:4]}: no listening line")
            client = httpx.Client(base_url=url, timeout=config.timeout)
            headers = {"Authorization": f"Bearer {_token(client)}"}
            _loop(client, headers, min(count, 200), config.timeout)  # warm-up
            clients.append((client, headers))
        rounds = []
        for number in range(config.reps):
            log(f"serve: round {number + 1} of {config.reps}")
            rounds.append([_loop(client, headers, count, config.timeout) for client, headers in clients])
    finally:
        for client, _ in clients:
            client.close()
        for process in processes:
            process.send_signal(signal.SIGTERM)
            process.wait(config.timeout)
        for stderr in logs:
            stderr.close()
    return [sorted(column)[len(column) // 2] for column in zip(*rounds, strict=True)]


def _token(client: httpx.Client) -> str:
    body = {"grantType": "client_credentials", "clientId": "bench-client", "clientSecret": "bench-secret"}
    answer = client.post("/api/v1/token", json=body)
    # the minimal app has no token route: it gets a header of the same length, which it ignores
    return str(answer.json()["accessToken"]) if answer.status_code == 200 else "x" * 300


def _loop(client: httpx.Client, headers: dict[str, str], count: int, limit: float) -> float:
    """Requests per second of ``count`` sequential GETs (stops early at ``limit`` seconds)."""
    started = time.perf_counter()
    done = 0
    while done < count and time.perf_counter() - started < limit:  # bounded in count and in time
        answer = client.get(PATH, headers=headers)
        if answer.status_code != 200:
            raise RuntimeError(f"GET {PATH}: {answer.status_code}")
        done += 1
    return done / (time.perf_counter() - started)
