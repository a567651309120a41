"""``jobschema redact``: mask credentials in captures; ``--check`` lists the ones still in the clear."""

from __future__ import annotations

import contextlib
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
stdin (read as JSON or HAR). --check reports FILE: POINTER (FILE:LINE: POINTER for NDJSON) for
every value that would change, never the value; in HAR files the pointer goes into the HAR
document and on into an embedded body or raw-request.

\b
--in-place writes a temporary file beside the file, flushes it to disk and renames it over the
file (the temporary file is removed on any failure). Through a symlink, the file it points to is
rewritten and the link kept. A file with several hard links is refused with an error: the other
links would keep the secrets.

\b
Exit codes:
  0  done; with --check: nothing would change
  1  --check found an unmasked secret; an input could not be read, parsed or rewritten, or an
     object key holds a secret (keys are never rewritten)
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
        replace_file(Path(name), result.text.encode("utf-8", "surrogatepass"))
    except InPlaceError as err:
        click.echo(f"Error: {name}: {err}", err=True)
        return False
    except OSError as err:
        click.echo(f"Error: {name}: cannot write file: {err.strerror or err}", err=True)
        return False
    count = len(result.secrets)
    click.echo(f"{name}: masked {count} secret{'' if count == 1 else 's'}", err=True)
    return True


class InPlaceError(Exception):
    """A file ``--in-place`` refuses to rewrite (the message says why)."""


def replace_file(path: Path, data: bytes) -> None:
    """Rewrite ``path`` with ``data`` atomically and durably, keeping its mode.

    A temporary file is written beside the real file (a symlink is followed: the file it points to
    is rewritten and the link stays), flushed to disk, renamed over it, and the folder is flushed
    too. The temporary file is removed on any failure, Ctrl-C included. A file with several hard
    links is refused: the rename would give this name a new file and leave the secrets readable
    through the other links.
    """
    real = Path(os.path.realpath(path))
    status = real.stat()
    if status.st_nlink > 1:
        raise InPlaceError(
            f"has {status.st_nlink} hard links: rewriting it would leave the secrets behind the other "
            "links; redact it with -o and replace the links yourself"
        )
    handle, temporary = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, status.st_mode & 0o7777)  # noqa: PTH101 - the temporary's name is a str
        os.replace(temporary, real)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise
    _sync_folder(real.parent)


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk (where folders can be opened: not on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
