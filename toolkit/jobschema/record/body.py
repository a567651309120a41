"""Reading an answer's body under a cap on its decoded size, so no answer is ever held whole.

The body is read as it arrives (httpx's raw stream) and decoded here, step by step: ``gzip`` and
``deflate`` (zlib or raw) give at most :data:`~jobschema.record.limits.BODY_STEP` bytes per step
whatever a compressed chunk holds, so a small gzip bomb grows no further than the cap plus one step.
The cap counts decoded bytes; once passed, reading stops and the bytes read so far are dropped: the
answer is *truncated* (an error answer, recorded without its body). Reading also stops at the
answer's deadline (``--timeout`` for the whole answer, however slowly it trickles in). Any other
``Content-Encoding`` (the recorder asks for ``gzip, deflate`` only) is passed through as it is.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from jobschema.record.limits import BODY_STEP

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
    """A zlib stream (``wbits`` as :func:`zlib.decompressobj` takes them), at most a step per output."""

    def __init__(self, wbits: int) -> None:
        self._inflate = zlib.decompressobj(wbits)
        self._fed = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        self._fed = self._fed or bool(data)
        while not self._inflate.eof:
            try:
                out = self._inflate.decompress(data, BODY_STEP)
            except zlib.error as err:
                raise BodyDecodingError(str(err)) from None
            data = self._inflate.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < BODY_STEP:  # input used up and nothing left pending
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
        return _Zlib(zlib.MAX_WBITS | 16)
    if name == "deflate":
        return _Deflate()
    return _Identity()


class _Chain:
    """Several encodings (``Content-Encoding: deflate, gzip``), undone last first."""

    def __init__(self, names: list[str]) -> None:
        self._decoders = [_decoder(name) for name in reversed(names)] or [_Identity()]

    def feed(self, data: bytes) -> Iterator[bytes]:
        yield from self._through(0, data)

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self._decoders):
            yield data
            return
        for piece in self._decoders[index].feed(data):
            yield from self._through(index + 1, piece)

    def finish(self) -> None:
        for decoder in self._decoders:
            decoder.finish()


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
    ``now()`` passes ``deadline`` (:class:`BodyTimeout`); a body that is not in its encodings, or
    whose compressed stream ends early, is a :class:`BodyDecodingError`."""
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
