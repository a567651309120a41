"""One model of a job's state for Run:ai and AIHC: every phase and status each API sends, mapped to a
small set of states, terminal or not, and the rule for what a poll right after submit means.

Every team that polls these APIs writes this map, and the maps disagree (NeMo-Run and ZenML map six
Run:ai phases differently; ZenML guesses lower-case statuses the API never sends, so most real phases
fall through to "running"). This is the one jobschema uses everywhere: ``serve``'s scripted
lifecycles, ``record``'s terminal detection, ``timeline``'s states and the validate rules on terminal
jobs. A test holds it to every enum value of every bundled schema and every Run:ai version.

>>> state_of("runai", "Degraded"), state_of("aihc", "ManualTermination"), state_of("aihc", "Abnormal")
(<State.RUNNING: 'running'>, <State.STOPPED: 'stopped'>, <State.RUNNING: 'running'>)
>>> is_terminal("runai", "Completed"), is_terminal("runai", "Unknown"), state_of("runai", "queued")
(True, False, <State.UNKNOWN: 'unknown'>)
>>> observe("runai", "Unknown", since_submit=3.0), observe("runai", None, status=503, since_submit=3.0)
(<State.WAITING: 'waiting'>, <State.WAITING: 'waiting'>)
>>> observe("runai", None, status=503, since_submit=600.0)
<State.UNKNOWN: 'unknown'>
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    """A job's (or a pod's) state, the same words for both platforms."""

    WAITING = "waiting"  # accepted, not placed yet: queued, pending, created
    STARTING = "starting"  # placed: resources created, containers starting, resuming, restarting
    RUNNING = "running"  # running, also while degraded or updating (it has not ended)
    STOPPING = "stopping"  # on its way out: stopping, terminating, deleting
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"  # ended by a person or a policy, neither succeeded nor failed
    UNKNOWN = "unknown"  # the API says it does not know, or a value no map knows


#: The states a job does not leave by itself.
TERMINAL = frozenset({State.SUCCEEDED, State.FAILED, State.STOPPED})
#: The order states are drawn in, from submit to the end.
ORDER = (
    State.WAITING,
    State.STARTING,
    State.RUNNING,
    State.STOPPING,
    State.SUCCEEDED,
    State.FAILED,
    State.STOPPED,
    State.UNKNOWN,
)

#: Run:ai ``actualPhase`` (the shared ``Phase`` enum, also ``phase`` on the generic endpoint).
RUNAI: dict[str, State] = {
    "Creating": State.WAITING,  # accepted, its objects being created: not placed yet
    "Pending": State.WAITING,
    "Initializing": State.STARTING,
    "Resuming": State.STARTING,
    "Running": State.RUNNING,
    "Updating": State.RUNNING,
    "Degraded": State.RUNNING,
    "Stopping": State.STOPPING,
    "Terminating": State.STOPPING,
    "Deleting": State.STOPPING,
    "Completed": State.SUCCEEDED,
    "Failed": State.FAILED,
    "Stopped": State.STOPPED,
    "Unknown": State.UNKNOWN,
}

#: AIHC job ``status``, v1 (``result.status``) and v2 (``job.status``): the values seen in Baidu's
#: documentation, SDKs, console and CLI (see docs/lifecycle.md for where each comes from).
AIHC: dict[str, State] = {
    "Created": State.WAITING,
    "ToBeSubmitted": State.WAITING,
    "Pending": State.WAITING,
    "Scheduled": State.STARTING,
    "Starting": State.STARTING,
    "Restarting": State.STARTING,
    "FaultTolerantStart": State.STARTING,
    "Running": State.RUNNING,
    "Abnormal": State.RUNNING,  # at least one instance failed; the job has not ended
    "Stopping": State.STOPPING,
    "Terminating": State.STOPPING,
    "Succeeded": State.SUCCEEDED,
    "Failed": State.FAILED,
    "Stopped": State.STOPPED,
    "ManualTermination": State.STOPPED,
    "Unknown": State.UNKNOWN,
}

#: A pod's phase (Kubernetes ``PodPhase``: AIHC ``podStatus.podPhase``, v2 pod ``status``). AIHC v2's
#: own notes list ``Starting`` and ``Succeed`` among a pod's statuses (docs/lifecycle.md).
POD: dict[str, State] = {
    "Pending": State.WAITING,
    "ContainerCreating": State.STARTING,
    "Starting": State.STARTING,
    "Running": State.RUNNING,
    "Succeeded": State.SUCCEEDED,
    "Succeed": State.SUCCEEDED,
    "Failed": State.FAILED,
    "Unknown": State.UNKNOWN,
}

MAPS: dict[str, dict[str, State]] = {"runai": RUNAI, "aihc": AIHC, "pod": POD}

#: The maps whose values are read whatever their case: AIHC's job ``status`` is an open string
#: (Baidu publishes no table of it, and its own sources spell it inconsistently: ``Succeed`` beside
#: ``Succeeded``), and no Baidu client compares its case (the SDKs read it as a plain string), so
#: ``SUCCEEDED`` or ``manualtermination`` is the status it names. Run:ai's ``actualPhase`` is a
#: closed enum NVIDIA's own clients compare exactly (``completed`` is no phase: an enum error), and a
#: pod's phase is Kubernetes' ``PodPhase``, a Go enum compared exactly: both stay case-sensitive.
#: Case is ASCII case: every value of these maps is ASCII, and a status holding another character
#: is none of them, though Unicode case folding would make one of it (``Succeeded`` with its ``S``
#: written as U+017F, the long s; ``Stopped`` with ``St`` as the ligature U+FB05; a Kelvin sign:
#: :func:`str.casefold` folds them to ASCII letters).
CASE_INSENSITIVE = frozenset({"aihc"})
_FOLDED: dict[str, dict[str, State]] = {
    api: {value.lower(): state for value, state in MAPS[api].items()} for api in CASE_INSENSITIVE
}

#: Seconds after submit during which an ``Unknown`` phase or an answer that is not 200 (404 while the
#: job is not visible yet, 429, 5xx) means the job is still being accepted: waiting, never failed
#: (NVIDIA-NeMo/Run #458). Later they mean unknown, still never failed: only a phase says failed.
TRANSIENT_WINDOW = 120.0


def state_of(api: str, phase: str | None) -> State:
    """The state of a phase or status of ``api`` (``runai``, ``aihc``, ``pod``): the one lookup every
    reader of a phase goes through (``record``'s terminal detection, ``timeline``, ``serve``).
    An AIHC status is read in any ASCII case (:data:`CASE_INSENSITIVE`); unknown for ``None``, for a value
    that is not a string (a payload's field holding a number or an object) and for a value the map
    does not know (a new value; a Run:ai phase or a pod phase in another case: it is not guessed to be
    running). An ``api`` no map has is a ``ValueError``."""
    phases = _phases(api)
    if not isinstance(phase, str):
        return State.UNKNOWN
    found = phases.get(phase)
    if found is None and api in _FOLDED and phase.isascii():
        found = _FOLDED[api].get(phase.lower())
    return State.UNKNOWN if found is None else found


def _phases(api: str) -> dict[str, State]:
    """The map of ``api``; a ``ValueError`` naming the maps there are for any other."""
    phases = MAPS.get(api) if isinstance(api, str) else None
    if phases is None:
        raise ValueError(f"api: expected one of {', '.join(map(repr, MAPS))}, not {api!r}")
    return phases


def is_terminal(api: str, phase: str | None) -> bool:
    """True when a job in this phase will not change by itself (a recorder stops polling it)."""
    return state_of(api, phase) in TERMINAL


def terminal_values(api: str) -> frozenset[str]:
    """The values of ``api`` whose state is terminal."""
    return frozenset(value for value, state in _phases(api).items() if state in TERMINAL)


def is_transient(api: str, phase: object, status: int = 200) -> bool:
    """True for the answers the transient rule reads (:data:`TRANSIENT_WINDOW`): one that is not 200,
    one that names no phase yet (``None``), and the API's own ``Unknown``. A value no map knows (a
    phase a newer version adds, a lower-case guess, a number) is not one: it is unknown whenever it
    comes, never taken for waiting. The API's own ``Unknown`` is read exactly, whatever
    :data:`CASE_INSENSITIVE` says: the window guesses "waiting" only of the answer the live APIs are
    known to give right after submit (NVIDIA-NeMo/Run #458); an ``UNKNOWN`` is unknown at any time."""
    phases = _phases(api)
    if status != 200 or phase is None:
        return True
    return isinstance(phase, str) and phases.get(phase) is State.UNKNOWN


def says_nothing(status: int) -> bool:
    """True for an answer that says nothing of the job, only of the client's own request: 1xx, 3xx (a
    redirect, whose target answers; 304, nothing changed since the answer before), 401, 403 and 407
    (the caller is not let in). The state before such an answer holds; a 404, a 429 or a 5xx is an
    answer about the job (:func:`is_transient` reads it)."""
    return 100 <= status < 200 or 300 <= status < 400 or status in (401, 403, 407)


#: The states a job that reached them does not leave but to be deleted (stopping) or for an answer
#: that does not say (unknown): it does not wait, start, run or end again. A stopped job may be
#: resumed (Run:ai ``Resuming``), so stopped is not one of them.
ENDED = frozenset({State.SUCCEEDED, State.FAILED})


def impossible(before: State, after: State) -> bool:
    """True when a job cannot go from ``before`` to ``after``: once it succeeded or failed, only the
    same state, stopping (it is deleted) or unknown (an answer that does not say) may follow; never
    ``Completed`` then ``Running``, nor ``Failed`` then ``Completed``. A timeline draws such a
    transition as the answers say it, and flags it."""
    return before in ENDED and after not in (before, State.STOPPING, State.UNKNOWN)


def observe(
    api: str,
    phase: str | None,
    *,
    status: int = 200,
    since_submit: float | None = None,
    window: float = TRANSIENT_WINDOW,
) -> State:
    """The state one poll shows: its phase's state, except that a transient answer (an ``Unknown``
    phase, no phase, an answer that is not 200: :func:`is_transient`) is waiting within ``window``
    seconds of submit (``since_submit``; None: not known to be a new job) and unknown otherwise; a
    phase no map knows is unknown at any time. No answer but a failed phase makes a job failed. A
    ``status`` that is not an int, or a ``since_submit`` that is not a number, is a ``TypeError``."""
    if not isinstance(status, int) or isinstance(status, bool):  # (True == 1 in Python; no status)
        raise TypeError(f"status: expected an HTTP status code (int), not {type(status).__name__}")
    if since_submit is not None and (
        isinstance(since_submit, bool) or not isinstance(since_submit, int | float)
    ):
        raise TypeError(
            f"since_submit: expected seconds (a number) or None, not {type(since_submit).__name__}"
        )
    if not is_transient(api, phase, status):
        return state_of(api, phase)
    if since_submit is not None and 0 <= since_submit <= window:
        return State.WAITING
    return State.UNKNOWN
