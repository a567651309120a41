"""The jobs of one API, held within a bound: the memory a peer can make the server hold is capped.

Captured jobs are the captures given (bounded by them). Submitted jobs are at most ``most``: a submit
past it makes room by forgetting the oldest job that is finished (its timeline at its terminal step)
or being deleted, and is refused (:class:`StoreFull`) when every kept job is still live. A deleted
job is forgotten once gone; its id is remembered (the last ``most`` of them) so that ``--generate``
does not answer it again as a new job (nor ever an id the server issued to a submitted job:
:meth:`jobschema.serve.state.ServerState.issued`).

Generated jobs (``--generate``) a peer has not changed are a cache of at most ``most``, the least
recently asked for forgotten first: asked again, one is generated again, the same bytes, and nothing
a peer did is lost (a generated job answers one snapshot, whatever its polls). A generated job a
peer *changes* (suspend, resume, stop, a priority, delete) leaves that cache for a store of its own,
:attr:`JobStore.changed`, before the change is made (:meth:`JobStore.keep_changed`), and is never
forgotten while the server runs: it goes on from the state the peer left it in (a deleted one
answers not found, as it would, its id kept in its place). That store holds at most ``most`` jobs
too; a change that would put one more generated job in it is refused (:class:`StoreFull`: the API's
503) and changes nothing. So a changed job never comes back from the start of its lifecycle, and
what a peer can make the server hold stays bounded: a peer learns the bound when it changes a job,
never later by a job silently starting again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from jobschema.serve.lifecycle import Job

#: Jobs kept per API by default: submitted ones, and as many generated ones (``--max-jobs``).
MAX_JOBS = 1000
#: The bytes of submitted jobs' bodies kept per API by default (``Limits.max_kept``).
MAX_KEPT = 16 * 1024 * 1024


class StoreFull(Exception):
    """Every kept submitted job is still live: a new one is refused until one finishes or is deleted.
    ``by_size``: the kept jobs' bodies fill :attr:`JobStore.budget` (else their count is the bound);
    ``changed``: the generated jobs peers changed fill :attr:`JobStore.changed` (a change to another
    generated job is refused, for as long as the server runs)."""

    def __init__(self, message: str, by_size: bool = False, changed: bool = False) -> None:
        super().__init__(message)
        self.by_size = by_size
        self.changed = changed


class JobStore:
    """Captured, submitted and generated jobs by id, each kind bounded (see the module)."""

    def __init__(self, most: int = MAX_JOBS, budget: int = MAX_KEPT) -> None:
        if most < 1 or budget < 1:
            raise ValueError("most and budget must be at least 1")
        self.most = most
        #: The bytes of submitted jobs' bodies kept at most (each job's :attr:`Job.size`), and kept now.
        self.budget = budget
        self.kept = 0
        self.captured: dict[str, Job] = {}
        self.submitted: OrderedDict[str, Job] = OrderedDict()  # oldest first
        self.generated: OrderedDict[str, Job] = OrderedDict()  # least recently asked for first
        #: Generated jobs a peer changed, oldest change first (None: deleted and gone): never forgotten.
        self.changed: OrderedDict[str, Job | None] = OrderedDict()
        self.forgotten: OrderedDict[str, None] = OrderedDict()  # ids deleted and gone, latest last
        self._lock = threading.Lock()  # lookups under --generate run in worker threads

    def __len__(self) -> int:
        changed = sum(job is not None for job in self.changed.values())
        return len(self.captured) + len(self.submitted) + len(self.generated) + changed

    def __contains__(self, job_id: object) -> bool:
        kinds = (self.captured, self.submitted, self.generated)
        return any(job_id in jobs for jobs in kinds) or self.changed.get(job_id) is not None  # type: ignore[call-overload]

    def get(self, job_id: str, now: float) -> Job | None:
        """The job of ``job_id`` (None: unknown, or deleted and gone, which forgets it)."""
        with self._lock:
            job = self._find(job_id)
            if job is None:
                return None
            if job.gone(now):
                self._forget(job_id)
                return None
            if job_id in self.generated:
                self.generated.move_to_end(job_id)
            return job

    def holds(self, job: Job) -> bool:
        """True while ``job`` itself is kept (not another job of its id, generated again)."""
        with self._lock:
            return self._find(job.job_id) is job

    def was_deleted(self, job_id: str) -> bool:
        """True for an id deleted and forgotten (not to be generated again)."""
        return job_id in self.forgotten or (job_id in self.changed and self.changed[job_id] is None)

    def keep_changed(self, job: Job) -> Job | None:
        """Call before a peer changes ``job``: the job to change. A generated job moves from the cache
        to :attr:`changed`, never forgotten from then on (raises :class:`StoreFull` when ``most``
        changed jobs are kept already: the change must be refused, and nothing is changed); a job
        changed before is the one kept (None: deleted and gone meanwhile); any other job is itself."""
        with self._lock:
            job_id = job.job_id
            if job_id in self.changed:
                return self.changed[job_id]
            if self.captured.get(job_id) is job or self.submitted.get(job_id) is job:
                return job
            if job_id in self.forgotten:
                return None
            if len(self.changed) >= self.most:
                raise StoreFull(f"{len(self.changed)} generated jobs were changed", changed=True)
            # (the job asked for: the one cached, or one the cache let go meanwhile, the same bytes)
            self.generated.pop(job_id, None)
            self.changed[job_id] = job
            return job

    def delete(self, job_id: str) -> None:
        """Forget ``job_id`` at once (its bodies freed) and remember it deleted."""
        with self._lock:
            self._forget(job_id)

    def add_generated(self, job: Job) -> Job | None:
        """Keep a generated job, forgetting the least recently asked for past the bound; the job its id
        answers (a peer may have changed one of this id while this one was drawn: that one, None
        when it is deleted and gone)."""
        with self._lock:
            if job.job_id in self.changed:
                return self.changed[job.job_id]
            self.generated[job.job_id] = job
            self.generated.move_to_end(job.job_id)
            while len(self.generated) > self.most:
                self.generated.popitem(last=False)
            return job

    def add_submitted(self, job: Job, now: float) -> None:
        """Keep a submitted job, making room first, by count and by size (raises :class:`StoreFull`
        when there is none: every kept job is live)."""
        with self._lock:
            if len(self.submitted) >= self.most and not self._make_room(now):
                raise StoreFull(f"{len(self.submitted)} jobs are live")
            while self.kept + job.size > self.budget:
                if not self._make_room(now):
                    raise StoreFull(f"{self.kept} bytes of live jobs are kept", by_size=True)
            self.submitted[job.job_id] = job
            self.kept += job.size

    def _make_room(self, now: float) -> bool:
        """Forget the oldest submitted job that is being deleted or has finished (False: none has)."""
        for job_id, job in self.submitted.items():
            if job.deleted or job.finished(now):
                self._forget(job_id)
                return True
        return False

    def _find(self, job_id: str) -> Job | None:
        for jobs in (self.captured, self.submitted, self.changed, self.generated):
            job = jobs.get(job_id)
            if job is not None:
                return job
        return None

    def _forget(self, job_id: str) -> None:
        if job_id in self.changed:  # a changed generated job: its id stays, in its place
            self.changed[job_id] = None
            return
        submitted = self.submitted.get(job_id)
        if submitted is not None:
            self.kept -= submitted.size
        for jobs in (self.captured, self.submitted, self.generated):
            jobs.pop(job_id, None)
        self.forgotten[job_id] = None
        while len(self.forgotten) > self.most:
            self.forgotten.popitem(last=False)
