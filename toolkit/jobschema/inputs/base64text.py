"""Base64 text as captures hold it, decoded and encoded again in its own style: one line or lines of
one length (MIME's 76, PEM's 64) ended by ``\\n`` or ``\\r\\n``, the standard or the URL-safe alphabet,
with or without its ``=`` padding. Only text that the style found encodes back to exactly the same
characters is read, so a body redacted and encoded again changes nowhere but where it was masked."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

__all__ = ["Style", "decode"]

_STANDARD = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_URL_SAFE = re.compile(r"[A-Za-z0-9_-]*={0,2}")


@dataclass(frozen=True)
class Style:
    """How a base64 text is written: its line length (0: one line), line end, whether its last line
    is ended, its alphabet and its padding."""

    width: int = 0
    end: str = "\n"
    ended: bool = False
    url_safe: bool = False
    padded: bool = True

    def encode(self, data: bytes) -> str:
        """``data`` as base64 text in this style."""
        text = (base64.urlsafe_b64encode if self.url_safe else base64.b64encode)(data).decode("ascii")
        if not self.padded:
            text = text.rstrip("=")
        if self.width:
            text = self.end.join(text[at : at + self.width] for at in range(0, len(text), self.width))
        return text + self.end if self.ended and text else text


def decode(text: str) -> tuple[bytes, Style] | None:
    """The bytes ``text`` encodes and its :class:`Style`; None when it is not base64 in one style."""
    end = "\r\n" if "\r\n" in text else "\n"
    ended = text.endswith(end)
    lines = (text[: -len(end)] if ended else text).split(end)
    width = len(lines[0]) if len(lines) > 1 else 0
    joined = "".join(lines)
    url_safe = bool(re.search(r"[-_]", joined))
    if not (_URL_SAFE if url_safe else _STANDARD).fullmatch(joined):
        return None
    style = Style(width, end, ended, url_safe, padded=len(joined) % 4 == 0)
    try:
        padding = "=" * (-len(joined) % 4)
        data = (base64.urlsafe_b64decode if url_safe else base64.b64decode)(joined + padding)
    except (binascii.Error, ValueError):
        return None
    return (data, style) if style.encode(data) == text else None
