"""The secret policy in one place: secrets by place (:mod:`~jobschema.secrets.names`), by shape
(:mod:`~jobschema.secrets.shapes`), and how they are shown (:mod:`~jobschema.secrets.mask`).

URLs and query strings are masked in place: only the secret values change, every other byte of the
URL is kept, so a redacted capture differs from the original exactly where a secret was.
:func:`masked` applies the whole policy to a parsed value (what validate's messages and diff's
values show).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, unquote_plus

from jobschema.pointer import from_path, to_path
from jobschema.secrets.mask import is_mask, is_unmasked, mask, mask_key, use_mask_key
from jobschema.secrets.names import is_secret_name, is_secret_parameter
from jobschema.secrets.places import is_secret_place
from jobschema.secrets.reading import scrub, scrub_path
from jobschema.secrets.walk import UNMARKED, mask_all, masked_copy

__all__ = [
    "is_mask",
    "is_secret_name",
    "is_secret_parameter",
    "is_secret_place",
    "is_unmasked",
    "mask",
    "mask_all",
    "mask_key",
    "mask_query",
    "mask_url",
    "masked",
    "masked_path",
    "masked_pointer",
    "masked_token",
    "scrub",
    "use_mask_key",
]

_USERINFO = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)(?P<password>[^/?#@]*)@")


def mask_query(query: str) -> str:
    """``query`` (``a=1&token=abc``) with the values of credential-like names masked, other bytes kept.

    Masks the decoded value, so a HAR's ``queryString`` entry and its URL show the same mask.
    """
    return "&".join(_mask_pair(part) for part in query.split("&"))


def _mask_pair(part: str) -> str:
    name, equals, value = part.partition("=")
    if not equals or not is_secret_parameter(unquote_plus(name)):
        return part
    plain = unquote_plus(value)
    return f"{name}={mask(plain)}" if is_unmasked(plain) else part


def mask_url(url: str) -> str:
    """``url`` with credential-like query values, a ``user:password@`` password and every secret
    shape in it (a JWT in the path) masked. Every other byte is kept."""
    base, hash_, fragment = url.partition("#")
    head, question, query = base.partition("?")
    match = _USERINFO.match(head)
    if match and is_unmasked(unquote(match["password"])):
        head = f"{match['head']}{mask(unquote(match['password']))}@{head[match.end() :]}"
    return _segments(scrub(head)) + question + scrub(mask_query(query)) + hash_ + scrub(fragment)


def _segments(path: str) -> str:
    """``path`` (scrubbed whole already) with each segment between ``/`` read as a value of its own,
    decoded: a segment may be a whole text (an id that is base64 of a document holding a password,
    ``/workloads/ZGI6CiAg…``), which the path read whole does not decode (``/`` is base64's too)."""
    if "/" not in path:
        return path
    return "/".join(_segment(part) for part in path.split("/"))


def _segment(part: str) -> str:
    if len(part) < 8 or is_mask(part):
        return part
    plain = unquote(part)
    shown = masked_token(plain)
    if shown == plain:
        return part
    return shown if plain == part else mask(plain)


def masked(value: Any, keys: tuple[str | int | None, ...] = ()) -> Any:
    """A copy of ``value`` with the whole policy applied (no schema): members at secret places (by
    name, pairs, cookies) masked whole, every other string scrubbed of secrets; keys are scrubbed too.

    ``keys`` are the keys above ``value`` (nearest last), so a value found at ``…/env/HF_TOKEN`` can be
    judged by its name. Values nested too deeply to walk are shown as one mask.
    """
    return masked_copy(value, UNMARKED, keys)


#: Distinct tokens remembered by :func:`masked_token` (a history repeats its keys and selectors).
TOKENS_REMEMBERED = 1 << 16


def masked_token(token: str) -> str:
    """One piece of user data in a location (an object key, a list item's identity value) as it is
    shown: read by the full policy (:func:`jobschema.secrets.scrub`) as the unescaped token, before it
    is escaped, quoted or composed; an ordinary token is returned unchanged. Remembered per token
    (and mask key), so a selector repeated across a history costs one reading."""
    return _masked_token(token, mask_key())


@lru_cache(maxsize=TOKENS_REMEMBERED)
def _masked_token(token: str, key: bytes) -> str:
    return scrub(token)


def masked_path(name: str) -> str:
    """A file's name, or a source starting with one, as it is shown: :func:`scrub_path` (each part
    between separators read on its own too), remembered per name (and mask key) as tokens are."""
    return _masked_path(name, mask_key())


@lru_cache(maxsize=TOKENS_REMEMBERED)
def _masked_path(name: str, key: bytes) -> str:
    return scrub_path(name)


def masked_pointer(tokens: Iterable[str | int]) -> str:
    """The JSON Pointer of ``tokens`` (keys and indices), each key read by :func:`masked_token` before
    it is escaped."""
    return from_path(masked_token(token) if isinstance(token, str) else token for token in tokens)


def masked_pointer_text(pointer: str) -> str:
    """:func:`masked_pointer` of a JSON Pointer already written (``/env/0/value``)."""
    return masked_pointer(to_path(pointer)) if pointer else pointer
