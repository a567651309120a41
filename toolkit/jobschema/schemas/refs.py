"""Following a schema's local ``$ref``: the one resolver every schema walker uses (the annotation
trie, the place tree, the quick validator's derivation, the test kit's generators)."""

from __future__ import annotations

from typing import Any

from jobschema.pointer import resolve


def local_target(document: Any, ref: Any) -> Any | None:
    """The subschema a ``$ref`` names inside ``document`` (``#``, ``#/$defs/Pod``), or ``None`` when
    the reference is not a pointer into this document or names nothing there."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    try:
        return resolve(document, ref[1:])
    except (KeyError, ValueError):
        return None
