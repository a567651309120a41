"""Mask credentials in captures before they are committed: parsed payloads, JSON, NDJSON and HAR text.

A secret is masked with :func:`jobschema.secrets.mask` (``<secret:xxxxxxxx>``: a keyed hash, the same
within a run; idempotent; ``""`` stays ``""``). What is a secret is the secret policy's
(:mod:`jobschema.secrets`), as for every output of jobschema:

- places: fields the payload's schema marks ``"x-jobschema-secret": true`` (and everything below them;
  ``false`` keeps a credential-like name in the clear), members named like a credential holding a
  scalar, the ``value`` beside a credential-like ``name`` or ``key``, cookies, registry logins;
- shapes, in every other string: only the secret part is masked (``postgres://app:<secret:…>@db``);
- HAR files, whatever the endpoint: URLs, form bodies, JSON request and response bodies (base64 ones
  decoded, redacted and encoded again), other bodies (HTML, JavaScript) scrubbed by shape;
- inside embedded JSON text: the AIHC ``aijob.cce.baidubce.com/raw-request`` annotation, redacted as a
  document of its own, or masked whole when it does not parse (where its secrets are cannot be told).

Object keys are never rewritten: a key holding a secret shape is an error of the input
(:class:`SecretKeyError`), named by its object's pointer.

Pointers continue into embedded text, as validate's findings do:
``…/annotations/aijob.cce.baidubce.com~1raw-request/imagePullSecretPassword``,
``/log/entries/2/response/content/text/result/envs/5/value``.

Text is edited in place: only the masked values (and the embedded texts holding them) change, every
other byte is kept. When that cannot be done safely (duplicate keys), the redacted value is written
again in the input's style (indentation, separators, ASCII escapes, line ends, surrounding space).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, NamedTuple

from jobschema.apis.aihc import RAW_REQUEST_ANNOTATION as RAW_REQUEST
from jobschema.inputs.har import route
from jobschema.inputs.parse import decode, parse_text
from jobschema.pointer import escape
from jobschema.redact import jsonedit
from jobschema.schemas import registry
from jobschema.schemas.annotated import Trie, compile_pruned, matches
from jobschema.schemas.detect import detect
from jobschema.secrets.policy import is_secret_place, is_unmasked, mask, mask_query, mask_url, scrub
from jobschema.secrets.reading import may_hold_secret

Kind = Literal["json", "ndjson", "har"]
#: Redacts the value found at a place: ``(new value, pointers of the secrets masked, relative)``.
Handler = Callable[[Any], tuple[Any, list[str]]]

_BOM = "\ufeff"
_BOM_BYTES = _BOM.encode("utf-8")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Secret:
    """A place that holds (or held) a secret in the clear: its JSON Pointer, and its NDJSON line."""

    pointer: str
    line: int | None = None

    def describe(self, source: str) -> str:
        """``FILE[:LINE]: POINTER: unmasked secret [redact]``; never the value."""
        where = f":{self.line}" if self.line is not None else ""
        return f"{source}{where}: {self.pointer or '(root)'}: unmasked secret [redact]"


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


@dataclass(frozen=True)
class Redacted:
    """The redacted text, where secrets were masked, and what could not be read.

    With problems, ``text`` is not fit to be written: unreadable parts are left as they were.
    """

    text: str
    secrets: tuple[Secret, ...] = ()
    problems: tuple[Unreadable, ...] = ()

    @property
    def changed(self) -> bool:
        """True when a secret was masked (so ``text`` differs from the input)."""
        return bool(self.secrets)


class _NotJson(Exception):
    def __init__(self, problem: Unreadable) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class _Change:
    pointer: str
    old: Any
    new: Any
    found: tuple[str, ...]


class _Node(NamedTuple):
    pointer: str
    keys: tuple[str | int, ...]  # the last three keys of the path, nearest last
    value: Any
    parent: Any
    secret: bool  # this place, or one above it, holds a credential


class SecretKeyError(ValueError):
    """An object key holds a secret shape: keys are never rewritten, so the value cannot be redacted
    (rename the key by hand). ``pointer`` is the object's (the key's own would show the secret)."""

    def __init__(self, pointer: str) -> None:
        super().__init__(f"{pointer or '(root)'}: an object key holds a secret; rename it by hand")
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


def kind_of(name: str) -> Kind:
    """The kind of input a file name says: ``ndjson`` (``.ndjson``/``.jsonl``), ``har``, else ``json``."""
    suffix = Path(name).suffix.lower()
    if suffix in (".ndjson", ".jsonl"):
        return "ndjson"
    return "har" if suffix == ".har" else "json"


def redact_bytes(data: bytes, kind: Kind = "json") -> Redacted:
    """:func:`redact_text` of a file's bytes (UTF-8; a BOM is kept)."""
    if kind == "ndjson":
        return _collect(redact_ndjson(io.BytesIO(data)))
    text, problem = decode(data)
    if problem is not None:
        return Redacted("", problems=(Unreadable(problem),))
    result = redact_text(text, kind)
    if not data.startswith(_BOM.encode("utf-8")):
        return result
    return Redacted(_BOM + result.text, result.secrets, result.problems)


def redact_text(text: str, kind: Kind = "json") -> Redacted:
    """Redact a JSON document (a HAR is recognised by its ``log.entries``), NDJSON lines, or a HAR."""
    try:
        if kind == "ndjson":
            return _redact_lines(text)
        return _redact_whole(text, kind)
    except RecursionError:
        return Redacted(text, problems=(Unreadable("nested too deeply to redact"),))


def _redact_whole(text: str, kind: Kind) -> Redacted:
    try:
        value = _parse(text)
    except _NotJson as err:
        return Redacted(text, problems=(err.problem,))
    if kind == "har" and _har_entries(value) is None:
        return Redacted(text, problems=(Unreadable("not a HAR file: no log.entries array"),))
    try:
        new, found = _rewrite(text, value, None)
    except SecretKeyError as err:
        return Redacted(text, problems=(Unreadable(str(err)),))
    return Redacted(new, tuple(Secret(pointer) for pointer in found))


def _redact_lines(text: str) -> Redacted:
    return _collect(redact_ndjson(io.BytesIO(text.encode("utf-8", "surrogatepass"))))


@dataclass(frozen=True)
class Line:
    """One NDJSON line redacted: its bytes (line end kept), the secrets masked, what could not be
    read (then ``data`` is the line as it was: not fit to be written)."""

    number: int
    data: bytes
    secrets: tuple[Secret, ...] = ()
    problem: Unreadable | None = None


def redact_ndjson(stream: Iterable[bytes]) -> Iterator[Line]:
    """Redact NDJSON one line at a time (a binary file, or any iterable of lines with their ends):
    memory stays that of the longest line, whatever the file's size. Blank lines are kept as they are;
    a line that is not UTF-8 or not JSON is a problem of that line only."""
    for number, raw in enumerate(stream, 1):
        yield _redact_line(number, raw)


def _redact_line(number: int, raw: bytes) -> Line:
    bom = _BOM_BYTES if number == 1 and raw.startswith(_BOM_BYTES) else b""
    line = raw[len(bom) :]
    body = line.removesuffix(b"\n").removesuffix(b"\r")
    if not body.strip():
        return Line(number, raw)
    outcome = _redact_body(number, body)
    if isinstance(outcome, Unreadable):
        return Line(number, raw, problem=outcome)
    new, found = outcome
    if not found:
        return Line(number, raw)
    data = bom + new.encode("utf-8", "surrogatepass") + line[len(body) :]
    return Line(number, data, tuple(Secret(pointer, number) for pointer in found))


def _redact_body(number: int, body: bytes) -> tuple[str, list[str]] | Unreadable:
    text, problem = _decode_line(body)
    if problem is not None:
        return Unreadable(problem, number)
    try:
        return _document(text, None)
    except _NotJson as err:
        return Unreadable(err.problem.message, number, err.problem.column)
    except SecretKeyError as err:
        return Unreadable(str(err), number)
    except RecursionError:
        return Unreadable("nested too deeply to redact", number)


def _decode_line(body: bytes) -> tuple[str, str | None]:
    if b"\x00" in body:
        return "", "line is binary (it contains NUL bytes), not JSON text"
    try:
        return body.decode("utf-8"), None
    except UnicodeDecodeError as err:
        return "", f"line is not UTF-8: invalid byte 0x{body[err.start]:02x} at column {err.start + 1}"


def _collect(lines: Iterable[Line]) -> Redacted:
    """The lines of :func:`redact_ndjson` joined into one :class:`Redacted` (for texts that fit in memory)."""
    parts: list[str] = []
    secrets: list[Secret] = []
    problems: list[Unreadable] = []
    for line in lines:
        parts.append(line.data.decode("utf-8", "surrogatepass" if line.problem is None else "replace"))
        secrets += line.secrets
        if line.problem is not None:
            problems.append(line.problem)
    return Redacted("".join(parts), tuple(secrets), tuple(problems))


def _parse(text: str) -> Any:
    parsed = parse_text(text)
    if parsed.error is not None:
        raise _NotJson(Unreadable(parsed.error.message, parsed.error.line, parsed.error.column))
    return parsed.value


def _document(text: str, schema: str | None) -> tuple[str, list[str]]:
    """Redact the JSON text of one document; raises :class:`_NotJson`."""
    return _rewrite(text, _parse(text), schema)


def _rewrite(text: str, value: Any, schema: str | None) -> tuple[str, list[str]]:
    changes = _changes(value, schema)
    if not changes:
        return text, []
    redacted = jsonedit.apply(value, changes)
    new = jsonedit.splice(text, changes, redacted)
    found = [pointer for change in changes for pointer in change.found]
    return (new if new is not None else jsonedit.dump_like(redacted, text)), found


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
    body), else scrubbed of secret shapes."""
    entries = _har_entries(value)
    declared: dict[str, bool] = {}
    if entries is not None:
        handlers = _har_places(entries)
    else:
        declared, handlers = _schema_places(value, schema)
    for node in _walk(value, declared):
        if isinstance(node.value, dict | list):
            _check_keys(node)
            continue
        if node.secret:
            if is_unmasked(node.value):
                yield node.pointer, node.value, _mask_leaf
            continue
        handler = handlers.get(node.pointer) or _rule(node)
        if handler is not None:
            yield node.pointer, node.value, handler
        elif isinstance(node.value, str) and may_hold_secret(node.value):
            yield node.pointer, node.value, _scrub_leaf


def _check_keys(node: _Node) -> None:
    if isinstance(node.value, dict):
        for key in node.value:
            if may_hold_secret(key):
                raise SecretKeyError(node.pointer)  # the object's pointer: the key itself is the secret


def _walk(value: Any, declared: dict[str, bool]) -> Iterator[_Node]:
    """Every node of ``value`` in document order, parents first (a loop: no recursion limit).

    A node is secret when a place above it is, when the schema declares it (``declared``: pointer ->
    ``x-jobschema-secret``), or else when the policy's place rules say so.
    """
    stack = [_Node("", (), value, None, declared.get("") is True)]
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
            pointer, keys = f"{node.pointer}/{escape(key)}", (*node.keys[-2:], key)
            secret = node.secret or _secret_member(pointer, keys, node.value, declared)
            children.append(_Node(pointer, keys, item, node.value, secret))
        stack.extend(reversed(children))


def _secret_member(pointer: str, keys: tuple[str | int, ...], parent: Any, declared: dict[str, bool]) -> bool:
    marked = declared.get(pointer)
    if marked is not None:
        return marked
    return is_secret_place(keys, parent)


def _rule(node: _Node) -> Handler | None:
    if node.keys and node.keys[-1] == RAW_REQUEST and isinstance(node.value, str):
        return _embedded("aihc-raw-request")
    return None


def _schema_places(value: Any, schema: str | None) -> tuple[dict[str, bool], dict[str, Handler]]:
    """What the schema says: places marked ``x-jobschema-secret`` (true or false) and embedded
    documents (``x-jobschema-embedded-schema``)."""
    declared: dict[str, bool] = {}
    handlers: dict[str, Handler] = {}
    name = schema or _detected(value)
    if name is not None:
        _mark(matches(_trie(name), value), "", declared, handlers)
    elif _is_schema_document(value):
        trie = compile_pruned(value)
        for index, example in enumerate(value["examples"]):
            _mark(matches(trie, example), f"/examples/{index}", declared, handlers)
    return declared, handlers


def _is_schema_document(value: Any) -> bool:
    """A JSON Schema with ``examples``: its examples are instances of it, marked by its own fields."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("$schema"), str)
        and isinstance(value.get("examples"), list)
    )


def _mark(
    found: Iterable[tuple[str, Any, dict[str, Any]]],
    base: str,
    declared: dict[str, bool],
    handlers: dict[str, Handler],
) -> None:
    for relative, _, node in found:
        pointer = base + relative
        target = node.get("x-jobschema-embedded-schema")
        mark = node.get("x-jobschema-secret")
        if isinstance(mark, bool):
            declared.setdefault(pointer, mark)
        if isinstance(target, str):
            handlers.setdefault(pointer, _embedded(target))


def _detected(value: Any) -> str | None:
    found = detect(value).schema
    return found if found in registry.BUNDLED else None


@cache
def _trie(name: str) -> Trie:
    return compile_pruned(registry.load(name).document)


def _har_entries(value: Any) -> list[Any] | None:
    log = value.get("log") if isinstance(value, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def _har_places(entries: list[Any]) -> dict[str, Handler]:
    """Per HAR entry, whatever the endpoint: the URL, the request body (JSON, form or text) and the
    response body (JSON, with the route's schema when jobschema knows it, or text; base64 decoded)."""
    places: dict[str, Handler] = {}
    for index, entry in enumerate(entries):
        request, response = _member(entry, "request"), _member(entry, "response")
        base = f"/log/entries/{index}"
        places[f"{base}/request/url"] = _url_place
        places[f"{base}/response/redirectURL"] = _url_place
        post = _member(request, "postData")
        mime = post.get("mimeType")
        form = isinstance(mime, str) and "x-www-form-urlencoded" in mime
        body = _query_place if form else _embedded(None, _scrub_leaf)
        places[f"{base}/request/postData/text"] = _base64(body) if post.get("encoding") == "base64" else body
        status = response.get("status")
        schema = route(str(request.get("url", "")), status if isinstance(status, int) else 0)
        answer = _embedded(schema, _scrub_leaf)
        encoded = _member(response, "content").get("encoding") == "base64"
        places[f"{base}/response/content/text"] = _base64(answer) if encoded else answer
    return places


def _member(value: Any, key: str) -> dict[str, Any]:
    item = value.get(key) if isinstance(value, dict) else None
    return item if isinstance(item, dict) else {}


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
            return _document(text, schema)
        except (_NotJson, SecretKeyError):
            return fallback(text)

    return run


def _base64(inner: Handler) -> Handler:
    """Decodes a base64 body, redacts it with ``inner``, and encodes it again when it changed.

    A body that is not base64 or not UTF-8 text once decoded is scrubbed as it stands.
    """

    def run(text: Any) -> tuple[Any, list[str]]:
        if not isinstance(text, str):
            return text, []
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return _scrub_leaf(text)
        body, problem = decode(raw)
        if problem is not None:
            return text, []
        new, found = inner(body)
        if not found:
            return text, []
        return base64.b64encode(new.encode("utf-8", "surrogatepass")).decode("ascii"), found

    return run
