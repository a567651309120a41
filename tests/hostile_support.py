"""Hostile peers for ``jobschema record``: a raw-socket HTTP/1.1 server on loopback whose answers are
written byte by byte by the test (gzip bombs, endless chunked bodies, trickles, odd headers).

Every loop here is bounded: the accept loop by ``stop()``, each connection by a socket timeout, and
every endless body by a byte limit and a deadline, so a test that goes wrong fails, it does not hang.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.serve_support import RUNAI_EXAMPLES

#: Seconds a peer waits on one socket operation, and the longest an endless body is sent for.
SOCKET_TIMEOUT = 30.0
ENDLESS_SECONDS = 60.0
#: The most bytes an endless body sends (the recorder should stop far earlier).
ENDLESS_LIMIT = 1024**3
ENV = {"RUNAI_CLIENT_ID": "client-hostile-01", "RUNAI_CLIENT_SECRET": "PLANTED-hostile-secret-77"}
JOB = "0f6d2a4c-1b3e-4d5f-8a7b-9c0d1e2f3a4b"
#: An opaque access token: no secret shape at all, so only the guard can know it.
TOKEN = "qwertyuiopasdfgh1234"


@dataclass
class Request:
    """One request as the peer read it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Sent:
    """What an answer's writer managed to send, and whether the client went away first."""

    bytes: int = 0
    cut: bool = False


Handler = Callable[[Request, socket.socket], Sent | None]


@dataclass
class Peer:
    """A loopback server calling ``handler`` for each request (one request per connection)."""

    handler: Handler
    requests: list[Request] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)
        self._accept.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def paths(self) -> list[tuple[str, str]]:
        return [(request.method, request.path) for request in self.requests]

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._one, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(SOCKET_TIMEOUT)
            try:
                request = _read_request(conn)
                if request is None:
                    return
                self.requests.append(request)
                sent = self.handler(request, conn)
                if sent is not None:
                    self.sent.append(sent)
            except OSError:
                return
            except BaseException as err:  # an assertion in a handler: reported by stop()
                self.errors.append(err)

    def stop(self) -> None:
        self._stop.set()
        self._server.close()
        self._accept.join(timeout=SOCKET_TIMEOUT)
        for thread in self._threads:
            thread.join(timeout=SOCKET_TIMEOUT)
        if self.errors:
            raise self.errors[0]

    def wait_sent(self, count: int, seconds: float = 60.0) -> list[Sent]:
        """What the first ``count`` endless answers sent, once their writers ended (bounded wait)."""
        deadline = time.monotonic() + seconds
        while len(self.sent) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.sent) >= count, f"only {len(self.sent)} answers ended in {seconds} s"
        return self.sent[:count]


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return None
        data += more
        assert len(data) < 1024 * 1024, "request head too large"
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        more = conn.recv(65536)
        if not more:
            break
        rest += more
    return Request(method, path, headers, rest[:length])


# ------------------------------------------------------------------------------------- answers


def answer(
    conn: socket.socket,
    status: int,
    body: bytes | dict[str, Any] | list[Any],
    headers: dict[str, str] | None = None,
) -> None:
    """A whole answer with ``Content-Length`` (a dict or list is sent as JSON)."""
    data = json.dumps(body).encode() if isinstance(body, dict | list) else body
    fields = {"Content-Type": "application/json", **(headers or {})}
    head = "".join(f"{name}: {value}\r\n" for name, value in fields.items())
    conn.sendall(
        f"HTTP/1.1 {status} X\r\n{head}Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
        + data
    )


def endless(conn: socket.socket, pieces: Iterator[bytes], headers: dict[str, str] | None = None) -> Sent:
    """A chunked answer sending ``pieces`` until the client goes away, or the limit or deadline."""
    fields = {"Content-Type": "application/json", **(headers or {})}
    head = "".join(f"{name}: {value}\r\n" for name, value in fields.items())
    conn.sendall(f"HTTP/1.1 200 OK\r\n{head}Transfer-Encoding: chunked\r\n\r\n".encode())
    sent = Sent()
    deadline = time.monotonic() + ENDLESS_SECONDS
    for piece in pieces:
        if sent.bytes >= ENDLESS_LIMIT or time.monotonic() > deadline:
            return sent
        try:
            conn.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        except OSError:
            sent.cut = True
            return sent
        sent.bytes += len(piece)
    return sent


def zeros(size: int = 64 * 1024) -> Iterator[bytes]:
    """Zero bytes forever, ``size`` at a time."""
    block = b"\0" * size
    while True:
        yield block


def compressed(pieces: Iterator[bytes], wbits: int) -> Iterator[bytes]:
    """``pieces`` compressed as one endless zlib stream (``wbits`` 31: gzip, 15: zlib, -15: raw)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    for piece in pieces:
        out = packer.compress(piece) + packer.flush(zlib.Z_SYNC_FLUSH)
        if out:
            yield out


def gzip_bomb(size: int) -> bytes:
    """``size`` zero bytes, gzip-compressed (256 MiB -> about 250 KiB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * (1024 * 1024)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, packer.flush()])


# ---------------------------------------------------------------------------------- Run:ai parts


def workload(job: str = JOB, phase: str = "Running", **extra: Any) -> dict[str, Any]:
    """A valid distributed workload named ``job`` in ``phase``."""
    value = json.loads((RUNAI_EXAMPLES / "completed-job.json").read_text(encoding="utf-8"))
    return {**value, "workloadId": job, "actualPhase": phase, **extra}


def jwt(claims: dict[str, Any]) -> str:
    """An unsigned-looking JWT carrying ``claims`` (the recorder reads exp, never verifies)."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJlLXBsYW50ZWQ"


def token_answer(conn: socket.socket, token: str = TOKEN) -> None:
    """A token answer holding ``token``."""
    answer(conn, 200, {"accessToken": token})


def is_token(request: Request) -> bool:
    return request.method == "POST" and request.path == "/api/v1/token"


def is_cluster(request: Request) -> bool:
    """The recorder's one question a cluster (``GET /api/v1/clusters/ID``) after its first snapshot."""
    return request.method == "GET" and request.path.startswith("/api/v1/clusters/")


def cluster_answer(conn: socket.socket, version: str | None = None) -> None:
    answer(
        conn,
        200,
        {"uuid": "c", "tenantId": 1, "name": "c", "createdAt": "2025-01-01T00:00:00Z", "version": version},
    )


@contextlib.contextmanager
def running(handler: Handler) -> Iterator[Peer]:
    """A peer for the length of a ``with`` block."""
    peer = Peer(handler)
    try:
        yield peer
    finally:
        peer.stop()
