"""Options and output helpers shared by the commands."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

import click

color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text report: auto colours a terminal unless NO_COLOR is set.",
)


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
        raise click.FileError(str(output), hint=err.strerror or str(err)) from err
