"""Reading an answer's body under a cap on its decoded size, so no answer is ever held whole.

The body is read as it arrives (httpx's raw stream) and decoded here, step by step: ``gzip`` and
``deflate`` (zlib or raw) give at most :data:`~jobschema.record.limits.BODY_STEP` bytes per step
whatever a compressed chunk holds, so a small gzip bomb grows no further than the cap plus one step.
The cap counts decoded bytes; once passed, reading stops and the bytes read so far are dropped: the
answer is *truncated* (an error answer, recorded without its body). Reading also stops at the
answer's deadline (``--timeout`` for the whole answer, however slowly it trickles in).

A gzip body is every member it holds (RFC 1952: members one after another), each decoded under the
same cap; bytes after the end of the last member, or after a deflate stream, are not in the
encoding named, so they are a decoding error, as is any ``Content-Encoding`` other than ``gzip`` and
``deflate`` (all the recorder asks for) and a chain of more than
:data:`~jobschema.record.limits.MAX_CODINGS` codings: a server that names thousands would otherwise
cost a decoder each.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from jobschema.record.limits import BODY_STEP, MAX_CODINGS

#: How every gzip member begins (RFC 1952): what may follow the end of one.
_GZIP_MAGIC = b"\x1f\x8b"
#: What the recorder asks servers for (the encodings it decodes step by step).
ACCEPT_ENCODING = "gzip, deflate"


class BodyTimeout(Exception):
    """The answer's deadline passed while its body was still arriving."""


class BodyDecodingError(Exception):
    """The body is not in the ``Content-Encoding`` its answer names."""


@dataclass(frozen=True)
class Body:
    """A body as read: its decoded bytes (empty when truncated), decoded and received byte counts."""

    data: bytes
    size: int  # decoded bytes read (when truncated: read before stopping, a little over the cap)
    received: int  # bytes read from the connection (after the chunked framing, before decoding)
    truncated: bool = False


class _Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def finish(self) -> None: ...


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), BODY_STEP):
            yield data[start : start + BODY_STEP]

    def finish(self) -> None:
        return None


class _Zlib:
    """A zlib stream (``wbits`` as :func:`zlib.decompressobj` takes them), at most a step per output;
    with ``members``, a new stream may follow the end of one (gzip), else nothing may."""

    def __init__(self, wbits: int, members: bool = False) -> None:
        self._wbits = wbits
        self._members = members
        self._inflate = zlib.decompressobj(wbits)
        self._fed = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._fed = self._fed or bool(data)
        while True:
            if self._inflate.eof:
                data = self._inflate.unused_data + data
                if not data:
                    return
                if not self._members or not _GZIP_MAGIC.startswith(data[:2]):
                    raise BodyDecodingError(f"{len(data)} bytes after the end of the compressed stream")
                self._inflate = zlib.decompressobj(self._wbits)  # the next member
            try:
                out = self._inflate.decompress(data, BODY_STEP)
            except zlib.error as err:
                raise BodyDecodingError(str(err)) from None
            data = self._inflate.unconsumed_tail
            if out:
                yield out
            if not self._inflate.eof and not data and len(out) < BODY_STEP:  # all used, none pending
                return

    def finish(self) -> None:
        """The body ended: its stream must have ended too (an empty body is no stream at all)."""
        if self._fed and not self._inflate.eof:
            raise BodyDecodingError("the compressed stream ends early")


class _Deflate:
    """``deflate``: a zlib stream as the standard says, or raw deflate as some servers send it."""

    def __init__(self) -> None:
        self._head = b""
        self._inner: _Zlib | None = None

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._inner is None:
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            self._inner = _Zlib(zlib.MAX_WBITS if _zlib_header(data) else -zlib.MAX_WBITS)
        yield from self._inner.feed(data)

    def finish(self) -> None:
        if self._head:
            raise BodyDecodingError("the compressed stream ends early")
        if self._inner is not None:
            self._inner.finish()


def _zlib_header(data: bytes) -> bool:
    return data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0


def _decoder(name: str) -> _Decoder:
    if name in ("gzip", "x-gzip"):
        return _Zlib(zlib.MAX_WBITS | 16, members=True)
    if name == "deflate":
        return _Deflate()
    raise BodyDecodingError(f"{_shown(name)} is not an encoding the recorder asked for (gzip, deflate)")


def _shown(name: str) -> str:
    return repr(name if len(name) <= 40 else name[:40] + "…")


class _Chain:
    """Several encodings (``Content-Encoding: deflate, gzip``), undone last first: each decoder's
    output fed to the next in a loop of bounded length (never a recursion as deep as the header)."""

    def __init__(self, names: list[str]) -> None:
        if len(names) > MAX_CODINGS:
            raise BodyDecodingError(f"{len(names)} content codings (at most {MAX_CODINGS})")
        self._decoders = [_decoder(name) for name in reversed(names)] or [_Identity()]

    def feed(self, data: bytes) -> Iterator[bytes]:
        pieces: Iterable[bytes] = (data,)
        for decoder in self._decoders:
            pieces = _through(decoder, pieces)
        yield from pieces

    def finish(self) -> None:
        for decoder in self._decoders:
            decoder.finish()


def _through(decoder: _Decoder, pieces: Iterable[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield from decoder.feed(piece)


def codings_text(codings: list[str]) -> str:
    """``deflate, gzip`` as an error names them (a chain over the cap shortened to its first few)."""
    shown = ", ".join(_shown(name)[1:-1] for name in codings[:MAX_CODINGS])
    return shown if len(codings) <= MAX_CODINGS else f"{shown}, … ({len(codings)} codings)"


def encodings(values: Iterable[str]) -> list[str]:
    """The content codings of ``Content-Encoding`` header values, in the order they were applied."""
    names = [part.strip().lower() for value in values for part in value.split(",")]
    return [name for name in names if name and name != "identity"]


def read_capped(
    chunks: Iterable[bytes],
    codings: list[str],
    cap: int,
    deadline: float,
    now: Callable[[], float] = time.monotonic,
) -> Body:
    """Read and decode ``chunks`` until they end, the decoded size passes ``cap`` (truncated), or
    ``now()`` passes ``deadline`` (:class:`BodyTimeout`); a body that is not in its encodings (or in
    one not decoded here, or in too many), whose compressed stream ends early or is followed by more
    bytes, is a :class:`BodyDecodingError`."""
    chain = _Chain(codings)
    parts: list[bytes] = []
    size = received = 0
    for chunk in chunks:
        received += len(chunk)
        for piece in chain.feed(chunk):
            size += len(piece)
            if size > cap:
                return Body(b"", size, received, truncated=True)
            parts.append(piece)
        if now() > deadline:
            raise BodyTimeout(f"{received} bytes received")
    chain.finish()
    return Body(b"".join(parts), size, received)
