"""What every reporter shares: the render options, finding order, pointer display and the summary line.

Summary pluralisation: the nouns ``payload``, ``error`` and ``warning`` take an ``s`` unless the count is
exactly 1 (``0 payloads``, ``1 payload``, ``2 payloads``); ``valid``, ``invalid`` and ``skipped`` are
adjectives and never change::

    3 payloads: 1 valid, 2 invalid; 1 error, 0 warnings; 2 skipped
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from jobschema.findings import Finding, PayloadResult, Report

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


def plural(count: int, noun: str) -> str:
    """``1 error``, ``0 errors``, ``2 errors``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary_line(report: Report) -> str:
    """``N payload(s): V valid, I invalid; E error(s), W warning(s); S skipped``."""
    counts = report.summary()
    return (
        f"{plural(counts['inputs'], 'payload')}: {counts['valid']} valid, {counts['invalid']} invalid; "
        f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}; "
        f"{counts['skipped']} skipped"
    )


def _visible_table() -> dict[int, str]:
    table = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    # Line and paragraph separators, and the bidirectional overrides ("Trojan Source").
    for code in (0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[code] = f"\\u{code:04x}"
    return table


@cache
def _table(keep: str) -> dict[int, str]:
    return {code: escaped for code, escaped in _visible_table().items() if chr(code) not in keep}


def visible(text: str, keep: str = "") -> str:
    """Show control characters as escapes (``\\n``, ``\\x1b``) so one finding stays on one line and a
    payload cannot send terminal escape sequences; characters in ``keep`` are left alone."""
    return text.translate(_table(keep))
