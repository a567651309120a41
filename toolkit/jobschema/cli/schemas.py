"""``jobschema schemas``: list the bundled schemas, or print one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from jobschema.cli.options import output_option_saying
from jobschema.errors import SchemaInvalid
from jobschema.schemas import registry

_EPILOG = """\b
Exit codes:
  0  listed or printed
  2  usage error, no such schema, unreadable schema file
"""

_SHOW_EPILOG = f"""\b
The schemas of the reports' -f json formats are bundled too:
  {", ".join(registry.REPORTS)}
  jobschema schemas show validate-report > validate-report.schema.json

{_EPILOG}"""


class _Group(click.Group):
    """Lists its commands with their whole summaries (click cuts them at 45 characters)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, command.get_short_help_str(200)) for name, command in sorted(self.commands.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_Group, invoke_without_command=True, epilog=_EPILOG)
@click.pass_context
def schemas(ctx: click.Context) -> None:
    """List the bundled schemas (name and title); 'schemas show NAME' prints one."""
    if ctx.invoked_subcommand is None:
        for name in registry.BUNDLED:
            click.echo(f"{name:<28} {registry.load(name).title}")


@schemas.command("show", epilog=_SHOW_EPILOG)
@click.argument("name")
@output_option_saying(
    "Write the schema to FILE instead of stdout (- is stdout); never over the schema itself."
)
def show(name: str, output: Path | None) -> None:
    """Print the schema NAME (a bundled name, a report format's, or a schema file) exactly as stored.

    A credential in a schema file (a default, an example) is masked as jobschema redact masks it,
    every other byte kept, with a note on stderr."""
    from jobschema.cli.options import refuse_overwriting_inputs, write_output
    from jobschema.errors import SchemaNotFound
    from jobschema.inputs.side import SideFile, read_side_bytes

    # (a bundled name wins over a file of that name, as everywhere)
    known = (*registry.BUNDLED, *registry.REPORTS)
    if name not in known and (not name or not os.path.lexists(name)):
        raise SchemaNotFound(registry.no_such_schema(name, known))
    path = registry.bundled_path(name) if name in registry.REPORTS else registry.load(name).path
    refuse_overwriting_inputs(output, [path])
    # the bytes as stored (line ends, a BOM), read as the schema just was (a regular file only), but
    # for a credential a schema file of the user's holds (a default, an example): masked, as every output
    data = read_side_bytes(SideFile(path, "the schema", SchemaInvalid))
    write_output(_masked(data, name), output)


def _masked(data: bytes, name: str) -> bytes:
    """``data`` with its secrets masked as ``jobschema redact`` masks them (every other byte kept), and
    a note on stderr naming how many; unchanged when it holds none (every bundled schema)."""
    from jobschema.cli.options import echo_note
    from jobschema.redact.core import redact_bytes

    redacted = redact_bytes(data)
    if redacted.problems:  # (nested too deeply to walk: every credential shape in the text, then)
        from jobschema.secrets.reading import scrub

        text = data.decode("utf-8", "surrogateescape")
        masked = scrub(text)
        if masked != text:
            echo_note(f"{name}: secrets masked, as jobschema redact masks them")
        return masked.encode("utf-8", "surrogateescape")
    if not redacted.changed:
        return data
    count = len(redacted.secrets)
    echo_note(f"{name}: {count} secret{'s' if count != 1 else ''} masked, as jobschema redact masks them")
    return redacted.text.encode("utf-8")


_ANNOTATE_EPILOG = """\b
For maintainers, in a source checkout: the official spec of every version is vendored in
schemas/official/API/VERSION.json (see its README). This writes the x-jobschema-since/-until,
-enum-since/-until and -by-version annotations of the bundled schemas of API from them, then
derives each version's schema back and compares it with that version's spec. A spec that holds
what the schema cannot say yet (a property or enum value it lacks, a changed type, a shared
definition whose places now differ) is named, and nothing is written.

\b
Exit codes:
  0  written (or, with --check, up to date)
  1  --check: a schema's annotations are stale; or the specs need the schema extended first
  2  usage error, no vendored specs (not a source checkout), unreadable spec
"""


@schemas.command("annotate-versions", epilog=_ANNOTATE_EPILOG)
@click.option("--api", default="runai", show_default=True, help="The API whose schemas to annotate.")
@click.option("--check", is_flag=True, help="Change nothing; exit 1 and name the stale schemas if any.")
@click.option(
    "--add",
    metavar="API=VERSION",
    help="First vendor --spec as this version of its API (then annotate that API).",
)
@click.option(
    "--spec",
    "spec_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --add: the whole official spec (JSON or YAML), e.g. runapy's .generator/swagger.json.",
)
@click.option("--commit", default="", help="With --add: the commit the spec was taken from.")
@click.option("--client", default="", help="With --add: the version of the client the spec came with.")
def annotate_versions(
    api: str, check: bool, add: str | None, spec_file: Path | None, commit: str, client: str
) -> None:
    """Write the version annotations of the bundled schemas from the vendored official specs."""
    from jobschema.cli.options import only_with
    from jobschema.schemas import annotate, history, official

    for dependent in ("spec_file", "commit", "client"):
        only_with(dependent, "add")
    if add is not None:
        api, version = _added(add, spec_file, check)
        assert spec_file is not None
        source = {
            "repository": "https://github.com/runai-professional-services/runapy",
            "commit": commit,
            "path": ".generator/swagger.json",
            "client": client,
            "license": "Apache-2.0",
        }
        click.echo(f"wrote {_shown(annotate.add_version(api, version, spec_file, source))}")
    if api not in official.ENDPOINTS:
        raise click.UsageError(
            f"--api {api}: no official specs are vendored for it ({', '.join(official.ENDPOINTS)})"
        )
    written = annotate.annotate(api, check)
    stale = [item for item in written if item.changed]
    for item in written:
        state = ("stale" if check else "wrote") if item.changed else "up to date"
        click.echo(f"{state}: {_shown(item.path)}")
    if add is not None:
        added = add.partition("=")[2]
        for item in written:
            document = json.loads(item.path.read_text(encoding="utf-8"))
            for change in history.history_of(document):
                if change.version == added:
                    click.echo(f"  {item.path.name.removesuffix('.schema.json')} {history.describe(change)}")
    if check and stale:
        click.echo(f"{len(stale)} schema(s) out of date; run 'jobschema schemas annotate-versions'", err=True)
        raise SystemExit(1)


def _added(add: str, spec_file: Path | None, check: bool) -> tuple[str, str]:
    api, _, version = add.partition("=")
    if not api or not version:
        raise click.UsageError(f"--add {add}: give API=VERSION, e.g. runai=2.25")
    if spec_file is None:
        raise click.UsageError("--add needs --spec FILE")
    if check:
        raise click.UsageError("--add writes files; it cannot go with --check")
    return api, version


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
