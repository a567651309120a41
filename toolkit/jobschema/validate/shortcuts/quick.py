"""One schema that asks for everything a clean payload must satisfy: the schema itself plus its
warn-only annotations (``x-jobschema-known-values``, ``-format``, ``-pattern``, ``deprecated``),
written as ordinary constraints (embedded documents are checked beside it, by the checker).

A compiled validator then answers "is there anything at all to report?" in one pass; the
annotation walk and the detailed validator run only for the payloads where the answer is yes.
That shortcut is sound only when every annotated node applies wherever the annotation walk
(:mod:`jobschema.schemas.annotated`) says it does, and no annotated node sits where a stricter schema could
make the whole more lenient (under ``oneOf``, ``not``, ``if`` or ``contains``). :func:`derive`
returns ``None`` when a schema is not built that way, and the checker keeps to the walk.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from jobschema.schemas.annotated import EMBEDDED
from jobschema.schemas.refs import local_target

#: The drafts whose ``$ref`` the annotation walk follows as jsonschema-rs does (with its siblings).
DRAFTS = ("https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema")
SOFT = ("x-jobschema-known-values", "x-jobschema-format", "x-jobschema-pattern", "deprecated")
#: Where a stricter subschema can make the whole schema accept more.
LENIENT_IF_STRICTER = ("oneOf", "not", "if", "contains")
#: References this check cannot follow: a schema using them keeps to the walk.
_UNFOLLOWED = ("$dynamicRef", "$recursiveRef")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
_SUBSCHEMAS = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)


@dataclass
class Derived:
    """The derived schema, the extra ``format`` functions it names, and where each constraint added
    for a warn-only check comes from: ``origins[id(constraint)]`` is ``(rule, annotated node)``, the
    node as the schema wrote it (:mod:`jobschema.validate.shortcuts.soft` reads errors back by it)."""

    document: dict[str, Any]
    formats: dict[str, Callable[[str], bool]] = field(default_factory=dict)
    origins: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)


class NotDerivable(Exception):
    """An annotated node where the one-pass shortcut would miss a finding."""


def derive(
    schema: dict[str, Any], formats: dict[str, Callable[[str], bool]], alone: bool = False
) -> Derived | None:
    """``schema`` with its warn-only annotations as constraints, or ``None`` when that would not be
    sound. ``formats`` are the format functions the checker asserts. ``alone``: the warn-only
    constraints only, the schema's own assertions left out (:func:`_navigation_only`), and
    ``deprecated`` too (:func:`_constrain`): a payload valid there has nothing for the annotation walk
    to report but deprecated fields, whatever else is wrong with it.

    Embedded documents are not part of it: the checker finds them with the annotation walk itself
    (:meth:`~jobschema.validate.checker.Checker._embedded_all_clean`). A validator given any Python format
    function converts every payload about four times slower (jsonschema-rs 0.61: 12 against 3 ns per
    object key), so the derived schema needs none where it can: formats become patterns, and plain
    ``x-jobschema-pattern`` expressions stay patterns (:func:`plain_pattern`).
    """
    if schema.get("$schema", DRAFTS[0]) not in DRAFTS or _nested_identity(schema):
        return None  # older drafts ignore keywords beside $ref; a nested $id or $schema changes both
    document = _copy(schema)
    derived = Derived(document)
    try:
        annotated = _annotated_nodes(document)
        written = {id(node): dict(node) for node in annotated}  # (before alone strips them)
        if alone:
            _navigation_only(document)
        for node in annotated:
            _constrain(node, derived, formats, written[id(node)], alone)
        _formats_as_patterns(document, formats)
    except (NotDerivable, re.error):  # a bad x-jobschema-pattern fails only where a value has it
        return None
    return derived


def with_format_patterns(
    schema: dict[str, Any], formats: dict[str, Callable[[str], bool]]
) -> dict[str, Any] | None:
    """A copy of ``schema`` whose ``format`` keywords the checker asserts with a function of
    :data:`~jobschema.validate.formats.AS_PATTERNS` are that function's patterns (the same strings
    accepted, no Python call per value), or ``None`` when the schema is not written as :func:`derive`
    needs (an older draft, a nested ``$id`` or ``$schema``, a reference the walk cannot follow)."""
    if schema.get("$schema", DRAFTS[0]) not in DRAFTS or _nested_identity(schema):
        return None
    document = _copy(schema)
    try:
        _formats_as_patterns(document, formats)
    except NotDerivable:  # (a $ref into components, to an $anchor, outside the document, ...)
        return None
    return document


#: What a schema node keeps in :func:`derive`'s ``alone`` document: what leads the validator to
#: the places the annotation walk visits (``properties``, ``$ref``, ``allOf``, and the subschema of
#: any item or value, :func:`_any_member`), the annotations themselves (no validator asserts them)
#: and the documents' own frame. Nothing the walk visits lies below any other keyword
#: (:func:`_annotated_nodes` rules that out).
_NAVIGATION = frozenset({"properties", "$ref", "allOf", "$defs", "definitions", *SOFT, EMBEDDED})
_FRAME = frozenset({"$schema", "$id"})


def _navigation_only(document: dict[str, Any]) -> None:
    """Every schema node of ``document`` reduced to :data:`_NAVIGATION` (the root keeps
    :data:`_FRAME` too), its ``items`` and ``additionalProperties`` as :func:`_any_member` makes them."""
    for node in _schema_nodes(document, {"properties", "$ref", "allOf", "items", "additionalProperties"}):
        member = _any_member(node)
        keep = _NAVIGATION | _FRAME if node is document else _NAVIGATION
        for keyword in [k for k in node if k not in keep]:
            del node[keyword]
        if member is not None:
            node["items"] = member
            node["patternProperties"] = {"": member}


def _any_member(node: dict[str, Any]) -> dict[str, Any] | None:
    """The subschema the walk applies to every item of an array and every value of an object here
    (``*``): ``items`` and ``additionalProperties`` alike, whichever the value is (``None``: none)."""
    members = [node[k] for k in ("items", "additionalProperties") if isinstance(node.get(k), dict)]
    if not members:
        return None
    return members[0] if len(members) == 1 else {"allOf": members}


def _copy(schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON document: through orjson (six times faster than ``copy.deepcopy``),
    or ``deepcopy`` for what orjson cannot write back exactly (integers beyond 64 bits)."""
    import orjson

    try:
        copied: dict[str, Any] = orjson.loads(orjson.dumps(schema))
    except (TypeError, orjson.JSONEncodeError):
        return copy.deepcopy(schema)
    return copied


def _formats_as_patterns(document: dict[str, Any], formats: dict[str, Callable[[str], bool]]) -> None:
    """Each ``format`` the checker asserts with a function of :data:`~jobschema.validate.formats.
    AS_PATTERNS` becomes that function's ``pattern`` (and length): jsonschema-rs then checks it in its
    own regex engine, with no Python call per value (``tests/test_format_patterns.py`` proves the two
    agree)."""
    from jobschema.validate.formats import AS_PATTERNS

    for node in _schema_nodes(document):
        name = node.get("format")
        if isinstance(name, str) and name in AS_PATTERNS and formats.get(name) is AS_PATTERNS[name][0]:
            del node["format"]
            node["allOf"] = [*node.get("allOf", []), dict(AS_PATTERNS[name][1])]


def _schema_nodes(document: dict[str, Any], through: set[str] | None = None) -> Iterator[dict[str, Any]]:
    """Each schema node of ``document`` once, reached through the subschemas of the keywords
    ``through`` (``None``: every one); the nodes below a node are found before it is yielded, so
    the caller may change it."""
    seen: set[int] = set()
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        stack += [
            sub for keyword, sub, _place in _children(document, node) if through is None or keyword in through
        ]
        yield node


def _nested_identity(schema: dict[str, Any]) -> bool:
    """True when a dict below the root carries ``$id`` or ``$schema`` (anywhere: cheap and safe)."""
    stack: list[Any] = list(schema.values())
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "$id" in item or "$schema" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _constrain(
    node: dict[str, Any],
    derived: Derived,
    formats: dict[str, Callable[[str], bool]],
    written: dict[str, Any],
    alone: bool = False,
) -> None:
    """Add to ``node`` what its warn-only checks ask for (the soft checks skip ``null``, so does this);
    ``written`` is the node as the schema wrote it. ``alone`` (:func:`derive`) leaves ``deprecated``
    out: jsonschema-rs gives each error its instance as a Python value, so an error on a deprecated
    object costs a copy of the object; the soft shortcut reads the few deprecated places itself."""
    extra: list[tuple[str, dict[str, Any]]] = []
    known = node.get("x-jobschema-known-values")
    if isinstance(known, list):
        if _has_number(known):  # JSON Schema compares 1e23 and 10**23 as equal, Python does not
            raise NotDerivable
        extra.append(("known-values", {"enum": [*known, None]}))
    fmt = node.get("x-jobschema-format")
    if isinstance(fmt, str) and fmt in formats:
        extra.append(("soft-format", {"format": fmt}))
    pattern = node.get("x-jobschema-pattern")
    if isinstance(pattern, str):
        search = _searcher(pattern)  # (a bad expression makes the schema underivable, re.error)
        native = plain_pattern(pattern)
        extra.append(
            ("soft-pattern", {"pattern": native} if native else {"format": _name(derived, "pattern", search)})
        )
    if node.get("deprecated") is True and not alone:
        extra.append(("deprecated", {"type": "null"}))
    for rule, constraint in extra:
        derived.origins[id(constraint)] = (rule, written)
    if extra:
        node["allOf"] = [*node.get("allOf", []), *(constraint for _, constraint in extra)]


def _has_number(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_number(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_number(item) for item in value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _name(derived: Derived, kind: str, check: Callable[[str], bool]) -> str:
    name = f"x-jobschema-{kind}-{len(derived.formats)}"
    derived.formats[name] = check
    return name


#: The expressions jsonschema-rs matches as Python's ``re.search`` does: ASCII letters, digits, ``_``
#: and ``-``, escaped ``.``, classes of those (ranges, negation, a final ``-``), groups, alternation
#: and quantifiers, ``^`` first only, ``$`` last only. No ``.``, ``\d``/``\w``/``\s`` (Unicode in
#: Python), flags, lookaround or class set operations (``--``, ``&&`` in Rust). Such an expression is
#: regular, so whether it matches somewhere does not depend on the engine, but for ``$``: Python's
#: matches before a final newline too, which :func:`plain_pattern` writes out (``\n?$``).
_PLAIN = re.compile(
    r"\^?(?:\((?:\?:|(?![?*+{]))|\|(?![?*+{])|(?:[A-Za-z0-9_-]|\\[.-]|\)"
    r"|\[\^?(?:[A-Za-z0-9_](?:-[A-Za-z0-9_])?)+-?\])(?:(?:[?*+]|\{[0-9]{1,4}(?:,[0-9]{0,4})?\})\??)?)*\$?"
)


def plain_pattern(pattern: str) -> str | None:
    """``pattern`` as jsonschema-rs should hold it to match exactly the strings Python's
    ``re.search(pattern, ...)`` matches, or ``None`` when it is not that plain (:data:`_PLAIN`)."""
    if _PLAIN.fullmatch(pattern) is None:
        return None
    return pattern[:-1] + r"\n?$" if pattern.endswith("$") else pattern


def _searcher(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda value: compiled.search(value) is not None


def _annotated_nodes(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The annotated schema nodes of ``document`` (subschemas only: never a value inside ``enum``,
    ``const`` or ``examples``). Raise :class:`NotDerivable` unless every one is applied
    unconditionally at each place the annotation walk visits, and none sits under a keyword in
    :data:`LENIENT_IF_STRICTER`.

    A node's place is ``SURE`` (the walk visits it and the schema applies it there too), ``UNSURE`` (the
    walk visits it but the schema may not apply it: an ``anyOf`` branch, say) or ``OFF`` (the walk
    never visits it, so a stricter node there only makes the shortcut rarer)."""
    found: dict[int, dict[str, Any]] = {}
    seen: set[tuple[int, str, bool]] = set()  # no depth limit: every node is visited once per state
    stack: list[tuple[Any, str, bool]] = [(document, SURE, True)]
    while stack:
        node, place, monotone = stack.pop()
        if not isinstance(node, dict) or (id(node), place, monotone) in seen:
            continue
        seen.add((id(node), place, monotone))
        if any(k in node for k in (*SOFT, EMBEDDED)):
            if place == UNSURE or not monotone:
                raise NotDerivable
            found[id(node)] = node
        for keyword, sub, edge in _children(document, node):
            below = OFF if OFF in (place, edge) else UNSURE if UNSURE in (place, edge) else SURE
            stack.append((sub, below, monotone and keyword not in LENIENT_IF_STRICTER))
    return list(found.values())


SURE, UNSURE, OFF = "sure", "unsure", "off"
#: The walk's edges (:func:`jobschema.schemas.annotated.compile_schema`); every other subschema is ``OFF``.
_WALKED = {"$ref": SURE, "allOf": SURE, "properties": SURE, "anyOf": UNSURE, "oneOf": UNSURE}


def _children(document: dict[str, Any], node: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """``(keyword, subschema, place)`` for each subschema of ``node`` (``$defs`` only through ``$ref``)."""
    if node.keys().isdisjoint(_CHILD_KEYWORDS):
        return []  # a leaf (most nodes): nothing below it
    children: list[tuple[str, Any, str]] = []
    if any(keyword in node for keyword in _UNFOLLOWED):
        raise NotDerivable
    ref = node.get("$ref")
    if ref is not None:
        # Only plain pointers into this document: the walk resolves nothing else as the validator does
        # (an anchor, another document, a percent-encoded name).
        if not isinstance(ref, str) or not schema_pointer(ref):
            raise NotDerivable
        target = local_target(document, ref)
        if target is None:  # dangling: the constraints added here must not give it a target
            raise NotDerivable
        children.append(("$ref", target, SURE))
    for keyword in _SUBSCHEMA_LISTS:
        children += [(keyword, sub, _WALKED.get(keyword, OFF)) for sub in _as_list(node.get(keyword))]
    children += [("items", sub, OFF) for sub in _as_list(node.get("items"))]  # 2019-09 tuple form
    for keyword in _SUBSCHEMA_MAPS:
        place = _WALKED.get(keyword, OFF)
        children += [(keyword, sub, place) for sub in _as_map(node.get(keyword)).values()]
    children += [
        (keyword, node[keyword], _place(node, keyword)) for keyword in _SUBSCHEMAS if keyword in node
    ]
    return children


#: The keywords that hold subschemas (or, for ``$dynamicRef``, make the schema underivable).
_CHILD_KEYWORDS = frozenset(
    {"$ref", *_UNFOLLOWED, *_SUBSCHEMA_LISTS, "items", *_SUBSCHEMA_MAPS, *_SUBSCHEMAS}
)


_IN_MAP = frozenset({*_SUBSCHEMA_MAPS, "$defs", "definitions"})
_IN_LIST = frozenset({*_SUBSCHEMA_LISTS, "items"})


def schema_pointer(ref: str) -> bool:
    """True when ``ref`` is ``#`` or ``#/...`` through subschema keywords only (never into ``enum``,
    ``const`` or another value, whose copy the added constraints would change), not percent-encoded."""
    if ref == "#":
        return True
    if not ref.startswith("#/") or "%" in ref:
        return False
    tokens = ref[2:].split("/")
    index = 0
    while index < len(tokens):
        keyword = tokens[index]
        if keyword in _IN_MAP or (
            keyword in _IN_LIST and index + 1 < len(tokens) and tokens[index + 1].isdigit()
        ):
            index += 2
        elif keyword in _SUBSCHEMAS:
            index += 1
        else:
            return False
    return index == len(tokens)


def _place(node: dict[str, Any], keyword: str) -> str:
    """``items`` and ``additionalProperties``: the walk applies either to every item of an array and
    every value of an object, so each is ``SURE`` only where the node's ``type`` rules out the other
    kind of container and nothing else claims some of the items or values."""
    types = node.get("type")
    types = {types} if isinstance(types, str) else set(types) if isinstance(types, list) else None
    if keyword == "items":
        return SURE if types is not None and "object" not in types and "prefixItems" not in node else UNSURE
    if keyword == "additionalProperties":
        other = node.get("additionalProperties")
        claimed = _as_map(node.get("properties")).values()
        same = all(_applies_same(sub, other) for sub in claimed) and not node.get("patternProperties")
        return SURE if types is not None and "array" not in types and same else UNSURE
    return OFF


_NOTES = frozenset({"description", "title", "examples", "$comment"})


def _applies_same(one: Any, other: Any) -> bool:
    """True when two subschemas differ in their notes only (``Master`` and any other role of a job)."""
    if not isinstance(one, dict) or not isinstance(other, dict):
        return one == other
    return {k: v for k, v in one.items() if k not in _NOTES} == {
        k: v for k, v in other.items() if k not in _NOTES
    }


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _as_map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
