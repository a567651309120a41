"""The server's state: the jobs of both APIs, tokens, faults, ids; what every route asks.

Routes run on one event loop, so the state needs no lock. Every body it hands out is validated
against its schema when it is made (a capture at start-up, a submitted or moved job once per phase,
a generated one when first asked for); a body that fails is never served.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from jobschema.apis import aihc_v2
from jobschema.lifecycle import is_terminal
from jobschema.serve import aihc, generated, runai
from jobschema.serve.auth import Credentials, Tokens
from jobschema.serve.config import ServeConfig
from jobschema.serve.faults import FaultPlan
from jobschema.serve.lifecycle import Job, walk
from jobschema.serve.sources import Capture, Catalog, dump
from jobschema.serve.store import MAX_JOBS, MAX_KEPT, JobStore, StoreFull

__all__ = ["BodyInvalid", "ServerState", "StoreFull", "encode"]

#: What a stopped AIHC job wants (its :attr:`Job.desired`): a second stop changes nothing.
STOP_WANTED = "Stopped"


class BodyInvalid(Exception):
    """A body the server made does not validate against its schema (the findings, one line each)."""

    def __init__(self, schema: str, lines: Sequence[str]) -> None:
        super().__init__(f"{schema}: " + "; ".join(lines))
        self.lines = tuple(lines)


@dataclass
class ServerState:
    """Jobs by id for each API, and what decides tokens, faults and new ids."""

    config: ServeConfig
    credentials: Credentials
    generate: bool = False
    clock: Callable[[], float] = time.time
    #: Submitted jobs kept per API, and generated ones (:mod:`jobschema.serve.store`, ``--max-jobs``).
    max_jobs: int = MAX_JOBS
    #: The bytes of submitted jobs' bodies kept per API (``Limits.max_kept``).
    max_kept: int = MAX_KEPT
    aihc_v2_jobs: dict[str, Job] = field(default_factory=dict)
    issuer: str = "http://127.0.0.1"
    catalog: Catalog | None = None
    #: ``(api, version)`` pairs: every body of a pinned API is that version's (``--api-version``)
    api_versions: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        seed = self.config.seed
        self.faults = FaultPlan(self.config.faults, seed)
        self.tokens = Tokens(self.issuer, lambda: self.config.runai.token_expiry, self.clock)
        self._ids = random.Random(f"{seed}/ids")
        self._issued_key = f"{seed}/issued"
        self._fates = {api: random.Random(f"{seed}/{api}/fates") for api in ("runai", "aihc")}
        self.generator = generated.Worker()
        if self.generate:
            self.generator.warm()
        self.runai_jobs = JobStore(self.max_jobs, self.max_kept)
        self.aihc_jobs = JobStore(self.max_jobs, self.max_kept)

    @classmethod
    def from_catalog(
        cls, catalog: Catalog, config: ServeConfig, credentials: Credentials, **kw: Any
    ) -> ServerState:
        """State serving the captures of ``catalog``."""
        state = cls(config, credentials, catalog=catalog, **kw)
        for key, capture in catalog.runai.items():
            state.runai_jobs.captured[key] = _job_of(capture, "runai")
        for key, capture in catalog.aihc.items():
            state.aihc_jobs.captured[key] = _job_of(capture, "aihc")
        for key, capture in catalog.aihc_v2.items():
            state.aihc_v2_jobs[key] = _job_of(capture, "aihc")
        return state

    def encoder(
        self, job: Job, schema: str, api_versions: tuple[tuple[str, str], ...] = ()
    ) -> Callable[[dict[str, Any]], bytes]:
        """How ``job``'s bodies are made bytes: validated against ``schema`` (the version of its API
        ``api_versions`` pins, if any), or as they are for a capture served invalid."""
        if job.as_is:
            return dump
        return lambda value: encode(value, schema, api_versions)

    @property
    def runai_version(self) -> str | None:
        """The Run:ai version served (None: every version at once)."""
        return dict(self.api_versions).get("runai")

    def cluster(self, cluster_id: str) -> dict[str, Any]:
        """The answer about a cluster: the served version, else the one a capture names, else null."""
        recorded = self.catalog.clusters.get(cluster_id.lower()) if self.catalog else None
        version = f"{self.runai_version}.0" if self.runai_version else recorded
        return runai.cluster(cluster_id, version)

    def new_id(self) -> str:
        """A fresh UUID (version 4), repeatable under the seed."""
        return str(uuid.UUID(int=self._ids.getrandbits(128), version=4))

    def new_job_id(self) -> str:
        """A fresh job id: a UUID (version 4, repeatable under the seed) whose last 8 hex digits are a
        tag of the rest, so that :meth:`issued` knows it again without a list of every id issued."""
        head = self.new_id()[:-8]
        return head + self._tag(head)

    def issued(self, job_id: str) -> bool:
        """True for an id this server gave a submitted job (a workload id, or an AIHC job id's UUID):
        under ``--generate`` such an id is never answered as a new generated job; forgotten, it is
        not found, as a deleted job is, however many jobs were forgotten since. (A peer's id passes
        for one 1 time in 2^32: it is then not found either.)"""
        tail = job_id[-36:]
        return len(tail) == 36 and self._tag(tail[:-8]) == tail[-8:]

    def _tag(self, head: str) -> str:
        return hashlib.sha256(f"{self._issued_key}/{head}".encode()).hexdigest()[:8]

    def suffix(self) -> str:
        """A name suffix for ``useGivenNameAsPrefix``."""
        return "".join(self._ids.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5))

    # ---------------------------------------------------------------------------------- Run:ai

    def runai_job(self, workload_id: str) -> Job | None:
        """The workload of ``workload_id``, generated on first sight under ``--generate`` (None: unknown,
        or deleted and gone)."""
        job = self.runai_jobs.get(workload_id, self.clock())
        if job is None and self._may_generate(self.runai_jobs, workload_id):
            job = self._generated(
                workload_id,
                lambda: self.generator.runai(workload_id, self.config.seed, self.runai_version),
                runai.SCHEMA,
                "runai",
            )
            if job is not None:
                job = self.runai_jobs.add_generated(job)
        return job

    def keep_changed(self, job: Job) -> Job | None:
        """Call before a peer changes ``job`` (suspend, resume, stop, a priority, delete): the job to
        change, kept from then on whatever the cache of generated jobs lets go (None: deleted and gone
        meanwhile). Raises :class:`StoreFull` (``changed``) when :attr:`max_jobs` generated jobs of
        its API were changed already: the change is refused, nothing changes
        (:mod:`jobschema.serve.store`)."""
        if self.aihc_v2_jobs.get(job.job_id) is job:  # (a v2 capture: kept as long as the server runs)
            return job
        return (self.runai_jobs if job.api == "runai" else self.aihc_jobs).keep_changed(job)

    def submit_runai(self, request: dict[str, Any], creator: str) -> tuple[Job, bytes]:
        """A submitted workload and the body of the 202 answer (raises :class:`BodyInvalid`, or
        :class:`StoreFull` when :attr:`max_jobs` workloads are live)."""
        now = self.clock()
        behaviour = self.config.runai
        base = runai.workload(request, self.new_job_id(), creator, now, self.suffix())
        failed = self._fates["runai"].random() < behaviour.lifecycle.fail_rate
        timeline = walk("runai", behaviour.lifecycle, failed, behaviour.unknown_after_submit, now)
        job = Job.live(base["workloadId"], base, timeline, behaviour.not_found_after_submit, failed)
        first = encode(runai.dress(job, timeline.current(now).phase, now), runai.SCHEMA, self.api_versions)
        job.size = len(first)
        self.runai_jobs.add_submitted(job, now)
        return job, first

    def runai_body(self, job: Job) -> bytes:
        """The next GET's body of a workload."""
        return job.body(self.clock(), runai.dress, self.encoder(job, runai.SCHEMA, self.api_versions))

    # ------------------------------------------------------------------------------------ AIHC

    def aihc_job(self, job_id: str, pool: str) -> Job | None:
        """The job ``job_id`` of resource pool ``pool`` (another pool's job is not found)."""
        job = self.aihc_jobs.get(job_id, self.clock())
        if job is None and self._may_generate(self.aihc_jobs, job_id):
            job = self._generated(
                job_id, lambda: self.generator.aihc(job_id, pool, self.config.seed), aihc.SCHEMA, "aihc"
            )
            if job is not None:
                job = self.aihc_jobs.add_generated(job)
        if job is None or _pool(job.current_value()) != pool:
            return None
        return job

    def submit_aihc(self, request: dict[str, Any], pool: str) -> Job:
        """A created job (raises :class:`BodyInvalid` when its detail would not validate, or
        :class:`StoreFull` when :attr:`max_jobs` jobs are live)."""
        now = self.clock()
        behaviour = self.config.aihc
        job_id = f"{aihc.job_prefix(request)}-{self.new_job_id()}"
        base = aihc.job(request, job_id, pool, now, self.new_id())
        failed = self._fates["aihc"].random() < behaviour.lifecycle.fail_rate
        timeline = walk("aihc", behaviour.lifecycle, failed, behaviour.unknown_after_submit, now)
        job = Job.live(job_id, base, timeline, behaviour.not_found_after_submit, failed)
        job.size = len(encode(aihc.dress(job, timeline.current(now).phase, now), aihc.SCHEMA))
        self.aihc_jobs.add_submitted(job, now)
        return job

    def aihc_body(self, job: Job) -> bytes:
        """The next GET's body of a job."""
        return job.body(self.clock(), aihc.dress, self.encoder(job, aihc.SCHEMA))

    def aihc_target(self, job_id: str, pool: str, v2: bool) -> Job | None:
        """The job an action (stop, delete, a priority change) names in ``pool``: under v2 a v2 capture
        first, as DescribeJob finds it; else a kept job (generated under ``--generate``, so it may
        wait for the generator: call it off the event loop). None: not found, or not visible yet."""
        if v2:
            captured = self.aihc_v2_jobs.get(job_id)
            if captured is not None:
                return captured if _v2_pool(captured) in (None, pool) else None
        job = self.aihc_job(job_id, pool)
        return None if job is None or job.hidden > 0 else job

    def aihc_holds(self, job: Job) -> bool:
        """True while ``job`` is kept (False once deleted or forgotten)."""
        return self.aihc_v2_jobs.get(job.job_id) is job or self.aihc_jobs.holds(job)

    def stop_aihc(self, job: Job) -> str | None:
        """Stop ``job``: ``Stopping`` for a poll, then ``ManualTermination``; a job stopping already is
        left as it is. The status of a job that has finished instead (nothing changes)."""
        now = self.clock()
        status = aihc.status_of(job, now)
        if is_terminal("aihc", status):
            return status
        if job.desired != STOP_WANTED:
            job.replace(aihc.stopped(), STOP_WANTED, now)
        return None

    def modify_aihc(self, job: Job, priority: str) -> str | None:
        """Give ``job`` ``priority``; the status of a job that has finished instead (nothing changes).
        A captured history keeps its snapshots, each re-encoded with the priority."""
        status = aihc.status_of(job, self.clock())
        if is_terminal("aihc", status):
            return status
        if job.base is not None:
            job.base = aihc.with_priority(job.base, priority)
            job.edited()
            return None
        schema = aihc_v2.JOB_SCHEMA if self.aihc_v2_jobs.get(job.job_id) is job else aihc.SCHEMA
        job.values = [aihc.with_priority(value, priority) for value in job.values]
        job.snapshots = list(map(self.encoder(job, schema), job.values))
        return None

    def delete_aihc(self, job: Job) -> str:
        """Forget ``job`` at once, its bodies with it (then not found, as an unknown job; never
        generated again); its name."""
        name = aihc.name_of(job)
        self.aihc_v2_jobs.pop(job.job_id, None)
        self.aihc_jobs.delete(job.job_id)
        return name

    def describe_job(self, job_id: str, pool: str, need_detail: bool) -> bytes | None:
        """The next DescribeJob answer of ``job_id`` in ``pool`` (None: not found): a v2 capture's next
        snapshot, else the job kept as a v1 detail (captured, submitted or generated) said in v2 by
        the one mapping (:func:`jobschema.apis.aihc_map.to_v2`). Without ``need_detail`` the pods
        are left out, as the API leaves them out."""
        from jobschema.apis import aihc_map

        captured = self.aihc_v2_jobs.get(job_id)
        if captured is not None:
            if _v2_pool(captured) not in (None, pool):
                return None
            v2 = self.encoder(captured, aihc_v2.JOB_SCHEMA)
            body = captured.body(self.clock(), aihc.dress, v2)
            return body if need_detail else v2(aihc_v2.without_detail(json.loads(body)))
        job = self.aihc_job(job_id, pool)
        if job is None or job.hidden > 0:
            if job is not None:
                job.hidden -= 1
            return None
        detail = json.loads(self.aihc_body(job))
        return self.encoder(job, aihc_v2.JOB_SCHEMA)(aihc_map.to_v2(detail, self.new_id(), need_detail))

    def _may_generate(self, store: JobStore, job_id: str) -> bool:
        """Under ``--generate``: an id never deleted, nor issued to a submitted job (forgotten since)."""
        return self.generate and not store.was_deleted(job_id) and not self.issued(job_id)

    def _generated(
        self, job_id: str, make: Callable[[], dict[str, Any] | None], schema: str, api: str
    ) -> Job | None:
        value = make()
        if value is None:
            return None
        try:
            body = encode(value, schema, self.api_versions)
        except BodyInvalid:  # the id cannot be this API's (a workloadId that is not a UUID)
            return None
        return Job.captured(job_id, api, [value], [body])


def _job_of(capture: Capture, api: str) -> Job:
    """The job answering ``capture``'s snapshots (as it is, if it was served invalid)."""
    job = Job.captured(capture.job_id, api, capture.values, capture.bodies)
    job.as_is = capture.invalid
    return job


def _v2_pool(job: Job) -> Any:
    """The resource pool a v2 capture names (None: none)."""
    return aihc_v2.job_of(job.current_value()).get("resourcePoolId")


def _pool(value: dict[str, Any]) -> Any:
    result = value.get("result") if "result" in value else value
    return result.get("resourcePoolId") if isinstance(result, dict) else None


def encode(value: dict[str, Any], schema: str, api_versions: tuple[tuple[str, str], ...] = ()) -> bytes:
    """The JSON bytes of ``value`` once it validates against ``schema`` (the version of its API that
    ``api_versions`` pins, if any; else :class:`BodyInvalid`)."""
    from jobschema.validate.run import validate_payload

    result = validate_payload(value, schema, api_versions=dict(api_versions))
    if not result.valid:
        lines = [
            f"{f.pointer or '(root)'}: {f.message} [{f.rule}]"
            for f in result.findings
            if f.severity == "error"
        ]
        raise BodyInvalid(schema, lines)
    return dump(value)
