"""The jobs of one API, held within a bound: the memory a peer can make the server hold is capped.

Captured jobs are the captures given (bounded by them). Submitted jobs are at most ``most``: a submit
past it makes room by forgetting the oldest job that is finished (its timeline at its terminal step)
or being deleted, and is refused (:class:`StoreFull`) when every kept job is still live. Generated
jobs (``--generate``) are at most ``most`` too, the least recently asked for forgotten first (asked
again, it is generated again: the same bytes, its polls from the start). A deleted job is forgotten
once gone; its id is remembered (the last ``most`` of them) so that ``--generate`` does not answer
it again as a new job.
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
    ``by_size``: the kept jobs' bodies fill :attr:`JobStore.budget` (else their count is the bound)."""

    def __init__(self, message: str, by_size: bool = False) -> None:
        super().__init__(message)
        self.by_size = by_size


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
        self.forgotten: OrderedDict[str, None] = OrderedDict()  # ids deleted and gone, latest last
        self._lock = threading.Lock()  # lookups under --generate run in worker threads

    def __len__(self) -> int:
        return len(self.captured) + len(self.submitted) + len(self.generated)

    def __contains__(self, job_id: object) -> bool:
        return any(job_id in jobs for jobs in (self.captured, self.submitted, self.generated))

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
        return job_id in self.forgotten

    def delete(self, job_id: str) -> None:
        """Forget ``job_id`` at once (its bodies freed) and remember it deleted."""
        with self._lock:
            self._forget(job_id)

    def add_generated(self, job: Job) -> None:
        """Keep a generated job, forgetting the least recently asked for past the bound."""
        with self._lock:
            self.generated[job.job_id] = job
            self.generated.move_to_end(job.job_id)
            while len(self.generated) > self.most:
                self.generated.popitem(last=False)

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
        for jobs in (self.captured, self.submitted, self.generated):
            job = jobs.get(job_id)
            if job is not None:
                return job
        return None

    def _forget(self, job_id: str) -> None:
        submitted = self.submitted.get(job_id)
        if submitted is not None:
            self.kept -= submitted.size
        for jobs in (self.captured, self.submitted, self.generated):
            jobs.pop(job_id, None)
        self.forgotten[job_id] = None
        while len(self.forgotten) > self.most:
            self.forgotten.popitem(last=False)
