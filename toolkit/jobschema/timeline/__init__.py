"""``jobschema timeline``: a job's recorded history as states with start times and durations, time
waiting against running, pod restarts and replacements, GPU-hours and how it ended — as text, JSON,
Markdown, or a self-contained HTML picture.

>>> from jobschema.timeline import timelines
>>> [(t.job[:8], [s.phase for s in t.segments]) for t in timelines(["tests/fixtures/record/two-jobs.ndjson"])]
[('7d4f2c1a', ['Pending', 'Running', 'Completed']), ('c3e1f0a2', ['Creating', 'Running', 'Failed'])]
"""

from __future__ import annotations

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
    "read_captures",
    "timelines",
]


def timelines(inputs: list[str]) -> list[JobTimeline]:
    """The timeline of every job in ``inputs``, in the order the jobs first appear; raises
    :class:`TimelineInputError` naming the first input that cannot be read or holds no job."""
    return drawn(observations(inputs))


def drawn(answers: list[Observation]) -> list[JobTimeline]:
    """The timeline of every job ``answers`` are about, in the order the jobs first appear."""
    jobs: dict[tuple[str, str], list[Observation]] = {}
    for answer in answers:
        jobs.setdefault((answer.api, answer.job), []).append(answer)
    return [build(job) for job in jobs.values()]
