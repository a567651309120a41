"""``jobschema generate``: write the models in ``generated/`` from ``schemas/``, or check they are current."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jobschema.cli.options import echo_error
from jobschema.schemas.registry import schemas_dir

if TYPE_CHECKING:
    from jobschema.schemas.codegen import StaleFile


def _default_generated_dir() -> Path:
    spec = importlib.util.find_spec("jobschema.models")
    if spec is None or not spec.submodule_search_locations:
        raise click.UsageError("cannot find the 'jobschema.models' package; pass --output-dir")
    return Path(next(iter(spec.submodule_search_locations)))


_EPILOG = """\b
Examples:
  jobschema generate --check          in CI: exit 1 when generated/ is not what schemas/ writes
  jobschema generate --check --diff   the same, with a unified diff of each stale file
  jobschema generate                  rewrite the stale modules of generated/ (in a checkout)

\b
Exit codes:
  0  generated (or, with --check, up to date)
  1  --check: a generated file is stale, missing, or written by no schema
  2  usage error; a schema that is not JSON or not a valid JSON Schema (named with its line and
     column); datamodel-code-generator or ruff not installed at the versions the codegen extra
     pins (pip install 'jobschema[codegen]'), or the generator failing on a schema; a file that
     cannot be written
"""


@click.command(epilog=_EPILOG)
@click.option("--check", is_flag=True, help="Change nothing; exit 1 and name the stale files if any.")
@click.option(
    "--diff", "show_diff", is_flag=True, help="With --check: also print a unified diff of each stale file."
)
@click.option(
    "--schemas-dir",
    "source_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of *.schema.json files [default: the bundled schemas/].",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of the generated models [default: jobschema.models, generated/jobschema/models].",
)
def generate(check: bool, show_diff: bool, source_dir: Path | None, output_dir: Path | None) -> None:
    """Regenerate the Pydantic models in generated/jobschema/models from the schemas.

    Runs datamodel-code-generator (the 'codegen' extra) with the options pinned in
    toolkit/jobschema/schemas/codegen.py. With --check, exits 1 when the models do not match the
    schemas; the messages name both folders compared. The folder is wholly generated: a module no
    schema writes (its schema removed or renamed) is stale, and writing removes it (one the generator
    did not write is named and kept: exit 2, nothing written). Outside a
    checkout (an installed package), the models are those installed: --check compares them with the
    installed schemas, and writing them needs --output-dir.
    """
    from jobschema.cli.options import only_with
    from jobschema.schemas import codegen

    only_with("show_diff", "check")
    source = source_dir or schemas_dir()
    target = output_dir or _default_generated_dir()
    shown = _shown(target)
    if not check and output_dir is None and not _in_checkout(target):
        raise click.UsageError(
            f"{shown}: the installed models, not a checkout's generated/; "
            "pass --output-dir to write models elsewhere"
        )
    try:
        if check:
            _check(codegen.stale_files(source, target, shown), shown, show_diff)
            click.echo(f"{shown}/ is up to date with {_shown(source)}/")
            return
        changed = codegen.write_files(source, target)
    except codegen.CodegenError as err:  # (each problem its own line; what was written is said first)
        _said(err.written, shown)
        for problem in err.problems:
            echo_error(problem)
        raise SystemExit(err.exit_code) from None
    _said(changed, shown)
    if not changed:
        click.echo(f"{shown}/ is up to date with {_shown(source)}/")


def _check(stale: list[StaleFile], shown: str, show_diff: bool) -> None:
    """Name each stale file (and show its diff); exit 1 when there is one."""
    for item in stale:
        click.echo(f"stale: {shown}/{item.name}{_why(item)}")
        if show_diff:
            click.echo(item.diff, nl=False)
    if not stale:
        return
    todo = "run 'jobschema generate'"
    if any(item.foreign for item in stale):
        todo = f"move out the modules datamodel-codegen did not write, then {todo}"
    click.echo(f"{len(stale)} generated file(s) out of date; {todo}", err=True)
    raise SystemExit(1)


def _why(item: StaleFile) -> str:
    """What follows a stale file's name: why it is stale, when its diff alone would not say."""
    if item.foreign:
        return f" ({_ORPHAN}, and datamodel-codegen did not write it: move it out of the folder)"
    if item.orphan:
        return f" ({_ORPHAN})"
    return " (missing)" if item.missing else ""


def _said(items: Sequence[StaleFile], shown: str) -> None:
    for item in items:
        click.echo(f"{'removed' if item.orphan else 'wrote'} {shown}/{item.name}")


#: Why a module no schema writes is stale.
_ORPHAN = "no schema writes it"


def _shown(path: Path) -> str:
    """A folder as messages name it: relative to the working directory when inside it, else whole."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(resolved)


def _in_checkout(target: Path) -> bool:
    """``target`` is a checkout's ``generated/jobschema/models`` (beside its ``pyproject.toml``), not
    the copy an installed package carries in site-packages."""
    resolved = target.resolve()
    return (
        resolved.parts[-3:-1] == ("generated", "jobschema")
        and (resolved.parents[2] / "pyproject.toml").is_file()
    )
