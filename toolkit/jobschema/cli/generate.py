"""``jobschema generate``: write the models in ``generated/`` from ``schemas/``, or check they are current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click

from jobschema.schemas.registry import schemas_dir


def _default_generated_dir() -> Path:
    spec = importlib.util.find_spec("jobschema.models")
    if spec is None or not spec.submodule_search_locations:
        raise click.UsageError("cannot find the 'jobschema.models' package; pass --output-dir")
    return Path(next(iter(spec.submodule_search_locations)))


_EPILOG = """\b
Exit codes:
  0  generated (or, with --check, up to date)
  1  --check: a generated file is stale or missing
  2  usage error, datamodel-code-generator missing or failing on a schema
"""


@click.command(epilog=_EPILOG)
@click.option("--check", is_flag=True, help="Change nothing; exit 1 and name the stale files if any.")
@click.option(
    "--diff", "show_diff", is_flag=True, help="With --check, also print a unified diff of each stale file."
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
    toolkit/jobschema/schemas/codegen.py. With --check, exits 1 when generated/ does not match the schemas.
    """
    from jobschema.schemas import codegen

    source = source_dir or schemas_dir()
    target = output_dir or _default_generated_dir()
    if check:
        stale = codegen.stale_files(source, target)
        for item in stale:
            click.echo(f"stale: {codegen.SHOWN}/{item.name}")
            if show_diff:
                click.echo(item.diff, nl=False)
        if stale:
            click.echo(f"{len(stale)} generated file(s) out of date; run 'jobschema generate'", err=True)
            raise SystemExit(1)
        click.echo(f"{codegen.SHOWN}/ is up to date")
        return
    changed = codegen.write_files(source, target)
    for name in changed:
        click.echo(f"wrote {codegen.SHOWN}/{name}")
    if not changed:
        click.echo(f"{codegen.SHOWN}/ is up to date")
