"""The ``jobschema`` command line: a thin click layer over the :mod:`jobschema` library.

Exit codes: 0 success; 1 findings (invalid payloads, differences, stale generated files);
2 usage error, missing input, unreadable or invalid schema, or any other error of the tool itself.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

import click

from jobschema import __version__
from jobschema.errors import ToolkitError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


#: command name -> (module, attribute, summary): imported only when the command runs, so
#: ``jobschema validate one.json`` never pays for the diff, redact or coverage code, and ``--help``
#: lists every command without importing any. The summary is the first sentence of the command's
#: own docstring (a test holds them equal).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "validate": (
        "jobschema.cli.validate",
        "validate",
        "Validate captured Run:ai and AIHC payloads against the bundled schemas.",
    ),
    "diff": (
        "jobschema.cli.diff",
        "diff",
        "Compare job payloads: two snapshots, the roles of one job, or a job's history.",
    ),
    "redact": (
        "jobschema.cli.redact",
        "redact",
        "Mask credentials (passwords, tokens, keys, cookies) in captures before they are committed.",
    ),
    "coverage": (
        "jobschema.cli.coverage",
        "coverage_command",
        "Report which schema properties and enum values a corpus of payloads exercises, and its drift.",
    ),
    "rules": (
        "jobschema.cli.validate",
        "rules",
        "List every check that is not a plain JSON Schema keyword: id, severity, schema, description.",
    ),
    "generate": (
        "jobschema.cli.generate",
        "generate",
        "Regenerate the Pydantic models in generated/jobschema/models from the schemas.",
    ),
    "schemas": (
        "jobschema.cli.schemas",
        "schemas",
        "List the bundled schemas (name and title); 'schemas show NAME' prints one.",
    ),
    "serve": (
        "jobschema.cli.serve",
        "serve",
        "Serve the Run:ai and AIHC (v1 and v2) job APIs from captures, for consumer contract tests.",
    ),
    "record": (
        "jobschema.cli.record",
        "record",
        "Poll live Run:ai or AIHC jobs and write redacted, validated captures (NDJSON, HAR).",
    ),
    "versions": (
        "jobschema.cli.versions",
        "versions",
        "List the Run:ai (or --api aihc: AIHC) versions that accept each payload, and why others do not.",
    ),
    "timeline": (
        "jobschema.cli.timeline",
        "timeline",
        "Draw each recorded job's history as a timeline: states, durations, restarts, GPU-hours.",
    ),
    "changes": (
        "jobschema.cli.changes",
        "changes",
        "List what changed between two API versions or schemas and which changes break readers.",
    ),
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

        module, attribute, _ = COMMANDS[cmd_name]
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
        except OSError as err:  # (help and version are written before a command is invoked)
            _exit_if_stdout_failed(err)
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Every command with its whole summary (wrapped, never cut), without importing one."""
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        rows += [(name, self.commands[name].get_short_help_str(200)) for name in sorted(self.commands)]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(dict(rows).items()))

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        given = list(args)
        if parent is None:  # (an error quoting a secret given on the command line masks it)
            from jobschema.cli import options

            options.GIVEN[:] = given
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except click.UsageError as err:
            raise one_line(err, given) from None
        ctx.meta[_ARGS] = given
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as err:  # (a command's own options: parsed here, in its context)
            raise one_line(err, ctx.meta.get(_ARGS, ())) from None
        except ToolkitError as err:
            from jobschema.cli.options import echo_error

            echo_error(str(err))
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
            if isinstance(err, OSError):
                _exit_if_stdout_failed(err)
            if os.environ.get("JOBSCHEMA_TRACEBACK"):
                raise
            from jobschema.cli.options import echo_error

            echo_error(
                f"internal error: {type(err).__name__}: {err} "
                "(this is a bug; JOBSCHEMA_TRACEBACK=1 shows the traceback)"
            )
            sys.exit(2)


#: Where the group's context keeps the arguments it was given (for :func:`one_line`).
_ARGS = "jobschema.args"


def one_line(err: click.UsageError, args: Sequence[str] = ()) -> click.UsageError:
    """``err`` shown as one line, ``Error: MESSAGE`` (click would print the usage and a hint above
    it): every bad input or option gets one line, as every other error does, and is shown as they
    are (:func:`jobschema.cli.options.echo_error`: a line break or escape in a value the user typed
    shown escaped, a credential masked). A group run with nothing after it (``jobschema``,
    ``jobschema record``) is the exception: its help, on stderr, as click shows it (exit 2), never
    the help turned into an ``Error:`` line."""
    if isinstance(err, getattr(click.exceptions, "NoArgsIsHelpError", ())):
        return err
    if isinstance(err, click.NoSuchOption):
        named = _file_named_like_an_option(err.option_name, args)
        if named is not None:
            return OneLineUsageError(named)
    return OneLineUsageError(err.format_message())  # (exit 2, as every usage error)


def _file_named_like_an_option(option: str, args: Sequence[str]) -> str | None:
    """The error for an argument taken as the unknown ``option`` that names a file (``-x.json``:
    click reads it as the options -x, -., ...): the file named, and how to give it; None when no
    such argument names a file."""
    from jobschema.inputs.files import named

    for arg in args:
        if arg == "--":
            break
        if arg.startswith(option) and arg.startswith("-") and os.path.lexists(arg):
            shown = named(arg)
            return (
                f"{shown}: no such option; to read the file of this name, put -- before it or write ./{shown}"
            )
    return None


class OneLineUsageError(click.UsageError):
    """A usage error written as every other error is: one ``Error:`` line, its text escaped and its
    credentials masked (click would write the message as it came: a value holding a line break
    could begin a line a CI runner reads as a command, and ``--api-version runai=TOKEN`` echoed the
    token)."""

    def show(self, file: Any = None) -> None:
        from jobschema.cli.options import echo_error

        echo_error(self.format_message())


#: Commands after which the interpreter's teardown skips its last collection: every object alive then
#: is frozen (:func:`gc.freeze`), so the teardown does not walk them again (~15 ms once validate has
#: loaded what it checks with); the ``atexit`` handlers and the streams' flushing run as always.
QUICK_EXIT = frozenset({"validate", "diff", "rules", "schemas", "versions"})


#: Commands that read whole corpora and keep every finding until the report is written: the cyclic
#: collector runs after this many new objects, not Python's 700. Parsing one payload makes thousands
#: of dicts and lists, none in a cycle, so the default collected every few payloads and walked the
#: growing heap of kept findings again and again: 10% of ``validate --jobs 1`` on 20,000 files with
#: warnings (paired runs; no change at 2,000). Memory is still freed at once by reference counts.
CORPUS_COMMANDS = frozenset({"validate", "diff", "redact", "coverage", "timeline"})
YOUNG_OBJECTS = 10_000


def run() -> None:
    """The console entry point (``jobschema``, ``python -m jobschema``): :func:`main`, and after a
    command of :data:`QUICK_EXIT` a cheaper teardown. :func:`main` itself, as tests and other
    programs call it, returns as click's commands do."""
    command = _command(sys.argv[1:])
    if command in CORPUS_COMMANDS:
        import gc

        gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    try:
        main()
    except SystemExit:
        if command in QUICK_EXIT:
            import gc

            gc.freeze()
        raise


def _exit_if_stdout_failed(err: OSError) -> None:
    """Standard output that cannot be written (a full disk, ``> /dev/full``): one line, exit 2. It is
    stdout that failed when the innermost frame was writing to the stream on descriptor 1 (click's
    ``echo`` holds it as ``file``); any other error is left to its handler."""
    frame = err.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    stream = None if frame is None else frame.tb_frame.f_locals.get("file")
    try:
        failed = stream is not None and stream.fileno() == 1
    except (AttributeError, OSError, ValueError):
        failed = False
    if failed:
        from jobschema.cli.options import echo_error, silence_stdout

        silence_stdout()
        echo_error(f"standard output: cannot write: {err.strerror or err}")
        sys.exit(2)


def _command(args: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM: leave through SystemExit, so every ``finally`` runs (temp files, worker processes)."""
    sys.exit(128 + signum)


@click.group(cls=JobschemaGroup, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="jobschema")
def main() -> None:
    """Check recorded Run:ai and Baidu AIHC job API payloads: validate them, diff them, keep
    secrets out of them, and test integrations against a stub of both APIs.

    \b
    jobschema validate CAPTURES...         is each payload what the API promises?
    jobschema diff LEFT RIGHT              what changed (or --roles FILE, --history FILE)
    jobschema redact --check CAPTURES...   are captures free of credentials? (pre-commit, CI)
    jobschema serve CAPTURES...            a stub of both APIs for contract tests
    jobschema record runai|aihc ...        poll live jobs into redacted captures
    jobschema versions / changes           which API versions fit; what changed between two
    `jobschema COMMAND --help` says more.

    \b
    Exit codes (every command):
      0    success
      1    findings: invalid payloads, differences, unmasked secrets, stale generated files
      2    usage error, missing input, unreadable or invalid schema, tool error
      130  interrupted (Ctrl-C); 143 terminated (SIGTERM). Files being written stay whole.

    \b
    Environment:
      JOBSCHEMA_MASK_KEY   key of the masks secrets are shown as (<secret:xxxxxxxx>): set it for
                           masks that are the same across runs; unset, each run draws one
      NO_COLOR             no colour with --color auto
      JOBSCHEMA_TRACEBACK  an internal error shows its traceback
    Shell completion: eval "$(_JOBSCHEMA_COMPLETE=bash_source jobschema)" (zsh_source, fish_source).
    """
