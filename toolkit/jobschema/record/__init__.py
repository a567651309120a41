"""``jobschema record``: poll the live job APIs with their real authentication and write redacted,
validated captures.

>>> from jobschema.record import RecordOptions, Schedule, record
>>> options = RecordOptions(  # doctest: +SKIP
...     "runai", "https://tenant.run.ai", ("7d4f2c1a-5b3e-4e8f-9a61-2c0d8b7e4f13",),
...     output=Path("workload.ndjson"), har=Path("workload.har"), schedule=Schedule(interval=10),
... )
>>> record(options).code  # doctest: +SKIP
0

Modules, bottom up: :mod:`.credentials` (options, a TOML file, the environment), :mod:`.retry`
(backoff, ``Retry-After``, the runtime's clocks), :mod:`.body` (a body read under ``--max-body``,
gzip bombs included), :mod:`.transport` (httpx; every attempt an
:class:`~jobschema.record.transport.Exchange`), :mod:`.runai` (token and refresh) and :mod:`.aihc`
(BCE v1 signing by the Baidu SDK), :mod:`.guard` (the secret policy, then every known credential
masked), :mod:`.ndjson` and :mod:`.har` (the files, written record by record), :mod:`.change` (the
diff engine decides what is a change), :mod:`.live` (validation on the fly), :mod:`.status` (the
status lines), :mod:`.loop` (polling) and :mod:`.recorder` (:func:`record`). httpx and the Baidu SDK
come with the ``record`` extra and are imported only when a recording starts; the names below load
their modules when first used.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> module that defines it
_EXPORTS = {
    "AuthFailed": "jobschema.record.credentials",
    "CredentialsError": "jobschema.record.credentials",
    "JobState": "jobschema.record.status",
    "MAX_DURATION": "jobschema.record.limits",
    "MAX_POLLS": "jobschema.record.limits",
    "Outcome": "jobschema.record.loop",
    "OutputError": "jobschema.record.files",
    "RecordOptions": "jobschema.record.recorder",
    "RecordUsageError": "jobschema.record.recorder",
    "RetryPolicy": "jobschema.record.retry",
    "Runtime": "jobschema.record.retry",
    "Schedule": "jobschema.record.loop",
    "record": "jobschema.record.recorder",
}

__all__ = [
    "MAX_DURATION",
    "MAX_POLLS",
    "AuthFailed",
    "CredentialsError",
    "JobState",
    "Outcome",
    "OutputError",
    "RecordOptions",
    "RecordUsageError",
    "RetryPolicy",
    "Runtime",
    "Schedule",
    "record",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'jobschema.record' has no attribute {name!r}")
