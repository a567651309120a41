"""Which files the command-line inputs name, and the one reader of files and standard input.

Inputs are files, folders (walked recursively for :data:`EXTENSIONS`, following links to folders
once, sorted), quoted globs (expanded and sorted) and ``-`` for standard input, shown as
:data:`STDIN_NAME`. An input that names nothing raises :class:`InputNotFound`; what a folder holds
(or a glob matches) but cannot be read as a payload (a link loop, a dangling link, a FIFO, a folder
that cannot be read) is skipped with a note. Nothing a folder holds raises: a path is looked at with
one ``stat`` whose error is an answer, and a file that cannot be opened is its reader's finding.
"""

from __future__ import annotations

import errno
import glob
import io
import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

from jobschema.errors import InputNotFound
from jobschema.inputs.parse import BINARY_PROBE, BOM, binary
from jobschema.text import visible

EXTENSIONS = (".json", ".ndjson", ".jsonl", ".har")
#: The input name of standard input, and how it is shown in reports.
STDIN = "-"
STDIN_NAME = "<stdin>"


def input_names(inputs: Any, hint: str = "") -> list[str]:
    """``inputs`` as the names :func:`expand` takes: one path (``str``, ``bytes`` or
    ``os.PathLike``) or an iterable of them, so one string is one path, never a path per character.
    Anything else is a ``TypeError`` naming ``inputs`` (a payload given where paths are expected, a
    number), ``hint`` added (what the caller offers instead)."""
    if isinstance(inputs, str | bytes | os.PathLike):
        inputs = [inputs]
    elif isinstance(inputs, Mapping) or not isinstance(inputs, Iterable):
        raise TypeError(f"inputs: expected a path or an iterable of paths, not {type(inputs).__name__}{hint}")
    names = []
    for item in inputs:
        if not isinstance(item, str | bytes | os.PathLike):
            raise TypeError(f"inputs: expected paths (str, bytes or os.PathLike), not {type(item).__name__}")
        names.append(os.fsdecode(item))
    return names


@dataclass(frozen=True)
class Expansion:
    """The files to read, in order, the notes on what folders held that could not be read, and (when
    asked to go on, :func:`expand`) why each input that names nothing to read does not."""

    files: list[str]
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def shown(name: str) -> str:
    """An input's name as reports show it (``<stdin>`` for ``-``)."""
    return STDIN_NAME if name == STDIN else name


def named(name: str | os.PathLike[str]) -> str:
    """A file's name as an error or a note shows it: :func:`shown`, read whole by the secret policy
    (a file may be named ``password=…``; the line's own words around it are not read, so an
    option such as ``--credentials FILE`` keeps its name), control characters escaped."""
    from jobschema.secrets.policy import masked_path

    return visible(masked_path(shown(os.fspath(name))))


def expand(inputs: Sequence[str], keep_going: bool = False) -> Expansion:
    """Files to read, in order: folders walked recursively, quoted globs expanded, duplicates dropped
    (:func:`_distinct`).

    An input that names nothing to read (no such file, a folder without payload files, a glob that
    matches none) raises :class:`~jobschema.errors.InputNotFound`, or with ``keep_going`` is listed
    in :attr:`Expansion.missing` and the others are expanded as ever."""
    files: list[str] = []
    notes: list[str] = []
    missing: list[str] = []
    for item in inputs:
        try:
            files.extend(_expand_one(item, notes))
        except InputNotFound as err:
            if not keep_going:
                raise
            missing.append(str(err))
    return Expansion(_distinct(files) if len(inputs) > 1 else list(dict.fromkeys(files)), notes, missing)


def _distinct(files: list[str]) -> list[str]:
    """``files`` each once, as first named: ``a.json``, ``./a.json`` and ``$PWD/d/../a.json`` are one
    file, as a folder and a file in it are (two links to one file stay two names: each is read).
    Only inputs named several times need it: one folder's walk names each file once."""
    first: dict[str, str] = {}
    for name in files:
        first.setdefault(name if name == STDIN else os.path.abspath(name), name)  # noqa: PTH100
    return list(first.values())


def _expand_one(item: str, notes: list[str]) -> list[str]:
    if item == STDIN:
        return [STDIN]
    if not item:  # (an unset variable: "$CAPTURES")
        raise InputNotFound('"" (an empty name): no such file or folder')
    if "\x00" in item:  # (no file's name holds one: the system refuses to look)
        raise InputNotFound(f"{named(item)}: no such file or folder (a name cannot hold a NUL byte)")
    status = _status(item)
    if isinstance(status, os.stat_result) and stat.S_ISDIR(status.st_mode):
        return _folder(item, status, notes)
    if not isinstance(status, OSError) or status.errno not in _MISSING or os.path.islink(item):  # noqa: PTH114
        return [item]  # named directly, whatever is there is read: a FIFO, a loop or a dangling link is
        # that input's finding, as a missing file would be
    if glob.has_magic(item):
        return _matches(item, notes)
    raise InputNotFound(f"{named(item)}: no such file or folder")


def _folder(item: str, info: os.stat_result, notes: list[str]) -> list[str]:
    walk = _Walk(item, info)
    found = sorted(walk.run())
    if not found:
        raise InputNotFound(
            f"{named(item)}: folder holds no *.json, *.ndjson, *.jsonl or *.har files{_why(walk)}"
        )
    notes += walk.notes()
    return found


#: How many skipped entries the error on a folder where nothing can be read names.
_NAMED = 3


def _why(walk: _Walk) -> str:
    """`` that can be read (skipped: PATH: REASON; …)`` when something was skipped, else ""."""
    skipped = sorted(walk.skipped)
    if not skipped:
        return ""
    listed = [f"{named(path)}: {reason}" for path, reason in skipped[:_NAMED]]
    more = f"; and {len(skipped) - _NAMED} more" if len(skipped) > _NAMED else ""
    return f" that can be read (skipped: {'; '.join(listed)}{more})"


def _matches(pattern: str, notes: list[str]) -> list[str]:
    """The files a quoted glob matches, sorted; what it matches that cannot be read (a link loop, a
    dangling link, a FIFO) is skipped with a note, a folder without one."""
    found: list[str] = []
    skipped: list[tuple[str, str]] = []
    for path in sorted(glob.glob(pattern, recursive=True)):  # noqa: PTH207 - absolute patterns
        target = _status(path)
        if isinstance(target, os.stat_result) and stat.S_ISDIR(target.st_mode):
            continue  # (a folder a pattern matches is not walked)
        reason = _unread(target, payload=True)
        if reason is None:
            found.append(path)
        else:
            skipped.append((path, reason))
    if not found:
        raise InputNotFound(f"{named(pattern)}: no file matches this pattern")
    notes += [f"{named(path)}: {reason}, skipped" for path, reason in skipped]
    return found


#: What a link that cannot be followed is, by the error following it gives (any other error, such
#: as EACCES, leaves a payload file to its reader, which reports it as that input's finding).
#: What a reason a capture is not read adds when standard input would take it (a side file cannot be
#: standard input: :mod:`jobschema.inputs.side` drops it).
STDIN_HINT = " (pipe it to - to read it as standard input)"
#: How a link that cannot be followed is named (here and for side files, :mod:`jobschema.inputs.side`).
LOOP = "symbolic link loop"
DANGLING = "dangling symbolic link"
_MISSING = (errno.ENOENT, errno.ENOTDIR)


def _status(path: str) -> os.stat_result | OSError:
    """``os.stat`` of ``path`` (links followed), or the error it raised."""
    try:
        return os.stat(path)  # noqa: PTH116 - no Path object per file
    except OSError as err:
        return err


def _unread(target: os.stat_result | OSError, payload: bool) -> str | None:
    """Why an entry that is not a folder, whose ``stat`` gave ``target``, is skipped; None when it is
    read: a regular file, or a payload file that cannot be looked at (its reader says why)."""
    if isinstance(target, OSError):
        if target.errno == errno.ELOOP:
            return LOOP
        if target.errno in _MISSING:
            return DANGLING
        return None if payload else f"cannot follow symbolic link: {target.strerror or target}"
    return None if stat.S_ISREG(target.st_mode) else "not a regular file"


class _Walk:
    """The payload files below a folder, in no order (``os.scandir``: no extra ``stat`` per regular
    file), and what was skipped, each with why.

    Real subfolders are walked first, then links to folders, each folder once: a link to a folder
    already walked (a loop, or a second way to the same folder) is skipped, as are link loops,
    dangling links, files that are not regular (FIFOs, sockets) and folders that cannot be read.
    Nothing below the folder raises: one entry that cannot be read never stops the others.
    """

    def __init__(self, folder: str, info: os.stat_result) -> None:
        self.seen = {_identity(info)}
        self.folders = [folder]
        self.links: list[tuple[str, os.stat_result]] = []
        self.found: list[str] = []
        self.skipped: list[tuple[str, str]] = []

    def notes(self) -> list[str]:
        return sorted(f"{named(path)}: {reason}, skipped" for path, reason in self.skipped)

    def run(self) -> list[str]:
        while self.folders or self.links:
            if not self.folders:
                link, info = self.links.pop()
                if _identity(info) in self.seen:
                    self.skipped.append((link, "link to a folder walked already"))
                    continue
                self.seen.add(_identity(info))
                self.folders.append(link)
            self._scan(self.folders.pop())
        return self.found

    def _scan(self, folder: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            self.skipped.append((folder, f"cannot read folder: {err.strerror or err}"))
            return
        for entry in entries:
            try:
                self._visit(entry)
            except OSError as err:  # (d_type unknown and the entry gone, or a folder not searchable)
                kind = "folder" if _is_real_folder(entry) else "file"
                self.skipped.append((entry.path, f"cannot read {kind}: {err.strerror or err}"))

    def _visit(self, entry: os.DirEntry[str]) -> None:
        if entry.is_dir(follow_symlinks=False):
            identity = _identity(entry.stat(follow_symlinks=False))
            if identity not in self.seen:
                self.seen.add(identity)
                self.folders.append(entry.path)
            return
        payload = os.path.splitext(entry.name)[1].lower() in EXTENSIONS  # noqa: PTH122 - no Path per file
        if not entry.is_symlink():
            if payload:
                self._file(entry.path, None if entry.is_file(follow_symlinks=False) else "not a regular file")
            return
        target = _status(entry.path)
        if isinstance(target, os.stat_result) and stat.S_ISDIR(target.st_mode):
            self.links.append((entry.path, target))
            return
        reason = _unread(target, payload)
        if payload or (isinstance(target, OSError) and reason != DANGLING):
            self._file(entry.path, reason)  # (a link loop or a link not followed may be meant as a folder)

    def _file(self, path: str, reason: str | None) -> None:
        if reason is None:
            self.found.append(path)
        else:
            self.skipped.append((path, reason))


def _is_real_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def read_bytes(name: str, stdin: BinaryIO | None = None, limit: int | None = None) -> bytes | OSError:
    """The bytes of ``name`` (``-``: standard input), or the error that stopped reading them. Only a
    regular file is read (see :func:`open_file`); with plain system calls, no file object: sized
    by ``fstat`` and read in one call, then one more that must find the end. A file of more than
    ``limit`` bytes is an error (:data:`errno.EFBIG`), refused before it is read."""
    if name == STDIN:
        try:
            return read_stream(stdin or standard_input())
        except OSError as err:
            return err
    opened = _open_regular(name)
    if isinstance(opened, OSError):
        return opened
    handle, size = opened
    try:
        data = _read_all(handle, min(size, limit) if limit is not None else size, limit)
    except OSError as err:
        return err
    finally:
        os.close(handle)
    if limit is not None and len(data) > limit:
        return OSError(errno.EFBIG, f"larger than {_size(limit)}")
    return data


def standard_input() -> BinaryIO:
    """This process's standard input as bytes. Raises :class:`OSError` when there is none to read:
    closed (``jobschema validate - <&-``: Python then sets ``sys.stdin`` to None), or a text stream
    without bytes below it (a notebook's): that input's finding, never the run's end."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, "standard input is closed")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OSError(errno.EBADF, "standard input is not a byte stream")
    return cast(BinaryIO, Bounded(stream))


#: The most standard input is read for: bytes, and lines (an endless stream, ``yes '{}' |``, ends
#: in that input's finding, not in a run that never ends or takes the memory there is). A file has
#: a size and is read whole; a larger stream is saved to a file and named.
STDIN_LIMIT = 256 << 20
STDIN_LINES = 250_000


class Bounded(io.RawIOBase):
    """A byte stream that raises :class:`OSError` (:data:`errno.EFBIG`) once more than ``limit``
    bytes or ``lines`` lines were asked of it, never holding more than ``limit`` bytes: standard
    input, which may never end. Reads ``read``, ``readline`` and iteration by line."""

    def __init__(self, stream: BinaryIO, limit: int | None = None, lines: int | None = None) -> None:
        super().__init__()
        self.stream = stream
        self.limit = STDIN_LIMIT if limit is None else limit
        self.lines = STDIN_LINES if lines is None else lines
        self.given = self.lines_given = 0

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.stream.fileno()

    def _take(self, data: bytes) -> bytes:
        self.given += len(data)
        if self.given > self.limit:
            raise OSError(
                errno.EFBIG,
                f"standard input holds more than {_size(self.limit)} (read no further): "
                "save it to a file and name the file",
            )
        return data

    def read(self, size: int | None = -1) -> bytes:
        room = self.limit - self.given + 1
        return self._take(self.stream.read(room if size is None or size < 0 else min(size, room)))

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        room = self.limit - self.given + 1
        line = self._take(self.stream.readline(room if size is None or size < 0 else min(size, room)))
        if line.endswith(b"\n"):
            self.lines_given += 1
            if self.lines_given > self.lines:
                raise OSError(
                    errno.EFBIG,
                    f"standard input holds more than {self.lines:,} lines (read no "
                    "further): save it to a file and name the file",
                )
        return line

    def __iter__(self) -> Bounded:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def read_stream(stream: BinaryIO, head: bytes = b"") -> bytes:
    """Every byte of ``stream`` after ``head`` (read already), or only its start when that shows it
    binary (:func:`jobschema.inputs.parse.binary`: what follows cannot change that), so an endless
    stream of bytes (``- < /dev/zero``) is never held. Raises :class:`OSError` (:func:`too_large`
    for more than the memory available holds)."""
    try:
        if len(head) < STREAM_PROBE:
            head += stream.read(STREAM_PROBE - len(head))
        return head if binary(head) else head + stream.read()
    except MemoryError:
        raise too_large() from None


#: How much of a stream shows whether it is binary (a BOM, then the bytes looked at).
STREAM_PROBE = len(BOM) + BINARY_PROBE


def too_large() -> OSError:
    """The error of an input too large to read into the memory available: that input's finding (the
    others are still read), never the run's end."""
    return OSError(errno.ENOMEM, "too large to read into the memory available")


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count} bytes"


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1 << 20


def _read_all(handle: int, size: int, limit: int | None = None) -> bytes:
    """Every byte of an open file expected to hold ``size``: it may have grown or shrunk since
    (past ``limit``, one byte more than it is read, so a growing file is read no further). Raises
    :class:`OSError` (:func:`too_large` for more than the memory available holds)."""
    try:
        return _read_chunks(handle, size, limit)
    except MemoryError:
        raise too_large() from None


def _read_chunks(handle: int, size: int, limit: int | None) -> bytes:
    first = os.read(handle, size + 1)
    if limit is not None and len(first) > limit:
        return first
    more = os.read(handle, _CHUNK)
    if not more:
        return first
    chunks, held = [first, more], len(first) + len(more)
    while (limit is None or held <= limit) and (chunk := os.read(handle, _CHUNK)):
        chunks.append(chunk)
        held += len(chunk)
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
        return _refused(name, err)
    try:
        info = os.fstat(handle)
        refused = _not_regular(info.st_mode)
    except OSError as err:
        refused = str(err)
    if refused:
        os.close(handle)
        return OSError(refused)
    return handle, info.st_size


def _refused(name: str, err: OSError) -> OSError:
    """Why ``name`` could not be opened: what it is when that is why (a socket cannot be opened at
    all, ENXIO: it is named as a FIFO or a device is, never "No such device or address"; a link loop
    or a dangling link as a folder's notes name them), else ``err``."""
    if err.errno == errno.ELOOP:
        return OSError(err.errno, LOOP)
    if err.errno == errno.ENOENT and os.path.islink(name):  # noqa: PTH114 (names are str)
        return OSError(err.errno, DANGLING)
    if err.errno != errno.ENXIO:
        return err
    status = _status(name)
    kind = _not_regular(status.st_mode) if isinstance(status, os.stat_result) else ""
    return OSError(err.errno, kind) if kind else err


def _not_regular(mode: int) -> str:
    """Why a file of this mode is not read ("" for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"is {kind}, not a regular file{STDIN_HINT}"


def problem_text(err: OSError) -> str:
    """``cannot read file: REASON`` for a read error."""
    return f"cannot read file: {err.strerror or err}"
