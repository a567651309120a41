"""The Run:ai client: an access token from ``POST /api/v1/token``, then ``Authorization: Bearer``.

The token request is ``{"grantType": "client_credentials", "clientId", "clientSecret"}`` or, with
``grant="app_token"``, the legacy ``{"grantType": "app_token", "appId", "appSecret"}``; the answer's
``accessToken`` is a JWT whose ``exp`` claim (read, not verified: the server checks it) says when to
fetch the next one, a little before it expires (an opaque token is kept until a 401). Every string of a
token answer (the access, id and refresh tokens, whatever their names) is guarded before the answer
is written anywhere, the HAR entry of that very answer included. A 401 on a workload fetches a new
token once and asks again; a second 401, or a token request refused with 400/401/403, ends the
recording with one line naming the credentials (never their values). So each poll sends at most two
token requests (:data:`TOKENS_PER_POLL`, counted in :meth:`RunaiClient.token` itself, whoever asks)
and two workload requests, each retried at most ``--retries`` times; a token received during a poll
serves the rest of it, even one that says it has expired already.

The first snapshot of a workload on a cluster not seen yet also asks
``GET /api/v1/clusters/{clusterId}`` (with the same token), for at most
:data:`~jobschema.record.limits.MAX_CLUSTERS` clusters (a server naming a new one in every answer
would otherwise cost a request a poll and memory without end): its ``version`` names the control
plane, which the recorder prints and validates that cluster's workloads against. A cluster is asked
again at a later snapshot when the question failed for a reason that may pass (a 503, a dropped
connection, no token), or when the snapshot holds what the version it answered does not (a property
or value added later: the cluster was upgraded while it was recorded); at most
:data:`~jobschema.record.limits.CLUSTER_ASKS` times in one recording.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jobschema.apis import runai
from jobschema.inputs.parse import parse_bytes
from jobschema.lifecycle import is_terminal
from jobschema.record.api import ApiVersion, seen
from jobschema.record.credentials import NOT_HEADER_SAFE, AuthFailed, Pair, header_safe
from jobschema.record.guard import MAX_SECRET, answer_credentials
from jobschema.record.limits import CLUSTER_ASKS, MAX_CLUSTERS
from jobschema.record.transport import Call, Exchange, Transport

if TYPE_CHECKING:
    import httpx

#: Statuses of a token answer that refuse the credentials (anything else may pass: retry later).
REFUSED = frozenset({400, 401, 403})
#: Token requests one poll sends at most (the token held or a new one, and one more after a 401).
TOKENS_PER_POLL = 2
#: The longest a token is kept before its expiry (seconds); a fifth of its life when that is shorter.
REFRESH_MARGIN = 60.0


def token_expiry(token: str) -> float | None:
    """The ``exp`` claim of a JWT (seconds since the epoch), or None when it has none or is no JWT."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        parsed = parse_bytes(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        claims = parsed.value if parsed.error is None else None
        exp = claims.get("exp") if isinstance(claims, dict) else None
        return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None
    except (ValueError, binascii.Error, OverflowError):  # a hostile token: no expiry
        return None


class RunaiClient:
    """Polls distributed workloads of one Run:ai tenant."""

    name = "runai"
    error_schema = runai.ERROR_SCHEMA
    noise: tuple[str, ...] = ()
    names = "the workload id"

    def __init__(
        self, base: str, pair: Pair, grant: str, transport: Transport, learned: Callable[[str], None]
    ) -> None:
        self.base = base.rstrip("/")
        self.pair = pair
        self.grant = grant
        self.transport = transport
        self.learned = learned  # each token received is guarded from then on
        self._token: str | None = None
        self._refresh_at: float | None = None
        self._clusters: dict[str, ApiVersion] = {}
        self._asks: dict[str, int] = {}  # cluster -> how often it was asked
        self._asked = 0  # token requests sent in this poll
        self._fresh = False  # the token held was received in this poll

    # -------------------------------------------------------------------------------- tokens

    @property
    def token_url(self) -> str:
        """``BASE/api/v1/token``."""
        return self.base + runai.TOKEN_PATH

    def _body(self) -> dict[str, str]:
        if self.grant == "app_token":
            return {
                "grantType": "app_token",
                "appId": self.pair.id.value,
                "appSecret": self.pair.secret.value,
            }
        return {
            "grantType": "client_credentials",
            "clientId": self.pair.id.value,
            "clientSecret": self.pair.secret.value,
        }

    def token(self, job: str, deadline: float) -> str | None:
        """A live access token: the one held, unless it is about to expire (one received in this poll
        is used whatever its expiry), or a new one; None when this poll has sent its
        :data:`TOKENS_PER_POLL` token requests, the token answer was no token or the recording ended
        before one was asked for."""
        now = self.transport.runtime.clock()
        if self._token is not None and (self._fresh or self._refresh_at is None or now < self._refresh_at):
            return self._token
        self._token = None
        if self._asked >= TOKENS_PER_POLL:
            return None
        self._asked += 1
        exchange = self.transport.send(Call("token", job), self._token_request, deadline, self._learn)
        if exchange is None:  # the recording ended first
            return None
        if exchange.status in REFUSED:
            raise AuthFailed(f"{self.pair.names} rejected by {exchange.shown_url} ({exchange.status})")
        if not exchange.ok:
            return None
        self._take(exchange, now)
        self._fresh = True
        return self._token

    def _token_request(self) -> httpx.Request:
        return self.transport.client.build_request("POST", self.token_url, json=self._body())

    def _learn(self, exchange: Exchange) -> None:
        """Guard every credential of a token answer before anything is written from it."""
        parsed = parse_bytes(exchange.body) if exchange.body else None
        if parsed is not None and parsed.error is None:  # credential-named ones last: the newest kept
            for value in reversed(answer_credentials(parsed.value, whole=exchange.ok)):
                self.learned(value)

    def _take(self, exchange: Exchange, now: float) -> None:
        parsed = parse_bytes(exchange.body)
        answer = parsed.value if parsed.error is None else None
        token = answer.get("accessToken") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise AuthFailed(f"the answer of {exchange.shown_url} holds no accessToken ({exchange.status})")
        if not header_safe(token):  # sending it would fail, on every attempt, before it is sent
            raise AuthFailed(f"the answer of {exchange.shown_url}: its accessToken {NOT_HEADER_SAFE}")
        if len(token) > MAX_SECRET:  # no token is: one this long could not be guarded whole
            raise AuthFailed(
                f"the answer of {exchange.shown_url} holds an accessToken of {len(token)} characters "
                f"(at most {MAX_SECRET})"
            )
        self.learned(token)  # (again: the one in use is the newest guarded)
        expiry = token_expiry(token)
        self._token = token
        self._refresh_at = None if expiry is None else expiry - min(REFRESH_MARGIN, (expiry - now) / 5)

    # ----------------------------------------------------------------------------- workloads

    def poll(self, job: str, deadline: float) -> Exchange | None:
        """``GET /api/v1/workloads/distributed/{job}``; on a 401, once more with a new token. A poll
        (and the cluster question its snapshot may lead to) starts a new budget of token requests."""
        self._asked, self._fresh = 0, False
        exchange = self._get(job, deadline)
        if exchange is None or exchange.status != 401:
            return exchange
        self._token, self._fresh = None, False
        again = self._get(job, deadline)
        if again is not None and again.status == 401:
            raise AuthFailed(
                f"the access token for {self.pair.names} from {self.token_url} was rejected by "
                f"{again.shown_url} (401)"
            )
        return again if again is not None else exchange

    def _get(self, job: str, deadline: float) -> Exchange | None:
        token = self.token(job, deadline)
        if token is None:
            return None
        url = self.base + runai.WORKLOAD_URL.format(workload_id=quote(job, safe=""))
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        build = lambda: self.transport.client.build_request("GET", url, headers=headers)  # noqa: E731
        return self.transport.send(Call("job", job), build, deadline)

    # ------------------------------------------------------------------------------ clusters

    def api_version(self, value: Any, deadline: float) -> ApiVersion | None:
        """The version of the cluster ``value`` runs on: asked at its first snapshot, for the first
        :data:`~jobschema.record.limits.MAX_CLUSTERS` clusters, and again when that answer is worth
        asking again (:meth:`_ask_again`); None: the snapshot names no cluster, or the recording
        ended before it could be asked."""
        cluster = runai.cluster_id(value)
        if cluster is None:
            return None
        known = self._clusters.get(cluster)
        if known is not None and not self._ask_again(cluster, known, value):
            return known
        if known is None and len(self._clusters) >= MAX_CLUSTERS:
            return ApiVersion(None, f"more than {MAX_CLUSTERS} clusters named; no more are asked")
        found = self._ask_cluster(cluster, deadline)
        if found is None:  # the recording ended before it could be asked; nothing said
            return known
        self._asks[cluster] = self._asks.get(cluster, 0) + 1
        if found.text is None and known is not None and known.text is not None:
            return known  # asked again and not answered: the version known stands
        self._clusters[cluster] = found
        return found

    def _ask_again(self, cluster: str, known: ApiVersion, value: Any) -> bool:
        """True when ``cluster`` is worth asking again (at most
        :data:`~jobschema.record.limits.CLUSTER_ASKS` times): its question failed for a reason that
        may pass (not a 403 or 404, which will not), or the snapshot ``value`` holds a property or
        value its known version does not have (the cluster was upgraded)."""
        if self._asks.get(cluster, 0) >= CLUSTER_ASKS:
            return False
        if known.text is None:
            return known.problem is not None and known.problem not in ("403", "404")
        from jobschema.schemas.versions import absent, document_of, resolve

        version = resolve(self.name, known.text)
        return version is not None and bool(absent(document_of(runai.WORKLOAD_SCHEMA, version), value))

    def _ask_cluster(self, cluster: str, deadline: float) -> ApiVersion | None:
        token = self.token("", deadline)
        if token is None:
            return None if self.transport.runtime.monotonic() >= deadline else ApiVersion(None, "no token")
        url = self.base + runai.CLUSTER_URL.format(cluster_id=quote(cluster, safe=""))
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        build = lambda: self.transport.client.build_request("GET", url, headers=headers)  # noqa: E731
        exchange = self.transport.send(Call("cluster", ""), build, deadline)
        if exchange is None:
            return None
        if not exchange.ok:
            return ApiVersion(None, exchange.outcome)
        parsed = parse_bytes(exchange.body)
        return ApiVersion(runai.cluster_version(parsed.value if parsed.error is None else None))

    # ------------------------------------------------------------------------- what answers mean

    def job_id(self, value: Any) -> str | None:
        """``workloadId``."""
        return runai.job_id(value)

    def phase(self, value: Any) -> str | None:
        """``actualPhase``."""
        return runai.phase(value)

    def terminal(self, value: Any) -> bool:
        """A terminal phase (:mod:`jobschema.lifecycle`: Completed, Failed, Stopped)."""
        return is_terminal("runai", runai.phase(value))

    def missing(self, exchange: Exchange) -> str | None:
        """``404``: the API knows no such workload (``Resource id not found.``)."""
        return "404" if exchange.status == 404 else None

    def gone(self, exchange: Exchange, last: Any) -> bool:
        """A 404 after a snapshot in a known phase, or one that wanted the workload deleted (a
        ``Deleting`` workload is gone the next moment, often before the next poll)."""
        if self.missing(exchange) is None or not isinstance(last, dict):
            return False
        return last.get("desiredPhase") == runai.DELETED or seen("runai", runai.phase(last))
