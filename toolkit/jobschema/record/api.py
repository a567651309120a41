"""What the polling loop needs from a job API's client (:mod:`.runai`, :mod:`.aihc`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from jobschema.record.transport import Exchange


@dataclass(frozen=True)
class ApiVersion:
    """What the API says its version is for a job: the text it answered (``2.19.3``, None when the
    answer names none), or why it could not be asked (``403``, ``ConnectError``)."""

    text: str | None
    problem: str | None = None


def seen(api: str, phase: str | None) -> bool:
    """True when ``phase`` is one the lifecycle model knows, and not ``Unknown``: the job exists for
    real (right after a submit, a live API may answer ``Unknown``, or not found, for a while)."""
    from jobschema.lifecycle import State, state_of

    return phase is not None and state_of(api, phase) is not State.UNKNOWN


class ApiClient(Protocol):
    """A client of one job API: polls a job, and says what its answers mean."""

    #: ``runai`` or ``aihc``: how the status line names the API.
    name: str
    #: The schema of the API's error bodies.
    error_schema: str
    #: Pointers of per-answer noise, left out of change detection.
    noise: tuple[str, ...]
    #: What names a job to this API, for a job never found (``the workload id``).
    names: str

    def poll(self, job: str, deadline: float) -> Exchange | None:
        """Ask for ``job`` once (retrying as the policy says): the last exchange, or None when no job
        request could be sent (a token request failed for a reason worth trying again later).
        Raises :class:`~jobschema.record.credentials.AuthFailed` when a credential is refused."""
        ...

    def job_id(self, value: Any) -> str | None:
        """The job id a snapshot names."""
        ...

    def phase(self, value: Any) -> str | None:
        """The phase or status of a snapshot."""
        ...

    def terminal(self, value: Any) -> bool:
        """True when the snapshot's phase is one the job does not leave by itself."""
        ...

    def missing(self, exchange: Exchange) -> str | None:
        """How an error answer says the job does not exist (``404``, ``404
        cce.warning.GetAIJobByJobIdFailed``); None for any other answer."""
        ...

    def gone(self, exchange: Exchange, last: Any) -> bool:
        """True when an error answer means the job is gone for good: it says the job does not
        exist (:meth:`missing`) after a snapshot of it in a known phase (:func:`seen`), or after one
        asking for it to be deleted. Before, it is what the live APIs answer right after a submit:
        polled through."""
        ...

    def api_version(self, value: Any, deadline: float) -> ApiVersion | None:
        """The version of the API that answered the snapshot ``value`` (asked at a cluster's first
        snapshot, and again, a bounded number of times, when that answer is worth asking again; the
        answers recorded like every other); None when the API names no version to ask for."""
        ...
