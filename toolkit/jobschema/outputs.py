"""Every file jobschema writes — a report's ``-o``, a redacted capture, a witness, a baseline, a HAR
rewritten whole — is written by one rule (:func:`write_file`):

- a symbolic link is followed: the file it points to is written and the link stays a link;
- a FIFO, a device or a socket (``-o /dev/stdout``, a shell's ``>(…)``) is written to as it is:
  there is no file to replace, and replacing the name would take it from its reader;
- a name of one of this process's open descriptors (``/dev/stdout``, ``/dev/stderr``,
  ``/dev/fd/N``, ``/proc/self/fd/N``) is written through that descriptor, where it stands, whatever
  it leads to: stdout redirected to a file (``>> log``) gets the report after what it holds, as
  ``-o -`` would (replacing the file, or opening it anew, which truncates it, would lose what the
  shell wrote to it before, and what it writes after would go to a file no name leads to);
- a regular file (or a new one) is written whole or not at all: a temporary file with a name of its
  own beside it (two runs never share one, and nothing of the user's is overwritten by it), flushed
  to disk, given the mode the file had (a new file: the one the umask gives), renamed over it, the
  folder flushed; on any failure, Ctrl-C included, the old file stays as it was and the temporary
  goes;
- a folder is an error (``is a folder``), as is an empty name.

Errors are :class:`OSError` with their reason in ``strerror``; the caller names the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "Destination",
    "Staged",
    "commit",
    "destination",
    "new_file_mode",
    "open_direct",
    "staged",
    "write_file",
]


@dataclass(frozen=True)
class Destination:
    """Where a file named by the user is written: ``path`` (links followed), and either the ``mode``
    its replacement gets or ``direct`` (a FIFO, device or socket, written to as it is);
    ``descriptor``: the open descriptor of this process the name names, written through."""

    path: Path
    mode: int = 0
    direct: bool = False
    descriptor: int | None = None


#: Names of this process's open descriptors (Linux, the BSDs, macOS): what they lead to is open already.
_DESCRIPTOR = re.compile(
    r"/dev/(?:(?P<stream>stdin|stdout|stderr)|fd/(?P<fd>[0-9]+))|/proc/self/fd/(?P<proc>[0-9]+)"
)
_STREAMS = {"stdin": 0, "stdout": 1, "stderr": 2}


def descriptor(name: str | Path) -> int | None:
    """The descriptor of this process that ``name`` names (``/dev/stdout`` is 1), or None."""
    matched = _DESCRIPTOR.fullmatch(os.path.abspath(name))  # noqa: PTH100 - a str, not resolved
    if matched is None:
        return None
    if matched["stream"]:
        return _STREAMS[matched["stream"]]
    return int(matched["fd"] or matched["proc"])


def destination(name: str | Path) -> Destination:
    """The :class:`Destination` of ``name``; raises :class:`OSError` for a folder or an empty name."""
    if not os.fspath(name):
        raise OSError(errno.ENOENT, "an empty name names no file")
    number = descriptor(name)
    if number is not None:
        return Destination(Path(name), direct=True, descriptor=number)
    real = Path(os.path.realpath(name))
    try:
        status = real.stat()
    except FileNotFoundError:
        return Destination(real, new_file_mode())
    if stat.S_ISDIR(status.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder")
    if not stat.S_ISREG(status.st_mode):
        return Destination(real, direct=True)
    return Destination(real, status.st_mode & 0o7777)


def write_file(name: str | Path, data: bytes) -> None:
    """Write ``data`` to the file ``name`` names, by the module's rule."""
    target = destination(name)
    if target.direct:
        with open_direct(target) as stream:
            stream.write(data)
        return
    with staged(target.path) as file:
        file.write(data)
        commit(file, target.path, target.mode)


def open_direct(target: Destination) -> BinaryIO:
    """A stream writing to a direct :class:`Destination`: a copy of the descriptor it names (written
    where the descriptor stands, what Python holds for it flushed first), else the FIFO, device or
    socket opened."""
    if target.descriptor is None:
        return target.path.open("wb", buffering=0)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream is not None and stream.fileno() == target.descriptor:
                stream.flush()
    return os.fdopen(os.dup(target.descriptor), "wb", buffering=0)


def new_file_mode() -> int:
    """The mode a new file gets under this process's umask (a temporary file is created 0600)."""
    umask = os.umask(0o077)
    os.umask(umask)
    return 0o666 & ~umask


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
