"""The HTTP routes of both APIs, thin: faults first, then authentication, then the state's answer.

Run:ai (``Authorization: Bearer`` from ``POST /api/v1/token``)::

    POST   /api/v1/token                                   200 {accessToken, idToken}
    GET    /api/v1/workloads/distributed/{workloadId}      200 DistributedWorkload
    POST   /api/v1/workloads/distributed                   202 DistributedWorkload
    POST   /api/v1/workloads/distributed/{id}/suspend      202 {code, message}
    POST   /api/v1/workloads/distributed/{id}/resume       202 {code, message}
    DELETE /api/v1/workloads/distributed/{id}              202 {code, message}
    GET    /api/v1/workloads/{id}                          403 for a distributed workload (as the API)
    GET    /api/v1/clusters/{clusterId}                    200 DisplayedCluster (its version)

AIHC v1 (BCE v1 signatures)::

    GET    /api/v1/aijobs/{jobId}?resourcePoolId=…         200 {requestId, result}
    POST   /api/v1/aijobs?resourcePoolId=…                 200 {requestId, result: {jobId, jobName}}
    POST   /api/v1/aijobs/{jobId}/stop?resourcePoolId=…    200 {requestId, result: {jobId}}
    DELETE /api/v1/aijobs/{jobId}?resourcePoolId=…         200 {requestId, result: {jobId, jobName}}
    PUT    /api/v1/aijobs/{jobId}?resourcePoolId=…         body {priority}
                                                            200 {requestId, result: {jobId}}

AIHC v2 (action style, BCE v1 signatures, as Baidu's current SDKs call it)::

    POST   /?action=DescribeJob&resourcePoolId=…&queueID=…  body {jobId, needDetail}
                                                            200 {requestId, job: JobItem}
    POST   /?action=CreateJob&resourcePoolId=…&queueID=…    200 {requestId, jobId, jobName}
    POST   /?action=StopJob&…                               body {jobId}  200 {requestId, jobId}
    POST   /?action=DeleteJob&…                             body {jobId}  200 {requestId, jobId, jobName}
    POST   /?action=ModifyJob&…                             body {jobId, priority}  200 {requestId, jobId}

A stopped job goes ``Stopping`` → ``ManualTermination``; a deleted one is not found from then on, as
an unknown job is; stopping or re-prioritising a finished one is 409 ``JobAlreadyFinished``. Each
operation is a fault route of its own (``aihc.stop``, ``aihc.delete``, ``aihc.update``; a v2 action
is the operation it is, CreateJob ``aihc.submit``).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from jobschema.apis import aihc_v2
from jobschema.lifecycle import is_terminal
from jobschema.serve import aihc, runai
from jobschema.serve.auth import ID, BceRequest, verify_bce
from jobschema.serve.config import Step
from jobschema.serve.lifecycle import Job
from jobschema.serve.sources import dump
from jobschema.serve.state import BodyInvalid, ServerState, StoreFull

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

Endpoint = Callable[["Request"], Awaitable["Response"]]
#: A fault route's name (``aihc.stop``), or what names it from the request (a v2 action).
RouteName = str | Callable[["Request"], str]
Report = Callable[[str], None]
JSON = "application/json"
#: What a submit past ``--max-jobs`` live jobs answers (503, the status Run:ai documents for submit).
FULL = "{} {} are live (--max-jobs): try again once one finishes or is deleted."
#: What a submit answers (503) when the live jobs' bodies fill ``Limits.max_kept``.
FULL_BY_SIZE = "{} of live {} are kept (max_kept): try again once one finishes or is deleted."
#: What a change (suspend, resume, stop, a priority, delete) of a generated job answers (503) when
#: ``--max-jobs`` generated jobs of its API were changed already: each is kept for the server's life.
CHANGED_FULL = (
    "{} generated {} were changed already (--max-jobs), each kept as changed for as long as the "
    "server runs: a change to another generated one is refused."
)
#: What suspend or resume answers (409) while a workload is being deleted: it cannot come back.
DELETING = "The workload is being deleted."


def routes(state: ServerState, report: Report) -> list[Route]:
    """Every route of both APIs, one per path taking each of its methods (a 405 names them all in
    ``Allow``); ``report`` receives one line per internal error."""
    from starlette.routing import Route

    run, bce = _RunaiRoutes(state), _AihcRoutes(state)
    distributed = "/api/v1/workloads/distributed/{workload_id}"
    table: list[tuple[str, dict[str, tuple[RouteName, Endpoint]]]] = [
        ("/api/v1/token", {"POST": ("runai.token", run.token)}),
        ("/api/v1/workloads/distributed", {"POST": ("runai.submit", run.submit)}),
        (distributed, {"GET": ("runai.get", run.get), "DELETE": ("runai.delete", run.delete)}),
        (f"{distributed}/suspend", {"POST": ("runai.suspend", run.suspend)}),
        (f"{distributed}/resume", {"POST": ("runai.resume", run.resume)}),
        ("/api/v1/workloads/{workload_id}", {"GET": ("runai.get", run.generic)}),
        ("/api/v1/clusters/{cluster_id}", {"GET": ("runai.cluster", run.cluster)}),
        ("/api/v1/aijobs", {"POST": ("aihc.submit", bce.submit)}),
        (
            "/api/v1/aijobs/{job_id}",
            {
                "GET": ("aihc.get", bce.get),
                "DELETE": ("aihc.delete", bce.delete),
                "PUT": ("aihc.update", bce.update),
            },
        ),
        ("/api/v1/aijobs/{job_id}/stop", {"POST": ("aihc.stop", bce.stop)}),
        ("/", {"POST": (_action_route, bce.action)}),
    ]
    return [Route(path, _by_method(state, methods, report), methods=list(methods)) for path, methods in table]


#: The fault route of each v2 action (another action is ``aihc.get``'s, as DescribeJob is).
ACTION_ROUTES = {
    "CreateJob": "aihc.submit",
    "StopJob": "aihc.stop",
    "DeleteJob": "aihc.delete",
    "ModifyJob": "aihc.update",
}


def _action_route(request: Request) -> str:
    """The fault route a v2 request is: the operation its action is."""
    return ACTION_ROUTES.get(request.query_params.get("action", ""), "aihc.get")


def _by_method(
    state: ServerState, methods: dict[str, tuple[RouteName, Endpoint]], report: Report
) -> Endpoint:
    """One endpoint for a path: each method's own, behind its route's faults (``HEAD`` is ``GET``'s)."""
    guarded = {method: _guarded(state, name, run, report) for method, (name, run) in methods.items()}

    async def dispatch(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await guarded[method](request)

    return dispatch


def _guarded(state: ServerState, route: RouteName, endpoint: Endpoint, report: Report) -> Endpoint:
    """``endpoint`` behind the route's faults (``route`` a name, or what names it from the request),
    answering an internal error as the API would."""

    async def guarded(request: Request) -> Response:
        name = route if isinstance(route, str) else route(request)
        api = name.split(".", maxsplit=1)[0]
        injected = state.faults.decide(name)
        if injected is not None:
            if injected.latency:
                await asyncio.sleep(injected.latency)
            if injected.status is not None:
                headers = {} if injected.retry_after is None else {"Retry-After": str(injected.retry_after)}
                return _error(state, api, injected.status, headers)
        try:
            return await endpoint(request)
        except Exception as err:  # a bug: answered as the API's 500 and reported, never a traceback
            report(f"error: {request.method} {request.url.path}: {type(err).__name__}: {err}")
            return _error(state, api, 500, {})

    return guarded


def _error(state: ServerState, api: str, status: int, headers: dict[str, str]) -> Response:
    if api == "runai":
        return respond(runai.error(status), status, headers)
    request_id = state.new_id()
    return respond(aihc.status_error(request_id, status), status, {**headers, "x-bce-request-id": request_id})


def respond(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer (``body`` as bytes already encoded, or a value)."""
    from starlette.responses import Response

    content = body if isinstance(body, bytes) else dump(body)
    return Response(content, status, headers, media_type=JSON)


#: A JSON body's first bytes that make it no JSON text on the wire (RFC 8259 §8.1: a JSON text sent
#: over a network MUST NOT start with a byte order mark; a reader MAY ignore one). How the live APIs
#: read one is not documented: the stub takes the strict reading (Go's ``encoding/json`` refuses it),
#: so a client sending one fails here rather than, perhaps, in production.
BOM = b"\xef\xbb\xbf"
BOM_REFUSED = (
    "it starts with a UTF-8 byte order mark, which a JSON text sent over a network must not "
    "(RFC 8259 §8.1): send the JSON without it"
)


async def _json(request: Request) -> tuple[Any, str | None]:
    """The request's JSON body (None when there is none), or why it cannot be read: not UTF-8, not
    JSON, a number or nesting Python cannot hold (read as ``jobschema validate`` reads files)."""
    from jobschema.inputs.parse import parse_bytes

    data = await request.body()
    if data.startswith(BOM):  # parse_bytes reads files, where a BOM is dropped: not on the wire
        return None, BOM_REFUSED
    if not data.strip():
        return None, None
    parsed = parse_bytes(data)
    if parsed.error is None:
        return parsed.value, None
    problem = parsed.error.message.removeprefix("invalid JSON: ").replace("file is ", "it is ", 1)
    return None, problem


async def _in_thread(find: Callable[..., Any], *args: object) -> Any:
    """``find(*args)`` in a worker thread: under ``--generate`` it may wait for the generator process."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(find, *args)


#: The AIHC query parameters read as one value: given more than once, the request is ambiguous (Go's
#: ``Query().Get`` reads the first, starlette's the last; a gateway in front may check either).
ONE_VALUED = ("resourcePoolId", "queueID", "action")


class _RunaiRoutes:
    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def token(self, request: Request) -> Response:
        body, unreadable = await _json(request)
        if unreadable is not None:
            return _not_json(unreadable)
        if not isinstance(body, dict):
            return respond(runai.error(400, "The request body must be a JSON object."), 400)
        grant = next((v for k, v in body.items() if str(k).lower() == "granttype"), None)
        if grant not in ("client_credentials", "app_token"):
            return respond(runai.error(400, "grantType must be client_credentials or app_token."), 400)
        subject = self.state.credentials.runai_grant(body)
        if subject is None:
            return respond(runai.error(401, "Invalid client credentials."), 401)
        token = self.state.tokens.issue(subject)
        return respond({"accessToken": token, "idToken": self.state.tokens.issue(subject, ID)})

    def _unauthorized(self, request: Request) -> Response | None:
        problem = self.state.tokens.check(request.headers.get("authorization"))
        return None if problem is None else respond(runai.error(401, problem), 401)

    async def get(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        job = await _in_thread(self.state.runai_job, request.path_params["workload_id"])
        now = self.state.clock()
        if job is None or job.gone(now):
            return respond(runai.error(404), 404)
        if job.hidden > 0:
            job.hidden -= 1
            return respond(runai.error(404), 404)
        return respond(self.state.runai_body(job))

    async def generic(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        known = request.path_params["workload_id"] in self.state.runai_jobs
        return respond(runai.error(403), 403) if known else respond(runai.error(404), 404)

    async def cluster(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        return respond(self.state.cluster(request.path_params["cluster_id"]))

    async def submit(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        body, unreadable = await _json(request)
        if unreadable is not None:
            return _not_json(unreadable)
        problem = runai.request_problem(body)
        if problem is not None:
            return respond(runai.error(400, problem), 400)
        subject = self.state.tokens.subject(request.headers.get("authorization", ""))
        try:
            _, first = self.state.submit_runai(body, subject)
        except BodyInvalid as err:
            return respond(runai.error(400, "The workload is not valid.", "; ".join(err.lines)), 400)
        except StoreFull as full:
            return respond(runai.error(503, _full(self.state, full, "workloads")), 503)
        return respond(first, 202)

    async def suspend(self, request: Request) -> Response:
        return await self._operate(request, "suspend", lambda job: runai.suspended(), "Stopped")

    async def resume(self, request: Request) -> Response:
        lifecycle = self.state.config.runai.lifecycle

        def steps(job: Job) -> tuple[Step, ...]:  # a job drawn to fail still ends failed
            return runai.resumed(lifecycle.steps, lifecycle.fail_phase if job.failed else None)

        return await self._operate(request, "resume", steps, "Running")

    async def delete(self, request: Request) -> Response:
        return await self._operate(request, "delete", lambda job: runai.deleted(), "Deleted", gone=True)

    async def _operate(
        self,
        request: Request,
        verb: str,
        steps: Callable[[Job], tuple[Step, ...]],
        desired: str,
        gone: bool = False,
    ) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        _, unreadable = await _json(request)  # the API takes no body; one it cannot read is refused
        if unreadable is not None:
            return _not_json(unreadable)
        job = await _in_thread(self.state.runai_job, request.path_params["workload_id"])
        now = self.state.clock()
        if job is None or job.gone(now) or job.hidden > 0:
            return respond(runai.error(404), 404)
        if job.deleted and not gone:  # Deleting: nothing may revive it
            return respond(runai.error(409, DELETING), 409)
        if not job.deleted:  # (a second delete changes nothing)
            refused = self._change(job, steps, desired, gone)
            if refused is not None:
                return refused
        return respond({"code": 202, "message": f"Request to {verb} workload accepted."}, 202)

    def _change(
        self, job: Job, steps: Callable[[Job], tuple[Step, ...]], desired: str, gone: bool
    ) -> Response | None:
        """Make ``job`` follow ``steps``, kept from now on (a generated one too); the refusal instead
        (503: too many generated workloads changed already; 404: deleted and gone meanwhile)."""
        try:
            kept = self.state.keep_changed(job)
        except StoreFull as full:
            return respond(runai.error(503, _full(self.state, full, "workloads")), 503)
        if kept is None:
            return respond(runai.error(404), 404)
        kept.replace(steps(kept), desired, self.state.clock(), gone)
        return None


class _AihcRoutes:
    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def _denied(self, request: Request) -> Response | None:
        signed = BceRequest(
            request.method,
            request.scope.get("raw_path", request.url.path.encode()).decode("latin-1"),
            parse_qsl(request.scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True),
            dict(request.headers.items()),
            await request.body(),  # read whole already (the guard's): a signed digest is checked
        )
        failure = verify_bce(signed, self.state.credentials.bce_keys, self.state.clock())
        if failure is None:
            return None
        status, code, message = failure
        return self._fail(status, code, message)

    def _fail(self, status: int, code: str, message: str) -> Response:
        request_id = self.state.new_id()
        return respond(aihc.error(request_id, code, message), status, {"x-bce-request-id": request_id})

    async def _refused(self, request: Request) -> Response | None:
        """The answer to a request that is not signed, or names no resource pool (None: serve it)."""
        denied = await self._denied(request)
        if denied is not None:
            return denied
        for name in ONE_VALUED:
            count = len(request.query_params.getlist(name))
            if count > 1:  # a gateway may read the first, a service the last: refused, not guessed
                return self._fail(
                    400, "InvalidParam", f"{name} is given {count} times: which one is meant is ambiguous"
                )
        if not request.query_params.get("resourcePoolId"):
            return self._fail(400, "InvalidParam", "resourcePoolId must be set")
        return None

    async def get(self, request: Request) -> Response:
        refused = await self._refused(request)
        if refused is not None:
            return refused
        pool = request.query_params["resourcePoolId"]
        job_id = request.path_params["job_id"]
        job = await _in_thread(self.state.aihc_job, job_id, pool)
        if job is None or job.hidden > 0:
            if job is not None:
                job.hidden -= 1
            request_id = self.state.new_id()
            return respond(aihc.not_found(request_id, job_id), 404, {"x-bce-request-id": request_id})
        body = self.state.aihc_body(job)
        return respond(body, 200, {"x-bce-request-id": _request_id(body)})

    async def action(self, request: Request) -> Response:
        """``POST /?action=NAME``: the v2 API; DescribeJob, CreateJob, StopJob, DeleteJob and ModifyJob
        are served, another action is refused as the API refuses an action it does not know."""
        refused = await self._refused(request)
        if refused is not None:
            return refused
        action = request.query_params.get("action", "")
        if action not in V2_ACTIONS:
            return self._fail(400, "InvalidAction", f"The action {action!r} is not supported here.")
        body, unreadable = await _json(request)
        if unreadable is not None:
            return self._unreadable(unreadable)
        return await self._act(action, body, request.query_params["resourcePoolId"])

    async def _act(self, action: str, body: Any, pool: str) -> Response:
        """The answer to v2 ``action`` with the request's ``body`` (a null member read as absent)."""
        body = aihc_v2.without_nulls(body)
        if action == "CreateJob":
            wrong = aihc.type_problem(body, aihc.V2_FIELDS)
            if wrong is not None:  # v2 answers a field of the wrong JSON type so (aihc-api.md §8)
                return self._fail(400, "MalformedJSON", wrong)
            return self._create(aihc.from_v2_request(body), pool)
        job_id = self._job_id(body)
        if not isinstance(job_id, str):
            return job_id
        if action == "DescribeJob":
            return await self._describe(body, job_id, pool)
        verb = V2_ACTIONS[action]
        priority = body.get("priority") if verb == "update" else None
        if priority is not None and not isinstance(priority, str):
            return self._fail(400, "MalformedJSON", "priority must be a string")
        return await self._operate(verb, job_id, pool, priority, v2=True)

    def _job_id(self, body: Any) -> str | Response:
        """The ``jobId`` a v2 action's body names, or the refusal of a body naming none: a member (or
        a body) of the wrong JSON type is ``MalformedJSON``, as v2 answers CreateJob's."""
        if body is not None and not isinstance(body, dict):
            return self._fail(400, "MalformedJSON", "the request body must be a JSON object")
        job_id = (body or {}).get("jobId")
        if job_id is not None and not isinstance(job_id, str):
            return self._fail(400, "MalformedJSON", "jobId must be a string")
        if not job_id:
            return self._fail(400, "InvalidParam", "jobId must be set")
        return str(job_id)

    def _unreadable(self, problem: str) -> Response:
        return self._fail(400, "MalformedJSON", f"The JSON you provided was not well-formed: {problem}.")

    async def stop(self, request: Request) -> Response:
        """v1 ``POST /api/v1/aijobs/{jobId}/stop``: ``{requestId, result: {jobId}}``."""
        return await self._v1(request, "stop")

    async def delete(self, request: Request) -> Response:
        """v1 ``DELETE /api/v1/aijobs/{jobId}``: ``{requestId, result: {jobId, jobName}}``."""
        return await self._v1(request, "delete")

    async def update(self, request: Request) -> Response:
        """v1 ``PUT /api/v1/aijobs/{jobId}`` with ``{priority}``: ``{requestId, result: {jobId}}``."""
        return await self._v1(request, "update")

    async def _v1(self, request: Request, verb: str) -> Response:
        refused = await self._refused(request)
        if refused is not None:
            return refused
        body, unreadable = await _json(request)  # stop and delete take none; one unreadable is refused
        if unreadable is not None:
            return self._unreadable(unreadable)
        priority = None
        if verb == "update":
            if not isinstance(body, dict):
                return self._fail(400, "InvalidParam", "the request body must be a JSON object")
            priority = body.get("priority")
        pool = request.query_params["resourcePoolId"]
        return await self._operate(verb, request.path_params["job_id"], pool, priority, v2=False)

    async def _operate(self, verb: str, job_id: str, pool: str, priority: Any, v2: bool) -> Response:
        """Stop, delete or re-prioritise the job ``job_id`` of ``pool``: answered ``{requestId,
        result: {jobId[, jobName]}}`` (v1) or ``{requestId, jobId[, jobName]}`` (v2); an unknown job
        (or one deleted) as a GET of it is, a finished one 409 (stop, priority)."""
        if verb == "update" and priority not in aihc.PRIORITIES:
            return self._fail(400, "InvalidParam", f"priority must be one of {', '.join(aihc.PRIORITIES)}")
        job = await _in_thread(self.state.aihc_target, job_id, pool, v2)
        request_id = self.state.new_id()
        try:
            job = self._kept(job, verb == "delete")
        except StoreFull as full:
            return self._fail(503, "ServiceUnavailable", _full(self.state, full, "jobs"))
        if job is None:
            return respond(aihc.not_found(request_id, job_id), 404, {"x-bce-request-id": request_id})
        made: dict[str, str] = {"jobId": job_id}
        if verb == "delete":
            made["jobName"] = self.state.delete_aihc(job)
            ended = None
        elif verb == "stop":
            ended = self.state.stop_aihc(job)
        else:
            ended = self.state.modify_aihc(job, str(priority))
        if ended is not None:
            return respond(aihc.finished(request_id, job_id, ended), 409, {"x-bce-request-id": request_id})
        answer = {"requestId": request_id, **made} if v2 else {"requestId": request_id, "result": made}
        return respond(answer, 200, {"x-bce-request-id": request_id})

    def _kept(self, job: Job | None, deleting: bool) -> Job | None:
        """The job an action changes, kept from now on (a generated one never forgotten: raises
        :class:`StoreFull` past the bound), or the one it answers about unchanged (finished: 409);
        None when there is none (deleted while it was looked up)."""
        if job is None:
            return None
        if deleting or not is_terminal("aihc", aihc.status_of(job, self.state.clock())):
            # (a generated job the cache let go meanwhile is kept again, the same job; a deleted one is None)
            return self.state.keep_changed(job)
        return job if self.state.aihc_holds(job) else None

    async def _describe(self, body: dict[str, Any], job_id: str, pool: str) -> Response:
        """DescribeJob: the job ``body`` names, said in v2 (pods only with ``needDetail``)."""
        need_detail = body.get("needDetail", False)
        if not isinstance(need_detail, bool):
            return self._fail(400, "MalformedJSON", "needDetail must be true or false")
        answer = await _in_thread(self.state.describe_job, job_id, pool, need_detail)
        request_id = self.state.new_id()
        if answer is None:
            return respond(aihc.not_found(request_id, job_id), 404, {"x-bce-request-id": request_id})
        return respond(answer, 200, {"x-bce-request-id": _request_id(answer) or request_id})

    async def submit(self, request: Request) -> Response:
        refused = await self._refused(request)
        if refused is not None:
            return refused
        pool = request.query_params["resourcePoolId"]
        body, unreadable = await _json(request)
        if unreadable is not None:
            return self._unreadable(unreadable)
        return self._create(body, pool, v2=False)

    def _create(self, body: Any, pool: str, v2: bool = True) -> Response:
        """A created job walking the scripted lifecycle; v1 answers ``{requestId, result: {jobId,
        jobName}}``, v2 (``CreateJob``) ``{requestId, jobId, jobName}``."""
        wrong = aihc.type_problem(body)
        if wrong is not None:
            return self._fail(400, "MalformedJSON" if v2 else "InvalidParam", wrong)
        problem = aihc.request_problem(body)
        if problem is not None:
            return self._fail(400, "InvalidParam", problem)
        try:
            job = self.state.submit_aihc(body, pool)
        except BodyInvalid as err:
            return self._fail(400, "InvalidParam", "the job would not be valid: " + "; ".join(err.lines))
        except StoreFull as full:
            return self._fail(503, "ServiceUnavailable", _full(self.state, full, "jobs"))
        request_id = self.state.new_id()
        made = {"jobId": job.job_id, "jobName": body["name"]}
        answer = {"requestId": request_id, **made} if v2 else {"requestId": request_id, "result": made}
        return respond(answer, 200, {"x-bce-request-id": request_id})


#: The v2 actions served, each with the operation it is.
V2_ACTIONS = {
    "CreateJob": "submit",
    "DescribeJob": "get",
    "StopJob": "stop",
    "DeleteJob": "delete",
    "ModifyJob": "update",
}


def _full(state: ServerState, full: StoreFull, noun: str) -> str:
    """Why a submit is refused (503): too many live jobs, or their bodies too large together."""
    from jobschema.serve.limits import format_size

    if full.changed:
        return CHANGED_FULL.format(state.max_jobs, noun)
    if full.by_size:
        return FULL_BY_SIZE.format(format_size(state.max_kept), noun)
    return FULL.format(state.max_jobs, noun)


def _not_json(problem: str) -> Response:
    """Run:ai's answer to a body it cannot read."""
    return respond(runai.error(400, f"The request body is not valid JSON: {problem}."), 400)


#: Served bodies whose ``requestId`` is remembered (bytes cache their hash): a poll of the same
#: snapshot does not parse it again; the least recently used are forgotten past this.
REQUEST_IDS_KEPT = 256


@functools.lru_cache(maxsize=REQUEST_IDS_KEPT)
def _request_id(body: bytes) -> str:
    """The ``requestId`` of a served detail, repeated in the ``x-bce-request-id`` header."""
    import orjson

    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return ""
    request_id = value.get("requestId") if isinstance(value, dict) else None
    return request_id if isinstance(request_id, str) else ""
