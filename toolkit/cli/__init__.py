"""The ``jobschema`` command line: a thin click layer over the :mod:`toolkit` library.

Exit codes: 0 success; 1 findings (invalid payloads, differences, stale generated files);
2 usage error, missing input, unreadable schema, or any other error of the tool itself.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from toolkit import __version__
from toolkit.errors import ToolkitError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class JobschemaGroup(click.Group):
    """Turns :class:`ToolkitError` into ``Error: …`` on stderr and its exit code; never a traceback."""

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
      2  usage error, missing input, unreadable schema, tool error
    """


def _register() -> None:
    from toolkit.cli import coverage, diff, generate, redact, schemas, validate

    main.add_command(validate.validate)
    main.add_command(diff.diff)
    main.add_command(redact.redact)
    main.add_command(coverage.coverage_command)
    main.add_command(validate.rules)
    main.add_command(generate.generate)
    main.add_command(schemas.schemas)


_register()
