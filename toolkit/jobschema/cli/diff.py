"""``jobschema diff``: what changed between two snapshots, between roles, or along a history."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from jobschema.cli.options import (
    color_option,
    echo_error,
    echo_note,
    format_option,
    output_option,
    refuse_overwriting_inputs,
    schema_option,
    use_color,
    write_output,
)

_EPILOG = """\b
Modes (one at a time; options may come anywhere):
  jobschema diff LEFT RIGHT          two snapshots of one job (files or -)
  jobschema diff --roles FILE        master vs workers inside one payload
  jobschema diff --history FILE      consecutive snapshots in an NDJSON file or a HAR (a
                                     recording), or in a folder's files, each job followed
                                     apart; a snapshot that cannot be read is named on stderr,
                                     the others compared (exit 2); an error answer is named
                                     (note:) and passed over

\b
Volatile: server-populated fields that change by themselves without telling anything about the
job's state (timestamps, request ids, pod IPs, nodes, uids; marked in the schemas).
--ignore-volatile drops them; phases, statuses, pod statuses, restart counts and reasons are the
job's state and always show (record --ignore-volatile means the same).

\b
Lists are matched by the keys the schemas declare (env vars by name, pods by name, ...), so a
reordered list is no change. Values compare by meaning (1 == 1.0, "1Gi" == "1073741824") unless
--exact. Secret values are masked in every format unless --show-secrets: <secret:xxxxxxxx>, a
keyed hash, the same on both sides for the same value; set JOBSCHEMA_MASK_KEY for masks that are
the same across runs and machines (unset, each run draws its own key).

\b
-f patch writes an RFC 6902 JSON Patch (add, remove, replace by position, computed by deepdiff)
that turns LEFT into RIGHT exactly, secrets masked in both unless --show-secrets; exit 0 when it
is empty. Apply it with any JSON Patch tool (python -m jsonpatch, jq, kubectl patch --type json).

\b
Exit codes:
  0  same
  1  different
  2  error: missing file, unparsable input, different APIs, -o naming an input or a
     file inside the folder --history reads (the next run would read it as a snapshot)
  130  interrupted (Ctrl-C); SIGTERM exits 143
"""


@click.command(epilog=_EPILOG)
@click.argument("files", nargs=-1, metavar="LEFT RIGHT | FILE")
@click.option("--roles", is_flag=True, help="Compare the roles (master vs workers) inside FILE.")
@click.option(
    "--history",
    is_flag=True,
    help="Compare the consecutive snapshots in FILE (NDJSON, or a HAR of a recording), or in the files "
    "of a folder (in name order, snap-2 before snap-10).",
)
@schema_option("Use this schema instead of detecting it.")
@click.option(
    "--ignore",
    multiple=True,
    metavar="PATTERN",
    help="Drop changes under pointers matching PATTERN (glob; repeatable): /result/podList/pods/*/PodIP",
)
@click.option("--only", multiple=True, metavar="PATTERN", help="Keep only changes under matching pointers.")
@click.option(
    "--ignore-volatile",
    is_flag=True,
    help="Drop server-populated fields (timestamps, IPs, ...); phases and statuses always show.",
)
@click.option("--exact", is_flag=True, help='Compare values as written: 1 != 1.0, "1Gi" != "1073741824".')
@click.option("--show-secrets", is_flag=True, help="Show secret values instead of their masks.")
@format_option(
    ("text", "json", "markdown", "patch"),
    "Report format; patch: an RFC 6902 JSON Patch that turns LEFT into RIGHT.",
)
@output_option
@click.option("--stat", "stat_only", is_flag=True, help="Only counts of changes per top-level section.")
@color_option
def diff(
    files: tuple[str, ...],
    roles: bool,
    history: bool,
    schema: str | None,
    ignore: tuple[str, ...],
    only: tuple[str, ...],
    ignore_volatile: bool,
    exact: bool,
    show_secrets: bool,
    fmt: str,
    output: Path | None,
    stat_only: bool,
    color: str,
) -> None:
    """Compare job payloads: two snapshots, the roles of one job, or a job's history."""
    from jobschema.diff import DiffOptions
    from jobschema.diff.documents import collector_paused
    from jobschema.diff.render import render

    options = DiffOptions(
        exact=exact, ignore_volatile=ignore_volatile, ignore=ignore, only=only, show_secrets=show_secrets
    )
    inputs = list(files)
    refuse_overwriting_inputs(output, [*inputs, schema])
    if history:
        _refuse_writing_into_history(output, inputs)
    _refuse_empty_patterns(ignore, only)
    if fmt == "patch":
        _patch_usage(_mode(roles, history, files), ignore, only, ignore_volatile, exact, stat_only)
        with _too_deep(inputs):
            same = _write_patch(files, schema, show_secrets, output)
        raise SystemExit(0 if same else 1)
    painted = fmt == "text" and output is None and use_color(color, sys.stdout)
    with _too_deep(inputs), collector_paused():  # nothing the diff builds is a cycle
        result, unreadable = _run(files, _mode(roles, history, files), schema, options)
        text = render(result, fmt, color=painted, stat_only=stat_only, reveal=show_secrets)
    for problem in unreadable:  # (a history's snapshots that cannot be read: the others are compared)
        echo_error(problem)
    write_output(text, output, painted)
    raise SystemExit(2 if unreadable else 0 if result.same else 1)


@contextlib.contextmanager
def _too_deep(inputs: list[str]) -> Iterator[None]:
    """JSON nested deeper than Python's recursion limit lets the diff (or the patch) follow: one
    line naming the inputs, exit 2, in every format."""
    try:
        yield
    except RecursionError:
        from jobschema.diff.documents import DiffInputError
        from jobschema.inputs.files import named

        raise DiffInputError(f"{' and '.join(map(named, inputs))}: nested too deeply to compare") from None


def _refuse_writing_into_history(output: Path | None, inputs: list[str]) -> None:
    """A report written into (or below) the folder ``--history`` reads would be read as a snapshot by
    the next run over that folder: a usage error, before anything is read or written."""
    import os

    from jobschema.inputs.files import named

    if output is None:
        return
    spelled, where = Path(os.path.abspath(output)), Path(os.path.realpath(output))  # noqa: PTH100
    for name in inputs:
        if name == "-" or not Path(name).is_dir():
            continue
        # (as spelled: a link in the folder to a file elsewhere is read too; resolved: a link to it)
        if spelled.is_relative_to(os.path.abspath(name)) or where.is_relative_to(os.path.realpath(name)):  # noqa: PTH100
            raise click.UsageError(
                f"{named(str(output))}: -o/--output is inside the folder --history reads ({named(name)}), "
                "whose next run would read the report as a snapshot; write it outside the folder"
            )


def _refuse_empty_patterns(ignore: tuple[str, ...], only: tuple[str, ...]) -> None:
    """An empty pattern selects the whole document: ``--ignore "$UNSET"`` would make every run "same"."""
    import json

    for option, patterns in (("--ignore", ignore), ("--only", only)):
        for pattern in patterns:
            if not pattern:
                raise click.UsageError(
                    f"{option} {json.dumps(pattern)}: an empty pattern would select the whole document "
                    "(an unset variable?); give a pointer such as /result/podList/pods/*/PodIP, or / for "
                    "everything"
                )


def _patch_usage(mode: str, *given: Any) -> None:
    if mode != "snapshots":
        raise click.UsageError(f"-f patch turns LEFT into RIGHT: it does not apply to --{mode}")
    if any(given):
        raise click.UsageError(
            "-f patch turns LEFT into RIGHT exactly: --ignore, --only, --ignore-volatile, --exact and "
            "--stat do not apply"
        )


def _write_patch(files: tuple[str, ...], schema: str | None, show_secrets: bool, output: Path | None) -> bool:
    """Write the JSON Patch of LEFT to RIGHT; True when it is empty (the documents are the same text)."""
    import json

    from jobschema.diff.patch import document_patch
    from jobschema.inputs.files import named

    if files.count("-") > 1:
        raise click.UsageError("only one side can be - (stdin)")
    left, right = _load_both(files)
    _schemas_fit(files[:2], (left, right), schema)
    labels = (named(files[0]), named(files[1]))  # (as errors name a file: masked, escaped)
    operations = document_patch(left, right, schema=schema, show_secrets=show_secrets, labels=labels)
    write_output(json.dumps(operations, indent=2, ensure_ascii=False) + "\n", output)
    return not operations


def _load_both(files: tuple[str, ...]) -> tuple[Any, Any]:
    """LEFT and RIGHT parsed; when either cannot be read, one line names each that cannot (the first
    on stderr here, the last as the run's error): one bad input does not hide the other."""
    from jobschema.diff.documents import DiffInputError, load_document

    values: list[Any] = []
    problems: list[DiffInputError] = []
    for name in files[:2]:
        try:
            values.append(load_document(name))
        except DiffInputError as err:
            problems.append(err)
    _each_named(problems)
    return values[0], values[1]


def _each_named(problems: list[Any]) -> None:
    """The first problems on stderr, one line each, the last raised as the run's error (one file given
    as both sides is named once)."""
    problems = list({str(problem): problem for problem in problems}.values())
    for problem in problems[:-1]:
        echo_error(str(problem))
    if problems:
        raise problems[-1]


def _schemas_fit(files: tuple[str, ...], values: tuple[Any, Any], schema: str | None) -> None:
    """A line naming each side no schema fits (before the comparison, which names only the first)."""
    from jobschema.diff.compare import schema_of
    from jobschema.diff.documents import DiffInputError
    from jobschema.inputs.files import named

    problems: list[DiffInputError] = []
    for name, value in zip(files, values, strict=True):
        try:
            schema_of(value, schema, named(name))
        except DiffInputError as err:
            problems.append(err)
    if len(problems) > 1:
        _each_named(problems)


def _mode(roles: bool, history: bool, files: tuple[str, ...]) -> str:
    """The mode the flags name, once the arguments fit it (a usage error otherwise)."""
    if roles and history:
        raise click.UsageError("--roles and --history are two modes: give one")
    mode = "roles" if roles else "history" if history else "snapshots"
    if mode != "snapshots" and len(files) != 1:
        raise click.UsageError(f"--{mode} compares inside one FILE; {len(files)} given")
    if mode == "snapshots" and len(files) != 2:
        raise click.UsageError(
            "give LEFT RIGHT (two snapshots), or --roles FILE, or --history FILE; "
            f"{len(files)} file{'' if len(files) == 1 else 's'} given"
        )
    return mode


def _run(files: tuple[str, ...], mode: str, schema: str | None, options: Any) -> tuple[Any, tuple[str, ...]]:
    """The comparison, and the lines naming what could not be read in a history (compared without)."""
    from jobschema.diff.documents import load_document
    from jobschema.inputs.files import named

    if mode == "roles":
        from jobschema.diff.roles import diff_roles

        document = load_document(files[0])
        return diff_roles(document, schema=schema, options=options, label=named(files[0])), ()
    if mode == "history":
        from jobschema.diff.history import diff_history, read_history

        snapshots = read_history(files[0], skip_unreadable=True)
        result = diff_history(snapshots, schema=schema, options=options)
        for answer in result.passed_over:  # (error answers: read, and no snapshot of the job)
            echo_note(answer)
        passed = set(result.passed_over)  # (what could not be read, and what no schema fits)
        return result, tuple(warning for warning in result.warnings if warning not in passed)
    if files.count("-") > 1:
        raise click.UsageError("only one side can be - (stdin)")
    from jobschema.diff import diff_documents

    left, right = _load_both(files)
    _schemas_fit(files[:2], (left, right), schema)
    labels = (named(files[0]), named(files[1]))  # (as errors name a file: masked, escaped)
    return diff_documents(left, right, schema=schema, options=options, labels=labels), ()
