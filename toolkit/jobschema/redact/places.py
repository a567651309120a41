"""Redacting one JSON document: the secret walk over it (:func:`jobschema.secrets.walk.walk`, read
through the document's schema), how each place is redacted, and the text edited where they stand.

A place is masked whole where the walk says it is secret; a URL, a form body, an embedded document
(the schema's ``x-jobschema-embedded-schema``, the AIHC raw-request annotation) or a base64 body by
its own handler; any other string is scrubbed of secrets. Object keys are never rewritten: a key
holding a secret is an error of the input (:class:`SecretKeyError`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from jobschema.apis.aihc import RAW_REQUEST_ANNOTATION as RAW_REQUEST
from jobschema.inputs import base64text
from jobschema.inputs.parse import Parsed, decode, parse_text
from jobschema.pointer import to_path
from jobschema.redact import jsonedit
from jobschema.redact.har import Spec, har_entries, har_places
from jobschema.redact.hidden import TooManyRepeats, hidden_places
from jobschema.schemas import registry
from jobschema.schemas.annotated import ANY
from jobschema.schemas.detect import detect
from jobschema.schemas.marks import bundled_marks, marks_for, under
from jobschema.secrets.policy import (
    is_unmasked,
    mask,
    mask_query,
    mask_url,
    scrub,
)
from jobschema.secrets.reading import may_hold_secret
from jobschema.secrets.walk import UNMARKED, Cursor, Node, walk

#: Redacts the value found at a place: ``(new value, pointers of the secrets masked, relative)``.
Handler = Callable[[Any], tuple[Any, list[str]]]


@dataclass(frozen=True)
class Unreadable:
    """Why an input (or an NDJSON line of it) could not be redacted."""

    message: str
    line: int | None = None
    column: int | None = None

    def describe(self, source: str) -> str:
        """``FILE[:LINE[:COLUMN]]: message``."""
        where = "".join(f":{n}" for n in (self.line, self.column) if n is not None)
        return f"{source}{where}: {self.message}"


class NotJson(Exception):
    def __init__(self, problem: Unreadable) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class _Change:
    pointer: str
    old: Any
    new: Any
    found: tuple[str, ...]


#: An object key holds a secret shape (keys are never rewritten).
KEY_HOLDS_SECRET = "an object key holds a secret; rename it by hand"


class SecretKeyError(ValueError):
    """An object key holds a secret shape: keys are never rewritten, so the value cannot be redacted
    (rename the key by hand). ``pointer`` is the object's (the key's own would show the secret)."""

    def __init__(
        self, pointer: str, problem: str = "an object key holds a secret; rename it by hand"
    ) -> None:
        super().__init__(f"{pointer or '(root)'}: {problem}")
        self.pointer = pointer


def redact_payload(value: Any, schema: str | None = None) -> tuple[Any, list[str]]:
    """A redacted copy of ``value`` and the pointers of the secrets masked; ``value`` is not changed.

    ``schema`` (a bundled name or a schema file) adds the fields it marks secret; detected when None.
    Raises :class:`SecretKeyError` when an object key holds a secret.
    """
    changes = _changes(value, schema)
    return jsonedit.apply(value, changes), [pointer for change in changes for pointer in change.found]


def unmasked_secrets(value: Any, schema: str | None = None) -> list[str]:
    """The pointers of the secrets still in the clear in ``value`` (``[]`` once redacted)."""
    return redact_payload(value, schema)[1]


def parse_document(text: str) -> Parsed:
    """The parsed document (its value, and the keys it repeats); raises :class:`NotJson`."""
    parsed = parse_text(text)
    if parsed.error is not None:
        raise NotJson(Unreadable(parsed.error.message, parsed.error.line, parsed.error.column))
    return parsed


def redact_document(text: str, schema: str | None) -> tuple[str, list[str]]:
    """Redact the JSON text of one document; raises :class:`NotJson`."""
    return rewrite(text, parse_document(text), schema)


def rewrite(text: str, parsed: Parsed, schema: str | None) -> tuple[str, list[str]]:
    """``text`` with its secrets masked where they stand, or written again in its style when they
    cannot be: a value a repeat of its key hides that holds a secret is then left out, as every
    reader of the document leaves it out. Raises :class:`SecretKeyError`."""
    changes = _changes(parsed.value, schema)
    hidden = _hidden_secrets(text, schema) if parsed.duplicates else []
    if not changes and not hidden:
        return text, []
    new = None if hidden else jsonedit.splice(text, changes, jsonedit.apply(parsed.value, changes))
    if new is None:  # (written again, its numbers as they are written)
        new = jsonedit.dump_like(jsonedit.apply(jsonedit.load_numbers(text), changes), text)
    found = [pointer for change in changes for pointer in change.found]
    found += [pointer for pointer in dict.fromkeys(hidden) if pointer not in set(found)]
    return new, found


def _hidden_secrets(text: str, schema: str | None) -> list[str]:
    """The pointers of the secrets in values a repeat of their key hides, read by the walk that reads
    the document (:mod:`jobschema.redact.hidden`)."""
    try:
        return [
            pointer
            for view, under_hidden in hidden_places(text)
            for change in _changes(view, schema)
            if under_hidden(tuple(to_path(change.pointer))) is not None
            for pointer in change.found
        ]
    except TooManyRepeats as err:
        raise SecretKeyError("", str(err)) from None


# --- where the secrets are ---------------------------------------------------------------------


def _changes(value: Any, schema: str | None) -> list[_Change]:
    changes = []
    for pointer, old, handler in _places(value, schema):
        new, found = handler(old)
        if found:
            changes.append(_Change(pointer, old, new, tuple(pointer + f for f in found)))
    return changes


def _places(value: Any, schema: str | None) -> Iterator[tuple[str, Any, Handler]]:
    """Every string or number that holds (or may hold) a secret, in document order, with how to
    redact it: masked whole at a secret place, by its handler (URL, form, embedded document, base64
    body), else scrubbed of secrets."""
    entries = har_entries(value)
    specs = har_places(entries) if entries is not None else {}
    cursor = _cursor(value, schema) if entries is None else UNMARKED
    for node in walk(value, cursor):
        if isinstance(node.value, dict | list):
            _check_keys(node)
            continue
        if node.secret:
            if is_unmasked(node.value):
                yield node.pointer, node.value, _mask_leaf
            continue
        handler = _handler(specs[node.pointer]) if node.pointer in specs else _declared(node)
        if handler is not None:
            yield node.pointer, node.value, handler
        elif isinstance(node.value, str) and may_hold_secret(node.value):
            yield node.pointer, node.value, _scrub_leaf


def _check_keys(node: Node) -> None:
    if isinstance(node.value, dict):
        for key in node.value:
            if may_hold_secret(key):
                raise SecretKeyError(node.pointer)  # the object's pointer: the key itself is the secret


def _declared(node: Node) -> Handler | None:
    """The handler of an embedded document: where the schema names one, and the AIHC raw-request
    annotation wherever it stands."""
    target = node.cursor.embedded
    if target is None and node.keys and node.keys[-1] == RAW_REQUEST:
        target = "aihc-raw-request"
    return _embedded(target) if target is not None and isinstance(node.value, str) else None


def _cursor(value: Any, schema: str | None) -> Cursor:
    """The schema's marks to read ``value`` through: the schema given or detected, or for a JSON
    Schema document with ``examples``, its own marks at each example."""
    name = schema or _detected(value)
    if name is not None:
        return bundled_marks(name) if name in registry.BUNDLED else marks_for(registry.load(name).document)
    if _is_schema_document(value):
        return under(("examples", ANY), marks_for(value))
    return _ambiguous(value) or UNMARKED


def _is_schema_document(value: Any) -> bool:
    """A JSON Schema with ``examples``: its examples are instances of it, marked by its own fields."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("$schema"), str)
        and isinstance(value.get("examples"), list)
    )


def _detected(value: Any) -> str | None:
    found = detect(value).schema
    return found if found in registry.BUNDLED else None


class _Either:
    """The marks of every schema an ambiguous payload fits, read at once: a place is secret when one
    of them marks it so, left to the policy when one says nothing, and only cleared when all clear
    it. Which schema the payload is cannot be told, and a secret is masked whichever it is."""

    __slots__ = ("cursors",)

    def __init__(self, cursors: tuple[Cursor, ...]) -> None:
        self.cursors = cursors

    @property
    def secret_mark(self) -> bool | None:
        marks = [cursor.secret_mark for cursor in self.cursors]
        return True if True in marks else None if None in marks else False

    @property
    def embedded(self) -> str | None:
        return next((cursor.embedded for cursor in self.cursors if cursor.embedded is not None), None)

    def child(self, token: str | int) -> Cursor:
        return _Either(tuple(cursor.child(token) for cursor in self.cursors))


def _ambiguous(value: Any) -> Cursor | None:
    """The marks of every bundled schema an ambiguous payload fits (None for any other payload)."""
    found = detect(value)
    names = [name for name in found.fits if name in registry.BUNDLED]
    return _Either(tuple(bundled_marks(name) for name in names)) if len(names) > 1 else None


def _handler(spec: Spec) -> Handler:
    """The handler a HAR place's spec (:mod:`.har`) asks for."""
    kind = spec[0]
    if kind == "url":
        return _url_place
    if kind == "query":
        return _query_place
    if kind == "base64":
        return _base64(_handler(spec[1]))
    return _embedded(spec[1], _scrub_leaf)


# --- how each place is redacted ----------------------------------------------------------------


def _mask_leaf(value: Any) -> tuple[Any, list[str]]:
    return (mask(value), [""]) if is_unmasked(value) else (value, [])


def _scrub_leaf(value: Any) -> tuple[Any, list[str]]:
    new = scrub(value) if isinstance(value, str) else value
    return (new, [""]) if new != value else (value, [])


def _url_place(value: Any) -> tuple[Any, list[str]]:
    new = mask_url(value) if isinstance(value, str) else value
    return (new, [""]) if new != value else (value, [])


def _query_place(value: Any) -> tuple[Any, list[str]]:
    new = scrub(mask_query(value)) if isinstance(value, str) else value
    return (new, [""]) if new != value else (value, [])


@cache
def _embedded(schema: str | None, fallback: Handler = _mask_leaf) -> Handler:
    """Redacts JSON text held in a string; text that does not parse as JSON is given to ``fallback``:
    masked whole (a declared embedded document: where its secrets are cannot be told), or scrubbed
    of secret shapes (a HAR body, which may be HTML or JavaScript)."""

    def run(text: Any) -> tuple[Any, list[str]]:
        if not isinstance(text, str):
            return text, []
        try:
            return redact_document(text, schema)
        except (NotJson, SecretKeyError):
            return fallback(text)

    return run


def _base64(inner: Handler) -> Handler:
    """Decodes a base64 body (:mod:`.base64text`: one line or wrapped, either alphabet, padded or
    not), redacts it with ``inner``, and encodes it again in the same style when it changed.

    A body that is not UTF-8 text once decoded is left as it is when it is base64 of the standard
    alphabet (an image), and scrubbed as it stands otherwise (``ghp_…`` in a body said to be base64
    is a token, not an image).
    """

    def run(text: Any) -> tuple[Any, list[str]]:
        if not isinstance(text, str):
            return text, []
        decoded = _base64_text(text)
        if decoded is None:
            return (text, []) if _plain_base64(text) else _scrub_leaf(text)
        body, style = decoded
        new, found = inner(body)
        if not found:
            return text, []
        return style.encode(new.encode("utf-8", "surrogatepass")), found

    return run


def _base64_text(text: str) -> tuple[str, base64text.Style] | None:
    """The UTF-8 text a base64 text encodes, and the base64's style; None when it encodes none."""
    decoded = base64text.decode(text)
    if decoded is None:
        return None
    body, problem = decode(decoded[0])
    return (body, decoded[1]) if problem is None else None


def _plain_base64(text: str) -> bool:
    """Base64 of the standard alphabet (the one HAR files write bodies in), wrapped or not."""
    decoded = base64text.decode(text)
    return decoded is not None and not decoded[1].url_safe
