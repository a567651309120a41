"""The ASGI application: the routes of both APIs behind an access log.

One line per request goes to the log: ``METHOD PATH STATUS MS``, e.g.
``GET /api/v1/aijobs/pytorchjob-…?resourcePoolId=cce-e0isdmib 200 0.8ms``. The path and query pass
through the secret policy (``mask_url``, then ``scrub``), so a credential in a query string shows as
a mask; headers and bodies are never logged.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, TextIO

from jobschema.secrets import mask_url, scrub
from jobschema.serve.routes import routes

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from jobschema.serve.state import ServerState

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Log:
    """Whole lines to a text stream (or nowhere), one writer at a time, flushed."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        if self.stream is None:
            return
        with self._lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def shown_path(scope: Scope) -> str:
    """The request's path and query as the log shows them: credentials masked."""
    query = scope.get("query_string", b"").decode("latin-1")
    target = scope.get("path", "") + (f"?{query}" if query else "")
    return scrub(mask_url(target))


class AccessLog:
    """ASGI middleware writing one access-log line per HTTP request, once its answer is sent."""

    def __init__(self, app: ASGIApp, log: Log) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.log.stream is None:
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            took = (time.perf_counter() - started) * 1000
            self.log(f"{scope.get('method', '?')} {shown_path(scope)} {status[0]} {took:.1f}ms")


def build_app(state: ServerState, log: Log | None = None) -> ASGIApp:
    """The ASGI app serving ``state`` (usable with any ASGI server, or httpx's ASGI transport)."""
    log = log or Log(None)
    return AccessLog(_starlette(state, log), log)


def _starlette(state: ServerState, log: Log) -> Starlette:
    from starlette.applications import Starlette

    return Starlette(routes=routes(state, log))
