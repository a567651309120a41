"""What counts as a secret in a capture, and how a secret is shown: masked, deterministically.

A mask is ``<secret:xxxxxxxx>`` with the first 8 hex digits of the value's SHA-256, so two
captures holding the same secret show the same mask and a changed secret shows a changed mask.
The empty string is not a secret: it is shown as it is.

URLs and query strings are masked in place: only the secret values change, every other byte of the
URL is kept, so a redacted capture differs from the original exactly where a secret was.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, unquote_plus

#: Names (env vars, map keys, headers, query parameters) whose values are credentials.
SECRET_NAME = re.compile(
    r"(pass(word|wd)?|pwd|token|secret|credential|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"(^|[-_])key$|^key$|auth(orization)?$|cookie|session)",
    re.IGNORECASE,
)
#: Keys of objects that map variable names to values (the raw-request ``env``, HAR ``headers``).
ENV_MAPS = frozenset({"env", "envs", "environment", "headers"})
#: Keys whose values are credentials wherever they appear.
SECRET_KEYS = frozenset({"imagePullSecretUsername", "imagePullSecretPassword", "bosTemporaryToken"})
#: Objects holding a registry login, and its keys (the create request's ``jobSpec.imageConfig``).
LOGIN_HOLDERS = frozenset({"imageConfig"})
LOGIN_KEYS = frozenset({"username", "password"})
_MASK = re.compile(r"^<secret:[0-9a-f]{8}>$")
_USERINFO = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)(?P<password>[^/?#@]*)@")


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


def is_unmasked(value: object) -> bool:
    """True when ``value`` is a secret still in the clear: a non-empty string or a number, not a mask."""
    if isinstance(value, str):
        return value != "" and not is_mask(value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def mask_query(query: str) -> str:
    """``query`` (``a=1&token=abc``) with the values of credential-like names masked, other bytes kept.

    Masks the decoded value, as :func:`jobschema.inputs.har.safe_url` does, so both show the same mask.
    """
    return "&".join(_mask_pair(part) for part in query.split("&"))


def _mask_pair(part: str) -> str:
    name, equals, value = part.partition("=")
    if not equals or not is_secret_name(unquote_plus(name)):
        return part
    plain = unquote_plus(value)
    return f"{name}={mask(plain)}" if is_unmasked(plain) else part


def mask_url(url: str) -> str:
    """``url`` with credential-like query values and a ``user:password@`` password masked.

    Every other byte is kept, so the URL changes exactly where a secret was.
    """
    base, hash_, fragment = url.partition("#")
    head, question, query = base.partition("?")
    match = _USERINFO.match(head)
    if match and is_unmasked(unquote(match["password"])):
        head = f"{match['head']}{mask(unquote(match['password']))}@{head[match.end() :]}"
    return head + question + mask_query(query) + hash_ + fragment


#: Secret-shaped parts of free text: authorization values and JSON Web Tokens.
_SHAPES = re.compile(
    r"(?i:\b(?:bearer|basic)\s+)(?P<credential>[A-Za-z0-9._~+/=-]{8,})"
    r"|(?P<jwt>\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)"
)


def scrub(text: str) -> str:
    """``text`` with every secret-shaped part masked (authorization values, JWTs); other bytes kept."""

    def replace(match: re.Match[str]) -> str:
        group = "credential" if match["credential"] else "jwt"
        start, end = match.span(group)
        whole = match.group(0)
        offset = match.start()
        return whole[: start - offset] + mask(match[group]) + whole[end - offset :]

    return _SHAPES.sub(replace, text)


def is_secret_place(keys: Sequence[str | int | None], parent: Any) -> bool:
    """True when the member ``keys[-1]`` of the object ``parent`` holds a credential (by rule, not schema).

    ``keys`` are the last keys of its path, nearest last (up to three are looked at; an array index
    may be given as an int or None). An env map is an object of plain values under a key of
    :data:`ENV_MAPS`, so a JSON Schema's ``envs`` object is not one.
    """
    key = keys[-1] if keys else None
    if not isinstance(key, str) or not isinstance(parent, dict):
        return False
    above = keys[-2] if len(keys) > 1 else None
    if key in SECRET_KEYS or (key in LOGIN_KEYS and above in LOGIN_HOLDERS):
        return True
    if (
        above in ENV_MAPS
        and is_secret_name(key)
        and not any(isinstance(v, dict | list) for v in parent.values())
    ):
        return True
    if key != "value":
        return False
    name = parent.get("name")
    return (isinstance(name, str) and is_secret_name(name)) or (len(keys) > 2 and keys[-3] == "cookies")
