"""``jobschema timeline``: a job's recorded history as states with start times and durations, time
waiting against running, pod restarts and replacements, GPU-hours and how it ended — as text, JSON,
Markdown, or a self-contained HTML picture.

>>> from jobschema.timeline import timelines
>>> [(t.job[:8], [s.phase for s in t.segments]) for t in timelines(["tests/fixtures/record/two-jobs.ndjson"])]
[('7d4f2c1a', ['Pending', 'Running', 'Completed']), ('c3e1f0a2', ['Creating', 'Running', 'Failed'])]
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from jobschema.timeline.build import JobTimeline, Pod, Segment, build
from jobschema.timeline.read import Captures, Observation, TimelineInputError, observations, read_captures

__all__ = [
    "Captures",
    "JobTimeline",
    "Observation",
    "Pod",
    "Segment",
    "TimelineInputError",
    "build",
    "drawn",
    "in_time_order",
    "read_captures",
    "timelines",
]


def timelines(inputs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str]) -> list[JobTimeline]:
    """The timeline of every job in ``inputs`` (one path or an iterable of paths), in the order the
    jobs first appear; raises :class:`TimelineInputError` naming the first input that cannot be read
    or holds no job."""
    return drawn(observations(inputs))


def drawn(answers: list[Observation]) -> list[JobTimeline]:
    """The timeline of every job ``answers`` are about, in the order the jobs first appear; a job's
    answers in the order they were captured when each says when (:func:`in_time_order`)."""
    jobs: dict[tuple[str, str], list[Observation]] = {}
    for answer in answers:
        jobs.setdefault((answer.api, answer.job), []).append(answer)
    return [build(in_time_order(job)) for job in jobs.values()]


def in_time_order(answers: list[Observation]) -> list[Observation]:
    """One job's answers by capture time when every one has it (HARs given in any order, a folder
    whose names do not sort by time; answers of one time keep their input order), each answer given
    twice (the same time, status and body: an input named twice) once; answers without a body (an
    error answer, a body that could not be read) are each kept. An answer without a time that another
    has with its time (a recording's NDJSON beside its HAR) is that one. When any other answer's time
    is unknown (an NDJSON line), the input's order is the only order there is: as given."""
    bodies = [_canonical(answer.value) for answer in answers]
    if any(answer.at is None for answer in answers):
        timed = {
            (a.status, body) for a, body in zip(answers, bodies, strict=True) if a.at is not None and body
        }
        kept_untimed = [
            (a, body)
            for a, body in zip(answers, bodies, strict=True)
            if a.at is not None or not body or (a.status, body) not in timed
        ]  # (an answer a HAR holds too, with its time, is drawn once: with it)
        if any(a.at is None for a, _ in kept_untimed):
            return [a for a, _ in kept_untimed]
        answers, bodies = [a for a, _ in kept_untimed], [body for _, body in kept_untimed]
    kept: list[Observation] = []
    seen: set[tuple[int, str]] = set()
    order = sorted(range(len(answers)), key=lambda i: answers[i].at or 0.0)
    for index in order:
        answer, body = answers[index], bodies[index]
        if kept and kept[-1].at != answer.at:
            seen = set()
        if body and (answer.status, body) in seen:
            continue
        seen.add((answer.status, body))
        kept.append(answer)
    return kept


def _canonical(value: object) -> str:
    """A digest of a body's JSON text with sorted keys (a digest, not the text: a job's hundred
    thousand answers are not held twice); empty for none (an error answer: each is kept) and for one
    too deep to write (never taken for another)."""
    import hashlib
    import json

    if value is None:
        return ""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (RecursionError, ValueError, TypeError):
        return ""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
