"""``--generate``: a schema-valid payload for an id no capture holds, the same bytes for the same id.

Drawing deterministically from a hypothesis strategy outside a test uses hypothesis' public API
only: a ``@given`` function under ``@seed(n)``, with the generate phase alone, no example database,
no deadline and no health checks. Hypothesis always tries the simplest example first (the same for
every seed), so the function runs twice and the second, random, draw is kept: it depends on the
seed alone, for a given hypothesis version (the ``test`` extra pins it). The seed is a SHA-256 of
the API, the id and ``--seed``, so it does not depend on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

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


def draw(schema: str, seed: int) -> dict[str, Any]:
    """One valid payload of bundled ``schema``, fixed by ``seed``."""
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
    @given(payloads(schema))
    def keep(value: dict[str, Any]) -> None:
        drawn.append(value)

    with _LOCK:
        keep()
    return drawn[-1]


def runai_workload(workload_id: str, seed: int = 0) -> dict[str, Any]:
    """A distributed workload whose ``workloadId`` is ``workload_id``."""
    value = draw(RUNAI_SCHEMA, seed_of("runai", workload_id, seed))
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
