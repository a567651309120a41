"""What counts as a secret in a capture, and how a secret is shown: masked, deterministically.

A mask is ``<secret:xxxxxxxx>`` with the first 8 hex digits of the value's SHA-256, so two
captures holding the same secret show the same mask and a changed secret shows a changed mask.
The empty string is not a secret: it is shown as it is.
"""

from __future__ import annotations

import hashlib
import re

#: Names (env vars, map keys, headers, query parameters) whose values are credentials.
SECRET_NAME = re.compile(
    r"(pass(word|wd)?|pwd|token|secret|credential|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"(^|[-_])key$|^key$|auth(orization)?$|cookie|session)",
    re.IGNORECASE,
)
_MASK = re.compile(r"^<secret:[0-9a-f]{8}>$")


def is_secret_name(name: str) -> bool:
    """True when ``name`` looks like it labels a credential (``DB_PASSWORD``, ``HF_TOKEN``, ``Cookie``)."""
    return bool(SECRET_NAME.search(name))


def mask(value: object) -> str:
    """The mask shown in place of a secret value (idempotent: a mask masks to itself)."""
    text = value if isinstance(value, str) else repr(value)
    if text == "" or _MASK.match(text):
        return text
    return f"<secret:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}>"


def is_mask(value: object) -> bool:
    """True when ``value`` is already a mask."""
    return isinstance(value, str) and _MASK.match(value) is not None
