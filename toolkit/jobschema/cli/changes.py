"""``jobschema changes``: what changed between two API versions or two schemas, for a reader of the
responses; a thin layer over :mod:`jobschema.changes`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from jobschema.cli.options import (
    alone,
    color_option,
    echo_error,
    echo_note,
    format_option,
    output_option,
    read_inputs,
    refuse_one_file_twice,
    refuse_overwriting_inputs,
    use_color,
    write_output,
)

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit")
_EPILOG = """\b
OLD and NEW:
  runai@2.19, runai@2.19.3      every bundled schema of the API as that version has it
  runai-distributed-workload@2.24   one bundled schema, as that version has it
  runai, aihc-job-detail        bundled schemas as stored (every version at once)
  FILE, FILE#POINTER            a JSON Schema file; the schema at a JSON Pointer inside a document
                                (openapi.json#/components/schemas/DistributedWorkload)

\b
Classes, judged from the side of a program that reads the responses:
  breaking  breaks every reader: a property removed, a type or format changed or dropped, a type
            widened, a value becoming nullable or optional, an enum value added or the enum dropped
            (a reader's switch, or a closed enum such as runapy's, fails on a value it never saw)
  strict    breaks readers that take the schema as closed (extra=forbid models such as jobschema's,
            validating readers): a property added to a closed object, a pattern or bound loosened
  info      a deprecation, a changed description
  safe      an optional property added where others are allowed, a constraint tightened (an enum
            value removed: a reader that handles it still reads every value)
Equivalence is decided on values: a pattern ".*" added to a string is no change. `jobschema changes
--rules` lists every rule.

Every breaking and strict change gets a witness: a small payload one side accepts and the other
rejects (NEW accepts it for an addition, OLD for a removal), checked against both as validate does.
--witness DIR writes them, one JSON file each, for a consumer's own tests.

CAPTURES (files, folders, quoted globs, NDJSON, HAR, - for stdin, as validate reads them): each change
says how many captured payloads carry the place it touches (for an added property: the object that
holds it), and for an enum value or null, how many carry that value there.

A baseline (--baseline FILE) accepts changes by fingerprint, one per line (# starts a comment):
accepted changes are reported but do not fail the run. --write-baseline FILE writes one accepting
every breaking and strict change found. A change's fingerprint is the same on every run and machine.

\b
Exit codes:
  0  no change fails the run (--fail-on, less the baseline)
  1  a change at or above --fail-on that the baseline does not accept
  2  usage error, unknown version or schema, unreadable schema or baseline, a capture missing or
     unreadable (each named; the others are still counted)
"""


@click.command(epilog=_EPILOG)
@click.argument("old", required=False)
@click.argument("new", required=False)
@click.argument("captures", nargs=-1, metavar="[CAPTURES]...")
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "strict", "never"]),
    default="breaking",
    show_default=True,
    help="Exit 1 when a change of this class (strict: or breaking) is found and not in the baseline.",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Accept the changes whose fingerprints this file lists: reported, never failing.",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a baseline accepting every breaking and strict change found, then report as usual.",
)
@click.option("--only-used", is_flag=True, help="Hide changes to places no captured payload carries.")
@click.option(
    "--witness",
    "witness_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write each witness payload to this folder (created if missing), one JSON file per change.",
)
@click.option("--no-witnesses", is_flag=True, help="Skip the witnesses (faster; no proof per change).")
@click.option("--rules", "list_rules", is_flag=True, help="List every rule with its class, then exit.")
@format_option(
    ("text", "json", "markdown", "github", "sarif", "junit"), "Report format (to stdout, or to --output)."
)
@output_option
@color_option
@click.option("-v", "--verbose", is_flag=True, help="List the safe changes too (text and markdown).")
def changes(
    old: str | None,
    new: str | None,
    captures: tuple[str, ...],
    fail_on: str,
    baseline: Path | None,
    write_baseline: Path | None,
    only_used: bool,
    witness_dir: Path | None,
    no_witnesses: bool,
    list_rules: bool,
    fmt: str,
    output: Path | None,
    color: str,
    verbose: bool,
) -> None:
    """List what changed between two API versions or schemas and which changes break readers.

    OLD and NEW are two API versions or two schemas; each change is judged for code that reads the
    responses, with a witness payload for each and its impact on CAPTURES."""
    if list_rules:
        alone("list_rules")
        _list_rules()
        return
    if old is None or new is None:
        raise click.UsageError("give OLD and NEW (runai@2.19 runai@2.24, or two schema files)")
    if only_used and not captures:
        raise click.UsageError("--only-used needs CAPTURES: the payloads whose places count")
    if witness_dir is not None and no_witnesses:
        raise click.UsageError("--witness DIR and --no-witnesses contradict each other")
    from jobschema.errors import require_extra

    if not no_witnesses:
        require_extra("changes", "hypothesis (the witnesses' and patterns' search)", ["hypothesis"])
    from jobschema import __version__
    from jobschema.changes import sides_of
    from jobschema.changes.report import render
    from jobschema.changes.run import Options, baseline_text, read_baseline, run
    from jobschema.changes.search import cache_home
    from jobschema.changes.write import write_text, write_witnesses
    from jobschema.inputs.files import named

    expansion, floor = read_inputs(captures)
    files = tuple(expansion.files)
    _refuse_overwriting(
        old, new, files, baseline, {"-o/--output": output, "--write-baseline": write_baseline}
    )
    pairs = sides_of(old, new)
    accepted = read_baseline(baseline) if baseline is not None else frozenset()
    options = Options(files, only_used, fail_on, accepted, not no_witnesses)  # type: ignore[arg-type]
    with cache_home():
        outcome = run(pairs, options)
    for note in outcome.notes:
        echo_note(note)
    for problem in outcome.problems:  # (placed and worded as validate and coverage say it)
        echo_error(f"{problem}; not counted")
    floor = max(floor, 2 if outcome.unread else 0)
    if write_baseline is not None:
        write_text(write_baseline, baseline_text(outcome))
    if witness_dir is not None:
        written = write_witnesses(witness_dir, outcome)
        echo_note(f"{written} witness file(s) written to {named(witness_dir)}")
    painted = fmt == "text" and output is None and use_color(color, sys.stdout)
    write_output(render(outcome, fmt, __version__, verbose=verbose, color=painted), output, painted)
    raise SystemExit(max(floor, 1 if outcome.failed else 0))


def _refuse_overwriting(
    old: str, new: str, captures: tuple[str, ...], baseline: Path | None, outputs: dict[str, Path | None]
) -> None:
    """No file this run writes is one it reads (a schema, a capture, the baseline), nor written twice."""
    refuse_one_file_twice(outputs)
    sides = [old, new, old.split("#", 1)[0], new.split("#", 1)[0]]  # (FILE#POINTER reads FILE)
    inputs = [*sides, baseline, *captures]
    for option, path in outputs.items():
        refuse_overwriting_inputs(path, inputs, option)


def _list_rules() -> None:
    from jobschema.changes.compare import KINDS, RULES

    for kind in KINDS:
        for rule, (cls, meaning) in sorted(RULES.items()):
            if cls == kind:
                click.echo(f"{kind:8}  {rule:30}  {meaning}")
