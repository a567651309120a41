"""Groups of JSON Schema keywords the tool reasons about together (one list, however many readers)."""

from __future__ import annotations

#: The keywords that bound a number, a string's length or an array's size.
BOUNDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
)
