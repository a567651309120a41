"""The data validation produces: findings, per-payload results and the run's report. Never raised."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in one payload.

    ``pointer`` is an RFC 6901 pointer into the payload (through embedded JSON documents, too);
    ``line``/``column`` (1-based) locate it in the file when the payload came from one; ``rule`` is
    the failing JSON Schema keyword (``enum``) or a jobschema rule id (``runai-max-below-min``);
    ``schema_pointer`` locates the failing keyword in the schema, for schema findings; ``path`` is
    the file that ``line``/``column`` refer to (``None`` for stdin); ``details`` are the sub-errors
    of an ``anyOf``/``oneOf`` failure (shown with ``-v``), one line each.
    """

    source: str
    pointer: str
    message: str
    rule: str
    severity: Severity = "error"
    schema: str = ""
    line: int | None = None
    column: int | None = None
    schema_pointer: str | None = None
    path: str | None = None
    details: tuple[str, ...] = field(default=(), compare=False)

    def sort_key(self) -> tuple[int, int, str, str, str]:
        """Order findings by place in the file, then pointer, rule and message."""
        return (self.line or 0, self.column or 0, self.pointer, self.rule, self.message)


@dataclass(frozen=True)
class PayloadResult:
    """The outcome of checking one payload."""

    source: str
    schema: str
    findings: tuple[Finding, ...] = ()
    strict: bool = False

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

    With ``keep_clean=False`` (:func:`jobschema.validate.run.validate_paths`) the results of payloads without
    any finding are only counted, in ``clean``: then memory does not grow with the corpus.
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
