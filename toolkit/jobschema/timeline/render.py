"""The timeline report: one JSON document (``schemas/timeline-report.schema.json``), masked by the
secret policy, that every format is written from — text, json, markdown and the html picture."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from jobschema.lifecycle import TERMINAL
from jobschema.secrets import masked
from jobschema.secrets.policy import masked_path
from jobschema.text import log_safe, markdown_text, visible
from jobschema.timeline.build import JobTimeline, Pod, Segment

#: The text format's phase column is as wide as its longest phase up to this (a longer one runs past
#: it): one phase of a megabyte must not pad every other line to a megabyte.
PHASE_WIDTH = 24


def report(timelines: list[JobTimeline], version: str) -> dict[str, Any]:
    """The report of every job, secrets masked in every string."""
    jobs = [_job(timeline) for timeline in timelines]
    return {"tool": "jobschema", "version": version, "jobs": masked(jobs)}


def _job(timeline: JobTimeline) -> dict[str, Any]:
    final = timeline.final
    return {
        "api": timeline.api,
        "job": timeline.job,
        "name": timeline.name,
        "final": {"state": final.state.value, "phase": final.phase, "reason": timeline.reason},
        "start": stamp(timeline.start),
        "end": stamp(timeline.end),
        "waiting_seconds": _seconds(timeline.waiting),
        "running_seconds": _seconds(timeline.running),
        "gpus": timeline.gpus,
        "gpu_hours": None if timeline.gpu_hours is None else round(timeline.gpu_hours, 4),
        "answers": timeline.answers,
        "segments": [_segment(s) for s in timeline.segments],
        "impossible": _flags(timeline.impossible),
        "out_of_order": [
            {"segment": index, "said": stamp(segment.said), "after": stamp(segment.after)}
            for index, segment in enumerate(timeline.segments)
            if segment.said is not None
        ],
        "pods": [_pod(p) for p in timeline.pods],
        "changes": [
            {
                "at": stamp(c.at),
                "source": masked_path(c.source),  # (a folder's name read on its own too)
                "text": c.text,
                "path": c.path,
                "old": c.old,
                "new": c.new,
            }
            for c in timeline.changes
        ],
    }


def _flags(flagged: list[tuple[int, Segment, Segment]]) -> list[dict[str, Any]]:
    """Transitions the lifecycle calls impossible, as the report lists them."""
    return [
        {
            "segment": index,
            "at": stamp(after.start),
            "from": {"state": ended.state.value, "phase": ended.phase},
            "to": {"state": after.state.value, "phase": after.phase},
        }
        for index, ended, after in flagged
    ]


def _pod(pod: Pod) -> dict[str, Any]:
    return {
        "name": pod.name,
        "restarts": pod.restarts,
        "replacements": pod.replacements,
        "segments": [_segment(s) for s in pod.segments],
        "impossible": _flags(pod.impossible),
    }


def _segment(segment: Segment) -> dict[str, Any]:
    return {
        "state": segment.state.value,
        "phase": segment.phase,
        "start": stamp(segment.start),
        "end": stamp(segment.end),
        "seconds": _seconds(segment.seconds),
    }


def _seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def stamp(at: float | None) -> str | None:
    """An RFC 3339 UTC time: whole seconds when it is whole, else milliseconds."""
    if at is None:
        return None
    moment = datetime.fromtimestamp(at, UTC)
    whole = f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}"  # (%Y does not pad year 999 to four digits)
    if at == int(at):
        return f"{whole}Z"
    return f"{whole}.{moment.microsecond // 1000:03d}Z"


def duration(seconds: float | None) -> str:
    """``3d 4h``, ``2h 5m``, ``3m 12s``, ``4.2s``, ``4s``; ``?`` when unknown: the two largest units a
    person reads it in, days from one day on (``1d 2h``, never ``26h 0m``). Each is the nearest value
    in its unit (59.96 s is ``1m 0s``, not ``60.0s``; 1 h 1 m 59 s is ``1h 2m``; 23 h 59 m 50 s is
    ``1d 0h``). Every format and every place in it (labels, titles, tables, totals) says it so."""
    if seconds is None:
        return "?"
    tenths = round(seconds, 1)
    if tenths < 60:
        return f"{int(tenths)}s" if tenths == int(tenths) else f"{tenths:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {rest}s"
    hours, minutes = divmod(round(seconds / 60), 60)
    if hours < 24:
        return f"{hours}h {minutes}m"
    days, hours = divmod(round(seconds / 3600), 24)
    return f"{days}d {hours}h"


def render_json(document: dict[str, Any]) -> str:
    """The json format: the report as it is (sorted keys for stable bytes)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"
    return log_safe(text, json_text=True)


def render_text(document: dict[str, Any]) -> str:
    """One block per job: its states with start and duration, the totals, its pods."""
    lines: list[str] = []
    for job in document["jobs"]:
        lines += _text_job(job)
    lines.append(_summary(document))
    return log_safe("\n".join(map(visible, lines)) + "\n")  # (no name or reason sends escapes or CI commands)


def _title(job: dict[str, Any]) -> str:
    name = f" {job['name']}" if job["name"] else ""
    final = job["final"]
    reason = f": {final['reason']}" if final["reason"] else ""
    return f"{job['api']} {job['job']}{name}: {final['state']} ({final['phase']}{reason})"


def lasted(segment: dict[str, Any]) -> str:
    """How long a stretch lasted as a person reads it: its duration; ``19m 0s so far`` for the state
    a job was still in at its last answer; nothing for a terminal state or an unknown length."""
    if segment["end"]:
        return duration(segment["seconds"])
    if segment["seconds"] is not None and segment["state"] not in TERMINAL:
        return f"{duration(segment['seconds'])} so far"
    return ""


def impossible_text(flag: dict[str, Any]) -> str:
    """A transition the lifecycle calls impossible, said: ``impossible: succeeded (Completed) →
    running (Running) at 2026-12-05T04:20:44Z``."""
    before, after = flag["from"], flag["to"]
    when = f" at {flag['at']}" if flag["at"] else ""  # (the inputs may say no time: then none)
    return f"impossible: {before['state']} ({before['phase']}) → {after['state']} ({after['phase']}){when}"


def out_of_order_text(job: dict[str, Any], flag: dict[str, Any]) -> str:
    """A start the answers said out of order, said: ``time out of order: running (Running) said
    2026-12-05T04:20:00Z, before 2026-12-05T04:25:01Z`` (its start is unknown: ``?``)."""
    segment = job["segments"][flag["segment"]]
    said = f"{segment['state']} ({segment['phase']}) said {flag['said']}"
    return f"time out of order: {said}, before {flag['after']}"


def notes(job: dict[str, Any], *, pods: bool = False) -> list[str]:
    """What a job's timeline flags: transitions the lifecycle calls impossible, times out of order;
    with ``pods``, its pods' impossible transitions too (``pod NAME: impossible: …``)."""
    said = [impossible_text(f) for f in job["impossible"]]
    said += [out_of_order_text(job, f) for f in job["out_of_order"]]
    if pods:
        said += [f"pod {pod['name']}: {impossible_text(f)}" for pod in job["pods"] for f in pod["impossible"]]
    return said


def _text_job(job: dict[str, Any]) -> list[str]:
    lines = [_title(job)]
    width = min(PHASE_WIDTH, max(len(s["phase"]) for s in job["segments"]))
    for segment in job["segments"]:
        lines.append(
            f"  {segment['state']:<9} {segment['phase']:<{width}}  {segment['start'] or '?':<24} "
            f"{lasted(segment)}".rstrip()
        )
    lines += [f"  {note}" for note in notes(job)]
    lines.append("  " + _totals(job))
    for pod in job["pods"]:
        states = " → ".join(
            f"{s['phase']} {duration(s['seconds'])}" if s["end"] else s["phase"] for s in pod["segments"]
        )
        flagged = "".join(f"; {impossible_text(flag)}" for flag in pod["impossible"])
        lines.append(
            f"  pod {pod['name']}: {states}; {_plural(pod['restarts'], 'restart')}, "
            f"{pod['replacements']} replaced{flagged}"
        )
    return lines


def _totals(job: dict[str, Any]) -> str:
    gpu = (
        "GPU-hours ?"
        if job["gpu_hours"] is None
        else f"GPU-hours {job['gpu_hours']:.2f} ({job['gpus']:g} GPUs)"
    )
    restarts = sum(p["restarts"] for p in job["pods"])
    replaced = sum(p["replacements"] for p in job["pods"])
    pods = (
        f"; {_plural(len(job['pods']), 'pod')}, {_plural(restarts, 'restart')}, {replaced} replaced"
        if job["pods"]
        else ""
    )
    last = job["segments"][-1]
    going = f"; still {last['state']} at its last answer" if lasted(last).endswith(" so far") else ""
    return (
        f"waiting {duration(job['waiting_seconds'])}, running {duration(job['running_seconds'])}; {gpu}"
        f"; {_plural(job['answers'], 'answer')}{pods}{going}"
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(document: dict[str, Any]) -> str:
    jobs = document["jobs"]
    counts: dict[str, int] = {}
    for job in jobs:
        counts[job["final"]["state"]] = counts.get(job["final"]["state"], 0) + 1
    ended = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
    return f"{_plural(len(jobs), 'job')}: {ended}"


def render_markdown(document: dict[str, Any]) -> str:
    """A table of states per job, for a pull-request comment or a run summary."""
    lines: list[str] = []
    for job in document["jobs"]:
        lines += [
            f"### {markdown_text(_title(job))}",
            "",
            "| state | phase | start | duration |",
            "| --- | --- | --- | ---: |",
        ]
        for s in job["segments"]:
            lines.append(
                f"| {s['state']} | {markdown_text(s['phase'])} | {s['start'] or '?'} | {lasted(s)} |"
            )
        lines += [""] + [f"**{markdown_text(note)}**" for note in notes(job, pods=True)]
        lines += ["", markdown_text(_totals(job)), ""]
    lines.append(_summary(document))
    return log_safe("\n".join(lines) + "\n")
