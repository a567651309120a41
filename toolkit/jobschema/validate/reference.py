"""The reference checks: what each check of one payload finds, written as a reader would write it.

- the schema: python-jsonschema's errors, worded by :mod:`jobschema.validate.messages`;
- the warn-only annotations (``x-jobschema-known-values``, ``-format``, ``-pattern``,
  ``deprecated``): a walk of the places the schema annotates (:mod:`jobschema.schemas.annotated`);
- embedded documents (``x-jobschema-embedded-schema``): parsed and checked by their own schema;
- the semantic rules (:mod:`jobschema.validate.rules`), each run on the payload;
- (``strict``) the properties the schema does not declare.

Slow and obviously right: the checker (:mod:`jobschema.validate.checker`) answers each check by a
shortcut where one is proven to give what the reference gives (:mod:`jobschema.validate.shortcuts`),
and by the reference otherwise. Values named in messages go through the secret policy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any

from jobschema.findings import Finding, problem
from jobschema.pointer import Tokens, from_path
from jobschema.schemas.registry import Schema
from jobschema.secrets.policy import mask, masked, scrub
from jobschema.secrets.walk import secret_along
from jobschema.validate import rules
from jobschema.validate.formats import FORMATS
from jobschema.validate.messages import Show, describe, missing_required, shorten

if TYPE_CHECKING:
    from jobschema.schemas.annotated import Trie
    from jobschema.schemas.marks import Marks

#: The warn-only checks, by rule id: whether the value at an annotated place fails it.
SOFT_RULES = ("known-values", "soft-format", "soft-pattern", "deprecated")
#: The words of a deprecated field's warning.
DEPRECATED = "this field is deprecated"


class Reference:
    """The reference checks of one schema. ``embedded`` checks a document embedded in a payload
    against the schema it names and returns its findings (relative to it)."""

    def __init__(self, schema: Schema, embedded: Callable[[str, str], list[Finding]], strict: bool) -> None:
        self.schema = schema
        self.strict = strict
        self._embedded = embedded

    @cached_property
    def trie(self) -> Trie:
        """The schema's annotated places (:mod:`jobschema.schemas.annotated`)."""
        from jobschema.schemas.annotated import compile_pruned

        return compile_pruned(self.schema.document)

    @cached_property
    def detailed(self) -> Any:
        """python-jsonschema's validator of the schema (asserting the checker's formats)."""
        import jsonschema
        from referencing import Registry

        from jobschema.validate.formats import format_checker

        cls = jsonschema.validators.validator_for(
            self.schema.document, default=jsonschema.Draft202012Validator
        )
        # An empty registry: a reference to another document is never retrieved (python-jsonschema
        # would fetch any URL a schema names), as jsonschema-rs never follows one here
        # (:func:`jobschema.schemas.nodes.compiled`); references within the document resolve.
        return cls(self.schema.document, format_checker=format_checker(), registry=Registry())

    def check(self, payload: Any) -> list[Finding]:
        """Every problem of ``payload``, by the reference checks alone, each once (:func:`once`)."""
        found = [
            *self.schema_problems(payload),
            *self.soft_problems(payload),
            *self.embedded_problems(payload),
        ]
        found += self.rule_problems(payload)
        return once(found + self.undeclared_problems(payload) if self.strict else found)

    # --- the schema --------------------------------------------------------------------------------

    def schema_problems(self, payload: Any) -> list[Finding]:
        try:
            errors = list(self.detailed.iter_errors(payload))
        except RecursionError:
            return [problem((), "payload is nested too deeply to validate", "nesting")]
        return once([self.problem(error, payload) for error in errors])

    def problem(self, error: Any, payload: Any) -> Finding:
        """The finding of one python-jsonschema error (its context as details, best match first)."""
        from jsonschema.exceptions import best_match

        details: tuple[str, ...] = ()
        if error.context:
            details = tuple(
                sorted(
                    f"{from_path(e.absolute_path) or '(root)'}: {self._message(e, payload)}"
                    for e in error.context
                )
            )
            error = best_match([error]) or error
        return problem(
            tuple(error.absolute_path),
            self._message(error, payload),
            str(error.validator),
            schema_tokens=tuple(error.absolute_schema_path),
            details=details,
        )

    def _message(self, error: Any, payload: Any) -> str:
        """The finding's message; the value it names is shown through the secret policy: masked
        whole at a secret place, else with the secrets inside it masked (then shortened)."""
        if error.validator == "required":
            missing = [name for name in error.validator_value if name not in error.instance]
            return missing_required(missing)
        path = tuple(error.absolute_path)
        show = self.shower(payload, path)
        fallback = _masked_fallback(error.message, error.instance, show)
        return describe(str(error.validator), error.validator_value, error.instance, show, fallback)

    def shower(self, payload: Any, path: Tokens) -> Show:
        """How a value at ``path`` of ``payload`` is shown: masked whole at a secret place."""
        return mask if self.is_secret(payload, path) else shown(path)

    @cached_property
    def marks(self) -> Marks:
        """The schema's secret marks by place (:mod:`jobschema.schemas.marks`)."""
        from jobschema.schemas.marks import marks_for

        return marks_for(self.schema.document)

    def is_secret(self, payload: Any, tokens: Tokens) -> bool:
        """True when the value at ``tokens`` is a credential: declared secret, or secret by the policy's
        place rules, there or above it (``x-jobschema-secret: false`` overrides the rules for its place)."""
        return secret_along(payload, tuple(tokens), self.marks)

    # --- the warn-only annotations -------------------------------------------------------------------

    def soft_problems(self, payload: Any) -> list[Finding]:
        """The warn-only checks at every annotated place of ``payload``."""
        from jobschema.schemas.annotated import match_paths

        return [
            found
            for path, value, node in match_paths(self.trie, payload)
            for found in soft_findings(path, value, node)
        ]

    def embedded_problems(self, payload: Any) -> list[Finding]:
        """The problems of every document embedded in ``payload``, placed under it."""
        from jobschema.schemas.annotated import EMBEDDED, match_paths

        found: list[Finding] = []
        for path, value, node in match_paths(self.trie, payload):
            target = node.get(EMBEDDED)
            if isinstance(target, str) and isinstance(value, str):
                found += [item.under(path) for item in self._embedded(value, target)]
        return found

    # --- rules and undeclared properties --------------------------------------------------------------

    def rule_problems(self, payload: Any) -> list[Finding]:
        """Every semantic rule of the schema, run."""
        return [
            problem(tokens, message, item.id, item.severity)
            for item, tokens, message in rules.run_every_rule(self.schema.name, payload)
        ]

    def undeclared_problems(self, payload: Any) -> list[Finding]:
        from jobschema.validate.strict import undeclared

        try:
            found = undeclared(payload, self.schema.document)
        except RecursionError:
            return [problem((), "payload is nested too deeply to look for undeclared properties", "nesting")]
        return [
            problem(
                item.tokens,
                f"property {json.dumps(item.key)} is not declared by the schema",
                "unknown-property",
                "warning",
            )
            for item in found
        ]


def once(found: list[Finding]) -> list[Finding]:
    """``found`` with each problem once: findings alike in place, rule, message, severity and details
    say the same thing, however many schema keywords saw it (one error of ``required`` per missing
    name, each worded with every missing name; ``type`` in a node and in an ``allOf`` branch of it).
    The first is kept where it stands, with the outermost schema keyword of its twins (so the answer is
    the same in whatever order a validator met them)."""
    if len(found) < 2:
        return found
    kept: dict[tuple[Any, ...], Finding] = {}
    for finding in found:
        key = (finding.tokens, finding.rule, finding.message, finding.severity, finding.details)
        first = kept.setdefault(key, finding)
        if first is not finding and _schema_order(finding) < _schema_order(first):
            kept[key] = finding
    return found if len(kept) == len(found) else list(kept.values())


def _schema_order(finding: Finding) -> tuple[int, str]:
    """The outermost keyword first (``/type`` before ``/allOf/0/type``), then by pointer."""
    tokens = finding.schema_tokens or ()
    return len(tokens), finding.schema_pointer or ""


def soft_findings(
    path: Tokens, value: Any, node: dict[str, Any], rule: str | None = None
) -> Iterator[Finding]:
    """The warn-only checks of one annotated place (only ``rule``, when given) that ``value`` fails."""
    if value is None:
        return
    for message, found in soft_failures(value, node, path, rule):
        yield problem(path, message, found, "warning")


def soft_failures(
    value: Any, node: dict[str, Any], path: Tokens, only: str | None = None
) -> Iterator[tuple[str, str]]:
    """``(message, rule)`` for each warn-only check of ``node`` that ``value`` fails."""
    show = mask if node.get("x-jobschema-secret") is True else shown(tuple(path))
    known = node.get("x-jobschema-known-values")
    if only in (None, "known-values") and isinstance(known, list) and value not in known:
        yield f"{show(value)} is not a known value (known: {', '.join(map(str, known))})", "known-values"
    fmt = node.get("x-jobschema-format")
    if (
        only in (None, "soft-format")
        and isinstance(value, str)
        and isinstance(fmt, str)
        and fmt in FORMATS
        and not FORMATS[fmt](value)
    ):
        yield f"{show(value)} is not a valid {fmt} (documented, not enforced)", "soft-format"
    pattern = node.get("x-jobschema-pattern")
    if (
        only in (None, "soft-pattern")
        and isinstance(value, str)
        and isinstance(pattern, str)
        and not re.search(pattern, value)
    ):
        yield f"{show(value)} does not match the documented pattern {pattern}", "soft-pattern"
    if only in (None, "deprecated") and node.get("deprecated") is True:
        yield DEPRECATED, "deprecated"


def shown(path: Tokens) -> Show:
    """How a value found at ``path`` is shown in a message: through the secret policy, shortened."""
    keys = tuple(path[-2:])

    def show(value: Any) -> str:
        return shorten(masked(value, keys))

    return show


def _masked_fallback(message: str, instance: Any, show: Show) -> str:
    """jsonschema's own message (keywords without a message of ours), with the instance it quotes
    shown through ``show`` and every secret shape left in it masked."""
    try:
        quoted = repr(instance)
    except ValueError:
        quoted = ""
    if quoted and quoted in message:
        message = message.replace(quoted, show(instance))
    return scrub(message)
