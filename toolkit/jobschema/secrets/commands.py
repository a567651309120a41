"""Secrets in command lines: text split as a shell splits it, and the words its options make secret.

A text is cut into simple commands at ``;``, ``&&``, ``||``, ``|``, ``&``, newlines and parentheses,
each command into words (quotes and backslashes removed, every character of a word remembering where
it stands in the text, so a secret is masked exactly where it is). Then, per command:

- an option named like a credential takes the next word (``--hf-token X``, ``-password X``);
  attached values (``--token=X``) are the named-value reader's (:mod:`jobschema.secrets.named`);
- a tool of :data:`~jobschema.secrets.table.COMMANDS` adds its own options (``mysql -pX``,
  ``sshpass -p X``, ``curl -u user:X``, ``smbclient -U user%X``) and positional words
  (``htpasswd -b FILE USER X``, ``mc alias set A URL KEY X``);
- ``set NAME VALUE``, ``setx NAME VALUE``, Dockerfile ``ENV NAME VALUE``: VALUE when NAME says credential;
- a command that reads a credential from standard input (``--password-stdin``, ``--passphrase-fd``,
  ``chpasswd``) makes secret what feeds it: ``echo X |``, ``printf '%s' X |``, ``<<< X``, a here-document.

The same rules judge an argument list given as a JSON array (``["mysql", "-p", "X"]``):
:func:`is_secret_argument`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache, lru_cache
from itertools import islice

from jobschema.secrets.encodings import Piece, View
from jobschema.secrets.names import is_secret_name, names_a_credential_command, words
from jobschema.secrets.table import (
    AUTH_PAIR_TYPES,
    COMMANDS,
    ECHO_COMMANDS,
    FILE_SUFFIXES,
    LOGIN_WORDS,
    NAME_VALUE_WORDS,
    PAIRED_ROWS,
    PIPE_FILTERS,
    PREFIX_COMMANDS,
    PREFIX_STDIN,
    SECRET_VALUE_STORES,
    SECRET_VALUE_TYPES,
    STDIN_ARGUMENTS,
    STDIN_COMMANDS,
    STDIN_FLAGS,
    STDIN_PROMPTS,
    STDIN_SECRETS,
    STDIN_WORDS,
    STDIN_WRITERS,
    USER_PAIR_OPTIONS,
    VALUE_NAME_OPTIONS,
    VALUE_OPTIONS,
    Tool,
)
from jobschema.secrets.values import (
    SHELL_REFERENCE,
    basename,
    classes,
    is_file_line,
    looks_random,
    pair_password,
    plausible,
    prints_literal,
)

Span = tuple[int, int, bool]

#: Argument lists longer than this are judged one neighbour at a time (linear in the list).
WHOLE_LIST = 64
#: How many words naming a tool one simple command is read from (``sudo mysql``, ``… ProxyCommand=sshpass
#: …``): each reads the words after it, so a line of thousands of tool names costs this many passes,
#: not one a word (linear in the line).
MAX_HEADS = 16
_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_OPTION = re.compile(r"-{1,2}[A-Za-z][\w.-]*")
#: A quoted literal left in a word once the shell has removed its own quotes (``f('X')``, ``$'\\x41'``).
_INNER_QUOTES = re.compile(r"'[^'\n]+'|\"[^\"\n]+\"")
_QUOTED_ASSIGNMENT = re.compile(r"[A-Za-z_][\w.-]{0,127}=([\"'])[^\"']+\1")


class Word:
    """A word as the shell reads it, and where each of its characters stands in the text."""

    __slots__ = ("closed", "places", "text")

    def __init__(self) -> None:
        self.text = ""
        self.places: list[int] = []
        self.closed = -1  # the length of the text when a quote last closed

    def add(self, char: str, place: int) -> None:
        """One more character, found at ``place``."""
        self.text += char
        self.places.append(place)

    def span(self, start: int = 0, end: int | None = None) -> Span | None:
        """Where ``text[start:end]`` stands in the source (from its first to its last character)."""
        stop = len(self.text) if end is None else end
        if 0 <= self.closed < stop and not self.text[self.closed : stop].strip("}]),;"):
            stop = self.closed  # (``"mysql -pX"}``: the brackets after the quote are a document's)
        while start < stop and self.text[start] in " \t\r\n":
            start += 1
        while stop > start and self.text[stop - 1] in " \t\r\n":
            stop -= 1
        if start >= stop or not self.places:
            return None
        value = self.text[start:stop]
        if SHELL_REFERENCE.match(value) or value.startswith("<secret:"):
            return None
        return (self.places[start], self.places[stop - 1] + 1, False)

    def holds_text(self) -> bool:
        """A word that is a text of its own: several lines, a JSON document, a command line, or words
        holding a credential's name (a script given to ``bash -c '…'``, ``python -c``, ``psql -c``:
        its own quotes, written ``'"'"'`` inside the shell's, are read as they are meant)."""
        text = self.text.strip()
        if "\n" in text or text[:1] in ("{", "["):
            return True
        if _INNER_QUOTES.search(text):  # (quotes the shell's own quoting left: ``'"'"'X'"'"'`` in
            return True  # ``bash -c '…'`` is a script's own quoted literal, read as the script means)
        if " " not in text:  # (a credential file's line: ``echo 'db:5432:*:app:X' > ~/.pgpass``)
            if _QUOTED_ASSIGNMENT.fullmatch(text):  # (``bash -c 'TOKEN='"'"'X'"'"''``: an assignment
                return _has_stem(text)  # with its own quotes, the script's only words)
            return ":" in text and is_file_line(text)
        return may_hold_command(text) or _has_stem(text)

    def view(self) -> View:
        """The word as a text of its own, every run of its characters mapped to where it stands."""
        pieces: list[Piece] = []
        begin, stop = 0, len(self.text)
        if 0 <= self.closed < stop and not self.text[self.closed :].strip("}]),;"):
            stop = self.closed  # (``"bash -c …"}``: the brackets after the quote are a document's)
        opening = _SUBSTITUTED.match(self.text)
        if opening is not None and self.text[:stop].endswith(")") and stop > opening.end():
            # (a word ``$(…)`` given to an option, ``H=$(…)``: the command inside)
            begin, stop = opening.end(), stop - 1
        for index, place in enumerate(self.places[begin:stop]):
            last = pieces[-1] if pieces else None
            if last is not None and last[1] + last[2] == place and last[0] + last[2] == index:
                pieces[-1] = (last[0], last[1], last[2] + 1, last[3] + 1)
            else:
                pieces.append((index, place, 1, 1))
        whole = (self.places[begin], self.places[stop - 1] + 1) if stop > begin else (0, 0)
        return View(self.text[begin:stop], whole, tuple(pieces))


class Command:
    """A simple command: its words, what a here-string or here-document feeds it, and whether its
    output is piped to the next command."""

    __slots__ = ("fed", "grouped", "marker", "piped", "words")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.fed: list[Word] = []
        self.marker: str | None = None
        self.piped = False
        self.grouped = False  # one of a group's commands whose output is piped: ``(echo X; echo Y) | cmd``


@cache
def _gates() -> tuple[re.Pattern[str], ...]:
    """Where a command with a credential may stand: a tool's name, an option (``-x``, ``--name``),
    ``set NAME`` with a credential-like NAME, a here-document, a Windows ``/p:``. Several simple
    expressions (a tool name is found with a trie: most positions fail at their first character),
    searched one after the other: far faster than one alternation led by a character class."""
    from jobschema.secrets.shapes import _trie

    prompts = {words[0] for words in STDIN_PROMPTS} | {words[0] for words, _ in STDIN_SECRETS}
    tools = _trie(sorted({*COMMANDS, *STDIN_COMMANDS, *STDIN_WRITERS, *prompts}))
    setters = "|".join(re.escape(word) for word in sorted(NAME_VALUE_WORDS, key=lambda w: (-len(w), w)))
    # ``set NAME VALUE``: only where NAME may say credential (``set`` is also a word of prose)
    stems = "pass|pwd|secret|token|key|auth|cred|sig|session|ak|sk|pat|otp"
    return (
        # (also first in brackets: Go's ``[mysql -pX app]``, an event's ``command [sshpass -p X …]``)
        re.compile(rf"(?<![^\s/;&|(\"'`=\[])(?P<tool>{tools})"),
        re.compile(r"(?:^|[\s\"'\[])-{1,2}[A-Za-z]"),
        re.compile(rf"(?<![^\s;&|(])(?:{setters})[ \t]+(?:-\S+[ \t]+)*[^\s=]*(?i:{stems})"),
        re.compile(r"<<|(?:^|\s)/(?:p:|[A-Za-z-]{0,24}(?i:pass|pw|token|secret|key|cred)[\w-]{0,24}:)"),
        # (the gates from here on need a ``>`` in the text: :data:`_REDIRECT_GATES`)
        # what ``echo``/``tee`` write to a file named like a credential (``> ~/.pgpass``)
        re.compile(r">[ \t]*[^\s<>;|&]{0,128}?(?i:pass|pwd|token|secret|cred|key|auth|netrc)"),
        # a Redis ACL rule line (users.acl, redis.conf): ``user NAME on >PASSWORD``, and the command
        # that sets one (``ACL SETUSER NAME on >PASSWORD``, a line typed to a Redis client)
        # (led by its literal: a search skips to each ``user``/``USER``)
        re.compile(r"(?:user|USER)(?:(?<![\w.-]....)|(?<=(?:set|SET)....))[ \t][^\n]{0,256}?[ \t]\"?>[^\s>]"),
    )


#: The words a tool's name is the whole of (the trie finds its shortest prefix).
_WORD = re.compile(r"[\w.+-]*")


#: The last gates need a ``>`` (a redirection, a Redis ACL rule): texts without one skip them.
_REDIRECT_GATES = 2


@cache
def _plain_gates() -> tuple[re.Pattern[str], ...]:
    return _gates()[:-_REDIRECT_GATES]


def _gate_hits(text: str) -> list[re.Match[str]]:
    """Every gate's hits, in order of position."""
    hits: list[re.Match[str]] = []
    for gate in _gates() if ">" in text else _plain_gates():
        if gate.search(text) is None:  # (most texts: one search per gate, nothing more)
            continue
        found = list(gate.finditer(text))
        if gate.groupindex.get("tool"):
            tools = _tool_names()
            found = [hit for hit in found if _whole_tool(text, hit, tools)]
        hits += found
    return sorted(hits, key=lambda hit: hit.start()) if len(hits) > 1 else hits


@cache
def _tool_names() -> frozenset[str]:
    heads = {words[0] for words in STDIN_PROMPTS} | {words[0] for words, _ in STDIN_SECRETS}
    return frozenset({*COMMANDS, *STDIN_COMMANDS, *STDIN_WRITERS, *heads})


def _whole_tool(text: str, hit: re.Match[str], tools: frozenset[str]) -> bool:
    word = _WORD.match(text, hit.start())
    end = word.end() if word else hit.end()
    return text[hit.start() : end] in tools and (end == len(text) or text[end] in " \t\r\n\"'")


def may_hold_command(text: str) -> bool:
    """True when a command with a credential option may stand in ``text`` (a tool, an option, ``<<``)."""
    return bool(_gate_hits(text))


def read(text: str) -> tuple[list[Span], list[View]]:
    """The secrets of the commands in ``text``, and the words that are texts of their own (a
    document or a script given to ``bash -c``), to be read on their own. Only the lines where a
    command may stand are read: a long text costs one search and the reading of those lines."""
    found: list[Span] = []
    views: list[View] = []
    named: set[str] = set()  # (variables a command names as holding its password)
    for start, end in _segments(text):
        commands = list(split(text, start, end))
        for index, command in enumerate(commands):
            found += _command_spans(command.words)
            if _reads_secret_stdin(command.words):
                found += _fed_spans(command, _feeder(commands, index))
                found += [  # (the group's commands before the last that writes to the pipe)
                    span for before in _group_before(commands, index) for span in _fed_spans(command, before)
                ]
            elif _reads_stdin_arguments(command.words):
                found += _fed_argument_spans(command, commands[index - 1] if index else None)
            found += _written_spans(command, commands[index - 1] if index else None)
            views += [word.view() for word in (*command.words, *command.fed) if word.holds_text()]
            named |= _named_variables(command.words)
    return found + _variable_values(text, named), views


#: Options that name the environment variable holding a password (``openssl … -passin env:NAME``).
_ENV_PASS_OPTIONS = frozenset({"-pass", "-passin", "-passout", "-kfile"})


def _named_variables(found: Sequence[Word]) -> set[str]:
    """The variables a command names as holding its password: ``openssl rsa -passin env:KEYPW``."""
    argv = [word.text for word in found]
    return {
        argv[i + 1][4:]
        for i in range(len(argv) - 1)
        if argv[i] in _ENV_PASS_OPTIONS and argv[i + 1].startswith("env:") and len(argv[i + 1]) > 4
    }


def _variable_values(text: str, named: set[str]) -> list[Span]:
    """The values ``text`` gives the variables of ``named`` (``KEYPW=X``, ``export KEYPW="X"``)."""
    spans: list[Span] = []
    for name in sorted(named)[:16]:
        if not re.fullmatch(r"[A-Za-z_]\w{0,127}", name):
            continue
        for match in re.finditer(rf"(?<![\w$]){name}=([\"']?)(?P<v>[^\s\"';&|]{{1,4096}})\1", text):
            if match["v"][:1] not in ("$", "%", "`", "<") and plausible(match["v"], "password"):
                spans.append((match.start("v"), match.end("v"), False))
    return spans


def _segments(text: str) -> Iterator[tuple[int, int]]:
    """The stretches of ``text`` that may hold a command: each line with a gate hit, extended over
    continued lines (``\\`` at the end) and, after ``<<``, over the here-document."""
    start = reach = -1
    for hit in _gate_hits(text):
        heredoc = "<<" in hit.group()
        if hit.end() <= reach and not heredoc:  # (``kinit bob <<EOF``: the tool's line, then its document)
            continue
        line = text.rfind("\n", 0, hit.end() - 1) + 1
        while line >= 2 and text[line - 2] == "\\":  # the command began on a continued line
            line = text.rfind("\n", 0, line - 1) + 1
        if line > reach >= 0:
            yield start, reach
            start = -1
        start = line if start < 0 else start
        reach = max(reach, _line_end(text, hit.end() - 1, heredoc=heredoc))
    if start >= 0:
        yield start, reach


def _line_end(text: str, at: int, heredoc: bool) -> int:
    """Where the command on the line of ``at`` ends: over continued lines and open quotes, and after
    ``<<``, the here-document."""
    position = text.rfind("\n", 0, at) + 1
    quotes = _Quotes(text)
    while True:
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        quotes.scan(position, end)
        if end >= len(text) or not (quotes.open or text[end - 1] == "\\"):
            break
        position = end + 1
    if heredoc and end < len(text):
        marker = re.match(r"<<-?[ \t]*[\"']?(\w+)", text[text.rfind("<<", 0, end) :])
        if marker is not None:
            close = re.compile(rf"^[ \t]*{re.escape(marker[1])}[ \t]*$", re.M).search(text, end)
            end = close.end() if close else len(text)
    return end


class _Quotes:
    """Whether a quote is open, read a stretch at a time (a quote never closed is a plain character)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.open = ""
        self.unclosed: dict[str, int] = {}  # no closing quote of this kind after this position

    def scan(self, start: int, end: int) -> None:
        text = self.text
        for index in range(start, end):
            char = text[index]
            if self.open == "" and char in "'\"" and not _escaped(text, index):
                if self.unclosed.get(char, len(text)) <= index:
                    continue
                if text.find(char, index + 1) < 0:
                    self.unclosed[char] = index
                    continue
                self.open = char
            elif char == self.open and (char == "'" or not _escaped(text, index)):
                self.open = ""


# --- splitting ------------------------------------------------------------------------------------


def split(text: str, start: int = 0, end: int | None = None) -> Iterator[Command]:
    """The simple commands of ``text[start:end]``, split as a shell splits them (linear: a quote that
    is never closed is taken as a plain character); places are in ``text``."""
    reader = _Reader(text, start, len(text) if end is None else end)
    yield from reader.commands()


class _Groups:
    """The groups of commands a reader is in, ``( … )`` or ``{ …; }``: when a pipe follows a group,
    each of its commands writes to it, as ``(echo X; echo X) | smbpasswd -s -a bob`` feeds both lines
    (each then :attr:`Command.grouped`)."""

    __slots__ = ("closed", "opened")

    def __init__(self) -> None:
        self.opened: list[list[Command]] = []
        self.closed: list[Command] = []

    def operator(self, operator: str, command: Command) -> None:
        """The reader met ``operator`` after ``command`` (yielded when it holds anything)."""
        if command.piped and not command.words and self.closed:
            for member in self.closed:
                member.piped = member.grouped = True
        if command.words or command.fed or command.marker:
            if self.opened:
                self.opened[-1].append(command)
            self.closed = []
        if operator == "(" and not command.words and len(self.opened) < 64:
            self.opened.append([])
        elif operator == ")" and self.opened:
            self.closed = self.opened.pop()

    def brace(self, word: str) -> None:
        """A brace opening or closing a group where a command's first word stands."""
        if word == "{" and len(self.opened) < 64:
            self.opened.append([])
        elif word == "}" and self.opened:
            self.closed = self.opened.pop()


class _Reader:
    """One pass over a text: words, operators, quotes, escapes, here-strings and here-documents."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text[:end]
        self.at = start
        self.unclosed: dict[str, int] = {}  # a quote with no closing one at or after this position
        self.pending: list[tuple[Command, str]] = []  # here-documents whose bodies start at the next line

    def commands(self) -> Iterator[Command]:
        command = Command()
        groups = _Groups()
        while self.at < len(self.text):
            operator = self._operator()
            if operator is not None:
                command.piped = operator in ("|", "|&")
                if operator == "\n":
                    for holder, marker in self.pending:
                        self._heredoc(holder, marker)
                    self.pending.clear()
                if command.words or command.fed or command.marker:
                    yield command
                groups.operator(operator, command)
                command = Command()
                continue
            char = self.text[self.at]
            if char in " \t\r" or self.text.startswith("\\\n", self.at):
                self.at += 1 if char != "\\" else 2
            elif char == "#" and (self.at == 0 or self.text[self.at - 1] in " \t\n;"):
                end = self.text.find("\n", self.at)
                self.at = len(self.text) if end < 0 else end
            elif self.text.startswith("<<<", self.at):
                self.at += 3
                self._blank()
                command.fed.append(self._word())
            elif self.text.startswith("<<", self.at) and not self.text.startswith("<<<", self.at):
                self.at += 2
                self._blank()
                command.marker = self._word().text.lstrip("-")
                self.pending.append((command, command.marker))
            else:
                self._take_word(command, groups)
        if command.words or command.fed:
            yield command

    def _take_word(self, command: Command, groups: _Groups) -> None:
        """The next word, added to ``command`` (a brace opening or closing a group where a command's
        first word stands, ``{ echo X; } | cmd``, is the group's)."""
        word = self._word()
        if not command.words and word.text in ("{", "}") and word.places:
            groups.brace(word.text)
        elif word.text or self.text[self.at - 1 : self.at] in ("'", '"'):
            command.words.append(word)

    def _blank(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1

    def _operator(self) -> str | None:
        for operator in _OPERATORS:
            if self.text.startswith(operator, self.at):
                self.at += len(operator)
                return operator
        return None

    def _heredoc(self, command: Command, marker: str) -> None:
        """The body of a here-document (its lines up to the marker) feeds the command."""
        body = Word()
        while self.at < len(self.text):
            end = self.text.find("\n", self.at)
            end = len(self.text) if end < 0 else end
            line = self.text[self.at : end]
            start = self.at
            self.at = end + 1
            if line.strip() == marker:
                break
            for offset, char in enumerate(line + "\n"):
                body.add(char, start + offset)
        command.fed.append(body)

    def _word(self) -> Word:
        word = Word()
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char in " \t\r\n;&|()" or (char == "<" and text.startswith("<<", self.at)):
                break
            if char == "\\" and self.at + 1 < len(text):
                if text[self.at + 1] != "\n":
                    word.add(text[self.at + 1], self.at + 1)
                self.at += 2
            elif char in "'\"" and self._quoted(word, char):
                continue
            elif char in "$<>" and text.startswith("(", self.at + 1):  # $( … ), <( … ), >( … )
                self._substitution(word)
            else:
                word.add(char, self.at)
                self.at += 1
        return word

    def _quoted(self, word: Word, quote: str) -> bool:
        """Reads a quoted part into ``word``; False (nothing read) when the quote is never closed."""
        if self.unclosed.get(quote, len(self.text) + 1) <= self.at:
            return False
        position = self.at + 1
        while True:
            close = self.text.find(quote, position)
            if close < 0:
                self.unclosed[quote] = self.at
                return False
            if quote == '"' and _escaped(self.text, close):
                position = close + 1
                continue
            break
        index = self.at + 1
        while index < close:
            char = self.text[index]
            if quote == '"' and char == "\\" and self.text[index + 1] in '"\\$`':
                index += 1
                char = self.text[index]
            word.add(char, index)
            index += 1
        self.at = close + 1
        word.closed = len(word.text)
        return True

    def _substitution(self, word: Word) -> None:
        """``$( … )`` kept whole in the word (its inside is read as a command of its own, too)."""
        depth = 0
        while self.at < len(self.text):
            char = self.text[self.at]
            depth += (char == "(") - (char == ")")
            word.add(char, self.at)
            self.at += 1
            if depth == 0 and char == ")":
                return


#: A word that is a command's output (``$(…)``, ``<(…)``), or a variable given one (``H=$(…)``).
_SUBSTITUTED = re.compile(r"(?:[A-Za-z_]\w{0,63}=)?[$<>]\(")


def _has_stem(text: str) -> bool:
    from jobschema.secrets.named import has_stem  # (the named reader is loaded with the readers)

    return has_stem(text)


def _escaped(text: str, index: int) -> bool:
    slashes = 0
    while index - slashes - 1 >= 0 and text[index - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


# --- judging a command ------------------------------------------------------------------------------


def _command_spans(found: Sequence[Word]) -> list[Span]:
    spans: list[Span] = []
    for index, start, name in judge([word.text for word in found]):
        if plausible(found[index].text[start:], name):
            span = found[index].span(start)
            if span is not None:
                spans.append(span)
    return spans


Mark = tuple[int, int, str]


def judge(argv: Sequence[str]) -> list[Mark]:
    """``(word index, first secret character, name)`` for every word of ``argv`` that holds a
    secret; ``name`` is what names it (the option, or the tool)."""
    marks: list[Mark] = []
    options: set[str] = set()
    after: dict[str, str] = {}
    typed: set[str] = set()
    attached_only: set[str] = set()
    tools_at = (i for i, word in enumerate(argv) if _tool_word(word) in COMMANDS)
    heads = [_head(argv), *islice(tools_at, MAX_HEADS)]  # (each head reads the words after it)
    for head in sorted(set(heads)):
        if head >= len(argv):
            continue
        tools = COMMANDS.get(_tool_word(argv[head]), ())
        for tool in (tool for tool in tools if _has_subcommand(argv[head + 1 :], tool)):
            options |= tool.options
            after.update(tool.after)
            typed |= tool.typed
            attached_only |= tool.attached
            marks += _positional_marks(argv, head, tool)
    if typed and after:  # ``http -A bearer -a TOKEN``: the auth type says the value is the credential
        kind = _typed_value(argv, typed)
        if kind is not None and kind.lower() not in AUTH_PAIR_TYPES:
            options |= set(after)
            after = {}
    marks += _login_marks(argv)
    marks += _paired_marks(argv)
    marks += _user_pair_marks(argv, after)
    marks += _acl_marks(argv)
    marks += _format_marks(argv)
    for index in range(len(argv)):
        marks += _option_marks(argv, index, frozenset(options), after, frozenset(attached_only))
        marks += _name_value_marks(argv, index)
    marks += _stored_value_marks(argv)
    return sorted(set(marks))


def _tool_word(word: str) -> str:
    """The tool a word names: its basename, in lower case; also after an option's name and ``=``
    (``-o ProxyCommand=sshpass -p X ssh jump``: the option's value is a command line)."""
    name, equals, value = word.partition("=")
    if equals and value and re.fullmatch(r"[A-Za-z_][\w-]{0,63}", name):
        return basename(value).lower()
    return basename(word.removeprefix("[")).lower()


def _typed_value(argv: Sequence[str], typed: set[str]) -> str | None:
    """The value given to one of the ``typed`` options (``-A bearer``, ``-Abearer``,
    ``--auth-type=jwt``, ``--auth-type jwt``); the last one given counts."""
    kind = None
    for index, word in enumerate(argv):
        name, equals, value = word.partition("=")
        if name in typed:
            if equals:
                kind = value
            elif index + 1 < len(argv):
                kind = argv[index + 1]
        elif not word.startswith("--"):
            kind = next((word[len(o) :] for o in typed if len(o) == 2 and _attaches(o, word)), kind)
    return kind


def _login_marks(argv: Sequence[str]) -> Iterator[Mark]:
    """``-p X`` of a command that logs in (``regctl registry login -p X``, ``argocd login -p X``): a
    word of :data:`LOGIN_WORDS` among the first three plain words after the tool; the option given
    alone, its value the next word."""
    head = _head(argv)
    plain = [word for word in argv[head + 1 : head + 9] if not word.startswith("-")][:3]
    if not LOGIN_WORDS.intersection(plain):
        return
    for index in range(head + 1, len(argv) - 1):
        if argv[index] == "-p" and not argv[index + 1].startswith("-"):
            yield index + 1, 0, "-p"


_USER_OPTIONS = frozenset({"-u", "-U", "--user", "--username"})
#: A port, a port mapping or an address with one (``5432``, ``8080:80``, ``127.0.0.1:80:80/tcp``).
_PORT = re.compile(r"[\d.:\[\]-]+(?:/(?:tcp|udp|sctp))?")


def _paired_marks(argv: Sequence[str]) -> Iterator[Mark]:
    """``-p X`` after a user given by ``-u U`` (``--user``, ``--username``, ``-U``), by a tool with no
    row of its own (``dotnet nuget add source … -u bob -p X``, ``twine -u __token__ -p X``): a user
    and its password. A port (``psql -U bob -p 5432``, ``docker run -u 1000 -p 8080:80``) is none."""
    head = _head(argv)
    tool = basename(argv[head]).lower() if head < len(argv) else ""
    if tool in COMMANDS and tool not in PAIRED_ROWS:
        return  # (the tool's row says what its ``-p`` takes)
    users = [i for i in range(head + 1, len(argv) - 1) if argv[i] in _USER_OPTIONS]
    if not any(not argv[i + 1].startswith("-") for i in users):
        return
    for index in range(head + 1, len(argv) - 1):
        value = argv[index + 1]
        port = _PORT.fullmatch(value.rstrip("`'\",;.)")) is not None  # (``-p 5432``, in prose too)
        if argv[index] == "-p" and not value.startswith("-") and not port:
            yield index + 1, 0, "-p"


def _user_pair_marks(argv: Sequence[str], after: dict[str, str]) -> Iterator[Mark]:
    """``--user bob:X``, ``--creds bob:X``, ``-u bob:X`` of any command (:data:`USER_PAIR_OPTIONS`,
    unless the tool's row reads the option): the password of a ``user:password`` value, when it
    looks like one (``-u 1000:1000``, ``--user app:app``, ``-u $(id -u):$(id -g)`` hold none)."""
    for index, word in enumerate(argv):
        name, equals, value = word.partition("=")
        if name not in USER_PAIR_OPTIONS or name in after:
            continue
        if not equals:
            if index + 1 >= len(argv) or argv[index + 1].startswith("-"):
                continue
            value, target, offset = argv[index + 1], index + 1, 0
        else:
            target, offset = index, len(name) + 1
        start = pair_password(value)
        if start is not None:
            yield target, offset + start, ""


#: A format's conversion (``%s``, ``%b``, ``%q``, ``%-10s``) and the ``NAME=`` or ``NAME: `` right
#: before it, if any.
_CONVERSION = re.compile(
    r"%%|(?:(?P<name>[A-Za-z_][\w.-]{0,127})[ \t]*[=:][ \t]*[\"']?)?%[-+ #0]*\d*(?:\.\d+)?[sbqd]"
)


def _format_marks(argv: Sequence[str]) -> Iterator[Mark]:
    """``printf 'DB_PASSWORD=%s\\n' X``: the argument a format's conversion after a credential's name
    takes (by position; the format reused for more arguments as the shell's ``printf`` does)."""
    head = _head(argv)
    if head >= len(argv) - 2 or basename(argv[head]) != "printf":
        return
    at = head + 1
    if argv[at] == "-v":  # (``printf -v VAR FORMAT …``)
        at += 2
    if at >= len(argv) - 1:
        return
    names = [m["name"] for m in _CONVERSION.finditer(argv[at]) if m.group() != "%%"]
    if not names or not any(name and is_secret_name(name) for name in names):
        return
    for index in range(at + 1, len(argv)):
        if argv[index][:1] in (">", "<", "|", "&", ";") or argv[index][:2] in ("1>", "2>"):
            return  # (a redirection: ``> .env`` is no argument)
        name = names[(index - at - 1) % len(names)]
        if name and is_secret_name(name):
            yield index, 0, name


def _acl_marks(argv: Sequence[str]) -> Iterator[Mark]:
    """Redis ACL rules: ``>PASSWORD`` adds a password to a user (``ACL SETUSER bob on >X``, a
    ``user bob on >X ~* +@all`` line of users.acl or redis.conf)."""
    lowered = [word.lower() for word in argv[:16]]
    start = next((i + 2 for i in range(len(lowered) - 1) if lowered[i : i + 2] == ["acl", "setuser"]), None)
    if start is None and len(argv) > 2 and argv[0] == "user":
        start = 1
    if start is None:
        return
    for index in range(start + 1, len(argv)):  # (after the user's name)
        if argv[index].startswith(">") and len(argv[index]) > 1:
            yield index, 1, "acl"


def _stored_value_marks(argv: Sequence[str]) -> Iterator[Mark]:
    """``aws ssm put-parameter --name N --type SecureString --value X``, ``az keyvault secret set
    --name N --value X``, ``… --name db_password --value X``: the value a command stores as a secret."""
    values = [i for i, word in enumerate(argv) if word.partition("=")[0] in VALUE_OPTIONS]
    if not values:
        return
    pairs = {tuple(argv[i : i + 2]) for i in range(len(argv) - 1)}
    pairs |= {tuple(word.split("=", 1)) for word in argv if word.startswith("-") and "=" in word}
    plain = [word for word in argv if not word.startswith("-")]
    secret = any(pair in pairs for pair in SECRET_VALUE_TYPES) or any(
        plain[i : i + len(store)] == list(store)
        for store in SECRET_VALUE_STORES
        for i in range(min(4, len(plain)))
    )
    secret = secret or any(
        len(pair) == 2
        and pair[0] in VALUE_NAME_OPTIONS
        and is_secret_name(pair[1].rstrip("/").rsplit("/", 1)[-1])
        for pair in pairs
    )
    if not secret:
        return
    for index in values:
        option, equals, _ = argv[index].partition("=")
        if equals:
            yield index, len(option) + 1, option
        elif index + 1 < len(argv):
            yield index + 1, 0, option


def _head(argv: Sequence[str]) -> int:
    """The index of the command word: after ``NAME=VALUE`` words and ``sudo``/``env``/``time``…."""
    index = 0
    while index < len(argv) and (
        re.match(r"^[A-Za-z_]\w*=", argv[index]) or basename(argv[index]) in PREFIX_COMMANDS
    ):
        index += 1
        while (
            index < len(argv) and argv[index].startswith("-") and basename(argv[index - 1]) in ("sudo", "env")
        ):
            index += 1
    return index


def _has_subcommand(rest: Sequence[str], tool: Tool) -> bool:
    if not tool.subcommand:
        return True
    plain = [word for word in rest[:8] if not word.startswith("-")]
    size = len(tool.subcommand)
    if tool.windows:  # (``net user NAME PASSWORD``; Samba's ``net rpc user -U …`` is another tool)
        return tuple(plain[:size]) == tool.subcommand
    return any(tuple(plain[i : i + size]) == tool.subcommand for i in range(min(3, len(plain))))


def _option_marks(
    argv: Sequence[str],
    index: int,
    options: frozenset[str],
    after: dict[str, str],
    attached_only: frozenset[str] = frozenset(),
) -> Iterator[Mark]:
    word = argv[index]
    if word in attached_only:  # ``mysql -u root -p app``: the word after ``-p`` is the database
        if index + 1 < len(argv) and _generated(argv[index + 1]):
            yield index + 1, 0, word
        return
    if word.startswith("/"):  # Windows-style (``xfreerdp /p:X``, ``cmdkey /pass:X``, ``schtasks /rp X``)
        yield from _switch_marks(argv, index, options)
    elif word.startswith("-") and word not in ("-", "--"):
        yield from _dash_option_marks(argv, index, options, after)


def _dash_option_marks(
    argv: Sequence[str], index: int, options: frozenset[str], after: dict[str, str]
) -> Iterator[Mark]:
    word = argv[index]
    name, equals, _ = word.partition("=")
    following = index + 1 < len(argv) and not argv[index + 1].startswith("-")
    if not equals and following and _CLUSTER.fullmatch(word) and f"-{word[-1]}" in after:
        name = f"-{word[-1]}"  # ``curl -fsu bob:X``: flags run together, the last one given the value
    if name in after:
        target = (index, len(name) + 1) if equals else ((index + 1, 0) if following else None)
        if target is not None:
            yield from _after_marks(argv[target[0]], target, after[name], name)
        return
    if name in options:
        if equals:
            yield index, len(name) + 1, name
        elif following:
            yield index + 1, 0, name
        return
    attached = next(
        (o for o in sorted(options, key=len, reverse=True) if _attaches(o, word)),
        None,
    )
    if attached is not None:
        yield index, len(attached), attached
        return
    if not equals and following and _credential_option(name):
        yield index + 1, 0, name
    elif _command_option(name) or _file_option(name):  # ``--password-command 'echo X'``: a command
        # printing it; ``--vault-password-file <(echo X)``: the file a command printing it makes
        value = word[len(name) + 1 :] if equals else (argv[index + 1] if following else "")
        if _command_option(name) and value and prints_literal(value):
            yield (index, len(name) + 1, name) if equals else (index + 1, 0, name)
        elif value.startswith("<(") and value.endswith(")") and prints_literal(value[2:-1]):
            yield (index, len(name) + 3, name) if equals else (index + 1, 2, name)


def _file_option(name: str) -> bool:
    """``--vault-password-file``, ``--passphrase-file``: an option naming a credential's file."""
    parts = words(name)
    return len(parts) > 1 and parts[-1] == "file" and is_secret_name("_".join(parts[:-1]))


def _generated(word: str) -> bool:
    """A word that looks generated (``8Hx9Q384mTgz``; three kinds of characters): after an option
    whose value is only ever attached, a credential given the wrong way, not a database's name."""
    return looks_random(word, 8, 3.0) and classes(word) >= 3


#: Short flags run together (``-fsSL``), one dash, letters only.
_CLUSTER = re.compile(r"-[A-Za-z]{2,8}")


def _command_option(name: str) -> bool:
    """A long option naming the command that prints a credential (``--password-command``, also with
    one dash: gocryptfs' ``-extpass``)."""
    bare = name.lstrip("-")
    long = name.startswith("--") or len(bare) > 3
    return long and _OPTION.fullmatch(name) is not None and names_a_credential_command(bare)


#: A value given without its separator (``curl -u TOKEN:``) is the credential when it looks as random
#: as this (length, bits per character): a user's name does not.
_WHOLE_VALUE = (16, 3.0)


def _after_marks(word: str, target: tuple[int, int], separator: str, name: str) -> Iterator[Mark]:
    """The secret part of an option's ``user:password``-like value: after the separator; the whole
    value when nothing follows the separator (``-u TOKEN:``) or there is none (``-u TOKEN``) and the
    value looks random."""
    index, start = target
    cut = word.find(separator, start)
    # (the mark's name is none: the part found is judged as a value of its own, not as a ``user``'s)
    if cut >= 0 and cut + len(separator) < len(word):
        yield index, cut + len(separator), ""
    elif looks_random(word[start : cut if cut >= 0 else len(word)], *_WHOLE_VALUE):
        yield index, start, ""


def _attaches(option: str, word: str) -> bool:
    """``-pSECRET``, ``-hpSECRET``: a short option (two or three characters) with its value attached."""
    return (
        2 <= len(option) <= 3
        and option.startswith("-")
        and not word.startswith("--")
        and word.startswith(option)
        and len(word) > len(option)
    )


def _switch_marks(argv: Sequence[str], index: int, options: frozenset[str]) -> Iterator[Mark]:
    """A Windows switch that takes a credential: attached after ``:`` (``/pass:X``) or the next word
    (``/rp X``)."""
    word = argv[index]
    named = _NAMED_SWITCH.match(word)
    if named is not None and _credential_option(f"--{named[1]}"):  # ``wmic /password:X``
        yield index, named.end(), named[1]
        return
    for option in (o for o in options if o.startswith("/")):
        if option.endswith(":") and word.lower().startswith(option.lower()) and len(word) > len(option):
            yield index, len(option), option
            return
        if word == option and index + 1 < len(argv) and argv[index + 1][:1] not in ("-", "/", ""):
            yield index + 1, 0, option
            return


#: A Windows switch with its value attached after ``:`` (``/password:X``, ``/pass:X``).
_NAMED_SWITCH = re.compile(r"/([A-Za-z][A-Za-z_-]{1,31}):(?=\S)")


def _credential_option(name: str) -> bool:
    """A long option (``--hf-token``, ``-password``) named like a credential."""
    bare = name.lstrip("-")
    if _OPTION.fullmatch(name) is None or len(bare) < 2:
        return False
    if words(bare)[-1:] == ("secret",):  # ``--access-key-secret``: on a command line, a value
        return True
    return is_secret_name(bare) or is_secret_name(bare.upper().replace("-", "_"))


def _name_value_marks(argv: Sequence[str], index: int) -> Iterator[Mark]:
    """``set NAME VALUE``, ``setx NAME VALUE``, ``ENV NAME VALUE``, ``git config NAME VALUE``."""
    if argv[index] not in NAME_VALUE_WORDS:
        return
    position = index + 1
    while position < len(argv) and argv[position].startswith("-"):
        position += 1
    if position + 1 >= len(argv) or argv[position + 1].startswith("-"):
        return
    if "=" not in argv[position] and _names_a_credential_key(argv[position]):
        yield position + 1, 0, argv[position]


def _names_a_credential_key(key: str) -> bool:
    """A name, or a store's key whose last part names a credential (``consul kv put app/db/password
    X``, ``etcdctl put /config/db_password X``)."""
    return is_secret_name(key) or is_secret_name(re.split(r"[/.:]", key.rstrip("/"))[-1])


def _positional_marks(argv: Sequence[str], head: int, tool: Tool) -> Iterator[Mark]:
    """The tool's positional credentials: counted among the words after its subcommand that are no
    option and no ``NAME=VALUE``."""
    plain = _plain_words(argv, head, tool)
    for position in tool.positional:
        if -len(plain) <= position < len(plain) and argv[plain[position]] != "*":  # (``*``: a prompt)
            if not tool.pair:
                yield plain[position], 0, argv[head]
            elif (start := pair_password(argv[plain[position]])) is not None:
                yield plain[position], start, ""
    if tool.named is not None:
        yield from _named_switch_marks(argv, head, *tool.named)
    if tool.login and plain and head == _head(argv):  # (the command itself, not a word named so)
        login = _ORACLE_LOGIN.match(argv[plain[0]])
        if login is not None:
            yield plain[0], login.start("secret"), ""
    if tool.follows:
        yield from _following_marks(argv, plain, head, tool.follows)


def _plain_words(argv: Sequence[str], head: int, tool: Tool) -> list[int]:
    """The indices of the words after the tool's subcommand (and key) that are no option and no
    ``NAME=VALUE``; none when the option the positional words need is not given."""
    switch = "-/" if tool.windows else "-"
    plain = [
        i
        for i in range(head + 1, len(argv))
        if argv[i][:1] not in switch and "=" not in argv[i] and argv[i - 1] not in tool.valued
    ]
    if tool.subcommand:
        for offset in range(len(plain)):
            if tuple(argv[i] for i in plain[offset : offset + len(tool.subcommand)]) == tool.subcommand:
                plain = plain[offset + len(tool.subcommand) :]
                break
    if tool.keyed:
        key = next((i for i, index in enumerate(plain) if argv[index].startswith(tool.keyed)), None)
        plain = [] if key is None else plain[key + 1 :]
    if tool.when and not _given(argv[head + 1 :], tool.when):
        plain = []  # (``htpasswd -c F U`` prompts for the password: no positional one)
    return plain


def _given(words: Sequence[str], option: str) -> bool:
    """``option`` is among ``words``, or (a short one) among short flags run together (``-nb``)."""
    short = len(option) == 2
    return any(
        word == option or (short and _CLUSTER.fullmatch(word) is not None and option[1] in word[1:])
        for word in words
    )


#: An Oracle login (``scott/X@orcl``, ``'sys/X@db as sysdba'``): the password after the ``/``, not a
#: number (``10.0.0.1/24``) nor a path.
_ORACLE_LOGIN = re.compile(
    r"[\\\"']?[A-Za-z_][\w.$#]{0,127}/(?P<secret>(?!\d+(?:$|@))[^/@\s\"']{1,1024})(?:@|$|[\"'\s])"
)


def _named_switch_marks(argv: Sequence[str], head: int, name: str, value: str) -> Iterator[Mark]:
    """``reg add KEY /v Password /d X``: the word after ``value`` when the word after ``name`` says
    credential."""
    lowered = [word.lower() for word in argv]
    at = lowered.index(name, head) if name in lowered[head:] else -1
    given = lowered.index(value, head) if value in lowered[head:] else -1
    if 0 <= at < len(argv) - 1 and 0 <= given < len(argv) - 1 and is_secret_name(argv[at + 1]):
        yield given + 1, 0, argv[at + 1]


def _following_marks(argv: Sequence[str], plain: list[int], head: int, lead: str) -> Iterator[Mark]:
    """The positional word right after the first one starting with ``lead`` (``net use \\\\srv\\share
    X /user:bob``), unless it is a switch (``/user:``) or a prompt (``*``)."""
    first = next((i for i, index in enumerate(plain) if argv[index].startswith(lead)), None)
    if first is None or first + 1 >= len(plain):
        return
    word = argv[plain[first + 1]]
    if not word.startswith("/") and word != "*":
        yield plain[first + 1], 0, argv[head]


# --- standard input -------------------------------------------------------------------------------


def _reads_secret_stdin(found: Sequence[Word]) -> bool:
    argv = [word.text for word in found]
    head = _head(argv)
    if head < len(argv) and basename(argv[head]) in STDIN_COMMANDS:
        return True
    if head < len(argv) and any(
        basename(argv[head]) == tool and _given(argv[head + 1 :], flag) for tool, flag in STDIN_FLAGS
    ):
        return True  # ``htpasswd -i F U <<< X``
    if any((basename(argv[i]), argv[i + 1]) in PREFIX_STDIN for i in range(min(head, len(argv) - 1))):
        return True  # ``echo X | sudo -S apt update``
    plain = tuple(basename(word) for word in argv[head:] if not word.startswith("-"))
    # (``echo X | tee /run/secrets/db_password``: written to a file named like a credential)
    writes = bool(plain) and plain[0] in STDIN_WRITERS and any(map(_secret_file, plain[1:]))
    if writes or any(
        plain[: len(lead)] == lead and marker in argv[head + 1 :] for lead, marker in STDIN_SECRETS
    ):
        return True
    if any(plain[: len(prompt)] == prompt for prompt in STDIN_PROMPTS):
        return True
    return any(_stdin_option(word) for word in argv[head + 1 :]) or any(
        _stdin_file(argv, index) for index in range(head + 1, len(argv))
    )


#: What names standard input where a file is asked for.
_STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _stdin_file(argv: Sequence[str], index: int) -> bool:
    """A credential's file option given standard input (``--access-token-file=/dev/stdin``,
    ``--password-file -``, ``--key-file=-``): the credential is read from stdin."""
    word = argv[index]
    if not word.startswith("-"):
        return False
    name, equals, value = word.partition("=")
    if not equals:
        value = argv[index + 1] if index + 1 < len(argv) else ""
    if value not in _STDIN_PATHS:
        return False
    parts = words(name)
    return len(parts) > 1 and parts[-1] == "file" and is_secret_name("_".join(parts[:-1]))


def _reads_stdin_arguments(found: Sequence[Word]) -> bool:
    argv = [word.text for word in found]
    head = _head(argv)
    return head < len(argv) and basename(argv[head]) in STDIN_ARGUMENTS


def _stdin_option(word: str) -> bool:
    """``--password-stdin``, ``--passphrase-fd``, ``--with-token``: a credential read from stdin."""
    if not word.startswith("-"):
        return False
    parts = words(word.partition("=")[0])
    if len(parts) > 1 and parts[-1] in STDIN_WORDS:
        return is_secret_name("_".join(parts[:-1]))
    return len(parts) > 1 and parts[0] == "with" and is_secret_name("_".join(parts[1:]))


def _feeder(commands: Sequence[Command], index: int) -> Command | None:
    """The command whose output reaches ``commands[index]`` through a pipe, over filters that only
    decode what passes (``echo B64 | base64 -d | docker login --password-stdin``: ``PIPE_FILTERS``)."""
    at = index - 1
    while at > 0 and commands[at].piped and commands[at - 1].piped and _decodes(commands[at].words):
        at -= 1
    return commands[at] if at >= 0 else None


def _decodes(found: Sequence[Word]) -> bool:
    argv = [word.text for word in found]
    head = _head(argv)
    return head < len(argv) and basename(argv[head]) in PIPE_FILTERS


def _fed_words(command: Command, before: Command | None) -> list[Word]:
    """The words fed to ``command`` on standard input: a here-string or here-document, or what the
    command before it (``echo``, ``printf``) writes to the pipe."""
    fed = list(command.fed)
    if before is not None and before.piped:
        fed += before.fed
    if before is not None and before.piped and before.words:
        argv = [word.text for word in before.words]
        head = _head(argv)
        if head < len(argv) and basename(argv[head]) in ECHO_COMMANDS:
            data = [w for w in before.words[head + 1 :] if not w.text.startswith("-")]
            if basename(argv[head]) == "printf" and data and "%" in data[0].text:
                data = data[1:]
            fed += data
    return fed


def _group_before(commands: Sequence[Command], index: int) -> list[Command]:
    """The commands of a group piped to ``commands[index]`` before the group's last one (which
    :func:`_feeder` gives)."""
    group: list[Command] = []
    at = index - 2
    while at >= 0 and commands[at].grouped and len(group) < 64:
        group.append(commands[at])
        at -= 1
    return group if index >= 1 and commands[index - 1].grouped else []


def _fed_spans(command: Command, before: Command | None) -> list[Span]:
    return [span for word in _fed_words(command, before) if (span := word.span()) is not None]


_FED_LINE = re.compile(r"[^\n\r]+|\\[nr]")
_FED_WORD = re.compile(r"[^\s\\]+")


def _fed_argument_spans(command: Command, before: Command | None) -> list[Span]:
    """``redis-cli <<< 'AUTH default X'``, ``printf 'AUTH X\\nPING' | redis-cli``: a tool that reads
    its commands on standard input as it takes them as arguments (:data:`STDIN_ARGUMENTS`): each line
    fed to it is judged as its arguments."""
    argv = [word.text for word in command.words]
    head = _head(argv)
    spans: list[Span] = []
    for word in _fed_words(command, before):
        for line in re.split(r"\r?\n|\\r\\n|\\n", word.text):
            offset = word.text.find(line) if line else -1
            if offset < 0:
                continue
            found = list(_FED_WORD.finditer(line))
            for index, start, name in judge([argv[head], *(match.group() for match in found)]):
                if index and plausible(found[index - 1].group()[start:], name):
                    match = found[index - 1]
                    span = word.span(offset + match.start() + start, offset + match.end())
                    spans += [span] if span is not None else []
    return spans


# --- files written -----------------------------------------------------------------------------------

#: Credential files whose names say nothing of a credential by the name rule.
_CREDENTIAL_FILES = frozenset({"netrc", "_netrc"})
#: (files of credentials named by their format, written ``user:X`` or ``user * X *`` line by line:
#: rsync's ``rsyncd.secrets``, pppd's ``chap-secrets``/``pap-secrets``, davfs2's ``secrets``, Postfix's
#: ``sasl_passwd``, exim's ``passwd.client``)
_FORMAT_FILES = frozenset({"secrets", "chap-secrets", "pap-secrets", "sasl_passwd", "passwd.client"})


def _secret_file(path: str) -> bool:
    """A file named like a credential (``~/.pgpass``, ``~/.cache/huggingface/token``,
    ``api_key.txt``, ``~/.netrc``)."""
    name = basename(path).lstrip(".")
    if name.lower() in _FORMAT_FILES or name.lower().endswith(".secrets"):  # (``rsyncd.secrets``)
        return True
    stem, dot, suffix = name.rpartition(".")
    if dot and suffix.lower() in FILE_SUFFIXES:
        name = stem
    return name.lower() in _CREDENTIAL_FILES or (bool(name) and is_secret_name(name))


def _written_spans(command: Command, before: Command | None) -> list[Span]:
    """What ``echo``/``printf`` write (``echo X > ~/.pgpass``), or ``tee`` is fed (``echo X | tee
    token``), into a file named like a credential: each word of it that is no text of its own (those
    are read on their own: ``echo 'machine h password X' > ~/.netrc``)."""
    argv = [word.text for word in command.words]
    head = _head(argv)
    if head >= len(argv):
        return []
    tool = basename(argv[head])
    written: list[tuple[Word, int]] = []  # (a word, where its data ends: ``X>~/.token`` is one word)
    if tool == "tee":
        files = [word for word in argv[head + 1 :] if not word.startswith("-")]
        if any(_secret_file(path) for path in files):
            written = [(word, len(word.text)) for word in _fed_words(command, before)]
    elif tool in ECHO_COMMANDS:
        target, written = _echoed(command.words[head + 1 :])
        if target is None or not _secret_file(target):
            return []
        if tool == "printf" and written and "%" in written[0][0].text:
            written = written[1:]
    spans = []
    for word, end in written:
        if not word.holds_text() and plausible(word.text[:end]):
            span = word.span(0, end)
            spans += [span] if span is not None else []
    return spans


def _echoed(found: Sequence[Word]) -> tuple[str | None, list[tuple[Word, int]]]:
    """The file ``echo``'s words are written to (``> FILE``, ``>>FILE``, ``X>FILE``), and its data
    words (each with where its data ends)."""
    target = None
    written: list[tuple[Word, int]] = []
    skip = False
    for word in found:
        cut = word.text.find(">")
        if skip:
            target, skip = word.text, False
        elif word.text in (">", ">>", "1>", "1>>"):
            skip = True
        elif cut >= 0:
            target = word.text[cut:].lstrip(">") or None
            skip = target is None
            written += [(word, cut)] if cut > 0 else []
        elif not word.text.startswith("-"):
            written.append((word, len(word.text)))
    return target, written


# --- argument lists ---------------------------------------------------------------------------------


def is_secret_argument(argv: Sequence[object], index: int) -> bool:
    """True when item ``index`` of an argument list (a JSON array of strings) holds a credential."""
    if not 0 <= index < len(argv) or not isinstance(argv[index], str):
        return False
    if len(argv) <= WHOLE_LIST and all(isinstance(item, str) for item in argv):
        return index in _secret_items(tuple(str(item) for item in argv))
    previous = argv[index - 1] if index else None
    return (
        isinstance(previous, str)
        and previous.startswith("-")
        and "=" not in previous
        and (_credential_option(previous))
    )


@lru_cache(maxsize=4096)
def _secret_items(argv: tuple[str, ...]) -> frozenset[int]:
    if not any(item.startswith("-") or item in NAME_VALUE_WORDS for item in argv) and not (
        argv and basename(argv[0]) in COMMANDS
    ):
        return frozenset()
    return frozenset(index for index, _ in secret_words(argv))


def secret_words(argv: Sequence[str]) -> list[tuple[int, int]]:
    """``(word index, first secret character)`` of the words of ``argv`` (an argument vector written
    otherwise than as a command line: :mod:`jobschema.secrets.vectors`) that hold a credential."""
    return sorted(
        {(index, start) for index, start, name in judge(argv) if plausible(argv[index][start:], name)}
    )
