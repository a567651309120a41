"""One deadline for a whole request: connecting, sending, the status line, headers, every ``1xx``
answer, the body and its trailers.

httpx's timeouts bound each socket operation alone, so a server that sends a byte just inside each
one (a status line or headers trickled in, trailers that never end), or an endless run of
``100 Continue`` answers (httpcore skips informational answers in a loop of its own), would hold a
request forever, and with it a SIGINT or SIGTERM waiting for the request to end. Every connection of
the recorder goes through :class:`DeadlineBackend` (installed by :func:`client`), whose every socket
operation waits at most what is left of the deadline the request runs under (:func:`within`) and
fails as a timeout once it has passed (:class:`DeadlinePassed`). Outside :func:`within`, operations
keep httpx's own per-operation timeouts.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import httpcore

if TYPE_CHECKING:
    import ssl

    import httpx

#: The monotonic time the current request must be done by (None: no request deadline).
_DEADLINE: ContextVar[float | None] = ContextVar("jobschema_record_deadline", default=None)


class DeadlinePassed(httpcore.ReadTimeout):
    """The request's deadline passed (a timeout to httpx, whichever socket operation was waiting)."""


@contextlib.contextmanager
def within(deadline: float) -> Iterator[None]:
    """Socket operations inside the block end by ``deadline`` (``time.monotonic``)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def bounded(timeout: float | None, now: Callable[[], float] = time.monotonic) -> float | None:
    """``timeout`` shortened to what is left of the current deadline; :class:`DeadlinePassed` when
    nothing is left (an operation with no time left must not start: a zero timeout means
    "non-blocking", not "give up")."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - now()
    if left <= 0:
        raise DeadlinePassed("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """A connection whose every operation ends by the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, bounded(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, bounded(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, bounded(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend, each stream it opens a :class:`DeadlineStream`."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, bounded(timeout), local_address, socket_options)
        return DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        return DeadlineStream(self._inner.connect_unix_socket(path, bounded(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def client(**options: Any) -> httpx.Client:
    """An ``httpx.Client`` (``options`` as it takes them) whose connections, direct or through a
    proxy from the environment, all keep the request deadline."""
    import httpx

    class _Client(httpx.Client):
        def _init_transport(self, *args: Any, **kwargs: Any) -> httpx.BaseTransport:
            return _install(super()._init_transport(*args, **kwargs))

        def _init_proxy_transport(self, *args: Any, **kwargs: Any) -> httpx.BaseTransport:
            return _install(super()._init_proxy_transport(*args, **kwargs))

    return _Client(**options)


def _install(transport: httpx.BaseTransport) -> httpx.BaseTransport:
    """Put :class:`DeadlineBackend` under ``transport``'s connection pool. httpx offers no option for
    it, so this reaches into its pool; if a new httpx moves it, this fails loudly instead of leaving
    requests unbounded."""
    pool = getattr(transport, "_pool", None)
    inner = getattr(pool, "_network_backend", None)
    if not isinstance(inner, httpcore.NetworkBackend):
        raise RuntimeError(f"cannot bound the requests of {type(transport).__name__}: unknown httpx layout")
    if not isinstance(inner, DeadlineBackend):
        pool._network_backend = DeadlineBackend(inner)  # type: ignore[union-attr]
    return transport
