"""Masks: how a secret is shown. ``<secret:xxxxxxxx>``, 8 hex digits of a keyed hash of the value.

The hash is HMAC-SHA256 under a key, so a mask does not let a guessable secret (a 6-digit PIN, a
dictionary password) be recovered by hashing candidates: without the key every guess is as good as
any other. The key is the environment variable ``JOBSCHEMA_MASK_KEY`` (any string; set it, e.g. from
a CI secret, for masks that stay byte-stable across runs and machines); when it is unset or empty,
each run draws a random key. Within a run the key never changes, so the same secret gets the same
mask everywhere (both sides of a diff, every file, every worker process: a pool's workers are given
the parent's key with :func:`use_mask_key`, every Dask task its client's with :func:`scoped_mask_key`)
and a changed secret shows a changed mask.

The empty string is not a secret (it is shown as it is), and a mask masks to itself.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from contextvars import ContextVar
from functools import lru_cache

#: The environment variable holding the mask key.
KEY_VARIABLE = "JOBSCHEMA_MASK_KEY"
#: A mask as written (``<secret:1a2b3c4d>``), and as it may stand in a text (also XML-escaped).
MASK_SHAPE = re.compile(r"<secret:[0-9a-f]{8}>")
MASK_IN_TEXT = re.compile(r"(?:<|&lt;)secret:[0-9a-f]{8}(?:>|&gt;)")
_KEY: list[bytes] = []
#: A key in force for the current thread (or task) only: :func:`scoped_mask_key`.
_SCOPED: ContextVar[bytes | None] = ContextVar("jobschema_mask_key", default=None)


def mask_key() -> bytes:
    """This run's key: the one :func:`scoped_mask_key` put in force here, else ``JOBSCHEMA_MASK_KEY``
    (UTF-8), else 32 random bytes drawn once per process."""
    scoped = _SCOPED.get()
    if scoped is not None:
        return scoped
    if not _KEY:
        configured = os.environ.get(KEY_VARIABLE, "")
        _KEY.append(configured.encode("utf-8", "surrogatepass") if configured else os.urandom(32))
    return _KEY[0]


def use_mask_key(key: bytes | None) -> None:
    """Make masks with ``key`` from now on (a worker process given its parent's :func:`mask_key`);
    ``None`` forgets the key, so the next mask reads ``JOBSCHEMA_MASK_KEY`` again."""
    _KEY.clear()
    if key is not None:
        _KEY.append(key)
    _digest.cache_clear()


@contextlib.contextmanager
def scoped_mask_key(key: bytes) -> Iterator[None]:
    """Make masks with ``key`` inside the block, in this thread (context) only: a Dask worker runs the
    tasks of several runs, each under its client's key, in threads of one process."""
    token = _SCOPED.set(key)
    try:
        yield
    finally:
        _SCOPED.reset(token)


def mask(value: object) -> str:
    """The mask shown in place of a secret value (idempotent: a mask masks to itself)."""
    text = value if isinstance(value, str) else _number_text(value)
    if text == "" or MASK_SHAPE.fullmatch(text):
        return text
    return f"<secret:{_digest(mask_key(), text)}>"


def _number_text(value: object) -> str:
    try:
        return repr(value)
    except ValueError:  # an int beyond Python's 4,300-digit str limit: hex has no limit
        return f"{value:#x}"


@lru_cache(maxsize=8192)
def _digest(key: bytes, text: str) -> str:
    import hashlib  # only where a secret is masked (OpenSSL is a few milliseconds to load)
    import hmac

    data = text.encode("utf-8", "surrogatepass")
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:8]


def is_mask(value: object) -> bool:
    """True when ``value`` is already a mask."""
    return isinstance(value, str) and MASK_SHAPE.fullmatch(value) is not None


def is_unmasked(value: object) -> bool:
    """True when ``value`` is a secret still in the clear: a non-empty string or a number, not a mask."""
    if isinstance(value, str):
        return value != "" and not is_mask(value)
    return isinstance(value, int | float) and not isinstance(value, bool)
