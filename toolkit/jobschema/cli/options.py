"""Options and output helpers shared by the commands."""

from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar, cast

import click

from jobschema.errors import ToolkitError

if TYPE_CHECKING:
    from jobschema.inputs.files import Expansion

F = TypeVar("F", bound=Callable[..., Any])


class OutputError(ToolkitError):
    """The report cannot be written to ``--output`` (exit 2: a tool error, not a finding)."""


class Seconds(click.FloatRange):
    """A timeout: a finite number of seconds above 0 (``nan``, ``inf`` and ``1e400`` are refused:
    every wait is bounded)."""

    def __init__(self) -> None:
        super().__init__(min=0, min_open=True)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        seconds = float(super().convert(value, param, ctx))
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return seconds


color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text report: auto colours a terminal unless NO_COLOR is set.",
)


def output_file(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    """An ``-o``/``--output`` value as a path: ``-`` is stdout (``None``), as for the inputs; an
    empty name (an unset variable, ``-o "$OUT"``) is a usage error, never the current folder."""
    if value is None or value == "-":
        return None
    if not value:
        raise click.BadParameter("the file name is empty", ctx=ctx, param=param)
    return Path(value)


def output_option_saying(help_text: str) -> Callable[[F], F]:
    """``-o/--output FILE`` (:func:`output_file`: ``-`` is stdout, an empty name a usage error), its
    help ``help_text``."""
    path = click.Path(dir_okay=False)
    return click.option("-o", "--output", type=path, callback=output_file, metavar="FILE", help=help_text)


output_option = output_option_saying(
    "Write the report to FILE instead of stdout (only once the run has finished; - is stdout)."
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


def _pins(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    from jobschema.schemas.versions import UnknownVersion, parse_pins

    try:
        return parse_pins(value)
    except UnknownVersion as err:
        raise click.BadParameter(str(err), ctx, param) from None


def api_version_option(help_text: str) -> Callable[[F], F]:
    """``--api-version API=VERSION`` (repeatable, one per API), stored as ``api_versions``: sorted
    ``(api, version)`` pairs of known versions."""
    return click.option(
        "--api-version",
        "api_versions",
        multiple=True,
        metavar="API=VERSION",
        callback=_pins,
        help=help_text,
    )


def use_color(choice: str, stream: TextIO) -> bool:
    """Resolve ``--color`` for ``stream``: auto means a terminal and no ``NO_COLOR``."""
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def write_output(text: str | bytes, output: Path | None, color: bool = False) -> None:
    """Write the finished report to ``output`` (:func:`jobschema.outputs.write_file`: through a
    link, straight into a FIFO or device, else whole or not at all), or to stdout (keeping colour when asked).
    Bytes are written as they are (a file shown exactly as stored).

    A reader of stdout that stops early (``| head``) is no error: the rest is dropped quietly and the
    command still exits with its own code. Text that UTF-8 cannot hold (a lone surrogate from a
    payload) is written as its ``\\udXXX`` escape, never a crash.
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8", "backslashreplace")
    if output is None:
        try:
            click.echo(data, nl=False, color=color)
            sys.stdout.flush()
        except BrokenPipeError:
            silence_stdout()
        except OSError as err:  # a full disk, a device that refuses (> /dev/full)
            silence_stdout()  # (else the interpreter's last flush fails again)
            raise OutputError(f"standard output: cannot write the report: {err.strerror or err}") from err
        return
    from jobschema.inputs.files import named
    from jobschema.outputs import write_file

    try:
        write_file(output, data)
    except OSError as err:
        raise OutputError(f"{named(output)}: cannot write the report: {err.strerror or err}") from err


def silence_stdout() -> None:
    """Point stdout at the null device, so nothing written after the reader left fails again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def echo_error(message: str) -> None:
    """``Error: MESSAGE`` on stderr, one line whatever the message holds (a file name may hold a
    line break or a terminal escape: shown escaped), with every token shape the secret policy knows
    masked (the message's own words name options such as ``--credentials FILE``, which reading
    names as well as shapes would mask), and every secret found in an argument the command line was
    given masked wherever the message quotes it (``GIVEN``)."""
    _echo_line("Error", message)


def echo_note(message: str) -> None:
    """``note: MESSAGE`` on stderr, one line, as :func:`echo_error` shows it."""
    _echo_line("note", message)


def echo_warning(message: str) -> None:
    """``warning: MESSAGE`` on stderr, one line, as :func:`echo_error` shows it."""
    _echo_line("warning", message)


#: The arguments the command line was given (set as it is parsed): a secret found in one is masked
#: wherever an error quotes it (a file's name, an option's value).
GIVEN: list[str] = []


def _echo_line(label: str, message: str) -> None:
    from jobschema.secrets.reading import mask_given, scrub
    from jobschema.text import log_safe, visible

    message = mask_given(message, GIVEN) if GIVEN else message
    click.echo(log_safe(f"{label}: {visible(scrub(message, level='shapes'))}"), err=True)


def read_inputs(
    inputs: Sequence[str], output: Path | None = None, read_too: Iterable[str | Path | None] = ()
) -> tuple[Expansion, int]:
    """The files behind ``inputs`` and the least code the run exits with: ``-o`` naming one of them
    (or a file of ``read_too``: a schema, a baseline) refused, each input that names nothing named
    (:func:`report_missing`), and the notes on what folders held that could not be read."""
    from jobschema.inputs.files import expand

    expansion = expand(inputs, keep_going=True)
    refuse_overwriting_inputs(output, [*expansion.files, *read_too])
    floor = report_missing(expansion)
    for note in expansion.notes:
        echo_note(note)
    return expansion, floor


def report_missing(expansion: Expansion) -> int:
    """Each input that names nothing to read, one line on stderr: exit 2 at once when nothing else is
    left to read, else the others are read and the run ends with at least the code returned (2 when
    one is missing: one bad input never stops the others)."""
    for message in expansion.missing:
        echo_error(message)
    if expansion.missing and not expansion.files:
        raise SystemExit(2)
    return 2 if expansion.missing else 0


def refuse_overwriting_inputs(
    output: Path | None, inputs: Iterable[str | Path | None], option: str = "-o/--output"
) -> None:
    """A usage error when ``output`` (the file ``option`` names) is one of the files read: captures,
    and a schema, baseline or config file given by path (writing it would destroy the input).
    ``None`` and names that are not files (``-``, a bundled schema, ``runai@2.19``) are passed over."""
    if output is None or not os.path.exists(output):  # noqa: PTH110 - False, not an error, where it cannot look
        return
    for name in inputs:
        same = _stdin_is(output) if name == "-" else name is not None and _same_file(Path(name), output)
        if same:
            raise click.UsageError(f"{output}: {option} is one of the inputs; choose another file")


def refuse_one_file_twice(outputs: Mapping[str, Path | None]) -> None:
    """A usage error when two options name the same file to write (option -> file): the second
    would replace the first."""
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        where = os.path.realpath(path)
        if where in seen:
            raise click.UsageError(f"{path}: {seen[where]} and {option} name the same file; choose two")
        seen[where] = option


def _stdin_is(path: Path) -> bool:
    """Whether standard input is the file ``path`` (``validate - -o a.json < a.json``)."""
    try:
        given, named = os.fstat(sys.stdin.fileno()), path.stat()
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False
    return (given.st_dev, given.st_ino) == (named.st_dev, named.st_ino)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


# --- one vocabulary: credentials, and the spellings an option had before ----------------------------

_RENAMED = "jobschema.renamed"

#: What each credential is, for help texts (keys of :data:`jobschema.record.credentials.SOURCES`).
CREDENTIAL_HELP = {
    "client_id": "Run:ai client id",
    "client_secret": "Run:ai client secret",
    "app_id": "Run:ai app id (grant app_token)",
    "app_secret": "Run:ai app secret",
    "access_key_id": "AIHC access key id",
    "secret_access_key": "AIHC secret access key",
}


def only_with(*names: str) -> None:
    """Refuse, as a usage error, an option given on the command line whose help says "With X:" when X
    is not given: ``names`` are the parameter names of the dependent option and then of X (``X`` may
    be several, any one of them enough). Such an option would otherwise be ignored without a word."""
    ctx = click.get_current_context()
    dependent, *needed = (next(p for p in ctx.command.params if p.name == name) for name in names)
    if not _given(ctx, dependent) or any(_given(ctx, param) for param in needed):
        return
    flags = " or ".join(_flag(param) for param in needed)
    raise click.UsageError(f"{_flag(dependent)} works only with {flags}")


def alone(name: str) -> None:
    """Refuse, as a usage error, anything else given with the option ``name`` (a parameter name) that
    does one thing and exits (``changes --rules``): it would be ignored without a word."""
    ctx = click.get_current_context()
    param = next(p for p in ctx.command.params if p.name == name)
    others = [_flag(other) for other in ctx.command.params if other is not param and _given(ctx, other)]
    if others:
        raise click.UsageError(f"{_flag(param)} takes nothing else; {', '.join(others)} given with it")


def _given(ctx: click.Context, param: click.Parameter) -> bool:
    """``param`` was set by the user (on the command line or through its environment variable)."""
    from click.core import ParameterSource

    source = ctx.get_parameter_source(param.name or "")
    return source not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def _flag(param: click.Parameter) -> str:
    """The option's long name (``--dask-timeout``), as its help names it; an argument's metavar."""
    if isinstance(param, click.Argument):
        return param.human_readable_name.replace("[", "").replace("]", "").rstrip(".")
    return max(param.opts, key=len)


def renamed(old: str, new: str, dest: str, **kwargs: Any) -> Callable[[F], F]:
    """Keep ``old``, the name ``new`` had before, for one release: accepted, hidden from ``--help``,
    with a note on stderr naming ``new``. Its value becomes the ``dest`` parameter's when the new
    option gives none (``kwargs``: the new option's ``type``, ``multiple``, ``is_flag``, ...)."""

    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value in (None, (), False):
            return
        click.echo(f"note: {old} is now {new}; {old} goes away in the next release", err=True)
        ctx.meta.setdefault(_RENAMED, {})[dest] = value

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def command(*args: Any, **params: Any) -> Any:
            given = click.get_current_context().meta.get(_RENAMED, {})
            if dest in given and params.get(dest) in (None, (), False):
                params[dest] = given[dest]
            return function(*args, **params)

        name = f"{dest}_as_{old.lstrip('-').replace('-', '_')}"  # (its own: never the new option's)
        option = click.option(old, name, hidden=True, expose_value=False, callback=keep, **kwargs)
        return cast("F", option(command))

    return decorate


def credential_options(keys: Sequence[str], old: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """One option per credential in ``keys``, named after its environment variable
    (``--runai-client-id``) in every command, with ``--credentials FILE``; ``old`` maps a key to the
    name its option had in this command before (kept hidden, see :func:`renamed`). The command looks
    each one up with :func:`jobschema.record.credentials.lookup`: option, then file, then variable."""
    from jobschema.record.credentials import SOURCES

    def decorate(function: F) -> F:
        for key in reversed(keys):
            variable, flag, _, _ = SOURCES[key]
            if old and key in old:
                function = renamed(old[key], flag, key, metavar="TEXT")(function)
            function = click.option(
                flag,
                key,
                metavar="TEXT",
                help=f"{CREDENTIAL_HELP[key]}; else --credentials, else {variable} (options show in ps).",
            )(function)
        return credentials_file_option(function)

    return decorate


credentials_file_option = click.option(
    "--credentials",
    "credentials_file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="A TOML file with [runai] client_id/client_secret/app_id/app_secret and [aihc] "
    "access_key_id/secret_access_key (chmod 600).",
)
