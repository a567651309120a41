"""The schema-driven comparison of two JSON documents.

Objects are compared key by key; lists by the identity the schema declares (``x-jobschema-list-key``:
reordering is never a change, an added or removed item is one change carrying the whole item), as
sets (``x-jobschema-list-set``), or by position. Scalars are compared by meaning unless ``exact``:
``1`` equals ``1.0`` and, where ``x-jobschema-quantity`` says so, ``"1Gi"`` equals ``"1073741824"``.
Embedded JSON text (``x-jobschema-embedded-schema``) is parsed and compared as a structure.
Linear in the size of the documents.
"""

from __future__ import annotations

import json
import marshal
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache
from math import copysign
from operator import itemgetter
from typing import Any

from jobschema.diff.plan import Place, Plan, bundled_plan
from jobschema.diff.result import Change, DiffOptions, Op
from jobschema.diff.secrets import as_is, is_secret_place, mask_all, mask_nested, masked_token
from jobschema.diff.select import selected
from jobschema.inputs.parse import parse_text
from jobschema.pointer import escape, resolve, to_path
from jobschema.quantity import parse_quantity
from jobschema.text import join_path, key_segment

_PLAIN = re.compile(r"^[A-Za-z0-9_.:/@+-]*$")

#: How a token of user data in a location is shown: :func:`~jobschema.diff.secrets.masked_token`, or
#: :func:`~jobschema.diff.secrets.as_is` (``--show-secrets``, and the pointers ``--ignore`` reads).
Shown = Callable[[str], str]
#: A list item's selector: its index, or its identity as ``(name, value)`` pairs (the name is ``""``
#: for a member of a set, whose identity is its value; :data:`OCCURRENCE` for which item of a key
#: that repeats).
Selector = int | tuple[tuple[str, Any], ...]
#: The name of a selector's occurrence: ``name=A#2`` is the second item whose key is ``A`` (counted
#: on its side for a removed or added item; for a changed one, on the side where it comes first). A
#: keyless item removed or added says its side, ``name=null#left-2``: both sides may have such items
#: left over, and each side counts from 1.
OCCURRENCE = "#"


def key_path(path: str, key: str) -> str:
    """``path`` extended by an object key: ``.key``, or ``["odd key"]`` for keys that need quoting
    (``["cafe\\u0301"]``, escaped, for one that would read like another: :func:`looks_like_another`)."""
    segment = f"[{json.dumps(key)}]" if looks_like_another(key) else key_segment(key)
    return join_path([path, segment]) if path else segment


def looks_like_another(text: str) -> bool:
    """True when ``text`` would read like a different string: not in Unicode's composed form (NFC:
    ``cafe`` and a combining accent reads as ``café``), or holding an invisible character (a
    zero-width space, a byte-order mark) or a space other than the plain one. Two keys of one object
    that differ so are two keys; shown with their escapes, their paths read apart."""
    if text.isascii():
        return False
    return not unicodedata.is_normalized("NFC", text) or any(
        unicodedata.category(char) == "Cf" or (char.isspace() and char != " ") for char in text
    )


def label(value: Any, shown: Shown = as_is) -> str:
    """A list-key value as it reads inside ``[...]``; a string is ``shown`` first (masked), then quoted
    when it is not plain (with its escapes when it would read like another: :func:`looks_like_another`)."""
    if isinstance(value, str):
        value = shown(value)
        if _PLAIN.match(value) and value and not _reads_like_json(value):
            return value
        if looks_like_another(value):
            return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


_SIDE = re.compile(r"#(left|right)-([0-9]+)\]")


def mirrored(path: str) -> str:
    """The path a change's place has when LEFT and RIGHT swap (``diff B A`` against ``diff A B``):
    a keyless item's side swapped, ``[name=null#left-1]`` ↔ ``[name=null#right-1]``; every other
    path is the same either way round."""
    return _SIDE.sub(lambda m: f"#{'right' if m[1] == 'left' else 'left'}-{m[2]}]", path)


def _reads_like_json(text: str) -> bool:
    """True when plain text reads like a JSON number or literal (``1``, ``-2.5``, ``1e5``, ``true``,
    ``null``): quoted, ``[name="1"]``, it reads apart from the key that is one, ``[name=1]``."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def selector_text(selector: Selector, shown: Shown = as_is) -> str:
    """What a list item's selector reads inside ``[...]``: ``3``, ``name=HOME``, ``=value``,
    ``a=1,b=2``, ``name=A#2`` (the second item whose key is ``A``: :data:`OCCURRENCE`); each value
    ``shown`` before it is quoted and joined."""
    if isinstance(selector, int):
        return str(selector)
    text = ",".join(f"{name}={label(value, shown)}" for name, value in selector if name != OCCURRENCE)
    return text + "".join(f"#{value}" for name, value in selector if name == OCCURRENCE)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class At:
    """Where the walk is, built lazily: the parent place and this step (a key, or a list item).

    Paths and pointers are only spelled out when a change is reported, so walking equal parts of
    two documents costs one small object per step. ``volatile`` is inherited; whether a place holds a
    secret is worked out only for the places a change is reported at.
    """

    __slots__ = (
        "_holds", "holder", "key", "left", "parent", "public", "right", "secret", "selector", "volatile"
    )  # fmt: skip

    def __init__(
        self,
        parent: At | None,
        key: str | None,
        left: str,
        right: str,
        selector: Selector = 0,
        volatile: bool = False,
        holder: Any = None,
        public: bool = False,
    ) -> None:
        self.parent, self.key, self.selector = parent, key, selector
        self.left, self.right = left, right
        self.volatile, self.holder = volatile, holder
        self.secret, self.public = False, public
        self._holds: bool | None = None  # holds_secret(), once asked

    @classmethod
    def root(cls, left: str = "", right: str = "") -> At:
        """The top of both documents (or of the parts starting at pointers ``left``/``right``)."""
        return cls(None, None, left, right)

    def member(
        self, key: str, volatile: bool, holder: tuple[dict[str, Any], ...], public: bool = False
    ) -> At:
        """The place of member ``key`` of the objects ``holder`` (one per side that has it);
        ``public``: the schema says it holds no credential, whatever its name."""
        return At(self, key, key, key, 0, self.volatile or volatile, holder, public)

    def item(self, selector: Selector, left: int, right: int, holder: tuple[list[Any], ...] = ()) -> At:
        """The place of a list item, selected by ``selector`` (its index, or its identity: spelled out
        only when a change is reported, each value read by the secret policy first), at index
        ``left``/``right`` of each side (of the lists ``holder``, left then right, when an item's place
        may hold a credential: an argument list's ``["--token", "X"]``)."""
        return At(self, None, str(left), str(right), selector, self.volatile, holder)

    def holds_secret(self) -> bool:
        """True when this place or one above it holds a credential (schema-marked or named like one).
        Each place's answer is kept: the changes under one list (a thousand pods) share its places
        above, which are judged once, not once per change (a judgement may read the whole list)."""
        unknown: list[At] = []
        node: At | None = self
        while node is not None and node._holds is None:
            unknown.append(node)
            node = node.parent
        holds = node is not None and bool(node._holds)
        for place in reversed(unknown):  # from the top down: a place holds one when one above does
            holds = place._holds = holds or place._holds_one_itself()
        return holds

    def _holds_one_itself(self) -> bool:
        if self.secret or (
            self.key is not None
            and not self.public
            and any(is_secret_place(self.keys(), h) for h in self.holder)
        ):
            return True
        return self.key is None and bool(self.holder) and self.secret_item()

    def secret_item(self) -> bool:
        """This list item holds a credential by place (in an argument list, on either side)."""
        indices = (int(self.left), int(self.right))
        return any(
            is_secret_place((index,), items) for index, items in zip(indices, self.holder, strict=False)
        )

    def _chain(self) -> list[At]:
        chain, node = [], self
        while node.parent is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return [node, *chain]

    def spelled(self, shown: Shown = as_is) -> tuple[str, str, str]:
        """``(human path, left pointer, right pointer)``, each object key and selector value ``shown``
        (:func:`~jobschema.diff.secrets.masked_token`: masked) before it is escaped or quoted."""
        root, *steps = self._chain()
        path, left, right = "", root.left, root.right
        for step in steps:
            if step.key is not None:
                key = shown(step.key)
                path = key_path(path, key)
                token = "/" + escape(key)
                left += token
                right += token
            else:
                path += f"[{selector_text(step.selector, shown)}]"
                left += "/" + step.left
                right += "/" + step.right
        return path, left, right

    def keys(self) -> tuple[str | None, str | None, str | None]:
        """The last three object keys above and at this place (``None`` for list steps and the top)."""
        node: At | None = self
        found: list[str | None] = []
        while len(found) < 3:
            found.append(node.key if node is not None else None)
            node = node.parent if node is not None else None
        return found[2], found[1], found[0]


class Differ:
    """Compares documents under a plan; ``embedded`` gives the plan of an embedded schema."""

    def __init__(self, options: DiffOptions, embedded: Callable[[str], Plan] = bundled_plan) -> None:
        self.options = options
        self.embedded = embedded
        self.out: list[Change] = []

    def diff(self, left: Any, right: Any, plan: Plan, at: At | None = None) -> list[Change]:
        """Every change from ``left`` to ``right``, in walk order."""
        self.out = []
        self._walk(left, right, plan, at or At.root())
        return self.out

    def _emit(self, op: Op, at: At, old: Any, new: Any, plan: Plan) -> None:
        options = self.options
        if at.volatile and options.ignore_volatile:
            return
        if (options.ignore or options.only) and not self._selected(op, at):
            return
        shown = as_is if options.show_secrets else masked_token
        if not options.show_secrets:
            old, new = self._masked(old, at, plan), self._masked(new, at, plan)
        path, left, right = at.spelled(shown)
        self.out.append(
            Change(
                op,
                path,
                None if op == "added" else left,
                None if op == "removed" else right,
                old,
                new,
                at.volatile,
            )
        )

    def _selected(self, op: Op, at: At) -> bool:
        """``--ignore``/``--only`` read the pointers as the documents spell them (a pattern may name a
        key the report shows masked)."""
        _, left, right = at.spelled()
        pointers = (None if op == "added" else left, None if op == "removed" else right)
        return selected(pointers, self.options.ignore, self.options.only)

    def _masked(self, value: Any, at: At, plan: Plan) -> Any:
        if value is None:
            return None
        if plan.place.secret or at.holds_secret():
            return value if isinstance(value, dict | list) and not value else mask_all(value)
        return mask_nested(value, plan, at.keys(), self.embedded)

    def _walk(self, left: Any, right: Any, plan: Plan, at: At) -> None:
        if not _equal(left, right):
            self._unequal(left, right, plan, at)

    def _unequal(self, left: Any, right: Any, plan: Plan, at: At) -> None:
        """:meth:`_walk` of two values known not to be equal to the letter."""
        place = plan.place
        if place.volatile and not at.volatile:
            at.volatile = True
        if at.volatile and self.options.ignore_volatile:
            return
        if place.secret:
            at.secret = True
        if place.embedded and isinstance(left, str) and isinstance(right, str):
            inner = _parse_both(left, right)
            if inner is not None:
                self._walk(inner[0], inner[1], self.embedded(place.embedded), at)
                return
        if isinstance(left, dict) and isinstance(right, dict):
            self._objects(left, right, plan, at)
        elif isinstance(left, list) and isinstance(right, list):
            self._lists(left, right, plan, at)
        elif not self._same(left, right, place):
            self._emit("changed", at, left, right, plan)

    def _objects(self, left: dict[str, Any], right: dict[str, Any], plan: Plan, at: At) -> None:
        shared = 0
        for key, value in left.items():
            if key in right:
                shared += 1
                other = right[key]
                if _equal(value, other):  # most members of two snapshots: no place built for them
                    continue
                sub = plan.child(key)
                child = at.member(key, sub.place.volatile, (left, right), sub.place.public)
                self._unequal(value, other, sub, child)
            else:
                sub = plan.child(key)
                removed = at.member(key, sub.place.volatile, (left,), sub.place.public)
                self._emit("removed", removed, value, None, sub)
        if shared == len(right):
            return
        for key, value in right.items():
            if key not in left:
                sub = plan.child(key)
                added = at.member(key, sub.place.volatile, (right,), sub.place.public)
                self._emit("added", added, None, value, sub)

    def _lists(self, left: list[Any], right: list[Any], plan: Plan, at: At) -> None:
        place = plan.place
        item_plan = plan.child(0)
        if place.list_key:
            exact = self.options.exact
            left_keys, right_keys = _keys(left, place.list_key, exact), _keys(right, place.list_key, exact)
            unique = len(set(left_keys)) == len(left_keys) and len(set(right_keys)) == len(right_keys)
            if unique and NO_KEY not in left_keys and NO_KEY not in right_keys:
                self._keyed((left, left_keys), (right, right_keys), item_plan, place, at)
            else:  # (a key that repeats, or an item without its key)
                self._repeated((left, left_keys), (right, right_keys), item_plan, place, at)
            return
        if place.list_set and all(not isinstance(v, dict | list) for v in left + right):
            self._sets(left, right, item_plan, at)
            return
        for index in range(max(len(left), len(right))):
            child = at.item(index, index, index, (left, right))
            if index < len(left) and index < len(right):
                self._walk(left[index], right[index], item_plan, child)
            elif index < len(left):
                self._emit("removed", child, left[index], None, item_plan)
            else:
                self._emit("added", child, None, right[index], item_plan)

    def _keyed(
        self,
        left: tuple[list[Any], list[Any]],
        right: tuple[list[Any], list[Any]],
        item_plan: Plan,
        place: Place,
        at: At,
    ) -> None:
        (left_items, left_keys), (right_items, right_keys) = left, right
        right_index = dict(zip(right_keys, range(len(right_keys)), strict=True))
        if _same_items(left_items, left_keys, right_items, right_index):
            return
        names = _key_names(place.list_key)
        for index, key in enumerate(left_keys):
            other = right_index.pop(key, None)
            if other is None:
                self._emit(
                    "removed",
                    at.item(_selector(names, key), index, index),
                    left_items[index],
                    None,
                    item_plan,
                )
            elif not _equal(left_items[index], right_items[other]):
                self._unequal(
                    left_items[index],
                    right_items[other],
                    item_plan,
                    at.item(_selector(names, key), index, other),
                )
        for key, index in sorted(right_index.items(), key=lambda pair: pair[1]):
            self._emit(
                "added", at.item(_selector(names, key), index, index), None, right_items[index], item_plan
            )

    def _repeated(
        self,
        left: tuple[list[Any], list[Any]],
        right: tuple[list[Any], list[Any]],
        item_plan: Plan,
        place: Place,
        at: At,
    ) -> None:
        """A keyed list whose key repeats on a side (two env vars of one name: Kubernetes allows it), or
        that holds items without their key (:data:`NO_KEY`).

        The items of a key met once on each side are matched as :meth:`_keyed` matches them. Those of
        a key that repeats are matched first to an item equal to them as written (member order aside),
        so a reorder is no change, then the rest in order of occurrence: the n-th left of them with
        the n-th right; what is left over on a side was removed or added. Their selectors carry the
        occurrence (``name=A#2``): a removed item's on the left, an added one's on the right, a
        changed one's on the side where it comes first, so that comparing the other way round names
        it alike (the rest are paired in order, so no two changed items of a key share it, nor one
        that is removed or added).

        Items without their key are matched by content alone: first each to an item equal to it as
        written, then, when one keyless item is left on each side, the two (no other candidate: one
        item edited); when more are left, nothing says which is which, and they were removed and
        added. Their selector names the key as null (``name=null``; a composite key's parts each item
        has, ``key=null,effect=NoExecute``, those both sides share for an edited pair) and their
        occurrence among the keyless items when there are several; a removed or added one says its
        side (``name=null#left-2``, ``name=null#right-1``), since both sides may have them left over,
        each counted from 1 (:func:`mirrored` swaps it)."""
        (left_items, left_keys), (right_items, right_keys) = left, right
        left_seen, right_seen = _occurrences(left_keys), _occurrences(right_keys)
        repeats = {key for key, count in (*left_seen[1].items(), *right_seen[1].items()) if count > 1}
        names = _key_names(place.list_key)

        def selector(key: Any, occurrence: int | str, *items: Any) -> Selector:
            if key is NO_KEY:
                found = _keyless_selector(names, [_parts(item, place.list_key) for item in items])
            else:
                found = _selector(names, key)
            return (*found, (OCCURRENCE, occurrence)) if key in repeats else found

        def side(key: Any, name: str, occurrence: int) -> int | str:
            return f"{name}-{occurrence}" if key is NO_KEY else occurrence

        right_of: dict[Any, list[int]] = {}
        for index, key in enumerate(right_keys):
            right_of.setdefault(key, []).append(index)
        left_of: dict[Any, list[int]] = {}
        for index, key in enumerate(left_keys):
            left_of.setdefault(key, []).append(index)
        for key, of_key in left_of.items():
            pairs, lefts, rights = _equal_first(of_key, right_of.pop(key, []), left_items, right_items)
            if key is not NO_KEY or len(lefts) == len(rights) == 1:  # (keyless: never a guess)
                pairs += zip(lefts, rights, strict=False)
                lefts, rights = lefts[len(rights) :], rights[len(lefts) :]
            for i, j in pairs:
                if not _equal(left_items[i], right_items[j]):
                    occurrence = min(left_seen[0][i], right_seen[0][j])
                    item = at.item(selector(key, occurrence, left_items[i], right_items[j]), i, j)
                    self._unequal(left_items[i], right_items[j], item_plan, item)
            for i in lefts:
                item = at.item(selector(key, side(key, "left", left_seen[0][i]), left_items[i]), i, i)
                self._emit("removed", item, left_items[i], None, item_plan)
            right_of[key] = rights
        for key, rights in right_of.items():
            for j in rights:
                item = at.item(selector(key, side(key, "right", right_seen[0][j]), right_items[j]), j, j)
                self._emit("added", item, None, right_items[j], item_plan)

    def _sets(self, left: list[Any], right: list[Any], item_plan: Plan, at: At) -> None:
        exact = self.options.exact
        left_seen = {_canonical(v, exact): i for i, v in reversed(list(enumerate(left)))}
        right_seen = {_canonical(v, exact): i for i, v in reversed(list(enumerate(right)))}
        for key, index in left_seen.items():
            if key not in right_seen:
                member = self._member(left[index], item_plan, at.item(0, index, index, (left,)))
                self._emit("removed", member, left[index], None, item_plan)
        for key, index in right_seen.items():
            if key not in left_seen:
                member = self._member(right[index], item_plan, at.item(0, index, index, (right,)))
                self._emit("added", member, None, right[index], item_plan)

    def _member(self, value: Any, item_plan: Plan, item: At) -> At:
        """The place of a set member, whose identity is its value: masked whole, as the value is,
        where the place holds a credential (the list's place, or the member's own: the token after
        ``--token`` in a list of arguments, judged in its list as a positional item is)."""
        if not self.options.show_secrets and (item_plan.place.secret or item.holds_secret()):
            value = mask_all(value)
        item.selector = (("", value),)
        return item

    def _same(self, left: Any, right: Any, place: Place) -> bool:
        if self.options.exact:
            return _equal(left, right)
        if _is_number(left) and _is_number(right):
            return left == right
        if place.quantity and isinstance(left, str) and isinstance(right, str) and left != right:
            a, b = parse_quantity(left), parse_quantity(right)
            return a is not None and a == b
        return type(left) is type(right) and left == right


def _equal(left: Any, right: Any) -> bool:
    """Equal to the letter: ``==`` and the same types all the way down, and ``0.0`` is not ``-0.0``
    (every reader of a double keeps the sign; ``marshal`` tells them apart inside a container)."""
    return (
        type(left) is type(right)
        and left == right
        and (
            _identical(left, right)
            if isinstance(left, dict | list)
            else type(left) is not float or left != 0.0 or copysign(1.0, left) == copysign(1.0, right)
        )
    )


def _identical(left: Any, right: Any) -> bool:
    """Equal to the letter (``==`` says ``True == 1`` and ``1 == 1.0``; marshal tells them apart).

    Used where ``left == right``; a false ``False`` (marshal also tells an interned string from
    another, and a shared object from a copy) only costs walking two equal values.
    """
    try:
        return marshal.dumps(left) == marshal.dumps(right)
    except (ValueError, RecursionError):
        return False


def _same_items(
    left_items: list[Any], left_keys: list[Any], right_items: list[Any], right_index: dict[Any, int]
) -> bool:
    """True when two keyed lists hold the same keys, each item equal to the letter to its match: one
    comparison of the whole lists in the left's order (a reordered list of equal items, most often)."""
    if len(left_keys) != len(right_index) or not all(map(right_index.__contains__, left_keys)):
        return False
    matched = list(map(right_items.__getitem__, map(right_index.__getitem__, left_keys)))
    return _equal(list(left_items), matched)  # both copies: marshal sees the same sharing on each side


def _occurrences(keys: list[Any]) -> tuple[list[int], Counter[Any]]:
    """Which occurrence of its key each item is (1 for the first), and how often each key occurs."""
    seen: Counter[Any] = Counter()
    numbers = []
    for key in keys:
        seen[key] += 1
        numbers.append(seen[key])
    return numbers, seen


def _equal_first(
    lefts: list[int], rights: list[int], left_items: list[Any], right_items: list[Any]
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """The items of one key (their indices on each side) paired with an item equal to them as written
    (member order aside), each taken once in order; and the left and right items no equal one took."""
    if len(lefts) == 1 and len(rights) == 1:
        return [(lefts[0], rights[0])], [], []
    waiting: dict[str, list[int]] = {}
    for j in reversed(rights):
        waiting.setdefault(_canonical(right_items[j], exact=True), []).append(j)
    pairs, rest = [], []
    for i in lefts:
        queue = waiting.get(_canonical(left_items[i], exact=True))
        if queue:
            pairs.append((i, queue.pop()))
        else:
            rest.append(i)
    taken = {j for _, j in pairs}
    return pairs, rest, [j for j in rights if j not in taken]


def _canonical(value: Any, exact: bool) -> str:
    """A set member's identity: ``1`` and ``1.0`` are one member unless ``exact`` (a whole float is
    read as its integer, never an integer as a float: ``10**30`` and ``10**30 + 1`` stay two; so are
    ``0.0`` and ``-0.0``, which ``exact`` keeps apart as ``json.dumps`` writes them)."""
    if not exact and isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True)


def _key_names(list_key: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(name.lstrip("/").replace("/", ".") for name in list_key)


def _selector(names: tuple[str, ...], key: Any) -> tuple[tuple[str, Any], ...]:
    if len(names) == 1:
        return ((names[0], _as_read(key)),)
    return tuple(zip(names, map(_as_read, key), strict=True))


class _Flag:
    """A key that is ``true`` or ``false``: Python's ``True == 1`` would make it the key ``1``, and
    JSON's ``true`` is no number, so two items keyed ``true`` and ``1`` are two items."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Flag) and other.value is self.value

    def __hash__(self) -> int:
        return hash((_Flag, self.value))

    def __repr__(self) -> str:
        return "true" if self.value else "false"


class _Typed:
    """A key that is a float, under ``--exact``: Python's ``1 == 1.0`` (and ``0.0 == -0.0``) would make
    it the key of an item keyed ``1`` (``0.0``); ``--exact`` compares values as typed and signed, so an
    item keyed ``1`` and one keyed ``1.0`` are two items, as their keys are two values."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Typed) and _equal(other.value, self.value)

    def __hash__(self) -> int:
        return hash((_Typed, self.value, copysign(1.0, self.value)))

    def __repr__(self) -> str:
        return repr(self.value)


def _as_read(part: Any) -> Any:
    """A key's part as the document holds it (a :class:`_Flag` or :class:`_Typed` unwrapped)."""
    return part.value if isinstance(part, _Flag | _Typed) else part


def _typed(keys: list[Any]) -> list[Any]:
    """``keys`` with each float (a key, or a part of a composite one) a :class:`_Typed`; ``keys``
    itself when none is (one pass over their types)."""
    return _wrapped(keys, float, _Typed)


def _flagged(keys: list[Any]) -> list[Any]:
    """``keys`` with each ``true`` and ``false`` (a key, or a part of a composite one) a :class:`_Flag`;
    ``keys`` itself when none is (one pass over their types)."""
    return _wrapped(keys, bool, _Flag)


def _wrapped(keys: list[Any], kind: type, wrap: Callable[[Any], Any]) -> list[Any]:
    """``keys`` with each one of exactly type ``kind`` (a key, or a part of a composite one) wrapped."""
    kinds = set(map(type, keys))
    if kind not in kinds and tuple not in kinds:
        return keys
    if tuple in kinds and not any(type(part) is kind for key in keys if type(key) is tuple for part in key):
        return keys
    return [
        wrap(key)
        if type(key) is kind
        else tuple(wrap(part) if type(part) is kind else part for part in key)
        if type(key) is tuple
        else key
        for key in keys
    ]


class _NoKey:
    """The identity of a keyed list's item that has no key (:data:`NO_KEY`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_KEY"


#: What :func:`_keys` gives an item without its key (the key's member missing or null, or holding an
#: object or an array; an item that is no object): equal to no key, matched by content.
NO_KEY = _NoKey()


def _parts(item: Any, list_key: tuple[str, ...]) -> tuple[Any, ...]:
    """Each part of an item's key as a selector shows it: its value, None where it has none."""
    parts = []
    for name in list_key:
        try:
            value = (
                (resolve(item, name) if name.startswith("/") else item[name])
                if isinstance(item, dict)
                else None
            )
        except (KeyError, IndexError, TypeError, ValueError):
            value = None
        parts.append(None if isinstance(value, dict | list) else value)
    return tuple(parts)


def _keyless_selector(names: tuple[str, ...], parts: list[tuple[Any, ...]]) -> tuple[tuple[str, Any], ...]:
    """The selector of a keyless item (``parts``: its key's parts, or an edited pair's two): each part
    both sides share, null where they differ."""
    first = parts[0]
    shared = tuple(
        value if all(type(p[n]) is type(value) and p[n] == value for p in parts) else None
        for n, value in enumerate(first)
    )
    return tuple(zip(names, shared, strict=True))


def _key_of(item: Any, list_key: tuple[str, ...]) -> tuple[Any, ...] | None:
    if not isinstance(item, dict):
        return None
    values = []
    for name in list_key:
        try:
            value = resolve(item, name) if name.startswith("/") else item[name]
        except KeyError:
            return None
        if value is None or isinstance(value, dict | list):
            return None
        values.append(value)
    return tuple(values)


def _keys(items: list[Any], list_key: tuple[str, ...], exact: bool = False) -> list[Any]:
    """The identity of every item (the key's value when the list key is one name, a tuple of them
    otherwise; two items may share one), :data:`NO_KEY` for an item that has none; with ``exact``, a
    float key is not the equal integer (:class:`_Typed`)."""
    keys = _plain_keys(items, list_key[0]) if len(list_key) == 1 else None
    if keys is None:
        found = [_key_of(item, list_key) for item in items]
        single = len(list_key) == 1
        keys = [NO_KEY if key is None else key[0] if single else key for key in found]
    return _typed(_flagged(keys)) if exact else _flagged(keys)


#: The types a list key's value is read as it is (anything else takes :func:`_key_of`).
_KEY_TYPES = frozenset({str, int, float, bool})


def _plain_keys(items: list[Any], name: str) -> list[Any] | None:
    """The value of the one list key ``name`` of every item, read in C where the items are plain
    objects holding it as a scalar; None to leave the items to :func:`_key_of`."""
    values: list[Any] = items
    try:
        for getter in _getters(name):
            if set(map(type, values)) != {dict}:  # (the empty list, too)
                return None
            values = list(map(getter, values))
    except KeyError:
        return None
    return values if set(map(type, values)) <= _KEY_TYPES else None


@cache
def _getters(name: str) -> tuple[itemgetter[Any], ...]:
    """One ``itemgetter`` per token of a list key (a member name, or a pointer through objects)."""
    return tuple(map(itemgetter, to_path(name) if name.startswith("/") else [name]))


def _parse_both(left: str, right: str) -> tuple[Any, Any] | None:
    """Both embedded documents parsed, or None when either is not JSON (then compared as text)."""
    parsed = parse_text(left), parse_text(right)
    return (parsed[0].value, parsed[1].value) if parsed[0].ok and parsed[1].ok else None
