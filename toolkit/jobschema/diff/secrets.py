"""Masking the values a diff reports: secrets never leave the diff unmasked unless asked.

The policy is :mod:`jobschema.secrets`, as for every other output: fields the schema marks
``x-jobschema-secret`` (``false`` keeps a credential-like name shown), members named like a
credential, the ``value`` beside a credential-like ``name`` or ``key``, cookies, and every secret
shape inside any other string (:func:`jobschema.secrets.scrub`). An embedded document that does not
parse is masked whole (where its secrets are cannot be told). Only reported values are masked, so a
diff of large snapshots pays nothing for the parts that did not change.

Locations are user data too: every object key of a path or pointer and every list-item selector value
is read by the full policy on its own (:func:`masked_token`), before it is escaped, quoted or put
together with the rest of the location, as validate reads the tokens of its findings' pointers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jobschema.secrets.policy import is_secret_place, mask, mask_all, masked_pointer, masked_token
from jobschema.secrets.walk import masked_copy

if TYPE_CHECKING:
    from jobschema.diff.plan import Plan

Keys = tuple[str | None, str | None, str | None]

__all__ = ["as_is", "is_secret_place", "mask_all", "mask_nested", "masked_pointer", "masked_token"]


def as_is(token: str) -> str:
    """A token shown as it is (``--show-secrets``)."""
    return token


def mask_nested(value: Any, plan: Plan, keys: Keys, embedded: Callable[[str], Plan]) -> Any:
    """``value`` (found at a place with the object ``keys`` above it) with the secrets inside it masked:
    the secret walk (:func:`jobschema.secrets.walk.masked_copy`) read through the diff's plan."""

    def inner(text: str, target: str) -> str:
        return _mask_embedded(text, embedded(target), embedded)

    return masked_copy(value, plan, keys, inner)


def _mask_embedded(text: str, plan: Plan, embedded: Callable[[str], Plan]) -> str:
    try:
        inner = json.loads(text)
    except (ValueError, RecursionError):
        return mask(text)  # cannot tell where its secrets are: show none of it
    masked = mask_nested(inner, plan, (None, None, None), embedded)
    return text if masked == inner else json.dumps(masked, ensure_ascii=False, separators=(",", ":"))
