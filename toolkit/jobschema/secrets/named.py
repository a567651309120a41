"""Secrets by name in text: a name that says credential, then the value it is given.

One rule in every syntax a name gives a value in: ``NAME=VALUE`` (shell, dotenv, query strings,
properties, ``-DNAME=VALUE``, ``--name=VALUE``), ``NAME = VALUE`` and ``NAME: VALUE`` at the start
of a line or inside ``{…}`` (INI, TOML, YAML, HTTP headers), ``NAME := VALUE`` and ``NAME => VALUE``,
``"NAME": VALUE`` with any quotes, also escaped (JSON, JavaScript, Python, JSON inside JSON), and
``<NAME>VALUE</NAME>`` (XML). Where no such syntax follows, the prose contexts of
:data:`~jobschema.secrets.table.CONTEXTS` apply (``the password is hunter2``, ``using token 8f2a…``).

Names are found from the credential stems (``pass``, ``token``, ``secret``, ``key``, ``auth``, …):
one search of a plain alternation, then only the names holding a stem are judged (by
:func:`~jobschema.secrets.names.is_secret_name`), so text without a stem costs one search.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

from jobschema.secrets.names import is_secret_name, is_secret_parameter, words
from jobschema.secrets.table import CONTEXTS, FILLERS, Context

Span = tuple[int, int, bool]

#: The stems whose occurrence starts a look for a name (folded; word-only ones need word edges).
STEMS: tuple[str, ...] = ("pass", "pwd", "secret", "token", "credential", "cookie", "sig", "key", "auth")
STEMS += ("session", "dockercfg", "dockerconfigjson", "contrasena", "passwort", "motdepasse", "identified")
#: Short stems, also found inside words (``bosAk``); the name holding them decides.
WORD_STEMS = ("ak", "sk", "otp", "pat", "pin")

_NAME_CHARS = r"[A-Za-z0-9_.$-]"


@cache
def _stem_gate() -> re.Pattern[str]:
    return re.compile("|".join((*STEMS, *WORD_STEMS)))


@cache
def _name_run() -> re.Pattern[str]:
    return re.compile(_NAME_CHARS + "+")


@cache
def _compiled(key: str) -> re.Pattern[str]:
    return re.compile(_PATTERNS[key])


_PATTERNS = {
    # after a name: the separator, then where the value starts
    "assign": r"[ \t]*(?::=|=>|=(?!=))[ \t]*",
    "colon": r"[ \t]*:(?!:)[ \t]*",
    "quoted": (
        r"\"(?P<dq>(?:[^\"\\\n]|\\.){0,4096})\"|'(?P<sq>(?:[^'\\\n]|\\.){0,4096})'"
        r"|`(?P<bq>[^`\n]{0,4096})`"
    ),
    "escaped": r"\\\"(?P<eq>(?:(?!\\\")[^\n]){0,4096})\\\"",
    "bare": r"[^\s&\"'<>;,`)\]}|\\]{1,4096}",
    "inline": r"[^\n,}\]]{1,4096}",
    "line": r"[^\r\n]{1,8192}",
    "number": r"-?\d[\d.eE+-]{0,64}(?![\w.])",
    "reference": r"^(?:\$\{?[A-Za-z_][\w.:-]*\}?|\$\(.*\)|\{\{.*\}\}|%[A-Za-z_]\w*%|<[A-Za-z_][\w -]*>)$",
    "plain-word": r"^[a-z]+[.!,]?$",
    "literal": r"^(?:null|true|false|none|nil|yes|no|~)$",
    "line-lead": r"(?:[ \t]*(?:-[ \t]+)?(?:(?:export|set|declare -x|readonly|local|ENV|ARG)[ \t]+)?)$",
    "filler-word": r"[ \t]+(?P<w>[^\s]{1,8})",
    "token": (
        r"[ \t]+(?:\"(?P<dq>[^\"\n]{1,4096})\"|'(?P<sq>[^'\n]{1,4096})'"
        r"|(?P<bare>[^\s\"',;)\]}\\]{1,4096}))"
    ),
    "pair-label": r"[\"']?\b(?:name|key|Name|Key)[\"']?[ \t]*(?::|=>|=)[ \t]*[\"']?$",
    "pair-value": r"(?<![\w.-])[\"']?(?P<name>value|Value)[\"']?[ \t]*(?::|=>|=)[ \t]*[\"']?",
    "header": r"(?i:(?:proxy-)?authorization|(?:set-)?cookie|x-[\w-]{1,64})",
}


def has_stem(text: str) -> bool:
    """True when ``text`` holds a credential stem (a name that says credential may stand in it)."""
    return _stem_gate().search(lowered(text)) is not None


def spans(text: str) -> list[Span]:
    """The values of credential names in ``text``, as ``(start, end, quoted)`` spans."""
    found: list[Span] = []
    seen: set[int] = set()
    for hit in _stem_gate().finditer(lowered(text)):
        start, end = _name_around(text, hit.start(), hit.end())
        if start in seen:
            continue
        seen.add(start)
        span = _value_of(text, start, end)
        if span is not None:
            found.append(span)
    return found


def lowered(text: str) -> str:
    """``text`` in lowercase, position for position (``str.lower`` lengthens a dotted capital I)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower() if c.isascii() else "\0" for c in text)


_NAME_SET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-")
#: How far back a name is followed from its stem.
_NAME_REACH = 128


def _name_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The run of name characters holding ``text[start:end]``."""
    low = max(0, start - _NAME_REACH)
    while start > low and text[start - 1] in _NAME_SET:
        start -= 1
    match = _name_run().match(text, end, end + _NAME_REACH)
    return start, match.end() if match else end


def _value_of(text: str, start: int, end: int) -> Span | None:
    name = text[start:end].lstrip("-$").rstrip(".")
    if not name:
        return None
    before = text[start - 1] if start else ""
    secret = is_secret_name(name) or (before in "?&" and is_secret_parameter(name))
    if not secret and not _two_words(text, start, name):
        # a word that says credential only in prose (SQL's IDENTIFIED BY 'x')
        return _context(text, end, name) if _context_word(name) else None
    return _syntax(text, start, end, name, before) or _pair(text, start, end) or _context(text, end, name)


def _pair(text: str, start: int, end: int) -> Span | None:
    """The name is the ``name`` (or ``key``) of a ``{name, value}`` pair in any syntax (YAML, JSON,
    TOML inline tables, Python reprs, text that does not parse): the pair's ``value`` is the secret."""
    if _compiled("pair-label").search(text, max(0, start - 40), start) is None:
        return None
    low, high = _item_bounds(text, start, end)
    for member in _compiled("pair-value").finditer(text, low, high):
        quoted = member.group()[-1:] in ('"', "'")
        at = member.end() - (1 if quoted else 0)
        kind = "line" if _at_line_start(text, member.start("name")) else "inline"
        return _value(text, at, kind)
    return None


def _item_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The stretch around a pair's name that belongs to its item: back to ``{`` or the ``- `` that
    starts a YAML list item, on to ``}`` or the next item (at most 512 characters either way)."""
    low = max(0, start - 512)
    back = max(text.rfind("{", low, start), text.rfind("- ", low, start), text.rfind("[", low, start))
    high = min(len(text), end + 512)
    ahead = [i for i in (text.find("}", end, high), text.find("\n- ", end, high)) if i >= 0]
    item = re.compile(r"\n[ \t]*- ").search(text, end, high)
    ahead += [item.start()] if item else []
    return (back if back >= 0 else low), min(ahead, default=high)


def _context_word(name: str) -> bool:
    found = words(name)
    return bool(found) and any(found[-1] in context.words for context in CONTEXTS)


def _two_words(text: str, start: int, name: str) -> bool:
    """``api key``, ``client secret``: the word before a name joined with it says credential."""
    match = re.search(r"([A-Za-z]{2,16})[ \t]$", text[max(0, start - 18) : start])
    return match is not None and is_secret_name(f"{match[1]}_{name}")


def _syntax(text: str, start: int, end: int, name: str, before: str) -> Span | None:
    """The value after the name in a name-value syntax, or None when none follows."""
    if before in "\"'`":
        member = _member(text, start, end, before)
        if member is not None:
            return member
    if before == "<":
        return _element(text, start, end, name)
    assign = _compiled("assign").match(text, end)
    if assign is not None:
        spaced = assign.group() != "=" and assign.group().strip() == "="
        whole_line = spaced and _at_line_start(text, start)
        return _value(text, assign.end(), "line" if whole_line else "bare")
    colon = _compiled("colon").match(text, end)
    if colon is not None and (_at_line_start(text, start) or _inline(text, start)):
        header = _compiled("header").fullmatch(name) is not None
        return _colon_value(text, start, colon.end(), header)
    return None


def _member(text: str, start: int, end: int, quote: str) -> Span | None:
    """``"NAME": VALUE`` (also ``\\"NAME\\": \\"VALUE\\"`` and ``'NAME' => VALUE``)."""
    escaped = start >= 2 and text[start - 2] == "\\"
    closing = "\\" + quote if escaped else quote
    if not text.startswith(closing, end):
        return None
    after = end + len(closing)
    sep = re.compile(r"[ \t]*(?::|=>|=)[ \t]*").match(text, after)
    if sep is None:
        return None
    at = sep.end()
    if escaped:
        match = _compiled("escaped").match(text, at)
        return _span(text, match.start("eq"), match.end("eq")) if match else None
    number = _compiled("number").match(text, at)
    if number is not None:
        return (number.start(), number.end(), True)
    return _value(text, at, "bare")


def _element(text: str, start: int, end: int, name: str) -> Span | None:
    """``<NAME attr="…">VALUE</NAME>``."""
    close = text.find(">", end, end + 512)
    if close < 0 or text[close - 1] == "/":
        return None
    stop = text.find(f"</{name}", close, close + 8192)
    return _span(text, close + 1, stop) if stop > close + 1 else None


def _colon_value(text: str, start: int, at: int, header: bool) -> Span | None:
    if text[at : at + 1] in ("|", ">") and re.match(r"[|>][+-]?[ \t]*(?:#.*)?\r?\n", text[at:]):
        return _block(text, start, at)
    if header:  # an HTTP header line: the whole value, scheme included
        match = re.compile(r"[^\r\n\"'\\]{1,8192}").match(text, at)
        return _span(text, at, match.end()) if match else None
    return _value(text, at, "line" if _at_line_start(text, start) else "inline")


def _block(text: str, start: int, at: int) -> Span | None:
    """A YAML block scalar (``token: |`` and the more indented lines after it)."""
    indent = start - (text.rfind("\n", 0, start) + 1)
    first = text.find("\n", at) + 1
    position = first
    end = first
    while position < len(text):
        newline = text.find("\n", position)
        line_end = len(text) if newline < 0 else newline
        line = text[position:line_end]
        if line.strip() and len(line) - len(line.lstrip(" ")) <= indent:
            break
        if line.strip():
            end = line_end
        position = line_end + 1
    return _span(text, first, end) if end > first else None


def _value(text: str, at: int, kind: str) -> Span | None:
    quoted = _compiled("quoted").match(text, at)
    if quoted is not None:
        group = next(g for g in ("dq", "sq", "bq") if quoted[g] is not None)
        return _span(text, quoted.start(group), quoted.end(group))
    if text[at : at + 1] in ("{", "["):
        return None
    match = _compiled(kind).match(text, at)
    if match is None:
        return None
    value_end = match.end()
    if kind in ("line", "inline"):
        comment = re.search(r"[ \t]#", text[at:value_end])
        value_end = at + comment.start() if comment else value_end
    return _span(text, at, value_end)


def _span(text: str, start: int, end: int) -> Span | None:
    """The value's span without surrounding space, quotes or a trailing ``,``/``;``; None for a value
    that is no credential (empty, a literal, a reference to one held elsewhere)."""
    while start < end and text[start] in " \t\r\n":
        start += 1
    while start < end and text[end - 1] in " \t\r\n,;\\":
        end -= 1
    if start >= end:
        return None
    value = text[start:end]
    if _compiled("literal").match(value.lower()) or _compiled("reference").match(value):
        return None
    if value.startswith("<secret:"):
        return None
    return (start, end, False)


def _at_line_start(text: str, start: int) -> bool:
    line = text.rfind("\n", 0, start) + 1
    return _compiled("line-lead").fullmatch(text, line, start) is not None


def _inline(text: str, start: int) -> bool:
    """After ``{``, ``,``, ``(``, ``;`` or an opening quote (a YAML flow mapping, a header in quotes)."""
    position = start - 1
    while position >= 0 and text[position] in " \t":
        position -= 1
    return position >= 0 and text[position] in "{,(;\"'"


# --- prose ----------------------------------------------------------------------------------------


def _context(text: str, end: int, name: str) -> Span | None:
    """``the password is hunter2``, ``using token 8f2a9c…``: the value after fillers, if it passes."""
    context = _context_of(name)
    position = end
    for _ in range(3):
        filler = _compiled("filler-word").match(text, position)
        if filler is None or filler["w"].lower().strip("\"'") not in FILLERS:
            break
        position = filler.end()
    if text[position : position + 1] in (":", "="):
        position += 1
    token = _compiled("token").match(text, position)
    if token is None:
        return None
    group = next(g for g in ("dq", "sq", "bare") if token[g] is not None)
    value = token[group].rstrip(".")
    if not _passes(context, value):
        return None
    return _span(text, token.start(group), token.start(group) + len(value))


def _context_of(name: str) -> Context:
    last = words(name)[-1] if words(name) else ""
    return next((c for c in CONTEXTS if last in c.words), CONTEXTS[-1])


def _passes(context: Context, value: str) -> bool:
    if len(value) < context.length or _compiled("reference").match(value):
        return False
    if context.plain_ok:
        return _compiled("plain-word").match(value) is None and _classes(value) >= 1
    return looks_random(value, context.length, context.entropy)


def _classes(value: str) -> int:
    kinds = (str.islower, str.isupper, str.isdigit)
    found = sum(any(test(c) for c in value) for test in kinds)
    return found + any(not c.isalnum() and c not in "-_." for c in value)


def looks_random(value: str, length: int, entropy: float) -> bool:
    """A token that looks generated: long enough, two classes of characters or more, enough bits
    per character, and not made of words (``default-token-x1`` is a name, ``8f2aK9x…`` is not)."""
    if len(value) < length or _classes(value) < 2:
        return False
    counts = Counter(value)
    bits = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return bits >= entropy and not _wordy(value)


def _wordy(value: str) -> bool:
    """Mostly runs of four or more lowercase letters (a name such as ``default-token-x1``)."""
    runs = re.findall(r"[a-z]{4,}", value)
    return sum(len(run) for run in runs) * 2 >= len(value)


def iter_names(text: str) -> Iterator[str]:
    """The credential names in ``text`` (for the table's documentation and tests)."""
    for hit in _stem_gate().finditer(lowered(text)):
        start, end = _name_around(text, hit.start(), hit.end())
        name = text[start:end].lstrip("-$")
        if is_secret_name(name):
            yield name
