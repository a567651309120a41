"""The HAR 1.2 recording: every request of the run, error answers and network failures included.

Each attempt becomes an entry (:func:`entry`): times, status, request and response headers and
bodies. It is built as data with the credentials of the token exchange masked (a token answer: every
string but :data:`~jobschema.record.guard.TOKEN_ANSWER_SHOWN`; a body that is not JSON is not written)
and every header value scrubbed, serialised, redacted by the secret policy as a HAR (``Authorization``,
``Cookie``, ``Set-Cookie``, URL query values, bodies by their route's schema) and guarded (its
text, each of its strings, a base64 body as its bytes, a JSON body as its decoded strings); only
then is it written. A body that passed ``--max-body`` is not recorded: its ``response.content`` has no
``text``, ``"_truncated": true`` and a ``comment`` saying how much was read; ``content.size`` is
the decoded bytes read before reading stopped and ``response.bodySize`` the bytes received.

The file is written as it goes and is a complete HAR after every entry: the entries array is the
last member, and each entry is written in one write over the closing brackets, bringing its own
(:mod:`jobschema.record.files`). Re-running with the same ``--har`` appends to a file this writer
made; another HAR file is rewritten once in this layout (redacted again; through a temporary file
of redacted content only, then renamed); a file that is not a HAR is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from jobschema import __version__
from jobschema.inputs.files import named
from jobschema.inputs.parse import decode, parse_bytes
from jobschema.outputs import write_file
from jobschema.record.files import OutputError, open_locked, read_all, truncate, write_record
from jobschema.record.guard import Guard, mask_answer, mask_members, mask_named
from jobschema.record.transport import Exchange
from jobschema.redact import redact_text
from jobschema.secrets import is_secret_name, mask, scrub

CREATOR = {"name": "jobschema record", "version": __version__}
TRAILER = b"\n]}}\n"
#: The token request's members shown in the clear; every other one is masked.
TOKEN_SHOWN = ("grantType",)


def head() -> bytes:
    """The start of the file, up to the opening of the entries array."""
    log = json.dumps({"version": "1.2", "creator": CREATOR}, separators=(",", ":"))
    return b'{"log":' + log[:-1].encode() + b',"entries":['


@dataclass
class HarWriter:
    """A HAR file open for writing, locked for this run; ``end`` is where its trailer starts."""

    path: Path
    fd: int
    end: int
    entries: int

    @classmethod
    def open(cls, path: Path, guard: Guard) -> HarWriter:
        """Open (or create) ``path``, ready to add entries after those it holds."""
        fd = open_locked(path, append=False)
        try:
            data = read_all(fd, path)
            if data.endswith(TRAILER) and data.startswith(head()):
                return cls(path, fd, len(data) - len(TRAILER), _count(data, path))
            writer = cls(path, fd, 0, 0)
            writer._start(_existing(data, path), guard)
            return writer
        except BaseException:
            os.close(fd)
            raise

    def _start(self, entries: list[Any], guard: Guard) -> None:
        """Write a fresh file in this layout holding ``entries`` (redacted), through a temporary file."""
        body = head() + b"".join(
            (b"\n" if i == 0 else b",\n") + _redacted(item, guard) for i, item in enumerate(entries)
        )
        if entries:  # a HAR of another layout: replace it whole, never leaving it half written
            try:
                write_file(self.path, body + TRAILER)
                os.close(self.fd)
                self.fd = open_locked(self.path, append=False)
            except OSError as err:
                raise OutputError(f"{named(self.path)}: cannot rewrite: {err.strerror or err}") from None
        else:
            truncate(self.fd, 0, self.path)
            write_record(self.fd, body + TRAILER, self.path, 0)
        self.end, self.entries = len(body), len(entries)

    def add(self, exchange: Exchange, guard: Guard) -> None:
        """Append the entry of ``exchange``; the file is a complete HAR before and after."""
        data = (b"\n" if self.entries == 0 else b",\n") + _redacted(entry(exchange), guard)
        write_record(self.fd, data + TRAILER, self.path, self.end, restore=TRAILER)
        self.end += len(data)
        self.entries += 1

    def close(self) -> None:
        """Close the file (every entry is already written)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _count(data: bytes, path: Path) -> int:
    entries = _entries(parse_bytes(data).value)
    if entries is None:
        raise OutputError(f"{named(path)}: not a HAR file (no log.entries array); choose another --har file")
    return len(entries)


def _existing(data: bytes, path: Path) -> list[Any]:
    """The entries of an existing file (none when it is empty); refuses a file that is not a HAR."""
    if not data.strip():
        return []
    parsed = parse_bytes(data)
    entries = _entries(parsed.value) if parsed.error is None else None
    if entries is None:
        problem = parsed.error.message if parsed.error else "no log.entries array"
        raise OutputError(f"{named(path)}: not a HAR file ({problem}); choose another --har file")
    return entries


def _entries(value: Any) -> list[Any] | None:
    log = value.get("log") if isinstance(value, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    return entries if isinstance(entries, list) else None


def _redacted(item: Any, guard: Guard) -> bytes:
    """One entry's JSON, redacted by the policy as a HAR and guarded: its text, each of its strings,
    a base64 body as its bytes and a JSON body as its decoded strings."""
    item = _bodies(item, lambda body: _guarded_base64(body, guard) if _base64(body) else body)
    text = json.dumps({"log": {"entries": [item]}}, ensure_ascii=False, separators=(",", ":"))
    redacted = redact_text(text, "har")
    if redacted.problems:  # never write what the policy could not read: keep the times and status only
        item = _stripped(item)
        redacted = redact_text(json.dumps({"log": {"entries": [item]}}, separators=(",", ":")), "har")
    value = json.loads(guard.clean_forms(redacted.text))  # (short credentials: in its strings, below)
    held = _bodies(value["log"]["entries"][0], lambda body: {**body, "text": _Held(body["text"])})
    cleaned = _released(guard.clean_value(held)[0], guard)  # each string, but the bodies': as bodies
    try:
        text = json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:  # (another tool's entry, nested beyond any this writer makes)
        return _redacted(_stripped(item), guard)
    return text.encode("utf-8", "backslashreplace")


def _bodies(item: Any, change: Callable[[dict[str, Any]], dict[str, Any]], text: type = str) -> Any:
    """``item`` with ``change`` made to its request's ``postData`` and its response's ``content``
    (those holding a ``text`` of the type ``text``)."""
    if not isinstance(item, dict):
        return item
    item = dict(item)
    for side, member in (("request", "postData"), ("response", "content")):
        part = item.get(side)
        body = part.get(member) if isinstance(part, dict) else None
        if isinstance(part, dict) and isinstance(body, dict) and isinstance(body.get("text"), text):
            item[side] = {**part, member: change(body)}
    return item


@dataclass(frozen=True)
class _Held:
    """A body's text held out of :meth:`Guard.clean_value` (not a string to it): a JSON body is
    guarded as JSON (a short credential in its strings, never as a bare number of it), a base64 one
    as its bytes already."""

    text: str


def _released(item: Any, guard: Guard) -> Any:
    """``item`` with each held body text back, a text one guarded (:func:`_guarded_json`)."""
    return _bodies(item, lambda body: _guarded_json({**body, "text": body["text"].text}, guard), _Held)


def _guarded_json(body: dict[str, Any], guard: Guard) -> dict[str, Any]:
    """A text body as its decoded strings too (:meth:`Guard.clean_json`)."""
    return body if _base64(body) else {**body, "text": guard.clean_json(body["text"])}


def _base64(body: dict[str, Any]) -> bool:
    return body.get("encoding") == "base64"


def _guarded_base64(body: dict[str, Any], guard: Guard) -> dict[str, Any]:
    """A base64 body guarded as its bytes (:meth:`Guard.clean_bytes`): its text hides them from the
    policy and the guard alike."""
    try:
        data = base64.b64decode(body["text"], validate=True)
    except (ValueError, binascii.Error):
        note = "<not recorded: a body said to be base64 that is not>"
        return {key: value for key, value in body.items() if key != "encoding"} | {"text": note}
    return {**body, "text": base64.b64encode(guard.clean_bytes(data)).decode("ascii")}


def _stripped(item: Any) -> Any:
    note = "<not recorded: the secret policy could not redact it>"
    request = dict(item.get("request", {})) if isinstance(item, dict) else {}
    response = dict(item.get("response", {})) if isinstance(item, dict) else {}
    request.pop("postData", None)
    response["content"] = {"size": 0, "mimeType": "text/plain", "text": note}
    return {**item, "request": request, "response": response} if isinstance(item, dict) else {}


# ------------------------------------------------------------------------------ entries as data


def entry(exchange: Exchange) -> dict[str, Any]:
    """The HAR entry of one attempt, with the token exchange's credentials masked by name."""
    millis = round(exchange.elapsed * 1000, 3)
    item: dict[str, Any] = {
        "startedDateTime": _iso(exchange.started),
        "time": millis,
        "request": _request(exchange),
        "response": _response(exchange),
        "cache": {},
        "timings": {"send": 0, "wait": millis, "receive": 0},
        "_attempt": exchange.attempt,
    }
    if exchange.call.job:
        item["_job"] = exchange.call.job
    if exchange.error:
        item["_error"] = scrub(exchange.error)
    return item


def _iso(moment: float) -> str:
    stamp = datetime.fromtimestamp(moment, UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _headers(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [
        {"name": name, "value": mask(value) if is_secret_name(name) else scrub(value)}
        for name, value in pairs
    ]


def _request(exchange: Exchange) -> dict[str, Any]:
    query = urlsplit(exchange.url).query
    request: dict[str, Any] = {
        "method": exchange.method,
        "url": exchange.url,
        "httpVersion": exchange.http_version,
        "cookies": [],
        "headers": _headers(exchange.request_headers),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(query, keep_blank_values=True)],
        "headersSize": -1,
        "bodySize": len(exchange.request_body),
    }
    if exchange.request_body:
        mime = _mime(exchange.request_headers)
        request["postData"] = {"mimeType": mime, "text": _text(exchange, exchange.request_body, True)[0]}
    return request


def _response(exchange: Exchange) -> dict[str, Any]:
    return {
        "status": exchange.status,
        "statusText": exchange.reason,
        "httpVersion": exchange.http_version if exchange.status else "",
        "cookies": [],
        "headers": _headers(exchange.response_headers),
        "content": _content(exchange),
        "redirectURL": exchange.header("location") or "",
        "headersSize": -1,
        "bodySize": _body_size(exchange),
    }


def _content(exchange: Exchange) -> dict[str, Any]:
    """The body as HAR ``content``; a truncated one without text, ``_truncated`` and a comment saying
    how much was read (``size``: the decoded bytes read before reading stopped, a lower bound)."""
    content: dict[str, Any] = {"size": exchange.body_size, "mimeType": _mime(exchange.response_headers)}
    if exchange.truncated:
        content["_truncated"] = True
        content["comment"] = (
            f"not recorded: the body passed --max-body; reading stopped after {exchange.body_size} "
            f"decoded bytes ({exchange.received} received)"
        )
    elif exchange.body:
        text, encoding = _text(exchange, exchange.body, False)
        content["text"] = text
        if encoding:
            content["encoding"] = encoding
    return content


def _body_size(exchange: Exchange) -> int:
    """Bytes received for the body (before decoding), -1 when no answer came."""
    if not exchange.status:
        return -1
    return len(exchange.body) if exchange.received is None else exchange.received


def _mime(pairs: list[tuple[str, str]]) -> str:
    return next((value for name, value in pairs if name.lower() == "content-type"), "")


def _text(exchange: Exchange, body: bytes, request: bool) -> tuple[str, str | None]:
    """A body as HAR text (base64 when it is not UTF-8); a token exchange's credentials masked."""
    text, problem = decode(body)
    if problem is not None and exchange.call.kind == "token":  # no policy reads it: never written
        return "<not recorded: a token exchange body that is not UTF-8 text>", None
    if problem is not None:
        return base64.b64encode(body).decode("ascii"), "base64"
    if exchange.call.kind != "token":
        return text, None
    parsed = parse_bytes(body)
    if parsed.error is not None:  # what is a credential in it cannot be told: never written
        return "<not recorded: a token exchange body that is not JSON>", None
    try:
        if request:
            masked = mask_members(parsed.value, TOKEN_SHOWN)
        else:
            masked = mask_answer(parsed.value) if exchange.ok else mask_named(parsed.value)
        return scrub(json.dumps(masked, ensure_ascii=False, separators=(",", ":"))), None
    except RecursionError:
        return "<not recorded: a token exchange body nested too deeply>", None
