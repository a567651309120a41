"""Argument vectors written as something other than a command line, judged as the command line they
are: a language's literals (``exec.Command("sshpass", "-p", "X")``, ``new ProcessBuilder("mysql",
"-pX")``, ``Command::new("sshpass").args(["-p", "X"])``), an audit record's fields (``a0="mysql"
a1="-pX"``), a YAML list (``args: [--api-token, X]``, ``- --db-password`` on its lines), a process's
``/proc/PID/cmdline`` (words between NULs).

The items are judged by the command reader's judge alone (:func:`commands.secret_words`), as an
argument list in a payload is: the other readers never see them joined (a line of joined items is
no ``NAME VALUE`` line). A secret is masked in its item where the judge puts it. One pass over the
text's literals and lines, each item judged in at most two windows of
:data:`~jobschema.secrets.commands.WHOLE_LIST` items: linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from jobschema.secrets.table import COMMANDS

Span = tuple[int, int, bool]

#: A string literal of code (its content the first or second group).
_LITERAL = re.compile(r"\"((?:[^\"\\\n]|\\.){0,1024})\"|'((?:[^'\\\n]|\\.){0,1024})'")
#: What stands between two literals of one vector: a comma (a call's arguments, a list's items), a
#: builder's next call (``).args([``, ``).arg(``), an audit record's next field (`` a2=``), an array's
#: opening (``, new[] {``, ``, [``).
_BETWEEN = re.compile(
    r"[ \t]*\]?[ \t]*(?:,|\)[ \t]*\.[ \t]*args?\(|[ \t]a\d{1,4}=)[ \t]*"
    r"(?:new[ \t]*\w{0,16}[ \t]*\[\][ \t]*)?[\[{]?[ \t]*"
)
#: The longest text between two literals of one vector.
_MOST_BETWEEN = 32
#: A flow list without quotes (``[--api-token, X, --verbose]``).
_FLOW = re.compile(r"\[([^\[\]\n\"'`]{3,4096})\]")
_ITEM = re.compile(r"[^,]+")
#: A word of a command line whose words end in NULs, and what ends the line's first and last items.
_NUL_WORD = re.compile(r"[^\0\n]+")
_OUTSIDE = re.compile(r"[\s\"'=]")
#: An item of a YAML block list (``- --db-password``), its value quoted or not.
_BLOCK_ITEM = re.compile(r"(?m)^[ \t]*-[ \t]+(?P<q>['\"]?)(?P<v>[^\n'\"]{1,1024}?)(?P=q)[ \t]*\r?$")

Items = list[tuple[int, int]]


def spans(text: str) -> list[Span]:
    """The secrets of the argument vectors written in ``text``."""
    found: list[Span] = []
    for items in _vectors(text):
        if _may_be_command(text, items):
            found += _judged(text, items)
    return found


def _vectors(text: str) -> Iterator[Items]:
    if "\0" in text and text.count("\0") > 1:  # (``/proc/PID/cmdline``: a NUL ends each word)
        yield from _nul_runs(text)
    if '"-' in text or "'-" in text:
        yield from _literal_runs(text)
    if "- -" in text:  # (a YAML block list: ``args:\n- --db-password\n- X``)
        yield from _block_runs(text)
    if "[" in text and (", -" in text or "[-" in text):
        for flow in _FLOW.finditer(text):
            items = _flow_items(flow)
            if len(items) > 1:
                yield items


def _judged(text: str, items: Items) -> list[Span]:
    """The secret parts of ``items``, judged as an argument list, in windows of at most
    :data:`WHOLE_LIST` items overlapping by half (every option and its value share a window)."""
    from jobschema.secrets.commands import WHOLE_LIST, secret_words

    found: list[Span] = []
    step = WHOLE_LIST // 2
    for low in range(0, max(1, len(items) - step), step):
        window = items[low : low + WHOLE_LIST]
        argv = [text[start:end] for start, end in window]
        found += [(window[i][0] + at, window[i][1], False) for i, at in secret_words(argv)]
    return found


def _nul_runs(text: str) -> Iterator[Items]:
    """The words between NULs, line by line (a line without a NUL is passed over whole)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text.find("\0", start, end) >= 0:
            items = [(m.start(), m.end()) for m in _NUL_WORD.finditer(text, start, end)]
            if len(items) > 1:
                yield _words_only(text, items)
        start = end + 1


def _words_only(text: str, items: Items) -> Items:
    """NUL-separated items without what stands around the command line: the first item from its
    last space or quote on (``{"cmd": "mysql``), the last, unless a NUL ends it, up to its first."""
    (first, first_end), (last, last_end) = items[0], items[-1]
    lead = _OUTSIDE.search(text[first:first_end][::-1])
    items[0] = (first_end - lead.start() if lead else first, first_end)
    if last_end >= len(text) or text[last_end] != "\0":
        tail = _OUTSIDE.search(text, last, last_end)
        items[-1] = (last, tail.start() if tail else last_end)
    return [item for item in items if item[0] < item[1]]


def _literal_runs(text: str) -> Iterator[Items]:
    """Runs of two or more literals with only :data:`_BETWEEN` between them: their contents' spans."""
    run: Items = []
    last_end = -1
    for literal in _LITERAL.finditer(text):
        group = 1 if literal.group(1) is not None else 2
        gap = literal.start() - last_end
        if run and not (0 <= gap <= _MOST_BETWEEN and _BETWEEN.fullmatch(text, last_end, literal.start())):
            if len(run) > 1:
                yield run
            run = []
        run.append(literal.span(group))
        last_end = literal.end()
    if len(run) > 1:
        yield run


def _block_runs(text: str) -> Iterator[Items]:
    """Runs of two or more items of a YAML block list on consecutive lines: their values' spans."""
    run: Items = []
    last_end = -1
    for item in _BLOCK_ITEM.finditer(text):
        if run and text[last_end : item.start()] not in ("\n", "\r\n"):
            if len(run) > 1:
                yield run
            run = []
        run.append(item.span("v"))
        last_end = item.end()
    if len(run) > 1:
        yield run


def _flow_items(flow: re.Match[str]) -> Items:
    """The items of a flow list, without the spaces around them."""
    items: Items = []
    for item in _ITEM.finditer(flow.group(1)):
        start, end = flow.start(1) + item.start(), flow.start(1) + item.end()
        piece = flow.string[start:end]
        start += len(piece) - len(piece.lstrip())
        end -= len(piece) - len(piece.rstrip())
        if start < end:
            items.append((start, end))
    return items


def _may_be_command(text: str, items: Items) -> bool:
    """A vector the command reader may find a credential in: an option among its items, or a tool."""
    return any(text.startswith("-", start) for start, _ in items) or any(
        text[start:end].rsplit("/", 1)[-1].lower() in _tools() for start, end in items[:2]
    )


@cache
def _tools() -> frozenset[str]:
    return frozenset(COMMANDS)
