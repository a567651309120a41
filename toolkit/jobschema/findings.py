"""The data validation produces: findings, per-payload results and the run's report. Never raised.

A :class:`Finding` is made once, by the first check that sees the problem (the parser, the schema,
a rule), and the same object type travels to every report: its place in the payload is a tuple of
reference tokens (keys and indices), spelled as a JSON Pointer only where one is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Literal

from jobschema.pointer import Tokens, from_path

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem in one payload.

    ``tokens`` are the keys and indices from the payload's root to the value (through embedded JSON
    documents, too), :attr:`pointer` their RFC 6901 spelling; ``line``/``column`` (1-based) locate it
    in the file when the payload came from one; ``rule`` is the failing JSON Schema keyword (``enum``)
    or a jobschema rule id (``runai-max-below-min``); ``schema_tokens`` locate the failing keyword in
    the schema, for schema findings; ``path`` is the file that ``line``/``column`` refer to (``None``
    for stdin); ``details`` are the sub-errors of an ``anyOf``/``oneOf`` failure (shown with ``-v``),
    one line each. ``source`` and the place in the file are filled in when the finding is tied to
    its input (:meth:`placed`).
    """

    source: str
    tokens: Tokens
    message: str
    rule: str
    severity: Severity = "error"
    schema: str = ""
    line: int | None = None
    column: int | None = None
    schema_tokens: Tokens | None = None
    path: str | None = None
    details: tuple[str, ...] = field(default=(), compare=False)

    @cached_property
    def pointer(self) -> str:
        """The JSON Pointer of the value (``""``: the whole payload)."""
        return _pointer(self.tokens)

    @cached_property
    def schema_pointer(self) -> str | None:
        """The JSON Pointer of the failing keyword in the schema, for schema findings."""
        return None if self.schema_tokens is None else from_path(self.schema_tokens)

    def sort_key(self) -> tuple[int, int, str, str, str]:
        """Order findings by place in the file, then pointer, rule and message."""
        return (self.line or 0, self.column or 0, self.pointer, self.rule, self.message)

    def under(self, prefix: Tokens) -> Finding:
        """The finding of an embedded document, seen from the document that holds it at ``prefix``."""
        return replace(self, tokens=(*prefix, *self.tokens))

    def placed(
        self, source: str, schema: str, path: str | None, where: tuple[int | None, int | None]
    ) -> Finding:
        """The finding tied to its input: the source, schema, file and ``(line, column)``.

        Every finding of a run is placed once, so this is built field by field from a copy of the
        finding's attributes: a frozen dataclass's ``__init__`` sets each of its eleven fields
        through ``object.__setattr__`` (three times the cost). The copy keeps what the finding
        remembered of fields not changed here (its :attr:`pointer`, read by every report), and the
        pointer is remembered now when it was not: ``cached_property`` takes a lock on its first
        read (Python 3.11), which cost more than the placing itself."""
        tied = object.__new__(type(self))
        attributes = tied.__dict__
        attributes.update(self.__dict__)
        attributes["source"], attributes["schema"], attributes["path"] = source, schema, path
        attributes["line"], attributes["column"] = where
        if "pointer" not in attributes:
            attributes["pointer"] = _pointer(self.tokens)
        return tied


@lru_cache(maxsize=1 << 14)
def _pointer(tokens: Tokens) -> str:
    """:func:`~jobschema.pointer.from_path`, remembered: a corpus repeats the places of its findings."""
    return from_path(tokens)


def problem(
    tokens: Tokens,
    message: str,
    rule: str,
    severity: Severity = "error",
    schema_tokens: Tokens | None = None,
    details: tuple[str, ...] = (),
) -> Finding:
    """A finding not yet tied to an input (no source, no place in a file)."""
    return Finding("", tokens, message, rule, severity, schema_tokens=schema_tokens, details=details)


@dataclass(frozen=True)
class PayloadResult:
    """The outcome of checking one payload; ``version``: the API version whose schema it was checked
    against (``""``: the bundled schema, every version at once)."""

    source: str
    schema: str
    findings: tuple[Finding, ...] = ()
    strict: bool = False
    version: str = ""

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(1 for finding in self.findings if finding.severity == "error")

    @property
    def warnings(self) -> int:
        """How many findings are warnings."""
        return sum(1 for finding in self.findings if finding.severity == "warning")

    @property
    def valid(self) -> bool:
        """No errors; under ``--strict``, no warnings either."""
        return self.errors == 0 and not (self.strict and self.warnings)


@dataclass(frozen=True)
class Report:
    """Every payload's result, in input order, and how many inputs were skipped (e.g. other HAR entries).

    With ``keep_clean=False`` (:func:`jobschema.validate.validate_paths`) the results of payloads
    without any finding are only counted, in ``clean``: then memory does not grow with the corpus.
    """

    results: tuple[PayloadResult, ...]
    skipped: int = 0
    #: Payloads checked clean (valid, no finding) whose results were not kept, to bound memory.
    clean: int = 0

    @property
    def ok(self) -> bool:
        """True when every payload is valid."""
        return all(result.valid for result in self.results)

    def summary(self) -> dict[str, int]:
        """The counts the reports print."""
        return {
            "inputs": len(self.results) + self.clean,
            "valid": sum(1 for result in self.results if result.valid) + self.clean,
            "invalid": sum(1 for result in self.results if not result.valid),
            "errors": sum(result.errors for result in self.results),
            "warnings": sum(result.warnings for result in self.results),
            "skipped": self.skipped,
        }
