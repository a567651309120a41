"""A witness for a change: a small payload one side may send and the other never would, proven by
checking it against both sides as ``jobschema validate`` does.

For a change that lets new values arrive (an enum value added, a type widened, a pattern loosened, a
property added to a closed object, a required property made optional) the witness is a payload the
NEW side accepts and the OLD side rejects; for a property removed the reverse. It is
built from the strategies of :mod:`jobschema.testing` with hypothesis, derandomized so each run
gives the same payload:

1. the smallest payload the accepting side allows (hypothesis shrinks it);
2. the way to the changed place opened with the smallest value of each object or item on the way;
3. at the place, the value the change is about: the enum value itself, ``null``, or the smallest value
   of the accepting side's schema there that the other side's schema rejects (decided on values:
   a pattern, a bound, a type), or the property itself, or its absence.

A witness is *proven* when the accepting side finds no error in it and the other side at least one.
Hypothesis is needed (``jobschema[changes]``); ``import jobschema.changes`` alone does not import it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from jobschema.changes.compare import Change, as_map_values
from jobschema.changes.places import ANY, Place, Spot, places
from jobschema.changes.search import NOT_FOUND, smallest
from jobschema.changes.sides import Side
from jobschema.findings import Finding
from jobschema.schemas import registry

#: The rules whose witness the OLD side accepts (the others': the NEW side).
REMOVALS = frozenset({"property-removed", "enum-value-removed"})
#: The rules a witness is drawn for (every breaking and strict rule).
WITNESSED = frozenset(
    {
        "property-removed",
        "required-removed",
        "type-changed",
        "type-widened",
        "nullable-added",
        "enum-value-added",
        "enum-removed",
        "property-added-closed",
        "additional-properties-opened",
        "pattern-loosened",
        "pattern-changed",
        "bound-loosened",
        "format-removed",
    }
)
EXAMPLES = 200
_NONE: Any = NOT_FOUND
#: The root keys of a document kept beside a subschema checked on its own (where its $refs point).
_HOLDERS = ("$defs", "definitions", "components")


@dataclass(frozen=True)
class Witness:
    """A payload for one change and what each side found in it."""

    payload: Any
    accepted_by: Literal["old", "new"]
    old_errors: tuple[str, ...]
    new_errors: tuple[str, ...]

    @property
    def proven(self) -> bool:
        """Accepted by the side its change says, rejected by the other."""
        mine, other = (
            (self.old_errors, self.new_errors)
            if self.accepted_by == "old"
            else (self.new_errors, self.old_errors)
        )
        return not mine and bool(other)


class Maker:
    """Witnesses for the changes between two sides, drawing values from each side's schema."""

    def __init__(self, old: Side, new: Side) -> None:
        self.sides = {"old": _Drawer(old), "new": _Drawer(new)}
        before, after = self.sides["old"].spots, self.sides["new"].spots
        # each side read as the comparison reads it (a property the other declares, from its map)
        self.sides["old"].spots = as_map_values(before, after)
        self.sides["new"].spots = as_map_values(after, before)

    def witness(self, change: Change) -> Witness | None:
        """The witness of ``change``, or None when it has none (a rule without one, no payload
        hypothesis could draw, or a schema whose payloads cannot be drawn: a ``$ref`` to another
        document or one that recurses; then the change is reported without)."""
        from jobschema.testing.schema import UnfollowableRef

        if change.rule not in WITNESSED:
            return None
        side: Literal["old", "new"] = "old" if change.rule in REMOVALS else "new"
        accept, reject = self.sides[side], self.sides["new" if side == "old" else "old"]
        try:
            made = self._checked(_built(change, accept, reject), side)
            if made is None or not made.proven:
                found = _searched(change, accept, reject, lambda p: self._proves(p, side))
                made = self._checked(found, side) or made
        except (UnfollowableRef, RecursionError, re.error):  # (re: a pattern only ECMA-262 reads)
            return None
        return made

    def _checked(self, payload: Any, side: Literal["old", "new"]) -> Witness | None:
        if payload is _NONE:
            return None
        return Witness(payload, side, self.sides["old"].errors(payload), self.sides["new"].errors(payload))

    def _proves(self, payload: Any, side: Literal["old", "new"]) -> bool:
        """Whether ``payload`` is accepted by ``side`` and rejected by the other (the accepting side
        asked first: the cheaper answer for most tries)."""
        other = "new" if side == "old" else "old"
        return not self.sides[side].errors(payload) and bool(self.sides[other].errors(payload))


def _built(change: Change, accept: _Drawer, reject: _Drawer) -> Any:
    base = accept.smallest(())
    if base is _NONE:
        return _NONE
    payload = copy.deepcopy(base)
    if change.rule == "additional-properties-opened":
        return _with_extra(payload, change.place, accept)
    if not change.place:
        return _value(change, accept, reject)
    parent = _opened(payload, change.place[:-1], accept)
    return payload if _changed_at(parent, change, accept, reject) else _NONE


def _searched(change: Change, accept: _Drawer, reject: _Drawer, proves: Callable[[Any], bool]) -> Any:
    """A proven witness searched for where the one :func:`_built` makes is not: the case is made in
    each value hypothesis draws for an object above the change's place (its own object first, then
    each one above it up to the root) until the payload is one ``proves`` accepts.

    The place's object may be constrained by a composition (``oneOf``, ``anyOf``, ``if``/``then``/
    ``else``, through ``allOf`` or ``$ref``) that requires the property in some branches only, or
    asks for something of a sibling first (``kind`` set to another value): the smallest payload with
    the case made in it is then rejected by the accepting side too, and one with another branch
    taken, here or above, is the witness. ``_NONE`` when no draw proves it (then none is claimed)."""
    make = _case(change, accept, reject)
    base = accept.smallest(())
    if make is None or base is _NONE or not change.place:
        return _NONE
    below = change.place if change.rule == "additional-properties-opened" else change.place[:-1]
    for depth in range(len(below), -1, -1):
        found = _drawn_above(below[:depth], base, accept, make, proves)
        if found is not _NONE:
            return found
    return _NONE


def _drawn_above(
    above: Place, base: Any, accept: _Drawer, make: Callable[[Any], bool], proves: Callable[[Any], bool]
) -> Any:
    """The payload, ``base`` with the smallest value drawn at ``above`` that ``proves`` accepts once
    the case is made in it; ``_NONE`` when none is drawn."""

    def placed(value: Any) -> Any:
        payload = _placed(base, above, value, accept)
        return payload if payload is not _NONE and make(payload) else _NONE

    def qualifies(value: Any) -> bool:
        payload = placed(value)
        return payload is not _NONE and proves(payload)

    strategy = accept.drawn(above)
    found = _NONE if strategy is None else _find(strategy, qualifies)
    return _NONE if found is _NONE else placed(found)


def _placed(base: Any, above: Place, value: Any, drawer: _Drawer) -> Any:
    """A copy of ``base`` with ``value`` at ``above`` (the root: ``value`` itself)."""
    if not above:
        return copy.deepcopy(value)
    payload = copy.deepcopy(base)
    container = _opened(payload, above[:-1], drawer)
    if container is _NONE or not _put(container, above[-1], copy.deepcopy(value)):
        return _NONE
    return payload


def _case(change: Change, accept: _Drawer, reject: _Drawer) -> Callable[[Any], bool] | None:
    """A function making the change's case in a payload (in place; False when it cannot), with the
    value at the place drawn once; None when there is no such value."""
    if change.rule == "additional-properties-opened":
        return lambda payload: _with_extra(payload, change.place, accept) is not _NONE
    if change.rule == "required-removed":
        value = None
    else:
        value = _value(change, accept, reject)
        if value is _NONE:
            return None

    def make(payload: Any) -> bool:
        parent = _opened(payload, change.place[:-1], accept)
        return _case_at(parent, change, copy.deepcopy(value))

    return make


def _case_at(parent: Any, change: Change, value: Any) -> bool:
    """Make the change's case in ``parent`` with ``value`` (a required property left out, else
    ``value`` put at its place); False when it cannot."""
    if parent is _NONE:
        return False
    if change.rule == "required-removed":
        if isinstance(parent, dict):
            parent.pop(change.place[-1], None)
        return isinstance(parent, dict)
    return _put(parent, change.place[-1], value)


def _changed_at(parent: Any, change: Change, accept: _Drawer, reject: _Drawer) -> bool:
    """Make the change's case in ``parent`` (the container of its place); False when it cannot."""
    if parent is _NONE or change.rule == "required-removed":
        return _case_at(parent, change, None)
    value = _value(change, accept, reject)
    return value is not _NONE and _case_at(parent, change, value)


def _value(change: Change, accept: _Drawer, reject: _Drawer) -> Any:
    """The value at the change's place: the enum value, null, the property's smallest value, or the
    smallest the accepting side allows there and the rejecting side does not."""
    if change.rule in ("enum-value-added", "enum-value-removed"):
        return change.new if change.rule == "enum-value-added" else change.old
    if change.rule == "nullable-added":
        return None
    if change.rule in ("property-added-closed", "property-removed"):
        return accept.smallest(change.place)
    return _between(change.place, accept, reject)


def _between(place: Place, accept: _Drawer, reject: _Drawer) -> Any:
    """A value the accepting side allows at ``place`` and the rejecting side does not: the first of
    the values at the edges of the rejecting side's constraints that qualifies, else the smallest
    hypothesis finds among the accepting side's values, else among strings of its pattern."""

    def qualifies(value: Any) -> bool:
        return accept.fits(place, value) and not reject.fits(place, value)

    for value in _edges(accept, reject.spot(place), place):
        if qualifies(value):
            return value
    found = accept.smallest(place, lambda value: not reject.fits(place, value))
    spot = accept.spot(place)
    if found is _NONE and spot is not None and spot.pattern is not None:
        from hypothesis import strategies as st

        found = _find(st.from_regex(spot.pattern), qualifies)
    return found


def _edges(accept: _Drawer, reject: Spot | None, place: Place) -> list[Any]:
    """Values just beyond the rejecting side's bounds, and one small value of each JSON type."""
    edges: list[Any] = ["", "witness", 0, -1, 0.5, True, None, {}, []]
    bounds = reject.bounds if reject is not None else {}
    for keyword, value in sorted(bounds.items()):
        if keyword == "maxLength":
            edges += ["a" * (int(value) + 1), "0" * (int(value) + 1)]
        elif keyword == "minLength" and value > 0:
            edges += ["a" * (int(value) - 1), "0" * (int(value) - 1)]
        elif keyword in ("minimum", "exclusiveMinimum"):
            edges += [value, value - 1, value - 0.5]
        elif keyword in ("maximum", "exclusiveMaximum"):
            edges += [value, value + 1, value + 0.5]
        elif keyword == "multipleOf":
            edges += [value / 2, value + 1]
        elif keyword in ("maxItems", "minItems"):
            item = accept.smallest((*place, ANY))
            if item is not _NONE:
                count = int(value) + 1 if keyword == "maxItems" else max(int(value) - 1, 0)
                edges.append([copy.deepcopy(item) for _ in range(count)])
    return edges


def _opened(payload: Any, place: Place, drawer: _Drawer) -> Any:
    """The container at ``place`` in ``payload``, each missing object or item on the way added."""
    here = payload
    for depth, token in enumerate(place):
        at = place[: depth + 1]
        if isinstance(here, list) and token == ANY:
            if not here:
                item = drawer.smallest(at, _is_container)
                if item is _NONE:
                    return _NONE
                here.append(item)
            here = here[0]
        elif isinstance(here, dict):
            key = token if token != ANY else next(iter(here), "witness")
            if not _is_container(here.get(key)):
                value = drawer.smallest(at, _is_container)
                if value is _NONE:
                    return _NONE
                here[key] = value
            here = here[key]
        else:
            return _NONE
    return here


def _put(container: Any, token: str, value: Any) -> bool:
    if isinstance(container, list) and token == ANY:
        container[:1] = [value]
        return True
    if isinstance(container, dict):
        container[token if token != ANY else next(iter(container), "witness")] = value
        return True
    return False


def _with_extra(payload: Any, place: Place, drawer: _Drawer) -> Any:
    """``payload`` with a property its object at ``place`` does not declare."""
    target = _opened(payload, place, drawer) if place else payload
    if not isinstance(target, dict):
        return _NONE
    spot = drawer.spot(place)
    declared = set(spot.node.get("properties", {})) if spot is not None else set()
    key = "witness"
    while key in declared or key in target:
        key += "_"
    value = drawer.smallest((*place, ANY)) if drawer.spot((*place, ANY)) else "witness"
    if value is _NONE:
        return _NONE
    target[key] = value
    return payload


def _is_container(value: Any) -> bool:
    return isinstance(value, dict | list)


class _Drawer:
    """Values of one side's schema, smallest first, and the checks of that side."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self._smallest: dict[tuple[Place, Any], Any] = {}
        self._fits: dict[Place, Any] = {}

    @cached_property
    def spots(self) -> dict[Place, Spot]:
        return places(self.side.document, self.side.start)

    def spot(self, place: Place) -> Spot | None:
        return self.spots.get(place)

    @cached_property
    def compiler(self) -> Any:
        from jobschema.testing import _embedded
        from jobschema.testing.generate import Compiler

        return Compiler(self.side.document, _embedded, realistic=self.side.bundled)

    def strategy(self, place: Place) -> Any:
        from jobschema.testing import payloads
        from jobschema.testing.generate import Place as Where

        side = self.side
        if not place and side.bundled:
            return payloads(side.schema, side.version)
        if not place:
            return self.compiler.compile(side.node, Where(side.start))
        spot = self.spots.get(place)
        if spot is None:
            return None
        return self.compiler.compile(spot.node, Where("#witness/" + "/".join(place)))

    def drawn(self, place: Place) -> Any:
        """The values :func:`_searched` draws at ``place``: the schema there, and at the root of a
        schema file also the root read as :mod:`.places` reads it (the properties of every branch of
        its compositions declared, which the strategies do not draw from ``oneOf`` or ``if``)."""
        strategy = self.strategy(place)
        spot = self.spots.get(())
        if place or self.side.bundled or strategy is None or spot is None:
            return strategy
        from hypothesis import strategies as st

        from jobschema.testing.generate import Place as Where

        return st.one_of(strategy, self.compiler.compile(spot.node, Where("#witness")))

    def smallest(self, place: Place, condition: Callable[[Any], bool] | None = None) -> Any:
        """The smallest value hypothesis draws at ``place`` that meets ``condition`` (``_NONE``: none);
        kept for the next ask without a condition, or with :func:`_is_container`."""
        key = (place, condition)
        remembered = condition is None or condition is _is_container
        if remembered and key in self._smallest:
            known = self._smallest[key]
            return known if known is _NONE else copy.deepcopy(known)
        strategy = self.strategy(place)
        if strategy is None:
            return _NONE
        found = _find(strategy, condition or (lambda _: True))
        if remembered:
            self._smallest[key] = found
        return found if found is _NONE else copy.deepcopy(found)

    def fits(self, place: Place, value: Any) -> bool:
        """Whether this side's schema at ``place`` allows ``value`` (no schema there: any value)."""
        spot = self.spots.get(place)
        if spot is None:
            return True
        if place not in self._fits:
            import jsonschema
            from referencing import Registry

            from jobschema.validate.formats import format_checker

            holder = {key: self.side.document[key] for key in _HOLDERS if key in self.side.document}
            schema = {**holder, "allOf": [spot.node]}
            # The formats validate asserts, by jobschema's own predicates: python-jsonschema's default
            # checker asserts date-time only when rfc3339-validator happens to be installed.
            # An empty registry: a reference to another document is never fetched (python-jsonschema
            # would send a request to any URL a schema file names); it is unresolvable instead.
            self._fits[place] = jsonschema.Draft202012Validator(
                schema, format_checker=format_checker(), registry=Registry()
            )
        return bool(self._fits[place].is_valid(value))

    @cached_property
    def checker(self) -> Any:
        from jobschema.validate.checker import Checker
        from jobschema.validate.session import Session

        session = Session()
        side = self.side
        if side.bundled:
            return session.checker(side.schema, side.version or "")
        document = side.document if side.start == "#" else {**side.document, "$ref": side.start}
        path = side.path or Path(side.label)
        return Checker(registry.Schema(side.schema, path, document), session.checker)

    def errors(self, payload: Any) -> tuple[str, ...]:
        """The errors this side finds in ``payload``, each ``POINTER: MESSAGE``."""
        from jobschema.secrets.policy import masked_pointer
        from jobschema.validate.session import check_value

        found: list[Finding] = check_value(self.checker, payload)
        # (each key read by the secret policy before it is escaped: ``/postgres:~1~1bob:X@db`` read
        # whole, once written, is no URL)
        return tuple(
            f"{masked_pointer(f.tokens) or '/'}: {f.message}" for f in found if f.severity == "error"
        )


def _find(strategy: Any, condition: Callable[[Any], bool]) -> Any:
    return smallest(strategy, condition, EXAMPLES)
