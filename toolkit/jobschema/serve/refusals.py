"""The error answers of requests refused before a route sees them (too large, too slow, malformed).

Each answer is the API's own error body (``runai-error`` ``{code, message}`` for Run:ai paths,
``aihc-error`` ``{requestId, code, message}`` with ``x-bce-request-id`` for the AIHC paths: v1's
``/api/v1/aijobs`` and v2's ``/``, where its actions live as ``/?action=NAME``),
with ``Connection: close``: a refused peer does not keep its connection. When not even the path is
known (a connection refused before its request), the answer has no body.
"""

from __future__ import annotations

import http
from collections.abc import Callable
from dataclasses import dataclass

from jobschema.serve import aihc, runai
from jobschema.serve.sources import dump

AIHC_PATH = "/api/v1/aijobs"
#: The one path of AIHC v2, whose action is in the query (``POST /?action=DescribeJob``); Run:ai
#: serves nothing there, so a request to it is the AIHC API's whatever its query or method.
AIHC_V2_PATH = "/"
#: BCE's public error codes for the statuses the limits and the router answer (aihc-api.md §8; BCE
#: documents no code of its own for 404 of a path, 405, 408, 413 or 431, so these take the nearest
#: public or descriptive one).
AIHC_CODES = {
    400: "InvalidHTTPRequest",
    404: "ResourceNotFound",
    405: "MethodNotAllowed",
    408: "RequestTimeout",
    413: "EntityTooLarge",
    414: "InvalidURI",
    431: "InvalidHTTPRequest",
    503: "ServiceUnavailable",
    505: "InvalidHTTPRequest",
}

Headers = list[tuple[bytes, bytes]]
JSON_TYPE = (b"content-type", b"application/json")


@dataclass(frozen=True)
class Refusal:
    """A whole answer: status, headers (with ``content-length`` and ``connection: close``), body."""

    status: int
    headers: Headers
    body: bytes

    def raw(self, head_only: bool = False) -> bytes:
        """The answer as HTTP/1.1 bytes, for a connection no request cycle serves; ``head_only``:
        without its body, for a ``HEAD`` request (RFC 9110 §9.3.2: no content in the answer; its
        ``Content-Length`` still says the body's, as it may)."""
        reason = http.HTTPStatus(self.status).phrase
        lines = [f"HTTP/1.1 {self.status} {reason}".encode("ascii")]
        lines += [name + b": " + value for name, value in self.headers]
        return b"\r\n".join(lines) + b"\r\n\r\n" + (b"" if head_only else self.body)


def api_of(path: str) -> str:
    """``aihc`` for the AIHC paths (v1's job paths, v2's ``/``), else ``runai``: the API whose error
    body a refusal of ``path`` (a path without its query) is."""
    if path in (AIHC_PATH, AIHC_V2_PATH) or path.startswith(AIHC_PATH + "/"):
        return "aihc"
    return "runai"


def refusal(path: str | None, status: int, message: str, new_id: Callable[[], str]) -> Refusal:
    """The answer refusing a request to ``path`` (None: unknown) with ``status`` and ``message``."""
    headers, body = error_answer(path, status, message, new_id) if path is not None else ([], b"")
    headers += [(b"content-length", str(len(body)).encode("ascii")), (b"connection", b"close")]
    return Refusal(status, headers, body)


def error_answer(path: str, status: int, message: str, new_id: Callable[[], str]) -> tuple[Headers, bytes]:
    """The headers (content type, AIHC's request id) and error body of the API that ``path`` is."""
    if api_of(path) == "aihc":
        request_id = new_id()
        code = AIHC_CODES.get(status, aihc.CODES.get(status, ("InternalError", ""))[0])
        body = dump(aihc.error(request_id, code, message))
        return [(b"x-bce-request-id", request_id.encode("ascii")), JSON_TYPE], body
    return [JSON_TYPE], dump(runai.error(status, message))


def target_path(head: bytes) -> str | None:
    """The path of the request line at the start of ``head`` (None when it cannot be read)."""
    line = head.split(b"\r\n", 1)[0].split(b"\n", 1)[0]
    parts = line.split(b" ")
    if len(parts) < 2:
        return None
    target = origin_target(parts[1].split(b"?", 1)[0])[0]
    return target.decode("latin-1") if target.startswith(b"/") else None


def origin_target(raw_path: bytes) -> tuple[bytes, bytes | None]:
    """A request target's path as the origin form writes it, and the authority an absolute-form
    target names (``http://host:port/path`` -> ``(b"/path", b"host:port")``; RFC 9112 §3.2.2: a
    server MUST accept that form); an origin-form target as it is, with no authority (None)."""
    scheme, sep, rest = raw_path.partition(b"://")
    if not sep or scheme.lower() not in (b"http", b"https"):
        return raw_path, None
    authority, slash, path = rest.partition(b"/")
    return slash + path or b"/", authority.rpartition(b"@")[2]  # (a login is no part of the host)
