"""Putting a recording together: options checked, credentials found, files opened, the loop run.

:func:`record` is the library's entry point and all ``jobschema record`` calls. Findings go to
``out`` as ``jobschema validate`` prints them, then its summary line; status lines, notes and
warnings go to ``err``. Every line is scrubbed and guarded before it is printed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from jobschema import __version__
from jobschema.apis import runai
from jobschema.errors import ToolkitError
from jobschema.inputs.files import named
from jobschema.record import credentials as creds
from jobschema.record.api import ApiClient
from jobschema.record.body import ACCEPT_ENCODING
from jobschema.record.change import ChangeDetector
from jobschema.record.credentials import AuthFailed, Pair
from jobschema.record.guard import Guard
from jobschema.record.har import HarWriter
from jobschema.record.limits import MAX_BODY, MIN_BODY, TOP_BODY
from jobschema.record.live import LiveValidator
from jobschema.record.loop import Outcome, Recording, Schedule, Sinks, resume
from jobschema.record.ndjson import NdjsonWriter
from jobschema.record.retry import RetryPolicy, Runtime
from jobschema.record.status import JobState, StatusBoard
from jobschema.record.transport import BodyLimits, Transport
from jobschema.report.common import summary_line
from jobschema.secrets import mask_url, scrub
from jobschema.text import strings

APIS = ("runai", "aihc")
#: The shortest pause between polls of a real API (a loopback test server may be polled faster).
MIN_INTERVAL = 1.0


class RecordUsageError(ToolkitError):
    """Options a recording cannot run with (exit 2)."""


@dataclass(frozen=True)
class RecordOptions:
    """What to record, from where, and into which files.

    ``credentials`` maps the names of :data:`jobschema.record.credentials.SOURCES` (``client_id``,
    ``secret_access_key``, ...) to values given as options; the rest come from ``credentials_file``,
    then the environment.
    """

    api: str
    url: str
    jobs: tuple[str, ...]
    resource_pool: str | None = None
    #: AIHC: ``v1`` (``GET /api/v1/aijobs/ID``) or ``v2`` (``POST /?action=DescribeJob``), and v2's queue.
    aihc_api: str = "v1"
    queue: str = "default"
    grant: str = "client_credentials"
    output: Path | None = None
    har: Path | None = None
    schedule: Schedule = field(default_factory=Schedule)
    strict: bool = False
    ignore: tuple[str, ...] = ()
    ignore_volatile: bool = False
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: float = 30.0
    max_body: int = MAX_BODY
    credentials: Mapping[str, str | None] = field(default_factory=dict)
    credentials_file: Path | None = None
    color: bool = False

    def __post_init__(self) -> None:
        # (one job id, or one ignore pattern, given as a string is one: jobs="abc" is not a, b, c)
        object.__setattr__(self, "jobs", strings(self.jobs, "jobs"))
        object.__setattr__(self, "ignore", strings(self.ignore, "ignore"))


def _login(url: str) -> str | None:
    """The login a URL holds (``user:password`` before ``@``; a token may stand as the user name)."""
    _, at, rest = url.partition("://")
    netloc = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return netloc.rpartition("@")[0] if at and "@" in netloc else None


def _shown(url: str) -> str:
    """``url`` as an error shows it: its login masked whole, credential-like query values masked."""
    login = _login(url)
    if login is None:
        return mask_url(url)
    from jobschema.secrets import mask

    scheme, _, rest = url.partition("://")
    shown = mask_url(f"{scheme}://{rest[len(login) + 1 :]}")
    return f"{scheme}://{mask(login) if login else ''}@{shown[len(scheme) + 3 :]}"


def _url_problem(url: str) -> str | None:
    """Why ``url`` cannot be the API's base URL (None: it can): it must be an http(s) URL with a host
    httpx can send to and a port from 1 to 65535 if it names one, no query or fragment, which the
    request paths appended to it would land inside, and no login (``user:password@``)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # an unclosed [IPv6], a port beyond 65535 or not a number
        return _GIVE_BASE
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        return _GIVE_BASE
    if "?" in url or "#" in url:
        return "a base URL has no query or fragment (? or #); give the API's base URL"
    if _login(url) is not None:
        # httpx would send it as ``Authorization: Basic`` on every request (in place of the bearer
        # token), and a server writing it back would be writing a credential the recorder does not know
        return (
            "a base URL holds no user name or password (@); give the credentials as options, "
            "in a credentials file or in the environment"
        )
    if not _sendable(url, parts.hostname):
        return f"{parts.hostname!r} is not a host name or address"
    return None


_GIVE_BASE = "give the API's base URL, e.g. https://tenant.run.ai"


def _sendable(url: str, host: str) -> bool:
    """httpx reads ``url`` and the socket layer can encode its ``host`` (IDNA: no empty label, none
    longer than 63 characters); an IP address as httpx reads it (``999.1.1.1`` is none)."""
    import httpx

    try:
        httpx.URL(url).host  # noqa: B018 (reading it decodes the IDNA labels: xn-- alone is none)
        if not _is_address(host):
            host.encode("idna")
    except (httpx.InvalidURL, UnicodeError):
        return False
    return True


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


#: What an id of a job, workload, pool or queue cannot hold: it becomes part of a request's path or
#: query, where these would ask for another resource.
_NOT_IN_IDS = frozenset("/?#&%\\")


def _check_ids(options: RecordOptions) -> None:
    """Each id non-empty, printable, without spacing or :data:`_NOT_IN_IDS`."""
    job_option = "--workload" if options.api == "runai" else "--job"
    named = [(job_option, job) for job in options.jobs]
    if options.api == "aihc":
        named += [("--resource-pool", options.resource_pool or ""), ("--queue", options.queue)]
    for option, value in named:
        if not value or not value.isprintable() or " " in value or set(value) & _NOT_IN_IDS:
            shown = scrub(json.dumps(value))
            raise RecordUsageError(f"{option} {shown}: not an id (empty, or holds spacing or / ? # & % \\)")


def check(options: RecordOptions) -> list[str]:
    """Refuse options that cannot work (:class:`RecordUsageError`); the warnings of those that may."""
    if options.api not in APIS:
        raise RecordUsageError(f"unknown API {options.api!r} (one of {', '.join(APIS)})")
    if not options.jobs:
        raise RecordUsageError("name at least one job to record")
    problem = _url_problem(options.url)
    if problem is not None:
        raise RecordUsageError(scrub(f"--url {_shown(options.url)}: {problem}"))
    if options.api == "aihc" and not options.resource_pool:
        raise RecordUsageError("--resource-pool: AIHC jobs are asked for within their resource pool")
    _check_ids(options)
    parts = urlsplit(options.url)
    host = parts.hostname or ""  # (never empty here: _url_problem asked for one)
    if not MIN_BODY <= options.max_body <= TOP_BODY:
        raise RecordUsageError(f"--max-body {options.max_body}: between {MIN_BODY} and {TOP_BODY} bytes")
    if options.grant not in runai.GRANTS:
        raise RecordUsageError(f"--grant {options.grant}: one of {', '.join(runai.GRANTS)}")
    if not _loopback(host) and options.schedule.interval < MIN_INTERVAL:
        raise RecordUsageError(
            f"--interval {options.schedule.interval:g}: at least {MIN_INTERVAL:g} s "
            "(shorter only against a loopback test server)"
        )
    outputs = [path for path in (options.output, options.har) if path is not None]
    if any(str(path) == "-" for path in outputs):
        raise RecordUsageError("-o/--har -: the recording goes to files (stdout carries the findings)")
    if len(outputs) == 2 and _same(outputs[0], outputs[1]):
        raise RecordUsageError("-o and --har name the same file")
    for path in outputs:
        if path.is_dir():
            raise RecordUsageError(f"{named(path)}: is a folder; name a file")
    warnings = []
    if parts.scheme == "http" and not _loopback(host):
        warnings.append(
            f"warning: {parts.scheme}://{parts.hostname}: plain HTTP: credentials travel unencrypted"
        )
    return warnings


def _same(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def find_pair(options: RecordOptions, env: Mapping[str, str]) -> tuple[Pair, list[str]]:
    """The credentials to sign in with, and a warning when the credentials file is readable by others."""
    found = creds.lookup(options.credentials, env, options.credentials_file)
    warnings = []
    if options.credentials_file is not None and creds.exposed(options.credentials_file):
        warnings.append(f"warning: {named(options.credentials_file)}: readable by other users (chmod 600 it)")
    pair = creds.runai_pair(found, options.grant) if options.api == "runai" else creds.bce_pair(found)
    return pair, warnings


def guarded(options: RecordOptions, pair: Pair) -> list[str]:
    """The credentials masked from the start: the secret, and for AIHC the access key id too (a
    Run:ai client id names an app, which workloads may name in the clear)."""
    return [pair.secret.value, *([pair.id.value] if options.api == "aihc" else [])]


def record(
    options: RecordOptions,
    *,
    env: Mapping[str, str] | None = None,
    runtime: Runtime | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    tty: bool | None = None,
) -> Outcome:
    """Record the jobs of ``options``; raises :class:`~jobschema.record.credentials.AuthFailed` or
    another :class:`~jobschema.errors.ToolkitError` (exit 2) when it cannot go on."""
    out, err = out or sys.stdout, err or sys.stderr
    env = os.environ if env is None else env
    runtime = runtime or Runtime()
    warnings = check(options)
    pair, more = find_pair(options, env)
    guard = Guard(guarded(options, pair))
    for line in [*warnings, *more]:
        err.write(guard.note(line) + "\n")
    return _Run(options, pair, guard, runtime, out, err, err.isatty() if tty is None else tty).go()


class _Run:
    """The objects of one recording, built in order and closed in reverse."""

    def __init__(
        self,
        options: RecordOptions,
        pair: Pair,
        guard: Guard,
        runtime: Runtime,
        out: TextIO,
        err: TextIO,
        tty: bool,
    ) -> None:
        self.options, self.pair, self.guard, self.runtime = options, pair, guard, runtime
        self.out, self.err, self.tty = out, err, tty
        self.jobs = [JobState(options.api, job) for job in dict.fromkeys(options.jobs)]
        self.board = StatusBoard(err, self.jobs, tty, guard.note)
        self.ndjson: NdjsonWriter | None = None
        self.har: HarWriter | None = None
        self.http: Any = None

    def go(self) -> Outcome:
        try:
            recording = self._build()
            try:
                outcome = recording.run()
            except AuthFailed:
                raise
            except BaseException:
                self._print(summary_line(recording.sinks.validator.report()))
                raise
            self._print(summary_line(outcome.report))
            return outcome
        finally:
            self._close()

    def _build(self) -> Recording:
        from jobschema.record import deadline

        options = self.options
        key = runai.job_id if options.api == "runai" else _aihc_id
        if options.output is not None:
            self.ndjson = NdjsonWriter.open(options.output, key)
            for note in self.ndjson.notes:
                self._warn(f"note: {note}")
        if options.har is not None:
            self.har = HarWriter.open(options.har, self.guard)
        self.http = deadline.client(
            timeout=options.timeout,
            follow_redirects=False,
            cookies=_no_cookies(),
            headers={"User-Agent": f"jobschema-record/{__version__}", "Accept-Encoding": ACCEPT_ENCODING},
        )
        limits = BodyLimits(options.max_body, options.timeout)
        hold = options.schedule.interval  # a Retry-After never holds a poll back longer than this
        transport = Transport(self.http, options.retry, self.runtime, lambda exchange: None, limits, hold)
        client = self._client(transport)
        if self.ndjson is not None:
            resume(self.jobs, self.ndjson.last, client)
        validator = LiveValidator(options.strict, self._print, options.color)
        sinks = Sinks(self.guard, validator, self.board, self.ndjson, self.har, self._warn)
        detector = ChangeDetector(client.phase, (*client.noise, *options.ignore), options.ignore_volatile)
        recording = Recording(client, self.jobs, detector, options.schedule, sinks, self.runtime)
        transport.observe = recording.observe
        return recording

    def _client(self, transport: Transport) -> ApiClient:
        if self.options.api == "runai":
            from jobschema.record.runai import RunaiClient

            return RunaiClient(self.options.url, self.pair, self.options.grant, transport, self.guard.add)
        from jobschema.record.aihc import AihcClient, AihcV2Client

        pool = self.options.resource_pool or ""
        if self.options.aihc_api == "v2":
            return AihcV2Client(self.options.url, pool, self.options.queue, self.pair, transport)
        return AihcClient(self.options.url, pool, self.pair, transport)

    def _print(self, text: str) -> None:
        def write() -> None:
            self.out.write(self.guard.line(text) + "\n")
            self.out.flush()

        self.board.above(write)

    def _warn(self, text: str) -> None:
        def write() -> None:
            self.err.write(self.guard.note(text) + "\n")
            self.err.flush()

        self.board.above(write)

    def _close(self) -> None:
        if self.http is not None:
            self.http.close()
        for writer in (self.ndjson, self.har):
            if writer is not None:
                writer.close()


def _no_cookies() -> Any:
    """A cookie jar that keeps none: a cookie an answer sets is recorded, never sent back (a server
    setting a new one on every answer would otherwise grow the jar, and every request, without end;
    and the requests would depend on what earlier answers said)."""
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


def _aihc_id(value: Any) -> str | None:
    """The job an AIHC answer names, v1's or v2's (any source's spelling): a file being resumed may
    hold either shape, whichever API version recorded it."""
    from jobschema.record.aihc import job_id_of

    return job_id_of(value)
