"""Explaining an invalid payload from jsonschema-rs's own errors, with python-jsonschema only where it
adds what jobschema reports.

python-jsonschema's ``iter_errors`` walks the whole document in Python (milliseconds for a big
payload); jsonschema-rs finds the same errors natively. The findings must stay exactly what
python-jsonschema gives, so this takes a schema only when both validators agree on every keyword it
uses (:func:`derive` returns ``None`` otherwise, and the checker keeps to python-jsonschema):

- ``pattern`` is checked with Python's ``re.search`` (a custom keyword: the two regex dialects differ,
  ``$`` before a final newline for one), ``format`` asserts only jobschema's :data:`FORMATS` (as
  python-jsonschema does here: jsonschema-rs would assert its own others);
- keywords whose results can differ (``multipleOf`` on floats, ``patternProperties`` and
  ``propertyNames``, whose regexes jsonschema-rs runs, the dynamic references, anything unknown)
  rule the schema out, and so do ``$ref`` values that are not pointers into the document and a nested
  ``$id``.

An error of a keyword whose finding jobschema words itself (:data:`WORDED`: ``type``, ``enum``,
``required``, ...) becomes a :class:`Spot` from jsonschema-rs alone: its place, keyword, the keyword's
value in the schema and the offending value, and the schema path as python-jsonschema spells it
(``$ref`` left out). Any other keyword (``anyOf``, ``oneOf``, ``additionalProperties``, ...) is a
:class:`Subtree`: python-jsonschema runs on that schema node and that value only, and its error there
is used as it is. :meth:`Explainer.spots` returns ``None`` (python-jsonschema on the whole payload)
when an error cannot be placed exactly: a path through an applicator whose spelling differs, errors
that python-jsonschema would count differently, or jsonschema-rs refusing the payload.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jobschema.pointer import Tokens
from jobschema.schemas.keywords import BOUNDS
from jobschema.schemas.refs import local_target
from jobschema.validate.shortcuts.quick import schema_pointer

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: The custom keyword that stands for ``pattern`` in the derived schema (checked with ``re.search``).
PATTERN = "x-jobschema-re-pattern"
#: Where an unasserted ``format`` goes in the derived schema (python-jsonschema asserts only FORMATS).
UNASSERTED = "x-jobschema-unasserted-format"
#: Keywords whose finding jobschema words itself from the keyword's value and the offending value.
WORDED = frozenset(
    {
        "type",
        "enum",
        "const",
        "format",
        "pattern",
        *BOUNDS,
        "uniqueItems",
        "required",
    }
)
#: Keywords whose value is a subschema, a list of them, or a map of names to them.
_ONE = frozenset({"additionalProperties", "items", "not", "if", "then", "else", "contains", "contentSchema"})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
#: Keywords both validators assert alike (their values are not subschemas).
_ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "const",
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "minProperties",
        "maxProperties",
        "required",
        "dependentRequired",
    }
)
#: Keywords neither asserts (2020-12 leaves ``content*`` to the application).
_NOTES = frozenset(
    {
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
    }
)
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
#: How python-jsonschema spells a schema path step: ``$ref`` is left out; these keep their keyword
#: (and the name or index after it, for the first two).
_NAMED_STEPS = frozenset({"properties", "allOf", "prefixItems"})
_PLAIN_STEPS = frozenset({"additionalProperties", "items", "then", "else"})
#: The steps into a value of the payload: a property's name, an item's index, any other member or item.
_INTO: dict[str, type] = {"additionalProperties": str, "items": int}


@dataclass(frozen=True)
class Spot:
    """An error jobschema words itself: where, the keyword, its value in the schema, the value."""

    tokens: Tokens
    keyword: str
    expected: Any
    instance: Any
    schema_tokens: Tokens


@dataclass(frozen=True)
class Subtree:
    """An error python-jsonschema words: ``count`` errors of ``keyword`` in schema ``node`` at the
    value at ``tokens``; ``schema_tokens`` is the node's schema path as python-jsonschema spells it."""

    tokens: Tokens
    keyword: str
    node: dict[str, Any]
    instance: Any
    schema_tokens: Tokens
    count: int


class NotExplainable(Exception):
    """A schema (or one error of it) that jsonschema-rs cannot explain exactly as python-jsonschema."""


def derive(schema: Any, formats: dict[str, Callable[[str], bool]]) -> dict[str, Any] | None:
    """The schema jsonschema-rs explains payloads with (``pattern`` as :data:`PATTERN`, formats outside
    ``formats`` unasserted), or ``None`` when its errors could differ from python-jsonschema's."""
    if not isinstance(schema, dict) or schema.get("$schema", DRAFT) != DRAFT:
        return None
    document = copy.deepcopy(schema)
    try:
        _check(document, document, formats, root=True)
    except (NotExplainable, re.error, RecursionError, TypeError):
        return None
    return document


def _check(document: Any, node: Any, formats: dict[str, Callable[[str], bool]], root: bool = False) -> None:
    """Raise :class:`NotExplainable` unless every keyword of ``node`` (and below) is one both validators
    treat alike; rewrite ``pattern`` and unasserted ``format`` on the way."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise NotExplainable
    for keyword in list(node):
        value = node[keyword]
        if keyword in _ONE:
            _check(document, value, formats)
        elif keyword in _LIST or keyword in _MAP:
            for child in _sequence(value) if keyword in _LIST else _mapping(value).values():
                _check(document, child, formats)
        elif keyword == "pattern":
            re.compile(value)
            node[PATTERN] = node.pop("pattern")
        elif keyword == "format" and value not in formats:
            node[UNASSERTED] = node.pop("format")
        elif not _alike(document, keyword, value, root):
            raise NotExplainable


def _alike(document: Any, keyword: str, value: Any, root: bool) -> bool:
    """True when both validators treat this keyword (whose value is no subschema) alike."""
    if keyword in ("$id", "$schema"):
        return root  # a nested resource or dialect: the two resolve and switch differently
    if keyword in (PATTERN, UNASSERTED):
        return False  # the derived schema's own names
    if keyword.startswith("x-") or keyword in _NOTES:
        return True
    if keyword == "$ref":  # a pointer through subschemas (never into an enum), not percent-encoded
        return isinstance(value, str) and schema_pointer(value) and local_target(document, value) is not None
    if keyword == "type":
        return all(name in _TYPES for name in ([value] if isinstance(value, str) else _sequence(value)))
    return keyword in _ASSERTIONS


def _sequence(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise NotExplainable
    return value


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise NotExplainable
    return value


class PatternKeyword:
    """The :data:`PATTERN` keyword: ``pattern`` as python-jsonschema checks it (``re.search``)."""

    def __init__(self, parent_schema: dict[str, Any], value: str, schema_path: list[str | int]) -> None:
        self.pattern = re.compile(value)

    def validate(self, instance: Any) -> None:
        """Raise ``ValueError`` when a string does not match."""
        if isinstance(instance, str) and self.pattern.search(instance) is None:
            raise ValueError("does not match")


class Explainer:
    """jsonschema-rs errors of a derived schema turned into :class:`Spot` and :class:`Subtree` items."""

    def __init__(self, schema: dict[str, Any], validator: Any) -> None:
        self.schema = schema
        self.validator = validator

    def spots(self, payload: Any) -> list[Spot | Subtree] | None:
        """Every error of ``payload``, or ``None`` when python-jsonschema must explain it whole."""
        try:
            errors = list(self.validator.iter_errors(payload))
        except (ValueError, RecursionError, OverflowError):
            return None
        found: list[Spot | Subtree] = []
        groups: dict[tuple[Tokens, Tokens], list[Any]] = {}
        try:
            for error in errors:
                keyword = _keyword(error)
                if keyword in WORDED:
                    found.append(self._spot(error, keyword, payload))
                else:
                    key = (tuple(error.instance_path), tuple(error.evaluation_path))
                    groups.setdefault(key, []).append(error)
            found += [self._subtree(group, payload) for group in groups.values()]
        except (NotExplainable, KeyError, IndexError, TypeError):
            return None
        return found

    def _spot(self, error: Any, keyword: str, payload: Any) -> Spot:
        tokens, node, schema_tokens = self._place(error, keyword, payload)
        value = node["pattern" if keyword == "pattern" else keyword]
        return Spot(tokens, keyword, value, _value_at(payload, tokens), schema_tokens)

    def _subtree(self, group: list[Any], payload: Any) -> Subtree:
        error = group[0]
        keyword = str(error.schema_path[-1]) if error.schema_path else ""
        if keyword not in _ASSERTIONS | _ONE | _LIST:
            raise NotExplainable
        tokens, node, schema_tokens = self._place(error, keyword, payload)
        return Subtree(tokens, keyword, node, _value_at(payload, tokens), schema_tokens[:-1], len(group))

    def _place(self, error: Any, keyword: str, payload: Any) -> tuple[Tokens, dict[str, Any], Tokens]:
        """The error's place in the payload, its schema node (of the original schema) and its schema
        path as python-jsonschema spells it; :class:`NotExplainable` when they do not add up."""
        tokens = tuple(error.instance_path)
        schema_path = list(error.schema_path)
        evaluation = list(error.evaluation_path)
        last = PATTERN if keyword == "pattern" else keyword
        if not schema_path or schema_path[-1] != last or not evaluation or evaluation[-1] != last:
            raise NotExplainable
        node = _value_at(self.schema, schema_path[:-1])
        if not isinstance(node, dict) or ("pattern" if keyword == "pattern" else keyword) not in node:
            raise NotExplainable
        steps = _python_steps(evaluation[:-1], tokens)
        return tokens, node, (*steps, keyword)


def _keyword(error: Any) -> str:
    """The keyword of an error as python-jsonschema names it (``pattern`` for :data:`PATTERN`); an
    error whose kind and place disagree (``dependentRequired`` reports ``required``) keeps its place's."""
    last = error.schema_path[-1] if error.schema_path else ""
    if last == PATTERN:
        return "pattern"
    return str(last) if error.kind.name == last else f"({last})"


def _python_steps(evaluation: list[str | int], tokens: Tokens) -> Tokens:
    """The schema path of an evaluation path, spelled as python-jsonschema spells it; checks that it
    descends into the payload exactly as ``tokens`` do."""
    steps: list[str | int] = []
    depth = 0
    index = 0
    while index < len(evaluation):
        step = evaluation[index]
        index += 1
        if step == "$ref":
            continue
        if step in _NAMED_STEPS and index < len(evaluation):
            name = evaluation[index]
            index += 1
            steps += [step, name]
            if step != "allOf":
                depth = _descend(tokens, depth, name)
        elif step in _PLAIN_STEPS:
            steps.append(step)
            if step in _INTO:
                depth = _descend(tokens, depth, _INTO[step])
        else:
            raise NotExplainable
    if depth != len(tokens):
        raise NotExplainable
    return tuple(steps)


def _descend(tokens: Tokens, depth: int, want: str | int | type) -> int:
    """One step into the payload: the token at ``depth`` must be ``want`` (or of type ``want``)."""
    if depth >= len(tokens):
        raise NotExplainable
    token = tokens[depth]
    if not (isinstance(token, want) if isinstance(want, type) else token == want):
        raise NotExplainable
    return depth + 1


def _value_at(document: Any, tokens: Tokens | list[str | int]) -> Any:
    node = document
    for token in tokens:
        at_index = isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node)
        if not at_index and not (isinstance(node, dict) and isinstance(token, str)):
            raise NotExplainable
        node = node[token]
    return node
