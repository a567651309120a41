"""``jobschema record runai|aihc``: poll live jobs and write redacted, validated captures."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from jobschema.cli.options import color_option, credential_options, use_color

_COMMON_EPILOG = """\b
Output:
  -o FILE.ndjson  one response body per line (the API's own body, naming its job), appended and
                  flushed line by line; a snapshot is written when the job changed (a new phase or
                  status always counts; AIHC's requestId and --ignore'd pointers never do), or on
                  every poll with --all. Run again with the same -o to resume: each job's last line
                  there is where change detection picks up; a torn last line is repaired.
  --har FILE      every request of the run as HAR 1.2 (times, statuses, headers, bodies, error
                  answers and network failures), complete after every entry.
Without -o and --har nothing is written: the findings and status lines only.
Everything written, printed or raised goes through the secret policy first: the Authorization
header, the token exchange and every credential of this run come out masked (each token received,
opaque or JWT, is known to the masker before the answer that brought it is written).

\b
On the fly: each recorded payload is validated; findings print on stdout as jobschema validate
prints them (FILE:LINE:COL: POINTER: message [rule]), then its summary line. Status lines on stderr
(phase, polls, changes, errors) are redrawn on a terminal and printed when they change elsewhere.

\b
Polling: every --interval seconds (±10%; at least 1 unless the server is on loopback), until each
job reaches a terminal phase or is deleted (the API answers "no such job" after a snapshot),
--count polls or --duration (at most 100000 polls per job and 7 days; no request or wait outlasts
--duration: each request's timeout is cut to the time left). A job whose first 3 polls never
reached the API (a mistyped --url, a stopped server) ends unreachable, an error, and one whose
first 3 polls each ended on a redirect (never followed) ends redirected, an error; once the API
has answered anything, an outage is polled through. Network errors, 429 and 5xx are
retried --retries times with exponential backoff and jitter (0.5 s doubling, at most 30 s a wait,
120 s of waits a request). A Retry-After (seconds or an HTTP date) is waited out when it fits
those 120 s; a longer one ends the request at once (an error answer) and holds the next request
back for at most one --interval. Durations take s, m, h or d (90, 90s, 15m, 2h).

\b
Limits on what a server sends: a request ends --timeout after it began, whatever is still to
come (connect, status line, headers, 1xx answers, body, trailers), and a body is kept up to
--max-body bytes once decoded (gzip and deflate are decoded as they arrive: a small compressed
answer cannot grow past the cap). A larger body is an error answer (TooLarge in the status line):
its HAR entry keeps the headers, with response.content "_truncated": true, a comment and no text;
it is never held whole in memory nor written to -o. Sizes take bytes or KiB, MiB, GiB (512KiB,
64MiB).

\b
Exit codes:
  0  every recorded payload is valid
  1  a recorded payload is invalid (or --strict: has warnings), or a job answered no snapshot
     (one never found: "no such job" before any snapshot; unreachable; redirected)
  2  usage error, missing credentials, a credential rejected (one line naming it), a file that
     cannot be written, the record extra not installed (pip install 'jobschema[record]')
  130  interrupted (Ctrl-C); SIGTERM exits 143. The files stay complete and valid.
"""

_RUNAI_EPILOG = (
    """\b
Credentials (an option wins over --credentials FILE, which wins over the environment):
  RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET   POST /api/v1/token, grantType client_credentials
  RUNAI_APP_ID, RUNAI_APP_SECRET         --grant app_token (appId/appSecret; the client pair if unset)
The access token (a JWT) is fetched again before its exp, and once on a 401.

"""
    + _COMMON_EPILOG
)

_AIHC_EPILOG = (
    """\b
Credentials (an option wins over --credentials FILE, which wins over the environment):
  BCE_ACCESS_KEY_ID, BCE_SECRET_ACCESS_KEY   every request signed with BCE v1 by the Baidu SDK

"""
    + _COMMON_EPILOG
)

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


class Seconds(click.ParamType):
    """A duration: seconds, or a number with ``s``, ``m``, ``h`` or ``d``."""

    name = "seconds"

    def __init__(self, minimum: float, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, int | float):
            seconds = float(value)
        else:
            match = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhd]?)\s*", str(value))
            if match is None:
                self.fail(f"{value!r} is not a duration (90, 90s, 15m, 2h, 1d)", param, ctx)
            seconds = float(match[1]) * _UNITS[match[2]]
        if seconds < self.minimum or (self.maximum is not None and seconds > self.maximum):
            top = f" and {self.maximum:g}" if self.maximum is not None else ""
            self.fail(f"{value!r} must be between {self.minimum:g}{top} seconds", param, ctx)
        return seconds


_SIZES = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3}
_SIZES |= {"gib": 1024**3, "kb": 1000, "mb": 1000**2, "gb": 1000**3}


class Size(click.ParamType):
    """A size: bytes, or a number with ``KiB``, ``MiB``, ``GiB`` (``K``, ``M``, ``G``; ``kB``, ``MB``,
    ``GB`` are powers of 1000)."""

    name = "size"

    def __init__(self, minimum: int, maximum: int) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            size = value
        else:
            match = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*", str(value))
            unit = _SIZES.get(match[2].lower()) if match is not None else None
            if match is None or unit is None:
                self.fail(f"{value!r} is not a size (1048576, 512KiB, 64MiB, 1GiB)", param, ctx)
            size = int(float(match[1]) * unit)
        if not self.minimum <= size <= self.maximum:
            self.fail(f"{value!r} must be between {self.minimum} bytes and {_size(self.maximum)}", param, ctx)
        return size


def _size(size: int) -> str:
    for unit, name in ((1024**3, "GiB"), (1024**2, "MiB"), (1024, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit}{name}"
    return f"{size} bytes"


def _common(command: Callable[..., Any]) -> Callable[..., Any]:
    from jobschema.record.limits import MAX_BODY, MAX_DURATION, MAX_POLLS, MIN_BODY, TOP_BODY

    options = [
        click.option("--url", required=True, metavar="BASE", help="The API's base URL."),
        click.option(
            "-o",
            "--output",
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE.ndjson",
            help="Append the job snapshots here, one body per line (resumes a file it wrote).",
        ),
        click.option(
            "--har",
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE",
            help="Also write every request and answer as HAR 1.2.",
        ),
        click.option("--all", "every", is_flag=True, help="Write every poll, not only changes."),
        click.option(
            "--interval",
            type=Seconds(0.0),
            default="10",
            show_default=True,
            help="Seconds between polls (±10% jitter).",
        ),
        click.option(
            "--count",
            type=click.IntRange(1, MAX_POLLS),
            metavar="N",
            help="Stop each job after N polls.",
        ),
        click.option(
            "--duration",
            type=Seconds(0.001, MAX_DURATION),
            help="Stop after this long (default and most: 7 days).",
        ),
        click.option("--strict", is_flag=True, help="Report undeclared properties and fail on warnings."),
        click.option(
            "--ignore",
            multiple=True,
            metavar="PATTERN",
            help="Changes under pointers matching PATTERN are no change (glob as diff --ignore; repeatable).",
        ),
        click.option(
            "--ignore-volatile",
            is_flag=True,
            help="Server-populated fields (timestamps, IPs) are no change; phases always are.",
        ),
        click.option(
            "--retries",
            type=click.IntRange(0, 10),
            default=4,
            show_default=True,
            help="Retries of a request after a network error, 429 or 5xx.",
        ),
        click.option(
            "--timeout",
            type=Seconds(0.1, 600),
            default="30",
            show_default=True,
            help="Seconds per request, its whole answer included.",
        ),
        click.option(
            "--max-body",
            type=Size(MIN_BODY, TOP_BODY),
            default=_size(MAX_BODY),
            show_default=True,
            metavar="SIZE",
            help="Largest answer body kept, counted decoded; a larger one is an error answer.",
        ),
        color_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command


_GROUP_EPILOG = """\b
Examples:
  jobschema record runai --url https://tenant.run.ai --workload ID -o job.ndjson --har job.har
  jobschema record aihc --url https://aihc.bj.baidubce.com --resource-pool POOL --job ID -o job.ndjson
Then: jobschema validate job.ndjson; jobschema diff --history job.ndjson

\b
Exit codes:
  0  every recorded payload is valid
  1  a recorded payload is invalid, or a job answered no snapshot
  2  usage error, missing or rejected credentials, a file that cannot be written, the record
     extra not installed
  130  interrupted (Ctrl-C); SIGTERM exits 143
"""


_RUNAI_KEYS = ("client_id", "client_secret", "app_id", "app_secret")
_AIHC_KEYS = ("access_key_id", "secret_access_key")


@click.group(epilog=_GROUP_EPILOG)
def record() -> None:
    """Poll live Run:ai or AIHC jobs and write redacted, validated captures (NDJSON, HAR)."""


@record.command(epilog=_RUNAI_EPILOG, short_help="Record Run:ai distributed workloads.")
@click.option(
    "--workload",
    "jobs",
    multiple=True,
    required=True,
    metavar="ID",
    help="A distributed workload's id (repeatable).",
)
@click.option(
    "--grant",
    type=click.Choice(["client_credentials", "app_token"]),
    default="client_credentials",
    show_default=True,
    help="The token request's grant.",
)
@credential_options(_RUNAI_KEYS, old={key: f"--{key.replace('_', '-')}" for key in _RUNAI_KEYS})
@_common
def runai(jobs: tuple[str, ...], grant: str, **options: Any) -> None:
    """Record Run:ai distributed workloads (GET /api/v1/workloads/distributed/ID)."""
    given = {key: options.pop(key) for key in _RUNAI_KEYS}
    _run("runai", jobs, given, options, grant=grant)


@record.command(epilog=_AIHC_EPILOG, short_help="Record AIHC training jobs (v1 or v2 API).")
@click.option(
    "--job", "jobs", multiple=True, required=True, metavar="ID", help="A training job's id (repeatable)."
)
@click.option("--resource-pool", required=True, metavar="ID", help="The resource pool of the jobs.")
@click.option(
    "--api",
    "aihc_api",
    type=click.Choice(["v1", "v2"]),
    default="v1",
    show_default=True,
    help="v1: GET /api/v1/aijobs/ID; v2: POST /?action=DescribeJob (Baidu's current SDKs).",
)
@click.option(
    "--queue", default="default", show_default=True, metavar="ID", help="v2: the jobs' queue (queueID)."
)
@credential_options(_AIHC_KEYS, old={key: f"--{key.replace('_', '-')}" for key in _AIHC_KEYS})
@_common
def aihc(jobs: tuple[str, ...], resource_pool: str, aihc_api: str, queue: str, **options: Any) -> None:
    """Record AIHC training jobs: v1 GET /api/v1/aijobs/ID?resourcePoolId=POOL, or v2 DescribeJob."""
    given = {key: options.pop(key) for key in _AIHC_KEYS}
    _run("aihc", jobs, given, options, resource_pool=resource_pool, aihc_api=aihc_api, queue=queue)


def _run(
    api: str, jobs: tuple[str, ...], given: dict[str, Any], options: dict[str, Any], **extra: Any
) -> None:
    from jobschema.errors import require_extra

    needed = ("httpx", "baidubce") if api == "aihc" else ("httpx",)  # (AIHC signs with Baidu's SDK)
    require_extra("record", "jobschema record: the record extra", needed)
    from jobschema.record import RecordOptions, RetryPolicy, Schedule, record

    settings = RecordOptions(
        api,
        options["url"],
        jobs,
        output=options["output"],
        har=options["har"],
        schedule=Schedule(options["interval"], options["count"], options["duration"], options["every"]),
        strict=options["strict"],
        ignore=options["ignore"],
        ignore_volatile=options["ignore_volatile"],
        retry=RetryPolicy(retries=options["retries"]),
        timeout=options["timeout"],
        max_body=options["max_body"],
        credentials=given,
        credentials_file=options["credentials_file"],
        color=use_color(options["color"], sys.stdout),
        **extra,
    )
    raise SystemExit(record(settings).code)
