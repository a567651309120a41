"""One request and its retries over httpx: every attempt becomes an :class:`Exchange`.

An exchange holds what went over the wire (method, URL, headers, bodies, status, times) or the
network error that stopped it; the credentials it brought are learned first (a token answer's:
:meth:`Transport.send`'s ``learn``), then it is handed to the observer (the HAR writer, the status
line), then either returned or retried (:mod:`jobschema.record.retry`). Exchanges hold credentials
in the clear (the ``Authorization`` header, a token request's body): they live in memory only, and
everything written from them goes through :mod:`jobschema.record.guard` first.

Every attempt ends ``timeout`` seconds after it began at the latest, or at the end of the recording
(``--duration``) when that comes first, and none begins after that end, whatever the server sends or
how slowly: resolving the host name (the system's resolver has no timeout of its own), connecting to
each of its addresses, the TLS handshake, the status line, headers, ``1xx`` answers, the body and
trailers all run under that one deadline (:mod:`jobschema.record.deadline`), so a signal held back
during a request waits no longer either. Every answer is streamed: its body is kept only up to
``max_body`` decoded bytes (a larger one is *truncated*: an error answer without a body;
:mod:`jobschema.record.body`); an answer with both ``Transfer-Encoding`` and ``Content-Length`` is
an error, its body unread (RFC 9112 §6.3: it could be read two ways). A wait between retries,
``Retry-After`` included, never passes the end of the recording; a ``Retry-After`` longer than the
retry budget ends its request, and holds the next request back for at most ``hold`` seconds (the
poll interval), never past that end either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jobschema.errors import ToolkitError
from jobschema.record.body import BodyDecodingError, BodyTimeout, codings_text, encodings, read_capped
from jobschema.record.files import signals_deferred
from jobschema.record.limits import MAX_BODY
from jobschema.record.retry import RETRIED, RetryPolicy, Runtime, retry_after
from jobschema.secrets import mask_url, scrub

if TYPE_CHECKING:
    import httpx

#: The error of an answer with both ``Transfer-Encoding`` and ``Content-Length``: RFC 9112 §6.3 says
#: such a message may be request smuggling or response splitting and ought to be handled as an error.
TWO_FRAMINGS = (
    "RemoteProtocolError: the answer has both Transfer-Encoding and Content-Length: its body could be "
    "read two ways (RFC 9112 §6.3: handled as an error)"
)

#: Builds the request of one attempt (each attempt is signed, or carries the token, anew).
Build = Callable[[], "httpx.Request"]


class RequestUrlError(ToolkitError):
    """A request URL that httpx cannot send (a host that is no valid name or address): a usage error
    (exit 2); :func:`jobschema.record.recorder.check` refuses such a ``--url`` before this is reached."""


@dataclass(frozen=True)
class Call:
    """What a request is for: a ``token`` request, or a poll of ``job``."""

    kind: str
    job: str = ""


@dataclass
class Exchange:
    """One attempt: the request sent and the answer (``status`` 0 and ``error``: no answer came)."""

    call: Call
    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    started: float
    elapsed: float = 0.0
    status: int = 0
    reason: str = ""
    http_version: str = "HTTP/1.1"
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    error: str | None = None
    attempt: int = 1
    #: The body passed the cap: ``body`` is empty, ``size`` the decoded bytes read before stopping.
    truncated: bool = False
    #: Decoded and received (on the connection) byte counts of the body, when they were counted.
    size: int | None = None
    received: int | None = None

    @property
    def ok(self) -> bool:
        """True for a 2xx answer that came whole."""
        return 200 <= self.status < 300 and self.error is None and not self.truncated

    @property
    def retriable(self) -> bool:
        """True for a network error (also one while the body came), 429 and 5xx (but 501)."""
        return self.status == 0 or self.error is not None or self.status in RETRIED

    def header(self, name: str) -> str | None:
        """The first response header ``name`` (case-insensitive)."""
        wanted = name.lower()
        return next((value for key, value in self.response_headers if key.lower() == wanted), None)

    @property
    def outcome(self) -> str:
        """``200``, ``503``, the network error's kind (``ConnectError``) or ``TooLarge`` (truncated),
        for the status line."""
        if self.truncated:
            return "TooLarge"
        if self.error is not None or not self.status:
            return (self.error or "error").split(":", 1)[0]
        return str(self.status)

    @property
    def body_size(self) -> int:
        """The decoded size of the body (at least, when truncated)."""
        return len(self.body) if self.size is None else self.size

    @property
    def shown_url(self) -> str:
        """The URL with credential-like query values masked."""
        return mask_url(self.url)


Observer = Callable[[Exchange], None]


def _learn_nothing(exchange: Exchange) -> None:
    return None


@dataclass(frozen=True)
class BodyLimits:
    """How much of an answer is read: ``max_body`` decoded bytes, within ``timeout`` seconds."""

    max_body: int = MAX_BODY
    timeout: float = 30.0


class Transport:
    """Sends requests through one httpx client, retrying as the policy says; reports every attempt.

    ``hold`` is the longest a ``Retry-After`` that ended its request holds the next request back
    (the poll interval: it is never carried further than the next poll)."""

    def __init__(
        self,
        client: httpx.Client,
        policy: RetryPolicy,
        runtime: Runtime,
        observe: Observer,
        limits: BodyLimits | None = None,
        hold: float = 0.0,
    ) -> None:
        self.client = client
        self.policy = policy
        self.runtime = runtime
        self.observe = observe
        self.limits = limits or BodyLimits()
        self.hold = hold
        self.not_before = 0.0  # monotonic: a Retry-After that outlived its request still holds

    def send(
        self, call: Call, build: Build, deadline: float, learn: Observer = _learn_nothing
    ) -> Exchange | None:
        """The last attempt's exchange: an answer that needs no retry, or the one retries ended on;
        None when ``deadline`` (the recording's end, on the runtime's monotonic clock) passed before
        the first attempt could begin. No attempt begins once ``deadline`` has passed, and each one
        ends by it: its ``--timeout`` is cut to what is left. ``learn`` sees each attempt before
        anything is written from it (the credentials it holds)."""
        attempt, waited, last = 1, 0.0, None
        while True:
            self._hold(deadline)
            left = deadline - self.runtime.monotonic()
            if left <= 0:
                return last
            exchange = self._attempt(call, _built(build), attempt, left)
            learn(exchange)
            self.observe(exchange)
            if not exchange.retriable:
                return exchange
            last = exchange
            after = retry_after(exchange.header("retry-after"), self.runtime.clock())
            delay = self.policy.wait(attempt, after, waited, self.runtime.rng)
            if delay is None:
                self._carry(after)
                return exchange
            if not self.runtime.pause(delay, deadline):
                return exchange
            attempt, waited = attempt + 1, waited + delay

    def _carry(self, after: float | None) -> None:
        """A ``Retry-After`` the request gave up on holds the next request for at most ``hold``."""
        if after is not None:
            until = self.runtime.monotonic() + min(after, self.hold)
            self.not_before = max(self.not_before, until)

    def _hold(self, deadline: float) -> None:
        """Wait out a ``Retry-After`` the server gave earlier (never past the deadline)."""
        left = self.not_before - self.runtime.monotonic()
        if left > 0:
            self.runtime.pause(left, deadline)

    def _attempt(self, call: Call, request: httpx.Request, attempt: int, left: float) -> Exchange:
        """One attempt, ending ``--timeout`` after it began or when the ``left`` seconds of the
        recording are up, whichever comes first."""
        import httpx

        exchange = Exchange(
            call,
            request.method,
            str(request.url),
            [(key, value) for key, value in request.headers.multi_items()],
            request.content,
            self.runtime.clock(),
            attempt=attempt,
        )
        from jobschema.record.deadline import within

        begun = time.perf_counter()
        cut = left < self.limits.timeout  # the recording ends first: its end is this request's
        deadline = time.monotonic() + min(self.limits.timeout, left)
        late = self._cut if cut else self._late
        try:
            # Ctrl-C lands after the request, never inside httpcore; the request ends by its deadline
            with signals_deferred(), within(deadline):
                self._exchange(request, exchange, deadline, late)
        except httpx.TimeoutException as err:
            ended = time.monotonic() >= deadline
            exchange.error = late(_not_whole(exchange, err)) if ended else _error_text(err)
        except httpx.TransportError as err:
            exchange.error = _error_text(err)
        except UnicodeError as err:  # a host name the socket layer cannot encode (IDNA)
            raise RequestUrlError(scrub(f"{exchange.shown_url}: not a host name: {err}")) from None
        exchange.elapsed = time.perf_counter() - begun
        return exchange

    def _late(self, detail: str) -> str:
        """The error of an attempt its deadline ended, with ``detail`` on how far the answer came."""
        return f"Timeout: the answer took longer than --timeout ({self.limits.timeout:g} s); {detail}"

    @staticmethod
    def _cut(detail: str) -> str:
        """The error of an attempt the end of the recording (``--duration``) cut short."""
        return f"Timeout: --duration ran out before the answer came; {detail}"

    def _exchange(
        self, request: httpx.Request, exchange: Exchange, deadline: float, late: Callable[[str], str]
    ) -> None:
        """Send ``request`` and read its answer into ``exchange``: the body up to the limits, by
        ``deadline`` (``late`` words the error when it passes)."""
        response = self.client.send(request, stream=True)
        try:
            exchange.status = response.status_code
            exchange.reason = response.reason_phrase
            exchange.http_version = response.http_version
            exchange.response_headers = list(response.headers.multi_items())
            if "transfer-encoding" in response.headers and "content-length" in response.headers:
                exchange.error = TWO_FRAMINGS  # (its body is not read: it could be read two ways)
                return
            codings = encodings(response.headers.get_list("content-encoding"))
            try:
                body = read_capped(response.iter_raw(), codings, self.limits.max_body, deadline)
            except BodyTimeout as err:
                exchange.error = late(str(err))
                return
            except BodyDecodingError as err:
                exchange.error = scrub(f"DecodingError: {codings_text(codings)}: {err}")
                return
            exchange.body, exchange.size, exchange.received = body.data, body.size, body.received
            exchange.truncated = body.truncated
        finally:
            response.close()


def _not_whole(exchange: Exchange, err: Exception) -> str:
    if exchange.status:
        return "its body had not come whole"
    from jobschema.record.deadline import NOT_RESOLVED

    return NOT_RESOLVED if str(err).startswith(NOT_RESOLVED) else "no status line and headers yet"


def _built(build: Build) -> httpx.Request:
    """The request ``build`` makes; a URL httpx refuses is a :class:`RequestUrlError`."""
    import httpx

    try:
        return build()
    except (httpx.InvalidURL, UnicodeError) as err:
        raise RequestUrlError(scrub(f"the request URL cannot be sent: {err}")) from None


def _error_text(err: Exception) -> str:
    """``ConnectError: [Errno 111] Connection refused``; secret-shaped parts masked."""
    detail = str(err).strip()
    return scrub(f"{type(err).__name__}: {detail}" if detail else type(err).__name__)
