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

Resolving the host name is such a wait too, and the system's resolver (``getaddrinfo``) takes no
timeout at all: a resolver that never answers would hold the request, and the recording, past any
``--timeout`` or ``--duration``. :func:`resolve` asks it in a daemon thread and stops waiting when
the connect timeout or the request's deadline comes (a thread left waiting on the resolver never
holds the process's exit); a name already being resolved is waited for, not asked again, and at
most :data:`MAX_LOOKUPS` names are resolved at once, so a resolver that hangs costs a bounded
number of threads however long the recording runs. The connection then tries each address in turn,
each attempt within what is left of the same deadline (``socket.create_connection`` would give each
address the whole connect timeout anew).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
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


#: The system's resolver, ``socket.getaddrinfo`` (a test puts a slow or silent one in its place).
_getaddrinfo = socket.getaddrinfo
#: Names resolved at once at most (each in a thread of its own, waiting on the system's resolver).
MAX_LOOKUPS = 4
#: What a resolution that did not come in time says (:mod:`jobschema.record.transport` shows it).
NOT_RESOLVED = "the host name was not resolved in time"


class _Lookup:
    """One name being resolved: its addresses, or the error, once ``done``."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.addresses: list[str] = []
        self.error: BaseException | None = None


_lookups: dict[tuple[str, int], _Lookup] = {}
_lookups_lock = threading.Lock()


def _look_up(key: tuple[str, int], lookup: _Lookup) -> None:
    """The resolver's thread: ask, keep the answer, and let the next request ask anew."""
    try:
        infos = _getaddrinfo(key[0], key[1], type=socket.SOCK_STREAM)
        lookup.addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    except BaseException as err:  # (whatever the resolver raises is the waiting request's error)
        lookup.error = err
    finally:
        with _lookups_lock:
            if _lookups.get(key) is lookup:
                del _lookups[key]
        lookup.done.set()


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def resolve(host: str, port: int, timeout: float | None) -> list[str]:
    """The addresses of ``host`` (an address as it is), waiting at most ``timeout`` seconds for the
    resolver (:class:`httpcore.ConnectTimeout` then; :class:`httpcore.ConnectError` when it fails, or
    when :data:`MAX_LOOKUPS` names are being resolved already)."""
    if _is_address(host):
        return [host]
    key = (host, port)
    with _lookups_lock:
        lookup = _lookups.get(key)
        if lookup is None:
            if len(_lookups) >= MAX_LOOKUPS:
                raise httpcore.ConnectError(
                    f"cannot resolve {host!r}: {MAX_LOOKUPS} host names are being resolved already "
                    "(the resolver does not answer)"
                )
            lookup = _Lookup()
            thread = threading.Thread(
                target=_look_up, args=(key, lookup), daemon=True, name="jobschema-record-resolve"
            )
            try:
                thread.start()
            except RuntimeError as err:  # no thread can be started
                raise httpcore.ConnectError(f"cannot resolve {host!r}: {err}") from None
            _lookups[key] = lookup
    if not lookup.done.wait(timeout):
        raise httpcore.ConnectTimeout(f"{NOT_RESOLVED} ({host!r})")
    if lookup.error is not None:
        failed = lookup.error
        detail = getattr(failed, "strerror", None) or str(failed) or type(failed).__name__
        raise httpcore.ConnectError(f"cannot resolve {host!r}: {detail}")
    if not lookup.addresses:
        raise httpcore.ConnectError(f"cannot resolve {host!r}: no address")
    return lookup.addresses


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
        """Resolve ``host`` (:func:`resolve`), then connect to each of its addresses in turn until one
        answers, every wait within the connect timeout and the request's deadline."""
        failed: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in resolve(host, port, bounded(timeout)):
            try:
                left = bounded(timeout)
                stream = self._inner.connect_tcp(address, port, left, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                failed = err
                continue
            return DeadlineStream(stream)
        assert failed is not None  # (resolve gives at least one address)
        raise failed

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
