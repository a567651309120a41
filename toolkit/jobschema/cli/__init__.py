"""The ``jobschema`` command line: a thin click layer over the :mod:`jobschema` library.

Exit codes: 0 success; 1 findings (invalid payloads, differences, stale generated files);
2 usage error, missing input, unreadable or invalid schema, or any other error of the tool itself.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
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
    "serve": ("jobschema.cli.serve", "serve"),
    "record": ("jobschema.cli.record", "record"),
    "versions": ("jobschema.cli.versions", "versions"),
    "changes": ("jobschema.cli.changes", "changes"),
}


class JobschemaGroup(click.Group):
    """Loads commands lazily, and turns :class:`ToolkitError` into ``Error: …`` on stderr and its
    exit code; never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click does, and a mistyped command name gets the nearest one suggested."""
        name = args[0] if args else ""
        known = self.list_commands(ctx)
        if name and not name.startswith("-") and name not in known:
            import difflib

            near = difflib.get_close_matches(name, known, n=1)
            hint = f" Did you mean '{near[0]}'?" if near else ""
            ctx.fail(f"No such command '{name}'.{hint} (commands: {', '.join(known)})")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        import importlib

        module, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module), attribute)
        self.commands[cmd_name] = command
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line; SIGTERM ends it as Ctrl-C does (cleaning up, workers stopped)."""
        if threading.current_thread() is not threading.main_thread():
            return super().main(*args, **kwargs)
        previous = signal.signal(signal.SIGTERM, _terminated)
        try:
            return super().main(*args, **kwargs)
        finally:
            signal.signal(signal.SIGTERM, previous)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ToolkitError as err:
            click.echo(f"Error: {err}", err=True)
            sys.exit(err.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader of stdout stopped reading (`| head`): not an error
            from jobschema.cli.options import silence_stdout

            silence_stdout()
            sys.exit(0)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
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


#: Commands after which the interpreter's teardown skips its last collection: every object alive then
#: is frozen (:func:`gc.freeze`), so the teardown does not walk them again (~15 ms once validate has
#: loaded what it checks with); the ``atexit`` handlers and the streams' flushing run as always.
QUICK_EXIT = frozenset({"validate", "diff", "rules", "schemas", "versions"})


def run() -> None:
    """The console entry point (``jobschema``, ``python -m jobschema``): :func:`main`, and after a
    command of :data:`QUICK_EXIT` a cheaper teardown. :func:`main` itself, as tests and other
    programs call it, returns as click's commands do."""
    try:
        main()
    except SystemExit:
        if _command(sys.argv[1:]) in QUICK_EXIT:
            import gc

            gc.freeze()
        raise


def _command(args: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM: leave through SystemExit, so every ``finally`` runs (temp files, worker processes)."""
    sys.exit(128 + signum)


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
