"""What every reporter shares: the render options, finding order, pointer display and the summary line.

Summary pluralisation: the nouns ``payload``, ``error`` and ``warning`` take an ``s`` unless the count is
exactly 1 (``0 payloads``, ``1 payload``, ``2 payloads``); ``valid``, ``invalid`` and ``skipped`` are
adjectives and never change::

    3 payloads: 1 valid, 2 invalid; 1 error, 0 warnings; 2 skipped
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from jobschema.findings import Finding, PayloadResult, Report
from jobschema.text import plural, visible

__all__ = ["ROOT", "RenderOptions", "ordered", "plural", "shown_pointer", "summary_line", "visible"]

#: How the empty pointer (the whole document) is shown to people.
ROOT = "(root)"


@dataclass(frozen=True)
class RenderOptions:
    """How to render a report.

    ``color`` adds ANSI escapes (text only); ``verbose >= 1`` lists valid payloads (text) and shows
    :attr:`Finding.details`; ``version`` is the tool version json/sarif print; ``rule_descriptions``
    maps a rule id or JSON Schema keyword to a one-line description (sarif rules).
    """

    color: bool = False
    verbose: int = 0
    version: str = "0.1.0"
    rule_descriptions: Mapping[str, str] = field(default_factory=dict)


def ordered(result: PayloadResult) -> list[Finding]:
    """A result's findings in report order: by place in the file, then pointer, rule and message."""
    return sorted(result.findings, key=Finding.sort_key)


def shown_pointer(pointer: str) -> str:
    """The pointer as people read it: ``(root)`` for the whole document."""
    return pointer or ROOT


def summary_line(report: Report) -> str:
    """``N payload(s): V valid, I invalid; E error(s), W warning(s); S skipped``."""
    counts = report.summary()
    return (
        f"{plural(counts['inputs'], 'payload')}: {counts['valid']} valid, {counts['invalid']} invalid; "
        f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}; "
        f"{counts['skipped']} skipped"
    )
