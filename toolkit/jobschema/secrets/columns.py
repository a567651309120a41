"""Secrets by column: tables whose header names a credential, and values given by position to names
listed together.

- a CSV, TSV, ``;``-separated or Markdown table (``username,password`` then ``bob,X``; ``| user |
  password |``): the cell under a credential's column in every row after the header, up to the first
  row with another number of cells;
- SQL's ``INSERT INTO users (name, password) VALUES ('bob', 'X'), (…)``: the value at the column's
  place in each row;
- an unpacking assignment (``user, password = "bob", "X"``, Go's ``:=``): the value at the name's
  place.

Linear: each line is split once (a header is a line of short names, one a credential's), a row once.
"""

from __future__ import annotations

import re
from functools import cache

from jobschema.secrets.names import is_secret_name
from jobschema.secrets.values import plausible

Span = tuple[int, int, bool]

#: The longest line read as a table's header or row.
LONGEST_ROW = 8192
#: A header's cell: a name (``password``, ``api_key``, ``"db.password"``); in a Markdown table or in
#: quotes, up to three words (``| User Name |``, ``"API Key"``).
_HEADER_CELL = re.compile(r"[ \t]*[A-Za-z_][\w.-]{0,63}[ \t]*")
_WORDS_CELL = re.compile(r"[ \t]*([\"']?)[A-Za-z_][\w.-]{0,31}(?: [\w.-]{1,31}){0,2}\1[ \t]*")
#: A Markdown table's line under its header (``|---|:--:|``).
_RULE = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|?)+[ \t]*")
_SEPARATORS = ("\t", "|", ",", ";")


def spans(text: str) -> list[Span]:
    """The cells, SQL values and unpacked values of ``text`` that hold a credential."""
    found: list[Span] = []
    if "\n" in text:
        found += _tables(text)
    if "(" in text and "INSERT" in text.upper():
        found += _inserts(text)
    if "," in text and "=" in text:
        found += _unpacked(text)
    if "kty" in text:
        found += _key_members(text)
    return found


#: A YAML line giving a JSON Web Key its type (``kty: RSA``, ``- kty: oct``): the indentation its
#: members share.
_KTY_LINE = re.compile(r"(?m)^(?P<indent>[ \t]{0,64})(?P<item>-[ \t]+)?[\"']?kty[\"']?[ \t]*:[^\n]{0,64}$")
#: The lines of one mapping after its ``kty`` line that are looked at for its private members.
KEY_MEMBER_LINES = 16


def _key_members(text: str) -> list[Span]:
    """A JSON Web Key written as YAML in a text that is no YAML document (a script, a log, lines of
    several formats): the private members (``d``, ``k``, …) of the mapping holding ``kty``, the lines
    of the same indentation around it (a parsed document's are judged as places are)."""
    from jobschema.secrets.table import JWK_PRIVATE_MEMBERS

    found: list[Span] = []
    for match in _KTY_LINE.finditer(text):
        indent = len(match["indent"]) + len(match["item"] or "")
        member = _member(indent)
        at = text.find("\n", match.end()) + 1 if match.end() < len(text) else len(text)
        start = text.rfind("\n", 0, max(0, match.start() - 1)) + 1 if not match["item"] else match.start()
        for _ in range(KEY_MEMBER_LINES):  # the lines before the ``kty`` line of a mapping, then after
            if start <= 0 or match["item"]:
                break
            start = text.rfind("\n", 0, start - 1) + 1
        for line_start in _line_starts(text, start, at, KEY_MEMBER_LINES):
            line = member.match(text, line_start)
            ends = text[line.end() : line.end() + 1] in ("", "\n", "\r", '"', "'") if line else False
            if line is not None and ends and line["name"] in JWK_PRIVATE_MEMBERS:
                found.append((line.start("value"), line.end("value"), False))
    return found


@cache
def _member(indent: int) -> re.Pattern[str]:
    """A YAML member of one or two letters at ``indent`` and its plain or quoted value."""
    return re.compile(
        rf"[ \t]{{{indent}}}[\"']?(?P<name>\w{{1,2}})[\"']?[ \t]*:[ \t]*[\"']?(?P<value>[\w+/=.-]{{8,8192}})"
    )


def _line_starts(text: str, start: int, after: int, count: int) -> list[int]:
    """The starts of the lines from ``start`` up to ``after``, then of ``count`` lines more."""
    starts, at = [], start
    while at < len(text) and (at < after or count > 0):
        starts.append(at)
        if at >= after:
            count -= 1
        end = text.find("\n", at)
        if end < 0:
            break
        at = end + 1
    return starts


def _lines(text: str) -> list[tuple[int, str]]:
    lines, at = [], 0
    for line in text.split("\n"):
        lines.append((at, line[:-1] if line.endswith("\r") else line))
        at += len(line) + 1
    return lines


def _cells(line: str, separator: str) -> list[tuple[int, int]]:
    """Where each cell of ``line`` stands (a Markdown row's outer bars open and close no cell; a
    quoted CSV cell may hold the separator)."""
    cells: list[tuple[int, int]] = []
    start, at, quote = 0, 0, ""
    while at < len(line):
        char = line[at]
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'" and not line[start:at].strip():
            quote = char
        elif char == separator:
            cells.append((start, at))
            start = at + 1
        at += 1
    cells.append((start, len(line)))
    if separator == "|":
        if cells and not line[cells[0][0] : cells[0][1]].strip():
            cells = cells[1:]
        if cells and not line[cells[-1][0] : cells[-1][1]].strip():
            cells = cells[:-1]
    return cells


def _trimmed(line: str, start: int, end: int) -> tuple[int, int]:
    """A cell without its spaces and quotes."""
    while start < end and line[start] in " \t":
        start += 1
    while end > start and line[end - 1] in " \t":
        end -= 1
    if end - start >= 2 and line[start] == line[end - 1] and line[start] in "\"'":
        return start + 1, end - 1
    return start, end


def _header(line: str) -> tuple[str, list[tuple[int, str]]] | None:
    """The separator of a header line and its credential columns (index, name), or None."""
    if len(line) > LONGEST_ROW:
        return None
    for separator in _SEPARATORS:
        if separator not in line:
            continue
        cells = _cells(line, separator)
        if len(cells) < 2 or not all(_name_cell(line, s, e, separator) for s, e in cells):
            continue
        names = [line[slice(*_trimmed(line, s, e))] for s, e in cells]
        secret = [(index, name) for index, name in enumerate(names) if is_secret_name(name)]
        # (a row of names only: a header's cells are names, its credential's columns say so)
        if secret and len(secret) < len(names):
            return separator, secret
        return None
    return None


def _name_cell(line: str, start: int, end: int, separator: str) -> bool:
    if _HEADER_CELL.fullmatch(line, start, end):
        return True
    words = _WORDS_CELL.fullmatch(line, start, end)
    return words is not None and (separator == "|" or words[1] != "")


def _tables(text: str) -> list[Span]:
    found: list[Span] = []
    lines = _lines(text)
    index = 0
    while index < len(lines):
        _, line = lines[index]
        index += 1
        header = _header(line)
        if header is None:
            continue
        separator, columns = header
        width = len(_cells(line, separator))
        if separator == "|" and index < len(lines) and _RULE.fullmatch(lines[index][1]):
            index += 1
        while index < len(lines):
            row_offset, row = lines[index]
            cells = _cells(row, separator) if len(row) <= LONGEST_ROW else []
            if len(cells) != width:
                break
            index += 1
            for column, name in columns:
                start, end = _trimmed(row, *cells[column])
                if end > start and plausible(row[start:end], name, True):
                    found.append((row_offset + start, row_offset + end, False))
    return found


@cache
def _insert() -> re.Pattern[str]:
    return re.compile(
        r"(?i:insert)[ \t\r\n]+(?i:into)[ \t\r\n]+[\w.`\"\[\]]{1,256}[ \t\r\n]*"
        r"\((?P<columns>[^()]{1,2048})\)[ \t\r\n]*(?i:values)[ \t\r\n]*"
    )


#: One value of a SQL row or of an unpacking: quoted (``''`` and ``\\'`` inside), or a bare word.
_VALUE = re.compile(
    r"[ \t\r\n]*(?:'(?P<sq>(?:[^'\\\n]|''|\\.){0,4096})'|\"(?P<dq>(?:[^\"\\\n]|\\.){0,4096})\""
    r"|(?P<bare>[^\s,()'\"]{1,256}))[ \t\r\n]*"
)


def _inserts(text: str) -> list[Span]:
    found: list[Span] = []
    for match in _insert().finditer(text):
        names = [name.strip(' \t\r\n`"[]') for name in match["columns"].split(",")]
        columns = {index: name for index, name in enumerate(names) if is_secret_name(name)}
        if not columns:
            continue
        at = match.end()
        while text.startswith("(", at):  # each row: ``('bob', 'X')``, then ``, (…)``
            at, row = _row(text, at + 1, ")")
            for index, (start, end) in enumerate(row):
                if index in columns and plausible(text[start:end], columns[index], True):
                    found.append((start, end, False))
            if not text.startswith(")", at):
                break
            after = re.compile(r"\)[ \t\r\n]*,[ \t\r\n]*").match(text, at)
            if after is None:
                break
            at = after.end()
    return found


def _row(text: str, at: int, close: str) -> tuple[int, list[tuple[int, int]]]:
    """The values of a row from ``at`` up to ``close`` (or anything else): where it stopped, and each
    value's span (a quoted value's inside)."""
    values: list[tuple[int, int]] = []
    while True:
        value = _VALUE.match(text, at)
        if value is None:
            return at, values
        group = next(g for g in ("sq", "dq", "bare") if value[g] is not None)
        values.append((value.start(group), value.end(group)))
        at = value.end()
        if not text.startswith(",", at):
            return at, values
        at += 1
        if len(values) > 256 or text.startswith(close, at):
            return at, values


#: An unpacking assignment's names and its operator (``user, password =``, ``a, b :=``).
UNPACKING = re.compile(
    # (also as an INI or TOML value in quotes: ``script = "user, password = …"``)
    r"(?m)^[ \t]{0,64}(?:[\w.-]{1,64}[ \t]{0,4}=[ \t]{0,4}[\"'])?"
    r"(?:(?:const|let|var|local)[ \t]+)?[\[(]?[ \t]{0,4}"
    r"(?P<names>[A-Za-z_][\w.]{0,31}(?:[ \t]{0,4},[ \t]{0,4}[A-Za-z_][\w.]{0,31}){1,7})[ \t]{0,4}[\])]?"
    r"[ \t]{0,4}:?=(?!=)[ \t]{0,4}[\[(]?"
)
#: How far from its line's start a name of an unpacking may stand.
UNPACKING_REACH = 400


def _unpacked(text: str) -> list[Span]:
    found: list[Span] = []
    for match in UNPACKING.finditer(text):
        names = [name.strip() for name in match["names"].split(",")]
        secret = {index: name for index, name in enumerate(names) if is_secret_name(name)}
        if not secret:
            continue
        _, row = _row(text, match.end(), "\n")
        if len(row) != len(names):
            continue
        for index, (start, end) in enumerate(row):
            quoted = start > 0 and text[start - 1] in "\"'"
            if index in secret and quoted and plausible(text[start:end], secret[index], True):
                found.append((start, end, False))
    return found
