"""The ``github`` format: GitHub Actions workflow commands, so findings become annotations on the PR.

One command per finding, in report order::

    ::error file=PATH,line=L,col=C,title=RULE::SOURCE POINTER: message
    ::warning file=PATH,line=L,col=C,title=RULE::SOURCE POINTER: message

``file`` is :attr:`Finding.path` (the file ``line``/``col`` refer to); ``file``, ``line`` and ``col`` are
left out when unknown (stdin has no file; a HAR entry may have no position). The empty pointer is
``(root)``. Escaping follows the Actions toolkit: in the message ``%`` → ``%25``, ``\\r`` → ``%0D``,
``\\n`` → ``%0A`` (a newline in a message is a line break in the annotation); in property values also
``:`` → ``%3A`` and ``,`` → ``%2C``. Other control characters are shown as escapes (``\\x1b``) so a
payload cannot colour the log. Details: with ``-v`` they follow the message, one per line; without,
the message ends in `` (+N more; -v shows them)``, as in the text format.

The summary is the last line, plain (not ``::notice::``): it belongs in the log, and a notice would
add one more annotation to every run.
"""

from __future__ import annotations

from collections.abc import Mapping

from jobschema.findings import Finding, Report
from jobschema.report.common import RenderOptions, ordered, shown_pointer, summary_text, visible


def escape_data(text: str) -> str:
    """Escape a command's message."""
    return visible(text, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, options: RenderOptions) -> str:
    """One workflow command per finding, then the summary line."""
    return body(report, options) + closing(report.summary(), report.ok, options)


def body(report: Report, options: RenderOptions) -> str:
    """The commands of the report's findings, each ending in a newline (a part of :func:`render`)."""
    return "".join(
        f"{command(finding, options)}\n" for result in report.results for finding in ordered(result)
    )


def closing(counts: Mapping[str, int], ok: bool, options: RenderOptions) -> str:
    """The summary line of ``counts`` (:meth:`Report.summary`) and its newline (``ok`` is not shown)."""
    return summary_text(counts) + "\n"


def frame(counts: Mapping[str, int], ok: bool, options: RenderOptions, filled: bool) -> tuple[str, str, int]:
    """What goes before and after the :func:`body` of every part: the summary line after them."""
    return "", closing(counts, ok, options), 0


def command(finding: Finding, options: RenderOptions) -> str:
    """The ``::error``/``::warning`` command of one finding."""
    properties = [
        f"{key}={escape_property(str(value))}"
        for key, value in (("file", finding.path), ("line", finding.line), ("col", finding.column))
        if value is not None
    ]
    properties.append(f"title={escape_property(finding.rule)}")
    return f"::{finding.severity} {','.join(properties)}::{escape_data(_message(finding, options))}"


def _message(finding: Finding, options: RenderOptions) -> str:
    message = f"{finding.source} {shown_pointer(finding.pointer)}: {finding.message}"
    if finding.details and options.verbose >= 1:
        return "\n".join([message, *finding.details])
    if finding.details:
        return f"{message} (+{len(finding.details)} more; -v shows them)"
    return message
