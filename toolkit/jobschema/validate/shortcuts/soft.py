"""Shortcut for the warn-only checks: their findings from one compiled pass, not a walk.

The warn-only annotations written as constraints and nothing else (:func:`~jobschema.validate.
shortcuts.quick.derive` ``alone``) are compiled by jsonschema-rs; each error it reports on a payload
is one failed check, traced back to the annotated node and the rule it stands for by the constraint
it comes from (``Derived.origins``). Each is then worded by the reference's own function
(:func:`~jobschema.validate.reference.soft_findings`), so a warning reads the same either way.

Deprecated fields are read at the places the annotation walk gives them, not by the compiled pass
(an error there would copy the deprecated value, often a whole object, into Python): each chain of
keys that leads to a deprecated node (:func:`~jobschema.schemas.annotated.chains` of the walk
pruned to them) is followed by lookups, a handful of places, not the payload.

Stands for :meth:`~jobschema.validate.reference.Reference.soft_problems`; answers ``None`` ("don't
know") when an error cannot be traced back or the reference's check disagrees with the compiled one,
and the checker asks the reference. ``tests/test_shortcuts.py`` proves the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from jobschema.findings import Finding, problem
from jobschema.pointer import Tokens
from jobschema.schemas.annotated import ANY, Steps, chains, compile_pruned
from jobschema.schemas.nodes import compiled
from jobschema.validate.reference import DEPRECATED, soft_findings
from jobschema.validate.shortcuts.quick import Derived

#: How many distinct warnings a shortcut remembers the words of, and how many schema places it
#: remembers the check of (each is traced back once).
MESSAGES = 65536
_UNKNOWN = object()


class SoftShortcut:
    """A compiled validator of the warn-only checks alone, and what each of its constraints stands for."""

    def __init__(
        self, derived: Derived, python_formats: dict[str, Callable[[str], bool]], schema: dict[str, Any]
    ) -> None:
        self.derived = derived
        self._deprecated_chains = [
            steps
            for steps, node in chains(compile_pruned(schema, ("deprecated",)))
            if node.get("deprecated") is True
        ]
        self._messages: dict[tuple[Any, ...], str | None] = {}
        self._origins: dict[tuple[Any, ...], Any] = {}
        self.validator = compiled(derived.document, formats=python_formats or None, validate_formats=True)

    def is_valid(self, payload: Any) -> bool:
        """True when no warn-only check fails anywhere in ``payload``."""
        try:
            return bool(self.validator.is_valid(payload)) and not self._deprecated(payload)
        except (ValueError, RecursionError, OverflowError):
            return False

    def findings(self, payload: Any) -> list[Finding] | None:
        """The warn-only findings of ``payload``, or ``None`` when the reference must say."""
        try:
            errors = list(self.validator.iter_errors(payload))
        except (ValueError, RecursionError, OverflowError):
            return None
        found: list[Finding] = []
        for error in errors:
            origin = self._origin(error.schema_path)
            if origin is None:
                return None
            rule, node = origin
            path = tuple(error.instance_path)
            message = self._message(rule, node, path, _value_at(payload, path))
            if message is None:
                return None  # the reference's check does not fail here: it decides
            found.append(problem(path, message, rule, "warning"))
        return found + self._deprecated(payload)

    def _deprecated(self, payload: Any) -> list[Finding]:
        """The deprecated fields of ``payload``, at the places the annotation walk gives them (each
        chain of keys read by lookups; an item or member of any key read in turn)."""
        return [
            problem(path, DEPRECATED, "deprecated", "warning")
            for steps in self._deprecated_chains
            for path, value in _along(payload, steps, ())
            if value is not None
        ]

    def _message(self, rule: str, node: dict[str, Any], path: Tokens, value: Any) -> str | None:
        """The reference's words for one failed check, remembered (a corpus repeats its warnings)."""
        try:
            key = (rule, id(node), tuple(path[-2:]), type(value), value)
            remembered = self._messages.get(key, _UNKNOWN)
        except TypeError:  # an unhashable value: worded afresh
            key, remembered = None, _UNKNOWN
        if remembered is not _UNKNOWN:
            return remembered  # type: ignore[return-value]
        worded = [found.message for found in soft_findings(path, value, node, rule)]
        message = worded[0] if len(worded) == 1 else None
        if key is not None and len(self._messages) < MESSAGES:
            self._messages[key] = message
        return message

    def _origin(self, schema_path: Any) -> tuple[str, dict[str, Any]] | None:
        """The check a constraint at ``schema_path`` of the derived document stands for (remembered:
        a schema has few places where a warning can come from)."""
        key = tuple(schema_path)
        origin = self._origins.get(key, _UNKNOWN)
        if origin is _UNKNOWN:
            origin = self._trace(key)
            if len(self._origins) < MESSAGES:
                self._origins[key] = origin
        return origin

    def _trace(self, schema_path: tuple[Any, ...]) -> tuple[str, dict[str, Any]] | None:
        node: Any = self.derived.document
        origins = self.derived.origins
        for token in schema_path:
            try:
                node = node[token]
            except (KeyError, IndexError, TypeError):
                return None
            origin = origins.get(id(node))
            if origin is not None:
                return origin
        return None


def _along(value: Any, steps: Steps, path: Tokens) -> Iterator[tuple[Tokens, Any]]:
    """``(path, value)`` of each value that the chain ``steps`` reaches in ``value`` (as
    :func:`~jobschema.schemas.annotated.match_paths` reaches it)."""
    for depth, step in enumerate(steps):
        if step is ANY:
            items = (
                enumerate(value)
                if isinstance(value, list)
                else value.items()
                if isinstance(value, dict)
                else ()
            )
            for token, item in items:
                yield from _along(item, steps[depth + 1 :], (*path, token))
            return
        if not isinstance(value, dict) or not isinstance(step, str) or step not in value:
            return
        value, path = value[step], (*path, step)
    yield path, value


def _value_at(payload: Any, path: tuple[Any, ...]) -> Any:
    value = payload
    for token in path:
        value = value[token]
    return value
