"""Masking the values a diff reports: secrets never leave the diff unmasked unless asked.

Which places hold secrets is decided as ``jobschema redact`` decides it (:mod:`jobschema.secrets.policy`):
fields the schema marks ``x-jobschema-secret``, credential-like names in env maps, and the
``value`` beside a credential-like ``name``. Only reported values are masked, so a diff of large
snapshots pays nothing for the parts that did not change.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jobschema.secrets.policy import is_secret_place, mask

if TYPE_CHECKING:
    from jobschema.diff.plan import Plan

Keys = tuple[str | None, str | None, str | None]

__all__ = ["is_secret_place", "mask_all", "mask_nested"]


def mask_all(value: Any) -> Any:
    """``value`` with every scalar in it masked (a secret place that holds a structure)."""
    if isinstance(value, dict):
        return {key: mask_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [mask_all(item) for item in value]
    return None if value is None else mask(value)


def mask_nested(value: Any, plan: Plan, keys: Keys, embedded: Callable[[str], Plan]) -> Any:
    """``value`` (found at a place with the object ``keys`` above it) with the secrets inside it masked."""
    if plan.place.secret:
        return mask_all(value)
    if isinstance(value, str) and plan.place.embedded:
        return _mask_embedded(value, embedded(plan.place.embedded), embedded)
    if isinstance(value, dict):
        return {key: _member(value, key, plan, keys, embedded) for key in value}
    if isinstance(value, list):
        return [
            mask_nested(item, plan.child(index), (*keys[1:], None), embedded)
            for index, item in enumerate(value)
        ]
    return value


def _member(parent: dict[str, Any], key: str, plan: Plan, keys: Keys, embedded: Callable[[str], Plan]) -> Any:
    sub = plan.child(key)
    child_keys: Keys = (keys[1], keys[2], key)
    if sub.place.secret or is_secret_place(child_keys, parent):
        return mask_all(parent[key])
    return mask_nested(parent[key], sub, child_keys, embedded)


def _mask_embedded(text: str, plan: Plan, embedded: Callable[[str], Plan]) -> str:
    try:
        inner = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return mask(text)  # cannot tell where its secrets are: show none of it
    masked = mask_nested(inner, plan, (None, None, None), embedded)
    return text if masked == inner else json.dumps(masked, ensure_ascii=False, separators=(",", ":"))
