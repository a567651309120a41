"""Rewriting a file in place, atomically and durably: a temporary file beside it, flushed to disk,
renamed over it, the folder flushed; nothing left behind on any failure."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO


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
    real, mode = in_place_target(path)
    with staged(real) as file:
        file.write(data)
        commit(file, real, mode)


def in_place_target(path: Path) -> tuple[Path, int]:
    """The real file behind ``path`` (symlinks followed) and its mode; refuses several hard links."""
    real = Path(os.path.realpath(path))
    status = real.stat()
    if status.st_nlink > 1:
        raise InPlaceError(
            f"has {status.st_nlink} hard links: rewriting it would leave the secrets behind the other "
            "links; redact it with -o and replace the links yourself"
        )
    return real, status.st_mode & 0o7777


@dataclass(frozen=True)
class Staged:
    """A temporary file being written beside the file it will replace."""

    stream: BinaryIO
    path: str

    def write(self, data: bytes) -> None:
        self.stream.write(data)


@contextlib.contextmanager
def staged(target: Path) -> Iterator[Staged]:
    """A temporary file beside ``target``, removed when the block ends without :func:`commit`
    (a failure, Ctrl-C, or nothing to write)."""
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    stream = os.fdopen(handle, "wb")
    try:
        yield Staged(stream, temporary)
    finally:
        stream.close()
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108 - gone already once committed


def commit(file: Staged, target: Path, mode: int | None) -> None:
    """Flush a :func:`staged` file to disk, give it ``mode`` and rename it over ``target``."""
    file.stream.flush()
    os.fsync(file.stream.fileno())
    if mode is not None:
        os.fchmod(file.stream.fileno(), mode)
    os.replace(file.path, target)  # noqa: PTH105 - the temporary's name is a str
    _sync_folder(target.parent)


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
