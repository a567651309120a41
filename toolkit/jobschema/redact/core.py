"""Mask credentials in captures before they are committed: parsed payloads, JSON, NDJSON and HAR text.

A secret is masked with :func:`jobschema.secrets.policy.mask` (``<secret:xxxxxxxx>``: deterministic,
idempotent; ``""`` stays ``""``). The places that hold secrets are the ones ``jobschema validate``
never prints:

- fields the payload's schema marks ``"x-jobschema-secret": true`` (raw-request
  ``imagePullSecretUsername``/``imagePullSecretPassword``, ``codeSource.bosTemporaryToken``); these keys
  wherever they appear, and the registry login of the create request (``imageConfig.username``/``password``);
- values under credential-like names (:func:`jobschema.secrets.policy.is_secret_name`): in ``env``/``envs``/
  ``environment``/``headers`` maps, and the ``value`` beside such a ``name`` (AIHC ``envs``, Run:ai
  ``environmentVariables``, HAR headers, ``queryString`` and ``postData.params``);
- HAR cookie values, credential-like URL query values and ``user:password@`` passwords, form bodies;
- inside embedded JSON text: the AIHC ``aijob.cce.baidubce.com/raw-request`` annotation and HAR
  request/response bodies (base64 bodies are decoded, redacted and encoded again).

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
import json
from collections.abc import Callable, Iterator
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
from jobschema.secrets.policy import is_secret_place, is_unmasked, mask, mask_query, mask_url

Kind = Literal["json", "ndjson", "har"]
#: Redacts the value found at a place: ``(new value, pointers of the secrets masked, relative)``.
Handler = Callable[[Any], tuple[Any, list[str]]]

_BOM = "\ufeff"
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


def redact_payload(value: Any, schema: str | None = None) -> tuple[Any, list[str]]:
    """A redacted copy of ``value`` and the pointers of the secrets masked; ``value`` is not changed.

    ``schema`` (a bundled name or a schema file) adds the fields it marks secret; detected when None.
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
    text, problem = decode(data)
    if problem is not None:
        if kind == "ndjson" and not data.strip():
            return Redacted(data.decode("utf-8", errors="replace"))
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
    new, found = _rewrite(text, value, None)
    return Redacted(new, tuple(Secret(pointer) for pointer in found))


def _redact_lines(text: str) -> Redacted:
    lines = text.split("\n")
    secrets: list[Secret] = []
    problems: list[Unreadable] = []
    for index, line in enumerate(lines):
        body = line.removesuffix("\r")
        if not body.strip():
            continue
        try:
            new, found = _document(body, None)
        except _NotJson as err:
            problems.append(Unreadable(err.problem.message, index + 1, err.problem.column))
            continue
        lines[index] = new + line[len(body) :]
        secrets += [Secret(pointer, index + 1) for pointer in found]
    return Redacted("\n".join(lines), tuple(secrets), tuple(problems))


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
    """Every place that may hold a secret, in document order, with how to redact it."""
    entries = _har_entries(value)
    known = _har_places(entries) if entries is not None else _schema_places(value, schema)
    for node in _walk(value):
        handler = known.get(node.pointer) or _rule(node)
        if handler is not None:
            yield node.pointer, node.value, handler


def _walk(value: Any) -> Iterator[_Node]:
    """Every node of ``value`` in document order, parents first (a loop: no recursion limit)."""
    stack = [_Node("", (), value, None)]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node.value, dict):
            items: Any = node.value.items()
        elif isinstance(node.value, list):
            items = enumerate(node.value)
        else:
            continue
        children = [
            _Node(f"{node.pointer}/{escape(key)}", (*node.keys[-2:], key), item, node.value)
            for key, item in items
        ]
        stack.extend(reversed(children))


def _rule(node: _Node) -> Handler | None:
    if node.keys and node.keys[-1] == RAW_REQUEST and isinstance(node.value, str):
        return _embedded("aihc-raw-request")
    return _mask_leaf if is_secret_place(node.keys, node.parent) else None


def _schema_places(value: Any, schema: str | None) -> dict[str, Handler]:
    """The places the schema marks secret or embedded (``x-jobschema-secret``/``-embedded-schema``)."""
    name = schema or _detected(value)
    if name is None:
        return {}
    places: dict[str, Handler] = {}
    for pointer, _, node in matches(_trie(name), value):
        target = node.get("x-jobschema-embedded-schema")
        if node.get("x-jobschema-secret") is True:
            places.setdefault(pointer, _mask_leaf)
        elif isinstance(target, str):
            places.setdefault(pointer, _embedded(target))
    return places


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
    """Per HAR entry: the URL, the request body and the response body (schema from the route)."""
    places: dict[str, Handler] = {}
    for index, entry in enumerate(entries):
        request, response = _member(entry, "request"), _member(entry, "response")
        base = f"/log/entries/{index}"
        places[f"{base}/request/url"] = _url_place
        mime = _member(request, "postData").get("mimeType")
        form = isinstance(mime, str) and "x-www-form-urlencoded" in mime
        places[f"{base}/request/postData/text"] = _query_place if form else _embedded(None)
        status = response.get("status")
        schema = route(str(request.get("url", "")), status if isinstance(status, int) else 0)
        body = _embedded(schema)
        encoded = _member(response, "content").get("encoding") == "base64"
        places[f"{base}/response/content/text"] = _base64(body) if encoded else body
    return places


def _member(value: Any, key: str) -> dict[str, Any]:
    item = value.get(key) if isinstance(value, dict) else None
    return item if isinstance(item, dict) else {}


# --- how each place is redacted ----------------------------------------------------------------


def _mask_leaf(value: Any) -> tuple[Any, list[str]]:
    return (mask(value), [""]) if is_unmasked(value) else (value, [])


def _url_place(value: Any) -> tuple[Any, list[str]]:
    new = mask_url(value) if isinstance(value, str) else value
    return (new, [""]) if new != value else (value, [])


def _query_place(value: Any) -> tuple[Any, list[str]]:
    new = mask_query(value) if isinstance(value, str) else value
    return (new, [""]) if new != value else (value, [])


@cache
def _embedded(schema: str | None) -> Handler:
    """Redacts JSON text held in a string (left alone when it is not JSON)."""

    def run(text: Any) -> tuple[Any, list[str]]:
        if not isinstance(text, str):
            return text, []
        try:
            return _document(text, schema)
        except _NotJson:
            return text, []

    return run


def _base64(inner: Handler) -> Handler:
    """Decodes a base64 body, redacts it with ``inner``, and encodes it again when it changed."""

    def run(text: Any) -> tuple[Any, list[str]]:
        if not isinstance(text, str):
            return text, []
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return text, []
        body, problem = decode(raw)
        new, found = inner(body) if problem is None else (body, [])
        if not found:
            return text, []
        return base64.b64encode(new.encode("utf-8")).decode("ascii"), found

    return run
