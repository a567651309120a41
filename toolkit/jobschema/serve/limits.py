"""What ``jobschema serve`` bounds for every peer: sizes, timeouts, connections; and its quiet warnings.

Defaults (each a ``jobschema serve`` option)::

    max_body          1 MiB    --max-body          a request body; more is 413, refused while it streams
    max_headers      16 KiB    --max-headers       the request line and headers together; more is 431
    max_url           8 KiB    --max-url           the request target (path and query); more is 414
    idle_timeout        5 s    --idle-timeout      a connection with no request under way is closed
    request_timeout    30 s    --request-timeout   from a request's first byte to its last; then 408
    max_connections     100    --max-connections   newer connections get 503 and are closed
    max_jobs           1000    --max-jobs          jobs kept per API: live submitted ones (more is
                                                   503), generated ones (least recently used go),
                                                   generated ones a peer changed (kept; more is 503)
    max_kept  16 x max_body    (library only)      the bodies of submitted jobs kept per API, as
                                                   their JSON: a submit past it is 503 likewise

A hostile peer meets these as answers, never as a traceback: a warning about one kind of trouble is
one line, at most once a minute (:class:`Warnings`), however often the trouble comes.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

#: Units a size may carry (case-insensitive): none or ``B`` is bytes, ``KiB`` 1024, ``KB`` 1000.
UNITS = {"": 1, "b": 1, "kib": KiB, "mib": MiB, "gib": GiB, "kb": 1000, "mb": 1000**2, "gb": 1000**3}
_SIZE = re.compile(r"^\s*(\d+)\s*([A-Za-z]*)\s*$")


#: How many request bodies of the largest size the submitted jobs of one API may hold by default.
KEPT_BODIES = 16


@dataclass(frozen=True)
class Limits:
    """The bounds of one server (see the module's table); sizes in bytes, timeouts in seconds."""

    max_body: int = 1 * MiB
    max_headers: int = 16 * KiB
    max_url: int = 8 * KiB
    idle_timeout: float = 5.0
    request_timeout: float = 30.0
    max_connections: int = 100
    max_jobs: int = 1000
    #: The submitted jobs kept per API, as the bytes of their JSON bodies: what a peer's submits can
    #: make the server hold is bounded by size as well as by count (a job of a 1 MiB body holds
    #: about ten times that as Python objects). 0: :data:`KEPT_BODIES` times ``max_body``.
    max_kept: int = 0

    def __post_init__(self) -> None:
        if self.max_kept == 0:
            object.__setattr__(self, "max_kept", KEPT_BODIES * self.max_body)
        for name in ("max_body", "max_headers", "max_url", "max_connections", "max_jobs", "max_kept"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("idle_timeout", "request_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive")


def parse_size(text: str) -> int:
    """Bytes of ``1MiB``, ``512KiB``, ``64KB``, ``4096`` or ``4096B``; ValueError names the problem."""
    match = _SIZE.match(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in UNITS:
        raise ValueError(f"{text!r} is not a size (bytes, or a number with B, KiB, MiB, GiB, KB, MB, GB)")
    return int(match.group(1)) * UNITS[unit]


def format_size(size: int) -> str:
    """``1 MiB``, ``512 KiB``, ``1000 bytes``: the largest binary unit that divides ``size``."""
    for unit, factor in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} byte{'s' if size != 1 else ''}"


#: How long a kind of warning stays quiet after its line.
QUIET_SECONDS = 60.0


class Warnings:
    """One line per kind of trouble at most every :data:`QUIET_SECONDS`; the next line after a quiet
    spell says how many were left unsaid (``warning: … (12 more since the last warning)``)."""

    def __init__(
        self,
        write: Callable[[str], None],
        quiet: float = QUIET_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._quiet = quiet
        self._clock = clock
        self._last: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, kind: str, line: str) -> None:
        """Write ``line`` unless a line of ``kind`` was written less than the quiet spell ago."""
        now = self._clock()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last < self._quiet:
                self._unsaid[kind] = self._unsaid.get(kind, 0) + 1
                return
            self._last[kind] = now
            unsaid = self._unsaid.pop(kind, 0)
        self._write(line + (f" ({unsaid} more since the last warning)" if unsaid else ""))
