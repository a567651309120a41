"""ASGI middleware holding each request to the limits: target and head length, body size and time.

A request target longer than ``max_url`` is 414, a head larger than ``max_headers`` 431. Before a
route runs, the middleware reads the request's body itself, into memory, up to ``max_body`` bytes:
a ``Content-Length`` above it is refused at once and a body that grows past it while streaming
(chunked) is refused at that chunk, both with 413, unread further. The body must have arrived by
the request's deadline (``request_timeout`` from its first byte, which the protocol passes in the
scope's extensions), else 408; what had reached the server by then counts, however late a busy
server reads it. Each of these answers is the API's error body with ``Connection: close``
(:mod:`refusals`). The route then gets the body in one message (a body that came whole with the
head, the protocol says so, is left as the server gives it: nothing to wait for).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from jobschema.serve.asgi import ASGIApp, Message, Receive, Scope, Send
from jobschema.serve.limits import Limits, format_size
from jobschema.serve.refusals import refusal

#: The scope extension holding the request's deadline (``loop.time()``; None: its body is whole
#: already), set by the protocol.
DEADLINE = "jobschema.deadline"
#: The scope extension set when an absolute-form target named a userinfo (``http://user:pw@host/``).
USERINFO = "jobschema.userinfo"
#: The scope extension holding the status the protocol answered a request with, itself, while the
#: application still read its body (503 when the server stops): what the access log shows for it.
ANSWERED = "jobschema.answered"


class Guard:
    """The middleware: ``Guard(app, limits, new_id)`` (``new_id`` makes AIHC request ids)."""

    def __init__(self, app: ASGIApp, limits: Limits, new_id: Callable[[], str]) -> None:
        self.app = app
        self.limits = limits
        self.new_id = new_id

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = (
            self._target_problem(scope)
            or self._head_problem(scope)
            or target_form_problem(scope)
            or host_problem(scope)
            or self._length_problem(scope)
        )
        if problem is not None:
            await self._refuse(scope, send, *problem)
            return
        extensions = scope.get("extensions") or {}
        if DEADLINE in extensions and extensions[DEADLINE] is None:  # the body came with the head
            await self.app(scope, receive, send)
            return
        deadline = extensions.get(DEADLINE) or asyncio.get_running_loop().time() + self.limits.request_timeout
        body = await self._read(receive, deadline)
        if isinstance(body, tuple):
            await self._refuse(scope, send, *body)
            return
        if body is None:  # the peer left before its body was whole: nobody to answer
            return
        await self.app(scope, _replay(body, receive), send)

    def _target_problem(self, scope: Scope) -> tuple[int, str] | None:
        query = scope.get("query_string", b"")
        length = len(scope.get("raw_path", b"")) + (len(query) + 1 if query else 0)
        if length <= self.limits.max_url:
            return None
        return 414, f"The request target is longer than {format_size(self.limits.max_url)}."

    def _head_problem(self, scope: Scope) -> tuple[int, str] | None:
        """431 for a head above ``max_headers`` that came whole at once (h11 bounds only a head that
        is still incomplete: the protocol refuses that one)."""
        if head_size(scope) <= self.limits.max_headers:
            return None
        return 431, f"The request line and headers are larger than {format_size(self.limits.max_headers)}."

    def _length_problem(self, scope: Scope) -> tuple[int, str] | None:
        """413 for a ``Content-Length`` above ``max_body``, in any form h11 takes: digits, or a list of
        the same digits (``5, 5``: RFC 9110 §8.6 lets a recipient read it as one), any number of them."""
        for name, value in scope.get("headers", []):
            if name != b"content-length":
                continue
            first = value.split(b",", 1)[0].strip()
            if first.isdigit() and (len(first) > DIGITS or int(first) > self.limits.max_body):
                return 413, self._too_large()
        return None

    def _too_large(self) -> str:
        return f"The request body is larger than {format_size(self.limits.max_body)}."

    async def _read(self, receive: Receive, deadline: float) -> bytes | tuple[int, str] | None:
        """The whole body; ``(status, message)`` when it is too large or too slow; None: peer gone.

        When the deadline passes, what had reached the server by then is still taken, waiting for
        nothing more: a server descheduled past the deadline (a busy machine) finds the peer's last
        bytes read in the same turn of its loop as the deadline, which asyncio runs first and which
        came in time; only a body still not whole without waiting is 408."""
        chunks: list[bytes] = []
        try:
            async with asyncio.timeout_at(deadline):
                return await self._take(receive, chunks)
        except TimeoutError:
            pass
        try:
            async with asyncio.timeout(0):  # (cancels at the first wait: only what is there is taken)
                return await self._take(receive, chunks)
        except TimeoutError:
            timeout = self.limits.request_timeout
            return 408, f"The request did not arrive whole within {timeout:g} seconds."

    async def _take(self, receive: Receive, chunks: list[bytes]) -> bytes | tuple[int, str] | None:
        """Read the body's messages into ``chunks`` (kept if a timeout ends the reading) until it is
        whole (the body), larger than ``max_body`` (413) or the peer has gone (None)."""
        size = sum(map(len, chunks))
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_body:
                return 413, self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _refuse(self, scope: Scope, send: Send, status: int, message: str) -> None:
        answer = refusal(scope.get("path", ""), status, message, self.new_id)
        await send({"type": "http.response.start", "status": status, "headers": answer.headers})
        await send({"type": "http.response.body", "body": answer.body})


#: Digits of a ``Content-Length`` beyond which it is too large whatever the cap (no int is made).
DIGITS = 19
#: A ``Host`` value (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP literal or a registered name (or none),
#: and a port of digits (or none). Any other value is 400 (RFC 9112 §3.2: MUST).
_HOST = re.compile(
    rb"(?:\[[0-9A-Fa-f:.]+\]|\[v[0-9A-Fa-f]+\.[!$&'()*+,;=:A-Za-z0-9._~-]+\]"
    rb"|[!$&'()*+,;=A-Za-z0-9._~%-]*)(?::[0-9]*)?"
)
#: What a request target that is none of HTTP/1.1's forms is answered.
NOT_A_TARGET = "The request target is not a path (RFC 9112 §3.2: origin form, /path?query, or absolute form)."
#: What a target naming a userinfo is answered.
USERINFO_REFUSED = (
    "The request target holds a userinfo (user:password@host): RFC 9110 §4.2.4 treats it as an error."
)
#: What ``OPTIONS *`` and ``CONNECT`` (a tunnel: the stub is no proxy) are answered.
NOT_IMPLEMENTED = "The server answers no {} request: it serves the API's paths only."


def target_form_problem(scope: Scope) -> tuple[int, str] | None:
    """400 for a request target in none of RFC 9112 §3.2's forms for its method (a fragment, ``*``
    or ``host:port`` for another method than ``OPTIONS`` / ``CONNECT``, a relative path); 501 for
    ``OPTIONS *`` and a ``CONNECT`` tunnel, which the stub does not serve. An absolute-form target
    was made its path by the protocol already; one that named a userinfo is 400 (RFC 9110 §4.2.4)."""
    raw = scope.get("raw_path", b"")
    method = scope.get("method", "")
    if (scope.get("extensions") or {}).get(USERINFO):
        return 400, USERINFO_REFUSED
    if raw.startswith(b"/") and b"#" not in raw and b"#" not in scope.get("query_string", b""):
        return None
    if (method == "OPTIONS" and raw == b"*") or (method == "CONNECT" and not raw.startswith(b"/")):
        return 501, NOT_IMPLEMENTED.format(f"{method} {raw.decode('latin-1')[:64]}")
    return 400, NOT_A_TARGET


def host_problem(scope: Scope) -> tuple[int, str] | None:
    """400 for a ``Host`` that is no host and port (RFC 9112 §3.2: a server MUST answer 400 to a
    request with an invalid ``Host`` value; h11 refuses one missing from HTTP/1.1 or given twice)."""
    for name, value in scope.get("headers", []):
        if name == b"host" and _HOST.fullmatch(value) is None:
            return 400, "The Host header is not a host name or address with an optional port."
    return None


def head_size(scope: Scope) -> int:
    """The size of the request's head as HTTP/1.1 writes it: request line, headers, blank line."""
    query = scope.get("query_string", b"")
    target = len(scope.get("raw_path", b"")) + (len(query) + 1 if query else 0)
    line = len(scope.get("method", "")) + 1 + target + len(" HTTP/1.1\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in scope.get("headers", [])) + 2


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the read body in one message, then waits as the server's does."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
