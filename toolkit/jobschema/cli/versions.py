"""``jobschema versions``: which Run:ai API versions could have produced each payload."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from jobschema.cli.options import (
    color_option,
    echo_note,
    format_option,
    output_option,
    read_inputs,
    use_color,
    write_output,
)

_EPILOG = """\b
A version accepts a payload when the payload is valid against that version's schema: every property
and enum value is one the version has, and the version's patterns and bounds hold (the schema of each
version comes from its official spec; see 'jobschema schemas annotate-versions'). Cross-field rules
and warnings are the same in every version and decide nothing here. For each version that does not
accept a payload, the first property or value that rules it out is named (else its first error).
A payload whose fields each fit some version but no version all of them ends with the fewest such
fields and the versions each fits alone ('no version has them all: ...'). When every payload fits
some version but no version fits them all, the last line names the fewest payloads that rule each
other out, with their places ('caps.ndjson:1 (2.18-2.23) and caps.ndjson:4 (2.24) rule each other
out'; JSON: summary.conflict).
A HAR that holds a cluster's answer (GET /api/v1/clusters/ID) shows that cluster's version beside
each of its workloads.

Inputs as for validate: files, folders, quoted globs, NDJSON, HAR, - for stdin. Payloads of other
APIs, and HAR entries of other endpoints, are counted as skipped; JSON that is no job payload
(package.json) is accepted by no version unless --skip-unknown. An input that cannot be read, or
that no schema fits, is one line placed where validate places it (FILE:LINE:COLUMN).

\b
Exit codes:
  0  some version accepts every payload (also when there is none)
  1  no version accepts every payload (a payload no version accepts, or an unreadable one)
  2  usage error, missing input (each named; the others are still read), -o naming an input
"""


@click.command(epilog=_EPILOG)
@click.argument("inputs", nargs=-1, required=True, metavar="PATH...")
@format_option(("text", "json"), "Report format (to stdout, or to --output).")
@output_option
@color_option
@click.option(
    "--api",
    type=click.Choice(["runai", "aihc"], case_sensitive=False),
    default="runai",
    show_default=True,
    help="The API whose versions are tried: Run:ai's 2.18-2.24, or AIHC's v1 (job detail) and v2 "
    "(DescribeJob); the other API's payloads are skipped.",
)
@click.option(
    "--skip-unknown",
    is_flag=True,
    help="Count JSON no bundled schema fits (package.json) as skipped, as validate --skip-unknown "
    "does, instead of as a payload no version accepts.",
)
def versions(
    inputs: tuple[str, ...], fmt: str, output: Path | None, color: str, api: str, skip_unknown: bool
) -> None:
    """List the Run:ai (or --api aihc: AIHC) versions that accept each payload, and why others do not."""
    from jobschema import __version__
    from jobschema.inputs.read import read_payloads
    from jobschema.report.versions import render
    from jobschema.schemas.versions import label
    from jobschema.validate.accepted import judge

    expansion, floor = read_inputs(inputs, output)
    judged = judge(read_payloads(expansion.files), api.lower(), skip_unknown=skip_unknown)
    if not judged.verdicts:
        other = "aihc" if judged.api == "runai" else "runai"
        hint = f"--api {other} judges {label(other)}'s" if judged.skipped else "nothing was read"
        echo_note(f"no {label(judged.api)} payload in the inputs ({hint})")
    painted = fmt == "text" and output is None and use_color(color, sys.stdout)
    write_output(render(judged, fmt, __version__, painted), output, painted)
    raise SystemExit(max(floor, 0 if judged.accepted_by_all else 1))
