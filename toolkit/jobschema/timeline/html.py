"""``timeline --format html``: one self-contained page (inline CSS and SVG; no script, no network) with a
Gantt-like lane per job and per pod below it, each state in its colour, a hover title with the exact
times, and the changes between answers beside each job. Readable printed and in dark mode.

Lanes share one time axis (the earliest start to the latest end of every job); when an input says no
times (a Run:ai recording's NDJSON alone), its lanes show the states in order, evenly, and say so.
"""

from __future__ import annotations

import html
from typing import Any

from jobschema.lifecycle import ORDER
from jobschema.timeline.read import parse_time
from jobschema.timeline.render import duration

#: Lane geometry: the SVG's own units (it scales to the page's width).
WIDTH = 1000
HEIGHT = 18
#: The width of a terminal state's mark (the job ended there; nothing follows).
MARK = 12.0
ENDED = {"succeeded", "failed", "stopped"}

_CSS = """
:root { --bg:#ffffff; --fg:#1f2328; --muted:#59636e; --grid:#d1d9e0; --panel:#f6f8fa;
  --waiting:#bf8700; --starting:#8250df; --running:#1a7f37; --stopping:#9a6700; --succeeded:#0969da;
  --failed:#cf222e; --stopped:#6e7781; --unknown:#afb8c1; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --muted:#9198a1;
  --grid:#3d444d; --panel:#151b23; --waiting:#d29922; --starting:#a371f7; --running:#3fb950;
  --stopping:#bb8009; --succeeded:#4493f8; --failed:#f85149; --stopped:#9198a1; --unknown:#656c76; } }
* { box-sizing: border-box; }
body { margin: 1.5rem; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.3rem; margin: 0 0 .25rem; } .muted { color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: .4rem 1rem; margin: .75rem 0 1rem; }
.legend span::before { content: ""; display: inline-block; width: .8em; height: .8em; margin-right: .35em;
  border-radius: 2px; background: var(--c); vertical-align: -1px; }
.job { border: 1px solid var(--grid); border-radius: 6px; padding: .75rem; margin-bottom: 1rem;
  background: var(--panel); break-inside: avoid; }
.job h2 { font-size: 1rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.lane { display: grid; grid-template-columns: minmax(8rem, 16rem) minmax(0, 1fr); gap: .75rem;
  align-items: center; margin: 2px 0; }
.label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: 12px; }
.lane.job-lane .label { font-weight: 600; }
svg.bar { width: 100%; height: 18px; display: block; background: var(--bg); border-radius: 3px; }
svg.bar rect { stroke: var(--bg); stroke-width: 1; vector-effect: non-scaling-stroke; }
.axis { display: flex; justify-content: space-between; font-size: 11px; color: var(--muted);
  margin-left: calc(min(16rem, max(8rem, 25%)) + .75rem); }
details { margin-top: .5rem; } summary { cursor: pointer; color: var(--muted); }
ol.changes { margin: .25rem 0 0; padding-left: 1.25rem; font: 12px/1.4 ui-monospace, monospace;
  overflow-wrap: anywhere; }
@media print { body { margin: 0; } details { display: block; } details > summary { display: none; }
  details > * { display: block; } .job { background: none; } }
"""


def render_html(document: dict[str, Any]) -> str:
    """The page for a report (:func:`jobschema.timeline.render.report`), every string escaped."""
    jobs = document["jobs"]
    axis = _axis(jobs)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>jobschema timeline: {_count(len(jobs), 'job')}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Job timeline</h1>",
        f'<p class="muted">{_e(_subtitle(jobs, axis))}</p>',
        _legend(),
    ]
    parts += [_job(job, axis) for job in jobs]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _axis(jobs: list[dict[str, Any]]) -> tuple[float, float] | None:
    """The time range every lane shares (None: no input said when anything happened)."""
    times = [
        t
        for job in jobs
        for s in [*job["segments"], *(p for pod in job["pods"] for p in pod["segments"])]
        for t in (_t(s["start"]), _t(s["end"]))
        if t is not None
    ]
    if not times:
        return None
    low, high = min(times), max(times)
    return low, high if high > low else low + 1.0


def _t(text: str | None) -> float | None:
    return parse_time(text) if text else None


def _subtitle(jobs: list[dict[str, Any]], axis: tuple[float, float] | None) -> str:
    if axis is None:
        return f"{_count(len(jobs), 'job')}; the inputs hold no times: states are shown in order, evenly"
    start, end = axis
    return f"{_count(len(jobs), 'job')}, {duration(end - start)} from first to last"


def _legend() -> str:
    items = "".join(f'<span style="--c:var(--{s.value})">{s.value}</span>' for s in ORDER)
    return f'<div class="legend" aria-label="states">{items}</div>'


def _job(job: dict[str, Any], axis: tuple[float, float] | None) -> str:
    final = job["final"]
    name = f" {job['name']}" if job["name"] else ""
    reason = f": {final['reason']}" if final["reason"] else ""
    title = f"{job['api']} {job['job']}{name}"
    totals = (
        f"{final['state']} ({final['phase']}{reason}); waiting {duration(job['waiting_seconds'])}, running "
        f"{duration(job['running_seconds'])}; GPU-hours "
        f"{'?' if job['gpu_hours'] is None else format(job['gpu_hours'], '.2f')}"
    )
    lanes = [_lane("job-lane", job["name"] or job["job"], job["segments"], axis, job.get("end"))]
    for pod in job["pods"]:
        label = f"{pod['name']} · {_count(pod['restarts'], 'restart')}" + (
            f", {pod['replacements']} replaced" if pod["replacements"] else ""
        )
        lanes.append(_lane("pod-lane", label, pod["segments"], axis, job.get("end")))
    changes = "".join(f"<li><time>{_e(c['at'] or '?')}</time> {_e(c['text'])}</li>" for c in job["changes"])
    return (
        f'<section class="job" data-job="{_e(job["job"])}"><h2>{_e(title)}</h2>'
        f'<p class="muted">{_e(totals)}</p>{_ticks(axis)}{"".join(lanes)}'
        f"<details><summary>{_count(len(job['changes']), 'change')} between answers</summary>"
        f'<ol class="changes">{changes}</ol></details></section>'
    )


def _ticks(axis: tuple[float, float] | None) -> str:
    if axis is None:
        return ""
    from jobschema.timeline.render import stamp

    start, end = axis
    marks = [stamp(start + (end - start) * i / 4) or "" for i in range(5)]
    return (
        '<div class="axis" aria-hidden="true">'
        + "".join(f"<span>{_e(m[11:19])}</span>" for m in marks)
        + "</div>"
    )


def _lane(
    kind: str, label: str, segments: list[dict[str, Any]], axis: tuple[float, float] | None, end: str | None
) -> str:
    rects = "".join(_rect(i, s, segments, axis) for i, s in enumerate(segments))
    return (
        f'<div class="lane {kind}"><div class="label" title="{_e(label)}">{_e(label)}</div>'
        f'<svg class="bar" viewBox="0 0 {WIDTH} {HEIGHT}" preserveAspectRatio="none" role="img" '
        f'aria-label="{_e(label)}">{rects}</svg></div>'
    )


def _rect(
    index: int, segment: dict[str, Any], segments: list[dict[str, Any]], axis: tuple[float, float] | None
) -> str:
    x0, x1 = _span(index, segment, segments, axis)
    width = max(x1 - x0, 2.0)
    when = f"{segment['start'] or '?'} → {segment['end'] or ('now' if segment['start'] else '?')}"
    tip = f"{segment['state']}: {segment['phase']}, {when}" + (
        f" ({duration(segment['seconds'])})" if segment["seconds"] is not None else ""
    )
    return (
        f'<rect class="seg s-{_e(segment["state"])}" x="{x0:.2f}" y="0" width="{width:.2f}" '
        f'height="{HEIGHT}" fill="var(--{_e(segment["state"])})"><title>{_e(tip)}</title></rect>'
    )


def _span(
    index: int, segment: dict[str, Any], segments: list[dict[str, Any]], axis: tuple[float, float] | None
) -> tuple[float, float]:
    """Where a segment lies on the lane: by its times on the shared axis, else by its place."""
    start, end = _t(segment["start"]), _t(segment["end"])
    if axis is None or start is None:
        share = WIDTH / max(1, len(segments))
        return index * share, (index + 1) * share
    low, high = axis
    scale = WIDTH / (high - low)
    if end is None and segment["state"] in ENDED:  # it ended then: a mark, not a bar to the axis' end
        x = min((start - low) * scale, WIDTH - MARK)
        return x, x + MARK
    if end is None:
        later = [_t(s["start"]) for s in segments[index + 1 :]]
        end = next((t for t in later if t is not None), high if index == len(segments) - 1 else start)
    return (start - low) * scale, (max(end, start) - low) * scale


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)
