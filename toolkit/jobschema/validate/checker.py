"""Check one parsed payload against one schema: JSON Schema, warn-only annotations, embedded JSON,
semantic rules and (``strict``) undeclared properties. Built once per schema and run.

A compiled validator (jsonschema-rs) decides valid/invalid. An invalid payload is explained from
jsonschema-rs's own errors (:mod:`jobschema.validate.explain`), with python-jsonschema run only on the
schema nodes whose errors it words (``anyOf``, ``additionalProperties``, ...), or on the whole payload
where the two could differ. All get the same format functions (:mod:`jobschema.validate.formats`).
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any

from jobschema.findings import Finding, problem
from jobschema.inputs.parse import parse_text
from jobschema.pointer import Tokens, from_path
from jobschema.schemas.registry import Schema
from jobschema.secrets.policy import is_secret_place, mask, masked, scrub
from jobschema.validate import rules
from jobschema.validate.formats import FORMATS
from jobschema.validate.messages import Show, describe, missing_required, shorten, worded

if TYPE_CHECKING:  # each is imported where it is used: a payload the quick pass finds clean needs none
    from jobschema.schemas.annotated import Steps, Trie
    from jobschema.validate.explain import Explainer, Spot, Subtree

#: How many distinct embedded documents a checker remembers the problems of, and how many characters
#: of their texts in all (the oldest is forgotten first): a recording polls the same jobs again and
#: again, and every snapshot of a job, like every pod, carries the same raw-request text.
EMBEDDED_MEMORY = 4096
EMBEDDED_MEMORY_CHARACTERS = 16 * 2**20


class Checker:
    """Everything needed to check payloads of one schema; ``embedded`` gives the checker of another."""

    def __init__(self, schema: Schema, embedded: Callable[[str], Checker], strict: bool = False) -> None:
        self.schema = schema
        self.strict = strict
        self._embedded = embedded
        self._embedded_seen: OrderedDict[tuple[str, str], list[Finding]] = OrderedDict()
        self._embedded_characters = 0
        self._embedded_last: tuple[str, str, list[Finding]] = ("", "", [])

    @cached_property
    def trie(self) -> Trie:
        """The schema's annotated nodes by path (:mod:`jobschema.schemas.annotated`), built when a
        payload is walked: one the quick pass finds clean never is."""
        from jobschema.schemas.annotated import compile_pruned

        return compile_pruned(self.schema.document)

    @cached_property
    def fast(self) -> Any:
        import jsonschema_rs

        # jsonschema-rs calls format functions with strings only (tests/test_fast_paths.py).
        return jsonschema_rs.validator_for(self.schema.document, formats=FORMATS, validate_formats=True)

    @cached_property
    def quick(self) -> Any | None:
        """A compiled validator of the schema and every warn-only check (:mod:`jobschema.validate.quick`):
        valid, with clean embedded documents, means nothing to report but the rules; ``None`` when
        the schema is not built for that shortcut."""
        import jsonschema_rs

        from jobschema.validate.formats import AS_PATTERNS
        from jobschema.validate.quick import derive

        derived = derive(self.schema.document, FORMATS)
        if derived is None:
            return None
        # Python functions only where needed: any makes jsonschema-rs read each payload slower.
        python = {**{n: f for n, f in FORMATS.items() if n not in AS_PATTERNS}, **derived.formats}
        try:
            return jsonschema_rs.validator_for(
                derived.document, formats=python or None, validate_formats=True
            )
        except ValueError:  # an expression jsonschema-rs does not take: the checker keeps to the walk
            return None

    @cached_property
    def soft(self) -> Any | None:
        """A compiled validator of the warn-only checks alone, the schema's own assertions left out
        (:func:`~jobschema.validate.quick.derive` ``alone``): a payload it finds valid has nothing
        for the annotation walk to report but its embedded documents, however it breaks the schema.
        ``None`` when the schema is not built for the quick pass."""
        import jsonschema_rs

        from jobschema.validate.quick import derive

        derived = derive(self.schema.document, FORMATS, alone=True) if self.quick is not None else None
        if derived is None:
            return None
        try:
            return jsonschema_rs.validator_for(
                derived.document, formats=derived.formats or None, validate_formats=True
            )
        except ValueError:
            return None

    @cached_property
    def embedded_sites(self) -> list[tuple[Steps, str]]:
        """Where the schema embeds documents, and their schemas: the annotation walk's places."""
        from jobschema.schemas.annotated import EMBEDDED, chains, compile_pruned

        sites = chains(compile_pruned(self.schema.document, (EMBEDDED,)))
        return [(steps, node[EMBEDDED]) for steps, node in sites if isinstance(node[EMBEDDED], str)]

    @cached_property
    def explainer(self) -> Explainer | None:
        """jsonschema-rs set up to explain invalid payloads as python-jsonschema would (``None``: the
        schema uses a keyword the two could disagree on)."""
        import jsonschema_rs

        from jobschema.validate.explain import PATTERN, Explainer, PatternKeyword, derive

        document = derive(self.schema.document, FORMATS)
        if document is None:
            return None
        try:
            validator = jsonschema_rs.validator_for(
                document, formats=FORMATS, validate_formats=True, keywords={PATTERN: PatternKeyword}
            )
        except ValueError:
            return None
        return Explainer(self.schema.document, validator)

    @cached_property
    def detailed(self) -> Any:
        import jsonschema

        from jobschema.validate.formats import format_checker

        cls = jsonschema.validators.validator_for(
            self.schema.document, default=jsonschema.Draft202012Validator
        )
        return cls(self.schema.document, format_checker=format_checker())

    def check(self, payload: Any) -> list[Finding]:
        """Every problem of ``payload``."""
        problems = [] if self._quick_valid(payload) else self._schema_and_annotation_problems(payload)
        problems += [
            problem(tokens, message, item.id, item.severity)
            for item, tokens, message in rules.run(self.schema.name, payload)
        ]
        if self.strict:
            problems += self._undeclared_problems(payload)
        return problems

    def _undeclared_problems(self, payload: Any) -> list[Finding]:
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

    def _schema_and_annotation_problems(self, payload: Any) -> list[Finding]:
        if self._fast_valid(payload):  # the quick pass refused it for a warn-only check or embedded one
            return list(self._annotation_problems(payload))
        problems = list(self._schema_problems(payload))
        if self._soft_valid(payload) and self._embedded_all_clean(payload):
            return problems  # the annotation walk would find nothing: it does not run
        return problems + list(self._annotation_problems(payload))

    def _soft_valid(self, payload: Any) -> bool:
        soft = self.soft
        try:
            return soft is not None and bool(soft.is_valid(payload))
        except (ValueError, RecursionError, OverflowError):
            return False

    def _quick_valid(self, payload: Any) -> bool:
        quick = self.quick
        try:
            valid = quick is not None and bool(quick.is_valid(payload))
        except (ValueError, RecursionError, OverflowError):
            return False
        return valid and self._embedded_all_clean(payload)

    def _embedded_all_clean(self, payload: Any) -> bool:
        """True when no embedded document of ``payload`` has anything to report (the walk's places)."""
        from jobschema.schemas.annotated import values_along

        for steps, target in self.embedded_sites:
            for value in values_along(payload, steps):
                if isinstance(value, str) and not self._embedded_clean(value, target):
                    return False
        return True

    def _fast_valid(self, payload: Any) -> bool:
        try:
            return bool(self.fast.is_valid(payload))
        except (ValueError, RecursionError, OverflowError):
            return False

    def _schema_problems(self, payload: Any) -> list[Finding]:
        explained = self._explained(payload)
        return explained if explained is not None else list(self._detailed_problems(payload))

    def _explained(self, payload: Any) -> list[Finding] | None:
        """The schema findings of an invalid payload from jsonschema-rs's errors, or ``None`` when
        python-jsonschema must explain the whole payload."""
        explainer = self.explainer
        spots = None if explainer is None else explainer.spots(payload)
        if spots is None:
            return None
        problems: list[Finding] = []
        for spot in spots:
            found = self._findings_of(spot, payload)
            if found is None:
                return None
            problems += found
        return problems if _unambiguous(problems) else None

    def _findings_of(self, spot: Spot | Subtree, payload: Any) -> list[Finding] | None:
        from jobschema.validate.explain import Spot

        return self._spot_problems(spot, payload) if isinstance(spot, Spot) else self._subtree(spot, payload)

    def _spot_problems(self, spot: Spot, payload: Any) -> list[Finding] | None:
        if spot.keyword == "required":
            instance = spot.instance
            message: str | None = missing_required([name for name in spot.expected if name not in instance])
        else:
            show = mask if self._is_secret(payload, spot.tokens) else _shown(spot.tokens)
            message = worded(spot.keyword, spot.expected, spot.instance, show)
        if message is None:
            return None
        return [problem(spot.tokens, message, spot.keyword, schema_tokens=spot.schema_tokens)]

    def _subtree(self, subtree: Subtree, payload: Any) -> list[Finding] | None:
        """python-jsonschema's errors of one keyword of one schema node on one value, placed in the
        payload; ``None`` unless they are as many as jsonschema-rs found there."""
        try:
            errors = [
                error
                for error in self.detailed.evolve(schema=subtree.node).iter_errors(subtree.instance)
                if error.validator == subtree.keyword
                and error.schema is subtree.node
                and not error.path
                and list(error.schema_path) == [subtree.keyword]
            ]
        except RecursionError:
            return None
        if len(errors) != subtree.count:
            return None
        for error in errors:
            error.path.extendleft(reversed(subtree.tokens))
            error.schema_path.extendleft(reversed(subtree.schema_tokens))
        return [self._problem(error, payload) for error in errors]

    def _detailed_problems(self, payload: Any) -> Iterator[Finding]:
        try:
            errors = list(self.detailed.iter_errors(payload))
        except RecursionError:
            yield problem((), "payload is nested too deeply to validate", "nesting")
            return
        for error in errors:
            yield self._problem(error, payload)

    def _problem(self, error: Any, payload: Any) -> Finding:
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
        show = mask if self._is_secret(payload, path) else _shown(path)
        fallback = _masked_fallback(error.message, error.instance, show)
        return describe(str(error.validator), error.validator_value, error.instance, show, fallback)

    def _annotation_problems(self, payload: Any) -> Iterator[Finding]:
        from jobschema.schemas.annotated import EMBEDDED, match_paths

        for path, value, node in match_paths(self.trie, payload):
            yield from _soft_checks(path, value, node)
            target = node.get(EMBEDDED)
            if isinstance(target, str) and isinstance(value, str):
                yield from self._embedded_problems(path, value, target)

    def _embedded_problems(self, path: Tokens, text: str, target: str) -> Iterator[Finding]:
        for found in self._embedded_text(text, target):
            yield found.under(path)

    def _embedded_text(self, text: str, target: str) -> list[Finding]:
        """The problems of one embedded document, relative to it; remembered, since every pod of a
        job carries the same raw-request text."""
        last = self._embedded_last
        if last[1] == text and last[0] == target:  # the pods of a job: no hash of the whole text
            return last[2]
        key = (target, text)
        found = self._embedded_seen.get(key)
        if found is None:
            found = self._parse_and_check(text, target)
            self._remember(key, found)
        self._embedded_last = (target, text, found)
        return found

    def _remember(self, key: tuple[str, str], found: list[Finding]) -> None:
        seen = self._embedded_seen
        seen[key] = found
        self._embedded_characters += len(key[1])
        while len(seen) > EMBEDDED_MEMORY or self._embedded_characters > EMBEDDED_MEMORY_CHARACTERS:
            (_, text), _ = seen.popitem(last=False)
            self._embedded_characters -= len(text)

    def _embedded_clean(self, text: str, target: str) -> bool:
        """True when the embedded document has nothing to report."""
        return not self._embedded_text(text, target)

    def _parse_and_check(self, text: str, target: str) -> list[Finding]:
        parsed = parse_text(text)
        if parsed.error is not None:
            error = parsed.error
            where = f" (line {error.line} column {error.column})" if error.where else ""
            message = f"embedded JSON does not parse: {error.message.removeprefix('invalid JSON: ')}{where}"
            return [problem((), message, "embedded-json")]
        return self._embedded(target).check(parsed.value)

    def _is_secret(self, payload: Any, tokens: Tokens) -> bool:
        return secret_at(payload, tokens, secret_marks(payload, self.trie, tokens))


def _unambiguous(problems: list[Finding]) -> bool:
    """True unless two findings sort alike but differ (in schema path or details): their order would
    then be jsonschema-rs's, not python-jsonschema's."""
    seen: dict[tuple[Tokens, str, str], Finding] = {}
    for found in problems:
        first = seen.setdefault((found.tokens, found.rule, found.message), found)
        if (first.schema_tokens, first.details) != (found.schema_tokens, found.details):
            return False
    return True


def secret_marks(payload: Any, trie: Trie, tokens: Tokens) -> dict[Tokens, bool]:
    """The places on the way to ``tokens`` (itself included) that the schema marks
    ``x-jobschema-secret`` (true or false; the first node that applies there decides): only the
    values on that way are read."""
    from jobschema.schemas.annotated import nodes_along

    marks: dict[Tokens, bool] = {}
    for depth, node in nodes_along(trie, payload, tuple(tokens)):
        mark = node.get("x-jobschema-secret")
        if isinstance(mark, bool):
            marks.setdefault(tuple(tokens[:depth]), mark)
    return marks


def is_secret_at(payload: Any, tokens: Tokens, trie: Trie) -> bool:
    """True when the value at ``tokens`` is a credential: declared secret, or secret by the policy's
    place rules, there or at a place above it (``x-jobschema-secret: false`` overrides the rules for
    its place)."""
    return secret_at(payload, tokens, secret_marks(payload, trie, tokens))


def secret_at(payload: Any, tokens: Tokens, marks: dict[Tokens, bool]) -> bool:
    """:func:`is_secret_at` with the schema's marks already collected."""
    node: Any = payload
    keys: tuple[str | int, ...] = ()
    for index, token in enumerate(tokens):
        mark = marks.get(tuple(tokens[: index + 1]))
        place = int(token) if isinstance(node, list) and str(token).isdigit() else token
        if mark is True or (mark is None and is_secret_place((*keys[-2:], place), node)):
            return True
        try:
            node = node[int(token)] if isinstance(node, list) else node[token]
        except (KeyError, IndexError, ValueError, TypeError):
            return False
        keys = (*keys[-2:], token)
    return False


def _shown(path: Tokens) -> Show:
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


def _soft_checks(path: Tokens, value: Any, node: dict[str, Any]) -> Iterator[Finding]:
    """The warn-only checks of one annotated place."""
    if value is None:
        return
    for message, rule in _soft_failures(value, node, path):
        yield problem(path, message, rule, "warning")


def _soft_failures(value: Any, node: dict[str, Any], path: Tokens) -> Iterator[tuple[str, str]]:
    show = mask if node.get("x-jobschema-secret") is True else _shown(tuple(path))
    known = node.get("x-jobschema-known-values")
    if isinstance(known, list) and value not in known:
        yield f"{show(value)} is not a known value (known: {', '.join(map(str, known))})", "known-values"
    fmt = node.get("x-jobschema-format")
    if isinstance(value, str) and isinstance(fmt, str) and fmt in FORMATS and not FORMATS[fmt](value):
        yield f"{show(value)} is not a valid {fmt} (documented, not enforced)", "soft-format"
    pattern = node.get("x-jobschema-pattern")
    if isinstance(value, str) and isinstance(pattern, str) and not re.search(pattern, value):
        yield f"{show(value)} does not match the documented pattern {pattern}", "soft-pattern"
    if node.get("deprecated") is True:
        yield "this field is deprecated", "deprecated"
