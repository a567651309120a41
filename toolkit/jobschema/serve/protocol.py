"""uvicorn's HTTP/1.1 (h11) protocol and server, held to the limits before any request reaches the app.

uvicorn bounds the request head's size (h11's ``max_incomplete_event_size``) and the keep-alive idle
time after an answer, nothing else: a new connection that says nothing, or a peer trickling its
headers a byte at a time, is kept for ever, and a flood of connections opens descriptors until
``accept`` fails and asyncio logs a traceback a second. Here, per connection:

- a connection with no request under way is closed after ``idle_timeout`` (from its start too);
- a request's head must arrive within ``request_timeout`` of its first byte, else 408 and close (the
  body's share of the same deadline is kept by :class:`jobschema.serve.guard.Guard`), and a peer
  that takes no part of an answer for ``request_timeout`` is cut off;
- a head above ``max_headers`` is 431 (414 when its request line alone is longer than ``max_url``),
  malformed HTTP is 400, each with the API's error body when the path can be read;
- a connection that does not speak HTTP/1.x is refused as soon as that shows (505 for a request line
  of another version or none, HTTP/2's preface among them; 400 for a first byte no method holds, a
  TLS ClientHello on the plain port), and a head holding ``Transfer-Encoding`` and
  ``Content-Length`` both (request smuggling) or two ``Authorization`` headers is 400 and closed
  (:func:`head_problem`);
- a connection above ``max_connections`` is answered 503 and closed at once;

and for the server, when ``accept`` runs out of file descriptors, the connections waiting are taken
with a descriptor held in reserve, answered 503 and closed. Trouble is reported by
:class:`jobschema.serve.limits.Warnings` (one line per kind a minute), never with a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast
from urllib.parse import unquote

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from jobschema.serve.guard import ANSWERED, DEADLINE, USERINFO
from jobschema.serve.limits import Limits, Warnings, format_size
from jobschema.serve.refusals import origin_target, refusal, target_path

#: ``accept`` errors that mean the process (or system) is out of descriptors or buffers.
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Bytes kept of a head's start beyond ``max_url``: the method and `` HTTP/1.1`` around its target.
HEAD_SLACK = 64
#: What a request still arriving when the server stops is answered (503).
SHUTTING_DOWN = "The server is shutting down: try again once it is back."
#: At most this many waiting connections are answered 503 per failed ``accept``.
SHED_BATCH = 256
#: The bytes a method (an RFC 9110 token) may hold: a connection starting with any other (a TLS
#: ClientHello on the plain port, binary garbage) cannot be HTTP/1.x and is refused at once.
TCHAR = frozenset(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
#: A request line (RFC 9112 §3) with any version, or none (HTTP/0.9's ``GET /``).
_REQUEST_LINE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+ [!-~]+(?: HTTP/([0-9])\.([0-9]))?")
#: The bytes of a method looked at (no method served is longer; h11 bounds the rest of the line).
MAX_METHOD = 64
#: What an HTTP/1.0 request with ``Transfer-Encoding`` is answered (RFC 9112 §6.1).
HTTP10_CHUNKED = (
    "An HTTP/1.0 request has no Transfer-Encoding (RFC 9112 §6.1): its framing is faulty, so it is refused."
)
#: What a request with two ``Authorization`` headers is answered.
TWO_AUTHORIZATIONS = "The request has more than one Authorization header."
#: What a request whose framing could be read two ways is answered (RFC 9112 §6.1).
SMUGGLING = (
    "The request has both Transfer-Encoding and Content-Length: its body could be read two ways "
    "(RFC 9112 §6.1), so it is refused."
)


class ServerLog:
    """What uvicorn's protocol logs (warnings, errors of the app), as quiet one-line warnings."""

    level = logging.WARNING

    def __init__(self, warn: Warnings) -> None:
        self.warn = warn

    def log(self, level: int, msg: str, *args: Any, **kwargs: Any) -> None:
        if level >= logging.WARNING:
            self._say(msg, args, kwargs.get("exc_info"))

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._say(msg, args, kwargs.get("exc_info"))

    def error(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self._say(msg, args, kwargs.get("exc_info"))

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
        """Information is not shown."""

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None:
        """Debugging is not shown."""

    def _say(self, msg: str, args: tuple[Any, ...], exc_info: Any) -> None:
        text = (msg % args if args else msg).strip()
        if isinstance(exc_info, BaseException):
            text += f": {type(exc_info).__name__}: {exc_info}".rstrip(": ")
        self.warn(f"uvicorn:{msg}", f"warning: {text}")


@dataclass(frozen=True)
class Settings:
    """What every connection of one server shares: its limits, its warnings, its AIHC request ids."""

    limits: Limits
    warn: Warnings
    new_id: Callable[[], str]
    #: The access log: an answer the protocol gives itself (a refusal before a route sees the request)
    #: is one line there too, as every other answer is.
    log: Callable[[str], None] = lambda line: None


class LimitedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the per-connection limits; :func:`protocol_class` sets the class
    attributes of one server."""

    settings: ClassVar[Settings]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = self.settings.limits
        self.warn = self.settings.warn
        self.logger = cast(logging.Logger, ServerLog(self.warn))
        self.timeout_keep_alive = cast(int, self.limits.idle_timeout)  # uvicorn types it int; any float works
        self._head_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._started: float | None = None
        #: The start of the head being read, kept as it came: h11 takes a whole head out of its
        #: buffer before it parses it, so a malformed one is gone from ``trailing_data`` when refused.
        self._head_start = b""
        #: How many bytes of the head being read :func:`head_problem` has searched for its end: each
        #: search starts there, so a head sent a byte at a time is read once, not once per byte.
        self._head_searched = 0
        #: The chunk sizes of the chunked body being read (None: no such body under way).
        self._chunks: ChunkSizes | None = None
        #: A CR that came alone after empty lines (or first), held back from h11 until its LF comes.
        self._held_cr = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            count = self.limits.max_connections
            self.warn(
                "connections",
                f"warning: {count} connections open (--max-connections): newer ones are answered 503 "
                "and closed",
            )
            self._refuse(None, 503, "")  # (no request: its access-log line is "- - 503")
            return
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():  # refused: what still comes is dropped
            return
        if self._chunks is not None and self._chunks.feed(data):  # a chunk declared past --max-body
            self._chunk_too_large()
            return
        if self._held_cr:  # an empty line's CR came alone: an LF ends it, anything else follows it
            self._held_cr = False
            data = data[1:] if data.startswith(b"\n") else b"\r" + data
        waiting = self.conn.their_state is h11.IDLE  # for a request's head
        if waiting and self._started is None:
            self._started = self.loop.time()
        super().data_received(data)
        if self._started is not None and self._head_timer is None and self.conn.their_state is h11.IDLE:
            # the head is not whole yet (the usual head comes in one piece and needs no timer)
            deadline = self._started + self.limits.request_timeout
            self._head_timer = self.loop.call_at(deadline, self._head_too_slow)

    def handle_events(self) -> None:
        pending = b""
        if self.conn.their_state is h11.IDLE:  # a head is next: keep its start (its request line)
            self._chunks = None
            pending = self._skip_blank_lines()
            self._head_start = pending[: self.limits.max_url + HEAD_SLACK]
            problem = head_problem(pending, min(self._head_searched, len(pending)))
            self._head_searched = len(pending)
            if problem is not None:
                status, message = problem
                kind, said = _early_warning(status, message)
                self.warn(f"early:{kind}", f"warning: {said}: answered {status} and closed")
                self._refuse(pending, status, message)
                return
        before = self.scope
        super().handle_events()
        if self.scope is not before:  # a request's head is whole: the app gets the deadline
            self._head_searched = 0  # (the next head starts anew in h11's buffer)
            origin_form(cast(dict[str, Any], self.scope))
            if self._read_chunk_sizes(pending):
                return
            self._stop_head_timer()
            started = self._started if self._started is not None else self.loop.time()
            self._started = None
            cycle = self.cycle  # whole: the body came with the head, and is within the cap
            whole = cycle is not None and not cycle.more_body and len(cycle.body) <= self.limits.max_body
            deadline = None if whole else started + self.limits.request_timeout
            scope = cast(dict[str, Any], self.scope)
            scope.setdefault("extensions", {})[DEADLINE] = deadline

    def _skip_blank_lines(self) -> bytes:
        """What h11 holds of the next head, without the empty lines before its request line (RFC 9112
        §2.2: a server SHOULD ignore at least one; a client may send a CRLF after a POST body). h11
        refuses them, and lets nothing be taken out of its buffer: between two requests (both sides
        idle) the connection's h11 state is fresh, so a fresh one is given what follows them. What is
        skipped is never kept: a peer sending only blank lines holds one byte (a CR waiting for its
        LF), and is answered 408 after ``request_timeout``, as any head that does not come."""
        pending, closed = self.conn.trailing_data
        kept = skip_blank_lines(pending)
        if kept == b"\r" and not closed:  # (h11 refuses a lone CR: it waits here for its LF)
            kept, self._held_cr = b"", True
        if (len(kept) == len(pending) and not self._held_cr) or self.conn.our_state is not h11.IDLE:
            self._held_cr = False
            return pending
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.max_headers)
        if kept:  # (no bytes would say the peer closed)
            conn.receive_data(kept)
        if closed:
            conn.receive_data(b"")
        self.conn = conn
        return kept

    def _read_chunk_sizes(self, pending: bytes) -> bool:
        """A chunked body begins: its chunk-size lines are read as they come (h11 does not say them),
        so one declaring more than ``max_body`` is 413 at once, not 408 when its bytes do not come.
        ``pending`` held the head, and the body's first bytes after it. True: refused."""
        headers = cast(dict[str, Any], self.scope).get("headers", [])
        if self.cycle is None or not any(name == b"transfer-encoding" for name, _ in headers):
            return False
        end = _BLANK_LINE.search(pending)
        self._chunks = ChunkSizes(self.limits.max_body)
        if end is not None and self._chunks.feed(pending[end.end() :]):
            self._chunk_too_large()
            return True
        return False

    def _chunk_too_large(self) -> None:
        """A chunk declared past ``max_body``: 413, in the API's error body, and closed; the route
        reading the body sees the peer gone, and its access-log line shows the 413."""
        self._chunks = None
        scope = cast(dict[str, Any], self.scope)
        scope.setdefault("extensions", {})[ANSWERED] = 413
        problem = f"The request body is larger than {format_size(self.limits.max_body)}."
        self._refuse(self._head_start, 413, problem, logged=True)

    def pause_writing(self) -> None:
        """The peer is not taking the answer: it has ``request_timeout`` to start again."""
        super().pause_writing()
        if self._write_timer is None:
            self._write_timer = self.loop.call_later(self.limits.request_timeout, self._not_reading)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _not_reading(self) -> None:
        self._write_timer = None
        timeout = self.limits.request_timeout
        self.warn(
            "not-reading",
            f"warning: a peer took no part of an answer for {timeout:g} s (--request-timeout): cut off",
        )
        self.transport.abort()

    def _unsupported_upgrade_warning(self) -> None:
        """An ``Upgrade`` (WebSocket, h2c, TLS) is ignored, as RFC 9110 §7.8 lets a server: the
        request is served as HTTP/1.1 and nothing is said (uvicorn would suggest installing a
        WebSocket library; the server runs with none, so no connection leaves the limits)."""

    def send_400_response(self, msg: str) -> None:
        """h11 refused the head: too large (431, or 414 for the request line alone) or malformed.

        A head too large is still in h11's buffer, unfinished; a malformed one was taken out whole
        before it was parsed, so its path is read from the start kept by :meth:`handle_events`."""
        pending = self.conn.trailing_data[0]
        start = self._head_start
        too_large = len(pending) > self.limits.max_headers and pending.startswith(start)
        line = start.split(b"\n", 1)[0]
        limits = self.limits
        if too_large and (len(line) > limits.max_url or b"\n" not in pending):
            status, problem = 414, f"The request target is longer than {format_size(limits.max_url)}."
        elif too_large:
            size = format_size(limits.max_headers)
            status, problem = 431, f"The request line and headers are larger than {size}."
        else:
            status, problem = 400, "The request is not valid HTTP/1.1."
        self._refuse(start, status, problem)

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        timeout = self.limits.request_timeout
        self.warn(
            "request-timeout",
            f"warning: a request's headers did not arrive within {timeout:g} s (--request-timeout): "
            "answered 408 and closed",
        )
        problem = f"The request did not arrive whole within {timeout:g} seconds."
        self._refuse(self.conn.trailing_data[0], 408, problem)

    def shutdown(self) -> None:
        """The server is stopping: a request still arriving (its head, or its body) is answered 503
        in the API's error body and closed, not left to the graceful timeout, whose cancellation
        uvicorn answers 500 in plain text; a request whole already is served as usual."""
        cycle: RequestResponseCycle | None = self.cycle  # None between requests (uvicorn types it not)
        if cycle is not None and cycle.more_body and not cycle.response_started:
            scope = cast(dict[str, Any], self.scope)
            scope.setdefault("extensions", {})[ANSWERED] = 503  # (the route's access-log line)
            self._refuse(self._head_start, 503, SHUTTING_DOWN, logged=True)
        elif cycle is None and self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:
            self._refuse(self.conn.trailing_data[0], 503, SHUTTING_DOWN)
        else:
            super().shutdown()

    def _refuse(self, head: bytes | None, status: int, problem: str, logged: bool = False) -> None:
        """Answer ``status`` with ``problem`` in the error body of the API ``head``'s request line
        names (none when it names no path), and close; its access-log line is written unless the
        route's is (``logged``), from what ``head`` (what came of the request) says."""
        self._stop_head_timer()
        self._unset_keepalive_if_required()
        path = target_path(head) if head else None
        answer = refusal(path, status, problem, self.settings.new_id)
        self.transport.write(answer.raw(head_only=(head or b"").startswith(b"HEAD ")))
        self.transport.close()
        if not logged:
            took = (self.loop.time() - self._started) * 1000 if self._started is not None else 0.0
            self.settings.log(access_line(head or b"", status, took))

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


def head_problem(pending: bytes, searched: int = 0) -> tuple[int, str] | None:
    """Why the request head at the start of ``pending`` (what has come of it) is refused before h11
    reads it, as ``(status, message)``; None when it may still be an HTTP/1.x request. ``searched``:
    how many first bytes of ``pending`` an earlier call was given (they hold no head's end), so a head
    that comes a byte at a time is searched in linear time, not quadratic.

    - 400: its method holds a byte no method may (a TLS ClientHello, binary, a CR not followed by
      an LF; empty lines before the request line are skipped before this is asked): said as soon as
      the byte comes, not after ``request_timeout`` spent waiting for a line end that is not coming;
    - 505: its request line names a major version other than 1 (HTTP/2's prior-knowledge preface
      ``PRI * HTTP/2.0``, ``HTTP/3.0``, ``HTTP/0.9``) or none (HTTP/0.9's ``GET /``); a minor version
      other than 1 is HTTP/1.1 to this server (RFC 9110 §6.2);
    - 400: its head, once whole, holds ``Transfer-Encoding`` and ``Content-Length`` both (a request
      smuggling attempt, RFC 9112 §6.1), or two ``Authorization`` headers (which one a proxy in front
      checked is unknown)."""
    if not pending or pending == b"\r":  # (a CR may be the start of an empty line, skipped)
        return None
    space = pending.find(b" ", 0, MAX_METHOD + 1)
    if any(byte not in TCHAR for byte in pending[: space if space >= 0 else MAX_METHOD][:MAX_METHOD]):
        return 400, "The request is not valid HTTP/1.1."
    end = pending.find(b"\n")
    if end < 0:
        return None
    line = _REQUEST_LINE.fullmatch(pending[:end].removesuffix(b"\r"))
    if line is not None and line.group(1) != b"1":
        major, minor = line.group(1), line.group(2)
        version = "HTTP/0.9" if major is None else f"HTTP/{major.decode()}.{minor.decode()}"
        return 505, f"{version} is not supported: this server speaks HTTP/1.1."
    return _header_problem(pending, searched, http10=line is not None and line.group(2) == b"0")


#: Where a head ends: its blank line.
_HEAD_END = re.compile(rb"\r?\n\r?\n")
#: Where h11 ends a head (a line end, then an empty line).
_BLANK_LINE = re.compile(rb"\n\r?\n")
#: Empty lines before a request line (RFC 9112 §2.2), a lone CR at the end waiting for its LF.
_LEADING_BLANKS = re.compile(rb"(?:\r?\n)*")


def skip_blank_lines(pending: bytes) -> bytes:
    """``pending`` without the empty lines (CRLF or LF) it starts with (RFC 9112 §2.2)."""
    return pending[_LEADING_BLANKS.match(pending).end() :]  # type: ignore[union-attr]


#: The most hex digits a chunk size may have (h11 refuses more: 400).
MAX_SIZE_DIGITS = 20
_HEX = frozenset(b"0123456789abcdefABCDEF")


class ChunkSizes:
    """The sizes a chunked body declares, read from its bytes as they come (h11 parses the framing
    and says nothing of it): :meth:`feed` is True once the chunks declared so far hold more than
    ``cap`` bytes, as soon as the hex digits of the size say so, before its line ends. It keeps at
    most :data:`MAX_SIZE_DIGITS` bytes of a size line and reads each byte once; whatever is not a
    well-formed size (no digit, more than 20, the last chunk's trailers) ends the reading: h11
    answers the framing itself."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.declared = 0
        self._skip = 0  # the bytes of a chunk's data and its CRLF still to come
        self._digits = b""  # the size line's hex digits so far
        self._in_size = True  # still reading digits (False: the line's extension, up to its LF)
        self.done = False

    def feed(self, data: bytes) -> bool:
        """Read ``data``, the next bytes of the body; True when the chunks declared pass the cap."""
        at = 0
        while at < len(data) and not self.done:
            if self._skip:
                taken = min(self._skip, len(data) - at)
                self._skip -= taken
                at += taken
                continue
            end = data.find(b"\n", at)
            line = data[at : end if end >= 0 else len(data)]
            if self._in_size:
                count = next((i for i, byte in enumerate(line) if byte not in _HEX), len(line))
                self._digits += line[:count]
                if len(self._digits) > MAX_SIZE_DIGITS:
                    self.done = True  # (h11 refuses it)
                    return False
                if self.declared + int(self._digits or b"0", 16) > self.cap:
                    return True
                self._in_size = count == len(line)
            if end < 0:
                return False
            at = end + 1
            size = int(self._digits or b"0", 16)
            self.done = not self._digits or size == 0  # no size (h11 refuses it), or the last chunk
            self.declared += size
            self._skip = size + 2  # the chunk's data and its CRLF
            self._digits, self._in_size = b"", True
        return False


def access_line(head: bytes, status: int, took: float) -> str:
    """The access-log line of an answer the protocol gave itself: ``METHOD PATH STATUS MS`` from the
    request line at the start of ``head``, as far as it came (``-`` for what cannot be read; the
    callers' heads are bounded by the head cap)."""
    from jobschema.serve.app import shown_method, shown_path

    line = head.split(b"\n", 1)[0].removesuffix(b"\r").split(b" ")
    readable = line[0] and all(byte in TCHAR for byte in line[0])
    method = shown_method(line[0].decode("ascii")) if readable else "-"
    target = "-"
    if method != "-" and len(line) > 1 and line[1]:
        raw, _, query = origin_target(line[1])[0].partition(b"?")
        if raw.startswith(b"/"):
            path = unquote(raw.decode("latin-1"))
            target = shown_path({"path": path, "query_string": query})
        else:
            target = shown_path({"path": raw.decode("latin-1")})
    return f"{method} {target} {status} {took:.1f}ms"


def _header_problem(start: bytes, searched: int, http10: bool = False) -> tuple[int, str] | None:
    """:func:`head_problem` of a head whose request line is read: its headers, once whole (searched
    for its end from a few bytes before ``searched``: the end may straddle it). An HTTP/1.0 request
    with ``Transfer-Encoding`` is faulty framing (RFC 9112 §6.1: MUST)."""
    whole = _HEAD_END.search(start, max(0, searched - 3))
    if whole is None:
        return None
    lines = start[: whole.start()].split(b"\n")[1:]
    names = [line.split(b":", 1)[0].strip().lower() for line in lines if line[:1] not in (b" ", b"\t")]
    if b"transfer-encoding" in names and b"content-length" in names:
        return 400, SMUGGLING
    if b"transfer-encoding" in names and http10:
        return 400, HTTP10_CHUNKED
    if names.count(b"authorization") > 1:
        return 400, TWO_AUTHORIZATIONS
    return None


def _early_warning(status: int, message: str) -> tuple[str, str]:
    """The kind and the words of the warning about a refusal of :func:`head_problem` (one line per
    kind a minute, the first one's words)."""
    if status == 505:
        return "version", f"a connection spoke another HTTP version than 1.1 ({message.split(' ', 1)[0]})"
    if message == SMUGGLING:
        return "smuggling", "a request had both Transfer-Encoding and Content-Length (request smuggling?)"
    if message == HTTP10_CHUNKED:
        return "smuggling", "an HTTP/1.0 request had Transfer-Encoding (request smuggling?)"
    if message == TWO_AUTHORIZATIONS:
        return "authorization", "a request had more than one Authorization header"
    return "not-http", "a connection did not start with an HTTP/1.1 request line (TLS on the plain port?)"


def origin_form(scope: dict[str, Any]) -> None:
    """Make a request target in absolute form (``GET http://host:port/path?q HTTP/1.1``, which RFC 9112
    §3.2.2 says a server MUST accept) the path it names, as if the peer had sent the origin form; its
    authority is then the request's host, in place of the ``Host`` header (which the RFC says to
    ignore): the routes, the access log and a BCE signature's ``host`` all see what the target names.
    A target in origin form is left as it is."""
    target = scope.get("raw_path", b"")
    raw_path, host = origin_target(target)
    if host is None:
        return
    if b"@" in target.partition(b"://")[2].partition(b"/")[0]:  # a userinfo: refused by the Guard
        scope.setdefault("extensions", {})[USERINFO] = True
    scope["raw_path"] = raw_path
    scope["path"] = unquote(raw_path.decode("ascii"))
    if host:
        scope["headers"] = [(b"host", host), *((k, v) for k, v in scope.get("headers", []) if k != b"host")]


def protocol_class(
    limits: Limits,
    warn: Warnings,
    new_id: Callable[[], str],
    log: Callable[[str], None] = lambda line: None,
) -> type[LimitedProtocol]:
    """A :class:`LimitedProtocol` of one server (uvicorn builds one per connection from the class);
    ``log`` is the access log, which the protocol's own refusals are written to."""
    return type("ServerProtocol", (LimitedProtocol,), {"settings": Settings(limits, warn, new_id, log)})


class LoopErrors:
    """The event loop's exception handler: a quiet line, never a traceback; when ``accept`` runs out
    of descriptors, the waiting connections are answered 503 and closed (taken with a descriptor
    held in reserve for that)."""

    def __init__(
        self,
        sock: socket.socket,
        limits: Limits,
        warn: Warnings,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.sock = sock
        self.limits = limits
        self.warn = warn
        self.log = log  # the access log: each connection answered 503 here is one line
        self._reserve: int | None = _reserve()

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        err = context.get("exception")
        if isinstance(err, OSError) and err.errno in OUT_OF_RESOURCES:
            self.shed()
            self.warn(
                "descriptors",
                f"warning: out of file descriptors ({err.strerror}): waiting connections are answered "
                f"503 and closed (--max-connections {self.limits.max_connections} is more than the "
                "process may open)",
            )
            return
        message = str(context.get("message") or "error in the event loop")
        shown = f": {type(err).__name__}: {err}" if err is not None else ""
        self.warn(f"loop:{message}", f"warning: {message}{shown}")

    def shed(self) -> int:
        """Answer 503 to (at most :data:`SHED_BATCH`) connections waiting to be accepted."""
        answer = refusal(None, 503, "", str).raw()
        shed = 0
        for _ in range(SHED_BATCH):
            self._release()
            try:
                conn, _ = self.sock.accept()
            except OSError:  # none waiting (BlockingIOError), or still no descriptor
                break
            with conn:
                head = _answer(conn, answer)
            self.log(access_line(head, 503, 0.0))
            shed += 1
        self._reserve = self._reserve if self._reserve is not None else _reserve()
        return shed

    def _release(self) -> None:
        if self._reserve is not None:
            os.close(self._reserve)
            self._reserve = None

    def close(self) -> None:
        """Give the reserve descriptor back."""
        self._release()


def _reserve() -> int | None:
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


def _answer(conn: socket.socket, answer: bytes) -> bytes:
    """Read what the peer sent (so closing does not reset it), send ``answer``; errors are the peer's.
    What was read is returned (the start of a request, or nothing yet)."""
    conn.setblocking(False)
    head = b""
    with contextlib.suppress(OSError):
        head = conn.recv(65536)
    with contextlib.suppress(OSError):
        conn.send(answer)
    return head


class LimitedServer(uvicorn.Server):
    """uvicorn's server with :class:`LoopErrors` as its event loop's exception handler."""

    def __init__(self, config: uvicorn.Config, errors: LoopErrors) -> None:
        super().__init__(config)
        self.errors = errors

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self.errors)
        await super().startup(sockets)
