"""``jobschema validate``: check captured payloads; ``jobschema rules``: list the checks."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jobschema.cli.options import (
    Seconds,
    api_version_option,
    color_option,
    format_option,
    only_with,
    output_option,
    read_inputs,
    schema_option,
    use_color,
    write_output,
)

if TYPE_CHECKING:
    from jobschema.findings import Report
    from jobschema.report import RenderOptions, Section
    from jobschema.validate.session import Settings
    from jobschema.validate.tally import Tally

_HELP_EPILOG = """\b
Inputs: files, folders (recursive: *.json, *.ndjson, *.jsonl, *.har), quoted globs
('caps/**/*.json', expanded here and sorted), and - for stdin (NDJSON read line by line when it
is NDJSON: a whole JSON object or array on the first line, another line after it; a HAR, a JSON
document with log.entries, read as a *.har file). NDJSON/JSON
Lines files hold one payload per line; HAR files contribute the response bodies of
GET /api/v1/workloads/distributed/ID, /api/v1/aijobs/ID and AIHC v2 POST /?action=DescribeJob (error
schema for 4xx/5xx); other HAR entries are skipped and counted.

Links to folders are followed; inside a folder, a link loop, a dangling link, a file that is not
regular or a subfolder that cannot be read is skipped with a note on stderr (the other files are
checked); a file you may not read is its finding; a FIFO or device named directly is an error, never
a wait.

--dask tcp://HOST:PORT sends the files to the workers of a running Dask scheduler (pip install
'jobschema[dask]'); the workers must see the files (and a --schema file) at the same paths. The
report is the same as a local run's, in every format; --jobs does not apply.

\b
Secrets in the report (values at secret places, credentials in any string) are shown as masks,
<secret:xxxxxxxx>, a keyed hash: set JOBSCHEMA_MASK_KEY (e.g. a CI secret) for masks that are the
same across runs and machines; unset, each run draws its own key.

\b
Exit codes:
  0  every payload valid (warnings allowed unless --strict)
  1  a payload is invalid or unparsable
  2  usage error, missing input (each named; the others are still checked), unreadable or invalid
     schema, -o naming an input; with --dask: Dask not installed, scheduler unreachable or
     without workers
  130  interrupted (Ctrl-C); SIGTERM stops the worker processes too (exit 143)
"""


@click.command(epilog=_HELP_EPILOG)
@click.argument("inputs", nargs=-1, required=True, metavar="PATH...")
@schema_option(
    "Check every payload against this schema "
    "(a bundled name or a schema file) instead of detecting it from the payload's shape."
)
@click.option(
    "--strict", is_flag=True, help="Report properties the schema does not declare, and fail on warnings."
)
@api_version_option(
    "Check the payloads of API against its VERSION: a property or enum value that version does not "
    "have is an error (not-in-version), and its patterns and bounds apply. Repeat per API "
    "(runai=2.18 ... runai=2.24, aihc=v1 or aihc=v2). Without it, a HAR that holds a cluster's answer "
    "(GET /api/v1/clusters/ID) checks that cluster's workloads against its version; otherwise "
    "against every version at once."
)
@click.option(
    "--skip-unknown",
    is_flag=True,
    help="Skip payloads no bundled schema fits (package.json, tsconfig.json: JSON that is no job "
    "payload), counting them as skipped instead of failing them. For pre-commit hooks.",
)
@format_option(("text", "json", "junit", "github", "sarif"), "Report format (to stdout, or to --output).")
@output_option
@color_option
@click.option("-v", "--verbose", count=True, help="List valid payloads and every sub-error of anyOf/oneOf.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Check files in up to this many processes (this one included); 0: one per CPU not busy with "
    "other work. "
    "Inputs under 4 MiB per process "
    "use fewer (starting one costs more than it saves); stdin and a single JSON or HAR file use one. "
    "An NDJSON file of 16 MiB or more is cut at line starts and checked by all of them (results and "
    "line numbers as in one process).",
)
@click.option(
    "--dask",
    "dask_address",
    metavar="ADDRESS",
    help="Check the files on the Dask cluster whose scheduler is at ADDRESS (tcp://host:port).",
)
@click.option(
    "--dask-timeout",
    type=Seconds(),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="With --dask: how long to wait for the scheduler, then for its first worker.",
)
def validate(
    inputs: tuple[str, ...],
    schema: str | None,
    strict: bool,
    api_versions: tuple[tuple[str, str], ...],
    skip_unknown: bool,
    fmt: str,
    output: Path | None,
    color: str,
    verbose: int,
    jobs: int,
    dask_address: str | None,
    dask_timeout: float,
) -> None:
    """Validate captured Run:ai and AIHC payloads against the bundled schemas."""
    from jobschema.report import SECTIONED, RenderOptions, assemble, render
    from jobschema.validate.rules import catalog
    from jobschema.validate.run import tally_expanded, validate_expanded
    from jobschema.validate.session import Settings

    only_with("dask_timeout", "dask_address")
    expansion, floor = read_inputs(inputs, output, [schema])
    # Only -v text and the machine formats list clean payloads; otherwise they are just counted.
    settings = Settings(schema, strict, skip_unknown, fmt != "text" or verbose > 0, api_versions)
    progress = _progress() if sys.stderr.isatty() and dask_address is None else None
    options = RenderOptions(
        color=fmt == "text" and output is None and use_color(color, sys.stdout),
        verbose=verbose,
        rule_descriptions=catalog.descriptions() if fmt == "sarif" else {},
    )
    if dask_address is not None:
        report = _on_dask(dask_address, dask_timeout, expansion.files, settings)
        text, ok = render(report, fmt, options), report.ok
    elif fmt in SECTIONED:  # each process renders the payloads it checked
        finish = partial(_section, fmt=fmt, options=options)
        sections = tally_expanded(expansion.files, settings, finish, jobs=jobs, progress=progress)
        text, ok = assemble(sections, fmt, options)
    else:
        report = validate_expanded(expansion.files, settings, jobs=jobs, progress=progress)
        text, ok = render(report, fmt, options), report.ok
    if progress is not None:
        click.echo("\r\x1b[K", nl=False, err=True)
    write_output(text, output, options.color)
    raise SystemExit(max(floor, 0 if ok else 1))


def _section(tally: Tally, fmt: str, options: RenderOptions) -> Section:
    """A tally's lines of the report, rendered in the process that checked it."""
    from jobschema.report import render_section

    return render_section(tally.report(), fmt, options)


def _on_dask(address: str, timeout: float, files: list[str], settings: Settings) -> Report:
    """The report of the files checked by the workers of the Dask scheduler at ``address``."""
    from jobschema.inputs.files import STDIN

    if STDIN in files:
        raise click.UsageError("--dask: standard input (-) cannot be sent to Dask workers; name files")
    from jobschema.validate.parallel.dask import connect, validate_expanded

    client = connect(address, timeout)
    try:
        return validate_expanded(files, settings, client)
    finally:
        client.close()


def _progress() -> Callable[[int], None]:
    shown = {"count": 0}

    def update(count: int) -> None:
        if count >= 200 and count - shown["count"] >= 100:
            shown["count"] = count
            click.echo(f"\rchecked {count} payloads", nl=False, err=True)

    return update


_RULES_EPILOG = """\b
Exit codes:
  0  listed
  2  usage error (--schema names no bundled schema)
"""


@click.command(epilog=_RULES_EPILOG)
@click.option(
    "-s",
    "--schema",
    "only",
    metavar="NAME",
    help="Only the checks that apply to payloads of this bundled schema (those of every schema included).",
)
def rules(only: str | None) -> None:
    """List every check that is not a plain JSON Schema keyword: id, severity, schema, description."""
    from jobschema.schemas.registry import BUNDLED
    from jobschema.validate import rules as semantic
    from jobschema.validate.rules import catalog

    if only is not None and only not in BUNDLED:
        from jobschema.schemas.registry import meant

        guess = meant(only)
        hint = f"; did you mean {guess}?" if guess else ""
        raise click.UsageError(f"--schema {only}: not a bundled schema{hint} (one of {', '.join(BUNDLED)})")
    rows = [(rid, sev, "(any)", text) for rid, (sev, text) in sorted(catalog.BUILTIN.items())]
    rows += [
        (r.id, r.severity, r.schema, r.description)
        for r in semantic.all_rules()
        if not only or r.schema == only
    ]
    for rule_id, severity, schema, text in rows:
        click.echo(f"{rule_id:<42} {severity:<8} {schema:<27} {text}")
