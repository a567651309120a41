"""The diff report formats: text (grouped by section, like dyff's ``between``), json and markdown.

Sections are the first part of a path (``spec``, ``masterSpec``; ``result.podList`` under AIHC's
``result`` envelope). Values are compact JSON, shortened in text and markdown, complete in json.
Output is deterministic: changes sorted by path, no timestamps.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from jobschema import __version__
from jobschema.diff.result import Change, DiffResult
from jobschema.secrets.policy import masked_token
from jobschema.secrets.reading import scrub
from jobschema.secrets.shapes import printable
from jobschema.text import compact, log_safe, markdown_code, markdown_text

FORMATS = ("text", "json", "markdown")
MAX_VALUE = 100
_SIGN = {"added": "+", "removed": "-", "changed": "±"}
_STYLE = {"added": "32", "removed": "31", "changed": "33"}


def section(path: str) -> str:
    """The top-level section of a human path."""
    head = path.split(".", 1)[0].split("[", 1)[0]
    if head == "result" and path.startswith("result."):
        rest = path[len("result.") :]
        return "result." + rest.split(".", 1)[0].split("[", 1)[0]
    return head or "(root)"


def value_text(value: Any, limit: int = MAX_VALUE) -> str:
    """``value`` as a diff shows it: JSON with spaces, keys sorted, cut to ``limit`` characters (0: never)."""
    return compact(value, limit, spaced=True)


def values_apart(old: Any, new: Any, limit: int = MAX_VALUE) -> tuple[str, str]:
    """A change's two values as :func:`value_text` shows them, reading apart however alike they are:
    two that would read alike (``café`` composed and decomposed, a no-break or zero-width space, a
    byte-order mark) are shown with every character past ASCII escaped (``"caf\\u00e9"`` →
    ``"cafe\\u0301"``), and two that differ past the cut (long strings) are shown from a little
    before where they differ, ``…`` marking each cut."""
    left, right = value_text(old, 0), value_text(new, 0)
    if not (left.isascii() and right.isascii()) and _skeleton(left) == _skeleton(right):
        left, right = _ascii(old, left), _ascii(new, right)
    if not limit or (len(left) <= limit and len(right) <= limit):
        return left, right
    at = next((i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b), None)
    at = min(len(left), len(right)) if at is None else at
    start = 0 if at < limit - 1 else at - limit // 3  # (from the start while the cut shows where)
    return _cut(left, start, limit), _cut(right, start, limit)


def _cut(text: str, start: int, limit: int) -> str:
    """``limit`` characters of ``text`` from ``start``, ``…`` where it was cut (at most ``limit``)."""
    if len(text) <= limit and not start:
        return text
    head = "…" if start else ""
    room = limit - len(head)
    body = text[start : start + room]
    return head + (body if start + room >= len(text) else body[:-1] + "…")


def _skeleton(text: str) -> str:
    """What ``text`` looks like: composed (NFC), invisible (format) characters left out, every space
    the plain one."""
    composed = unicodedata.normalize("NFC", text)
    return "".join(" " if char.isspace() else char for char in composed if unicodedata.category(char) != "Cf")


def _ascii(value: Any, shown: str) -> str:
    """``value`` as JSON with every character past ASCII escaped (``shown`` when it cannot be)."""
    try:
        return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(", ", ": "))
    except (TypeError, ValueError, RecursionError):
        return shown


def stat(changes: tuple[Change, ...]) -> dict[str, dict[str, int]]:
    """Counts of added, removed and changed per section."""
    counts: dict[str, Counter[str]] = {}
    for change in changes:
        counts.setdefault(section(change.path), Counter())[change.op] += 1
    return {name: {op: counts[name][op] for op in ("added", "removed", "changed")} for name in sorted(counts)}


def render(
    result: DiffResult, fmt: str, *, color: bool = False, stat_only: bool = False, reveal: bool = False
) -> str:
    """The report of ``result`` in ``fmt``.

    The values are masked already, and so is every key and selector value of the paths, pointers
    and pod labels (each read by the whole policy before it was composed:
    :func:`jobschema.diff.secrets.masked_token`). Unless ``reveal`` (``--show-secrets``), the text
    goes through :func:`jobschema.secrets.scrub` last, as a safety net: no secret shape or name
    reaches the report from a warning or a worker-only field either.
    """
    if fmt == "json":
        text = render_json(result, stat_only)
    elif fmt == "markdown":
        text = "\n".join(_markdown(result, stat_only)) + "\n"
    elif fmt == "text":
        text = "\n".join(_text(result, color, stat_only)) + "\n"
    else:
        raise ValueError(f"unknown diff format {fmt!r}")
    return log_safe(printable(text if reveal else scrub(text, level="names")), json_text=fmt == "json")


def report_dict(result: DiffResult, stat_only: bool = False) -> dict[str, Any]:
    """The json report as a dict (keys in the documented order)."""
    report: dict[str, Any] = {
        "tool": "jobschema",
        "version": __version__,
        "status": "same" if result.same else "different",
        "schema": result.schema,
        "mode": result.mode,
        "changes": [] if stat_only else [change.as_dict() for change in result.changes],
        "stat": stat(result.changes),
    }
    if result.mode != "snapshot":
        report["pairs"] = [_pair_dict(pair, stat_only) for pair in result.pairs]
    if result.worker_only is not None:
        report["worker_only"] = result.worker_only
    if result.extra:
        report.update(result.extra)
    report["warnings"] = list(result.warnings)
    return report


def _pair_dict(pair: Any, stat_only: bool) -> dict[str, Any]:
    job = {"job": pair.job} if pair.job else {}
    return {
        **job,
        "left": pair.left,
        "right": pair.right,
        "left_pointer": pair.left_pointer,
        "right_pointer": pair.right_pointer,
        "changes": len(pair.changes) if stat_only else [c.as_dict() for c in pair.changes],
        "expected": dict(pair.expected),
    }


def render_json(result: DiffResult, stat_only: bool = False) -> str:
    """The json report."""
    return json.dumps(report_dict(result, stat_only), indent=2, ensure_ascii=False) + "\n"


def _paint(color: bool, style: str, text: str) -> str:
    return f"\x1b[{style}m{text}\x1b[0m" if color else text


def _change_lines(change: Change, color: bool) -> Iterator[str]:
    sign = _paint(color, _STYLE[change.op], _SIGN[change.op])
    mark = _paint(color, "2", " (volatile)") if change.volatile else ""
    if change.op == "changed":
        old, new = values_apart(change.old, change.new)
        yield f"  {sign} {change.path}: {old} → {new}{mark}"
    else:
        value = change.new if change.op == "added" else change.old
        yield f"  {sign} {change.path}: {value_text(value)}{mark}"


def _sections(changes: tuple[Change, ...], color: bool) -> Iterator[str]:
    current = None
    for change in sorted(changes, key=lambda c: (section(c.path), c.sort_key())):
        if section(change.path) != current:
            current = section(change.path)
            yield _paint(color, "1", current)
        yield from _change_lines(change, color)


def _summary(result: DiffResult) -> str:
    counts = Counter(change.op for change in result.changes)
    if result.same:
        return f"same ({result.schema}, {result.mode})"
    return (
        f"different ({result.schema}, {result.mode}): {counts['changed']} changed, {counts['added']} added, "
        f"{counts['removed']} removed"
    )


def _text(result: DiffResult, color: bool, stat_only: bool) -> Iterator[str]:
    if stat_only:
        for name, counts in stat(result.changes).items():
            yield f"{name}: {counts['changed']} changed, {counts['added']} added, {counts['removed']} removed"
    elif result.mode in ("snapshot", "across"):
        yield from _sections(result.changes, color)
        yield from _only_text(result)
    else:
        yield from _pairs_text(result, color)
    if result.worker_only:
        yield "worker-only fields (spec only, not compared): " + ", ".join(
            f"{key}={value_text(value, 40)}" for key, value in result.worker_only.items()
        )
    for warning in result.warnings:
        yield _paint(color, "35", "warning: ") + warning
    yield _summary(result)


def _only_text(result: DiffResult) -> Iterator[str]:
    """A v1 against a v2 answer: the members only one API has (not compared, not a change)."""
    for side in ("left", "right"):
        only = result.extra.get(f"only_{side}")
        if only:
            yield f"only in {side} (not compared): {', '.join(only)}"


def _pairs_text(result: DiffResult, color: bool) -> Iterator[str]:
    jobs = result.extra.get("jobs")
    if jobs:
        yield from _jobs_text(result, jobs, color)
        return
    yield from _history_lines(result.pairs, color, result.mode == "history")


#: Comparisons without a change in a row that a history's text report says in one line (fewer are
#: as short said one by one).
SAME_RUN = 3


def _history_lines(pairs: Sequence[Any], color: bool, history: bool) -> Iterator[str]:
    """Each comparison's lines; in a history, a run of :data:`SAME_RUN` or more in a row without a
    change is one line saying how many it holds (``FILE:1 → FILE:300: same (299 comparisons, no
    change)``): a poller that wrote the same answer for hours is not hundreds of lines."""
    run: list[Any] = []
    for pair in [*pairs, None]:
        if history and pair is not None and not pair.changes and not pair.expected:
            run.append(pair)
            continue
        if len(run) >= SAME_RUN:
            head = f"{run[0].left} → {run[-1].right}"
            yield _paint(color, "1", head) + f": same ({len(run)} comparisons, no change)"
        else:
            for same in run:
                yield from _pair_lines(same, color)
        run = []
        if pair is not None:
            yield from _pair_lines(pair, color)


def _jobs_text(result: DiffResult, jobs: list[dict[str, Any]], color: bool) -> Iterator[str]:
    """A history of several jobs: each job's heading, then its comparisons."""
    of_job: dict[str, list[Any]] = {}
    for pair in result.pairs:  # (grouped once: a recording may hold thousands of jobs)
        of_job.setdefault(pair.job, []).append(pair)
    for job in jobs:
        pairs = of_job.get(job["job"], [])
        heading = f"job {job['job']} ({job['schema']})"
        alone = "" if pairs else ": 1 snapshot, nothing to compare"
        yield _paint(color, "1", heading) + alone
        yield from _history_lines(pairs, color, result.mode == "history")


def _pair_lines(pair: Any, color: bool) -> Iterator[str]:
    yield _paint(color, "1", f"{pair.left} → {pair.right}") + ("" if pair.changes else ": same")
    for change in pair.changes:
        yield from _change_lines(change, color)
    if pair.expected:
        folded = ", ".join(f"{path} ({count})" for path, count in pair.expected)
        yield f"  (expected per-replica differences: {folded})"


def _row(change: Change) -> str:
    if change.op == "changed":
        old, new = map(markdown_code, values_apart(change.old, change.new, 80))
        return f"| {change.op} | {markdown_code(change.path)} | {old} | {new} |"
    old = "" if change.op == "added" else markdown_code(value_text(change.old, 80))
    new = "" if change.op == "removed" else markdown_code(value_text(change.new, 80))
    return f"| {change.op} | {markdown_code(change.path)} | {old} | {new} |"


def _markdown(result: DiffResult, stat_only: bool) -> Iterator[str]:
    yield f"### jobschema diff: {_summary(result)}"
    yield ""
    if result.same:
        yield "No differences."
    elif stat_only:
        yield "| section | changed | added | removed |"
        yield "| --- | ---: | ---: | ---: |"
        for name, counts in stat(result.changes).items():
            yield f"| `{name}` | {counts['changed']} | {counts['added']} | {counts['removed']} |"
    elif result.mode in ("snapshot", "across"):
        yield "| op | path | old | new |"
        yield "| --- | --- | --- | --- |"
        yield from (_row(change) for change in result.changes)
    else:
        yield "| between | op | path | old | new |"
        yield "| --- | --- | --- | --- | --- |"
        for pair in result.pairs:
            job = f"{masked_token(pair.job)}: " if pair.job else ""  # (read before it is escaped)
            between = (
                f"{markdown_text(job + masked_token(pair.left))} → {markdown_text(masked_token(pair.right))}"
            )
            yield from (f"| {between} {_row(c)}" for c in pair.changes)
    for side in ("left", "right") if result.mode == "across" else ():  # (as the text report lists them)
        only = result.extra.get(f"only_{side}")
        if only and not stat_only:
            yield ""
            yield f"Only in {side} (not compared): " + ", ".join(map(markdown_code, only))
    for warning in result.warnings:
        yield ""
        yield f"> **warning:** {markdown_text(warning)}"
