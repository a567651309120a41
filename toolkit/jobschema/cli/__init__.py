"""The ``jobschema`` command line: a thin click layer over the :mod:`jobschema` library.

Exit codes: 0 success; 1 findings (invalid payloads, differences, stale generated files);
2 usage error, missing input, unreadable or invalid schema, or any other error of the tool itself.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from jobschema import __version__
from jobschema.errors import ToolkitError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


#: command name -> (module, attribute), imported only when the command runs (or help lists it),
#: so ``jobschema validate one.json`` never pays for the diff, redact or coverage code.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("jobschema.cli.validate", "validate"),
    "diff": ("jobschema.cli.diff", "diff"),
    "redact": ("jobschema.cli.redact", "redact"),
    "coverage": ("jobschema.cli.coverage", "coverage_command"),
    "rules": ("jobschema.cli.validate", "rules"),
    "generate": ("jobschema.cli.generate", "generate"),
    "schemas": ("jobschema.cli.schemas", "schemas"),
}


class JobschemaGroup(click.Group):
    """Loads commands lazily, and turns :class:`ToolkitError` into ``Error: …`` on stderr and its
    exit code; never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        import importlib

        module, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module), attribute)
        self.commands[cmd_name] = command
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ToolkitError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(err.exit_code)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as err:  # a bug: one line, exit 2; the traceback only on request
            if os.environ.get("JOBSCHEMA_TRACEBACK"):
                raise
            click.echo(
                f"Error: internal error: {type(err).__name__}: {err} "
                "(this is a bug; JOBSCHEMA_TRACEBACK=1 shows the traceback)",
                err=True,
            )
            sys.exit(2)


@click.group(cls=JobschemaGroup, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="jobschema")
def main() -> None:
    """Validate and diff recorded Run:ai and Baidu AIHC job API payloads.

    \b
    Exit codes:
      0  success
      1  findings: invalid payloads, differences, stale generated files
      2  usage error, missing input, unreadable or invalid schema, tool error
    """
