"""The AIHC v1 client: ``GET /api/v1/aijobs/{jobId}?resourcePoolId=…``, signed with BCE v1.

Every attempt is signed anew by the Baidu SDK's own signer (``baidubce.auth.bce_v1_signer.sign``,
bce-python-sdk) over the method, the path as sent, the query, and the ``host`` and ``x-bce-date``
headers, at the runtime's clock. An answer whose error code refuses the signature
(:data:`jobschema.apis.aihc.AUTH_CODES`) ends the recording with one line naming which credential.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from jobschema.apis import aihc, aihc_v2
from jobschema.inputs.parse import parse_bytes
from jobschema.lifecycle import is_terminal
from jobschema.record.api import ApiVersion, seen
from jobschema.record.credentials import AuthFailed, Pair
from jobschema.record.transport import Call, Exchange, Transport

if TYPE_CHECKING:
    import httpx

#: The error code of a job the resource pool does not hold, unknown or deleted (aihc-api.md §8: the
#: API does not document the HTTP status it comes with, so any 4xx with it counts).
NOT_FOUND = "cce.warning.GetAIJobByJobIdFailed"
#: Seconds a signature stays valid (the SDK's default).
EXPIRATION = 1800
SIGNED_HEADERS = [b"host", b"x-bce-date"]


class AihcClient:
    """Polls AIHC v1 training jobs of one resource pool."""

    name = "aihc"
    error_schema = aihc.ERROR_SCHEMA
    noise = aihc.NOISE
    names = "the job id and --resource-pool"

    def __init__(self, base: str, pool: str, pair: Pair, transport: Transport) -> None:
        from urllib.parse import urlsplit

        # The SDK's signer logs the signing key and headers at DEBUG: never, whatever the root level.
        logging.getLogger("baidubce.auth.bce_v1_signer").setLevel(logging.WARNING)
        parts = urlsplit(base)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.prefix = parts.path.rstrip("/")
        self.pool = pool
        self.pair = pair
        self.transport = transport

    def api_version(self, value: Any, deadline: float) -> ApiVersion | None:
        """AIHC names no version in its answers (v1 and v2 differ in shape, not in a field to ask):
        nothing to ask."""
        return None

    def poll(self, job: str, deadline: float) -> Exchange | None:
        """One signed GET of ``job`` (retries signed anew); None when the recording ended first."""
        exchange = self.transport.send(Call("job", job), lambda: self._signed(job), deadline)
        if exchange is not None:
            self._check_auth(exchange)
        return exchange

    def _signed(self, job: str) -> httpx.Request:
        from baidubce import utils

        path = self.prefix.encode() + aihc.JOB_URL.format(job_id="").encode() + utils.normalize_string(job)
        return self._sign("GET", path, {b"resourcePoolId": self.pool.encode()})

    def _sign(
        self, method: str, path: bytes, params: dict[bytes, bytes], body: dict[str, Any] | None = None
    ) -> httpx.Request:
        """The request ``method path?params`` (with a JSON ``body``), signed with BCE v1 at the
        runtime's clock by the Baidu SDK's signer over the method, path, query, host and date. The
        path is sent as it is signed, in its canonical form (:func:`~jobschema.apis.aihc.canonical_uri`:
        a ``--url`` path such as ``/网关`` or ``/gw:v1`` is escaped as BCE escapes it; sent as httpx
        writes it, the API would rebuild another path than the one signed)."""
        from baidubce import utils
        from baidubce.auth import bce_v1_signer
        from baidubce.auth.bce_credentials import BceCredentials

        path = aihc.canonical_uri(path)
        query = utils.get_canonical_querystring(params, False)
        headers = {"Accept": "application/json"}
        content = None
        if body is not None:
            content = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = self.transport.client.build_request(
            method, f"{self.origin}{path.decode()}?{query.decode()}", content=content, headers=headers
        )
        timestamp = int(self.transport.runtime.clock())
        date = utils.get_canonical_time(timestamp)
        signed = {b"host": request.headers["host"].encode(), b"x-bce-date": date}
        authorization = bce_v1_signer.sign(
            BceCredentials(self.pair.id.value, self.pair.secret.value),
            method.encode(),
            path,
            signed,
            params,
            timestamp,
            EXPIRATION,
            SIGNED_HEADERS,
        )
        request.headers["x-bce-date"] = date.decode()
        request.headers["authorization"] = authorization.decode()
        return request

    def _check_auth(self, exchange: Exchange) -> None:
        if exchange.status < 400:
            return
        code = _code(exchange.body)
        blamed = aihc.AUTH_CODES.get(code or "")
        if blamed is None:
            return
        answer = f"({exchange.status} {code})"
        if blamed == "time":
            raise AuthFailed(
                f"the signing time was rejected by {exchange.shown_url} {answer}: check this machine's clock"
            )
        who = {"id": self.pair.id.source, "secret": self.pair.secret.source}.get(blamed, self.pair.names)
        raise AuthFailed(f"{who} rejected by {exchange.shown_url} {answer}")

    def job_id(self, value: Any) -> str | None:
        """``result.jobId`` (or a v2 answer's job id: :func:`job_id_of`)."""
        return job_id_of(value)

    def phase(self, value: Any) -> str | None:
        """``result.status`` (or a v2 answer's ``job.status``: :func:`phase_of`)."""
        return phase_of(value)

    def terminal(self, value: Any) -> bool:
        """A terminal status (:mod:`jobschema.lifecycle`: Succeeded, Failed, Stopped, ManualTermination),
        read by :meth:`phase` (v1's ``result.status``, v2's ``job.status``)."""
        return is_terminal("aihc", self.phase(value))

    def missing(self, exchange: Exchange) -> str | None:
        """``404 cce.warning.GetAIJobByJobIdFailed``: the pool holds no such job (v1 and v2 alike;
        the code counts at any 4xx status, which the API does not document)."""
        if not 400 <= exchange.status < 500 or exchange.truncated:
            return None
        code = _code(exchange.body)
        return f"{exchange.status} {code}" if code == NOT_FOUND else None

    def gone(self, exchange: Exchange, last: Any) -> bool:
        """Not found (:meth:`missing`) after a snapshot in a known status: the job was deleted (AIHC
        shows no ``Deleting`` status: a deleted job is not found at once)."""
        return self.missing(exchange) is not None and seen("aihc", self.phase(last))


def job_id_of(value: Any) -> str | None:
    """The job an AIHC answer names, in either version's shape: v1's ``result.jobId``, v2's
    ``job.jobid`` (any source's spelling, wrapped or flattened). An API may answer a job in the other
    version's shape (a v1 endpoint moved to v2, a gateway in front of both): whichever shape comes, it
    names its job, is followed and ends as its status says."""
    return aihc.job_id(value) or aihc_v2.job_id(value)


def phase_of(value: Any) -> str | None:
    """The status of an AIHC answer in either version's shape (v1's ``result.status``, v2's
    ``job.status``)."""
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        return aihc.phase(value)
    return aihc_v2.phase(value)


def _code(body: bytes) -> str | None:
    """The ``code`` of an error body, read by the project's one JSON parser (bounded depth: a hostile
    body nested 100,000 deep is no code, not a RecursionError)."""
    parsed = parse_bytes(body)
    answer = parsed.value if parsed.error is None else None
    code = answer.get("code") if isinstance(answer, dict) else None
    return code if isinstance(code, str) else None


class AihcV2Client(AihcClient):
    """Polls AIHC v2 training jobs: ``POST /?action=DescribeJob&resourcePoolId=…&queueID=…`` with
    ``{"jobId", "needDetail": true}``, signed with BCE v1 as v1 is (Baidu's current SDKs call it so);
    its answers are read in either shape, as v1's are."""

    name = "aihc"
    names = "the job id, --resource-pool and --queue"

    def __init__(self, base: str, pool: str, queue: str, pair: Pair, transport: Transport) -> None:
        super().__init__(base, pool, pair, transport)
        self.queue = queue

    def _signed(self, job: str) -> httpx.Request:
        params = {
            b"action": aihc_v2.DESCRIBE_JOB.encode(),
            b"resourcePoolId": self.pool.encode(),
            b"queueID": self.queue.encode(),
        }
        body = {aihc_v2.JOB_ID_MEMBER: job, aihc_v2.NEED_DETAIL_MEMBER: True}
        return self._sign("POST", (self.prefix + aihc_v2.ACTION_PATH).encode(), params, body)
