"""``jobschema redact``: mask credentials in captures; ``--check`` lists the ones still in the clear."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import click

from jobschema.cli.options import (
    OutputError,
    color_option,
    echo_error,
    echo_note,
    output_option_saying,
    report_missing,
    silence_stdout,
    use_color,
    write_output,
)
from jobschema.outputs import Staged, commit, destination, open_direct, staged
from jobschema.redact.core import Redacted, Unreadable
from jobschema.redact.files import InPlaceError, commit_in_place, in_place_target, replace_file
from jobschema.secrets.policy import masked_pointer_text

if TYPE_CHECKING:
    from jobschema.report.redact import Checked

STDIN = "-"

_HELP_EPILOG = """\b
Masked, as <secret:xxxxxxxx>: 8 hex digits of an HMAC-SHA256 of the value, keyed by the
environment variable JOBSCHEMA_MASK_KEY (any string; set it, e.g. from a CI secret, for masks that
stay the same across runs) or, when it is unset, by a random key per run. Within a run the same
secret gets the same mask everywhere, and a guessable secret cannot be recovered from its mask.

\b
What is masked:
- by place: fields the schema marks x-jobschema-secret; members named like a credential (password,
  secret, token, api key, access/secret/private key, ak/sk, authorization, cookie, signature, ...;
  any case, at any depth); the value beside such a name in env vars, labels, annotations, HAR
  headers, query and form parameters; every cookie; registry logins;
- by shape, inside any string: Bearer/Basic/bce-auth-v1 values, JWTs, cloud and service keys
  (AWS, Google, Azure, GitHub, GitLab, Hugging Face, Slack, ...), private keys, user:password@ in
  URLs, --token VALUE and NAME=VALUE with a credential-like name, docker login -p;
- inside embedded JSON: the AIHC raw-request annotation (masked whole when it does not parse) and
  HAR request and response bodies of any endpoint (base64 ones decoded and encoded again; a body
  that is not JSON is masked by shape).
Only the masked values change; every other byte is kept. Redacting twice is redacting once.

\b
Inputs: files, folders (recursive: *.json, *.ndjson, *.jsonl, *.har), quoted globs, and - for
stdin (JSON or HAR, or NDJSON read line by line when it is NDJSON: a first line that is a whole
JSON object or array, and another line after it). NDJSON files are read and written one line at a time (memory
stays that of the longest line); a line that is not UTF-8 or not JSON is named FILE:LINE and then
nothing is written for that file. --check reports FILE: POINTER (FILE:LINE: POINTER for NDJSON) for
every value that would change, never the value; in HAR files the pointer goes into the HAR
document and on into an embedded body or raw-request.

\b
--in-place writes a temporary file beside the file, flushes it to disk and renames it over the
file (the temporary file is removed on any failure), with the file's mode, owner and group.
Through a symlink, the file it points to is rewritten and the link kept. A file with several hard
links is refused with an error: the other links would keep the secrets. A file that changed while
it was redacted is left as it is, with an error: run redact again.

\b
Exit codes:
  0  done; with --check: nothing would change
  1  --check found an unmasked secret; an input could not be read, parsed or rewritten, or an
     object key holds a secret (keys are never rewritten)
  2  usage error, missing input (each named; the others are still read); stdout or -o's file
     cannot be written
"""


@click.command(epilog=_HELP_EPILOG)
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@output_option_saying("Write the redacted text to FILE instead of stdout (one input only; - is stdout).")
@click.option(
    "--in-place",
    is_flag=True,
    help="Rewrite each input that holds a secret (atomically); others stay as they are.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing: list every unmasked secret (never its value); exit 1 if any.",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="With --check: the report's format (github: annotations; sarif: code scanning).",
)
@color_option
def redact(
    inputs: tuple[str, ...], output: Path | None, in_place: bool, check: bool, fmt: str, color: str
) -> None:
    """Mask credentials (passwords, tokens, keys, cookies) in captures before they are committed."""
    from jobschema import __version__
    from jobschema.inputs.files import expand
    from jobschema.report.redact import Checked

    expansion = expand(inputs, keep_going=True)
    files = expansion.files
    floor = report_missing(expansion)
    _check_usage(files, output, in_place, check, _given("output"))
    if fmt != "text" and not check:
        raise click.UsageError(f"-f/--format {fmt} is the format of --check's report; add --check")
    for note in expansion.notes:
        echo_note(note)
    checked = Checked(fmt, _echo, check and fmt == "text" and use_color(color, sys.stdout), len(files))
    outcomes = [_one(name, output, in_place, checked if check else None) for name in files]
    report = checked.rendered(__version__) if check else None
    if report is not None:
        write_output(report, None)
    raise SystemExit(max(floor, 0 if all(outcomes) else 1))


def _echo(text: str, err: bool) -> None:
    click.echo(text, err=err, color=True if not err else None)


def _one(name: str, output: Path | None, in_place: bool, checked: Checked | None) -> bool:
    from jobschema.redact.core import kind_of

    if name == STDIN:
        return _stdin(output, checked)
    if kind_of(name) == "ndjson":
        return _stream_ndjson(name, output, in_place, checked)
    read = _status(name) if in_place else None  # (before reading: a later change is then seen)
    result = _redact_input(name)
    if checked is not None:
        return _report(name, result, checked)
    return _write(name, result, output, in_place, read)


def _status(name: str) -> os.stat_result | None:
    """The status of the file ``name`` names (links followed), None when it has none (then reading
    it fails and says why)."""
    try:
        return Path(name).stat()
    except OSError:
        return None


def _stdin(output: Path | None, checked: Checked | None) -> bool:
    """Standard input: NDJSON redacted line by line as it arrives when it is NDJSON, else one document."""
    from jobschema.inputs.files import standard_input
    from jobschema.inputs.read import sniff_stdin
    from jobschema.redact.core import redact_bytes

    try:
        sniffed = sniff_stdin(standard_input())
        if sniffed.ndjson:
            if checked is not None:
                return _check_lines(_source(STDIN), sniffed.lines(), checked, None)
            return _write_lines(_source(STDIN), sniffed.lines(), output, None)
        result = redact_bytes(sniffed.whole(), "json")
    except OSError as err:
        from jobschema.inputs.files import problem_text

        result = Redacted("", problems=(Unreadable(problem_text(err)),))
    return _report(STDIN, result, checked) if checked is not None else _write(STDIN, result, output, False)


def _given(name: str) -> bool:
    """True when the command line gave option ``name`` (``-o -`` too, whose value is stdout: None)."""
    from click.core import ParameterSource

    return click.get_current_context().get_parameter_source(name) is ParameterSource.COMMANDLINE


def _check_usage(
    files: Sequence[str], output: Path | None, in_place: bool, check: bool, output_given: bool
) -> None:
    if check and (output_given or in_place):
        raise click.UsageError(
            "--check changes nothing: it cannot be combined with -o/--output or --in-place"
        )
    if output_given and in_place:
        raise click.UsageError("-o/--output and --in-place cannot be combined")
    if in_place and STDIN in files:
        raise click.UsageError("--in-place cannot rewrite stdin (-)")
    if not (check or in_place) and len(files) > 1:
        raise click.UsageError(
            f"{len(files)} inputs: the redacted text of one input goes to stdout or -o/--output; "
            "use --in-place or --check for several"
        )
    if output is not None and any(  # (realpath never raises: a link loop is left as it is)
        name != STDIN and os.path.realpath(name) == os.path.realpath(output) for name in files
    ):
        raise click.UsageError(f"{output}: -o/--output is the input; use --in-place to rewrite it")


def _source(name: str) -> str:
    return "<stdin>" if name == STDIN else name


def _redact_input(name: str) -> Redacted:
    from jobschema.inputs.files import problem_text, read_bytes
    from jobschema.redact.core import kind_of, redact_bytes

    data = read_bytes(name)  # (a regular file only: a FIFO named here is an error, never a wait)
    if isinstance(data, OSError):
        return Redacted("", problems=(Unreadable(problem_text(data)),))
    return redact_bytes(data, kind_of(name))


def _report(name: str, result: Redacted, checked: Checked) -> bool:
    """Report where ``name`` still holds secrets and what could not be read."""
    from jobschema.report.redact import Place, Problem

    path = None if name == STDIN else name
    for secret in result.secrets:
        checked.secret(Place(_source(name), masked_pointer_text(secret.pointer), secret.line, path))
    for problem in result.problems:
        checked.problem(Problem(_source(name), problem, path))
    return not result.secrets and not result.problems


def _problems(name: str, result: Redacted) -> None:
    for problem in result.problems:
        echo_error(problem.describe(_source(name)))


def _write(
    name: str, result: Redacted, output: Path | None, in_place: bool, read: os.stat_result | None = None
) -> bool:
    """Write the redacted text of ``name``; an input with problems is left alone and not written.
    In place, ``read`` is the file's status taken before it was read (a later change is refused)."""
    if result.problems:
        _problems(name, result)
        return False
    if not in_place:
        write_output(result.text, output)
        return True
    if not result.changed:
        return True
    try:
        replace_file(Path(name), result.text.encode("utf-8", "surrogatepass"), read)
    except InPlaceError as err:
        echo_error(f"{name}: {err}")
        return False
    except OSError as err:
        echo_error(f"{name}: cannot write file: {err.strerror or err}")
        return False
    _masked(name, len(result.secrets))
    return True


def _masked(name: str, count: int) -> None:
    """``FILE: masked N secrets`` on stderr: one line, the name shown as errors show it (escaped,
    a token shape in it masked)."""
    from jobschema.inputs.files import named

    click.echo(f"{named(name)}: masked {count} secret{'' if count == 1 else 's'}", err=True)


def _stream_ndjson(name: str, output: Path | None, in_place: bool, checked: Checked | None) -> bool:
    """Redact an NDJSON file line by line: memory stays that of one line, whatever the file's size."""
    from jobschema.inputs.files import open_file, problem_text

    opened = open_file(name)  # (a regular file only, as for JSON)
    try:
        if isinstance(opened, OSError):
            raise opened
        with opened as stream:
            if checked is not None:
                return _check_lines(name, stream, checked, name)
            read = os.fstat(stream.fileno()) if in_place else None  # (the very file read)
            return _write_lines(name, stream, output, read)
    except InPlaceError as err:
        echo_error(f"{name}: {err}")
    except OSError as err:  # (reading: every write names its own errors)
        unreadable = Redacted("", problems=(Unreadable(problem_text(err)),))
        if checked is not None:
            return _report(name, unreadable, checked)
        _problems(name, unreadable)
    return False


def _check_lines(name: str, stream: Iterable[bytes], checked: Checked, path: str | None) -> bool:
    from jobschema.redact.core import redact_ndjson
    from jobschema.report.redact import Place, Problem

    clean = True
    for line in redact_ndjson(stream):
        for secret in line.secrets:
            checked.secret(Place(name, masked_pointer_text(secret.pointer), secret.line, path))
        if line.problem is not None:
            checked.problem(Problem(name, line.problem, path))
        clean = clean and not line.secrets and line.problem is None
    return clean


def _write_lines(
    name: str, stream: Iterable[bytes], output: Path | None, read: os.stat_result | None
) -> bool:
    """Stage the redacted lines beside the destination (an anonymous temporary file for stdout);
    nothing is written when a line cannot be read, and ``--in-place`` (``read``: the status of the
    file as it was opened) leaves a clean file alone."""
    from jobschema.redact.core import redact_ndjson

    in_place = read is not None
    writing = _writing(output, in_place)
    with contextlib.ExitStack() as stack:
        with writing():
            place, finish = _destination(name, output, read)
            file = stack.enter_context(staged(place)) if place is not None else None
            spool = stack.enter_context(tempfile.TemporaryFile()) if file is None else file.stream
        masked, problems = 0, []
        for line in redact_ndjson(stream):
            masked += len(line.secrets)
            if line.problem is not None:
                problems.append(line.problem)
            elif not problems:
                with writing():
                    spool.write(line.data)
        if problems:
            _problems(name, Redacted("", problems=tuple(problems)))
            return False
        if in_place and not masked:
            return True
        with writing():
            if file is None:
                _copy_out(spool, output)
                return True
            assert finish is not None
            finish(file)
    if in_place:
        _masked(name, masked)
    return True


def _writing(output: Path | None, in_place: bool) -> Callable[[], contextlib.AbstractContextManager[None]]:
    """A block in which an error of the system is a write error: of the file rewritten in place
    (:class:`InPlaceError`: the input fails, the others still run), else of the output (exit 2)."""

    from jobschema.inputs.files import named

    @contextlib.contextmanager
    def block() -> Iterator[None]:
        try:
            yield
        except OSError as err:
            reason = err.strerror or str(err)
            if in_place:
                raise InPlaceError(f"cannot write file: {reason}") from err
            where = "standard output" if output is None else named(output)
            raise OutputError(f"{where}: cannot write the report: {reason}") from err

    return block


def _destination(
    name: str, output: Path | None, read: os.stat_result | None
) -> tuple[Path | None, Callable[[Staged], None] | None]:
    """The file staged lines replace (the input itself, or ``-o``'s file, links followed) and how the
    staged file is put in its place; ``None`` for stdout and for a FIFO or device named by ``-o``
    (written as it is)."""
    if read is not None:
        target = in_place_target(Path(name), read)
        return target.path, lambda file: commit_in_place(file, target)
    if output is None:
        return None, None
    found = destination(output)
    if found.direct:
        return None, None
    return found.path, lambda file: commit(file, found.path, found.mode)


def _copy_out(spool: BinaryIO, output: Path | None) -> None:
    """The staged lines to stdout, or into the FIFO or device ``-o`` names (write errors are the
    caller's to name)."""
    spool.seek(0)
    if output is not None:
        with open_direct(destination(output)) as stream:
            shutil.copyfileobj(spool, stream)
        return
    try:
        shutil.copyfileobj(spool, sys.stdout.buffer)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError:
        silence_stdout()  # (else the interpreter's last flush fails again)
        raise
