"""Rewriting a capture in place (``redact --in-place``), atomically and durably by the rule every
file jobschema writes follows (:mod:`jobschema.outputs`), and never one with several hard links."""

from __future__ import annotations

import os
from pathlib import Path

from jobschema.outputs import commit, staged

__all__ = ["InPlaceError", "commit", "in_place_target", "replace_file", "staged"]


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
