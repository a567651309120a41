"""Semantic rules: checks JSON Schema cannot express, each with a stable id, severity and description.

A rule is a function over one parsed payload of one schema that yields ``(tokens, message)`` pairs
(``tokens``: the keys and indices of the value it is about).
``jobschema rules`` lists them; findings carry the rule id in ``rule``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jobschema.findings import Severity
from jobschema.pointer import Tokens
from jobschema.text import compact

Check = Callable[[dict[str, Any]], Iterable[tuple[Tokens, str]]]

MAX_SHOWN = 60


def short(value: Any) -> str:
    """``value`` as a rule's message shows it: compact JSON in its own key order, cut to a readable
    length."""
    return compact(value, MAX_SHOWN, sort_keys=False)


def number(value: Any) -> int | float | None:
    """``value`` when it is a JSON number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


@dataclass(frozen=True)
class Rule:
    """A semantic rule over payloads of one schema."""

    id: str
    schema: str
    severity: Severity
    description: str
    check: Check


_RULES: dict[str, Rule] = {}


def rule(rule_id: str, schema: str, severity: Severity, description: str) -> Callable[[Check], Check]:
    """Register ``check`` as rule ``rule_id``; ids are unique and stable (users filter on them)."""

    def register(check: Check) -> Check:
        if rule_id in _RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        _RULES[rule_id] = Rule(rule_id, schema, severity, description, check)
        return check

    return register


def all_rules() -> list[Rule]:
    """Every rule, sorted by schema then id."""
    _load()
    return sorted(_RULES.values(), key=lambda r: (r.schema, r.id))


def rules_for(schema: str) -> list[Rule]:
    """The rules that apply to payloads of ``schema``, sorted by id (remembered until a rule is added)."""
    known, found = _BY_SCHEMA.get(schema, (-1, []))
    if known != len(_RULES):  # (an entry is made after the rules are loaded: none before)
        _load()
        found = [r for r in all_rules() if r.schema == schema]
        _BY_SCHEMA[schema] = (len(_RULES), found)
    return found


_BY_SCHEMA: dict[str, tuple[int, list[Rule]]] = {}


def run(schema: str, payload: Any) -> Iterator[tuple[Rule, Tokens, str]]:
    """``(rule, tokens, message)`` for every rule of ``schema`` that ``payload`` breaks (all found
    before the first is returned: the rules of one payload share what they read, :func:`memo`).

    Rules assume the payload's shape only loosely: a payload that is not an object gets no rule
    findings (the schema already reports it), and a rule never raises on odd shapes.
    """
    if not isinstance(payload, dict):
        return iter(())
    _scratch.memo = {}
    try:
        found = [(item, *hit) for item in rules_for(schema) for hit in item.check(payload)]
    finally:
        _scratch.memo = None
    return iter(found)


_scratch = threading.local()


def memo() -> dict[str, Any]:
    """Values several rules of the payload being checked read (computed by the first): one per
    :func:`run`, so a payload changed between two checks is read afresh; outside a run, a new one."""
    shared: dict[str, Any] | None = getattr(_scratch, "memo", None)
    return {} if shared is None else shared


def _load() -> None:
    from jobschema.validate.rules import aihc, runai  # noqa: F401 - importing registers the rules
