"""Which files the command-line inputs name, and the one reader of files and standard input.

Inputs are files, folders (walked recursively for :data:`EXTENSIONS`, following links to folders
once, sorted), quoted globs (expanded and sorted) and ``-`` for standard input, shown as
:data:`STDIN_NAME`. An input that names nothing raises :class:`InputNotFound`; what a folder holds
but cannot be read as a payload (a dangling link, a link loop, a FIFO) is skipped with a note.
"""

from __future__ import annotations

import glob
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from jobschema.errors import InputNotFound

EXTENSIONS = (".json", ".ndjson", ".jsonl", ".har")
#: The input name of standard input, and how it is shown in reports.
STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass(frozen=True)
class Expansion:
    """The files to read, in order, and the notes on what folders held that could not be read."""

    files: list[str]
    notes: list[str] = field(default_factory=list)


def shown(name: str) -> str:
    """An input's name as reports show it (``<stdin>`` for ``-``)."""
    return STDIN_NAME if name == STDIN else name


def expand(inputs: Sequence[str]) -> Expansion:
    """Files to read, in order: folders walked recursively, quoted globs expanded, duplicates dropped."""
    files: list[str] = []
    notes: list[str] = []
    for item in inputs:
        files.extend(_expand_one(item, notes))
    return Expansion(list(dict.fromkeys(files)), notes)


def _expand_one(item: str, notes: list[str]) -> list[str]:
    if item == STDIN:
        return [STDIN]
    path = Path(item)
    if path.is_dir():
        found = sorted(_walk(item, notes))
        if not found:
            raise InputNotFound(f"{item}: folder holds no *.json, *.ndjson, *.jsonl or *.har files")
        return found
    if path.exists() or path.is_symlink():
        return [item]  # a dangling link named directly is read, and fails to read, as a missing file would
    if glob.has_magic(item):
        found = sorted(p for p in glob.glob(item, recursive=True) if Path(p).is_file())  # noqa: PTH207 - absolute patterns
        if not found:
            raise InputNotFound(f"{item}: no file matches this pattern")
        return found
    raise InputNotFound(f"{item}: no such file or folder")


def _walk(folder: str, notes: list[str]) -> Iterator[str]:
    """The payload files below ``folder``, in no order (``os.scandir``: no extra ``stat`` per file).

    Real subfolders are walked first, then links to folders, each folder once: a link to a folder
    already walked (a loop, or a second way to the same folder) is skipped with a note, as are
    dangling links and files that are not regular (FIFOs, sockets).
    """
    seen = {_identity(folder)}
    folders: list[str] = [folder]
    links: list[str] = []
    found: list[str] = []
    while folders or links:
        if not folders:
            link = links.pop()
            identity = _identity(link)
            if identity in seen:
                notes.append(f"{link}: link to a folder walked already, skipped")
                continue
            seen.add(identity)
            folders.append(link)
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:  # an unreadable subfolder is skipped, as glob and rglob skip it
            continue
        for entry in entries:
            _visit(entry, folders, links, seen, notes, found)
    notes.sort()
    return iter(found)


def _visit(
    entry: os.DirEntry[str],
    folders: list[str],
    links: list[str],
    seen: set[tuple[int, int]],
    notes: list[str],
    found: list[str],
) -> None:
    if entry.is_dir(follow_symlinks=False):
        identity = _identity(entry.path)
        if identity not in seen:
            seen.add(identity)
            folders.append(entry.path)
        return
    if entry.is_symlink() and _is_folder(entry):
        links.append(entry.path)
        return
    if os.path.splitext(entry.name)[1].lower() not in EXTENSIONS:  # noqa: PTH122 - no Path per file
        return
    if entry.is_file():
        found.append(entry.path)
    elif entry.is_symlink() and not os.path.exists(entry.path):  # noqa: PTH110
        notes.append(f"{entry.path}: dangling symbolic link, skipped")
    else:
        notes.append(f"{entry.path}: not a regular file, skipped")


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop the system itself refuses to follow
        return False


def _identity(folder: str) -> tuple[int, int]:
    info = os.stat(folder)  # noqa: PTH116
    return info.st_dev, info.st_ino


def read_bytes(name: str, stdin: BinaryIO | None = None) -> bytes | OSError:
    """The bytes of ``name`` (``-``: standard input), or the error that stopped reading them. Only a
    regular file is read (see :func:`open_file`); with plain system calls, no file object: sized
    by ``fstat`` and read in one call, then one more that must find the end."""
    if name == STDIN:
        return (stdin or sys.stdin.buffer).read()
    opened = _open_regular(name)
    if isinstance(opened, OSError):
        return opened
    handle, size = opened
    try:
        return _read_all(handle, size)
    except OSError as err:
        return err
    finally:
        os.close(handle)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1 << 20


def _read_all(handle: int, size: int) -> bytes:
    """Every byte of an open file expected to hold ``size``: it may have grown or shrunk since."""
    first = os.read(handle, size + 1)
    more = os.read(handle, _CHUNK)
    if not more:
        return first
    chunks = [first, more]
    while chunk := os.read(handle, _CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def open_file(name: str, buffering: int = -1) -> BinaryIO | OSError:
    """``name`` opened for reading bytes, or why it cannot be. Only regular files are opened: a FIFO,
    socket or device named directly is an error (reading one could wait forever), so is a folder."""
    opened = _open_regular(name)
    return opened if isinstance(opened, OSError) else os.fdopen(opened[0], "rb", buffering=buffering)


def _open_regular(name: str) -> tuple[int, int] | OSError:
    """``(descriptor, size)`` of ``name`` opened for reading, or why it is not (see :func:`open_file`)."""
    try:
        handle = os.open(name, _READ_FLAGS)
    except OSError as err:
        return err
    try:
        info = os.fstat(handle)
        refused = _not_regular(info.st_mode)
    except OSError as err:
        refused = str(err)
    if refused:
        os.close(handle)
        return OSError(refused)
    return handle, info.st_size


def _not_regular(mode: int) -> str:
    """Why a file of this mode is not read ("" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"is {kind}, not a regular file (pipe it to - to read it as standard input)"


def problem_text(err: OSError) -> str:
    """``cannot read file: REASON`` for a read error."""
    return f"cannot read file: {err.strerror or err}"
