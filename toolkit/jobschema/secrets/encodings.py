"""Text inside encoded text: base64 (standard or URL-safe, wrapped or not, gzip inside it), hex,
percent-encoding, JSON and HTML escapes, the text content of HTML or XML markup.

Each encoded part is a :class:`View`: the decoded text, and how a secret found in it maps back.
Escapes map character for character (a secret is masked exactly where it stands); a base64 run is
opaque, so a secret anywhere in what it decodes to masks the whole run. Binary data (not UTF-8 text
once decoded) is not read.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import lzma
import re
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from urllib.parse import unquote

from jobschema.secrets.table import BASE64_MIN, INFLATE_LIMIT

#: ``(decoded start, source start, decoded length, source length)``: a stretch of decoded text and
#: where it came from (equal lengths: character for character; else every character of it stands
#: for the whole source stretch, as an escape does).
Piece = tuple[int, int, int, int]


@dataclass(frozen=True)
class View:
    """Decoded text found in a text, and where its characters came from (``pieces``); without pieces
    the view is opaque and stands for ``whole``."""

    text: str
    whole: tuple[int, int]
    pieces: tuple[Piece, ...] = ()

    def back(self, start: int, end: int) -> tuple[int, int]:
        """Where ``text[start:end]`` came from."""
        if not self.pieces:
            return self.whole
        return self._place(start)[0], self._place(end - 1)[1]

    def parts(self, start: int, end: int) -> list[tuple[int, int]]:
        """Where ``text[start:end]`` came from, stretch by stretch: a secret found across pieces that
        stand apart in the source (two text nodes of an XML document) is masked in each of them,
        never over the markup between (nor over a separator piece: a tag read as a space)."""
        if not self.pieces:
            return [self.whole]
        index = max(0, bisect_right(self.starts, start) - 1)
        found: list[tuple[int, int]] = []
        while index < len(self.pieces) and self.pieces[index][0] < end:
            dstart, sstart, dlen, slen = self.pieces[index]
            index += 1
            low, high = max(start, dstart), min(end, dstart + dlen)
            if low >= high or (dlen != slen and self.text[dstart : dstart + dlen].isspace()):
                continue
            exact = dlen == slen
            part = (sstart + low - dstart, sstart + high - dstart) if exact else (sstart, sstart + slen)
            if found and found[-1][1] == part[0]:
                found[-1] = (found[-1][0], part[1])
            else:
                found.append(part)
        return found

    @cached_property
    def starts(self) -> list[int]:
        """Where each piece starts in :attr:`text` (made once: a view with many pieces and many
        secrets found in it is mapped back in time linear in both, 44 s for 300 kB before)."""
        return [piece[0] for piece in self.pieces]

    def _place(self, index: int) -> tuple[int, int]:
        dstart, sstart, dlen, slen = self.pieces[max(0, bisect_right(self.starts, index) - 1)]
        if dlen == slen:
            at = sstart + index - dstart
            return at, at + 1
        return sstart, sstart + slen


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    run = rf"[A-Za-z0-9+/_-]{{{BASE64_MIN},}}"
    return {
        "base64": re.compile(
            rf"(?<![\w+/-]){run}={{0,2}}(?:\r?\n[A-Za-z0-9+/_-]{{4,}}={{0,2}})*(?![\w+/=-])"
        ),
        "percent": re.compile(r"%[0-9A-Fa-f]{2}"),
        # (also after a literal's ``0x``: ``0x4150495f…``)
        "hex": re.compile(r"(?:(?<![0-9A-Za-z])|(?<=\b0x)|(?<=\b0X))(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Za-z])"),
        # (a mask already in the value is part of it: read without it, a command would lose its last
        # word, and a second scrub judge another one)
        "parameter": re.compile(
            r"(?<![\w.\[\]-])[\w.\[\]-]{1,128}=(?P<value>(?:[^&\s\"'<>)}\]]|<secret:[0-9a-f]{8}>)*"
            r"%[0-9A-Fa-f]{2}(?:[^&\s\"'<>)}\]]|<secret:[0-9a-f]{8}>)*)"
        ),
        "percent-run": re.compile(r"(?:%[0-9A-Fa-f]{2})+"),
        "tag": re.compile(r"</?(?!secret:[0-9a-f]{8}>)[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>"),
        # JSON's escapes, ``\xNN`` and ``\NNN`` (octal: Python bytes, C strings, ``printf``, the shell's
        # ``$'…'``)
        # (also a Java properties key's ``\ ``, ``\:``, ``\=``: ``app.secret\ key=X``)
        "escape": re.compile(r"\\(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[0-3][0-7]{2}|[nrtbf\"'/\\ :=])"),
        "entity": re.compile(r"&(?:quot|amp|lt|gt|apos|#\d{1,7}|#x[0-9A-Fa-f]{1,6});"),
        # quoted-printable (mail, MIME parts): an encoded ``=`` says so (a line ending in ``=`` alone
        # does not: base64's padding)
        "qp-run": re.compile(r"=\r?\n|(?:=[0-9A-F]{2})+"),
        # string literals joined by ``+`` (``"sk-" + "proj-…"``, ``'ghp_' + '…'``): one string in code
        "joined": re.compile(r"([\"'])[ \t]*\+[ \t]*(?:\r?\n[ \t]*)?\1"),
        # a literal inside an f-string's braces (``f"Bearer {'X'}"``): the literal, as the string holds it
        "braced": re.compile(r"\{'[^'\n{}]{1,4096}'\}|\{\"[^\"\n{}]{1,4096}\"\}"),
        # how a terminal or a typesetter writes text: colours (ANSI escape sequences), characters of
        # no width inside words, full-width ASCII (U+FF01 to U+FF5E) and spaces of other widths
        "terminal": re.compile(
            r"\x1b\[[0-9;?]{0,32}[A-Za-z]|[\u200b-\u200d\u2060\ufeff\u00ad]"
            r"|[\uff01-\uff5e\u00a0\u2000-\u200a\u202f\u3000]+"
        ),
    }


def views(text: str) -> Iterator[View]:
    """Every encoded part of ``text``, decoded."""
    patterns = _patterns()
    for match in patterns["base64"].finditer(text):
        yield from _base64(match.group(), match.start())
    for match in patterns["hex"].finditer(text):  # text written as hex digits (``xxd -p``)
        decoded = _hex_text(match.group())
        if decoded is not None:
            yield View(decoded, match.span())
    if patterns["percent"].search(text):
        yield from _unescaped(text, _percent)
        for value in patterns["parameter"].finditer(text):  # each value of a query or form on its own
            decoded, pieces = _percent(value["value"])
            start = value.start("value")
            yield View(decoded, value.span("value"), tuple((d, s + start, dl, sl) for d, s, dl, sl in pieces))
    if patterns["escape"].search(text):
        yield from _unescaped(text, _escape)
    if patterns["tag"].search(text) or patterns["entity"].search(text):
        yield from _unescaped(text, _markup)
    if "=3D" in text:
        yield from _unescaped(text, _quoted_printable)
    if "+" in text and patterns["joined"].search(text):
        yield from _unescaped(text, _joined)
    if ("{'" in text or '{"' in text) and patterns["braced"].search(text):
        yield from _unescaped(text, _braced)
    if not text.isascii() or "\x1b" in text:
        yield from _unescaped(text, _plain)


def _base64(run: str, start: int) -> Iterator[View]:
    whole = (start, start + len(run))
    decoded = decode_base64(run)
    if decoded is not None:
        yield View(decoded, whole)
        return
    if "\n" in run:  # lines that are not one base64 text: each line on its own
        offset = start
        for line in run.split("\n"):
            piece = line.rstrip("\r")
            if len(piece) >= BASE64_MIN and (decoded := decode_base64(piece)) is not None:
                yield View(decoded, (offset, offset + len(piece)))
            offset += len(line) + 1


def decode_base64(run: str) -> str | None:
    """The text ``run`` encodes (standard or URL-safe base64, gzip or zlib inside), or None when it
    is not base64 of UTF-8 text."""
    body = run.replace("\r", "").replace("\n", "").rstrip("=")
    urlsafe = "-" in body or "_" in body
    if (urlsafe and ("+" in body or "/" in body)) or len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        data = base64.b64decode(padded, altchars=b"-_" if urlsafe else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    data = _inflated(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _utf16_text(data)
    return text if _is_text(text) else _utf16_text(data)


def _utf16_text(data: bytes) -> str | None:
    """The text of UTF-16 ``data`` (PowerShell's ``-EncodedCommand`` is base64 of UTF-16LE, Windows
    writes files with a byte order mark), or None: a byte order mark, or half the bytes NUL where
    ASCII text's zero bytes stand (every second byte, first or second), says UTF-16."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec = "utf-16"
    elif len(data) < 8 or len(data) % 2:
        return None
    elif data[1::2].count(0) * 4 >= len(data) * 3 // 2:
        codec = "utf-16-le"
    elif data[0::2].count(0) * 4 >= len(data) * 3 // 2:
        codec = "utf-16-be"
    else:
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    return text if _is_text(text) else None


def _hex_text(run: str) -> str | None:
    """The text a run of hex digits encodes, or None (a digest, an id: not UTF-8 text)."""
    try:
        text = bytes.fromhex(run).decode("utf-8")
    except ValueError:
        return None
    return text if _is_text(text) else None


#: Compressed data that says what it is by its first bytes, and its decompressor (bzip2, xz).
_COMPRESSED: tuple[tuple[bytes, Callable[[], bz2.BZ2Decompressor | lzma.LZMADecompressor]], ...] = (
    (b"BZh", bz2.BZ2Decompressor),
    (b"\xfd7zXZ\x00", lzma.LZMADecompressor),
)


def _inflated(data: bytes) -> bytes:
    """gzip, zlib, bzip2 or xz data decompressed (at most :data:`INFLATE_LIMIT` bytes); other data as
    it is."""
    for magic, decompressor in _COMPRESSED:
        if data.startswith(magic):
            try:
                return decompressor().decompress(data, INFLATE_LIMIT)
            except (OSError, EOFError, ValueError, lzma.LZMAError):
                return data
    if data[:2] == b"\x1f\x8b":
        wbits = 31
    elif len(data) > 2 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0:
        wbits = 15
    else:
        return data
    try:
        return zlib.decompressobj(wbits).decompress(data, INFLATE_LIMIT)
    except zlib.error:
        return data


#: Characters of readable text that are not printable: tab, line ends, a terminal's escape (colours),
#: spaces of other widths and characters of no width.
_TEXT_CONTROLS = frozenset("\t\r\n\x1b\u00a0\u00ad\u200b\u200c\u200d\u2060\ufeff\u202f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


def _is_text(text: str) -> bool:
    """Readable text: at least four characters, no control character but tab, line ends and
    :data:`_TEXT_CONTROLS` (or NULs between words, as SASL PLAIN's message and a command line hold)."""
    if len(text) < 4:
        return False
    if text.isprintable() or all(c.isprintable() or c in _TEXT_CONTROLS for c in text):
        return True
    # SASL PLAIN's ``[authzid]\0user\0password`` (``AUTH PLAIN <base64>``), a process's command line
    # (``/proc/PID/cmdline``: each word ends in a NUL): NULs between printable words (not every second
    # character: that is UTF-16, :func:`_utf16_text`'s)
    nuls = text.count("\x00")
    return len(text) <= 4096 and 2 <= nuls <= len(text) // 3 and text.replace("\x00", "").isprintable()


def _unescaped(text: str, decoder: Callable[[str], tuple[str, list[Piece]]]) -> Iterator[View]:
    decoded, pieces = decoder(text)
    if decoded != text:
        yield View(decoded, (0, len(text)), tuple(pieces))


def _decode_runs(
    text: str, pattern: re.Pattern[str], decode: Callable[[str], str]
) -> tuple[str, list[Piece]]:
    """``text`` with every match of ``pattern`` replaced by ``decode`` of it, and the pieces."""
    parts: list[str] = []
    pieces: list[Piece] = []
    at = size = 0
    for match in pattern.finditer(text):
        plain = match.start() - at
        if plain:
            parts.append(text[at : match.start()])
            pieces.append((size, at, plain, plain))
            size += plain
        decoded = decode(match.group())
        if decoded:
            parts.append(decoded)
            pieces.append((size, match.start(), len(decoded), match.end() - match.start()))
            size += len(decoded)
        at = match.end()
    if at < len(text):
        parts.append(text[at:])
        pieces.append((size, at, len(text) - at, len(text) - at))
    return "".join(parts), pieces


def _percent(text: str) -> tuple[str, list[Piece]]:
    return _decode_runs(text, _patterns()["percent-run"], lambda run: unquote(run, errors="replace"))


def _quoted_printable(text: str) -> tuple[str, list[Piece]]:
    """Quoted-printable decoded: soft line breaks (``=`` at a line's end) joined, ``=XX`` bytes read
    as UTF-8."""
    return _decode_runs(text, _patterns()["qp-run"], _qp_run)


def _joined(text: str) -> tuple[str, list[Piece]]:
    """``text`` with string literals joined by ``+`` written as one (the quotes and ``+`` between
    them dropped): a token split over literals is whole again."""
    return _decode_runs(text, _patterns()["joined"], lambda run: "")


def _braced(text: str) -> tuple[str, list[Piece]]:
    """``text`` with each literal inside an f-string's braces written as its text (``f"Bearer
    {'X'}"`` reads ``f"Bearer X"``)."""
    return _decode_runs(text, _patterns()["braced"], lambda run: run[2:-2])


def _plain(text: str) -> tuple[str, list[Piece]]:
    """``text`` as a reader sees it on a terminal: colours dropped, characters of no width dropped,
    full-width ASCII as ASCII and every other space a space (character for character)."""
    return _decode_runs(text, _patterns()["terminal"], _plain_run)


def _plain_run(run: str) -> str:
    first = run[0]
    if first == "\x1b" or first in "\u200b\u200c\u200d\u2060\ufeff\u00ad":
        return ""
    return "".join(chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else " " for c in run)


def _qp_run(run: str) -> str:
    if run[1:2] in ("\r", "\n"):
        return ""
    return bytes.fromhex(run.replace("=", "")).decode("utf-8", errors="replace")


#: Tags that end a line of the text they mark up, or start one (a block's opening tag: the text of
#: ``<pre>key: |`` starts its line, so a YAML document written in a ``<pre>`` keeps its indentation).
_LINE_TAGS = re.compile(r"</?(?:p|div|li|tr|pre|h\d|blockquote)(?:\s[^<>]*)?>|<br\s*/?>", re.I)
#: Tags of code inside its line (``<pre><code>``): no space of their own.
_CODE_TAGS = re.compile(r"</?(?:code|kbd|samp|tt)(?:\s[^<>]*)?>", re.I)


def _markup(text: str) -> tuple[str, list[Piece]]:
    """The text content of HTML or XML: tags removed (block ends as line ends), entities decoded."""
    pattern = re.compile(f"{_patterns()['tag'].pattern}|{_patterns()['entity'].pattern}")
    return _decode_runs(text, pattern, _tag_or_entity)


def _tag_or_entity(token: str) -> str:
    """A block's end is a line end, any other tag a space: two text nodes (``<AccessKeyId>K</…>
    <SecretAccessKey>S</…>``) stay two words, as a reader of the document sees them."""
    if token.startswith("<"):
        if _LINE_TAGS.fullmatch(token):
            return "\n"
        return "" if _CODE_TAGS.fullmatch(token) else " "
    import html  # (on the first entity: its table of names takes a millisecond to load)

    return html.unescape(token)


def unescape(text: str) -> tuple[str, list[Piece]]:
    """``text`` with its JSON (and YAML double-quoted) backslash escapes and ``\\xNN`` escapes
    decoded, and the pieces."""
    return _decode_runs(text, _patterns()["escape"], _one)


_escape = unescape


_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _one(escape: str) -> str:
    if escape[1] in "ux":
        return chr(int(escape[2:], 16))
    if escape[1] in "0123":
        return chr(int(escape[1:], 8))
    return _SIMPLE.get(escape[1], escape[1])
