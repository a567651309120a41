"""``timeline --format html``: one self-contained page (inline CSS and SVG; no script, no network, a
Content-Security-Policy that forbids both) with a Gantt-like lane per job and per pod below it, each
state in its colour, a hover title with the exact times, each lane's states as a table (for a screen
reader, a printer, or eyes that do not tell the colours apart), and the changes between answers beside
each job. Readable printed and in dark mode.

Jobs drawn by time share a time axis (the earliest start to the latest end of the jobs on it), in
UTC, while each job on it spans at least :data:`MIN_SHARE` of it; jobs far apart in time (or in
length) are drawn on axes of their own, each job's ticks saying its axis. The ticks say the date
when an axis spans more than one day. A job whose inputs say no time, or
one moment only (a Run:ai recording's NDJSON alone), has no axis: its lanes show the states in order,
evenly, and say so. A state of unknown start lies in the gap between the known ones around it.

Payload text is shown as text: HTML-escaped, and its control, line-separator and bidi characters
shown as escapes (``\\u202e``), as the text format shows them; inside a sentence each piece is
isolated (``<bdi>``) and cut to :data:`MAX_TEXT` characters, saying how many more. The page is
bounded whatever the history: a lane of more than :data:`MAX_RECTS` states is drawn in
:data:`COLUMNS` columns (each a stack of the states that held it, as high as their share of its
time, its title naming each share); a lane's table and a job's changes list the first
:data:`MAX_ROWS` and :data:`MAX_CHANGES` and say how many more (``-f json`` lists them all).
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

from jobschema.lifecycle import ORDER, TERMINAL
from jobschema.text import visible
from jobschema.timeline.read import parse_time
from jobschema.timeline.render import duration, impossible_text, lasted, notes, out_of_order_text

#: Lane geometry: the SVG's own units (it scales to the page's width).
WIDTH = 1000
HEIGHT = 18
#: The width of a terminal state's mark (the job ended there; nothing follows).
MARK = 12.0
ENDED = TERMINAL  # (the lifecycle's terminal states)
#: A lane of more states than this is drawn in columns (at most COLUMNS stacks of the states): no page
#: holds a rect per state of a job that flapped a hundred thousand times (nor could a screen show them).
MAX_RECTS = 400
#: The columns a dense lane is drawn in (each WIDTH / COLUMNS units wide).
COLUMNS = 250
#: A stretch narrower than this (SVG units) has no outline: the outline would hide its colour.
THIN = 6.0
#: Rows of a lane's table of states, and changes listed per job, at most.
MAX_ROWS = 500
MAX_CHANGES = 1000
#: What a job drawn without an axis says (its inputs give no time, or one moment only).
UNTIMED = "its inputs do not say how long its states lasted: they are shown in order, evenly"
#: What the page may load or run: nothing but its own inline style.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_CSS = """
:root { --bg:#ffffff; --fg:#1f2328; --muted:#59636e; --grid:#d1d9e0; --panel:#f6f8fa;
  --waiting:#bf8700; --starting:#8250df; --running:#1a7f37; --stopping:#bf3989; --succeeded:#0969da;
  --failed:#cf222e; --stopped:#6e7781; --unknown:#afb8c1; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --muted:#9198a1;
  --grid:#3d444d; --panel:#151b23; --waiting:#d29922; --starting:#a371f7; --running:#3fb950;
  --stopping:#db61a2; --succeeded:#4493f8; --failed:#f85149; --stopped:#9198a1; --unknown:#656c76; } }
* { box-sizing: border-box; }
body { margin: 1.5rem; background: var(--bg); color: var(--fg); overflow-wrap: anywhere;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.3rem; margin: 0 0 .25rem; } .muted { color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: .4rem 1rem; margin: .75rem 0 1rem; }
.overview ul { margin: 0 0 1rem; padding-left: 1.25rem; } .overview li { margin: .1rem 0; }
.overview .state::before, .legend span::before { content: ""; display: inline-block; width: .8em;
  height: .8em; margin-right: .35em; border-radius: 2px; background: var(--c); vertical-align: -1px; }
.job { border: 1px solid var(--grid); border-radius: 6px; padding: .75rem; margin-bottom: 1rem;
  background: var(--panel); break-inside: avoid; }
.job h2 { font-size: 1rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.lane, .axis-row { display: grid; grid-template-columns: minmax(8rem, 16rem) minmax(0, 1fr); gap: .75rem;
  align-items: center; margin: 2px 0; }
.label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: 12px; }
.lane.job-lane .label { font-weight: 600; }
svg.bar { width: 100%; height: 18px; display: block; background: var(--bg); border-radius: 3px; }
svg.bar rect { stroke: var(--bg); stroke-width: 1; vector-effect: non-scaling-stroke; }
svg.bar rect.thin { stroke: none; }
.axis { position: relative; height: 1.3em; font-size: 11px; color: var(--muted);
  container-type: inline-size; }
.tick { position: absolute; top: 0; white-space: nowrap; transform: translateX(-50%); }
.tick.t0 { left: 0; transform: none; } .tick.t1 { left: 25%; } .tick.t2 { left: 50%; }
.tick.t3 { left: 75%; } .tick.t4 { left: auto; right: 0; transform: none; }
@container (max-width: 34rem) { .tick.t1, .tick.t3 { display: none; } }
@container (max-width: 16rem) { .tick.t2 { display: none; } }
@media (max-width: 40rem) { .lane, .axis-row { grid-template-columns: 6.5rem minmax(0, 1fr); gap: .5rem; } }
details { margin-top: .5rem; } summary { cursor: pointer; color: var(--muted); }
.impossible { color: var(--failed); font-weight: 600; margin: .25rem 0; }
ol.changes { margin: .25rem 0 0; padding-left: 1.25rem; font: 12px/1.4 ui-monospace, monospace;
  overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: .5rem 0; font-size: 12px; }
caption { text-align: left; font-weight: 600; overflow-wrap: anywhere; }
th, td { border: 1px solid var(--grid); padding: 1px .4rem; text-align: left; overflow-wrap: anywhere; }
@media print { :root { color-scheme: light; --bg:#ffffff; --fg:#1f2328; --muted:#59636e; --grid:#d1d9e0;
  --panel:#ffffff; --waiting:#bf8700; --starting:#8250df; --running:#1a7f37; --stopping:#bf3989;
  --succeeded:#0969da; --failed:#cf222e; --stopped:#6e7781; --unknown:#afb8c1; }
  body { margin: 0; } details { display: block; } details > summary { display: none; }
  details::details-content { content-visibility: visible; display: contents; }
  details > ol { display: block; } .job { background: none; } }
"""


def render_html(document: dict[str, Any]) -> str:
    """The page for a report (:func:`jobschema.timeline.render.report`), every string escaped."""
    jobs = document["jobs"]
    spans = [_known(job) for job in jobs]
    axis = _axis([span for span in spans if span is not None])
    axes, groups = _axes(spans)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>jobschema timeline: {_count(len(jobs), 'job')}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Job timeline</h1>",
        f'<p class="muted">{_e(_subtitle(jobs, axis, sum(span is None for span in spans), groups))}</p>',
        _legend(),
        _overview(jobs),
    ]
    parts += [
        _job(index, job, own, untimed=own is None and axis is not None, group=group)
        for index, (job, own, group) in enumerate(zip(jobs, axes, groups, strict=True))
    ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


#: The order the overview names the jobs' final states in: those a person looks for first.
OVERVIEW_ORDER = ("failed", "stopped", "unknown", "stopping", "running", "starting", "waiting", "succeeded")


def _overview(jobs: list[dict[str, Any]]) -> str:
    """Above two jobs or more: each final state with the jobs that ended in it, failed first, each a
    link to its section (a page of a hundred jobs is found, not scrolled, and the failed come first);
    a job the lifecycle saw do what it calls impossible is named again after them."""
    if len(jobs) < 2:
        return ""
    held: dict[str, list[str]] = {}
    flagged = []
    for number, job in enumerate(jobs):
        link = f'<a href="#job-{number}">{_p(job["name"] or job["job"])}</a>'
        held.setdefault(job["final"]["state"], []).append(link)
        if job["impossible"]:
            flagged.append(link)
    known = [state for state in OVERVIEW_ORDER if state in held]
    rows = [
        f'<li><span class="state" style="--c:var(--{_e(state)})">{_e(state)}</span> '
        f"({len(held[state])}): {', '.join(held[state])}</li>"
        for state in [*known, *sorted(set(held) - set(known))]
    ]
    if flagged:
        said = f"⚠ impossible transitions ({len(flagged)}): {', '.join(flagged)}"
        rows.append(f'<li class="impossible">{said}</li>')
    return f'<nav class="overview" aria-label="jobs by final state"><ul>{"".join(rows)}</ul></nav>'


def _known(job: dict[str, Any]) -> tuple[float, float] | None:
    """The time a job's lanes are drawn on: the first and last moment its answers say (its lanes'
    known starts and ends), or the job lane's own when the pods' moments would make it narrower than
    :data:`MIN_SHARE` of that (a pod created a month before its job: the pods' stretches outside are
    cut at the ends, their titles and tables saying their times, :data:`OUTSIDE`). None when they
    say no time, or one moment only (a Run:ai recording's NDJSON alone: its submit time): such a
    job is drawn in order, evenly, never on a time axis that would make up how long it took."""
    own = _range(job["segments"])
    every = _range([*job["segments"], *(p for pod in job["pods"] for p in pod["segments"])])
    if own is not None and every is not None and own[1] - own[0] < MIN_SHARE * (every[1] - every[0]):
        return own
    return every


def _so_far(segment: dict[str, Any]) -> float | None:
    """The last answer's moment for a state still going then (its start and its seconds so far)."""
    start = _t(segment["start"])
    if segment["end"] or start is None or segment["seconds"] is None or segment["state"] in ENDED:
        return None
    return start + segment["seconds"]


def _range(segments: list[dict[str, Any]]) -> tuple[float, float] | None:
    """The first and last moment ``segments`` say; None for none, or one moment only."""
    times = [t for s in segments for t in (_t(s["start"]), _t(s["end"]), _so_far(s)) if t is not None]
    low, high = (min(times), max(times)) if times else (0.0, 0.0)
    return (low, high) if high > low else None


#: What a job whose pods' times lie far outside its own says: its axis is its own.
OUTSIDE = (
    "some of its pods' times lie far outside the job's own: the axis is the job's, and their "
    "stretches are cut at its ends (their titles and tables give their times)"
)


def _axis(spans: list[tuple[float, float]]) -> tuple[float, float] | None:
    """The time range the lanes of every job drawn by time share (None: none is)."""
    if not spans:
        return None
    return min(low for low, _ in spans), max(high for _, high in spans)


#: A job drawn by time spans at least this share of its axis: jobs far apart (months between two
#: runs of an hour) or of lengths far apart are drawn on axes of their own, never as slivers of one.
MIN_SHARE = 0.1


def _axes(
    spans: list[tuple[float, float] | None],
) -> tuple[list[tuple[float, float] | None], list[int | None]]:
    """Each job's axis and its number among the page's axes, from 1 in order of time (None: it is
    drawn without one). In order of their first moment, a job shares the axis of the jobs before it
    while every job on it, this one included, spans at least :data:`MIN_SHARE` of it; else it begins
    an axis of its own. Linear after the sort."""
    order = sorted((i for i, span in enumerate(spans) if span is not None), key=lambda i: (spans[i], i))
    groups: list[tuple[list[int], float, float, float]] = []  # (members, low, high, shortest span)
    for index in order:
        span = spans[index]
        assert span is not None
        low, high = span
        if groups:
            members, g_low, g_high, shortest = groups[-1]
            wide = max(g_high, high) - min(g_low, low)
            least = min(shortest, high - low)
            if least >= MIN_SHARE * wide:
                members.append(index)
                groups[-1] = (members, min(g_low, low), max(g_high, high), least)
                continue
        groups.append(([index], low, high, high - low))
    axes: list[tuple[float, float] | None] = [None] * len(spans)
    numbers: list[int | None] = [None] * len(spans)
    for number, (members, low, high, _) in enumerate(groups, 1):
        for index in members:
            axes[index], numbers[index] = (low, high), number
    return axes, numbers


def _t(text: str | None) -> float | None:
    return parse_time(text) if text else None


def _subtitle(
    jobs: list[dict[str, Any]],
    axis: tuple[float, float] | None,
    untimed: int,
    groups: list[int | None],
) -> str:
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job["final"]["state"]] = counts.get(job["final"]["state"], 0) + 1
    head = f"{_count(len(jobs), 'job')} ({', '.join(f'{n} {state}' for state, n in sorted(counts.items()))})"
    if axis is None:
        return f"{head}; the inputs do not say how long the states lasted: they are shown in order, evenly"
    start, end = axis
    shown = f"{head}, {duration(end - start)} from first to last; times in UTC"
    count = max((group for group in groups if group is not None), default=0)
    if count > 1:
        shown += f"; {count} time axes: jobs far apart in time or in length are drawn each on its own"
    return shown + (f"; {_count(untimed, 'job')} without times shown in order, evenly" if untimed else "")


def _legend() -> str:
    items = "".join(f'<span role="listitem" style="--c:var(--{s.value})">{s.value}</span>' for s in ORDER)
    return f'<div class="legend" role="list" aria-label="state colours">{items}</div>'


def _job(
    number: int,
    job: dict[str, Any],
    axis: tuple[float, float] | None,
    *,
    untimed: bool = False,
    group: int | None = None,
) -> str:
    final = job["final"]
    name = f" {_p(job['name'])}" if job["name"] else ""
    reason = f": {_p(final['reason'])}" if final["reason"] else ""
    title = f"{_e(job['api'])} {_p(job['job'])}{name}"
    totals = (
        f"{_e(final['state'])} ({_p(final['phase'])}{reason}); waiting {duration(job['waiting_seconds'])}, "
        f"running {duration(job['running_seconds'])}; GPU-hours "
        f"{'?' if job['gpu_hours'] is None else format(job['gpu_hours'], '.2f')}"
    )
    if lasted(job["segments"][-1]).endswith(" so far"):
        totals += f"; still {_e(job['segments'][-1]['state'])} at its last answer"
    segments = _flagged(job["segments"], job["impossible"])
    lanes = [(_p(job["name"] or job["job"]), _cut(job["name"] or job["job"]), segments)]
    for pod in job["pods"]:
        counted = f" · {_count(pod['restarts'], 'restart')}" + (
            f", {pod['replacements']} replaced" if pod["replacements"] else ""
        )
        flagged = _flagged(pod["segments"], pod["impossible"])
        lanes.append((_p(pod["name"]) + counted, _cut(pod["name"]) + counted, flagged))
    drawn = "".join(
        _lane("job-lane" if i == 0 else "pod-lane", shown, label, segments, axis, f"states-{number}-{i}")
        for i, (shown, label, segments) in enumerate(lanes)
    )
    tables = "".join(
        _table(shown, segments, f"states-{number}-{i}") for i, (shown, _, segments) in enumerate(lanes)
    )
    changes = "".join(_change(change) for change in job["changes"][:MAX_CHANGES])
    if len(job["changes"]) > MAX_CHANGES:
        changes += f"<li>… {len(job['changes']) - MAX_CHANGES} more changes: -f json lists them all</li>"
    note = "".join(
        f'<p class="impossible" role="note">⚠ {_e(impossible_text(flag))}: {IMPOSSIBLE}</p>'
        for flag in job["impossible"]
    )
    note += "".join(
        f'<p class="muted" role="note">{_e(out_of_order_text(job, flag))}: {OUT_OF_ORDER}</p>'
        for flag in job["out_of_order"]
    )
    note += "".join(
        f'<p class="impossible" role="note">⚠ {_e(said)}: {IMPOSSIBLE}</p>'
        for said in notes(job, pods=True)
        if said.startswith("pod ")
    )
    note += f'<p class="muted">{UNTIMED}</p>' if untimed else ""
    if axis is not None and _pods_outside(job, axis):
        note += f'<p class="muted">{OUTSIDE}</p>'
    return (
        f'<section class="job{_axis_of(group)}" id="job-{number}" data-job="{_e(job["job"])}">'
        f"<h2>{title}</h2>"
        f'<p class="muted">{totals}</p>{note}{_ticks(axis)}{drawn}'
        f'<details class="states"><summary>the states as {_count(len(lanes), "table")}</summary>'
        f"{tables}</details>"
        f"<details><summary>{_count(len(job['changes']), 'change')} between answers</summary>"
        f'<ol class="changes">{changes}</ol></details></section>'
    )


#: What the page says of a start said out of order.
OUT_OF_ORDER = "a clock gone back: its start is unknown, drawn between the known ones"
#: What the page says of a transition the lifecycle calls impossible.
IMPOSSIBLE = "the lifecycle has no way there from a job that ended; drawn as the answers say it"


def _flagged(segments: list[dict[str, Any]], flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A lane's segments, each one a transition the lifecycle calls impossible reached carrying the
    state it came after (``impossible``), for its bar's title and its table row."""
    segments = list(segments)
    for flag in flags:
        index = flag["segment"]
        if 0 <= index < len(segments):
            segments[index] = {**segments[index], "impossible": flag["from"]["state"]}
    return segments


def _pods_outside(job: dict[str, Any], axis: tuple[float, float]) -> bool:
    """True when a pod's known moment lies outside ``axis`` (drawn cut at its ends)."""
    every = _range([p for pod in job["pods"] for p in pod["segments"]])
    return every is not None and (every[0] < axis[0] or every[1] > axis[1])


def _axis_of(group: int | None) -> str:
    """The class naming a job's time axis (``axis-2``: the page's second, in order of time)."""
    return "" if group is None else f" axis-{group}"


def _change(change: dict[str, Any]) -> str:
    """A change between answers, its place and each value apart (``<bdi>``: a right-to-left value
    cannot reorder the arrow between two of them); the text as one piece when its parts do not
    compose it (a report written otherwise)."""
    text, path, old, new = change["text"], change.get("path"), change.get("old"), change.get("new")
    if path is None and new is not None and text == f"first answer: {new}":
        body = f"first answer: {_p(new)}"
    elif path is not None and old is not None and new is not None and text == f"± {path}: {old} → {new}":
        body = f"± {_p(path)}: {_p(old)} → {_p(new)}"
    elif path is not None and new is not None and text == f"+ {path}: {new}":
        body = f"+ {_p(path)}: {_p(new)}"
    elif path is not None and old is not None and text == f"- {path}: {old}":
        body = f"- {_p(path)}: {_p(old)}"
    else:
        body = _p(text)
    return f"<li><time>{_e(change['at'] or '?')}</time> {body}</li>"


def _ticks(axis: tuple[float, float] | None) -> str:
    """The axis' five ticks, in a row of the lanes' grid (so it lines up with the bars at any width);
    the date with the time when the history spans more than one day, the date with its year when it
    spans years. A narrow axis shows fewer."""
    if axis is None:
        return ""
    start, end = axis
    moments = [datetime.fromtimestamp(start + (end - start) * i / 4, UTC) for i in range(5)]
    spans_years = moments[0].year != moments[-1].year
    spans_days = moments[0].date() != moments[-1].date()
    shape = "%m-%d %H:%M" if spans_days else "%H:%M:%S"

    def said(moment: datetime) -> str:  # (the year too when they differ; %Y would not pad year 999)
        return f"{moment.year:04d}-{moment:%m-%d}" if spans_years else moment.strftime(shape)

    ticks = "".join(f'<span class="tick t{i}">{said(m)}</span>' for i, m in enumerate(moments))
    return f'<div class="axis-row" aria-hidden="true"><div></div><div class="axis">{ticks}</div></div>'


def _lane(
    kind: str,
    shown: str,
    label: str,
    segments: list[dict[str, Any]],
    axis: tuple[float, float] | None,
    table: str,
) -> str:
    """A lane: its label (``shown``: HTML; ``label``: its text, for the title and the bar's name)
    and its bar, the narrow stretches drawn over the wide ones (a state of no known length is never
    hidden under the next)."""
    spans = _spans(segments, axis)
    if len(segments) > MAX_RECTS:
        rects = _columns(segments, spans)
    else:
        wide: list[str] = []
        thin: list[str] = []
        for s, (x0, x1) in zip(segments, spans, strict=True):
            (thin if x1 - x0 < THIN else wide).append(_rect(s["state"], x0, x1, _tip(s)))
        rects = "".join(wide + thin)
    return (
        f'<div class="lane {kind}"><div class="label" title="{_e(label)}">{shown}</div>'
        f'<svg class="bar" viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="none" role="img" '
        f'aria-label="{_e(label)}: {_count(len(segments), "state")}" aria-describedby="{table}">'
        f"{rects}</svg></div>"
    )


def _table(shown: str, segments: list[dict[str, Any]], ident: str) -> str:
    """A lane's states as a table: what the colours say, in words (the first :data:`MAX_ROWS`)."""
    rows = "".join(
        f"<tr><td>{_e(s['state'])}{_after(s)}</td><td>{_c(s['phase'])}</td><td>{_e(s['start'] or '?')}</td>"
        f"<td>{_e(s['end'] or '')}</td><td>{lasted(s)}</td></tr>"
        for s in segments[:MAX_ROWS]
    )
    if len(segments) > MAX_ROWS:
        more = len(segments) - MAX_ROWS
        rows += f'<tr><td colspan="5">… {more} more states: -f json lists them all</td></tr>'
    return (
        f'<table id="{ident}"><caption>{shown}: {_count(len(segments), "state")}</caption>'
        "<thead><tr><th>state</th><th>phase</th><th>start</th><th>end</th><th>duration</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _after(segment: dict[str, Any]) -> str:
    """`` (impossible after succeeded)`` for a segment the lifecycle calls impossible, else nothing."""
    ended = segment.get("impossible")
    return f" (impossible after {_e(ended)})" if ended else ""


def _tip(segment: dict[str, Any]) -> str:
    when = f"{segment['start'] or '?'} → {segment['end'] or ('now' if segment['start'] else '?')}"
    ended = segment.get("impossible")
    return (
        f"{segment['state']}: {_cut(segment['phase'])}, {when}"
        + (f" ({lasted(segment)})" if segment["seconds"] is not None else "")
        + (f"; impossible after {ended}" if ended else "")
    )


def _rect(state: str, x0: float, x1: float, tip: str, top: float = 0.0, height: float = HEIGHT) -> str:
    width = max(x1 - x0, 2.0)
    thin = " thin" if width < THIN or height < HEIGHT else ""
    return (
        f'<rect class="seg s-{_e(state)}{thin}" x="{x0:.2f}" y="{top:g}" width="{width:.2f}" '
        f'height="{height:g}" fill="var(--{_e(state)})"><title>{_e(tip)}</title></rect>'
    )


def _columns(segments: list[dict[str, Any]], spans: list[tuple[float, float]]) -> str:
    """A dense lane in :data:`COLUMNS` columns, each a stacked bar of the states that held it, each
    state's height its share of the column's time (a job that flapped shows both colours, never the
    one that won a rounding); runs of columns alike are one stack, whose title names how many states
    it holds, from when to when, and each state's share. Linear in the states (each adds to the
    columns its stretch covers)."""
    step = WIDTH / COLUMNS
    cover: list[dict[str, float]] = [{} for _ in range(COLUMNS)]
    first: list[int | None] = [None] * COLUMNS
    last = [0] * COLUMNS
    for index, (segment, (x0, x1)) in enumerate(zip(segments, spans, strict=True)):
        low = min(COLUMNS - 1, max(0, int(x0 // step)))
        high = min(COLUMNS - 1, max(low, int(max(x0, x1 - 1e-9) // step)))
        for column in range(low, high + 1):
            share = max(0.0, min(x1, (column + 1) * step) - max(x0, column * step))
            held = cover[column]
            held[segment["state"]] = held.get(segment["state"], 0.0) + share
            first[column] = index if first[column] is None else first[column]
            last[column] = index
    runs: list[tuple[int, int, tuple[tuple[str, int], ...]]] = []  # (first column, last column, shares)
    for column in range(COLUMNS):
        if first[column] is None:
            continue
        shares = _shares(cover[column], segments[last[column]]["state"])
        if runs and runs[-1][2] == shares and runs[-1][1] == column - 1:
            runs[-1] = (runs[-1][0], column, shares)
        else:
            runs.append((column, column, shares))
    return "".join(_stack(segments, first, last, run, step) for run in runs)


def _shares(held: dict[str, float], fallback: str) -> tuple[tuple[str, int], ...]:
    """Each state's share of a column in percent, in the lifecycle's order (those under half a percent
    left out); ``fallback`` whole when every state in it lasted no time."""
    whole = sum(held.values())
    if whole <= 0:
        return ((fallback, 100),)
    rank = {state.value: i for i, state in enumerate(ORDER)}
    ordered = sorted(held.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))
    shares = tuple((state, round(100 * part / whole)) for state, part in ordered)
    return tuple((state, share) for state, share in shares if share > 0) or ((ordered[-1][0], 100),)


def _stack(
    segments: list[dict[str, Any]],
    first: list[int | None],
    last: list[int],
    run: tuple[int, int, tuple[tuple[str, int], ...]],
    step: float,
) -> str:
    low, high, shares = run
    begin = first[low]
    assert begin is not None
    end = last[high]
    since, until = segments[begin]["start"] or "?", segments[end]["end"] or segments[end]["start"] or "?"
    named = ", ".join(f"{state} {share}%" for state, share in sorted(shares, key=lambda item: -item[1]))
    tip = f"{_count(end - begin + 1, 'state')}, {since} → {until}: {named}"
    whole = sum(share for _, share in shares)
    rects, top = [], 0.0
    for state, share in shares:
        height = HEIGHT * share / whole
        rects.append(_rect(state, low * step, (high + 1) * step, tip, top, height))
        top += height
    return "".join(rects)


def _spans(segments: list[dict[str, Any]], axis: tuple[float, float] | None) -> list[tuple[float, float]]:
    """Where each segment lies on the lane: by its times on the shared axis, else (no axis, or no
    start known in the lane) by its place, evenly. A segment whose start is unknown lies in the gap
    between the known moments around it, which it shares evenly with the segments of that gap (the
    one before it included), so a lane always reads left to right in the order of its states; one
    after the last known moment lies there, with no length. Linear: one pass from each end."""
    starts = [_t(s["start"]) for s in segments]
    count = len(segments)
    if axis is None or all(start is None for start in starts):
        share = WIDTH / max(1, count)
        return [(index * share, (index + 1) * share) for index in range(count)]
    low, high = axis
    at = _placed(starts)
    scale = WIDTH / (high - low)
    spans = []
    for index, segment in enumerate(segments):
        x = min(max((at[index] - low) * scale, 0.0), WIDTH)
        end = _t(segment["end"])
        if end is None and segment["state"] in ENDED:  # it ended then: a mark, not a bar to the axis' end
            x = min(x, WIDTH - MARK)
            spans.append((x, x + MARK))
            continue
        if index + 1 < count:
            end = at[index + 1]
        elif end is None:
            end = high  # (still going when the last answer came)
        spans.append((x, min(max((end - low) * scale, x), WIDTH)))
    for index in range(count - 2, -1, -1):  # (a mark moved in from the lane's end: what it follows ends)
        x0, x1 = spans[index]
        x1 = min(x1, spans[index + 1][0])
        spans[index] = (min(x0, x1), x1)
    return spans


def _placed(starts: list[float | None]) -> list[float]:
    """Each segment's start: its own, else its share of the gap from the known start before it to the
    known start after it, shared evenly by the segments in the gap (the known one before included);
    with no known start after, that of the one before; with none before, that of the one after. At
    least one start is known. Linear: the next known start of each found in one pass from the end."""
    count = len(starts)
    following = [count] * count  # the index of the next known start after each (count: none)
    upcoming = count
    for index in range(count - 1, -1, -1):
        following[index] = upcoming
        upcoming = index if starts[index] is not None else upcoming
    placed: list[float] = []
    known: int | None = None  # the index of the last known start
    for index, start in enumerate(starts):
        if start is not None:
            placed.append(start)
            known = index
            continue
        after = following[index]
        later = starts[after] if after < count else None
        earlier = starts[known] if known is not None else None
        if earlier is None or later is None:
            moment = earlier if earlier is not None else later
            assert moment is not None  # (some start of the lane is known)
            placed.append(moment)
        else:
            assert known is not None
            placed.append(earlier + (later - earlier) * (index - known) / (after - known))
    return placed


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


#: Characters of one payload string the page shows (a name, an id, a phase, a pod, a reason, a place
#: that changed): the rest is said (``… (+9,800 more characters)``), and ``-f json`` holds it all.
MAX_TEXT = 200


def _cut(text: str) -> str:
    """Payload text as the page shows it: its first :data:`MAX_TEXT` characters, ``…`` after a cut."""
    text = str(text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def _more(text: str) -> str:
    """What a cut (:func:`_cut`) left out, said: `` (+9,800 more characters)``, or nothing."""
    more = len(text) - MAX_TEXT
    return f'<span class="muted"> (+{more:,} more characters)</span>' if more > 0 else ""


def _c(text: str) -> str:
    """Payload text as HTML text, cut (:func:`_cut`), saying how many characters the cut left out."""
    return _e(_cut(text)) + _more(str(text))


def _p(text: str) -> str:
    """Payload text inside a sentence of the page: cut (:func:`_c`) and isolated (``<bdi>``), so a
    right-to-left name or value cannot reorder the words and marks around it."""
    return f"<bdi>{_e(_cut(text))}</bdi>{_more(str(text))}"


def _e(text: str) -> str:
    """Payload text as HTML text: its control, line-separator and bidi characters shown as escapes (as
    the text format shows them: they cannot reorder, hide or break what the page says), then escaped."""
    return html.escape(visible(str(text)), quote=True)
