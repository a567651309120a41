"""``jobschema redact``: mask credentials in captures; ``--check`` lists the ones still in the clear."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import click

from jobschema.cli.options import write_output
from jobschema.redact.core import Redacted, Unreadable

STDIN = "-"

_HELP_EPILOG = """\b
Masked, as <secret:xxxxxxxx> (the first 8 hex digits of the value's SHA-256, so the same secret
gets the same mask everywhere): fields the schema marks secret (raw-request imagePullSecretUsername
and imagePullSecretPassword, codeSource.bosTemporaryToken), imageConfig logins, environment values
under credential-like names (password, token, secret, key, credential, ...), inside the AIHC
raw-request annotation too; in HAR files also credential-like headers (Authorization, Cookie, ...),
cookies, URL query values and form fields, and the JSON request and response bodies (base64 ones
too). Only the masked values change; every other byte is kept.

\b
Inputs: files, folders (recursive: *.json, *.ndjson, *.jsonl, *.har), quoted globs, and - for
stdin (read as JSON or HAR). --check reports FILE: POINTER (FILE:LINE: POINTER for NDJSON); in HAR
files the pointer goes into the HAR document and on into an embedded body or raw-request.

\b
Exit codes:
  0  done; with --check: no unmasked secret
  1  --check found an unmasked secret, or an input could not be read or parsed
  2  usage error, missing input
"""


@click.command(epilog=_HELP_EPILOG)
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the redacted text to FILE instead of stdout (one input only).",
)
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
def redact(inputs: tuple[str, ...], output: Path | None, in_place: bool, check: bool) -> None:
    """Mask credentials (passwords, tokens, keys, cookies) in captures before they are committed."""
    from jobschema.inputs.files import expand

    files = expand(inputs).files
    _check_usage(files, output, in_place, check)
    outcomes = [
        _report(name, result) if check else _write(name, result, output, in_place)
        for name, result in ((name, _redact_input(name)) for name in files)
    ]
    raise SystemExit(0 if all(outcomes) else 1)


def _check_usage(files: Sequence[str], output: Path | None, in_place: bool, check: bool) -> None:
    if check and (output is not None or in_place):
        raise click.UsageError(
            "--check changes nothing: it cannot be combined with -o/--output or --in-place"
        )
    if output is not None and in_place:
        raise click.UsageError("-o/--output and --in-place cannot be combined")
    if in_place and STDIN in files:
        raise click.UsageError("--in-place cannot rewrite stdin (-)")
    if not (check or in_place) and len(files) > 1:
        raise click.UsageError(
            f"{len(files)} inputs: the redacted text of one input goes to stdout or -o/--output; "
            "use --in-place or --check for several"
        )
    if output is not None and any(
        name != STDIN and Path(name).resolve() == output.resolve() for name in files
    ):
        raise click.UsageError(f"{output}: -o/--output is the input; use --in-place to rewrite it")


def _source(name: str) -> str:
    return "<stdin>" if name == STDIN else name


def _redact_input(name: str) -> Redacted:
    from jobschema.redact.core import kind_of, redact_bytes

    if name == STDIN:
        return redact_bytes(sys.stdin.buffer.read(), "json")
    try:
        data = Path(name).read_bytes()
    except OSError as err:
        return Redacted("", problems=(Unreadable(f"cannot read file: {err.strerror or err}"),))
    return redact_bytes(data, kind_of(name))


def _report(name: str, result: Redacted) -> bool:
    """Print where ``name`` still holds secrets (stdout) and what could not be read (stderr)."""
    for secret in result.secrets:
        click.echo(secret.describe(_source(name)))
    _problems(name, result)
    return not result.secrets and not result.problems


def _problems(name: str, result: Redacted) -> None:
    for problem in result.problems:
        click.echo(f"Error: {problem.describe(_source(name))}", err=True)


def _write(name: str, result: Redacted, output: Path | None, in_place: bool) -> bool:
    """Write the redacted text of ``name``; an input with problems is left alone and not written."""
    if result.problems:
        _problems(name, result)
        return False
    if not in_place:
        write_output(result.text, output)
        return True
    if not result.changed:
        return True
    try:
        _replace(Path(name), result.text)
    except OSError as err:
        click.echo(f"Error: {name}: cannot write file: {err.strerror or err}", err=True)
        return False
    count = len(result.secrets)
    click.echo(f"{name}: masked {count} secret{'' if count == 1 else 's'}", err=True)
    return True


def _replace(path: Path, text: str) -> None:
    """Rewrite ``path`` atomically (a temporary file beside it, then a rename), keeping its mode."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    tmp = Path(temporary)
    try:
        tmp.write_bytes(text.encode("utf-8"))
        tmp.chmod(path.stat().st_mode & 0o7777)
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
