"""The polling loop: every job asked in turn, then a pause of ``interval`` (±10 %), until each job is
done — a terminal phase, gone, ``count`` polls, unreachable (the API never answered in
:data:`~jobschema.record.limits.UNREACHABLE_POLLS` polls), redirected (as many polls, before any
snapshot, each ended on a redirect, which is never followed) — or ``duration`` has passed; both are
capped (:mod:`jobschema.record.limits`), so the loop always ends.

Each answer is handled as it comes: a snapshot is redacted into a line, compared with the job's last
recorded one, written when it changed (or always, with ``every``) and validated (against the version
of the API that answered it, when the API says it: a Run:ai cluster's, asked once per cluster, shown
in the job's status line; a cluster that cannot be asked is said once on stderr); an error answer is
counted, and validated against the error schema; every attempt is already in the HAR
(:meth:`Recording.observe`). An answer whose body passed ``--max-body`` is an error answer
(``TooLarge``): in the HAR without its body, never in the NDJSON, said once per job on stderr.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jobschema.findings import Report
from jobschema.inputs.parse import parse_bytes
from jobschema.record.api import ApiClient
from jobschema.record.change import ChangeDetector
from jobschema.record.files import signals_held
from jobschema.record.guard import Guard
from jobschema.record.har import HarWriter
from jobschema.record.limits import JITTER, MAX_DURATION, MAX_POLLS, UNREACHABLE_POLLS
from jobschema.record.live import LiveValidator
from jobschema.record.ndjson import Line, NdjsonWriter, Unwritable, snapshot_line
from jobschema.record.retry import Runtime
from jobschema.record.status import JobState, StatusBoard
from jobschema.record.transport import Call, Exchange
from jobschema.secrets import mask_url


@dataclass(frozen=True)
class Schedule:
    """When to poll and when to stop."""

    interval: float = 10.0
    count: int | None = None
    duration: float | None = None
    every: bool = False

    @property
    def polls(self) -> int:
        """Polls per job at most."""
        return min(self.count or MAX_POLLS, MAX_POLLS)

    @property
    def seconds(self) -> float:
        """Seconds of recording at most."""
        return min(self.duration or MAX_DURATION, MAX_DURATION)


@dataclass
class Sinks:
    """Where a recording goes: the files (either may be absent), the validator, the status lines."""

    guard: Guard
    validator: LiveValidator
    board: StatusBoard
    ndjson: NdjsonWriter | None = None
    har: HarWriter | None = None
    warn: Callable[[str], None] = lambda text: None


@dataclass(frozen=True)
class Outcome:
    """How a recording ended: each job's state and the report of the payloads recorded."""

    jobs: tuple[JobState, ...]
    report: Report

    @property
    def code(self) -> int:
        """0 when every payload recorded is valid and every job answered a snapshot; else 1."""
        return 0 if self.report.ok and all(job.last is not None for job in self.jobs) else 1


class Recording:
    """One run of the loop over the jobs of one API."""

    def __init__(
        self,
        client: ApiClient,
        jobs: Sequence[JobState],
        detector: ChangeDetector,
        schedule: Schedule,
        sinks: Sinks,
        runtime: Runtime,
    ) -> None:
        self.client = client
        self.jobs = list(jobs)
        self.detector = detector
        self.schedule = schedule
        self.sinks = sinks
        self.runtime = runtime
        self._by_id = {job.job: job for job in self.jobs}
        self._strangers: set[str] = set()
        self._truncated: set[Call] = set()
        self._unasked: set[str] = set()
        self._missing: dict[str, str] = {}  # job -> how its last answer said not found (no snapshot yet)
        self._heard = False  # the API has answered a request of this recording (any status)
        self._unheard: dict[str, int] = {}  # job -> its polls while the API never answered
        self._redirect: dict[str, tuple[int, str]] = {}  # job -> the redirect its poll ended on
        self._redirected: dict[str, int] = {}  # job -> its polls in a row that ended on a redirect
        self._proxied: set[str] = set()  # jobs a proxy's error answer was said for
        self._failure = ""  # the last network failure: its request and error (host and cause)

    def observe(self, exchange: Exchange) -> None:
        """Every attempt: into the HAR, and an error answer into its job's count."""
        if self.sinks.har is not None:
            self.sinks.har.add(exchange, self.sinks.guard)
        self._heard = self._heard or exchange.status != 0
        if exchange.status == 0 and exchange.error:
            self._failure = f"{exchange.method} {exchange.shown_url}: {_cut(exchange.error)}"
        self._follow_redirect(exchange)
        job = self._by_id.get(exchange.call.job)
        if job is not None and not exchange.ok:
            job.errors[exchange.outcome] += 1
        if exchange.truncated and exchange.call not in self._truncated:  # said once per job and kind
            self._truncated.add(exchange.call)
            self.sinks.warn(
                f"warning: {exchange.method} {exchange.shown_url} ({exchange.status}): not recorded: "
                f"the body passed --max-body (reading stopped after {exchange.body_size} bytes)"
            )

    def run(self) -> Outcome:
        """Poll until every job is done or the time is up; the files are complete at every step."""
        deadline = self.runtime.monotonic() + self.schedule.seconds
        try:
            self._rounds(deadline)
        except BaseException as err:
            self._end("interrupted")
            from jobschema.record.credentials import AuthFailed

            if not isinstance(err, AuthFailed):
                self.sinks.board.finish()
            raise
        self._end("duration")
        self._never_found()
        self.sinks.board.finish()
        return Outcome(tuple(self.jobs), self.sinks.validator.report())

    def _rounds(self, deadline: float) -> None:
        while True:
            for job in [job for job in self.jobs if job.done is None]:
                if self.runtime.monotonic() >= deadline:
                    return
                self._poll(job, deadline)
            if all(job.done is not None for job in self.jobs):
                return
            pause = self.schedule.interval * self.runtime.rng.uniform(1 - JITTER, 1 + JITTER)
            if not self.runtime.pause(pause, deadline):
                return

    def _end(self, reason: str) -> None:
        for job in self.jobs:
            if job.done is None:
                job.done = reason

    def _follow_redirect(self, exchange: Exchange) -> None:
        """Keep the redirect (a 3xx with a ``Location``) a job's request was answered with, or forget
        it when another answer came: the last answer of a poll is what it ended on."""
        job = exchange.call.job
        location = exchange.header("location") if 300 <= exchange.status < 400 else None
        if location is not None and job:
            self._redirect[job] = (exchange.status, location)
        elif exchange.status != 0:
            self._redirect.pop(job, None)

    def _poll(self, job: JobState, deadline: float) -> None:
        self._redirect.pop(job.job, None)
        exchange = self.client.poll(job.job, deadline)
        if exchange is None and self.runtime.monotonic() >= deadline:
            return  # the recording ended before the poll could be sent: no poll
        job.polls += 1
        if exchange is not None and exchange.ok:
            self._snapshot(job, exchange, deadline)
        elif exchange is not None:
            self._error_answer(job, exchange)
        if job.done is None and job.polls >= self.schedule.polls:
            job.done = "count"
        self._unreachable(job)
        self._ends_redirected(job)
        self.sinks.board.update()

    def _unreachable(self, job: JobState) -> None:
        """End a job's recording when the API has never answered in its first polls: a mistyped
        ``--url`` or a stopped server is an error now, not seven days of polling."""
        if self._heard or job.last is not None or job.done is not None:
            return
        polls = self._unheard[job.job] = self._unheard.get(job.job, 0) + 1
        if polls < UNREACHABLE_POLLS:
            return
        job.done = "unreachable"
        kinds = ", ".join(sorted(job.errors)) or "no request sent"
        last = f"; the last: {self._failure}" if self._failure else ""
        self.sinks.warn(
            f"error: {self.client.name} {job.job}: unreachable: the API never answered in "
            f"{polls} polls ({kinds}){last}; check --url"
        )

    def _ends_redirected(self, job: JobState) -> None:
        """End a job's recording when its first polls each ended on a redirect: redirects are never
        followed (no request, nor credential, goes where an answer points), so polling again would
        record nothing for as long as the API points elsewhere (an ``http://`` URL the API moves to
        ``https://``, a gateway's login page). After a snapshot, a redirect is an outage: polled
        through."""
        said = self._redirect.get(job.job)
        if said is None or job.last is not None or job.done is not None:
            self._redirected.pop(job.job, None)
            return
        polls = self._redirected[job.job] = self._redirected.get(job.job, 0) + 1
        if polls < UNREACHABLE_POLLS:
            return
        job.done = "redirected"
        status, location = said
        self.sinks.warn(
            f"error: {self.client.name} {job.job}: redirected: the API answered {status} to "
            f"{mask_url(location)} in {polls} polls; redirects are not followed (no request, nor "
            "credential, goes where an answer points): check --url"
        )

    def _snapshot(self, job: JobState, exchange: Exchange, deadline: float) -> None:
        line = snapshot_line(exchange.body, self.sinks.guard)
        if isinstance(line, Unwritable):
            self._unwritable(job, exchange, line)
            return
        self._version(job, line.value, deadline)
        named = self.client.job_id(line.value)
        if named != job.job and job.job not in self._strangers:
            self._strangers.add(job.job)
            self.sinks.warn(f"warning: {self.client.name} {job.job}: the answer names job {named!r}")
        changed = self.detector.changed(job.last, line.value)
        if changed and job.last is not None:
            job.changes += 1
        if changed or self.schedule.every:
            self._record(job, exchange, line)
        job.phase = self.client.phase(line.value)
        if self.client.terminal(line.value):
            job.done = "terminal"

    def _version(self, job: JobState, value: Any, deadline: float) -> None:
        """The API version of the snapshot (the client asks once per cluster); a cluster that could not
        be asked is said once."""
        found = self.client.api_version(value, deadline)
        if found is None or found == job.version:
            return
        before, job.version = job.version, found
        if before is not None and before.text is not None and found.text not in (None, before.text):
            self.sinks.warn(
                f"note: {self.client.name} {job.job}: the cluster now answers version {found.text} "
                f"(it answered {before.text}): the snapshots from here on are checked against it"
            )
        if found.problem is not None and found.problem not in self._unasked:
            self._unasked.add(found.problem)
            self.sinks.warn(
                f"note: {self.client.name} {job.job}: the cluster's version could not be asked "
                f"({found.problem}); its snapshots are checked against every version"
            )

    def _record(self, job: JobState, exchange: Exchange, line: Line) -> None:
        """Write and validate one snapshot, signals held: a line written is a line counted."""
        raw = line.text.encode("utf-8", "backslashreplace")
        writer = self.sinks.ndjson
        with signals_held():
            version = job.version.text if job.version else None
            if writer is None:
                self._validate(f"{exchange.method} {exchange.shown_url}", None, raw, version=version)
            else:
                number = writer.append(line)
                self._validate(f"{writer.path}:{number}", str(writer.path), raw, number, version=version)
            job.recorded += 1
            job.last = line.value

    def _unwritable(self, job: JobState, exchange: Exchange, problem: Unwritable) -> None:
        """A 2xx body that is not JSON (or cannot be redacted): counted, reported, never written."""
        job.errors["unreadable"] += 1
        if parse_bytes(exchange.body).error is not None:  # reported as validate reports bad JSON
            self._validate(f"{exchange.method} {exchange.shown_url}", None, exchange.body)
        else:
            asked = f"{exchange.method} {exchange.shown_url}"
            self.sinks.warn(f"warning: {asked}: not recorded: {problem.message}")

    def _never_found(self) -> None:
        """Say each job that answered no snapshot, its last answer saying there is no such job."""
        for job in self.jobs:
            said = self._missing.get(job.job)
            if job.last is None and said is not None:
                self.sinks.warn(
                    f"error: {self.client.name} {job.job}: never found: the API answered {said} "
                    f"(no such job) and no snapshot; check {self.client.names}"
                )

    def _error_answer(self, job: JobState, exchange: Exchange) -> None:
        said = self.client.missing(exchange)
        if said is not None and self.client.gone(exchange, job.last):
            job.phase, job.done = "(deleted)", "gone"
            self.sinks.warn(
                f"note: {self.client.name} {job.job}: deleted: the API answered {said} (no such job) "
                f"after its last snapshot; its recording is complete"
            )
        if said is not None:
            self._missing[job.job] = said
        else:
            self._missing.pop(job.job, None)
        parsed = parse_bytes(exchange.body) if exchange.body else None
        if parsed is None or parsed.error is not None:
            return
        if exchange.status in GATEWAY_STATUSES and not _api_shaped(parsed.value, self.client.error_schema):
            self._proxy_answer(job, exchange)
            return
        source = f"{exchange.method} {exchange.shown_url} ({exchange.status})"
        safe = self.sinks.guard.clean_json(exchange.body.decode("utf-8", "replace")).encode("utf-8")
        self._validate(source, None, safe, schema=self.client.error_schema)

    def _proxy_answer(self, job: JobState, exchange: Exchange) -> None:
        """A gateway status whose body is not the API's error shape: a proxy's (or a load balancer's)
        answer in front of the API, a transport failure as a dropped connection is — counted,
        retried, in the HAR — not the API breaking its contract; said once per job."""
        if job.job in self._proxied:
            return
        self._proxied.add(job.job)
        self.sinks.warn(
            f"warning: {exchange.method} {exchange.shown_url} answered {exchange.status} with a body "
            f"that is not the API's error body (it lacks {', '.join(_required(self.client.error_schema))}): "
            "a proxy's or gateway's answer, counted as a transport failure, not checked against "
            f"{self.client.error_schema}"
        )

    def _validate(
        self,
        source: str,
        path: str | None,
        raw: bytes,
        line: int = 1,
        schema: str | None = None,
        version: str | None = None,
    ) -> None:
        self.sinks.validator.check(source, path, raw, line, schema, version)


#: Statuses a proxy or gateway in front of the API answers for it (RFC 9110 §15.6.3-5): with a body
#: that is not the API's error shape, such an answer is a transport failure, not the API's.
GATEWAY_STATUSES = frozenset({502, 503, 504})


@functools.cache
def _required(schema: str) -> tuple[str, ...]:
    """The members the API's error schema requires of every error body (``code``, ``message``; AIHC
    also ``requestId``)."""
    from jobschema.schemas.registry import load

    return tuple(str(name) for name in load(schema).document.get("required", ()))


def _api_shaped(value: Any, schema: str) -> bool:
    """True when ``value`` has the shape of the API's error body: an object holding every member its
    schema requires (whatever their values: a drifted value is the API's, checked as such)."""
    return isinstance(value, dict) and all(name in value for name in _required(schema))


def resume(jobs: Sequence[JobState], found: dict[str, Any], client: ApiClient) -> None:
    """Each job picks up from its last snapshot in the file being resumed."""
    for job in jobs:
        job.last = found.get(job.job)
        if job.last is not None:
            job.phase = client.phase(job.last)


#: The most characters of a network error an unreachable line shows (a TLS library's can be long).
FAILURE_SHOWN = 300


def _cut(text: str) -> str:
    return text if len(text) <= FAILURE_SHOWN else f"{text[:FAILURE_SHOWN]}…"
