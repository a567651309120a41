"""Secrets by place in text that is itself a document: JSON, YAML (one or many documents,
Kubernetes manifests), ``.netrc``, ``.pgpass`` and Postfix ``sasl_passwd`` lines.

A JSON or YAML text is parsed (YAML's composer keeps where each value stands, so a secret is masked
exactly where it is) and its members are judged by the same place rules as a payload's
(:func:`~jobschema.secrets.places.is_secret_place`): a credential-like name, the ``value`` of a
``{name, value}`` pair, a Kubernetes Secret's ``data`` and ``stringData``, an argument list's
credential option. Key-value syntaxes without places of their own (INI, TOML, dotenv, properties)
are the named-value reader's. A text that does not parse is left to the other readers.

Bounded: texts over :data:`~jobschema.secrets.table.DOCUMENT_LIMIT`, nested deeper than
:data:`MAX_NESTING` or indented deeper than :data:`MAX_INDENT` are not parsed; each node is visited
at most twice (aliases do not multiply the walk).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jobschema.secrets import columns
from jobschema.secrets.commands import may_hold_command
from jobschema.secrets.encodings import Piece, View, unescape
from jobschema.secrets.named import has_stem
from jobschema.secrets.places import is_secret_place
from jobschema.secrets.table import DOCUMENT_LIMIT
from jobschema.secrets.values import PGPASS, PGPASS_QUOTED, password_like, plausible

Span = tuple[int, int, bool]

MAX_NESTING = 64
MAX_INDENT = 512
_YAML_LINE = re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?[\"']?[\w.$/-]{1,128}[\"']?[ \t]*:(?:[ \t]|$)")
_NETRC = re.compile(r"(?<!\S)(?:machine[ \t]+\S+|default)(?!\S)")
_NETRC_SECRET = re.compile(r"(?<!\S)(?:password|passwd|account)[ \t\r\n]+(?P<value>[^\s]{1,4096})")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: A line of Postfix's ``sasl_passwd`` (``[smtp.x.com]:587 user@x.com:PASSWORD``): a host in brackets,
#: maybe a port, a user, then the password after the ``:``.
_SASL_PASSWD = re.compile(
    r"(?m)^[ \t]{0,64}\[[\w.-]{1,253}\](?::\d{1,5})?[ \t]+[^\s:]{1,255}:(?P<value>\S{1,4096})[ \t]*\r?$"
)


#: The same line as a quoted string (a JSON or YAML value, a shell word): ``"[smtp.x.com]:587 bob:X"``.
_SASL_PASSWD_QUOTED = re.compile(
    r"[\"']\[[\w.-]{1,253}\](?::\d{1,5})?[ \t]+[^\s:\"']{1,255}:(?P<value>[^\s\"'\\]{1,4096})(?:\\n)?[\"']"
)


def read(text: str) -> tuple[list[Span], list[View]]:
    """The secrets that documents in ``text`` hold by place, and the documents inside their string
    values (a YAML in a block scalar, JSON in a string), to be read on their own."""
    found = _line_formats(text)
    if has_stem(text):  # (a table's credential column, an SQL row, an unpacking assignment)
        found += columns.spans(text)
    quoted = _quoted_lines(text) if "\\" in text else []
    if _parsable(text):
        parsed = _structured(text)
        if parsed is not None:
            return found + parsed[0], parsed[1] + quoted
    return found, (_embedded(text) if "{" in text or "[" in text else []) + quoted


#: A line giving a name a quoted value that holds escapes (an INI or TOML ``script = "line\\nline"``,
#: ``cmd = "setx K \\"X\\""``): the quote opens at the first ``=`` or ``:`` and closes the line.
_QUOTED_LINE = re.compile(r"(?m)^[^\n\"=:]{1,256}[=:][ \t]*\"(?P<body>[^\n]{1,8192})\"[ \t,;]*\r?$")


def _quoted_lines(text: str) -> list[View]:
    """The values of such lines, unescaped, each a text of its own (a config file's lines written in
    one quoted value: ``script = "requirepass X\n"``), mapped back escape by escape. One try a line."""
    if not has_stem(text):
        return []
    views: list[View] = []
    for match in _QUOTED_LINE.finditer(text):
        body = match["body"]
        if "\\" not in body:
            continue
        decoded, pieces = unescape(body)
        start = match.start("body")
        views.append(
            View(decoded, match.span("body"), tuple((d, s + start, dl, sl) for d, s, dl, sl in pieces))
        )
        if len(views) >= EMBEDDED:
            break
    return views


#: How many documents embedded in one text are looked for (``… INFO applying {"kind": "Secret", …}``).
EMBEDDED = 64
_EMBEDDED_START = re.compile(r"[{\[][ \t\r\n]*[\"'{\[]")  # (``['mysql', '-pX']``: a list in code)


def _embedded(text: str) -> list[View]:
    """JSON documents that start inside a text that is none (a log line's tail, a line of a script):
    each, from its opening bracket to the one that closes it, a text of its own to be read as a
    document. Only where a credential's stem or a command stands; linear (each stretch is scanned
    once: the next document is looked for after the one found)."""
    if "{" not in text and "[" not in text:
        return []
    match = _EMBEDDED_START.search(text)
    if match is None or not (has_stem(text) or "kty" in text or may_hold_command(text)):
        return []
    views: list[View] = []
    at = match.start()
    while len(views) < EMBEDDED:
        match = _EMBEDDED_START.search(text, at)
        if match is None:
            break
        end = _closing(text, match.start())
        if end is None:
            break
        if match.start() > 0 or end < len(text):
            views.append(
                View(
                    text[match.start() : end],
                    (match.start(), end),
                    ((0, match.start(), end - match.start(), end - match.start()),),
                )
            )
        at = end
    return views


def _closing(text: str, start: int) -> int | None:
    """Where the bracket at ``start`` is closed (after it), strings in double quotes skipped; None
    when it is not."""
    depth = 0
    quoted = False
    index = start
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _parsable(text: str) -> bool:
    if len(text) > DOCUMENT_LIMIT or not _looks_structured(text):
        return False
    # (a name of another script written in ``\\uXXXX`` escapes: ``{"\\u043f…": …}``)
    named = has_stem(text) or ("\\u" in text and has_stem(unescape(text)[0]))
    named = named or "kty" in text  # (a JSON Web Key: its private members, JWK_PRIVATE_MEMBERS)
    return (named or may_hold_command(text)) and _shallow(text)


def _line_formats(text: str) -> list[Span]:
    found: list[Span] = []
    if _NETRC.search(text):
        found += [(m.start("value"), m.end("value"), False) for m in _NETRC_SECRET.finditer(text)]
    if "]" in text and "[" in text:
        found += [
            (m.start("value"), m.end("value"), False)
            for pattern in (_SASL_PASSWD, _SASL_PASSWD_QUOTED)
            for m in pattern.finditer(text)
            if password_like(m["value"])
        ]
    if ":" in text:
        found += [
            (m.start("value"), m.end("value"), False)
            for m in PGPASS.finditer(text)
            if password_like(m["value"])  # (``10:30:00:12:45``: a time, no .pgpass line)
        ]
        if "'" in text or '"' in text:
            found += [
                (m.start("value"), m.end("value"), False)
                for m in PGPASS_QUOTED.finditer(text)
                if password_like(m["value"])
            ]
    return found


def _looks_structured(text: str) -> bool:
    head = text.lstrip()[:1]
    return head in ("{", "[") or (
        ("\n" in text or text.startswith("---")) and _YAML_LINE.search(text) is not None
    )


def _holds_text(value: str) -> bool:
    """A string value that is a text of its own: a document, or a command line."""
    if _looks_structured(value) or (" " in value and may_hold_command(value)):
        return True
    if ("{" in value or "[" in value) and _EMBEDDED_START.search(value):  # a document inside it
        return True
    if (":" in value or "=" in value) and has_stem(value):  # ``password: "X"``: a line of its own
        return True
    if " " in value and any(c in value for c in "\n\"'") and has_stem(value):
        return True  # a config file's lines (``requirepass X``), quoted values (``X-Api-Key "X";``)
    if ("\n" in value and any(c in value for c in ",\t|;") and has_stem(value)) or (
        "[" in value and _SASL_PASSWD.search(value) is not None
    ):
        return True  # (a table: ``user,password`` then its rows, columns.py; a ``sasl_passwd`` line)
    return ":" in value and PGPASS.search(value) is not None  # (a ``.pgpass`` line as a string)


def _shallow(text: str) -> bool:
    """Nesting the parser can take without deep recursion (brackets, and indentation)."""
    depth = deepest = 0
    for char in re.findall(r"[\[\]{}]", text):
        depth = max(0, depth + (1 if char in "[{" else -1))
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            return False
    return all(len(line) - len(line.lstrip(" \t")) <= MAX_INDENT for line in text.split("\n"))


def _structured(text: str) -> tuple[list[Span], list[View]] | None:
    """The spans and views of ``text`` parsed as JSON or YAML; None when it does not parse (a script
    with a ``name: value`` line: the documents inside it are looked for instead)."""
    import yaml

    try:
        documents = list(yaml.compose_all(text, Loader=_loader()))
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    found: list[Span] = []
    views: list[View] = []
    seen: set[tuple[int, bool]] = set()
    flow = text.lstrip()[:1] in ("{", "[")
    for document in documents:
        if document is not None:
            _walk(text, document, seen, found, views)
    # a number in JSON is masked as a quoted mask, so the text stays JSON
    return [(s, e, flow and _NUMBER.fullmatch(text, s, e) is not None) for s, e, _ in found], views


@cache
def _loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _walk(text: str, top: Any, seen: set[tuple[int, bool]], found: list[Span], views: list[View]) -> None:
    """The spans of the scalars at secret places under ``top`` into ``found``, the documents in other
    string values into ``views`` (a loop over a stack, no recursion)."""
    import yaml

    stack: list[tuple[Any, tuple[Any, ...], bool]] = [(top, (), False)]
    while stack:
        node, keys, secret = stack.pop()
        if (id(node), secret) in seen:
            continue
        seen.add((id(node), secret))
        if isinstance(node, yaml.ScalarNode):
            span = _scalar_span(text, node)
            if span is None or node.tag.endswith((":bool", ":null")):
                continue
            if secret:
                if plausible(node.value, _nearest_name(keys)):
                    found.append(span)
                elif (attached := _attached_value(text, node.value, span, keys)) is not None:
                    found.append(attached)
            elif _holds_text(node.value):
                views.append(_scalar_view(text, node, span))
        elif isinstance(node, yaml.MappingNode):
            shallow = _shallow_value(node)
            for key_node, value in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                below = (*keys[-2:], key)
                stack.append((value, below, secret or is_secret_place(below, shallow)))
        elif isinstance(node, yaml.SequenceNode):
            items = [item.value if isinstance(item, yaml.ScalarNode) else None for item in node.value]
            for index, item in enumerate(node.value):
                below = (*keys[-2:], index)
                stack.append((item, below, secret or is_secret_place(below, items)))


def _attached_value(text: str, value: str, span: Span, keys: tuple[Any, ...]) -> Span | None:
    """An argument list's item that is a short option with its value attached (``["mysql", "-uroot",
    "-pX"]``): the value after the option, when it may be one (the item reads as an option)."""
    if not (keys and isinstance(keys[-1], int) and len(value) > 2 and value[0] == "-" and value[1].isalpha()):
        return None
    if "=" in value or not plausible(value[2:], "password"):
        return None
    start, end, quoted = span
    return (start + 2, end, quoted) if text[start:end] == value else span


def _nearest_name(keys: tuple[Any, ...]) -> str:
    return next((key for key in reversed(keys) if isinstance(key, str)), "")


def _shallow_value(node: Any) -> dict[str, Any]:
    """A mapping's members as the place rules need them: scalars as text, containers as markers."""
    import yaml

    members: dict[str, Any] = {}
    for key_node, value in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        if isinstance(value, yaml.ScalarNode):  # (a number as a number: no string is held there)
            members[key_node.value] = 0 if value.tag.endswith((":int", ":float")) else value.value
        elif isinstance(value, yaml.SequenceNode) and all(
            isinstance(item, yaml.ScalarNode) for item in value.value
        ):
            members[key_node.value] = [item.value for item in value.value]  # (a list of strings)
        else:
            members[key_node.value] = {}
    return members


def _scalar_span(text: str, node: Any) -> Span | None:
    start, end = node.start_mark.index, node.end_mark.index
    raw = text[start:end]
    lead = re.match(r"(?:[&!][^\s]*\s+)*", raw)  # an anchor or a tag before the value
    start += lead.end() if lead else 0
    if node.style in ('"', "'"):
        start, end = start + 1, end - 1
    elif node.style in ("|", ">"):
        newline = text.find("\n", start, end)
        start = newline + 1 if newline >= 0 else end
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if start >= end or node.value in ("", "~", "null") or text.startswith("<secret:", start):
        return None
    return (start, end, False)


def _scalar_view(text: str, node: Any, span: Span) -> View:
    """A string value as a text of its own: character for character where it stands as written (or,
    for a literal block, line by line without its indentation), else as one opaque stretch."""
    start, end, _ = span
    value = node.value
    if text[start:end] == value.rstrip("\n"):
        return View(value, (start, end), ((0, start, end - start, end - start),))
    pieces: tuple[Piece, ...] | None = None
    if node.style == "|":
        pieces = _block_pieces(text, start, end, value)
    elif node.style == '"':
        decoded, found = unescape(text[start:end])
        if decoded == value:
            pieces = tuple((d, s + start, dl, sl) for d, s, dl, sl in found)
    return View(value, (start, end), pieces or ())


def _block_pieces(text: str, start: int, end: int, value: str) -> tuple[Piece, ...] | None:
    """Where each line of a literal block scalar stands: its source line less the indentation."""
    pieces: list[Piece] = []
    at = 0
    lines = text[start:end].split("\n")
    indent = len(lines[0]) - len(lines[0].lstrip(" "))
    for line in lines:
        body = line[indent:]
        source = start + indent
        if not value.startswith(body, at):
            return None
        if body:
            pieces.append((at, source, len(body), len(body)))
        at += len(body) + 1
        start += len(line) + 1
    return tuple(pieces)
