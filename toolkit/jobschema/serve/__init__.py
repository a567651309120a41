"""``jobschema serve``: a stub of the Run:ai and AIHC (v1, v2) job APIs for consumer contract tests.

It answers the real paths with the real shapes: captures (files, folders, NDJSON histories, HAR)
and, with ``generate``, schema-valid jobs for unknown ids; submitted jobs walk a scripted
lifecycle; Run:ai tokens and BCE v1 signatures are checked as the real APIs check them; faults
(latency, 429/5xx with ``Retry-After``, a transient ``Unknown``, token expiry) are injected under a
seed. Every body served validates against its bundled schema (but what a capture served invalid
answers).

>>> from jobschema.serve import start
>>> with start(captures=["schemas/examples/runai-distributed-workload"]) as server:  # doctest: +SKIP
...     server.url, server.credentials.runai_client_id
('http://127.0.0.1:41237', 'client-1f2e3d4c')

:func:`start` serves in a background thread (``port=0``: a free port) and returns a
:class:`RunningServer` (``url``, ``credentials``, ``stop()``; a context manager);
:func:`run_foreground` is the command. It listens on loopback unless ``allow_remote``, and holds
every peer to :class:`Limits` (body, head and target sizes, idle and request timeouts, connections).
Starlette, uvicorn, PyJWT and the Baidu SDK come with the ``serve`` extra and load only when a
server is built.
"""

from __future__ import annotations

from jobschema.serve.auth import ENV, Credentials
from jobschema.serve.config import (
    AIHC_LIFECYCLE,
    RUNAI_LIFECYCLE,
    ApiBehaviour,
    ConfigError,
    Lifecycle,
    RouteFault,
    ServeConfig,
    Step,
    load_config,
    parse_config,
    phases,
)
from jobschema.serve.limits import Limits
from jobschema.serve.server import (
    CapturesRefused,
    RunningServer,
    ServeFailed,
    ServeOptions,
    run_foreground,
    start,
)

__all__ = [
    "AIHC_LIFECYCLE",
    "ENV",
    "RUNAI_LIFECYCLE",
    "ApiBehaviour",
    "CapturesRefused",
    "ConfigError",
    "Credentials",
    "Lifecycle",
    "Limits",
    "RouteFault",
    "RunningServer",
    "ServeConfig",
    "ServeFailed",
    "ServeOptions",
    "Step",
    "load_config",
    "parse_config",
    "phases",
    "run_foreground",
    "start",
]
