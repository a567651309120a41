"""Check one parsed payload against one schema: each check answered by a proven shortcut where one
applies, by the reference (:mod:`jobschema.validate.reference`) otherwise. Built once per schema.

The ladder, each rung proven against the reference by ``tests/test_shortcuts.py``:

1. *Nothing to report?* One compiled pass of the schema with its warn-only checks as constraints
   (:mod:`~jobschema.validate.shortcuts.quick`), and a remembered check of each embedded document:
   when both pass, only the rules run.
2. *The schema.* A compiled validator decides valid or invalid; an invalid payload is worded from
   its errors (:mod:`~jobschema.validate.shortcuts.explain`), or by python-jsonschema where the two
   could differ.
3. *The warn-only checks.* One compiled pass of those alone, its errors traced back to the checks
   (:mod:`~jobschema.validate.shortcuts.soft`); else the reference's walk of the annotated places.
4. *Embedded documents*, each checked once per distinct text (a recording repeats them).
5. *The rules*: a schema's quiet test (:func:`jobschema.validate.rules.quiet`) runs first, and the
   rules it covers only when it cannot say the payload is quiet.

A checker enters the ladder where the last two payloads say it ends (:meth:`Checker.ladder`):
after two payloads with findings it skips rung 1, after two invalid ones rung 2's yes/no pass too,
each of which would only fail; whatever it skips, the findings are the same.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from jobschema.findings import Finding, problem
from jobschema.inputs.parse import parse_text
from jobschema.inputs.payload import duplicate_keys
from jobschema.pointer import Tokens
from jobschema.schemas.nodes import compiled
from jobschema.schemas.registry import Schema
from jobschema.secrets.policy import mask
from jobschema.validate import rules
from jobschema.validate.formats import FORMATS
from jobschema.validate.messages import missing_required, worded
from jobschema.validate.reference import Reference, once, shown

if TYPE_CHECKING:  # each is imported where it is used: a payload the quick pass finds clean needs none
    from jobschema.schemas.annotated import Steps
    from jobschema.validate.shortcuts.explain import Explainer, Spot, Subtree
    from jobschema.validate.shortcuts.soft import SoftShortcut

#: How many distinct embedded documents a checker remembers the problems of, and how many characters
#: of their texts in all (the oldest is forgotten first): a recording polls the same jobs again and
#: again, and every snapshot of a job, like every pod, carries the same raw-request text.
EMBEDDED_MEMORY = 4096
#: How many payloads a checker reads by the reference engine alone before it builds its shortcuts,
#: in a run of one file (:meth:`Checker.check`): one payload is checked without building them. A
#: run of many files builds them at once (in the process that checks first, before the others fork).
UNSHORTENED = 1
EMBEDDED_MEMORY_CHARACTERS = 16 * 2**20
#: What rungs 1 to 4 found in a payload: nothing, findings, or schema errors among them
#: (:meth:`Checker.ladder`). A checker expects the least of its last two payloads' outcomes: a
#: recording of one cluster carries the same warnings on every snapshot, and once the API has moved
#: every capture fails.
NOTHING, FINDINGS, INVALID = 0, 1, 2


class Checker:
    """Everything needed to check payloads of one schema; ``embedded`` gives the checker of another."""

    def __init__(
        self, schema: Schema, embedded: Callable[[str], Checker], strict: bool = False, unshortened: int = 0
    ) -> None:
        self.schema = schema
        self.strict = strict
        self.unshortened = unshortened
        self._embedded = embedded
        self.reference = Reference(schema, self.embedded_findings, strict)
        self._embedded_seen: OrderedDict[tuple[str, str], list[Finding]] = OrderedDict()
        self._embedded_characters = 0
        self._embedded_last: tuple[str, str, list[Finding]] = ("", "", [])
        self._seen = 0  # payloads checked, up to unshortened
        self._outcomes = (NOTHING, NOTHING)  # what rungs 1 to 4 found in the last two payloads

    # --- the compiled validators ------------------------------------------------------------------

    @cached_property
    def fast(self) -> Any:
        """The schema compiled: valid or not."""
        # jsonschema-rs calls format functions with strings only (tests/test_fast_paths.py).
        return compiled(self.schema.document, formats=FORMATS, validate_formats=True)

    @cached_property
    def patterned(self) -> Any:
        """:attr:`fast` with the formats jsonschema-rs can hold as patterns given as patterns
        (:func:`~jobschema.validate.shortcuts.quick.with_format_patterns`): a Python format function
        makes jsonschema-rs read every payload slower. Built with the shortcuts: it costs a copy of
        the schema, which one payload does not pay back."""
        from jobschema.validate.shortcuts.quick import with_format_patterns

        document = with_format_patterns(self.schema.document, FORMATS)
        if document is None:
            return self.fast
        try:
            return compiled(document, formats=_python_formats({}) or None, validate_formats=True)
        except ValueError:
            return self.fast

    @cached_property
    def quick(self) -> Any | None:
        """The schema and every warn-only check compiled as one (:mod:`~jobschema.validate.shortcuts.
        quick`); ``None`` when the schema is not built for that shortcut."""
        from jobschema.validate.shortcuts.quick import derive

        derived = derive(self.schema.document, FORMATS)
        if derived is None:
            return None
        try:
            return compiled(
                derived.document, formats=_python_formats(derived.formats) or None, validate_formats=True
            )
        except ValueError:  # an expression jsonschema-rs does not take: the checker keeps to the walk
            return None

    @cached_property
    def soft(self) -> SoftShortcut | None:
        """The warn-only checks alone compiled (:mod:`~jobschema.validate.shortcuts.soft`); ``None``
        when the schema is not built for the quick pass."""
        from jobschema.validate.shortcuts.quick import derive
        from jobschema.validate.shortcuts.soft import SoftShortcut

        derived = derive(self.schema.document, FORMATS, alone=True) if self.quick is not None else None
        if derived is None:
            return None
        try:
            return SoftShortcut(derived, _python_formats(derived.formats), self.schema.document)
        except ValueError:
            return None

    @cached_property
    def embedded_sites(self) -> list[tuple[Steps, str]]:
        """Where the schema embeds documents, and their schemas (read from the reference's trie of
        annotated places, which the annotation walk compiles too)."""
        from jobschema.schemas.annotated import EMBEDDED, chains

        sites = chains(self.reference.trie)
        return [(steps, node[EMBEDDED]) for steps, node in sites if isinstance(node.get(EMBEDDED), str)]

    @cached_property
    def explainer(self) -> Explainer | None:
        """jsonschema-rs set up to explain invalid payloads as python-jsonschema would (``None``: the
        schema uses a keyword the two could disagree on)."""
        from jobschema.validate.shortcuts.explain import PATTERN, Explainer, PatternKeyword, derive

        document = derive(self.schema.document, FORMATS)
        if document is None:
            return None
        try:
            validator = compiled(
                document, formats=FORMATS, validate_formats=True, keywords={PATTERN: PatternKeyword}
            )
        except ValueError:
            return None
        return Explainer(self.schema.document, validator)

    # --- the ladder ---------------------------------------------------------------------------------

    def check(self, payload: Any) -> list[Finding]:
        """Every problem of ``payload``.

        The first ``unshortened`` payloads are read without the compiled shortcuts: the schema
        compiled as it is says valid or not (an invalid payload is worded as always), and the
        annotation walk finds the warn-only findings. The shortcuts cost more to build than they save
        on one payload, and answer as that path does (``tests/test_shortcuts.py``)."""
        if self._seen < self.unshortened:
            self._seen += 1
            problems = self._unshortened(payload)
        else:
            problems, outcome = self.ladder(payload, min(self._outcomes))
            self._outcomes = (self._outcomes[1], outcome)
        problems += [
            problem(tokens, message, item.id, item.severity)
            for item, tokens, message in rules.run(self.schema.name, payload)
        ]
        if self.strict:
            problems += self.reference.undeclared_problems(payload)
        return once(problems)

    def ladder(self, payload: Any, expect: int = NOTHING) -> tuple[list[Finding], int]:
        """The findings of rungs 1 to 4 (all but the rules') and their outcome (:data:`NOTHING`,
        :data:`FINDINGS` or :data:`INVALID`). ``expect`` says where to enter: at rung 1 when
        ``NOTHING``; at rung 2 when ``FINDINGS`` (rung 1 passes exactly the payloads rungs 2 to 4
        find nothing in); at the wording of rung 2's errors when ``INVALID`` (it finds none in a
        valid payload, as the yes/no pass would say). Where it enters changes no finding, only the
        time of the passes skipped, which fail when it guessed right."""
        if expect == NOTHING and self._quick_valid(payload):
            return [], NOTHING
        valid = expect != INVALID and self._fast_valid(payload)
        schema = [] if valid else self.schema_problems(payload)
        problems = schema + self.soft_problems(payload) + self.embedded_problems(payload)
        return problems, INVALID if schema else FINDINGS if problems else NOTHING

    def _unshortened(self, payload: Any) -> list[Finding]:
        """Rungs 2 to 4 without building the compiled shortcuts (the schema compiled as it is, the
        reference's walk for the warn-only checks)."""
        problems = [] if self._fast_valid(payload, self.fast) else self.schema_problems(payload)
        return problems + self.reference.soft_problems(payload) + self.embedded_problems(payload)

    def _quick_valid(self, payload: Any) -> bool:
        quick = self.quick
        try:
            valid = quick is not None and bool(quick.is_valid(payload))
        except (ValueError, RecursionError, OverflowError):
            return False
        return valid and self._embedded_all_clean(payload)

    def _fast_valid(self, payload: Any, validator: Any = None) -> bool:
        """Whether the schema holds for ``payload`` (by :attr:`patterned`, unless another is given)."""
        try:
            return bool((self.patterned if validator is None else validator).is_valid(payload))
        except (ValueError, RecursionError, OverflowError):
            return False

    def soft_problems(self, payload: Any) -> list[Finding]:
        """The warn-only findings: by the compiled pass where it can tell, else by the walk."""
        soft = self.soft
        if soft is not None:
            found = soft.findings(payload)  # (one pass: no errors is no findings)
            if found is not None:
                return found
        return self.reference.soft_problems(payload)

    def embedded_problems(self, payload: Any) -> list[Finding]:
        """The embedded documents' findings, placed under each; none read when all are clean."""
        if self._embedded_all_clean(payload):
            return []
        return self.reference.embedded_problems(payload)

    def _embedded_all_clean(self, payload: Any) -> bool:
        """True when no embedded document of ``payload`` has anything to report."""
        from jobschema.schemas.annotated import values_along

        for steps, target in self.embedded_sites:
            for value in values_along(payload, steps):
                if isinstance(value, str) and self.embedded_findings(value, target):
                    return False
        return True

    # --- the schema ---------------------------------------------------------------------------------

    def schema_problems(self, payload: Any) -> list[Finding]:
        """The schema's findings of an invalid payload: explained from jsonschema-rs's errors where
        that gives what python-jsonschema gives, else python-jsonschema's own."""
        explained = self._explained(payload)
        return explained if explained is not None else self.reference.schema_problems(payload)

    def _explained(self, payload: Any) -> list[Finding] | None:
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
        problems = once(problems)
        return problems if _unambiguous(problems) else None

    def _findings_of(self, spot: Spot | Subtree, payload: Any) -> list[Finding] | None:
        from jobschema.validate.shortcuts.explain import Spot

        return self._spot_problems(spot, payload) if isinstance(spot, Spot) else self._subtree(spot, payload)

    def _spot_problems(self, spot: Spot, payload: Any) -> list[Finding] | None:
        if spot.keyword == "required":
            instance = spot.instance
            message: str | None = missing_required([name for name in spot.expected if name not in instance])
        else:
            show = mask if self.reference.is_secret(payload, spot.tokens) else shown(spot.tokens)
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
                for error in self.reference.detailed.evolve(schema=subtree.node).iter_errors(subtree.instance)
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
        return [self.reference.problem(error, payload) for error in errors]

    # --- embedded documents -------------------------------------------------------------------------

    def embedded_findings(self, text: str, target: str) -> list[Finding]:
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

    def _parse_and_check(self, text: str, target: str) -> list[Finding]:
        parsed = parse_text(text)
        if parsed.error is not None:
            error = parsed.error
            where = f" (line {error.line} column {error.column})" if error.where else ""
            message = f"embedded JSON does not parse: {error.message.removeprefix('invalid JSON: ')}{where}"
            return [problem((), message, "embedded-json")]
        return duplicate_keys(parsed) + self._embedded(target).check(parsed.value)


def _python_formats(named: dict[str, Callable[[str], bool]]) -> dict[str, Callable[[str], bool]]:
    """The format functions a compiled validator is given: the checker's own where jsonschema-rs
    cannot hold them as patterns, and the derived schema's (any Python function makes jsonschema-rs
    read each payload slower, so as few as can be)."""
    from jobschema.validate.formats import AS_PATTERNS

    return {**{name: check for name, check in FORMATS.items() if name not in AS_PATTERNS}, **named}


def _unambiguous(problems: list[Finding]) -> bool:
    """True unless two findings sort alike but differ (in schema path or details): their order would
    then be jsonschema-rs's, not python-jsonschema's."""
    seen: dict[tuple[Tokens, str, str], Finding] = {}
    for found in problems:
        first = seen.setdefault((found.tokens, found.rule, found.message), found)
        if (first.schema_tokens, first.details) != (found.schema_tokens, found.details):
            return False
    return True
