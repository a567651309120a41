"""The one reader of side files: schema files, serve's config, credentials, baselines, specs.

A side file is read as a capture is (:func:`jobschema.inputs.files.read_bytes`: a regular file only,
so a FIFO, socket or device named is an error, never a wait) and JSON in it is parsed by
:func:`jobschema.inputs.parse.parse_bytes` (NaN, 1e400, integers of thousands of digits and nesting
past the parser's depth are errors, never exceptions). TOML is parsed by ``tomllib`` with the same
limits. Every problem raises the caller's :class:`~jobschema.errors.ToolkitError` (exit 2) with one
line naming the file and the problem::

    fifo.json: cannot read the schema: is a FIFO (named pipe), not a regular file
    loop.json: cannot read the config file: symbolic link loop
    deep.json:1:1: schema is not valid JSON: nested too deeply to parse
    creds.toml: not valid TOML: at line 2, column 19

A secret file (credentials) never has its text quoted in an error: only where the problem is.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobschema.errors import ToolkitError
from jobschema.inputs.files import DANGLING, LOOP, STDIN_HINT, named, read_bytes
from jobschema.inputs.parse import decode, parse_bytes

#: The most bytes a side file may hold; a secret one (credentials) far fewer.
SIDE_LIMIT = 256 << 20
SECRET_LIMIT = 1 << 20
#: Why ``-`` names no side file: standard input is the captures' (and may never end).
STDIN_SIDE = "standard input (-) is read for captures only, never for a side file"


@dataclass(frozen=True)
class SideFile:
    """A side file named by the user, and how its errors read.

    ``reading`` completes ``cannot read …`` (``the schema``); ``subject`` starts ``… is not valid
    JSON`` (``schema``; empty: ``not valid JSON``); ``error`` is what is raised; ``secret``: never
    quote the file's text (a credentials file)."""

    path: str | Path
    reading: str
    error: type[ToolkitError] = ToolkitError
    subject: str = ""
    secret: bool = False

    @property
    def limit(self) -> int:
        """The most bytes the file may hold: a credentials file is a few lines (:data:`SECRET_LIMIT`),
        anything else at most :data:`SIDE_LIMIT` (a specification of every API version is megabytes)."""
        return SECRET_LIMIT if self.secret else SIDE_LIMIT

    def fail(self, problem: str, where: str = "") -> ToolkitError:
        """The error: ``PATH[WHERE]: PROBLEM``."""
        return self.error(f"{named(self.path)}{where}: {problem}")

    def unreadable(self, reason: str) -> ToolkitError:
        return self.fail(f"cannot read {self.reading}: {reason}")

    def invalid(self, language: str, problem: str, where: str = "") -> ToolkitError:
        subject = f"{self.subject} is " if self.subject else ""
        return self.fail(f"{subject}not valid {language}: {problem}", where)


def read_side_bytes(side: SideFile) -> bytes:
    """The bytes of a side file (a regular file only; never standard input: ``-`` is said to be so,
    where it once read "No such file or directory", true of no file)."""
    name = os.fspath(side.path)
    if name == "-":
        raise side.unreadable(f"{STDIN_SIDE}: name a file") from None
    data = read_bytes(name, limit=side.limit)
    if isinstance(data, OSError):
        raise side.unreadable(read_error(name, data)) from None
    return data


def read_error(name: str, err: OSError) -> str:
    """Why a side file could not be read, in the words :mod:`jobschema.inputs.files` uses."""
    if err.errno == errno.ELOOP:
        return LOOP
    if err.errno in (errno.ENOENT, errno.ENOTDIR) and os.path.islink(name):  # noqa: PTH114
        return DANGLING
    return str(err.strerror or err).removesuffix(STDIN_HINT)


def read_side_text(side: SideFile, empty: bool = False) -> str:
    """The UTF-8 text of a side file (a BOM dropped); binary or not UTF-8 is an error, and so is an
    empty file unless ``empty`` (a format whose empty document means something: TOML, a baseline)."""
    data = read_side_bytes(side)
    if empty and not data.removeprefix(b"\xef\xbb\xbf").strip():
        return ""
    text, problem = decode(data)
    if problem is not None:
        problem = problem.removesuffix(", not JSON text")  # (TOML, a baseline)
        raise side.unreadable(_quiet(problem) if side.secret else problem)
    return text


def _quiet(problem: str) -> str:
    """An encoding problem without the byte it names (which could be part of a secret)."""
    return problem.split(":", 1)[0]


def load_json(side: SideFile) -> Any:
    """The JSON value of a side file. A duplicate key is an error: which value is meant is unclear."""
    parsed = parse_bytes(read_side_bytes(side))
    error = parsed.error
    if error is not None:
        if error.rule == "encoding":
            raise side.unreadable(_quiet(error.message) if side.secret else error.message)
        where = f":{error.line}:{error.column}" if error.where else ""
        raise side.invalid("JSON", error.message.removeprefix("invalid JSON: "), where)
    if parsed.duplicates:
        raise side.invalid("JSON", f'duplicate key "{parsed.duplicates[0]}" (which value is meant?)')
    return parsed.value


def load_toml(side: SideFile) -> dict[str, Any]:
    """The tables of a TOML side file (an empty one is a valid document without any)."""
    import tomllib

    text = read_side_text(side, empty=True)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise side.invalid("TOML", _toml_where(err) if side.secret else str(err)) from None
    except RecursionError:
        raise side.invalid("TOML", "nested too deeply to parse") from None
    except ValueError as err:  # an integer longer than Python converts
        raise side.invalid("TOML", _value_problem(err)) from None


def _toml_where(err: Exception) -> str:
    """The position of a TOML error, without the text around it (which may hold a secret)."""
    message = str(err)
    at = message.rfind("(at ")
    return message[at:].strip("()") if at >= 0 else "syntax error"


def _value_problem(err: ValueError) -> str:
    """``tomllib``'s ValueError on an integer too long, as :mod:`jobschema.inputs.parse` words it."""
    digits = re.search(r"value has (\d+) digits", str(err))
    limit = sys.get_int_max_str_digits()
    if digits:
        return f"integer of {digits.group(1)} digits is longer than {limit} digits"
    return "a value Python cannot hold"
