"""The ASGI application: the routes of both APIs behind the request limits and an access log.

One line per request goes to the log: ``METHOD PATH STATUS MS``, e.g.
``GET /api/v1/aijobs/pytorchjob-…?resourcePoolId=cce-e0isdmib 200 0.8ms``. The path and query pass
through the secret policy (``mask_url``, then ``scrub``), so a credential in a query string shows as
a mask; headers and bodies are never logged.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TextIO

from jobschema.secrets import mask_url, scrub
from jobschema.serve.asgi import ASGIApp, Message, Receive, Scope, Send
from jobschema.serve.guard import ANSWERED, Guard
from jobschema.serve.limits import Limits
from jobschema.serve.refusals import error_answer
from jobschema.serve.routes import routes
from jobschema.text import log_safe, visible

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from jobschema.serve.state import ServerState


class Log:
    """Whole lines to a text stream (or nowhere), one writer at a time, flushed."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def __call__(self, line: str) -> None:
        """Write ``line`` as one line: what a peer sent in it (a path, a job id, a header) cannot break
        it, move the cursor or start a CI runner's command (:func:`jobschema.text.visible`,
        :func:`~jobschema.text.log_safe`, as every command shows names)."""
        if self.stream is None:
            return
        line = log_safe(visible(line))
        with self._lock:
            self.stream.write(line + "\n")
            self.stream.flush()


#: The longest path and query an access-log line shows (a peer's 8 KiB target is cut, and counted).
SHOWN_TARGET = 512


def shown_path(scope: Scope) -> str:
    """The request's path and query as the log shows them: credentials masked, at most
    :data:`SHOWN_TARGET` characters (``…(+N)`` says how many more there were)."""
    query = scope.get("query_string", b"").decode("latin-1")
    target = scrub(mask_url(scope.get("path", "") + (f"?{query}" if query else "")))
    if len(target) <= SHOWN_TARGET:
        return target
    return f"{target[:SHOWN_TARGET]}…(+{len(target) - SHOWN_TARGET})"


#: The longest method an access-log line shows (h11 takes a method as long as the head cap).
SHOWN_METHOD = 64


def shown_method(method: str) -> str:
    """``method`` as the log shows it: at most :data:`SHOWN_METHOD` characters (``…(+N)``)."""
    if len(method) <= SHOWN_METHOD:
        return method
    return f"{method[:SHOWN_METHOD]}…(+{len(method) - SHOWN_METHOD})"


#: The status an access-log line shows for a request nobody was answered: the peer left first.
NO_ANSWER = "-"


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
        status: list[int | str] = [NO_ANSWER]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except BaseException:
            if status[0] == NO_ANSWER:
                status[0] = 500  # what the server answers an application that raised
            raise
        finally:
            if status[0] == NO_ANSWER:  # the protocol answered (the server stopping), or nobody
                status[0] = (scope.get("extensions") or {}).get(ANSWERED, NO_ANSWER)
            took = (time.perf_counter() - started) * 1000
            method = shown_method(scope.get("method", "?"))
            self.log(f"{method} {shown_path(scope)} {status[0]} {took:.1f}ms")


def build_app(state: ServerState, log: Log | None = None, limits: Limits | None = None) -> ASGIApp:
    """The ASGI app serving ``state`` (usable with any ASGI server, or httpx's ASGI transport): the
    routes behind the body and target limits (:class:`~jobschema.serve.guard.Guard`) and the log."""
    from jobschema.secrets.reading import load_everything

    load_everything()  # (every answer's words are scrubbed: none may need to import, even out of descriptors)
    log = log or Log(None)
    guarded = Guard(_starlette(state, log), limits or Limits(), state.new_id)
    return AccessLog(guarded, log)


#: What an unrouted path (404) or a method a path does not take (405) answers, in either API's body.
UNROUTED = {404: "No such resource.", 405: "The method is not allowed for this resource."}


def _starlette(state: ServerState, log: Log) -> Starlette:
    """The router: every answer of its own (no route, wrong method) is the API's error body, chosen
    by path as refusals are; no redirect for a trailing slash (it would be built from the peer's
    ``Host``, and neither API redirects), so ``/x/`` is an unrouted path like any other."""
    from starlette.applications import Starlette

    app = Starlette(
        routes=routes(state, log),
        exception_handlers={status: _unrouted(state) for status in UNROUTED},
    )
    app.router.redirect_slashes = False
    return app


def _unrouted(state: ServerState) -> Callable[[Request, Exception], Awaitable[Response]]:
    from starlette.exceptions import HTTPException
    from starlette.responses import Response

    async def answer(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        headers, body = error_answer(request.url.path, status, UNROUTED.get(status, "Error."), state.new_id)
        extra = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}  # 405's Allow
        shown = {name.decode("latin-1"): value.decode("latin-1") for name, value in headers}
        return Response(body, status, {**shown, **extra})

    return answer
