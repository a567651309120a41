"""Masking the values a diff reports: secrets never leave the diff unmasked unless asked.

The policy is :mod:`jobschema.secrets`, as for every other output: fields the schema marks
``x-jobschema-secret`` (``false`` keeps a credential-like name shown), members named like a
credential, the ``value`` beside a credential-like ``name`` or ``key``, cookies, and every secret
shape inside any other string (:func:`jobschema.secrets.scrub`). An embedded document that does not
parse is masked whole (where its secrets are cannot be told). Only reported values are masked, so a
diff of large snapshots pays nothing for the parts that did not change.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jobschema.secrets.policy import is_secret_place, mask, mask_all, scrub

if TYPE_CHECKING:
    from jobschema.diff.plan import Plan

Keys = tuple[str | None, str | None, str | None]

__all__ = ["is_secret_place", "mask_all", "mask_nested"]


def mask_nested(value: Any, plan: Plan, keys: Keys, embedded: Callable[[str], Plan]) -> Any:
    """``value`` (found at a place with the object ``keys`` above it) with the secrets inside it masked."""
    if plan.place.secret:
        return mask_all(value)
    if isinstance(value, str):
        if plan.place.embedded:
            return _mask_embedded(value, embedded(plan.place.embedded), embedded)
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(key): _member(value, key, plan, keys, embedded) for key in value}
    if isinstance(value, list):
        return [
            mask_all(item)
            if is_secret_place((index,), value)
            else mask_nested(item, plan.child(index), (*keys[1:], None), embedded)
            for index, item in enumerate(value)
        ]
    return value


def _member(parent: dict[str, Any], key: str, plan: Plan, keys: Keys, embedded: Callable[[str], Plan]) -> Any:
    sub = plan.child(key)
    child_keys: Keys = (keys[1], keys[2], key)
    if sub.place.secret or (not sub.place.public and is_secret_place(child_keys, parent)):
        return mask_all(parent[key])
    return mask_nested(parent[key], sub, child_keys, embedded)


def _mask_embedded(text: str, plan: Plan, embedded: Callable[[str], Plan]) -> str:
    try:
        inner = json.loads(text)
    except (ValueError, RecursionError):
        return mask(text)  # cannot tell where its secrets are: show none of it
    masked = mask_nested(inner, plan, (None, None, None), embedded)
    return text if masked == inner else json.dumps(masked, ensure_ascii=False, separators=(",", ":"))
