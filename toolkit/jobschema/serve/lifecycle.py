"""Jobs that move: a captured history replayed one snapshot per GET, or a timeline of phases.

A :class:`Timeline` advances on polls (a step of ``polls`` N ends after N GETs served in it) or on
the clock (a step of ``seconds`` S ends S seconds after it began) until it reaches its last step or a
phase the lifecycle model (:mod:`jobschema.lifecycle`) calls terminal: there it stays, and whether
the job has finished is the model's word, as ``record``, ``timeline`` and ``validate`` read it. A
:class:`Job` is what one id answers: its snapshots (a capture's history), or a base body that an API
adapter dresses in the timeline's current phase; suspend, resume, stop and delete replace the timeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jobschema.lifecycle import is_terminal
from jobschema.serve.config import Lifecycle, Step


@dataclass
class Timeline:
    """Where a job of ``api`` (``runai``, ``aihc``) is in its steps: the current step, the GETs served
    in it, and when it began."""

    steps: tuple[Step, ...]
    api: str
    started: float
    index: int = 0
    polls: int = 0

    def current(self, now: float) -> Step:
        """The step at ``now``: timed steps that have run out are left first."""
        while not self.ended:
            step = self.steps[self.index]
            if step.seconds is None or now < self.started + step.seconds:
                break
            self._advance(self.started + step.seconds)
        return self.steps[self.index]

    def polled(self, now: float) -> None:
        """Count one GET served in the current step; a step of N polls ends with its N-th."""
        step = self.current(now)
        self.polls += 1
        if not self.ended and step.polls is not None and self.polls >= step.polls:
            self._advance(now)

    @property
    def ended(self) -> bool:
        """True at a step that never ends: the last one, or one in a terminal phase (a job does not
        leave it by itself)."""
        return self.index >= len(self.steps) - 1 or self.terminal

    @property
    def terminal(self) -> bool:
        """True when the current phase is terminal by the lifecycle model."""
        return is_terminal(self.api, self.steps[self.index].phase)

    def _advance(self, when: float) -> None:
        self.index += 1
        self.polls = 0
        self.started = when


def walk(api: str, lifecycle: Lifecycle, failed: bool, unknown: int, now: float) -> Timeline:
    """The timeline of a job of ``api`` submitted at ``now``: ``unknown`` polls of ``Unknown`` first,
    then the lifecycle, ending in its ``fail_phase`` when the job is one that fails."""
    steps = list(lifecycle.steps)
    if failed:
        steps[-1] = Step(lifecycle.fail_phase)
    if unknown:
        steps.insert(0, Step(UNKNOWN, unknown))
    return Timeline(tuple(steps), api, now)


#: The phase (Run:ai) and status (AIHC) a job shows while the API does not know it yet: the one
#: value both APIs map to :attr:`State.UNKNOWN <jobschema.lifecycle.State.UNKNOWN>`.
UNKNOWN = "Unknown"


#: Dresses a live job's base body in a phase: ``(job, phase, now) -> body``.
Dress = Callable[["Job", str, float], dict[str, Any]]
#: Builds and checks the bytes of a body (``None`` when the body is not schema-valid).
Encode = Callable[[dict[str, Any]], bytes]


@dataclass
class Job:
    """Everything one job id answers, and how it moves.

    A captured job serves ``snapshots`` in order, one per GET, the last one repeating. A live job
    (submitted, or a capture after suspend/resume/delete) serves ``base`` dressed in the timeline's
    phase; the dressed body is encoded (and validated) once per phase, the current one kept.
    """

    job_id: str
    api: str
    snapshots: list[bytes] = field(default_factory=list)
    values: list[dict[str, Any]] = field(default_factory=list)
    base: dict[str, Any] | None = None
    timeline: Timeline | None = None
    desired: str = "Running"
    hidden: int = 0
    gone_when_ended: bool = False
    #: Drawn to fail at submit (``fail_rate``): its lifecycle ends in ``fail_phase``, resumed or not.
    failed: bool = False
    #: The bytes of the submit answer's body: what the job counts against ``Limits.max_kept``.
    size: int = 0
    served: int = 0
    #: When the job was first seen in each phase (AIHC's ``runningAt`` and ``finishedAt`` come from it).
    marks: dict[str, float] = field(default_factory=dict)
    #: The body of the current phase, encoded (and validated) once: ``(phase, desired, step), bytes``.
    _body: tuple[tuple[str, str, int], bytes] | None = None
    #: When each step began (a replaced pod's creation time is its step's start).
    began: dict[int, float] = field(default_factory=dict)
    #: Captured invalid and served as it is (``--serve-invalid``): what it goes on to answer is not
    #: validated either (its invalid fields would fail every body dressed from it).
    as_is: bool = False

    @classmethod
    def captured(
        cls, job_id: str, api: str, values: Sequence[dict[str, Any]], bodies: Sequence[bytes]
    ) -> Job:
        """A job of ``api`` answering a capture's snapshots (one per GET, the last repeating)."""
        return cls(job_id, api, list(bodies), list(values))

    @classmethod
    def live(
        cls, job_id: str, base: dict[str, Any], timeline: Timeline, hidden: int = 0, failed: bool = False
    ) -> Job:
        """A job whose body follows ``timeline``; the first ``hidden`` GETs answer not found; ``failed``:
        drawn to fail (its timeline ends in the fail phase)."""
        return cls(job_id, timeline.api, base=base, timeline=timeline, hidden=hidden, failed=failed)

    def phase(self, now: float) -> str | None:
        """The live job's phase at ``now`` (None for a captured history)."""
        return None if self.timeline is None else self.timeline.current(now).phase

    @property
    def deleted(self) -> bool:
        """True once the job was deleted: Deleting until gone, then not found; never revived."""
        return self.gone_when_ended

    def finished(self, now: float) -> bool:
        """True once a live job is in a terminal phase, by the lifecycle model (a captured history
        never is)."""
        if self.timeline is None:
            return False
        self.timeline.current(now)
        return self.timeline.terminal

    def gone(self, now: float) -> bool:
        """True once a deleted job has reached the end of its timeline: it answers not found."""
        if not self.gone_when_ended or self.timeline is None:
            return False
        self.timeline.current(now)
        return self.timeline.ended

    def body(self, now: float, dress: Dress, encode: Encode) -> bytes:
        """The bytes of the next GET's answer (counting the poll)."""
        self.served += 1
        if self.timeline is None or self.base is None:
            index = min(self.served - 1, len(self.snapshots) - 1)
            return self.snapshots[index]
        phase = self.timeline.current(now).phase
        key = (phase, self.desired, self.timeline.index)
        if self._body is None or self._body[0] != key:  # one body kept: a job's memory is bounded
            self.marks.setdefault(phase, now)
            self.began.setdefault(self.timeline.index, now)
            self._body = (key, encode(dress(self, phase, now)))
        self.timeline.polled(now)
        return self._body[1]

    def pod_history(self) -> list[tuple[Step, float]]:
        """The steps walked so far, each with when it began (what pods went through: restarts and
        replacements, :class:`~jobschema.serve.config.Step`)."""
        if self.timeline is None:
            return []
        done = self.timeline.steps[: self.timeline.index + 1]
        return [(step, self.began.get(i, self.timeline.started)) for i, step in enumerate(done)]

    def current_value(self) -> dict[str, Any]:
        """The snapshot last served (or the first), for a job about to go live."""
        if self.base is not None:
            return self.base
        return self.values[max(0, min(self.served - 1, len(self.values) - 1))]

    @property
    def from_capture(self) -> bool:
        """True for a job that answered snapshots (captured or generated) before it went live: its base
        is a whole served body, not a submitted job's own fields."""
        return bool(self.snapshots)

    def edited(self) -> None:
        """Say that :attr:`base` changed: the next GET dresses it again."""
        self._body = None

    def replace(self, steps: Sequence[Step], desired: str, now: float, gone: bool = False) -> None:
        """Follow ``steps`` from now on (suspend, resume, stop, delete), wanting ``desired``."""
        self.base = self.current_value()
        self.timeline = Timeline(tuple(steps), self.api, now)
        self.desired = desired
        self.gone_when_ended = self.gone_when_ended or gone  # a deleted job stays deleted
        self._body = None
