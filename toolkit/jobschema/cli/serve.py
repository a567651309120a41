"""``jobschema serve``: a stub of the Run:ai and AIHC (v1, v2) job APIs, serving captures, in the
foreground."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from jobschema.cli.options import Seconds, api_version_option, credential_options, echo_error, echo_warning
from jobschema.serve.limits import Limits, format_size, parse_size

if TYPE_CHECKING:
    from jobschema.serve import CapturesRefused

_HELP_EPILOG = """\b
Routes (both APIs on one port):
  Run:ai  POST /api/v1/token (JSON: grantType client_credentials with clientId/clientSecret, or
          app_token with appId/appSecret; keys match case-insensitively) -> {"accessToken": JWT}
          GET /api/v1/workloads/distributed/ID, POST /api/v1/workloads/distributed (202),
          POST .../ID/suspend, POST .../ID/resume, DELETE .../ID (202 {code, message});
          GET /api/v1/clusters/ID (its version: the --api-version served, else the one a HAR
          capture recorded, else null);
          every call but the token sends Authorization: Bearer ACCESS_TOKEN (401 without, with the
          idToken or another kind of token, or an expired one; 404 unknown id)
  AIHC    GET /api/v1/aijobs/ID?resourcePoolId=POOL, POST /api/v1/aijobs?resourcePoolId=POOL,
          POST /api/v1/aijobs/ID/stop, DELETE /api/v1/aijobs/ID, PUT /api/v1/aijobs/ID ({priority});
          a finished job cannot be stopped (409 JobAlreadyFinished), a deleted one is not found;
          signed with BCE v1 (bce-auth-v1/AK/TIME/EXPIRY/HEADERS/SIGNATURE), checked by Baidu's signer
          over the request's own Host; host must be signed and EXPIRY at most 3600 seconds
          (InvalidHTTPAuthHeader otherwise)
  AIHC v2 POST /?action=DescribeJob (JSON: jobId, resourcePoolId, needDetail), CreateJob,
          StopJob, DeleteJob, ModifyJob (JSON: jobId[, priority]), signed as v1; a job is answered
          from its v2 captures, else from its v1 detail through the one v1/v2 mapping
  A body that is not JSON (or holds what Python cannot: 5,000 digits, nesting past the parser's
  depth, bytes that are not UTF-8) is 400 with the API's error body.

\b
Captures: files, folders, quoted globs, NDJSON and HAR, read as validate reads them. Each Run:ai
workload is served under its workloadId, each AIHC job under result.jobId (a v2 answer under its
jobId); several snapshots of
one id (an NDJSON history) are served in order, one per GET, the last one repeating. Every
capture is validated first (against that version with --api-version): an invalid one stops the start
(its findings on stderr, exit 1) unless --serve-invalid. Error bodies and raw requests are skipped
with a note.

\b
Credentials (an option wins over --credentials FILE, which wins over the environment; never
printed or logged; the same names and file as record's):
  RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET   grant client_credentials (and app_token, unless:)
  RUNAI_APP_ID, RUNAI_APP_SECRET         grant app_token (runapy sends it with AppId/AppSecret)
  BCE_ACCESS_KEY_ID, BCE_SECRET_ACCESS_KEY   the AIHC access key pair
An API without credentials refuses every request (401 / InvalidAccessKeyId).

\b
Lifecycles and faults (--config FILE, TOML or JSON; see docs/serve.md):
  [runai] lifecycle = ["Creating", "Pending", {phase = "Running", polls = 3}, "Completed"]
  [aihc]  lifecycle = ["Pending", "Running", "Succeeded"]    fail_rate, fail_phase,
          unknown_after_submit, not_found_after_submit, token_expiry (seconds)
  [[faults]] route = "runai.get"  rate = 0.2  status = [429, 503]  retry_after = 2  latency = 0.05
          route is "*" or one of runai.token|get|cluster|submit|suspend|resume|delete,
          aihc.get|submit|stop|delete|update

\b
Limits (each answered with the API's error body and Connection: close; warnings about them are one
line per kind a minute, never a traceback):
  --max-body 1MiB          a larger body is 413: a Content-Length above it at once, a chunked
                           body when it passes it, unread further
  --max-headers 16KiB      request line and headers together; more is 431
  --max-url 8KiB           the request target (path and query); more is 414
  --idle-timeout 5         seconds a connection may wait with no request under way, then closed
  --request-timeout 30     seconds from a request's first byte until it is whole (a peer
                           trickling headers or body), then 408 and closed; also the time the
                           peer has to take each part of the answer
  --max-connections 100    connections at once; newer ones are answered 503 and closed, as are
                           waiting ones when the process runs out of file descriptors
  --max-jobs 1000          jobs kept per API: a submit past this many live ones is 503 (the
                           oldest finished or deleted one is forgotten first); as many generated
                           ones, the least recently asked for forgotten first; as many generated
                           ones a peer changed, kept as changed (a change to one more is 503)
Sizes are bytes, or a number with B, KiB, MiB, GiB (1024) or KB, MB, GB (1000).

\b
Output: the first stdout line, flushed, is "listening on http://HOST:PORT" (the real port); one
access-log line per request on stderr (METHOD PATH STATUS MS, secrets in the query masked).
SIGINT or SIGTERM shuts the server down cleanly (exit 0).

\b
Exit codes:
  0  served until SIGINT/SIGTERM, then shut down cleanly
  1  a capture is invalid (findings on stderr): the server did not start
  2  usage error, missing input, bad config file, the port cannot be bound, a --host that is
     not loopback without --allow-remote, the serve extra not installed (pip install
     'jobschema[serve]')
"""


#: The credentials a stub checks, and the name each has in :class:`jobschema.serve.Credentials`.
_KEYS = ("client_id", "client_secret", "app_id", "app_secret", "access_key_id", "secret_access_key")
_SERVED = {key: f"{'bce' if key in _KEYS[4:] else 'runai'}_{key}" for key in _KEYS}


class _Size(click.ParamType):
    """A size option: ``1MiB``, ``512KiB``, ``64KB``, ``4096`` (bytes)."""

    name = "size"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        try:
            size = parse_size(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)
        if size < 1:
            self.fail(f"{value!r} is not a size of at least 1 byte", param, ctx)
        return size


_DEFAULT = Limits()
_SECONDS = Seconds()


@click.command(epilog=_HELP_EPILOG)
@click.argument("captures", nargs=-1, metavar="[CAPTURES]...")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address or name to listen on; anything but loopback needs --allow-remote.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port; 0 picks a free one."
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Let --host be an address others can reach (they could use the stub's credentials).",
)
@click.option(
    "--max-body",
    type=_Size(),
    default=format_size(_DEFAULT.max_body),
    show_default=True,
    metavar="SIZE",
    help="Largest request body; more is 413, refused while it streams.",
)
@click.option(
    "--max-headers",
    type=_Size(),
    default=format_size(_DEFAULT.max_headers),
    show_default=True,
    metavar="SIZE",
    help="Largest request line and headers together; more is 431.",
)
@click.option(
    "--max-url",
    type=_Size(),
    default=format_size(_DEFAULT.max_url),
    show_default=True,
    metavar="SIZE",
    help="Longest request target (path and query); more is 414.",
)
@click.option(
    "--idle-timeout",
    type=_SECONDS,
    default=_DEFAULT.idle_timeout,
    show_default=True,
    metavar="SECONDS",
    help="Close a connection with no request under way after this long.",
)
@click.option(
    "--request-timeout",
    type=_SECONDS,
    default=_DEFAULT.request_timeout,
    show_default=True,
    metavar="SECONDS",
    help="A request must arrive whole within this of its first byte, else 408.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=_DEFAULT.max_connections,
    show_default=True,
    help="Connections at once; newer ones are answered 503 and closed.",
)
@click.option(
    "--max-jobs",
    type=click.IntRange(min=1),
    default=_DEFAULT.max_jobs,
    show_default=True,
    help="Jobs kept per API: more live submitted (or changed generated) ones are 503; unchanged "
    "generated ones are forgotten LRU.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Lifecycles and faults: a TOML or JSON file.",
)
@click.option(
    "--seed", type=click.IntRange(min=0), help="Seed of faults, failures and new ids (over the file's)."
)
@click.option(
    "--generate",
    is_flag=True,
    help="Answer unknown ids with a schema-valid job drawn from the id (same id, same bytes).",
)
@click.option(
    "--serve-invalid",
    is_flag=True,
    help="Serve invalid captures as they are (as faults) instead of refusing.",
)
@api_version_option(
    "Serve only what VERSION of API may send (runai=2.19): captures it cannot have produced are refused "
    "at start-up, --generate draws only its fields and values, submitted workloads must be valid for "
    "it, and GET /api/v1/clusters/ID answers that version."
)
@credential_options(_KEYS)
@click.option("-q", "--quiet", is_flag=True, help="No access log.")
def serve(
    captures: tuple[str, ...],
    host: str,
    port: int,
    allow_remote: bool,
    max_body: int,
    max_headers: int,
    max_url: int,
    idle_timeout: float,
    request_timeout: float,
    max_connections: int,
    max_jobs: int,
    config_path: Path | None,
    seed: int | None,
    generate: bool,
    serve_invalid: bool,
    api_versions: tuple[tuple[str, str], ...],
    credentials_file: Path | None,
    quiet: bool,
    **given: str | None,
) -> None:
    """Serve the Run:ai and AIHC (v1 and v2) job APIs from captures, for consumer contract tests."""
    from dataclasses import replace

    from jobschema.serve.extra import require_serve_extra

    require_serve_extra("jobschema serve", generate)
    from jobschema.serve import (
        CapturesRefused,
        Credentials,
        ServeConfig,
        ServeOptions,
        load_config,
        run_foreground,
    )
    from jobschema.serve.server import is_loopback, listen_address

    address = listen_address(host, allow_remote)
    config = load_config(config_path) if config_path else ServeConfig()
    if seed is not None:
        config = replace(config, seed=seed)
    credentials = _credentials(Credentials, given, credentials_file)
    if not is_loopback(address):
        echo_warning(f"listening on {host}, not loopback: anyone who reaches it can use it")
    limits = Limits(max_body, max_headers, max_url, idle_timeout, request_timeout, max_connections, max_jobs)
    options = ServeOptions(
        captures,
        config,
        credentials,
        generate,
        serve_invalid,
        address,
        port,
        log=None if quiet else sys.stderr,
        limits=limits,
        allow_remote=allow_remote,
        api_versions=api_versions,
    )
    try:
        code = run_foreground(options)
    except CapturesRefused as refused:
        _print_refused(refused)
        raise SystemExit(refused.exit_code) from None
    raise SystemExit(code)


def _credentials(kind: Any, given: dict[str, str | None], path: Path | None) -> Any:
    """The credentials the stub checks: each an option, else from the file, else the variable (as
    ``record`` looks them up)."""
    from jobschema.inputs.files import named
    from jobschema.record.credentials import exposed, lookup

    found = lookup(given, os.environ, path)
    if path is not None and exposed(path):
        echo_warning(f"{named(path)}: readable by other users (chmod 600 it)")
    values = {_SERVED[key]: credential.value for key in _KEYS if (credential := found.find(key))}
    return kind.from_env({}, **values)


def _print_refused(refused: CapturesRefused) -> None:
    """The findings of the refused captures, as ``jobschema validate`` prints them, then the error."""
    from jobschema.findings import Report
    from jobschema.report import RenderOptions, render

    click.echo(render(Report(tuple(refused.catalog.refused)), "text", RenderOptions()), nl=False, err=True)
    echo_error(str(refused))
