"""``jobschema schemas``: list the bundled schemas, or print one."""

from __future__ import annotations

import click

from jobschema.schemas import registry

_EPILOG = """\b
Exit codes:
  0  listed or printed
  2  usage error, no such schema, unreadable schema file
"""


@click.group(invoke_without_command=True, epilog=_EPILOG)
@click.pass_context
def schemas(ctx: click.Context) -> None:
    """List the bundled schemas (name and title); 'schemas show NAME' prints one."""
    if ctx.invoked_subcommand is None:
        for name in registry.BUNDLED:
            click.echo(f"{name:<28} {registry.load(name).title}")


@schemas.command("show", epilog=_EPILOG)
@click.argument("name")
def show(name: str) -> None:
    """Print the schema NAME (a bundled name or a schema file) exactly as stored."""
    schema = registry.load(name)
    click.echo(schema.path.read_text(encoding="utf-8"), nl=False)
