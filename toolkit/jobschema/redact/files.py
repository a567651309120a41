"""Rewriting a capture in place (``redact --in-place``), atomically and durably by the rule every
file jobschema writes follows (:mod:`jobschema.outputs`), keeping the file's mode, owner and group,
never one with several hard links, and never one that changed after it was read."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from jobschema.outputs import Staged, commit, staged

__all__ = ["InPlaceError", "Target", "commit_in_place", "in_place_target", "replace_file", "staged"]

#: What tells a file apart from the same name after another writer: a new file (device, inode), new
#: content (size, modification time), or a change of its metadata (status change time).
_IDENTITY = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")


class InPlaceError(Exception):
    """A file ``--in-place`` refuses to rewrite, or could not rewrite (the message says why)."""


@dataclass(frozen=True)
class Target:
    """The real file an input names (symlinks followed) and its status when it was read."""

    path: Path
    status: os.stat_result

    @property
    def mode(self) -> int:
        return self.status.st_mode & 0o7777


def replace_file(path: Path, data: bytes, read: os.stat_result | None = None) -> None:
    """Rewrite ``path`` with ``data`` atomically and durably, keeping its mode, owner and group.

    A temporary file is written beside the real file (a symlink is followed: the file it points to
    is rewritten and the link stays), flushed to disk, renamed over it, and the folder is flushed
    too. The temporary file is removed on any failure, Ctrl-C included. A file with several hard
    links is refused: the rename would give this name a new file and leave the secrets readable
    through the other links. ``read`` is the file's status taken before ``data`` was made from it:
    when the file changed since, it is left as it is (:class:`InPlaceError`).
    """
    target = in_place_target(path, read)
    with staged(target.path) as file:
        file.write(data)
        commit_in_place(file, target)


def in_place_target(path: Path, read: os.stat_result | None = None) -> Target:
    """The real file behind ``path`` (symlinks followed) and its status (``read``, when taken as it
    was read); refuses several hard links. Raises :class:`OSError` when the file cannot be stated."""
    real = Path(os.path.realpath(path))
    status = read if read is not None else real.stat()
    if status.st_nlink > 1:
        raise InPlaceError(
            f"has {status.st_nlink} hard links: rewriting it would leave the secrets behind the other "
            "links; redact it with -o and replace the links yourself"
        )
    return Target(real, status)


def commit_in_place(file: Staged, target: Target) -> None:
    """Give the staged file the owner, group and mode of ``target`` and rename it over it, unless the
    file changed since it was read (:class:`InPlaceError`: then nothing is written)."""
    try:
        now = target.path.stat()
    except FileNotFoundError:
        now = None
    if now is None or _identity(now) != _identity(target.status):
        raise InPlaceError("changed while it was being redacted; nothing written: run redact again")
    _keep_owner(file, target.status)
    commit(file, target.path, target.mode)  # (the mode after the owner: chown clears set-id bits)


def _identity(status: os.stat_result) -> tuple[int, ...]:
    return tuple(getattr(status, name) for name in _IDENTITY)


def _keep_owner(file: Staged, status: os.stat_result) -> None:
    """The owner and group of the file replaced, as far as this process may give them (as
    ``sed -i`` does: root keeps both; another user keeps the group when a member of it)."""
    descriptor = file.stream.fileno()
    with contextlib.suppress(OSError):
        os.fchown(descriptor, status.st_uid, status.st_gid)
        return
    with contextlib.suppress(OSError):
        os.fchown(descriptor, -1, status.st_gid)
