"""``jobschema coverage``: which schema properties and enum values a corpus exercises, and its drift."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from jobschema.cli.options import (
    api_version_option,
    color_option,
    echo_error,
    echo_note,
    format_option,
    output_option,
    read_inputs,
    schema_option,
    use_color,
    write_output,
)

_HELP_EPILOG = """\b
Inputs: as for jobschema validate: files, folders (recursive: *.json, *.ndjson, *.jsonl, *.har),
quoted globs, and - for stdin. The schema of each payload is detected from its shape (--schema
forces one). Documents embedded in strings (the AIHC raw-request annotation) are counted in a
section of their own, "aihc-raw-request (embedded)". Every count is a number of payloads.
Payloads that do not parse or fit no schema are counted as unrecognised (not fatal); each one
that cannot be read or parsed is named on stderr, one line each, with its problem.

\b
Exit codes:
  0  report written
  1  --fail-on-undeclared, and a payload has a property its schema does not declare
  2  usage error, missing input (each named; the others are still read), unreadable schema,
     -o naming an input
"""


@click.command("coverage", epilog=_HELP_EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True, metavar="PATH...")
@schema_option(
    "Count every payload against this schema (a bundled name or a schema file) "
    "instead of detecting it from the payload's shape."
)
@format_option(
    ("text", "json", "markdown"),
    "Report format (to stdout, or to --output); markdown fits a pull-request comment.",
)
@output_option
@api_version_option(
    "Count each payload of API against this version's schema (runai=2.19; repeatable, one per "
    "API): its properties and values are that version's, a property of another version is drift."
)
@click.option(
    "--fail-on-undeclared",
    is_flag=True,
    help="Exit 1 when a payload has a property its schema does not declare (API drift), for CI.",
)
@color_option
@click.option("-v", "--verbose", count=True, help="Also list every property and enum value with its counts.")
def coverage_command(
    inputs: tuple[str, ...],
    schema: str | None,
    fmt: str,
    output: Path | None,
    api_versions: tuple[tuple[str, str], ...],
    fail_on_undeclared: bool,
    color: str,
    verbose: int,
) -> None:
    """Report which schema properties and enum values a corpus of payloads exercises, and its drift."""
    from jobschema.coverage.collect import coverage_files
    from jobschema.coverage.report import render
    from jobschema.errors import ToolkitError

    try:
        expansion, floor = read_inputs(inputs, output, [schema])
        report = coverage_files(expansion.files, schema, api_versions=api_versions)
    except ToolkitError as err:  # as the jobschema group does, so the command behaves the same alone
        echo_error(str(err))
        sys.exit(err.exit_code)
    for unread in report.unread:
        echo_note(f"{unread} (counted as unrecognised)")
    painted = fmt == "text" and output is None and use_color(color, sys.stdout)
    write_output(render(report, fmt, verbose, painted), output, painted)
    raise SystemExit(max(floor, 1 if fail_on_undeclared and report.drift else 0))
