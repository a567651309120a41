"""Options and output helpers shared by the commands."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, TypeVar

import click

from jobschema.errors import ToolkitError

F = TypeVar("F", bound=Callable[..., Any])


class OutputError(ToolkitError):
    """The report cannot be written to ``--output`` (exit 2: a tool error, not a finding)."""


color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text report: auto colours a terminal unless NO_COLOR is set.",
)


output_option = click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the report to FILE instead of stdout (only once the run has finished).",
)


def format_option(choices: tuple[str, ...], help_text: str) -> Callable[[F], F]:
    """``-f/--format`` with ``choices`` (the first is the default), stored as ``fmt``."""
    return click.option(
        "-f",
        "--format",
        "fmt",
        type=click.Choice(choices),
        default=choices[0],
        show_default=True,
        help=help_text,
    )


def schema_option(help_text: str) -> Callable[[F], F]:
    """``-s/--schema NAME|PATH``: a bundled schema name or a schema file, instead of detection."""
    return click.option("-s", "--schema", metavar="NAME|PATH", help=help_text)


def use_color(choice: str, stream: TextIO) -> bool:
    """Resolve ``--color`` for ``stream``: auto means a terminal and no ``NO_COLOR``."""
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def write_output(text: str, output: Path | None, color: bool = False) -> None:
    """Write the finished report to ``output`` (atomically), or to stdout (keeping colour when asked)."""
    if output is None:
        click.echo(text, nl=False, color=color)
        return
    tmp = output.with_name(f".{output.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"{output}: cannot write the report: {err.strerror or err}") from err
