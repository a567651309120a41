"""One-line messages for JSON Schema errors that name the value (shortened) and what was expected."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jobschema.text import compact, json_type

MAX_VALUE = 60
MAX_CHOICES = 12

Show = Callable[[Any], str]


def shorten(value: Any) -> str:
    """``value`` as a message shows it: compact JSON, keys sorted, cut to :data:`MAX_VALUE` characters."""
    return compact(value, MAX_VALUE)


def _expected(value: Any) -> str:
    """A schema's value (an enum's choice, a const) as a message shows it: read by the secret policy in
    full before it is cut (a JWT cut to :data:`MAX_VALUE` characters is no JWT any more)."""
    from jobschema.secrets.policy import masked

    return shorten(masked(value))


def _choices(values: list[Any]) -> str:
    shown = ", ".join(_expected(v) for v in values[:MAX_CHOICES])
    return shown + (f", … ({len(values)} in all)" if len(values) > MAX_CHOICES else "")


def _types(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    return " or ".join(names)


def _typed(value: Any, show: Show) -> str:
    """``value`` named by its JSON type and shown (``integer 42``, ``string "x"``), the type named
    once where the value shows as the type's own name (``null``)."""
    kind, shown_value = json_type(value), show(value)
    return kind if shown_value == kind else f"{kind} {shown_value}"


def describe(keyword: str, expected: Any, value: Any, show: Show, fallback: str) -> str:
    """The message for ``keyword`` failing with schema value ``expected`` on instance ``value``."""
    message = worded(keyword, expected, value, show)
    if message is not None:
        return message
    return fallback if len(fallback) <= 200 else fallback[:199] + "…"


#: jobschema's own wording per keyword: ``(expected, value, show) -> message``.
_WORDS: dict[str, Callable[[Any, Any, Show], str]] = {
    "type": lambda expected, value, show: f"expected {_types(expected)}, got {_typed(value, show)}",
    "enum": lambda expected, value, show: f"{show(value)} is not one of {_choices(list(expected))}",
    "const": lambda expected, value, show: f"{show(value)} is not {_expected(expected)}",
    "format": lambda expected, value, show: f"{show(value)} is not a valid {expected}",
    "pattern": lambda expected, value, show: f"{show(value)} does not match the pattern {expected}",
    "minimum": lambda expected, value, show: f"{show(value)} is below the minimum {expected}",
    "maximum": lambda expected, value, show: f"{show(value)} is above the maximum {expected}",
    "exclusiveMinimum": lambda expected, value, show: f"{show(value)} is not above {expected}",
    "exclusiveMaximum": lambda expected, value, show: f"{show(value)} is not below {expected}",
    "minLength": lambda expected, value, show: f"{show(value)} is shorter than {expected} character(s)",
    "maxLength": lambda expected, value, show: f"{show(value)} is longer than {expected} character(s)",
    "minItems": lambda expected, value, show: f"array has {len(value)} item(s), fewer than {expected}",
    "maxItems": lambda expected, value, show: f"array has {len(value)} item(s), more than {expected}",
    "uniqueItems": lambda expected, value, show: "array items are not unique",
    "multipleOf": lambda expected, value, show: f"{show(value)} is not a multiple of {expected}",
}


def worded(keyword: str, expected: Any, value: Any, show: Show) -> str | None:
    """jobschema's own message for ``keyword`` failing, or ``None`` when it has none (``required``:
    :func:`missing_required`; other keywords keep python-jsonschema's)."""
    words = _WORDS.get(keyword)
    if words is None:
        return None
    try:
        return words(expected, value, show)
    except (TypeError, ValueError):
        return None


def missing_required(names: list[str]) -> str:
    """The message for missing required properties."""
    quoted = ", ".join(json.dumps(name) for name in names)
    return f"missing required propert{'y' if len(names) == 1 else 'ies'} {quoted}"
