"""``--generate``: a schema-valid payload for an id no capture holds, the same bytes for the same id.

Drawing deterministically from a hypothesis strategy outside a test uses hypothesis' public API
only: a ``@given`` function under ``@seed(n)``, with the generate phase alone, no example database,
no deadline and no health checks. Hypothesis always tries the simplest example first (the same for
every seed), so the function runs twice and the second, random, draw is kept. The seed is a SHA-256
of the API, the id and ``--seed``, so it does not depend on ``PYTHONHASHSEED``.

The seed alone does not fix the draw: hypothesis also mixes in constants it finds in the source of
every *local* module loaded in the process (not the standard library, not site-packages), so the same
seed draws differently in a process that imported other code (a consumer's package, pytest's
plugins). The draws therefore run in a worker process of their own (:class:`Worker`) that imports
the same modules every time, warms up once before its first answer (so no lazy import lands in
the middle of a draw), and runs without hypothesis plugins. The bytes then depend only on the seed,
the jobschema code and the hypothesis version (the ``test`` extra pins it).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from typing import Any

from jobschema.serve.sources import AIHC_SCHEMA, RUNAI_SCHEMA

_LOCK = threading.Lock()  # hypothesis runs one @given at a time per thread; the server may have two


def seed_of(*parts: object) -> int:
    """A 64-bit seed from ``parts`` (stable across processes and platforms)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def draw(schema: str, seed: int, version: str | None = None) -> dict[str, Any]:
    """One valid payload of bundled ``schema`` (as ``version`` of its API has it), fixed by ``seed``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fix_seed

    from jobschema.testing import payloads

    drawn: list[dict[str, Any]] = []

    @fix_seed(seed)
    @settings(
        max_examples=2,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=False,
        print_blob=False,
    )
    @given(payloads(schema, version=version))
    def keep(value: dict[str, Any]) -> None:
        drawn.append(value)

    with _LOCK:
        keep()
    return drawn[-1]


def runai_workload(workload_id: str, seed: int = 0, version: str | None = None) -> dict[str, Any]:
    """A distributed workload whose ``workloadId`` is ``workload_id`` (only what ``version`` sends)."""
    value = draw(RUNAI_SCHEMA, seed_of("runai", workload_id, seed), version)
    value["workloadId"] = workload_id
    return value


#: Ids a generated job can take: JSON and the embedded raw request hold them without escapes.
PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def aihc_job(job_id: str, pool: str, seed: int = 0) -> dict[str, Any] | None:
    """An AIHC job detail of ``job_id`` in resource pool ``pool`` (None for an id with characters JSON
    would escape): the drawn job id is replaced everywhere it occurs (labels, pod annotations, the
    embedded raw request), which a plain text replacement does since neither id needs escapes."""
    import json

    if not PLAIN_ID.match(job_id):
        return None
    value = draw(AIHC_SCHEMA, seed_of("aihc", job_id, pool, seed))
    drawn = value["result"]["jobId"]
    value = json.loads(json.dumps(value, ensure_ascii=False).replace(drawn, job_id))
    value["result"]["resourcePoolId"] = pool
    return value


# ------------------------------------------------------------------------------ the worker process

#: What the worker imports before its first draw: the same modules in every run.
_WORKER = "from jobschema.serve.generated import worker; worker()"
WORKER_TIMEOUT = 120.0


def worker() -> None:
    """The worker's loop: one JSON request per stdin line, one JSON answer per stdout line."""
    import json
    import sys

    for schema in (RUNAI_SCHEMA, AIHC_SCHEMA):  # warm up: every lazy import happens now
        draw(schema, 0)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        kind = request["kind"]
        if kind == "runai":
            value: Any = runai_workload(request["id"], request["seed"], request.get("version"))
        else:
            value = aihc_job(request["id"], request["pool"], request["seed"])
        print(json.dumps(value, ensure_ascii=True), flush=True)


class Worker:
    """A generator process, started on first use (or ahead of it: :meth:`warm`) and stopped with the
    server."""

    def __init__(self) -> None:
        self._process: Any = None
        self._scratch = ""
        self._lock = threading.Lock()

    def runai(self, workload_id: str, seed: int, version: str | None = None) -> dict[str, Any]:
        """:func:`runai_workload`, drawn in the worker."""
        return dict(self._ask({"kind": "runai", "id": workload_id, "seed": seed, "version": version}))

    def aihc(self, job_id: str, pool: str, seed: int) -> dict[str, Any] | None:
        """:func:`aihc_job`, drawn in the worker."""
        answer = self._ask({"kind": "aihc", "id": job_id, "pool": pool, "seed": seed})
        return None if answer is None else dict(answer)

    def warm(self) -> None:
        """Start the process in the background, beside the server's own start-up (importing
        hypothesis, a first draw; seconds on a busy machine); the server then waits for what is left
        of it (:meth:`ready`, the same lock) before it is handed out."""

        def start() -> None:
            with self._lock, contextlib.suppress(RuntimeError, OSError):
                self._started()

        threading.Thread(target=start, daemon=True, name="jobschema-generate-warm").start()

    def ready(self) -> None:
        """Wait until the process has started (by :meth:`warm`, or here): a server is handed out
        (``listening on``) only then, so no generated answer waits for the start-up, which a busy
        machine stretches past a client's timeout (2 s of CPU: 40 s seen). A process that cannot
        start is left to the first generated answer to say, as before."""
        with self._lock, contextlib.suppress(RuntimeError, OSError):
            self._started()

    def _ask(self, request: dict[str, Any]) -> Any:
        import json

        with self._lock:
            process = self._started()
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        if not line:
            raise RuntimeError("the generator process ended")
        return json.loads(line)

    def _started(self) -> Any:
        import json
        import os
        import subprocess
        import sys
        import tempfile

        if self._process is None or self._process.poll() is not None:
            # hypothesis keeps a cache in its storage directory: a scratch folder, never the cwd
            self._scratch = tempfile.mkdtemp(prefix="jobschema-generate-")
            env = {
                **os.environ,
                "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
                "HYPOTHESIS_NO_PLUGINS": "1",
                "HYPOTHESIS_STORAGE_DIRECTORY": self._scratch,
            }
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
                cwd=self._scratch,
            )
            ready = self._process.stdout.readline()
            if not ready or not json.loads(ready).get("ready"):
                self.stop()
                raise RuntimeError("the generator process did not start")
        return self._process

    def stop(self) -> None:
        """End the worker (it ends by itself when its stdin closes)."""
        import subprocess

        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        process.stdin.close()
        try:
            process.wait(WORKER_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()
        import shutil

        shutil.rmtree(self._scratch, ignore_errors=True)
