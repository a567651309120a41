"""The one walk of secret places: where a payload holds credentials, by the schema's marks and by the
policy's place rules, for every job that shows or writes a payload.

A place is secret when a place above it is; else when its schema says so (``x-jobschema-secret``
true or false, read through a :class:`Cursor` over the schema's annotated places); else when the
policy's place rules say so (:func:`~jobschema.secrets.places.is_secret_place`). One decision
(:func:`secret_member`) and three ways to walk with it:

- :func:`walk`: every node of a payload, parents first, each with whether it is secret (redact);
- :func:`secret_along`: whether the value at one path is, reading only the values on the way (the
  checker, before it shows a value in a message);
- :func:`masked_copy`: a copy with every secret masked and every other string scrubbed (diff's
  values, validate's and coverage's values, :func:`jobschema.secrets.masked`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol

from jobschema.pointer import escape
from jobschema.secrets.mask import is_unmasked, mask
from jobschema.secrets.places import is_secret_place
from jobschema.secrets.reading import scrub

Keys = tuple[str | int | None, ...]


class Cursor(Protocol):
    """A place of a schema's annotations: its secret mark (``None``: the schema says nothing), the
    schema of the document embedded here (``None``: none), and the place below a key or index."""

    @property
    def secret_mark(self) -> bool | None: ...

    @property
    def embedded(self) -> str | None: ...

    def child(self, token: str | int) -> Cursor: ...


class _Unmarked:
    """No schema: nothing marked anywhere."""

    secret_mark: bool | None = None
    embedded: str | None = None

    def child(self, token: str | int) -> Cursor:
        return self


UNMARKED: Cursor = _Unmarked()


def secret_member(cursor: Cursor, keys: Keys, parent: Any) -> bool:
    """True when the member ``keys[-1]`` of ``parent`` (at ``cursor``) holds a credential: the schema's
    mark decides where it has one, the policy's place rules elsewhere."""
    mark = cursor.secret_mark
    return mark if mark is not None else is_secret_place(keys, parent)


class Node(NamedTuple):
    """A node of a payload on the walk: its pointer, its last keys (nearest last), its value and the
    container holding it, whether it is secret, and the schema's place there."""

    pointer: str
    keys: Keys
    value: Any
    parent: Any
    secret: bool
    cursor: Cursor


def walk(value: Any, cursor: Cursor = UNMARKED) -> Iterator[Node]:
    """Every node of ``value`` in document order, parents first (a loop: no recursion limit)."""
    stack = [Node("", (), value, None, cursor.secret_mark is True, cursor)]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node.value, dict):
            items: Any = node.value.items()
        elif isinstance(node.value, list):
            items = enumerate(node.value)
        else:
            continue
        children = []
        for key, item in items:
            below = node.cursor.child(key)
            keys = (*node.keys[-2:], key)
            secret = node.secret or secret_member(below, keys, node.value)
            children.append(Node(f"{node.pointer}/{escape(key)}", keys, item, node.value, secret, below))
        stack.extend(reversed(children))


def secret_along(value: Any, tokens: tuple[str | int, ...], cursor: Cursor = UNMARKED) -> bool:
    """True when the value at ``tokens`` of ``value`` (or a place above it) holds a credential."""
    node: Any = value
    keys: Keys = ()
    for token in tokens:
        place = int(token) if isinstance(node, list) and str(token).isdigit() else token
        cursor = cursor.child(place)
        if secret_member(cursor, (*keys[-2:], place), node):
            return True
        try:
            node = node[place]
        except (KeyError, IndexError, TypeError):
            return False
        keys = (*keys[-2:], place)
    return False


def mask_all(value: Any) -> Any:
    """``value`` with every string and number in it masked (a secret place that holds a structure)."""
    if isinstance(value, dict):
        return {key: mask_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [mask_all(item) for item in value]
    return mask(value) if is_unmasked(value) else value


#: How an embedded document's text is shown: ``(text, schema) -> text`` with its secrets masked.
Embedded = Callable[[str, str], str]


def masked_copy(
    value: Any, cursor: Cursor = UNMARKED, keys: Keys = (), embedded: Embedded | None = None
) -> Any:
    """A copy of ``value`` (found at ``cursor``, with the object ``keys`` above it, nearest last) with
    every secret place masked whole and every other string scrubbed of secrets; keys are scrubbed
    too. An embedded document (where ``cursor`` names one) is shown by ``embedded``. Values nested
    too deeply to walk are shown as one mask."""
    try:
        return _masked(value, cursor, tuple(keys[-2:]), embedded)
    except RecursionError:
        return mask(repr(type(value)))


def _masked(value: Any, cursor: Cursor, keys: Keys, embedded: Embedded | None) -> Any:
    if cursor.secret_mark is True:
        return mask_all(value)
    if isinstance(value, str):
        target = cursor.embedded
        return embedded(value, target) if embedded is not None and target is not None else scrub(value)
    if isinstance(value, list):
        out = []
        for index, item in enumerate(value):
            below, item_keys = cursor.child(index), (*keys[-1:], index)
            secret = secret_member(below, item_keys, value)
            out.append(mask_all(item) if secret else _masked(item, below, item_keys, embedded))
        return out
    if not isinstance(value, dict):
        return value
    result = {}
    for key, item in value.items():
        below, item_keys = cursor.child(key), (*keys[-2:], key)
        secret = isinstance(key, str) and secret_member(below, item_keys, value)
        shown = scrub(key) if isinstance(key, str) else key
        result[shown] = mask_all(item) if secret else _masked(item, below, item_keys, embedded)
    return result
