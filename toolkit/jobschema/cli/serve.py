"""``jobschema serve``: a stub of the Run:ai and AIHC v1 job APIs, serving captures, in the foreground."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from jobschema.serve import CapturesRefused

_HELP_EPILOG = """\b
Routes (both APIs on one port):
  Run:ai  POST /api/v1/token (JSON: grantType client_credentials with clientId/clientSecret, or
          app_token with appId/appSecret; keys match case-insensitively) -> {"accessToken": JWT}
          GET /api/v1/workloads/distributed/ID, POST /api/v1/workloads/distributed (202),
          POST .../ID/suspend, POST .../ID/resume, DELETE .../ID (202 {code, message});
          every call but the token sends Authorization: Bearer TOKEN (401 without, 404 unknown id)
  AIHC    GET /api/v1/aijobs/ID?resourcePoolId=POOL, POST /api/v1/aijobs?resourcePoolId=POOL;
          signed with BCE v1 (bce-auth-v1/AK/TIME/EXPIRY/HEADERS/SIGNATURE), checked by Baidu's signer

\b
Captures: files, folders, quoted globs, NDJSON and HAR, read as validate reads them. Each Run:ai
workload is served under its workloadId, each AIHC job under result.jobId; several snapshots of
one id (an NDJSON history) are served in order, one per GET, the last one repeating. Every
capture is validated first: an invalid one stops the start (its findings on stderr, exit 1)
unless --serve-invalid. Error bodies and raw requests are skipped with a note.

\b
Credentials (options win over the environment; never printed or logged):
  RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET   grant client_credentials (and app_token, unless:)
  RUNAI_APP_ID, RUNAI_APP_SECRET         grant app_token (runapy sends it with AppId/AppSecret)
  BCE_ACCESS_KEY_ID, BCE_SECRET_ACCESS_KEY   the AIHC access key pair
An API without credentials refuses every request (401 / InvalidAccessKeyId).

\b
Lifecycles and faults (--config FILE, TOML or JSON; see the README):
  [runai] lifecycle = ["Creating", "Pending", {phase = "Running", polls = 3}, "Completed"]
  [aihc]  lifecycle = ["Pending", "Running", "Succeeded"]    fail_rate, fail_phase,
          unknown_after_submit, not_found_after_submit, token_expiry (seconds)
  [[faults]] route = "runai.get"  rate = 0.2  status = [429, 503]  retry_after = 2  latency = 0.05

\b
Output: the first stdout line, flushed, is "listening on http://HOST:PORT" (the real port); one
access-log line per request on stderr (METHOD PATH STATUS MS, secrets in the query masked).
SIGINT or SIGTERM shuts the server down cleanly (exit 0).

\b
Exit codes:
  0  served until SIGINT/SIGTERM, then shut down cleanly
  1  a capture is invalid (findings on stderr): the server did not start
  2  usage error, missing input, bad config file, the port cannot be bound, the serve extra
     not installed (pip install 'jobschema[serve]')
"""


def _credential(flag: str, env: str, what: str) -> click.Option:
    return click.Option(
        [flag],
        envvar=env,
        show_envvar=True,
        metavar="TEXT",
        help=f"{what} (prefer the environment variable).",
    )


@click.command(epilog=_HELP_EPILOG)
@click.argument("captures", nargs=-1, metavar="[CAPTURES]...")
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default)."
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port; 0 picks a free one."
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
@click.option("-q", "--quiet", is_flag=True, help="No access log.")
def serve(
    captures: tuple[str, ...],
    host: str,
    port: int,
    config_path: Path | None,
    seed: int | None,
    generate: bool,
    serve_invalid: bool,
    quiet: bool,
    **secrets: str | None,
) -> None:
    """Serve the Run:ai and AIHC v1 job APIs from captures, for consumer contract tests."""
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
    from jobschema.serve.server import is_loopback

    config = load_config(config_path) if config_path else ServeConfig()
    if seed is not None:
        config = replace(config, seed=seed)
    credentials = Credentials.from_env(os.environ, **secrets)
    if not is_loopback(host):
        click.echo(f"warning: listening on {host}, not loopback: anyone who reaches it can use it", err=True)
    options = ServeOptions(
        captures, config, credentials, generate, serve_invalid, host, port, log=None if quiet else sys.stderr
    )
    try:
        code = run_foreground(options)
    except CapturesRefused as refused:
        _print_refused(refused)
        raise SystemExit(refused.exit_code) from None
    raise SystemExit(code)


for _flag, _env, _what in (
    ("--runai-client-id", "RUNAI_CLIENT_ID", "Run:ai client id"),
    ("--runai-client-secret", "RUNAI_CLIENT_SECRET", "Run:ai client secret"),
    ("--runai-app-id", "RUNAI_APP_ID", "Run:ai app id for the legacy app_token grant"),
    ("--runai-app-secret", "RUNAI_APP_SECRET", "Run:ai app secret"),
    ("--bce-access-key-id", "BCE_ACCESS_KEY_ID", "AIHC access key id"),
    ("--bce-secret-access-key", "BCE_SECRET_ACCESS_KEY", "AIHC secret access key"),
):
    serve.params.insert(len(serve.params) - 1, _credential(_flag, _env, _what))


def _print_refused(refused: CapturesRefused) -> None:
    """The findings of the refused captures, as ``jobschema validate`` prints them, then the error."""
    from jobschema.findings import Report
    from jobschema.report import RenderOptions, render

    click.echo(render(Report(tuple(refused.catalog.refused)), "text", RenderOptions()), nl=False, err=True)
    click.echo(f"Error: {refused}", err=True)
