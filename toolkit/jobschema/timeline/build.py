"""A job's timeline from its answers: the states it went through (jobschema.lifecycle) with when each
began and how long it lasted, its pods' lanes with restarts and replacements, time waiting against
running, GPU-hours, and how it ended.

Times come from the payloads' own timestamps where they have them (``createdAt`` for the submit;
AIHC ``scheduledAt``, ``runningAt``, ``finishedAt`` and the pods' ``creationTimestamp`` and
``finishedAt``: whole seconds), else from the capture times a HAR records, else they are unknown and
the durations with them (a recording's NDJSON alone says the order, not the times, of Run:ai phases).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from jobschema.lifecycle import (
    ENDED,
    TERMINAL,
    State,
    impossible,
    is_transient,
    observe,
    says_nothing,
    state_of,
)
from jobschema.quantity import parse_quantity
from jobschema.timeline.read import Observation, parse_time

#: What a state's start is taken from in an AIHC job detail, when the answer has it.
AIHC_TIMES = {State.STARTING: "scheduledAt", State.RUNNING: "runningAt"}


@dataclass
class Segment:
    """A stretch of one state (and the phase the API said) from ``start`` to ``end`` (None: unknown,
    or for ``end``, still going when the last answer came)."""

    state: State
    phase: str
    start: float | None
    end: float | None = None
    first: int = 0  # the index of the answer that showed it first
    transient: bool = False  # shown by an answer that says nothing of the job (an error, Unknown)
    seen: float | None = None  # still going: the time of the last answer, which still showed it
    own: bool = False  # its start is the payload's own time for it (AIHC runningAt, finishedAt)
    said: float | None = None  # a start said out of order (before ``after``, a known start before it)
    after: float | None = None
    incarnation: int = 0  # a pod's: how many new pods took its name before this one

    @property
    def seconds(self) -> float | None:
        """How long it lasted (None when a bound is unknown); for a state still going at the last
        answer, how long it lasted until then (:attr:`seen`: at least so long)."""
        end = self.end if self.end is not None else self.seen
        if self.start is None or end is None:
            return None
        return max(0.0, end - self.start)


@dataclass
class Pod:
    """One pod name's lane: its states, restarts (the container's, summed over its incarnations) and
    replacements (the same name, a new pod: another uid or creation time, or, where the answers say
    neither, a restart count that went down)."""

    name: str
    segments: list[Segment] = field(default_factory=list)
    restarts: int = 0
    replacements: int = 0
    identity: str | None = None
    last_count: int = 0

    @property
    def impossible(self) -> list[tuple[int, Segment, Segment]]:
        """The transitions of one incarnation the lifecycle calls impossible (:func:`impossible_in`)."""
        return impossible_in(self.segments)


@dataclass
class Change:
    """Something that changed between two answers, for the picture: when, and what (``text``, as diff
    prints it; ``path``, ``old`` and ``new`` its parts, so a page can keep each apart)."""

    at: float | None
    source: str
    text: str
    path: str | None = None
    old: str | None = None
    new: str | None = None


@dataclass
class JobTimeline:
    """Everything ``jobschema timeline`` says about one job."""

    api: str
    job: str
    name: str | None
    segments: list[Segment]
    pods: list[Pod]
    answers: int
    gpus: float | None
    changes: list[Change]
    reason: str | None

    @property
    def final(self) -> Segment:
        """How the job ended: the state the last answer showed, except that answers saying nothing of
        the job (a 404 once it was deleted, a 5xx, ``Unknown``) after a terminal state leave it."""
        said = next((segment for segment in reversed(self.segments) if not segment.transient), None)
        return said if said is not None and said.state in TERMINAL else self.segments[-1]

    def seconds_in(self, *states: State) -> float | None:
        """Time spent in ``states`` (None when a duration in them is unknown)."""
        total = 0.0
        for segment in self.segments:
            if segment.state in states:
                if segment.seconds is None:
                    return None if segment.end is not None or segment.state not in TERMINAL else total
                total += segment.seconds
        return total

    @property
    def impossible(self) -> list[tuple[int, Segment, Segment]]:
        """The transitions the lifecycle calls impossible (:func:`jobschema.lifecycle.impossible`):
        each segment after the job first succeeded or failed that it cannot reach from there, with
        its index and that ended segment. Drawn as the answers say them, and flagged."""
        return impossible_in(self.segments)

    @property
    def waiting(self) -> float | None:
        """Time from submit until it ran (waiting and starting)."""
        return self.seconds_in(State.WAITING, State.STARTING)

    @property
    def running(self) -> float | None:
        """Time it ran."""
        return self.seconds_in(State.RUNNING)

    @property
    def gpu_hours(self) -> float | None:
        """GPUs requested times running time, in hours (None when either is unknown)."""
        if self.gpus is None or self.running is None:
            return None
        hours = self.gpus * self.running / 3600.0
        return hours if hours < math.inf else None

    @property
    def start(self) -> float | None:
        """When the job was submitted (or first seen)."""
        return next((s.start for s in self.segments if s.start is not None), None)

    @property
    def end(self) -> float | None:
        """When its last known state began (a terminal one) or ended."""
        last = self.final
        return last.start if last.state in TERMINAL or last.end is None else last.end


def build(answers: list[Observation]) -> JobTimeline:
    """The timeline of one job from its answers, in order (at least one). An AIHC v2 answer's own
    ``jobTimeLine`` (the latest answer's: it holds every state so far, each with its time) gives the
    states when there is one; the answers give the pods and the changes either way."""
    api, job = answers[0].api, answers[0].job
    told = _told(answers)
    latest = _phase(api, answers[-1].value)
    states = told + ([answers[-1]] if told and latest != _phase(api, told[-1].value) else [])
    submitted = _submitted(states or answers)
    segments = _segments(api, states or answers, submitted, bool(told))
    pods: dict[str, Pod] = {}
    changes: list[Change] = []
    previous: dict[str, Any] | None = None
    began_at = {segment.phase: segment.start for segment in segments}  # (each phase's last stretch)
    stretch = 0  # (the answers' own segments, when the segments are the answers': one pass)
    for index, answer in enumerate(answers):
        while not states and stretch + 1 < len(segments) and segments[stretch + 1].first <= index:
            stretch += 1
        if answer.value is None:
            continue
        phase = _phase(api, answer.value) or "(none)"
        began = segments[stretch].start if not states else began_at.get(phase)  # (a told stretch: by phase)
        _pods(api, answer, pods, answer.at if answer.at is not None else began)
        changes += _changes(previous, answer, phase)
        previous = answer.value
    for pod in pods.values():  # (once each, when every answer is in: closing per answer is quadratic)
        _close(pod.segments)
    _seen(segments, answers)
    last = next((a.value for a in reversed(answers) if a.value is not None), None)
    return JobTimeline(
        api, job, _name(api, last), segments, list(pods.values()), len(answers), _gpus(api, last), changes,
        _reason(api, last, pods),
    )  # fmt: skip


def impossible_in(segments: list[Segment]) -> list[tuple[int, Segment, Segment]]:
    """Each segment after one that succeeded or failed that the lifecycle has no way to reach from
    there (:func:`jobschema.lifecycle.impossible`), with its index and that ended segment; a pod's
    new incarnation (:attr:`Segment.incarnation`: a new pod under the name) starts afresh."""
    flagged: list[tuple[int, Segment, Segment]] = []
    ended: Segment | None = None
    for index, segment in enumerate(segments):
        if ended is not None and ended.incarnation != segment.incarnation:
            ended = None
        if ended is not None and impossible(ended.state, segment.state):
            flagged.append((index, ended, segment))
        if ended is None and segment.state in ENDED:
            ended = segment
    return flagged


def _segments(
    api: str, answers: list[Observation], submitted: float | None, told: bool = False
) -> list[Segment]:
    """The states the answers show, each from when it began to when the next did. An answer that
    says nothing of the job (a 304, a redirect, a 401: :func:`jobschema.lifecycle.says_nothing`)
    leaves the state before it, and is not drawn before the first that says something; a transient
    answer once the job has left waiting is unknown. ``told``: the answers are a v2 jobTimeLine's,
    every start the server's own time."""
    segments: list[Segment] = []
    placed = False  # (the job was seen past waiting: a 503 now is no sign it is being accepted)
    speaks = any(a.value is not None or not says_nothing(a.status) for a in answers)
    for index, answer in enumerate(answers):
        if answer.value is None and speaks and says_nothing(answer.status):
            continue  # (another answer says something of the job: this one, a 401 or a 304, nothing)
        phase = _phase(api, answer.value) or (f"HTTP {answer.status}" if answer.value is None else "(none)")
        since = None if submitted is None or answer.at is None else answer.at - submitted
        status = 200 if answer.value is not None and 200 <= answer.status < 300 else answer.status  # (a 203)
        state = observe(api, _phase_value(api, answer.value), status=status, since_submit=since)
        transient = is_transient(api, _phase_value(api, answer.value), status)
        if not segments and answer.at is None and submitted is not None and transient:
            state = State.WAITING  # the first answer of a new job, its time unknown: still accepted
        if placed and transient and state is State.WAITING:
            state = State.UNKNOWN
        placed = placed or state not in (State.WAITING, State.UNKNOWN)
        at = _state_time(api, answer, state, not segments, submitted)
        if not segments or (segments[-1].state, segments[-1].phase) != (state, phase):
            if segments and segments[-1].end is None:
                segments[-1].end = at
            segments.append(Segment(state, phase, at, None, index, transient))
            segments[-1].own = told or _own_time(api, answer, state) is not None  # (told: the server's)
    _close(segments, skew=SKEW)
    return segments


def _seen(segments: list[Segment], answers: list[Observation]) -> None:
    """A job still going at its last answer (its last state not terminal) lasted in that state at
    least until that answer: its time (the latest capture time, when the inputs say it) is the
    state's :attr:`Segment.seen`, so a job that never left Pending is said waiting so far, never
    ``?``. A job that ended, and a state first shown by the last answer, have none."""
    last = segments[-1]
    said = next((segment for segment in reversed(segments) if not segment.transient), last)
    if said.state in TERMINAL or last.state in TERMINAL or last.end is not None or last.start is None:
        return  # (it ended: an answer after, a 404 once it was deleted, does not make it go on)
    spoken = (
        a.at for a in answers if a.at is not None and (a.value is not None or not says_nothing(a.status))
    )
    latest = max(spoken, default=None)  # (a 401 or a 304 says nothing of the job: as if absent)
    if latest is not None and latest > last.start:
        last.seen = latest


def _told(answers: list[Observation]) -> list[Observation]:
    """What the latest AIHC v2 answer's own ``jobTimeLine`` tells: the states the job went through,
    each with its time, as answers in the order the server lists them, oldest first (a list whose
    times all go down is read from its end); never sorted by time, so a time out of the list's order
    (a clock gone back) is named, not taken for another order of states (empty when there is none)."""
    latest = next((a for a in reversed(answers) if a.value is not None), None)
    if latest is None or latest.api != "aihc":
        return []
    entries = _holder("aihc", latest.value).get("jobTimeLine")
    told = []
    for entry in entries if isinstance(entries, list) else []:
        kind, when = _dict(entry).get("conditionType"), parse_time(str(_dict(entry).get("time") or ""))
        if isinstance(kind, str) and kind and when is not None:
            value = {"job": {"jobid": latest.job, "status": kind}}
            told.append(Observation(f"{latest.source} jobTimeLine", "aihc", latest.job, value, 200, when))
    times = [o.at or 0.0 for o in told]
    if len(told) > 1 and times[0] > times[-1] and all(a >= b for a, b in itertools.pairwise(times)):
        told.reverse()  # (listed newest first: read oldest first)
    return told  # (else in the order listed: a time out of that order is a clock gone back, named)


def _submitted(answers: list[Observation]) -> float | None:
    for answer in answers:
        created = _created(answer.api, answer.value)
        if created is not None:
            return created
    return None


def _created(api: str, value: Any) -> float | None:
    holder = _holder(api, value)
    text = holder.get("createdAt") if holder else None
    return parse_time(text) if isinstance(text, str) else None


def _holder(api: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    if api == "aihc":
        inner = value.get("result")
        if isinstance(inner, dict):
            return inner
        from jobschema.apis import aihc_v2  # a v2 DescribeJob answer: the job, wrapped or not

        return aihc_v2.job_of(value)
    return value


def _phase(api: str, value: Any) -> str | None:
    found = _phase_value(api, value)
    return found if isinstance(found, str) else None


def _phase_value(api: str, value: Any) -> Any:
    """The phase field as the answer holds it, whatever its type (None when it has none)."""
    return _holder(api, value).get("actualPhase" if api == "runai" else "status")


def _state_time(
    api: str, answer: Observation, state: State, first: bool, submitted: float | None
) -> float | None:
    """When the state this answer shows began: the payload's own timestamp for it, else (``first``:
    the first answer drawn of a job) its submit time, else the capture time."""
    own = _own_time(api, answer, state)
    if own is not None:
        return own
    if first and submitted is not None:
        return submitted
    return answer.at


def _own_time(api: str, answer: Observation, state: State) -> float | None:
    """The payload's own timestamp for the state an answer shows (AIHC ``scheduledAt``,
    ``runningAt``; ``finishedAt`` for a terminal state), None when it has none."""
    holder = _holder(api, answer.value)
    key = "finishedAt" if state in TERMINAL else AIHC_TIMES.get(state) if api == "aihc" else None
    return parse_time(holder[key]) if key and isinstance(holder.get(key), str) else None


#: Seconds a start may lie before a known one before it and still be taken as that moment: the
#: server's clock against the recorder's (a payload's own time beside a capture time) differ a little.
SKEW = 60.0


def _close(segments: list[Segment], skew: float | None = None) -> None:
    """Each segment ends where the next begins; a start earlier than a known one before it (a
    payload's own time against a capture time; a stretch of unknown time between) is that one's,
    unless it is the payload's own time (:attr:`Segment.own`) and more than ``skew`` seconds earlier
    (a clock gone back: the server says its job ran before it was created): then its start is
    unknown, and :attr:`Segment.said` keeps what was said."""
    latest: float | None = None
    for before, after in itertools.pairwise(segments):
        if before.start is not None:
            latest = before.start if latest is None else max(latest, before.start)
        if after.start is not None and latest is not None and after.start < latest:
            if skew is not None and after.own and after.start < latest - skew:
                after.said, after.after = after.start, latest
                after.start = None
            else:
                after.start = latest
        before.end = after.start
    if segments and segments[-1].state in TERMINAL:
        segments[-1].end = None


# --- pods (AIHC) --------------------------------------------------------------------------------------


def _pods(api: str, answer: Observation, pods: dict[str, Pod], job_at: float | None) -> None:
    """The pods an AIHC answer lists, each added to its lane; ``job_at`` is when the state this answer
    shows began for the job (a pod whose own time is unknown changed then, or at the capture)."""
    if api != "aihc":
        return
    holder = _holder(api, answer.value)
    listed = _dict(holder.get("podList")).get("pods", holder.get("pods"))
    former = _dict(answer.value).get("job", answer.value)
    history = _dict(former).get("historyPods") if isinstance(former, dict) else None
    earlier: dict[str, int] = {}  # the pods each name had before (counted once per answer, not per pod)
    for old in _list(history):
        name = old.get("name") if isinstance(old, dict) else None
        if isinstance(name, str):
            earlier[name] = earlier.get(name, 0) + 1
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict):
            _pod(item, answer, pods, job_at, earlier)


def _pod(
    item: dict[str, Any],
    answer: Observation,
    pods: dict[str, Pod],
    job_at: float | None,
    earlier: dict[str, int],
) -> None:
    meta = _dict(item.get("objectMeta")) or {  # v2 pods say the same without objectMeta
        "name": item.get("name"),
        "uid": item.get("uid"),
        "creationTimestamp": item.get("creationAt"),
    }
    name = meta.get("name")
    if not isinstance(name, str):
        return
    pod = pods.setdefault(name, Pod(name))
    identity = str(meta.get("uid") or meta.get("creationTimestamp") or "")
    count = _int(item.get("restartCount"))
    created = parse_time(str(meta.get("creationTimestamp") or ""))
    new = not pod.segments
    if (pod.identity is not None and identity and identity != pod.identity) or (
        not identity and count < pod.last_count  # (a container's count never goes down: a new pod)
    ):
        pod.replacements += 1
        pod.last_count = 0
        new = True
    pod.identity = identity or pod.identity
    pod.replacements = max(pod.replacements, earlier.get(name, 0))
    pod.restarts += max(0, count - pod.last_count)
    pod.last_count = max(pod.last_count, count)
    found = _dict(item.get("podStatus")).get("podPhase", item.get("status"))
    phase = found if isinstance(found, str) else "Unknown"
    state = state_of("pod", phase)
    label = f"{phase} #{pod.replacements + 1}" if pod.replacements else phase
    finished = parse_time(str(item.get("finishedAt") or ""))
    at = (
        finished
        if state in TERMINAL and finished is not None
        else created
        if new and created is not None
        else answer.at
        if answer.at is not None
        else job_at
    )
    if not pod.segments or (pod.segments[-1].state, pod.segments[-1].phase) != (state, label):
        if pod.segments and pod.segments[-1].end is None:
            pod.segments[-1].end = at
        pod.segments.append(Segment(state, label, at, incarnation=pod.replacements))


# --- what the job asked for, how it ended, what changed ------------------------------------------------


def _gpus(api: str, value: Any) -> float | None:
    """GPUs the job requested, all replicas together (None when the spec does not say)."""
    holder = _holder(api, value)
    if not holder:
        return None
    if api == "aihc":
        from jobschema.apis import aihc_v2

        holder = {**holder, **aihc_v2.spec_of(holder)}  # v2 keeps resources and replicas in the spec
        per_pod = sum(
            _number(r.get("quantity"))
            for r in _list(holder.get("resources"))
            if isinstance(r, dict) and "gpu" in str(r.get("name", "")).lower()
        )
        return _count(_times(per_pod, _int(holder.get("replicas"))))
    spec = _dict(holder.get("spec"))
    master = _dict(holder.get("masterSpec")) or spec
    workers = _int(spec.get("numWorkers"))
    return _count(_runai_gpus(master) + _times(_runai_gpus(spec), workers))


def _runai_gpus(spec: dict[str, Any]) -> float:
    compute = _dict(spec.get("compute"))
    devices = _number(compute.get("gpuDevicesRequest"))
    portion = _number(compute.get("gpuPortionRequest"))
    return devices * portion if devices and portion else devices or portion


def _count(total: float) -> float | None:
    """A number of GPUs as the report shows it: None unless positive and finite (a quantity of 1e308
    times its replicas is not a count)."""
    return total if 0 < total < math.inf else None


def _float(value: int | float) -> float:
    """``value`` as a float; infinity for an int past a float's range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _times(each: float, count: int) -> float:
    """``each`` times ``count`` (infinity when the count is past a float's range)."""
    return each * _float(count) if each else 0.0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: Any) -> float:
    """A quantity asked for: 0 unless it is a finite number not below zero (a negative request asks
    for nothing a timeline can count)."""
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, int | float):
        number = _float(value)
    elif isinstance(value, str):
        parsed = parse_quantity(value)
        number = float(parsed) if parsed is not None and abs(parsed) < math.inf else 0.0
    else:
        return 0.0
    return number if 0 <= number < math.inf else 0.0


def _name(api: str, value: Any) -> str | None:
    found = _holder(api, value).get("name")
    return found if isinstance(found, str) else None


def _reason(api: str, value: Any, pods: dict[str, Pod]) -> str | None:
    """Why it ended as it did, when the answer says: a failed pod's reason (AIHC)."""
    if api != "aihc":
        return None
    listed = _list(_dict(_holder(api, value).get("podList")).get("pods"))
    reasons = [p.get("reason") for p in listed if isinstance(p, dict) and isinstance(p.get("reason"), str)]
    return next((r for r in reasons if r), None)


#: The change listed for an answer nested too deeply for the diff to compare with the one before.
TOO_DEEP = "changes not listed: nested too deeply to compare"


def _changes(previous: dict[str, Any] | None, answer: Observation, phase: str) -> list[Change]:
    if previous is None:
        return [Change(answer.at, answer.source, f"first answer: {phase}", new=phase)]
    from jobschema.diff import DiffOptions, diff_documents
    from jobschema.diff.documents import DiffInputError

    try:
        found = diff_documents(previous, answer.value, options=DiffOptions(ignore_volatile=True))
    except DiffInputError:
        return []
    except RecursionError:  # valid JSON nested deeper than the diff can follow: said, not dropped
        return [Change(answer.at, answer.source, TOO_DEEP)]
    return [_described(answer, c) for c in found.changes]


def _described(answer: Observation, change: Any) -> Change:
    """``± path: old → new`` as ``diff`` prints it (secrets masked by the diff), and its parts."""
    from jobschema.diff.render import value_text, values_apart

    old = None if change.op == "added" else value_text(change.old)
    new = None if change.op == "removed" else value_text(change.new)
    if change.op == "changed":
        old, new = values_apart(change.old, change.new)  # (two that read alike, shown apart)
        text = f"± {change.path}: {old} → {new}"
    else:
        text = f"{'+' if change.op == 'added' else '-'} {change.path}: {new if change.op == 'added' else old}"
    return Change(answer.at, answer.source, text, change.path, old, new)
