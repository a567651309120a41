"""Semantic rules: checks JSON Schema cannot express, each with a stable id, severity and description.

A rule is a function over one parsed payload of one schema that yields ``(tokens, message)`` pairs
(``tokens``: the keys and indices of the value it is about).
``jobschema rules`` lists them; findings carry the rule id in ``rule``.

A schema may also have a *quiet test* (:func:`quiet`): one function that reads the payload once and
answers True only when none of the rules it covers would find anything, as most payloads are; the
rules themselves then do not run. It may answer False for a payload the rules find nothing in (they
run, and decide); never True for one they find something in (``tests/test_rules.py`` checks both
ways on every case and on random payloads).
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
Quiet = Callable[[dict[str, Any]], bool]

MAX_SHOWN = 60


def short(value: Any) -> str:
    """``value`` as a rule's message shows it: compact JSON in its own key order, cut to a readable
    length, read by the secret policy in full first (a JWT cut is no JWT any more)."""
    from jobschema.secrets.policy import masked

    shown = compact(value, MAX_SHOWN, sort_keys=False)
    if isinstance(value, str) or shown.endswith("…"):  # (cut, or a string: read whole)
        return compact(masked(value), MAX_SHOWN, sort_keys=False)
    return shown


_NUMBERS = (int, float)  # (a tuple: ``int | float`` is built anew at every call)


def number(value: Any) -> int | float | None:
    """``value`` when it is a JSON number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, _NUMBERS):
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


#: schema -> (its quiet test, the ids of the rules it covers)
_QUIET: dict[str, tuple[Quiet, frozenset[str]]] = {}


def quiet(schema: str, covers: Iterable[str]) -> Callable[[Quiet], Quiet]:
    """Register ``test`` as the quiet test of the rules ``covers`` of ``schema`` (one per schema)."""

    def register(test: Quiet) -> Quiet:
        if schema in _QUIET:
            raise ValueError(f"duplicate quiet test for {schema}")
        _QUIET[schema] = (test, frozenset(covers))
        return test

    return register


def quiet_test(schema: str) -> tuple[Quiet, frozenset[str]] | None:
    """The quiet test of ``schema`` and the rule ids it covers, if it has one."""
    _load()
    return _QUIET.get(schema)


def all_rules() -> list[Rule]:
    """Every rule, sorted by schema then id."""
    _load()
    return sorted(_RULES.values(), key=lambda r: (r.schema, r.id))


@dataclass(frozen=True)
class _Plan:
    """How :func:`run` checks payloads of one schema: every rule, or, when the quiet test says so,
    only those it does not cover."""

    rules: list[Rule]
    quiet: Quiet | None
    uncovered: list[Rule]


def _plan(schema: str) -> _Plan:
    known, plan = _BY_SCHEMA.get(schema, (-1, None))
    if plan is None or known != len(_RULES):  # (an entry is made after the rules are loaded)
        _load(schema)
        # (a copy: another thread may be importing another schema's rules into the table meanwhile)
        found = sorted((r for r in list(_RULES.values()) if r.schema == schema), key=lambda r: r.id)
        test, covers = _QUIET.get(schema, (None, frozenset()))
        plan = _Plan(found, test, [r for r in found if r.id not in covers])
        _BY_SCHEMA[schema] = (len(_RULES), plan)
    return plan


_BY_SCHEMA: dict[str, tuple[int, _Plan]] = {}


def run(schema: str, payload: Any) -> Iterator[tuple[Rule, Tokens, str]]:
    """``(rule, tokens, message)`` for every rule of ``schema`` that ``payload`` breaks (all found
    before the first is returned: the rules of one payload share what they read, :func:`memo`).

    Rules assume the payload's shape only loosely: a payload that is not an object gets no rule
    findings (the schema already reports it), and a rule never raises on odd shapes.
    """
    return iter(_run(schema, payload, True))


def run_every_rule(schema: str, payload: Any) -> list[tuple[Rule, Tokens, str]]:
    """:func:`run` without the quiet test: every rule runs (what the quiet test is checked against)."""
    return _run(schema, payload, False)


def _run(schema: str, payload: Any, hush: bool) -> list[tuple[Rule, Tokens, str]]:
    if not isinstance(payload, dict):
        return []
    plan = _plan(schema)
    _scratch.memo = {}  # (the quiet test may read through it too, for the rules to reuse)
    try:
        quiet = hush and plan.quiet is not None and plan.quiet(payload)
        return [
            (item, *hit) for item in (plan.uncovered if quiet else plan.rules) for hit in item.check(payload)
        ]
    finally:
        _scratch.memo = None


_scratch = threading.local()


def memo() -> dict[str, Any]:
    """Values several rules of the payload being checked read (computed by the first): one per
    :func:`run`, so a payload changed between two checks is read afresh; outside a run, a new one."""
    shared: dict[str, Any] | None = getattr(_scratch, "memo", None)
    return {} if shared is None else shared


#: The module whose import registers the rules and quiet test of each bundled schema (``None``:
#: the schema has no rules). The rules of one schema are all in one module: ``tests/test_rules.py``
#: checks this table against them.
MODULES: dict[str, str | None] = {
    "aihc-error": None,
    "aihc-job-detail": "aihc",
    "aihc-raw-request": "aihc",
    "aihc-v2-job": "aihc_v2",
    "runai-distributed-workload": "runai",
    "runai-error": None,
}


def _load(schema: str | None = None) -> None:
    """Import the rules of ``schema`` (every rule when ``None`` or a schema the table does not list)."""
    import importlib

    names = [MODULES[schema]] if schema in MODULES else sorted({m for m in MODULES.values() if m})
    for name in names:
        if name is not None:
            importlib.import_module(f"jobschema.validate.rules.{name}")  # (importing registers them)
